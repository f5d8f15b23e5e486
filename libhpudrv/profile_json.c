// SPDX-License-Identifier: MIT
/*
 * profile_json.c - a process's trace as Chrome trace event JSON
 * (docs/tracing.md, "The JSON file"): Perfetto and chrome://tracing open
 * it, hpu-prof summarizes it.
 *
 *   pid i                      device index i: one thread per engine
 *                              queue ("DMA 0", "MME 1", "TPC 7",
 *                              "NIC port 3"), a job a complete event
 *   pid 1000 + i               the same jobs on modeled device time
 *                              ("gaudi2 model")
 *   pid 2000 + process id      the host: a thread per thread of spans,
 *                              "CS submit hpuN" threads with a flow from
 *                              each job's submission to its engine job,
 *                              lanes of asynchronous spans
 *
 * Times are microseconds with three decimals (nanoseconds). Every event
 * is one line of its own and the file begins with the line
 * {"traceEvents":[ so that files of several ranks are merged line by line
 * (hpu-train --profiler hpu). Within a thread, events are in order of
 * time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpudrv_internal.h"
#include "hputpc_check.h"
#include "profile_internal.h"

enum rec_kind {
	REC_JOB,	/* a device job on its engine thread */
	REC_FLOW_END,	/* the flow's end at the job's start */
	REC_MODEL,	/* the job on modeled time */
	REC_SUBMIT,	/* the job's submission on the host */
	REC_FLOW_START, /* the flow's start at the submission */
	REC_SPAN,	/* a host span */
};

/* one event of the file, before sorting */
struct rec {
	int pid;
	uint32_t tid;
	uint64_t ts;
	uint64_t dur;
	uint8_t kind;
	uint32_t dev;  /* REC_JOB..REC_FLOW_START: index into doc->devs */
	size_t idx;    /* event (sorted) or span index */
	uint64_t flow; /* flow id */
};

struct writer {
	const struct hpudrv_trace_doc *doc;
	struct hpu_trace_event **ev; /* per device, sorted by start */
	uint64_t **mstart;	     /* per device: modeled start and end */
	uint64_t **mend;
	struct rec *r;
	size_t n;
	size_t cap;
	uint32_t *lane_tid; /* per span: its async lane thread */
	uint32_t nlanes;
	char (*lane_cat)[HPU_PROFILE_CAT_LEN + 1];
	bool first;
};

void hpudrv_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int need, k;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			p++;
			continue;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc(c, f);
			p++;
			continue;
		}
		/* UTF-8 passes whole; any other byte is U+FFFD */
		need = c >= 0xc2 && c <= 0xdf ? 1 :
		       c >= 0xe0 && c <= 0xef ? 2 :
		       c >= 0xf0 && c <= 0xf4 ? 3 :
						0;
		for (k = 1; need && k <= need; k++)
			if ((p[k] & 0xc0) != 0x80)
				need = 0;
		if (!need) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		fwrite(p, 1, need + 1, f);
		p += need + 1;
	}
	fputc('"', f);
}

const char *hpudrv_trace_kind_name(unsigned int kind)
{
	static const char *const names[HPU_TRACE_KIND_NR] = {
		[HPU_TRACE_KIND_DMA] = "dma",
		[HPU_TRACE_KIND_MEMSET] = "memset",
		[HPU_TRACE_KIND_GEMM] = "gemm",
		[HPU_TRACE_KIND_TPC] = "tpc",
		[HPU_TRACE_KIND_NIC] = "nic",
		[HPU_TRACE_KIND_SYNC] = "sync",
		[HPU_TRACE_KIND_MIXED] = "mixed",
	};

	return kind < HPU_TRACE_KIND_NR ? names[kind] : "unknown";
}

int hpudrv_trace_engine_name(const struct hpudrv_trace_dev *d, uint32_t engine,
			     char *buf, size_t len)
{
	uint32_t e = engine;

	if (e < d->num_dma)
		return snprintf(buf, len, "DMA %u", e);
	e -= d->num_dma;
	if (e < d->num_mme)
		return snprintf(buf, len, "MME %u", e);
	e -= d->num_mme;
	if (e < d->num_tpc)
		return snprintf(buf, len, "TPC %u", e);
	e -= d->num_tpc;
	if (e < d->num_nic)
		return snprintf(buf, len, "NIC port %u", e);
	return snprintf(buf, len, "engine %u", engine);
}

