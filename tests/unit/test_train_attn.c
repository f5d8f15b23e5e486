// SPDX-License-Identifier: MIT
/*
 * test_train_attn.c - the attention ops of the training library on the
 * cpu backend: ht_bmm (every transpose combination), ht_causal_softmax
 * (training and decode shapes), ht_split_heads / ht_merge_heads (views
 * for one token) and the composed ht_causal_self_attention against C
 * references, and every backward against central finite differences
 * (inputs used more than once, so the accumulating paths run too);
 * ht_clip_grad_norm against a reference of the same sums; AdamW groups with and without weight
 * decay; ht_kv_cache_write and ht_kv_cache_write_heads; bad shapes
 * refused with a message.
 *
 * Finite differences: h = 1e-2 on an fp32 loss (the mean cross-entropy of
 * the op's output seen as rows of its innermost size), tolerance 2e-3
 * absolute + 3e-2 relative (test_train_ops.c's); forward values 1e-5
 * absolute + 1e-4 relative against double.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hpu_test_fd.h"
#include "ht_backend.h"
#include "ht_graph.h"
#include "ht_ops.h"
#include "ht_optim.h"
#include "ht_rng.h"

#define FD_H   1e-2f
#define FD_ABS 2e-3
#define FD_REL 3e-2
#define FD_MAX 40 /* elements checked per input, spread over it */

static struct ht_backend *be;

static int setup(void **state)
{
	struct ht_backend_opts o = { .accel = HT_ACCEL_CPU };

	(void)state;
	return ht_backend_create(&o, &be, NULL, 0);
}

static int teardown(void **state)
{
	(void)state;
	ht_backend_destroy(be);
	be = NULL;
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	if (be->in_step)
		ht_step_end(be);
	be->grad_enabled = true;
	return 0;
}

#define T(fn) cmocka_unit_test_teardown(fn, test_teardown)

static void assert_close(double got, double want, double abs_tol,
			 double rel_tol, const char *what, uint64_t i)
{
	if (!(fabs(got - want) <= abs_tol + rel_tol * fabs(want)))
		fail_msg("%s[%llu]: got %.9g, want %.9g", what,
			 (unsigned long long)i, got, want);
}

static float *host(struct ht_tensor *t)
{
	return (float *)(uintptr_t)t->addr; /* cpu backend: host memory */
}

/* A persistent fp32 tensor, uniform in [lo, hi) */
static struct ht_tensor *prand(unsigned int ndim, const uint32_t *sizes,
			       uint64_t seed, float lo, float hi)
{
	struct ht_tensor *t;
	struct ht_rng r;
	uint64_t i;

	assert_int_equal(ht_tensor_new(be, HT_F32, ndim, sizes, true, &t), 0);
	ht_rng_seed(&r, seed, 0);
	for (i = 0; i < t->numel; i++)
		host(t)[i] = lo + (hi - lo) * ht_rng_float(&r);
	t->requires_grad = true;
	return t;
}

/* ------------------------------------------------- finite differences */

typedef hpu_test_fd_op op_fn;

/* loss = mean cross-entropy of out as [numel / C][C], C its last size */
static int fd_loss(op_fn op, struct ht_tensor **in, struct ht_tensor **loss)
{
	struct ht_tensor *out, *logits, *labels;
	uint32_t sz[2], r;
	int32_t lab[4096];
	int ret = op(in, &out);

	if (ret)
		return ret;
	sz[1] = out->sizes[out->ndim - 1];
	sz[0] = (uint32_t)(out->numel / sz[1]);
	if (sz[0] > 4096)
		return -EINVAL;
	for (r = 0; r < sz[0]; r++)
		lab[r] = (int32_t)((r * 7 + 3) % sz[1]);
	ret = ht_reshape(out, 2, sz, &logits);
	if (!ret)
		ret = ht_tensor_new(be, HT_I32, 1, sz, false, &labels);
	if (!ret)
		ret = ht_tensor_upload(labels, lab);
	return ret ? ret : ht_cross_entropy(logits, labels, loss);
}

