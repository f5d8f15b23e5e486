// SPDX-License-Identifier: MIT
/*
 * test_tpc.c - TPC kernels through libhpudrv against the real hpu-fused:
 * an add with broadcasting and an AdamW step on pinned host memory, a
 * softmax on HBM; an in-place accumulate (the collectives' reduction); a
 * malformed descriptor rejected by the emitter and, as a raw packet, by
 * the driver; an operand outside the mappings faults. The attention and
 * clipping kernels (softmax_causal and its backward at a decode offset on
 * HBM, sumsq and clip_grad_norm on pinned memory) give the bits of the
 * library's host entry (the cpu backend's path), and a causal softmax
 * whose offset passes the keys is refused by the emitter and, patched
 * into a built packet (as a graph replay patches it), by the driver.
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
#include "hpu_tpc_kernels.h"
#include "../lib/hpu_test_engine.h"
#include "hpudrv.h"
#include "hputpc.h"

/* queue index of the first TPC */
#define TPC0 (fx.ip.num_dma + fx.ip.num_mme)
#define SPAN (256 * 1024)

static struct hpu_test_engine fx;

static int setup(void **state)
{
	int ret = hpu_test_engine_setup(&fx, state, 8192, SPAN);

	if (ret)
		return ret;
	assert_true(fx.ip.num_tpc >= 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hpu_test_engine_close(&fx);
	return 0;
}

static uint32_t run_status(uint32_t queue)
{
	return hpu_test_engine_run(&fx, queue);
}

static void run(uint32_t queue)
{
	assert_int_equal(run_status(queue), HPU_WAIT_CS_STATUS_COMPLETED);
}

static struct hpu_tpc_tensor tens(uint64_t va, uint32_t ndims,
				  const uint32_t *sizes)
{
	struct hpu_tpc_tensor d;
	uint64_t s = 1;
	uint32_t i;

	memset(&d, 0, sizeof(d));
	d.addr = va;
	d.dtype = HPU_DTYPE_FP32;
	d.ndims = ndims;
	for (i = 0; i < ndims; i++) {
		d.sizes[i] = sizes[i];
		d.strides[i] = s;
		s *= sizes[i];
	}
	return d;
}

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float rnd(uint32_t *s)
{
	*s = *s * 1103515245U + 12345U;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* out[9][17] = a[9][17] + b[17] on pinned memory */
static void test_add_broadcast(void **state)
{
	uint32_t sz[2] = { 17, 9 }, c = 17, s = 3, i;
	float *a = (float *)fx.host, *b = a + 1024, *o = a + 2048;
	struct hpu_tpc_tensor d[3];

	(void)state;
	for (i = 0; i < 153; i++)
		a[i] = rnd(&s);
	for (i = 0; i < 17; i++)
		b[i] = rnd(&s);
	d[0] = tens(fx.host_va, 2, sz);
	d[1] = tens(fx.host_va + 4096, 1, &c);
	d[2] = tens(fx.host_va + 8192, 2, sz);
	assert_int_equal(
		hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0), 0);
	run(TPC0);
	for (i = 0; i < 153; i++)
		assert_true(o[i] == a[i] + b[i % 17]);
}

/* softmax of [5][33] on HBM, moved there and back by DMA */
static void test_softmax_hbm(void **state)
{
	uint32_t sz[2] = { 33, 5 }, s = 5, i, r;
	float *x = (float *)fx.host, *y = x + 1024;
	struct hpu_tpc_tensor d[2];

	(void)state;
	for (i = 0; i < 165; i++)
		x[i] = 10 * rnd(&s);
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.hbm_va, fx.host_va, 165 * 4),
			 0);
	run(0);
	d[0] = tens(fx.hbm_va, 2, sz);
	d[1] = tens(fx.hbm_va + 4096, 2, sz);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SOFTMAX, d, 2,
					   NULL, 0),
			 0);
	run(TPC0);
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.host_va + 4096,
					fx.hbm_va + 4096, 165 * 4),
			 0);
	run(0);
	for (r = 0; r < 5; r++) {
		double m = -INFINITY, z = 0;

		for (i = 0; i < 33; i++)
			m = fmax(m, x[r * 33 + i]);
		for (i = 0; i < 33; i++)
			z += exp(x[r * 33 + i] - m);
		for (i = 0; i < 33; i++) {
			double want = exp(x[r * 33 + i] - m) / z;

			assert_true(fabs(y[r * 33 + i] - want) <=
				    1e-6 + 1e-5 * want);
		}
	}
}

