// SPDX-License-Identifier: MIT
/*
 * cs_done.c - the end of a CS (docs/command-submission.md, "CS" and
 * "Failures"): the engines' completion callback, the final status and
 * its fault event, the WAIT submissions it releases (their internal
 * SOBs raised at once, in the ending's thread), the low-water mark a ring's
 * completed_seq follows, timeouts and the engine reset they cause.
 * Submission is cs.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hpu_cs.h"
#include "hpu_mem.h"
#include "hpu_packets.h"

bool hfd_cs_in_flight_locked(struct hfd_cs_state *st, uint64_t seq)
{
	struct hfd_cs *cs;

	HPU_ASSERT_HELD(&st->lock);

	for (cs = st->hash[seq % CS_HASH_SIZE]; cs; cs = cs->hnext)
		if (cs->seq == seq)
			return true;
	return false;
}

void hfd_cs_put(struct hfd_cs *cs)
{
	struct hfd_ctx *ctx = cs->ctx;

	if (__atomic_sub_fetch(&cs->refs, 1, __ATOMIC_ACQ_REL))
		return;
	free(cs->usage);
	free(cs);
	hfd_ctx_put(ctx);
}

void hfd_cs_count(uint64_t *dev_ctr, uint64_t *ctx_ctr)
{
	__atomic_add_fetch(dev_ctr, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(ctx_ctr, 1, __ATOMIC_RELAXED);
}

/*
 * A WAIT chunk's sequence numbers all ended: raise its internal SOB so
 * the FENCE job runs, at once, in the thread that saw the last of them
 * end (no hop through the timer thread). st->lock is held: the SOB still
 * belongs to that submission (its dependency was on st->deps, and an
 * ending clears the owners under the same lock), and submit_locked()
 * zeroed it under the same lock before the dependency was published, so
 * this ADD never precedes that SET. The model takes no driver lock in
 * sob_write and runs no callback from it (a woken FENCE runs on an
 * engine thread), so calling it here keeps the order st->lock -> the
 * model's locks. @as_ok: this thread read-locked as_lock; a writer means
 * release() is destroying the address space, which aborts the
 * submission anyway.
 */
static void raise_wait_sob_locked(struct hfd_ctx *ctx,
				  const struct hfd_wait_dep *d, bool as_ok)
{
	struct hfd_cs_state *st = ctx->cs;

	HPU_ASSERT_HELD(&st->lock);

	if (!as_ok || !ctx->as ||
	    st->sob_owner[d->sob - HPU_NUM_SOBS] != d->owner_seq)
		return;
	CTX_OPS(ctx)->sob_write(ctx->as, d->sob, HPU_MSG_OP_ADD, 1);
}

static uint32_t final_status(const struct hfd_cs *cs)
{
	if (cs->timed_out)
		return HPU_WAIT_CS_STATUS_TIMEDOUT;
	return cs->result == HPU_FW_CS_OK ? HPU_WAIT_CS_STATUS_COMPLETED :
					    HPU_WAIT_CS_STATUS_ABORTED;
}

/*
 * The context of the CS gets the fault, the device's control contexts a
 * copy (a monitor sees every fault of the device); with
 * --fatal-page-faults a page fault leaves the device NEEDS_RESET.
 */
static void raise_fault_event(struct hfd_cs *cs)
{
	struct hfd_device *dev = cs->ctx->dev;
	uint32_t engine;

	if (cs->result == HPU_FW_CS_PAGE_FAULT && cs->has_fault) {
		hfd_ctx_queue_event(cs->ctx, HPU_EVENT_PAGE_FAULT,
				    cs->fault.engine, cs->seq, cs->fault.addr,
				    cs->fault.is_write ? 1 : 0);
		hfd_device_raise(dev, HFD_EV_CONTROL, HPU_EVENT_PAGE_FAULT,
				 cs->fault.engine, cs->seq, cs->fault.addr,
				 cs->fault.is_write ? 1 : 0);
		if (__atomic_load_n(&dev->fatal_page_faults, __ATOMIC_RELAXED))
			hfd_device_fatal(dev, HPU_DEVICE_STATUS_NEEDS_RESET,
					 cs->ctx, "MMU page fault");
	} else if (cs->result == HPU_FW_CS_ENGINE_ERR) {
		engine = cs->has_fault ? cs->fault.engine : ~0U;
		hfd_ctx_queue_event(cs->ctx, HPU_EVENT_ENGINE_ERR, engine,
				    cs->seq, 0, 0);
		hfd_device_raise(dev, HFD_EV_CONTROL, HPU_EVENT_ENGINE_ERR,
				 engine, cs->seq, 0, 0);
	}
}

