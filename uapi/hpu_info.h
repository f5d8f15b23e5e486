/* SPDX-License-Identifier: MIT */
/*
 * hpu_info.h - user ABI of the hpu driver's INFO command (v1): the op
 * numbers, the argument (struct hpu_info_args) and one answer struct per
 * op (docs/abi.md, "INFO ops"). The capability bits DRIVER_VERSION
 * reports are hpu_accel.h's, beside the commands they announce.
 *
 * Programs include hpu_accel.h, which includes this header and defines
 * HPU_IOCTL_INFO; the rules written there (sizes, pads, flags) hold here
 * too. INFO is the one command a control node (hpu_controlN) answers.
 */
#ifndef HPU_UAPI_INFO_H
#define HPU_UAPI_INFO_H

#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* INFO                                                                */
/* ------------------------------------------------------------------ */

/* INFO ops; numbers follow the habanalabs driver where it has the op */
#define HPU_INFO_HW_IP_INFO	    0
#define HPU_INFO_DRAM_USAGE	    2
#define HPU_INFO_HW_IDLE	    3
#define HPU_INFO_DEVICE_STATUS	    4
#define HPU_INFO_DEVICE_UTILIZATION 6
#define HPU_INFO_CLK_RATE	    8
#define HPU_INFO_RESET_COUNT	    9
#define HPU_INFO_TIME_SYNC	    10
#define HPU_INFO_CS_COUNTERS	    11
#define HPU_INFO_POWER		    17
#define HPU_INFO_OPEN_STATS	    18
#define HPU_INFO_GET_EVENTS	    30
#define HPU_INFO_PCI_INFO	    64
#define HPU_INFO_DRIVER_VERSION	    65
#define HPU_INFO_THERMAL	    66
#define HPU_INFO_NIC		    67
#define HPU_INFO_CTX_LIMITS	    68

/*
 * Averaging window of HPU_INFO_DEVICE_UTILIZATION (hpu_info_args.period_ms),
 * in ms; every other op takes 0
 */
#define HPU_INFO_PERIOD_MS_MIN 100
#define HPU_INFO_PERIOD_MS_MAX 1000

/**
 * struct hpu_info_args - argument of HPU_IOCTL_INFO
 * @return_pointer: user address of the answer buffer
 * @return_size: size of the answer buffer in bytes; the driver copies
 *	min(return_size, size of the answer) bytes
 * @op: HPU_INFO_* op
 * @flags: must be 0
 * @period_ms: DEVICE_UTILIZATION: averaging window,
 *	HPU_INFO_PERIOD_MS_MIN..HPU_INFO_PERIOD_MS_MAX (100..1000) ms;
 *	must be 0 for every other op
 * @full_size: out: size of the complete answer of @op
 * @pad: must be 0
 */
struct hpu_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	__u32 flags;
	__u32 period_ms;
	__u32 full_size;
	__u32 pad;
};

/**
 * struct hpu_info_hw_ip_info - HPU_INFO_HW_IP_INFO answer
 * @dram_base_address: first device VA of HBM as seen by user contexts
 * @dram_size: HBM size in bytes
 * @sram_base_address: first device VA of SRAM
 * @dram_page_size: default device memory allocation page size in bytes
 * @page_size_mask: bit n set when 2^n bytes is a supported allocation
 *	page size
 * @tpc_enabled_mask: bit per enabled TPC engine
 * @nic_ports_mask: bit per enabled NIC port
 * @sram_size: SRAM size in bytes
 * @device_id: PCI device id
 * @device_type: enum hpu_device_type
 * @revision_id: ASIC revision
 * @module_id: OAM module id of the device in its server (0..7)
 * @server_type: enum hpu_server_type
 * @mme_enabled_mask: bit per enabled MME engine
 * @dma_enabled_mask: bit per enabled DMA engine
 * @num_tpc: number of TPC engines
 * @num_mme: number of MME engines
 * @num_dma: number of DMA engines
 * @num_nic_ports: number of NIC ports
 * @num_queues: number of user-visible hardware queues
 * @max_cs_chunks: largest number of chunks accepted in one CS
 * @max_power_mw: board power cap in mW
 * @clk_max_mhz: maximum core clock in MHz
 * @pad: must be 0
 * @card_name: NUL-terminated marketing name, e.g. "HL-225"
 * @fw_version: NUL-terminated firmware (simulator) version string
 */
