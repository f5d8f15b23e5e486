/* SPDX-License-Identifier: MIT */
/*
 * queue.h - what the scheduler files of libhpusim share, and nothing else
 * includes:
 *
 *   queue.c   engine queues, the address spaces' queues on them, turns
 *   pool.c    the worker pool of the process and parallel slices
 *   exec.c    the packet interpreter (one job, one turn)
 *   submit.c  submissions: creation, completion, failure, aborts
 *
 * Locking: the scheduler lock (struct hpusim_sched.lock, one per process)
 * protects every engine queue and address-space queue, their jobs, the
 * run list, and every submission's bookkeeping and its address space's
 * cs_list and queue table. It nests outside an address space's sync_lock
 * and the telemetry lock; callbacks run with no lock held.
 */
#ifndef HPUSIM_QUEUE_H
#define HPUSIM_QUEUE_H

#include "hpusim.h"

/*
 * A turn of an address space's queue on its engine ends after this much
 * DMA work (a packet costs HPUSIM_PKT_COST) or HPUSIM_SLICE_NS, whichever
 * comes first; then the engine serves the next ready address space.
 * Packets are not cut: a single GEMM or TPC kernel runs to its end.
 */
#define HPUSIM_SLICE_BYTES  (4 * HPUSIM_DMA_CHUNK)
#define HPUSIM_SLICE_NS	    (2ULL * 1000 * 1000)
#define HPUSIM_INLINE_BYTES (8U << 20) /* DMA bytes of a fast-path CS */
#define HPUSIM_PKT_COST	    64	       /* slice bytes a packet costs */
#define HPUSIM_MAX_WORKERS  64

/*
 * Run to completion of dependent work (struct hpusim_runner): a pool
 * worker runs at most this many turns of queues its own jobs woke, or
 * for this long, from the engine it took off the run list, before what
 * it wakes goes to the back of the run list while other engines wait
 * there (HPUSIM_CHAIN_NS: one turn, the engines' unit of fairness).
 * hpu-fused's environment can set the turns (HPUSIM_CHAIN_MAX, 0..4096;
 * 0 keeps a chain within one submission, as before issue 11's hops).
 */
#define HPUSIM_CHAIN_MAX_DEFAULT 64U
#define HPUSIM_CHAIN_MAX_LIMIT	 4096U
#define HPUSIM_CHAIN_NS		 HPUSIM_SLICE_NS

/* a fast-path CS's copies fit one turn, with room for its packets' cost */
_Static_assert(2 * HPUSIM_INLINE_BYTES <= HPUSIM_SLICE_BYTES,
	       "fast path within a turn");

/**
 * struct hpusim_cs - one submission
 * @as: its address space
 * @cookie: the driver's cookie
 * @node: in @as->cs_list until completed
 * @njobs: jobs in @jobs
 * @jobs_left: jobs not yet ended or dropped
 * @running: jobs a thread executes now
 * @stopping: its jobs must stop (fault, abort); read without the lock
 * @aborting: a cs_abort owns its completion
 * @purging: stopped by hpusim_as_abort_all(), whose first free caller
 *	reports it
 * @result: how it ends
 * @fault: first fault, for PAGE_FAULT and ENGINE_ERR
 * @reset: engines to reset when it completes
 * @cbs: the private copy of every job's packets
 * @tr_seq: the driver's sequence number of it (cs_submit_seq), or 0
 * @tr_submit_ns: tracing: when it was submitted, else 0
 * @jobs: its jobs
 */
struct hpusim_cs {
	struct hpu_fw_as *as;
	void *cookie;
	struct hpusim_list node;
	unsigned int njobs;
	unsigned int jobs_left;
	unsigned int running;
	bool stopping;
	bool aborting;
	bool purging;
	enum hpu_fw_cs_result result;
	struct hpu_fw_fault fault;
	uint64_t reset[HPUSIM_MAX_ENGINES / 64];
	uint8_t *cbs;
	uint64_t tr_seq;
	uint64_t tr_submit_ns;
	struct hpusim_job jobs[];
};

/* How one run of a job ended */
enum exec_result {
	EXEC_DONE,
	EXEC_STOPPED,
	EXEC_PARK,
	EXEC_YIELD,
	EXEC_FAULT,
	EXEC_ENGINE_ERR,
};

/**
 * struct hpusim_slice - what is left of a turn
 * @budget: bytes of work (see HPUSIM_SLICE_BYTES)
 * @end_ns: CLOCK_MONOTONIC time at which the turn ends
 */
struct hpusim_slice {
	uint64_t budget;
	uint64_t end_ns;
};

/**
 * struct hpusim_sched - the worker pool of the process
 * @lock: the scheduler lock (see the top of the file)
 * @work: signalled when the run list gets an engine queue, or at stop
 * @idle: broadcast when a job stops running or a submission completes
 * @par_done: broadcast when a worker finished a slice of a parallel job
 * @run: RUNNABLE engine queues (struct hpusim_engine_queue.run_node)
 * @help: parallel jobs with slices left to claim (struct hpusim_par.node)
 * @idle_workers: workers waiting for work
 * @lingering: workers spinning for the next spare_only slice after one
 *	(atomic; par_linger())
 * @spare_seq: spare_only operations listed so far (atomic): what a
 *	lingering worker watches
 * @par_misses: affine operations in a row whose woken helper declined
 *	(it ran on the runner's CPU, hpusim_par_helper_useful())
 * @par_runs: affine operations cut into slices so far (the probe count
 *	of hpusim_par_wake_helpers())
 * @chain_max: turns a worker's chain may take (HPUSIM_CHAIN_MAX)
 * @st: counters of handoffs and wake-ups (atomic, hpusim_sched_count())
 * @pool_lock: protects @threads, @nthreads and @users
 * @threads: the workers
 * @nthreads: workers running
 * @users: devices using the pool
 * @stop: the workers must exit once the run list is empty
 */
