// SPDX-License-Identifier: MIT
/*
 * enum_udev.c - kernel-backed devices through libudev: the accel class
 * devices accelN whose PCI parent is bound to the habanalabs driver, with
 * the fields that driver exposes in sysfs (docs/libhpudrv.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libudev.h>

#include "hpudrv_internal.h"

#define KERNEL_DRIVER "habanalabs"

/* A sysfs attribute without trailing blanks into @buf ("" when absent) */
static void sysattr(struct udev_device *d, const char *name, char *buf,
		    size_t len)
{
	const char *v = udev_device_get_sysattr_value(d, name);
	size_t n;

	buf[0] = '\0';
	if (!v)
		return;
	n = strlen(v);
	while (n && (v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (n >= len)
		return;
	memcpy(buf, v, n);
	buf[n] = '\0';
}

/**
 * hpudrv_udev_fill() - describe a kernel accel device
 * @d: udev device of subsystem "accel"
 * @info: receives the fields; its index is left 0 for the caller
 *
 * Return: the accel minor, or -ENODEV when @d is not an accelN node of a
 * PCI device bound to habanalabs.
 */
int hpudrv_udev_fill(struct udev_device *d, struct hpu_device_info *info)
{
	struct udev_device *pci;
	const char *drv, *node;
	char val[64], *end;
	unsigned long id;
	int minor;

	/* "accelN"; accel_controlDN is not */
	minor = hpudrv_name_number(udev_device_get_sysname(d), "accel");
	if (minor < 0)
		return -ENODEV;
	pci = udev_device_get_parent_with_subsystem_devtype(d, "pci", NULL);
	if (!pci)
		return -ENODEV;
	drv = udev_device_get_driver(pci);
	if (!drv || strcmp(drv, KERNEL_DRIVER))
		return -ENODEV;

	memset(info, 0, sizeof(*info));
	info->kind = HPU_DEVICE_KIND_KERNEL;
	info->module_id = -1;
	snprintf(info->node_name, sizeof(info->node_name), "accel%d", minor);
	node = udev_device_get_devnode(d);
	if (node)
		snprintf(info->node_path, sizeof(info->node_path), "%s", node);
	else
		snprintf(info->node_path, sizeof(info->node_path),
			 "/dev/accel/accel%d", minor);
	/* the habanalabs control node shares the accel minor */
	snprintf(info->control_path, sizeof(info->control_path),
		 "/dev/accel/accel_controlD%d", minor);
	snprintf(info->attr_dir, sizeof(info->attr_dir), "%s",
		 udev_device_get_syspath(pci));

	sysattr(pci, "pci_addr", info->bus_id, sizeof(info->bus_id));
	if (!info->bus_id[0])
		snprintf(info->bus_id, sizeof(info->bus_id), "%.15s",
			 udev_device_get_sysname(pci));
	sysattr(pci, "device_type", info->device_type,
		sizeof(info->device_type));
	sysattr(pci, "card_name", info->card_name, sizeof(info->card_name));
	sysattr(pci, "serial_number", info->serial, sizeof(info->serial));
	sysattr(pci, "module_id", val, sizeof(val));
	info->module_id = hpudrv_module_id(val);
	sysattr(pci, "device", val, sizeof(val));
	errno = 0;
	id = strtoul(val, &end, 16);
	if (val[0] && !*end && !errno && id <= 0xffff)
		info->device_id = (unsigned int)id;
	return minor;
}

static int cmp_minor(const void *a, const void *b)
{
	const struct hpu_device_info *x = a, *y = b;

	return x->index - y->index;
}

/**
 * hpudrv_udev_scan() - the kernel devices, in accel minor order, with
 * their index (position) set
 * @list: receives a malloc'ed array (NULL when none)
 * @count: receives its length
 *
 * Without udev (no /sys, no libudev context) there are none.
 *
 * Return: 0 or -ENOMEM.
 */
int hpudrv_udev_scan(struct hpu_device_info **list, int *count)
{
	struct hpu_device_info *l = NULL, *nl;
	struct udev_list_entry *e;
	struct udev_enumerate *en;
	struct udev_device *d;
	struct udev *udev;
	int n = 0, cap = 0, minor, ret = 0, i;

	*list = NULL;
	*count = 0;
	udev = udev_new();
	if (!udev)
		return 0;
	en = udev_enumerate_new(udev);
	if (!en)
		goto out_unref_udev;
	if (udev_enumerate_add_match_subsystem(en, "accel") ||
	    udev_enumerate_scan_devices(en))
		goto out_unref_enum;
	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en))
	{
		d = udev_device_new_from_syspath(udev,
						 udev_list_entry_get_name(e));
		if (!d)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			nl = realloc(l, (size_t)cap * sizeof(*l));
			if (!nl) {
				udev_device_unref(d);
				ret = -ENOMEM;
				break;
			}
			l = nl;
		}
		minor = hpudrv_udev_fill(d, &l[n]);
		udev_device_unref(d);
		if (minor < 0)
			continue;
		l[n++].index = minor;
	}
	if (ret || !n) {
		free(l);
		l = NULL;
		n = 0;
	} else {
		qsort(l, (size_t)n, sizeof(*l), cmp_minor);
		for (i = 0; i < n; i++)
			l[i].index = i;
	}
	*list = l;
	*count = n;
out_unref_enum:
	udev_enumerate_unref(en);
out_unref_udev:
	udev_unref(udev);
	return ret;
}
