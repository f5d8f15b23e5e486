// SPDX-License-Identifier: MIT
/*
 * queue.c - engine queues and the address spaces' queues on them.
 *
 * Every engine has one hardware queue (struct hpusim_engine_queue), and
 * every address space that sends work to the engine has a queue of its
 * own on it (struct hpusim_queue, made at its first job there, freed when
 * the address space's submissions are all aborted). Jobs of one address
 * space on one engine run in submission order; the engine serves its
 * READY address-space queues round robin, one turn each: a turn runs the
 * queue's jobs until it is empty, parks, or has used HPUSIM_SLICE_BYTES of
 * work or HPUSIM_SLICE_NS, then the next address space's queue has its
 * turn. A queue whose head job waits (FENCE on a sync object, scale-out
 * answer) is PARKED: it holds neither the engine nor a thread, and only
 * its own address space's later jobs on that engine wait behind it.
 *
 * An engine queue is IDLE, RUNNABLE (on the run list) or RUNNING (one
 * thread serves it). A thread that used up a turn while other engines
 * wait for a thread puts the engine back on the run list, so engines
 * share the pool too. Locking: queue.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"
#include "queue.h"
#include "trace.h"

/* How one turn of an address space's queue ended */
enum turn_end {
	TURN_EMPTY,  /* no job left: IDLE */
	TURN_PARKED, /* its head job waits: PARKED */
	TURN_USED,   /* the turn is used up; jobs are left */
	TURN_OTHER,  /* fast path: the head job is another submission's */
};

static void eq_make_runnable(struct hpusim_engine_queue *eq)
{
	eq->state = HPUSIM_EQ_RUNNABLE;
	hpusim_list_add_tail(&eq->run_node, &hpusim_sched.run);
	pthread_cond_signal(&hpusim_sched.work);
}

static struct hpusim_job *queue_head(const struct hpusim_queue *q)
{
	if (hpusim_list_empty(&q->jobs))
		return NULL;
	return hpusim_container_of(q->jobs.next, struct hpusim_job, node);
}

/* @q has jobs and waits for its turn on its engine */
static void queue_make_ready(struct hpusim_queue *q)
{
	q->state = HPUSIM_Q_READY;
	hpusim_list_add_tail(&q->ready_node, &q->eq->ready);
}

/* @q has no job left */
static void queue_go_idle(struct hpusim_queue *q)
{
	struct hpusim_engine_queue *eq = q->eq;

	q->state = HPUSIM_Q_IDLE;
	if (!--eq->active && eq->state == HPUSIM_EQ_IDLE)
		hpusim_engine_busy_end(eq->dev, eq->engine);
	pthread_cond_broadcast(&hpusim_sched.idle); /* queues_free */
}

/**
 * hpusim_runner_flush() - signal a worker for every engine @rn deferred
 * @rn: runner (no lock needed)
 */
void hpusim_runner_flush(struct hpusim_runner *rn)
{
	while (rn->npend) {
		rn->npend--;
		hpusim_sched_count(&hpusim_sched.st.handoff_pool, 1);
		pthread_cond_signal(&hpusim_sched.work);
	}
}

/*
 * The head job of @q may run on this thread after its job: it belongs to
 * the submission the thread executes, or (a pool worker) to its address
 * space. hpusim_runner_take() bounds a worker's chain.
 */
static bool runner_owns(const struct hpusim_runner *rn,
			const struct hpusim_queue *q)
{
	const struct hpusim_job *job = queue_head(q);

	if (!rn || rn->npend >= HPU_MAX_JOBS_PER_CS || !job)
		return false;
	if (job->cs == rn->cs)
		return true;
	return rn->as && rn->as == q->as && hpusim_sched.chain_max;
}

void hpusim_queue_wake(struct hpusim_queue *q)
{
	struct hpusim_engine_queue *eq = q->eq;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (q->state != HPUSIM_Q_PARKED) {
		q->woken = true;
		return;
	}
	/* between now and its next turn the job is queued, not parked */
	queue_head(q)->state = HPUSIM_JOB_QUEUED;
	queue_make_ready(q);
	if (eq->state != HPUSIM_EQ_IDLE)
		return; /* its engine gets to it */
	if (!runner_owns(hpusim_cur_runner, q)) {
		hpusim_sched_count(&hpusim_sched.st.handoff_pool, 1);
		eq_make_runnable(eq);
		return;
	}
	eq->state = HPUSIM_EQ_RUNNABLE;
	hpusim_list_add_tail(&eq->run_node, &hpusim_sched.run);
	hpusim_cur_runner->pend[hpusim_cur_runner->npend++] = eq;
}