struct hpu_info_hw_ip_info {
	__u64 dram_base_address;
	__u64 dram_size;
	__u64 sram_base_address;
	__u64 dram_page_size;
	__u64 page_size_mask;
	__u64 tpc_enabled_mask;
	__u64 nic_ports_mask;
	__u32 sram_size;
	__u32 device_id;
	__u32 device_type;
	__u32 revision_id;
	__u32 module_id;
	__u32 server_type;
	__u32 mme_enabled_mask;
	__u32 dma_enabled_mask;
	__u32 num_tpc;
	__u32 num_mme;
	__u32 num_dma;
	__u32 num_nic_ports;
	__u32 num_queues;
	__u32 max_cs_chunks;
	__u32 max_power_mw;
	__u32 clk_max_mhz;
	__u32 pad;
	__u32 reserved;
	__u8 card_name[32];
	__u8 fw_version[32];
};

/**
 * struct hpu_info_dram_usage - HPU_INFO_DRAM_USAGE answer
 * @dram_free_mem: free HBM of the device in bytes
 * @ctx_dram_mem: HBM allocated by the calling context in bytes
 * @dram_used_mem: HBM allocated by all contexts in bytes
 * @dram_total_mem: HBM size in bytes
 */
struct hpu_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
	__u64 dram_used_mem;
	__u64 dram_total_mem;
};

/**
 * struct hpu_info_hw_idle - HPU_INFO_HW_IDLE answer
 * @is_idle: 1 when no engine is busy
 * @pad: 0
 * @busy_engines_mask: bit per busy engine, engines numbered as in
 *	docs/command-submission.md, "Queues" (DMA, then MME, then TPC,
 *	then NIC)
 */
struct hpu_info_hw_idle {
	__u32 is_idle;
	__u32 pad;
	__u64 busy_engines_mask[4];
};

/* Device status values; numbers follow the habanalabs driver */
#define HPU_DEVICE_STATUS_OPERATIONAL	     0
#define HPU_DEVICE_STATUS_IN_RESET	     1
#define HPU_DEVICE_STATUS_MALFUNCTION	     2
#define HPU_DEVICE_STATUS_NEEDS_RESET	     3
#define HPU_DEVICE_STATUS_IN_DEVICE_CREATION 4
#define HPU_DEVICE_STATUS_REMOVED	     6

/**
 * struct hpu_info_device_status - HPU_INFO_DEVICE_STATUS answer
 * @status: HPU_DEVICE_STATUS_*
 * @pad: 0
 */
struct hpu_info_device_status {
	__u32 status;
	__u32 pad;
};

/**
 * struct hpu_info_device_utilization - HPU_INFO_DEVICE_UTILIZATION answer
 * @utilization: percentage (0..100) of time any engine was busy over the
 *	requested period
 * @pad: 0
 */
struct hpu_info_device_utilization {
	__u32 utilization;
	__u32 pad;
};

/**
 * struct hpu_info_clk_rate - HPU_INFO_CLK_RATE answer
 * @cur_clk_rate_mhz: current core clock in MHz
 * @max_clk_rate_mhz: maximum core clock in MHz
 */
struct hpu_info_clk_rate {
	__u32 cur_clk_rate_mhz;
	__u32 max_clk_rate_mhz;
};

/**
 * struct hpu_info_reset_count - HPU_INFO_RESET_COUNT answer
 * @hard_reset_cnt: hard resets since the device was created
 * @soft_reset_cnt: soft (engine) resets since the device was created
 */
struct hpu_info_reset_count {
	__u32 hard_reset_cnt;
	__u32 soft_reset_cnt;
};

/**
 * struct hpu_info_time_sync - HPU_INFO_TIME_SYNC answer
 * @device_time: device timestamp counter in ns, sampled together with
 *	@host_time
 * @host_time: host CLOCK_MONOTONIC in ns
 */
