// SPDX-License-Identifier: MIT
/*
 * test_uapi_layout.c - the ABI of uapi/hpu_accel.h does not move.
 *
 * Every expected size and offset below is written out by hand from the
 * v1 layout: a change to the header that shifts a member fails here
 * before it reaches a user. Also checks the ioctl numbers, the rule that
 * every size is a multiple of 8, and the ABI's numbered constants.
 */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <cmocka.h>

#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_ring.h"
#include "hpu_trace.h"

#define SIZE(type, expect)                                \
	do {                                              \
		assert_int_equal(sizeof(type), (expect)); \
		assert_int_equal(sizeof(type) % 8, 0);    \
	} while (0)

#define OFF(type, member, expect) \
	assert_int_equal(offsetof(type, member), (expect))

#define MSIZE(type, member, expect) \
	assert_int_equal(sizeof(((type *)0)->member), (expect))

/* ------------------------------------------------------------- INFO */

static void test_info_args(void **state)
{
	SIZE(struct hpu_info_args, 32);
	assert_int_equal(alignof(struct hpu_info_args), 8);
	OFF(struct hpu_info_args, return_pointer, 0);
	OFF(struct hpu_info_args, return_size, 8);
	OFF(struct hpu_info_args, op, 12);
	OFF(struct hpu_info_args, flags, 16);
	OFF(struct hpu_info_args, period_ms, 20);
	OFF(struct hpu_info_args, full_size, 24);
	OFF(struct hpu_info_args, pad, 28);
	/* the documented bounds of period_ms are ABI too */
	assert_int_equal(HPU_INFO_PERIOD_MS_MIN, 100);
	assert_int_equal(HPU_INFO_PERIOD_MS_MAX, 1000);
}

static void test_info_hw_ip_info(void **state)
{
	SIZE(struct hpu_info_hw_ip_info, 192);
	assert_int_equal(alignof(struct hpu_info_hw_ip_info), 8);
	OFF(struct hpu_info_hw_ip_info, dram_base_address, 0);
	OFF(struct hpu_info_hw_ip_info, dram_size, 8);
	OFF(struct hpu_info_hw_ip_info, sram_base_address, 16);
	OFF(struct hpu_info_hw_ip_info, dram_page_size, 24);
	OFF(struct hpu_info_hw_ip_info, page_size_mask, 32);
	OFF(struct hpu_info_hw_ip_info, tpc_enabled_mask, 40);
	OFF(struct hpu_info_hw_ip_info, nic_ports_mask, 48);
	OFF(struct hpu_info_hw_ip_info, sram_size, 56);
	OFF(struct hpu_info_hw_ip_info, device_id, 60);
	OFF(struct hpu_info_hw_ip_info, device_type, 64);
	OFF(struct hpu_info_hw_ip_info, revision_id, 68);
	OFF(struct hpu_info_hw_ip_info, module_id, 72);
	OFF(struct hpu_info_hw_ip_info, server_type, 76);
	OFF(struct hpu_info_hw_ip_info, mme_enabled_mask, 80);
	OFF(struct hpu_info_hw_ip_info, dma_enabled_mask, 84);
	OFF(struct hpu_info_hw_ip_info, num_tpc, 88);
	OFF(struct hpu_info_hw_ip_info, num_mme, 92);
	OFF(struct hpu_info_hw_ip_info, num_dma, 96);
	OFF(struct hpu_info_hw_ip_info, num_nic_ports, 100);
	OFF(struct hpu_info_hw_ip_info, num_queues, 104);
	OFF(struct hpu_info_hw_ip_info, max_cs_chunks, 108);
	OFF(struct hpu_info_hw_ip_info, max_power_mw, 112);
	OFF(struct hpu_info_hw_ip_info, clk_max_mhz, 116);
	OFF(struct hpu_info_hw_ip_info, pad, 120);
	OFF(struct hpu_info_hw_ip_info, reserved, 124);
	OFF(struct hpu_info_hw_ip_info, card_name, 128);
	MSIZE(struct hpu_info_hw_ip_info, card_name, 32);
	OFF(struct hpu_info_hw_ip_info, fw_version, 160);
	MSIZE(struct hpu_info_hw_ip_info, fw_version, 32);
}

