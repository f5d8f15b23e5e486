// SPDX-License-Identifier: MIT
/*
 * step_host.c - the reference of hpu-bench step: the step's ops run on
 * a copy of the arena in this process, the GEMMs with cblas_sgemm, the
 * TPC kernels as plain loops, the DMAs as memcpy from the batch and of
 * the loss. mode_step.c times it as the host path and compares its first
 * loss with the device's.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "step.h"

float *bench_step_hf(struct step_run *r, uint64_t va)
{
	return (float *)(r->host + (va - r->va));
}

static void host_tpc(struct step_run *r, const struct op *o)
{
	const struct hpu_tpc_tensor *t = o->t;
	uint32_t cols = t[0].sizes[0];
	uint32_t rows = t[0].ndims > 1 ? t[0].sizes[1] : 1;
	uint32_t i, j, n = rows * cols;
	float *a = bench_step_hf(r, t[0].addr), *b = NULL, *c = NULL, alpha;
	const int32_t *lab;
	double sum = 0;

	if (o->nt > 1)
		b = bench_step_hf(r, t[1].addr);
	if (o->nt > 2)
		c = bench_step_hf(r, t[2].addr);
	switch (o->kid) {
	case HPU_TPC_KERNEL_BIAS_ADD:
		for (i = 0; i < rows; i++)
			for (j = 0; j < cols; j++)
				c[i * cols + j] = a[i * cols + j] + b[j];
		break;
	case HPU_TPC_KERNEL_RELU:
		for (i = 0; i < n; i++)
			b[i] = a[i] > 0 ? a[i] : 0;
		break;
	case HPU_TPC_KERNEL_RELU_BWD:
		for (i = 0; i < n; i++)
			c[i] = a[i] > 0 ? b[i] : 0;
		break;
	case HPU_TPC_KERNEL_BIAS_GRAD:
		for (j = 0; j < cols; j++)
			b[j] = 0;
		for (i = 0; i < rows; i++)
			for (j = 0; j < cols; j++)
				b[j] += a[i * cols + j];
		break;
	case HPU_TPC_KERNEL_AXPY:
		memcpy(&alpha, &o->p[0], sizeof(alpha));
		for (i = 0; i < n; i++)
			c[i] = alpha * a[i] + b[i];
		break;
	case HPU_TPC_KERNEL_XENT_FWD:
	case HPU_TPC_KERNEL_XENT_BWD:
		lab = (const int32_t *)b;
		for (i = 0; i < rows; i++) {
			const float *x = a + i * cols;
			float mx = x[0], s = 0;

			for (j = 1; j < cols; j++)
				mx = x[j] > mx ? x[j] : mx;
			for (j = 0; j < cols; j++)
				s += expf(x[j] - mx);
			if (o->kid == HPU_TPC_KERNEL_XENT_FWD) {
				sum += mx + logf(s) - x[lab[i]];
				continue;
			}
			for (j = 0; j < cols; j++)
				c[i * cols + j] =
					(expf(x[j] - mx) / s -
					 (j == (uint32_t)lab[i] ? 1.0f : 0)) /
					(float)rows;
		}
		if (o->kid == HPU_TPC_KERNEL_XENT_FWD)
			*c = (float)(sum / rows);
		break;
	}
}

void bench_step_host_op(struct step_run *r, const struct op *o, void *loss_out)
{
	const struct hpu_pkt_mme_gemm *g = &o->g;
	int i;

	switch (o->kind) {
	case OP_DMA:
		if (o->dst[0] == r->pin_va + r->in_bytes) {
			memcpy(loss_out, bench_step_hf(r, o->src[0]),
			       o->size[0]);
			break;
		}
		for (i = 0; i < 2; i++)
			memcpy(bench_step_hf(r, o->dst[i]),
			       r->input + (o->src[i] - r->pin_va), o->size[i]);
		break;
	case OP_GEMM:
		cblas_sgemm(CblasRowMajor,
			    g->hdr.flags & HPU_MME_F_TRANS_A ? CblasTrans :
							       CblasNoTrans,
			    g->hdr.flags & HPU_MME_F_TRANS_B ? CblasTrans :
							       CblasNoTrans,
			    (int)g->m, (int)g->n, (int)g->k, 1.0f,
			    bench_step_hf(r, g->a_addr), (int)g->lda,
			    bench_step_hf(r, g->b_addr), (int)g->ldb, 0.0f,
			    bench_step_hf(r, g->c_addr), (int)g->ldc);
		break;
	case OP_TPC:
		host_tpc(r, o);
		break;
	}
}
