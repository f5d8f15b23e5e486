// SPDX-License-Identifier: MIT
/*
 * trace.c - engine traces of an address space (firmware interface 1.5,
 * docs/tracing.md): a bounded ring of struct hpu_trace_event per engine
 * queue, reserved at trace_start and filled at each job's end.
 *
 * The job path (queue.c, submit.c) runs under the scheduler lock and
 * calls in here only while the address space's trace_on flag is set
 * (trace.h); it finds the rings through as->trace, which changes only
 * under the scheduler lock, and writes them under the trace's own lock.
 * The control operations are serialized by ctl_lock, which also keeps
 * as->trace alive while they read it. Nothing is allocated on the job
 * path: a full ring overwrites its oldest event and counts the drop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;

static bool capacity_ok(uint32_t n)
{
	return n >= HPU_TRACE_MIN_CAPACITY && n <= HPU_TRACE_MAX_CAPACITY &&
	       !(n & (n - 1));
}

static void trace_destroy(struct hpusim_trace *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->ev);
	free(t->rings);
	free(t);
}

static struct hpusim_trace *trace_create(const struct hpu_fw_device *dev,
					 uint32_t capacity)
{
	uint32_t engines = dev->profile->num_queues;
	struct hpusim_trace *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->capacity = capacity;
	t->engines = engines;
	t->tm = hpusim_tm_profile_find(dev->profile->name);
	t->rings = calloc(engines, sizeof(*t->rings));
	/* zero pages: memory is only touched as events come */
	t->ev = calloc((size_t)engines * capacity, sizeof(*t->ev));
	if (!t->rings || !t->ev || pthread_mutex_init(&t->lock, NULL)) {
		free(t->ev);
		free(t->rings);
		free(t);
		return NULL;
	}
	return t;
}

/**
 * hpusim_trace_start() - reserve the rings of @as and record its jobs
 * @as: address space
 * @capacity: events per engine queue, a power of two within
 *	HPU_TRACE_MIN_CAPACITY..HPU_TRACE_MAX_CAPACITY
 *
 * Rings of the same capacity already reserved are kept (with their
 * events): recording goes on.
 *
 * Return: 0, -EINVAL (bad capacity), -EBUSY (rings of another capacity
 * are reserved) or -ENOMEM.
 */
int hpusim_trace_start(struct hpu_fw_as *as, uint32_t capacity)
{
	struct hpusim_trace *t;
	int ret = 0;

	if (!as || !capacity_ok(capacity))
		return -EINVAL;
	pthread_mutex_lock(&ctl_lock);
	if (as->trace) {
		if (as->trace->capacity != capacity)
			ret = -EBUSY;
		goto out;
	}
	t = trace_create(as->dev, capacity);
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	pthread_mutex_lock(&hpusim_sched.lock);
	as->trace = t;
	pthread_mutex_unlock(&hpusim_sched.lock);
out:
	if (!ret)
		__atomic_store_n(&as->trace_on, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctl_lock);
	return ret;
}

/**
 * hpusim_trace_stop() - stop recording; the events stay
 * @as: address space
 */
void hpusim_trace_stop(struct hpu_fw_as *as)
{
	if (as)
		__atomic_store_n(&as->trace_on, false, __ATOMIC_RELEASE);
}

/**
 * hpusim_trace_free() - stop recording and free the rings of @as
 * @as: address space (also called by as_destroy)
 */
void hpusim_trace_free(struct hpu_fw_as *as)
{
	struct hpusim_trace *t;

	if (!as)
		return;
	pthread_mutex_lock(&ctl_lock);
	__atomic_store_n(&as->trace_on, false, __ATOMIC_RELEASE);
	pthread_mutex_lock(&hpusim_sched.lock);
	t = as->trace;
	as->trace = NULL;
	pthread_mutex_unlock(&hpusim_sched.lock);
	pthread_mutex_unlock(&ctl_lock);
	trace_destroy(t);
}

/**
 * hpusim_trace_peek() - copy the oldest events, by start time across the
 * rings, without taking them
 * @as: address space
 * @ev: room for @max events
 * @max: events wanted
 * @pos: receives per engine queue (the device's num_queues entries) the
 *	absolute index past the last event copied from its ring, for
 *	hpusim_trace_consume()
 *
 * Return: events copied (0 without rings).
 */
int hpusim_trace_peek(struct hpu_fw_as *as, struct hpu_trace_event *ev,
		      uint32_t max, uint64_t *pos)
{
	uint32_t live[HPUSIM_MAX_ENGINES], nlive = 0, i, n = 0;
	struct hpusim_trace *t;

	if (!as || !pos || (max && !ev))
		return -EINVAL;
	memset(pos, 0, as->dev->profile->num_queues * sizeof(*pos));
	pthread_mutex_lock(&ctl_lock);
	t = as->trace;
	if (!t)
		goto out;
	pthread_mutex_lock(&t->lock);
	/* the rings with events, so a merge step looks at those only */
	for (i = 0; i < t->engines; i++) {
		pos[i] = t->rings[i].tail;
		if (pos[i] != t->rings[i].head)
			live[nlive++] = i;
	}
	/* jobs of one queue run in order: each ring is sorted by start */
	while (n < max && nlive) {
		const struct hpu_trace_event *best = NULL;
		uint32_t bl = 0, l;

		for (l = 0; l < nlive; l++) {
			const struct hpu_trace_event *e;

			i = live[l];
			e = &t->ev[(size_t)i * t->capacity +
				   (pos[i] & (t->capacity - 1))];
			if (!best || e->start_ns < best->start_ns) {
				best = e;
				bl = l;
			}
		}
		ev[n++] = *best;
		i = live[bl];
		if (++pos[i] == t->rings[i].head)
			live[bl] = live[--nlive];
	}
	pthread_mutex_unlock(&t->lock);
out:
	pthread_mutex_unlock(&ctl_lock);
	return (int)n;
}

