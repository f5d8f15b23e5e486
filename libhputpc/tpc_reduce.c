// SPDX-License-Identifier: MIT
/*
 * tpc_reduce.c - TPC kernels that reduce: bias gradient, sum/mean/max over
 * an axis, softmax and log-softmax, cross-entropy, argmax and accuracy.
 *
 * fp32 only. Every sum runs sequentially in index order, in fp32 (the
 * batch mean of the cross-entropy in double), so results are bit-identical
 * run after run.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_reduce.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

/* Columns bias_grad sums at a time */
#define BIAS_GRAD_BLOCK 256

/* Element offset of linear element @j (dimension 0 fastest) of @t */
static uint64_t lin_off(const struct hputpc_operand *t, uint64_t j)
{
	uint64_t off = 0;
	uint32_t d;

	for (d = 0; d < t->ndims && j; d++) {
		off += (j % t->sizes[d]) * t->strides[d];
		j /= t->sizes[d];
	}
	return off;
}

static int check_bias_grad(const struct hpu_pkt_tpc_kernel *k)
{
	if (T(0)->ndims < 1 || T(1)->ndims != 1 ||
	    T(1)->sizes[0] != T(0)->sizes[0] || T(0)->dtype != HPU_DTYPE_FP32 ||
	    T(1)->dtype != HPU_DTYPE_FP32)
		return -EINVAL;
	return 0;
}

static int hputpc_bias_grad(struct hputpc_ctx *c)
{
	const struct hputpc_operand *dy = &c->t[0], *db = &c->t[1];
	uint64_t C = dy->sizes[0], rows = 1, r, k, k0, n;
	float acc[BIAS_GRAD_BLOCK];
	uint32_t d;

	for (d = 1; d < dy->ndims; d++)
		rows *= dy->sizes[d];
	/*
	 * Columns in blocks, rows in order within a block: each column is
	 * still summed in row order (the same bits), and a row's offset is
	 * computed once per block, not once per element.
	 */
	for (k0 = 0; k0 < C; k0 += n) {
		n = C - k0 < BIAS_GRAD_BLOCK ? C - k0 : BIAS_GRAD_BLOCK;
		for (k = 0; k < n; k++)
			acc[k] = 0.0f;
		for (r = 0; r < rows; r++) {
			const float *row =
				hputpc_f32(dy, hputpc_row_off(dy, r) +
						       k0 * dy->strides[0]);

			for (k = 0; k < n; k++)
				acc[k] += row[k * dy->strides[0]];
		}
		for (k = 0; k < n; k++)
			*hputpc_f32(db, (k0 + k) * db->strides[0]) = acc[k];
	}
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

static int hputpc_reduce(struct hputpc_ctx *c)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	uint32_t axis = c->params[0];
	uint64_t len = in->sizes[axis], j, k;

	for (j = 0; j < o->n; j++) {
		uint64_t base = lin_off(in, 0), oo = lin_off(o, j), rem = j;
		float acc = c->id == HPU_TPC_KERNEL_REDUCE_MAX ? -INFINITY :
								 0.0f;
		uint32_t d;

		/* the same index in the input, with 0 along the axis */
		for (d = 0; d < o->ndims; d++) {
			base += (rem % o->sizes[d]) * in->strides[d];
			rem /= o->sizes[d];
		}
		for (k = 0; k < len; k++) {
			float v = *hputpc_f32(in, base + k * in->strides[axis]);

			if (c->id != HPU_TPC_KERNEL_REDUCE_MAX)
				acc += v;
			else if (v > acc || isnan(v))
				acc = isnan(acc) ? acc : v;
		}
		if (c->id == HPU_TPC_KERNEL_REDUCE_MEAN)
			acc /= (float)len;
		*hputpc_f32(o, oo) = acc;
	}
	return 0;
}

/* max and sum of exp(x - max) along a row of @n values with stride @s */
static void row_stats(const float *x, uint64_t s, uint64_t n, float *max,
		      float *sum)
{
	float m = -INFINITY, z = 0.0f;
	uint64_t i;

	for (i = 0; i < n; i++)
		if (x[i * s] > m || isnan(x[i * s]))
			m = isnan(m) ? m : x[i * s];
	for (i = 0; i < n; i++)
		z += expf(x[i * s] - m);
	*max = m;
	*sum = z;
}

static int check_softmax(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == HPU_DTYPE_FP32 && T(1)->dtype == HPU_DTYPE_FP32 &&
			       T(0)->ndims >= 1 &&
			       hputpc_same_shape(T(0), T(1)) ?
		       0 :
		       -EINVAL;
}

static int hputpc_softmax(struct hputpc_ctx *c)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	uint64_t r, i, n = in->sizes[0], rows = in->n ? in->n / n : 0;
	bool lg = c->id == HPU_TPC_KERNEL_LOG_SOFTMAX;

	for (r = 0; r < rows; r++) {
		const float *x = hputpc_f32(in, hputpc_row_off(in, r));
		float *y = hputpc_f32(o, hputpc_row_off(o, r));
		float m, z, lz;

		row_stats(x, in->strides[0], n, &m, &z);
		lz = logf(z);
		for (i = 0; i < n; i++) {
			float v = x[i * in->strides[0]] - m;

			y[i * o->strides[0]] = lg ? v - lz : expf(v) / z;
		}
	}
	return 0;
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

