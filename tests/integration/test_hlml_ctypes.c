// SPDX-License-Identifier: MIT
/*
 * test_hlml_ctypes.c - Debian's python3 drives libhlml through the
 * standard library's ctypes (tests/integration/hlml_ctypes.py: every
 * function of hlml.h, good and bad arguments), against the real
 * hpu-fused; the devices it lists agree with libhpudrv field by field
 * (bus id, UUID, serial, name, memory).
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
#include "../lib/hpu_test_preload.h"
#include "hpudrv.h"

#define NDEV   3
#define SCRIPT "tests/integration/hlml_ctypes.py"

static const char *python = "/usr/bin/python3";

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start(NDEV, "gaudi2");
}

static int need_python(void **state)
{
	if (hpu_test_need_daemon(state))
		return -1;
	if (access(python, X_OK)) {
		printf("skip: %s missing\n", python);
		skip();
	}
	return 0;
}

static void test_ctypes(void **state)
{
	char lib[PATH_MAX], want[1024], uuid[64], *out = NULL, *line,
						  *save = NULL;
	const char *o = getenv("O") ? getenv("O") : "build";
	struct hpu_info_dram_usage dram;
	struct hpu_device_info info;
	struct hpu_device *ctl;
	int status, i, seen = 0;

	(void)state;
	snprintf(want, sizeof(want), "%s/lib/libhlml.so.1", o);
	assert_non_null(realpath(want, lib));
	assert_int_equal(access(SCRIPT, R_OK), 0);
	hpu_test_sanitizer_preload();
	{
		char *const argv[] = { (char *)python, SCRIPT, lib, NULL };

		assert_int_equal(hpu_test_run(argv, &out, &status), 0);
	}
	assert_non_null(out);
	printf("%s", out);
	if (status)
		free(out);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "\nOK\n"));

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "DEV ", 4))
			continue;
		i = atoi(line + 4);
		assert_in_range(i, 0, NDEV - 1);
		assert_int_equal(hpu_device_get_info(i, &info), 0);
		assert_int_equal(
			hpu_device_read_attr(i, "uuid", uuid, sizeof(uuid)), 0);
		assert_int_equal(hpu_open_control(i, &ctl), 0);
		assert_int_equal(hpu_info_dram_usage(ctl, &dram), 0);
		hpu_close(ctl);
		snprintf(want, sizeof(want), "DEV %d %s %s %s %s %llu", i,
			 info.bus_id, uuid, info.serial, info.card_name,
			 (unsigned long long)dram.dram_total_mem);
		assert_string_equal(line, want);
		seen++;
	}
	assert_int_equal(seen, NDEV);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ctypes, need_python),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
