// SPDX-License-Identifier: MIT
/*
 * hl_restore.c - a CB an execute chunk fetches, as the same CS's restore
 * chunks will have left it (docs/habanalabs.md, "CBs the restore chunks
 * write").
 *
 * The personality fetches and validates every CB of a CS at submission,
 * before any engine runs (hl_cs.c). hl-thunk's tests copy an engine's CB
 * (or a CP_DMA's lower CB) into SRAM with a LIN_DMA of the CS's restore
 * chunk and run it from there in the same CS: when it is fetched, the
 * copy has not run yet. So the fetch of an execute chunk's CB reads the
 * memory as it is, then lays over it, in submission order, what each
 * LIN_DMA and MEMSET of the restore chunks writes into the CB's range:
 * the bytes of a copy's source (read at submission, as every CB is) or
 * a memset's pattern. The restore packets still run as submitted.
 *
 * A pure function of the restore chunks' translated hpu packets: no
 * FUSE, no model; the sources are read through the caller's fetch.
 */
#include <errno.h>
#include <string.h>

#include "hl_personality.h"
#include "hpu_packets.h"

/* [a, a + n) and [b, b + m) overlap: the common part's start and length */
static bool overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m,
		    uint64_t *start, uint64_t *len)
{
	uint64_t lo = a > b ? a : b;
	uint64_t hi_a = a + n, hi_b = b + m;
	uint64_t hi = hi_a < hi_b ? hi_a : hi_b;

	if (!n || !m || hi <= lo)
		return false;
	*start = lo;
	*len = hi - lo;
	return true;
}

/* A MEMSET's pattern over [va, va + size) in @buf */
static void lay_memset(const struct hpu_pkt_memset *m, uint64_t va,
		       uint32_t size, uint8_t *buf)
{
	static const uint32_t width[] = { 1, 2, 4, 8 };
	uint32_t w = width[(m->hdr.flags & HPU_MEMSET_F_ELEM_MASK) >> 8];
	uint64_t start, len, i, k;

	if (!overlap(m->dst_addr, m->size, va, size, &start, &len))
		return;
	for (i = 0; i < len; i++) {
		k = (start + i - m->dst_addr) % w;
		buf[start - va + i] = (uint8_t)(m->value >> (8 * k));
	}
}

/* A copy's source bytes over [va, va + size) in @buf */
static int lay_copy(const struct hpu_pkt_lin_dma *d, uint64_t va, uint32_t size,
		    uint8_t *buf, hfd_hl_fetch_fn fetch, void *arg,
		    uint64_t *budget)
{
	uint64_t start, len;

	if (!overlap(d->dst_addr, d->size, va, size, &start, &len))
		return 0;
	/* a swapping copy into a CB is not forwarded (hl-thunk has none) */
	if (d->hdr.flags & HPU_LIN_DMA_F_SWAP_MASK)
		return -EINVAL;
	if (len > *budget)
		return -E2BIG;
	*budget -= len;
	return fetch(arg, d->src_addr + (start - d->dst_addr), (uint32_t)len,
		     buf + (start - va));
}

/**
 * hfd_hl_restore_overlay() - lay the restore chunks' writes over a CB
 * @pkts: the restore chunks' hpu packets (hfd_hl_packets_translate()'s
 *	output, chunk after chunk), in submission order
 * @len: bytes at @pkts
 * @va: the CB's device VA, as the packets' addresses (the SRAM window
 *	moved to the context's mapping: hfd_hl_sram_xlate())
 * @size: the CB's bytes (at most HL_MAX_CB_SIZE)
 * @buf: the CB's bytes as memory holds them now; where a restore LIN_DMA
 *	or MEMSET writes, replaced by what it writes
 * @fetch: reads @len bytes at a copy's source VA (the context's host
 *	mappings or device memory)
 * @arg: @fetch's argument
 * @budget: the work the CS may still spend on overlays (all its fetches
 *	together): each packet of @pkts looked at costs 1, each byte
 *	fetched 1; decreased here
 *
 * A copy's source is read as it is at the call (a source that an earlier
 * restore packet writes is not forwarded in turn). Bounded: one pass over
 * @pkts, at most @size bytes fetched per copy that writes into the CB,
 * and @budget over all calls of a CS.
 *
 * Return: 0; -EINVAL when a swapping copy writes into the CB, or @pkts
 * is not a packet stream; -E2BIG when @budget runs out; @fetch's -errno
 * (the CB cannot run).
 */
int hfd_hl_restore_overlay(const uint8_t *pkts, size_t len, uint64_t va,
			   uint32_t size, void *buf, hfd_hl_fetch_fn fetch,
			   void *arg, uint64_t *budget)
{
	struct hpu_pkt_lin_dma d;
	struct hpu_pkt_memset m;
	struct hpu_pkt_hdr h;
	size_t off = 0;
	int ret;

	if (va + size < va)
		return -EINVAL;
	while (off < len) {
		if (len - off < sizeof(h))
			return -EINVAL;
		memcpy(&h, pkts + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return -EINVAL;
		if (!*budget)
			return -E2BIG;
		(*budget)--;
		if (h.opcode == HPU_PACKET_LIN_DMA && h.size == sizeof(d)) {
			memcpy(&d, pkts + off, sizeof(d));
			ret = lay_copy(&d, va, size, buf, fetch, arg, budget);
			if (ret)
				return ret;
		} else if (h.opcode == HPU_PACKET_MEMSET &&
			   h.size == sizeof(m)) {
			memcpy(&m, pkts + off, sizeof(m));
			lay_memset(&m, va, size, buf);
		}
		off += h.size;
	}
	return 0;
}
