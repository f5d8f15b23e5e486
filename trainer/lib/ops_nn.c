// SPDX-License-Identifier: MIT
/*
 * ops_nn.c - layer norm, embeddings, the mean over tokens, the fused
 * softmax cross-entropy and accuracy, with their backward rules
 * (ht_ops.h). All of them are TPC kernels.
 */
#include <errno.h>
#include <string.h>

#include "ht_error.h"
#include "ht_graph.h"
#include "ht_ops.h"

/* Descriptor of @t seen as rank 2 [numel / inner][inner] */
static void desc2(const struct ht_tensor *t, uint32_t inner,
		  struct hpu_tpc_tensor *d)
{
	memset(d, 0, sizeof(*d));
	d->addr = t->addr;
	d->dtype = t->dtype;
	d->ndims = 2;
	d->sizes[0] = inner;
	d->sizes[1] = (uint32_t)(t->numel / inner);
	d->strides[0] = 1;
	d->strides[1] = inner;
}

/* Descriptor of @t seen as rank 1 [numel] */
static void desc1(const struct ht_tensor *t, struct hpu_tpc_tensor *d)
{
	memset(d, 0, sizeof(*d));
	d->addr = t->addr;
	d->dtype = t->dtype;
	d->ndims = 1;
	d->sizes[0] = (uint32_t)t->numel;
	d->strides[0] = 1;
}

/* --------------------------------------------------------- layer norm */

static int ln_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->saved[0], *dst[3];
	struct hpu_tpc_tensor d[8];
	unsigned int i;
	int ret;

	for (i = 0; i < 3; i++) {
		struct ht_tensor *t = i ? n->saved[1] : x;

		ret = n->in[i] ? ht_grad_dst(be, n->in[i], &dst[i]) :
				 ht_tensor_like(t, HT_F32, &dst[i]);
		if (ret)
			return ret;
	}
	ht_tensor_desc(x, &d[0]);
	ht_tensor_desc(n->saved[1], &d[1]);
	ht_tensor_desc(n->saved[2], &d[2]);
	ht_tensor_desc(n->saved[3], &d[3]);
	ht_tensor_desc(n->out->grad, &d[4]);
	for (i = 0; i < 3; i++)
		ht_tensor_desc(dst[i], &d[5 + i]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_LAYERNORM_BWD, d, 8, NULL,
				0);
	for (i = 0; !ret && i < 3; i++)
		if (n->in[i])
			ret = ht_grad_done(be, n->in[i], dst[i]);
	return ret;
}

int ht_layer_norm(struct ht_tensor *x, struct ht_tensor *gamma,
		  struct ht_tensor *beta, float eps, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *out, *mean, *rstd;
	struct hpu_tpc_tensor d[6];
	struct ht_node *node;
	uint32_t rows, p = ht_f2u(eps);
	int ret;

	if (x->ndim < 1 || gamma->numel != x->sizes[x->ndim - 1] ||
	    beta->numel != gamma->numel) {
		ht_seterr(
			be->err, sizeof(be->err),
			"layer norm: gamma and beta must have x's innermost size");
		return -EINVAL;
	}
	rows = (uint32_t)(x->numel / gamma->numel);
	ret = ht_tensor_like(x, HT_F32, &out);
	if (!ret)
		ret = ht_tensor_new(be, HT_F32, 1, &rows, false, &mean);
	if (!ret)
		ret = ht_tensor_new(be, HT_F32, 1, &rows, false, &rstd);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	desc1(gamma, &d[1]);
	desc1(beta, &d[2]);
	ht_tensor_desc(out, &d[3]);
	ht_tensor_desc(mean, &d[4]);
	ht_tensor_desc(rstd, &d[5]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_LAYERNORM_FWD, d, 6, &p, 1);
	if (ret)
		return ret;
	if (ht_needs_grad(be, (struct ht_tensor *[]){ x, gamma, beta }, 3)) {
		ret = ht_tape_record(be, "layer_norm", ln_bwd, out,
				     (struct ht_tensor *[]){ x, gamma, beta },
				     3, &node);
		if (ret)
			return ret;
		node->saved[0] = x;
		node->saved[1] = gamma;
		node->saved[2] = mean;
		node->saved[3] = rstd;
	}
	*y = out;
	return 0;
}

int ht_bias_residual_layer_norm(struct ht_tensor *y, struct ht_tensor *b,
				struct ht_tensor *h, struct ht_tensor *gamma,
				struct ht_tensor *beta, float eps,
				struct ht_tensor **h_out,
				struct ht_tensor **out)
{
	struct ht_backend *be = y->be;
	struct ht_tensor *ho, *o;
	struct hpu_tpc_tensor d[7];
	uint32_t p = ht_f2u(eps);
	unsigned int i;
	int ret;

