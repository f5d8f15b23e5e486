// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_enum.c - libhpudrv enumeration, the selection variables,
 * attributes and holders against a fake device directory of plain files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpudrv.h"
#include "../../libhpudrv/hpudrv_internal.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdir_rel(const char *rel)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void fake_device(int i, const char *bus, int module, const char *clients)
{
	char rel[128], val[32];

	snprintf(rel, sizeof(rel), "hpu%d", i);
	put(rel, "");
	snprintf(rel, sizeof(rel), "hpu_control%d", i);
	put(rel, "");
	snprintf(rel, sizeof(rel), "class/hpu%d", i);
	mkdir_rel(rel);
#define ATTR(name, text)                                            \
	do {                                                        \
		snprintf(rel, sizeof(rel), "class/hpu%d/" name, i); \
		put(rel, text);                                     \
	} while (0)
	ATTR("pci_addr", bus);
	snprintf(val, sizeof(val), "%d\n", module);
	ATTR("module_id", val);
	ATTR("device_type", "GAUDI2\n");
	ATTR("card_name", "HL-225\n");
	snprintf(val, sizeof(val), "HPUS2-0001-%02d\n", i);
	ATTR("serial_number", val);
	ATTR("temperature_mc", "26000\n");
	ATTR("clients", clients);
#undef ATTR
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/hpudrv-enum-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mkdir_rel("class");
	mkdir_rel("driver");
	put("driver/version", "1.0.0\n");
	fake_device(0, "0000:19:00.0\n", 2, "");
	fake_device(1, "0000:1a:00.0\n", 3,
		    "100 4096 python3\n200 0 my prog\n");
	fake_device(3, "0000:1c:00.0\n", 5, "100 4096 python3\nbogus\n");
	/* names that are not nodes */
	put("hpu01", "");
	put("hpux", "");
	put("hpu_control9", "");
	setenv("HPU_DEV_DIR", root, 1);
	unsetenv("HPU_VISIBLE_DEVICES");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static int reset_env(void **state)
{
	(void)state;
	setenv("HPU_DEV_DIR", root, 1);
	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_MODULES");
	return 0;
}

static void test_list_all(void **state)
{
	struct hpu_device_info *l;
	int n;

	(void)state;
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].index, 0);
	assert_int_equal(l[1].index, 1);
	assert_int_equal(l[2].index, 3);
	assert_int_equal(l[1].kind, HPU_DEVICE_KIND_SIMULATED);
	assert_int_equal(l[1].module_id, 3);
	assert_string_equal(l[1].bus_id, "0000:1a:00.0");
	assert_string_equal(l[1].device_type, "GAUDI2");
	assert_string_equal(l[1].card_name, "HL-225");
	assert_string_equal(l[1].serial, "HPUS2-0001-01");
	assert_string_equal(l[1].node_name, "hpu1");
	assert_non_null(strstr(l[1].node_path, "/hpu1"));
	assert_non_null(strstr(l[1].control_path, "/hpu_control1"));
	/* a plain file answers no INFO: the PCI id stays unknown */
	assert_int_equal(l[1].device_id, 0);
	hpu_device_list_free(l);
	assert_int_equal(hpu_device_count(), 3);
}

static void test_visible_filter(void **state)
{
	struct hpu_device_info *l, info;
	struct hpu_device *dev;
	int n;

	(void)state;
	setenv("HPU_VISIBLE_DEVICES", "3, 0,7", 1);
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(l[0].index, 0);
	assert_int_equal(l[1].index, 3);
	hpu_device_list_free(l);
	assert_int_equal(hpu_device_get_info(1, &info), -ENODEV);
	assert_int_equal(hpu_open(1, &dev), -ENODEV);
	assert_int_equal(hpu_open_by_module_id(3, &dev), -ENODEV);
	assert_int_equal(hpu_device_read_attr(1, "module_id", info.bus_id,
					      sizeof(info.bus_id)),
			 -ENODEV);
	setenv("HPU_VISIBLE_DEVICES", "", 1);
	assert_int_equal(hpu_device_count(), 0);
}

