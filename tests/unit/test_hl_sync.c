// SPDX-License-Identifier: MIT
/*
 * test_hl_sync.c - the Gaudi2 sync manager of the habanalabs personality
 * (docs/habanalabs.md, "Sync manager") without FUSE: MSG_SHORT, MSG_LONG
 * to registers, FENCE and ARB_POINT translated to the hpu sync packets,
 * every malformed or unserved register write refused (a CS with one ends
 * ABORTED, nothing of it run), a FENCE passed by a monitor that another stream
 * of the same QMAN fires, a FENCE never passed ending TIMEDOUT while the
 * sibling streams and other QMANs go on, a reset and a close while a
 * stream waits, chains and cycles of monitors, the MME pairs' QMANs on
 * one engine as streams that do not hold each other.
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
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_packets.h"

#define BUF_SIZE 16384
#define CB_B	 8192 /* the second CB in f->cb */

/* Gaudi2 facts (asic_reg headers): PDMA_0's QMAN FENCE0 counters of its
 * streams 0..3 and its lower CP, and its ARB_CFG_0 */
#define PDMA0_FENCE0_RDATA(cp) (HL_CFG_BASE + 0x4C8A290ULL + 4 * (cp))
#define PDMA0_ARB_CFG_0	       (HL_CFG_BASE + 0x4C8A4A4ULL)
#define SOB_REG(n)	       (HL_CFG_BASE + HL_SM_SOB_OBJ_0 + 4ULL * (n))

/* queue ids: PDMA_0 streams 0..3, PDMA_1 stream 0, NIC_0 stream 0 */
#define Q_PDMA0(s) (s)
#define Q_PDMA1_0  4
#define Q_NIC0_0   156

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

/* SOB @n: SET (@add false) or ADD @v, by MSG_SHORT to the SOB base */
static size_t put_sob(void *cb, size_t off, uint32_t n, bool add, uint32_t v)
{
	return hpu_test_hl_put_short(cb, off, HL_MSG_SHORT_BASE_SOB, 4 * n,
				     v | (add ? 1U << 31 : 0));
}

/* The MON_ARM value watching SOB @sob alone */
static uint32_t arm_value(uint32_t sob, bool equal, uint32_t v)
{
	uint32_t mask = ~(1U << (sob % 8)) & 0xFF;

	return (sob / 8 & 0xFF) | mask << 8 | (equal ? 1U << 16 : 0) | v << 17;
}

/* Monitor @m: payload @data to @addr when SOB @sob (== or >=) @v */
static size_t put_monitor(void *cb, size_t off, uint32_t m, uint64_t addr,
			  uint32_t data, uint32_t sob, bool equal, uint32_t v)
{
	const uint32_t b = HL_MSG_SHORT_BASE_MON, r = HL_SM_MON_PAY_ADDRL_0;

	off = hpu_test_hl_put_short(cb, off, b, HL_SM_MON_CONFIG_0 - r + 4 * m,
				    (sob / 8 >> 8) << 16);
	off = hpu_test_hl_put_short(cb, off, b, 4 * m, (uint32_t)addr);
	off = hpu_test_hl_put_short(cb, off, b,
				    HL_SM_MON_PAY_ADDRH_0 - r + 4 * m,
				    (uint32_t)(addr >> 32));
	off = hpu_test_hl_put_short(cb, off, b,
				    HL_SM_MON_PAY_DATA_0 - r + 4 * m, data);
	return hpu_test_hl_put_short(cb, off, b, HL_SM_MON_ARM_0 - r + 4 * m,
				     arm_value(sob, equal, v));
}

/*
 * Translation
 */

