// SPDX-License-Identifier: MIT
/*
 * pcie.c - the PCIe link (HPU_INFO_PCI_INFO): generation, width,
 * replays, throughput.
 */
#include "hlml_internal.h"

/* HPU_INFO_PCI_INFO of @device; the table is held on success */
static hlml_return_t pci_info(hlml_device_t device, const void *out,
			      struct hpu_info_pci *p, struct hlml_dev **d)
{
	hlml_return_t r;

	r = hlml_dev_get(device, d);
	if (r)
		return r;
	r = out ? hlml_need_ctl(*d) : HLML_ERROR_INVALID_ARGUMENT;
	if (!r)
		r = hlml_from_errno(hpu_info_pci((*d)->ctl, p));
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
	*value = 0; /* a simulated link never replays */
	hlml_dev_put(d);
	return HLML_SUCCESS;
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
