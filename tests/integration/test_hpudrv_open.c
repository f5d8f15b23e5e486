// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_open.c - libhpudrv against the real hpu-fused: open by
 * index, bus id and module id, control nodes, every typed INFO call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "hpudrv.h"

#define NDEV 3
#define GiB  (1024ULL * 1024 * 1024)

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start(NDEV, "gaudi2");
}

static int need_daemon(void **state)
{
	unsetenv("HPU_VISIBLE_DEVICES");
	return hpu_test_need_daemon(state);
}

static void test_enumerate(void **state)
{
	struct hpu_device_info *l;
	int n, i;

	(void)state;
	assert_int_equal(hpu_device_count(), NDEV);
	assert_int_equal(hpu_device_list(&l, &n), 0);
	assert_int_equal(n, NDEV);
	for (i = 0; i < n; i++) {
		assert_int_equal(l[i].index, i);
		assert_int_equal(l[i].kind, HPU_DEVICE_KIND_SIMULATED);
		assert_int_equal(l[i].module_id, i);
		assert_int_equal(l[i].device_id, 0x1020);
		assert_string_equal(l[i].card_name, "HL-225");
		assert_string_equal(l[i].device_type, "GAUDI2");
		assert_int_equal(strlen(l[i].bus_id), 12);
		assert_true(l[i].serial[0] != '\0');
	}
	hpu_device_list_free(l);
}

static void test_open_by_index(void **state)
{
	struct hpu_device *dev;
	int i;

	(void)state;
	for (i = 0; i < NDEV; i++) {
		assert_int_equal(hpu_open(i, &dev), 0);
		assert_int_equal(hpu_device_index(dev), i);
		assert_int_equal(hpu_device_is_control(dev), 0);
		assert_true(hpu_device_fd(dev) >= 0);
		hpu_close(dev);
	}
	assert_int_equal(hpu_open(NDEV, &dev), -ENODEV);
	assert_int_equal(hpu_open(1000, &dev), -ENODEV);
	assert_int_equal(hpu_open_control(NDEV, &dev), -ENODEV);
}

