// SPDX-License-Identifier: MIT
/*
 * job_cost.c - what one job does, from its packets: its kind for a trace
 * event, the bytes it moves, its floating-point operations and its time
 * on the timing model's profile (docs/tracing.md, "Fields").
 *
 * The packets were validated by the driver; this only reads them, stops
 * at a malformed header or a STOP, and never fails: a packet it cannot
 * size counts nothing.
 *
 * FLOPs: a GEMM is 2*m*n*k per product; a TPC kernel is its elements
 * (the largest operand) times a per-kernel count of floating-point
 * operations per element (below: an estimate of what the kernel's
 * reference body computes, 0 for kernels that only move data).
 */
#include <string.h>

#include "hpu_tpc_kernels.h"
#include "trace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Floating-point operations per element of each TPC kernel (estimates) */
static const uint8_t tpc_ops[HPU_TPC_KERNEL_COUNT] = {
	[HPU_TPC_KERNEL_FILL] = 0,
	[HPU_TPC_KERNEL_COPY] = 0,
	[HPU_TPC_KERNEL_CAST] = 0,
	[HPU_TPC_KERNEL_ADD] = 1,
	[HPU_TPC_KERNEL_SUB] = 1,
	[HPU_TPC_KERNEL_MUL] = 1,
	[HPU_TPC_KERNEL_DIV] = 1,
	[HPU_TPC_KERNEL_SCALE] = 1,
	[HPU_TPC_KERNEL_AXPY] = 2,
	[HPU_TPC_KERNEL_RELU] = 1,
	[HPU_TPC_KERNEL_RELU_BWD] = 1,
	[HPU_TPC_KERNEL_GELU] = 8,
	[HPU_TPC_KERNEL_GELU_BWD] = 12,
	[HPU_TPC_KERNEL_TANH] = 6,
	[HPU_TPC_KERNEL_TANH_BWD] = 2,
	[HPU_TPC_KERNEL_SIGMOID] = 4,
	[HPU_TPC_KERNEL_SIGMOID_BWD] = 2,
	[HPU_TPC_KERNEL_EXP] = 4,
	[HPU_TPC_KERNEL_LOG] = 4,
	[HPU_TPC_KERNEL_BIAS_ADD] = 1,
	[HPU_TPC_KERNEL_BIAS_GRAD] = 1,
	[HPU_TPC_KERNEL_REDUCE_SUM] = 1,
	[HPU_TPC_KERNEL_REDUCE_MEAN] = 1,
	[HPU_TPC_KERNEL_REDUCE_MAX] = 1,
	[HPU_TPC_KERNEL_SOFTMAX] = 6,
	[HPU_TPC_KERNEL_LOG_SOFTMAX] = 6,
	[HPU_TPC_KERNEL_XENT_FWD] = 6,
	[HPU_TPC_KERNEL_XENT_BWD] = 6,
	[HPU_TPC_KERNEL_LAYERNORM_FWD] = 8,
	[HPU_TPC_KERNEL_LAYERNORM_BWD] = 12,
	[HPU_TPC_KERNEL_EMBED_GATHER] = 0,
	[HPU_TPC_KERNEL_EMBED_SCATTER_ADD] = 1,
	[HPU_TPC_KERNEL_TRANSPOSE] = 0,
	[HPU_TPC_KERNEL_DROPOUT] = 2,
	[HPU_TPC_KERNEL_ARGMAX] = 1,
	[HPU_TPC_KERNEL_ACCURACY] = 1,
	[HPU_TPC_KERNEL_SGD_STEP] = 5,
	[HPU_TPC_KERNEL_ADAMW_STEP] = 14,
	[HPU_TPC_KERNEL_ACCUMULATE] = 2,
	[HPU_TPC_KERNEL_SOFTMAX_CAUSAL] = 7,
	[HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD] = 4,
	[HPU_TPC_KERNEL_SUMSQ] = 2,
	[HPU_TPC_KERNEL_CLIP_GRAD_NORM] = 1,
	[HPU_TPC_KERNEL_KV_CACHE_WRITE] = 0,
	[HPU_TPC_KERNEL_BIAS_RESIDUAL_LN] = 10,
	[HPU_TPC_KERNEL_BIAS_GELU] = 9,
};

/**
 * hpusim_tpc_kernel_flops() - floating-point operations of a TPC kernel
 * @kernel_id: HPU_TPC_KERNEL_*
 * @elements: elements it computes
 *
 * Return: the estimate (0 for an unknown kernel or one that moves data).
 */
