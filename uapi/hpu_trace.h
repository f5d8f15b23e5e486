/* SPDX-License-Identifier: MIT */
/*
 * hpu_trace.h - engine traces of the hpu driver (ABI 1.5; docs/tracing.md)
 *
 * A context turns tracing on with HPU_TRACE_OP_START. From then on, every
 * job of that context's submissions leaves one struct hpu_trace_event in
 * a bounded ring of the context per engine queue (engine id as in
 * docs/firmware-sim.md, "Engine ids": DMA, MME, TPC, NIC ports). A full
 * ring drops its oldest event and counts the drop; a trace never grows
 * the daemon's memory past what START reserved (capacity x engines x
 * sizeof(struct hpu_trace_event)), which the context's limits bound.
 *
 * HPU_TRACE_OP_READ moves events out, oldest first, across all of the
 * context's rings in order of @start_ns. A context sees only its own
 * jobs. Times are CLOCK_MONOTONIC nanoseconds of the host, the clock
 * libhpudrv's host spans use, so both lie on one time axis.
 *
 * Same rules as hpu_accel.h: only __u8..__u64, naturally aligned,
 * explicit padding, sizes a multiple of 8, reserved members must be 0.
 */
#ifndef HPU_UAPI_TRACE_H
#define HPU_UAPI_TRACE_H

#include <linux/types.h>

#include "hpu_accel.h"

/*
 * HPU_CAP_TRACE (HPU_IOCTL_TRACE is there) and HPU_COMMAND_TRACE are in
 * hpu_accel.h with the others; the rings' memory is charged to the
 * context's HPU_CTX_LIMIT_TRACE_BYTES (-ENOSPC beyond it).
 */

/* Bounds of hpu_trace_in.capacity (events per engine queue, power of 2) */
#define HPU_TRACE_MIN_CAPACITY	   64
#define HPU_TRACE_MAX_CAPACITY	   65536
#define HPU_TRACE_DEFAULT_CAPACITY 4096

/* What a job was (hpu_trace_event.kind) */
#define HPU_TRACE_KIND_DMA    0 /* LIN_DMA: @bytes moved */
#define HPU_TRACE_KIND_MEMSET 1 /* MEMSET: @bytes written */
#define HPU_TRACE_KIND_GEMM   2 /* MME GEMM: @flops, @bytes read+written */
#define HPU_TRACE_KIND_TPC    3 /* TPC kernel @detail: @flops, @bytes */
#define HPU_TRACE_KIND_NIC    4 /* NIC send/write on port @detail: @bytes */
#define HPU_TRACE_KIND_SYNC   5 /* a job of only FENCE/SIGNAL/NOP packets */
#define HPU_TRACE_KIND_MIXED  6 /* several kinds of work in one job */
#define HPU_TRACE_KIND_NR     7

/* hpu_trace_event.flags */
#define HPU_TRACE_EV_WAITED (1U << 0) /* parked on a FENCE before @start_ns */
#define HPU_TRACE_EV_SIGNALLED \
	(1U << 1)		      /* @signal_sob was signalled at the end */
#define HPU_TRACE_EV_FAILED (1U << 2) /* ended by a fault, reset or abort */
#define HPU_TRACE_EV_MASK   0x7

/**
 * struct hpu_trace_event - one job on one engine queue
 * @submit_ns: when the driver accepted the job's submission
 * @start_ns: when the engine started the job (after any FENCE wait)
 * @end_ns: when the job ended
 * @cs_seq: sequence number of the job's submission in its context
 * @bytes: bytes the job moved or touched
 * @flops: floating-point operations of the job (GEMM: 2*m*n*k per batch)
 * @model_ns: the job's duration on the device's profile by the timing
 *	model (docs/timing-model.md); 0 where the model has no figure
 * @engine: engine id (docs/firmware-sim.md, "Engine ids")
 * @kind: HPU_TRACE_KIND_*
 * @flags: HPU_TRACE_EV_*
 * @detail: TPC kernel id, NIC port, else 0
 * @fence_sob: the sync object the job last waited on, or ~0
 * @signal_sob: the sync object the job signalled, or ~0
 * @reserved: 0
 */
struct hpu_trace_event {
	__u64 submit_ns;
	__u64 start_ns;
	__u64 end_ns;
	__u64 cs_seq;
	__u64 bytes;
	__u64 flops;
	__u64 model_ns;
	__u32 engine;
	__u16 kind;
	__u16 flags;
	__u32 detail;
	__u32 fence_sob;
	__u32 signal_sob;
	__u32 reserved;
};

#define HPU_TRACE_OP_START  0 /* reserve the rings and record */
#define HPU_TRACE_OP_STOP   1 /* stop recording; events stay readable */
#define HPU_TRACE_OP_READ   2 /* move events out, oldest first */
#define HPU_TRACE_OP_STATUS 3 /* counts only */
#define HPU_TRACE_OP_FREE   4 /* stop and drop the rings and their events */

/**
 * struct hpu_trace_in - TRACE input
 * @events_ptr: READ: user buffer of @max_events struct hpu_trace_event;
 *	other ops: 0
 * @max_events: READ: room at @events_ptr, 1..HPU_TRACE_MAX_CAPACITY;
 *	other ops: 0
 * @capacity: START: events per engine queue, a power of two within
 *	HPU_TRACE_MIN_CAPACITY..HPU_TRACE_MAX_CAPACITY, or 0 for
 *	HPU_TRACE_DEFAULT_CAPACITY; other ops: 0
 * @op: HPU_TRACE_OP_*
 * @flags: 0
 * @reserved: 0
 */
struct hpu_trace_in {
	__u64 events_ptr;
	__u32 max_events;
	__u32 capacity;
	__u32 op;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct hpu_trace_out - TRACE output (every op)
 * @events: READ: events copied to @events_ptr
 * @pending: events still in the rings after this op
 * @dropped: events dropped by full rings since START (never reset)
 * @recorded: events recorded since START
 * @capacity: events per engine queue, 0 when no rings are reserved
 * @engines: engine queues with a ring
 * @active: 1 while recording
 * @reserved: 0
 */
struct hpu_trace_out {
	__u64 events;
	__u64 pending;
	__u64 dropped;
	__u64 recorded;
	__u32 capacity;
	__u32 engines;
	__u32 active;
	__u32 reserved;
};

/**
 * union hpu_trace_args - argument of HPU_IOCTL_TRACE
 * @in: input
 * @out: output
 */
union hpu_trace_args {
	struct hpu_trace_in in;
	struct hpu_trace_out out;
};

#define HPU_IOCTL_TRACE \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_TRACE, union hpu_trace_args)

#endif /* HPU_UAPI_TRACE_H */
