/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_cs.h - libhpudrv: command buffers, command submission and
 * waiting, the command-buffer builder and its packets
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_CS_H
#define HPU_HPUDRV_CS_H

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"
#include "hpudrv_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ command buffers */

/**
 * hpu_cb_create() - register a user command buffer with the device
 * @dev: compute handle
 * @host_ptr: the buffer; it stays in this process
 * @size: bytes, 8..HPU_MAX_CB_SIZE, a multiple of 8
 * @handle: receives the CB handle
 * @va: receives the device VA of the CB (may be NULL)
 *
 * The driver copies the CB at each submission, so it may be rewritten
 * between submissions.
 *
 * Return: 0; -EINVAL; -EFAULT.
 */
HPUDRV_EXPORT int hpu_cb_create(struct hpu_device *dev, void *host_ptr,
				uint32_t size, uint64_t *handle, uint64_t *va);

/**
 * hpu_cb_destroy() - unregister a command buffer
 * @dev: compute handle
 * @handle: CB handle
 *
 * Return: 0; -EINVAL unknown handle; -EBUSY while a CS in flight uses it.
 */
HPUDRV_EXPORT int hpu_cb_destroy(struct hpu_device *dev, uint64_t handle);

/**
 * hpu_cb_info() - size, device VA and users of a command buffer
 * @dev: compute handle
 * @handle: CB handle
 * @out: receives cb_size, device_va and usage_cnt
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_info(struct hpu_device *dev, uint64_t handle,
			      struct hpu_cb_out *out);

/* ---------------------------------------------------- command submission */

/**
 * hpu_cs_submit() - submit a CS (HPU_IOCTL_CS)
 * @dev: compute handle
 * @chunks: @n chunks (struct hpu_cs_chunk of hpu_accel.h)
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @flags: HPU_CS_FLAGS_*
 * @timeout_ms: the CS's timeout; 0 for the driver's default
 * @seq: receives the sequence number
 * @completed: receives 1 when the CS already ended before the call
 *	returned (no WAIT needed), else 0; may be NULL
 *
 * Return: 0; -EINVAL (any invalid packet: nothing ran); -EAGAIN when
 * 1024 CSs are in flight.
 */
HPUDRV_EXPORT int hpu_cs_submit(struct hpu_device *dev,
				const struct hpu_cs_chunk *chunks,
				unsigned int n, uint32_t flags,
				uint32_t timeout_ms, uint64_t *seq,
				int *completed);

/**
 * hpu_cs_submit_signal() - SIGNAL submission: completes when every named
 * queue finished all work submitted to it before
 * @dev: compute handle
 * @queues: @n queue indices
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @seq: receives the sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0 or -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cs_submit_signal(struct hpu_device *dev,
				       const uint32_t *queues, unsigned int n,
				       uint64_t *seq, int *completed);

/**
 * hpu_cs_submit_wait() - WAIT submission: work submitted to @queue after
 * it starts only once every CS in @seqs ended
 * @dev: compute handle
 * @queue: queue index
 * @seqs: @n sequence numbers of this context
 * @n: 1..HPU_WAIT_MULTI_CS_MAX
 * @seq: receives the WAIT CS's own sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0 or -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cs_submit_wait(struct hpu_device *dev, uint32_t queue,
				     const uint64_t *seqs, unsigned int n,
				     uint64_t *seq, int *completed);

/**
 * hpu_cs_wait() - wait for one CS (HPU_IOCTL_WAIT_CS)
 * @dev: compute handle
 * @seq: sequence number
 * @timeout_us: how long to wait; 0 polls
 * @status: receives HPU_WAIT_CS_STATUS_*
 *
 * A wait interrupted by a signal is restarted with the time left.
 *
 * Return: 0 (whatever the status); -EINVAL for a never issued @seq.
 */
HPUDRV_EXPORT int hpu_cs_wait(struct hpu_device *dev, uint64_t seq,
			      uint64_t timeout_us, uint32_t *status);

/**
 * hpu_cs_wait_timestamp() - hpu_cs_wait() that also returns the
 * completion time of a CS submitted with HPU_CS_FLAGS_TIMESTAMP
 * @dev: compute handle
 * @seq: sequence number
 * @timeout_us: how long to wait; 0 polls
 * @status: receives HPU_WAIT_CS_STATUS_*
 * @timestamp_ns: receives the device time of completion, or 0 when the
 *	driver reported none
 *
 * Return: 0 or -errno as hpu_cs_wait().
 */
