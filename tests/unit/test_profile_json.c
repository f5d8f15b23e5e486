// SPDX-License-Identifier: MIT
/*
 * test_profile_json.c - libhpudrv's trace writer and host spans with
 * synthetic events (no daemon): JSON string escaping, the file checked
 * by the trace-event checker (fields, nesting, order per thread, flows,
 * names), engine thread names, the modeled layout (queue order, sync
 * object waits, the measured time where the model has none), the span
 * buffer's bound (drop and count), spans from several threads, and the
 * HPU_PROFILE path's % sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../libhpudrv/profile_internal.h"
#include "hpudrv.h"
#include "../lib/hpu_test_trace.h"

/* a Gaudi2's engine counts (docs/firmware-sim.md "Engine ids") */
#define G2_DMA	   2
#define G2_MME	   2
#define G2_TPC	   24
#define G2_NIC	   24
#define ENG_MME(i) (G2_DMA + (i))
#define ENG_TPC(i) (G2_DMA + G2_MME + (i))
#define ENG_NIC(i) (G2_DMA + G2_MME + G2_TPC + (i))

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	hpudrv_json_string(f, s);
	fclose(f);
	return buf;
}

static void test_escape(void **state)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "tab\tnl\n\x01", "\"tab\\u0009nl\\u000a\\u0001\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "bad\xff\xc3", "\"bad\\ufffd\\ufffd\"" },
		{ "", "\"\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = escaped(cases[i].in);
		json_object *o;

		assert_string_equal(s, cases[i].out);
		/* and a JSON parser reads it back as one string */
		o = json_tokener_parse(s);
		assert_non_null(o);
		assert_true(json_object_is_type(o, json_type_string));
		json_object_put(o);
		free(s);
	}
}

static void test_engine_names(void **state)
{
	struct hpudrv_trace_dev d = { .num_dma = G2_DMA,
				      .num_mme = G2_MME,
				      .num_tpc = G2_TPC,
				      .num_nic = G2_NIC };
	char b[32];

	(void)state;
	hpudrv_trace_engine_name(&d, 0, b, sizeof(b));
	assert_string_equal(b, "DMA 0");
	hpudrv_trace_engine_name(&d, ENG_MME(1), b, sizeof(b));
	assert_string_equal(b, "MME 1");
	hpudrv_trace_engine_name(&d, ENG_TPC(7), b, sizeof(b));
	assert_string_equal(b, "TPC 7");
	hpudrv_trace_engine_name(&d, ENG_NIC(3), b, sizeof(b));
	assert_string_equal(b, "NIC port 3");
	hpudrv_trace_engine_name(&d, ENG_NIC(G2_NIC), b, sizeof(b));
	assert_string_equal(b, "engine 52");
}

static struct hpu_trace_event ev(uint32_t engine, uint16_t kind, uint64_t seq,
				 uint64_t submit, uint64_t start, uint64_t end,
				 uint64_t model_ns)
{
	return (struct hpu_trace_event){ .submit_ns = submit,
					 .start_ns = start,
					 .end_ns = end,
					 .cs_seq = seq,
					 .bytes = 4096,
					 .flops = kind == HPU_TRACE_KIND_GEMM ?
							  1000000 :
							  0,
					 .model_ns = model_ns,
					 .engine = engine,
					 .kind = kind,
					 .fence_sob = ~0U,
					 .signal_sob = ~0U };
}

