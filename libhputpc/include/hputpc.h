/* SPDX-License-Identifier: MIT */
/*
 * hputpc.h - the TPC kernel library (libhputpc/, docs/tpc-kernels.md):
 * the kernel bodies behind HPU_TPC_KERNEL_* and the two ways in.
 *
 * The simulated TPC engines (firmware-sim/tpc.c) translate a packet's
 * operands to pointers, bind them into a struct hputpc_ctx and call
 * hputpc_dispatch(), lending their worker pool through struct hputpc_pool. The
 * training library's cpu backend calls hputpc_exec_host() on pointers of
 * its own process. Both run the same bodies on operands that passed the
 * same rules (hputpc_check.h), so they compute the same bits.
 *
 * The library depends on uapi/ and common/ only: a leaf that the device
 * model, the daemon, libhpudrv (whose emitter applies the rules) and the
 * training library link without knowing of each other.
 */
#ifndef HPUTPC_H
#define HPUTPC_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"
#include "hputpc_check.h"

/**
 * struct hputpc_operand - one operand, translated
 * @p: pointer to element (0, ...) in the caller's memory
 * @dtype: HPU_DTYPE_*
 * @ndims: rank
 * @sizes: sizes; 1 past @ndims
 * @strides: strides in elements; 0 past @ndims
 * @n: elements
 */
struct hputpc_operand {
	uint8_t *p;
	uint32_t dtype;
	uint32_t ndims;
	uint64_t sizes[HPU_TPC_MAX_DIMS];
	uint64_t strides[HPU_TPC_MAX_DIMS];
	uint64_t n;
};

/**
 * struct hputpc_pool - threads a caller lends to one kernel
 * @width: threads that could work on one kernel now, the calling one
 *	included (a hint, >= 1)
 * @run: run slices 0..@nslices-1 of @fn(@arg, slice), the calling thread
 *	among the workers, and return when every slice is done
 *
 * Elementwise kernels of >= HPUTPC_PAR_MIN elements cut their work into
 * independent slices; the result does not depend on how many there are.
 */
struct hputpc_pool {
	unsigned int (*width)(void);
	void (*run)(void (*fn)(void *arg, unsigned int slice), void *arg,
		    unsigned int nslices);
};

/**
 * struct hputpc_ctx - a kernel invocation
 * @t: operands in the kernel's order
 * @params: the packet's parameters
 * @id: kernel id
 * @nt: operands (the packet's num_tensors)
 * @pool: threads that may help, or NULL for the calling thread alone
 */
struct hputpc_ctx {
	struct hputpc_operand t[HPU_TPC_MAX_TENSORS];
	const uint32_t *params;
	uint32_t id;
	unsigned int nt;
	const struct hputpc_pool *pool;
};

/**
 * hputpc_bind_shape() - an operand's type, shape and element count
 * @d: its descriptor, which passed hputpc_check()
 * @t: filled; @t->p is left NULL for the caller to place
 */
void hputpc_bind_shape(const struct hpu_tpc_tensor *d,
		       struct hputpc_operand *t);

/**
 * hputpc_dispatch() - run the kernel body of @c->id on bound operands
 * @c: a checked invocation (hputpc_check() passed for its packet), every
 *	operand's @p placed
 *
 * Return: 0; -EIO for data the kernel refuses (an embedding id or a label
 * out of range; nothing was written); -ENOSYS for an id without a body
 * (nothing was written).
 */
int hputpc_dispatch(struct hputpc_ctx *c);

/**
 * hputpc_has_kernel() - whether the library has a body for a kernel id
 * @id: any value
 *
 * True exactly for the ids with a kernel descriptor (operand rule and
 * body side by side in a libhputpc/tpc_<family>.c; hputpc_kernel_name()
 * is not NULL); tests/unit/test_tpc_registry.c checks that every id
 * 1..HPU_TPC_KERNEL_COUNT-1 has exactly one.
 *
 * Return: true when hputpc_dispatch() can run @id.
 */
bool hputpc_has_kernel(uint32_t id);

/**
 * hputpc_exec_host() - run one TPC kernel on host memory
 * @kernel_id: HPU_TPC_KERNEL_* (uapi/hpu_tpc_kernels.h)
 * @tensors: the kernel's operands in its documented order; each addr is a
 *	pointer of this process (as an integer) to element 0
 * @n: operands, 1..HPU_TPC_MAX_TENSORS
 * @params: kernel parameters (binary32 bits for reals), may be NULL when
 *	@nparams is 0
 * @nparams: 0..HPU_TPC_MAX_PARAMS; the others are zero
 *
 * The operands pass the engine's rules (hputpc_check()) and the
 * kernel body is the engine's, so the results are bit-identical to a
 * TPC_KERNEL packet on the device. Runs in the calling thread; elementwise
 * kernels are not sliced (no worker pool in a client process), which
 * gives the same bits.
 *
 * Return: 0; -EINVAL for operands or parameters the rules reject (nothing
 * was written); -EIO for data the kernel refuses at run time (an
 * embedding id out of range: nothing was written); -ENOSYS for a kernel
 * descriptor without a body, which tests/unit/test_tpc_registry.c
 * forbids (nothing was written).
 */
int hputpc_exec_host(uint32_t kernel_id, const struct hpu_tpc_tensor *tensors,
		     unsigned int n, const uint32_t *params,
		     unsigned int nparams);

#endif /* HPUTPC_H */
