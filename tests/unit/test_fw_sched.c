// SPDX-License-Identifier: MIT
/*
 * test_fw_sched.c - libhpusim shares every engine between address spaces
 * (docs/firmware-sim.md, "Queues, engines and submissions"): one address
 * space's FENCE that never passes holds only its own later jobs on that
 * engine, another's NOP on the same queue runs; long DMA jobs of one
 * address space and a short one of another interleave; destroying an
 * address space (or a reset) with parked and queued jobs purges its
 * queues while the others go on.
 */
#include "../lib/hpu_test_fw.h"

/* Completion order of @cookie, or -1 when it has not come within @limit_s */
static int wait_cookie(struct hpu_test_fw *f, void *cookie, int limit_s)
{
	struct timespec ts;
	unsigned int i = 0;
	int ret = 0, found = -1;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += limit_s;
	pthread_mutex_lock(&f->rec.lock);
	for (;;) {
		for (; i < f->rec.ndone && i < HPU_TEST_FW_MAX_DONE; i++) {
			if (f->rec.cookie[i] == cookie) {
				found = (int)i;
				break;
			}
		}
		if (found >= 0 || ret == ETIMEDOUT)
			break;
		ret = pthread_cond_timedwait(&f->rec.cond, &f->rec.lock, &ts);
	}
	pthread_mutex_unlock(&f->rec.lock);
	return found;
}

static void submit_as(struct hpu_fw_as *as, uint32_t queue,
		      const struct hpu_test_cb *cb, void *cookie)
{
	struct hpu_fw_job job = { .queue = queue,
				  .cb = cb->buf,
				  .cb_size = cb->len };

	assert_int_equal(hpusim_model.ops->cs_submit(as, &job, 1, cookie), 0);
}

static uint64_t map_dev_as(struct hpu_test_fw *f, struct hpu_fw_as *as,
			   uint64_t size, struct hpu_fw_mem **m)
{
	uint64_t va = 0;

	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, size, 0, false,
						     false, m),
			 0);
	assert_int_equal(hpusim_model.ops->map_mem(as, *m, 0, false, &va), 0);
	return va;
}

#define A1 ((void *)0xa1)
#define A2 ((void *)0xa2)
#define A3 ((void *)0xa3)
#define B1 ((void *)0xb1)
#define C1 ((void *)0xc1)

/*
 * A's FENCE on queue 0 never passes by itself: B's NOP on queue 0 still
 * completes; A's later job on queue 0 waits behind A's FENCE (order within
 * an address space); once A's SOB is raised both of A's complete in order
 * and the engines are idle again.
 */
static void test_fence_hog_does_not_block_others(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb fence = { .len = 0 }, nop = { .len = 0 };
	struct hpu_fw_as *b = NULL;
	uint64_t busy[4];
	int ia1, ia2, ib, i;

	assert_int_equal(hpusim_model.ops->as_create(f->dev, &b), 0);
	hpu_test_cb_fence(&fence, 3, 1, 1);
	hpu_test_cb_put(&nop, HPU_PACKET_NOP, sizeof(struct hpu_pkt_nop), 0);
	hpu_test_fw_submit1(f, f->dma0, &fence, A1);
	hpu_test_fw_submit1(f, f->dma0, &nop, A2);
	submit_as(b, f->dma0, &nop, B1);
	ib = wait_cookie(f, B1, 10);
	assert_true(ib >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, B1, NULL), HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_ndone(f),
			 1); /* A's NOP is behind A's FENCE */

	/* more of B's work on the same engine, while A still waits */
	submit_as(b, f->dma0, &nop, C1);
	assert_true(wait_cookie(f, C1, 10) >= 0);
	assert_int_equal(hpu_test_fw_ndone(f), 2);

	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 3, HPU_MSG_OP_ADD, 1), 0);
	ia1 = wait_cookie(f, A1, HPU_TEST_FW_WAIT_S);
	ia2 = wait_cookie(f, A2, HPU_TEST_FW_WAIT_S);
	assert_true(ia1 >= 0 && ia2 > ia1);
	assert_int_equal(hpu_test_fw_result_of(f, A1, NULL), HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_result_of(f, A2, NULL), HPU_FW_CS_OK);
	/*
	 * The engine's thread marks it idle after the completion callback
	 * that woke this thread: wait for that, bounded (10 s)
	 */
	for (i = 0; i < 1000 && hpusim_model.ops->hw_idle(f->dev, busy) != 1;
	     i++)
		usleep(10000);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, busy), 1);
	hpusim_model.ops->as_destroy(b);
}

/*
 * A queues 16 memsets of 32 MiB on queue 0, then B one of 4 KiB on the
 * same queue: B's completes while A still has work (it waits at most a
 * turn of A), A's complete in their order.
 */
