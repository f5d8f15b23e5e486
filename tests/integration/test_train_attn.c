// SPDX-License-Identifier: MIT
/*
 * test_train_attn.c - the attention ops and gradient clipping of the
 * training library on the hpu backend against the real hpu-fused:
 *
 * - the TPC-only ops (causal softmax forward and backward through the
 *   cross-entropy, head split and merge, clip_grad_norm) give the cpu
 *   backend's bits;
 * - training steps of an attention block (batched matmuls on the MME,
 *   AdamW with a decay and a no-decay group, clipping by global norm)
 *   are bit-identical in eager, lazy and graph mode and on the cpu
 *   backend (the same kernel code, the same OpenBLAS calls with the
 *   same thread count: common/hpu_blas.h);
 * - a decode-step softmax captured once as a graph and replayed with its
 *   query position changing every step (a dynamic parameter patched into
 *   the captured CB) masks the right keys at every position, as the cpu
 *   backend does, and a position past the cache is refused;
 * - the HPU-graphs decode recipe: a step that writes the token's key into
 *   a zeroed cache at its position (kv_cache_write), scores it against
 *   the cache (MME), applies the causal softmax at that position and
 *   reads the cache back as values is captured once and replayed for
 *   every slot, giving the cpu backend's bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hpu_test_backend.h"
#include "../lib/hpu_test_daemon.h"
#include "ht_backend.h"
#include "ht_graph.h"
#include "ht_ops.h"
#include "ht_optim.h"
#include "ht_rng.h"

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

static struct ht_tensor *param(struct ht_backend *be, unsigned int ndim,
			       const uint32_t *sizes, uint64_t seed, float lo,
			       float hi, bool grad)
{
	struct ht_tensor *t;
	float v[1024];

	assert_int_equal(ht_tensor_new(be, HT_F32, ndim, sizes, true, &t), 0);
	assert_true(t->numel <= 1024);
	hpu_test_frand(v, (unsigned int)t->numel, seed, lo, hi);
	assert_int_equal(ht_tensor_upload(t, v), 0);
	t->requires_grad = grad;
	t->is_param = grad;
	return t;
}

/* Values fetched from a backend, concatenated */
#define OUT_MAX 16384

struct vals {
	float v[OUT_MAX];
	unsigned int n;
};

static void fetch(struct vals *o, struct ht_tensor *t)
{
	assert_true(o->n + t->numel <= OUT_MAX);
	assert_int_equal(ht_tensor_fetch(t, o->v + o->n), 0);
	o->n += (unsigned int)t->numel;
}

/* Labels of rows of @c classes */
static struct ht_tensor *labels(struct ht_backend *be, uint32_t rows,
				uint32_t c)
{
	struct ht_tensor *t;
	int32_t lab[256];
	uint32_t r;

	assert_true(rows <= 256);
	for (r = 0; r < rows; r++)
		lab[r] = (int32_t)((r * 5 + 1) % c);
	assert_int_equal(ht_tensor_new(be, HT_I32, 1, &rows, true, &t), 0);
	assert_int_equal(ht_tensor_upload(t, lab), 0);
	return t;
}

/* ------------------------------------------------ TPC ops: the same bits */

/*
 * scores -> causal softmax -> split as heads -> merge -> cross-entropy,
 * backward to the scores; then the clipping of the scores' gradient
 */
static void run_tpc_ops(struct ht_backend *be, struct vals *o)
{
	uint32_t ss[3] = { 2, 6, 8 }, ls[2] = { 12, 8 };
	struct ht_tensor *s = param(be, 3, ss, 11, -3, 3, true);
	struct ht_tensor *lab = labels(be, 12, 8), *p, *h, *m, *l, *loss, *nrm;

	memset(o, 0, sizeof(*o));
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_causal_softmax(s, 0.6f, 2, &p), 0);
	assert_int_equal(ht_split_heads(p, 0, 2, 4, &h), 0); /* [2][2][6][4] */
	assert_int_equal(ht_merge_heads(h, &m), 0);
	assert_int_equal(ht_reshape(m, 2, ls, &l), 0);
	assert_int_equal(ht_cross_entropy(l, lab, &loss), 0);
	ht_zero_grad(&s, 1);
	assert_int_equal(ht_backward(loss), 0);
	fetch(o, p);
	fetch(o, h);
	fetch(o, loss);
	fetch(o, s->grad);
	assert_int_equal(ht_clip_grad_norm(&s, 1, 0.01f, &nrm), 0);
	fetch(o, nrm);
	fetch(o, s->grad);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(s);
	ht_tensor_free(lab);
}

