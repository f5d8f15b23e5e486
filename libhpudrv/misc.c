// SPDX-License-Identifier: MIT
/*
 * misc.c - library version and error/status strings.
 */
#include <errno.h>
#include <string.h>

#include "hpu_names.h"
#include "hpudrv_internal.h"

/* The Makefile derives it from libhpudrv.map's newest node */
#ifndef HPUDRV_LIB_VERSION
#error "HPUDRV_LIB_VERSION is set by the Makefile (libhpudrv.map)"
#endif

const char *hpu_library_version(void)
{
	return HPUDRV_LIB_VERSION;
}

const char *hpu_device_status_str(unsigned int status)
{
	return hpu_status_name(status);
}

/* Errors whose meaning at the driver differs from strerror(3) */
static const struct {
	int err;
	const char *msg;
} driver_errors[] = {
	{ ENOTTY, "command not supported by the driver" },
	{ ENODEV, "no such HPU device (or hidden by HPU_VISIBLE_DEVICES, "
		  "HABANA_VISIBLE_DEVICES or HABANA_VISIBLE_MODULES)" },
	/* a CS of a device in reset or failed (docs/abi.md), or an open */
	{ EBUSY, "device busy: in reset or failed and waiting for a hard "
		 "reset (hl-smi -r), or already acquired by another process "
		 "(exclusive mode)" },
	{ EPERM, "operation not allowed on a control node" },
	{ EFAULT, "driver could not access the caller's memory" },
	/*
	 * the driver's: a hard reset killed the context (docs/abi.md);
	 * libhpudrv's own: a device directory file it cannot parse
	 */
	{ EIO, "I/O error: the device was reset or failed (close it and "
	       "open it again), or the device directory gave a malformed "
	       "answer" },
	{ ENOTCONN, "device daemon is gone (stale mount)" },
	{ EACCES,
	  "permission denied: you are not in the group of the device node "
	  "(see docs/install.md)" },
};

const char *hpu_strerror(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(driver_errors) / sizeof(driver_errors[0]); i++)
		if (driver_errors[i].err == err)
			return driver_errors[i].msg;
	return strerror(err);
}
