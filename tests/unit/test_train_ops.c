// SPDX-License-Identifier: MIT
/*
 * test_train_ops.c - the training library's core on the cpu backend: the
 * TPC kernel library's host entry, every op's forward against C
 * references and its backward against central finite differences,
 * gradient accumulation, the gradient-final hook, SGD and AdamW against
 * hand-computed updates, and both models learning a small problem.
 *
 * Finite differences: h = 1e-2 on an fp32 loss (cross-entropy of the
 * op's output seen as [N][C] logits), tolerance 2e-3 absolute + 3e-2
 * relative; forward values 1e-5 relative unless exact.
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

#include "hpu_bf16.h"
#include "hputpc.h"
#include "../lib/hpu_test_fd.h"
#include "ht_backend.h"
#include "ht_graph.h"
#include "ht_module.h"
#include "ht_ops.h"
#include "ht_optim.h"
#include "ht_rng.h"

#define FD_H   1e-2f
#define FD_ABS 2e-3
#define FD_REL 3e-2
#define FD_MAX 24 /* elements checked per input */

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

/* A failed test must not leave its step open for the next one */
static int test_teardown(void **state)
{
	(void)state;
	if (be->in_step)
		ht_step_end(be);
	be->grad_enabled = true;
	be->precision = HT_PREC_32;
	return 0;
}

#define T(fn) cmocka_unit_test_teardown(fn, test_teardown)

static void assert_close(double got, double want, double abs_tol,
			 double rel_tol)
{
	if (fabs(got - want) > abs_tol + rel_tol * fabs(want))
		fail_msg("got %.9g, want %.9g", got, want);
}

/* A persistent fp32 tensor with values uniform in [lo, hi) */
static struct ht_tensor *prand(unsigned int ndim, const uint32_t *sizes,
			       uint64_t seed, float lo, float hi, bool grad)
{
	struct ht_tensor *t;
	struct ht_rng r;
	float *v;
	uint64_t i;

	assert_int_equal(ht_tensor_new(be, HT_F32, ndim, sizes, true, &t), 0);
	v = malloc(t->numel * sizeof(*v));
	assert_non_null(v);
	ht_rng_seed(&r, seed, 0);
	for (i = 0; i < t->numel; i++)
		v[i] = lo + (hi - lo) * ht_rng_float(&r);
	assert_int_equal(ht_tensor_upload(t, v), 0);
	free(v);
	t->requires_grad = grad;
	return t;
}

static struct ht_tensor *pints(unsigned int ndim, const uint32_t *sizes,
			       const int32_t *v)
{
	struct ht_tensor *t;

	assert_int_equal(ht_tensor_new(be, HT_I32, ndim, sizes, true, &t), 0);
	assert_int_equal(ht_tensor_upload(t, v), 0);
	return t;
}

static float *host(struct ht_tensor *t)
{
	return (float *)(uintptr_t)t->addr; /* cpu backend: host memory */
}

/* ------------------------------------------------- finite differences */

/* The op under test: its output, from the inputs */
typedef hpu_test_fd_op op_fn;

#define FD_CLASSES 3

/* loss = cross-entropy of the output seen as [numel / 3][3] logits */
static int fd_loss(op_fn op, struct ht_tensor **in, struct ht_tensor **loss)
{
	static const int32_t lab[64] = { 0, 2, 1, 1, 0, 2, 2, 1, 0, 1, 2, 0,
					 1, 1, 0, 2, 0, 2, 1, 0, 1, 2, 0, 1 };
	struct ht_tensor *out, *logits, *labels;
	uint32_t rows, sz[2];
	int ret = op(in, &out);

	if (ret)
		return ret;
	if (out->numel % FD_CLASSES)
		return -EINVAL;
	rows = (uint32_t)(out->numel / FD_CLASSES);
	sz[0] = rows;
	sz[1] = FD_CLASSES;
	ret = ht_reshape(out, 2, sz, &logits);
	if (!ret)
		ret = ht_tensor_new(be, HT_I32, 1, &rows, false, &labels);
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
	.spread = false,
};

/* Analytic gradients of every input with requires_grad vs differences */
static void fd_check(op_fn op, struct ht_tensor **in, unsigned int nin)
{
	hpu_test_fd_check(&fd, op, in, nin);
}

/* ------------------------------------------------------ TPC host entry */

