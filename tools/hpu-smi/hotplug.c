// SPDX-License-Identifier: MIT
/*
 * hotplug.c - hpu-smi --hot-add [TYPE] and --hot-remove N: ask hpu-fused
 * to add or remove a simulated device (docs/hotplug.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "smi.h"

/* Exit code of a failed hot-plug request */
static int hotplug_error(const char *what, int err)
{
	const char *why = hpu_strerror(err);

	if (err == -EACCES)
		why = "permission denied: only the daemon's user (or root) may "
		      "add or remove devices";
	else if (err == -ENOSPC)
		why = "the daemon has no free device slot";
	else if (err == -EOPNOTSUPP)
		why = "a kernel device cannot be removed by hpu-smi";
	fprintf(stderr, "%s: %s: %s\n", smi_prog, what, why);
	return err == -EINVAL || err == -ENODEV ? SMI_EXIT_USAGE :
						  SMI_EXIT_ERROR;
}

int smi_hot_add(const char *type)
{
	char what[64];
	int ret, index;

	ret = hpu_hot_add(type, &index);
	if (ret) {
		snprintf(what, sizeof(what), "--hot-add %.32s",
			 type ? type : "");
		if (ret == -EINVAL) {
			fprintf(stderr,
				"%s: --hot-add: unknown device type '%s' (gaudi, gaudi2 or gaudi3)\n",
				smi_prog, type ? type : "");
			return SMI_EXIT_USAGE;
		}
		if (ret == -ENODEV) {
			fprintf(stderr,
				"%s: --hot-add: no hpu-fused serves the device directory\n",
				smi_prog);
			return SMI_EXIT_ERROR;
		}
		return hotplug_error(what, ret);
	}
	printf("HPU %d added\n", index);
	return fflush(stdout) ? SMI_EXIT_ERROR : SMI_EXIT_OK;
}

int smi_hot_remove(const char *arg)
{
	char what[64];
	char *end;
	long v;
	int ret;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 0xffff ||
	    arg[0] < '0' || arg[0] > '9') {
		fprintf(stderr,
			"%s: --hot-remove needs a device index, not '%s'\n",
			smi_prog, arg);
		return SMI_EXIT_USAGE;
	}
	ret = hpu_hot_remove((int)v);
	if (ret) {
		snprintf(what, sizeof(what), "--hot-remove %ld", v);
		if (ret == -ENODEV) {
			fprintf(stderr, "%s: %s: no device with index %ld\n",
				smi_prog, what, v);
			return SMI_EXIT_USAGE;
		}
		return hotplug_error(what, ret);
	}
	printf("HPU %ld removed\n", v);
	return fflush(stdout) ? SMI_EXIT_ERROR : SMI_EXIT_OK;
}
