/* SPDX-License-Identifier: MIT */
/*
 * hpu_accel.h - user ABI of the hpu simulated accelerator driver (v1)
 *
 * Every command is DRM_IOWR(DRM_COMMAND_BASE + nr, struct) on a device
 * node (hpuN) or, for INFO only, on a control node (hpu_controlN).
 *
 * Rules (docs/abi.md):
 *  - only __u8..__u64, naturally aligned, explicit padding, sizes a
 *    multiple of 8; user pointers are __u64 *_ptr members;
 *  - every struct has flags; unknown flag bits, non-zero pad or
 *    reserved members and non-zero input members the op does not use
 *    are rejected with -EINVAL (docs/abi.md, "Members an op uses");
 *  - a call that fails changes nothing; -EFAULT included: the driver
 *    checks that the argument struct is writable before any effect;
 *  - the size encoded in the command number must equal the driver's
 *    size of the struct (-EINVAL otherwise); unknown numbers get -ENOTTY;
 *  - nothing carries a version: features are discovered with
 *    HPU_INFO_DRIVER_VERSION (major/minor and capability bits);
 *  - INFO copies min(return_size, sizeof(answer)) bytes, like snprintf,
 *    and reports the full size in full_size;
 *  - sequence numbers 0 and ~0 are never valid.
 */
#ifndef HPU_UAPI_ACCEL_H
#define HPU_UAPI_ACCEL_H

#include <linux/types.h>
#include <drm.h>

/* ------------------------------------------------------------------ */
/* Identity                                                            */
/* ------------------------------------------------------------------ */

/** HPU_PCI_VENDOR_ID - PCI vendor id reported by every simulated device */
#define HPU_PCI_VENDOR_ID 0x1da3

/**
 * enum hpu_device_type - ASIC family of a device (HW_IP_INFO.device_type)
 * @HPU_DEVICE_GAUDI: first generation, 32 GiB HBM
 * @HPU_DEVICE_GAUDI2: second generation, 96 GiB HBM
 * @HPU_DEVICE_GAUDI3: third generation, 128 GiB HBM
 */
enum hpu_device_type {
	HPU_DEVICE_INVALID = 0,
	HPU_DEVICE_GAUDI = 1,
	HPU_DEVICE_GAUDI2 = 2,
	HPU_DEVICE_GAUDI3 = 3
};

/**
 * enum hpu_server_type - server the device sits in (HW_IP_INFO.server_type)
 * @HPU_SERVER_UNKNOWN: not reported
 * @HPU_SERVER_SIM: simulated server: devices of one hpu-fused daemon
 * @HPU_SERVER_HLS1: HLS-1 (8 x Gaudi)
 * @HPU_SERVER_HLS2: HLS-2 (8 x Gaudi2)
 * @HPU_SERVER_HLS3: HLS-3 (8 x Gaudi3)
 */
enum hpu_server_type {
	HPU_SERVER_UNKNOWN = 0,
	HPU_SERVER_SIM = 1,
	HPU_SERVER_HLS1 = 2,
	HPU_SERVER_HLS2 = 3,
	HPU_SERVER_HLS3 = 4
};

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

