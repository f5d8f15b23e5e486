// SPDX-License-Identifier: MIT
/*
 * allreduce.c - the allreduce family: allreduce (direct, ring and hierarchical
 * schedules of one three-phase plan, and the one-round schedule for small
 * buffers) and reduce_scatter (phase A of the direct plan), and their
 * tables of algorithms (ccl_allreduce_family, ccl_reduce_scatter_family);
 * docs/collectives.md "Algorithms"
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* The allreduce's algorithms: rows of ar_algos[] */
enum ar_algo {
	AR_DIRECT,
	AR_RING,
	AR_HIER,
	AR_ONESHOT,
};

/**
 * struct ar_plan - an allreduce in three phases (docs/collectives.md):
 * A, direct reduce-scatter of the buffer into L shares among the L ranks
 * of a group; B, ring allreduce of each share among the m ranks holding
 * it (one per group); C, direct allgather of the shares inside each group.
 * Direct is L = n, m = 1; ring is L = 1, m = n; hier has the servers as
 * groups. A reduce_scatter is phase A of the direct plan.
 * @a: arguments
 * @algo: enum ar_algo it implements
 * @L: ranks per group
 * @m: groups (ranks per ring)
 * @li: this rank's index in its group
 * @ri: this rank's position in its ring
 * @grp: ranks of this rank's group by local index
 * @ring: ranks of this rank's ring by position
 * @shoff: element offset of each share
 * @shlen: elements of each share
 * @sgoff: offset of each ring segment in this rank's share
 * @sglen: elements of each ring segment
 * @na: rounds of phase A
 * @nb: rounds of phase B
 * @nc: rounds of phase C
 * @K: chunks per ring segment
 * @dse: elements per chunk of a zero-copy phase C
 * @zc: phases B and C write into the peers' recvbuf
 * @a_out: where phase A puts this rank's reduced share (allreduce: its
 *	place in recvbuf; reduce_scatter: recvbuf)
 * @overlap: sendbuf and recvbuf share bytes (in place)
 */
struct ar_plan {
	struct coll a;
	int algo;
	int L;
	int m;
	int li;
	int ri;
	int grp[AR_MAX];
	int ring[AR_MAX];
	uint64_t shoff[AR_MAX];
	uint64_t shlen[AR_MAX];
	uint64_t sgoff[AR_MAX];
	uint64_t sglen[AR_MAX];
	uint64_t na;
	uint64_t nb;
	uint64_t nc;
	uint64_t K;
	uint64_t dse;
	bool zc;
	uint64_t a_out;
	bool overlap;
};

/* Phase A round @ch: pieces of every group peer's share to it, own share
 * reduced (own data first, then the peers' in local order) */
static void ar_phase_a(struct ar_plan *x, struct ccl_round *r, uint64_t ch)
{
	const struct coll *a = &x->a;
	uint64_t mylen = coll_chunk_len(x->shlen[x->li], a->se, ch);
	uint64_t off = (x->shoff[x->li] + ch * a->se) * a->esz;
	uint64_t out = x->a_out + ch * a->se * a->esz;
	int msg[AR_MAX], l;
	struct ccl_op *op;

	for (l = 0; l < x->L; l++) {
		if (l == x->li)
			continue;
		ccl_add_send(r, x->grp[l],
			     a->send + (x->shoff[l] + ch * a->se) * a->esz,
			     coll_chunk_len(x->shlen[l], a->se, ch) * a->esz);
		msg[l] = ccl_add_recv(r, x->grp[l], mylen * a->esz);
	}
	if (!mylen)
		return;
	op = ccl_coll_acc_op(r, a, x->m == 1 ? x->L : 1, out, mylen);
	ccl_op_in(r, op, -1, a->send + off);
	for (l = 0; l < x->L; l++)
		if (l != x->li)
			ccl_op_in(r, op, msg[l], 0);
}

/*
 * Phase B round @t = step s x K + chunk k. Reduce-scatter steps s < m-1:
 * send segment ri-s (own contribution at s = 0, else what step s-1
 * reduced) to the next rank, reduce segment ri-s-1 from the previous one
 * with the own contribution. Allgather steps: send segment ri+1-s' (the
 * one this rank completed, then the one it received), receive ri-s'.
 * A chunk is sent K rounds after the round that produced it.
 */
