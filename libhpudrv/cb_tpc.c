// SPDX-License-Identifier: MIT
/*
 * cb_tpc.c - the TPC_KERNEL emitter of the command-buffer builder.
 */
#include <errno.h>

#include "hpudrv_internal.h"

int hpu_cb_tpc_kernel(struct hpu_cb_builder *b, uint32_t kernel_id,
		      const struct hpu_tpc_tensor *tensors,
		      unsigned int num_tensors, const uint32_t *params,
		      unsigned int num_params)
{
	(void)b;
	(void)kernel_id;
	(void)tensors;
	(void)num_tensors;
	(void)params;
	(void)num_params;
	return -EOPNOTSUPP; /* until the TPC library lands */
}
