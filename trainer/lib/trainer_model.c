// SPDX-License-Identifier: MIT
/*
 * trainer_model.c - ht_trainer_benchmark()'s modeled step time
 * (bench_model; docs/timing-model.md, "Using the model"): the timed
 * steps' jobs are traced on the device (HPU_IOCTL_TRACE), each with the
 * device model's model_ns, and laid out on modeled device time by
 * hpu_trace_model_layout() (HPU_TRACE_LAYOUT_DEVICE: the submissions in
 * order, queue order and sync objects kept, no host time), the layout of
 * the HPU_PROFILE file's model processes without the host's times.
 *
 * The trace starts one step before the timed ones (so that every CS of
 * the timed steps is stamped) and keeps only the jobs submitted from the
 * first timed step on; the events are drained after every step (the
 * rings hold 8192 per queue where the context's trace limit allows, else
 * 4096), outside the step's timing. Modeling is best effort: without
 * traces, with events dropped or a failed read, the result has no
 * modeled figure and the benchmark goes on.
 */
#include <stdlib.h>
#include <string.h>

#include "hpudrv.h"
#include "trainer_internal.h"

#define READ_CHUNK 4096

int ht_bench_model_start(struct ht_trainer *t, struct ht_bench_model *m)
{
	struct hpu_device_info info;
	struct hpu_device *dev;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!t->o.bench_model || t->ddp)
		return 0;
	dev = ht_backend_device(t->be);
	/* best effort: without a trace the row shows no modeled figure */
	if (!dev || hpu_device_get_info(hpu_device_index(dev), &info))
		return 0;
	for (i = 0; i + 1 < sizeof(m->chip) && info.device_type[i]; i++)
		m->chip[i] = (char)(info.device_type[i] | 0x20); /* lower */
	m->chip[i] = 0;
	/* room for a long eager step where the context's limit allows */
	if (hpu_trace_start(dev, 2 * HPU_TRACE_DEFAULT_CAPACITY) &&
	    hpu_trace_start(dev, 0))
		return 0;
	m->dev = dev;
	m->on = true;
	return 0;
}

void ht_bench_model_mark(struct ht_bench_model *m)
{
	if (m->on)
		m->mark_ns = hpu_profile_now_ns();
}

/* move the pending events out; a failure ends the modeling (no figure) */
int ht_bench_model_drain(struct ht_bench_model *m)
{
	struct hpu_trace_out st;
	int got;

	if (!m->on)
		return 0;
	do {
		if (m->cap - m->n < READ_CHUNK) {
			size_t cap = m->cap ? 2 * m->cap : 4 * READ_CHUNK;
			struct hpu_trace_event *ev;

			ev = realloc(m->ev, cap * sizeof(*ev));
			if (!ev)
				goto fail;
			m->ev = ev;
			m->cap = cap;
		}
		got = hpu_trace_read(m->dev, m->ev + m->n, READ_CHUNK, &st);
		if (got < 0)
			goto fail;
		m->n += (size_t)got;
		m->dropped = st.dropped;
	} while (got > 0 && st.pending);
	return 0;
fail:
	ht_bench_model_cancel(m);
	return 0;
}

/* keep the events of CSs submitted from the mark on */
static size_t keep_timed(struct ht_bench_model *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		if (m->ev[i].submit_ns >= m->mark_ns)
			m->ev[n++] = m->ev[i];
	return n;
}

int ht_bench_model_finish(struct ht_trainer *t, struct ht_bench_model *m,
			  uint32_t steps, struct ht_trainer_result *res)
{
	uint64_t *start = NULL, *end = NULL, last = 0, mme = 0;
	size_t n, i;
	int ret;

	if (!m->on)
		return 0;
	ret = ht_backend_sync(t->be);
	if (!ret)
		ht_bench_model_drain(m);
	if (!m->on)
		return ret; /* the drain gave up: no figure */
	hpu_trace_free(m->dev);
	if (ret || m->dropped || !steps)
		goto out;
	n = keep_timed(m);
	start = malloc((n ? n : 1) * sizeof(*start));
	end = malloc((n ? n : 1) * sizeof(*end));
	/* best effort: no memory for the layout, no figure */
	if (!start || !end ||
	    hpu_trace_model_layout(m->ev, n, HPU_TRACE_LAYOUT_DEVICE, start,
				   end))
		goto out;
	for (i = 0; i < n; i++) {
		if (end[i] > last)
			last = end[i];
		if (m->ev[i].kind == HPU_TRACE_KIND_GEMM)
			mme += m->ev[i].model_ns;
	}
	if (res) {
		res->model_step_s = (double)last * 1e-9 / steps;
		res->model_mme_s = (double)mme * 1e-9 / steps;
		res->model_jobs = n;
		memcpy(res->model_chip, m->chip, sizeof(res->model_chip));
	}
out:
	free(start);
	free(end);
	free(m->ev);
	memset(m, 0, sizeof(*m));
	return ret;
}

void ht_bench_model_cancel(struct ht_bench_model *m)
{
	if (m->on)
		hpu_trace_free(m->dev);
	free(m->ev);
	memset(m, 0, sizeof(*m));
}
