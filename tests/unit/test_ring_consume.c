// SPDX-License-Identifier: MIT
/*
 * test_ring_consume.c - the ring consumer core (fusedev/ring_consume.c,
 * docs/rings.md "Validation" and "Errors"): good entries of every kind,
 * wrap-around of slots and of the indices, overrun, indices out of
 * range, framing errors that break the ring, content errors that refuse
 * one entry and let the ring go on, zero and huge counts, copies that
 * the client can no longer change, CB arena references (good ones, and
 * out of range, wrapping, misaligned, too large: refused), and the
 * completion ring's room.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hpu_fused.h"

#define NQ 8 /* queues of the pretend device */

/**
 * struct ring - an SQ in exactly nslots * 32 heap bytes (ASan sees any
 * read past it)
 */
struct ring {
	struct hfd_ring_sq sq;
	uint8_t *mem;
	uint32_t tail;
	struct hfd_ring_scratch scratch;
};

static struct ring *ring_new(uint32_t nslots, uint32_t start)
{
	struct ring *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->mem = calloc(nslots, HPU_RING_SLOT_SIZE);
	assert_non_null(r->mem);
	r->sq.slots = r->mem;
	r->sq.nslots = nslots;
	r->tail = start;
	return r;
}

static void ring_free(struct ring *r)
{
	free(r->mem);
	free(r);
}

/* Write one slot at the producer index and advance it */
static void put_slot(struct ring *r, const void *slot)
{
	memcpy(r->mem + (size_t)(r->tail & (r->sq.nslots - 1)) *
				HPU_RING_SLOT_SIZE,
	       slot, HPU_RING_SLOT_SIZE);
	r->tail++;
}

static struct hpu_ring_sqe sqe(uint64_t ud, uint32_t slots, uint32_t chunks,
			       uint32_t cs_flags)
{
	struct hpu_ring_sqe h = { .user_data = ud,
				  .num_slots = slots,
				  .num_chunks = chunks,
				  .cs_flags = cs_flags };
	return h;
}

static struct hpu_cs_chunk chunk(uint64_t handle, uint32_t q, uint32_t size)
{
	struct hpu_cs_chunk c = { .cb_handle = handle,
				  .queue_index = q,
				  .cb_size = size };
	return c;
}

/* A normal CS of @n chunks: CB handle i + 1 on queue i % NQ, 8 * (i + 1) */
static void put_cs(struct ring *r, uint64_t ud, uint32_t n)
{
	struct hpu_ring_sqe h = sqe(ud, 1 + n, n, 0);
	struct hpu_cs_chunk c;
	uint32_t i;

	put_slot(r, &h);
	for (i = 0; i < n; i++) {
		c = chunk(i + 1, i % NQ, 8 * (i + 1));
		put_slot(r, &c);
	}
}

static int take(struct ring *r, uint32_t head, struct hfd_ring_entry *e,
		uint32_t *used)
{
	return hfd_ring_consume(&r->sq, head, r->tail, NQ, &r->scratch, e,
				used);
}

/* The entry's pointers are in the scratch buffer, never in the ring */
static void assert_in_scratch(struct ring *r, const void *p, size_t len)
{
	const uint8_t *s = (const uint8_t *)r->scratch.q;

	assert_true((const uint8_t *)p >= s);
	assert_true((const uint8_t *)p + len <= s + sizeof(r->scratch));
}

/* ------------------------------------------------------------ good */

static void test_empty(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hfd_ring_entry e;
	uint32_t used = 77;

	(void)state;
	assert_int_equal(take(r, 0, &e, &used), -ENODATA);
	assert_int_equal(used, 0);
	assert_false(e.has_sqe);
	ring_free(r);
}

static void test_one_cs(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hfd_ring_entry e;
	uint32_t used, i;

	(void)state;
	put_cs(r, 0x1234, 3);
	assert_int_equal(take(r, 0, &e, &used), 0);
	assert_int_equal(used, 4);
	assert_true(e.has_sqe);
	assert_int_equal(e.sqe.user_data, 0x1234);
	assert_int_equal(e.sqe.num_chunks, 3);
	assert_null(e.wait_seqs);
	assert_int_equal(e.num_wait_seqs, 0);
	assert_in_scratch(r, e.chunks, 3 * sizeof(*e.chunks));
	for (i = 0; i < 3; i++) {
		assert_int_equal(e.chunks[i].cb_handle, i + 1);
		assert_int_equal(e.chunks[i].queue_index, i % NQ);
		assert_int_equal(e.chunks[i].cb_size, 8 * (i + 1));
	}
	/* consumed: the next call finds the ring empty */
	assert_int_equal(take(r, used, &e, &used), -ENODATA);
	ring_free(r);
}

