// SPDX-License-Identifier: MIT
/*
 * telemetry.c - engine busy accounting, utilization, and the power,
 * thermal, clock and ECC model of a device.
 *
 * Nothing runs in the background: the power and thermal state is advanced
 * in closed form from the last update to "now" whenever the busy state
 * changes or a sensor is read. Between two updates the load is constant
 * (no engine changed state), so each step is exact for a first-order lag.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpusim.h"

#define NS_PER_MS 1000000ULL
#define NS_PER_S  1000000000.0

/* Keep busy periods that can still overlap the longest window */
#define HPUSIM_RING_KEEP_NS ((uint64_t)HPUSIM_UTIL_PERIOD_MAX_MS * NS_PER_MS)

/**
 * hpusim_telemetry_init() - start busy accounting and the sensor model
 * @dev: device, with its profile and clock set
 *
 * The sensors start at their idle steady state: the board was powered
 * before the simulator attached to it.
 *
 * Return: 0 or -ENOMEM.
 */
int hpusim_telemetry_init(struct hpu_fw_device *dev)
{
	struct hpusim_telemetry *tm = &dev->tm;
	const struct hpu_fw_profile *p = dev->profile;
	int ret;

	memset(tm, 0, sizeof(*tm));
	tm->ring = calloc(HPUSIM_BUSY_RING, sizeof(*tm->ring));
	if (!tm->ring)
		return -ENOMEM;
	ret = pthread_mutex_init(&tm->lock, NULL);
	if (ret)
		goto err_free_ring;
	tm->last_ns = dev->t0_ns;
	tm->power_mw = p->idle_power_mw;
	tm->temp_mc = p->temp_ambient_mc +
		      (double)p->idle_power_mw / 1000.0 * p->temp_per_watt_mc;
	return 0;

err_free_ring:
	free(tm->ring);
	tm->ring = NULL;
	return -ret;
}

/**
 * hpusim_telemetry_fini() - release what hpusim_telemetry_init() took
 * @dev: device
 */
void hpusim_telemetry_fini(struct hpu_fw_device *dev)
{
	pthread_mutex_destroy(&dev->tm.lock);
	free(dev->tm.ring);
	dev->tm.ring = NULL;
}

/* Advance power, energy and temperature to @now at the current load */
static void tm_advance(struct hpu_fw_device *dev, uint64_t now)
{
	const struct hpu_fw_profile *p = dev->profile;
	struct hpusim_telemetry *tm = &dev->tm;
	double dt, tau, decay, target, lag, step_mj, avg_w, temp_target;

	if (now <= tm->last_ns)
		return;
	dt = (double)(now - tm->last_ns);

	/* load is 1 while any engine runs: power = idle + util * (max - idle) */
	target = p->idle_power_mw;
	if (tm->nr_busy)
		target = p->max_power_mw;

	tau = (double)HPUSIM_POWER_TAU_NS;
	decay = exp(-dt / tau);
	/* integral of target + (p0 - target) * e^(-t/tau) over dt, mW*ns */
	lag = (tm->power_mw - target) * tau * (1.0 - decay);
	step_mj = (target * dt + lag) / NS_PER_S;
	if (step_mj < 0)
		step_mj = 0;
	tm->energy_mj += step_mj;
	tm->power_mw = target + (tm->power_mw - target) * decay;

	/* the die heats toward ambient + mean power of the step * K/W */
	avg_w = step_mj / (dt / NS_PER_S) / 1000.0;
	temp_target = p->temp_ambient_mc + avg_w * p->temp_per_watt_mc;
	decay = exp(-dt / (double)HPUSIM_TEMP_TAU_NS);
	tm->temp_mc = temp_target + (tm->temp_mc - temp_target) * decay;

	tm->last_ns = now;
}

/* Drop periods no window can reach; if still full, merge the two oldest */
static void tm_ring_make_room(struct hpusim_telemetry *tm, uint64_t now)
{
	struct hpusim_busy_interval *head, *next;

	while (tm->ring_len) {
		head = &tm->ring[tm->ring_head];
		if (head->end_ns + HPUSIM_RING_KEEP_NS >= now)
			break;
		tm->ring_head = (tm->ring_head + 1) % HPUSIM_BUSY_RING;
		tm->ring_len--;
	}
	if (tm->ring_len < HPUSIM_BUSY_RING)
		return;
	head = &tm->ring[tm->ring_head];
	next = &tm->ring[(tm->ring_head + 1) % HPUSIM_BUSY_RING];
	next->start_ns = head->start_ns;
	tm->ring_head = (tm->ring_head + 1) % HPUSIM_BUSY_RING;
	tm->ring_len--;
}

