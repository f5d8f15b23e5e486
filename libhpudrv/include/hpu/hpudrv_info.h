/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_info.h - libhpudrv: INFO queries (typed wrappers and hpu_info())
 * and per-context limits
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_INFO_H
#define HPU_HPUDRV_INFO_H

#include "hpudrv_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ INFO */

/**
 * hpu_info_hw_ip() - HPU_INFO_HW_IP_INFO
 * @dev: handle (compute or control)
 * @out: answer
 *
 * Every hpu_info_*() call returns 0, -EINVAL for NULL arguments, or the
 * driver's -errno. A driver with a shorter answer leaves the rest of
 * @out zeroed.
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_hw_ip(struct hpu_device *dev,
				 struct hpu_info_hw_ip_info *out);

/**
 * hpu_info_dram_usage() - HPU_INFO_DRAM_USAGE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_dram_usage(struct hpu_device *dev,
				      struct hpu_info_dram_usage *out);

/**
 * hpu_info_hw_idle() - HPU_INFO_HW_IDLE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_hw_idle(struct hpu_device *dev,
				   struct hpu_info_hw_idle *out);

/**
 * hpu_info_device_status() - HPU_INFO_DEVICE_STATUS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_device_status(struct hpu_device *dev,
					 struct hpu_info_device_status *out);

/**
 * hpu_info_utilization() - HPU_INFO_DEVICE_UTILIZATION
 * @dev: handle
 * @period_ms: averaging window, HPU_INFO_PERIOD_MS_MIN..HPU_INFO_PERIOD_MS_MAX
 *	(100..1000) ms
 * @out: answer
 *
 * Return: 0, -EINVAL for a period out of range, or -errno.
 */
HPUDRV_EXPORT int hpu_info_utilization(struct hpu_device *dev,
				       unsigned int period_ms,
				       struct hpu_info_device_utilization *out);

/**
 * hpu_info_clk_rate() - HPU_INFO_CLK_RATE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_clk_rate(struct hpu_device *dev,
				    struct hpu_info_clk_rate *out);

/**
 * hpu_info_reset_count() - HPU_INFO_RESET_COUNT
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_reset_count(struct hpu_device *dev,
				       struct hpu_info_reset_count *out);

/**
 * hpu_info_time_sync() - HPU_INFO_TIME_SYNC
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_time_sync(struct hpu_device *dev,
				     struct hpu_info_time_sync *out);

/**
 * hpu_info_cs_counters() - HPU_INFO_CS_COUNTERS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_cs_counters(struct hpu_device *dev,
				       struct hpu_info_cs_counters *out);

/**
 * hpu_info_power() - HPU_INFO_POWER
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_power(struct hpu_device *dev,
				 struct hpu_info_power *out);

/**
 * hpu_info_thermal() - HPU_INFO_THERMAL
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_thermal(struct hpu_device *dev,
				   struct hpu_info_thermal *out);

/**
 * hpu_info_open_stats() - HPU_INFO_OPEN_STATS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_open_stats(struct hpu_device *dev,
				      struct hpu_info_open_stats *out);

/**
 * hpu_info_get_events() - HPU_INFO_GET_EVENTS (reading clears the mask)
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_get_events(struct hpu_device *dev,
				      struct hpu_info_events *out);

/**
 * hpu_info_pci() - HPU_INFO_PCI_INFO
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_pci(struct hpu_device *dev,
			       struct hpu_info_pci *out);

/**
 * hpu_info_driver_version() - HPU_INFO_DRIVER_VERSION
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_driver_version(struct hpu_device *dev,
					  struct hpu_info_driver_version *out);

/* ------------------------------------- per-context limits (HPUDRV_1.5) */

/**
 * hpu_info_ctx_limits() - the calling context's limits and what it holds
 *	(HPU_INFO_CTX_LIMITS, a driver with HPU_CAP_CTX_LIMITS)
 * @dev: compute handle (its own use), or control handle (use 0)
 * @out: receives the answer, limits[] indexed by HPU_CTX_LIMIT_*
 *
 * Return: 0; -EINVAL (a driver without the op, or a NULL argument);
 * -errno.
 */
HPUDRV_EXPORT int hpu_info_ctx_limits(struct hpu_device *dev,
				      struct hpu_info_ctx_limits *out);

/**
 * hpu_ctx_limit_name() - name of a per-context limit, as hpu-fused
 *	--limit NAME=N spells it
 * @id: HPU_CTX_LIMIT_*
 *
 * Return: a static string, or NULL for an id this library does not know.
 */
HPUDRV_EXPORT const char *hpu_ctx_limit_name(unsigned int id);

/* ------------------------------------------------ any INFO op (HPUDRV_1.7) */

/**
 * hpu_info() - ask the driver any INFO op, named wrapper or not
 * @dev: compute or control handle
 * @op: HPU_INFO_* (uapi/hpu_accel.h)
 * @period_ms: HPU_INFO_DEVICE_UTILIZATION's window
 *	(HPU_INFO_PERIOD_MS_MIN..HPU_INFO_PERIOD_MS_MAX); 0 for every other op
 * @out: receives the answer (zeroed first)
 * @size: bytes of @out; the driver copies min(@size, the answer's size)
 * @full_size: if not NULL, receives the size of the complete answer
 *
 * The hpu_info_*() wrappers call the same ioctl with their struct; this
 * entry lets a program use an op its library has no wrapper for yet,
 * and learn an answer's size (a short @size still succeeds).
 *
 * Return: 0; -EINVAL (NULL @dev or @out, @size 0 or over 4 GiB, an op the
 * driver does not know, a bad @period_ms); -errno.
 */
HPUDRV_EXPORT int hpu_info(struct hpu_device *dev, unsigned int op,
			   unsigned int period_ms, void *out, size_t size,
			   size_t *full_size);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_INFO_H */
