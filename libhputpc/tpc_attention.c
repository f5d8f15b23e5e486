// SPDX-License-Identifier: MIT
/*
 * tpc_attention.c - TPC kernels of causal self-attention: the scaled
 * softmax over attention scores with the causal mask implied by the row's
 * query position (no mask tensor in memory), forward and backward.
 *
 * Scores are [..][Tq][Tk] (dimension 0, the keys, innermost); row q of
 * dimension 1 is the query at position offset + q, which sees keys
 * 0..offset + q. A training step has offset 0 and Tq = Tk; a decode step
 * with a key/value cache of Tk slots has Tq = 1 and offset = the token's
 * position. Masked scores are never read and their outputs are 0, so the
 * unwritten tail of a cache cannot leak into a row.
 *
 * fp32 only. Each row is computed on its own, its sums in key order, so
 * rows may be spread over the caller's workers and the bits do not
 * change.
 *
 * kv_cache_write stores a step's keys or values into the cache rows of
 * its positions, the position a parameter: a decode step captured as a
 * graph writes to the next row at every replay without a new address.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_attention.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

/*
 * Three fp32 tensors of one shape [..][Tq][Tk]; p0 the scale (finite,
 * > 0), p1 the first query's position with offset + Tq <= Tk
 */
static int check_causal(const struct hpu_pkt_tpc_kernel *k, unsigned int n)
{
	float scale = hputpc_bits_f(P(0));
	unsigned int i;

	if (!hputpc_all_fp32(k, n) || T(0)->ndims < 2)
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (!hputpc_same_shape(T(0), T(i)))
			return -EINVAL;
	if (!hputpc_finite_bits(P(0)) || !(scale > 0))
		return -EINVAL;
	if ((uint64_t)P(1) + T(0)->sizes[1] > T(0)->sizes[0])
		return -EINVAL;
	return 0;
}

/* x, y; scale, offset */
static int check_causal_fwd(const struct hpu_pkt_tpc_kernel *k)
{
	return check_causal(k, 2);
}

/* y (forward output), dy, dx; scale, offset */
static int check_causal_bwd(const struct hpu_pkt_tpc_kernel *k)
{
	return check_causal(k, 3);
}

/**
 * struct causal_job - a causal softmax invocation, cut into row slices
 * @c: the invocation
 * @rows: rows (product of the sizes past dimension 0)
 * @tq: queries per block of rows (sizes[1])
 * @tk: keys per row (sizes[0])
 * @scale: factor of the scores
 * @offset: position of the first query of a block
 * @nslices: slices the rows are cut into
 */
struct causal_job {
	const struct hputpc_ctx *c;
	uint64_t rows;
	uint64_t tq;
	uint64_t tk;
	float scale;
	uint64_t offset;
	unsigned int nslices;
};

/* Keys row @r sees: 0..visible-1 */
static uint64_t visible(const struct causal_job *j, uint64_t r)
{
	uint64_t v = j->offset + r % j->tq + 1;

	return v < j->tk ? v : j->tk;
}

/* Rows [*r0, *r1) of slice @s */
static void slice_rows(const struct causal_job *j, unsigned int s, uint64_t *r0,
		       uint64_t *r1)
{
	*r0 = j->rows * s / j->nslices;
	*r1 = j->rows * (s + 1) / j->nslices;
}

static void causal_fwd_rows(void *arg, unsigned int s)
{
	const struct causal_job *j = arg;
	const struct hputpc_operand *in = &j->c->t[0], *o = &j->c->t[1];
	uint64_t sx = in->strides[0], sy = o->strides[0], r, r0, r1, i;

	slice_rows(j, s, &r0, &r1);
	for (r = r0; r < r1; r++) {
		const float *x = hputpc_f32(in, hputpc_row_off(in, r));
		float *y = hputpc_f32(o, hputpc_row_off(o, r));
		uint64_t nv = visible(j, r);
		float m = -INFINITY, z = 0.0f;

		for (i = 0; i < nv; i++) {
			float v = j->scale * x[i * sx];

			if (v > m || isnan(v))
				m = isnan(m) ? m : v;
		}
		/* e^(s x - m) kept in y (x[i] is not read again: in place
		 * works), then divided: one expf per element */
		for (i = 0; i < nv; i++) {
			float e = expf(j->scale * x[i * sx] - m);

			y[i * sy] = e;
			z += e;
		}
		for (i = 0; i < nv; i++)
			y[i * sy] /= z;
		for (; i < j->tk; i++)
			y[i * sy] = 0.0f;
	}
}

