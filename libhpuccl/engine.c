// SPDX-License-Identifier: MIT
/*
 * engine.c - the round engine: turns a schedule of rounds into one
 * multi-queue CS per rank (NIC jobs, one per port in use, and a TPC
 * processing job) ordered by sync objects, with per-pair inbox slots and
 * credits (docs/collectives.md: "Round engine" and its deadlock proof)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_internal.h"

/* Elements one TPC tensor of a processing op covers at most */
#define OP_MAX_ELEMS (1U << 30)

static uint32_t hpu_dtype_of(enum hpuccl_dtype t)
{
	switch (t) {
	case HPUCCL_FLOAT32:
		return HPU_DTYPE_FP32;
	case HPUCCL_BFLOAT16:
		return HPU_DTYPE_BF16;
	default:
		return HPU_DTYPE_INT32;
	}
}

static uint32_t acc_op_of(enum hpuccl_redop op)
{
	switch (op) {
	case HPUCCL_MIN:
		return HPU_TPC_ACC_MIN;
	case HPUCCL_MAX:
		return HPU_TPC_ACC_MAX;
	default:
		return HPU_TPC_ACC_SUM;
	}
}

int ccl_add_send(struct ccl_round *r, int peer, uint64_t src, uint64_t len)
{
	r->send[r->nsend++] =
		(struct ccl_msg){ .peer = peer, .src = src, .len = len };
	return r->nsend - 1;
}

int ccl_add_recv(struct ccl_round *r, int peer, uint64_t len)
{
	r->recv[r->nrecv++] = (struct ccl_msg){ .peer = peer, .len = len };
	return r->nrecv - 1;
}

void ccl_add_send_direct(struct ccl_round *r, int peer, uint64_t src,
			 uint64_t len, uint64_t rkey, uint64_t roff)
{
	r->send[r->nsend++] = (struct ccl_msg){
		.peer = peer, .src = src, .len = len, .rkey = rkey, .roff = roff
	};
}

void ccl_add_recv_direct(struct ccl_round *r, int peer)
{
	r->recv[r->nrecv++] = (struct ccl_msg){ .peer = peer, .direct = true };
}

struct ccl_op *ccl_add_op(struct ccl_round *r, int kind, uint64_t out,
			  uint64_t count, enum hpuccl_dtype dtype)
{
	struct ccl_op *op = &r->ops[r->nops++];

	*op = (struct ccl_op){ .kind = kind,
			       .out = out,
			       .out_msg = -1,
			       .count = count,
			       .dtype = dtype,
			       .in = &r->srcs[r->nsrcs] };
	return op;
}

void ccl_op_in(struct ccl_round *r, struct ccl_op *op, int msg, uint64_t va)
{
	r->srcs[r->nsrcs++] = (struct ccl_src){ .msg = msg, .va = va };
	op->nin++;
}

static void tensor1d(struct hpu_tpc_tensor *t, uint64_t va, uint32_t dtype,
		     uint32_t n)
{
	memset(t, 0, sizeof(*t));
	t->addr = va;
	t->dtype = dtype;
	t->ndims = 1;
	t->sizes[0] = n;
	t->strides[0] = 1;
}

static uint64_t src_va(const struct ccl_round *r, const struct ccl_src *s)
{
	return s->msg < 0 ? s->va : r->recv[s->msg].slot_va + s->va;
}

