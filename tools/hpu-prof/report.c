// SPDX-License-Identifier: MIT
/*
 * report.c - hpu-prof's summary of a trace: per device and engine queue
 * the jobs and busy time (the union of the queue's slices) as a share of
 * the device's window (its first job's start to its last job's end), the
 * jobs that took the most time, how much of the NIC's busy time overlaps
 * compute (MME or TPC busy), the gaps where all engines of a device were
 * idle, and the host spans by total time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

struct ival {
	double a;
	double b;
};

struct ivals {
	struct ival *v;
	size_t n;
	size_t cap;
};

struct agg {
	const char *name;
	unsigned long count;
	double total;
};

static int ivals_add(struct ivals *s, double a, double b)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct ival *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct ival){ a, b };
	return 0;
}

static int cmp_ival(const void *x, const void *y)
{
	const struct ival *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* sort and merge in place; returns the union's length */
static double ivals_union(struct ivals *s)
{
	size_t i, k = 0;
	double len = 0;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_ival);
	for (i = 1; i < s->n; i++) {
		if (s->v[i].a <= s->v[k].b) {
			if (s->v[i].b > s->v[k].b)
				s->v[k].b = s->v[i].b;
		} else {
			s->v[++k] = s->v[i];
		}
	}
	s->n = k + 1;
	for (i = 0; i < s->n; i++)
		len += s->v[i].b - s->v[i].a;
	return len;
}

/* length of the intersection of two merged sets */
static double ivals_overlap(const struct ivals *x, const struct ivals *y)
{
	size_t i = 0, j = 0;
	double len = 0, a, b;

	while (i < x->n && j < y->n) {
		a = x->v[i].a > y->v[j].a ? x->v[i].a : y->v[j].a;
		b = x->v[i].b < y->v[j].b ? x->v[i].b : y->v[j].b;
		if (b > a)
			len += b - a;
		if (x->v[i].b < y->v[j].b)
			i++;
		else
			j++;
	}
	return len;
}

static int agg_add(struct agg **a, size_t *n, size_t *cap, const char *name,
		   double dur)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*a)[i].name, name))
			break;
	if (i == *n) {
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			struct agg *q = realloc(*a, c * sizeof(*q));

			if (!q)
				return -ENOMEM;
			*a = q;
			*cap = c;
		}
		(*a)[(*n)++] = (struct agg){ .name = name };
	}
	(*a)[i].count++;
	(*a)[i].total += dur;
	return 0;
}

static int cmp_agg(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool any_labels(const struct prof_trace *t)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].kind != PROF_PROC_OTHER)
			return true;
	return false;
}

/* the engine class of a slice's thread when its process is selected */
static int slice_engine(const struct prof_trace *t, const struct prof_slice *s,
			const struct prof_opts *o, bool labels)
{
	const struct prof_proc *p = prof_proc_of(t, s->pid);
	int want = o->model ? PROF_PROC_MODEL : PROF_PROC_DEVICE;

	if (labels && (!p || p->kind != want))
		return PROF_ENG_NONE;
	return prof_engine_class(prof_thread_name(t, s->pid, s->tid));
}

static const char *proc_label(const struct prof_trace *t, int64_t pid,
			      char *buf, size_t len)
{
	const struct prof_proc *p = prof_proc_of(t, pid);
	size_t n;

	if (p && p->name[0]) {
		/* "hpu0 gaudi2 (0000:..)": the first word names it */
		n = strcspn(p->name, " ");
		snprintf(buf, len, "%.*s", (int)n, p->name);
	} else {
		snprintf(buf, len, "pid %lld", (long long)pid);
	}
	return buf;
}

struct dev {
	int64_t pid;
	double t0, t1;
	struct ivals all, nic, compute;
	unsigned long jobs;
};

struct engine {
	int64_t pid;
	int64_t tid;
	unsigned long jobs;
	struct ivals iv;
};

struct report {
	struct dev *devs;
	size_t ndevs;
	struct engine *engs;
	size_t nengs;
	struct agg *jobs;
	size_t njobs, cap_jobs;
	struct agg *host;
	size_t nhost, cap_host;
};

