// SPDX-License-Identifier: MIT
/*
 * ring.c - HPU_IOCTL_RING and the user-mode rings of a context
 * (docs/rings.md): registration of the shared region, the ring's
 * references, and teardown. The consumer thread that feeds SQ entries
 * into the CS submission path (cs.c's hfd_cs_submit(), the ioctl's own),
 * completion records and the completed-sequence word, the doorbell and
 * completion futexes, and the ordering of ioctl submissions after the
 * ring's are ring_consumer.c's; ring_internal.h is what the two share.
 *
 * Locks: a ring's consume_lock serializes taking entries (the consumer
 * thread, and an ioctl CS that drains the ring first); it is taken
 * before the context's submit_lock. What completions touch (CQ tail,
 * reserved records, completed_seq, broken) is under the CS state's lock,
 * so an ending posts its record and moves completed_seq together, and
 * UNREGISTER, which clears st->ring under that lock, never races one.
 *
 * Client memory: taking an entry copies its CBs out of the client
 * (process_vm_readv), under the uaccess guard like an ioctl's copies,
 * unless the entry carries them in the ring's CB arena (shared pages,
 * copied like the SQ's slots).
 * The consumer thread takes each entry as a call on the context
 * (hfd_ctx_call_try_begin()), so a release() that comes meanwhile leaves
 * the teardown to the end of the take. A copy the watchdog abandons
 * breaks the ring at once (ring_consumer.c's ring_abandoned(), on the watchdog's thread):
 * an ioctl CS then no longer waits for the ring, and UNREGISTER and
 * release() let the stuck thread go (detach) instead of joining it. The
 * ring holds a reference on its context, and its last reference (the
 * stuck thread's, when it comes back) unmaps it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring_internal.h"

static unsigned int nrings; /* registered rings of the daemon (atomic) */

static bool ring_entries_ok(uint32_t n)
{
	return n >= HPU_RING_MIN_ENTRIES && n <= HPU_RING_MAX_ENTRIES &&
	       !(n & (n - 1));
}

/**
 * hfd_ring_arena_size() - bytes of the CB arena a valid REGISTER asks for
 * @in: the input, checked by hfd_ring_check_register()
 *
 * Return: 0 without HPU_RING_FLAGS_CB_ARENA, else what @in->size has
 * beyond HPU_RING_SIZE().
 */
uint32_t hfd_ring_arena_size(const struct hpu_ring_in *in)
{
	if (!(in->flags & HPU_RING_FLAGS_CB_ARENA))
		return 0;
	return (uint32_t)(in->size -
			  HPU_RING_SIZE(in->sq_slots, in->cq_entries));
}

/**
 * hfd_ring_check_register() - check the values of a REGISTER call
 * @in: the input (unused members already checked to be 0)
 *
 * Return: 0, or -EINVAL for unknown flags, a ring size that is not a
 * power of two within HPU_RING_MIN_ENTRIES..HPU_RING_MAX_ENTRIES, an
 * offset that is not a multiple of HPU_RING_ALIGN, a size other than
 * HPU_RING_SIZE(sq_slots, cq_entries) (with HPU_RING_FLAGS_CB_ARENA:
 * other than that plus a power of two within HPU_RING_CB_ARENA_MIN..
 * HPU_RING_CB_ARENA_MAX), or a descriptor number above INT32_MAX.
 */
int hfd_ring_check_register(const struct hpu_ring_in *in)
{
	uint64_t base, arena;

	if (hfd_check_flags(in->flags, HPU_RING_FLAGS_MASK) ||
	    !ring_entries_ok(in->sq_slots) || !ring_entries_ok(in->cq_entries))
		return -EINVAL;
	if (in->offset % HPU_RING_ALIGN || in->offset > (uint64_t)INT64_MAX ||
	    in->fd > INT32_MAX)
		return -EINVAL;
	base = HPU_RING_SIZE(in->sq_slots, in->cq_entries);
	if (!(in->flags & HPU_RING_FLAGS_CB_ARENA))
		return in->size == base ? 0 : -EINVAL;
	if (in->size < base)
		return -EINVAL;
	arena = in->size - base;
	if (arena < HPU_RING_CB_ARENA_MIN || arena > HPU_RING_CB_ARENA_MAX ||
	    (arena & (arena - 1)))
		return -EINVAL;
	return 0;
}