static void test_info_small_answers(void **state)
{
	SIZE(struct hpu_info_dram_usage, 32);
	OFF(struct hpu_info_dram_usage, dram_free_mem, 0);
	OFF(struct hpu_info_dram_usage, ctx_dram_mem, 8);
	OFF(struct hpu_info_dram_usage, dram_used_mem, 16);
	OFF(struct hpu_info_dram_usage, dram_total_mem, 24);

	SIZE(struct hpu_info_hw_idle, 40);
	OFF(struct hpu_info_hw_idle, is_idle, 0);
	OFF(struct hpu_info_hw_idle, pad, 4);
	OFF(struct hpu_info_hw_idle, busy_engines_mask, 8);
	MSIZE(struct hpu_info_hw_idle, busy_engines_mask, 32);

	SIZE(struct hpu_info_device_status, 8);
	OFF(struct hpu_info_device_status, status, 0);
	OFF(struct hpu_info_device_status, pad, 4);

	SIZE(struct hpu_info_device_utilization, 8);
	OFF(struct hpu_info_device_utilization, utilization, 0);
	OFF(struct hpu_info_device_utilization, pad, 4);

	SIZE(struct hpu_info_clk_rate, 8);
	OFF(struct hpu_info_clk_rate, cur_clk_rate_mhz, 0);
	OFF(struct hpu_info_clk_rate, max_clk_rate_mhz, 4);

	SIZE(struct hpu_info_reset_count, 8);
	OFF(struct hpu_info_reset_count, hard_reset_cnt, 0);
	OFF(struct hpu_info_reset_count, soft_reset_cnt, 4);

	SIZE(struct hpu_info_time_sync, 16);
	OFF(struct hpu_info_time_sync, device_time, 0);
	OFF(struct hpu_info_time_sync, host_time, 8);

	SIZE(struct hpu_info_power, 24);
	OFF(struct hpu_info_power, power_mw, 0);
	OFF(struct hpu_info_power, power_cap_mw, 8);
	OFF(struct hpu_info_power, energy_mj, 16);

	SIZE(struct hpu_info_thermal, 16);
	OFF(struct hpu_info_thermal, temp_asic_mc, 0);
	OFF(struct hpu_info_thermal, temp_hbm_mc, 4);
	OFF(struct hpu_info_thermal, temp_slowdown_mc, 8);
	OFF(struct hpu_info_thermal, temp_shutdown_mc, 12);

	SIZE(struct hpu_info_events, 16);
	OFF(struct hpu_info_events, events_mask, 0);
	OFF(struct hpu_info_events, pending, 8);
}

static void test_info_cs_counters(void **state)
{
	SIZE(struct hpu_info_cs_counters, 128);
	OFF(struct hpu_info_cs_counters, total_submitted, 0);
	OFF(struct hpu_info_cs_counters, ctx_submitted, 8);
	OFF(struct hpu_info_cs_counters, total_completed, 16);
	OFF(struct hpu_info_cs_counters, ctx_completed, 24);
	OFF(struct hpu_info_cs_counters, total_out_of_mem_drop_cnt, 32);
	OFF(struct hpu_info_cs_counters, ctx_out_of_mem_drop_cnt, 40);
	OFF(struct hpu_info_cs_counters, total_parsing_drop_cnt, 48);
	OFF(struct hpu_info_cs_counters, ctx_parsing_drop_cnt, 56);
	OFF(struct hpu_info_cs_counters, total_queue_full_drop_cnt, 64);
	OFF(struct hpu_info_cs_counters, ctx_queue_full_drop_cnt, 72);
	OFF(struct hpu_info_cs_counters, total_device_in_reset_drop_cnt, 80);
	OFF(struct hpu_info_cs_counters, ctx_device_in_reset_drop_cnt, 88);
	OFF(struct hpu_info_cs_counters, total_max_cs_in_flight_drop_cnt, 96);
	OFF(struct hpu_info_cs_counters, ctx_max_cs_in_flight_drop_cnt, 104);
	OFF(struct hpu_info_cs_counters, total_timedout_cnt, 112);
	OFF(struct hpu_info_cs_counters, ctx_timedout_cnt, 120);
}

