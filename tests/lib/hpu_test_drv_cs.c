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

#include <string.h>

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

struct hpu_cb_builder *hpu_test_drv_block_cb(struct hpu_device *dev,
					     uint32_t sob, uint32_t queue,
					     struct hpu_cs_chunk *ch)
{
	struct hpu_cb_builder *b;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &b), 0);
	assert_int_equal(hpu_cb_fence(b, sob, 1, 1), 0);
	memset(ch, 0, sizeof(*ch));
	ch->cb_handle = hpu_cb_builder_handle(b);
	ch->queue_index = queue;
	ch->cb_size = (uint32_t)hpu_cb_builder_used(b);
	return b;
}

void hpu_test_drv_release(struct hpu_device *dev, uint32_t sob)
{
	struct hpu_cb_builder *b;
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &b), 0);
	assert_int_equal(hpu_cb_msg_long(b, sob, HPU_MSG_OP_ADD, 1), 0);
	assert_int_equal(hpu_cb_builder_submit(b, 0, 0, 0, &seq, NULL), 0);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_cb_builder_destroy(b);
}

void hpu_test_drv_expect_status(struct hpu_device *dev, uint64_t seq,
				uint32_t want)
{
	uint32_t status;

	assert_int_equal(hpu_cs_wait(dev, seq, HPU_TEST_DRV_WAIT_US, &status),
			 0);
	assert_int_equal(status, want);
}
