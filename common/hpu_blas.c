// SPDX-License-Identifier: MIT
/*
 * hpu_blas.c - the BLAS lock and thread rule every GEMM of hpu runs
 * under (hpu_blas.h).
 */
#include <pthread.h>
#include <string.h>

#include <cblas.h>

#include "hpu_blas.h"

/* Serializes hpu's BLAS calls: the thread count is process-wide */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;

/* OpenBLAS's default thread count, read at the first product (blas_lock) */
static int blas_default;

void hpu_blas_begin(uint32_t m, uint32_t n, uint32_t k)
{
	int want;

	pthread_mutex_lock(&blas_lock);
	if (!blas_default) {
		blas_default = openblas_get_num_threads();
		if (blas_default < 1)
			blas_default = 1;
	}
	want = hpu_blas_threads(m, n, k, blas_default);
	if (openblas_get_num_threads() != want)
		openblas_set_num_threads(want);
}

void hpu_blas_end(void)
{
	pthread_mutex_unlock(&blas_lock);
}

void hpu_blas_sgemm(bool trans_a, bool trans_b, uint32_t m, uint32_t n,
		    uint32_t k, float alpha, const float *a, uint32_t lda,
		    const float *b, uint32_t ldb, float beta, float *c,
		    uint32_t ldc)
{
	if (m != 1 || !k) {
		cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
			    trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n,
			    (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c,
			    (int)ldc);
		return;
	}
	/* sgemm never reads C when beta is 0: neither does this */
	if (beta == 0.0f)
		memset(c, 0, (size_t)n * sizeof(*c));
	/*
	 * c[1][n] = alpha x[k] op(B) + beta c, x = A's row (its column when
	 * A is stored transposed, k x 1 with pitch lda): op(B) = B (k x n)
	 * is B^T x; op(B) = B^T (B n x k) is B x.
	 */
	if (trans_b)
		cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)n, (int)k, alpha,
			    b, (int)ldb, a, trans_a ? (int)lda : 1, beta, c, 1);
	else
		cblas_sgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, alpha, b,
			    (int)ldb, a, trans_a ? (int)lda : 1, beta, c, 1);
}