static void test_adamw(void **state)
{
	uint32_t n = 100, s = 9, i;
	float *p = (float *)fx.host, *g = p + 1024, *m = p + 2048,
	      *v = p + 3072;
	uint32_t pr[6] = { fbits(0.01f), fbits(0.9f), fbits(0.999f),
			   fbits(1e-8f), fbits(0.1f), 1 };
	struct hpu_tpc_tensor d[4];
	float p0[100];

	(void)state;
	for (i = 0; i < n; i++) {
		p[i] = p0[i] = rnd(&s);
		g[i] = rnd(&s);
		m[i] = v[i] = 0;
	}
	for (i = 0; i < 4; i++)
		d[i] = tens(fx.host_va + i * 4096, 1, &n);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADAMW_STEP, d,
					   4, pr, 6),
			 0);
	run(TPC0);
	for (i = 0; i < n; i++) {
		/* step 1: m/(1-b1) = g, v/(1-b2) = g^2 */
		double w = p0[i] * (1 - 0.01 * 0.1);

		w -= 0.01 * g[i] / (fabs(g[i]) + 1e-8);
		assert_true(fabs(p[i] - w) <= 1e-6 + 1e-5 * fabs(w));
	}
}

static void test_rejected(void **state)
{
	uint32_t sz[2] = { 17, 9 }, c = 17;
	struct hpu_tpc_tensor d[3];
	struct hpu_pkt_tpc_kernel *k;
	uint64_t seq;

	(void)state;
	d[0] = tens(fx.host_va, 2, sz);
	d[1] = tens(fx.host_va + 4096, 1, &c);
	d[2] = tens(fx.host_va + 8192, 2, sz);
	/* the emitter: bad dtype, rank above 5, wrong count, unknown id */
	d[1].dtype = 9;
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, d, 3,
					   NULL, 0),
			 -EINVAL);
	d[1].dtype = HPU_DTYPE_FP32;
	d[1].ndims = 6;
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, d, 3,
					   NULL, 0),
			 -EINVAL);
	d[1].ndims = 1;
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, d, 2,
					   NULL, 0),
			 -EINVAL);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, 999, d, 3, NULL, 0), -EINVAL);
	assert_int_equal(hpu_cb_builder_used(fx.cb), 0);
	/* the driver: a good packet corrupted in the builder's memory */
	assert_int_equal(
		hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0), 0);
	k = (struct hpu_pkt_tpc_kernel *)hpu_cb_builder_data(fx.cb);
	k->tensors[0].sizes[3] = 1; /* past ndims */
	assert_int_equal(hpu_cb_builder_submit(fx.cb, TPC0, 0, 0, &seq, NULL),
			 -EINVAL);
	k->tensors[0].sizes[3] = 0;
	k->tensors[2].strides[1] = 1ULL << 50; /* overflow */
	assert_int_equal(hpu_cb_builder_submit(fx.cb, TPC0, 0, 0, &seq, NULL),
			 -EINVAL);
	k->tensors[2].strides[1] = 17;
	/* a good kernel on a DMA queue */
	assert_int_equal(hpu_cb_builder_submit(fx.cb, 0, 0, 0, &seq, NULL),
			 -EINVAL);
	run(TPC0);
}

/*
 * The collectives' reduction step: in0 = (in0 + in1 + in2) / 3 in place
 * on pinned memory, bit for bit; an output overlapping in1 is refused
 */
