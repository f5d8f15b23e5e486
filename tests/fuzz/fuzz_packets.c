// SPDX-License-Identifier: MIT
/*
 * fuzz_packets.c - libFuzzer target of the driver's packet validator.
 *
 * Input: one byte choosing the queue kind, then the command buffer. The
 * validator must never read outside the buffer (AddressSanitizer watches)
 * and what it accepts must be a well-formed stream: every packet known,
 * its size a multiple of 8 and inside the buffer, the stream covered
 * exactly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_fused.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_accepted(const uint8_t *cb, size_t size)
{
	struct hpu_pkt_hdr hdr;
	size_t off = 0;

	while (off < size) {
		if (size - off < sizeof(hdr))
			abort();
		memcpy(&hdr, cb + off, sizeof(hdr));
		if (!hdr.size || hdr.size % 8 || hdr.size > size - off)
			abort();
		if ((hdr.opcode < HPU_PACKET_NOP ||
		     hdr.opcode > HPU_PACKET_ARM_MONITOR) &&
		    hdr.opcode != HPU_PACKET_MME_GEMM &&
		    hdr.opcode != HPU_PACKET_TPC_KERNEL &&
		    hdr.opcode != HPU_PACKET_NIC_WRITE)
			abort();
		off += hdr.size;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum hfd_queue_kind kind;
	size_t bad_off = 0;
	uint8_t *cb;

	if (size < 1)
		return 0;
	kind = (enum hfd_queue_kind)(data[0] % (HFD_QUEUE_NIC + 1));
	size--;
	/* an exact-size heap copy, so any over-read is caught */
	cb = malloc(size ? size : 1);
	if (!cb)
		return 0;
	memcpy(cb, data + 1, size);
	if (!hfd_packets_validate(cb, size, kind, &bad_off))
		check_accepted(cb, size);
	else if (size && bad_off > size)
		abort();
	free(cb);
	return 0;
}
