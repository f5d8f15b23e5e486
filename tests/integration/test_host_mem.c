// SPDX-License-Identifier: MIT
/*
 * test_host_mem.c - pinned host memory (HPU_MEM_OP_MAP_SHM, hpu_host_alloc)
 * against the real hpu-fused: DMA round trips through it, the daemon's
 * argument checks, sharing (not copying) and the release of the daemon's
 * mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define KiB	(1024ULL)
#define MiB	(1024ULL * 1024)
#define BIG	(16 * MiB + 8 * KiB)
#define WAIT_US 20000000ULL
#define POLL_MS 10
#define POLLS	500 /* bounded wait for an asynchronous release */

struct fixture {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	uint8_t *src, *dst; /* pinned, BIG each */
	uint64_t src_va, dst_va;
	uint64_t h_dev, dev_va; /* device buffer, BIG */
};

static struct fixture fx;

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start(1, "gaudi2");
}

static int setup(void **state)
{
	int ret = hpu_test_need_daemon(state);

	memset(&fx, 0, sizeof(fx));
	if (ret)
		return ret;
	assert_int_equal(hpu_open(0, &fx.dev), 0);
	assert_int_equal(hpu_cb_builder_create(fx.dev, 4096, &fx.cb), 0);
	assert_int_equal(
		hpu_host_alloc(fx.dev, BIG, (void **)&fx.src, &fx.src_va), 0);
	assert_int_equal(
		hpu_host_alloc(fx.dev, BIG, (void **)&fx.dst, &fx.dst_va), 0);
	assert_int_equal(hpu_mem_alloc(fx.dev, BIG, 0, 0, &fx.h_dev), 0);
	assert_int_equal(hpu_mem_map(fx.dev, fx.h_dev, 0, 0, &fx.dev_va), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (!fx.dev)
		return 0;
	hpu_cb_builder_destroy(fx.cb);
	assert_int_equal(hpu_mem_unmap(fx.dev, fx.dev_va), 0);
	assert_int_equal(hpu_mem_free(fx.dev, fx.h_dev), 0);
	assert_int_equal(hpu_host_free(fx.dev, fx.src), 0);
	assert_int_equal(hpu_host_free(fx.dev, fx.dst), 0);
	hpu_close(fx.dev);
	fx.dev = NULL;
	return 0;
}

static uint32_t dma_sync(uint64_t dst, uint64_t src, uint64_t size)
{
	uint32_t status = ~0U;
	uint64_t seq;

	assert_int_equal(hpu_cb_lin_dma(fx.cb, dst, src, size), 0);
	assert_int_equal(hpu_cb_builder_submit(fx.cb, 0, 0, 0, &seq, NULL), 0);
	hpu_cb_builder_reset(fx.cb);
	assert_int_equal(hpu_cs_wait(fx.dev, seq, WAIT_US, &status), 0);
	return status;
}

/* pinned -> device -> pinned (one byte further), nothing written around */
static void test_roundtrip_sizes(void **state)
{
	static const uint64_t sizes[] = { 1, 4 * KiB + 5, 1 * MiB, 16 * MiB };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t n = sizes[i];

		hpu_test_fill_random(fx.src + 3, n, n);
		memset(fx.dst, 0, n + 2);
		assert_int_equal(dma_sync(fx.dev_va, fx.src_va + 3, n),
				 HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(dma_sync(fx.dst_va + 1, fx.dev_va, n),
				 HPU_WAIT_CS_STATUS_COMPLETED);
		if (memcmp(fx.dst + 1, fx.src + 3, n))
			fail_msg("data differs at size %llu",
				 (unsigned long long)n);
		assert_int_equal(fx.dst[0], 0);
		assert_int_equal(fx.dst[n + 1], 0);
	}
}

/* What the client writes after mapping is what the device reads, and back */
static void test_shared_not_copied(void **state)
{
	unsigned int round;

	(void)state;
	for (round = 0; round < 3; round++) {
		memset(fx.src, 0x10 + round, 64 * KiB);
		assert_int_equal(dma_sync(fx.dst_va, fx.src_va, 64 * KiB),
				 HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(fx.dst[0], 0x10 + round);
		assert_int_equal(fx.dst[64 * KiB - 1], 0x10 + round);
	}
	/* past the end of the (page-rounded) mapping: a fault, not a copy */
	assert_int_equal(dma_sync(fx.dev_va, fx.src_va + BIG - 4, 8),
			 HPU_WAIT_CS_STATUS_ABORTED);
}

static int map_shm(int fd, uint64_t size, uint64_t off, uint64_t *va)
{
	union hpu_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_MAP_SHM;
	args.in.handle = (uint64_t)fd;
	args.in.size = size;
	args.in.page_size = off;
	if (ioctl(hpu_device_fd(fx.dev), HPU_IOCTL_MEMORY, &args))
		return -errno;
	*va = args.out.device_virt_addr;
	return 0;
}

static int sealed_memfd(uint64_t size, unsigned int seals)
{
	int fd = memfd_create("hpu-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void test_bad_arguments(void **state)
{
	char path[64];
	uint64_t va = 0;
	int fd, ro, reg;

	(void)state;
	fd = sealed_memfd(64 * KiB, F_SEAL_SHRINK);
	assert_int_equal(map_shm(1000, 4096, 0, &va), -EBADF);
	assert_int_equal(map_shm(fd, 128 * KiB, 0, &va), -EINVAL);
	assert_int_equal(map_shm(fd, 4096, 100, &va), -EINVAL);
	assert_int_equal(map_shm(fd, 4096, 64 * KiB, &va), -EINVAL);
	assert_int_equal(map_shm(fd, 100, 0, &va), -EINVAL);
	assert_int_equal(map_shm(fd, 0, 0, &va), -EINVAL);

	/* a read-only descriptor does not become writable through the daemon */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(ro >= 0);
	assert_int_equal(map_shm(ro, 4096, 0, &va), -EACCES);
	close(ro);

	/* a file that may shrink under the DMA is refused */
	close(fd);
	fd = sealed_memfd(64 * KiB, 0);
	assert_int_equal(map_shm(fd, 4096, 0, &va), -EINVAL);
	close(fd);

	/* not shared memory */
	reg = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(reg >= 0);
	assert_int_not_equal(map_shm(reg, 4096, 0, &va), 0);
	close(reg);

	/* a good one at an offset, mapped and unmapped */
	fd = sealed_memfd(64 * KiB, F_SEAL_SHRINK);
	assert_int_equal(map_shm(fd, 8 * KiB, 8 * KiB, &va), 0);
	close(fd);
	assert_int_equal(hpu_mem_unmap(fx.dev, va), 0);
	assert_int_equal(hpu_host_free(fx.dev, fx.dev), -EINVAL);
}

/* Lines of the daemon's maps that are memfds named "hpu-host" */
static int daemon_host_maps(void)
{
	long n = hpu_test_maps_matching(hpu_test_shared.pid, "/memfd:hpu-host");

	assert_true(n >= 0);
	return (int)n;
}

static void test_release_frees_daemon_mapping(void **state)
{
	struct hpu_device *dev;
	int base, i;
	void *p;
	uint64_t va;

	(void)state;
	base = daemon_host_maps(); /* the fixture's two */
	assert_int_equal(base, 2);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_host_alloc(dev, 1 * MiB, &p, &va), 0);
	assert_int_equal(daemon_host_maps(), base + 1);
	assert_int_equal(hpu_host_free(dev, p), 0);
	assert_int_equal(daemon_host_maps(), base);

	assert_int_equal(hpu_host_alloc(dev, 3 * MiB, &p, &va), 0);
	assert_int_equal(daemon_host_maps(), base + 1);
	hpu_close(dev); /* the context's release unmaps it */
	for (i = 0; i < POLLS && daemon_host_maps() != base; i++)
		hpu_test_sleep_ms(POLL_MS);
	assert_int_equal(daemon_host_maps(), base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_shared_not_copied, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_release_frees_daemon_mapping, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