static const struct hpu_test_fd fd = {
	.loss = fd_loss,
	.h = FD_H,
	.abs_tol = FD_ABS,
	.rel_tol = FD_REL,
	.max = FD_MAX,
	.spread = true,
};

/* Every input's analytic gradient against central differences */
static void fd_check(op_fn op, struct ht_tensor **in, unsigned int nin)
{
	hpu_test_fd_check(&fd, op, in, nin);
}

/* ---------------------------------------------------------------- bmm */

static uint32_t bmm_flags;

static int op_bmm(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_bmm(in[0], in[1], bmm_flags, out);
}

/* Element (i, j) of op(X) for a stored [r][c] matrix @x */
static float at(const float *x, uint32_t c, bool t, uint32_t i, uint32_t j)
{
	return t ? x[(uint64_t)j * c + i] : x[(uint64_t)i * c + j];
}

static void test_bmm(void **state)
{
	const uint32_t B = 3, M = 5, N = 4, K = 7;
	unsigned int f;

	(void)state;
	for (f = 0; f < 4; f++) {
		bool ta = f & HT_BMM_TRANS_A, tb = f & HT_BMM_TRANS_B;
		uint32_t sa[3] = { B, ta ? K : M, ta ? M : K };
		uint32_t sb[3] = { B, tb ? N : K, tb ? K : N };
		struct ht_tensor *in[2], *y;
		uint32_t b, i, j, k;

		in[0] = prand(3, sa, 100 + f, -1, 1);
		in[1] = prand(3, sb, 200 + f, -1, 1);
		bmm_flags = f;
		assert_int_equal(ht_step_begin(be, false), 0);
		assert_int_equal(ht_bmm(in[0], in[1], f, &y), 0);
		assert_int_equal(y->ndim, 3);
		assert_int_equal(y->sizes[1], M);
		assert_int_equal(y->sizes[2], N);
		for (b = 0; b < B; b++)
			for (i = 0; i < M; i++)
				for (j = 0; j < N; j++) {
					double s = 0;

					for (k = 0; k < K; k++)
						s += (double)at(
							     host(in[0]) +
								     b * M * K,
							     sa[2], ta, i, k) *
						     at(host(in[1]) + b * K * N,
							sb[2], tb, k, j);
					assert_close(
						host(y)[(b * M + i) * N + j], s,
						1e-5, 1e-4, "bmm",
						(b * M + i) * N + j);
				}
		assert_int_equal(ht_step_end(be), 0);
		fd_check(op_bmm, in, 2);
		ht_tensor_free(in[0]);
		ht_tensor_free(in[1]);
	}
}

/* a used as both operands: a a^T, the gradient accumulates (beta 1) */
static int op_bmm_self(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_bmm(in[0], in[0], HT_BMM_TRANS_B, out);
}

