// SPDX-License-Identifier: MIT
/*
 * test_hl_cb.c - kernel CBs of the habanalabs personality without FUSE
 * (docs/habanalabs.md, "CB"): CREATE/DESTROY/INFO with the real struct,
 * both request-code sets, the size limit, the flags (a device VA with
 * HL_CB_FLAGS_MAP), the
 * per-context limits, handles unique per device and never reused, a
 * handle of another context, double destroy, destroy while used or
 * mapped, the page cache's READ/WRITE of the CB memory and hfd_hl_cb_read().
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "hl_personality.h"

#define PAGE 4096ULL

/**
 * struct fixture - two Gaudi2s, a habanalabs compute context on each
 */
struct fixture {
	struct hfd_driver drv;
	struct hfd_ctx *ctx[2];
};

static int setup(void **state)
{
	static struct fixture f;

	f.ctx[0] = NULL;
	f.ctx[1] = NULL;
	if (hpu_test_hfd_init(&f.drv, 2) ||
	    hpu_test_hfd_ctx(&f.drv, 0, false, true, &f.ctx[0]) ||
	    hpu_test_hfd_ctx(&f.drv, 1, false, true, &f.ctx[1]))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	hpu_test_hfd_close(&f->drv, f->ctx[0], f->ctx[1]);
	return 0;
}

static int run_cmd(struct hfd_ctx *ctx, unsigned int cmd, union hl_cb_args *a)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, a, sizeof(*a), 0);
}

static int create(struct hfd_ctx *ctx, uint32_t size, uint32_t flags,
		  uint64_t *handle)
{
	union hl_cb_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = size;
	a.in.flags = flags;
	ret = run_cmd(ctx, HL_IOCTL_CB, &a);
	*handle = ret ? 0 : a.out.cb_handle;
	return ret;
}

static int destroy(struct hfd_ctx *ctx, uint64_t handle)
{
	union hl_cb_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_DESTROY;
	a.in.cb_handle = handle;
	return run_cmd(ctx, HL_IOCTL_CB, &a);
}

static int info(struct hfd_ctx *ctx, uint64_t handle, uint32_t flags,
		uint32_t *usage)
{
	union hl_cb_args a;
	int ret;

	memset(&a, 0xa5, sizeof(a));
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = handle;
	a.in.flags = flags;
	a.in.ctx_id = 0;
	ret = run_cmd(ctx, DRM_IOCTL_HL_CB, &a);
	if (!ret) {
		assert_int_equal(a.out.pad, 0);
		*usage = a.out.usage_cnt;
	}
	return ret;
}

/* A handle is an mmap offset with the CB type bits, page aligned */
static void check_handle(uint64_t h)
{
	assert_int_equal(h & (PAGE - 1), 0);
	assert_true((h >> 59) == 0x2);
	assert_true(h < HL_CB_FILE_SIZE);
}

static void test_create_info_destroy(void **state)
{
	struct fixture *f = *state;
	uint64_t h1, h2;
	uint32_t usage = 99;
	unsigned int live;

	assert_int_equal(create(f->ctx[0], 77, 0, &h1), 0);
	check_handle(h1);
	assert_int_equal(create(f->ctx[0], 0x100000, 0, &h2), 0);
	check_handle(h2);
	assert_true(h1 != h2);
	assert_int_equal(info(f->ctx[0], h1, 0, &usage), 0);
	assert_int_equal(usage, 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], &live), 2);
	assert_int_equal(live, 2);
	assert_int_equal(destroy(f->ctx[0], h1), 0);
	/* double destroy and a destroyed handle: the real -EINVAL */
	assert_int_equal(destroy(f->ctx[0], h1), -EINVAL);
	assert_int_equal(info(f->ctx[0], h1, 0, &usage), -EINVAL);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 1);
	assert_int_equal(destroy(f->ctx[0], h2), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
	/* never made */
	assert_int_equal(destroy(f->ctx[0], 0), -EINVAL);
	assert_int_equal(destroy(f->ctx[0], h2 + PAGE), -EINVAL);
}

