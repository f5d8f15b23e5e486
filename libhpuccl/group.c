// SPDX-License-Identifier: MIT
/*
 * group.c - point-to-point send/recv and group calls: the calls of a
 * group are deferred to hpuccl_group_end(), which runs the collectives in
 * call order, then every communicator's sends and receives as one
 * schedule (so their order between ranks cannot deadlock)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_internal.h"

/**
 * struct call - one deferred call
 * @kind: enum ccl_call_kind
 * @send: send buffer
 * @recv: receive buffer
 * @count: elements
 * @dtype: element type
 * @op: reduction
 * @root: root, or the peer of a send/recv
 * @comm: communicator
 * @stream: stream
 */
struct call {
	int kind;
	uint64_t send;
	uint64_t recv;
	size_t count;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop op;
	int root;
	struct hpuccl_comm *comm;
	struct hpu_stream *stream;
};

/* Group state of the calling thread */
static __thread int g_depth;
static __thread struct call *g_calls;
static __thread size_t g_ncalls, g_cap;
static __thread int g_err;

bool ccl_group_active(void)
{
	return g_depth > 0;
}

int ccl_group_defer(int kind, uint64_t send, uint64_t recv, size_t count,
		    enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		    struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	if (g_ncalls == g_cap) {
		size_t cap = g_cap ? 2 * g_cap : 16;
		struct call *n = realloc(g_calls, cap * sizeof(*n));

		if (!n) {
			if (!g_err)
				g_err = -ENOMEM;
			return -ENOMEM;
		}
		g_calls = n;
		g_cap = cap;
	}
	g_calls[g_ncalls++] = (struct call){ .kind = kind,
					     .send = send,
					     .recv = recv,
					     .count = count,
					     .dtype = dtype,
					     .op = op,
					     .root = root,
					     .comm = comm,
					     .stream = stream };
	return 0;
}

/* ------------------------------------------------------- p2p schedule */

/**
 * struct p2p_msg - one message of a point-to-point schedule
 * @round: round it travels in (its index in its pair's direction)
 * @peer: the other rank
 * @recv: a receive (else a send)
 * @va: source (send) or destination (receive)
 * @bytes: length
 * @dtype: element type of the destination
 */
struct p2p_msg {
	uint64_t round;
	int peer;
	bool recv;
	uint64_t va;
	uint64_t bytes;
	enum hpuccl_dtype dtype;
};

struct p2p_plan {
	struct p2p_msg *m;
	size_t n;
	size_t next;
};

static int by_round(const void *a, const void *b)
{
	const struct p2p_msg *x = a, *y = b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	return x->recv - y->recv;
}

static int gen_p2p(struct hpuccl_comm *c, void *arg, uint64_t j,
		   struct ccl_round *r)
{
	struct p2p_plan *pl = arg;

	(void)c;
	for (; pl->next < pl->n && pl->m[pl->next].round == j; pl->next++) {
		struct p2p_msg *m = &pl->m[pl->next];
		struct ccl_op *op;
		int k;

		if (!m->recv) {
			ccl_add_send(r, m->peer, m->va, m->bytes);
			continue;
		}
		k = ccl_add_recv(r, m->peer, m->bytes);
		if (!m->bytes)
			continue;
		op = ccl_add_op(r, CCL_OP_COPY, m->va,
				m->bytes / hpuccl_dtype_size(m->dtype),
				m->dtype);
		ccl_op_in(r, op, k, 0);
	}
	return 0;
}

static int check_p2p(const struct call *k)
{
	struct hpuccl_comm *c = k->comm;
	size_t esz;

	if (!c || !k->stream || hpu_stream_device(k->stream) != c->dev ||
	    (unsigned int)k->dtype >= HPUCCL_NUM_DTYPES || k->root < 0 ||
	    k->root >= c->nranks || k->root == c->rank)
		return -EINVAL;
	esz = hpuccl_dtype_size(k->dtype);
	if (k->count && (!(k->kind == K_SEND ? k->send : k->recv) ||
			 k->count > UINT64_MAX / esz / 1024))
		return -EINVAL;
	return 0;
}