static void test_signal_and_flags(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hpu_ring_sqe h = sqe(9, 3, 2, HPU_CS_FLAGS_SIGNAL);
	struct hpu_cs_chunk c0 = chunk(0, 0, 0), c1 = chunk(0, NQ - 1, 0);
	struct hfd_ring_entry e;
	uint32_t used;

	(void)state;
	h.timeout_ms = HPU_CS_TIMEOUT_MAX_MS;
	put_slot(r, &h);
	put_slot(r, &c0);
	put_slot(r, &c1);
	assert_int_equal(take(r, 0, &e, &used), 0);
	assert_int_equal(used, 3);
	assert_int_equal(e.sqe.cs_flags, HPU_CS_FLAGS_SIGNAL);
	assert_int_equal(e.sqe.timeout_ms, HPU_CS_TIMEOUT_MAX_MS);
	assert_int_equal(e.chunks[1].queue_index, NQ - 1);
	ring_free(r);
}

/* WAIT: 2 chunks of 3 and 2 numbers: 5 numbers in 2 slots, 1 padding */
static void put_wait(struct ring *r, uint64_t pad_value, uint64_t seq0)
{
	struct hpu_ring_sqe h = sqe(5, 1 + 2 + 2, 2, HPU_CS_FLAGS_WAIT);
	struct hpu_cs_chunk c0 = chunk(0, 1, 3), c1 = chunk(0, 2, 2);
	uint64_t s0[4] = { seq0, 11, 12, 20 }, s1[4] = { 21, 0, 0, pad_value };

	s1[1] = pad_value;
	s1[2] = pad_value;
	put_slot(r, &h);
	put_slot(r, &c0);
	put_slot(r, &c1);
	put_slot(r, s0);
	put_slot(r, s1);
}

static void test_wait(void **state)
{
	struct ring *r = ring_new(16, 0);
	static const uint64_t want[] = { 10, 11, 12, 20, 21 };
	struct hfd_ring_entry e;
	uint32_t used;

	(void)state;
	put_wait(r, 0, 10);
	assert_int_equal(take(r, 0, &e, &used), 0);
	assert_int_equal(used, 5);
	assert_int_equal(e.num_wait_seqs, 5);
	assert_non_null(e.wait_seqs);
	assert_in_scratch(r, e.wait_seqs, 5 * sizeof(uint64_t));
	assert_memory_equal(e.wait_seqs, want, sizeof(want));
	assert_int_equal(e.chunks[0].cb_size, 3);
	assert_int_equal(e.chunks[1].cb_size, 2);
	ring_free(r);
}

/* ----------------------------------------------------- wrap-around */

static void test_wrap_slots(void **state)
{
	struct ring *r = ring_new(16, 13);
	struct hfd_ring_entry e;
	uint32_t used, head = 13;

	(void)state;
	/* slots 13, 14, 15, 0, 1: the entry wraps at the end of the ring */
	put_cs(r, 1, 4);
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_int_equal(used, 5);
	assert_int_equal(e.chunks[3].cb_handle, 4);
	assert_int_equal(e.chunks[3].cb_size, 32);
	head += used;
	/* a WAIT whose numbers wrap */
	put_wait(r, 0, 10);
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_int_equal(e.num_wait_seqs, 5);
	assert_int_equal(e.wait_seqs[4], 21);
	ring_free(r);
}

