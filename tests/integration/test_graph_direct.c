// SPDX-License-Identifier: MIT
/*
 * test_graph_direct.c - ht_graph_replay(), the direct replay of a
 * captured graph (trainer/lib/backend_hpu_replay.c): the captured
 * command buffers are submitted again without the ops being issued,
 * the dynamic parameters patched in and the uploads re-read from the
 * host buffers the capture read (static inputs). A replay with changed
 * inputs and parameters computes, bit for bit, what an eager run of the
 * same ops computes, also when the step waits in its middle and fetches
 * on both sides of the wait; a replay that cannot run (a step open, the
 * wrong number of dynamic parameters, a graph not captured or out of
 * range, not graph mode, the cpu backend, a graph that waits for a
 * prefetch) is refused before anything is submitted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../lib/hpu_test_backend.h"
#include "../lib/hpu_test_daemon.h"
#include "ht_backend.h"
#include "ht_ops.h"
#include "ht_tensor.h"

#define N     37
#define SLOTS 8

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

/**
 * struct io - a step's host buffers (static inputs and outputs)
 * @x: uploaded to @a
 * @out1: b = scale(a), fetched before the mid-step wait
 * @out2: c = tanh(b), fetched at the end
 * @cache: the cache after the step
 * @soft: the causal softmax of c at offset pos (a dynamic parameter
 *	that is the kernel's second one)
 */
struct io {
	float x[N];
	float out1[N];
	float out2[N];
	float cache[SLOTS * N];
	float soft[N];
};

/**
 * struct tens - the step's device tensors
 * @a: input [1][N]
 * @b: scaled
 * @c: tanh of it
 * @cache: [SLOTS][N], c written at row pos (a dynamic parameter)
 */
struct tens {
	struct ht_tensor *a, *b, *c, *cache;
};

static void tens_new(struct ht_backend *be, struct tens *t)
{
	uint32_t s[2] = { 1, N }, cs[2] = { SLOTS, N };

	assert_int_equal(ht_tensor_new(be, HT_F32, 2, s, true, &t->a), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 2, s, true, &t->b), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 2, s, true, &t->c), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 2, cs, true, &t->cache), 0);
}

static void tens_free(struct tens *t)
{
	ht_tensor_free(t->a);
	ht_tensor_free(t->b);
	ht_tensor_free(t->c);
	ht_tensor_free(t->cache);
}

/*
 * The step's ops (no ht_step_begin/end): upload x; b = scale(a) with
 * the scale dynamic; fetch b; when @mid_wait, a synchronization; c =
 * tanh(b); cache[pos] = c (pos dynamic); the causal softmax of c as
 * [1 query][N keys] at offset pos (dynamic); fetch c, the cache and the
 * softmax
 */
static int ops(struct ht_backend *be, struct tens *t, struct io *io,
	       float scale, uint32_t pos, bool mid_wait)
{
	struct hpu_tpc_tensor d[2];
	struct ht_tensor *sm;
	uint32_t p;
	int ret;

	ret = ht_tensor_upload(t->a, io->x);
	ht_tensor_desc(t->a, &d[0]);
	ht_tensor_desc(t->b, &d[1]);
	memcpy(&p, &scale, sizeof(p));
	if (!ret)
		ret = ht_backend_kernel_dyn(be, HPU_TPC_KERNEL_SCALE, d, 2, &p,
					    1, 1U);
	if (!ret)
		ret = ht_tensor_fetch(t->b, io->out1);
	if (!ret && mid_wait)
		ret = ht_backend_sync(be);
	ht_tensor_desc(t->b, &d[0]);
	ht_tensor_desc(t->c, &d[1]);
	if (!ret)
		ret = ht_backend_kernel(be, HPU_TPC_KERNEL_TANH, d, 2, NULL, 0);
	if (!ret)
		ret = ht_kv_cache_write(t->cache, t->c, pos);
	if (!ret)
		ret = ht_tensor_fetch(t->c, io->out2);
	if (!ret)
		ret = ht_tensor_fetch(t->cache, io->cache);
	if (!ret)
		ret = ht_causal_softmax(t->c, 0.5f, pos, &sm);
	if (!ret)
		ret = ht_tensor_fetch(sm, io->soft);
	return ret;
}

static int graph_step(struct ht_backend *be, struct tens *t, struct io *io,
		      float scale, uint32_t pos, bool mid_wait)
{
	int ret, r;

	ret = ht_step_begin(be, true);
	if (ret)
		return ret;
	ret = ops(be, t, io, scale, pos, mid_wait);
	r = ht_step_end(be);
	return ret ? ret : r;
}

static void fill_x(float *x, unsigned int k)
{
	hpu_test_frand(x, N, 1000 + k, -3.0f, 3.0f);
}

