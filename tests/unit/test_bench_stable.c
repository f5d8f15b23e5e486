// SPDX-License-Identifier: MIT
/*
 * test_bench_stable.c - the rule that ends a row of hpu-bench gemm
 * (tools/hpu-bench/stable.c, docs/hpu-bench.md "gemm"), fed made-up
 * figures and times: no clock, no device, nothing timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../tools/hpu-bench/bench.h"

#define MS 1000000ULL

static const struct bench_rule rule = {
	.tol = 0.10,
	.min_ns = 5000 * MS,
	.max_ns = 15000 * MS,
};

static void fill(struct bench_series *s, const double *v, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++)
		bench_series_add(s, v[i]);
}

/* Two windows agree when within 10% of the larger, whatever the order */
static void test_settled(void **state)
{
	static const double close[] = { 50.0, 100.0, 92.0 };
	static const double apart[] = { 100.0, 89.0 };
	static const double zero[] = { 0.0, 0.0 };
	struct bench_series s;

	(void)state;
	fill(&s, close, 1);
	assert_false(bench_series_settled(&s, 0.10)); /* one window */
	fill(&s, close, 2);
	assert_false(bench_series_settled(&s, 0.10)); /* 50 vs 100 */
	fill(&s, close, 3);
	/* 100 vs 92: only the last two count */
	assert_true(bench_series_settled(&s, 0.10));
	fill(&s, apart, 2);
	assert_false(bench_series_settled(&s, 0.10));
	assert_true(bench_series_settled(&s, 0.12));
	fill(&s, zero, 2);
	assert_false(bench_series_settled(&s, 0.10)); /* no figure */
}

static void test_median_spread(void **state)
{
	static const double odd[] = { 30.0, 10.0, 20.0 };
	static const double even[] = { 40.0, 10.0, 30.0, 20.0 };
	struct bench_series s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(bench_series_median(&s) == 0.0);
	assert_true(bench_series_spread(&s) == 0.0);
	fill(&s, odd, 3);
	assert_true(bench_series_median(&s) == 20.0);
	assert_true(bench_series_spread(&s) == 1.0); /* (30 - 10) / 20 */
	fill(&s, even, 4);
	assert_true(bench_series_median(&s) == 25.0);
	assert_true(bench_series_spread(&s) == 30.0 / 25.0);
	/* the median did not reorder the windows */
	assert_true(s.v[0] == 40.0 && s.v[3] == 20.0);
}

/* A series keeps BENCH_SERIES_MAX windows and drops the rest */
static void test_series_full(void **state)
{
	struct bench_series s;
	unsigned int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < BENCH_SERIES_MAX + 5; i++)
		bench_series_add(&s, (double)(i + 1));
	assert_int_equal(s.n, BENCH_SERIES_MAX);
	assert_true(s.v[BENCH_SERIES_MAX - 1] == (double)BENCH_SERIES_MAX);
}

/* Three columns; column @odd gets @b as its last window, the others @a */
static void columns(struct bench_series *cols, unsigned int n, double a,
		    double b, unsigned int odd)
{
	unsigned int c, i;

	memset(cols, 0, 3 * sizeof(*cols));
	for (c = 0; c < 3; c++)
		for (i = 0; i < n; i++)
			bench_series_add(&cols[c],
					 c == odd && i == n - 1 ? b : a);
}

static void test_verdict(void **state)
{
	struct bench_series cols[3];

	(void)state;
	/* one window each: more, even past the maximum time */
	columns(cols, 1, 50.0, 50.0, 0);
	assert_int_equal(bench_row_verdict(cols, 3, 0, &rule), BENCH_MORE);
	assert_int_equal(bench_row_verdict(cols, 3, 60000 * MS, &rule),
			 BENCH_MORE);

	/* settled, but under the minimum time: more */
	columns(cols, 2, 50.0, 52.0, 1);
	assert_int_equal(bench_row_verdict(cols, 3, 1000 * MS, &rule),
			 BENCH_MORE);
	assert_int_equal(bench_row_verdict(cols, 3, 5000 * MS, &rule),
			 BENCH_STABLE);

	/* one column apart (the swing: 0.62 against 0.99) */
	columns(cols, 2, 0.99, 0.62, 2);
	assert_int_equal(bench_row_verdict(cols, 3, 2000 * MS, &rule),
			 BENCH_MORE);
	assert_int_equal(bench_row_verdict(cols, 3, 14999 * MS, &rule),
			 BENCH_MORE);
	assert_int_equal(bench_row_verdict(cols, 3, 15000 * MS, &rule),
			 BENCH_UNSTABLE);
	/* settled exactly at the maximum time is stable */
	columns(cols, 2, 0.99, 0.95, 2);
	assert_int_equal(bench_row_verdict(cols, 3, 15000 * MS, &rule),
			 BENCH_STABLE);

	/* no room for another window: the row ends, unsettled */
	columns(cols, BENCH_SERIES_MAX, 50.0, 10.0, 0);
	assert_int_equal(bench_row_verdict(cols, 3, 2000 * MS, &rule),
			 BENCH_UNSTABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settled),
		cmocka_unit_test(test_median_spread),
		cmocka_unit_test(test_series_full),
		cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
