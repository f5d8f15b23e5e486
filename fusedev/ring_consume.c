// SPDX-License-Identifier: MIT
/*
 * ring_consume.c - the consumer core of the user-mode rings
 * (docs/rings.md, "Validation" and "Errors"): take one entry of a
 * submission ring into daemon memory and check it, and post completion
 * records. Pure (no lock, no allocation, no system call), so the unit
 * tests and the fuzzer drive it with any ring contents.
 *
 * The ring is the client's memory: any byte may change at any time.
 * Nothing is read from it twice: the header slot is copied, everything
 * is decided from the copy, the rest of the entry is copied once, and
 * every slot index is masked with the driver's own ring size.
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"

#define SLOT HPU_RING_SLOT_SIZE

static bool pow2_in_range(uint32_t n)
{
	return n >= HPU_RING_MIN_ENTRIES && n <= HPU_RING_MAX_ENTRIES &&
	       !(n & (n - 1));
}

/* Copy @n slots starting at index @idx (wrapping) into @dst */
static void copy_slots(const struct hfd_ring_sq *sq, uint32_t idx, uint32_t n,
		       void *dst)
{
	const uint8_t *base = sq->slots;
	uint32_t mask = sq->nslots - 1, first = idx & mask;
	uint32_t run = sq->nslots - first < n ? sq->nslots - first : n;

	memcpy(dst, base + (size_t)first * SLOT, (size_t)run * SLOT);
	if (run < n)
		memcpy((uint8_t *)dst + (size_t)run * SLOT, base,
		       (size_t)(n - run) * SLOT);
}

/* Check the copied chunks and WAIT numbers of entry @e (num_slots @n) */
static int check_body(struct hfd_ring_entry *e, uint32_t n, uint32_t num_queues)
{
	const struct hpu_ring_sqe *h = &e->sqe;
	uint64_t nseqs = 0, need;
	const uint64_t *seqs;
	uint32_t i;

	for (i = 0; i < h->num_chunks; i++) {
		const struct hpu_cs_chunk *c = &e->chunks[i];

		/* a WAIT chunk's numbers are in the entry, not behind a pointer */
		if ((h->cs_flags & HPU_CS_FLAGS_WAIT) && c->cb_handle)
			return -EINVAL;
		if (hfd_cs_check_chunk(num_queues, c, h->cs_flags))
			return -EINVAL;
		if (h->cs_flags & HPU_CS_FLAGS_WAIT)
			nseqs += c->cb_size;
	}
	need = 1 + (uint64_t)h->num_chunks +
	       (nseqs + HPU_RING_SEQS_PER_SLOT - 1) / HPU_RING_SEQS_PER_SLOT;
	if (need != n)
		return -EINVAL;
	if (!(h->cs_flags & HPU_CS_FLAGS_WAIT))
		return 0;
	seqs = (const uint64_t *)&e->chunks[h->num_chunks];
	for (i = 0; i < nseqs; i++)
		if (!seqs[i] || seqs[i] == ~(uint64_t)0)
			return -EINVAL;
	/* the padding of the last slot is zero */
	for (; i % HPU_RING_SEQS_PER_SLOT; i++)
		if (seqs[i])
			return -EINVAL;
	e->wait_seqs = seqs;
	e->num_wait_seqs = (uint32_t)nseqs;
	return 0;
}

/*
 * HPU_RING_SQE_F_CB_ARENA: check the copied entry's reference into the
 * CB arena and copy the bytes it names into @scratch (docs/rings.md,
 * "CB arena"). Everything is decided from the copy and the driver's
 * own arena size: one contiguous piece, in 64-bit arithmetic, so no
 * offset or length wraps around the arena or a __u32.
 */
static int take_cb_bytes(const struct hfd_ring_sq *sq,
			 struct hfd_ring_scratch *scratch,
			 struct hfd_ring_entry *e)
{
	const struct hpu_ring_sqe *h = &e->sqe;
	uint64_t off = h->cb_offset, len = 0;
	uint32_t i;

	if (!(h->flags & HPU_RING_SQE_F_CB_ARENA))
		return h->cb_offset ? -EINVAL : 0;
	if (!sq->arena || !sq->arena_size ||
	    (h->cs_flags & (HPU_CS_FLAGS_SIGNAL | HPU_CS_FLAGS_WAIT)) ||
	    off % 8)
		return -EINVAL;
	for (i = 0; i < h->num_chunks; i++)
		len += e->chunks[i].cb_size;
	if (!len || len > HPU_RING_CB_ARENA_MAX_ENTRY ||
	    off + len > sq->arena_size)
		return -EINVAL;
	memcpy(scratch->cb, (const uint8_t *)sq->arena + off, (size_t)len);
	e->cb_bytes = (const uint8_t *)scratch->cb;
	e->cb_len = (uint32_t)len;
	return 0;
}