static void test_tpc_host_entry(void **state)
{
	float a[4] = { 1, 2, 3, 4 }, b[2] = { 10, 20 }, o[4];
	float table[6] = { 1, 2, 3, 4, 5, 6 }, rows[4];
	int32_t ids[2] = { 2, 3 };
	struct hpu_tpc_tensor d[3];

	memset(d, 0, sizeof(d));
	d[0].addr = (uintptr_t)a;
	d[0].dtype = HPU_DTYPE_FP32;
	d[0].ndims = 2;
	d[0].sizes[0] = 2;
	d[0].sizes[1] = 2;
	d[0].strides[0] = 1;
	d[0].strides[1] = 2;
	d[1] = d[0];
	d[1].addr = (uintptr_t)b;
	d[1].ndims = 1;
	d[1].sizes[1] = 0;
	d[1].strides[1] = 0;
	d[2] = d[0];
	d[2].addr = (uintptr_t)o;
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_ADD, d, 3, NULL, 0),
			 0);
	assert_true(o[0] == 11 && o[1] == 22 && o[2] == 13 && o[3] == 24);

	/* the engine's rules: a wrong count, a reserved field, unknown id */
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_ADD, d, 2, NULL, 0),
			 -EINVAL);
	d[2].reserved = 1;
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_ADD, d, 3, NULL, 0),
			 -EINVAL);
	d[2].reserved = 0;
	assert_int_equal(hputpc_exec_host(0, d, 3, NULL, 0), -EINVAL);

	/* data the kernel refuses: an id out of range, nothing written */
	memset(d, 0, sizeof(d));
	d[0].addr = (uintptr_t)table;
	d[0].dtype = HPU_DTYPE_FP32;
	d[0].ndims = 2;
	d[0].sizes[0] = 2;
	d[0].sizes[1] = 3;
	d[0].strides[0] = 1;
	d[0].strides[1] = 2;
	d[1].addr = (uintptr_t)ids;
	d[1].dtype = HPU_DTYPE_INT32;
	d[1].ndims = 1;
	d[1].sizes[0] = 2;
	d[1].strides[0] = 1;
	d[2] = d[0];
	d[2].addr = (uintptr_t)rows;
	d[2].sizes[1] = 2;
	memset(rows, 0, sizeof(rows));
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_EMBED_GATHER, d, 3,
					  NULL, 0),
			 -EIO);
	assert_true(rows[0] == 0 && rows[3] == 0);
	ids[1] = 0;
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_EMBED_GATHER, d, 3,
					  NULL, 0),
			 0);
	assert_true(rows[0] == 5 && rows[1] == 6 && rows[2] == 1 &&
		    rows[3] == 2);
}

/* ------------------------------------------------------------- linear */

static int op_linear(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_linear(in[0], in[1], in[2], out);
}

static void test_linear(void **state)
{
	uint32_t xs[2] = { 4, 5 }, ws[2] = { 6, 5 }, bs = 6;
	struct ht_tensor *in[3], *y;
	unsigned int r, c, k;

	in[0] = prand(2, xs, 1, -1, 1, true);
	in[1] = prand(2, ws, 2, -1, 1, true);
	in[2] = prand(1, &bs, 3, -1, 1, true);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_linear(in[0], in[1], in[2], &y), 0);
	assert_int_equal(y->ndim, 2);
	assert_int_equal(y->sizes[0], 4);
	assert_int_equal(y->sizes[1], 6);
	for (r = 0; r < 4; r++)
		for (c = 0; c < 6; c++) {
			double s = host(in[2])[c];

			for (k = 0; k < 5; k++)
				s += (double)host(in[0])[r * 5 + k] *
				     host(in[1])[c * 5 + k];
			assert_close(host(y)[r * 6 + c], s, 1e-6, 1e-5);
		}
	/* shapes that do not match */
	assert_int_equal(ht_linear(in[0], in[1], in[0], &y), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_linear, in, 3);
	for (r = 0; r < 3; r++)
		ht_tensor_free(in[r]);
}

