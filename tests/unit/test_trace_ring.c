// SPDX-License-Identifier: MIT
/*
 * test_trace_ring.c - the model's side of engine traces (firmware
 * interface 1.5): job_cost.c's classification and cost of a job's
 * packets, and trace.c's rings: bounded (a full ring drops its oldest
 * and counts), peek/consume that take only what was copied, ordering by
 * start time across queues, FENCE/SIGNAL fields, STOP keeps the events,
 * FREE and a START of another capacity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "../lib/hpu_test_fw.h"
#include "hpu_tpc_kernels.h"
#include "trace.h"

static const struct hpu_fw_ops *ops = &hpusim_ops;

static struct hpu_pkt_mme_gemm *put_gemm(struct hpu_test_cb *cb, uint32_t m,
					 uint32_t n, uint32_t k, uint32_t batch)
{
	struct hpu_pkt_mme_gemm *g =
		hpu_test_cb_put(cb, HPU_PACKET_MME_GEMM, sizeof(*g), 0);

	g->m = m;
	g->n = n;
	g->k = k;
	g->lda = k;
	g->ldb = n;
	g->ldc = n;
	g->batch = batch;
	g->dtype_ab = HPU_DTYPE_FP32;
	g->dtype_c = HPU_DTYPE_FP32;
	g->stride_a = (uint64_t)m * k;
	g->stride_b = (uint64_t)k * n;
	g->stride_c = (uint64_t)m * n;
	return g;
}

static void test_cost_gemm(void **state)
{
	struct hpu_test_fw *f = *state;
	const struct hpusim_tm_profile *tm = hpusim_tm_profile_find("gaudi2");
	struct hpusim_job_cost c;
	struct hpu_test_cb cb = { 0 };

	put_gemm(&cb, 64, 32, 16, 3);
	hpusim_job_cost(f->dev, tm, f->mme0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_GEMM);
	assert_int_equal(c.flops, 2ULL * 64 * 32 * 16 * 3);
	/* A, B read, C written, fp32, per product */
	assert_int_equal(c.bytes, 3ULL * (64 * 16 + 16 * 32 + 64 * 32) * 4);
	assert_true(c.model_ns > 0);
	assert_int_equal(c.fence_sob, ~0U);
	assert_int_equal(c.signal_sob, ~0U);
	/* no timing profile: no modeled time, the rest the same */
	hpusim_job_cost(f->dev, NULL, f->mme0, cb.buf, cb.len, &c);
	assert_int_equal(c.model_ns, 0);
	assert_int_equal(c.flops, 2ULL * 64 * 32 * 16 * 3);
}

static void test_cost_dma_sync_mixed(void **state)
{
	struct hpu_test_fw *f = *state;
	const struct hpusim_tm_profile *tm = hpusim_tm_profile_find("gaudi2");
	struct hpusim_job_cost c;
	struct hpu_test_cb cb = { 0 };
	uint64_t h2d, d2d;

	/* host to device, then device to device: both DMA */
	hpu_test_cb_dma(&cb, HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_HOST_BASE, 4096);
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_DMA);
	assert_int_equal(c.bytes, 4096);
	assert_int_equal(c.flops, 0);
	h2d = c.model_ns;
	memset(&cb, 0, sizeof(cb));
	hpu_test_cb_dma(&cb, HPU_FW_VA_DEVICE_BASE,
			HPU_FW_VA_DEVICE_BASE + 8192, 4096);
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	d2d = c.model_ns;
	assert_true(h2d > 0 && d2d > 0);
	assert_true(h2d != d2d); /* PCIe and HBM are modeled apart */

	/* FENCE, MSG_LONG, NOP only: a sync job, with its sync objects */
	memset(&cb, 0, sizeof(cb));
	hpu_test_cb_fence(&cb, 7, 1, 1);
	hpu_test_cb_put(&cb, HPU_PACKET_NOP, sizeof(struct hpu_pkt_nop), 0);
	hpu_test_cb_msg(&cb, 9, HPU_MSG_OP_ADD, 1);
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_SYNC);
	assert_int_equal(c.fence_sob, 7);
	assert_int_equal(c.signal_sob, 9);
	assert_int_equal(c.bytes, 0);
	assert_int_equal(c.model_ns, 0);

	/* DMA and MEMSET in one job: mixed, bytes summed */
	memset(&cb, 0, sizeof(cb));
	hpu_test_cb_dma(&cb, HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_HOST_BASE, 100);
	hpu_test_cb_memset(&cb, HPU_FW_VA_DEVICE_BASE, 28, 0, 4);
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_MIXED);
	assert_int_equal(c.bytes, 128);

	/* a STOP ends the job: what follows is not counted */
	memset(&cb, 0, sizeof(cb));
	hpu_test_cb_memset(&cb, HPU_FW_VA_DEVICE_BASE, 64, 0, 4);
	hpu_test_cb_put(&cb, HPU_PACKET_STOP, sizeof(struct hpu_pkt_stop), 0);
	hpu_test_cb_dma(&cb, HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_HOST_BASE, 100);
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_MEMSET);
	assert_int_equal(c.bytes, 64);

	/* a malformed header ends the walk without reading past it */
	memset(&cb, 0, sizeof(cb));
	cb.len = 8;
	hpusim_job_cost(f->dev, tm, f->dma0, cb.buf, cb.len, &c);
	assert_int_equal(c.kind, HPU_TRACE_KIND_SYNC);
}