static void test_info_open_pci_version(void **state)
{
	SIZE(struct hpu_info_open_stats, 32);
	OFF(struct hpu_info_open_stats, open_counter, 0);
	OFF(struct hpu_info_open_stats, last_open_period_ms, 8);
	OFF(struct hpu_info_open_stats, num_compute_ctx, 16);
	OFF(struct hpu_info_open_stats, num_control_ctx, 20);
	OFF(struct hpu_info_open_stats, is_compute_ctx_active, 24);
	OFF(struct hpu_info_open_stats, compute_ctx_in_release, 25);
	OFF(struct hpu_info_open_stats, pad, 26);
	MSIZE(struct hpu_info_open_stats, pad, 6);

	SIZE(struct hpu_info_pci, 40);
	OFF(struct hpu_info_pci, domain, 0);
	OFF(struct hpu_info_pci, bus, 4);
	OFF(struct hpu_info_pci, device, 5);
	OFF(struct hpu_info_pci, function, 6);
	OFF(struct hpu_info_pci, pad0, 7);
	OFF(struct hpu_info_pci, vendor_id, 8);
	OFF(struct hpu_info_pci, device_id, 10);
	OFF(struct hpu_info_pci, subsystem_vendor_id, 12);
	OFF(struct hpu_info_pci, subsystem_device_id, 14);
	OFF(struct hpu_info_pci, link_speed_mts, 16);
	OFF(struct hpu_info_pci, link_width, 20);
	OFF(struct hpu_info_pci, bus_id, 24);
	MSIZE(struct hpu_info_pci, bus_id, 16);

	SIZE(struct hpu_info_driver_version, 64);
	OFF(struct hpu_info_driver_version, capabilities, 0);
	OFF(struct hpu_info_driver_version, major, 8);
	OFF(struct hpu_info_driver_version, minor, 12);
	OFF(struct hpu_info_driver_version, patch, 16);
	OFF(struct hpu_info_driver_version, fw_if_major, 20);
	OFF(struct hpu_info_driver_version, fw_if_minor, 24);
	OFF(struct hpu_info_driver_version, pad, 28);
	OFF(struct hpu_info_driver_version, version, 32);
	MSIZE(struct hpu_info_driver_version, version, 32);
}

/* ------------------------------------------------------- CB and CS */

static void test_cb(void **state)
{
	SIZE(struct hpu_cb_in, 32);
	OFF(struct hpu_cb_in, host_ptr, 0);
	OFF(struct hpu_cb_in, cb_handle, 8);
	OFF(struct hpu_cb_in, cb_size, 16);
	OFF(struct hpu_cb_in, op, 20);
	OFF(struct hpu_cb_in, flags, 24);
	OFF(struct hpu_cb_in, pad, 28);

	SIZE(struct hpu_cb_out, 32);
	OFF(struct hpu_cb_out, cb_handle, 0);
	OFF(struct hpu_cb_out, device_va, 8);
	OFF(struct hpu_cb_out, cb_size, 16);
	OFF(struct hpu_cb_out, usage_cnt, 20);
	OFF(struct hpu_cb_out, pad, 24);

	SIZE(union hpu_cb_args, 32);
	OFF(union hpu_cb_args, in, 0);
	OFF(union hpu_cb_args, out, 0);
}

static void test_cs(void **state)
{
	SIZE(struct hpu_cs_chunk, 32);
	OFF(struct hpu_cs_chunk, cb_handle, 0);
	OFF(struct hpu_cs_chunk, queue_index, 8);
	OFF(struct hpu_cs_chunk, cb_size, 12);
	OFF(struct hpu_cs_chunk, flags, 16);
	OFF(struct hpu_cs_chunk, pad, 20);
	OFF(struct hpu_cs_chunk, reserved, 24);

	SIZE(struct hpu_cs_in, 32);
	OFF(struct hpu_cs_in, chunks_execute, 0);
	OFF(struct hpu_cs_in, num_chunks_execute, 8);
	OFF(struct hpu_cs_in, timeout_ms, 12);
	OFF(struct hpu_cs_in, cs_flags, 16);
	OFF(struct hpu_cs_in, pad, 20);
	OFF(struct hpu_cs_in, reserved, 24);

	SIZE(struct hpu_cs_out, 24);
	OFF(struct hpu_cs_out, seq, 0);
	OFF(struct hpu_cs_out, status, 8);
	OFF(struct hpu_cs_out, flags, 12);
	OFF(struct hpu_cs_out, reserved, 16);

	SIZE(union hpu_cs_args, 32);
	OFF(union hpu_cs_args, in, 0);
	OFF(union hpu_cs_args, out, 0);
}

static void test_wait_cs(void **state)
{
	SIZE(struct hpu_wait_cs_in, 32);
	OFF(struct hpu_wait_cs_in, seq, 0);
	OFF(struct hpu_wait_cs_in, timeout_us, 8);
	OFF(struct hpu_wait_cs_in, flags, 16);
	OFF(struct hpu_wait_cs_in, seq_arr_len, 20);
	OFF(struct hpu_wait_cs_in, reserved, 24);

	SIZE(struct hpu_wait_cs_out, 24);
	OFF(struct hpu_wait_cs_out, timestamp_nsec, 0);
	OFF(struct hpu_wait_cs_out, status, 8);
	OFF(struct hpu_wait_cs_out, flags, 12);
	OFF(struct hpu_wait_cs_out, cs_completion_map, 16);
	OFF(struct hpu_wait_cs_out, pad, 20);

	SIZE(union hpu_wait_cs_args, 32);
	OFF(union hpu_wait_cs_args, in, 0);
	OFF(union hpu_wait_cs_args, out, 0);
}

