// SPDX-License-Identifier: MIT
/*
 * ring.c - the producer side of the user-mode rings (docs/rings.md):
 * REGISTER at open, CS submission into the SQ, waits on completed_seq and
 * the CQ records, fallback to the ioctl path (docs/libhpudrv.md, "Rings").
 *
 * Every entry point answers -ENOTCONN when the ring cannot serve the call
 * (none, broken, a forked child, a number the ring does not know); the
 * caller then takes the ioctl path, which is always correct.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpu_ring.h"
#include "hpudrv_internal.h"

#include "ring_internal.h"

static unsigned int fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_child(void)
{
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
}

static void fork_init(void)
{
	pthread_atfork(NULL, NULL, fork_child);
}

static void ring_debug(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("HPUDRV_DEBUG"))
		return;
	va_start(ap, fmt);
	fprintf(stderr, "libhpudrv: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* 1 + the calling thread's CPU, 0 unknown */
static uint32_t this_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu + 1;
}

bool hpudrv_ring_consumer_here(const struct hpudrv_ring *r)
{
	uint32_t c;

	if (!(r->hdr_flags & HPU_RING_HDR_F_CPU))
		return false;
	c = __atomic_load_n(&r->hdr->consumer_cpu, __ATOMIC_RELAXED);
	return c && c == this_cpu();
}

uint64_t hpudrv_ring_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

long hpudrv_ring_futex(uint32_t *word, int op, uint32_t val, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	/* shared futexes: the page is the driver's too */
	return syscall(SYS_futex, word, op, val, op == FUTEX_WAIT ? &ts : NULL,
		       NULL, 0);
}

static bool ring_enabled(void)
{
	const char *env = getenv("HPU_RING");

	return !env || strcmp(env, "0") != 0;
}

/* HPU_RING_ASYNC=0: stream submissions wait for the take too */
static bool ring_async_enabled(void)
{
	const char *env = getenv("HPU_RING_ASYNC");

	return !env || strcmp(env, "0") != 0;
}

static int ring_ioctl(struct hpu_device *dev, union hpu_ring_args *a)
{
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_RING, a);
}

static int ring_memfd(size_t size)
{
	int m = memfd_create("hpudrv_ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (m < 0)
		return -errno;
	if (ftruncate(m, (off_t)size) ||
	    fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		int ret = -errno;

		close(m);
		return ret;
	}
	return m;
}

/*
 * Map and REGISTER a ring pair of @r->size bytes, @arena of them the CB
 * arena after the CQ (0: none)
 */
static int ring_register(struct hpu_device *dev, struct hpudrv_ring *r,
			 uint32_t arena)
{
	union hpu_ring_args a;
	int m, ret;

	m = ring_memfd(r->size);
	if (m < 0)
		return m;
	r->map = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	/* a forked child has no business with the parent's ring */
	madvise(r->map, r->size, MADV_DONTFORK);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_REGISTER;
	a.in.fd = (uint32_t)m;
	a.in.size = r->size;
	a.in.sq_slots = RING_SQ_SLOTS;
	a.in.cq_entries = RING_CQ_ENTRIES;
	a.in.flags = arena ? HPU_RING_FLAGS_CB_ARENA : 0;
	ret = ring_ioctl(dev, &a);
	if (ret)
		goto err_unmap;
	if (a.out.size != r->size || a.out.sq_offset != HPU_RING_SQ_OFFSET ||
	    a.out.cq_offset != HPU_RING_CQ_OFFSET(RING_SQ_SLOTS)) {
		ret = -EPROTO;
		goto err_unregister;
	}
	close(m);
	r->hdr = r->map;
	r->sq = (uint8_t *)r->map + a.out.sq_offset;
	r->cq = (struct hpu_ring_cqe *)((uint8_t *)r->map + a.out.cq_offset);
	r->hdr_flags = __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED) &
		       (HPU_RING_HDR_F_SQ_SEQ | HPU_RING_HDR_F_CQ_EVENT |
			HPU_RING_HDR_F_CB_ARENA | HPU_RING_HDR_F_CPU);
	/* the arena where it was asked for, else none (the CBs go around) */
	if (arena && (r->hdr_flags & HPU_RING_HDR_F_CB_ARENA) &&
	    r->hdr->cb_arena_offset ==
		    HPU_RING_CB_ARENA_OFFSET(RING_SQ_SLOTS, RING_CQ_ENTRIES) &&
	    r->hdr->cb_arena_size == arena) {
		r->arena = (uint8_t *)r->map + r->hdr->cb_arena_offset;
		r->arena_size = arena;
	}
	r->first_seq = a.out.next_seq;
	r->next_seq = a.out.next_seq;
	return 0;

err_unregister:
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_UNREGISTER;
	ring_ioctl(dev, &a);
err_unmap:
	munmap(r->map, r->size);
err_close:
	close(m);
	return ret;
}

