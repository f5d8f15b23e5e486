/* SPDX-License-Identifier: MIT */
/*
 * hpu_packets.h - the command-buffer ISA executed by the queue managers
 *
 * A command buffer (CB) is a sequence of packets, each starting with a
 * struct hpu_pkt_hdr and each a multiple of 8 bytes long. The driver
 * validates every packet of every CB at submission (HPU_IOCTL_CS), before
 * any engine sees it: unknown opcodes, a size other than the opcode's, flag
 * bits the opcode does not define, non-zero reserved fields, sync object or
 * monitor ids out of range, or a packet running past the end of the CB make
 * the whole CS fail with -EINVAL and nothing runs.
 *
 * Addresses in packets are device virtual addresses of the submitting
 * context: HBM, SRAM, or host memory the context mapped with
 * HPU_MEM_OP_MAP | HPU_MEM_USERPTR. They are translated by the context's
 * MMU at execution; an address outside the context's mappings is a page
 * fault: the CS fails (HPU_WAIT_CS_STATUS_ABORTED), an HPU_EVENT_PAGE_FAULT
 * event is queued for the context, and no byte outside its mappings is read
 * or written.
 *
 * Queues: one per engine, numbered like the engines (docs/firmware-sim.md:
 * DMA engines first, then MME, TPC, NIC). NOP, STOP, MSG_LONG, FENCE and
 * ARM_MONITOR run on every queue; LIN_DMA and MEMSET only on DMA queues;
 * MME_GEMM only on MME queues, TPC_KERNEL only on TPC queues, NIC_WRITE
 * only on NIC queues (one per NIC port).
 *
 * Engine operands must be memory the device reaches directly: HBM, SRAM
 * or pinned host memory (HPU_MEM_OP_MAP_SHM). An operand in pageable host
 * memory (HPU_MEM_USERPTR) ends the CS with an engine error; an address
 * outside the mappings is a page fault.
 *
 * Sync objects (SOBs) and monitors belong to the context: ids are
 * 0..HPU_NUM_SOBS-1 and 0..HPU_NUM_MONITORS-1 in every context, and every
 * SOB is 0 when the context is created.
 */
#ifndef HPU_UAPI_PACKETS_H
#define HPU_UAPI_PACKETS_H

#include <linux/types.h>

/* Sync objects and monitors of each context */
#define HPU_NUM_SOBS	 512
#define HPU_NUM_MONITORS 64

/* Largest value a sync object holds; MSG_LONG ADD saturates there */
#define HPU_SOB_MAX_VALUE 0x7fff

/* Opcodes (struct hpu_pkt_hdr.opcode) */
#define HPU_PACKET_NOP	       0x01
#define HPU_PACKET_STOP	       0x02
#define HPU_PACKET_LIN_DMA     0x03
#define HPU_PACKET_MEMSET      0x04
#define HPU_PACKET_MSG_LONG    0x05
#define HPU_PACKET_FENCE       0x06
#define HPU_PACKET_ARM_MONITOR 0x07
/* Engine packets, defined by the compute and collectives ABI additions */
#define HPU_PACKET_MME_GEMM    0x10
#define HPU_PACKET_TPC_KERNEL  0x11
#define HPU_PACKET_NIC_WRITE   0x12

/* Header flags valid on every packet */
#define HPU_PKT_F_ENG_BARRIER (1U << 0) /* wait for the engine's earlier work */
#define HPU_PKT_F_MSG_BARRIER (1U << 1) /* earlier writes visible first */
#define HPU_PKT_F_COMMON_MASK 0x3U

/**
 * struct hpu_pkt_hdr - first 8 bytes of every packet
 * @opcode: HPU_PACKET_*
 * @size: bytes of the whole packet including this header; a multiple of 8
 *	and exactly the opcode's size
 * @flags: HPU_PKT_F_* common bits, plus the opcode's own bits
 * @reserved: must be 0
 */
struct hpu_pkt_hdr {
	__u16 opcode;
	__u16 size;
	__u16 flags;
	__u16 reserved;
};

/**
 * struct hpu_pkt_nop - does nothing
 * @hdr: opcode HPU_PACKET_NOP, size 8
 */
struct hpu_pkt_nop {
	struct hpu_pkt_hdr hdr;
};

/**
 * struct hpu_pkt_stop - ends the CB: packets after it are not executed
 * (they are still validated)
 * @hdr: opcode HPU_PACKET_STOP, size 8
 */
struct hpu_pkt_stop {
	struct hpu_pkt_hdr hdr;
};

