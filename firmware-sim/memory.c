// SPDX-License-Identifier: MIT
/*
 * memory.c - device memory: the HBM and SRAM pools, their physical page
 * allocator, allocations and exports.
 *
 * Each pool is one private anonymous MAP_NORESERVE mapping of its full
 * size: only pages that are touched cost host memory, and nothing in it
 * lives on a size-limited tmpfs. A freed range is given back with
 * MADV_DONTNEED, so the next allocation of it reads as zero.
 *
 * Export replaces the allocation's pages with a file in the device's
 * export directory under /dev/shm: the file is fully allocated first
 * (fallocate, so a full tmpfs is -ENOMEM and never a SIGBUS later), the
 * bytes already written are copied into it, and it is mapped MAP_SHARED |
 * MAP_FIXED over the allocation's extents. The pool pointer stays the
 * same, so the engines see no difference. Free unlinks the file and puts
 * anonymous memory back. Directories left by processes that died without
 * destroying their devices are removed when a device is created.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpusim.h"

#define HPUSIM_HOST_PAGE 4096ULL
#define HPUSIM_SHM_DIR	 "/dev/shm"

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

#define HPUSIM_POOL_HUGE (2ULL << 20) /* transparent huge page size */

/*
 * The pool's reservation, 2 MiB-aligned; with @huge_pages MADV_HUGEPAGE
 * (HBM): copies into and out of it take fewer TLB misses, and only the
 * 2 MiB ranges that are touched get memory, the default HBM page size
 * anyway. SRAM (4 KiB pages by default) keeps small pages, so a small
 * allocation does not commit 2 MiB.
 */
static void *pool_map(uint64_t size, bool huge_pages)
{
	const uint64_t huge = HPUSIM_POOL_HUGE;
	uint8_t *p, *a;

	p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return MAP_FAILED;
	a = (uint8_t *)(uintptr_t)round_up((uintptr_t)p, huge);
	if (a > p)
		munmap(p, a - p);
	munmap(a + size, p + huge - a);
	/* only a hint: an error changes nothing but speed */
	if (huge_pages)
		madvise(a, size, MADV_HUGEPAGE);
	return a;
}

static int pool_init(struct hpusim_pool *pool, uint64_t size, bool huge_pages)
{
	void *p;

	memset(pool, 0, sizeof(*pool));
	pool->huge_pages = huge_pages;
	p = pool_map(size, huge_pages);
	if (p == MAP_FAILED)
		return -ENOMEM;
	pool->base = p;
	pool->size = size;
	pool->cap = 16;
	pool->free = calloc(pool->cap, sizeof(*pool->free));
	if (!pool->free) {
		munmap(p, size);
		return -ENOMEM;
	}
	pool->free[0].off = 0;
	pool->free[0].len = size;
	pool->nfree = 1;
	return 0;
}

/*
 * @keep_va: host accesses given up may still copy into the pool
 * (hostmem.c): its memory goes back, but its addresses stay reserved,
 * inaccessible, so such a late copy fails instead of reaching whatever
 * would be mapped there next.
 */
static void pool_fini(struct hpusim_pool *pool, bool keep_va)
{
	if (pool->base && keep_va)
		mmap(pool->base, pool->size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		     -1, 0);
	else if (pool->base)
		munmap(pool->base, pool->size);
	free(pool->free);
	memset(pool, 0, sizeof(*pool));
}

/*
 * Room for @extra more free extents now, and for every later free: the
 * free extents never outnumber the allocated pieces plus one.
 */
