// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_udev.c - kernel-backed enumeration and the hot-plug monitor
 * of libhpudrv against a umockdev test bed: mocked habanalabs accel
 * devices (a PCI parent bound to habanalabs, its sysfs attributes) are
 * listed with the right fields, other accel devices are not, no device is
 * an empty list, kernel and simulated devices share one index space, and
 * mocked add/change/remove uevents reach hpu_monitor; hpu-smi shows a
 * kernel device with its sysfs fields and N/A (not ERR!) for the rest.
 *
 * umockdev works by LD_PRELOAD of libumockdev-preload.so.0: the binary
 * re-executes itself with it when it is not loaded yet, and skips every
 * test with the reason when umockdev is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_umockdev.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#if defined(__has_include)
#if __has_include(<umockdev.h>)
#define HAVE_UMOCKDEV 1
#endif
#endif

#ifdef HAVE_UMOCKDEV
#include <umockdev.h>

#define REEXEC_ENV  "HPU_TEST_UMOCKDEV_REEXEC"
#define HL_DRIVER   "../../../bus/pci/drivers/habanalabs"
#define IVPU_DRIVER "../../../bus/pci/drivers/intel_vpu"

/* Why every test is skipped, or NULL */
static const char *skip_reason;
static char sim_dir[PATH_MAX];

struct bed {
	UMockdevTestbed *tb;
};

static int setup(void **state)
{
	struct bed *b;

	if (skip_reason)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	b->tb = umockdev_testbed_new();
	if (!b->tb) {
		free(b);
		return -1;
	}
	/* no simulated devices unless a test makes some */
	setenv("HPU_DEV_DIR", "/nonexistent/hpu-test-udev", 1);
	unsetenv("HPU_VISIBLE_DEVICES");
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bed *b = *state;

	if (b) {
		g_object_unref(b->tb);
		free(b);
	}
	return 0;
}

static void need_umockdev(void)
{
	HPU_TEST_SKIP_IF(skip_reason);
}

/*
 * A PCI device at @bdf bound to @driver (a habanalabs Gaudi2 unless told
 * otherwise) with the accel class device accel@minor below it; returns
 * the accel device's sysfs path (g_free it).
 */
static char *add_accel(UMockdevTestbed *tb, const char *bdf, int minor,
		       const char *driver, const char *module_id)
{
	char name[32], devname[48], *pci, *acc;

	pci = umockdev_testbed_add_device(tb, "pci", bdf, NULL, "vendor",
					  "0x1da3", "device", "0x1020",
					  "pci_addr", bdf, "device_type",
					  "GAUDI2", "serial_number", "AN12345",
					  "module_id", module_id, NULL,
					  "PCI_SLOT_NAME", bdf, NULL);
	assert_non_null(pci);
	if (driver)
		umockdev_testbed_set_attribute_link(tb, pci, "driver", driver);
	snprintf(name, sizeof(name), "accel%d", minor);
	snprintf(devname, sizeof(devname), "accel/accel%d", minor);
	acc = umockdev_testbed_add_device(tb, "accel", name, pci, "dev",
					  "261:0", NULL, "DEVNAME", devname,
					  NULL);
	assert_non_null(acc);
	/* the habanalabs control node is an accel class device too */
	snprintf(name, sizeof(name), "accel_controlD%d", minor);
	g_free(umockdev_testbed_add_device(tb, "accel", name, pci, NULL, NULL,
					   NULL));
	g_free(pci);
	return acc;
}

static void test_no_devices(void **state)
{
	struct hpu_device_info *list = (void *)1;
	int n = -1;

	need_umockdev();
	(void)state;
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 0);
	assert_null(list);
	assert_int_equal(hpu_device_count(), 0);
	assert_int_equal(hpu_device_get_info(0, &(struct hpu_device_info){ 0 }),
			 -ENODEV);
}

