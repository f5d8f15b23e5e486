/* SPDX-License-Identifier: MIT */
/*
 * hpu_gemm_pkt.h - the MME_GEMM packet of one dense row-major product,
 * as the tests, hpu-bench and the training library's ops build it
 * (uapi/hpu_packets.h; the rules it must meet: hpu_mme_check.h). Callers
 * change the members their product differs in (flags, leading
 * dimensions, batch strides, beta) after it.
 */
#ifndef HPU_GEMM_PKT_H
#define HPU_GEMM_PKT_H

#include <stdint.h>
#include <string.h>

#include "hpu_packets.h"

/* alpha 1.0 as binary32 bits */
#define HPU_GEMM_ALPHA_ONE 0x3f800000U

/**
 * hpu_gemm_pkt() - a GEMM packet of one batch: C[@m x @n] = A[@m x @k] x
 * B[@k x @n], each matrix row-major and packed (lda @k, ldb and ldc @n),
 * alpha 1.0, beta 0, no flags, no batch strides
 * @a: device VA of A
 * @b: device VA of B
 * @c: device VA of C
 * @m: rows of A and C
 * @n: columns of B and C
 * @k: columns of A, rows of B
 * @dtype_ab: HPU_DTYPE_* of A and B
 * @dtype_c: HPU_DTYPE_* of C
 *
 * Return: the packet, its header left zero (hpu_cb_mme_gemm() fills it).
 */
static inline struct hpu_pkt_mme_gemm
hpu_gemm_pkt(uint64_t a, uint64_t b, uint64_t c, uint32_t m, uint32_t n,
	     uint32_t k, uint16_t dtype_ab, uint16_t dtype_c)
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
	g.alpha = HPU_GEMM_ALPHA_ONE;
	return g;
}

#endif /* HPU_GEMM_PKT_H */
