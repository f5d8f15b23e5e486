/* SPDX-License-Identifier: MIT */
/*
 * profile_internal.h - host spans (profile_spans.c), the Chrome trace
 * event JSON writer (profile_json.c) and the process's profile
 * (profile.c). See docs/tracing.md.
 */
#ifndef HPUDRV_PROFILE_INTERNAL_H
#define HPUDRV_PROFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hpu_trace.h"
#include "hpudrv_profile.h"

/* hpudrv_span.flags */
#define HPUDRV_SPAN_ASYNC (1U << 0) /* hpu_profile_span_add(): no thread */

/**
 * struct hpudrv_span - one host span
 * @begin_ns: CLOCK_MONOTONIC ns
 * @end_ns: CLOCK_MONOTONIC ns, >= @begin_ns
 * @tid: the thread's id (gettid()), 0 for an async span
 * @flags: HPUDRV_SPAN_*
 * @name: NUL-terminated
 * @cat: NUL-terminated
 */
struct hpudrv_span {
	uint64_t begin_ns;
	uint64_t end_ns;
	uint32_t tid;
	uint32_t flags;
	char name[HPU_PROFILE_NAME_LEN + 1];
	char cat[HPU_PROFILE_CAT_LEN + 1];
};

/**
 * struct hpudrv_trace_thread - a host thread's name
 * @tid: gettid()
 * @name: pthread_getname_np()'s, NUL-terminated
 */
struct hpudrv_trace_thread {
	uint32_t tid;
	char name[32];
};

/**
 * struct hpudrv_trace_dev - one traced device and its engine events
 * @index: device index (the trace's pid)
 * @bus_id: PCI bus id
 * @type: e.g. "gaudi2" (lower case)
 * @num_dma: DMA engines (engine ids 0..num_dma-1, docs/firmware-sim.md)
 * @num_mme: MME engines after them
 * @num_tpc: TPC engines after them
 * @num_nic: NIC ports after them
 * @ev: events, any order
 * @nev: entries of @ev
 * @dropped: events the device's rings dropped
 */
struct hpudrv_trace_dev {
	int index;
	char bus_id[32];
	char type[32];
	uint32_t num_dma;
	uint32_t num_mme;
	uint32_t num_tpc;
	uint32_t num_nic;
	const struct hpu_trace_event *ev;
	size_t nev;
	uint64_t dropped;
};

/**
 * struct hpudrv_trace_doc - what one process's trace file holds
 * @os_pid: the process id
 * @rank: its rank ($RANK) or -1
 * @spans: host spans, any order
 * @nspans: entries
 * @spans_dropped: spans a full buffer dropped
 * @threads: names of the threads of @spans
 * @nthreads: entries
 * @devs: traced devices
 * @ndevs: entries
 */
struct hpudrv_trace_doc {
	int os_pid;
	int rank;
	const struct hpudrv_span *spans;
	size_t nspans;
	uint64_t spans_dropped;
	const struct hpudrv_trace_thread *threads;
	size_t nthreads;
	const struct hpudrv_trace_dev *devs;
	size_t ndevs;
};

/* The pids of the file: a device is its index, its modeled layout
 * HPUDRV_TRACE_MODEL_PID + index, the host HPUDRV_TRACE_HOST_PID + pid */
#define HPUDRV_TRACE_MODEL_PID	1000
#define HPUDRV_TRACE_HOST_PID	2000
/* Virtual threads of the host process: CS submissions to device i are
 * on HPUDRV_TRACE_SUBMIT_TID + i, async span lanes from
 * HPUDRV_TRACE_LANE_TID (real thread ids are below 2^22) */
#define HPUDRV_TRACE_SUBMIT_TID 0x40000000U
#define HPUDRV_TRACE_LANE_TID	0x50000000U

/* profile_json.c */
int hpudrv_trace_json_write(FILE *f, const struct hpudrv_trace_doc *doc);
void hpudrv_json_string(FILE *f, const char *s);
const char *hpudrv_trace_kind_name(unsigned int kind);
int hpudrv_trace_engine_name(const struct hpudrv_trace_dev *d, uint32_t engine,
			     char *buf, size_t len);

/* profile_spans.c */
int hpudrv_spans_init(size_t capacity);
void hpudrv_spans_enable(bool on);
size_t hpudrv_spans_snapshot(struct hpudrv_span **out, uint64_t *dropped);
size_t hpudrv_spans_threads(struct hpudrv_trace_thread **out);
void hpudrv_spans_reset(void);
void hpudrv_spans_after_fork(void);

/* profile.c */
int hpudrv_profile_path(const char *pattern, int pid, const char *rank,
			char *buf, size_t len);
void hpudrv_profile_device_open(struct hpu_device *dev);
void hpudrv_profile_device_close(struct hpu_device *dev);
bool hpudrv_profile_want(void);

#endif /* HPUDRV_PROFILE_INTERNAL_H */
