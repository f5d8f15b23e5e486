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
 * empty one aside).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
out:
	free(cb);
	free(out);
	return 0;
}
