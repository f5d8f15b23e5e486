// SPDX-License-Identifier: MIT
/*
 * identity.c - who a device is: name, PCI location, UUID, serial, ids,
 * versions. The identities themselves are the daemon's (its identity.c):
 * this file only passes them on.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlml_internal.h"

#ifndef HLML_LIB_VERSION
#define HLML_LIB_VERSION "0.0.0"
#endif

/* Vendor id of Habana Labs, for kernel devices (no INFO to ask) */
#define HLML_PCI_VENDOR_HABANA 0x1da3

/*
 * Answers a string of @device chosen by @pick; for a kernel device whose
 * @pick has nothing, the sysfs attribute @kattr (NULL: none)
 */
static hlml_return_t dev_str(hlml_device_t device, char *buf, unsigned int len,
			     const char *(*pick)(const struct hlml_dev *d),
			     const char *kattr)
{
	struct hlml_dev *d;
	const char *val;
	char kval[256];
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!buf) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	val = pick(d);
	if (val && val[0]) {
		r = hlml_put_str(buf, len, val);
	} else if (kattr && d->info.kind == HPU_DEVICE_KIND_KERNEL) {
		r = hlml_kernel_str(d, kattr, kval, sizeof(kval));
		if (!r)
			r = hlml_put_str(buf, len, kval);
	} else {
		r = HLML_ERROR_NOT_SUPPORTED;
	}
out:
	hlml_dev_put(d);
	return r;
}

static const char *pick_name(const struct hlml_dev *d)
{
	if (d->info.card_name[0])
		return d->info.card_name;
	if (d->hw.card_name[0])
		return (const char *)d->hw.card_name;
	return d->info.device_type;
}

static const char *pick_uuid(const struct hlml_dev *d)
{
	return d->uuid;
}

static const char *pick_serial(const struct hlml_dev *d)
{
	return d->info.serial;
}

static const char *pick_model(const struct hlml_dev *d)
{
	return d->info.device_type;
}

static const char *pick_fw(const struct hlml_dev *d)
{
	return (const char *)d->hw.fw_version;
}

static const char *pick_none(const struct hlml_dev *d)
{
	return NULL;
}

HLML_EXPORT hlml_return_t hlml_device_get_name(hlml_device_t device, char *name,
					       unsigned int length)
{
	return dev_str(device, name, length, pick_name, NULL);
}

HLML_EXPORT hlml_return_t hlml_device_get_uuid(hlml_device_t device, char *uuid,
					       unsigned int length)
{
	return dev_str(device, uuid, length, pick_uuid, NULL);
}

HLML_EXPORT hlml_return_t hlml_device_get_serial(hlml_device_t device,
						 char *serial,
						 unsigned int length)
{
	return dev_str(device, serial, length, pick_serial, NULL);
}

HLML_EXPORT hlml_return_t hlml_get_serial_number(hlml_device_t device,
						 char *serial_number,
						 unsigned int length)
{
	return dev_str(device, serial_number, length, pick_serial, NULL);
}

HLML_EXPORT hlml_return_t hlml_get_model_number(hlml_device_t device,
						char *model_number,
						unsigned int length)
{
	return dev_str(device, model_number, length, pick_model, NULL);
}

HLML_EXPORT hlml_return_t hlml_get_firmware_fit_version(hlml_device_t device,
							char *firmware_fit,
							unsigned int length)
{
	return dev_str(device, firmware_fit, length, pick_fw, "armcp_ver");
}

HLML_EXPORT hlml_return_t hlml_get_firmware_spi_version(hlml_device_t device,
							char *firmware_spi,
							unsigned int length)
{
	return dev_str(device, firmware_spi, length, pick_none,
		       "preboot_btl_ver");
}

HLML_EXPORT hlml_return_t hlml_get_fw_boot_version(hlml_device_t device,
						   char *fw_boot_version,
						   unsigned int length)
{
	return dev_str(device, fw_boot_version, length, pick_none, "uboot_ver");
}

HLML_EXPORT hlml_return_t hlml_get_fw_os_version(hlml_device_t device,
						 char *fw_os_version,
						 unsigned int length)
{
	return dev_str(device, fw_os_version, length, pick_none,
		       "armcp_kernel_ver");
}

HLML_EXPORT hlml_return_t hlml_get_cpld_version(hlml_device_t device,
						char *cpld_version,
						unsigned int length)
{
	return dev_str(device, cpld_version, length, pick_none, "cpld_ver");
}

