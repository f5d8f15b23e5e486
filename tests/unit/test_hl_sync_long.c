// SPDX-License-Identifier: MIT
/*
 * test_hl_sync_long.c - long SOBs, long monitors, monitors with two
 * payloads and the Gaudi2 SOBs above the model's direct ones
 * (docs/habanalabs.md, "Sync manager", "Long SOBs") without FUSE: their
 * translation to hpu packets (checked by the hpu validator), the pool of
 * hpu SOBs running out, and CSs on the model: hl-thunk's long-mode
 * sequence, a carry between the four SOBs, saturation, a long monitor
 * with its dummy second payload, a >= long monitor.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "hpu_fw_if.h"
#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_packets.h"

#define BUF_SIZE 16384

/* Gaudi2 facts: PDMA_0's QMAN FENCE0 counter of stream @cp */
#define PDMA0_FENCE0_RDATA(cp) (HL_CFG_BASE + 0x4C8A290ULL + 4 * (cp))
#define SOB_REG(n)	       (HL_CFG_BASE + HL_SM_SOB_OBJ_0 + 4ULL * (n))
#define Q_PDMA0(s)	       (s)

/* so_upd: long 24, add 31 */
#define SOB_LONG     (1U << 24)
#define SOB_ADD	     (1U << 31)
/* MON_CONFIG: long 0, payloads - 1 at 5 */
#define CFG_LONG     1U
#define CFG_TWO_PAYS (1U << 5)

/* The SOB hl-thunk's long monitors send their dummy payload to */
#define DUMMY_SOB 8184

static size_t put_sob(void *cb, size_t off, uint32_t n, uint32_t v)
{
	return hpu_test_hl_put_short(cb, off, HL_MSG_SHORT_BASE_SOB, 4 * n, v);
}

/* hl-thunk's long SET: a long write of bits 0..14, then plain writes */
static size_t put_long_set(void *cb, size_t off, uint32_t n, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < 4; i++)
		off = put_sob(cb, off, n + i,
			      ((uint32_t)(v >> (15 * i)) & 0x7FFF) |
				      (i ? 0 : SOB_LONG));
	return off;
}

/* The MON_ARM value watching SOB @sob alone */
static uint32_t arm_value(uint32_t sob, bool equal, uint32_t v)
{
	uint32_t mask = ~(1U << (sob % 8)) & 0xFF;

	return (sob / 8 & 0xFF) | mask << 8 | (equal ? 1U << 16 : 0) | v << 17;
}

static size_t put_mon_reg(void *cb, size_t off, uint32_t reg, uint32_t m,
			  uint32_t v)
{
	return hpu_test_hl_put_short(cb, off, HL_MSG_SHORT_BASE_MON,
				     reg - HL_SM_MON_PAY_ADDRL_0 + 4 * m, v);
}

/*
 * Long monitor @m as hl-thunk arms one: MON_CONFIG long with two
 * payloads, payload 0 (@data to @addr) in monitor m's registers, the
 * dummy one (SET 0 to SOB 8184) in m+1's, then MON_ARM m+3..m+1 with the
 * target's upper bits and MON_ARM m (@equal) with its low bits and SOB
 * @sob
 */
static size_t put_long_monitor(void *cb, size_t off, uint32_t m, uint64_t addr,
			       uint32_t data, uint32_t sob, bool equal,
			       uint64_t target)
{
	uint64_t dummy = SOB_REG(DUMMY_SOB);
	int i;

	off = put_mon_reg(cb, off, HL_SM_MON_CONFIG_0, m,
			  CFG_LONG | CFG_TWO_PAYS);
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_ADDRL_0, m, (uint32_t)addr);
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_ADDRH_0, m,
			  (uint32_t)(addr >> 32));
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_DATA_0, m, data);
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_ADDRL_0, m + 1,
			  (uint32_t)dummy);
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_ADDRH_0, m + 1,
			  (uint32_t)(dummy >> 32));
	off = put_mon_reg(cb, off, HL_SM_MON_PAY_DATA_0, m + 1, 0);
	for (i = 3; i >= 0; i--)
		off = put_mon_reg(cb, off, HL_SM_MON_ARM_0, m + (uint32_t)i,
				  arm_value(i ? 0 : sob, true,
					    (uint32_t)(target >> (15 * i)) &
						    0x7FFF) &
					  ~(i || equal ? 0 : 1U << 16));
	return off;
}

