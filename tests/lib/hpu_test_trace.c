// SPDX-License-Identifier: MIT
/*
 * hpu_test_trace.c - the checker of Chrome trace event JSON of the trace
 * tests (hpu_test_trace.h): hpu-prof's reader (prof_load(),
 * tools/hpu-prof/load.c) reads the file, checks each event's required
 * fields and matches B/E; its hooks here add the stricter rules.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_test_trace.h"

/* rounding of "ts" + "dur" printed with three decimals */
#define EPS_US 0.002

struct thr {
	int64_t pid;
	int64_t tid;
	double last_ts;
	bool named;
	bool has_slices;
	double *ends; /* complete events open at last_ts */
	size_t nends, cap_ends;
};

struct proc {
	int64_t pid;
	bool named;
	bool has_events;
};

struct flow {
	char id[48];
	char ph;
	double ts;
};

/* what prof_load() does not check: its hooks' state */
struct checker {
	struct thr *thr;
	size_t nthr, cap_thr;
	struct proc *proc;
	size_t nproc, cap_proc;
	struct flow *flows;
	size_t nflows, cap_flows;
	size_t nflows_paired;
	char *err;
	size_t len;
};

static int fail(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	q = realloc(p, *cap * size);
	if (!q)
		abort();
	return q;
}

static struct thr *thr_get(struct checker *c, int64_t pid, int64_t tid)
{
	size_t i;

	for (i = c->nthr; i-- > 0;)
		if (c->thr[i].pid == pid && c->thr[i].tid == tid)
			return &c->thr[i];
	c->thr = grow(c->thr, &c->cap_thr, c->nthr, sizeof(*c->thr));
	memset(&c->thr[c->nthr], 0, sizeof(*c->thr));
	c->thr[c->nthr].pid = pid;
	c->thr[c->nthr].tid = tid;
	c->thr[c->nthr].last_ts = -1e300;
	return &c->thr[c->nthr++];
}

static struct proc *proc_get(struct checker *c, int64_t pid)
{
	size_t i;

	for (i = 0; i < c->nproc; i++)
		if (c->proc[i].pid == pid)
			return &c->proc[i];
	c->proc = grow(c->proc, &c->cap_proc, c->nproc, sizeof(*c->proc));
	memset(&c->proc[c->nproc], 0, sizeof(*c->proc));
	c->proc[c->nproc].pid = pid;
	return &c->proc[c->nproc++];
}

/* metadata: a known name whose args member has its type; thread_* a tid */
static int check_meta(void *ctx, const struct prof_event *e, char *err,
		      size_t len)
{
	struct checker *c = ctx;
	json_object *ev = (json_object *)e->json, *args, *v;
	const char *name = e->name, *key;

	(void)err;
	(void)len;
	if (strlen(e->ph) != 1)
		return fail(c, "event %zu: no one-letter \"ph\"", e->index);
	if (!strcmp(name, "process_name") || !strcmp(name, "thread_name"))
		key = "name";
	else if (!strcmp(name, "process_labels"))
		key = "labels";
	else if (!strcmp(name, "process_sort_index") ||
		 !strcmp(name, "thread_sort_index"))
		key = "sort_index";
	else
		return fail(c, "event %zu: unknown metadata '%s'", e->index,
			    name);
	/* prof_load() refuses metadata without an args object */
	json_object_object_get_ex(ev, "args", &args);
	if (!json_object_object_get_ex(args, key, &v))
		return fail(c, "event %zu: %s without args.%s", e->index, name,
			    key);
	if (!strcmp(key, "sort_index") ?
		    !json_object_is_type(v, json_type_int) :
		    !json_object_is_type(v, json_type_string))
		return fail(c, "event %zu: %s: args.%s of the wrong type",
			    e->index, name, key);
	if (!strncmp(name, "thread_", 7)) {
		if (!json_object_object_get_ex(ev, "tid", &v) ||
		    !json_object_is_type(v, json_type_int))
			return fail(c, "event %zu: %s without tid", e->index,
				    name);
		if (!strcmp(name, "thread_name"))
			thr_get(c, e->pid, e->tid)->named = true;
		return 0;
	}
	if (!strcmp(name, "process_name"))
		proc_get(c, e->pid)->named = true;
	return 0;
}