static void test_bmm_shared_and_bad(void **state)
{
	uint32_t sa[4] = { 2, 2, 3, 5 }, sb[4] = { 2, 3, 5, 4 };
	struct ht_tensor *a = prand(4, sa, 7, -1, 1), *b, *y;

	(void)state;
	fd_check(op_bmm_self, &a, 1);
	b = prand(4, sb, 8, -1, 1);
	assert_int_equal(ht_step_begin(be, false), 0);
	/* the leading sizes differ */
	assert_int_equal(ht_bmm(a, b, 0, &y), -EINVAL);
	assert_non_null(strstr(be->err, "bmm"));
	/* K differs */
	assert_int_equal(ht_bmm(a, a, 0, &y), -EINVAL);
	assert_int_equal(ht_bmm(a, a, 0x4, &y), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(a);
	ht_tensor_free(b);
}

/* ------------------------------------------------------- causal softmax */

static uint32_t sm_offset;

static int op_causal(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_causal_softmax(in[0], 0.7f, sm_offset, out);
}

static void test_causal_softmax(void **state)
{
	static const uint32_t shapes[3][4] = {
		/* batch, Tq, Tk, offset */
		{ 2, 5, 5, 0 },
		{ 3, 1, 6, 3 },
		{ 2, 3, 7, 2 },
	};
	unsigned int s;

	(void)state;
	for (s = 0; s < 3; s++) {
		uint32_t sz[3] = { shapes[s][0], shapes[s][1], shapes[s][2] };
		struct ht_tensor *x = prand(3, sz, 300 + s, -2, 2), *y;
		uint32_t r, i, rows = sz[0] * sz[1];

		sm_offset = shapes[s][3];
		assert_int_equal(ht_step_begin(be, false), 0);
		assert_int_equal(op_causal(&x, &y), 0);
		for (r = 0; r < rows; r++) {
			uint32_t vis = sm_offset + r % sz[1] + 1;
			const float *xr = host(x) + r * sz[2];
			double m = -INFINITY, z = 0;

			for (i = 0; i < vis; i++)
				m = fmax(m, 0.7 * xr[i]);
			for (i = 0; i < vis; i++)
				z += exp(0.7 * xr[i] - m);
			for (i = 0; i < sz[2]; i++)
				assert_close(host(y)[r * sz[2] + i],
					     i < vis ?
						     exp(0.7 * xr[i] - m) / z :
						     0.0,
					     i < vis ? 1e-6 : 0, 1e-5,
					     "softmax", r * sz[2] + i);
		}
		assert_int_equal(ht_step_end(be), 0);
		fd_check(op_causal, &x, 1);
		ht_tensor_free(x);
	}
}

static void test_causal_softmax_bad(void **state)
{
	uint32_t sz[3] = { 2, 3, 4 };
	struct ht_tensor *x = prand(3, sz, 1, -1, 1), *y;

	(void)state;
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_causal_softmax(x, 1.0f, 2, &y), -EINVAL);
	assert_non_null(strstr(be->err, "offset + Tq <= Tk"));
	assert_int_equal(ht_causal_softmax(x, 0.0f, 0, &y), -EINVAL);
	assert_int_equal(ht_causal_softmax(x, NAN, 0, &y), -EINVAL);
	assert_int_equal(ht_causal_softmax(x, 1.0f, 1, &y), 0);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(x);
}

/* ------------------------------------------------------ split and merge */

/*
 * q and k from columns of x, and all of x split: merge((q k^T) all).
 * Backward reaches x four times: the full split first (the copy that
 * overwrites), then k and q (added in place).
 */
static int op_split(struct ht_tensor **in, struct ht_tensor **out)
{
	struct ht_tensor *q, *k, *all, *s, *o;
	int ret = ht_split_heads(in[0], 4, 2, 2, &q);

	if (!ret)
		ret = ht_split_heads(in[0], 8, 2, 2, &k);
	if (!ret)
		ret = ht_split_heads(in[0], 0, 2, 6, &all);
	if (!ret)
		ret = ht_bmm(q, k, HT_BMM_TRANS_B, &s); /* [B][H][T][T] */
	if (!ret)
		ret = ht_bmm(s, all, 0, &o); /* [B][H][T][6] */
	return ret ? ret : ht_merge_heads(o, out);
}

static void test_split_merge(void **state)
{
	uint32_t sx[3] = { 2, 5, 12 };
	struct ht_tensor *in[1], *q, *m;
	uint32_t b, h, t, d;

	(void)state;
	in[0] = prand(3, sx, 400, -1, 1);
	/* forward layout: q[b][h][t][d] = x[b][t][C + h*D + d] */
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_split_heads(in[0], 4, 2, 2, &q), 0);
	assert_int_equal(q->ndim, 4);
	for (b = 0; b < 2; b++)
		for (h = 0; h < 2; h++)
			for (t = 0; t < 5; t++)
				for (d = 0; d < 2; d++)
					assert_true(
						host(q)[((b * 2 + h) * 5 + t) *
								2 +
							d] ==
						host(in[0])[(b * 5 + t) * 12 +
							    4 + h * 2 + d]);
	assert_int_equal(ht_merge_heads(q, &m), 0);
	for (b = 0; b < 2; b++)
		for (t = 0; t < 5; t++)
			for (d = 0; d < 4; d++)
				assert_true(
					host(m)[(b * 5 + t) * 4 + d] ==
					host(in[0])[(b * 5 + t) * 12 + 4 + d]);
	assert_int_equal(ht_split_heads(in[0], 5, 2, 4, &q), -EINVAL);
	assert_non_null(strstr(be->err, "split heads"));
	assert_int_equal(ht_merge_heads(in[0], &m), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_split, in, 1);
	ht_tensor_free(in[0]);
}

