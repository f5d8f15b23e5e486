// SPDX-License-Identifier: MIT
/*
 * reset.c - device reset (docs/fusedev.md, "Device reset"), with the
 * habanalabs driver's semantics:
 *
 *  - hard: every context is told (HPU_EVENT_DEVICE_RESET, control
 *    contexts too), every in-flight CS of every context ends ABORTED
 *    (blocked waits answer -EIO), every compute context is killed: it
 *    answers -EIO to everything but INFO from then on, its ring breaks
 *    (error = EIO) and its consumer stops, and what it holds on the
 *    device (address space, memory, CBs, sync objects, NIC state) is
 *    torn down. Its user closes it and opens the device again
 *    ("re-acquire"). Injected link faults are cleared. hard_reset_cnt
 *    counts it; the device is operational again for new opens.
 *  - compute: the event, every in-flight CS ends ABORTED; contexts and
 *    what they hold stay. soft_reset_cnt counts it.
 *
 * Triggers: HPU_IOCTL_DEBUG RESET (debug.c, root or the device's owner,
 * on a compute or control node) and, with --reset-on-lockup, a CS
 * timeout (cs_done.c).
 *
 * Locks: the device's status moves to IN_RESET under ctx_lock, which
 * also collects the contexts (a compute open meanwhile gets -EAGAIN);
 * the model's reset runs with reset_lock held for writing, so every
 * MEMORY/CB/CS/NIC call into the model either came before it (and its
 * work is aborted) or comes after and finds its context dead.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "hpu_fused.h"

static const char *kind_name(uint32_t kind)
{
	return kind == HPU_RESET_HARD ? "hard" : "compute";
}

/*
 * Set IN_RESET and take a reference on every context (compute ones are
 * killed for a hard reset). Return: the array (*@n entries), or NULL
 * with *@n the -errno (-EBUSY a reset is under way, -ENODEV removed).
 */
static struct hfd_ctx **collect(struct hfd_device *dev, bool hard, int *n,
				uint32_t *old)
{
	struct hfd_ctx **list, *ctx;
	unsigned int cap, i = 0;

	pthread_mutex_lock(&dev->ctx_lock);
	if (dev->status == HPU_DEVICE_STATUS_IN_RESET ||
	    dev->status == HPU_DEVICE_STATUS_REMOVED) {
		*n = dev->status == HPU_DEVICE_STATUS_REMOVED ? -ENODEV :
								-EBUSY;
		pthread_mutex_unlock(&dev->ctx_lock);
		return NULL;
	}
	cap = dev->num_compute + dev->num_control + 1;
	list = calloc(cap, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&dev->ctx_lock);
		*n = -ENOMEM;
		return NULL;
	}
	*old = dev->status;
	__atomic_store_n(&dev->status, HPU_DEVICE_STATUS_IN_RESET,
			 __ATOMIC_RELEASE);
	/* a context leaves the list before it stops being counted */
	for (ctx = dev->ctx_list; ctx && i < cap; ctx = ctx->next) {
		hfd_ctx_get(ctx);
		if (hard && !ctx->control)
			hfd_ctx_kill(ctx);
		list[i++] = ctx;
	}
	pthread_mutex_unlock(&dev->ctx_lock);
	*n = (int)i;
	return list;
}

static uint64_t now_ms(void)
{
	return hfd_now_ns() / 1000000ULL;
}

/*
 * Wait until every killed context but @self gave back what it held, at
 * most until every call not stuck in client memory has ended. Return:
 * contexts still busy.
 */
static int wait_reaped(struct hfd_ctx **list, int n, struct hfd_ctx *self)
{
	struct timespec ts = { 0, 1000000L };
	uint64_t end =
		now_ms() + hfd_uaccess_timeout_ms() + HFD_RESET_WAIT_MARGIN_MS;
	int i, busy;

	for (;;) {
		busy = 0;
		for (i = 0; i < n; i++)
			if (!list[i]->control && list[i] != self &&
			    !__atomic_load_n(&list[i]->torn_down,
					     __ATOMIC_ACQUIRE))
				busy++;
		if (!busy || now_ms() > end)
			return busy;
		nanosleep(&ts, NULL);
	}
}

