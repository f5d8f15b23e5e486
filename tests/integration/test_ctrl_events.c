// SPDX-License-Identifier: MIT
/*
 * test_ctrl_events.c - device-wide events on control nodes through the
 * real hpu-fused (docs/abi.md, "Events"; docs/fusedev.md, "Device
 * events"): a control context reads every kind (ECC errors, a page
 * fault, resets, status and clock changes, a CS timeout, a lost
 * heartbeat, hot-removal); a full queue drops the oldest, counts them in
 * an EVENTS_LOST record and stays bounded; a control context that never
 * reads does not hold compute contexts back; an uncorrectable ECC error
 * (and with --fatal-page-faults a page fault) makes the device
 * NEEDS_RESET, CSs are refused with EBUSY until a hard reset, which
 * --reset-on-fatal does by itself; the ENGINE_HANG and DEVICE_ERR
 * injections raise their events and a hard reset recovers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_drv_cs.h"
#include "hpu_accel.h"
#include "hpudrv.h"

/* bound of every waiting loop here */
#define WAIT_MS 20000
#define MiB	(1024ULL * 1024)

/**
 * struct reader - a control handle's records, read ahead
 * @dev: the control handle
 * @ev: records read and not yet looked at
 * @n: records in @ev
 * @pos: next record of @ev to look at
 */
struct reader {
	struct hpu_device *dev;
	struct hpu_event ev[64];
	int n;
	int pos;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The next record, waiting at most WAIT_MS; false when none came */
static bool next_event(struct reader *r, struct hpu_event *out)
{
	uint64_t end = now_ms() + WAIT_MS;
	int n;

	while (r->pos == r->n) {
		if (now_ms() > end)
			return false;
		n = hpu_ctrl_event_read(r->dev, r->ev, 64, 200);
		if (n < 0)
			fail_msg("reading events: %s", strerror(-n));
		r->n = n;
		r->pos = 0;
	}
	*out = r->ev[r->pos++];
	return true;
}

/*
 * The next record of @type (others are skipped: clock changes come at
 * any time); the test fails when none comes within WAIT_MS
 */
static struct hpu_event expect(struct reader *r, uint32_t type)
{
	struct hpu_event ev;

	if (getenv("TEST_TRACE"))
		print_message("expect %s\n", hpu_event_type_name(type));
	while (next_event(r, &ev))
		if (ev.type == type)
			return ev;
	fail_msg("no %s event", hpu_event_type_name(type));
	return ev;
}

/* The next STATUS_CHANGE must go from @from to @to */
static void expect_status(struct reader *r, uint32_t from, uint32_t to)
{
	struct hpu_event ev = expect(r, HPU_EVENT_STATUS_CHANGE);

	assert_int_equal(ev.addr, from);
	assert_int_equal(ev.data, to);
}

static uint32_t status(struct hpu_device *ctl)
{
	struct hpu_info_device_status st;

	assert_int_equal(hpu_info_device_status(ctl, &st), 0);
	return st.status;
}

static uint64_t pending(struct hpu_device *ctl)
{
	struct hpu_info_events e;

	assert_int_equal(hpu_info_get_events(ctl, &e), 0);
	return e.pending;
}

/* the daemon of the test running (stopped by its teardown, also on failure) */
static struct hpu_test_daemon daemon_of_test;
static bool daemon_running;

static void start(int ndev, const char *const *extra)
{
	const char *why = hpu_test_have_fuse();

	if (why) {
		print_message("skipped: %s\n", why);
		skip();
	}
	assert_int_equal(hpu_test_daemon_start(&daemon_of_test, ndev, "gaudi",
					       extra),
			 0);
	daemon_running = true;
}

static int stop(void **state)
{
	(void)state;
	if (!daemon_running)
		return 0;
	daemon_running = false;
	return hpu_test_daemon_stop(&daemon_of_test);
}

/*
 * The daemon (one device, @extra arguments), a control handle @ctl and
 * a compute context @dev on it
 */
static void start_opened(const char *const *extra, struct hpu_device **ctl,
			 struct hpu_device **dev)
{
	start(1, extra);
	assert_int_equal(hpu_open_control(0, ctl), 0);
	assert_int_equal(hpu_open(0, dev), 0);
}

/* A NOP CS on queue 0 of @dev, with @timeout_ms (0: the default) */
static int nop_cs(struct hpu_device *dev, uint32_t timeout_ms, uint64_t *seq)
{
	struct hpu_cb_builder *cb;
	int ret;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_nop(cb), 0);
	ret = hpu_cb_builder_submit(cb, 0, 0, timeout_ms, seq, NULL);
	hpu_cb_builder_destroy(cb);
	return ret;
}

