// SPDX-License-Identifier: MIT
/*
 * test_hl_cs.c - CS, WAIT_CS and the Gaudi2 packets of the habanalabs
 * personality without FUSE (docs/habanalabs.md, "CS", "WAIT_CS",
 * "Packets"): the queue-id map, every malformed packet refused by the
 * translation, every malformed chunk or flag refused with the real errno
 * and nothing submitted, a bad packet ending its CS ABORTED with nothing
 * run, DMA round trips through DRAM and the SRAM window, MSG_LONG, and
 * waits (single, multi-CS, timestamps, the status copied back on -EIO).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "hl_personality.h"
#include "hpu_packets.h"

#define BUF_SIZE 8192

/* One request; the answer (also one copied back with an error) in @arg */
static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, 0);
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

/* Packet writers: each returns the next offset (bytes) */
static size_t put_nop(void *cb, size_t off, uint32_t opcode)
{
	struct hl_pkt_nop p = { .ctl = hpu_test_hl_ctl(opcode, HL_PKT_CTL_MB) };

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

/* Submit f->cb's first @size bytes as one chunk on @qid */
static int submit_flags(struct hpu_test_hfd_hl *f, uint32_t qid, uint32_t size,
			uint32_t flags, uint64_t *seq)
{
	struct hl_cs_chunk c = { .cb_handle = f->cb_va,
				 .queue_index = qid,
				 .cb_size = size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = flags;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	if (!ret) {
		assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
		*seq = a.out.seq;
	}
	return ret;
}

static int submit(struct hpu_test_hfd_hl *f, uint32_t qid, uint32_t size,
		  uint64_t *seq)
{
	return submit_flags(f, qid, size, 0, seq);
}

static void test_queue_map(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const struct hpu_fw_profile *p = f->drv.devs[0].profile;
	int mme0 = (int)p->num_dma, tpc0 = mme0 + (int)p->num_mme;
	int nic0 = tpc0 + (int)p->num_tpc;

	/* 4 streams per QMAN share the engine */
	assert_int_equal(hfd_hl_queue(p, 0), 0);
	assert_int_equal(hfd_hl_queue(p, 3), 0);
	assert_int_equal(hfd_hl_queue(p, 4), 1);
	assert_int_equal(hfd_hl_queue(p, 7), 1);
	assert_int_equal(hfd_hl_queue(p, 8), 2);   /* DCORE0 EDMA_0 */
	assert_int_equal(hfd_hl_queue(p, 12), 3);  /* DCORE0 EDMA_1 */
	assert_int_equal(hfd_hl_queue(p, 48), 4);  /* DCORE1 EDMA_0 */
	assert_int_equal(hfd_hl_queue(p, 127), 9); /* DCORE3 EDMA_1_3 */
	/* the profile's 2 MMEs are the master/slave pairs DCORE0+1 and
	 * DCORE2+3: a slave's QMAN is streams 4..7 of the pair's engine */
	assert_int_equal(p->num_mme, 2);
	assert_int_equal(hfd_hl_queue(p, 16), mme0);
	assert_int_equal(hfd_hl_stream_of(p, 17), 1);
	assert_int_equal(hfd_hl_queue(p, 56), mme0);
	assert_int_equal(hfd_hl_stream_of(p, 56), 4);
	assert_int_equal(hfd_hl_stream_of(p, 59), 7);
	assert_int_equal(hfd_hl_queue(p, 92), mme0 + 1);
	assert_int_equal(hfd_hl_stream_of(p, 93), 1);
	assert_int_equal(hfd_hl_queue(p, 131), mme0 + 1);
	assert_int_equal(hfd_hl_stream_of(p, 130), 6);
	/* not an MME: the QMAN's own stream */
	assert_int_equal(hfd_hl_stream_of(p, 50), 2);  /* DCORE1 EDMA_0_2 */
	assert_int_equal(hfd_hl_stream_of(p, 135), 3); /* DCORE3 TPC_0_3 */
	assert_int_equal(hfd_hl_stream_of(p, 159), 3); /* NIC_0_3 */
	assert_int_equal(hfd_hl_queue(p, 20), tpc0);
	assert_int_equal(hfd_hl_queue(p, 43), tpc0 + 5);
	assert_int_equal(hfd_hl_queue(p, 60), tpc0 + 6);   /* DCORE1 TPC_0 */
	assert_int_equal(hfd_hl_queue(p, 155), tpc0 + 23); /* DCORE3 TPC_5 */
	assert_int_equal(hfd_hl_queue(p, 156), nic0);
	assert_int_equal(hfd_hl_queue(p, 251), nic0 + 23);
	/* binned (the profile's 24 TPCs), rotators, CPU queue */
	assert_int_equal(hfd_hl_queue(p, 44), -EINVAL);
	assert_int_equal(hfd_hl_queue(p, 252), -EINVAL);
	assert_int_equal(hfd_hl_queue(p, 259), -EINVAL);
	assert_int_equal(hfd_hl_queue(p, HL_GAUDI2_QUEUE_ID_CPU_PQ), -EINVAL);
	assert_int_equal(hfd_hl_queue(p, 261), -EINVAL);
	assert_int_equal(hfd_hl_queue(p, 0xffffffffU), -EINVAL);
}

static void test_translate_good(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA,
				  .sram_base = 0x8000000,
				  .sram_size = 0x10000,
				  .sram_va = 0x100000000000ULL };
	uint8_t cb[128], out[256];
	struct hpu_pkt_memset ms;
	struct hpu_pkt_lin_dma d;
	struct hpu_pkt_nop n;
	size_t off = 0, len;

	(void)state;
	off = put_nop(cb, off, HL_PACKET_NOP);
	off = hpu_test_hl_put_msg_long(cb, off, 0x8000100, 0xbaba0ded, 0);
	off = hpu_test_hl_put_dma(cb, off, 0x200000001000ULL, 0x8000200, 64, 0);
	off = hpu_test_hl_put_dma(cb, off, 0x5a5a5a5a5a5a5a5aULL,
				  0x100000002000ULL, 16, HL_LIN_DMA_CTL_MEMSET);
	off = put_nop(cb, off, HL_PACKET_STOP);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	assert_int_equal(len, 8 + 32 + 32 + 32 + 8);
	assert_true(len <= HFD_HL_XLATE_RATIO * off);
	memcpy(&n, out, sizeof(n));
	assert_int_equal(n.hdr.opcode, HPU_PACKET_NOP);
	assert_int_equal(n.hdr.flags, HPU_PKT_F_MSG_BARRIER);
	memcpy(&ms, out + 8, sizeof(ms));
	assert_int_equal(ms.hdr.opcode, HPU_PACKET_MEMSET);
	assert_int_equal(ms.hdr.flags, HPU_MEMSET_F_ELEM_4);
	assert_int_equal(ms.dst_addr, 0x100000000100ULL); /* SRAM moved */
	assert_int_equal(ms.size, 4);
	assert_int_equal(ms.value, 0xbaba0ded);
	memcpy(&d, out + 40, sizeof(d));
	assert_int_equal(d.hdr.opcode, HPU_PACKET_LIN_DMA);
	assert_int_equal(d.src_addr, 0x200000001000ULL);
	assert_int_equal(d.dst_addr, 0x100000000200ULL);
	assert_int_equal(d.size, 64);
	memcpy(&ms, out + 72, sizeof(ms));
	assert_int_equal(ms.hdr.opcode, HPU_PACKET_MEMSET);
	assert_int_equal(ms.hdr.flags, HPU_MEMSET_F_ELEM_1);
	assert_int_equal(ms.dst_addr, 0x100000002000ULL); /* not SRAM */
	memcpy(&n, out + 104, sizeof(n));
	assert_int_equal(n.hdr.opcode, HPU_PACKET_STOP);
	/* an SRAM range running past the window is not moved */
	off = hpu_test_hl_put_dma(cb, 0, 0x800f000, 0x200000001000ULL, 0x2000,
				  0);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	memcpy(&d, out, sizeof(d));
	assert_int_equal(d.src_addr, 0x800f000);
}

static void test_translate_bad(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA };
	static const uint32_t opcodes[] = {
		0,
		HL_PACKET_WREG_32,
		HL_PACKET_WREG_BULK,
		HL_PACKET_CP_DMA,
		HL_PACKET_REPEAT,
		HL_PACKET_MSG_PROT,
		HL_PACKET_WAIT,
		HL_PACKET_CB_LIST,
		HL_PACKET_LOAD_AND_EXE,
		HL_PACKET_WRITE_ARC_STREAM,
		0x11,
		HL_PACKET_WREG_64_SHORT,
		HL_PACKET_WREG_64_LONG,
		0x1f,
	};
	uint8_t cb[64], out[128];
	size_t off, len, bad;
	unsigned int i;

	(void)state;
#define BAD(n, at)                                                        \
	do {                                                              \
		bad = 999;                                                \
		assert_int_equal(hfd_hl_packets_translate(cb, n, &x, out, \
							  &len, &bad),    \
				 -EINVAL);                                \
		assert_int_equal(bad, at);                                \
		assert_int_equal(len, 0);                                 \
	} while (0)
	for (i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++) {
		memset(cb, 0, sizeof(cb));
		put_nop(cb, 0, HL_PACKET_NOP);
		put_nop(cb, 8, opcodes[i]); /* an unserved opcode second */
		BAD(24, 8);
	}
	/* truncated: a half packet, a LIN_DMA cut short, a MSG_LONG too */
	memset(cb, 0, sizeof(cb));
	put_nop(cb, 0, HL_PACKET_NOP);
	BAD(4, 0);
	BAD(12, 8);
	hpu_test_hl_put_dma(cb, 8, 0, 0, 0, 0);
	BAD(24, 8);
	hpu_test_hl_put_msg_long(cb, 8, 0, 0, 0);
	BAD(16, 8);
	/* NOP/STOP: a first word or low control bits */
	memset(cb, 0, sizeof(cb));
	put_nop(cb, 0, HL_PACKET_NOP);
	cb[0] = 1;
	BAD(8, 0);
	put_nop(cb, 0, HL_PACKET_STOP);
	cb[4] = 1;
	BAD(8, 0);
	/* MSG_LONG: predicate, timestamp op, reserved bit, unaligned, wrapping */
	hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1, 1);
	BAD(16, 0);
	hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1,
				 1U << HL_MSG_LONG_CTL_OP_SHIFT);
	BAD(16, 0);
	hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1, 1U << 8);
	BAD(16, 0);
	hpu_test_hl_put_msg_long(cb, 0, 0x1002, 1, 0);
	BAD(16, 0);
	/* its 4 bytes would wrap (found by fuzz_hl_packets) */
	hpu_test_hl_put_msg_long(cb, 0, 0xfffffffffffffffcULL, 1, 0);
	BAD(16, 0);
	/* LIN_DMA: endian swap in a memset or between overlapping ranges,
	 * bf16, fp16, add offset, reserved bits, a wrapping range, a
	 * pattern the range cannot take */
	hpu_test_hl_put_dma(cb, 0, 0, 0x2000, 64,
			    HL_LIN_DMA_CTL_MEMSET | (1U << 1));
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x1020, 64, 3U << 1);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1020, 0x1000, 64, 2U << 1);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64, HL_LIN_DMA_CTL_BF16);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64, HL_LIN_DMA_CTL_FP16);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64,
			    HL_LIN_DMA_CTL_ADD_OFFSET_0);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64, 1U << 3);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64, 1U << 12);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x1000, ~0ULL - 8, 64, 0);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, ~0ULL - 8, 0x1000, 64, 0);
	BAD(24, 0);
	hpu_test_hl_put_dma(cb, 0, 0x0102030405060708ULL, 0x1001, 6,
			    HL_LIN_DMA_CTL_MEMSET);
	BAD(24, 0);
	/* MSG_LONG and LIN_DMA on a queue that is not a DMA's */
	x.kind = HFD_QUEUE_MME;
	hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1, 0);
	BAD(16, 0);
	x.kind = HFD_QUEUE_TPC;
	hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 64, 0);
	BAD(24, 0);
	/* NOP runs anywhere */
	off = put_nop(cb, 0, HL_PACKET_NOP);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