static void test_translate_good(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA,
				  .sram_base = 0x80000000000ULL,
				  .sram_size = 0x1000000,
				  .sram_va = 0x100000000000ULL,
				  .qid = Q_PDMA0(1) };
	struct hpu_pkt_msg_long ml;
	struct hpu_pkt_arm_monitor am;
	struct hpu_pkt_fence fe;
	uint8_t cb[512], out[HFD_HL_XLATE_RATIO * 512];
	size_t off = 0, len = 0, o = 0;

	(void)state;
	x.sync = hfd_hl_sync_new();
	assert_non_null(x.sync);
	off = put_sob(cb, off, 5, true, 1);
	off = hpu_test_hl_put_msg_long(cb, off, SOB_REG(6), 7, 0);
	/* monitor 3: SOB 5 == 1 -> +1 on PDMA_0 stream 1's FENCE0 */
	off = put_monitor(cb, off, 3, PDMA0_FENCE0_RDATA(1), 1, 5, true, 1);
	off = hpu_test_hl_put_fence(cb, off, 0, 1, 1);
	/* monitor 4: SOB 9 >= 2 -> 0xabcd into the SRAM window */
	off = put_monitor(cb, off, 4, 0x80000000010ULL, 0xabcd, 9, false, 2);
	off = hpu_test_hl_put2(cb, off, 5,
			       hpu_test_hl_ctl(HL_PACKET_ARB_POINT, 0));
	off = hpu_test_hl_put_msg_long(cb, off, PDMA0_ARB_CFG_0, 0x111, 0);
	off = hpu_test_hl_put_msg_long(cb, off, PDMA0_FENCE0_RDATA(1), 2, 0);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	assert_int_equal(len, 3 * sizeof(ml) + 2 * sizeof(am) + sizeof(fe));
	assert_int_equal(hfd_packets_validate(out, len, HFD_QUEUE_DMA, NULL),
			 0);
	memcpy(&ml, out + o, sizeof(ml));
	o += sizeof(ml);
	assert_int_equal(ml.hdr.opcode, HPU_PACKET_MSG_LONG);
	assert_int_equal(ml.hdr.flags, HPU_PKT_F_MSG_BARRIER);
	assert_int_equal(ml.sob_id, 5);
	assert_int_equal(ml.op, HPU_MSG_OP_ADD);
	assert_int_equal(ml.value, 1);
	memcpy(&ml, out + o, sizeof(ml));
	o += sizeof(ml);
	assert_int_equal(ml.sob_id, 6);
	assert_int_equal(ml.op, HPU_MSG_OP_SET);
	assert_int_equal(ml.value, 7);
	/* the four configuration writes run nothing; the arm does */
	memcpy(&am, out + o, sizeof(am));
	o += sizeof(am);
	assert_int_equal(am.hdr.opcode, HPU_PACKET_ARM_MONITOR);
	assert_int_equal(am.hdr.flags, HPU_PKT_F_MSG_BARRIER | HPU_MON_F_EQUAL |
					       HPU_MON_F_SOB_ADD);
	assert_int_equal(am.mon_id, 3);
	assert_int_equal(am.sob_id, 5);
	assert_int_equal(am.target, 1);
	assert_int_equal(am.payload, 1);
	assert_int_equal(am.payload_addr, HL_SYNC_NUM_SOBS); /* 1st counter */
	/* the stream's FENCE waits on that counter */
	memcpy(&fe, out + o, sizeof(fe));
	o += sizeof(fe);
	assert_int_equal(fe.hdr.opcode, HPU_PACKET_FENCE);
	assert_int_equal(fe.sob_id, HL_SYNC_NUM_SOBS);
	assert_int_equal(fe.target, 1);
	assert_int_equal(fe.dec, 1);
	memcpy(&am, out + o, sizeof(am));
	o += sizeof(am);
	assert_int_equal(am.hdr.flags, HPU_PKT_F_MSG_BARRIER);
	assert_int_equal(am.mon_id, 4);
	assert_int_equal(am.sob_id, 9);
	assert_int_equal(am.target, 2);
	assert_int_equal(am.payload, 0xabcd);
	assert_int_equal(am.payload_addr, 0x100000000010ULL); /* SRAM moved */
	/* ARB_POINT and the arbitration register: nothing; a write to
	 * the fence counter: an ADD on its SOB */
	memcpy(&ml, out + o, sizeof(ml));
	o += sizeof(ml);
	assert_int_equal(ml.sob_id, HL_SYNC_NUM_SOBS);
	assert_int_equal(ml.op, HPU_MSG_OP_ADD);
	assert_int_equal(ml.value, 2);
	assert_int_equal(o, len);

	/* another stream's counter is another SOB; the same one is kept */
	x.qid = Q_PDMA0(0);
	off = hpu_test_hl_put_fence(cb, 0, 0, 3, 0);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	memcpy(&fe, out, sizeof(fe));
	assert_int_equal(fe.sob_id, HL_SYNC_NUM_SOBS + 1);
	assert_int_equal(fe.target, 3);
	assert_int_equal(fe.dec, 0);
	x.qid = Q_PDMA0(1);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	memcpy(&fe, out, sizeof(fe));
	assert_int_equal(fe.sob_id, HL_SYNC_NUM_SOBS);
	/* the lower CP's counter (CP 4) is yet another, the one a monitor
	 * reaches at RDATA_4 */
	x.lower_cp = true;
	off = hpu_test_hl_put_fence(cb, 0, 0, 1, 0);
	off = hpu_test_hl_put_msg_long(cb, off, PDMA0_FENCE0_RDATA(4), 1, 0);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	memcpy(&fe, out, sizeof(fe));
	assert_int_equal(fe.sob_id, HL_SYNC_NUM_SOBS + 2);
	memcpy(&ml, out + sizeof(fe), sizeof(ml));
	assert_int_equal(ml.sob_id, HL_SYNC_NUM_SOBS + 2);
	x.lower_cp = false;
	/* a target of 0 passes at once: nothing to run */
	off = hpu_test_hl_put_fence(cb, 0, 2, 0, 0);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	assert_int_equal(len, 0);
	/* a device reset forgets the monitors' registers */
	hfd_hl_sync_reset(x.sync, 1);
	assert_int_equal(x.sync->mons[3].data, 0);
	assert_int_equal(x.sync->fence_key[0], 0);
	hfd_hl_sync_free(x.sync);
}

