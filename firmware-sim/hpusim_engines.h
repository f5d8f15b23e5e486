/* SPDX-License-Identifier: MIT */
/*
 * hpusim_engines.h - the packets of the DMA, MME and TPC engines, which
 * the packet interpreter (exec.c) runs (part of the private interface
 * hpusim.h, which includes it). The NIC engines' entry points are in
 * hpusim.h with the rest of the NIC interface.
 */
#ifndef HPUSIM_ENGINES_H
#define HPUSIM_ENGINES_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_fw_if.h"

/* dma.c: LIN_DMA and MEMSET */
#define HPUSIM_DMA_CHUNK     (4ULL << 20)   /* bytes between abort checks */
#define HPUSIM_DMA_BOUNCE    (64U << 10)    /* host to host bounce buffer */
#define HPUSIM_DMA_PAR_MIN   (2ULL << 20)   /* copies cut into slices */
#define HPUSIM_DMA_PAR_ALIGN (64ULL << 10)  /* slice boundaries */
#define HPUSIM_DMA_PAR_SLICE (256ULL << 10) /* bytes per slice */
#define HPUSIM_DMA_PAR_MAX   64		    /* slices of one step */
#define HPUSIM_DMA_IOV	     64		    /* device extents per syscall */

/**
 * hpusim_dma_copy() - copy part of a LIN_DMA packet
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @src: source VA of the whole packet
 * @size: bytes of the whole packet
 * @done: bytes already copied
 * @max: copy at most this many bytes now
 * @stop: NULL, or a flag that stops the copy at its next chunk when set
 * @fault: out on failure: the faulting VA and direction
 *
 * Overlapping ranges with @dst above @src are copied from the end, so the
 * packet behaves as memmove. From HPUSIM_DMA_PAR_MIN bytes on, other
 * ranges are cut into slices (HPUSIM_DMA_PAR_ALIGN-aligned) that idle pool
 * workers copy beside the calling thread, each in chunks of at most
 * HPUSIM_DMA_CHUNK bytes; @stop stops them all. When slices fault, the
 * fault of the lowest one is reported (the one a serial copy meets first).
 *
 * Return: bytes copied now (> 0), -EFAULT, or -ECANCELED when @stop was
 * seen (what was copied then is undefined).
 */
int64_t hpusim_dma_copy(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			uint64_t size, uint64_t done, uint64_t max,
			const bool *stop, struct hpu_fw_fault *fault);

/**
 * hpusim_dma_check() - whether a copy's whole source and destination are
 * mapped (a packet's first piece: no byte moves when any is not)
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @src: source VA of the whole packet
 * @size: bytes of the whole packet
 * @fault: out on failure: the first unmapped VA, the source's first
 *
 * Return: 0, or -EFAULT.
 */
int hpusim_dma_check(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
		     uint64_t size, struct hpu_fw_fault *fault);

/* dma_swap.c: LIN_DMA with an endian swap */
uint32_t hpusim_dma_swap_width(uint16_t flags);

/**
 * hpusim_dma_copy_swap() - copy part of a LIN_DMA packet that swaps
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @src: source VA of the whole packet (the ranges do not overlap: the
 *	driver refuses such packets)
 * @size: bytes of the whole packet
 * @width: element width, 2, 4 or 8 (hpusim_dma_swap_width())
 * @done: bytes already copied (a multiple of @width)
 * @max: copy about this many bytes now (rounded down to whole elements,
 *	at least one)
 * @stop: NULL, or a flag that stops the copy at its next piece
 * @fault: out on failure: the faulting VA and direction
 *
 * Return: bytes copied now (> 0), -EFAULT, or -ECANCELED.
 */
int64_t hpusim_dma_copy_swap(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			     uint64_t size, uint32_t width, uint64_t done,
			     uint64_t max, const bool *stop,
			     struct hpu_fw_fault *fault);

/**
 * hpusim_dma_memset() - fill part of a MEMSET packet
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @size: bytes of the whole packet
 * @value: pattern
 * @width: element width 1, 2, 4 or 8
 * @done: bytes already filled
 * @max: fill at most this many bytes now
 * @fault: out on failure
 *
 * Return: bytes filled now (> 0), or -EFAULT.
 */
int64_t hpusim_dma_memset(struct hpu_fw_as *as, uint64_t dst, uint64_t size,
			  uint64_t value, uint32_t width, uint64_t done,
			  uint64_t max, struct hpu_fw_fault *fault);

/*
 * Engine packets (mme.c, tpc.c): run one packet of a job on engine @engine
 * of @as's device. Return 0; -EFAULT with @fault filled (address outside
 * the mappings); any other -errno is an engine error (wrong queue, operand
 * in pageable host memory, ...).
 */
int hpusim_mme_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault);
int hpusim_tpc_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault);

/*
 * When the MMEs split a single-row product (docs/mme.md "Two MMEs"):
 * HPUSIM_MME_SPLIT in the environment, read at the first product, else
 * hpusim_mme_set_split()
 */
#define HPUSIM_MME_SPLIT_NEVER	0 /* one call, one thread */
#define HPUSIM_MME_SPLIT_AUTO	1 /* when a pool worker is spare (default) */
#define HPUSIM_MME_SPLIT_ALWAYS 2 /* every candidate; alone if no worker */

/**
 * hpusim_mme_set_split() - set the MMEs' split mode (for tests and A/B)
 * @mode: HPUSIM_MME_SPLIT_NEVER, _AUTO or _ALWAYS
 *
 * Return: the previous mode, or -EINVAL.
 */
int hpusim_mme_set_split(unsigned int mode);

#endif /* HPUSIM_ENGINES_H */
