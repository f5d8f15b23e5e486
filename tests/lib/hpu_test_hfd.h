/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_hfd.h - the driver core (libhpufusedev) of one simulated
 * Gaudi2 without FUSE, with contexts opened by the test process: the
 * fixture of the unit tests that call the ioctl dispatchers directly.
 */
#ifndef HPU_TEST_HFD_H
#define HPU_TEST_HFD_H

#include <stdbool.h>

#include "hpu_fused_dev.h"

/**
 * hpu_test_hfd_open() - hfd_driver_init() one "gaudi2" of libhpusim
 * (devices under "/unit"), then open its contexts as this process
 * @drv: initialized; hpu_test_hfd_close() it
 * @exclusive: open them exclusive, as the habanalabs personality does
 *	(one compute open per device); false: by the device's own rule
 *	(hfd_ctx_open())
 * @compute: receives a compute context
 * @control: receives a control context; NULL for none
 *
 * Return: 0, or -1 when a step failed (a cmocka setup's failure).
 */
int hpu_test_hfd_open(struct hfd_driver *drv, bool exclusive,
		      struct hfd_ctx **compute, struct hfd_ctx **control);

/**
 * hpu_test_hfd_close() - release the contexts (NULL ones skipped), then
 * hfd_driver_fini() @drv
 * @drv: from hpu_test_hfd_open()
 * @compute: its compute context
 * @control: its control context, or NULL
 */
void hpu_test_hfd_close(struct hfd_driver *drv, struct hfd_ctx *compute,
			struct hfd_ctx *control);

#endif /* HPU_TEST_HFD_H */
