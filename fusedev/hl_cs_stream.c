// SPDX-License-Identifier: MIT
/*
 * hl_cs_stream.c - the habanalabs personality's sync-stream CSs and the
 * room of its queues (docs/habanalabs.md, "Sync stream" and "Queue
 * room"): a SIGNAL CS on a Gaudi2 queue stream, a WAIT CS that holds a
 * stream until a SIGNAL CS has ended (the hpu SIGNAL and WAIT CSs), and
 * the 4096 entries of each queue's PQ, whose lack fails a CS with
 * -EAGAIN and counts a queue-full drop, as the real driver.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hpu_cs.h"
#include "hpu_fused_ring.h"

/* A Gaudi2 queue's PQ entries (the real driver's HL_QUEUE_LENGTH) */
#define HL_PQ_LENGTH 4096

/* The last sequence numbers whose CS type is remembered (SIGNAL or not) */
#define HL_SIG_WINDOW 1024

/**
 * struct hl_pq_rec - the PQ entries a CS in flight holds
 * @next: the context's next such CS
 * @seq: its sequence number
 * @n: entries at @use
 * @use: per queue, its jobs there
 */
struct hl_pq_rec {
	struct hl_pq_rec *next;
	uint64_t seq;
	uint32_t n;
	struct {
		uint16_t qid;
		uint16_t jobs;
	} use[];
};

/**
 * struct hfd_hl_stream - a context's queue room and SIGNAL CSs
 * @lock: protects all below; held from a CS's room check to its
 *	submission, so a context's CSs take room in submission order
 * @used: PQ entries in use, per Gaudi2 queue
 * @recs: the CSs holding them (ended ones are dropped at the next check)
 * @sig_seq: @sig_seq[s % HL_SIG_WINDOW] == s: CS s is a SIGNAL CS
 */
struct hfd_hl_stream {
	pthread_mutex_t lock;
	uint32_t used[HL_GAUDI2_QUEUE_ID_SIZE];
	struct hl_pq_rec *recs;
	uint64_t sig_seq[HL_SIG_WINDOW];
};

static pthread_mutex_t stream_new_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * hfd_hl_stream_get() - the context's queue room, made on its first CS
 * @ctx: a compute context of the personality
 *
 * Return: the state, or NULL (-ENOMEM).
 */
struct hfd_hl_stream *hfd_hl_stream_get(struct hfd_ctx *ctx)
{
	struct hfd_hl_stream *s;

	pthread_mutex_lock(&stream_new_lock);
	if (!ctx->hl_stream) {
		s = calloc(1, sizeof(*s));
		if (s && pthread_mutex_init(&s->lock, NULL)) {
			free(s);
			s = NULL;
		}
		ctx->hl_stream = s;
	}
	s = ctx->hl_stream;
	pthread_mutex_unlock(&stream_new_lock);
	return s;
}

/**
 * hfd_hl_stream_free() - free a context's queue room (at its release)
 * @s: the state, or NULL
 */