/*
 * One token (T == 1, a decode step): for one sequence the heads are the
 * columns' bytes, so split and merge are views that issue nothing; for
 * several sequences split still copies and merge is a view. Values and
 * gradients as for the copies.
 */
static void test_split_merge_token(void **state)
{
	uint32_t s1[3] = { 1, 1, 12 }, s3[3] = { 3, 1, 12 };
	struct ht_tensor *in[1], *x3, *q, *m;
	uint64_t ops;
	uint32_t b, h, d;

	(void)state;
	in[0] = prand(3, s1, 410, -1, 1);
	x3 = prand(3, s3, 411, -1, 1);
	assert_int_equal(ht_step_begin(be, false), 0);
	ops = be->stats.ops;
	assert_int_equal(ht_split_heads(in[0], 4, 2, 2, &q), 0);
	assert_int_equal(be->stats.ops, ops);
	assert_true(q->addr == in[0]->addr + 4 * sizeof(float));
	assert_int_equal(q->ndim, 4);
	assert_int_equal(q->sizes[1], 2);
	assert_int_equal(q->sizes[3], 2);
	assert_int_equal(q->numel, 4);
	for (h = 0; h < 2; h++)
		for (d = 0; d < 2; d++)
			assert_true(host(q)[h * 2 + d] ==
				    host(in[0])[4 + h * 2 + d]);
	assert_int_equal(ht_merge_heads(q, &m), 0);
	assert_int_equal(be->stats.ops, ops);
	assert_true(m->addr == q->addr);
	assert_int_equal(m->ndim, 3);
	assert_int_equal(m->sizes[2], 4);

	/* three sequences: the split copies, the merge does not */
	assert_int_equal(ht_split_heads(x3, 4, 2, 2, &q), 0);
	assert_int_equal(be->stats.ops, ops + 1);
	assert_true(q->addr != x3->addr + 4 * sizeof(float));
	for (b = 0; b < 3; b++)
		for (h = 0; h < 2; h++)
			for (d = 0; d < 2; d++)
				assert_true(host(q)[(b * 2 + h) * 2 + d] ==
					    host(x3)[b * 12 + 4 + h * 2 + d]);
	assert_int_equal(ht_merge_heads(q, &m), 0);
	assert_int_equal(be->stats.ops, ops + 1);
	assert_true(m->addr == q->addr);
	for (b = 0; b < 3; b++)
		for (d = 0; d < 4; d++)
			assert_true(host(m)[b * 4 + d] ==
				    host(x3)[b * 12 + 4 + d]);
	/* a view stays inside x */
	assert_int_equal(ht_split_heads(in[0], 10, 2, 2, &q), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_split, in, 1);
	ht_tensor_free(in[0]);
	ht_tensor_free(x3);
}

/* --------------------------------------------------- the attention block */

static struct ht_attn_params attn;

static int op_attn(struct ht_tensor **in, struct ht_tensor **out)
{
	attn.w_qkv = in[1];
	attn.b_qkv = in[2];
	attn.w_out = in[3];
	attn.b_out = in[4];
	return ht_causal_self_attention(in[0], &attn, out);
}

