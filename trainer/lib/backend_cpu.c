// SPDX-License-Identifier: MIT
/*
 * backend_cpu.c - the cpu backend: every op runs at once on the host.
 * GEMMs are OpenBLAS cblas_sgemm calls with the MME's semantics (bf16
 * operands widened exactly, a bf16 C rounded once at the end, as
 * firmware-sim/mme.c does) and its thread rule (common/hpu_blas.h: the
 * thread count decides the order of a product's additions); every other
 * op is the TPC kernel library's own code through its host entry, so
 * --accelerator cpu computes the device's bits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "hpu_bf16.h"
#include "hpu_blas.h"
#include "hpu_mme_check.h"
#include "hputpc.h"
#include "ht_backend.h"
#include "ht_error.h"

static int cpu_init(struct ht_backend *be, const struct ht_backend_opts *o)
{
	return 0;
}

static void cpu_fini(struct ht_backend *be)
{
}

static int cpu_mem_alloc(struct ht_backend *be, uint64_t size, uint64_t *addr)
{
	void *p;

	if (posix_memalign(&p, 4096, size))
		return -ENOMEM;
	*addr = (uintptr_t)p;
	return 0;
}

static void cpu_mem_free(struct ht_backend *be, uint64_t addr)
{
	free((void *)(uintptr_t)addr);
}

static int cpu_upload(struct ht_backend *be, uint64_t dst, const void *src,
		      size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

static int cpu_fetch(struct ht_backend *be, void *dst, uint64_t src, size_t n)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static int cpu_copy(struct ht_backend *be, uint64_t dst, uint64_t src, size_t n)
{
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return 0;
}

/* Matrix @i of a bf16 operand widened to packed fp32 (ld = its columns) */
static void widen(const struct hpu_mme_operand *op, uint32_t i, float *dst)
{
	const uint16_t *src = (const uint16_t *)(uintptr_t)op->addr +
			      (uint64_t)i * op->stride;
	uint32_t r, c;

	for (r = 0; r < op->rows; r++)
		for (c = 0; c < op->cols; c++)
			dst[(uint64_t)r * op->cols + c] =
				hpu_bf16_to_f32(src[(uint64_t)r * op->ld + c]);
}

/* Pointer and ld of matrix @i of an operand as the BLAS reads it */
static const float *operand(const struct hpu_mme_operand *op, uint32_t i,
			    float *tmp, int *ld)
{
	if (op->esize == 4) {
		*ld = (int)op->ld;
		return (const float *)(uintptr_t)op->addr +
		       (uint64_t)i * op->stride;
	}
	widen(op, i, tmp);
	*ld = (int)op->cols;
	return tmp;
}

static int cpu_gemm(struct ht_backend *be, const struct hpu_pkt_mme_gemm *gin)
{
	struct hpu_mme_operand a, b, c;
	struct hpu_pkt_mme_gemm g = *gin;
	float *ta = NULL, *tb = NULL, *tc = NULL, alpha, beta;
	uint32_t i, r, col;
	int ret = -ENOMEM;

	g.hdr.opcode = HPU_PACKET_MME_GEMM;
	g.hdr.size = sizeof(g);
	if (hpu_mme_gemm_check(&g))
		return -EINVAL;
	hpu_mme_operand(&g, HPU_MME_OP_A, &a);
	hpu_mme_operand(&g, HPU_MME_OP_B, &b);
	hpu_mme_operand(&g, HPU_MME_OP_C, &c);
	memcpy(&alpha, &g.alpha, sizeof(alpha));
	memcpy(&beta, &g.beta, sizeof(beta));
	if (a.esize == 2) {
		ta = malloc((uint64_t)a.rows * a.cols * sizeof(float));
		tb = malloc((uint64_t)b.rows * b.cols * sizeof(float));
		if (!ta || !tb)
			goto out_free;
	}
	if (c.esize == 2) {
		tc = malloc((uint64_t)g.m * g.n * sizeof(float));
		if (!tc)
			goto out_free;
	}
	hpu_blas_begin(g.m, g.n, g.k);
	for (i = 0; i < g.batch; i++) {
		uint16_t *cb =
			(uint16_t *)(uintptr_t)c.addr + (uint64_t)i * c.stride;
		float *cf = tc ? tc :
				 (float *)(uintptr_t)c.addr +
					    (uint64_t)i * c.stride;
		int lda, ldb, ldc = tc ? (int)g.n : (int)c.ld;
		const float *pa = operand(&a, i, ta, &lda);
		const float *pb = operand(&b, i, tb, &ldb);

		for (r = 0; tc && beta != 0.0f && r < g.m; r++)
			for (col = 0; col < g.n; col++)
				tc[(uint64_t)r * g.n + col] = hpu_bf16_to_f32(
					cb[(uint64_t)r * c.ld + col]);
		hpu_blas_sgemm(g.hdr.flags & HPU_MME_F_TRANS_A,
			       g.hdr.flags & HPU_MME_F_TRANS_B, g.m, g.n, g.k,
			       alpha, pa, (uint32_t)lda, pb, (uint32_t)ldb,
			       beta, cf, (uint32_t)ldc);
		for (r = 0; tc && r < g.m; r++)
			for (col = 0; col < g.n; col++)
				cb[(uint64_t)r * c.ld + col] = hpu_f32_to_bf16(
					tc[(uint64_t)r * g.n + col]);
	}
	hpu_blas_end();
	ret = 0;
out_free:
	free(ta);
	free(tb);
	free(tc);
	return ret;
}

static int cpu_kernel(struct ht_backend *be, uint32_t id,
		      const struct hpu_tpc_tensor *t, unsigned int nt,
		      const uint32_t *params, unsigned int np, uint32_t dyn)
{
	int ret = hputpc_exec_host(id, t, nt, params, np);

	if (ret == -EIO)
		ht_seterr(
			be->err, sizeof(be->err),
			"TPC kernel %u refused its data (an id or label out of range)",
			id);
	else if (ret == -ENOSYS)
		ht_seterr(be->err, sizeof(be->err),
			  "TPC kernel %u has no body in libhputpc", id);
	return ret;
}

static int cpu_sync(struct ht_backend *be)
{
	return 0;
}

static int cpu_step_begin(struct ht_backend *be, bool graph, unsigned int gid)
{
	return 0;
}

static int cpu_step_end(struct ht_backend *be)
{
	return 0;
}

const struct ht_backend_ops ht_backend_cpu_ops = {
	.name = "cpu",
	.init = cpu_init,
	.fini = cpu_fini,
	.mem_alloc = cpu_mem_alloc,
	.mem_free = cpu_mem_free,
	.upload = cpu_upload,
	.fetch = cpu_fetch,
	.copy = cpu_copy,
	.gemm = cpu_gemm,
	.kernel = cpu_kernel,
	.sync = cpu_sync,
	.step_begin = cpu_step_begin,
	.step_end = cpu_step_end,
};
