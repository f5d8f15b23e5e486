// SPDX-License-Identifier: MIT
/*
 * test_fw_memory.c - libhpusim device memory and address spaces, through
 * hpusim_model.ops: allocation, page sizes, contiguity, SRAM, -ENOMEM,
 * sparseness, zero after free, export files, device and host mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpusim.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static const struct hpu_fw_ops *ops;

static struct hpu_fw_device *dev_create(const char *profile)
{
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, profile),
	};
	struct hpu_fw_device *dev = NULL;

	assert_non_null(cfg.profile);
	assert_int_equal(ops->create(&cfg, &dev), 0);
	return dev;
}

static int setup(void **state)
{
	ops = hpusim_model.ops;
	*state = dev_create("gaudi");
	return 0;
}

static int teardown(void **state)
{
	ops->destroy(*state);
	return 0;
}

static uint64_t used_bytes(struct hpu_fw_device *dev)
{
	uint64_t used = ~0ULL, total = 0;

	ops->mem_usage(dev, &used, &total);
	assert_int_equal(total, dev->profile->dram_size);
	return used;
}

/* Resident set of this process, bytes */
static uint64_t rss_bytes(void)
{
	unsigned long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu %lu", &size, &rss), 2);
	fclose(f);
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void test_alloc_sizes(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *a, *b, *c;

	assert_int_equal(used_bytes(dev), 0);
	assert_int_equal(ops->mem_alloc(dev, 1, 0, false, false, &a), 0);
	assert_int_equal(ops->mem_size(a), 2 * MiB); /* default page */
	assert_int_equal(ops->mem_alloc(dev, 4097, 4 * KiB, false, false, &b),
			 0);
	assert_int_equal(ops->mem_size(b), 8 * KiB);
	assert_int_equal(ops->mem_alloc(dev, 1, 1 * GiB, true, false, &c), 0);
	assert_int_equal(ops->mem_size(c), 1 * GiB);
	assert_int_equal(c->ext[0].off % GiB, 0);
	assert_int_equal(used_bytes(dev), 2 * MiB + 8 * KiB + 1 * GiB);
	assert_int_equal(ops->mem_free(a), 0);
	assert_int_equal(ops->mem_free(b), 0);
	assert_int_equal(ops->mem_free(c), 0);
	assert_int_equal(used_bytes(dev), 0);
}

static void test_alloc_rejects(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *m = NULL;

	assert_int_equal(ops->mem_alloc(dev, 0, 0, false, false, &m), -EINVAL);
	assert_int_equal(ops->mem_alloc(dev, 4096, 8 * KiB, false, false, &m),
			 -EINVAL);
	assert_int_equal(ops->mem_alloc(dev, 4096, 3 * KiB, false, false, &m),
			 -EINVAL);
	assert_int_equal(ops->mem_alloc(dev, 33 * GiB, 0, false, false, &m),
			 -ENOMEM);
	assert_null(m);
	assert_int_equal(used_bytes(dev), 0);
}

static void test_alloc_until_full(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *m[40];
	int n = 0, i;

	while (n < 40 &&
	       !ops->mem_alloc(dev, 1 * GiB, 1 * GiB, false, false, &m[n]))
		n++;
	assert_int_equal(n, 32);
	assert_int_equal(used_bytes(dev), 32 * GiB);
	assert_int_equal(ops->mem_alloc(dev, 4096, 4096, false, false, &m[n]),
			 -ENOMEM);
	for (i = 0; i < n; i++)
		assert_int_equal(ops->mem_free(m[i]), 0);
	assert_int_equal(used_bytes(dev), 0);
	/* the whole device comes back as one range */
	assert_int_equal(ops->mem_alloc(dev, 32 * GiB, 0, true, false, &m[0]),
			 0);
	assert_int_equal(ops->mem_free(m[0]), 0);
}

/* SRAM is a pool of its own, not counted as HBM; contiguity is honoured */
static void test_sram_contiguous(void **state)
{
	struct hpu_fw_device *dev = *state;
	uint32_t n = dev->profile->sram_size / (4 * KiB), i;
	struct hpu_fw_mem **m = calloc(n, sizeof(*m));
	struct hpu_fw_mem *big;

	assert_non_null(m);
	for (i = 0; i < n; i++)
		assert_int_equal(
			ops->mem_alloc(dev, 4 * KiB, 0, false, true, &m[i]), 0);
	assert_int_equal(used_bytes(dev), 0);
	assert_int_equal(ops->mem_alloc(dev, 4 * KiB, 0, false, true, &big),
			 -ENOMEM);
	for (i = 0; i < n; i += 2)
		assert_int_equal(ops->mem_free(m[i]), 0);
	/* half is free, in 4 KiB holes: only a scattered allocation fits */
	assert_int_equal(ops->mem_alloc(dev, 8 * KiB, 0, true, true, &big),
			 -ENOMEM);
	assert_int_equal(ops->mem_alloc(dev, 8 * KiB, 0, false, true, &big), 0);
	assert_int_equal(big->nr_ext, 2);
	assert_int_equal(ops->mem_free(big), 0);
	for (i = 1; i < n; i += 2)
		assert_int_equal(ops->mem_free(m[i]), 0);
	assert_int_equal(ops->mem_alloc(dev, dev->profile->sram_size, 0, true,
					true, &big),
			 0);
	assert_int_equal(ops->mem_free(big), 0);
	free(m);
}

static void test_zero_after_free(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *m;
	uint64_t fwd, back;
	uint8_t *p;

	assert_int_equal(ops->mem_alloc(dev, 2 * MiB, 0, true, false, &m), 0);
	p = hpusim_mem_ptr(m, 0, &fwd, &back);
	assert_int_equal(fwd, 2 * MiB);
	memset(p, 0xa5, 2 * MiB);
	assert_int_equal(ops->mem_free(m), 0);
	assert_int_equal(ops->mem_alloc(dev, 2 * MiB, 0, true, false, &m), 0);
	assert_ptr_equal(hpusim_mem_ptr(m, 0, &fwd, &back), p);
	assert_int_equal(p[0], 0);
	assert_int_equal(p[2 * MiB - 1], 0);
	assert_int_equal(ops->mem_free(m), 0);
}

static void test_sparse(void **state)
{
	struct hpu_fw_device *dev;
	struct hpu_fw_mem *m;
	uint64_t before, fwd, back;
	uint8_t *p;

	before = rss_bytes();
	dev = dev_create("gaudi2"); /* 96 GiB */
	assert_true(rss_bytes() < before + 4 * MiB);
	assert_int_equal(ops->mem_alloc(dev, 1 * GiB, 0, false, false, &m), 0);
	p = hpusim_mem_ptr(m, 512 * MiB, &fwd, &back);
	p[0] = 1;
	assert_true(rss_bytes() < before + 8 * MiB);
	assert_int_equal(ops->mem_free(m), 0);
	ops->destroy(dev);
	(void)state;
}

static void test_export(void **state)
{
	struct hpu_fw_device *dev = dev_create("gaudi");
	struct hpu_fw_mem *m;
	char path[256], again[256], dir[256], *base;
	uint64_t fwd, back;
	uint8_t *p, *q;
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(ops->mem_alloc(dev, 4 * MiB, 0, false, false, &m), 0);
	p = hpusim_mem_ptr(m, 3 * MiB, &fwd, &back);
	memcpy(p, "before export", 14);
	assert_int_equal(ops->mem_export(m, path, sizeof(path)), 0);
	assert_int_equal(ops->mem_export(m, again, sizeof(again)), 0);
	assert_string_equal(path, again);
	assert_int_equal(ops->mem_export(m, again, 4), -ENAMETOOLONG);
	base = strrchr(path, '/');
	assert_non_null(base);
	assert_string_equal(base + 1, "1");
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;

	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 4 * MiB);
	q = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(q != MAP_FAILED);
	close(fd);
	assert_string_equal((char *)q + 3 * MiB, "before export");
	/* both ways, after export */
	memcpy(q + 5, "from file", 10);
	assert_string_equal((char *)hpusim_mem_ptr(m, 5, &fwd, &back),
			    "from file");
	memcpy(p, "from device", 12);
	assert_string_equal((char *)q + 3 * MiB, "from device");
	munmap(q, 4 * MiB);

	assert_int_equal(ops->mem_free(m), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(dir, F_OK), 0);
	/* the range is anonymous and zero again */
	assert_int_equal(ops->mem_alloc(dev, 4 * MiB, 0, false, false, &m), 0);
	assert_int_equal(*(uint8_t *)hpusim_mem_ptr(m, 3 * MiB, &fwd, &back),
			 0);
	assert_int_equal(ops->mem_export(m, path, sizeof(path)), 0);
	assert_string_equal(strrchr(path, '/') + 1, "2");
	/* destroy with an export left removes file and directory */
	ops->destroy(dev);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(dir, F_OK), -1);
}

