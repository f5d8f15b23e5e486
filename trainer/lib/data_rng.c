// SPDX-License-Identifier: MIT
/*
 * data_rng.c - splitmix64 and xoshiro256** (see ht_rng.h)
 */
#include "ht_rng.h"

uint64_t ht_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void ht_rng_seed(struct ht_rng *rng, uint64_t seed, uint64_t stream)
{
	uint64_t sm = seed ^ (stream * 0x9E3779B97F4A7C15ULL);
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = ht_splitmix64(&sm);
	/* splitmix64 is a bijection of a counter: four zeros cannot happen */
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ht_rng_next(struct ht_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ht_rng_below(struct ht_rng *rng, uint64_t bound)
{
	uint64_t threshold, r;

	if (!bound)
		return 0;
	/* 2^64 mod bound, computed in 64 bits */
	threshold = (0 - bound) % bound;
	do {
		r = ht_rng_next(rng);
	} while (r < threshold);
	return r % bound;
}

float ht_rng_float(struct ht_rng *rng)
{
	return (float)(ht_rng_next(rng) >> 40) * (1.0f / 16777216.0f);
}

float ht_rng_normal(struct ht_rng *rng)
{
	float sum = 0.0f;
	int i;

	for (i = 0; i < 12; i++)
		sum += ht_rng_float(rng);
	return sum - 6.0f;
}

void ht_rng_shuffle(struct ht_rng *rng, uint32_t *v, uint32_t n)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = (uint32_t)ht_rng_below(rng, i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}
