// SPDX-License-Identifier: MIT
/*
 * broadcast.c - the rooted collectives: broadcast (direct or a pipelined chain,
 * on the allgather plan) and reduce (direct to the root), and their tables
 * of algorithms (ccl_broadcast_family, ccl_reduce_family)
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* The broadcast's algorithms: rows of bc_algos[] */
enum bc_algo {
	BC_DIRECT,
	BC_CHAIN,
};

/*
 * Direct: the root sends every chunk to every peer. Chain: position d =
 * rank - root (mod n) receives chunk k in round base + 2(d-1) + k and
 * forwards it from recvbuf in round base + 2d + k, two rounds later (the
 * NIC queues' processing tails order that: no ready_dep). Zero copy:
 * round 0 carries the "ready" messages to the writer (the root, or the
 * previous position), round @base waits for them.
 */
static int gen_broadcast(struct hpuccl_comm *c, void *arg, uint64_t j,
			 struct ccl_round *r)
{
	struct ccl_ag_plan *x = arg;
	const struct coll *a = &x->a;
	int n = c->nranks, me = c->rank, root = a->root, p;
	int d = (me - root + n) % n;
	uint64_t t, k, l;

	if (j == 0) {
		if (me == root)
			ccl_coll_copy_op(r, a, a->recv, -1, a->send, a->count);
		if (x->zc && x->algo == BC_DIRECT && me != root) {
			ccl_add_send(r, root, 0, 0);
		} else if (x->zc && x->algo == BC_DIRECT) {
			for (p = 0; p < n; p++)
				if (p != root)
					ccl_add_recv(r, p, 0);
		} else if (x->zc) {
			if (d)
				ccl_add_send(r, (me + n - 1) % n, 0, 0);
			if (d < n - 1)
				ccl_add_recv(r, (me + 1) % n, 0);
		}
	}
	if (j < x->base)
		return 0;
	t = j - x->base;
	r->ready_dep = t == 0 && x->base;
	if (x->algo == BC_DIRECT) {
		l = coll_chunk_len(a->count, x->se, t);
		if (me != root) {
			ccl_ag_recv_from(x, r, root,
					 a->recv + t * x->se * a->esz, l);
			return 0;
		}
		for (p = 0; p < n; p++)
			if (p != me)
				ccl_ag_send_to(c, x, r, p,
					       a->send + t * x->se * a->esz,
					       l * a->esz, t * x->se * a->esz);
		return 0;
	}
	/* chain: receive chunk t - 2(d-1), send chunk t - 2d */
	if (d && t >= 2 * (uint64_t)(d - 1) &&
	    t - 2 * (uint64_t)(d - 1) < x->K) {
		k = t - 2 * (uint64_t)(d - 1);
		ccl_ag_recv_from(x, r, (me + n - 1) % n,
				 a->recv + k * x->se * a->esz,
				 coll_chunk_len(a->count, x->se, k));
	}
	if (d < n - 1 && t >= 2 * (uint64_t)d && t - 2 * (uint64_t)d < x->K) {
		k = t - 2 * (uint64_t)d;
		ccl_ag_send_to(c, x, r, (me + 1) % n,
			       (d ? a->recv : a->send) + k * x->se * a->esz,
			       coll_chunk_len(a->count, x->se, k) * a->esz,
			       k * x->se * a->esz);
	}
	return 0;
}

/* The broadcast's automatic choice: the chain across servers for more
 * than CCL_SMALL_BYTES */
static int bc_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	if (c->nranks <= 2 || c->nservers == 1 || bytes <= CCL_SMALL_BYTES)
		return BC_DIRECT;
	return BC_CHAIN;
}

static uint64_t bc_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct ccl_ag_plan *x = arg;

	(void)c;
	ccl_ag_plan_chunks(x, true);
	return x->K;
}

static uint64_t bc_plan_chain(struct hpuccl_comm *c, void *arg)
{
	struct ccl_ag_plan *x = arg;

	ccl_ag_plan_chunks(x, false);
	return 2 * (uint64_t)(c->nranks - 2) + x->K;
}

/* The chain is named "ring": HPUCCL_ALGO=ring forces it */
static const struct ccl_algo bc_algos[] = {
	[BC_DIRECT] = { .name = "direct",
			.plan = bc_plan_direct,
			.gen = gen_broadcast },
	[BC_CHAIN] = { .name = "ring",
		       .plan = bc_plan_chain,
		       .gen = gen_broadcast },
};

