// SPDX-License-Identifier: MIT
/*
 * test_smi.c - hpu-smi against the real hpu-fused: every output mode
 * checked against what libhpudrv reports, holders listed and gone after
 * SIGKILL, usage errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "hpudrv.h"

#define NDEV 2
#define MIB  (1024ULL * 1024)

static struct hpu_device_info infos[NDEV];

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_infos(NDEV, "gaudi2", infos);
}

/* Runs hpu-smi with up to 8 arguments; returns its stdout (malloc'ed). */
static char *smi(int *status, ...)
{
	char *argv[10], *out = NULL;
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)hpu_test_bin("hpu-smi");
	va_start(ap, status);
	while (argc < 9 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	assert_int_equal(hpu_test_run(argv, &out, status), 0);
	assert_non_null(out);
	return out;
}

/* hpu-smi with up to 4 arguments (NULL-ended) refuses them, stdout empty */
static void smi_refused(const char *const arg[4])
{
	char *argv[6], *out = NULL;
	int argc = 0;

	argv[argc++] = (char *)hpu_test_bin("hpu-smi");
	while (argc < 5 && arg[argc - 1])
		argv[argc] = (char *)arg[argc - 1], argc++;
	argv[argc] = NULL;
	hpu_test_run_refused(argv, &out);
	assert_non_null(out);
	assert_string_equal(out, "");
	free(out);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
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

static void test_table(void **state)
{
	struct hpu_info_driver_version dv;
	struct hpu_device *dev;
	char want[128];
	char *out;
	int st, i;

	(void)state;
	assert_int_equal(hpu_open_control(0, &dev), 0);
	assert_int_equal(hpu_info_driver_version(dev, &dv), 0);
	hpu_close(dev);

	out = smi(&st, NULL);
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "HPU-SMI"));
	snprintf(want, sizeof(want), "Driver Version: %s",
		 (const char *)dv.version);
	assert_non_null(strstr(out, want));
	for (i = 0; i < NDEV; i++) {
		snprintf(want, sizeof(want), "|   %d  HL-225 ", i);
		assert_non_null(strstr(out, want));
		assert_non_null(strstr(out, infos[i].bus_id));
	}
	assert_int_equal(count_str(out, "operational"), NDEV);
	assert_int_equal(count_str(out, "/  98304MiB"), NDEV);
	assert_int_equal(count_str(out, "600W"), NDEV);
	assert_non_null(strstr(out, "Processes:"));
	assert_non_null(strstr(out, "No running processes found"));
	free(out);
}

static void test_list(void **state)
{
	char want[256];
	char *out;
	int st, i;

	(void)state;
	out = smi(&st, "-L", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), NDEV);
	for (i = 0; i < NDEV; i++) {
		snprintf(want, sizeof(want),
			 "HPU %d: HL-225 (bus %s, module %d, serial %s)\n", i,
			 infos[i].bus_id, infos[i].module_id, infos[i].serial);
		assert_non_null(strstr(out, want));
	}
	free(out);
}

static void test_select_ids(void **state)
{
	char *out;
	int st;

	(void)state;
	out = smi(&st, "-L", "-i", "1", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "HPU 1:"));
	free(out);

	out = smi(&st, "-L", "--id", infos[0].bus_id, NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "HPU 0:"));
	free(out);

	out = smi(&st, "-L", "-i", "1,0", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), 2);
	free(out);

	out = smi(&st, "-i", "7", NULL);
	assert_int_equal(st, 2);
	free(out);
	out = smi(&st, "-i", "0000:ee:00.0", NULL);
	assert_int_equal(st, 2);
	free(out);
}

