// SPDX-License-Identifier: MIT
/*
 * dev_events.c - device-wide events (docs/fusedev.md, "Device events"):
 * what a monitor holding a control node (hpu_controlN) reads and polls,
 * as the habanalabs driver's notifier tells a control device's eventfd.
 *
 *  - fan-out: an event of the device goes to its control contexts (and,
 *    for the kinds compute contexts always had, to those too), each
 *    context's own bounded queue (context.c: the oldest is dropped and
 *    counted, an EVENTS_LOST record tells the reader);
 *  - status changes (STATUS_CHANGE: IN_RESET, OPERATIONAL, NEEDS_RESET,
 *    MALFUNCTION, REMOVED);
 *  - escalation: an uncorrectable ECC error (and with --fatal-page-faults
 *    an MMU page fault) leaves the device NEEDS_RESET, a lost heartbeat
 *    MALFUNCTION: CSs are refused (-EBUSY) until a hard reset, and with
 *    --reset-on-fatal the daemon hard-resets the device itself;
 *  - the clock: the core clock is sampled every HFD_CLK_SAMPLE_MS while
 *    a control context is open, and a change is CLOCK_CHANGE.
 *
 * Queueing an event never blocks on a client: it takes the context's
 * lock for a copy into a fixed ring and wakes a poller (FUSE notify).
 */
#include <errno.h>
#include <stdlib.h>

#include "hpu_fused.h"
#include "hpu_names.h"

/**
 * hfd_device_raise() - queue an event to the contexts of a device
 * @dev: device (ctx_lock not held)
 * @to: HFD_EV_CONTROL (control contexts) or HFD_EV_ALL (every context)
 * @type: HPU_EVENT_*
 * @engine: engine concerned or ~0
 * @seq: CS sequence number or 0
 * @addr: event-specific
 * @data: event-specific
 */
void hfd_device_raise(struct hfd_device *dev, unsigned int to, uint32_t type,
		      uint32_t engine, uint64_t seq, uint64_t addr,
		      uint64_t data)
{
	struct hfd_ctx **list;
	size_t n, i;

	if (hfd_device_contexts(dev, &list, &n)) {
		hfd_warn(
			"hpu%u: out of memory: event %u not given to the contexts",
			dev->index, type);
		return;
	}
	for (i = 0; i < n; i++)
		if (to == HFD_EV_ALL || list[i]->control)
			hfd_ctx_queue_event(list[i], type, engine, seq, addr,
					    data);
	hfd_contexts_put(list, n);
}

/**
 * hfd_device_status_changed() - tell the control contexts of a status
 * change made under ctx_lock (nothing when @old equals @now)
 * @dev: device (ctx_lock not held)
 * @old: HPU_DEVICE_STATUS_* before
 * @now: HPU_DEVICE_STATUS_* after
 */
void hfd_device_status_changed(struct hfd_device *dev, uint32_t old,
			       uint32_t now)
{
	if (old != now)
		hfd_device_raise(dev, HFD_EV_CONTROL, HPU_EVENT_STATUS_CHANGE,
				 ~0U, 0, old, now);
}

/**
 * hfd_device_failed() - whether the device refuses new work until a
 * hard reset (NEEDS_RESET after a fatal error, MALFUNCTION)
 * @dev: device (no lock needed: a snapshot)
 */
bool hfd_device_failed(struct hfd_device *dev)
{
	uint32_t s = __atomic_load_n(&dev->status, __ATOMIC_ACQUIRE);

	return s == HPU_DEVICE_STATUS_NEEDS_RESET ||
	       s == HPU_DEVICE_STATUS_MALFUNCTION;
}

/**
 * hfd_device_fatal() - a fatal error: the device needs a hard reset
 * @dev: device (ctx_lock not held)
 * @status: HPU_DEVICE_STATUS_NEEDS_RESET (uncorrectable ECC, page fault)
 *	or HPU_DEVICE_STATUS_MALFUNCTION (lost heartbeat)
 * @ctx: a context a call is in progress on (the device lives while it
 *	is), for the automatic reset; NULL: none
 * @why: for the log
 *
 * An operational device takes @status (MALFUNCTION also replaces
 * NEEDS_RESET); a device in reset or removed keeps its own. The control
 * contexts get STATUS_CHANGE. With --reset-on-fatal a hard reset
 * follows on the timer thread.
 */
void hfd_device_fatal(struct hfd_device *dev, uint32_t status,
		      struct hfd_ctx *ctx, const char *why)
{
	uint32_t old;
	bool set;

	pthread_mutex_lock(&dev->ctx_lock);
	old = dev->status;
	set = old == HPU_DEVICE_STATUS_OPERATIONAL ||
	      (old == HPU_DEVICE_STATUS_NEEDS_RESET &&
	       status == HPU_DEVICE_STATUS_MALFUNCTION);
	if (set)
		__atomic_store_n(&dev->status, status, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dev->ctx_lock);
	if (!set)
		return;
	hfd_warn("hpu%u: %s: the device is %s until a hard reset", dev->index,
		 why, hpu_status_name(status));
	hfd_device_status_changed(dev, old, status);
	if (__atomic_load_n(&dev->reset_on_fatal, __ATOMIC_RELAXED)) {
		if (ctx)
			hfd_device_reset_later(ctx, why);
		else
			hfd_warn(
				"hpu%u: no context to reset the device from: it waits for a reset",
				dev->index);
	}
}

