// SPDX-License-Identifier: MIT
/*
 * dma.c - the DMA engine's two operations, LIN_DMA and MEMSET, on device
 * VAs of one address space.
 *
 * Host memory is read and written through hostmem.c (process_vm_readv/
 * writev in an access thread, each access bounded in time) straight into
 * and out of the HBM backing (no bounce buffer); only host to host copies,
 * memsets of host memory and copies between shared and pageable host
 * memory go through a small buffer.
 * Shared host memory (map_shared) translates to a pointer like HBM does,
 * so it moves at memcpy speed.
 * A packet is checked to be fully mapped before its first byte moves, so
 * a fault on an unmapped address leaves the destination untouched.
 *
 * A large copy is cut into slices that idle pool workers run beside the
 * calling thread (a real DMA engine is hardware of its own; one copying
 * thread cannot keep up with memcpy through process_vm_readv). Every slice
 * checks between chunks whether the submission was stopped, and whether a
 * slice before it faulted; the packet reports the fault a serial copy
 * would have met first.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include "hpusim.h"

/* every slice of a step fits the affine claim of hpusim_par_run() */
_Static_assert(HPUSIM_DMA_PAR_MAX <= HPUSIM_PAR_AFFINE_MAX, "DMA slices");

static __thread uint8_t dma_bounce[HPUSIM_DMA_BOUNCE + 8];

static void set_fault(struct hpu_fw_fault *f, uint64_t addr, bool is_write)
{
	f->addr = addr;
	f->is_write = is_write;
}

/*
 * Copy one piece; both segments are at least @n bytes. Return bytes done.
 * Device memory is given to hostmem.c with its allocation (zero-copy);
 * shared host memory and the bounce buffer without (copied through the
 * access's own buffer).
 */
static uint64_t copy_piece(struct hpu_fw_as *as, const struct hpusim_seg *d,
			   const struct hpusim_seg *s, uint64_t n,
			   bool *write_fault, const bool *stop)
{
	uint64_t got;

	*write_fault = false;
	if (d->ptr && s->ptr) {
		memmove(d->ptr, s->ptr, n);
		return n;
	}
	if (d->ptr)
		return hpusim_host_copy(as, s->map, s->host_addr, d->ptr, n,
					false, d->map->mem, stop);
	if (s->ptr) {
		*write_fault = true;
		return hpusim_host_copy(as, d->map, d->host_addr, s->ptr, n,
					true, s->map->mem, stop);
	}
	got = hpusim_host_copy(as, s->map, s->host_addr, dma_bounce, n, false,
			       NULL, stop);
	if (got < n)
		return got;
	*write_fault = true;
	return hpusim_host_copy(as, d->map, d->host_addr, dma_bounce, n, true,
				NULL, stop);
}

/*
 * Forward copy between a host piece @h and device memory starting with the
 * piece @v: one process_vm_readv/writev for the whole host piece, with an
 * iovec per physical extent of the device side. Return bytes moved; *@n
 * is what was asked.
 */
static uint64_t copy_host_dev(struct hpu_fw_as *as, const struct hpusim_seg *h,
			      const struct hpusim_seg *v, uint64_t dev_va,
			      bool to_host, uint64_t *n, const bool *stop)
{
	struct iovec iov[HPUSIM_DMA_IOV];
	struct hpusim_seg more;
	unsigned int cnt = 1;
	uint64_t want = h->len;

	iov[0].iov_base = v->ptr;
	iov[0].iov_len = v->len < want ? v->len : want;
	*n = iov[0].iov_len;
	/* a gap in the device side faults in the caller's next round */
	while (*n < want && cnt < HPUSIM_DMA_IOV &&
	       !hpusim_mmu_seg(as, dev_va + *n, want - *n, false, &more) &&
	       more.ptr && more.map == v->map) {
		iov[cnt].iov_base = more.ptr;
		iov[cnt++].iov_len = more.len;
		*n += more.len;
	}
	/* the pieces lie in one mapping: @local pins that allocation
	 * (a hinted mapping may follow another without a guard gap) */
	return hpusim_host_copyv(as, h->map, h->host_addr, iov, cnt, to_host,
				 v->map->mem, stop);
}

