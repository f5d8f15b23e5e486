// SPDX-License-Identifier: MIT
/*
 * fuzz_ring.c - libFuzzer target of the ring consumer core
 * (fusedev/ring_consume.c, docs/rings.md "Validation").
 *
 * Input: a 16-byte preamble (ring size exponent, queue count, the
 * consumer's head, how far the producer's tail is ahead of it, the
 * client's CQ head offset, the CB arena's size: none or 4 KiB..1 MiB),
 * then the SQ's contents, then the arena's. The slots and the arena
 * live in heap buffers of exactly their sizes, so a read outside either
 * is an AddressSanitizer report. The consumer takes entries until the
 * ring is empty or broken; every answer must be a documented one, every
 * accepted entry must satisfy the rules independently re-checked here
 * (an arena reference within the arena, its bytes copied into the
 * scratch buffer), and the head never passes the tail. Then completion
 * records are posted into a CQ whose client head comes from the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seed.h"
#include "hpu_fused.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define PRE 16

struct pre {
	uint8_t order;	/* ring of 16 << (order % 7) slots */
	uint8_t queues; /* the device's queues: 1 + queues % 64 */
	uint16_t ahead; /* tail - head: mostly within a ring, sometimes not */
	uint32_t head;
	uint32_t cq_head_off;
	uint8_t arena; /* 0: none, else 4096 << ((arena - 1) % 9) bytes */
};

/* An accepted entry's CB arena reference, re-checked */
static void check_arena(const struct hfd_ring_entry *e,
			const struct hfd_ring_sq *sq,
			const struct hfd_ring_scratch *s)
{
	uint64_t len = 0;
	uint32_t i;

	if (!(e->sqe.flags & HPU_RING_SQE_F_CB_ARENA)) {
		if (e->sqe.cb_offset || e->cb_bytes || e->cb_len)
			abort();
		return;
	}
	if (!sq->arena || !sq->arena_size ||
	    (e->sqe.cs_flags & (HPU_CS_FLAGS_SIGNAL | HPU_CS_FLAGS_WAIT)) ||
	    e->sqe.cb_offset % 8)
		abort();
	for (i = 0; i < e->sqe.num_chunks; i++)
		len += e->chunks[i].cb_size;
	if (!len || len != e->cb_len || len > HPU_RING_CB_ARENA_MAX_ENTRY ||
	    (uint64_t)e->sqe.cb_offset + len > sq->arena_size)
		abort();
	if (e->cb_bytes != (const uint8_t *)s->cb ||
	    memcmp(e->cb_bytes, (const uint8_t *)sq->arena + e->sqe.cb_offset,
		   len))
		abort();
}

static void check_entry(const struct hfd_ring_entry *e, uint32_t used,
			uint32_t nq, const struct hfd_ring_scratch *s)
{
	const uint8_t *lo = (const uint8_t *)s->q, *hi = lo + sizeof(s->q);
	uint64_t nseqs = 0;
	uint32_t i;

	if (!e->has_sqe || !e->chunks || e->sqe.num_slots != used)
		abort();
	if ((const uint8_t *)e->chunks < lo ||
	    (const uint8_t *)(e->chunks + e->sqe.num_chunks) > hi)
		abort();
	if (!e->sqe.num_chunks || e->sqe.num_chunks > HPU_MAX_JOBS_PER_CS ||
	    (e->sqe.flags & ~HPU_RING_SQE_FLAGS_MASK) ||
	    (e->sqe.cs_flags & ~HPU_CS_FLAGS_MASK) ||
	    e->sqe.timeout_ms > HPU_CS_TIMEOUT_MAX_MS)
		abort();
	for (i = 0; i < e->sqe.num_chunks; i++) {
		const struct hpu_cs_chunk *c = &e->chunks[i];

		if (c->queue_index >= nq || c->flags || c->pad || c->reserved)
			abort();
		if (e->sqe.cs_flags & HPU_CS_FLAGS_WAIT) {
			if (c->cb_handle || !c->cb_size ||
			    c->cb_size > HPU_WAIT_MULTI_CS_MAX)
				abort();
			nseqs += c->cb_size;
		} else if (e->sqe.cs_flags & HPU_CS_FLAGS_SIGNAL) {
			if (c->cb_handle || c->cb_size)
				abort();
		} else if (c->cb_size < 8 || c->cb_size % 8) {
			abort();
		}
	}
	if (used != 1 + e->sqe.num_chunks + (nseqs + 3) / 4)
		abort();
	if (e->num_wait_seqs != nseqs)
		abort();
	if (nseqs) {
		if ((const uint8_t *)e->wait_seqs < lo ||
		    (const uint8_t *)(e->wait_seqs + nseqs) > hi)
			abort();
		for (i = 0; i < nseqs; i++)
			if (!e->wait_seqs[i] || e->wait_seqs[i] == ~0ULL)
				abort();
	} else if (e->wait_seqs) {
		abort();
	}
}

