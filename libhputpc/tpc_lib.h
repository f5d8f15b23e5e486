/* SPDX-License-Identifier: MIT */
/*
 * tpc_lib.h - internals of the TPC kernel library (libhputpc/): the
 * registry entry, and the helpers the kernel files share. Operands and
 * invocations (struct hputpc_operand, struct hputpc_ctx) are in include/hputpc.h.
 */
#ifndef HPUTPC_LIB_H
#define HPUTPC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hpu_tpc_check.h"
#include "hpu_bf16.h"
#include "hputpc.h"

/* Kernel body: 0, or -EIO for data the kernel refuses (bad ids/labels) */
typedef int (*hputpc_exec_fn)(struct hputpc_ctx *c);

static inline float hputpc_pf(const struct hputpc_ctx *c, unsigned int i)
{
	float f;

	memcpy(&f, &c->params[i], sizeof(f));
	return f;
}

/* fp32 element @i (elements, not bytes) of a fp32 operand */
static inline float *hputpc_f32(const struct hputpc_operand *t, uint64_t i)
{
	return (float *)(void *)t->p + i;
}

static inline int32_t *hputpc_i32(const struct hputpc_operand *t, uint64_t i)
{
	return (int32_t *)(void *)t->p + i;
}

/* Element offset of the @r-th row (dimension 0 excluded) of @t */
uint64_t hputpc_row_off(const struct hputpc_operand *t, uint64_t r);

/*
 * Run @fn over *@nslices slices of @arg (set here from @nelems: one slice
 * below HPUTPC_PAR_MIN elements or without @c->pool, else one per thread that
 * could help); the slices must be independent of each other
 */
#define HPUTPC_PAR_MIN (1ULL << 18)
void hputpc_par_run(const struct hputpc_ctx *c,
		    void (*fn)(void *arg, unsigned int slice), void *arg,
		    unsigned int *nslices, uint64_t nelems);

/* tpc_elementwise.c */
int hputpc_fill(struct hputpc_ctx *c);
int hputpc_copy(struct hputpc_ctx *c);
int hputpc_cast(struct hputpc_ctx *c);
int hputpc_map(struct hputpc_ctx *c);
int hputpc_transpose(struct hputpc_ctx *c);
int hputpc_dropout(struct hputpc_ctx *c);

/* tpc_reduce.c */
int hputpc_bias_grad(struct hputpc_ctx *c);
int hputpc_reduce(struct hputpc_ctx *c);
int hputpc_softmax(struct hputpc_ctx *c);
int hputpc_xent_fwd(struct hputpc_ctx *c);
int hputpc_xent_bwd(struct hputpc_ctx *c);
int hputpc_argmax(struct hputpc_ctx *c);
int hputpc_accuracy(struct hputpc_ctx *c);

/* tpc_norm.c */
int hputpc_ln_fwd(struct hputpc_ctx *c);
int hputpc_ln_bwd(struct hputpc_ctx *c);
int hputpc_gather(struct hputpc_ctx *c);
int hputpc_scatter_add(struct hputpc_ctx *c);

/* tpc_optim.c */
int hputpc_sgd(struct hputpc_ctx *c);
int hputpc_adamw(struct hputpc_ctx *c);

/* tpc_accumulate.c */
int hputpc_accumulate(struct hputpc_ctx *c);

#endif /* HPUTPC_LIB_H */