/* a complete event must lie within every one still open on its thread */
static int nest(struct checker *c, size_t i, struct thr *th, double ts,
		double dur)
{
	while (th->nends && th->ends[th->nends - 1] <= ts + EPS_US)
		th->nends--;
	if (th->nends && ts + dur > th->ends[th->nends - 1] + EPS_US)
		return fail(c,
			    "event %zu: pid %lld tid %lld: a slice [%.3f, "
			    "%.3f] overlaps one ending at %.3f without "
			    "nesting",
			    i, (long long)th->pid, (long long)th->tid, ts,
			    ts + dur, th->ends[th->nends - 1]);
	th->ends = grow(th->ends, &th->cap_ends, th->nends, sizeof(double));
	th->ends[th->nends++] = ts + dur;
	return 0;
}

static int check_flow(struct checker *c, const struct prof_event *e)
{
	json_object *id;
	struct flow *f;

	if (!json_object_object_get_ex((json_object *)e->json, "id", &id) ||
	    (!json_object_is_type(id, json_type_int) &&
	     !json_object_is_type(id, json_type_string)))
		return fail(c, "event %zu: a flow without an id", e->index);
	if (!e->cat)
		return fail(c, "event %zu: a flow without a cat", e->index);
	c->flows = grow(c->flows, &c->cap_flows, c->nflows, sizeof(*c->flows));
	f = &c->flows[c->nflows++];
	snprintf(f->id, sizeof(f->id), "%s", json_object_get_string(id));
	f->ph = e->ph[0];
	f->ts = e->ts;
	return 0;
}

/*
 * An event prof_load() accepted (an X with its name and dur, a B with its
 * name, an E matched): a one-letter ph, ts >= 0 and in order on its
 * thread, nesting, flows, names, no unknown ph
 */
static int check_event(void *ctx, const struct prof_event *e, char *err,
		       size_t len)
{
	struct checker *c = ctx;
	struct thr *th;

	(void)err;
	(void)len;
	if (strlen(e->ph) != 1)
		return fail(c, "event %zu: no one-letter \"ph\"", e->index);
	if (e->ts < 0)
		return fail(c, "event %zu: no \"ts\" >= 0", e->index);
	proc_get(c, e->pid)->has_events = true;
	th = thr_get(c, e->pid, e->tid);
	if (e->ts < th->last_ts)
		return fail(c,
			    "event %zu: pid %lld tid %lld: ts %.3f before "
			    "the thread's previous %.3f",
			    e->index, (long long)e->pid, (long long)e->tid,
			    e->ts, th->last_ts);
	th->last_ts = e->ts;
	switch (e->ph[0]) {
	case 'X':
		th->has_slices = true;
		return nest(c, e->index, th, e->ts, e->dur);
	case 'B':
		th->has_slices = true;
		return 0;
	case 'E':
		return 0;
	case 's':
	case 't':
	case 'f':
		return check_flow(c, e);
	case 'i':
	case 'I':
	case 'C':
		return e->name ? 0 : fail(c, "event %zu: no name", e->index);
	default:
		return fail(c, "event %zu: unknown ph '%s'", e->index, e->ph);
	}
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	int r = strcmp(x->id, y->id);

	if (r)
		return r;
	return x->ph == 's' ? -1 : y->ph == 's' ? 1 : 0;
}

static int check_flows(struct checker *c)
{
	size_t i = 0, j;

	if (c->nflows)
		qsort(c->flows, c->nflows, sizeof(*c->flows), cmp_flow);
	while (i < c->nflows) {
		size_t s = 0, f = 0;
		double s_ts = 0, f_ts = 0;

		for (j = i;
		     j < c->nflows && !strcmp(c->flows[j].id, c->flows[i].id);
		     j++) {
			if (c->flows[j].ph == 's') {
				s++;
				s_ts = c->flows[j].ts;
			} else if (c->flows[j].ph == 'f') {
				f++;
				f_ts = c->flows[j].ts;
			}
		}
		if (s != 1 || f != 1)
			return fail(c, "flow %s: %zu starts and %zu ends",
				    c->flows[i].id, s, f);
		if (f_ts + EPS_US < s_ts)
			return fail(c, "flow %s ends before it starts",
				    c->flows[i].id);
		c->nflows_paired++;
		i = j;
	}
	return 0;
}

