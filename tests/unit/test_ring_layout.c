// SPDX-License-Identifier: MIT
/*
 * test_ring_layout.c - the ABI of uapi/hpu_ring.h does not move: sizes
 * and offsets written out by hand from docs/rings.md, the layout macros
 * (the CB arena's of 1.4 too), the bounds, and the command number.
 */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <cmocka.h>

#include "hpu_ring.h"

#define SIZE(type, expect)                                \
	do {                                              \
		assert_int_equal(sizeof(type), (expect)); \
		assert_int_equal(sizeof(type) % 8, 0);    \
	} while (0)

#define OFF(type, member, expect) \
	assert_int_equal(offsetof(type, member), (expect))

static void test_hdr(void **state)
{
	(void)state;
	SIZE(struct hpu_ring_hdr, 256);
	assert_true(sizeof(struct hpu_ring_hdr) <= HPU_RING_HDR_SIZE);
	assert_int_equal(alignof(struct hpu_ring_hdr), 8);
	/* line 0: the client's SQ words */
	OFF(struct hpu_ring_hdr, sq_tail, 0);
	OFF(struct hpu_ring_hdr, sq_doorbell, 4);
	OFF(struct hpu_ring_hdr, producer_cpu, 8);
	OFF(struct hpu_ring_hdr, pad0, 12);
	/* line 1: the driver's SQ words */
	OFF(struct hpu_ring_hdr, sq_head, 64);
	OFF(struct hpu_ring_hdr, sq_need_wakeup, 68);
	OFF(struct hpu_ring_hdr, flags, 72);
	OFF(struct hpu_ring_hdr, pad1, 76);
	OFF(struct hpu_ring_hdr, sq_seq, 80);
	OFF(struct hpu_ring_hdr, cb_arena_offset, 88);
	OFF(struct hpu_ring_hdr, cb_arena_size, 92);
	OFF(struct hpu_ring_hdr, consumer_cpu, 96);
	OFF(struct hpu_ring_hdr, pad1b, 100);
	/* line 2: the driver's CQ words */
	OFF(struct hpu_ring_hdr, completed_seq, 128);
	OFF(struct hpu_ring_hdr, cq_tail, 136);
	OFF(struct hpu_ring_hdr, cq_futex, 140);
	OFF(struct hpu_ring_hdr, error, 144);
	OFF(struct hpu_ring_hdr, cq_event, 148);
	OFF(struct hpu_ring_hdr, pad2, 152);
	/* line 3: the client's CQ words */
	OFF(struct hpu_ring_hdr, cq_head, 192);
	OFF(struct hpu_ring_hdr, cq_waiters, 196);
	OFF(struct hpu_ring_hdr, pad3, 200);
	assert_int_equal(HPU_RING_NEED_WAKEUP, 1);
	assert_int_equal(HPU_RING_HDR_F_SQ_SEQ, 1);
	assert_int_equal(HPU_RING_HDR_F_CQ_EVENT, 2);
	assert_int_equal(HPU_RING_HDR_F_CB_ARENA, 4);
	assert_int_equal(HPU_RING_HDR_F_CPU, 8);
}

static void test_sqe_cqe(void **state)
{
	(void)state;
	SIZE(struct hpu_ring_sqe, 32);
	OFF(struct hpu_ring_sqe, user_data, 0);
	OFF(struct hpu_ring_sqe, num_slots, 8);
	OFF(struct hpu_ring_sqe, num_chunks, 12);
	OFF(struct hpu_ring_sqe, cs_flags, 16);
	OFF(struct hpu_ring_sqe, timeout_ms, 20);
	OFF(struct hpu_ring_sqe, flags, 24);
	OFF(struct hpu_ring_sqe, cb_offset, 28);

	SIZE(struct hpu_ring_cqe, 32);
	OFF(struct hpu_ring_cqe, user_data, 0);
	OFF(struct hpu_ring_cqe, seq, 8);
	OFF(struct hpu_ring_cqe, timestamp_ns, 16);
	OFF(struct hpu_ring_cqe, res, 24);
	OFF(struct hpu_ring_cqe, status, 28);
	OFF(struct hpu_ring_cqe, flags, 30);
	assert_int_equal(HPU_RING_CQE_F_TIMESTAMP, 1);

	/* an entry is a header slot, chunk slots, number slots */
	assert_int_equal(HPU_RING_SLOT_SIZE, 32);
	assert_int_equal(sizeof(struct hpu_cs_chunk), HPU_RING_SLOT_SIZE);
	assert_int_equal(HPU_RING_SEQS_PER_SLOT, 4);
	assert_int_equal(HPU_RING_SQE_F_CB_ARENA, 1);
	assert_int_equal(HPU_RING_SQE_FLAGS_MASK, 1);
}

