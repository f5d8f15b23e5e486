// SPDX-License-Identifier: MIT
/*
 * test_mme_rules.c - the MME_GEMM rules (common/hpu_mme_check.c), seen
 * directly and through the driver's packet validator: every malformed
 * field is rejected, good packets pass (the emitter, which applies the
 * same function, is tested in test_mme_engine.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hpu_fused.h"
#include "hpu_gemm_pkt.h"
#include "hpu_mme_check.h"

static struct hpu_pkt_mme_gemm good(void)
{
	struct hpu_pkt_mme_gemm g;

	g = hpu_gemm_pkt(0x100000, 0x200000, 0x300000, 4, 5, 6, HPU_DTYPE_FP32,
			 HPU_DTYPE_FP32);
	g.hdr.opcode = HPU_PACKET_MME_GEMM;
	g.hdr.size = sizeof(g);
	return g;
}

/* What the driver says about @g alone on an MME queue */
static int drv(const struct hpu_pkt_mme_gemm *g)
{
	return hfd_packets_validate(g, sizeof(*g), HFD_QUEUE_MME, NULL);
}

static void expect_bad(const struct hpu_pkt_mme_gemm *g)
{
	assert_int_equal(hpu_mme_gemm_check(g), -EINVAL);
	assert_int_equal(drv(g), -EINVAL);
}

static void test_good(void **state)
{
	struct hpu_pkt_mme_gemm g = good();

	assert_int_equal(drv(&g), 0);
	g.hdr.flags = HPU_MME_F_TRANS_A | HPU_MME_F_TRANS_B |
		      HPU_PKT_F_ENG_BARRIER;
	g.lda = 4;
	g.ldb = 6;
	assert_int_equal(drv(&g), 0);
	/* batched with broadcast A and B, bf16 */
	g = good();
	g.batch = 3;
	g.stride_c = 20;
	g.dtype_ab = HPU_DTYPE_BF16;
	g.dtype_c = HPU_DTYPE_BF16;
	g.a_addr = 0x100002;
	assert_int_equal(drv(&g), 0);
	/* not on other queues */
	g = good();
	assert_int_equal(hfd_packets_validate(&g, sizeof(g), HFD_QUEUE_DMA,
					      NULL),
			 -EINVAL);
	assert_int_equal(hfd_packets_validate(&g, sizeof(g), HFD_QUEUE_TPC,
					      NULL),
			 -EINVAL);
}

static void test_header(void **state)
{
	struct hpu_pkt_mme_gemm g = good();

	g.hdr.flags = 1U << 10;
	expect_bad(&g);
	g = good();
	g.hdr.flags = 1U << 15;
	expect_bad(&g);
	g = good();
	g.hdr.reserved = 1;
	assert_int_equal(hpu_mme_gemm_check(&g), -EINVAL);
	assert_int_equal(drv(&g), -EINVAL);
	g = good();
	g.hdr.size = 88;
	assert_int_equal(hpu_mme_gemm_check(&g), -EINVAL);
	assert_int_equal(drv(&g), -EINVAL);
}

static void test_dtypes(void **state)
{
	static const uint16_t bad[] = { 0, HPU_DTYPE_INT32, 4, 0xffff };
	struct hpu_pkt_mme_gemm g;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		g = good();
		g.dtype_ab = bad[i];
		expect_bad(&g);
		g = good();
		g.dtype_c = bad[i];
		expect_bad(&g);
	}
}

static void test_sizes(void **state)
{
	struct hpu_pkt_mme_gemm g;

	g = good();
	g.m = 0;
	expect_bad(&g);
	g = good();
	g.n = 0;
	expect_bad(&g);
	g = good();
	g.k = 0;
	expect_bad(&g);
	g = good();
	g.batch = 0;
	expect_bad(&g);
	g = good();
	g.m = 0x80000000U;
	expect_bad(&g);
}

static void test_leading_dims(void **state)
{
	struct hpu_pkt_mme_gemm g;

	g = good();
	g.lda = 5; /* < k */
	expect_bad(&g);
	g = good();
	g.ldb = 4; /* < n */
	expect_bad(&g);
	g = good();
	g.ldc = 4; /* < n */
	expect_bad(&g);
	g = good();
	g.hdr.flags = HPU_MME_F_TRANS_A; /* A stored k x m: lda >= m */
	g.lda = 3;
	expect_bad(&g);
	g.lda = 4;
	assert_int_equal(drv(&g), 0);
	g = good();
	g.hdr.flags = HPU_MME_F_TRANS_B; /* B stored n x k: ldb >= k */
	g.ldb = 5;
	expect_bad(&g);
	g.ldb = 6;
	assert_int_equal(drv(&g), 0);
	g = good();
	g.ldc = 0x80000000U;
	expect_bad(&g);
}

static void test_alignment(void **state)
{
	struct hpu_pkt_mme_gemm g;

	g = good();
	g.a_addr += 2;
	expect_bad(&g);
	g = good();
	g.b_addr += 1;
	expect_bad(&g);
	g = good();
	g.dtype_c = HPU_DTYPE_BF16;
	g.c_addr += 1;
	expect_bad(&g);
}

static void test_batches(void **state)
{
	struct hpu_pkt_mme_gemm g;

	g = good();
	g.batch = 2;
	g.stride_c = 19; /* < m * ldc: C[0] and C[1] overlap */
	expect_bad(&g);
	g.stride_c = 0;
	expect_bad(&g);
	g.stride_c = 20;
	assert_int_equal(drv(&g), 0);
}

static void test_overflow(void **state)
{
	struct hpu_pkt_mme_gemm g;

	/* the extent wraps the address space */
	g = good();
	g.c_addr = 0xfffffffffffffff0ULL;
	expect_bad(&g);
	g = good();
	g.a_addr = 0xffffffffffffff00ULL;
	g.lda = 0x7fffffff;
	expect_bad(&g);
	/* (batch - 1) * stride overflows 64 bits */
	g = good();
	g.batch = 3;
	g.stride_c = 20;
	g.stride_b = 0x8000000000000000ULL;
	expect_bad(&g);
	/* elements fit but bytes do not */
	g = good();
	g.batch = 2;
	g.stride_c = 0x4000000000000000ULL;
	expect_bad(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_leading_dims),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
