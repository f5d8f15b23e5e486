// SPDX-License-Identifier: MIT
/*
 * queue.c - queue managers: submissions, the jobs they queue on the
 * hardware queues, the packet interpreter, and the worker pool that runs
 * the queues.
 *
 * One worker pool serves every device of the process (sized to the
 * machine). A queue is IDLE, RUNNABLE (on the run list), RUNNING (one
 * thread executes its head job) or PARKED (its head job waits on a FENCE
 * and holds no thread). A thread runs a queue's jobs in order, in slices:
 * after HPUSIM_SLICE_BYTES of DMA work it lets other runnable queues go
 * first, and between DMA chunks it checks whether the submission was
 * stopped. A small submission to idle queues runs in the submitting
 * thread (the fast path), so its cs_done comes before cs_submit returns.
 *
 * Idle workers also help with the slices of one large transfer
 * (hpusim_par_run()): the thread that splits it runs every slice no
 * worker took, so it never waits for a worker that is not already at work
 * on one of its slices, and a helper never waits for anything but a
 * map_lock, which nobody holds while waiting for the pool.
 *
 * Locking: the scheduler lock (one per process) protects every queue's
 * state and jobs, the run list, and every submission's bookkeeping and
 * its address space's cs_list. It nests outside an address space's
 * sync_lock and the telemetry lock; callbacks run with no lock held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpusim.h"

#define HPUSIM_SLICE_BYTES  (4 * HPUSIM_DMA_CHUNK)
#define HPUSIM_INLINE_BYTES (1U << 20) /* DMA bytes of a fast-path CS */
#define HPUSIM_PKT_COST	    64	       /* slice bytes a packet costs */
#define HPUSIM_MAX_WORKERS  64

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
 * @result: how it ends
 * @fault: first fault, for PAGE_FAULT and ENGINE_ERR
 * @reset: engines to reset when it completes
 * @cbs: the private copy of every job's packets
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
	enum hpu_fw_cs_result result;
	struct hpu_fw_fault fault;
	uint64_t reset[HPUSIM_MAX_ENGINES / 64];
	uint8_t *cbs;
	struct hpusim_job jobs[];
};

/* How one slice of a job ended */
enum exec_result {
	EXEC_DONE,
	EXEC_STOPPED,
	EXEC_PARK,
	EXEC_YIELD,
	EXEC_FAULT,
	EXEC_ENGINE_ERR,
};

/**
 * struct hpusim_sched - the worker pool of the process
 * @lock: the scheduler lock (see the top of the file)
 * @work: signalled when the run list gets a queue, or at stop
 * @idle: broadcast when a job stops running or a submission completes
 * @par_done: broadcast when a worker finished a slice of a parallel job
 * @run: RUNNABLE queues (struct hpusim_queue.run_node)
 * @help: parallel jobs with slices left to claim (struct hpusim_par.node)
 * @idle_workers: workers waiting for work
 * @pool_lock: protects @threads, @nthreads and @users
 * @threads: the workers
 * @nthreads: workers running
 * @users: devices using the pool
 * @stop: the workers must exit once the run list is empty
 */
static struct hpusim_sched {
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_cond_t idle;
	pthread_cond_t par_done;
	struct hpusim_list run;
	struct hpusim_list help;
	unsigned int idle_workers;
	pthread_mutex_t pool_lock;
	pthread_t threads[HPUSIM_MAX_WORKERS];
	unsigned int nthreads;
	unsigned int users;
	bool stop;
} sched = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
	.par_done = PTHREAD_COND_INITIALIZER,
	.run = { &sched.run, &sched.run },
	.help = { &sched.help, &sched.help },
	.pool_lock = PTHREAD_MUTEX_INITIALIZER,
};

void hpusim_sched_lock(void)
{
	pthread_mutex_lock(&sched.lock);
}

void hpusim_sched_unlock(void)
{
	pthread_mutex_unlock(&sched.lock);
}

/**
 * struct hpusim_runner - what a thread running jobs hands to itself
 * @cs: submission of the job it executes now (compared, never followed)
 * @pend: queues of @cs its job woke, RUNNABLE but not signalled
 * @npend: entries of @pend
 *
 * A job that passes another queue's FENCE of its own submission mostly
 * parks or ends right after (the training library's handoffs: MSG_LONG
 * ADD, then FENCE on its own SOB). Waking an idle worker for the other
 * queue then costs a cross-CPU wake-up per handoff, while this thread is
 * about to be free: so the woken queue goes on the run list without a
 * signal and this thread runs it next. Should the job go on with engine
 * work instead, the signals are sent before that work starts, so no
 * queue waits for another's work.
 */
