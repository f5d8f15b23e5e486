// SPDX-License-Identifier: MIT
/*
 * test_hl_restore.c - CBs that the same CS's restore chunks write
 * (docs/habanalabs.md, "CBs the restore chunks write"): the overlay of
 * the restore packets' writes on a fetched CB (hfd_hl_restore_overlay(),
 * pure), and through the dispatcher fixture a CS whose restore chunk
 * copies an execute chunk's user CB and a CP_DMA's lower CB into SRAM
 * and runs them, against the same CS without the restore phase.
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

/* A fake memory of 4 KiB at MEM_VA for the pure tests */
#define MEM_VA	 0x100000ULL
#define MEM_SIZE 4096

struct fake_mem {
	uint8_t bytes[MEM_SIZE];
	unsigned int fetches;
	int fail;
};

static int fake_fetch(void *arg, uint64_t va, uint32_t len, void *buf)
{
	struct fake_mem *m = arg;

	m->fetches++;
	if (m->fail)
		return m->fail;
	if (va < MEM_VA || va - MEM_VA > MEM_SIZE ||
	    len > MEM_SIZE - (va - MEM_VA))
		return -EFAULT;
	memcpy(buf, m->bytes + (va - MEM_VA), len);
	return 0;
}

static size_t put_copy(uint8_t *out, size_t off, uint64_t src, uint64_t dst,
		       uint64_t size, uint16_t flags)
{
	struct hpu_pkt_lin_dma d = {
		.hdr = { .opcode = HPU_PACKET_LIN_DMA,
			 .size = sizeof(d),
			 .flags = flags },
		.src_addr = src,
		.dst_addr = dst,
		.size = size,
	};

	memcpy(out + off, &d, sizeof(d));
	return off + sizeof(d);
}

static size_t put_memset(uint8_t *out, size_t off, uint64_t dst, uint64_t size,
			 uint64_t value, uint16_t elem)
{
	struct hpu_pkt_memset m = {
		.hdr = { .opcode = HPU_PACKET_MEMSET,
			 .size = sizeof(m),
			 .flags = elem },
		.dst_addr = dst,
		.size = size,
		.value = value,
	};

	memcpy(out + off, &m, sizeof(m));
	return off + sizeof(m);
}

static size_t put_fence(uint8_t *out, size_t off)
{
	struct hpu_pkt_fence f = { .hdr = { .opcode = HPU_PACKET_FENCE,
					    .size = sizeof(f) },
				   .sob_id = 3,
				   .target = 1 };

	memcpy(out + off, &f, sizeof(f));
	return off + sizeof(f);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 37 + seed + (i >> 8));
}

/*
 * The CB at CB_VA (64 bytes) gets: the bytes a copy writes into its
 * first part (the copy starts before the CB), a memset's pattern in its
 * middle (the element phase counted from the memset's start), then a
 * later copy over part of the memset (submission order: the later one
 * wins); packets that write elsewhere, and a fence, change nothing
 */
