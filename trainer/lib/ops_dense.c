// SPDX-License-Identifier: MIT
/*
 * ops_dense.c - linear layers on the MME, elementwise ops on the TPC,
 * casts and broadcast adds, with their backward rules (ht_ops.h).
 */
#include <errno.h>
#include <string.h>

#include "hpu_gemm_pkt.h"
#include "ht_error.h"
#include "ht_graph.h"
#include "ht_ops.h"

int ht_kernel_t(uint32_t id, struct ht_tensor *const *t, unsigned int nt,
		const uint32_t *params, unsigned int np)
{
	struct hpu_tpc_tensor d[HPU_TPC_MAX_TENSORS];
	unsigned int i;

	if (!nt || nt > HPU_TPC_MAX_TENSORS)
		return -EINVAL;
	for (i = 0; i < nt; i++)
		ht_tensor_desc(t[i], &d[i]);
	return ht_backend_kernel(t[0]->be, id, d, nt, params, np);
}

/* C = alpha op(A) op(B) + beta C, one product, row-major */
static int gemm(struct ht_backend *be, uint32_t flags, uint64_t a, uint64_t b,
		uint64_t c, uint32_t m, uint32_t n, uint32_t k, uint32_t lda,
		uint32_t ldb, uint32_t ldc, uint32_t dtype_ab, float beta)
{
	struct hpu_pkt_mme_gemm g;

	g = hpu_gemm_pkt(a, b, c, m, n, k, (uint16_t)dtype_ab, HT_F32);
	g.hdr.flags = (uint16_t)flags;
	g.lda = lda;
	g.ldb = ldb;
	g.ldc = ldc;
	g.beta = ht_f2u(beta);
	return ht_backend_gemm(be, &g);
}

/* A step tensor: @t's leading dimensions, innermost size @last */
static int new_last(struct ht_tensor *t, uint32_t dtype, uint32_t last,
		    struct ht_tensor **out)
{
	uint32_t sizes[HT_MAX_DIMS];

	memcpy(sizes, t->sizes, sizeof(sizes));
	sizes[t->ndim - 1] = last;
	return ht_tensor_new(t->be, dtype, t->ndim, sizes, false, out);
}

/* ------------------------------------------------------------ linear */

static int linear_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->saved[0], *w = n->saved[1];
	struct ht_tensor *dy = n->out->grad, *dya = dy, *g, *dst;
	uint32_t in = w->sizes[1], out = w->sizes[0];
	uint32_t rows = (uint32_t)(x->numel / in);
	struct hpu_tpc_tensor d[2];
	float beta;
	int ret;

	if (x->dtype != HT_F32) {
		/* bf16 A and B: the MME takes one dtype for both */
		ret = ht_tensor_like(dy, x->dtype, &dya);
		if (ret)
			return ret;
		ht_tensor_desc(dy, &d[0]);
		ht_tensor_desc(dya, &d[1]);
		ret = ht_backend_kernel(be, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
		if (ret)
			return ret;
	}
	if (n->in[0]) {
		ret = ht_grad_beta(be, x, &g, &beta);
		if (!ret)
			ret = gemm(be, 0, dya->addr, w->addr, g->addr, rows, in,
				   out, out, in, in, x->dtype, beta);
		if (ret)
			return ret;
	}
	if (n->in[1]) {
		ret = ht_grad_beta(be, w, &g, &beta);
		if (!ret)
			ret = gemm(be, HPU_MME_F_TRANS_A, dya->addr, x->addr,
				   g->addr, out, in, rows, out, in, in,
				   x->dtype, beta);
		if (ret)
			return ret;
	}
	if (n->in[2]) {
		ret = ht_grad_dst(be, n->in[2], &dst);
		if (ret)
			return ret;
		ht_tensor_desc(dy, &d[0]);
		ht_tensor_desc(dst, &d[1]);
		ret = ht_backend_kernel(be, HPU_TPC_KERNEL_BIAS_GRAD, d, 2,
					NULL, 0);
		if (!ret)
			ret = ht_grad_done(be, n->in[2], dst);
	}
	return ret;
}

