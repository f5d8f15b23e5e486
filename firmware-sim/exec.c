// SPDX-License-Identifier: MIT
/*
 * exec.c - the packet interpreter: runs the packets of one job for one
 * turn of its queue, until the job ends, parks (FENCE, scale-out
 * answer), faults, is stopped, or the turn is used up (struct
 * hpusim_slice: bytes of work, and time, checked after every packet
 * that keeps an engine busy).
 */
#include <errno.h>
#include <time.h>

#include "queue.h"

/**
 * hpusim_mono_ns() - CLOCK_MONOTONIC now (turns are timed in real time,
 * never by a device's clock, which tests may stop)
 *
 * Return: ns.
 */
uint64_t hpusim_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The hpusim runner of this thread (queue.h) */
__thread struct hpusim_runner *hpusim_cur_runner;

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

/**
 * hpusim_job_exec() - run packets of a job for (part of) a turn
 * @job: job, RUNNING (no lock held)
 * @sl: what is left of the turn; charged for what runs
 * @fault: filled on EXEC_FAULT and EXEC_ENGINE_ERR
 *
 * Return: how the run ended (EXEC_YIELD: the turn is used up).
 */
enum exec_result hpusim_job_exec(struct hpusim_job *job,
				 struct hpusim_slice *sl,
				 struct hpu_fw_fault *fault)
{
	struct hpusim_cs *cs = job->cs;
	struct hpu_fw_as *as = cs->as;
	struct hpusim_queue *q = job->q;
	uint64_t *budget = &sl->budget;
	bool worked = false;
	uint64_t fva;
	int64_t n;

	while (job->pc + sizeof(struct hpu_pkt_hdr) <= job->cb_size) {
		const struct hpu_pkt_hdr *h = (const void *)(job->cb + job->pc);
		uint64_t max, total = 0;

		if (__atomic_load_n(&cs->stopping, __ATOMIC_ACQUIRE))
			return EXEC_STOPPED;
		/* work packets are timed too: a GEMM moves no DMA bytes */
		if (worked && *budget && hpusim_mono_ns() >= sl->end_ns)
			*budget = 0;
		worked = false;
		if (!*budget)
			return EXEC_YIELD;
		if (h->size < sizeof(*h) || h->size > job->cb_size - job->pc)
			return exec_fault(fault, q, 0, false, EXEC_ENGINE_ERR);
		budget_take(budget, HPUSIM_PKT_COST);
		max = *budget > HPUSIM_DMA_CHUNK ? HPUSIM_DMA_CHUNK : *budget;
		if (!max)
			max = 1;

		/* engine work: the queues this job woke run meanwhile */
		if (packet_is_work(h->opcode)) {
			worked = true;
			if (hpusim_cur_runner && hpusim_cur_runner->npend)
				hpusim_runner_flush(hpusim_cur_runner);
		}

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
			if (h->flags & HPU_LIN_DMA_F_SWAP_MASK)
				n = hpusim_dma_copy_swap(
					as, p->dst_addr, p->src_addr, p->size,
					hpusim_dma_swap_width(h->flags),
					job->progress, max, &cs->stopping,
					fault);
			else
				n = hpusim_dma_copy(as, p->dst_addr,
						    p->src_addr, p->size,
						    job->progress,
						    *budget ? *budget : 1,
						    &cs->stopping, fault);
			if (n == -ECANCELED)
				return EXEC_STOPPED;
			total = p->size;
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
			total = p->size;
			break;
		}
		case HPU_PACKET_MSG_LONG: {
			const struct hpu_pkt_msg_long *p = (const void *)h;

			if (h->size != sizeof(*p) ||
			    p->sob_id >= HPU_FW_NUM_SOBS ||
			    p->op > HPU_MSG_OP_LONG_ADD ||
			    (p->op >= HPU_MSG_OP_LONG_SET &&
			     p->sob_id > HPU_FW_NUM_SOBS - 4))
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
		/*
		 * LIN_DMA and MEMSET move their total bytes a chunk at a
		 * time: n is what this chunk moved, or a page fault whose
		 * address the DMA filled in; the packet runs again while it
		 * has bytes left
		 */
		if (total) {
			if (n < 0) {
				fault->engine = q->engine;
				return EXEC_FAULT;
			}
			if (job_advance(job, budget, (uint64_t)n, total))
				continue;
		}
		job->pc += h->size;
		job->progress = 0;
	}
	/* the next job of the queue starts with what is left of the turn */
	if (worked && *budget && hpusim_mono_ns() >= sl->end_ns)
		*budget = 0;
	return EXEC_DONE;
}