/* ---------------------------------------------- MEMORY, DEBUG, events */

static void test_memory(void **state)
{
	SIZE(struct hpu_mem_in, 56);
	OFF(struct hpu_mem_in, size, 0);
	OFF(struct hpu_mem_in, page_size, 8);
	OFF(struct hpu_mem_in, handle, 16);
	OFF(struct hpu_mem_in, host_virt_addr, 24);
	OFF(struct hpu_mem_in, device_virt_addr, 32);
	OFF(struct hpu_mem_in, op, 40);
	OFF(struct hpu_mem_in, flags, 44);
	OFF(struct hpu_mem_in, reserved, 48);

	SIZE(struct hpu_mem_out, 56);
	OFF(struct hpu_mem_out, handle, 0);
	OFF(struct hpu_mem_out, device_virt_addr, 8);
	OFF(struct hpu_mem_out, export_id, 16);
	OFF(struct hpu_mem_out, size, 24);
	OFF(struct hpu_mem_out, reserved, 32);
	MSIZE(struct hpu_mem_out, reserved, 24);

	SIZE(union hpu_mem_args, 56);
	OFF(union hpu_mem_args, in, 0);
	OFF(union hpu_mem_args, out, 0);
}

static void test_debug_and_event(void **state)
{
	SIZE(struct hpu_debug_args, 56);
	OFF(struct hpu_debug_args, input_ptr, 0);
	OFF(struct hpu_debug_args, output_ptr, 8);
	OFF(struct hpu_debug_args, input_size, 16);
	OFF(struct hpu_debug_args, output_size, 20);
	OFF(struct hpu_debug_args, op, 24);
	OFF(struct hpu_debug_args, flags, 28);
	OFF(struct hpu_debug_args, fault, 32);
	OFF(struct hpu_debug_args, engine, 36);
	OFF(struct hpu_debug_args, param, 40);
	OFF(struct hpu_debug_args, reserved, 48);

	SIZE(struct hpu_event, 48);
	OFF(struct hpu_event, timestamp_ns, 0);
	OFF(struct hpu_event, seq, 8);
	OFF(struct hpu_event, addr, 16);
	OFF(struct hpu_event, data, 24);
	OFF(struct hpu_event, type, 32);
	OFF(struct hpu_event, engine, 36);
	OFF(struct hpu_event, flags, 40);
	OFF(struct hpu_event, pad, 44);
}

/* -------------------------------------------------------------- NIC */

