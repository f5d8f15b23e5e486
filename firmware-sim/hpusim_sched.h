/* SPDX-License-Identifier: MIT */
/*
 * hpusim_sched.h - the scheduler as the rest of the model sees it (part
 * of the private interface hpusim.h, which includes it): jobs, engine
 * queues and the address spaces' queues on them, the worker pool and its
 * parallel slices, submissions. What only the scheduler's own files share
 * is in queue.h.
 */
#ifndef HPUSIM_SCHED_H
#define HPUSIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_fw_if.h"
#include "hpusim_list.h"

struct hpusim_cs;
struct hpusim_queue;

/**
 * enum hpusim_job_state - where a job is
 * @HPUSIM_JOB_QUEUED: on its queue, not started or between turns
 * @HPUSIM_JOB_RUNNING: a thread executes it now
 * @HPUSIM_JOB_PARKED: its queue waits on a FENCE (or a scale-out answer)
 * @HPUSIM_JOB_DONE: ended or dropped
 */
enum hpusim_job_state {
	HPUSIM_JOB_QUEUED,
	HPUSIM_JOB_RUNNING,
	HPUSIM_JOB_PARKED,
	HPUSIM_JOB_DONE,
};

/**
 * struct hpusim_job - one job of a submission
 * @cs: its submission
 * @q: its queue (its address space's queue on the engine it names)
 * @node: in @q->jobs while not done
 * @cb: private copy of the packets
 * @cb_size: bytes at @cb
 * @pc: offset of the packet to execute next
 * @progress: bytes of the packet at @pc already done (DMA, MEMSET)
 * @state: enum hpusim_job_state (sched lock)
 * @tr_start_ns: tracing: when it got its engine (after a FENCE wait)
 * @tr_waited: tracing: it parked on a FENCE
 */
struct hpusim_job {
	struct hpusim_cs *cs;
	struct hpusim_queue *q;
	struct hpusim_list node;
	uint8_t *cb;
	uint32_t cb_size;
	uint32_t pc;
	uint64_t progress;
	enum hpusim_job_state state;
	uint64_t tr_start_ns;
	bool tr_waited;
};

/**
 * enum hpusim_queue_state - what an address space's queue on an engine does
 * @HPUSIM_Q_IDLE: no jobs
 * @HPUSIM_Q_READY: on its engine queue's ready list, waiting for its turn
 * @HPUSIM_Q_RUNNING: its engine runs its head job now
 * @HPUSIM_Q_PARKED: its head job waits on a FENCE (or a scale-out answer)
 *	and holds neither the engine nor a thread
 */
enum hpusim_queue_state {
	HPUSIM_Q_IDLE,
	HPUSIM_Q_READY,
	HPUSIM_Q_RUNNING,
	HPUSIM_Q_PARKED,
};

/**
 * enum hpusim_eq_state - what an engine queue does
 * @HPUSIM_EQ_IDLE: no queue of it is ready and no thread runs it
 * @HPUSIM_EQ_RUNNABLE: on the run list, waiting for a thread
 * @HPUSIM_EQ_RUNNING: a thread serves its ready queues, one turn each
 */
enum hpusim_eq_state {
	HPUSIM_EQ_IDLE,
	HPUSIM_EQ_RUNNABLE,
	HPUSIM_EQ_RUNNING,
};

/**
 * struct hpusim_engine_queue - the hardware queue of one engine
 * @dev: device
 * @engine: engine id (= queue index)
 * @state: enum hpusim_eq_state (sched lock)
 * @ready: address spaces' queues with a job to run, in turn order
 *	(struct hpusim_queue.ready_node; sched lock)
 * @active: queues of it that are not IDLE (sched lock): the engine is
 *	busy while there is one
 * @run_node: on the run list while RUNNABLE (sched lock)
 *
 * Every address space has a queue of its own on the engine (struct
 * hpusim_queue); the engine serves the ready ones round robin, a turn
 * being a slice of work (queue.c), so no address space holds the engine
 * for another.
 */
struct hpusim_engine_queue {
	struct hpu_fw_device *dev;
	uint32_t engine;
	enum hpusim_eq_state state;
	struct hpusim_list ready;
	unsigned int active;
	struct hpusim_list run_node;
};

/**
 * struct hpusim_queue - an address space's queue on one engine
 * @dev: device
 * @as: its address space
 * @eq: the engine queue that serves it
 * @engine: engine id (= queue index)
 * @is_dma: feeds a DMA engine
 * @jobs: jobs in submission order (sched lock)
 * @state: enum hpusim_queue_state (sched lock)
 * @woken: a SOB satisfied its FENCE before it parked (sched lock)
 * @nic_sent: a scale-out write of it may still be pending in the NIC: the
 *	NIC forgets it before the queue is freed (sched lock)
 * @ready_node: in @eq->ready while READY (sched lock)
 * @wait_node: in the address space's waiters while waiting (sync lock)
 * @waiting: @wait_node is linked (sync lock)
 * @wait_sob: SOB waited for
 * @wait_target: value waited for
 * @wait_dec: subtracted when the wait ends
 * @nic_wait: sequence number of the scale-out write whose answer the
 *	head job waits for, 0 when none (sched lock)
 * @nic_status: that answer once it came (sched lock; nic_so_send.c)
 *
 * Jobs of one address space on one engine run in submission order; a
 * parked queue holds only its own address space's later jobs there.
 */