struct hpusim_sched {
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_cond_t idle;
	pthread_cond_t par_done;
	struct hpusim_list run;
	struct hpusim_list help;
	unsigned int idle_workers;
	unsigned int lingering;
	unsigned int spare_seq;
	unsigned int par_misses;
	unsigned int par_runs;
	unsigned int chain_max;
	struct hpu_fw_sched_stats st;
	pthread_mutex_t pool_lock;
	pthread_t threads[HPUSIM_MAX_WORKERS];
	unsigned int nthreads;
	unsigned int users;
	bool stop;
};

/* The scheduler of the process (pool.c) */
extern struct hpusim_sched hpusim_sched;

/**
 * struct hpusim_runner - what a thread running jobs hands to itself
 * @cs: submission of the job it executes now (compared, never followed)
 * @as: a pool worker: the address space of that job (compared, never
 *	followed); NULL in the fast path, which keeps to @cs
 * @pend: engine queues its job woke, RUNNABLE but not signalled
 * @npend: entries of @pend
 * @chained: turns this worker took from @pend since it last took an
 *	engine off the run list
 * @chain_start_ns: when the chain's first turn began (CLOCK_MONOTONIC,
 *	the turn's own clock read), 0 until then
 *
 * A job that passes another queue's FENCE mostly parks or ends right
 * after (the training library's handoffs: MSG_LONG ADD, then FENCE on its
 * own SOB; a stream's WAIT submission released by the end of the
 * submission it waits for). Waking an idle worker for the other queue
 * then costs a cross-CPU wake-up per handoff, while this thread is about
 * to be free: so the woken queue's engine goes on the run list without a
 * signal and this thread runs it next, when the woken job belongs to the
 * same submission (the fast path) or, in a pool worker, to the same
 * address space (hpusim_runner_take() bounds such a chain). Should the
 * job go on with engine work instead, the signals are sent before that
 * work starts, so no queue waits for another's work.
 */
struct hpusim_runner {
	const struct hpusim_cs *cs;
	const struct hpu_fw_as *as;
	struct hpusim_engine_queue *pend[HPU_MAX_JOBS_PER_CS];
	unsigned int npend;
	unsigned int chained;
	uint64_t chain_start_ns;
};

/**
 * hpusim_chain_done() - whether a worker's chain of dependent work ends
 * @chained: turns it took from what its own jobs woke
 * @max: HPUSIM_CHAIN_MAX (0: chains only within one submission)
 * @elapsed_ns: since it took its engine off the run list
 * @others_wait: an engine it did not wake waits on the run list
 *
 * Return: true when the woken engines must go to the back of the run list
 * (the turns or the time are used up and another engine waits), false
 * when the thread runs the next one itself.
 */
static inline bool hpusim_chain_done(unsigned int chained, unsigned int max,
				     uint64_t elapsed_ns, bool others_wait)
{
	return others_wait && (chained >= max || elapsed_ns >= HPUSIM_CHAIN_NS);
}

/* Add @n to a counter of struct hpu_fw_sched_stats (any lock or none) */
static inline void hpusim_sched_count(uint64_t *ctr, uint64_t n)
{
	__atomic_add_fetch(ctr, n, __ATOMIC_RELAXED);
}

/* The runner of this thread while it executes a job, else NULL */
extern __thread struct hpusim_runner *hpusim_cur_runner;

/* queue.c */
struct hpusim_queue *hpusim_queue_get(struct hpu_fw_as *as, uint32_t index,
				      uint32_t stream);
bool hpusim_queue_add_job(struct hpusim_job *job, bool fast);
void hpusim_queue_job_dropped(struct hpusim_queue *q);
void hpusim_queue_after_drop(struct hpusim_queue *q);
void hpusim_engine_run(struct hpusim_engine_queue *eq,
		       const struct hpusim_cs *inline_cs,
		       struct hpusim_runner *rn);
struct hpusim_engine_queue *hpusim_runner_take(struct hpusim_runner *rn);
void hpusim_runner_start(struct hpusim_runner *rn);
void hpusim_runner_flush(struct hpusim_runner *rn);
void hpusim_as_queues_free(struct hpu_fw_as *as);

/* pool.c */
int hpusim_pool_get(void);
void hpusim_pool_put(void);

/* exec.c */
enum exec_result hpusim_job_exec(struct hpusim_job *job,
				 struct hpusim_slice *sl,
				 struct hpu_fw_fault *fault);
uint64_t hpusim_mono_ns(void);

/* submit.c */
void hpusim_job_end(struct hpusim_job *job);
void hpusim_cs_fail(struct hpusim_cs *cs, enum exec_result r,
		    const struct hpu_fw_fault *fault);

#endif /* HPUSIM_QUEUE_H */
