// SPDX-License-Identifier: MIT
/*
 * hl_cp_dma.c - CP_DMA of the habanalabs personality (docs/habanalabs.md,
 * "Packets"): a CP_DMA packet makes the QMAN fetch a lower CB (@tsize
 * bytes of packets at @src_addr, in host memory, DRAM or SRAM) and run
 * it. The daemon fetches it at submission, like the CB that holds it,
 * and puts its bytes in place of the packet, so the translation
 * (hl_packets.c) validates and translates the lower packets as the
 * upper ones; a CP_DMA among them is refused there (no nesting).
 *
 * Bounds: one lower CB at most HL_MAX_CB_SIZE bytes, all lower CBs of a
 * CS together at most HFD_HL_CP_DMA_MAX bytes (the caller's budget).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"

_Static_assert(sizeof(struct hl_pkt_cp_dma) == 16, "CP_DMA is 16 bytes");

/* Control bits a CP_DMA may carry: opcode, EB, MB, upper CP (pred 0) */
#define CP_DMA_ALLOWED                                            \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_MB | \
	 HL_CP_DMA_CTL_UPPER_CP)

/* Append @len bytes to the growing buffer @o (@n used, @room) */
static int put(uint8_t **o, size_t *n, size_t *room, const void *p, size_t len)
{
	uint8_t *nb;
	size_t want;

	/* the first call allocates even for 0 bytes: @o marks a CP_DMA */
	if (!*room || len > *room - *n) {
		want = *room ? *room : 256;
		while (want - *n < len)
			want *= 2;
		nb = realloc(*o, want);
		if (!nb)
			return -ENOMEM;
		*o = nb;
		*room = want;
	}
	if (len)
		memcpy(*o + *n, p, len);
	*n += len;
	return 0;
}

/* Fetch the lower CB of the CP_DMA at @p and append it */
static int expand_one(const uint8_t *p, hfd_hl_fetch_fn fetch, void *arg,
		      uint32_t *budget, uint8_t **o, size_t *n, size_t *room)
{
	struct hl_pkt_cp_dma c;
	uint8_t *lower;
	int ret;

	memcpy(&c, p, sizeof(c));
	if ((c.ctl & ~CP_DMA_ALLOWED) || c.tsize > HL_MAX_CB_SIZE ||
	    c.tsize > *budget || c.src_addr + c.tsize < c.src_addr)
		return -EINVAL;
	if (!c.tsize)
		return 0;
	lower = malloc(c.tsize);
	if (!lower)
		return -ENOMEM;
	ret = fetch(arg, c.src_addr, c.tsize, lower);
	if (!ret)
		ret = put(o, n, room, lower, c.tsize);
	free(lower);
	if (!ret)
		*budget -= c.tsize;
	return ret;
}

/**
 * hfd_hl_cp_dma_expand() - put each CP_DMA's lower CB in its place
 * @cb: the CB's bytes
 * @size: bytes at @cb
 * @fetch: reads the lower CBs (the CS's context's memory)
 * @arg: for @fetch
 * @budget: lower-CB bytes the CS may still fetch; lowered by what this
 *	fetches
 * @out: NULL when @cb has no CP_DMA (run @cb as it is), else a buffer
 *	the caller frees: @cb with every CP_DMA replaced by its lower CB
 * @out_size: bytes at @out
 *
 * The walk stops at a packet whose opcode has no size (the translation
 * refuses it); what follows is copied as it is.
 *
 * Return: 0; -EINVAL for a CP_DMA with a predicate or reserved bits, a
 * lower CB above HL_MAX_CB_SIZE or the budget, or a wrapping range;
 * @fetch's error (-EFAULT: not memory of the context); -ENOMEM.
 */
int hfd_hl_cp_dma_expand(const uint8_t *cb, size_t size, hfd_hl_fetch_fn fetch,
			 void *arg, uint32_t *budget, uint8_t **out,
			 size_t *out_size)
{
	size_t off = 0, done = 0, n = 0, room = 0, len;
	uint8_t *o = NULL;
	uint32_t ctl, opcode;
	int ret = 0;

	*out = NULL;
	*out_size = 0;
	while (size - off >= 8) {
		memcpy(&ctl, cb + off + 4, sizeof(ctl));
		opcode = (ctl & HL_PKT_CTL_OPCODE_MASK) >>
			 HL_PKT_CTL_OPCODE_SHIFT;
		len = hfd_hl_packet_size(opcode);
		if (!len || size - off < len)
			break;
		if (opcode == HL_PACKET_CP_DMA) {
			ret = put(&o, &n, &room, cb + done, off - done);
			if (!ret)
				ret = expand_one(cb + off, fetch, arg, budget,
						 &o, &n, &room);
			if (ret)
				goto err_free;
			done = off + len;
		}
		off += len;
	}
	if (!o)
		return 0; /* no CP_DMA */
	ret = put(&o, &n, &room, cb + done, size - done);
	if (ret)
		goto err_free;
	*out = o;
	*out_size = n;
	return 0;

err_free:
	free(o);
	return ret;
}
