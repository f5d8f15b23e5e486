// SPDX-License-Identifier: MIT
/*
 * test_hl_cs_mem.c - the memory side of the habanalabs personality's CS
 * without FUSE (docs/habanalabs.md, "CS", "Packets", "MEMORY"): user CBs
 * kept in device memory (DRAM, the SRAM window) run as host ones, and one
 * outside the context's device memory ends ABORTED with nothing run;
 * LIN_DMA's endian swap against a host reference, both directions and
 * partial last elements; FORCE_HINT onto the page right after another
 * mapping (the guard page) honoured, hints onto used pages refused;
 * CP_DMA's lower CBs in host memory, DRAM and SRAM, and its refusals; a
 * timestamped CS's time answered long after it left the history.
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
#include "hpu_packets.h"

#define BUF_SIZE 16384

/* One request; the answer (also one copied back with an error) in @arg */
static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, 0);
}

/* MEMORY MAP of host memory; @hint with @flags; the answer or -errno */
static int map_host_at(struct hfd_ctx *ctx, void *p, uint64_t size,
		       uint64_t hint, uint32_t flags, uint64_t *va)
{
	union hl_mem_args a = { 0 };
	int ret;

	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR | flags;
	a.in.map_host.host_virt_addr = (uintptr_t)p;
	a.in.map_host.mem_size = size;
	a.in.map_host.hint_addr = hint;
	ret = run(ctx, HL_IOCTL_MEMORY, &a, sizeof(a));
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

static uint64_t map_host(struct hfd_ctx *ctx, void *p, uint64_t size)
{
	uint64_t va = 0;

	assert_int_equal(map_host_at(ctx, p, size, 0, 0, &va), 0);
	return va;
}

static int unmap(struct hfd_ctx *ctx, uint64_t va)
{
	union hl_mem_args a = { 0 };

	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	return run(ctx, HL_IOCTL_MEMORY, &a, sizeof(a));
}

static uint64_t alloc(struct hfd_ctx *ctx, uint64_t size)
{
	union hl_mem_args a = { 0 };

	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	assert_int_equal(run(ctx, HL_IOCTL_MEMORY, &a, sizeof(a)), 0);
	return a.out.handle;
}

static int map_dev_at(struct hfd_ctx *ctx, uint64_t handle, uint64_t hint,
		      uint32_t flags, uint64_t *va)
{
	union hl_mem_args a = { 0 };
	int ret;

	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = flags;
	a.in.map_device.handle = handle;
	a.in.map_device.hint_addr = hint;
	ret = run(ctx, HL_IOCTL_MEMORY, &a, sizeof(a));
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 2 << 20);
}

/* Submit the user CB at @cb_va (@size bytes) on PDMA_0 stream 0 */
static uint64_t submit_at(struct hpu_test_hfd_hl *f, uint64_t cb_va,
			  uint32_t size)
{
	struct hl_cs_chunk c = { .cb_handle = cb_va,
				 .queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
				 .cb_size = size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	union hl_cs_args a = { 0 };

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), 0);
	assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
	return a.out.seq;
}

/* WAIT_CS polled until not BUSY; the status in @status */
static int wait_cs(struct hpu_test_hfd_hl *f, uint64_t seq, uint32_t *status)
{
	struct hl_wait_cs_out o;
	int ret = hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o);

	*status = o.status;
	return ret;
}

