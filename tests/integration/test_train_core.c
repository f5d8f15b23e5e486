// SPDX-License-Identifier: MIT
/*
 * test_train_core.c - the training library's hpu backend against the real
 * hpu-fused: every op (forward and backward) and both optimizers on the
 * device give the cpu backend's bits; eager, lazy and graph execution
 * give bit-identical training; lazy and graph submit one CS per step;
 * graph mode refuses a step that differs from the captured one; an MLP
 * learns.
 *
 * hpu vs cpu is compared with memcmp: TPC kernels run the same code on
 * the same inputs, and a GEMM is the same OpenBLAS call in two processes
 * with the same thread count (common/hpu_blas.h: the count decides the
 * order of a product's additions), so every value, before and after the
 * GEMMs, has the same bits.
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

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_backend.h"
#include "hpudrv.h"
#include "ht_backend.h"
#include "ht_graph.h"
#include "ht_module.h"
#include "ht_ops.h"
#include "ht_optim.h"
#include "ht_rng.h"

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

/* hpu's @n floats have cpu's bits; else the first that differs */
static void assert_same_bits(const float *hpu, const float *cpu, size_t n,
			     const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (memcmp(&hpu[i], &cpu[i], sizeof(float)))
			fail_msg("%s[%zu]: hpu %.9g, cpu %.9g (%zu values)",
				 what, i, hpu[i], cpu[i], n);
}

/* ------------------------------------------------------ every op */

/* Where run_ops() puts its results: each op's output and gradients */
#define OPS_OUT 4096

/**
 * struct ops_out - results of run_ops()
 * @v: values, concatenated
 * @n: used
 */
struct ops_out {
	float v[OPS_OUT];
	unsigned int n;
};

static struct ht_tensor *param(struct ht_backend *be, unsigned int ndim,
			       const uint32_t *sizes, uint64_t seed, float lo,
			       float hi)
{
	struct ht_tensor *t;
	float v[512];

	assert_int_equal(ht_tensor_new(be, HT_F32, ndim, sizes, true, &t), 0);
	assert_true(t->numel <= 512);
	hpu_test_frand(v, (unsigned int)t->numel, seed, lo, hi);
	assert_int_equal(ht_tensor_upload(t, v), 0);
	t->requires_grad = true;
	t->is_param = true;
	return t;
}

static void out_fetch(struct ops_out *o, struct ht_tensor *t)
{
	assert_non_null(t);
	assert_true(o->n + t->numel <= OPS_OUT);
	if (t->dtype == HT_F32) {
		assert_int_equal(ht_tensor_fetch(t, o->v + o->n), 0);
	} else {
		/* an int32 count: fetched as its bits */
		assert_int_equal(t->numel, 1);
		assert_int_equal(ht_tensor_fetch(t, o->v + o->n), 0);
	}
	o->n += (unsigned int)t->numel;
}

/*
 * One step through every op, forward and backward, then an SGD and an
 * AdamW update; every output and gradient fetched into @o.
 */
