// SPDX-License-Identifier: MIT
/*
 * test_gemm.c - MME_GEMM through libhpudrv against the real hpu-fused:
 * an fp32 GEMM on HBM operands and a bf16 one on pinned host memory,
 * checked against a triple loop; malformed GEMMs rejected by the host
 * check and by the driver; a GEMM on a DMA queue rejected; single-row
 * products with B transposed (the ones two MMEs split, docs/mme.md "Two
 * MMEs") give the bits of the in-process BLAS call, split or not.
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
#include "hpu_bf16.h"
#include "hpu_blas.h"
#include "../lib/hpu_test_engine.h"
#include "hpu_gemm_pkt.h"
#include "hpudrv.h"

/* queue index of the first MME */
#define MME0 (fx.ip.num_dma)
#define M    96
#define N    80
#define K    112

#define OFF_B (64 * 1024)
#define OFF_C (128 * 1024)
#define SPAN  (192 * 1024)

static struct hpu_test_engine fx;

static int setup(void **state)
{
	int ret = hpu_test_engine_setup(&fx, state, 4096, SPAN);

	if (ret)
		return ret;
	assert_true(fx.ip.num_mme >= 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hpu_test_engine_close(&fx);
	return 0;
}

static void run(uint32_t queue)
{
	assert_int_equal(hpu_test_engine_run(&fx, queue),
			 HPU_WAIT_CS_STATUS_COMPLETED);
}

static float rnd(uint32_t *s)
{
	*s = *s * 1103515245U + 12345U;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static struct hpu_pkt_mme_gemm gemm(uint64_t base, uint16_t dab, uint16_t dc)
{
	return hpu_gemm_pkt(base, base + OFF_B, base + OFF_C, M, N, K, dab, dc);
}

/* C = A * B from the host copies; @bf16: operands and C are bf16 */
static void check(const uint8_t *buf, bool bf16)
{
	uint32_t r, c, k;

	for (r = 0; r < M; r++)
		for (c = 0; c < N; c++) {
			double s = 0, sa = 0, got;

			for (k = 0; k < K; k++) {
				double x, y;

				if (bf16) {
					x = hpu_bf16_to_f32(
						((const uint16_t *)
							 buf)[r * K + k]);
					y = hpu_bf16_to_f32((
						(const uint16_t
							 *)(buf +
							    OFF_B))[k * N + c]);
				} else {
					x = ((const float *)buf)[r * K + k];
					y = ((const float *)(buf +
							     OFF_B))[k * N + c];
				}
				s += x * y;
				sa += fabs(x * y);
			}
			got = bf16 ? hpu_bf16_to_f32(
					     ((const uint16_t *)(buf +
								 OFF_C))[r * N +
									 c]) :
				     ((const float *)(buf + OFF_C))[r * N + c];
			/* bf16 C: half an ulp of rounding plus fp32 error */
			assert_true(fabs(got - s) <=
				    (bf16 ? fabs(s) / 256 : 0) +
					    1e-5 * (K + 1) * sa + 1e-30);
		}
}

static void test_fp32_hbm(void **state)
{
	struct hpu_pkt_mme_gemm g =
		gemm(fx.hbm_va, HPU_DTYPE_FP32, HPU_DTYPE_FP32);
	uint32_t s = 7, i;

	(void)state;
	for (i = 0; i < M * K; i++)
		((float *)fx.host)[i] = rnd(&s);
	for (i = 0; i < K * N; i++)
		((float *)(fx.host + OFF_B))[i] = rnd(&s);
	memset(fx.host + OFF_C, 0xff, M * N * 4); /* NaN: beta 0 ignores it */
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.hbm_va, fx.host_va, SPAN), 0);
	run(0);
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	run(MME0);
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.host_va + OFF_C,
					fx.hbm_va + OFF_C, M * N * 4),
			 0);
	run(0);
	check(fx.host, false);
}

static void test_bf16_pinned(void **state)
{
	struct hpu_pkt_mme_gemm g =
		gemm(fx.host_va, HPU_DTYPE_BF16, HPU_DTYPE_BF16);
	uint32_t s = 9, i;

	(void)state;
	for (i = 0; i < M * K; i++)
		((uint16_t *)fx.host)[i] = hpu_f32_to_bf16(rnd(&s));
	for (i = 0; i < K * N; i++)
		((uint16_t *)(fx.host + OFF_B))[i] = hpu_f32_to_bf16(rnd(&s));
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	run(MME0);
	check(fx.host, true);
}

