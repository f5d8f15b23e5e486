// SPDX-License-Identifier: MIT
/*
 * ccl_api.c - the collectives: argument checks and their schedules of
 * rounds for the engine (docs/collectives.md "Algorithms")
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ccl_internal.h"

HPUCCL_EXPORT const char *hpuccl_version(void)
{
	return HPU_VERSION;
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

/* ---------------------------------------------------------- allreduce */

/* Ranks a schedule can name in its fixed arrays */
#define AR_MAX (HPU_NUM_SOBS / 3 + 1)

/**
 * struct ar_plan - an allreduce in three phases (docs/collectives.md):
 * A, direct reduce-scatter of the buffer into L shares among the L ranks
 * of a group; B, ring allreduce of each share among the m ranks holding
 * it (one per group); C, direct allgather of the shares inside each group.
 * Direct is L = n, m = 1; ring is L = 1, m = n; hier has the servers as
 * groups. A reduce_scatter is phase A of the direct plan.
 * @a: arguments
 * @algo: enum ccl_algo it implements
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
};

static int mod(int a, int m)
{
	return ((a % m) + m) % m;
}

/* Phase A round @ch: pieces of every group peer's share to it, own share
 * reduced (own data first, then the peers' in local order) */
static void ar_phase_a(struct ar_plan *x, struct ccl_round *r, uint64_t ch)
{
	const struct coll *a = &x->a;
	uint64_t mylen = chunk_len(x->shlen[x->li], a->se, ch);
	uint64_t off = (x->shoff[x->li] + ch * a->se) * a->esz;
	uint64_t out = x->a_out + ch * a->se * a->esz;
	int msg[AR_MAX], l;
	struct ccl_op *op;

	for (l = 0; l < x->L; l++) {
		if (l == x->li)
			continue;
		ccl_add_send(r, x->grp[l],
			     a->send + (x->shoff[l] + ch * a->se) * a->esz,
			     chunk_len(x->shlen[l], a->se, ch) * a->esz);
		msg[l] = ccl_add_recv(r, x->grp[l], mylen * a->esz);
	}
	if (!mylen)
		return;
	op = acc_op(r, a, x->m == 1 ? x->L : 1, out, mylen);
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
	int m = x->m, next = x->ring[mod(x->ri + 1, m)];
	int prev = x->ring[mod(x->ri - 1, m)], gs, gr, msg;
	uint64_t base = x->L == 1 ? a->send : a->recv, ls, lr, offs, offr;
	bool rs = s < (uint64_t)m - 1;
	struct ccl_op *op;

	if (rs) {
		gs = mod(x->ri - (int)s, m);
		gr = mod(x->ri - (int)s - 1, m);
	} else {
		s -= (uint64_t)m - 1;
		gs = mod(x->ri + 1 - (int)s, m);
		gr = mod(x->ri - (int)s, m);
	}
	ls = chunk_len(x->sglen[gs], a->se, k);
	lr = chunk_len(x->sglen[gr], a->se, k);
	offs = (so + x->sgoff[gs] + k * a->se) * a->esz;
	offr = (so + x->sgoff[gr] + k * a->se) * a->esz;
	if (rs) {
		ccl_add_send(r, next, (s ? a->recv : base) + offs, ls * a->esz);
		msg = ccl_add_recv(r, prev, lr * a->esz);
		if (!lr)
			return;
		op = acc_op(r, a, s == (uint64_t)m - 2 ? c->nranks : 1,
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
	copy_op(r, a, a->recv + offr, msg, 0, lr);
}

/* Phase C round @ch: own share to the group peers, theirs placed */
static void ar_phase_c(struct hpuccl_comm *c, struct ar_plan *x,
		       struct ccl_round *r, uint64_t ch)
{
	const struct coll *a = &x->a;
	uint64_t se = x->zc ? x->dse : a->se;
	uint64_t mylen = chunk_len(x->shlen[x->li], se, ch);
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
		msg = ccl_add_recv(r, q,
				   chunk_len(x->shlen[l], se, ch) * a->esz);
		copy_op(r, a, a->recv + (x->shoff[l] + ch * se) * a->esz, msg,
			0, chunk_len(x->shlen[l], se, ch));
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
		ccl_add_send(r, x->ring[mod(x->ri - 1, x->m)], 0, 0);
		ccl_add_recv(r, x->ring[mod(x->ri + 1, x->m)], 0);
	}
	return 0;
}

static const char *const algo_names[] = { "auto", "direct", "ring", "hier" };

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

/* Which allreduce schedule a call runs (docs/collectives.md) */
static int ar_choose(struct hpuccl_comm *c, uint64_t bytes)
{
	if (c->nranks <= 2)
		return CCL_ALGO_DIRECT;
	if (c->algo != CCL_ALGO_AUTO)
		return c->algo;
	if (c->nservers == 1 || bytes <= CCL_SMALL_BYTES)
		return CCL_ALGO_DIRECT;
	return c->nlocal ? CCL_ALGO_HIER : CCL_ALGO_RING;
}

static void ar_plan_make(struct hpuccl_comm *c, struct ar_plan *x, int algo)
{
	int n = c->nranks, p;
	uint64_t maxsh, maxseg;

	if (algo == CCL_ALGO_HIER && !hier_groups(c, x))
		algo = CCL_ALGO_RING;
	if (algo == CCL_ALGO_RING) {
		x->L = 1;
		x->m = n;
		x->li = 0;
		x->ri = c->rank;
		x->grp[0] = c->rank;
		for (p = 0; p < n; p++)
			x->ring[p] = p;
	} else if (algo != CCL_ALGO_HIER) {
		algo = CCL_ALGO_DIRECT;
		x->L = n;
		x->m = 1;
		x->li = c->rank;
		x->ri = 0;
		x->ring[0] = c->rank;
		for (p = 0; p < n; p++)
			x->grp[p] = p;
	}
	x->algo = algo;
	for (p = 0; p < x->L; p++)
		share(x->a.count, x->L, p, &x->shoff[p], &x->shlen[p]);
	for (p = 0; p < x->m; p++)
		share(x->shlen[x->li], x->m, p, &x->sgoff[p], &x->sglen[p]);
	/* the same round counts on every rank, whatever its share */
	maxsh = div_up(x->a.count, (uint64_t)x->L);
	maxseg = div_up(maxsh, (uint64_t)x->m);
	x->K = div_up(maxseg, x->a.se);
	x->na = x->L > 1 || x->m == 1 ? div_up(maxsh, x->a.se) : 0;
	x->nb = x->m > 1 ? 2 * ((uint64_t)x->m - 1) * x->K : 0;
	x->dse = CCL_DIRECT_CHUNK_BYTES / x->a.esz;
	if (x->dse < x->a.se)
		x->dse = x->a.se;
	x->nc = x->L > 1 ? div_up(maxsh, x->zc ? x->dse : x->a.se) : 0;
	x->a_out = x->a.recv + x->shoff[x->li] * x->a.esz;
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

/* The buffers and count of a call that passed its checks */
static void coll_set(struct coll *a, uint64_t send, uint64_t recv,
		     uint64_t count, enum hpuccl_redop op)
{
	a->send = send;
	a->recv = recv;
	a->count = count;
	a->op = op;
}

/* Zero copy for a call of @bytes into @recv: the exchange (every rank
 * decides alike: sizes and threshold are the same everywhere) */
static int maybe_zc(struct hpuccl_comm *c, uint64_t recv, uint64_t bytes,
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

static void blocks_fixed(struct hpuccl_comm *c, uint64_t count, uint64_t *boff)
{
	int p;

	for (p = 0; p < c->nranks; p++)
		boff[p] = (uint64_t)p * count;
}

/* Remember (and with HPUCCL_DEBUG print) the schedule a call runs */
static void note_algo(struct hpuccl_comm *c, const char *coll, int algo,
		      uint64_t count, bool zc)
{
	c->last_algo = algo;
	if (c->debug)
		fprintf(stderr, "hpuccl: rank %d/%d %s count %llu algo %s%s\n",
			c->rank, c->nranks, coll, (unsigned long long)count,
			algo_names[algo], zc ? " zcopy" : "");
}

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
	struct ar_plan x;
	uint64_t bytes;
	int ret, algo;

	memset(&x, 0, sizeof(x));
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
	coll_set(&x.a, sendbuf, recvbuf, count, op);
	bytes = count * x.a.esz;
	algo = ar_choose(comm, bytes);
	ret = maybe_zc(comm, recvbuf, bytes, &x.zc);
	if (ret)
		return ret;
	ar_plan_make(comm, &x, algo);
	note_algo(comm, "allreduce", x.algo, count, x.zc);
	return ccl_run(comm, stream, x.na + x.nb + x.nc, gen_ar, &x);
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

/* Phase A of a direct allreduce, each rank's share going to its recvbuf */
static int run_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf,
			      size_t recvcount, enum hpuccl_dtype dtype,
			      enum hpuccl_redop op, struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	struct ar_plan x;
	int ret;

	memset(&x, 0, sizeof(x));
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
	coll_set(&x.a, sendbuf, recvbuf, recvcount * (uint64_t)comm->nranks,
		 op);
	ar_plan_make(comm, &x, CCL_ALGO_DIRECT);
	x.a_out = recvbuf;
	return ccl_run(comm, stream, x.na, gen_ar, &x);
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

/**
 * struct ag_plan - an allgather or broadcast schedule
 * @a: arguments
 * @algo: CCL_ALGO_DIRECT or CCL_ALGO_RING (broadcast: a pipelined chain)
 * @zc: data goes straight into the peers' recvbuf
 * @base: rounds before the data rounds (1 with zero copy: the round of
 *	the empty "ready" messages to the ranks that write into this one)
 * @K: chunks per block (allgather) or of the buffer (broadcast)
 * @se: elements per chunk
 * @boff: allgather: element offset of each rank's block
 */
struct ag_plan {
	struct coll a;
	int algo;
	bool zc;
	uint64_t base;
	uint64_t K;
	uint64_t se;
	uint64_t boff[AR_MAX];
};

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
static int ag_plan_make(struct hpuccl_comm *c, struct ag_plan *x,
			uint64_t bytes)
{
	int ret;

	x->algo = ag_choose(c, bytes);
	ret = maybe_zc(c, x->a.recv, bytes, &x->zc);
	if (ret)
		return ret;
	x->se = x->a.se;
	if (x->zc && x->algo == CCL_ALGO_DIRECT &&
	    CCL_DIRECT_CHUNK_BYTES / x->a.esz > x->se)
		x->se = CCL_DIRECT_CHUNK_BYTES / x->a.esz;
	x->base = x->zc ? 1 : 0;
	x->K = div_up(x->a.count, x->se);
	return 0;
}

/* Send chunk bytes to @p: into its inbox, or straight to @roff of its
 * recvbuf */
static void send_to(struct hpuccl_comm *c, const struct ag_plan *x,
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
static void recv_from(const struct ag_plan *x, struct ccl_round *r, int p,
		      uint64_t out, uint64_t count)
{
	int m;

	if (x->zc) {
		ccl_add_recv_direct(r, p);
		return;
	}
	m = ccl_add_recv(r, p, count * x->a.esz);
	copy_op(r, &x->a, out, m, 0, count);
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
	struct ag_plan *x = arg;
	const struct coll *a = &x->a;
	int n = c->nranks, me = c->rank, p, bs, br;
	uint64_t t, s, k, ls, lr;

	if (j == 0) {
		copy_op(r, a, a->recv + x->boff[me] * a->esz, -1, a->send,
			a->count);
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
		ls = chunk_len(a->count, x->se, t);
		for (p = 0; p < n; p++) {
			if (p == me)
				continue;
			send_to(c, x, r, p, a->send + t * x->se * a->esz,
				ls * a->esz,
				(x->boff[me] + t * x->se) * a->esz);
			recv_from(x, r, p,
				  a->recv + (x->boff[p] + t * x->se) * a->esz,
				  ls);
		}
		return 0;
	}
	s = t / x->K;
	k = t % x->K;
	bs = (me - (int)s + n) % n;
	br = (me - (int)s - 1 + 2 * n) % n;
	ls = lr = chunk_len(a->count, x->se, k);
	send_to(c, x, r, (me + 1) % n,
		(s ? a->recv + x->boff[bs] * a->esz : a->send) +
			k * x->se * a->esz,
		ls * a->esz, (x->boff[bs] + k * x->se) * a->esz);
	recv_from(x, r, (me + n - 1) % n,
		  a->recv + (x->boff[br] + k * x->se) * a->esz, lr);
	return 0;
}

static int run_allgather(uint64_t sendbuf, uint64_t recvbuf, size_t sendcount,
			 enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
			 struct hpu_stream *stream)
{
	struct ag_plan x;
	uint64_t rounds;
	int ret;

	memset(&x, 0, sizeof(x));
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
	coll_set(&x.a, sendbuf, recvbuf, sendcount, 0);
	blocks_fixed(comm, sendcount, x.boff);
	ret = ag_plan_make(comm, &x,
			   sendcount * x.a.esz * (uint64_t)comm->nranks);
	if (ret)
		return ret;
	rounds = x.algo == CCL_ALGO_DIRECT ? x.K :
					     (uint64_t)(comm->nranks - 1) * x.K;
	note_algo(comm, "allgather", x.algo, sendcount, x.zc);
	return ccl_run(comm, stream, x.base + rounds, gen_allgather, &x);
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
	struct a2a_arg x;
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
	coll_set(&x.a, sendbuf, recvbuf, count, 0);
	blocks_fixed(comm, count, x.boff);
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
	struct ag_plan *x = arg;
	const struct coll *a = &x->a;
	int n = c->nranks, me = c->rank, root = a->root, p;
	int d = (me - root + n) % n;
	uint64_t t, k, l;

	if (j == 0) {
		if (me == root)
			copy_op(r, a, a->recv, -1, a->send, a->count);
		if (x->zc && x->algo == CCL_ALGO_DIRECT && me != root) {
			ccl_add_send(r, root, 0, 0);
		} else if (x->zc && x->algo == CCL_ALGO_DIRECT) {
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
	if (x->algo == CCL_ALGO_DIRECT) {
		l = chunk_len(a->count, x->se, t);
		if (me != root) {
			recv_from(x, r, root, a->recv + t * x->se * a->esz, l);
			return 0;
		}
		for (p = 0; p < n; p++)
			if (p != me)
				send_to(c, x, r, p,
					a->send + t * x->se * a->esz,
					l * a->esz, t * x->se * a->esz);
		return 0;
	}
	/* chain: receive chunk t - 2(d-1), send chunk t - 2d */
	if (d && t >= 2 * (uint64_t)(d - 1) &&
	    t - 2 * (uint64_t)(d - 1) < x->K) {
		k = t - 2 * (uint64_t)(d - 1);
		recv_from(x, r, (me + n - 1) % n, a->recv + k * x->se * a->esz,
			  chunk_len(a->count, x->se, k));
	}
	if (d < n - 1 && t >= 2 * (uint64_t)d && t - 2 * (uint64_t)d < x->K) {
		k = t - 2 * (uint64_t)d;
		send_to(c, x, r, (me + 1) % n,
			(d ? a->recv : a->send) + k * x->se * a->esz,
			chunk_len(a->count, x->se, k) * a->esz,
			k * x->se * a->esz);
	}
	return 0;
}

static int run_broadcast(struct hpuccl_comm *c, struct hpu_stream *stream,
			 const struct coll *a)
{
	struct ag_plan x;
	uint64_t rounds;
	int ret;

	memset(&x, 0, sizeof(x));
	x.a = *a;
	ret = ag_plan_make(c, &x, a->count * a->esz);
	if (ret)
		return ret;
	rounds = x.algo == CCL_ALGO_DIRECT ?
			 x.K :
			 2 * (uint64_t)(c->nranks - 2) + x.K;
	note_algo(c, "broadcast", x.algo, a->count, x.zc);
	return ccl_run(c, stream, x.base + rounds, gen_broadcast, &x);
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
	coll_set(&a, sendbuf, recvbuf, count, op);
	a.root = root;
	if (kind == K_BROADCAST)
		return run_broadcast(comm, stream, &a);
	return ccl_run(comm, stream, div_up(count, a.se), gen_reduce, &a);
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
