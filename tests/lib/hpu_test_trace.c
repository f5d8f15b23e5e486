// SPDX-License-Identifier: MIT
/*
 * hpu_test_trace.c - the checker of Chrome trace event JSON of the trace
 * tests (hpu_test_trace.h), with json-c.
 */
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
	double *begins; /* B events open */
	const char **bnames;
	size_t nb, cap_b;
};

struct proc {
	int64_t pid;
	bool named;
	bool has_events;
	int label; /* 0 none, 1 host, 2 device, 3 model */
};

struct flow {
	char id[48];
	char ph;
	double ts;
};

struct checker {
	struct hpu_test_trace *t;
	struct thr *thr;
	size_t nthr, cap_thr;
	struct proc *proc;
	size_t nproc, cap_proc;
	struct flow *flows;
	size_t nflows, cap_flows;
	size_t cap_slices;
	/* thread names, to give the slices of device threads theirs */
	struct {
		int64_t pid, tid;
		const char *name;
	} * names;
	size_t nnames, cap_names;
};

static int fail(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->t->err, sizeof(c->t->err), fmt, ap);
	va_end(ap);
	return -1;
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

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool num(json_object *o, const char *key, double *d)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)))
		return false;
	*d = json_object_get_double(v);
	return true;
}

static bool integer(json_object *o, const char *key, int64_t *i)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	*i = json_object_get_int64(v);
	return true;
}

static int check_meta(struct checker *c, size_t i, json_object *ev, int64_t pid)
{
	const char *name = str(ev, "name"), *key, *val;
	json_object *args, *v;
	int64_t tid;
	struct proc *p;

	if (!name)
		return fail(c, "event %zu: metadata without a name", i);
	if (!json_object_object_get_ex(ev, "args", &args) ||
	    !json_object_is_type(args, json_type_object))
		return fail(c, "event %zu: metadata without args", i);
	if (!strcmp(name, "process_name") || !strcmp(name, "thread_name"))
		key = "name";
	else if (!strcmp(name, "process_labels"))
		key = "labels";
	else if (!strcmp(name, "process_sort_index") ||
		 !strcmp(name, "thread_sort_index"))
		key = "sort_index";
	else
		return fail(c, "event %zu: unknown metadata '%s'", i, name);
	if (!json_object_object_get_ex(args, key, &v))
		return fail(c, "event %zu: %s without args.%s", i, name, key);
	if (!strcmp(key, "sort_index") ?
		    !json_object_is_type(v, json_type_int) :
		    !json_object_is_type(v, json_type_string))
		return fail(c, "event %zu: %s: args.%s of the wrong type", i,
			    name, key);
	if (!strncmp(name, "thread_", 7)) {
		if (!integer(ev, "tid", &tid))
			return fail(c, "event %zu: %s without tid", i, name);
		if (!strcmp(name, "thread_name")) {
			thr_get(c, pid, tid)->named = true;
			c->names = grow(c->names, &c->cap_names, c->nnames,
					sizeof(*c->names));
			c->names[c->nnames].pid = pid;
			c->names[c->nnames].tid = tid;
			c->names[c->nnames++].name = json_object_get_string(v);
		}
		return 0;
	}
	p = proc_get(c, pid);
	if (!strcmp(name, "process_name")) {
		p->named = true;
	} else if (!strcmp(name, "process_labels")) {
		val = json_object_get_string(v);
		p->label = !strcmp(val, "host")	  ? 1 :
			   !strcmp(val, "device") ? 2 :
			   !strcmp(val, "model")  ? 3 :
						    0;
	}
	return 0;
}