/* y = attention(x) in double, x [B][T][C] */
static void ref_attention(const float *x, uint32_t B, uint32_t T, uint32_t C,
			  uint32_t H, struct ht_tensor **w, double *y)
{
	uint32_t D = C / H, b, t, u, c, j, h;
	double *qkv = calloc((size_t)B * T * 3 * C, sizeof(double));
	double *o = calloc((size_t)B * T * C, sizeof(double));

	assert_non_null(qkv);
	assert_non_null(o);
	for (b = 0; b < B; b++)
		for (t = 0; t < T; t++)
			for (j = 0; j < 3 * C; j++) {
				double s = host(w[1])[j];

				for (c = 0; c < C; c++)
					s += (double)x[(b * T + t) * C + c] *
					     host(w[0])[j * C + c];
				qkv[(b * T + t) * 3 * C + j] = s;
			}
	for (b = 0; b < B; b++)
		for (h = 0; h < H; h++)
			for (t = 0; t < T; t++) {
				double p[64], m = -INFINITY, z = 0;

				for (u = 0; u <= t; u++) {
					double s = 0;

					for (j = 0; j < D; j++)
						s += qkv[(b * T + t) * 3 * C +
							 h * D + j] *
						     qkv[(b * T + u) * 3 * C +
							 C + h * D + j];
					p[u] = s / sqrt((double)D);
					m = fmax(m, p[u]);
				}
				for (u = 0; u <= t; u++)
					z += (p[u] = exp(p[u] - m));
				for (j = 0; j < D; j++) {
					double s = 0;

					for (u = 0; u <= t; u++)
						s += p[u] / z *
						     qkv[(b * T + u) * 3 * C +
							 2 * C + h * D + j];
					o[(b * T + t) * C + h * D + j] = s;
				}
			}
	for (b = 0; b < B; b++)
		for (t = 0; t < T; t++)
			for (j = 0; j < C; j++) {
				double s = host(w[3])[j];

				for (c = 0; c < C; c++)
					s += o[(b * T + t) * C + c] *
					     host(w[2])[j * C + c];
				y[(b * T + t) * C + j] = s;
			}
	free(qkv);
	free(o);
}

static void test_attention(void **state)
{
	const uint32_t B = 2, T = 5, C = 6, H = 2;
	uint32_t sx[3] = { B, T, C }, sq[2] = { 3 * C, C }, sbq = 3 * C;
	uint32_t so[2] = { C, C }, sbo = C;
	struct ht_tensor *in[5], *y;
	double want[60];
	uint64_t i;

	(void)state;
	in[0] = prand(3, sx, 500, -1, 1);
	in[1] = prand(2, sq, 501, -0.8f, 0.8f);
	in[2] = prand(1, &sbq, 502, -0.2f, 0.2f);
	in[3] = prand(2, so, 503, -0.8f, 0.8f);
	in[4] = prand(1, &sbo, 504, -0.2f, 0.2f);
	attn.heads = H;
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(op_attn(in, &y), 0);
	ref_attention(host(in[0]), B, T, C, H, in + 1, want);
	for (i = 0; i < y->numel; i++)
		assert_close(host(y)[i], want[i], 1e-5, 1e-4, "attention", i);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_attn, in, 5);

	/* heads that do not divide C, weights of the wrong shape */
	assert_int_equal(ht_step_begin(be, false), 0);
	attn.heads = 4;
	assert_int_equal(op_attn(in, &y), -EINVAL);
	assert_non_null(strstr(be->err, "multiple of the heads"));
	attn.heads = 2;
	in[1]->sizes[0] = C; /* pretend [C][C] */
	assert_int_equal(op_attn(in, &y), -EINVAL);
	in[1]->sizes[0] = 3 * C;
	assert_int_equal(ht_step_end(be), 0);
	for (i = 0; i < 5; i++)
		ht_tensor_free(in[i]);
}

/* ------------------------------------------------------------ clipping */

#define NCLIP 10