/* Run the sends and receives of @calls that belong to @comm. */
static int run_p2p(struct hpuccl_comm *comm, const struct call *calls,
		   size_t ncalls)
{
	uint64_t *cnt_s, *cnt_r, rounds = 0;
	struct hpu_stream *stream = NULL;
	struct p2p_plan pl = { 0 };
	size_t i, cap = 0;
	int ret = 0;

	cnt_s = calloc((size_t)comm->nranks, sizeof(*cnt_s));
	cnt_r = calloc((size_t)comm->nranks, sizeof(*cnt_r));
	if (!cnt_s || !cnt_r) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ncalls; i++) {
		const struct call *k = &calls[i];
		uint64_t bytes, off, slot = comm->slot_bytes;

		if (k->comm != comm || (k->kind != K_SEND && k->kind != K_RECV))
			continue;
		if (!stream)
			stream = k->stream;
		bytes = k->count * hpuccl_dtype_size(k->dtype);
		/* a zero-length call still carries one (empty) message */
		for (off = 0; off < bytes || (!bytes && !off); off += slot) {
			uint64_t *cnt = k->kind == K_SEND ? cnt_s : cnt_r;
			struct p2p_msg *m;

			if (pl.n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct p2p_msg *nm =
					realloc(pl.m, nc * sizeof(*nm));

				if (!nm) {
					ret = -ENOMEM;
					goto out;
				}
				pl.m = nm;
				cap = nc;
			}
			m = &pl.m[pl.n++];
			m->round = cnt[k->root]++;
			m->peer = k->root;
			m->recv = k->kind == K_RECV;
			m->va = (m->recv ? k->recv : k->send) + off;
			m->bytes = bytes - off < slot ? bytes - off : slot;
			m->dtype = k->dtype;
			if (m->round + 1 > rounds)
				rounds = m->round + 1;
			if (!bytes)
				break;
		}
	}
	if (!pl.n)
		goto out;
	qsort(pl.m, pl.n, sizeof(*pl.m), by_round);
	ret = ccl_run(comm, stream, rounds, gen_p2p, &pl);
out:
	free(pl.m);
	free(cnt_s);
	free(cnt_r);
	return ret;
}

static int p2p_call(int kind, uint64_t buf, size_t count,
		    enum hpuccl_dtype dtype, int peer, struct hpuccl_comm *comm,
		    struct hpu_stream *stream)
{
	struct call k = { .kind = kind,
			  .send = kind == K_SEND ? buf : 0,
			  .recv = kind == K_RECV ? buf : 0,
			  .count = count,
			  .dtype = dtype,
			  .root = peer,
			  .comm = comm,
			  .stream = stream };
	int ret = check_p2p(&k);

	if (ret)
		return ret;
	if (ccl_group_active())
		return ccl_group_defer(kind, k.send, k.recv, count, dtype, 0,
				       peer, comm, stream);
	ret = ccl_check_error(comm);
	return ret ? ret : run_p2p(comm, &k, 1);
}

HPUCCL_EXPORT int hpuccl_send(uint64_t sendbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	return p2p_call(K_SEND, sendbuf, count, dtype, peer, comm, stream);
}

HPUCCL_EXPORT int hpuccl_recv(uint64_t recvbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	return p2p_call(K_RECV, recvbuf, count, dtype, peer, comm, stream);
}

HPUCCL_EXPORT int hpuccl_group_start(void)
{
	if (!g_depth++)
		g_err = 0;
	return 0;
}

HPUCCL_EXPORT int hpuccl_group_end(void)
{
	struct call *calls;
	size_t n, i, j;
	int ret, first = 0;

	if (!g_depth)
		return -EINVAL;
	if (--g_depth)
		return 0;
	calls = g_calls;
	n = g_ncalls;
	g_calls = NULL;
	g_ncalls = g_cap = 0;
	first = g_err;
	for (i = 0; i < n; i++) {
		const struct call *k = &calls[i];

		if (k->kind == K_SEND || k->kind == K_RECV)
			continue;
		ret = ccl_run_deferred(k->kind, k->send, k->recv, k->count,
				       k->dtype, k->op, k->root, k->comm,
				       k->stream);
		if (ret && !first)
			first = ret;
	}
	/* one schedule per communicator, in the order they first appear */
	for (i = 0; i < n; i++) {
		if (calls[i].kind != K_SEND && calls[i].kind != K_RECV)
			continue;
		for (j = 0; j < i; j++)
			if ((calls[j].kind == K_SEND ||
			     calls[j].kind == K_RECV) &&
			    calls[j].comm == calls[i].comm)
				break;
		if (j < i)
			continue;
		ret = ccl_check_error(calls[i].comm);
		if (!ret)
			ret = run_p2p(calls[i].comm, calls, n);
		if (ret && !first)
			first = ret;
	}
	free(calls);
	return first;
}