static void test_overlay_layers(void **state)
{
	static struct fake_mem m;
	const uint64_t cb_va = 0x900000ULL;
	uint64_t work = HFD_HL_RESTORE_WORK_MAX;
	uint8_t pkts[512], buf[64], want[64];
	size_t n = 0, i;

	(void)state;
	fill(m.bytes, MEM_SIZE, 9);
	memset(buf, 0xcc, sizeof(buf));
	memcpy(want, buf, sizeof(want));
	/* elsewhere: before, after, and a copy out of the CB */
	n = put_copy(pkts, n, MEM_VA, cb_va - 100, 100, 0);
	n = put_memset(pkts, n, cb_va + 64, 64, 0x11, HPU_MEMSET_F_ELEM_1);
	n = put_copy(pkts, n, cb_va, MEM_VA + 2048, 64, 0);
	n = put_fence(pkts, n);
	/* [cb - 8, cb + 16) from MEM_VA + 100 */
	n = put_copy(pkts, n, MEM_VA + 100, cb_va - 8, 24, 0);
	memcpy(want, m.bytes + 108, 16);
	/* [cb + 20, cb + 52): a 4-byte pattern starting at cb + 18 */
	n = put_memset(pkts, n, cb_va + 18, 34, 0xa1b2c3d4ULL,
		       HPU_MEMSET_F_ELEM_2);
	for (i = 18; i < 52; i++)
		want[i] = (uint8_t)(0xc3d4U >> (8 * ((i - 18) % 2)));
	/* [cb + 40, cb + 48) copied over the memset */
	n = put_copy(pkts, n, MEM_VA + 3000, cb_va + 40, 8, 0);
	memcpy(want + 40, m.bytes + 3000, 8);
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, sizeof(buf),
						buf, fake_fetch, &m, &work),
			 0);
	assert_memory_equal(buf, want, sizeof(buf));
	/* only the two copies into the CB read memory; the work: 7 packets
	 * looked at, 16 + 8 bytes fetched */
	assert_int_equal(m.fetches, 2);
	assert_true(work == HFD_HL_RESTORE_WORK_MAX - 7 - 24);
}

/*
 * Refusals: a swapping copy into the CB (not forwarded), a source that
 * cannot be read (the fetch's error), a stream that is not packets, a
 * CB range that wraps, the CS's overlay work used up; a swapping copy
 * elsewhere is fine
 */
static void test_overlay_refusals(void **state)
{
	static struct fake_mem m;
	const uint64_t cb_va = 0x900000ULL;
	uint64_t work = HFD_HL_RESTORE_WORK_MAX;
	uint8_t pkts[256], buf[32];
	struct hpu_pkt_hdr h = { .opcode = HPU_PACKET_NOP, .size = 4 };
	size_t n;

	(void)state;
	n = put_copy(pkts, 0, MEM_VA, cb_va + 4096, 32, HPU_LIN_DMA_F_SWAP_32);
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 0);
	n = put_copy(pkts, 0, MEM_VA, cb_va + 16, 32, HPU_LIN_DMA_F_SWAP_32);
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -EINVAL);
	n = put_copy(pkts, 0, MEM_VA, cb_va, 32, 0);
	m.fail = -EFAULT;
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -EFAULT);
	m.fail = 0;
	/* a header that claims less than itself, a packet cut short */
	memcpy(pkts, &h, sizeof(h));
	assert_int_equal(hfd_hl_restore_overlay(pkts, sizeof(h), cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -EINVAL);
	n = put_copy(pkts, 0, MEM_VA, cb_va, 32, 0);
	assert_int_equal(hfd_hl_restore_overlay(pkts, n - 1, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -EINVAL);
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, UINT64_MAX - 8, 32,
						buf, fake_fetch, &m, &work),
			 -EINVAL);
	/* the CS's work runs out: a packet, then a byte, too many */
	m.fetches = 0;
	work = 0;
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -E2BIG);
	work = 1 + 31;
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 -E2BIG);
	assert_int_equal(m.fetches, 0);
	work = 1 + 32;
	assert_int_equal(hfd_hl_restore_overlay(pkts, n, cb_va, 32, buf,
						fake_fetch, &m, &work),
			 0);
	assert_true(work == 0);
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 2 << 20);
}

