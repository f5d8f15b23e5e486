// SPDX-License-Identifier: MIT
/*
 * test_hl_cb_mmap.c - kernel CBs of the habanalabs personality through
 * FUSE (docs/habanalabs.md, "CB"): the daemon's FUSE front end runs in
 * this process (so the test can call hfd_hl_cb_read() as CS does) on a
 * mount of its own; the test is its client. A CB is mmap()ed at its
 * handle on hl0, written through the mapping and read back by the
 * daemon through FUSE_NOTIFY_RETRIEVE (dirty pages not written back
 * yet), cross-checked with the mapping; after msync() and a new mapping
 * the bytes are still there; destroy while mapped keeps the mapping
 * working; another device's context does not know the handle; a client
 * killed with SIGKILL or closing its file leaves no CB behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "hl_personality.h"
#include "hpu_fs.h"

#define PAGE 4096UL

/**
 * struct server - the daemon's front end in this process
 * @drv: the driver (two Gaudi2s, the habanalabs personality on)
 * @se: the FUSE session
 * @loop: the thread running the session loop
 * @dir: the mount point
 */
static struct server {
	struct hfd_driver drv;
	struct fuse_session *se;
	pthread_t loop;
	char dir[64];
} srv;

static void *loop_main(void *arg)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	fuse_loop_cfg_set_max_threads(cfg, 16);
	fuse_loop_cfg_set_idle_threads(cfg, 4);
	fuse_session_loop_mt(srv.se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return NULL;
}

static int group_setup(void **state)
{
	char *argv[] = { "test_hl_cb_mmap", "-o",
			 "fsname=hpu-test,subtype=hpu,default_permissions",
			 NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	const char *why = hpu_test_have_fuse();

	if (why) {
		*state = (void *)why;
		return 0;
	}
	snprintf(srv.dir, sizeof(srv.dir), "/tmp/test_hl_cb.XXXXXX");
	if (!mkdtemp(srv.dir))
		return -1;
	if (hfd_driver_init(&srv.drv, &hpusim_model, "gaudi2", 2, srv.dir))
		return -1;
	srv.drv.habanalabs = true;
	srv.se = fuse_session_new(&args, &hfd_fs_ops, sizeof(hfd_fs_ops),
				  &srv.drv);
	fuse_opt_free_args(&args);
	if (!srv.se)
		return -1;
	srv.drv.se = srv.se;
	if (fuse_session_mount(srv.se, srv.dir))
		return -1;
	if (pthread_create(&srv.loop, NULL, loop_main, NULL))
		return -1;
	*state = NULL;
	return 0;
}

static int group_teardown(void **state)
{
	if (*state)
		return 0;
	fuse_session_exit(srv.se);
	fuse_session_unmount(srv.se);
	pthread_join(srv.loop, NULL);
	fuse_session_destroy(srv.se);
	hfd_fs_release_all();
	hfd_driver_fini(&srv.drv);
	rmdir(srv.dir);
	return 0;
}

#define SKIP_WITHOUT_FUSE()                                            \
	do {                                                           \
		if (*state) {                                          \
			printf("skipped: %s\n", (const char *)*state); \
			skip();                                        \
		}                                                      \
	} while (0)

/* Open a node of the mount; a compute open may see EBUSY for a moment
 * after the last one closed (RELEASE comes after close) */
static int open_node(const char *name)
{
	char path[128];
	unsigned int i;
	int fd = -1;

	snprintf(path, sizeof(path), "%s/%s", srv.dir, name);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != EBUSY)
			break;
		usleep(10000);
	}
	return fd < 0 ? -errno : fd;
}

/* The compute context of device @dev, or NULL */
static struct hfd_ctx *compute_ctx(unsigned int dev)
{
	struct hfd_device *d = &srv.drv.devs[dev];
	struct hfd_ctx *ctx;

	pthread_mutex_lock(&d->ctx_lock);
	for (ctx = d->ctx_list; ctx && ctx->control; ctx = ctx->next)
		;
	pthread_mutex_unlock(&d->ctx_lock);
	return ctx;
}

static int cb_op(int fd, uint32_t op, uint64_t handle, uint32_t size,
		 uint64_t *out)
{
	union hl_cb_args a;

	memset(&a, 0, sizeof(a));
	a.in.op = op;
	a.in.cb_handle = handle;
	a.in.cb_size = size;
	if (ioctl(fd, HL_IOCTL_CB, &a)) {
		if (out)
			*out = 0;
		return -errno;
	}
	if (out)
		*out = a.out.cb_handle;
	return 0;
}

/*
 * Open @node, find its compute context, create a CB of @size bytes and
 * map it read-write (each step asserted): the mapping
 */
