// SPDX-License-Identifier: MIT
/*
 * ecc.c - injected HBM ECC errors (DEBUG INJECT_FAULT, HPU_FAULT_ECC_ERR):
 * the device counts them (class/hpuN/ecc_errors) and every context of
 * the device gets HPU_EVENT_ECC_ERR (data 0: corrected, 1: uncorrectable).
 * The model's memory is not touched: a simulated HBM has no bits to flip.
 */
#include <errno.h>
#include <stdlib.h>

#include "hpu_fused.h"

/* Queues @ev to every context of @dev (a snapshot, without ctx_lock) */
static void ecc_event_all(struct hfd_device *dev, uint64_t data)
{
	struct hfd_ctx **list = NULL, **nl, *ctx;
	size_t n = 0, cap = 0, i;

	pthread_mutex_lock(&dev->ctx_lock);
	for (ctx = dev->ctx_list; ctx; ctx = ctx->next) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nl = realloc(list, cap * sizeof(*list));
			if (!nl)
				break;
			list = nl;
		}
		hfd_ctx_get(ctx);
		list[n++] = ctx;
	}
	pthread_mutex_unlock(&dev->ctx_lock);
	if (ctx)
		hfd_warn(
			"hpu%u: out of memory: ECC event not given to every context",
			dev->index);
	for (i = 0; i < n; i++) {
		hfd_ctx_queue_event(list[i], HPU_EVENT_ECC_ERR, ~0u, 0, 0,
				    data);
		hfd_ctx_put(list[i]);
	}
	free(list);
}

/**
 * hfd_device_inject_ecc() - raise one HBM ECC error on @dev
 * @dev: device
 * @uncorrectable: a double-bit (uncorrectable) error, else a corrected one
 *
 * Return: 0.
 */
int hfd_device_inject_ecc(struct hfd_device *dev, bool uncorrectable)
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
	return 0;
}