/* The last engine went idle: record the busy period that just ended */
static void tm_ring_push(struct hpusim_telemetry *tm, uint64_t start,
			 uint64_t end)
{
	struct hpusim_busy_interval *slot;

	tm_ring_make_room(tm, end);
	slot = &tm->ring[(tm->ring_head + tm->ring_len) % HPUSIM_BUSY_RING];
	slot->start_ns = start;
	slot->end_ns = end > start ? end : start;
	tm->ring_len++;
}

static bool tm_engine_busy(const struct hpusim_telemetry *tm, uint32_t engine)
{
	return tm->busy[engine / 64] & (1ULL << (engine % 64));
}

/**
 * hpusim_engine_busy_begin() - an engine starts running work
 * @dev: device
 * @engine: engine id
 *
 * Return: 0, or -EINVAL for an engine id the device does not have.
 */
int hpusim_engine_busy_begin(struct hpu_fw_device *dev, uint32_t engine)
{
	struct hpusim_telemetry *tm = &dev->tm;
	uint64_t now;

	if (engine >= dev->num_engines)
		return -EINVAL;
	pthread_mutex_lock(&tm->lock);
	if (!tm_engine_busy(tm, engine)) {
		now = hpusim_now_ns(dev);
		tm_advance(dev, now);
		if (!tm->nr_busy++)
			tm->busy_since_ns = now;
		tm->busy[engine / 64] |= 1ULL << (engine % 64);
	}
	pthread_mutex_unlock(&tm->lock);
	return 0;
}

/**
 * hpusim_engine_busy_end() - an engine finished its work
 * @dev: device
 * @engine: engine id
 *
 * Return: 0, or -EINVAL for an engine id the device does not have.
 */
int hpusim_engine_busy_end(struct hpu_fw_device *dev, uint32_t engine)
{
	struct hpusim_telemetry *tm = &dev->tm;
	uint64_t now;

	if (engine >= dev->num_engines)
		return -EINVAL;
	pthread_mutex_lock(&tm->lock);
	if (tm_engine_busy(tm, engine)) {
		now = hpusim_now_ns(dev);
		tm_advance(dev, now);
		tm->busy[engine / 64] &= ~(1ULL << (engine % 64));
		if (!--tm->nr_busy)
			tm_ring_push(tm, tm->busy_since_ns, now);
	}
	pthread_mutex_unlock(&tm->lock);
	return 0;
}

/**
 * hpusim_telemetry_ecc_error() - count an HBM ECC error
 * @dev: device
 * @uncorrected: true for an uncorrectable error
 */
void hpusim_telemetry_ecc_error(struct hpu_fw_device *dev, bool uncorrected)
{
	pthread_mutex_lock(&dev->tm.lock);
	if (uncorrected)
		dev->tm.ecc_uncorrected++;
	else
		dev->tm.ecc_corrected++;
	pthread_mutex_unlock(&dev->tm.lock);
}

int32_t hpusim_overheat_mc(const struct hpu_fw_profile *p)
{
	return p->temp_slowdown_mc +
	       (p->temp_shutdown_mc - p->temp_slowdown_mc) / 2;
}

void hpusim_telemetry_thermal_fault(struct hpu_fw_device *dev, bool on)
{
	pthread_mutex_lock(&dev->tm.lock);
	dev->tm.overheated = on;
	pthread_mutex_unlock(&dev->tm.lock);
}

