// SPDX-License-Identifier: MIT
/*
 * ring_arena.c - the producer's side of the ring's CB arena (docs/rings.md,
 * "CB arena"): the builder CBs whose bytes may be copied into it, and the
 * arena as a byte ring whose space is given back once the consumer took
 * the entry that references it.
 *
 * Only a builder's CB is copied: the library owns its buffer, which lives
 * until hpu_cb_builder_destroy() (which forgets the CB first). A CB made
 * with hpu_cb_create() on the program's own memory goes around the arena:
 * the driver reads it out of the process as before, so memory the program
 * unmapped is still -EFAULT and never a fault in the library.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_internal.h"

/**
 * hpudrv_ring_arena_size() - the CB arena the next ring registers
 *
 * HPU_RING_CB_ARENA in the environment: 0 turns the arena off, a power of
 * two within HPU_RING_CB_ARENA_MIN..HPU_RING_CB_ARENA_MAX is its size in
 * bytes; unset (or anything else) is RING_ARENA_DEFAULT.
 *
 * Return: bytes, 0 for none.
 */
uint32_t hpudrv_ring_arena_size(void)
{
	const char *env = getenv("HPU_RING_CB_ARENA");
	unsigned long long v;
	char *end;

	if (!env || !*env)
		return RING_ARENA_DEFAULT;
	v = strtoull(env, &end, 0);
	if (*end)
		return RING_ARENA_DEFAULT;
	if (!v)
		return 0;
	if (v < HPU_RING_CB_ARENA_MIN || v > HPU_RING_CB_ARENA_MAX ||
	    (v & (v - 1)))
		return RING_ARENA_DEFAULT;
	return (uint32_t)v;
}

static struct ring_cb **bucket(struct hpudrv_ring *r, uint64_t handle)
{
	return &r->cbs[handle % RING_CB_BUCKETS];
}

/* The builder CB @handle, or NULL (cb_lock held) */
static const struct ring_cb *cb_find(struct hpudrv_ring *r, uint64_t handle)
{
	const struct ring_cb *c;

	for (c = *bucket(r, handle); c; c = c->next)
		if (c->handle == handle)
			return c;
	return NULL;
}

/**
 * hpudrv_ring_cb_add() - a builder registered CB @handle on @ptr: its
 * bytes may go through the CB arena
 * @dev: device
 * @handle: CB handle
 * @ptr: the builder's buffer
 * @size: the CB's size
 *
 * Nothing happens without a ring with an arena (the CB then goes the
 * driver's way, out of the process). Failures only leave it that way.
 */
void hpudrv_ring_cb_add(struct hpu_device *dev, uint64_t handle,
			const void *ptr, uint32_t size)
{
	struct hpudrv_ring *r = hpudrv_ring_get(dev);
	struct ring_cb *c;

	if (!r || !r->arena)
		return;
	c = malloc(sizeof(*c));
	if (!c)
		return;
	c->handle = handle;
	c->ptr = ptr;
	c->size = size;
	pthread_mutex_lock(&r->cb_lock);
	c->next = *bucket(r, handle);
	*bucket(r, handle) = c;
	pthread_mutex_unlock(&r->cb_lock);
}

/**
 * hpudrv_ring_cb_del() - forget CB @handle before its buffer goes
 * @dev: device
 * @handle: CB handle
 */
void hpudrv_ring_cb_del(struct hpu_device *dev, uint64_t handle)
{
	struct hpudrv_ring *r = hpudrv_ring_get(dev);
	struct ring_cb **link, *c;

	/* a dead ring never copies again: its table goes at hpu_close() */
	if (!r || !r->arena)
		return;
	pthread_mutex_lock(&r->cb_lock);
	for (link = bucket(r, handle); (c = *link); link = &c->next) {
		if (c->handle == handle) {
			*link = c->next;
			free(c);
			break;
		}
	}
	pthread_mutex_unlock(&r->cb_lock);
}

/**
 * hpudrv_ring_arena_fini() - free the CB table (hpu_close())
 * @r: ring
 */
void hpudrv_ring_arena_fini(struct hpudrv_ring *r)
{
	struct ring_cb *c;
	unsigned int i;

	for (i = 0; i < RING_CB_BUCKETS; i++) {
		while ((c = r->cbs[i])) {
			r->cbs[i] = c->next;
			free(c);
		}
	}
	pthread_mutex_destroy(&r->cb_lock);
}

