// SPDX-License-Identifier: MIT
/*
 * nic.c - the NIC ports: MAC addresses (the daemon's
 * class/hpuN/mac_addresses), which ports exist and are external, link
 * state (HPU_INFO_NIC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlml_internal.h"

/* Room for the mac_addresses attribute of a device with 64 ports */
#define HLML_MAC_ATTR_LEN 2048

HLML_EXPORT hlml_return_t
hlml_device_get_mac_info(hlml_device_t device, hlml_mac_info_t *mac_info,
			 unsigned int mac_info_size, unsigned int start_mac_id,
			 unsigned int *actual_mac_count)
{
	unsigned int port, m[ETHER_ADDR_LEN], n = 0, i;
	struct hlml_dev *d;
	char *buf = NULL, *line, *save = NULL;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	if (!mac_info || !actual_mac_count) {
		r = HLML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	r = hlml_need_ctl(d);
	if (r)
		goto out;
	buf = malloc(HLML_MAC_ATTR_LEN);
	if (!buf) {
		r = HLML_ERROR_MEMORY;
		goto out;
	}
	r = hlml_from_errno(hpu_device_read_attr(d->info.index, "mac_addresses",
						 buf, HLML_MAC_ATTR_LEN));
	if (r)
		goto out;
	for (line = strtok_r(buf, "\n", &save); line && n < mac_info_size;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%u %x:%x:%x:%x:%x:%x", &port, &m[0], &m[1],
			   &m[2], &m[3], &m[4], &m[5]) != 7) {
			r = HLML_ERROR_UNKNOWN;
			goto out;
		}
		if (port < start_mac_id)
			continue;
		for (i = 0; i < ETHER_ADDR_LEN; i++)
			mac_info[n].addr[i] = (unsigned char)m[i];
		mac_info[n].id = (int)port;
		n++;
	}
	*actual_mac_count = n;
out:
	free(buf);
	hlml_dev_put(d);
	return r;
}

/* HPU_INFO_NIC of @device; the table is held on success */
static hlml_return_t nic_info(hlml_device_t device, bool args_ok,
			      struct hpu_info_nic *nic, struct hlml_dev **d)
{
	hlml_return_t r;

	r = hlml_dev_get(device, d);
	if (r)
		return r;
	r = args_ok ? hlml_need_ctl(*d) : HLML_ERROR_INVALID_ARGUMENT;
	if (!r)
		r = hlml_from_errno(hpu_info_nic((*d)->ctl, nic));
	if (r)
		hlml_dev_put(*d);
	return r;
}

HLML_EXPORT hlml_return_t hlml_get_mac_addr_info(hlml_device_t device,
						 uint64_t *mask,
						 uint64_t *ext_mask)
{
	struct hpu_info_nic nic;
	struct hlml_dev *d;
	hlml_return_t r;

	r = nic_info(device, mask && ext_mask, &nic, &d);
	if (r)
		return r;
	memset(mask, 0, PORTS_ARR_SIZE * sizeof(*mask));
	memset(ext_mask, 0, PORTS_ARR_SIZE * sizeof(*ext_mask));
	mask[0] = nic.num_ports >= 64 ? ~0ULL : (1ULL << nic.num_ports) - 1;
	ext_mask[0] = nic.scaleout_ports_mask & mask[0];
	hlml_dev_put(d);
	return HLML_SUCCESS;
}

HLML_EXPORT hlml_return_t hlml_nic_get_link(hlml_device_t device, uint32_t port,
					    bool *up)
{
	struct hpu_info_nic nic;
	struct hlml_dev *d;
	hlml_return_t r;

	r = nic_info(device, up != NULL, &nic, &d);
	if (r)
		return r;
	if (port >= nic.num_ports || port >= 64)
		r = HLML_ERROR_INVALID_ARGUMENT;
	else
		*up = (nic.ports_up_mask >> port) & 1;
	hlml_dev_put(d);
	return r;
}

HLML_EXPORT hlml_return_t
hlml_nic_get_statistics(hlml_device_t device, hlml_nic_stats_info_t *stats_info)
{
	struct hlml_dev *d;
	hlml_return_t r;

	r = hlml_dev_get(device, &d);
	if (r)
		return r;
	r = stats_info ? HLML_ERROR_NOT_SUPPORTED : HLML_ERROR_INVALID_ARGUMENT;
	hlml_dev_put(d);
	return r;
}
