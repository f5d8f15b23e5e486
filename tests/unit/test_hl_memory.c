// SPDX-License-Identifier: MIT
/*
 * test_hl_memory.c - MEMORY of the habanalabs personality without FUSE
 * (docs/habanalabs.md, "MEMORY"): device memory alloc/free/map/unmap and
 * host memory map/unmap with the real flags, the answers and the real
 * driver's errors, both request-code sets, nothing done on -EFAULT.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "hl_personality.h"

#define MiB (1024ULL * 1024)

/* One Gaudi2 with a habanalabs compute context */
static struct hpu_test_hfd_fixture fx;

static int setup(void **state)
{
	if (hpu_test_hfd_setup(&fx, state, true, false))
		return -1;
	return hfd_device_has_cs(&fx.drv.devs[0]) ? 0 : -1;
}

/* One MEMORY request by code @cmd (either set) */
static int run_at(struct hfd_ctx *ctx, unsigned int cmd, union hl_mem_args *a)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, a, sizeof(*a), 0);
}

static int run(struct hfd_ctx *ctx, union hl_mem_args *a)
{
	return run_at(ctx, HL_IOCTL_MEMORY, a);
}

static int alloc(struct hpu_test_hfd_fixture *f, uint64_t size, uint64_t page,
		 uint32_t flags, uint64_t *handle)
{
	union hl_mem_args a = { .in = { .op = HL_MEM_OP_ALLOC,
					.flags = flags } };
	int ret;

	a.in.alloc.mem_size = size;
	a.in.alloc.page_size = page;
	ret = run(f->compute, &a);
	if (!ret)
		*handle = a.out.handle;
	return ret;
}

static int op_handle(struct hpu_test_hfd_fixture *f, uint32_t op,
		     uint64_t handle)
{
	union hl_mem_args a = { .in = { .op = op } };

	a.in.free.handle = handle;
	return run(f->compute, &a);
}

