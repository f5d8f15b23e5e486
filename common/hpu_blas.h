/* SPDX-License-Identifier: MIT */
/*
 * hpu_blas.h - the one OpenBLAS configuration of every GEMM hpu computes:
 * the MME (firmware-sim/mme.c, in the daemon) and the trainer's cpu
 * backend (trainer/lib/backend_cpu.c, in the training process).
 *
 * OpenBLAS's sgemm adds a product's terms in an order that depends on
 * the number of threads it splits the product over (measured with
 * Debian 12's 0.3.21: 128x96x32 on one thread and on two differ in 17 %
 * of the elements, by up to 4.8e-7). Both sides therefore choose the
 * thread count with the same rule, from the product's shape only, and
 * set it before each product, so a product gives the same bits on the
 * device and on the cpu path (docs/mme.md "Cores").
 */
#ifndef HPU_BLAS_H
#define HPU_BLAS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Products of fewer multiply-adds (m * n * k) than this run on one BLAS
 * thread, larger ones on OpenBLAS's default count (docs/mme.md "Cores"
 * has the measurements)
 */
#define HPU_BLAS_SMALL_MNK (1ULL << 22)

/**
 * hpu_blas_threads() - the BLAS thread count of an m x n x k product
 * @m: rows of C
 * @n: columns of C
 * @k: the inner dimension
 * @dflt: OpenBLAS's default thread count of the process (at least 1)
 *
 * Return: 1 when m * n * k < HPU_BLAS_SMALL_MNK, else @dflt.
 */
static inline int hpu_blas_threads(uint32_t m, uint32_t n, uint32_t k, int dflt)
{
	if ((uint64_t)m * n * k < HPU_BLAS_SMALL_MNK || dflt < 1)
		return 1;
	return dflt;
}

/* A split product's first part ends at a multiple of this many columns */
#define HPU_BLAS_SPLIT_ALIGN 16

/* Products of fewer multiply-adds are not split (docs/mme.md "Two MMEs") */
#define HPU_BLAS_SPLIT_MIN_MNK (1ULL << 14)

/**
 * hpu_blas_split_col() - where a product may be cut into two column
 *	blocks that together give the bits of the whole
 * @trans_b: op(B) = B^T (B stored n x k)
 * @m: rows of C
 * @n: columns of C
 * @k: the inner dimension
 *
 * Only a single-row product with B transposed qualifies: hpu_blas_sgemm()
 * computes it as n independent dot products (cblas_sgemv of B), and one
 * output's dot product does not depend on how many others the call
 * computes as long as a block starts at a multiple of
 * HPU_BLAS_SPLIT_ALIGN columns (tests/unit/test_hpu_blas.c checks it on
 * every OpenBLAS core it can start). sgemm's terms (m > 1), and sgemv of
 * an untransposed B, change order with the block's width: not split.
 * The product must also run on one BLAS thread (hpu_blas_threads()) and
 * have at least HPU_BLAS_SPLIT_MIN_MNK multiply-adds.
 *
 * Return: the first column of the second block (0 < s < @n, a multiple
 * of HPU_BLAS_SPLIT_ALIGN), or 0: do not split.
 */
static inline uint32_t hpu_blas_split_col(bool trans_b, uint32_t m, uint32_t n,
					  uint32_t k)
{
	uint64_t mnk = (uint64_t)m * n * k;
	uint32_t s;

	if (m != 1 || !trans_b || mnk < HPU_BLAS_SPLIT_MIN_MNK ||
	    mnk >= HPU_BLAS_SMALL_MNK)
		return 0;
	s = (n / 2 + HPU_BLAS_SPLIT_ALIGN - 1) / HPU_BLAS_SPLIT_ALIGN *
	    HPU_BLAS_SPLIT_ALIGN;
	return s < n ? s : 0;
}

/**
 * hpu_blas_begin() - take the process's BLAS lock and set OpenBLAS's
 *	thread count for m x n x k products (hpu_blas_threads())
 * @m: rows of C
 * @n: columns of C
 * @k: the inner dimension
 *
 * The thread count is process-wide, so every cblas_sgemm() of hpu runs
 * between hpu_blas_begin() and hpu_blas_end(). The default thread count
 * (OPENBLAS_NUM_THREADS, else the CPUs the process may run on) is read
 * at the first call: two processes give the same bits when they have
 * the same default.
 */
void hpu_blas_begin(uint32_t m, uint32_t n, uint32_t k);

/**
 * hpu_blas_end() - release the lock hpu_blas_begin() took
 */
void hpu_blas_end(void);

/**
 * hpu_blas_sgemm() - C = alpha op(A) op(B) + beta C, row-major fp32, the
 *	one GEMM routine of the MME and the cpu backend
 * @trans_a: op(A) = A^T (A stored k x m)
 * @trans_b: op(B) = B^T (B stored n x k)
 * @m: rows of C
 * @n: columns of C
 * @k: the inner dimension
 * @alpha: scale of the product
 * @a: A, leading dimension @lda
 * @lda: A's row pitch in elements
 * @b: B, leading dimension @ldb
 * @ldb: B's row pitch in elements
 * @beta: scale of C's old value; 0 ignores it (NaN included), as sgemm
 * @c: C, leading dimension @ldc
 * @ldc: C's row pitch in elements
 *
 * A single-row product (m == 1: a decode step's projections) is a
 * matrix-vector product (cblas_sgemv): sgemm would pack all of B for
 * one row. Called between hpu_blas_begin() and hpu_blas_end(); the same
 * shape takes the same path on both sides, so the bits agree.
 */
void hpu_blas_sgemm(bool trans_a, bool trans_b, uint32_t m, uint32_t n,
		    uint32_t k, float alpha, const float *a, uint32_t lda,
		    const float *b, uint32_t ldb, float beta, float *c,
		    uint32_t ldc);

#endif /* HPU_BLAS_H */