struct hpusim_queue {
	struct hpu_fw_device *dev;
	struct hpu_fw_as *as;
	struct hpusim_engine_queue *eq;
	uint32_t engine;
	bool is_dma;
	struct hpusim_list jobs;
	enum hpusim_queue_state state;
	bool woken;
	bool nic_sent;
	struct hpusim_list ready_node;
	struct hpusim_list wait_node;
	bool waiting;
	uint32_t wait_sob;
	uint32_t wait_target;
	uint32_t wait_dec;
	uint64_t nic_wait;
	int nic_status;
};

/*
 * queue.c, pool.c, exec.c, submit.c: engine queues and the address
 * spaces' queues on them, the worker pool, the packet interpreter,
 * submissions (their shared internals: queue.h)
 */
int hpusim_queues_init(struct hpu_fw_device *dev);
void hpusim_queues_fini(struct hpu_fw_device *dev);
void hpusim_sched_lock(void);
void hpusim_sched_unlock(void);

/**
 * hpusim_queue_wake() - a parked queue may go on (sched lock held)
 * @q: queue whose FENCE passed or whose scale-out answer came
 */
void hpusim_queue_wake(struct hpusim_queue *q);

/* Slices of an affine operation (one bit each in struct hpusim_par.claimed) */
#define HPUSIM_PAR_AFFINE_MAX 64

/**
 * struct hpusim_par - one operation cut into slices for the worker pool
 * @fn: runs slice @slice of it; must not wait for the pool
 * @arg: argument of @fn
 * @nslices: slices (>= 1)
 * @affine: claim by CPU (at most HPUSIM_PAR_AFFINE_MAX slices, else
 *	ignored): each CPU has a home range of the slices and claims in it
 *	first, then from the far end of the others' (hpusim_par_affine_
 *	pick()); so the same part of a buffer that is copied again and again
 *	is copied on the same CPU each time and stays in that CPU's cache
 * @spare_only: help only with threads nothing else waits for: no worker
 *	is woken for it while an engine queue waits for a thread, and a
 *	worker serves a waiting engine queue before its slices (the MME's
 *	split products: docs/mme.md "Two MMEs")
 * @next: next slice to claim (atomic; set by hpusim_par_run())
 * @claimed: @affine: a bit per claimed slice (atomic)
 * @runner_cpu: @affine: the CPU the calling thread claimed its last slice
 *	on, -1 unknown (atomic; a pool worker on that CPU does not help:
 *	hpusim_par_helper_useful())
 * @helped: slices that pool workers finished (atomic; a worker's last
 *	touch of the operation)
 * @node: on the pool's help list while slices may be unclaimed (sched lock)
 */
struct hpusim_par {
	void (*fn)(void *arg, unsigned int slice);
	void *arg;
	unsigned int nslices;
	bool affine;
	bool spare_only;
	unsigned int next;
	uint64_t claimed;
	int runner_cpu;
	unsigned int helped;
	struct hpusim_list node;
};

/**
 * hpusim_par_affine_pick() - the slice an affine claim takes next
 * @claimed: a bit per slice already claimed (not all of @nslices)
 * @nslices: slices of the operation (1..HPUSIM_PAR_AFFINE_MAX)
 * @ncpu: CPUs of the machine (>= 1)
 * @cpu: the claiming thread's CPU (-1 unknown: as CPU 0)
 *
 * The slices are cut into min(@ncpu, @nslices) home ranges, in order, one
 * per CPU (CPU c has range c % that). A thread takes the lowest unclaimed
 * slice of its CPU's range; once that range is claimed, the highest
 * unclaimed slice of all, the one farthest from where the range's own
 * CPU works up from. So a helper that comes late, or not at all, leaves
 * the runner copying its range and then the other range from its end:
 * where the two meet moves with the helper's delay, every other slice
 * keeps its CPU from one copy to the next.
 *
 * Return: the slice (unclaimed in @claimed).
 */
static inline unsigned int hpusim_par_affine_pick(uint64_t claimed,
						  unsigned int nslices,
						  unsigned int ncpu, int cpu)
{
	uint64_t all = nslices >= 64 ? ~0ULL : (1ULL << nslices) - 1;
	uint64_t free = ~claimed & all, home;
	unsigned int k = ncpu < nslices ? ncpu : nslices;
	unsigned int r = cpu < 0 ? 0 : (unsigned int)cpu % (k ? k : 1);
	unsigned int lo, hi;

	if (!k)
		k = 1;
	lo = (unsigned int)((uint64_t)r * nslices / k);
	hi = (unsigned int)((uint64_t)(r + 1) * nslices / k);
	home = free & (hi >= 64 ? ~0ULL : (1ULL << hi) - 1) & (~0ULL << lo);
	if (home)
		return (unsigned int)__builtin_ctzll(home);
	return 63U - (unsigned int)__builtin_clzll(free);
}