static void test_translate_bad(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA, .qid = Q_PDMA0(0) };
	uint8_t cb[256], out[HFD_HL_XLATE_RATIO * 256];
	size_t off, len, bad;
	const uint32_t r = HL_SM_MON_PAY_ADDRL_0;

	(void)state;
	x.sync = hfd_hl_sync_new();
	assert_non_null(x.sync);
#define BAD(n, at)                                                        \
	do {                                                              \
		bad = 999;                                                \
		len = 1;                                                  \
		assert_int_equal(hfd_hl_packets_translate(cb, n, &x, out, \
							  &len, &bad),    \
				 -EINVAL);                                \
		assert_int_equal(bad, at);                                \
		assert_int_equal(len, 0);                                 \
	} while (0)
	/* registers the model does not serve (after a good packet) */
	off = put_sob(cb, 0, 1, true, 1);
	BAD(hpu_test_hl_put_msg_long(cb, off, HL_CFG_BASE, 1, 0), 8);
	BAD(hpu_test_hl_put_msg_long(cb, off, HL_CFG_BASE + 0x4300000ULL, 1, 0),
	    8); /* DCORE1 SM */
	BAD(hpu_test_hl_put_msg_long(cb, off, HL_CFG_BASE + HL_SM_MON_STATUS_0,
				     1, 0),
	    8);
	BAD(hpu_test_hl_put_msg_long(cb, off, SOB_REG(1) + 2, 1, 0),
	    8); /* misaligned */
	BAD(hpu_test_hl_put_msg_long(cb, off, PDMA0_FENCE0_RDATA(0) + 0x100, 1,
				     0),
	    8);
	BAD(hpu_test_hl_put_short(cb, off, 2, 0, 0), 8); /* bases 2, 3 */
	BAD(hpu_test_hl_put_short(cb, off, 3, 0, 0), 8);
	BAD(hpu_test_hl_put2(cb, off, 1,
			     hpu_test_hl_ctl(HL_PACKET_MSG_SHORT,
					     1U << 18 | 1U << 22)),
	    8); /* dw */
	BAD(hpu_test_hl_put2(cb, off, 1,
			     hpu_test_hl_ctl(HL_PACKET_MSG_SHORT,
					     1U << 20 | 1U << 22)),
	    8); /* op */
	/* SOB values out of range (ids: test_hl_sync_long.c) */
	BAD(hpu_test_hl_put_short(cb, off, 1, 4, 0x8000), 8); /* bit 15 */
	BAD(hpu_test_hl_put_short(cb, off, 1, 4 * (HL_SYNC_NUM_SOBS - 3),
				  1U << 24 | 1),
	    8); /* a long SOB past the model's direct SOBs */
	BAD(hpu_test_hl_put_short(cb, off, 1, 4, 1U << 30 | 1), 8); /* te */
	BAD(hpu_test_hl_put_msg_long(cb, off, PDMA0_FENCE0_RDATA(1), 0x8000, 0),
	    8);
	/* monitors: id beyond the model, bad groups, unserved configs */
	BAD(hpu_test_hl_put_short(cb, off, 0, 4 * HPU_NUM_MONITORS, 0), 8);
	off = put_monitor(cb, 0, 1, PDMA0_FENCE0_RDATA(0), 1, 3, true, 1);
	len = 0;
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, NULL),
			 0);
	BAD(hpu_test_hl_put_short(cb, off, 0, HL_SM_MON_ARM_0 - r + 4,
				  arm_value(3, true, 1) &
					  ~0x1000U), /* SOBs 3 and 4 */
	    off);
	BAD(hpu_test_hl_put_short(cb, off, 0, HL_SM_MON_ARM_0 - r + 4,
				  arm_value(3, true, 1) | 0xFF00), /* no SOB */
	    off);
	{
		/* MON_CONFIG's msb 4: group 1024 + 0, SOB 8192 and up */
		size_t o2 = hpu_test_hl_put_short(
			cb, off, 0, HL_SM_MON_CONFIG_0 - r + 4, 4U << 16);

		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(3, true, 1)),
		    o2);
	}
	BAD(hpu_test_hl_put_short(cb, off, 0, HL_SM_MON_ARM_0 - r + 4,
				  arm_value(3, false, 0)), /* >= 0 */
	    off);
	{
		size_t o2 = hpu_test_hl_put_short(cb, off, 0,
						  HL_SM_MON_CONFIG_0 - r + 4,
						  1U << 4); /* CQ */

		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(3, true, 1)),
		    o2);
		o2 = hpu_test_hl_put_short(cb, off, 0,
					   HL_SM_MON_CONFIG_0 - r + 4,
					   1U << 8); /* LBW */
		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(3, true, 1)),
		    o2);
		o2 = hpu_test_hl_put_short(cb, off, 0,
					   HL_SM_MON_CONFIG_0 - r + 4,
					   2U << 5); /* three payloads */
		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(3, true, 1)),
		    o2);
		o2 = hpu_test_hl_put_short(cb, off, 0,
					   HL_SM_MON_CONFIG_0 - r + 4,
					   1); /* a long SOB past 252 */
		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(HL_SYNC_NUM_SOBS - 3, true,
						    1)),
		    o2);
		/* a payload to a register that is neither counter nor SOB */
		o2 = hpu_test_hl_put_short(cb, off, 0,
					   HL_SM_MON_CONFIG_0 - r + 4, 0);
		o2 = hpu_test_hl_put_short(cb, o2, 0,
					   HL_SM_MON_PAY_ADDRL_0 - r + 4,
					   (uint32_t)PDMA0_ARB_CFG_0);
		BAD(hpu_test_hl_put_short(cb, o2, 0, HL_SM_MON_ARM_0 - r + 4,
					  arm_value(3, true, 1)),
		    o2);
	}
	/* FENCE: reserved bits, predicate, dec above target, a queue whose
	 * QMAN has no modelled fences */
	BAD(hpu_test_hl_put2(cb, 0, 1U << 8 | 1U << 16,
			     hpu_test_hl_ctl(HL_PACKET_FENCE, 0)),
	    0);
	BAD(hpu_test_hl_put2(cb, 0, 1U << 16,
			     hpu_test_hl_ctl(HL_PACKET_FENCE, 1)),
	    0);
	BAD(hpu_test_hl_put_fence(cb, 0, 0, 1, 2), 0);
	BAD(hpu_test_hl_put_fence(cb, 0, 0, 0, 1), 0);
	x.qid = Q_NIC0_0;
	BAD(hpu_test_hl_put_fence(cb, 0, 0, 1, 1), 0);
	x.qid = Q_PDMA0(0);
	/* ARB_POINT with a predicate */
	BAD(hpu_test_hl_put2(cb, 0, 0, hpu_test_hl_ctl(HL_PACKET_ARB_POINT, 1)),
	    0);
	/* no sync state: every sync-manager packet is bad */
	hfd_hl_sync_free(x.sync);
	x.sync = NULL;
	BAD(put_sob(cb, 0, 1, true, 1), 0);
	BAD(hpu_test_hl_put_fence(cb, 0, 0, 1, 1), 0);
	BAD(hpu_test_hl_put_msg_long(cb, 0, SOB_REG(1), 1, 0), 0);
