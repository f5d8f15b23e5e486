/* SPDX-License-Identifier: MIT */
/*
 * hputpc_check.h - operand rules of the TPC kernel library
 * (docs/tpc-kernels.md), shared by the driver's packet validator
 * (fusedev/packets_tpc.c), the library's emitter (libhpudrv/cb_tpc.c), the
 * engine (firmware-sim/tpc.c) and the kernel library's host entry
 * (libhputpc/tpc_host.c): one implementation, in libhputpc/. The generic
 * part (every tensor, counts, unused fields) is in libhputpc/tpc_check.c;
 * each kernel's own rule sits beside its body in libhputpc/tpc_<family>.c.
 *
 * Depends on uapi/ only, so the layers below the kernels (the daemon, the
 * user library) can include it without the kernel bodies' API (hputpc.h).
 */
#ifndef HPUTPC_CHECK_H
#define HPUTPC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"

/* Largest element count of a tensor, and largest stride (elements) */
#define HPUTPC_MAX_ELEMS (1ULL << 40)

/**
 * hputpc_dtype_size() - bytes of one element
 * @dtype: HPU_DTYPE_*
 *
 * Return: 2 or 4, or 0 for an unknown dtype.
 */
size_t hputpc_dtype_size(uint32_t dtype);

/**
 * hputpc_extent() - bytes from a tensor's address to the end of its last
 * element
 * @t: a tensor that passed the rules
 *
 * Return: the byte extent (0 for a zero-size tensor).
 */
uint64_t hputpc_extent(const struct hpu_tpc_tensor *t);

/**
 * hputpc_extents_meet() - whether two tensors' byte extents share a byte
 * @a: a tensor that passed the rules
 * @b: another
 *
 * An operand written while another is read must be apart from it; a
 * zero-size tensor meets nothing.
 *
 * Return: true when [addr, addr + hputpc_extent()) of @a and @b overlap.
 */
bool hputpc_extents_meet(const struct hpu_tpc_tensor *a,
			 const struct hpu_tpc_tensor *b);

/**
 * hputpc_nelems() - elements of a tensor (product of its sizes)
 * @t: a tensor that passed the rules
 *
 * Return: the count (1 for a scalar, 0 when a size is 0).
 */
uint64_t hputpc_nelems(const struct hpu_tpc_tensor *t);

/**
 * hputpc_kernel_name() - name of a kernel id
 * @id: HPU_TPC_KERNEL_*
 *
 * Return: a static string, or NULL for an id the library has no kernel
 * for.
 */
const char *hputpc_kernel_name(uint32_t id);

/**
 * hputpc_check() - check a TPC_KERNEL packet body against its kernel's
 * operand rules
 * @k: the packet (its header is not looked at)
 *
 * Checks the kernel id (one the library has a kernel for), the tensor
 * count, every used tensor (dtype, rank, sizes and strides past the rank
 * zero, element count and strides below HPUTPC_MAX_ELEMS, no address
 * wrap, reserved zero), that unused tensors and parameters are zero, and
 * then the kernel's own shape, dtype and parameter rules.
 *
 * Return: 0 or -EINVAL.
 */
int hputpc_check(const struct hpu_pkt_tpc_kernel *k);

/**
 * hputpc_pkt_build() - fill a TPC_KERNEL packet and check it
 * @k: the packet; zeroed, then its header, kernel id, tensors and
 *	parameters are set
 * @kernel_id: HPU_TPC_KERNEL_*
 * @tensors: the operands
 * @n: operands, 1..HPU_TPC_MAX_TENSORS
 * @params: the parameters (may be NULL when @nparams is 0)
 * @nparams: parameters, at most HPU_TPC_MAX_PARAMS
 *
 * Return: 0, or -EINVAL for counts out of range, a missing array, or a
 * packet hputpc_check() refuses.
 */
int hputpc_pkt_build(struct hpu_pkt_tpc_kernel *k, uint32_t kernel_id,
		     const struct hpu_tpc_tensor *tensors, unsigned int n,
		     const uint32_t *params, unsigned int nparams);

#endif /* HPUTPC_CHECK_H */