static void test_cost_tpc(void **state)
{
	(void)state;
	assert_int_equal(hpusim_tpc_kernel_flops(HPU_TPC_KERNEL_ADD, 1000),
			 1000);
	assert_int_equal(hpusim_tpc_kernel_flops(HPU_TPC_KERNEL_COPY, 1000), 0);
	assert_true(hpusim_tpc_kernel_flops(HPU_TPC_KERNEL_GELU, 1000) > 1000);
	assert_int_equal(hpusim_tpc_kernel_flops(HPU_TPC_KERNEL_COUNT, 1), 0);
	assert_int_equal(hpusim_tpc_kernel_flops(~0U, 1), 0);
}

/* @n NOP jobs on @queue, each its own CS with sequence number seq0 + i */
static void run_nops(struct hpu_test_fw *f, uint32_t queue, unsigned int n,
		     uint64_t seq0)
{
	struct hpu_test_cb cb = { 0 };
	struct hpu_fw_job job;
	unsigned int i, base = hpu_test_fw_ndone(f);

	hpu_test_cb_put(&cb, HPU_PACKET_NOP, sizeof(struct hpu_pkt_nop), 0);
	job.queue = queue;
	job.cb = cb.buf;
	job.cb_size = cb.len;
	for (i = 0; i < n; i++)
		assert_int_equal(ops->cs_submit_seq(f->as, &job, 1,
						    (void *)(uintptr_t)(i + 1),
						    seq0 + i),
				 0);
	hpu_test_fw_wait_done(f, base + n);
}

static void status(struct hpu_test_fw *f, struct hpu_trace_out *st)
{
	ops->trace_status(f->as, st);
}

static void test_ring_bound_and_drop(void **state)
{
	struct hpu_test_fw *f = *state;
	uint32_t nq = hpusim_profile_engines(
		hpu_fw_find_profile(&hpusim_model, "gaudi2"));
	struct hpu_trace_event ev[200];
	uint64_t pos[HPUSIM_MAX_ENGINES];
	struct hpu_trace_out st;
	int n, i;

	/* no rings: nothing recorded, nothing to read */
	status(f, &st);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(st.active, 0);
	run_nops(f, f->dma0, 3, 1);
	assert_int_equal(ops->trace_peek(f->as, ev, 10, pos), 0);

	assert_int_equal(ops->trace_start(f->as, 100), -EINVAL);
	assert_int_equal(ops->trace_start(f->as, 32), -EINVAL);
	assert_int_equal(ops->trace_start(f->as, 64), 0);
	status(f, &st);
	assert_int_equal(st.capacity, 64);
	assert_int_equal(st.engines, nq);
	assert_int_equal(st.active, 1);
	/* another capacity while rings are reserved */
	assert_int_equal(ops->trace_start(f->as, 128), -EBUSY);

	run_nops(f, f->dma0, 100, 1000);
	run_nops(f, f->dma1, 10, 5000);
	status(f, &st);
	assert_int_equal(st.recorded, 110);
	assert_int_equal(st.pending, 64 + 10);
	assert_int_equal(st.dropped, 36);
	assert_true(st.pending <= (uint64_t)st.capacity * st.engines);

	/* peek takes nothing; consume takes what the peek copied */
	n = ops->trace_peek(f->as, ev, 200, pos);
	assert_int_equal(n, 74);
	for (i = 1; i < n; i++)
		assert_true(ev[i - 1].start_ns <= ev[i].start_ns);
	status(f, &st);
	assert_int_equal(st.pending, 74);
	n = ops->trace_peek(f->as, ev, 5, pos);
	assert_int_equal(n, 5);
	/* the oldest kept on dma0 is the 37th job: 36 were dropped */
	assert_int_equal(ev[0].cs_seq, 1036);
	assert_int_equal(ev[0].engine, f->dma0);
	assert_int_equal(ev[0].kind, HPU_TRACE_KIND_SYNC);
	assert_true(ev[0].submit_ns <= ev[0].start_ns);
	assert_true(ev[0].start_ns <= ev[0].end_ns);
	assert_int_equal(ev[0].flags, 0);
	assert_int_equal(ev[0].reserved, 0);
	ops->trace_consume(f->as, pos);
	status(f, &st);
	assert_int_equal(st.pending, 69);

	/* STOP: nothing more is recorded, the events stay */
	ops->trace_stop(f->as);
	run_nops(f, f->dma0, 5, 9000);
	status(f, &st);
	assert_int_equal(st.active, 0);
	assert_int_equal(st.pending, 69);
	assert_int_equal(st.recorded, 110);
	/* START again with the same capacity (or after STOP): goes on */
	assert_int_equal(ops->trace_start(f->as, 64), 0);
	status(f, &st);
	assert_int_equal(st.pending, 69);

	ops->trace_free(f->as);
	status(f, &st);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.active, 0);
	/* a new capacity after FREE */
	assert_int_equal(ops->trace_start(f->as, 128), 0);
	status(f, &st);
	assert_int_equal(st.capacity, 128);
	assert_int_equal(st.recorded, 0);
	ops->trace_free(f->as);
}

