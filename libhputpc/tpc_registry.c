// SPDX-License-Identifier: MIT
/*
 * tpc_registry.c - the TPC kernel library's registry: the body of every
 * HPU_TPC_KERNEL_* id (the kernels are in tpc_*.c beside it, their
 * operand rules in common/hpu_tpc_check.c, docs/tpc-kernels.md), and the
 * helpers that bind operands and slice work.
 *
 * Reductions run on the calling thread, in a fixed order; elementwise
 * kernels of >= TPC_PAR_MIN elements are cut into independent slices that
 * the caller's pool (struct tpc_pool) may help with. Results are
 * bit-identical whatever the thread count.
 */
#include <errno.h>

#include "tpc_lib.h"

/*
 * Indexed by the same id as the operand rules' table (rules[] in
 * common/hpu_tpc_check.c): an id has a rule exactly when it has a body
 * here. tests/unit/test_tpc_registry.c checks that the two agree; a rule
 * without a body is -ENOSYS at run time, never a call through NULL.
 */
static const tpc_exec_fn kernels[HPU_TPC_KERNEL_COUNT] = {
	[HPU_TPC_KERNEL_FILL] = tpc_fill,
	[HPU_TPC_KERNEL_COPY] = tpc_copy,
	[HPU_TPC_KERNEL_CAST] = tpc_cast,
	[HPU_TPC_KERNEL_ADD] = tpc_map,
	[HPU_TPC_KERNEL_SUB] = tpc_map,
	[HPU_TPC_KERNEL_MUL] = tpc_map,
	[HPU_TPC_KERNEL_DIV] = tpc_map,
	[HPU_TPC_KERNEL_SCALE] = tpc_map,
	[HPU_TPC_KERNEL_AXPY] = tpc_map,
	[HPU_TPC_KERNEL_RELU] = tpc_map,
	[HPU_TPC_KERNEL_RELU_BWD] = tpc_map,
	[HPU_TPC_KERNEL_GELU] = tpc_map,
	[HPU_TPC_KERNEL_GELU_BWD] = tpc_map,
	[HPU_TPC_KERNEL_TANH] = tpc_map,
	[HPU_TPC_KERNEL_TANH_BWD] = tpc_map,
	[HPU_TPC_KERNEL_SIGMOID] = tpc_map,
	[HPU_TPC_KERNEL_SIGMOID_BWD] = tpc_map,
	[HPU_TPC_KERNEL_EXP] = tpc_map,
	[HPU_TPC_KERNEL_LOG] = tpc_map,
	[HPU_TPC_KERNEL_BIAS_ADD] = tpc_map,
	[HPU_TPC_KERNEL_BIAS_GRAD] = tpc_bias_grad,
	[HPU_TPC_KERNEL_REDUCE_SUM] = tpc_reduce,
	[HPU_TPC_KERNEL_REDUCE_MEAN] = tpc_reduce,
	[HPU_TPC_KERNEL_REDUCE_MAX] = tpc_reduce,
	[HPU_TPC_KERNEL_SOFTMAX] = tpc_softmax,
	[HPU_TPC_KERNEL_LOG_SOFTMAX] = tpc_softmax,
	[HPU_TPC_KERNEL_XENT_FWD] = tpc_xent_fwd,
	[HPU_TPC_KERNEL_XENT_BWD] = tpc_xent_bwd,
	[HPU_TPC_KERNEL_LAYERNORM_FWD] = tpc_ln_fwd,
	[HPU_TPC_KERNEL_LAYERNORM_BWD] = tpc_ln_bwd,
	[HPU_TPC_KERNEL_EMBED_GATHER] = tpc_gather,
	[HPU_TPC_KERNEL_EMBED_SCATTER_ADD] = tpc_scatter_add,
	[HPU_TPC_KERNEL_TRANSPOSE] = tpc_transpose,
	[HPU_TPC_KERNEL_DROPOUT] = tpc_dropout,
	[HPU_TPC_KERNEL_ARGMAX] = tpc_argmax,
	[HPU_TPC_KERNEL_ACCURACY] = tpc_accuracy,
	[HPU_TPC_KERNEL_SGD_STEP] = tpc_sgd,
	[HPU_TPC_KERNEL_ADAMW_STEP] = tpc_adamw,
	[HPU_TPC_KERNEL_ACCUMULATE] = tpc_accumulate,
};

bool hputpc_has_kernel(uint32_t id)
{
	return id < HPU_TPC_KERNEL_COUNT && kernels[id];
}

int tpc_dispatch(struct tpc_ctx *c)
{
	if (!hputpc_has_kernel(c->id))
		return -ENOSYS;
	return kernels[c->id](c);
}

void tpc_bind_shape(const struct hpu_tpc_tensor *d, struct tpc_t *t)
{
	uint32_t k;

	t->dtype = d->dtype;
	t->ndims = d->ndims;
	for (k = 0; k < HPU_TPC_MAX_DIMS; k++) {
		t->sizes[k] = k < d->ndims ? d->sizes[k] : 1;
		t->strides[k] = k < d->ndims ? d->strides[k] : 0;
	}
	t->n = hpu_tpc_nelems(d);
	t->p = NULL;
}

uint64_t tpc_row_off(const struct tpc_t *t, uint64_t r)
{
	uint64_t off = 0;
	uint32_t d;

	for (d = 1; d < t->ndims && r; d++) {
		off += (r % t->sizes[d]) * t->strides[d];
		r /= t->sizes[d];
	}
	return off;
}

void tpc_par_run(const struct tpc_ctx *c,
		 void (*fn)(void *arg, unsigned int slice), void *arg,
		 unsigned int *nslices, uint64_t nelems)
{
	unsigned int w = c->pool ? c->pool->width() : 1;

	*nslices = 1;
	if (nelems >= TPC_PAR_MIN && w > 1) {
		if (w > 8)
			w = 8;
		if (w > nelems / (TPC_PAR_MIN / 2))
			w = (unsigned int)(nelems / (TPC_PAR_MIN / 2));
		*nslices = w;
	}
	if (*nslices > 1)
		c->pool->run(fn, arg, *nslices);
	else
		fn(arg, 0);
}
