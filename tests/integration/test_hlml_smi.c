// SPDX-License-Identifier: MIT
/*
 * test_hlml_smi.c - hpu-smi as hl-smi against the real hpu-fused:
 * --query-aip with hl-smi's field names, every field's csv value against
 * what libhlml answers, the csv header and units, noheader/nounits, the
 * -Q/--query-hpu aliases, unknown fields and formats refused; -q -d
 * sections in hl-smi's layout; the program invoked as hl-smi.
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

#define NDEV 2
#define MIB  (1024ULL * 1024)

static struct hpu_device_info infos[NDEV];

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_infos(NDEV, "gaudi2", infos);
}

/*
 * Runs the program @prog of the build tree ("hpu-smi"), or @prog itself
 * when it is a path, with up to 8 arguments; stdout and stderr apart in @p.
 */
static void run(struct hpu_test_proc *p, const char *prog, ...)
{
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	va_list ap;
	int ret;

	va_start(ap, prog);
	ret = hpu_test_proc_vrun(p,
				 strchr(prog, '/') ? prog : hpu_test_bin(prog),
				 &o, 60000, ap);
	va_end(ap);
	assert_int_equal(ret, 0);
}

/* An hl-smi field and how the test reads the same value from libhlml */
enum kind {
	K_STR,
	K_UINT,
	K_MIB,
	K_WATT,
	K_ECC,
	K_MODE
};

struct hlfield {
	const char *name;
	const char *unit;
	enum kind kind;
	bool varies; /* a live reading: compared within bounds */
	int arg;
};

static const struct hlfield hlfields[] = {
	{ "name", NULL, K_STR, false, 0 },
	{ "bus_id", NULL, K_STR, false, 1 },
	{ "uuid", NULL, K_STR, false, 2 },
	{ "serial", NULL, K_STR, false, 3 },
	{ "driver_version", NULL, K_STR, false, 4 },
	{ "module_id", NULL, K_UINT, false, 0 },
	{ "temperature.aip", "C", K_UINT, true, 1 },
	{ "utilization.aip", "%", K_UINT, true, 2 },
	{ "clocks.current.soc", "MHz", K_UINT, true, 3 },
	{ "clocks.max.soc", "MHz", K_UINT, false, 4 },
	{ "clocks.current.tpc", "MHz", K_UINT, true, 5 },
	{ "clocks.max.mme", "MHz", K_UINT, false, 6 },
	{ "memory.total", "MiB", K_MIB, false, 0 },
	{ "memory.used", "MiB", K_MIB, false, 1 },
	{ "memory.free", "MiB", K_MIB, false, 2 },
	{ "power.draw", "W", K_WATT, true, 0 },
	{ "power.max", "W", K_WATT, false, 1 },
	{ "ecc.errors.corrected.volatile.total", NULL, K_ECC, false, 0 },
	{ "ecc.errors.uncorrected.aggregate.total", NULL, K_ECC, false, 1 },
	{ "ecc.errors.dram.volatile.total", NULL, K_ECC, false, 2 },
	{ "ecc.errors.dram-corrected.aggregate.total", NULL, K_ECC, false, 3 },
	{ "ecc.mode.current", NULL, K_MODE, false, 0 },
	{ "ecc.mode.pending", NULL, K_MODE, false, 1 },
};

#define NHL (sizeof(hlfields) / sizeof(hlfields[0]))