/* Capability bits of hpu_info_driver_version.capabilities */
#define HPU_CAP_INFO	   (1ULL << 0) /* INFO family */
#define HPU_CAP_MEMORY	   (1ULL << 1) /* MEMORY family */
#define HPU_CAP_CB	   (1ULL << 2) /* CB family */
#define HPU_CAP_CS	   (1ULL << 3) /* CS and WAIT_CS families */
#define HPU_CAP_EVENTS	   (1ULL << 4) /* read()/poll() event queue */
#define HPU_CAP_MME	   (1ULL << 5) /* MME GEMM packets */
#define HPU_CAP_TPC	   (1ULL << 6) /* TPC kernel packets */
#define HPU_CAP_NIC	   (1ULL << 7) /* NIC packets and NIC family */
#define HPU_CAP_DEBUG	   (1ULL << 8) /* DEBUG family (fault injection) */
/* NIC protection domains (ABI 1.1): 64-bit keys, HPU_NIC_OP_ACCEPT */
#define HPU_CAP_NIC_PD	   (1ULL << 9)
#define HPU_CAP_CTX_LIMITS (1ULL << 10) /* HPU_INFO_CTX_LIMITS (ABI 1.1) */
/* HPU_IOCTL_RING: user-mode rings (uapi/hpu_ring.h, docs/rings.md) */
#define HPU_CAP_RING	   (1ULL << 11)

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
#define HPU_CTX_LIMIT_NUM	   11 /* limits this header defines */
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
#define HPU_EVENT_DEVICE_RESET	     1 /* the device was reset */
#define HPU_EVENT_PAGE_FAULT	     2 /* MMU fault in the context */
#define HPU_EVENT_ENGINE_ERR	     3 /* an engine reported an error */
#define HPU_EVENT_LINK_DOWN	     4 /* a NIC port went down */
#define HPU_EVENT_ECC_ERR	     5 /* HBM ECC error */
#define HPU_EVENT_DEVICE_UNAVAILABLE 6 /* removed or malfunctioning */
#define HPU_EVENT_NIC_ACCESS_ERR     7 /* remote write to a bad region */
#define HPU_EVENT_RING_ERR	     8 /* the context's ring broke (hpu_ring.h) */
#define HPU_EVENT_MAX		     9

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

/* ------------------------------------------------------------------ */
/* CB: command buffers in user memory mapped to the device             */
/* ------------------------------------------------------------------ */

#define HPU_CB_OP_CREATE  0
#define HPU_CB_OP_DESTROY 1
#define HPU_CB_OP_INFO	  2

/* Largest command buffer, bytes (the habanalabs driver's limit) */
#define HPU_MAX_CB_SIZE (0x200000 - 32)

/**
 * struct hpu_cb_in - CB input
 * @host_ptr: CREATE: user address of the command buffer
 * @cb_handle: DESTROY/INFO: handle returned by CREATE
 * @cb_size: CREATE: size in bytes, 8..HPU_MAX_CB_SIZE, multiple of 8
 * @op: HPU_CB_OP_*
 * @flags: must be 0
 * @pad: must be 0
 */
struct hpu_cb_in {
	__u64 host_ptr;
	__u64 cb_handle;
	__u32 cb_size;
	__u32 op;
	__u32 flags;
	__u32 pad;
};

/**
 * struct hpu_cb_out - CB output
 * @cb_handle: CREATE: new handle, valid in the calling context only
 * @device_va: CREATE/INFO: device VA the engines fetch the CB from
 * @cb_size: INFO: size in bytes
 * @usage_cnt: INFO: CSs in flight that use the CB
 * @pad: 0
 */
struct hpu_cb_out {
	__u64 cb_handle;
	__u64 device_va;
	__u32 cb_size;
	__u32 usage_cnt;
	__u64 pad;
};

/**
 * union hpu_cb_args - argument of HPU_IOCTL_CB
 * @in: input
 * @out: output
 */
union hpu_cb_args {
	struct hpu_cb_in in;
	struct hpu_cb_out out;
};

/* ------------------------------------------------------------------ */
/* CS: command submission                                              */
/* ------------------------------------------------------------------ */

/* Largest number of chunks in one CS (the habanalabs driver's limit) */
#define HPU_MAX_JOBS_PER_CS 512

#define HPU_CS_CHUNK_FLAGS_MASK 0
/**
 * struct hpu_cs_chunk - one job of a CS
 * @cb_handle: command buffer to run (HPU_CS_FLAGS_WAIT: user address
 *	of a __u64 array of sequence numbers to wait for)
 * @queue_index: hardware queue that runs it (docs/command-submission.md,
 *	"Queues")
 * @cb_size: bytes of the CB to run (HPU_CS_FLAGS_WAIT: number of
 *	sequence numbers in the array)
 * @flags: must be 0
 * @pad: must be 0
 * @reserved: must be 0
 */
struct hpu_cs_chunk {
	__u64 cb_handle;
	__u32 queue_index;
	__u32 cb_size;
	__u32 flags;
	__u32 pad;
	__u64 reserved;
};

