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

/* ------------------------------------------- the modeled layout (1.11) */

/* hpu_trace_model_layout() modes */
#define HPU_TRACE_LAYOUT_HOST	0 /* from the host's submissions */
#define HPU_TRACE_LAYOUT_DEVICE 1 /* submissions in order, no host time */

/**
 * hpu_trace_model_layout() - lay one device's jobs out on modeled device
 * time (docs/tracing.md, "The modeled layout")
 * @ev: the device's events, any order (one context's: sync object
 *	numbers and sequence numbers are the context's)
 * @n: events at @ev
 * @mode: HPU_TRACE_LAYOUT_HOST: in order of start, a job starts at the
 *	latest of its submission (@submit_ns), the modeled end of the job
 *	before it on its queue and, when it waited on a FENCE
 *	(HPU_TRACE_EV_WAITED), the modeled end of the last job laid out
 *	before it that signalled that sync object; it lasts @model_ns, or
 *	its measured time where the model has no figure (the layout of
 *	HPU_PROFILE's file). HPU_TRACE_LAYOUT_DEVICE: in order of
 *	(@cs_seq, @engine, @start_ns), the submission is replaced by the
 *	modeled end of every job of the submissions before (the host
 *	submits in the same order, waiting for nothing but what came
 *	before), and a job lasts exactly @model_ns: the same jobs give the
 *	same layout, whatever the host's times were
 * @start: receives, per event of @ev (same index), its modeled start
 * @end: receives its modeled end
 *
 * A job is one block: a command buffer that interleaves FENCEs with
 * work is laid out as if all of its work ran after the fence that
 * released it last (the event keeps only that one).
 *
 * Return: 0, -EINVAL (bad @mode, NULL arrays with @n > 0) or -ENOMEM.
 */
HPUDRV_EXPORT int hpu_trace_model_layout(const struct hpu_trace_event *ev,
					 size_t n, unsigned int mode,
					 uint64_t *start, uint64_t *end);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_TRACE_H */
