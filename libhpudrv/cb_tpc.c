// SPDX-License-Identifier: MIT
/*
 * cb_tpc.c - the TPC_KERNEL emitter of the command-buffer builder.
 */
#include <errno.h>
#include <string.h>

#include "hpu_tpc_check.h"
#include "hpudrv_internal.h"

int hpu_cb_tpc_kernel(struct hpu_cb_builder *b, uint32_t kernel_id,
		      const struct hpu_tpc_tensor *tensors,
		      unsigned int num_tensors, const uint32_t *params,
		      unsigned int num_params)
{
	struct hpu_pkt_tpc_kernel pkt;
	int ret;

	if (!b || !tensors || !num_tensors ||
	    num_tensors > HPU_TPC_MAX_TENSORS ||
	    num_params > HPU_TPC_MAX_PARAMS || (num_params && !params))
		return -EINVAL;
	memset(&pkt, 0, sizeof(pkt));
	pkt.hdr.opcode = HPU_PACKET_TPC_KERNEL;
	pkt.hdr.size = sizeof(pkt);
	pkt.kernel_id = kernel_id;
	pkt.num_tensors = num_tensors;
	memcpy(pkt.tensors, tensors, num_tensors * sizeof(*tensors));
	if (num_params)
		memcpy(pkt.params, params, num_params * sizeof(*params));
	ret = hpu_tpc_check(&pkt);
	if (ret)
		return ret;
	return hpudrv_cb_append(b, &pkt, sizeof(pkt));
}