static size_t put_cp_dma(void *cb, size_t off, uint64_t src, uint32_t size)
{
	struct hl_pkt_cp_dma p = { .tsize = size,
				   .ctl = (HL_PACKET_CP_DMA
					   << HL_PKT_CTL_OPCODE_SHIFT) |
					  HL_PKT_CTL_EB | HL_PKT_CTL_MB,
				   .src_addr = src };

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

/* Submit a CS of one restore and one execute user CB on PDMA_0 stream 0 */
static int submit(struct hpu_test_hfd_hl *f, uint64_t restore_va,
		  uint32_t restore_size, uint64_t exec_va, uint32_t exec_size,
		  uint32_t flags, uint64_t *seq)
{
	struct hl_cs_chunk r = { .cb_handle = restore_va,
				 .queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
				 .cb_size = restore_size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	struct hl_cs_chunk e = r;
	union hl_cs_args a = { 0 };
	int ret;

	e.cb_handle = exec_va;
	e.cb_size = exec_size;
	a.in.chunks_restore = (uintptr_t)&r;
	a.in.num_chunks_restore = 1;
	a.in.chunks_execute = (uintptr_t)&e;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = flags;
	ret = hpu_test_hfd_hl_ioctl(f->ctx, HL_IOCTL_CS, &a, sizeof(a), 0);
	*seq = a.out.seq;
	return ret;
}

static uint32_t wait_status(struct hpu_test_hfd_hl *f, uint64_t seq)
{
	struct hl_wait_cs_out o;

	hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o);
	return o.status;
}

/*
 * The restore chunk copies an upper CB into SRAM + 0x2000 and its lower
 * CB into SRAM + 0x3000 (both written into host memory first); the
 * execute chunk runs the upper CB from SRAM: its CP_DMA runs the lower
 * CB, which moves src to dst. Without FORCE_RESTORE (not the first CS)
 * the restore chunk does not run: the SRAM holds what the last CS left,
 * zeros at first (opcode 0: a bad packet), so the CS ends ABORTED with
 * nothing moved; with it, the CBs run and SRAM holds them afterwards
 */
static void test_restore_writes_cbs(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const struct hfd_device *dev = &f->drv.devs[0];
	uint64_t sram = dev->ip.sram_base_address, seq;
	uint8_t *upper = f->cb + 4096, *lower = f->cb + 8192;
	size_t nu, nl, nr;

	/* a first CS, so that the next ones run restore chunks only with
	 * FORCE_RESTORE */
	nr = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 4, 0);
	assert_int_equal(submit(f, f->cb_va, (uint32_t)nr, f->cb_va,
				(uint32_t)nr, 0, &seq),
			 0);
	assert_int_equal(wait_status(f, seq), HL_WAIT_CS_STATUS_COMPLETED);

	fill(f->src, BUF_SIZE, 21);
	memset(f->dst, 0, BUF_SIZE);
	nl = hpu_test_hl_put_dma(lower, 0, f->src_va, f->dst_va, 3000, 0);
	nu = put_cp_dma(upper, 0, sram + 0x3000, (uint32_t)nl);
	nr = hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 4096, sram + 0x2000,
				 (uint32_t)nu, 0);
	nr = hpu_test_hl_put_dma(f->cb, nr, f->cb_va + 8192, sram + 0x3000,
				 (uint32_t)nl, 0);

	assert_int_equal(submit(f, f->cb_va, (uint32_t)nr, sram + 0x2000,
				(uint32_t)nu, 0, &seq),
			 0);
	assert_int_equal(wait_status(f, seq), HL_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(f->dst[0], 0);

	assert_int_equal(submit(f, f->cb_va, (uint32_t)nr, sram + 0x2000,
				(uint32_t)nu, HL_CS_FLAGS_FORCE_RESTORE, &seq),
			 0);
	assert_int_equal(wait_status(f, seq), HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 3000);
	assert_int_equal(f->dst[3000], 0);

	/* the SRAM holds the CBs now: a CS without restore runs them, and
	 * a host CB changed since is not what runs */
	memset(upper, 0, nu);
	memset(f->dst, 0, BUF_SIZE);
	assert_int_equal(submit(f, f->cb_va, (uint32_t)nr, sram + 0x2000,
				(uint32_t)nu, 0, &seq),
			 0);
	assert_int_equal(wait_status(f, seq), HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlay_layers),
		cmocka_unit_test(test_overlay_refusals),
		cmocka_unit_test(test_restore_writes_cbs),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
