/* SPDX-License-Identifier: MIT */
/*
 * hpu_ring.h - user-mode submission and completion rings of the hpu
 * driver (docs/rings.md)
 *
 * A context registers one region of a sealed memfd with HPU_IOCTL_RING;
 * the client and the driver both map it:
 *
 *   offset 0                          struct hpu_ring_hdr (one page)
 *   HPU_RING_SQ_OFFSET                sq_slots slots of 32 bytes (the SQ)
 *   HPU_RING_CQ_OFFSET(sq_slots)      cq_entries struct hpu_ring_cqe
 *   HPU_RING_CB_ARENA_OFFSET(s, c)    optional (ABI 1.4): the CB arena,
 *                                     bytes of command buffers an entry
 *                                     runs (HPU_RING_FLAGS_CB_ARENA)
 *
 * Indices are free-running __u32 counters; slot i is at i & (n - 1).
 * An SQ entry is a struct hpu_ring_sqe slot, its struct hpu_cs_chunk
 * slots, and for HPU_CS_FLAGS_WAIT the chunks' __u64 sequence numbers,
 * packed and padded with zeros to a whole slot. The driver copies and
 * validates every entry before it uses it; it trusts nothing that the
 * client can still change.
 *
 * Same rules as hpu_accel.h: only __u8..__u64 (__s32 for an errno),
 * naturally aligned, explicit padding, sizes a multiple of 8.
 */
#ifndef HPU_UAPI_RING_H
#define HPU_UAPI_RING_H

#include <linux/types.h>

#include "hpu_accel.h"

/* Bytes of an SQ slot and of a CQ record */
#define HPU_RING_SLOT_SIZE 32
/* Bytes of the header page at the start of the region */
#define HPU_RING_HDR_SIZE  4096
/* Alignment of the region's offset in its file and of each part */
#define HPU_RING_ALIGN	   4096

/* Bounds of sq_slots and cq_entries (powers of two) */
#define HPU_RING_MIN_ENTRIES 16
#define HPU_RING_MAX_ENTRIES 65536

/*
 * Largest entry in slots: a WAIT of HPU_WAIT_MAX_CHUNKS chunks of
 * HPU_WAIT_MULTI_CS_MAX numbers each (1 + 64 + 64 * 32 / 4); a normal
 * CS takes at most 1 + HPU_MAX_JOBS_PER_CS (513)
 */
#define HPU_RING_MAX_ENTRY_SLOTS 577

/* Sequence numbers per slot of a WAIT entry's payload */
#define HPU_RING_SEQS_PER_SLOT (HPU_RING_SLOT_SIZE / 8)

#define HPU_RING_ALIGN_UP(x) \
	(((__u64)(x) + HPU_RING_ALIGN - 1) & ~(__u64)(HPU_RING_ALIGN - 1))
/* Offset of the SQ from the start of the region */
#define HPU_RING_SQ_OFFSET HPU_RING_HDR_SIZE
/* Offset of the CQ from the start of the region */
#define HPU_RING_CQ_OFFSET(sq_slots) \
	(HPU_RING_SQ_OFFSET +        \
	 HPU_RING_ALIGN_UP((__u64)(sq_slots)*HPU_RING_SLOT_SIZE))
/* Bytes of a region with @sq_slots SQ slots and @cq_entries CQ records */
#define HPU_RING_SIZE(sq_slots, cq_entries) \
	(HPU_RING_CQ_OFFSET(sq_slots) +     \
	 HPU_RING_ALIGN_UP((__u64)(cq_entries)*HPU_RING_SLOT_SIZE))

/*
 * The CB arena (ABI 1.4, docs/rings.md "CB arena"): an optional part
 * after the CQ where the client puts the bytes of the command buffers
 * an entry runs, so the driver copies them from the shared mapping
 * instead of out of the client's process. Its size is a power of two
 * within these bounds; one entry references at most
 * HPU_RING_CB_ARENA_MAX_ENTRY bytes of it.
 */
#define HPU_RING_CB_ARENA_MIN	    4096
#define HPU_RING_CB_ARENA_MAX	    (1U << 20)
#define HPU_RING_CB_ARENA_MAX_ENTRY (64U << 10)
/* Offset of the CB arena from the start of the region */
#define HPU_RING_CB_ARENA_OFFSET(sq_slots, cq_entries) \
	HPU_RING_SIZE(sq_slots, cq_entries)
