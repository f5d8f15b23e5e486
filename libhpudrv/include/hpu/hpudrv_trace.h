/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_trace.h - libhpudrv: engine traces of the context (HPUDRV_1.10,
 * ABI 1.5; uapi/hpu_trace.h, docs/tracing.md)
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own.
 *
 * hpu_trace_start() reserves a bounded ring per engine queue in the
 * driver and records one struct hpu_trace_event per job of the handle's
 * context from then on; hpu_trace_read() moves events out, oldest first
 * by start time. A context sees only its own jobs. A driver without
 * HPU_CAP_TRACE answers every call -ENOTTY.
 */
#ifndef HPU_HPUDRV_TRACE_H
#define HPU_HPUDRV_TRACE_H

#include "hpudrv_device.h"
#include "hpu_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------- engine traces (1.10) */

/**
 * hpu_trace_start() - record the context's jobs in per-engine rings
 * @dev: compute handle
 * @capacity: events kept per engine queue, a power of two within
 *	HPU_TRACE_MIN_CAPACITY..HPU_TRACE_MAX_CAPACITY, or 0 for
 *	HPU_TRACE_DEFAULT_CAPACITY. A full ring drops its oldest event
 *
 * Starting again while recording, or after hpu_trace_stop() with the
 * same capacity (or 0), goes on with the same rings and their events;
 * another capacity while rings are reserved is -EBUSY (hpu_trace_free()
 * first).
 *
 * Return: 0; -EINVAL (bad capacity); -EBUSY; -ENOSPC (the rings'
 * memory is over the context's trace limit, HPU_CTX_LIMIT_TRACE_BYTES);
 * -ENOMEM; -ENOTTY (driver without traces); -errno.
 */
HPUDRV_EXPORT int hpu_trace_start(struct hpu_device *dev, uint32_t capacity);

/**
 * hpu_trace_stop() - stop recording; the events stay readable
 * @dev: compute handle
 *
 * Return: 0 (also when not recording) or -errno.
 */
HPUDRV_EXPORT int hpu_trace_stop(struct hpu_device *dev);

/**
 * hpu_trace_read() - move recorded events out, oldest first
 * @dev: compute handle
 * @ev: room for @max events
 * @max: events at @ev, >= 1 (more than HPU_TRACE_MAX_CAPACITY are read
 *	HPU_TRACE_MAX_CAPACITY at a time: call again while
 *	@st->pending is not 0)
 * @st: receives the counts after the read (may be NULL)
 *
 * Events are ordered by @start_ns across all engine queues; the ones
 * returned leave the rings.
 *
 * Return: the number of events written at @ev (0 when none is pending),
 * or -EINVAL, -EFAULT (nothing was moved), -errno.
 */
HPUDRV_EXPORT int hpu_trace_read(struct hpu_device *dev,
				 struct hpu_trace_event *ev, size_t max,
				 struct hpu_trace_out *st);

/**
 * hpu_trace_status() - the trace's counts without moving anything
 * @dev: compute handle
 * @st: receives pending, dropped, recorded, capacity, engines, active
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_trace_status(struct hpu_device *dev,
				   struct hpu_trace_out *st);

/**
 * hpu_trace_free() - stop recording and release the rings and events
 * @dev: compute handle
 *
 * Closing the handle does the same.
 *
 * Return: 0 (also when there were none) or -errno.
 */
HPUDRV_EXPORT int hpu_trace_free(struct hpu_device *dev);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_TRACE_H */
