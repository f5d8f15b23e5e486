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
#include "../lib/hpu_test_drv_cs.h"
#include "hpudrv.h"

#define MiB (1024ULL * 1024)

static struct hpu_device *dev;

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
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

/* SOB a blocked CS of these tests waits on (a fresh context: 0) */
#define BLOCK_SOB 20

/* A CS that holds DMA queue @q until release() */
static struct hpu_cb_builder *fence_cb(struct hpu_cs_chunk *ch, uint32_t q)
{
	return hpu_test_drv_block_cb(dev, BLOCK_SOB, q, ch);
}

static void release(void)
{
	hpu_test_drv_release(dev, BLOCK_SOB);
}

/*
 * An event recorded right after a CS of hpu_stream_submit() is that CS;
 * a stream waiting for it keeps the wait until its next work, which must
 * still start only after the CS: nothing of it runs while the CS blocks.
 */
static void test_wait_event_deferred(void **state)
{
	const size_t size = 4096;
	struct hpu_stream_event *ea, *eb;
	struct hpu_cb_builder *fb;
	struct hpu_stream *sa, *sb;
	struct hpu_cs_chunk ch;
	uint8_t *dst = calloc(1, size);
	uint64_t a, seq;
	float ms = -1;
	size_t i;

	(void)state;
	assert_non_null(dst);
	a = dev_buf(size);
	fb = fence_cb(&ch, 1);
	assert_int_equal(hpu_stream_create(dev, 3, &sa), 0);
	assert_int_equal(hpu_stream_create(dev, 4, &sb), 0);
	assert_int_equal(hpu_event_create(dev, &ea), 0);
	assert_int_equal(hpu_event_create(dev, &eb), 0);
	assert_int_equal(hpu_stream_memset(sa, a, 0x11, 1, size), 0);
	assert_int_equal(hpu_stream_submit(sa, &ch, 1, 0, &seq), 0);
	assert_int_equal(hpu_event_record(ea, sa), 0);
	assert_int_equal(hpu_event_query(ea), -EBUSY);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0); /* kept once */
	assert_int_equal(hpu_stream_memset(sb, a, 0x5a, 1, size), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(sb, dst, a, size), 0);
	assert_int_equal(hpu_event_record(eb, sb), 0);
	assert_int_equal(hpu_event_query(eb), -EBUSY);
	for (i = 0; i < size; i++)
		assert_int_equal(dst[i], 0);
	release();
	assert_int_equal(hpu_event_synchronize(eb), 0);
	for (i = 0; i < size; i++)
		assert_int_equal(dst[i], 0x5a);
	assert_int_equal(hpu_event_query(ea), 0);
	/* the CS standing for @ea carries its completion time */
	assert_int_equal(hpu_event_elapsed_time(ea, eb, &ms), 0);
	assert_true(ms >= 0.0f);
	assert_int_equal(hpu_stream_synchronize(sa), 0);
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	hpu_event_destroy(ea);
	hpu_event_destroy(eb);
	hpu_stream_destroy(sa);
	hpu_stream_destroy(sb);
	hpu_cb_builder_destroy(fb);
	free(dst);
}

/*
 * A stream that waits for an event and has no work after it: its
 * synchronize still waits for the event's CS, which here ends by its
 * timeout (the stream's own work did not fail: 0; the event's is
 * -ETIMEDOUT, already known when synchronize returned).
 */
static void test_wait_event_sync_timeout(void **state)
{
	struct hpu_stream_event *ea;
	struct hpu_cb_builder *fb;
	struct hpu_stream *sa, *sb;
	struct hpu_cs_chunk ch;
	uint64_t seq;

	(void)state;
	fb = fence_cb(&ch, 1);
	assert_int_equal(hpu_stream_create(dev, 3, &sa), 0);
	assert_int_equal(hpu_stream_create(dev, 4, &sb), 0);
	assert_int_equal(hpu_event_create(dev, &ea), 0);
	assert_int_equal(hpu_stream_submit(sa, &ch, 1, 300, &seq), 0);
	assert_int_equal(hpu_event_record(ea, sa), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0);
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	assert_int_equal(hpu_event_query(ea), -ETIMEDOUT);
	assert_int_equal(hpu_stream_synchronize(sa), -ETIMEDOUT);
	hpu_event_destroy(ea);
	hpu_stream_destroy(sa);
	hpu_stream_destroy(sb);
	hpu_cb_builder_destroy(fb);
}