/**
 * hpusim_runner_start() - a worker took an engine off the run list: a new
 * chain begins
 * @rn: the worker's runner
 */
void hpusim_runner_start(struct hpusim_runner *rn)
{
	rn->chained = 0;
	rn->chain_start_ns = 0; /* the start of its next turn */
}

/* Whether an engine that @rn did not wake waits on the run list */
static bool others_wait(const struct hpusim_runner *rn)
{
	struct hpusim_list *pos;
	unsigned int i;

	for (pos = hpusim_sched.run.next; pos != &hpusim_sched.run;
	     pos = pos->next) {
		for (i = 0; i < rn->npend; i++)
			if (pos == &rn->pend[i]->run_node)
				break;
		if (i == rn->npend)
			return true;
	}
	return false;
}

/*
 * Whether a worker's chain ends here (hpusim_chain_done()); a chain that
 * may go on because nothing else waits begins anew. The fast path's
 * chain (one submission, run by its submitter) is never cut.
 */
static bool runner_chain_done(struct hpusim_runner *rn)
{
	uint64_t elapsed;

	if (!rn->as)
		return false;
	elapsed = hpusim_mono_ns() - rn->chain_start_ns;
	/* the run list is walked only once the turns or the time are used */
	if (!hpusim_chain_done(rn->chained, hpusim_sched.chain_max, elapsed,
			       true))
		return false;
	if (others_wait(rn))
		return true;
	hpusim_runner_start(rn);
	return false;
}

/**
 * hpusim_runner_take() - take back an engine this thread deferred
 * @rn: runner (sched lock held)
 *
 * Signals a worker for every other deferred engine, and for all of them
 * when the chain of a worker is used up (they stay on the run list,
 * behind the engines that waited there before).
 *
 * Return: an engine queue still waiting for a thread (off the run list,
 * to run now), or NULL.
 */
struct hpusim_engine_queue *hpusim_runner_take(struct hpusim_runner *rn)
{
	struct hpusim_engine_queue *eq = NULL;
	bool done = rn->npend && runner_chain_done(rn);
	unsigned int i;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	for (i = 0; i < rn->npend; i++) {
		struct hpusim_engine_queue *p = rn->pend[i];

		if (!eq && !done && p->state == HPUSIM_EQ_RUNNABLE) {
			eq = p;
			hpusim_list_del(&eq->run_node);
			hpusim_sched_count(&hpusim_sched.st.handoff_thread, 1);
			rn->chained++;
			continue;
		}
		if (p->state == HPUSIM_EQ_RUNNABLE) {
			hpusim_sched_count(&hpusim_sched.st.handoff_pool, 1);
			if (done)
				hpusim_sched_count(&hpusim_sched.st.chain_cuts,
						   1);
		}
		pthread_cond_signal(&hpusim_sched.work);
	}
	rn->npend = 0;
	return eq;
}

/**
 * hpusim_queue_get() - an address space's queue on an engine, made on
 * first use
 * @as: address space
 * @index: queue (engine) index, valid for the device
 * @stream: its stream, below HPU_FW_STREAMS
 *
 * Sched lock held.
 *
 * Return: the queue, or NULL (out of memory).
 */
struct hpusim_queue *hpusim_queue_get(struct hpu_fw_as *as, uint32_t index,
				      uint32_t stream)
{
	struct hpu_fw_device *dev = as->dev;
	struct hpusim_queue *q;
	uint32_t slot = index * HPU_FW_STREAMS + stream;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (!as->queues) {
		as->queues = calloc(dev->profile->num_queues * HPU_FW_STREAMS,
				    sizeof(*as->queues));
		if (!as->queues)
			return NULL;
	}
	q = as->queues[slot];
	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->dev = dev;
	q->as = as;
	q->eq = &dev->eqs[index];
	q->engine = index;
	q->is_dma = index < dev->profile->num_dma;
	hpusim_list_init(&q->jobs);
	hpusim_list_init(&q->ready_node);
	hpusim_list_init(&q->wait_node);
	as->queues[slot] = q;
	return q;
}

