// SPDX-License-Identifier: MIT
/*
 * hl_irq.c - user interrupts of the habanalabs personality
 * (docs/habanalabs.md, "User interrupts"): WAIT_CS with
 * HL_WAIT_CS_FLAGS_INTERRUPT waits until the 64-bit value at a kernel
 * CQ counter (INTERRUPT_KERNEL_CQ: a CB handle and an index) or at a
 * user address reaches a target, rechecked at every interrupt of its id.
 *
 * The interrupts come from the sync manager's CQs (hl_sync.c): a monitor
 * with CQ_EN counts on an hpu SOB of the CQ. When a CS of the context
 * ends, hfd_hl_irq_cs_ended() reads the SOBs of the bound CQs; for each
 * that moved it writes the counter (the SOB's value, 64-bit little
 * endian) at the CQ's device VA, a mapped kernel CB, and raises the
 * CQ's interrupt (LBW_DATA): the waiters of that id (and of "any CQ")
 * look again. So an interrupt comes when the CS during which the
 * monitor fired ends, not at the fire itself.
 *
 * A waiter that must wait keeps its request (HFD_IOCTL_DEFERRED) and
 * costs no thread: it is answered by an interrupt (COMPLETED), by the
 * timer thread at its deadline (BUSY, answer 0, as the real driver), by
 * a FUSE interrupt (EINTR) or by the context's release (ABORTED, EIO).
 * Waiters count against the context's `waiters` limit, as WAIT_CS's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_cs.h"
#include "hpu_fused_uaccess.h"

/* Interrupt ids of the mask (bits 20..31 of the flags) */
#define IRQ_ID(flags) ((flags) >> 20)
#define IRQ_ANY_CQ    0xFFFU
#define IRQ_ANY_DEC   0xFFEU

/**
 * struct hl_irq_waiter - an interrupt wait not answered yet
 * @id: unique (HFD_HL_IRQ_WAITER_ID set): the FUSE interrupt finds it by it
 * @ctx: context (a reference is held)
 * @pid: the caller (user memory of an address wait is its)
 * @irq: interrupt id, or IRQ_ANY_CQ
 * @kernel_cq: the value is in a CB (@handle, @off), else at @addr
 * @handle: the CB's handle
 * @off: byte offset of the value in it
 * @addr: user address of the value
 * @target: the value awaited (>=)
 * @timer: its deadline
 * @defer: how to answer
 * @linked: on the list (whoever unlinks it answers and frees it)
 * @next: next waiter of the daemon
 * @prev: previous waiter of the daemon
 */
struct hl_irq_waiter {
	uint64_t id;
	struct hfd_ctx *ctx;
	pid_t pid;
	uint32_t irq;
	bool kernel_cq;
	uint64_t handle;
	uint64_t off;
	uint64_t addr;
	uint64_t target;
	struct hfd_timer timer;
	struct hfd_ioctl_defer defer;
	bool linked;
	struct hl_irq_waiter *next;
	struct hl_irq_waiter *prev;
};

/*
 * irq_lock protects the waiter list, every waiter's links and @linked.
 * Taken after a context's as_lock and hfd_hl_sync.irq_lock are dropped.
 */
static pthread_mutex_t irq_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hl_irq_waiter *waiters;
static uint64_t next_id = 1;

static void unlink_locked(struct hl_irq_waiter *w)
{
	HPU_ASSERT_HELD(&irq_lock);

	if (w->prev)
		w->prev->next = w->next;
	else
		waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->next = w->prev = NULL;
	w->linked = false;
}

/* The waiter is unlinked and owned by the caller: answer, free */
static void answer(struct hl_irq_waiter *w, int err, uint32_t status,
		   bool from_timer)
{
	union hl_wait_cs_args a;

	if (!from_timer)
		hfd_timer_cancel_sync(&w->timer);
	memset(&a, 0, sizeof(a));
	a.out.status = status;
	hfd_ctx_uncharge(w->ctx, HPU_CTX_LIMIT_WAITERS, 1);
	w->defer.reply(w->defer.token, err, &a, sizeof(a));
	hfd_ctx_put(w->ctx);
	free(w);
}

static void timeout_fn(struct hfd_timer *t)
{
	struct hl_irq_waiter *w = container_of(t, struct hl_irq_waiter, timer);

	pthread_mutex_lock(&irq_lock);
	if (!w->linked) {
		/* claimed by an interrupt: it frees w after we return */
		pthread_mutex_unlock(&irq_lock);
		return;
	}
	unlink_locked(w);
	pthread_mutex_unlock(&irq_lock);
	answer(w, 0, HL_WAIT_CS_STATUS_BUSY, true);
}

/*
 * The value a waiter watches. A kernel CQ is read from the daemon's copy
 * of the CB, where the interrupt path writes the counter (and the
 * client's written-back pages land), never through the page cache: no
 * FUSE round trip, so no worker waits on the kernel and the model's
 * thread may read it. An address is read from the caller's memory
 * (guarded, bounded by the uaccess timeout).
 */