static struct dev *dev_get(struct report *r, int64_t pid)
{
	struct dev *d;
	size_t i;

	for (i = 0; i < r->ndevs; i++)
		if (r->devs[i].pid == pid)
			return &r->devs[i];
	d = realloc(r->devs, (r->ndevs + 1) * sizeof(*d));
	if (!d)
		return NULL;
	r->devs = d;
	d = &r->devs[r->ndevs++];
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->t0 = 1e300;
	d->t1 = -1e300;
	return d;
}

static struct engine *eng_get(struct report *r, int64_t pid, int64_t tid)
{
	struct engine *e;
	size_t i;

	for (i = 0; i < r->nengs; i++)
		if (r->engs[i].pid == pid && r->engs[i].tid == tid)
			return &r->engs[i];
	e = realloc(r->engs, (r->nengs + 1) * sizeof(*e));
	if (!e)
		return NULL;
	r->engs = e;
	e = &r->engs[r->nengs++];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->tid = tid;
	return e;
}

static int collect(const struct prof_trace *t, const struct prof_opts *o,
		   struct report *r)
{
	bool labels = any_labels(t);
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < t->nslices; i++) {
		const struct prof_slice *s = &t->slices[i];
		int cls = slice_engine(t, s, o, labels);
		const struct prof_proc *p;
		struct engine *e;
		struct dev *d;

		if (cls == PROF_ENG_NONE) {
			p = prof_proc_of(t, s->pid);
			if (!labels || (p && p->kind == PROF_PROC_HOST))
				ret = agg_add(&r->host, &r->nhost, &r->cap_host,
					      s->name, s->dur);
			continue;
		}
		d = dev_get(r, s->pid);
		e = eng_get(r, s->pid, s->tid);
		if (!d || !e)
			return -ENOMEM;
		if (s->ts < d->t0)
			d->t0 = s->ts;
		if (s->ts + s->dur > d->t1)
			d->t1 = s->ts + s->dur;
		d->jobs++;
		e->jobs++;
		ret = ivals_add(&e->iv, s->ts, s->ts + s->dur);
		ret = ret ?: ivals_add(&d->all, s->ts, s->ts + s->dur);
		if (!ret && cls == PROF_ENG_NIC)
			ret = ivals_add(&d->nic, s->ts, s->ts + s->dur);
		if (!ret && (cls == PROF_ENG_MME || cls == PROF_ENG_TPC))
			ret = ivals_add(&d->compute, s->ts, s->ts + s->dur);
		ret = ret   ?:
			      agg_add(&r->jobs, &r->njobs, &r->cap_jobs,
				      s->name, s->dur);
	}
	return ret;
}

