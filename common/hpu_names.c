// SPDX-License-Identifier: MIT
/*
 * hpu_names.c - text names of ABI values.
 */
#include "hpu_accel.h"
#include "hpu_names.h"

static const char *const status_names[] = {
	[HPU_DEVICE_STATUS_OPERATIONAL] = "operational",
	[HPU_DEVICE_STATUS_IN_RESET] = "in reset",
	[HPU_DEVICE_STATUS_MALFUNCTION] = "malfunction",
	[HPU_DEVICE_STATUS_NEEDS_RESET] = "needs reset",
	[HPU_DEVICE_STATUS_IN_DEVICE_CREATION] = "in device creation",
	[HPU_DEVICE_STATUS_REMOVED] = "removed",
};

const char *hpu_status_name(unsigned int status)
{
	if (status >= sizeof(status_names) / sizeof(status_names[0]) ||
	    !status_names[status])
		return "unknown";
	return status_names[status];
}