static void test_open_by_bus_and_module(void **state)
{
	struct hpu_info_pci pci;
	struct hpu_info_hw_ip_info hw;
	struct hpu_device_info info;
	struct hpu_device *dev;

	(void)state;
	assert_int_equal(hpu_device_get_info(2, &info), 0);
	assert_int_equal(hpu_open_by_bus_id(info.bus_id, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 2);
	assert_int_equal(hpu_info_pci(dev, &pci), 0);
	assert_string_equal((const char *)pci.bus_id, info.bus_id);
	hpu_close(dev);

	assert_int_equal(hpu_open_by_module_id(1, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 1);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	assert_int_equal(hw.module_id, 1);
	hpu_close(dev);

	assert_int_equal(hpu_open_control_by_bus_id(info.bus_id, &dev), 0);
	assert_int_equal(hpu_device_is_control(dev), 1);
	hpu_close(dev);
	assert_int_equal(hpu_open_control_by_module_id(0, &dev), 0);
	assert_int_equal(hpu_device_index(dev), 0);
	hpu_close(dev);

	assert_int_equal(hpu_open_by_bus_id("0000:ff:1f.7", &dev), -ENODEV);
	assert_int_equal(hpu_open_by_module_id(7, &dev), -ENODEV);
}

static void test_visible_devices(void **state)
{
	struct hpu_device *dev;

	(void)state;
	setenv("HPU_VISIBLE_DEVICES", "2", 1);
	assert_int_equal(hpu_device_count(), 1);
	assert_int_equal(hpu_open(0, &dev), -ENODEV);
	assert_int_equal(hpu_open(2, &dev), 0);
	hpu_close(dev);
	assert_int_equal(hpu_open_by_module_id(0, &dev), -ENODEV);
}

static void check_info_calls(struct hpu_device *dev, int index)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_info_dram_usage dram;
	struct hpu_info_hw_idle idle;
	struct hpu_info_device_status st;
	struct hpu_info_device_utilization util;
	struct hpu_info_clk_rate clk;
	struct hpu_info_reset_count rc;
	struct hpu_info_time_sync ts;
	struct hpu_info_cs_counters cs;
	struct hpu_info_power pw;
	struct hpu_info_thermal th;
	struct hpu_info_open_stats os;
	struct hpu_info_events ev;
	struct hpu_info_pci pci;
	struct hpu_info_driver_version dv;
	struct timespec now;

	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	assert_int_equal(hw.device_type, HPU_DEVICE_GAUDI2);
	assert_int_equal(hw.device_id, 0x1020);
	assert_int_equal(hw.dram_size, 96 * GiB);
	assert_int_equal(hw.num_tpc, 24);
	assert_int_equal(hw.num_mme, 2);
	assert_int_equal(hw.num_nic_ports, 24);
	assert_int_equal(hw.module_id, index);
	assert_string_equal((const char *)hw.card_name, "HL-225");

	assert_int_equal(hpu_info_dram_usage(dev, &dram), 0);
	assert_int_equal(dram.dram_total_mem, 96 * GiB);
	assert_int_equal(dram.dram_used_mem + dram.dram_free_mem,
			 dram.dram_total_mem);

	assert_int_equal(hpu_info_hw_idle(dev, &idle), 0);
	assert_int_equal(idle.is_idle, 1);

	assert_int_equal(hpu_info_device_status(dev, &st), 0);
	assert_int_equal(st.status, HPU_DEVICE_STATUS_OPERATIONAL);

	assert_int_equal(hpu_info_utilization(dev, 100, &util), 0);
	assert_in_range(util.utilization, 0, 100);
	assert_int_equal(hpu_info_utilization(dev, 1000, &util), 0);
	assert_int_equal(hpu_info_utilization(dev, 99, &util), -EINVAL);

	assert_int_equal(hpu_info_clk_rate(dev, &clk), 0);
	assert_int_equal(clk.max_clk_rate_mhz, 1800);
	assert_in_range(clk.cur_clk_rate_mhz, 1, 1800);

	assert_int_equal(hpu_info_reset_count(dev, &rc), 0);
	assert_int_equal(rc.hard_reset_cnt, 0);
	assert_int_equal(rc.soft_reset_cnt, 0);

	clock_gettime(CLOCK_MONOTONIC, &now);
	assert_int_equal(hpu_info_time_sync(dev, &ts), 0);
	assert_true(ts.host_time >= (uint64_t)now.tv_sec * 1000000000ULL);

	assert_int_equal(hpu_info_cs_counters(dev, &cs), 0);
	assert_int_equal(cs.total_submitted, 0);

	assert_int_equal(hpu_info_power(dev, &pw), 0);
	assert_int_equal(pw.power_cap_mw, 600000);
	assert_in_range(pw.power_mw, 1, pw.power_cap_mw);

	assert_int_equal(hpu_info_thermal(dev, &th), 0);
	assert_in_range(th.temp_asic_mc, 1000, th.temp_shutdown_mc);
	assert_true(th.temp_slowdown_mc < th.temp_shutdown_mc);

	assert_int_equal(hpu_info_open_stats(dev, &os), 0);
	assert_true(os.num_compute_ctx + os.num_control_ctx >= 1);

	assert_int_equal(hpu_info_get_events(dev, &ev), 0);
	assert_int_equal(ev.events_mask, 0);

	assert_int_equal(hpu_info_pci(dev, &pci), 0);
	assert_int_equal(pci.vendor_id, HPU_PCI_VENDOR_ID);
	assert_int_equal(pci.device_id, 0x1020);

	assert_int_equal(hpu_info_driver_version(dev, &dv), 0);
	assert_int_equal(dv.major, 1);
	assert_true(dv.capabilities & HPU_CAP_INFO);
	assert_true(dv.version[0] != '\0');
}

static void test_info_compute(void **state)
{
	struct hpu_info_open_stats os;
	struct hpu_device *dev;

	(void)state;
	assert_int_equal(hpu_open(1, &dev), 0);
	check_info_calls(dev, 1);
	assert_int_equal(hpu_info_open_stats(dev, &os), 0);
	assert_true(os.num_compute_ctx >= 1);
	assert_int_equal(os.is_compute_ctx_active, 1);
	hpu_close(dev);
}

static void test_info_control(void **state)
{
	struct hpu_info_open_stats os;
	struct hpu_device *dev;
	int tries;

	(void)state;
	assert_int_equal(hpu_open_control(2, &dev), 0);
	check_info_calls(dev, 2);
	/* a control context is no holder (earlier compute contexts of hpu2
	 * are released in the background: wait for them, bounded) */
	for (tries = 0; tries < 500; tries++) {
		assert_int_equal(hpu_info_open_stats(dev, &os), 0);
		if (!os.num_compute_ctx)
			break;
		hpu_test_sleep_ms(10);
	}
	assert_int_equal(os.num_compute_ctx, 0);
	assert_true(os.num_control_ctx >= 1);
	hpu_close(dev);
}

static void test_processes(void **state)
{
	struct hpu_device *dev, *ctl;
	struct hpu_process *p;
	int n, i, tries, found = 0;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	assert_int_equal(hpu_device_processes(0, &p, &n), 0);
	for (i = 0; i < n; i++)
		if (p[i].pid == getpid())
			found++;
	/* the compute context is listed once, the control one not at all */
	assert_int_equal(found, 1);
	hpu_process_list_free(p);
	hpu_close(ctl);
	hpu_close(dev);

	/* FUSE delivers RELEASE after close() returns: wait, bounded */
	for (tries = 0; tries < 500; tries++) {
		assert_int_equal(hpu_device_processes(0, &p, &n), 0);
		for (found = 0, i = 0; i < n; i++)
			found += p[i].pid == getpid();
		hpu_process_list_free(p);
		if (!found)
			break;
		hpu_test_sleep_ms(10);
	}
	assert_int_equal(found, 0);
}

/* hpu_info(): any op, the same answer as its wrapper, short buffers */
static void test_info_any_op(void **state)
{
	struct hpu_info_hw_ip_info hw, any;
	struct hpu_info_device_utilization util;
	struct hpu_device *dev;
	size_t full = 0;
	uint32_t head;

	(void)state;
	assert_int_equal(hpu_open_control(0, &dev), 0);
	assert_int_equal(hpu_info_hw_ip(dev, &hw), 0);
	memset(&any, 0xa5, sizeof(any));
	assert_int_equal(hpu_info(dev, HPU_INFO_HW_IP_INFO, 0, &any,
				  sizeof(any), &full),
			 0);
	assert_int_equal(full, sizeof(any));
	assert_memory_equal(&any, &hw, sizeof(hw));

	/* a short buffer gets the head of the answer and its full size */
	full = 0;
	assert_int_equal(hpu_info(dev, HPU_INFO_HW_IP_INFO, 0, &head,
				  sizeof(head), &full),
			 0);
	assert_int_equal(full, sizeof(hw));
	assert_memory_equal(&head, &hw, sizeof(head));

	/* the period: only where the op takes one, within its bounds */
	assert_int_equal(hpu_info(dev, HPU_INFO_DEVICE_UTILIZATION,
				  HPU_INFO_PERIOD_MS_MIN, &util, sizeof(util),
				  NULL),
			 0);
	assert_int_equal(hpu_info(dev, HPU_INFO_DEVICE_UTILIZATION,
				  HPU_INFO_PERIOD_MS_MAX + 1, &util,
				  sizeof(util), NULL),
			 -EINVAL);
	assert_int_equal(hpu_info(dev, HPU_INFO_HW_IP_INFO, 100, &any,
				  sizeof(any), NULL),
			 -EINVAL);

	/* what the library refuses, and an op the driver does not know */
	assert_int_equal(hpu_info(NULL, HPU_INFO_HW_IP_INFO, 0, &any,
				  sizeof(any), NULL),
			 -EINVAL);
	assert_int_equal(hpu_info(dev, HPU_INFO_HW_IP_INFO, 0, NULL,
				  sizeof(any), NULL),
			 -EINVAL);
	assert_int_equal(hpu_info(dev, HPU_INFO_HW_IP_INFO, 0, &any, 0, NULL),
			 -EINVAL);
	assert_int_equal(hpu_info(dev, 0xffff, 0, &any, sizeof(any), NULL),
			 -EINVAL);
	hpu_close(dev);
}

static void test_attributes(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(
		hpu_device_read_attr(0, "device_type", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "GAUDI2");
	assert_int_equal(hpu_device_read_attr(0, "status", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "operational");
	assert_int_equal(hpu_driver_read_attr("pid", buf, sizeof(buf)), 0);
	assert_int_equal(atoi(buf), hpu_test_shared.pid);
	assert_int_equal(hpu_device_read_attr(0, "no_such_attr", buf,
					      sizeof(buf)),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_enumerate, need_daemon),
		cmocka_unit_test_setup(test_open_by_index, need_daemon),
		cmocka_unit_test_setup(test_open_by_bus_and_module,
				       need_daemon),
		cmocka_unit_test_setup(test_visible_devices, need_daemon),
		cmocka_unit_test_setup(test_info_compute, need_daemon),
		cmocka_unit_test_setup(test_info_control, need_daemon),
		cmocka_unit_test_setup(test_processes, need_daemon),
		cmocka_unit_test_setup(test_info_any_op, need_daemon),
		cmocka_unit_test_setup(test_attributes, need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
