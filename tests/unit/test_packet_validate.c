// SPDX-License-Identifier: MIT
/*
 * test_packet_validate.c - the driver's packet validator, rule by rule
 * (uapi/hpu_packets.h): valid streams pass, each malformed field fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hpu_fused.h"
#include "hpu_packets.h"

#define HDR(op, type)                                             \
	{                                                         \
		.opcode = (op), .size = sizeof(type), .flags = 0, \
		.reserved = 0                                     \
	}

static const struct hpu_pkt_nop nop = { .hdr = HDR(HPU_PACKET_NOP,
						   struct hpu_pkt_nop) };
static const struct hpu_pkt_lin_dma dma = {
	.hdr = HDR(HPU_PACKET_LIN_DMA, struct hpu_pkt_lin_dma),
	.src_addr = 0x200000000000ULL,
	.dst_addr = 0x100000000000ULL,
	.size = 4096,
};
static const struct hpu_pkt_memset mset = {
	.hdr = HDR(HPU_PACKET_MEMSET, struct hpu_pkt_memset),
	.dst_addr = 0x100000000000ULL,
	.size = 64,
	.value = 0x11,
};
static const struct hpu_pkt_msg_long msg = {
	.hdr = HDR(HPU_PACKET_MSG_LONG, struct hpu_pkt_msg_long),
	.sob_id = HPU_NUM_SOBS - 1,
	.op = HPU_MSG_OP_ADD,
	.value = HPU_SOB_MAX_VALUE,
};
static const struct hpu_pkt_fence fence = {
	.hdr = HDR(HPU_PACKET_FENCE, struct hpu_pkt_fence),
	.sob_id = 3,
	.target = 2,
	.dec = 2,
};
static const struct hpu_pkt_arm_monitor mon = {
	.hdr = HDR(HPU_PACKET_ARM_MONITOR, struct hpu_pkt_arm_monitor),
	.mon_id = HPU_NUM_MONITORS - 1,
	.sob_id = 1,
	.target = 1,
	.payload = 7,
	.payload_addr = 0x100000000004ULL,
};
static const struct hpu_pkt_stop stop = { .hdr = HDR(HPU_PACKET_STOP,
						     struct hpu_pkt_stop) };

static const struct hpu_pkt_nic_write nicw = {
	.hdr = { .opcode = HPU_PACKET_NIC_WRITE,
		 .size = sizeof(struct hpu_pkt_nic_write),
		 .flags = HPU_NIC_F_SIGNAL },
	.src_addr = 0x100000000000ULL,
	.remote_offset = 64,
	.size = 4096,
	.conn = 1,
	.rkey = 7,
	.sob_id = HPU_NUM_SOBS - 1,
	.sob_value = HPU_SOB_MAX_VALUE,
};

static int check(const void *p, size_t len, enum hfd_queue_kind kind)
{
	return hfd_packets_validate(p, len, kind, NULL);
}

#define CHECK_ONE(pkt, kind) check(&(pkt), sizeof(pkt), (kind))

static void test_valid_stream(void **state)
{
	uint8_t buf[512];
	size_t off = 0, bad = 99;

#define PUT(p)                                      \
	do {                                        \
		memcpy(buf + off, &(p), sizeof(p)); \
		off += sizeof(p);                   \
	} while (0)
	PUT(nop);
	PUT(dma);
	PUT(mset);
	PUT(msg);
	PUT(fence);
	PUT(mon);
	PUT(stop);
	PUT(nop); /* after STOP: still validated, still valid */
#undef PUT
	assert_int_equal(hfd_packets_validate(buf, off, HFD_QUEUE_DMA, &bad),
			 0);
	assert_int_equal(bad, off);
}

static void test_empty_and_unaligned(void **state)
{
	assert_int_equal(check(&nop, 0, HFD_QUEUE_DMA), -EINVAL);
	assert_int_equal(check(&dma, 12, HFD_QUEUE_DMA), -EINVAL);
	assert_int_equal(CHECK_ONE(nop, HFD_QUEUE_NONE), -EINVAL);
}

static void test_unknown_and_engine_opcodes(void **state)
{
	static const uint16_t bad_ops[] = { 0,
					    0x08,
					    0x0f,
					    HPU_PACKET_MME_GEMM,
					    HPU_PACKET_TPC_KERNEL,
					    HPU_PACKET_NIC_WRITE,
					    0x13,
					    0xffff };
	struct hpu_pkt_nop p = nop;
	unsigned int i;

	for (i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
		p.hdr.opcode = bad_ops[i];
		assert_int_equal(CHECK_ONE(p, HFD_QUEUE_DMA), -EINVAL);
	}
}

