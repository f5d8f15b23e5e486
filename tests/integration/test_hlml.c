// SPDX-License-Identifier: MIT
/*
 * test_hlml.c - libhlml against the real hpu-fused: a client that uses
 * only hlml.h lists the devices and their metrics, which agree with what
 * libhpudrv reports; every bad argument gets its documented code; an
 * injected critical error arrives as an event; identities are stable
 * across daemon restarts and differ between devices and mount points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "hlml.h"
#include "hpudrv.h"

#define NDEV	      2
/* Generous bound for an event to arrive on a loaded machine */
#define EVENT_WAIT_MS 10000

static struct hpu_device_info infos[NDEV];

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_infos(NDEV, "gaudi2", infos);
}

static void attr(int index, const char *name, char *buf, size_t len)
{
	assert_int_equal(hpu_device_read_attr(index, name, buf, len), 0);
}

/* The client's view, field by field against libhpudrv */
static void test_list_and_metrics(void **state)
{
	unsigned int count = 0, i, v, v2, clk, maxclk, n;
	struct hpu_info_hw_ip_info hw;
	struct hpu_info_dram_usage dram;
	struct hpu_info_pci pci_ref;
	hlml_device_t h, h2;
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	hlml_utilization_t util;
	hlml_enable_state_t cur, pend;
	hlml_mac_info_t macs[HLML_DEVICE_MAC_MAX_ADDRESSES];
	unsigned char first_mac[NDEV][ETHER_ADDR_LEN];
	unsigned long long ull, c_ref, u_ref;
	uint64_t mask[PORTS_ARR_SIZE], ext[PORTS_ARR_SIZE];
	struct hpu_device *ctl;
	char s[256], ref[256];
	bool up;
	int rev;

	(void)state;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_count(&count), HLML_SUCCESS);
	assert_int_equal(count, NDEV);
	for (i = 0; i < count; i++) {
		assert_int_equal(hpu_open_control((int)i, &ctl), 0);
		assert_int_equal(hpu_info_hw_ip(ctl, &hw), 0);
		assert_int_equal(hpu_info_dram_usage(ctl, &dram), 0);
		assert_int_equal(hpu_info_pci(ctl, &pci_ref), 0);
		hpu_close(ctl);

		assert_int_equal(hlml_device_get_handle_by_index(i, &h),
				 HLML_SUCCESS);
		assert_int_equal(hlml_device_get_name(h, s, sizeof(s)),
				 HLML_SUCCESS);
		assert_string_equal(s, infos[i].card_name);
		printf("# %u: %s", i, s);

		assert_int_equal(hlml_device_get_pci_info(h, &pci),
				 HLML_SUCCESS);
		assert_string_equal(pci.bus_id, infos[i].bus_id);
		assert_int_equal(pci.bus, pci_ref.bus);
		assert_int_equal(pci.domain, pci_ref.domain);
		assert_int_equal(pci.pci_device_id,
				 (unsigned int)pci_ref.device_id << 16 |
					 pci_ref.vendor_id);
		assert_int_equal(atoi(pci.caps.link_width), pci_ref.link_width);
		printf(" %s", pci.bus_id);

		assert_int_equal(hlml_device_get_uuid(h, s, sizeof(s)),
				 HLML_SUCCESS);
		attr((int)i, "uuid", ref, sizeof(ref));
		assert_string_equal(s, ref);
		/* fits the HL_FIELD_MAX_SIZE buffers of the Python bindings */
		assert_true(strlen(s) < HL_FIELD_MAX_SIZE);
		printf(" %s", s);
		assert_int_equal(hlml_device_get_handle_by_UUID(s, &h2),
				 HLML_SUCCESS);
		assert_ptr_equal(h2, h);
		for (n = 0; s[n]; n++)
			s[n] = (char)(s[n] >= 'A' && s[n] <= 'Z' ? s[n] + 32 :
								   s[n]);
		assert_int_equal(hlml_device_get_handle_by_UUID(s, &h2),
				 HLML_SUCCESS);
		assert_ptr_equal(h2, h);
		assert_int_equal(hlml_device_get_handle_by_pci_bus_id(
					 infos[i].bus_id, &h2),
				 HLML_SUCCESS);
		assert_ptr_equal(h2, h);
		/* the short form, without the domain */
		assert_int_equal(hlml_device_get_handle_by_pci_bus_id(
					 infos[i].bus_id + 5, &h2),
				 HLML_SUCCESS);
		assert_ptr_equal(h2, h);

		assert_int_equal(hlml_device_get_serial(h, s, sizeof(s)),
				 HLML_SUCCESS);
		assert_string_equal(s, infos[i].serial);
		assert_int_equal(hlml_get_serial_number(h, s, sizeof(s)),
				 HLML_SUCCESS);
		assert_string_equal(s, infos[i].serial);
		assert_int_equal(hlml_get_model_number(h, s, sizeof(s)),
				 HLML_SUCCESS);
		assert_string_equal(s, infos[i].device_type);
		assert_int_equal(hlml_get_firmware_fit_version(h, s, sizeof(s)),
				 HLML_SUCCESS);
		assert_string_equal(s, (const char *)hw.fw_version);

		assert_int_equal(hlml_device_get_memory_info(h, &mem),
				 HLML_SUCCESS);
		assert_int_equal(mem.total, dram.dram_total_mem);
		assert_int_equal(mem.total, hw.dram_size);
		assert_int_equal(mem.used + mem.free, mem.total);
		printf(" mem %llu/%llu", mem.used, mem.total);

		assert_int_equal(hlml_device_get_utilization_rates(h, &util),
				 HLML_SUCCESS);
		assert_in_range(util.aip, 0, 100);

		assert_int_equal(hlml_device_get_max_clock_info(
					 h, HLML_CLOCK_SOC, &maxclk),
				 HLML_SUCCESS);
		assert_int_equal(maxclk, hw.clk_max_mhz);
		assert_int_equal(hlml_device_get_clock_info(h, HLML_CLOCK_TPC,
							    &clk),
				 HLML_SUCCESS);
		assert_in_range(clk, 1, maxclk);
		printf(" clk %u/%u MHz", clk, maxclk);

		assert_int_equal(hlml_device_get_power_usage(h, &v),
				 HLML_SUCCESS);
		assert_true(v > 0);
		assert_int_equal(
			hlml_device_get_power_management_default_limit(h, &v2),
			HLML_SUCCESS);
		assert_int_equal(v2, hw.max_power_mw);
		printf(" power %u/%u mW", v, v2);
		assert_int_equal(hlml_device_get_total_energy_consumption(h,
									  &ull),
				 HLML_SUCCESS);

		assert_int_equal(hlml_device_get_temperature(
					 h, HLML_TEMPERATURE_ON_AIP, &v),
				 HLML_SUCCESS);
		assert_in_range(v, 1, 150);
		assert_int_equal(hlml_device_get_temperature(
					 h, HLML_TEMPERATURE_ON_BOARD, &v),
				 HLML_SUCCESS);
		assert_int_equal(hlml_device_get_temperature_threshold(
					 h, HLML_TEMPERATURE_THRESHOLD_SHUTDOWN,
					 &v),
				 HLML_SUCCESS);
		assert_int_equal(hlml_device_get_temperature_threshold(
					 h, HLML_TEMPERATURE_THRESHOLD_SLOWDOWN,
					 &v2),
				 HLML_SUCCESS);
		assert_true(v > v2);
		printf(" temp limits %u/%u C\n", v2, v);
		assert_int_equal(
			hlml_device_get_current_clocks_throttle_reasons(h,
									&ull),
			HLML_SUCCESS);

		assert_int_equal(hlml_device_get_module_id(h, &v),
				 HLML_SUCCESS);
		assert_int_equal(v, infos[i].module_id);
		assert_int_equal(hlml_device_get_minor_number(h, &v),
				 HLML_SUCCESS);
		assert_int_equal(v, i);
		assert_int_equal(hlml_device_get_hl_revision(h, &rev),
				 HLML_SUCCESS);
		assert_int_equal(rev, hw.revision_id);

		assert_int_equal(hlml_device_get_ecc_mode(h, &cur, &pend),
				 HLML_SUCCESS);
		assert_int_equal(cur, HLML_FEATURE_ENABLED);
		attr((int)i, "ecc_errors", ref, sizeof(ref));
		assert_int_equal(sscanf(ref, "%llu %llu", &c_ref, &u_ref), 2);
		assert_int_equal(hlml_device_get_total_ecc_errors(
					 h, HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
					 HLML_VOLATILE_ECC, &ull),
				 HLML_SUCCESS);
		assert_int_equal(ull, u_ref);
		assert_int_equal(hlml_device_get_memory_error_counter(
					 h, HLML_MEMORY_ERROR_TYPE_CORRECTED,
					 HLML_AGGREGATE_ECC,
					 HLML_MEMORY_LOCATION_DRAM, &ull),
				 HLML_SUCCESS);
		assert_int_equal(ull, c_ref);
		assert_int_equal(
			hlml_device_get_replaced_rows(
				h,
				HLML_ROW_REPLACEMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
				&v, NULL),
			HLML_SUCCESS);
		assert_int_equal(v, 0);
		assert_int_equal(
			hlml_device_get_replaced_rows_pending_status(h, &cur),
			HLML_SUCCESS);
		assert_int_equal(cur, HLML_FEATURE_DISABLED);

		/* one MAC per NIC port, locally administered, ids in order */
		assert_int_equal(hlml_device_get_mac_info(
					 h, macs, HLML_DEVICE_MAC_MAX_ADDRESSES,
					 0, &n),
				 HLML_SUCCESS);
		assert_int_equal(n, hw.num_nic_ports);
		assert_true(n > 1);
		for (v = 0; v < n; v++) {
			assert_int_equal(macs[v].id, v);
			assert_int_equal(macs[v].addr[0], 0x02);
			assert_int_equal(macs[v].addr[5], v);
		}
		memcpy(first_mac[i], macs[0].addr, ETHER_ADDR_LEN);
		assert_int_equal(hlml_device_get_mac_info(h, macs, 2, 3, &n),
				 HLML_SUCCESS);
		assert_int_equal(n, 2);
		assert_int_equal(macs[0].id, 3);
		assert_int_equal(hlml_get_mac_addr_info(h, mask, ext),
				 HLML_SUCCESS);
		assert_int_equal(__builtin_popcountll(mask[0]),
				 hw.num_nic_ports);
		assert_int_equal(ext[0] & ~mask[0], 0);
		assert_int_equal(hlml_nic_get_link(h, 0, &up), HLML_SUCCESS);
		assert_true(up);

		assert_int_equal(hlml_device_get_curr_pcie_link_width(h, &v),
				 HLML_SUCCESS);
		assert_int_equal(v, pci_ref.link_width);
		assert_int_equal(hlml_device_get_curr_pcie_link_generation(h,
									   &v),
				 HLML_SUCCESS);
		assert_in_range(v, 1, 6);
		assert_int_equal(hlml_device_get_pcie_replay_counter(h, &v),
				 HLML_SUCCESS);
		assert_int_equal(v, 0);
	}
	assert_memory_not_equal(first_mac[0], first_mac[1], ETHER_ADDR_LEN);

	assert_int_equal(hlml_get_hlml_version(s, sizeof(s)), HLML_SUCCESS);
	assert_int_equal(hlml_get_driver_version(s, sizeof(s)), HLML_SUCCESS);
	assert_int_equal(hpu_driver_read_attr("version", ref, sizeof(ref)), 0);
	assert_string_equal(s, ref);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* Functions a simulated device cannot answer say so */
