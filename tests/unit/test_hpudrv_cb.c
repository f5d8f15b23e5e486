// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_cb.c - the command-buffer builder without a device: packet
 * encoding, bounds (-ENOSPC), host-side argument checks (-EINVAL), reset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hpudrv.h"
#include "../../libhpudrv/hpudrv_internal.h"

static struct hpu_cb_builder *new_builder(size_t size)
{
	struct hpu_cb_builder *b = NULL;

	assert_int_equal(hpudrv_cb_builder_new(NULL, size, &b), 0);
	assert_non_null(b);
	return b;
}

static const struct hpu_pkt_hdr *hdr_at(struct hpu_cb_builder *b, size_t off)
{
	return (const struct hpu_pkt_hdr *)((const uint8_t *)
						    hpu_cb_builder_data(b) +
					    off);
}

static void test_create_args(void **state)
{
	struct hpu_cb_builder *b;

	(void)state;
	assert_int_equal(hpudrv_cb_builder_new(NULL, 0, &b), -EINVAL);
	assert_int_equal(hpudrv_cb_builder_new(NULL, 12, &b), -EINVAL);
	assert_int_equal(hpudrv_cb_builder_new(NULL, HPU_MAX_CB_SIZE + 8, &b),
			 -EINVAL);
	assert_int_equal(hpu_cb_builder_create(NULL, 4096, &b), -EINVAL);
	b = new_builder(4096);
	assert_int_equal((uintptr_t)hpu_cb_builder_data(b) %
				 (uintptr_t)sysconf(_SC_PAGESIZE),
			 0);
	assert_int_equal(hpu_cb_builder_size(b), 4096);
	assert_int_equal(hpu_cb_builder_used(b), 0);
	assert_int_equal(hpu_cb_builder_handle(b), 0);
	/* unregistered: cannot be submitted */
	assert_int_equal(hpu_cb_builder_submit(b, 0, 0, 0, NULL, NULL),
			 -EINVAL);
	hpu_cb_builder_destroy(b);
}

static void test_encoding(void **state)
{
	struct hpu_cb_builder *b = new_builder(4096);
	const struct hpu_pkt_lin_dma *dma;
	const struct hpu_pkt_memset *ms;
	const struct hpu_pkt_msg_long *msg;
	const struct hpu_pkt_fence *f;
	const struct hpu_pkt_arm_monitor *mon;
	size_t off = 0;

	(void)state;
	assert_int_equal(hpu_cb_nop(b), 0);
	assert_int_equal(hpu_cb_lin_dma(b, 0x1000, 0x2000, 77), 0);
	assert_int_equal(hpu_cb_memset(b, 0x3000, 64, 0xabcd, 2), 0);
	assert_int_equal(hpu_cb_msg_long(b, 5, HPU_MSG_OP_ADD, 1), 0);
	assert_int_equal(hpu_cb_fence(b, 5, 3, 3), 0);
	assert_int_equal(hpu_cb_arm_monitor(b, 63, 511, 2, 0xfeed, 0x4004), 0);
	assert_int_equal(hpu_cb_stop(b), 0);
	assert_int_equal(hpu_cb_builder_used(b),
			 8 + 32 + 32 + 24 + 24 + 40 + 8);

	assert_int_equal(hdr_at(b, off)->opcode, HPU_PACKET_NOP);
	assert_int_equal(hdr_at(b, off)->size, 8);
	off += 8;
	dma = (const void *)hdr_at(b, off);
	assert_int_equal(dma->hdr.opcode, HPU_PACKET_LIN_DMA);
	assert_int_equal(dma->hdr.size, sizeof(*dma));
	assert_int_equal(dma->hdr.flags, 0);
	assert_int_equal(dma->dst_addr, 0x1000);
	assert_int_equal(dma->src_addr, 0x2000);
	assert_int_equal(dma->size, 77);
	off += sizeof(*dma);
	ms = (const void *)hdr_at(b, off);
	assert_int_equal(ms->hdr.opcode, HPU_PACKET_MEMSET);
	assert_int_equal(ms->hdr.flags, HPU_MEMSET_F_ELEM_2);
	assert_int_equal(ms->dst_addr, 0x3000);
	assert_int_equal(ms->size, 64);
	assert_int_equal(ms->value, 0xabcd);
	off += sizeof(*ms);
	msg = (const void *)hdr_at(b, off);
	assert_int_equal(msg->hdr.opcode, HPU_PACKET_MSG_LONG);
	assert_int_equal(msg->hdr.size, 24);
	assert_int_equal(msg->sob_id, 5);
	assert_int_equal(msg->op, HPU_MSG_OP_ADD);
	assert_int_equal(msg->value, 1);
	assert_int_equal(msg->reserved, 0);
	off += sizeof(*msg);
	f = (const void *)hdr_at(b, off);
	assert_int_equal(f->hdr.opcode, HPU_PACKET_FENCE);
	assert_int_equal(f->target, 3);
	assert_int_equal(f->dec, 3);
	off += sizeof(*f);
	mon = (const void *)hdr_at(b, off);
	assert_int_equal(mon->hdr.opcode, HPU_PACKET_ARM_MONITOR);
	assert_int_equal(mon->hdr.size, 40);
	assert_int_equal(mon->mon_id, 63);
	assert_int_equal(mon->sob_id, 511);
	assert_int_equal(mon->payload, 0xfeed);
	assert_int_equal(mon->payload_addr, 0x4004);
	off += sizeof(*mon);
	assert_int_equal(hdr_at(b, off)->opcode, HPU_PACKET_STOP);
	hpu_cb_builder_destroy(b);
}

