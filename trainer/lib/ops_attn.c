// SPDX-License-Identifier: MIT
/*
 * ops_attn.c - the ops of causal self-attention with their backward
 * rules (ht_ops.h): batched matmuls on the MME (one GEMM packet with
 * batch strides), the scaled causal softmax (TPC softmax_causal), head
 * split and merge (TPC copies through permuted strides), and the
 * attention block composed of them.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hpu_gemm_pkt.h"
#include "ht_error.h"
#include "ht_graph.h"
#include "ht_ops.h"

/* ------------------------------------------------------------ bmm */

/**
 * struct bmm_shape - a batched product as stored
 * @batch: products (the leading sizes' product)
 * @m: rows of op(A) and C
 * @n: columns of op(B) and C
 * @k: the inner size
 */
struct bmm_shape {
	uint32_t batch;
	uint32_t m;
	uint32_t n;
	uint32_t k;
};

/* Rows and columns of a stored [..][r][c] tensor */
static uint32_t rows_of(const struct ht_tensor *t)
{
	return t->sizes[t->ndim - 2];
}

static uint32_t cols_of(const struct ht_tensor *t)
{
	return t->sizes[t->ndim - 1];
}

/* Batched GEMM: C[i] = op(A[i]) op(B[i]) + beta C[i], matrices packed */
static int bgemm(struct ht_backend *be, uint32_t flags, uint64_t a, uint64_t b,
		 uint64_t c, const struct bmm_shape *s, uint32_t lda,
		 uint32_t ldb, uint32_t dtype_ab, float beta)
{
	struct hpu_pkt_mme_gemm g;

	g = hpu_gemm_pkt(a, b, c, s->m, s->n, s->k, (uint16_t)dtype_ab, HT_F32);
	g.hdr.flags = (uint16_t)flags;
	g.lda = lda;
	g.ldb = ldb;
	g.batch = s->batch;
	g.stride_a = (uint64_t)s->m * s->k;
	g.stride_b = (uint64_t)s->k * s->n;
	g.stride_c = (uint64_t)s->m * s->n;
	g.beta = ht_f2u(beta);
	return ht_backend_gemm(be, &g);
}

/*
 * dA as stored: !ta: dC op(B)^T ([M][K]); ta: op(B) dC^T ([K][M]).
 * dB as stored: !tb: op(A)^T dC ([K][N]); tb: dC^T op(A) ([N][K]).
 * Each is one batched GEMM reading A, B and dC where they are.
 */
static int bmm_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *a = n->saved[0], *b = n->saved[1];
	struct ht_tensor *dy = n->out->grad, *dya = dy, *g;
	bool ta = n->u[0] & HT_BMM_TRANS_A, tb = n->u[0] & HT_BMM_TRANS_B;
	uint32_t M = rows_of(dy), N = cols_of(dy),
		 K = ta ? rows_of(a) : cols_of(a);
	uint32_t batch = (uint32_t)(dy->numel / ((uint64_t)M * N));
	struct bmm_shape s;
	float beta;
	int ret = 0;

	if (a->dtype != HT_F32) {
		/* the MME takes one dtype for A and B */
		ret = ht_cast(dy, a->dtype, &dya);
		if (ret)
			return ret;
	}
	if (n->in[0]) {
		ret = ht_grad_beta(be, a, &g, &beta);
		if (ret)
			return ret;
		if (!ta) {
			s = (struct bmm_shape){ batch, M, K, N };
			ret = bgemm(be, tb ? 0 : HPU_MME_F_TRANS_B, dya->addr,
				    b->addr, g->addr, &s, N, tb ? K : N,
				    a->dtype, beta);
		} else {
			s = (struct bmm_shape){ batch, K, M, N };
			ret = bgemm(be,
				    (tb ? HPU_MME_F_TRANS_A : 0) |
					    HPU_MME_F_TRANS_B,
				    b->addr, dya->addr, g->addr, &s, tb ? K : N,
				    N, a->dtype, beta);
		}
		if (ret)
			return ret;
	}
	if (n->in[1]) {
		ret = ht_grad_beta(be, b, &g, &beta);
		if (ret)
			return ret;
		if (!tb) {
			s = (struct bmm_shape){ batch, K, N, M };
			ret = bgemm(be, ta ? 0 : HPU_MME_F_TRANS_A, a->addr,
				    dya->addr, g->addr, &s, ta ? M : K, N,
				    a->dtype, beta);
		} else {
			s = (struct bmm_shape){ batch, N, K, M };
			ret = bgemm(be,
				    HPU_MME_F_TRANS_A |
					    (ta ? HPU_MME_F_TRANS_B : 0),
				    dya->addr, a->addr, g->addr, &s, N,
				    ta ? M : K, a->dtype, beta);
		}
	}
	return ret;
}