HPUDRV_EXPORT int hpu_cs_wait_timestamp(struct hpu_device *dev, uint64_t seq,
					uint64_t timeout_us, uint32_t *status,
					uint64_t *timestamp_ns);

/**
 * hpu_cs_wait_multi() - wait for all (or any) of several CSs
 * @dev: compute handle
 * @seqs: @n sequence numbers
 * @n: 1..HPU_WAIT_MULTI_CS_MAX
 * @any: non-zero: return when the first one ended
 * @timeout_us: how long to wait; 0 polls
 * @status: receives COMPLETED when all that ended succeeded, else the
 *	status of the first failed one, or BUSY when not met in time
 * @map: receives bit i set for each entry that ended (may be NULL)
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cs_wait_multi(struct hpu_device *dev,
				    const uint64_t *seqs, unsigned int n,
				    int any, uint64_t timeout_us,
				    uint32_t *status, uint32_t *map);

/* ------------------------------------------------ command-buffer builder */

/** struct hpu_cb_builder - a command buffer being filled (opaque) */
struct hpu_cb_builder;

/**
 * hpu_cb_builder_create() - a page-aligned buffer registered once as a CB
 * @dev: compute handle
 * @size: capacity in bytes, 8..HPU_MAX_CB_SIZE, a multiple of 8
 * @bp: receives the builder
 *
 * Return: 0; -EINVAL; -ENOMEM; -errno of hpu_cb_create().
 */
HPUDRV_EXPORT int hpu_cb_builder_create(struct hpu_device *dev, size_t size,
					struct hpu_cb_builder **bp);

/**
 * hpu_cb_builder_destroy() - unregister the CB and free the buffer
 * @b: builder or NULL
 */
HPUDRV_EXPORT void hpu_cb_builder_destroy(struct hpu_cb_builder *b);

/**
 * hpu_cb_builder_reset() - empty the builder to fill it again
 * @b: builder
 *
 * The driver copied what earlier submissions run, so resetting right
 * after hpu_cb_builder_submit() is safe.
 */
HPUDRV_EXPORT void hpu_cb_builder_reset(struct hpu_cb_builder *b);

/** hpu_cb_builder_size() - capacity of @b in bytes */
HPUDRV_EXPORT size_t hpu_cb_builder_size(const struct hpu_cb_builder *b);

/** hpu_cb_builder_used() - bytes of packets in @b */
HPUDRV_EXPORT size_t hpu_cb_builder_used(const struct hpu_cb_builder *b);

/** hpu_cb_builder_data() - the packets of @b (hpu_cb_builder_used() bytes) */
HPUDRV_EXPORT const void *hpu_cb_builder_data(const struct hpu_cb_builder *b);

/** hpu_cb_builder_handle() - CB handle of @b (0 when not registered) */
HPUDRV_EXPORT uint64_t hpu_cb_builder_handle(const struct hpu_cb_builder *b);

/**
 * hpu_cb_builder_submit() - submit the packets of @b as one CS
 * @b: builder with at least one packet
 * @queue: queue index that runs it
 * @flags: HPU_CS_FLAGS_TIMESTAMP or 0
 * @timeout_ms: CS timeout, 0 for the default
 * @seq: receives the sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0; -ENODATA when @b is empty; -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cb_builder_submit(struct hpu_cb_builder *b,
					uint32_t queue, uint32_t flags,
					uint32_t timeout_ms, uint64_t *seq,
					int *completed);

/*
 * Emitters: append one packet. Each returns 0, -ENOSPC when the packet
 * does not fit (nothing is written), or -EINVAL for arguments the
 * driver's validator would reject (uapi/hpu_packets.h).
 */

/** hpu_cb_nop() - append NOP */
HPUDRV_EXPORT int hpu_cb_nop(struct hpu_cb_builder *b);

/** hpu_cb_stop() - append STOP (ends execution of the CB) */
HPUDRV_EXPORT int hpu_cb_stop(struct hpu_cb_builder *b);

/**
 * hpu_cb_lin_dma() - append LIN_DMA
 * @b: builder
 * @dst: device VA of the destination
 * @src: device VA of the source
 * @size: bytes (0 is a no-op)
 *
 * Return: 0 or -ENOSPC.
 */
HPUDRV_EXPORT int hpu_cb_lin_dma(struct hpu_cb_builder *b, uint64_t dst,
				 uint64_t src, uint64_t size);

