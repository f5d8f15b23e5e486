// SPDX-License-Identifier: MIT
/*
 * load.c - a Chrome trace event file into struct prof_trace, with json-c:
 * the object form ({"traceEvents":[...]}) or a bare array; complete
 * events ("X") and begin/end pairs ("B"/"E", matched per thread) become
 * slices; process and thread names and process labels are kept. An
 * event without its required fields makes the file refused. A caller's
 * hooks see each event it accepted (the trace tests' checker adds its
 * stricter rules so).
 */
#include <errno.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

#define OPEN_MAX_DEPTH 256

struct open_b {
	int64_t pid;
	int64_t tid;
	double ts;
	const char *name;
};

struct loader {
	struct prof_trace *t;
	const struct prof_load_hooks *hooks;
	size_t cap_s, cap_t, cap_p;
	struct open_b *open;
	size_t nopen, cap_o;
	char *err;
	size_t len;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int bad(struct loader *l, size_t i, const char *what)
{
	snprintf(l->err, l->len, "event %zu: %s", i, what);
	return -EINVAL;
}

static bool get_num(json_object *ev, const char *key, double *v)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o))
		return false;
	if (!json_object_is_type(o, json_type_int) &&
	    !json_object_is_type(o, json_type_double))
		return false;
	*v = json_object_get_double(o);
	return true;
}

static bool get_id(json_object *ev, const char *key, int64_t *v)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o) ||
	    !json_object_is_type(o, json_type_int))
		return false;
	*v = json_object_get_int64(o);
	return true;
}

static const char *get_str(json_object *ev, const char *key)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o) ||
	    !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

static struct prof_proc *proc_get(struct loader *l, int64_t pid)
{
	struct prof_trace *t = l->t;
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	if (grow((void **)&t->procs, &l->cap_p, t->nprocs, sizeof(*t->procs)))
		return NULL;
	t->procs[t->nprocs] = (struct prof_proc){ .pid = pid, .name = "" };
	return &t->procs[t->nprocs++];
}

static int add_slice(struct loader *l, const struct prof_event *e, double ts,
		     double dur, const char *name)
{
	struct prof_trace *t = l->t;

	if (grow((void **)&t->slices, &l->cap_s, t->nslices,
		 sizeof(*t->slices)))
		return -ENOMEM;
	t->slices[t->nslices++] = (struct prof_slice){ .pid = e->pid,
						       .tid = e->tid,
						       .ts = ts,
						       .dur = dur,
						       .name = name,
						       .cat = e->cat ?: "" };
	return proc_get(l, e->pid) ? 0 : -ENOMEM;
}

static int meta_read(struct loader *l, size_t i, json_object *ev, int64_t pid)
{
	const char *name = get_str(ev, "name");
	json_object *args;
	struct prof_proc *p;
	const char *v;
	int64_t tid;

	if (!name)
		return bad(l, i, "metadata without a name");
	if (!json_object_object_get_ex(ev, "args", &args) ||
	    !json_object_is_type(args, json_type_object))
		return bad(l, i, "metadata without args");
	if (!strcmp(name, "process_name") || !strcmp(name, "process_labels")) {
		v = get_str(args,
			    !strcmp(name, "process_name") ? "name" : "labels");
		if (!v)
			return bad(l, i, "process metadata without its value");
		p = proc_get(l, pid);
		if (!p)
			return -ENOMEM;
		if (!strcmp(name, "process_name"))
			p->name = v;
		else if (!strcmp(v, "device"))
			p->kind = PROF_PROC_DEVICE;
		else if (!strcmp(v, "model"))
			p->kind = PROF_PROC_MODEL;
		else if (!strcmp(v, "host"))
			p->kind = PROF_PROC_HOST;
		return 0;
	}
	if (!strcmp(name, "thread_name")) {
		v = get_str(args, "name");
		if (!v || !get_id(ev, "tid", &tid))
			return bad(l, i, "thread_name without tid or name");
		if (grow((void **)&l->t->threads, &l->cap_t, l->t->nthreads,
			 sizeof(*l->t->threads)))
			return -ENOMEM;
		l->t->threads[l->t->nthreads++] = (struct prof_thread){
			.pid = pid, .tid = tid, .name = v
		};
	}
	return 0;
}