static void test_habanalabs_device_fields(void **state)
{
	struct bed *b = *state;
	struct hpu_device_info *list, info;
	struct hpu_device *dev;
	char val[64];
	int n;

	need_umockdev();
	g_free(add_accel(b->tb, "0000:19:00.0", 0, HL_DRIVER, "3"));
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].index, 0);
	assert_int_equal(list[0].kind, HPU_DEVICE_KIND_KERNEL);
	assert_string_equal(list[0].node_name, "accel0");
	assert_string_equal(list[0].node_path, "/dev/accel/accel0");
	assert_string_equal(list[0].control_path, "/dev/accel/accel_controlD0");
	assert_string_equal(list[0].bus_id, "0000:19:00.0");
	assert_int_equal(list[0].device_id, 0x1020);
	assert_int_equal(list[0].module_id, 3);
	assert_string_equal(list[0].device_type, "GAUDI2");
	assert_string_equal(list[0].serial, "AN12345");
	assert_non_null(strstr(list[0].attr_dir, "0000:19:00.0"));

	/* the same through the single-device calls */
	assert_int_equal(hpu_device_get_info(0, &info), 0);
	assert_string_equal(info.bus_id, list[0].bus_id);
	assert_int_equal(
		hpu_device_read_attr(0, "serial_number", val, sizeof(val)), 0);
	assert_string_equal(val, "AN12345");
	hpu_device_list_free(list);

	/* listed, not driven: this library speaks the simulator's ABI */
	assert_int_equal(hpu_open(0, &dev), -EOPNOTSUPP);
	assert_int_equal(hpu_open_by_bus_id("19:00.0", &dev), -EOPNOTSUPP);
	assert_int_equal(hpu_open_control_by_module_id(3, &dev), -EOPNOTSUPP);
	assert_int_equal(hpu_hot_remove(0), -EOPNOTSUPP);
}

static void test_other_accel_not_listed(void **state)
{
	struct bed *b = *state;
	struct hpu_device_info *list;
	int n;

	need_umockdev();
	/* an Intel NPU and an accel device with no driver bound */
	g_free(add_accel(b->tb, "0000:00:0b.0", 0, IVPU_DRIVER, "0"));
	g_free(add_accel(b->tb, "0000:20:00.0", 1, NULL, "0"));
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 0);
	assert_null(list);

	g_free(add_accel(b->tb, "0000:21:00.0", 2, HL_DRIVER, "1"));
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0].node_name, "accel2");
	assert_int_equal(list[0].index, 0);
	hpu_device_list_free(list);
}

/* A fake device directory with nodes hpu0 and hpu2 */
static void make_sim_dir(void)
{
	char path[PATH_MAX + 32];
	int i;

	snprintf(sim_dir, sizeof(sim_dir), "/tmp/hpu-test-udev-XXXXXX");
	assert_non_null(mkdtemp(sim_dir));
	for (i = 0; i <= 2; i += 2) {
		snprintf(path, sizeof(path), "%s/hpu%d", sim_dir, i);
		fclose(fopen(path, "w"));
	}
	setenv("HPU_DEV_DIR", sim_dir, 1);
}

static void remove_sim_dir(void)
{
	char path[PATH_MAX + 32];
	int i;

	for (i = 0; i <= 2; i += 2) {
		snprintf(path, sizeof(path), "%s/hpu%d", sim_dir, i);
		unlink(path);
	}
	rmdir(sim_dir);
}

static void test_one_index_space(void **state)
{
	struct bed *b = *state;
	struct hpu_device_info *list;
	int n;

	need_umockdev();
	/* minors in reverse order of creation: the list follows the minor */
	g_free(add_accel(b->tb, "0000:34:00.0", 1, HL_DRIVER, "5"));
	g_free(add_accel(b->tb, "0000:33:00.0", 0, HL_DRIVER, "4"));
	make_sim_dir();
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(list[0].node_name, "accel0");
	assert_string_equal(list[0].bus_id, "0000:33:00.0");
	assert_string_equal(list[1].node_name, "accel1");
	assert_int_equal(list[1].index, 1);
	/* simulated hpuN after the K kernel devices: K + N */
	assert_int_equal(list[2].kind, HPU_DEVICE_KIND_SIMULATED);
	assert_string_equal(list[2].node_name, "hpu0");
	assert_int_equal(list[2].index, 2);
	assert_string_equal(list[3].node_name, "hpu2");
	assert_int_equal(list[3].index, 4);
	hpu_device_list_free(list);

	/* HPU_VISIBLE_DEVICES over that one index space */
	setenv("HPU_VISIBLE_DEVICES", "1,4", 1);
	assert_int_equal(hpu_device_list(&list, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].node_name, "accel1");
	assert_string_equal(list[1].node_name, "hpu2");
	hpu_device_list_free(list);
	assert_int_equal(hpu_device_count(), 2);
	setenv("HPU_VISIBLE_DEVICES", "1,,4", 1);
	assert_int_equal(hpu_device_list(&list, &n), -EINVAL);
	unsetenv("HPU_VISIBLE_DEVICES");
	remove_sim_dir();
}