static void ar_phase_b(struct hpuccl_comm *c, struct ar_plan *x,
		       struct ccl_round *r, uint64_t t)
{
	const struct coll *a = &x->a;
	uint64_t s = t / x->K, k = t % x->K, so = x->shoff[x->li];
	int m = x->m, next = x->ring[coll_mod(x->ri + 1, m)];
	int prev = x->ring[coll_mod(x->ri - 1, m)], gs, gr, msg;
	uint64_t base = x->L == 1 ? a->send : a->recv, ls, lr, offs, offr;
	bool rs = s < (uint64_t)m - 1;
	struct ccl_op *op;

	if (rs) {
		gs = coll_mod(x->ri - (int)s, m);
		gr = coll_mod(x->ri - (int)s - 1, m);
	} else {
		s -= (uint64_t)m - 1;
		gs = coll_mod(x->ri + 1 - (int)s, m);
		gr = coll_mod(x->ri - (int)s, m);
	}
	ls = coll_chunk_len(x->sglen[gs], a->se, k);
	lr = coll_chunk_len(x->sglen[gr], a->se, k);
	offs = (so + x->sgoff[gs] + k * a->se) * a->esz;
	offr = (so + x->sgoff[gr] + k * a->se) * a->esz;
	if (rs) {
		ccl_add_send(r, next, (s ? a->recv : base) + offs, ls * a->esz);
		msg = ccl_add_recv(r, prev, lr * a->esz);
		if (!lr)
			return;
		op = ccl_coll_acc_op(r, a, s == (uint64_t)m - 2 ? c->nranks : 1,
				     a->recv + offr, lr);
		ccl_op_in(r, op, -1, base + offr);
		ccl_op_in(r, op, msg, 0);
		return;
	}
	if (x->zc) {
		ccl_add_send_direct(r, next, a->recv + offs, ls * a->esz,
				    c->zc_key[next], c->zc_off[next] + offs);
		ccl_add_recv_direct(r, prev);
		return;
	}
	ccl_add_send(r, next, a->recv + offs, ls * a->esz);
	msg = ccl_add_recv(r, prev, lr * a->esz);
	ccl_coll_copy_op(r, a, a->recv + offr, msg, 0, lr);
}

/* Phase C round @ch: own share to the group peers, theirs placed */
static void ar_phase_c(struct hpuccl_comm *c, struct ar_plan *x,
		       struct ccl_round *r, uint64_t ch)
{
	const struct coll *a = &x->a;
	uint64_t se = x->zc ? x->dse : a->se;
	uint64_t mylen = coll_chunk_len(x->shlen[x->li], se, ch);
	uint64_t off = (x->shoff[x->li] + ch * se) * a->esz;
	int l, q, msg;

	for (l = 0; l < x->L; l++) {
		if (l == x->li)
			continue;
		q = x->grp[l];
		if (x->zc) {
			ccl_add_send_direct(r, q, a->recv + off, mylen * a->esz,
					    c->zc_key[q], c->zc_off[q] + off);
			ccl_add_recv_direct(r, q);
			continue;
		}
		ccl_add_send(r, q, a->recv + off, mylen * a->esz);
		msg = ccl_add_recv(
			r, q, coll_chunk_len(x->shlen[l], se, ch) * a->esz);
		ccl_coll_copy_op(r, a,
				 a->recv + (x->shoff[l] + ch * se) * a->esz,
				 msg, 0, coll_chunk_len(x->shlen[l], se, ch));
	}
}

/*
 * Phases A, B, C one after the other; the first round of B and of C
 * waits for the processing before it (ready_dep), and so does every
 * round of B when a segment is a single chunk (K = 1: the chunk a round
 * sends was produced by the round just before). With K >= 2 a chunk is
 * sent K >= 2 rounds after it was produced, which the NIC queues'
 * processing tails already order (docs/collectives.md). Zero copy with a
 * ring: round 0 also carries an empty message to the previous rank (the
 * one that writes into this rank's recvbuf), so that rank writes only
 * once this rank's CS runs (after the stream's earlier work).
 */
