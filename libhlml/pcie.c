// SPDX-License-Identifier: MIT
/*
 * pcie.c - the PCIe link (HPU_INFO_PCI_INFO; for a kernel device the
 * PCI core's sysfs attributes): generation, width, replays, throughput.
 */
#include <stdlib.h>
#include <string.h>

#include "hlml_internal.h"

/**
 * hlml_kernel_link() - the PCIe link of a kernel device, from the PCI
 * core's current_link_speed ("16.0 GT/s PCIe") and current_link_width
 * @d: kernel device (table held)
 * @p: receives link_speed_mts and link_width (the rest is left alone)
 *
 * Return: HLML_SUCCESS, or as hlml_kernel_str().
 */
hlml_return_t hlml_kernel_link(const struct hlml_dev *d, struct hpu_info_pci *p)
{
	unsigned long long width;
	char speed[64];
	hlml_return_t r;

	r = hlml_kernel_str(d, "current_link_speed", speed, sizeof(speed));
	if (!r)
		r = hlml_kernel_uint(d, "current_link_width", &width);
	if (r)
		return r;
	p->link_speed_mts = (unsigned int)(strtod(speed, NULL) * 1000.0 + 0.5);
	p->link_width = (unsigned int)width;
	return HLML_SUCCESS;
}

/* The PCIe link of @device; the table is held on success */
static hlml_return_t pci_info(hlml_device_t device, const void *out,
			      struct hpu_info_pci *p, struct hlml_dev **d)
{
	hlml_return_t r;

	r = hlml_dev_get(device, d);
	if (r)
		return r;
	memset(p, 0, sizeof(*p));
	if (!out)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else if ((*d)->ctl)
		r = hlml_from_errno(hpu_info_pci((*d)->ctl, p));
	else
		r = hlml_kernel_link(*d, p);
	if (r)
		hlml_dev_put(*d);
	return r;
}

/**
 * hlml_pcie_gen() - PCIe generation of a per-lane rate
 * @mts: MT/s per lane (HPU_INFO_PCI_INFO.link_speed_mts)
 *
 * Return: 1..6, or 0 for an unknown (0) rate.
 */
unsigned int hlml_pcie_gen(unsigned int mts)
{
	static const unsigned int rate[] = { 2500,  5000,  8000,
					     16000, 32000, 64000 };
	unsigned int g;

	if (!mts)
		return 0;
	for (g = 0; g < sizeof(rate) / sizeof(rate[0]) - 1 && mts > rate[g];
	     g++)
		;
	return g + 1;
}

HLML_EXPORT hlml_return_t hlml_device_get_curr_pcie_link_generation(
	hlml_device_t device, unsigned int *curr_link_gen)
{
	struct hpu_info_pci p;
	struct hlml_dev *d;
	hlml_return_t r;

	r = pci_info(device, curr_link_gen, &p, &d);
	if (r)
		return r;
	*curr_link_gen = hlml_pcie_gen(p.link_speed_mts);
	hlml_dev_put(d);
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t hlml_device_get_curr_pcie_link_width(
	hlml_device_t device, unsigned int *curr_link_width)
{
	struct hpu_info_pci p;
	struct hlml_dev *d;
	hlml_return_t r;

	r = pci_info(device, curr_link_width, &p, &d);
	if (r)
		return r;
	*curr_link_width = p.link_width;
	hlml_dev_put(d);
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t
hlml_device_get_pcie_replay_counter(hlml_device_t device, unsigned int *value)
{
	struct hpu_info_pci p;
	struct hlml_dev *d;
	hlml_return_t r;

	r = pci_info(device, value, &p, &d);
	if (r)
		return r;
	/* a simulated link never replays; a kernel device's count is not in sysfs */
	if (d->ctl)
		*value = 0;
	else
		r = HLML_ERROR_NOT_SUPPORTED;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_device_get_pcie_throughput(
	hlml_device_t device, hlml_pcie_util_counter_t counter,
	unsigned int *value)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!value || (unsigned int)counter >= HLML_PCIE_UTIL_COUNT)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else
		r = HLML_ERROR_NOT_SUPPORTED;
	hlml_dev_put(d);
	return r;
}
