/* SPDX-License-Identifier: MIT */
/*
 * tpc_lib.h - internals of the TPC kernel library (libhputpc/): the
 * registry entry, and the helpers the kernel files share. Operands and
 * invocations (struct tpc_t, struct tpc_ctx) are in include/hputpc.h.
 */
#ifndef TPC_LIB_H
#define TPC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hpu_tpc_check.h"
#include "hputpc.h"

/* Kernel body: 0, or -EIO for data the kernel refuses (bad ids/labels) */
typedef int (*tpc_exec_fn)(struct tpc_ctx *c);

static inline float tpc_pf(const struct tpc_ctx *c, unsigned int i)
{
	float f;

	memcpy(&f, &c->params[i], sizeof(f));
	return f;
}

static inline float tpc_bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* binary32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN */
static inline uint16_t tpc_f2bf(float f)
{
	uint32_t u;

	uint32_t r;

	memcpy(&u, &f, sizeof(u));
	r = (u + 0x7fffU + ((u >> 16) & 1)) >> 16;
	/* a select, not a branch: the conversion loops vectorize */
	return (uint16_t)((u & 0x7fffffffU) > 0x7f800000U ? (u >> 16) | 0x40 :
							    r);
}

/* fp32 element @i (elements, not bytes) of a fp32 operand */
static inline float *tpc_f32(const struct tpc_t *t, uint64_t i)
{
	return (float *)(void *)t->p + i;
}

static inline int32_t *tpc_i32(const struct tpc_t *t, uint64_t i)
{
	return (int32_t *)(void *)t->p + i;
}

/* Element offset of the @r-th row (dimension 0 excluded) of @t */
uint64_t tpc_row_off(const struct tpc_t *t, uint64_t r);

/*
 * Run @fn over *@nslices slices of @arg (set here from @nelems: one slice
 * below TPC_PAR_MIN elements or without @c->pool, else one per thread that
 * could help); the slices must be independent of each other
 */
#define TPC_PAR_MIN (1ULL << 18)
void tpc_par_run(const struct tpc_ctx *c,
		 void (*fn)(void *arg, unsigned int slice), void *arg,
		 unsigned int *nslices, uint64_t nelems);

/* tpc_elementwise.c */
int tpc_fill(struct tpc_ctx *c);
int tpc_copy(struct tpc_ctx *c);
int tpc_cast(struct tpc_ctx *c);
int tpc_map(struct tpc_ctx *c);
int tpc_transpose(struct tpc_ctx *c);
int tpc_dropout(struct tpc_ctx *c);

/* tpc_reduce.c */
int tpc_bias_grad(struct tpc_ctx *c);
int tpc_reduce(struct tpc_ctx *c);
int tpc_softmax(struct tpc_ctx *c);
int tpc_xent_fwd(struct tpc_ctx *c);
int tpc_xent_bwd(struct tpc_ctx *c);
int tpc_argmax(struct tpc_ctx *c);
int tpc_accuracy(struct tpc_ctx *c);

/* tpc_norm.c */
int tpc_ln_fwd(struct tpc_ctx *c);
int tpc_ln_bwd(struct tpc_ctx *c);
int tpc_gather(struct tpc_ctx *c);
int tpc_scatter_add(struct tpc_ctx *c);

/* tpc_optim.c */
int tpc_sgd(struct tpc_ctx *c);
int tpc_adamw(struct tpc_ctx *c);

/* tpc_accumulate.c */
int tpc_accumulate(struct tpc_ctx *c);

#endif /* TPC_LIB_H */
