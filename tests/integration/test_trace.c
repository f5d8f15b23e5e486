// SPDX-License-Identifier: MIT
/*
 * test_trace.c - engine traces (HPU_IOCTL_TRACE, ABI 1.5; docs/tracing.md)
 * through libhpudrv against the real hpu-fused: the events of a known DMA
 * and GEMM, FENCE/SIGNAL fields, submissions through the user-mode ring
 * and through the ioctls, the ring bound over thousands of jobs (the
 * daemon's memory does not grow), bit-identical results with tracing on
 * and off, another context seeing nothing, every bad request rejected
 * and changing nothing, a READ to a bad pointer taking nothing, the
 * trace_bytes limit, close and SIGKILL with tracing on, and resets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_engine.h"
#include "hpu_gemm_pkt.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

/*
 * The daemon's memory after a round must come back to what it was. Under
 * ASan (the daemon is built like the test) freed blocks stay resident in
 * the allocator's quarantine (256 MiB by default), so the figures are
 * printed there, and the daemon's LeakSanitizer report at exit is what
 * catches rings that were not freed.
 */
#define RSS_SLACK_KIB(n) ((long)(n) + (HPU_TEST_UNDER_ASAN ? 256L * 1024 : 0))

#define WAIT_US 20000000ULL
#define SPAN	(256 * 1024)
#define MAXEV	4096

#define GM 48
#define GN 40
#define GK 56

static struct hpu_test_engine fx;
static struct hpu_trace_event evbuf[MAXEV];

static int setup(void **state)
{
	return hpu_test_engine_setup(&fx, state, 4096, SPAN);
}

static int teardown(void **state)
{
	(void)state;
	hpu_test_engine_close_traced(&fx);
	return 0;
}

/* Submit the builder's CB on @queue; wait; its sequence number */
static uint64_t run_on(struct hpu_device *dev, struct hpu_cb_builder *cb,
		       uint32_t queue)
{
	uint32_t status = 0;
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_submit(cb, queue, 0, 0, &seq, NULL), 0);
	hpu_cb_builder_reset(cb);
	assert_int_equal(hpu_cs_wait(dev, seq, WAIT_US, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	return seq;
}

static int read_all(struct hpu_device *dev, struct hpu_trace_out *st)
{
	int n = hpu_trace_read(dev, evbuf, MAXEV, st);

	assert_true(n >= 0);
	return n;
}

static int raw_trace(struct hpu_device *dev, union hpu_trace_args *a)
{
	return ioctl(hpu_device_fd(dev), HPU_IOCTL_TRACE, a) ? -errno : 0;
}

static uint64_t trace_limit_used(struct hpu_device *dev)
{
	struct hpu_info_ctx_limits l;

	assert_int_equal(hpu_info_ctx_limits(dev, &l), 0);
	assert_true(l.num_limits > HPU_CTX_LIMIT_TRACE_BYTES);
	return l.limits[HPU_CTX_LIMIT_TRACE_BYTES].used;
}

static struct hpu_pkt_mme_gemm gemm(uint64_t base)
{
	return hpu_gemm_pkt(base, base + 32 * 1024, base + 64 * 1024, GM, GN,
			    GK, HPU_DTYPE_FP32, HPU_DTYPE_FP32);
}

/* A known DMA of N bytes: one DMA event with bytes N, cs_seq matching */
static void check_dma_event(struct hpu_device *dev, struct hpu_cb_builder *cb,
			    uint64_t dst, uint64_t src, uint32_t num_dma)
{
	struct hpu_trace_out st;
	uint64_t seq;
	int n;

	assert_int_equal(hpu_trace_start(dev, 64), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, dst, src, 12345), 0);
	seq = run_on(dev, cb, 1);
	n = read_all(dev, &st);
	assert_int_equal(n, 1);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.pending, 0);
	assert_int_equal(evbuf[0].kind, HPU_TRACE_KIND_DMA);
	assert_int_equal(evbuf[0].bytes, 12345);
	assert_int_equal(evbuf[0].engine, 1);
	assert_true(evbuf[0].engine < num_dma);
	assert_int_equal(evbuf[0].cs_seq, seq);
	assert_true(evbuf[0].submit_ns <= evbuf[0].start_ns);
	assert_true(evbuf[0].start_ns <= evbuf[0].end_ns);
	assert_true(evbuf[0].model_ns > 0);
	assert_int_equal(evbuf[0].flags, 0);
	assert_int_equal(evbuf[0].flops, 0);
	assert_int_equal(evbuf[0].fence_sob, ~0U);
	assert_int_equal(evbuf[0].signal_sob, ~0U);
	assert_int_equal(evbuf[0].reserved, 0);
	assert_int_equal(hpu_trace_free(dev), 0);
}