static void test_model_layout(void **state)
{
	struct hpu_trace_event e[5];
	uint64_t s[5], t[5];

	(void)state;
	/* two jobs on MME 0 submitted together: the second waits for the
	 * first's modeled end, not its host end */
	e[0] = ev(ENG_MME(0), HPU_TRACE_KIND_GEMM, 1, 1000, 1100, 9000, 500);
	e[1] = ev(ENG_MME(0), HPU_TRACE_KIND_GEMM, 1, 1000, 9000, 20000, 700);
	/* a TPC job that waited on the sync object the second GEMM
	 * signalled, submitted before that GEMM ended */
	e[1].flags = HPU_TRACE_EV_SIGNALLED;
	e[1].signal_sob = 17;
	e[2] = ev(ENG_TPC(0), HPU_TRACE_KIND_TPC, 2, 1200, 20100, 21000, 50);
	e[2].flags = HPU_TRACE_EV_WAITED;
	e[2].fence_sob = 17;
	/* a DMA job with no model figure: its measured 300 ns */
	e[3] = ev(0, HPU_TRACE_KIND_DMA, 3, 30000, 30100, 30400, 0);
	/* a NIC job submitted later than the queue is free: from submission */
	e[4] = ev(ENG_NIC(0), HPU_TRACE_KIND_NIC, 4, 40000, 40010, 50000, 900);
	assert_int_equal(
		hpu_trace_model_layout(e, 5, HPU_TRACE_LAYOUT_HOST, s, t), 0);
	assert_int_equal(s[0], 1000);
	assert_int_equal(t[0], 1500);
	assert_int_equal(s[1], 1500);
	assert_int_equal(t[1], 2200);
	assert_int_equal(s[2], 2200);
	assert_int_equal(t[2], 2250);
	assert_int_equal(s[3], 30000);
	assert_int_equal(t[3], 30300);
	assert_int_equal(s[4], 40000);
	assert_int_equal(t[4], 40900);
}

/*
 * HPU_TRACE_LAYOUT_DEVICE (hpu-train --benchmark's modeled step): host
 * times do not matter, submissions follow one another, sync objects and
 * queue order hold, a job without a figure takes no time
 */
static void test_model_layout_device(void **state)
{
	struct hpu_trace_event e[5], f[5];
	uint64_t s[5], t[5], s2[5], t2[5];
	size_t i;

	(void)state;
	/* CS 1: a GEMM signalling 17, a TPC job waiting on it, a DMA job
	 * beside them; the events in any order */
	e[0] = ev(ENG_TPC(0), HPU_TRACE_KIND_TPC, 1, 1000, 1200, 1300, 50);
	e[0].flags = HPU_TRACE_EV_WAITED;
	e[0].fence_sob = 17;
	e[1] = ev(ENG_MME(0), HPU_TRACE_KIND_GEMM, 1, 1000, 1100, 1150, 500);
	e[1].flags = HPU_TRACE_EV_SIGNALLED;
	e[1].signal_sob = 17;
	e[2] = ev(0, HPU_TRACE_KIND_DMA, 1, 1000, 1010, 1020, 100);
	/* CS 2, long after on the host: a sync job (no figure, 5 us
	 * measured) and a DMA job on another queue */
	e[3] = ev(ENG_TPC(1), HPU_TRACE_KIND_SYNC, 2, 90000, 90000, 95000, 0);
	e[4] = ev(1, HPU_TRACE_KIND_DMA, 2, 90000, 96000, 99000, 30);
	assert_int_equal(
		hpu_trace_model_layout(e, 5, HPU_TRACE_LAYOUT_DEVICE, s, t), 0);
	/* GEMM 0..500, TPC after it 500..550, DMA 0..100 */
	assert_int_equal(s[1], 0);
	assert_int_equal(t[1], 500);
	assert_int_equal(s[0], 500);
	assert_int_equal(t[0], 550);
	assert_int_equal(s[2], 0);
	assert_int_equal(t[2], 100);
	/* CS 2 starts when CS 1 ended (550), the sync job takes 0 */
	assert_int_equal(s[3], 550);
	assert_int_equal(t[3], 550);
	assert_int_equal(s[4], 550);
	assert_int_equal(t[4], 580);
	/* other host times, another order: the same layout */
	for (i = 0; i < 5; i++) {
		f[4 - i] = e[i];
		f[4 - i].submit_ns += 12345 * (i + 1);
		f[4 - i].start_ns += 23456 * (i + 1);
		f[4 - i].end_ns += 99999 * (i + 1);
	}
	assert_int_equal(hpu_trace_model_layout(f, 5, HPU_TRACE_LAYOUT_DEVICE,
						s2, t2),
			 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(s2[4 - i], s[i]);
		assert_int_equal(t2[4 - i], t[i]);
	}
	/* bad calls */
	assert_int_equal(hpu_trace_model_layout(e, 5, 2, s, t), -EINVAL);
	assert_int_equal(hpu_trace_model_layout(NULL, 5,
						HPU_TRACE_LAYOUT_DEVICE, s, t),
			 -EINVAL);
	assert_int_equal(hpu_trace_model_layout(e, 5, HPU_TRACE_LAYOUT_HOST,
						NULL, t),
			 -EINVAL);
	assert_int_equal(hpu_trace_model_layout(
				 NULL, 0, HPU_TRACE_LAYOUT_DEVICE, NULL, NULL),
			 0);
}

