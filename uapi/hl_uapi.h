/* SPDX-License-Identifier: MIT */
/*
 * hl_uapi.h - the facts of the Linux habanalabs accel ABI that hpu-fused's
 * habanalabs personality speaks (docs/habanalabs.md).
 *
 * Written for this project from the public facts of the kernel's
 * include/uapi/drm/habanalabs_accel.h (request codes, struct layouts and
 * sizes, op and enum values) and of the Gaudi2 PCI id and event count.
 * Only what the personality serves or checks is here; names follow the
 * real header so that its documentation applies. A client built against
 * the real header talks to the personality unchanged; this header is for
 * the daemon and the project's own tests.
 *
 * Two request-code sets reach the same handlers:
 *  - the 'H' codes of Linux <= 6.4: _IOWR('H', 1..6, ...), HL_IOCTL_*;
 *  - the DRM codes of Linux >= 6.7: DRM_IOWR(DRM_COMMAND_BASE + 0..5, ...),
 *    DRM_IOCTL_HL_*.
 * The struct sizes (and so the _IOC_SIZE of both sets) are the same.
 */
#ifndef HL_UAPI_H
#define HL_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* PCI device ids (hl-thunk's enum hl_pci_ids) */
#define HL_PCI_VENDOR_ID_HABANALABS 0x1da3
#define HL_PCI_IDS_GAUDI2	    0x1020

/* Gaudi2 facts the personality answers with */
#define HL_GAUDI2_NUM_EVENTS	 1322 /* GAUDI2_EVENT_SIZE */
#define HL_GAUDI2_NUM_DCORES	 4
#define HL_MAX_DCORES		 8 /* SYNC_MANAGER: dcore_id below this */
#define HL_GAUDI2_QUEUE_ID_SIZE	 261
#define HL_GAUDI2_ENGINE_ID_SIZE 82

/* INFO ops (hl_info_args.op); 5, 19 and 20 are not ops */
#define HL_INFO_HW_IP_INFO		 0
#define HL_INFO_HW_EVENTS		 1
#define HL_INFO_DRAM_USAGE		 2
#define HL_INFO_HW_IDLE			 3
#define HL_INFO_DEVICE_STATUS		 4
#define HL_INFO_DEVICE_UTILIZATION	 6
#define HL_INFO_HW_EVENTS_AGGREGATE	 7
#define HL_INFO_CLK_RATE		 8
#define HL_INFO_RESET_COUNT		 9
#define HL_INFO_TIME_SYNC		 10
#define HL_INFO_CS_COUNTERS		 11
#define HL_INFO_PCI_COUNTERS		 12
#define HL_INFO_CLK_THROTTLE_REASON	 13
#define HL_INFO_SYNC_MANAGER		 14
#define HL_INFO_TOTAL_ENERGY		 15
#define HL_INFO_PLL_FREQUENCY		 16
#define HL_INFO_POWER			 17
#define HL_INFO_OPEN_STATS		 18
#define HL_INFO_DRAM_REPLACED_ROWS	 21
#define HL_INFO_DRAM_PENDING_ROWS	 22
#define HL_INFO_LAST_ERR_OPEN_DEV_TIME	 23
#define HL_INFO_CS_TIMEOUT_EVENT	 24
#define HL_INFO_RAZWI_EVENT		 25
#define HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES 26
#define HL_INFO_SECURED_ATTESTATION	 27
#define HL_INFO_REGISTER_EVENTFD	 28
#define HL_INFO_UNREGISTER_EVENTFD	 29
#define HL_INFO_GET_EVENTS		 30
#define HL_INFO_UNDEFINED_OPCODE_EVENT	 31
#define HL_INFO_ENGINE_STATUS		 32
#define HL_INFO_PAGE_FAULT_EVENT	 33
#define HL_INFO_USER_MAPPINGS		 34
#define HL_INFO_FW_GENERIC_REQ		 35
#define HL_INFO_HW_ERR_EVENT		 36
#define HL_INFO_FW_ERR_EVENT		 37

#define HL_INFO_VERSION_MAX_LEN	  128
#define HL_INFO_CARD_NAME_MAX_LEN 16

/* enum hl_device_status */
#define HL_DEVICE_STATUS_OPERATIONAL	    0
#define HL_DEVICE_STATUS_IN_RESET	    1
#define HL_DEVICE_STATUS_MALFUNCTION	    2
#define HL_DEVICE_STATUS_NEEDS_RESET	    3
#define HL_DEVICE_STATUS_IN_DEVICE_CREATION 4

/* enum hl_server_type (Gaudi2 values) */
#define HL_SERVER_TYPE_UNKNOWN 0
#define HL_SERVER_GAUDI2_HLS2  5

/* enum hl_gaudi2_pll_index: CPU, PCI, SRAM, HBM, NIC, DMA, MESH, MME,
 * TPC, IF, VID, MSS */
#define HL_GAUDI2_PLL_MAX  12
#define HL_PLL_NUM_OUTPUTS 4

/* enum hl_clk_throttling_type */
#define HL_CLK_THROTTLE_TYPE_MAX 2

#define HL_BUSY_ENGINES_MASK_EXT_SIZE	    4
#define HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR 128
#define MAX_QMAN_STREAMS_INFO		    4
#define OPCODE_INFO_MAX_ADDR_SIZE	    8
#define HL_DRAM_ROW_REPLACE_MAX		    32

