// SPDX-License-Identifier: MIT
/*
 * cs.c - HPU_IOCTL_CS: a context's submission state and its CS history,
 * chunks to jobs, validation, sequence numbers, SIGNAL/WAIT submissions
 * built from the driver's own sync objects (docs/command-submission.md,
 * "CS"). The end of a CS (completion, timeouts) is cs_done.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_cs.h"
#include "hpu_mem.h"
#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"

/**
 * hfd_ctx_cs_init() - empty submission state for a compute context
 * @ctx: context
 *
 * Return: 0 or -errno.
 */
int hfd_ctx_cs_init(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->submit_lock, NULL);
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->idle, NULL);
	st->next_seq = 1;
	ctx->cs = st;
	return 0;
}

/**
 * hfd_ctx_cs_fini() - after the address space is destroyed (every CS got
 * its cs_done): wait until every ending is handled, answer the waits
 * left, free the state
 * @ctx: context
 */
void hfd_ctx_cs_fini(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_wait_dep *d;
	struct timespec ts;

	if (!st)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&st->lock);
	while (st->in_flight) {
		if (pthread_cond_timedwait(&st->idle, &st->lock, &ts)) {
			hfd_err("hpu%u: pid %d: %u CSs never ended; leaking them",
				ctx->dev->index, (int)ctx->pid, st->in_flight);
			break;
		}
	}
	pthread_mutex_unlock(&st->lock);
	hfd_wait_ctx_fini(ctx);
	/* work items still queued see ctx->as NULL and do nothing */
	pthread_mutex_lock(&st->submit_lock);
	pthread_mutex_lock(&st->lock);
	while ((d = st->deps)) {
		st->deps = d->next;
		free(d);
	}
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_unlock(&st->submit_lock);
}

/**
 * hfd_ctx_cs_free() - free the state once nothing can reach it
 * @ctx: context (last reference)
 */
void hfd_ctx_cs_free(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;

	if (!st)
		return;
	pthread_cond_destroy(&st->idle);
	pthread_mutex_destroy(&st->lock);
	pthread_mutex_destroy(&st->submit_lock);
	free(st->hist);
	free(st->outcomes);
	free(st);
	ctx->cs = NULL;
}

/**
 * hfd_cs_lookup_locked() - status of a sequence number of the context
 * @st: state (lock held)
 * @seq: sequence number
 * @status: receives HPU_WAIT_CS_STATUS_* (BUSY while in flight)
 * @ts: receives the completion time
 * @ts_valid: receives whether @ts is meaningful
 *
 * A CS older than the CS_HISTORY last ones reports COMPLETED, as the
 * habanalabs driver does for sequence numbers it no longer tracks; one
 * of the CS_OUTCOMES last that asked for a timestamp still gives its
 * status and time (the driver's outcome store).
 *
 * Return: 0, or -EINVAL for a number never issued in the context.
 */
int hfd_cs_lookup_locked(struct hfd_cs_state *st, uint64_t seq,
			 uint32_t *status, uint64_t *ts, bool *ts_valid)
{
	const struct hfd_cs_hist *h;
	struct hfd_cs *cs;
	unsigned int i;

	HPU_ASSERT_HELD(&st->lock);
	*ts = 0;
	*ts_valid = false;
	if (!seq || seq >= st->next_seq)
		return -EINVAL;
	for (cs = st->hash[seq % CS_HASH_SIZE]; cs; cs = cs->hnext) {
		if (cs->seq == seq) {
			*status = HPU_WAIT_CS_STATUS_BUSY;
			return 0;
		}
	}
	h = st->hist ? &st->hist[seq % CS_HISTORY] : NULL;
	if ((!h || h->seq != seq) && st->outcomes) {
		for (i = 0; i < CS_OUTCOMES; i++)
			if (st->outcomes[i].seq == seq)
				break;
		h = i < CS_OUTCOMES ? &st->outcomes[i] : NULL;
	}
	if (h && h->seq == seq) {
		*status = h->status;
		*ts = h->ts;
		*ts_valid = h->ts_valid;
	} else {
		*status = HPU_WAIT_CS_STATUS_COMPLETED;
	}
	return 0;
}

