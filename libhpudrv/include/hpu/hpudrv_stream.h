/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_stream.h - libhpudrv: streams (in-order asynchronous work) and
 * the events recorded in them
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_STREAM_H
#define HPU_HPUDRV_STREAM_H

#include "hpudrv_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ streams, events */

/** HPU_STREAM_QUEUE_AUTO - let hpu_stream_create() pick a DMA queue */
#define HPU_STREAM_QUEUE_AUTO (-1)

/** struct hpu_stream - an in-order queue of asynchronous work (opaque) */
struct hpu_stream;

/** struct hpu_stream_event - a marker recorded in a stream (opaque) */
struct hpu_stream_event;

/**
 * hpu_stream_create() - a stream on a DMA queue
 * @dev: compute handle
 * @queue: DMA queue index, or HPU_STREAM_QUEUE_AUTO (round robin over the
 *	device's DMA queues)
 * @sp: receives the stream
 *
 * A stream is used by one thread at a time. Work is batched in the
 * stream's command buffer and submitted at hpu_event_record(),
 * hpu_stream_synchronize(), hpu_stream_flush() or when the buffer fills.
 *
 * Return: 0; -EINVAL (not a DMA queue); -ENOMEM; -errno.
 */
HPUDRV_EXPORT int hpu_stream_create(struct hpu_device *dev, int queue,
				    struct hpu_stream **sp);

/**
 * hpu_stream_destroy() - synchronize, then release a stream
 * @s: stream or NULL
 */
HPUDRV_EXPORT void hpu_stream_destroy(struct hpu_stream *s);

/** hpu_stream_queue() - queue index of @s */
HPUDRV_EXPORT int hpu_stream_queue(const struct hpu_stream *s);

/**
 * hpu_stream_memcpy_h2d() - copy host memory to device memory
 * @s: stream
 * @dst: device VA
 * @src: host memory; it must stay valid and unchanged until the copy
 *	completed (hpu_stream_synchronize() or an event recorded after)
 * @size: bytes
 *
 * The host range is mapped to the device for the copy and unmapped once
 * the stream observed its completion.
 *
 * Return: 0 or -errno (a failure of the copy itself is reported by
 * hpu_stream_synchronize()).
 */
HPUDRV_EXPORT int hpu_stream_memcpy_h2d(struct hpu_stream *s, uint64_t dst,
					const void *src, size_t size);

/**
 * hpu_stream_memcpy_d2h() - copy device memory to host memory
 * @s: stream
 * @dst: host memory, valid until the copy completed
 * @src: device VA
 * @size: bytes
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memcpy_d2h(struct hpu_stream *s, void *dst,
					uint64_t src, size_t size);

/**
 * hpu_stream_memcpy_d2d() - copy between device VAs
 * @s: stream
 * @dst: device VA
 * @src: device VA
 * @size: bytes
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memcpy_d2d(struct hpu_stream *s, uint64_t dst,
					uint64_t src, size_t size);

/**
 * hpu_stream_memset() - fill device memory
 * @s: stream
 * @dst: device VA aligned to @width
 * @value: pattern
 * @width: 1, 2, 4 or 8 bytes
 * @size: bytes, a multiple of @width
 *
 * Return: 0, -EINVAL or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memset(struct hpu_stream *s, uint64_t dst,
				    uint64_t value, unsigned int width,
				    size_t size);

/**
 * hpu_stream_flush() - submit the batched work now
 * @s: stream
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_flush(struct hpu_stream *s);

/**
 * hpu_stream_synchronize() - submit and wait for all work of @s
 * @s: stream
 *
 * Return: 0; -EIO when a CS of the stream was aborted; -ETIMEDOUT when
 * one timed out; -errno.
 */
HPUDRV_EXPORT int hpu_stream_synchronize(struct hpu_stream *s);

/**
 * hpu_stream_wait_event() - later work of @s waits for @ev
 * @s: stream
 * @ev: event recorded (on any stream of the same device); an event never
 *	recorded is complete
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_wait_event(struct hpu_stream *s,
					struct hpu_stream_event *ev);

/**
 * hpu_event_create() - an event (not yet recorded)
 * @dev: compute handle
 * @evp: receives it
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
HPUDRV_EXPORT int hpu_event_create(struct hpu_device *dev,
				   struct hpu_stream_event **evp);

/** hpu_event_destroy() - release an event (@ev may be NULL) */
HPUDRV_EXPORT void hpu_event_destroy(struct hpu_stream_event *ev);