static void post_completions(uint32_t n, uint32_t head_off, uint32_t count)
{
	struct hpu_ring_cqe *recs = calloc(n, sizeof(*recs));
	struct hfd_ring_cq cq = { .recs = recs, .nentries = n };
	struct hpu_ring_cqe rec = { .seq = 1 };
	uint32_t tail = head_off * 7919U, head = tail - head_off, i;
	int room, ret;

	if (!recs)
		return;
	room = hfd_ring_cq_room(n, tail, head);
	if (room != -EIO && (room < 0 || room > (int)n))
		abort();
	for (i = 0; i < count; i++) {
		uint32_t before = tail;

		ret = hfd_ring_cq_post(&cq, &tail, head, &rec);
		if (ret == 0 ? tail != before + 1 : tail != before)
			abort();
		if (ret && ret != -ENOSPC && ret != -EIO)
			abort();
		if ((ret == -EIO) != (room == -EIO))
			abort();
		if (ret)
			break;
	}
	free(recs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hfd_ring_scratch scratch;
	struct hfd_ring_entry e;
	struct hfd_ring_sq sq;
	uint32_t nslots, nq, head, tail, used, taken = 0;
	uint8_t *mem, *arena = NULL;
	size_t bytes, arena_bytes = 0;
	struct pre p;
	int ret;

	if (size < PRE)
		return 0;
	p.order = data[0];
	p.queues = data[1];
	memcpy(&p.ahead, data + 2, 2);
	memcpy(&p.head, data + 4, 4);
	memcpy(&p.cq_head_off, data + 8, 4);
	p.arena = data[12];
	data += PRE;
	size -= PRE;

	nslots = 16U << (p.order % 7);
	nq = 1 + p.queues % 64;
	bytes = (size_t)nslots * HPU_RING_SLOT_SIZE;
	mem = calloc(1, bytes);
	if (!mem)
		return 0;
	memcpy(mem, data, size < bytes ? size : bytes);
	sq.slots = mem;
	sq.nslots = nslots;
	sq.arena = NULL;
	sq.arena_size = 0;
	if (p.arena) {
		arena_bytes = (size_t)HPU_RING_CB_ARENA_MIN
			      << ((p.arena - 1) % 9);
		arena = calloc(1, arena_bytes);
		if (!arena) {
			free(mem);
			return 0;
		}
		if (size > bytes)
			memcpy(arena, data + bytes,
			       size - bytes < arena_bytes ? size - bytes :
							    arena_bytes);
		sq.arena = arena;
		sq.arena_size = (uint32_t)arena_bytes;
	}
	head = p.head;
	/* mostly a tail within a ring of the head; the top bit: anything */
	tail = p.ahead & 0x8000 ? head + (p.ahead & 0x7fff) * 0x10001U :
				  head + p.ahead % (nslots + 1);

	for (;;) {
		ret = hfd_ring_consume(&sq, head, tail, nq, &scratch, &e,
				       &used);
		if (ret == 0) {
			if (e.arena_err)
				abort();
			check_entry(&e, used, nq, &scratch);
			check_arena(&e, &sq, &scratch);
		} else if (ret == -EINVAL) {
			if (!e.has_sqe || !used || e.chunks || e.wait_seqs ||
			    e.cb_bytes || e.cb_len)
				abort();
			/* only an entry that names the arena is its error */
			if (e.arena_err &&
			    !(e.sqe.flags & HPU_RING_SQE_F_CB_ARENA) &&
			    !e.sqe.cb_offset)
				abort();
		}
		if (ret == -ENODATA || ret == -EIO) {
			if (used)
				abort();
			if (ret == -ENODATA && head != tail)
				abort();
			break;
		}
		if (ret != 0 && ret != -EINVAL)
			abort();
		if (used > tail - head || used > HPU_RING_MAX_ENTRY_SLOTS)
			abort();
		head += used;
		taken += used;
		if (taken > nslots)
			abort();
	}
	free(mem);
	free(arena);
	post_completions(nslots, p.cq_head_off % (2 * nslots + 2),
			 p.order >> 3);
	return 0;
}

/*
 * Seed: two CSs with their CB bytes in a 4 KiB arena (the second one at
 * its very end), then one reaching past it
 */
static void arena_seed(const char *dir)
{
	static uint8_t buf[PRE + 16 * HPU_RING_SLOT_SIZE + 4096];
	struct hpu_ring_sqe h = { .user_data = 1,
				  .num_slots = 2,
				  .num_chunks = 1,
				  .flags = HPU_RING_SQE_F_CB_ARENA };
	struct hpu_cs_chunk c = { .cb_handle = 1, .cb_size = 64 };
	uint16_t ahead = 6;
	uint32_t slot = 0;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	buf[1] = 7;
	memcpy(buf + 2, &ahead, 2);
	buf[12] = 1; /* a 4 KiB arena */
	for (i = 0; i < 4096; i++)
		buf[PRE + 16 * HPU_RING_SLOT_SIZE + i] = (uint8_t)i;
#define PUT(x)                                                  \
	memcpy(buf + PRE + (slot++) * HPU_RING_SLOT_SIZE, &(x), \
	       HPU_RING_SLOT_SIZE)
	h.cb_offset = 128;
	PUT(h);
	PUT(c);
	h.cb_offset = 4096 - 64;
	PUT(h);
	PUT(c);
	h.cb_offset = 4096 - 56;
	PUT(h);
	PUT(c);
#undef PUT
	fuzz_seed_add(dir, "cs-arena", buf, sizeof(buf));
}

/* Seeds: a CS, a SIGNAL, a WAIT, wrapping at the end of a 16-slot ring */
static void seeds(const char *dir)
{
	uint8_t buf[PRE + 16 * HPU_RING_SLOT_SIZE];
	struct hpu_ring_sqe h = { .user_data = 1 };
	struct hpu_cs_chunk c = { .cb_handle = 1, .cb_size = 64 };
	uint64_t seqs[4] = { 1, 2, 3, 0 };
	uint32_t head = 14, slot = 14;
	uint16_t ahead = 10;

	memset(buf, 0, sizeof(buf));
	buf[0] = 0;
	buf[1] = 7;
	memcpy(buf + 2, &ahead, 2);
	memcpy(buf + 4, &head, 4);
#define PUT(x)                                                       \
	memcpy(buf + PRE + (slot++ % 16) * HPU_RING_SLOT_SIZE, &(x), \
	       HPU_RING_SLOT_SIZE)
	h.num_slots = 3;
	h.num_chunks = 2;
	PUT(h);
	PUT(c);
	c.queue_index = 3;
	PUT(c);
	h.num_slots = 2;
	h.num_chunks = 1;
	h.cs_flags = HPU_CS_FLAGS_SIGNAL;
	memset(&c, 0, sizeof(c));
	PUT(h);
	PUT(c);
	h.num_slots = 3;
	h.cs_flags = HPU_CS_FLAGS_WAIT;
	c.cb_size = 3;
	PUT(h);
	PUT(c);
	PUT(seqs);
#undef PUT
	fuzz_seed_add(dir, "cs-signal-wait", buf, sizeof(buf));
	arena_seed(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	seeds(fuzz_corpus_dir(*argc, *argv));
	return 0;
}
