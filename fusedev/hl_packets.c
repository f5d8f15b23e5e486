// SPDX-License-Identifier: MIT
/*
 * hl_packets.c - the Gaudi2 packet ISA of the habanalabs personality
 * (docs/habanalabs.md, "Packets"): a user CB's packets decoded, every
 * field validated, and each translated to the hpu packets the device
 * model runs (uapi/hpu_packets.h). A pure function: no FUSE, no model.
 *
 *	NOP      -> hpu NOP
 *	STOP     -> hpu STOP
 *	MSG_LONG -> hpu MEMSET of one 32-bit element (a write of the value);
 *	            to a register: the sync manager (hl_sync.c)
 *	LIN_DMA  -> hpu LIN_DMA (copy; the endian field becomes its
 *	            HPU_LIN_DMA_F_SWAP_* flags) or MEMSET (memset bit)
 *	MSG_SHORT, FENCE, ARB_POINT -> the sync manager (hl_sync.c)
 *	CP_DMA   -> its lower CB, fetched and put in its place before the
 *	            translation (hl_cp_dma.c), translated for the lower CP
 *
 * Predicates, LOAD_AND_EXE and CB_LIST are the upper CP's, done before
 * the translation (hl_qman.c): here (a lower CB's) they are refused.
 * Everything else (WREG_*, REPEAT, WAIT, MSG_PROT, WRITE_ARC_STREAM)
 * needs engine registers or the ARC, neither of which is modelled yet:
 * refused like a malformed packet.
 */
#include <errno.h>
#include <string.h>

#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_packets.h"

/* Control word bits every packet may have: opcode, EB, SWTC, MB */
#define CTL_COMMON                                                  \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_SWTC | \
	 HL_PKT_CTL_MB)

/* Bytes of each opcode's packet (0: not served) */
static const uint8_t pkt_size[] = {
	[HL_PACKET_MSG_LONG] = sizeof(struct hl_pkt_msg_long),
	[HL_PACKET_MSG_SHORT] = 8,
	[HL_PACKET_FENCE] = 8,
	[HL_PACKET_ARB_POINT] = 8,
	[HL_PACKET_LIN_DMA] = sizeof(struct hl_pkt_lin_dma),
	[HL_PACKET_NOP] = sizeof(struct hl_pkt_nop),
	[HL_PACKET_STOP] = sizeof(struct hl_pkt_nop),
};

/**
 * hfd_hl_packet_size() - bytes of a Gaudi2 packet, to walk a CB
 * @opcode: the packet's opcode (control word bits 24..28)
 *
 * Return: the size of a packet the personality serves, or of CP_DMA
 * (expanded before translation, hl_cp_dma.c); 0 for any other opcode.
 */
size_t hfd_hl_packet_size(uint32_t opcode)
{
	if (opcode == HL_PACKET_CP_DMA)
		return sizeof(struct hl_pkt_cp_dma);
	return opcode < sizeof(pkt_size) ? pkt_size[opcode] : 0;
}

/**
 * hfd_hl_sram_xlate() - an address as the device reaches it: one wholly
 * inside the SRAM window is moved to the context's SRAM mapping
 * @x: the chunk's translation state
 * @addr: a packet's address
 * @len: bytes accessed there
 *
 * Return: the device VA to use.
 */
uint64_t hfd_hl_sram_xlate(const struct hfd_hl_xlate *x, uint64_t addr,
			   uint64_t len)
{
	uint64_t off = addr - x->sram_base;

	if (!x->sram_va || addr < x->sram_base || off >= x->sram_size ||
	    len > x->sram_size - off)
		return addr; /* not SRAM: the context's MMU decides */
	return x->sram_va + off;
}

/**
 * hfd_hl_hpu_flags() - the hpu packet flags of a Gaudi2 control word's
 * barriers
 * @ctl: the packet's control word
 *
 * Return: HPU_PKT_F_ENG_BARRIER for EB, HPU_PKT_F_MSG_BARRIER for MB.
 */
uint16_t hfd_hl_hpu_flags(uint32_t ctl)
{
	return (ctl & HL_PKT_CTL_EB ? HPU_PKT_F_ENG_BARRIER : 0) |
	       (ctl & HL_PKT_CTL_MB ? HPU_PKT_F_MSG_BARRIER : 0);
}

static size_t put_memset(uint8_t *out, uint16_t flags, uint64_t dst,
			 uint64_t size, uint64_t value, uint32_t elem)
{
	struct hpu_pkt_memset m = {
		.hdr = { .opcode = HPU_PACKET_MEMSET,
			 .size = sizeof(m),
			 .flags = (uint16_t)(flags | elem) },
		.dst_addr = dst,
		.size = size,
		.value = value,
	};

	memcpy(out, &m, sizeof(m));
	return sizeof(m);
}