static void test_sizes_and_ops(void **state)
{
	struct fixture *f = *state;
	union hl_cb_args a;
	uint64_t h = 0;

	assert_int_equal(create(f->ctx[0], HL_MAX_CB_SIZE, 0, &h), 0);
	check_handle(h);
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(create(f->ctx[0], HL_MAX_CB_SIZE + 1, 0, &h), -EINVAL);
	assert_int_equal(create(f->ctx[0], 0, 0, &h), -ENOMEM);
	assert_int_equal(h, 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = 3;
	assert_int_equal(run_cmd(f->ctx[0], HL_IOCTL_CB, &a), -EINVAL);
}

static int device_va(struct hfd_ctx *ctx, uint64_t handle, uint64_t *va)
{
	union hl_cb_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = handle;
	a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	ret = run_cmd(ctx, HL_IOCTL_CB, &a);
	*va = ret ? 0 : a.out.device_va;
	return ret;
}

static void test_flags(void **state)
{
	struct fixture *f = *state;
	uint64_t h = 0, h2, va, va2, hh, off;
	uint32_t usage, sz;
	unsigned int i;

	/* mapped into the device's MMU: a VA of the context's CB pool */
	assert_int_equal(create(f->ctx[0], 5000, HL_CB_FLAGS_MAP, &h), 0);
	assert_int_equal(create(f->ctx[0], 100, HL_CB_FLAGS_MAP, &h2), 0);
	assert_int_equal(device_va(f->ctx[0], h, &va), 0);
	assert_int_equal(device_va(f->ctx[0], h2, &va2), 0);
	assert_true(va && va2);
	assert_int_equal(va & (PAGE - 1), 0);
	assert_true(va2 >= va + 2 * PAGE || va >= va2 + PAGE);
	assert_int_equal(hfd_hl_cb_by_va(f->ctx[0], va + 4999, &hh, &off, &sz),
			 0);
	assert_true(hh == h && off == 4999 && sz == 5000);
	assert_int_equal(hfd_hl_cb_by_va(f->ctx[0], va + 5000, &hh, &off, &sz),
			 -ENOENT);
	assert_int_equal(hfd_hl_cb_by_va(f->ctx[1], va, &hh, &off, &sz),
			 -ENOENT);
	assert_int_equal(info(f->ctx[0], h, 0, &usage), 0);
	assert_int_equal(usage, 0);
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(hfd_hl_cb_by_va(f->ctx[0], va, &hh, &off, &sz),
			 -ENOENT);
	assert_int_equal(destroy(f->ctx[0], h2), 0);
	/* the pool is 4 GiB */
	for (i = 0; i < 2048; i++) {
		assert_int_equal(create(f->ctx[1], HL_MAX_CB_SIZE,
					HL_CB_FLAGS_MAP, &h),
				 0);
		assert_int_equal(destroy(f->ctx[1], h), 0);
	}
	assert_int_equal(create(f->ctx[1], 1, HL_CB_FLAGS_MAP, &h), -ENOMEM);
	assert_int_equal(hfd_hl_cb_count(f->ctx[1], NULL), 0);
	/* flags the driver does not know are ignored, as the real one */
	assert_int_equal(create(f->ctx[0], 4096, 0x80, &h), 0);
	assert_int_equal(info(f->ctx[0], h, HL_CB_FLAGS_GET_DEVICE_VA, &usage),
			 -EINVAL);
	assert_int_equal(info(f->ctx[0], h, 0, &usage), 0);
	assert_int_equal(destroy(f->ctx[0], h), 0);
}

static void test_control_node_refused(void **state)
{
	struct fixture *f = *state;
	struct hfd_ctx *ctl;
	union hl_cb_args a;

	assert_int_equal(hfd_ctx_open_exclusive(&f->drv.devs[0], true, true,
						getpid(), getuid(), getgid(),
						&ctl),
			 0);
	memset(&a, 0, sizeof(a));
	a.in.cb_size = 4096;
	assert_int_equal(run_cmd(ctl, HL_IOCTL_CB, &a), -ENOTTY);
	hfd_ctx_release(ctl);
}

static void test_limits(void **state)
{
	struct fixture *f = *state;
	uint64_t h[9];
	unsigned int i;

	assert_int_equal(hfd_limit_parse("cbs=8"), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(create(f->ctx[0], 100, 0, &h[i]), 0);
	assert_int_equal(create(f->ctx[0], 100, 0, &h[8]), -ENOMEM);
	/* another context has its own */
	assert_int_equal(create(f->ctx[1], 100, 0, &h[8]), 0);
	assert_int_equal(destroy(f->ctx[1], h[8]), 0);
	assert_int_equal(destroy(f->ctx[0], h[0]), 0);
	assert_int_equal(create(f->ctx[0], 100, 0, &h[0]), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(destroy(f->ctx[0], h[i]), 0);
	assert_int_equal(hfd_limit_parse("cbs=4096"), 0);

	/* bytes: pages of the CBs */
	assert_int_equal(hfd_limit_parse("pinned_bytes=1048576"), 0);
	assert_int_equal(create(f->ctx[0], HL_MAX_CB_SIZE, 0, &h[0]), -ENOMEM);
	assert_int_equal(create(f->ctx[0], 512 * 1024, 0, &h[0]), 0);
	assert_int_equal(create(f->ctx[0], 512 * 1024 - 100, 0, &h[1]), 0);
	assert_int_equal(create(f->ctx[0], 1, 0, &h[2]), -ENOMEM);
	assert_int_equal(destroy(f->ctx[0], h[1]), 0);
	assert_int_equal(create(f->ctx[0], 1, 0, &h[2]), 0);
	assert_int_equal(destroy(f->ctx[0], h[0]), 0);
	assert_int_equal(destroy(f->ctx[0], h[2]), 0);
	assert_int_equal(hfd_limit_parse("pinned_bytes=68719476736"), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
}

/* Unique per device, never reused, not overlapping as file ranges */
static void test_handles_never_reused(void **state)
{
	struct fixture *f = *state;
	uint64_t a, b, c, d;

	assert_int_equal(create(f->ctx[0], 3 * PAGE + 1, 0, &a), 0);
	assert_int_equal(destroy(f->ctx[0], a), 0);
	assert_int_equal(create(f->ctx[0], 3 * PAGE + 1, 0, &b), 0);
	assert_true(b >= a + 4 * PAGE);
	/* a new context of the same device: still new handles */
	hfd_ctx_release(f->ctx[0]);
	f->ctx[0] = NULL;
	assert_int_equal(hpu_test_hfd_ctx(&f->drv, 0, false, true, &f->ctx[0]),
			 0);
	assert_int_equal(create(f->ctx[0], PAGE, 0, &c), 0);
	assert_true(c >= b + 4 * PAGE);
	assert_int_equal(destroy(f->ctx[0], b), -EINVAL);
	assert_int_equal(create(f->ctx[0], PAGE, 0, &d), 0);
	assert_true(d >= c + PAGE);
}

static void test_other_context(void **state)
{
	struct fixture *f = *state;
	uint64_t h, mine;
	uint32_t usage;
	uint8_t buf[8];

	assert_int_equal(create(f->ctx[0], 4096, 0, &h), 0);
	assert_int_equal(create(f->ctx[0], 4096, 0, &mine), 0);
	assert_int_equal(info(f->ctx[1], mine, 0, &usage), -EINVAL);
	assert_int_equal(destroy(f->ctx[1], mine), -EINVAL);
	assert_int_equal(hfd_hl_cb_read(f->ctx[1], mine, 0, sizeof(buf), buf),
			 -EINVAL);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[1], mine, true), -EINVAL);
	/* still the owner's */
	assert_int_equal(info(f->ctx[0], mine, 0, &usage), 0);
	assert_int_equal(destroy(f->ctx[0], mine), 0);
	assert_int_equal(destroy(f->ctx[0], h), 0);
}

/* The page cache's side: READ and WRITE of the node at the CB's offsets */
static void test_page_read_write(void **state)
{
	struct fixture *f = *state;
	uint8_t page[2 * PAGE], buf[300];
	uint64_t h, h2;
	unsigned int i;

	assert_int_equal(create(f->ctx[0], 5000, 0, &h), 0);
	assert_int_equal(create(f->ctx[0], 100, 0, &h2), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(
		hfd_hl_cb_fs_write(f->ctx[0], h + 4000, sizeof(buf), buf), 0);
	memset(page, 0xee, sizeof(page));
	assert_int_equal(hfd_hl_cb_read(f->ctx[0], h, 4000, sizeof(buf), page),
			 0);
	assert_memory_equal(page, buf, sizeof(buf));
	/* the rest of the CB is zero, and so is the guard page after it */
	hfd_hl_cb_fs_read(f->ctx[0], h, sizeof(page), page);
	assert_memory_equal(page + 4000, buf, sizeof(buf));
	for (i = 0; i < 4000; i++)
		assert_int_equal(page[i], 0);
	hfd_hl_cb_fs_read(f->ctx[0], h + 2 * PAGE, PAGE, page);
	for (i = 0; i < PAGE; i++)
		assert_int_equal(page[i], 0);
	/* beyond its pages or outside any CB: nothing written */
	assert_int_equal(
		hfd_hl_cb_fs_write(f->ctx[0], h + 2 * PAGE - 8, 16, buf), -EIO);
	assert_int_equal(hfd_hl_cb_fs_write(f->ctx[0], 4096, 16, buf), -EIO);
	/* the last page may be written whole; hfd_hl_cb_read keeps to the size */
	assert_int_equal(hfd_hl_cb_fs_write(f->ctx[0], h + PAGE, PAGE, page),
			 0);
	assert_int_equal(hfd_hl_cb_read(f->ctx[0], h, 4900, 101, page),
			 -EINVAL);
	assert_int_equal(hfd_hl_cb_read(f->ctx[0], h, 5000, 0, page), 0);
	/* another context's READ sees zeros, its WRITE fails */
	hfd_hl_cb_fs_read(f->ctx[1], h + 4000, sizeof(buf), page);
	for (i = 0; i < sizeof(buf); i++)
		assert_int_equal(page[i], 0);
	assert_int_equal(hfd_hl_cb_fs_write(f->ctx[1], h, 8, buf), -EIO);
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(hfd_hl_cb_read(f->ctx[0], h, 0, 8, page), -EINVAL);
	assert_int_equal(destroy(f->ctx[0], h2), 0);
}

/* Used by a CS: destroy succeeds, the memory stays until the CS ends */
static void test_destroy_while_used(void **state)
{
	struct fixture *f = *state;
	uint32_t usage;
	unsigned int live;
	uint64_t h;

	assert_int_equal(create(f->ctx[0], 256, 0, &h), 0);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, true), 0);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, true), 0);
	assert_int_equal(info(f->ctx[0], h, 0, &usage), 0);
	assert_int_equal(usage, 2);
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], &live), 1);
	assert_int_equal(live, 0);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, true), -EINVAL);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, false), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 1);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, false), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, false), -EINVAL);
}

