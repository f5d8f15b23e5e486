// SPDX-License-Identifier: MIT
/*
 * hlquery.c - the values of hl-smi's query fields, read through libhlml
 * as hl-smi reads them (docs/hpu-smi.md, "hl-smi compatibility").
 *
 * libhlml is initialised on the first value asked for and shut down by
 * smi_hl_close(); a device is found by its bus id for every value, so a
 * device removed between samples answers an error, not a stale value.
 */
#include <errno.h>
#include <string.h>

#include "hlml.h"
#include "smi.h"

#define MIB (1024ULL * 1024)

static int hl_state; /* 0: not tried, 1: initialised, -1: init failed */

static int hl_open(void)
{
	if (!hl_state)
		hl_state = hlml_init() == HLML_SUCCESS ? 1 : -1;
	return hl_state > 0 ? 0 : -ENODEV;
}

void smi_hl_close(void)
{
	if (hl_state > 0)
		hlml_shutdown();
	hl_state = 0;
}

static void put_str(struct smi_val *v, const char *s)
{
	v->type = SMI_V_STR;
	snprintf(v->s, sizeof(v->s), "%s", s);
}

static void put_int(struct smi_val *v, long long i)
{
	v->type = SMI_V_INT;
	v->i = i;
}

static void put_real(struct smi_val *v, double r)
{
	v->type = SMI_V_REAL;
	v->r = r;
}

/* What an HLML error shows: not supported is N/A, the rest ERR! */
static void put_err(struct smi_val *v, hlml_return_t r)
{
	v->type = r == HLML_ERROR_NOT_SUPPORTED ? SMI_V_NA : SMI_V_ERR;
}

static hlml_return_t clock_value(hlml_device_t h, enum smi_hl_id id,
				 struct smi_val *v)
{
	static const hlml_clock_type_t dom[] = { HLML_CLOCK_SOC, HLML_CLOCK_IC,
						 HLML_CLOCK_MME,
						 HLML_CLOCK_TPC };
	unsigned int mhz;
	hlml_return_t r;

	if (id >= SMI_HL_CLK_MAX_SOC)
		r = hlml_device_get_max_clock_info(
			h, dom[id - SMI_HL_CLK_MAX_SOC], &mhz);
	else
		r = hlml_device_get_clock_info(h, dom[id - SMI_HL_CLK_CUR_SOC],
					       &mhz);
	if (!r)
		put_int(v, mhz);
	return r;
}

static hlml_return_t ecc_value(hlml_device_t h, enum smi_hl_id id,
			       struct smi_val *v)
{
	/* corrected/uncorrected x volatile/aggregate, then DRAM only */
	static const struct {
		hlml_memory_error_type_t type;
		hlml_ecc_counter_type_t counter;
		bool dram;
	} ecc[] = {
		[SMI_HL_ECC_CORR_VOL -
		 SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_CORRECTED,
					  HLML_VOLATILE_ECC, false },
		[SMI_HL_ECC_CORR_AGG -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_CORRECTED,
						 HLML_AGGREGATE_ECC, false },
		[SMI_HL_ECC_UNCORR_VOL -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
						 HLML_VOLATILE_ECC, false },
		[SMI_HL_ECC_UNCORR_AGG -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
						 HLML_AGGREGATE_ECC, false },
		[SMI_HL_ECC_DRAM_VOL -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
						 HLML_VOLATILE_ECC, true },
		[SMI_HL_ECC_DRAM_AGG -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
						 HLML_AGGREGATE_ECC, true },
		[SMI_HL_ECC_DRAM_CORR_VOL -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_CORRECTED,
						 HLML_VOLATILE_ECC, true },
		[SMI_HL_ECC_DRAM_CORR_AGG -
			SMI_HL_ECC_CORR_VOL] = { HLML_MEMORY_ERROR_TYPE_CORRECTED,
						 HLML_AGGREGATE_ECC, true },
	};
	unsigned int k = id - SMI_HL_ECC_CORR_VOL;
	unsigned long long n;
	hlml_return_t r;

	if (ecc[k].dram)
		r = hlml_device_get_memory_error_counter(
			h, ecc[k].type, ecc[k].counter,
			HLML_MEMORY_LOCATION_DRAM, &n);
	else
		r = hlml_device_get_total_ecc_errors(h, ecc[k].type,
						     ecc[k].counter, &n);
	if (!r)
		put_int(v, (long long)n);
	return r;
}

