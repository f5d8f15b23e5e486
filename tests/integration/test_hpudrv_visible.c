// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_visible.c - device selection and acquisition against the
 * real hpu-fused: HABANA_VISIBLE_DEVICES, HABANA_VISIBLE_MODULES and
 * HPU_VISIBLE_DEVICES alone, combined and malformed; the module map of an
 * 8-device server (0,4,1,5,2,6,3,7) and --module-map in INFO, sysfs,
 * hpu-smi and hpu_open_by_module_id(); --exclusive: a second compute open
 * gets EBUSY naming the holder, released by close and by SIGKILL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_train_cli.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define NDEV 8

/* what the real 8-OAM boards wire: module of device index i */
static const int oam8[NDEV] = { 0, 4, 1, 5, 2, 6, 3, 7 };

static const char *const sel_vars[] = {
	"HPU_VISIBLE_DEVICES",
	"HABANA_VISIBLE_DEVICES",
	"HABANA_VISIBLE_MODULES",
};

static void unset_all(void)
{
	size_t i;

	for (i = 0; i < sizeof(sel_vars) / sizeof(sel_vars[0]); i++)
		unsetenv(sel_vars[i]);
}

static int need_daemon(void **state)
{
	unset_all();
	return hpu_test_need_daemon(state);
}

static int clean_env(void **state)
{
	(void)state;
	unset_all();
	return 0;
}

static int group_setup(void **state)
{
	(void)state;
	unset_all();
	return hpu_test_group_start(NDEV, "gaudi2");
}

/* The visible indices, in list order, as "i,j,..." */
static const char *visible(void)
{
	static char buf[128];
	struct hpu_device_info *l;
	size_t off = 0;
	int n, i;

	buf[0] = '\0';
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(hpu_device_count(), n);
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%d",
					i ? "," : "", l[i].index);
	hpu_device_list_free(l);
	return buf;
}

/* ------------------------------------------------------------ module map */

static void test_module_map_default(void **state)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device_info *l;
	struct hpu_device *dev;
	char buf[16], want[16];
	int n, i;

	(void)state;
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, NDEV);
	for (i = 0; i < n; i++) {
		assert_int_equal(l[i].index, i);
		assert_int_equal(l[i].module_id, oam8[i]);
		/* the class attribute and INFO say the same */
		assert_int_equal(hpu_device_read_attr(i, "module_id", buf,
						      sizeof(buf)),
				 0);
		snprintf(want, sizeof(want), "%d", oam8[i]);
		assert_string_equal(buf, want);
		assert_int_equal(hpu_open_control(i, &dev), 0);
		assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
		assert_int_equal(hw.module_id, oam8[i]);
		hpu_close(dev);
	}
	hpu_device_list_free(l);

	/* by module id: the device that holds it, not the same index */
	for (i = 0; i < NDEV; i++) {
		int m = oam8[i];

		assert_int_equal(hpu_open_by_module_id(m, &dev), 0);
		assert_int_equal(hpu_device_index(dev), i);
		assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
		assert_int_equal(hw.module_id, m);
		hpu_close(dev);
	}
	assert_int_equal(hpu_open_control_by_module_id(4, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 1);
	hpu_close(dev);
	assert_int_equal(hpu_open_by_module_id(8, &dev), -ENODEV);
}

/* hpu-smi's module column and query field follow the map */
static void test_module_map_smi(void **state)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-smi"), "-Q",
			 "index,module_id", "--format=csv,noheader", NULL };
	char *out = NULL, want[32];
	int st, i;

	(void)state;
	assert_int_equal(hpu_test_run(argv, &out, &st), 0);
	assert_int_equal(st, 0);
	for (i = 0; i < NDEV; i++) {
		snprintf(want, sizeof(want), "%d, %d\n", i, oam8[i]);
		if (!strstr(out, want))
			print_message("hpu-smi said:\n%s\nwanted: %s", out,
				      want);
		assert_non_null(strstr(out, want));
	}
	free(out);
}

/* -------------------------------------------------- selection variables */

