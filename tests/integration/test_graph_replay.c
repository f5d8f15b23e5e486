// SPDX-License-Identifier: MIT
/*
 * test_graph_replay.c - the hpu backend's graph replay compares every op
 * of a replayed step with the captured one by a hash of its descriptor
 * (backend_hpu.c, word by word): a replay that differs from the capture
 * in any field is refused before anything of it is submitted, whichever
 * word of the descriptor differs (a kernel id, the 4-byte tail of its
 * hash input; a parameter; a tensor's address, size or stride, the last
 * word of a descriptor included; a DMA's length or address); a
 * parameter marked dynamic may change and is patched in; the same step
 * replays and computes what the capture computed; the step after a
 * refusal replays again.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../lib/hpu_test_backend.h"
#include "../lib/hpu_test_daemon.h"
#include "ht_backend.h"
#include "ht_tensor.h"

#define N 40

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

/**
 * struct variant - how one replayed step differs from the captured one
 * @what: its name in failure messages
 * @id: kernel of the second op
 * @scale: its parameter (bits of a float)
 * @addr_off: bytes added to the output's address
 * @last_stride: the output's strides[HPU_TPC_MAX_DIMS - 1] (unused dim)
 * @up_bytes: bytes of the upload (N floats when 0)
 */
struct variant {
	const char *what;
	uint32_t id;
	float scale;
	uint64_t addr_off;
	uint64_t last_stride;
	uint32_t up_bytes;
};

static const struct variant captured = { "captured", HPU_TPC_KERNEL_RELU,
					 2.0f,	     0,
					 0,	     0 };

/*
 * One graph step: upload @x to @a, b = scale(a) (its parameter dynamic
 * when @dyn), c = relu(b) or another unary kernel, fetch c into @out
 */
static int run_step(struct ht_backend *be, struct ht_tensor *a,
		    struct ht_tensor *b, struct ht_tensor *c,
		    const struct variant *v, bool dyn, const float *x,
		    float *out)
{
	struct hpu_tpc_tensor d[2];
	uint32_t p;
	int ret, r;

	ret = ht_step_begin(be, true);
	if (ret)
		return ret;
	if (v->up_bytes)
		ret = be->ops->upload(be, a->addr, x, v->up_bytes);
	else
		ret = ht_tensor_upload(a, x);
	ht_tensor_desc(a, &d[0]);
	ht_tensor_desc(b, &d[1]);
	memcpy(&p, &v->scale, sizeof(p));
	if (!ret)
		ret = ht_backend_kernel_dyn(be, HPU_TPC_KERNEL_SCALE, d, 2, &p,
					    1, dyn ? 1U : 0U);
	ht_tensor_desc(b, &d[0]);
	ht_tensor_desc(c, &d[1]);
	d[1].addr += v->addr_off;
	d[1].strides[HPU_TPC_MAX_DIMS - 1] = v->last_stride;
	if (!ret)
		ret = ht_backend_kernel(be, v->id, d, 2, NULL, 0);
	if (!ret)
		ret = ht_tensor_fetch(c, out);
	r = ht_step_end(be);
	return ret ? ret : r;
}

static void expect(const float *x, float scale, const float *out)
{
	unsigned int i;

	for (i = 0; i < N; i++) {
		float e = x[i] * scale;

		assert_float_equal(out[i], e > 0 ? e : 0.0f, 0.0f);
	}
}

static void test_replay_refuses_any_difference(void **state)
{
	struct ht_backend *be =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	const struct variant other[] = {
		{ "kernel id", HPU_TPC_KERNEL_TANH, 2.0f, 0, 0, 0 },
		{ "parameter", HPU_TPC_KERNEL_RELU, 3.0f, 0, 0, 0 },
		{ "address", HPU_TPC_KERNEL_RELU, 2.0f, 4, 0, 0 },
		{ "last stride word", HPU_TPC_KERNEL_RELU, 2.0f, 0, 1, 0 },
		{ "DMA length", HPU_TPC_KERNEL_RELU, 2.0f, 0, 0,
		  (N - 1) * sizeof(float) },
	};
	uint32_t s[1] = { N };
	struct ht_tensor *a, *b, *c;
	float x[N], out[N];
	uint64_t replays;
	unsigned int i;

	(void)state;
	for (i = 0; i < N; i++)
		x[i] = (float)i - N / 2.0f;
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &a), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &b), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &c), 0);
	assert_int_equal(run_step(be, a, b, c, &captured, false, x, out), 0);
	expect(x, 2.0f, out);
	replays = be->stats.replays;
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		memset(out, 0, sizeof(out));
		be->err[0] = 0;
		if (run_step(be, a, b, c, &other[i], false, x, out) != -EINVAL)
			fail_msg("a replay whose %s differs was not refused",
				 other[i].what);
		assert_non_null(strstr(be->err, "graph mode"));
		/* refused before any of its ops ran: nothing was fetched */
		assert_float_equal(out[N - 1], 0.0f, 0.0f);
		/* the captured step still replays and computes */
		x[0] = (float)i;
		assert_int_equal(
			run_step(be, a, b, c, &captured, false, x, out), 0);
		expect(x, 2.0f, out);
	}
	assert_int_equal(be->stats.replays - replays, 2 * i);
	ht_tensor_free(a);
	ht_tensor_free(b);
	ht_tensor_free(c);
	hpu_test_backend_close(be);
}

static void test_replay_patches_dynamic_params(void **state)
{
	struct ht_backend *be =
		hpu_test_backend_open(HT_ACCEL_HPU, HT_EXEC_GRAPH);
	struct variant v = captured;
	uint32_t s[1] = { N };
	struct ht_tensor *a, *b, *c;
	float x[N], out[N];
	unsigned int i;

	(void)state;
	for (i = 0; i < N; i++)
		x[i] = (float)i - 3.0f;
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &a), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &b), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, s, true, &c), 0);
	for (i = 0; i < 6; i++) {
		v.scale = 0.5f + (float)i;
		assert_int_equal(run_step(be, a, b, c, &v, true, x, out), 0);
		expect(x, v.scale, out);
	}
	assert_int_equal(be->stats.replays, 5);
	ht_tensor_free(a);
	ht_tensor_free(b);
	ht_tensor_free(c);
	hpu_test_backend_close(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_replay_refuses_any_difference,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_replay_patches_dynamic_params,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