/* Export directories of a process that died are removed at create */
static void test_export_sweep(void **state)
{
	struct hpu_fw_device *dev;
	char dir[128], file[160];
	pid_t pid;
	int fd;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	snprintf(dir, sizeof(dir), "/dev/shm/hpusim-%d-0-XXXXXX", (int)pid);
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/1", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	dev = dev_create("gaudi");
	assert_int_equal(access(dir, F_OK), -1);
	ops->destroy(dev);
}

static void test_map_mem(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *a, *b;
	struct hpu_fw_as *as;
	uint64_t va1, va2, va3, fault;
	struct hpusim_seg seg;
	int pidfd = 7;

	assert_int_equal(ops->as_create(dev, &as), 0);
	assert_int_equal(ops->mem_alloc(dev, 4 * MiB, 0, false, false, &a), 0);
	assert_int_equal(
		ops->mem_alloc(dev, 8 * KiB, 4 * KiB, false, false, &b), 0);
	assert_int_equal(ops->map_mem(as, a, 0, false, &va1), 0);
	assert_true(va1 >= HPU_FW_VA_DEVICE_BASE &&
		    va1 + 4 * MiB <= HPU_FW_VA_DEVICE_END);
	assert_int_equal(va1 % (2 * MiB), 0);
	assert_int_equal(ops->map_mem(as, b, 0, false, &va2), 0);
	/* a guard gap separates mappings */
	assert_true(va2 > va1 + 4 * MiB);
	pthread_rwlock_rdlock(&as->map_lock);
	assert_int_equal(hpusim_mmu_check(as, va1, 4 * MiB, &fault), 0);
	assert_int_equal(hpusim_mmu_check(as, va1, 4 * MiB + 1, &fault),
			 -EFAULT);
	assert_int_equal(fault, va1 + 4 * MiB);
	assert_int_equal(hpusim_mmu_seg(as, va1 + 4 * MiB - 1, 1, false, &seg),
			 0);
	assert_int_equal(seg.len, 1);
	assert_int_equal(hpusim_mmu_seg(as, va1 - 1, 1, false, &seg), -EFAULT);
	pthread_rwlock_unlock(&as->map_lock);

	/* the same allocation twice, at a hint; FIXED rules */
	assert_int_equal(ops->map_mem(as, b, HPU_FW_VA_DEVICE_BASE + GiB, false,
				      &va3),
			 0);
	assert_int_equal(va3, HPU_FW_VA_DEVICE_BASE + GiB);
	assert_int_equal(ops->map_mem(as, b, va3, true, &va3), -EEXIST);
	assert_int_equal(ops->map_mem(as, b, va3 + 2 * GiB + 1, true, &va3),
			 -EINVAL);
	assert_int_equal(ops->map_mem(as, b, HPU_FW_VA_HOST_BASE, true, &va3),
			 -EINVAL);
	assert_int_equal(ops->mem_free(b), -EBUSY);
	assert_int_equal(ops->unmap(as, va2 + 4096, &pidfd), -ENOENT);
	assert_int_equal(ops->unmap(as, va2, &pidfd), 0);
	assert_int_equal(pidfd, -1);
	assert_int_equal(ops->mem_free(b), -EBUSY);
	assert_int_equal(ops->unmap(as, HPU_FW_VA_DEVICE_BASE + GiB, NULL), 0);
	assert_int_equal(ops->mem_free(b), 0);
	/* as_destroy drops the mappings it still has */
	ops->as_destroy(as);
	assert_int_equal(ops->mem_free(a), 0);
}