struct hpusim_runner {
	const struct hpusim_cs *cs;
	struct hpusim_queue *pend[HPU_MAX_JOBS_PER_CS];
	unsigned int npend;
};

/* The runner of this thread while it executes a job, else NULL */
static __thread struct hpusim_runner *cur_runner;

static void queue_make_runnable(struct hpusim_queue *q)
{
	q->state = HPUSIM_Q_RUNNABLE;
	hpusim_list_add_tail(&q->run_node, &sched.run);
	pthread_cond_signal(&sched.work);
}

/* Signal a worker for every queue @rn deferred; no lock needed */
static void runner_flush(struct hpusim_runner *rn)
{
	while (rn->npend) {
		rn->npend--;
		pthread_cond_signal(&sched.work);
	}
}

/* The head job of @q belongs to the submission this thread executes */
static bool runner_owns(const struct hpusim_runner *rn,
			const struct hpusim_queue *q)
{
	const struct hpusim_job *job;

	if (!rn || rn->npend == HPU_MAX_JOBS_PER_CS ||
	    hpusim_list_empty(&q->jobs))
		return false;
	job = hpusim_container_of(q->jobs.next, struct hpusim_job, node);
	return job->cs == rn->cs;
}

void hpusim_queue_wake(struct hpusim_queue *q)
{
	struct hpusim_job *job;

	if (q->state != HPUSIM_Q_PARKED) {
		q->woken = true;
		return;
	}
	/* between now and its next slice the job is queued, not parked */
	job = hpusim_container_of(q->jobs.next, struct hpusim_job, node);
	job->state = HPUSIM_JOB_QUEUED;
	if (!runner_owns(cur_runner, q)) {
		queue_make_runnable(q);
		return;
	}
	q->state = HPUSIM_Q_RUNNABLE;
	hpusim_list_add_tail(&q->run_node, &sched.run);
	cur_runner->pend[cur_runner->npend++] = q;
}

/*
 * Take back a queue this thread deferred, if it is still waiting for a
 * thread; signal a worker for every other. Sched lock held.
 */
static struct hpusim_queue *runner_take(struct hpusim_runner *rn)
{
	struct hpusim_queue *q = NULL;
	unsigned int i;

	for (i = 0; i < rn->npend; i++) {
		struct hpusim_queue *p = rn->pend[i];

		if (!q && p->state == HPUSIM_Q_RUNNABLE) {
			q = p;
			hpusim_list_del(&q->run_node);
			continue;
		}
		pthread_cond_signal(&sched.work);
	}
	rn->npend = 0;
	return q;
}

static void cs_mark_reset(struct hpusim_cs *cs, uint32_t engine)
{
	cs->reset[engine / 64] |= 1ULL << (engine % 64);
}

/* ------------------------------------------------------ interpreter */

static enum exec_result exec_fault(struct hpu_fw_fault *fault,
				   struct hpusim_queue *q, uint64_t addr,
				   bool is_write, enum exec_result r)
{
	fault->addr = addr;
	fault->engine = q->engine;
	fault->is_write = is_write;
	return r;
}

/*
 * An engine's -errno as the packet's end: -EFAULT is a page fault whose
 * address the engine filled in, anything else an engine error.
 */
static enum exec_result engine_err(struct hpu_fw_fault *fault,
				   struct hpusim_queue *q, int r)
{
	if (r == -EFAULT) {
		fault->engine = q->engine;
		return EXEC_FAULT;
	}
	return exec_fault(fault, q, 0, false, EXEC_ENGINE_ERR);
}

/* Charge @n bytes of work against @budget, down to 0 */
static void budget_take(uint64_t *budget, uint64_t n)
{
	*budget -= n < *budget ? n : *budget;
}

/*
 * Account @n bytes just moved by a chunked packet of @total bytes against
 * @budget. Return: true while the packet has bytes left (run it again).
 */
static bool job_advance(struct hpusim_job *job, uint64_t *budget, uint64_t n,
			uint64_t total)
{
	budget_take(budget, n);
	job->progress += n;
	return job->progress < total;
}

