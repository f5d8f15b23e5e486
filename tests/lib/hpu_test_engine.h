/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_engine.h - what an engine integration test runs on: one open
 * device, a CB builder, a span of pinned host memory and a span of HBM,
 * and a submit-and-wait helper.
 */
#ifndef HPU_TEST_ENGINE_H
#define HPU_TEST_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hpudrv.h"

/**
 * struct hpu_test_engine - the fixture
 * @dev: hpu0, opened
 * @cb: builder of @cb_size bytes
 * @ip: HW_IP_INFO of @dev (engine counts give the queue indices)
 * @host: pinned host memory (hpu_host_alloc), @span bytes
 * @host_va: its device VA
 * @hbm_h: HBM allocation of @span bytes
 * @hbm_va: its device VA
 */
struct hpu_test_engine {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	struct hpu_info_hw_ip_info ip;
	uint8_t *host;
	uint64_t host_va;
	uint64_t hbm_h, hbm_va;
};

/*
 * cmocka group setup of an engine test: one gaudi2 daemon that implements
 * CS (hpu_test_group_start() + hpu_test_require_cs()); pair it with
 * hpu_test_group_stop()
 */
int hpu_test_engine_group_setup(void **state);
/*
 * cmocka per-test setup: clear @e, skip (hpu_test_need_daemon()'s return)
 * without a daemon, else hpu_test_engine_open() it: 0
 */
int hpu_test_engine_setup(struct hpu_test_engine *e, void **state,
			  size_t cb_size, size_t span);
/* Open everything (cmocka asserts on any failure) */
void hpu_test_engine_open(struct hpu_test_engine *e, size_t cb_size,
			  size_t span);
/* Release everything (asserts that each release succeeds) */
void hpu_test_engine_close(struct hpu_test_engine *e);
/*
 * The per-test teardown of a tracing test: hpu_trace_free() the trace a
 * failed test may have left running on @e->dev (its answer not looked
 * at: a test that passed freed its own), then hpu_test_engine_close()
 */
void hpu_test_engine_close_traced(struct hpu_test_engine *e);
/* Submit the builder's CB on @queue, reset it, wait: the WAIT_CS status */
uint32_t hpu_test_engine_run(struct hpu_test_engine *e, uint32_t queue);

#endif /* HPU_TEST_ENGINE_H */