/* The context's cs_in_flight limit, or the daemon's default */
static uint32_t ctx_in_flight(struct hpu_device *dev)
{
	struct hpu_info_ctx_limits l;
	uint64_t lim = 1024;

	if (!hpudrv_info(dev->fd, HPU_INFO_CTX_LIMITS, 0, &l, sizeof(l)) &&
	    l.num_limits > HPU_CTX_LIMIT_CS_IN_FLIGHT &&
	    l.limits[HPU_CTX_LIMIT_CS_IN_FLIGHT].limit)
		lim = l.limits[HPU_CTX_LIMIT_CS_IN_FLIGHT].limit;
	return lim < RING_CQ_ENTRIES - 1 ? (uint32_t)lim : RING_CQ_ENTRIES - 1;
}

void hpudrv_ring_open(struct hpu_device *dev)
{
	struct hpu_info_driver_version v;
	struct hpudrv_ring *r;
	uint32_t arena;
	int ret;

	if (dev->control || !ring_enabled())
		return;
	if (hpudrv_info(dev->fd, HPU_INFO_DRIVER_VERSION, 0, &v, sizeof(v)) ||
	    !(v.capabilities & HPU_CAP_RING))
		return;
	pthread_once(&fork_once, fork_init);
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->max_in_flight = ctx_in_flight(dev);
	r->wait_spin_ns = RING_SPIN_NS;
	r->async = ring_async_enabled();
	r->fork_gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
	arena = hpudrv_ring_arena_size();
	ret = -EINVAL;
	if (arena) {
		r->size = HPU_RING_SIZE_CB_ARENA(RING_SQ_SLOTS, RING_CQ_ENTRIES,
						 arena);
		ret = ring_register(dev, r, arena);
		if (ret)
			ring_debug(
				"ring REGISTER with a %u-byte CB arena failed (%d), trying without",
				arena, ret);
	}
	if (ret) {
		/* an older driver (1.3), or the pinned_bytes limit */
		r->size = HPU_RING_SIZE(RING_SQ_SLOTS, RING_CQ_ENTRIES);
		ret = ring_register(dev, r, 0);
	}
	if (ret) {
		ring_debug("ring REGISTER failed (%d), using the ioctl path",
			   ret);
		free(r);
		return;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->cb_lock, NULL);
	dev->ring = r;
}

void hpudrv_ring_close(struct hpu_device *dev)
{
	struct hpudrv_ring *r = dev->ring;
	union hpu_ring_args a;

	if (!r)
		return;
	dev->ring = NULL;
	/* a child: the mapping was not inherited, the ring is the parent's */
	if (r->fork_gen != __atomic_load_n(&fork_gen, __ATOMIC_RELAXED))
		return;
	if (!__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE)) {
		memset(&a, 0, sizeof(a));
		a.in.op = HPU_RING_OP_UNREGISTER;
		ring_ioctl(dev, &a);
	}
	munmap(r->map, r->size);
	hpudrv_ring_arena_fini(r);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* The ring of @dev when this process may use it, else NULL */
struct hpudrv_ring *hpudrv_ring_get(struct hpu_device *dev)
{
	struct hpudrv_ring *r = dev->ring;

	if (!r || __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE) ||
	    r->fork_gen != __atomic_load_n(&fork_gen, __ATOMIC_RELAXED))
		return NULL;
	return r;
}

/*
 * Give the ring up for the ioctl path: UNREGISTER (in-flight CSs still
 * end and WAIT_CS answers them) and wake every waiter so that it asks
 * WAIT_CS. The mapping stays until close: waiters may still read it.
 */
