// SPDX-License-Identifier: MIT
/*
 * hlnic.c - hpu-smi -n link|ports|stats: the NIC ports of every selected
 * device as hl-smi lists them (docs/hpu-smi.md, "-n"): link state, the
 * ports with their MAC addresses and wiring, the traffic counters.
 *
 * Link state, MAC addresses and which ports are external come from
 * libhlml, as hl-smi reads them; the peer of a scale-up port and the
 * byte counters from the control node's HPU_INFO_NIC (HLML has no call
 * for either).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "hlml.h"
#include "smi.h"

#define MAX_PORTS (64 * PORTS_ARR_SIZE)

/* What one device's ports look like, gathered before printing */
struct nic_view {
	hlml_device_t h;
	uint64_t mask[PORTS_ARR_SIZE];
	uint64_t ext[PORTS_ARR_SIZE];
	hlml_mac_info_t mac[HLML_DEVICE_MAC_MAX_ADDRESSES];
	unsigned int nmac;
	bool have_info;
	struct hpu_info_nic info;
};

static const char *const view_names[] = {
	[SMI_NIC_LINK] = "link",
	[SMI_NIC_PORTS] = "ports",
	[SMI_NIC_STATS] = "stats",
};

int smi_nic_view_parse(const char *arg, enum smi_nic_view *v)
{
	size_t k;

	for (k = 0; k < sizeof(view_names) / sizeof(view_names[0]); k++) {
		if (!strcmp(arg, view_names[k])) {
			*v = (enum smi_nic_view)k;
			return 0;
		}
	}
	fprintf(stderr,
		"%s: -n: unknown NIC view '%s' (link, ports, stats)\n"
		"Try '%s --help' for more information.\n",
		smi_prog, arg, smi_prog);
	return -EINVAL;
}

static bool has_port(const struct nic_view *n, unsigned int port)
{
	return n->mask[port / 64] >> (port % 64) & 1;
}

/* The MAC address of @port as "xx:xx:xx:xx:xx:xx", or "N/A" */
static void port_mac(const struct nic_view *n, unsigned int port, char *buf,
		     size_t len)
{
	unsigned int k;

	for (k = 0; k < n->nmac; k++) {
		if (n->mac[k].id == (int)port) {
			snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
				 n->mac[k].addr[0], n->mac[k].addr[1],
				 n->mac[k].addr[2], n->mac[k].addr[3],
				 n->mac[k].addr[4], n->mac[k].addr[5]);
			return;
		}
	}
	snprintf(buf, len, "N/A");
}

/*
 * Gathers what the views need of @d. Return: 0; -ENODEV when libhlml
 * does not know the device; -EOPNOTSUPP when it has no NIC ports to
 * tell of (a kernel device); -EIO for another HLML error.
 */
static int nic_gather(const struct smi_dev *d, struct nic_view *n)
{
	struct hpu_device *dev;
	hlml_return_t r;
	void *h;

	memset(n, 0, sizeof(*n));
	if (smi_hl_device(d, &h))
		return -ENODEV;
	n->h = h;
	r = hlml_get_mac_addr_info(n->h, n->mask, n->ext);
	if (r)
		return r == HLML_ERROR_NOT_SUPPORTED ? -EOPNOTSUPP : -EIO;
	if (hlml_device_get_mac_info(
		    n->h, n->mac, HLML_DEVICE_MAC_MAX_ADDRESSES, 0, &n->nmac))
		n->nmac = 0;
	if (!d->kernel && !hpu_open_control(d->info.index, &dev)) {
		n->have_info = !hpu_info_nic(dev, &n->info);
		hpu_close(dev);
	}
	return 0;
}

static void print_link(FILE *f, const struct nic_view *n)
{
	unsigned int port;
	bool up;

	for (port = 0; port < MAX_PORTS; port++) {
		if (!has_port(n, port))
			continue;
		if (hlml_nic_get_link(n->h, port, &up))
			fprintf(f, "port %u:\tN/A\n", port);
		else
			fprintf(f, "port %u:\t%s\n", port, up ? "UP" : "DOWN");
	}
}

static void print_ports(FILE *f, const struct nic_view *n)
{
	unsigned int port, peer;
	char mac[24];

	for (port = 0; port < MAX_PORTS; port++) {
		if (!has_port(n, port))
			continue;
		port_mac(n, port, mac, sizeof(mac));
		if (n->ext[port / 64] >> (port % 64) & 1) {
			fprintf(f, "port %u:\t%s\texternal\n", port, mac);
			continue;
		}
		peer = port < sizeof(n->info.port_peer) && n->have_info ?
			       n->info.port_peer[port] :
			       HPU_NIC_PEER_NONE;
		if (peer == HPU_NIC_PEER_NONE)
			fprintf(f, "port %u:\t%s\tinternal\tunwired\n", port,
				mac);
		else
			fprintf(f, "port %u:\t%s\tinternal\tAIP %u\n", port,
				mac, peer);
	}
}

/*
 * The device's counters: the simulator counts the payload bytes of a
 * device's NICs, not of each port (libhlml's per-port call,
 * hlml_nic_get_statistics(), answers NOT_SUPPORTED), so "per-port
 * counters" is N/A.
 */
static void print_stats(FILE *f, const struct nic_view *n)
{
	unsigned int port, nports = 0, nup = 0;
	bool up;

	for (port = 0; port < MAX_PORTS; port++) {
		if (!has_port(n, port))
			continue;
		nports++;
		if (!hlml_nic_get_link(n->h, port, &up) && up)
			nup++;
	}
	fprintf(f, "ports:\t%u\n", nports);
	fprintf(f, "ports up:\t%u\n", nup);
	if (n->have_info)
		fprintf(f, "tx_bytes:\t%" PRIu64 "\nrx_bytes:\t%" PRIu64 "\n",
			(uint64_t)n->info.tx_bytes, (uint64_t)n->info.rx_bytes);
	else
		fprintf(f, "tx_bytes:\tN/A\nrx_bytes:\tN/A\n");
	fprintf(f, "per-port counters:\tN/A\n");
}

int smi_print_nic(FILE *f, const struct smi_sample *s, enum smi_nic_view v)
{
	struct nic_view n;
	int i, ret, status = SMI_EXIT_OK;

	for (i = 0; i < s->ndev; i++) {
		const struct smi_dev *d = &s->devs[i];

		fprintf(f, "%s[%d] AIP (%s)\n", i ? "\n" : "", d->info.index,
			d->info.bus_id);
		ret = nic_gather(d, &n);
		if (ret == -EOPNOTSUPP) {
			fprintf(f, "N/A\n");
			continue;
		}
		if (ret) {
			fprintf(f, "ERR!\n");
			fprintf(stderr, "%s: hpu%d: NIC ports: %s\n", smi_prog,
				d->info.index,
				ret == -ENODEV ? "unknown to libhlml" :
						 "cannot be read");
			status = SMI_EXIT_QUERY;
			continue;
		}
		if (v == SMI_NIC_LINK)
			print_link(f, &n);
		else if (v == SMI_NIC_PORTS)
			print_ports(f, &n);
		else
			print_stats(f, &n);
	}
	return status;
}
