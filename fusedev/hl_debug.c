// SPDX-License-Identifier: MIT
/*
 * hl_debug.c - DEBUG of the habanalabs personality (docs/habanalabs.md,
 * "DEBUG"): the device's debug mode, as the real driver keeps it; the
 * model has no CoreSight trace blocks to configure.
 */
#include <errno.h>

#include "hl_personality.h"

/**
 * hfd_hl_debug() - DEBUG of the habanalabs personality
 * @call: context and requesting thread
 * @data: struct hl_debug_args
 *
 * SET_MODE with @enable set puts the device into debug mode for the
 * calling context, without it takes it out again; closing the context
 * ends its debug mode too. The trace configuration ops (ETR, ETF, STM,
 * FUNNEL, BMON, SPMU, TIMESTAMP) need debug mode as on the real driver
 * and are not served then.
 *
 * Return: 0; -EBUSY when the device does not work; -EFAULT (the real
 * driver's answer) for enabling debug mode twice, disabling it when it
 * is off, or a trace op outside debug mode; -EOPNOTSUPP for a trace op
 * in debug mode; -EINVAL for an unknown op.
 */
int hfd_hl_debug(const struct hfd_ioctl_call *call, void *data)
{
	struct hl_debug_args *args = data;
	struct hfd_device *dev = call->ctx->dev;
	int ret = 0;

	pthread_mutex_lock(&dev->ctx_lock);
	if (dev->status != HPU_DEVICE_STATUS_OPERATIONAL) {
		ret = -EBUSY;
	} else if (args->op == HL_DEBUG_OP_SET_MODE) {
		if (!!args->enable == !!dev->hl_debug)
			ret = -EFAULT;
		else
			dev->hl_debug = args->enable ? call->ctx : NULL;
	} else if (args->op <= HL_DEBUG_OP_TIMESTAMP) {
		ret = dev->hl_debug ? -EOPNOTSUPP : -EFAULT;
	} else {
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&dev->ctx_lock);
	return ret;
}