static void test_memset_widths(void **state)
{
	static const struct {
		unsigned int width;
		uint16_t flag;
	} w[] = { { 1, HPU_MEMSET_F_ELEM_1 },
		  { 2, HPU_MEMSET_F_ELEM_2 },
		  { 4, HPU_MEMSET_F_ELEM_4 },
		  { 8, HPU_MEMSET_F_ELEM_8 } };
	struct hpu_cb_builder *b = new_builder(4096);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		hpu_cb_builder_reset(b);
		assert_int_equal(hpu_cb_memset(b, 8 * w[i].width,
					       16 * w[i].width, 1, w[i].width),
				 0);
		assert_int_equal(hdr_at(b, 0)->flags, w[i].flag);
	}
	hpu_cb_builder_destroy(b);
}

static void test_rejected_args(void **state)
{
	struct hpu_cb_builder *b = new_builder(4096);

	(void)state;
	assert_int_equal(hpu_cb_memset(b, 0, 8, 0, 3), -EINVAL);
	assert_int_equal(hpu_cb_memset(b, 2, 8, 0, 4), -EINVAL);
	assert_int_equal(hpu_cb_memset(b, 0, 6, 0, 4), -EINVAL);
	assert_int_equal(hpu_cb_msg_long(b, HPU_NUM_SOBS, 0, 0), -EINVAL);
	assert_int_equal(hpu_cb_msg_long(b, 0, 2, 0), -EINVAL);
	assert_int_equal(hpu_cb_msg_long(b, 0, 0, HPU_SOB_MAX_VALUE + 1),
			 -EINVAL);
	assert_int_equal(hpu_cb_fence(b, 0, 0, 0), -EINVAL);
	assert_int_equal(hpu_cb_fence(b, 0, HPU_SOB_MAX_VALUE + 1, 0), -EINVAL);
	assert_int_equal(hpu_cb_fence(b, 0, 2, 3), -EINVAL);
	assert_int_equal(hpu_cb_fence(b, HPU_NUM_SOBS, 1, 0), -EINVAL);
	assert_int_equal(hpu_cb_arm_monitor(b, HPU_NUM_MONITORS, 0, 1, 0, 0),
			 -EINVAL);
	assert_int_equal(hpu_cb_arm_monitor(b, 0, HPU_NUM_SOBS, 1, 0, 0),
			 -EINVAL);
	assert_int_equal(hpu_cb_arm_monitor(b, 0, 0, 0, 0, 0), -EINVAL);
	assert_int_equal(hpu_cb_arm_monitor(b, 0, 0, 1, 0, 2), -EINVAL);
	/* nothing was written by a rejected call */
	assert_int_equal(hpu_cb_builder_used(b), 0);
	assert_int_equal(hpu_cb_nop(NULL), -EINVAL);
	hpu_cb_builder_destroy(b);
}

static void test_full_and_reset(void **state)
{
	struct hpu_cb_builder *b = new_builder(64);

	(void)state;
	assert_int_equal(hpu_cb_lin_dma(b, 1, 2, 3), 0);
	assert_int_equal(hpu_cb_msg_long(b, 0, 0, 0), 0);
	/* 56 used: a 32-byte packet does not fit, an 8-byte one does */
	assert_int_equal(hpu_cb_memset(b, 0, 8, 0, 1), -ENOSPC);
	assert_int_equal(hpu_cb_builder_used(b), 56);
	assert_int_equal(hpu_cb_nop(b), 0);
	assert_int_equal(hpu_cb_nop(b), -ENOSPC);
	assert_int_equal(hpu_cb_builder_used(b), 64);
	hpu_cb_builder_reset(b);
	assert_int_equal(hpu_cb_builder_used(b), 0);
	assert_int_equal(hpu_cb_arm_monitor(b, 0, 0, 1, 0, 0), 0);
	assert_int_equal(hpu_cb_builder_used(b), 40);
	hpu_cb_builder_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_args),
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_memset_widths),
		cmocka_unit_test(test_rejected_args),
		cmocka_unit_test(test_full_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