/*
 * Mapped by the opener: destroy succeeds, the memory stays while the
 * mapping does (found in /proc/PID/maps) and goes at the next sweep
 * after munmap. A file of the test's stands for the node.
 */
static void test_destroy_while_mapped(void **state)
{
	struct fixture *f = *state;
	char path[] = "/tmp/test_hl_cb.XXXXXX";
	uint8_t page[PAGE];
	unsigned int live;
	uint64_t h, other;
	struct stat st;
	void *map;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(hfd_hl_cb_attach(f->ctx[0], NULL, st.st_ino), 0);
	assert_int_equal(create(f->ctx[0], 3 * PAGE, 0, &h), 0);
	assert_int_equal(create(f->ctx[0], PAGE, 0, &other), 0);
	/* its pages reached the page cache */
	hfd_hl_cb_fs_read(f->ctx[0], h, PAGE, page);
	map = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (off_t)(h + PAGE));
	assert_true(map != MAP_FAILED);
	assert_true(hfd_hl_cb_mapped(f->ctx[0], st.st_ino, h, 3 * PAGE));
	assert_false(hfd_hl_cb_mapped(f->ctx[0], st.st_ino, other, PAGE));
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], &live), 2);
	assert_int_equal(live, 1);
	/* its pages are still served to the mapping */
	memset(page, 1, sizeof(page));
	assert_int_equal(hfd_hl_cb_fs_write(f->ctx[0], h + PAGE, 8, page), 0);
	assert_int_equal(munmap(map, PAGE), 0);
	assert_false(hfd_hl_cb_mapped(f->ctx[0], st.st_ino, h, 3 * PAGE));
	/* the next destroy sweeps it */
	assert_int_equal(destroy(f->ctx[0], other), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
	close(fd);
}