/* A forced name the broadcast does not have (hier) runs the chain */
const struct ccl_family ccl_broadcast_family = {
	.coll = "broadcast",
	.algos = bc_algos,
	.nalgos = sizeof(bc_algos) / sizeof(bc_algos[0]),
	.other = BC_CHAIN,
	.choose = bc_choose,
};

static int run_broadcast(struct hpuccl_comm *c, struct hpu_stream *stream,
			 const struct coll *a)
{
	const struct ccl_family *f = &ccl_broadcast_family;
	struct ccl_ag_plan x;
	uint64_t rounds;
	int ret;

	memset(&x, 0, sizeof(x));
	x.a = *a;
	ret = ccl_ag_plan_make(c, f, &x, a->count * a->esz, &rounds);
	if (ret)
		return ret;
	ccl_coll_note_algo(c, f, x.algo, a->count, x.zc);
	return ccl_run(c, stream, rounds, f->algos[x.algo].gen, &x);
}

static int gen_reduce(struct hpuccl_comm *c, void *arg, uint64_t j,
		      struct ccl_round *r)
{
	struct coll *a = arg;
	uint64_t l = coll_chunk_len(a->count, a->se, j);
	uint64_t off = j * a->se * a->esz;
	int msg[HPU_NUM_SOBS];
	struct ccl_op *op;
	int p;

	if (c->rank != a->root) {
		ccl_add_send(r, a->root, a->send + off, l * a->esz);
		return 0;
	}
	for (p = 0; p < c->nranks; p++)
		if (p != c->rank)
			msg[p] = ccl_add_recv(r, p, l * a->esz);
	if (!l)
		return 0;
	/* own data first: in place, the output may only alias input 0 */
	op = ccl_coll_acc_op(r, a, c->nranks, a->recv + off, l);
	ccl_op_in(r, op, -1, a->send + off);
	for (p = 0; p < c->nranks; p++)
		if (p != c->rank)
			ccl_op_in(r, op, msg[p], 0);
	return 0;
}

/* The reduce's one algorithm: every rank's chunks to the root */
static uint64_t reduce_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct coll *a = arg;

	(void)c;
	return coll_div_up(a->count, a->se);
}

static int reduce_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	(void)c;
	(void)bytes;
	return 0;
}

static const struct ccl_algo reduce_algos[] = {
	{ .name = "direct", .plan = reduce_plan_direct, .gen = gen_reduce },
};

const struct ccl_family ccl_reduce_family = {
	.coll = "reduce",
	.algos = reduce_algos,
	.nalgos = sizeof(reduce_algos) / sizeof(reduce_algos[0]),
	.other = -1,
	.choose = reduce_choose,
};

static int run_reduce(struct hpuccl_comm *c, struct hpu_stream *stream,
		      struct coll *a)
{
	const struct ccl_family *f = &ccl_reduce_family;
	int algo = ccl_algo_pick(c, f, a->count * a->esz);
	uint64_t rounds = f->algos[algo].plan(c, a);

	return ccl_run(c, stream, rounds, f->algos[algo].gen, a);
}

int ccl_rooted_run(int kind, uint64_t sendbuf, uint64_t recvbuf, size_t count,
		   enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		   struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	struct coll a;
	bool is_root;
	int ret;

	ret = ccl_coll_check_common(comm, stream, dtype, &a);
	if (!ret && kind == K_REDUCE)
		ret = ccl_coll_check_op(op);
	if (!ret && (root < 0 || root >= comm->nranks))
		ret = -EINVAL;
	if (ret)
		return ret;
	is_root = root == comm->rank;
	if (kind == K_REDUCE || is_root)
		ret = ccl_coll_check_buf(sendbuf, count, a.esz);
	if (!ret && (kind == K_BROADCAST || is_root))
		ret = ccl_coll_check_buf(recvbuf, count, a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	ccl_coll_set(&a, sendbuf, recvbuf, count, op);
	a.root = root;
	if (kind == K_BROADCAST)
		return run_broadcast(comm, stream, &a);
	return run_reduce(comm, stream, &a);
}
