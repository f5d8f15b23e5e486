// SPDX-License-Identifier: MIT
/*
 * hltopo.c - hpu-smi topo [-m] [-c] [-N]: the connectivity matrix of the
 * devices (how many scale-up NIC ports link each pair within a server),
 * with their CPU and NUMA affinity columns (docs/hpu-smi.md, "topo").
 *
 * The wiring is the control node's HPU_INFO_NIC (server id, device
 * index in the server, the peer of every scale-up port); the affinities
 * are libhlml's, as hl-smi reads them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "hlml.h"
#include "smi.h"

/* Words of the CPU and node masks asked of libhlml: 1024 bits */
#define MASK_WORDS (1024 / (8 * sizeof(unsigned long)))
#define CELL	   8

struct topo_dev {
	struct smi_dev d;
	bool have_nic;
	struct hpu_info_nic nic;
};

static int topo_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: topo: ", smi_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s topo -h' for more information.\n", smi_prog);
	return SMI_EXIT_USAGE;
}

static void topo_help(void)
{
	printf("Usage: %s topo [-m] [-c] [-N]\n"
	       "\n"
	       "Show how the devices are linked: per pair, the scale-up NIC\n"
	       "ports between them.\n"
	       "\n"
	       "  -m, --matrix         the connectivity matrix (the default)\n"
	       "  -c, --cpu            add each device's CPU affinity\n"
	       "  -N, --numa           add each device's NUMA affinity\n"
	       "  -h, --help           print this help and exit\n",
	       smi_prog);
}

static bool bit(const unsigned long *mask, size_t i)
{
	size_t w = 8 * sizeof(*mask);

	return mask[i / w] >> (i % w) & 1;
}

/* @mask (a bit per CPU or node) as "0-3,8", in @buf */
static void mask_str(const unsigned long *mask, char *buf, size_t len)
{
	size_t used = 0, bits = MASK_WORDS * 8 * sizeof(*mask), i = 0, j;

	buf[0] = '\0';
	while (used + 24 < len) {
		while (i < bits && !bit(mask, i))
			i++;
		if (i == bits)
			break;
		for (j = i + 1; j < bits && bit(mask, j); j++)
			;
		if (j - 1 == i)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%zu", used ? "," : "", i);
		else
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%zu-%zu", used ? "," : "",
						 i, j - 1);
		i = j;
	}
	if (!buf[0])
		snprintf(buf, len, "N/A");
}

static void affinity(const struct smi_dev *d, bool numa, char *buf, size_t len)
{
	unsigned long mask[MASK_WORDS];
	hlml_return_t r;
	void *h;

	memset(mask, 0, sizeof(mask));
	if (smi_hl_device(d, &h)) {
		snprintf(buf, len, "ERR!");
		return;
	}
	if (numa)
		r = hlml_device_get_memory_affinity(h, MASK_WORDS, mask,
						    HLML_AFFINITY_SCOPE_NODE);
	else
		r = hlml_device_get_cpu_affinity(h, MASK_WORDS, mask);
	if (r)
		snprintf(buf, len, "%s",
			 r == HLML_ERROR_NOT_SUPPORTED ? "N/A" : "ERR!");
	else
		mask_str(mask, buf, len);
}

/* How @a reaches @b: X, NIC<n> (n scale-up ports), SYS, N/A */
static void link_cell(const struct topo_dev *a, const struct topo_dev *b,
		      char *buf, size_t len)
{
	unsigned int p, n = 0;

	if (a == b) {
		snprintf(buf, len, "X");
		return;
	}
	if (!a->have_nic || !b->have_nic) {
		snprintf(buf, len, "N/A");
		return;
	}
	if (a->nic.server_id == b->nic.server_id)
		for (p = 0; p < a->nic.num_ports && p < 64; p++)
			if (a->nic.port_peer[p] == b->nic.device_index)
				n++;
	if (n)
		snprintf(buf, len, "NIC%u", n);
	else
		snprintf(buf, len, "SYS");
}