static void test_rejected(void **state)
{
	struct hpu_pkt_mme_gemm g =
		gemm(fx.hbm_va, HPU_DTYPE_FP32, HPU_DTYPE_FP32);
	struct hpu_pkt_mme_gemm *p;
	uint64_t seq;

	(void)state;
	/* the host check */
	g.ldc = N - 1;
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), -EINVAL);
	g.ldc = N;
	g.dtype_c = HPU_DTYPE_INT32;
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), -EINVAL);
	assert_int_equal(hpu_cb_builder_used(fx.cb), 0);

	/* the driver: a good packet corrupted in the builder's memory */
	g.dtype_c = HPU_DTYPE_FP32;
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	p = (struct hpu_pkt_mme_gemm *)hpu_cb_builder_data(fx.cb);
	p->lda = K - 1;
	assert_int_equal(hpu_cb_builder_submit(fx.cb, MME0, 0, 0, &seq, NULL),
			 -EINVAL);
	p->lda = K;
	p->batch = 0;
	assert_int_equal(hpu_cb_builder_submit(fx.cb, MME0, 0, 0, &seq, NULL),
			 -EINVAL);
	p->batch = 1;

	/* a good GEMM on a DMA queue */
	assert_int_equal(hpu_cb_builder_submit(fx.cb, 0, 0, 0, &seq, NULL),
			 -EINVAL);
	/* and on its MME queue it runs */
	run(MME0);
}

/*
 * 1 x n x k products, B transposed with a pitch, in pinned host memory:
 * whether the daemon split one over its two MMEs (when a pool worker was
 * idle) or not, C has the bits of hpu_blas_sgemm() in this process. Each
 * shape runs several times so that both cases are likely to come up.
 */
static void test_split_row_bits(void **state)
{
	static const uint32_t shapes[][2] = { { 301, 97 },
					      { 130, 131 },
					      { 1023, 33 } };
	const uint64_t off_b = 4096, off_c = 184 * 1024;
	uint32_t sh, rep, i, seed = 3;

	(void)state;
	if (fx.ip.num_mme < 2) {
		print_message(
			"skipped: the device has %u MME (the split needs 2)\n",
			fx.ip.num_mme);
		skip();
	}
	for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		uint32_t n = shapes[sh][0], k = shapes[sh][1], ldb = k + 3;
		bool ta = sh & 1;
		uint32_t lda = ta ? 2 : k, alen = ta ? (k - 1) * lda + 1 : k;
		float *a = (float *)fx.host, *b = (float *)(fx.host + off_b);
		float *c = (float *)(fx.host + off_c), *want;
		float orig[1024];
		struct hpu_pkt_mme_gemm g;

		assert_true(hpu_blas_split_col(true, 1, n, k) > 0 && n <= 1024);
		assert_true(off_b + (uint64_t)n * ldb * 4 <= off_c &&
			    off_c + n * 4 <= SPAN && alen * 4 <= off_b);
		for (i = 0; i < alen; i++)
			a[i] = rnd(&seed);
		for (i = 0; i < n * ldb; i++)
			b[i] = rnd(&seed);
		want = malloc(n * sizeof(float));
		assert_non_null(want);
		for (i = 0; i < n; i++)
			want[i] = rnd(&seed);
		g = hpu_gemm_pkt(fx.host_va, fx.host_va + off_b,
				 fx.host_va + off_c, 1, n, k, HPU_DTYPE_FP32,
				 HPU_DTYPE_FP32);
		g.hdr.flags = HPU_MME_F_TRANS_B | (ta ? HPU_MME_F_TRANS_A : 0);
		g.lda = lda;
		g.ldb = ldb;
		g.beta = HPU_GEMM_ALPHA_ONE; /* C accumulates: 1.0f */
		memcpy(c, want, n * sizeof(float));
		hpu_blas_begin(1, n, k);
		hpu_blas_sgemm(ta, true, 1, n, k, 1.0f, a, lda, b, ldb, 1.0f,
			       want, n);
		hpu_blas_end();
		memcpy(orig, c, n * sizeof(float));
		for (rep = 0; rep < 8; rep++) {
			memcpy(c, orig, n * sizeof(float));
			assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
			run(MME0 + rep % 2);
			if (memcmp(c, want, n * sizeof(float)))
				fail_msg(
					"1x%ux%u ta %d, run %u: C differs from the in-process product",
					n, k, ta, rep);
		}
		free(want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fp32_hbm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bf16_pinned, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_row_bits, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, hpu_test_engine_group_setup,
				      hpu_test_group_stop);
}