int ht_bmm(struct ht_tensor *a, struct ht_tensor *b, uint32_t flags,
	   struct ht_tensor **y)
{
	struct ht_backend *be = a->be;
	bool ta = flags & HT_BMM_TRANS_A, tb = flags & HT_BMM_TRANS_B;
	struct ht_tensor *aa = a, *ba = b, *out;
	uint32_t sizes[HT_MAX_DIMS], M, N, K, Kb;
	struct ht_node *node;
	struct bmm_shape s;
	unsigned int i;
	int ret;

	if (flags & ~(uint32_t)(HT_BMM_TRANS_A | HT_BMM_TRANS_B) ||
	    a->ndim < 2 || a->ndim != b->ndim || a->dtype == HT_I32 ||
	    b->dtype == HT_I32)
		goto err_shape;
	for (i = 0; i + 2 < a->ndim; i++)
		if (a->sizes[i] != b->sizes[i])
			goto err_shape;
	M = ta ? cols_of(a) : rows_of(a);
	K = ta ? rows_of(a) : cols_of(a);
	Kb = tb ? cols_of(b) : rows_of(b);
	N = tb ? rows_of(b) : cols_of(b);
	if (K != Kb)
		goto err_shape;
	if (be->precision == HT_PREC_BF16_MIXED || a->dtype == HT_BF16 ||
	    b->dtype == HT_BF16) {
		ret = ht_as_dtype(a, HT_BF16, &aa);
		if (!ret)
			ret = ht_as_dtype(b, HT_BF16, &ba);
		if (ret)
			return ret;
	}
	memcpy(sizes, a->sizes, sizeof(sizes));
	sizes[a->ndim - 2] = M;
	sizes[a->ndim - 1] = N;
	ret = ht_tensor_new(be, HT_F32, a->ndim, sizes, false, &out);
	if (ret)
		return ret;
	s = (struct bmm_shape){ (uint32_t)(out->numel / ((uint64_t)M * N)), M,
				N, K };
	ret = bgemm(be,
		    (ta ? HPU_MME_F_TRANS_A : 0) | (tb ? HPU_MME_F_TRANS_B : 0),
		    aa->addr, ba->addr, out->addr, &s, cols_of(a), cols_of(b),
		    aa->dtype, 0.0f);
	if (ret)
		return ret;
	if (ht_needs_grad(be, (struct ht_tensor *[]){ aa, ba }, 2)) {
		ret = ht_tape_record(be, "bmm", bmm_bwd, out,
				     (struct ht_tensor *[]){ aa, ba }, 2,
				     &node);
		if (ret)
			return ret;
		node->saved[0] = aa;
		node->saved[1] = ba;
		node->u[0] = flags;
	}
	*y = out;
	return 0;

err_shape:
	ht_seterr(
		be->err, sizeof(be->err),
		"bmm: a [..][M][K] and b [..][K][N] (op() applied) must be float with the same leading sizes");
	return -EINVAL;
}

/* ------------------------------------------------- causal softmax */

/* The kernel's operands: three tensors of one shape, scale and offset */
static int causal_kernel(struct ht_backend *be, uint32_t id,
			 struct ht_tensor *const *t, unsigned int nt,
			 float scale, uint32_t offset)
{
	struct hpu_tpc_tensor d[3];
	uint32_t p[2] = { ht_f2u(scale), offset };
	unsigned int i;

	for (i = 0; i < nt; i++)
		ht_tensor_desc(t[i], &d[i]);
	/* the offset moves with every decode step of a replayed graph */
	return ht_backend_kernel_dyn(be, id, d, nt, p, 2, 1U << 1);
}

static int causal_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0], *dst;
	int ret = ht_grad_dst(be, x, &dst);

	if (ret)
		return ret;
	ret = causal_kernel(be, HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD,
			    (struct ht_tensor *[]){ n->out, n->out->grad, dst },
			    3, n->f[0], n->u[0]);
	return ret ? ret : ht_grad_done(be, x, dst);
}

