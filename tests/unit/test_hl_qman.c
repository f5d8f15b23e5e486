// SPDX-License-Identifier: MIT
/*
 * test_hl_qman.c - the QMAN CPs' predicates, LOAD_AND_EXE and CB_LIST
 * of the habanalabs personality (docs/habanalabs.md, "Predicates,
 * scalars and CB lists"): hfd_hl_qman_walk() on a fake memory (what
 * runs, what is dropped, each refusal, the bounds), then through CSs
 * on the dispatcher fixture (packets run or skipped by their predicate,
 * a packet executed from the scalars, a CB_LIST chain whose index the
 * CBs write as they run, a malformed packet: ABORTED, nothing run; the
 * CPs' state kept from CS to CS, per stream and for the lower CP, not
 * by a refused CS, cleared by a reset).
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
#include "hl_personality.h"
#include "hpu_packets.h"

#define BUF_SIZE 16384

/* The fake memory: MEM_SIZE bytes at device address MEM_BASE */
#define MEM_BASE 0x100000ULL
#define MEM_SIZE 0x10000U

static uint8_t mem[MEM_SIZE];
static unsigned int fetches;

static int fake_fetch(void *arg, uint64_t va, uint32_t len, void *buf)
{
	(void)arg;
	fetches++;
	if (va < MEM_BASE || va - MEM_BASE > MEM_SIZE ||
	    len > MEM_SIZE - (va - MEM_BASE))
		return -EFAULT;
	memcpy(buf, mem + (va - MEM_BASE), len);
	return 0;
}

static size_t put_load_exe(void *cb, size_t off, uint32_t cfg, uint32_t bits,
			   uint64_t src)
{
	struct hl_pkt_load_and_exe p = {
		.cfg = cfg,
		.ctl = hpu_test_hl_ctl(HL_PACKET_LOAD_AND_EXE, bits),
		.src_addr = src,
	};

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

static size_t put_cb_list(void *cb, size_t off, uint64_t index, uint64_t table,
			  uint32_t bits)
{
	struct hl_pkt_cb_list p = {
		.ctl = hpu_test_hl_ctl(HL_PACKET_CB_LIST, bits),
		.index_addr = index,
		.table_addr = table,
	};

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

static size_t put_cp_dma(void *cb, size_t off, uint64_t src, uint32_t size,
			 uint32_t bits)
{
	struct hl_pkt_cp_dma p = {
		.tsize = size,
		.ctl = hpu_test_hl_ctl(HL_PACKET_CP_DMA, bits),
		.src_addr = src,
	};

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

static size_t put_nop(void *cb, size_t off, uint32_t bits)
{
	return hpu_test_hl_put2(cb, off, 0,
				hpu_test_hl_ctl(HL_PACKET_NOP, bits));
}

/* Walk @cb with a fresh CP and budget; the answer, the output in *@out */
static int walk(const void *cb, size_t size, uint8_t **out, size_t *len)
{
	struct hfd_hl_cp cp = { .pred = 1 };
	uint32_t budget = HFD_HL_CP_DMA_MAX;

	return hfd_hl_qman_walk(cb, size, &cp, fake_fetch, NULL, &budget, out,
				len);
}

/* The MSG_LONG values of @out, in order, into @v; how many */
static unsigned int msg_longs(const uint8_t *out, size_t len, uint32_t *v,
			      uint64_t *addr)
{
	struct hl_pkt_msg_long m;
	unsigned int n = 0;
	size_t off = 0;
	uint32_t op;

	while (off + 8 <= len) {
		memcpy(&m, out + off, 8);
		op = (m.ctl & HL_PKT_CTL_OPCODE_MASK) >>
		     HL_PKT_CTL_OPCODE_SHIFT;
		assert_int_not_equal(hfd_hl_packet_size(op), 0);
		if (op == HL_PACKET_MSG_LONG) {
			memcpy(&m, out + off, sizeof(m));
			assert_int_equal(m.ctl & HL_PKT_CTL_PRED_MASK, 0);
			v[n] = m.value;
			if (addr)
				addr[n] = m.addr;
			n++;
		}
		off += hfd_hl_packet_size(op);
	}
	assert_int_equal(off, len);
	return n;
}

/* The packets' layouts (gaudi2_packets.h) */
static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct hl_pkt_load_and_exe), 16);
	assert_int_equal(offsetof(struct hl_pkt_load_and_exe, ctl), 4);
	assert_int_equal(offsetof(struct hl_pkt_load_and_exe, src_addr), 8);
	assert_int_equal(sizeof(struct hl_pkt_cb_list), 24);
	assert_int_equal(offsetof(struct hl_pkt_cb_list, index_addr), 8);
	assert_int_equal(offsetof(struct hl_pkt_cb_list, table_addr), 16);
	assert_int_equal(HL_LOAD_EXE_CFG_LOAD, 1U << 8);
	assert_int_equal(HL_LOAD_EXE_CFG_EXE, 1U << 9);
	assert_int_equal(HL_LOAD_EXE_CFG_ETYPE_UPPER, 1U << 10);
	assert_int_equal(HL_CB_LIST_CTL_SIZE_DESC, 1U << 5);
}