static int pool_reserve(struct hpusim_pool *pool, uint32_t extra)
{
	uint64_t need = pool->nfree + extra;
	struct hpusim_extent *n;
	uint32_t cap = pool->cap;

	if (need < pool->pieces + extra + 1)
		need = pool->pieces + extra + 1;
	while (need > cap)
		cap *= 2;
	if (cap == pool->cap)
		return 0;
	n = realloc(pool->free, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	pool->free = n;
	pool->cap = cap;
	return 0;
}

/* Take [off, off + len) out of free extent @i (it lies inside) */
static void pool_carve(struct hpusim_pool *pool, uint32_t i, uint64_t off,
		       uint64_t len)
{
	struct hpusim_extent *e = &pool->free[i];
	uint64_t end = e->off + e->len;

	if (off == e->off && len == e->len) {
		memmove(e, e + 1, (pool->nfree - i - 1) * sizeof(*e));
		pool->nfree--;
	} else if (off == e->off) {
		e->off += len;
		e->len -= len;
	} else if (off + len == end) {
		e->len -= len;
	} else {
		/* split: caller reserved room for one more entry */
		memmove(e + 2, e + 1, (pool->nfree - i - 1) * sizeof(*e));
		pool->nfree++;
		e->len = off - e->off;
		e[1].off = off + len;
		e[1].len = end - (off + len);
	}
	pool->used += len;
}

/* Give [off, off + len) back, coalescing with its neighbours */
static void pool_release(struct hpusim_pool *pool, uint64_t off, uint64_t len)
{
	struct hpusim_extent *f = pool->free;
	uint32_t i = 0;

	while (i < pool->nfree && f[i].off < off)
		i++;
	pool->used -= len;
	if (i > 0 && f[i - 1].off + f[i - 1].len == off) {
		f[i - 1].len += len;
		if (i < pool->nfree && off + len == f[i].off) {
			f[i - 1].len += f[i].len;
			memmove(&f[i], &f[i + 1],
				(pool->nfree - i - 1) * sizeof(*f));
			pool->nfree--;
		}
		return;
	}
	if (i < pool->nfree && off + len == f[i].off) {
		f[i].off = off;
		f[i].len += len;
		return;
	}
	/* room was reserved when the extent was allocated */
	memmove(&f[i + 1], &f[i], (pool->nfree - i) * sizeof(*f));
	f[i].off = off;
	f[i].len = len;
	pool->nfree++;
}

/* Bytes of whole aligned pages free in extent @e */
static uint64_t extent_usable(const struct hpusim_extent *e, uint64_t page)
{
	uint64_t start = round_up(e->off, page);
	uint64_t end = (e->off + e->len) & ~(page - 1);

	return end > start ? end - start : 0;
}

/*
 * Allocate @size bytes in pages of @page: one extent when it fits (always
 * for @contiguous), else aligned pieces from the lowest free extents.
 */
static int pool_alloc(struct hpusim_pool *pool, uint64_t size, uint64_t page,
		      bool contiguous, struct hpu_fw_mem *mem)
{
	uint64_t total = 0, left, start, take;
	uint32_t i, n = 0;

	if (size > pool->size - pool->used)
		return -ENOMEM;
	for (i = 0; i < pool->nfree; i++) {
		if (extent_usable(&pool->free[i], page) < size)
			continue;
		mem->ext = calloc(1, sizeof(*mem->ext));
		if (!mem->ext || pool_reserve(pool, 2))
			goto err_nomem;
		start = round_up(pool->free[i].off, page);
		pool_carve(pool, i, start, size);
		pool->pieces++;
		mem->ext[0].off = start;
		mem->ext[0].len = size;
		mem->nr_ext = 1;
		return 0;
	}
	if (contiguous)
		return -ENOMEM;
	for (i = 0; i < pool->nfree && total < size; i++, n++)
		total += extent_usable(&pool->free[i], page);
	if (total < size)
		return -ENOMEM;
	mem->ext = calloc(n, sizeof(*mem->ext));
	if (!mem->ext || pool_reserve(pool, 2 * n + 1))
		goto err_nomem;
	left = size;
	i = 0;
	while (left) {
		struct hpusim_extent *e = &pool->free[i];

		take = extent_usable(e, page);
		if (!take) {
			i++;
			continue;
		}
		if (take > left)
			take = left;
		start = round_up(e->off, page);
		mem->ext[mem->nr_ext].off = start;
		mem->ext[mem->nr_ext].len = take;
		mem->nr_ext++;
		pool_carve(pool, i, start, take);
		pool->pieces++;
		left -= take;
		/* the extent at @i is now what followed the piece, if any */
		if (pool->nfree > i && pool->free[i].off < start)
			i++;
	}
	return 0;

err_nomem:
	free(mem->ext);
	mem->ext = NULL;
	return -ENOMEM;
}

/* Remove export directory @name (under @shm) and the files in it */
static void export_dir_remove(int shm, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(shm, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(shm, name, AT_REMOVEDIR);
}

/*
 * Export directories of processes that died without destroying their
 * devices (SIGKILL) would pin tmpfs memory forever: remove those of this
 * user whose process is gone.
 */
static void export_sweep(void)
{
	struct dirent *de;
	struct stat st;
	unsigned int idx;
	int pid, shm;
	DIR *d;

	d = opendir(HPUSIM_SHM_DIR);
	if (!d)
		return;
	shm = dirfd(d);
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "hpusim-%d-%u-", &pid, &idx) != 2 ||
		    pid <= 0 || pid == getpid())
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(shm, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		export_dir_remove(shm, de->d_name);
	}
	closedir(d);
}

/**
 * hpusim_mem_init() - create the HBM and SRAM pools and the export directory
 * @dev: device with its profile set
 *
 * Return: 0 or -errno.
 */
