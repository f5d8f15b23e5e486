// SPDX-License-Identifier: MIT
/*
 * test_examples.c - the programs of examples/ against a temporary daemon
 * of 2 Gaudi2 devices, run as a user runs them (HPU_DEV_DIR names the
 * mount): each must exit 0 and print what it checked; one asked for a
 * device that does not exist must exit 1 saying so. hlml_monitor, the
 * HLML program, lists the devices as libhpudrv does and receives the
 * critical error it injects (the device is hard reset after it).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "hpudrv.h"

#define NDEV   2
#define RUN_MS 60000

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(NDEV, "gaudi2");
}

/* run examples/@name with @arg (or none); stdout and stderr together */
static void run(struct hpu_test_proc *p, const char *name, const char *arg)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_MERGE,
	};
	const char *dir = getenv("O");
	char path[PATH_MAX];
	char *argv[] = { path, (char *)arg, NULL };

	snprintf(path, sizeof(path), "%s/examples/%s",
		 dir && *dir ? dir : "build", name);
	assert_int_equal(hpu_test_proc_run(p, argv, &o, RUN_MS), 0);
	print_message("%s: exit %d after %ld ms\n", name, p->status, p->ms);
	printf("%s", p->out);
}

static void test_hello_device(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	run(&p, "hello_device", NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "libhpudrv "));
	assert_non_null(strstr(p.out, "hpu0: HL-225, 10 DMA, 2 MME"));
	assert_non_null(strstr(p.out, "round trip: 1048576 bytes to device "
				      "memory and back, equal"));
	hpu_test_proc_free(&p);
}

static void test_hello_device_absent(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	run(&p, "hello_device", "7");
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.out, "hpu7: "));
	assert_null(strstr(p.out, "round trip"));
	hpu_test_proc_free(&p);
}

static void test_gemm(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	run(&p, "gemm", "1"); /* the second device */
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "gemm: 64x32 times 32x48 on the MME "
				      "(queue 10), largest relative error"));
	assert_null(strstr(p.out, "differs"));
	hpu_test_proc_free(&p);
}

static void test_allreduce(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	run(&p, "allreduce", "4099"); /* not a multiple of any chunk */
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "rank 0: allreduce of 4099 floats, "
				      "0 wrong"));
	assert_non_null(strstr(p.out, "rank 1: allreduce of 4099 floats, "
				      "0 wrong"));
	assert_non_null(strstr(p.out, "allreduce: 2 ranks agree"));
	hpu_test_proc_free(&p);
}

/*
 * hlml_monitor: every device listed with libhpudrv's bus id, then the
 * critical error it injects into hpu1 arrives as an HLML event; it prints
 * how long that took (issue 17 asks for 1 s; the program's own bound is
 * 10 s, so a loaded machine cannot fail the test on time alone). hpu1 is
 * hard reset afterwards: an injected fatal error leaves it NEEDS_RESET.
 */
static void test_hlml_monitor(void **state)
{
	struct hpu_device_info *list;
	struct hpu_device *dev;
	struct hpu_test_proc p;
	const char *ev;
	char line[64];
	int n, i;

	(void)state;
	run(&p, "hlml_monitor", "1");
	assert_int_equal(p.status, 0);
	snprintf(line, sizeof(line), "devices: %d\n", NDEV);
	assert_non_null(strstr(p.out, line));
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, NDEV);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "device %d: HL-225 %s ", i,
			 list[i].bus_id);
		if (!strstr(p.out, line))
			fail_msg("no '%s' in:\n%s", line, p.out);
	}
	hpu_device_list_free(list);
	ev = strstr(p.out, "event: critical error on device 1 after ");
	assert_non_null(ev);
	print_message("the injected critical error arrived %s",
		      ev + strlen("event: critical error on device 1 "));
	hpu_test_proc_free(&p);

	assert_int_equal(hpu_open(1, &dev), 0);
	assert_int_equal(hpu_device_reset(dev, HPU_RESET_HARD), 0);
	hpu_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hello_device, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hello_device_absent,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_gemm, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hlml_monitor, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_allreduce, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