/* every thread with slices and every process with events named */
static int check_end(struct checker *c)
{
	size_t i;

	for (i = 0; i < c->nthr; i++)
		if (c->thr[i].has_slices && !c->thr[i].named)
			return fail(c, "pid %lld tid %lld: no thread_name",
				    (long long)c->thr[i].pid,
				    (long long)c->thr[i].tid);
	for (i = 0; i < c->nproc; i++)
		if (c->proc[i].has_events && !c->proc[i].named)
			return fail(c, "pid %lld: no process_name",
				    (long long)c->proc[i].pid);
	return check_flows(c);
}

/* The trace's figures from what prof_load() read */
static void take(struct hpu_test_trace *t, size_t flows)
{
	const struct prof_trace *p = &t->prof;
	size_t i;

	t->root = p->root;
	t->events = p->nevents;
	t->slices = p->slices;
	t->nslices = p->nslices;
	t->flows = flows;
	for (i = 0; i < p->nprocs; i++) {
		t->host_procs += p->procs[i].kind == PROF_PROC_HOST;
		t->device_procs += p->procs[i].kind == PROF_PROC_DEVICE;
		t->model_procs += p->procs[i].kind == PROF_PROC_MODEL;
	}
}

const char *hpu_test_trace_engine(const struct hpu_test_trace *t,
				  const struct prof_slice *s)
{
	const struct prof_proc *p = prof_proc_of(&t->prof, s->pid);

	if (!p || (p->kind != PROF_PROC_DEVICE && p->kind != PROF_PROC_MODEL))
		return NULL;
	return prof_thread_name(&t->prof, s->pid, s->tid);
}

int hpu_test_trace_check(const char *path, struct hpu_test_trace *t)
{
	struct checker c = { .len = sizeof(t->err) };
	const struct prof_load_hooks hooks = { .event = check_event,
					       .meta = check_meta,
					       .ctx = &c };
	json_object *events;
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	c.err = t->err;
	ret = prof_load(path, &hooks, &t->prof, t->err, sizeof(t->err));
	/* prof_load() takes a bare array too; the files here are objects */
	if (!ret &&
	    (!json_object_is_type(t->prof.root, json_type_object) ||
	     !json_object_object_get_ex(t->prof.root, "traceEvents", &events)))
		ret = fail(&c, "no traceEvents array");
	if (!ret)
		ret = check_end(&c);
	if (!ret)
		take(t, c.nflows_paired);
	for (i = 0; i < c.nthr; i++)
		free(c.thr[i].ends);
	free(c.thr);
	free(c.proc);
	free(c.flows);
	return ret ? -1 : 0;
}

void hpu_test_trace_free(struct hpu_test_trace *t)
{
	prof_free(&t->prof);
	memset(t, 0, sizeof(*t));
}

bool hpu_test_trace_overlaps(const struct hpu_test_trace *t, const char *a,
			     const char *b, size_t *pids)
{
	int64_t seen[256];
	size_t i, j, k, n = 0;

	for (i = 0; i < t->nslices; i++) {
		const struct prof_slice *x = &t->slices[i];

		if (strncmp(x->name, a, strlen(a)))
			continue;
		for (k = 0; k < n && seen[k] != x->pid; k++)
			;
		if (k < n)
			continue;
		for (j = 0; j < t->nslices; j++) {
			const struct prof_slice *y = &t->slices[j];

			if (y->pid != x->pid || strncmp(y->name, b, strlen(b)))
				continue;
			if (x->ts < y->ts + y->dur && y->ts < x->ts + x->dur)
				break;
		}
		if (j < t->nslices && n < 256)
			seen[n++] = x->pid;
	}
	*pids = n;
	return n > 0;
}
