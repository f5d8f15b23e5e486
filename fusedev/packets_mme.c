// SPDX-License-Identifier: MIT
/*
 * packets_mme.c - validation of MME_GEMM packets (uapi/hpu_packets.h).
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"

/**
 * hpu_check_mme_gemm() - check the fields of an MME_GEMM packet
 * @p: the packet (its header was checked already)
 *
 * Return: 0 or -EINVAL. Until the MME engine lands every GEMM is refused.
 */
int hpu_check_mme_gemm(const uint8_t *p)
{
	(void)p;
	return -EINVAL;
}