/**
 * hfd_ring_consume() - take the entry at @head of a submission ring
 * @sq: the ring (the driver's size, the shared slots)
 * @head: the driver's own consumer index
 * @tail: the producer index, read once from the shared header
 * @num_queues: hardware queues of the device (chunk check)
 * @scratch: daemon memory the entry is copied into
 * @e: receives the entry; its pointers point into @scratch
 * @used: receives the slots the entry takes (the consumer advances
 *	@head by them); 0 when nothing is to be consumed
 *
 * The entry's contents are checked with the ioctl path's own checks
 * (hfd_cs_check_args(), hfd_cs_check_chunk()); what needs the context
 * (CB handles, packets, awaited numbers) is the submission path's. An
 * entry with HPU_RING_SQE_F_CB_ARENA has the bytes it references copied
 * out of @sq's CB arena into @scratch (@e->cb_bytes) once its reference
 * is checked against the driver's own arena size.
 *
 * Return: 0: @e is a well-formed CS; -ENODATA: the ring is empty;
 * -EINVAL: the entry is wrong, its CB arena reference included (@e->sqe
 * holds its header, @used its size: the ring goes on after it); -EIO: the ring is broken (@tail
 * more than a ring ahead of @head, or the entry's num_slots is 0, above
 * HPU_RING_MAX_ENTRY_SLOTS, the ring or what was published; also a
 * ring size the driver should never have accepted): @used is 0.
 */
int hfd_ring_consume(const struct hfd_ring_sq *sq, uint32_t head, uint32_t tail,
		     uint32_t num_queues, struct hfd_ring_scratch *scratch,
		     struct hfd_ring_entry *e, uint32_t *used)
{
	uint32_t avail = tail - head, n;
	struct hpu_ring_sqe *h = &e->sqe;
	int ret;

	memset(e, 0, sizeof(*e));
	*used = 0;
	if (!pow2_in_range(sq->nslots) || !sq->slots)
		return -EIO;
	if (avail > sq->nslots)
		return -EIO;
	if (!avail)
		return -ENODATA;
	copy_slots(sq, head, 1, scratch->q);
	memcpy(h, scratch->q, sizeof(*h));
	e->has_sqe = true;
	n = h->num_slots;
	if (!n || n > HPU_RING_MAX_ENTRY_SLOTS || n > sq->nslots || n > avail)
		return -EIO;
	/* framed: whatever follows, the ring goes on after these n slots */
	*used = n;
	if ((h->flags & ~HPU_RING_SQE_FLAGS_MASK) ||
	    hfd_cs_check_args(h->cs_flags, h->num_chunks, h->timeout_ms) ||
	    h->num_chunks > n - 1)
		return -EINVAL;
	copy_slots(sq, head + 1, n - 1, &scratch->q[SLOT / 8]);
	e->chunks = (struct hpu_cs_chunk *)&scratch->q[SLOT / 8];
	ret = check_body(e, n, num_queues);
	if (!ret && take_cb_bytes(sq, scratch, e)) {
		e->arena_err = true;
		ret = -EINVAL;
	}
	if (ret) {
		e->chunks = NULL;
		e->wait_seqs = NULL;
		e->num_wait_seqs = 0;
		e->cb_bytes = NULL;
		e->cb_len = 0;
		return -EINVAL;
	}
	return 0;
}

/**
 * hfd_ring_cq_room() - records the driver may still write
 * @nentries: records of the CQ (the driver's own value)
 * @tail: the driver's own producer index
 * @head: the client's consumer index, read once from the shared header
 *
 * Return: free records (0..@nentries), or -EIO when @head is not within
 * a ring behind @tail (a client that moved it past what was written,
 * or more than a ring back).
 */
int hfd_ring_cq_room(uint32_t nentries, uint32_t tail, uint32_t head)
{
	uint32_t used = tail - head;

	if (!pow2_in_range(nentries) || used > nentries)
		return -EIO;
	return (int)(nentries - used);
}

/**
 * hfd_ring_cq_post() - write one completion record
 * @cq: the ring
 * @tail: the driver's producer index, advanced by one on success; the
 *	caller publishes it (store-release of hpu_ring_hdr.cq_tail)
 * @head: the client's consumer index, read once from the shared header
 * @rec: the record
 *
 * Return: 0; -ENOSPC: no free record (the consumer reserves one per
 * entry, so this means a bug or a client that lied); -EIO: @head out of
 * range (see hfd_ring_cq_room()).
 */
int hfd_ring_cq_post(const struct hfd_ring_cq *cq, uint32_t *tail,
		     uint32_t head, const struct hpu_ring_cqe *rec)
{
	int room = hfd_ring_cq_room(cq->nentries, *tail, head);

	if (room < 0)
		return room;
	if (!room)
		return -ENOSPC;
	memcpy(&cq->recs[*tail & (cq->nentries - 1)], rec, sizeof(*rec));
	(*tail)++;
	return 0;
}