static uint64_t overlap_ns(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0;
	uint64_t hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/**
 * hpusim_telemetry_utilization() - share of a window with any engine busy
 * @dev: device
 * @period_ms: window ending now, HPUSIM_UTIL_PERIOD_MIN_MS..MAX_MS
 * @percent: out: 0..100, rounded to nearest
 *
 * Time before the device was created counts as idle.
 *
 * Return: 0, or -EINVAL for a period out of range.
 */
int hpusim_telemetry_utilization(struct hpu_fw_device *dev, uint32_t period_ms,
				 uint32_t *percent)
{
	struct hpusim_telemetry *tm = &dev->tm;
	uint64_t now, from, period, busy = 0;
	uint32_t i;

	if (!percent || period_ms < HPUSIM_UTIL_PERIOD_MIN_MS ||
	    period_ms > HPUSIM_UTIL_PERIOD_MAX_MS)
		return -EINVAL;
	period = (uint64_t)period_ms * NS_PER_MS;

	pthread_mutex_lock(&tm->lock);
	now = hpusim_now_ns(dev);
	from = now > period ? now - period : 0;
	for (i = 0; i < tm->ring_len; i++) {
		const struct hpusim_busy_interval *b =
			&tm->ring[(tm->ring_head + i) % HPUSIM_BUSY_RING];

		busy += overlap_ns(b->start_ns, b->end_ns, from, now);
	}
	if (tm->nr_busy)
		busy += overlap_ns(tm->busy_since_ns, now, from, now);
	pthread_mutex_unlock(&tm->lock);

	if (busy > period)
		busy = period;
	*percent = (uint32_t)((busy * 100 + period / 2) / period);
	return 0;
}

/**
 * hpusim_telemetry_hw_idle() - whether every engine is idle
 * @dev: device
 * @busy_mask: out: bit per busy engine, or NULL
 *
 * Return: 1 when idle, 0 when an engine is busy.
 */
int hpusim_telemetry_hw_idle(struct hpu_fw_device *dev, uint64_t busy_mask[4])
{
	struct hpusim_telemetry *tm = &dev->tm;
	int idle;

	pthread_mutex_lock(&tm->lock);
	if (busy_mask)
		memcpy(busy_mask, tm->busy, sizeof(tm->busy));
	idle = !tm->nr_busy;
	pthread_mutex_unlock(&tm->lock);
	return idle;
}

/**
 * hpusim_clock_mhz() - core clock the model runs at
 * @p: chip profile
 * @temp_mc: ASIC temperature
 * @busy: whether any engine is busy
 *
 * Return: clock in MHz.
 */
uint32_t hpusim_clock_mhz(const struct hpu_fw_profile *p, int32_t temp_mc,
			  bool busy)
{
	int64_t span_t, span_f, over;
	uint32_t clk = busy ? p->clk_max_mhz : p->clk_idle_mhz;
	uint32_t limit;

	if (temp_mc <= p->temp_slowdown_mc)
		return clk;
	span_t = (int64_t)p->temp_shutdown_mc - p->temp_slowdown_mc;
	span_f = (int64_t)p->clk_max_mhz - p->clk_idle_mhz;
	over = (int64_t)temp_mc - p->temp_slowdown_mc;
	if (span_t <= 0 || over >= span_t)
		limit = p->clk_idle_mhz;
	else
		limit = (uint32_t)(p->clk_max_mhz - span_f * over / span_t);
	return clk < limit ? clk : limit;
}

/**
 * hpusim_telemetry_sample() - read every sensor now
 * @dev: device
 * @out: sample
 */
void hpusim_telemetry_sample(struct hpu_fw_device *dev,
			     struct hpu_fw_telemetry *out)
{
	const struct hpu_fw_profile *p = dev->profile;
	struct hpusim_telemetry *tm = &dev->tm;
	double rise;

	pthread_mutex_lock(&tm->lock);
	tm_advance(dev, hpusim_now_ns(dev));
	memset(out, 0, sizeof(*out));
	out->power_mw = (uint64_t)llround(tm->power_mw);
	out->energy_mj = (uint64_t)tm->energy_mj;
	out->temp_asic_mc = (int32_t)lround(tm->temp_mc);
	/* a failed cooler: the die is at least this hot, whatever the load */
	if (tm->overheated && out->temp_asic_mc < hpusim_overheat_mc(p))
		out->temp_asic_mc = hpusim_overheat_mc(p);
	rise = out->temp_asic_mc - p->temp_ambient_mc;
	out->temp_hbm_mc = (int32_t)lround(
		p->temp_ambient_mc + rise * HPUSIM_HBM_TEMP_SHARE_PCT / 100.0);
	out->clk_cur_mhz = hpusim_clock_mhz(p, out->temp_asic_mc, tm->nr_busy);
	out->ecc_corrected = tm->ecc_corrected;
	out->ecc_uncorrected = tm->ecc_uncorrected;
	pthread_mutex_unlock(&tm->lock);
}

/**
 * hpusim_telemetry_reset() - return every engine to idle
 * @dev: device
 *
 * The busy period cut short by the reset stays in the utilization history;
 * power, energy, temperature and ECC counters are physical and go on.
 */
void hpusim_telemetry_reset(struct hpu_fw_device *dev)
{
	struct hpusim_telemetry *tm = &dev->tm;
	uint64_t now;

	pthread_mutex_lock(&tm->lock);
	now = hpusim_now_ns(dev);
	tm_advance(dev, now);
	if (tm->nr_busy)
		tm_ring_push(tm, tm->busy_since_ns, now);
	memset(tm->busy, 0, sizeof(tm->busy));
	tm->nr_busy = 0;
	pthread_mutex_unlock(&tm->lock);
}
