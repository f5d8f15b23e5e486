// SPDX-License-Identifier: MIT
/*
 * test_hpu_blas.c - hpu_blas_sgemm(), the one GEMM routine of the MME and
 * the cpu backend: every transpose combination, single-row products (the
 * matrix-vector path) beside multi-row ones, operand pitches wider than
 * the rows, beta 0 ignoring a C full of NaN, beta 1 accumulating, against
 * a double-precision reference; the same call twice gives the same bits.
 * The split rule of two MMEs (hpu_blas_split_col()): which products it
 * cuts and where, and that the two column blocks give the bits of the
 * whole product on odd sizes, pitches and both A layouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_blas.h"

#define PAD 3 /* extra elements per stored row */

static float val(uint32_t i, uint32_t seed)
{
	return (float)((i * 2654435761u + seed * 40503u) % 1000u) / 500.0f -
	       1.0f;
}

/* op(X)[r][c] of X stored @rows x @cols (pitch @ld), transposed or not */
static float at(const float *x, uint32_t ld, bool trans, uint32_t r, uint32_t c)
{
	return trans ? x[(uint64_t)c * ld + r] : x[(uint64_t)r * ld + c];
}

static void check_product(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k,
			  float beta)
{
	uint32_t lda = (ta ? m : k) + PAD, ldb = (tb ? k : n) + PAD,
		 ldc = n + PAD, arows = ta ? k : m, brows = tb ? n : k;
	float *a = calloc((size_t)arows * lda, sizeof(float));
	float *b = calloc((size_t)brows * ldb, sizeof(float));
	float *c = calloc((size_t)m * ldc, sizeof(float));
	float *c2 = calloc((size_t)m * ldc, sizeof(float));
	float *c0 = calloc((size_t)m * ldc, sizeof(float));
	uint32_t i, r, col, x;

	assert_true(a && b && c && c2 && c0);
	for (i = 0; i < arows * lda; i++)
		a[i] = val(i, 1);
	for (i = 0; i < brows * ldb; i++)
		b[i] = val(i, 2);
	for (i = 0; i < m * ldc; i++)
		c0[i] = beta == 0.0f ? NAN : val(i, 3);
	memcpy(c, c0, (size_t)m * ldc * sizeof(float));
	memcpy(c2, c0, (size_t)m * ldc * sizeof(float));
	hpu_blas_begin(m, n, k);
	hpu_blas_sgemm(ta, tb, m, n, k, 0.5f, a, lda, b, ldb, beta, c, ldc);
	hpu_blas_sgemm(ta, tb, m, n, k, 0.5f, a, lda, b, ldb, beta, c2, ldc);
	hpu_blas_end();
	assert_memory_equal(c, c2, (size_t)m * ldc * sizeof(float));
	for (r = 0; r < m; r++) {
		for (col = 0; col < ldc; col++) {
			float got = c[(uint64_t)r * ldc + col];
			double want = 0.0;

			if (col >= n) { /* the pitch's padding: untouched */
				assert_memory_equal(
					&got, &c0[(uint64_t)r * ldc + col],
					sizeof(got));
				continue;
			}
			for (x = 0; x < k; x++)
				want += (double)at(a, lda, ta, r, x) *
					at(b, ldb, tb, x, col);
			want *= 0.5;
			if (beta != 0.0f)
				want += (double)beta *
					c0[(uint64_t)r * ldc + col];
			if (!(fabs(got - want) <= 1e-4 + 1e-5 * fabs(want)))
				fail_msg(
					"ta %d tb %d %ux%ux%u beta %g: C[%u][%u] %.9g, want %.9g",
					ta, tb, m, n, k, beta, r, col, got,
					want);
		}
	}
	free(a);
	free(b);
	free(c);
	free(c2);
	free(c0);
}

static void test_single_row_products(void **state)
{
	static const uint32_t shapes[][2] = { { 1, 1 },	    { 7, 1 },
					      { 1, 9 },	    { 384, 128 },
					      { 129, 513 }, { 256, 128 } };
	unsigned int t, s;

	(void)state;
	for (t = 0; t < 4; t++)
		for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			check_product(t & 1, t & 2, 1, shapes[s][0],
				      shapes[s][1], 0.0f);
			check_product(t & 1, t & 2, 1, shapes[s][0],
				      shapes[s][1], 1.0f);
		}
}

static void test_multi_row_products(void **state)
{
	unsigned int t;

	(void)state;
	for (t = 0; t < 4; t++) {
		check_product(t & 1, t & 2, 2, 33, 17, 0.0f);
		check_product(t & 1, t & 2, 64, 128, 64, 1.0f);
	}
}

