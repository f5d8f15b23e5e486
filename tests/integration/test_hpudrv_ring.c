// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_ring.c - libhpudrv's producer of the user-mode rings
 * (docs/rings.md, "libhpudrv's producer") against the real hpu-fused:
 * the same scenarios with the ring (default) and with HPU_RING=0 (the
 * ioctl path), failing CSs' statuses through the ring, out-of-order
 * endings, timed waits, a forked child, a broken ring, the fallback
 * when REGISTER fails, and the CB arena (ABI 1.4): small builder CBs
 * through it, large ones and those that find no room around it, both
 * mixed with an ioctl CS on the same queue, and HPU_RING_CB_ARENA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_drv_cs.h"
#include "hpu_packets.h"
#include "hpu_ring.h"
#include "hpudrv.h"
#include "../../libhpudrv/ring_internal.h"

#define MiB	   (1024ULL * 1024)
/* Bound of the loops that wait for the daemon (1 ms steps) */
#define WAIT_STEPS 20000

static const uint64_t unmapped = 0x1000000000000ULL + 0xfff000000ULL;

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi");
}

/* REGISTER fails: the region (68 KiB) is above pinned_bytes */
static int small_group_setup(void **state)
{
	static const char *const extra[] = { "--limit", "pinned_bytes=4096",
					     NULL };

	(void)state;
	if (hpu_test_group_start_args(1, "gaudi", extra))
		return -1;
	return hpu_test_require_cs();
}

/* A cs_in_flight limit of 32: back-pressure within a test's time */
static int limited_group_setup(void **state)
{
	static const char *const extra[] = { "--limit", "cs_in_flight=32",
					     NULL };

	(void)state;
	if (hpu_test_group_start_args(1, "gaudi", extra))
		return -1;
	return hpu_test_require_cs();
}

/* 1 when the context of @dev has a ring registered (its one shm map) */
static int ring_in_use(struct hpu_device *dev)
{
	struct hpu_info_ctx_limits l;

	assert_int_equal(hpu_info_ctx_limits(dev, &l), 0);
	return (int)l.limits[HPU_CTX_LIMIT_SHM_MAPS].used;
}

static struct hpu_device *open_mode(bool ring)
{
	struct hpu_device *dev;

	if (ring)
		unsetenv("HPU_RING");
	else
		setenv("HPU_RING", "0", 1);
	assert_int_equal(hpu_open(0, &dev), 0);
	unsetenv("HPU_RING");
	assert_int_equal(ring_in_use(dev), ring);
	return dev;
}

static uint64_t submit_nop(struct hpu_cb_builder *b, uint32_t queue)
{
	assert_int_equal(hpu_cb_nop(b), 0);
	return hpu_test_drv_submit(b, queue, 0);
}

