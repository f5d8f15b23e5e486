/* SPDX-License-Identifier: MIT */
/*
 * tpc_lib.h - internals of the TPC kernel library: operands as the
 * kernels see them (daemon pointers), the registry entry, and the helpers
 * the kernel files share.
 */
#ifndef TPC_LIB_H
#define TPC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hpu_tpc_check.h"

/**
 * struct tpc_t - one operand, translated
 * @p: daemon pointer of element (0, ...)
 * @dtype: HPU_DTYPE_*
 * @ndims: rank
 * @sizes: sizes; 1 past @ndims
 * @strides: strides in elements; 0 past @ndims
 * @n: elements
 */
struct tpc_t {
	uint8_t *p;
	uint32_t dtype;
	uint32_t ndims;
	uint64_t sizes[HPU_TPC_MAX_DIMS];
	uint64_t strides[HPU_TPC_MAX_DIMS];
	uint64_t n;
};

/**
 * struct tpc_ctx - a kernel invocation
 * @t: operands in the kernel's order
 * @params: the packet's parameters
 * @id: kernel id
 * @nt: operands (the packet's num_tensors)
 */
struct tpc_ctx {
	struct tpc_t t[HPU_TPC_MAX_TENSORS];
	const uint32_t *params;
	uint32_t id;
	unsigned int nt;
};

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

/* Run the registry entry of @c->id (tpc.c; the engine and tpc_host.c) */
int tpc_dispatch(struct tpc_ctx *c);

/*
 * @t's type, shape and element count from the descriptor @d (which passed
 * hpu_tpc_check()); @t->p is left NULL for the caller to place
 */
void tpc_bind_shape(const struct hpu_tpc_tensor *d, struct tpc_t *t);

/* Element offset of the @r-th row (dimension 0 excluded) of @t */
uint64_t tpc_row_off(const struct tpc_t *t, uint64_t r);

/*
 * Run @fn over *@nslices slices of @arg (set here from @nelems: one slice
 * below TPC_PAR_MIN elements, else one per thread that could help); the
 * slices must be independent of each other
 */
#define TPC_PAR_MIN (1ULL << 18)
void tpc_par_run(void (*fn)(void *arg, unsigned int slice), void *arg,
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
