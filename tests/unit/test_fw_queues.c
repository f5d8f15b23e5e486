// SPDX-License-Identifier: MIT
/*
 * test_fw_queues.c - libhpusim command submission through hpusim_model.ops:
 * DMA round trips between this process's memory and HBM, device to device,
 * overlapping copies, MEMSET, fences across queues, monitors, engine
 * errors, the fast path, handoffs between the queues of one CS (run in
 * the submitting thread, and raced by concurrent submitters). Faults and
 * aborts: test_fw_faults.c.
 */
#include "../lib/hpu_test_fw.h"

/* ------------------------------------------------------ tests */

/* host -> device -> host of random data, 1 B .. 64 MiB, two offsets */
static void test_dma_round_trip(void **state)
{
	static const uint64_t sizes[] = {
		1, 7, 4096, 4097, 65536 + 3, 1 * MiB, 5 * MiB + 11, 64 * MiB
	};
	struct hpu_test_fw *f = *state;
	uint64_t max = 64 * MiB + 64, dva, hsrc, hdst;
	uint8_t *src = hpu_test_xmalloc(max), *dst = hpu_test_xmalloc(max);
	struct hpu_fw_mem *m;
	unsigned int i, k;
	struct hpu_test_cb cb;

	hpu_test_fill_random(src, max, 1);
	dva = hpu_test_fw_map_dev(f, max, &m);
	hsrc = hpu_test_fw_map_host(f, src, max);
	hdst = hpu_test_fw_map_host(f, dst, max);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (k = 0; k < 2; k++) {
			uint64_t so = k ? 3 : 0, doff = k ? 13 : 0;
			uint64_t n = sizes[i];

			memset(dst, 0, n + 32);
			cb.len = 0;
			hpu_test_cb_dma(&cb, dva + doff, hsrc + so, n);
			hpu_test_cb_dma(&cb, hdst + so, dva + doff, n);
			assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb,
							  NULL),
					 HPU_FW_CS_OK);
			assert_memory_equal(dst + so, src + so, n);
			assert_int_equal(dst[so + n], 0);
		}
	}
	hpu_test_fw_unmap_host(f, hsrc);
	hpu_test_fw_unmap_host(f, hdst);
	hpu_test_fw_unmap_dev(f, dva, m);
	free(src);
	free(dst);
}

/* device -> device, host -> host, and overlapping copies as memmove */
static void test_dma_dev_to_dev_and_overlap(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t n = 9 * MiB + 5, a, b, ha, hb;
	uint8_t *src = hpu_test_xmalloc(n + 64),
		*out = hpu_test_xmalloc(n + 64);
	uint8_t *ref = hpu_test_xmalloc(n + 64);
	struct hpu_fw_mem *ma, *mb;
	struct hpu_test_cb cb = { .len = 0 };

	hpu_test_fill_random(src, n + 64, 2);
	a = hpu_test_fw_map_dev(f, n + 64, &ma);
	b = hpu_test_fw_map_dev(f, n + 64, &mb);
	ha = hpu_test_fw_map_host(f, src, n + 64);
	hb = hpu_test_fw_map_host(f, out, n + 64);

	hpu_test_cb_dma(&cb, a, ha, n + 64);
	hpu_test_cb_dma(&cb, b + 1, a, n);  /* device to device */
	hpu_test_cb_dma(&cb, hb, b + 1, n); /* back to the host */
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, src, n);

	/* forward overlap (dst above src) and backward, in HBM */
	memcpy(ref, src, n + 64);
	memmove(ref + 5, ref, n);
	memmove(ref, ref + 40, n);
	cb.len = 0;
	hpu_test_cb_dma(&cb, a + 5, a, n);
	hpu_test_cb_dma(&cb, a, a + 40, n);
	hpu_test_cb_dma(&cb, hb, a, n + 64);
	assert_int_equal(hpu_test_fw_run1(f, f->dma1, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	/* host to host, overlapping in the same buffer */
	memcpy(ref, out, n + 64);
	memmove(ref + 3, ref, n);
	cb.len = 0;
	hpu_test_cb_dma(&cb, hb + 3, hb, n);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	hpu_test_fw_unmap_host(f, ha);
	hpu_test_fw_unmap_host(f, hb);
	hpu_test_fw_unmap_dev(f, a, ma);
	hpu_test_fw_unmap_dev(f, b, mb);
	free(src);
	free(out);
	free(ref);
}

static void test_memset_widths(void **state)
{
	static const uint32_t widths[] = { 1, 2, 4, 8 };
	const uint64_t value = 0x1122334455667788ULL;
	struct hpu_test_fw *f = *state;
	uint64_t n = 256 * KiB, dva, hva;
	uint8_t *buf = hpu_test_xmalloc(n + 128);
	struct hpu_fw_mem *m;
	unsigned int i;
	uint64_t j;

	dva = hpu_test_fw_map_dev(f, n + 64, &m);
	hva = hpu_test_fw_map_host(f, buf, n + 128);
	for (i = 0; i < 4; i++) {
		uint32_t w = widths[i];
		struct hpu_test_cb cb = { .len = 0 };

		memset(buf, 0xee, n + 128);
		hpu_test_cb_memset(&cb, dva, n + 64, 0, 1);
		hpu_test_cb_memset(&cb, dva + w, n, value, w); /* device */
		hpu_test_cb_dma(&cb, hva, dva, n + 2 * w);
		hpu_test_cb_memset(&cb, hva + n + 2 * w, 8 * w, value,
				   w); /* host */
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
				 HPU_FW_CS_OK);
		for (j = 0; j < w; j++)
			assert_int_equal(buf[j], 0);
		for (j = 0; j < n; j++)
			assert_int_equal(buf[w + j],
					 (uint8_t)(value >> (8 * (j % w))));
		for (j = 0; j < w; j++)
			assert_int_equal(buf[w + n + j], 0);
		for (j = 0; j < 8 * w; j++)
			assert_int_equal(buf[n + 2 * w + j],
					 (uint8_t)(value >> (8 * (j % w))));
		assert_int_equal(buf[n + 10 * w], 0xee);
	}
	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, m);
	free(buf);
}

