/* SPDX-License-Identifier: MIT */
/*
 * prof.h - hpu-prof: a Chrome trace event file read into memory
 * (load.c, with json-c; the trace tests' checker reads with it too), its
 * summary tables (report.c) and the merge of several files (main.c). See
 * docs/tracing.md, "hpu-prof".
 */
#ifndef PROF_H
#define PROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROF_PROG "hpu-prof"

#define PROF_EXIT_OK	0
#define PROF_EXIT_FAIL	1
#define PROF_EXIT_USAGE 2 /* bad flags or a file that is not a trace */

/* what a process of the trace is (its "process_labels" metadata) */
enum prof_proc_kind {
	PROF_PROC_OTHER,
	PROF_PROC_HOST,
	PROF_PROC_DEVICE,
	PROF_PROC_MODEL,
};

/* an engine thread's class, from its name */
enum prof_engine_class {
	PROF_ENG_NONE,
	PROF_ENG_DMA,
	PROF_ENG_MME,
	PROF_ENG_TPC,
	PROF_ENG_NIC,
	PROF_ENG_OTHER,
};

/**
 * struct prof_slice - a complete event ("X", or a B/E pair)
 * @pid: process
 * @tid: thread
 * @ts: start, microseconds
 * @dur: duration, microseconds
 * @name: its name (points into the trace's strings)
 * @cat: its category, "" when none (of the E event for a B/E pair)
 */
struct prof_slice {
	int64_t pid;
	int64_t tid;
	double ts;
	double dur;
	const char *name;
	const char *cat;
};

/**
 * struct prof_thread - a named thread
 * @pid: process
 * @tid: thread
 * @name: its thread_name
 */
struct prof_thread {
	int64_t pid;
	int64_t tid;
	const char *name;
};

/**
 * struct prof_proc - a named process
 * @pid: process
 * @name: its process_name ("" when none)
 * @kind: enum prof_proc_kind
 */
struct prof_proc {
	int64_t pid;
	const char *name;
	int kind;
};

/**
 * struct prof_trace - a trace read into memory
 * @root: the json-c document (owns the strings)
 * @slices: complete events
 * @nslices: entries
 * @threads: named threads
 * @nthreads: entries
 * @procs: processes seen (named or not)
 * @nprocs: entries
 * @nevents: events of the file
 */
struct prof_trace {
	void *root;
	struct prof_slice *slices;
	size_t nslices;
	struct prof_thread *threads;
	size_t nthreads;
	struct prof_proc *procs;
	size_t nprocs;
	size_t nevents;
};

/**
 * struct prof_event - one event of the file as prof_load() read it, for
 * the hooks of a stricter reader (the trace tests' checker)
 * @index: its place in the file's event array
 * @ph: its "ph", as written (not empty)
 * @pid: its "pid"
 * @tid: its "tid" (metadata: 0 when it has none)
 * @ts: its "ts" (not for metadata)
 * @dur: its "dur" (X only)
 * @name: its "name", NULL when none
 * @cat: its "cat", NULL when none
 * @json: the event's json_object, for the fields prof_load() passes over
 */
struct prof_event {
	size_t index;
	const char *ph;
	int64_t pid;
	int64_t tid;
	double ts;
	double dur;
	const char *name;
	const char *cat;
	const void *json;
};

/**
 * struct prof_load_hooks - checks beyond prof_load()'s own
 * @event: called for every event that is not metadata, in file order,
 *	once prof_load() has accepted it (an E: matched with its B)
 * @meta: called for every metadata event prof_load() has accepted
 * @ctx: their first argument
 *
 * A hook that refuses the file writes the reason into @err (@len bytes)
 * and returns -EINVAL (or -ENOMEM); prof_load() then returns that.
 * Either hook may be NULL.
 */
struct prof_load_hooks {
	int (*event)(void *ctx, const struct prof_event *ev, char *err,
		     size_t len);
	int (*meta)(void *ctx, const struct prof_event *ev, char *err,
		    size_t len);
	void *ctx;
};

/**
 * prof_load() - read and check a trace file: the reader hpu-prof and the
 * trace tests' checker (tests/lib/hpu_test_trace.c) share
 * @path: the file
 * @hooks: further checks, or NULL
 * @t: receives the trace
 * @err: receives the reason it is not one
 * @len: room in @err
 *
 * Return: 0, -ENOMEM, or -EINVAL (not readable, not JSON, not a trace:
 * @err says which; @t is then empty).
 */
int prof_load(const char *path, const struct prof_load_hooks *hooks,
	      struct prof_trace *t, char *err, size_t len);

/** prof_free() - free what prof_load() made */
void prof_free(struct prof_trace *t);

/** prof_proc_of() - the process entry of @pid, NULL when none */
const struct prof_proc *prof_proc_of(const struct prof_trace *t, int64_t pid);

/** prof_thread_name() - the name of a thread, NULL when none */
const char *prof_thread_name(const struct prof_trace *t, int64_t pid,
			     int64_t tid);

/** prof_engine_class() - the engine class of a thread name */
int prof_engine_class(const char *name);

/**
 * struct prof_opts - what the summary shows
 * @top: rows of the top jobs table
 * @gap_us: shortest idle gap counted
 * @model: the modeled layout's processes instead of the devices'
 */
struct prof_opts {
	unsigned int top;
	double gap_us;
	bool model;
};

/**
 * prof_report() - print the summary tables of @t
 * @t: the trace
 * @o: options
 * @f: where
 *
 * Return: 0 or -ENOMEM.
 */
int prof_report(const struct prof_trace *t, const struct prof_opts *o, FILE *f);

#endif /* PROF_H */