static int msg_long(const uint8_t *p, const struct hfd_hl_xlate *x,
		    uint8_t *out, size_t *len)
{
	struct hl_pkt_msg_long m;
	uint32_t allowed = CTL_COMMON | HL_MSG_LONG_CTL_WEAKLY_ORDERED |
			   HL_MSG_LONG_CTL_NO_SNOOP;

	memcpy(&m, p, sizeof(m));
	/* pred 0 only; op 0 (the value) only: no timestamps */
	if (m.ctl & ~allowed)
		return -EINVAL;
	/* a register: the sync manager's or a QMAN's (hl_sync.c) */
	if (hfd_hl_sync_is_reg(m.addr))
		return hfd_hl_sync_reg_write(x, m.addr, m.value,
					     hfd_hl_hpu_flags(m.ctl), out, len);
	if ((m.addr & 3) || m.addr > UINT64_MAX - 4 || x->kind != HFD_QUEUE_DMA)
		return -EINVAL;
	*len = put_memset(out, hfd_hl_hpu_flags(m.ctl),
			  hfd_hl_sram_xlate(x, m.addr, 4), 4, m.value,
			  HPU_MEMSET_F_ELEM_4);
	return 0;
}

/* The element width a memset pattern can be written with, or -EINVAL */
static int memset_elem(uint64_t v, uint64_t dst, uint64_t size)
{
	uint64_t bytes = (v & 0xff) * 0x0101010101010101ULL;

	if (v == bytes)
		return HPU_MEMSET_F_ELEM_1;
	if (!(dst % 8) && !(size % 8))
		return HPU_MEMSET_F_ELEM_8;
	if ((v >> 32) == (v & 0xffffffffULL) && !(dst % 4) && !(size % 4))
		return HPU_MEMSET_F_ELEM_4;
	return -EINVAL;
}

/*
 * The hpu flags of a copying LIN_DMA's endian field (1: 16-bit, 2:
 * 32-bit, 3: 64-bit elements byte-reversed). A swapping copy between
 * overlapping ranges is refused, as lin_dma() refuses a memset that
 * swaps: hl-thunk programs neither, and what the engine makes of them
 * is not documented.
 */
static int lin_dma_swap(const struct hl_pkt_lin_dma *d, uint64_t src,
			uint64_t dst, uint16_t *flags)
{
	uint32_t e = (d->ctl & HL_LIN_DMA_CTL_ENDIAN_MASK) >> 1;

	*flags = 0;
	if (!e)
		return 0;
	if (d->tsize && src < dst + d->tsize && dst < src + d->tsize)
		return -EINVAL;
	*flags = (uint16_t)(e << 8); /* HPU_LIN_DMA_F_SWAP_16 .. _64 */
	return 0;
}

static int lin_dma(const uint8_t *p, const struct hfd_hl_xlate *x, uint8_t *out,
		   size_t *len)
{
	struct hl_pkt_lin_dma d;
	struct hpu_pkt_lin_dma h;
	uint32_t allowed = CTL_COMMON | HL_LIN_DMA_CTL_WRCOMP |
			   HL_LIN_DMA_CTL_MEMSET | HL_LIN_DMA_CTL_ENDIAN_MASK |
			   HL_LIN_DMA_CTL_CONTEXT_ID_INC;
	uint16_t swap;
	int elem;

	memcpy(&d, p, sizeof(d));
	/* no bf16/fp16 reduction or offset addition */
	if ((d.ctl & ~allowed) || x->kind != HFD_QUEUE_DMA)
		return -EINVAL;
	if (d.dst_addr + d.tsize < d.dst_addr)
		return -EINVAL;
	if ((d.ctl & HL_LIN_DMA_CTL_MEMSET) &&
	    (d.ctl & HL_LIN_DMA_CTL_ENDIAN_MASK))
		return -EINVAL;
	if (d.ctl & HL_LIN_DMA_CTL_MEMSET) {
		elem = memset_elem(d.src_addr, d.dst_addr, d.tsize);
		if (elem < 0)
			return elem;
		*len = put_memset(out, hfd_hl_hpu_flags(d.ctl),
				  hfd_hl_sram_xlate(x, d.dst_addr, d.tsize),
				  d.tsize, d.src_addr, (uint32_t)elem);
		return 0;
	}
	if (d.src_addr + d.tsize < d.src_addr)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	h.hdr.opcode = HPU_PACKET_LIN_DMA;
	h.hdr.size = sizeof(h);
	h.hdr.flags = hfd_hl_hpu_flags(d.ctl);
	h.src_addr = hfd_hl_sram_xlate(x, d.src_addr, d.tsize);
	h.dst_addr = hfd_hl_sram_xlate(x, d.dst_addr, d.tsize);
	h.size = d.tsize;
	if (lin_dma_swap(&d, h.src_addr, h.dst_addr, &swap))
		return -EINVAL;
	h.hdr.flags |= swap;
	memcpy(out, &h, sizeof(h));
	*len = sizeof(h);
	return 0;
}