static void add_slice(struct checker *c, int64_t pid, int64_t tid, double ts,
		      double dur, const char *name, const char *cat)
{
	struct hpu_test_trace *t = c->t;

	t->slices =
		grow(t->slices, &c->cap_slices, t->nslices, sizeof(*t->slices));
	t->slices[t->nslices++] =
		(struct hpu_test_slice){ .pid = pid,
					 .tid = tid,
					 .ts = ts,
					 .dur = dur,
					 .name = name,
					 .cat = cat ? cat : "" };
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

static int check_flow(struct checker *c, size_t i, json_object *ev, char ph,
		      double ts)
{
	json_object *id;
	struct flow *f;

	if (!json_object_object_get_ex(ev, "id", &id) ||
	    (!json_object_is_type(id, json_type_int) &&
	     !json_object_is_type(id, json_type_string)))
		return fail(c, "event %zu: a flow without an id", i);
	if (!str(ev, "cat"))
		return fail(c, "event %zu: a flow without a cat", i);
	c->flows = grow(c->flows, &c->cap_flows, c->nflows, sizeof(*c->flows));
	f = &c->flows[c->nflows++];
	snprintf(f->id, sizeof(f->id), "%s", json_object_get_string(id));
	f->ph = ph;
	f->ts = ts;
	return 0;
}

static int check_event(struct checker *c, size_t i, json_object *ev)
{
	const char *ph, *name;
	int64_t pid, tid;
	double ts, dur;
	struct thr *th;

	if (!json_object_is_type(ev, json_type_object))
		return fail(c, "event %zu: not an object", i);
	ph = str(ev, "ph");
	if (!ph || strlen(ph) != 1)
		return fail(c, "event %zu: no one-letter \"ph\"", i);
	if (!integer(ev, "pid", &pid))
		return fail(c, "event %zu: no integer \"pid\"", i);
	if (ph[0] == 'M')
		return check_meta(c, i, ev, pid);
	if (!integer(ev, "tid", &tid))
		return fail(c, "event %zu: no integer \"tid\"", i);
	if (!num(ev, "ts", &ts) || ts < 0)
		return fail(c, "event %zu: no \"ts\" >= 0", i);
	proc_get(c, pid)->has_events = true;
	th = thr_get(c, pid, tid);
	if (ts < th->last_ts)
		return fail(c,
			    "event %zu: pid %lld tid %lld: ts %.3f before "
			    "the thread's previous %.3f",
			    i, (long long)pid, (long long)tid, ts, th->last_ts);
	th->last_ts = ts;
	name = str(ev, "name");
	switch (ph[0]) {
	case 'X':
		if (!name)
			return fail(c, "event %zu: X without a name", i);
		if (!num(ev, "dur", &dur) || dur < 0)
			return fail(c, "event %zu: X without \"dur\" >= 0", i);
		th->has_slices = true;
		add_slice(c, pid, tid, ts, dur, name, str(ev, "cat"));
		return nest(c, i, th, ts, dur);
	case 'B':
		if (!name)
			return fail(c, "event %zu: B without a name", i);
		th->begins =
			grow(th->begins, &th->cap_b, th->nb, sizeof(double));
		th->bnames = realloc(th->bnames, th->cap_b * sizeof(char *));
		th->begins[th->nb] = ts;
		th->bnames[th->nb++] = name;
		th->has_slices = true;
		return 0;
	case 'E':
		if (!th->nb)
			return fail(c, "event %zu: E without a B on its thread",
				    i);
		th->nb--;
		add_slice(c, pid, tid, th->begins[th->nb],
			  ts - th->begins[th->nb], th->bnames[th->nb],
			  str(ev, "cat"));
		return 0;
	case 's':
	case 't':
	case 'f':
		return check_flow(c, i, ev, ph[0], ts);
	case 'i':
	case 'I':
	case 'C':
		return name ? 0 : fail(c, "event %zu: no name", i);
	default:
		return fail(c, "event %zu: unknown ph '%s'", i, ph);
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
		c->t->flows++;
		i = j;
	}
	return 0;
}

static int check_end(struct checker *c)
{
	size_t i, k;

	for (i = 0; i < c->nthr; i++) {
		if (c->thr[i].nb)
			return fail(c, "pid %lld tid %lld: a B never ended",
				    (long long)c->thr[i].pid,
				    (long long)c->thr[i].tid);
		if (c->thr[i].has_slices && !c->thr[i].named)
			return fail(c, "pid %lld tid %lld: no thread_name",
				    (long long)c->thr[i].pid,
				    (long long)c->thr[i].tid);
	}
	for (i = 0; i < c->nproc; i++) {
		struct proc *p = &c->proc[i];

		if (p->has_events && !p->named)
			return fail(c, "pid %lld: no process_name",
				    (long long)p->pid);
		c->t->host_procs += p->label == 1;
		c->t->device_procs += p->label == 2;
		c->t->model_procs += p->label == 3;
	}
	for (i = 0; i < c->t->nslices; i++) {
		struct hpu_test_slice *s = &c->t->slices[i];
		struct proc *p = proc_get(c, s->pid);

		if (p->label != 2 && p->label != 3)
			continue;
		for (k = 0; k < c->nnames; k++)
			if (c->names[k].pid == s->pid &&
			    c->names[k].tid == s->tid)
				s->engine_name = c->names[k].name;
	}
	return check_flows(c);
}

int hpu_test_trace_check(const char *path, struct hpu_test_trace *t)
{
	struct checker c = { .t = t };
	json_object *root, *events;
	size_t i, n;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	root = json_object_from_file(path);
	if (!root) {
		snprintf(t->err, sizeof(t->err), "%s: not JSON: %s", path,
			 json_util_get_last_err() ?: "?");
		return -1;
	}
	t->root = root;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "traceEvents", &events) ||
	    !json_object_is_type(events, json_type_array)) {
		snprintf(t->err, sizeof(t->err), "no traceEvents array");
		return -1;
	}
	n = json_object_array_length(events);
	t->events = n;
	for (i = 0; !ret && i < n; i++)
		ret = check_event(&c, i, json_object_array_get_idx(events, i));
	if (!ret)
		ret = check_end(&c);
	for (i = 0; i < c.nthr; i++) {
		free(c.thr[i].ends);
		free(c.thr[i].begins);
		free(c.thr[i].bnames);
	}
	free(c.thr);
	free(c.proc);
	free(c.flows);
	free(c.names);
	return ret;
}

void hpu_test_trace_free(struct hpu_test_trace *t)
{
	if (t->root)
		json_object_put(t->root);
	free(t->slices);
	memset(t, 0, sizeof(*t));
}

bool hpu_test_trace_overlaps(const struct hpu_test_trace *t, const char *a,
			     const char *b, size_t *pids)
{
	int64_t seen[256];
	size_t i, j, k, n = 0;

	for (i = 0; i < t->nslices; i++) {
		const struct hpu_test_slice *x = &t->slices[i];

		if (strncmp(x->name, a, strlen(a)))
			continue;
		for (k = 0; k < n && seen[k] != x->pid; k++)
			;
		if (k < n)
			continue;
		for (j = 0; j < t->nslices; j++) {
			const struct hpu_test_slice *y = &t->slices[j];

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