static void test_habana_visible_devices(void **state)
{
	struct hpu_device *dev;

	(void)state;
	setenv("HABANA_VISIBLE_DEVICES", "3,1", 1);
	assert_string_equal(visible(), "1,3");
	/* never renumbered */
	assert_int_equal(hpu_open(0, &dev), -ENODEV);
	assert_null(hpu_last_error());
	assert_int_equal(hpu_open(3, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 3);
	hpu_close(dev);
	/* module 4 sits on index 1, module 1 on index 2 (hidden) */
	assert_int_equal(hpu_open_by_module_id(4, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 1);
	hpu_close(dev);
	assert_int_equal(hpu_open_by_module_id(1, &dev), -ENODEV);

	setenv("HABANA_VISIBLE_DEVICES", "all", 1);
	assert_string_equal(visible(), "0,1,2,3,4,5,6,7");
	setenv("HABANA_VISIBLE_DEVICES", " all ", 1);
	assert_int_equal(hpu_device_count(), NDEV);
	setenv("HABANA_VISIBLE_DEVICES", "", 1);
	assert_int_equal(hpu_device_count(), 0);
	/* an index with no device is not an error */
	setenv("HABANA_VISIBLE_DEVICES", " 7 , 40 ", 1);
	assert_string_equal(visible(), "7");
}

static void test_habana_visible_modules(void **state)
{
	struct hpu_device *dev;

	(void)state;
	/* modules 4 and 5: indices 1 and 3 */
	setenv("HABANA_VISIBLE_MODULES", "5,4", 1);
	assert_string_equal(visible(), "1,3");
	assert_int_equal(hpu_open(1, &dev), 0);
	hpu_close(dev);
	assert_int_equal(hpu_open(4, &dev), -ENODEV);
	assert_int_equal(hpu_open_by_module_id(5, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 3);
	hpu_close(dev);
	assert_int_equal(hpu_open_by_module_id(0, &dev), -ENODEV);

	/* the real 4+4 split of a board */
	setenv("HABANA_VISIBLE_MODULES", "0,1,2,3", 1);
	assert_string_equal(visible(), "0,2,4,6");
	setenv("HABANA_VISIBLE_MODULES", "4,5,6,7", 1);
	assert_string_equal(visible(), "1,3,5,7");
	setenv("HABANA_VISIBLE_MODULES", "all", 1);
	assert_int_equal(hpu_device_count(), NDEV);
	setenv("HABANA_VISIBLE_MODULES", "", 1);
	assert_int_equal(hpu_device_count(), 0);
}

/* every variable that is set must select a device: an intersection */
static void test_combinations(void **state)
{
	struct hpu_device *dev;

	(void)state;
	setenv("HPU_VISIBLE_DEVICES", "0,1,2", 1);
	setenv("HABANA_VISIBLE_MODULES", "4,5", 1);
	assert_string_equal(visible(), "1");
	assert_int_equal(hpu_open_by_module_id(5, &dev), -ENODEV);

	unset_all();
	setenv("HPU_VISIBLE_DEVICES", "3", 1);
	setenv("HABANA_VISIBLE_DEVICES", "1,3", 1);
	assert_string_equal(visible(), "3");
	setenv("HABANA_VISIBLE_DEVICES", "1,2", 1);
	assert_string_equal(visible(), "");
	assert_int_equal(hpu_open(3, &dev), -ENODEV);

	unset_all();
	setenv("HABANA_VISIBLE_DEVICES", "all", 1);
	setenv("HPU_VISIBLE_DEVICES", "", 1);
	assert_int_equal(hpu_device_count(), 0);

	unset_all();
	setenv("HABANA_VISIBLE_DEVICES", "0,1,2,3", 1);
	setenv("HABANA_VISIBLE_MODULES", "0,1,4,6", 1);
	setenv("HPU_VISIBLE_DEVICES", "1,2,3,4,5", 1);
	/* 0..3 ∩ {0,2,1,5} ∩ 1..5 */
	assert_string_equal(visible(), "1,2");
}

struct bad_case {
	const char *var;
	const char *value;
	const char *why;
};

static void test_bad_values(void **state)
{
	static const struct bad_case cases[] = {
		{ "HABANA_VISIBLE_DEVICES", "x", "non-decimal" },
		{ "HABANA_VISIBLE_DEVICES", "1,,2", "empty" },
		{ "HABANA_VISIBLE_DEVICES", "-1", "negative" },
		{ "HABANA_VISIBLE_DEVICES", "1,", "empty" },
		{ "HABANA_VISIBLE_DEVICES", "1,1", "repeats" },
		{ "HABANA_VISIBLE_DEVICES", "ALL", "non-decimal" },
		{ "HABANA_VISIBLE_DEVICES", "all,1", "non-decimal" },
		{ "HABANA_VISIBLE_DEVICES", "1 2", "junk" },
		{ "HABANA_VISIBLE_DEVICES", "99999999999", "too large" },
		{ "HABANA_VISIBLE_MODULES", "8", "above 7" },
		{ "HABANA_VISIBLE_MODULES", "0,0", "repeats" },
		{ "HABANA_VISIBLE_MODULES", "0;1", "junk" },
		{ "HABANA_VISIBLE_MODULES", "one", "non-decimal" },
		{ "HPU_VISIBLE_DEVICES", "x", "non-decimal" },
		{ "HPU_VISIBLE_DEVICES", "all", "non-decimal" },
	};
	struct hpu_device_info *l, info;
	struct hpu_device *dev;
	struct hpu_monitor *mon;
	const char *msg;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];

		unset_all();
		/* a valid variable that hides everything changes nothing */
		setenv(strcmp(c->var, "HPU_VISIBLE_DEVICES") ?
			       "HPU_VISIBLE_DEVICES" :
			       "HABANA_VISIBLE_MODULES",
		       "", 1);
		setenv(c->var, c->value, 1);
		assert_int_equal(hpu_device_count(), -EINVAL);
		assert_int_equal(hpu_device_list(&l, &n), -EINVAL);
		assert_int_equal(hpu_device_get_info(0, &info), -EINVAL);
		assert_int_equal(hpu_open(0, &dev), -EINVAL);
		assert_int_equal(hpu_open_by_module_id(0, &dev), -EINVAL);
		assert_int_equal(hpu_open_control(0, &dev), -EINVAL);
		assert_int_equal(hpu_monitor_create(&mon), -EINVAL);
		msg = hpu_last_error();
		if (!msg || !strstr(msg, c->var) || !strstr(msg, c->why))
			print_message("%s=\"%s\": %s\n", c->var, c->value,
				      msg ? msg : "(no detail)");
		assert_non_null(msg);
		assert_non_null(strstr(msg, c->var));
		assert_non_null(strstr(msg, c->value));
		assert_non_null(strstr(msg, c->why));
	}
	/* the next call that succeeds clears the detail */
	unset_all();
	assert_int_equal(hpu_device_count(), NDEV);
	assert_null(hpu_last_error());
}

/* hpu-smi and hpu-train select through libhpudrv: same answers */
static void test_tools(void **state)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-smi"), "-Q",
			 "index,module_id", "--format=csv,noheader", NULL };
	const char *add_ok[] = { "HABANA_VISIBLE_MODULES=6,1", NULL };
	const char *add_bad[] = { "HABANA_VISIBLE_MODULES=9", NULL };
	char **env_ok = hpu_test_train_env(add_ok);
	char **env_bad = hpu_test_train_env(add_bad);
	const char *targs[] = { "--print-env", NULL };
	const char *tenv[] = { "HABANA_VISIBLE_MODULES=1,6", NULL };
	const char *tenv_bad[] = { "HABANA_VISIBLE_DEVICES=1,1", NULL };
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	struct hpu_test_train_run r;
	struct hpu_test_proc p;

	(void)state;
	o.envp = env_ok;
	assert_int_equal(hpu_test_proc_run(&p, argv, &o, 30000), 0);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "2, 1\n5, 6\n");
	hpu_test_proc_free(&p);

	o.envp = env_bad;
	assert_int_equal(hpu_test_proc_run(&p, argv, &o, 30000), 0);
	assert_int_not_equal(p.status, 0);
	assert_non_null(strstr(p.err, "HABANA_VISIBLE_MODULES=\"9\""));
	assert_non_null(strstr(p.err, "module id above 7"));
	hpu_test_proc_free(&p);
	free(env_ok);
	free(env_bad);

	/* hpu-train: --devices auto takes modules 1 and 6, hpu2 and hpu5 */
	hpu_test_train_run_ok("print-env", targs, tenv, HPU_TEST_TRAIN_RUN_MS,
			      &r);
	assert_string_equal(hpu_test_train_kv(r.out, "devices"), "hpu2,hpu5");
	hpu_test_train_run_free(&r);
	hpu_test_train_run(targs, tenv_bad, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status != 2 || !strstr(r.err, "HABANA_VISIBLE_DEVICES=\"1,1\""))
		hpu_test_train_dump("bad", &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "a value repeats"));
	hpu_test_train_run_free(&r);
}