/* Largest hpu_cs_in.timeout_ms (1 hour); a larger one is -EINVAL */
#define HPU_CS_TIMEOUT_MAX_MS 3600000U
/* Largest number of chunks of a HPU_CS_FLAGS_WAIT submission (-EINVAL) */
#define HPU_WAIT_MAX_CHUNKS   64

#define HPU_CS_FLAGS_SIGNAL    (1U << 0) /* signal a sync object on completion */
#define HPU_CS_FLAGS_WAIT      (1U << 1) /* chunk waits on earlier CSs */
#define HPU_CS_FLAGS_TIMESTAMP (1U << 2) /* record completion timestamp */
#define HPU_CS_FLAGS_MASK      0x7U

/**
 * struct hpu_cs_in - CS input
 * @chunks_execute: user address of an array of struct hpu_cs_chunk
 * @num_chunks_execute: entries in the array, 1..HPU_MAX_JOBS_PER_CS
 *	(HPU_CS_FLAGS_WAIT: 1..HPU_WAIT_MAX_CHUNKS)
 * @timeout_ms: per-CS timeout in ms, at most HPU_CS_TIMEOUT_MAX_MS; 0
 *	selects the driver default
 * @cs_flags: HPU_CS_FLAGS_*
 * @pad: must be 0
 * @reserved: must be 0
 */
struct hpu_cs_in {
	__u64 chunks_execute;
	__u32 num_chunks_execute;
	__u32 timeout_ms;
	__u32 cs_flags;
	__u32 pad;
	__u64 reserved;
};

/* hpu_cs_out.status */
#define HPU_CS_STATUS_SUCCESS  0
#define HPU_CS_STATUS_TIMEDOUT 1
#define HPU_CS_STATUS_ABORTED  2

/* hpu_cs_out.flags */
#define HPU_CS_OUT_FLAG_COMPLETED (1U << 0) /* done before the ioctl returned */

/**
 * struct hpu_cs_out - CS output
 * @seq: sequence number of the accepted CS (never 0 or ~0)
 * @status: HPU_CS_STATUS_* at submission
 * @flags: HPU_CS_OUT_FLAG_*: with COMPLETED the CS already ended and a
 *	WAIT_CS on @seq returns at once (its final status)
 * @reserved: 0
 */
struct hpu_cs_out {
	__u64 seq;
	__u32 status;
	__u32 flags;
	__u64 reserved;
};

/**
 * union hpu_cs_args - argument of HPU_IOCTL_CS
 * @in: input
 * @out: output
 */
union hpu_cs_args {
	struct hpu_cs_in in;
	struct hpu_cs_out out;
};

/* ------------------------------------------------------------------ */
/* WAIT_CS                                                             */
/* ------------------------------------------------------------------ */

#define HPU_WAIT_CS_FLAGS_MULTI_CS (1U << 0) /* seq is an array pointer */
#define HPU_WAIT_CS_FLAGS_ANY	   (1U << 1) /* multi: return on the first */
#define HPU_WAIT_CS_FLAGS_MASK	   0x3U

/* Largest array of a multi-CS wait */
#define HPU_WAIT_MULTI_CS_MAX 32

/**
 * struct hpu_wait_cs_in - WAIT_CS input
 * @seq: sequence number, or with HPU_WAIT_CS_FLAGS_MULTI_CS the user
 *	address of a __u64 array of sequence numbers
 * @timeout_us: how long to wait; 0 polls without blocking
 * @flags: HPU_WAIT_CS_FLAGS_*
 * @seq_arr_len: MULTI_CS: entries in the array, 1..HPU_WAIT_MULTI_CS_MAX;
 *	otherwise 0
 * @reserved: must be 0
 */
struct hpu_wait_cs_in {
	__u64 seq;
	__u64 timeout_us;
	__u32 flags;
	__u32 seq_arr_len;
	__u64 reserved;
};

/* hpu_wait_cs_out.status */
#define HPU_WAIT_CS_STATUS_COMPLETED 0
#define HPU_WAIT_CS_STATUS_BUSY	     1
#define HPU_WAIT_CS_STATUS_TIMEDOUT  2
#define HPU_WAIT_CS_STATUS_ABORTED   3

#define HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD (1U << 0)