static uint8_t *map_new_cb(const char *node, size_t size, int *fd,
			   struct hfd_ctx **ctx, uint64_t *h)
{
	uint8_t *map;

	*fd = open_node(node);
	assert_true(*fd >= 0);
	*ctx = compute_ctx(0);
	assert_non_null(*ctx);
	assert_int_equal(cb_op(*fd, HL_CB_OP_CREATE, 0, (uint32_t)size, h), 0);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd,
		   (off_t)*h);
	assert_true(map != MAP_FAILED);
	return map;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

/* Write through the mapping; the daemon reads the dirty pages back */
static void test_mmap_round_trip(void **state)
{
	uint8_t *map, *want, *got;
	const size_t size = 5000;
	struct hfd_ctx *ctx;
	uint64_t h;
	int fd;

	SKIP_WITHOUT_FUSE();
	map = map_new_cb("hl0", size, &fd, &ctx, &h);
	want = malloc(size);
	got = malloc(size);
	assert_non_null(want);
	assert_non_null(got);
	/* a new CB reads zeros */
	memset(want, 0, size);
	assert_memory_equal(map, want, size);
	fill(want, size, 1);
	memcpy(map, want, size);
	/* dirty, not written back: FUSE_NOTIFY_RETRIEVE gets them */
	memset(got, 0xee, size);
	assert_int_equal(hfd_hl_cb_read(ctx, h, 0, size, got), 0);
	assert_memory_equal(got, want, size);
	assert_memory_equal(got, map, size);
	/* a piece, unaligned */
	map[4095] = 0x5a;
	map[4096] = 0xa5;
	assert_int_equal(hfd_hl_cb_read(ctx, h, 4090, 10, got), 0);
	assert_memory_equal(got, map + 4090, 10);
	assert_int_equal(hfd_hl_cb_read(ctx, h, 4990, 11, got), -EINVAL);
	/* written back, unmapped, mapped again: the same bytes */
	memcpy(want, map, size);
	assert_int_equal(msync(map, size, MS_SYNC), 0);
	assert_int_equal(munmap(map, size), 0);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)h);
	assert_true(map != MAP_FAILED);
	assert_memory_equal(map, want, size);
	assert_int_equal(hfd_hl_cb_read(ctx, h, 0, size, got), 0);
	assert_memory_equal(got, want, size);
	assert_int_equal(munmap(map, size), 0);
	assert_int_equal(cb_op(fd, HL_CB_OP_DESTROY, h, 0, NULL), 0);
	assert_int_equal(hfd_hl_cb_read(ctx, h, 0, 8, got), -EINVAL);
	free(want);
	free(got);
	close(fd);
}

/* The largest CB, some pages faulted and written, the others not */
static void test_mmap_largest(void **state)
{
	const size_t size = HL_MAX_CB_SIZE;
	uint8_t *map, *want, *got;
	struct hfd_ctx *ctx;
	size_t off;
	uint64_t h;
	int fd;

	SKIP_WITHOUT_FUSE();
	map = map_new_cb("accel0", size, &fd, &ctx, &h);
	want = calloc(1, size);
	got = malloc(size);
	assert_non_null(want);
	assert_non_null(got);
	/* every 37th page, and the last bytes */
	for (off = 0; off < size; off += 37 * PAGE)
		fill(want + off, PAGE < size - off ? PAGE : size - off,
		     (unsigned int)(off / PAGE));
	fill(want + size - 100, 100, 9);
	for (off = 0; off < size; off += 37 * PAGE)
		memcpy(map + off, want + off,
		       PAGE < size - off ? PAGE : size - off);
	memcpy(map + size - 100, want + size - 100, 100);
	assert_int_equal(hfd_hl_cb_read(ctx, h, 0, size, got), 0);
	assert_memory_equal(got, want, size);
	assert_memory_equal(got, map, size);
	/*
	 * The server runs in this process: munmap() writes the dirty pages
	 * back holding this process's mmap lock, and a server thread that
	 * needs that lock for the WRITE (a mapping for its buffer) would
	 * wait forever. msync() writes them back without the lock held.
	 */
	assert_int_equal(msync(map, size, MS_SYNC), 0);
	assert_int_equal(munmap(map, size), 0);
	assert_int_equal(cb_op(fd, HL_CB_OP_DESTROY, h, 0, NULL), 0);
	free(want);
	free(got);
	close(fd);
}