/**
 * struct cs_build - a submission being put together
 * @chunks: the chunk array copied from the caller
 * @n: chunks
 * @jobs: one job per chunk (WAIT: per chunk still waiting, see @njobs)
 * @njobs: jobs to submit
 * @refs: CB copies and pins (normal submissions)
 * @fences: synthesized FENCE packets (WAIT submissions)
 * @wait_seqs: per chunk, the sequence numbers it waits on (WAIT)
 * @hang: the FENCE that never passes, of an injected ENDLESS_COMMAND
 * @pf: the access to an unmapped address of an injected page fault
 * @raw: the chunks run bytes with no CB behind them (hfd_cs_desc.raw_cb)
 * @streams: each chunk's stream, or NULL (hfd_cs_desc.streams)
 */
struct cs_build {
	struct hpu_cs_chunk *chunks;
	unsigned int n;
	struct hpu_fw_job *jobs;
	unsigned int njobs;
	struct hfd_cb_ref *refs;
	struct hpu_pkt_fence *fences;
	uint64_t (*wait_seqs)[HPU_WAIT_MULTI_CS_MAX];
	struct hpu_pkt_fence hang;
	union {
		struct hpu_pkt_hdr hdr;
		struct hpu_pkt_memset memset;
		struct hpu_pkt_mme_gemm gemm;
		struct hpu_pkt_tpc_kernel tpc;
	} pf;
	bool raw;
	const uint8_t *streams;
};

static void build_free(struct cs_build *b)
{
	unsigned int i;

	if (b->refs)
		for (i = 0; i < b->n; i++)
			hfd_cb_put(&b->refs[i]);
	free(b->chunks);
	free(b->jobs);
	free(b->refs);
	free(b->fences);
	free(b->wait_seqs);
}

static const struct hpu_pkt_nop signal_nop = {
	.hdr = { .opcode = HPU_PACKET_NOP, .size = sizeof(struct hpu_pkt_nop) },
};

/* The shared chunk check, and the ioctl's own rule: WAIT numbers are
 * behind a user pointer */
static int check_chunk(const struct hfd_device *dev,
		       const struct hpu_cs_chunk *c, uint32_t cs_flags)
{
	if ((cs_flags & HPU_CS_FLAGS_WAIT) && !c->cb_handle)
		return -EINVAL;
	return hfd_cs_check_chunk(dev->profile->num_queues, c, cs_flags);
}

/*
 * Copy, pin and validate what every chunk runs; nothing is submitted.
 * WAIT numbers come from @seqs (chunk after chunk) or, when it is NULL,
 * from the user pointer in each chunk's cb_handle. A normal chunk's
 * bytes come from @cb_bytes (chunk after chunk, in daemon memory) or,
 * when it is NULL, out of its CB's creator.
 */
static int build_jobs(struct hfd_ctx *ctx, pid_t requester, uint32_t cs_flags,
		      const uint64_t *seqs, const uint8_t *cb_bytes,
		      struct cs_build *b)
{
	struct hfd_device *dev = ctx->dev;
	struct hpu_cs_chunk *c;
	unsigned int i;
	int ret;

	if (!b->n)
		return 0; /* a refused ring entry: no jobs */
	/* room for a hang's FENCE and a page fault's access in front
	 * (hang_locked(), page_fault_locked()) */
	b->jobs = calloc(b->n + 2, sizeof(*b->jobs));
	if (!b->jobs)
		return -ENOMEM;
	b->njobs = b->n;
	if (cs_flags & HPU_CS_FLAGS_WAIT) {
		b->fences = calloc(b->n, sizeof(*b->fences));
		b->wait_seqs = calloc(b->n, sizeof(*b->wait_seqs));
		if (!b->fences || !b->wait_seqs)
			return -ENOMEM;
	} else if (!(cs_flags & HPU_CS_FLAGS_SIGNAL) && !b->raw) {
		b->refs = calloc(b->n, sizeof(*b->refs));
		if (!b->refs)
			return -ENOMEM;
	}
	for (i = 0; i < b->n; i++) {
		c = &b->chunks[i];
		b->jobs[i].queue = c->queue_index;
		b->jobs[i].stream = b->streams ? b->streams[i] : 0;
		if (cs_flags & HPU_CS_FLAGS_SIGNAL) {
			b->jobs[i].cb = &signal_nop;
			b->jobs[i].cb_size = sizeof(signal_nop);
			continue;
		}
		if (cs_flags & HPU_CS_FLAGS_WAIT) {
			if (seqs) {
				memcpy(b->wait_seqs[i], seqs,
				       c->cb_size * sizeof(uint64_t));
				seqs += c->cb_size;
			} else {
				ret = hfd_copy_from_user(
					requester, b->wait_seqs[i],
					c->cb_handle,
					c->cb_size * sizeof(uint64_t));
				if (ret)
					return ret;
			}
			b->jobs[i].cb = &b->fences[i];
			b->jobs[i].cb_size = sizeof(b->fences[i]);
			continue;
		}
		if (b->raw) {
			b->jobs[i].cb = cb_bytes;
			b->jobs[i].cb_size = c->cb_size;
			cb_bytes += c->cb_size;
		} else {
			ret = hfd_cb_get(ctx, c->cb_handle, c->cb_size,
					 requester, cb_bytes, &b->refs[i]);
			if (ret)
				return ret;
			if (cb_bytes)
				cb_bytes += c->cb_size;
			b->jobs[i].cb = b->refs[i].bytes;
			b->jobs[i].cb_size = b->refs[i].size;
		}
		ret = hfd_packets_validate(
			b->jobs[i].cb, b->jobs[i].cb_size,
			hfd_queue_kind(dev->profile, c->queue_index), NULL);
		if (ret) {
			hfd_cs_count(&dev->cs_stats.parsing,
				     &ctx->cs_stats.parsing);
			return ret;
		}
	}
	return 0;
}