#undef BAD
}

/*
 * CSs on the model
 */

/* WAIT_CS polled until not BUSY; the status in @status */
static int wait_cs(struct hpu_test_hfd_hl *f, uint64_t seq, uint32_t *status)
{
	struct hl_wait_cs_out o;
	int ret = hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o);

	*status = o.status;
	return ret;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* A FENCE of PDMA_0 stream 1 passed by a monitor that stream 0 (same
 * QMAN) fires: the waiting stream does not hold its sibling */
static void test_fence_from_sibling_stream(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t a, b;
	uint32_t st;
	size_t off;

	fill(f->src, 256, 3);
	memset(f->dst, 0, 256);
	/* A, stream 1: monitor 0 on SOB 10 == 1 -> its FENCE0; then DMA */
	off = put_sob(f->cb, 0, 10, false, 0);
	off = put_monitor(f->cb, off, 0, PDMA0_FENCE0_RDATA(1), 1, 10, true, 1);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va, f->dst_va, 256, 0);
	a = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(1), 0, off, 0);
	/* B, stream 0, submitted after A: SOB 10 += 1 */
	off = put_sob(f->cb, CB_B, 10, true, 1);
	b = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(0), CB_B, off - CB_B, 0);
	assert_int_equal(wait_cs(f, b, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, a, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 256);
}

