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
 *	hl_cs.c     CS and WAIT_CS: Gaudi2 chunks and queues, by the hpu
 *	            submission and wait paths
 *	hl_packets.c the Gaudi2 packets: validated, translated to hpu ones
 */
#ifndef HL_PERSONALITY_H
#define HL_PERSONALITY_H

#include "hl_uapi.h"
#include "hpu_fused.h"
#include "hpu_fused_submit.h"

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
int hfd_hl_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_wait_cs(const struct hfd_ioctl_call *call, void *data);

/* hpu packet bytes per Gaudi2 packet byte, at most (MSG_LONG: 16 -> 32) */
#define HFD_HL_XLATE_RATIO 2

/**
 * struct hfd_hl_xlate - what translating one chunk's packets needs
 * @kind: the kind of the hpu queue the chunk runs on
 * @sram_base: the SRAM window as HW_IP_INFO gives it
 * @sram_size: its bytes
 * @sram_va: where the context maps SRAM (0: not mapped)
 */
struct hfd_hl_xlate {
	enum hfd_queue_kind kind;
	uint64_t sram_base;
	uint64_t sram_size;
	uint64_t sram_va;
};

int hfd_hl_packets_translate(const void *cb, size_t size,
			     const struct hfd_hl_xlate *x, uint8_t *out,
			     size_t *out_len, size_t *bad_off);
int hfd_hl_queue(const struct hpu_fw_profile *p, uint32_t qid);

#endif /* HL_PERSONALITY_H */