static void test_clip_grad_norm(void **state)
{
	struct ht_tensor *p[NCLIP], *norm;
	float keep[NCLIP][40], acc = 0.0f, c, nv, want_norm;
	uint32_t n;
	unsigned int i, k, used = 0;
	uint64_t j;
	double s = 0;
	const float maxn = 2.0f;

	(void)state;
	for (i = 0; i < NCLIP; i++) {
		n = 3 + 4 * i;
		p[i] = prand(1, &n, 600 + i, -1, 1);
		assert_int_equal(
			ht_tensor_new(be, HT_F32, 1, &n, true, &p[i]->grad), 0);
		for (j = 0; j < n; j++)
			host(p[i]->grad)[j] = keep[i][j] = (float)(j % 5) - 2;
		p[i]->grad_set = i != 4; /* p[4] had no gradient this step */
	}
	/* the kernels' sums: 7 gradients, rounded, then the next ones */
	for (i = 0, k = 0; i < NCLIP; i++) {
		if (i == 4)
			continue;
		for (j = 0; j < p[i]->numel; j++)
			s += (double)keep[i][j] * keep[i][j];
		if (++used % 7 == 0 || i == NCLIP - 1) {
			acc = (float)s;
			s = acc;
			k++;
		}
	}
	assert_int_equal(k, 2);
	want_norm = sqrtf(acc);
	c = maxn / (want_norm + 1e-6f);
	assert_true(c < 1.0f);

	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_clip_grad_norm(p, NCLIP, maxn, &norm), 0);
	assert_int_equal(ht_tensor_item(norm, &nv), 0);
	assert_memory_equal(&nv, &want_norm, sizeof(nv));
	for (i = 0; i < NCLIP; i++)
		for (j = 0; j < p[i]->numel; j++) {
			float want = i == 4 ? keep[i][j] : keep[i][j] * c;

			assert_memory_equal(&host(p[i]->grad)[j], &want,
					    sizeof(want));
		}
	/* bad max_norm */
	assert_int_equal(ht_clip_grad_norm(p, NCLIP, 0.0f, &norm), -EINVAL);
	assert_non_null(strstr(be->err, "max_norm"));
	assert_int_equal(ht_clip_grad_norm(p, NCLIP, INFINITY, &norm), -EINVAL);
	/* no gradient at all: the norm is 0 */
	for (i = 0; i < NCLIP; i++)
		p[i]->grad_set = false;
	assert_int_equal(ht_clip_grad_norm(p, NCLIP, 1.0f, &norm), 0);
	assert_int_equal(ht_tensor_item(norm, &nv), 0);
	assert_true(nv == 0.0f);
	assert_int_equal(ht_step_end(be), 0);
	for (i = 0; i < NCLIP; i++) {
		ht_tensor_free(p[i]);
	}
}

/*
 * AdamW groups: the model decides what decays. With a zero gradient the
 * decayed group shrinks by (1 - lr wd) and the other keeps its bits.
 */
static void test_adamw_decay_groups(void **state)
{
	struct ht_optim_hparams h = { .lr = 0.1f,
				      .beta1 = 0.9f,
				      .beta2 = 0.999f,
				      .eps = 1e-8f,
				      .weight_decay = 0.5f };
	uint32_t n = 9;
	struct ht_tensor *w = prand(1, &n, 700, -1, 1);
	struct ht_tensor *bias = prand(1, &n, 701, -1, 1);
	float w0[9], b0[9];
	struct ht_optim *o;
	unsigned int i;

	(void)state;
	memcpy(w0, host(w), sizeof(w0));
	memcpy(b0, host(bias), sizeof(b0));
	assert_int_equal(ht_optim_new(be, HT_OPTIM_ADAMW, &o), 0);
	assert_int_equal(ht_optim_add_group(o, &w, 1, &h), 0);
	h.weight_decay = 0.0f;
	assert_int_equal(ht_optim_add_group(o, &bias, 1, &h), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, &n, true, &w->grad), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, &n, true, &bias->grad),
			 0);
	memset(host(w->grad), 0, sizeof(w0));
	memset(host(bias->grad), 0, sizeof(b0));
	w->grad_set = bias->grad_set = true;
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_optim_step(o), 0);
	assert_int_equal(ht_step_end(be), 0);
	for (i = 0; i < n; i++) {
		float want = w0[i] - 0.1f * 0.5f * w0[i];

		assert_memory_equal(&host(w)[i], &want, sizeof(want));
		assert_memory_equal(&host(bias)[i], &b0[i], sizeof(float));
	}
	ht_optim_free(o);
	ht_tensor_free(w);
	ht_tensor_free(bias);
}

