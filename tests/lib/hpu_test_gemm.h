/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_gemm.h - the MME GEMM packet the engine tests submit: one
 * dense row-major C = A x B, alpha 1, beta 0.
 */
#ifndef HPU_TEST_GEMM_H
#define HPU_TEST_GEMM_H

#include <stdint.h>

#include "hpu_packets.h"

/**
 * hpu_test_gemm_pkt() - a GEMM packet of one batch: C[@m x @n] = A[@m x
 * @k] x B[@k x @n], each matrix row-major and packed (lda @k, ldb and
 * ldc @n), alpha 1.0, beta 0, no batch strides
 * @a: device VA of A
 * @b: device VA of B
 * @c: device VA of C
 * @m: rows of A and C
 * @n: columns of B and C
 * @k: columns of A, rows of B
 * @dtype_ab: HPU_DTYPE_* of A and B
 * @dtype_c: HPU_DTYPE_* of C
 *
 * Return: the packet (its header left zero: hpu_cb_mme_gemm() fills it).
 */
struct hpu_pkt_mme_gemm hpu_test_gemm_pkt(uint64_t a, uint64_t b, uint64_t c,
					  uint32_t m, uint32_t n, uint32_t k,
					  uint16_t dtype_ab, uint16_t dtype_c);

#endif /* HPU_TEST_GEMM_H */