static int translate(const void *cb, size_t size, struct hfd_hl_xlate *x,
		     uint8_t *out, size_t *len)
{
	size_t bad;

	return hfd_hl_packets_translate(cb, size, x, out, len, &bad);
}

static void test_translate_long(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA, .qid = Q_PDMA0(0) };
	const uint64_t v = 0xFFFE0003FFF8100ULL;
	struct hpu_pkt_msg_long ml;
	struct hpu_pkt_arm_monitor am[2];
	uint8_t cb[1024], out[HFD_HL_XLATE_RATIO * 1024];
	size_t off, len = 0, i;
	uint32_t dummy;

	(void)state;
	x.sync = hfd_hl_sync_new();
	assert_non_null(x.sync);
	/* a long SET and a long ADD on SOB 8 */
	off = put_sob(cb, 0, 8, SOB_LONG | 5);
	off = put_sob(cb, off, 8, SOB_LONG | SOB_ADD | 0x100);
	assert_int_equal(translate(cb, off, &x, out, &len), 0);
	assert_int_equal(len, 2 * sizeof(ml));
	assert_int_equal(hfd_packets_validate(out, len, HFD_QUEUE_DMA, NULL),
			 0);
	memcpy(&ml, out, sizeof(ml));
	assert_int_equal(ml.sob_id, 8);
	assert_int_equal(ml.op, HPU_MSG_OP_LONG_SET);
	assert_int_equal(ml.value, 5);
	memcpy(&ml, out + sizeof(ml), sizeof(ml));
	assert_int_equal(ml.op, HPU_MSG_OP_LONG_ADD);
	assert_int_equal(ml.value, 0x100);

	/* SOB 8184 gets a pool SOB, the same one each time */
	off = put_sob(cb, 0, DUMMY_SOB, 7);
	assert_int_equal(translate(cb, off, &x, out, &len), 0);
	memcpy(&ml, out, sizeof(ml));
	dummy = ml.sob_id;
	assert_in_range(dummy, HL_SYNC_NUM_SOBS, HPU_NUM_SOBS - 1);
	assert_int_equal(ml.op, HPU_MSG_OP_SET);
	assert_int_equal(ml.value, 7);

	/* the long monitor: the 7 configuration writes and the three upper
	 * arms run nothing; the arm of m makes one ARM_MONITOR per payload */
	off = put_long_monitor(cb, 0, 16, PDMA0_FENCE0_RDATA(0), 1, 8, true, v);
	assert_int_equal(translate(cb, off, &x, out, &len), 0);
	assert_int_equal(len, sizeof(am));
	assert_int_equal(hfd_packets_validate(out, len, HFD_QUEUE_DMA, NULL),
			 0);
	memcpy(am, out, sizeof(am));
	for (i = 0; i < 2; i++) {
		assert_int_equal(am[i].mon_id, 16 + i);
		assert_int_equal(am[i].sob_id, 8);
		assert_int_equal(am[i].target, (uint32_t)v);
		assert_int_equal(am[i].target_hi, v >> 32);
		assert_true(am[i].hdr.flags & HPU_MON_F_LONG);
		assert_true(am[i].hdr.flags & HPU_MON_F_EQUAL);
	}
	/* payload 0: +1 on the stream's fence counter; 1: SOB 8184 := 0 */
	assert_true(am[0].hdr.flags & HPU_MON_F_SOB_ADD);
	assert_int_equal(am[0].payload, 1);
	assert_in_range(am[0].payload_addr, HL_SYNC_NUM_SOBS, HPU_NUM_SOBS - 1);
	assert_int_not_equal(am[0].payload_addr, dummy);
	assert_true(am[1].hdr.flags & HPU_MON_F_SOB_SET);
	assert_false(am[1].hdr.flags & HPU_MON_F_SOB_ADD);
	assert_int_equal(am[1].payload, 0);
	assert_int_equal(am[1].payload_addr, dummy);

	/* the long monitor at >= 0 would always fire: refused */
	off = put_long_monitor(cb, 0, 16, PDMA0_FENCE0_RDATA(0), 1, 8, false,
			       0);
	assert_int_equal(translate(cb, off, &x, out, &len), -EINVAL);
	/* four monitors from m: m = 61 runs past the model's 64 */
	off = put_long_monitor(cb, 0, HPU_NUM_MONITORS - 3,
			       PDMA0_FENCE0_RDATA(0), 1, 8, true, v);
	assert_int_equal(translate(cb, off, &x, out, &len), -EINVAL);
	/* a long payload write is not served */
	off = put_long_monitor(cb, 0, 16, SOB_REG(20), SOB_LONG | 1, 8, true,
			       v);
	assert_int_equal(translate(cb, off, &x, out, &len), -EINVAL);
	hfd_hl_sync_free(x.sync);
}

