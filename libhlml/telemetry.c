// SPDX-License-Identifier: MIT
/*
 * telemetry.c - clocks, utilization, memory, temperatures, power and
 * energy: the INFO answers of the device's control node (the telemetry
 * model of firmware-sim behind them).
 */
#include <string.h>

#include "hlml_internal.h"

/* Utilization window, as hpu-smi's */
#define HLML_UTIL_PERIOD_MS 1000

/* One check for the functions below: handle, out pointer, INFO possible */
static hlml_return_t begin(hlml_device_t device, const void *out,
			   struct hlml_dev **d)
{
	hlml_return_t r;

	r = hlml_dev_get(device, d);
	if (r)
		return r;
	r = out ? hlml_need_ctl(*d) : HLML_ERROR_INVALID_ARGUMENT;
	if (r)
		hlml_dev_put(*d);
	return r;
}

/* As begin(), also for a kernel device (answered from sysfs) */
static hlml_return_t begin_any(hlml_device_t device, const void *out,
			       struct hlml_dev **d)
{
	hlml_return_t r;

	r = hlml_dev_get(device, d);
	if (r)
		return r;
	if (!out) {
		hlml_dev_put(*d);
		return HLML_ERROR_INVALID_ARGUMENT;
	}
	return HLML_SUCCESS;
}

static hlml_return_t clock_query(hlml_device_t device, hlml_clock_type_t type,
				 unsigned int *clock, bool max)
{
	struct hpu_info_clk_rate c;
	unsigned long long v;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin_any(device, clock, &d);
	if (r)
		return r;
	/* one core clock drives every domain of a simulated device */
	if ((unsigned int)type >= HLML_CLOCK_COUNT) {
		r = HLML_ERROR_INVALID_ARGUMENT;
	} else if (!d->ctl) {
		r = hlml_kernel_uint(
			d, max ? "clk_max_freq_mhz" : "clk_cur_freq_mhz", &v);
		if (!r)
			*clock = (unsigned int)v;
	} else {
		r = hlml_from_errno(hpu_info_clk_rate(d->ctl, &c));
		if (!r)
			*clock = max ? c.max_clk_rate_mhz : c.cur_clk_rate_mhz;
	}
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_clock_info(hlml_device_t device,
						     hlml_clock_type_t type,
						     unsigned int *clock_mhz)
{
	return clock_query(device, type, clock_mhz, false);
}

HLML_EXPORT hlml_return_t hlml_device_get_max_clock_info(
	hlml_device_t device, hlml_clock_type_t type, unsigned int *clock_mhz)
{
	return clock_query(device, type, clock_mhz, true);
}

HLML_EXPORT hlml_return_t hlml_device_get_utilization_rates(
	hlml_device_t device, hlml_utilization_t *utilization)
{
	struct hpu_info_device_utilization u;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, utilization, &d);
	if (r)
		return r;
	r = hlml_from_errno(
		hpu_info_utilization(d->ctl, HLML_UTIL_PERIOD_MS, &u));
	if (!r)
		utilization->aip = u.utilization;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_memory_info(hlml_device_t device,
						      hlml_memory_t *memory)
{
	struct hpu_info_dram_usage m;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, memory, &d);
	if (r)
		return r;
	r = hlml_from_errno(hpu_info_dram_usage(d->ctl, &m));
	if (!r) {
		memory->total = m.dram_total_mem;
		memory->used = m.dram_used_mem;
		memory->free = m.dram_free_mem;
	}
	hlml_dev_put(d);
	return r;
}

/* milli-degrees to whole degrees, 0 below zero (the answer is unsigned) */
static unsigned int celsius(int32_t mc)
{
	return mc > 0 ? (unsigned int)mc / 1000 : 0;
}

