// SPDX-License-Identifier: MIT
/*
 * ops.c - the collectives hpu-ccl-tests runs: how each is called, the
 * shape of its buffers and its bus-bandwidth factor (as nccl-tests
 * defines it: the bytes each rank's busiest link carries, relative to the
 * buffer size, so that busbw compares with the hardware's link speed).
 */
#include <errno.h>
#include <string.h>

#include "ccltests.h"

static double factor_one(int n)
{
	(void)n;
	return 1.0;
}

/* reduce-scatter then all-gather: each byte crosses 2 (n - 1) / n links */
static double factor_allreduce(int n)
{
	return n > 1 ? 2.0 * (n - 1) / n : 0.0;
}

static double factor_n_minus_1(int n)
{
	return n > 1 ? (double)(n - 1) / n : 0.0;
}

static int run_allreduce(const struct cclt_call *c)
{
	return hpuccl_allreduce(c->send, c->recv, c->count, c->dtype, c->redop,
				c->comm, c->stream);
}

static int run_broadcast(const struct cclt_call *c)
{
	return hpuccl_broadcast(c->send, c->recv, c->count, c->dtype, c->root,
				c->comm, c->stream);
}

static int run_reduce(const struct cclt_call *c)
{
	return hpuccl_reduce(c->send, c->recv, c->count, c->dtype, c->redop,
			     c->root, c->comm, c->stream);
}

static int run_allgather(const struct cclt_call *c)
{
	return hpuccl_allgather(c->send, c->recv, c->count, c->dtype, c->comm,
				c->stream);
}

static int run_reduce_scatter(const struct cclt_call *c)
{
	return hpuccl_reduce_scatter(c->send, c->recv, c->count, c->dtype,
				     c->redop, c->comm, c->stream);
}

static int run_alltoall(const struct cclt_call *c)
{
	return hpuccl_alltoall(c->send, c->recv, c->count, c->dtype, c->comm,
			       c->stream);
}

/* each rank sends to the next and receives from the previous, as a ring */
static int run_sendrecv(const struct cclt_call *c)
{
	int next = (c->rank + 1) % c->nranks;
	int prev = (c->rank + c->nranks - 1) % c->nranks;
	int ret, end;

	ret = hpuccl_group_start();
	if (ret)
		return ret;
	ret = hpuccl_send(c->send, c->count, c->dtype, next, c->comm,
			  c->stream);
	if (!ret)
		ret = hpuccl_recv(c->recv, c->count, c->dtype, prev, c->comm,
				  c->stream);
	end = hpuccl_group_end();
	return ret ? ret : end;
}

static const struct cclt_op ops[CCLT_NUM_OPS] = {
	[CCLT_ALLREDUCE] = {
		.name = "allreduce",
		.reduces = true,
		.in_place = true,
		.min_ranks = 1,
		.busbw_factor = factor_allreduce,
		.run = run_allreduce,
	},
	[CCLT_BROADCAST] = {
		.name = "broadcast",
		.rooted = true,
		.in_place = true,
		.min_ranks = 1,
		.busbw_factor = factor_one,
		.run = run_broadcast,
	},
	[CCLT_REDUCE] = {
		.name = "reduce",
		.reduces = true,
		.rooted = true,
		.in_place = true,
		.min_ranks = 1,
		.busbw_factor = factor_one,
		.run = run_reduce,
	},
	[CCLT_ALLGATHER] = {
		.name = "allgather",
		.in_place = true,
		.min_ranks = 1,
		.chunked = true,
		.busbw_factor = factor_n_minus_1,
		.run = run_allgather,
	},
	[CCLT_REDUCE_SCATTER] = {
		.name = "reduce_scatter",
		.reduces = true,
		.in_place = true,
		.min_ranks = 1,
		.chunked = true,
		.busbw_factor = factor_n_minus_1,
		.run = run_reduce_scatter,
	},
	[CCLT_ALLTOALL] = {
		.name = "alltoall",
		.min_ranks = 1,
		.chunked = true,
		.busbw_factor = factor_n_minus_1,
		.run = run_alltoall,
	},
	[CCLT_SENDRECV] = {
		.name = "sendrecv",
		.min_ranks = 2,
		.busbw_factor = factor_one,
		.run = run_sendrecv,
	},
};

const struct cclt_op *cclt_op_get(enum cclt_op_id id)
{
	return id < CCLT_NUM_OPS ? &ops[id] : NULL;
}

int cclt_op_lookup(const char *name)
{
	int i;

	if (!strcmp(name, "all"))
		return CCLT_NUM_OPS;
	for (i = 0; i < CCLT_NUM_OPS; i++)
		if (!strcmp(name, ops[i].name))
			return i;
	return -EINVAL;
}

size_t cclt_send_elems(const struct cclt_call *c)
{
	switch (c->op) {
	case CCLT_REDUCE_SCATTER:
	case CCLT_ALLTOALL:
		return c->count * c->nranks;
	default:
		return c->count;
	}
}

size_t cclt_recv_elems(const struct cclt_call *c)
{
	switch (c->op) {
	case CCLT_ALLGATHER:
	case CCLT_ALLTOALL:
		return c->count * c->nranks;
	default:
		return c->count;
	}
}

void cclt_in_place_offsets(const struct cclt_call *c, size_t *send_off,
			   size_t *recv_off)
{
	*send_off = c->op == CCLT_ALLGATHER ? c->count * c->rank : 0;
	*recv_off = c->op == CCLT_REDUCE_SCATTER ? c->count * c->rank : 0;
}