uint64_t hpusim_tpc_kernel_flops(uint32_t kernel_id, uint64_t elements)
{
	if (kernel_id >= ARRAY_SIZE(tpc_ops))
		return 0;
	return elements * tpc_ops[kernel_id];
}

static uint32_t dtype_bytes(uint32_t dtype)
{
	return dtype == HPU_DTYPE_BF16 ? 2 : 4;
}

static enum hpusim_tm_dtype tm_dtype(uint32_t dtype)
{
	return dtype == HPU_DTYPE_BF16 ? HPUSIM_TM_BF16 : HPUSIM_TM_FP32;
}

static bool va_is_host(uint64_t va)
{
	return va >= HPU_FW_VA_HOST_BASE && va < HPU_FW_VA_HOST_END;
}

/* What one work packet costs: one of the HPU_TRACE_KIND_* it is */
struct pkt_cost {
	uint16_t kind;
	uint64_t bytes;
	uint64_t flops;
	struct hpusim_tm_job tm;
	bool timed;
};

static void gemm_cost(const struct hpu_pkt_mme_gemm *p, struct pkt_cost *pc)
{
	uint64_t m = p->m, n = p->n, k = p->k, b = p->batch ? p->batch : 1;
	uint64_t ab = dtype_bytes(p->dtype_ab), c = dtype_bytes(p->dtype_c);

	pc->kind = HPU_TRACE_KIND_GEMM;
	pc->flops = 2 * m * n * k * b;
	pc->bytes = (m * k * (p->stride_a ? b : 1) +
		     k * n * (p->stride_b ? b : 1)) *
			    ab +
		    m * n * c * b * (p->beta ? 2 : 1);
	pc->tm.kind = HPUSIM_TM_JOB_GEMM;
	pc->tm.gemm = (struct hpusim_tm_gemm){
		.m = p->m,
		.n = p->n,
		.k = p->k,
		.batch = (uint32_t)b,
		.dtype = tm_dtype(p->dtype_ab),
		.dtype_c = tm_dtype(p->dtype_c),
		.read_c = p->beta != 0,
		.engines = 1,
	};
	pc->timed = m && n && k;
}

static void tpc_cost(const struct hpu_pkt_tpc_kernel *p, struct pkt_cost *pc)
{
	uint64_t most = 0;
	uint32_t i, d, nt = p->num_tensors;

	if (nt > HPU_TPC_MAX_TENSORS)
		nt = HPU_TPC_MAX_TENSORS;
	pc->kind = HPU_TRACE_KIND_TPC;
	for (i = 0; i < nt; i++) {
		const struct hpu_tpc_tensor *t = &p->tensors[i];
		uint64_t el = 1;

		for (d = 0; d < t->ndims && d < HPU_TPC_MAX_DIMS; d++)
			el *= t->sizes[d];
		pc->bytes += el * dtype_bytes(t->dtype);
		if (el > most)
			most = el;
	}
	pc->flops = hpusim_tpc_kernel_flops(p->kernel_id, most);
	pc->tm.kind = HPUSIM_TM_JOB_TPC;
	pc->tm.tpc = (struct hpusim_tm_tpc){
		.elements = most,
		.ops_per_element = p->kernel_id < ARRAY_SIZE(tpc_ops) ?
					   tpc_ops[p->kernel_id] :
					   0,
		.bytes = pc->bytes,
		.dtype = nt ? tm_dtype(p->tensors[0].dtype) : HPUSIM_TM_FP32,
		.engines = 1,
	};
	pc->timed = true;
}

static void dma_cost(uint64_t dst, uint64_t src, uint64_t bytes, bool fill,
		     struct pkt_cost *pc)
{
	bool hd = va_is_host(dst), hs = va_is_host(src);

	pc->kind = fill ? HPU_TRACE_KIND_MEMSET : HPU_TRACE_KIND_DMA;
	pc->bytes = bytes;
	pc->tm.kind = HPUSIM_TM_JOB_DMA;
	pc->tm.dma.bytes = bytes;
	pc->tm.dma.engines = 1;
	if (fill)
		pc->tm.dma.dir = hd ? HPUSIM_TM_FILL_H : HPUSIM_TM_FILL_D;
	else if (hs && hd)
		pc->tm.dma.dir = HPUSIM_TM_H2H;
	else if (hs)
		pc->tm.dma.dir = HPUSIM_TM_H2D;
	else if (hd)
		pc->tm.dma.dir = HPUSIM_TM_D2H;
	else
		pc->tm.dma.dir = HPUSIM_TM_D2D;
	pc->timed = true;
}