/**
 * hpu_cb_memset() - append MEMSET
 * @b: builder
 * @dst: device VA, aligned to @width
 * @size: bytes, a multiple of @width
 * @value: pattern (low @width bytes, little-endian)
 * @width: element width 1, 2, 4 or 8
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_memset(struct hpu_cb_builder *b, uint64_t dst,
				uint64_t size, uint64_t value,
				unsigned int width);

/**
 * hpu_cb_msg_long() - append MSG_LONG: set or add to a sync object
 * @b: builder
 * @sob: 0..HPU_NUM_SOBS-1
 * @op: HPU_MSG_OP_SET or HPU_MSG_OP_ADD
 * @value: 0..HPU_SOB_MAX_VALUE
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_msg_long(struct hpu_cb_builder *b, uint32_t sob,
				  uint32_t op, uint32_t value);

/**
 * hpu_cb_fence() - append FENCE: the queue waits until sob >= @target,
 * then subtracts @dec
 * @b: builder
 * @sob: 0..HPU_NUM_SOBS-1
 * @target: 1..HPU_SOB_MAX_VALUE
 * @dec: 0..@target
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_fence(struct hpu_cb_builder *b, uint32_t sob,
			       uint32_t target, uint32_t dec);

/**
 * hpu_sob_alloc() - take consecutive sync objects of a handle
 * @dev: compute handle
 * @count: 1..HPU_NUM_SOBS
 * @base: receives the first one
 *
 * The library's users of SOBs (stream fences, libhpuccl's communicators)
 * take theirs here, from the top of the range, so they never collide;
 * an application that numbers its own SOBs from 0 keeps clear of them.
 * Their values are unknown: set them before use.
 *
 * Return: 0, -EINVAL, or -ENOSPC when no @count free ones are adjacent.
 */
HPUDRV_EXPORT int hpu_sob_alloc(struct hpu_device *dev, uint32_t count,
				uint32_t *base);

/**
 * hpu_sob_free() - give back what hpu_sob_alloc() took
 * @dev: compute handle
 * @base: first SOB
 * @count: how many
 *
 * A range not wholly taken by hpu_sob_alloc() (a stream's SOB, a free
 * one, out of range) changes nothing.
 */
HPUDRV_EXPORT void hpu_sob_free(struct hpu_device *dev, uint32_t base,
				uint32_t count);

/**
 * hpu_cb_arm_monitor() - append ARM_MONITOR: when sob >= @target, write
 * @payload (32 bits) at @addr once
 * @b: builder
 * @mon: 0..HPU_NUM_MONITORS-1
 * @sob: 0..HPU_NUM_SOBS-1
 * @target: 1..HPU_SOB_MAX_VALUE
 * @payload: value written
 * @addr: device VA, 4-byte aligned
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_arm_monitor(struct hpu_cb_builder *b, uint32_t mon,
				     uint32_t sob, uint32_t target,
				     uint32_t payload, uint64_t addr);

/* ---------------------------------------------------- engine packets */

/**
 * hpu_cb_mme_gemm() - append an MME_GEMM packet (run it on an MME queue)
 * @b: builder
 * @gemm: the product; @gemm->hdr is filled in by the call (its flags
 *	field carries HPU_MME_F_TRANS_A/B and is kept)
 *
 * The shapes, leading dimensions, strides, dtypes and address ranges are
 * checked on the host with the driver's own rules before anything is
 * appended.
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_mme_gemm(struct hpu_cb_builder *b,
				  const struct hpu_pkt_mme_gemm *gemm);

/**
 * hpu_cb_tpc_kernel() - append a TPC_KERNEL packet (run it on a TPC queue)
 * @b: builder
 * @kernel_id: HPU_TPC_KERNEL_* (uapi/hpu_tpc_kernels.h)
 * @tensors: the kernel's operands in its documented order
 * @num_tensors: 1..HPU_TPC_MAX_TENSORS
 * @params: kernel parameters (binary32 bits for reals), may be NULL
 * @num_params: 0..HPU_TPC_MAX_PARAMS
 *
 * The operands are checked on the host with the driver's own rules for
 * @kernel_id (docs/tpc-kernels.md) before anything is appended.
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_tpc_kernel(struct hpu_cb_builder *b,
				    uint32_t kernel_id,
				    const struct hpu_tpc_tensor *tensors,
				    unsigned int num_tensors,
				    const uint32_t *params,
				    unsigned int num_params);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_CS_H */
