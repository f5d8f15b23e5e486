// SPDX-License-Identifier: MIT
/*
 * tpc_registry.c - the TPC kernel library's registry: the body of every
 * HPU_TPC_KERNEL_* id (the kernels are in tpc_*.c beside it, their
 * operand rules in common/hpu_tpc_check.c, docs/tpc-kernels.md), and the
 * helpers that bind operands and slice work.
 *
 * Reductions run on the calling thread, in a fixed order; elementwise
 * kernels of >= HPUTPC_PAR_MIN elements are cut into independent slices that
 * the caller's pool (struct hputpc_pool) may help with. Results are
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
static const hputpc_exec_fn kernels[HPU_TPC_KERNEL_COUNT] = {
	[HPU_TPC_KERNEL_FILL] = hputpc_fill,
	[HPU_TPC_KERNEL_COPY] = hputpc_copy,
	[HPU_TPC_KERNEL_CAST] = hputpc_cast,
	[HPU_TPC_KERNEL_ADD] = hputpc_map,
	[HPU_TPC_KERNEL_SUB] = hputpc_map,
	[HPU_TPC_KERNEL_MUL] = hputpc_map,
	[HPU_TPC_KERNEL_DIV] = hputpc_map,
	[HPU_TPC_KERNEL_SCALE] = hputpc_map,
	[HPU_TPC_KERNEL_AXPY] = hputpc_map,
	[HPU_TPC_KERNEL_RELU] = hputpc_map,
	[HPU_TPC_KERNEL_RELU_BWD] = hputpc_map,
	[HPU_TPC_KERNEL_GELU] = hputpc_map,
	[HPU_TPC_KERNEL_GELU_BWD] = hputpc_map,
	[HPU_TPC_KERNEL_TANH] = hputpc_map,
	[HPU_TPC_KERNEL_TANH_BWD] = hputpc_map,
	[HPU_TPC_KERNEL_SIGMOID] = hputpc_map,
	[HPU_TPC_KERNEL_SIGMOID_BWD] = hputpc_map,
	[HPU_TPC_KERNEL_EXP] = hputpc_map,
	[HPU_TPC_KERNEL_LOG] = hputpc_map,
	[HPU_TPC_KERNEL_BIAS_ADD] = hputpc_map,
	[HPU_TPC_KERNEL_BIAS_GRAD] = hputpc_bias_grad,
	[HPU_TPC_KERNEL_REDUCE_SUM] = hputpc_reduce,
	[HPU_TPC_KERNEL_REDUCE_MEAN] = hputpc_reduce,
	[HPU_TPC_KERNEL_REDUCE_MAX] = hputpc_reduce,
	[HPU_TPC_KERNEL_SOFTMAX] = hputpc_softmax,
	[HPU_TPC_KERNEL_LOG_SOFTMAX] = hputpc_softmax,
	[HPU_TPC_KERNEL_XENT_FWD] = hputpc_xent_fwd,
	[HPU_TPC_KERNEL_XENT_BWD] = hputpc_xent_bwd,
	[HPU_TPC_KERNEL_LAYERNORM_FWD] = hputpc_ln_fwd,
	[HPU_TPC_KERNEL_LAYERNORM_BWD] = hputpc_ln_bwd,
	[HPU_TPC_KERNEL_EMBED_GATHER] = hputpc_gather,
	[HPU_TPC_KERNEL_EMBED_SCATTER_ADD] = hputpc_scatter_add,
	[HPU_TPC_KERNEL_TRANSPOSE] = hputpc_transpose,
	[HPU_TPC_KERNEL_DROPOUT] = hputpc_dropout,
	[HPU_TPC_KERNEL_ARGMAX] = hputpc_argmax,
	[HPU_TPC_KERNEL_ACCURACY] = hputpc_accuracy,
	[HPU_TPC_KERNEL_SGD_STEP] = hputpc_sgd,
	[HPU_TPC_KERNEL_ADAMW_STEP] = hputpc_adamw,
	[HPU_TPC_KERNEL_ACCUMULATE] = hputpc_accumulate,
};

bool hputpc_has_kernel(uint32_t id)
{
	return id < HPU_TPC_KERNEL_COUNT && kernels[id];
}

int hputpc_dispatch(struct hputpc_ctx *c)
{
	if (!hputpc_has_kernel(c->id))
		return -ENOSYS;
	return kernels[c->id](c);
}

void hputpc_bind_shape(const struct hpu_tpc_tensor *d, struct hputpc_operand *t)
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

uint64_t hputpc_row_off(const struct hputpc_operand *t, uint64_t r)
{
	uint64_t off = 0;
	uint32_t d;

	for (d = 1; d < t->ndims && r; d++) {
		off += (r % t->sizes[d]) * t->strides[d];
		r /= t->sizes[d];
	}
	return off;
}

void hputpc_par_run(const struct hputpc_ctx *c,
		    void (*fn)(void *arg, unsigned int slice), void *arg,
		    unsigned int *nslices, uint64_t nelems)
{
	unsigned int w = c->pool ? c->pool->width() : 1;

	*nslices = 1;
	if (nelems >= HPUTPC_PAR_MIN && w > 1) {
		if (w > 8)
			w = 8;
		if (w > nelems / (HPUTPC_PAR_MIN / 2))
			w = (unsigned int)(nelems / (HPUTPC_PAR_MIN / 2));
		*nslices = w;
	}
	if (*nslices > 1)
		c->pool->run(fn, arg, *nslices);
	else
		fn(arg, 0);
}