/*
 * Drop a reference; the last one unmaps the region and lets the context
 * go (the context's accounting was given back at unregister time)
 */
void hfd_ring_put(struct hfd_ring *r)
{
	struct hfd_ctx *ctx = r->ctx;

	if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL))
		return;
	munmap(r->map, r->size);
	__atomic_sub_fetch(&nrings, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_destroy(&r->consume_lock);
	free(r);
	hfd_ctx_put(ctx);
}

static int ring_register(const struct hfd_ioctl_call *call,
			 union hpu_ring_args *args)
{
	struct hpu_ring_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;
	uint32_t arena;
	uint64_t next;
	void *p = NULL;
	int ret;

	ret = hfd_ring_check_register(&in);
	if (ret)
		return ret;
	if (!st || !hfd_device_has_cs(ctx->dev))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&st->lock);
	ret = st->ring || st->ring_busy ? -EBUSY : 0;
	if (!ret)
		st->ring_busy = true;
	pthread_mutex_unlock(&st->lock);
	if (ret)
		return ret;
	if (__atomic_add_fetch(&nrings, 1, __ATOMIC_ACQ_REL) > HFD_MAX_RINGS) {
		ret = -ENOMEM;
		goto err_count;
	}
	ret = hfd_ctx_charge2(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1,
			      HPU_CTX_LIMIT_PINNED_BYTES, in.size);
	if (ret)
		goto err_count;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto err_charge;
	}
	ret = hfd_shm_take_client_fd(ctx, call->pid, (int)in.fd, in.offset,
				     in.size, &p);
	if (ret)
		goto err_free;
	/* the driver's words start from a clean header, the client's too */
	memset(p, 0, HPU_RING_HDR_SIZE);
	r->ctx = ctx;
	r->map = p;
	r->size = in.size;
	r->hdr = p;
	r->sq.slots = (uint8_t *)p + HPU_RING_SQ_OFFSET;
	r->sq.nslots = in.sq_slots;
	r->cq.recs = (struct hpu_ring_cqe *)((uint8_t *)p +
					     HPU_RING_CQ_OFFSET(in.sq_slots));
	r->cq.nentries = in.cq_entries;
	arena = hfd_ring_arena_size(&in);
	if (arena) {
		r->sq.arena =
			(uint8_t *)p +
			HPU_RING_CB_ARENA_OFFSET(in.sq_slots, in.cq_entries);
		r->sq.arena_size = arena;
	}
	/* the registration's and the consumer thread's */
	r->refs = 2;
	pthread_mutex_init(&r->consume_lock, NULL);
	hfd_ctx_get(ctx);

	pthread_mutex_lock(&st->lock);
	next = st->next_seq;
	r->completed = hfd_cs_low_water_locked(st);
	r->gen = ++st->ring_gens;
	r->hdr->completed_seq = r->completed;
	r->hdr->cq_futex = (uint32_t)r->completed;
	r->hdr->flags = HPU_RING_HDR_F_SQ_SEQ | HPU_RING_HDR_F_CQ_EVENT |
			HPU_RING_HDR_F_CPU;
	if (arena) {
		r->hdr->flags |= HPU_RING_HDR_F_CB_ARENA;
		r->hdr->cb_arena_offset = (uint32_t)HPU_RING_CB_ARENA_OFFSET(
			in.sq_slots, in.cq_entries);
		r->hdr->cb_arena_size = arena;
	}
	st->ring = r;
	pthread_mutex_unlock(&st->lock);
	ret = -pthread_create(&r->thread, NULL, hfd_ring_consumer, r);
	pthread_mutex_lock(&st->lock);
	if (ret)
		st->ring = NULL;
	st->ring_busy = false;
	pthread_mutex_unlock(&st->lock);
	if (ret) {
		/* an ioctl may hold a reference meanwhile: the last put frees */
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, in.size);
		hfd_ring_put(r); /* the thread's */
		hfd_ring_put(r);
		return ret;
	}
	memset(&args->out, 0, sizeof(args->out));
	args->out.size = in.size;
	args->out.sq_offset = HPU_RING_SQ_OFFSET;
	args->out.cq_offset = HPU_RING_CQ_OFFSET(in.sq_slots);
	args->out.next_seq = next;
	return 0;