/* "gemm", "tpc add" (the kernel's name), "nic write" */
static void job_name(const struct hpu_trace_event *e, char *buf, size_t len)
{
	const char *k;

	switch (e->kind) {
	case HPU_TRACE_KIND_TPC:
		k = hputpc_kernel_name(e->detail);
		if (k)
			snprintf(buf, len, "tpc %s", k);
		else
			snprintf(buf, len, "tpc kernel %u", e->detail);
		return;
	case HPU_TRACE_KIND_NIC:
		snprintf(buf, len, "nic write");
		return;
	default:
		snprintf(buf, len, "%s", hpudrv_trace_kind_name(e->kind));
	}
}

/* ---------------------------------------------------------- records */

static int add(struct writer *w, const struct rec *r)
{
	struct rec *n;

	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;

		n = realloc(w->r, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->r = n;
		w->cap = cap;
	}
	w->r[w->n++] = *r;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct hpu_trace_event *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->engine != y->engine)
		return x->engine < y->engine ? -1 : 1;
	return x->cs_seq < y->cs_seq ? -1 : x->cs_seq > y->cs_seq;
}

/* within a thread: by time; at one time the longer slice first (it
 * encloses the shorter), flows after the slice they bind to */
static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	bool fx, fy;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	fx = x->kind == REC_FLOW_START || x->kind == REC_FLOW_END;
	fy = y->kind == REC_FLOW_START || y->kind == REC_FLOW_END;
	if (fx != fy)
		return fx ? 1 : -1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int host_pid(const struct hpudrv_trace_doc *doc)
{
	return HPUDRV_TRACE_HOST_PID + doc->os_pid;
}