/* A CB without predicates, LOAD_AND_EXE or CB_LIST runs as it is */
static void test_no_walk(void **state)
{
	uint8_t cb[64], *out = (uint8_t *)1;
	size_t n, len = 1;

	(void)state;
	n = hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1, HL_PKT_CTL_MB);
	n = put_nop(cb, n, 0);
	fetches = 0;
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_int_equal(fetches, 0);
}

/*
 * Predicates loaded in both maps: packets whose predicate is set run
 * (field cleared), the others are dropped; P0 always runs and is never
 * loaded; a later load replaces the earlier one
 */
static void test_predicates(void **state)
{
	uint8_t cb[256], *out;
	uint32_t v[8], cfg, word = 1;
	unsigned int map, i;
	size_t n, len;

	(void)state;
	for (map = 0; map < 2; map++) {
		memset(mem, 0, sizeof(mem));
		cfg = HL_LOAD_EXE_CFG_LOAD |
		      (map ? HL_LOAD_EXE_CFG_PMAP_CONSEC : 0);
		/* P10 and P31 set, P0's bit clear */
		if (map) {
			mem[10 / 8] |= 1 << (10 % 8);
			mem[31 / 8] |= 1 << (31 % 8);
		} else {
			memcpy(mem + 4 * 10, &word, 4);
			memcpy(mem + 4 * 31, &word, 4);
			mem[4 * 11] = 2; /* bit 1 of P11's word: not P11 */
		}
		/* the second buffer: only P11 */
		if (map)
			mem[0x80 + 11 / 8] |= 1 << (11 % 8);
		else
			memcpy(mem + 0x80 + 4 * 11, &word, 4);
		n = hpu_test_hl_put_msg_long(cb, 0, 0x1000, 100, 10);
		n = put_load_exe(cb, n, cfg, HL_PKT_CTL_MB, MEM_BASE);
		for (i = 0; i < 4; i++)
			n = hpu_test_hl_put_msg_long(cb, n, 0x1000, i,
						     (uint32_t[]){ 0, 10, 11,
								   31 }[i]);
		n = put_load_exe(cb, n, cfg, 0, MEM_BASE + 0x80);
		n = hpu_test_hl_put_msg_long(cb, n, 0x1000, 10, 10);
		n = hpu_test_hl_put_msg_long(cb, n, 0x1000, 11, 11);
		assert_int_equal(walk(cb, n, &out, &len), 0);
		assert_non_null(out);
		/* 100: P10 not loaded yet; then P0, P10, P31; then P11 */
		assert_int_equal(msg_longs(out, len, v, NULL), 4);
		assert_int_equal(v[0], 0);
		assert_int_equal(v[1], 1);
		assert_int_equal(v[2], 3);
		assert_int_equal(v[3], 11);
		free(out);
	}
}

/* A packet with a false predicate is dropped whatever it is: a CB_LIST
 * is not read, a LOAD_AND_EXE loads nothing; a CB of only dropped
 * packets keeps one NOP */
static void test_pred_false_skips(void **state)
{
	uint8_t cb[128], *out;
	size_t n, len;
	uint32_t ctl;

	(void)state;
	n = put_cb_list(cb, 0, 0xdead0000, 0xdead0000, 5);
	n = put_load_exe(cb, n, HL_LOAD_EXE_CFG_LOAD, 7, 0xdead0000);
	fetches = 0;
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(fetches, 0);
	assert_int_equal(len, 8);
	memcpy(&ctl, out + 4, 4);
	assert_int_equal(ctl >> HL_PKT_CTL_OPCODE_SHIFT, HL_PACKET_NOP);
	free(out);
}

/*
 * Scalars: a MSG_LONG loaded into R0..R3 runs at the EXE (in one
 * packet, or a later one), a MSG_SHORT in the upper or lower two RFs;
 * the EXE packet's barriers are kept on a NOP before it
 */