struct hpu_info_time_sync {
	__u64 device_time;
	__u64 host_time;
};

/**
 * struct hpu_info_cs_counters - HPU_INFO_CS_COUNTERS answer
 * @total_submitted: command submissions accepted on the device
 * @ctx_submitted: command submissions accepted from the calling context
 * @total_completed: submissions that completed on the device
 * @ctx_completed: submissions of the calling context that completed
 * @total_out_of_mem_drop_cnt: rejected for lack of memory, device-wide
 * @ctx_out_of_mem_drop_cnt: same, calling context
 * @total_parsing_drop_cnt: rejected by packet validation, device-wide
 * @ctx_parsing_drop_cnt: same, calling context
 * @total_queue_full_drop_cnt: rejected because a queue was full
 * @ctx_queue_full_drop_cnt: same, calling context
 * @total_device_in_reset_drop_cnt: rejected during a reset
 * @ctx_device_in_reset_drop_cnt: same, calling context
 * @total_max_cs_in_flight_drop_cnt: rejected for too many CSs in flight
 * @ctx_max_cs_in_flight_drop_cnt: same, calling context
 * @total_timedout_cnt: submissions that timed out and were aborted
 * @ctx_timedout_cnt: same, calling context
 */
struct hpu_info_cs_counters {
	__u64 total_submitted;
	__u64 ctx_submitted;
	__u64 total_completed;
	__u64 ctx_completed;
	__u64 total_out_of_mem_drop_cnt;
	__u64 ctx_out_of_mem_drop_cnt;
	__u64 total_parsing_drop_cnt;
	__u64 ctx_parsing_drop_cnt;
	__u64 total_queue_full_drop_cnt;
	__u64 ctx_queue_full_drop_cnt;
	__u64 total_device_in_reset_drop_cnt;
	__u64 ctx_device_in_reset_drop_cnt;
	__u64 total_max_cs_in_flight_drop_cnt;
	__u64 ctx_max_cs_in_flight_drop_cnt;
	__u64 total_timedout_cnt;
	__u64 ctx_timedout_cnt;
};

/**
 * struct hpu_info_power - HPU_INFO_POWER answer
 * @power_mw: current board power in mW
 * @power_cap_mw: board power cap in mW
 * @energy_mj: energy used since the device was created, in mJ
 */
struct hpu_info_power {
	__u64 power_mw;
	__u64 power_cap_mw;
	__u64 energy_mj;
};

/**
 * struct hpu_info_thermal - HPU_INFO_THERMAL answer
 * @temp_asic_mc: ASIC temperature in milli-degrees Celsius
 * @temp_hbm_mc: HBM temperature in milli-degrees Celsius
 * @temp_slowdown_mc: temperature at which the clock is throttled
 * @temp_shutdown_mc: temperature at which the device shuts down
 */
struct hpu_info_thermal {
	__s32 temp_asic_mc;
	__s32 temp_hbm_mc;
	__s32 temp_slowdown_mc;
	__s32 temp_shutdown_mc;
};

/**
 * struct hpu_info_open_stats - HPU_INFO_OPEN_STATS answer
 * @open_counter: compute opens of the device since it was created
 * @last_open_period_ms: how long the last closed compute context was
 *	open, in ms (0 if none closed yet)
 * @num_compute_ctx: compute contexts open now
 * @num_control_ctx: control contexts open now
 * @is_compute_ctx_active: 1 when at least one compute context is open
 * @compute_ctx_in_release: 1 while a compute context is being torn down
 * @pad: 0
 */
struct hpu_info_open_stats {
	__u64 open_counter;
	__u64 last_open_period_ms;
	__u32 num_compute_ctx;
	__u32 num_control_ctx;
	__u8 is_compute_ctx_active;
	__u8 compute_ctx_in_release;
	__u8 pad[6];
};

/* hpu_info_nic.port_peer: the port does not link to a device of the server */
#define HPU_NIC_PEER_NONE 0xff