/**
 * hpu_event_record() - mark the current end of @s's work in @ev
 * @ev: event
 * @s: stream of the same device
 *
 * Submits the stream's batch with HPU_CS_FLAGS_TIMESTAMP.
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_event_record(struct hpu_stream_event *ev,
				   struct hpu_stream *s);

/**
 * hpu_event_query() - whether the work before @ev ended
 * @ev: event
 *
 * Return: 0 when ended (or never recorded); -EBUSY when not yet; -EIO
 * (aborted) or -ETIMEDOUT (timed out) when it failed.
 */
HPUDRV_EXPORT int hpu_event_query(struct hpu_stream_event *ev);

/**
 * hpu_event_synchronize() - wait until the work before @ev ended
 * @ev: event
 *
 * Return: 0, -EIO, -ETIMEDOUT or -errno.
 */
HPUDRV_EXPORT int hpu_event_synchronize(struct hpu_stream_event *ev);

/**
 * hpu_event_elapsed_time() - device time between two completed events
 * @start: earlier event
 * @end: later event
 * @ms: receives the milliseconds between their completions
 *
 * Return: 0; -EBUSY when one has not completed; -ENODATA when one was
 * never recorded or the driver gave no timestamp; -EIO/-ETIMEDOUT.
 */
HPUDRV_EXPORT int hpu_event_elapsed_time(struct hpu_stream_event *start,
					 struct hpu_stream_event *end,
					 float *ms);

/**
 * hpu_stream_set_fences() - order the stream's CSs by fences inside them
 * @s: stream
 * @on: non-zero: fences; 0: WAIT submissions (the default)
 *
 * With fences every CS of @s ends, on each queue it uses, with a signal
 * on a sync object of the stream (hpu_sob_alloc()'s range), and a CS
 * that must follow one of them (the stream's own order, and any stream's
 * hpu_stream_wait_event() of an event recorded in @s, whatever that
 * stream's mode) starts on each of its queues with a FENCE on that
 * count, instead of a WAIT submission before it: one CS less per
 * dependency, and the dependent starts when the producer's last job
 * signalled rather than when the driver handled the producer's end.
 * Three differences follow: a dependent of a CS that fails waits until
 * its own timeout (it then ends TIMEDOUT; with WAIT submissions it ran
 * after the failure); the driver may report the dependent ended before
 * the producer (hpu_event_query() of the producer's event can still say
 * -EBUSY right after the dependent's event completed: the producer's
 * work is done, its end not handled yet); and so the completion times
 * of such a pair are not ordered (hpu_event_elapsed_time() across them
 * may be below 0). HPU_STREAM_FENCE=1 or 0 in the environment overrides
 * @on for every stream. docs/libhpudrv.md, "Stream fences".
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_stream_set_fences(struct hpu_stream *s, int on);

/**
 * hpu_stream_submit() - a multi-queue CS in the order of a stream
 * @s: stream
 * @chunks: jobs (any queues of the stream's device)
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @timeout_ms: the CS's timeout; 0 for the driver's default
 * @seq: receives the CS's sequence number; may be NULL
 *
 * The CS starts only after all work enqueued on @s before it ended, and
 * later work of @s starts only after the CS ended; the call does not
 * block on either. A failure of the CS is reported by
 * hpu_stream_synchronize() or an event recorded after it; through the
 * user-mode ring so is a refusal of its contents by the driver (-EIO),
 * since a stream's CSs do not wait for the driver to take them
 * (docs/libhpudrv.md; HPU_RING_ASYNC=0 makes that the call's -EINVAL).
 *
 * Return: 0, -EINVAL, or -errno of the submission.
 */
HPUDRV_EXPORT int hpu_stream_submit(struct hpu_stream *s,
				    const struct hpu_cs_chunk *chunks,
				    unsigned int n, uint32_t timeout_ms,
				    uint64_t *seq);

/**
 * hpu_stream_device() - device handle of a stream
 * @s: stream
 *
 * Return: the handle given to hpu_stream_create().
 */
HPUDRV_EXPORT struct hpu_device *hpu_stream_device(const struct hpu_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_STREAM_H */
