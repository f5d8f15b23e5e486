/* SPDX-License-Identifier: MIT */
/*
 * hpu_bf16.h - bfloat16 <-> binary32 conversion shared by the engines,
 * the driver library and the tests. bfloat16 is the high half of a
 * binary32; narrowing rounds to nearest, ties to even, and keeps NaNs
 * NaN (quiet) whatever their payload.
 */
#ifndef HPU_BF16_H
#define HPU_BF16_H

#include <stdint.h>
#include <string.h>

static inline float hpu_bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint16_t hpu_f32_to_bf16(float f)
{
	uint32_t u;

	uint32_t r;

	memcpy(&u, &f, sizeof(u));
	r = (u + 0x7fffU + ((u >> 16) & 1U)) >> 16; /* round to nearest even */
	/*
	 * NaN keeps its sign and is made quiet. A select, not a branch: the
	 * TPC kernels' conversion loops vectorize.
	 */
	return (uint16_t)((u & 0x7fffffffU) > 0x7f800000U ?
				  (u >> 16) | 0x0040U :
				  r);
}

#endif /* HPU_BF16_H */
