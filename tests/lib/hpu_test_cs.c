// SPDX-License-Identifier: MIT
/*
 * hpu_test_cs.c - raw CS, CB and WAIT_CS calls of the CS ioctl tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hpu_test_cs.h"
#include "hpu_test_util.h"

#define WAIT_US 20000000ULL

int hpu_test_cs_submit(int fd, struct hpu_cs_chunk *chunks, uint32_t n,
		       uint32_t flags, uint32_t timeout_ms, uint64_t *seq,
		       uint32_t *out_flags)
{
	union hpu_cs_args a = { .in = { .chunks_execute = (uintptr_t)chunks,
					.num_chunks_execute = n,
					.cs_flags = flags,
					.timeout_ms = timeout_ms } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_CS, &a);

	if (!ret && seq)
		*seq = a.out.seq;
	if (!ret && out_flags)
		*out_flags = a.out.flags;
	return ret;
}

int hpu_test_cs_run_cb(int fd, const void *pkts, uint32_t len, uint32_t queue,
		       uint32_t timeout_ms, uint64_t *seq)
{
	static __thread uint64_t buf[64][32];
	static __thread unsigned int next;
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.cb_size = sizeof(buf[0]) } };
	struct hpu_cs_chunk c = { .queue_index = queue, .cb_size = len };
	uint64_t *b = buf[next++ % 64];

	memcpy(b, pkts, len);
	a.in.host_ptr = (uintptr_t)b;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	c.cb_handle = a.out.cb_handle;
	return hpu_test_cs_submit(fd, &c, 1, 0, timeout_ms, seq, NULL);
}

int hpu_test_cs_wait(int fd, uint64_t seq, uint64_t timeout_us,
		     uint32_t *status)
{
	union hpu_wait_cs_args w = { .in = { .seq = seq,
					     .timeout_us = timeout_us } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_WAIT_CS, &w);

	if (!ret)
		*status = w.out.status;
	return ret;
}

uint32_t hpu_test_cs_wait_status(int fd, uint64_t seq)
{
	uint32_t status = ~0U;

	assert_int_equal(hpu_test_cs_wait(fd, seq, WAIT_US, &status), 0);
	return status;
}

struct hpu_pkt_fence hpu_test_pkt_fence(uint32_t sob)
{
	struct hpu_pkt_fence p = { .hdr = { .opcode = HPU_PACKET_FENCE,
					    .size = sizeof(p) },
				   .sob_id = sob,
				   .target = 1,
				   .dec = 1 };
	return p;
}

struct hpu_pkt_msg_long hpu_test_pkt_inc(uint32_t sob)
{
	struct hpu_pkt_msg_long p = { .hdr = { .opcode = HPU_PACKET_MSG_LONG,
					       .size = sizeof(p) },
				      .sob_id = sob,
				      .op = HPU_MSG_OP_ADD,
				      .value = 1 };
	return p;
}
