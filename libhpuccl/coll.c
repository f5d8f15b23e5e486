// SPDX-License-Identifier: MIT
/*
 * coll.c - what the collectives' schedules share (coll.h): argument
 * checks, the processing ops of a round, the zero-copy decision and the
 * note of the algorithm a call runs
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"

int ccl_coll_check_common(struct hpuccl_comm *comm, struct hpu_stream *stream,
			  enum hpuccl_dtype dtype, struct coll *a)
{
	if (!comm || !stream || hpu_stream_device(stream) != comm->dev ||
	    (unsigned int)dtype >= HPUCCL_NUM_DTYPES)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->dtype = dtype;
	a->esz = hpuccl_dtype_size(dtype);
	a->se = comm->slot_bytes / a->esz;
	return 0;
}

int ccl_coll_check_op(enum hpuccl_redop op)
{
	return (unsigned int)op < HPUCCL_NUM_REDOPS ? 0 : -EINVAL;
}

int ccl_coll_check_buf(uint64_t va, uint64_t count, uint64_t esz)
{
	if (!count)
		return 0;
	if (!va || count > UINT64_MAX / esz / 1024 || va + count * esz < va)
		return -EINVAL;
	return 0;
}

void ccl_coll_set(struct coll *a, uint64_t send, uint64_t recv, uint64_t count,
		  enum hpuccl_redop op)
{
	a->send = send;
	a->recv = recv;
	a->count = count;
	a->op = op;
}

void ccl_coll_blocks_fixed(struct hpuccl_comm *c, uint64_t count,
			   uint64_t *boff)
{
	int p;

	for (p = 0; p < c->nranks; p++)
		boff[p] = (uint64_t)p * count;
}

struct ccl_op *ccl_coll_acc_op(struct ccl_round *r, const struct coll *a,
			       int nranks, uint64_t out, uint64_t count)
{
	struct ccl_op *op = ccl_add_op(r, CCL_OP_ACC, out, count, a->dtype);

	op->redop = a->op == HPUCCL_AVG ? HPUCCL_SUM : a->op;
	op->divisor = a->op == HPUCCL_AVG && nranks > 1 ? (uint32_t)nranks : 0;
	return op;
}

void ccl_coll_copy_op(struct ccl_round *r, const struct coll *a, uint64_t out,
		      int msg, uint64_t va, uint64_t count)
{
	struct ccl_op *op;

	if (!count || (msg < 0 && va == out))
		return;
	op = ccl_add_op(r, CCL_OP_COPY, out, count, a->dtype);
	ccl_op_in(r, op, msg, va);
}

int ccl_coll_maybe_zc(struct hpuccl_comm *c, uint64_t recv, uint64_t bytes,
		      bool *zc)
{
	int ret;

	*zc = false;
	if (c->nranks < 2 || bytes < c->zc_bytes)
		return 0;
	ret = ccl_zc_exchange(c, recv, bytes);
	if (ret < 0)
		return ret;
	*zc = ret == 1;
	return 0;
}

void ccl_coll_note_algo(struct hpuccl_comm *c, const struct ccl_family *f,
			int algo, uint64_t count, bool zc)
{
	if (c->debug)
		fprintf(stderr, "hpuccl: rank %d/%d %s count %llu algo %s%s\n",
			c->rank, c->nranks, f->coll, (unsigned long long)count,
			f->algos[algo].name, zc ? " zcopy" : "");
}