static void nop_completes(struct hpu_device *dev)
{
	uint64_t seq;

	assert_int_equal(nop_cs(dev, 0, &seq), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
}

/*
 * @dev's context died with a hard reset: a new one on device 0 runs a
 * NOP CS; closes it and @ctl
 */
static void new_context_works(struct hpu_device *ctl, struct hpu_device *dev)
{
	hpu_close(dev);
	assert_int_equal(hpu_open(0, &dev), 0);
	nop_completes(dev);
	hpu_close(dev);
	hpu_close(ctl);
}

/* A CS on @dev reading an unmapped VA: it ends ABORTED; returns the VA */
static uint64_t page_fault(struct hpu_device *dev)
{
	const uint64_t unmapped = 0x1000000000000ULL + 0xfff000000ULL;
	struct hpu_cb_builder *cb;
	uint64_t host_va;
	void *host;

	host = calloc(1, 4096);
	assert_non_null(host);
	assert_int_equal(hpu_mem_map_host(dev, host, 4096, 0, 0, &host_va), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, unmapped, 4096), 0);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_ABORTED);
	hpu_cb_builder_destroy(cb);
	assert_int_equal(hpu_mem_unmap(dev, host_va), 0);
	free(host);
	return unmapped;
}

/*
 * A reset of @kind through r->dev, the device @from: it goes IN_RESET,
 * the reset's event, then OPERATIONAL
 */
static void reset_seen(struct reader *r, uint32_t kind, uint32_t from)
{
	assert_int_equal(hpu_device_reset(r->dev, kind), 0);
	expect_status(r, from, HPU_DEVICE_STATUS_IN_RESET);
	assert_int_equal(expect(r, HPU_EVENT_DEVICE_RESET).data, kind);
	expect_status(r, HPU_DEVICE_STATUS_IN_RESET,
		      HPU_DEVICE_STATUS_OPERATIONAL);
}

/* A control context reads every kind of device-wide event */
static void test_each_kind(void **state)
{
	struct reader r = { 0 }, r1 = { 0 };
	struct hpu_device *dev;
	struct hpu_event ev;
	uint64_t va, seq;

	(void)state;
	start(2, NULL);
	assert_int_equal(hpu_open_control(0, &r.dev), 0);
	assert_int_equal(hpu_open_control(1, &r1.dev), 0);
	assert_int_equal(hpu_open(0, &dev), 0);
	/* nothing before anything happened */
	assert_int_equal(hpu_ctrl_event_read(r.dev, r.ev, 64, 0), 0);

	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 0),
			 0);
	ev = expect(&r, HPU_EVENT_ECC_ERR);
	assert_int_equal(ev.data, 0);
	assert_true(ev.timestamp_ns > 0);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_OPERATIONAL);

	/* another context's fault: the monitor sees it, the device goes on */
	va = page_fault(dev);
	ev = expect(&r, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(ev.addr, va);
	assert_true(ev.seq > 0);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_OPERATIONAL);

	/* an endless command: its timeout fires and is seen */
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_ENGINE_HANG, 0, 0), 0);
	assert_int_equal(nop_cs(dev, 300, &seq), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_TIMEDOUT);
	ev = expect(&r, HPU_EVENT_CS_TIMEOUT);
	assert_int_equal(ev.seq, seq);
	nop_completes(dev);

	/* a compute reset: IN_RESET, the event, OPERATIONAL */
	reset_seen(&r, HPU_RESET_COMPUTE, HPU_DEVICE_STATUS_OPERATIONAL);

	/* an uncorrectable error: the event, then NEEDS_RESET */
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 1),
			 0);
	assert_int_equal(expect(&r, HPU_EVENT_ECC_ERR).data, 1);
	expect_status(&r, HPU_DEVICE_STATUS_OPERATIONAL,
		      HPU_DEVICE_STATUS_NEEDS_RESET);

	/* a hard reset repairs it */
	reset_seen(&r, HPU_RESET_HARD, HPU_DEVICE_STATUS_NEEDS_RESET);
	hpu_close(dev);

	/* the clock: busy work moves it from idle to the maximum */
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_ENGINE_HANG, 0, 0), 0);
	assert_int_equal(nop_cs(dev, 500, &seq), 0);
	ev = expect(&r, HPU_EVENT_CLOCK_CHANGE);
	assert_true(ev.data > 0 && ev.addr > 0 && ev.data != ev.addr);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_TIMEDOUT);
	hpu_close(dev);

	/* hot-removal: told, then the file answers ENODEV */
	assert_int_equal(hpu_hot_remove(1), 0);
	expect_status(&r1, HPU_DEVICE_STATUS_OPERATIONAL,
		      HPU_DEVICE_STATUS_REMOVED);
	assert_int_equal(expect(&r1, HPU_EVENT_DEVICE_UNAVAILABLE).data,
			 HPU_DEVICE_STATUS_REMOVED);
	assert_int_equal(hpu_ctrl_event_read(r1.dev, r1.ev, 64, 100), -ENODEV);

	hpu_close(r1.dev);
	hpu_close(r.dev);
}