/*
 * WAIT: check every awaited number; give each chunk whose numbers have
 * not all ended an internal SOB and a FENCE job on it, and register what
 * it waits for. A chunk whose numbers all ended needs no job: b->njobs
 * counts the jobs left (0: the submission is complete at once).
 * st->lock held. Return: 0, -EINVAL (a number never issued), -ENOSPC (the
 * context has CS_NUM_INT_SOBS chunks waiting already) or -ENOMEM.
 */
static int wait_prepare_locked(struct hfd_cs_state *st, struct cs_build *b,
			       uint64_t seq, struct hfd_wait_dep **deps)
{
	struct hfd_wait_dep *d;
	unsigned int i, j, s = 0;
	HPU_ASSERT_HELD(&st->lock);
	uint32_t status;
	uint64_t ts;
	bool tsv;

	for (i = 0; i < b->n; i++)
		for (j = 0; j < b->chunks[i].cb_size; j++)
			if (hfd_cs_lookup_locked(st, b->wait_seqs[i][j],
						 &status, &ts, &tsv))
				return -EINVAL;
	b->njobs = 0;
	for (i = 0; i < b->n; i++) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		for (j = 0; j < b->chunks[i].cb_size; j++)
			if (hfd_cs_in_flight_locked(st, b->wait_seqs[i][j]))
				d->seqs[d->n++] = b->wait_seqs[i][j];
		if (!d->n) {
			free(d); /* nothing to wait for */
			continue;
		}
		while (s < CS_NUM_INT_SOBS && st->sob_owner[s])
			s++;
		if (s == CS_NUM_INT_SOBS) {
			free(d);
			return -ENOSPC;
		}
		d->owner_seq = seq;
		d->sob = HPU_NUM_SOBS + s;
		b->fences[i].hdr.opcode = HPU_PACKET_FENCE;
		b->fences[i].hdr.size = sizeof(b->fences[i]);
		b->fences[i].sob_id = d->sob;
		b->fences[i].target = 1;
		b->fences[i].dec = 1;
		b->jobs[b->njobs].queue = b->chunks[i].queue_index;
		b->jobs[b->njobs].stream = b->streams ? b->streams[i] : 0;
		b->jobs[b->njobs].cb = &b->fences[i];
		b->jobs[b->njobs].cb_size = sizeof(b->fences[i]);
		b->njobs++;
		st->sob_owner[s] = seq;
		d->next = *deps;
		*deps = d;
	}
	return 0;
}

static void release_wait_sobs_locked(struct hfd_cs_state *st, uint64_t seq)
{
	unsigned int i;

	HPU_ASSERT_HELD(&st->lock);

	for (i = 0; i < CS_NUM_INT_SOBS; i++)
		if (st->sob_owner[i] == seq)
			st->sob_owner[i] = 0;
}