/**
 * hfd_device_lose_heartbeat() - the device stops answering the
 * firmware's heartbeat (DEBUG INJECT_FAULT HPU_FAULT_DEVICE_ERR): every
 * context gets HPU_EVENT_DEVICE_UNAVAILABLE (data MALFUNCTION) and the
 * device is MALFUNCTION until a hard reset
 * @dev: device
 * @ctx: the injecting context (a call in progress)
 *
 * Return: 0.
 */
int hfd_device_lose_heartbeat(struct hfd_device *dev, struct hfd_ctx *ctx)
{
	hfd_device_raise(dev, HFD_EV_ALL, HPU_EVENT_DEVICE_UNAVAILABLE, ~0U, 0,
			 0, HPU_DEVICE_STATUS_MALFUNCTION);
	hfd_device_fatal(dev, HPU_DEVICE_STATUS_MALFUNCTION, ctx,
			 "heartbeat lost");
	return 0;
}

/**
 * hfd_driver_set_fatal_policy() - --reset-on-fatal and
 * --fatal-page-faults for every device
 * @drv: driver
 * @reset: a fatal error hard-resets the device at once
 * @page_faults: an MMU page fault is a fatal error
 */
void hfd_driver_set_fatal_policy(struct hfd_driver *drv, bool reset,
				 bool page_faults)
{
	unsigned int i;

	drv->reset_on_fatal = reset;
	drv->fatal_page_faults = page_faults;
	for (i = 0; i < HFD_MAX_DEVICES; i++) {
		if (!hfd_device_present(&drv->devs[i]))
			continue;
		__atomic_store_n(&drv->devs[i].reset_on_fatal, reset,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&drv->devs[i].fatal_page_faults, page_faults,
				 __ATOMIC_RELAXED);
	}
}

/* ------------------------------------------------------------------ */
/* The clock sampler                                                   */
/* ------------------------------------------------------------------ */

/* protects clk_drv and clk_stopping */
static pthread_mutex_t clk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hfd_driver *clk_drv;
static bool clk_stopping;
static struct hfd_timer clk_timer;

static void clk_sample(struct hfd_device *dev)
{
	struct hpu_fw_telemetry t = { 0 };
	uint32_t old;
	bool watched;

	pthread_mutex_lock(&dev->ctx_lock);
	watched = dev->num_control > 0;
	pthread_mutex_unlock(&dev->ctx_lock);
	if (!watched) {
		dev->clk_seen = 0;
		return;
	}
	dev->model->ops->telemetry(dev->fw, &t);
	old = dev->clk_seen;
	dev->clk_seen = t.clk_cur_mhz;
	if (old && old != t.clk_cur_mhz)
		hfd_device_raise(dev, HFD_EV_CONTROL, HPU_EVENT_CLOCK_CHANGE,
				 ~0U, 0, old, t.clk_cur_mhz);
}

static void clk_timer_fn(struct hfd_timer *t)
{
	struct hfd_driver *drv;
	unsigned int i;

	pthread_mutex_lock(&clk_lock);
	drv = clk_stopping ? NULL : clk_drv;
	pthread_mutex_unlock(&clk_lock);
	if (!drv)
		return;
	/* a present device stays present (and its model alive) meanwhile */
	pthread_rwlock_rdlock(&drv->hotplug_lock);
	for (i = 0; i < HFD_MAX_DEVICES; i++)
		if (hfd_device_present(&drv->devs[i]))
			clk_sample(&drv->devs[i]);
	pthread_rwlock_unlock(&drv->hotplug_lock);
	pthread_mutex_lock(&clk_lock);
	if (!clk_stopping)
		hfd_timer_arm(t, hfd_now_ns() + HFD_CLK_SAMPLE_MS * 1000000ULL);
	pthread_mutex_unlock(&clk_lock);
}

/**
 * hfd_dev_events_start() - start the clock sampler (the timer thread
 * runs)
 * @drv: driver
 */
void hfd_dev_events_start(struct hfd_driver *drv)
{
	pthread_mutex_lock(&clk_lock);
	if (clk_drv) {
		/* one sampler per process: a second driver (tests) has none */
		pthread_mutex_unlock(&clk_lock);
		return;
	}
	clk_drv = drv;
	clk_stopping = false;
	clk_timer.fn = clk_timer_fn;
	hfd_timer_arm(&clk_timer,
		      hfd_now_ns() + HFD_CLK_SAMPLE_MS * 1000000ULL);
	pthread_mutex_unlock(&clk_lock);
}

/**
 * hfd_dev_events_stop() - stop the clock sampler (before the devices go)
 * @drv: driver
 */
void hfd_dev_events_stop(struct hfd_driver *drv)
{
	pthread_mutex_lock(&clk_lock);
	if (clk_drv != drv) {
		pthread_mutex_unlock(&clk_lock);
		return;
	}
	clk_stopping = true;
	pthread_mutex_unlock(&clk_lock);
	/* a run in progress re-arms nothing once it sees clk_stopping */
	hfd_timer_cancel_sync(&clk_timer);
	hfd_timer_cancel_sync(&clk_timer);
	pthread_mutex_lock(&clk_lock);
	clk_drv = NULL;
	pthread_mutex_unlock(&clk_lock);
}