static hlml_return_t other_value(hlml_device_t h, enum smi_hl_id id,
				 struct smi_val *v)
{
	hlml_enable_state_t cur, pend;
	hlml_violation_time_t viol;
	hlml_utilization_t util;
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	unsigned int u;
	hlml_return_t r;

	switch (id) {
	case SMI_HL_NAME:
		r = hlml_device_get_name(h, v->s, sizeof(v->s));
		break;
	case SMI_HL_UUID:
		r = hlml_device_get_uuid(h, v->s, sizeof(v->s));
		break;
	case SMI_HL_SERIAL:
		r = hlml_device_get_serial(h, v->s, sizeof(v->s));
		break;
	case SMI_HL_DRIVER_VERSION:
		r = hlml_get_driver_version(v->s, sizeof(v->s));
		break;
	case SMI_HL_BUS_ID:
		r = hlml_device_get_pci_info(h, &pci);
		if (!r)
			snprintf(v->s, sizeof(v->s), "%s", pci.bus_id);
		break;
	default:
		goto numeric;
	}
	if (!r)
		v->type = SMI_V_STR;
	return r;

numeric:
	switch (id) {
	case SMI_HL_MODULE_ID:
		r = hlml_device_get_module_id(h, &u);
		if (!r)
			put_int(v, u);
		return r;
	case SMI_HL_TEMP_AIP:
		r = hlml_device_get_temperature(h, HLML_TEMPERATURE_ON_AIP, &u);
		if (!r)
			put_int(v, u);
		return r;
	case SMI_HL_UTIL_AIP:
		r = hlml_device_get_utilization_rates(h, &util);
		if (!r)
			put_int(v, util.aip);
		return r;
	case SMI_HL_MEM_TOTAL:
	case SMI_HL_MEM_USED:
	case SMI_HL_MEM_FREE:
		r = hlml_device_get_memory_info(h, &mem);
		if (!r)
			put_int(v,
				(long long)((id == SMI_HL_MEM_TOTAL ?
						     mem.total :
					     id == SMI_HL_MEM_USED ? mem.used :
								     mem.free) /
					    MIB));
		return r;
	case SMI_HL_POWER_DRAW:
		r = hlml_device_get_power_usage(h, &u);
		if (!r)
			put_real(v, u / 1000.0);
		return r;
	case SMI_HL_POWER_MAX:
		r = hlml_device_get_power_management_default_limit(h, &u);
		if (!r)
			put_real(v, u / 1000.0);
		return r;
	case SMI_HL_ECC_MODE_CUR:
	case SMI_HL_ECC_MODE_PEND:
		r = hlml_device_get_ecc_mode(h, &cur, &pend);
		if (!r)
			put_str(v, (id == SMI_HL_ECC_MODE_CUR ? cur : pend) ==
						   HLML_FEATURE_ENABLED ?
					   "Enabled" :
					   "Disabled");
		return r;
	case SMI_HL_VIOL_POWER:
	case SMI_HL_VIOL_THERMAL:
		r = hlml_device_get_violation_status(
			h,
			id == SMI_HL_VIOL_POWER ? HLML_PERF_POLICY_POWER :
						  HLML_PERF_POLICY_THERMAL,
			&viol);
		if (!r)
			put_int(v, (long long)viol.violation_time);
		return r;
	default:
		return HLML_ERROR_INVALID_ARGUMENT;
	}
}

int smi_hl_device(const struct smi_dev *d, void **handle)
{
	hlml_device_t h;

	if (hl_open() ||
	    hlml_device_get_handle_by_pci_bus_id(d->info.bus_id, &h))
		return -ENODEV;
	*handle = h;
	return 0;
}

void smi_hl_value(enum smi_hl_id id, const struct smi_dev *d, struct smi_val *v)
{
	hlml_device_t h;
	hlml_return_t r;

	memset(v, 0, sizeof(*v));
	if (smi_hl_device(d, &h)) {
		v->type = SMI_V_ERR;
		return;
	}
	if (id >= SMI_HL_CLK_CUR_SOC && id <= SMI_HL_CLK_MAX_TPC)
		r = clock_value(h, id, v);
	else if (id >= SMI_HL_ECC_CORR_VOL && id <= SMI_HL_ECC_DRAM_CORR_AGG)
		r = ecc_value(h, id, v);
	else
		r = other_value(h, id, v);
	if (r)
		put_err(v, r);
}