static void test_tpc_ops_bits(void **state)
{
	static struct vals cpu, hpu;
	struct ht_backend *be;
	int mode;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	run_tpc_ops(be, &cpu);
	hpu_test_backend_close(be);
	for (mode = HT_EXEC_EAGER; mode <= HT_EXEC_LAZY; mode++) {
		be = hpu_test_backend_open(HT_ACCEL_HPU, mode);
		run_tpc_ops(be, &hpu);
		hpu_test_backend_close(be);
		assert_int_equal(hpu.n, cpu.n);
		assert_memory_equal(hpu.v, cpu.v, cpu.n * sizeof(float));
	}
}

/* ---------------------------------------------- training an attention */

#define STEPS 4
#define B     2
#define TT    7
#define C     8
#define H     2

/* Losses, norms and the final parameters of STEPS training steps */
static void train(struct ht_backend *be, struct vals *o)
{
	uint32_t sx[3] = { B, TT, C }, sq[2] = { 3 * C, C }, so[2] = { C, C };
	uint32_t nb3 = 3 * C, nb = C, ls[2] = { B * TT, C };
	struct ht_optim_hparams hp = { .lr = 0.02f,
				       .beta1 = 0.9f,
				       .beta2 = 0.99f,
				       .eps = 1e-8f,
				       .weight_decay = 0.1f };
	struct ht_tensor *x = param(be, 3, sx, 20, -1, 1, false);
	struct ht_tensor *lab = labels(be, B * TT, C), *w[4], *y, *l, *loss;
	struct ht_tensor *nrm;
	struct ht_attn_params ap = { .heads = H };
	struct ht_optim *opt;
	unsigned int s, i;

	memset(o, 0, sizeof(*o));
	w[0] = param(be, 2, sq, 21, -0.5f, 0.5f, true);
	w[1] = param(be, 1, &nb3, 22, -0.1f, 0.1f, true);
	w[2] = param(be, 2, so, 23, -0.5f, 0.5f, true);
	w[3] = param(be, 1, &nb, 24, -0.1f, 0.1f, true);
	ap.w_qkv = w[0];
	ap.b_qkv = w[1];
	ap.w_out = w[2];
	ap.b_out = w[3];
	assert_int_equal(ht_optim_new(be, HT_OPTIM_ADAMW, &opt), 0);
	/* decay on the matrices, none on the biases */
	assert_int_equal(
		ht_optim_add_group(opt, (struct ht_tensor *[]){ w[0], w[2] }, 2,
				   &hp),
		0);
	hp.weight_decay = 0.0f;
	assert_int_equal(
		ht_optim_add_group(opt, (struct ht_tensor *[]){ w[1], w[3] }, 2,
				   &hp),
		0);
	for (s = 0; s < STEPS; s++) {
		assert_int_equal(ht_step_begin(be, true), 0);
		ht_optim_zero_grad(opt);
		if (ht_causal_self_attention(x, &ap, &y) ||
		    ht_reshape(y, 2, ls, &l) ||
		    ht_cross_entropy(l, lab, &loss) || ht_backward(loss) ||
		    ht_clip_grad_norm(w, 4, 0.05f, &nrm) || ht_optim_step(opt))
			fail_msg("step %u: %s", s, be->err);
		fetch(o, loss);
		fetch(o, nrm);
		if (ht_step_end(be))
			fail_msg("step %u end: %s", s, be->err);
	}
	for (i = 0; i < 4; i++) {
		assert_true(o->n + w[i]->numel <= OUT_MAX);
		assert_int_equal(ht_tensor_download(w[i], o->v + o->n), 0);
		o->n += (unsigned int)w[i]->numel;
	}
	ht_optim_free(opt);
	for (i = 0; i < 4; i++)
		ht_tensor_free(w[i]);
	ht_tensor_free(x);
	ht_tensor_free(lab);
}