/*
 * More awaited events than one WAIT chunk holds: the wait is made at
 * once when the list is full, and the work after sees every write.
 */
static void test_wait_many_events(void **state)
{
	enum {
		NEV = 40,
		PIECE = 256
	};
	struct hpu_stream_event *ev[NEV];
	struct hpu_stream *sa, *sb;
	uint8_t *dst = calloc(NEV, PIECE);
	uint64_t a;
	unsigned int i, j;

	(void)state;
	assert_non_null(dst);
	a = dev_buf(NEV * PIECE);
	assert_int_equal(hpu_stream_create(dev, 3, &sa), 0);
	assert_int_equal(hpu_stream_create(dev, 4, &sb), 0);
	for (i = 0; i < NEV; i++) {
		assert_int_equal(hpu_event_create(dev, &ev[i]), 0);
		assert_int_equal(hpu_stream_memset(sa, a + i * PIECE, i + 1, 1,
						   PIECE),
				 0);
		assert_int_equal(hpu_event_record(ev[i], sa), 0);
	}
	for (i = 0; i < NEV; i++)
		assert_int_equal(hpu_stream_wait_event(sb, ev[i]), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(sb, dst, a, NEV * PIECE), 0);
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	for (i = 0; i < NEV; i++)
		for (j = 0; j < PIECE; j++)
			assert_int_equal(dst[i * PIECE + j], i + 1);
	assert_int_equal(hpu_stream_synchronize(sa), 0);
	for (i = 0; i < NEV; i++)
		hpu_event_destroy(ev[i]);
	hpu_stream_destroy(sa);
	hpu_stream_destroy(sb);
	free(dst);
}

/*
 * A stream's CS after one the program already saw end needs no WAIT:
 * with the ring (its completions are in shared memory) the next number is
 * the CS itself; through the ioctls (HPU_RING=0, where asking would cost
 * a round trip as well) a WAIT comes first.
 */
static void test_no_wait_after_known_end(void **state)
{
	struct hpu_cb_builder *b;
	struct hpu_stream *s;
	struct hpu_device *d;
	struct hpu_cs_chunk ch;
	uint64_t s1, s2;
	const char *env = getenv("HPU_RING");
	char *saved = env ? strdup(env) : NULL;
	uint32_t status;
	int ring;

	(void)state;
	for (ring = 0; ring < 2; ring++) {
		if (ring)
			unsetenv("HPU_RING");
		else
			setenv("HPU_RING", "0", 1);
		assert_int_equal(hpu_open(0, &d), 0);
		assert_int_equal(hpu_stream_create(d, 3, &s), 0);
		assert_int_equal(hpu_cb_builder_create(d, 4096, &b), 0);
		assert_int_equal(hpu_cb_nop(b), 0);
		memset(&ch, 0, sizeof(ch));
		ch.cb_handle = hpu_cb_builder_handle(b);
		ch.queue_index = 1;
		ch.cb_size = (uint32_t)hpu_cb_builder_used(b);
		assert_int_equal(hpu_stream_submit(s, &ch, 1, 0, &s1), 0);
		assert_int_equal(hpu_cs_wait(d, s1, 20000000, &status), 0);
		assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(hpu_stream_submit(s, &ch, 1, 0, &s2), 0);
		assert_int_equal(s2, ring ? s1 + 1 : s1 + 2);
		assert_int_equal(hpu_stream_synchronize(s), 0);
		hpu_stream_destroy(s);
		hpu_cb_builder_destroy(b);
		hpu_close(d);
	}
	if (saved)
		setenv("HPU_RING", saved, 1);
	else
		unsetenv("HPU_RING");
	free(saved);
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
		cmocka_unit_test_setup_teardown(test_wait_event_deferred, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_sync_timeout,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_many_events, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_wait_after_known_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_allocator_reuse, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
