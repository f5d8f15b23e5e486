/* SPDX-License-Identifier: MIT */
/*
 * hlml_internal.h - what the files of libhlml share: the device table,
 * handle checks, errno translation, string answers.
 */
#ifndef HLML_INTERNAL_H
#define HLML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlml.h"
#include "hpudrv.h"

#if defined(HLML_BUILD)
#define HLML_EXPORT __attribute__((visibility("default")))
#else
#define HLML_EXPORT
#endif

/* Devices one init can hold */
#define HLML_MAX_DEVICES 64

/**
 * struct hlml_dev - one device of the current init
 * @pos: its HLML index
 * @info: libhpudrv's description
 * @ctl: control handle (NULL for a kernel device, which libhpudrv does not
 *	open)
 * @hw: HW_IP_INFO (fixed for the device's life; zero without @ctl)
 * @uuid: the daemon's uuid attribute
 */
struct hlml_dev {
	unsigned int pos;
	struct hpu_device_info info;
	struct hpu_device *ctl;
	struct hpu_info_hw_ip_info hw;
	char uuid[64];
};

/* core.c */
hlml_return_t hlml_dev_get(hlml_device_t handle, struct hlml_dev **devp);
void hlml_dev_put(struct hlml_dev *dev);
hlml_return_t hlml_lock_inited(void);
void hlml_unlock_inited(void);
unsigned int hlml_dev_count_locked(void);
struct hlml_dev *hlml_dev_at_locked(unsigned int pos);
hlml_device_t hlml_dev_handle_locked(const struct hlml_dev *dev);
uint64_t hlml_generation_locked(void);
hlml_return_t hlml_from_errno(int err);
hlml_return_t hlml_put_str(char *buf, unsigned int len, const char *val);
hlml_return_t hlml_need_ctl(const struct hlml_dev *dev);

/* kernel.c */
hlml_return_t hlml_kernel_str(const struct hlml_dev *d, const char *name,
			      char *buf, size_t len);
hlml_return_t hlml_kernel_uint(const struct hlml_dev *d, const char *name,
			       unsigned long long *v);

/* pcie.c */
unsigned int hlml_pcie_gen(unsigned int mts);
hlml_return_t hlml_kernel_link(const struct hlml_dev *d,
			       struct hpu_info_pci *p);

/* ecc.c */
hlml_return_t hlml_ecc_counts(const struct hlml_dev *d,
			      unsigned long long *corrected,
			      unsigned long long *uncorrected);

#endif /* HLML_INTERNAL_H */