/**
 * hpusim_queue_add_job() - put a new job at the end of its queue
 * @job: job with its queue set
 * @fast: claim an idle engine for the caller (the fast path)
 *
 * Sched lock held.
 *
 * Return: true when the caller claimed the job's engine (RUNNING): it
 * must run it with hpusim_engine_run().
 */
bool hpusim_queue_add_job(struct hpusim_job *job, bool fast)
{
	struct hpusim_queue *q = job->q;
	struct hpusim_engine_queue *eq = q->eq;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	job->state = HPUSIM_JOB_QUEUED;
	hpusim_list_add_tail(&job->node, &q->jobs);
	if (q->state != HPUSIM_Q_IDLE)
		return false; /* behind its own address space's jobs */
	eq->active++;
	queue_make_ready(q);
	if (eq->state != HPUSIM_EQ_IDLE)
		return false;
	if (fast) {
		eq->state = HPUSIM_EQ_RUNNING;
		return true;
	}
	hpusim_sched_count(&hpusim_sched.st.submit_pool, 1);
	eq_make_runnable(eq);
	return false;
}

/**
 * hpusim_queue_job_dropped() - a queued job of @q was dropped
 * @q: queue (sched lock held)
 */
void hpusim_queue_job_dropped(struct hpusim_queue *q)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (q->state != HPUSIM_Q_READY || !hpusim_list_empty(&q->jobs))
		return;
	hpusim_list_del(&q->ready_node);
	queue_go_idle(q);
}

/**
 * hpusim_queue_after_drop() - the parked head job of @q was dropped: its
 * next job waits for a turn, or it goes idle
 * @q: queue (sched lock held)
 */
void hpusim_queue_after_drop(struct hpusim_queue *q)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (hpusim_list_empty(&q->jobs)) {
		queue_go_idle(q);
		return;
	}
	queue_make_ready(q);
	if (q->eq->state == HPUSIM_EQ_IDLE)
		eq_make_runnable(q->eq);
}

/*
 * queue_run() with this thread's runner set. What one job woke waits for
 * this thread while the next job only syncs (its FENCE mostly parks it):
 * a work packet sends it to the pool first (exec.c).
 */
static enum turn_end queue_turn(struct hpusim_queue *q, struct hpusim_slice *sl,
				const struct hpusim_cs *inline_cs,
				struct hpusim_runner *rn)
{
	struct hpu_fw_fault fault;
	struct hpusim_job *job;
	enum exec_result r;

	while ((job = queue_head(q))) {
		struct hpusim_cs *cs = job->cs;

		/*
		 * Only compared: @inline_cs may be freed already, and a new
		 * submission at its address merely runs here too.
		 */
		if (inline_cs && cs != inline_cs)
			return TURN_OTHER;
		if (cs->stopping) {
			hpusim_job_end(job);
			continue;
		}
		if (!sl->budget) {
			job->state = HPUSIM_JOB_QUEUED;
			return TURN_USED;
		}
		job->state = HPUSIM_JOB_RUNNING;
		cs->running++;
		hpusim_engine_busy_begin(q->dev, q->engine);
		hpusim_trace_job_run(job);
		pthread_mutex_unlock(&hpusim_sched.lock);
		memset(&fault, 0, sizeof(fault));
		rn->cs = cs;
		r = hpusim_job_exec(job, sl, &fault);
		pthread_mutex_lock(&hpusim_sched.lock);
		cs->running--;

		/* the job stays RUNNING for cs_stop() until it is dealt with */
		switch (r) {
		case EXEC_PARK:
			/* a scale-out write may be pending: the NIC holds @q */
			if (q->nic_wait)
				q->nic_sent = true;
			if (q->woken) {
				q->woken = false;
				break;
			}
			if (cs->stopping) {
				hpusim_fence_cancel(cs->as, q);
				q->nic_wait = 0;
				hpusim_job_end(job);
				break;
			}
			job->state = HPUSIM_JOB_PARKED;
			q->state = HPUSIM_Q_PARKED;
			return TURN_PARKED;
		case EXEC_YIELD:
			job->state = HPUSIM_JOB_QUEUED;
			return TURN_USED;
		case EXEC_FAULT:
		case EXEC_ENGINE_ERR:
			hpusim_cs_fail(cs, r, &fault);
			hpusim_job_end(job);
			break;
		case EXEC_DONE:
		case EXEC_STOPPED:
			hpusim_job_end(job); /* may free @cs */
			break;
		}
	}
	queue_go_idle(q);
	return TURN_EMPTY;
}