static int gen_ar(struct hpuccl_comm *c, void *arg, uint64_t j,
		  struct ccl_round *r)
{
	struct ar_plan *x = arg;
	uint64_t t = j;

	if (t < x->na) {
		ar_phase_a(x, r, t);
	} else if ((t -= x->na) < x->nb) {
		r->ready_dep = (t == 0 && x->na) || x->K < 2;
		ar_phase_b(c, x, r, t);
	} else {
		t -= x->nb;
		r->ready_dep = t == 0;
		ar_phase_c(c, x, r, t);
	}
	if (j == 0 && x->zc && x->m > 1) {
		ccl_add_send(r, x->ring[coll_mod(x->ri - 1, x->m)], 0, 0);
		ccl_add_recv(r, x->ring[coll_mod(x->ri + 1, x->m)], 0);
	}
	return 0;
}

/* Largest divisor of @n below it (1 for a prime) */
static int proper_divisor(int n)
{
	int d;

	for (d = n / 2; d > 1; d--)
		if (!(n % d))
			return d;
	return 1;
}

/*
 * Groups of the hierarchical schedule: the servers when every server has
 * as many ranks; on one server (forced hier), consecutive ranks in
 * groups of the largest proper divisor of n (so the schedule still has
 * both levels). Return: false when the servers are uneven.
 */
static bool hier_groups(struct hpuccl_comm *c, struct ar_plan *x)
{
	int n = c->nranks, me = c->rank, p;

	if (c->nservers > 1) {
		if (!c->nlocal)
			return false;
		x->L = c->nlocal;
		x->m = c->nservers;
		x->li = c->local_of[me];
		x->ri = c->server_of[me];
		for (p = 0; p < n; p++) {
			if (c->server_of[p] == x->ri)
				x->grp[c->local_of[p]] = p;
			if (c->local_of[p] == x->li)
				x->ring[c->server_of[p]] = p;
		}
		return true;
	}
	x->L = proper_divisor(n);
	x->m = n / x->L;
	x->li = me % x->L;
	x->ri = me / x->L;
	for (p = 0; p < x->L; p++)
		x->grp[p] = x->ri * x->L + p;
	for (p = 0; p < x->m; p++)
		x->ring[p] = p * x->L + x->li;
	return true;
}

/* The allreduce's automatic choice (docs/collectives.md "Selection") */
static int ar_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	if (c->nranks == 2 && bytes <= CCL_ONESHOT_BYTES)
		return AR_ONESHOT;
	if (c->nranks <= 2 || c->nservers == 1 || bytes <= CCL_SMALL_BYTES)
		return AR_DIRECT;
	return c->nlocal ? AR_HIER : AR_RING;
}

/* Shares, segments, chunks and rounds of the groups and rings in @x */
static void ar_plan_sizes(struct ar_plan *x)
{
	uint64_t maxsh, maxseg;
	int p;

	for (p = 0; p < x->L; p++)
		coll_share(x->a.count, x->L, p, &x->shoff[p], &x->shlen[p]);
	for (p = 0; p < x->m; p++)
		coll_share(x->shlen[x->li], x->m, p, &x->sgoff[p],
			   &x->sglen[p]);
	/* the same round counts on every rank, whatever its share */
	maxsh = coll_div_up(x->a.count, (uint64_t)x->L);
	maxseg = coll_div_up(maxsh, (uint64_t)x->m);
	x->K = coll_div_up(maxseg, x->a.se);
	x->na = x->L > 1 || x->m == 1 ? coll_div_up(maxsh, x->a.se) : 0;
	x->nb = x->m > 1 ? 2 * ((uint64_t)x->m - 1) * x->K : 0;
	x->dse = CCL_DIRECT_CHUNK_BYTES / x->a.esz;
	if (x->dse < x->a.se)
		x->dse = x->a.se;
	x->nc = x->L > 1 ? coll_div_up(maxsh, x->zc ? x->dse : x->a.se) : 0;
	x->a_out = x->a.recv + x->shoff[x->li] * x->a.esz;
}

/* Direct: one group of all n ranks (phases A and C) */
static uint64_t ar_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct ar_plan *x = arg;
	int p;

	x->algo = AR_DIRECT;
	x->L = c->nranks;
	x->m = 1;
	x->li = c->rank;
	x->ri = 0;
	x->ring[0] = c->rank;
	for (p = 0; p < c->nranks; p++)
		x->grp[p] = p;
	ar_plan_sizes(x);
	return x->na + x->nb + x->nc;
}