/* Packets that keep an engine busy (all but the sync and control ones) */
static bool packet_is_work(uint16_t opcode)
{
	switch (opcode) {
	case HPU_PACKET_LIN_DMA:
	case HPU_PACKET_MEMSET:
	case HPU_PACKET_MME_GEMM:
	case HPU_PACKET_TPC_KERNEL:
	case HPU_PACKET_NIC_WRITE:
		return true;
	default:
		return false;
	}
}

/* Run packets of @job until it ends, parks, faults or @budget runs out */
static enum exec_result job_exec(struct hpusim_job *job, uint64_t *budget,
				 struct hpu_fw_fault *fault)
{
	struct hpusim_cs *cs = job->cs;
	struct hpu_fw_as *as = cs->as;
	struct hpusim_queue *q = job->q;
	uint64_t fva;
	int64_t n;

	while (job->pc + sizeof(struct hpu_pkt_hdr) <= job->cb_size) {
		const struct hpu_pkt_hdr *h = (const void *)(job->cb + job->pc);
		uint64_t max;

		if (__atomic_load_n(&cs->stopping, __ATOMIC_ACQUIRE))
			return EXEC_STOPPED;
		if (!*budget)
			return EXEC_YIELD;
		if (h->size < sizeof(*h) || h->size > job->cb_size - job->pc)
			return exec_fault(fault, q, 0, false, EXEC_ENGINE_ERR);
		budget_take(budget, HPUSIM_PKT_COST);
		max = *budget > HPUSIM_DMA_CHUNK ? HPUSIM_DMA_CHUNK : *budget;
		if (!max)
			max = 1;

		/* engine work: the queues this job woke run meanwhile */
		if (cur_runner && cur_runner->npend &&
		    packet_is_work(h->opcode))
			runner_flush(cur_runner);

		switch (h->opcode) {
		case HPU_PACKET_NOP:
			break;
		case HPU_PACKET_STOP:
			job->pc = job->cb_size;
			return EXEC_DONE;
		case HPU_PACKET_LIN_DMA: {
			const struct hpu_pkt_lin_dma *p = (const void *)h;

			if (!q->is_dma || h->size != sizeof(*p))
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			if (!p->size)
				break;
			n = hpusim_dma_copy(as, p->dst_addr, p->src_addr,
					    p->size, job->progress,
					    *budget ? *budget : 1,
					    &cs->stopping, fault);
			if (n == -ECANCELED)
				return EXEC_STOPPED;
			if (n < 0) {
				fault->engine = q->engine;
				return EXEC_FAULT;
			}
			if (job_advance(job, budget, (uint64_t)n, p->size))
				continue;
			break;
		}
		case HPU_PACKET_MEMSET: {
			const struct hpu_pkt_memset *p = (const void *)h;
			uint32_t w =
				1U
				<< ((h->flags & HPU_MEMSET_F_ELEM_MASK) >> 8);

			if (!q->is_dma || h->size != sizeof(*p))
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			if (!p->size)
				break;
			n = hpusim_dma_memset(as, p->dst_addr, p->size,
					      p->value, w, job->progress, max,
					      fault);
			if (n < 0) {
				fault->engine = q->engine;
				return EXEC_FAULT;
			}
			if (job_advance(job, budget, (uint64_t)n, p->size))
				continue;
			break;
		}
		case HPU_PACKET_MSG_LONG: {
			const struct hpu_pkt_msg_long *p = (const void *)h;

			if (h->size != sizeof(*p) ||
			    p->sob_id >= HPU_FW_NUM_SOBS)
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			if (hpusim_sob_update(as, p->sob_id, p->op, p->value,
					      &fva))
				return exec_fault(fault, q, fva, true,
						  EXEC_FAULT);
			break;
		}
		case HPU_PACKET_FENCE: {
			const struct hpu_pkt_fence *p = (const void *)h;

			if (h->size != sizeof(*p) ||
			    p->sob_id >= HPU_FW_NUM_SOBS)
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			/* a waiter that is passed later has its dec applied */
			job->pc += h->size;
			job->progress = 0;
			if (!hpusim_fence_try(as, q, p))
				return EXEC_PARK;
			continue;
		}
		case HPU_PACKET_ARM_MONITOR: {
			const struct hpu_pkt_arm_monitor *p = (const void *)h;

			if (h->size != sizeof(*p) ||
			    p->mon_id >= HPU_NUM_MONITORS ||
			    p->sob_id >= HPU_FW_NUM_SOBS)
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			if (hpusim_monitor_arm(as, p, &fva))
				return exec_fault(fault, q, fva, true,
						  EXEC_FAULT);
			break;
		}
		case HPU_PACKET_MME_GEMM:
		case HPU_PACKET_TPC_KERNEL: {
			int r = h->opcode == HPU_PACKET_MME_GEMM ?
					hpusim_mme_exec(as, q->engine, h,
							fault) :
					hpusim_tpc_exec(as, q->engine, h,
							fault);

			if (r)
				return engine_err(fault, q, r);
			break;
		}
		case HPU_PACKET_NIC_WRITE: {
			const struct hpu_pkt_nic_write *p = (const void *)h;
			int r;

			if (h->size != sizeof(*p))
				return exec_fault(fault, q, 0, false,
						  EXEC_ENGINE_ERR);
			r = hpusim_nic_exec(as, q, h, &job->progress, fault);
			if (r == -EINPROGRESS)
				return EXEC_PARK; /* a scale-out answer wakes it */
			if (r)
				return engine_err(fault, q, r);
			budget_take(budget, p->size);
			break;
		}
		default:
			return exec_fault(fault, q, 0, false, EXEC_ENGINE_ERR);
		}
		job->pc += h->size;
		job->progress = 0;
	}
	return EXEC_DONE;
}