/*
 * One turn of @q (RUNNING, off the ready list) on its engine; sched lock
 * held. @inline_cs: the fast path runs only that submission's jobs.
 * @rn collects the engines that the running job's submission woke.
 */
static enum turn_end queue_run(struct hpusim_queue *q, struct hpusim_slice *sl,
			       const struct hpusim_cs *inline_cs,
			       struct hpusim_runner *rn)
{
	struct hpusim_runner *prev = hpusim_cur_runner;
	enum turn_end end;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	/*
	 * Also while a job ends: a submission's end may release another
	 * (cs_done raising a WAIT submission's SOB), which is then this
	 * thread's to run. A callback's own cs_submit has a runner of its
	 * own and gives this one back.
	 */
	hpusim_cur_runner = rn;
	rn->as = inline_cs ? NULL : q->as;
	end = queue_turn(q, sl, inline_cs, rn);
	hpusim_cur_runner = prev;
	return end;
}

/**
 * hpusim_engine_run() - serve the ready queues of an engine, a turn each
 * @eq: engine queue claimed by the caller (off the run list)
 * @inline_cs: NULL, or the fast path's submission: only its jobs run
 *	here, anything else goes to the pool
 * @rn: the calling thread's runner
 *
 * Sched lock held (dropped while jobs run). Returns when no queue of the
 * engine is ready, or after a turn that used its slice while other engines
 * wait for a thread (the engine goes back on the run list).
 */
void hpusim_engine_run(struct hpusim_engine_queue *eq,
		       const struct hpusim_cs *inline_cs,
		       struct hpusim_runner *rn)
{
	struct hpusim_slice sl;
	uint64_t now;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	eq->state = HPUSIM_EQ_RUNNING;
	while (!hpusim_list_empty(&eq->ready)) {
		struct hpusim_queue *q = hpusim_container_of(
			eq->ready.next, struct hpusim_queue, ready_node);
		const struct hpusim_job *head = queue_head(q);

		if (!head) { /* its jobs were dropped */
			hpusim_list_del(&q->ready_node);
			queue_go_idle(q);
			continue;
		}
		if (inline_cs && head->cs != inline_cs)
			goto handoff;
		hpusim_list_del(&q->ready_node);
		q->state = HPUSIM_Q_RUNNING;
		sl.budget = HPUSIM_SLICE_BYTES;
		now = hpusim_mono_ns();
		sl.end_ns = now + HPUSIM_SLICE_NS;
		if (!rn->chain_start_ns)
			rn->chain_start_ns = now;
		switch (queue_run(q, &sl, inline_cs, rn)) {
		case TURN_EMPTY:
		case TURN_PARKED:
			break;
		case TURN_OTHER: /* it keeps its turn, in the pool */
			q->state = HPUSIM_Q_READY;
			/* before the first: at the head of the ready list */
			hpusim_list_add_tail(&q->ready_node, eq->ready.next);
			goto handoff;
		case TURN_USED: /* the next address space's turn */
			queue_make_ready(q);
			/*
			 * Alone on its engine, the fast path keeps going with
			 * a new slice: nobody waits for the turn, and its
			 * submitter ends it (a slow or loaded machine used
			 * to send it to the pool when a slice ran out).
			 */
			if (inline_cs && eq->ready.next == &q->ready_node &&
			    q->ready_node.next == &eq->ready)
				break;
			if (inline_cs || !hpusim_list_empty(&hpusim_sched.run))
				goto handoff;
			break;
		}
	}
	eq->state = HPUSIM_EQ_IDLE;
	if (!eq->active)
		hpusim_engine_busy_end(eq->dev, eq->engine);
	pthread_cond_broadcast(&hpusim_sched.idle); /* hpusim_queues_fini() */
	return;

handoff:
	eq_make_runnable(eq);
	pthread_cond_broadcast(&hpusim_sched.idle);
}

