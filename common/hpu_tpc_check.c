// SPDX-License-Identifier: MIT
/*
 * hpu_tpc_check.c - operand rules of the TPC kernel library
 * (docs/tpc-kernels.md): per kernel, its tensor count, ranks, dtypes,
 * shape agreement and parameter ranges.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hpu_tpc_check.h"

#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

/**
 * struct tpc_rule - what the driver knows of a kernel
 * @name: its name (docs, tools)
 * @ntensors: operand count: exact, or the most when @min_tensors is set
 * @min_tensors: the fewest operands of a kernel whose count varies, else 0
 * @nparams: parameters used; the others must be 0
 * @check: the kernel's shape/dtype/param rules (tensors already sane)
 */
struct tpc_rule {
	const char *name;
	unsigned int ntensors;
	unsigned int min_tensors;
	unsigned int nparams;
	int (*check)(const struct hpu_pkt_tpc_kernel *k);
};

size_t hpu_tpc_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case HPU_DTYPE_FP32:
	case HPU_DTYPE_INT32:
		return 4;
	case HPU_DTYPE_BF16:
		return 2;
	default:
		return 0;
	}
}

uint64_t hpu_tpc_nelems(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1;
	uint32_t d;

	for (d = 0; d < t->ndims; d++)
		n *= t->sizes[d];
	return n;
}

uint64_t hpu_tpc_extent(const struct hpu_tpc_tensor *t)
{
	uint64_t last = 0;
	uint32_t d;

	if (!hpu_tpc_nelems(t))
		return 0;
	for (d = 0; d < t->ndims; d++)
		last += (uint64_t)(t->sizes[d] - 1) * t->strides[d];
	return (last + 1) * hpu_tpc_dtype_size(t->dtype);
}

/* One tensor on its own: everything that does not depend on the kernel */
static int tensor_ok(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1, last = 0, prod, bytes;
	uint32_t d;

	if (!hpu_tpc_dtype_size(t->dtype) || t->ndims > HPU_TPC_MAX_DIMS ||
	    t->reserved)
		return -EINVAL;
	for (d = t->ndims; d < HPU_TPC_MAX_DIMS; d++)
		if (t->sizes[d] || t->strides[d])
			return -EINVAL;
	for (d = 0; d < t->ndims; d++) {
		if (t->strides[d] > HPU_TPC_MAX_ELEMS)
			return -EINVAL;
		n *= t->sizes[d]; /* <= 2^40 * 2^32: no wrap */
		if (n > HPU_TPC_MAX_ELEMS)
			return -EINVAL;
	}
	if (!n)
		return 0;
	for (d = 0; d < t->ndims; d++) {
		if (__builtin_mul_overflow((uint64_t)(t->sizes[d] - 1),
					   t->strides[d], &prod) ||
		    __builtin_add_overflow(last, prod, &last))
			return -EINVAL;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, hpu_tpc_dtype_size(t->dtype),
				   &bytes) ||
	    t->addr + bytes < t->addr)
		return -EINVAL;
	return 0;
}

static int is_float(uint32_t dtype)
{
	return dtype == HPU_DTYPE_FP32 || dtype == HPU_DTYPE_BF16;
}

static int same_shape(const struct hpu_tpc_tensor *a,
		      const struct hpu_tpc_tensor *b)
{
	return a->ndims == b->ndims &&
	       !memcmp(a->sizes, b->sizes, sizeof(a->sizes));
}

/* numpy-style: @in has at most @out's rank, each size equal or 1 */
static int bcast_ok(const struct hpu_tpc_tensor *in,
		    const struct hpu_tpc_tensor *out)
{
	uint32_t d;

	if (in->ndims > out->ndims)
		return 0;
	for (d = 0; d < in->ndims; d++)
		if (in->sizes[d] != out->sizes[d] && in->sizes[d] != 1)
			return 0;
	return 1;
}

static int finite_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return isfinite(f);
}

