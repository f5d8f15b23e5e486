/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_trace.h - the trace tests' checker of Chrome trace event JSON
 * (docs/tracing.md, "The JSON file"), read with hpu-prof's reader
 * (prof_load()) and json-c: the fields each "ph"
 * requires, begin/end matched per thread, complete events nested per
 * thread, timestamps in order per thread, flows paired (one start, one
 * end, the end not before the start), metadata with its names; then
 * what the tests look at: the slices, the processes and their labels.
 */
#ifndef HPU_TEST_TRACE_H
#define HPU_TEST_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../tools/hpu-prof/prof.h"

/**
 * struct hpu_test_trace - a checked trace
 * @root: the json-c document
 * @events: events in the file
 * @slices: complete events (and matched B/E pairs), in file order
 * @nslices: entries
 * @flows: flows paired
 * @device_procs: processes labelled "device"
 * @model_procs: processes labelled "model"
 * @host_procs: processes labelled "host"
 * @prof: what prof_load() read (owns @root and @slices)
 * @err: why the file is not a valid trace
 */
struct hpu_test_trace {
	void *root;
	size_t events;
	const struct prof_slice *slices;
	size_t nslices;
	size_t flows;
	size_t device_procs;
	size_t model_procs;
	size_t host_procs;
	struct prof_trace prof;
	char err[512];
};

/**
 * hpu_test_trace_check() - read and check a trace file
 * @path: the file
 * @t: receives the trace (hpu_test_trace_free() it in every case)
 *
 * Return: 0 when the file is a valid trace, -1 with @t->err saying why.
 */
int hpu_test_trace_check(const char *path, struct hpu_test_trace *t);

/** hpu_test_trace_free() - free what hpu_test_trace_check() made */
void hpu_test_trace_free(struct hpu_test_trace *t);

/**
 * hpu_test_trace_engine() - the engine a slice ran on
 * @t: a checked trace
 * @s: one of its slices
 *
 * Return: the thread_name of @s's thread when its process is a device or
 * model one (labelled so), else NULL.
 */
const char *hpu_test_trace_engine(const struct hpu_test_trace *t,
				  const struct prof_slice *s);

/**
 * hpu_test_trace_overlaps() - whether a slice named @a (prefix) and one
 * named @b (prefix) of the same process overlap in time
 * @t: a checked trace
 * @a: name prefix, e.g. "allreduce"
 * @b: name prefix, e.g. "backward"
 * @pids: receives how many processes have such an overlap
 *
 * Return: @pids > 0.
 */
bool hpu_test_trace_overlaps(const struct hpu_test_trace *t, const char *a,
			     const char *b, size_t *pids);

#endif /* HPU_TEST_TRACE_H */