/**
 * hfd_device_reset() - reset a device (see the file comment)
 * @dev: device (a context of it is open: the caller's, or one it holds a
 *	call on, so the device is not destroyed meanwhile)
 * @kind: HPU_RESET_HARD or HPU_RESET_COMPUTE
 * @self: a context the caller holds a call on (its teardown happens at
 *	that call's end: not waited for), or NULL
 * @wait: a hard reset waits until the killed contexts gave everything
 *	back, at most the uaccess timeout plus HFD_RESET_WAIT_MARGIN_MS; a
 *	context busy longer (a worker stuck in client memory) gives it
 *	back when its call ends
 * @why: for the log
 *
 * Return: 0; -EINVAL an unknown @kind; -EBUSY a reset of the device is
 * under way; -ENODEV the device was removed; -ENOMEM; -EOPNOTSUPP a
 * model without submissions; the model's -errno (logged; the contexts
 * were told and killed all the same).
 */
int hfd_device_reset(struct hfd_device *dev, uint32_t kind,
		     struct hfd_ctx *self, bool wait, const char *why)
{
	bool hard = kind == HPU_RESET_HARD;
	uint32_t before, after;
	struct hfd_ctx **list;
	int i, n, ret, busy = 0;

	if (kind != HPU_RESET_HARD && kind != HPU_RESET_COMPUTE)
		return -EINVAL;
	if (!hfd_device_has_cs(dev))
		return -EOPNOTSUPP;
	list = collect(dev, hard, &n, &before);
	if (!list)
		return n;
	hfd_device_status_changed(dev, before, HPU_DEVICE_STATUS_IN_RESET);
	hfd_warn("hpu%u: %s reset (%s): %d open contexts", dev->index,
		 kind_name(kind), why, n);
	/* told before anything ends: a woken waiter already sees it */
	for (i = 0; i < n; i++) {
		if (hard && !list[i]->control)
			hfd_ring_reset_ctx(list[i]);
		hfd_ctx_queue_event(list[i], HPU_EVENT_DEVICE_RESET, ~0U, 0, 0,
				    kind);
	}
	if (hard && hfd_device_has_nic(dev))
		hfd_device_clear_faults(dev);
	if (hard) {
		__atomic_store_n(&dev->hang_armed, false, __ATOMIC_RELEASE);
		__atomic_store_n(&dev->pf_armed, 0, __ATOMIC_RELEASE);
	}

	pthread_rwlock_wrlock(&dev->reset_lock);
	ret = dev->model->ops->reset(dev->fw, hard);
	pthread_rwlock_unlock(&dev->reset_lock);
	if (ret)
		hfd_err("hpu%u: the model's %s reset failed: %d", dev->index,
			kind_name(kind), ret);

	if (hard) {
		for (i = 0; i < n; i++)
			if (!list[i]->control)
				hfd_ctx_reap(list[i]);
		if (wait)
			busy = wait_reaped(list, n, self);
		if (busy)
			hfd_warn(
				"hpu%u: %d contexts still in calls after the reset: their memory goes when the calls end",
				dev->index, busy);
	}

	pthread_mutex_lock(&dev->ctx_lock);
	if (hard)
		dev->hard_reset_cnt++;
	else
		dev->soft_reset_cnt++;
	/* only a hard reset repairs a device that failed */
	after = hard || (before != HPU_DEVICE_STATUS_NEEDS_RESET &&
			 before != HPU_DEVICE_STATUS_MALFUNCTION) ?
			HPU_DEVICE_STATUS_OPERATIONAL :
			before;
	if (dev->status == HPU_DEVICE_STATUS_IN_RESET)
		__atomic_store_n(&dev->status, after, __ATOMIC_RELEASE);
	else
		after = dev->status;
	pthread_mutex_unlock(&dev->ctx_lock);
	hfd_device_status_changed(dev, HPU_DEVICE_STATUS_IN_RESET, after);
	hfd_info("hpu%u: %s reset done", dev->index, kind_name(kind));