/* Through the user-mode ring (the library's default) */
static void test_dma_event_ring(void **state)
{
	(void)state;
	check_dma_event(fx.dev, fx.cb, fx.hbm_va, fx.host_va, fx.ip.num_dma);
}

/* Through the CS ioctl (HPU_RING=0 at open) */
static void test_dma_event_ioctl(void **state)
{
	struct hpu_test_engine e;

	(void)state;
	setenv("HPU_RING", "0", 1);
	hpu_test_engine_open(&e, 4096, SPAN);
	unsetenv("HPU_RING");
	check_dma_event(e.dev, e.cb, e.hbm_va, e.host_va, e.ip.num_dma);
	hpu_test_engine_close(&e);
}

static void test_gemm_event(void **state)
{
	struct hpu_pkt_mme_gemm g = gemm(fx.hbm_va);
	struct hpu_trace_out st;
	uint64_t seq;
	int n;

	(void)state;
	assert_int_equal(hpu_trace_start(fx.dev, 0), 0);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, HPU_TRACE_DEFAULT_CAPACITY);
	assert_int_equal(st.engines, fx.ip.num_dma + fx.ip.num_mme +
					     fx.ip.num_tpc +
					     fx.ip.num_nic_ports);
	assert_int_equal(st.active, 1);
	assert_int_equal(trace_limit_used(fx.dev),
			 (uint64_t)st.capacity * st.engines *
				 sizeof(struct hpu_trace_event));
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	seq = run_on(fx.dev, fx.cb, fx.ip.num_dma);
	n = read_all(fx.dev, &st);
	assert_int_equal(n, 1);
	assert_int_equal(evbuf[0].kind, HPU_TRACE_KIND_GEMM);
	assert_int_equal(evbuf[0].engine, fx.ip.num_dma);
	assert_int_equal(evbuf[0].flops, 2ULL * GM * GN * GK);
	assert_int_equal(evbuf[0].bytes, (GM * GK + GK * GN + GM * GN) * 4ULL);
	assert_true(evbuf[0].model_ns > 0);
	assert_int_equal(evbuf[0].cs_seq, seq);
	assert_true(evbuf[0].start_ns <= evbuf[0].end_ns);
	assert_int_equal(hpu_trace_free(fx.dev), 0);
	assert_int_equal(trace_limit_used(fx.dev), 0);
}