static float bits_f(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Rows of a tensor: the product of its sizes past dimension 0 */
static uint64_t rows_of(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1;
	uint32_t d;

	for (d = 1; d < t->ndims; d++)
		n *= t->sizes[d];
	return n;
}

static int check_fill(const struct hpu_pkt_tpc_kernel *k)
{
	return 0;
}

static int check_copy(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == T(1)->dtype && same_shape(T(0), T(1)) ? 0 :
								      -EINVAL;
}

static int check_cast(const struct hpu_pkt_tpc_kernel *k)
{
	uint32_t a = T(0)->dtype, b = T(1)->dtype;

	if (!same_shape(T(0), T(1)))
		return -EINVAL;
	if ((a == HPU_DTYPE_FP32 && b != HPU_DTYPE_FP32) ||
	    (b == HPU_DTYPE_FP32 && a != HPU_DTYPE_FP32) || a == b)
		return 0;
	return -EINVAL;
}

/* Unary elementwise: in broadcast to out, both fp32 or bf16 */
static int check_unary(const struct hpu_pkt_tpc_kernel *k)
{
	return is_float(T(0)->dtype) && is_float(T(1)->dtype) &&
			       bcast_ok(T(0), T(1)) ?
		       0 :
		       -EINVAL;
}

/* Binary elementwise: two inputs broadcast to the third */
static int check_binary(const struct hpu_pkt_tpc_kernel *k)
{
	return is_float(T(0)->dtype) && is_float(T(1)->dtype) &&
			       is_float(T(2)->dtype) && bcast_ok(T(0), T(2)) &&
			       bcast_ok(T(1), T(2)) ?
		       0 :
		       -EINVAL;
}

static int check_scale(const struct hpu_pkt_tpc_kernel *k)
{
	return finite_bits(P(0)) ? check_unary(k) : -EINVAL;
}

static int check_axpy(const struct hpu_pkt_tpc_kernel *k)
{
	return finite_bits(P(0)) ? check_binary(k) : -EINVAL;
}

static int check_bias_add(const struct hpu_pkt_tpc_kernel *k)
{
	if (T(0)->ndims < 1 || T(1)->ndims != 1 ||
	    T(1)->sizes[0] != T(0)->sizes[0] || !same_shape(T(0), T(2)))
		return -EINVAL;
	return check_binary(k);
}

static int check_bias_grad(const struct hpu_pkt_tpc_kernel *k)
{
	if (T(0)->ndims < 1 || T(1)->ndims != 1 ||
	    T(1)->sizes[0] != T(0)->sizes[0] || T(0)->dtype != HPU_DTYPE_FP32 ||
	    T(1)->dtype != HPU_DTYPE_FP32)
		return -EINVAL;
	return 0;
}

static int check_reduce(const struct hpu_pkt_tpc_kernel *k)
{
	uint32_t d, axis = P(0);

	if (T(0)->dtype != HPU_DTYPE_FP32 || T(1)->dtype != HPU_DTYPE_FP32 ||
	    axis >= T(0)->ndims || T(1)->ndims != T(0)->ndims)
		return -EINVAL;
	for (d = 0; d < T(0)->ndims; d++)
		if (T(1)->sizes[d] != (d == axis ? 1 : T(0)->sizes[d]))
			return -EINVAL;
	return 0;
}

static int check_softmax(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == HPU_DTYPE_FP32 && T(1)->dtype == HPU_DTYPE_FP32 &&
			       T(0)->ndims >= 1 && same_shape(T(0), T(1)) ?
		       0 :
		       -EINVAL;
}

/* logits [N][C] fp32, labels [N] int32 */
static int logits_labels_ok(const struct hpu_tpc_tensor *lg,
			    const struct hpu_tpc_tensor *lb)
{
	return lg->dtype == HPU_DTYPE_FP32 && lg->ndims == 2 &&
	       lb->dtype == HPU_DTYPE_INT32 && lb->ndims == 1 &&
	       lb->sizes[0] == lg->sizes[1];
}

static int check_xent_fwd(const struct hpu_pkt_tpc_kernel *k)
{
	return logits_labels_ok(T(0), T(1)) && T(2)->ndims == 0 &&
			       T(2)->dtype == HPU_DTYPE_FP32 ?
		       0 :
		       -EINVAL;
}

static int check_xent_bwd(const struct hpu_pkt_tpc_kernel *k)
{
	return logits_labels_ok(T(0), T(1)) && same_shape(T(0), T(2)) &&
			       T(2)->dtype == HPU_DTYPE_FP32 ?
		       0 :
		       -EINVAL;
}

static int all_fp32(const struct hpu_pkt_tpc_kernel *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (T(i)->dtype != HPU_DTYPE_FP32)
			return 0;
	return 1;
}

/* A [D] vector matching x's innermost size */
static int vec_ok(const struct hpu_tpc_tensor *v,
		  const struct hpu_tpc_tensor *x)
{
	return v->ndims == 1 && v->sizes[0] == x->sizes[0];
}

/* A [rows] vector: one value per row of x */
static int rowvec_ok(const struct hpu_tpc_tensor *v,
		     const struct hpu_tpc_tensor *x)
{
	return v->ndims == 1 && v->sizes[0] == rows_of(x);
}

/* x, gamma, beta, y, mean, rstd; eps */
static int check_ln_fwd(const struct hpu_pkt_tpc_kernel *k)
{
	float eps = bits_f(P(0));

	if (!all_fp32(k, 6) || T(0)->ndims < 1 || !vec_ok(T(1), T(0)) ||
	    !vec_ok(T(2), T(0)) || !same_shape(T(0), T(3)) ||
	    !rowvec_ok(T(4), T(0)) || !rowvec_ok(T(5), T(0)) ||
	    !finite_bits(P(0)) || !(eps > 0))
		return -EINVAL;
	return 0;
}

/* x, gamma, mean, rstd, dy, dx, dgamma, dbeta */
static int check_ln_bwd(const struct hpu_pkt_tpc_kernel *k)
{
	if (!all_fp32(k, 8) || T(0)->ndims < 1 || !vec_ok(T(1), T(0)) ||
	    !rowvec_ok(T(2), T(0)) || !rowvec_ok(T(3), T(0)) ||
	    !same_shape(T(0), T(4)) || !same_shape(T(0), T(5)) ||
	    !vec_ok(T(6), T(0)) || !vec_ok(T(7), T(0)))
		return -EINVAL;
	return 0;
}

/* rows [N][D] of @rows indexed by ids [N] in a table [V][D] */
static int embed_ok(const struct hpu_tpc_tensor *table,
		    const struct hpu_tpc_tensor *ids,
		    const struct hpu_tpc_tensor *rows)
{
	return table->dtype == HPU_DTYPE_FP32 && table->ndims == 2 &&
	       ids->dtype == HPU_DTYPE_INT32 && ids->ndims == 1 &&
	       rows->dtype == HPU_DTYPE_FP32 && rows->ndims == 2 &&
	       rows->sizes[0] == table->sizes[0] &&
	       rows->sizes[1] == ids->sizes[0];
}

static int check_gather(const struct hpu_pkt_tpc_kernel *k)
{
	return embed_ok(T(0), T(1), T(2)) ? 0 : -EINVAL;
}

static int check_scatter(const struct hpu_pkt_tpc_kernel *k)
{
	return embed_ok(T(2), T(1), T(0)) ? 0 : -EINVAL;
}

static int check_transpose(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == T(1)->dtype && T(0)->ndims == 2 &&
			       T(1)->ndims == 2 &&
			       T(0)->sizes[0] == T(1)->sizes[1] &&
			       T(0)->sizes[1] == T(1)->sizes[0] ?
		       0 :
		       -EINVAL;
}

/* x, y, mask; p, seed_lo, seed_hi */
static int check_dropout(const struct hpu_pkt_tpc_kernel *k)
{
	float p = bits_f(P(0));

	if (!finite_bits(P(0)) || !(p >= 0 && p < 1) ||
	    T(2)->dtype != HPU_DTYPE_FP32 || !same_shape(T(0), T(1)) ||
	    !same_shape(T(0), T(2)))
		return -EINVAL;
	return check_unary(k);
}

static int check_argmax(const struct hpu_pkt_tpc_kernel *k)
{
	uint32_t d;

	if (T(0)->dtype != HPU_DTYPE_FP32 || T(0)->ndims < 1 ||
	    T(1)->dtype != HPU_DTYPE_INT32 || T(1)->ndims != T(0)->ndims - 1)
		return -EINVAL;
	for (d = 1; d < T(0)->ndims; d++)
		if (T(1)->sizes[d - 1] != T(0)->sizes[d])
			return -EINVAL;
	return 0;
}

static int check_accuracy(const struct hpu_pkt_tpc_kernel *k)
{
	return logits_labels_ok(T(0), T(1)) && T(2)->ndims == 0 &&
			       T(2)->dtype == HPU_DTYPE_INT32 ?
		       0 :
		       -EINVAL;
}

static int same_shapes(const struct hpu_pkt_tpc_kernel *k, unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++)
		if (!same_shape(T(0), T(i)))
			return 0;
	return all_fp32(k, n);
}

