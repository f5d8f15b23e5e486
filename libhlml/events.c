// SPDX-License-Identifier: MIT
/*
 * events.c - event sets: hlml_event_set_create/free/wait and
 * hlml_device_register_events().
 *
 * With a driver that has HPU_CAP_CTRL_EVENTS, the control handle of each
 * device reads the device's events (libhpudrv hpu_ctrl_event_read()):
 * hlml_event_set_wait() sleeps in poll(2) on the control handles of the
 * devices it watches and turns each record into its HLML event. An
 * uncorrectable ECC error is HLML_EVENT_ECC_DERR and
 * HLML_EVENT_CRITICAL_ERR, a corrected one HLML_EVENT_ECC_SERR; a device
 * that needs a reset, malfunctions, is hard reset or is lost is
 * HLML_EVENT_CRITICAL_ERR; a new core clock is HLML_EVENT_CLOCK_RATE.
 * Records are read once per device and given to every set watching it.
 * When the driver's queue overflowed (EVENTS_LOST) the set compares the
 * device's state as below, so nothing is missed.
 *
 * Without the capability (an older daemon) a set watches the state each
 * event changes through the control node, every HLML_EVENT_POLL_MS while
 * hlml_event_set_wait() runs, and turns every change into the event.
 * Either way, events between two waits are kept (one event per kind and
 * device until it is taken).
 *
 * Sets live in a static table, their handles are addresses in a static
 * array that is never read (as device handles, core.c): a freed or stale
 * set is refused, never dereferenced.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "hlml_internal.h"

#define HLML_MAX_SETS	     64
#define HLML_SET_SERIALS     1024
#define HLML_SET_MAX_DEVS    HLML_MAX_DEVICES
#define HLML_EVENT_POLL_MS   5
/* a wait on the driver's events wakes at least this often all the same */
#define HLML_EVENT_SAFETY_MS 500
/* records read from a control handle at once */
#define HLML_EVENT_BATCH     32

#define HLML_EVENTS_KNOWN                                \
	(HLML_EVENT_ECC_DERR | HLML_EVENT_CRITICAL_ERR | \
	 HLML_EVENT_CLOCK_RATE | HLML_EVENT_DRAM_ERR | HLML_EVENT_ECC_SERR)

/**
 * struct hlml_watch - one device registered in a set
 * @pos: the device's HLML index
 * @mask: HLML_EVENT_* bits registered
 * @pending: bits seen and not yet taken
 * @clk: core clock at the last look
 * @status: HPU_DEVICE_STATUS_* at the last look
 * @hard_resets: hard resets at the last look
 * @ecc_c: corrected ECC errors at the last look
 * @ecc_u: uncorrectable ECC errors at the last look
 * @lost: the device stopped answering (reported once)
 * @queue: the device's events come from the driver's queue
 *	(HPU_CAP_CTRL_EVENTS), not from comparing its state
 * @resync: records were lost: compare the state at the next round
 */
struct hlml_watch {
	unsigned int pos;
	unsigned long long mask;
	unsigned long long pending;
	uint32_t clk;
	uint32_t status;
	uint32_t hard_resets;
	unsigned long long ecc_c;
	unsigned long long ecc_u;
	bool lost;
	bool queue;
	bool resync;
};

/**
 * struct hlml_set - an event set
 * @lock: protects the other members
 * @used: created and not freed
 * @serial: which creation this is (part of the handle)
 * @generation: init cycle it was created in
 * @nwatch: entries of @watch
 * @watch: registered devices
 */
struct hlml_set {
	pthread_mutex_t lock;
	bool used;
	unsigned int serial;
	uint64_t generation;
	unsigned int nwatch;
	struct hlml_watch watch[HLML_SET_MAX_DEVS];
};

static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int next_serial;
static struct hlml_set sets[HLML_MAX_SETS];
static char set_space[HLML_SET_SERIALS * HLML_MAX_SETS];
static pthread_once_t sets_once = PTHREAD_ONCE_INIT;

static void sets_init(void)
{
	unsigned int i;

	for (i = 0; i < HLML_MAX_SETS; i++)
		pthread_mutex_init(&sets[i].lock, NULL);
}

/* The set behind @handle, locked; NULL for no set in use */
static struct hlml_set *set_lock(hlml_event_set_t handle)
{
	const char *p = handle;
	struct hlml_set *s;
	size_t off;