static int hputpc_xent_fwd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *lg = &c->t[0], *lb = &c->t[1];
	uint64_t C = lg->sizes[0], N = lg->sizes[1], r;
	double acc = 0.0;

	for (r = 0; r < N; r++) {
		const float *x = hputpc_f32(lg, r * lg->strides[1]);
		int32_t y = *hputpc_i32(lb, r * lb->strides[0]);
		float m, z;

		if (y < 0 || (uint64_t)y >= C) {
			acc += NAN;
			continue;
		}
		row_stats(x, lg->strides[0], C, &m, &z);
		acc += (double)(logf(z) + m - x[(uint64_t)y * lg->strides[0]]);
	}
	*hputpc_f32(&c->t[2], 0) = N ? (float)(acc / (double)N) : 0.0f;
	return 0;
}

static int check_xent_bwd(const struct hpu_pkt_tpc_kernel *k)
{
	return logits_labels_ok(T(0), T(1)) && hputpc_same_shape(T(0), T(2)) &&
			       T(2)->dtype == HPU_DTYPE_FP32 ?
		       0 :
		       -EINVAL;
}

static int hputpc_xent_bwd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *lg = &c->t[0], *lb = &c->t[1],
				    *g = &c->t[2];
	uint64_t C = lg->sizes[0], N = lg->sizes[1], r, i;
	float inv = 1.0f / (float)N;

	for (r = 0; r < N; r++) {
		const float *x = hputpc_f32(lg, r * lg->strides[1]);
		float *dx = hputpc_f32(g, r * g->strides[1]);
		int32_t y = *hputpc_i32(lb, r * lb->strides[0]);
		float m, z;

		row_stats(x, lg->strides[0], C, &m, &z);
		for (i = 0; i < C; i++) {
			float p = expf(x[i * lg->strides[0]] - m) / z;

			if (y < 0 || (uint64_t)y >= C)
				p = NAN;
			else if (i == (uint64_t)y)
				p -= 1.0f;
			dx[i * g->strides[0]] = p * inv;
		}
	}
	return 0;
}

/* First index of the largest value (a NaN counts as the largest), or -1 */
static int32_t row_argmax(const float *x, uint64_t s, uint64_t n)
{
	int32_t best = n ? 0 : -1;
	uint64_t i;

	for (i = 1; i < n; i++) {
		if (isnan(x[best * s]))
			break;
		if (x[i * s] > x[best * s] || isnan(x[i * s]))
			best = (int32_t)i;
	}
	return best;
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

static int hputpc_argmax(struct hputpc_ctx *c)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	uint64_t r;

	for (r = 0; r < o->n; r++)
		*hputpc_i32(o, lin_off(o, r)) =
			row_argmax(hputpc_f32(in, hputpc_row_off(in, r)),
				   in->strides[0], in->sizes[0]);
	return 0;
}

static int check_accuracy(const struct hpu_pkt_tpc_kernel *k)
{
	return logits_labels_ok(T(0), T(1)) && T(2)->ndims == 0 &&
			       T(2)->dtype == HPU_DTYPE_INT32 ?
		       0 :
		       -EINVAL;
}

static int hputpc_accuracy(struct hputpc_ctx *c)
{
	const struct hputpc_operand *lg = &c->t[0], *lb = &c->t[1];
	uint64_t N = lg->sizes[1], r;
	int32_t count = 0;

	for (r = 0; r < N; r++)
		count += row_argmax(hputpc_f32(lg, r * lg->strides[1]),
				    lg->strides[0], lg->sizes[0]) ==
			 *hputpc_i32(lb, r * lb->strides[0]);
	*hputpc_i32(&c->t[2], 0) = count;
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	HPUTPC_KERNEL(BIAS_GRAD, "bias_grad", 2, 0, check_bias_grad,
		      hputpc_bias_grad),
	HPUTPC_KERNEL(REDUCE_SUM, "reduce_sum", 2, 1, check_reduce,
		      hputpc_reduce),
	HPUTPC_KERNEL(REDUCE_MEAN, "reduce_mean", 2, 1, check_reduce,
		      hputpc_reduce),
	HPUTPC_KERNEL(REDUCE_MAX, "reduce_max", 2, 1, check_reduce,
		      hputpc_reduce),
	HPUTPC_KERNEL(SOFTMAX, "softmax", 2, 0, check_softmax, hputpc_softmax),
	HPUTPC_KERNEL(LOG_SOFTMAX, "log_softmax", 2, 0, check_softmax,
		      hputpc_softmax),
	HPUTPC_KERNEL(XENT_FWD, "xent_fwd", 3, 0, check_xent_fwd,
		      hputpc_xent_fwd),
	HPUTPC_KERNEL(XENT_BWD, "xent_bwd", 3, 0, check_xent_bwd,
		      hputpc_xent_bwd),
	HPUTPC_KERNEL(ARGMAX, "argmax", 2, 0, check_argmax, hputpc_argmax),
	HPUTPC_KERNEL(ACCURACY, "accuracy", 3, 0, check_accuracy,
		      hputpc_accuracy),
};

const struct hputpc_family hputpc_family_reduce = {
	.name = "reduce",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