/* One processing op as TPC kernels: ACC in passes of <= 7 inputs. */
static int emit_op(struct hpu_cb_builder *b, const struct ccl_round *r,
		   const struct ccl_op *op)
{
	uint32_t dt = hpu_dtype_of(op->dtype);
	size_t esz = hpuccl_dtype_size(op->dtype);
	uint64_t done, out = op->out;
	int ret;

	if (op->out_msg >= 0)
		out += r->recv[op->out_msg].slot_va;

	for (done = 0; done < op->count;) {
		uint32_t n = (uint32_t)(op->count - done < OP_MAX_ELEMS ?
						op->count - done :
						OP_MAX_ELEMS);
		uint64_t off = done * esz;
		struct hpu_tpc_tensor t[8];

		if (op->kind == CCL_OP_COPY) {
			tensor1d(&t[0], src_va(r, &op->in[0]) + off, dt, n);
			tensor1d(&t[1], out + off, dt, n);
			ret = hpu_cb_tpc_kernel(b, HPU_TPC_KERNEL_COPY, t, 2,
						NULL, 0);
			if (ret)
				return ret;
		} else {
			int i = 0;

			while (i < op->nin) {
				uint32_t params[2] = { acc_op_of(op->redop),
						       0 };
				int k = 0, first = i == 0;
				int room = first ? 7 : 6;

				tensor1d(&t[0], out + off, dt, n);
				if (!first)
					tensor1d(&t[++k], out + off, dt, n);
				while (i < op->nin && room--)
					tensor1d(&t[++k],
						 src_va(r, &op->in[i++]) + off,
						 dt, n);
				if (i == op->nin)
					params[1] = op->divisor;
				ret = hpu_cb_tpc_kernel(
					b, HPU_TPC_KERNEL_ACCUMULATE, t,
					(unsigned int)k + 1, params, 2);
				if (ret)
					return ret;
			}
		}
		done += n;
	}
	return 0;
}

/* Bytes left in a builder */
static size_t room(struct hpu_cb_builder *b)
{
	return hpu_cb_builder_size(b) - hpu_cb_builder_used(b);
}

/* Whether round @r sends anything on NIC queue @q */
static bool queue_sends(const struct hpuccl_comm *c, const struct ccl_round *r,
			int q)
{
	int i;

	for (i = 0; i < r->nsend; i++)
		if (c->peers[r->send[i].peer].queue == q)
			return true;
	return false;
}

/*
 * Round j on the NIC queues: readiness fence, credit fences and data
 * writes, then (unless @r is the first round of its CS) the credits of
 * the receives of @prev, round j-1.
 */
