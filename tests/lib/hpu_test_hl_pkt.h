/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_hl_pkt.h - writers of the Gaudi2 packets (uapi/hl_uapi.h)
 * the habanalabs tests put in their CBs. Each writes one packet at
 * @cb + @off and returns the offset after it.
 */
#ifndef HPU_TEST_HL_PKT_H
#define HPU_TEST_HL_PKT_H

#include <stddef.h>
#include <stdint.h>

/**
 * hpu_test_hl_ctl() - a packet's control word
 * @opcode: HL_PACKET_*
 * @bits: the other bits (barriers, the packet's own fields)
 *
 * Return: the control word.
 */
uint32_t hpu_test_hl_ctl(uint32_t opcode, uint32_t bits);

/**
 * hpu_test_hl_put2() - an 8-byte packet of two words
 * @cb: the CB
 * @off: byte offset in @cb
 * @w0: the first word (the packet's value or configuration)
 * @w1: the second (its control word)
 *
 * Return: @off + 8.
 */
size_t hpu_test_hl_put2(void *cb, size_t off, uint32_t w0, uint32_t w1);

/**
 * hpu_test_hl_put_msg_long() - MSG_LONG: write @value at @addr
 * @cb: the CB
 * @off: byte offset in @cb
 * @addr: device address (memory, or a register of the configuration
 *	space)
 * @value: the 32-bit value
 * @bits: control word bits beside the opcode (e.g. HL_PKT_CTL_MB)
 *
 * Return: the offset after the packet.
 */
size_t hpu_test_hl_put_msg_long(void *cb, size_t off, uint64_t addr,
				uint32_t value, uint32_t bits);

/**
 * hpu_test_hl_put_dma() - LIN_DMA of @size bytes from @src to @dst
 * @cb: the CB
 * @off: byte offset in @cb
 * @src: source device address (the pattern, with HL_LIN_DMA_CTL_MEMSET)
 * @dst: destination device address
 * @size: bytes
 * @bits: control word bits beside the opcode (barriers, memset, endian)
 *
 * Return: the offset after the packet.
 */
size_t hpu_test_hl_put_dma(void *cb, size_t off, uint64_t src, uint64_t dst,
			   uint32_t size, uint32_t bits);

/**
 * hpu_test_hl_put_short() - MSG_SHORT (with a message barrier): write
 * @value at register @offset of base @base
 * @cb: the CB
 * @off: byte offset in @cb
 * @base: 0 the monitors' MON_PAY_ADDRL_0, 1 SOB_OBJ_0
 * @offset: byte offset from the base
 * @value: the 32-bit value
 *
 * Return: @off + 8.
 */
size_t hpu_test_hl_put_short(void *cb, size_t off, uint32_t base,
			     uint32_t offset, uint32_t value);

/**
 * hpu_test_hl_put_fence() - FENCE (with a message barrier): wait until
 * fence counter @id of the stream reaches @target, then take @dec
 * @cb: the CB
 * @off: byte offset in @cb
 * @id: fence counter 0..3
 * @target: 0..255
 * @dec: 0..15
 *
 * Return: @off + 8.
 */
size_t hpu_test_hl_put_fence(void *cb, size_t off, uint32_t id, uint32_t target,
			     uint32_t dec);

#endif /* HPU_TEST_HL_PKT_H */