/* An X, B or E into the slices (or the open Bs); others pass */
static int slice_event(struct loader *l, const struct prof_event *e)
{
	size_t k;

	switch (e->ph[0]) {
	case 'X':
		if (!e->name)
			return bad(l, e->index, "X without a name");
		return add_slice(l, e, e->ts, e->dur, e->name);
	case 'B':
		if (!e->name)
			return bad(l, e->index, "B without a name");
		if (grow((void **)&l->open, &l->cap_o, l->nopen,
			 sizeof(*l->open)))
			return -ENOMEM;
		l->open[l->nopen++] =
			(struct open_b){ e->pid, e->tid, e->ts, e->name };
		return 0;
	case 'E':
		for (k = l->nopen; k-- > 0;)
			if (l->open[k].pid == e->pid &&
			    l->open[k].tid == e->tid)
				break;
		if (k == (size_t)-1)
			return bad(l, e->index, "E without a B on its thread");
		if (e->ts < l->open[k].ts)
			return bad(l, e->index, "E before its B");
		if (add_slice(l, e, l->open[k].ts, e->ts - l->open[k].ts,
			      l->open[k].name))
			return -ENOMEM;
		memmove(&l->open[k], &l->open[k + 1],
			(l->nopen - k - 1) * sizeof(*l->open));
		l->nopen--;
		return 0;
	default:
		/* flows, counters, instants: not summarized */
		return 0;
	}
}

static int one_event(struct loader *l, size_t i, json_object *ev)
{
	const struct prof_load_hooks *h = l->hooks;
	struct prof_event e = { .index = i, .json = ev };
	int ret;

	if (!json_object_is_type(ev, json_type_object))
		return bad(l, i, "not an object");
	e.ph = get_str(ev, "ph");
	if (!e.ph || !e.ph[0])
		return bad(l, i, "no \"ph\"");
	if (!get_id(ev, "pid", &e.pid))
		return bad(l, i, "no integer \"pid\"");
	e.name = get_str(ev, "name");
	e.cat = get_str(ev, "cat");
	if (e.ph[0] == 'M') {
		get_id(ev, "tid", &e.tid);
		ret = meta_read(l, i, ev, e.pid);
		if (!ret && h && h->meta)
			ret = h->meta(h->ctx, &e, l->err, l->len);
		return ret;
	}
	if (!get_id(ev, "tid", &e.tid))
		return bad(l, i, "no integer \"tid\"");
	if (!get_num(ev, "ts", &e.ts))
		return bad(l, i, "no numeric \"ts\"");
	if (e.ph[0] == 'X' && (!get_num(ev, "dur", &e.dur) || e.dur < 0))
		return bad(l, i, "X without \"dur\" >= 0");
	ret = slice_event(l, &e);
	if (!ret && h && h->event)
		ret = h->event(h->ctx, &e, l->err, l->len);
	return ret;
}

int prof_load(const char *path, const struct prof_load_hooks *hooks,
	      struct prof_trace *t, char *err, size_t len)
{
	struct loader l = { .t = t, .hooks = hooks, .err = err, .len = len };
	json_object *root, *events;
	size_t i, n;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	root = json_object_from_file(path);
	if (!root) {
		snprintf(err, len, "%s",
			 json_util_get_last_err() ?: "not JSON");
		/* json-c's message ends with a newline */
		err[strcspn(err, "\n")] = '\0';
		return -EINVAL;
	}
	t->root = root;
	if (json_object_is_type(root, json_type_array))
		events = root;
	else if (!json_object_is_type(root, json_type_object) ||
		 !json_object_object_get_ex(root, "traceEvents", &events) ||
		 !json_object_is_type(events, json_type_array)) {
		snprintf(err, len, "no \"traceEvents\" array");
		ret = -EINVAL;
		goto out;
	}
	n = json_object_array_length(events);
	t->nevents = n;
	for (i = 0; !ret && i < n; i++)
		ret = one_event(&l, i, json_object_array_get_idx(events, i));
	if (!ret && l.nopen) {
		snprintf(err, len, "pid %lld tid %lld: a B never ended",
			 (long long)l.open[0].pid, (long long)l.open[0].tid);
		ret = -EINVAL;
	}
out:
	free(l.open);
	if (ret)
		prof_free(t);
	return ret;
}

void prof_free(struct prof_trace *t)
{
	if (t->root)
		json_object_put(t->root);
	free(t->slices);
	free(t->threads);
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

const struct prof_proc *prof_proc_of(const struct prof_trace *t, int64_t pid)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

const char *prof_thread_name(const struct prof_trace *t, int64_t pid,
			     int64_t tid)
{
	size_t i;

	for (i = 0; i < t->nthreads; i++)
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return t->threads[i].name;
	return NULL;
}

int prof_engine_class(const char *name)
{
	if (!name)
		return PROF_ENG_NONE;
	if (!strncmp(name, "DMA ", 4))
		return PROF_ENG_DMA;
	if (!strncmp(name, "MME ", 4))
		return PROF_ENG_MME;
	if (!strncmp(name, "TPC ", 4))
		return PROF_ENG_TPC;
	if (!strncmp(name, "NIC ", 4))
		return PROF_ENG_NIC;
	if (!strncmp(name, "engine ", 7))
		return PROF_ENG_OTHER;
	return PROF_ENG_NONE;
}