/* bf16-mixed: bf16 copies of x and W, fp32 C, close to fp32 */
static void test_linear_bf16(void **state)
{
	uint32_t xs[2] = { 8, 16 }, ws[2] = { 4, 16 };
	struct ht_tensor *x = prand(2, xs, 4, -1, 1, false);
	struct ht_tensor *w = prand(2, ws, 5, -1, 1, true), *y32, *y16;
	unsigned int i;

	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_linear(x, w, NULL, &y32), 0);
	be->precision = HT_PREC_BF16_MIXED;
	assert_int_equal(ht_linear(x, w, NULL, &y16), 0);
	be->precision = HT_PREC_32;
	assert_int_equal(y16->dtype, HT_F32);
	for (i = 0; i < 32; i++) {
		double s = 0;
		unsigned int k, r = i / 4, c = i % 4;

		/* exactly the product of the rounded operands */
		for (k = 0; k < 16; k++)
			s += (double)hpu_bf16_to_f32(
				     hpu_f32_to_bf16(host(x)[r * 16 + k])) *
			     hpu_bf16_to_f32(
				     hpu_f32_to_bf16(host(w)[c * 16 + k]));
		assert_close(host(y16)[i], s, 1e-5, 1e-5);
		assert_close(host(y16)[i], host(y32)[i], 0.05, 0.02);
	}
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(x);
	ht_tensor_free(w);
}

/* -------------------------------------------------------- activations */

static int op_relu(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_relu(in[0], out);
}

static int op_gelu(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_gelu(in[0], out);
}

static int op_tanh(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_tanh(in[0], out);
}

static void test_activations(void **state)
{
	uint32_t s[2] = { 4, 6 };
	struct ht_tensor *x = prand(2, s, 7, -2, 2, true), *y;
	unsigned int i;

	/* keep relu's inputs away from its kink */
	for (i = 0; i < x->numel; i++)
		if (fabsf(host(x)[i]) < 0.05f)
			host(x)[i] = 0.5f;
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_relu(x, &y), 0);
	for (i = 0; i < x->numel; i++)
		assert_true(host(y)[i] == (host(x)[i] > 0 ? host(x)[i] : 0));
	assert_int_equal(ht_tanh(x, &y), 0);
	for (i = 0; i < x->numel; i++)
		assert_close(host(y)[i], tanh(host(x)[i]), 1e-6, 1e-6);
	assert_int_equal(ht_gelu(x, &y), 0);
	for (i = 0; i < x->numel; i++) {
		double v = host(x)[i];

		assert_close(host(y)[i],
			     0.5 * v *
				     (1 + tanh(sqrt(2 / M_PI) *
					       (v + 0.044715 * v * v * v))),
			     1e-6, 1e-6);
	}
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_relu, &x, 1);
	fd_check(op_gelu, &x, 1);
	fd_check(op_tanh, &x, 1);
	ht_tensor_free(x);
}

/* ------------------------------------------------------------ dropout */

#define DROP_P	  0.3f
#define DROP_SEED 0x1234abcd5678ef01ULL

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* docs/tpc-kernels.md, kernel 34 */
static float ref_mask(uint64_t seed, uint64_t i, float p)
{
	uint64_t h = mix64(mix64(seed) + i * 0x9e3779b97f4a7c15ULL);
	float u = (float)(h >> 40) * (1.0f / 16777216.0f);

	return u >= p ? 1.0f / (1.0f - p) : 0.0f;
}

/* a fixed mask even while the differences run without gradients */
static int op_dropout(struct ht_tensor **in, struct ht_tensor **out)
{
	bool g = be->grad_enabled;
	int ret;

	be->grad_enabled = true;
	ret = ht_dropout(in[0], DROP_P, DROP_SEED, out);
	be->grad_enabled = g;
	return ret;
}