/*
 * DEBUG INJECT_FAULT HPU_FAULT_ENGINE_HANG armed the device: this normal
 * CS gets, in front of its first job and on its queue, a FENCE on an
 * internal SOB nothing signals, so it ends only when its timeout aborts
 * it or a reset does. st->lock held; the SOB is freed when the CS ends
 * (cs_done.c). No free internal SOB: the injection stays armed.
 */
static void hang_locked(struct hfd_ctx *ctx, struct cs_build *b, uint64_t seq)
{
	struct hfd_cs_state *st = ctx->cs;
	unsigned int s;

	HPU_ASSERT_HELD(&st->lock);
	if (!b->njobs || b->njobs >= HPU_MAX_JOBS_PER_CS ||
	    !__atomic_load_n(&ctx->dev->hang_armed, __ATOMIC_ACQUIRE))
		return;
	for (s = 0; s < CS_NUM_INT_SOBS && st->sob_owner[s]; s++)
		;
	if (s == CS_NUM_INT_SOBS ||
	    !__atomic_exchange_n(&ctx->dev->hang_armed, false,
				 __ATOMIC_ACQ_REL))
		return;
	st->sob_owner[s] = seq;
	b->hang.hdr.opcode = HPU_PACKET_FENCE;
	b->hang.hdr.size = sizeof(b->hang);
	b->hang.sob_id = HPU_NUM_SOBS + s;
	b->hang.target = 1;
	b->hang.dec = 1;
	memmove(&b->jobs[1], &b->jobs[0], b->njobs * sizeof(b->jobs[0]));
	b->jobs[0].cb = &b->hang;
	b->jobs[0].cb_size = sizeof(b->hang);
	b->njobs++;
	hfd_warn("hpu%u: pid %d: CS %llu hangs (injected ENDLESS_COMMAND)",
		 ctx->dev->index, (int)ctx->pid, (unsigned long long)seq);
}

/* A packet of @kind's engine that reads or writes HPU_FAULT_PAGE_FAULT_ADDR */
static void page_fault_packet(struct cs_build *b, enum hfd_queue_kind kind)
{
	const uint64_t va = HPU_FAULT_PAGE_FAULT_ADDR;
	struct hpu_tpc_tensor *t;

	memset(&b->pf, 0, sizeof(b->pf));
	if (kind == HFD_QUEUE_DMA) {
		b->pf.memset.hdr.opcode = HPU_PACKET_MEMSET;
		b->pf.memset.hdr.size = sizeof(b->pf.memset);
		b->pf.memset.dst_addr = va;
		b->pf.memset.size = 8;
	} else if (kind == HFD_QUEUE_MME) {
		b->pf.gemm.hdr.opcode = HPU_PACKET_MME_GEMM;
		b->pf.gemm.hdr.size = sizeof(b->pf.gemm);
		b->pf.gemm.a_addr = va;
		b->pf.gemm.b_addr = va;
		b->pf.gemm.c_addr = va;
		b->pf.gemm.m = b->pf.gemm.n = b->pf.gemm.k = 1;
		b->pf.gemm.lda = b->pf.gemm.ldb = b->pf.gemm.ldc = 1;
		b->pf.gemm.batch = 1;
		b->pf.gemm.dtype_ab = HPU_DTYPE_FP32;
		b->pf.gemm.dtype_c = HPU_DTYPE_FP32;
		b->pf.gemm.alpha = 0x3f800000; /* 1.0f */
	} else {
		b->pf.tpc.hdr.opcode = HPU_PACKET_TPC_KERNEL;
		b->pf.tpc.hdr.size = sizeof(b->pf.tpc);
		b->pf.tpc.kernel_id = HPU_TPC_KERNEL_FILL;
		b->pf.tpc.num_tensors = 1;
		t = &b->pf.tpc.tensors[0];
		t->addr = va;
		t->dtype = HPU_DTYPE_FP32;
		t->ndims = 1;
		t->sizes[0] = 1;
		t->strides[0] = 1;
	}
}

/*
 * DEBUG INJECT_FAULT HPU_FAULT_PAGE_FAULT armed the device for an
 * engine: this normal CS gets, in front of its jobs, a job on that
 * engine's queue whose packet touches HPU_FAULT_PAGE_FAULT_ADDR, never
 * mapped. The model's MMU faults it like any bad address: the CS ends
 * with HPU_FW_CS_PAGE_FAULT and cs_done.c raises HPU_EVENT_PAGE_FAULT
 * (and, with --fatal-page-faults, the device needs a reset). st->lock
 * held.
 */