void hpudrv_ring_kill_locked(struct hpu_device *dev, struct hpudrv_ring *r,
			     const char *why)
{
	union hpu_ring_args a;

	if (r->dead)
		return;
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_UNREGISTER;
	ring_debug("ring given up (%s), using the ioctl path (UNREGISTER: %d)",
		   why, ring_ioctl(dev, &a));
	__atomic_store_n(&r->dead, true, __ATOMIC_RELEASE);
	hpudrv_ring_futex(&r->hdr->cq_futex, FUTEX_WAKE, INT_MAX, 0);
	hpudrv_ring_futex(&r->hdr->cq_event, FUTEX_WAKE, INT_MAX, 0);
}

static void recent_add(struct hpudrv_ring *r, const struct hpu_ring_cqe *c)
{
	struct ring_recent *e = &r->recent[r->recent_next];

	if (r->nrecent == RING_RECENT) {
		if (e->seq > r->evicted)
			r->evicted = e->seq;
	} else {
		r->nrecent++;
	}
	e->seq = c->seq;
	e->status = c->status;
	e->res = c->res;
	e->ts = (c->user_data & RING_UD_TIMESTAMP) &&
				(c->flags & HPU_RING_CQE_F_TIMESTAMP) ?
			c->timestamp_ns :
			0;
	r->recent_next = (r->recent_next + 1) % RING_RECENT;
}

/*
 * Take every CQ record: failures and timestamps go to @recent, a record
 * whose number is not the one predicted kills the ring (someone else
 * submitted on the context: the numbers are no longer known).
 */
void hpudrv_ring_drain_locked(struct hpu_device *dev, struct hpudrv_ring *r)
{
	uint32_t head = r->hdr->cq_head, tail;
	const struct hpu_ring_cqe *c;
	uint64_t low;

	/* read before the records: an ending it covers has its record */
	low = __atomic_load_n(&r->hdr->completed_seq, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE);
	if (tail - head > RING_CQ_ENTRIES) {
		hpudrv_ring_kill_locked(dev, r, "CQ tail out of range");
		return;
	}
	for (; head != tail; head++) {
		c = &r->cq[head & (RING_CQ_ENTRIES - 1)];
		if ((c->user_data & ~RING_UD_TIMESTAMP) != c->seq) {
			hpudrv_ring_kill_locked(dev, r,
						"sequence numbers diverged");
			break;
		}
		r->ended++;
		if (c->res || c->status != HPU_WAIT_CS_STATUS_COMPLETED ||
		    (c->user_data & RING_UD_TIMESTAMP) || c->seq > low)
			recent_add(r, c);
	}
	__atomic_store_n(&r->hdr->cq_head, head, __ATOMIC_SEQ_CST);
}

const struct ring_recent *hpudrv_ring_recent_find(const struct hpudrv_ring *r,
						  uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < r->nrecent; i++)
		if (r->recent[i].seq == seq)
			return &r->recent[i];
	return NULL;
}

/*
 * Ring the doorbell when the consumer sleeps (docs/rings.md, "Doorbell").
 * The caller's last store the consumer looks at (sq_tail, cq_head) was
 * seq_cst: with the seq_cst load of sq_need_wakeup it pairs with the
 * consumer's seq_cst store of the flag and load of sq_tail, so one of the
 * two sees the other (no fence: ThreadSanitizer does not model fences).
 */
/* Wake the consumer if it sleeps; whether it did */
static bool ring_kick(struct hpudrv_ring *r)
{
	if (!__atomic_load_n(&r->hdr->sq_need_wakeup, __ATOMIC_SEQ_CST))
		return false;
	__atomic_add_fetch(&r->hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
	hpudrv_ring_futex(&r->hdr->sq_doorbell, FUTEX_WAKE, 1, 0);
	return true;
}

/*
 * Wait (bounded) until the SQ has room for @slots; records are drained
 * meanwhile, since a full CQ stops the consumer. 0, -EAGAIN, or
 * -ENOTCONN when the ring broke.
 */
static int ring_room_locked(struct hpu_device *dev, struct hpudrv_ring *r,
			    uint32_t slots)
{
	struct timespec pause = { 0, RING_ROOM_SLEEP_NS };
	uint64_t end = 0;
	uint32_t tail = r->hdr->sq_tail, head;

	for (;;) {
		if (__atomic_load_n(&r->hdr->error, __ATOMIC_ACQUIRE)) {
			hpudrv_ring_kill_locked(dev, r,
						"the driver broke the ring");
			return -ENOTCONN;
		}
		head = __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE);
		if (tail - head > RING_SQ_SLOTS) {
			hpudrv_ring_kill_locked(dev, r, "SQ head out of range");
			return -ENOTCONN;
		}
		if (tail - head <= RING_SQ_SLOTS - slots &&
		    r->taken - r->ended < r->max_in_flight)
			return 0;
		hpudrv_ring_drain_locked(dev, r);
		if (r->dead)
			return -ENOTCONN;
		ring_kick(r);
		if (!end)
			end = hpudrv_ring_now_ns() + RING_ROOM_NS;
		else if (hpudrv_ring_now_ns() > end)
			return -EAGAIN;
		nanosleep(&pause, NULL);
	}
}

