/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_profile.h - libhpudrv: host spans and the process's trace
 * (HPU_PROFILE, Chrome trace event JSON)
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/tracing.md ("Host spans", "HPU_PROFILE", "The JSON file").
 *
 * A process profiles when HPU_PROFILE=path is set when it first opens a
 * device or records a span, or after hpu_profile_start(). Then every
 * compute device it opens is traced (the engine events of its context,
 * uapi/hpu_trace.h), host spans are kept in a bounded buffer, and at the
 * last hpu_close() of a traced device and at exit the whole trace is
 * written to the file as Chrome trace event JSON (Perfetto,
 * chrome://tracing). Span calls cost one relaxed atomic load when the
 * process does not profile.
 */
#ifndef HPU_HPUDRV_PROFILE_H
#define HPU_HPUDRV_PROFILE_H

#include <stdint.h>

#include "hpudrv_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest span name and category kept (longer ones are cut) */
#define HPU_PROFILE_NAME_LEN 47
#define HPU_PROFILE_CAT_LEN  15

/* Host spans kept at most (HPU_PROFILE_SPANS overrides, 1024..4194304) */
#define HPU_PROFILE_DEFAULT_SPANS 262144

/* Spans one thread may have open at once; deeper ones are not recorded */
#define HPU_PROFILE_MAX_DEPTH 32

/**
 * hpu_profile_start() - profile this process into @path
 * @path: the JSON file; "%p" in it becomes the process id, "%r" the
 *	rank ($RANK, else 0), "%%" a '%'
 *
 * Devices opened from now on are traced; devices open already are not.
 * A process profiles into one file: a second call while profiling
 * fails.
 *
 * Return: 0, -EINVAL (NULL or empty @path, a bad '%' sequence), -EBUSY
 * (profiling already), -ENOMEM.
 */
HPUDRV_EXPORT int hpu_profile_start(const char *path);

/**
 * hpu_profile_write() - write the trace so far to the profile's file now
 *
 * Drains the engine events of the traced devices still open first. The
 * file is rewritten whole each time (also at the last close and at exit).
 *
 * Return: 0, -ENOENT (not profiling) or the -errno of writing the file.
 */
HPUDRV_EXPORT int hpu_profile_write(void);

/**
 * hpu_profile_enabled() - whether this process profiles
 *
 * Return: 1 or 0.
 */
HPUDRV_EXPORT int hpu_profile_enabled(void);

/**
 * hpu_profile_now_ns() - CLOCK_MONOTONIC in nanoseconds, the clock of
 * spans and engine events
 */
HPUDRV_EXPORT uint64_t hpu_profile_now_ns(void);

/**
 * hpu_profile_span_begin() - open a span on the calling thread
 * @name: what runs, e.g. "forward" (copied; NULL: "?")
 * @category: its kind, e.g. "train" (copied; NULL: "host")
 *
 * Spans of a thread nest: hpu_profile_span_end() closes the innermost.
 * Thread safe. Does nothing when the process does not profile.
 */
HPUDRV_EXPORT void hpu_profile_span_begin(const char *name,
					  const char *category);

/**
 * hpu_profile_span_end() - close the calling thread's innermost span
 *
 * A full buffer drops the span and counts it ("host_spans_dropped" in
 * the file). Without an open span, does nothing.
 */
HPUDRV_EXPORT void hpu_profile_span_end(void);

/**
 * hpu_profile_span_add() - record a span that is not a thread's, such as
 * an asynchronous collective from its launch to its completion
 * @name: e.g. "allreduce bucket 2" (copied)
 * @category: e.g. "allreduce" (copied; NULL: "async")
 * @begin_ns: start, hpu_profile_now_ns()
 * @end_ns: end, >= @begin_ns
 *
 * Such spans may overlap each other: the file lays them out on lanes of
 * their own ("<category> 0", "<category> 1", ...) in the host process.
 */
HPUDRV_EXPORT void hpu_profile_span_add(const char *name, const char *category,
					uint64_t begin_ns, uint64_t end_ns);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_PROFILE_H */