/* Run the host CB's first @size bytes and expect it to complete */
static void run_host_cb(struct hpu_test_hfd_hl *f, size_t size)
{
	uint32_t st;

	assert_int_equal(
		wait_cs(f, submit_at(f, f->cb_va, (uint32_t)size), &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 37 + seed + (i >> 8));
}

/*
 * Copy @n bytes of CB (at f->cb + 4096) into device memory at @va, then
 * run it from there: it moves f->src to f->dst
 */
static void test_dev_cb_runs(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const struct hfd_device *dev = &f->drv.devs[0];
	uint64_t places[] = { f->dram + 0x1000,
			      dev->ip.sram_base_address + 0x2000 };
	uint32_t st;
	size_t n, i;

	for (i = 0; i < 2; i++) {
		fill(f->src, BUF_SIZE, (unsigned int)(11 * i + 3));
		memset(f->dst, 0, BUF_SIZE);
		/* the device CB: src -> dst, then dst + 8 KiB from src */
		n = hpu_test_hl_put_dma(f->cb + 4096, 0, f->src_va, f->dst_va,
					4096, 0);
		n = hpu_test_hl_put_dma(f->cb + 4096, n, f->src_va + 4096,
					f->dst_va + 8192, 100, 0);
		/* a host CB that copies it there */
		hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 4096, places[i],
				    (uint32_t)n, 0);
		run_host_cb(f, sizeof(struct hl_pkt_lin_dma));
		/* the host copy is changed: the device bytes are what runs */
		memset(f->cb + 4096, 0, n);
		assert_int_equal(
			wait_cs(f, submit_at(f, places[i], (uint32_t)n), &st),
			0);
		assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
		assert_memory_equal(f->dst, f->src, 4096);
		assert_memory_equal(f->dst + 8192, f->src + 4096, 100);
		assert_int_equal(f->dst[8192 + 100], 0);
	}
}

/*
 * A user CB at a device VA the context has not mapped, or running past
 * its DRAM mapping, or holding a bad packet: the CS takes a number and
 * ends ABORTED with nothing run
 */
static void test_dev_cb_refused(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t bad[] = { f->dram + (2 << 20) + 0x1000,
			   f->dram + (2 << 20) - 16, 0x1c0000000000ULL,
			   f->dram + 0x3000 };
	uint32_t st, sizes[] = { 24, 24, 24, 32 };
	size_t n, i;

	/* a good DMA packet at each place (where it is mapped), plus a bad
	 * packet (an unserved opcode) after it at the last */
	n = hpu_test_hl_put_dma(f->cb + 4096, 0, f->src_va, f->dst_va, 64, 0);
	memset(f->cb + 4096 + n, 0, 8);
	f->cb[4096 + n + 7] = 0x1f; /* opcode 0x1f in the control word */
	hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 4096, f->dram + 0x3000, 32, 0);
	run_host_cb(f, sizeof(struct hl_pkt_lin_dma));
	hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 4096, f->dram + (2 << 20) - 16,
			    16, 0);
	run_host_cb(f, sizeof(struct hl_pkt_lin_dma));
	fill(f->src, BUF_SIZE, 5);
	for (i = 0; i < 4; i++) {
		memset(f->dst, 0x5a, BUF_SIZE);
		assert_int_equal(
			wait_cs(f, submit_at(f, bad[i], sizes[i]), &st), -EIO);
		assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
		for (n = 0; n < 64; n++)
			assert_int_equal(f->dst[n], 0x5a);
	}
	/* the context goes on: the same CB from host memory runs */
	n = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 64, 0);
	run_host_cb(f, n);
	assert_memory_equal(f->dst, f->src, 64);
}

/* The reference: each @w-byte element reversed; a last partial element
 * of r bytes is the element zero-extended, reversed, cut to r bytes */
static void ref_swap(const uint8_t *in, uint8_t *out, size_t len, size_t w)
{
	size_t i, j, base;

	for (i = 0; i < len; i++) {
		base = i - i % w;
		j = base + w - 1 - i % w; /* the byte that lands at i */
		out[i] = j < len ? in[j] : 0;
	}
}