/* Give back the space of every entry the consumer took (lock held) */
static void arena_reclaim(struct hpudrv_ring *r)
{
	uint32_t head = __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE);
	unsigned int done = 0;

	while (done < r->npending &&
	       (int32_t)(head - r->pending[done].sq_end) >= 0)
		r->arena_head = r->pending[done++].end;
	if (done == r->npending) {
		r->npending = 0;
		r->arena_head = r->arena_tail;
		return;
	}
	memmove(r->pending, r->pending + done,
		(r->npending - done) * sizeof(r->pending[0]));
	r->npending -= done;
}

/* Bytes chunk @i runs: its CB's, and those @wrap puts around them */
static uint64_t chunk_len(const struct hpu_cs_chunk *chunks,
			  const struct hpudrv_wrap *wrap, unsigned int i)
{
	uint64_t len = chunks[i].cb_size;

	if (wrap)
		len += (uint64_t)wrap[i].npre + wrap[i].npost;
	return len;
}

/*
 * Bytes the chunks run when every chunk's CB is a builder's and big
 * enough (for the wrapped bytes too), else 0 (cb_lock held)
 */
static uint64_t chunks_bytes(struct hpudrv_ring *r,
			     const struct hpu_cs_chunk *chunks,
			     const struct hpudrv_wrap *wrap, unsigned int n)
{
	const struct ring_cb *c;
	uint64_t len = 0, l;
	unsigned int i;

	for (i = 0; i < n; i++) {
		c = cb_find(r, chunks[i].cb_handle);
		l = chunk_len(chunks, wrap, i);
		if (!c || l > c->size || chunks[i].cb_size < 8 ||
		    chunks[i].cb_size % 8 || l % 8)
			return 0;
		len += l;
		if (len > RING_ARENA_SMALL)
			return 0;
	}
	return len;
}

/**
 * hpudrv_ring_arena_put() - copy what a normal CS's chunks run into the CB
 * arena, for an entry that ends at SQ index @sq_end
 * @r: ring (its lock held: the producer)
 * @sq_end: the SQ index one past the entry
 * @chunks: the CS's chunks
 * @wrap: per chunk, bytes run before and after its CB's (NULL: none)
 * @n: their number
 * @offset: receives the arena offset of the bytes (the entry's cb_offset)
 *
 * The bytes go in one piece, chunk after chunk, never across the arena's
 * end (the space up to the end is skipped then), into space no entry the
 * consumer has not taken references.
 *
 * Return: 0 copied; -ENOSPC not now (no arena, too many bytes, no room, a
 * CB that is not a builder's): the entry goes around the arena.
 */
int hpudrv_ring_arena_put(struct hpudrv_ring *r, uint32_t sq_end,
			  const struct hpu_cs_chunk *chunks,
			  const struct hpudrv_wrap *wrap, unsigned int n,
			  uint32_t *offset)
{
	const struct ring_cb *c;
	uint64_t len, pos, skip;
	uint8_t *dst;
	unsigned int i;
	int ret = -ENOSPC;

	if (!r->arena)
		return -ENOSPC;
	if (r->npending)
		arena_reclaim(r);
	if (r->npending == RING_ARENA_PENDING)
		goto out;
	pthread_mutex_lock(&r->cb_lock);
	len = chunks_bytes(r, chunks, wrap, n);
	if (!len)
		goto out_unlock;
	pos = r->arena_tail & (r->arena_size - 1);
	skip = pos + len > r->arena_size ? r->arena_size - pos : 0;
	if (r->arena_tail - r->arena_head + skip + len > r->arena_size)
		goto out_unlock;
	r->arena_tail += skip;
	pos = r->arena_tail & (r->arena_size - 1);
	dst = r->arena + pos;
	for (i = 0; i < n; i++) {
		c = cb_find(r, chunks[i].cb_handle);
		if (wrap && wrap[i].npre) {
			memcpy(dst, wrap[i].pre, wrap[i].npre);
			dst += wrap[i].npre;
		}
		memcpy(dst, c->ptr, chunks[i].cb_size);
		dst += chunks[i].cb_size;
		if (wrap && wrap[i].npost) {
			memcpy(dst, wrap[i].post, wrap[i].npost);
			dst += wrap[i].npost;
		}
	}
	r->arena_tail += len;
	r->pending[r->npending].sq_end = sq_end;
	r->pending[r->npending].end = r->arena_tail;
	r->npending++;
	*offset = (uint32_t)pos;
	ret = 0;
out_unlock:
	pthread_mutex_unlock(&r->cb_lock);
out:
	if (ret)
		r->arena_around++;
	else
		r->arena_entries++;
	return ret;
}