#undef BAD
}

/* The next sequence number, found by submitting a NOP CS */
static uint64_t nop_seq(struct hpu_test_hfd_hl *f)
{
	struct hl_wait_cs_out o;
	uint64_t seq = 0;

	put_nop(f->cb, 0, HL_PACKET_NOP);
	assert_int_equal(submit(f, HL_GAUDI2_QUEUE_ID_PDMA_0_0, 8, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	return seq;
}

static void test_cs_rejected(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	static const uint32_t bad_flags[] = {
		HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT,
		HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_COLLECTIVE_WAIT,
		HL_CS_FLAGS_WAIT | HL_CS_FLAGS_ENCAP_SIGNALS,
		HL_CS_FLAGS_WAIT, /* num_signal_seq_arr (cb_size) 24 */
		HL_CS_FLAGS_COLLECTIVE_WAIT,
		HL_CS_FLAGS_STAGED_SUBMISSION,
		HL_CS_FLAGS_STAGED_SUBMISSION |
			HL_CS_FLAGS_STAGED_SUBMISSION_FIRST,
		HL_CS_FLAGS_ENCAP_SIGNALS,
		HL_CS_FLAGS_RESERVE_SIGNALS_ONLY,
		HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY,
		HL_CS_FLAGS_ENGINE_CORE_COMMAND,
		HL_CS_FLAGS_ENGINES_COMMAND,
		HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES,
		1U << 20,
	};
	static const uint32_t bad_queues[] = { 44, 252, 256, 260, 261, 1000 };
	struct hl_cs_chunk c[2];
	union hl_cs_args a;
	uint64_t before, seq;
	unsigned int i;

	before = nop_seq(f);
	memset(f->dst, 0x11, BUF_SIZE);
	/* a DMA that would change f->dst if anything ran */
	hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 64, 0);
	for (i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++)
		assert_int_equal(submit_flags(f, 0, 24, bad_flags[i], &seq),
				 -EINVAL);
	for (i = 0; i < sizeof(bad_queues) / sizeof(bad_queues[0]); i++)
		assert_int_equal(submit(f, bad_queues[i], 24, &seq), -EINVAL);
	assert_int_equal(submit(f, 0, 0, &seq), -EINVAL);
	assert_int_equal(submit(f, 0, HL_MAX_CB_SIZE + 8, &seq), -EINVAL);

	/* a kernel CB handle (no USER_ALLOC_CB) of no CB */
	memset(c, 0, sizeof(c));
	c[0].cb_handle = f->cb_va;
	c[0].cb_size = 24;
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	/* no execute chunks; too many; an unreadable array */
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.num_chunks_execute = HL_MAX_JOBS_PER_CS + 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.num_chunks_execute = 1;
	a.in.num_chunks_restore = HL_MAX_JOBS_PER_CS + 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.num_chunks_restore = 0;
	a.in.chunks_execute = 8;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EFAULT);
	a.in.chunks_execute = 0;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EFAULT);
	/* the second chunk bad: the first does not run either */
	c[0].cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	c[1] = c[0];
	c[1].queue_index = 260;
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = 2;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);

	/* nothing ran and no number was used */
	assert_int_equal(nop_seq(f), before + 1);
	for (i = 0; i < BUF_SIZE; i++)
		assert_int_equal(f->dst[i], 0x11);
}