static void test_nic(void **state)
{
	SIZE(struct hpu_info_nic, 128);
	OFF(struct hpu_info_nic, server_id, 0);
	OFF(struct hpu_info_nic, ports_up_mask, 8);
	OFF(struct hpu_info_nic, scaleout_ports_mask, 16);
	OFF(struct hpu_info_nic, tx_bytes, 24);
	OFF(struct hpu_info_nic, rx_bytes, 32);
	OFF(struct hpu_info_nic, num_ports, 40);
	OFF(struct hpu_info_nic, device_index, 44);
	OFF(struct hpu_info_nic, num_server_devices, 48);
	OFF(struct hpu_info_nic, scaleout_ipv4, 52);
	OFF(struct hpu_info_nic, scaleout_port, 56);
	OFF(struct hpu_info_nic, pad0, 58);
	OFF(struct hpu_info_nic, pad1, 60);
	OFF(struct hpu_info_nic, port_peer, 64);
	MSIZE(struct hpu_info_nic, port_peer, 64);
	MSIZE(struct hpu_info_nic, scaleout_port, 2);

	SIZE(struct hpu_nic_in, 56);
	OFF(struct hpu_nic_in, addr, 0);
	OFF(struct hpu_nic_in, size, 8);
	OFF(struct hpu_nic_in, op, 16);
	OFF(struct hpu_nic_in, flags, 20);
	OFF(struct hpu_nic_in, handle, 24);
	OFF(struct hpu_nic_in, port, 28);
	OFF(struct hpu_nic_in, remote_ipv4, 32);
	OFF(struct hpu_nic_in, remote_device, 36);
	OFF(struct hpu_nic_in, remote_port, 40);
	OFF(struct hpu_nic_in, pad0, 42);
	OFF(struct hpu_nic_in, pad1, 44);
	/* ABI 1.1: the reserved member became ACCEPT's token */
	OFF(struct hpu_nic_in, token, 48);
	MSIZE(struct hpu_nic_in, token, 8);

	SIZE(struct hpu_nic_out, 56);
	OFF(struct hpu_nic_out, handle, 0);
	OFF(struct hpu_nic_out, pad, 4);
	OFF(struct hpu_nic_out, size, 8);
	/* ABI 1.1: 64-bit key and token out of the reserved members */
	OFF(struct hpu_nic_out, rkey, 16);
	MSIZE(struct hpu_nic_out, rkey, 8);
	OFF(struct hpu_nic_out, token, 24);
	MSIZE(struct hpu_nic_out, token, 8);
	OFF(struct hpu_nic_out, reserved, 32);
	MSIZE(struct hpu_nic_out, reserved, 24);

	SIZE(union hpu_nic_args, 56);
	OFF(union hpu_nic_args, in, 0);
	OFF(union hpu_nic_args, out, 0);

	/* ABI 1.1: 56 bytes, the 64-bit key at the end, the old one pad */
	SIZE(struct hpu_pkt_nic_write, 56);
	OFF(struct hpu_pkt_nic_write, hdr, 0);
	OFF(struct hpu_pkt_nic_write, src_addr, 8);
	OFF(struct hpu_pkt_nic_write, remote_offset, 16);
	OFF(struct hpu_pkt_nic_write, size, 24);
	OFF(struct hpu_pkt_nic_write, conn, 32);
	OFF(struct hpu_pkt_nic_write, pad, 36);
	OFF(struct hpu_pkt_nic_write, sob_id, 40);
	OFF(struct hpu_pkt_nic_write, sob_value, 44);
	OFF(struct hpu_pkt_nic_write, rkey, 48);
	MSIZE(struct hpu_pkt_nic_write, rkey, 8);

	assert_int_equal(HPU_INFO_NIC, 67);
	assert_int_equal(HPU_NIC_PEER_NONE, 0xff);
	assert_int_equal(HPU_NIC_OP_REG_MR, 0);
	assert_int_equal(HPU_NIC_OP_DEREG_MR, 1);
	assert_int_equal(HPU_NIC_OP_CONNECT, 2);
	assert_int_equal(HPU_NIC_OP_DISCONNECT, 3);
	assert_int_equal(HPU_NIC_OP_ACCEPT, 4);
	assert_int_equal(HPU_NIC_MAX_ACCEPTS, 256);
	assert_int_equal(HPU_NIC_MR_FLAGS_MASK, HPU_NIC_MR_REMOTE_WRITE);
	assert_int_equal(HPU_NIC_MAX_MRS, 256);
	assert_int_equal(HPU_NIC_MAX_CONNS, 256);
	assert_int_equal(HPU_PACKET_NIC_WRITE, 0x12);
	assert_int_equal(HPU_NIC_F_SIGNAL, 0x100);
	assert_int_equal(HPU_NIC_F_MASK, HPU_NIC_F_SIGNAL);
	assert_int_equal(HPU_NIC_F_MASK & HPU_PKT_F_COMMON_MASK, 0);
	assert_int_equal(HPU_EVENT_LINK_DOWN, 4);
	assert_int_equal(HPU_EVENT_NIC_ACCESS_ERR, 7);
	assert_int_equal(HPU_FAULT_LINK_DOWN, 3);
	assert_int_equal(HPU_CAP_NIC, 1ULL << 7);
	assert_int_equal(HPU_CAP_DEBUG, 1ULL << 8);
	assert_int_equal(HPU_CAP_NIC_PD, 1ULL << 9);
	/* a port mask has a bit per port of every port_peer entry */
	assert_true(8 * sizeof(((struct hpu_info_nic *)0)->ports_up_mask) >=
		    sizeof(((struct hpu_info_nic *)0)->port_peer));
}

/* ------------------------------------------------------------ ioctls */

struct ioctl_expect {
	const char *name;
	unsigned long cmd;
	unsigned int nr;
	unsigned int size;
};