/**
 * struct hpu_info_nic - HPU_INFO_NIC answer: the device's NIC ports
 * @server_id: identifier of the server (one hpu-fused instance) the
 *	device belongs to, never 0; devices with the same @server_id are
 *	linked all-to-all by scale-up ports
 * @ports_up_mask: bit per port whose link is up
 * @scaleout_ports_mask: bit per port wired to the scale-out network
 *	(the others are scale-up ports, see @port_peer)
 * @tx_bytes: payload bytes this device's NICs sent since creation
 * @rx_bytes: payload bytes written into this device by NICs (its own
 *	server's and remote ones) since creation
 * @num_ports: NIC ports of the device (bits of the masks above)
 * @device_index: index of the device in its server (remote_device of
 *	HPU_NIC_OP_CONNECT)
 * @num_server_devices: devices in the server
 * @scaleout_ipv4: IPv4 address (network byte order) on which the server
 *	accepts scale-out connections, or 0 when it has none
 * @scaleout_port: TCP port of that address (host byte order), or 0
 * @pad0: 0
 * @pad1: 0
 * @port_peer: per scale-up port, index of the device of this server it
 *	links to; HPU_NIC_PEER_NONE for scale-out ports, unwired ports and
 *	entries at and past @num_ports
 */
struct hpu_info_nic {
	__u64 server_id;
	__u64 ports_up_mask;
	__u64 scaleout_ports_mask;
	__u64 tx_bytes;
	__u64 rx_bytes;
	__u32 num_ports;
	__u32 device_index;
	__u32 num_server_devices;
	__u32 scaleout_ipv4;
	__u16 scaleout_port;
	__u16 pad0;
	__u32 pad1;
	__u8 port_peer[64];
};

/*
 * Per-context limits: indices of hpu_info_ctx_limits.limits. What a
 * context makes the driver hold is bounded per context; the call that
 * would pass a limit fails with the errno given here and changes nothing
 * (docs/abi.md, "Limits"; hpu-fused --limit NAME=N sets them).
 */
#define HPU_CTX_LIMIT_CBS	  0 /* command buffers: -EMFILE */
#define HPU_CTX_LIMIT_ALLOCS	  1 /* device memory allocations: -EMFILE */
#define HPU_CTX_LIMIT_DEVICE_MAPS 2 /* mappings of allocations: -EMFILE */
#define HPU_CTX_LIMIT_HOST_MAPS	  3 /* MAP with USERPTR: -EMFILE */
#define HPU_CTX_LIMIT_SHM_MAPS	  4 /* MAP_SHM mappings: -EMFILE */
#define HPU_CTX_LIMIT_PINNED_BYTES \
	5 /* host bytes of CBs, USERPTR, MAP_SHM: -ENOMEM */
#define HPU_CTX_LIMIT_CS_IN_FLIGHT 6 /* CSs submitted, not ended: -EAGAIN */
#define HPU_CTX_LIMIT_EVENTS	   7 /* queued events: the oldest is dropped */
#define HPU_CTX_LIMIT_NIC_MRS	   8 /* NIC registrations: -ENOSPC */
#define HPU_CTX_LIMIT_NIC_CONNS	   9 /* NIC connections: -ENOSPC */
#define HPU_CTX_LIMIT_WAITERS	   10 /* WAIT_CS calls blocked at once: -EAGAIN */
#define HPU_CTX_LIMIT_TRACE_BYTES  11 /* bytes of trace rings (1.5): -ENOSPC */
#define HPU_CTX_LIMIT_NUM	   12 /* limits this header defines */
#define HPU_CTX_LIMIT_SLOTS	   16 /* entries of hpu_info_ctx_limits.limits */

/**
 * struct hpu_info_ctx_limit - one per-context limit
 * @limit: most the context may hold at once
 * @used: what the calling context holds now (0 on a control node)
 */
struct hpu_info_ctx_limit {
	__u64 limit;
	__u64 used;
};

/**
 * struct hpu_info_ctx_limits - HPU_INFO_CTX_LIMITS answer: the calling
 *	context's limits and use (HPU_CAP_CTX_LIMITS)
 * @num_limits: entries of @limits the driver fills (HPU_CTX_LIMIT_*
 *	indices below it); the others are 0
 * @pad: 0
 * @limits: indexed by HPU_CTX_LIMIT_*
 */