/**
 * struct hl_info_args - INFO request (24 bytes)
 * @return_pointer: where the answer goes
 * @return_size: room there; the answer is cut to it (never 0)
 * @op: HL_INFO_*
 * @dcore_id: SYNC_MANAGER: the DCORE (below HL_MAX_DCORES)
 * @ctx_id: unused
 * @period_ms: DEVICE_UTILIZATION (the driver does not use it)
 * @pll_index: PLL_FREQUENCY: enum hl_gaudi2_pll_index
 * @eventfd: REGISTER_EVENTFD
 * @user_buffer_actual_size: ENGINE_STATUS, out
 * @sec_attest_nonce: SECURED_ATTESTATION
 * @array_size: USER_MAPPINGS
 * @fw_sub_opcode: FW_GENERIC_REQ
 * @pad: must be 0
 */
struct hl_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;
	union {
		__u32 dcore_id;
		__u32 ctx_id;
		__u32 period_ms;
		__u32 pll_index;
		__u32 eventfd;
		__u32 user_buffer_actual_size;
		__u32 sec_attest_nonce;
		__u32 array_size;
		__u32 fw_sub_opcode;
	};
	__u32 pad;
};

/**
 * struct hl_info_hw_ip_info - HW_IP_INFO answer (304 bytes)
 * @sram_base_address: first SRAM address the user may use
 * @dram_base_address: first DRAM (virtual) address the user may use
 * @dram_size: DRAM the user may use
 * @sram_size: SRAM the user may use
 * @num_of_events: entries of the HW_EVENTS array
 * @device_id: PCI device id (Gaudi2: 0x1020)
 * @module_id: OAM module id
 * @decoder_enabled_mask: enabled video decoders
 * @first_available_interrupt_id: first user interrupt
 * @server_type: enum hl_server_type
 * @cpld_version: board CPLD version
 * @psoc_pci_pll_nr: PCI PLL NR
 * @psoc_pci_pll_nf: PCI PLL NF
 * @psoc_pci_pll_od: PCI PLL OD
 * @psoc_pci_pll_div_factor: PCI PLL divider
 * @tpc_enabled_mask: enabled TPCs (Goya/Gaudi)
 * @dram_enabled: DRAM usable
 * @security_enabled: secured device
 * @mme_master_slave_mode: MME master/slave configuration
 * @cpucp_version: firmware version string
 * @card_name: card name string
 * @tpc_enabled_mask_ext: enabled TPCs (Gaudi2 on)
 * @dram_page_size: DRAM page size
 * @edma_enabled_mask: enabled EDMAs
 * @number_of_user_interrupts: user interrupts
 * @reserved1: 0
 * @reserved2: 0
 * @reserved3: 0
 * @device_mem_alloc_default_page_size: default page of device allocations
 * @reserved4: 0
 * @reserved5: 0
 * @reserved6: 0
 * @reserved7: 0
 * @revision_id: PCI revision id
 * @tpc_interrupt_id: TPC interrupt id
 * @rotator_enabled_mask: enabled rotators
 * @reserved9: 0
 * @engine_core_interrupt_reg_addr: engine core interrupt register
 * @reserved_dram_size: DRAM kept by driver and firmware
 */
struct hl_info_hw_ip_info {
	__u64 sram_base_address;
	__u64 dram_base_address;
	__u64 dram_size;
	__u32 sram_size;
	__u32 num_of_events;
	__u32 device_id;
	__u32 module_id;
	__u32 decoder_enabled_mask;
	__u16 first_available_interrupt_id;
	__u16 server_type;
	__u32 cpld_version;
	__u32 psoc_pci_pll_nr;
	__u32 psoc_pci_pll_nf;
	__u32 psoc_pci_pll_od;
	__u32 psoc_pci_pll_div_factor;
	__u8 tpc_enabled_mask;
	__u8 dram_enabled;
	__u8 security_enabled;
	__u8 mme_master_slave_mode;
	__u8 cpucp_version[HL_INFO_VERSION_MAX_LEN];
	__u8 card_name[HL_INFO_CARD_NAME_MAX_LEN];
	__u64 tpc_enabled_mask_ext;
	__u64 dram_page_size;
	__u32 edma_enabled_mask;
	__u16 number_of_user_interrupts;
	__u8 reserved1;
	__u8 reserved2;
	__u64 reserved3;
	__u64 device_mem_alloc_default_page_size;
	__u64 reserved4;
	__u64 reserved5;
	__u32 reserved6;
	__u8 reserved7;
	__u8 revision_id;
	__u16 tpc_interrupt_id;
	__u32 rotator_enabled_mask;
	__u32 reserved9;
	__u64 engine_core_interrupt_reg_addr;
	__u64 reserved_dram_size;
};

/**
 * struct hl_info_dram_usage - DRAM_USAGE answer (16 bytes)
 * @dram_free_mem: free DRAM of the device
 * @ctx_dram_mem: DRAM the caller's context holds
 */
struct hl_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
};

/**
 * struct hl_info_hw_idle - HW_IDLE answer (40 bytes)
 * @is_idle: 1 when every engine is idle
 * @busy_engines_mask: busy engines 0..31 (enum gaudi2_engine_id)
 * @busy_engines_mask_ext: busy engines, all of them
 */