/* uapi/hpu_trace.h (ABI 1.5): trace13b's exporter codes against it */
static void test_trace(void **state)
{
	(void)state;
	SIZE(struct hpu_trace_event, 80);
	OFF(struct hpu_trace_event, submit_ns, 0);
	OFF(struct hpu_trace_event, start_ns, 8);
	OFF(struct hpu_trace_event, end_ns, 16);
	OFF(struct hpu_trace_event, cs_seq, 24);
	OFF(struct hpu_trace_event, bytes, 32);
	OFF(struct hpu_trace_event, flops, 40);
	OFF(struct hpu_trace_event, model_ns, 48);
	OFF(struct hpu_trace_event, engine, 56);
	OFF(struct hpu_trace_event, kind, 60);
	OFF(struct hpu_trace_event, flags, 62);
	OFF(struct hpu_trace_event, detail, 64);
	OFF(struct hpu_trace_event, fence_sob, 68);
	OFF(struct hpu_trace_event, signal_sob, 72);
	OFF(struct hpu_trace_event, reserved, 76);
	SIZE(struct hpu_trace_in, 32);
	OFF(struct hpu_trace_in, events_ptr, 0);
	OFF(struct hpu_trace_in, max_events, 8);
	OFF(struct hpu_trace_in, capacity, 12);
	OFF(struct hpu_trace_in, op, 16);
	OFF(struct hpu_trace_in, flags, 20);
	OFF(struct hpu_trace_in, reserved, 24);
	SIZE(struct hpu_trace_out, 48);
	OFF(struct hpu_trace_out, events, 0);
	OFF(struct hpu_trace_out, pending, 8);
	OFF(struct hpu_trace_out, dropped, 16);
	OFF(struct hpu_trace_out, recorded, 24);
	OFF(struct hpu_trace_out, capacity, 32);
	OFF(struct hpu_trace_out, engines, 36);
	OFF(struct hpu_trace_out, active, 40);
	SIZE(union hpu_trace_args, 48);
	assert_int_equal(HPU_TRACE_OP_START, 0);
	assert_int_equal(HPU_TRACE_OP_FREE, 4);
	assert_int_equal(HPU_TRACE_KIND_NR, 7);
	assert_int_equal(HPU_TRACE_EV_MASK, 7);
	assert_int_equal(HPU_TRACE_MIN_CAPACITY, 64);
	assert_int_equal(HPU_TRACE_MAX_CAPACITY, 65536);
}

static void test_ctx_limits(void **state)
{
	SIZE(struct hpu_info_ctx_limit, 16);
	OFF(struct hpu_info_ctx_limit, limit, 0);
	OFF(struct hpu_info_ctx_limit, used, 8);
	SIZE(struct hpu_info_ctx_limits, 264);
	assert_int_equal(alignof(struct hpu_info_ctx_limits), 8);
	OFF(struct hpu_info_ctx_limits, num_limits, 0);
	OFF(struct hpu_info_ctx_limits, pad, 4);
	OFF(struct hpu_info_ctx_limits, limits, 8);
	MSIZE(struct hpu_info_ctx_limits, limits, 16 * 16);
	assert_int_equal(HPU_INFO_CTX_LIMITS, 68);
	assert_int_equal(HPU_CAP_CTX_LIMITS, 1ULL << 10);
	assert_int_equal(HPU_CAP_RING, 1ULL << 11);
	assert_int_equal(HPU_CAP_RESET, 1ULL << 12);
	assert_int_equal(HPU_CAP_CTRL_EVENTS, 1ULL << 13);
	assert_int_equal(HPU_CAP_TRACE, 1ULL << 14);
	assert_int_equal(HPU_DEBUG_OP_RESET, 3);
	assert_int_equal(HPU_RESET_HARD, 1);
	assert_int_equal(HPU_RESET_COMPUTE, 2);
	assert_int_equal(HPU_CTX_LIMIT_CBS, 0);
	assert_int_equal(HPU_CTX_LIMIT_ALLOCS, 1);
	assert_int_equal(HPU_CTX_LIMIT_DEVICE_MAPS, 2);
	assert_int_equal(HPU_CTX_LIMIT_HOST_MAPS, 3);
	assert_int_equal(HPU_CTX_LIMIT_SHM_MAPS, 4);
	assert_int_equal(HPU_CTX_LIMIT_PINNED_BYTES, 5);
	assert_int_equal(HPU_CTX_LIMIT_CS_IN_FLIGHT, 6);
	assert_int_equal(HPU_CTX_LIMIT_EVENTS, 7);
	assert_int_equal(HPU_CTX_LIMIT_NIC_MRS, 8);
	assert_int_equal(HPU_CTX_LIMIT_NIC_CONNS, 9);
	assert_int_equal(HPU_CTX_LIMIT_WAITERS, 10);
	assert_int_equal(HPU_CTX_LIMIT_TRACE_BYTES, 11);
	assert_int_equal(HPU_CTX_LIMIT_NUM, 12);
	assert_int_equal(HPU_CTX_LIMIT_SLOTS, 16);
	assert_true(HPU_CTX_LIMIT_NUM <= HPU_CTX_LIMIT_SLOTS);
}