/* param, grad, momentum; lr, momentum, weight decay, flags */
static int check_sgd(const struct hpu_pkt_tpc_kernel *k)
{
	if (!same_shapes(k, 3) || !finite_bits(P(0)) || !finite_bits(P(1)) ||
	    !finite_bits(P(2)) || P(3) > 1)
		return -EINVAL;
	return 0;
}

/* param, grad, m, v; lr, beta1, beta2, eps, weight decay, step */
static int check_adamw(const struct hpu_pkt_tpc_kernel *k)
{
	float b1 = bits_f(P(1)), b2 = bits_f(P(2)), eps = bits_f(P(3));
	unsigned int i;

	if (!same_shapes(k, 4) || P(5) < 1)
		return -EINVAL;
	for (i = 0; i < 5; i++)
		if (!finite_bits(P(i)))
			return -EINVAL;
	if (!(b1 >= 0 && b1 < 1) || !(b2 >= 0 && b2 < 1) || !(eps > 0))
		return -EINVAL;
	return 0;
}

/* out, in0 .. in(K-1): one dtype and shape; out is in0 or apart from all */
static int check_accumulate(const struct hpu_pkt_tpc_kernel *k)
{
	const struct hpu_tpc_tensor *o = T(0);
	uint64_t oend = o->addr + hpu_tpc_extent(o);
	unsigned int i;

	if (P(0) > HPU_TPC_ACC_MAX)
		return -EINVAL;
	if (o->dtype != HPU_DTYPE_FP32 && o->dtype != HPU_DTYPE_BF16 &&
	    o->dtype != HPU_DTYPE_INT32)
		return -EINVAL;
	/* p1, the divisor, has a meaning for every value: 0, 1 none */
	for (i = 1; i < k->num_tensors; i++) {
		const struct hpu_tpc_tensor *in = T(i);
		uint64_t iend = in->addr + hpu_tpc_extent(in);

		if (in->dtype != o->dtype || !same_shape(o, in))
			return -EINVAL;
		if (i == 1 && in->addr == o->addr &&
		    !memcmp(in->strides, o->strides, sizeof(o->strides)))
			continue; /* in place */
		if (oend > o->addr && iend > in->addr && o->addr < iend &&
		    in->addr < oend)
			return -EINVAL;
	}
	return 0;
}