static void print_matrix(const struct topo_dev *t, int n, bool cpu, bool numa)
{
	char cell[32], aff[256];
	int i, j;

	printf("%-*s", CELL, "");
	for (j = 0; j < n; j++) {
		snprintf(cell, sizeof(cell), "AIP%d", t[j].d.info.index);
		printf("%-*s", CELL, cell);
	}
	if (cpu)
		printf("%-*s", 2 * CELL, "CPU Affinity");
	if (numa)
		printf("%s", "NUMA Affinity");
	printf("\n");
	for (i = 0; i < n; i++) {
		snprintf(cell, sizeof(cell), "AIP%d", t[i].d.info.index);
		printf("%-*s", CELL, cell);
		for (j = 0; j < n; j++) {
			link_cell(&t[i], &t[j], cell, sizeof(cell));
			printf("%-*s", CELL, cell);
		}
		if (cpu) {
			affinity(&t[i].d, false, aff, sizeof(aff));
			printf("%-*s", 2 * CELL, aff);
		}
		if (numa) {
			affinity(&t[i].d, true, aff, sizeof(aff));
			printf("%s", aff);
		}
		printf("\n");
	}
	printf("\nLegend:\n\n"
	       "  X    = Self\n"
	       "  NIC# = Connection by # scale-up NIC ports (same server)\n"
	       "  SYS  = No direct link: through PCIe and the host, or the\n"
	       "         scale-out network (another server)\n"
	       "  N/A  = Not known (the device's NIC ports cannot be read)\n");
}

/*
 * Opens every device's control node for its wiring. Return: 0, or
 * SMI_EXIT_QUERY when a simulated device's could not be read (said on
 * stderr; a kernel device has none to read).
 */
static int gather(struct topo_dev *t, const struct hpu_device_info *all, int n)
{
	struct hpu_device *dev;
	int i, ret, status = SMI_EXIT_OK;

	for (i = 0; i < n; i++) {
		t[i].d.info = all[i];
		t[i].d.kernel = all[i].kind == HPU_DEVICE_KIND_KERNEL;
		if (t[i].d.kernel)
			continue;
		ret = hpu_open_control(all[i].index, &dev);
		if (!ret) {
			ret = hpu_info_nic(dev, &t[i].nic);
			hpu_close(dev);
		}
		t[i].have_nic = !ret;
		if (ret) {
			fprintf(stderr, "%s: hpu%d: %s\n", smi_prog,
				all[i].index, hpu_strerror(ret));
			status = SMI_EXIT_QUERY;
		}
	}
	return status;
}

int smi_topo_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "matrix", no_argument, NULL, 'm' },
		{ "cpu", no_argument, NULL, 'c' },
		{ "numa", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hpu_device_info *all = NULL;
	struct topo_dev *t;
	bool cpu = false, numa = false;
	int c, n, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":mcNh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			break;
		case 'c':
			cpu = true;
			break;
		case 'N':
			numa = true;
			break;
		case 'h':
			topo_help();
			return SMI_EXIT_OK;
		default:
			return topo_usage_error("unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (optind < argc)
		return topo_usage_error("unexpected argument '%s'",
					argv[optind]);

	ret = hpu_device_list(&all, &n);
	if (ret) {
		fprintf(stderr, "%s: cannot enumerate devices: %s\n", smi_prog,
			hpu_last_error() ?: hpu_strerror(ret));
		return SMI_EXIT_ERROR;
	}
	if (!n) {
		hpu_device_list_free(all);
		fprintf(stderr, "No devices were found\n");
		return SMI_EXIT_NO_DEVICES;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t) {
		hpu_device_list_free(all);
		fprintf(stderr, "%s: out of memory\n", smi_prog);
		return SMI_EXIT_ERROR;
	}
	ret = gather(t, all, n);
	print_matrix(t, n, cpu, numa);
	free(t);
	hpu_device_list_free(all);
	return fflush(stdout) ? SMI_EXIT_ERROR : ret;
}