/*
 * A control context that does not read keeps the newest `events`
 * records; the next read starts with EVENTS_LOST counting the others
 */
static void test_overflow_bounded(void **state)
{
	static const char *const extra[] = { "--limit", "events=8", NULL };
	struct hpu_event ev[64];
	struct hpu_device *ctl, *dev;
	uint64_t lost, ecc = 0;
	int i, n;

	(void)state;
	start_opened(extra, &ctl, &dev);
	for (i = 0; i < 100; i++) {
		assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR,
							0, 0),
				 0);
		assert_true(pending(ctl) <= 8);
	}
	assert_int_equal(pending(ctl), 8);
	n = hpu_ctrl_event_read(ctl, ev, 64, 0);
	assert_true(n >= 2 && n <= 9);
	assert_int_equal(ev[0].type, HPU_EVENT_EVENTS_LOST);
	lost = ev[0].data;
	for (i = 1; i < n; i++)
		if (ev[i].type == HPU_EVENT_ECC_ERR)
			ecc++;
	/* every injection is either read or counted lost (clock changes aside) */
	assert_true(lost + ecc >= 100);
	assert_true(lost >= 92 - 8);
	/* read out: nothing more, and nothing lost since */
	assert_int_equal(hpu_ctrl_event_read(ctl, ev, 64, 0), 0);
	assert_int_equal(pending(ctl), 0);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 0),
			 0);
	n = hpu_ctrl_event_read(ctl, ev, 64, WAIT_MS);
	assert_true(n >= 1);
	for (i = 0; i < n; i++)
		assert_int_not_equal(ev[i].type, HPU_EVENT_EVENTS_LOST);
	/* a buffer for one record gets the LOST record alone */
	for (i = 0; i < 20; i++)
		assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR,
							0, 0),
				 0);
	assert_int_equal(hpu_ctrl_event_read(ctl, ev, 1, 0), 1);
	assert_int_equal(ev[0].type, HPU_EVENT_EVENTS_LOST);
	assert_int_equal(hpu_ctrl_event_read(ctl, ev, 1, 0), 1);
	assert_int_equal(ev[0].type, HPU_EVENT_ECC_ERR);
	hpu_close(dev);
	hpu_close(ctl);
}

/* Time to run @n NOP CSs one after the other on @dev, in ms */
static uint64_t run_nops(struct hpu_device *dev, int n)
{
	uint64_t t0 = now_ms();
	int i;

	for (i = 0; i < n; i++)
		nop_completes(dev);
	return now_ms() - t0;
}

/*
 * Control contexts that never read, flooded with events, hold nothing
 * back: the compute context's CSs complete, loosely as fast as before
 */
