// SPDX-License-Identifier: MIT
/*
 * hpu_test_rng.c - seeded random numbers of the tests (hpu_test_rng.h).
 */
#include "hpu_test_rng.h"

void hpu_test_rng_seed(struct hpu_test_rng *r, uint64_t seed)
{
	r->s = hpu_test_mix_seed(seed, 0x68707521ULL) | 1;
}

uint64_t hpu_test_rng_next(struct hpu_test_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

uint32_t hpu_test_rng_below(struct hpu_test_rng *r, uint32_t n)
{
	return n ? (uint32_t)(hpu_test_rng_next(r) % n) : 0;
}

uint64_t hpu_test_mix_seed(uint64_t a, uint64_t b)
{
	/* splitmix64 of a combination */
	uint64_t z = a + 0x9E3779B97F4A7C15ULL * (b + 1);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}