static void test_size_exact(void **state)
{
	struct hpu_pkt_lin_dma d = dma;
	uint8_t buf[64] = { 0 };
	size_t bad;

	d.hdr.size = 24;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
	d.hdr.size = 40;
	memcpy(buf, &d, sizeof(d));
	assert_int_equal(check(buf, 40, HFD_QUEUE_DMA), -EINVAL);
	d.hdr.size = 0;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
	/* a packet running past the end of the CB */
	memcpy(buf, &nop, sizeof(nop));
	memcpy(buf + 8, &dma, sizeof(dma));
	assert_int_equal(hfd_packets_validate(buf, 16, HFD_QUEUE_DMA, &bad),
			 -EINVAL);
	assert_int_equal(bad, 8);
}

static void test_flags_and_reserved(void **state)
{
	struct hpu_pkt_nop p = nop;
	struct hpu_pkt_lin_dma d = dma;

	p.hdr.flags = HPU_PKT_F_ENG_BARRIER | HPU_PKT_F_MSG_BARRIER;
	assert_int_equal(CHECK_ONE(p, HFD_QUEUE_TPC), 0);
	p.hdr.flags = 1U << 2;
	assert_int_equal(CHECK_ONE(p, HFD_QUEUE_TPC), -EINVAL);
	p.hdr.flags = HPU_MEMSET_F_ELEM_8; /* MEMSET's own bits */
	assert_int_equal(CHECK_ONE(p, HFD_QUEUE_DMA), -EINVAL);
	p = nop;
	p.hdr.reserved = 1;
	assert_int_equal(CHECK_ONE(p, HFD_QUEUE_DMA), -EINVAL);
	/* LIN_DMA's own bits are the endian swap: bits above are not */
	d.hdr.flags = HPU_LIN_DMA_F_SWAP_16;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), 0);
	d.hdr.flags = 1U << 10;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
	/* a swapping copy between overlapping ranges, either way round */
	d.hdr.flags = HPU_LIN_DMA_F_SWAP_64;
	d.dst_addr = d.src_addr + d.size - 8;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
	d.dst_addr = d.src_addr - d.size + 8;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
	d.dst_addr = d.src_addr + d.size;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), 0);
}

static void test_dma_queues_only(void **state)
{
	static const enum hfd_queue_kind others[] = { HFD_QUEUE_MME,
						      HFD_QUEUE_TPC,
						      HFD_QUEUE_NIC };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		assert_int_equal(CHECK_ONE(dma, others[i]), -EINVAL);
		assert_int_equal(CHECK_ONE(mset, others[i]), -EINVAL);
		assert_int_equal(CHECK_ONE(nop, others[i]), 0);
		assert_int_equal(CHECK_ONE(msg, others[i]), 0);
		assert_int_equal(CHECK_ONE(fence, others[i]), 0);
		assert_int_equal(CHECK_ONE(mon, others[i]), 0);
		assert_int_equal(CHECK_ONE(stop, others[i]), 0);
	}
}

static void test_lin_dma_wrap(void **state)
{
	struct hpu_pkt_lin_dma d = dma;

	d.size = 0;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), 0);
	d.size = ~0ULL;
	assert_int_equal(CHECK_ONE(d, HFD_QUEUE_DMA), -EINVAL);
}

static void test_memset_width(void **state)
{
	static const uint16_t widths[] = { HPU_MEMSET_F_ELEM_1,
					   HPU_MEMSET_F_ELEM_2,
					   HPU_MEMSET_F_ELEM_4,
					   HPU_MEMSET_F_ELEM_8 };
	struct hpu_pkt_memset m;
	unsigned int i, w;

	for (i = 0; i < 4; i++) {
		w = 1U << i;
		m = mset;
		m.hdr.flags = widths[i];
		m.dst_addr = 0x100000000000ULL + 8;
		m.size = 8 * w;
		assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
		if (w == 1)
			continue;
		m.dst_addr += 1; /* misaligned */
		assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
		m.dst_addr -= 1;
		m.size += 1; /* not a multiple */
		assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	}
}

static void test_msg_long(void **state)
{
	struct hpu_pkt_msg_long m;

	m = msg;
	m.sob_id = HPU_NUM_SOBS; /* the driver's own SOBs are off limits */
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = msg;
	m.op = HPU_MSG_OP_LONG_ADD + 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	/* a long op: four user SOBs from sob_id */
	m = msg;
	m.op = HPU_MSG_OP_LONG_SET;
	m.sob_id = HPU_NUM_SOBS - 4;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_TPC), 0);
	m.op = HPU_MSG_OP_LONG_ADD;
	m.value = HPU_SOB_MAX_VALUE;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m.sob_id = HPU_NUM_SOBS - 3;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.op = HPU_MSG_OP_ADD; /* a short op there is fine */
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m = msg;
	m.op = HPU_MSG_OP_SET;
	m.value = 0;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m.value = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = msg;
	m.reserved = 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
}

