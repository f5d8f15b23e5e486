// SPDX-License-Identifier: MIT
/*
 * test_fw_queues.c - libhpusim command submission through hpusim_model.ops:
 * DMA round trips between this process's memory and HBM, device to device,
 * overlapping copies, MEMSET, fences across queues, monitors, engine
 * errors and the fast path. Faults and aborts: test_fw_faults.c.
 */
#include "fw_test_util.h"

/* ------------------------------------------------------ tests */

/* host -> device -> host of random data, 1 B .. 64 MiB, two offsets */
static void test_dma_round_trip(void **state)
{
	static const uint64_t sizes[] = {
		1, 7, 4096, 4097, 65536 + 3, 1 * MiB, 5 * MiB + 11, 64 * MiB
	};
	struct fix *f = *state;
	uint64_t max = 64 * MiB + 64, dva, hsrc, hdst;
	uint8_t *src = xmalloc(max), *dst = xmalloc(max);
	struct hpu_fw_mem *m;
	unsigned int i, k;
	struct cb cb;

	fill_random(src, max, 1);
	dva = map_dev(f, max, &m);
	hsrc = map_host(f, src, max);
	hdst = map_host(f, dst, max);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (k = 0; k < 2; k++) {
			uint64_t so = k ? 3 : 0, doff = k ? 13 : 0;
			uint64_t n = sizes[i];

			memset(dst, 0, n + 32);
			cb.len = 0;
			cb_dma(&cb, dva + doff, hsrc + so, n);
			cb_dma(&cb, hdst + so, dva + doff, n);
			assert_int_equal(run1(f, f->dma0, &cb, NULL),
					 HPU_FW_CS_OK);
			assert_memory_equal(dst + so, src + so, n);
			assert_int_equal(dst[so + n], 0);
		}
	}
	unmap_host(f, hsrc);
	unmap_host(f, hdst);
	unmap_dev(f, dva, m);
	free(src);
	free(dst);
}

