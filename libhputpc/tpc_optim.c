// SPDX-License-Identifier: MIT
/*
 * tpc_optim.c - fused optimizer steps (fp32, in place): SGD with momentum,
 * weight decay and Nesterov, and AdamW with bias correction.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_optim.
 */
#include <errno.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

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

static int same_shapes(const struct hpu_pkt_tpc_kernel *k, unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++)
		if (!hputpc_same_shape(T(0), T(i)))
			return 0;
	return hputpc_all_fp32(k, n);
}

/* param, grad, momentum; lr, momentum, weight decay, flags */
static int check_sgd(const struct hpu_pkt_tpc_kernel *k)
{
	if (!same_shapes(k, 3) || !hputpc_finite_bits(P(0)) ||
	    !hputpc_finite_bits(P(1)) || !hputpc_finite_bits(P(2)) || P(3) > 1)
		return -EINVAL;
	return 0;
}

static int hputpc_sgd(struct hputpc_ctx *c)
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

/* param, grad, m, v; lr, beta1, beta2, eps, weight decay, step */
static int check_adamw(const struct hpu_pkt_tpc_kernel *k)
{
	float b1 = hputpc_bits_f(P(1)), b2 = hputpc_bits_f(P(2)),
	      eps = hputpc_bits_f(P(3));
	unsigned int i;

	if (!same_shapes(k, 4) || P(5) < 1)
		return -EINVAL;
	for (i = 0; i < 5; i++)
		if (!hputpc_finite_bits(P(i)))
			return -EINVAL;
	if (!(b1 >= 0 && b1 < 1) || !(b2 >= 0 && b2 < 1) || !(eps > 0))
		return -EINVAL;
	return 0;
}

static int hputpc_adamw(struct hputpc_ctx *c)
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

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	HPUTPC_KERNEL(SGD_STEP, "sgd_step", 3, 4, check_sgd, hputpc_sgd),
	HPUTPC_KERNEL(ADAMW_STEP, "adamw_step", 4, 6, check_adamw,
		      hputpc_adamw),
};

const struct hputpc_family hputpc_family_optim = {
	.name = "optim",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