/* No queue of @q's address space needs it any more: free it */
static void queue_free(struct hpusim_queue *q)
{
	struct hpusim_nic *n = q->dev->nic;

	/* a scale-out answer must not find it */
	if (q->nic_sent && n && n->fab)
		hpusim_so_forget(n->fab, q);
	free(q);
}

/**
 * hpusim_as_queues_free() - free the queues of an address space that has
 * no submission left
 * @as: address space (no lock held)
 *
 * Waits until no thread is leaving one of them. A queue that got a job
 * meanwhile (a submission racing a reset) is kept.
 */
void hpusim_as_queues_free(struct hpu_fw_as *as)
{
	struct hpusim_queue **table = NULL, *q;
	struct hpusim_list gone, *pos, *next;
	uint32_t i, n = as->dev->profile->num_queues * HPU_FW_STREAMS;
	bool busy, keep = false;

	hpusim_list_init(&gone);
	pthread_mutex_lock(&hpusim_sched.lock);
	if (!as->queues) {
		pthread_mutex_unlock(&hpusim_sched.lock);
		return;
	}
	do {
		busy = false;
		for (i = 0; i < n; i++) {
			q = as->queues[i];
			if (!q || !hpusim_list_empty(&q->jobs))
				continue;
			if (q->state == HPUSIM_Q_READY) {
				hpusim_list_del(&q->ready_node);
				queue_go_idle(q);
			}
			busy |= q->state != HPUSIM_Q_IDLE;
		}
		if (busy)
			pthread_cond_wait(&hpusim_sched.idle,
					  &hpusim_sched.lock);
	} while (busy);
	for (i = 0; i < n; i++) {
		q = as->queues[i];
		if (!q)
			continue;
		if (!hpusim_list_empty(&q->jobs)) {
			keep = true;
			continue;
		}
		as->queues[i] = NULL;
		hpusim_list_add_tail(&q->ready_node, &gone);
	}
	if (!keep) {
		table = as->queues;
		as->queues = NULL;
	}
	pthread_mutex_unlock(&hpusim_sched.lock);
	free(table);
	for (pos = gone.next; pos != &gone; pos = next) {
		next = pos->next;
		queue_free(hpusim_container_of(pos, struct hpusim_queue,
					       ready_node));
	}
}

/**
 * hpusim_queues_init() - a device's engine queues, and the pool
 * @dev: device with its profile set
 *
 * Return: 0 or -errno.
 */
int hpusim_queues_init(struct hpu_fw_device *dev)
{
	uint32_t i, n = dev->profile->num_queues;
	int ret;

	dev->eqs = calloc(n, sizeof(*dev->eqs));
	if (!dev->eqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct hpusim_engine_queue *eq = &dev->eqs[i];

		eq->dev = dev;
		eq->engine = i;
		hpusim_list_init(&eq->ready);
		hpusim_list_init(&eq->run_node);
	}
	ret = hpusim_pool_get();
	if (ret) {
		free(dev->eqs);
		dev->eqs = NULL;
	}
	return ret;
}

/**
 * hpusim_queues_fini() - free a device's engine queues
 * @dev: device whose address spaces are all destroyed (no job is left)
 */
void hpusim_queues_fini(struct hpu_fw_device *dev)
{
	uint32_t i, n;

	if (!dev->eqs)
		return;
	/*
	 * No job is left, but an engine emptied by an abort may still be on
	 * the run list, or a thread may be leaving it: wait for all to idle.
	 */
	pthread_mutex_lock(&hpusim_sched.lock);
	do {
		for (i = 0, n = 0; i < dev->profile->num_queues; i++) {
			struct hpusim_engine_queue *eq = &dev->eqs[i];

			if (eq->state == HPUSIM_EQ_RUNNABLE) {
				hpusim_list_del(&eq->run_node);
				eq->state = HPUSIM_EQ_IDLE;
			}
			n += eq->state != HPUSIM_EQ_IDLE;
		}
		if (n)
			pthread_cond_wait(&hpusim_sched.idle,
					  &hpusim_sched.lock);
	} while (n);
	pthread_mutex_unlock(&hpusim_sched.lock);
	hpusim_pool_put();
	free(dev->eqs);
	dev->eqs = NULL;
}