static void test_scalars(void **state)
{
	uint8_t cb[128], *out;
	uint64_t a[2];
	uint32_t v[2], w0, ctl;
	size_t n, len;

	(void)state;
	memset(mem, 0, sizeof(mem));
	hpu_test_hl_put_msg_long(mem, 0, 0x2000, 0xabcd, 0);
	n = put_load_exe(cb, 0,
			 HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_LOAD |
				 HL_LOAD_EXE_CFG_EXE,
			 HL_PKT_CTL_MB, MEM_BASE);
	n = put_load_exe(cb, n, HL_LOAD_EXE_CFG_EXE, 0, 0);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(len, 8 + 16 + 16);
	memcpy(&ctl, out + 4, 4);
	assert_int_equal(ctl, hpu_test_hl_ctl(HL_PACKET_NOP, HL_PKT_CTL_MB));
	assert_int_equal(msg_longs(out, len, v, a), 2);
	assert_int_equal(v[0], 0xabcd);
	assert_int_equal(v[1], 0xabcd);
	assert_int_equal(a[0], 0x2000);
	free(out);

	/* MSG_SHORTs: lower two RFs at 0, upper two at 8 */
	hpu_test_hl_put_short(mem + 0x80, 0, 1, 4, 0x11);
	hpu_test_hl_put_short(mem + 0x80, 8, 1, 8, 0x22);
	n = put_load_exe(cb, 0,
			 HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_LOAD, 0,
			 MEM_BASE + 0x80);
	n = put_load_exe(cb, n, HL_LOAD_EXE_CFG_EXE, 0, 0);
	n = put_load_exe(
		cb, n, HL_LOAD_EXE_CFG_EXE | HL_LOAD_EXE_CFG_ETYPE_UPPER, 0, 0);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(len, 16);
	memcpy(&w0, out, 4);
	assert_int_equal(w0, 0x11);
	memcpy(&w0, out + 8, 4);
	assert_int_equal(w0, 0x22);
	free(out);
}

/* Refused: each malformed LOAD_AND_EXE; a source outside memory */
static void test_load_exe_refused(void **state)
{
	const uint32_t scal = HL_LOAD_EXE_CFG_DST_SCALARS |
			      HL_LOAD_EXE_CFG_LOAD;
	struct {
		uint32_t cfg;
		uint32_t bits;
		uint64_t src;
		int err;
	} bad[] = {
		{ HL_LOAD_EXE_CFG_LOAD | (1U << 2), 0, MEM_BASE, -EINVAL },
		{ HL_LOAD_EXE_CFG_LOAD, 1U << 12, MEM_BASE, -EINVAL },
		{ HL_LOAD_EXE_CFG_LOAD, 0, MEM_BASE + 4, -EINVAL },
		{ scal | HL_LOAD_EXE_CFG_PMAP_CONSEC, 0, MEM_BASE, -EINVAL },
		{ HL_LOAD_EXE_CFG_LOAD, 0, 0x80, -EFAULT },
		/* the scalars hold a CP_DMA, a CB_LIST, a LOAD_AND_EXE, a
		 * 16-byte packet in the upper RFs, no packet */
		{ scal | HL_LOAD_EXE_CFG_EXE, 0, MEM_BASE, -EINVAL },
		{ scal | HL_LOAD_EXE_CFG_EXE, 0, MEM_BASE + 0x80, -EINVAL },
		{ scal | HL_LOAD_EXE_CFG_EXE, 0, MEM_BASE + 0x100, -EINVAL },
		{ scal | HL_LOAD_EXE_CFG_EXE | HL_LOAD_EXE_CFG_ETYPE_UPPER, 0,
		  MEM_BASE + 0x180, -EINVAL },
		{ scal | HL_LOAD_EXE_CFG_EXE, 0, MEM_BASE + 0x200, -EINVAL },
	};
	uint8_t cb[32], *out;
	size_t n, len, i;

	(void)state;
	memset(mem, 0, sizeof(mem));
	put_cp_dma(mem, 0, MEM_BASE, 8, 0);
	put_cb_list(mem + 0x80, 0, MEM_BASE, MEM_BASE, 0);
	put_load_exe(mem + 0x100, 0, 0, 0, 0);
	hpu_test_hl_put_msg_long(mem + 0x180, 0, 0x1000, 1, 0);
	hpu_test_hl_put_msg_long(mem + 0x188, 0, 0x1000, 1, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = put_load_exe(cb, 0, bad[i].cfg, bad[i].bits, bad[i].src);
		out = (uint8_t *)1;
		assert_int_equal(walk(cb, n, &out, &len), bad[i].err);
		assert_null(out);
	}
}

/* Entry @i of a 16-byte table at @table: an upper-CP CP_DMA of @cb */
static void put_entry(uint64_t table, unsigned int i, uint64_t cb,
		      uint32_t size)
{
	put_cp_dma(mem + (table - MEM_BASE), 16 * i, cb, size,
		   HL_CP_DMA_CTL_UPPER_CP | HL_PKT_CTL_MB);
}

/*
 * The hl-thunk chain: each CB writes a value, the next index (a
 * MSG_LONG the walk itself passed, newer than memory's 7), and a
 * CB_LIST; the last writes its value only
 */