static void test_accumulate(void **state)
{
	uint32_t n = 4096, s = 11, i, p[2] = { HPU_TPC_ACC_SUM, 3 };
	float *a = (float *)fx.host, *b = a + n, *c = b + n, want[4096];
	struct hpu_tpc_tensor d[4];

	(void)state;
	for (i = 0; i < n; i++) {
		a[i] = rnd(&s);
		b[i] = rnd(&s);
		c[i] = rnd(&s);
		want[i] = (a[i] + b[i] + c[i]) / 3.0f;
	}
	d[1] = tens(fx.host_va, 1, &n);
	d[2] = tens(fx.host_va + n * 4, 1, &n);
	d[3] = tens(fx.host_va + n * 8, 1, &n);
	d[0] = d[1];
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ACCUMULATE, d,
					   4, p, 2),
			 0);
	run(TPC0);
	assert_memory_equal(a, want, sizeof(want));
	d[0].addr += 4; /* now overlaps in0 without being it */
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ACCUMULATE, d,
					   4, p, 2),
			 -EINVAL);
	assert_int_equal(hpu_cb_builder_used(fx.cb), 0);
}

/* An output where nothing is mapped (the top of the device VA range) */
static void test_page_fault(void **state)
{
	uint32_t n = 1024;
	struct hpu_tpc_tensor d[1];
	uint32_t p = fbits(1.0f);

	(void)state;
	d[0] = tens(0x00001ffffffff000ULL, 1, &n);
	assert_int_equal(
		hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_FILL, d, 1, &p, 1), 0);
	assert_int_equal(run_status(TPC0), HPU_WAIT_CS_STATUS_ABORTED);
}

/* @d moved to host memory at @p (the host entry's operands) */
static struct hpu_tpc_tensor at_host(struct hpu_tpc_tensor d, const void *p)
{
	d.addr = (uintptr_t)p;
	return d;
}

/*
 * softmax_causal and its backward on HBM, [2][3][9] scores of queries at
 * positions 4..6 (a decode step of 3 tokens over a 9-slot cache): the
 * device's bits are the host entry's; masked outputs are 0
 */
static void test_softmax_causal_hbm(void **state)
{
	uint32_t sz[3] = { 9, 3, 2 }, p[2] = { fbits(0.35f), 4 }, s = 17, i;
	float *x = (float *)fx.host, *dy = x + 1024, *y = x + 2048,
	      *dx = x + 3072, hy[54], hdx[54];
	struct hpu_tpc_tensor d[3], h[3];

	(void)state;
	for (i = 0; i < 54; i++) {
		x[i] = 6 * rnd(&s);
		dy[i] = rnd(&s);
	}
	/* x and dy to HBM */
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.hbm_va, fx.host_va, 8192), 0);
	run(0);
	d[0] = tens(fx.hbm_va, 3, sz);
	d[1] = tens(fx.hbm_va + 8192, 3, sz);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
					   d, 2, p, 2),
			 0);
	run(TPC0);
	d[0] = d[1];
	d[1] = tens(fx.hbm_va + 4096, 3, sz);
	d[2] = tens(fx.hbm_va + 12288, 3, sz);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb,
					   HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, d,
					   3, p, 2),
			 0);
	run(TPC0);
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.host_va + 8192,
					fx.hbm_va + 8192, 8192),
			 0);
	run(0);
	h[0] = at_host(tens(0, 3, sz), x);
	h[1] = at_host(tens(0, 3, sz), hy);
	assert_int_equal(
		hputpc_exec_host(HPU_TPC_KERNEL_SOFTMAX_CAUSAL, h, 2, p, 2), 0);
	assert_memory_equal(y, hy, sizeof(hy));
	h[0] = h[1];
	h[1] = at_host(tens(0, 3, sz), dy);
	h[2] = at_host(tens(0, 3, sz), hdx);
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, h,
					  3, p, 2),
			 0);
	assert_memory_equal(dx, hdx, sizeof(hdx));
	for (i = 0; i < 54; i++) {
		uint32_t key = i % 9, q = (i / 9) % 3;
		bool masked = key > 4 + q;

		assert_true(!masked || (y[i] == 0.0f && dx[i] == 0.0f));
		assert_true(masked || y[i] > 0.0f);
	}
}

/*
 * The norm of 9 gradients (two sumsq kernels, the second accumulating)
 * and their clipping (two clip_grad_norm kernels): the bits of the host
 * entry on a copy
 */