static int add_device(struct writer *w, uint32_t di, uint64_t *flow)
{
	const struct hpudrv_trace_dev *d = &w->doc->devs[di];
	struct hpu_trace_event *ev;
	size_t i;
	int ret;

	ev = malloc((d->nev ? d->nev : 1) * sizeof(*ev));
	w->mstart[di] = malloc((d->nev ? d->nev : 1) * sizeof(uint64_t));
	w->mend[di] = malloc((d->nev ? d->nev : 1) * sizeof(uint64_t));
	w->ev[di] = ev;
	if (!ev || !w->mstart[di] || !w->mend[di])
		return -ENOMEM;
	if (d->nev)
		memcpy(ev, d->ev, d->nev * sizeof(*ev));
	if (d->nev)
		qsort(ev, d->nev, sizeof(*ev), cmp_start);
	ret = hpu_trace_model_layout(ev, d->nev, HPU_TRACE_LAYOUT_HOST,
				     w->mstart[di], w->mend[di]);
	if (ret)
		return ret;
	for (i = 0; i < d->nev; i++) {
		const struct hpu_trace_event *e = &ev[i];
		uint64_t end = e->end_ns > e->start_ns ? e->end_ns :
							 e->start_ns;
		uint64_t sub = e->submit_ns < e->start_ns ? e->submit_ns :
							    e->start_ns;
		struct rec r = { .dev = di, .idx = i };

		r.pid = d->index;
		r.tid = e->engine + 1;
		r.ts = e->start_ns;
		r.dur = end - e->start_ns;
		r.kind = REC_JOB;
		ret = add(w, &r);
		r.kind = REC_FLOW_END;
		r.flow = ++*flow;
		r.dur = 0;
		ret = ret ?: add(w, &r);
		r.pid = host_pid(w->doc);
		r.tid = HPUDRV_TRACE_SUBMIT_TID + (uint32_t)d->index;
		r.ts = sub;
		r.kind = REC_FLOW_START;
		ret = ret ?: add(w, &r);
		r.kind = REC_SUBMIT;
		r.flow = 0;
		ret = ret ?: add(w, &r);
		r.pid = HPUDRV_TRACE_MODEL_PID + d->index;
		r.tid = e->engine + 1;
		r.ts = w->mstart[di][i];
		r.dur = w->mend[di][i] - w->mstart[di][i];
		r.kind = REC_MODEL;
		ret = ret ?: add(w, &r);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_span_begin(const void *a, const void *b)
{
	const struct hpudrv_span *const *x = a, *const *y = b;

	if ((*x)->begin_ns != (*y)->begin_ns)
		return (*x)->begin_ns < (*y)->begin_ns ? -1 : 1;
	return (*x)->end_ns > (*y)->end_ns ? -1 : (*x)->end_ns < (*y)->end_ns;
}

/* async spans on lanes: each lane of a category holds spans that do not
 * overlap, a span takes the first lane of its category free at its start */
static int place_async(struct writer *w)
{
	const struct hpudrv_trace_doc *doc = w->doc;
	const struct hpudrv_span **order;
	uint64_t *lane_end = NULL;
	size_t i, n = 0, l;
	int ret = 0;

	order = malloc((doc->nspans ? doc->nspans : 1) * sizeof(*order));
	w->lane_tid = calloc(doc->nspans ? doc->nspans : 1, sizeof(uint32_t));
	if (!order || !w->lane_tid) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < doc->nspans; i++)
		if (doc->spans[i].flags & HPUDRV_SPAN_ASYNC)
			order[n++] = &doc->spans[i];
	if (n)
		qsort(order, n, sizeof(*order), cmp_span_begin);
	for (i = 0; i < n; i++) {
		const struct hpudrv_span *s = order[i];

		for (l = 0; l < w->nlanes; l++)
			if (!strcmp(w->lane_cat[l], s->cat) &&
			    lane_end[l] <= s->begin_ns)
				break;
		if (l == w->nlanes) {
			uint64_t *e = realloc(lane_end, (l + 1) * sizeof(*e));
			void *c;

			if (!e) {
				ret = -ENOMEM;
				break;
			}
			lane_end = e;
			c = realloc(w->lane_cat,
				    (l + 1) * sizeof(*w->lane_cat));
			if (!c) {
				ret = -ENOMEM;
				break;
			}
			w->lane_cat = c;
			memcpy(w->lane_cat[l], s->cat, sizeof(w->lane_cat[l]));
			w->nlanes++;
		}
		lane_end[l] = s->end_ns;
		w->lane_tid[s - doc->spans] =
			HPUDRV_TRACE_LANE_TID + (uint32_t)l;
	}
	free(lane_end);
	free(order);
	return ret;
}

static int add_spans(struct writer *w)
{
	const struct hpudrv_trace_doc *doc = w->doc;
	size_t i;
	int ret;

	ret = place_async(w);
	for (i = 0; !ret && i < doc->nspans; i++) {
		const struct hpudrv_span *s = &doc->spans[i];
		struct rec r = { .kind = REC_SPAN, .idx = i };

		r.pid = host_pid(doc);
		r.tid = s->flags & HPUDRV_SPAN_ASYNC ? w->lane_tid[i] : s->tid;
		r.ts = s->begin_ns;
		r.dur = s->end_ns - s->begin_ns;
		ret = add(w, &r);
	}
	return ret;
}

/* ---------------------------------------------------------- output */

static void put_ts(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
		(unsigned int)(ns % 1000));
}

/* starts an event line: the separator of the one before */
static void line(struct writer *w, FILE *f)
{
	if (!w->first)
		fputs(",\n", f);
	w->first = false;
}

static void meta(struct writer *w, FILE *f, const char *what, int pid,
		 uint32_t tid, bool thread, const char *key, const char *val,
		 long num)
{
	line(w, f);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d", what, pid);
	if (thread)
		fprintf(f, ",\"tid\":%u", tid);
	fprintf(f, ",\"args\":{\"%s\":", key);
	if (val)
		hpudrv_json_string(f, val);
	else
		fprintf(f, "%ld", num);
	fputs("}}", f);
}

static bool engine_seen(const struct hpu_trace_event *ev, size_t n, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (ev[k].engine == ev[i].engine)
			return true;
	(void)n;
	return false;
}