static void test_not_supported(void **state)
{
	hlml_violation_time_t vt;
	hlml_enable_state_t mode;
	hlml_nic_stats_info_t st = { 0 };
	hlml_pcb_info_t pcb;
	hlml_device_t h;
	unsigned int v;
	char s[64];

	(void)state;
	assert_int_equal(hlml_init_with_flags(6), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_persistence_mode(h, &mode),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_violation_status(
				 h, HLML_PERF_POLICY_POWER, &vt),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_nic_get_statistics(h, &st),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_pcb_info(h, &pcb),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(
		hlml_device_get_pcie_throughput(h, HLML_PCIE_UTIL_TX_BYTES, &v),
		HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_device_get_temperature(h, HLML_TEMPERATURE_OTHER,
						     &v),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_get_cpld_version(h, s, sizeof(s)),
			 HLML_ERROR_NOT_SUPPORTED);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* Every bad argument gets its code and changes nothing */
static void test_bad_arguments(void **state)
{
	hlml_device_t h, h2, stale;
	hlml_event_set_t set;
	hlml_memory_t mem;
	hlml_event_data_t ev;
	unsigned int v, count;
	unsigned long long ull;
	int local;
	char s[64];

	(void)state;
	/* before any init */
	assert_int_equal(hlml_device_get_count(&count),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_shutdown(), HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_event_set_create(&set), HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_get_hlml_version(s, sizeof(s)), HLML_SUCCESS);
	assert_int_equal(hlml_get_hlml_version(s, 2),
			 HLML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(hlml_get_hlml_version(NULL, 2),
			 HLML_ERROR_INVALID_ARGUMENT);

	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_count(NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_handle_by_index(0, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_handle_by_index(NDEV, &h),
			 HLML_ERROR_NOT_FOUND);
	assert_int_equal(hlml_device_get_handle_by_UUID(NULL, &h),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_handle_by_UUID("HPU-nope", &h),
			 HLML_ERROR_NOT_FOUND);
	assert_int_equal(hlml_device_get_handle_by_pci_bus_id("zz:0", &h),
			 HLML_ERROR_NOT_FOUND);
	assert_int_equal(hlml_device_get_handle_by_pci_bus_id("0000:ff:00.0",
							      &h),
			 HLML_ERROR_NOT_FOUND);
	assert_int_equal(hlml_device_get_handle_by_pci_bus_id(NULL, &h),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h), HLML_SUCCESS);

	/* not a handle: NULL, an address of ours, one byte off */
	assert_int_equal(hlml_device_get_memory_info(NULL, &mem),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_memory_info(&local, &mem),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_memory_info((char *)h + NDEV, &mem),
			 HLML_ERROR_INVALID_ARGUMENT);

	/* NULL out pointers */
	assert_int_equal(hlml_device_get_memory_info(h, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_name(h, NULL, 64),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_pci_info(h, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_power_usage(h, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_clock_info(h, HLML_CLOCK_SOC, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_ecc_mode(h, NULL, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_mac_info(h, NULL, 4, 0, &v),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_nic_get_link(h, 0, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_event_set_create(NULL),
			 HLML_ERROR_INVALID_ARGUMENT);

	/* short buffers */
	assert_int_equal(hlml_device_get_name(h, s, 2),
			 HLML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(hlml_device_get_uuid(h, s, 8),
			 HLML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(hlml_device_get_serial(h, s, 0),
			 HLML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(hlml_get_driver_version(s, 1),
			 HLML_ERROR_INSUFFICIENT_SIZE);

	/* enum values out of range */
	assert_int_equal(hlml_device_get_clock_info(
				 h, (hlml_clock_type_t)HLML_CLOCK_COUNT, &v),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
		hlml_device_get_max_clock_info(h, (hlml_clock_type_t)-1, &v),
		HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_temperature(
				 h, (hlml_temperature_sensors_t)7, &v),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_temperature_threshold(
				 h,
				 (hlml_temperature_thresholds_t)
					 HLML_TEMPERATURE_THRESHOLD_COUNT,
				 &v),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
		hlml_device_get_total_ecc_errors(h, (hlml_memory_error_type_t)5,
						 HLML_VOLATILE_ECC, &ull),
		HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_memory_error_counter(
				 h, HLML_MEMORY_ERROR_TYPE_CORRECTED,
				 HLML_VOLATILE_ECC,
				 (hlml_memory_location_type_t)2, &ull),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_err_inject(h, HLML_ERR_INJECT_COUNT),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_get_replaced_rows(
				 h, HLML_ROW_REPLACEMENT_CAUSE_COUNT, &v, NULL),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_nic_get_link(h, 64, (bool *)&local),
			 HLML_ERROR_INVALID_ARGUMENT);

	/* event sets */
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(h, 1ULL << 20, set),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_device_register_events(h, HLML_EVENT_CRITICAL_ERR,
						     &local),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_event_set_wait(set, NULL, 0),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_event_set_wait(set, &ev, 0), HLML_ERROR_TIMEOUT);
	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_free(set), HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_event_set_wait(set, &ev, 0),
			 HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_event_set_free(NULL),
			 HLML_ERROR_INVALID_ARGUMENT);

	/* nested inits: the handle lives until the last shutdown */
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_memory_info(h, &mem), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	stale = h;
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);

	/* after the last shutdown: stale, also after a new init */
	assert_int_equal(hlml_device_get_memory_info(stale, &mem),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_event_set_wait(set, &ev, 0),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_memory_info(stale, &mem),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_device_get_name(stale, s, sizeof(s)),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_device_register_events(
				 stale, HLML_EVENT_CRITICAL_ERR, set),
			 HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h2), HLML_SUCCESS);
	assert_ptr_not_equal(h2, stale);
	/* a set of the earlier cycle can still be freed, once */
	assert_int_equal(
		hlml_device_register_events(h2, HLML_EVENT_CRITICAL_ERR, set),
		HLML_ERROR_UNINITIALIZED);
	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_free(set), HLML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_ERROR_UNINITIALIZED);
}

/* Waits for @bit on @set within EVENT_WAIT_MS; other events are skipped */
static void expect_event(hlml_event_set_t set, hlml_device_t dev,
			 unsigned long long bit)
{
	hlml_event_data_t ev;
	int i;

	for (i = 0; i < 16; i++) {
		memset(&ev, 0, sizeof(ev));
		assert_int_equal(hlml_event_set_wait(set, &ev, EVENT_WAIT_MS),
				 HLML_SUCCESS);
		assert_ptr_equal(ev.device, dev);
		assert_int_equal(__builtin_popcountll(ev.event_type), 1);
		if (ev.event_type == bit)
			return;
	}
	fail_msg("event %#llx did not come", bit);
}

/* An injected fatal error arrives as a critical (and ECC) event */
static void test_injected_error_event(void **state)
{
	unsigned long long before, after;
	hlml_event_data_t ev;
	hlml_event_set_t set;
	hlml_device_t h, other;

	(void)state;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(1, &h), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(0, &other),
			 HLML_SUCCESS);
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(
				 h,
				 HLML_EVENT_CRITICAL_ERR | HLML_EVENT_ECC_DERR |
					 HLML_EVENT_ECC_SERR,
				 set),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(
				 other, HLML_EVENT_CRITICAL_ERR, set),
			 HLML_SUCCESS);
	assert_int_equal(hlml_event_set_wait(set, &ev, 50), HLML_ERROR_TIMEOUT);
	assert_int_equal(hlml_device_get_total_ecc_errors(
				 h, HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
				 HLML_AGGREGATE_ECC, &before),
			 HLML_SUCCESS);

	assert_int_equal(hlml_device_err_inject(h, HLML_ERR_INJECT_FATAL_EVENT),
			 HLML_SUCCESS);
	expect_event(set, h, HLML_EVENT_CRITICAL_ERR);
	assert_int_equal(hlml_device_get_total_ecc_errors(
				 h, HLML_MEMORY_ERROR_TYPE_UNCORRECTED,
				 HLML_AGGREGATE_ECC, &after),
			 HLML_SUCCESS);
	assert_int_equal(after, before + 1);

	assert_int_equal(
		hlml_device_err_inject(h, HLML_ERR_INJECT_NON_FATAL_EVENT),
		HLML_SUCCESS);
	expect_event(set, h, HLML_EVENT_ECC_SERR);
	/* nothing for the device nobody injected into */
	while (hlml_event_set_wait(set, &ev, 50) == HLML_SUCCESS)
		assert_ptr_equal(ev.device, h);
	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/*
 * The daemon's side of FATAL/NON_FATAL_EVENT: DEBUG HPU_FAULT_ECC_ERR
 * checks its arguments, counts the error and queues HPU_EVENT_ECC_ERR to
 * the device's compute contexts (data: 1 uncorrectable, 0 corrected)
 */
static void test_debug_ecc_fault(void **state)
{
	unsigned long long c0, u0, c1, u1;
	struct hpu_event ev[8];
	struct hpu_device *dev;
	char buf[64];
	int n, i, got = 0, tries;

	(void)state;
	attr(0, "ecc_errors", buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%llu %llu", &c0, &u0), 2);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 2),
			 -EINVAL);
	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 1, 0),
			 -EINVAL);
	attr(0, "ecc_errors", buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%llu %llu", &c1, &u1), 2);
	assert_int_equal(c1, c0);
	assert_int_equal(u1, u0);

	assert_int_equal(hpu_debug_inject_fault(dev, HPU_FAULT_ECC_ERR, 0, 1),
			 0);
	for (tries = 0; tries < 1000 && !got; tries++) {
		n = hpu_event_read(dev, ev, 8);
		assert_true(n >= 0);
		for (i = 0; i < n; i++)
			if (ev[i].type == HPU_EVENT_ECC_ERR) {
				assert_int_equal(ev[i].data, 1);
				got = 1;
			}
		if (!got)
			hpu_device_poll(dev, POLLIN, 10);
	}
	assert_true(got);
	hpu_close(dev);
	attr(0, "ecc_errors", buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%llu %llu", &c1, &u1), 2);
	assert_int_equal(c1, c0);
	assert_int_equal(u1, u0 + 1);
}

/*
 * A device that goes away (hot-removed) answers HLML_ERROR_AIP_IS_LOST,
 * never a crash, raises one critical event, and leaves the other device
 * working
 */
static void test_lost_device(void **state)
{
	char *shared = strdup(getenv("HPU_DEV_DIR"));
	struct hpu_test_daemon d;
	hlml_event_data_t ev;
	hlml_event_set_t set;
	hlml_device_t h0, h1;
	hlml_memory_t mem;
	unsigned int v;
	char s[64];

	(void)state;
	assert_non_null(shared);
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", NULL), 0);
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h0), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(1, &h1), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	assert_int_equal(
		hlml_device_register_events(h1, HLML_EVENT_CRITICAL_ERR, set),
		HLML_SUCCESS);

	assert_int_equal(hpu_hot_remove(1), 0);
	assert_int_equal(hlml_device_get_memory_info(h1, &mem),
			 HLML_ERROR_AIP_IS_LOST);
	assert_int_equal(hlml_device_get_power_usage(h1, &v),
			 HLML_ERROR_AIP_IS_LOST);
	/* what enumeration saw stays known */
	assert_int_equal(hlml_device_get_serial(h1, s, sizeof(s)),
			 HLML_SUCCESS);
	assert_int_equal(hlml_event_set_wait(set, &ev, EVENT_WAIT_MS),
			 HLML_SUCCESS);
	assert_ptr_equal(ev.device, h1);
	assert_int_equal(ev.event_type, HLML_EVENT_CRITICAL_ERR);
	/* once */
	assert_int_equal(hlml_event_set_wait(set, &ev, 50), HLML_ERROR_TIMEOUT);
	assert_int_equal(hlml_device_get_memory_info(h0, &mem), HLML_SUCCESS);

	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	setenv("HPU_DEV_DIR", shared, 1);
	free(shared);
}

/* Voluntary context switches of the calling thread so far */
static long thread_switches(void)
{
	char line[128];
	long v = -1;
	FILE *f;

	f = fopen("/proc/thread-self/status", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	assert_true(v >= 0);
	return v;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The next event of @set must be @bit of @dev */
static void expect_only(hlml_event_set_t set, hlml_device_t dev,
			unsigned long long bit)
{
	hlml_event_data_t ev;

	memset(&ev, 0, sizeof(ev));
	assert_int_equal(hlml_event_set_wait(set, &ev, EVENT_WAIT_MS),
			 HLML_SUCCESS);
	assert_ptr_equal(ev.device, dev);
	assert_int_equal(ev.event_type, bit);
}

/*
 * With a daemon that queues device events for control nodes, a wait
 * sleeps on them instead of looking every 5 ms (few wake-ups while
 * idle), an event reaches every set watching the device, a compute
 * reset is no critical error and a hard reset is, and the injections
 * ENDLESS_COMMAND and LOSS_OF_HEARTBEAT work (a hard reset recovers)
 */
static void test_events_from_queue(void **state)
{
	char *shared = strdup(getenv("HPU_DEV_DIR"));
	const unsigned long long mask = HLML_EVENT_CRITICAL_ERR |
					HLML_EVENT_ECC_SERR;
	struct hpu_info_device_status st;
	struct hpu_test_daemon d;
	struct hpu_device *ctl;
	hlml_event_data_t ev;
	hlml_event_set_t a, b;
	hlml_device_t h;
	long sw0, sw;
	uint64_t t0;

	(void)state;
	assert_non_null(shared);
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_create(&a), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_create(&b), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(h, mask, a), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(h, mask, b), HLML_SUCCESS);

	/* idle: a 5 ms look would switch ~200 times in a second */
	sw0 = thread_switches();
	assert_int_equal(hlml_event_set_wait(a, &ev, 1000), HLML_ERROR_TIMEOUT);
	sw = thread_switches() - sw0;
	print_message("an idle 1 s wait switched %ld times\n", sw);
	assert_true(sw < 60);

	/* both sets get it; loosely timed: it comes from the queue */
	assert_int_equal(
		hlml_device_err_inject(h, HLML_ERR_INJECT_NON_FATAL_EVENT),
		HLML_SUCCESS);
	t0 = now_ms();
	expect_only(a, h, HLML_EVENT_ECC_SERR);
	print_message("event after %llu ms\n",
		      (unsigned long long)(now_ms() - t0));
	expect_only(b, h, HLML_EVENT_ECC_SERR);

	/* a compute reset is no critical error, a hard one is */
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_COMPUTE), 0);
	assert_int_equal(hlml_event_set_wait(a, &ev, 200), HLML_ERROR_TIMEOUT);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
	expect_only(a, h, HLML_EVENT_CRITICAL_ERR);
	expect_only(b, h, HLML_EVENT_CRITICAL_ERR);

	/* ENDLESS_COMMAND: armed (the next CS never ends), no event yet */
	assert_int_equal(
		hlml_device_err_inject(h, HLML_ERR_INJECT_ENDLESS_COMMAND),
		HLML_SUCCESS);
	assert_int_equal(hlml_event_set_wait(a, &ev, 100), HLML_ERROR_TIMEOUT);

	/* LOSS_OF_HEARTBEAT: critical, the device malfunctions until reset */
	assert_int_equal(
		hlml_device_err_inject(h, HLML_ERR_INJECT_LOSS_OF_HEARTBEAT),
		HLML_SUCCESS);
	expect_only(a, h, HLML_EVENT_CRITICAL_ERR);
	assert_int_equal(hpu_info_device_status(ctl, &st), 0);
	assert_int_equal(st.status, HPU_DEVICE_STATUS_MALFUNCTION);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
	assert_int_equal(hpu_info_device_status(ctl, &st), 0);
	assert_int_equal(st.status, HPU_DEVICE_STATUS_OPERATIONAL);
	expect_only(a, h, HLML_EVENT_CRITICAL_ERR);

	assert_int_equal(hlml_event_set_free(a), HLML_SUCCESS);
	assert_int_equal(hlml_event_set_free(b), HLML_SUCCESS);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
	hpu_close(ctl);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	setenv("HPU_DEV_DIR", shared, 1);
	free(shared);
}

/* A NOP CS on queue 0 of @dev (the daemon's timeout) */
static uint64_t nop_cs(struct hpu_device *dev)
{
	struct hpu_cb_builder *cb;
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_nop(cb), 0);
	assert_int_equal(hpu_cb_builder_submit(cb, 0, 0, 0, &seq, NULL), 0);
	hpu_cb_builder_destroy(cb);
	return seq;
}

/* The SOC clock, its maximum, the AIP temperature, the throttle reasons */
struct clocks {
	unsigned int mhz, max, temp, slowdown, shutdown;
	unsigned long long why;
};

static struct clocks clocks_of(hlml_device_t h)
{
	struct clocks c;

	assert_int_equal(hlml_device_get_clock_info(h, HLML_CLOCK_SOC, &c.mhz),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_max_clock_info(h, HLML_CLOCK_SOC,
							&c.max),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_temperature(h, HLML_TEMPERATURE_ON_AIP,
						     &c.temp),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_temperature_threshold(
				 h, HLML_TEMPERATURE_THRESHOLD_SLOWDOWN,
				 &c.slowdown),
			 HLML_SUCCESS);
	assert_int_equal(hlml_device_get_temperature_threshold(
				 h, HLML_TEMPERATURE_THRESHOLD_SHUTDOWN,
				 &c.shutdown),
			 HLML_SUCCESS);
	assert_int_equal(
		hlml_device_get_current_clocks_throttle_reasons(h, &c.why),
		HLML_SUCCESS);
	return c;
}

/*
 * THERMAL_EVENT (DEBUG HPU_FAULT_THERMAL): the die is over its slowdown
 * temperature, a busy clock is throttled below its maximum (a CLOCK_RATE
 * event), the throttle reasons say THERMAL; CLEAR_FAULTS cools it, the
 * busy clock is back at its maximum (another CLOCK_RATE event)
 */
/* test_thermal_event's own daemon, stopped by its teardown, also on failure */
static struct hpu_test_daemon thermal_daemon;
static char *thermal_shared;

static int thermal_teardown(void **state)
{
	int ret = 0;

	(void)state;
	hlml_shutdown();
	if (!thermal_shared)
		return 0;
	ret = hpu_test_daemon_stop(&thermal_daemon);
	setenv("HPU_DEV_DIR", thermal_shared, 1);
	free(thermal_shared);
	thermal_shared = NULL;
	return ret;
}

static void test_thermal_event(void **state)
{
	struct hpu_device *dev, *ctl;
	char *shared;
	hlml_event_set_t set;
	hlml_device_t h;
	struct clocks c;
	uint32_t st;
	uint64_t seq;

	(void)state;
	shared = strdup(getenv("HPU_DEV_DIR"));
	assert_non_null(shared);
	if (hpu_test_daemon_start(&thermal_daemon, 1, "gaudi2", NULL)) {
		setenv("HPU_DEV_DIR", shared, 1);
		free(shared);
		fail_msg("starting a daemon");
	}
	thermal_shared = shared;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_handle_by_index(0, &h), HLML_SUCCESS);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	c = clocks_of(h);
	assert_true(c.temp < c.slowdown);
	assert_false(c.why & HLML_CLOCKS_THROTTLE_REASON_THERMAL);
	assert_int_equal(hlml_event_set_create(&set), HLML_SUCCESS);
	assert_int_equal(hlml_device_register_events(h, HLML_EVENT_CLOCK_RATE,
						     set),
			 HLML_SUCCESS);

	assert_int_equal(hlml_device_err_inject(h,
						HLML_ERR_INJECT_THERMAL_EVENT),
			 HLML_SUCCESS);
	c = clocks_of(h);
	assert_true(c.temp > c.slowdown && c.temp < c.shutdown);
	assert_true(c.why & HLML_CLOCKS_THROTTLE_REASON_THERMAL);

	/*
	 * busy (a CS that hangs): the clock rises, to less than its max.
	 * The daemon's clock sampler (every 50 ms) must have seen the idle
	 * clock first: its first look after a control open raises nothing
	 */
	usleep(1000 * 1000);
	assert_int_equal(
		hpu_debug_inject_fault(dev, HPU_FAULT_ENGINE_HANG, 0, 0), 0);
	seq = nop_cs(dev);
	expect_only(set, h, HLML_EVENT_CLOCK_RATE);
	c = clocks_of(h);
	assert_true(c.mhz > 0 && c.mhz < c.max);
	assert_true(c.why & HLML_CLOCKS_THROTTLE_REASON_THERMAL);

	/* cooled: the busy clock is back at its maximum */
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	expect_only(set, h, HLML_EVENT_CLOCK_RATE);
	c = clocks_of(h);
	assert_true(c.temp < c.slowdown);
	assert_int_equal(c.mhz, c.max);
	assert_false(c.why & HLML_CLOCKS_THROTTLE_REASON_THERMAL);

	/* the hung CS ends with a compute reset */
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_COMPUTE), 0);
	assert_int_equal(hpu_cs_wait(dev, seq, 10000000, &st), 0);
	assert_int_equal(st, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(hlml_event_set_free(set), HLML_SUCCESS);
	hpu_close(ctl);
	hpu_close(dev);
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);
}

