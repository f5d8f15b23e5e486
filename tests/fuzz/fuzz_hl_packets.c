// SPDX-License-Identifier: MIT
/*
 * fuzz_hl_packets.c - libFuzzer target of the habanalabs personality's
 * Gaudi2 packet translation (fusedev/hl_packets.c).
 *
 * Input: one byte choosing the queue kind (low 2 bits) and the Gaudi2
 * queue id (the rest: queues 0..63, the PDMA, EDMA, MME and TPC QMANs
 * whose fences are modelled), then the command buffer, translated with
 * a fresh sync-manager state (fusedev/hl_sync.c). The translation must
 * never read outside the buffer or write beyond HFD_HL_XLATE_RATIO
 * times its size (AddressSanitizer watches), must report a bad offset
 * inside the buffer, and what it produces must be a stream the hpu
 * packet validator accepts on the same queue kind (an empty one aside).
 *
 * Seeds (fuzz_seed.h): a DMA, a signal/wait program (SOB writes,
 * monitor registers and arm, FENCE), ARB_POINT and arbitration
 * registers, a chain of monitors, a signal/wait on an MME pair's slave
 * QMAN (DCORE1).
 *
 * The CB also goes through the CP_DMA expansion (fusedev/hl_cp_dma.c),
 * its lower CBs fetched from the input itself at device VA 0x1000, and
 * the expanded CB through the translation again (the lower CBs for the
 * lower CP). Seeds of its own: a swapping LIN_DMA, a CP_DMA of a NOP,
 * a long SOB with a long two-payload monitor (hl-thunk's long mode).
 *
 * And through the lower and upper CPs' walks (fusedev/hl_qman.c: predicates,
 * LOAD_AND_EXE, CB_LIST), reading the same memory: its budget never
 * grows, its output is bounded by what it read and is translated (and
 * expanded) as a CB. Seeds: predicates loaded and a MSG_LONG under one,
 * a MSG_LONG loaded into the scalars and executed, a CB_LIST whose
 * entry is an upper-CP CP_DMA of a NOP.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seed.h"
#include "hl_personality.h"
#include "hl_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static size_t put2(uint8_t *cb, size_t off, uint32_t w0, uint32_t w1)
{
	memcpy(cb + off, &w0, 4);
	memcpy(cb + off + 4, &w1, 4);
	return off + 8;
}

static size_t put_short(uint8_t *cb, size_t off, uint32_t base, uint32_t offset,
			uint32_t value)
{
	return put2(cb, off, value,
		    HL_PACKET_MSG_SHORT << HL_PKT_CTL_OPCODE_SHIFT |
			    HL_PKT_CTL_MB | base << 22 | offset);
}

static size_t put_long(uint8_t *cb, size_t off, uint64_t addr, uint32_t v)
{
	off = put2(cb, off, v, HL_PACKET_MSG_LONG << HL_PKT_CTL_OPCODE_SHIFT);
	memcpy(cb + off, &addr, 8);
	return off + 8;
}

/* Monitor @m: when SOB @sob == @v, @data to @addr */
static size_t put_monitor(uint8_t *cb, size_t off, uint32_t m, uint64_t addr,
			  uint32_t data, uint32_t sob, uint32_t v)
{
	const uint32_t r = HL_SM_MON_PAY_ADDRL_0;

	off = put_short(cb, off, 0, HL_SM_MON_CONFIG_0 - r + 4 * m, 0);
	off = put_short(cb, off, 0, 4 * m, (uint32_t)addr);
	off = put_short(cb, off, 0, HL_SM_MON_PAY_ADDRH_0 - r + 4 * m,
			(uint32_t)(addr >> 32));
	off = put_short(cb, off, 0, HL_SM_MON_PAY_DATA_0 - r + 4 * m, data);
	return put_short(cb, off, 0, HL_SM_MON_ARM_0 - r + 4 * m,
			 sob / 8 | (~(1U << sob % 8) & 0xFF) << 8 | 1U << 16 |
				 v << 17);
}