int ht_linear(struct ht_tensor *x, struct ht_tensor *w, struct ht_tensor *b,
	      struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *xa = x, *wa = w, *out;
	struct ht_node *node;
	uint32_t in, nout, rows;
	int ret;

	if (x->ndim < 1 || w->ndim != 2 ||
	    w->sizes[1] != x->sizes[x->ndim - 1] ||
	    (b && (b->ndim != 1 || b->sizes[0] != w->sizes[0])) ||
	    x->dtype == HT_I32) {
		ht_seterr(
			be->err, sizeof(be->err),
			"linear: shapes do not match (x [..][%u], W [%u][%u])",
			x->sizes[x->ndim ? x->ndim - 1 : 0], w->sizes[0],
			w->sizes[1]);
		return -EINVAL;
	}
	in = w->sizes[1];
	nout = w->sizes[0];
	rows = (uint32_t)(x->numel / in);
	if (be->precision == HT_PREC_BF16_MIXED || x->dtype == HT_BF16 ||
	    w->dtype == HT_BF16) {
		ret = ht_as_dtype(x, HT_BF16, &xa);
		if (!ret)
			ret = ht_as_dtype(w, HT_BF16, &wa);
		if (ret)
			return ret;
	}
	ret = new_last(x, HT_F32, nout, &out);
	if (!ret)
		ret = gemm(be, HPU_MME_F_TRANS_B, xa->addr, wa->addr, out->addr,
			   rows, nout, in, in, in, nout, xa->dtype, 0.0f);
	if (!ret && b) {
		struct hpu_tpc_tensor d[3];

		ht_tensor_desc(out, &d[0]);
		ht_tensor_desc(b, &d[1]);
		d[2] = d[0];
		ret = ht_backend_kernel(be, HPU_TPC_KERNEL_BIAS_ADD, d, 3, NULL,
					0);
	}
	if (ret)
		return ret;
	if (ht_needs_grad(be, (struct ht_tensor *[]){ xa, wa, b }, 3)) {
		ret = ht_tape_record(be, "linear", linear_bwd, out,
				     (struct ht_tensor *[]){ xa, wa, b }, 3,
				     &node);
		if (ret)
			return ret;
		node->saved[0] = xa;
		node->saved[1] = wa;
	}
	*y = out;
	return 0;
}

/* -------------------------------------------------------- activations */

/* dx = kernel(saved, dy) for relu/gelu (saved x) and tanh (saved y) */
static int act_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0], *dst;
	struct hpu_tpc_tensor d[3];
	int ret = ht_grad_dst(be, x, &dst);

	if (ret)
		return ret;
	ht_tensor_desc(n->saved[0], &d[0]);
	ht_tensor_desc(n->out->grad, &d[1]);
	ht_tensor_desc(dst, &d[2]);
	ret = ht_backend_kernel(be, n->u[0], d, 3, NULL, 0);
	return ret ? ret : ht_grad_done(be, x, dst);
}

static int activation(struct ht_tensor *x, uint32_t fwd, uint32_t bwd,
		      bool save_out, const char *name, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct hpu_tpc_tensor d[2];
	struct ht_tensor *out;
	struct ht_node *node;
	int ret;

	if (x->dtype == HT_I32)
		return -EINVAL;
	ret = ht_tensor_like(x, x->dtype, &out);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	ht_tensor_desc(out, &d[1]);
	ret = ht_backend_kernel(be, fwd, d, 2, NULL, 0);
	if (ret)
		return ret;
	ret = ht_tape_unary(be, name, act_bwd, x, out, &node);
	if (ret)
		return ret;
	if (node) {
		node->saved[0] = save_out ? out : x;
		node->u[0] = bwd;
	}
	*y = out;
	return 0;
}

int ht_relu(struct ht_tensor *x, struct ht_tensor **y)
{
	return activation(x, HPU_TPC_KERNEL_RELU, HPU_TPC_KERNEL_RELU_BWD,
			  false, "relu", y);
}

int ht_gelu(struct ht_tensor *x, struct ht_tensor **y)
{
	return activation(x, HPU_TPC_KERNEL_GELU, HPU_TPC_KERNEL_GELU_BWD,
			  false, "gelu", y);
}

int ht_bias_gelu(struct ht_tensor *x, struct ht_tensor *b, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *out;
	int ret;

	if (x->ndim < 1 || x->dtype != HT_F32 || b->dtype != HT_F32 ||
	    b->ndim != 1 || b->sizes[0] != x->sizes[x->ndim - 1]) {
		ht_seterr(be->err, sizeof(be->err),
			  "bias gelu: x fp32 [..][C], b fp32 [C]");
		return -EINVAL;
	}
	if (ht_needs_grad(be, (struct ht_tensor *[]){ x, b }, 2)) {
		ht_seterr(be->err, sizeof(be->err),
			  "bias gelu: inference only (no grad)");
		return -EOPNOTSUPP;
	}
	ret = ht_tensor_like(x, HT_F32, &out);
	if (ret)
		return ret;
	ret = ht_kernel_t(HPU_TPC_KERNEL_BIAS_GELU,
			  (struct ht_tensor *[]){ x, b, out }, 3, NULL, 0);
	if (ret)
		return ret;
	*y = out;
	return 0;
}