/* The value libhlml gives for @f, as hpu-smi prints it with nounits */
static void hl_expect(hlml_device_t h, const struct hlfield *f, char *buf,
		      size_t len, double *num)
{
	static const hlml_clock_type_t clk[] = { HLML_CLOCK_SOC, HLML_CLOCK_SOC,
						 HLML_CLOCK_TPC,
						 HLML_CLOCK_MME };
	hlml_enable_state_t cur, pend;
	hlml_utilization_t util;
	unsigned long long n = 0;
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	unsigned int u = 0;

	*num = 0;
	switch (f->kind) {
	case K_STR:
		if (f->arg == 0)
			assert_int_equal(hlml_device_get_name(h, buf, len), 0);
		else if (f->arg == 1) {
			assert_int_equal(hlml_device_get_pci_info(h, &pci), 0);
			snprintf(buf, len, "%s", pci.bus_id);
		} else if (f->arg == 2)
			assert_int_equal(hlml_device_get_uuid(h, buf, len), 0);
		else if (f->arg == 3)
			assert_int_equal(hlml_device_get_serial(h, buf, len),
					 0);
		else
			assert_int_equal(hlml_get_driver_version(buf, len), 0);
		return;
	case K_UINT:
		if (f->arg == 0)
			assert_int_equal(hlml_device_get_module_id(h, &u), 0);
		else if (f->arg == 1)
			assert_int_equal(hlml_device_get_temperature(
						 h, HLML_TEMPERATURE_ON_AIP,
						 &u),
					 0);
		else if (f->arg == 2) {
			assert_int_equal(
				hlml_device_get_utilization_rates(h, &util), 0);
			u = util.aip;
		} else if (f->arg == 3 || f->arg == 5)
			assert_int_equal(hlml_device_get_clock_info(
						 h, clk[f->arg - 3], &u),
					 0);
		else
			assert_int_equal(hlml_device_get_max_clock_info(
						 h, clk[f->arg - 3], &u),
					 0);
		snprintf(buf, len, "%u", u);
		*num = u;
		return;
	case K_MIB:
		assert_int_equal(hlml_device_get_memory_info(h, &mem), 0);
		n = f->arg == 0 ? mem.total : f->arg == 1 ? mem.used : mem.free;
		snprintf(buf, len, "%llu", n / MIB);
		*num = (double)(n / MIB);
		return;
	case K_WATT:
		if (f->arg == 0)
			assert_int_equal(hlml_device_get_power_usage(h, &u), 0);
		else
			assert_int_equal(
				hlml_device_get_power_management_default_limit(
					h, &u),
				0);
		snprintf(buf, len, "%.2f", u / 1000.0);
		*num = u / 1000.0;
		return;
	case K_ECC:
		if (f->arg < 2)
			assert_int_equal(
				hlml_device_get_total_ecc_errors(
					h,
					f->arg ?
						HLML_MEMORY_ERROR_TYPE_UNCORRECTED :
						HLML_MEMORY_ERROR_TYPE_CORRECTED,
					f->arg ? HLML_AGGREGATE_ECC :
						 HLML_VOLATILE_ECC,
					&n),
				0);
		else
			assert_int_equal(
				hlml_device_get_memory_error_counter(
					h,
					f->arg == 2 ?
						HLML_MEMORY_ERROR_TYPE_UNCORRECTED :
						HLML_MEMORY_ERROR_TYPE_CORRECTED,
					f->arg == 2 ? HLML_VOLATILE_ECC :
						      HLML_AGGREGATE_ECC,
					HLML_MEMORY_LOCATION_DRAM, &n),
				0);
		snprintf(buf, len, "%llu", n);
		*num = (double)n;
		return;
	case K_MODE:
		assert_int_equal(hlml_device_get_ecc_mode(h, &cur, &pend), 0);
		snprintf(buf, len, "%s",
			 (f->arg ? pend : cur) == HLML_FEATURE_ENABLED ?
				 "Enabled" :
				 "Disabled");
		return;
	}
}

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The @k-th ", "-separated value of @line (one line, no newline) */
static void nth_value(const char *line, unsigned int k, char *buf, size_t len)
{
	const char *p = line, *e;
	unsigned int i;

	for (i = 0; i < k; i++) {
		p = strstr(p, ", ");
		assert_non_null(p);
		p += 2;
	}
	e = strstr(p, ", ");
	if (!e)
		e = p + strlen(p);
	assert_true((size_t)(e - p) < len);
	memcpy(buf, p, (size_t)(e - p));
	buf[e - p] = '\0';
}

