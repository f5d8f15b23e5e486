// SPDX-License-Identifier: MIT
/*
 * fuzz_hl_packets.c - libFuzzer target of the habanalabs personality's
 * Gaudi2 packet translation (fusedev/hl_packets.c).
 *
 * Input: one byte choosing the queue kind, then the command buffer. The
 * translation must never read outside the buffer or write beyond
 * HFD_HL_XLATE_RATIO times its size (AddressSanitizer watches), must
 * report a bad offset inside the buffer, and what it produces must be a
 * stream the hpu packet validator accepts on the same queue kind (an
 * empty one aside). The CB also goes through the CP_DMA expansion
 * (fusedev/hl_cp_dma.c), its lower CBs fetched from the input itself at
 * device VA 0x1000, and the expanded CB through the translation again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seed.h"
#include "hl_personality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

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
	uint32_t budget = 1U << 16;
	size_t n = 0, len = 0, bad_off = 0;
	uint8_t *ex = NULL, *out;

	if (hfd_hl_cp_dma_expand(cb, size, fetch, &m, &budget, &ex, &n) || !ex)
		return;
	if (budget > 1U << 16)
		abort();
	out = malloc(n ? HFD_HL_XLATE_RATIO * n : 1);
	if (out && !hfd_hl_packets_translate(ex, n, x, out, &len, &bad_off) &&
	    (len > HFD_HL_XLATE_RATIO * n ||
	     (len && hfd_packets_validate(out, len, x->kind, NULL))))
		abort();
	free(out);
	free(ex);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
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
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	seeds(fuzz_corpus_dir(*argc, *argv));
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
	x.kind = (enum hfd_queue_kind)(HFD_QUEUE_DMA + data[0] % HFD_QUEUE_NIC);
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
out:
	free(cb);
	free(out);
	return 0;
}
