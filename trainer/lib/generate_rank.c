// SPDX-License-Identifier: MIT
/*
 * generate_rank.c - the sampler's ranking of a vocabulary (ht_generate.h):
 * token ids ordered by logit descending, then id ascending, NaN logits
 * after every number. The order is total, so any correct sort gives the
 * same sequence; this one is a stable LSD radix sort on a 32-bit key
 * (4 passes of 8 bits over the ids in ascending order), which for the
 * 256 ids of the byte vocabulary takes a few microseconds where qsort()
 * with a comparison function took ~5x longer on every token of every
 * path (hpu and cpu alike).
 */
#include <math.h>
#include <string.h>

#include "ht_generate.h"

/*
 * A key whose ascending unsigned order is the ranking: larger logits
 * first (the bits of a float ordered as an unsigned integer, then
 * inverted), -0 and +0 equal, every NaN last and equal to the others.
 */
static uint32_t rank_key(float lg)
{
	uint32_t u;

	if (isnan(lg))
		return UINT32_MAX;
	if (lg == 0.0f)
		lg = 0.0f; /* -0 ranks as +0 */
	memcpy(&u, &lg, sizeof(u));
	/* ascending float order as unsigned: flip the sign bit of
	 * positives, every bit of negatives */
	u = u & 0x80000000U ? ~u : u | 0x80000000U;
	/* descending: at most ~(-inf's key) = 0xff800000 < UINT32_MAX */
	return ~u;
}

void ht_rank_logits(const float *lg, uint32_t n, struct ht_ranked *out,
		    struct ht_ranked *tmp)
{
	uint32_t count[256], i, pass;
	struct ht_ranked *src = out, *dst = tmp, *t;

	for (i = 0; i < n; i++) {
		out[i].lg = lg[i];
		out[i].id = i;
		out[i].key = rank_key(lg[i]);
	}
	for (pass = 0; pass < 4; pass++) {
		unsigned int shift = pass * 8;
		uint32_t sum = 0, c;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i].key >> shift) & 0xff]++;
		if (count[(src[0].key >> shift) & 0xff] == n)
			continue; /* every key has this byte: nothing moves */
		for (i = 0; i < 256; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != out)
		memcpy(out, src, (size_t)n * sizeof(*out));
}