/* A FENCE that waits, a MSG_LONG that signals it: their fields */
static void test_fence_signal(void **state)
{
	struct hpu_trace_out st;
	uint64_t wseq, sseq;
	uint32_t status;
	int n, i, seen = 0;

	(void)state;
	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	assert_int_equal(hpu_cb_fence(fx.cb, 33, 1, 1), 0);
	assert_int_equal(hpu_cb_nop(fx.cb), 0);
	assert_int_equal(hpu_cb_builder_submit(fx.cb, 2, 0, 0, &wseq, NULL), 0);
	hpu_cb_builder_reset(fx.cb);
	assert_int_equal(hpu_cb_msg_long(fx.cb, 33, HPU_MSG_OP_ADD, 1), 0);
	sseq = run_on(fx.dev, fx.cb, 3);
	assert_int_equal(hpu_cs_wait(fx.dev, wseq, WAIT_US, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);

	n = read_all(fx.dev, &st);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		const struct hpu_trace_event *e = &evbuf[i];

		assert_int_equal(e->kind, HPU_TRACE_KIND_SYNC);
		if (e->cs_seq == wseq) {
			assert_int_equal(e->engine, 2);
			assert_int_equal(e->fence_sob, 33);
			assert_true(e->flags & HPU_TRACE_EV_WAITED);
			assert_false(e->flags & HPU_TRACE_EV_SIGNALLED);
			seen |= 1;
		} else {
			assert_int_equal(e->cs_seq, sseq);
			assert_int_equal(e->engine, 3);
			assert_int_equal(e->signal_sob, 33);
			assert_int_equal(e->flags, HPU_TRACE_EV_SIGNALLED);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	/* oldest start first */
	assert_true(evbuf[0].start_ns <= evbuf[1].start_ns);
	assert_int_equal(hpu_trace_free(fx.dev), 0);
}

/* DMA in, GEMM, TPC add, DMA out: the bytes it leaves in host memory */
static void workload(uint8_t *out)
{
	struct hpu_pkt_mme_gemm g = gemm(fx.hbm_va);
	struct hpu_tpc_tensor t[3];
	uint32_t sz[2] = { GN, GM }, i, s = 11;
	float *h = (float *)fx.host;

	for (i = 0; i < 24 * 1024; i++) {
		s = s * 1103515245U + 12345U;
		h[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
	assert_int_equal(
		hpu_cb_lin_dma(fx.cb, fx.hbm_va, fx.host_va, 96 * 1024), 0);
	run_on(fx.dev, fx.cb, 0);
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	run_on(fx.dev, fx.cb, fx.ip.num_dma);
	memset(t, 0, sizeof(t));
	for (i = 0; i < 3; i++) {
		t[i].addr = fx.hbm_va + (i == 2 ? 128 : 64) * 1024;
		if (i == 1)
			t[i].addr = fx.hbm_va;
		t[i].dtype = HPU_DTYPE_FP32;
		t[i].ndims = 2;
		t[i].sizes[0] = sz[0];
		t[i].sizes[1] = sz[1];
		t[i].strides[0] = 1;
		t[i].strides[1] = sz[0];
	}
	assert_int_equal(
		hpu_cb_tpc_kernel(fx.cb, HPU_TPC_KERNEL_ADD, t, 3, NULL, 0), 0);
	run_on(fx.dev, fx.cb, fx.ip.num_dma + fx.ip.num_mme);
	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.host_va + 128 * 1024,
					fx.hbm_va + 64 * 1024, 128 * 1024),
			 0);
	run_on(fx.dev, fx.cb, 0);
	memcpy(out, fx.host + 128 * 1024, 128 * 1024);
}

static void test_on_off_identical(void **state)
{
	static uint8_t off[128 * 1024], on[128 * 1024];
	struct hpu_trace_out st;
	int n, i, kinds = 0;

	(void)state;
	workload(off);
	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	workload(on);
	assert_memory_equal(off, on, sizeof(on));
	n = read_all(fx.dev, &st);
	assert_int_equal(n, 4);
	assert_int_equal(st.recorded, 4);
	assert_int_equal(st.dropped, 0);
	for (i = 0; i < n; i++) {
		kinds |= 1 << evbuf[i].kind;
		if (i)
			assert_true(evbuf[i - 1].start_ns <= evbuf[i].start_ns);
		if (evbuf[i].kind == HPU_TRACE_KIND_TPC) {
			assert_int_equal(evbuf[i].detail, HPU_TPC_KERNEL_ADD);
			assert_int_equal(evbuf[i].flops, GM * GN);
			assert_int_equal(evbuf[i].bytes, 3ULL * GM * GN * 4);
		}
	}
	assert_int_equal(kinds, (1 << HPU_TRACE_KIND_DMA) |
					(1 << HPU_TRACE_KIND_GEMM) |
					(1 << HPU_TRACE_KIND_TPC));
	/* STOP: the same results, nothing recorded, the events stay */
	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	workload(off);
	assert_int_equal(hpu_trace_stop(fx.dev), 0);
	workload(on);
	assert_memory_equal(off, on, sizeof(on));
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.active, 0);
	assert_int_equal(st.pending, 4);
	assert_int_equal(hpu_trace_free(fx.dev), 0);
}

/* @n NOP CSs on queues 0 and 1 alternately, waiting now and then */
static void nops(struct hpu_device *dev, struct hpu_cb_builder *cb,
		 unsigned int n)
{
	uint64_t seq = 0;
	uint32_t status;
	unsigned int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(hpu_cb_nop(cb), 0);
		assert_int_equal(
			hpu_cb_builder_submit(cb, i % 2, 0, 0, &seq, NULL), 0);
		hpu_cb_builder_reset(cb);
		if (i % 256 == 255)
			assert_int_equal(
				hpu_cs_wait(dev, seq, WAIT_US, &status), 0);
	}
	assert_int_equal(hpu_cs_wait(dev, seq, WAIT_US, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
}

static long daemon_rss_kib(void)
{
	struct hpu_test_usage u;

	assert_int_equal(hpu_test_usage_of(hpu_test_shared.pid, &u), 0);
	return u.rss_kib;
}

static long daemon_maps(void)
{
	struct hpu_test_usage u;

	assert_int_equal(hpu_test_usage_of(hpu_test_shared.pid, &u), 0);
	return u.maps;
}

/* Capacity 64, thousands of jobs: bounded, drops counted, no growth */
static void test_ring_bound(void **state)
{
	struct hpu_trace_out st;
	long rss[4];
	int round;

	(void)state;
	for (round = 0; round < 4; round++) {
		assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
		nops(fx.dev, fx.cb, 3000);
		assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
		assert_int_equal(st.recorded, 3000);
		assert_int_equal(st.pending, 2 * 64);
		assert_true(st.pending <= (uint64_t)st.capacity * st.engines);
		assert_int_equal(st.dropped, 3000 - 2 * 64);
		assert_int_equal(read_all(fx.dev, &st), 2 * 64);
		assert_int_equal(st.pending, 0);
		assert_int_equal(st.dropped, 3000 - 2 * 64);
		assert_int_equal(hpu_trace_free(fx.dev), 0);
		rss[round] = daemon_rss_kib();
	}
	/* the first round may still warm caches; later ones hold nothing */
	print_message("daemon RSS after each round (KiB): %ld %ld %ld %ld\n",
		      rss[0], rss[1], rss[2], rss[3]);
	assert_true(rss[3] <= rss[1] + RSS_SLACK_KIB(4096));
}

static void test_other_context(void **state)
{
	struct hpu_test_engine b;
	struct hpu_trace_out st;

	(void)state;
	hpu_test_engine_open(&b, 4096, SPAN);
	assert_int_equal(hpu_trace_start(b.dev, 64), 0);
	/* this context's jobs are not b's */
	nops(fx.dev, fx.cb, 10);
	assert_int_equal(hpu_trace_read(b.dev, evbuf, MAXEV, &st), 0);
	assert_int_equal(st.recorded, 0);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(st.active, 0);
	/* b's own are */
	nops(b.dev, b.cb, 3);
	assert_int_equal(hpu_trace_read(b.dev, evbuf, MAXEV, &st), 3);
	assert_int_equal(hpu_trace_read(fx.dev, evbuf, MAXEV, &st), 0);
	hpu_test_engine_close(&b);
}

static void expect_einval(union hpu_trace_args *a)
{
	struct hpu_trace_out st;

	assert_int_equal(raw_trace(fx.dev, a), -EINVAL);
	/* nothing changed */
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 64);
	assert_int_equal(st.pending, 2);
	assert_int_equal(st.active, 1);
	assert_int_equal(trace_limit_used(fx.dev),
			 64ULL * st.engines * sizeof(struct hpu_trace_event));
}

static void test_bad_requests(void **state)
{
	static const uint32_t bad_caps[] = { 1,	  32, 63,     65,
					     100, 96, 131072, 0x80000000U };
	union hpu_trace_args a;
	struct hpu_trace_out st;
	unsigned int i;

	(void)state;
	/* before START: STATUS says nothing is there; READ finds nothing */
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(hpu_trace_read(fx.dev, evbuf, 8, &st), 0);
	assert_int_equal(hpu_trace_stop(fx.dev), 0);
	assert_int_equal(hpu_trace_free(fx.dev), 0);

	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	nops(fx.dev, fx.cb, 2);

	for (i = 0; i < sizeof(bad_caps) / sizeof(bad_caps[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.in.op = HPU_TRACE_OP_START;
		a.in.capacity = bad_caps[i];
		expect_einval(&a);
	}
	memset(&a, 0, sizeof(a));
	a.in.op = 5; /* no such op */
	expect_einval(&a);
	a.in.op = ~0U;
	expect_einval(&a);
	for (i = HPU_TRACE_OP_START; i <= HPU_TRACE_OP_FREE; i++) {
		memset(&a, 0, sizeof(a));
		a.in.op = i;
		if (i == HPU_TRACE_OP_READ) {
			a.in.events_ptr = (uintptr_t)evbuf;
			a.in.max_events = 8;
		}
		a.in.reserved = 1;
		expect_einval(&a);
		a.in.reserved = 0;
		a.in.flags = 1;
		expect_einval(&a);
		a.in.flags = 0;
		if (i != HPU_TRACE_OP_START) {
			a.in.capacity = 64;
			expect_einval(&a);
			a.in.capacity = 0;
		}
		if (i != HPU_TRACE_OP_READ) {
			a.in.events_ptr = (uintptr_t)evbuf;
			expect_einval(&a);
			a.in.events_ptr = 0;
			a.in.max_events = 1;
			expect_einval(&a);
		}
	}
	/* READ: no buffer, no room, too much room */
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_TRACE_OP_READ;
	a.in.max_events = 8;
	expect_einval(&a);
	a.in.events_ptr = (uintptr_t)evbuf;
	a.in.max_events = 0;
	expect_einval(&a);
	a.in.max_events = HPU_TRACE_MAX_CAPACITY + 1;
	expect_einval(&a);
	/* START of another capacity while rings are reserved: -EBUSY */
	assert_int_equal(hpu_trace_start(fx.dev, 128), -EBUSY);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 64);
	assert_int_equal(st.pending, 2);
	/* the library's own checks */
	assert_int_equal(hpu_trace_read(fx.dev, NULL, 8, NULL), -EINVAL);
	assert_int_equal(hpu_trace_read(fx.dev, evbuf, 0, NULL), -EINVAL);
	assert_int_equal(hpu_trace_read(NULL, evbuf, 8, NULL), -EINVAL);
	assert_int_equal(hpu_trace_status(fx.dev, NULL), -EINVAL);
	assert_int_equal(hpu_trace_start(NULL, 64), -EINVAL);
	assert_int_equal(hpu_trace_free(fx.dev), 0);
}

/* Beyond the trace_bytes limit: -ENOSPC, nothing reserved */
static void test_limit(void **state)
{
	struct hpu_info_ctx_limits l;
	struct hpu_trace_out st;
	uint64_t need;

	(void)state;
	assert_int_equal(hpu_info_ctx_limits(fx.dev, &l), 0);
	need = (uint64_t)HPU_TRACE_MAX_CAPACITY *
	       (fx.ip.num_dma + fx.ip.num_mme + fx.ip.num_tpc +
		fx.ip.num_nic_ports) *
	       sizeof(struct hpu_trace_event);
	if (need <= l.limits[HPU_CTX_LIMIT_TRACE_BYTES].limit) {
		print_message("skipped: the largest rings fit the limit\n");
		skip();
	}
	assert_int_equal(hpu_trace_start(fx.dev, HPU_TRACE_MAX_CAPACITY),
			 -ENOSPC);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(st.active, 0);
	assert_int_equal(trace_limit_used(fx.dev), 0);
}

/* READ to an unmapped buffer: -EFAULT, the events are still there */
static void test_read_efault(void **state)
{
	union hpu_trace_args a;
	struct hpu_trace_out st;
	void *p;

	(void)state;
	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	nops(fx.dev, fx.cb, 4);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(munmap(p, 4096), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_TRACE_OP_READ;
	a.in.events_ptr = (uintptr_t)p;
	a.in.max_events = 8;
	assert_int_equal(raw_trace(fx.dev, &a), -EFAULT);
	/* read-only memory: the same */
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_TRACE_OP_READ;
	a.in.events_ptr = (uintptr_t)p;
	a.in.max_events = 8;
	assert_int_equal(raw_trace(fx.dev, &a), -EFAULT);
	munmap(p, 4096);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.pending, 4);
	assert_int_equal(hpu_trace_read(fx.dev, evbuf, MAXEV, &st), 4);
	assert_int_equal(st.pending, 0);
	assert_int_equal(hpu_trace_free(fx.dev), 0);
}

/* A child that traces with large rings and full rings, then exits */
static void child_traces(bool kill_self)
{
	struct hpu_test_engine e;
	int i;

	hpu_test_engine_open(&e, 4096, SPAN);
	if (hpu_trace_start(e.dev, 8192))
		_exit(2);
	for (i = 0; i < 200; i++) {
		uint64_t seq;

		hpu_cb_nop(e.cb);
		if (hpu_cb_builder_submit(e.cb, i % 4, 0, 0, &seq, NULL))
			_exit(3);
		hpu_cb_builder_reset(e.cb);
	}
	if (kill_self)
		raise(SIGKILL);
	hpu_close(e.dev);
	_exit(0);
}

static void test_close_and_kill_free(void **state)
{
	long rss[6], maps[6];
	int i, status;

	(void)state;
	for (i = 0; i < 6; i++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (!pid)
			child_traces(i % 2);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (i % 2)
			assert_true(WIFSIGNALED(status) &&
				    WTERMSIG(status) == SIGKILL);
		else
			assert_true(WIFEXITED(status) &&
				    WEXITSTATUS(status) == 0);
		/* the context's teardown runs after the close: bounded wait */
		hpu_test_sleep_ms(100);
		rss[i] = daemon_rss_kib();
		maps[i] = daemon_maps();
	}
	print_message("daemon RSS after each child (KiB): %ld %ld %ld %ld "
		      "%ld %ld; mappings %ld %ld %ld %ld %ld %ld\n",
		      rss[0], rss[1], rss[2], rss[3], rss[4], rss[5], maps[0],
		      maps[1], maps[2], maps[3], maps[4], maps[5]);
	assert_true(rss[5] <= rss[1] + RSS_SLACK_KIB(16384));
#if !HPU_TEST_UNDER_ASAN
	/*
	 * Each child's rings (60 x 8192 events, 37.5 MiB) are one mapping
	 * of the daemon's allocator: had they stayed, one more per child.
	 * (ASan keeps freed blocks in its quarantine: not counted there.)
	 */
	assert_true(maps[5] <= maps[1] + 2);
#endif
	/* the daemon still serves */
	nops(fx.dev, fx.cb, 2);
}

/* A compute reset keeps the rings; a hard reset ends the context */
static void test_reset(void **state)
{
	struct hpu_trace_out st;
	struct hpu_device *dev;
	union hpu_trace_args a;
	int ret, i;

	(void)state;
	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	nops(fx.dev, fx.cb, 3);
	ret = hpu_device_reset(fx.dev, HPU_RESET_COMPUTE);
	if (ret == -EPERM || ret == -EOPNOTSUPP) {
		print_message("skipped: no reset here (%d)\n", ret);
		skip();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(hpu_trace_status(fx.dev, &st), 0);
	assert_int_equal(st.capacity, 64);
	assert_int_equal(st.pending, 3);

	assert_int_equal(hpu_device_reset(fx.dev, HPU_RESET_HARD), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_TRACE_OP_STATUS;
	assert_int_equal(raw_trace(fx.dev, &a), -EIO);
	/* the context is dead: what it held went with it */
	hpu_cb_builder_destroy(fx.cb);
	hpu_close(fx.dev);
	fx.dev = NULL;
	/* a new context starts with nothing (an open during the reset waits) */
	for (i = 0; i < 200; i++) {
		ret = hpu_open(0, &dev);
		if (ret != -EAGAIN)
			break;
		hpu_test_sleep_ms(50);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(hpu_trace_status(dev, &st), 0);
	assert_int_equal(st.capacity, 0);
	assert_int_equal(trace_limit_used(dev), 0);
	assert_int_equal(hpu_trace_start(dev, 64), 0);
	hpu_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dma_event_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dma_event_ioctl, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gemm_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fence_signal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_on_off_identical, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ring_bound, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_other_context, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_efault, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_close_and_kill_free, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	};

	return cmocka_run_group_tests(tests, hpu_test_engine_group_setup,
				      hpu_test_group_stop);
}
