// SPDX-License-Identifier: MIT
/*
 * inject.c - hlml_device_err_inject() onto the driver's DEBUG fault
 * injection. DEBUG is a compute-node command: the call opens the device's
 * compute node for the injection and closes it again (root or the
 * device's owner only, as for any injection).
 */
#include <errno.h>

#include "hlml_internal.h"

/**
 * struct hlml_fault - what one HLML fault becomes
 * @fault: HPU_FAULT_*, or -1 when the device model has no such fault
 * @param: its parameter
 */
struct hlml_fault {
	int fault;
	uint64_t param;
};

static const struct hlml_fault faults[HLML_ERR_INJECT_COUNT] = {
	[HLML_ERR_INJECT_ENDLESS_COMMAND] = { HPU_FAULT_ENGINE_HANG, 0 },
	[HLML_ERR_INJECT_NON_FATAL_EVENT] = { HPU_FAULT_ECC_ERR, 0 },
	[HLML_ERR_INJECT_FATAL_EVENT] = { HPU_FAULT_ECC_ERR, 1 },
	[HLML_ERR_INJECT_LOSS_OF_HEARTBEAT] = { HPU_FAULT_DEVICE_ERR, 0 },
	[HLML_ERR_INJECT_THERMAL_EVENT] = { HPU_FAULT_THERMAL, 0 },
};

HLML_EXPORT hlml_return_t hlml_device_err_inject(hlml_device_t device,
						 hlml_err_inject_t err_type)
{
	const struct hlml_fault *f;
	struct hpu_device *dev;
	struct hlml_dev *d;
	hlml_return_t r;
	int ret;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if ((unsigned int)err_type >= HLML_ERR_INJECT_COUNT) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	f = &faults[err_type];
	r = hlml_need_ctl(d);
	if (r || f->fault < 0) {
		r = HLML_ERROR_NOT_SUPPORTED;
		goto out;
	}
	r = hlml_from_errno(hpu_open(d->info.index, &dev));
	if (r)
		goto out;
	ret = hpu_debug_inject_fault(dev, (uint32_t)f->fault, 0, f->param);
	/* a daemon before ABI 1.4 does not know the kind of a valid call */
	if (ret == -EINVAL && f->fault == HPU_FAULT_THERMAL)
		ret = -EOPNOTSUPP;
	r = hlml_from_errno(ret);
	hpu_close(dev);
out:
	hlml_dev_put(d);
	return r;
}