/* The pool the high SOBs share with the fence counters runs out: the
 * SOB write after is a bad packet, and so is a new fence counter */
static void test_pool_runs_out(void **state)
{
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA, .qid = Q_PDMA0(0) };
	uint8_t cb[8 * (HL_SYNC_NUM_FENCES + 1)];
	uint8_t out[HFD_HL_XLATE_RATIO * sizeof(cb)];
	size_t off = 0, len = 0, bad = 0;
	uint32_t i;

	(void)state;
	x.sync = hfd_hl_sync_new();
	assert_non_null(x.sync);
	off = hpu_test_hl_put_fence(cb, off, 0, 1, 1); /* counter 0 */
	for (i = 1; i < HL_SYNC_NUM_FENCES; i++)
		off = put_sob(cb, off, HL_SYNC_NUM_SOBS + i, 1);
	assert_int_equal(translate(cb, off, &x, out, &len), 0);
	/* known ones still translate; a new one does not */
	off = put_sob(cb, 0, HL_SYNC_NUM_SOBS + 1, 1);
	assert_int_equal(translate(cb, off, &x, out, &len), 0);
	off = put_sob(cb, off, HL_SM_NUM_SOBS - 1, 1);
	assert_int_equal(hfd_hl_packets_translate(cb, off, &x, out, &len, &bad),
			 -EINVAL);
	assert_int_equal(bad, 8);
	off = hpu_test_hl_put_fence(cb, 0, 1, 1, 1);
	assert_int_equal(translate(cb, off, &x, out, &len), -EINVAL);
	hfd_hl_sync_free(x.sync);
}

/*
 * CSs on the model
 */

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

/* Run @size bytes at f->cb + @at on @qid (20 s timeout: a monitor that
 * never fires fails the test instead of hanging it); its status */
static uint32_t run_cb(struct hpu_test_hfd_hl *f, uint32_t qid, size_t at,
		       size_t size)
{
	struct hl_wait_cs_out o;

	hpu_test_hfd_hl_wait_cs(
		f->ctx, hpu_test_hfd_hl_submit_cb(f, qid, at, size, 20), &o);
	return o.status;
}

