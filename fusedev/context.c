// SPDX-License-Identifier: MIT
/*
 * context.c - per-file contexts: creation at open(), teardown at
 * release(), the holder list of a device and the per-context event queue
 * that read() and poll() serve.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_fused.h"

/**
 * hfd_tid_to_tgid() - the process (thread group) of a thread
 * @tid: thread id as FUSE reports it
 *
 * Return: the TGID, or @tid when /proc does not tell (the thread is
 * gone, or it lives in another pid namespace).
 */
pid_t hfd_tid_to_tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	if (tid <= 0)
		return tid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			tgid = v;
			break;
		}
	}
	fclose(f);
	return tgid;
}

static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = pid > 0 ? fopen(path, "re") : NULL;
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* one token per field in the clients attribute */
	for (n = 0; buf[n]; n++)
		if (buf[n] == ' ' || buf[n] == '\t')
			buf[n] = '_';
	if (!buf[0])
		snprintf(buf, len, "?");
}

static void ctx_teardown(struct hfd_ctx *ctx);

/* Address space, handle tables and submission state of a compute node */
static int ctx_open_compute(struct hfd_ctx *ctx, struct hfd_device *dev)
{
	int ret;

	ctx->dev = dev;
	ret = hfd_ctx_mem_init(ctx);
	if (ret)
		return ret;
	ret = hfd_ctx_cs_init(ctx);
	if (ret)
		goto err_mem_fini;
	ret = dev->model->ops->as_create(dev->fw, &ctx->as);
	if (ret)
		goto err_cs_free;
	/*
	 * NIC events of the address space name the context. The context
	 * outlives the address space (ctx_teardown destroys it before the
	 * last reference goes), and the model calls back no more once
	 * as_destroy returned, so the cookie never dangles.
	 */
	if (hfd_model_has_nic(dev->model))
		dev->model->ops->as_set_cookie(ctx->as, ctx);
	return 0;

err_cs_free:
	hfd_ctx_cs_free(ctx);
err_mem_fini:
	hfd_ctx_mem_fini(ctx);
	return ret;
}

/* A context of @dev, not yet on its list, holding one reference */
static int ctx_create(struct hfd_device *dev, bool control, pid_t tid,
		      uid_t uid, gid_t gid, struct hfd_ctx **out)
{
	struct hfd_ctx *ctx;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->ev_cap = (unsigned int)hfd_limit(HPU_CTX_LIMIT_EVENTS);
	ctx->events = calloc(ctx->ev_cap, sizeof(*ctx->events));
	if (!ctx->events) {
		free(ctx);
		return -ENOMEM;
	}
	ret = pthread_mutex_init(&ctx->lock, NULL);
	if (ret) {
		free(ctx->events);
		free(ctx);
		return -ret;
	}
	pthread_rwlock_init(&ctx->as_lock, NULL);
	pthread_mutex_init(&ctx->trace_lock, NULL);
	if (!control && hfd_device_has_cs(dev)) {
		ret = ctx_open_compute(ctx, dev);
		if (ret) {
			pthread_mutex_destroy(&ctx->trace_lock);
			pthread_rwlock_destroy(&ctx->as_lock);
			pthread_mutex_destroy(&ctx->lock);
			free(ctx->events);
			free(ctx);
			return ret;
		}
	}
	ctx->dev = dev;
	ctx->control = control;
	ctx->pid = hfd_tid_to_tgid(tid);
	ctx->uid = uid;
	ctx->gid = gid;
	read_comm(ctx->pid, ctx->comm, sizeof(ctx->comm));
	ctx->open_ns = hfd_now_ns();
	ctx->refcount = 1;
	*out = ctx;
	return 0;
}

/*
 * Exclusive mode: claim @dev for a compute context being set up; -EBUSY
 * while another compute context is open, set up or torn down.
 */
static int ctx_acquire(struct hfd_device *dev, pid_t tid)
{
	bool busy;

	pthread_mutex_lock(&dev->ctx_lock);
	busy = dev->num_compute || dev->acquiring;
	if (!busy)
		dev->acquiring = true;
	pthread_mutex_unlock(&dev->ctx_lock);
	if (!busy)
		return 0;
	hfd_dbg("hpu%u: exclusive: compute open by pid %d refused, the device is held",
		dev->index, (int)hfd_tid_to_tgid(tid));
	return -EBUSY;
}

