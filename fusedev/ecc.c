// SPDX-License-Identifier: MIT
/*
 * ecc.c - injected HBM ECC errors (DEBUG INJECT_FAULT, HPU_FAULT_ECC_ERR):
 * the device counts them (class/hpuN/ecc_errors) and every context of
 * the device gets HPU_EVENT_ECC_ERR (data 0: corrected, 1: uncorrectable).
 * An uncorrectable error is fatal: the device needs a hard reset
 * (dev_events.c).
 * The model's memory is not touched: a simulated HBM has no bits to flip.
 */
#include <errno.h>
#include <stdlib.h>

#include "hpu_fused.h"

/* Queue HPU_EVENT_ECC_ERR (@data) to every context of @dev */
static void ecc_event_all(struct hfd_device *dev, uint64_t data)
{
	struct hfd_ctx **list;
	size_t n, i;

	if (hfd_device_contexts(dev, &list, &n)) {
		hfd_warn(
			"hpu%u: out of memory: ECC event not given to the contexts",
			dev->index);
		return;
	}
	for (i = 0; i < n; i++)
		hfd_ctx_queue_event(list[i], HPU_EVENT_ECC_ERR, ~0u, 0, 0,
				    data);
	hfd_contexts_put(list, n);
}

/**
 * hfd_device_inject_ecc() - raise one HBM ECC error on @dev
 * @dev: device
 * @ctx: the injecting context (a call is in progress on it)
 * @uncorrectable: a double-bit (uncorrectable) error, else a corrected one
 *
 * An uncorrectable error is fatal: the device is NEEDS_RESET until a
 * hard reset (dev_events.c).
 *
 * Return: 0.
 */
int hfd_device_inject_ecc(struct hfd_device *dev, struct hfd_ctx *ctx,
			  bool uncorrectable)
{
	pthread_mutex_lock(&dev->fault_lock);
	if (uncorrectable)
		dev->ecc_uncorrected++;
	else
		dev->ecc_corrected++;
	pthread_mutex_unlock(&dev->fault_lock);
	hfd_info("hpu%u: injected %s ECC error", dev->index,
		 uncorrectable ? "uncorrectable" : "corrected");
	ecc_event_all(dev, uncorrectable);
	if (uncorrectable)
		hfd_device_fatal(dev, HPU_DEVICE_STATUS_NEEDS_RESET, ctx,
				 "uncorrectable ECC error");
	return 0;
}
