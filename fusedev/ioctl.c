// SPDX-License-Identifier: MIT
/*
 * ioctl.c - table-driven ioctl dispatch and the shared argument checks.
 *
 * Rules, in the order they apply (docs/fusedev.md):
 *  1. _IOC_TYPE not DRM_IOCTL_BASE, number outside the table, no entry,
 *     or a direction other than the table's: -ENOTTY;
 *  2. _IOC_SIZE differs from the table's: -EINVAL (the table's size is
 *     trusted, never the caller's);
 *  3. a command without HFD_IOCTL_CONTROL_OK on a control node: -EPERM,
 *     unless the entry's control_ops names the op (DEBUG RESET); after a
 *     hard reset, anything but INFO on the reset context: -EIO;
 *  4. an unknown op of the command's member table, or a non-zero input
 *     member (pad and reserved included) the op does not use: -EINVAL
 *     (hfd_args_check(), ioctl_args.c);
 *  5. an op with effects whose argument struct cannot be written back
 *     in the caller: -EFAULT before anything happens, so that the
 *     kernel's copy of the answer cannot fail after the effect;
 *  6. the handler, which checks flags and the values of the members its
 *     op uses before anything else.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hpu_fused.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/**
 * hfd_check_flags() - reject flag bits the driver does not know
 * @flags: flags given by the caller
 * @mask: every bit the driver accepts there
 *
 * Return: 0 or -EINVAL.
 */
int hfd_check_flags(uint64_t flags, uint64_t mask)
{
	return (flags & ~mask) ? -EINVAL : 0;
}

/**
 * hfd_check_zero() - reject non-zero pad or reserved bytes
 * @ptr: first byte
 * @len: bytes
 *
 * Return: 0 or -EINVAL.
 */
int hfd_check_zero(const void *ptr, size_t len)
{
	const uint8_t *p = ptr;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return -EINVAL;
	return 0;
}

static const struct hfd_ioctl_desc hfd_ioctls[] = {
	[HPU_COMMAND_INFO] = {
		.cmd = HPU_IOCTL_INFO,
		.func = hfd_ioctl_info,
		.flags = HFD_IOCTL_CONTROL_OK,
		.name = "INFO",
		.args = &hfd_info_arg_rules,
	},
	[HPU_COMMAND_CB] = {
		.cmd = HPU_IOCTL_CB,
		.func = hfd_ioctl_cb,
		.name = "CB",
		.args = &hfd_cb_arg_rules,
	},
	[HPU_COMMAND_CS] = {
		.cmd = HPU_IOCTL_CS,
		.func = hfd_ioctl_cs,
		.name = "CS",
		.args = &hfd_cs_arg_rules,
	},
	[HPU_COMMAND_WAIT_CS] = {
		.cmd = HPU_IOCTL_WAIT_CS,
		.func = hfd_ioctl_wait_cs,
		.name = "WAIT_CS",
		.args = &hfd_wait_cs_arg_rules,
	},
	[HPU_COMMAND_MEMORY] = {
		.cmd = HPU_IOCTL_MEMORY,
		.func = hfd_ioctl_memory,
		.name = "MEMORY",
		.args = &hfd_mem_arg_rules,
	},
	[HPU_COMMAND_DEBUG] = {
		.cmd = HPU_IOCTL_DEBUG,
		.func = hfd_ioctl_debug,
		.name = "DEBUG",
		.args = &hfd_debug_arg_rules,
		.control_ops = 1ULL << HPU_DEBUG_OP_RESET,
	},
	[HPU_COMMAND_NIC] = {
		.cmd = HPU_IOCTL_NIC,
		.func = hfd_ioctl_nic,
		.name = "NIC",
		.args = &hfd_nic_arg_rules,
	},
	[HPU_COMMAND_RING] = {
		.cmd = HPU_IOCTL_RING,
		.func = hfd_ioctl_ring,
		.name = "RING",
		.args = &hfd_ring_arg_rules,
	},
	[HPU_COMMAND_TRACE] = {
		.cmd = HPU_IOCTL_TRACE,
		.func = hfd_ioctl_trace,
		.name = "TRACE",
		.args = &hfd_trace_arg_rules,
	},
};