static void test_train_modes(void **state)
{
	static struct vals cpu, eager, lazy, graph;
	struct ht_backend *be;
	uint64_t replays;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	train(be, &cpu);
	hpu_test_backend_close(be);
	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_EAGER);
	train(be, &eager);
	hpu_test_backend_close(be);
	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_LAZY);
	train(be, &lazy);
	hpu_test_backend_close(be);
	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	train(be, &graph);
	replays = be->stats.replays;
	hpu_test_backend_close(be);

	assert_int_equal(replays, STEPS - 1);
	assert_int_equal(eager.n, cpu.n);
	assert_memory_equal(eager.v, lazy.v, cpu.n * sizeof(float));
	assert_memory_equal(eager.v, graph.v, cpu.n * sizeof(float));
	assert_memory_equal(eager.v, cpu.v, cpu.n * sizeof(float));
	/* the loss goes down and the clipping clipped (norm > 0.05) */
	assert_true(cpu.v[2 * (STEPS - 1)] < cpu.v[0]);
	assert_true(cpu.v[1] > 0.05f);
}

/* ------------------------------------------- decode step: graph replay */

#define SLOTS 8

/* softmax of the [2][1][SLOTS] scores at position @pos, as fetched */
static void decode(struct ht_backend *be, struct ht_tensor *sc, uint32_t pos,
		   float *out)
{
	struct ht_tensor *p;

	assert_int_equal(ht_step_begin(be, true), 0);
	be->grad_enabled = false;
	if (ht_causal_softmax(sc, 0.5f, pos, &p))
		fail_msg("position %u: %s", pos, be->err);
	assert_int_equal(ht_tensor_fetch(p, out), 0);
	be->grad_enabled = true;
	assert_int_equal(ht_step_end(be), 0);
}

static void test_decode_graph_offset(void **state)
{
	uint32_t ss[3] = { 2, 1, SLOTS }, pos, i;
	float cpu[SLOTS][2 * SLOTS], hpu[SLOTS][2 * SLOTS];
	struct ht_backend *be;
	struct ht_tensor *sc, *p;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	sc = param(be, 3, ss, 30, -2, 2, false);
	for (pos = 0; pos < SLOTS; pos++)
		decode(be, sc, pos, cpu[pos]);
	ht_tensor_free(sc);
	hpu_test_backend_close(be);

	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	sc = param(be, 3, ss, 30, -2, 2, false);
	for (pos = 0; pos < SLOTS; pos++)
		decode(be, sc, pos, hpu[pos]);
	assert_int_equal(be->stats.replays, SLOTS - 1);
	assert_memory_equal(hpu, cpu, sizeof(cpu));
	for (pos = 0; pos < SLOTS; pos++)
		for (i = 0; i < 2 * SLOTS; i++)
			assert_true((i % SLOTS > pos) == (hpu[pos][i] == 0.0f));
	/* a position past the cache: refused before anything is issued */
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_causal_softmax(sc, 0.5f, SLOTS, &p), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(sc);
	hpu_test_backend_close(be);
}

#define DROP_STEPS 4
#define DROP_N	   (3 * 5 * 7)

/*
 * Dropout steps on @be: y = dropout(x, seed of the step), the gradient of
 * a cross-entropy of y (as [35][3] logits) flowing back to x; y and dx of
 * every step
 */
static uint64_t dropout_steps(struct ht_backend *be, float y[][DROP_N],
			      float dx[][DROP_N])
{
	uint32_t s[3] = { 3, 5, 7 }, ls[2] = { DROP_N / 3, 3 }, n = DROP_N / 3;
	struct ht_tensor *x, *lab, *yt, *lg, *l;
	int32_t lv[DROP_N / 3];
	unsigned int k;

	for (k = 0; k < n; k++)
		lv[k] = (int32_t)(k % 3);
	x = param(be, 3, s, 60, -1, 1, true);
	assert_int_equal(ht_tensor_new(be, HT_I32, 1, &n, true, &lab), 0);
	assert_int_equal(ht_tensor_upload(lab, lv), 0);
	for (k = 0; k < DROP_STEPS; k++) {
		assert_int_equal(ht_step_begin(be, true), 0);
		ht_zero_grad(&x, 1);
		if (ht_dropout(x, 0.25f, ht_dropout_seed(7, k, 0), &yt) ||
		    ht_reshape(yt, 2, ls, &lg) ||
		    ht_cross_entropy(lg, lab, &l) || ht_backward(l))
			fail_msg("step %u: %s", k, be->err);
		assert_int_equal(ht_tensor_fetch(yt, y[k]), 0);
		assert_int_equal(ht_tensor_fetch(x->grad, dx[k]), 0);
		assert_int_equal(ht_step_end(be), 0);
	}
	ht_tensor_free(x);
	ht_tensor_free(lab);
	return be->stats.replays;
}