	pthread_once(&sets_once, sets_init);
	if (!p || p < set_space || p >= set_space + sizeof(set_space))
		return NULL;
	off = (size_t)(p - set_space);
	s = &sets[off % HLML_MAX_SETS];
	pthread_mutex_lock(&s->lock);
	if (!s->used || s->serial % HLML_SET_SERIALS != off / HLML_MAX_SETS) {
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	return s;
}

HLML_EXPORT hlml_return_t hlml_event_set_create(hlml_event_set_t *set)
{
	struct hlml_set *s = NULL;
	hlml_return_t r;
	unsigned int i;

	pthread_once(&sets_once, sets_init);
	r = hlml_lock_inited();
	if (r)
		return r;
	if (!set) {
		hlml_unlock_inited();
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	pthread_mutex_lock(&sets_lock);
	for (i = 0; i < HLML_MAX_SETS; i++) {
		pthread_mutex_lock(&sets[i].lock);
		if (!sets[i].used) {
			s = &sets[i];
			break;
		}
		pthread_mutex_unlock(&sets[i].lock);
	}
	if (s) {
		s->used = true;
		s->serial = next_serial++;
		s->generation = hlml_generation_locked();
		s->nwatch = 0;
		*set = &set_space[(size_t)(s->serial % HLML_SET_SERIALS) *
					  HLML_MAX_SETS +
				  i];
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&sets_lock);
	hlml_unlock_inited();
	return s ? HLML_SUCCESS : HLML_ERROR_MEMORY;
}

HLML_EXPORT hlml_return_t hlml_event_set_free(hlml_event_set_t set)
{
	struct hlml_set *s = set_lock(set);

	if (!s)
		return HLML_ERROR_INVALID_ARGUMENT;
	s->used = false;
	s->nwatch = 0;
	pthread_mutex_unlock(&s->lock);
	return HLML_SUCCESS;
}

/*
 * Looks at @d again and adds to @w->pending what changed since the last
 * look (nothing on the first, @first). Table held.
 */
static void look(struct hlml_watch *w, const struct hlml_dev *d, bool first)
{
	struct hpu_info_device_status st;
	struct hpu_info_reset_count rc;
	struct hpu_info_clk_rate clk;
	unsigned long long c, u, seen = 0;
	int ret;

	if (w->lost || !d->ctl)
		return;
	ret = hpu_info_device_status(d->ctl, &st);
	if (!ret)
		ret = hpu_info_reset_count(d->ctl, &rc);
	if (!ret)
		ret = hpu_info_clk_rate(d->ctl, &clk);
	if (ret) {
		/* a device that no longer answers is the most critical error */
		w->lost = true;
		w->pending |= w->mask & HLML_EVENT_CRITICAL_ERR;
		return;
	}
	if (hlml_ecc_counts(d, &c, &u)) {
		c = w->ecc_c;
		u = w->ecc_u;
	}
	if (!first) {
		if ((st.status != w->status &&
		     st.status != HPU_DEVICE_STATUS_OPERATIONAL) ||
		    rc.hard_reset_cnt != w->hard_resets)
			seen |= HLML_EVENT_CRITICAL_ERR;
		if (clk.cur_clk_rate_mhz != w->clk)
			seen |= HLML_EVENT_CLOCK_RATE;
		if (u != w->ecc_u)
			seen |= HLML_EVENT_ECC_DERR | HLML_EVENT_CRITICAL_ERR;
		if (c != w->ecc_c)
			seen |= HLML_EVENT_ECC_SERR;
	}
	w->status = st.status;
	w->hard_resets = rc.hard_reset_cnt;
	w->clk = clk.cur_clk_rate_mhz;
	w->ecc_c = c;
	w->ecc_u = u;
	w->pending |= seen & w->mask;
}

/* Whether the driver behind @d queues device events for control handles */
static bool has_queue(const struct hlml_dev *d)
{
	struct hpu_info_driver_version v;

	return d->ctl && !hpu_info_driver_version(d->ctl, &v) &&
	       (v.capabilities & HPU_CAP_CTRL_EVENTS);
}

/* The HLML events of one record; updates the state @w compares */
static unsigned long long record_bits(struct hlml_watch *w,
				      const struct hpu_event *ev)
{
	switch (ev->type) {
	case HPU_EVENT_ECC_ERR:
		if (ev->data) {
			w->ecc_u++;
			return HLML_EVENT_ECC_DERR | HLML_EVENT_CRITICAL_ERR;
		}
		w->ecc_c++;
		return HLML_EVENT_ECC_SERR;
	case HPU_EVENT_DEVICE_RESET:
		if (ev->data != HPU_RESET_HARD)
			return 0;
		w->hard_resets++;
		return HLML_EVENT_CRITICAL_ERR;
	case HPU_EVENT_STATUS_CHANGE:
		w->status = (uint32_t)ev->data;
		if (ev->data == HPU_DEVICE_STATUS_REMOVED)
			w->lost = true;
		return ev->data == HPU_DEVICE_STATUS_OPERATIONAL ||
				       ev->data == HPU_DEVICE_STATUS_IN_RESET ?
			       0 :
			       HLML_EVENT_CRITICAL_ERR;
	case HPU_EVENT_DEVICE_UNAVAILABLE:
		if (ev->data == HPU_DEVICE_STATUS_REMOVED)
			w->lost = true;
		return HLML_EVENT_CRITICAL_ERR;
	case HPU_EVENT_CLOCK_CHANGE:
		w->clk = (uint32_t)ev->data;
		return HLML_EVENT_CLOCK_RATE;
	case HPU_EVENT_EVENTS_LOST:
		w->resync = true;
		return 0;
	default:
		return 0;
	}
}

/* Gives @ev (@n records; @gone: the device answers no more) to @w */
static void watch_take(struct hlml_watch *w, const struct hpu_event *ev, int n,
		       bool gone)
{
	unsigned long long seen = 0;
	int i;

	for (i = 0; i < n && !w->lost; i++)
		seen |= record_bits(w, &ev[i]);
	if (!w->lost && gone) {
		/* a device that no longer answers is the most critical error */
		w->lost = true;
		seen |= HLML_EVENT_CRITICAL_ERR;
	}
	w->pending |= seen & w->mask;
}

/* Gives the records to every set of this init cycle watching @pos */
static void dispatch(unsigned int pos, const struct hpu_event *ev, int n,
		     bool gone, uint64_t generation)
{
	struct hlml_set *s;
	unsigned int i, j;

	for (i = 0; i < HLML_MAX_SETS; i++) {
		s = &sets[i];
		pthread_mutex_lock(&s->lock);
		if (s->used && s->generation == generation)
			for (j = 0; j < s->nwatch; j++)
				if (s->watch[j].pos == pos && s->watch[j].queue)
					watch_take(&s->watch[j], ev, n, gone);
		pthread_mutex_unlock(&s->lock);
	}
}

/* serializes reading the control handles, so each record is given once */
static pthread_mutex_t feed_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Reads what the driver queued for @d and gives it to every set watching
 * it. Table held; no set lock held.
 */
static void feed(const struct hlml_dev *d)
{
	struct hpu_event ev[HLML_EVENT_BATCH];
	uint64_t gen = hlml_generation_locked();
	int n;

	pthread_mutex_lock(&feed_lock);
	do {
		n = hpu_ctrl_event_read(d->ctl, ev, HLML_EVENT_BATCH, 0);
		if (n > 0)
			dispatch(d->pos, ev, n, false, gen);
	} while (n == HLML_EVENT_BATCH);
	if (n < 0)
		dispatch(d->pos, NULL, 0, true, gen);
	pthread_mutex_unlock(&feed_lock);
}

HLML_EXPORT hlml_return_t hlml_device_register_events(
	hlml_device_t device, unsigned long long event_types,
	hlml_event_set_t set)
{
	struct hlml_watch *w = NULL;
	struct hlml_set *s;
	struct hlml_dev *d;
	hlml_return_t r;
	unsigned int i;
	bool queue;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (event_types & ~(unsigned long long)HLML_EVENTS_KNOWN) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	/* what is queued now happened before: other sets get it, not this */
	queue = has_queue(d);
	if (queue)
		feed(d);
	s = set_lock(set);
	if (!s) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	if (s->generation != hlml_generation_locked()) {
		r = HLML_ERROR_UNINITIALIZED;
		goto unlock;
	}
	for (i = 0; i < s->nwatch; i++)
		if (s->watch[i].pos == d->pos)
			w = &s->watch[i];
	if (!w) {
		w = &s->watch[s->nwatch++];
		memset(w, 0, sizeof(*w));
		w->pos = d->pos;
		w->queue = queue;
		look(w, d, true);
	}
	w->mask |= event_types;
unlock:
	pthread_mutex_unlock(&s->lock);
out:
	hlml_dev_put(d);
	return r;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * struct wait_fds - what a wait sleeps on
 * @fds: control handles of the watched devices with a driver queue
 * @n: entries of @fds
 * @compare: some watched device is watched by comparing its state
 */
struct wait_fds {
	struct pollfd fds[HLML_SET_MAX_DEVS];
	unsigned int n;
	bool compare;
};

/*
 * One round: reads the queues of the watched devices, looks at those
 * watched by comparison, takes one pending event, and notes what to
 * sleep on. Return: HLML_SUCCESS with @data filled, HLML_ERROR_NO_DATA
 * when nothing is pending, or the error that ends the wait.
 */
static hlml_return_t wait_round(hlml_event_set_t set, hlml_event_data_t *data,
				struct wait_fds *wf)
{
	unsigned int pos[HLML_SET_MAX_DEVS];
	unsigned long long bit;
	unsigned int i, n = 0;
	struct hlml_watch *w;
	struct hlml_dev *d;
	struct hlml_set *s;
	hlml_return_t r;

	r = hlml_lock_inited();
	if (r)
		return r;
	s = set_lock(set);
	if (!s) {
		hlml_unlock_inited();
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	if (s->generation != hlml_generation_locked()) {
		r = HLML_ERROR_UNINITIALIZED;
		goto out;
	}
	for (i = 0; i < s->nwatch; i++)
		if (s->watch[i].queue && !s->watch[i].lost)
			pos[n++] = s->watch[i].pos;
	pthread_mutex_unlock(&s->lock);

	/* the set may be freed meanwhile: set_lock() again says so */
	for (i = 0; i < n; i++)
		feed(hlml_dev_at_locked(pos[i]));
	s = set_lock(set);
	if (!s) {
		hlml_unlock_inited();
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	r = HLML_ERROR_NO_DATA;
	wf->n = 0;
	wf->compare = false;
	for (i = 0; i < s->nwatch; i++) {
		w = &s->watch[i];
		d = hlml_dev_at_locked(w->pos);
		if (!w->queue || w->resync) {
			look(w, d, false);
			w->resync = false;
		}
		if (!w->queue)
			wf->compare = true;
		else if (!w->lost) {
			wf->fds[wf->n].fd = hpu_device_fd(d->ctl);
			wf->fds[wf->n].events = POLLIN;
			wf->fds[wf->n].revents = 0;
			wf->n++;
		}
	}
	for (i = 0; i < s->nwatch; i++) {
		w = &s->watch[i];
		if (!w->pending)
			continue;
		bit = w->pending & -w->pending;
		w->pending &= ~bit;
		data->device =
			hlml_dev_handle_locked(hlml_dev_at_locked(w->pos));
		data->event_type = bit;
		r = HLML_SUCCESS;
		break;
	}
out:
	pthread_mutex_unlock(&s->lock);
	hlml_unlock_inited();
	return r;
}

/*
 * Sleeps until a watched queue has records, at most @ms (and
 * HLML_EVENT_POLL_MS when a device is watched by comparison)
 */
static void wait_sleep(struct wait_fds *wf, uint64_t ms)
{
	struct timespec nap;

	if (wf->compare && ms > HLML_EVENT_POLL_MS)
		ms = HLML_EVENT_POLL_MS;
	if (ms > HLML_EVENT_SAFETY_MS)
		ms = HLML_EVENT_SAFETY_MS;
	if (wf->n) {
		/* a handle closed by a shutdown meanwhile wakes it: the round says so */
		poll(wf->fds, wf->n, (int)ms);
		return;
	}
	nap.tv_sec = 0;
	nap.tv_nsec = (long)ms * 1000000L;
	nanosleep(&nap, NULL);
}

HLML_EXPORT hlml_return_t hlml_event_set_wait(hlml_event_set_t set,
					      hlml_event_data_t *data,
					      unsigned int timeoutms)
{
	uint64_t end = now_ms() + timeoutms, t;
	struct wait_fds wf;
	hlml_return_t r;

	if (!data)
		return HLML_ERROR_INVALID_ARGUMENT;
	for (;;) {
		r = wait_round(set, data, &wf);
		if (r != HLML_ERROR_NO_DATA)
			return r;
		t = now_ms();
		if (t >= end)
			return HLML_ERROR_TIMEOUT;
		wait_sleep(&wf, end - t);
	}
}