static int map_dev(struct hpu_test_hfd_fixture *f, uint64_t handle,
		   uint64_t hint, uint32_t flags, uint64_t *va)
{
	union hl_mem_args a = { .in = { .op = HL_MEM_OP_MAP, .flags = flags } };
	int ret;

	a.in.map_device.handle = handle;
	a.in.map_device.hint_addr = hint;
	ret = run(f->compute, &a);
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

static int map_host(struct hpu_test_hfd_fixture *f, const void *p,
		    uint64_t size, uint64_t *va)
{
	union hl_mem_args a = { .in = { .op = HL_MEM_OP_MAP,
					.flags = HL_MEM_USERPTR } };
	int ret;

	a.in.map_host.host_virt_addr = (uintptr_t)p;
	a.in.map_host.mem_size = size;
	ret = run(f->compute, &a);
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

static int unmap(struct hpu_test_hfd_fixture *f, uint64_t va)
{
	union hl_mem_args a = { .in = { .op = HL_MEM_OP_UNMAP } };

	a.in.unmap.device_virt_addr = va;
	return run(f->compute, &a);
}

static uint64_t ctx_dram(struct hpu_test_hfd_fixture *f)
{
	struct hl_info_dram_usage du = { 0 };
	struct hl_info_args a = { .return_pointer = (uintptr_t)&du,
				  .return_size = sizeof(du),
				  .op = HL_INFO_DRAM_USAGE };

	assert_int_equal(hpu_test_hfd_hl_ioctl(f->compute, HL_IOCTL_INFO, &a,
					       sizeof(a), 0),
			 0);
	return du.ctx_dram_mem;
}

static void test_device_memory(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	uint64_t h = 0, h2 = 0, va = 0, va2 = 0;

	assert_int_equal(alloc(f, 0, 0, 0, &h), -EINVAL);
	assert_int_equal(alloc(f, 2 * MiB, 3, 0, &h), -EINVAL);
	assert_int_equal(alloc(f, 4 * MiB, 0, HL_MEM_CONTIGUOUS, &h), 0);
	assert_int_not_equal(h, 0);
	assert_int_equal(ctx_dram(f), 4 * MiB);
	assert_int_equal(map_dev(f, h, 0, 0, &va), 0);
	assert_true(va >= HPU_FW_VA_DEVICE_BASE && va < HPU_FW_VA_DEVICE_END);
	/* a mapped allocation is not freed: the real driver's -EINVAL */
	assert_int_equal(op_handle(f, HL_MEM_OP_FREE, h), -EINVAL);
	/* a second allocation at the first's VA: taken, anywhere else OK,
	 * but never there when the hint is forced */
	assert_int_equal(alloc(f, 2 * MiB, 0, HL_MEM_SHARED, &h2), 0);
	assert_int_equal(map_dev(f, h2, va, HL_MEM_FORCE_HINT, &va2), -ENOMEM);
	assert_int_equal(map_dev(f, h2, va, 0, &va2), 0);
	assert_int_not_equal(va2, va);
	assert_int_equal(unmap(f, va2), 0);
	/* an unaligned or out-of-range hint is ignored, a forced one
	 * refused; an aligned free hint is taken */
	assert_int_equal(map_dev(f, h2, va + 4096, HL_MEM_FORCE_HINT, &va2),
			 -EINVAL);
	assert_int_equal(map_dev(f, h2, 0x1000, HL_MEM_FORCE_HINT, &va2),
			 -EINVAL);
	assert_int_equal(map_dev(f, h2, va + 16 * MiB + 4096, 0, &va2), 0);
	assert_int_not_equal(va2, va + 16 * MiB + 4096);
	assert_int_equal(unmap(f, va2), 0);
	assert_int_equal(map_dev(f, h2, va + 16 * MiB, HL_MEM_FORCE_HINT, &va2),
			 0);
	assert_int_equal(va2, va + 16 * MiB);
	assert_int_equal(unmap(f, va2), 0);
	assert_int_equal(op_handle(f, HL_MEM_OP_FREE, h2), 0);
	assert_int_equal(unmap(f, va), 0);
	assert_int_equal(unmap(f, va), -EINVAL);
	assert_int_equal(op_handle(f, HL_MEM_OP_FREE, h), 0);
	assert_int_equal(op_handle(f, HL_MEM_OP_FREE, h), -EINVAL);
	assert_int_equal(map_dev(f, h, 0, 0, &va), -EINVAL);
	assert_int_equal(ctx_dram(f), 0);
	/* more than the device has */
	assert_int_equal(alloc(f, f->drv.devs[0].ip.dram_size * 2, 0, 0, &h),
			 -ENOMEM);
}

static void test_host_memory(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	uint8_t *buf;
	void *gone;
	uint64_t va = 0;

	buf = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 1, 64 * 1024);
	assert_int_equal(map_host(f, buf + 100, 4096, &va), 0);
	assert_true(va >= HPU_FW_VA_HOST_BASE && va < HPU_FW_VA_HOST_END);
	assert_int_equal(va % 4096, 100); /* the offset in the page is kept */
	assert_int_equal(unmap(f, va), 0);
	assert_int_equal(map_host(f, buf, 0, &va), -EINVAL);
	munmap(buf, 64 * 1024);
	/* memory the caller does not have */
	gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(gone != MAP_FAILED);
	munmap(gone, 4096);
	assert_int_equal(map_host(f, gone, 4096, &va), -EFAULT);
}

static void test_other_ops(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	union hl_mem_args a;
	uint64_t h = 0;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP_BLOCK;
	a.in.map_block.block_addr = 0x1000000;
	assert_int_equal(run(f->compute, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	assert_int_equal(run(f->compute, &a), -EOPNOTSUPP);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_TS_ALLOC;
	assert_int_equal(run(f->compute, &a), -EOPNOTSUPP);
	memset(&a, 0, sizeof(a));
	a.in.op = 7;
	assert_int_equal(run(f->compute, &a), -EINVAL);
	/* the DRM code set reaches the same handler */
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = 2 * MiB;
	assert_int_equal(run_at(f->compute, DRM_IOCTL_HL_MEMORY, &a), 0);
	h = a.out.handle;
	assert_int_equal(op_handle(f, HL_MEM_OP_FREE, h), 0);
	/* a device that does not work */
	pthread_mutex_lock(&f->drv.devs[0].ctx_lock);
	f->drv.devs[0].status = HPU_DEVICE_STATUS_NEEDS_RESET;
	pthread_mutex_unlock(&f->drv.devs[0].ctx_lock);
	assert_int_equal(alloc(f, 2 * MiB, 0, 0, &h), -EBUSY);
	pthread_mutex_lock(&f->drv.devs[0].ctx_lock);
	f->drv.devs[0].status = HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&f->drv.devs[0].ctx_lock);
}

/* An argument that cannot be written back: -EFAULT, nothing allocated */
static void test_efault_does_nothing(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	union hl_mem_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = 2 * MiB;
	assert_int_equal(hpu_test_hfd_hl_ioctl_ro(f->compute, HL_IOCTL_MEMORY,
						  &a, sizeof(a)),
			 -EFAULT);
	assert_int_equal(ctx_dram(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_device_memory, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_host_memory, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_other_ops, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_efault_does_nothing, setup,
						hpu_test_hfd_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
