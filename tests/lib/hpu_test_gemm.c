// SPDX-License-Identifier: MIT
/*
 * hpu_test_gemm.c - the GEMM packet of the engine tests (hpu_test_gemm.h).
 */
#include <string.h>

#include "hpu_test_gemm.h"

struct hpu_pkt_mme_gemm hpu_test_gemm_pkt(uint64_t a, uint64_t b, uint64_t c,
					  uint32_t m, uint32_t n, uint32_t k,
					  uint16_t dtype_ab, uint16_t dtype_c)
{
	struct hpu_pkt_mme_gemm g;

	memset(&g, 0, sizeof(g));
	g.a_addr = a;
	g.b_addr = b;
	g.c_addr = c;
	g.m = m;
	g.n = n;
	g.k = k;
	g.lda = k;
	g.ldb = n;
	g.ldc = n;
	g.batch = 1;
	g.dtype_ab = dtype_ab;
	g.dtype_c = dtype_c;
	g.alpha = 0x3f800000; /* 1.0 */
	return g;
}