static void test_dropout(void **state)
{
	uint32_t s[2] = { 8, 6 }, big = 100000;
	struct ht_tensor *x = prand(2, s, 11, -2, 2, true), *y, *y2, *xb;
	uint64_t zeroed = 0, i;
	double frac, sd;

	(void)state;
	assert_int_equal(ht_step_begin(be, false), 0);
	/* forward: the kernel's mask, x * mask bit for bit */
	assert_int_equal(ht_dropout(x, DROP_P, DROP_SEED, &y), 0);
	for (i = 0; i < x->numel; i++)
		assert_true(host(y)[i] ==
			    host(x)[i] * ref_mask(DROP_SEED, i, DROP_P));
	/* the same seed, the same mask; another seed, another mask */
	assert_int_equal(ht_dropout(x, DROP_P, DROP_SEED, &y2), 0);
	assert_memory_equal(host(y), host(y2), x->numel * sizeof(float));
	assert_int_equal(ht_dropout(x, DROP_P, DROP_SEED + 1, &y2), 0);
	assert_true(memcmp(host(y), host(y2), x->numel * sizeof(float)));
	/* p = 0 and disabled gradients (validation): the identity */
	assert_int_equal(ht_dropout(x, 0.0f, DROP_SEED, &y2), 0);
	assert_ptr_equal(y2, x);
	be->grad_enabled = false;
	assert_int_equal(ht_dropout(x, DROP_P, DROP_SEED, &y2), 0);
	assert_ptr_equal(y2, x);
	be->grad_enabled = true;
	/* bad probabilities change nothing */
	assert_int_equal(ht_dropout(x, 1.0f, DROP_SEED, &y2), -EINVAL);
	assert_int_equal(ht_dropout(x, -0.1f, DROP_SEED, &y2), -EINVAL);
	assert_int_equal(ht_dropout(x, NAN, DROP_SEED, &y2), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);

	/* backward: dx = dy * mask, against finite differences */
	fd_check(op_dropout, &x, 1);

	/* the fraction zeroed: p within 6 standard deviations */
	xb = prand(1, &big, 12, 1, 2, false);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_dropout(xb, DROP_P, 99, &y), 0);
	for (i = 0; i < big; i++)
		zeroed += host(y)[i] == 0.0f;
	assert_int_equal(ht_step_end(be), 0);
	frac = (double)zeroed / big;
	sd = sqrt(DROP_P * (1 - DROP_P) / big);
	print_message("# dropout p %.2f: %.5f zeroed (sd %.5f)\n",
		      (double)DROP_P, frac, sd);
	assert_true(fabs(frac - DROP_P) < 6 * sd);
	ht_tensor_free(xb);
	ht_tensor_free(x);
}

/* ------------------------------------------------------ add, accumulate */

static int op_add(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_add(in[0], in[1], out);
}

/* x used twice: its gradient is the sum of both contributions */
static int op_twice(struct ht_tensor **in, struct ht_tensor **out)
{
	struct ht_tensor *h, *g;
	int ret = ht_linear(in[0], in[1], NULL, &h);

	if (!ret)
		ret = ht_linear(h, in[1], NULL, &g); /* W used twice */
	if (!ret)
		ret = ht_tanh(g, &g);
	return ret ? ret : ht_add(g, in[0], out); /* x used twice */
}

static void test_add_and_accumulation(void **state)
{
	uint32_t as[3] = { 2, 3, 3 }, bs[2] = { 3, 3 }, xs[2] = { 4, 3 };
	uint32_t ws[2] = { 3, 3 };
	struct ht_tensor *in[2], *y;
	unsigned int i;

	in[0] = prand(3, as, 8, -1, 1, true);
	in[1] = prand(2, bs, 9, -1, 1, true);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_add(in[0], in[1], &y), 0);
	for (i = 0; i < 18; i++)
		assert_true(host(y)[i] == host(in[0])[i] + host(in[1])[i % 9]);
	assert_int_equal(ht_add(in[1], in[0], &y), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_add, in, 2); /* db sums over the broadcast dimension */
	ht_tensor_free(in[0]);
	ht_tensor_free(in[1]);

	in[0] = prand(2, xs, 10, -1, 1, true);
	in[1] = prand(2, ws, 11, -1, 1, true);
	fd_check(op_twice, in, 2);
	ht_tensor_free(in[0]);
	ht_tensor_free(in[1]);
}

/* --------------------------------------------- layer norm, embeddings */

static int op_ln(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_layer_norm(in[0], in[1], in[2], HT_LN_EPS, out);
}

static void test_layer_norm(void **state)
{
	uint32_t xs[2] = { 4, 6 }, d = 6;
	struct ht_tensor *in[3], *y;
	unsigned int r, c;

	in[0] = prand(2, xs, 12, -2, 2, true);
	in[1] = prand(1, &d, 13, 0.5f, 1.5f, true);
	in[2] = prand(1, &d, 14, -0.5f, 0.5f, true);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_layer_norm(in[0], in[1], in[2], 1e-5f, &y), 0);
	for (r = 0; r < 4; r++) {
		const float *x = host(in[0]) + r * 6;
		double m = 0, v = 0;

		for (c = 0; c < 6; c++)
			m += x[c] / 6.0;
		for (c = 0; c < 6; c++)
			v += (x[c] - m) * (x[c] - m) / 6.0;
		for (c = 0; c < 6; c++)
			assert_close(host(y)[r * 6 + c],
				     (x[c] - m) / sqrt(v + 1e-5) *
						     host(in[1])[c] +
					     host(in[2])[c],
				     1e-5, 1e-5);
	}
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_ln, in, 3);
	for (r = 0; r < 3; r++)
		ht_tensor_free(in[r]);
}