static char tmp_path[64];

static void write_doc(const struct hpudrv_trace_doc *doc)
{
	FILE *f;
	int fd;

	strcpy(tmp_path, "/tmp/test_profile_json.XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(hpudrv_trace_json_write(f, doc), 0);
	assert_int_equal(fclose(f), 0);
}

static size_t count_slices(const struct hpu_test_trace *t, int64_t pid,
			   const char *engine)
{
	size_t i, n = 0;

	for (i = 0; i < t->nslices; i++) {
		const char *e = hpu_test_trace_engine(t, &t->slices[i]);

		if (t->slices[i].pid == pid &&
		    (!engine || (e && !strcmp(e, engine))))
			n++;
	}
	return n;
}

static void test_synthetic_file(void **state)
{
	struct hpu_trace_event e0[4], e1[2];
	struct hpudrv_span spans[5] = { 0 };
	struct hpudrv_trace_thread th[1] = { { 4242, "main \"thread\"" } };
	struct hpudrv_trace_dev devs[2] = {
		{ .index = 0,
		  .bus_id = "0000:19:00.0",
		  .type = "gaudi2",
		  .num_dma = G2_DMA,
		  .num_mme = G2_MME,
		  .num_tpc = G2_TPC,
		  .num_nic = G2_NIC,
		  .ev = e0,
		  .nev = 4 },
		{ .index = 3,
		  .bus_id = "0000:1a:00.0",
		  .type = "gaudi2",
		  .num_dma = G2_DMA,
		  .num_mme = G2_MME,
		  .num_tpc = G2_TPC,
		  .num_nic = G2_NIC,
		  .ev = e1,
		  .nev = 2,
		  .dropped = 5 },
	};
	struct hpudrv_trace_doc doc = {
		.os_pid = 777,
		.rank = 1,
		.spans = spans,
		.nspans = 5,
		.spans_dropped = 2,
		.threads = th,
		.nthreads = 1,
		.devs = devs,
		.ndevs = 2,
	};
	struct hpu_test_trace t;
	json_object *other, *v;
	size_t n;

	(void)state;
	/* out of order on purpose: the writer sorts per thread */
	e0[0] = ev(ENG_TPC(7), HPU_TRACE_KIND_TPC, 2, 5000, 6000, 7000, 100);
	e0[1] = ev(ENG_MME(1), HPU_TRACE_KIND_GEMM, 1, 1000, 2000, 4000, 300);
	e0[2] = ev(ENG_MME(1), HPU_TRACE_KIND_GEMM, 1, 1000, 4000, 4500, 300);
	e0[3] = ev(ENG_NIC(3), HPU_TRACE_KIND_NIC, 3, 1500, 2500, 3500, 50);
	e1[0] = ev(0, HPU_TRACE_KIND_DMA, 1, 100, 200, 900, 0);
	e1[1] = ev(ENG_NIC(3), HPU_TRACE_KIND_NIC, 2, 150, 950, 1900, 40);
	/* nested spans of one thread, a name to escape, two async spans
	 * that overlap (two lanes) */
	spans[0] = (struct hpudrv_span){ 1000, 9000,	   4242,
					 0,    "backward", "train" };
	spans[1] = (struct hpudrv_span){ 1200, 2000,	    4242,
					 0,    "in\"ner\\", "train" };
	spans[2] =
		(struct hpudrv_span){ 1100, 1150, 4242, 0, "first", "train" };
	spans[3] = (struct hpudrv_span){
		1500,	    8000, 0, HPUDRV_SPAN_ASYNC, "allreduce bucket 0",
		"allreduce"
	};
	spans[4] = (struct hpudrv_span){
		1600,	    8500, 0, HPUDRV_SPAN_ASYNC, "allreduce bucket 1",
		"allreduce"
	};
	write_doc(&doc);
	if (hpu_test_trace_check(tmp_path, &t))
		fail_msg("%s", t.err);
	assert_int_equal(t.device_procs, 2);
	assert_int_equal(t.model_procs, 2);
	assert_int_equal(t.host_procs, 1);
	/* a flow per job, each paired */
	assert_int_equal(t.flows, 6);
	/* each job twice (host time, model time) and its submission */
	assert_int_equal(count_slices(&t, 0, NULL), 4);
	assert_int_equal(count_slices(&t, 0, "MME 1"), 2);
	assert_int_equal(count_slices(&t, 0, "TPC 7"), 1);
	assert_int_equal(count_slices(&t, 0, "NIC port 3"), 1);
	assert_int_equal(count_slices(&t, 3, "DMA 0"), 1);
	assert_int_equal(count_slices(&t, HPUDRV_TRACE_MODEL_PID + 3, NULL), 2);
	assert_int_equal(count_slices(&t, HPUDRV_TRACE_HOST_PID + 777, NULL),
			 5 + 6);
	assert_true(hpu_test_trace_overlaps(&t, "allreduce", "backward", &n));
	assert_int_equal(n, 1);
	/* the dropped counts reach the file */
	assert_true(json_object_object_get_ex(t.root, "otherData", &other));
	assert_true(json_object_object_get_ex(other, "host_spans_dropped", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	assert_true(
		json_object_object_get_ex(other, "device_events_dropped", &v));
	assert_int_equal(json_object_get_int64(v), 5);
	hpu_test_trace_free(&t);
	unlink(tmp_path);
}

/* ts/dur keep nanoseconds: 1234567 ns is 1234.567 us */
/* the checker the trace tests rely on refuses what viewers mis-draw */
static void test_checker_refuses(void **state)
{
#define META                                                                 \
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,"                 \
	"\"args\":{\"name\":\"p\"}},{\"ph\":\"M\",\"name\":\"thread_name\"," \
	"\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}},"
#define X(ts, dur)                                                     \
	"{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
	",\"dur\":" #dur "}"
	static const struct {
		const char *json;
		const char *err;
	} cases[] = {
		{ "{\"traceEvents\":[" META X(1, 5) "," X(2, 1) "]}", NULL },
		{ "{\"traceEvents\":[" META X(5, 1) "," X(2, 1) "]}",
		  "before the thread's previous" },
		{ "{\"traceEvents\":[" META X(1, 5) "," X(2, 9) "]}",
		  "without nesting" },
		{ "{\"traceEvents\":[" X(1, 5) "]}", "no thread_name" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3}]}",
		  "E without a B" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3}]}",
		  "a B never ended" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"s\",\"cat\":\"c\",\"id\":7,\"pid\":1,\"tid\":1,"
		  "\"ts\":3}]}",
		  "1 starts and 0 ends" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}]}",
		  "X without a name" },
		{ "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\","
		  "\"pid\":1,\"args\":{\"name\":\"t\"}}]}",
		  "without tid" },
		/* hpu-prof takes a bare array; the checker wants the object */
		{ "[" META X(1, 5) "]", "no traceEvents array" },
		{ "{\"traceEvents\":[" META X(-1, 1) "]}", "\"ts\" >= 0" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"XX\",\"name\":\"x\",\"pid\":1,\"tid\":1,"
		  "\"ts\":3,\"dur\":1}]}",
		  "no one-letter" },
		{ "{\"traceEvents\":[{\"ph\":\"MM\",\"name\":\"process_name\","
		  "\"pid\":1,\"args\":{\"name\":\"p\"}}]}",
		  "no one-letter" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"Q\",\"name\":\"q\",\"pid\":1,\"tid\":1,"
		  "\"ts\":3}]}",
		  "unknown ph" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":3}]}",
		  "no name" },
		{ "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"bogus\","
		  "\"pid\":1,\"args\":{}}]}",
		  "unknown metadata" },
		{ "{\"traceEvents\":[{\"ph\":\"M\",\"name\":"
		  "\"process_sort_index\",\"pid\":1,"
		  "\"args\":{\"sort_index\":\"x\"}}]}",
		  "of the wrong type" },
		{ "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\","
		  "\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}," X(1,
								      5) "]}",
		  "no process_name" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":3}]}",
		  "without a cat" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"s\",\"cat\":\"c\",\"id\":7,\"pid\":1,\"tid\":1,"
		  "\"ts\":5},{\"ph\":\"f\",\"cat\":\"c\",\"id\":7,\"pid\":1,"
		  "\"tid\":2,\"ts\":3}]}",
		  "ends before it starts" },
		{ "{\"traceEvents\":[" META
		  "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5},"
		  "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3}]}",
		  "E before its B" },
	};
	struct hpu_test_trace t;
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(tmp_path, "/tmp/test_profile_json.XXXXXX");
		f = fdopen(mkstemp(tmp_path), "w");
		assert_non_null(f);
		fputs(cases[i].json, f);
		fclose(f);
		if (!cases[i].err) {
			if (hpu_test_trace_check(tmp_path, &t))
				fail_msg("case %zu: %s", i, t.err);
		} else {
			assert_int_equal(hpu_test_trace_check(tmp_path, &t),
					 -1);
			if (!strstr(t.err, cases[i].err))
				fail_msg("case %zu: '%s' lacks '%s'", i, t.err,
					 cases[i].err);
		}
		hpu_test_trace_free(&t);
		unlink(tmp_path);
	}
