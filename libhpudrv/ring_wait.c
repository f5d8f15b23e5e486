// SPDX-License-Identifier: MIT
/*
 * ring_wait.c - waits on the user-mode rings (docs/rings.md, "libhpudrv's
 * producer"): one CS or several (WAIT_CS's MULTI_CS and ANY) answered
 * from completed_seq and the CQ records, spinning briefly and then
 * sleeping on cq_event (ABI 1.3) or cq_futex.
 *
 * -ENOTCONN when the ring cannot answer (a number it did not hand out,
 * a dead or broken ring): the caller asks WAIT_CS.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>

#include "ring_internal.h"

/*
 * Status of @seq: 1 and @status/@ts when it ended (its record, drained
 * into @recent, or for a ring CS covered by completed_seq and newer than
 * every evicted record, COMPLETED), 0 when not known to have ended,
 * -ENOTCONN when only WAIT_CS can tell. Called with @r->lock held.
 */
static int ring_status_locked(struct hpu_device *dev, struct hpudrv_ring *r,
			      uint64_t seq, uint64_t low, uint32_t *status,
			      uint64_t *ts)
{
	const struct ring_recent *e;

	if (!r->dead)
		hpudrv_ring_drain_locked(dev, r);
	if (r->dead)
		return -ENOTCONN;
	e = hpudrv_ring_recent_find(r, seq);
	if (e) {
		*status = e->status;
		if (ts)
			*ts = e->ts;
		return 1;
	}
	if (low < seq)
		return 0;
	if (seq <= r->evicted)
		return -ENOTCONN;
	*status = HPU_WAIT_CS_STATUS_COMPLETED;
	if (ts)
		*ts = 0;
	return 1;
}

/**
 * struct ring_wait - one wait: numbers, what is known of them
 * @seqs: the numbers (1..HPU_WAIT_MULTI_CS_MAX)
 * @n: how many
 * @any: met when one ended (else when all did)
 * @ended: bit i set once @seqs[i] is known to have ended
 * @status: HPU_WAIT_CS_STATUS_* of each ended number
 * @ts: completion time of each (0: none)
 */
struct ring_wait {
	const uint64_t *seqs;
	unsigned int n;
	bool any;
	uint32_t ended;
	uint32_t status[HPU_WAIT_MULTI_CS_MAX];
	uint64_t ts[HPU_WAIT_MULTI_CS_MAX];
};

static bool wait_met(const struct ring_wait *w)
{
	uint32_t all = w->n == 32 ? UINT32_MAX : (1U << w->n) - 1;

	return w->any ? w->ended != 0 : w->ended == all;
}

/* Lowest number not known to have ended (the 1.2 futex word's target) */
static uint64_t wait_lowest(const struct ring_wait *w)
{
	uint64_t low = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (!(w->ended & (1U << i)) && w->seqs[i] < low)
			low = w->seqs[i];
	return low;
}