static void nic_cost(const struct hpu_pkt_nic_write *p,
		     const struct hpusim_tm_profile *tm, uint32_t port,
		     struct pkt_cost *pc)
{
	pc->kind = HPU_TRACE_KIND_NIC;
	pc->bytes = p->size;
	pc->tm.kind = HPUSIM_TM_JOB_NIC;
	pc->tm.nic.bytes = p->size;
	pc->tm.nic.ports = 1;
	pc->tm.nic.scale_out = tm && port >= tm->nic_scaleup_ports;
	pc->timed = true;
}

/* The cost of the work packet @h, false when it is no work packet */
static bool packet_cost(const struct hpu_pkt_hdr *h,
			const struct hpusim_tm_profile *tm, uint32_t nic_port,
			struct pkt_cost *pc)
{
	memset(pc, 0, sizeof(*pc));
	switch (h->opcode) {
	case HPU_PACKET_LIN_DMA: {
		const struct hpu_pkt_lin_dma *p = (const void *)h;

		if (h->size != sizeof(*p))
			return false;
		dma_cost(p->dst_addr, p->src_addr, p->size, false, pc);
		return true;
	}
	case HPU_PACKET_MEMSET: {
		const struct hpu_pkt_memset *p = (const void *)h;

		if (h->size != sizeof(*p))
			return false;
		dma_cost(p->dst_addr, p->dst_addr, p->size, true, pc);
		return true;
	}
	case HPU_PACKET_MME_GEMM:
		if (h->size != sizeof(struct hpu_pkt_mme_gemm))
			return false;
		gemm_cost((const void *)h, pc);
		return true;
	case HPU_PACKET_TPC_KERNEL:
		if (h->size != sizeof(struct hpu_pkt_tpc_kernel))
			return false;
		tpc_cost((const void *)h, pc);
		return true;
	case HPU_PACKET_NIC_WRITE:
		if (h->size != sizeof(struct hpu_pkt_nic_write))
			return false;
		nic_cost((const void *)h, tm, nic_port, pc);
		return true;
	default:
		return false;
	}
}

/**
 * hpusim_job_cost() - classify and cost the packets of one job
 * @dev: device
 * @tm: the timing model's profile of @dev, or NULL (model_ns stays 0)
 * @engine: engine id of the job's queue
 * @cb: the job's packets
 * @size: bytes at @cb
 * @out: receives the kind, detail, bytes, FLOPs, modeled time and the
 *	sync objects of the job's last FENCE and MSG_LONG
 */
void hpusim_job_cost(const struct hpu_fw_device *dev,
		     const struct hpusim_tm_profile *tm, uint32_t engine,
		     const uint8_t *cb, uint32_t size,
		     struct hpusim_job_cost *out)
{
	uint32_t nic_base = dev->engine_base[HPUSIM_ENGINE_NIC];
	uint32_t port = engine >= nic_base ? engine - nic_base : 0;
	uint32_t pc = 0, kinds = 0;
	struct pkt_cost c;

	memset(out, 0, sizeof(*out));
	out->kind = HPU_TRACE_KIND_SYNC;
	out->fence_sob = ~0U;
	out->signal_sob = ~0U;
	while (pc + sizeof(struct hpu_pkt_hdr) <= size) {
		const struct hpu_pkt_hdr *h = (const void *)(cb + pc);
		uint64_t ns;

		if (h->size < sizeof(*h) || h->size > size - pc ||
		    h->opcode == HPU_PACKET_STOP)
			break;
		pc += h->size;
		if (h->opcode == HPU_PACKET_FENCE &&
		    h->size == sizeof(struct hpu_pkt_fence)) {
			out->fence_sob =
				((const struct hpu_pkt_fence *)h)->sob_id;
			continue;
		}
		if (h->opcode == HPU_PACKET_MSG_LONG &&
		    h->size == sizeof(struct hpu_pkt_msg_long)) {
			out->signal_sob =
				((const struct hpu_pkt_msg_long *)h)->sob_id;
			continue;
		}
		if (!packet_cost(h, tm, port, &c))
			continue;
		kinds |= 1U << c.kind;
		out->kind = c.kind;
		out->bytes += c.bytes;
		out->flops += c.flops;
		if (c.kind == HPU_TRACE_KIND_TPC)
			out->detail = ((const struct hpu_pkt_tpc_kernel *)h)
					      ->kernel_id;
		else if (c.kind == HPU_TRACE_KIND_NIC)
			out->detail = port;
		if (tm && c.timed && !hpusim_tm_job_ns(tm, &c.tm, &ns))
			out->model_ns += ns;
	}
	if (kinds & (kinds - 1))
		out->kind = HPU_TRACE_KIND_MIXED;
}