static void test_endian_swap(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	static const uint32_t sizes[] = { 4096, 4096 + 1, 4096 + 3, 4096 + 7 };
	uint8_t *want = malloc(BUF_SIZE);
	uint32_t e, up, s, size;
	size_t n;

	assert_non_null(want);
	for (e = 1; e <= 3; e++) {
		for (s = 0; s < 4; s++) {
			for (up = 0; up < 2; up++) {
				size = sizes[s];
				fill(f->src, BUF_SIZE, e * 7 + s + up);
				memset(f->dst, 0xee, BUF_SIZE);
				/* down to DRAM, up to the host: one swaps */
				n = hpu_test_hl_put_dma(f->cb, 0, f->src_va,
							f->dram, size,
							up ? 0 : e << 1);
				n = hpu_test_hl_put_dma(
					f->cb, n, f->dram, f->dst_va, size,
					HL_PKT_CTL_EB | (up ? e << 1 : 0));
				run_host_cb(f, n);
				ref_swap(f->src, want, size, 1U << e);
				assert_memory_equal(f->dst, want, size);
				assert_int_equal(f->dst[size], 0xee);
			}
		}
	}
	/* DRAM to DRAM, 64-bit, a length past the 64 KiB bounce */
	fill(f->src, BUF_SIZE, 77);
	n = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dram + 0x100000,
				BUF_SIZE, 0);
	n = hpu_test_hl_put_dma(f->cb, n, f->dram + 0x100000, f->dram + 0x10000,
				BUF_SIZE, HL_PKT_CTL_EB | (3U << 1));
	n = hpu_test_hl_put_dma(f->cb, n, f->dram + 0x10000, f->dst_va,
				BUF_SIZE, HL_PKT_CTL_EB);
	run_host_cb(f, n);
	ref_swap(f->src, want, BUF_SIZE, 8);
	assert_memory_equal(f->dst, want, BUF_SIZE);
	free(want);
}

/*
 * FORCE_HINT onto the page after a mapping (what the model keeps as a
 * guard) is honoured; onto a page in use it is ENOMEM, an unforced hint
 * there moves elsewhere; the two mappings stay apart
 */
static void test_force_hint_after_mapping(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint8_t *a = aligned_alloc(4096, 8192), *b = aligned_alloc(4096, 8192);
	uint64_t va_a, va_b = 0, va_c = 0, h1, h2, d1 = 0, d2 = 0, d3 = 0;
	size_t n;

	assert_non_null(a);
	assert_non_null(b);
	memset(a, 0xaa, 8192);
	memset(b, 0xbb, 8192);
	va_a = map_host(f->ctx, a, 8192);
	/* in use: forced -> ENOMEM, unforced -> somewhere free */
	assert_int_equal(map_host_at(f->ctx, b, 4096, va_a + 4096,
				     HL_MEM_FORCE_HINT, &va_b),
			 -ENOMEM);
	assert_int_equal(map_host_at(f->ctx, b, 4096, va_a, 0, &va_c), 0);
	assert_true(va_c >= va_a + 8192 || va_c + 4096 <= va_a);
	assert_int_equal(unmap(f->ctx, va_c), 0);
	/* right after it: honoured */
	assert_int_equal(map_host_at(f->ctx, b, 8192, va_a + 8192,
				     HL_MEM_FORCE_HINT, &va_b),
			 0);
	assert_int_equal(va_b, va_a + 8192);
	/* each VA reaches its own memory */
	n = hpu_test_hl_put_dma(f->cb, 0, va_a + 8192 - 16, f->dst_va, 32, 0);
	run_host_cb(f, n);
	for (n = 0; n < 16; n++) {
		assert_int_equal(f->dst[n], 0xaa);
		assert_int_equal(f->dst[16 + n], 0xbb);
	}
	/* a later unhinted mapping lands on neither */
	va_c = map_host(f->ctx, f->src, 4096);
	assert_true(va_c >= va_b + 8192 || va_c + 4096 <= va_a);
	assert_int_equal(unmap(f->ctx, va_c), 0);
	/* a mapping forced to end right before another has no guard; one
	 * the allocator places after it still gets a gap */
	assert_int_equal(unmap(f->ctx, va_b), 0);
	assert_int_equal(map_host_at(f->ctx, b, 4096, va_a + 8192,
				     HL_MEM_FORCE_HINT, &va_b),
			 0);
	assert_int_equal(map_host_at(f->ctx, f->src, 4096, va_a + 8192 + 8192,
				     HL_MEM_FORCE_HINT, &va_c),
			 0);
	assert_int_equal(unmap(f->ctx, va_c), 0);
	assert_int_equal(map_host_at(f->ctx, f->src, 4096, va_a + 8192 + 4096,
				     HL_MEM_FORCE_HINT, &va_c),
			 0);
	assert_int_equal(unmap(f->ctx, va_c), 0);
	assert_int_equal(map_host_at(f->ctx, f->src, 4096, va_a + 8192 + 4096,
				     0, &va_c),
			 0);
	assert_int_equal(va_c, va_a + 8192 + 4096); /* the hint was free */
	assert_int_equal(unmap(f->ctx, va_c), 0);
	assert_int_equal(unmap(f->ctx, va_b), 0);
	assert_int_equal(unmap(f->ctx, va_a), 0);

	/* device memory: the next DRAM page after a mapping */
	h1 = alloc(f->ctx, 2 << 20);
	h2 = alloc(f->ctx, 2 << 20);
	assert_int_equal(map_dev_at(f->ctx, h1, 0, 0, &d1), 0);
	assert_int_equal(map_dev_at(f->ctx, h2, d1, HL_MEM_FORCE_HINT, &d2),
			 -ENOMEM);
	assert_int_equal(map_dev_at(f->ctx, h2, d1 + (2 << 20),
				    HL_MEM_FORCE_HINT, &d2),
			 0);
	assert_int_equal(d2, d1 + (2 << 20));
	assert_int_equal(map_dev_at(f->ctx, h1, 0, 0, &d3), 0);
	assert_true(d3 >= d2 + (2 << 20) || d3 + (2 << 20) <= d1);
	assert_int_equal(unmap(f->ctx, d3), 0);
	assert_int_equal(unmap(f->ctx, d2), 0);
	assert_int_equal(unmap(f->ctx, d1), 0);
	free(a);
	free(b);
}