/**
 * hfd_ctx_open() - create the context of a newly opened node
 * @dev: device
 * @control: control node (INFO only, not a holder)
 * @tid: thread that opened the node
 * @uid: user of the opener (owner of what the context exports)
 * @gid: group of the opener
 * @out: receives the context, holding one reference
 *
 * An exclusive device (--exclusive) takes one compute context at a time:
 * while another is open, being set up or torn down, a compute open gets
 * -EBUSY, as the habanalabs driver answers a second open of a device.
 *
 * Return: 0 or -errno.
 */
int hfd_ctx_open(struct hfd_device *dev, bool control, pid_t tid, uid_t uid,
		 gid_t gid, struct hfd_ctx **out)
{
	return hfd_ctx_open_exclusive(dev, control, dev->exclusive, tid, uid,
				      gid, out);
}

/**
 * hfd_ctx_open_exclusive() - hfd_ctx_open() with the exclusive rule
 * chosen by the caller
 * @dev: device
 * @control: control node
 * @exclusive: a compute open gets -EBUSY while the device has a compute
 *	context (the habanalabs nodes always, the hpu ones with --exclusive)
 * @tid: thread that opened the node
 * @uid: user of the opener
 * @gid: group of the opener
 * @out: receives the context, holding one reference
 *
 * Return: 0 or -errno.
 */
int hfd_ctx_open_exclusive(struct hfd_device *dev, bool control, bool exclusive,
			   pid_t tid, uid_t uid, gid_t gid,
			   struct hfd_ctx **out)
{
	struct hfd_ctx *ctx = NULL;
	int ret;

	exclusive = exclusive && !control;
	if (exclusive) {
		ret = ctx_acquire(dev, tid);
		if (ret)
			return ret;
	}
	ret = ctx_create(dev, control, tid, uid, gid, &ctx);

	pthread_mutex_lock(&dev->ctx_lock);
	if (exclusive)
		dev->acquiring = false;
	if (ret) {
		pthread_mutex_unlock(&dev->ctx_lock);
		return ret;
	}
	if (!control && dev->status == HPU_DEVICE_STATUS_IN_RESET) {
		/* as the habanalabs driver: try again once it is over */
		pthread_mutex_unlock(&dev->ctx_lock);
		ctx_teardown(ctx);
		hfd_ctx_put(ctx);
		return -EAGAIN;
	}
	ctx->next = dev->ctx_list;
	if (dev->ctx_list)
		dev->ctx_list->prev = ctx;
	dev->ctx_list = ctx;
	if (control) {
		dev->num_control++;
	} else {
		dev->num_compute++;
		dev->open_counter++;
	}
	pthread_mutex_unlock(&dev->ctx_lock);

	hfd_dbg("hpu%u: %s context opened by pid %d (%s)", dev->index,
		control ? "control" : "compute", (int)ctx->pid, ctx->comm);
	*out = ctx;
	return 0;
}

/**
 * hfd_ctx_get() - take a reference on a context found through its device
 * @ctx: context (the caller holds the device's ctx_lock or a reference)
 */