/* A queue parks on a FENCE until another queue's MSG_LONG */
static void test_fence_across_queues(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb wait = { .len = 0 }, sig = { .len = 0 };
	uint32_t v = 0;

	hpu_test_cb_fence(&wait, 5, 2, 2);
	hpu_test_cb_msg(&wait, 6, HPU_MSG_OP_SET, 7);
	hpu_test_fw_submit1(f, f->dma1, &wait, (void *)1);
	assert_int_equal(hpu_test_fw_ndone(f), 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL),
			 0); /* a queue waits */

	hpu_test_cb_msg(&sig, 5, HPU_MSG_OP_ADD, 1);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &sig, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_ndone(f),
			 1); /* one of two is not enough */
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &sig, NULL),
			 HPU_FW_CS_OK);
	hpu_test_fw_wait_done(f, 3);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)1, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 6, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 5, &v), 0);
	assert_int_equal(v, 0); /* dec applied */

	/* the driver's own SOBs work the same way, and saturate */
	wait.len = 0;
	hpu_test_cb_fence(&wait, 700, 1, 0);
	hpu_test_fw_submit1(f, f->dma1, &wait, (void *)2);
	assert_int_equal(hpusim_model.ops->sob_write(f->as, 700, HPU_MSG_OP_ADD,
						     HPU_SOB_MAX_VALUE),
			 0);
	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 700, HPU_MSG_OP_ADD, 5), 0);
	hpu_test_fw_wait_done(f, 4);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 700, &v), 0);
	assert_int_equal(v, HPU_SOB_MAX_VALUE);
	assert_int_equal(hpusim_model.ops->sob_write(f->as, HPU_FW_NUM_SOBS, 0,
						     1),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->sob_write(f->as, 1, 2, 1), -EINVAL);
}

static void test_monitor(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb cb = { .len = 0 };
	uint32_t host_word = 0;
	uint64_t dva, hva;
	struct hpu_fw_mem *m;
	uint32_t dev_word = 0;

	dva = hpu_test_fw_map_dev(f, 4096, &m);
	hva = hpu_test_fw_map_host(f, &host_word, sizeof(host_word));
	hpu_test_cb_monitor(&cb, 3, 10, 2, 0xdeadbeef, dva + 8);
	hpu_test_cb_monitor(&cb, 4, 10, 1, 0x12345678, hva);
	hpu_test_cb_msg(&cb, 10, HPU_MSG_OP_ADD, 1);
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, NULL), HPU_FW_CS_OK);
	assert_int_equal(host_word, 0x12345678);
	pthread_rwlock_rdlock(&f->as->map_lock);
	{
		struct hpusim_seg seg;

		assert_int_equal(hpusim_mmu_seg(f->as, dva + 8, 4, false, &seg),
				 0);
		memcpy(&dev_word, seg.ptr, 4);
	}
	pthread_rwlock_unlock(&f->as->map_lock);
	assert_int_equal(dev_word, 0);
	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 10, HPU_MSG_OP_ADD, 1), 0);
	pthread_rwlock_rdlock(&f->as->map_lock);
	{
		struct hpusim_seg seg;

		assert_int_equal(hpusim_mmu_seg(f->as, dva + 8, 4, false, &seg),
				 0);
		memcpy(&dev_word, seg.ptr, 4);
	}
	pthread_rwlock_unlock(&f->as->map_lock);
	assert_int_equal(dev_word, 0xdeadbeef);

	/* a monitor whose payload address is unmapped faults its CS */
	cb.len = 0;
	hpu_test_cb_monitor(&cb, 5, 11, 1, 1, HPU_FW_VA_DEVICE_BASE - 4096);
	hpu_test_cb_msg(&cb, 11, HPU_MSG_OP_SET, 1);
	{
		struct hpu_fw_fault fault;

		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
				 HPU_FW_CS_PAGE_FAULT);
		assert_int_equal(fault.addr, HPU_FW_VA_DEVICE_BASE - 4096);
		assert_true(fault.is_write);
	}
	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, m);
}

