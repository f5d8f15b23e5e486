// SPDX-License-Identifier: MIT
/*
 * env.c - the model's tunables read from the environment of the process
 * that runs it (hpu-fused's): HPUSIM_CHAIN_MAX, HPUSIM_HOST_TIMEOUT_MS,
 * HPUSIM_MME_SPLIT (mme.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "hpusim.h"

/**
 * hpusim_env_u64() - a decimal number from the environment
 * @name: the variable
 * @lo: the least value taken
 * @hi: the most value taken
 * @def: the value when @name is unset, empty or not a decimal number in
 *	[@lo, @hi] (a bad value is ignored, as an unset one)
 *
 * Return: the number, or @def.
 */
uint64_t hpusim_env_u64(const char *name, uint64_t lo, uint64_t hi,
			uint64_t def)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s || s[0] == '-')
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return def;
	return v;
}