#define RULE(id, nm, nt, np, fn)                                       \
	[HPU_TPC_KERNEL_##id] = {                                      \
		.name = nm, .ntensors = nt, .nparams = np, .check = fn \
	}

static const struct tpc_rule rules[HPU_TPC_KERNEL_COUNT] = {
	RULE(FILL, "fill", 1, 1, check_fill),
	RULE(COPY, "copy", 2, 0, check_copy),
	RULE(CAST, "cast", 2, 0, check_cast),
	RULE(ADD, "add", 3, 0, check_binary),
	RULE(SUB, "sub", 3, 0, check_binary),
	RULE(MUL, "mul", 3, 0, check_binary),
	RULE(DIV, "div", 3, 0, check_binary),
	RULE(SCALE, "scale", 2, 1, check_scale),
	RULE(AXPY, "axpy", 3, 1, check_axpy),
	RULE(RELU, "relu", 2, 0, check_unary),
	RULE(RELU_BWD, "relu_bwd", 3, 0, check_binary),
	RULE(GELU, "gelu", 2, 0, check_unary),
	RULE(GELU_BWD, "gelu_bwd", 3, 0, check_binary),
	RULE(TANH, "tanh", 2, 0, check_unary),
	RULE(TANH_BWD, "tanh_bwd", 3, 0, check_binary),
	RULE(SIGMOID, "sigmoid", 2, 0, check_unary),
	RULE(SIGMOID_BWD, "sigmoid_bwd", 3, 0, check_binary),
	RULE(EXP, "exp", 2, 0, check_unary),
	RULE(LOG, "log", 2, 0, check_unary),
	RULE(BIAS_ADD, "bias_add", 3, 0, check_bias_add),
	RULE(BIAS_GRAD, "bias_grad", 2, 0, check_bias_grad),
	RULE(REDUCE_SUM, "reduce_sum", 2, 1, check_reduce),
	RULE(REDUCE_MEAN, "reduce_mean", 2, 1, check_reduce),
	RULE(REDUCE_MAX, "reduce_max", 2, 1, check_reduce),
	RULE(SOFTMAX, "softmax", 2, 0, check_softmax),
	RULE(LOG_SOFTMAX, "log_softmax", 2, 0, check_softmax),
	RULE(XENT_FWD, "xent_fwd", 3, 0, check_xent_fwd),
	RULE(XENT_BWD, "xent_bwd", 3, 0, check_xent_bwd),
	RULE(LAYERNORM_FWD, "layernorm_fwd", 6, 1, check_ln_fwd),
	RULE(LAYERNORM_BWD, "layernorm_bwd", 8, 0, check_ln_bwd),
	RULE(EMBED_GATHER, "embed_gather", 3, 0, check_gather),
	RULE(EMBED_SCATTER_ADD, "embed_scatter_add", 3, 0, check_scatter),
	RULE(TRANSPOSE, "transpose", 2, 0, check_transpose),
	RULE(DROPOUT, "dropout", 3, 3, check_dropout),
	RULE(ARGMAX, "argmax", 2, 0, check_argmax),
	RULE(ACCURACY, "accuracy", 3, 0, check_accuracy),
	RULE(SGD_STEP, "sgd_step", 3, 4, check_sgd),
	RULE(ADAMW_STEP, "adamw_step", 4, 6, check_adamw),
	/* 2..8 operands: out and K = 1..7 inputs */
	[HPU_TPC_KERNEL_ACCUMULATE] = { .name = "accumulate",
					.ntensors = HPU_TPC_MAX_TENSORS,
					.min_tensors = 2,
					.nparams = 2,
					.check = check_accumulate },
};