/* Destroy while mapped: 0, and the mapping keeps working until munmap */
static void test_destroy_while_mapped(void **state)
{
	struct hfd_ctx *ctx;
	unsigned int live;
	uint64_t h, h2;
	uint8_t *map;
	int fd;

	SKIP_WITHOUT_FUSE();
	map = map_new_cb("hl0", 3 * PAGE, &fd, &ctx, &h);
	map[0] = 1;
	assert_int_equal(cb_op(fd, HL_CB_OP_DESTROY, h, 0, NULL), 0);
	assert_int_equal(cb_op(fd, HL_CB_OP_DESTROY, h, 0, NULL), -EINVAL);
	assert_int_equal(hfd_hl_cb_count(ctx, &live), 1);
	assert_int_equal(live, 0);
	/* pages not touched before the destroy still fault in */
	map[2 * PAGE + 5] = 7;
	assert_int_equal(msync(map, 3 * PAGE, MS_SYNC), 0);
	assert_int_equal(map[0], 1);
	assert_int_equal(map[2 * PAGE + 5], 7);
	assert_int_equal(munmap(map, 3 * PAGE), 0);
	/* the next destroy frees it */
	assert_int_equal(cb_op(fd, HL_CB_OP_CREATE, 0, 100, &h2), 0);
	assert_int_equal(cb_op(fd, HL_CB_OP_DESTROY, h2, 0, NULL), 0);
	assert_int_equal(hfd_hl_cb_count(ctx, NULL), 0);
	close(fd);
}

/* Device 1's context does not know device 0's handle */
static void test_other_context(void **state)
{
	int fd0, fd1;
	uint32_t usage;
	union hl_cb_args a;
	uint64_t h;

	SKIP_WITHOUT_FUSE();
	fd0 = open_node("hl0");
	fd1 = open_node("accel1");
	assert_true(fd0 >= 0);
	assert_true(fd1 >= 0);
	assert_int_equal(cb_op(fd0, HL_CB_OP_CREATE, 0, 64, &h), 0);
	assert_int_equal(cb_op(fd0, HL_CB_OP_CREATE, 0, 64, &h), 0);
	assert_int_equal(cb_op(fd1, HL_CB_OP_DESTROY, h, 0, NULL), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = h;
	assert_int_equal(ioctl(fd1, DRM_IOCTL_HL_CB, &a), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(fd0, DRM_IOCTL_HL_CB, &a), 0);
	usage = a.out.usage_cnt;
	assert_int_equal(usage, 0);
	close(fd1);
	close(fd0);
}

/* A child with CBs (mapped, written) ends by close or SIGKILL: none left */
static void child_ends(bool kill_it)
{
	int fd, st, pipefd[2];
	struct hfd_ctx *ctx;
	unsigned int i;
	pid_t pid;
	char c;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t h;
		uint8_t *map;

		close(pipefd[0]);
		fd = open_node("hl0");
		if (fd < 0)
			_exit(2);
		for (i = 0; i < 10; i++) {
			if (cb_op(fd, HL_CB_OP_CREATE, 0, 3 * PAGE, &h))
				_exit(3);
			map = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, (off_t)h);
			if (map == MAP_FAILED)
				_exit(4);
			memset(map, (int)i, 3 * PAGE);
		}
		if (write(pipefd[1], "x", 1) != 1)
			_exit(5);
		if (kill_it)
			pause();
		close(fd);
		_exit(0);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	ctx = compute_ctx(0);
	assert_non_null(ctx);
	assert_int_equal(hfd_hl_cb_count(ctx, NULL), 10);
	if (kill_it)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (kill_it)
		assert_true(WIFSIGNALED(st));
	else
		assert_int_equal(WEXITSTATUS(st), 0);
	/* the release came: the device takes a compute open again, clean */
	fd = open_node("hl0");
	assert_true(fd >= 0);
	ctx = compute_ctx(0);
	assert_non_null(ctx);
	assert_int_equal(hfd_hl_cb_count(ctx, NULL), 0);
	close(fd);
}

static void test_close_releases_all(void **state)
{
	SKIP_WITHOUT_FUSE();
	child_ends(false);
}

static void test_sigkill_releases_all(void **state)
{
	SKIP_WITHOUT_FUSE();
	child_ends(true);
}

/* The node's size covers every CB offset; the control node has none */
static void test_node_size(void **state)
{
	char path[128];
	struct stat st;

	SKIP_WITHOUT_FUSE();
	snprintf(path, sizeof(path), "%s/hl0", srv.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size == HL_CB_FILE_SIZE);
	snprintf(path, sizeof(path), "%s/hl_controlD0", srv.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_size),
		cmocka_unit_test(test_mmap_round_trip),
		cmocka_unit_test(test_mmap_largest),
		cmocka_unit_test(test_destroy_while_mapped),
		cmocka_unit_test(test_other_context),
		cmocka_unit_test(test_close_releases_all),
		cmocka_unit_test(test_sigkill_releases_all),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