static void page_fault_locked(struct hfd_ctx *ctx, struct cs_build *b,
			      uint64_t seq)
{
	HPU_ASSERT_HELD(&ctx->cs->lock);
	uint32_t armed;

	if (!b->njobs || b->njobs >= HPU_MAX_JOBS_PER_CS ||
	    !__atomic_load_n(&ctx->dev->pf_armed, __ATOMIC_ACQUIRE))
		return;
	armed = __atomic_exchange_n(&ctx->dev->pf_armed, 0, __ATOMIC_ACQ_REL);
	if (!armed)
		return;
	page_fault_packet(b, hfd_queue_kind(ctx->dev->profile, armed - 1));
	memmove(&b->jobs[1], &b->jobs[0], b->njobs * sizeof(b->jobs[0]));
	b->jobs[0].queue = armed - 1;
	b->jobs[0].cb = &b->pf;
	b->jobs[0].cb_size = b->pf.hdr.size;
	b->njobs++;
	hfd_warn(
		"hpu%u: pid %d: CS %llu faults on engine %u (injected page fault)",
		ctx->dev->index, (int)ctx->pid, (unsigned long long)seq,
		armed - 1);
}

static struct hfd_cs *cs_alloc(struct hfd_ctx *ctx, uint32_t flags,
			       unsigned int nusage)
{
	struct hfd_cs *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	if (nusage) {
		cs->usage = calloc(nusage, sizeof(*cs->usage));
		if (!cs->usage) {
			free(cs);
			return NULL;
		}
	}
	hfd_ctx_get(ctx);
	cs->ctx = ctx;
	cs->flags = flags;
	cs->refs = 2;
	cs->timer.fn = hfd_cs_timeout_fn;
	return cs;
}

/*
 * Hand the built jobs to the model under a new sequence number.
 * submit_lock, reset_lock and as_lock are held.
 */
static int submit_locked(struct hfd_ctx *ctx, uint32_t cs_flags,
			 struct cs_build *b, struct hfd_cs *cs)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_wait_dep *deps = NULL, *d;
	HPU_ASSERT_HELD(&st->submit_lock);
	HPU_ASSERT_RWLOCK_HELD(&ctx->dev->reset_lock);
	HPU_ASSERT_RWLOCK_HELD(&ctx->as_lock);
	uint64_t seq;
	unsigned int i;
	int ret;

	pthread_mutex_lock(&st->lock);
	if (st->in_flight >= hfd_limit(HPU_CTX_LIMIT_CS_IN_FLIGHT)) {
		st->in_flight_full = true;
		pthread_mutex_unlock(&st->lock);
		hfd_cs_count(&ctx->dev->cs_stats.max_in_flight,
			     &ctx->cs_stats.max_in_flight);
		return -EAGAIN;
	}
	seq = st->next_seq;
	if (cs_flags & HPU_CS_FLAGS_WAIT) {
		ret = wait_prepare_locked(st, b, seq, &deps);
		if (ret) {
			release_wait_sobs_locked(st, seq);
			pthread_mutex_unlock(&st->lock);
			while ((d = deps)) {
				deps = d->next;
				free(d);
			}
			return ret;
		}
	}
	if (!(cs_flags & (HPU_CS_FLAGS_WAIT | HPU_CS_FLAGS_SIGNAL)) &&
	    !cs->ring_res) {
		page_fault_locked(ctx, b, seq);
		hang_locked(ctx, b, seq);
	}
	cs->seq = seq;
	st->next_seq++;
	st->in_flight++;
	cs->hnext = st->hash[cs->seq % CS_HASH_SIZE];
	st->hash[cs->seq % CS_HASH_SIZE] = cs;
	/*
	 * the SOBs start at 0 before their FENCE jobs are queued, and
	 * before an ending can raise them: a dependency is published with
	 * this lock held, and the ending that releases it raises the SOB
	 * under the same lock (cs_done.c)
	 */
	if (b->hang.hdr.size)
		CTX_OPS(ctx)->sob_write(ctx->as, b->hang.sob_id, HPU_MSG_OP_SET,
					0);
	if (cs_flags & HPU_CS_FLAGS_WAIT)
		for (i = 0; i < b->n; i++)
			if (b->fences[i].hdr.size)
				CTX_OPS(ctx)->sob_write(ctx->as,
							b->fences[i].sob_id,
							HPU_MSG_OP_SET, 0);
	while ((d = deps)) {
		deps = d->next;
		d->next = st->deps;
		st->deps = d;
	}
	pthread_mutex_unlock(&st->lock);
	if (b->refs) {
		/* the pins move to the CS; the copies go after submission */
		for (i = 0; i < b->n; i++) {
			cs->usage[cs->nusage++] = b->refs[i].usage;
			b->refs[i].usage = NULL;
		}
	}
	if (cs->ring_res) {
		/* a refused ring entry: its number ends ABORTED at once */
		hfd_cs_done_cb(ctx->dev, cs, HPU_FW_CS_ABORTED, NULL,
			       CTX_OPS(ctx)->device_time_ns(ctx->dev->fw));
		return 0;
	}
	hfd_cs_count(&ctx->dev->cs_submitted, &ctx->cs_submitted);
	if (!b->njobs) {
		/* a WAIT on numbers that all ended: complete at once */
		hfd_cs_done_cb(ctx->dev, cs, HPU_FW_CS_OK, NULL,
			       CTX_OPS(ctx)->device_time_ns(ctx->dev->fw));
		return 0;
	}
	ret = hfd_fw_cs_submit(ctx, b->jobs, b->njobs, cs, seq);
	if (ret) {
		/* the number is used up: it ends ABORTED */
		hfd_cs_done_cb(ctx->dev, cs, HPU_FW_CS_ABORTED, NULL,
			       hfd_now_ns());
	}
	return ret;
}

