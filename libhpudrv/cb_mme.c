// SPDX-License-Identifier: MIT
/*
 * cb_mme.c - the MME_GEMM emitter of the command-buffer builder.
 */
#include <errno.h>

#include "hpu_mme_check.h"
#include "hpudrv_internal.h"

int hpu_cb_mme_gemm(struct hpu_cb_builder *b,
		    const struct hpu_pkt_mme_gemm *gemm)
{
	struct hpu_pkt_mme_gemm p;

	if (!b || !gemm)
		return -EINVAL;
	p = *gemm;
	p.hdr.opcode = HPU_PACKET_MME_GEMM;
	p.hdr.size = sizeof(p);
	p.hdr.reserved = 0;
	if (hpu_mme_gemm_check(&p))
		return -EINVAL;
	return hpudrv_cb_append(b, &p, sizeof(p));
}