static void test_bad_packet_aborts(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args w;
	struct hl_wait_cs_out o;
	uint64_t seq, before;
	size_t off;
	int i;

	before = nop_seq(f);
	memset(f->src, 0x22, BUF_SIZE);
	memset(f->dst, 0x11, BUF_SIZE);
	/* a good DMA, then a WAIT (not served) */
	off = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 64, 0);
	off = put_nop(f->cb, off, HL_PACKET_WAIT);
	assert_int_equal(submit(f, 0, (uint32_t)off, &seq), 0);
	assert_int_equal(seq, before + 1);
	/* -EIO, and the ABORTED status copied back all the same */
	memset(&w, 0, sizeof(w));
	w.in.seq = seq;
	w.in.timeout_us = 1000000;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &w, sizeof(w)), -EIO);
	assert_int_equal(w.out.status, HL_WAIT_CS_STATUS_ABORTED);
	for (i = 0; i < BUF_SIZE; i++)
		assert_int_equal(f->dst[i], 0x11);
	/* a CB the context did not map: fetched from nowhere, ABORTED */
	put_nop(f->cb, 0, HL_PACKET_NOP);
	f->cb_va += 0x100000000ULL;
	assert_int_equal(submit(f, 0, 8, &seq), 0);
	f->cb_va -= 0x100000000ULL;
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), -EIO);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_ABORTED);
	/* a DMA from an unmapped address: the model's page fault */
	off = hpu_test_hl_put_dma(f->cb, 0, 0x1f0000000000ULL, f->dst_va, 64,
				  0);
	assert_int_equal(submit(f, 0, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), -EIO);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_ABORTED);
	for (i = 0; i < BUF_SIZE; i++)
		assert_int_equal(f->dst[i], 0x11);
	/* the context goes on */
	assert_int_equal(nop_seq(f), seq + 1);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

