/* SPDX-License-Identifier: MIT */
/*
 * hpusim_tpc_host.h - the TPC kernel library called on host memory: the
 * training library's cpu backend computes with the same kernel code and
 * the same operand rules as the simulated TPC engines (docs/training.md).
 */
#ifndef HPUSIM_TPC_HOST_H
#define HPUSIM_TPC_HOST_H

#include <stdint.h>

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"

/**
 * hpusim_tpc_exec_host() - run one TPC kernel on host pointers
 * @kernel_id: HPU_TPC_KERNEL_* (uapi/hpu_tpc_kernels.h)
 * @tensors: the kernel's operands in its documented order; each addr is a
 *	pointer of this process (as an integer) to element 0
 * @n: operands, 1..HPU_TPC_MAX_TENSORS
 * @params: kernel parameters (binary32 bits for reals), may be NULL when
 *	@nparams is 0
 * @nparams: 0..HPU_TPC_MAX_PARAMS; the others are zero
 *
 * The operands pass the engine's rules (common/hpu_tpc_check.c) and the
 * kernel body is the engine's (firmware-sim/tpc.c's registry), so the
 * results are bit-identical to a TPC_KERNEL packet on the device. Runs in
 * the calling thread; elementwise kernels are not sliced (no worker pool
 * in a client process), which gives the same bits.
 *
 * Return: 0; -EINVAL for operands or parameters the rules reject (nothing
 * was written); -EIO for data the kernel refuses at run time (an
 * embedding id out of range: nothing was written).
 */
int hpusim_tpc_exec_host(uint32_t kernel_id,
			 const struct hpu_tpc_tensor *tensors, unsigned int n,
			 const uint32_t *params, unsigned int nparams);

#endif /* HPUSIM_TPC_HOST_H */