/* Look at every number not known to have ended. 0 or -ENOTCONN. */
static int wait_look(struct hpu_device *dev, struct hpudrv_ring *r,
		     struct ring_wait *w, uint64_t low)
{
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < w->n && !ret; i++) {
		if (w->ended & (1U << i))
			continue;
		ret = ring_status_locked(dev, r, w->seqs[i], low, &w->status[i],
					 &w->ts[i]);
		if (ret > 0) {
			w->ended |= 1U << i;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/*
 * Sleep until the CQ may have news (at most @ns): on cq_event, which
 * every record, completed_seq move and break moves (@ev read before the
 * last look), or with a 1.2 driver on cq_futex while completed_seq is
 * below @seq
 */
static void wait_sleep(struct hpudrv_ring *r, uint32_t ev, uint64_t seq,
		       uint64_t ns)
{
	struct hpu_ring_hdr *h = r->hdr;
	uint64_t c;

	__atomic_add_fetch(&h->cq_waiters, 1, __ATOMIC_SEQ_CST);
	if (r->hdr_flags & HPU_RING_HDR_F_CQ_EVENT) {
		hpudrv_ring_futex(&h->cq_event, FUTEX_WAIT, ev, ns);
	} else {
		c = __atomic_load_n(&h->completed_seq, __ATOMIC_SEQ_CST);
		if (c < seq)
			hpudrv_ring_futex(&h->cq_futex, FUTEX_WAIT, (uint32_t)c,
					  ns);
	}
	__atomic_sub_fetch(&h->cq_waiters, 1, __ATOMIC_SEQ_CST);
}

/* The next waits' spin: doubled after a spin that paid, else halved */
static void spin_adapt(struct hpudrv_ring *r, uint64_t budget, bool paid)
{
	uint64_t b = paid ? budget * 2 : budget / 2;

	if (b > RING_SPIN_NS)
		b = RING_SPIN_NS;
	if (b < RING_SPIN_MIN_NS)
		b = RING_SPIN_MIN_NS;
	__atomic_store_n(&r->wait_spin_ns, b, __ATOMIC_RELAXED);
}

/*
 * Wait until @w is met or @timeout_us ran out (@w says which): spin
 * (the ring's adaptive budget, at most RING_SPIN_NS), then sleep in
 * slices of RING_SLICE_NS. 0 or -ENOTCONN.
 */
static int wait_run(struct hpu_device *dev, struct hpudrv_ring *r,
		    struct ring_wait *w, uint64_t timeout_us)
{
	struct hpu_ring_hdr *h = r->hdr;
	uint64_t start, end, spin_end, c, left, t, pure;
	uint64_t next = __atomic_load_n(&r->next_seq, __ATOMIC_ACQUIRE);
	uint64_t budget = __atomic_load_n(&r->wait_spin_ns, __ATOMIC_RELAXED);
	uint32_t ev = 0;
	unsigned int i;
	bool first, slept = false;
	int ret;

	/* numbers the ring did not hand out: WAIT_CS knows (or refuses) */
	for (i = 0; i < w->n; i++)
		if (w->seqs[i] < r->first_seq || w->seqs[i] >= next)
			return -ENOTCONN;
	/*
	 * a CS submitted without its take (a stream's) and waited for at
	 * once: first the take, as its submission would have waited
	 */
	if (timeout_us) {
		uint64_t top = 0;

		for (i = 0; i < w->n; i++)
			if (w->seqs[i] > top)
				top = w->seqs[i];
		hpudrv_ring_await_take(dev, r, top);
	}
	start = hpudrv_ring_now_ns();
	end = timeout_us > (UINT64_MAX - start) / 1000 ?
		      UINT64_MAX :
		      start + timeout_us * 1000;
	spin_end = start + budget < end ? start + budget : end;
	pure = budget < RING_PURE_SPIN_NS ? budget : RING_PURE_SPIN_NS;
	for (first = true;; first = false) {
		/* read first: whatever happens after the looks below moves it */
		ev = __atomic_load_n(&h->cq_event, __ATOMIC_SEQ_CST);
		c = __atomic_load_n(&h->completed_seq, __ATOMIC_ACQUIRE);
		/*
		 * covered, or a record (drained before, or new in the CQ) may
		 * say one ended out of order
		 */
		if (first || c >= wait_lowest(w) ||
		    __atomic_load_n(&h->cq_tail, __ATOMIC_ACQUIRE) !=
			    __atomic_load_n(&h->cq_head, __ATOMIC_RELAXED)) {
			ret = wait_look(dev, r, w, c);
			if (ret)
				return ret;
			if (wait_met(w)) {
				/* met while spinning: the spin paid */
				if (!first && !slept)
					spin_adapt(r, budget, true);
				return 0;
			}
		}
		if (__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE))
			return -ENOTCONN;
		if (__atomic_load_n(&h->error, __ATOMIC_ACQUIRE)) {
			pthread_mutex_lock(&r->lock);
			hpudrv_ring_kill_locked(dev, r,
						"the driver broke the ring");
			pthread_mutex_unlock(&r->lock);
			return -ENOTCONN;
		}
		t = hpudrv_ring_now_ns();
		if (t >= end)
			return 0;
		if (t < spin_end) {
			/*
			 * past the first looks: the thread that ends the CS
			 * may share this CPU (on two cores it often does)
			 */
			if (t - start >= pure || hpudrv_ring_consumer_here(r))
				sched_yield();
			continue;
		}
		/* the spin ran out: it only took a CPU from the work */
		if (!slept && spin_end < end)
			spin_adapt(r, budget, false);
		slept = true;
		left = end - t < RING_SLICE_NS ? end - t : RING_SLICE_NS;
		wait_sleep(r, ev, wait_lowest(w), left);
	}
}

int hpudrv_ring_wait(struct hpu_device *dev, uint64_t seq, uint64_t timeout_us,
		     uint32_t *status, uint64_t *ts)
{
	struct hpudrv_ring *r = hpudrv_ring_get(dev);
	struct ring_wait w = { .seqs = &seq, .n = 1 };
	int ret;

	if (!r)
		return -ENOTCONN;
	ret = wait_run(dev, r, &w, timeout_us);
	if (ret)
		return ret;
	*status = w.ended ? w.status[0] : HPU_WAIT_CS_STATUS_BUSY;
	if (ts)
		*ts = w.ended ? w.ts[0] : 0;
	return 0;
}

int hpudrv_ring_wait_multi(struct hpu_device *dev, const uint64_t *seqs,
			   unsigned int n, bool any, uint64_t timeout_us,
			   uint32_t *status, uint32_t *map)
{
	struct hpudrv_ring *r = hpudrv_ring_get(dev);
	struct ring_wait w = { .seqs = seqs, .n = n, .any = any };
	uint32_t first_bad = HPU_WAIT_CS_STATUS_COMPLETED;
	unsigned int i;
	int ret;

	if (!r)
		return -ENOTCONN;
	ret = wait_run(dev, r, &w, timeout_us);
	if (ret)
		return ret;
	/* as WAIT_CS: the first failed of those that ended, in array order */
	for (i = 0; i < n; i++)
		if ((w.ended & (1U << i)) &&
		    w.status[i] != HPU_WAIT_CS_STATUS_COMPLETED &&
		    first_bad == HPU_WAIT_CS_STATUS_COMPLETED)
			first_bad = w.status[i];
	*status = wait_met(&w) ? first_bad : HPU_WAIT_CS_STATUS_BUSY;
	*map = w.ended;
	return 0;
}