int ht_causal_softmax(struct ht_tensor *x, float scale, uint32_t offset,
		      struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *out;
	struct ht_node *node;
	int ret;

	if (x->ndim < 2 || x->dtype != HT_F32 || !isfinite(scale) ||
	    !(scale > 0) ||
	    (uint64_t)offset + rows_of(x) > (uint64_t)cols_of(x)) {
		ht_seterr(
			be->err, sizeof(be->err),
			"causal softmax: x must be fp32 [..][Tq][Tk] with offset + Tq <= Tk and the scale finite and > 0");
		return -EINVAL;
	}
	ret = ht_tensor_like(x, HT_F32, &out);
	if (!ret)
		ret = causal_kernel(be, HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
				    (struct ht_tensor *[]){ x, out }, 2, scale,
				    offset);
	if (ret)
		return ret;
	ret = ht_tape_unary(be, "causal_softmax", causal_bwd, x, out, &node);
	if (ret)
		return ret;
	if (node) {
		node->f[0] = scale;
		node->u[0] = offset;
	}
	*y = out;
	return 0;
}

/* ------------------------------------------------- heads split/merge */

/*
 * Descriptors of the two layouts of one head-split tensor, dimensions
 * innermost first {D, T, H, B}: the columns @col0.. of a [B][T][@cx]
 * tensor at @wide, and a packed [B][H][T][D] tensor at @heads
 */
static void heads_descs(uint32_t B, uint32_t T, uint32_t H, uint32_t D,
			uint32_t cx, uint32_t col0, uint64_t wide,
			uint64_t heads, struct hpu_tpc_tensor *dw,
			struct hpu_tpc_tensor *dh)
{
	const uint32_t sizes[4] = { D, T, H, B };
	unsigned int i;

	memset(dw, 0, sizeof(*dw));
	memset(dh, 0, sizeof(*dh));
	dw->addr = wide + (uint64_t)col0 * sizeof(float);
	dh->addr = heads;
	dw->dtype = dh->dtype = HT_F32;
	dw->ndims = dh->ndims = 4;
	for (i = 0; i < 4; i++)
		dw->sizes[i] = dh->sizes[i] = sizes[i];
	dw->strides[0] = 1;
	dw->strides[1] = cx;
	dw->strides[2] = D;
	dw->strides[3] = (uint64_t)T * cx;
	dh->strides[0] = 1;
	dh->strides[1] = D;
	dh->strides[2] = (uint64_t)T * D;
	dh->strides[3] = (uint64_t)H * T * D;
}

/*
 * Whether heads [B][H][T][D] of the H * D columns of [B][T][@cx] rows are
 * those bytes as they are: one token (T == 1) of one sequence, or of rows
 * that hold nothing but the heads. Split and merge are then views, not
 * copies (a decode step's q/k/v and its attention output).
 */
static bool heads_are_rows(uint32_t B, uint32_t T, uint64_t hd, uint32_t cx)
{
	return T == 1 && (B == 1 || hd == cx);
}

static int copy_desc(struct ht_backend *be, const struct hpu_tpc_tensor *src,
		     const struct hpu_tpc_tensor *dst)
{
	struct hpu_tpc_tensor d[2] = { *src, *dst };

	return ht_backend_kernel(be, HPU_TPC_KERNEL_COPY, d, 2, NULL, 0);
}

/*
 * dx[.., col0 .. col0 + H*D) += dy as heads. The first contribution
 * writes the whole gradient: zeros outside the columns when they are
 * not all of x's.
 */
static int split_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0], *dy = n->out->grad, *g;
	uint32_t B = x->sizes[0], T = x->sizes[1], cx = x->sizes[2];
	uint32_t H = n->out->sizes[1], D = n->out->sizes[3], col0 = n->u[0];
	struct hpu_tpc_tensor dw, dh, d[3];
	float beta;
	int ret;

	ret = ht_grad_beta(be, x, &g, &beta);
	if (ret)
		return ret;
	if (beta == 0.0f) {
		if (col0 || (uint64_t)H * D != cx)
			ret = ht_tensor_fill(g, 0.0f);
		heads_descs(B, T, H, D, cx, col0, g->addr, dy->addr, &dw, &dh);
		return ret ? ret : copy_desc(be, &dh, &dw);
	}
	/* accumulate: dy added to the columns in place */
	heads_descs(B, T, H, D, cx, col0, g->addr, dy->addr, &d[0], &d[1]);
	d[2] = d[0];
	return ht_backend_kernel(be, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
}