static int read_value(struct hfd_ctx *ctx, pid_t pid, bool kernel_cq,
		      uint64_t handle, uint64_t off, uint64_t addr, uint64_t *v)
{
	if (kernel_cq)
		return hfd_hl_cb_peek(ctx, handle, off, 8, v);
	return hfd_copy_from_user(pid, v, addr, 8);
}

/* Check the flags and the id of an interrupt wait: 0 or -EINVAL */
static int check_args(const struct hl_wait_cs_in *in, uint32_t *irq)
{
	uint32_t id = IRQ_ID(in->flags);

	if (in->flags &
	    (HL_WAIT_CS_FLAGS_MULTI_CS | HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT |
	     HL_WAIT_CS_FLAGS_UNREGISTER_INTERRUPT))
		return -EINVAL; /* timestamp registration: out of scope */
	if (id != IRQ_ANY_CQ && id - HL_USER_IRQ_FIRST >= HL_USER_IRQ_NUM)
		return -EINVAL; /* IRQ_ANY_DEC too: no decoder interrupts */
	*irq = id;
	return 0;
}

/**
 * hfd_hl_irq_wait() - WAIT_CS with HL_WAIT_CS_FLAGS_INTERRUPT
 * @call: context, requesting thread, and how to answer later
 * @args: the request, answered in place
 * @s: the context's sync state (its CQs raise the interrupts)
 *
 * Return: 0 with status COMPLETED (the value is >= the target) or BUSY
 * (not within `interrupt_timeout_us`; 0 polls); -EINVAL bad flags, an id
 * outside the user interrupts (not "any CQ"), a CB handle or index
 * outside a live CB; -EFAULT an address that cannot be read; -EAGAIN
 * the context's waiters limit; -EINTR; -ENOMEM; or HFD_IOCTL_DEFERRED.
 */
int hfd_hl_irq_wait(const struct hfd_ioctl_call *call,
		    union hl_wait_cs_args *args, struct hfd_hl_sync *s)
{
	struct hl_wait_cs_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	struct hl_irq_waiter *w;
	uint64_t v, deadline, timeout_us;
	uint32_t irq;
	int ret;

	ret = check_args(&in, &irq);
	if (ret)
		return ret;
	if (!s)
		return -ENOMEM;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->pid = call->pid;
	w->irq = irq;
	w->kernel_cq = in.flags & HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ;
	w->target = in.timeout_us; /* the real header's target */
	memcpy(&timeout_us, &in.seq_arr_len, sizeof(timeout_us));
	if (w->kernel_cq) {
		if (in.cq_counters_offset > UINT32_MAX / 8) {
			ret = -EINVAL;
			goto err_free;
		}
		w->handle = in.seq; /* cq_counters_handle */
		w->off = in.cq_counters_offset * 8;
	} else {
		w->addr = in.seq; /* addr */
	}
	ret = read_value(ctx, w->pid, w->kernel_cq, w->handle, w->off, w->addr,
			 &v);
	if (ret)
		goto err_free;
	memset(args, 0, sizeof(*args));
	if (v >= w->target) {
		args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
		goto err_free; /* answered, nothing kept */
	}
	args->out.status = HL_WAIT_CS_STATUS_BUSY;
	if (!timeout_us || !call->defer)
		goto err_free;

	pthread_mutex_lock(&irq_lock);
	w->id = HFD_HL_IRQ_WAITER_ID | next_id++;
	pthread_mutex_unlock(&irq_lock);
	/* before the waiter can be found: an interrupt now finds nothing */
	call->defer->on_interrupt(call->defer->token, w->id);
	if (call->defer->interrupted(call->defer->token)) {
		ret = -EINTR;
		goto err_free;
	}
	/* a blocked wait holds memory and a timer: bounded per context */
	ret = hfd_ctx_charge(ctx, HPU_CTX_LIMIT_WAITERS, 1);
	if (ret)
		goto err_free;
	hfd_ctx_get(ctx);
	w->ctx = ctx;
	w->defer = *call->defer;
	w->timer.fn = timeout_fn;
	deadline = timeout_us > (UINT64_MAX - hfd_now_ns()) / 1000 ?
			   UINT64_MAX - 1 :
			   hfd_now_ns() + timeout_us * 1000;

	pthread_mutex_lock(&irq_lock);
	w->linked = true;
	w->next = waiters;
	if (waiters)
		waiters->prev = w;
	waiters = w;
	hfd_timer_arm(&w->timer, deadline);
	/*
	 * An interrupt between the first read and the link found nothing:
	 * look once more now that it is linked
	 */
	if (read_value(ctx, w->pid, w->kernel_cq, w->handle, w->off, w->addr,
		       &v) ||
	    v < w->target) {
		pthread_mutex_unlock(&irq_lock);
		return HFD_IOCTL_DEFERRED;
	}
	unlink_locked(w);
	pthread_mutex_unlock(&irq_lock);
	answer(w, 0, HL_WAIT_CS_STATUS_COMPLETED, false);
	return HFD_IOCTL_DEFERRED;

err_free:
	free(w);
	return ret;
}