/* Reads class/hpu@index/@name of the daemon mounted at @dir */
static void dir_attr(const char *dir, int index, const char *name, char *buf,
		     size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/hpu%d/%s", dir, index, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Starts a daemon on @dir (made if missing) with the same arguments */
static void start_on(struct hpu_test_daemon *d, const char *dir)
{
	const char *const argv[] = { "--foreground", "--devices", "2", "--type",
				     "gaudi2",	     "--mount",	  dir, NULL };

	memset(d, 0, sizeof(*d));
	if (mkdir(dir, 0700) && errno != EEXIST)
		fail_msg("mkdir %s: %s", dir, strerror(errno));
	assert_int_equal(hpu_test_daemon_spawn(d, dir, 2, argv), 0);
}

/* Same arguments, same identities; other device or mount, other ones */
static void test_stable_identities(void **state)
{
	char dir[] = "/tmp/hpu-test-hlml-XXXXXX",
	     dir2[] = "/tmp/hpu-test-hlml-XXXXXX";
	char uuid[2][64], mac[2][64], serial[64], s[64];
	struct hpu_test_daemon d;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	start_on(&d, dir);
	for (i = 0; i < 2; i++) {
		dir_attr(dir, i, "uuid", uuid[i], sizeof(uuid[i]));
		dir_attr(dir, i, "mac_addresses", mac[i], sizeof(mac[i]));
	}
	dir_attr(dir, 0, "serial_number", serial, sizeof(serial));
	assert_string_not_equal(uuid[0], uuid[1]);
	assert_string_not_equal(mac[0], mac[1]);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);

	start_on(&d, dir);
	for (i = 0; i < 2; i++) {
		dir_attr(dir, i, "uuid", s, sizeof(s));
		assert_string_equal(s, uuid[i]);
		dir_attr(dir, i, "mac_addresses", s, sizeof(s));
		assert_string_equal(s, mac[i]);
	}
	dir_attr(dir, 0, "serial_number", s, sizeof(s));
	assert_string_equal(s, serial);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);

	assert_non_null(mkdtemp(dir2));
	start_on(&d, dir2);
	dir_attr(dir2, 0, "uuid", s, sizeof(s));
	assert_string_not_equal(s, uuid[0]);
	dir_attr(dir2, 0, "mac_addresses", s, sizeof(s));
	assert_string_not_equal(s, mac[0]);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bad_arguments,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_list_and_metrics,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_not_supported,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_injected_error_event,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_debug_ecc_fault,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_lost_device, hpu_test_need_daemon),
		cmocka_unit_test_setup_teardown(test_thermal_event,
						hpu_test_need_daemon,
						thermal_teardown),
		cmocka_unit_test_setup(test_events_from_queue,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_stable_identities,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
