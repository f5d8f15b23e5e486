/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_drv_cs.h - command submission through libhpudrv's CB builder
 * and waits, for the tests of the driver library's CS paths (rings and
 * ioctls alike); raw ioctls are hpu_test_cs.h's.
 */
#ifndef HPU_TEST_DRV_CS_H
#define HPU_TEST_DRV_CS_H

#include <stdint.h>

#include "hpudrv.h"

/* How long the helpers wait for a CS: generous, for a loaded machine */
#define HPU_TEST_DRV_WAIT_US 20000000ULL

/**
 * hpu_test_drv_submit() - submit what @b holds on @queue and reset it
 * (the test fails when the submission does)
 * @b: CB builder
 * @queue: queue index
 * @timeout_ms: the CS's timeout (0: the default)
 *
 * Return: the CS's sequence number.
 */
uint64_t hpu_test_drv_submit(struct hpu_cb_builder *b, uint32_t queue,
			     uint32_t timeout_ms);

/**
 * hpu_test_drv_expect_status() - wait (HPU_TEST_DRV_WAIT_US at most) for
 * CS @seq and assert its status is @want
 * @dev: compute handle
 * @seq: sequence number
 * @want: HPU_WAIT_CS_STATUS_*
 */
void hpu_test_drv_expect_status(struct hpu_device *dev, uint64_t seq,
				uint32_t want);

/**
 * hpu_test_drv_block_cb() - a CB whose CS holds its queue until
 * hpu_test_drv_release(): FENCE @sob >= 1 dec 1
 * @dev: compute handle
 * @sob: a SOB at 0 that nothing else signals (an application's own)
 * @queue: queue index of the chunk
 * @ch: receives the chunk (one job on @queue)
 *
 * Return: the builder; destroy it once the CS ended.
 */
struct hpu_cb_builder *hpu_test_drv_block_cb(struct hpu_device *dev,
					     uint32_t sob, uint32_t queue,
					     struct hpu_cs_chunk *ch);

/**
 * hpu_test_drv_release() - let one CS of hpu_test_drv_block_cb() go: a
 * MSG_LONG ADD 1 on @sob from DMA queue 0, waited for (it must complete)
 * @dev: compute handle
 * @sob: the blocked CS's SOB
 */
void hpu_test_drv_release(struct hpu_device *dev, uint32_t sob);

#endif /* HPU_TEST_DRV_CS_H */