	if (y->ndim < 1 || y->dtype != HT_F32 || h->dtype != HT_F32 ||
	    h->ndim != y->ndim || gamma->numel != y->sizes[y->ndim - 1] ||
	    b->numel != gamma->numel || beta->numel != gamma->numel)
		goto err_shape;
	for (i = 0; i < y->ndim; i++)
		if (h->sizes[i] != y->sizes[i])
			goto err_shape;
	if (ht_needs_grad(be, (struct ht_tensor *[]){ y, b, h, gamma, beta },
			  5)) {
		ht_seterr(be->err, sizeof(be->err),
			  "bias residual layer norm: inference only (no grad)");
		return -EOPNOTSUPP;
	}
	ret = ht_tensor_like(y, HT_F32, &ho);
	if (!ret)
		ret = ht_tensor_like(y, HT_F32, &o);
	if (ret)
		return ret;
	ht_tensor_desc(y, &d[0]);
	desc1(b, &d[1]);
	ht_tensor_desc(h, &d[2]);
	ht_tensor_desc(ho, &d[3]);
	desc1(gamma, &d[4]);
	desc1(beta, &d[5]);
	ht_tensor_desc(o, &d[6]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, d, 7, &p,
				1);
	if (ret)
		return ret;
	*h_out = ho;
	*out = o;
	return 0;

err_shape:
	ht_seterr(
		be->err, sizeof(be->err),
		"bias residual layer norm: y and h fp32 of one shape, bias, gamma and beta of its innermost size");
	return -EINVAL;
}

/* ---------------------------------------------------------- embedding */

static int embed_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *table = n->in[0], *ids = n->saved[0], *g;
	uint32_t dim = table->sizes[1];
	struct hpu_tpc_tensor d[3];
	float beta;
	int ret;

	ret = ht_grad_beta(be, table, &g, &beta);
	if (!ret && beta == 0.0f)
		ret = ht_tensor_fill(g, 0.0f); /* scatter-add accumulates */
	if (ret)
		return ret;
	desc2(n->out->grad, dim, &d[0]);
	desc1(ids, &d[1]);
	ht_tensor_desc(g, &d[2]);
	return ht_backend_kernel(be, HPU_TPC_KERNEL_EMBED_SCATTER_ADD, d, 3,
				 NULL, 0);
}

int ht_embedding(struct ht_tensor *table, struct ht_tensor *ids,
		 struct ht_tensor **y)
{
	struct ht_backend *be = table->be;
	uint32_t sizes[HT_MAX_DIMS];
	struct hpu_tpc_tensor d[3];
	struct ht_tensor *out;
	struct ht_node *node;
	int ret;

	if (table->ndim != 2 || table->dtype != HT_F32 ||
	    ids->dtype != HT_I32 || ids->ndim >= HT_MAX_DIMS) {
		ht_seterr(
			be->err, sizeof(be->err),
			"embedding: the table must be [V][D] fp32 and the ids int32 of rank < %d",
			HT_MAX_DIMS);
		return -EINVAL;
	}
	memcpy(sizes, ids->sizes, sizeof(sizes));
	sizes[ids->ndim] = table->sizes[1];
	ret = ht_tensor_new(be, HT_F32, ids->ndim + 1, sizes, false, &out);
	if (ret)
		return ret;
	ht_tensor_desc(table, &d[0]);
	desc1(ids, &d[1]);
	desc2(out, table->sizes[1], &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_EMBED_GATHER, d, 3, NULL, 0);
	if (ret)
		return ret;
	if (ht_needs_grad(be, &table, 1)) {
		ret = ht_tape_record(be, "embedding", embed_bwd, out, &table, 1,
				     &node);
		if (ret)
			return ret;
		node->saved[0] = ids;
	}
	*y = out;
	return 0;
}

/* --------------------------------------------------------------- mean */

/* @x's descriptor with size 1 along library dimension @axis */
static void keepdim_desc(const struct ht_tensor *x, unsigned int axis,
			 uint64_t addr, struct hpu_tpc_tensor *d)
{
	struct ht_tensor k = *x;

	k.sizes[axis] = 1;
	k.addr = addr;
	ht_tensor_desc(&k, d);
}

