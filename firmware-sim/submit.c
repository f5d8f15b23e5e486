// SPDX-License-Identifier: MIT
/*
 * submit.c - submissions: their creation (a private copy of every job's
 * packets), how they complete, fail and are aborted.
 *
 * Every job goes on its address space's queue on the engine it names
 * (queue.c); a small submission to idle engines runs in the submitting
 * thread (the fast path), so its cs_done comes before cs_submit returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "trace.h"

static void cs_mark_reset(struct hpusim_cs *cs, uint32_t engine)
{
	cs->reset[engine / 64] |= 1ULL << (engine % 64);
}

/* Unlink a job that ended or is dropped; sched lock held */
static void job_unlink(struct hpusim_job *job)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

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

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	hpusim_list_del(&cs->node);
	/* as_destroy waits for this: no callback outlives its address space */
	as->completing++;
	pthread_mutex_unlock(&hpusim_sched.lock);
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
	pthread_mutex_lock(&hpusim_sched.lock);
	as->completing--;
	pthread_cond_broadcast(&hpusim_sched.idle);
}

/**
 * hpusim_job_end() - a job ended
 * @job: the job (its queue's head)
 *
 * Sched lock held; dropped meanwhile if the submission completes (which
 * frees it).
 */
void hpusim_job_end(struct hpusim_job *job)
{
	struct hpusim_cs *cs = job->cs;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	hpusim_trace_job_end(job);
	hpusim_model_busy_job_end(job);
	job_unlink(job);
	if (cs->jobs_left)
		return;
	if (cs->aborting)
		pthread_cond_broadcast(
			&hpusim_sched.idle); /* aborter reports */
	else
		cs_finish(cs);
}

/*
 * Stop every job of @cs: queued and parked ones are dropped now, running
 * ones stop at their next chunk. Never completes @cs (a caller still
 * holds a job or owns the completion). Sched lock held.
 */
static void cs_stop(struct hpusim_cs *cs)
{
	unsigned int i;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	__atomic_store_n(&cs->stopping, true, __ATOMIC_RELEASE);
	for (i = 0; i < cs->njobs; i++) {
		struct hpusim_job *job = &cs->jobs[i];
		struct hpusim_queue *q = job->q;

		switch (job->state) {
		case HPUSIM_JOB_QUEUED:
			if (job->pc || job->progress)
				cs_mark_reset(cs, q->engine);
			job_unlink(job);
			hpusim_queue_job_dropped(q);
			break;
		case HPUSIM_JOB_PARKED:
			hpusim_fence_cancel(cs->as, q);
			q->woken = false;
			q->nic_wait = 0; /* its NIC answer is not awaited */
			cs_mark_reset(cs, q->engine);
			job_unlink(job);
			hpusim_queue_after_drop(q);
			break;
		case HPUSIM_JOB_RUNNING:
			cs_mark_reset(cs, q->engine);
			break;
		case HPUSIM_JOB_DONE:
			break;
		}
	}
}

/**
 * hpusim_cs_fail() - the first failure of a submission stops its other jobs
 * @cs: submission (sched lock held)
 * @r: EXEC_FAULT or EXEC_ENGINE_ERR
 * @fault: what failed
 */
void hpusim_cs_fail(struct hpusim_cs *cs, enum exec_result r,
		    const struct hpu_fw_fault *fault)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (cs->result != HPU_FW_CS_OK)
		return;
	cs->result = r == EXEC_FAULT ? HPU_FW_CS_PAGE_FAULT :
				       HPU_FW_CS_ENGINE_ERR;
	cs->fault = *fault;
	cs_mark_reset(cs, fault->engine);
	cs_stop(cs);
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

/* A submission with its copies of the packets; its jobs have no queue yet */
static struct hpusim_cs *cs_create(struct hpu_fw_as *as,
				   const struct hpu_fw_job *jobs,
				   unsigned int njobs, void *cookie,
				   uint64_t *dma_bytes)
{
	struct hpusim_cs *cs;
	uint64_t total = 0, off = 0;
	unsigned int i;

	for (i = 0; i < njobs; i++)
		total += jobs[i].cb_size;
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
		job->cb = cs->cbs + off;
		job->cb_size = jobs[i].cb_size;
		hpusim_list_init(&job->node);
		if (job->cb_size)
			memcpy(job->cb, jobs[i].cb, job->cb_size);
		off += job->cb_size;
		if (*dma_bytes <= HPUSIM_INLINE_BYTES)
			*dma_bytes += cb_dma_bytes(job->cb, job->cb_size,
						   HPUSIM_INLINE_BYTES);
	}
	return cs;
}

static void cs_free(struct hpusim_cs *cs)
{
	free(cs->cbs);
	free(cs);
}