/*
 * A FENCE in a lower CB (CP_DMA) waits on the lower CP's counter (CP 4):
 * a write to stream 1's counter leaves it waiting, one to RDATA_4 from
 * stream 0 passes it; the upper CB's own FENCE, after the CP_DMA, waits
 * on stream 1's counter
 */
static void test_fence_lower_cp(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	struct hl_pkt_cp_dma cp = {
		.ctl = HL_PACKET_CP_DMA << HL_PKT_CTL_OPCODE_SHIFT |
		       HL_PKT_CTL_MB,
	};
	size_t off, lower = 4096, l;
	uint64_t a, b, c;
	uint32_t st;

	fill(f->src, 512, 5);
	memset(f->dst, 0, 512);
	/* the lower CB: FENCE0 target 1, then DMA of 256 bytes */
	l = hpu_test_hl_put_fence(f->cb, lower, 0, 1, 1);
	l = hpu_test_hl_put_dma(f->cb, l, f->src_va, f->dst_va, 256, 0);
	/* A, stream 1: CP_DMA of it; its own FENCE0; a second DMA */
	cp.tsize = (uint32_t)(l - lower);
	cp.src_addr = f->cb_va + lower;
	memcpy(f->cb, &cp, sizeof(cp));
	off = hpu_test_hl_put_fence(f->cb, sizeof(cp), 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va + 256, f->dst_va + 256,
				  256, 0);
	a = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(1), 0, off, 60);
	/* B, stream 0: stream 1's counter += 1 (the upper FENCE's) */
	off = hpu_test_hl_put_msg_long(f->cb, CB_B, PDMA0_FENCE0_RDATA(1), 1,
				       0);
	b = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(0), CB_B, off - CB_B, 0);
	assert_int_equal(wait_cs(f, b, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	/* C, stream 0: the lower CP's counter += 1 */
	off = hpu_test_hl_put_msg_long(f->cb, CB_B + 64, PDMA0_FENCE0_RDATA(4),
				       1, 0);
	c = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(0), CB_B + 64, off - CB_B - 64,
				      0);
	assert_int_equal(wait_cs(f, c, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, a, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 512);
}

/* A FENCE never passed: TIMEDOUT at its CS's timeout; meanwhile the
 * sibling streams and another QMAN run, and the stream serves again */
static void test_fence_timeout(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t stuck, sib, other, again;
	uint32_t st;
	size_t off;

	off = hpu_test_hl_put_fence(f->cb, 0, 1, 1, 0);
	stuck = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(2), 0, off, 1);
	fill(f->src, 512, 9);
	memset(f->dst, 0, 512);
	off = hpu_test_hl_put_dma(f->cb, CB_B, f->src_va, f->dst_va, 256, 0);
	sib = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(3), CB_B, off - CB_B, 0);
	off = hpu_test_hl_put_dma(f->cb, CB_B + 64, f->src_va + 256,
				  f->dst_va + 256, 256, 0);
	other = hpu_test_hfd_hl_submit_cb(f, Q_PDMA1_0, CB_B + 64,
					  off - CB_B - 64, 0);
	assert_int_equal(wait_cs(f, sib, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, other, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 512);
	assert_int_equal(wait_cs(f, stuck, &st), -ETIMEDOUT);
	assert_int_equal(st, HL_WAIT_CS_STATUS_TIMEDOUT);
	/* the stream runs the next CS */
	off = hpu_test_hl_put2(f->cb, CB_B + 128, 0,
			       hpu_test_hl_ctl(HL_PACKET_NOP, 0));
	again = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(2), CB_B + 128, 8, 0);
	assert_int_equal(wait_cs(f, again, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
}

/* A monitor that fires at once on SOB @sob == 0 writes 0x5a5a5a5a at
 * f->dst: whether the context's SOB @sob is 0 */
static bool sob_is_zero(struct hpu_test_hfd_hl *f, uint32_t sob, uint32_t mon)
{
	uint32_t st, word = 0;
	uint64_t seq;
	size_t off;

	memset(f->dst, 0, 4);
	off = put_monitor(f->cb, CB_B, mon, f->dst_va, 0x5a5a5a5a, sob, true,
			  0);
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA1_0, CB_B, off - CB_B, 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&word, f->dst, 4);
	return word == 0x5a5a5a5a;
}