/* Bytes of a region with a CB arena of @arena bytes */
#define HPU_RING_SIZE_CB_ARENA(sq_slots, cq_entries, arena) \
	(HPU_RING_SIZE(sq_slots, cq_entries) + (__u64)(arena))

/* hpu_ring_hdr.sq_need_wakeup: the consumer sleeps, ring the doorbell */
#define HPU_RING_NEED_WAKEUP 1U

/*
 * hpu_ring_hdr.flags: header words the driver keeps (set at REGISTER,
 * never changed; ABI 1.3, HPU_RING_HDR_F_CB_ARENA 1.4,
 * HPU_RING_HDR_F_CPU 1.7). A client seeing 0 has a 1.2 driver.
 */
/* @sq_seq holds the number of the last entry taken */
#define HPU_RING_HDR_F_SQ_SEQ	1U
/* @cq_event moves with every record, every completed_seq move, a break */
#define HPU_RING_HDR_F_CQ_EVENT 2U
/*
 * The region has a CB arena (ABI 1.4): @cb_arena_offset, @cb_arena_size
 * say where; entries may carry HPU_RING_SQE_F_CB_ARENA
 */
#define HPU_RING_HDR_F_CB_ARENA 4U
/*
 * The consumer keeps @consumer_cpu and reads @producer_cpu (ABI 1.7,
 * hints only: docs/rings.md, "Spinning")
 */
#define HPU_RING_HDR_F_CPU	8U

/**
 * struct hpu_ring_hdr - the shared header, first page of the region
 * @sq_tail: client: SQ producer index, one past the last slot of the
 *	last published entry (store-release after the entry's slots)
 * @sq_doorbell: client: futex word; when @sq_need_wakeup is set after
 *	publishing, the client increments it and wakes one waiter on it
 * @producer_cpu: client (HPU_RING_HDR_F_CPU): 1 + the CPU the thread
 *	that published last ran on then, 0 unknown; a hint the consumer's
 *	poll reads: whatever it holds only changes how the poll waits
 * @pad0: 0, keeps the next line the driver's
 * @sq_head: driver: SQ consumer index; slots before it may be reused
 * @sq_need_wakeup: driver: HPU_RING_NEED_WAKEUP while the consumer
 *	sleeps or is about to (docs/rings.md, "Doorbell")
 * @flags: driver: HPU_RING_HDR_F_* (0 from a 1.2 driver)
 * @pad1: 0
 * @sq_seq: driver (HPU_RING_HDR_F_SQ_SEQ): the sequence number of the
 *	last entry taken, stored before @sq_head moves past it (0: none
 *	yet); an entry refused for its contents has one too
 * @cb_arena_offset: driver (HPU_RING_HDR_F_CB_ARENA): offset of the CB
 *	arena from the start of the region, HPU_RING_CB_ARENA_OFFSET();
 *	0 without an arena. Set at REGISTER, never changed
 * @cb_arena_size: driver (HPU_RING_HDR_F_CB_ARENA): bytes of the CB
 *	arena, a power of two within HPU_RING_CB_ARENA_MIN..
 *	HPU_RING_CB_ARENA_MAX; 0 without an arena. Set at REGISTER
 * @consumer_cpu: driver (HPU_RING_HDR_F_CPU): 1 + the CPU the consumer
 *	thread last ran on, 0 unknown (stored when it changes); a hint for
 *	the client's spins: a spinner on that CPU holds the consumer off
 * @pad1b: 0
 * @completed_seq: driver: every CS of the context numbered at or below
 *	it has ended (ring and ioctl submissions); it only grows
 * @cq_tail: driver: CQ producer index (store-release after the record)
 * @cq_futex: driver: the low 32 bits of @completed_seq, the futex word
 *	waiters sleep on
 * @error: driver: 0, or a positive errno once the ring is broken
 *	(EIO): nothing more is consumed
 * @cq_event: driver (HPU_RING_HDR_F_CQ_EVENT): a futex word incremented
 *	after every record posted, every move of @completed_seq and the
 *	ring breaking; waiters for any of those (an out-of-order ending
 *	too) sleep on it and are woken when @cq_waiters is not 0
 * @pad2: 0
 * @cq_head: client: CQ consumer index; records before it may be reused
 * @cq_waiters: client: threads sleeping (or about to) on @cq_futex;
 *	the driver wakes them when it is not 0
 * @pad3: 0
 *
 * Four cache lines of 64 bytes, one per writer and direction. The
 * driver reads only @sq_tail, @cq_head and @cq_waiters, each once per
 * use (and @producer_cpu, a hint), and keeps its own copy of @sq_head,
 * @cq_tail and of the arena's place and size; what the client writes
 * elsewhere in the header is ignored.
 */