#undef X
#undef META
}

static void test_ns_precision(void **state)
{
	struct hpu_trace_event e =
		ev(0, HPU_TRACE_KIND_DMA, 1, 1234000, 1234567, 1235568, 0);
	struct hpudrv_trace_dev d = {
		.index = 0, .type = "gaudi2", .num_dma = 1, .ev = &e, .nev = 1
	};
	struct hpudrv_trace_doc doc = {
		.os_pid = 1, .rank = -1, .devs = &d, .ndevs = 1
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(hpudrv_trace_json_write(f, &doc), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"pid\":0,\"tid\":1,\"ts\":1234.567,"
				    "\"dur\":1.001"));
	assert_non_null(strstr(buf, "\"name\":\"host (pid 1)\""));
	free(buf);
}

static void test_span_bound(void **state)
{
	struct hpudrv_span *s;
	uint64_t dropped;
	size_t n, i;

	(void)state;
	assert_int_equal(hpudrv_spans_init(4), 0);
	hpudrv_spans_enable(true);
	hpu_profile_span_begin("outer", "t");
	for (i = 0; i < 9; i++) {
		hpu_profile_span_begin("inner", NULL);
		hpu_profile_span_end();
	}
	hpu_profile_span_end();
	/* an end without a begin changes nothing */
	hpu_profile_span_end();
	n = hpudrv_spans_snapshot(&s, &dropped);
	assert_int_equal(n, 4);
	assert_int_equal(dropped, 6);
	for (i = 0; i < n; i++) {
		assert_string_equal(s[i].name, "inner");
		assert_string_equal(s[i].cat, "host");
		assert_true(s[i].end_ns >= s[i].begin_ns);
		assert_int_equal(s[i].tid, (uint32_t)gettid());
	}
	free(s);
	hpudrv_spans_reset();
}