static size_t put_cp_dma(void *cb, size_t off, uint64_t src, uint32_t size,
			 uint32_t bits)
{
	struct hl_pkt_cp_dma p = { .tsize = size,
				   .ctl = (HL_PACKET_CP_DMA
					   << HL_PKT_CTL_OPCODE_SHIFT) |
					  HL_PKT_CTL_EB | HL_PKT_CTL_MB | bits,
				   .src_addr = src };

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

/* The CP_DMA packet's layout (gaudi2_packets.h's packet_cp_dma) */
static void test_cp_dma_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct hl_pkt_cp_dma), 16);
	assert_int_equal(offsetof(struct hl_pkt_cp_dma, tsize), 0);
	assert_int_equal(offsetof(struct hl_pkt_cp_dma, ctl), 4);
	assert_int_equal(offsetof(struct hl_pkt_cp_dma, src_addr), 8);
	assert_int_equal(HL_CP_DMA_CTL_UPPER_CP, 1U << 5);
	assert_int_equal(hfd_hl_packet_size(HL_PACKET_CP_DMA), 16);
}

/*
 * CP_DMA: an upper CB in host memory runs lower CBs kept in host memory
 * (at an unaligned address), DRAM and the SRAM window, in order
 */
static void test_cp_dma_runs(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	const struct hfd_device *dev = &f->drv.devs[0];
	uint64_t sram = dev->ip.sram_base_address + 0x4000;
	uint8_t *lower = f->cb + 4096 + 4; /* unaligned */
	size_t n, l1, l2, l3;
	uint32_t got[6], i;

	/* three lower CBs: two MSG_LONGs each, into f->dst */
	l1 = hpu_test_hl_put_msg_long(lower, 0, f->dst_va, 0x0ded0000,
				      HL_PKT_CTL_MB);
	l1 = hpu_test_hl_put_msg_long(lower, l1, f->dst_va + 4, 0x0ded0001,
				      HL_PKT_CTL_MB);
	l2 = hpu_test_hl_put_msg_long(lower, l1, f->dst_va + 8, 0x0ded0002,
				      HL_PKT_CTL_MB);
	l2 = hpu_test_hl_put_msg_long(lower, l2, f->dst_va + 12, 0x0ded0003,
				      HL_PKT_CTL_MB);
	l3 = hpu_test_hl_put_msg_long(lower, l2, f->dst_va + 16, 0x0ded0004,
				      HL_PKT_CTL_MB);
	l3 = hpu_test_hl_put_msg_long(lower, l3, f->dst_va + 20, 0x0ded0005,
				      HL_PKT_CTL_MB);
	/* the 2nd to DRAM, the 3rd to SRAM */
	n = hpu_test_hl_put_dma(f->cb, 0, f->cb_va + 4096 + 4 + l1,
				f->dram + 0x8000, (uint32_t)(l2 - l1), 0);
	n = hpu_test_hl_put_dma(f->cb, n, f->cb_va + 4096 + 4 + l2, sram,
				(uint32_t)(l3 - l2), 0);
	run_host_cb(f, n);
	memset(f->dst, 0, BUF_SIZE);
	n = put_cp_dma(f->cb, 0, f->cb_va + 4096 + 4, (uint32_t)l1, 0);
	n = put_cp_dma(f->cb, n, f->dram + 0x8000, (uint32_t)(l2 - l1),
		       HL_CP_DMA_CTL_UPPER_CP);
	n = put_cp_dma(f->cb, n, sram, (uint32_t)(l3 - l2), 0);
	n = hpu_test_hl_put_msg_long(f->cb, n, f->dst_va + 24, 0x0ded0006,
				     HL_PKT_CTL_MB);
	run_host_cb(f, n);
	memcpy(got, f->dst, sizeof(got));
	for (i = 0; i < 6; i++)
		assert_int_equal(got[i], 0x0ded0000 + i);
	memcpy(got, f->dst + 24, 4);
	assert_int_equal(got[0], 0x0ded0006);
}

