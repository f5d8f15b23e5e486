// SPDX-License-Identifier: MIT
/*
 * tpc_optim.c - fused optimizer steps (fp32, in place): SGD with momentum,
 * weight decay and Nesterov, and AdamW with bias correction.
 */
#include <math.h>

#include "tpc_lib.h"

/* Elements of a block of sgd_contig() (see tpc_elementwise.c's VB) */
#define SGD_VB 16

/*
 * @n contiguous elements: whole blocks go through local arrays with a
 * fixed trip count, which GCC vectorizes at -O2; the expressions are
 * sgd()'s, element by element, so the bits are the same
 */
static void sgd_contig(float *w, const float *g, float *v, uint64_t n, float lr,
		       float mu, float wd, bool nesterov)
{
	float tw[SGD_VB], tg[SGD_VB], tv[SGD_VB];
	uint64_t i0;
	unsigned int i;

	for (i0 = 0; i0 + SGD_VB <= n; i0 += SGD_VB) {
		memcpy(tw, w + i0, sizeof(tw));
		memcpy(tg, g + i0, sizeof(tg));
		memcpy(tv, v + i0, sizeof(tv));
		/* two loops: a select on @nesterov would not vectorize */
		if (nesterov) {
			for (i = 0; i < SGD_VB; i++) {
				float d = tg[i] + wd * tw[i];

				tv[i] = mu * tv[i] + d;
				tw[i] -= lr * (d + mu * tv[i]);
			}
		} else {
			for (i = 0; i < SGD_VB; i++) {
				tv[i] = mu * tv[i] + (tg[i] + wd * tw[i]);
				tw[i] -= lr * tv[i];
			}
		}
		memcpy(w + i0, tw, sizeof(tw));
		memcpy(v + i0, tv, sizeof(tv));
	}
	for (; i0 < n; i0++) {
		float d = g[i0] + wd * w[i0];

		v[i0] = mu * v[i0] + d;
		d = nesterov ? d + mu * v[i0] : v[i0];
		w[i0] -= lr * d;
	}
}

int hputpc_sgd(struct hputpc_ctx *c)
{
	const struct hputpc_operand *p = &c->t[0], *g = &c->t[1], *b = &c->t[2];
	float lr = hputpc_pf(c, 0), mu = hputpc_pf(c, 1), wd = hputpc_pf(c, 2);
	bool nesterov = c->params[3] & 1;
	uint64_t r, i, rows = p->n ? p->n / p->sizes[0] : 0;
	bool contig = p->strides[0] == 1 && g->strides[0] == 1 &&
		      b->strides[0] == 1;

	for (r = 0; r < rows; r++) {
		float *pr = hputpc_f32(p, hputpc_row_off(p, r));
		const float *gr = hputpc_f32(g, hputpc_row_off(g, r));
		float *br = hputpc_f32(b, hputpc_row_off(b, r));

		if (contig) {
			sgd_contig(pr, gr, br, p->sizes[0], lr, mu, wd,
				   nesterov);
			continue;
		}
		for (i = 0; i < p->sizes[0]; i++) {
			float *w = &pr[i * p->strides[0]];
			float *v = &br[i * b->strides[0]];
			float d = gr[i * g->strides[0]] + wd * *w;

			*v = mu * *v + d;
			d = nesterov ? d + mu * *v : *v;
			*w -= lr * d;
		}
	}
	return 0;
}

int hputpc_adamw(struct hputpc_ctx *c)
{
	const struct hputpc_operand *p = &c->t[0], *g = &c->t[1];
	const struct hputpc_operand *m = &c->t[2], *v = &c->t[3];
	float lr = hputpc_pf(c, 0), b1 = hputpc_pf(c, 1), b2 = hputpc_pf(c, 2);
	float eps = hputpc_pf(c, 3), wd = hputpc_pf(c, 4);
	double step = (double)c->params[5];
	float c1 = (float)(1.0 - pow(b1, step));
	float c2 = (float)(1.0 - pow(b2, step));
	uint64_t r, i, rows = p->n ? p->n / p->sizes[0] : 0;

	for (r = 0; r < rows; r++) {
		float *pr = hputpc_f32(p, hputpc_row_off(p, r));
		const float *gr = hputpc_f32(g, hputpc_row_off(g, r));
		float *mr = hputpc_f32(m, hputpc_row_off(m, r));
		float *vr = hputpc_f32(v, hputpc_row_off(v, r));

		for (i = 0; i < p->sizes[0]; i++) {
			float *w = &pr[i * p->strides[0]];
			float *mm = &mr[i * m->strides[0]];
			float *vv = &vr[i * v->strides[0]];
			float gg = gr[i * g->strides[0]];

			*w -= lr * wd * *w;
			*mm = b1 * *mm + (1.0f - b1) * gg;
			*vv = b2 * *vv + (1.0f - b2) * gg * gg;
			*w -= lr * (*mm / c1) / (sqrtf(*vv / c2) + eps);
		}
	}
	return 0;
}
