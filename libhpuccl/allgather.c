// SPDX-License-Identifier: MIT
/*
 * allgather.c - the allgather family: allgather (direct or ring) and its
 * table of algorithms (ccl_allgather_family), and the plan, chunking and
 * zero-copy sends broadcast shares (struct ccl_ag_plan)
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* The allgather's algorithms: rows of ag_algos[] */
enum ag_algo {
	AG_DIRECT,
	AG_RING,
};

int ccl_ag_plan_make(struct hpuccl_comm *c, const struct ccl_family *f,
		     struct ccl_ag_plan *x, uint64_t bytes, uint64_t *rounds)
{
	int ret;

	x->algo = ccl_algo_pick(c, f, bytes);
	ret = ccl_coll_maybe_zc(c, x->a.recv, bytes, &x->zc);
	if (ret)
		return ret;
	x->base = x->zc ? 1 : 0;
	*rounds = x->base + f->algos[x->algo].plan(c, x);
	return 0;
}

void ccl_ag_plan_chunks(struct ccl_ag_plan *x, bool big)
{
	x->se = x->a.se;
	if (x->zc && big && CCL_DIRECT_CHUNK_BYTES / x->a.esz > x->se)
		x->se = CCL_DIRECT_CHUNK_BYTES / x->a.esz;
	x->K = coll_div_up(x->a.count, x->se);
}

/* Send chunk bytes to @p: into its inbox, or straight to @roff of its
 * recvbuf */
void ccl_ag_send_to(struct hpuccl_comm *c, const struct ccl_ag_plan *x,
		    struct ccl_round *r, int p, uint64_t src, uint64_t len,
		    uint64_t roff)
{
	if (x->zc)
		ccl_add_send_direct(r, p, src, len, c->zc_key[p],
				    c->zc_off[p] + roff);
	else
		ccl_add_send(r, p, src, len);
}

/* Receive @count elements from @p for @out (copied out of the inbox) */
void ccl_ag_recv_from(const struct ccl_ag_plan *x, struct ccl_round *r, int p,
		      uint64_t out, uint64_t count)
{
	int m;

	if (x->zc) {
		ccl_add_recv_direct(r, p);
		return;
	}
	m = ccl_add_recv(r, p, count * x->a.esz);
	ccl_coll_copy_op(r, &x->a, out, m, 0, count);
}

/*
 * Direct: every rank sends its block to every peer, chunk by chunk.
 * Ring: step s sends block me-s (own from sendbuf at s = 0, else the one
 * received at step s-1, K rounds before) to the next rank and receives
 * block me-s-1 from the previous one. Zero copy: round 0 carries the
 * empty "ready" messages from every receiver to its writers, round
 * @base waits for them (ready_dep).
 */
static int gen_allgather(struct hpuccl_comm *c, void *arg, uint64_t j,
			 struct ccl_round *r)
{
	struct ccl_ag_plan *x = arg;
	const struct coll *a = &x->a;
	int n = c->nranks, me = c->rank, p, bs, br;
	uint64_t t, s, k, ls, lr;

	if (j == 0) {
		ccl_coll_copy_op(r, a, a->recv + x->boff[me] * a->esz, -1,
				 a->send, a->count);
		for (p = 0; x->zc && p < n; p++) {
			bool writer = x->algo == AG_DIRECT ?
					      p != me :
					      p == (me + n - 1) % n;
			bool writes = x->algo == AG_DIRECT ? p != me :
							     p == (me + 1) % n;

			if (writer)
				ccl_add_send(r, p, 0, 0);
			if (writes)
				ccl_add_recv(r, p, 0);
		}
	}
	if (j < x->base)
		return 0;
	t = j - x->base;
	r->ready_dep = (t == 0 && x->base) ||
		       (t && x->K < 2 && x->algo == AG_RING);
	if (x->algo == AG_DIRECT) {
		ls = coll_chunk_len(a->count, x->se, t);
		for (p = 0; p < n; p++) {
			if (p == me)
				continue;
			ccl_ag_send_to(c, x, r, p, a->send + t * x->se * a->esz,
				       ls * a->esz,
				       (x->boff[me] + t * x->se) * a->esz);
			ccl_ag_recv_from(x, r, p,
					 a->recv + (x->boff[p] + t * x->se) *
							   a->esz,
					 ls);
		}
		return 0;
	}
	s = t / x->K;
	k = t % x->K;
	bs = (me - (int)s + n) % n;
	br = (me - (int)s - 1 + 2 * n) % n;
	ls = lr = coll_chunk_len(a->count, x->se, k);
	ccl_ag_send_to(c, x, r, (me + 1) % n,
		       (s ? a->recv + x->boff[bs] * a->esz : a->send) +
			       k * x->se * a->esz,
		       ls * a->esz, (x->boff[bs] + k * x->se) * a->esz);
	ccl_ag_recv_from(x, r, (me + n - 1) % n,
			 a->recv + (x->boff[br] + k * x->se) * a->esz, lr);
	return 0;
}

/* The allgather's automatic choice: the ring across servers for more
 * than CCL_SMALL_BYTES */
static int ag_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	if (c->nranks <= 2 || c->nservers == 1 || bytes <= CCL_SMALL_BYTES)
		return AG_DIRECT;
	return AG_RING;
}

static uint64_t ag_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct ccl_ag_plan *x = arg;

	(void)c;
	ccl_ag_plan_chunks(x, true);
	return x->K;
}

static uint64_t ag_plan_ring(struct hpuccl_comm *c, void *arg)
{
	struct ccl_ag_plan *x = arg;

	ccl_ag_plan_chunks(x, false);
	return (uint64_t)(c->nranks - 1) * x->K;
}

static const struct ccl_algo ag_algos[] = {
	[AG_DIRECT] = { .name = "direct",
			.plan = ag_plan_direct,
			.gen = gen_allgather },
	[AG_RING] = { .name = "ring",
		      .plan = ag_plan_ring,
		      .gen = gen_allgather },
};

/* A forced name the allgather does not have (hier) runs the ring */
const struct ccl_family ccl_allgather_family = {
	.coll = "allgather",
	.algos = ag_algos,
	.nalgos = sizeof(ag_algos) / sizeof(ag_algos[0]),
	.other = AG_RING,
	.choose = ag_choose,
};

int ccl_allgather_run(uint64_t sendbuf, uint64_t recvbuf, size_t sendcount,
		      enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		      struct hpu_stream *stream)
{
	const struct ccl_family *f = &ccl_allgather_family;
	struct ccl_ag_plan x;
	uint64_t rounds;
	int ret;

	memset(&x, 0, sizeof(x));
	ret = ccl_coll_check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = ccl_coll_check_buf(sendbuf, sendcount, x.a.esz);
	if (!ret)
		ret = ccl_coll_check_buf(
			recvbuf, sendcount * (uint64_t)comm->nranks, x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !sendcount)
		return ret;
	ccl_coll_set(&x.a, sendbuf, recvbuf, sendcount, 0);
	ccl_coll_blocks_fixed(comm, sendcount, x.boff);
	ret = ccl_ag_plan_make(comm, f, &x,
			       sendcount * x.a.esz * (uint64_t)comm->nranks,
			       &rounds);
	if (ret)
		return ret;
	ccl_coll_note_algo(comm, f, x.algo, sendcount, x.zc);
	return ccl_run(comm, stream, rounds, f->algos[x.algo].gen, &x);
}
