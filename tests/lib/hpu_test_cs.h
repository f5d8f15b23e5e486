/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_cs.h - command submission through raw ioctls on an open
 * compute node, for the tests of the CS ioctls themselves: submit, run
 * one fresh CB, wait, and the sync packets they build
 * (docs/command-submission.md).
 */
#ifndef HPU_TEST_CS_H
#define HPU_TEST_CS_H

#include <stdint.h>

#include "hpu_accel.h"
#include "hpu_packets.h"

/**
 * hpu_test_cs_submit() - HPU_IOCTL_CS
 * @fd: compute node
 * @chunks: chunk array (passed as is, may be a bad pointer)
 * @n: chunks
 * @flags: cs_flags
 * @timeout_ms: the CS's timeout (0: the default)
 * @seq: receives the sequence number when the call succeeds, or NULL
 * @out_flags: receives the answer's flags when the call succeeds, or NULL
 *
 * Return: 0 or -errno.
 */
int hpu_test_cs_submit(int fd, struct hpu_cs_chunk *chunks, uint32_t n,
		       uint32_t flags, uint32_t timeout_ms, uint64_t *seq,
		       uint32_t *out_flags);

/**
 * hpu_test_cs_run_cb() - create a CB holding @pkts and submit it alone
 * on @queue
 * @fd: compute node
 * @pkts: packets
 * @len: their bytes, at most 256
 * @queue: queue index
 * @timeout_ms: the CS's timeout
 * @seq: receives the sequence number, or NULL
 *
 * The CB memory comes from a per-thread ring of 64 buffers: a CB is
 * reused after 64 more calls of the thread. The CB create must succeed
 * (cmocka assertion).
 *
 * Return: what hpu_test_cs_submit() answered.
 */
int hpu_test_cs_run_cb(int fd, const void *pkts, uint32_t len, uint32_t queue,
		       uint32_t timeout_ms, uint64_t *seq);

/**
 * hpu_test_cs_wait() - HPU_IOCTL_WAIT_CS
 * @fd: compute node
 * @seq: sequence number
 * @timeout_us: bound (0: poll)
 * @status: receives the status when the call succeeds
 *
 * Return: 0 or -errno.
 */
int hpu_test_cs_wait(int fd, uint64_t seq, uint64_t timeout_us,
		     uint32_t *status);

/**
 * hpu_test_cs_wait_status() - wait (at most 20 s) for CS @seq, which must
 * succeed (cmocka assertion)
 * @fd: compute node
 * @seq: sequence number
 *
 * Return: the WAIT_CS status.
 */
uint32_t hpu_test_cs_wait_status(int fd, uint64_t seq);

/**
 * hpu_test_pkt_fence() - FENCE waiting for SOB @sob to reach 1, then
 * decrementing it by 1
 * @sob: sync object
 */
struct hpu_pkt_fence hpu_test_pkt_fence(uint32_t sob);

/**
 * hpu_test_pkt_inc() - MSG_LONG adding 1 to SOB @sob
 * @sob: sync object
 */
struct hpu_pkt_msg_long hpu_test_pkt_inc(uint32_t sob);

#endif /* HPU_TEST_CS_H */