/**
 * hpusim_trace_consume() - drop the events a peek copied
 * @as: address space
 * @pos: what hpusim_trace_peek() gave; events a full ring dropped
 *	meanwhile are not dropped twice
 */
void hpusim_trace_consume(struct hpu_fw_as *as, const uint64_t *pos)
{
	struct hpusim_trace *t;
	uint32_t i;

	if (!as || !pos)
		return;
	pthread_mutex_lock(&ctl_lock);
	t = as->trace;
	if (t) {
		pthread_mutex_lock(&t->lock);
		for (i = 0; i < t->engines; i++) {
			struct hpusim_trace_ring *r = &t->rings[i];
			uint64_t p = pos[i] < r->head ? pos[i] : r->head;

			if (p > r->tail)
				r->tail = p;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&ctl_lock);
}

/**
 * hpusim_trace_status() - the counts of the trace of @as
 * @as: address space
 * @st: receives pending, dropped, recorded, capacity, engines, active
 *	(events 0)
 */
void hpusim_trace_status(struct hpu_fw_as *as, struct hpu_trace_out *st)
{
	struct hpusim_trace *t;
	uint32_t i;

	memset(st, 0, sizeof(*st));
	if (!as)
		return;
	pthread_mutex_lock(&ctl_lock);
	t = as->trace;
	if (t) {
		pthread_mutex_lock(&t->lock);
		for (i = 0; i < t->engines; i++)
			st->pending += t->rings[i].head - t->rings[i].tail;
		st->dropped = t->dropped;
		st->recorded = t->recorded;
		pthread_mutex_unlock(&t->lock);
		st->capacity = t->capacity;
		st->engines = t->engines;
	}
	st->active = __atomic_load_n(&as->trace_on, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&ctl_lock);
}

/* The header of the packet before @pc in @cb, or NULL */
static const struct hpu_pkt_hdr *packet_before(const uint8_t *cb, uint32_t size,
					       uint32_t pc)
{
	const struct hpu_pkt_hdr *prev = NULL;
	uint32_t off = 0;

	while (off < pc && off + sizeof(*prev) <= size) {
		const struct hpu_pkt_hdr *h = (const void *)(cb + off);

		if (h->size < sizeof(*h))
			break;
		prev = h;
		off += h->size;
	}
	return off == pc ? prev : NULL;
}

/**
 * hpusim_trace_job_run_slow() - a job of a tracing address space gets its
 * engine: its first run is its start; a run after a FENCE it parked on
 * starts it again (the wait is not engine time) and marks it WAITED
 * @job: the job (sched lock held)
 */
void hpusim_trace_job_run_slow(struct hpusim_job *job)
{
	const struct hpu_pkt_hdr *prev;
	uint64_t now = hpusim_mono_ns();

	if (!job->tr_start_ns) {
		job->tr_start_ns = now;
		return;
	}
	/* a FENCE that parked leaves pc just past it, progress 0 */
	prev = job->progress ? NULL :
			       packet_before(job->cb, job->cb_size, job->pc);
	if (prev && prev->opcode == HPU_PACKET_FENCE) {
		job->tr_start_ns = now;
		job->tr_waited = true;
	}
}

/* Append @e to ring @engine of @t, dropping the oldest when it is full */
static void trace_push(struct hpusim_trace *t, uint32_t engine,
		       const struct hpu_trace_event *e)
{
	struct hpusim_trace_ring *r = &t->rings[engine];

	pthread_mutex_lock(&t->lock);
	if (r->head - r->tail == t->capacity) {
		r->tail++;
		t->dropped++;
	}
	t->ev[(size_t)engine * t->capacity + (r->head & (t->capacity - 1))] =
		*e;
	r->head++;
	t->recorded++;
	pthread_mutex_unlock(&t->lock);
}

/**
 * hpusim_trace_job_end_slow() - record the job that ended on its engine's
 * ring of its address space
 * @job: the job, not yet unlinked (sched lock held)
 */
void hpusim_trace_job_end_slow(struct hpusim_job *job)
{
	struct hpusim_cs *cs = job->cs;
	struct hpusim_trace *t = cs->as->trace;
	uint32_t engine = job->q->engine;
	struct hpu_trace_event e;
	struct hpusim_job_cost c;
	bool failed;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (!t || engine >= t->engines)
		return;
	hpusim_job_cost(cs->as->dev, t->tm, engine, job->cb, job->cb_size, &c);
	memset(&e, 0, sizeof(e));
	e.end_ns = hpusim_mono_ns();
	e.start_ns = job->tr_start_ns ? job->tr_start_ns : e.end_ns;
	e.submit_ns = cs->tr_submit_ns && cs->tr_submit_ns <= e.start_ns ?
			      cs->tr_submit_ns :
			      e.start_ns;
	e.cs_seq = cs->tr_seq;
	e.bytes = c.bytes;
	e.flops = c.flops;
	e.model_ns = c.model_ns;
	e.engine = engine;
	e.kind = c.kind;
	e.detail = c.detail;
	e.fence_sob = c.fence_sob;
	e.signal_sob = c.signal_sob;
	failed = __atomic_load_n(&cs->stopping, __ATOMIC_ACQUIRE) ||
		 cs->result != HPU_FW_CS_OK;
	if (job->tr_waited)
		e.flags |= HPU_TRACE_EV_WAITED;
	if (failed)
		e.flags |= HPU_TRACE_EV_FAILED;
	else if (c.signal_sob != ~0U)
		e.flags |= HPU_TRACE_EV_SIGNALLED;
	trace_push(t, engine, &e);
}
