// SPDX-License-Identifier: MIT
/*
 * hpu_blas.c - the BLAS lock and thread rule every GEMM of hpu runs
 * under (hpu_blas.h).
 */
#include <pthread.h>

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