/* Every hl-smi field of every device, as libhlml answers it */
static void test_fields_vs_hlml(void **state)
{
	char query[2048] = "index", want[128], got[128], *line, *save = NULL;
	double before[NHL], after[NHL], v;
	struct hpu_test_proc p;
	hlml_device_t h;
	unsigned int i, k;
	int dev;

	(void)state;
	for (k = 0; k < NHL; k++) {
		strcat(query, ",");
		strcat(query, hlfields[k].name);
	}
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	for (dev = 0; dev < NDEV; dev++) {
		char idx[16];

		snprintf(idx, sizeof(idx), "%d", dev);
		assert_int_equal(hlml_device_get_handle_by_pci_bus_id(
					 infos[dev].bus_id, &h),
				 0);
		for (k = 0; k < NHL; k++)
			hl_expect(h, &hlfields[k], want, sizeof(want),
				  &before[k]);
		run(&p, "hpu-smi", "--query-aip", query,
		    "--format=csv,noheader,nounits", "-i", idx, NULL);
		assert_int_equal(p.status, 0);
		assert_string_equal(p.err, "");
		line = strtok_r(p.out, "\n", &save);
		assert_non_null(line);
		assert_null(strtok_r(NULL, "\n", &save));
		nth_value(line, 0, got, sizeof(got));
		assert_string_equal(got, idx);
		for (k = 0; k < NHL; k++) {
			const struct hlfield *f = &hlfields[k];

			hl_expect(h, f, want, sizeof(want), &after[k]);
			nth_value(line, k + 1, got, sizeof(got));
			if (!f->varies) {
				if (strcmp(got, want))
					print_message(
						"%s: hpu-smi %s, hlml %s\n",
						f->name, got, want);
				assert_string_equal(got, want);
				continue;
			}
			/* a live reading: between the two of libhlml, with
			 * slack for the model's moves in between */
			v = strtod(got, NULL);
			if (v < (before[k] < after[k] ? before[k] : after[k]) *
						    0.5 -
					    5 ||
			    v > (before[k] > after[k] ? before[k] : after[k]) *
						    1.5 +
					    5)
				print_message("%s: hpu-smi %s, hlml %g..%g\n",
					      f->name, got, before[k],
					      after[k]);
			assert_true(v >= (before[k] < after[k] ? before[k] :
								 after[k]) *
							 0.5 -
						 5);
			assert_true(v <= (before[k] > after[k] ? before[k] :
								 after[k]) *
							 1.5 +
						 5);
		}
		hpu_test_proc_free(&p);
	}
	/* the values are libhpudrv's too */
	i = 0;
	assert_int_equal(hlml_device_get_count(&i), 0);
	assert_int_equal(i, NDEV);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* Header names with units in brackets, values with units */
static void test_header_units(void **state)
{
	struct hpu_test_proc p;
	char *l2;

	(void)state;
	run(&p, "hpu-smi",
	    "--query-aip=index,uuid,memory.total,power.draw,temperature.aip,"
	    "utilization.aip,clocks.current.soc",
	    "--format=csv", NULL);
	assert_int_equal(p.status, 0);
	l2 = strchr(p.out, '\n');
	assert_non_null(l2);
	*l2++ = '\0';
	assert_string_equal(p.out,
			    "index, uuid, memory.total [MiB], power.draw [W], "
			    "temperature.aip [C], utilization.aip [%], "
			    "clocks.current.soc [MHz]");
	/* one line per device, every numeric value with its unit */
	assert_non_null(strstr(l2, " MiB, "));
	assert_non_null(strstr(l2, " W, "));
	assert_non_null(strstr(l2, " C, "));
	assert_non_null(strstr(l2, " %, "));
	assert_non_null(strstr(l2, " MHz\n"));
	assert_int_equal(strncmp(l2, "0, ", 3), 0);
	assert_non_null(strstr(l2, "\n1, "));
	hpu_test_proc_free(&p);

	run(&p, "hpu-smi", "--query-aip=memory.total,power.draw",
	    "--format=csv,noheader", NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "["));
	assert_non_null(strstr(p.out, " MiB, "));
	assert_int_equal(strchr(p.out, '\n') - p.out + 1 < (long)strlen(p.out),
			 1);
	hpu_test_proc_free(&p);

	run(&p, "hpu-smi", "--query-aip=memory.total,power.draw",
	    "--format=csv,nounits", NULL);
	assert_int_equal(p.status, 0);
	assert_int_equal(strncmp(p.out, "memory.total, power.draw\n", 25), 0);
	assert_null(strstr(p.out, "MiB"));
	assert_null(strstr(p.out, " W"));
	hpu_test_proc_free(&p);
}

/* -Q and --query-hpu are the same query as --query-aip */
static void test_aliases(void **state)
{
	static const char q[] = "index,name,bus_id,uuid,serial,module_id,"
				"memory.total,ecc.mode.current";
	struct hpu_test_proc a, b, c;

	(void)state;
	run(&a, "hpu-smi", "--query-aip", q, "--format=csv", NULL);
	run(&b, "hpu-smi", "-Q", q, "-f", "csv", NULL);
	run(&c, "hpu-smi", "--query-hpu", q, "--format", "csv", NULL);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(c.status, 0);
	assert_string_equal(a.out, b.out);
	assert_string_equal(a.out, c.out);
	hpu_test_proc_free(&a);
	hpu_test_proc_free(&b);
	hpu_test_proc_free(&c);
}