static void write_meta(struct writer *w, FILE *f)
{
	const struct hpudrv_trace_doc *doc = w->doc;
	int hp = host_pid(doc);
	char buf[160], eng[32];
	size_t i, k;

	if (doc->rank >= 0)
		snprintf(buf, sizeof(buf), "host rank %d (pid %d)", doc->rank,
			 doc->os_pid);
	else
		snprintf(buf, sizeof(buf), "host (pid %d)", doc->os_pid);
	meta(w, f, "process_name", hp, 0, false, "name", buf, 0);
	meta(w, f, "process_labels", hp, 0, false, "labels", "host", 0);
	meta(w, f, "process_sort_index", hp, 0, false, "sort_index", NULL,
	     doc->rank >= 0 ? doc->rank : 0);
	for (i = 0; i < doc->nthreads; i++) {
		const struct hpudrv_trace_thread *t = &doc->threads[i];

		meta(w, f, "thread_name", hp, t->tid, true, "name",
		     t->name[0] ? t->name : "thread", 0);
	}
	for (i = 0; i < w->nlanes; i++) {
		snprintf(buf, sizeof(buf), "%s %zu", w->lane_cat[i], i);
		meta(w, f, "thread_name", hp,
		     HPUDRV_TRACE_LANE_TID + (uint32_t)i, true, "name", buf, 0);
	}
	for (i = 0; i < doc->ndevs; i++) {
		const struct hpudrv_trace_dev *d = &doc->devs[i];
		int mp = HPUDRV_TRACE_MODEL_PID + d->index;

		snprintf(buf, sizeof(buf), "CS submit hpu%d", d->index);
		meta(w, f, "thread_name", hp,
		     HPUDRV_TRACE_SUBMIT_TID + (uint32_t)d->index, true, "name",
		     buf, 0);
		snprintf(buf, sizeof(buf), "hpu%d %s (%s)", d->index, d->type,
			 d->bus_id);
		meta(w, f, "process_name", d->index, 0, false, "name", buf, 0);
		meta(w, f, "process_labels", d->index, 0, false, "labels",
		     "device", 0);
		meta(w, f, "process_sort_index", d->index, 0, false,
		     "sort_index", NULL, 100 + d->index);
		snprintf(buf, sizeof(buf), "hpu%d %s model", d->index, d->type);
		meta(w, f, "process_name", mp, 0, false, "name", buf, 0);
		meta(w, f, "process_labels", mp, 0, false, "labels", "model",
		     0);
		meta(w, f, "process_sort_index", mp, 0, false, "sort_index",
		     NULL, 1000 + d->index);
		for (k = 0; k < d->nev; k++) {
			const struct hpu_trace_event *e = &w->ev[i][k];

			if (engine_seen(w->ev[i], d->nev, k))
				continue;
			hpudrv_trace_engine_name(d, e->engine, eng,
						 sizeof(eng));
			meta(w, f, "thread_name", d->index, e->engine + 1, true,
			     "name", eng, 0);
			meta(w, f, "thread_sort_index", d->index, e->engine + 1,
			     true, "sort_index", NULL, (long)e->engine);
			meta(w, f, "thread_name", mp, e->engine + 1, true,
			     "name", eng, 0);
			meta(w, f, "thread_sort_index", mp, e->engine + 1, true,
			     "sort_index", NULL, (long)e->engine);
		}
	}
}

static void job_args(FILE *f, const struct hpu_trace_event *e)
{
	fprintf(f,
		",\"args\":{\"cs_seq\":%llu,\"bytes\":%llu,\"flops\":%llu"
		",\"model_ns\":%llu,\"kind\":\"%s\",\"engine\":%u",
		(unsigned long long)e->cs_seq, (unsigned long long)e->bytes,
		(unsigned long long)e->flops, (unsigned long long)e->model_ns,
		hpudrv_trace_kind_name(e->kind), e->engine);
	if (e->kind == HPU_TRACE_KIND_TPC)
		fprintf(f, ",\"kernel\":%u", e->detail);
	if (e->kind == HPU_TRACE_KIND_NIC)
		fprintf(f, ",\"port\":%u", e->detail);
	if (e->flags & HPU_TRACE_EV_WAITED)
		fprintf(f, ",\"waited_sob\":%u", e->fence_sob);
	if (e->flags & HPU_TRACE_EV_SIGNALLED)
		fprintf(f, ",\"signalled_sob\":%u", e->signal_sob);
	if (e->flags & HPU_TRACE_EV_FAILED)
		fputs(",\"failed\":1", f);
	fputs("}", f);
}