/* ------------------------------------------ --module-map and --exclusive */

static struct hpu_test_daemon excl;

static int excl_setup(void **state)
{
	const char *const extra[] = { "--exclusive", "--module-map",
				      "3,2,1,0,7,6,5,4", NULL };

	unset_all();
	if (hpu_test_have_fuse())
		return 0;
	/* the group's daemon stopped: HPU_DEV_DIR becomes this one's */
	if (hpu_test_daemon_start(&excl, 2, "gaudi2", extra))
		return -1;
	return 0;
}

static int excl_teardown(void **state)
{
	(void)state;
	if (excl.pid > 0 && hpu_test_daemon_stop(&excl))
		return -1;
	return 0;
}

static int excl_need(void **state)
{
	const char *why = hpu_test_have_fuse();

	(void)state;
	unset_all();
	if (why)
		skip();
	return 0;
}

static void test_module_map_option(void **state)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_device_info info;
	struct hpu_device *dev;

	(void)state;
	assert_int_equal(hpu_device_get_info(0, &info), 0);
	assert_int_equal(info.module_id, 3);
	assert_int_equal(hpu_device_get_info(1, &info), 0);
	assert_int_equal(info.module_id, 2);
	assert_int_equal(hpu_open_control_by_module_id(2, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 1);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	assert_int_equal(hw.module_id, 2);
	hpu_close(dev);
	assert_int_equal(hpu_open_by_module_id(0, &dev), -ENODEV);
}

