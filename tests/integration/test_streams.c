// SPDX-License-Identifier: MIT
/*
 * test_streams.c - streams, events and the caching allocator through
 * libhpudrv against the real hpu-fused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../lib/hpu_test_daemon.h"
#include "hpudrv.h"

#define MiB (1024ULL * 1024)

static struct hpu_device *dev;

static int group_setup(void **state)
{
	(void)state;
	if (hpu_test_group_start(1, "gaudi2"))
		return -1;
	return hpu_test_require_cs();
}

static int setup(void **state)
{
	int ret = hpu_test_need_daemon(state);

	if (ret)
		return ret;
	assert_int_equal(hpu_open(0, &dev), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hpu_close(dev);
	dev = NULL;
	return 0;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 9));
}

static uint64_t dev_buf(uint64_t size)
{
	uint64_t h, va;

	assert_int_equal(hpu_mem_alloc(dev, size, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	return va;
}

static void test_memcpy_chain(void **state)
{
	const size_t size = 3 * MiB + 5;
	uint8_t *src = malloc(size), *dst = calloc(1, size);
	struct hpu_stream *s;
	uint64_t a, b;
	size_t i;

	(void)state;
	a = dev_buf(size);
	b = dev_buf(size);
	assert_non_null(src);
	assert_non_null(dst);
	fill(src, size, 1);
	assert_int_equal(hpu_stream_create(dev, HPU_STREAM_QUEUE_AUTO, &s), 0);
	assert_int_equal(hpu_stream_memcpy_h2d(s, a, src, size), 0);
	assert_int_equal(hpu_stream_memcpy_d2d(s, b, a, size), 0);
	assert_int_equal(hpu_stream_memset(s, b + 4096, 0x77, 1, 4096), 0);
	assert_int_equal(hpu_stream_memset(s, b, 0, 3, 3), -EINVAL);
	assert_int_equal(hpu_stream_memcpy_d2h(s, dst, b, size), 0);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	for (i = 0; i < size; i++) {
		uint8_t want = i >= 4096 && i < 8192 ? 0x77 : src[i];

		if (dst[i] != want)
			fail_msg("byte %zu: %#x, want %#x", i, dst[i], want);
	}
	hpu_stream_destroy(s);
	free(src);
	free(dst);
}

/* More ops than one stream CB holds: the batch is submitted when full. */
static void test_many_small_ops(void **state)
{
	const size_t n = 5000;
	uint32_t *out = calloc(n, sizeof(*out));
	struct hpu_stream *s;
	uint64_t a;
	size_t i;

	(void)state;
	a = dev_buf(n * 4);
	assert_non_null(out);
	assert_int_equal(hpu_stream_create(dev, 0, &s), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(hpu_stream_memset(s, a + 4 * i, i, 4, 4), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(s, out, a, n * 4), 0);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(out[i], i);
	hpu_stream_destroy(s);
	free(out);
}

static void test_events(void **state)
{
	const size_t size = 32 * MiB;
	struct hpu_stream_event *e0, *e1, *never;
	struct hpu_stream *s;
	uint8_t *src = malloc(size);
	uint64_t a;
	float ms = -1;

	(void)state;
	a = dev_buf(size);
	assert_non_null(src);
	fill(src, size, 2);
	assert_int_equal(hpu_stream_create(dev, 2, &s), 0);
	assert_int_equal(hpu_event_create(dev, &e0), 0);
	assert_int_equal(hpu_event_create(dev, &e1), 0);
	assert_int_equal(hpu_event_create(dev, &never), 0);
	assert_int_equal(hpu_event_query(never), 0);
	assert_int_equal(hpu_event_elapsed_time(never, e0, &ms), -ENODATA);
	assert_int_equal(hpu_event_record(e0, s), 0);
	assert_int_equal(hpu_stream_memcpy_h2d(s, a, src, size), 0);
	assert_int_equal(hpu_event_record(e1, s), 0);
	assert_int_equal(hpu_event_synchronize(e1), 0);
	assert_int_equal(hpu_event_query(e1), 0);
	assert_int_equal(hpu_event_query(e0), 0);
	assert_int_equal(hpu_event_elapsed_time(e0, e1, &ms), 0);
	assert_true(ms >= 0.0f);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	hpu_event_destroy(e0);
	hpu_event_destroy(e1);
	hpu_event_destroy(never);
	hpu_stream_destroy(s);
	free(src);
}

/* Stream B reads what stream A wrote only after waiting on A's event. */
static void test_wait_event_order(void **state)
{
	const size_t size = 64 * MiB;
	uint8_t *src = malloc(size), *dst = calloc(1, size);
	struct hpu_stream *sa, *sb;
	struct hpu_stream_event *ev;
	uint64_t a;

	(void)state;
	a = dev_buf(size);
	assert_non_null(src);
	assert_non_null(dst);
	fill(src, size, 3);
	assert_int_equal(hpu_stream_create(dev, 3, &sa), 0);
	assert_int_equal(hpu_stream_create(dev, 4, &sb), 0);
	assert_int_equal(hpu_event_create(dev, &ev), 0);
	assert_int_equal(hpu_stream_memcpy_h2d(sa, a, src, size), 0);
	assert_int_equal(hpu_event_record(ev, sa), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ev), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(sb, dst, a, size), 0);
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	assert_memory_equal(dst, src, size);
	assert_int_equal(hpu_stream_synchronize(sa), 0);
	hpu_event_destroy(ev);
	hpu_stream_destroy(sa);
	hpu_stream_destroy(sb);
	free(src);
	free(dst);
}

static void test_allocator_reuse(void **state)
{
	struct hpu_allocator_stats st;
	struct hpu_info_dram_usage du;
	struct hpu_allocator *a;
	uint64_t v1, v2, v3;

	(void)state;
	assert_int_equal(hpu_allocator_create(dev, NULL, &a), 0);
	assert_int_equal(hpu_alloc(a, 1 * MiB, &v1), 0);
	assert_int_equal(hpu_alloc(a, 10 * MiB, &v2), 0);
	assert_int_equal(hpu_free(a, v1), 0);
	assert_int_equal(hpu_alloc(a, 1 * MiB - 100, &v3), 0);
	assert_int_equal(v3, v1);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.num_device_allocs, 2);
	assert_int_equal(st.bytes_reserved, 11 * MiB);
	assert_int_equal(hpu_info_dram_usage(dev, &du), 0);
	assert_int_equal(du.ctx_dram_mem, 11 * MiB);
	assert_int_equal(hpu_free(a, v2), 0);
	assert_int_equal(hpu_free(a, v3), 0);
	assert_int_equal(hpu_allocator_empty_cache(a), 0);
	assert_int_equal(hpu_info_dram_usage(dev, &du), 0);
	assert_int_equal(du.ctx_dram_mem, 0);
	hpu_allocator_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_memcpy_chain, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many_small_ops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_allocator_reuse, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