static void run_ops(struct ht_backend *be, struct ops_out *o)
{
	uint32_t ts[2] = { 6, 4 }, is[2] = { 3, 2 }, ps[2] = { 2, 4 };
	uint32_t d = 4, ws[2] = { 5, 4 }, b5 = 5, n3 = 3;
	int32_t ids[6] = { 1, 5, 0, 1, 3, 5 }, lab[3] = { 4, 0, 2 };
	struct ht_tensor *table, *pos, *g, *bt, *w, *b, *idt, *labt;
	struct ht_tensor *e, *h, *t1, *t2, *t3, *t4, *m, *c, *lo, *loss, *acc;
	struct ht_optim_hparams sgd = { .lr = 0.1f, .momentum = 0.9f };
	struct ht_optim_hparams adam = { .lr = 0.01f,
					 .beta1 = 0.9f,
					 .beta2 = 0.99f,
					 .eps = 1e-8f,
					 .weight_decay = 0.01f };
	struct ht_optim *os, *oa;

	memset(o, 0, sizeof(*o));
	table = param(be, 2, ts, 1, -1, 1);
	pos = param(be, 2, ps, 2, -1, 1);
	g = param(be, 1, &d, 3, 0.5f, 1.5f);
	bt = param(be, 1, &d, 4, -0.5f, 0.5f);
	w = param(be, 2, ws, 5, -1, 1);
	b = param(be, 1, &b5, 6, -1, 1);
	assert_int_equal(ht_tensor_new(be, HT_I32, 2, is, true, &idt), 0);
	assert_int_equal(ht_tensor_upload(idt, ids), 0);
	assert_int_equal(ht_tensor_new(be, HT_I32, 1, &n3, true, &labt), 0);
	assert_int_equal(ht_tensor_upload(labt, lab), 0);
	assert_int_equal(ht_optim_new(be, HT_OPTIM_SGD, &os), 0);
	assert_int_equal(ht_optim_add_group(os, &w, 1, &sgd), 0);
	assert_int_equal(ht_optim_add_group(os, &b, 1, &sgd), 0);
	assert_int_equal(ht_optim_new(be, HT_OPTIM_ADAMW, &oa), 0);
	assert_int_equal(ht_optim_add_group(oa, &table, 1, &adam), 0);

	assert_int_equal(ht_step_begin(be, true), 0);
	assert_int_equal(ht_embedding(table, idt, &e), 0); /* [3][2][4] */
	assert_int_equal(ht_add(e, pos, &e), 0);
	assert_int_equal(ht_layer_norm(e, g, bt, HT_LN_EPS, &h), 0);
	assert_int_equal(ht_gelu(h, &t1), 0);
	assert_int_equal(ht_tanh(t1, &t2), 0);
	assert_int_equal(ht_relu(h, &t3), 0);
	assert_int_equal(ht_add(t2, t3, &t4), 0);
	assert_int_equal(ht_cast(t4, HT_BF16, &c), 0);
	assert_int_equal(ht_cast(c, HT_F32, &c), 0);
	assert_int_equal(ht_mean_axis(c, 1, &m), 0); /* [3][4] */
	out_fetch(o, e);
	out_fetch(o, h);
	out_fetch(o, t4);
	out_fetch(o, m);
	assert_int_equal(ht_linear(m, w, b, &lo), 0); /* [3][5] */
	assert_int_equal(ht_cross_entropy(lo, labt, &loss), 0);
	assert_int_equal(ht_accuracy(lo, labt, &acc), 0);
	out_fetch(o, lo);
	out_fetch(o, loss);
	out_fetch(o, acc);
	ht_optim_zero_grad(os);
	ht_optim_zero_grad(oa);
	ht_zero_grad(&pos, 1);
	ht_zero_grad(&g, 1);
	ht_zero_grad(&bt, 1);
	assert_int_equal(ht_backward(loss), 0);
	out_fetch(o, w->grad);
	out_fetch(o, b->grad);
	out_fetch(o, g->grad);
	out_fetch(o, bt->grad);
	out_fetch(o, pos->grad);
	out_fetch(o, table->grad);
	assert_int_equal(ht_optim_step(os), 0);
	assert_int_equal(ht_optim_step(oa), 0);
	out_fetch(o, w);
	out_fetch(o, table);
	assert_int_equal(ht_step_end(be), 0);

	ht_optim_free(os);
	ht_optim_free(oa);
	ht_tensor_free(table);
	ht_tensor_free(pos);
	ht_tensor_free(g);
	ht_tensor_free(bt);
	ht_tensor_free(w);
	ht_tensor_free(b);
	ht_tensor_free(idt);
	ht_tensor_free(labt);
}

static void compare_ops(const struct ops_out *h, const struct ops_out *c)
{
	assert_int_equal(h->n, c->n);
	assert_same_bits(h->v, c->v, h->n, "op outputs");
}

static void test_ops_hpu_vs_cpu(void **state)
{
	static struct ops_out cpu, hpu;
	struct ht_backend *be;
	int mode;

	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	run_ops(be, &cpu);
	hpu_test_backend_close(be);
	for (mode = HT_EXEC_EAGER; mode <= HT_EXEC_LAZY; mode++) {
		be = hpu_test_backend_open(HT_ACCEL_HPU, mode);
		run_ops(be, &hpu);
		compare_ops(&hpu, &cpu);
		if (mode == HT_EXEC_LAZY)
			/* the step's program in one CS (plus setup) */
			assert_true(be->stats.submissions <= 3);
		hpu_test_backend_close(be);
	}
}

/* ------------------------------------- GEMMs of every BLAS thread count */

