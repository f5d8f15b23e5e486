// SPDX-License-Identifier: MIT
/*
 * hl_ioctl.c - the habanalabs personality's ioctl entry (docs/habanalabs.md,
 * "Requests"): both request-code sets, the control-node rule and the
 * argument sizes as the real driver handles them, then the family.
 *
 * Rules, in order:
 *  1. a code of neither set ('H' 0x01..0x06 of Linux <= 6.4, 'd'
 *     DRM_COMMAND_BASE + 0..5 of Linux >= 6.7): -ENOTTY;
 *  2. a removed device: -ENODEV;
 *  3. anything but INFO on a control node: -ENOTTY (the real driver's
 *     control device has INFO only);
 *  4. the argument is the caller's _IOC_SIZE bytes, zero-extended to the
 *     driver's struct (a shorter, older struct) or cut to it (a longer,
 *     newer one), and the answer is copied back in the caller's size, as
 *     the real driver's ioctl entry does; above HFD_IOCTL_MAX_SIZE (what
 *     FUSE hands the daemon here): -EINVAL;
 *  5. a family with effects (MEMORY, CB): an argument that cannot be written
 *     back in the caller: -EFAULT before anything happens;
 *  6. the family; one without a handler yet: -ENOTTY, the real driver's
 *     answer to a command it has no function for.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hl_personality.h"

/**
 * struct hl_family - one family of requests
 * @func: handler, or NULL (not served yet)
 * @size: the driver's argument size
 * @name: for the log
 * @effects: its requests change state (the argument is probed first)
 * @copy_on_error: -EIO and -ETIMEDOUT answers copy the argument back
 *	(WAIT_CS's status), as the real driver's ioctl entry
 */
struct hl_family {
	int (*func)(const struct hfd_ioctl_call *call, void *data);
	uint32_t size;
	const char *name;
	bool effects;
	bool copy_on_error;
};

static const struct hl_family hl_families[HFD_HL_NR_FAMILIES] = {
	[HFD_HL_INFO] = { .func = hfd_hl_info,
			  .size = sizeof(struct hl_info_args),
			  .name = "INFO" },
	[HFD_HL_CB] = { .func = hfd_hl_cb,
			.size = sizeof(union hl_cb_args),
			.name = "CB",
			.effects = true },
	[HFD_HL_CS] = { .func = hfd_hl_cs,
			.size = sizeof(union hl_cs_args),
			.name = "CS",
			.effects = true },
	[HFD_HL_WAIT_CS] = { .func = hfd_hl_wait_cs,
			     .size = sizeof(union hl_wait_cs_args),
			     .name = "WAIT_CS",
			     .copy_on_error = true },
	[HFD_HL_MEMORY] = { .func = hfd_hl_memory,
			    .size = sizeof(union hl_mem_args),
			    .name = "MEMORY",
			    .effects = true },
	[HFD_HL_DEBUG] = { .func = hfd_hl_debug,
			   .size = sizeof(struct hl_debug_args),
			   .name = "DEBUG" },
};

_Static_assert(sizeof(struct hl_info_args) == 24, "hl_info_args");
_Static_assert(sizeof(union hl_cb_args) == 24, "hl_cb_args");
_Static_assert(sizeof(union hl_cs_args) == 48, "hl_cs_args");
_Static_assert(sizeof(struct hl_cs_chunk) == 64, "hl_cs_chunk");
_Static_assert(sizeof(union hl_wait_cs_args) == 56, "hl_wait_cs_args");
_Static_assert(sizeof(union hl_mem_args) == 40, "hl_mem_args");
_Static_assert(sizeof(struct hl_debug_args) == 40, "hl_debug_args");
_Static_assert(HFD_HL_MAX_ARG_SIZE <= HFD_IOCTL_MAX_SIZE,
	       "every argument fits the FUSE ioctl buffer");

/**
 * hfd_hl_family() - the family of a request code
 * @cmd: request code
 *
 * Return: enum hfd_hl_family, or -ENOTTY for a code of neither set.
 */