/*
 * ht_dropout() on hpu in eager, lazy and graph mode (its seed patched
 * into the replayed step: a new mask each step) gives the cpu backend's
 * bits forward and backward
 */
static void test_dropout_modes(void **state)
{
	static float cy[DROP_STEPS][DROP_N], cdx[DROP_STEPS][DROP_N];
	static float hy[DROP_STEPS][DROP_N], hdx[DROP_STEPS][DROP_N];
	struct ht_backend *be;
	unsigned int i, k, mode;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	dropout_steps(be, cy, cdx);
	hpu_test_backend_close(be);
	/* every step draws another mask */
	for (k = 1; k < DROP_STEPS; k++)
		assert_true(memcmp(cy[k], cy[0], sizeof(cy[0])));
	for (k = 0; k < DROP_STEPS; k++)
		for (i = 0; i < DROP_N; i++)
			assert_true((cy[k][i] == 0.0f) == (cdx[k][i] == 0.0f));
	for (mode = HT_EXEC_EAGER; mode <= HT_EXEC_GRAPH; mode++) {
		uint64_t replays;

		be = hpu_test_backend_open(HT_ACCEL_HPU, (int)mode);
		replays = dropout_steps(be, hy, hdx);
		hpu_test_backend_close(be);
		if (mode == HT_EXEC_GRAPH)
			assert_int_equal(replays, DROP_STEPS - 1);
		assert_memory_equal(hy, cy, sizeof(cy));
		assert_memory_equal(hdx, cdx, sizeof(cdx));
	}
}

/* One decode step at @pos: k into the cache, q k^T, softmax, p v */
static void decode_kv(struct ht_backend *be, struct ht_tensor *cache,
		      struct ht_tensor *q, struct ht_tensor *knew, uint32_t pos,
		      float *out)
{
	struct ht_tensor *s, *p, *o;

	assert_int_equal(ht_step_begin(be, true), 0);
	be->grad_enabled = false;
	if (ht_kv_cache_write(cache, knew, pos) ||
	    ht_bmm(q, cache, HT_BMM_TRANS_B, &s) ||
	    ht_causal_softmax(s, 0.5f, pos, &p) || ht_bmm(p, cache, 0, &o))
		fail_msg("position %u: %s", pos, be->err);
	assert_int_equal(ht_tensor_fetch(o, out), 0);
	be->grad_enabled = true;
	assert_int_equal(ht_step_end(be), 0);
}

/* Outputs of every slot's decode step on @be */
static uint64_t decode_all(struct ht_backend *be, float out[SLOTS][2 * 4])
{
	uint32_t cs[3] = { 2, SLOTS, 4 }, ks[3] = { 2, 1, 4 }, pos;
	struct ht_tensor *cache, *q, *knew;
	float kv[8];
	uint64_t replays;

	assert_int_equal(ht_tensor_new(be, HT_F32, 3, cs, true, &cache), 0);
	assert_int_equal(ht_tensor_fill(cache, 0.0f), 0);
	q = param(be, 3, ks, 40, -1, 1, false);
	knew = param(be, 3, ks, 41, -1, 1, false);
	for (pos = 0; pos < SLOTS; pos++) {
		hpu_test_frand(kv, 8, 50 + pos, -1, 1); /* this token's key */
		assert_int_equal(ht_tensor_upload(knew, kv), 0);
		decode_kv(be, cache, q, knew, pos, out[pos]);
	}
	replays = be->stats.replays;
	ht_tensor_free(cache);
	ht_tensor_free(q);
	ht_tensor_free(knew);
	return replays;
}

static void test_decode_kv_graph(void **state)
{
	float cpu[SLOTS][8], hpu[SLOTS][8], kv0[8];
	struct ht_backend *be;

	(void)state;
	be = hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_LAZY);
	decode_all(be, cpu);
	hpu_test_backend_close(be);
	be = hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	assert_int_equal(decode_all(be, hpu), SLOTS - 1);
	hpu_test_backend_close(be);
	assert_memory_equal(hpu, cpu, sizeof(cpu));
	/* the first step sees one key: its output is that key, exactly */
	hpu_test_frand(kv0, 8, 50, -1, 1);
	assert_memory_equal(hpu[0], kv0, sizeof(kv0));
	assert_memory_equal(cpu[0], kv0, sizeof(kv0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_tpc_ops_bits, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_train_modes, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_dropout_modes,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_decode_graph_offset,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_decode_kv_graph,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