static int mean_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0];
	struct hpu_tpc_tensor src;

	keepdim_desc(x, n->u[0], n->out->grad->addr, &src);
	return ht_grad_axpy(be, x, 1.0f / (float)x->sizes[n->u[0]], &src);
}

int ht_mean_axis(struct ht_tensor *x, unsigned int axis, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	uint32_t sizes[HT_MAX_DIMS], p;
	struct hpu_tpc_tensor d[2];
	struct ht_tensor *out;
	struct ht_node *node;
	unsigned int i, k = 0;
	int ret;

	if (x->ndim < 2 || axis >= x->ndim || x->dtype != HT_F32) {
		ht_seterr(
			be->err, sizeof(be->err),
			"mean: x must be fp32 of rank >= 2 and the axis < rank");
		return -EINVAL;
	}
	for (i = 0; i < x->ndim; i++)
		if (i != axis)
			sizes[k++] = x->sizes[i];
	ret = ht_tensor_new(be, HT_F32, x->ndim - 1, sizes, false, &out);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	keepdim_desc(x, axis, out->addr, &d[1]);
	p = x->ndim - 1 - axis; /* the TPC counts dimensions innermost first */
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_REDUCE_MEAN, d, 2, &p, 1);
	if (ret)
		return ret;
	ret = ht_tape_unary(be, "mean", mean_bwd, x, out, &node);
	if (ret)
		return ret;
	if (node)
		node->u[0] = axis;
	*y = out;
	return 0;
}

/* ------------------------------------------------- softmax cross-entropy */

static int xent_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *logits = n->in[0], *dl = n->out->grad, *dst;
	struct hpu_tpc_tensor d[3];
	int ret = ht_grad_dst(be, logits, &dst);

	if (ret)
		return ret;
	ht_tensor_desc(logits, &d[0]);
	ht_tensor_desc(n->saved[0], &d[1]);
	ht_tensor_desc(dst, &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_XENT_BWD, d, 3, NULL, 0);
	if (!ret && !n->out->grad_one) {
		/* the kernel's gradient is for dloss = 1 */
		ht_tensor_desc(dst, &d[0]);
		ht_tensor_desc(dl, &d[1]);
		d[2] = d[0];
		ret = ht_backend_kernel(be, HPU_TPC_KERNEL_MUL, d, 3, NULL, 0);
	}
	return ret ? ret : ht_grad_done(be, logits, dst);
}

static int logits_ok(struct ht_backend *be, const char *what,
		     const struct ht_tensor *logits,
		     const struct ht_tensor *labels)
{
	if (logits->ndim == 2 && logits->dtype == HT_F32 && labels->ndim == 1 &&
	    labels->dtype == HT_I32 && labels->sizes[0] == logits->sizes[0])
		return 0;
	ht_seterr(be->err, sizeof(be->err),
		  "%s: logits must be [N][C] fp32 and labels [N] int32", what);
	return -EINVAL;
}

int ht_cross_entropy(struct ht_tensor *logits, struct ht_tensor *labels,
		     struct ht_tensor **loss)
{
	struct ht_backend *be = logits->be;
	struct hpu_tpc_tensor d[3];
	struct ht_tensor *out;
	struct ht_node *node;
	int ret = logits_ok(be, "cross entropy", logits, labels);

	if (!ret)
		ret = ht_tensor_new(be, HT_F32, 0, NULL, false, &out);
	if (ret)
		return ret;
	ht_tensor_desc(logits, &d[0]);
	ht_tensor_desc(labels, &d[1]);
	ht_tensor_desc(out, &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_XENT_FWD, d, 3, NULL, 0);
	if (ret)
		return ret;
	if (ht_needs_grad(be, &logits, 1)) {
		ret = ht_tape_record(be, "cross_entropy", xent_bwd, out,
				     &logits, 1, &node);
		if (ret)
			return ret;
		node->saved[0] = labels;
	}
	*loss = out;
	return 0;
}

int ht_accuracy(struct ht_tensor *logits, struct ht_tensor *labels,
		struct ht_tensor **count)
{
	struct ht_backend *be = logits->be;
	struct hpu_tpc_tensor d[3];
	struct ht_tensor *out;
	int ret = logits_ok(be, "accuracy", logits, labels);

	if (!ret)
		ret = ht_tensor_new(be, HT_I32, 0, NULL, false, &out);
	if (ret)
		return ret;
	ht_tensor_desc(logits, &d[0]);
	ht_tensor_desc(labels, &d[1]);
	ht_tensor_desc(out, &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_ACCURACY, d, 3, NULL, 0);
	if (!ret)
		*count = out;
	return ret;
}
