// SPDX-License-Identifier: MIT
/*
 * tpc_gradnorm.c - TPC kernels of gradient clipping by global norm: the
 * sum of squares over several tensors (chained over any number of
 * tensors through its accumulate flag) and the scale of the gradients by
 * min(1, max_norm / (norm + 1e-6)), PyTorch's clip_grad_norm_.
 *
 * fp32 only. The sum runs on the calling thread, tensor after tensor,
 * each in index order (dimension 0 fastest), in double, rounded once to
 * fp32: bit-identical run after run.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_gradnorm.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

/* Added to the norm before dividing (PyTorch's clip_grad_norm_) */
#define CLIP_EPS 1e-6f

/* Tensors @from..num_tensors-1 pairwise apart, and apart from @one */
static bool apart(const struct hpu_pkt_tpc_kernel *k, unsigned int one,
		  unsigned int from)
{
	unsigned int i, j;

	for (i = from; i < k->num_tensors; i++) {
		if (hputpc_extents_meet(T(one), T(i)))
			return false;
		for (j = i + 1; j < k->num_tensors; j++)
			if (hputpc_extents_meet(T(i), T(j)))
				return false;
	}
	return true;
}

/*
 * No two elements of @t at one address (a gradient scaled in place must
 * not be scaled twice): the dimensions of more than one element, by
 * increasing stride, each step past the span of the ones before
 */
static bool one_to_one(const struct hpu_tpc_tensor *t)
{
	uint64_t span = 1;
	bool used[HPU_TPC_MAX_DIMS] = { false };
	uint32_t n, d, best;

	for (n = 0; n < t->ndims; n++) {
		best = HPU_TPC_MAX_DIMS;
		for (d = 0; d < t->ndims; d++)
			if (!used[d] && t->sizes[d] > 1 &&
			    (best == HPU_TPC_MAX_DIMS ||
			     t->strides[d] < t->strides[best]))
				best = d;
		if (best == HPU_TPC_MAX_DIMS)
			break;
		used[best] = true;
		if (t->strides[best] < span)
			return false;
		/* the generic rules checked that this sum fits in 64 bits */
		span += t->strides[best] * (t->sizes[best] - 1);
	}
	return true;
}

/* out (scalar), in0..inK-1 (any shapes); p0 flags */
static int check_sumsq(const struct hpu_pkt_tpc_kernel *k)
{
	unsigned int i;

	if (!hputpc_all_fp32(k, k->num_tensors) || T(0)->ndims != 0 ||
	    P(0) & ~(uint32_t)HPU_TPC_SUMSQ_ACCUMULATE)
		return -EINVAL;
	for (i = 1; i < k->num_tensors; i++)
		if (hputpc_extents_meet(T(0), T(i)))
			return -EINVAL;
	return 0;
}

/* Sum of squares of @t's elements in index order, added to @acc */
static double sumsq_add(const struct hputpc_operand *t, double acc)
{
	uint64_t r, i, rows = t->n ? t->n / t->sizes[0] : 0;

	for (r = 0; r < rows; r++) {
		const float *x = hputpc_f32(t, hputpc_row_off(t, r));

		for (i = 0; i < t->sizes[0]; i++) {
			double v = x[i * t->strides[0]];

			acc += v * v;
		}
	}
	return acc;
}

static int hputpc_sumsq(struct hputpc_ctx *c)
{
	float *out = hputpc_f32(&c->t[0], 0);
	double acc = 0.0;
	unsigned int i;

	if (c->params[0] & HPU_TPC_SUMSQ_ACCUMULATE)
		acc = *out;
	for (i = 1; i < c->nt; i++)
		acc = sumsq_add(&c->t[i], acc);
	*out = (float)acc;
	return 0;
}

/* sumsq (scalar, read), norm (scalar, written), g0..gK-1; p0 max_norm */
static int check_clip(const struct hpu_pkt_tpc_kernel *k)
{
	float mx = hputpc_bits_f(P(0));

	unsigned int i;

	if (!hputpc_all_fp32(k, k->num_tensors) || T(0)->ndims != 0 ||
	    T(1)->ndims != 0 || !hputpc_finite_bits(P(0)) || !(mx > 0))
		return -EINVAL;
	for (i = 2; i < k->num_tensors; i++)
		if (hputpc_nelems(T(i)) && !one_to_one(T(i)))
			return -EINVAL;
	/* the norm and every gradient are written: no two may share bytes */
	return apart(k, 1, 2) ? 0 : -EINVAL;
}

/* t *= coef in place */
static void scale_inplace(const struct hputpc_operand *t, float coef)
{
	uint64_t r, i, rows = t->n ? t->n / t->sizes[0] : 0;

	for (r = 0; r < rows; r++) {
		float *x = hputpc_f32(t, hputpc_row_off(t, r));

		for (i = 0; i < t->sizes[0]; i++)
			x[i * t->strides[0]] *= coef;
	}
}

static int hputpc_clip(struct hputpc_ctx *c)
{
	float norm = sqrtf(*hputpc_f32(&c->t[0], 0));
	float coef = hputpc_pf(c, 0) / (norm + CLIP_EPS);
	unsigned int i;

	/* clamped to 1; a NaN norm gives a NaN coefficient, as in PyTorch */
	if (coef > 1.0f)
		coef = 1.0f;
	*hputpc_f32(&c->t[1], 0) = norm;
	for (i = 2; i < c->nt; i++)
		scale_inplace(&c->t[i], coef);
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	/* 2..8 operands: out and K = 1..7 inputs */
	{ .id = HPU_TPC_KERNEL_SUMSQ,
	  .name = "sumsq",
	  .ntensors = HPU_TPC_MAX_TENSORS,
	  .min_tensors = 2,
	  .nparams = 1,
	  .check = check_sumsq,
	  .exec = hputpc_sumsq },
	/* 3..8 operands: sumsq, norm and K = 1..6 gradients */
	{ .id = HPU_TPC_KERNEL_CLIP_GRAD_NORM,
	  .name = "clip_grad_norm",
	  .ntensors = HPU_TPC_MAX_TENSORS,
	  .min_tensors = 3,
	  .nparams = 1,
	  .check = check_clip,
	  .exec = hputpc_clip },
};

const struct hputpc_family hputpc_family_gradnorm = {
	.name = "gradnorm",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
