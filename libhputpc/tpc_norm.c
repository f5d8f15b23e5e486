// SPDX-License-Identifier: MIT
/*
 * tpc_norm.c - TPC kernels of layer normalization (also fused with a
 * decode step's bias and residual add) and embeddings (fp32).
 * Sums run sequentially in index order: bit-identical run after run.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_norm.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

static uint64_t rows_of(const struct hputpc_operand *t)
{
	return t->n ? t->n / t->sizes[0] : 0;
}

/* Rows of a tensor: the product of its sizes past dimension 0 */
static uint64_t desc_rows(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1;
	uint32_t d;

	for (d = 1; d < t->ndims; d++)
		n *= t->sizes[d];
	return n;
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
	return v->ndims == 1 && v->sizes[0] == desc_rows(x);
}

/* x, gamma, beta, y, mean, rstd; eps */
static int check_ln_fwd(const struct hpu_pkt_tpc_kernel *k)
{
	float eps = hputpc_bits_f(P(0));

	if (!hputpc_all_fp32(k, 6) || T(0)->ndims < 1 || !vec_ok(T(1), T(0)) ||
	    !vec_ok(T(2), T(0)) || !hputpc_same_shape(T(0), T(3)) ||
	    !rowvec_ok(T(4), T(0)) || !rowvec_ok(T(5), T(0)) ||
	    !hputpc_finite_bits(P(0)) || !(eps > 0))
		return -EINVAL;
	return 0;
}

/*
 * Row @r of x normalized into y with gamma @g and beta @b; its mean and
 * rstd in *@mp and *@rp. The one computation of layernorm_fwd and
 * bias_residual_ln: both give the same bits.
 */
static void ln_row(const struct hputpc_operand *x,
		   const struct hputpc_operand *g,
		   const struct hputpc_operand *b,
		   const struct hputpc_operand *y, uint64_t r, float eps,
		   float *mp, float *rp)
{
	const float *xr = hputpc_f32(x, hputpc_row_off(x, r));
	float *yr = hputpc_f32(y, hputpc_row_off(y, r));
	uint64_t D = x->sizes[0], i;
	float s = 0.0f, v = 0.0f, m, rstd;

	for (i = 0; i < D; i++)
		s += xr[i * x->strides[0]];
	m = s / (float)D;
	for (i = 0; i < D; i++) {
		float t = xr[i * x->strides[0]] - m;

		v += t * t;
	}
	rstd = 1.0f / sqrtf(v / (float)D + eps);
	for (i = 0; i < D; i++)
		yr[i * y->strides[0]] =
			(xr[i * x->strides[0]] - m) * rstd *
				*hputpc_f32(g, i * g->strides[0]) +
			*hputpc_f32(b, i * b->strides[0]);
	*mp = m;
	*rp = rstd;
}

static int hputpc_ln_fwd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *x = &c->t[0], *mu = &c->t[4],
				    *rs = &c->t[5];
	uint64_t r, rows = rows_of(x);
	float eps = hputpc_pf(c, 0);

	for (r = 0; r < rows; r++)
		ln_row(x, &c->t[1], &c->t[2], &c->t[3], r, eps,
		       hputpc_f32(mu, r * mu->strides[0]),
		       hputpc_f32(rs, r * rs->strides[0]));
	return 0;
}

/*
 * y, bias, h, h_out, gamma, beta, out; eps. A decode step's residual
 * joint: the projection y plus its bias added to the stream h (h_out),
 * and the next layer norm of it (out). Inference only: no mean or rstd.
 */
static int check_brln(const struct hpu_pkt_tpc_kernel *k)
{
	float eps = hputpc_bits_f(P(0));

	if (!hputpc_all_fp32(k, 7) || T(0)->ndims < 1 || !vec_ok(T(1), T(0)) ||
	    !hputpc_same_shape(T(0), T(2)) || !hputpc_same_shape(T(0), T(3)) ||
	    !vec_ok(T(4), T(0)) || !vec_ok(T(5), T(0)) ||
	    !hputpc_same_shape(T(0), T(6)) || !hputpc_finite_bits(P(0)) ||
	    !(eps > 0))
		return -EINVAL;
	/* the normalized rows are written while the others are read */
	if (hputpc_extents_meet(T(6), T(0)) ||
	    hputpc_extents_meet(T(6), T(2)) || hputpc_extents_meet(T(6), T(3)))
		return -EINVAL;
	return 0;
}

/*
 * Per row: h_out = h + (y + bias), in that order (the bits of bias_add
 * then add), then out = layernorm(h_out) (the bits of layernorm_fwd).
 * h_out may be h or y (in place, element by element); out may not
 * overlap h_out.
 */
static int hputpc_brln(struct hputpc_ctx *c)
{
	const struct hputpc_operand *y = &c->t[0], *b = &c->t[1], *h = &c->t[2];
	const struct hputpc_operand *ho = &c->t[3];
	uint64_t D = y->sizes[0], r, i, rows = rows_of(y);
	float eps = hputpc_pf(c, 0), m, rstd;

	for (r = 0; r < rows; r++) {
		const float *yr = hputpc_f32(y, hputpc_row_off(y, r));
		const float *hr = hputpc_f32(h, hputpc_row_off(h, r));
		float *hor = hputpc_f32(ho, hputpc_row_off(ho, r));

		for (i = 0; i < D; i++) {
			float t = yr[i * y->strides[0]] +
				  *hputpc_f32(b, i * b->strides[0]);

			hor[i * ho->strides[0]] = hr[i * h->strides[0]] + t;
		}
		ln_row(ho, &c->t[4], &c->t[5], &c->t[6], r, eps, &m, &rstd);
	}
	return 0;
}