/* Values run_gemms() fetches: outputs and gradients */
#define GEMM_OUT (1U << 18)

/**
 * struct gemm_out - results of run_gemms()
 * @v: values, concatenated
 * @n: used
 */
struct gemm_out {
	float v[GEMM_OUT];
	unsigned int n;
};

/* A persistent fp32 parameter of @ndim @sizes, uniform in [-1, 1) */
static struct ht_tensor *dense(struct ht_backend *be, unsigned int ndim,
			       const uint32_t *sizes, uint64_t seed)
{
	struct ht_tensor *t;
	float *v;

	assert_int_equal(ht_tensor_new(be, HT_F32, ndim, sizes, true, &t), 0);
	v = malloc(t->numel * sizeof(*v));
	assert_non_null(v);
	hpu_test_frand(v, (unsigned int)t->numel, seed, -1, 1);
	assert_int_equal(ht_tensor_upload(t, v), 0);
	free(v);
	t->requires_grad = true;
	t->is_param = true;
	return t;
}

/* Labels of @rows rows of @c classes */
static struct ht_tensor *labels(struct ht_backend *be, uint32_t rows,
				uint32_t c)
{
	struct ht_tensor *t;
	int32_t *lab;
	uint32_t r;

	lab = malloc(rows * sizeof(*lab));
	assert_non_null(lab);
	for (r = 0; r < rows; r++)
		lab[r] = (int32_t)((r * 7 + 3) % c);
	assert_int_equal(ht_tensor_new(be, HT_I32, 1, &rows, true, &t), 0);
	assert_int_equal(ht_tensor_upload(t, lab), 0);
	free(lab);
	return t;
}

static void gemm_fetch(struct gemm_out *o, struct ht_tensor *t)
{
	assert_non_null(t);
	assert_true(o->n + t->numel <= GEMM_OUT);
	assert_int_equal(ht_tensor_fetch(t, o->v + o->n), 0);
	o->n += (unsigned int)t->numel;
}

/*
 * Products on both sides of the BLAS thread rule (common/hpu_blas.h),
 * forward and backward: a linear layer of 128x96x32 (OpenBLAS alone
 * would run it on every core, the rule on one thread), one of
 * 256x128x128 (2^22 multiply-adds: OpenBLAS's default thread count) and
 * a batched 4 x 128x128x32 product; every output and gradient into @o.
 */
static void run_gemms(struct ht_backend *be, struct gemm_out *o)
{
	uint32_t sx[2] = { 128, 32 }, sw[2] = { 96, 32 };
	uint32_t sx2[2] = { 256, 128 }, sw2[2] = { 128, 128 };
	uint32_t sa[3] = { 4, 128, 32 }, sb[3] = { 4, 32, 128 };
	uint32_t sy[2] = { 512, 128 };
	struct ht_tensor *p[6], *lab[3], *y[3], *l[3], *r, *s, *loss;
	unsigned int i;

	memset(o, 0, sizeof(*o));
	p[0] = dense(be, 2, sx, 31);
	p[1] = dense(be, 2, sw, 32);
	p[2] = dense(be, 2, sx2, 33);
	p[3] = dense(be, 2, sw2, 34);
	p[4] = dense(be, 3, sa, 35);
	p[5] = dense(be, 3, sb, 36);
	lab[0] = labels(be, 128, 96);
	lab[1] = labels(be, 256, 128);
	lab[2] = labels(be, 512, 128);

	assert_int_equal(ht_step_begin(be, true), 0);
	assert_int_equal(ht_linear(p[0], p[1], NULL, &y[0]), 0);
	assert_int_equal(ht_linear(p[2], p[3], NULL, &y[1]), 0);
	assert_int_equal(ht_bmm(p[4], p[5], 0, &y[2]), 0);
	assert_int_equal(ht_reshape(y[2], 2, sy, &r), 0);
	assert_int_equal(ht_cross_entropy(y[0], lab[0], &l[0]), 0);
	assert_int_equal(ht_cross_entropy(y[1], lab[1], &l[1]), 0);
	assert_int_equal(ht_cross_entropy(r, lab[2], &l[2]), 0);
	assert_int_equal(ht_add(l[0], l[1], &s), 0);
	assert_int_equal(ht_add(s, l[2], &loss), 0);
	for (i = 0; i < 3; i++)
		gemm_fetch(o, y[i]);
	gemm_fetch(o, loss);
	ht_zero_grad(p, 6);
	assert_int_equal(ht_backward(loss), 0);
	for (i = 0; i < 6; i++)
		gemm_fetch(o, p[i]->grad);
	assert_int_equal(ht_step_end(be), 0);

	for (i = 0; i < 6; i++)
		ht_tensor_free(p[i]);
	for (i = 0; i < 3; i++)
		ht_tensor_free(lab[i]);
}