static void causal_bwd_rows(void *arg, unsigned int s)
{
	const struct causal_job *j = arg;
	const struct hputpc_operand *yt = &j->c->t[0], *dyt = &j->c->t[1],
				    *dxt = &j->c->t[2];
	uint64_t sy = yt->strides[0], sdy = dyt->strides[0],
		 sdx = dxt->strides[0], r, r0, r1, i;

	slice_rows(j, s, &r0, &r1);
	for (r = r0; r < r1; r++) {
		const float *y = hputpc_f32(yt, hputpc_row_off(yt, r));
		const float *dy = hputpc_f32(dyt, hputpc_row_off(dyt, r));
		float *dx = hputpc_f32(dxt, hputpc_row_off(dxt, r));
		uint64_t nv = visible(j, r);
		float dot = 0.0f;

		for (i = 0; i < nv; i++)
			dot += y[i * sy] * dy[i * sdy];
		for (i = 0; i < nv; i++)
			dx[i * sdx] =
				j->scale * (y[i * sy] * (dy[i * sdy] - dot));
		for (; i < j->tk; i++)
			dx[i * sdx] = 0.0f;
	}
}

static int hputpc_causal(struct hputpc_ctx *c)
{
	struct causal_job j = { .c = c };
	const struct hputpc_operand *x = &c->t[0];

	if (!x->n)
		return 0;
	j.tk = x->sizes[0];
	j.tq = x->sizes[1];
	j.rows = x->n / j.tk;
	j.scale = hputpc_pf(c, 0);
	j.offset = c->params[1];
	/* slices of whole rows, sized by elements (some may be empty) */
	hputpc_par_run(c,
		       c->id == HPU_TPC_KERNEL_SOFTMAX_CAUSAL ?
			       causal_fwd_rows :
			       causal_bwd_rows,
		       &j, &j.nslices, x->n);
	return 0;
}

/* src [..][Tq][D], cache [..][Tk][D]; p0 pos with pos + Tq <= Tk */
static int check_kv_write(const struct hpu_pkt_tpc_kernel *k)
{
	const struct hpu_tpc_tensor *src = T(0), *cache = T(1);
	uint32_t d;

	if (!hputpc_is_float(src->dtype) || src->dtype != cache->dtype ||
	    src->ndims < 2 || src->ndims != cache->ndims)
		return -EINVAL;
	for (d = 0; d < src->ndims; d++)
		if (d != 1 && src->sizes[d] != cache->sizes[d])
			return -EINVAL;
	if ((uint64_t)P(0) + src->sizes[1] > cache->sizes[1])
		return -EINVAL;
	/* the source is read while the cache is written: apart */
	if (hputpc_extents_meet(src, cache))
		return -EINVAL;
	return 0;
}

static int hputpc_kv_write(struct hputpc_ctx *c)
{
	const struct hputpc_operand *src = &c->t[0], *cache = &c->t[1];
	uint64_t es = hputpc_dtype_size(src->dtype), pos = c->params[0];
	uint64_t rows = src->n ? src->n / src->sizes[0] : 0, r, i, q, crow;

	for (r = 0; r < rows; r++) {
		const uint8_t *s = src->p + hputpc_row_off(src, r) * es;
		uint8_t *dst;

		/* the same row of the cache, @pos rows further along dim 1 */
		q = r % src->sizes[1];
		crow = (r / src->sizes[1]) * cache->sizes[1] + q + pos;
		dst = cache->p + hputpc_row_off(cache, crow) * es;
		if (src->strides[0] == 1 && cache->strides[0] == 1) {
			memcpy(dst, s, src->sizes[0] * es);
			continue;
		}
		for (i = 0; i < src->sizes[0]; i++)
			memcpy(dst + i * cache->strides[0] * es,
			       s + i * src->strides[0] * es, es);
	}
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	HPUTPC_KERNEL(SOFTMAX_CAUSAL, "softmax_causal", 2, 2, check_causal_fwd,
		      hputpc_causal),
	HPUTPC_KERNEL(SOFTMAX_CAUSAL_BWD, "softmax_causal_bwd", 3, 2,
		      check_causal_bwd, hputpc_causal),
	HPUTPC_KERNEL(KV_CACHE_WRITE, "kv_cache_write", 2, 1, check_kv_write,
		      hputpc_kv_write),
};

const struct hputpc_family hputpc_family_attention = {
	.name = "attention",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