int hfd_hl_family(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) == 'H' && nr >= HL_LEGACY_COMMAND_START &&
	    nr < HL_LEGACY_COMMAND_END)
		return (int)(nr - HL_LEGACY_COMMAND_START);
	if (_IOC_TYPE(cmd) == HL_DRM_IOCTL_BASE && nr >= HL_DRM_COMMAND_BASE &&
	    nr < HL_DRM_COMMAND_BASE + HL_DRM_CMD_END)
		return (int)(nr - HL_DRM_COMMAND_BASE);
	return -ENOTTY;
}

/**
 * hfd_hl_device_ok() - whether a device can have habanalabs nodes
 * @dev: device
 *
 * The personality is a Gaudi2's (PCI id 0x1020): other chip profiles
 * have no habanalabs nodes.
 */
bool hfd_hl_device_ok(const struct hfd_device *dev)
{
	return dev->profile && dev->profile->pci_device_id == HL_PCI_IDS_GAUDI2;
}

/**
 * hfd_hl_ioctl_dispatch() - run one request of the habanalabs personality
 * @call: context and requesting thread
 * @cmd: request code
 * @in: argument bytes the kernel copied in (_IOC_SIZE(cmd) of them)
 * @in_size: bytes at @in
 * @out: receives the argument after the handler
 * @out_size: in: room at @out; out: bytes to copy back (_IOC_SIZE(cmd));
 *	on an error, 0, or the bytes copied back with it (copy_on_error)
 *
 * Return: 0 or -errno (see the rules at the top of this file).
 */
int hfd_hl_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
			  const void *in, size_t in_size, void *out,
			  size_t *out_size)
{
	uint64_t data[HFD_IOCTL_MAX_SIZE / sizeof(uint64_t)];
	const struct hl_family *fam;
	size_t usize = _IOC_SIZE(cmd);
	size_t room = *out_size;
	int nr, ret;

	*out_size = 0;
	nr = hfd_hl_family(cmd);
	if (nr < 0)
		return nr;
	fam = &hl_families[nr];
	if (!hfd_device_present(call->ctx->dev))
		return -ENODEV;
	if (call->ctx->control && nr != HFD_HL_INFO)
		return -ENOTTY;
	if (usize > sizeof(data))
		return -EINVAL;
	if (((_IOC_DIR(cmd) & _IOC_WRITE) && in_size < usize) ||
	    ((_IOC_DIR(cmd) & _IOC_READ) && room < usize))
		return -EINVAL;
	if (!fam->func) {
		hfd_log_ratelimited(HFD_LOG_DEBUG,
				    "pid %d: habanalabs %s not served yet",
				    (int)call->pid, fam->name);
		return -ENOTTY;
	}

	memset(data, 0, sizeof(data));
	if (_IOC_DIR(cmd) & _IOC_WRITE)
		memcpy(data, in, usize < fam->size ? usize : fam->size);
	/*
	 * The kernel copies the answer back after the reply: a request with
	 * effects first writes the argument back in the caller, so an
	 * argument it cannot write fails with -EFAULT before anything
	 * happens (an allocation whose handle would be lost)
	 */
	if (fam->effects && call->arg && (_IOC_DIR(cmd) & _IOC_READ)) {
		ret = hfd_copy_to_user(call->pid, call->arg, data, usize);
		if (ret)
			return ret;
	}
	ret = fam->func(call, data);
	if (ret == HFD_IOCTL_DEFERRED)
		return ret;
	if ((ret == -EIO || ret == -ETIMEDOUT) && fam->copy_on_error &&
	    (_IOC_DIR(cmd) & _IOC_READ)) {
		memcpy(out, data, usize);
		*out_size = usize;
	}
	if (ret) {
		hfd_log_ratelimited(HFD_LOG_DEBUG,
				    "pid %d: habanalabs %s failed: %s",
				    (int)call->pid, fam->name, strerror(-ret));
		return ret;
	}
	if (_IOC_DIR(cmd) & _IOC_READ) {
		memcpy(out, data, usize);
		*out_size = usize;
	} else {
		*out_size = 0;
	}
	return 0;
}