static void test_monitor_uevents(void **state)
{
	struct bed *b = *state;
	struct hpu_monitor_event ev;
	struct hpu_monitor *mon;
	char *acc, *other;

	need_umockdev();
	assert_int_equal(hpu_monitor_create(&mon), 0);
	assert_true(hpu_monitor_fd(mon) >= 0);
	assert_int_equal(hpu_monitor_next(mon, &ev), -EAGAIN);

	/* umockdev sends "add" when it adds a device; a second says nothing */
	acc = add_accel(b->tb, "0000:19:00.0", 0, HL_DRIVER, "2");
	umockdev_testbed_uevent(b->tb, acc, "add");
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 20), 0);
	assert_int_equal(ev.action, HPU_MONITOR_ADD);
	assert_int_equal(ev.kind, HPU_DEVICE_KIND_KERNEL);
	assert_int_equal(ev.index, 0);
	assert_string_equal(ev.info.bus_id, "0000:19:00.0");
	assert_int_equal(ev.info.module_id, 2);
	assert_int_equal(ev.info.device_id, 0x1020);

	umockdev_testbed_set_attribute(b->tb, acc, "power_state", "D3");
	umockdev_testbed_uevent(b->tb, acc, "change");
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 20), 0);
	assert_int_equal(ev.action, HPU_MONITOR_CHANGE);
	assert_string_equal(ev.info.node_name, "accel0");

	/* an accel device of another driver makes no event */
	other = add_accel(b->tb, "0000:00:0b.0", 1, IVPU_DRIVER, "0");
	umockdev_testbed_uevent(b->tb, other, "add");
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 5), -EAGAIN);

	umockdev_testbed_uevent(b->tb, acc, "remove");
	umockdev_testbed_remove_device(b->tb, acc);
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 20), 0);
	assert_int_equal(ev.action, HPU_MONITOR_REMOVE);
	assert_int_equal(ev.kind, HPU_DEVICE_KIND_KERNEL);
	assert_string_equal(ev.info.bus_id, "0000:19:00.0");
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 5), -EAGAIN);

	hpu_monitor_destroy(mon);
	g_free(acc);
	g_free(other);
}

static void test_monitor_hidden(void **state)
{
	struct bed *b = *state;
	struct hpu_monitor_event ev;
	struct hpu_monitor *mon;
	char *acc;

	need_umockdev();
	setenv("HPU_VISIBLE_DEVICES", "1", 1);
	assert_int_equal(hpu_monitor_create(&mon), 0);
	acc = add_accel(b->tb, "0000:19:00.0", 0, HL_DRIVER, "0");
	umockdev_testbed_uevent(b->tb, acc, "add");
	assert_int_equal(hpu_test_monitor_wait(mon, &ev, 5), -EAGAIN);
	hpu_monitor_destroy(mon);
	g_free(acc);
	setenv("HPU_VISIBLE_DEVICES", "x", 1);
	assert_int_equal(hpu_monitor_create(&mon), -EINVAL);
	unsetenv("HPU_VISIBLE_DEVICES");
	assert_int_equal(hpu_monitor_create(NULL), -EINVAL);
	assert_int_equal(hpu_monitor_next(NULL, &ev), -EINVAL);
	assert_int_equal(hpu_monitor_fd(NULL), -EINVAL);
	hpu_monitor_destroy(NULL);
}

/* Runs hpu-smi with up to 4 arguments in the test bed; returns stdout */
static char *smi(int *status, const char *a, const char *b, const char *c,
		 const char *d)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-smi"),
			 (char *)a,
			 (char *)b,
			 (char *)c,
			 (char *)d,
			 NULL };
	char *out = NULL;

	assert_int_equal(hpu_test_run(argv, &out, status), 0);
	assert_non_null(out);
	return out;
}

/*
 * hpu-smi lists a habanalabs device it cannot open (libhpudrv returns
 * -EOPNOTSUPP for kernel devices) with what sysfs gives, N/A for what
 * only the device could answer, never ERR!, and exits 0. The child
 * hpu-smi inherits the preload library and the test bed (UMOCKDEV_DIR).
 */
