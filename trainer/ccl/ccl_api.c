// SPDX-License-Identifier: MIT
/*
 * ccl_api.c - the collectives: argument checks and their schedules of
 * rounds for the engine (docs/collectives.md "Algorithms")
 */
#include <errno.h>
#include <string.h>

#include "ccl_internal.h"

HPUCCL_EXPORT const char *hpuccl_version(void)
{
	return "1.0.0";
}

HPUCCL_EXPORT const char *hpuccl_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -ETIMEDOUT:
		return "timed out (a peer did not take part in time)";
	case -ECONNRESET:
		return "a rank of the communicator left";
	case -ENETDOWN:
		return "a NIC link went down";
	case -EIO:
		return "a collective failed on the device";
	case -ECONNREFUSED:
		return "no rendezvous store at the id's address";
	case -EEXIST:
		return "rank taken twice";
	default:
		return err < 0 ? strerror(-err) : "not an error code";
	}
}

HPUCCL_EXPORT size_t hpuccl_dtype_size(enum hpuccl_dtype dtype)
{
	switch (dtype) {
	case HPUCCL_FLOAT32:
	case HPUCCL_INT32:
		return 4;
	case HPUCCL_BFLOAT16:
		return 2;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------ shares */

/* Share @r of @count elements split over @n: offset and length */
static void share(uint64_t count, int n, int r, uint64_t *off, uint64_t *len)
{
	uint64_t base = count / (uint64_t)n, rem = count % (uint64_t)n;

	*off = base * (uint64_t)r + ((uint64_t)r < rem ? (uint64_t)r : rem);
	*len = base + ((uint64_t)r < rem ? 1 : 0);
}

/* Elements [c*se, ...) of a run of @len elements: the chunk's length */
static uint64_t chunk_len(uint64_t len, uint64_t se, uint64_t c)
{
	uint64_t start = c * se;

	if (start >= len)
		return 0;
	return len - start < se ? len - start : se;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/**
 * struct coll - arguments of a collective's generator
 * @send: send buffer VA
 * @recv: receive buffer VA
 * @count: elements (per rank block where the collective has blocks)
 * @dtype: element type
 * @op: reduction
 * @root: root rank
 * @esz: bytes per element
 * @se: elements per chunk (one inbox slot)
 */
struct coll {
	uint64_t send;
	uint64_t recv;
	uint64_t count;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop op;
	int root;
	uint64_t esz;
	uint64_t se;
};

static struct ccl_op *acc_op(struct ccl_round *r, const struct coll *a,
			     int nranks, uint64_t out, uint64_t count)
{
	struct ccl_op *op = ccl_add_op(r, CCL_OP_ACC, out, count, a->dtype);

	op->redop = a->op == HPUCCL_AVG ? HPUCCL_SUM : a->op;
	op->divisor = a->op == HPUCCL_AVG && nranks > 1 ? (uint32_t)nranks : 0;
	return op;
}

static void copy_op(struct ccl_round *r, const struct coll *a, uint64_t out,
		    int msg, uint64_t va, uint64_t count)
{
	struct ccl_op *op;

	if (!count || (msg < 0 && va == out))
		return;
	op = ccl_add_op(r, CCL_OP_COPY, out, count, a->dtype);
	ccl_op_in(r, op, msg, va);
}

/*
 * Reduce-scatter step shared by allreduce and reduce_scatter: every rank
 * sends each peer its piece of the peer's block, and reduces its own
 * block's piece with the n-1 pieces it received.
 * @block_off(p): element offset of block p; @block_len(p): its length.
 */
static void rs_round(struct hpuccl_comm *c, const struct coll *a,
		     struct ccl_round *r, uint64_t ch, const uint64_t *boff,
		     const uint64_t *blen, uint64_t out_off)
{
	int n = c->nranks, me = c->rank, p;
	uint64_t mylen = chunk_len(blen[me], a->se, ch);
	uint64_t in_off = (boff[me] + ch * a->se) * a->esz;
	int msg[HPU_NUM_SOBS];
	struct ccl_op *op;

	for (p = 0; p < n; p++) {
		uint64_t l = chunk_len(blen[p], a->se, ch);

		if (p == me)
			continue;
		ccl_add_send(r, p, a->send + (boff[p] + ch * a->se) * a->esz,
			     l * a->esz);
		msg[p] = ccl_add_recv(r, p, mylen * a->esz);
	}
	if (!mylen)
		return;
	op = acc_op(r, a, n, a->recv + out_off + ch * a->se * a->esz, mylen);
	ccl_op_in(r, op, -1, a->send + in_off);
	for (p = 0; p < n; p++)
		if (p != me)
			ccl_op_in(r, op, msg[p], 0);
}

/* Allgather step: send a chunk of @src_run to every peer, place theirs */
static void ag_round(struct hpuccl_comm *c, const struct coll *a,
		     struct ccl_round *r, uint64_t ch, uint64_t src_va,
		     const uint64_t *boff, const uint64_t *blen)
{
	int n = c->nranks, me = c->rank, p;
	uint64_t mylen = chunk_len(blen[me], a->se, ch);

	for (p = 0; p < n; p++) {
		uint64_t l = chunk_len(blen[p], a->se, ch);
		int m;

		if (p == me)
			continue;
		ccl_add_send(r, p, src_va + ch * a->se * a->esz,
			     mylen * a->esz);
		m = ccl_add_recv(r, p, l * a->esz);
		copy_op(r, a, a->recv + (boff[p] + ch * a->se) * a->esz, m, 0,
			l);
	}
}

/* ---------------------------------------------------------- allreduce */

struct ar_arg {
	struct coll a;
	uint64_t nchunks;
	uint64_t boff[HPU_NUM_SOBS / 3 + 1];
	uint64_t blen[HPU_NUM_SOBS / 3 + 1];
};

/*
 * Rounds 0..C-1 reduce-scatter the C chunks, rounds C..2C-1 allgather
 * them (each after the processing of the round before it, so after the
 * reduction of its chunk: processing runs in round order)
 */
static int gen_allreduce(struct hpuccl_comm *c, void *arg, uint64_t j,
			 struct ccl_round *r)
{
	struct ar_arg *x = arg;

	if (j < x->nchunks) {
		rs_round(c, &x->a, r, j, x->boff, x->blen,
			 x->boff[c->rank] * x->a.esz);
	} else {
		r->ready_dep = true;
		ag_round(c, &x->a, r, j - x->nchunks,
			 x->a.recv + x->boff[c->rank] * x->a.esz, x->boff,
			 x->blen);
	}
	return 0;
}

/* -------------------------------------------------------- arguments */

static int check_common(struct hpuccl_comm *comm, struct hpu_stream *stream,
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

static int check_op(enum hpuccl_redop op)
{
	return (unsigned int)op < HPUCCL_NUM_REDOPS ? 0 : -EINVAL;
}

static int check_buf(uint64_t va, uint64_t count, uint64_t esz)
{
	if (!count)
		return 0;
	if (!va || count > UINT64_MAX / esz / 1024 || va + count * esz < va)
		return -EINVAL;
	return 0;
}

static void blocks_even(struct hpuccl_comm *c, uint64_t count, uint64_t *boff,
			uint64_t *blen)
{
	int p;

	for (p = 0; p < c->nranks; p++)
		share(count, c->nranks, p, &boff[p], &blen[p]);
}

static void blocks_fixed(struct hpuccl_comm *c, uint64_t count, uint64_t *boff,
			 uint64_t *blen)
{
	int p;

	for (p = 0; p < c->nranks; p++) {
		boff[p] = (uint64_t)p * count;
		blen[p] = count;
	}
}

/* Deferred calls of a group (group.c) */
int ccl_group_defer(int kind, uint64_t send, uint64_t recv, size_t count,
		    enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		    struct hpuccl_comm *comm, struct hpu_stream *stream);

enum {
	K_ALLREDUCE,
	K_BROADCAST,
	K_REDUCE,
	K_ALLGATHER,
	K_RS,
	K_A2A
};

#define DEFER(kind, s, rv, n, t, o, root)                                  \
	do {                                                               \
		if (ccl_group_active())                                    \
			return ccl_group_defer(kind, s, rv, n, t, o, root, \
					       comm, stream);              \
	} while (0)

static int run_allreduce(uint64_t sendbuf, uint64_t recvbuf, size_t count,
			 enum hpuccl_dtype dtype, enum hpuccl_redop op,
			 struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	struct ar_arg x;
	uint64_t maxshare;
	int ret;

	ret = check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = check_op(op);
	if (!ret)
		ret = check_buf(sendbuf, count, x.a.esz);
	if (!ret)
		ret = check_buf(recvbuf, count, x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	x.a.send = sendbuf;
	x.a.recv = recvbuf;
	x.a.count = count;
	x.a.op = op;
	blocks_even(comm, count, x.boff, x.blen);
	maxshare = div_up(count, (uint64_t)comm->nranks);
	x.nchunks = div_up(maxshare, x.a.se);
	return ccl_run(comm, stream, 2 * x.nchunks, gen_allreduce, &x);
}

HPUCCL_EXPORT int hpuccl_allreduce(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   enum hpuccl_redop op,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0);
	return run_allreduce(sendbuf, recvbuf, count, dtype, op, comm, stream);
}

/* ------------------------------------------------- reduce_scatter */

static int gen_rs(struct hpuccl_comm *c, void *arg, uint64_t j,
		  struct ccl_round *r)
{
	struct ar_arg *x = arg;

	rs_round(c, &x->a, r, j, x->boff, x->blen, 0);
	return 0;
}

static int run_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf,
			      size_t recvcount, enum hpuccl_dtype dtype,
			      enum hpuccl_redop op, struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	struct ar_arg x;
	int ret;

	ret = check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = check_op(op);
	if (!ret)
		ret = check_buf(sendbuf, recvcount * (uint64_t)comm->nranks,
				x.a.esz);
	if (!ret)
		ret = check_buf(recvbuf, recvcount, x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !recvcount)
		return ret;
	x.a.send = sendbuf;
	x.a.recv = recvbuf;
	x.a.count = recvcount;
	x.a.op = op;
	blocks_fixed(comm, recvcount, x.boff, x.blen);
	return ccl_run(comm, stream, div_up(recvcount, x.a.se), gen_rs, &x);
}

HPUCCL_EXPORT int
hpuccl_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	DEFER(K_RS, sendbuf, recvbuf, recvcount, dtype, op, 0);
	return run_reduce_scatter(sendbuf, recvbuf, recvcount, dtype, op, comm,
				  stream);
}

/* ---------------------------------------------------------- allgather */

static int gen_allgather(struct hpuccl_comm *c, void *arg, uint64_t j,
			 struct ccl_round *r)
{
	struct ar_arg *x = arg;
	uint64_t own = x->a.recv + x->boff[c->rank] * x->a.esz;

	if (j == 0)
		copy_op(r, &x->a, own, -1, x->a.send, x->a.count);
	ag_round(c, &x->a, r, j, x->a.send, x->boff, x->blen);
	return 0;
}

static int run_allgather(uint64_t sendbuf, uint64_t recvbuf, size_t sendcount,
			 enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
			 struct hpu_stream *stream)
{
	struct ar_arg x;
	int ret;

	ret = check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = check_buf(sendbuf, sendcount, x.a.esz);
	if (!ret)
		ret = check_buf(recvbuf, sendcount * (uint64_t)comm->nranks,
				x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !sendcount)
		return ret;
	x.a.send = sendbuf;
	x.a.recv = recvbuf;
	x.a.count = sendcount;
	blocks_fixed(comm, sendcount, x.boff, x.blen);
	return ccl_run(comm, stream, div_up(sendcount, x.a.se), gen_allgather,
		       &x);
}

HPUCCL_EXPORT int hpuccl_allgather(uint64_t sendbuf, uint64_t recvbuf,
				   size_t sendcount, enum hpuccl_dtype dtype,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_ALLGATHER, sendbuf, recvbuf, sendcount, dtype, 0, 0);
	return run_allgather(sendbuf, recvbuf, sendcount, dtype, comm, stream);
}

/* ---------------------------------------------------------- alltoall */

static int gen_alltoall(struct hpuccl_comm *c, void *arg, uint64_t j,
			struct ccl_round *r)
{
	struct ar_arg *x = arg;
	const struct coll *a = &x->a;
	int p, me = c->rank;
	uint64_t l = chunk_len(a->count, a->se, j);

	if (j == 0)
		copy_op(r, a, a->recv + x->boff[me] * a->esz, -1,
			a->send + x->boff[me] * a->esz, a->count);
	for (p = 0; p < c->nranks; p++) {
		uint64_t off = (x->boff[p] + j * a->se) * a->esz;
		int m;

		if (p == me)
			continue;
		ccl_add_send(r, p, a->send + off, l * a->esz);
		m = ccl_add_recv(r, p, l * a->esz);
		copy_op(r, a, a->recv + off, m, 0, l);
	}
	return 0;
}

static int run_alltoall(uint64_t sendbuf, uint64_t recvbuf, size_t count,
			enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
			struct hpu_stream *stream)
{
	struct ar_arg x;
	uint64_t total;
	int ret;

	ret = check_common(comm, stream, dtype, &x.a);
	if (ret)
		return ret;
	total = count * (uint64_t)comm->nranks;
	ret = check_buf(sendbuf, total, x.a.esz);
	if (!ret)
		ret = check_buf(recvbuf, total, x.a.esz);
	if (!ret && count && sendbuf < recvbuf + total * x.a.esz &&
	    recvbuf < sendbuf + total * x.a.esz)
		ret = -EINVAL;
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	x.a.send = sendbuf;
	x.a.recv = recvbuf;
	x.a.count = count;
	blocks_fixed(comm, count, x.boff, x.blen);
	return ccl_run(comm, stream, div_up(count, x.a.se), gen_alltoall, &x);
}

HPUCCL_EXPORT int hpuccl_alltoall(uint64_t sendbuf, uint64_t recvbuf,
				  size_t count, enum hpuccl_dtype dtype,
				  struct hpuccl_comm *comm,
				  struct hpu_stream *stream)
{
	DEFER(K_A2A, sendbuf, recvbuf, count, dtype, 0, 0);
	return run_alltoall(sendbuf, recvbuf, count, dtype, comm, stream);
}

/* ------------------------------------------------- broadcast, reduce */

static int gen_broadcast(struct hpuccl_comm *c, void *arg, uint64_t j,
			 struct ccl_round *r)
{
	struct coll *a = arg;
	uint64_t l = chunk_len(a->count, a->se, j);
	uint64_t off = j * a->se * a->esz;
	int p, m;

	if (c->rank != a->root) {
		m = ccl_add_recv(r, a->root, l * a->esz);
		copy_op(r, a, a->recv + off, m, 0, l);
		return 0;
	}
	if (j == 0)
		copy_op(r, a, a->recv, -1, a->send, a->count);
	for (p = 0; p < c->nranks; p++)
		if (p != c->rank)
			ccl_add_send(r, p, a->send + off, l * a->esz);
	return 0;
}

static int gen_reduce(struct hpuccl_comm *c, void *arg, uint64_t j,
		      struct ccl_round *r)
{
	struct coll *a = arg;
	uint64_t l = chunk_len(a->count, a->se, j);
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
	op = acc_op(r, a, c->nranks, a->recv + off, l);
	ccl_op_in(r, op, -1, a->send + off);
	for (p = 0; p < c->nranks; p++)
		if (p != c->rank)
			ccl_op_in(r, op, msg[p], 0);
	return 0;
}

static int run_rooted(int kind, uint64_t sendbuf, uint64_t recvbuf,
		      size_t count, enum hpuccl_dtype dtype,
		      enum hpuccl_redop op, int root, struct hpuccl_comm *comm,
		      struct hpu_stream *stream)
{
	struct coll a;
	bool is_root;
	int ret;

	ret = check_common(comm, stream, dtype, &a);
	if (!ret && kind == K_REDUCE)
		ret = check_op(op);
	if (!ret && (root < 0 || root >= comm->nranks))
		ret = -EINVAL;
	if (ret)
		return ret;
	is_root = root == comm->rank;
	if (kind == K_REDUCE || is_root)
		ret = check_buf(sendbuf, count, a.esz);
	if (!ret && (kind == K_BROADCAST || is_root))
		ret = check_buf(recvbuf, count, a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	a.send = sendbuf;
	a.recv = recvbuf;
	a.count = count;
	a.op = op;
	a.root = root;
	return ccl_run(comm, stream, div_up(count, a.se),
		       kind == K_REDUCE ? gen_reduce : gen_broadcast, &a);
}

HPUCCL_EXPORT int hpuccl_broadcast(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   int root, struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_BROADCAST, sendbuf, recvbuf, count, dtype, 0, root);
	return run_rooted(K_BROADCAST, sendbuf, recvbuf, count, dtype, 0, root,
			  comm, stream);
}

HPUCCL_EXPORT int hpuccl_reduce(uint64_t sendbuf, uint64_t recvbuf,
				size_t count, enum hpuccl_dtype dtype,
				enum hpuccl_redop op, int root,
				struct hpuccl_comm *comm,
				struct hpu_stream *stream)
{
	DEFER(K_REDUCE, sendbuf, recvbuf, count, dtype, op, root);
	return run_rooted(K_REDUCE, sendbuf, recvbuf, count, dtype, op, root,
			  comm, stream);
}

/* Run a deferred collective (group.c) */
int ccl_run_deferred(int kind, uint64_t send, uint64_t recv, size_t count,
		     enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		     struct hpuccl_comm *comm, struct hpu_stream *stream);

int ccl_run_deferred(int kind, uint64_t send, uint64_t recv, size_t count,
		     enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		     struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	switch (kind) {
	case K_ALLREDUCE:
		return run_allreduce(send, recv, count, dtype, op, comm,
				     stream);
	case K_BROADCAST:
	case K_REDUCE:
		return run_rooted(kind, send, recv, count, dtype, op, root,
				  comm, stream);
	case K_ALLGATHER:
		return run_allgather(send, recv, count, dtype, comm, stream);
	case K_RS:
		return run_reduce_scatter(send, recv, count, dtype, op, comm,
					  stream);
	case K_A2A:
		return run_alltoall(send, recv, count, dtype, comm, stream);
	default:
		return -EINVAL;
	}
}
