// SPDX-License-Identifier: MIT
/*
 * compat.c - entry points of older ABIs, kept for programs linked against
 * them (their symbol versions are the older nodes of libhpudrv.map; the
 * current entry points are the default versions, common/hpu_abi.h)
 */
#include <stdint.h>

#include "hpu_abi.h"
#include "hpudrv_internal.h"

HPU_SYMVER_COMPAT(hpu_allocator_create_v1_1, hpu_allocator_create,
		  "HPUDRV_1.1");

int hpu_allocator_create_v1_1(struct hpu_device *dev,
			      const struct hpu_allocator_opts_v1_1 *old,
			      struct hpu_allocator **ap)
{
	struct hpu_allocator_opts opts = { .sz = sizeof(opts) };

	if (!old)
		return hpu_allocator_create_v1_6(dev, NULL, ap);
	opts.max_cached_bytes = old->max_cached_bytes;
	opts.flags = old->flags;
	return hpu_allocator_create_v1_6(dev, &opts, ap);
}