static void test_clip_grad_norm(void **state)
{
	uint32_t n = 100, s = 23, i, acc = HPU_TPC_SUMSQ_ACCUMULATE, set = 0;
	uint32_t mx = fbits(1.5f);
	float *g = (float *)fx.host, *sq = g + 9 * 128, *norm = sq + 1;
	float hg[9 * 128], hsq, hnorm;
	struct hpu_tpc_tensor d[8], h[8];

	(void)state;
	for (i = 0; i < 9 * 128; i++)
		hg[i] = g[i] = rnd(&s);
	d[0] = tens(fx.host_va + 9 * 512, 0, NULL);
	h[0] = at_host(d[0], &hsq);
	for (i = 0; i < 7; i++) {
		d[1 + i] = tens(fx.host_va + i * 512, 1, &n);
		h[1 + i] = at_host(d[1 + i], hg + i * 128);
	}
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SUMSQ, d, 8,
					   &set, 1),
			 0);
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_SUMSQ, h, 8, &set, 1),
			 0);
	for (i = 0; i < 2; i++) {
		d[1 + i] = tens(fx.host_va + (7 + i) * 512, 1, &n);
		h[1 + i] = at_host(d[1 + i], hg + (7 + i) * 128);
	}
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SUMSQ, d, 3,
					   &acc, 1),
			 0);
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_SUMSQ, h, 3, &acc, 1),
			 0);
	/* clip: sumsq, norm, 6 then 3 gradients */
	d[1] = tens(fx.host_va + 9 * 512 + 4, 0, NULL);
	h[1] = at_host(d[1], &hnorm);
	for (i = 0; i < 9; i++) {
		d[2 + i % 6] = tens(fx.host_va + i * 512, 1, &n);
		h[2 + i % 6] = at_host(d[2 + i % 6], hg + i * 128);
		if (i == 5 || i == 8) {
			assert_int_equal(
				hpu_cb_tpc_kernel(fx.cb,
						  HPU_TPC_KERNEL_CLIP_GRAD_NORM,
						  d, 3 + i % 6, &mx, 1),
				0);
			assert_int_equal(
				hputpc_exec_host(HPU_TPC_KERNEL_CLIP_GRAD_NORM,
						 h, 3 + i % 6, &mx, 1),
				0);
		}
	}
	run(TPC0); /* all four kernels in one CB */
	assert_memory_equal(sq, &hsq, sizeof(hsq));
	assert_memory_equal(norm, &hnorm, sizeof(hnorm));
	assert_true(hnorm > 1.5f); /* it did clip */
	for (i = 0; i < 9; i++)
		assert_memory_equal(g + i * 128, hg + i * 128, n * 4);
}

/* offset + Tq > Tk: the emitter refuses it, the driver a patched packet */
static void test_softmax_causal_rejected(void **state)
{
	uint32_t sz[3] = { 9, 3, 2 }, p[2] = { fbits(1.0f), 7 };
	struct hpu_tpc_tensor d[2];
	struct hpu_pkt_tpc_kernel *k;
	uint64_t seq;

	(void)state;
	d[0] = tens(fx.host_va, 3, sz);
	d[1] = tens(fx.host_va + 4096, 3, sz);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
					   d, 2, p, 2),
			 -EINVAL);
	p[0] = fbits(NAN);
	p[1] = 6;
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
					   d, 2, p, 2),
			 -EINVAL);
	assert_int_equal(hpu_cb_builder_used(fx.cb), 0);
	p[0] = fbits(1.0f);
	assert_int_equal(hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
					   d, 2, p, 2),
			 0);
	k = (struct hpu_pkt_tpc_kernel *)hpu_cb_builder_data(fx.cb);
	k->params[1] = 7;
	assert_int_equal(hpu_cb_builder_submit(fx.cb, TPC0, 0, 0, &seq, NULL),
			 -EINVAL);
	k->params[1] = 6;
	run(TPC0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_broadcast, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_softmax_hbm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_adamw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accumulate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_fault, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_softmax_causal_hbm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clip_grad_norm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_softmax_causal_rejected,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, hpu_test_engine_group_setup,
				      hpu_test_group_stop);
}