/* Drop the seq from every dependency; collect those now satisfied */
static struct hfd_wait_dep *deps_ended_locked(struct hfd_cs_state *st,
					      uint64_t seq)
{
	struct hfd_wait_dep **pp = &st->deps, *d, *ready = NULL;
	unsigned int i;

	HPU_ASSERT_HELD(&st->lock);

	while ((d = *pp)) {
		if (d->owner_seq == seq) {
			/* the WAIT submission itself ended (aborted) */
			*pp = d->next;
			free(d);
			continue;
		}
		for (i = 0; i < d->n; i++) {
			if (d->seqs[i] == seq) {
				d->seqs[i] = d->seqs[--d->n];
				break;
			}
		}
		if (!d->n) {
			*pp = d->next;
			d->next = ready;
			ready = d;
			continue;
		}
		pp = &d->next;
	}
	return ready;
}

/**
 * hfd_cs_low_water_locked() - the highest number at or below which every
 * CS of the context has ended: one below the oldest in flight (ring and
 * ioctl alike)
 * @st: the context's CS state (lock held)
 *
 * A number below next_seq that is not in flight has ended (a number is
 * given out and hashed under the lock), so the mark moves up over ended
 * numbers and stops at the first in flight: each number is passed once,
 * O(1) per ending amortized.
 *
 * Return: the number (0 when none ended yet).
 */
uint64_t hfd_cs_low_water_locked(struct hfd_cs_state *st)
{
	HPU_ASSERT_HELD(&st->lock);
	while (st->low_water + 1 < st->next_seq &&
	       !hfd_cs_in_flight_locked(st, st->low_water + 1))
		st->low_water++;
	return st->low_water;
}

static void cs_finalize(struct hfd_cs *cs)
{
	struct hfd_ctx *ctx = cs->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_wait_dep *ready, *d;
	struct hfd_cs **pp;
	struct hfd_cs_hist rec;
	bool ring_broke = false, as_ok;
	uint32_t status;
	unsigned int i;

	pthread_mutex_lock(&st->lock);
	cs->finalizing = true;
	pthread_mutex_unlock(&st->lock);
	hfd_timer_cancel_sync(&cs->timer);

	status = final_status(cs);
	raise_fault_event(cs);
	for (i = 0; i < cs->nusage; i++)
		__atomic_sub_fetch(cs->usage[i], 1, __ATOMIC_ACQ_REL);
	if (status == HPU_WAIT_CS_STATUS_COMPLETED)
		hfd_cs_count(&dev->cs_completed, &ctx->cs_completed);

	/*
	 * never blocks: this thread may hold it already (a CS that ended
	 * inside its own submission), or release() may hold it for writing
	 */
	as_ok = !pthread_rwlock_tryrdlock(&ctx->as_lock);
	pthread_mutex_lock(&st->lock);
	for (pp = &st->hash[cs->seq % CS_HASH_SIZE]; *pp; pp = &(*pp)->hnext) {
		if (*pp == cs) {
			*pp = cs->hnext;
			break;
		}
	}
	rec = (struct hfd_cs_hist){
		.seq = cs->seq,
		.ts = cs->done_ns,
		.status = status,
		.ts_valid = !!(cs->flags & HPU_CS_FLAGS_TIMESTAMP),
	};
	if (!st->hist)
		st->hist = calloc(CS_HISTORY, sizeof(*st->hist));
	if (st->hist)
		st->hist[cs->seq % CS_HISTORY] = rec;
	/* a timestamped CS is also kept in the outcome store */
	if (rec.ts_valid && !st->outcomes)
		st->outcomes = calloc(CS_OUTCOMES, sizeof(*st->outcomes));
	if (rec.ts_valid && st->outcomes)
		st->outcomes[st->outcome_next++ % CS_OUTCOMES] = rec;
	ready = deps_ended_locked(st, cs->seq);
	while ((d = ready)) {
		ready = d->next;
		raise_wait_sob_locked(ctx, d, as_ok);
		free(d);
	}
	/* only a WAIT submission owns internal SOBs (wait_prepare_locked()) */
	if (cs->flags & HPU_CS_FLAGS_WAIT)
		for (i = 0; i < CS_NUM_INT_SOBS; i++)
			if (st->sob_owner[i] == cs->seq)
				st->sob_owner[i] = 0;
	/* moved at every ending, so that it never has far to go */
	hfd_cs_low_water_locked(st);
	if (st->ring)
		ring_broke = hfd_ring_cs_ended_locked(ctx, cs, status,
						      st->low_water);
	pthread_mutex_unlock(&st->lock);
	if (as_ok)
		pthread_rwlock_unlock(&ctx->as_lock);
	if (ring_broke)
		hfd_ring_raise_error(ctx);

	hfd_ctx_note_cs_ended(ctx);
	hfd_wait_cs_ended(ctx);
	hfd_hl_irq_cs_ended(ctx); /* habanalabs CQs: user interrupts */

	/* last: hfd_ctx_cs_fini() may free the context's state after this */
	pthread_mutex_lock(&st->lock);
	if (!--st->in_flight)
		pthread_cond_broadcast(&st->idle);
	if (st->in_flight_full) {
		/* room under the limit: a ring's refused entry retries now */
		st->in_flight_full = false;
		if (st->ring)
			hfd_ring_kick_locked(st);
	}
	pthread_mutex_unlock(&st->lock);
	hfd_cs_put(cs);
}