/* The input as memory at device VA 0x1000 (lower CBs of CP_DMA) */
struct mem {
	const uint8_t *p;
	size_t n;
};

static int fetch(void *arg, uint64_t va, uint32_t len, void *buf)
{
	const struct mem *m = arg;

	if (va < 0x1000 || va - 0x1000 > m->n || len > m->n - (va - 0x1000))
		return -EFAULT;
	memcpy(buf, m->p + (va - 0x1000), len);
	return 0;
}

/* Expand the CP_DMAs of @cb and translate the result like any CB */
static void expand_and_translate(const uint8_t *cb, size_t size,
				 const struct hfd_hl_xlate *x)
{
	struct mem m = { .p = cb, .n = size };
	struct hfd_hl_lower_cbs lower;
	uint32_t budget = 1U << 16;
	size_t n = 0, len = 0, bad_off = 0, i, end = 0;
	uint8_t *ex = NULL, *out;
	int ret;

	if (hfd_hl_cp_dma_expand(cb, size, fetch, &m, &budget, &ex, &n,
				 &lower) ||
	    !ex)
		return;
	if (budget > 1U << 16)
		abort();
	for (i = 0; i < lower.n; i++) {
		/* in order, inside the expansion, not overlapping */
		if (lower.r[i].off < end || lower.r[i].len > n ||
		    lower.r[i].off > n - lower.r[i].len)
			abort();
		end = lower.r[i].off + lower.r[i].len;
	}
	out = malloc(n ? HFD_HL_XLATE_RATIO * n : 1);
	if (out) {
		ret = hfd_hl_cp_dma_translate(ex, n, &lower, x, out, &len,
					      &bad_off);
		if (!ret &&
		    (len > HFD_HL_XLATE_RATIO * n ||
		     (len && hfd_packets_validate(out, len, x->kind, NULL))))
			abort();
		if (ret && (bad_off >= n || len))
			abort();
	}
	free(out);
	free(lower.r);
	free(ex);
}

/* The lower CP's walk of @cb, then the upper CP's, its output
 * translated as a CB */