/*
 * Guards are the allocator's: a hint may take the guard page after a
 * mapping (no other mapping's pages there), the hinted mapping keeps a
 * guard only when the page after it is free, and a mapping the allocator
 * places after a guardless one still gets a gap
 */
static void test_hint_on_guard(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_mem *a, *b, *c;
	uint64_t va1, va2, va3, va4, fault;
	struct hpu_fw_as *as;

	assert_int_equal(ops->as_create(dev, &as), 0);
	assert_int_equal(
		ops->mem_alloc(dev, 8 * KiB, 4 * KiB, false, false, &a), 0);
	assert_int_equal(
		ops->mem_alloc(dev, 8 * KiB, 4 * KiB, false, false, &b), 0);
	assert_int_equal(
		ops->mem_alloc(dev, 4 * KiB, 4 * KiB, false, false, &c), 0);
	assert_int_equal(ops->map_mem(as, a, 0, false, &va1), 0);
	/* onto a's pages: -EEXIST; onto its guard: there */
	assert_int_equal(ops->map_mem(as, b, va1 + 4 * KiB, true, &va2),
			 -EEXIST);
	assert_int_equal(ops->map_mem(as, b, va1 + 8 * KiB, true, &va2), 0);
	assert_int_equal(va2, va1 + 8 * KiB);
	/* c forced one page after b's end: b keeps its guard page */
	assert_int_equal(ops->map_mem(as, c, va2 + 12 * KiB, true, &va3), 0);
	/* nothing fits between b and c: c's second mapping goes after */
	assert_int_equal(ops->map_mem(as, c, 0, false, &va4), 0);
	assert_true(va4 != va2 + 8 * KiB);
	assert_int_equal(ops->unmap(as, va4, NULL), 0);
	/* a DMA-sized range across a and b is all mapped now */
	pthread_rwlock_rdlock(&as->map_lock);
	assert_int_equal(hpusim_mmu_check(as, va1, 16 * KiB, &fault), 0);
	assert_int_equal(hpusim_mmu_check(as, va1, 16 * KiB + 1, &fault),
			 -EFAULT);
	pthread_rwlock_unlock(&as->map_lock);
	/* b forced so that no page is left before c: no guard of its own,
	 * and an unhinted mapping is not put right after it */
	assert_int_equal(ops->unmap(as, va2, NULL), 0);
	assert_int_equal(ops->map_mem(as, b, va3 - 8 * KiB, true, &va2), 0);
	assert_int_equal(ops->unmap(as, va3, NULL), 0);
	assert_int_equal(ops->map_mem(as, c, 0, false, &va4), 0);
	assert_true(va4 >= va2 + 12 * KiB || va4 + 8 * KiB <= va1);
	ops->as_destroy(as);
	assert_int_equal(ops->mem_free(a), 0);
	assert_int_equal(ops->mem_free(b), 0);
	assert_int_equal(ops->mem_free(c), 0);
}