static void test_wrap_indices(void **state)
{
	/* the free-running indices wrap at 2^32 in the middle of an entry */
	struct ring *r = ring_new(16, 0xfffffffeU);
	struct hfd_ring_entry e;
	uint32_t used, head = 0xfffffffeU, n = 0;

	(void)state;
	put_cs(r, 1, 2);
	put_cs(r, 2, 1);
	assert_true(r->tail < head);
	while (!take(r, head, &e, &used)) {
		head += used;
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(head, r->tail);
	assert_int_equal(take(r, head, &e, &used), -ENODATA);
	ring_free(r);
}

static void test_full_ring(void **state)
{
	/* exactly nslots published: every slot is in use, nothing lost */
	struct ring *r = ring_new(16, 100);
	struct hfd_ring_entry e;
	uint32_t used, head = 100, n = 0;

	(void)state;
	put_cs(r, 1, 7);
	put_cs(r, 2, 7);
	assert_int_equal(r->tail - head, 16);
	while (!take(r, head, &e, &used)) {
		assert_int_equal(e.sqe.user_data, ++n);
		head += used;
	}
	assert_int_equal(n, 2);
	ring_free(r);
}

/* ------------------------------------------------ the ring breaks */

static void test_overrun(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hfd_ring_entry e;
	uint32_t used = 5;

	(void)state;
	put_cs(r, 1, 1);
	/* a tail more than a ring ahead, or behind the head */
	r->tail = 17;
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	assert_int_equal(used, 0);
	assert_false(e.has_sqe);
	r->tail = 0xffffffffU;
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	r->tail = 4;
	assert_int_equal(take(r, 5, &e, &used), -EIO);
	ring_free(r);
}

static void check_framing(uint32_t nslots, uint32_t num_slots, uint32_t extra)
{
	struct ring *r = ring_new(nslots, 0);
	struct hpu_ring_sqe h = sqe(42, num_slots, 1, 0);
	struct hpu_cs_chunk c = chunk(1, 0, 8);
	struct hfd_ring_entry e;
	uint32_t used = 5, i;

	put_slot(r, &h);
	for (i = 0; i < extra; i++)
		put_slot(r, &c);
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	assert_int_equal(used, 0);
	/* the header was read: its user_data goes into the -EIO record */
	assert_true(e.has_sqe);
	assert_int_equal(e.sqe.user_data, 42);
	ring_free(r);
}

static void test_framing_errors(void **state)
{
	(void)state;
	/* num_slots 0 */
	check_framing(16, 0, 3);
	/* more than published */
	check_framing(16, 3, 1);
	/* more than the ring */
	check_framing(16, 17, 15);
	/* more than the largest entry, in a ring that could hold it */
	check_framing(1024, HPU_RING_MAX_ENTRY_SLOTS + 1, 1000);
	/* huge */
	check_framing(16, 0xffffffffU, 15);
}

static void test_bad_ring_size(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hfd_ring_entry e;
	uint32_t used;

	(void)state;
	put_cs(r, 1, 1);
	/* sizes the driver never accepts: never used to index */
	r->sq.nslots = 12;
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	r->sq.nslots = 8;
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	r->sq.nslots = 0;
	assert_int_equal(take(r, 0, &e, &used), -EIO);
	ring_free(r);
}

/* ---------------------------------- one entry refused, the ring goes on */

/* Publish @h and @n chunks @c, then a good CS; expect -EINVAL, then it */
static void check_refused(const struct hpu_ring_sqe *h,
			  const struct hpu_cs_chunk *c, uint32_t n,
			  const uint64_t *payload, uint32_t payload_slots)
{
	struct ring *r = ring_new(64, 7);
	struct hfd_ring_entry e;
	uint32_t used, i, head = 7;

	put_slot(r, h);
	for (i = 0; i < n; i++)
		put_slot(r, &c[i]);
	for (i = 0; i < payload_slots; i++)
		put_slot(r, &payload[i * HPU_RING_SEQS_PER_SLOT]);
	put_cs(r, 0xbeef, 2);
	assert_int_equal(take(r, head, &e, &used), -EINVAL);
	assert_true(e.has_sqe);
	assert_int_equal(e.sqe.user_data, h->user_data);
	assert_int_equal(used, h->num_slots);
	assert_null(e.chunks);
	assert_null(e.wait_seqs);
	head += used;
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_int_equal(e.sqe.user_data, 0xbeef);
	ring_free(r);
}

static void test_refused_header(void **state)
{
	struct hpu_cs_chunk c[2] = { chunk(1, 0, 8), chunk(2, 1, 16) };
	struct hpu_ring_sqe h;

	(void)state;
	h = sqe(1, 3, 2, 0);
	h.flags = 2;
	check_refused(&h, c, 2, NULL, 0);
	/* an arena reference on a ring without one (check_refused's) */
	h = sqe(1, 3, 2, 0);
	h.flags = HPU_RING_SQE_F_CB_ARENA;
	check_refused(&h, c, 2, NULL, 0);
	/* an arena offset without the flag */
	h = sqe(2, 3, 2, 0);
	h.cb_offset = 8;
	check_refused(&h, c, 2, NULL, 0);
	/* zero chunks */
	h = sqe(3, 3, 0, 0);
	check_refused(&h, c, 2, NULL, 0);
	/* more chunks than slots */
	h = sqe(4, 3, 3, 0);
	check_refused(&h, c, 2, NULL, 0);
	/* huge chunk count */
	h = sqe(5, 3, 0xffffffffU, 0);
	check_refused(&h, c, 2, NULL, 0);
	h = sqe(6, 3, HPU_MAX_JOBS_PER_CS + 1, 0);
	check_refused(&h, c, 2, NULL, 0);
	/* unknown flag, SIGNAL with WAIT */
	h = sqe(7, 3, 2, 1U << 7);
	check_refused(&h, c, 2, NULL, 0);
	h = sqe(8, 3, 2, HPU_CS_FLAGS_SIGNAL | HPU_CS_FLAGS_WAIT);
	check_refused(&h, c, 2, NULL, 0);
	/* timeout above the maximum */
	h = sqe(9, 3, 2, 0);
	h.timeout_ms = HPU_CS_TIMEOUT_MAX_MS + 1;
	check_refused(&h, c, 2, NULL, 0);
	/* a slot more than the chunks need */
	h = sqe(10, 3, 1, 0);
	check_refused(&h, c, 2, NULL, 0);
}

static void test_refused_chunks(void **state)
{
	struct hpu_ring_sqe h = sqe(20, 3, 2, 0);
	struct hpu_cs_chunk c[2];

	(void)state;
	c[0] = chunk(1, 0, 8);
	c[1] = chunk(2, NQ, 8); /* no such queue */
	check_refused(&h, c, 2, NULL, 0);
	c[1] = chunk(2, 1, 12); /* not a multiple of 8 */
	check_refused(&h, c, 2, NULL, 0);
	c[1] = chunk(2, 1, 0);
	check_refused(&h, c, 2, NULL, 0);
	c[1] = chunk(2, 1, 8);
	c[1].flags = 1;
	check_refused(&h, c, 2, NULL, 0);
	c[1].flags = 0;
	c[1].pad = 1;
	check_refused(&h, c, 2, NULL, 0);
	c[1].pad = 0;
	c[1].reserved = 1;
	check_refused(&h, c, 2, NULL, 0);
	/* SIGNAL chunks name only a queue */
	h = sqe(21, 3, 2, HPU_CS_FLAGS_SIGNAL);
	c[0] = chunk(0, 0, 0);
	c[1] = chunk(0, 1, 8);
	check_refused(&h, c, 2, NULL, 0);
}

static void test_refused_wait(void **state)
{
	struct hpu_ring_sqe h = sqe(30, 3, 1, HPU_CS_FLAGS_WAIT);
	uint64_t p[8] = { 5, 6, 7, 0, 0, 0, 0, 0 };
	struct hpu_cs_chunk c;

	(void)state;
	/* a WAIT chunk's numbers are in the entry: cb_handle must be 0 */
	c = chunk(0x7000, 0, 3);
	check_refused(&h, &c, 1, p, 1);
	/* numbers 0 and ~0 are never valid */
	c = chunk(0, 0, 3);
	p[1] = 0;
	check_refused(&h, &c, 1, p, 1);
	p[1] = ~0ULL;
	check_refused(&h, &c, 1, p, 1);
	/* padding of the last slot not 0 */
	p[1] = 6;
	p[3] = 9;
	check_refused(&h, &c, 1, p, 1);
	p[3] = 0;
	/* num_slots not what the numbers need (one slot short, one more) */
	c = chunk(0, 0, 5);
	p[3] = 8;
	p[4] = 9;
	check_refused(&h, &c, 1, p, 1);
	h.num_slots = 4;
	c = chunk(0, 0, 3);
	p[3] = 0;
	p[4] = 0;
	check_refused(&h, &c, 1, p, 2);
	/* 0 or too many numbers */
	h.num_slots = 3;
	c = chunk(0, 0, 0);
	check_refused(&h, &c, 1, p, 1);
	c = chunk(0, 0, HPU_WAIT_MULTI_CS_MAX + 1);
	check_refused(&h, &c, 1, p, 1);
}

static void test_wait_too_many_chunks(void **state)
{
	/* 65 WAIT chunks of 1 number: 1 + 65 + 17 slots, one chunk too many */
	struct ring *r = ring_new(128, 0);
	struct hpu_ring_sqe h = sqe(40, 1 + 65 + 17, 65, HPU_CS_FLAGS_WAIT);
	struct hpu_cs_chunk c = chunk(0, 0, 1);
	uint64_t p[4] = { 1, 1, 1, 1 };
	struct hfd_ring_entry e;
	uint32_t used, i;

	(void)state;
	put_slot(r, &h);
	for (i = 0; i < 65; i++)
		put_slot(r, &c);
	for (i = 0; i < 17; i++)
		put_slot(r, p);
	assert_int_equal(take(r, 0, &e, &used), -EINVAL);
	assert_int_equal(used, 1 + 65 + 17);
	ring_free(r);
}

static void test_largest_entries(void **state)
{
	/* a 512-chunk CS and a WAIT of 64 x 32 numbers are accepted */
	struct ring *r = ring_new(2048, 0);
	struct hpu_ring_sqe h = sqe(50, HPU_RING_MAX_ENTRY_SLOTS,
				    HPU_WAIT_MAX_CHUNKS, HPU_CS_FLAGS_WAIT);
	struct hpu_cs_chunk c = chunk(0, 3, HPU_WAIT_MULTI_CS_MAX);
	uint64_t p[4] = { 1, 2, 3, 4 };
	struct hfd_ring_entry e;
	uint32_t used, i;

	(void)state;
	put_cs(r, 49, HPU_MAX_JOBS_PER_CS);
	put_slot(r, &h);
	for (i = 0; i < HPU_WAIT_MAX_CHUNKS; i++)
		put_slot(r, &c);
	for (i = 0; i < HPU_RING_MAX_ENTRY_SLOTS - 1 - HPU_WAIT_MAX_CHUNKS; i++)
		put_slot(r, p);
	assert_int_equal(take(r, 0, &e, &used), 0);
	assert_int_equal(used, 1 + HPU_MAX_JOBS_PER_CS);
	assert_int_equal(e.chunks[HPU_MAX_JOBS_PER_CS - 1].cb_handle,
			 HPU_MAX_JOBS_PER_CS);
	assert_int_equal(take(r, used, &e, &used), 0);
	assert_int_equal(used, HPU_RING_MAX_ENTRY_SLOTS);
	assert_int_equal(e.num_wait_seqs,
			 HPU_WAIT_MAX_CHUNKS * HPU_WAIT_MULTI_CS_MAX);
	assert_int_equal(e.wait_seqs[e.num_wait_seqs - 1], 4);
	ring_free(r);
}

static void test_garbage(void **state)
{
	/* random slots: never a crash, never a read outside (ASan), and
	 * every answer is one of the documented ones */
	struct ring *r = ring_new(64, 0);
	struct hfd_ring_entry e;
	uint32_t used, head, i, k;
	unsigned int seed = 12345;
	int ret;

	(void)state;
	for (k = 0; k < 2000; k++) {
		for (i = 0; i < 64 * HPU_RING_SLOT_SIZE; i++) {
			seed = seed * 1103515245U + 12345U;
			r->mem[i] = (uint8_t)(seed >> 16);
			/* mostly small values, so some headers frame */
			if (i % 4 && (seed >> 8) % 4)
				r->mem[i] = 0;
		}
		head = seed;
		r->tail = head + (seed >> 3) % 70;
		ret = take(r, head, &e, &used);
		assert_true(ret == 0 || ret == -EINVAL || ret == -EIO ||
			    ret == -ENODATA);
		if (ret == 0 || ret == -EINVAL) {
			assert_true(used >= 1 && used <= r->tail - head);
		} else {
			assert_int_equal(used, 0);
		}
	}
	ring_free(r);
}

/* ------------------------------------- nothing the client can change */

static void test_copy_is_private(void **state)
{
	struct ring *r = ring_new(16, 0);
	struct hfd_ring_entry e;
	uint32_t used;

	(void)state;
	put_wait(r, 0, 10);
	assert_int_equal(take(r, 0, &e, &used), 0);
	/* the client rewrites the whole ring after the consumer copied it */
	memset(r->mem, 0xff, 16 * HPU_RING_SLOT_SIZE);
	assert_int_equal(e.sqe.num_slots, 5);
	assert_int_equal(e.chunks[0].cb_size, 3);
	assert_int_equal(e.chunks[1].queue_index, 2);
	assert_int_equal(e.wait_seqs[0], 10);
	assert_int_equal(e.wait_seqs[4], 21);
	ring_free(r);
}

/* ------------------------------------------------------- CB arena */

#define ARENA 4096

/* An SQ with a CB arena of exactly ARENA heap bytes (ASan sees past it) */
static struct ring *arena_ring_new(uint8_t **arena)
{
	struct ring *r = ring_new(128, 0);
	uint32_t i;

	*arena = malloc(ARENA);
	assert_non_null(*arena);
	for (i = 0; i < ARENA; i++)
		(*arena)[i] = (uint8_t)(i * 7 + 1);
	r->sq.arena = *arena;
	r->sq.arena_size = ARENA;
	return r;
}

/* A CS of @n chunks (sizes @sizes) with its bytes at arena @off */
static void put_arena_cs(struct ring *r, uint64_t ud, uint32_t off,
			 const uint32_t *sizes, uint32_t n, uint32_t cs_flags)
{
	struct hpu_ring_sqe h = sqe(ud, 1 + n, n, cs_flags);
	struct hpu_cs_chunk c;
	uint32_t i;

	h.flags = HPU_RING_SQE_F_CB_ARENA;
	h.cb_offset = off;
	put_slot(r, &h);
	for (i = 0; i < n; i++) {
		c = cs_flags & HPU_CS_FLAGS_SIGNAL ?
			    chunk(0, i % NQ, 0) :
			    chunk(i + 1, i % NQ, sizes[i]);
		put_slot(r, &c);
	}
}

static void test_arena_cs(void **state)
{
	static const uint32_t sizes[2] = { 24, 40 };
	struct hfd_ring_entry e;
	uint32_t used, head = 0;
	uint8_t *arena;
	struct ring *r = arena_ring_new(&arena);

	(void)state;
	put_arena_cs(r, 5, 64, sizes, 2, 0);
	/* the last bytes of the arena, exactly */
	put_arena_cs(r, 6, ARENA - 64, sizes, 2, 0);
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_int_equal(e.sqe.user_data, 5);
	assert_int_equal(e.cb_len, 64);
	assert_non_null(e.cb_bytes);
	/* a copy in daemon memory, never the arena itself */
	assert_true(e.cb_bytes == (const uint8_t *)r->scratch.cb);
	assert_memory_equal(e.cb_bytes, arena + 64, 64);
	/* the client rewrites the arena after the take: the copy stays */
	memset(arena + 64, 0xee, 64);
	assert_int_not_equal(e.cb_bytes[0], 0xee);
	head += used;
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_int_equal(e.sqe.user_data, 6);
	assert_int_equal(e.cb_len, 64);
	assert_memory_equal(e.cb_bytes, arena + ARENA - 64, 64);
	/* an entry without the flag copies nothing from the arena */
	head += used;
	put_cs(r, 7, 1);
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_null(e.cb_bytes);
	assert_int_equal(e.cb_len, 0);
	ring_free(r);
	free(arena);
}

/* One bad reference: -EINVAL, nothing copied, the next entry is taken */
static void check_arena_refused(uint32_t arena_size, uint32_t off,
				const uint32_t *sizes, uint32_t n,
				uint32_t cs_flags)
{
	static const uint32_t good[1] = { 8 };
	struct hfd_ring_entry e;
	uint32_t used, head = 0;
	uint8_t *arena;
	struct ring *r = arena_ring_new(&arena);

	r->sq.arena_size = arena_size;
	if (!arena_size)
		r->sq.arena = NULL;
	put_arena_cs(r, 0xbad, off, sizes, n, cs_flags);
	put_arena_cs(r, 0x600d, 0, good, 1, 0);
	assert_int_equal(take(r, head, &e, &used), -EINVAL);
	assert_true(e.arena_err);
	assert_int_equal(e.sqe.user_data, 0xbad);
	assert_int_equal(used, 1 + n);
	assert_null(e.chunks);
	assert_null(e.cb_bytes);
	assert_int_equal(e.cb_len, 0);
	head += used;
	r->sq.arena = arena;
	r->sq.arena_size = ARENA;
	assert_int_equal(take(r, head, &e, &used), 0);
	assert_false(e.arena_err);
	assert_int_equal(e.sqe.user_data, 0x600d);
	ring_free(r);
	free(arena);
}

static void test_arena_refused(void **state)
{
	static const uint32_t s64[2] = { 32, 32 }, s8[1] = { 8 };
	static const uint32_t big[2] = { 0x80000000U, 0x80000000U };
	uint32_t many[64], i;

	(void)state;
	/* past the end by 8 bytes; starting past the end */
	check_arena_refused(ARENA, ARENA - 56, s64, 2, 0);
	check_arena_refused(ARENA, ARENA, s8, 1, 0);
	/* offsets that wrap a __u32 or the arena */
	check_arena_refused(ARENA, 0xfffffff8U, s64, 2, 0);
	check_arena_refused(ARENA, 0xffffffffU - 63, s64, 2, 0);
	/* chunk sizes whose __u32 sum wraps to 0 (each is a multiple of 8) */
	check_arena_refused(ARENA, 0, big, 2, 0);
	/* not a multiple of 8 */
	check_arena_refused(ARENA, 4, s8, 1, 0);
	/* a ring without an arena */
	check_arena_refused(0, 0, s8, 1, 0);
	/* SIGNAL and WAIT run no CB bytes */
	check_arena_refused(ARENA, 0, s8, 1, HPU_CS_FLAGS_SIGNAL);
	/* more than HPU_RING_CB_ARENA_MAX_ENTRY in one entry */
	for (i = 0; i < 64; i++)
		many[i] = 1032; /* 66048 bytes in all */
	check_arena_refused(HPU_RING_CB_ARENA_MAX, 0, many, 64, 0);
}

/* The largest reference: HPU_RING_CB_ARENA_MAX_ENTRY bytes, all copied */
static void test_arena_largest(void **state)
{
	struct ring *r = ring_new(128, 0);
	uint8_t *arena = malloc(HPU_RING_CB_ARENA_MAX);
	struct hfd_ring_entry e;
	uint32_t sizes[64], used, i;

	(void)state;
	assert_non_null(arena);
	for (i = 0; i < HPU_RING_CB_ARENA_MAX; i++)
		arena[i] = (uint8_t)(i >> 3);
	r->sq.arena = arena;
	r->sq.arena_size = HPU_RING_CB_ARENA_MAX;
	for (i = 0; i < 64; i++)
		sizes[i] = HPU_RING_CB_ARENA_MAX_ENTRY / 64;
	put_arena_cs(r, 1, HPU_RING_CB_ARENA_MAX - HPU_RING_CB_ARENA_MAX_ENTRY,
		     sizes, 64, 0);
	assert_int_equal(take(r, 0, &e, &used), 0);
	assert_int_equal(e.cb_len, HPU_RING_CB_ARENA_MAX_ENTRY);
	assert_memory_equal(e.cb_bytes,
			    arena + HPU_RING_CB_ARENA_MAX -
				    HPU_RING_CB_ARENA_MAX_ENTRY,
			    HPU_RING_CB_ARENA_MAX_ENTRY);
	ring_free(r);
	free(arena);
}

/* ---------------------------------------------------- completions */

static void test_cq(void **state)
{
	struct hpu_ring_cqe *recs = calloc(16, sizeof(*recs));
	struct hfd_ring_cq cq = { .recs = recs, .nentries = 16 };
	struct hpu_ring_cqe rec = { .user_data = 1, .seq = 1 };
	uint32_t tail = 0xfffffff8U, head = tail, i;

	(void)state;
	assert_non_null(recs);
	assert_int_equal(hfd_ring_cq_room(16, tail, head), 16);
	for (i = 0; i < 16; i++) {
		rec.user_data = i;
		rec.seq = 100 + i;
		assert_int_equal(hfd_ring_cq_post(&cq, &tail, head, &rec), 0);
	}
	/* the index wrapped at 2^32; the records wrapped in the ring */
	assert_int_equal(tail, 8);
	assert_int_equal(recs[0xfffffff8U & 15].seq, 100);
	assert_int_equal(recs[7].seq, 115);
	/* full: never an overwrite of an unread record */
	assert_int_equal(hfd_ring_cq_room(16, tail, head), 0);
	assert_int_equal(hfd_ring_cq_post(&cq, &tail, head, &rec), -ENOSPC);
	assert_int_equal(tail, 8);
	head += 3;
	assert_int_equal(hfd_ring_cq_room(16, tail, head), 3);
	/* a client head past what was written, or a ring back: broken */
	assert_int_equal(hfd_ring_cq_room(16, tail, tail + 1), -EIO);
	assert_int_equal(hfd_ring_cq_room(16, tail, tail - 17), -EIO);
	assert_int_equal(hfd_ring_cq_post(&cq, &tail, tail + 5, &rec), -EIO);
	assert_int_equal(tail, 8);
	/* a size the driver never accepts */
	assert_int_equal(hfd_ring_cq_room(24, 0, 0), -EIO);
	free(recs);
}

/* ----------------------------------------------- REGISTER checks */

static void test_register_checks(void **state)
{
	struct hpu_ring_in in = { .offset = 8192,
				  .size = HPU_RING_SIZE(256, 512),
				  .fd = 3,
				  .op = HPU_RING_OP_REGISTER,
				  .sq_slots = 256,
				  .cq_entries = 512 };
	struct hpu_ring_in b;

	(void)state;
	assert_int_equal(hfd_ring_check_register(&in), 0);
	b = in;
	b.sq_slots = 8;
	b.size = HPU_RING_SIZE(8, 512);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b = in;
	b.sq_slots = 65536 * 2;
	b.size = HPU_RING_SIZE(65536 * 2, 512);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b = in;
	b.cq_entries = 300;
	b.size = HPU_RING_SIZE(256, 300);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b = in;
	b.size += 4096;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b = in;
	b.offset = 100;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b = in;
	b.flags = 2;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	/* the CB arena: a power of two 4 KiB..1 MiB beyond HPU_RING_SIZE() */
	b = in;
	b.flags = HPU_RING_FLAGS_CB_ARENA;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, 4096);
	assert_int_equal(hfd_ring_check_register(&b), 0);
	assert_int_equal(hfd_ring_arena_size(&b), 4096);
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, HPU_RING_CB_ARENA_MAX);
	assert_int_equal(hfd_ring_check_register(&b), 0);
	assert_int_equal(hfd_ring_arena_size(&b), HPU_RING_CB_ARENA_MAX);
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, 2 * HPU_RING_CB_ARENA_MAX);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, 2048);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, 3 * 4096);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	b.size = HPU_RING_SIZE(256, 512) - 4096;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	/* without the flag an arena's size is wrong */
	b.flags = 0;
	b.size = HPU_RING_SIZE_CB_ARENA(256, 512, 4096);
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
	assert_int_equal(hfd_ring_arena_size(&in), 0);
	b = in;
	b.fd = 0x80000000U;
	assert_int_equal(hfd_ring_check_register(&b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one_cs),
		cmocka_unit_test(test_signal_and_flags),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_wrap_slots),
		cmocka_unit_test(test_wrap_indices),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_overrun),
		cmocka_unit_test(test_framing_errors),
		cmocka_unit_test(test_bad_ring_size),
		cmocka_unit_test(test_refused_header),
		cmocka_unit_test(test_refused_chunks),
		cmocka_unit_test(test_refused_wait),
		cmocka_unit_test(test_wait_too_many_chunks),
		cmocka_unit_test(test_largest_entries),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_copy_is_private),
		cmocka_unit_test(test_arena_cs),
		cmocka_unit_test(test_arena_refused),
		cmocka_unit_test(test_arena_largest),
		cmocka_unit_test(test_cq),
		cmocka_unit_test(test_register_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