_Static_assert(ARRAY_SIZE(hfd_ioctls) == HPU_COMMAND_END,
	       "every command number has an entry");

/**
 * hfd_ioctl_lookup() - the table entry of a command number
 * @cmd: command number given by the caller
 * @err: receives -ENOTTY or -EINVAL when there is no usable entry
 *
 * Return: the entry, or NULL (see @err).
 */
const struct hfd_ioctl_desc *hfd_ioctl_lookup(unsigned int cmd, int *err)
{
	const struct hfd_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);

	*err = -ENOTTY;
	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE || nr < DRM_COMMAND_BASE ||
	    nr >= DRM_COMMAND_BASE + ARRAY_SIZE(hfd_ioctls))
		return NULL;
	desc = &hfd_ioctls[nr - DRM_COMMAND_BASE];
	if (!desc->func || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return NULL;
	if (_IOC_SIZE(cmd) != _IOC_SIZE(desc->cmd)) {
		*err = -EINVAL;
		return NULL;
	}
	*err = 0;
	return desc;
}

/* Whether a control node may run the command of @desc with @data */
static bool control_allowed(const struct hfd_ioctl_desc *desc, const void *data)
{
	int op;

	if (desc->flags & HFD_IOCTL_CONTROL_OK)
		return true;
	if (!desc->control_ops || !desc->args)
		return false;
	op = desc->args->variant(data);
	return op >= 0 && op < 64 && (desc->control_ops >> op) & 1;
}

/**
 * hfd_ioctl_dispatch() - run one ioctl through the table
 * @call: context and requesting thread
 * @cmd: command number
 * @in: argument bytes the kernel copied in (_IOC_SIZE(cmd) of them)
 * @in_size: bytes at @in
 * @out: receives the argument struct after the handler
 * @out_size: in: room at @out; out: bytes to copy back to the caller
 *
 * Return: 0 or -errno; @out is only meaningful on 0. HFD_IOCTL_DEFERRED:
 * the handler answers later through @call->defer.
 */
int hfd_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
		       const void *in, size_t in_size, void *out,
		       size_t *out_size)
{
	uint64_t data[HFD_IOCTL_MAX_SIZE / sizeof(uint64_t)];
	const struct hfd_ioctl_desc *desc;
	bool effects = false;
	size_t size;
	int ret;

	desc = hfd_ioctl_lookup(cmd, &ret);
	if (!desc) {
		hfd_log_ratelimited(HFD_LOG_DEBUG,
				    "pid %d: ioctl 0x%08x rejected: %s",
				    (int)call->pid, cmd, strerror(-ret));
		return ret;
	}
	size = _IOC_SIZE(desc->cmd);
	if (size > sizeof(data) || in_size < size || *out_size < size)
		return -EINVAL;
	/* a hot-removed device answers nothing any more */
	if (!hfd_device_present(call->ctx->dev))
		return -ENODEV;
	memcpy(data, in, size);
	if (call->ctx->control && !control_allowed(desc, data))
		return -EPERM;
	/* a context a hard reset killed answers INFO only: close, reopen */
	if (hfd_ctx_is_dead(call->ctx) && desc->func != hfd_ioctl_info) {
		if (desc->func == hfd_ioctl_cs) {
			/* CS_COUNTERS: rejected because of a reset */
			__atomic_add_fetch(&call->ctx->dev->cs_stats.in_reset,
					   1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&call->ctx->cs_stats.in_reset, 1,
					   __ATOMIC_RELAXED);
		}
		return -EIO;
	}

	ret = desc->args ? hfd_args_check(desc->args, data, &effects) : 0;
	if (!ret && effects && call->arg)
		ret = hfd_copy_to_user(call->pid, call->arg, data, size);
	if (!ret)
		ret = desc->func(call, data);
	if (ret == HFD_IOCTL_DEFERRED)
		return ret;
	if (ret) {
		hfd_log_ratelimited(HFD_LOG_DEBUG, "pid %d: %s failed: %s",
				    (int)call->pid, desc->name, strerror(-ret));
		return ret;
	}
	memcpy(out, data, size);
	*out_size = size;
	return 0;
}
