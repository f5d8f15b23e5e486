// SPDX-License-Identifier: MIT
/*
 * cs_check.c - the checks of a CS description that need nothing but the
 * description: its flags, chunk count and timeout, and each chunk. Both
 * submission paths use them, HPU_IOCTL_CS (cs.c) and the ring consumer
 * (ring_consume.c): one validation path (docs/command-submission.md,
 * "CS"; docs/rings.md, "Validation"). Pure: no lock, no allocation.
 */
#include <errno.h>

#include "hpu_fused.h"

/**
 * hfd_cs_check_args() - check the CS-wide values of a submission
 * @cs_flags: HPU_CS_FLAGS_*
 * @num_chunks: chunks of the submission
 * @timeout_ms: its timeout (0: the driver's default)
 *
 * Return: 0, or -EINVAL for an unknown flag, SIGNAL together with WAIT,
 * a chunk count outside 1..HPU_MAX_JOBS_PER_CS (WAIT:
 * 1..HPU_WAIT_MAX_CHUNKS) or a timeout above HPU_CS_TIMEOUT_MAX_MS.
 */
int hfd_cs_check_args(uint32_t cs_flags, uint32_t num_chunks,
		      uint32_t timeout_ms)
{
	if (cs_flags & ~HPU_CS_FLAGS_MASK)
		return -EINVAL;
	if ((cs_flags & HPU_CS_FLAGS_SIGNAL) && (cs_flags & HPU_CS_FLAGS_WAIT))
		return -EINVAL;
	if (num_chunks < 1 || num_chunks > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	if ((cs_flags & HPU_CS_FLAGS_WAIT) && num_chunks > HPU_WAIT_MAX_CHUNKS)
		return -EINVAL;
	if (timeout_ms > HPU_CS_TIMEOUT_MAX_MS)
		return -EINVAL;
	return 0;
}

/**
 * hfd_cs_check_chunk() - check one chunk of a submission
 * @num_queues: hardware queues of the device
 * @c: the chunk (a copy the caller owns)
 * @cs_flags: HPU_CS_FLAGS_* of its submission
 *
 * SIGNAL chunks name only a queue; WAIT chunks 1..HPU_WAIT_MULTI_CS_MAX
 * sequence numbers (@c->cb_size) at @c->cb_handle (the ioctl: a user
 * pointer, never 0; the ring checks its own rule for it); normal chunks
 * run 8.. bytes, a multiple of 8, of a CB (its handle and size are
 * checked when the CB is looked up).
 *
 * Return: 0 or -EINVAL.
 */
int hfd_cs_check_chunk(uint32_t num_queues, const struct hpu_cs_chunk *c,
		       uint32_t cs_flags)
{
	if (c->flags || c->pad || c->reserved || c->queue_index >= num_queues)
		return -EINVAL;
	if (cs_flags & HPU_CS_FLAGS_SIGNAL)
		return c->cb_handle || c->cb_size ? -EINVAL : 0;
	if (cs_flags & HPU_CS_FLAGS_WAIT)
		return !c->cb_size || c->cb_size > HPU_WAIT_MULTI_CS_MAX ?
			       -EINVAL :
			       0;
	return c->cb_size < 8 || c->cb_size % 8 ? -EINVAL : 0;
}