static void test_engine_errors(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_fault fault;
	struct hpu_test_cb cb = { .len = 0 };
	struct hpu_fw_job bad = { .queue = 1000, .cb = cb.buf, .cb_size = 8 };

	/* DMA packets only run on DMA queues */
	hpu_test_cb_memset(&cb, HPU_FW_VA_DEVICE_BASE, 8, 0, 1);
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(fault.engine, f->mme0);
	/* a malformed (8-byte) engine packet is an engine error */
	cb.len = 0;
	hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, 8, 0);
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	/* rejected submissions never complete */
	assert_int_equal(hpusim_model.ops->cs_submit(f->as, &bad, 1, NULL),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->cs_submit(f->as, &bad, 0, NULL),
			 -EINVAL);
	/* a stream beyond the queue's */
	bad.queue = f->dma0;
	bad.stream = HPU_FW_STREAMS;
	assert_int_equal(hpusim_model.ops->cs_submit(f->as, &bad, 1, NULL),
			 -EINVAL);
	bad.stream = 0;
	bad.queue = 0;
	bad.cb_size = 12;
	assert_int_equal(hpusim_model.ops->cs_submit(f->as, &bad, 1, NULL),
			 -EINVAL);
}

/* A NOP CS to idle queues completes before cs_submit returns */
static void test_fast_path(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb cb = { .len = 0 };

	hpu_test_cb_put(&cb, HPU_PACKET_NOP, 8, 0);
	hpu_test_cb_put(&cb, HPU_PACKET_STOP, 8, 0);
	hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, 8,
			0); /* after STOP: not run */
	hpu_test_fw_submit1(f, f->mme0, &cb, (void *)9);
	assert_int_equal(hpu_test_fw_ndone(f), 1);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)9, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL), 1);
}

/*
 * A chain of @n MEMSETs of one word, alternating between @q[0] and @q[1]
 * (the training library's rule: at a change of queue the previous queue
 * adds 1 to the next one's SOB, @sob + index, and the next queue waits for
 * it and takes it back); op i writes i + 1.
 */
static void chain(struct hpu_test_cb **cb, unsigned int n, uint32_t sob,
		  uint64_t dst)
{
	unsigned int i, t, prev = 0;

	cb[0]->len = 0;
	cb[1]->len = 0;
	for (i = 0; i < n; i++) {
		t = i % 2;
		if (i) {
			hpu_test_cb_msg(cb[prev], sob + t, HPU_MSG_OP_ADD, 1);
			hpu_test_cb_fence(cb[t], sob + t, 1, 1);
		}
		hpu_test_cb_memset(cb[t], dst, 8, i + 1, 8);
		prev = t;
	}
}

static void submit2(struct hpu_test_fw *f, const uint32_t *q,
		    struct hpu_test_cb **cb, void *cookie)
{
	struct hpu_fw_job jobs[2] = {
		{ .queue = q[0], .cb = cb[0]->buf, .cb_size = cb[0]->len },
		{ .queue = q[1], .cb = cb[1]->buf, .cb_size = cb[1]->len },
	};

	assert_int_equal(hpusim_model.ops->cs_submit(f->as, jobs, 2, cookie),
			 0);
}

static uint64_t read_word(struct hpu_test_fw *f, uint64_t va)
{
	uint64_t v = 0, hv = hpu_test_fw_map_host(f, &v, sizeof(v));
	struct hpu_test_cb cb = { .len = 0 };

	hpu_test_cb_dma(&cb, hv, va, sizeof(v));
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	hpu_test_fw_unmap_host(f, hv);
	return v;
}

/*
 * A multi-queue CS whose queues hand over to each other through SOBs runs
 * to its end in the submitting thread (cs_done before cs_submit returns),
 * in order, and leaves its SOBs at 0.
 */