static void test_fence_signal(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb waiter = { 0 }, signaller = { 0 };
	struct hpu_trace_event ev[8];
	uint64_t pos[HPUSIM_MAX_ENGINES];
	unsigned int base = hpu_test_fw_ndone(f);
	struct hpu_fw_job job;
	int n, i, seen = 0;

	assert_int_equal(ops->trace_start(f->as, 64), 0);
	hpu_test_cb_fence(&waiter, 20, 1, 1);
	hpu_test_cb_put(&waiter, HPU_PACKET_NOP, sizeof(struct hpu_pkt_nop), 0);
	job.queue = f->dma1;
	job.cb = waiter.buf;
	job.cb_size = waiter.len;
	assert_int_equal(ops->cs_submit_seq(f->as, &job, 1, (void *)1, 41), 0);
	hpu_test_cb_msg(&signaller, 20, HPU_MSG_OP_ADD, 1);
	job.queue = f->dma0;
	job.cb = signaller.buf;
	job.cb_size = signaller.len;
	assert_int_equal(ops->cs_submit_seq(f->as, &job, 1, (void *)2, 42), 0);
	hpu_test_fw_wait_done(f, base + 2);

	n = ops->trace_peek(f->as, ev, 8, pos);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		if (ev[i].cs_seq == 41) {
			assert_int_equal(ev[i].engine, f->dma1);
			assert_int_equal(ev[i].fence_sob, 20);
			assert_int_equal(ev[i].signal_sob, ~0U);
			assert_true(ev[i].flags & HPU_TRACE_EV_WAITED);
			assert_false(ev[i].flags & HPU_TRACE_EV_SIGNALLED);
			seen |= 1;
		} else {
			assert_int_equal(ev[i].cs_seq, 42);
			assert_int_equal(ev[i].engine, f->dma0);
			assert_int_equal(ev[i].signal_sob, 20);
			assert_int_equal(ev[i].fence_sob, ~0U);
			assert_int_equal(ev[i].flags, HPU_TRACE_EV_SIGNALLED);
			seen |= 2;
		}
		assert_true(ev[i].start_ns <= ev[i].end_ns);
	}
	assert_int_equal(seen, 3);
	ops->trace_free(f->as);
}

/* A page fault: the job's event says FAILED */
static void test_failed(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb cb = { 0 };
	struct hpu_trace_event ev[4];
	uint64_t pos[HPUSIM_MAX_ENGINES];

	assert_int_equal(ops->trace_start(f->as, 64), 0);
	hpu_test_cb_dma(&cb, HPU_FW_VA_DEVICE_BASE + (1ULL << 40),
			HPU_FW_VA_DEVICE_BASE + (1ULL << 41), 64);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(ops->trace_peek(f->as, ev, 4, pos), 1);
	assert_true(ev[0].flags & HPU_TRACE_EV_FAILED);
	assert_int_equal(ev[0].kind, HPU_TRACE_KIND_DMA);
	ops->trace_free(f->as);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_gemm),
		cmocka_unit_test(test_cost_dma_sync_mixed),
		cmocka_unit_test(test_cost_tpc),
		cmocka_unit_test(test_ring_bound_and_drop),
		cmocka_unit_test(test_fence_signal),
		cmocka_unit_test(test_failed),
	};

	return cmocka_run_group_tests(tests, hpu_test_fw_setup,
				      hpu_test_fw_teardown);
}
