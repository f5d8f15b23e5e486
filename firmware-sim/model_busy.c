// SPDX-License-Identifier: MIT
/*
 * model_busy.c - the modeled busy time of a device (firmware interface
 * 1.6; docs/hpu-smi.md, docs/timing-model.md): while the driver has it on,
 * the end of every job adds the job's duration by the timing model
 * (job_cost.c, the model_ns of its trace event) to the count of its
 * engine class, and to the 10 ms bucket the job ended in, from which
 * model_busy answers a window's modeled utilization and power.
 *
 * Off, a job's end pays one relaxed load of the device's flag and a
 * predictable branch (trace.h). On, it walks the job's packets as a trace
 * does (about 100 ns) under the scheduler lock it already holds.
 */
#include <errno.h>
#include <string.h>

#include "trace.h"

static unsigned int engine_class(const struct hpu_fw_device *dev,
				 uint32_t engine)
{
	unsigned int c = HPUSIM_ENGINE_CLASSES - 1;

	while (c && engine < dev->engine_base[c])
		c--;
	return c;
}

/**
 * hpusim_model_busy_job_end_slow() - count the job that ended
 * @job: the job (sched lock held)
 */
void hpusim_model_busy_job_end_slow(struct hpusim_job *job)
{
	struct hpu_fw_device *dev = job->cs->as->dev;
	struct hpusim_model_busy *mb = &dev->mb;
	struct hpusim_job_cost c;
	uint64_t b = hpusim_now_ns(dev) / HPUSIM_MB_BUCKET_NS + 1;
	unsigned int slot = (unsigned int)(b % HPUSIM_MB_BUCKETS);

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	hpusim_job_cost(dev, mb->tm, job->q->engine, job->cb, job->cb_size, &c);
	if (mb->stamp[slot] != b) {
		mb->stamp[slot] = b;
		mb->base[slot] = mb->total;
	}
	mb->ns[engine_class(dev, job->q->engine)] += c.model_ns;
	mb->total += c.model_ns;
	mb->jobs++;
}

/**
 * hpusim_model_busy_enable() - count modeled busy time, or stop
 * @dev: device
 * @on: count
 *
 * Return: 0, -EINVAL, or -EOPNOTSUPP (the chip has no timing model).
 */
int hpusim_model_busy_enable(struct hpu_fw_device *dev, bool on)
{
	const struct hpusim_tm_profile *tm;

	if (!dev)
		return -EINVAL;
	tm = hpusim_tm_profile_find(dev->profile->name);
	if (on && !tm)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&hpusim_sched.lock);
	dev->mb.tm = tm;
	__atomic_store_n(&dev->mb.on, on, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&hpusim_sched.lock);
	return 0;
}

/**
 * hpusim_model_busy() - the counts, and the utilization and power of the
 * last @period_ms
 * @dev: device
 * @period_ms: HPUSIM_UTIL_PERIOD_MIN_MS..HPUSIM_UTIL_PERIOD_MAX_MS
 * @out: receives them (only on success)
 *
 * The window starts at the 10 ms bucket @period_ms ago: the jobs that
 * ended from its start on count in it.
 *
 * Return: 0, -EINVAL or -ENODATA (not counting).
 */
int hpusim_model_busy(struct hpu_fw_device *dev, uint32_t period_ms,
		      struct hpu_fw_model_busy *out)
{
	const struct hpu_fw_profile *p;
	struct hpusim_model_busy *mb;
	struct hpu_fw_model_busy r;
	uint64_t now, first, last, from, i, pct;
	int ret = 0;

	if (!dev || !out || period_ms < HPUSIM_UTIL_PERIOD_MIN_MS ||
	    period_ms > HPUSIM_UTIL_PERIOD_MAX_MS)
		return -EINVAL;
	p = dev->profile;
	mb = &dev->mb;
	memset(&r, 0, sizeof(r));
	pthread_mutex_lock(&hpusim_sched.lock);
	if (!mb->on) {
		ret = -ENODATA;
		goto out;
	}
	now = hpusim_now_ns(dev);
	last = now / HPUSIM_MB_BUCKET_NS + 1;
	first = last - (uint64_t)period_ms * 1000000ULL / HPUSIM_MB_BUCKET_NS;
	r.window_ns = (uint64_t)period_ms * 1000000ULL;
	from = mb->total;
	/* the oldest bucket of the window that saw a job */
	for (i = first; i <= last; i++) {
		unsigned int slot = (unsigned int)(i % HPUSIM_MB_BUCKETS);

		if (mb->stamp[slot] == i) {
			from = mb->base[slot];
			break;
		}
	}
	memcpy(r.ns, mb->ns, sizeof(r.ns));
	r.jobs = mb->jobs;
	r.window_busy_ns = mb->total - from;
out:
	pthread_mutex_unlock(&hpusim_sched.lock);
	if (ret)
		return ret;
	pct = r.window_busy_ns * 100 / r.window_ns;
	r.utilization = (uint32_t)(pct > 100 ? 100 : pct);
	r.power_mw = p->idle_power_mw +
		     (uint32_t)((uint64_t)(p->max_power_mw - p->idle_power_mw) *
				r.utilization / 100);
	*out = r;
	return 0;
}