static void test_args(void **state)
{
	(void)state;
	SIZE(struct hpu_ring_in, 40);
	OFF(struct hpu_ring_in, offset, 0);
	OFF(struct hpu_ring_in, size, 8);
	OFF(struct hpu_ring_in, fd, 16);
	OFF(struct hpu_ring_in, op, 20);
	OFF(struct hpu_ring_in, sq_slots, 24);
	OFF(struct hpu_ring_in, cq_entries, 28);
	OFF(struct hpu_ring_in, flags, 32);
	OFF(struct hpu_ring_in, pad, 36);

	SIZE(struct hpu_ring_out, 40);
	OFF(struct hpu_ring_out, size, 0);
	OFF(struct hpu_ring_out, sq_offset, 8);
	OFF(struct hpu_ring_out, cq_offset, 16);
	OFF(struct hpu_ring_out, next_seq, 24);
	OFF(struct hpu_ring_out, reserved, 32);

	SIZE(union hpu_ring_args, 40);
	assert_int_equal(HPU_RING_OP_REGISTER, 0);
	assert_int_equal(HPU_RING_OP_UNREGISTER, 1);
	assert_int_equal(HPU_RING_FLAGS_CB_ARENA, 1);
	assert_int_equal(HPU_RING_FLAGS_MASK, 1);

	assert_int_equal(HPU_COMMAND_RING, 0x07);
	assert_int_equal(_IOC_NR(HPU_IOCTL_RING), 0x47);
	assert_int_equal(_IOC_SIZE(HPU_IOCTL_RING), 40);
	assert_int_equal(_IOC_DIR(HPU_IOCTL_RING), _IOC_READ | _IOC_WRITE);
	assert_int_equal(HPU_IOCTL_RING, 0xc0286447UL);
	assert_int_equal(HPU_CAP_RING, 1ULL << 11);
	assert_int_equal(HPU_EVENT_RING_ERR, 8);
}

static void test_layout_macros(void **state)
{
	(void)state;
	assert_int_equal(HPU_RING_HDR_SIZE, 4096);
	assert_int_equal(HPU_RING_ALIGN, 4096);
	assert_int_equal(HPU_RING_SQ_OFFSET, 4096);
	/* every part starts on a page */
	assert_int_equal(HPU_RING_CQ_OFFSET(16), 8192);
	assert_int_equal(HPU_RING_CQ_OFFSET(128), 8192);
	assert_int_equal(HPU_RING_CQ_OFFSET(256), 4096 + 8192);
	assert_int_equal(HPU_RING_SIZE(16, 16), 3 * 4096);
	assert_int_equal(HPU_RING_SIZE(256, 1024), 4096 + 8192 + 32768);
	assert_int_equal(HPU_RING_SIZE(65536, 65536), 4096 + 2 * (2ULL << 20));
	/* 64-bit arithmetic: no overflow for any __u32 */
	assert_true(HPU_RING_SIZE(0xffffffffU, 0xffffffffU) >
		    2 * 32 * 0xffffffffULL);

	/* the CB arena (1.4): after the CQ, on a page of its own */
	assert_int_equal(HPU_RING_CB_ARENA_OFFSET(16, 16), 3 * 4096);
	assert_int_equal(HPU_RING_CB_ARENA_OFFSET(1024, 1024),
			 4096 + 32768 + 32768);
	assert_int_equal(HPU_RING_SIZE_CB_ARENA(1024, 1024, 65536),
			 4096 + 32768 + 32768 + 65536);
	assert_int_equal(HPU_RING_SIZE_CB_ARENA(16, 16, 0),
			 HPU_RING_SIZE(16, 16));
	assert_int_equal(HPU_RING_CB_ARENA_OFFSET(256, 16) % HPU_RING_ALIGN, 0);
	assert_int_equal(HPU_RING_CB_ARENA_MIN, 4096);
	assert_int_equal(HPU_RING_CB_ARENA_MAX, 1U << 20);
	assert_int_equal(HPU_RING_CB_ARENA_MAX_ENTRY, 65536);
	assert_true(HPU_RING_CB_ARENA_MAX_ENTRY <= HPU_RING_CB_ARENA_MAX);
	/* the largest region's arena offset fits cb_arena_offset (__u32) */
	assert_true(HPU_RING_CB_ARENA_OFFSET(65536, 65536) < (1ULL << 32));

	assert_int_equal(HPU_RING_MIN_ENTRIES, 16);
	assert_int_equal(HPU_RING_MAX_ENTRIES, 65536);
	/* the largest entries: a WAIT of 64 x 32 numbers, a 512-chunk CS */
	assert_int_equal(HPU_RING_MAX_ENTRY_SLOTS,
			 1 + HPU_WAIT_MAX_CHUNKS +
				 HPU_WAIT_MAX_CHUNKS * HPU_WAIT_MULTI_CS_MAX /
					 HPU_RING_SEQS_PER_SLOT);
	assert_true(HPU_RING_MAX_ENTRY_SLOTS >= 1 + HPU_MAX_JOBS_PER_CS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr),
		cmocka_unit_test(test_sqe_cqe),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_layout_macros),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