static struct ht_tensor *fd_ids;

static int op_embed(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_embedding(in[0], fd_ids, out);
}

static void test_embedding(void **state)
{
	uint32_t ts[2] = { 5, 3 }, is[2] = { 2, 3 };
	int32_t ids[6] = { 4, 0, 4, 2, 1, 4 }; /* 4 three times */
	struct ht_tensor *table = prand(2, ts, 15, -1, 1, true), *y;
	unsigned int i;

	fd_ids = pints(2, is, ids);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_embedding(table, fd_ids, &y), 0);
	assert_int_equal(y->ndim, 3);
	assert_int_equal(y->sizes[2], 3);
	for (i = 0; i < 18; i++)
		assert_true(host(y)[i] == host(table)[ids[i / 3] * 3 + i % 3]);
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_embed, &table, 1);
	/* row 3 is never looked up: its gradient is exactly 0 */
	for (i = 9; i < 12; i++)
		assert_true(host(table->grad)[i] == 0.0f);
	ht_tensor_free(table);
	ht_tensor_free(fd_ids);
}

/* ------------------------------------------------ mean, loss, accuracy */

static int op_mean(struct ht_tensor **in, struct ht_tensor **out)
{
	return ht_mean_axis(in[0], 1, out);
}

static void test_mean(void **state)
{
	uint32_t xs[3] = { 2, 4, 3 };
	struct ht_tensor *x = prand(3, xs, 16, -1, 1, true), *y;
	unsigned int b, t, d;

	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_mean_axis(x, 1, &y), 0);
	assert_int_equal(y->ndim, 2);
	for (b = 0; b < 2; b++)
		for (d = 0; d < 3; d++) {
			double s = 0;

			for (t = 0; t < 4; t++)
				s += host(x)[b * 12 + t * 3 + d];
			assert_close(host(y)[b * 3 + d], s / 4, 1e-6, 1e-6);
		}
	assert_int_equal(ht_step_end(be), 0);
	fd_check(op_mean, &x, 1);
	ht_tensor_free(x);
}

static int op_ident(struct ht_tensor **in, struct ht_tensor **out)
{
	*out = in[0];
	return 0;
}

static void test_cross_entropy_accuracy(void **state)
{
	uint32_t ls[2] = { 4, 3 }, n = 4;
	int32_t lab[4] = { 0, 2, 1, 1 };
	struct ht_tensor *logits, *labels, *loss, *count;
	float v;

	/* zero logits: ln C whatever the labels */
	assert_int_equal(ht_tensor_new(be, HT_F32, 2, ls, true, &logits), 0);
	labels = pints(1, &n, lab);
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_tensor_fill(logits, 0.0f), 0);
	assert_int_equal(ht_cross_entropy(logits, labels, &loss), 0);
	assert_int_equal(ht_tensor_item(loss, &v), 0);
	assert_close(v, log(3.0), 1e-6, 1e-6);
	/* one row right (row 1: argmax 2 = label), ties go to index 0 */
	host(logits)[1 * 3 + 2] = 5.0f;
	host(logits)[2 * 3 + 0] = 1.0f;
	assert_int_equal(ht_accuracy(logits, labels, &count), 0);
	assert_int_equal(ht_tensor_item(count, &v), 0);
	assert_true(v == 2.0f); /* rows 0 and 1 */
	assert_int_equal(ht_cross_entropy(labels, labels, &loss), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(logits);
	ht_tensor_free(labels);

	logits = prand(2, ls, 17, -2, 2, true);
	fd_check(op_ident, &logits, 1);
	ht_tensor_free(logits);
}

static void test_cast(void **state)
{
	uint32_t s[2] = { 2, 3 };
	struct ht_tensor *x = prand(2, s, 18, -3, 3, true), *h, *y, *loss;
	unsigned int i;

	assert_int_equal(ht_step_begin(be, false), 0);
	ht_zero_grad(&x, 1);
	assert_int_equal(ht_cast(x, HT_BF16, &h), 0);
	assert_int_equal(h->dtype, HT_BF16);
	assert_int_equal(ht_cast(h, HT_F32, &y), 0);
	for (i = 0; i < 6; i++)
		assert_true(host(y)[i] ==
			    hpu_bf16_to_f32(hpu_f32_to_bf16(host(x)[i])));
	/* the gradient passes through both casts unchanged (fp32) */
	assert_int_equal(fd_loss(op_ident, &y, &loss), 0);
	assert_int_equal(ht_backward(loss), 0);
	assert_non_null(h->grad);
	assert_int_equal(h->grad->dtype, HT_F32);
	assert_memory_equal(host(x->grad), host(y->grad), 6 * sizeof(float));
	assert_true(host(x->grad)[0] != 0.0f);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(x);
}

