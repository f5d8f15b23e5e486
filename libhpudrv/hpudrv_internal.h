/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_internal.h - what the files of libhpudrv share; never installed.
 */
#ifndef HPUDRV_INTERNAL_H
#define HPUDRV_INTERNAL_H

#include <stdbool.h>

#include "hpudrv.h"

/**
 * struct hpu_device - an open node
 * @fd: the node's descriptor (O_CLOEXEC); immutable after open, so a
 *	handle may be used from several threads
 * @control: true for a control node
 * @info: description taken at open
 */
struct hpu_device {
	int fd;
	bool control;
	struct hpu_device_info info;
};

/* Largest attribute file read into memory (clients of a busy device) */
#define HPUDRV_ATTR_MAX (1 << 20)

/* enum.c */
int hpudrv_devdir(char *buf, size_t len);
int hpudrv_visible(int index);
int hpudrv_find(const struct hpu_device_info *want, int mode,
		struct hpu_device_info *info);
int hpudrv_read_file(const char *path, char **data, size_t *len);
int hpudrv_parse_clients(const char *text, size_t len,
			 struct hpu_process **list, int *count);

/* hpudrv_find() modes */
#define HPUDRV_FIND_INDEX     0
#define HPUDRV_FIND_BUS_ID    1
#define HPUDRV_FIND_MODULE_ID 2

/* ioctl.c */
int hpudrv_ioctl(int fd, unsigned long request, void *arg);
int hpudrv_info(int fd, unsigned int op, unsigned int period_ms, void *out,
		size_t size);

/* device.c */
int hpudrv_open_node(const struct hpu_device_info *info, bool control,
		     struct hpu_device **devp);

#endif /* HPUDRV_INTERNAL_H */