/**
 * hfd_cs_submit() - submit a CS described in daemon memory
 * @ctx: context
 * @requester: thread the submission is made for: whose memory WAIT
 *	pointers (@d->wait_seqs NULL) are read in, and whose CB copies need
 *	no liveness check when it created the CB (hfd_cb_get())
 * @d: the description; its values and every chunk must have passed
 *	hfd_cs_check_args() and hfd_cs_check_chunk() (the caller's copy:
 *	nothing here reads it twice from memory a client can change)
 * @seq: receives the sequence number
 * @completed: receives whether the CS ended before this returned
 *
 * The path both HPU_IOCTL_CS and the ring consumer take: CBs copied out
 * of their creators (or taken from @d->cb_bytes: a ring entry's CB arena
 * bytes) and validated, jobs built, a sequence number
 * assigned, the jobs handed to the model, the timeout armed.
 *
 * Return: 0, or -errno with nothing submitted (-EINVAL unknown CB
 * handle, bad packets or awaited number; -EFAULT; -ENOMEM; -EAGAIN the
 * cs_in_flight limit; -ENOSPC no free internal SOB, which the ioctl
 * answers -EAGAIN and the ring refuses at once; -ENODEV torn down; -EIO
 * killed by a hard reset; -EBUSY the device needs a hard reset, an
 * ioctl CS: a ring entry ends ABORTED instead), or
 * -errno with @seq set: the number was used up and the CS ended
 * ABORTED (the model refused the jobs).
 */