static void test_span_off(void **state)
{
	struct hpudrv_span *s;
	uint64_t dropped;

	(void)state;
	assert_int_equal(hpudrv_spans_init(16), 0);
	hpudrv_spans_enable(false);
	hpu_profile_span_begin("x", "y");
	hpu_profile_span_end();
	hpu_profile_span_add("a", "b", 1, 2);
	assert_int_equal(hpudrv_spans_snapshot(&s, &dropped), 0);
	assert_int_equal(dropped, 0);
	hpudrv_spans_reset();
}

#define THREADS	   4
#define PER_THREAD 200

static void *span_thread(void *arg)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "worker %ld with a long name to cut",
		 (long)(intptr_t)arg);
	for (i = 0; i < PER_THREAD; i++) {
		hpu_profile_span_begin(name, "work");
		hpu_profile_span_add("async", NULL, 10, 5);
		hpu_profile_span_end();
	}
	return NULL;
}

static void test_span_threads(void **state)
{
	struct hpudrv_trace_thread *th;
	pthread_t t[THREADS];
	struct hpudrv_span *s;
	uint64_t dropped;
	size_t n, i, async = 0;

	(void)state;
	assert_int_equal(hpudrv_spans_init(THREADS * PER_THREAD * 2), 0);
	hpudrv_spans_enable(true);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, span_thread,
						(void *)(intptr_t)i),
				 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	n = hpudrv_spans_snapshot(&s, &dropped);
	assert_int_equal(n, THREADS * PER_THREAD * 2);
	assert_int_equal(dropped, 0);
	for (i = 0; i < n; i++) {
		assert_true(strlen(s[i].name) <= HPU_PROFILE_NAME_LEN);
		if (s[i].flags & HPUDRV_SPAN_ASYNC) {
			async++;
			/* an end before the begin is clamped */
			assert_int_equal(s[i].end_ns, s[i].begin_ns);
			assert_string_equal(s[i].cat, "async");
		}
	}
	assert_int_equal(async, THREADS * PER_THREAD);
	free(s);
	assert_int_equal(hpudrv_spans_threads(&th), THREADS);
	free(th);
	hpudrv_spans_reset();
}