static void test_fence(void **state)
{
	struct hpu_pkt_fence f;

	f = fence;
	f.sob_id = HPU_NUM_SOBS;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), -EINVAL);
	f = fence;
	f.target = 0;
	f.dec = 0;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), -EINVAL);
	f = fence;
	f.target = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), -EINVAL);
	f = fence;
	f.dec = f.target + 1;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), -EINVAL);
	f = fence;
	f.dec = 0;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), 0);
	f = fence;
	f.reserved = 5;
	assert_int_equal(CHECK_ONE(f, HFD_QUEUE_DMA), -EINVAL);
}

static void test_arm_monitor(void **state)
{
	struct hpu_pkt_arm_monitor m;

	m = mon;
	m.mon_id = HPU_NUM_MONITORS;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = mon;
	m.sob_id = HPU_NUM_SOBS;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = mon;
	m.target = 0;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = mon;
	m.target = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = mon;
	m.payload_addr += 2;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m = mon;
	m.target_hi = 1; /* without HPU_MON_F_LONG */
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	/* HPU_MON_F_EQUAL: target 0..HPU_SOB_MAX_VALUE */
	m = mon;
	m.hdr.flags |= HPU_MON_F_EQUAL;
	m.target = 0;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_TPC), 0);
	m.target = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	/* HPU_MON_F_SOB_ADD: a user SOB, a payload a SOB can hold */
	m = mon;
	m.hdr.flags |= HPU_MON_F_SOB_ADD;
	m.payload_addr = HPU_NUM_SOBS - 1;
	m.payload = HPU_SOB_MAX_VALUE;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_MME), 0);
	m.payload_addr = 3; /* no alignment rule for a SOB id */
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m.payload_addr = HPU_NUM_SOBS;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.payload_addr = 1;
	m.payload = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	/* HPU_MON_F_SOB_SET: as SOB_ADD, never both */
	m = mon;
	m.hdr.flags |= HPU_MON_F_SOB_SET;
	m.payload_addr = HPU_NUM_SOBS - 1;
	m.payload = 0;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m.payload_addr = HPU_NUM_SOBS;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.payload_addr = 1;
	m.hdr.flags |= HPU_MON_F_SOB_ADD;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	/* HPU_MON_F_LONG: four SOBs, a 60-bit target (0 only with EQUAL) */
	m = mon;
	m.hdr.flags |= HPU_MON_F_LONG;
	m.sob_id = HPU_NUM_SOBS - 4;
	m.target = 0xffffffffU;
	m.target_hi = HPU_SOB_LONG_MAX >> 32;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	m.target_hi++;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.target_hi = 0;
	m.sob_id = HPU_NUM_SOBS - 3;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.sob_id = 8;
	m.target = 0;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
	m.hdr.flags |= HPU_MON_F_EQUAL;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), 0);
	/* any other flag */
	m = mon;
	m.hdr.flags |= HPU_MON_F_LONG << 1;
	assert_int_equal(CHECK_ONE(m, HFD_QUEUE_DMA), -EINVAL);
}

static void test_bad_after_stop(void **state)
{
	struct hpu_pkt_msg_long m = msg;
	uint8_t buf[sizeof(stop) + sizeof(m)];
	size_t bad;

	m.sob_id = HPU_NUM_SOBS + 1;
	memcpy(buf, &stop, sizeof(stop));
	memcpy(buf + sizeof(stop), &m, sizeof(m));
	assert_int_equal(hfd_packets_validate(buf, sizeof(buf), HFD_QUEUE_DMA,
					      &bad),
			 -EINVAL);
	assert_int_equal(bad, sizeof(stop));
}

static void test_nic_write_valid(void **state)
{
	struct hpu_pkt_nic_write w = nicw;

	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), 0);
	/* signal only */
	w.size = 0;
	w.sob_value = 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), 0);
	/* data only, with a barrier */
	w = nicw;
	w.hdr.flags = HPU_PKT_F_ENG_BARRIER;
	w.sob_id = 0;
	w.sob_value = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), 0);
	/* ranges that end exactly at the top of the address space */
	w = nicw;
	w.src_addr = ~0ULL - w.size;
	w.remote_offset = ~0ULL - w.size;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), 0);
	assert_int_equal(hfd_check_nic_write((const uint8_t *)&nicw), 0);
}