/* A CS with a refused register write ends ABORTED with nothing of it
 * run, not even the packets before the bad one; its number is used */
static void test_bad_register_aborts(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const uint32_t r = HL_SM_MON_PAY_ADDRL_0;
	uint64_t seq;
	uint32_t st;
	unsigned int i;
	size_t off;

	fill(f->src, 256, 1);
	for (i = 0; i < 4; i++) {
		memset(f->dst, 0x11, 256);
		off = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 256,
					  0);
		off = put_sob(f->cb, off, 40, false, 1);
		switch (i) {
		case 0: /* a register the model does not serve */
			off = hpu_test_hl_put_msg_long(
				f->cb, off, HL_CFG_BASE + 0x100, 1, 0);
			break;
		case 1: /* a SOB value out of range */
			off = hpu_test_hl_put_short(f->cb, off, 1, 4 * 40,
						    0x8000);
			break;
		case 2: /* a monitor armed on two SOBs of a group */
			off = put_monitor(f->cb, off, 2, f->dst_va, 1, 40, true,
					  1);
			off = hpu_test_hl_put_short(
				f->cb, off, 0, HL_SM_MON_ARM_0 - r + 4 * 2,
				arm_value(40, true, 1) & ~0x0200U);
			break;
		default: /* a monitor beyond the model's */
			off = hpu_test_hl_put_short(
				f->cb, off, 0,
				HL_SM_MON_ARM_0 - r + 4 * HPU_NUM_MONITORS,
				arm_value(40, true, 1));
			break;
		}
		seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(0), 0, off, 0);
		assert_int_equal(wait_cs(f, seq, &st), -EIO);
		assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
		for (off = 0; off < 256; off++)
			assert_int_equal(f->dst[off], 0x11);
	}
	/* SOB 40 was never set: the SET before each bad packet did not run */
	assert_true(sob_is_zero(f, 40, 5));
}