struct hl_info_hw_idle {
	__u32 is_idle;
	__u32 busy_engines_mask;
	__u64 busy_engines_mask_ext[HL_BUSY_ENGINES_MASK_EXT_SIZE];
};

/**
 * struct hl_info_device_status - DEVICE_STATUS answer (8 bytes)
 * @status: HL_DEVICE_STATUS_*
 * @pad: 0
 */
struct hl_info_device_status {
	__u32 status;
	__u32 pad;
};

/**
 * struct hl_info_device_utilization - DEVICE_UTILIZATION answer (8 bytes)
 * @utilization: percent busy
 * @pad: 0
 */
struct hl_info_device_utilization {
	__u32 utilization;
	__u32 pad;
};

/**
 * struct hl_info_clk_rate - CLK_RATE answer (8 bytes)
 * @cur_clk_rate_mhz: current core clock
 * @max_clk_rate_mhz: maximum core clock
 */
struct hl_info_clk_rate {
	__u32 cur_clk_rate_mhz;
	__u32 max_clk_rate_mhz;
};

/**
 * struct hl_info_reset_count - RESET_COUNT answer (8 bytes)
 * @hard_reset_cnt: hard resets
 * @soft_reset_cnt: soft (compute) resets
 */
struct hl_info_reset_count {
	__u32 hard_reset_cnt;
	__u32 soft_reset_cnt;
};

/**
 * struct hl_info_time_sync - TIME_SYNC answer (16 bytes)
 * @device_time: device timestamp counter
 * @host_time: host CLOCK_MONOTONIC_RAW in ns, read beside it
 */
struct hl_info_time_sync {
	__u64 device_time;
	__u64 host_time;
};

/**
 * struct hl_info_pci_counters - PCI_COUNTERS answer (24 bytes)
 * @rx_throughput: PCI rx KB/s
 * @tx_throughput: PCI tx KB/s
 * @replay_cnt: PCI replays
 */
struct hl_info_pci_counters {
	__u64 rx_throughput;
	__u64 tx_throughput;
	__u64 replay_cnt;
};

/**
 * struct hl_info_clk_throttle - CLK_THROTTLE_REASON answer (40 bytes)
 * @clk_throttling_reason: bit per enum hl_clk_throttling_type in force
 * @pad: 0
 * @clk_throttling_timestamp_us: start of each throttling, host us
 * @clk_throttling_duration_ns: length of each throttling
 */
struct hl_info_clk_throttle {
	__u32 clk_throttling_reason;
	__u32 pad;
	__u64 clk_throttling_timestamp_us[HL_CLK_THROTTLE_TYPE_MAX];
	__u64 clk_throttling_duration_ns[HL_CLK_THROTTLE_TYPE_MAX];
};

/**
 * struct hl_info_energy - TOTAL_ENERGY answer (8 bytes)
 * @total_energy_consumption: energy since the device started
 */
struct hl_info_energy {
	__u64 total_energy_consumption;
};

/**
 * struct hl_pll_frequency_info - PLL_FREQUENCY answer (8 bytes)
 * @output: the PLL's four outputs, MHz
 */
struct hl_pll_frequency_info {
	__u16 output[HL_PLL_NUM_OUTPUTS];
};

/**
 * struct hl_open_stats_info - OPEN_STATS answer (24 bytes)
 * @open_counter: successful compute opens
 * @last_open_period_ms: how long the last compute context was open
 * @is_compute_ctx_active: a compute context is open
 * @compute_ctx_in_release: the compute context is being torn down
 * @pad: 0
 */
struct hl_open_stats_info {
	__u64 open_counter;
	__u64 last_open_period_ms;
	__u8 is_compute_ctx_active;
	__u8 compute_ctx_in_release;
	__u8 pad[6];
};

/**
 * struct hl_power_info - POWER answer (8 bytes)
 * @power: board power
 */
struct hl_power_info {
	__u64 power;
};

/**
 * struct hl_info_sync_manager - SYNC_MANAGER answer (16 bytes)
 * @first_available_sync_object: first SOB the user may use
 * @first_available_monitor: first monitor the user may use
 * @first_available_cq: first CQ the user may use
 * @reserved: 0
 */
struct hl_info_sync_manager {
	__u32 first_available_sync_object;
	__u32 first_available_monitor;
	__u32 first_available_cq;
	__u32 reserved;
};

/**
 * struct hl_info_cs_counters - CS_COUNTERS answer (96 bytes): submissions
 * dropped, device-wide (total_) and of the caller's context (ctx_)
 * @total_out_of_mem_drop_cnt: for want of memory
 * @ctx_out_of_mem_drop_cnt: likewise, the context
 * @total_parsing_drop_cnt: for a packet the parser refused
 * @ctx_parsing_drop_cnt: likewise, the context
 * @total_queue_full_drop_cnt: for a full queue
 * @ctx_queue_full_drop_cnt: likewise, the context
 * @total_device_in_reset_drop_cnt: for a device in reset
 * @ctx_device_in_reset_drop_cnt: likewise, the context
 * @total_max_cs_in_flight_drop_cnt: for too many CSs in flight
 * @ctx_max_cs_in_flight_drop_cnt: likewise, the context
 * @total_validation_drop_cnt: for a failed validation
 * @ctx_validation_drop_cnt: likewise, the context
 */
struct hl_info_cs_counters {
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
	__u64 total_validation_drop_cnt;
	__u64 ctx_validation_drop_cnt;
};

