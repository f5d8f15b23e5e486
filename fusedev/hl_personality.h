/* SPDX-License-Identifier: MIT */
/*
 * hl_personality.h - the habanalabs personality of hpu-fused
 * (docs/habanalabs.md): the real driver's ABI (uapi/hl_uapi.h) served on
 * hlN / hl_controlDN / accelN / accel_controlDN nodes of Gaudi2 devices,
 * beside the hpu ABI of hpuN / hpu_controlN.
 *
 *	hl_ioctl.c  request codes of both sets, the control-node rule, the
 *	            argument sizes, the families
 *	hl_info.c   INFO: every op, answered from the device model
 *	hl_debug.c  DEBUG: the device's debug mode
 *	hl_memory.c MEMORY: device and host memory, by the hpu handler
 */
#ifndef HL_PERSONALITY_H
#define HL_PERSONALITY_H

#include "hl_uapi.h"
#include "hpu_fused.h"

/* Families of the request codes: 'H' nr - 1, DRM nr - DRM_COMMAND_BASE */
enum hfd_hl_family {
	HFD_HL_INFO = 0,
	HFD_HL_CB,
	HFD_HL_CS,
	HFD_HL_WAIT_CS,
	HFD_HL_MEMORY,
	HFD_HL_DEBUG,
	HFD_HL_NR_FAMILIES,
};

/* Largest argument struct of the ABI (WAIT_CS) */
#define HFD_HL_MAX_ARG_SIZE 56

int hfd_hl_family(unsigned int cmd);
bool hfd_hl_device_ok(const struct hfd_device *dev);
int hfd_hl_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
			  const void *in, size_t in_size, void *out,
			  size_t *out_size);
int hfd_hl_info(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_debug(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_memory(const struct hfd_ioctl_call *call, void *data);
uint32_t hfd_hl_info_size(uint32_t op);

#endif /* HL_PERSONALITY_H */