/* Open hpu<@index> until it is not EBUSY (a release is asynchronous) */
static int open_when_free(int index, struct hpu_device **dev)
{
	int ret = -EBUSY, i;

	for (i = 0; i < 2000 && ret == -EBUSY; i++) {
		ret = hpu_open(index, dev);
		if (ret == -EBUSY)
			hpu_test_sleep_ms(10);
	}
	return ret;
}

static void test_exclusive_close(void **state)
{
	struct hpu_device *a, *b, *ctl;
	char want[64];
	const char *msg;

	(void)state;
	assert_int_equal(open_when_free(0, &a), 0);
	/* the same process gets no second compute context either */
	assert_int_equal(hpu_open(0, &b), -EBUSY);
	msg = hpu_last_error();
	assert_non_null(msg);
	snprintf(want, sizeof(want), "acquired by pid %d (", (int)getpid());
	if (!strstr(msg, want))
		print_message("detail: %s\n", msg);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "hpu0"));
	assert_non_null(strstr(msg, "module 3"));
	assert_int_equal(hpu_open_by_module_id(3, &b), -EBUSY);
	assert_non_null(strstr(hpu_strerror(-EBUSY), "already acquired"));
	/* control nodes are never holders; the other device is free */
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	hpu_close(ctl);
	assert_int_equal(open_when_free(1, &b), 0);
	hpu_close(b);
	hpu_close(a);
	assert_int_equal(open_when_free(0, &a), 0);
	hpu_close(a);
}

static void test_exclusive_sigkill(void **state)
{
	struct hpu_device *dev;
	char path[PATH_MAX + 16], want[64];
	pid_t holder;
	int st;

	(void)state;
	/* a previous test's release may still be under way */
	assert_int_equal(open_when_free(1, &dev), 0);
	hpu_close(dev);
	assert_int_equal(open_when_free(0, &dev), 0);
	hpu_close(dev);
	snprintf(path, sizeof(path), "%s/hpu1", excl.mount);
	holder = -1;
	for (st = 0; st < 2000 && holder < 0; st++) {
		holder = hpu_test_hold_open(path);
		if (holder < 0)
			hpu_test_sleep_ms(10);
	}
	assert_true(holder > 0);
	assert_int_equal(hpu_open(1, &dev), -EBUSY);
	snprintf(want, sizeof(want), "acquired by pid %d (", (int)holder);
	assert_non_null(hpu_last_error());
	if (!strstr(hpu_last_error(), want))
		print_message("detail: %s\n", hpu_last_error());
	assert_non_null(strstr(hpu_last_error(), want));

	/* a trainer on the held device says who holds it */
	{
		const char *args[] = { "--accelerator", "hpu", "--devices", "1",
				       "--max-steps",	"1",   NULL };
		const char *env[] = { "HPU_VISIBLE_DEVICES=1", NULL };
		struct hpu_test_train_run r;

		hpu_test_train_run(args, env, HPU_TEST_TRAIN_RUN_MS, &r);
		if (!r.status || !strstr(r.err, want))
			hpu_test_train_dump("held", &r);
		assert_int_not_equal(r.status, 0);
		assert_non_null(strstr(r.err, want));
		hpu_test_train_run_free(&r);
	}

	/* libhpuccl opening the LOCAL_RANK-th visible device: EBUSY */
	{
		struct hpuccl_unique_id id;
		struct hpuccl_comm *comm = NULL;

		setenv("HPU_VISIBLE_DEVICES", "1", 1);
		assert_int_equal(hpuccl_get_unique_id(&id), 0);
		assert_int_equal(hpuccl_comm_init_rank(&comm, 1, &id, 0),
				 -EBUSY);
		assert_null(comm);
		unsetenv("HPU_VISIBLE_DEVICES");
	}

	/* hpu-ccl-tests, one rank per visible device, names the holder */
	{
		char *argv[] = { (char *)hpu_test_bin("hpu-ccl-tests"),
				 "-b",
				 "4K",
				 "-e",
				 "4K",
				 "-n",
				 "1",
				 "-w",
				 "0",
				 "--timeout",
				 "2000",
				 NULL };
		struct hpu_test_proc_opts o = {
			.stderr_mode = HPU_TEST_STDERR_CAPTURE
		};
		struct hpu_test_proc p;

		assert_int_equal(hpu_test_proc_run(&p, argv, &o, 60000), 0);
		if (!p.status || !strstr(p.err, want))
			print_message("hpu-ccl-tests: %d\n%s%s\n", p.status,
				      p.out, p.err);
		assert_int_not_equal(p.status, 0);
		assert_non_null(strstr(p.err, want));
		hpu_test_proc_free(&p);
	}

	assert_int_equal(kill(holder, SIGKILL), 0);
	assert_int_equal(waitpid(holder, &st, 0), holder);
	assert_int_equal(open_when_free(1, &dev), 0);
	hpu_close(dev);
}