/**
 * struct hl_info_last_err_open_dev_time - LAST_ERR_OPEN_DEV_TIME answer
 * (8 bytes)
 * @timestamp: open time of the last context that saw an error
 */
struct hl_info_last_err_open_dev_time {
	__s64 timestamp;
};

/**
 * struct hl_info_cs_timeout_event - CS_TIMEOUT_EVENT answer (16 bytes)
 * @timestamp: when the last CS timed out
 * @seq: its sequence number
 */
struct hl_info_cs_timeout_event {
	__s64 timestamp;
	__u64 seq;
};

/**
 * struct hl_info_razwi_event - RAZWI_EVENT answer (280 bytes)
 * @timestamp: when (0: none captured)
 * @addr: the address accessed
 * @engine_id: possible initiators
 * @num_of_possible_engines: entries of @engine_id
 * @flags: HL_RAZWI_* bits
 * @pad: 0
 */
struct hl_info_razwi_event {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id[HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR];
	__u16 num_of_possible_engines;
	__u8 flags;
	__u8 pad[5];
};

/**
 * struct hl_info_undefined_opcode_event - UNDEFINED_OPCODE_EVENT answer
 * (288 bytes)
 * @timestamp: when (0: none captured)
 * @cb_addr_streams: CB addresses per stream
 * @cq_addr: address of the CB being run
 * @cq_size: its size
 * @cb_addr_streams_len: streams in @cb_addr_streams
 * @engine_id: engine
 * @stream_id: stream
 */
struct hl_info_undefined_opcode_event {
	__s64 timestamp;
	__u64 cb_addr_streams[MAX_QMAN_STREAMS_INFO][OPCODE_INFO_MAX_ADDR_SIZE];
	__u64 cq_addr;
	__u32 cq_size;
	__u32 cb_addr_streams_len;
	__u32 engine_id;
	__u32 stream_id;
};

/**
 * struct hl_page_fault_info - PAGE_FAULT_EVENT answer (24 bytes)
 * @timestamp: when (0: none captured)
 * @addr: the faulting address
 * @engine_id: engine (Gaudi3 on)
 * @pad: 0
 */
struct hl_page_fault_info {
	__s64 timestamp;
	__u64 addr;
	__u16 engine_id;
	__u8 pad[6];
};

/**
 * struct hl_info_dev_memalloc_page_sizes - DEV_MEM_ALLOC_PAGE_SIZES
 * answer (8 bytes)
 * @page_order_bitmask: bit n set: pages of 2^n bytes may be asked for
 */
struct hl_info_dev_memalloc_page_sizes {
	__u64 page_order_bitmask;
};

/**
 * struct hl_dram_row_info - one replaced DRAM row (8 bytes)
 * @dram_idx: HBM
 * @pc: pseudo channel
 * @sid: stack id
 * @bank_idx: bank
 * @row_addr: row
 * @replaced_row_cause: why
 * @pad: 0
 */
struct hl_dram_row_info {
	__u8 dram_idx;
	__u8 pc;
	__u8 sid;
	__u8 bank_idx;
	__u16 row_addr;
	__u8 replaced_row_cause;
	__u8 pad;
};

/**
 * struct hl_dram_replaced_rows - DRAM_REPLACED_ROWS answer (264 bytes;
 * the firmware's cpucp_hbm_row_info)
 * @num_replaced_rows: entries of @replaced_rows in use
 * @pad: 0
 * @replaced_rows: the rows
 */
struct hl_dram_replaced_rows {
	__u16 num_replaced_rows;
	__u8 pad[6];
	struct hl_dram_row_info replaced_rows[HL_DRAM_ROW_REPLACE_MAX];
};

/* CB ops and flags */
#define HL_CB_OP_CREATE		  0
#define HL_CB_OP_DESTROY	  1
#define HL_CB_OP_INFO		  2
#define HL_MAX_CB_SIZE		  (0x200000 - 32)
#define HL_CB_FLAGS_MAP		  0x1
#define HL_CB_FLAGS_GET_DEVICE_VA 0x2

/**
 * struct hl_cb_in - CB request
 * @cb_handle: DESTROY/INFO: the CB
 * @op: HL_CB_OP_*
 * @cb_size: CREATE: bytes (at most HL_MAX_CB_SIZE)
 * @ctx_id: unused
 * @flags: HL_CB_FLAGS_*
 */
struct hl_cb_in {
	__u64 cb_handle;
	__u32 op;
	__u32 cb_size;
	__u32 ctx_id;
	__u32 flags;
};

/**
 * struct hl_cb_out - CB answer
 * @cb_handle: CREATE: the new CB
 * @usage_cnt: INFO: uses of the CB
 * @pad: 0
 * @device_va: INFO with HL_CB_FLAGS_GET_DEVICE_VA
 */
struct hl_cb_out {
	union {
		__u64 cb_handle;
		union {
			struct {
				__u32 usage_cnt;
				__u32 pad;
			};
			__u64 device_va;
		};
	};
};

/**
 * union hl_cb_args - CB argument (24 bytes)
 * @in: request
 * @out: answer
 */
union hl_cb_args {
	struct hl_cb_in in;
	struct hl_cb_out out;
};

/**
 * struct hl_cs_chunk - one job of a CS (64 bytes)
 * @cb_handle: the CB (a handle or a device address)
 * @queue_index: enum gaudi2_queue_id
 * @cb_size: bytes of the CB to run
 * @cs_chunk_flags: HL_CS_CHUNK_FLAGS_*
 * @collective_engine_id: collective wait only
 * @pad: 0
 */