static void test_silent_control(void **state)
{
	struct hpu_device *ctl[8], *dev;
	uint64_t alone, flooded;
	int i;

	(void)state;
	start(1, NULL);
	assert_int_equal(hpu_open(0, &dev), 0);
	nop_completes(dev);
	alone = run_nops(dev, 100);
	for (i = 0; i < 8; i++)
		assert_int_equal(hpu_open_control(0, &ctl[i]), 0);
	for (i = 0; i < 500; i++)
		assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR,
							0, 0),
				 0);
	for (i = 0; i < 8; i++)
		assert_true(pending(ctl[i]) <= 64);
	flooded = run_nops(dev, 100);
	print_message(
		"100 NOP CSs: %llu ms alone, %llu ms with 8 full control queues\n",
		(unsigned long long)alone, (unsigned long long)flooded);
	/* generous: a loaded machine varies by far more than any queue cost */
	assert_true(flooded < 20 * alone + 5000);
	for (i = 0; i < 8; i++)
		hpu_close(ctl[i]);
	hpu_close(dev);
}

/*
 * An uncorrectable ECC error: NEEDS_RESET, CSs refused with EBUSY (and
 * counted), a compute reset does not repair it, a hard reset does
 */
static void test_escalation(void **state)
{
	struct hpu_info_cs_counters cnt;
	struct hpu_cb_builder *cb;
	struct hpu_device *ctl, *dev;
	uint64_t seq;

	(void)state;
	start_opened(NULL, &ctl, &dev);
	nop_completes(dev);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 1),
			 0);
	assert_int_equal(status(ctl), HPU_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(nop_cs(dev, 0, &seq), -EBUSY);
	assert_int_equal(hpu_info_cs_counters(dev, &cnt), 0);
	assert_true(cnt.ctx_device_in_reset_drop_cnt >= 1);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_COMPUTE), 0);
	assert_int_equal(status(ctl), HPU_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(nop_cs(dev, 0, &seq), -EBUSY);

	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
	assert_int_equal(status(ctl), HPU_DEVICE_STATUS_OPERATIONAL);
	/* the old context died with the reset; a new one works */
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), -EIO);
	hpu_close(dev);
	assert_int_equal(hpu_open(0, &dev), 0);
	nop_completes(dev);
	/* a page fault is not fatal by default */
	page_fault(dev);
	assert_int_equal(status(ctl), HPU_DEVICE_STATUS_OPERATIONAL);
	nop_completes(dev);
	hpu_close(dev);
	hpu_close(ctl);
}

/*
 * The device goes NEEDS_RESET: CSs are refused with EBUSY until a hard
 * reset, after which a new context works; closes @dev and r->dev
 */
