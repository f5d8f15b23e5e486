/* SPDX-License-Identifier: MIT */
/*
 * tpc_lib.h - internals of the TPC kernel library (libhputpc/): the kernel
 * descriptor every family file exports a table of, the registry over
 * them, and the helpers the kernel files share. Operands and invocations
 * (struct hputpc_operand, struct hputpc_ctx) are in include/hputpc.h, the
 * operand rules' entry points in include/hputpc_check.h.
 */
#ifndef HPUTPC_LIB_H
#define HPUTPC_LIB_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hpu_bf16.h"
#include "hputpc.h"
#include "hputpc_check.h"

/* Kernel body: 0, or -EIO for data the kernel refuses (bad ids/labels) */
typedef int (*hputpc_exec_fn)(struct hputpc_ctx *c);

/*
 * A kernel's own operand rule, called by hputpc_check() once the generic
 * part passed (tensor count, every used tensor sane, unused fields zero):
 * 0 or -EINVAL
 */
typedef int (*hputpc_check_fn)(const struct hpu_pkt_tpc_kernel *k);

/**
 * struct hputpc_kernel - one kernel: its id, its operand rule and its body
 * @id: HPU_TPC_KERNEL_*, 1..HPU_TPC_KERNEL_COUNT-1, in one descriptor only
 * @name: its name (docs, tools); unique
 * @ntensors: operand count: exact, or the most when @min_tensors is set;
 *	1..HPU_TPC_MAX_TENSORS
 * @min_tensors: the fewest operands of a kernel whose count varies
 *	(1..@ntensors), else 0
 * @nparams: parameters used (<= HPU_TPC_MAX_PARAMS); the others must be 0
 * @check: the kernel's shape, dtype and parameter rules
 * @exec: the kernel body, on operands that passed @check
 *
 * Each family file (tpc_<family>.c) keeps its kernels' rules beside their
 * bodies and exports one struct hputpc_family of these;
 * tests/unit/test_tpc_registry.c checks every descriptor
 * (hputpc_registry_index()).
 */
struct hputpc_kernel {
	uint32_t id;
	const char *name;
	unsigned int ntensors;
	unsigned int min_tensors;
	unsigned int nparams;
	hputpc_check_fn check;
	hputpc_exec_fn exec;
};

/* A descriptor of a kernel with a fixed operand count */
#define HPUTPC_KERNEL(id_, name_, nt, np, check_, exec_)                   \
	{                                                                  \
		.id = HPU_TPC_KERNEL_##id_, .name = name_, .ntensors = nt, \
		.nparams = np, .check = check_, .exec = exec_              \
	}

/**
 * struct hputpc_family - the kernels of one family file
 * @name: the family ("elementwise" for tpc_elementwise.c)
 * @kernels: its descriptors
 * @count: how many
 */
struct hputpc_family {
	const char *name;
	const struct hputpc_kernel *kernels;
	unsigned int count;
};

#define HPUTPC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The families, one per file; tpc_registry.c lists them in
 * hputpc_families[]. A new kernel of a family touches only its file; a
 * new family adds its declaration here and its line there.
 */
extern const struct hputpc_family hputpc_family_elementwise;
extern const struct hputpc_family hputpc_family_reduce;
extern const struct hputpc_family hputpc_family_norm;
extern const struct hputpc_family hputpc_family_optim;
extern const struct hputpc_family hputpc_family_accumulate;
extern const struct hputpc_family hputpc_family_attention;
extern const struct hputpc_family hputpc_family_gradnorm;

/* Every family of the library, and how many (tpc_registry.c) */
extern const struct hputpc_family *const hputpc_families[];
extern const unsigned int hputpc_nfamilies;

/**
 * hputpc_registry_index() - index descriptors by kernel id, checking them
 * @fams: the families
 * @nfams: how many
 * @by_id: HPU_TPC_KERNEL_COUNT entries, filled with each id's descriptor
 *	(NULL for an id without one; the first where an id has two)
 * @err: where to describe the first fault found (may be NULL)
 * @errlen: its size
 *
 * Return: 0, or -EINVAL when a descriptor has an id of 0 or past
 * HPU_TPC_KERNEL_COUNT (not indexed), an id another one has, a NULL or
 * repeated name, counts out of HPU_TPC_MAX_TENSORS/HPU_TPC_MAX_PARAMS, or
 * no check or body. Ids without a descriptor are not a fault here.
 */
int hputpc_registry_index(const struct hputpc_family *const *fams,
			  unsigned int nfams,
			  const struct hputpc_kernel **by_id, char *err,
			  size_t errlen);

/**
 * hputpc_kernel_find() - the descriptor of a kernel id
 * @id: any value
 *
 * Return: the descriptor, or NULL for an id the library has no kernel for.
 */
const struct hputpc_kernel *hputpc_kernel_find(uint32_t id);

/* Rule helpers the families share */
static inline bool hputpc_is_float(uint32_t dtype)
{
	return dtype == HPU_DTYPE_FP32 || dtype == HPU_DTYPE_BF16;
}

static inline bool hputpc_same_shape(const struct hpu_tpc_tensor *a,
				     const struct hpu_tpc_tensor *b)
{
	return a->ndims == b->ndims &&
	       !memcmp(a->sizes, b->sizes, sizeof(a->sizes));
}

/* A parameter's binary32 bits as a float */
static inline float hputpc_bits_f(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline bool hputpc_finite_bits(uint32_t bits)
{
	return isfinite(hputpc_bits_f(bits));
}

/* Tensors 0..@n-1 of @k all fp32 */
static inline bool hputpc_all_fp32(const struct hpu_pkt_tpc_kernel *k,
				   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (k->tensors[i].dtype != HPU_DTYPE_FP32)
			return false;
	return true;
}

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

#endif /* HPUTPC_LIB_H */