/* Many CSs: consecutive numbers, all completed; the CB reused at once */
static void run_basic(struct hpu_device *dev)
{
	struct hpu_cb_builder *cb;
	uint64_t first, seq, prev;
	uint32_t status;
	int i;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	first = prev = submit_nop(cb, 0);
	for (i = 0; i < 300; i++) {
		seq = submit_nop(cb, (uint32_t)i % 4);
		assert_int_equal(seq, prev + 1);
		prev = seq;
	}
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, first, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_cs_wait(dev, first + 150, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	/* a number never handed out is the driver's -EINVAL */
	assert_int_equal(hpu_cs_wait(dev, seq + 1000, 0, &status), -EINVAL);
	hpu_cb_builder_destroy(cb);
}

/*
 * Failures: a CS timeout (TIMEDOUT), a page fault (ABORTED), a bad
 * packet (-EINVAL at submission), timed waits on a blocked CS (BUSY)
 */
static void run_failures(struct hpu_device *dev)
{
	struct hpu_cb_builder *cb;
	uint64_t buf[4] = { 0 }, handle, seq, host_va;
	struct hpu_cs_chunk chunk;
	uint8_t *host;
	uint32_t status;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_fence(cb, 99, 1, 1), 0);
	seq = hpu_test_drv_submit(cb, 1, 300);
	assert_int_equal(hpu_cs_wait(dev, seq, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_cs_wait(dev, seq, 30000, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_TIMEDOUT);
	/* asked again: the same answer */
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_TIMEDOUT);

	host = malloc(8192);
	assert_non_null(host);
	assert_int_equal(hpu_mem_map_host(dev, host, 8192, 0, 0, &host_va), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, unmapped, 4096), 0);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(hpu_mem_unmap(dev, host_va), 0);
	free(host);

	/* an unknown opcode: refused at submission on both paths */
	buf[0] = 0x7f | (8ULL << 16);
	assert_int_equal(hpu_cb_create(dev, buf, sizeof(buf), &handle, NULL),
			 0);
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = handle;
	chunk.cb_size = 8;
	assert_int_equal(hpu_cs_submit(dev, &chunk, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	assert_int_equal(hpu_cs_submit(dev, &chunk, 1, 0x100, 0, &seq, NULL),
			 -EINVAL);
	assert_int_equal(hpu_cb_destroy(dev, handle), 0);

	/* and the context goes on */
	hpu_test_drv_expect_status(dev, submit_nop(cb, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
}

/*
 * A CS blocked on a fence, a WAIT submission behind it, a NOP on another
 * queue that ends first (out of order), then the release
 */
static void run_out_of_order(struct hpu_device *dev)
{
	uint64_t blocked, waiting, nop, rel;
	struct hpu_cb_builder *cb;
	uint32_t status;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_fence(cb, 97, 1, 1), 0);
	blocked = hpu_test_drv_submit(cb, 1, 20000);
	assert_int_equal(
		hpu_cs_submit_wait(dev, 2, &blocked, 1, &waiting, NULL), 0);
	assert_int_equal(waiting, blocked + 1);
	nop = submit_nop(cb, 3);
	hpu_test_drv_expect_status(dev, nop, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_cs_wait(dev, blocked, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_cs_wait(dev, waiting, 20000, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_int_equal(hpu_cb_msg_long(cb, 97, HPU_MSG_OP_ADD, 1), 0);
	rel = hpu_test_drv_submit(cb, 0, 0);
	hpu_test_drv_expect_status(dev, waiting, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, blocked, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, rel, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
}

/*
 * hpu_cs_wait_multi() as WAIT_CS answers it: all and any, the map of
 * those that ended, the first failed status in array order, BUSY with
 * a partial map when the condition is not met, numbers out of order
 */
static void run_wait_multi(struct hpu_device *dev)
{
	uint64_t seqs[HPU_WAIT_MULTI_CS_MAX], blocked, host_va, bad, rel;
	struct hpu_cb_builder *cb;
	uint32_t status, map;
	unsigned int i;
	uint8_t *host;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	for (i = 0; i < HPU_WAIT_MULTI_CS_MAX; i++)
		seqs[HPU_WAIT_MULTI_CS_MAX - 1 - i] = submit_nop(cb, i % 4);
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, HPU_WAIT_MULTI_CS_MAX, 0,
					   HPU_TEST_DRV_WAIT_US, &status, &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(map, UINT32_MAX);

	/* one held by a fence, one failing (a DMA from an unmapped VA) */
	assert_int_equal(hpu_cb_fence(cb, 96, 1, 1), 0);
	blocked = hpu_test_drv_submit(cb, 1, 0);
	host = malloc(8192);
	assert_non_null(host);
	assert_int_equal(hpu_mem_map_host(dev, host, 8192, 0, 0, &host_va), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, unmapped, 4096), 0);
	bad = hpu_test_drv_submit(cb, 0, 0);
	hpu_test_drv_expect_status(dev, bad, HPU_WAIT_CS_STATUS_ABORTED);
	seqs[0] = blocked;
	seqs[1] = seqs[5];
	seqs[2] = bad;
	/* all: not met in time, the map says which ended */
	assert_int_equal(
		hpu_cs_wait_multi(dev, seqs, 3, 0, 20000, &status, &map), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(map, 6);
	/* any: met; the failed one is the first failed */
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, 3, 1,
					   HPU_TEST_DRV_WAIT_US, &status, &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(map, 6);
	/* map may be NULL; a poll (0 us) answers at once */
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, 1, 1, 0, &status, NULL),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	/* release the fence: all of them ended, the failure still first */
	assert_int_equal(hpu_cb_msg_long(cb, 96, HPU_MSG_OP_ADD, 1), 0);
	rel = hpu_test_drv_submit(cb, 0, 0);
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, 3, 0,
					   HPU_TEST_DRV_WAIT_US, &status, &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(map, 7);
	seqs[2] = rel;
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, 3, 0,
					   HPU_TEST_DRV_WAIT_US, &status, &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(map, 7);
	/* bad arguments */
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, 0, 0, 0, &status, &map),
			 -EINVAL);
	assert_int_equal(hpu_cs_wait_multi(dev, seqs, HPU_WAIT_MULTI_CS_MAX + 1,
					   0, 0, &status, &map),
			 -EINVAL);
	assert_int_equal(hpu_mem_unmap(dev, host_va), 0);
	free(host);
	hpu_cb_builder_destroy(cb);
}

/*
 * The context's internal SOBs (512) all held by WAIT chunks waiting: one
 * more WAIT is -EAGAIN at once on both paths (the ring refuses the entry
 * rather than hold the producer until a CS ends), and all of them end
 * when the fence is released
 */
static void run_no_internal_sob(struct hpu_device *dev)
{
	static uint64_t waits[512];
	struct hpu_cb_builder *cb;
	uint64_t blocked, seq, rel;
	uint32_t status;
	unsigned int i;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_fence(cb, 95, 1, 1), 0);
	blocked = hpu_test_drv_submit(cb, 1, 0);
	for (i = 0; i < 512; i++)
		assert_int_equal(hpu_cs_submit_wait(dev, 2 + i % 2, &blocked, 1,
						    &waits[i], NULL),
				 0);
	assert_int_equal(hpu_cs_submit_wait(dev, 2, &blocked, 1, &seq, NULL),
			 -EAGAIN);
	/* a number still waiting needs a SOB too; one that ended does not */
	assert_int_equal(hpu_cs_submit_wait(dev, 3, &waits[0], 1, &seq, NULL),
			 -EAGAIN);
	rel = submit_nop(cb, 0);
	hpu_test_drv_expect_status(dev, rel, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_cs_submit_wait(dev, 3, &rel, 1, &seq, NULL), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_cs_wait(dev, waits[511], 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_int_equal(hpu_cb_msg_long(cb, 95, HPU_MSG_OP_ADD, 1), 0);
	rel = hpu_test_drv_submit(cb, 0, 0);
	hpu_test_drv_expect_status(dev, rel, HPU_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < 512; i++)
		hpu_test_drv_expect_status(dev, waits[i],
					   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_cs_submit_wait(dev, 2, &blocked, 1, &seq, NULL),
			 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
}

/* A stream's copies and events (timestamps come through the CQ) */
static void run_stream(struct hpu_device *dev)
{
	struct hpu_stream_event *e0, *e1;
	uint8_t in[8192], out[8192];
	struct hpu_stream *s;
	uint64_t h, va;
	float ms;
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	memset(out, 0, sizeof(out));
	assert_int_equal(hpu_mem_alloc(dev, 2 * MiB, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	assert_int_equal(hpu_stream_create(dev, 0, &s), 0);
	assert_int_equal(hpu_event_create(dev, &e0), 0);
	assert_int_equal(hpu_event_create(dev, &e1), 0);
	assert_int_equal(hpu_event_record(e0, s), 0);
	assert_int_equal(hpu_stream_memcpy_h2d(s, va, in, sizeof(in)), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(s, out, va, sizeof(out)), 0);
	assert_int_equal(hpu_event_record(e1, s), 0);
	assert_int_equal(hpu_event_synchronize(e1), 0);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(hpu_event_elapsed_time(e0, e1, &ms), 0);
	assert_true(ms >= 0);
	assert_int_equal(hpu_stream_synchronize(s), 0);

	/* a failing copy: synchronize says -EIO */
	assert_int_equal(hpu_stream_memcpy_d2h(s, out, unmapped, 4096), 0);
	assert_int_equal(hpu_stream_synchronize(s), -EIO);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	hpu_event_destroy(e0);
	hpu_event_destroy(e1);
	hpu_stream_destroy(s);
	assert_int_equal(hpu_mem_unmap(dev, va), 0);
	assert_int_equal(hpu_mem_free(dev, h), 0);
}

#define BOTH_WAYS(name)                                    \
	static void test_##name##_ring(void **state)       \
	{                                                  \
		struct hpu_device *dev = open_mode(true);  \
		(void)state;                               \
		run_##name(dev);                           \
		assert_int_equal(ring_in_use(dev), 1);     \
		hpu_close(dev);                            \
	}                                                  \
	static void test_##name##_ioctl(void **state)      \
	{                                                  \
		struct hpu_device *dev = open_mode(false); \
		(void)state;                               \
		run_##name(dev);                           \
		hpu_close(dev);                            \
	}

BOTH_WAYS(basic)
BOTH_WAYS(failures)
BOTH_WAYS(out_of_order)
BOTH_WAYS(wait_multi)
BOTH_WAYS(no_internal_sob)
BOTH_WAYS(stream)

#define THREADS	   4
#define THREAD_CSS 200

/* One thread: its own CB, CSs on its own queue, each waited for */
static void *submitter(void *arg)
{
	struct hpu_device *dev = arg;
	struct hpu_cb_builder *cb;
	uint64_t seq, prev = 0;
	uint32_t status;
	intptr_t bad = 0;
	int i;

	if (hpu_cb_builder_create(dev, 4096, &cb))
		return (void *)1;
	for (i = 0; i < THREAD_CSS && !bad; i++) {
		bad |= hpu_cb_nop(cb) != 0;
		bad |= hpu_cb_builder_submit(cb, 0, 0, 0, &seq, NULL) != 0;
		hpu_cb_builder_reset(cb);
		bad |= seq <= prev;
		prev = seq;
		bad |= hpu_cs_wait(dev, seq, HPU_TEST_DRV_WAIT_US, &status) !=
			       0 ||
		       status != HPU_WAIT_CS_STATUS_COMPLETED;
	}
	hpu_cb_builder_destroy(cb);
	return (void *)bad;
}

/*
 * Several threads submit and wait on one handle: every number is handed
 * out once, every wait says COMPLETED
 */
static void run_threads(struct hpu_device *dev)
{
	pthread_t t[THREADS];
	void *ret;
	int i;

	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, submitter, dev),
				 0);
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	run_basic(dev);
}

BOTH_WAYS(threads)

static int count_ring_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "memfd:hpudrv_ring"))
			n++;
	fclose(f);
	return n;
}

/* The start of this process's (one) ring mapping */
static struct hpu_ring_hdr *find_ring(void)
{
	unsigned long start = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "memfd:hpudrv_ring"))
			start = strtoul(line, NULL, 16);
	fclose(f);
	assert_true(start != 0);
	return (struct hpu_ring_hdr *)start;
}

/*
 * A forked child neither has nor uses the parent's ring: the inherited
 * handle works through the ioctl path, closing it leaves the parent's
 * ring registered, and a device the child opens has a ring of its own.
 */
static void test_fork_child(void **state)
{
	struct hpu_device *dev = open_mode(true);
	struct hpu_cb_builder *cb;
	uint64_t seq;
	int st;
	pid_t pid;

	(void)state;
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	seq = submit_nop(cb, 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(count_ring_maps(), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hpu_device *own;
		uint32_t status;
		int bad = 0;

		bad |= count_ring_maps() != 0;
		bad |= hpu_cs_wait(dev, seq, HPU_TEST_DRV_WAIT_US, &status) !=
			       0 ||
		       status != HPU_WAIT_CS_STATUS_COMPLETED;
		hpu_close(dev);
		bad |= hpu_open(0, &own) != 0;
		if (!bad) {
			bad |= ring_in_use(own) != 1;
			bad |= count_ring_maps() != 1;
			run_basic(own);
			hpu_close(own);
		}
		_exit(bad ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(ring_in_use(dev), 1);
	hpu_test_drv_expect_status(dev, submit_nop(cb, 1),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
	assert_int_equal(count_ring_maps(), 0);
}

/*
 * A CS ioctl issued on the context behind the library's back takes a
 * number the ring predicted: the driver's sq_seq (ABI 1.3) shows it when
 * the next entry is taken, so that entry's number is right at once; the
 * ring is given up and the ioctl path goes on with consecutive numbers.
 */
static void test_numbers_checked_at_take(void **state)
{
	struct hpu_device *dev = open_mode(true);
	struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
					    .size = sizeof(nop) } };
	struct hpu_cb_builder *cb;
	uint64_t a, raw, b;

	(void)state;
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	a = submit_nop(cb, 0);
	hpu_test_drv_expect_status(dev, a, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_cs_run_cb(hpu_device_fd(dev), &nop,
					    sizeof(nop), 2, 0, &raw),
			 0);
	assert_int_equal(raw, a + 1);
	b = submit_nop(cb, 1);
	assert_int_equal(b, raw + 1);
	hpu_test_drv_expect_status(dev, b, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(ring_in_use(dev), 0);
	assert_int_equal(submit_nop(cb, 3), b + 1);
	hpu_test_drv_expect_status(dev, b + 1, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
}

/*
 * The driver breaks the ring (an overrun written into its sq_tail): the
 * library gives it up (UNREGISTER) and goes on with the ioctl path;
 * numbers handed out before still answer.
 */
static void test_broken_ring(void **state)
{
	struct hpu_device *dev = open_mode(true);
	struct hpu_cb_builder *cb;
	struct hpu_ring_hdr *hdr;
	struct hpu_event ev[8];
	uint64_t before, after;
	int i, n, found = 0;

	(void)state;
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	before = submit_nop(cb, 0);
	hpu_test_drv_expect_status(dev, before, HPU_WAIT_CS_STATUS_COMPLETED);
	hdr = find_ring();
	__atomic_store_n(&hdr->sq_tail, hdr->sq_tail + 5000, __ATOMIC_RELEASE);
	__atomic_add_fetch(&hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &hdr->sq_doorbell, FUTEX_WAKE, 1, NULL, NULL, 0);
	for (i = 0;
	     i < WAIT_STEPS && !__atomic_load_n(&hdr->error, __ATOMIC_ACQUIRE);
	     i++)
		hpu_test_sleep_ms(1);
	assert_int_equal(hdr->error, EIO);

	after = submit_nop(cb, 0);
	assert_true(after > before);
	assert_int_equal(ring_in_use(dev), 0);
	hpu_test_drv_expect_status(dev, after, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, before, HPU_WAIT_CS_STATUS_COMPLETED);
	run_basic(dev);
	n = hpu_event_read(dev, ev, 8);
	for (i = 0; i < n; i++)
		found |= ev[i].type == HPU_EVENT_RING_ERR;
	assert_true(found);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
	assert_int_equal(count_ring_maps(), 0);
}

/* REGISTER refused (pinned_bytes): the ioctl path, silently */
static void test_register_fails(void **state)
{
	struct hpu_device *dev;

	(void)state;
	unsetenv("HPU_RING");
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(ring_in_use(dev), 0);
	assert_int_equal(count_ring_maps(), 0);
	run_basic(dev);
	run_out_of_order(dev);
	hpu_close(dev);
}

/*
 * Back-pressure: CSs behind a blocked one fill cs_in_flight, the next
 * submission says -EAGAIN (after the library's bounded wait) and nothing
 * hangs; once the blocked CS times out everything ends and submissions
 * work again
 */
static void run_in_flight(struct hpu_device *dev)
{
	struct hpu_cb_builder *cb;
	uint64_t blocked, seq, last = 0;
	int i, ret = 0;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_fence(cb, 95, 1, 1), 0);
	blocked = hpu_test_drv_submit(cb, 1, 1500);
	for (i = 0; i < 64; i++) {
		assert_int_equal(hpu_cb_nop(cb), 0);
		ret = hpu_cb_builder_submit(cb, 1, 0, 0, &seq, NULL);
		hpu_cb_builder_reset(cb);
		if (ret)
			break;
		last = seq;
	}
	assert_int_equal(ret, -EAGAIN);
	assert_true(i >= 16);
	assert_true(last > blocked);
	hpu_test_drv_expect_status(dev, blocked, HPU_WAIT_CS_STATUS_TIMEDOUT);
	hpu_test_drv_expect_status(dev, last, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, submit_nop(cb, 1),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(cb);
}

BOTH_WAYS(in_flight)

/* ------------------------------------------------------- CB arena */

/* Entries through the arena and around it so far (the producer's counts) */
static uint64_t arena_in(struct hpu_device *dev)
{
	return dev->ring->arena_entries;
}

static uint64_t arena_around(struct hpu_device *dev)
{
	return dev->ring->arena_around;
}

static struct hpu_device *open_arena(const char *env)
{
	struct hpu_device *dev;

	unsetenv("HPU_RING");
	if (env)
		setenv("HPU_RING_CB_ARENA", env, 1);
	else
		unsetenv("HPU_RING_CB_ARENA");
	assert_int_equal(hpu_open(0, &dev), 0);
	unsetenv("HPU_RING_CB_ARENA");
	assert_int_equal(ring_in_use(dev), 1);
	assert_non_null(dev->ring);
	return dev;
}

/*
 * A builder CB of @pad NOP bytes, then a MEMSET of @value into the 8
 * bytes at @va (submitted by the caller)
 */
static void fill(struct hpu_cb_builder *b, size_t pad, uint64_t va,
		 uint64_t value)
{
	size_t i;

	hpu_cb_builder_reset(b);
	for (i = 0; i < pad; i += sizeof(struct hpu_pkt_nop))
		assert_int_equal(hpu_cb_nop(b), 0);
	assert_int_equal(hpu_cb_memset(b, va, 8, value, 8), 0);
}

/* Host memory the device writes, mapped into the context */
struct target {
	volatile uint64_t *host;
	uint64_t va;
};

static struct target target_map(struct hpu_device *dev)
{
	struct target t;

	t.host = calloc(1, 4096);
	assert_non_null(t.host);
	assert_int_equal(
		hpu_mem_map_host(dev, (void *)t.host, 4096, 0, 0, &t.va), 0);
	return t;
}

static void target_unmap(struct hpu_device *dev, struct target *t)
{
	assert_int_equal(hpu_mem_unmap(dev, t->va), 0);
	free((void *)t->host);
}

/* @b reset and filled with NOPs and a MEMSET to exactly @bytes bytes */
static void fill_to(struct hpu_cb_builder *b, size_t bytes, uint64_t va,
		    uint64_t value)
{
	size_t pkt;

	fill(b, 0, va, value);
	pkt = hpu_cb_builder_used(b);
	assert_true(bytes >= pkt);
	fill(b, bytes - pkt, va, value);
	assert_int_equal(hpu_cb_builder_used(b), bytes);
}

/*
 * The default arena (128 KiB): a small CB goes through it, a CS of
 * exactly HPU_RING_CB_ARENA_MAX_ENTRY (64 KiB, libhpudrv's limit) through
 * it, one 8 bytes above it around it (the driver reads it out of the
 * process), a CS of several small chunks through it, a SIGNAL and a WAIT
 * never; every CS does what its packets say, in order
 */
static void test_arena_small_large(void **state)
{
	struct hpu_device *dev = open_arena(NULL);
	struct hpu_cb_builder *small, *big, *more;
	struct hpu_cs_chunk c[2];
	struct target t = target_map(dev);
	uint64_t in, around, seq, seqs[2];
	uint32_t q = 0;

	(void)state;
	assert_non_null(dev->ring->arena);
	assert_int_equal(dev->ring->arena_size, 131072);
	assert_int_equal(dev->ring->hdr->flags & HPU_RING_HDR_F_CB_ARENA,
			 HPU_RING_HDR_F_CB_ARENA);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &small), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &more), 0);
	assert_int_equal(hpu_cb_builder_create(
				 dev, HPU_RING_CB_ARENA_MAX_ENTRY + 4096, &big),
			 0);

	in = arena_in(dev);
	around = arena_around(dev);
	fill(small, 64, t.va, 0x1111);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(small, q, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 0x1111);
	assert_int_equal(arena_in(dev), in + 1);

	/* at the limit: through the arena */
	fill_to(big, HPU_RING_CB_ARENA_MAX_ENTRY, t.va, 0x5555);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(big, q, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 0x5555);
	assert_int_equal(arena_in(dev), in + 2);
	assert_int_equal(arena_around(dev), around);

	/* 8 bytes above it: around the arena */
	fill_to(big, HPU_RING_CB_ARENA_MAX_ENTRY + 8, t.va, 0x2222);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(big, q, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 0x2222);
	assert_int_equal(arena_in(dev), in + 2);
	assert_int_equal(arena_around(dev), around + 1);
	in++; /* the at-limit CS counted above */

	/* two chunks, one piece of the arena: the second one's MEMSET last */
	fill(small, 8, t.va, 0x3333);
	fill(more, 16, t.va, 0x4444);
	memset(c, 0, sizeof(c));
	c[0].cb_handle = hpu_cb_builder_handle(small);
	c[0].cb_size = (uint32_t)hpu_cb_builder_used(small);
	c[1].cb_handle = hpu_cb_builder_handle(more);
	c[1].cb_size = (uint32_t)hpu_cb_builder_used(more);
	assert_int_equal(hpu_cs_submit(dev, c, 2, 0, 0, &seq, NULL), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 0x4444);
	assert_int_equal(arena_in(dev), in + 2);

	/* SIGNAL and WAIT run no CB: never the arena's */
	assert_int_equal(hpu_cs_submit_signal(dev, &q, 1, &seqs[0], NULL), 0);
	assert_int_equal(hpu_cs_submit_wait(dev, 1, seqs, 1, &seqs[1], NULL),
			 0);
	hpu_test_drv_expect_status(dev, seqs[1], HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(arena_in(dev), in + 2);
	assert_int_equal(arena_around(dev), around + 1);

	/* a bad packet in an arena CS: -EINVAL at submission, as ever */
	hpu_cb_builder_reset(small);
	assert_int_equal(hpu_cb_memset(small, t.va, 8, 1, 8), 0);
	((uint8_t *)hpu_cb_builder_data(small))[0] = 0x7f;
	assert_int_equal(hpu_cb_builder_submit(small, q, 0, 0, &seq, NULL),
			 -EINVAL);
	assert_int_equal(arena_in(dev), in + 3);
	hpu_cb_builder_destroy(small);
	hpu_cb_builder_destroy(more);
	hpu_cb_builder_destroy(big);
	target_unmap(dev, &t);
	hpu_close(dev);
}

/*
 * A 4 KiB arena: 3 KiB CSs go through it again and again (each wraps to
 * 0, the previous one's space given back once taken), a 6 KiB CS of two
 * chunks finds no room and goes around; the CB a CS ran is not changed
 * by refilling the builder after the submission returned
 */
static void test_arena_full(void **state)
{
	struct hpu_device *dev = open_arena("4096");
	struct hpu_cb_builder *a, *b;
	struct target t = target_map(dev);
	struct hpu_cs_chunk c[2];
	uint64_t in, around, seq;
	int i;

	(void)state;
	assert_int_equal(dev->ring->arena_size, 4096);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &a), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &b), 0);
	in = arena_in(dev);
	around = arena_around(dev);
	for (i = 0; i < 8; i++) {
		fill(a, 3000, t.va, 0x100 + (uint64_t)i);
		assert_int_equal(hpu_cb_builder_submit(a, 0, 0, 0, &seq, NULL),
				 0);
		/* the driver took its copy: refilling changes nothing */
		fill(a, 8, t.va, 0xdead);
		hpu_test_drv_expect_status(dev, seq,
					   HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(*t.host, 0x100 + (uint64_t)i);
	}
	assert_int_equal(arena_in(dev), in + 8);
	assert_int_equal(arena_around(dev), around);

	fill(a, 3000, t.va, 0x5555);
	fill(b, 3000, t.va, 0x6666);
	memset(c, 0, sizeof(c));
	c[0].cb_handle = hpu_cb_builder_handle(a);
	c[0].cb_size = (uint32_t)hpu_cb_builder_used(a);
	c[1].cb_handle = hpu_cb_builder_handle(b);
	c[1].cb_size = (uint32_t)hpu_cb_builder_used(b);
	c[1].queue_index = 0;
	assert_int_equal(hpu_cs_submit(dev, c, 2, 0, 0, &seq, NULL), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 0x6666);
	assert_int_equal(arena_in(dev), in + 8);
	assert_int_equal(arena_around(dev), around + 1);
	hpu_cb_builder_destroy(a);
	hpu_cb_builder_destroy(b);
	target_unmap(dev, &t);
	hpu_close(dev);
}

/*
 * Ordering across the paths on one queue: an arena CS, a CS around the
 * arena, a CS of a CB made with hpu_cb_create() (never copied by the
 * library), then an HPU_IOCTL_CS on the descriptor behind the library's
 * back (the driver takes the ring's entries first), then an arena CS
 * again (the ring is given up there, the ioctl path goes on): numbers
 * consecutive, the writes land in that order
 */
static void test_arena_mixed(void **state)
{
	struct hpu_device *dev = open_arena(NULL);
	struct hpu_cb_builder *small, *big, *raw;
	struct target t = target_map(dev);
	uint64_t s[5], own[4] = { 0 }, handle, around;
	struct hpu_cs_chunk c;
	int i;

	(void)state;
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &small), 0);
	assert_int_equal(hpu_cb_builder_create(
				 dev, HPU_RING_CB_ARENA_MAX_ENTRY + 4096, &big),
			 0);
	assert_int_equal(hpudrv_cb_builder_new(NULL, 64, &raw), 0);
	around = arena_around(dev);

	fill(small, 0, t.va + 8, 1);
	s[0] = hpu_test_drv_submit(small, 0, 0);
	fill_to(big, HPU_RING_CB_ARENA_MAX_ENTRY + 8, t.va + 8, 2);
	s[1] = hpu_test_drv_submit(big, 0, 0);
	assert_int_equal(arena_around(dev), around + 1);
	/* the program's own memory: around the arena */
	fill(small, 0, t.va + 8, 3);
	memcpy(own, hpu_cb_builder_data(small), hpu_cb_builder_used(small));
	assert_int_equal(hpu_cb_create(dev, own, sizeof(own), &handle, NULL),
			 0);
	memset(&c, 0, sizeof(c));
	c.cb_handle = handle;
	c.cb_size = (uint32_t)hpu_cb_builder_used(small);
	assert_int_equal(hpu_cs_submit(dev, &c, 1, 0, 0, &s[2], NULL), 0);
	assert_int_equal(arena_around(dev), around + 2);
	/* behind the library's back, on the same queue */
	fill(raw, 0, t.va + 8, 4);
	assert_int_equal(hpu_test_cs_run_cb(hpu_device_fd(dev),
					    hpu_cb_builder_data(raw),
					    (uint32_t)hpu_cb_builder_used(raw),
					    0, 0, &s[3]),
			 0);
	fill(small, 0, t.va + 8, 5);
	s[4] = hpu_test_drv_submit(small, 0, 0);
	for (i = 1; i < 5; i++)
		assert_int_equal(s[i], s[0] + (uint64_t)i);
	for (i = 0; i < 5; i++)
		hpu_test_drv_expect_status(dev, s[i],
					   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(t.host[1], 5);
	/* the ring was given up at the diverged number */
	assert_int_equal(ring_in_use(dev), 0);
	fill(small, 0, t.va + 8, 6);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(small, 0, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(t.host[1], 6);
	assert_int_equal(hpu_cb_destroy(dev, handle), 0);
	hpu_cb_builder_destroy(small);
	hpu_cb_builder_destroy(big);
	hpu_cb_builder_destroy(raw);
	target_unmap(dev, &t);
	hpu_close(dev);
}

/* HPU_RING_CB_ARENA=0: a ring without an arena, every CB around it */
static void test_arena_off(void **state)
{
	struct hpu_device *dev = open_arena("0");
	struct hpu_cb_builder *cb;
	struct target t = target_map(dev);

	(void)state;
	assert_null(dev->ring->arena);
	assert_int_equal(dev->ring->hdr->flags & HPU_RING_HDR_F_CB_ARENA, 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	fill(cb, 0, t.va, 77);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(*t.host, 77);
	assert_int_equal(arena_in(dev), 0);
	assert_int_equal(arena_around(dev), 0);
	run_basic(dev);
	hpu_cb_builder_destroy(cb);
	target_unmap(dev, &t);
	hpu_close(dev);
}

/* ------------------------------------------- untaken stream entries */

/*
 * A stream's submissions through the ring go without waiting for the
 * consumer's take (their CBs are in the arena, or they are WAITs): the
 * numbers are the predicted ones (a plain submission after them gets the
 * next), the work runs in order, and an entry the driver refuses (a
 * queue the device does not have) answers 0 at once and -EIO at the
 * stream's synchronize. With HPU_RING_ASYNC=0 every entry waits for its
 * take and the refusal is the submission's answer.
 */
static void run_untaken(bool async)
{
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	struct hpu_stream *s, *s2;
	struct hpu_stream_event *ev;
	struct hpu_cs_chunk c;
	struct target t;
	uint64_t before, seq[4];
	unsigned int i;

	if (!async)
		setenv("HPU_RING_ASYNC", "0", 1);
	dev = open_arena(NULL);
	unsetenv("HPU_RING_ASYNC");
	t = target_map(dev);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_stream_create(dev, 0, &s), 0);
	assert_int_equal(hpu_stream_create(dev, 1, &s2), 0);
	assert_int_equal(hpu_event_create(dev, &ev), 0);
	before = dev->ring->async_entries;

	/* stream batches, a multi-queue CS, a WAIT behind an event */
	for (i = 0; i < 3; i++) {
		assert_int_equal(hpu_stream_memset(s, t.va, 0x100 + i, 8, 8),
				 0);
		assert_int_equal(hpu_stream_flush(s), 0);
	}
	fill(cb, 8, t.va + 8, 0x200);
	memset(&c, 0, sizeof(c));
	c.cb_handle = hpu_cb_builder_handle(cb);
	c.cb_size = (uint32_t)hpu_cb_builder_used(cb);
	c.queue_index = 1;
	assert_int_equal(hpu_stream_submit(s, &c, 1, 0, &seq[0]), 0);
	assert_int_equal(hpu_event_record(ev, s), 0);
	assert_int_equal(hpu_stream_wait_event(s2, ev), 0);
	assert_int_equal(hpu_stream_memset(s2, t.va + 16, 0x300, 8, 8), 0);
	assert_int_equal(hpu_stream_flush(s2), 0);
	/* a plain submission: the next number, after all of them */
	fill(cb, 0, t.va + 24, 0x400);
	seq[1] = hpu_test_drv_submit(cb, 0, 0);
	assert_true(seq[1] > seq[0]);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	assert_int_equal(hpu_stream_synchronize(s2), 0);
	hpu_test_drv_expect_status(dev, seq[1], HPU_WAIT_CS_STATUS_COMPLETED);
	/* the waits let the consumer take them first */
	assert_false(dev->ring->async_untaken);
	assert_int_equal(t.host[0], 0x102);
	assert_int_equal(t.host[1], 0x200);
	assert_int_equal(t.host[2], 0x300);
	assert_int_equal(t.host[3], 0x400);
	if (async)
		/* 3 batches, the CS, the WAIT of s2 at least, the batch */
		assert_true(dev->ring->async_entries >= before + 5);
	else
		assert_int_equal(dev->ring->async_entries, before);

	/* refused by the driver: a queue the device does not have */
	fill(cb, 0, t.va, 0x500);
	c.cb_size = (uint32_t)hpu_cb_builder_used(cb);
	c.queue_index = 4000;
	if (async) {
		assert_int_equal(hpu_stream_submit(s, &c, 1, 0, &seq[2]), 0);
		assert_int_equal(hpu_stream_synchronize(s), -EIO);
	} else {
		assert_int_equal(hpu_stream_submit(s, &c, 1, 0, &seq[2]),
				 -EINVAL);
		assert_int_equal(hpu_stream_synchronize(s), 0);
	}
	/* the stream and the ring go on */
	assert_int_equal(hpu_stream_synchronize(s), 0);
	assert_int_equal(hpu_stream_memset(s, t.va, 0x600, 8, 8), 0);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	assert_int_equal(t.host[0], 0x600);
	assert_int_equal(ring_in_use(dev), 1);

	hpu_event_destroy(ev);
	hpu_stream_destroy(s2);
	hpu_stream_destroy(s);
	hpu_cb_builder_destroy(cb);
	target_unmap(dev, &t);
	hpu_close(dev);
}

static void test_stream_untaken(void **state)
{
	(void)state;
	run_untaken(true);
}

static void test_stream_untaken_off(void **state)
{
	(void)state;
	run_untaken(false);
}

#define T(f) cmocka_unit_test_setup(f, hpu_test_need_daemon)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_basic_ring),
		T(test_basic_ioctl),
		T(test_failures_ring),
		T(test_failures_ioctl),
		T(test_out_of_order_ring),
		T(test_out_of_order_ioctl),
		T(test_wait_multi_ring),
		T(test_wait_multi_ioctl),
		T(test_no_internal_sob_ring),
		T(test_no_internal_sob_ioctl),
		T(test_numbers_checked_at_take),
		T(test_stream_ring),
		T(test_stream_ioctl),
		T(test_threads_ring),
		T(test_threads_ioctl),
		T(test_fork_child),
		T(test_broken_ring),
		T(test_arena_small_large),
		T(test_arena_full),
		T(test_arena_mixed),
		T(test_arena_off),
		T(test_stream_untaken),
		T(test_stream_untaken_off),
	};
	const struct CMUnitTest small[] = {
		T(test_register_fails),
	};
	const struct CMUnitTest limited[] = {
		T(test_in_flight_ring),
		T(test_in_flight_ioctl),
	};
	int failed;

	failed =
		cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
	failed += cmocka_run_group_tests(small, small_group_setup,
					 hpu_test_group_stop);
	failed += cmocka_run_group_tests(limited, limited_group_setup,
					 hpu_test_group_stop);
	return failed;
}
