// SPDX-License-Identifier: MIT
/*
 * dma_swap.c - LIN_DMA with an endian swap (HPU_LIN_DMA_F_SWAP_*): the
 * bytes of each 2-, 4- or 8-byte element, counted from the source's
 * first byte, reversed on the way from source to destination.
 *
 * The swap goes through a bounce buffer: read a piece of the source,
 * reverse its elements, write it to the destination. Swapping copies are
 * rare (the habanalabs personality's LIN_DMA endian field) and not on any
 * path that must run at memcpy speed, so they are not cut into slices.
 * As a plain copy, the whole packet is checked to be mapped before its
 * first byte moves.
 */
#include <errno.h>
#include <string.h>

#include "hpusim.h"

static __thread uint8_t swap_bounce[HPUSIM_DMA_BOUNCE];

/*
 * Reverse the @w-byte elements of @buf (@len bytes, starting on an
 * element boundary). A last partial element of r bytes becomes the first
 * r bytes of the element zero-extended and reversed.
 */
static void swap_elems(uint8_t *buf, uint64_t len, uint32_t w)
{
	uint64_t full = len - len % w, i;
	uint32_t j, r = (uint32_t)(len - full);
	uint8_t t;

	for (i = 0; i < full; i += w) {
		for (j = 0; j < w / 2; j++) {
			t = buf[i + j];
			buf[i + j] = buf[i + w - 1 - j];
			buf[i + w - 1 - j] = t;
		}
	}
	if (!r)
		return;
	{
		uint8_t in[8], *p = buf + full;

		memcpy(in, p, r);
		for (j = 0; j < r; j++)
			p[j] = w - 1 - j < r ? in[w - 1 - j] : 0;
	}
}

/**
 * hpusim_dma_swap_width() - the element width of a LIN_DMA's flags
 * @flags: the packet header's flags
 *
 * Return: 2, 4 or 8, or 0 for a plain copy.
 */
uint32_t hpusim_dma_swap_width(uint16_t flags)
{
	uint32_t v = (flags & HPU_LIN_DMA_F_SWAP_MASK) >> 8;

	return v ? 1U << v : 0;
}

int64_t hpusim_dma_copy_swap(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			     uint64_t size, uint32_t width, uint64_t done,
			     uint64_t max, const bool *stop,
			     struct hpu_fw_fault *fault)
{
	uint64_t n = size - done, left, piece, bad;
	int ret = 0;

	/* whole elements per call, so each is swapped from its start */
	if (n > max) {
		n = max - max % width;
		if (!n)
			n = width < size - done ? width : size - done;
	}
	if (!done && hpusim_dma_check(as, dst, src, size, fault))
		return -EFAULT;
	for (left = n; left; left -= piece) {
		uint64_t off = done + (n - left);

		if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE))
			return -ECANCELED;
		/* the bounce is a multiple of every width */
		piece = left < sizeof(swap_bounce) ? left : sizeof(swap_bounce);
		/* held for one piece: an unmap waits for at most that */
		pthread_rwlock_rdlock(&as->map_lock);
		ret = hpusim_mmu_rw(as, src + off, swap_bounce, piece, false,
				    false, &bad);
		if (ret) {
			fault->is_write = false;
		} else {
			swap_elems(swap_bounce, piece, width);
			ret = hpusim_mmu_rw(as, dst + off, swap_bounce, piece,
					    true, false, &bad);
			fault->is_write = true;
		}
		pthread_rwlock_unlock(&as->map_lock);
		if (ret) {
			fault->addr = bad;
			return ret;
		}
	}
	return (int64_t)n;
}
