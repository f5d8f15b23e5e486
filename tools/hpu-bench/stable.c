// SPDX-License-Identifier: MIT
/*
 * stable.c - when a throughput figure measured in windows has settled:
 * the rule of hpu-bench gemm's rows (docs/hpu-bench.md, "gemm").
 *
 * A row measures each of its columns in turn, one window each per round,
 * so that load from other processes falls on all columns alike. After a
 * round the rule says whether to go on: the row is stable once every
 * column's last two windows agree within the tolerance and the row has
 * run its minimum time; it gives up (unstable) at its maximum time or
 * when a column has no room for more windows, but never before every
 * column has two windows (one window of 4096^3 can outlast the maximum
 * time on a loaded machine). Pure: no clock, no device,
 * so the unit test feeds it figures.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_series_add(struct bench_series *s, double v)
{
	if (s->n < BENCH_SERIES_MAX)
		s->v[s->n++] = v;
}

bool bench_series_settled(const struct bench_series *s, double tol)
{
	double a, b;

	if (s->n < 2)
		return false;
	a = s->v[s->n - 1];
	b = s->v[s->n - 2];
	if (!(a > 0.0) || !(b > 0.0))
		return false;
	return a > b ? a - b <= tol * a : b - a <= tol * b;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

double bench_series_median(const struct bench_series *s)
{
	double v[BENCH_SERIES_MAX];

	if (!s->n)
		return 0.0;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	qsort(v, s->n, sizeof(v[0]), cmp_double);
	return s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2.0;
}

double bench_series_spread(const struct bench_series *s)
{
	double lo, hi, med = bench_series_median(s);
	unsigned int i;

	if (!s->n || !(med > 0.0))
		return 0.0;
	lo = hi = s->v[0];
	for (i = 1; i < s->n; i++) {
		if (s->v[i] < lo)
			lo = s->v[i];
		if (s->v[i] > hi)
			hi = s->v[i];
	}
	return (hi - lo) / med;
}

enum bench_verdict bench_row_verdict(const struct bench_series *cols,
				     unsigned int ncols, uint64_t elapsed_ns,
				     const struct bench_rule *rule)
{
	bool settled = true, full = false;
	unsigned int i;

	for (i = 0; i < ncols; i++) {
		if (cols[i].n < 2)
			return BENCH_MORE; /* nothing to compare yet */
		if (!bench_series_settled(&cols[i], rule->tol))
			settled = false;
		if (cols[i].n >= BENCH_SERIES_MAX)
			full = true;
	}
	if (settled && elapsed_ns >= rule->min_ns)
		return BENCH_STABLE;
	if (elapsed_ns >= rule->max_ns || full)
		return settled ? BENCH_STABLE : BENCH_UNSTABLE;
	return BENCH_MORE;
}