static int emit_nic_round(struct hpuccl_comm *c, const struct ccl_round *r,
			  const struct ccl_round *prev, bool first)
{
	int n = c->nranks, q, i, ret;

	for (q = 0; q < c->nqueues; q++) {
		struct hpu_cb_builder *b = c->queues[q].cb;

		if (r->ready_dep && !first) {
			ret = hpu_cb_fence(b, ccl_sob_cons(c->sob_base, n, q),
					   1, 0);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < r->nsend; i++) {
		const struct ccl_msg *m = &r->send[i];
		struct ccl_peer *p = &c->peers[m->peer];
		struct hpu_cb_builder *b = c->queues[p->queue].cb;
		uint64_t slot = p->send_cnt % CCL_WINDOW;
		uint64_t off =
			((uint64_t)c->rank * CCL_WINDOW + slot) * c->slot_bytes;

		if (m->rkey) {
			/* straight into the peer's buffer: no slot, no credit */
			ret = hpu_cb_nic_write_key(
				b, p->conn, m->src, m->rkey, m->roff, m->len,
				ccl_sob_arrival(p->sob_base, c->rank), 1);
			if (ret)
				return ret;
			continue;
		}
		if (p->send_cnt >= CCL_WINDOW) {
			uint64_t need = p->send_cnt - CCL_WINDOW + 1;
			uint32_t t = (uint32_t)(need - p->cr_fenced);

			if (t) {
				ret = hpu_cb_fence(b,
						   ccl_sob_credit(c->sob_base,
								  n, m->peer),
						   t, t);
				if (ret)
					return ret;
				p->cr_fenced = need;
			}
		}
		ret = hpu_cb_nic_write_key(
			b, p->conn, m->src, p->key, off, m->len,
			ccl_sob_arrival(p->sob_base, c->rank), 1);
		if (ret)
			return ret;
		p->send_cnt++;
	}
	if (r->sent_dep) {
		/* a NIC_WRITE has read its source when the next packet runs */
		for (q = 0; q < c->nqueues; q++) {
			if (!queue_sends(c, r, q))
				continue;
			ret = hpu_cb_msg_long(c->queues[q].cb,
					      ccl_sob_arrival(c->sob_base,
							      c->rank),
					      HPU_MSG_OP_ADD, 1);
			if (ret)
				return ret;
		}
	}
	if (first)
		return 0;
	for (q = 0; q < c->nqueues; q++) {
		ret = hpu_cb_fence(c->queues[q].cb,
				   ccl_sob_cons(c->sob_base, n, q), 1, 1);
		if (ret)
			return ret;
	}
	for (i = 0; i < prev->nrecv; i++) {
		const struct ccl_msg *m = &prev->recv[i];
		struct ccl_peer *p = &c->peers[m->peer];

		if (m->direct)
			continue;
		ret = hpu_cb_nic_write_key(
			c->queues[p->queue].cb, p->conn, 0, p->key, 0, 0,
			ccl_sob_credit(p->sob_base, n, c->rank), 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* Round j's processing: wait for its messages, run the ops, signal. */
static int emit_tpc_round(struct hpuccl_comm *c, struct ccl_round *r)
{
	struct hpu_cb_builder *b = c->tpc_cb;
	int n = c->nranks, i, q, ret;

	for (i = 0; i < r->nrecv; i++) {
		struct ccl_msg *m = &r->recv[i];
		struct ccl_peer *p = &c->peers[m->peer];
		uint64_t slot = p->recv_cnt % CCL_WINDOW;

		if (!m->direct) {
			m->slot_va = c->inbox_va +
				     ((uint64_t)m->peer * CCL_WINDOW + slot) *
					     c->slot_bytes;
			p->recv_cnt++;
		}
		ret = hpu_cb_fence(b, ccl_sob_arrival(c->sob_base, m->peer), 1,
				   1);
		if (ret)
			return ret;
	}
	if (r->sent_dep) {
		uint32_t nq = 0;

		for (q = 0; q < c->nqueues; q++)
			nq += queue_sends(c, r, q);
		if (nq) {
			ret = hpu_cb_fence(
				b, ccl_sob_arrival(c->sob_base, c->rank), nq,
				nq);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < r->nops; i++) {
		ret = emit_op(b, r, &r->ops[i]);
		if (ret)
			return ret;
	}
	for (q = 0; q < c->nqueues; q++) {
		ret = hpu_cb_msg_long(b, ccl_sob_cons(c->sob_base, n, q),
				      HPU_MSG_OP_ADD, 1);
		if (ret)
			return ret;
	}
	return 0;
}

static int submit(struct hpuccl_comm *c, struct hpu_stream *s)
{
	struct hpu_cs_chunk ch[HPU_NIC_MAX_CONNS + 1];
	unsigned int nch = 0;
	uint64_t seq = 0;
	int q, ret;

	memset(ch, 0, sizeof(ch));
	for (q = 0; q < c->nqueues; q++) {
		struct hpu_cb_builder *b = c->queues[q].cb;

		if (!hpu_cb_builder_used(b))
			continue;
		ch[nch].cb_handle = hpu_cb_builder_handle(b);
		ch[nch].queue_index = c->queues[q].qidx;
		ch[nch].cb_size = (uint32_t)hpu_cb_builder_used(b);
		nch++;
	}
	if (hpu_cb_builder_used(c->tpc_cb)) {
		ch[nch].cb_handle = hpu_cb_builder_handle(c->tpc_cb);
		ch[nch].queue_index = c->tpc_q;
		ch[nch].cb_size = (uint32_t)hpu_cb_builder_used(c->tpc_cb);
		nch++;
	}
	if (!nch)
		return 0;
	/*
	 * At most CCL_MAX_INFLIGHT CSs of the communicator in flight: a
	 * CS's timeout runs from its submission, so a deep queue of large
	 * collectives would count its waiting time against the timeout of
	 * the last one. Waiting for an earlier CS of this rank cannot
	 * deadlock: the peers submit their part of it without waiting for
	 * anything later.
	 */
	if (c->nrecent >= CCL_MAX_INFLIGHT) {
		uint32_t st;

		hpu_cs_wait(
			c->dev,
			c->recent[(c->nrecent - CCL_MAX_INFLIGHT) % CCL_RECENT],
			(uint64_t)c->timeout_ms * 1000, &st);
	}
	ret = hpu_stream_submit(s, ch, nch, c->timeout_ms, &seq);
	for (q = 0; q < c->nqueues; q++)
		hpu_cb_builder_reset(c->queues[q].cb);
	hpu_cb_builder_reset(c->tpc_cb);
	if (ret)
		return ccl_set_error(c, ret);
	c->recent[c->nrecent++ % CCL_RECENT] = seq;
	return 0;
}

static bool builders_full(struct hpuccl_comm *c)
{
	int q;

	if (room(c->tpc_cb) < CCL_CB_MARGIN)
		return true;
	for (q = 0; q < c->nqueues; q++)
		if (room(c->queues[q].cb) < CCL_CB_MARGIN)
			return true;
	return false;
}

static int alloc_round(struct ccl_round *r, int n)
{
	/* the one-round allreduce: n shares of n operands each */
	int sq = n < CCL_ONESHOT_MAX_RANKS ? n : CCL_ONESHOT_MAX_RANKS;

	memset(r, 0, sizeof(*r));
	r->send = calloc(2 * (size_t)n, sizeof(*r->send));
	r->recv = calloc(2 * (size_t)n, sizeof(*r->recv));
	r->ops = calloc(2 * (size_t)n + 2, sizeof(*r->ops));
	r->srcs =
		calloc(4 * (size_t)n + 8 + (size_t)(sq * sq), sizeof(*r->srcs));
	return r->send && r->recv && r->ops && r->srcs ? 0 : -ENOMEM;
}

static void free_round(struct ccl_round *r)
{
	free(r->send);
	free(r->recv);
	free(r->ops);
	free(r->srcs);
}

static void clear_round(struct ccl_round *r)
{
	r->ready_dep = false;
	r->sent_dep = false;
	r->nsend = r->nrecv = r->nops = r->nsrcs = 0;
}

/* The credits of the last round's receives end the CS's NIC jobs. */
static int emit_tail(struct hpuccl_comm *c, const struct ccl_round *last)
{
	struct ccl_round empty = { 0 };

	return emit_nic_round(c, &empty, last, false);
}

int ccl_run(struct hpuccl_comm *c, struct hpu_stream *stream, uint64_t nrounds,
	    ccl_gen_fn gen, void *arg)
{
	struct ccl_round rr[2];
	bool first = true;
	uint64_t j;
	int ret;

	ret = ccl_check_error(c);
	if (ret)
		return ret;
	if (!nrounds)
		return 0;
	ret = alloc_round(&rr[0], c->nranks);
	if (!ret)
		ret = alloc_round(&rr[1], c->nranks);
	if (ret)
		goto out_free;
	for (j = 0; j < nrounds; j++) {
		struct ccl_round *r = &rr[j & 1], *prev = &rr[(j + 1) & 1];

		clear_round(r);
		ret = gen(c, arg, j, r);
		if (ret)
			goto out_free;
		ret = emit_nic_round(c, r, prev, first);
		if (!ret)
			ret = emit_tpc_round(c, r);
		if (ret)
			goto out_free;
		first = false;
		if (j + 1 < nrounds && builders_full(c)) {
			ret = emit_tail(c, r);
			if (!ret)
				ret = submit(c, stream);
			if (ret)
				goto out_free;
			first = true;
		}
	}
	ret = emit_tail(c, &rr[(nrounds - 1) & 1]);
	if (!ret)
		ret = submit(c, stream);
out_free:
	free_round(&rr[0]);
	free_round(&rr[1]);
	if (ret) {
		int q;

		/* the pair counters moved: the communicator is unusable */
		for (q = 0; q < c->nqueues; q++)
			hpu_cb_builder_reset(c->queues[q].cb);
		hpu_cb_builder_reset(c->tpc_cb);
		ret = ccl_set_error(c, ret);
	}
	return ret;
}
