// SPDX-License-Identifier: MIT
/*
 * test_hlml_smi_net.c - hl-smi's other faces against the real hpu-fused:
 * -n link|ports|stats (link state, MAC addresses, wiring and counters
 * as libhlml and HPU_INFO_NIC give them, a port taken down showing
 * DOWN), topo (symmetric, the simulated fabric's wiring, the affinity
 * columns), --fw-versions (libhlml's versions), the default table as
 * hl-smi (a block per AIP, the test's own compute context in "Compute
 * Processes"), and every bad argument refused with exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "hlml.h"
#include "hpudrv.h"

#define NDEV 4
#define MIB  (1024ULL * 1024)

static struct hpu_device_info infos[NDEV];
static char hl_dir[] = "/tmp/hlsmi-net-XXXXXX";
static char hl_link[PATH_MAX + 16];

static int group_setup(void **state)
{
	char bin[PATH_MAX];

	(void)state;
	if (hpu_test_group_start_infos(NDEV, "gaudi2", infos))
		return -1;
	if (hpu_test_have_fuse())
		return 0;
	/* hpu-smi invoked as hl-smi, as the compat install's link does */
	if (!realpath(hpu_test_bin("hpu-smi"), bin) || !mkdtemp(hl_dir))
		return -1;
	snprintf(hl_link, sizeof(hl_link), "%s/hl-smi", hl_dir);
	return symlink(bin, hl_link) ? -1 : 0;
}

static int group_teardown(void **state)
{
	if (hl_link[0])
		unlink(hl_link);
	rmdir(hl_dir);
	return hpu_test_group_stop(state);
}

/* Runs hl-smi (the link) with up to 8 arguments; stdout, stderr apart */
static void run(struct hpu_test_proc *p, const char *prog, ...)
{
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	va_list ap;
	int ret;

	va_start(ap, prog);
	ret = hpu_test_proc_vrun(p, prog ? hpu_test_bin(prog) : hl_link, &o,
				 60000, ap);
	va_end(ap);
	assert_int_equal(ret, 0);
}

static void assert_has(const char *out, const char *s)
{
	if (!strstr(out, s))
		print_message("no '%s' in:\n%s", s, out);
	assert_non_null(strstr(out, s));
}

static hlml_device_t handle(int dev)
{
	hlml_device_t h;

	assert_int_equal(hlml_device_get_handle_by_pci_bus_id(infos[dev].bus_id,
							      &h),
			 HLML_SUCCESS);
	return h;
}

static void nic_info(int dev, struct hpu_info_nic *nic)
{
	struct hpu_device *d;

	assert_int_equal(hpu_open_control(dev, &d), 0);
	assert_int_equal(hpu_info_nic(d, nic), 0);
	hpu_close(d);
}

static unsigned int port_count(hlml_device_t h, uint64_t *ext)
{
	uint64_t mask[PORTS_ARR_SIZE];
	unsigned int n = 0, p;

	assert_int_equal(hlml_get_mac_addr_info(h, mask, ext), HLML_SUCCESS);
	for (p = 0; p < 64 * PORTS_ARR_SIZE; p++)
		n += mask[p / 64] >> (p % 64) & 1;
	/* the ports are 0..n-1 */
	assert_true(n > 0 && n <= 64);
	assert_int_equal(mask[0], n == 64 ? ~0ULL : (1ULL << n) - 1);
	return n;
}

/* The block of device @dev: its header line "[I] AIP (BUS)" */
static const char *block(const char *out, int dev)
{
	char want[64];
	const char *b;

	snprintf(want, sizeof(want), "[%d] AIP (%s)\n", dev, infos[dev].bus_id);
	b = strstr(out, want);
	if (!b)
		print_message("no '%s' in:\n%s", want, out);
	assert_non_null(b);
	return b + strlen(want);
}