/**
 * hfd_cs_done_cb() - the model's cs_done callback
 * @arg: the device
 * @cookie: the struct hfd_cs given to cs_submit
 * @result: how it ended
 * @fault: details of a PAGE_FAULT or ENGINE_ERR, else NULL
 * @done_ns: completion time (device clock)
 */
void hfd_cs_done_cb(void *arg, void *cookie, enum hpu_fw_cs_result result,
		    const struct hpu_fw_fault *fault, uint64_t done_ns)
{
	struct hfd_cs *cs = cookie;
	struct hfd_cs_state *st = cs->ctx->cs;
	bool defer;

	pthread_mutex_lock(&st->lock);
	cs->done = true;
	cs->result = result;
	cs->done_ns = done_ns;
	if (fault) {
		cs->fault = *fault;
		cs->has_fault = true;
	}
	defer = cs->abort_in_progress;
	if (defer)
		cs->done_pending = true;
	pthread_mutex_unlock(&st->lock);
	if (!defer)
		cs_finalize(cs);
}

/**
 * hfd_engine_reset_cb() - the model's engine_reset callback
 * @arg: the device
 * @engine: engine reset
 *
 * Soft resets are counted where the driver asks for them (a CS timeout
 * counts what cs_abort reports), so this only logs.
 */
void hfd_engine_reset_cb(void *arg, uint32_t engine)
{
	struct hfd_device *dev = arg;

	hfd_dbg("hpu%u: engine %u reset", dev->index, engine);
}

void hfd_cs_timeout_fn(struct hfd_timer *t)
{
	struct hfd_cs *cs = container_of(t, struct hfd_cs, timer);
	struct hfd_ctx *ctx = cs->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hfd_cs_state *st = ctx->cs;
	bool pending;
	int n;

	/* a writer is tearing the context down: it aborts everything */
	if (pthread_rwlock_tryrdlock(&ctx->as_lock))
		return;
	pthread_mutex_lock(&st->lock);
	if (cs->done || cs->finalizing || !ctx->as) {
		pthread_mutex_unlock(&st->lock);
		pthread_rwlock_unlock(&ctx->as_lock);
		return;
	}
	cs->abort_in_progress = true;
	cs->timed_out = true;
	pthread_mutex_unlock(&st->lock);

	hfd_log_ratelimited(HFD_LOG_WARN, "hpu%u: pid %d: CS %llu timed out",
			    dev->index, (int)ctx->pid,
			    (unsigned long long)cs->seq);
	hfd_cs_count(&dev->cs_stats.timedout, &ctx->cs_stats.timedout);
	hfd_ctx_queue_event(ctx, HPU_EVENT_CS_TIMEOUT, ~0U, cs->seq, 0, 0);
	hfd_device_raise(dev, HFD_EV_CONTROL, HPU_EVENT_CS_TIMEOUT, ~0U,
			 cs->seq, 0, 0);
	/* --reset-on-lockup: a hard reset follows (reset.c) */
	hfd_device_reset_on_lockup(ctx);
	n = CTX_OPS(ctx)->cs_abort(ctx->as, cs);
	if (n > 0) {
		pthread_mutex_lock(&dev->ctx_lock);
		dev->soft_reset_cnt += (uint32_t)n;
		pthread_mutex_unlock(&dev->ctx_lock);
	}

	pthread_mutex_lock(&st->lock);
	cs->abort_in_progress = false;
	pending = cs->done_pending;
	pthread_mutex_unlock(&st->lock);
	if (pending)
		cs_finalize(cs);
	pthread_rwlock_unlock(&ctx->as_lock);
}
