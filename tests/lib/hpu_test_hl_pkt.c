// SPDX-License-Identifier: MIT
/*
 * hpu_test_hl_pkt.c - writers of Gaudi2 packets (hpu_test_hl_pkt.h).
 */
#include <string.h>

#include "hl_uapi.h"
#include "hpu_test_hl_pkt.h"

uint32_t hpu_test_hl_ctl(uint32_t opcode, uint32_t bits)
{
	return (opcode << HL_PKT_CTL_OPCODE_SHIFT) | bits;
}

size_t hpu_test_hl_put2(void *cb, size_t off, uint32_t w0, uint32_t w1)
{
	memcpy((uint8_t *)cb + off, &w0, 4);
	memcpy((uint8_t *)cb + off + 4, &w1, 4);
	return off + 8;
}

size_t hpu_test_hl_put_msg_long(void *cb, size_t off, uint64_t addr,
				uint32_t value, uint32_t bits)
{
	struct hl_pkt_msg_long p = { .value = value,
				     .ctl = hpu_test_hl_ctl(HL_PACKET_MSG_LONG,
							    bits),
				     .addr = addr };

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

size_t hpu_test_hl_put_dma(void *cb, size_t off, uint64_t src, uint64_t dst,
			   uint32_t size, uint32_t bits)
{
	struct hl_pkt_lin_dma p = { .tsize = size,
				    .ctl = hpu_test_hl_ctl(HL_PACKET_LIN_DMA,
							   bits),
				    .src_addr = src,
				    .dst_addr = dst };

	memcpy((uint8_t *)cb + off, &p, sizeof(p));
	return off + sizeof(p);
}

size_t hpu_test_hl_put_fence(void *cb, size_t off, uint32_t id, uint32_t target,
			     uint32_t dec)
{
	return hpu_test_hl_put2(cb, off, dec | target << 16 | id << 30,
				hpu_test_hl_ctl(HL_PACKET_FENCE,
						HL_PKT_CTL_MB));
}

size_t hpu_test_hl_put_short(void *cb, size_t off, uint32_t base,
			     uint32_t offset, uint32_t value)
{
	return hpu_test_hl_put2(cb, off, value,
				hpu_test_hl_ctl(HL_PACKET_MSG_SHORT,
						HL_PKT_CTL_MB | base << 22 |
							offset));
}