/* -n link: one "port N:\tUP|DOWN" line per port, libhlml's state */
static void check_link(int dev, int down_port)
{
	char idx[16], want[64];
	struct hpu_test_proc p;
	const char *b;
	unsigned int n, port;
	hlml_device_t h;
	uint64_t ext[PORTS_ARR_SIZE];
	bool up;

	snprintf(idx, sizeof(idx), "%d", dev);
	run(&p, NULL, "-n", "link", "-i", idx, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	h = handle(dev);
	n = port_count(h, ext);
	b = block(p.out, dev);
	for (port = 0; port < n; port++) {
		assert_int_equal(hlml_nic_get_link(h, port, &up), HLML_SUCCESS);
		if ((int)port == down_port)
			assert_false(up);
		snprintf(want, sizeof(want), "port %u:\t%s\n", port,
			 up ? "UP" : "DOWN");
		assert_int_equal(strncmp(b, want, strlen(want)), 0);
		b += strlen(want);
	}
	/* nothing after the last port */
	assert_string_equal(b, "");
	hpu_test_proc_free(&p);
}

static void test_link(void **state)
{
	struct hpu_device *dev;
	struct hpu_test_proc p;
	int i;

	(void)state;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	for (i = 0; i < NDEV; i++)
		check_link(i, -1);

	/* a port taken down shows DOWN at once, by bus id too */
	assert_int_equal(hpu_open(2, &dev), 0);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_LINK_DOWN, 5, 0),
			 0);
	check_link(2, 5);
	run(&p, NULL, "-n", "link", "-i", infos[2].bus_id, NULL);
	assert_int_equal(p.status, 0);
	assert_has(p.out, "\nport 5:\tDOWN\n");
	hpu_test_proc_free(&p);
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	hpu_close(dev);
	check_link(2, -1);

	/* without -i: every device, every port up; as hpu-smi the same */
	run(&p, NULL, "-n", "link", NULL);
	assert_int_equal(p.status, 0);
	for (i = 0; i < NDEV; i++)
		block(p.out, i);
	assert_null(strstr(p.out, "DOWN"));
	hpu_test_proc_free(&p);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* -n ports: MAC of libhlml, external as its mask, the peer of HPU_INFO_NIC */