/*
 * Every product gives the cpu backend's bits on the MME. The regression:
 * the cpu backend left the thread count to OpenBLAS, which threads
 * products of more than 2^18 multiply-adds, while the MME ran those under
 * 2^22 on one thread; with two threads OpenBLAS adds in another order
 * (17 % of the 128x96x32 outputs differed, by up to 4.8e-7).
 */
static void test_gemm_threads_hpu_vs_cpu(void **state)
{
	static struct gemm_out cpu, hpu;
	struct ht_backend *be;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	run_gemms(be, &cpu);
	hpu_test_backend_close(be);
	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_LAZY);
	run_gemms(be, &hpu);
	hpu_test_backend_close(be);
	assert_int_equal(hpu.n, cpu.n);
	assert_same_bits(hpu.v, cpu.v, cpu.n, "GEMM outputs and gradients");
}

/* ------------------------------------------------- training in modes */

#define MLP_STEPS 6
#define MLP_BATCH 64

static void synth(float *x, int32_t *y, unsigned int n, uint64_t seed)
{
	struct ht_rng r;
	unsigned int i, k;

	ht_rng_seed(&r, seed, 0);
	for (i = 0; i < n; i++) {
		y[i] = (int32_t)ht_rng_below(&r, 10);
		for (k = 0; k < 64; k++)
			x[i * 64 + k] =
				0.3f * ht_rng_normal(&r) +
				(k % 10 == (unsigned int)y[i] ? 1.0f : 0.0f);
	}
}

static const struct ht_mlp_config digits_mlp = {
	.nsizes = 3,
	.sizes = { 64, 128, 10 },
	.act = HT_ACT_RELU,
	.optim = HT_OPTIM_ADAMW,
	.hp = { .lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f },
};

/* Train MLP_STEPS steps; losses and final parameters */
static float *train(int accel, int mode, float *losses,
		    struct ht_backend_stats *st)
{
	struct ht_backend *be = hpu_test_backend_open(accel, mode);
	float x[MLP_BATCH * 64], *p;
	int32_t y[MLP_BATCH];
	struct ht_module *m;
	unsigned int s;

	assert_int_equal(ht_mlp_create(be, &digits_mlp, 5, &m), 0);
	for (s = 0; s < MLP_STEPS; s++) {
		synth(x, y, MLP_BATCH, s);
		if (ht_module_train_step(m, x, y, MLP_BATCH, &losses[s]))
			fail_msg("step %u: %s", s, be->err);
	}
	p = malloc(ht_module_numel(m) * sizeof(float));
	assert_non_null(p);
	assert_int_equal(ht_module_read_params(m, p), 0);
	if (st)
		*st = be->stats;
	ht_module_destroy(m);
	hpu_test_backend_close(be);
	return p;
}

static void test_modes_identical(void **state)
{
	float le[MLP_STEPS], ll[MLP_STEPS], lg[MLP_STEPS], lc[MLP_STEPS];
	struct ht_backend_stats se, sl, sg;
	float *pe, *pl, *pg, *pc;
	size_t n = (64 * 128 + 128 + 128 * 10 + 10) * sizeof(float);

	pe = train(HT_ACCEL_HPU, HT_EXEC_EAGER, le, &se);
	pl = train(HT_ACCEL_HPU, HT_EXEC_LAZY, ll, &sl);
	pg = train(HT_ACCEL_HPU, HT_EXEC_GRAPH, lg, &sg);
	pc = train(HT_ACCEL_CPU, HT_EXEC_LAZY, lc, NULL);
	assert_memory_equal(le, ll, sizeof(le));
	assert_memory_equal(le, lg, sizeof(le));
	assert_memory_equal(pe, pl, n);
	assert_memory_equal(pe, pg, n);
	/* fc1's 64x128x64 products: one BLAS thread on both sides */
	assert_same_bits(ll, lc, MLP_STEPS, "loss");
	assert_same_bits(pl, pc, n / sizeof(float), "params");
	/* eager: a CS per op; lazy and graph: one per step */
	assert_true(se.submissions > 20 * MLP_STEPS);
	assert_true(sl.submissions <= MLP_STEPS + 2);
	assert_true(sg.submissions <= MLP_STEPS + 2);
	assert_int_equal(sg.replays, MLP_STEPS - 1);
	free(pe);
	free(pl);
	free(pg);
	free(pc);
}

