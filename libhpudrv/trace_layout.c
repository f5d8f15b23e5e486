// SPDX-License-Identifier: MIT
/*
 * trace_layout.c - the jobs of one device's trace on modeled device time
 * (docs/tracing.md, "The modeled layout"; docs/timing-model.md): the one
 * implementation behind the "model" processes of the Chrome trace
 * (profile_json.c) and hpu-train --benchmark's modeled step time.
 *
 * A job starts at the latest of
 *   - the modeled end of the job before it on its queue (queue order);
 *   - when it waited on a FENCE, the modeled end of the last job laid out
 *     before it that signalled that sync object;
 *   - HPU_TRACE_LAYOUT_HOST: its submission (host time);
 *     HPU_TRACE_LAYOUT_DEVICE: the modeled end of every job of the
 *     submissions before its own (by sequence number): the host is
 *     infinitely fast but submits, and waits, in the order it did;
 * and lasts its model_ns (HOST: its measured time where the model has no
 * figure; DEVICE: model_ns only, so the same jobs give the same layout).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpudrv_internal.h"

#define SOB_SLOTS 4096U
#define QUEUES	  256U

struct sob_end {
	uint32_t sob;
	bool used;
	uint64_t end;
};

static struct sob_end *sob_find(struct sob_end *t, uint32_t sob)
{
	uint32_t h = (sob * 2654435761U) & (SOB_SLOTS - 1), i;

	for (i = 0; i < SOB_SLOTS; i++) {
		struct sob_end *s = &t[(h + i) & (SOB_SLOTS - 1)];

		if (!s->used || s->sob == sob)
			return s;
	}
	return NULL;
}

/* qsort_r is a GNU extension: the events are reached through one array
 * of pointers, compared directly */
static int by_start(const void *a, const void *b)
{
	const struct hpu_trace_event *x =
		*(const struct hpu_trace_event *const *)a;
	const struct hpu_trace_event *y =
		*(const struct hpu_trace_event *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->engine != y->engine)
		return x->engine < y->engine ? -1 : 1;
	if (x->cs_seq != y->cs_seq)
		return x->cs_seq < y->cs_seq ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_cs(const void *a, const void *b)
{
	const struct hpu_trace_event *x =
		*(const struct hpu_trace_event *const *)a;
	const struct hpu_trace_event *y =
		*(const struct hpu_trace_event *const *)b;

	if (x->cs_seq != y->cs_seq)
		return x->cs_seq < y->cs_seq ? -1 : 1;
	if (x->engine != y->engine)
		return x->engine < y->engine ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

int hpu_trace_model_layout(const struct hpu_trace_event *ev, size_t n,
			   unsigned int mode, uint64_t *start, uint64_t *end)
{
	const struct hpu_trace_event **order;
	uint64_t qend[QUEUES] = { 0 }, floor = 0, last = 0, seq = 0;
	struct sob_end *sobs;
	bool device = mode == HPU_TRACE_LAYOUT_DEVICE;
	size_t i;

	if (mode > HPU_TRACE_LAYOUT_DEVICE || (n && (!ev || !start || !end)))
		return -EINVAL;
	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	sobs = calloc(SOB_SLOTS, sizeof(*sobs));
	if (!order || !sobs) {
		free(order);
		free(sobs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = &ev[i];
	qsort(order, n, sizeof(*order), device ? by_cs : by_start);
	for (i = 0; i < n; i++) {
		const struct hpu_trace_event *e = order[i];
		size_t k = (size_t)(e - ev);
		uint64_t s, d;
		struct sob_end *se;

		if (device) {
			/* a new submission: after every job of the ones before */
			if (!i || e->cs_seq != seq)
				floor = last;
			seq = e->cs_seq;
			s = floor;
		} else {
			s = e->submit_ns;
		}
		if (e->engine < QUEUES && qend[e->engine] > s)
			s = qend[e->engine];
		if ((e->flags & HPU_TRACE_EV_WAITED) && e->fence_sob != ~0U) {
			se = sob_find(sobs, e->fence_sob);
			if (se && se->used && se->end > s)
				s = se->end;
		}
		d = e->model_ns;
		if (!device && !d && e->end_ns > e->start_ns)
			d = e->end_ns - e->start_ns;
		start[k] = s;
		end[k] = s + d;
		if (end[k] > last)
			last = end[k];
		if (e->engine < QUEUES)
			qend[e->engine] = end[k];
		if ((e->flags & HPU_TRACE_EV_SIGNALLED) &&
		    e->signal_sob != ~0U) {
			se = sob_find(sobs, e->signal_sob);
			if (se) {
				se->used = true;
				se->sob = e->signal_sob;
				if (end[k] > se->end)
					se->end = end[k];
			}
		}
	}
	free(sobs);
	free(order);
	return 0;
}
