// SPDX-License-Identifier: MIT
/*
 * dma.c - the DMA engine's two operations, LIN_DMA and MEMSET, on device
 * VAs of one address space.
 *
 * Host memory is read and written with process_vm_readv/writev straight
 * into and out of the HBM backing (no bounce buffer); only host to host
 * copies and memsets of host memory go through a small per-thread buffer.
 * A packet is checked to be fully mapped before its first byte moves, so
 * a fault on an unmapped address leaves the destination untouched.
 */
#include <errno.h>
#include <string.h>

#include "hpusim.h"

static __thread uint8_t dma_bounce[HPUSIM_DMA_BOUNCE + 8];

static void set_fault(struct hpu_fw_fault *f, uint64_t addr, bool is_write)
{
	f->addr = addr;
	f->is_write = is_write;
}

/* Copy one piece; both segments are at least @n bytes. Return bytes done */
static uint64_t copy_piece(const struct hpusim_seg *d,
			   const struct hpusim_seg *s, uint64_t n,
			   bool *write_fault)
{
	uint64_t got;

	*write_fault = false;
	if (d->ptr && s->ptr) {
		memmove(d->ptr, s->ptr, n);
		return n;
	}
	if (d->ptr)
		return hpusim_host_copy(s->map, s->host_addr, d->ptr, n, false);
	if (s->ptr) {
		*write_fault = true;
		return hpusim_host_copy(d->map, d->host_addr, s->ptr, n, true);
	}
	got = hpusim_host_copy(s->map, s->host_addr, dma_bounce, n, false);
	if (got < n)
		return got;
	*write_fault = true;
	return hpusim_host_copy(d->map, d->host_addr, dma_bounce, n, true);
}

/* Copy [off, off + len) of the packet, forward or from its end */
static int copy_range(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
		      uint64_t len, bool back, struct hpu_fw_fault *fault)
{
	struct hpusim_seg s, d;
	uint64_t n, got;
	bool wf;

	while (len) {
		if (hpusim_mmu_seg(as, src, len, back, &s)) {
			set_fault(fault, back ? src + len - 1 : src, false);
			return -EFAULT;
		}
		if (hpusim_mmu_seg(as, dst, len, back, &d)) {
			set_fault(fault, back ? dst + len - 1 : dst, true);
			return -EFAULT;
		}
		n = s.len < d.len ? s.len : d.len;
		if (!s.ptr && !d.ptr && n > HPUSIM_DMA_BOUNCE)
			n = HPUSIM_DMA_BOUNCE;
		if (back) {
			/* the pieces end at src + len and dst + len */
			s.ptr = s.ptr ? s.ptr + s.len - n : NULL;
			d.ptr = d.ptr ? d.ptr + d.len - n : NULL;
			s.host_addr += s.len - n;
			d.host_addr += d.len - n;
		}
		got = copy_piece(&d, &s, n, &wf);
		if (got < n) {
			uint64_t at = back ? len - n : 0;

			set_fault(fault, (wf ? dst : src) + at + got, wf);
			return -EFAULT;
		}
		if (!back) {
			src += n;
			dst += n;
		}
		len -= n;
	}
	return 0;
}

int64_t hpusim_dma_copy(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			uint64_t size, uint64_t done, uint64_t max,
			struct hpu_fw_fault *fault)
{
	bool back = dst > src && dst - src < size;
	uint64_t n = size - done, off, bad;
	int ret;

	if (n > max)
		n = max;
	off = back ? size - done - n : done;
	pthread_rwlock_rdlock(&as->map_lock);
	if (!done) {
		if (hpusim_mmu_check(as, src, size, &bad)) {
			set_fault(fault, bad, false);
			ret = -EFAULT;
			goto out_unlock;
		}
		if (hpusim_mmu_check(as, dst, size, &bad)) {
			set_fault(fault, bad, true);
			ret = -EFAULT;
			goto out_unlock;
		}
	}
	ret = copy_range(as, dst + off, src + off, n, back, fault);
out_unlock:
	pthread_rwlock_unlock(&as->map_lock);
	return ret ? ret : (int64_t)n;
}

/* Fill @buf (@len bytes) with the pattern, phase @phase bytes into it */
static void fill_pattern(uint8_t *buf, uint64_t len, uint64_t value,
			 uint32_t width, uint64_t phase)
{
	uint8_t pat[8];
	uint64_t i;

	for (i = 0; i < 8; i++)
		pat[i] = (uint8_t)(value >> (8 * i));
	if (width == 1) {
		memset(buf, pat[0], len);
		return;
	}
	for (i = 0; i < len && i < 64; i++)
		buf[i] = pat[(phase + i) % width];
	/* double the filled prefix: 64 is a multiple of every width */
	for (; i < len; i *= 2) {
		uint64_t c = i < len - i ? i : len - i;

		memcpy(buf + i, buf, c);
	}
}

int64_t hpusim_dma_memset(struct hpu_fw_as *as, uint64_t dst, uint64_t size,
			  uint64_t value, uint32_t width, uint64_t done,
			  uint64_t max, struct hpu_fw_fault *fault)
{
	uint64_t n = size - done, left, at, got, bad;
	struct hpusim_seg d;
	int ret = 0;

	if (n > max)
		n = max;
	pthread_rwlock_rdlock(&as->map_lock);
	if (!done && hpusim_mmu_check(as, dst, size, &bad)) {
		set_fault(fault, bad, true);
		ret = -EFAULT;
		goto out_unlock;
	}
	at = dst + done;
	for (left = n; left;) {
		if (hpusim_mmu_seg(as, at, left, false, &d)) {
			set_fault(fault, at, true);
			ret = -EFAULT;
			break;
		}
		if (d.ptr) {
			fill_pattern(d.ptr, d.len, value, width,
				     (at - dst) % width);
			got = d.len;
		} else {
			if (d.len > HPUSIM_DMA_BOUNCE)
				d.len = HPUSIM_DMA_BOUNCE;
			fill_pattern(dma_bounce, d.len, value, width,
				     (at - dst) % width);
			got = hpusim_host_copy(d.map, d.host_addr, dma_bounce,
					       d.len, true);
			if (got < d.len) {
				set_fault(fault, at + got, true);
				ret = -EFAULT;
				break;
			}
		}
		at += got;
		left -= got;
	}
out_unlock:
	pthread_rwlock_unlock(&as->map_lock);
	return ret ? ret : (int64_t)n;
}