/* ------------------------------------------------- graph mode refusals */

static void test_graph_refuses_other_step(void **state)
{
	struct ht_backend *be =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	float x[MLP_BATCH * 64], loss, l2;
	int32_t y[MLP_BATCH];
	struct ht_module *m;
	uint32_t correct;

	assert_int_equal(ht_mlp_create(be, &digits_mlp, 5, &m), 0);
	synth(x, y, MLP_BATCH, 1);
	assert_int_equal(ht_module_train_step(m, x, y, MLP_BATCH, &loss), 0);
	assert_int_equal(ht_module_train_step(m, x, y, MLP_BATCH, &l2), 0);
	assert_true(l2 < loss);
	/* another batch size: other shapes, other ops */
	be->err[0] = 0;
	assert_int_equal(ht_module_train_step(m, x, y, MLP_BATCH / 2, &loss),
			 -EINVAL);
	assert_non_null(strstr(be->err, "graph mode"));
	/* a validation step runs lazily beside the graph */
	assert_int_equal(ht_module_eval_step(m, x, y, MLP_BATCH / 2, &loss,
					     &correct),
			 0);
	assert_true(correct <= MLP_BATCH / 2);
	/* the captured step still replays */
	assert_int_equal(ht_module_train_step(m, x, y, MLP_BATCH, &l2), 0);
	assert_true(isfinite(l2));
	ht_module_destroy(m);
	hpu_test_backend_close(be);
}

/* ------------------------------------------------------------ learning */

static void test_mlp_learns_on_hpu(void **state)
{
	struct ht_backend *be =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	float x[MLP_BATCH * 64], loss = 0, first = 0;
	int32_t y[MLP_BATCH];
	struct ht_module *m;
	uint32_t correct;
	unsigned int s;

	assert_int_equal(ht_mlp_create(be, &digits_mlp, 9, &m), 0);
	for (s = 0; s < 40; s++) {
		synth(x, y, MLP_BATCH, 100 + s);
		assert_int_equal(
			ht_module_train_step(m, x, y, MLP_BATCH, &loss), 0);
		if (!s)
			first = loss;
	}
	assert_true(loss < 0.25f * first);
	synth(x, y, MLP_BATCH, 7777);
	assert_int_equal(
		ht_module_eval_step(m, x, y, MLP_BATCH, &loss, &correct), 0);
	assert_true(correct >= MLP_BATCH * 9 / 10);
	ht_module_destroy(m);
	hpu_test_backend_close(be);
}

/* The token model (two optimizers) on hpu: the cpu's losses and weights */
static void test_mixer_hpu_vs_cpu(void **state)
{
	struct ht_mixer_config cfg = { .tokens = 16,
				       .vocab = 17,
				       .dim = 16,
				       .hidden = 32,
				       .blocks = 1,
				       .classes = 10,
				       .lr_adamw = 0.01f,
				       .lr_sgd = 0.05f };
	float loss[2][4], *p[2];
	int32_t x[32 * 16], y[32];
	unsigned int a, s, i;
	struct ht_rng r;
	size_t n = 0;

	for (a = 0; a < 2; a++) {
		struct ht_backend *be = hpu_test_backend_open(
			a ? HT_ACCEL_CPU : HT_ACCEL_HPU, HT_EXEC_GRAPH);
		struct ht_module *m;

		assert_int_equal(ht_mixer_create(be, &cfg, 3, &m), 0);
		for (s = 0; s < 4; s++) {
			ht_rng_seed(&r, s, 3);
			for (i = 0; i < 32; i++)
				y[i] = (int32_t)ht_rng_below(&r, 10);
			for (i = 0; i < 32 * 16; i++)
				x[i] = (int32_t)ht_rng_below(&r, 17);
			if (ht_module_train_step(m, x, y, 32, &loss[a][s]))
				fail_msg("%s", be->err);
		}
		n = ht_module_numel(m);
		p[a] = malloc(n * sizeof(float));
		assert_non_null(p[a]);
		assert_int_equal(ht_module_read_params(m, p[a]), 0);
		ht_module_destroy(m);
		hpu_test_backend_close(be);
	}
	assert_same_bits(loss[0], loss[1], 4, "mixer loss");
	assert_same_bits(p[0], p[1], n, "mixer params");
	free(p[0]);
	free(p[1]);
}