/*
 * Wait until the consumer took the entry ending at @tail: it copied the
 * CBs (the caller may reuse them, as after HPU_IOCTL_CS) and numbered it.
 * 0; -EIO when the ring broke before the entry was taken (it never runs,
 * no number is used); -ENODEV when the device went away.
 */
static int ring_take_wait_locked(struct hpu_device *dev, struct hpudrv_ring *r,
				 uint32_t tail)
{
	struct timespec pause = { 0, RING_TAKE_SLEEP_NS };
	uint64_t start = hpudrv_ring_now_ns(), t, kicked = 0;
	uint64_t spin_end = start + RING_SPIN_NS;
	uint32_t head, err;

	for (;;) {
		head = __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE);
		if ((int32_t)(head - tail) >= 0)
			return 0;
		err = __atomic_load_n(&r->hdr->error, __ATOMIC_ACQUIRE);
		if (err) {
			/* the head may have moved before the error was set */
			head = __atomic_load_n(&r->hdr->sq_head,
					       __ATOMIC_ACQUIRE);
			hpudrv_ring_kill_locked(dev, r,
						"the driver broke the ring");
			if ((int32_t)(head - tail) >= 0)
				return 0;
			return err == ENODEV ? -ENODEV : -EIO;
		}
		if (r->dead) {
			/* given up meanwhile (diverged numbers) */
			head = __atomic_load_n(&r->hdr->sq_head,
					       __ATOMIC_ACQUIRE);
			return (int32_t)(head - tail) >= 0 ? 0 : -EIO;
		}
		t = hpudrv_ring_now_ns();
		if (t < spin_end) {
			/*
			 * past the first looks the consumer may share the CPU;
			 * from the first when it last ran on this one
			 */
			if (t - start >= RING_PURE_SPIN_NS ||
			    hpudrv_ring_consumer_here(r))
				sched_yield();
			continue;
		}
		/* a full CQ (records not taken yet) stops the consumer */
		hpudrv_ring_drain_locked(dev, r);
		if ((!kicked || t - kicked >= RING_REKICK_NS) && ring_kick(r))
			kicked = t;
		/* yield to the consumer first: a sleep costs the timer slack */
		if (hpudrv_ring_now_ns() < spin_end + RING_YIELD_NS)
			sched_yield();
		else
			nanosleep(&pause, NULL);
	}
}

static int ring_taken_locked(struct hpu_device *dev, struct hpudrv_ring *r,
			     uint32_t tail)
{
	int ret = ring_take_wait_locked(dev, r, tail);

	if (!ret || ret == -EIO || ret == -ENODEV) {
		/* every earlier entry was taken too */
		__atomic_store_n(&r->async_untaken, false, __ATOMIC_RELAXED);
	}
	if (!ret)
		r->taken++;
	return ret;
}

void hpudrv_ring_await_take(struct hpu_device *dev, struct hpudrv_ring *r,
			    uint64_t seq)
{
	if (!__atomic_load_n(&r->async_untaken, __ATOMIC_RELAXED))
		return;
	/* taken already (the driver's number of the last entry it took) */
	if ((r->hdr_flags & HPU_RING_HDR_F_SQ_SEQ) &&
	    __atomic_load_n(&r->hdr->sq_seq, __ATOMIC_ACQUIRE) >= seq)
		return;
	pthread_mutex_lock(&r->lock);
	if (r->async_untaken && !r->dead &&
	    !ring_take_wait_locked(dev, r, r->async_tail))
		__atomic_store_n(&r->async_untaken, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&r->lock);
}

static void put_slot(struct hpudrv_ring *r, uint32_t idx, const void *slot)
{
	memcpy(r->sq + (size_t)(idx & (RING_SQ_SLOTS - 1)) * HPU_RING_SLOT_SIZE,
	       slot, HPU_RING_SLOT_SIZE);
}