static void test_query_csv(void **state)
{
	struct hpu_info_power pw;
	struct hpu_info_dram_usage dram;
	struct hpu_device *dev;
	char want[256];
	char *out;
	int st;

	(void)state;
	assert_int_equal(hpu_open_control(1, &dev), 0);
	assert_int_equal(hpu_info_power(dev, &pw), 0);
	assert_int_equal(hpu_info_dram_usage(dev, &dram), 0);
	hpu_close(dev);

	out = smi(&st, "-Q", "index,name,bus_id,memory.total,power.max", "-f",
		  "csv", "-i", "1", NULL);
	assert_int_equal(st, 0);
	snprintf(want, sizeof(want),
		 "index, name, bus_id, memory.total [MiB], power.max [W]\n"
		 "1, HL-225, %s, %llu MiB, %.2f W\n",
		 infos[1].bus_id,
		 (unsigned long long)(dram.dram_total_mem / MIB),
		 pw.power_cap_mw / 1000.0);
	assert_string_equal(out, want);
	free(out);

	out = smi(&st, "--query-hpu=index,memory.total,utilization.hpu",
		  "--format=csv,noheader,nounits", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), NDEV);
	snprintf(want, sizeof(want), "0, %llu, ",
		 (unsigned long long)(dram.dram_total_mem / MIB));
	assert_int_equal(strncmp(out, want, strlen(want)), 0);
	assert_null(strstr(out, "MiB"));
	free(out);

	out = smi(&st, "-Q", "index,temperature.aip,status", "-f",
		  "csv,nounits", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_lines(out), NDEV + 1);
	assert_int_equal(strncmp(out, "index, temperature.aip, status\n", 31),
			 0);
	assert_int_equal(count_str(out, ", operational\n"), NDEV);
	free(out);
}

/* A minimal JSON validator: returns the end of one value or NULL. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\' && !*++p)
			return NULL;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_list(const char *p, char close, bool object)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = json_string(json_ws(p));
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	char *end;

	p = json_ws(p);
	if (*p == '{')
		return json_list(p, '}', true);
	if (*p == '[')
		return json_list(p, ']', false);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "null", 4) || !strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p != '-' && !isdigit((unsigned char)*p))
		return NULL;
	strtod(p, &end);
	return end == p ? NULL : end;
}

static void test_query_json(void **state)
{
	const char *end;
	char *out;
	int st;

	(void)state;
	out = smi(&st, "-Q",
		  "index,name,bus_id,serial,memory.used,power.draw,timestamp",
		  "-f", "json", NULL);
	assert_int_equal(st, 0);
	end = json_value(out);
	assert_non_null(end);
	assert_int_equal(*json_ws(end), '\0');
	assert_non_null(strstr(out, "\"hpus\": ["));
	assert_int_equal(count_str(out, "\"index\": "), NDEV);
	assert_non_null(strstr(out, "\"name\": \"HL-225\""));
	assert_non_null(strstr(out, infos[1].bus_id));
	assert_non_null(strstr(out, "\"memory.used\": 0"));
	free(out);

	out = smi(&st, "-Q", "index", "-f", "json,noheader", NULL);
	assert_int_equal(st, 2);
	free(out);
}

static void test_report(void **state)
{
	char want[128];
	char *out;
	int st;

	(void)state;
	out = smi(&st, "-q", NULL);
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "HPU-SMI LOG"));
	snprintf(want, sizeof(want), "%-36s: %d", "Attached HPUs", NDEV);
	assert_non_null(strstr(out, want));
	assert_int_equal(count_str(out, "Product Name"), NDEV);
	assert_int_equal(count_str(out, ": 0x1020\n"), NDEV);
	assert_non_null(strstr(out, infos[0].serial));
	assert_non_null(strstr(out, "Power Limit                 : 600.00 W"));
	free(out);
}

static void test_loop_count(void **state)
{
	char *out;
	int st;

	(void)state;
	out = smi(&st, "-Q", "index", "-f", "csv,noheader", "-l", "1", "-c",
		  "2", NULL);
	assert_int_equal(st, 0);
	assert_string_equal(out, "0\n1\n0\n1\n");
	free(out);

	out = smi(&st, "-l", "1", "-c", "2", NULL);
	assert_int_equal(st, 0);
	assert_int_equal(count_str(out, "HPU-SMI"), 2);
	free(out);
}

/* Whether the Processes section of the table lists @pid on @index. */
static bool table_lists(const char *out, int index, int pid)
{
	const char *p = strstr(out, "Processes:");
	int i, q;

	if (!p)
		fail_msg("no Processes section");
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "| %d %d ", &i, &q) == 2 && i == index &&
		    q == pid)
			return true;
	return false;
}

static bool holder_listed(int index, int pid)
{
	struct hpu_process *p;
	bool found = false;
	int n, i;

	assert_int_equal(hpu_device_processes(index, &p, &n), 0);
	for (i = 0; i < n; i++)
		if (p[i].pid == pid)
			found = true;
	hpu_process_list_free(p);
	return found;
}

