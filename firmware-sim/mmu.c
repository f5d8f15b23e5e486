// SPDX-License-Identifier: MIT
/*
 * mmu.c - address spaces: the VA-sorted mapping table, VA allocation,
 * translation of device VAs. Pageable host memory of the process that
 * mapped it is reached through hostmem.c (bounded, guarded by its pidfd);
 * shared host memory the driver mapped is reached like device memory.
 *
 * Every access an engine makes goes through hpusim_mmu_seg() with the
 * address space's map_lock held for reading, for at most one DMA chunk
 * (and at most one host access bound); unmap takes it for writing, so a
 * mapping is never freed under an engine, and an access after the unmap
 * faults.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hpusim.h"
#include "trace.h"

#define HPUSIM_VA_PAGE	4096ULL
#define HPUSIM_VA_GUARD HPUSIM_VA_PAGE /* unmapped gap after each mapping */

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int hpusim_as_create(struct hpu_fw_device *dev, struct hpu_fw_as **out)
{
	pthread_rwlockattr_t attr;
	struct hpu_fw_as *as;
	int ret;

	if (!dev || !out)
		return -EINVAL;
	as = calloc(1, sizeof(*as));
	if (!as)
		return -ENOMEM;
	as->dev = dev;
	hpusim_list_init(&as->waiters);
	hpusim_list_init(&as->cs_list);
	pthread_rwlockattr_init(&attr);
	/* engines read all the time: an unmap must not starve */
	pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = pthread_rwlock_init(&as->map_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (ret)
		goto err_free_as;
	ret = pthread_mutex_init(&as->sync_lock, NULL);
	if (ret)
		goto err_destroy_rwlock;
	ret = -hpusim_hostmem_as_init(as);
	if (ret)
		goto err_destroy_sync;
	ret = -hpusim_nic_as_init(as);
	if (ret)
		goto err_fini_hostmem;

	pthread_mutex_lock(&dev->as_lock);
	hpusim_list_add_tail(&as->node, &dev->as_list);
	pthread_mutex_unlock(&dev->as_lock);
	*out = as;
	return 0;

err_fini_hostmem:
	hpusim_hostmem_as_fini(as);
err_destroy_sync:
	pthread_mutex_destroy(&as->sync_lock);
err_destroy_rwlock:
	pthread_rwlock_destroy(&as->map_lock);
err_free_as:
	free(as);
	return -ret;
}

/* Drop a mapping's hold on its allocation (a pidfd stays the driver's) */
static void mapping_put(struct hpu_fw_as *as, struct hpusim_mapping *m)
{
	if (!m->mem)
		return;
	pthread_mutex_lock(&as->dev->mem_lock);
	m->mem->map_count--;
	pthread_mutex_unlock(&as->dev->mem_lock);
}

void hpusim_as_destroy(struct hpu_fw_as *as)
{
	struct hpu_fw_device *dev;
	uint32_t i;

	if (!as)
		return;
	dev = as->dev;
	/* an engine waiting on a stuck host access of it gives up now */
	hpusim_hostmem_as_dying(as);
	hpusim_as_abort_all(as);
	hpusim_trace_free(as);
	/* peers' writes into its regions end before anything goes */
	hpusim_nic_as_fini(as);

	pthread_mutex_lock(&dev->as_lock);
	hpusim_list_del(&as->node);
	pthread_mutex_unlock(&dev->as_lock);

	pthread_rwlock_wrlock(&as->map_lock);
	for (i = 0; i < as->nmaps; i++)
		mapping_put(as, &as->maps[i]);
	as->nmaps = 0;
	pthread_rwlock_unlock(&as->map_lock);

	hpusim_hostmem_as_fini(as);
	pthread_mutex_destroy(&as->sync_lock);
	pthread_rwlock_destroy(&as->map_lock);
	free(as->maps);
	free(as);
}

/* Index of the first mapping whose span starts above @va */
static uint32_t map_upper(const struct hpu_fw_as *as, uint64_t va)
{
	uint32_t lo = 0, hi = as->nmaps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (as->maps[mid].span_start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct hpusim_mapping *map_find(const struct hpu_fw_as *as,
					     uint64_t va)
{
	uint32_t i = map_upper(as, va);
	const struct hpusim_mapping *m;

	if (!i)
		return NULL;
	m = &as->maps[i - 1];
	return va >= m->va && va - m->va < m->size ? m : NULL;
}

/* End of the pages a mapping's bytes occupy (its span without the guard) */
static uint64_t data_end(const struct hpusim_mapping *m)
{
	return round_up(m->va + m->size, HPUSIM_VA_PAGE);
}

/*
 * Whether a hinted mapping of pages [@start, @end) fits: no other
 * mapping's pages are in the range. Guards are the allocator's own
 * choice, not the client's: a hint may take the guard page after the
 * mapping before it (as the real driver, which keeps no gaps, lets
 * hl-thunk map right after another mapping); *@guard tells whether the
 * new mapping keeps its own guard (the page after it is free).
 */
static bool hint_free(const struct hpu_fw_as *as, uint64_t start, uint64_t end,
		      bool *guard)
{
	uint32_t i = map_upper(as, start);

	/* mappings never share pages: only the one below can reach here */
	if (i && data_end(&as->maps[i - 1]) > start)
		return false;
	if (i < as->nmaps && as->maps[i].span_start < end)
		return false;
	*guard = i == as->nmaps ||
		 as->maps[i].span_start >= end + HPUSIM_VA_GUARD;
	return true;
}

/*
 * Find room for @len bytes (guard included) aligned to @align in
 * [@lo, @hi): the hint when it is usable, else the lowest gap; *@len is
 * cut by the guard when a hint's mapping has no room for its own.
 */
static int va_alloc(const struct hpu_fw_as *as, uint64_t lo, uint64_t hi,
		    uint64_t *len_io, uint64_t align, uint64_t hint, bool fixed,
		    uint64_t *start)
{
	uint64_t cand = lo, len = *len_io;
	bool guard;
	uint32_t i;

	if (hint || fixed) {
		bool ok = !(hint & (align - 1)) && hint >= lo && hint < hi &&
			  len <= hi - hint;

		if (ok &&
		    hint_free(as, hint, hint + len - HPUSIM_VA_GUARD, &guard)) {
			if (!guard)
				*len_io = len - HPUSIM_VA_GUARD;
			*start = hint;
			return 0;
		}
		if (fixed)
			return ok ? -EEXIST : -EINVAL;
	}
	for (i = map_upper(as, lo); i <= as->nmaps; i++) {
		uint64_t next = i < as->nmaps ? as->maps[i].span_start : hi;

		/* a hinted mapping may lack a guard: keep one after it */
		if (i && as->maps[i - 1].span_end > cand)
			cand = as->maps[i - 1].span_end;
		if (i && data_end(&as->maps[i - 1]) + HPUSIM_VA_GUARD > cand)
			cand = data_end(&as->maps[i - 1]) + HPUSIM_VA_GUARD;
		cand = round_up(cand, align);
		if (cand >= hi || next > hi)
			break;
		if (cand + len <= next && cand + len > cand) {
			*start = cand;
			return 0;
		}
	}
	return -ENOMEM;
}

static int map_insert(struct hpu_fw_as *as, const struct hpusim_mapping *m)
{
	uint32_t i;

	if (as->nmaps == as->cap) {
		uint32_t cap = as->cap ? as->cap * 2 : 16;
		struct hpusim_mapping *n = realloc(as->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		as->maps = n;
		as->cap = cap;
	}
	i = map_upper(as, m->span_start);
	memmove(&as->maps[i + 1], &as->maps[i],
		(as->nmaps - i) * sizeof(*as->maps));
	as->maps[i] = *m;
	as->nmaps++;
	return 0;
}

int hpusim_map_mem(struct hpu_fw_as *as, struct hpu_fw_mem *mem,
		   uint64_t va_hint, bool fixed, uint64_t *va)
{
	struct hpusim_mapping m = { .pidfd = -1, .mem = mem };
	uint64_t align, span;
	int ret;

	if (!as || !mem || !va || mem->dev != as->dev)
		return -EINVAL;
	align = mem->page_size;
	span = mem->size + HPUSIM_VA_GUARD;
	pthread_rwlock_wrlock(&as->map_lock);
	ret = va_alloc(as, HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_DEVICE_END, &span,
		       align, va_hint, fixed, &m.span_start);
	if (ret)
		goto out_unlock;
	m.va = m.span_start;
	m.size = mem->size;
	m.span_end = m.span_start + span;
	ret = map_insert(as, &m);
	if (ret)
		goto out_unlock;
	pthread_mutex_lock(&as->dev->mem_lock);
	mem->map_count++;
	pthread_mutex_unlock(&as->dev->mem_lock);
	*va = m.va;
out_unlock:
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

int hpusim_map_host(struct hpu_fw_as *as, const struct hpu_fw_host_range *r,
		    uint64_t va_hint, bool fixed, uint64_t *va)
{
	struct hpusim_mapping m = { .pidfd = -1 };
	uint64_t pgoff, span;
	int ret;

	if (!as || !r || !va || !r->size || r->pid <= 0 || r->pidfd < 0 ||
	    r->addr + r->size < r->addr)
		return -EINVAL;
	ret = hpusim_host_probe(as, r);
	if (ret)
		return ret;
	pgoff = r->addr & (HPUSIM_VA_PAGE - 1);
	span = round_up(pgoff + r->size, HPUSIM_VA_PAGE) + HPUSIM_VA_GUARD;
	if (fixed && (va_hint & (HPUSIM_VA_PAGE - 1)) &&
	    (va_hint & (HPUSIM_VA_PAGE - 1)) != pgoff)
		return -EINVAL;
	va_hint &= ~(HPUSIM_VA_PAGE - 1);

	pthread_rwlock_wrlock(&as->map_lock);
	ret = va_alloc(as, HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END, &span,
		       HPUSIM_VA_PAGE, va_hint, fixed, &m.span_start);
	if (ret)
		goto out_unlock;
	m.span_end = m.span_start + span;
	m.va = m.span_start + pgoff;
	m.size = r->size;
	m.pid = r->pid;
	m.pidfd = r->pidfd;
	m.host_addr = r->addr;
	ret = map_insert(as, &m);
	if (!ret)
		*va = m.va;
out_unlock:
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

int hpusim_map_shared(struct hpu_fw_as *as, void *ptr, uint64_t size,
		      uint64_t va_hint, bool fixed, uint64_t *va)
{
	struct hpusim_mapping m = { .pidfd = -1, .shm = ptr };
	uint64_t span = size + HPUSIM_VA_GUARD;
	int ret;

	if (!as || !ptr || !va || !size || size + HPUSIM_VA_GUARD < size ||
	    ((uintptr_t)ptr | size) & (HPUSIM_VA_PAGE - 1))
		return -EINVAL;
	pthread_rwlock_wrlock(&as->map_lock);
	ret = va_alloc(as, HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END, &span,
		       HPUSIM_VA_PAGE, va_hint, fixed, &m.span_start);
	if (ret)
		goto out_unlock;
	m.va = m.span_start;
	m.size = size;
	m.span_end = m.span_start + span;
	ret = map_insert(as, &m);
	if (!ret)
		*va = m.va;
out_unlock:
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

int hpusim_unmap(struct hpu_fw_as *as, uint64_t va, int *pidfd)
{
	struct hpusim_mapping m;
	uint32_t i;

	if (pidfd)
		*pidfd = -1;
	if (!as)
		return -EINVAL;
	pthread_rwlock_wrlock(&as->map_lock);
	i = map_upper(as, va);
	if (!i || as->maps[i - 1].va != va) {
		pthread_rwlock_unlock(&as->map_lock);
		return -ENOENT;
	}
	m = as->maps[i - 1];
	memmove(&as->maps[i - 1], &as->maps[i],
		(as->nmaps - i) * sizeof(*as->maps));
	as->nmaps--;
	pthread_rwlock_unlock(&as->map_lock);

	mapping_put(as, &m);
	if (!m.mem && pidfd)
		*pidfd = m.pidfd;
	return 0;
}

int hpusim_mmu_seg(struct hpu_fw_as *as, uint64_t va, uint64_t len, bool back,
		   struct hpusim_seg *seg)
{
	const struct hpusim_mapping *m;
	uint64_t at = back ? va + len - 1 : va;
	uint64_t off, fwd, bwd, n;

	m = map_find(as, at);
	if (!m)
		return -EFAULT;
	off = at - m->va;
	seg->map = m;
	seg->ptr = NULL;
	seg->host_addr = 0;
	if (m->shm) {
		/* shared host memory is one contiguous piece */
		n = back ? off + 1 : m->size - off;
		n = n < len ? n : len;
		seg->ptr = m->shm + (back ? off - (n - 1) : off);
		seg->len = n;
		return 0;
	}
	if (!back) {
		n = m->size - off;
		if (m->mem) {
			seg->ptr = hpusim_mem_ptr(m->mem, off, &fwd, &bwd);
			if (n > fwd)
				n = fwd;
		}
		n = n < len ? n : len;
		seg->host_addr = m->host_addr + off;
	} else {
		n = off + 1;
		if (m->mem) {
			seg->ptr = hpusim_mem_ptr(m->mem, off, &fwd, &bwd);
			if (n > bwd + 1)
				n = bwd + 1;
		}
		n = n < len ? n : len;
		if (seg->ptr)
			seg->ptr -= n - 1;
		seg->host_addr = m->host_addr + off - (n - 1);
	}
	if (m->mem)
		seg->host_addr = 0;
	seg->len = n;
	return 0;
}

int hpusim_mmu_check(struct hpu_fw_as *as, uint64_t va, uint64_t len,
		     uint64_t *fault_va)
{
	const struct hpusim_mapping *m;
	uint64_t n;

	if (va + len < va) {
		*fault_va = va;
		return -EFAULT;
	}
	while (len) {
		m = map_find(as, va);
		if (!m) {
			*fault_va = va;
			return -EFAULT;
		}
		n = m->size - (va - m->va);
		if (n > len)
			n = len;
		va += n;
		len -= n;
	}
	return 0;
}

int hpusim_mmu_write32(struct hpu_fw_as *as, uint64_t va, uint32_t value)
{
	uint8_t bytes[4] = { value, value >> 8, value >> 16, value >> 24 };
	uint64_t fault;
	int ret;

	pthread_rwlock_rdlock(&as->map_lock);
	ret = hpusim_mmu_rw(as, va, bytes, sizeof(bytes), true, false, &fault);
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

int hpusim_mmu_rw(struct hpu_fw_as *as, uint64_t va, void *buf, uint64_t len,
		  bool write, bool dev_only, uint64_t *fault_va)
{
	struct hpusim_seg seg;
	uint8_t *p = buf;
	uint64_t got;

	/*
	 * A store is all or nothing (no byte before a hole); a read stops
	 * at the hole, its bytes before it being no result
	 */
	if (write && hpusim_mmu_check(as, va, len, fault_va))
		return -EFAULT;
	while (len) {
		if (hpusim_mmu_seg(as, va, len, false, &seg) ||
		    (dev_only && !seg.map->mem)) {
			*fault_va = va;
			return -EFAULT;
		}
		if (seg.ptr) {
			if (write)
				memcpy(seg.ptr, p, seg.len);
			else
				memcpy(p, seg.ptr, seg.len);
		} else {
			got = hpusim_host_copy(as, seg.map, seg.host_addr, p,
					       seg.len, write, NULL, NULL);
			if (got != seg.len) {
				*fault_va = va + got;
				return -EFAULT;
			}
		}
		va += seg.len;
		p += seg.len;
		len -= seg.len;
	}
	return 0;
}

int hpusim_as_read_dev(struct hpu_fw_as *as, uint64_t va, void *buf,
		       uint64_t len)
{
	uint64_t fault;
	int ret;

	if (!as || !buf || !len || len > HPU_FW_AS_READ_MAX)
		return -EINVAL;
	pthread_rwlock_rdlock(&as->map_lock);
	ret = hpusim_mmu_rw(as, va, buf, len, false, true, &fault);
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}