int hfd_cs_submit(struct hfd_ctx *ctx, pid_t requester,
		  const struct hfd_cs_desc *d, uint64_t *seq, bool *completed)
{
	struct hfd_device *dev = ctx->dev;
	struct hfd_cs_state *st = ctx->cs;
	struct cs_build b = { 0 };
	struct hfd_cs *cs = NULL;
	int32_t refuse = d->refuse;
	uint32_t timeout_ms;
	int ret;

	*seq = 0;
	*completed = false;
	/*
	 * A device that needs a hard reset takes no new work, as the
	 * habanalabs driver refuses a CS while the device is not
	 * operational: the ioctl gets -EBUSY, a ring entry ends ABORTED
	 */
	if (hfd_device_failed(dev)) {
		hfd_cs_count(&dev->cs_stats.in_reset, &ctx->cs_stats.in_reset);
		if (!d->ring)
			return -EBUSY;
		if (!refuse)
			refuse = -EBUSY;
	}
	b.n = refuse ? 0 : d->n;
	b.chunks = d->chunks;
	b.raw = d->raw_cb && d->cb_bytes;
	b.streams = d->streams;
	ret = build_jobs(ctx, requester, refuse ? 0 : d->cs_flags, d->wait_seqs,
			 d->cb_bytes, &b);
	if (!ret) {
		cs = cs_alloc(ctx, refuse ? 0 : d->cs_flags, b.refs ? b.n : 0);
		if (!cs)
			ret = -ENOMEM;
	}
	if (ret)
		goto out_free;
	cs->ring = d->ring;
	cs->ring_gen = d->ring_gen;
	cs->user_data = d->user_data;
	cs->ring_res = refuse;

	pthread_mutex_lock(&st->submit_lock);
	pthread_rwlock_rdlock(&dev->reset_lock);
	pthread_rwlock_rdlock(&ctx->as_lock);
	/* killed by a hard reset: nothing more reaches the device */
	if (hfd_ctx_is_dead(ctx))
		ret = -EIO;
	else if (ctx->as)
		ret = submit_locked(ctx, refuse ? 0 : d->cs_flags, &b, cs);
	else
		ret = -ENODEV;
	pthread_rwlock_unlock(&ctx->as_lock);
	pthread_rwlock_unlock(&dev->reset_lock);
	pthread_mutex_unlock(&st->submit_lock);
	if (ret && !cs->seq) {
		/* never submitted: neither callback nor timer knows it */
		free(cs->usage);
		free(cs);
		hfd_ctx_put(ctx);
		goto out_free;
	}

	/*
	 * A SIGNAL or WAIT submission only waits for earlier submissions,
	 * each with a timeout of its own, and ends when they end (also when
	 * they are aborted): without an explicit timeout it gets no timer,
	 * so a deep queue of healthy work never times it out.
	 */
	timeout_ms = d->timeout_ms ? d->timeout_ms : dev->cs_timeout_ms;
	if (refuse || (!d->timeout_ms && (d->cs_flags & (HPU_CS_FLAGS_SIGNAL |
							 HPU_CS_FLAGS_WAIT))))
		timeout_ms = 0;
	pthread_mutex_lock(&st->lock);
	*completed = cs->done;
	if (!cs->done && !cs->finalizing && timeout_ms)
		hfd_timer_arm(&cs->timer,
			      hfd_now_ns() + (uint64_t)timeout_ms * 1000000ULL);
	pthread_mutex_unlock(&st->lock);
	*seq = cs->seq;
	hfd_cs_put(cs);
out_free:
	b.chunks = NULL; /* the caller's */
	build_free(&b);
	return ret;
}

/**
 * hfd_ioctl_cs() - HPU_IOCTL_CS handler
 * @call: context and requesting thread
 * @data: union hpu_cs_args, updated in place
 *
 * Return: 0 or -errno (docs/command-submission.md, "CS").
 */
int hfd_ioctl_cs(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_cs_args *args = data;
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hpu_cs_in in = args->in;
	struct hfd_cs_desc d = { 0 };
	bool completed;
	unsigned int i;
	uint64_t seq;
	int ret;

	if (hfd_check_zero(&in.pad, sizeof(in.pad)) ||
	    hfd_check_zero(&in.reserved, sizeof(in.reserved)) ||
	    !in.chunks_execute ||
	    hfd_cs_check_args(in.cs_flags, in.num_chunks_execute,
			      in.timeout_ms))
		return -EINVAL;
	if (!ctx->cs || !hfd_device_has_cs(dev))
		return -EOPNOTSUPP;

	d.n = in.num_chunks_execute;
	d.cs_flags = in.cs_flags;
	d.timeout_ms = in.timeout_ms;
	d.chunks = calloc(d.n, sizeof(*d.chunks));
	if (!d.chunks)
		return -ENOMEM;
	ret = hfd_copy_from_user(call->pid, d.chunks, in.chunks_execute,
				 d.n * sizeof(*d.chunks));
	for (i = 0; !ret && i < d.n; i++)
		ret = check_chunk(dev, &d.chunks[i], in.cs_flags);
	if (!ret)
		ret = hfd_ring_submit_ordered(ctx, call->pid, &d, &seq,
					      &completed);
	if (ret == -ENOSPC)
		ret = -EAGAIN; /* no internal SOB: try again later */
	if (!ret) {
		memset(&args->out, 0, sizeof(args->out));
		args->out.seq = seq;
		args->out.status = HPU_CS_STATUS_SUCCESS;
		args->out.flags = completed ? HPU_CS_OUT_FLAG_COMPLETED : 0;
	}
	free(d.chunks);
	return ret;
}