static void needs_hard_reset(struct reader *r, struct hpu_device *dev)
{
	uint64_t seq;

	expect_status(r, HPU_DEVICE_STATUS_OPERATIONAL,
		      HPU_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(nop_cs(dev, 0, &seq), -EBUSY);
	assert_int_equal(hpu_device_reset(r->dev, HPU_RESET_HARD), 0);
	new_context_works(r->dev, dev);
}

/* --fatal-page-faults: a page fault needs a reset too */
static void test_fatal_page_faults(void **state)
{
	static const char *const extra[] = { "--fatal-page-faults", NULL };
	struct reader r = { 0 };
	struct hpu_device *dev;

	(void)state;
	start_opened(extra, &r.dev, &dev);
	page_fault(dev);
	expect(&r, HPU_EVENT_PAGE_FAULT);
	needs_hard_reset(&r, dev);
}

/* The CS's own context gets the fault record too */
static struct hpu_event own_event(struct hpu_device *dev, uint32_t type)
{
	struct hpu_event ev[16];
	int n, i;

	n = hpu_event_read(dev, ev, 16);
	for (i = 0; i < n; i++)
		if (ev[i].type == type)
			return ev[i];
	fail_msg("no %s event in the context", hpu_event_type_name(type));
	return ev[0];
}

/*
 * The next NOP CS of @dev takes an injected page fault on @engine: it
 * ends ABORTED, the monitor and the CS's context see the injected
 * address on that engine (@write: the engine's access writes)
 */
static void injected_fault_seen(struct reader *r, struct hpu_device *dev,
				uint32_t engine, bool write)
{
	struct hpu_event ev;
	uint64_t seq;

	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT,
						engine, 0),
			 0);
	assert_int_equal(nop_cs(dev, 0, &seq), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_ABORTED);
	ev = expect(r, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(ev.addr, HPU_FAULT_PAGE_FAULT_ADDR);
	assert_int_equal(ev.engine, engine);
	assert_int_equal(ev.seq, seq);
	assert_int_equal(ev.data, write ? 1 : 0);
	ev = own_event(dev, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(ev.addr, HPU_FAULT_PAGE_FAULT_ADDR);
	assert_int_equal(ev.engine, engine);
	assert_int_equal(ev.seq, seq);
	/* taken once: the next CS runs */
	nop_completes(dev);
}

/*
 * DEBUG PAGE_FAULT: bad arguments arm nothing; the next CS faults on the
 * engine named (a DMA writes, an MME and a TPC read); CLEAR_FAULTS and a
 * hard reset disarm it; the device stays operational
 */
static void test_injected_page_fault(void **state)
{
	struct hpu_info_hw_ip_info ip;
	struct reader r = { 0 };
	struct hpu_device *dev;
	uint32_t dma, mme, tpc;

	(void)state;
	start_opened(NULL, &r.dev, &dev);
	assert_int_equal(hpu_info_hw_ip(dev, &ip), 0);
	dma = (uint32_t)__builtin_popcount(ip.dma_enabled_mask);
	mme = (uint32_t)__builtin_popcount(ip.mme_enabled_mask);
	tpc = (uint32_t)__builtin_popcountll(ip.tpc_enabled_mask);

	/* a NIC port, no such engine, a parameter: refused, nothing armed */
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT,
						dma + mme + tpc, 0),
			 -EINVAL);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, ~0U,
						0),
			 -EINVAL);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, 0,
						1),
			 -EINVAL);
	nop_completes(dev);

	injected_fault_seen(&r, dev, 0, true);
	injected_fault_seen(&r, dev, dma, false);
	injected_fault_seen(&r, dev, dma + mme + tpc - 1, false);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_OPERATIONAL);

	/* disarmed before a CS took it */
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, 0, 0), 0);
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	nop_completes(dev);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, 0, 0), 0);
	assert_int_equal(hpu_device_reset(r.dev, HPU_RESET_HARD), 0);
	new_context_works(r.dev, dev);
}

/* --fatal-page-faults: an injected page fault needs a reset */
static void test_injected_page_fault_fatal(void **state)
{
	static const char *const extra[] = { "--fatal-page-faults", NULL };
	struct reader r = { 0 };
	struct hpu_device *dev;
	uint64_t seq;

	(void)state;
	start_opened(extra, &r.dev, &dev);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_PAGE_FAULT, 0, 0), 0);
	assert_int_equal(nop_cs(dev, 0, &seq), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(expect(&r, HPU_EVENT_PAGE_FAULT).addr,
			 HPU_FAULT_PAGE_FAULT_ADDR);
	needs_hard_reset(&r, dev);
}

/* --reset-on-fatal: the daemon hard-resets the device by itself */
static void test_reset_on_fatal(void **state)
{
	static const char *const extra[] = { "--reset-on-fatal", NULL };
	struct hpu_info_reset_count rc0, rc;
	struct reader r = { 0 };
	struct hpu_device *dev;
	uint64_t end;

	(void)state;
	start(1, extra);
	assert_int_equal(hpu_open_control(0, &r.dev), 0);
	assert_int_equal(hpu_info_reset_count(r.dev, &rc0), 0);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 1),
			 0);
	/* closed at once: the reset still happens */
	hpu_close(dev);
	expect_status(&r, HPU_DEVICE_STATUS_OPERATIONAL,
		      HPU_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(expect(&r, HPU_EVENT_DEVICE_RESET).data,
			 HPU_RESET_HARD);
	expect_status(&r, HPU_DEVICE_STATUS_IN_RESET,
		      HPU_DEVICE_STATUS_OPERATIONAL);
	end = now_ms() + WAIT_MS;
	do {
		assert_int_equal(hpu_info_reset_count(r.dev, &rc), 0);
	} while (rc.hard_reset_cnt == rc0.hard_reset_cnt && now_ms() < end);
	assert_int_equal(rc.hard_reset_cnt, rc0.hard_reset_cnt + 1);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_OPERATIONAL);
	assert_int_equal(hpu_open(0, &dev), 0);
	nop_completes(dev);
	hpu_close(dev);
	hpu_close(r.dev);
}