static void test_ports(void **state)
{
	hlml_mac_info_t mac[HLML_DEVICE_MAC_MAX_ADDRESSES];
	uint64_t ext[PORTS_ARR_SIZE];
	struct hpu_info_nic nic;
	struct hpu_test_proc p;
	char want[128];
	const char *b;
	unsigned int n, nmac = 0, k;
	hlml_device_t h;
	int dev;

	(void)state;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	run(&p, "hpu-smi", "--nic=ports", NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	for (dev = 0; dev < NDEV; dev++) {
		h = handle(dev);
		n = port_count(h, ext);
		nic_info(dev, &nic);
		assert_int_equal(n, nic.num_ports);
		assert_int_equal(hlml_device_get_mac_info(
					 h, mac, HLML_DEVICE_MAC_MAX_ADDRESSES,
					 0, &nmac),
				 HLML_SUCCESS);
		assert_int_equal(nmac, n);
		b = block(p.out, dev);
		for (k = 0; k < nmac; k++) {
			unsigned int port = (unsigned int)mac[k].id;
			int len;

			len = snprintf(
				want, sizeof(want),
				"port %u:\t%02x:%02x:%02x:%02x:%02x:%02x\t",
				port, mac[k].addr[0], mac[k].addr[1],
				mac[k].addr[2], mac[k].addr[3], mac[k].addr[4],
				mac[k].addr[5]);
			if (ext[port / 64] >> (port % 64) & 1)
				snprintf(want + len, sizeof(want) - len,
					 "external\n");
			else if (nic.port_peer[port] == HPU_NIC_PEER_NONE)
				snprintf(want + len, sizeof(want) - len,
					 "internal\tunwired\n");
			else
				snprintf(want + len, sizeof(want) - len,
					 "internal\tAIP %u\n",
					 nic.port_peer[port]);
			if (strncmp(b, want, strlen(want)))
				print_message("want '%s' at:\n%.200s\n", want,
					      b);
			assert_int_equal(strncmp(b, want, strlen(want)), 0);
			b += strlen(want);
		}
		/* the scale-out ports are the last three */
		assert_int_equal(ext[0], nic.scaleout_ports_mask);
		assert_int_equal(__builtin_popcountll(ext[0]), 3);
	}
	hpu_test_proc_free(&p);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* -n stats: port counts and the device's byte counters */
static void test_stats(void **state)
{
	struct hpu_info_nic nic;
	struct hpu_test_proc p;
	char want[128];
	const char *b;
	int dev;

	(void)state;
	run(&p, NULL, "-n", "stats", NULL);
	assert_int_equal(p.status, 0);
	for (dev = 0; dev < NDEV; dev++) {
		nic_info(dev, &nic);
		b = block(p.out, dev);
		/* no traffic in this test: the counters hold still */
		snprintf(want, sizeof(want),
			 "ports:\t%u\nports up:\t%d\ntx_bytes:\t%llu\n"
			 "rx_bytes:\t%llu\nper-port counters:\tN/A\n",
			 nic.num_ports, __builtin_popcountll(nic.ports_up_mask),
			 (unsigned long long)nic.tx_bytes,
			 (unsigned long long)nic.rx_bytes);
		if (strncmp(b, want, strlen(want)))
			print_message("want:\n%s\ngot:\n%.300s\n", want, b);
		assert_int_equal(strncmp(b, want, strlen(want)), 0);
	}
	hpu_test_proc_free(&p);
}

/* The cells of row @dev of the matrix (after its "AIPn" label) */
static void matrix_row(const char *out, int dev, char cells[NDEV][16])
{
	char label[16];
	const char *l;
	int j, used;

	snprintf(label, sizeof(label), "\nAIP%d ", dev);
	l = strstr(out, label);
	assert_non_null(l);
	l += strlen(label);
	for (j = 0; j < NDEV; j++) {
		assert_int_equal(sscanf(l, "%15s%n", cells[j], &used), 1);
		l += used;
	}
}

/* topo: symmetric, as the fabric is wired; -c/-N add the columns */
static void test_topo(void **state)
{
	char cells[NDEV][NDEV][16], want[32];
	struct hpu_info_nic nic[NDEV];
	struct hpu_test_proc p;
	unsigned int k, port, links;
	int i, j;

	(void)state;
	run(&p, NULL, "topo", "-c", "-N", NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	assert_has(p.out, "CPU Affinity");
	assert_has(p.out, "NUMA Affinity");
	assert_has(p.out, "Legend:");
	for (i = 0; i < NDEV; i++) {
		nic_info(i, &nic[i]);
		matrix_row(p.out, i, cells[i]);
	}
	/* gaudi2: 21 scale-up ports, evenly to the other devices */
	k = (nic[0].num_ports - 3) / (NDEV - 1);
	for (i = 0; i < NDEV; i++) {
		for (j = 0; j < NDEV; j++) {
			assert_string_equal(cells[i][j], cells[j][i]);
			if (i == j) {
				assert_string_equal(cells[i][j], "X");
				continue;
			}
			for (links = 0, port = 0; port < nic[i].num_ports;
			     port++)
				links += nic[i].port_peer[port] ==
					 nic[j].device_index;
			assert_int_equal(links, k);
			snprintf(want, sizeof(want), "NIC%u", links);
			assert_string_equal(cells[i][j], want);
		}
	}
	hpu_test_proc_free(&p);

	/* -m alone: the matrix without the affinity columns */
	run(&p, "hpu-smi", "topo", "-m", NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "Affinity"));
	matrix_row(p.out, 1, cells[0]);
	assert_string_equal(cells[0][1], "X");
	hpu_test_proc_free(&p);
}

/* --fw-versions: libhlml's versions, N/A for the parts the model lacks */
static void test_fw_versions(void **state)
{
	char s[256], want[320];
	struct hpu_test_proc p;
	const char *b;

	(void)state;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	run(&p, NULL, "--fw-versions", "-i", infos[3].bus_id, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	/* only the device of -i */
	assert_null(strstr(p.out, infos[0].bus_id));
	snprintf(want, sizeof(want), "[3] AIP (%s) ", infos[3].bus_id);
	assert_has(p.out, want);
	b = strstr(p.out, want);
	assert_int_equal(hlml_get_driver_version(s, sizeof(s)), HLML_SUCCESS);
	snprintf(want, sizeof(want), "\n        Driver version is: %s\n", s);
	assert_has(b, want);
	assert_int_equal(hlml_get_firmware_fit_version(handle(3), s, sizeof(s)),
			 HLML_SUCCESS);
	snprintf(want, sizeof(want),
		 "\n        Firmware [FIT] version is: %s\n", s);
	assert_has(b, want);
	assert_int_equal(hlml_get_cpld_version(handle(3), s, sizeof(s)),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_has(b, "\n        CPLD version is: N/A\n");
	assert_has(b, "\n        Firmware [SPI] version is: N/A\n");
	hpu_test_proc_free(&p);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* The default table as hl-smi: AIP blocks, our own compute context */
static void test_default_table(void **state)
{
	struct hpu_process *procs = NULL;
	struct hpu_device *dev;
	struct hpu_test_proc p;
	char want[128], pid[16], *row, *end;
	uint64_t handle_mem;
	int nprocs = 0, i;

	(void)state;
	assert_int_equal(hpu_open(1, &dev), 0);
	assert_int_equal(hpu_mem_alloc(dev, 8 * MIB, 0, 0, &handle_mem), 0);
	run(&p, NULL, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	assert_has(p.out, "| HL-SMI Version:");
	assert_has(p.out, "| Driver Version:");
	assert_has(p.out, "| AIP  Name ");
	assert_has(p.out, "Pwr:Usage/Cap");
	assert_has(p.out, " Compute Processes:");
	for (i = 0; i < NDEV; i++) {
		snprintf(want, sizeof(want), "| %-13s ", infos[i].bus_id);
		assert_has(p.out, want);
	}
	/* our context on device 1: pid, type C, its memory */
	assert_int_equal(hpu_device_processes(1, &procs, &nprocs), 0);
	for (i = 0; i < nprocs && procs[i].pid != getpid(); i++)
		;
	assert_true(i < nprocs);
	snprintf(pid, sizeof(pid), " %d ", (int)getpid());
	row = strstr(p.out, pid);
	if (!row)
		print_message("no pid%sin:\n%s", pid, p.out);
	assert_non_null(row);
	end = strchr(row, '\n');
	assert_non_null(end);
	*end = '\0';
	while (row > p.out && row[-1] != '\n')
		row--;
	assert_int_equal(strncmp(row, "|    1 ", 7), 0);
	assert_non_null(strstr(row, "   C   "));
	snprintf(want, sizeof(want), " %lluMiB |",
		 (unsigned long long)(procs[i].dram_bytes / MIB));
	assert_non_null(strstr(row, want));
	assert_true(procs[i].dram_bytes >= 8 * MIB);
	hpu_process_list_free(procs);
	hpu_test_proc_free(&p);

	/* once closed, no row has our pid; device 1 shows N/A */
	assert_int_equal(hpu_mem_free(dev, handle_mem), 0);
	hpu_close(dev);
	run(&p, NULL, NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, pid));
	assert_has(p.out, "|    1        N/A   N/A    N/A ");
	hpu_test_proc_free(&p);

	/* under its own name hpu-smi keeps its table */
	run(&p, "hpu-smi", NULL);
	assert_int_equal(p.status, 0);
	assert_has(p.out, "| HPU-SMI ");
	assert_null(strstr(p.out, "Compute Processes"));
	hpu_test_proc_free(&p);
}

/* Bad flags, -n views, -i values, topo options: exit 2, nothing printed */
static void test_bad_args(void **state)
{
	static const char *const bad[][4] = {
		{ "-n", "nosuch", NULL },
		{ "-n", "LINK", NULL },
		{ "-n", NULL },
		{ "--nic", NULL },
		{ "-n", "link", "-i", "99" },
		{ "-n", "ports", "-i", "0000:ff:00.0" },
		{ "-n", "stats", "-i", "" },
		{ "-n", "link", "-i", "0,,1" },
		{ "-n", "link", "-q", NULL },
		{ "-n", "link", "-f", "csv" },
		{ "--fw-versions", "-n", "link", NULL },
		{ "--fw-versions", "-Q", "index", NULL },
		{ "--fw-versions", "-i", "7", NULL },
		{ "topo", "-x", NULL },
		{ "topo", "-i", "0", NULL },
		{ "topo", "extra", NULL },
		{ "--nosuch", NULL },
	};
	struct hpu_test_proc p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&p, NULL, bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL);
		if (p.status != 2 || p.out[0] || !strstr(p.err, "hl-smi: "))
			print_message("%s %s %s %s: exit %d, out '%s', err "
				      "'%s'\n",
				      bad[i][0], bad[i][1] ?: "",
				      bad[i][2] ?: "", bad[i][3] ?: "",
				      p.status, p.out, p.err);
		assert_int_equal(p.status, 2);
		assert_string_equal(p.out, "");
		assert_has(p.err, "hl-smi: ");
		hpu_test_proc_free(&p);
	}
	/* the reason is named */
	run(&p, NULL, "-n", "nosuch", NULL);
	assert_has(p.err, "unknown NIC view 'nosuch' (link, ports, stats)");
	hpu_test_proc_free(&p);
	run(&p, "hpu-smi", "-n", "link", "-i", "99", NULL);
	assert_int_equal(p.status, 2);
	assert_has(p.err, "hpu-smi: no device with index 99");
	hpu_test_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_link, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ports, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_stats, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_topo, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_fw_versions, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_default_table,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bad_args, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