static void test_profile_path(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(
		hpudrv_profile_path("t.%p.json", 42, "3", b, sizeof(b)), 0);
	assert_string_equal(b, "t.42.json");
	assert_int_equal(
		hpudrv_profile_path("r%r-%%-%p", 7, "12", b, sizeof(b)), 0);
	assert_string_equal(b, "r12-%-7");
	assert_int_equal(hpudrv_profile_path("x%q", 1, "0", b, sizeof(b)),
			 -EINVAL);
	assert_int_equal(hpudrv_profile_path("x%", 1, "0", b, sizeof(b)),
			 -EINVAL);
	assert_int_equal(hpudrv_profile_path("", 1, "0", b, sizeof(b)),
			 -EINVAL);
	assert_int_equal(hpudrv_profile_path("abcdef%p", 123456, "0", b, 8),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_engine_names),
		cmocka_unit_test(test_model_layout),
		cmocka_unit_test(test_model_layout_device),
		cmocka_unit_test(test_synthetic_file),
		cmocka_unit_test(test_checker_refuses),
		cmocka_unit_test(test_ns_precision),
		cmocka_unit_test(test_span_bound),
		cmocka_unit_test(test_span_off),
		cmocka_unit_test(test_span_threads),
		cmocka_unit_test(test_profile_path),
	};

	/* HPU_PROFILE of the environment must not turn this process's
	 * spans on behind the tests' backs */
	unsetenv("HPU_PROFILE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