/* A fetch that serves 64 bytes at 0x1000 (a NOP and a CP_DMA) */
static int fake_fetch(void *arg, uint64_t va, uint32_t len, void *buf)
{
	const uint8_t *mem = arg;

	if (va < 0x1000 || va - 0x1000 + len > 64)
		return -EFAULT;
	memcpy(buf, mem + (va - 0x1000), len);
	return 0;
}

/*
 * CP_DMA refused: a predicate, a reserved bit, a lower CB above the
 * bound or the budget, or not memory of the context; a CP_DMA inside a
 * lower CB reaches the translation, which refuses it. Through a CS:
 * ABORTED, nothing run
 */
static void test_cp_dma_refused(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint8_t mem[64] = { 0 }, cb[64], *out;
	struct hfd_hl_xlate x = { .kind = HFD_QUEUE_DMA };
	uint32_t budget = HFD_HL_CP_DMA_MAX, st;
	struct hfd_hl_lower_cbs lower;
	size_t n, len;

	put_cp_dma(mem, 8, 0x1000, 8, 0);
	mem[7] = HL_PACKET_NOP; /* a NOP: opcode in the top byte of word 1 */
	n = put_cp_dma(cb, 0, 0x1000, 8, 1);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 -EINVAL);
	n = put_cp_dma(cb, 0, 0x1000, 8, 1U << 6);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 -EINVAL);
	n = put_cp_dma(cb, 0, 0x1000, HL_MAX_CB_SIZE + 8, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 -EINVAL);
	budget = 4;
	n = put_cp_dma(cb, 0, 0x1000, 8, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 -EINVAL);
	budget = HFD_HL_CP_DMA_MAX;
	n = put_cp_dma(cb, 0, 0x2000, 8, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 -EFAULT);
	assert_int_equal(budget, HFD_HL_CP_DMA_MAX);
	/* good: the NOP takes the CP_DMA's place (noted as a lower CB's),
	 * the budget goes down */
	n = put_cp_dma(cb, 0, 0x1000, 8, 0);
	n = hpu_test_hl_put_dma(cb, n, 0x1000, 0x2000, 8, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, &lower),
			 0);
	assert_non_null(out);
	assert_int_equal(len, 8 + sizeof(struct hl_pkt_lin_dma));
	assert_memory_equal(out, mem, 8);
	assert_memory_equal(out + 8, cb + 16, sizeof(struct hl_pkt_lin_dma));
	assert_int_equal(lower.n, 1);
	assert_int_equal(lower.r[0].off, 0);
	assert_int_equal(lower.r[0].len, 8);
	assert_int_equal(budget, HFD_HL_CP_DMA_MAX - 8);
	free(lower.r);
	free(out);
	/* nested: the lower CB's CP_DMA is refused by the translation */
	n = put_cp_dma(cb, 0, 0x1000, 24, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 0);
	assert_int_equal(len, 24);
	{
		uint8_t hpu[64];
		size_t hlen;

		assert_int_equal(hfd_hl_packets_translate(out, len, &x, hpu,
							  &hlen, NULL),
				 -EINVAL);
	}
	free(out);
	/* no CP_DMA: nothing made */
	n = hpu_test_hl_put_dma(cb, 0, 0x1000, 0x2000, 8, 0);
	assert_int_equal(hfd_hl_cp_dma_expand(cb, n, fake_fetch, mem, &budget,
					      &out, &len, NULL),
			 0);
	assert_null(out);

	/* through a CS: a lower CB outside the context's memory, after a
	 * DMA: ABORTED with the DMA not run */
	fill(f->src, BUF_SIZE, 9);
	memset(f->dst, 0x5a, BUF_SIZE);
	n = hpu_test_hl_put_dma(f->cb, 0, f->src_va, f->dst_va, 64, 0);
	n = put_cp_dma(f->cb, n, 0x1c0000000000ULL, 16, 0);
	assert_int_equal(wait_cs(f, submit_at(f, f->cb_va, (uint32_t)n), &st),
			 -EIO);
	assert_int_equal(st, HL_WAIT_CS_STATUS_ABORTED);
	for (n = 0; n < 64; n++)
		assert_int_equal(f->dst[n], 0x5a);
}