int ht_tanh(struct ht_tensor *x, struct ht_tensor **y)
{
	return activation(x, HPU_TPC_KERNEL_TANH, HPU_TPC_KERNEL_TANH_BWD, true,
			  "tanh", y);
}

/* --------------------------------------------------------------- cast */

static int cast_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct hpu_tpc_tensor d;

	ht_tensor_desc(n->out->grad, &d);
	return ht_grad_axpy(be, n->in[0], 1.0f, &d);
}

int ht_cast(struct ht_tensor *x, uint32_t dtype, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct hpu_tpc_tensor d[2];
	struct ht_tensor *out;
	struct ht_node *node;
	int ret;

	ret = ht_tensor_like(x, dtype, &out);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	ht_tensor_desc(out, &d[1]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
	if (ret)
		return ret;
	if (dtype != HT_I32 && x->dtype != HT_I32 && ht_needs_grad(be, &x, 1)) {
		ret = ht_tape_record(be, "cast", cast_bwd, out, &x, 1, &node);
		if (ret)
			return ret;
	}
	*y = out;
	return 0;
}

int ht_as_dtype(struct ht_tensor *x, uint32_t dtype, struct ht_tensor **y)
{
	if (x->dtype == dtype) {
		*y = x;
		return 0;
	}
	return ht_cast(x, dtype, y);
}

/* ---------------------------------------------------------------- add */

static int add_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *dy = n->out->grad, *b = n->in[1], *dst;
	struct hpu_tpc_tensor d[2];
	uint32_t axis = 1;
	int ret = 0;

	ht_tensor_desc(dy, &d[0]);
	if (n->in[0])
		ret = ht_grad_axpy(be, n->in[0], 1.0f, &d[0]);
	if (ret || !b)
		return ret;
	if (b->numel == dy->numel)
		return ht_grad_axpy(be, b, 1.0f, &d[0]);
	/* db: dy as [P][b] summed over P */
	ret = ht_grad_dst(be, b, &dst);
	if (ret)
		return ret;
	memset(d, 0, sizeof(d));
	d[0].addr = dy->addr;
	d[0].dtype = HT_F32;
	d[0].ndims = 2;
	d[0].sizes[0] = (uint32_t)b->numel;
	d[0].sizes[1] = (uint32_t)(dy->numel / b->numel);
	d[0].strides[0] = 1;
	d[0].strides[1] = b->numel;
	d[1] = d[0];
	d[1].addr = dst->addr;
	d[1].sizes[1] = 1;
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_REDUCE_SUM, d, 2, &axis, 1);
	return ret ? ret : ht_grad_done(be, b, dst);
}

int ht_add(struct ht_tensor *a, struct ht_tensor *b, struct ht_tensor **y)
{
	struct ht_backend *be = a->be;
	struct hpu_tpc_tensor d[3];
	struct ht_tensor *out;
	struct ht_node *node;
	unsigned int i, off;
	int ret;

	if (b->ndim > a->ndim || a->dtype != HT_F32 || b->dtype != HT_F32)
		goto err_shape;
	off = a->ndim - b->ndim;
	for (i = 0; i < b->ndim; i++)
		if (b->sizes[i] != a->sizes[off + i])
			goto err_shape;
	ret = ht_tensor_like(a, HT_F32, &out);
	if (ret)
		return ret;
	ht_tensor_desc(a, &d[0]);
	ht_tensor_desc(b, &d[1]);
	ht_tensor_desc(out, &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
	if (ret)
		return ret;
	if (ht_needs_grad(be, (struct ht_tensor *[]){ a, b }, 2)) {
		ret = ht_tape_record(be, "add", add_bwd, out,
				     (struct ht_tensor *[]){ a, b }, 2, &node);
		if (ret)
			return ret;
	}
	*y = out;
	return 0;

err_shape:
	ht_seterr(be->err, sizeof(be->err),
		  "add: b must be fp32 with a's trailing sizes");
	return -EINVAL;
}

/* ------------------------------------------------------------ reshape */

static int reshape_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor shaped = *n->in[0];
	struct hpu_tpc_tensor d;

	shaped.dtype = HT_F32;
	shaped.addr = n->out->grad->addr;
	ht_tensor_desc(&shaped, &d);
	return ht_grad_axpy(be, n->in[0], 1.0f, &d);
}

int ht_reshape(struct ht_tensor *x, unsigned int ndim, const uint32_t *sizes,
	       struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *out;
	int ret = ht_tensor_view(x, ndim, sizes, &out);

	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "reshape: the element count must not change");
		return ret;
	}
	ret = ht_tape_unary(be, "reshape", reshape_bwd, x, out, NULL);
	if (ret)
		return ret;
	*y = out;
	return 0;
}