static void write_rec(struct writer *w, FILE *f, const struct rec *r)
{
	const struct hpudrv_trace_doc *doc = w->doc;
	const struct hpu_trace_event *e = NULL;
	char name[64];

	if (r->kind != REC_SPAN) {
		e = &w->ev[r->dev][r->idx];
		job_name(e, name, sizeof(name));
	}
	line(w, f);
	switch (r->kind) {
	case REC_JOB:
	case REC_MODEL:
		fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\"",
			r->kind == REC_JOB ? "device" : "model", name);
		break;
	case REC_SUBMIT:
		fprintf(f,
			"{\"ph\":\"X\",\"cat\":\"submit\",\"name\":\"cs %llu\"",
			(unsigned long long)e->cs_seq);
		break;
	case REC_FLOW_START:
	case REC_FLOW_END:
		fprintf(f,
			"{\"ph\":\"%s\",\"cat\":\"cs\",\"name\":\"cs\",\"id\":%" PRIu64,
			r->kind == REC_FLOW_START ? "s" : "f", r->flow);
		if (r->kind == REC_FLOW_END)
			fputs(",\"bp\":\"e\"", f);
		break;
	case REC_SPAN:
		fputs("{\"ph\":\"X\",\"cat\":", f);
		hpudrv_json_string(f, doc->spans[r->idx].cat);
		fputs(",\"name\":", f);
		hpudrv_json_string(f, doc->spans[r->idx].name);
		break;
	}
	fprintf(f, ",\"pid\":%d,\"tid\":%u", r->pid, r->tid);
	put_ts(f, "ts", r->ts);
	if (r->kind != REC_FLOW_START && r->kind != REC_FLOW_END)
		put_ts(f, "dur", r->dur);
	if (r->kind == REC_JOB || r->kind == REC_MODEL)
		job_args(f, e);
	else if (r->kind == REC_SUBMIT)
		fprintf(f, ",\"args\":{\"device\":%d}",
			doc->devs[r->dev].index);
	fputs("}", f);
}

static void writer_free(struct writer *w)
{
	size_t i;

	for (i = 0; i < w->doc->ndevs; i++) {
		if (w->ev)
			free(w->ev[i]);
		if (w->mstart)
			free(w->mstart[i]);
		if (w->mend)
			free(w->mend[i]);
	}
	free(w->ev);
	free(w->mstart);
	free(w->mend);
	free(w->r);
	free(w->lane_tid);
	free(w->lane_cat);
}

int hpudrv_trace_json_write(FILE *f, const struct hpudrv_trace_doc *doc)
{
	struct writer w = { .doc = doc, .first = true };
	uint64_t flow = (uint64_t)(uint32_t)doc->os_pid << 24;
	uint64_t dev_dropped = 0;
	size_t i, nd = doc->ndevs ? doc->ndevs : 1;
	int ret = 0;

	w.ev = calloc(nd, sizeof(*w.ev));
	w.mstart = calloc(nd, sizeof(*w.mstart));
	w.mend = calloc(nd, sizeof(*w.mend));
	if (!w.ev || !w.mstart || !w.mend)
		ret = -ENOMEM;
	for (i = 0; !ret && i < doc->ndevs; i++) {
		ret = add_device(&w, (uint32_t)i, &flow);
		dev_dropped += doc->devs[i].dropped;
	}
	if (!ret)
		ret = add_spans(&w);
	if (ret) {
		writer_free(&w);
		return ret;
	}
	if (w.n)
		qsort(w.r, w.n, sizeof(*w.r), cmp_rec);
	fputs("{\"traceEvents\":[\n", f);
	write_meta(&w, f);
	for (i = 0; i < w.n; i++)
		write_rec(&w, f, &w.r[i]);
	fprintf(f,
		"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
		"\"producer\":\"libhpudrv " HPUDRV_LIB_VERSION
		"\",\"host_spans_dropped\":%" PRIu64
		",\"device_events_dropped\":%" PRIu64 "}}\n",
		doc->spans_dropped, dev_dropped);
	writer_free(&w);
	return ferror(f) ? -EIO : 0;
}