/* ------------------------------------------------------ submissions */

/* Unlink a job that ended or is dropped; sched lock held */
static void job_unlink(struct hpusim_job *job)
{
	hpusim_list_del(&job->node);
	job->state = HPUSIM_JOB_DONE;
	job->cs->jobs_left--;
}

/*
 * Report a submission that has no job left and free it; sched lock held,
 * dropped around the callbacks.
 */
static void cs_finish(struct hpusim_cs *cs)
{
	struct hpu_fw_as *as = cs->as;
	struct hpu_fw_device *dev = as->dev;
	bool failed = cs->result == HPU_FW_CS_PAGE_FAULT ||
		      cs->result == HPU_FW_CS_ENGINE_ERR;
	uint32_t e;

	hpusim_list_del(&cs->node);
	/* as_destroy waits for this: no callback outlives its address space */
	as->completing++;
	pthread_mutex_unlock(&sched.lock);
	for (e = 0; e < dev->num_engines; e++) {
		if (!(cs->reset[e / 64] & (1ULL << (e % 64))))
			continue;
		if (dev->cb.engine_reset)
			dev->cb.engine_reset(dev->cb.arg, e);
	}
	if (dev->cb.cs_done)
		dev->cb.cs_done(dev->cb.arg, cs->cookie, cs->result,
				failed ? &cs->fault : NULL,
				hpusim_now_ns(dev) - dev->t0_ns);
	free(cs->cbs);
	free(cs);
	pthread_mutex_lock(&sched.lock);
	as->completing--;
	pthread_cond_broadcast(&sched.idle);
}

/* A job ended; sched lock held (dropped if the submission completes) */
static void job_end(struct hpusim_job *job)
{
	struct hpusim_cs *cs = job->cs;

	job_unlink(job);
	if (cs->jobs_left)
		return;
	if (cs->aborting)
		pthread_cond_broadcast(&sched.idle); /* the aborter reports */
	else
		cs_finish(cs);
}

/* Leave a queue whose head job went away: run its next job or go idle */
static void queue_after_drop(struct hpusim_queue *q)
{
	if (!hpusim_list_empty(&q->jobs)) {
		queue_make_runnable(q);
		return;
	}
	q->state = HPUSIM_Q_IDLE;
	hpusim_engine_busy_end(q->dev, q->engine);
}

/*
 * Stop every job of @cs: queued and parked ones are dropped now, running
 * ones stop at their next chunk. Never completes @cs (a caller still
 * holds a job or owns the completion). Sched lock held.
 */
static void cs_stop(struct hpusim_cs *cs)
{
	unsigned int i;

	__atomic_store_n(&cs->stopping, true, __ATOMIC_RELEASE);
	for (i = 0; i < cs->njobs; i++) {
		struct hpusim_job *job = &cs->jobs[i];
		struct hpusim_queue *q = job->q;

		switch (job->state) {
		case HPUSIM_JOB_QUEUED:
			if (job->pc || job->progress)
				cs_mark_reset(cs, q->engine);
			job_unlink(job);
			break;
		case HPUSIM_JOB_PARKED:
			hpusim_fence_cancel(cs->as, q);
			q->woken = false;
			q->nic_wait = 0; /* its NIC answer is not awaited */
			cs_mark_reset(cs, q->engine);
			job_unlink(job);
			queue_after_drop(q);
			break;
		case HPUSIM_JOB_RUNNING:
			cs_mark_reset(cs, q->engine);
			break;
		case HPUSIM_JOB_DONE:
			break;
		}
	}
}