/* ------------------------------------------------------------- hooks */

struct hook_log {
	unsigned int calls;
	struct ht_tensor *seen[4];
	float first_grad[4];
};

static int hook(struct ht_backend *b, struct ht_tensor *p, void *arg)
{
	struct hook_log *l = arg;

	if (l->calls < 4) {
		l->seen[l->calls] = p;
		l->first_grad[l->calls] = host(p->grad)[0];
	}
	l->calls++;
	return 0;
}

static void test_grad_hook(void **state)
{
	uint32_t xs[2] = { 4, 3 }, ws[2] = { 3, 3 }, b = 3;
	struct ht_tensor *x = prand(2, xs, 19, -1, 1, false);
	struct ht_tensor *w = prand(2, ws, 20, -1, 1, true);
	struct ht_tensor *bias = prand(1, &b, 21, -1, 1, true), *in[3], *loss;
	struct hook_log log = { 0 };

	w->is_param = bias->is_param = true;
	ht_set_grad_hook(w, hook, &log);
	ht_set_grad_hook(bias, hook, &log);
	in[0] = x;
	in[1] = w;
	in[2] = NULL;
	assert_int_equal(ht_step_begin(be, false), 0);
	ht_zero_grad(in + 1, 1);
	ht_zero_grad(&bias, 1);
	/* W is used twice, bias once (last layer): bias is final first */
	assert_int_equal(op_twice(in, &loss), 0);
	assert_int_equal(ht_linear(loss, w, bias, &loss), 0);
	assert_int_equal(fd_loss(op_ident, &loss, &loss), 0);
	assert_int_equal(ht_backward(loss), 0);
	assert_int_equal(log.calls, 2);
	assert_ptr_equal(log.seen[0], bias);
	assert_ptr_equal(log.seen[1], w);
	/* W's hook saw its final gradient */
	assert_true(log.first_grad[1] == host(w->grad)[0]);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(x);
	ht_tensor_free(w);
	ht_tensor_free(bias);
}

/* ------------------------------------------------------- optimizers */

/* One step on a parameter whose gradient is set by hand */
static void optim_run(int kind, const struct ht_optim_hparams *h,
		      const float *g, float *w_out, unsigned int steps)
{
	uint32_t n = 4;
	struct ht_tensor *p = prand(1, &n, 22, -1, 1, true);
	struct ht_optim *o;
	unsigned int s;

	p->is_param = true;
	assert_int_equal(ht_optim_new(be, kind, &o), 0);
	assert_int_equal(ht_optim_add_group(o, &p, 1, h), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, &n, true, &p->grad), 0);
	for (s = 0; s < steps; s++) {
		assert_int_equal(ht_step_begin(be, false), 0);
		memcpy(host(p->grad), g + 4 * s, 4 * sizeof(float));
		p->grad_set = true;
		assert_int_equal(ht_optim_step(o), 0);
		assert_int_equal(ht_step_end(be), 0);
	}
	memcpy(w_out, host(p), 4 * sizeof(float));
	/* a parameter without a gradient is left alone */
	ht_optim_zero_grad(o);
	assert_int_equal(ht_optim_step(o), 0);
	assert_memory_equal(w_out, host(p), 4 * sizeof(float));
	assert_int_equal(ht_optim_steps(o), steps + 1);
	ht_optim_free(o);
	ht_tensor_free(p);
}