/*
 * ENGINE_HANG: the next CS never ends; without a timeout of its own (the
 * daemon's 30 s) a hard reset ends it, and the device works again
 */
static void test_endless_command_reset(void **state)
{
	struct hpu_device *ctl, *dev;
	uint32_t st;
	uint64_t seq;

	(void)state;
	start_opened(NULL, &ctl, &dev);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_ENGINE_HANG, 0, 0), 0);
	assert_int_equal(nop_cs(dev, 0, &seq), 0);
	assert_int_equal(hpu_cs_wait(dev, seq, 200000, &st), 0);
	assert_int_equal(st, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
	/* the killed context reads its reset event, then is re-acquired */
	own_event(dev, HPU_EVENT_DEVICE_RESET);
	new_context_works(ctl, dev);
}

/*
 * DEVICE_ERR (a lost heartbeat): every context hears DEVICE_UNAVAILABLE,
 * the device is MALFUNCTION and refuses CSs, a compute reset does not
 * help, a hard reset does
 */
static void test_heartbeat_lost(void **state)
{
	struct reader r = { 0 };
	struct hpu_device *dev;
	char buf[64];
	uint64_t seq;

	(void)state;
	start_opened(NULL, &r.dev, &dev);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_DEVICE_ERR, 0, 0), 0);
	assert_int_equal(expect(&r, HPU_EVENT_DEVICE_UNAVAILABLE).data,
			 HPU_DEVICE_STATUS_MALFUNCTION);
	expect_status(&r, HPU_DEVICE_STATUS_OPERATIONAL,
		      HPU_DEVICE_STATUS_MALFUNCTION);
	own_event(dev, HPU_EVENT_DEVICE_UNAVAILABLE);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_MALFUNCTION);
	assert_int_equal(hpu_device_read_attr(0, "status", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "malfunction");
	assert_int_equal(nop_cs(dev, 0, &seq), -EBUSY);
	assert_int_equal(hpu_device_reset(r.dev, HPU_RESET_COMPUTE), 0);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_MALFUNCTION);
	assert_int_equal(hpu_device_reset(r.dev, HPU_RESET_HARD), 0);
	assert_int_equal(status(r.dev), HPU_DEVICE_STATUS_OPERATIONAL);
	new_context_works(r.dev, dev);
}

/* Bad arguments of the library call */
static void test_read_args(void **state)
{
	struct hpu_device *ctl;
	struct hpu_event ev;

	(void)state;
	start(1, NULL);
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	assert_int_equal(hpu_ctrl_event_read(NULL, &ev, 1, 0), -EINVAL);
	assert_int_equal(hpu_ctrl_event_read(ctl, NULL, 1, 0), -EINVAL);
	assert_int_equal(hpu_ctrl_event_read(ctl, &ev, 0, 0), -EINVAL);
	assert_int_equal(hpu_ctrl_event_read(ctl, &ev, 1, -2), -EINVAL);
	assert_int_equal(hpu_ctrl_event_read(ctl, &ev, 1, 50), 0);
	assert_string_equal(hpu_event_type_name(HPU_EVENT_EVENTS_LOST),
			    "events_lost");
	assert_string_equal(hpu_event_type_name(HPU_EVENT_MAX), "unknown");
	hpu_close(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_each_kind, stop),
		cmocka_unit_test_teardown(test_overflow_bounded, stop),
		cmocka_unit_test_teardown(test_silent_control, stop),
		cmocka_unit_test_teardown(test_escalation, stop),
		cmocka_unit_test_teardown(test_fatal_page_faults, stop),
		cmocka_unit_test_teardown(test_injected_page_fault, stop),
		cmocka_unit_test_teardown(test_injected_page_fault_fatal, stop),
		cmocka_unit_test_teardown(test_reset_on_fatal, stop),
		cmocka_unit_test_teardown(test_endless_command_reset, stop),
		cmocka_unit_test_teardown(test_heartbeat_lost, stop),
		cmocka_unit_test_teardown(test_read_args, stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