static void test_fast_path_handoffs(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_mem *m;
	uint64_t va = hpu_test_fw_map_dev(f, 2 * MiB, &m);
	const uint32_t q[2] = { f->dma0, f->dma1 };
	_Alignas(8) struct hpu_test_cb c0, c1; /* packets are 8-byte aligned */
	struct hpu_test_cb *cb[2] = { &c0, &c1 };
	uint32_t v;

	chain(cb, 25, 30, va);
	submit2(f, q, cb, (void *)1);
	assert_int_equal(hpu_test_fw_ndone(f), 1);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)1, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL), 1);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 30, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 31, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(read_word(f, va), 25);

	/*
	 * The woken queue's job waits for nothing but its FENCE: q1 wakes
	 * q0, then works (a MEMSET) and waits for q0, which must run
	 * meanwhile or after; either way both end.
	 */
	c0.len = 0;
	c1.len = 0;
	hpu_test_cb_fence(&c0, 40, 1, 1);
	hpu_test_cb_memset(&c0, va + 64, 8, 7, 8);
	hpu_test_cb_msg(&c0, 41, HPU_MSG_OP_ADD, 1);
	hpu_test_cb_msg(&c1, 40, HPU_MSG_OP_ADD, 1);
	hpu_test_cb_memset(&c1, va + 128, 64 * KiB, 9, 8);
	hpu_test_cb_fence(&c1, 41, 1, 1);
	submit2(f, q, cb, (void *)2);
	hpu_test_fw_wait_done(f, 3);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)2, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(read_word(f, va + 64), 7);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 40, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hpusim_model.ops->sob_read(f->as, 41, &v), 0);
	assert_int_equal(v, 0);
	hpu_test_fw_unmap_dev(f, va, m);
}

struct chain_thread {
	struct hpu_test_fw *f;
	uint32_t sob;
	uint64_t va;
	unsigned int n;
};

static void *chain_main(void *arg)
{
	struct chain_thread *t = arg;
	const uint32_t q[2] = { t->f->dma0, t->f->dma1 };
	struct hpu_fw_job jobs[2];
	_Alignas(8) struct hpu_test_cb c0, c1;
	struct hpu_test_cb *cb[2] = { &c0, &c1 };
	unsigned int i;

	chain(cb, 9, t->sob, t->va);
	jobs[0] = (struct hpu_fw_job){ .queue = q[0],
				       .cb = c0.buf,
				       .cb_size = c0.len };
	jobs[1] = (struct hpu_fw_job){ .queue = q[1],
				       .cb = c1.buf,
				       .cb_size = c1.len };
	for (i = 0; i < t->n; i++)
		if (hpusim_model.ops->cs_submit(t->f->as, jobs, 2,
						(void *)(uintptr_t)i))
			return (void *)1;
	return NULL;
}

/*
 * Submitters racing on the same two queues with handoff chains: every CS
 * completes OK (none is lost in a hand-off) and the SOBs end at 0.
 */
static void test_handoff_concurrent(void **state)
{
	struct hpu_test_fw *f = *state;
	struct chain_thread t[3];
	pthread_t th[3];
	struct hpu_fw_mem *m;
	uint64_t va = hpu_test_fw_map_dev(f, 2 * MiB, &m);
	unsigned int i, n = 200;
	void *ret;
	uint32_t v;

	for (i = 0; i < 3; i++) {
		t[i] = (struct chain_thread){
			.f = f, .sob = 50 + 2 * i, .va = va + 64 * i, .n = n
		};
		assert_int_equal(
			pthread_create(&th[i], NULL, chain_main, &t[i]), 0);
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	hpu_test_fw_wait_done(f, 3 * n);
	for (i = 0; i < 3 * n; i++)
		assert_int_equal(f->rec.result[i], HPU_FW_CS_OK);
	for (i = 0; i < 6; i++) {
		assert_int_equal(hpusim_model.ops->sob_read(f->as, 50 + i, &v),
				 0);
		assert_int_equal(v, 0);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(read_word(f, va + 64 * i), 9);
	hpu_test_fw_unmap_dev(f, va, m);
}

int main(void)
{
#define T(fn)                                                  \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_setup, \
					hpu_test_fw_teardown)
	const struct CMUnitTest tests[] = {
		T(test_dma_round_trip),
		T(test_dma_dev_to_dev_and_overlap),
		T(test_memset_widths),
		T(test_fence_across_queues),
		T(test_monitor),
		T(test_engine_errors),
		T(test_fast_path),
		T(test_fast_path_handoffs),
		T(test_handoff_concurrent),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