static void test_optimizers(void **state)
{
	struct ht_optim_hparams sgd = { .lr = 0.1f,
					.momentum = 0.9f,
					.weight_decay = 0.01f,
					.nesterov = true };
	struct ht_optim_hparams adam = { .lr = 0.01f,
					 .beta1 = 0.9f,
					 .beta2 = 0.999f,
					 .eps = 1e-8f,
					 .weight_decay = 0.1f };
	float g[8] = { 0.5f, -1, 2, 0, 1, 1, -1, 0.25f }, w[4], w0[4];
	double rw[4], buf[4] = { 0 }, m[4] = { 0 }, v[4] = { 0 };
	uint32_t n = 4;
	struct ht_tensor *p = prand(1, &n, 22, -1, 1, false);
	unsigned int i, s;

	memcpy(w0, host(p), sizeof(w0)); /* the values optim_run starts from */
	ht_tensor_free(p);

	optim_run(HT_OPTIM_SGD, &sgd, g, w, 2);
	for (i = 0; i < 4; i++)
		rw[i] = w0[i];
	for (s = 0; s < 2; s++)
		for (i = 0; i < 4; i++) {
			double d = g[4 * s + i] + 0.01 * rw[i];

			buf[i] = 0.9 * buf[i] + d;
			rw[i] -= 0.1 * (d + 0.9 * buf[i]);
		}
	for (i = 0; i < 4; i++)
		assert_close(w[i], rw[i], 1e-6, 1e-5);

	optim_run(HT_OPTIM_ADAMW, &adam, g, w, 2);
	for (i = 0; i < 4; i++)
		rw[i] = w0[i];
	for (s = 1; s <= 2; s++)
		for (i = 0; i < 4; i++) {
			double gg = g[4 * (s - 1) + i];

			rw[i] -= 0.01 * 0.1 * rw[i];
			m[i] = 0.9 * m[i] + 0.1 * gg;
			v[i] = 0.999 * v[i] + 0.001 * gg * gg;
			rw[i] -= 0.01 * (m[i] / (1 - pow(0.9, s))) /
				 (sqrt(v[i] / (1 - pow(0.999, s))) + 1e-8);
		}
	for (i = 0; i < 4; i++)
		assert_close(w[i], rw[i], 1e-6, 1e-5);
}

/* ------------------------------------------------ lr schedule */

/*
 * ht_lr_at() at chosen steps (warm-up 4 of 14 steps, base 1e-3, floor
 * 1e-4) and ht_optim_schedule() setting each group from its own rate
 */
static void test_lr_schedule(void **state)
{
	struct ht_lr_schedule cs = { .kind = HT_LR_COSINE,
				     .warmup_steps = 4,
				     .total_steps = 14,
				     .lr_min = 1e-4f };
	struct ht_lr_schedule k = { .kind = HT_LR_CONSTANT, .warmup_steps = 4 };
	struct ht_optim_hparams h = {
		.lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f
	};
	uint32_t s = 4;
	struct ht_tensor *a = prand(1, &s, 1, -1, 1, false);
	struct ht_tensor *b = prand(1, &s, 2, -1, 1, false);
	struct ht_optim *o;

	(void)state;
	/* warm-up: base (s + 1) / W */
	assert_true(ht_lr_at(&cs, 1e-3f, 0) == (float)(1e-3 * 1 / 4));
	assert_true(ht_lr_at(&cs, 1e-3f, 1) == (float)(1e-3 * 2 / 4));
	assert_true(ht_lr_at(&cs, 1e-3f, 3) == 1e-3f);
	/* cosine: base at its start, halfway at step 9, the floor at 14 */
	assert_true(ht_lr_at(&cs, 1e-3f, 4) == 1e-3f);
	assert_close(ht_lr_at(&cs, 1e-3f, 9), 5.5e-4, 1e-12, 1e-6);
	assert_close(ht_lr_at(&cs, 1e-3f, 6),
		     1e-4 + 9e-4 * 0.5 * (1 + cos(M_PI * 0.2)), 1e-12, 1e-6);
	assert_true(ht_lr_at(&cs, 1e-3f, 14) == 1e-4f);
	assert_true(ht_lr_at(&cs, 1e-3f, 1000) == 1e-4f);
	/* decreasing after the warm-up */
	for (s = 5; s < 14; s++)
		assert_true(ht_lr_at(&cs, 1e-3f, s) <
			    ht_lr_at(&cs, 1e-3f, s - 1));
	/* a group below the floor keeps its own rate */
	assert_true(ht_lr_at(&cs, 5e-5f, 13) == 5e-5f);
	/* constant after the warm-up; no warm-up: the base at once */
	assert_true(ht_lr_at(&k, 1e-3f, 2) == (float)(1e-3 * 3 / 4));
	assert_true(ht_lr_at(&k, 1e-3f, 4) == 1e-3f);
	assert_true(ht_lr_at(&k, 1e-3f, 99) == 1e-3f);
	k.warmup_steps = 0;
	assert_true(ht_lr_at(&k, 1e-3f, 0) == 1e-3f);

	/* every group from its own rate, the lr of the first reported */
	assert_int_equal(ht_optim_new(be, HT_OPTIM_ADAMW, &o), 0);
	assert_int_equal(ht_optim_add_group(o, &a, 1, &h), 0);
	h.lr = 2e-3f;
	assert_int_equal(ht_optim_add_group(o, &b, 1, &h), 0);
	ht_optim_schedule(o, &cs, 1);
	assert_true(ht_optim_lr(o) == (float)(1e-3 * 2 / 4));
	ht_optim_schedule(o, &cs, 9);
	assert_true(ht_optim_lr(o) == ht_lr_at(&cs, 1e-3f, 9));
	ht_optim_schedule(o, &cs, 0); /* back: from the base, not compounded */
	assert_true(ht_optim_lr(o) == (float)(1e-3 * 1 / 4));
	ht_optim_free(o);
	ht_tensor_free(a);
	ht_tensor_free(b);
}

