// SPDX-License-Identifier: MIT
/*
 * hpu_test_drv_cs.c - command submission through libhpudrv for the
 * driver library's tests (hpu_test_drv_cs.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hpu_test_drv_cs.h"

uint64_t hpu_test_drv_submit(struct hpu_cb_builder *b, uint32_t queue,
			     uint32_t timeout_ms)
{
	uint64_t seq;

	assert_int_equal(
		hpu_cb_builder_submit(b, queue, 0, timeout_ms, &seq, NULL), 0);
	hpu_cb_builder_reset(b);
	return seq;
}

void hpu_test_drv_expect_status(struct hpu_device *dev, uint64_t seq,
				uint32_t want)
{
	uint32_t status;

	assert_int_equal(hpu_cs_wait(dev, seq, HPU_TEST_DRV_WAIT_US, &status),
			 0);
	assert_int_equal(status, want);
}