/*
 * Slots of an entry, or 0 when the ioctl would refuse its shape at once
 * (-EINVAL); a NULL WAIT number array is -EFAULT there, and here.
 */
static uint32_t entry_slots(const struct hpu_cs_chunk *chunks, unsigned int n,
			    uint32_t flags)
{
	uint32_t nums = 0;
	unsigned int i;

	if (!(flags & HPU_CS_FLAGS_WAIT))
		return 1 + n;
	if (n > HPU_WAIT_MAX_CHUNKS)
		return 0;
	for (i = 0; i < n; i++) {
		if (!chunks[i].cb_size ||
		    chunks[i].cb_size > HPU_WAIT_MULTI_CS_MAX)
			return 0;
		nums += chunks[i].cb_size;
	}
	return 1 + n +
	       (nums + HPU_RING_SEQS_PER_SLOT - 1) / HPU_RING_SEQS_PER_SLOT;
}

/* Write a WAIT entry's numbers after its chunks, from @idx */
static void put_wait_numbers(struct hpudrv_ring *r, uint32_t idx,
			     const struct hpu_cs_chunk *chunks, unsigned int n)
{
	uint64_t slot[HPU_RING_SEQS_PER_SLOT];
	const uint64_t *seqs;
	unsigned int i, j, k = 0;

	memset(slot, 0, sizeof(slot));
	for (i = 0; i < n; i++) {
		seqs = (const uint64_t *)(uintptr_t)chunks[i].cb_handle;
		for (j = 0; j < chunks[i].cb_size; j++) {
			slot[k++] = seqs[j];
			if (k == HPU_RING_SEQS_PER_SLOT) {
				put_slot(r, idx++, slot);
				memset(slot, 0, sizeof(slot));
				k = 0;
			}
		}
	}
	if (k)
		put_slot(r, idx, slot);
}

/*
 * Whether an entry put at @tail may go without waiting for its take
 * (hpudrv_ring_submit_async()): nothing of the caller's is read at the
 * take (its CBs went into the arena, or it is a WAIT, whose numbers are
 * in its slots), and the numbers are still the ring's: when every
 * earlier entry was taken, the last one taken is the one before
 * next_seq. An entry the driver refuses then fails at its wait.
 */
static bool may_go_untaken(const struct hpudrv_ring *r,
			   const struct hpu_ring_sqe *h, uint32_t tail)
{
	uint64_t last;

	if (!(h->flags & HPU_RING_SQE_F_CB_ARENA) &&
	    !(h->cs_flags & HPU_CS_FLAGS_WAIT))
		return false;
	if (!(r->hdr_flags & HPU_RING_HDR_F_SQ_SEQ) ||
	    __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE) != tail)
		return true;
	last = __atomic_load_n(&r->hdr->sq_seq, __ATOMIC_RELAXED);
	return last ? last + 1 == r->next_seq : r->next_seq == r->first_seq;
}