static void test_nic_write_header(void **state)
{
	static const enum hfd_queue_kind others[] = { HFD_QUEUE_DMA,
						      HFD_QUEUE_MME,
						      HFD_QUEUE_TPC };
	struct hpu_pkt_nic_write w = nicw;
	uint8_t buf[64] = { 0 };
	unsigned int i;

	for (i = 0; i < 3; i++)
		assert_int_equal(CHECK_ONE(nicw, others[i]), -EINVAL);
	w.hdr.size = 40;
	assert_int_equal(check(&w, 40, HFD_QUEUE_NIC), -EINVAL);
	/* the 48 bytes of ABI 1.0 (32-bit keys) */
	w.hdr.size = 48;
	assert_int_equal(check(&w, 48, HFD_QUEUE_NIC), -EINVAL);
	w.hdr.size = 64;
	memcpy(buf, &w, sizeof(w));
	assert_int_equal(check(buf, 64, HFD_QUEUE_NIC), -EINVAL);
	/* where the 32-bit key was: pad, 0 */
	w = nicw;
	w.pad = 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w = nicw;
	w.hdr.flags |= 1U << 9; /* not a NIC_WRITE flag */
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w.hdr.flags = HPU_NIC_F_SIGNAL | HPU_MEMSET_F_ELEM_8;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w = nicw;
	w.hdr.reserved = 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	/* a NIC_WRITE running past the end of the CB */
	assert_int_equal(check(&nicw, 40, HFD_QUEUE_NIC), -EINVAL);
}

static void test_nic_write_fields(void **state)
{
	struct hpu_pkt_nic_write w = nicw;

	/* nothing to move and nothing to signal */
	w.size = 0;
	w.hdr.flags = 0;
	w.sob_id = 0;
	w.sob_value = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	/* with SIGNAL: the sob and value ranges */
	w = nicw;
	w.sob_id = HPU_NUM_SOBS;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w = nicw;
	w.sob_value = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w.sob_value = HPU_SOB_MAX_VALUE + 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	/* without SIGNAL: both must be 0 */
	w = nicw;
	w.hdr.flags = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w.sob_value = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w.sob_id = 0;
	w.sob_value = 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	/* wrapping ranges */
	w = nicw;
	w.src_addr = ~0ULL - w.size + 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w = nicw;
	w.remote_offset = ~0ULL - w.size + 1;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	/* connection and key are never 0 */
	w = nicw;
	w.conn = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
	w = nicw;
	w.rkey = 0;
	assert_int_equal(CHECK_ONE(w, HFD_QUEUE_NIC), -EINVAL);
}

static void test_nic_write_in_stream(void **state)
{
	struct hpu_pkt_nic_write w = nicw;
	uint8_t buf[sizeof(fence) + 2 * sizeof(w)];
	size_t bad;

	memcpy(buf, &fence, sizeof(fence));
	memcpy(buf + sizeof(fence), &nicw, sizeof(nicw));
	w.rkey = 0;
	memcpy(buf + sizeof(fence) + sizeof(w), &w, sizeof(w));
	assert_int_equal(hfd_packets_validate(buf, sizeof(buf) - sizeof(w),
					      HFD_QUEUE_NIC, &bad),
			 0);
	assert_int_equal(hfd_packets_validate(buf, sizeof(buf), HFD_QUEUE_NIC,
					      &bad),
			 -EINVAL);
	assert_int_equal(bad, sizeof(fence) + sizeof(w));
}

static void test_queue_kinds(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi2");
	uint32_t q = 0;

	assert_non_null(p);
	assert_int_equal(hfd_queue_kind(p, 0), HFD_QUEUE_DMA);
	assert_int_equal(hfd_queue_kind(p, p->num_dma - 1), HFD_QUEUE_DMA);
	q = p->num_dma;
	if (p->num_mme)
		assert_int_equal(hfd_queue_kind(p, q), HFD_QUEUE_MME);
	assert_int_equal(hfd_queue_kind(p, p->num_queues), HFD_QUEUE_NONE);
	/* the NIC ports' queues are the last ones */
	assert_int_equal(hfd_queue_kind(p, p->num_queues - 1), HFD_QUEUE_NIC);
	assert_int_equal(hfd_queue_kind(p, p->num_queues - p->num_nic_ports),
			 HFD_QUEUE_NIC);
	assert_int_equal(hfd_queue_kind(p,
					p->num_queues - p->num_nic_ports - 1),
			 HFD_QUEUE_TPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_stream),
		cmocka_unit_test(test_empty_and_unaligned),
		cmocka_unit_test(test_unknown_and_engine_opcodes),
		cmocka_unit_test(test_size_exact),
		cmocka_unit_test(test_flags_and_reserved),
		cmocka_unit_test(test_dma_queues_only),
		cmocka_unit_test(test_lin_dma_wrap),
		cmocka_unit_test(test_memset_width),
		cmocka_unit_test(test_msg_long),
		cmocka_unit_test(test_fence),
		cmocka_unit_test(test_arm_monitor),
		cmocka_unit_test(test_bad_after_stop),
		cmocka_unit_test(test_nic_write_valid),
		cmocka_unit_test(test_nic_write_header),
		cmocka_unit_test(test_nic_write_fields),
		cmocka_unit_test(test_nic_write_in_stream),
		cmocka_unit_test(test_queue_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