/* Copy [off, off + len) of the packet, forward or from its end */
static int copy_range(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
		      uint64_t len, bool back, struct hpu_fw_fault *fault,
		      const bool *stop)
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
		if (!back && !s.ptr != !d.ptr) {
			wf = !d.ptr;
			got = wf ? copy_host_dev(as, &d, &s, src, true, &n,
						 stop) :
				   copy_host_dev(as, &s, &d, dst, false, &n,
						 stop);
			if (got < n) {
				set_fault(fault, (wf ? dst : src) + got, wf);
				return -EFAULT;
			}
			src += n;
			dst += n;
			len -= n;
			continue;
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
		got = copy_piece(as, &d, &s, n, &wf, stop);
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

/**
 * struct dma_step - one step of a LIN_DMA packet, cut into slices
 * @as: address space
 * @dst: destination VA of the step's first byte
 * @src: source VA of the step's first byte
 * @len: bytes of the step
 * @slice: bytes per slice (the last may be shorter)
 * @back: copy from the end (overlap with @dst above @src; one slice)
 * @overlap: source and destination of the packet overlap (one slice: a
 *	later slice could overwrite what an earlier one has yet to read)
 * @stop: the submission's stop flag
 * @fault_slice: lowest slice that faulted, UINT_MAX for none (atomic)
 * @stopped: a slice saw @stop (atomic)
 * @faults: each slice's fault
 */
struct dma_step {
	struct hpu_fw_as *as;
	uint64_t dst;
	uint64_t src;
	uint64_t len;
	uint64_t slice;
	bool back;
	bool overlap;
	const bool *stop;
	unsigned int fault_slice;
	bool stopped;
	struct hpu_fw_fault faults[HPUSIM_DMA_PAR_MAX];
};

static bool step_should_stop(struct dma_step *st, unsigned int i)
{
	if (st->stop && __atomic_load_n(st->stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&st->stopped, true, __ATOMIC_RELAXED);
		return true;
	}
	/* a slice before this one failed the packet: the rest is moot */
	return __atomic_load_n(&st->fault_slice, __ATOMIC_RELAXED) < i;
}

static void step_fault(struct dma_step *st, unsigned int i)
{
	unsigned int cur = __atomic_load_n(&st->fault_slice, __ATOMIC_RELAXED);

	while (i < cur &&
	       !__atomic_compare_exchange_n(&st->fault_slice, &cur, i, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Copy slice @i of a step, chunk by chunk (struct hpusim_par.fn) */
static void step_slice(void *arg, unsigned int i)
{
	struct dma_step *st = arg;
	uint64_t first = (uint64_t)i * st->slice;
	uint64_t slen = st->len - first < st->slice ? st->len - first :
						      st->slice;
	uint64_t left = slen, n, off;
	int ret;

	while (left) {
		if (step_should_stop(st, i))
			return;
		n = left < HPUSIM_DMA_CHUNK ? left : HPUSIM_DMA_CHUNK;
		off = st->back ? first + left - n : first + slen - left;
		/* held for one chunk: an unmap waits for at most that */
		pthread_rwlock_rdlock(&st->as->map_lock);
		ret = copy_range(st->as, st->dst + off, st->src + off, n,
				 st->back, &st->faults[i], st->stop);
		pthread_rwlock_unlock(&st->as->map_lock);
		/* a host access given up for the stop is no fault */
		if (ret && step_should_stop(st, i))
			return;
		if (ret) {
			step_fault(st, i);
			return;
		}
		left -= n;
	}
}

/*
 * Whether both ends of the step start in memory the model addresses
 * directly (HBM, shared host memory): then it is copied with memmove
 * and fine slices cost nothing; pageable host memory goes through an
 * access thread per call (hostmem.c), and keeps one slice per thread
 */
static bool step_direct(struct dma_step *st)
{
	struct hpusim_seg s, d;
	bool direct;

	pthread_rwlock_rdlock(&st->as->map_lock);
	direct = !hpusim_mmu_seg(st->as, st->src, st->len, false, &s) &&
		 !hpusim_mmu_seg(st->as, st->dst, st->len, false, &d) &&
		 s.ptr && d.ptr;
	pthread_rwlock_unlock(&st->as->map_lock);
	return direct;
}

/*
 * Slices for @len bytes, when a worker could help. Direct copies
 * (step_direct()): HPUSIM_DMA_PAR_SLICE each (at most HPUSIM_DMA_PAR_MAX
 * of them), claimed from each CPU's home range (hpusim_par_affine_pick()):
 * a helper that comes late costs the runner at most the slice it is still
 * copying, and the parts of the buffer far from where the two threads
 * meet keep their CPU. Others: one per thread that could help, at least
 * HPUSIM_DMA_PAR_MIN / 2 each.
 */
static void step_cut(struct dma_step *st, struct hpusim_par *par)
{
	uint64_t w, slice;

	par->nslices = 1;
	st->slice = st->len;
	if (st->overlap || st->len < HPUSIM_DMA_PAR_MIN)
		return;
	w = hpusim_par_width();
	if (w < 2)
		return;
	if (step_direct(st)) {
		slice = HPUSIM_DMA_PAR_SLICE;
		if (st->len > slice * HPUSIM_DMA_PAR_MAX)
			slice = (st->len + HPUSIM_DMA_PAR_MAX - 1) /
				HPUSIM_DMA_PAR_MAX;
	} else {
		if (w > HPUSIM_DMA_PAR_MAX)
			w = HPUSIM_DMA_PAR_MAX;
		if (w > st->len / (HPUSIM_DMA_PAR_MIN / 2))
			w = st->len / (HPUSIM_DMA_PAR_MIN / 2);
		slice = (st->len + w - 1) / w;
	}
	slice = (slice + HPUSIM_DMA_PAR_ALIGN - 1) &
		~(uint64_t)(HPUSIM_DMA_PAR_ALIGN - 1);
	st->slice = slice;
	par->nslices = (unsigned int)((st->len + slice - 1) / slice);
}

int hpusim_dma_check(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
		     uint64_t size, struct hpu_fw_fault *fault)
{
	uint64_t bad;
	int ret = 0;

	pthread_rwlock_rdlock(&as->map_lock);
	if (hpusim_mmu_check(as, src, size, &bad)) {
		set_fault(fault, bad, false);
		ret = -EFAULT;
	} else if (hpusim_mmu_check(as, dst, size, &bad)) {
		set_fault(fault, bad, true);
		ret = -EFAULT;
	}
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

int64_t hpusim_dma_copy(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			uint64_t size, uint64_t done, uint64_t max,
			const bool *stop, struct hpu_fw_fault *fault)
{
	struct dma_step st = {
		.as = as,
		.back = dst > src && dst - src < size,
		.overlap = (dst > src ? dst - src : src - dst) < size,
		.stop = stop,
		.fault_slice = UINT_MAX,
	};
	struct hpusim_par par = { .fn = step_slice,
				  .arg = &st,
				  .affine = true };
	uint64_t n = size - done, off;

	if (n > max)
		n = max;
	off = st.back ? size - done - n : done;
	if (!done && hpusim_dma_check(as, dst, src, size, fault))
		return -EFAULT;
	st.dst = dst + off;
	st.src = src + off;
	st.len = n;
	step_cut(&st, &par);
	hpusim_par_run(&par); /* no lock held: helpers take map_lock */
	if (st.fault_slice != UINT_MAX) {
		*fault = st.faults[st.fault_slice];
		return -EFAULT;
	}
	return st.stopped ? -ECANCELED : (int64_t)n;
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
			got = hpusim_host_copy(as, d.map, d.host_addr,
					       dma_bounce, d.len, true, NULL,
					       NULL);
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
