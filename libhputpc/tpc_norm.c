// SPDX-License-Identifier: MIT
/*
 * tpc_norm.c - TPC kernels of layer normalization and embeddings (fp32).
 * Sums run sequentially in index order: bit-identical run after run.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

static uint64_t rows_of(const struct hputpc_operand *t)
{
	return t->n ? t->n / t->sizes[0] : 0;
}

int hputpc_ln_fwd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *x = &c->t[0], *g = &c->t[1], *b = &c->t[2];
	const struct hputpc_operand *y = &c->t[3], *mu = &c->t[4],
				    *rs = &c->t[5];
	uint64_t D = x->sizes[0], r, i, rows = 1;
	float eps = hputpc_pf(c, 0);
	uint32_t d;

	for (d = 1; d < x->ndims; d++)
		rows *= x->sizes[d];
	for (r = 0; r < rows; r++) {
		const float *xr = hputpc_f32(x, hputpc_row_off(x, r));
		float *yr = hputpc_f32(y, hputpc_row_off(y, r));
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
		*hputpc_f32(mu, r * mu->strides[0]) = m;
		*hputpc_f32(rs, r * rs->strides[0]) = rstd;
	}
	return 0;
}

int hputpc_ln_bwd(struct hputpc_ctx *c)
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

int hputpc_gather(struct hputpc_ctx *c)
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

int hputpc_scatter_add(struct hputpc_ctx *c)
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