/* A compute reset while a stream waits: its CS ABORTED; SOBs, monitors
 * and the monitors' registers start over */
static void test_reset_mid_fence(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t stuck, seq;
	uint32_t st, word;
	size_t off;

	off = put_sob(f->cb, 0, 20, false, 3);
	/* monitor 7's registers set, armed on SOB 21 == 5 (never) */
	off = put_monitor(f->cb, off, 7, f->dst_va + 64, 0x1234, 21, true, 5);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	stuck = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(1), 0, off, 0);
	assert_false(sob_is_zero(f, 20, 1));
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, stuck),
			 HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hfd_device_reset(&f->drv.devs[0], HPU_RESET_COMPUTE,
					  NULL, false, "test"),
			 0);
	assert_int_equal(wait_cs(f, stuck, &st), -EIO);
	assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
	assert_true(sob_is_zero(f, 20, 1));
	/* monitor 7 was disarmed: SOB 21 reaching 5 writes nothing */
	memset(f->dst + 64, 0, 4);
	off = put_sob(f->cb, 0, 21, false, 5);
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA1_0, 0, off, 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&word, f->dst + 64, 4);
	assert_int_equal(word, 0);
	/* its registers were forgotten: an arm alone has no payload address
	 * (0: the model's page fault), so nothing reaches dst + 64 */
	off = hpu_test_hl_put_short(
		f->cb, 0, 0, HL_SM_MON_ARM_0 - HL_SM_MON_PAY_ADDRL_0 + 4 * 7,
		arm_value(21, true, 5));
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA1_0, 0, off, 0);
	assert_int_equal(wait_cs(f, seq, &st), -EIO);
	assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
	memcpy(&word, f->dst + 64, 4);
	assert_int_equal(word, 0);
}

/* Closing the context while a stream waits ends it; the next context
 * starts with its SOBs at 0 and no monitor registers of the old one */
static void test_close_mid_fence(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint32_t st, word;
	uint64_t seq;
	size_t off;

	off = put_sob(f->cb, 0, 30, false, 2);
	off = put_monitor(f->cb, off, 9, f->dst_va + 128, 0x77, 31, true, 9);
	off = hpu_test_hl_put_fence(f->cb, off, 3, 4, 0);
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(3), 0, off, 0);
	assert_false(sob_is_zero(f, 30, 2));
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, seq),
			 HL_WAIT_CS_STATUS_BUSY);
	hfd_ctx_release(f->ctx);
	f->ctx = NULL;
	assert_int_equal(hpu_test_hfd_hl_ctx(f), 0);
	assert_true(sob_is_zero(f, 30, 2));
	/* monitor 9 armed alone in the new context: no payload address */
	memset(f->dst + 128, 0, 4);
	off = hpu_test_hl_put_short(
		f->cb, 0, 0, HL_SM_MON_ARM_0 - HL_SM_MON_PAY_ADDRL_0 + 4 * 9,
		arm_value(31, true, 0));
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA1_0, 0, off, 0);
	assert_int_equal(wait_cs(f, seq, &st), -EIO);
	assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
	memcpy(&word, f->dst + 128, 4);
	assert_int_equal(word, 0);
}