/*
 * as_read_dev (interface 1.7) and the copy under it: device memory reads
 * back what was stored; a range into the guard after the mapping, or in
 * host memory, is -EFAULT; a store across the hole writes no byte, and
 * both a store and a read across it name the hole's first byte
 */
static void test_as_read_dev(void **state)
{
	struct hpu_fw_device *dev = *state;
	uint8_t pat[8 * KiB], got[8 * KiB], *host;
	uint64_t va, hva, fault = 0;
	struct hpu_fw_mem *mem;
	struct hpu_fw_as *as;
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	host = aligned_alloc(4 * KiB, 4 * KiB);
	assert_non_null(host);
	memset(host, 0x5a, 4 * KiB);
	assert_int_equal(ops->as_create(dev, &as), 0);
	assert_int_equal(
		ops->mem_alloc(dev, 8 * KiB, 4 * KiB, false, false, &mem), 0);
	assert_int_equal(ops->map_mem(as, mem, 0, false, &va), 0);
	assert_int_equal(ops->map_shared(as, host, 4 * KiB, 0, false, &hva), 0);

	pthread_rwlock_rdlock(&as->map_lock);
	assert_int_equal(
		hpusim_mmu_rw(as, va, pat, sizeof(pat), true, true, &fault), 0);
	/* 16 bytes before the end, 32 long: the guard page faults first */
	memset(got, 0, sizeof(got));
	assert_int_equal(hpusim_mmu_rw(as, va + 8 * KiB - 16, got, 32, true,
				       false, &fault),
			 -EFAULT);
	assert_true(fault == va + 8 * KiB);
	memset(got, 0, sizeof(got));
	fault = 0;
	assert_int_equal(hpusim_mmu_rw(as, va + 8 * KiB - 16, got, 32, false,
				       false, &fault),
			 -EFAULT);
	assert_true(fault == va + 8 * KiB);
	pthread_rwlock_unlock(&as->map_lock);

	/* all of it, the failed store's zeros nowhere */
	memset(got, 0, sizeof(got));
	assert_int_equal(ops->as_read_dev(as, va, got, sizeof(got)), 0);
	assert_memory_equal(got, pat, sizeof(pat));
	assert_int_equal(ops->as_read_dev(as, va + 100, got, 1000), 0);
	assert_memory_equal(got, pat + 100, 1000);
	assert_int_equal(ops->as_read_dev(as, va + 8 * KiB - 16, got, 32),
			 -EFAULT);
	assert_int_equal(ops->as_read_dev(as, hva, got, 8), -EFAULT);
	assert_int_equal(ops->as_read_dev(as, va, got, 0), -EINVAL);
	assert_int_equal(ops->as_read_dev(as, va, got, HPU_FW_AS_READ_MAX + 1),
			 -EINVAL);

	assert_int_equal(ops->unmap(as, hva, NULL), 0);
	ops->as_destroy(as);
	assert_int_equal(ops->mem_free(mem), 0);
	free(host);
}