static void test_processes(void **state)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char *out, node[PATH_MAX + 8];
	int st, i;
	pid_t child;

	(void)state;
	snprintf(node, sizeof(node), "%s/hpu1", hpu_test_shared.mount);
	child = hpu_test_hold_open(node);
	assert_true(child > 0);

	out = smi(&st, NULL);
	assert_int_equal(st, 0);
	assert_true(table_lists(out, 1, child));
	assert_false(table_lists(out, 0, child));
	assert_null(strstr(out, "No running processes found"));
	free(out);

	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &st, 0), child);
	/* the kernel releases the file after the process is gone */
	for (i = 0; i < 500 && holder_listed(1, child); i++)
		nanosleep(&ts, NULL);
	assert_false(holder_listed(1, child));

	out = smi(&st, NULL);
	assert_int_equal(st, 0);
	assert_false(table_lists(out, 1, child));
	assert_non_null(strstr(out, "No running processes found"));
	free(out);
}

static void test_usage_errors(void **state)
{
	static const char *const bad[][4] = {
		{ "-x", NULL },
		{ "--no-such-flag", NULL },
		{ "-Q", "index,bogus", NULL },
		{ "-Q", "", NULL },
		{ "-Q", "index", "-f", "xml" },
		{ "-f", "csv", NULL },
		{ "-l", "0", NULL },
		{ "-c", "2", NULL },
		{ "-L", "-q", NULL },
		{ "extra", NULL },
		{ "-i", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		smi_refused(bad[i]);
}

/*
 * Every list flag (-i, -Q, -f) goes through the one list parser: an empty
 * list, an empty item (leading, trailing or doubled comma) or a blank one
 * is a usage error that names the flag, before any device is looked at
 * (so also where there are none), and prints nothing on stdout.
 */
static void test_malformed_lists(void **state)
{
	static const struct {
		const char *arg[4];
		const char *flag; /* as the message names it */
	} bad[] = {
		{ { "-i", "", "-L" }, "-i ''" },
		{ { "-i", ",", "-L" }, "-i ','" },
		{ { "-i", "0,,1", "-L" }, "-i '0,,1'" },
		{ { "-i", "0,", "-L" }, "-i '0,'" },
		{ { "-i", ",0", "-L" }, "-i ',0'" },
		{ { "--id", " ", "-L" }, "-i ' '" },
		{ { "-Q", "index," }, "-Q 'index,'" },
		{ { "-Q", ",index" }, "-Q ',index'" },
		{ { "-Q", "index,,name" }, "-Q 'index,,name'" },
		{ { "--query-hpu", "," }, "-Q ','" },
		{ { "-Q", "index", "-f", "" }, "-f ''" },
		{ { "-Q", "index", "-f", "csv," }, "-f 'csv,'" },
		{ { "-Q", "index", "-f", "csv,,noheader" },
		  "-f 'csv,,noheader'" },
	};
	const char *const dirs[] = { hpu_test_shared.mount,
				     "/nonexistent/hpu" };
	const char *const *arg;
	char *argv[10], *out;
	size_t i, d;
	int st, k;

	(void)state;
	for (d = 0; d < 2; d++) {
		setenv("HPU_DEV_DIR", dirs[d], 1);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			arg = bad[i].arg;
			smi_refused(arg);

			/* stderr says which flag and why (sh joins it) */
			k = 0;
			argv[k++] = "/bin/sh";
			argv[k++] = "-c";
			argv[k++] = "exec \"$0\" \"$@\" 2>&1";
			argv[k++] = (char *)hpu_test_bin("hpu-smi");
			while (k < 8 && arg[k - 4])
				argv[k] = (char *)arg[k - 4], k++;
			argv[k] = NULL;
			assert_int_equal(hpu_test_run(argv, &out, &st), 0);
			assert_non_null(out);
			assert_int_equal(st, 2);
			if (!strstr(out, bad[i].flag) || !strstr(out, "empty"))
				fail_msg("hpu-smi %s '%s': '%s' says neither "
					 "%s nor why",
					 arg[0], arg[1], out, bad[i].flag);
			free(out);
		}
	}
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
}

static void test_no_devices(void **state)
{
	char *out;
	int st;

	(void)state;
	setenv("HPU_DEV_DIR", "/nonexistent/hpu", 1);
	out = smi(&st, NULL);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
	assert_int_equal(st, 6);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_table, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_list, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_select_ids, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_query_csv, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_query_json, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_report, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_loop_count, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_processes, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_usage_errors, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_malformed_lists,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_no_devices, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