int hpusim_mem_init(struct hpu_fw_device *dev)
{
	const struct hpu_fw_profile *p = dev->profile;
	int ret;

	hpusim_list_init(&dev->mems);
	ret = pthread_mutex_init(&dev->mem_lock, NULL);
	if (ret)
		return -ret;
	ret = pool_init(&dev->hbm, dev->dram_size, true);
	if (ret)
		goto err_destroy_lock;
	ret = pool_init(&dev->sram, p->sram_size, false);
	if (ret)
		goto err_fini_hbm;
	export_sweep();
	snprintf(dev->export_dir, sizeof(dev->export_dir),
		 HPUSIM_SHM_DIR "/hpusim-%d-%u-XXXXXX", (int)getpid(),
		 dev->index);
	if (!mkdtemp(dev->export_dir)) {
		ret = -errno;
		goto err_fini_sram;
	}
	/* others may open a file by name (the driver sets its owner) */
	chmod(dev->export_dir, 0711);
	return 0;

err_fini_sram:
	pool_fini(&dev->sram, false);
err_fini_hbm:
	pool_fini(&dev->hbm, false);
err_destroy_lock:
	pthread_mutex_destroy(&dev->mem_lock);
	return ret;
}

static void export_path(const struct hpu_fw_mem *mem, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%llu", mem->dev->export_dir,
		 (unsigned long long)mem->export_id);
}

/* Give the allocation's pages back to the host and to the pool */
static void mem_release(struct hpu_fw_mem *mem)
{
	struct hpusim_pool *pool = mem->pool;
	char path[128];
	uint32_t i;

	for (i = 0; i < mem->nr_ext; i++) {
		uint8_t *p = pool->base + mem->ext[i].off;

		if (mem->export_id) {
			mmap(p, mem->ext[i].len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
				     MAP_FIXED,
			     -1, 0);
			if (pool->huge_pages)
				madvise(p, mem->ext[i].len, MADV_HUGEPAGE);
		} else {
			madvise(p, mem->ext[i].len, MADV_DONTNEED);
		}
		pool_release(pool, mem->ext[i].off, mem->ext[i].len);
		pool->pieces--;
	}
	if (mem->export_id) {
		export_path(mem, path, sizeof(path));
		unlink(path);
	}
	hpusim_list_del(&mem->node);
	free(mem->ext);
	free(mem);
}

/**
 * hpusim_mem_fini() - free every allocation left, the pools, the directory
 * @dev: device; no address space is left
 */
void hpusim_mem_fini(struct hpu_fw_device *dev)
{
	bool keep_va = hpusim_hostmem_dev_fini(dev);

	while (!hpusim_list_empty(&dev->mems))
		mem_release(hpusim_container_of(dev->mems.next,
						struct hpu_fw_mem, node));
	rmdir(dev->export_dir);
	pool_fini(&dev->sram, keep_va);
	pool_fini(&dev->hbm, keep_va);
	pthread_mutex_destroy(&dev->mem_lock);
}

int hpusim_mem_alloc(struct hpu_fw_device *dev, uint64_t size,
		     uint64_t page_size, bool contiguous, bool sram,
		     struct hpu_fw_mem **out)
{
	const struct hpu_fw_profile *p;
	struct hpu_fw_mem *mem;
	int ret;