/* The first failure of a submission stops its other jobs */
static void cs_fail(struct hpusim_cs *cs, enum exec_result r,
		    const struct hpu_fw_fault *fault)
{
	if (cs->result != HPU_FW_CS_OK)
		return;
	cs->result = r == EXEC_FAULT ? HPU_FW_CS_PAGE_FAULT :
				       HPU_FW_CS_ENGINE_ERR;
	cs->fault = *fault;
	cs_mark_reset(cs, fault->engine);
	cs_stop(cs);
}

/*
 * Run @q's jobs, the queue claimed (RUNNING) by the caller; sched lock
 * held. @inline_cs: the fast path runs only that submission's jobs and
 * hands the queue to the pool for anything more. @rn collects the queues
 * of the running job's submission that its packets woke.
 */
static void queue_run(struct hpusim_queue *q, uint64_t slice,
		      struct hpusim_cs *inline_cs, struct hpusim_runner *rn)
{
	struct hpu_fw_fault fault;
	enum exec_result r;
	bool first = true;

	q->state = HPUSIM_Q_RUNNING;
	while (!hpusim_list_empty(&q->jobs)) {
		struct hpusim_job *job = hpusim_container_of(
			q->jobs.next, struct hpusim_job, node);
		struct hpusim_cs *cs = job->cs;
		uint64_t budget = slice;

		/* this thread stays here: what the last job woke goes on */
		if (!first)
			runner_flush(rn);
		first = false;

		/*
		 * Only compared: @inline_cs may be freed already, and a new
		 * submission at its address merely runs here too.
		 */
		if (inline_cs && cs != inline_cs) {
			queue_make_runnable(q);
			return;
		}
		if (cs->stopping) {
			job_end(job);
			continue;
		}
		job->state = HPUSIM_JOB_RUNNING;
		cs->running++;
		hpusim_engine_busy_begin(q->dev, q->engine);
		pthread_mutex_unlock(&sched.lock);
		memset(&fault, 0, sizeof(fault));
		rn->cs = cs;
		cur_runner = rn;
		r = job_exec(job, &budget, &fault);
		cur_runner = NULL;
		pthread_mutex_lock(&sched.lock);
		cs->running--;

		/* the job stays RUNNING for cs_stop() until it is dealt with */
		switch (r) {
		case EXEC_PARK:
			if (q->woken) {
				q->woken = false;
				break;
			}
			if (cs->stopping) {
				hpusim_fence_cancel(cs->as, q);
				q->woken = false;
				q->nic_wait = 0;
				job_end(job);
				break;
			}
			job->state = HPUSIM_JOB_PARKED;
			q->state = HPUSIM_Q_PARKED;
			pthread_cond_broadcast(&sched.idle);
			return;
		case EXEC_YIELD:
			if (!inline_cs && hpusim_list_empty(&sched.run))
				break;
			job->state = HPUSIM_JOB_QUEUED;
			queue_make_runnable(q);
			pthread_cond_broadcast(&sched.idle);
			return;
		case EXEC_FAULT:
		case EXEC_ENGINE_ERR:
			cs_fail(cs, r, &fault);
			job_end(job);
			break;
		case EXEC_DONE:
		case EXEC_STOPPED:
			job_end(job); /* may free @cs */
			break;
		}
	}
	q->state = HPUSIM_Q_IDLE;
	hpusim_engine_busy_end(q->dev, q->engine);
	pthread_cond_broadcast(&sched.idle); /* hpusim_queues_fini() */
}

/* ------------------------------------------------------ parallel slices */

unsigned int hpusim_par_width(void)
{
	unsigned int idle =
		__atomic_load_n(&sched.idle_workers, __ATOMIC_RELAXED);
	unsigned int n = __atomic_load_n(&sched.nthreads, __ATOMIC_RELAXED);

	return idle + 1 < n ? idle + 1 : (n ? n : 1);
}