/* rows at a slot of the cache; slots past the end and shapes refused */
static void test_kv_cache_write(void **state)
{
	uint32_t cs[3] = { 2, 6, 3 }, ss[3] = { 2, 2, 3 }, bs[3] = { 3, 2, 3 };
	struct ht_tensor *cache, *src = prand(3, ss, 800, -1, 1), *bad;
	unsigned int b, r, d;

	(void)state;
	src->requires_grad = false;
	bad = prand(3, bs, 801, -1, 1);
	assert_int_equal(ht_tensor_new(be, HT_F32, 3, cs, true, &cache), 0);
	memset(host(cache), 0, 36 * sizeof(float));
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_kv_cache_write(cache, src, 3), 0);
	for (b = 0; b < 2; b++)
		for (r = 0; r < 6; r++)
			for (d = 0; d < 3; d++)
				assert_true(
					host(cache)[(b * 6 + r) * 3 + d] ==
					(r == 3 || r == 4 ?
						 host(src)[(b * 2 + r - 3) * 3 +
							   d] :
						 0.0f));
	assert_int_equal(ht_kv_cache_write(cache, src, 5), -EINVAL);
	assert_non_null(strstr(be->err, "past the cache"));
	assert_int_equal(ht_kv_cache_write(cache, bad, 0), -EINVAL);
	assert_non_null(strstr(be->err, "kv cache write"));
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(cache);
	ht_tensor_free(src);
	ht_tensor_free(bad);
}

/*
 * The heads of a projection's columns straight into a cache: the bytes of
 * ht_split_heads() then ht_kv_cache_write(), for several sequences and
 * tokens; the rest of the cache untouched; bad shapes refused
 */
static void test_kv_cache_write_heads(void **state)
{
	uint32_t xs[3] = { 3, 2, 18 }, cs[4] = { 3, 2, 5, 3 };
	uint32_t bad4[4] = { 2, 2, 5, 3 };
	struct ht_tensor *x = prand(3, xs, 810, -1, 1), *c1, *c2, *k, *bad;
	const size_t n = 3 * 2 * 5 * 3;

	(void)state;
	x->requires_grad = false;
	assert_int_equal(ht_tensor_new(be, HT_F32, 4, cs, true, &c1), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 4, cs, true, &c2), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 4, bad4, true, &bad), 0);
	memset(host(c1), 0, n * sizeof(float));
	memset(host(c2), 0, n * sizeof(float));
	be->grad_enabled = false;
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_kv_cache_write_heads(c1, x, 6, 2), 0);
	assert_int_equal(ht_split_heads(x, 6, 2, 3, &k), 0);
	assert_int_equal(ht_kv_cache_write(c2, k, 2), 0);
	assert_memory_equal(host(c1), host(c2), n * sizeof(float));
	/* slots 2 and 3 of each head written: the rest is still 0 */
	assert_true(host(c1)[(0 * 5 + 2) * 3] == host(x)[6]);
	assert_true(host(c1)[((2 * 2 + 1) * 5 + 3) * 3 + 2] ==
		    host(x)[(2 * 2 + 1) * 18 + 6 + 3 + 2]);
	assert_true(host(c1)[0] == 0.0f && host(c1)[n - 1] == 0.0f);
	assert_int_equal(ht_kv_cache_write_heads(c1, x, 13, 0), -EINVAL);
	assert_non_null(strstr(be->err, "col0"));
	assert_int_equal(ht_kv_cache_write_heads(c1, x, 6, 4), -EINVAL);
	assert_non_null(strstr(be->err, "past the cache"));
	assert_int_equal(ht_kv_cache_write_heads(bad, x, 0, 0), -EINVAL);
	assert_int_equal(ht_kv_cache_write_heads(c1, k, 0, 0), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	be->grad_enabled = true;
	ht_tensor_free(x);
	ht_tensor_free(c1);
	ht_tensor_free(c2);
	ht_tensor_free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bmm),
		T(test_bmm_shared_and_bad),
		T(test_causal_softmax),
		T(test_causal_softmax_bad),
		T(test_split_merge),
		T(test_split_merge_token),
		T(test_attention),
		T(test_clip_grad_norm),
		T(test_adamw_decay_groups),
		T(test_kv_cache_write),
		T(test_kv_cache_write_heads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