	if (!dev || !out || !size)
		return -EINVAL;
	p = dev->profile;
	if (!page_size)
		page_size = sram ? HPUSIM_HOST_PAGE : p->dram_page_size;
	if (page_size & (page_size - 1) || !(page_size & p->page_size_mask))
		return -EINVAL;
	if (size > (sram ? p->sram_size : dev->dram_size))
		return -ENOMEM;
	mem = calloc(1, sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	mem->dev = dev;
	mem->pool = sram ? &dev->sram : &dev->hbm;
	mem->size = round_up(size, page_size);
	mem->page_size = page_size;
	mem->sram = sram;
	mem->contiguous = contiguous;

	pthread_mutex_lock(&dev->mem_lock);
	ret = pool_alloc(mem->pool, mem->size, page_size, contiguous, mem);
	if (!ret)
		hpusim_list_add_tail(&mem->node, &dev->mems);
	pthread_mutex_unlock(&dev->mem_lock);
	if (ret) {
		free(mem);
		return ret;
	}
	*out = mem;
	return 0;
}

int hpusim_mem_free(struct hpu_fw_mem *mem)
{
	struct hpu_fw_device *dev;

	if (!mem)
		return -EINVAL;
	dev = mem->dev;
	pthread_mutex_lock(&dev->mem_lock);
	if (mem->map_count) {
		pthread_mutex_unlock(&dev->mem_lock);
		return -EBUSY;
	}
	if (mem->pins)
		mem->freed = true; /* the last unpin releases it */
	else
		mem_release(mem);
	pthread_mutex_unlock(&dev->mem_lock);
	return 0;
}

void hpusim_mem_pin(struct hpu_fw_mem *mem)
{
	struct hpu_fw_device *dev = mem->dev;

	pthread_mutex_lock(&dev->mem_lock);
	mem->pins++;
	dev->mem_pins++;
	pthread_mutex_unlock(&dev->mem_lock);
}

void hpusim_mem_unpin(struct hpu_fw_mem *mem)
{
	struct hpu_fw_device *dev = mem->dev;

	pthread_mutex_lock(&dev->mem_lock);
	dev->mem_pins--;
	if (!--mem->pins && mem->freed)
		mem_release(mem);
	pthread_mutex_unlock(&dev->mem_lock);
}

uint64_t hpusim_mem_size(const struct hpu_fw_mem *mem)
{
	return mem ? mem->size : 0;
}

void hpusim_mem_usage(struct hpu_fw_device *dev, uint64_t *used,
		      uint64_t *total)
{
	pthread_mutex_lock(&dev->mem_lock);
	if (used)
		*used = dev->hbm.used;
	if (total)
		*total = dev->hbm.size;
	pthread_mutex_unlock(&dev->mem_lock);
}

uint8_t *hpusim_mem_ptr(const struct hpu_fw_mem *mem, uint64_t off,
			uint64_t *fwd, uint64_t *back)
{
	uint32_t i;

	for (i = 0; i < mem->nr_ext - 1 && off >= mem->ext[i].len; i++)
		off -= mem->ext[i].len;
	*fwd = mem->ext[i].len - off;
	*back = off;
	return mem->pool->base + mem->ext[i].off + off;
}

/* Copy the resident pages of @src (an extent) into the file at @foff */
static int export_copy(int fd, uint8_t *src, uint64_t len, uint64_t foff)
{
	uint64_t npages = len / HPUSIM_HOST_PAGE, i;
	unsigned char vec[256];
	uint64_t batch, j;

	for (i = 0; i < npages; i += batch) {
		batch = npages - i < sizeof(vec) ? npages - i : sizeof(vec);
		if (mincore(src + i * HPUSIM_HOST_PAGE,
			    batch * HPUSIM_HOST_PAGE, vec))
			return -errno;
		for (j = 0; j < batch; j++) {
			uint64_t o = (i + j) * HPUSIM_HOST_PAGE;

			if (!(vec[j] & 1))
				continue;
			if (pwrite(fd, src + o, HPUSIM_HOST_PAGE,
				   (off_t)(foff + o)) != HPUSIM_HOST_PAGE)
				return -EIO;
		}
	}
	return 0;
}

/* Back the allocation by a new file; dev->mem_lock held */
static int export_locked(struct hpu_fw_mem *mem, uint64_t id)
{
	uint8_t *base = mem->pool->base;
	uint64_t foff = 0;
	char path[128];
	uint32_t i;
	int fd, ret;

	HPU_ASSERT_HELD(&mem->dev->mem_lock);

	snprintf(path, sizeof(path), "%s/%llu", mem->dev->export_dir,
		 (unsigned long long)id);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = posix_fallocate(fd, 0, (off_t)mem->size);
	if (ret) {
		ret = ret == ENOSPC ? -ENOMEM : -ret;
		goto err_unlink;
	}
	for (i = 0; i < mem->nr_ext; i++, foff += mem->ext[i - 1].len) {
		ret = export_copy(fd, base + mem->ext[i].off, mem->ext[i].len,
				  foff);
		if (ret)
			goto err_unlink;
	}
	foff = 0;
	for (i = 0; i < mem->nr_ext; i++) {
		void *p = mmap(base + mem->ext[i].off, mem->ext[i].len,
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       fd, (off_t)foff);

		if (p == MAP_FAILED) {
			/* pages already switched keep the copied bytes */
			ret = -errno;
			goto err_unlink;
		}
		foff += mem->ext[i].len;
	}
	close(fd);
	mem->export_id = id;
	return 0;

err_unlink:
	unlink(path);
	close(fd);
	return ret;
}

int hpusim_mem_export(struct hpu_fw_mem *mem, char *path, size_t len)
{
	struct hpu_fw_device *dev;
	char buf[128];
	int ret = 0;

	if (!mem || !path || !len)
		return -EINVAL;
	dev = mem->dev;
	pthread_mutex_lock(&dev->mem_lock);
	if (!mem->export_id) {
		ret = export_locked(mem, dev->export_seq + 1);
		if (!ret)
			dev->export_seq++;
	}
	if (!ret) {
		export_path(mem, buf, sizeof(buf));
		if (strlen(buf) >= len)
			ret = -ENAMETOOLONG;
		else
			strcpy(path, buf);
	}
	pthread_mutex_unlock(&dev->mem_lock);
	return ret;
}

/**
 * hpusim_export_dir() - fw op export_dir: where export files appear
 * @fw: device
 * @buf: destination
 * @len: bytes at @buf
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int hpusim_export_dir(struct hpu_fw_device *fw, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", fw->export_dir);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