static void test_dma_round_trip(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const struct hfd_device *dev = &f->drv.devs[0];
	uint64_t dram = hpu_test_hfd_hl_map_dram(f->ctx, 1 << 21);
	uint64_t sram = dev->ip.sram_base_address + 0x1000;
	struct hl_wait_cs_out o;
	uint32_t got;
	uint64_t seq;
	size_t off;

	/* host -> DRAM -> host on PDMA_0 stream 1 and PDMA_1 stream 3 */
	fill(f->src, BUF_SIZE, 7);
	memset(f->dst, 0, BUF_SIZE);
	off = hpu_test_hl_put_dma(f->cb, 0, f->src_va, dram, BUF_SIZE, 0);
	assert_int_equal(submit(f, 1, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	off = hpu_test_hl_put_dma(f->cb, 0, dram, f->dst_va, BUF_SIZE, 0);
	assert_int_equal(submit(f, 7, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_memory_equal(f->src, f->dst, BUF_SIZE);

	/* host -> SRAM window -> host, in one CB (in order), on an EDMA */
	fill(f->src, BUF_SIZE, 99);
	memset(f->dst, 0, BUF_SIZE);
	off = hpu_test_hl_put_dma(f->cb, 0, f->src_va, sram, BUF_SIZE, 0);
	off = hpu_test_hl_put_dma(f->cb, off, sram, f->dst_va, BUF_SIZE,
				  HL_PKT_CTL_EB);
	assert_int_equal(submit(f, 8, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_memory_equal(f->src, f->dst, BUF_SIZE);

	/* memset of DRAM, MSG_LONG into SRAM and into host memory */
	off = hpu_test_hl_put_dma(f->cb, 0, 0, dram, 256,
				  HL_LIN_DMA_CTL_MEMSET);
	off = hpu_test_hl_put_dma(f->cb, off, dram, f->dst_va, 256,
				  HL_PKT_CTL_EB);
	off = hpu_test_hl_put_msg_long(f->cb, off, sram, 0xbaba0ded, 0);
	off = hpu_test_hl_put_dma(f->cb, off, sram, f->dst_va + 256, 4,
				  HL_PKT_CTL_EB);
	off = hpu_test_hl_put_msg_long(f->cb, off, f->dst_va + 512, 0x0ded0001,
				       0);
	assert_int_equal(submit(f, 0, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	for (off = 0; off < 256; off++)
		assert_int_equal(f->dst[off], 0);
	memcpy(&got, f->dst + 256, 4);
	assert_int_equal(got, 0xbaba0ded);
	memcpy(&got, f->dst + 512, 4);
	assert_int_equal(got, 0x0ded0001);
}

/* Submit a kernel CB (by handle, no USER_ALLOC_CB) of @size bytes */
static int submit_kernel_cb(struct hpu_test_hfd_hl *f, uint64_t handle,
			    uint32_t size, uint64_t *seq)
{
	struct hl_cs_chunk c = { .cb_handle = handle,
				 .queue_index = 1,
				 .cb_size = size };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	if (!ret)
		*seq = a.out.seq;
	return ret;
}

/*
 * A CS on a kernel CB runs the bytes the CB holds at submission (here
 * written as the kernel's writeback of the client's mapping would); a
 * size beyond the CB, a destroyed CB or another handle fail the call
 * with nothing run and no number used
 */
static void test_kernel_cb(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint8_t pkts[2 * sizeof(struct hl_pkt_lin_dma)];
	union hl_cb_args cb = { 0 };
	struct hl_wait_cs_out o;
	uint64_t handle, seq, before;
	size_t off;

	cb.in.op = HL_CB_OP_CREATE;
	cb.in.cb_size = 4096;
	assert_int_equal(run(f->ctx, HL_IOCTL_CB, &cb, sizeof(cb)), 0);
	handle = cb.out.cb_handle;
	fill(f->src, BUF_SIZE, 41);
	memset(f->dst, 0, BUF_SIZE);
	off = hpu_test_hl_put_dma(pkts, 0, f->src_va, f->dst_va, BUF_SIZE, 0);
	assert_int_equal(hfd_hl_cb_fs_write(f->ctx, handle, off, pkts), 0);
	assert_int_equal(submit_kernel_cb(f, handle, (uint32_t)off, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->src, f->dst, BUF_SIZE);

	before = nop_seq(f);
	memset(f->dst, 0x11, BUF_SIZE);
	assert_int_equal(submit_kernel_cb(f, handle, 4096 + 8, &seq), -EINVAL);
	assert_int_equal(submit_kernel_cb(f, handle + 4096, 24, &seq), -EINVAL);
	cb.in.op = HL_CB_OP_DESTROY;
	cb.in.cb_handle = handle;
	assert_int_equal(run(f->ctx, HL_IOCTL_CB, &cb, sizeof(cb)), 0);
	assert_int_equal(submit_kernel_cb(f, handle, (uint32_t)off, &seq),
			 -EINVAL);
	assert_int_equal(nop_seq(f), before + 1);
	for (off = 0; off < BUF_SIZE; off++)
		assert_int_equal(f->dst[off], 0x11);
}

static void test_waits(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	union hl_wait_cs_args a;
	struct hl_wait_cs_out o;
	uint64_t seqs[3];
	int i;

	put_nop(f->cb, 0, HL_PACKET_NOP);
	for (i = 0; i < 3; i++)
		assert_int_equal(submit_flags(f, (uint32_t)(4 * i), 8,
					      HL_CS_FLAGS_TIMESTAMP, &seqs[i]),
				 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seqs[2], &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(o.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	assert_true(o.timestamp_nsec > 0);

	/* multi-CS: all three ended, the map says so */
	memset(&a, 0, sizeof(a));
	a.in.seq = (uintptr_t)seqs;
	a.in.seq_arr_len = 3;
	a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	a.in.timeout_us = 1000000;
	for (i = 0; i < 1000; i++) {
		assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)),
				 0);
		if (a.out.cs_completion_map == 7)
			break;
		a.in.seq = (uintptr_t)seqs;
		a.in.seq_arr_len = 3;
		a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
		a.in.timeout_us = 1000000;
		usleep(1000);
	}
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(a.out.cs_completion_map, 7);

	/* refused: a number never issued, array lengths, interrupts, an
	 * array that cannot be read */
	memset(&a, 0, sizeof(a));
	a.in.seq = seqs[2] + 100;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.seq = (uintptr_t)seqs;
	a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EINVAL);
	a.in.seq_arr_len = HL_WAIT_MULTI_CS_LIST_MAX_LEN + 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EINVAL);
	a.in.seq = 8;
	a.in.seq_arr_len = 2;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EFAULT);
	memset(&a, 0, sizeof(a));
	/* an interrupt wait (test_hl_irq.c): its address is seq's field, a
	 * CS number is no readable address; an id past the user ones */
	a.in.seq = seqs[0];
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EFAULT);
	a.in.flags |= 0xFFEU << 20;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), -EINVAL);
}

/* A timestamped CS older than the 4096-CS history still gives its time
 * (the real driver's outcome store); an untimed one only COMPLETED */
static void test_old_timestamp(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	struct hl_wait_cs_out o, first;
	uint64_t timed, plain, seq = 0;
	int i;

	put_nop(f->cb, 0, HL_PACKET_NOP);
	assert_int_equal(submit_flags(f, 0, 8, HL_CS_FLAGS_TIMESTAMP, &timed),
			 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, timed, &first), 0);
	assert_true(first.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	assert_int_equal(submit(f, 0, 8, &plain), 0);
	for (i = 0; i < 4200; i++) {
		assert_int_equal(submit(f, 4, 8, &seq), 0);
		if (i % 256 == 255)
			assert_int_equal(
				hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	}
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_true(seq > timed + 4096);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, timed, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(o.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	assert_int_equal(o.timestamp_nsec, first.timestamp_nsec);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, plain, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_false(o.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
}

static void test_restore_chunks(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	struct hl_cs_chunk r = { .cb_handle = f->cb_va + 64,
				 .queue_index = 0,
				 .cb_size = 16,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	struct hl_cs_chunk e = r;
	struct hl_wait_cs_out o;
	union hl_cs_args a;
	uint32_t got;

	/* restore: MSG_LONG 1 at dst; execute: NOP */
	hpu_test_hl_put_msg_long(f->cb, 64, f->dst_va + 1024, 1, 0);
	put_nop(f->cb, 128, HL_PACKET_NOP);
	e.cb_handle = f->cb_va + 128;
	e.cb_size = 8;
	memset(f->dst, 0, BUF_SIZE);
	/* not the first CS, no FORCE_RESTORE: the restore chunks wait */
	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = (uintptr_t)&r;
	a.in.num_chunks_restore = 1;
	a.in.chunks_execute = (uintptr_t)&e;
	a.in.num_chunks_execute = 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, a.out.seq, &o), 0);
	memcpy(&got, f->dst + 1024, 4);
	assert_int_equal(got, 0);
	/* FORCE_RESTORE: they run first */
	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = (uintptr_t)&r;
	a.in.num_chunks_restore = 1;
	a.in.chunks_execute = (uintptr_t)&e;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_FORCE_RESTORE;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, a.out.seq, &o), 0);
	memcpy(&got, f->dst + 1024, 4);
	assert_int_equal(got, 1);
}

/* One chunk of @size bytes of CB at @va on queue 0 (a user CB) */
static struct hl_cs_chunk user_chunk(uint64_t va, uint32_t size)
{
	struct hl_cs_chunk c = { .cb_handle = va,
				 .queue_index = 0,
				 .cb_size = size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };

	return c;
}

/* FORCE_RESTORE with restore chunk @r and execute chunk @e */
static int run_restore(struct hpu_test_hfd_hl *f, struct hl_cs_chunk *r,
		       struct hl_cs_chunk *e, uint64_t *seq)
{
	union hl_cs_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = (uintptr_t)r;
	a.in.num_chunks_restore = 1;
	a.in.chunks_execute = (uintptr_t)e;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_FORCE_RESTORE;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	*seq = a.out.seq;
	return ret;
}

/*
 * The restore chunks run as a CS of their own that ends before the
 * execute chunks are fetched (the real driver's context switch): an
 * execute CB in SRAM that the restore chunk copies there runs as copied,
 * not as SRAM held it at the call; a restore chunk that aborts fails the
 * call with ENOEXEC and the execute chunk does not run.
 */
static void test_restore_writes_execute_cb(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t sram = f->drv.devs[0].ip.sram_base_address + 0x3000, seq;
	struct hl_cs_chunk r, e;
	struct hl_wait_cs_out o;
	size_t n, m;
	uint32_t got;

	memset(f->dst, 0, BUF_SIZE);
	/* SRAM holds an old CB: MSG_LONG 5 at dst + 2048 */
	n = hpu_test_hl_put_msg_long(f->cb + 2048, 0, f->dst_va + 2048, 5, 0);
	m = hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 2048, sram, (uint32_t)n,
				0);
	assert_int_equal(submit(f, 0, (uint32_t)m, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	/* the restore chunk copies the new one (MSG_LONG 7) over it */
	hpu_test_hl_put_msg_long(f->cb + 2048, 0, f->dst_va + 2048, 7, 0);
	r = user_chunk(f->cb_va, (uint32_t)m);
	e = user_chunk(sram, (uint32_t)n);
	assert_int_equal(run_restore(f, &r, &e, &seq), 0);
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&got, f->dst + 2048, 4);
	assert_int_equal(got, 7);
	/* the restore CS is the one before: it completed too */
	assert_int_equal(hpu_test_hfd_hl_wait_cs(f->ctx, seq - 1, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);

	/* a restore chunk that aborts (WAIT is not served): ENOEXEC */
	hpu_test_hl_put_msg_long(f->cb + 2048, 0, f->dst_va + 2048, 9, 0);
	put_nop(f->cb + 1024, 0, HL_PACKET_WAIT);
	r = user_chunk(f->cb_va + 1024, 8);
	e = user_chunk(f->cb_va + 2048, (uint32_t)n);
	assert_int_equal(run_restore(f, &r, &e, &seq), -ENOEXEC);
	memcpy(&got, f->dst + 2048, 4);
	assert_int_equal(got, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_map),
		cmocka_unit_test(test_translate_good),
		cmocka_unit_test(test_translate_bad),
		cmocka_unit_test(test_cs_rejected),
		cmocka_unit_test(test_bad_packet_aborts),
		cmocka_unit_test(test_dma_round_trip),
		cmocka_unit_test(test_kernel_cb),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_restore_chunks),
		cmocka_unit_test(test_restore_writes_execute_cb),
		cmocka_unit_test(test_old_timestamp),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