static void test_ioctl_numbers(void **state)
{
	static const struct ioctl_expect cmds[] = {
		{ "INFO", HPU_IOCTL_INFO, 0x40, 32 },
		{ "CB", HPU_IOCTL_CB, 0x41, 32 },
		{ "CS", HPU_IOCTL_CS, 0x42, 32 },
		{ "WAIT_CS", HPU_IOCTL_WAIT_CS, 0x43, 32 },
		{ "MEMORY", HPU_IOCTL_MEMORY, 0x44, 56 },
		{ "DEBUG", HPU_IOCTL_DEBUG, 0x45, 56 },
		{ "NIC", HPU_IOCTL_NIC, 0x46, 56 },
		{ "RING", HPU_IOCTL_RING, 0x47, 40 },
		{ "TRACE", HPU_IOCTL_TRACE, 0x48, 48 },
	};
	size_t i, j;

	assert_int_equal(DRM_COMMAND_BASE, 0x40);
	assert_int_equal(HPU_COMMAND_NIC, 0x06);
	assert_int_equal(HPU_COMMAND_RING, 0x07);
	assert_int_equal(HPU_COMMAND_TRACE, 0x08);
	assert_int_equal(HPU_COMMAND_END, 0x09);
	assert_int_equal(HPU_COMMAND_END, sizeof(cmds) / sizeof(cmds[0]));
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct ioctl_expect *c = &cmds[i];

		print_message("HPU_IOCTL_%s = 0x%08lx\n", c->name, c->cmd);
		assert_int_equal(_IOC_TYPE(c->cmd), 'd');
		assert_int_equal(_IOC_NR(c->cmd), c->nr);
		assert_int_equal(_IOC_DIR(c->cmd), _IOC_READ | _IOC_WRITE);
		assert_int_equal(_IOC_SIZE(c->cmd), c->size);
		for (j = 0; j < i; j++)
			assert_true(cmds[j].cmd != c->cmd);
	}
	/* the full words, as a user of another language would spell them */
	assert_int_equal(HPU_IOCTL_INFO, 0xc0206440UL);
	assert_int_equal(HPU_IOCTL_MEMORY, 0xc0386444UL);
	assert_int_equal(HPU_IOCTL_NIC, 0xc0386446UL);
}

/* ---------------------------------------------- numbered constants */

/* The sync packets; the long-SOB additions of ABI 1.7 */
static void test_sync_packets(void **state)
{
	(void)state;
	SIZE(struct hpu_pkt_msg_long, 24);
	OFF(struct hpu_pkt_msg_long, sob_id, 8);
	OFF(struct hpu_pkt_msg_long, op, 12);
	OFF(struct hpu_pkt_msg_long, value, 16);
	SIZE(struct hpu_pkt_arm_monitor, 40);
	OFF(struct hpu_pkt_arm_monitor, mon_id, 8);
	OFF(struct hpu_pkt_arm_monitor, sob_id, 12);
	OFF(struct hpu_pkt_arm_monitor, target, 16);
	OFF(struct hpu_pkt_arm_monitor, payload, 20);
	OFF(struct hpu_pkt_arm_monitor, payload_addr, 24);
	OFF(struct hpu_pkt_arm_monitor, target_hi, 32);
	MSIZE(struct hpu_pkt_arm_monitor, target_hi, 8);
	assert_int_equal(HPU_MSG_OP_LONG_SET, 2);
	assert_int_equal(HPU_MSG_OP_LONG_ADD, 3);
	assert_int_equal(HPU_SOB_LONG_BITS, 15);
	assert_true(HPU_SOB_LONG_MAX == 0xFFFFFFFFFFFFFFFULL);
	assert_int_equal(HPU_MON_F_SOB_SET, 1U << 10);
	assert_int_equal(HPU_MON_F_LONG, 1U << 11);
	assert_int_equal(HPU_MON_F_MASK, 0xF00);
	assert_true(HPU_CAP_LONG_SOB == 1ULL << 16);
}