int hpusim_cs_submit_seq(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
			 unsigned int njobs, void *cookie, uint64_t seq)
{
	struct hpusim_engine_queue *claimed[HPU_MAX_JOBS_PER_CS], *eq;
	struct hpusim_runner rn = { 0 };
	unsigned int i, j, nclaimed = 0;
	struct hpusim_cs *cs;
	uint64_t dma_bytes;
	bool fast;

	if (!as || !jobs || !njobs || njobs > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	for (i = 0; i < njobs; i++)
		if (jobs[i].queue >= as->dev->profile->num_queues ||
		    jobs[i].stream >= HPU_FW_STREAMS || jobs[i].cb_size % 8 ||
		    (jobs[i].cb_size && !jobs[i].cb))
			return -EINVAL;
	cs = cs_create(as, jobs, njobs, cookie, &dma_bytes);
	if (!cs)
		return -ENOMEM;
	hpusim_trace_cs_submit(cs, seq);

	pthread_mutex_lock(&hpusim_sched.lock);
	for (i = 0; i < njobs; i++) {
		cs->jobs[i].q =
			hpusim_queue_get(as, jobs[i].queue, jobs[i].stream);
		if (!cs->jobs[i].q) {
			pthread_mutex_unlock(&hpusim_sched.lock);
			cs_free(cs);
			return -ENOMEM;
		}
	}
	hpusim_list_add_tail(&cs->node, &as->cs_list);
	/*
	 * Each job whose engine is idle (and its queue there) is claimed;
	 * the others queue behind their address space's work or wait for
	 * their engine (a WAIT submission's FENCE in front of a program
	 * left the program's other jobs to the pool: a worker woken only
	 * to park at their first FENCE).
	 */
	fast = dma_bytes <= HPUSIM_INLINE_BYTES;
	for (i = 0; i < njobs; i++)
		if (hpusim_queue_add_job(&cs->jobs[i], fast))
			claimed[nclaimed++] = cs->jobs[i].q->eq;
	/*
	 * @cs may be freed by the first engine run: use the claimed list.
	 * Then the engines its jobs woke, here too: a multi-queue submission
	 * with handoffs between its own queues runs to its end in this
	 * thread, unless it waits on something outside itself.
	 */
	for (j = 0; j < nclaimed; j++)
		hpusim_engine_run(claimed[j], cs, &rn);
	while ((eq = hpusim_runner_take(&rn)))
		hpusim_engine_run(eq, cs, &rn);
	pthread_mutex_unlock(&hpusim_sched.lock);
	return 0;
}

int hpusim_cs_submit(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie)
{
	return hpusim_cs_submit_seq(as, jobs, njobs, cookie, 0);
}

/* Start aborting @cs: its jobs stop or are dropped; sched lock held */
static void cs_abort_begin(struct hpusim_cs *cs)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

	cs->aborting = true;
	if (cs->result == HPU_FW_CS_OK)
		cs->result = HPU_FW_CS_ABORTED;
	cs_stop(cs);
}

/*
 * Finish aborting @cs once none of its jobs runs; sched lock held (dropped
 * meanwhile). Return: engines reset.
 */
static int cs_abort_end(struct hpusim_cs *cs)
{
	unsigned int i;
	int n = 0;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	while (cs->jobs_left)
		pthread_cond_wait(&hpusim_sched.idle, &hpusim_sched.lock);
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
	pthread_mutex_lock(&hpusim_sched.lock);
	for (pos = as->cs_list.next; pos != &as->cs_list; pos = pos->next) {
		struct hpusim_cs *cs =
			hpusim_container_of(pos, struct hpusim_cs, node);

		if (cs->cookie == cookie && !cs->aborting) {
			cs_abort_begin(cs);
			ret = cs_abort_end(cs);
			break;
		}
	}
	pthread_mutex_unlock(&hpusim_sched.lock);
	return ret;
}

int hpusim_as_abort_all(struct hpu_fw_as *as)
{
	struct hpusim_list *pos;
	int n = 0;

	pthread_mutex_lock(&hpusim_sched.lock);
	while (!hpusim_list_empty(&as->cs_list) || as->completing) {
		struct hpusim_cs *victim = NULL;

		/*
		 * Stop them all before reporting any: while a report drops
		 * the lock, no job queued behind a dropped one may run.
		 */
		for (pos = as->cs_list.next; pos != &as->cs_list;
		     pos = pos->next) {
			struct hpusim_cs *cs = hpusim_container_of(
				pos, struct hpusim_cs, node);

			if (!cs->aborting) {
				cs_abort_begin(cs);
				cs->purging = true;
			}
			if (cs->purging && !victim)
				victim = cs;
		}
		if (victim) {
			victim->purging = false; /* this thread reports it */
			n += cs_abort_end(victim);
		} else { /* others abort or report what is left */
			pthread_cond_wait(&hpusim_sched.idle,
					  &hpusim_sched.lock);
		}
	}
	pthread_mutex_unlock(&hpusim_sched.lock);
	/* nothing of it runs: its queues go (a later submission remakes them) */
	hpusim_as_queues_free(as);
	return n;
}
