// SPDX-License-Identifier: MIT
/*
 * test_hl_restore.c - CBs that the same CS's restore chunks write
 * (docs/habanalabs.md, "CBs the restore chunks write"): through the
 * dispatcher fixture, a CS whose restore chunk copies an execute chunk's
 * user CB and a CP_DMA's lower CB into SRAM runs them (the restore
 * chunks run as a CS of their own before the execute chunks are
 * fetched), against the same CS without the restore phase.
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

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 37 + seed + (i >> 8));
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
 * nothing moved; with it, the restore CS copies the CBs before the
 * execute chunk is fetched, so they run, and SRAM holds them afterwards
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
		cmocka_unit_test(test_restore_writes_cbs),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