/*
 * hpusim_par_run(): the runner spins this long for the slices workers are
 * still running before it sleeps (a slice of a direct DMA copy takes a
 * few microseconds, about what a futex sleep and wake-up cost)
 */
#define HPUSIM_PAR_JOIN_SPIN_NS 20000ULL

/* hpusim_par_wake_helpers(): declines in a row before helpers rest */
#define HPUSIM_PAR_MISS_MAX    4
/* ... and then one affine operation in this many still wakes one (probe) */
#define HPUSIM_PAR_PROBE_EVERY 16

/**
 * hpusim_par_helper_useful() - whether a pool worker should help here
 * @runner_cpu: CPU of the operation's calling thread (-1: unknown)
 * @helper_cpu: CPU the worker runs on (-1: unknown)
 *
 * An affine operation's slices are worth taking only on another CPU: a
 * worker woken onto the runner's own CPU (the scheduler's choice when the
 * other CPUs are busy, e.g. with a client spinning on its completion)
 * can only run while the runner waits, and would copy a slice whose bytes
 * sit in another CPU's cache. It declines, and the runner copies on.
 *
 * Return: false only when both CPUs are known and the same.
 */
static inline bool hpusim_par_helper_useful(int runner_cpu, int helper_cpu)
{
	return runner_cpu < 0 || helper_cpu < 0 || runner_cpu != helper_cpu;
}

/**
 * hpusim_par_wake_helpers() - whether an affine operation wakes helpers
 * @misses: helpers that declined in a row before (struct hpusim_sched)
 * @seq: number of this operation among the affine ones
 *
 * While woken helpers keep landing on their runner's CPU, waking one
 * only costs the runner two context switches: after HPUSIM_PAR_MISS_MAX
 * declines in a row, only every HPUSIM_PAR_PROBE_EVERY-th operation wakes
 * one, to see whether another CPU has become free (a helper that takes a
 * slice on another CPU ends the streak). The slices are cut the same
 * either way, so each part of a buffer keeps its CPU.
 *
 * Return: true to wake idle workers.
 */
static inline bool hpusim_par_wake_helpers(unsigned int misses,
					   unsigned int seq)
{
	return misses < HPUSIM_PAR_MISS_MAX ||
	       seq % HPUSIM_PAR_PROBE_EVERY == 0;
}

/**
 * hpusim_par_width() - threads that could work on one operation now
 *
 * A hint (the calling thread plus the idle workers, at most the pool's
 * size): hpusim_par_run() is correct with any number of slices.
 *
 * Return: >= 1.
 */
unsigned int hpusim_par_width(void);

/*
 * A pool worker that has run a slice of a spare_only operation spins this
 * long for the next one before it sleeps: a decode step's products come
 * microseconds apart, much less than a sleeping worker's wake-up on a
 * busy machine (docs/mme.md "Two MMEs")
 */
#define HPUSIM_PAR_LINGER_NS 50000ULL

/**
 * enum hpusim_spare - which pool worker could take a spare_only slice
 * @HPUSIM_SPARE_NONE: none: every worker is busy
 * @HPUSIM_SPARE_IDLE: one sleeps idle (it must be woken)
 * @HPUSIM_SPARE_AWAKE: one lingers after a spare_only slice
 *	(HPUSIM_PAR_LINGER_NS): it takes the next one without a wake-up
 */
enum hpusim_spare {
	HPUSIM_SPARE_NONE,
	HPUSIM_SPARE_IDLE,
	HPUSIM_SPARE_AWAKE,
};

/**
 * hpusim_par_spare() - whether a pool worker could take a spare_only slice
 *
 * A hint, read without the sched lock.
 *
 * Return: enum hpusim_spare.
 */
enum hpusim_spare hpusim_par_spare(void);

/**
 * hpusim_par_run() - run every slice of @par, idle workers helping
 * @par: the operation (@fn, @arg, @nslices set)
 *
 * The calling thread runs every slice no worker has claimed, then waits
 * only for the slices workers are running, so it cannot deadlock on a busy
 * pool. Call with no model lock held.
 */
void hpusim_par_run(struct hpusim_par *par);

int hpusim_cs_submit(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie);
int hpusim_cs_abort(struct hpu_fw_as *as, void *cookie);
void hpusim_sched_stats(struct hpu_fw_sched_stats *out);
int hpusim_sched_set_chain_max(unsigned int n);

/**
 * hpusim_as_abort_all() - abort every submission of an address space
 * @as: address space
 *
 * Returns when none of its jobs runs any more; its queues are freed (the
 * next submission makes them again).
 *
 * Return: the number of engines reset.
 */
int hpusim_as_abort_all(struct hpu_fw_as *as);

#endif /* HPUSIM_SCHED_H */