static void test_split_col_rule(void **state)
{
	uint32_t n, s;

	(void)state;
	/* only m = 1 with B transposed, one BLAS thread, enough work */
	assert_int_equal(hpu_blas_split_col(false, 1, 384, 128), 0);
	assert_int_equal(hpu_blas_split_col(true, 2, 384, 128), 0);
	assert_int_equal(hpu_blas_split_col(true, 8, 384, 128), 0);
	assert_int_equal(hpu_blas_split_col(true, 1, 127, 128), 0);
	assert_int_equal(hpu_blas_split_col(true, 1, 4096, 1024), 0);
	/* too narrow for two aligned blocks */
	assert_int_equal(hpu_blas_split_col(true, 1, HPU_BLAS_SPLIT_ALIGN,
					    HPU_BLAS_SPLIT_MIN_MNK),
			 0);
	assert_int_equal(hpu_blas_split_col(true, 1, 384, 128), 192);
	for (n = 2; n < 3000; n++) {
		s = hpu_blas_split_col(true, 1, n, 1024);
		if ((uint64_t)n * 1024 < HPU_BLAS_SPLIT_MIN_MNK ||
		    (uint64_t)n * 1024 >= HPU_BLAS_SMALL_MNK) {
			assert_int_equal(s, 0);
			continue;
		}
		if (!s) {
			assert_true(n <= HPU_BLAS_SPLIT_ALIGN);
			continue;
		}
		assert_int_equal(s % HPU_BLAS_SPLIT_ALIGN, 0);
		assert_true(s >= n / 2 && s < n);
		assert_true(s - n / 2 < HPU_BLAS_SPLIT_ALIGN);
	}
}

/*
 * The two blocks of a split product, each its own call as the two MMEs
 * make them, give the bits of the one call: odd widths and depths, pitches
 * wider than the rows, A as a row or as a column, beta 0 and 1, alpha 1
 * and not. Checked on the OpenBLAS core of the run (the daemon's: tests/
 * run-tests exports it).
 */
static void test_split_blocks_equal_whole(void **state)
{
	uint32_t seed = 12345, it, splits = 0;

	(void)state;
	for (it = 0; it < 400; it++) {
		uint32_t n, k, lda, ldb, s, i, alen, blen;
		bool ta = it & 1;
		float beta = (it & 2) ? 1.0f : 0.0f;
		float alpha = (it & 4) ? 1.0f : -0.625f;
		float *a, *b, *c1, *c2;

		seed = seed * 1103515245u + 12345u;
		n = 17 + (seed >> 8) % 1500;
		seed = seed * 1103515245u + 12345u;
		k = 1 + (seed >> 8) % 1200;
		if (!(n & 1))
			n++; /* odd widths: blocks end off the kernels' steps */
		s = hpu_blas_split_col(true, 1, n, k);
		if (!s)
			continue;
		splits++;
		lda = ta ? 1 + it % 3 : k;
		ldb = k + it % 5;
		alen = ta ? (k - 1) * lda + 1 : k;
		blen = n * ldb;
		a = malloc(alen * sizeof(float));
		b = malloc(blen * sizeof(float));
		c1 = malloc(n * sizeof(float));
		c2 = malloc(n * sizeof(float));
		assert_true(a && b && c1 && c2);
		for (i = 0; i < alen; i++)
			a[i] = val(i, it + 1);
		for (i = 0; i < blen; i++)
			b[i] = val(i, it + 7);
		for (i = 0; i < n; i++)
			c1[i] = c2[i] = val(i, it + 3);
		hpu_blas_begin(1, n, k);
		hpu_blas_sgemm(ta, true, 1, n, k, alpha, a, lda, b, ldb, beta,
			       c1, n);
		hpu_blas_sgemm(ta, true, 1, s, k, alpha, a, lda, b, ldb, beta,
			       c2, s);
		hpu_blas_sgemm(ta, true, 1, n - s, k, alpha, a, lda,
			       b + (size_t)s * ldb, ldb, beta, c2 + s, n - s);
		hpu_blas_end();
		if (memcmp(c1, c2, n * sizeof(float)))
			fail_msg(
				"1x%ux%u ta %d beta %g alpha %g split at %u: the blocks differ from the whole",
				n, k, ta, beta, alpha, s);
		free(a);
		free(b);
		free(c1);
		free(c2);
	}
	/* the sizes drawn must exercise the split, not skip it */
	assert_true(splits > 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_row_products),
		cmocka_unit_test(test_multi_row_products),
		cmocka_unit_test(test_split_col_rule),
		cmocka_unit_test(test_split_blocks_equal_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