void hfd_hl_stream_free(struct hfd_hl_stream *s)
{
	struct hl_pq_rec *r;

	if (!s)
		return;
	while ((r = s->recs)) {
		s->recs = r->next;
		free(r);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/**
 * hfd_hl_stream_lock() - take a context's queue room, from a CS's room
 * check to its submission
 * @s: the state
 */
void hfd_hl_stream_lock(struct hfd_hl_stream *s)
{
	pthread_mutex_lock(&s->lock);
}

/**
 * hfd_hl_stream_unlock() - release hfd_hl_stream_lock()
 * @s: the state
 */
void hfd_hl_stream_unlock(struct hfd_hl_stream *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Give back the entries of the CSs that ended. s->lock held */
static void pq_prune_locked(struct hfd_ctx *ctx, struct hfd_hl_stream *s)
{
	struct hl_pq_rec **pp = &s->recs, *r;
	uint32_t i;

	pthread_mutex_lock(&ctx->cs->lock);
	while ((r = *pp)) {
		if (hfd_cs_in_flight_locked(ctx->cs, r->seq)) {
			pp = &r->next;
			continue;
		}
		for (i = 0; i < r->n; i++)
			s->used[r->use[i].qid] -= r->use[i].jobs;
		*pp = r->next;
		free(r);
	}
	pthread_mutex_unlock(&ctx->cs->lock);
}

/**
 * hfd_hl_pq_reserve_locked() - check that the queues have room for a CS
 * @ctx: the CS's context
 * @s: its queue room (lock held)
 * @qids: the Gaudi2 queue of each job (valid queue ids)
 * @n: jobs
 * @rec: receives what the CS will hold, for hfd_hl_pq_commit_locked()
 *	(or free() when the CS is not submitted)
 *
 * Return: 0; -EAGAIN when a queue has fewer free PQ entries than the CS
 * has jobs on it (a queue-full drop is counted, as the real driver's
 * hl_hw_queue_schedule_cs()); -ENOMEM.
 */
int hfd_hl_pq_reserve_locked(struct hfd_ctx *ctx, struct hfd_hl_stream *s,
			     const uint32_t *qids, uint32_t n,
			     struct hl_pq_rec **rec)
{
	struct hl_pq_rec *r, *shrunk;
	uint32_t i, j;

	*rec = NULL;
	pq_prune_locked(ctx, s);
	r = calloc(1, sizeof(*r) + n * sizeof(r->use[0]));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = 0; j < r->n && r->use[j].qid != qids[i]; j++)
			;
		if (j == r->n) {
			r->use[j].qid = (uint16_t)qids[i];
			r->n++;
		}
		r->use[j].jobs++;
	}
	/* keep what a CS in flight holds small: its distinct queues only */
	shrunk = realloc(r, sizeof(*r) + r->n * sizeof(r->use[0]));
	if (shrunk)
		r = shrunk;
	for (j = 0; j < r->n; j++) {
		if (s->used[r->use[j].qid] + r->use[j].jobs > HL_PQ_LENGTH) {
			free(r);
			hfd_cs_count(&ctx->dev->cs_stats.queue_full,
				     &ctx->cs_stats.queue_full);
			return -EAGAIN;
		}
	}
	*rec = r;
	return 0;
}

/**
 * hfd_hl_pq_commit_locked() - the submitted CS @seq holds its entries
 * @s: the context's queue room (lock held)
 * @r: hfd_hl_pq_reserve_locked()'s record, taken over
 * @seq: the CS's sequence number
 */
void hfd_hl_pq_commit_locked(struct hfd_hl_stream *s, struct hl_pq_rec *r,
			     uint64_t seq)
{
	uint32_t i;

	r->seq = seq;
	for (i = 0; i < r->n; i++)
		s->used[r->use[i].qid] += r->use[i].jobs;
	r->next = s->recs;
	s->recs = r;
}

/*
 * WAIT: whether CS @seq is one to wait for. Return: 1 wait for it; 0 it
 * ended (or is older than the CSs whose type is remembered, so it ended:
 * the real driver's "fence gone"); -EINVAL a number never issued or,
 * among the last HL_SIG_WINDOW, not a SIGNAL CS. s->lock held.
 */
static int wait_target_locked(struct hfd_ctx *ctx, struct hfd_hl_stream *s,
			      uint64_t seq)
{
	struct hfd_cs_state *st = ctx->cs;
	uint32_t status;
	bool in_flight, tsv;
	uint64_t next, ts;
	int ret;

	pthread_mutex_lock(&st->lock);
	ret = hfd_cs_lookup_locked(st, seq, &status, &ts, &tsv);
	in_flight = !ret && hfd_cs_in_flight_locked(st, seq);
	next = st->next_seq;
	pthread_mutex_unlock(&st->lock);
	if (ret)
		return -EINVAL;
	if (seq + HL_SIG_WINDOW > next &&
	    s->sig_seq[seq % HL_SIG_WINDOW] != seq)
		return -EINVAL;
	return in_flight ? 1 : 0;
}

/* The sync-stream CS flags the model serves with SIGNAL or WAIT */
#define HL_STREAM_FLAGS                                                      \
	(HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT | HL_CS_FLAGS_FORCE_RESTORE | \
	 HL_CS_FLAGS_TIMESTAMP | HL_CS_FLAGS_CUSTOM_TIMEOUT |                \
	 HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT)

/**
 * hfd_hl_cs_stream() - a SIGNAL or WAIT CS (sync stream)
 * @call: context and requesting thread
 * @args: the CS request (one of HL_CS_FLAGS_SIGNAL, HL_CS_FLAGS_WAIT),
 *	answered in place
 *
 * One chunk: its `queue_index` is the stream. SIGNAL ends when the work
 * submitted to the stream before it has; WAIT (`cb_handle` is the real
 * header's `signal_seq_arr`, `cb_size` its `num_signal_seq_arr`, which
 * must be 1) holds the stream until the SIGNAL CS it names has ended.
 * A WAIT on a SIGNAL CS that ended already submits nothing and answers
 * sequence number ULLONG_MAX, as the real driver. The restore chunks
 * are not read. `sob_base_addr_offset` and
 * `sob_count_before_submission` are 0: no SOB of the sync manager backs
 * the model's signal.
 *
 * Return: 0; -EINVAL for other flags (encapsulated signals), not one
 * chunk, a queue that is not a PDMA/EDMA/MME/TPC stream of the profile,
 * `num_signal_seq_arr` not 1, a number never issued or not a SIGNAL CS;
 * -EFAULT for a chunk or sequence array that cannot be read; -EAGAIN
 * the queue's PQ is full or too many CSs are in flight; -EBUSY, -EIO,
 * -ENOMEM as the execute CS.
 */
int hfd_hl_cs_stream(const struct hfd_ioctl_call *call, union hl_cs_args *args)
{
	struct hl_cs_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	const struct hpu_fw_profile *p = ctx->dev->profile;
	bool wait = in.cs_flags & HL_CS_FLAGS_WAIT;
	struct hpu_cs_chunk h = { 0 };
	struct hfd_cs_desc d = { 0 };
	struct hl_pq_rec *rec = NULL;
	struct hfd_hl_stream *s;
	struct hl_cs_chunk c;
	uint64_t sig = 0, seq;
	uint8_t stream;
	int queue, ret;

	if ((in.cs_flags & ~HL_STREAM_FLAGS) || in.num_chunks_execute != 1)
		return -EINVAL;
	if (!in.chunks_execute ||
	    hfd_copy_from_user(call->pid, &c, in.chunks_execute, sizeof(c)))
		return -EFAULT;
	queue = hfd_hl_queue(p, c.queue_index);
	if (queue < 0 || c.queue_index >= HL_GAUDI2_QUEUE_ID_NIC_0_0)
		return -EINVAL;
	if (wait) {
		if (c.cb_size != 1)
			return -EINVAL;
		if (!c.cb_handle ||
		    hfd_copy_from_user(call->pid, &sig, c.cb_handle,
				       sizeof(sig)))
			return -EFAULT;
	}
	s = hfd_hl_stream_get(ctx);
	if (!s)
		return -ENOMEM;

	pthread_mutex_lock(&s->lock);
	if (wait) {
		ret = wait_target_locked(ctx, s, sig);
		if (ret <= 0) {
			if (!ret) {
				/* ended: nothing to wait for */
				memset(args, 0, sizeof(*args));
				args->out.seq = ~0ULL;
				args->out.status = HL_CS_STATUS_SUCCESS;
			}
			goto out;
		}
	}
	ret = hfd_hl_pq_reserve_locked(ctx, s, &c.queue_index, 1, &rec);
	if (ret)
		goto out;
	stream = (uint8_t)hfd_hl_stream_of(p, c.queue_index);
	h.queue_index = (uint32_t)queue;
	h.cb_size = wait ? 1 : 0;
	d.chunks = &h;
	d.n = 1;
	d.streams = &stream;
	d.wait_seqs = wait ? &sig : NULL;
	d.cs_flags = wait ? HPU_CS_FLAGS_WAIT : HPU_CS_FLAGS_SIGNAL;
	ret = hfd_hl_cs_submit(call, args, &d);
	if (ret) {
		free(rec);
		goto out;
	}
	seq = args->out.seq;
	hfd_hl_pq_commit_locked(s, rec, seq);
	if (!wait)
		s->sig_seq[seq % HL_SIG_WINDOW] = seq;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}