/* Submit a NOP CS (the host CB's first 8 bytes) with @flags */
static uint64_t submit_nop(struct hpu_test_hfd_hl *f, uint32_t flags)
{
	struct hl_cs_chunk c = { .cb_handle = f->cb_va + 8192,
				 .queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
				 .cb_size = 8,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = flags;
	while ((ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a))) == -EAGAIN)
		usleep(1000);
	assert_int_equal(ret, 0);
	return a.out.seq;
}

/*
 * A CS long gone from the history (more than 4096 later ones) still
 * answers its time when it asked for one (hl-thunk's
 * test_wait_for_cs_with_timestamp_status_gone); one that did not
 * answers COMPLETED without
 */
static void test_timestamp_outlives_history(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t stamped, plain, seq = 0;
	union hl_wait_cs_args a;
	uint32_t st;
	int i;

	memset(f->cb + 8192, 0, 8);
	f->cb[8192 + 7] = HL_PACKET_NOP;
	stamped = submit_nop(f, HL_CS_FLAGS_TIMESTAMP);
	plain = submit_nop(f, 0);
	for (i = 0; i < 4200; i++)
		seq = submit_nop(f, 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	memset(&a, 0, sizeof(a));
	a.in.seq = stamped;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_true(a.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	assert_true(a.out.timestamp_nsec > 0);
	memset(&a, 0, sizeof(a));
	a.in.seq = plain;
	assert_int_equal(run(f->ctx, HL_IOCTL_WAIT_CS, &a, sizeof(a)), 0);
	assert_int_equal(a.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_false(a.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_cb_runs),
		cmocka_unit_test(test_dev_cb_refused),
		cmocka_unit_test(test_endian_swap),
		cmocka_unit_test(test_force_hint_after_mapping),
		cmocka_unit_test(test_cp_dma_layout),
		cmocka_unit_test(test_cp_dma_runs),
		cmocka_unit_test(test_cp_dma_refused),
		cmocka_unit_test(test_timestamp_outlives_history),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
