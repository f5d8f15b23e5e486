/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_rng.h - seeded random numbers of the tests (xorshift64*),
 * the same sequence for the same seed on every run, and seeds derived
 * from a base seed (HPU_STRESS_SEED=N repeats a stress run).
 */
#ifndef HPU_TEST_RNG_H
#define HPU_TEST_RNG_H

#include <stdint.h>

/** struct hpu_test_rng - xorshift64* state (never 0) */
struct hpu_test_rng {
	uint64_t s;
};

/** hpu_test_rng_seed() - seed @r; any @seed (0 included) is fine */
void hpu_test_rng_seed(struct hpu_test_rng *r, uint64_t seed);
/** hpu_test_rng_next() - next 64 random bits */
uint64_t hpu_test_rng_next(struct hpu_test_rng *r);
/** hpu_test_rng_below() - uniform in 0..@n-1 (0 when @n is 0) */
uint32_t hpu_test_rng_below(struct hpu_test_rng *r, uint32_t n);
/** hpu_test_mix_seed() - a well-mixed seed derived from @a and @b */
uint64_t hpu_test_mix_seed(uint64_t a, uint64_t b);

#endif /* HPU_TEST_RNG_H */