/* Ring: one ring of ranks 0..n-1 (phase B alone) */
static uint64_t ar_plan_ring(struct hpuccl_comm *c, void *arg)
{
	struct ar_plan *x = arg;
	int p;

	x->algo = AR_RING;
	x->L = 1;
	x->m = c->nranks;
	x->li = 0;
	x->ri = c->rank;
	x->grp[0] = c->rank;
	for (p = 0; p < c->nranks; p++)
		x->ring[p] = p;
	ar_plan_sizes(x);
	return x->na + x->nb + x->nc;
}

/* Hier: the servers as groups; the ring when they are uneven */
static uint64_t ar_plan_hier(struct hpuccl_comm *c, void *arg)
{
	struct ar_plan *x = arg;

	if (!hier_groups(c, x))
		return ar_plan_ring(c, x);
	x->algo = AR_HIER;
	ar_plan_sizes(x);
	return x->na + x->nb + x->nc;
}

/*
 * One-round round @ch (chunk @ch of the buffer): the chunk to every peer,
 * and every peer's chunk reduced with the own one, share by share, each
 * with the operands in the order the direct schedule's owner of that
 * share uses (the owner's data first, then the others by rank): every
 * rank computes every element as that owner would, so the result has the
 * same bits as the direct schedule's on every rank. In place, the
 * reduction waits until the NIC queues read the chunk (@sent_dep).
 */
static int gen_oneshot(struct hpuccl_comm *c, void *arg, uint64_t ch,
		       struct ccl_round *r)
{
	struct ar_plan *x = arg;
	const struct coll *a = &x->a;
	uint64_t start = ch * a->se, len = coll_chunk_len(a->count, a->se, ch);
	uint64_t s0, s1;
	int msg[AR_MAX], me = c->rank, n = c->nranks, p, l;
	struct ccl_op *op;
	bool via;

	for (l = 0; l < n; l++) {
		if (l == me)
			continue;
		ccl_add_send(r, l, a->send + start * a->esz, len * a->esz);
		msg[l] = ccl_add_recv(r, l, len * a->esz);
	}
	r->sent_dep = x->overlap;
	for (p = 0; p < n; p++) {
		s0 = x->shoff[p] > start ? x->shoff[p] : start;
		s1 = x->shoff[p] + x->shlen[p] < start + len ?
			     x->shoff[p] + x->shlen[p] :
			     start + len;
		if (s0 >= s1)
			continue;
		/*
		 * ACC writes its first operand or apart from all: in place,
		 * a peer's share is reduced in that peer's inbox slot, then
		 * copied out
		 */
		via = x->overlap && p != me;
		op = ccl_coll_acc_op(r, a, n,
				     via ? (s0 - start) * a->esz :
					   a->recv + s0 * a->esz,
				     s1 - s0);
		if (via)
			op->out_msg = msg[p];
		for (l = -1; l < n; l++) {
			int q = l < 0 ? p : l; /* the owner, then by rank */

			if (l == p)
				continue;
			if (q == me)
				ccl_op_in(r, op, -1, a->send + s0 * a->esz);
			else
				ccl_op_in(r, op, msg[q], (s0 - start) * a->esz);
		}
		if (via)
			ccl_coll_copy_op(r, a, a->recv + s0 * a->esz, msg[p],
					 (s0 - start) * a->esz, s1 - s0);
	}
	return 0;
}

/*
 * One round: every rank sends its whole buffer (chunk by chunk) to every
 * peer and reduces all of it. Direct with more ranks than it serves.
 */
static uint64_t ar_plan_oneshot(struct hpuccl_comm *c, void *arg)
{
	struct ar_plan *x = arg;
	uint64_t bytes = x->a.count * x->a.esz;

	if (c->nranks > CCL_ONESHOT_MAX_RANKS)
		return ar_plan_direct(c, x);
	ar_plan_direct(c, x);
	x->algo = AR_ONESHOT;
	x->overlap = x->a.send < x->a.recv + bytes &&
		     x->a.recv < x->a.send + bytes;
	return coll_div_up(x->a.count, x->a.se);
}