/* Run one unclaimed slice of the first parallel job; sched lock held */
static void par_help(void)
{
	struct hpusim_par *par =
		hpusim_container_of(sched.help.next, struct hpusim_par, node);
	unsigned int i = __atomic_fetch_add(&par->next, 1, __ATOMIC_RELAXED);

	/* listed means alive: its runner unlists it before it returns */
	if (i + 1 >= par->nslices)
		hpusim_list_del(&par->node);
	if (i >= par->nslices)
		return;
	pthread_mutex_unlock(&sched.lock);
	par->fn(par->arg, i);
	pthread_mutex_lock(&sched.lock);
	par->helped++;
	pthread_cond_broadcast(&sched.par_done);
}

void hpusim_par_run(struct hpusim_par *par)
{
	unsigned int i, own = 0, wake;

	par->next = 0;
	par->helped = 0;
	hpusim_list_init(&par->node);
	if (par->nslices > 1) {
		pthread_mutex_lock(&sched.lock);
		hpusim_list_add_tail(&par->node, &sched.help);
		wake = par->nslices - 1;
		if (wake > sched.idle_workers)
			wake = sched.idle_workers;
		while (wake--)
			pthread_cond_signal(&sched.work);
		pthread_mutex_unlock(&sched.lock);
	}
	/* whatever no worker claimed runs here: the join never waits idle */
	while ((i = __atomic_fetch_add(&par->next, 1, __ATOMIC_RELAXED)) <
	       par->nslices) {
		par->fn(par->arg, i);
		own++;
	}
	if (par->nslices < 2)
		return;
	pthread_mutex_lock(&sched.lock);
	hpusim_list_del(&par->node);
	while (own + par->helped < par->nslices)
		pthread_cond_wait(&sched.par_done, &sched.lock);
	pthread_mutex_unlock(&sched.lock);
}

/* ------------------------------------------------------ workers */