/* Unknown fields and formats: exit 2, the reason on stderr, no output */
static void test_errors(void **state)
{
	static const char *const bad[][2] = {
		{ "--query-aip=index,temperature.board", "--format=csv" },
		{ "--query-aip=clocks.current.gpu", "--format=csv" },
		{ "--query-aip=ecc.errors", "--format=csv,noheader" },
		{ "--query-aip=index", "--format=xml" },
		{ "--query-aip=index", "--format=csv,nounit" },
	};
	struct hpu_test_proc p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&p, "hpu-smi", bad[i][0], bad[i][1], NULL);
		if (p.status != 2)
			print_message("%s %s: exit %d\n", bad[i][0], bad[i][1],
				      p.status);
		assert_int_equal(p.status, 2);
		assert_string_equal(p.out, "");
		assert_true(strstr(p.err, "unknown field") ||
			    strstr(p.err, "invalid format"));
		hpu_test_proc_free(&p);
	}
}

/* A "key : value" line of -q in hl-smi's layout, ':' at column 42 */
static void assert_kv(const char *out, const char *key, const char *value)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%-42s: %s\n", key, value);
	if (!strstr(out, want))
		print_message("no line '%s' in:\n%s", want + 1, out);
	assert_non_null(strstr(out, want));
}

static void assert_has(const char *out, const char *s)
{
	if (!strstr(out, s))
		print_message("no '%s' in:\n%s", s, out);
	assert_non_null(strstr(out, s));
}

/* -q -d: hl-smi's sections, values as libhlml gives them */
static void test_sections(void **state)
{
	static const char *const keys[] = {
		/* PRODUCT */
		"    Model Number",
		"    Minor Number",
		"    HL Revision",
		"    PCB Version",
		"    PCB Assembly Version",
		/* POWER */
		"        Power Draw",
		"        Power Limit",
		"        Energy Consumed",
		/* CLOCK */
		"        SOC",
		"        IC",
		"        MME",
		"        TPC",
		"        Power Cap",
		"        Thermal",
		/* TEMPERATURE */
		"        AIP Current Temp",
		"        Board Current Temp",
		"        AIP Shutdown Temp",
		"        AIP Slowdown Temp",
		/* MEMORY */
		"        Total",
		"        Used",
		"        Free",
		"        Current",
		"        Pending",
		"        Volatile Corrected",
		"        Aggregate Uncorrected",
		/* NET */
		"        Ports",
		"        Ports Up",
		"        Port 0",
		"            MAC Address",
		"            External",
		/* ROW_REPLACEMENT */
		"        Single Bit ECC Rows",
		"        Double Bit ECC Rows",
	};
	static const char *const headings[] = {
		"\n    Power Readings\n", "\n    Clocks\n",
		"\n    Max Clocks\n",	  "\n    Clocks Throttle Reasons\n",
		"\n    Temperature\n",	  "\n    Memory Usage\n",
		"\n    ECC Mode\n",	  "\n    ECC Errors\n",
		"\n    NIC Ports\n",	  "\n    Row Replacement\n",
	};
	char s[128], want[160];
	struct hpu_test_proc p;
	hlml_memory_t mem;
	hlml_device_t h;
	unsigned int u, up = 0, port, nports = 0;
	uint64_t mask[PORTS_ARR_SIZE], ext[PORTS_ARR_SIZE];
	bool link;
	size_t k;

	(void)state;
	run(&p, "hpu-smi", "-q", "-d",
	    "PRODUCT,POWER,CLOCK,TEMPERATURE,MEMORY,NET,ROW_REPLACEMENT", "-i",
	    "1", NULL);
	assert_int_equal(p.status, 0);
	assert_has(p.out, "HL-SMI LOG");
	snprintf(want, sizeof(want), "\n[1] AIP %s\n", infos[1].bus_id);
	assert_has(p.out, want);
	assert_kv(p.out, "Attached AIPs", "1");
	for (k = 0; k < sizeof(headings) / sizeof(headings[0]); k++)
		assert_has(p.out, headings[k]);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		snprintf(want, sizeof(want), "\n%-42s: ", keys[k]);
		assert_has(p.out, want);
	}
	/* the values libhlml gives */
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(
		hlml_device_get_handle_by_pci_bus_id(infos[1].bus_id, &h), 0);
	assert_int_equal(hlml_device_get_name(h, s, sizeof(s)), 0);
	assert_kv(p.out, "    Product Name", s);
	assert_int_equal(hlml_device_get_uuid(h, s, sizeof(s)), 0);
	assert_kv(p.out, "    AIP UUID", s);
	assert_int_equal(hlml_device_get_serial(h, s, sizeof(s)), 0);
	assert_kv(p.out, "    Serial Number", s);
	assert_int_equal(hlml_device_get_module_id(h, &u), 0);
	snprintf(s, sizeof(s), "%u", u);
	assert_kv(p.out, "    Module ID", s);
	assert_int_equal(hlml_device_get_memory_info(h, &mem), 0);
	snprintf(s, sizeof(s), "%llu MiB", mem.total / MIB);
	assert_kv(p.out, "        Total", s);
	assert_int_equal(hlml_device_get_max_clock_info(h, HLML_CLOCK_SOC, &u),
			 0);
	snprintf(s, sizeof(s), "%u MHz", u);
	assert_kv(p.out, "        SOC", s);
	assert_int_equal(hlml_device_get_power_management_default_limit(h, &u),
			 0);
	snprintf(s, sizeof(s), "%.2f W", u / 1000.0);
	assert_kv(p.out, "        Power Limit", s);
	assert_int_equal(hlml_get_mac_addr_info(h, mask, ext), 0);
	for (port = 0; port < 64 * PORTS_ARR_SIZE; port++) {
		if (!(mask[port / 64] >> (port % 64) & 1))
			continue;
		nports++;
		assert_int_equal(hlml_nic_get_link(h, port, &link), 0);
		up += link;
	}
	snprintf(s, sizeof(s), "%u", nports);
	assert_kv(p.out, "        Ports", s);
	snprintf(s, sizeof(s), "%u", up);
	assert_kv(p.out, "        Ports Up", s);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	hpu_test_proc_free(&p);

	/* one section: only its heading */
	run(&p, "hpu-smi", "-q", "-d", "POWER", NULL);
	assert_int_equal(p.status, 0);
	assert_has(p.out, "\n    Power Readings\n");
	assert_null(strstr(p.out, "Clocks"));
	assert_null(strstr(p.out, "Product Name"));
	assert_int_equal(count_str(p.out, "Power Readings"), NDEV);
	hpu_test_proc_free(&p);

	/* hpu-smi's own -q is unchanged without -d */
	run(&p, "hpu-smi", "-q", NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "HL-SMI LOG"));
	hpu_test_proc_free(&p);

	/* unknown section, -d without -q: usage errors */
	run(&p, "hpu-smi", "-q", "-d", "FAN", NULL);
	assert_int_equal(p.status, 2);
	assert_string_equal(p.out, "");
	assert_has(p.err, "unknown section 'FAN'");
	hpu_test_proc_free(&p);
	run(&p, "hpu-smi", "-d", "POWER", NULL);
	assert_int_equal(p.status, 2);
	assert_string_equal(p.out, "");
	hpu_test_proc_free(&p);
}

