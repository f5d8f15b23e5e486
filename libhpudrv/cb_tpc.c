// SPDX-License-Identifier: MIT
/*
 * cb_tpc.c - the TPC_KERNEL emitter of the command-buffer builder.
 */
#include <errno.h>

#include "hpudrv_internal.h"
#include "hputpc_check.h"

int hpu_cb_tpc_kernel(struct hpu_cb_builder *b, uint32_t kernel_id,
		      const struct hpu_tpc_tensor *tensors,
		      unsigned int num_tensors, const uint32_t *params,
		      unsigned int num_params)
{
	struct hpu_pkt_tpc_kernel pkt;
	int ret;

	if (!b)
		return -EINVAL;
	ret = hputpc_pkt_build(&pkt, kernel_id, tensors, num_tensors, params,
			       num_params);
	if (ret)
		return ret;
	return hpudrv_cb_append(b, &pkt, sizeof(pkt));
}