static const struct ccl_algo ar_algos[] = {
	[AR_DIRECT] = { .name = "direct",
			.plan = ar_plan_direct,
			.gen = gen_ar },
	[AR_RING] = { .name = "ring", .plan = ar_plan_ring, .gen = gen_ar },
	[AR_HIER] = { .name = "hier", .plan = ar_plan_hier, .gen = gen_ar },
	[AR_ONESHOT] = { .name = "oneshot",
			 .plan = ar_plan_oneshot,
			 .gen = gen_oneshot },
};

const struct ccl_family ccl_allreduce_family = {
	.coll = "allreduce",
	.algos = ar_algos,
	.nalgos = sizeof(ar_algos) / sizeof(ar_algos[0]),
	.other = -1,
	.choose = ar_choose,
};

int ccl_allreduce_run(uint64_t sendbuf, uint64_t recvbuf, size_t count,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	const struct ccl_family *f = &ccl_allreduce_family;
	struct ar_plan x;
	uint64_t bytes, rounds;
	int ret, algo;

	memset(&x, 0, sizeof(x));
	ret = ccl_coll_check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = ccl_coll_check_op(op);
	if (!ret)
		ret = ccl_coll_check_buf(sendbuf, count, x.a.esz);
	if (!ret)
		ret = ccl_coll_check_buf(recvbuf, count, x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !count)
		return ret;
	ccl_coll_set(&x.a, sendbuf, recvbuf, count, op);
	bytes = count * x.a.esz;
	algo = ccl_algo_pick(comm, f, bytes);
	/* every rank picks alike: the one round has no zero-copy exchange */
	if (algo != AR_ONESHOT)
		ret = ccl_coll_maybe_zc(comm, recvbuf, bytes, &x.zc);
	if (ret)
		return ret;
	rounds = f->algos[algo].plan(comm, &x);
	ccl_coll_note_algo(comm, f, x.algo, count, x.zc);
	return ccl_run(comm, stream, rounds, f->algos[x.algo].gen, &x);
}

/* The reduce_scatter's one algorithm: phase A of a direct allreduce,
 * each rank's share going to its recvbuf */
static uint64_t rs_plan_direct(struct hpuccl_comm *c, void *arg)
{
	struct ar_plan *x = arg;

	ar_plan_direct(c, x);
	x->algo = 0; /* its row in rs_algos[] */
	x->a_out = x->a.recv;
	return x->na;
}

static int rs_choose(const struct hpuccl_comm *c, uint64_t bytes)
{
	(void)c;
	(void)bytes;
	return 0;
}

static const struct ccl_algo rs_algos[] = {
	{ .name = "direct", .plan = rs_plan_direct, .gen = gen_ar },
};

const struct ccl_family ccl_reduce_scatter_family = {
	.coll = "reduce_scatter",
	.algos = rs_algos,
	.nalgos = sizeof(rs_algos) / sizeof(rs_algos[0]),
	.other = -1,
	.choose = rs_choose,
};

int ccl_reduce_scatter_run(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
			   enum hpuccl_dtype dtype, enum hpuccl_redop op,
			   struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	const struct ccl_family *f = &ccl_reduce_scatter_family;
	struct ar_plan x;
	uint64_t rounds;
	int ret, algo;

	memset(&x, 0, sizeof(x));
	ret = ccl_coll_check_common(comm, stream, dtype, &x.a);
	if (!ret)
		ret = ccl_coll_check_op(op);
	if (!ret)
		ret = ccl_coll_check_buf(
			sendbuf, recvcount * (uint64_t)comm->nranks, x.a.esz);
	if (!ret)
		ret = ccl_coll_check_buf(recvbuf, recvcount, x.a.esz);
	if (ret)
		return ret;
	ret = ccl_check_error(comm);
	if (ret || !recvcount)
		return ret;
	ccl_coll_set(&x.a, sendbuf, recvbuf, recvcount * (uint64_t)comm->nranks,
		     op);
	algo = ccl_algo_pick(comm, f, recvcount * x.a.esz);
	rounds = f->algos[algo].plan(comm, &x);
	return ccl_run(comm, stream, rounds, f->algos[x.algo].gen, &x);
}