/* Invoked as hl-smi (the compat install's link) it calls itself hl-smi */
static void test_as_hl_smi(void **state)
{
	char dir[] = "/tmp/hlsmi-XXXXXX", bin[PATH_MAX], link[PATH_MAX + 16];
	struct hpu_test_proc p;

	(void)state;
	assert_non_null(realpath(hpu_test_bin("hpu-smi"), bin));
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/hl-smi", dir);
	assert_int_equal(symlink(bin, link), 0);

	run(&p, link, "-v", NULL);
	assert_int_equal(p.status, 0);
	assert_int_equal(strncmp(p.out, "hl-smi ", 7), 0);
	hpu_test_proc_free(&p);

	run(&p, link, "--query-aip=index,nosuch", "--format=csv", NULL);
	assert_int_equal(p.status, 2);
	assert_string_equal(p.err, "hl-smi: unknown field 'nosuch' (see hl-smi "
				   "--help-query)\n");
	hpu_test_proc_free(&p);

	/* -q is hl-smi's: every section */
	run(&p, link, "-q", NULL);
	assert_int_equal(p.status, 0);
	assert_has(p.out, "HL-SMI LOG");
	assert_has(p.out, "\n    Row Replacement\n");
	assert_has(p.out, "\n    NIC Ports\n");
	assert_has(p.out, "    Product Name");
	hpu_test_proc_free(&p);

	/* the same values as under its own name */
	run(&p, link, "--query-aip=index,bus_id,uuid", "--format=csv,noheader",
	    NULL);
	assert_int_equal(p.status, 0);
	assert_int_equal(strncmp(p.out, "0, ", 3), 0);
	assert_non_null(strstr(p.out, infos[1].bus_id));
	hpu_test_proc_free(&p);

	/* under its own name hpu-smi does not take hl-smi's name */
	run(&p, "hpu-smi", "-v", NULL);
	assert_int_equal(strncmp(p.out, "hpu-smi ", 8), 0);
	hpu_test_proc_free(&p);

	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fields_vs_hlml,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_header_units, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_aliases, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_errors, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_sections, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_as_hl_smi, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