int ht_split_heads(struct ht_tensor *x, uint32_t col0, uint32_t heads,
		   uint32_t head_dim, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct hpu_tpc_tensor dw, dh;
	struct ht_tensor *out;
	struct ht_node *node;
	uint32_t B, T;
	int ret;

	if (x->ndim != 3 || x->dtype != HT_F32 || !heads || !head_dim ||
	    (uint64_t)col0 + (uint64_t)heads * head_dim > x->sizes[2]) {
		ht_seterr(
			be->err, sizeof(be->err),
			"split heads: x must be fp32 [B][T][C] with col0 + heads * head_dim <= C");
		return -EINVAL;
	}
	B = x->sizes[0];
	T = x->sizes[1];
	if (heads_are_rows(B, T, heads * head_dim, x->sizes[2])) {
		/* a decode step's one token: the heads are the columns */
		ret = ht_tensor_slice(x, col0, 4,
				      (uint32_t[]){ B, heads, T, head_dim },
				      &out);
		if (ret)
			return ret;
	} else {
		ret = ht_tensor_new(be, HT_F32, 4,
				    (uint32_t[]){ B, heads, T, head_dim },
				    false, &out);
		if (ret)
			return ret;
		heads_descs(B, T, heads, head_dim, x->sizes[2], col0, x->addr,
			    out->addr, &dw, &dh);
		ret = copy_desc(be, &dw, &dh);
		if (ret)
			return ret;
	}
	ret = ht_tape_unary(be, "split_heads", split_bwd, x, out, &node);
	if (ret)
		return ret;
	if (node)
		node->u[0] = col0;
	*y = out;
	return 0;
}

/* dx (heads) = dy's columns as heads */
static int merge_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0], *dy = n->out->grad, *dst;
	uint32_t B = x->sizes[0], H = x->sizes[1], T = x->sizes[2];
	uint32_t D = x->sizes[3];
	struct hpu_tpc_tensor dw, dh;
	int ret = ht_grad_dst(be, x, &dst);

	if (ret)
		return ret;
	heads_descs(B, T, H, D, H * D, 0, dy->addr, dst->addr, &dw, &dh);
	ret = copy_desc(be, &dw, &dh);
	return ret ? ret : ht_grad_done(be, x, dst);
}

int ht_merge_heads(struct ht_tensor *x, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct hpu_tpc_tensor dw, dh;
	struct ht_tensor *out;
	uint32_t B, H, T, D;
	int ret;

	if (x->ndim != 4 || x->dtype != HT_F32 ||
	    (uint64_t)x->sizes[1] * x->sizes[3] > UINT32_MAX) {
		ht_seterr(be->err, sizeof(be->err),
			  "merge heads: x must be fp32 [B][H][T][D]");
		return -EINVAL;
	}
	B = x->sizes[0];
	H = x->sizes[1];
	T = x->sizes[2];
	D = x->sizes[3];
	if (heads_are_rows(B, T, H * D, H * D)) {
		ret = ht_tensor_view(x, 3, (uint32_t[]){ B, T, H * D }, &out);
		if (ret)
			return ret;
	} else {
		ret = ht_tensor_new(be, HT_F32, 3, (uint32_t[]){ B, T, H * D },
				    false, &out);
		if (ret)
			return ret;
		heads_descs(B, T, H, D, H * D, 0, out->addr, x->addr, &dw, &dh);
		ret = copy_desc(be, &dh, &dw);
		if (ret)
			return ret;
	}
	ret = ht_tape_unary(be, "merge_heads", merge_bwd, x, out, NULL);
	if (ret)
		return ret;
	*y = out;
	return 0;
}

/* ------------------------------------------------- key/value cache */