/*
 * A graph replayed with new inputs = eager, bit for bit: directly, and
 * (every other step) op by op, which patches the same parameters from
 * the kernels' own parameter arrays
 */
static void check_replay_equals_eager(bool mid_wait)
{
	struct ht_backend *gb =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	struct ht_backend *eb =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_EAGER);
	static struct io gio, eio;
	struct tens gt, et;
	uint32_t dyn[3];
	unsigned int ndyn = 0, k;
	uint64_t subs;

	tens_new(gb, &gt);
	tens_new(eb, &et);
	memset(&gio, 0, sizeof(gio));
	memset(&eio, 0, sizeof(eio));
	fill_x(gio.x, 0);
	/* the capture (and its caches zeroed by the cpu copy's zeros) */
	assert_int_equal(ht_tensor_upload(gt.cache, gio.cache), 0);
	assert_int_equal(ht_tensor_upload(et.cache, eio.cache), 0);
	assert_int_equal(ht_backend_sync(gb), 0);
	assert_int_equal(ht_backend_sync(eb), 0);
	assert_int_equal(graph_step(gb, &gt, &gio, 1.5f, 0, mid_wait), 0);
	assert_int_equal(ht_graph_replayable(gb, 0, &ndyn), 0);
	assert_int_equal(ndyn, 3);
	memcpy(eio.x, gio.x, sizeof(eio.x));
	assert_int_equal(ops(eb, &et, &eio, 1.5f, 0, mid_wait), 0);
	assert_int_equal(ht_backend_sync(eb), 0);
	assert_memory_equal(gio.out2, eio.out2, sizeof(gio.out2));

	for (k = 1; k < SLOTS; k++) {
		float scale = 0.25f + 0.5f * (float)k;

		fill_x(gio.x, k);
		memcpy(eio.x, gio.x, sizeof(eio.x));
		memset(gio.out1, 0, sizeof(gio.out1));
		memset(gio.out2, 0, sizeof(gio.out2));
		memcpy(&dyn[0], &scale, sizeof(scale));
		dyn[1] = k;
		dyn[2] = k;
		subs = gb->stats.ops;
		if (k % 2) {
			assert_int_equal(ht_graph_replay(gb, 0, dyn, 3), 0);
			/* nothing was issued: the ops were not run again */
			assert_int_equal(gb->stats.ops, subs);
		} else {
			assert_int_equal(graph_step(gb, &gt, &gio, scale, k,
						    mid_wait),
					 0);
		}
		assert_int_equal(ops(eb, &et, &eio, scale, k, mid_wait), 0);
		assert_int_equal(ht_backend_sync(eb), 0);
		assert_memory_equal(gio.out1, eio.out1, sizeof(gio.out1));
		assert_memory_equal(gio.out2, eio.out2, sizeof(gio.out2));
		assert_memory_equal(gio.cache, eio.cache, sizeof(gio.cache));
		assert_memory_equal(gio.soft, eio.soft, sizeof(gio.soft));
		/* the softmax saw keys 0..k only */
		assert_true(gio.soft[k] > 0.0f);
		assert_float_equal(gio.soft[k + 1], 0.0f, 0.0f);
		/* the new input reached the device: out1 = x * scale */
		assert_float_equal(gio.out1[3], gio.x[3] * scale, 0.0f);
	}
	assert_int_equal(gb->stats.replays, SLOTS - 1);
	/* every row of the cache was written by its replay */
	for (k = 0; k < SLOTS; k++)
		assert_true(gio.cache[k * N + 1] != 0.0f);

	tens_free(&gt);
	tens_free(&et);
	hpu_test_backend_close(gb);
	hpu_test_backend_close(eb);
}

static void test_direct_replay_equals_eager(void **state)
{
	(void)state;
	check_replay_equals_eager(false);
}

static void test_direct_replay_with_mid_step_wait(void **state)
{
	(void)state;
	check_replay_equals_eager(true);
}

/* Graph 1 captures a prefetch wait: no direct replay of it */
static void check_prefetch_refused(struct ht_backend *be, struct tens *t,
				   struct io *io)
{
	struct ht_xfer x = { t->a->addr, io->x, sizeof(io->x) };
	unsigned int ndyn;
	uint64_t subs;

	assert_int_equal(ht_backend_prefetch(be, &x, 1), 0);
	assert_int_equal(ht_step_begin_graph(be, true, 1), 0);
	assert_int_equal(ht_backend_prefetch_wait(be), 0);
	assert_int_equal(ops(be, t, io, 1.0f, 1, false), 0);
	assert_int_equal(ht_step_end(be), 0);
	subs = be->stats.submissions;
	assert_int_equal(ht_graph_replayable(be, 1, &ndyn), -EOPNOTSUPP);
	assert_non_null(strstr(be->err, "prefetch"));
	assert_int_equal(ht_graph_replay(be, 1, NULL, 0), -EOPNOTSUPP);
	assert_int_equal(be->stats.submissions, subs);
	/* graph 0 is not affected */
	assert_int_equal(ht_graph_replayable(be, 0, &ndyn), 0);
}