static void test_visible_malformed(void **state)
{
	static const char *const bad[] = { "1,x", "1,,2",	 ",",  "-1",
					   "1;2", "99999999999", "1,", NULL };
	struct hpu_device_info *l;
	int i, n;

	(void)state;
	for (i = 0; bad[i]; i++) {
		setenv("HPU_VISIBLE_DEVICES", bad[i], 1);
		assert_int_equal(hpu_device_count(), -EINVAL);
		assert_int_equal(hpu_device_list(&l, &n), -EINVAL);
		assert_int_equal(hpudrv_visible_var(HPUDRV_VISIBLE_HPU, 0),
				 -EINVAL);
		assert_non_null(
			strstr(hpu_last_error(), "HPU_VISIBLE_DEVICES="));
	}
	setenv("HPU_VISIBLE_DEVICES", " 1 ", 1);
	assert_int_equal(hpudrv_visible_var(HPUDRV_VISIBLE_HPU, 1), 1);
	assert_int_equal(hpudrv_visible_var(HPUDRV_VISIBLE_HPU, 0), 0);
}

/* HABANA_VISIBLE_MODULES reads the module_id attribute of each device */
static void test_visible_modules(void **state)
{
	struct hpu_device_info *l;
	struct hpu_device *dev;
	int n;

	(void)state;
	setenv("HABANA_VISIBLE_MODULES", "5,2", 1);
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(l[0].index, 0);
	assert_int_equal(l[1].index, 3);
	hpu_device_list_free(l);
	assert_int_equal(hpu_open_by_module_id(3, &dev), -ENODEV);
	/* a device whose module id cannot be read is not selected */
	setenv("HABANA_VISIBLE_MODULES", "3", 1);
	assert_int_equal(hpu_device_count(), 1);
	put("class/hpu1/module_id", "bogus\n");
	assert_int_equal(hpu_device_count(), 0);
	put("class/hpu1/module_id", "3\n");
	/* HABANA_VISIBLE_DEVICES takes "all"; HPU_VISIBLE_DEVICES does not */
	unsetenv("HABANA_VISIBLE_MODULES");
	setenv("HABANA_VISIBLE_DEVICES", "all", 1);
	assert_int_equal(hpu_device_count(), 3);
	setenv("HABANA_VISIBLE_DEVICES", "3,0", 1);
	assert_int_equal(hpu_device_count(), 2);
	setenv("HPU_VISIBLE_DEVICES", "all", 1);
	assert_int_equal(hpu_device_count(), -EINVAL);
	unsetenv("HABANA_VISIBLE_DEVICES");
}

static void test_missing_and_empty_dir(void **state)
{
	char empty[PATH_MAX + 16];
	struct hpu_device_info *l = (void *)1;
	int n = -1;

	(void)state;
	setenv("HPU_DEV_DIR", "/nonexistent/hpu-dir", 1);
	assert_int_equal(hpu_device_count(), 0);
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, 0);
	assert_null(l);
	assert_int_equal(hpu_driver_read_attr("version", empty, sizeof(empty)),
			 -ENODEV);

	snprintf(empty, sizeof(empty), "%s/driver", root);
	setenv("HPU_DEV_DIR", empty, 1);
	assert_int_equal(hpu_device_count(), 0);
}