static void test_long_jobs_interleave(void **state)
{
	enum {
		NA = 16
	};
	struct hpu_test_fw *f = *state;
	struct hpu_fw_mem *ma, *mb;
	struct hpu_fw_as *b = NULL;
	struct hpu_test_cb big = { .len = 0 }, small = { .len = 0 };
	uint64_t va, vb;
	int ib, prev = -1, last;
	unsigned int i;

	assert_int_equal(hpusim_model.ops->as_create(f->dev, &b), 0);
	va = hpu_test_fw_map_dev(f, 32 * MiB, &ma);
	vb = map_dev_as(f, b, 64 * KiB, &mb);
	hpu_test_cb_memset(&big, va, 32 * MiB, 0x5a, 1);
	hpu_test_cb_memset(&small, vb, 4 * KiB, 0x11, 1);
	for (i = 0; i < NA; i++)
		hpu_test_fw_submit1(f, f->dma0, &big,
				    (void *)(uintptr_t)(0x100 + i));
	submit_as(b, f->dma0, &small, B1);
	ib = wait_cookie(f, B1, HPU_TEST_FW_WAIT_S);
	assert_true(ib >= 0);
	for (i = 0; i < NA; i++) {
		int k = wait_cookie(f, (void *)(uintptr_t)(0x100 + i),
				    HPU_TEST_FW_WAIT_S);

		assert_true(k > prev);
		prev = k;
	}
	last = prev;
	print_message("B's small job ended %d-th of %d\n", ib + 1, NA + 1);
	assert_true(ib < last);
	assert_int_equal(hpu_test_fw_result_of(f, B1, NULL), HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->unmap(b, vb, NULL), 0);
	assert_int_equal(hpusim_model.ops->mem_free(mb), 0);
	hpusim_model.ops->as_destroy(b);
	hpu_test_fw_unmap_dev(f, va, ma);
}

/*
 * Destroying an address space with a parked FENCE, a job queued behind
 * it and a job on another engine aborts them all; another address space
 * on the same engines goes on, and a new one uses them at once. A reset
 * aborts what waits and the address space submits again afterwards.
 */
static void test_purge_destroyed_context(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb fence = { .len = 0 }, nop = { .len = 0 };
	struct hpu_fw_as *a = NULL, *c = NULL;
	uint64_t busy[4];

	assert_int_equal(hpusim_model.ops->as_create(f->dev, &a), 0);
	hpu_test_cb_fence(&fence, 9, 1, 1);
	hpu_test_cb_put(&nop, HPU_PACKET_NOP, sizeof(struct hpu_pkt_nop), 0);
	submit_as(a, f->dma0, &fence, A1);
	submit_as(a, f->dma0, &nop, A2);
	submit_as(a, f->mme0, &fence, A3);
	/* the fixture's address space (B here) waits on queue 0 too */
	hpu_test_fw_submit1(f, f->dma0, &fence, B1);
	hpusim_model.ops->as_destroy(a);
	assert_true(wait_cookie(f, A1, 1) >= 0);
	assert_true(wait_cookie(f, A2, 1) >= 0);
	assert_true(wait_cookie(f, A3, 1) >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, A1, NULL), HPU_FW_CS_ABORTED);
	assert_int_equal(hpu_test_fw_result_of(f, A2, NULL), HPU_FW_CS_ABORTED);
	assert_int_equal(hpu_test_fw_result_of(f, A3, NULL), HPU_FW_CS_ABORTED);
	assert_int_equal(hpu_test_fw_ndone(f), 3); /* B still waits */

	assert_int_equal(hpusim_model.ops->as_create(f->dev, &c), 0);
	submit_as(c, f->dma0, &nop, C1);
	assert_true(wait_cookie(f, C1, 10) >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, C1, NULL), HPU_FW_CS_OK);
	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 9, HPU_MSG_OP_ADD, 1), 0);
	assert_true(wait_cookie(f, B1, HPU_TEST_FW_WAIT_S) >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, B1, NULL), HPU_FW_CS_OK);

	/* a reset aborts C's parked FENCE; C submits again afterwards */
	submit_as(c, f->dma0, &fence, (void *)0xc2);
	submit_as(c, f->dma0, &nop, (void *)0xc3);
	assert_int_equal(hpusim_model.ops->reset(f->dev, false), 0);
	assert_true(wait_cookie(f, (void *)0xc3, 1) >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xc2, NULL),
			 HPU_FW_CS_ABORTED);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xc3, NULL),
			 HPU_FW_CS_ABORTED);
	submit_as(c, f->dma0, &nop, (void *)0xc4);
	assert_true(wait_cookie(f, (void *)0xc4, 10) >= 0);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)0xc4, NULL),
			 HPU_FW_CS_OK);
	hpusim_model.ops->as_destroy(c);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, busy), 1);
}

int main(void)
{
#define T(fn)                                                  \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_setup, \
					hpu_test_fw_teardown)
	const struct CMUnitTest tests[] = {
		T(test_fence_hog_does_not_block_others),
		T(test_long_jobs_interleave),
		T(test_purge_destroyed_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