/* submit NOPs on DMA queue 0 and the first TPC queue through @s */
static uint64_t submit_two(struct hpu_stream *s, struct hpu_cb_builder **cb,
			   uint32_t tpc)
{
	struct hpu_cs_chunk c[2];
	uint64_t seq = 0;
	int i;

	memset(c, 0, sizeof(c));
	for (i = 0; i < 2; i++) {
		c[i].cb_handle = hpu_cb_builder_handle(cb[i]);
		c[i].cb_size = (uint32_t)hpu_cb_builder_used(cb[i]);
	}
	c[1].queue_index = tpc;
	assert_int_equal(hpu_stream_submit(s, c, 2, 5000, &seq), 0);
	return seq;
}

/*
 * The DDP compute stream's submissions (hpu_stream_submit(), the
 * program's CSs): sequence numbers of one context are consecutive, so
 * their gaps count the WAIT CSs submitted around a CS. Behind a CS still
 * running, the next one takes one WAIT (a chunk per queue it uses), none
 * after it; once the stream's work is known to have ended, none at all.
 */
static void test_stream_submit_waits(void **state)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_cb_builder *cb[2], *blk, *rel;
	struct hpu_device *dev;
	struct hpu_stream *s;
	struct hpu_cs_chunk c[2];
	uint64_t s1, s2, s3, r;
	uint32_t st;
	int i;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb[i]), 0);
		assert_int_equal(hpu_cb_nop(cb[i]), 0);
	}
	/* the first CS blocks on SOB 21 (0 in a fresh context) */
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &blk), 0);
	assert_int_equal(hpu_cb_fence(blk, 21, 1, 1), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &rel), 0);
	assert_int_equal(hpu_cb_msg_long(rel, 21, HPU_MSG_OP_ADD, 1), 0);
	assert_int_equal(hpu_stream_create(dev, 0, &s), 0);
	memset(c, 0, sizeof(c));
	c[0].cb_handle = hpu_cb_builder_handle(blk);
	c[0].cb_size = (uint32_t)hpu_cb_builder_used(blk);
	c[1].cb_handle = hpu_cb_builder_handle(cb[1]);
	c[1].cb_size = (uint32_t)hpu_cb_builder_used(cb[1]);
	c[1].queue_index = hw.num_dma + hw.num_mme;
	assert_int_equal(hpu_stream_submit(s, c, 2, 5000, &s1), 0);
	/* s1 + 1: one WAIT, queue 0 and the TPC queue, for s1 */
	s2 = submit_two(s, cb, hw.num_dma + hw.num_mme);
	print_message("seqs %llu %llu\n", (unsigned long long)s1,
		      (unsigned long long)s2);
	assert_int_equal(s2, s1 + 2);
	assert_int_equal(hpu_cs_wait(dev, s2, 0, &st), 0);
	assert_int_equal(st, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_cb_builder_submit(rel, 1, 0, 0, &r, NULL), 0);
	assert_int_equal(r, s2 + 1);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	/* everything ended: no WAIT before the CS, none after s2 */
	s3 = submit_two(s, cb, hw.num_dma + hw.num_mme);
	assert_int_equal(s3, r + 1);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	hpu_stream_destroy(s);
	for (i = 0; i < 2; i++)
		hpu_cb_builder_destroy(cb[i]);
	hpu_cb_builder_destroy(blk);
	hpu_cb_builder_destroy(rel);
	hpu_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ops_hpu_vs_cpu,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_gemm_threads_hpu_vs_cpu,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_modes_identical,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_graph_refuses_other_step,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_mlp_learns_on_hpu,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_mixer_hpu_vs_cpu,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_stream_submit_waits,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