static int pidfd_self(void)
{
	return (int)syscall(SYS_pidfd_open, getpid(), 0);
}

static void test_map_host(void **state)
{
	struct hpu_fw_device *dev = *state;
	struct hpu_fw_host_range r = { .pid = getpid() };
	struct hpu_fw_as *as;
	struct hpusim_seg seg;
	uint64_t va, va2;
	uint8_t *buf;
	int pidfd = -1;

	assert_int_equal(ops->as_create(dev, &as), 0);
	buf = mmap(NULL, 64 * KiB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	r.pidfd = pidfd_self();
	assert_true(r.pidfd >= 0);
	r.addr = (uintptr_t)buf + 100;
	r.size = 8 * KiB;
	assert_int_equal(ops->map_host(as, &r, 0, false, &va), 0);
	assert_true(va >= HPU_FW_VA_HOST_BASE && va < HPU_FW_VA_HOST_END);
	assert_int_equal(va % 4096, 100);
	pthread_rwlock_rdlock(&as->map_lock);
	assert_int_equal(hpusim_mmu_seg(as, va + 10, 100, false, &seg), 0);
	assert_null(seg.ptr);
	assert_int_equal(seg.host_addr, r.addr + 10);
	assert_int_equal(hpusim_mmu_seg(as, va + 10, 100, true, &seg), 0);
	assert_int_equal(seg.host_addr, r.addr + 10);
	assert_int_equal(seg.len, 100);
	pthread_rwlock_unlock(&as->map_lock);

	/* a FIXED hint with a different page offset is refused */
	assert_int_equal(ops->map_host(as, &r, HPU_FW_VA_HOST_BASE + GiB + 8,
				       true, &va2),
			 -EINVAL);
	assert_int_equal(ops->map_host(as, &r, HPU_FW_VA_HOST_BASE + GiB, true,
				       &va2),
			 0);
	assert_int_equal(va2, HPU_FW_VA_HOST_BASE + GiB + 100);
	assert_int_equal(ops->unmap(as, va2, NULL), 0);

	/* a range with an unmapped page in it */
	munmap(buf + 32 * KiB, 4 * KiB);
	r.addr = (uintptr_t)buf;
	r.size = 64 * KiB;
	assert_int_equal(ops->map_host(as, &r, 0, false, &va2), -EFAULT);
	r.size = 0;
	assert_int_equal(ops->map_host(as, &r, 0, false, &va2), -EINVAL);

	assert_int_equal(ops->unmap(as, va, &pidfd), 0);
	assert_int_equal(pidfd, r.pidfd);
	munmap(buf, 64 * KiB);

	/*
	 * A huge readable reservation (the fuzzer found one in ASan's shadow)
	 * maps after a check whose cost does not grow with its size; an
	 * unreadable page in it is refused.
	 */
	buf = mmap(NULL, 64 * GiB, PROT_READ,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(buf != MAP_FAILED);
	r.addr = (uintptr_t)buf;
	r.size = 64 * GiB;
	assert_int_equal(ops->map_host(as, &r, 0, false, &va), 0);
	assert_int_equal(ops->unmap(as, va, NULL), 0);
	assert_int_equal(mprotect(buf + 32 * GiB, 4 * KiB, PROT_NONE), 0);
	assert_int_equal(ops->map_host(as, &r, 0, false, &va), -EFAULT);
	munmap(buf, 64 * GiB);

	close(r.pidfd);
	ops->as_destroy(as);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alloc_rejects, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alloc_until_full, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sram_contiguous, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_zero_after_free, setup,
						teardown),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_export),
		cmocka_unit_test(test_export_sweep),
		cmocka_unit_test_setup_teardown(test_map_mem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_on_guard, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_as_read_dev, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_map_host, setup, teardown),
	};

	ops = hpusim_model.ops;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