int ht_kv_cache_write(struct ht_tensor *cache, struct ht_tensor *src,
		      uint32_t pos)
{
	struct ht_backend *be = cache->be;
	struct hpu_tpc_tensor d[2];
	unsigned int i;

	if (cache->ndim < 2 || cache->ndim != src->ndim ||
	    cache->dtype != src->dtype || src->dtype == HT_I32)
		goto err_shape;
	for (i = 0; i < src->ndim; i++)
		if (i != src->ndim - 2 && src->sizes[i] != cache->sizes[i])
			goto err_shape;
	if ((uint64_t)pos + rows_of(src) > rows_of(cache)) {
		ht_seterr(
			be->err, sizeof(be->err),
			"kv cache write: positions %u..%u past the cache's %u slots",
			pos, pos + rows_of(src) - 1, rows_of(cache));
		return -EINVAL;
	}
	ht_tensor_desc(src, &d[0]);
	ht_tensor_desc(cache, &d[1]);
	/* the position moves with every decode step of a replayed graph */
	return ht_backend_kernel_dyn(be, HPU_TPC_KERNEL_KV_CACHE_WRITE, d, 2,
				     &pos, 1, 1U << 0);

err_shape:
	ht_seterr(
		be->err, sizeof(be->err),
		"kv cache write: src [..][T][D] and cache [..][slots][D] must be float of one dtype with the same other sizes");
	return -EINVAL;
}

int ht_kv_cache_write_heads(struct ht_tensor *cache, struct ht_tensor *x,
			    uint32_t col0, uint32_t pos)
{
	struct ht_backend *be = cache->be;
	struct hpu_tpc_tensor d[2], dh;
	uint32_t B, H, T, D;

	if (cache->ndim != 4 || x->ndim != 3 || x->dtype != cache->dtype ||
	    x->dtype != HT_F32 || x->sizes[0] != cache->sizes[0] ||
	    (uint64_t)col0 + (uint64_t)cache->sizes[1] * cache->sizes[3] >
		    x->sizes[2]) {
		ht_seterr(
			be->err, sizeof(be->err),
			"kv cache write: x [B][T][C] and cache [B][H][slots][D] must be fp32 with col0 + H * D <= C");
		return -EINVAL;
	}
	B = x->sizes[0];
	T = x->sizes[1];
	H = cache->sizes[1];
	D = cache->sizes[3];
	if ((uint64_t)pos + T > cache->sizes[2]) {
		ht_seterr(
			be->err, sizeof(be->err),
			"kv cache write: positions %u..%u past the cache's %u slots",
			pos, pos + T - 1, cache->sizes[2]);
		return -EINVAL;
	}
	heads_descs(B, T, H, D, x->sizes[2], col0, x->addr, 0, &d[0], &dh);
	ht_tensor_desc(cache, &d[1]);
	return ht_backend_kernel_dyn(be, HPU_TPC_KERNEL_KV_CACHE_WRITE, d, 2,
				     &pos, 1, 1U << 0);
}

/* ------------------------------------------------- the attention block */

int ht_causal_self_attention(struct ht_tensor *x,
			     const struct ht_attn_params *p,
			     struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *qkv, *q, *k, *v, *s, *pr, *o, *m;
	uint32_t C, D;
	int ret;

	if (x->ndim != 3 || !p || !p->heads || !p->w_qkv || !p->w_out ||
	    x->sizes[2] % p->heads) {
		ht_seterr(
			be->err, sizeof(be->err),
			"attention: x must be [B][T][C] with C a multiple of the heads, and both weights given");
		return -EINVAL;
	}
	C = x->sizes[2];
	D = C / p->heads;
	if (p->w_qkv->ndim != 2 || p->w_qkv->sizes[0] != 3 * C ||
	    p->w_out->ndim != 2 || p->w_out->sizes[0] != C) {
		ht_seterr(be->err, sizeof(be->err),
			  "attention: w_qkv must be [3C][C] and w_out [C][C]");
		return -EINVAL;
	}
	ret = ht_linear(x, p->w_qkv, p->b_qkv, &qkv);
	if (!ret)
		ret = ht_split_heads(qkv, 0, p->heads, D, &q);
	if (!ret)
		ret = ht_split_heads(qkv, C, p->heads, D, &k);
	if (!ret)
		ret = ht_split_heads(qkv, 2 * C, p->heads, D, &v);
	if (!ret)
		ret = ht_bmm(q, k, HT_BMM_TRANS_B, &s);
	if (!ret)
		ret = ht_causal_softmax(s, 1.0f / sqrtf((float)D), 0, &pr);
	if (!ret)
		ret = ht_dropout(pr, p->dropout, p->seed, &pr);
	if (!ret)
		ret = ht_bmm(pr, v, 0, &o);
	if (!ret)
		ret = ht_merge_heads(o, &m);
	if (!ret)
		ret = ht_linear(m, p->w_out, p->b_out, y);
	return ret;
}
