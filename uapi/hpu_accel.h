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
 *    and reports the full size in full_size (its ops and answers are
 *    in hpu_info.h, included here);
 *  - sequence numbers 0 and ~0 are never valid.
 */
#ifndef HPU_UAPI_ACCEL_H
#define HPU_UAPI_ACCEL_H

#include <linux/types.h>
#include <drm.h>

#include "hpu_info.h"

/* ------------------------------------------------------------------ */
/* Capabilities                                                        */
/* ------------------------------------------------------------------ */

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
/* HPU_IOCTL_RING: user-mode rings (ABI 1.2; uapi/hpu_ring.h, docs/rings.md) */
#define HPU_CAP_RING	   (1ULL << 11)
/* HPU_DEBUG_OP_RESET: device reset on request (ABI 1.3; docs/abi.md) */
#define HPU_CAP_RESET	   (1ULL << 12)

/*
 * Device-wide events on control nodes (ABI 1.4): read()/poll() of
 * hpu_controlN return the device's events (HPU_EVENT_*, with
 * HPU_EVENT_STATUS_CHANGE, CLOCK_CHANGE and EVENTS_LOST), docs/abi.md
 */
#define HPU_CAP_CTRL_EVENTS (1ULL << 13)

/* HPU_IOCTL_TRACE: engine traces (ABI 1.5; uapi/hpu_trace.h, docs/tracing.md) */
#define HPU_CAP_TRACE (1ULL << 14)

/* LIN_DMA's endian swap flags HPU_LIN_DMA_F_SWAP_* (uapi/hpu_packets.h) */
#define HPU_CAP_DMA_SWAP (1ULL << 15)

/* Long SOBs (MSG_LONG HPU_MSG_OP_LONG_*, HPU_MON_F_LONG) and monitor
 * payloads that set a SOB (HPU_MON_F_SOB_SET; uapi/hpu_packets.h) */
#define HPU_CAP_LONG_SOB (1ULL << 16)

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
#define HPU_DEBUG_OP_RESET	   3 /* reset the device (root or owner) */

/*
 * hpu_debug_args.param of HPU_DEBUG_OP_RESET, also the data of the
 * HPU_EVENT_DEVICE_RESET it raises in every context of the device:
 *  HARD: every in-flight CS of every context ends ABORTED (blocked waits
 *	return -EIO), every compute context loses its memory, CBs, rings
 *	and NIC state and answers -EIO from then on (INFO, read and poll
 *	excepted): close it and open the device again;
 *  COMPUTE: every in-flight CS ends ABORTED; contexts and what they
 *	hold stay usable.
 */
#define HPU_RESET_HARD	  1
#define HPU_RESET_COMPUTE 2

/* hpu_debug_args.fault */
#define HPU_FAULT_ENGINE_HANG 0 /* the next CS of the device never ends */
#define HPU_FAULT_PAGE_FAULT  1 /* the next CS faults on @engine (1.4) */
#define HPU_FAULT_ECC_ERR     2 /* HBM ECC error (correctable: param 0) */
#define HPU_FAULT_LINK_DOWN   3 /* NIC port @engine goes down */
#define HPU_FAULT_DEVICE_ERR  4 /* heartbeat lost: needs a hard reset */
#define HPU_FAULT_THERMAL     5 /* over the slowdown temperature (1.4) */
#define HPU_FAULT_MAX	      6

/*
 * The device VA the access of an injected HPU_FAULT_PAGE_FAULT uses (the
 * event's @addr): below every range the driver maps, so never mapped
 */
#define HPU_FAULT_PAGE_FAULT_ADDR 0x00000000badf0000ULL

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
 * @param: INJECT_FAULT: fault-specific parameter; RESET: HPU_RESET_*
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
#define HPU_COMMAND_TRACE   0x08 /* HPU_IOCTL_TRACE: uapi/hpu_trace.h */
#define HPU_COMMAND_END	    0x09

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