struct hl_cs_chunk {
	__u64 cb_handle;
	__u32 queue_index;
	__u32 cb_size;
	__u32 cs_chunk_flags;
	__u32 collective_engine_id;
	__u32 pad[10];
};

/**
 * struct hl_cs_in - CS request (48 bytes)
 * @chunks_restore: user address of the restore-phase chunks
 * @chunks_execute: user address of the execute-phase chunks
 * @seq: staged submission: the first CS's sequence number
 * @num_chunks_restore: restore chunks
 * @num_chunks_execute: execute chunks
 * @timeout: HL_CS_FLAGS_CUSTOM_TIMEOUT: seconds
 * @cs_flags: HL_CS_FLAGS_*
 * @ctx_id: unused
 * @pad: 0
 */
struct hl_cs_in {
	__u64 chunks_restore;
	__u64 chunks_execute;
	__u64 seq;
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;
	__u32 cs_flags;
	__u32 ctx_id;
	__u8 pad[4];
};

/**
 * struct hl_cs_out - CS answer (24 bytes)
 * @seq: sequence number for WAIT_CS
 * @status: HL_CS_STATUS_*
 * @sob_base_addr_offset: SIGNAL/reserve: the SOB's offset
 * @sob_count_before_submission: SIGNAL: the SOB's count before
 * @pad: 0
 */
struct hl_cs_out {
	__u64 seq;
	__u32 status;
	__u32 sob_base_addr_offset;
	__u16 sob_count_before_submission;
	__u16 pad[3];
};

/**
 * union hl_cs_args - CS argument (48 bytes; the real header's engine
 * commands share the first 16 bytes of @in, not served here)
 * @in: request
 * @out: answer
 */
union hl_cs_args {
	struct hl_cs_in in;
	struct hl_cs_out out;
};

/**
 * struct hl_wait_cs_in - WAIT_CS request (56 bytes)
 * @seq: the CS (MULTI_CS: user address of the sequence array); with
 *	HL_WAIT_CS_FLAGS_INTERRUPT the real header's union `addr` (user
 *	address of the value) / `cq_counters_handle` (INTERRUPT_KERNEL_CQ)
 * @timeout_us: how long to wait; with INTERRUPT the real header's
 *	`target` (the value awaited)
 * @ctx_id: unused
 * @flags: HL_WAIT_CS_FLAGS_*
 * @seq_arr_len: MULTI_CS: entries
 * @pad: 0; with INTERRUPT, @seq_arr_len and @pad are the real header's
 *	union `interrupt_timeout_us` (8 bytes, host order)
 * @cq_counters_offset: interrupt wait on a kernel CQ
 * @timestamp_handle: interrupt registration
 * @timestamp_offset: interrupt registration
 */
struct hl_wait_cs_in {
	__u64 seq;
	__u64 timeout_us;
	__u32 ctx_id;
	__u32 flags;
	__u8 seq_arr_len;
	__u8 pad[7];
	__u64 cq_counters_offset;
	__u64 timestamp_handle;
	__u64 timestamp_offset;
};

/**
 * struct hl_wait_cs_out - WAIT_CS answer (24 bytes)
 * @status: HL_WAIT_CS_STATUS_*
 * @flags: HL_WAIT_CS_STATUS_FLAG_*
 * @timestamp_nsec: completion time with the TIMESTAMP_VLD flag
 * @cs_completion_map: MULTI_CS: which completed
 * @pad: 0
 */
struct hl_wait_cs_out {
	__u32 status;
	__u32 flags;
	__s64 timestamp_nsec;
	__u32 cs_completion_map;
	__u32 pad;
};

/**
 * union hl_wait_cs_args - WAIT_CS argument (56 bytes)
 * @in: request
 * @out: answer
 */
union hl_wait_cs_args {
	struct hl_wait_cs_in in;
	struct hl_wait_cs_out out;
};

/* MEMORY ops and flags */
#define HL_MEM_OP_ALLOC		   0
#define HL_MEM_OP_FREE		   1
#define HL_MEM_OP_MAP		   2
#define HL_MEM_OP_UNMAP		   3
#define HL_MEM_OP_MAP_BLOCK	   4
#define HL_MEM_OP_EXPORT_DMABUF_FD 5
#define HL_MEM_OP_TS_ALLOC	   6

#define HL_MEM_CONTIGUOUS 0x1
#define HL_MEM_SHARED	  0x2
#define HL_MEM_USERPTR	  0x4
#define HL_MEM_FORCE_HINT 0x8
#define HL_MEM_PREFETCH	  0x40

/**
 * struct hl_mem_in - MEMORY request (40 bytes)
 * @alloc: ALLOC: @alloc.mem_size bytes of pages of @alloc.page_size
 *	(0: the default)
 * @free: FREE: @free.handle of ALLOC
 * @map_device: MAP of device memory: @map_device.handle of ALLOC at
 *	@map_device.hint_addr (0: anywhere)
 * @map_host: MAP with HL_MEM_USERPTR: @map_host.mem_size bytes at
 *	@map_host.host_virt_addr, at @map_host.hint_addr (0: anywhere)
 * @map_block: MAP_BLOCK: @map_block.block_addr
 * @unmap: UNMAP: @unmap.device_virt_addr of MAP
 * @export_dmabuf_fd: EXPORT_DMABUF_FD
 * @op: HL_MEM_OP_*
 * @flags: HL_MEM_*
 * @ctx_id: unused
 * @num_of_elements: TS_ALLOC
 */