/* The interrupts a CS end raised: ids (bit per id below HL_USER_IRQ_NUM) */
struct raised {
	uint64_t bits[HL_USER_IRQ_NUM / 64];
	bool any;
};

/* Write the counters of the CQs that moved, note their interrupts */
static void update_cqs(struct hfd_ctx *ctx, struct hfd_hl_sync *s,
		       struct raised *r)
{
	struct {
		uint64_t va;
		uint64_t value;
	} moved[HL_SYNC_NUM_CQS];
	unsigned int n = 0, i;
	uint64_t bound;
	uint32_t c, v, id;

	pthread_rwlock_rdlock(&ctx->as_lock);
	if (!ctx->as) {
		pthread_rwlock_unlock(&ctx->as_lock);
		return;
	}
	pthread_mutex_lock(&s->irq_lock);
	bound = s->cq_bound;
	for (c = 0; c < HL_SYNC_NUM_CQS; c++) {
		struct hfd_hl_cq *cq = &s->cqs[c];

		if (!(bound & (1ULL << c)) ||
		    ctx->dev->model->ops->sob_read(ctx->as, cq->sob, &v) ||
		    v == cq->seen)
			continue;
		cq->seen = v;
		moved[n].va = cq->base;
		moved[n].value = v; /* little endian hosts only (x86, arm64) */
		n++;
		id = cq->lbw_data - HL_USER_IRQ_FIRST;
		if (id < HL_USER_IRQ_NUM)
			r->bits[id / 64] |= 1ULL << (id % 64);
		r->any = true;
	}
	pthread_mutex_unlock(&s->irq_lock);
	pthread_rwlock_unlock(&ctx->as_lock);
	for (i = 0; i < n; i++)
		hfd_hl_cb_store(ctx, moved[i].va, &moved[i].value, 8);
}

static bool raised_for(const struct raised *r, uint32_t irq)
{
	uint32_t id = irq - HL_USER_IRQ_FIRST;

	if (irq == IRQ_ANY_CQ)
		return r->any;
	return id < HL_USER_IRQ_NUM && (r->bits[id / 64] & (1ULL << (id % 64)));
}

/**
 * hfd_hl_irq_cs_ended() - a CS of @ctx ended: write the counters of its
 * CQs that moved, raise their interrupts, answer the waits now over
 * @ctx: context (any kind: one without habanalabs CQs returns at once)
 *
 * Called from the CS completion path (the model's thread).
 */
void hfd_hl_irq_cs_ended(struct hfd_ctx *ctx)
{
	struct hfd_hl_sync *s =
		__atomic_load_n(&ctx->hl_sync, __ATOMIC_ACQUIRE);
	struct hl_irq_waiter *w, *nw, *done = NULL;
	struct raised r;
	uint64_t v;

	if (!s || !__atomic_load_n(&s->cq_bound, __ATOMIC_RELAXED))
		return;
	memset(&r, 0, sizeof(r));
	update_cqs(ctx, s, &r);
	if (!r.any)
		return;
	pthread_mutex_lock(&irq_lock);
	for (w = waiters; w; w = nw) {
		nw = w->next;
		if (w->ctx != ctx || !raised_for(&r, w->irq))
			continue;
		if (read_value(ctx, w->pid, w->kernel_cq, w->handle, w->off,
			       w->addr, &v) ||
		    v < w->target)
			continue;
		unlink_locked(w);
		w->next = done;
		done = w;
	}
	pthread_mutex_unlock(&irq_lock);
	while ((w = done)) {
		done = w->next;
		answer(w, 0, HL_WAIT_CS_STATUS_COMPLETED, false);
	}
}

/**
 * hfd_hl_irq_interrupt() - the caller of waiter @id was interrupted (a
 * signal): answer EINTR
 * @id: waiter id given to hfd_ioctl_defer.on_interrupt
 */
void hfd_hl_irq_interrupt(uint64_t id)
{
	struct hl_irq_waiter *w;

	pthread_mutex_lock(&irq_lock);
	for (w = waiters; w; w = w->next)
		if (w->id == id)
			break;
	if (w)
		unlink_locked(w);
	pthread_mutex_unlock(&irq_lock);
	if (w)
		answer(w, -EINTR, HL_WAIT_CS_STATUS_BUSY, false);
}

/**
 * hfd_hl_irq_ctx_fini() - answer every interrupt wait of a context being
 * torn down (ABORTED, EIO)
 * @ctx: context
 */
void hfd_hl_irq_ctx_fini(struct hfd_ctx *ctx)
{
	struct hl_irq_waiter *w;

	for (;;) {
		pthread_mutex_lock(&irq_lock);
		for (w = waiters; w; w = w->next)
			if (w->ctx == ctx)
				break;
		if (w)
			unlink_locked(w);
		pthread_mutex_unlock(&irq_lock);
		if (!w)
			break;
		answer(w, -EIO, HL_WAIT_CS_STATUS_ABORTED, false);
	}
}