/* Monitors chained through SOBs (each payload an ADD on the next SOB)
 * and a cycle of two: every monitor fires once, the last one passes a
 * FENCE; a cycle ends (a monitor is disarmed when it fires) */
static void test_monitor_chain_and_cycle(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const uint32_t n = HPU_NUM_MONITORS - 2;
	uint32_t i, st;
	uint64_t seq;
	size_t off = 0;

	fill(f->src, 64, 5);
	memset(f->dst, 0, 64);
	/* monitors 0..n-2: SOB 100+i >= 1 -> SOB 101+i += 1 */
	for (i = 0; i + 1 < n; i++)
		off = put_monitor(f->cb, off, i, SOB_REG(101 + i), 1U << 31 | 1,
				  100 + i, false, 1);
	/* the last: SOB 100+n-1 == 1 -> stream 2's FENCE0 */
	off = put_monitor(f->cb, off, n - 1, PDMA0_FENCE0_RDATA(2), 1,
			  100 + n - 1, true, 1);
	/* a cycle: SOB 200 >= 1 -> SOB 201 += 1 -> SOB 200 += 1 */
	off = put_monitor(f->cb, off, n, SOB_REG(201), 1U << 31 | 1, 200, false,
			  1);
	off = put_monitor(f->cb, off, n + 1, SOB_REG(200), 1U << 31 | 1, 201,
			  false, 1);
	off = put_sob(f->cb, off, 200, true, 1);
	off = put_sob(f->cb, off, 100, true, 1);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va, f->dst_va, 64, 0);
	assert_true(off <= CB_B);
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(2), 0, off, 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 64);
	/* the cycle went round once: SOB 200 is 2, SOB 201 is 1 */
	assert_false(sob_is_zero(f, 200, 0));
	off = put_monitor(f->cb, 0, 0, PDMA0_FENCE0_RDATA(3), 1, 200, true, 2);
	off = put_monitor(f->cb, off, 1, PDMA0_FENCE0_RDATA(3), 1, 201, true,
			  1);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 2, 2);
	seq = hpu_test_hfd_hl_submit_cb(f, Q_PDMA0(3), 0, off, 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
}

/* DCORE1's MME QMAN FENCE0 counter of stream @cp (asic_reg facts) */
#define DCORE1_MME_FENCE0_RDATA(cp) \
	(HL_CFG_BASE + 0x40CA000ULL + 0x200000 + 0x290 + 4 * (cp))

/* The MME pairs share an engine: DCORE1's QMAN (the slave) parked on a
 * FENCE holds neither DCORE0's nor DCORE2's, and DCORE2's passes it */
static void test_mme_pair_streams(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t slave, master, other;
	uint32_t st;
	size_t off;

	off = hpu_test_hl_put_fence(f->cb, 0, 0, 1, 1);
	slave = hpu_test_hfd_hl_submit_cb(
		f, HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0 + 8, 0, off, 0);
	off = put_sob(f->cb, 64, 7, false, 1);
	master = hpu_test_hfd_hl_submit_cb(f, HL_GAUDI2_QUEUE_ID_DCORE0_MME_0_0,
					   64, off - 64, 0);
	assert_int_equal(wait_cs(f, master, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, slave),
			 HL_WAIT_CS_STATUS_BUSY);
	off = hpu_test_hl_put_msg_long(f->cb, 128, DCORE1_MME_FENCE0_RDATA(0),
				       1, 0);
	other = hpu_test_hfd_hl_submit_cb(
		f, HL_GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0 + 8, 128, off - 128, 0);
	assert_int_equal(wait_cs(f, other, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, slave, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_translate_good),
		cmocka_unit_test(test_translate_bad),
		cmocka_unit_test_setup_teardown(test_bad_register_aborts, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_fence_from_sibling_stream,
						setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_fence_lower_cp, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_fence_timeout, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_reset_mid_fence, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_close_mid_fence, setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_monitor_chain_and_cycle,
						setup,
						hpu_test_hfd_hl_teardown),
		cmocka_unit_test_setup_teardown(test_mme_pair_streams, setup,
						hpu_test_hfd_hl_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
