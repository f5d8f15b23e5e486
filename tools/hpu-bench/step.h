/* SPDX-License-Identifier: MIT */
/*
 * step.h - what the files of hpu-bench step share: the step as a list of
 * ops on three queues (step_ops.c builds it), the arena the ops work in
 * (in HBM and, for the host reference, in this process: step_host.c),
 * and the run that mode_step.c sets up, submits and times.
 */
#ifndef HPU_BENCH_STEP_H
#define HPU_BENCH_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_tpc_kernels.h"
#include "hpudrv.h"

/* the queues of the step: a DMA, an MME and a TPC queue */
enum {
	Q_DMA,
	Q_MME,
	Q_TPC,
	NQ
};

#define BATCH	    64
#define MAX_LAYER   3
#define MAX_OPS	    40
#define ARENA_ALIGN 256
#define LR	    0.05f

enum op_kind {
	OP_DMA,
	OP_GEMM,
	OP_TPC,
};

/**
 * struct op - one op of the step
 * @q: Q_DMA, Q_MME or Q_TPC
 * @kind: what it runs
 * @dst: OP_DMA: destination VA (up to two copies)
 * @src: OP_DMA: source VA
 * @size: OP_DMA: bytes (0: unused)
 * @g: OP_GEMM: the packet
 * @kid: OP_TPC: kernel id
 * @t: OP_TPC: operands
 * @nt: OP_TPC: operands used
 * @p: OP_TPC: parameters
 * @np: OP_TPC: parameters used
 * @cb: eager: a CB of its own, built once
 */
struct op {
	int q;
	enum op_kind kind;
	uint64_t dst[2], src[2], size[2];
	struct hpu_pkt_mme_gemm g;
	uint32_t kid;
	struct hpu_tpc_tensor t[4];
	unsigned int nt;
	uint32_t p[2];
	unsigned int np;
	struct hpu_cb_builder *cb;
};

/* Byte offsets of the tensors in the arena (device and host alike) */
struct layout {
	uint64_t x, labels, loss;
	uint64_t w[MAX_LAYER], b[MAX_LAYER], z[MAX_LAYER], a[MAX_LAYER];
	uint64_t dw[MAX_LAYER], db[MAX_LAYER], dz[MAX_LAYER], da[MAX_LAYER];
	uint64_t size;
};

/* One run of the benchmark */
struct step_run {
	const uint32_t *dims; /* layer widths, nlayer + 1 of them */
	unsigned int nlayer;  /* 3, or 2 with -l 2 */
	struct hpu_device *dev;
	uint32_t queue[NQ];
	struct hpu_cb_builder *cb[NQ];
	struct hpu_cb_builder *nop_cb[NQ]; /* the program with NOP ops */
	struct op ops[MAX_OPS];
	unsigned int nops;
	struct layout l;
	uint64_t h, va;	 /* the arena in HBM */
	void *pin;	 /* pinned: input staging, then the loss */
	uint64_t pin_va; /* device VA of @pin */
	uint8_t *host;	 /* the host reference's arena */
	uint8_t *input;	 /* the batch: x then labels */
	size_t in_bytes;
};

/* step_ops.c: the arena's layout for r->dims, and the ops of one step */
void bench_step_lay_out(struct step_run *r);
void bench_step_build_ops(struct step_run *r);

/* step_host.c: the host reference's float at device VA @va of the arena */
float *bench_step_hf(struct step_run *r, uint64_t va);
/* step_host.c: run op @o on the host arena (the loss DMA into @loss_out) */
void bench_step_host_op(struct step_run *r, const struct op *o, void *loss_out);

#endif /* HPU_BENCH_STEP_H */