struct hl_mem_in {
	union {
		struct {
			__u64 mem_size;
			__u64 page_size;
		} alloc;
		struct {
			__u64 handle;
		} free;
		struct {
			__u64 hint_addr;
			__u64 handle;
		} map_device;
		struct {
			__u64 host_virt_addr;
			__u64 hint_addr;
			__u64 mem_size;
		} map_host;
		struct {
			__u64 block_addr;
		} map_block;
		struct {
			__u64 device_virt_addr;
		} unmap;
		struct {
			__u64 addr;
			__u64 mem_size;
			__u64 offset;
		} export_dmabuf_fd;
	};
	__u32 op;
	__u32 flags;
	__u32 ctx_id;
	__u32 num_of_elements;
};

/**
 * struct hl_mem_out - MEMORY answer
 * @device_virt_addr: MAP: the device address
 * @handle: ALLOC: the allocation
 * @block_handle: MAP_BLOCK: the block
 * @block_size: MAP_BLOCK: its size
 * @pad: 0
 * @fd: EXPORT_DMABUF_FD
 */
struct hl_mem_out {
	union {
		__u64 device_virt_addr;
		__u64 handle;
		struct {
			__u64 block_handle;
			__u32 block_size;
			__u32 pad;
		};
		__s32 fd;
	};
};

/**
 * union hl_mem_args - MEMORY argument (40 bytes)
 * @in: request
 * @out: answer
 */
union hl_mem_args {
	struct hl_mem_in in;
	struct hl_mem_out out;
};

/* DEBUG ops: trace blocks (ETR .. TIMESTAMP), then SET_MODE */
#define HL_DEBUG_OP_ETR	      0
#define HL_DEBUG_OP_ETF	      1
#define HL_DEBUG_OP_STM	      2
#define HL_DEBUG_OP_FUNNEL    3
#define HL_DEBUG_OP_BMON      4
#define HL_DEBUG_OP_SPMU      5
#define HL_DEBUG_OP_TIMESTAMP 6
#define HL_DEBUG_OP_SET_MODE  7

/**
 * struct hl_debug_args - DEBUG request (40 bytes)
 * @input_ptr: op's input
 * @output_ptr: op's output
 * @input_size: bytes at @input_ptr
 * @output_size: bytes at @output_ptr
 * @op: HL_DEBUG_OP_*
 * @reg_idx: register of the component
 * @enable: enable or disable
 * @ctx_id: unused
 */
struct hl_debug_args {
	__u64 input_ptr;
	__u64 output_ptr;
	__u32 input_size;
	__u32 output_size;
	__u32 op;
	__u32 reg_idx;
	__u32 enable;
	__u32 ctx_id;
};

/* Linux <= 6.4: the 'H' request codes */
#define HL_IOCTL_INFO		_IOWR('H', 0x01, struct hl_info_args)
#define HL_IOCTL_CB		_IOWR('H', 0x02, union hl_cb_args)
#define HL_IOCTL_CS		_IOWR('H', 0x03, union hl_cs_args)
#define HL_IOCTL_WAIT_CS	_IOWR('H', 0x04, union hl_wait_cs_args)
#define HL_IOCTL_MEMORY		_IOWR('H', 0x05, union hl_mem_args)
#define HL_IOCTL_DEBUG		_IOWR('H', 0x06, struct hl_debug_args)
#define HL_LEGACY_COMMAND_START 0x01
#define HL_LEGACY_COMMAND_END	0x07

/* Linux >= 6.7: the DRM request codes (driver commands 0..5 above
 * DRM_COMMAND_BASE 0x40 of DRM_IOCTL_BASE 'd') */
#define HL_DRM_IOCTL_BASE   'd'
#define HL_DRM_COMMAND_BASE 0x40
#define HL_DRM_CMD_INFO	    0x00
#define HL_DRM_CMD_CB	    0x01
#define HL_DRM_CMD_CS	    0x02
#define HL_DRM_CMD_WAIT_CS  0x03
#define HL_DRM_CMD_MEMORY   0x04
#define HL_DRM_CMD_DEBUG    0x05
#define HL_DRM_CMD_END	    0x06
#define DRM_IOCTL_HL_INFO                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_INFO, \
	      struct hl_info_args)
#define DRM_IOCTL_HL_CB                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_CB, \
	      union hl_cb_args)
#define DRM_IOCTL_HL_CS                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_CS, \
	      union hl_cs_args)
#define DRM_IOCTL_HL_WAIT_CS                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_WAIT_CS, \
	      union hl_wait_cs_args)
#define DRM_IOCTL_HL_MEMORY                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_MEMORY, \
	      union hl_mem_args)
#define DRM_IOCTL_HL_DEBUG                                               \
	_IOWR(HL_DRM_IOCTL_BASE, HL_DRM_COMMAND_BASE + HL_DRM_CMD_DEBUG, \
	      struct hl_debug_args)

/* ------------------------------------------------------------------ */
/* CS and WAIT_CS values (hl16b)                                       */
/* ------------------------------------------------------------------ */