static void test_abi_constants(void **state)
{
	assert_int_equal(HPU_PCI_VENDOR_ID, 0x1da3);
	assert_int_equal(HPU_DEVICE_GAUDI, 1);
	assert_int_equal(HPU_DEVICE_GAUDI2, 2);
	assert_int_equal(HPU_DEVICE_GAUDI3, 3);
	assert_int_equal(HPU_SERVER_SIM, 1);
	assert_int_equal(HPU_SERVER_HLS1, 2);
	assert_int_equal(HPU_SERVER_HLS2, 3);
	assert_int_equal(HPU_SERVER_HLS3, 4);

	assert_int_equal(HPU_INFO_HW_IP_INFO, 0);
	assert_int_equal(HPU_INFO_DRAM_USAGE, 2);
	assert_int_equal(HPU_INFO_HW_IDLE, 3);
	assert_int_equal(HPU_INFO_DEVICE_STATUS, 4);
	assert_int_equal(HPU_INFO_DEVICE_UTILIZATION, 6);
	assert_int_equal(HPU_INFO_CLK_RATE, 8);
	assert_int_equal(HPU_INFO_RESET_COUNT, 9);
	assert_int_equal(HPU_INFO_TIME_SYNC, 10);
	assert_int_equal(HPU_INFO_CS_COUNTERS, 11);
	assert_int_equal(HPU_INFO_POWER, 17);
	assert_int_equal(HPU_INFO_OPEN_STATS, 18);
	assert_int_equal(HPU_INFO_GET_EVENTS, 30);
	assert_int_equal(HPU_INFO_PCI_INFO, 64);
	assert_int_equal(HPU_INFO_DRIVER_VERSION, 65);
	assert_int_equal(HPU_INFO_THERMAL, 66);

	assert_int_equal(HPU_DEVICE_STATUS_OPERATIONAL, 0);
	assert_int_equal(HPU_DEVICE_STATUS_IN_RESET, 1);
	assert_int_equal(HPU_DEVICE_STATUS_MALFUNCTION, 2);
	assert_int_equal(HPU_DEVICE_STATUS_NEEDS_RESET, 3);
	assert_int_equal(HPU_DEVICE_STATUS_IN_DEVICE_CREATION, 4);
	assert_int_equal(HPU_DEVICE_STATUS_REMOVED, 6);

	assert_int_equal(HPU_EVENT_RING_ERR, 8);
	assert_int_equal(HPU_EVENT_STATUS_CHANGE, 9);
	assert_int_equal(HPU_EVENT_CLOCK_CHANGE, 10);
	assert_int_equal(HPU_EVENT_EVENTS_LOST, 11);
	assert_int_equal(HPU_EVENT_MAX, 12);
	assert_int_equal(HPU_FAULT_THERMAL, 5);
	assert_int_equal(HPU_FAULT_MAX, 6);
	assert_int_equal(HPU_MAX_JOBS_PER_CS, 512);
	assert_int_equal(HPU_MAX_CB_SIZE, 0x200000 - 32);
	assert_int_equal(HPU_WAIT_MULTI_CS_MAX, 32);
	/* every flag mask covers exactly the flags defined */
	assert_int_equal(HPU_CS_FLAGS_MASK, HPU_CS_FLAGS_SIGNAL |
						    HPU_CS_FLAGS_WAIT |
						    HPU_CS_FLAGS_TIMESTAMP);
	assert_int_equal(HPU_WAIT_CS_FLAGS_MASK,
			 HPU_WAIT_CS_FLAGS_MULTI_CS | HPU_WAIT_CS_FLAGS_ANY);
	assert_int_equal(HPU_MEM_FLAGS_MASK,
			 HPU_MEM_CONTIGUOUS | HPU_MEM_USERPTR | HPU_MEM_FIXED |
				 HPU_MEM_SRAM);
	/* MEMORY ops are ABI: new ones only at the end */
	assert_int_equal(HPU_MEM_OP_EXPORT, 4);
	assert_int_equal(HPU_MEM_OP_MAP_SHM, 5);
	/* the multi-CS completion map has a bit per array entry */
	assert_true(
		HPU_WAIT_MULTI_CS_MAX <=
		8 * sizeof(((struct hpu_wait_cs_out *)0)->cs_completion_map));
	/* the busy mask has a bit per engine of the largest chip */
	assert_true(
		8 * sizeof(((struct hpu_info_hw_idle *)0)->busy_engines_mask) >=
		256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_args),
		cmocka_unit_test(test_info_hw_ip_info),
		cmocka_unit_test(test_info_small_answers),
		cmocka_unit_test(test_info_cs_counters),
		cmocka_unit_test(test_info_open_pci_version),
		cmocka_unit_test(test_cb),
		cmocka_unit_test(test_cs),
		cmocka_unit_test(test_wait_cs),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_debug_and_event),
		cmocka_unit_test(test_nic),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_ctx_limits),
		cmocka_unit_test(test_ioctl_numbers),
		cmocka_unit_test(test_sync_packets),
		cmocka_unit_test(test_abi_constants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
