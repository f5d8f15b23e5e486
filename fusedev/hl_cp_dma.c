// SPDX-License-Identifier: MIT
/*
 * hl_cp_dma.c - CP_DMA of the habanalabs personality (docs/habanalabs.md,
 * "Packets"): a CP_DMA packet makes the QMAN fetch a lower CB (@tsize
 * bytes of packets at @src_addr, in host memory, DRAM or SRAM) and run
 * it. The daemon fetches it at submission, like the CB that holds it,
 * and puts its bytes in place of the packet, so the translation
 * (hl_packets.c) validates and translates the lower packets as the
 * upper ones; a CP_DMA among them is refused there (no nesting). The
 * expansion notes where each lower CB landed: those bytes are
 * translated for the QMAN's lower CP (hfd_hl_xlate.lower_cp: a FENCE
 * there waits on the lower CP's counter, CP 4).
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

/**
 * hfd_hl_put_bytes() - append bytes to a growing buffer
 * @o: the buffer (NULL before the first call; realloc()ed)
 * @n: bytes used
 * @room: bytes allocated
 * @p: the bytes
 * @len: how many
 *
 * The first call allocates even for 0 bytes, so that a non-NULL @o says
 * the buffer was built (a CP_DMA expansion, a CP walk's output).
 *
 * Return: 0, or -ENOMEM (the buffer as it was).
 */
int hfd_hl_put_bytes(uint8_t **o, size_t *n, size_t *room, const void *p,
		     size_t len)
{
	uint8_t *nb;
	size_t want;

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

/* Note that @len bytes at @off of the expansion are a lower CB's */
static int note_lower(struct hfd_hl_lower_cbs *l, size_t off, size_t len)
{
	struct hfd_hl_lower_cb *nr;
	size_t want;

	if (!l)
		return 0;
	if (l->n == l->room) {
		want = l->room ? 2 * l->room : 8;
		nr = realloc(l->r, want * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		l->r = nr;
		l->room = want;
	}
	l->r[l->n].off = off;
	l->r[l->n].len = len;
	l->n++;
	return 0;
}

/* Fetch the lower CB of the CP_DMA at @p and append it */
static int expand_one(const uint8_t *p, hfd_hl_fetch_fn fetch, void *arg,
		      uint32_t *budget, uint8_t **o, size_t *n, size_t *room,
		      struct hfd_hl_lower_cbs *l)
{
	size_t at = *n;
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
		ret = hfd_hl_put_bytes(o, n, room, lower, c.tsize);
	if (!ret)
		ret = note_lower(l, at, c.tsize);
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
 * @lower: NULL, or receives where each lower CB landed in @out (in
 *	order; empty when @out is NULL); on success the caller frees
 *	@lower->r
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
			 size_t *out_size, struct hfd_hl_lower_cbs *lower)
{
	size_t off = 0, done = 0, n = 0, room = 0, len;
	uint8_t *o = NULL;
	uint32_t ctl, opcode;
	int ret = 0;

	*out = NULL;
	*out_size = 0;
	if (lower)
		*lower = (struct hfd_hl_lower_cbs){ 0 };
	while (size - off >= 8) {
		memcpy(&ctl, cb + off + 4, sizeof(ctl));
		opcode = (ctl & HL_PKT_CTL_OPCODE_MASK) >>
			 HL_PKT_CTL_OPCODE_SHIFT;
		len = hfd_hl_packet_size(opcode);
		if (!len || size - off < len)
			break;
		if (opcode == HL_PACKET_CP_DMA) {
			ret = hfd_hl_put_bytes(&o, &n, &room, cb + done,
					       off - done);
			if (!ret)
				ret = expand_one(cb + off, fetch, arg, budget,
						 &o, &n, &room, lower);
			if (ret)
				goto err_free;
			done = off + len;
		}
		off += len;
	}
	if (!o)
		return 0; /* no CP_DMA */
	ret = hfd_hl_put_bytes(&o, &n, &room, cb + done, size - done);
	if (ret)
		goto err_free;
	*out = o;
	*out_size = n;
	return 0;

err_free:
	free(o);
	if (lower) {
		free(lower->r);
		*lower = (struct hfd_hl_lower_cbs){ 0 };
	}
	return ret;
}

/* Translate @len bytes at @cb for the upper or the lower CP, appending */
static int xlate_run(const uint8_t *cb, size_t start, size_t len,
		     const struct hfd_hl_xlate *x, bool lower_cp, uint8_t *out,
		     size_t *out_len, size_t *bad_off)
{
	struct hfd_hl_xlate xl = *x;
	size_t n = 0, bad = 0;
	int ret;

	if (!len)
		return 0;
	xl.lower_cp = lower_cp;
	ret = hfd_hl_packets_translate(cb + start, len, &xl, out + *out_len, &n,
				       &bad);
	if (ret) {
		if (bad_off)
			*bad_off = start + bad;
		return ret;
	}
	*out_len += n;
	return 0;
}

/**
 * hfd_hl_cp_dma_translate() - translate an expanded CB
 * @cb: the CB with its lower CBs in place (hfd_hl_cp_dma_expand())
 * @size: bytes at @cb
 * @lower: where the lower CBs are in @cb (in order, not overlapping)
 * @x: the chunk's translation state (its lower_cp is not used)
 * @out: receives the hpu packets; room for HFD_HL_XLATE_RATIO * @size
 *	bytes
 * @out_len: receives the bytes written at @out
 * @bad_off: NULL, or receives the offset in @cb of the first bad packet
 *
 * The bytes of the CB itself are translated as the QMAN's upper CP
 * runs them, each lower CB's as its lower CP does (a FENCE there waits
 * on the lower CP's counter), each run of bytes on its own: a packet
 * never spans a lower CB's edge.
 *
 * Return: 0, or -EINVAL at the first bad packet (nothing usable at @out).
 */
int hfd_hl_cp_dma_translate(const uint8_t *cb, size_t size,
			    const struct hfd_hl_lower_cbs *lower,
			    const struct hfd_hl_xlate *x, uint8_t *out,
			    size_t *out_len, size_t *bad_off)
{
	size_t pos = 0, i;
	int ret = 0;

	*out_len = 0;
	for (i = 0; i < lower->n && !ret; i++) {
		const struct hfd_hl_lower_cb *r = &lower->r[i];

		if (r->off < pos || r->off > size || r->len > size - r->off)
			return -EINVAL;
		ret = xlate_run(cb, pos, r->off - pos, x, false, out, out_len,
				bad_off);
		if (!ret)
			ret = xlate_run(cb, r->off, r->len, x, true, out,
					out_len, bad_off);
		pos = r->off + r->len;
	}
	if (!ret)
		ret = xlate_run(cb, pos, size - pos, x, false, out, out_len,
				bad_off);
	if (ret)
		*out_len = 0;
	return ret;
}
