// SPDX-License-Identifier: MIT
/*
 * packets_mme.c - validation of MME_GEMM packets (uapi/hpu_packets.h).
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"
#include "hpu_mme_check.h"

/**
 * hfd_check_mme_gemm() - check the fields of an MME_GEMM packet
 * @p: the packet (its header was checked already)
 *
 * The rules are common/hpu_mme_check.c's, shared with libhpudrv.
 *
 * Return: 0 or -EINVAL.
 */
int hfd_check_mme_gemm(const uint8_t *p)
{
	struct hpu_pkt_mme_gemm g;

	memcpy(&g, p, sizeof(g));
	return hpu_mme_gemm_check(&g);
}