HLML_EXPORT hlml_return_t hlml_device_get_pci_info(hlml_device_t device,
						   hlml_pci_info_t *pci)
{
	unsigned int dom = 0, bus = 0, slot = 0, fn = 0;
	struct hpu_info_pci p;
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!pci) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	memset(pci, 0, sizeof(*pci));
	if (d->ctl) {
		r = hlml_from_errno(hpu_info_pci(d->ctl, &p));
		if (r)
			goto out;
		pci->bus = p.bus;
		pci->device = p.device;
		pci->domain = p.domain;
		pci->pci_device_id = (unsigned int)p.device_id << 16 |
				     p.vendor_id;
		snprintf(pci->bus_id, sizeof(pci->bus_id), "%.*s",
			 (int)sizeof(pci->bus_id) - 1, (const char *)p.bus_id);
		snprintf(pci->caps.link_speed, sizeof(pci->caps.link_speed),
			 "0x%x", hlml_pcie_gen(p.link_speed_mts));
		snprintf(pci->caps.link_width, sizeof(pci->caps.link_width),
			 "%u", p.link_width);
		goto out;
	}
	/* a kernel device: what enumeration saw */
	if (sscanf(d->info.bus_id, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) !=
	    4) {
		r = HLML_ERROR_NOT_SUPPORTED;
		goto out;
	}
	pci->bus = bus;
	pci->device = slot;
	pci->domain = dom;
	pci->pci_device_id = d->info.device_id << 16 | HLML_PCI_VENDOR_HABANA;
	snprintf(pci->bus_id, sizeof(pci->bus_id), "%.*s",
		 (int)sizeof(pci->bus_id) - 1, d->info.bus_id);
	memset(&p, 0, sizeof(p));
	if (!hlml_kernel_link(d, &p)) {
		snprintf(pci->caps.link_speed, sizeof(pci->caps.link_speed),
			 "0x%x", hlml_pcie_gen(p.link_speed_mts));
		snprintf(pci->caps.link_width, sizeof(pci->caps.link_width),
			 "%u", p.link_width);
	}
out:
	hlml_dev_put(d);
	return r;
}

/* Answers an unsigned value of @device chosen by @pick */
static hlml_return_t dev_uint(hlml_device_t device, unsigned int *out,
			      hlml_return_t (*pick)(const struct hlml_dev *d,
						    unsigned int *v))
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	r = out ? pick(d, out) : HLML_ERROR_INVALID_ARGUMENT;
	hlml_dev_put(d);
	return r;
}

static hlml_return_t pick_minor(const struct hlml_dev *d, unsigned int *v)
{
	const char *s = d->info.node_name;

	while (*s && !isdigit((unsigned char)*s))
		s++;
	if (!*s)
		return HLML_ERROR_NOT_SUPPORTED;
	*v = (unsigned int)strtoul(s, NULL, 10);
	return HLML_SUCCESS;
}

static hlml_return_t pick_module(const struct hlml_dev *d, unsigned int *v)
{
	if (d->info.module_id >= 0) {
		*v = (unsigned int)d->info.module_id;
		return HLML_SUCCESS;
	}
	if (!d->ctl)
		return HLML_ERROR_NOT_SUPPORTED;
	*v = d->hw.module_id;
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t
hlml_device_get_minor_number(hlml_device_t device, unsigned int *minor_number)
{
	return dev_uint(device, minor_number, pick_minor);
}

HLML_EXPORT hlml_return_t hlml_device_get_module_id(hlml_device_t device,
						    unsigned int *module_id)
{
	return dev_uint(device, module_id, pick_module);
}

HLML_EXPORT hlml_return_t hlml_device_get_board_id(hlml_device_t device,
						   unsigned int *board_id)
{
	return dev_uint(device, board_id, pick_module);
}

HLML_EXPORT hlml_return_t hlml_device_get_hl_revision(hlml_device_t device,
						      int *hl_revision)
{
	unsigned long long v;
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!hl_revision)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (!d->ctl && !(r = hlml_kernel_uint(d, "revision", &v)))
		*hl_revision = (int)v; /* the PCI revision id */
	else if (d->ctl)
		*hl_revision = (int)d->hw.revision_id;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_pcb_info(hlml_device_t device,
						   hlml_pcb_info_t *pcb)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	r = pcb ? HLML_ERROR_NOT_SUPPORTED : HLML_ERROR_INVALID_ARGUMENT;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_get_hlml_version(char *version,
						unsigned int length)
{
	return hlml_put_str(version, length, HLML_LIB_VERSION);
}

HLML_EXPORT hlml_return_t hlml_get_driver_version(char *driver_version,
						  unsigned int length)
{
	char v[64];
	hlml_return_t r;

	r = hlml_lock_inited();
	if (r)
		return r;
	if (!driver_version)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if (hpu_driver_read_attr("version", v, sizeof(v)))
		r = HLML_ERROR_NOT_SUPPORTED;
	else
		r = hlml_put_str(driver_version, length, v);
	hlml_unlock_inited();
	return r;
}
