// SPDX-License-Identifier: MIT
/*
 * packets_tpc.c - validation of TPC_KERNEL packets against the kernel
 * library's operand rules (uapi/hpu_tpc_kernels.h, docs/tpc-kernels.md).
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"
#include "hputpc_check.h"

/**
 * hfd_check_tpc_kernel() - check a TPC_KERNEL packet's kernel, tensors and
 * parameters
 * @p: the packet (its header was checked already)
 *
 * Return: 0 or -EINVAL (libhputpc has the rules, hputpc_check.h).
 */
int hfd_check_tpc_kernel(const uint8_t *p)
{
	struct hpu_pkt_tpc_kernel pkt;

	memcpy(&pkt, p, sizeof(pkt)); /* the CB copy may be unaligned */
	return hputpc_check(&pkt);
}
