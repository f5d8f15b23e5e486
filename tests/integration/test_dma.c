// SPDX-License-Identifier: MIT
/*
 * test_dma.c - DMA, MEMSET, sync objects, SIGNAL/WAIT submissions,
 * multi-CS wait, poll() wake-up and exports through libhpudrv against the
 * real hpu-fused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define MiB	(1024ULL * 1024)
#define BIG	(256 * MiB)
#define SLACK	4096
#define WAIT_US 20000000ULL

struct fixture {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb[4];
	uint8_t *src, *dst;	 /* host, BIG + SLACK each */
	uint64_t src_va, dst_va; /* their device VAs */
	uint64_t dev_a, dev_b;	 /* device buffers, BIG + SLACK each */
	uint64_t h_a, h_b;
};

static struct fixture fx;

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

static int setup(void **state)
{
	int i, ret = hpu_test_need_daemon(state);

	memset(&fx, 0, sizeof(fx));
	if (ret)
		return ret;
	assert_int_equal(hpu_open(0, &fx.dev), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(hpu_cb_builder_create(fx.dev, 4096, &fx.cb[i]),
				 0);
	fx.src = mmap(NULL, BIG + SLACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fx.dst = mmap(NULL, BIG + SLACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(fx.src != MAP_FAILED && fx.dst != MAP_FAILED);
	assert_int_equal(hpu_mem_map_host(fx.dev, fx.src, BIG + SLACK, 0, 0,
					  &fx.src_va),
			 0);
	assert_int_equal(hpu_mem_map_host(fx.dev, fx.dst, BIG + SLACK, 0, 0,
					  &fx.dst_va),
			 0);
	assert_int_equal(hpu_mem_alloc(fx.dev, BIG + SLACK, 0, 0, &fx.h_a), 0);
	assert_int_equal(hpu_mem_alloc(fx.dev, BIG + SLACK, 0, 0, &fx.h_b), 0);
	assert_int_equal(hpu_mem_map(fx.dev, fx.h_a, 0, 0, &fx.dev_a), 0);
	assert_int_equal(hpu_mem_map(fx.dev, fx.h_b, 0, 0, &fx.dev_b), 0);
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	if (!fx.dev)
		return 0;
	for (i = 0; i < 4; i++)
		hpu_cb_builder_destroy(fx.cb[i]);
	assert_int_equal(hpu_mem_unmap(fx.dev, fx.dev_a), 0);
	assert_int_equal(hpu_mem_unmap(fx.dev, fx.dev_b), 0);
	assert_int_equal(hpu_mem_free(fx.dev, fx.h_a), 0);
	assert_int_equal(hpu_mem_free(fx.dev, fx.h_b), 0);
	assert_int_equal(hpu_mem_unmap(fx.dev, fx.src_va), 0);
	assert_int_equal(hpu_mem_unmap(fx.dev, fx.dst_va), 0);
	hpu_close(fx.dev);
	munmap(fx.src, BIG + SLACK);
	munmap(fx.dst, BIG + SLACK);
	fx.dev = NULL;
	return 0;
}

/* Submit builder @i on @queue, reset it, return the sequence number. */
static uint64_t submit(int i, uint32_t queue)
{
	uint64_t seq;

	assert_int_equal(
		hpu_cb_builder_submit(fx.cb[i], queue, 0, 0, &seq, NULL), 0);
	hpu_cb_builder_reset(fx.cb[i]);
	return seq;
}

static void expect_status(uint64_t seq, uint32_t want)
{
	uint32_t status;

	assert_int_equal(hpu_cs_wait(fx.dev, seq, WAIT_US, &status), 0);
	assert_int_equal(status, want);
}

static void dma_sync(uint64_t dst, uint64_t src, uint64_t size)
{
	assert_int_equal(hpu_cb_lin_dma(fx.cb[0], dst, src, size), 0);
	expect_status(submit(0, 0), HPU_WAIT_CS_STATUS_COMPLETED);
}

static void roundtrip(uint64_t size, uint64_t hoff, uint64_t doff)
{
	hpu_test_fill_random(fx.src + hoff, size, size + hoff);
	memset(fx.dst, 0,
	       size + 2 * SLACK > BIG + SLACK ? BIG + SLACK : size + 2 * SLACK);
	/* host -> A -> B -> host, each at its own offset */
	dma_sync(fx.dev_a + doff, fx.src_va + hoff, size);
	dma_sync(fx.dev_b + (doff ^ 1) * !!doff, fx.dev_a + doff, size);
	dma_sync(fx.dst_va + hoff + 1, fx.dev_b + (doff ^ 1) * !!doff, size);
	if (memcmp(fx.dst + hoff + 1, fx.src + hoff, size))
		fail_msg("data differs: size %llu host offset %llu device "
			 "offset %llu",
			 (unsigned long long)size, (unsigned long long)hoff,
			 (unsigned long long)doff);
	/* nothing written around the destination */
	assert_int_equal(fx.dst[hoff], 0);
	assert_int_equal(fx.dst[hoff + 1 + size], 0);
}

static void test_roundtrip_sizes(void **state)
{
	static const uint64_t sizes[] = { 1, 7, 4096, 65539, 1 * MiB, 16 * MiB };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		roundtrip(sizes[i], 0, 0);
		roundtrip(sizes[i], 3, 4093);
	}
}

static void test_roundtrip_256m(void **state)
{
	(void)state;
	roundtrip(BIG, 0, 0);
}

static void test_memset_widths(void **state)
{
	static const unsigned int widths[] = { 1, 2, 4, 8 };
	const uint64_t value = 0x1122334455667788ULL;
	size_t i, j;

	(void)state;
	for (i = 0; i < 4; i++) {
		unsigned int w = widths[i];

		assert_int_equal(
			hpu_cb_memset(fx.cb[0], fx.dev_a, 256, 0xee, 1), 0);
		assert_int_equal(hpu_cb_memset(fx.cb[0], fx.dev_a + 8 * w,
					       16 * w, value, w),
				 0);
		assert_int_equal(
			hpu_cb_lin_dma(fx.cb[0], fx.dst_va, fx.dev_a, 256), 0);
		expect_status(submit(0, 1), HPU_WAIT_CS_STATUS_COMPLETED);
		for (j = 0; j < 256; j++) {
			uint8_t want = 0xee;

			if (j >= 8 * w && j < 24 * w)
				want = (uint8_t)(value >> (8 * (j % w)));
			if (fx.dst[j] != want)
				fail_msg("width %u byte %zu: %#x, want %#x", w,
					 j, fx.dst[j], want);
		}
	}
}

/* Queue 1 fences on SOB 7 that queue 2 increments after its DMA. */
static void test_cross_queue_sob(void **state)
{
	const uint64_t size = 4 * MiB;
	uint64_t s1, s2;

	(void)state;
	hpu_test_fill_random(fx.src, size, 77);
	memset(fx.dst, 0, size);
	assert_int_equal(hpu_cb_fence(fx.cb[1], 7, 1, 1), 0);
	assert_int_equal(hpu_cb_lin_dma(fx.cb[1], fx.dst_va, fx.dev_b, size),
			 0);
	s1 = submit(1, 1);
	assert_int_equal(hpu_cb_lin_dma(fx.cb[2], fx.dev_b, fx.src_va, size),
			 0);
	assert_int_equal(hpu_cb_msg_long(fx.cb[2], 7, HPU_MSG_OP_ADD, 1), 0);
	s2 = submit(2, 2);
	expect_status(s2, HPU_WAIT_CS_STATUS_COMPLETED);
	expect_status(s1, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(fx.dst, fx.src, size);
}

/* A WAIT submission on queue 4 for a SIGNAL of queue 3 orders a D2H. */
static void test_signal_wait(void **state)
{
	const uint64_t size = 16 * MiB;
	uint32_t q3 = 3;
	uint64_t s_dma, s_sig, s_wait, s_out;

	(void)state;
	hpu_test_fill_random(fx.src, size, 99);
	memset(fx.dst, 0, size);
	assert_int_equal(hpu_cb_lin_dma(fx.cb[0], fx.dev_a, fx.src_va, size),
			 0);
	s_dma = submit(0, 3);
	assert_int_equal(hpu_cs_submit_signal(fx.dev, &q3, 1, &s_sig, NULL), 0);
	assert_true(s_sig > s_dma);
	assert_int_equal(
		hpu_cs_submit_wait(fx.dev, 4, &s_sig, 1, &s_wait, NULL), 0);
	assert_int_equal(hpu_cb_lin_dma(fx.cb[1], fx.dst_va, fx.dev_a, size),
			 0);
	s_out = submit(1, 4);
	expect_status(s_out, HPU_WAIT_CS_STATUS_COMPLETED);
	expect_status(s_wait, HPU_WAIT_CS_STATUS_COMPLETED);
	expect_status(s_sig, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(fx.dst, fx.src, size);
}

static void test_wait_multi(void **state)
{
	uint64_t seqs[3];
	uint32_t status, map;
	int i;

	(void)state;
	/* 0: blocked on SOB 20; 1, 2: NOPs */
	assert_int_equal(hpu_cb_fence(fx.cb[0], 20, 1, 1), 0);
	seqs[0] = submit(0, 5);
	for (i = 1; i < 3; i++) {
		assert_int_equal(hpu_cb_nop(fx.cb[i]), 0);
		seqs[i] = submit(i, (uint32_t)(5 + i));
	}
	assert_int_equal(hpu_cs_wait_multi(fx.dev, seqs, 3, 1, WAIT_US, &status,
					   &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_not_equal(map & 6, 0);
	assert_int_equal(map & 1, 0);
	assert_int_equal(
		hpu_cs_wait_multi(fx.dev, seqs, 3, 0, 0, &status, &map), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(map & 1, 0);
	/* release the fence from another queue */
	assert_int_equal(hpu_cb_msg_long(fx.cb[3], 20, HPU_MSG_OP_SET, 1), 0);
	submit(3, 8);
	assert_int_equal(hpu_cs_wait_multi(fx.dev, seqs, 3, 0, WAIT_US, &status,
					   &map),
			 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(map, 7);
	assert_int_equal(hpu_cs_wait_multi(fx.dev, seqs, 0, 0, 0, &status,
					   &map),
			 -EINVAL);
}

static void test_poll_wakeup(void **state)
{
	uint64_t blocked, rel;
	uint32_t status;
	int rev;

	(void)state;
	assert_int_equal(hpu_cb_fence(fx.cb[0], 21, 1, 1), 0);
	blocked = submit(0, 2);
	/* a WAIT_CS clears the "a CS ended" state */
	assert_int_equal(hpu_cs_wait(fx.dev, blocked, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	rev = hpu_device_poll(fx.dev, POLLPRI, 0);
	assert_true(rev >= 0);
	assert_int_equal(rev & POLLPRI, 0);
	assert_int_equal(hpu_cb_msg_long(fx.cb[1], 21, HPU_MSG_OP_ADD, 1), 0);
	rel = submit(1, 3);
	rev = hpu_device_poll(fx.dev, POLLPRI, 10000);
	assert_true(rev & POLLPRI);
	expect_status(blocked, HPU_WAIT_CS_STATUS_COMPLETED);
	expect_status(rel, HPU_WAIT_CS_STATUS_COMPLETED);
}

static void test_export(void **state)
{
	uint64_t id, h, va;
	size_t size;
	uint8_t *p;

	(void)state;
	assert_int_equal(hpu_mem_alloc(fx.dev, 1 * MiB, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(fx.dev, h, 0, 0, &va), 0);
	hpu_test_fill_random(fx.src, MiB, 5);
	dma_sync(va, fx.src_va, MiB);
	assert_int_equal(hpu_mem_export(fx.dev, h, &id), 0);
	assert_int_equal(hpu_mem_export_mmap(fx.dev, id, (void **)&p, &size),
			 0);
	assert_true(size >= MiB);
	assert_memory_equal(p, fx.src, MiB);
	memset(p, 0xa5, 4096);
	dma_sync(fx.dst_va, va, 4096);
	assert_int_equal(fx.dst[0], 0xa5);
	assert_int_equal(fx.dst[4095], 0xa5);
	munmap(p, size);
	assert_int_equal(hpu_mem_free(fx.dev, h), -EBUSY);
	assert_int_equal(hpu_mem_unmap(fx.dev, va), 0);
	assert_int_equal(hpu_mem_free(fx.dev, h), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip_256m, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_memset_widths, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cross_queue_sob, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_signal_wait, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wait_multi, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_poll_wakeup, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