HLML_EXPORT hlml_return_t hlml_device_get_temperature(
	hlml_device_t device, hlml_temperature_sensors_t sensor_type,
	unsigned int *temp)
{
	struct hpu_info_thermal t;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, temp, &d);
	if (r)
		return r;
	if ((unsigned int)sensor_type > HLML_TEMPERATURE_OTHER) {
		r = HLML_ERROR_INVALID_ARGUMENT;
	} else if (sensor_type == HLML_TEMPERATURE_OTHER) {
		r = HLML_ERROR_NOT_SUPPORTED;
	} else {
		r = hlml_from_errno(hpu_info_thermal(d->ctl, &t));
		/* the model's second sensor is the HBM's, on the board */
		if (!r)
			*temp = celsius(sensor_type == HLML_TEMPERATURE_ON_AIP ?
						t.temp_asic_mc :
						t.temp_hbm_mc);
	}
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_temperature_threshold(
	hlml_device_t device, hlml_temperature_thresholds_t threshold_type,
	unsigned int *temp)
{
	struct hpu_info_thermal t;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, temp, &d);
	if (r)
		return r;
	if ((unsigned int)threshold_type >= HLML_TEMPERATURE_THRESHOLD_COUNT) {
		r = HLML_ERROR_INVALID_ARGUMENT;
	} else if (threshold_type == HLML_TEMPERATURE_THRESHOLD_MEM_MAX) {
		r = HLML_ERROR_NOT_SUPPORTED;
	} else {
		r = hlml_from_errno(hpu_info_thermal(d->ctl, &t));
		if (!r)
			*temp = celsius(
				threshold_type ==
						HLML_TEMPERATURE_THRESHOLD_SHUTDOWN ?
					t.temp_shutdown_mc :
					t.temp_slowdown_mc);
	}
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_persistence_mode(
	hlml_device_t device, hlml_enable_state_t *mode)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	r = mode ? HLML_ERROR_NOT_SUPPORTED : HLML_ERROR_INVALID_ARGUMENT;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_performance_state(
	hlml_device_t device, hlml_p_states_t *p_state)
{
	struct hpu_info_device_status s;
	struct hlml_dev *d;
	char st[64];
	hlml_return_t r;
	bool ok = false;

	r = begin_any(device, p_state, &d);
	if (r)
		return r;
	if (d->ctl) {
		r = hlml_from_errno(hpu_info_device_status(d->ctl, &s));
		ok = !r && s.status == HPU_DEVICE_STATUS_OPERATIONAL;
	} else {
		r = hlml_kernel_str(d, "status", st, sizeof(st));
		ok = !r && !strcmp(st, "operational");
	}
	if (!r)
		*p_state = ok ? HLML_PSTATE_0 : HLML_PSTATE_UNKNOWN;
	hlml_dev_put(d);
	return r;
}

/* HPU_INFO_POWER of @device into @p */
static hlml_return_t power_query(hlml_device_t device, const void *out,
				 struct hpu_info_power *p)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, out, &d);
	if (r)
		return r;
	r = hlml_from_errno(hpu_info_power(d->ctl, p));
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_power_usage(hlml_device_t device,
						      unsigned int *pw)
{
	struct hpu_info_power p;
	hlml_return_t r = power_query(device, pw, &p);

	if (!r)
		*pw = (unsigned int)p.power_mw;
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_power_management_default_limit(
	hlml_device_t device, unsigned int *default_limit)
{
	struct hpu_info_power p;
	unsigned long long v;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin_any(device, default_limit, &d);
	if (r)
		return r;
	if (d->ctl) {
		r = hlml_from_errno(hpu_info_power(d->ctl, &p));
		if (!r)
			*default_limit = (unsigned int)p.power_cap_mw;
	} else {
		/* habanalabs' max_power is in mW too */
		r = hlml_kernel_uint(d, "max_power", &v);
		if (!r)
			*default_limit = (unsigned int)v;
	}
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_total_energy_consumption(
	hlml_device_t device, unsigned long long *energy)
{
	struct hpu_info_power p;
	hlml_return_t r = power_query(device, energy, &p);

	if (!r)
		*energy = p.energy_mj;
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_current_clocks_throttle_reasons(
	hlml_device_t device, unsigned long long *clocks_throttle_reasons)
{
	struct hpu_info_clk_rate c;
	struct hpu_info_thermal t;
	struct hpu_info_power p;
	unsigned long long why = 0;
	struct hlml_dev *d;
	hlml_return_t r;

	r = begin(device, clocks_throttle_reasons, &d);
	if (r)
		return r;
	r = hlml_from_errno(hpu_info_clk_rate(d->ctl, &c));
	if (!r)
		r = hlml_from_errno(hpu_info_thermal(d->ctl, &t));
	if (!r)
		r = hlml_from_errno(hpu_info_power(d->ctl, &p));
	if (!r) {
		/* the model lowers the clock above the slowdown temperature */
		if (c.cur_clk_rate_mhz < c.max_clk_rate_mhz &&
		    t.temp_asic_mc > t.temp_slowdown_mc)
			why |= HLML_CLOCKS_THROTTLE_REASON_THERMAL;
		if (p.power_cap_mw && p.power_mw >= p.power_cap_mw)
			why |= HLML_CLOCKS_THROTTLE_REASON_POWER;
		*clocks_throttle_reasons = why;
	}
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_violation_status(
	hlml_device_t device, hlml_perf_policy_type_t perf_policy_type,
	hlml_violation_time_t *viol_time)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!viol_time ||
	    (unsigned int)perf_policy_type >= HLML_PERF_POLICY_COUNT)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else
		r = HLML_ERROR_NOT_SUPPORTED;
	hlml_dev_put(d);
	return r;
}