/**
 * struct hpu_pkt_lin_dma - linear copy between any two mapped ranges
 * (host to device, device to host, device to device, host to host)
 * @hdr: opcode HPU_PACKET_LIN_DMA, size 32; flags HPU_LIN_DMA_F_SWAP_*
 *	(bits 8..9): the bytes of each 2-, 4- or 8-byte element, counted
 *	from @src_addr, reversed on the way (a last partial element of r
 *	bytes is the element zero-extended, reversed, cut to its first r
 *	bytes); the ranges of a swapping copy must not overlap
 * @src_addr: device VA of the source
 * @dst_addr: device VA of the destination
 * @size: bytes to copy; 0 is a no-op. Overlapping ranges behave as
 *	memmove
 */
struct hpu_pkt_lin_dma {
	struct hpu_pkt_hdr hdr;
	__u64 src_addr;
	__u64 dst_addr;
	__u64 size;
};

/* LIN_DMA endian swap, bits 8..9 of the header flags */
#define HPU_LIN_DMA_F_SWAP_NONE (0U << 8) /* a plain copy */
#define HPU_LIN_DMA_F_SWAP_16	(1U << 8) /* 2-byte elements reversed */
#define HPU_LIN_DMA_F_SWAP_32	(2U << 8) /* 4-byte elements reversed */
#define HPU_LIN_DMA_F_SWAP_64	(3U << 8) /* 8-byte elements reversed */
#define HPU_LIN_DMA_F_SWAP_MASK (3U << 8)

/* MEMSET element width, bits 8..9 of the header flags */
#define HPU_MEMSET_F_ELEM_1    (0U << 8) /* fill with the low byte */
#define HPU_MEMSET_F_ELEM_2    (1U << 8) /* fill with the low 2 bytes */
#define HPU_MEMSET_F_ELEM_4    (2U << 8) /* fill with the low 4 bytes */
#define HPU_MEMSET_F_ELEM_8    (3U << 8) /* fill with all 8 bytes */
#define HPU_MEMSET_F_ELEM_MASK (3U << 8)

/**
 * struct hpu_pkt_memset - fill a mapped range with a pattern
 * @hdr: opcode HPU_PACKET_MEMSET, size 32; flags: HPU_MEMSET_F_ELEM_*
 * @dst_addr: device VA, aligned to the element width
 * @size: bytes, a multiple of the element width
 * @value: the pattern, little-endian, low bytes used
 */
struct hpu_pkt_memset {
	struct hpu_pkt_hdr hdr;
	__u64 dst_addr;
	__u64 size;
	__u64 value;
};

/* MSG_LONG operations */
#define HPU_MSG_OP_SET	    0 /* sob = value */
#define HPU_MSG_OP_ADD	    1 /* sob += value, saturating */
/*
 * Long SOBs (HPU_CAP_LONG_SOB): SOBs sob_id..sob_id+3 are one 60-bit
 * counter, HPU_SOB_LONG_BITS bits each, SOB sob_id the lowest (each
 * still reads, fences and is written alone as a short SOB)
 */
#define HPU_MSG_OP_LONG_SET 2 /* counter = value: the 3 upper SOBs to 0 */
#define HPU_MSG_OP_LONG_ADD 3 /* counter += value, saturating at 2^60-1 */
#define HPU_SOB_LONG_BITS   15
#define HPU_SOB_LONG_MAX    ((1ULL << (4 * HPU_SOB_LONG_BITS)) - 1)

/**
 * struct hpu_pkt_msg_long - write or increment a sync object of the
 * context
 * @hdr: opcode HPU_PACKET_MSG_LONG, size 24
 * @sob_id: 0..HPU_NUM_SOBS-1 (a long op: 0..HPU_NUM_SOBS-4)
 * @op: HPU_MSG_OP_*
 * @value: 0..HPU_SOB_MAX_VALUE
 * @reserved: must be 0
 */
struct hpu_pkt_msg_long {
	struct hpu_pkt_hdr hdr;
	__u32 sob_id;
	__u32 op;
	__u32 value;
	__u32 reserved;
};

/**
 * struct hpu_pkt_fence - stop the queue until a sync object reaches a value
 * @hdr: opcode HPU_PACKET_FENCE, size 24
 * @sob_id: 0..HPU_NUM_SOBS-1
 * @target: wait until the SOB is >= target (1..HPU_SOB_MAX_VALUE)
 * @dec: subtracted from the SOB when the wait ends (0..target), so a
 *	fence can be reused like a counting semaphore
 * @reserved: must be 0
 *
 * A fence that is never satisfied makes its CS time out.
 */
struct hpu_pkt_fence {
	struct hpu_pkt_hdr hdr;
	__u32 sob_id;
	__u32 target;
	__u32 dec;
	__u32 reserved;
};