static int cmp_eng(const void *x, const void *y)
{
	const struct engine *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_dev(const void *x, const void *y)
{
	const struct dev *a = x, *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static void print_engines(const struct prof_trace *t, struct report *r, FILE *f)
{
	char who[64];
	size_t i, k;

	fprintf(f, "\nengine queues (busy %% of the device's window)\n");
	fprintf(f, "%-8s %-12s %8s %12s %7s\n", "device", "engine", "jobs",
		"busy ms", "busy %");
	qsort(r->engs, r->nengs, sizeof(*r->engs), cmp_eng);
	for (i = 0; i < r->nengs; i++) {
		struct engine *e = &r->engs[i];
		const char *tn = prof_thread_name(t, e->pid, e->tid);
		double busy = ivals_union(&e->iv), win = 0;

		for (k = 0; k < r->ndevs; k++)
			if (r->devs[k].pid == e->pid)
				win = r->devs[k].t1 - r->devs[k].t0;
		fprintf(f, "%-8s %-12s %8lu %12.3f %6.1f%%\n",
			proc_label(t, e->pid, who, sizeof(who)), tn ? tn : "?",
			e->jobs, busy / 1000,
			win > 0 ? 100.0 * busy / win : 0.0);
	}
}

static void print_top(const char *title, struct agg *a, size_t n,
		      unsigned int top, FILE *f)
{
	double all = 0;
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		all += a[i].total;
	qsort(a, n, sizeof(*a), cmp_agg);
	fprintf(f, "\n%s\n", title);
	fprintf(f, "%-32s %8s %12s %10s %7s\n", "name", "count", "total ms",
		"avg us", "share");
	for (i = 0; i < n && i < top; i++)
		fprintf(f, "%-32.32s %8lu %12.3f %10.3f %6.1f%%\n", a[i].name,
			a[i].count, a[i].total / 1000,
			a[i].total / (double)a[i].count,
			all > 0 ? 100.0 * a[i].total / all : 0.0);
}

static void print_devices(const struct prof_trace *t, struct report *r,
			  const struct prof_opts *o, FILE *f)
{
	char who[64];
	size_t i, k;

	qsort(r->devs, r->ndevs, sizeof(*r->devs), cmp_dev);
	fprintf(f, "\nNIC and compute (MME, TPC) overlap\n");
	fprintf(f, "%-8s %12s %12s %12s %9s\n", "device", "nic ms",
		"compute ms", "overlap ms", "% of nic");
	for (i = 0; i < r->ndevs; i++) {
		struct dev *d = &r->devs[i];
		double nic = ivals_union(&d->nic);
		double comp = ivals_union(&d->compute);
		double ov = ivals_overlap(&d->nic, &d->compute);

		fprintf(f, "%-8s %12.3f %12.3f %12.3f %8.1f%%\n",
			proc_label(t, d->pid, who, sizeof(who)), nic / 1000,
			comp / 1000, ov / 1000,
			nic > 0 ? 100.0 * ov / nic : 0.0);
	}
	fprintf(f, "\nidle gaps (every engine idle for >= %.0f us)\n",
		o->gap_us);
	fprintf(f, "%-8s %12s %8s %12s %12s %7s\n", "device", "window ms",
		"gaps", "idle ms", "longest ms", "idle %");
	for (i = 0; i < r->ndevs; i++) {
		struct dev *d = &r->devs[i];
		double idle = 0, longest = 0, g, win = d->t1 - d->t0;
		unsigned long gaps = 0;

		ivals_union(&d->all);
		for (k = 1; k < d->all.n; k++) {
			g = d->all.v[k].a - d->all.v[k - 1].b;
			if (g < o->gap_us)
				continue;
			gaps++;
			idle += g;
			if (g > longest)
				longest = g;
		}
		fprintf(f, "%-8s %12.3f %8lu %12.3f %12.3f %6.1f%%\n",
			proc_label(t, d->pid, who, sizeof(who)), win / 1000,
			gaps, idle / 1000, longest / 1000,
			win > 0 ? 100.0 * idle / win : 0.0);
	}
}

int prof_report(const struct prof_trace *t, const struct prof_opts *o, FILE *f)
{
	struct report r = { 0 };
	size_t i;
	int ret;

	ret = collect(t, o, &r);
	if (!ret) {
		fprintf(f,
			"%zu events: %zu slices, %zu devices, %zu engine "
			"queues (%s time)\n",
			t->nevents, t->nslices, r.ndevs, r.nengs,
			o->model ? "modeled device" : "host");
		if (!r.nengs)
			fprintf(f, "no device jobs in the trace%s\n",
				o->model ? " (modeled layout)" : "");
		else {
			print_engines(t, &r, f);
			print_top("top jobs by time", r.jobs, r.njobs, o->top,
				  f);
			print_devices(t, &r, o, f);
		}
		print_top("host spans by time", r.host, r.nhost, o->top, f);
	}
	for (i = 0; i < r.ndevs; i++) {
		free(r.devs[i].all.v);
		free(r.devs[i].nic.v);
		free(r.devs[i].compute.v);
	}
	for (i = 0; i < r.nengs; i++)
		free(r.engs[i].iv.v);
	free(r.devs);
	free(r.engs);
	free(r.jobs);
	free(r.host);
	return ret;
}
