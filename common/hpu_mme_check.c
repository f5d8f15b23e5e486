// SPDX-License-Identifier: MIT
/*
 * hpu_mme_check.c - the rules of an MME_GEMM packet (docs/mme.md), one
 * implementation for the driver's validator and the host-side emitter.
 */
#include <errno.h>

#include "hpu_mme_check.h"

/* The operand's extent over all products fits 64 bits and the VA space */
static int check_operand(const struct hpu_pkt_mme_gemm *g, unsigned int which)
{
	struct hpu_mme_operand op;
	uint64_t elems, last, bytes;

	hpu_mme_operand(g, which, &op);
	if (op.ld < op.cols || op.ld > HPU_MME_MAX_DIM || op.addr % op.esize)
		return -EINVAL;
	/* elements from the first to one past the last of the last product */
	if (__builtin_mul_overflow((uint64_t)g->batch - 1, op.stride, &last) ||
	    __builtin_add_overflow(last, ((uint64_t)op.rows - 1) * op.ld,
				   &elems) ||
	    __builtin_add_overflow(elems, (uint64_t)op.cols, &elems) ||
	    __builtin_mul_overflow(elems, (uint64_t)op.esize, &bytes) ||
	    op.addr + bytes < op.addr)
		return -EINVAL;
	return 0;
}

int hpu_mme_gemm_check(const struct hpu_pkt_mme_gemm *g)
{
	unsigned int i;

	if (g->hdr.opcode != HPU_PACKET_MME_GEMM || g->hdr.size != sizeof(*g) ||
	    g->hdr.reserved ||
	    (g->hdr.flags & ~(HPU_PKT_F_COMMON_MASK | HPU_MME_F_MASK)))
		return -EINVAL;
	if (!hpu_mme_dtype_size(g->dtype_ab) || !hpu_mme_dtype_size(g->dtype_c))
		return -EINVAL;
	if (!g->m || !g->n || !g->k || !g->batch || g->m > HPU_MME_MAX_DIM ||
	    g->n > HPU_MME_MAX_DIM || g->k > HPU_MME_MAX_DIM)
		return -EINVAL;
	/* the products' outputs never overlap */
	if (g->batch > 1 && g->stride_c < (uint64_t)g->m * g->ldc)
		return -EINVAL;
	for (i = HPU_MME_OP_A; i <= HPU_MME_OP_C; i++)
		if (check_operand(g, i))
			return -EINVAL;
	return 0;
}