/* ----------------------------------------------------------- models */

/* Four Gaussian blobs in 8 dimensions, labels by blob */
static void blobs(float *x, int32_t *y, uint32_t n, uint64_t seed)
{
	struct ht_rng r;
	uint32_t i, k;

	ht_rng_seed(&r, seed, 0);
	for (i = 0; i < n; i++) {
		y[i] = (int32_t)ht_rng_below(&r, 4);
		for (k = 0; k < 8; k++)
			x[i * 8 + k] = 0.5f * ht_rng_normal(&r) +
				       ((uint32_t)y[i] == k % 4 ? 2.0f : 0.0f);
	}
}

static void test_mlp_learns(void **state)
{
	struct ht_mlp_config cfg = { .nsizes = 3,
				     .sizes = { 8, 16, 4 },
				     .act = HT_ACT_RELU,
				     .optim = HT_OPTIM_SGD,
				     .hp = { .lr = 0.1f, .momentum = 0.9f } };
	float x[64 * 8], first = 0, loss = 0;
	int32_t y[64];
	struct ht_module *m;
	uint32_t correct;
	unsigned int s;

	assert_int_equal(ht_mlp_create(be, &cfg, 42, &m), 0);
	assert_int_equal(m->nparams, 4);
	for (s = 0; s < 60; s++) {
		blobs(x, y, 64, s);
		assert_int_equal(ht_module_train_step(m, x, y, 64, &loss), 0);
		if (!s)
			first = loss;
	}
	assert_true(loss < 0.5f * first);
	blobs(x, y, 64, 1000);
	assert_int_equal(ht_module_eval_step(m, x, y, 64, &loss, &correct), 0);
	assert_true(correct >= 56);
	ht_module_destroy(m);
}

static void test_mixer_learns(void **state)
{
	struct ht_mixer_config cfg = { .tokens = 8,
				       .vocab = 5,
				       .dim = 8,
				       .hidden = 16,
				       .blocks = 1,
				       .classes = 5,
				       .lr_adamw = 0.01f,
				       .lr_sgd = 0.05f };
	int32_t x[32 * 8], y[32];
	float first = 0, loss = 0;
	struct ht_module *m;
	struct ht_rng r;
	unsigned int s, i, k;

	assert_int_equal(ht_mixer_create(be, &cfg, 7, &m), 0);
	assert_int_equal(m->noptims, 2);
	for (s = 0; s < 40; s++) {
		/* label: the id that fills most of the sample */
		ht_rng_seed(&r, s, 1);
		for (i = 0; i < 32; i++) {
			y[i] = (int32_t)ht_rng_below(&r, 5);
			for (k = 0; k < 8; k++)
				x[i * 8 + k] =
					k < 6 ? y[i] :
						(int32_t)ht_rng_below(&r, 5);
		}
		assert_int_equal(ht_module_train_step(m, x, y, 32, &loss), 0);
		if (!s)
			first = loss;
	}
	assert_true(loss < 0.5f * first);
	ht_module_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tpc_host_entry), T(test_linear),
		T(test_linear_bf16),	T(test_activations),
		T(test_dropout),	T(test_add_and_accumulation),
		T(test_layer_norm),	T(test_embedding),
		T(test_mean),		T(test_cross_entropy_accuracy),
		T(test_cast),		T(test_grad_hook),
		T(test_optimizers),	T(test_lr_schedule),
		T(test_mlp_learns),	T(test_mixer_learns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
