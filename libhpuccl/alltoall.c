// SPDX-License-Identifier: MIT
/*
 * alltoall.c - alltoall: every rank's block for every peer, chunk by chunk
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

int ccl_alltoall_run(uint64_t sendbuf, uint64_t recvbuf, size_t count,
		     enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		     struct hpu_stream *stream)
{
	struct a2a_arg x;
	uint64_t total;
	int ret;

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
	ccl_coll_blocks_fixed(comm, count, x.boff);
	return ccl_run(comm, stream, coll_div_up(count, x.a.se), gen_alltoall,
		       &x);
}
