/* SPDX-License-Identifier: MIT */
/*
 * hpu_tpc_check.h - operand rules of the TPC kernel library, shared by the
 * driver's packet validator (fusedev/packets_tpc.c), the library's emitter
 * (libhpudrv/cb_tpc.c), the engine (firmware-sim/tpc.c) and the kernel
 * library's host entry (libhputpc/tpc_host.c): one implementation of
 * docs/tpc-kernels.md.
 */
#ifndef HPU_TPC_CHECK_H
#define HPU_TPC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"

/* Largest element count of a tensor, and largest stride (elements) */
#define HPU_TPC_MAX_ELEMS (1ULL << 40)

/**
 * hpu_tpc_dtype_size() - bytes of one element
 * @dtype: HPU_DTYPE_*
 *
 * Return: 2 or 4, or 0 for an unknown dtype.
 */
size_t hpu_tpc_dtype_size(uint32_t dtype);

/**
 * hpu_tpc_extent() - bytes from a tensor's address to the end of its last
 * element
 * @t: a tensor that passed the rules
 *
 * Return: the byte extent (0 for a zero-size tensor).
 */
uint64_t hpu_tpc_extent(const struct hpu_tpc_tensor *t);

/**
 * hpu_tpc_nelems() - elements of a tensor (product of its sizes)
 * @t: a tensor that passed the rules
 *
 * Return: the count (1 for a scalar, 0 when a size is 0).
 */
uint64_t hpu_tpc_nelems(const struct hpu_tpc_tensor *t);

/**
 * hpu_tpc_kernel_name() - name of a kernel id
 * @id: HPU_TPC_KERNEL_*
 *
 * Return: a static string, or NULL for an unknown id.
 */
const char *hpu_tpc_kernel_name(uint32_t id);

/**
 * hpu_tpc_check() - check a TPC_KERNEL packet body against its kernel's
 * operand rules
 * @k: the packet (its header is not looked at)
 *
 * Checks the kernel id, the tensor count, every used tensor (dtype, rank,
 * sizes and strides past the rank zero, element count and strides below
 * HPU_TPC_MAX_ELEMS, no address wrap, reserved zero), the kernel's shape,
 * dtype and parameter rules, and that unused tensors and parameters are
 * zero.
 *
 * Return: 0 or -EINVAL.
 */
int hpu_tpc_check(const struct hpu_pkt_tpc_kernel *k);

/**
 * hpu_tpc_pkt_build() - fill a TPC_KERNEL packet and check it
 * @k: the packet; zeroed, then its header, kernel id, tensors and
 *	parameters are set
 * @kernel_id: HPU_TPC_KERNEL_*
 * @tensors: the operands
 * @n: operands, 1..HPU_TPC_MAX_TENSORS
 * @params: the parameters (may be NULL when @nparams is 0)
 * @nparams: parameters, at most HPU_TPC_MAX_PARAMS
 *
 * Return: 0, or -EINVAL for counts out of range, a missing array, or a
 * packet hpu_tpc_check() refuses.
 */
int hpu_tpc_pkt_build(struct hpu_pkt_tpc_kernel *k, uint32_t kernel_id,
		      const struct hpu_tpc_tensor *tensors, unsigned int n,
		      const uint32_t *params, unsigned int nparams);

#endif /* HPU_TPC_CHECK_H */