/* hl_cs_chunk.cs_chunk_flags: cb_handle is a device VA (a user CB) */
#define HL_CS_CHUNK_FLAGS_USER_ALLOC_CB 0x1

/* hl_cs_in.cs_flags */
#define HL_CS_FLAGS_FORCE_RESTORE	    0x1
#define HL_CS_FLAGS_SIGNAL		    0x2
#define HL_CS_FLAGS_WAIT		    0x4
#define HL_CS_FLAGS_COLLECTIVE_WAIT	    0x8
#define HL_CS_FLAGS_TIMESTAMP		    0x20
#define HL_CS_FLAGS_STAGED_SUBMISSION	    0x40
#define HL_CS_FLAGS_STAGED_SUBMISSION_FIRST 0x80
#define HL_CS_FLAGS_STAGED_SUBMISSION_LAST  0x100
#define HL_CS_FLAGS_CUSTOM_TIMEOUT	    0x200
#define HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT   0x400
#define HL_CS_FLAGS_ENCAP_SIGNALS	    0x800
#define HL_CS_FLAGS_RESERVE_SIGNALS_ONLY    0x1000
#define HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY  0x2000
#define HL_CS_FLAGS_ENGINE_CORE_COMMAND	    0x4000
#define HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES    0x8000
#define HL_CS_FLAGS_ENGINES_COMMAND	    0x10000

/* hl_cs_out.status */
#define HL_CS_STATUS_SUCCESS 0

#define HL_MAX_JOBS_PER_CS 512

/* hl_wait_cs_in.flags */
#define HL_WAIT_CS_FLAGS_INTERRUPT	      0x2
#define HL_WAIT_CS_FLAGS_MULTI_CS	      0x4
#define HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ  0x10
#define HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT   0x20
#define HL_WAIT_CS_FLAGS_UNREGISTER_INTERRUPT 0x40
#define HL_WAIT_CS_FLAGS_INTERRUPT_MASK	      0xFFF00000
#define HL_WAIT_MULTI_CS_LIST_MAX_LEN	      32

/* hl_wait_cs_out.status and .flags */
#define HL_WAIT_CS_STATUS_COMPLETED	     0
#define HL_WAIT_CS_STATUS_BUSY		     1
#define HL_WAIT_CS_STATUS_TIMEDOUT	     2
#define HL_WAIT_CS_STATUS_ABORTED	     3
#define HL_WAIT_CS_STATUS_FLAG_GONE	     0x1
#define HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD 0x2

/*
 * enum gaudi2_queue_id: 4 streams per QMAN, QMANs in this order (queue
 * id = first id of the QMAN + stream). Per DCORE d (0..3) the first
 * queue of its block is 8 + 40 * d (DCORE0 has a 7th TPC after the
 * others, so DCORE1..3 start 4 later: 48, 84, 120): EDMA_0, EDMA_1, MME,
 * TPC_0..TPC_5 (DCORE0: .. TPC_6). NIC_0..NIC_23 from 156, ROT_0/1 at
 * 252/256, CPU_PQ 260 (driver only).
 */
#define HL_GAUDI2_QUEUE_ID_PDMA_0_0	   0
#define HL_GAUDI2_QUEUE_ID_PDMA_1_0	   4
#define HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0 8
#define HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_1_0 12
#define HL_GAUDI2_QUEUE_ID_DCORE0_MME_0_0  16
#define HL_GAUDI2_QUEUE_ID_DCORE0_TPC_0_0  20
#define HL_GAUDI2_QUEUE_ID_DCORE0_TPC_6_0  44
#define HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0 48
#define HL_GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0 84
#define HL_GAUDI2_QUEUE_ID_DCORE3_EDMA_0_0 120
#define HL_GAUDI2_QUEUE_ID_NIC_0_0	   156
#define HL_GAUDI2_QUEUE_ID_ROT_0_0	   252
#define HL_GAUDI2_QUEUE_ID_CPU_PQ	   260
#define HL_GAUDI2_STREAMS_PER_QMAN	   4
#define HL_GAUDI2_DCORE_QUEUE_STRIDE	   36 /* DCORE1..3: 2 EDMA + MME + 6 TPC */

/*
 * The Gaudi2 packet ISA (little-endian 32-bit words). Every packet's
 * control word (the second) holds the opcode in bits 24..28, the engine
 * barrier in 29, SWTC in 30 and the message barrier in 31.
 */
#define HL_PKT_CTL_OPCODE_SHIFT 24
#define HL_PKT_CTL_OPCODE_MASK	0x1F000000U
#define HL_PKT_CTL_EB		(1U << 29)
#define HL_PKT_CTL_SWTC		(1U << 30)
#define HL_PKT_CTL_MB		(1U << 31)
#define HL_PKT_CTL_PRED_MASK	0x1FU

#define HL_PACKET_WREG_32	   0x1
#define HL_PACKET_WREG_BULK	   0x2
#define HL_PACKET_MSG_LONG	   0x3
#define HL_PACKET_MSG_SHORT	   0x4
#define HL_PACKET_CP_DMA	   0x5
#define HL_PACKET_REPEAT	   0x6
#define HL_PACKET_MSG_PROT	   0x7
#define HL_PACKET_FENCE		   0x8
#define HL_PACKET_LIN_DMA	   0x9
#define HL_PACKET_NOP		   0xA
#define HL_PACKET_STOP		   0xB
#define HL_PACKET_ARB_POINT	   0xC
#define HL_PACKET_WAIT		   0xD
#define HL_PACKET_CB_LIST	   0xE
#define HL_PACKET_LOAD_AND_EXE	   0xF
#define HL_PACKET_WRITE_ARC_STREAM 0x10
#define HL_PACKET_WREG_64_SHORT	   0x12
#define HL_PACKET_WREG_64_LONG	   0x13