/* data parallel on an exclusive server: each rank acquires its device */
static void test_exclusive_ddp(void **state)
{
	struct hpu_test_train_run r;
	struct hpu_device *dev;
	double loss, acc;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(open_when_free(i, &dev), 0);
		hpu_close(dev);
	}
	hpu_test_train_short("2", "16", NULL, &loss, &acc, &r);
	assert_non_null(strstr(r.out, "final loss"));
	hpu_test_train_run_free(&r);
}

/* a bad --module-map is a usage error */
static void test_module_map_usage(void **state)
{
	static const char *const bad[] = {
		"0,1,2,3,4,5,6",
		"0,1,2,3,4,5,6,6",
		"0,1,2,3,4,5,6,8",
		"0,1,2,3,4,5,6,7,",
		"oam8",
		"",
		"0, 1,2,3,4,5,6,7",
	};
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	struct hpu_test_proc p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)hpu_test_bin("hpu-fused"),
				 "--foreground",
				 "--module-map",
				 (char *)bad[i],
				 "--mount",
				 "/nonexistent-hpu-visible",
				 NULL };

		assert_int_equal(hpu_test_proc_run(&p, argv, &o, 30000), 0);
		if (p.status != 2)
			print_message("--module-map '%s': %d %s\n", bad[i],
				      p.status, p.err);
		assert_int_equal(p.status, 2);
		assert_non_null(strstr(p.err, "--module-map"));
		hpu_test_proc_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest shared[] = {
		cmocka_unit_test_setup_teardown(test_module_map_default,
						need_daemon, clean_env),
		cmocka_unit_test_setup_teardown(test_module_map_smi,
						need_daemon, clean_env),
		cmocka_unit_test_setup_teardown(test_habana_visible_devices,
						need_daemon, clean_env),
		cmocka_unit_test_setup_teardown(test_habana_visible_modules,
						need_daemon, clean_env),
		cmocka_unit_test_setup_teardown(test_combinations, need_daemon,
						clean_env),
		cmocka_unit_test_setup_teardown(test_bad_values, need_daemon,
						clean_env),
		cmocka_unit_test_setup_teardown(test_tools, need_daemon,
						clean_env),
	};
	const struct CMUnitTest exclusive[] = {
		cmocka_unit_test_setup_teardown(test_module_map_option,
						excl_need, clean_env),
		cmocka_unit_test_setup_teardown(test_exclusive_close, excl_need,
						clean_env),
		cmocka_unit_test_setup_teardown(test_exclusive_sigkill,
						excl_need, clean_env),
		cmocka_unit_test_setup_teardown(test_exclusive_ddp, excl_need,
						clean_env),
		cmocka_unit_test(test_module_map_usage),
	};
	int failed;

	failed = cmocka_run_group_tests_name("shared 8-device server", shared,
					     group_setup, hpu_test_group_stop);
	failed += cmocka_run_group_tests_name("--exclusive --module-map",
					      exclusive, excl_setup,
					      excl_teardown);
	return failed;
}
