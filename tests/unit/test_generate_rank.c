// SPDX-License-Identifier: MIT
/*
 * test_generate_rank.c - the sampler's ranking (ht_rank_logits()): the
 * order it gives is the one a comparison sort by (logit descending, id
 * ascending, NaN last, -0 == +0) gives, on random logits, on logits with
 * many ties, and on every special value (NaN of both signs, infinities,
 * signed zeros, denormals, the extremes of float).
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ht_generate.h"

#define V 256

/* The reference order, as the sampler wrote it with qsort() */
static int cmp_ref(const void *pa, const void *pb)
{
	const struct ht_ranked *a = pa, *b = pb;
	bool na = isnan(a->lg), nb = isnan(b->lg);

	if (na != nb)
		return na ? 1 : -1;
	if (!na && a->lg != b->lg)
		return a->lg > b->lg ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* ht_rank_logits() of @lg gives the reference's ids, in its order */
static void check_rank(const float *lg, uint32_t n)
{
	struct ht_ranked *got = calloc(n, sizeof(*got));
	struct ht_ranked *tmp = calloc(n, sizeof(*tmp));
	struct ht_ranked *ref = calloc(n, sizeof(*ref));
	uint32_t i;

	assert_non_null(got);
	assert_non_null(tmp);
	assert_non_null(ref);
	for (i = 0; i < n; i++) {
		ref[i].lg = lg[i];
		ref[i].id = i;
	}
	qsort(ref, n, sizeof(*ref), cmp_ref);
	ht_rank_logits(lg, n, got, tmp);
	for (i = 0; i < n; i++) {
		if (got[i].id != ref[i].id)
			fail_msg(
				"rank %u: id %u (logit %a), the reference %u (logit %a)",
				i, got[i].id, (double)got[i].lg, ref[i].id,
				(double)ref[i].lg);
		assert_memory_equal(&got[i].lg, &lg[got[i].id], sizeof(float));
	}
	free(got);
	free(tmp);
	free(ref);
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525U + 1013904223U;
	return *s;
}

static void test_rank_random(void **state)
{
	float lg[V];
	uint32_t s = 12345, i, r;

	(void)state;
	for (r = 0; r < 200; r++) {
		for (i = 0; i < V; i++)
			lg[i] = ((float)(lcg(&s) >> 8) / 16777216.0f - 0.5f) *
				(float)(1U << (r % 20));
		check_rank(lg, V);
	}
}

static void test_rank_ties(void **state)
{
	float lg[V];
	uint32_t s = 7, i, r;

	(void)state;
	/* few distinct values: long runs of equal logits, by id */
	for (r = 0; r < 50; r++) {
		for (i = 0; i < V; i++)
			lg[i] = (float)((int)(lcg(&s) >> 29) - 4);
		check_rank(lg, V);
	}
	for (i = 0; i < V; i++)
		lg[i] = 1.5f; /* all equal: ids in order */
	check_rank(lg, V);
}

static void test_rank_special(void **state)
{
	const float special[] = {
		NAN,	-NAN,	 INFINITY, -INFINITY, 0.0f,    -0.0f,
		1e-45f, -1e-45f, 1e-38f,   -1e-38f,   FLT_MAX, -FLT_MAX,
		1.0f,	-1.0f,	 0.5f,	   -2.0f,     3.4e38f, -3.4e38f,
	};
	const unsigned int ns = sizeof(special) / sizeof(special[0]);
	float lg[V];
	uint32_t s = 99, i, r;

	(void)state;
	for (r = 0; r < 100; r++) {
		for (i = 0; i < V; i++)
			lg[i] = special[lcg(&s) % ns];
		check_rank(lg, V);
	}
	/* every NaN payload and sign sorts last, by id */
	for (i = 0; i < V; i++) {
		uint32_t u = (i % 2 ? 0xff800001U : 0x7fc00000U) + i;

		memcpy(&lg[i], &u, sizeof(u));
	}
	lg[17] = -INFINITY;
	check_rank(lg, V);
	/* a vocabulary of one, and of an odd size */
	lg[0] = NAN;
	check_rank(lg, 1);
	check_rank(special, ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_random),
		cmocka_unit_test(test_rank_ties),
		cmocka_unit_test(test_rank_special),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
