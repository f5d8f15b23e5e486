// SPDX-License-Identifier: MIT
/*
 * alltoall.c - alltoall: every rank's block for every peer, chunk by chunk;
 * its table of algorithms (ccl_alltoall_family)
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* Arguments of an alltoall and the element offset of each rank's block */
struct a2a_arg {
	struct coll a;
	uint64_t boff[AR_MAX];
};

static int gen_alltoall(struct hpuccl_comm *c, void *arg, uint64_t j,
			struct ccl_round *r)
{
	struct a2a_arg *x = arg;
	const struct coll *a = &x->a;
	int p, me = c->rank;
	uint64_t l = coll_chunk_len(a->count, a->se, j);

	if (j == 0)
		ccl_coll_copy_op(r, a, a->recv + x->boff[me] * a->esz, -1,
				 a->send + x->boff[me] * a->esz, a->count);
	for (p = 0; p < c->nranks; p++) {
		uint64_t off = (x->boff[p] + j * a->se) * a->esz;
		int m;

		if (p == me)
			continue;
		ccl_add_send(r, p, a->send + off, l * a->esz);
		m = ccl_add_recv(r, p, l * a->esz);
		ccl_coll_copy_op(r, a, a->recv + off, m, 0, l);
	}
	return 0;
}

/* The alltoall's one algorithm: direct, a chunk of every block a round */
static uint64_t a2a_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct a2a_arg *x = arg;

	ccl_coll_blocks_fixed(c, x->a.count, x->boff);
	return coll_div_up(x->a.count, x->a.se);
}

static int a2a_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	(void)c;
	(void)bytes;
	return 0;
}

static const struct ccl_algo a2a_algos[] = {
	{ .name = "direct", .plan = a2a_plan_direct, .gen = gen_alltoall },
};

const struct ccl_family ccl_alltoall_family = {
	.coll = "alltoall",
	.algos = a2a_algos,
	.nalgos = sizeof(a2a_algos) / sizeof(a2a_algos[0]),
	.other = -1,
	.choose = a2a_choose,
};

int ccl_alltoall_run(uint64_t sendbuf, uint64_t recvbuf, size_t count,
		     enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		     struct hpu_stream *stream)
{
	const struct ccl_family *f = &ccl_alltoall_family;
	struct a2a_arg x;
	uint64_t total, rounds;
	int ret, algo;

	ret = ccl_coll_check_common(comm, stream, dtype, &x.a);
	if (ret)
		return ret;
	total = count * (uint64_t)comm->nranks;
	ret = ccl_coll_check_buf(sendbuf, total, x.a.esz);
	if (!ret)
		ret = ccl_coll_check_buf(recvbuf, total, x.a.esz);
	if (!ret && count && sendbuf < recvbuf + total * x.a.esz &&
	    recvbuf < sendbuf + total * x.a.esz)
		ret = -EINVAL;
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	ccl_coll_set(&x.a, sendbuf, recvbuf, count, 0);
	algo = ccl_algo_pick(comm, f, total * x.a.esz);
	rounds = f->algos[algo].plan(comm, &x);
	return ccl_run(comm, stream, rounds, f->algos[algo].gen, &x);
}
