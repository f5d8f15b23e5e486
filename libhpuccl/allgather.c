// SPDX-License-Identifier: MIT
/*
 * allgather.c - the allgather family: allgather (direct or ring) and the
 * plan, chunking and zero-copy sends broadcast shares (struct ccl_ag_plan)
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* Allgather or broadcast's algorithm: ring/chain across servers */
static int ag_choose(struct hpuccl_comm *c, uint64_t bytes)
{
	if (c->nranks <= 2)
		return CCL_ALGO_DIRECT;
	if (c->algo != CCL_ALGO_AUTO)
		return c->algo == CCL_ALGO_DIRECT ? CCL_ALGO_DIRECT :
						    CCL_ALGO_RING;
	if (c->nservers == 1 || bytes <= CCL_SMALL_BYTES)
		return CCL_ALGO_DIRECT;
	return CCL_ALGO_RING;
}

/*
 * Algorithm, zero copy and chunks of the allgather or broadcast in @x
 * (x->a filled in); @bytes: what lands in each rank's receive buffer
 */
int ccl_ag_plan_make(struct hpuccl_comm *c, struct ccl_ag_plan *x,
		     uint64_t bytes)
{
	int ret;

	x->algo = ag_choose(c, bytes);
	ret = ccl_coll_maybe_zc(c, x->a.recv, bytes, &x->zc);
	if (ret)
		return ret;
	x->se = x->a.se;
	if (x->zc && x->algo == CCL_ALGO_DIRECT &&
	    CCL_DIRECT_CHUNK_BYTES / x->a.esz > x->se)
		x->se = CCL_DIRECT_CHUNK_BYTES / x->a.esz;
	x->base = x->zc ? 1 : 0;
	x->K = coll_div_up(x->a.count, x->se);
	return 0;
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
			bool writer = x->algo == CCL_ALGO_DIRECT ?
					      p != me :
					      p == (me + n - 1) % n;
			bool writes = x->algo == CCL_ALGO_DIRECT ?
					      p != me :
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
		       (t && x->K < 2 && x->algo == CCL_ALGO_RING);
	if (x->algo == CCL_ALGO_DIRECT) {
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

int ccl_allgather_run(uint64_t sendbuf, uint64_t recvbuf, size_t sendcount,
		      enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		      struct hpu_stream *stream)
{
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
	ret = ccl_ag_plan_make(comm, &x,
			       sendcount * x.a.esz * (uint64_t)comm->nranks);
	if (ret)
		return ret;
	rounds = x.algo == CCL_ALGO_DIRECT ? x.K :
					     (uint64_t)(comm->nranks - 1) * x.K;
	ccl_coll_note_algo(comm, "allgather", x.algo, sendcount, x.zc);
	return ccl_run(comm, stream, x.base + rounds, gen_allgather, &x);
}
