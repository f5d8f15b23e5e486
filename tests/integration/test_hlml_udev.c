// SPDX-License-Identifier: MIT
/*
 * test_hlml_udev.c - libhlml on a kernel (habanalabs) device: a mocked
 * PCI device bound to habanalabs with its sysfs attributes (umockdev test
 * bed). What sysfs has is answered from it (clocks, power cap, status,
 * firmware versions, revision, PCIe link, CPU and node affinity); what
 * only the simulator's INFO ops have is HLML_ERROR_NOT_SUPPORTED.
 *
 * umockdev works by LD_PRELOAD of libumockdev-preload.so.0: the binary
 * runs itself again with it when it is not loaded, and skips with the
 * reason when umockdev is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/hpu_test_umockdev.h"
#include "hlml.h"

#if defined(__has_include)
#if __has_include(<umockdev.h>)
#define HAVE_UMOCKDEV 1
#endif
#endif

#ifdef HAVE_UMOCKDEV
#include <umockdev.h>

#define AGAIN_ENV "HPU_TEST_HLML_UMOCKDEV_AGAIN"
#define HL_DRIVER "../../../bus/pci/drivers/habanalabs"
#define BDF	  "0000:33:00.0"

static const char *skip_reason;

/* One habanalabs Gaudi2 at BDF with accel0 and its control node */
static UMockdevTestbed *make_bed(void)
{
	UMockdevTestbed *tb = umockdev_testbed_new();
	char *pci;

	assert_non_null(tb);
	pci = umockdev_testbed_add_device(
		tb, "pci", BDF, NULL, "vendor", "0x1da3", "device", "0x1020",
		"pci_addr", BDF, "device_type", "GAUDI2", "serial_number",
		"AN99999", "module_id", "5", "clk_cur_freq_mhz", "1500",
		"clk_max_freq_mhz", "1800", "max_power", "600000", "status",
		"operational", "uboot_ver", "U-Boot 2021.04-hl",
		"armcp_kernel_ver", "Linux gaudi2 5.10.18-hl", "cpld_ver",
		"0x00000010", "revision", "0x01", "current_link_speed",
		"16.0 GT/s PCIe", "current_link_width", "16", "local_cpulist",
		"0-1", "numa_node", "0", NULL, "PCI_SLOT_NAME", BDF, NULL);
	assert_non_null(pci);
	umockdev_testbed_set_attribute_link(tb, pci, "driver", HL_DRIVER);
	g_free(umockdev_testbed_add_device(tb, "accel", "accel0", pci, "dev",
					   "261:0", NULL, "DEVNAME",
					   "accel/accel0", NULL));
	g_free(umockdev_testbed_add_device(tb, "accel", "accel_controlD0", pci,
					   NULL, NULL, NULL));
	g_free(pci);
	return tb;
}

static void test_kernel_device(void **state)
{
	unsigned long set[4] = { 0 };
	unsigned int count = 0, v;
	UMockdevTestbed *tb;
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	hlml_p_states_t ps;
	hlml_device_t h;
	char s[64];
	int rev;

	(void)state;
	if (skip_reason) {
		printf("skip: %s\n", skip_reason);
		skip();
	}
	setenv("HPU_DEV_DIR", "/nonexistent/hpu-test-hlml-udev", 1);
	unsetenv("HPU_VISIBLE_DEVICES");
	tb = make_bed();

	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_count(&count), HLML_SUCCESS);
	assert_int_equal(count, 1);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h), HLML_SUCCESS);

	/* enumeration's fields */
	assert_int_equal(hlml_device_get_name(h, s, sizeof(s)), HLML_SUCCESS);
	assert_string_equal(s, "GAUDI2");
	assert_int_equal(hlml_device_get_serial(h, s, sizeof(s)), HLML_SUCCESS);
	assert_string_equal(s, "AN99999");
	assert_int_equal(hlml_device_get_module_id(h, &v), HLML_SUCCESS);
	assert_int_equal(v, 5);
	assert_int_equal(hlml_device_get_minor_number(h, &v), HLML_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(hlml_device_get_handle_by_pci_bus_id("33:00.0", &h),
			 HLML_SUCCESS);

	/* sysfs's */
	assert_int_equal(hlml_device_get_pci_info(h, &pci), HLML_SUCCESS);
	assert_string_equal(pci.bus_id, BDF);
	assert_int_equal(pci.bus, 0x33);
	assert_int_equal(pci.pci_device_id, 0x10201da3u);
	assert_string_equal(pci.caps.link_speed, "0x4");
	assert_string_equal(pci.caps.link_width, "16");
	assert_int_equal(hlml_device_get_curr_pcie_link_generation(h, &v),
			 HLML_SUCCESS);
	assert_int_equal(v, 4);
	assert_int_equal(hlml_device_get_curr_pcie_link_width(h, &v),
			 HLML_SUCCESS);
	assert_int_equal(v, 16);
	assert_int_equal(hlml_device_get_clock_info(h, HLML_CLOCK_SOC, &v),
			 HLML_SUCCESS);
	assert_int_equal(v, 1500);
	assert_int_equal(hlml_device_get_max_clock_info(h, HLML_CLOCK_MME, &v),
			 HLML_SUCCESS);
	assert_int_equal(v, 1800);
	assert_int_equal(hlml_device_get_power_management_default_limit(h, &v),
			 HLML_SUCCESS);
	assert_int_equal(v, 600000);
	assert_int_equal(hlml_device_get_performance_state(h, &ps),
			 HLML_SUCCESS);
	assert_int_equal(ps, HLML_PSTATE_0);
	assert_int_equal(hlml_get_fw_boot_version(h, s, sizeof(s)),
			 HLML_SUCCESS);
	assert_string_equal(s, "U-Boot 2021.04-hl");
	assert_int_equal(hlml_get_fw_os_version(h, s, sizeof(s)), HLML_SUCCESS);
	assert_string_equal(s, "Linux gaudi2 5.10.18-hl");
	assert_int_equal(hlml_get_fw_os_version(h, s, 8),
			 HLML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(hlml_get_cpld_version(h, s, sizeof(s)), HLML_SUCCESS);
	assert_string_equal(s, "0x00000010");
	assert_int_equal(hlml_device_get_hl_revision(h, &rev), HLML_SUCCESS);
	assert_int_equal(rev, 1);
	assert_int_equal(hlml_device_get_cpu_affinity(h, 4, set), HLML_SUCCESS);
	assert_int_equal(set[0], 0x3);
	assert_int_equal(hlml_device_get_memory_affinity(
				 h, 4, set, HLML_AFFINITY_SCOPE_NODE),
			 HLML_SUCCESS);
	assert_int_equal(set[0], 0x1);

	/* only the simulator's INFO ops have these */
	assert_int_equal(hlml_device_get_memory_info(h, &mem),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_power_usage(h, &v),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_uuid(h, s, sizeof(s)),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_pcie_replay_counter(h, &v),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_get_firmware_spi_version(h, s, sizeof(s)),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_err_inject(h, HLML_ERR_INJECT_FATAL_EVENT),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	g_object_unref(tb);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_device),
	};

	(void)argc;
	skip_reason = hpu_test_umockdev_reexec(argv, AGAIN_ENV);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !HAVE_UMOCKDEV */

static void test_umockdev_missing(void **state)
{
	(void)state;
	printf("skip: built without umockdev (Debian packages umockdev and "
	       "libumockdev-dev)\n");
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