/**
 * struct hpu_pkt_arm_monitor - arm a monitor: when a sync object reaches a
 * value, write a 32-bit payload to a device VA (once; then the monitor
 * is free again)
 * @hdr: opcode HPU_PACKET_ARM_MONITOR, size 40
 * @mon_id: 0..HPU_NUM_MONITORS-1; arming an armed monitor re-arms it
 * @sob_id: 0..HPU_NUM_SOBS-1
 * @target: fire when the SOB is >= target (1..HPU_SOB_MAX_VALUE)
 * @payload: value written
 * @payload_addr: device VA written, 4-byte aligned; a fault there is
 *	reported as a page fault of the context
 * @target_hi: with HPU_MON_F_LONG, bits 32..59 of the target; else 0
 *
 * Flags (hdr.flags, beside the common ones):
 *  HPU_MON_F_EQUAL: fire when the SOB equals @target (0..HPU_SOB_MAX_VALUE)
 *	instead of when it is >= @target
 *  HPU_MON_F_SOB_ADD: the payload goes to the context's SOB @payload_addr
 *	(0..HPU_NUM_SOBS-1), added to it saturating as MSG_LONG ADD, with
 *	its fences and monitors woken, instead of being written to memory;
 *	@payload 0..HPU_SOB_MAX_VALUE. A chain of monitors fires at most
 *	HPU_NUM_MONITORS times (each disarms when it fires).
 *  HPU_MON_F_SOB_SET: as HPU_MON_F_SOB_ADD, but the SOB is set to the
 *	payload (0..HPU_SOB_MAX_VALUE); not with HPU_MON_F_SOB_ADD
 *  HPU_MON_F_LONG (HPU_CAP_LONG_SOB): watch the long SOB @sob_id..
 *	@sob_id+3 (0..HPU_NUM_SOBS-4; MSG_LONG's long ops) against the
 *	60-bit target @target | @target_hi << 32 (>= target: 1..
 *	HPU_SOB_LONG_MAX; equal: 0..HPU_SOB_LONG_MAX); a change of any of
 *	its four SOBs checks it
 */
#define HPU_MON_F_EQUAL	  (1U << 8)
#define HPU_MON_F_SOB_ADD (1U << 9)
#define HPU_MON_F_SOB_SET (1U << 10)
#define HPU_MON_F_LONG	  (1U << 11)
#define HPU_MON_F_MASK                                             \
	(HPU_MON_F_EQUAL | HPU_MON_F_SOB_ADD | HPU_MON_F_SOB_SET | \
	 HPU_MON_F_LONG)

struct hpu_pkt_arm_monitor {
	struct hpu_pkt_hdr hdr;
	__u32 mon_id;
	__u32 sob_id;
	__u32 target;
	__u32 payload;
	__u64 payload_addr;
	__u64 target_hi;
};

/* ------------------------------------------------------------------ */
/* Engine packets: data types and tensors                              */
/* ------------------------------------------------------------------ */

/* Element types (MME and TPC operands) */
#define HPU_DTYPE_FP32	1 /* IEEE 754 binary32 */
#define HPU_DTYPE_BF16	2 /* bfloat16: the high half of a binary32 */
#define HPU_DTYPE_INT32 3 /* two's complement 32-bit */

/* MME_GEMM flags, bits 8.. of the header flags */
#define HPU_MME_F_TRANS_A (1U << 8) /* use A transposed */
#define HPU_MME_F_TRANS_B (1U << 9) /* use B transposed */
#define HPU_MME_F_MASK	  (3U << 8)

/**
 * struct hpu_pkt_mme_gemm - batched matrix product on an MME queue:
 * C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i] for i < batch,
 * row-major, accumulated in fp32
 * @hdr: opcode HPU_PACKET_MME_GEMM, size 96; flags HPU_MME_F_*
 * @a_addr: device VA of A[0]
 * @b_addr: device VA of B[0]
 * @c_addr: device VA of C[0]
 * @stride_a: elements from A[i] to A[i+1] (0: the same A for all)
 * @stride_b: elements from B[i] to B[i+1] (0: the same B for all)
 * @stride_c: elements from C[i] to C[i+1]
 * @m: rows of op(A) and C
 * @n: columns of op(B) and C
 * @k: columns of op(A), rows of op(B)
 * @lda: elements between rows of A as stored (>= its row length)
 * @ldb: elements between rows of B as stored
 * @ldc: elements between rows of C (>= n)
 * @batch: products, >= 1
 * @dtype_ab: HPU_DTYPE_FP32 or HPU_DTYPE_BF16, the type of A and B
 * @dtype_c: HPU_DTYPE_FP32 or HPU_DTYPE_BF16, the type of C
 * @alpha: binary32 bits of alpha
 * @beta: binary32 bits of beta (0: C is not read)
 */
struct hpu_pkt_mme_gemm {
	struct hpu_pkt_hdr hdr;
	__u64 a_addr;
	__u64 b_addr;
	__u64 c_addr;
	__u64 stride_a;
	__u64 stride_b;
	__u64 stride_c;
	__u32 m;
	__u32 n;
	__u32 k;
	__u32 lda;
	__u32 ldb;
	__u32 ldc;
	__u32 batch;
	__u16 dtype_ab;
	__u16 dtype_c;
	__u32 alpha;
	__u32 beta;
};