void hfd_ctx_get(struct hfd_ctx *ctx)
{
	__atomic_add_fetch(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

/**
 * hfd_device_contexts() - every context of a device, each with a
 * reference taken under its ctx_lock, for work done without the lock
 * (queueing an event wakes a poller through FUSE)
 * @dev: device
 * @list: receives the array (NULL when there is no context)
 * @n: receives its length
 *
 * Return: 0, or -ENOMEM with nothing taken.
 */
int hfd_device_contexts(struct hfd_device *dev, struct hfd_ctx ***list,
			size_t *n)
{
	struct hfd_ctx **l, *ctx;
	size_t cap, i = 0;

	*list = NULL;
	*n = 0;
	pthread_mutex_lock(&dev->ctx_lock);
	/* a context leaves the list before it stops being counted */
	cap = dev->num_compute + dev->num_control;
	if (!cap) {
		pthread_mutex_unlock(&dev->ctx_lock);
		return 0;
	}
	l = calloc(cap, sizeof(*l));
	if (!l) {
		pthread_mutex_unlock(&dev->ctx_lock);
		return -ENOMEM;
	}
	for (ctx = dev->ctx_list; ctx && i < cap; ctx = ctx->next) {
		hfd_ctx_get(ctx);
		l[i++] = ctx;
	}
	pthread_mutex_unlock(&dev->ctx_lock);
	*list = l;
	*n = i;
	return 0;
}

/**
 * hfd_contexts_put() - drop the references of hfd_device_contexts() and
 * free its array
 * @list: the array (may be NULL)
 * @n: its length
 */
void hfd_contexts_put(struct hfd_ctx **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		hfd_ctx_put(list[i]);
	free(list);
}

/**
 * hfd_ctx_put() - drop a reference; the last one frees the context
 * @ctx: context
 */
void hfd_ctx_put(struct hfd_ctx *ctx)
{
	if (__atomic_sub_fetch(&ctx->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	if (ctx->ph)
		fuse_pollhandle_destroy(ctx->ph);
	hfd_ctx_cs_free(ctx);
	pthread_mutex_destroy(&ctx->trace_lock);
	pthread_rwlock_destroy(&ctx->as_lock);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx->events);
	free(ctx);
}

/*
 * Everything the context owns on the device: abort its CSs (each gets its
 * cs_done, pending waits are answered), destroy the address space (no job
 * of it runs afterwards), free its memory, CBs and pidfds.
 */
static void ctx_teardown(struct hfd_ctx *ctx)
{
	struct hfd_device *dev = ctx->dev;

	/*
	 * Killed by a hard reset: its ring breaks (error EIO) before it goes,
	 * also when this teardown (the end of the consumer's take, a call)
	 * came before the reset could break it, or the producer waits for a
	 * take that never comes
	 */
	if (hfd_ctx_is_dead(ctx))
		hfd_ring_reset_ctx(ctx);
	/* no entry is taken from the rings once the CSs are aborted */
	hfd_ring_unregister_ctx(ctx);
	if (ctx->as) {
		pthread_rwlock_rdlock(&dev->reset_lock);
		pthread_rwlock_wrlock(&ctx->as_lock);
		dev->model->ops->as_destroy(ctx->as);
		ctx->as = NULL;
		pthread_rwlock_unlock(&ctx->as_lock);
		pthread_rwlock_unlock(&dev->reset_lock);
	}
	hfd_ctx_cs_fini(ctx);
	hfd_ctx_mem_fini(ctx);
	hfd_hl_irq_ctx_fini(ctx);
	hfd_hl_cb_ctx_fini(ctx);
	hfd_hl_sync_free(ctx->hl_sync);
	ctx->hl_sync = NULL;
	hfd_hl_stream_free(ctx->hl_stream);
	ctx->hl_stream = NULL;
	free(ctx->hl_cps);
	ctx->hl_cps = NULL;
	hfd_ctx_limits_release(ctx);
	__atomic_store_n(&ctx->torn_down, true, __ATOMIC_RELEASE);
}

/* hfd_ctx.calls: release() came */
#define HFD_CTX_RELEASED 0x80000000U
/* hfd_ctx.calls: a hard reset killed the context */
#define HFD_CTX_DEAD	 0x40000000U
/* hfd_ctx.calls: the teardown the reset asked for was claimed */
#define HFD_CTX_REAPED	 0x20000000U
/* hfd_ctx.calls: the calls in progress */
#define HFD_CTX_CALLS	 0x1fffffffU

static void ctx_release_now(struct hfd_ctx *ctx);

/**
 * hfd_ctx_call_begin() - an ioctl on the context's file starts
 * @ctx: context (its file is open: the kernel holds it for the call)
 */
void hfd_ctx_call_begin(struct hfd_ctx *ctx)
{
	__atomic_add_fetch(&ctx->calls, 1, __ATOMIC_ACQ_REL);
}

/**
 * hfd_ctx_call_try_begin() - work of the daemon's own on the context
 * (a ring's consumer taking an entry) starts, unless release() came or
 * a hard reset killed the context
 * @ctx: context (the caller holds a reference)
 *
 * Such work counts as a call: a release() that finds it in progress
 * leaves the teardown to its hfd_ctx_call_end().
 *
 * Return: true when it may start (end it with hfd_ctx_call_end()).
 */
bool hfd_ctx_call_try_begin(struct hfd_ctx *ctx)
{
	uint32_t c = __atomic_load_n(&ctx->calls, __ATOMIC_ACQUIRE);

	do {
		if (c & (HFD_CTX_RELEASED | HFD_CTX_DEAD))
			return false;
	} while (!__atomic_compare_exchange_n(&ctx->calls, &c, c + 1, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return true;
}

/**
 * hfd_ctx_call_end() - the ioctl of hfd_ctx_call_begin() is done with
 * the context; the last one after release() tears the context down
 * @ctx: context
 */
void hfd_ctx_call_end(struct hfd_ctx *ctx)
{
	uint32_t c = __atomic_load_n(&ctx->calls, __ATOMIC_ACQUIRE);

	for (;;) {
		/* the last call on a killed context reaps it, still a call */
		if ((c & HFD_CTX_CALLS) == 1 && (c & HFD_CTX_DEAD) &&
		    !(c & (HFD_CTX_REAPED | HFD_CTX_RELEASED))) {
			if (__atomic_compare_exchange_n(
				    &ctx->calls, &c, c | HFD_CTX_REAPED, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				ctx_teardown(ctx);
				hfd_dbg("hpu%u: pid %d: context reaped after a reset",
					ctx->dev->index, (int)ctx->pid);
				c = __atomic_load_n(&ctx->calls,
						    __ATOMIC_ACQUIRE);
			}
			continue;
		}
		if (__atomic_compare_exchange_n(&ctx->calls, &c, c - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	if (((c - 1) & HFD_CTX_RELEASED) && !((c - 1) & HFD_CTX_CALLS))
		ctx_release_now(ctx);
}

/**
 * hfd_ctx_is_dead() - whether a hard reset killed the context: it
 * answers INFO only (read() and poll() still serve its events)
 * @ctx: context
 */
bool hfd_ctx_is_dead(struct hfd_ctx *ctx)
{
	return __atomic_load_n(&ctx->calls, __ATOMIC_ACQUIRE) & HFD_CTX_DEAD;
}

/**
 * hfd_ctx_kill() - a hard reset: the context starts no call of the
 * model's any more (ioctls other than INFO get -EIO, a ring's consumer
 * takes nothing more); what it holds goes at hfd_ctx_reap()
 * @ctx: compute context (the caller holds a reference)
 */
void hfd_ctx_kill(struct hfd_ctx *ctx)
{
	__atomic_fetch_or(&ctx->calls, HFD_CTX_DEAD, __ATOMIC_ACQ_REL);
}

/**
 * hfd_ctx_reap() - tear down what a killed context holds on the device
 * (its ring, address space, CSs and waits, memory, CBs, pidfds) now, or
 * at the end of the last call in progress on it, which may still use
 * those (a worker stuck in client memory: when it comes back)
 * @ctx: context killed with hfd_ctx_kill() (the caller holds a reference)
 *
 * The teardown runs as a call, so a release() meanwhile waits for it;
 * after release() came, the release tears everything down itself.
 */
void hfd_ctx_reap(struct hfd_ctx *ctx)
{
	uint32_t c = __atomic_load_n(&ctx->calls, __ATOMIC_ACQUIRE);

	do {
		if (c & HFD_CTX_RELEASED)
			return;
	} while (!__atomic_compare_exchange_n(&ctx->calls, &c, c + 1, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	hfd_ctx_call_end(ctx);
}

/**
 * hfd_ctx_release() - tear down the context of a closed file
 * @ctx: context; the file's reference is dropped
 *
 * Runs when the last reference to the file goes away, also when its
 * process was killed: from here on the context is not a holder and owns
 * nothing on the device. The kernel sends RELEASE only after every call
 * on the file returned, but the uaccess watchdog answers a call whose
 * worker is stuck in client memory: such a worker still uses the
 * context, so the teardown waits for it (hfd_ctx_call_end()), as a kernel
 * file outlives a stuck ioctl.
 */
void hfd_ctx_release(struct hfd_ctx *ctx)
{
	/* the call in progress may free the context as soon as it ends */
	unsigned int index = ctx->dev->index;
	int pid = (int)ctx->pid;

	/* a ring's take in progress ends first, unless it is stuck */
	hfd_ring_stop_ctx(ctx);
	if (__atomic_fetch_or(&ctx->calls, HFD_CTX_RELEASED, __ATOMIC_ACQ_REL) &
	    HFD_CTX_CALLS) {
		hfd_info("hpu%u: pid %d: release waits for a stuck call", index,
			 pid);
		return;
	}
	ctx_release_now(ctx);
}

static void ctx_release_now(struct hfd_ctx *ctx)
{
	struct hfd_device *dev = ctx->dev;
	uint64_t lived_ms = (hfd_now_ns() - ctx->open_ns) / 1000000ULL;
	bool last;

	pthread_mutex_lock(&dev->ctx_lock);
	if (!ctx->control)
		dev->in_release++;
	if (dev->hl_debug == ctx) /* habanalabs: its debug mode ends too */
		dev->hl_debug = NULL;
	if (ctx->prev)
		ctx->prev->next = ctx->next;
	else
		dev->ctx_list = ctx->next;
	if (ctx->next)
		ctx->next->prev = ctx->prev;
	ctx->next = ctx->prev = NULL;
	pthread_mutex_unlock(&dev->ctx_lock);

	ctx_teardown(ctx);

	pthread_mutex_lock(&dev->ctx_lock);
	if (ctx->control) {
		dev->num_control--;
	} else {
		dev->num_compute--;
		dev->in_release--;
		dev->last_open_period_ms = lived_ms;
	}
	/* the last file of a hot-removed device frees it */
	last = __atomic_load_n(&dev->state, __ATOMIC_ACQUIRE) ==
		       HFD_SLOT_REMOVED &&
	       !dev->num_compute && !dev->num_control && !dev->dying;
	if (last)
		dev->dying = true;
	pthread_mutex_unlock(&dev->ctx_lock);

	hfd_dbg("hpu%u: %s context of pid %d released after %llu ms",
		dev->index, ctx->control ? "control" : "compute", (int)ctx->pid,
		(unsigned long long)lived_ms);
	hfd_ctx_put(ctx);
	if (last)
		hfd_device_unplugged(dev);
}

/* Notify @ph (taken out of a context under its lock) and drop it */
static void poll_notify(struct fuse_pollhandle *ph)
{
	if (!ph)
		return;
	fuse_lowlevel_notify_poll(ph);
	fuse_pollhandle_destroy(ph);
}

/**
 * hfd_ctx_wake_poller() - wake the poller of a context's file, if one
 * waits; it polls again and sees the file's state
 * @ctx: context
 */
void hfd_ctx_wake_poller(struct hfd_ctx *ctx)
{
	struct fuse_pollhandle *ph;

	pthread_mutex_lock(&ctx->lock);
	ph = ctx->ph;
	ctx->ph = NULL;
	pthread_mutex_unlock(&ctx->lock);
	poll_notify(ph);
}

/**
 * hfd_ctx_queue_event() - queue an event for read() and flag it for
 * GET_EVENTS; wakes a poller
 * @ctx: context
 * @type: HPU_EVENT_*
 * @engine: engine concerned or ~0
 * @seq: CS sequence number or 0
 * @addr: address or port, or 0
 * @data: event-specific details
 *
 * When the queue is full (the events limit) the oldest event is dropped
 * (and counted): a client that never reads cannot make the daemon grow.
 *
 * Return: 0, or -EINVAL for an unknown @type.
 */
int hfd_ctx_queue_event(struct hfd_ctx *ctx, uint32_t type, uint32_t engine,
			uint64_t seq, uint64_t addr, uint64_t data)
{
	struct fuse_pollhandle *ph;
	struct hpu_event *ev;

	if (type >= HPU_EVENT_MAX)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->ev_count == ctx->ev_cap) {
		ctx->ev_head = (ctx->ev_head + 1) % ctx->ev_cap;
		ctx->ev_count--;
		ctx->ev_dropped++;
		ctx->ev_lost++;
	}
	ev = &ctx->events[(ctx->ev_head + ctx->ev_count) % ctx->ev_cap];
	memset(ev, 0, sizeof(*ev));
	ev->timestamp_ns = hfd_now_ns();
	ev->seq = seq;
	ev->addr = addr;
	ev->data = data;
	ev->type = type;
	ev->engine = engine;
	ctx->ev_count++;
	ctx->events_mask |= 1ULL << type;
	ph = ctx->ph;
	ctx->ph = NULL;
	pthread_mutex_unlock(&ctx->lock);
	poll_notify(ph);
	return 0;
}

/**
 * hfd_ctx_read_events() - dequeue up to @max events, oldest first
 * @ctx: context
 * @out: destination
 * @max: room at @out, in records
 *
 * A control context whose queue dropped records since its last read
 * gets an HPU_EVENT_EVENTS_LOST record first (data: how many).
 *
 * Return: records dequeued (0 when none is queued).
 */
int hfd_ctx_read_events(struct hfd_ctx *ctx, struct hpu_event *out,
			unsigned int max)
{
	unsigned int n = 0;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->control && ctx->ev_lost && max) {
		memset(&out[0], 0, sizeof(out[0]));
		out[0].timestamp_ns = hfd_now_ns();
		out[0].type = HPU_EVENT_EVENTS_LOST;
		out[0].engine = ~0U;
		out[0].data = ctx->ev_lost;
		ctx->ev_lost = 0;
		n++;
	}
	while (n < max && ctx->ev_count) {
		out[n++] = ctx->events[ctx->ev_head];
		ctx->ev_head = (ctx->ev_head + 1) % ctx->ev_cap;
		ctx->ev_count--;
	}
	pthread_mutex_unlock(&ctx->lock);
	return (int)n;
}

/**
 * hfd_ctx_poll() - readiness of a context's file
 * @ctx: context
 * @ph: poll handle to notify later, or NULL; the context takes it over
 *
 * Return: POLLIN | POLLRDNORM when events are queued, POLLPRI when a CS
 * of the file ended since its last WAIT_CS, else 0.
 */
unsigned int hfd_ctx_poll(struct hfd_ctx *ctx, struct fuse_pollhandle *ph)
{
	struct fuse_pollhandle *old = NULL;
	unsigned int revents = 0;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->ev_count || (ctx->control && ctx->ev_lost))
		revents = POLLIN | POLLRDNORM;
	if (ctx->cs_ended)
		revents |= POLLPRI;
	if (ph) {
		old = ctx->ph;
		ctx->ph = ph;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (old)
		fuse_pollhandle_destroy(old);
	return revents;
}

/**
 * hfd_ctx_note_cs_ended() - a CS of the file ended: POLLPRI, wake a poller
 * @ctx: context
 */
void hfd_ctx_note_cs_ended(struct hfd_ctx *ctx)
{
	struct fuse_pollhandle *ph;

	pthread_mutex_lock(&ctx->lock);
	ctx->cs_ended = true;
	ph = ctx->ph;
	ctx->ph = NULL;
	pthread_mutex_unlock(&ctx->lock);
	poll_notify(ph);
}

/**
 * hfd_ctx_clear_cs_ended() - a WAIT_CS came: POLLPRI is off until the
 * next CS ends
 * @ctx: context
 */
void hfd_ctx_clear_cs_ended(struct hfd_ctx *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->cs_ended = false;
	pthread_mutex_unlock(&ctx->lock);
}

/**
 * hfd_ctx_peek_events() - the GET_EVENTS answer, without clearing it
 * @ctx: context
 * @mask: receives the event bits since the last hfd_ctx_clear_events()
 * @pending: receives the number of events queued for read()
 */
void hfd_ctx_peek_events(struct hfd_ctx *ctx, uint64_t *mask, uint64_t *pending)
{
	pthread_mutex_lock(&ctx->lock);
	*mask = ctx->events_mask;
	*pending = ctx->ev_count;
	pthread_mutex_unlock(&ctx->lock);
}

/**
 * hfd_ctx_has_events() - whether read() has records for the context
 * @ctx: context
 */
bool hfd_ctx_has_events(struct hfd_ctx *ctx)
{
	bool any;

	pthread_mutex_lock(&ctx->lock);
	any = ctx->ev_count || (ctx->control && ctx->ev_lost);
	pthread_mutex_unlock(&ctx->lock);
	return any;
}

/**
 * hfd_ctx_take_events() - read and clear the GET_EVENTS mask at once
 * @ctx: context
 * @mask: receives the event bits since the last call
 * @pending: receives the number of events queued for read()
 */
void hfd_ctx_take_events(struct hfd_ctx *ctx, uint64_t *mask, uint64_t *pending)
{
	pthread_mutex_lock(&ctx->lock);
	*mask = ctx->events_mask;
	*pending = ctx->ev_count;
	ctx->events_mask = 0;
	pthread_mutex_unlock(&ctx->lock);
}

/**
 * hfd_ctx_clear_events() - the caller received these GET_EVENTS bits:
 * clear them (bits raised since the peek stay)
 * @ctx: context
 * @mask: bits delivered
 */
void hfd_ctx_clear_events(struct hfd_ctx *ctx, uint64_t mask)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->events_mask &= ~mask;
	pthread_mutex_unlock(&ctx->lock);
}

/**
 * hfd_device_clients_text() - the clients attribute: one
 * "PID DRAM_BYTES COMM" line per compute context
 * @dev: device
 * @text: receives a malloc'ed buffer
 * @len: receives its length
 *
 * Return: 0 or -ENOMEM.
 */
int hfd_device_clients_text(struct hfd_device *dev, char **text, size_t *len)
{
	size_t cap = 64, used = 0;
	struct hfd_ctx *ctx;
	char *buf, *nb;
	int ret = 0;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	pthread_mutex_lock(&dev->ctx_lock);
	for (ctx = dev->ctx_list; ctx; ctx = ctx->next) {
		char line[64];
		int n;

		if (ctx->control)
			continue;
		n = snprintf(line, sizeof(line), "%d %llu %s\n", (int)ctx->pid,
			     (unsigned long long)__atomic_load_n(
				     &ctx->dram_bytes, __ATOMIC_RELAXED),
			     ctx->comm);
		if (used + (size_t)n + 1 > cap) {
			cap = (used + (size_t)n + 1) * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		memcpy(buf + used, line, (size_t)n + 1);
		used += (size_t)n;
	}
	pthread_mutex_unlock(&dev->ctx_lock);
	if (ret) {
		free(buf);
		return ret;
	}
	*text = buf;
	*len = used;
	return 0;
}

/**
 * hfd_device_open_stats() - the OPEN_STATS answer of a device
 * @dev: device
 * @out: answer
 */
void hfd_device_open_stats(struct hfd_device *dev,
			   struct hpu_info_open_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&dev->ctx_lock);
	out->open_counter = dev->open_counter;
	out->last_open_period_ms = dev->last_open_period_ms;
	out->num_compute_ctx = dev->num_compute;
	out->num_control_ctx = dev->num_control;
	out->is_compute_ctx_active = dev->num_compute > 0;
	out->compute_ctx_in_release = dev->in_release > 0;
	pthread_mutex_unlock(&dev->ctx_lock);
}

/**
 * hfd_device_release_all() - tear down every context still open
 * @dev: device
 *
 * At shutdown the kernel may not have delivered the RELEASE of files
 * closed just before the unmount; their contexts go here. No request may
 * be running, but a ring's consumer may be taking an entry (a call,
 * hfd_ctx_call_try_begin()): its end tears the context down, which is
 * waited for, at most HFD_STOP_BOUND_MS per context (a consumer stuck in
 * client memory nobody resolves): then the process exits without it, as
 * the stop guard does for stuck workers (main.c).
 */
void hfd_device_release_all(struct hfd_device *dev)
{
	struct hfd_ctx *ctx, *c;
	uint64_t end;
	uint32_t old;

	for (;;) {
		pthread_mutex_lock(&dev->ctx_lock);
		ctx = dev->ctx_list;
		pthread_mutex_unlock(&dev->ctx_lock);
		if (!ctx)
			break;
		old = __atomic_fetch_or(&ctx->calls, HFD_CTX_RELEASED,
					__ATOMIC_ACQ_REL);
		if (!(old & (HFD_CTX_CALLS | HFD_CTX_RELEASED))) {
			ctx_release_now(ctx);
			continue;
		}
		/* a call (or a teardown under way) unlinks it */
		end = hfd_now_ns() + HFD_STOP_BOUND_MS * 1000000ULL;
		for (;;) {
			pthread_mutex_lock(&dev->ctx_lock);
			for (c = dev->ctx_list; c && c != ctx; c = c->next)
				;
			pthread_mutex_unlock(&dev->ctx_lock);
			if (!c)
				break;
			if (hfd_now_ns() > end) {
				hfd_err("hpu%u: pid %d: a ring's consumer is still stuck in client memory after %d ms: exiting without it",
					dev->index, (int)ctx->pid,
					HFD_STOP_BOUND_MS);
				_exit(EXIT_SUCCESS);
			}
			usleep(1000);
		}
	}
}