/* x, gamma, mean, rstd, dy, dx, dgamma, dbeta */
static int check_ln_bwd(const struct hpu_pkt_tpc_kernel *k)
{
	if (!hputpc_all_fp32(k, 8) || T(0)->ndims < 1 || !vec_ok(T(1), T(0)) ||
	    !rowvec_ok(T(2), T(0)) || !rowvec_ok(T(3), T(0)) ||
	    !hputpc_same_shape(T(0), T(4)) || !hputpc_same_shape(T(0), T(5)) ||
	    !vec_ok(T(6), T(0)) || !vec_ok(T(7), T(0)))
		return -EINVAL;
	return 0;
}

static int hputpc_ln_bwd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *x = &c->t[0], *g = &c->t[1],
				    *mu = &c->t[2];
	const struct hputpc_operand *rs = &c->t[3], *dy = &c->t[4],
				    *dx = &c->t[5];
	const struct hputpc_operand *dg = &c->t[6], *db = &c->t[7];
	uint64_t D = x->sizes[0], r, i, rows = 1;
	uint32_t d;

	for (d = 1; d < x->ndims; d++)
		rows *= x->sizes[d];
	for (i = 0; i < D; i++) {
		*hputpc_f32(dg, i * dg->strides[0]) = 0.0f;
		*hputpc_f32(db, i * db->strides[0]) = 0.0f;
	}
	for (r = 0; r < rows; r++) {
		const float *xr = hputpc_f32(x, hputpc_row_off(x, r));
		const float *gr = hputpc_f32(dy, hputpc_row_off(dy, r));
		float *dr = hputpc_f32(dx, hputpc_row_off(dx, r));
		float m = *hputpc_f32(mu, r * mu->strides[0]);
		float rstd = *hputpc_f32(rs, r * rs->strides[0]);
		float s1 = 0.0f, s2 = 0.0f;

		for (i = 0; i < D; i++) {
			float xh = (xr[i * x->strides[0]] - m) * rstd;
			float gy = gr[i * dy->strides[0]];
			float dxh = gy * *hputpc_f32(g, i * g->strides[0]);

			s1 += dxh;
			s2 += dxh * xh;
			*hputpc_f32(dg, i * dg->strides[0]) += gy * xh;
			*hputpc_f32(db, i * db->strides[0]) += gy;
		}
		s1 /= (float)D;
		s2 /= (float)D;
		for (i = 0; i < D; i++) {
			float xh = (xr[i * x->strides[0]] - m) * rstd;
			float dxh = gr[i * dy->strides[0]] *
				    *hputpc_f32(g, i * g->strides[0]);

			dr[i * dx->strides[0]] = rstd * (dxh - s1 - xh * s2);
		}
	}
	return 0;
}

/* Every id of @ids in 0..@v-1 */
static int ids_ok(const struct hputpc_operand *ids, uint64_t v)
{
	uint64_t n;

	for (n = 0; n < ids->n; n++) {
		int32_t id = *hputpc_i32(ids, n * ids->strides[0]);

		if (id < 0 || (uint64_t)id >= v)
			return 0;
	}
	return 1;
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

static int hputpc_gather(struct hputpc_ctx *c)
{
	const struct hputpc_operand *tb = &c->t[0], *ids = &c->t[1],
				    *o = &c->t[2];
	uint64_t D = tb->sizes[0], n, i;

	if (!ids_ok(ids, tb->sizes[1]))
		return -EIO;
	for (n = 0; n < rows_of(o); n++) {
		uint64_t id = (uint64_t)*hputpc_i32(ids, n * ids->strides[0]);

		for (i = 0; i < D; i++)
			*hputpc_f32(o, n * o->strides[1] + i * o->strides[0]) =
				*hputpc_f32(tb, id * tb->strides[1] +
							i * tb->strides[0]);
	}
	return 0;
}

static int check_scatter(const struct hpu_pkt_tpc_kernel *k)
{
	return embed_ok(T(2), T(1), T(0)) ? 0 : -EINVAL;
}

static int hputpc_scatter_add(struct hputpc_ctx *c)
{
	const struct hputpc_operand *g = &c->t[0], *ids = &c->t[1],
				    *tb = &c->t[2];
	uint64_t D = tb->sizes[0], n, i;

	if (!ids_ok(ids, tb->sizes[1]))
		return -EIO;
	for (n = 0; n < ids->n; n++) {
		uint64_t id = (uint64_t)*hputpc_i32(ids, n * ids->strides[0]);

		for (i = 0; i < D; i++)
			*hputpc_f32(tb,
				    id * tb->strides[1] + i * tb->strides[0]) +=
				*hputpc_f32(g, n * g->strides[1] +
						       i * g->strides[0]);
	}
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	HPUTPC_KERNEL(LAYERNORM_FWD, "layernorm_fwd", 6, 1, check_ln_fwd,
		      hputpc_ln_fwd),
	HPUTPC_KERNEL(LAYERNORM_BWD, "layernorm_bwd", 8, 0, check_ln_bwd,
		      hputpc_ln_bwd),
	HPUTPC_KERNEL(EMBED_GATHER, "embed_gather", 3, 0, check_gather,
		      hputpc_gather),
	HPUTPC_KERNEL(EMBED_SCATTER_ADD, "embed_scatter_add", 3, 0,
		      check_scatter, hputpc_scatter_add),
	HPUTPC_KERNEL(BIAS_RESIDUAL_LN, "bias_residual_ln", 7, 1, check_brln,
		      hputpc_brln),
};

const struct hputpc_family hputpc_family_norm = {
	.name = "norm",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
