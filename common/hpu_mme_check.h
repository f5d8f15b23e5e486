/* SPDX-License-Identifier: MIT */
/*
 * hpu_mme_check.h - the rules of an MME_GEMM packet, shared by the
 * driver's packet validator (fusedev) and the host-side emitter
 * (libhpudrv), so both accept exactly the same packets.
 */
#ifndef HPU_MME_CHECK_H
#define HPU_MME_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_packets.h"

/**
 * struct hpu_mme_operand - how one operand (A, B or C) is stored
 * @addr: device VA of its first product's element (0, 0)
 * @stride: elements from one product's matrix to the next
 * @rows: rows as stored
 * @cols: elements of a row as stored
 * @ld: elements between rows as stored
 * @esize: bytes of an element
 */
struct hpu_mme_operand {
	uint64_t addr;
	uint64_t stride;
	uint32_t rows;
	uint32_t cols;
	uint32_t ld;
	uint32_t esize;
};

/* Largest m, n, k and leading dimension (the BLAS takes int) */
#define HPU_MME_MAX_DIM 0x7fffffffU

/* Operand indices of hpu_mme_operand() */
#define HPU_MME_OP_A 0
#define HPU_MME_OP_B 1
#define HPU_MME_OP_C 2

/**
 * hpu_mme_dtype_size() - bytes of an MME element type
 * @dtype: HPU_DTYPE_*
 *
 * Return: 4 (FP32), 2 (BF16), or 0 for a type the MME does not take.
 */
static inline unsigned int hpu_mme_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case HPU_DTYPE_FP32:
		return 4;
	case HPU_DTYPE_BF16:
		return 2;
	default:
		return 0;
	}
}

/**
 * hpu_mme_gemm_check() - check every field of an MME_GEMM packet
 * @g: the packet
 *
 * Rules (docs/mme.md): header opcode/size/flags/reserved; dtypes FP32 or
 * BF16; m, n, k, batch >= 1; m, n, k, lda, ldb, ldc <= HPU_MME_MAX_DIM; lda >= stored row length of A (k, or m when
 * transposed), ldb >= that of B (n, or k), ldc >= n; addresses aligned to
 * their element size; stride_c >= m * ldc when batch > 1; no operand's
 * extent (all batches) overflows 64 bits or wraps the address space.
 *
 * Return: 0 or -EINVAL.
 */
int hpu_mme_gemm_check(const struct hpu_pkt_mme_gemm *g);

/**
 * hpu_mme_operand() - storage of operand @which of a GEMM
 * @g: the packet
 * @which: HPU_MME_OP_A, _B or _C
 * @op: out: its storage
 */
static inline void hpu_mme_operand(const struct hpu_pkt_mme_gemm *g,
				   unsigned int which,
				   struct hpu_mme_operand *op)
{
	bool ta = g->hdr.flags & HPU_MME_F_TRANS_A;
	bool tb = g->hdr.flags & HPU_MME_F_TRANS_B;

	switch (which) {
	case HPU_MME_OP_A:
		op->addr = g->a_addr;
		op->stride = g->stride_a;
		op->rows = ta ? g->k : g->m;
		op->cols = ta ? g->m : g->k;
		op->ld = g->lda;
		op->esize = hpu_mme_dtype_size(g->dtype_ab);
		break;
	case HPU_MME_OP_B:
		op->addr = g->b_addr;
		op->stride = g->stride_b;
		op->rows = tb ? g->n : g->k;
		op->cols = tb ? g->k : g->n;
		op->ld = g->ldb;
		op->esize = hpu_mme_dtype_size(g->dtype_ab);
		break;
	default:
		op->addr = g->c_addr;
		op->stride = g->stride_c;
		op->rows = g->m;
		op->cols = g->n;
		op->ld = g->ldc;
		op->esize = hpu_mme_dtype_size(g->dtype_c);
		break;
	}
}

/**
 * hpu_mme_matrix_bytes() - bytes one product's matrix of @op spans
 * @op: operand of a packet that passed hpu_mme_gemm_check()
 *
 * Return: ((rows - 1) * ld + cols) * esize.
 */
static inline uint64_t hpu_mme_matrix_bytes(const struct hpu_mme_operand *op)
{
	return (((uint64_t)op->rows - 1) * op->ld + op->cols) * op->esize;
}

#endif /* HPU_MME_CHECK_H */
