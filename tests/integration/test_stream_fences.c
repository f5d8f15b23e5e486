// SPDX-License-Identifier: MIT
/*
 * test_stream_fences.c - streams ordered by fences inside their CSs
 * (hpu_stream_set_fences(), docs/libhpudrv.md "Stream fences") through
 * libhpudrv against the real hpu-fused: the order across streams on the
 * ring with the CB arena (fences in the chunks' bytes), on the ring
 * without it and through the ioctls (fences as jobs of their own); no
 * WAIT submission where a count exists; a producer that times out makes
 * its dependent end by its own timeout, and the streams go on; a compute
 * reset aborts both at once; the SOBs
 * the streams take are shared with hpu_sob_alloc().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_drv_cs.h"
#include "hpudrv.h"

/* SOB a blocked CS of these tests waits on (an application's own) */
#define BLOCK_SOB 20
#define SIZE	  4096

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
	unsetenv("HPU_STREAM_FENCE");
	assert_int_equal(hpu_open(0, &dev), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hpu_close(dev);
	dev = NULL;
	unsetenv("HPU_RING");
	unsetenv("HPU_RING_CB_ARENA");
	unsetenv("HPU_STREAM_FENCE");
	return 0;
}

static uint64_t dev_buf(uint64_t size)
{
	uint64_t h, va;

	assert_int_equal(hpu_mem_alloc(dev, size, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	return va;
}

/* A CS that holds DMA queue @q until release() */
static struct hpu_cb_builder *fence_cb(struct hpu_cs_chunk *ch, uint32_t q)
{
	return hpu_test_drv_block_cb(dev, BLOCK_SOB, q, ch);
}

static void release(void)
{
	hpu_test_drv_release(dev, BLOCK_SOB);
}

static uint64_t submitted(void)
{
	struct hpu_info_cs_counters c;

	assert_int_equal(hpu_info_cs_counters(dev, &c), 0);
	return c.ctx_submitted;
}

/*
 * Streams A (DMA queue 3) and B (queue 4), fences on or off as @fa and
 * @fb_on ask, and an event for each
 */
static void pair_create(struct hpu_stream **sa, struct hpu_stream **sb,
			struct hpu_stream_event **ea,
			struct hpu_stream_event **eb, bool fa, bool fb_on)
{
	assert_int_equal(hpu_stream_create(dev, 3, sa), 0);
	assert_int_equal(hpu_stream_create(dev, 4, sb), 0);
	assert_int_equal(hpu_stream_set_fences(*sa, fa), 0);
	assert_int_equal(hpu_stream_set_fences(*sb, fb_on), 0);
	assert_int_equal(hpu_event_create(dev, ea), 0);
	assert_int_equal(hpu_event_create(dev, eb), 0);
}

static void pair_destroy(struct hpu_stream *sa, struct hpu_stream *sb,
			 struct hpu_stream_event *ea,
			 struct hpu_stream_event *eb)
{
	hpu_event_destroy(ea);
	hpu_event_destroy(eb);
	hpu_stream_destroy(sa);
	hpu_stream_destroy(sb);
}

/*
 * Stream A: the blocked CS @ch (on DMA queue 1), then a memset of @a on
 * its own queue (it must follow the CS); event @ea. Stream B waits for
 * @ea, memsets the same bytes and copies them to @dst; event @eb.
 */
static void chain_submit(struct hpu_stream *sa, struct hpu_stream *sb,
			 struct hpu_stream_event *ea,
			 struct hpu_stream_event *eb,
			 const struct hpu_cs_chunk *ch, uint64_t a,
			 uint8_t *dst)
{
	uint64_t seq;

	assert_int_equal(hpu_stream_submit(sa, ch, 1, 0, &seq), 0);
	assert_int_equal(hpu_stream_memset(sa, a, 0x11, 1, SIZE), 0);
	assert_int_equal(hpu_event_record(ea, sa), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0);
	assert_int_equal(hpu_stream_memset(sb, a, 0x5a, 1, SIZE), 0);
	assert_int_equal(hpu_stream_memcpy_d2h(sb, dst, a, SIZE), 0);
	assert_int_equal(hpu_event_record(eb, sb), 0);
}

/*
 * Stream A: a CS on DMA queue 1 that blocks, then a memset on its own
 * queue (it must follow the CS); event. Stream B waits for the event,
 * memsets the same bytes and copies them out. Nothing of B runs before
 * the release; after it, B's bytes are the last. @fences: the streams'
 * mode. Return: the CSs the context submitted for it (all submitted
 * before the release, so every dependency was still running when its
 * dependent was submitted).
 */
static uint64_t order_case2(bool fa, bool fb_on)
{
	struct hpu_stream_event *ea, *eb;
	struct hpu_cb_builder *fb;
	struct hpu_stream *sa, *sb;
	uint8_t *dst = calloc(1, SIZE);
	struct hpu_cs_chunk ch;
	uint64_t a, before, count;
	size_t i;

	assert_non_null(dst);
	a = dev_buf(SIZE);
	fb = fence_cb(&ch, 1);
	pair_create(&sa, &sb, &ea, &eb, fa, fb_on);
	before = submitted();
	chain_submit(sa, sb, ea, eb, &ch, a, dst);
	assert_int_equal(hpu_event_query(ea), -EBUSY);
	assert_int_equal(hpu_event_query(eb), -EBUSY);
	for (i = 0; i < SIZE; i++)
		assert_int_equal(dst[i], 0);
	release();
	assert_int_equal(hpu_event_synchronize(eb), 0);
	for (i = 0; i < SIZE; i++)
		assert_int_equal(dst[i], 0x5a);
	/*
	 * with fences B may end before the driver handled A's end (A's
	 * work was done: its signal ran), so a look could still say busy
	 */
	assert_int_equal(hpu_event_synchronize(ea), 0);
	assert_int_equal(hpu_stream_synchronize(sa), 0);
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	/* all ended: every CS was taken and counted; release()'s is not ours */
	count = submitted() - before - 1;
	pair_destroy(sa, sb, ea, eb);
	hpu_cb_builder_destroy(fb);
	free(dst);
	return count;
}

static uint64_t order_case(bool fences)
{
	return order_case2(fences, fences);
}

/*
 * The producer's mode decides: a stream without fences fences on an
 * event of a stream with fences (3 CSs); one with fences waits by a WAIT
 * for an event of a stream without (A's memset and B's batch: 5 CSs)
 */
static void test_mixed_modes(void **state)
{
	(void)state;
	assert_int_equal(order_case2(true, false), 3);
	assert_int_equal(order_case2(false, true), 5);
}

/*
 * With fences: the CS, A's memset, B's batch: 3 CSs, in every path (the
 * ring with the arena, the ring without it, the ioctls); without: 2
 * WAITs more (A's memset after the CS, B's batch after the event).
 */
static void test_order_across_streams(void **state)
{
	static const char *const paths[][2] = {
		{ NULL, NULL }, /* ring, arena: fences in the chunks' bytes */
		{ NULL, "0" },	/* ring, no arena: jobs of their own */
		{ "0", NULL },	/* ioctls */
	};
	unsigned int p;

	(void)state;
	for (p = 0; p < 3; p++) {
		hpu_close(dev);
		if (paths[p][0])
			setenv("HPU_RING", paths[p][0], 1);
		else
			unsetenv("HPU_RING");
		if (paths[p][1])
			setenv("HPU_RING_CB_ARENA", paths[p][1], 1);
		else
			unsetenv("HPU_RING_CB_ARENA");
		assert_int_equal(hpu_open(0, &dev), 0);
		assert_int_equal(order_case(true), 3);
		assert_int_equal(order_case(false), 5);
	}
}

/* HPU_STREAM_FENCE overrides what the program asked for, both ways */
static void test_env_override(void **state)
{
	(void)state;
	setenv("HPU_STREAM_FENCE", "0", 1);
	assert_int_equal(order_case(true), 5);
	setenv("HPU_STREAM_FENCE", "1", 1);
	assert_int_equal(order_case(false), 3);
}

/*
 * After a failure: stream A's blocked CS @ch, then a memset of @a; B
 * waits for A's event, memsets @a and copies it to @dst; B's event is
 * busy until the release, then both streams end well with B's bytes
 * last (the streams order their work again).
 */
static void order_again(struct hpu_stream *sa, struct hpu_stream *sb,
			struct hpu_stream_event *ea,
			struct hpu_stream_event *eb,
			const struct hpu_cs_chunk *ch, uint64_t a, uint8_t *dst)
{
	size_t i;

	chain_submit(sa, sb, ea, eb, ch, a, dst);
	assert_int_equal(hpu_event_query(eb), -EBUSY);
	release();
	assert_int_equal(hpu_stream_synchronize(sb), 0);
	for (i = 0; i < SIZE; i++)
		assert_int_equal(dst[i], 0x5a);
	assert_int_equal(hpu_stream_synchronize(sa), 0);
}

/*
 * A producer that times out never signals: its dependent on another
 * stream waits in its FENCE until its own timeout and ends TIMEDOUT;
 * nothing hangs. Both streams go on afterwards (a new SOB: the old
 * count is not trusted) and order their work again.
 */
static void test_producer_timeout(void **state)
{
	struct hpu_stream_event *ea, *eb;
	struct hpu_cb_builder *fb, *nb;
	struct hpu_stream *sa, *sb;
	struct hpu_cs_chunk ch, nop;
	uint8_t *dst = calloc(1, SIZE);
	uint64_t a, seq, sseq;
	uint32_t status = 0;

	(void)state;
	assert_non_null(dst);
	a = dev_buf(SIZE);
	fb = fence_cb(&ch, 1);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &nb), 0);
	assert_int_equal(hpu_cb_nop(nb), 0);
	memset(&nop, 0, sizeof(nop));
	nop.cb_handle = hpu_cb_builder_handle(nb);
	nop.queue_index = 2;
	nop.cb_size = (uint32_t)hpu_cb_builder_used(nb);
	pair_create(&sa, &sb, &ea, &eb, true, true);

	assert_int_equal(hpu_stream_submit(sa, &ch, 1, 300, &seq), 0);
	assert_int_equal(hpu_event_record(ea, sa), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0);
	assert_int_equal(hpu_stream_submit(sb, &nop, 1, 600, &sseq), 0);
	assert_int_equal(hpu_stream_synchronize(sa), -ETIMEDOUT);
	assert_int_equal(hpu_event_synchronize(ea), -ETIMEDOUT);
	assert_int_equal(hpu_stream_synchronize(sb), -ETIMEDOUT);
	assert_int_equal(hpu_cs_wait(dev, sseq, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_TIMEDOUT);

	/* the streams work again, in order */
	order_again(sa, sb, ea, eb, &ch, a, dst);

	pair_destroy(sa, sb, ea, eb);
	hpu_cb_builder_destroy(nb);
	hpu_cb_builder_destroy(fb);
	free(dst);
}

/*
 * A compute reset while a producer blocks and its fenced dependent (on
 * another stream) waits: both end ABORTED at once (no timeout needed),
 * both streams report -EIO, and they order their work again after it.
 */
static void test_reset_aborts(void **state)
{
	struct hpu_stream_event *ea, *eb;
	struct hpu_cb_builder *fb;
	struct hpu_stream *sa, *sb;
	struct hpu_device *ctl;
	struct hpu_cs_chunk ch;
	uint8_t *dst = calloc(1, SIZE);
	uint32_t status = 0;
	uint64_t a, seq;

	(void)state;
	assert_non_null(dst);
	a = dev_buf(SIZE);
	fb = fence_cb(&ch, 1);
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	pair_create(&sa, &sb, &ea, &eb, true, true);

	assert_int_equal(hpu_stream_submit(sa, &ch, 1, 0, &seq), 0);
	assert_int_equal(hpu_stream_memset(sa, a, 0x11, 1, SIZE), 0);
	assert_int_equal(hpu_event_record(ea, sa), 0);
	assert_int_equal(hpu_stream_wait_event(sb, ea), 0);
	assert_int_equal(hpu_stream_memset(sb, a, 0x5a, 1, SIZE), 0);
	assert_int_equal(hpu_event_record(eb, sb), 0);
	assert_int_equal(hpu_event_query(eb), -EBUSY);
	/*
	 * a wait with a timeout first waits until the driver took every
	 * entry: all are in flight when the reset comes (one it took after
	 * would wait in its FENCE until its own timeout, as after any
	 * failure of what it follows)
	 */
	assert_int_equal(hpu_cs_wait(dev, seq, 1000, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_COMPUTE), 0);
	assert_int_equal(hpu_stream_synchronize(sa), -EIO);
	assert_int_equal(hpu_stream_synchronize(sb), -EIO);
	assert_int_equal(hpu_event_synchronize(eb), -EIO);

	/* both streams order their work again (new SOBs) */
	order_again(sa, sb, ea, eb, &ch, a, dst);

	pair_destroy(sa, sb, ea, eb);
	hpu_cb_builder_destroy(fb);
	hpu_close(ctl);
	free(dst);
}

/* One CS on @s on DMA queue 2 that ends at once; its wait */
static void nop_cs(struct hpu_stream *s)
{
	struct hpu_cb_builder *b;
	struct hpu_cs_chunk ch;
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &b), 0);
	assert_int_equal(hpu_cb_nop(b), 0);
	memset(&ch, 0, sizeof(ch));
	ch.cb_handle = hpu_cb_builder_handle(b);
	ch.queue_index = 2;
	ch.cb_size = (uint32_t)hpu_cb_builder_used(b);
	assert_int_equal(hpu_stream_submit(s, &ch, 1, 0, &seq), 0);
	assert_int_equal(hpu_stream_synchronize(s), 0);
	hpu_cb_builder_destroy(b);
}