static int ring_submit(struct hpu_device *dev,
		       const struct hpu_cs_chunk *chunks,
		       const struct hpudrv_wrap *wrap, unsigned int n,
		       uint32_t flags, uint32_t timeout_ms, bool async,
		       uint64_t *seq)
{
	struct hpudrv_ring *r = hpudrv_ring_get(dev);
	const struct ring_recent *e;
	struct hpu_ring_sqe h;
	struct hpu_cs_chunk c;
	uint32_t slots, tail;
	unsigned int i;
	int ret;

	if (!r)
		return -ENOTCONN;
	/* what the ioctl refuses before numbering, refused here too */
	if ((flags & ~HPU_CS_FLAGS_MASK) || timeout_ms > HPU_CS_TIMEOUT_MAX_MS)
		return -EINVAL;
	slots = entry_slots(chunks, n, flags);
	if (!slots)
		return -EINVAL;
	if (flags & HPU_CS_FLAGS_WAIT) {
		for (i = 0; i < n; i++)
			if (!chunks[i].cb_handle)
				return -EFAULT;
	}
	pthread_mutex_lock(&r->lock);
	if (r->dead) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = ring_room_locked(dev, r, slots);
	if (ret)
		goto out;
	memset(&h, 0, sizeof(h));
	h.user_data = r->next_seq;
	if (flags & HPU_CS_FLAGS_TIMESTAMP)
		h.user_data |= RING_UD_TIMESTAMP;
	h.num_slots = slots;
	h.num_chunks = n;
	h.cs_flags = flags;
	h.timeout_ms = timeout_ms;
	tail = r->hdr->sq_tail;
	/* small CBs travel in the arena: no copy out of the process */
	if (!(flags & (HPU_CS_FLAGS_SIGNAL | HPU_CS_FLAGS_WAIT)) &&
	    !hpudrv_ring_arena_put(r, tail + slots, chunks, wrap, n,
				   &h.cb_offset))
		h.flags = HPU_RING_SQE_F_CB_ARENA;
	else if (wrap) {
		ret = -ENOSPC; /* wrapped bytes go only through the arena */
		goto out;
	}
	put_slot(r, tail, &h);
	for (i = 0; i < n; i++) {
		c = chunks[i];
		if (flags & HPU_CS_FLAGS_WAIT)
			c.cb_handle = 0;
		if (wrap)
			c.cb_size += wrap[i].npre + wrap[i].npost;
		put_slot(r, tail + 1 + i, &c);
	}
	if (flags & HPU_CS_FLAGS_WAIT)
		put_wait_numbers(r, tail + 1 + n, chunks, n);
	async = async && r->async && may_go_untaken(r, &h, tail);
	/* where the consumer's poll can tell whether it holds this thread off */
	if (r->hdr_flags & HPU_RING_HDR_F_CPU)
		__atomic_store_n(&r->hdr->producer_cpu, this_cpu(),
				 __ATOMIC_RELAXED);
	__atomic_store_n(&r->hdr->sq_tail, tail + slots, __ATOMIC_SEQ_CST);
	ring_kick(r);
	if (async) {
		/* numbered as predicted; the drain checks the records */
		r->taken++;
		*seq = r->next_seq;
		__atomic_store_n(&r->next_seq, *seq + 1, __ATOMIC_RELEASE);
		r->async_entries++;
		r->async_tail = tail + slots;
		__atomic_store_n(&r->async_untaken, true, __ATOMIC_RELAXED);
		ret = 0;
		goto out;
	}
	ret = ring_taken_locked(dev, r, tail + slots);
	if (ret)
		goto out;
	*seq = r->next_seq;
	if ((r->hdr_flags & HPU_RING_HDR_F_SQ_SEQ) &&
	    __atomic_load_n(&r->hdr->sq_seq, __ATOMIC_RELAXED) != *seq) {
		/*
		 * Someone else took a number on the context (a raw CS ioctl,
		 * a forked child on an inherited handle): this entry's is the
		 * driver's; the ring can no longer tell its numbers apart
		 */
		*seq = __atomic_load_n(&r->hdr->sq_seq, __ATOMIC_RELAXED);
		hpudrv_ring_kill_locked(dev, r, "sequence numbers diverged");
		ret = 0;
		goto out;
	}
	__atomic_store_n(&r->next_seq, *seq + 1, __ATOMIC_RELEASE);
	/*
	 * An entry refused for its contents ends at once: answer its -errno
	 * as HPU_IOCTL_CS would (its number is used all the same)
	 */
	hpudrv_ring_drain_locked(dev, r);
	e = hpudrv_ring_recent_find(r, *seq);
	if (e && e->res)
		ret = e->res;
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int hpudrv_ring_submit(struct hpu_device *dev,
		       const struct hpu_cs_chunk *chunks, unsigned int n,
		       uint32_t flags, uint32_t timeout_ms, uint64_t *seq)
{
	return ring_submit(dev, chunks, NULL, n, flags, timeout_ms, false, seq);
}

int hpudrv_ring_submit_async(struct hpu_device *dev,
			     const struct hpu_cs_chunk *chunks, unsigned int n,
			     uint32_t flags, uint32_t timeout_ms, uint64_t *seq)
{
	return ring_submit(dev, chunks, NULL, n, flags, timeout_ms, true, seq);
}

int hpudrv_ring_submit_wrapped(struct hpu_device *dev,
			       const struct hpu_cs_chunk *chunks,
			       const struct hpudrv_wrap *wrap, unsigned int n,
			       uint32_t flags, uint32_t timeout_ms,
			       uint64_t *seq)
{
	if (!n || n > HPU_MAX_JOBS_PER_CS ||
	    (flags & (HPU_CS_FLAGS_SIGNAL | HPU_CS_FLAGS_WAIT)))
		return -EINVAL;
	return ring_submit(dev, chunks, wrap, n, flags, timeout_ms, true, seq);
}