static void walk_and_translate(const uint8_t *cb, size_t size,
			       const struct hfd_hl_xlate *x)
{
	struct mem m = { .p = cb, .n = size };
	struct hfd_hl_cp cp = { .pred = 1 };
	uint32_t budget = 1U << 16;
	size_t n = 0, len = 0, bad_off = 0;
	uint8_t *w = NULL, *out;
	int ret;

	/* the lower CP's walk: no CB_LIST, the same bounds */
	if (!hfd_hl_qman_walk_lower(cb, size, &cp, fetch, &m, &budget, &w,
				    &n)) {
		if (budget > 1U << 16 ||
		    (w && n > 2 * (size + (1U << 16) - budget) + 8))
			abort();
		free(w);
	}
	budget = 1U << 16;
	cp = (struct hfd_hl_cp){ .pred = 1 };
	if (hfd_hl_qman_walk(cb, size, &cp, fetch, &m, &budget, &w, &n) || !w)
		return;
	if (!(cp.pred & 1)) /* P0 is never cleared */
		abort();
	/* each byte out: one in or read, or a barrier NOP for one in */
	if (budget > 1U << 16 || n > 2 * (size + (1U << 16) - budget) + 8)
		abort();
	out = malloc(HFD_HL_XLATE_RATIO * n);
	if (out) {
		ret = hfd_hl_packets_translate(w, n, x, out, &len, &bad_off);
		if (!ret &&
		    (len > HFD_HL_XLATE_RATIO * n ||
		     (len && hfd_packets_validate(out, len, x->kind, NULL))))
			abort();
		if (ret && (bad_off >= n || len))
			abort();
	}
	free(out);
	expand_and_translate(w, n, x);
	free(w);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

#define OP(o) ((uint32_t)(o) << HL_PKT_CTL_OPCODE_SHIFT)

/* A CB of NOPs from @off to 128 (where the walk's data starts) */
static size_t nops_to_128(uint8_t *cb, size_t off)
{
	while (off < 128)
		off = put2(cb, off, 0, OP(HL_PACKET_NOP));
	return off;
}

/* Seeds of the upper CP's walk (the CB at device VA 0x1000) */
static void qman_seeds(const char *dir)
{
	uint8_t s[1 + 256];
	size_t off;

	/* predicates (one bit each) at 0x1080: a MSG_LONG's value, 8: P3;
	 * a MSG_LONG under P3 */
	memset(s, 0, sizeof(s));
	put32(s + 1, HL_LOAD_EXE_CFG_LOAD | HL_LOAD_EXE_CFG_PMAP_CONSEC);
	put32(s + 5, OP(HL_PACKET_LOAD_AND_EXE) | HL_PKT_CTL_MB);
	put64(s + 9, 0x1080);
	off = put_long(s + 1, 16, 0x200000000000ULL, 1);
	put32(s + 1 + off - 12, OP(HL_PACKET_MSG_LONG) | 3);
	off = nops_to_128(s + 1, off);
	off = put_long(s + 1, off, 0x200000000010ULL, 8);
	fuzz_seed_add(dir, "load-pred", s, 1 + off);
	/* the scalars from 0x1080 (a MSG_LONG), executed */
	put32(s + 1, HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_LOAD |
			     HL_LOAD_EXE_CFG_EXE);
	fuzz_seed_add(dir, "load-exe", s, 1 + off);
	/* MSG_LONG index 0 at 0x1000 (its own value word), CB_LIST of
	 * the table at 0x1080: an upper-CP CP_DMA of the NOP at 0x1028 */
	memset(s, 0, sizeof(s));
	off = put_long(s + 1, 0, 0x1000, 0);
	put32(s + 1 + off + 4, OP(HL_PACKET_CB_LIST) | HL_PKT_CTL_MB);
	put64(s + 1 + off + 8, 0x1000);
	put64(s + 1 + off + 16, 0x1080);
	off = nops_to_128(s + 1, off + 24);
	put32(s + 1 + off, 8);
	put32(s + 1 + off + 4, OP(HL_PACKET_CP_DMA) | HL_CP_DMA_CTL_UPPER_CP);
	put64(s + 1 + off + 8, 0x1028);
	fuzz_seed_add(dir, "cb-list", s, 1 + off + 16);
}

/* Seeds: a swapping LIN_DMA; a CP_DMA of the NOP after it */
static void seeds(const char *dir)
{
	uint8_t s[1 + 24 + 16 + 8];

	if (!dir)
		return;
	memset(s, 0, sizeof(s));
	put32(s + 1, 4096);
	put32(s + 5,
	      (HL_PACKET_LIN_DMA << HL_PKT_CTL_OPCODE_SHIFT) | (3U << 1));
	put64(s + 9, 0x200000001000ULL);
	put64(s + 17, 0x100000002000ULL);
	fuzz_seed_add(dir, "lin-dma-swap64", s, 1 + 24);
	memset(s, 0, sizeof(s));
	put32(s + 1, 8);
	put32(s + 5,
	      (HL_PACKET_CP_DMA << HL_PKT_CTL_OPCODE_SHIFT) | HL_PKT_CTL_MB);
	put64(s + 9, 0x1000 + 16); /* the NOP after it, in the CB */
	put32(s + 17 + 4, HL_PACKET_NOP << HL_PKT_CTL_OPCODE_SHIFT);
	fuzz_seed_add(dir, "cp-dma-nop", s, 1 + 16 + 8);
	qman_seeds(dir);
}

/*
 * A long SOB and a long monitor as hl-thunk's test_sm_long_mode: SOB 16
 * long SET and ADD; monitor 8 long with two payloads (PDMA_0 stream 0's
 * FENCE0 counter, the dummy SET 0 of SOB 8184 from monitor 9), MON_ARM
 * 11..9 the target's upper bits, MON_ARM 8 ==; the FENCE
 */
static void long_seed(const char *dir)
{
	const uint64_t fence = HL_CFG_BASE + 0x4C8A290ULL;
	const uint64_t dummy = HL_CFG_BASE + HL_SM_SOB_OBJ_0 + 4 * 8184;
	const uint32_t mon = HL_SM_MON_PAY_ADDRL_0;
	uint8_t cb[1 + 512];
	size_t off;
	int i;

	if (!dir)
		return;
	cb[0] = 0 << 2 | 0;
	off = put_short(cb + 1, 0, 1, 4 * 16, 1U << 24);
	for (i = 1; i < 4; i++)
		off = put_short(cb + 1, off, 1, 4 * (16 + (uint32_t)i), 0x7FFF);
	off = put_short(cb + 1, off, 1, 4 * 16, 1U << 31 | 1U << 24 | 0x100);
	off = put_short(cb + 1, off, 0, HL_SM_MON_CONFIG_0 - mon + 4 * 8,
			1 | 1U << 5);
	off = put_short(cb + 1, off, 0, 4 * 8, (uint32_t)fence);
	off = put_short(cb + 1, off, 0, HL_SM_MON_PAY_ADDRH_0 - mon + 4 * 8,
			(uint32_t)(fence >> 32));
	off = put_short(cb + 1, off, 0, HL_SM_MON_PAY_DATA_0 - mon + 4 * 8, 1);
	off = put_short(cb + 1, off, 0, 4 * 9, (uint32_t)dummy);
	off = put_short(cb + 1, off, 0, HL_SM_MON_PAY_ADDRH_0 - mon + 4 * 9,
			(uint32_t)(dummy >> 32));
	off = put_short(cb + 1, off, 0, HL_SM_MON_PAY_DATA_0 - mon + 4 * 9, 0);
	for (i = 3; i >= 0; i--)
		off = put_short(cb + 1, off, 0,
				HL_SM_MON_ARM_0 - mon + 4 * (8 + (uint32_t)i),
				(i ? 0 : 2U) | 0xFEU << 8 | 1U << 16 |
					(i ? 0x7FFFU : 0x100U) << 17);
	off = put2(cb + 1, off, 1 | 1U << 16,
		   HL_PACKET_FENCE << HL_PKT_CTL_OPCODE_SHIFT);
	fuzz_seed_add(dir, "long-monitor", cb, 1 + off);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_corpus_dir(*argc, *argv);
	/* PDMA_0 stream 1's FENCE0 counter (Gaudi2's asic_reg facts) */
	const uint64_t fence = HL_CFG_BASE + 0x4C8A294ULL;
	uint8_t cb[1 + 1024];
	size_t off;
	uint32_t i;

	/* a DMA on PDMA_0 stream 0 */
	cb[0] = 0 << 2 | 0;
	off = 1 + put2(cb + 1, 0, 64, HL_PACKET_LIN_DMA << 24);
	memcpy(cb + off, &(uint64_t){ 0x200000000000ULL }, 8);
	memcpy(cb + off + 8, &(uint64_t){ 0x100000000100ULL }, 8);
	off += 16;
	fuzz_seed_add(dir, "dma", cb, off);
	/* signal/wait on PDMA_0 stream 1: SOB 5 := 0, monitor 3 on it to
	 * the stream's fence, SOB 5 += 1, FENCE 0 target 1 dec 1 */
	cb[0] = 1 << 2 | 0;
	off = put_short(cb + 1, 0, 1, 4 * 5, 0);
	off = put_monitor(cb + 1, off, 3, fence, 1, 5, 1);
	off = put_short(cb + 1, off, 1, 4 * 5, 1U << 31 | 1);
	off = put2(cb + 1, off, 1 | 1U << 16,
		   HL_PACKET_FENCE << HL_PKT_CTL_OPCODE_SHIFT);
	fuzz_seed_add(dir, "signal-wait", cb, 1 + off);
	/* ARB_POINT, the arbitration registers, a MSG_LONG to a SOB and
	 * to the fence counter */
	off = put2(cb + 1, 0, 3, HL_PACKET_ARB_POINT << 24);
	off = put_long(cb + 1, off, HL_CFG_BASE + 0x4C8A4A4ULL, 0x111);
	off = put_long(cb + 1, off, HL_CFG_BASE + 0x4C8A718ULL, 10);
	off = put_long(cb + 1, off, HL_CFG_BASE + HL_SM_SOB_OBJ_0 + 8, 7);
	off = put_long(cb + 1, off, fence, 2);
	off = put2(cb + 1, off, 1U << 31, HL_PACKET_ARB_POINT << 24);
	fuzz_seed_add(dir, "arb", cb, 1 + off);
	/* a chain of monitors through SOBs 10..15, the last to the fence */
	off = 0;
	for (i = 0; i < 5; i++)
		off = put_monitor(cb + 1, off, i,
				  HL_CFG_BASE + HL_SM_SOB_OBJ_0 + 4 * (11 + i),
				  1U << 31 | 1, 10 + i, 1);
	off = put_monitor(cb + 1, off, 5, fence, 1, 15, 1);
	off = put_short(cb + 1, off, 1, 4 * 10, 1U << 31 | 1);
	fuzz_seed_add(dir, "monitor-chain", cb, 1 + off);
	/* DCORE1's MME QMAN (a pair's slave) stream 0: monitor 6 on SOB 20
	 * to its own FENCE0 counter, SOB 20 += 1, FENCE */
	cb[0] = 56 << 2 | 1;
	off = put_monitor(cb + 1, 0, 6, HL_CFG_BASE + 0x42CA290ULL, 1, 20, 1);
	off = put_short(cb + 1, off, 1, 4 * 20, 1U << 31 | 1);
	off = put2(cb + 1, off, 1 | 1U << 16,
		   HL_PACKET_FENCE << HL_PKT_CTL_OPCODE_SHIFT);
	fuzz_seed_add(dir, "mme-slave", cb, 1 + off);
	seeds(dir);
	long_seed(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hfd_hl_xlate x = { .sram_base = 0x80000000000ULL,
				  .sram_size = 0x3000000,
				  .sram_va = 0x100000000000ULL };
	size_t bad_off = 0, len = 0, room;
	uint8_t *cb, *out;

	if (size < 1)
		return 0;
	/* a real queue kind: chunks never name HFD_QUEUE_NONE */
	x.kind = (enum hfd_queue_kind)(HFD_QUEUE_DMA +
				       (data[0] & 3) % HFD_QUEUE_NIC);
	x.qid = data[0] >> 2;
	x.sync = hfd_hl_sync_new();
	size--;
	room = HFD_HL_XLATE_RATIO * size;
	/* exact-size heap buffers, so any overrun is caught */
	cb = malloc(size ? size : 1);
	out = malloc(room ? room : 1);
	if (!cb || !out)
		goto out;
	memcpy(cb, data + 1, size);
	if (!hfd_hl_packets_translate(cb, size, &x, out, &len, &bad_off)) {
		/* an empty CB runs as one NOP (hl_cs.c) */
		if (len > room ||
		    (len && hfd_packets_validate(out, len, x.kind, NULL)))
			abort();
	} else if (bad_off >= size || len) {
		abort();
	}
	expand_and_translate(cb, size, &x);
	walk_and_translate(cb, size, &x);
out:
	hfd_hl_sync_free(x.sync);
	free(cb);
	free(out);
	return 0;
}