struct hpu_ring_hdr {
	/* line 0: the client's SQ words */
	__u32 sq_tail;
	__u32 sq_doorbell;
	__u32 producer_cpu;
	__u32 pad0[13];
	/* line 1: the driver's SQ words */
	__u32 sq_head;
	__u32 sq_need_wakeup;
	__u32 flags;
	__u32 pad1;
	__u64 sq_seq;
	__u32 cb_arena_offset;
	__u32 cb_arena_size;
	__u32 consumer_cpu;
	__u32 pad1b[7];
	/* line 2: the driver's CQ words */
	__u64 completed_seq;
	__u32 cq_tail;
	__u32 cq_futex;
	__u32 error;
	__u32 cq_event;
	__u32 pad2[10];
	/* line 3: the client's CQ words */
	__u32 cq_head;
	__u32 cq_waiters;
	__u32 pad3[14];
};

/*
 * hpu_ring_sqe.flags: the chunks' CB bytes are in the CB arena (ABI 1.4;
 * only on a ring whose header has HPU_RING_HDR_F_CB_ARENA)
 */
#define HPU_RING_SQE_F_CB_ARENA (1U << 0)
#define HPU_RING_SQE_FLAGS_MASK HPU_RING_SQE_F_CB_ARENA

/**
 * struct hpu_ring_sqe - the first slot of an SQ entry: one CS
 * @user_data: any value; the CS's completion record carries it back
 * @num_slots: slots of the entry, this one included: 1 + @num_chunks,
 *	plus for HPU_CS_FLAGS_WAIT the slots of the sequence numbers
 *	(sum of the chunks' cb_size, HPU_RING_SEQS_PER_SLOT per slot,
 *	rounded up); 1..HPU_RING_MAX_ENTRY_SLOTS and at most the ring's
 *	slots, else the ring breaks (EIO)
 * @num_chunks: struct hpu_cs_chunk slots that follow, as
 *	hpu_cs_in.num_chunks_execute: 1..HPU_MAX_JOBS_PER_CS
 *	(HPU_CS_FLAGS_WAIT: 1..HPU_WAIT_MAX_CHUNKS)
 * @cs_flags: HPU_CS_FLAGS_*, as hpu_cs_in.cs_flags
 * @timeout_ms: as hpu_cs_in.timeout_ms
 * @flags: HPU_RING_SQE_F_* (HPU_RING_SQE_FLAGS_MASK)
 * @cb_offset: with HPU_RING_SQE_F_CB_ARENA: offset in the CB arena of
 *	the bytes the chunks run, a multiple of 8; else 0 (it was @pad,
 *	always 0, before ABI 1.4)
 *
 * The chunks follow the ioctl's rules (docs/command-submission.md,
 * "CS"), except that a WAIT chunk's cb_handle must be 0: its cb_size
 * sequence numbers are in the entry, after the chunks, in chunk order.
 *
 * With HPU_RING_SQE_F_CB_ARENA (a normal CS only, not SIGNAL or WAIT)
 * the bytes every chunk runs are taken from the CB arena instead of
 * from its CB's memory: chunk after chunk, each chunk's cb_size bytes,
 * from @cb_offset on, in one piece that does not wrap: @cb_offset +
 * the sum of the cb_size values at most the arena's size and the sum
 * at most HPU_RING_CB_ARENA_MAX_ENTRY. Each chunk's cb_handle is still
 * a CB of the context at least cb_size bytes long (pinned against
 * DESTROY while the CS runs, as for every CS). The driver copies the
 * bytes when it takes the entry (sq_head moves past it); the client
 * may reuse them from then on.
 *
 * An entry whose contents break a rule completes with res -EINVAL. A
 * CB arena reference that breaks one (out of the arena, wrapping,
 * misaligned, too large, on SIGNAL or WAIT, on a ring without an arena,
 * @cb_offset without the flag) also queues HPU_EVENT_RING_ERR with data
 * EINVAL and the entry's sequence number; the ring goes on.
 */
struct hpu_ring_sqe {
	__u64 user_data;
	__u32 num_slots;
	__u32 num_chunks;
	__u32 cs_flags;
	__u32 timeout_ms;
	__u32 flags;
	__u32 cb_offset;
};

