/* SPDX-License-Identifier: MIT */
/*
 * ht_rng.h - the training library's pseudo-random numbers
 *
 * xoshiro256** (Blackman and Vigna, 2018) seeded through splitmix64. Both
 * are fully specified integer algorithms, so every sequence below is the
 * same on every machine, compiler and C library; everything that must be
 * reproducible from a seed (shuffles, splits, synthetic data, weight
 * initialisation) draws from it.
 */
#ifndef HT_RNG_H
#define HT_RNG_H

#include <stdint.h>

/**
 * struct ht_rng - xoshiro256** state
 * @s: the four state words; never all zero after ht_rng_seed()
 */
struct ht_rng {
	uint64_t s[4];
};

/**
 * ht_splitmix64() - advance a splitmix64 state and return its next output
 * @state: the state, updated
 *
 * Return: the next 64-bit output.
 */
uint64_t ht_splitmix64(uint64_t *state);

/**
 * ht_rng_seed() - seed a generator for one stream of one seed
 * @rng: the generator
 * @seed: the user's seed
 * @stream: an independent stream number (e.g. the epoch)
 *
 * The four state words are four successive splitmix64 outputs starting
 * from seed XOR (stream * 0x9E3779B97F4A7C15).
 */
void ht_rng_seed(struct ht_rng *rng, uint64_t seed, uint64_t stream);

/**
 * ht_rng_next() - the next 64-bit output of xoshiro256**
 * @rng: the generator
 *
 * Return: 64 random bits.
 */
uint64_t ht_rng_next(struct ht_rng *rng);

/**
 * ht_rng_below() - an unbiased integer in [0, bound)
 * @rng: the generator
 * @bound: exclusive upper bound, > 0
 *
 * Draws 64-bit outputs, rejecting those below 2^64 mod @bound, and
 * returns the first accepted one modulo @bound.
 *
 * Return: the integer; 0 when @bound is 0.
 */
uint64_t ht_rng_below(struct ht_rng *rng, uint64_t bound);

/**
 * ht_rng_float() - a float uniform in [0, 1)
 * @rng: the generator
 *
 * Return: the top 24 bits of one output times 2^-24.
 */
float ht_rng_float(struct ht_rng *rng);

/**
 * ht_rng_normal() - an approximately standard-normal float
 * @rng: the generator
 *
 * The sum of 12 uniforms minus 6 (Irwin-Hall): mean 0, variance 1, tails
 * cut at +-6. Only IEEE single-precision additions (each correctly
 * rounded), so the result does not depend on the C library's log/cos.
 *
 * Return: the value.
 */
float ht_rng_normal(struct ht_rng *rng);

/**
 * ht_rng_shuffle() - permute @v in place (Fisher-Yates)
 * @rng: the generator
 * @v: the values
 * @n: how many
 *
 * From the last element down, element i - 1 is swapped with element
 * ht_rng_below(@rng, i): n - 1 draws, the same permutation for the same
 * generator state everywhere.
 */
void ht_rng_shuffle(struct ht_rng *rng, uint32_t *v, uint32_t n);

#endif /* HT_RNG_H */