/**
 * struct hpu_wait_cs_out - WAIT_CS output
 * @timestamp_nsec: completion time (device clock) when
 *	HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD is set
 * @status: HPU_WAIT_CS_STATUS_*
 * @flags: HPU_WAIT_CS_OUT_FLAG_*
 * @cs_completion_map: MULTI_CS: bit i set when array entry i completed
 * @pad: 0
 */
struct hpu_wait_cs_out {
	__u64 timestamp_nsec;
	__u32 status;
	__u32 flags;
	__u32 cs_completion_map;
	__u32 pad;
};

/**
 * union hpu_wait_cs_args - argument of HPU_IOCTL_WAIT_CS
 * @in: input
 * @out: output
 */
union hpu_wait_cs_args {
	struct hpu_wait_cs_in in;
	struct hpu_wait_cs_out out;
};

/* ------------------------------------------------------------------ */
/* MEMORY                                                              */
/* ------------------------------------------------------------------ */

#define HPU_MEM_OP_ALLOC   0 /* allocate device memory */
#define HPU_MEM_OP_FREE	   1 /* free an allocation */
#define HPU_MEM_OP_MAP	   2 /* map an allocation or host memory */
#define HPU_MEM_OP_UNMAP   3 /* unmap a device VA */
#define HPU_MEM_OP_EXPORT  4 /* export an allocation as a shm file */
#define HPU_MEM_OP_MAP_SHM 5 /* map a shared-memory file of the caller */

#define HPU_MEM_CONTIGUOUS (1U << 0) /* ALLOC: physically contiguous */
#define HPU_MEM_USERPTR	   (1U << 1) /* MAP: host memory of the caller */
#define HPU_MEM_FIXED	   (1U << 2) /* MAP, MAP_SHM: the hint is mandatory */
#define HPU_MEM_SRAM	   (1U << 3) /* ALLOC: from on-chip SRAM, not HBM */
#define HPU_MEM_FLAGS_MASK 0xfU

/**
 * struct hpu_mem_in - MEMORY input
 * @size: ALLOC: bytes; MAP|USERPTR: bytes of host memory; EXPORT: 0;
 *	MAP_SHM: bytes of the file to map (> 0, a multiple of 4096)
 * @page_size: ALLOC: page size (a bit of page_size_mask) or 0 for the
 *	default; MAP_SHM: reused as the offset in the file (a multiple of
 *	4096)
 * @handle: FREE/EXPORT/MAP (device memory): allocation handle; MAP_SHM:
 *	reused as a file descriptor number in the calling process, open on
 *	a regular shared-memory file (memfd, tmpfs); the driver maps the
 *	file itself, so the device reaches the memory without copying
 *	through the caller (pinned host memory)
 * @host_virt_addr: MAP|USERPTR: user address of the host memory;
 *	MAP_SHM: 0
 * @device_virt_addr: UNMAP: device VA returned by MAP or MAP_SHM; MAP,
 *	MAP_SHM: address hint (mandatory with HPU_MEM_FIXED) or 0
 * @op: HPU_MEM_OP_*
 * @flags: HPU_MEM_* bits valid for @op
 * @reserved: must be 0
 */