err_free:
	free(r);
err_charge:
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, in.size);
err_count:
	__atomic_sub_fetch(&nrings, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&st->lock);
	st->ring_busy = false;
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/*
 * Stop the consumer at an entry boundary, detach the ring from the
 * context, give back the context's accounting, drop the registration's
 * reference. Waits for a take in progress unless it is stuck in client
 * memory (the watchdog abandoned its copy: the ring broke); the consumer
 * is joined, or left to end by itself when it is stuck or when this runs
 * on it (the teardown that the end of its take started).
 */
static int ring_unregister(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;
	bool join;
	int ret;

	if (!st)
		return -EINVAL;
	pthread_mutex_lock(&st->lock);
	r = st->ring_busy ? NULL : st->ring;
	if (r)
		st->ring_busy = true;
	pthread_mutex_unlock(&st->lock);
	if (!r)
		return -EINVAL;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	hfd_ring_kick(r);
	/* no take starts after this (stop), a live one ends within the
	 * uaccess timeout or is abandoned */
	while ((ret = hfd_ring_lock_consume(r, RING_SLEEP_NS, false)) ==
	       -EAGAIN)
		;
	if (!ret)
		pthread_mutex_unlock(&r->consume_lock);
	join = !__atomic_load_n(&r->stuck, __ATOMIC_ACQUIRE);
	if (pthread_equal(pthread_self(), r->thread))
		join = false;
	if (join)
		pthread_join(r->thread, NULL);
	else
		pthread_detach(r->thread);
	pthread_mutex_lock(&st->lock);
	st->ring = NULL;
	st->ring_busy = false;
	pthread_mutex_unlock(&st->lock);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_SHM_MAPS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, r->size);
	hfd_ring_put(r);
	return 0;
}

/**
 * hfd_ring_stop_ctx() - release(): the consumer takes no more entries and
 * the take in progress, if any, ends first (unless it is stuck in client
 * memory: the release is then left to its end, hfd_ctx_release())
 * @ctx: context being released
 */
void hfd_ring_stop_ctx(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;

	if (!st)
		return;
	pthread_mutex_lock(&st->lock);
	r = st->ring;
	if (r)
		__atomic_add_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&st->lock);
	if (!r)
		return;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	hfd_ring_kick(r);
	if (!hfd_ring_lock_consume(r, RING_DRAIN_WAIT_NS, false))
		pthread_mutex_unlock(&r->consume_lock);
	hfd_ring_put(r);
}

/**
 * hfd_ring_unregister_ctx() - release(): drop the context's rings, if any,
 * before its CSs are aborted (their endings then write no record)
 * @ctx: context being torn down
 */
void hfd_ring_unregister_ctx(struct hfd_ctx *ctx)
{
	ring_unregister(ctx);
}

/**
 * hfd_ioctl_ring() - HPU_IOCTL_RING handler
 * @call: context and requesting thread
 * @data: union hpu_ring_args, updated in place
 *
 * Return: 0 or -errno (docs/rings.md, "Registration").
 */
int hfd_ioctl_ring(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_ring_args *args = data;

	switch (args->in.op) {
	case HPU_RING_OP_REGISTER:
		return ring_register(call, args);
	case HPU_RING_OP_UNREGISTER:
		return ring_unregister(call->ctx);
	default:
		return -EINVAL;
	}
}