/*
 * The SOB a stream with fences takes is one hpu_sob_alloc() does not
 * hand out while the stream lives; a stream that ended well gives it
 * back, one whose CS failed does not (its value is unknown), and
 * hpu_sob_free() frees neither. Blocks come from the top, the streams'
 * SOBs too.
 */
static void test_sob_shared(void **state)
{
	struct hpu_cb_builder *fb;
	struct hpu_stream *s;
	struct hpu_cs_chunk ch;
	uint32_t base;
	uint64_t seq;

	(void)state;
	assert_int_equal(hpu_sob_alloc(dev, 0, &base), -EINVAL);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS + 1, &base), -EINVAL);

	/* a CS that times out: the stream's SOB is never handed out again */
	fb = fence_cb(&ch, 1);
	assert_int_equal(hpu_stream_create(dev, 3, &s), 0);
	assert_int_equal(hpu_stream_set_fences(s, true), 0);
	assert_int_equal(hpu_stream_submit(s, &ch, 1, 200, &seq), 0);
	assert_int_equal(hpu_stream_synchronize(s), -ETIMEDOUT);
	hpu_stream_destroy(s);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS, &base), -ENOSPC);
	/* nor by a free of a range hpu_sob_alloc() did not hand out */
	hpu_sob_free(dev, 0, HPU_NUM_SOBS);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS, &base), -ENOSPC);

	/* a stream that ends well: taken while it lives, then given back */
	assert_int_equal(hpu_stream_create(dev, 3, &s), 0);
	assert_int_equal(hpu_stream_set_fences(s, true), 0);
	nop_cs(s);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS - 1, &base), -ENOSPC);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS - 2, &base), 0);
	assert_int_equal(base, 0);
	hpu_sob_free(dev, base, HPU_NUM_SOBS - 2);
	/* the live stream's SOB is not freed by a stray free either */
	hpu_sob_free(dev, HPU_NUM_SOBS - 2, 1);
	assert_int_equal(hpu_sob_alloc(dev, 1, &base), 0);
	assert_int_equal(base, HPU_NUM_SOBS - 3);
	hpu_sob_free(dev, base, 1);
	hpu_stream_destroy(s);
	assert_int_equal(hpu_sob_alloc(dev, HPU_NUM_SOBS - 1, &base), 0);
	assert_int_equal(base, 0);
	hpu_sob_free(dev, base, HPU_NUM_SOBS - 1);
	/* from the top: the retired one stays taken */
	assert_int_equal(hpu_sob_alloc(dev, 1, &base), 0);
	assert_int_equal(base, HPU_NUM_SOBS - 2);
	hpu_sob_free(dev, base, 1);
	hpu_cb_builder_destroy(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_across_streams,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_override, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mixed_modes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_producer_timeout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reset_aborts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sob_shared, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