static void test_smi_kernel_device(void **state)
{
	struct bed *b = *state;
	const char *pci = "/sys/devices/0000:19:00.0";
	int status;
	char *out;

	need_umockdev();
	g_free(add_accel(b->tb, "0000:19:00.0", 0, HL_DRIVER, "3"));
	umockdev_testbed_set_attribute(b->tb, pci, "status", "operational");
	umockdev_testbed_set_attribute(b->tb, pci, "driver_version",
				       "1.17.0-fw-49.0.0");

	out = smi(&status, "-L", NULL, NULL, NULL);
	assert_int_equal(status, 0);
	assert_string_equal(
		out,
		"HPU 0: GAUDI2 (bus 0000:19:00.0, module 3, serial AN12345)\n");
	free(out);

	out = smi(&status, NULL, NULL, NULL, NULL);
	assert_int_equal(status, 0);
	assert_null(strstr(out, "ERR!"));
	assert_non_null(strstr(out, "|   0  GAUDI2  "));
	assert_non_null(strstr(out, "| 0000:19:00.0 "));
	assert_non_null(strstr(out, "| operational "));
	assert_non_null(strstr(out, "  N/A    N/A /   N/A"));
	assert_non_null(strstr(out, "No running processes found"));
	/* no daemon: the header gives the habanalabs driver's version */
	assert_non_null(strstr(out, "Driver Version: 1.17.0-fw-49.0.0 "));
	free(out);

	out = smi(&status, "-Q",
		  "index,name,bus_id,module_id,serial,device_type,status,"
		  "driver_version,memory.used,temperature.aip,power.draw,"
		  "utilization.aip,reset.hard",
		  "-f", "csv,noheader");
	assert_int_equal(status, 0);
	assert_string_equal(out, "0, GAUDI2, 0000:19:00.0, 3, AN12345, GAUDI2, "
				 "operational, 1.17.0-fw-49.0.0, [N/A], [N/A], "
				 "[N/A], [N/A], [N/A]\n");
	free(out);

	out = smi(&status, "-Q", "index,serial,status,memory.total,clocks.max",
		  "-f", "json");
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "\"index\": 0,"));
	assert_non_null(strstr(out, "\"serial\": \"AN12345\","));
	assert_non_null(strstr(out, "\"status\": \"operational\","));
	assert_non_null(strstr(out, "\"memory.total\": null,"));
	assert_non_null(strstr(out, "\"clocks.max\": null\n"));
	free(out);

	out = smi(&status, "-q", NULL, NULL, NULL);
	assert_int_equal(status, 0);
	assert_null(strstr(out, "ERR!"));
	assert_non_null(strstr(out, "\nHPU 0000:19:00.0\n"));
	assert_non_null(strstr(out, "Kind                            : "
				    "kernel (habanalabs)\n"));
	assert_non_null(strstr(out, "Serial Number                   : "
				    "AN12345\n"));
	assert_non_null(strstr(out, "Module ID                       : 3\n"));
	assert_non_null(strstr(out, "Status                          : "
				    "operational\n"));
	assert_non_null(strstr(out, "Device Id                   : 0x1020\n"));
	assert_non_null(strstr(out, "Memory Usage (HBM)              : N/A\n"));
	free(out);
}

/* Without the sysfs status and driver_version those are N/A too */
static void test_smi_kernel_device_bare(void **state)
{
	struct bed *b = *state;
	int status;
	char *out;

	need_umockdev();
	g_free(add_accel(b->tb, "0000:1a:00.0", 0, HL_DRIVER, "1"));
	out = smi(&status, "-Q", "status,driver_version,name", "-f",
		  "csv,noheader");
	assert_int_equal(status, 0);
	assert_string_equal(out, "[N/A], [N/A], GAUDI2\n");
	free(out);
	out = smi(&status, NULL, NULL, NULL, NULL);
	assert_int_equal(status, 0);
	assert_null(strstr(out, "ERR!"));
	assert_non_null(strstr(out, "| N/A "));
	free(out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_devices, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_habanalabs_device_fields,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_accel_not_listed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_index_space, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_monitor_uevents, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_monitor_hidden, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_smi_kernel_device, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_smi_kernel_device_bare,
						setup, teardown),
	};

	(void)argc;
	skip_reason = hpu_test_umockdev_reexec(argv, REEXEC_ENV);
	if (skip_reason)
		fprintf(stderr, "test_hpudrv_udev: skipping: %s\n",
			skip_reason);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !HAVE_UMOCKDEV */

static void test_umockdev_missing(void **state)
{
	(void)state;
	print_message("skipped: built without umockdev (Debian packages "
		      "umockdev and libumockdev-dev)\n");
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_umockdev_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif /* HAVE_UMOCKDEV */