/* device -> device, host -> host, and overlapping copies as memmove */
static void test_dma_dev_to_dev_and_overlap(void **state)
{
	struct fix *f = *state;
	uint64_t n = 9 * MiB + 5, a, b, ha, hb;
	uint8_t *src = xmalloc(n + 64), *out = xmalloc(n + 64);
	uint8_t *ref = xmalloc(n + 64);
	struct hpu_fw_mem *ma, *mb;
	struct cb cb = { .len = 0 };

	fill_random(src, n + 64, 2);
	a = map_dev(f, n + 64, &ma);
	b = map_dev(f, n + 64, &mb);
	ha = map_host(f, src, n + 64);
	hb = map_host(f, out, n + 64);

	cb_dma(&cb, a, ha, n + 64);
	cb_dma(&cb, b + 1, a, n);  /* device to device */
	cb_dma(&cb, hb, b + 1, n); /* back to the host */
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, src, n);

	/* forward overlap (dst above src) and backward, in HBM */
	memcpy(ref, src, n + 64);
	memmove(ref + 5, ref, n);
	memmove(ref, ref + 40, n);
	cb.len = 0;
	cb_dma(&cb, a + 5, a, n);
	cb_dma(&cb, a, a + 40, n);
	cb_dma(&cb, hb, a, n + 64);
	assert_int_equal(run1(f, f->dma1, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	/* host to host, overlapping in the same buffer */
	memcpy(ref, out, n + 64);
	memmove(ref + 3, ref, n);
	cb.len = 0;
	cb_dma(&cb, hb + 3, hb, n);
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	unmap_host(f, ha);
	unmap_host(f, hb);
	unmap_dev(f, a, ma);
	unmap_dev(f, b, mb);
	free(src);
	free(out);
	free(ref);
}

static void test_memset_widths(void **state)
{
	static const uint32_t widths[] = { 1, 2, 4, 8 };
	const uint64_t value = 0x1122334455667788ULL;
	struct fix *f = *state;
	uint64_t n = 256 * KiB, dva, hva;
	uint8_t *buf = xmalloc(n + 128);
	struct hpu_fw_mem *m;
	unsigned int i;
	uint64_t j;

	dva = map_dev(f, n + 64, &m);
	hva = map_host(f, buf, n + 128);
	for (i = 0; i < 4; i++) {
		uint32_t w = widths[i];
		struct cb cb = { .len = 0 };

		memset(buf, 0xee, n + 128);
		cb_memset(&cb, dva, n + 64, 0, 1);
		cb_memset(&cb, dva + w, n, value, w); /* device */
		cb_dma(&cb, hva, dva, n + 2 * w);
		cb_memset(&cb, hva + n + 2 * w, 8 * w, value, w); /* host */
		assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
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
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
	free(buf);
}

/* A queue parks on a FENCE until another queue's MSG_LONG */
static void test_fence_across_queues(void **state)
{
	struct fix *f = *state;
	struct cb wait = { .len = 0 }, sig = { .len = 0 };
	uint32_t v = 0;

	cb_fence(&wait, 5, 2, 2);
	cb_msg(&wait, 6, HPU_MSG_OP_SET, 7);
	submit1(f, f->dma1, &wait, (void *)1);
	assert_int_equal(ndone(f), 0);
	assert_int_equal(ops->hw_idle(f->dev, NULL), 0); /* a queue waits */

	cb_msg(&sig, 5, HPU_MSG_OP_ADD, 1);
	assert_int_equal(run1(f, f->dma0, &sig, NULL), HPU_FW_CS_OK);
	assert_int_equal(ndone(f), 1); /* one of two is not enough */
	assert_int_equal(run1(f, f->mme0, &sig, NULL), HPU_FW_CS_OK);
	wait_done(f, 3);
	assert_int_equal(result_of(f, (void *)1, NULL), HPU_FW_CS_OK);
	assert_int_equal(ops->sob_read(f->as, 6, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(ops->sob_read(f->as, 5, &v), 0);
	assert_int_equal(v, 0); /* dec applied */

	/* the driver's own SOBs work the same way, and saturate */
	wait.len = 0;
	cb_fence(&wait, 700, 1, 0);
	submit1(f, f->dma1, &wait, (void *)2);
	assert_int_equal(ops->sob_write(f->as, 700, HPU_MSG_OP_ADD,
					HPU_SOB_MAX_VALUE),
			 0);
	assert_int_equal(ops->sob_write(f->as, 700, HPU_MSG_OP_ADD, 5), 0);
	wait_done(f, 4);
	assert_int_equal(ops->sob_read(f->as, 700, &v), 0);
	assert_int_equal(v, HPU_SOB_MAX_VALUE);
	assert_int_equal(ops->sob_write(f->as, HPU_FW_NUM_SOBS, 0, 1), -EINVAL);
	assert_int_equal(ops->sob_write(f->as, 1, 2, 1), -EINVAL);
}

static void test_monitor(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 };
	uint32_t host_word = 0;
	uint64_t dva, hva;
	struct hpu_fw_mem *m;
	uint32_t dev_word = 0;

	dva = map_dev(f, 4096, &m);
	hva = map_host(f, &host_word, sizeof(host_word));
	cb_monitor(&cb, 3, 10, 2, 0xdeadbeef, dva + 8);
	cb_monitor(&cb, 4, 10, 1, 0x12345678, hva);
	cb_msg(&cb, 10, HPU_MSG_OP_ADD, 1);
	assert_int_equal(run1(f, f->mme0, &cb, NULL), HPU_FW_CS_OK);
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
	assert_int_equal(ops->sob_write(f->as, 10, HPU_MSG_OP_ADD, 1), 0);
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
	cb_monitor(&cb, 5, 11, 1, 1, HPU_FW_VA_DEVICE_BASE - 4096);
	cb_msg(&cb, 11, HPU_MSG_OP_SET, 1);
	{
		struct hpu_fw_fault fault;

		assert_int_equal(run1(f, f->dma0, &cb, &fault),
				 HPU_FW_CS_PAGE_FAULT);
		assert_int_equal(fault.addr, HPU_FW_VA_DEVICE_BASE - 4096);
		assert_true(fault.is_write);
	}
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
}

static void test_engine_errors(void **state)
{
	struct fix *f = *state;
	struct hpu_fw_fault fault;
	struct cb cb = { .len = 0 };
	struct hpu_fw_job bad = { .queue = 1000, .cb = cb.buf, .cb_size = 8 };

	/* DMA packets only run on DMA queues */
	cb_memset(&cb, HPU_FW_VA_DEVICE_BASE, 8, 0, 1);
	assert_int_equal(run1(f, f->mme0, &cb, &fault), HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(fault.engine, f->mme0);
	/* a malformed (8-byte) engine packet is an engine error */
	cb.len = 0;
	cb_put(&cb, HPU_PACKET_MME_GEMM, 8, 0);
	assert_int_equal(run1(f, f->mme0, &cb, &fault), HPU_FW_CS_ENGINE_ERR);
	/* rejected submissions never complete */
	assert_int_equal(ops->cs_submit(f->as, &bad, 1, NULL), -EINVAL);
	assert_int_equal(ops->cs_submit(f->as, &bad, 0, NULL), -EINVAL);
	bad.queue = 0;
	bad.cb_size = 12;
	assert_int_equal(ops->cs_submit(f->as, &bad, 1, NULL), -EINVAL);
}

/* A NOP CS to idle queues completes before cs_submit returns */
static void test_fast_path(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 };

	cb_put(&cb, HPU_PACKET_NOP, 8, 0);
	cb_put(&cb, HPU_PACKET_STOP, 8, 0);
	cb_put(&cb, HPU_PACKET_MME_GEMM, 8, 0); /* after STOP: not run */
	submit1(f, f->mme0, &cb, (void *)9);
	assert_int_equal(ndone(f), 1);
	assert_int_equal(result_of(f, (void *)9, NULL), HPU_FW_CS_OK);
	assert_int_equal(ops->hw_idle(f->dev, NULL), 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_dma_round_trip), T(test_dma_dev_to_dev_and_overlap),
		T(test_memset_widths),	T(test_fence_across_queues),
		T(test_monitor),	T(test_engine_errors),
		T(test_fast_path),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