/* Closing the context frees every CB, destroyed or not */
static void test_release_frees_all(void **state)
{
	struct fixture *f = *state;
	uint64_t h;
	unsigned int i;

	for (i = 0; i < 20; i++)
		assert_int_equal(create(f->ctx[0], 1000 * (i + 1), 0, &h), 0);
	assert_int_equal(hfd_hl_cb_usage(f->ctx[0], h, true), 0);
	assert_int_equal(destroy(f->ctx[0], h), 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 20);
	hfd_ctx_release(f->ctx[0]);
	f->ctx[0] = NULL;
	/* the device takes a new compute context (ASan: nothing leaked) */
	assert_int_equal(hpu_test_hfd_ctx(&f->drv, 0, false, true, &f->ctx[0]),
			 0);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
	assert_int_equal(destroy(f->ctx[0], h), -EINVAL);
}

/* A device that does not work: -EBUSY, as the real driver */
static void test_device_not_operational(void **state)
{
	struct fixture *f = *state;
	uint64_t h;

	pthread_mutex_lock(&f->drv.devs[0].ctx_lock);
	f->drv.devs[0].status = HPU_DEVICE_STATUS_IN_RESET;
	pthread_mutex_unlock(&f->drv.devs[0].ctx_lock);
	assert_int_equal(create(f->ctx[0], 100, 0, &h), -EBUSY);
	pthread_mutex_lock(&f->drv.devs[0].ctx_lock);
	f->drv.devs[0].status = HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&f->drv.devs[0].ctx_lock);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
}

/* An argument that cannot be written back: -EFAULT, nothing made */
static void test_efault_does_nothing(void **state)
{
	struct fixture *f = *state;
	union hl_cb_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = 4096;
	assert_int_equal(hpu_test_hfd_hl_ioctl_ro(f->ctx[0], HL_IOCTL_CB, &a,
						  sizeof(a)),
			 -EFAULT);
	assert_int_equal(hfd_hl_cb_count(f->ctx[0], NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_info_destroy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sizes_and_ops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_node_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handles_never_reused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_context, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_page_read_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_destroy_while_used, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_destroy_while_mapped,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_frees_all, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_device_not_operational,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_efault_does_nothing, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
