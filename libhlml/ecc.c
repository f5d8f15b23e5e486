// SPDX-License-Identifier: MIT
/*
 * ecc.c - ECC mode and counters, replaced HBM rows. The counters are the
 * daemon's class/hpuN/ecc_errors ("CORRECTED UNCORRECTABLE", HBM errors
 * since the device was created: the model's and injected ones).
 */
#include <stdio.h>

#include "hlml_internal.h"

/**
 * hlml_ecc_counts() - the device's HBM ECC counters
 * @d: device (table held)
 * @corrected: receives the corrected errors
 * @uncorrected: receives the uncorrectable errors
 *
 * Return: HLML_SUCCESS; NOT_SUPPORTED for a device without the attribute;
 * the translated -errno.
 */
hlml_return_t hlml_ecc_counts(const struct hlml_dev *d,
			      unsigned long long *corrected,
			      unsigned long long *uncorrected)
{
	char buf[64];
	int ret;

	if (!d->ctl)
		return HLML_ERROR_NOT_SUPPORTED;
	ret = hpu_device_read_attr(d->info.index, "ecc_errors", buf,
				   sizeof(buf));
	if (ret)
		return hlml_from_errno(ret);
	if (sscanf(buf, "%llu %llu", corrected, uncorrected) != 2)
		return HLML_ERROR_UNKNOWN;
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t hlml_device_get_ecc_mode(hlml_device_t device,
						   hlml_enable_state_t *current,
						   hlml_enable_state_t *pending)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!current || !pending) {
		r = HLML_ERROR_INVALID_ARGUMENT;
	} else if (!(r = hlml_need_ctl(d))) {
		/* a simulated HBM always has ECC on */
		*current = HLML_FEATURE_ENABLED;
		*pending = HLML_FEATURE_ENABLED;
	}
	hlml_dev_put(d);
	return r;
}

/* Counter of @error_type at @location (SRAM: none are modelled) */
static hlml_return_t ecc_counter(hlml_device_t device,
				 hlml_memory_error_type_t error_type,
				 hlml_ecc_counter_type_t counter_type,
				 hlml_memory_location_type_t location,
				 unsigned long long *counts)
{
	unsigned long long c, u;
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!counts ||
	    (unsigned int)error_type >= HLML_MEMORY_ERROR_TYPE_COUNT ||
	    (unsigned int)counter_type >= HLML_ECC_COUNTER_TYPE_COUNT ||
	    (unsigned int)location >= HLML_MEMORY_LOCATION_COUNT) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	r = hlml_ecc_counts(d, &c, &u);
	if (r)
		goto out;
	if (location == HLML_MEMORY_LOCATION_SRAM)
		*counts = 0;
	else
		*counts = error_type == HLML_MEMORY_ERROR_TYPE_CORRECTED ? c :
									   u;
out:
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_total_ecc_errors(
	hlml_device_t device, hlml_memory_error_type_t error_type,
	hlml_ecc_counter_type_t counter_type, unsigned long long *ecc_counts)
{
	return ecc_counter(device, error_type, counter_type,
			   HLML_MEMORY_LOCATION_DRAM, ecc_counts);
}

HLML_EXPORT hlml_return_t hlml_device_get_memory_error_counter(
	hlml_device_t device, hlml_memory_error_type_t error_type,
	hlml_ecc_counter_type_t counter_type,
	hlml_memory_location_type_t location, unsigned long long *ecc_counts)
{
	return ecc_counter(device, error_type, counter_type, location,
			   ecc_counts);
}

HLML_EXPORT hlml_return_t hlml_device_get_replaced_rows(
	hlml_device_t device, hlml_row_replacement_cause_t cause,
	unsigned int *row_count, hlml_row_address_t *addresses)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!row_count ||
	    (unsigned int)cause >= HLML_ROW_REPLACEMENT_CAUSE_COUNT)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (!(r = hlml_need_ctl(d)))
		*row_count = 0; /* the model replaces no rows */
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_replaced_rows_pending_status(
	hlml_device_t device, hlml_enable_state_t *is_pending)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!is_pending)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (!(r = hlml_need_ctl(d)))
		*is_pending = HLML_FEATURE_DISABLED;
	hlml_dev_put(d);
	return r;
}