static int nop_stop(const uint8_t *p, uint32_t opcode, uint8_t *out,
		    size_t *len)
{
	struct hl_pkt_nop n;
	struct hpu_pkt_nop h;

	memcpy(&n, p, sizeof(n));
	if (n.reserved || (n.ctl & ~CTL_COMMON))
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	h.hdr.opcode = opcode == HL_PACKET_NOP ? HPU_PACKET_NOP :
						 HPU_PACKET_STOP;
	h.hdr.size = sizeof(h);
	h.hdr.flags = hfd_hl_hpu_flags(n.ctl);
	memcpy(out, &h, sizeof(h));
	*len = sizeof(h);
	return 0;
}

/**
 * hfd_hl_packets_translate() - validate a Gaudi2 CB and translate it
 * @cb: the CB's bytes (a private copy)
 * @size: bytes at @cb
 * @x: the queue's kind and the SRAM window of the context
 * @out: receives the hpu packets; room for HFD_HL_XLATE_RATIO * @size
 *	bytes
 * @out_len: receives the bytes written at @out
 * @bad_off: NULL, or receives the offset of the first bad packet
 *
 * A packet is bad when its opcode is not served, the sync manager
 * refuses it (hl_sync.c: a register, id or value it does not serve), it
 * runs past @size, a reserved or unsupported bit of its control word is
 * set (predicates, MSG_LONG timestamps, LIN_DMA bf16/fp16, add-offset),
 * a LIN_DMA swaps endianness in a memset or between overlapping ranges, a
 * NOP/STOP's first word is not 0, a MSG_LONG address is not 4-byte
 * aligned or its 4 bytes wrap, a LIN_DMA range wraps, a memset pattern cannot be written in
 * the range's alignment, or a MSG_LONG or LIN_DMA is not on a DMA queue.
 * An address in the SRAM window [@x->sram_base, + @x->sram_size) is moved
 * to the context's SRAM mapping; any other is passed on as a device VA
 * of the context (its MMU faults on what is not mapped).
 *
 * Return: 0, or -EINVAL at the first bad packet (nothing usable at @out).
 */
int hfd_hl_packets_translate(const void *cb, size_t size,
			     const struct hfd_hl_xlate *x, uint8_t *out,
			     size_t *out_len, size_t *bad_off)
{
	const uint8_t *p = cb;
	size_t off = 0, n, len = 0;
	uint32_t ctl, opcode;
	int ret;

	*out_len = 0;
	while (off < size) {
		ret = -EINVAL;
		if (size - off < 8)
			goto bad;
		memcpy(&ctl, p + off + 4, sizeof(ctl));
		opcode = (ctl & HL_PKT_CTL_OPCODE_MASK) >>
			 HL_PKT_CTL_OPCODE_SHIFT;
		if (opcode >= sizeof(pkt_size) || !pkt_size[opcode] ||
		    size - off < pkt_size[opcode])
			goto bad;
		switch (opcode) {
		case HL_PACKET_MSG_LONG:
			ret = msg_long(p + off, x, out + len, &n);
			break;
		case HL_PACKET_LIN_DMA:
			ret = lin_dma(p + off, x, out + len, &n);
			break;
		case HL_PACKET_MSG_SHORT:
			ret = hfd_hl_sync_msg_short(p + off, x, out + len, &n);
			break;
		case HL_PACKET_FENCE:
			ret = hfd_hl_sync_fence(p + off, x, out + len, &n);
			break;
		case HL_PACKET_ARB_POINT:
			ret = hfd_hl_sync_arb_point(p + off, &n);
			break;
		default:
			ret = nop_stop(p + off, opcode, out + len, &n);
			break;
		}
		if (ret)
			goto bad;
		len += n;
		off += pkt_size[opcode];
	}
	*out_len = len;
	return 0;
bad:
	if (bad_off)
		*bad_off = off;
	return ret;
}