/* Each refusal leaves the outputs and the device untouched */
static void test_direct_replay_refusals(void **state)
{
	struct ht_backend *gb =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	struct ht_backend *lb =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_LAZY);
	struct ht_backend *cb =
		hpu_test_backend_open(HT_ACCEL_CPU, HT_EXEC_GRAPH);
	static struct io io, before;
	uint32_t dyn[4] = { 0, 1, 1, 2 };
	unsigned int ndyn = 99;
	struct tens t, lt, ct;
	uint64_t subs, replays;
	float one = 1.0f;

	(void)state;
	tens_new(gb, &t);
	tens_new(lb, &lt);
	tens_new(cb, &ct);
	memset(&io, 0, sizeof(io));
	fill_x(io.x, 0);
	memcpy(&dyn[0], &one, sizeof(one));

	/* nothing captured yet */
	assert_int_equal(ht_graph_replayable(gb, 0, &ndyn), -ENOENT);
	assert_int_equal(ndyn, 99);
	assert_int_equal(ht_graph_replay(gb, 0, dyn, 3), -ENOENT);
	assert_non_null(strstr(gb->err, "not captured"));

	assert_int_equal(graph_step(gb, &t, &io, 1.0f, 0, false), 0);
	memcpy(&before, &io, sizeof(io));
	fill_x(io.x, 5);
	memcpy(before.x, io.x, sizeof(io.x));
	subs = gb->stats.submissions;
	replays = gb->stats.replays;

	/* the wrong number of dynamic parameters, or none given */
	assert_int_equal(ht_graph_replay(gb, 0, dyn, 2), -EINVAL);
	assert_non_null(strstr(gb->err, "3 dynamic parameters, 2 given"));
	assert_int_equal(ht_graph_replay(gb, 0, dyn, 4), -EINVAL);
	assert_int_equal(ht_graph_replay(gb, 0, NULL, 3), -EINVAL);
	/* a graph id not captured, one out of range */
	assert_int_equal(ht_graph_replay(gb, 1, dyn, 3), -ENOENT);
	assert_int_equal(ht_graph_replay(gb, HT_MAX_GRAPHS, dyn, 3), -EINVAL);
	assert_int_equal(ht_graph_replayable(gb, HT_MAX_GRAPHS, &ndyn),
			 -EINVAL);
	assert_int_equal(ht_graph_replayable(gb, 0, NULL), -EINVAL);
	/* inside a step */
	assert_int_equal(ht_step_begin(gb, false), 0);
	assert_int_equal(ht_graph_replay(gb, 0, dyn, 3), -EBUSY);
	assert_non_null(strstr(gb->err, "a step is open"));
	assert_int_equal(ht_step_end(gb), 0);
	/* nothing of the graph ran */
	assert_int_equal(gb->stats.submissions, subs);
	assert_int_equal(gb->stats.replays, replays);
	assert_memory_equal(&io, &before, sizeof(io));

	/* lazy mode and the cpu backend have no direct replay */
	assert_int_equal(graph_step(lb, &lt, &io, 1.0f, 0, false), 0);
	assert_int_equal(ht_graph_replayable(lb, 0, &ndyn), -EOPNOTSUPP);
	assert_int_equal(ht_graph_replay(lb, 0, dyn, 3), -EOPNOTSUPP);
	assert_int_equal(graph_step(cb, &ct, &io, 1.0f, 0, false), 0);
	assert_int_equal(ht_graph_replayable(cb, 0, &ndyn), -EOPNOTSUPP);
	assert_int_equal(ht_graph_replay(cb, 0, dyn, 3), -EOPNOTSUPP);

	/* and the graph still replays */
	assert_int_equal(ht_graph_replay(gb, 0, dyn, 3), 0);
	assert_float_equal(io.out1[0], io.x[0], 0.0f);
	assert_int_equal(gb->stats.replays, replays + 1);

	/* a graph that waits for a prefetch replays step by step only */
	check_prefetch_refused(gb, &t, &io);

	tens_free(&t);
	tens_free(&lt);
	tens_free(&ct);
	hpu_test_backend_close(gb);
	hpu_test_backend_close(lb);
	hpu_test_backend_close(cb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_direct_replay_equals_eager,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_direct_replay_with_mid_step_wait,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_direct_replay_refusals,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