/* MSG_LONG control word: bits 0..4 pred, 16 weakly ordered, 17 no
 * snoop, 20..21 op (0: write the value, 1: write a timestamp) */
#define HL_MSG_LONG_CTL_WEAKLY_ORDERED (1U << 16)
#define HL_MSG_LONG_CTL_NO_SNOOP       (1U << 17)
#define HL_MSG_LONG_CTL_OP_SHIFT       20
#define HL_MSG_LONG_CTL_OP_MASK	       (3U << 20)

/* LIN_DMA control word: 0 write completion, 1..2 endian swap, 4 memset,
 * 6 bf16, 7 fp16, 8 context id increment, 9 add offset 0 */
#define HL_LIN_DMA_CTL_WRCOMP	      (1U << 0)
#define HL_LIN_DMA_CTL_ENDIAN_MASK    (3U << 1)
#define HL_LIN_DMA_CTL_MEMSET	      (1U << 4)
#define HL_LIN_DMA_CTL_BF16	      (1U << 6)
#define HL_LIN_DMA_CTL_FP16	      (1U << 7)
#define HL_LIN_DMA_CTL_CONTEXT_ID_INC (1U << 8)
#define HL_LIN_DMA_CTL_ADD_OFFSET_0   (1U << 9)

/**
 * struct hl_pkt_nop - NOP and STOP (8 bytes)
 * @reserved: 0
 * @ctl: control word (nothing below bit 24)
 */
struct hl_pkt_nop {
	__u32 reserved;
	__u32 ctl;
};

/* CP_DMA control word: bits 0..4 pred, 5 upper CP */
#define HL_CP_DMA_CTL_UPPER_CP (1U << 5)

/**
 * struct hl_pkt_cp_dma - CP_DMA (16 bytes): the QMAN fetches @tsize bytes
 * of packets at @src_addr and runs them (a lower CB)
 * @tsize: bytes of packets
 * @ctl: control word (HL_CP_DMA_CTL_*)
 * @src_addr: device address of the packets
 */
struct hl_pkt_cp_dma {
	__u32 tsize;
	__u32 ctl;
	__u64 src_addr;
};

/* LOAD_AND_EXE configuration word (the first): bit 0 dst (0: the
 * predicates, 1: the scalars R0..R3), 1 pmap (predicates: 0 one 32-bit
 * word each, 1 one bit each), 8 load, 9 exe, 10 etype (0: the packet in
 * all RFs or the lower two, 1: the packet in the upper two) */
#define HL_LOAD_EXE_CFG_DST_SCALARS (1U << 0)
#define HL_LOAD_EXE_CFG_PMAP_CONSEC (1U << 1)
#define HL_LOAD_EXE_CFG_LOAD	    (1U << 8)
#define HL_LOAD_EXE_CFG_EXE	    (1U << 9)
#define HL_LOAD_EXE_CFG_ETYPE_UPPER (1U << 10)

/**
 * struct hl_pkt_load_and_exe - LOAD_AND_EXE (16 bytes): load the CP's
 * predicates or scalar registers from @src_addr, and/or execute the
 * packet the scalar registers hold
 * @cfg: HL_LOAD_EXE_CFG_*
 * @ctl: control word (bits 0..4 pred)
 * @src_addr: device address of the predicates or scalars
 */
struct hl_pkt_load_and_exe {
	__u32 cfg;
	__u32 ctl;
	__u64 src_addr;
};

/* CB_LIST control word: bits 0..4 pred, 5 size_desc (0: 16-byte table
 * entries, 1: 32-byte ones) */
#define HL_CB_LIST_CTL_SIZE_DESC (1U << 5)

/**
 * struct hl_pkt_cb_list - CB_LIST (24 bytes): run the table entry
 * @table_addr[index], where index is the 32-bit word at @index_addr
 * @reserved: 0
 * @ctl: control word (HL_CB_LIST_CTL_*)
 * @index_addr: device address of the index
 * @table_addr: device address of the table
 */
struct hl_pkt_cb_list {
	__u32 reserved;
	__u32 ctl;
	__u64 index_addr;
	__u64 table_addr;
};

/**
 * struct hl_pkt_msg_long - MSG_LONG (16 bytes): write @value at @addr
 * @value: the 32-bit value
 * @ctl: control word (HL_MSG_LONG_CTL_*)
 * @addr: device address, 4-byte aligned
 */
struct hl_pkt_msg_long {
	__u32 value;
	__u32 ctl;
	__u64 addr;
};

/**
 * struct hl_pkt_lin_dma - LIN_DMA (24 bytes)
 * @tsize: bytes
 * @ctl: control word (HL_LIN_DMA_CTL_*)
 * @src_addr: source device address; with memset: the 64-bit pattern
 * @dst_addr: destination device address
 */
struct hl_pkt_lin_dma {
	__u32 tsize;
	__u32 ctl;
	__u64 src_addr;
	__u64 dst_addr;
};

#endif /* HL_UAPI_H */