const char *hpu_tpc_kernel_name(uint32_t id)
{
	return id < HPU_TPC_KERNEL_COUNT ? rules[id].name : NULL;
}

int hpu_tpc_check(const struct hpu_pkt_tpc_kernel *k)
{
	static const struct hpu_tpc_tensor zero;
	const struct tpc_rule *r;
	unsigned int i;

	if (k->kernel_id >= HPU_TPC_KERNEL_COUNT)
		return -EINVAL;
	r = &rules[k->kernel_id];
	if (!r->check || k->num_tensors > r->ntensors ||
	    k->num_tensors < (r->min_tensors ? r->min_tensors : r->ntensors))
		return -EINVAL;
	for (i = 0; i < HPU_TPC_MAX_TENSORS; i++) {
		if (i >= k->num_tensors ? memcmp(T(i), &zero, sizeof(zero)) :
					  tensor_ok(T(i)))
			return -EINVAL;
	}
	for (i = r->nparams; i < HPU_TPC_MAX_PARAMS; i++)
		if (P(i))
			return -EINVAL;
	return r->check(k);
}

int hpu_tpc_pkt_build(struct hpu_pkt_tpc_kernel *k, uint32_t kernel_id,
		      const struct hpu_tpc_tensor *tensors, unsigned int n,
		      const uint32_t *params, unsigned int nparams)
{
	if (!tensors || !n || n > HPU_TPC_MAX_TENSORS ||
	    nparams > HPU_TPC_MAX_PARAMS || (nparams && !params))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->hdr.opcode = HPU_PACKET_TPC_KERNEL;
	k->hdr.size = sizeof(*k);
	k->kernel_id = kernel_id;
	k->num_tensors = n;
	memcpy(k->tensors, tensors, n * sizeof(*tensors));
	if (nparams)
		memcpy(k->params, params, nparams * sizeof(*params));
	return hpu_tpc_check(k);
}