/* hpu_ring_cqe.flags */
#define HPU_RING_CQE_F_TIMESTAMP (1U << 0) /* timestamp_ns is valid */

/**
 * struct hpu_ring_cqe - a completion record: one SQ entry ended
 * @user_data: the entry's user_data
 * @seq: the sequence number the entry got (every consumed entry gets
 *	one, in ring order, also a refused one)
 * @timestamp_ns: completion time (device clock) with
 *	HPU_RING_CQE_F_TIMESTAMP
 * @res: 0 when the CS was submitted (@status says how it ended), or the
 *	-errno that refused the entry: -EINVAL (contents), -EFAULT (a CB
 *	could not be read), -ENOMEM, -EIO (the ring broke at this entry)
 * @status: HPU_WAIT_CS_STATUS_COMPLETED, _TIMEDOUT or _ABORTED (every
 *	refused entry)
 * @flags: HPU_RING_CQE_F_*
 */
struct hpu_ring_cqe {
	__u64 user_data;
	__u64 seq;
	__u64 timestamp_ns;
	__s32 res;
	__u16 status;
	__u16 flags;
};

/* ------------------------------------------------------------------ */
/* HPU_IOCTL_RING: register and unregister the context's rings         */
/* ------------------------------------------------------------------ */

#define HPU_RING_OP_REGISTER   0 /* map a region of a memfd as the rings */
#define HPU_RING_OP_UNREGISTER 1 /* stop the consumer, drop the mapping */

/*
 * hpu_ring_in.flags: the region has a CB arena after the CQ (ABI 1.4):
 * its size is what @size has beyond HPU_RING_SIZE()
 */
#define HPU_RING_FLAGS_CB_ARENA (1U << 0)
#define HPU_RING_FLAGS_MASK	HPU_RING_FLAGS_CB_ARENA

/**
 * struct hpu_ring_in - RING input
 * @offset: REGISTER: offset of the region in the file, a multiple of
 *	HPU_RING_ALIGN; UNREGISTER: 0
 * @size: REGISTER: bytes of the region, HPU_RING_SIZE(@sq_slots,
 *	@cq_entries) exactly, or with HPU_RING_FLAGS_CB_ARENA
 *	HPU_RING_SIZE_CB_ARENA(@sq_slots, @cq_entries, arena) for an arena
 *	size that is a power of two within HPU_RING_CB_ARENA_MIN..
 *	HPU_RING_CB_ARENA_MAX; UNREGISTER: 0
 * @fd: REGISTER: a file descriptor of the calling process, open
 *	read-write on a memfd (or tmpfs/hugetlbfs file) sealed with
 *	F_SEAL_SHRINK and not against writing, at least @offset + @size
 *	bytes long; the driver takes it with pidfd_getfd(2), maps the
 *	region and closes its copy; UNREGISTER: 0
 * @op: HPU_RING_OP_*
 * @sq_slots: REGISTER: slots of the SQ, a power of two,
 *	HPU_RING_MIN_ENTRIES..HPU_RING_MAX_ENTRIES; UNREGISTER: 0
 * @cq_entries: REGISTER: records of the CQ, a power of two in the same
 *	bounds; UNREGISTER: 0
 * @flags: REGISTER: HPU_RING_FLAGS_*; UNREGISTER: 0
 * @pad: must be 0
 */
struct hpu_ring_in {
	__u64 offset;
	__u64 size;
	__u32 fd;
	__u32 op;
	__u32 sq_slots;
	__u32 cq_entries;
	__u32 flags;
	__u32 pad;
};

/**
 * struct hpu_ring_out - RING output
 * @size: REGISTER: bytes of the region the driver maps
 * @sq_offset: REGISTER: offset of the SQ from the region's start
 * @cq_offset: REGISTER: offset of the CQ from the region's start
 * @next_seq: REGISTER: the sequence number the context's next
 *	submission (ring entry or HPU_IOCTL_CS) gets
 * @reserved: 0
 */
struct hpu_ring_out {
	__u64 size;
	__u64 sq_offset;
	__u64 cq_offset;
	__u64 next_seq;
	__u64 reserved;
};

/**
 * union hpu_ring_args - argument of HPU_IOCTL_RING
 * @in: input
 * @out: output
 */
union hpu_ring_args {
	struct hpu_ring_in in;
	struct hpu_ring_out out;
};

#define HPU_IOCTL_RING \
	DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_RING, union hpu_ring_args)

#endif /* HPU_UAPI_RING_H */
