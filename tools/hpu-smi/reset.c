// SPDX-License-Identifier: MIT
/*
 * reset.c - hpu-smi -r [-i ID...]: reset devices through their control
 * nodes (docs/hpu-smi.md, "Reset"; the driver's side: docs/abi.md,
 * "DEBUG ops").
 */
#include <errno.h>
#include <string.h>

#include "smi.h"

/**
 * smi_reset_kind() - the HPU_RESET_* of -r's argument
 * @arg: "hard", "compute" or NULL (hard)
 *
 * Return: the kind, or -EINVAL (a usage error, printed).
 */
int smi_reset_kind(const char *arg)
{
	if (!arg || !strcmp(arg, "hard"))
		return HPU_RESET_HARD;
	if (!strcmp(arg, "compute"))
		return HPU_RESET_COMPUTE;
	fprintf(stderr,
		"%s: -r: unknown reset kind '%s' (hard or compute)\n"
		"Try '%s --help' for more information.\n",
		smi_prog, arg, smi_prog);
	return -EINVAL;
}

static const char *reset_error(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "permission denied: only root or the daemon's user may reset a device";
	case -EBUSY:
		return "a reset of the device is under way";
	case -EOPNOTSUPP:
		return "this device cannot be reset by hpu-smi";
	default:
		return hpu_strerror(err);
	}
}

/**
 * smi_reset() - reset each selected device, one after the other
 * @sel: the devices of -i
 * @nsel: their number
 * @kind: HPU_RESET_HARD or HPU_RESET_COMPUTE
 *
 * Return: the exit code: 0 when every reset was done, else 1.
 */
int smi_reset(const struct hpu_device_info *sel, int nsel, unsigned int kind)
{
	const char *what = kind == HPU_RESET_HARD ? "hard" : "compute";
	struct hpu_device *dev;
	int i, ret, code = SMI_EXIT_OK;

	for (i = 0; i < nsel; i++) {
		ret = hpu_open_control(sel[i].index, &dev);
		if (!ret) {
			ret = hpu_device_reset(dev, kind);
			hpu_close(dev);
		}
		if (ret) {
			fprintf(stderr, "%s: HPU %d (%s): %s reset: %s\n",
				smi_prog, sel[i].index, sel[i].bus_id, what,
				reset_error(ret));
			code = SMI_EXIT_ERROR;
			continue;
		}
		printf("HPU %d (%s): %s reset done\n", sel[i].index,
		       sel[i].bus_id, what);
	}
	return fflush(stdout) ? SMI_EXIT_ERROR : code;
}