static uint32_t sob_value(struct hpu_test_hfd_hl *f, uint32_t n)
{
	uint32_t v = 0xdead;

	assert_int_equal(hpusim_model.ops->sob_read(f->ctx->as, n, &v), 0);
	return v;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

/*
 * hl-thunk's test_sm_long_mode and more: SOB 16 set to a 60-bit value
 * and added to; SOB 24's carry from its low 15 bits; SOB 32 saturating
 * at 2^60-1. A long monitor (==, two payloads: stream 1's fence counter,
 * SOB 8184 := 0) passes the FENCE before a DMA; SOB 8184 was 7 and is 0
 * after; a >= long monitor one above the value fires on a long ADD, an
 * == one on a short write to the long SOB's third SOB
 */
static void test_long_sob_runs(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const uint64_t v = 0xFFFE0003FFF8000ULL, w = v + 0x100;
	uint32_t i, word;
	size_t off;

	off = put_long_set(f->cb, 0, 16, v);
	off = put_sob(f->cb, off, 16, SOB_LONG | SOB_ADD | 0x100);
	off = put_long_set(f->cb, off, 24, 0x7FFF);
	off = put_sob(f->cb, off, 24, SOB_LONG | SOB_ADD | 1);
	off = put_long_set(f->cb, off, 32, HPU_SOB_LONG_MAX - 2);
	off = put_sob(f->cb, off, 32, SOB_LONG | SOB_ADD | 5);
	off = put_sob(f->cb, off, DUMMY_SOB, 7);
	assert_int_equal(run_cb(f, Q_PDMA0(0), 0, off),
			 HL_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < 4; i++) {
		assert_int_equal(sob_value(f, 16 + i),
				 (uint32_t)(w >> (15 * i)) & 0x7FFF);
		assert_int_equal(sob_value(f, 24 + i), i == 1);
		assert_int_equal(sob_value(f, 32 + i), 0x7FFF);
	}

	/* the long monitor, its fence, a DMA */
	fill(f->src, 256, 4);
	memset(f->dst, 0, 512);
	off = put_long_monitor(f->cb, 0, 8, PDMA0_FENCE0_RDATA(1), 1, 16, true,
			       w);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va, f->dst_va, 256, 0);
	assert_int_equal(run_cb(f, Q_PDMA0(1), 0, off),
			 HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 256);
	/* SOB 8184 is 0: a monitor == 0 on it writes a word */
	off = put_mon_reg(f->cb, 0, HL_SM_MON_CONFIG_0, 20,
			  (DUMMY_SOB / 8 >> 8) << 16);
	off = put_mon_reg(f->cb, off, HL_SM_MON_PAY_ADDRL_0, 20,
			  (uint32_t)(f->dst_va + 256));
	off = put_mon_reg(f->cb, off, HL_SM_MON_PAY_ADDRH_0, 20,
			  (uint32_t)((f->dst_va + 256) >> 32));
	off = put_mon_reg(f->cb, off, HL_SM_MON_PAY_DATA_0, 20, 0x5a5a5a5a);
	off = put_mon_reg(f->cb, off, HL_SM_MON_ARM_0, 20,
			  arm_value(DUMMY_SOB, true, 0));
	assert_int_equal(run_cb(f, Q_PDMA0(2), 0, off),
			 HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&word, f->dst + 256, 4);
	assert_int_equal(word, 0x5a5a5a5a);

	/* >= w + 1 on SOB 16: armed, then a long ADD of 1 fires it */
	off = put_long_monitor(f->cb, 0, 8, PDMA0_FENCE0_RDATA(3), 1, 16, false,
			       w + 1);
	off = put_sob(f->cb, off, 16, SOB_LONG | SOB_ADD | 1);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va + 256, f->dst_va + 300,
				  100, 0);
	assert_int_equal(run_cb(f, Q_PDMA0(3), 0, off),
			 HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst + 300, f->src + 256, 100);
	assert_int_equal(sob_value(f, 16), (uint32_t)(w + 1) & 0x7FFF);

	/* a short write to the third SOB checks the long monitor too */
	off = put_long_monitor(f->cb, 0, 8, PDMA0_FENCE0_RDATA(2), 1, 16, true,
			       w + 1 + (1ULL << 30));
	off = put_sob(f->cb, off, 18, SOB_ADD | 1);
	off = hpu_test_hl_put_fence(f->cb, off, 0, 1, 1);
	off = hpu_test_hl_put_dma(f->cb, off, f->src_va, f->dst_va + 400, 64,
				  0);
	assert_int_equal(run_cb(f, Q_PDMA0(2), 0, off),
			 HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst + 400, f->src, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_translate_long),
		cmocka_unit_test(test_pool_runs_out),
		cmocka_unit_test(test_long_sob_runs),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