struct hpu_mem_in {
	__u64 size;
	__u64 page_size;
	__u64 handle;
	__u64 host_virt_addr;
	__u64 device_virt_addr;
	__u32 op;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct hpu_mem_out - MEMORY output
 * @handle: ALLOC: new handle, valid in the calling context only
 * @device_virt_addr: MAP, MAP_SHM: device VA of the mapping
 * @export_id: EXPORT: id of the shared-memory file (docs/abi.md)
 * @size: ALLOC/EXPORT: bytes actually reserved (rounded to pages)
 * @reserved: 0
 */
struct hpu_mem_out {
	__u64 handle;
	__u64 device_virt_addr;
	__u64 export_id;
	__u64 size;
	__u64 reserved[3];
};

/**
 * union hpu_mem_args - argument of HPU_IOCTL_MEMORY
 * @in: input
 * @out: output
 */
union hpu_mem_args {
	struct hpu_mem_in in;
	struct hpu_mem_out out;
};

/* ------------------------------------------------------------------ */
/* NIC: memory registration for remote writes, connections to peers    */
/* ------------------------------------------------------------------ */

#define HPU_NIC_OP_REG_MR     0 /* register device memory for remote writes */
#define HPU_NIC_OP_DEREG_MR   1 /* revoke a registration */
#define HPU_NIC_OP_CONNECT    2 /* connect a NIC port to a peer device */
#define HPU_NIC_OP_DISCONNECT 3 /* drop a connection or an acceptance */
#define HPU_NIC_OP_ACCEPT     4 /* let a peer's connection write here (1.1) */

/* hpu_nic_in.flags of REG_MR */
#define HPU_NIC_MR_REMOTE_WRITE (1U << 0) /* peers may write (required) */
#define HPU_NIC_MR_FLAGS_MASK	0x1U

/* Registrations, connections and acceptances a context may hold at once */
#define HPU_NIC_MAX_MRS	    256
#define HPU_NIC_MAX_CONNS   256
#define HPU_NIC_MAX_ACCEPTS 256

/**
 * struct hpu_nic_in - NIC input
 * @addr: REG_MR: device VA of the region (HBM, SRAM or pinned host
 *	memory mapped in the calling context, the whole range mapped);
 *	other ops: 0
 * @size: REG_MR: bytes of the region, > 0; other ops: 0
 * @op: HPU_NIC_OP_*
 * @flags: REG_MR: HPU_NIC_MR_* (REMOTE_WRITE required); other ops: 0
 * @handle: DEREG_MR: the region's handle (hpu_nic_out.handle of REG_MR,
 *	not its key); DISCONNECT: a connection id returned by CONNECT or
 *	an acceptance id returned by ACCEPT; other ops: 0
 * @port: CONNECT: local NIC port; a scale-up port must be the one wired
 *	to @remote_device (struct hpu_info_nic.port_peer), a scale-out port
 *	must name another server; other ops: 0
 * @remote_ipv4: CONNECT: IPv4 address (network byte order) of the remote
 *	server's scale-out endpoint, or 0 for a device of this server;
 *	other ops: 0
 * @remote_device: CONNECT: device index in the remote (or this) server;
 *	other ops: 0
 * @remote_port: CONNECT: TCP port (host byte order) of the remote
 *	server's scale-out endpoint, 0 with @remote_ipv4 0; other ops: 0
 * @pad0: must be 0
 * @pad1: must be 0
 * @token: ACCEPT: the token of the peer's connection (its
 *	hpu_nic_out.token of CONNECT, passed along by the peer), never 0;
 *	other ops: 0 (the reserved member of ABI 1.0)
 */
struct hpu_nic_in {
	__u64 addr;
	__u64 size;
	__u32 op;
	__u32 flags;
	__u32 handle;
	__u32 port;
	__u32 remote_ipv4;
	__u32 remote_device;
	__u16 remote_port;
	__u16 pad0;
	__u32 pad1;
	__u64 token;
};

/**
 * struct hpu_nic_out - NIC output
 * @handle: REG_MR: the region's handle (never 0) for DEREG_MR, valid in
 *	the calling context only; CONNECT: connection id (never 0), valid
 *	in the calling context only, for struct hpu_pkt_nic_write.conn;
 *	ACCEPT: acceptance id (never 0) for DISCONNECT; other ops: 0
 * @pad: 0
 * @size: REG_MR: bytes registered; other ops: 0
 * @rkey: REG_MR: the region's key, the value peers put in
 *	struct hpu_pkt_nic_write.rkey: 64 bits, unpredictable, never 0 and
 *	never handed out again on the device; other ops: 0
 * @token: CONNECT: the connection's token (unpredictable, never 0): the
 *	owner of the memory this connection is to write passes it to
 *	ACCEPT; other ops: 0
 * @reserved: 0
 *
 * A write reaches a region only over a connection that the region's
 * context accepted (docs/nic.md, "Protection domains").
 */
struct hpu_nic_out {
	__u32 handle;
	__u32 pad;
	__u64 size;
	__u64 rkey;
	__u64 token;
	__u64 reserved[3];
};

/**
 * union hpu_nic_args - argument of HPU_IOCTL_NIC
 * @in: input
 * @out: output
 */
union hpu_nic_args {
	struct hpu_nic_in in;
	struct hpu_nic_out out;
};

/* ------------------------------------------------------------------ */
/* DEBUG: fault injection and engine status                            */
/* ------------------------------------------------------------------ */

#define HPU_DEBUG_OP_INJECT_FAULT  0 /* arm a fault (root or owner) */
#define HPU_DEBUG_OP_CLEAR_FAULTS  1 /* disarm every fault (root or owner) */
#define HPU_DEBUG_OP_ENGINE_STATUS 2 /* text dump of engine states */

/* hpu_debug_args.fault */
#define HPU_FAULT_ENGINE_HANG 0 /* engine stops completing work */
#define HPU_FAULT_PAGE_FAULT  1 /* next access of @engine faults */
#define HPU_FAULT_ECC_ERR     2 /* HBM ECC error (correctable: param 0) */
#define HPU_FAULT_LINK_DOWN   3 /* NIC port @engine goes down */
#define HPU_FAULT_DEVICE_ERR  4 /* device needs a hard reset */
#define HPU_FAULT_MAX	      5

/**
 * struct hpu_debug_args - argument of HPU_IOCTL_DEBUG
 * @input_ptr: op-specific input buffer (user address) or 0
 * @output_ptr: op-specific output buffer (user address) or 0
 * @input_size: bytes at @input_ptr
 * @output_size: bytes at @output_ptr
 * @op: HPU_DEBUG_OP_*
 * @flags: must be 0
 * @fault: INJECT_FAULT: HPU_FAULT_*
 * @engine: INJECT_FAULT: engine id or NIC port the fault applies to
 * @param: INJECT_FAULT: fault-specific parameter
 * @reserved: must be 0
 */
struct hpu_debug_args {
	__u64 input_ptr;
	__u64 output_ptr;
	__u32 input_size;
	__u32 output_size;
	__u32 op;
	__u32 flags;
	__u32 fault;
	__u32 engine;
	__u64 param;
	__u64 reserved;
};

/* ------------------------------------------------------------------ */
/* Events returned by read() on a device node                          */
/* ------------------------------------------------------------------ */

/**
 * struct hpu_event - one record returned by read()
 * @timestamp_ns: host CLOCK_MONOTONIC when the event was raised
 * @seq: CS sequence number concerned, or 0
 * @addr: faulting device VA (PAGE_FAULT), port (LINK_DOWN), or 0
 * @data: event-specific details (docs/abi.md)
 * @type: HPU_EVENT_*
 * @engine: engine id concerned, or ~0
 * @flags: 0
 * @pad: 0
 */
struct hpu_event {
	__u64 timestamp_ns;
	__u64 seq;
	__u64 addr;
	__u64 data;
	__u32 type;
	__u32 engine;
	__u32 flags;
	__u32 pad;
};

/* ------------------------------------------------------------------ */
/* Command numbers                                                     */
/* ------------------------------------------------------------------ */

#define HPU_COMMAND_INFO    0x00
#define HPU_COMMAND_CB	    0x01
#define HPU_COMMAND_CS	    0x02
#define HPU_COMMAND_WAIT_CS 0x03
#define HPU_COMMAND_MEMORY  0x04
#define HPU_COMMAND_DEBUG   0x05
#define HPU_COMMAND_NIC	    0x06
#define HPU_COMMAND_RING    0x07 /* HPU_IOCTL_RING: uapi/hpu_ring.h */
#define HPU_COMMAND_END	    0x08

#define HPU_IOCTL_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_INFO, struct hpu_info_args)
#define HPU_IOCTL_CB \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_CB, union hpu_cb_args)
#define HPU_IOCTL_CS \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_CS, union hpu_cs_args)
#define HPU_IOCTL_WAIT_CS \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_WAIT_CS, union hpu_wait_cs_args)
#define HPU_IOCTL_MEMORY \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_MEMORY, union hpu_mem_args)
#define HPU_IOCTL_DEBUG \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_DEBUG, struct hpu_debug_args)
#define HPU_IOCTL_NIC \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_NIC, union hpu_nic_args)

#endif /* HPU_UAPI_ACCEL_H */