	for (i = 0; i < n; i++)
		hfd_ctx_put(list[i]);
	free(list);
	return ret;
}

/**
 * struct lockup_work - a hard reset a CS timeout or a fatal error asked
 * for
 * @timer: runs it on the timer thread (never inside the timeout itself,
 *	which holds the context's as_lock)
 * @ctx: the context of the CS or of the call that saw the error (a
 *	reference is held)
 * @pinned: a call on @ctx was begun when the work was queued (a fatal
 *	error): the device lives until the work ends it, even when the
 *	file is closed meanwhile
 * @why: for the log
 */
struct lockup_work {
	struct hfd_timer timer;
	struct hfd_ctx *ctx;
	bool pinned;
	const char *why;
};

static void lockup_work_fn(struct hfd_timer *t)
{
	struct lockup_work *w =
		(struct lockup_work *)((char *)t -
				       offsetof(struct lockup_work, timer));
	struct hfd_ctx *ctx = w->ctx;

	/*
	 * As a call on the context: the device lives while it is open. A
	 * context closed meanwhile, or killed by another reset, needs none.
	 * Not waited for: the timer thread serves every deadline.
	 */
	if (w->pinned || hfd_ctx_call_try_begin(ctx)) {
		hfd_device_reset(ctx->dev, HPU_RESET_HARD, ctx, false, w->why);
		hfd_ctx_call_end(ctx);
	}
	hfd_ctx_put(ctx);
	free(w);
}

/**
 * hfd_device_reset_on_lockup() - a CS of @ctx timed out: with
 * --reset-on-lockup, hard-reset its device (soon, on the timer thread)
 * @ctx: the context (any lock may be held)
 */
void hfd_device_reset_on_lockup(struct hfd_ctx *ctx)
{
	struct lockup_work *w;

	if (!__atomic_load_n(&ctx->dev->reset_on_lockup, __ATOMIC_RELAXED))
		return;
	w = calloc(1, sizeof(*w));
	if (!w) {
		hfd_err("hpu%u: out of memory: no reset after a CS timeout",
			ctx->dev->index);
		return;
	}
	hfd_ctx_get(ctx);
	w->ctx = ctx;
	w->why = "CS timeout, --reset-on-lockup";
	w->timer.fn = lockup_work_fn;
	hfd_timer_arm(&w->timer, 0);
}

/**
 * hfd_device_reset_later() - a fatal error with --reset-on-fatal:
 * hard-reset the device of @ctx soon, on the timer thread
 * @ctx: a context with a call in progress (any lock may be held); the
 *	work begins a call of its own on it at once, so the device is not
 *	destroyed before the reset ran, even when the file is closed
 * @why: for the log (a string constant)
 */
void hfd_device_reset_later(struct hfd_ctx *ctx, const char *why)
{
	struct lockup_work *w;

	w = calloc(1, sizeof(*w));
	if (!w || !hfd_ctx_call_try_begin(ctx)) {
		hfd_warn(
			"hpu%u: %s: no automatic reset (%s): the device waits for a reset",
			ctx->dev->index, why,
			w ? "the context is closing" : "out of memory");
		free(w);
		return;
	}
	hfd_ctx_get(ctx);
	w->ctx = ctx;
	w->pinned = true;
	w->why = why;
	w->timer.fn = lockup_work_fn;
	hfd_timer_arm(&w->timer, 0);
}

/**
 * hfd_driver_set_reset_on_lockup() - --reset-on-lockup for every device
 * @drv: driver
 * @on: a CS timeout escalates to a hard reset of its device
 */
void hfd_driver_set_reset_on_lockup(struct hfd_driver *drv, bool on)
{
	unsigned int i;

	drv->reset_on_lockup = on;
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (hfd_device_present(&drv->devs[i]))
			__atomic_store_n(&drv->devs[i].reset_on_lockup, on,
					 __ATOMIC_RELAXED);
}