/* TPC tensors: at most this many per kernel, each of at most this rank */
#define HPU_TPC_MAX_TENSORS 8
#define HPU_TPC_MAX_DIMS    5
#define HPU_TPC_MAX_PARAMS  16

/**
 * struct hpu_tpc_tensor - one operand of a TPC kernel
 * @addr: device VA of element (0, 0, ...)
 * @dtype: HPU_DTYPE_*
 * @ndims: rank, 0..HPU_TPC_MAX_DIMS (0: a scalar)
 * @sizes: elements along each dimension, dimension 0 innermost; entries
 *	at and past @ndims must be 0
 * @reserved: must be 0
 * @strides: elements between neighbours along each dimension (0:
 *	broadcast along it); entries at and past @ndims must be 0
 */
struct hpu_tpc_tensor {
	__u64 addr;
	__u32 dtype;
	__u32 ndims;
	__u32 sizes[HPU_TPC_MAX_DIMS];
	__u32 reserved;
	__u64 strides[HPU_TPC_MAX_DIMS];
};

/**
 * struct hpu_pkt_tpc_kernel - run a kernel of the TPC kernel library on a
 * TPC queue (kernel ids and their operands: uapi/hpu_tpc_kernels.h)
 * @hdr: opcode HPU_PACKET_TPC_KERNEL, size 720
 * @kernel_id: HPU_TPC_KERNEL_*
 * @num_tensors: tensors used, 1..HPU_TPC_MAX_TENSORS; the others must
 *	be all zero
 * @params: kernel parameters (binary32 bits for real values); those the
 *	kernel does not use must be 0
 * @tensors: operands, in the order the kernel documents
 */
struct hpu_pkt_tpc_kernel {
	struct hpu_pkt_hdr hdr;
	__u32 kernel_id;
	__u32 num_tensors;
	__u32 params[HPU_TPC_MAX_PARAMS];
	struct hpu_tpc_tensor tensors[HPU_TPC_MAX_TENSORS];
};

/* NIC_WRITE flags (struct hpu_pkt_hdr.flags, beside the common bits) */
#define HPU_NIC_F_SIGNAL (1U << 8) /* add sob_value to the peer's sob_id */
#define HPU_NIC_F_MASK	 0x100U

/**
 * struct hpu_pkt_nic_write - write local memory into a peer's registered
 * region through a NIC port, then optionally signal a peer sync object
 * (docs/nic.md)
 * @hdr: opcode HPU_PACKET_NIC_WRITE, size 56 (48 in ABI 1.0, whose
 *	32-bit keys are gone: a 48-byte NIC_WRITE is rejected); flags
 *	HPU_NIC_F_*
 * @src_addr: device VA of the bytes to send in the submitting context
 *	(HBM, SRAM or pinned host memory)
 * @remote_offset: byte offset in the peer's region where they land
 * @size: bytes to write; 0 sends only the signal (HPU_NIC_F_SIGNAL must
 *	then be set)
 * @conn: connection id of the submitting context (HPU_NIC_OP_CONNECT),
 *	made on the port of the queue that runs the packet
 * @pad: must be 0 (where ABI 1.0 had a 32-bit key)
 * @sob_id: with HPU_NIC_F_SIGNAL: sync object of the peer context,
 *	0..HPU_NUM_SOBS-1; otherwise 0
 * @sob_value: with HPU_NIC_F_SIGNAL: added to it (saturating like
 *	MSG_LONG ADD), 1..HPU_SOB_MAX_VALUE; otherwise 0
 * @rkey: key of the peer's region (hpu_nic_out.rkey of HPU_NIC_OP_REG_MR
 *	in the peer's context); the sync object signalled is one of that
 *	context
 *
 * The packet ends when the bytes and the signal were applied at the peer:
 * the data is visible to the peer's engines before its sync object moves.
 * Writes through one connection are applied in order. A write whose key
 * is unknown or revoked, whose region belongs to a context that did not
 * accept the connection (HPU_NIC_OP_ACCEPT), or whose range leaves the
 * region, changes no byte and no sync object: the CS ends with an engine
 * error and both sides get HPU_EVENT_NIC_ACCESS_ERR. A port that is down,
 * or a connection that was dropped, ends the CS with an engine error and
 * an HPU_EVENT_LINK_DOWN event.
 */
struct hpu_pkt_nic_write {
	struct hpu_pkt_hdr hdr;
	__u64 src_addr;
	__u64 remote_offset;
	__u64 size;
	__u32 conn;
	__u32 pad;
	__u32 sob_id;
	__u32 sob_value;
	__u64 rkey;
};

#endif /* HPU_UAPI_PACKETS_H */