static void test_read_attr(void **state)
{
	char buf[64], tiny[3];

	(void)state;
	assert_int_equal(
		hpu_device_read_attr(0, "temperature_mc", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "26000");
	assert_int_equal(hpu_device_read_attr(0, "temperature_mc", tiny,
					      sizeof(tiny)),
			 -ERANGE);
	assert_int_equal(hpu_device_read_attr(0, "no_such", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(hpu_device_read_attr(7, "module_id", buf, sizeof(buf)),
			 -ENODEV);
	assert_int_equal(hpu_driver_read_attr("version", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1.0.0");
}

static void test_read_attr_bad_args(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(hpu_device_read_attr(0, "../hpu1", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(hpu_device_read_attr(0, "..", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(hpu_device_read_attr(0, "", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(hpu_device_read_attr(0, NULL, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(hpu_device_read_attr(0, "module_id", NULL, 8),
			 -EINVAL);
	assert_int_equal(hpu_device_read_attr(0, "module_id", buf, 0), -EINVAL);
	assert_int_equal(hpu_device_read_attr(-1, "module_id", buf,
					      sizeof(buf)),
			 -EINVAL);
	assert_int_equal(hpu_driver_read_attr("a/b", buf, sizeof(buf)),
			 -EINVAL);
}

static void test_processes(void **state)
{
	struct hpu_process *p;
	int n;

	(void)state;
	assert_int_equal(hpu_device_processes(1, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].pid, 100);
	assert_int_equal(p[0].dram_bytes, 4096);
	assert_string_equal(p[0].comm, "python3");
	assert_int_equal(p[1].pid, 200);
	assert_int_equal(p[1].dram_bytes, 0);
	assert_string_equal(p[1].comm, "my prog");
	hpu_process_list_free(p);

	assert_int_equal(hpu_device_processes(0, &p, &n), 0);
	assert_int_equal(n, 0);
	assert_null(p);
}

static void test_processes_malformed_file(void **state)
{
	struct hpu_process *p = NULL;
	int n = 0;

	(void)state;
	assert_int_equal(hpu_device_processes(3, &p, &n), -EIO);
	assert_null(p);
	assert_int_equal(n, 0);
}

static void test_parse_clients_malformed(void **state)
{
	static const char *const bad[] = {
		"bogus\n",
		"100\n",
		"100 4096\n",
		"100 4096 \n",
		"0 4096 init\n",
		"-5 4096 x\n",
		"100 -1 x\n",
		"100 4k x\n",
		"3000000000 1 x\n",
		"100 99999999999999999999999 x\n",
		"100 1 x\n\n",
		" 100 1 x\n",
		NULL,
	};
	struct hpu_process *p;
	int i, n;

	(void)state;
	for (i = 0; bad[i]; i++) {
		p = NULL;
		n = 0;
		if (hpudrv_parse_clients(bad[i], strlen(bad[i]), &p, &n) !=
		    -EIO)
			fail_msg("accepted malformed clients text \"%s\"",
				 bad[i]);
		assert_null(p);
	}
	/* a NUL inside a line */
	assert_int_equal(hpudrv_parse_clients("1 2 a\0b\n", 8, &p, &n), -EIO);
	/* the last line may lack its newline */
	assert_int_equal(hpudrv_parse_clients("7 8 x", 5, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].pid, 7);
	hpu_process_list_free(p);
}

static void test_open_fake_nodes(void **state)
{
	struct hpu_info_device_utilization u;
	struct hpu_info_hw_ip_info hw;
	struct hpu_device_info info;
	struct hpu_device *dev;

	(void)state;
	assert_int_equal(hpu_open_by_bus_id("0000:1A:00.0", &dev), 0);
	assert_int_equal(hpu_device_index(dev), 1);
	assert_int_equal(hpu_device_is_control(dev), 0);
	assert_true(hpu_device_fd(dev) >= 0);
	assert_int_equal(hpu_device_describe(dev, &info), 0);
	assert_string_equal(info.bus_id, "0000:1a:00.0");
	/* a plain file is no driver: the wrapper returns ioctl's -errno */
	assert_int_equal(hpu_info_hw_ip(dev, &hw), -ENOTTY);
	assert_int_equal(hpu_info_utilization(dev, 50, &u), -EINVAL);
	assert_int_equal(hpu_info_utilization(dev, 1001, &u), -EINVAL);
	hpu_close(dev);

	assert_int_equal(hpu_open_control_by_bus_id("1c:00.0", &dev), 0);
	assert_int_equal(hpu_device_index(dev), 3);
	assert_int_equal(hpu_device_is_control(dev), 1);
	hpu_close(dev);

	assert_int_equal(hpu_open_by_module_id(5, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 3);
	hpu_close(dev);
	assert_int_equal(hpu_open_control(0, &dev), 0);
	hpu_close(dev);

	assert_int_equal(hpu_open(2, &dev), -ENODEV);
	assert_int_equal(hpu_open_by_bus_id("0000:99:00.0", &dev), -ENODEV);
	assert_int_equal(hpu_open_by_module_id(7, &dev), -ENODEV);
}

static void test_bad_arguments(void **state)
{
	struct hpu_info_power pw;
	struct hpu_device_info info;
	struct hpu_device *dev;
	struct hpu_process *p;
	int n;

	(void)state;
	assert_int_equal(hpu_device_list(NULL, &n), -EINVAL);
	assert_int_equal(hpu_device_list((void *)&info, NULL), -EINVAL);
	assert_int_equal(hpu_device_get_info(-1, &info), -EINVAL);
	assert_int_equal(hpu_device_get_info(0, NULL), -EINVAL);
	assert_int_equal(hpu_open(-1, &dev), -EINVAL);
	assert_int_equal(hpu_open(0, NULL), -EINVAL);
	assert_int_equal(hpu_open_control(-3, &dev), -EINVAL);
	assert_int_equal(hpu_open_by_bus_id(NULL, &dev), -EINVAL);
	assert_int_equal(hpu_open_by_bus_id("", &dev), -EINVAL);
	assert_int_equal(hpu_open_by_bus_id("0000:19:00.0-much-too-long", &dev),
			 -EINVAL);
	assert_int_equal(hpu_open_by_module_id(-1, &dev), -EINVAL);
	assert_int_equal(hpu_device_processes(0, NULL, &n), -EINVAL);
	assert_int_equal(hpu_device_processes(0, &p, NULL), -EINVAL);
	assert_int_equal(hpu_device_processes(-1, &p, &n), -EINVAL);
	assert_int_equal(hpu_info_power(NULL, &pw), -EINVAL);
	assert_int_equal(hpu_device_fd(NULL), -EINVAL);
	assert_int_equal(hpu_device_index(NULL), -EINVAL);
	assert_int_equal(hpu_device_describe(NULL, &info), -EINVAL);
	hpu_close(NULL);
}

static void test_strings(void **state)
{
	(void)state;
	/* its derivation from the map: test_hpudrv_symbols */
	assert_string_equal(hpu_library_version(), HPUDRV_LIB_VERSION);
	assert_string_equal(
		hpu_device_status_str(HPU_DEVICE_STATUS_OPERATIONAL),
		"operational");
	assert_string_equal(hpu_device_status_str(HPU_DEVICE_STATUS_IN_RESET),
			    "in reset");
	assert_string_equal(hpu_device_status_str(5), "unknown");
	assert_string_equal(hpu_device_status_str(1000), "unknown");
	assert_non_null(strstr(hpu_strerror(-ENOTTY), "not supported"));
	/* the driver's meaning: a context a hard reset killed */
	assert_non_null(strstr(hpu_strerror(-EIO), "device was reset"));
	assert_string_equal(hpu_strerror(-ENOMEM), strerror(ENOMEM));
	assert_string_equal(hpu_strerror(ENOMEM), strerror(ENOMEM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_list_all, reset_env),
		cmocka_unit_test_setup(test_visible_filter, reset_env),
		cmocka_unit_test_setup(test_visible_malformed, reset_env),
		cmocka_unit_test_setup(test_visible_modules, reset_env),
		cmocka_unit_test_setup(test_missing_and_empty_dir, reset_env),
		cmocka_unit_test_setup(test_read_attr, reset_env),
		cmocka_unit_test_setup(test_read_attr_bad_args, reset_env),
		cmocka_unit_test_setup(test_processes, reset_env),
		cmocka_unit_test_setup(test_processes_malformed_file,
				       reset_env),
		cmocka_unit_test_setup(test_parse_clients_malformed, reset_env),
		cmocka_unit_test_setup(test_open_fake_nodes, reset_env),
		cmocka_unit_test_setup(test_bad_arguments, reset_env),
		cmocka_unit_test_setup(test_strings, reset_env),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