static void test_cb_list_chain(void **state)
{
	const uint64_t index = MEM_BASE, table = MEM_BASE + 0x1000;
	uint8_t cb[64], *out;
	uint32_t v[32], seven = 7, i;
	uint64_t at;
	size_t n, len;

	(void)state;
	memset(mem, 0, sizeof(mem));
	memcpy(mem, &seven, 4);
	for (i = 0; i < 10; i++) {
		at = MEM_BASE + 0x2000 + 0x100 * i;
		n = hpu_test_hl_put_msg_long(mem + (at - MEM_BASE), 0, 0x8000,
					     0xc0de0000 + i, 0);
		if (i < 9) {
			n = hpu_test_hl_put_msg_long(mem + (at - MEM_BASE), n,
						     index, i + 1,
						     HL_PKT_CTL_MB);
			n = put_cb_list(mem + (at - MEM_BASE), n, index, table,
					HL_PKT_CTL_MB);
		}
		put_entry(table, i, at, (uint32_t)n);
	}
	n = hpu_test_hl_put_msg_long(cb, 0, index, 0, 0);
	n = put_cb_list(cb, n, index, table, HL_PKT_CTL_MB);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	/* the index writes, 0..8, and the values 0..9 in turn */
	assert_int_equal(msg_longs(out, len, v, NULL), 20);
	assert_int_equal(v[0], 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(v[1 + 2 * i], 0xc0de0000 + i);
	for (i = 0; i < 9; i++)
		assert_int_equal(v[2 + 2 * i], i + 1);
	free(out);

	/* without the first MSG_LONG the index is memory's: entry 7 on */
	n = put_cb_list(cb, 0, index, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(msg_longs(out, len, v, NULL), 5);
	assert_int_equal(v[0], 0xc0de0007);
	assert_int_equal(v[4], 0xc0de0009);
	free(out);
}

/*
 * CB_LIST: 32-byte entries; an entry that is a packet (a lower CP_DMA
 * stays for the lower CP's expansion, a MSG_LONG runs as it is)
 */
static void test_cb_list_entries(void **state)
{
	const uint64_t index = MEM_BASE, table = MEM_BASE + 0x1000;
	uint8_t cb[64], *out;
	uint32_t two = 2, ctl, v[2];
	size_t n, len;

	(void)state;
	memset(mem, 0, sizeof(mem));
	memcpy(mem, &two, 4);
	/* 32-byte entry 2: a lower CP_DMA */
	put_cp_dma(mem + 0x1000, 64, 0x5000, 8, 0);
	n = put_cb_list(cb, 0, index, table, HL_CB_LIST_CTL_SIZE_DESC);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(len, 16);
	memcpy(&ctl, out + 4, 4);
	assert_int_equal(ctl, hpu_test_hl_ctl(HL_PACKET_CP_DMA, 0));
	free(out);
	/* 16-byte entry 2: a MSG_LONG with a true predicate */
	hpu_test_hl_put_msg_long(mem + 0x1000, 32, 0x9000, 0x77, 0);
	n = put_cb_list(cb, 0, index, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(msg_longs(out, len, v, NULL), 1);
	assert_int_equal(v[0], 0x77);
	free(out);
}

/*
 * CB_LIST refused: a reserved word or bit, a misaligned index, an
 * index or table outside memory, a table address that wraps, an entry
 * that is a CB_LIST, a LOAD_AND_EXE or no packet; a CB that lists
 * itself for ever stops at HFD_HL_CB_LIST_MAX; a chain deeper than
 * HFD_HL_CB_DEPTH; fetches beyond the budget
 */
static void test_cb_list_refused(void **state)
{
	const uint64_t index = MEM_BASE, table = MEM_BASE + 0x1000;
	uint32_t budget, one = 1, huge = 0xffffffffU, v[HFD_HL_CB_DEPTH];
	struct hfd_hl_cp cp = { .pred = 1 };
	uint8_t cb[64], *out, *big;
	size_t n, len, cbn, k, last = 0;
	unsigned int i;

	(void)state;
	memset(mem, 0, sizeof(mem));
	put_entry(table, 0, MEM_BASE + 0x2000, 8);
	put_nop(mem, 0x2000, 0);
	n = put_cb_list(cb, 0, index, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), 0);
	free(out);
	cb[0] = 1; /* the reserved word */
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	put_cb_list(cb, 0, index, table, 1U << 6);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	put_cb_list(cb, 0, index + 2, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	put_cb_list(cb, 0, 0x40, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EFAULT);
	put_cb_list(cb, 0, index, 0x40, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EFAULT);
	memcpy(mem, &huge, 4);
	put_cb_list(cb, 0, index, UINT64_MAX - 64, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	/* entries that may not be listed */
	memcpy(mem, &one, 4);
	put_cb_list(mem + 0x1000, 16, index, table, 0); /* 24 > 16 bytes */
	put_cb_list(cb, 0, index, table, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	put_load_exe(mem + 0x1000, 16, 0, 0, 0);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);
	memset(mem + 0x1010, 0, 16);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);

	/* entry 0 runs the CB at 0x2000, which lists entry 0 again: the
	 * nesting bound ends it */
	memset(mem, 0, 4);
	cbn = put_cb_list(mem, 0x2000, index, table, 0) - 0x2000;
	put_entry(table, 0, MEM_BASE + 0x2000, (uint32_t)cbn);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);

	/* HFD_HL_CB_LIST_MAX CB_LISTs of a NOP entry run; one more not */
	put_nop(mem, 0x1000, 0);
	big = malloc(24 * (HFD_HL_CB_LIST_MAX + 1));
	assert_non_null(big);
	for (i = 0, k = 0; i < HFD_HL_CB_LIST_MAX; i++)
		k = put_cb_list(big, k, index, table, 0);
	assert_int_equal(walk(big, k, &out, &len), 0);
	assert_int_equal(len, 8 * HFD_HL_CB_LIST_MAX);
	free(out);
	k = put_cb_list(big, k, index, table, 0);
	assert_int_equal(walk(big, k, &out, &len), -EINVAL);
	free(big);

	/* a chain of HFD_HL_CB_DEPTH CBs, CB i listing CB i + 1: the last
	 * lists nothing and it runs; the last listing one more (which
	 * lists nothing), not */
	memset(mem, 0, 4);
	for (i = 0; i <= HFD_HL_CB_DEPTH; i++) {
		uint64_t at = MEM_BASE + 0x4000 + 0x40 * i;

		k = hpu_test_hl_put_msg_long(mem + (at - MEM_BASE), 0, index,
					     i + 1, 0);
		if (i < HFD_HL_CB_DEPTH - 1)
			k = put_cb_list(mem + (at - MEM_BASE), k, index, table,
					0);
		put_entry(table, i, at, (uint32_t)k);
		if (i == HFD_HL_CB_DEPTH - 1)
			last = k;
	}
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(msg_longs(out, len, v, NULL), HFD_HL_CB_DEPTH);
	free(out);
	put_cb_list(mem, 0x4000 + 0x40 * (HFD_HL_CB_DEPTH - 1) + last, index,
		    table, 0);
	put_entry(table, HFD_HL_CB_DEPTH - 1,
		  MEM_BASE + 0x4000 + 0x40 * (HFD_HL_CB_DEPTH - 1),
		  (uint32_t)last + 24);
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL);

	/* the budget: the first fetch already beyond it */
	budget = 2;
	assert_int_equal(hfd_hl_qman_walk(cb, n, &cp, fake_fetch, NULL, &budget,
					  &out, &len),
			 -EINVAL);
	assert_int_equal(budget, 2);
}

/*
 * The CP keeps its predicates and scalars from one walk to the next;
 * hfd_hl_cps_init() leaves only P0 and zero scalars
 */
static void test_cp_kept(void **state)
{
	struct hfd_hl_cp cp = { .pred = 1 };
	struct hfd_hl_cps *c;
	uint32_t budget = HFD_HL_CP_DMA_MAX, v[2], word = 1;
	uint8_t cb[64], *out;
	size_t n, len, i;

	(void)state;
	memset(mem, 0, sizeof(mem));
	memcpy(mem + 4 * 4, &word, 4); /* P4 */
	hpu_test_hl_put_msg_long(mem, 0x80, 0x3000, 0x4444, 0);
	n = put_load_exe(cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, MEM_BASE);
	n = put_load_exe(cb, n,
			 HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_LOAD, 0,
			 MEM_BASE + 0x80);
	assert_int_equal(hfd_hl_qman_walk(cb, n, &cp, fake_fetch, NULL, &budget,
					  &out, &len),
			 0);
	free(out);
	assert_int_equal(cp.pred, 1U | 1U << 4);
	/* the next CB: under P4, and the scalars executed */
	n = hpu_test_hl_put_msg_long(cb, 0, 0x3000, 0x44, 4);
	n = put_load_exe(cb, n, HL_LOAD_EXE_CFG_EXE, 0, 0);
	assert_int_equal(hfd_hl_qman_walk(cb, n, &cp, fake_fetch, NULL, &budget,
					  &out, &len),
			 0);
	assert_int_equal(msg_longs(out, len, v, NULL), 2);
	assert_int_equal(v[0], 0x44);
	assert_int_equal(v[1], 0x4444);
	free(out);
	/* a fresh CP runs neither */
	assert_int_equal(walk(cb, n, &out, &len), -EINVAL); /* R0 is 0 */
	c = malloc(sizeof(*c));
	assert_non_null(c);
	memset(c, 0xff, sizeof(*c));
	hfd_hl_cps_init(c, 3);
	assert_int_equal(c->resets, 3);
	for (i = 0; i < HL_GAUDI2_QUEUE_ID_SIZE; i++) {
		assert_int_equal(c->cp[i].pred, 1);
		assert_int_equal(c->cp[i].rf[0] | c->cp[i].rf[15], 0);
	}
	free(c);
}

/* The lower CP: predicates and LOAD_AND_EXE as the upper; no CB_LIST */
static void test_lower_walk(void **state)
{
	struct hfd_hl_cp cp = { .pred = 1 };
	uint32_t budget = HFD_HL_CP_DMA_MAX, v[2], word = 1;
	uint8_t cb[64], *out;
	size_t n, len;

	(void)state;
	memset(mem, 0, sizeof(mem));
	memcpy(mem + 4 * 9, &word, 4); /* P9 */
	n = put_load_exe(cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, MEM_BASE);
	n = hpu_test_hl_put_msg_long(cb, n, 0x3000, 9, 9);
	n = hpu_test_hl_put_msg_long(cb, n, 0x3000, 8, 8);
	assert_int_equal(hfd_hl_qman_walk_lower(cb, n, &cp, fake_fetch, NULL,
						&budget, &out, &len),
			 0);
	assert_int_equal(msg_longs(out, len, v, NULL), 1);
	assert_int_equal(v[0], 9);
	assert_int_equal(cp.pred, 1U | 1U << 9);
	free(out);
	n = put_cb_list(cb, 0, MEM_BASE, MEM_BASE + 0x1000, 0);
	out = (uint8_t *)1;
	assert_int_equal(hfd_hl_qman_walk_lower(cb, n, &cp, fake_fetch, NULL,
						&budget, &out, &len),
			 -EINVAL);
	assert_null(out);
}

/*
 * The lower CBs of an expanded CB walked in place: the CB rebuilt, each
 * lower CB's place moved; ranges out of order or outside: -EINVAL
 */
static void test_lower_cbs_rebuilt(void **state)
{
	struct hfd_hl_lower_cb r[2] = { { 8, 32 }, { 48, 8 } };
	struct hfd_hl_lower_cbs lower = { .r = r, .n = 2, .room = 2 };
	struct hfd_hl_cp cp = { .pred = 1 };
	uint32_t budget = HFD_HL_CP_DMA_MAX, v[2];
	uint8_t cb[64], *out;
	size_t n, len;

	(void)state;
	n = put_nop(cb, 0, 0);
	/* lower CB 1: a MSG_LONG under P3 (dropped), one under P0 */
	n = hpu_test_hl_put_msg_long(cb, n, 0x3000, 3, 3);
	n = hpu_test_hl_put_msg_long(cb, n, 0x3000, 0, 0);
	n = put_nop(cb, n, 0);
	n = put_nop(cb, n, 0); /* lower CB 2 */
	n = put_nop(cb, n, 0);
	assert_int_equal(n, 64);
	assert_true(hfd_hl_qman_lower_needed(cb, n, &lower));
	assert_int_equal(hfd_hl_qman_walk_lower_cbs(cb, n, &lower, &cp,
						    fake_fetch, NULL, &budget,
						    &out, &len),
			 0);
	assert_int_equal(len, 64 - 16);
	assert_int_equal(r[0].off, 8);
	assert_int_equal(r[0].len, 16);
	assert_int_equal(r[1].off, 32);
	assert_int_equal(r[1].len, 8);
	assert_int_equal(msg_longs(out, len, v, NULL), 1);
	assert_int_equal(v[0], 0);
	assert_memory_equal(out + 32, cb + 48, 16);
	free(out);
	/* overlapping, then past the end */
	r[0] = (struct hfd_hl_lower_cb){ 8, 32 };
	r[1] = (struct hfd_hl_lower_cb){ 32, 8 };
	assert_int_equal(hfd_hl_qman_walk_lower_cbs(cb, n, &lower, &cp,
						    fake_fetch, NULL, &budget,
						    &out, &len),
			 -EINVAL);
	r[1] = (struct hfd_hl_lower_cb){ 48, 24 };
	assert_true(hfd_hl_qman_lower_needed(cb, n, &lower));
	assert_int_equal(hfd_hl_qman_walk_lower_cbs(cb, n, &lower, &cp,
						    fake_fetch, NULL, &budget,
						    &out, &len),
			 -EINVAL);
	/* no predicate, LOAD_AND_EXE or CB_LIST: nothing to walk */
	r[0] = (struct hfd_hl_lower_cb){ 0, 8 };
	r[1] = (struct hfd_hl_lower_cb){ 40, 8 };
	assert_false(hfd_hl_qman_lower_needed(cb, n, &lower));
}

/* After a STOP nothing is walked: the rest reaches the translation */
static void test_stop(void **state)
{
	uint8_t cb[64], *out;
	size_t n, len;

	(void)state;
	n = hpu_test_hl_put_msg_long(cb, 0, 0x1000, 1, 3);
	n = hpu_test_hl_put2(cb, n, 0, hpu_test_hl_ctl(HL_PACKET_STOP, 0));
	n = put_load_exe(cb, n, HL_LOAD_EXE_CFG_LOAD, 0, 0xdead0000);
	fetches = 0;
	assert_int_equal(walk(cb, n, &out, &len), 0);
	assert_int_equal(fetches, 0);
	/* the MSG_LONG (P3 false) dropped, STOP and the rest as they were */
	assert_int_equal(len, 8 + 16);
	assert_memory_equal(out, cb + 16, 24);
	free(out);
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, 0);
}

