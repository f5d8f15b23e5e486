// SPDX-License-Identifier: MIT
/*
 * algo.c - the one table of the schedules a collective can run: their
 * names, as HPUCCL_ALGO spells them and HPUCCL_DEBUG prints them
 * (docs/collectives.md "Algorithms"). A new algorithm is an entry of
 * enum ccl_algo, a row here and its schedule in the family's file.
 */
#include <errno.h>
#include <string.h>

#include "ccl_internal.h"

/**
 * struct ccl_algo_desc - one algorithm
 * @name: its name in HPUCCL_ALGO and the HPUCCL_DEBUG lines
 */
struct ccl_algo_desc {
	const char *name;
};

static const struct ccl_algo_desc ccl_algos[] = {
	[CCL_ALGO_AUTO] = { .name = "auto" },
	[CCL_ALGO_DIRECT] = { .name = "direct" },
	[CCL_ALGO_RING] = { .name = "ring" },
	[CCL_ALGO_HIER] = { .name = "hier" },
};

_Static_assert(sizeof(ccl_algos) / sizeof(ccl_algos[0]) == CCL_NUM_ALGOS,
	       "every enum ccl_algo has a row in ccl_algos[]");

const char *ccl_algo_name(int algo)
{
	if (algo < 0 || algo >= CCL_NUM_ALGOS || !ccl_algos[algo].name)
		return "?";
	return ccl_algos[algo].name;
}

int ccl_algo_parse(const char *s)
{
	int i;

	if (!s || !*s)
		return CCL_ALGO_AUTO;
	for (i = 0; i < CCL_NUM_ALGOS; i++)
		if (ccl_algos[i].name && !strcmp(s, ccl_algos[i].name))
			return i;
	return -EINVAL;
}
