// SPDX-License-Identifier: MIT
/*
 * nic_keys.c - NIC keys and connection tokens: a keyed permutation of a
 * counter, so a value is unpredictable to whoever does not hold the
 * device's secret, yet never handed out twice (docs/nic.md "Protection
 * domains").
 *
 * The permutation is a six-round Feistel network on the two 32-bit halves
 * of the counter whose round function is SipHash-2-4 of (round, half)
 * under the 128-bit secret: a pseudo-random permutation of 64-bit values.
 * Distinct counters give distinct outputs, so no key comes back after its
 * region was revoked, unlike a random draw that may repeat.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "nic.h"

#define FEISTEL_ROUNDS 6

static uint64_t rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/* One SipRound on the state @v */
static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = rotl(v[2], 32);
}

/* SipHash-2-4 of the one 8-byte message @m under (@k0, @k1) */
static uint64_t siphash_u64(uint64_t k0, uint64_t k1, uint64_t m)
{
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL,
			  k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	const uint64_t b = 8ULL << 56; /* message length in the last block */
	int i;

	v[3] ^= m;
	for (i = 0; i < 2; i++)
		sipround(v);
	v[0] ^= m;
	v[3] ^= b;
	for (i = 0; i < 2; i++)
		sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The keyed permutation of @x */
static uint64_t permute(const struct hpusim_keygen *kg, uint64_t x)
{
	uint32_t l = (uint32_t)(x >> 32), r = (uint32_t)x, t;
	uint64_t i;

	for (i = 0; i < FEISTEL_ROUNDS; i++) {
		t = l ^ (uint32_t)siphash_u64(kg->k0, kg->k1, i << 32 | r);
		l = r;
		r = t;
	}
	return (uint64_t)l << 32 | r;
}

/**
 * hpusim_keygen_init() - a generator with a secret from getrandom()
 * @kg: generator
 *
 * Return: 0, or -errno when the kernel gives no randomness (never a
 * predictable secret).
 */
int hpusim_keygen_init(struct hpusim_keygen *kg)
{
	uint64_t k[2];
	ssize_t n;

	do
		n = getrandom(k, sizeof(k), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(k))
		return n < 0 ? -errno : -EIO;
	kg->k0 = k[0];
	kg->k1 = k[1];
	kg->next = 0;
	return 0;
}

/**
 * hpusim_keygen_seed() - a generator with a known secret
 * @kg: generator
 * @seed: the secret (both halves)
 *
 * For tests and fuzz targets, which must know the values beforehand.
 */
void hpusim_keygen_seed(struct hpusim_keygen *kg, uint64_t seed)
{
	kg->k0 = seed;
	kg->k1 = ~seed;
	kg->next = 0;
}

/**
 * hpusim_keygen_next() - the next value: never 0, never given before
 * @kg: generator (its owner's lock held)
 * @out: the value
 *
 * Return: 0, or -ENOSPC once the counter ran out (2^64 values).
 */
int hpusim_keygen_next(struct hpusim_keygen *kg, uint64_t *out)
{
	uint64_t v;

	do {
		if (kg->next == UINT64_MAX)
			return -ENOSPC;
		v = permute(kg, ++kg->next);
	} while (!v);
	*out = v;
	return 0;
}