struct hpu_info_ctx_limits {
	__u32 num_limits;
	__u32 pad;
	struct hpu_info_ctx_limit limits[HPU_CTX_LIMIT_SLOTS];
};

/* Event bits of hpu_info_events.events_mask and hpu_event.type numbers */
#define HPU_EVENT_CS_TIMEOUT	     0 /* a CS of the context timed out */
#define HPU_EVENT_DEVICE_RESET	     1 /* the device was reset (data: HPU_RESET_*) */
#define HPU_EVENT_PAGE_FAULT	     2 /* MMU fault in the context */
#define HPU_EVENT_ENGINE_ERR	     3 /* an engine reported an error */
#define HPU_EVENT_LINK_DOWN	     4 /* a NIC port went down */
#define HPU_EVENT_ECC_ERR	     5 /* HBM ECC error */
#define HPU_EVENT_DEVICE_UNAVAILABLE 6 /* removed or malfunctioning */
#define HPU_EVENT_NIC_ACCESS_ERR     7 /* remote write to a bad region */
#define HPU_EVENT_RING_ERR	     8 /* ring broke; bad CB arena ref */
/*
 * Control nodes only (HPU_CAP_CTRL_EVENTS, ABI 1.4):
 *  STATUS_CHANGE: the device's status changed (data: the new
 *	HPU_DEVICE_STATUS_*, addr: the old one);
 *  CLOCK_CHANGE: the core clock changed (data: MHz now, addr: before);
 *  EVENTS_LOST: the queue was full and older records were dropped
 *	(data: how many since the last EVENTS_LOST); always the first
 *	record a read() returns after a drop.
 */
#define HPU_EVENT_STATUS_CHANGE	     9
#define HPU_EVENT_CLOCK_CHANGE	     10
#define HPU_EVENT_EVENTS_LOST	     11
#define HPU_EVENT_MAX		     12

/**
 * struct hpu_info_events - HPU_INFO_GET_EVENTS answer
 * @events_mask: bit (1 << HPU_EVENT_*) per event type that occurred in
 *	the calling context since the last GET_EVENTS; reading clears it
 * @pending: events queued for read() on the calling file
 */
struct hpu_info_events {
	__u64 events_mask;
	__u64 pending;
};

/**
 * struct hpu_info_pci - HPU_INFO_PCI_INFO answer
 * @domain: PCI domain
 * @bus: PCI bus
 * @device: PCI device (slot)
 * @function: PCI function
 * @pad0: 0
 * @vendor_id: PCI vendor id
 * @device_id: PCI device id
 * @subsystem_vendor_id: PCI subsystem vendor id
 * @subsystem_device_id: PCI subsystem device id
 * @link_speed_mts: PCIe link speed in MT/s per lane
 * @link_width: PCIe link width in lanes
 * @bus_id: NUL-terminated "DDDD:BB:DD.F"
 */
struct hpu_info_pci {
	__u32 domain;
	__u8 bus;
	__u8 device;
	__u8 function;
	__u8 pad0;
	__u16 vendor_id;
	__u16 device_id;
	__u16 subsystem_vendor_id;
	__u16 subsystem_device_id;
	__u32 link_speed_mts;
	__u32 link_width;
	__u8 bus_id[16];
};

/**
 * struct hpu_info_driver_version - HPU_INFO_DRIVER_VERSION answer
 * @capabilities: HPU_CAP_* bits of what this driver implements
 * @major: ABI major version (incompatible changes)
 * @minor: ABI minor version (additions)
 * @patch: driver patch level
 * @fw_if_major: firmware interface major version in use
 * @fw_if_minor: firmware interface minor version in use
 * @pad: 0
 * @version: NUL-terminated driver version string
 */
struct hpu_info_driver_version {
	__u64 capabilities;
	__u32 major;
	__u32 minor;
	__u32 patch;
	__u32 fw_if_major;
	__u32 fw_if_minor;
	__u32 pad;
	__u8 version[32];
};

#endif /* HPU_UAPI_INFO_H */