/* Run @size bytes of the host CB on PDMA_0 stream @stream; the WAIT_CS */
static int run_cb_on(struct hpu_test_hfd_hl *f, uint32_t stream, size_t size,
		     uint32_t *status)
{
	struct hl_cs_chunk c = {
		.cb_handle = f->cb_va,
		.queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0 + stream,
		.cb_size = (uint32_t)size,
		.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB
	};
	union hl_cs_args a = { 0 };
	struct hl_wait_cs_out o;
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), 0);
	ret = hpu_test_hfd_hl_wait_cs(f->ctx, a.out.seq, &o);
	*status = o.status;
	return ret;
}

static int run_cb(struct hpu_test_hfd_hl *f, size_t size, uint32_t *status)
{
	return run_cb_on(f, 0, size, status);
}

/*
 * Through a CS: predicates loaded from host memory choose which
 * MSG_LONGs write, a MSG_LONG executed from the scalars writes, and a
 * CB_LIST chain in host memory runs each CB once, its index written by
 * the CBs on the device as well
 */
static void test_cs_runs(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint8_t *cbs = f->cb + 4096;
	uint64_t cbs_va = f->cb_va + 4096, idx = f->dst_va + 0x1000;
	uint32_t st, got[10], one = 1, seven = 7, i;
	size_t n, k;

	memset(f->src, 0, BUF_SIZE);
	memset(f->dst, 0, BUF_SIZE);
	memcpy(f->src + 4 * 5, &one, 4); /* P5 */
	hpu_test_hl_put_msg_long(f->src, 0x80, f->dst_va + 8, 0x5ca1a, 0);
	n = put_load_exe(f->cb, 0, HL_LOAD_EXE_CFG_LOAD, HL_PKT_CTL_MB,
			 f->src_va);
	n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va, 0x55, 5);
	n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va + 4, 0x66, 6);
	n = put_load_exe(f->cb, n,
			 HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_LOAD |
				 HL_LOAD_EXE_CFG_EXE,
			 0, f->src_va + 0x80);
	assert_int_equal(run_cb(f, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(got, f->dst, 12);
	assert_int_equal(got[0], 0x55);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 0x5ca1a);

	/* the chain: table in f->src + 0x1000, CBs after the host CB */
	memcpy(f->dst + 0x1000, &seven, 4);
	for (i = 0; i < 10; i++) {
		k = hpu_test_hl_put_msg_long(cbs, 0x100 * i, f->dst_va + 4 * i,
					     0xc0de0000 + i, 0);
		if (i < 9) {
			k = hpu_test_hl_put_msg_long(cbs, k, idx, i + 1,
						     HL_PKT_CTL_MB);
			k = put_cb_list(cbs, k, idx, f->src_va + 0x1000,
					HL_PKT_CTL_MB);
		}
		put_cp_dma(f->src + 0x1000, 16 * i, cbs_va + 0x100 * i,
			   (uint32_t)(k - 0x100 * i), HL_CP_DMA_CTL_UPPER_CP);
	}
	n = hpu_test_hl_put_msg_long(f->cb, 0, idx, 0, 0);
	n = put_cb_list(f->cb, n, idx, f->src_va + 0x1000, HL_PKT_CTL_MB);
	assert_int_equal(run_cb(f, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(got, f->dst, sizeof(got));
	for (i = 0; i < 10; i++)
		assert_int_equal(got[i], 0xc0de0000 + i);
	memcpy(got, f->dst + 0x1000, 4);
	assert_int_equal(got[0], 9);
}

/*
 * Through a CS: a malformed LOAD_AND_EXE, a CB_LIST whose index is not
 * memory of the context, a scalar EXE of a CB_LIST: the CS ends
 * ABORTED (EIO) and the MSG_LONG before the bad packet did not run
 */
static void test_cs_refused(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint32_t st, got;
	size_t n, i;

	memset(f->src, 0, BUF_SIZE);
	put_cb_list(f->src, 0, f->dst_va, f->src_va, 0);
	for (i = 0; i < 3; i++) {
		memset(f->dst, 0, 4);
		n = hpu_test_hl_put_msg_long(f->cb, 0, f->dst_va, 0xbad, 0);
		if (i == 0)
			n = put_load_exe(f->cb, n, HL_LOAD_EXE_CFG_LOAD, 0,
					 f->src_va + 4);
		else if (i == 1)
			n = put_cb_list(f->cb, n, 0x1c0000000000ULL, f->src_va,
					0);
		else
			n = put_load_exe(f->cb, n,
					 HL_LOAD_EXE_CFG_DST_SCALARS |
						 HL_LOAD_EXE_CFG_LOAD |
						 HL_LOAD_EXE_CFG_EXE,
					 0, f->src_va);
		assert_int_equal(run_cb(f, n, &st), -EIO);
		assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
		memcpy(&got, f->dst, 4);
		assert_int_equal(got, 0);
	}
}

/*
 * Through CSs: the predicates a CS loads on a stream hold for its later
 * CSs there, not on a sibling stream; an ABORTED CS's loads are not kept
 */
static void test_cs_cp_kept(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint32_t st, got[2], one = 1;
	size_t n, i;

	memset(f->src, 0, 256);
	memcpy(f->src + 4 * 7, &one, 4);       /* P7 only */
	memcpy(f->src + 128 + 4 * 8, &one, 4); /* P8 only */
	n = put_load_exe(f->cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, f->src_va);
	assert_int_equal(run_cb_on(f, 0, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	/* a CS that loads P8 and then holds a bad packet: ABORTED */
	n = put_load_exe(f->cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, f->src_va + 128);
	n = hpu_test_hl_put2(f->cb, n, 0, hpu_test_hl_ctl(HL_PACKET_WAIT, 0));
	assert_int_equal(run_cb_on(f, 0, n, &st), -EIO);
	assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
	/* P7 still holds on stream 0 (P8 was not kept); stream 1 has only
	 * P0 */
	for (i = 0; i < 2; i++) {
		memset(f->dst, 0, 8);
		n = hpu_test_hl_put_msg_long(f->cb, 0, f->dst_va, 0x77, 7);
		n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va + 4, 0x88, 8);
		assert_int_equal(run_cb_on(f, (uint32_t)i, n, &st), 0);
		assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
		memcpy(got, f->dst, sizeof(got));
		assert_int_equal(got[0], i ? 0 : 0x77);
		assert_int_equal(got[1], 0);
	}
}

/*
 * Through CSs: a lower CB (CP_DMA) has the QMAN's lower CP's predicates,
 * not the stream's: each loads its own and the MSG_LONGs under them run
 * on their own CP only; the lower CP's are the QMAN's (a sibling
 * stream's lower CB sees them) and kept to the next CS
 */
static void test_cs_lower_cp(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t lower_va = f->cb_va + 8192;
	uint8_t *lower = f->cb + 8192;
	uint32_t st, got[6], one = 1;
	size_t n, l;

	memset(f->src, 0, 256);
	memset(f->dst, 0, sizeof(got));
	memcpy(f->src + 4 * 5, &one, 4);       /* P5: the stream's */
	memcpy(f->src + 128 + 4 * 6, &one, 4); /* P6: the lower CP's */
	l = hpu_test_hl_put_msg_long(lower, 0, f->dst_va, 0x15, 5);
	l = put_load_exe(lower, l, HL_LOAD_EXE_CFG_LOAD, 0, f->src_va + 128);
	l = hpu_test_hl_put_msg_long(lower, l, f->dst_va + 4, 0x16, 6);
	n = put_load_exe(f->cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, f->src_va);
	n = put_cp_dma(f->cb, n, lower_va, (uint32_t)l, HL_PKT_CTL_MB);
	n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va + 8, 0x25, 5);
	n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va + 12, 0x26, 6);
	assert_int_equal(run_cb_on(f, 0, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(got, f->dst, 16);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 0x16);
	assert_int_equal(got[2], 0x25);
	assert_int_equal(got[3], 0);
	/* stream 1 of the same QMAN: a lower CB under P6 runs, one under
	 * P5 does not */
	l = hpu_test_hl_put_msg_long(lower, 0, f->dst_va + 16, 0x36, 6);
	l = hpu_test_hl_put_msg_long(lower, l, f->dst_va + 20, 0x35, 5);
	n = put_cp_dma(f->cb, 0, lower_va, (uint32_t)l, 0);
	assert_int_equal(run_cb_on(f, 1, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(got, f->dst, sizeof(got));
	assert_int_equal(got[4], 0x36);
	assert_int_equal(got[5], 0);
}

/* A compute reset clears the CPs: a predicate loaded before it no
 * longer holds */
static void test_cs_reset_clears(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint32_t st, got, one = 1;
	size_t n, i;

	memset(f->src, 0, 128);
	memcpy(f->src + 4 * 7, &one, 4); /* P7 */
	n = put_load_exe(f->cb, 0, HL_LOAD_EXE_CFG_LOAD, 0, f->src_va);
	assert_int_equal(run_cb_on(f, 0, n, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < 2; i++) {
		if (i)
			assert_int_equal(hfd_device_reset(&f->drv.devs[0],
							  HPU_RESET_COMPUTE,
							  NULL, false, "test"),
					 0);
		memset(f->dst, 0, 4);
		n = hpu_test_hl_put_msg_long(f->cb, 0, f->dst_va, 0x77, 7);
		assert_int_equal(run_cb_on(f, 0, n, &st), 0);
		assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
		memcpy(&got, f->dst, 4);
		assert_int_equal(got, i ? 0 : 0x77);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_no_walk),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_pred_false_skips),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_load_exe_refused),
		cmocka_unit_test(test_cb_list_chain),
		cmocka_unit_test(test_cb_list_entries),
		cmocka_unit_test(test_cb_list_refused),
		cmocka_unit_test(test_cp_kept),
		cmocka_unit_test(test_lower_walk),
		cmocka_unit_test(test_lower_cbs_rebuilt),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_cs_runs),
		cmocka_unit_test(test_cs_refused),
		cmocka_unit_test(test_cs_cp_kept),
		cmocka_unit_test(test_cs_lower_cp),
		cmocka_unit_test(test_cs_reset_clears),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