static void *worker_main(void *arg)
{
	struct hpusim_runner rn = { 0 };

	pthread_mutex_lock(&sched.lock);
	for (;;) {
		struct hpusim_queue *q;

		while (!sched.stop && hpusim_list_empty(&sched.run) &&
		       hpusim_list_empty(&sched.help)) {
			/* atomic: hpusim_par_width() reads it unlocked */
			__atomic_add_fetch(&sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
			pthread_cond_wait(&sched.work, &sched.lock);
			__atomic_sub_fetch(&sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
		}
		if (!hpusim_list_empty(&sched.help)) {
			par_help();
			continue;
		}
		if (hpusim_list_empty(&sched.run))
			break;
		q = hpusim_container_of(sched.run.next, struct hpusim_queue,
					run_node);
		hpusim_list_del(&q->run_node);
		do
			queue_run(q, HPUSIM_SLICE_BYTES, NULL, &rn);
		while ((q = runner_take(&rn)));
	}
	pthread_mutex_unlock(&sched.lock);
	return NULL;
}

/* DMA bytes the packets of a job move; stops counting past @limit */
static uint64_t cb_dma_bytes(const uint8_t *cb, uint32_t size, uint64_t limit)
{
	uint64_t total = 0;
	uint32_t pc = 0;

	while (pc + sizeof(struct hpu_pkt_hdr) <= size && total <= limit) {
		const struct hpu_pkt_hdr *h = (const void *)(cb + pc);

		if (h->size < sizeof(*h))
			break;
		if (h->opcode == HPU_PACKET_LIN_DMA &&
		    h->size == sizeof(struct hpu_pkt_lin_dma))
			total += ((const struct hpu_pkt_lin_dma *)h)->size;
		else if (h->opcode == HPU_PACKET_MEMSET &&
			 h->size == sizeof(struct hpu_pkt_memset))
			total += ((const struct hpu_pkt_memset *)h)->size;
		else if (h->opcode == HPU_PACKET_NIC_WRITE &&
			 h->size == sizeof(struct hpu_pkt_nic_write))
			total += ((const struct hpu_pkt_nic_write *)h)->size;
		pc += h->size;
	}
	return total;
}

static struct hpusim_cs *cs_create(struct hpu_fw_as *as,
				   const struct hpu_fw_job *jobs,
				   unsigned int njobs, void *cookie,
				   uint64_t *dma_bytes)
{
	struct hpu_fw_device *dev = as->dev;
	struct hpusim_cs *cs;
	uint64_t total = 0, off = 0;
	unsigned int i;

	for (i = 0; i < njobs; i++) {
		if (jobs[i].queue >= dev->profile->num_queues ||
		    jobs[i].cb_size % 8 || (jobs[i].cb_size && !jobs[i].cb))
			return NULL;
		total += jobs[i].cb_size;
	}
	cs = calloc(1, sizeof(*cs) + njobs * sizeof(cs->jobs[0]));
	if (!cs)
		return NULL;
	cs->cbs = malloc(total ? total : 1);
	if (!cs->cbs) {
		free(cs);
		return NULL;
	}
	cs->as = as;
	cs->cookie = cookie;
	cs->njobs = njobs;
	cs->jobs_left = njobs;
	*dma_bytes = 0;
	for (i = 0; i < njobs; i++) {
		struct hpusim_job *job = &cs->jobs[i];

		job->cs = cs;
		job->q = &dev->queues[jobs[i].queue];
		job->cb = cs->cbs + off;
		job->cb_size = jobs[i].cb_size;
		if (job->cb_size)
			memcpy(job->cb, jobs[i].cb, job->cb_size);
		off += job->cb_size;
		if (*dma_bytes <= HPUSIM_INLINE_BYTES)
			*dma_bytes += cb_dma_bytes(job->cb, job->cb_size,
						   HPUSIM_INLINE_BYTES);
	}
	return cs;
}

int hpusim_cs_submit(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie)
{
	struct hpusim_queue *claimed[HPU_MAX_JOBS_PER_CS], *q;
	struct hpusim_runner rn = { 0 };
	unsigned int i, j, nclaimed = 0;
	struct hpusim_cs *cs;
	uint64_t dma_bytes;
	bool fast;

	if (!as || !jobs || !njobs || njobs > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	for (i = 0; i < njobs; i++)
		if (jobs[i].queue >= as->dev->profile->num_queues ||
		    jobs[i].cb_size % 8 || (jobs[i].cb_size && !jobs[i].cb))
			return -EINVAL;
	cs = cs_create(as, jobs, njobs, cookie, &dma_bytes);
	if (!cs)
		return -ENOMEM;

	pthread_mutex_lock(&sched.lock);
	hpusim_list_add_tail(&cs->node, &as->cs_list);
	fast = dma_bytes <= HPUSIM_INLINE_BYTES;
	for (i = 0; i < njobs && fast; i++)
		fast = cs->jobs[i].q->state == HPUSIM_Q_IDLE;
	for (i = 0; i < njobs; i++) {
		q = cs->jobs[i].q;
		hpusim_list_add_tail(&cs->jobs[i].node, &q->jobs);
		if (q->state != HPUSIM_Q_IDLE)
			continue;
		if (fast) {
			q->state = HPUSIM_Q_RUNNING;
			claimed[nclaimed++] = q;
		} else {
			queue_make_runnable(q);
		}
	}
	/*
	 * @cs may be freed by the first queue_run: use the claimed list.
	 * Then the queues its jobs woke, here too: a multi-queue submission
	 * with handoffs between its own queues runs to its end in this
	 * thread, unless it waits on something outside itself.
	 */
	for (j = 0; j < nclaimed; j++)
		queue_run(claimed[j], HPUSIM_SLICE_BYTES, cs, &rn);
	while ((q = runner_take(&rn)))
		queue_run(q, HPUSIM_SLICE_BYTES, cs, &rn);
	pthread_mutex_unlock(&sched.lock);
	return 0;
}

/* Abort @cs; sched lock held (dropped meanwhile). Return engines reset */
static int cs_abort_locked(struct hpusim_cs *cs)
{
	unsigned int i;
	int n = 0;

	cs->aborting = true;
	if (cs->result == HPU_FW_CS_OK)
		cs->result = HPU_FW_CS_ABORTED;
	cs_stop(cs);
	while (cs->jobs_left)
		pthread_cond_wait(&sched.idle, &sched.lock);
	for (i = 0; i < HPUSIM_MAX_ENGINES / 64; i++)
		n += __builtin_popcountll(cs->reset[i]);
	cs_finish(cs);
	return n;
}

int hpusim_cs_abort(struct hpu_fw_as *as, void *cookie)
{
	struct hpusim_list *pos;
	int ret = -ENOENT;

	if (!as)
		return -EINVAL;
	pthread_mutex_lock(&sched.lock);
	for (pos = as->cs_list.next; pos != &as->cs_list; pos = pos->next) {
		struct hpusim_cs *cs =
			hpusim_container_of(pos, struct hpusim_cs, node);

		if (cs->cookie == cookie && !cs->aborting) {
			ret = cs_abort_locked(cs);
			break;
		}
	}
	pthread_mutex_unlock(&sched.lock);
	return ret;
}

int hpusim_as_abort_all(struct hpu_fw_as *as)
{
	struct hpusim_list *pos;
	int n = 0;

	pthread_mutex_lock(&sched.lock);
	while (!hpusim_list_empty(&as->cs_list) || as->completing) {
		struct hpusim_cs *victim = NULL;

		for (pos = as->cs_list.next; pos != &as->cs_list;
		     pos = pos->next) {
			struct hpusim_cs *cs = hpusim_container_of(
				pos, struct hpusim_cs, node);

			if (!cs->aborting) {
				victim = cs;
				break;
			}
		}
		if (victim)
			n += cs_abort_locked(victim);
		else /* others abort or report what is left */
			pthread_cond_wait(&sched.idle, &sched.lock);
	}
	pthread_mutex_unlock(&sched.lock);
	return n;
}

/* Start the pool with the first device */
static int sched_get(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int want, i;
	int ret = 0;

	want = ncpu < 2 ? 2 :
			  (ncpu > HPUSIM_MAX_WORKERS ? HPUSIM_MAX_WORKERS :
						       (unsigned int)ncpu);
	pthread_mutex_lock(&sched.pool_lock);
	if (sched.users++) {
		pthread_mutex_unlock(&sched.pool_lock);
		return 0;
	}
	for (i = 0; i < want; i++) {
		ret = pthread_create(&sched.threads[i], NULL, worker_main,
				     NULL);
		if (ret)
			break;
		__atomic_add_fetch(&sched.nthreads, 1, __ATOMIC_RELAXED);
	}
	if (!sched.nthreads) {
		sched.users--;
		pthread_mutex_unlock(&sched.pool_lock);
		return -ret;
	}
	pthread_mutex_unlock(&sched.pool_lock);
	return 0;
}

/* Stop the pool with the last device */
static void sched_put(void)
{
	unsigned int i;

	pthread_mutex_lock(&sched.pool_lock);
	if (--sched.users) {
		pthread_mutex_unlock(&sched.pool_lock);
		return;
	}
	pthread_mutex_lock(&sched.lock);
	sched.stop = true;
	pthread_cond_broadcast(&sched.work);
	pthread_mutex_unlock(&sched.lock);
	for (i = 0; i < sched.nthreads; i++)
		pthread_join(sched.threads[i], NULL);
	__atomic_store_n(&sched.nthreads, 0, __ATOMIC_RELAXED);
	sched.stop = false;
	pthread_mutex_unlock(&sched.pool_lock);
}

/**
 * hpusim_queues_init() - a device's queues, and the pool
 * @dev: device with its profile set
 *
 * Return: 0 or -errno.
 */
int hpusim_queues_init(struct hpu_fw_device *dev)
{
	uint32_t i, n = dev->profile->num_queues;
	int ret;

	dev->queues = calloc(n, sizeof(*dev->queues));
	if (!dev->queues)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct hpusim_queue *q = &dev->queues[i];

		q->dev = dev;
		q->engine = i;
		q->is_dma = i < dev->profile->num_dma;
		hpusim_list_init(&q->jobs);
		hpusim_list_init(&q->run_node);
		hpusim_list_init(&q->wait_node);
	}
	ret = sched_get();
	if (ret) {
		free(dev->queues);
		dev->queues = NULL;
	}
	return ret;
}

/**
 * hpusim_queues_fini() - free a device's queues
 * @dev: device whose address spaces are all destroyed (no job is left)
 */
void hpusim_queues_fini(struct hpu_fw_device *dev)
{
	uint32_t i, n;

	if (!dev->queues)
		return;
	/*
	 * No job is left, but a queue emptied by an abort may still be on
	 * the run list, or a thread may be leaving it: wait for all to idle.
	 */
	pthread_mutex_lock(&sched.lock);
	do {
		for (i = 0, n = 0; i < dev->profile->num_queues; i++) {
			struct hpusim_queue *q = &dev->queues[i];

			if (q->state == HPUSIM_Q_RUNNABLE) {
				hpusim_list_del(&q->run_node);
				q->state = HPUSIM_Q_IDLE;
			}
			n += q->state != HPUSIM_Q_IDLE;
		}
		if (n)
			pthread_cond_wait(&sched.idle, &sched.lock);
	} while (n);
	pthread_mutex_unlock(&sched.lock);
	sched_put();
	free(dev->queues);
	dev->queues = NULL;
}
