/* SPDX-License-Identifier: MIT */
/*
 * trace.h - engine traces of an address space (trace.c) and the cost of
 * one job (job_cost.c), as the scheduler's files (queue.c, submit.c) and
 * the unit tests see them; docs/tracing.md.
 *
 * Off, a trace costs one relaxed load and a predictable branch per job
 * run, per job end and per submission: hpusim_trace_*() below test the
 * address space's trace_on flag and call the recording side only when it
 * is set.
 */
#ifndef HPUSIM_TRACE_H
#define HPUSIM_TRACE_H

#include "hpusim_timing.h"
#include "queue.h"

/**
 * struct hpusim_job_cost - what the packets of one job do
 * @kind: HPU_TRACE_KIND_*
 * @detail: TPC kernel id or NIC port of the job's last such packet, else 0
 * @bytes: bytes moved, written or touched
 * @flops: floating-point operations
 * @model_ns: duration on the timing model's profile (0 without one)
 * @fence_sob: sync object of the job's last FENCE, or ~0
 * @signal_sob: sync object of the job's last MSG_LONG, or ~0
 */
struct hpusim_job_cost {
	uint16_t kind;
	uint32_t detail;
	uint64_t bytes;
	uint64_t flops;
	uint64_t model_ns;
	uint32_t fence_sob;
	uint32_t signal_sob;
};

/* job_cost.c */
void hpusim_job_cost(const struct hpu_fw_device *dev,
		     const struct hpusim_tm_profile *tm, uint32_t engine,
		     const uint8_t *cb, uint32_t size,
		     struct hpusim_job_cost *out);
uint64_t hpusim_tpc_kernel_flops(uint32_t kernel_id, uint64_t elements);

/**
 * struct hpusim_trace_ring - the events of one engine queue
 * @head: absolute index of the next event written
 * @tail: absolute index of the oldest event kept (@head - @tail <=
 *	capacity)
 */
struct hpusim_trace_ring {
	uint64_t head;
	uint64_t tail;
};

/**
 * struct hpusim_trace - the trace of an address space (trace.c)
 * @lock: protects @rings, @ev, @recorded, @dropped (nests inside the
 *	scheduler lock)
 * @capacity: events per ring, a power of two
 * @engines: rings (the device's queues)
 * @tm: the timing model's profile of the device, or NULL
 * @recorded: events recorded since START
 * @dropped: events a full ring dropped since START
 * @rings: one per engine queue
 * @ev: @engines x @capacity events, ring i at @ev + i * @capacity
 */
struct hpusim_trace {
	pthread_mutex_t lock;
	uint32_t capacity;
	uint32_t engines;
	const struct hpusim_tm_profile *tm;
	uint64_t recorded;
	uint64_t dropped;
	struct hpusim_trace_ring *rings;
	struct hpu_trace_event *ev;
};

/* Whether @as records its jobs now: one relaxed load */
static inline bool hpusim_tracing(const struct hpu_fw_as *as)
{
	return __builtin_expect(
		__atomic_load_n(&as->trace_on, __ATOMIC_RELAXED), 0);
}

void hpusim_trace_job_run_slow(struct hpusim_job *job);
void hpusim_trace_job_end_slow(struct hpusim_job *job);

/**
 * hpusim_trace_job_run() - a job gets an engine (sched lock held)
 * @job: the job, about to run
 */
static inline void hpusim_trace_job_run(struct hpusim_job *job)
{
	if (hpusim_tracing(job->cs->as))
		hpusim_trace_job_run_slow(job);
}

/**
 * hpusim_trace_job_end() - a job ended (sched lock held): record it
 * @job: the job, before it is unlinked
 */
static inline void hpusim_trace_job_end(struct hpusim_job *job)
{
	if (hpusim_tracing(job->cs->as))
		hpusim_trace_job_end_slow(job);
}

/**
 * hpusim_trace_cs_submit() - stamp a new submission
 * @cs: the submission
 * @seq: the driver's sequence number of it (0 when unknown)
 */
static inline void hpusim_trace_cs_submit(struct hpusim_cs *cs, uint64_t seq)
{
	cs->tr_seq = seq;
	if (hpusim_tracing(cs->as))
		cs->tr_submit_ns = hpusim_mono_ns();
}

void hpusim_model_busy_job_end_slow(struct hpusim_job *job);

/**
 * hpusim_model_busy_job_end() - a job ended (sched lock held): count its
 * modeled duration when the device counts (model_busy.c)
 * @job: the job, before it is unlinked
 */
static inline void hpusim_model_busy_job_end(struct hpusim_job *job)
{
	if (__builtin_expect(__atomic_load_n(&job->cs->as->dev->mb.on,
					     __ATOMIC_RELAXED),
			     0))
		hpusim_model_busy_job_end_slow(job);
}

/* model_busy.c: the hpu_fw_ops of 1.6 */
int hpusim_model_busy_enable(struct hpu_fw_device *dev, bool on);
int hpusim_model_busy(struct hpu_fw_device *dev, uint32_t period_ms,
		      struct hpu_fw_model_busy *out);

/* trace.c: the hpu_fw_ops of 1.5 */
int hpusim_trace_start(struct hpu_fw_as *as, uint32_t capacity);
void hpusim_trace_stop(struct hpu_fw_as *as);
int hpusim_trace_peek(struct hpu_fw_as *as, struct hpu_trace_event *ev,
		      uint32_t max, uint64_t *pos);
void hpusim_trace_consume(struct hpu_fw_as *as, const uint64_t *pos);
void hpusim_trace_status(struct hpu_fw_as *as, struct hpu_trace_out *st);
void hpusim_trace_free(struct hpu_fw_as *as);
int hpusim_cs_submit_seq(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
			 unsigned int njobs, void *cookie, uint64_t seq);

#endif /* HPUSIM_TRACE_H */
