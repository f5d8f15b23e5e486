// SPDX-License-Identifier: MIT
/*
 * cb_mme.c - the MME_GEMM emitter of the command-buffer builder.
 */
#include <errno.h>

#include "hpudrv_internal.h"

int hpu_cb_mme_gemm(struct hpu_cb_builder *b,
		    const struct hpu_pkt_mme_gemm *gemm)
{
	(void)b;
	(void)gemm;
	return -EOPNOTSUPP; /* until the MME engine lands */
}
