/* SPDX-License-Identifier: MIT */
/*
 * ring_internal.h - what the producer (ring.c) and the waits (ring_wait.c)
 * of libhpudrv's user-mode rings share (docs/rings.md, "libhpudrv's
 * producer")
 */
#ifndef HPUDRV_RING_INTERNAL_H
#define HPUDRV_RING_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hpu_ring.h"
#include "hpudrv_internal.h"

/* SQ slots: every entry fits (HPU_RING_MAX_ENTRY_SLOTS 577) */
#define RING_SQ_SLOTS	   1024
/* CQ records: also the bound of ring CSs in flight */
#define RING_CQ_ENTRIES	   1024
/*
 * Records kept for waiters: failures, timestamps, and endings above the
 * low-water mark (out of order, not yet covered by completed_seq)
 */
#define RING_RECENT	   512
/* Spin on completed_seq before the futex wait */
/*
 * The first part of every spin only looks (the peer runs on another CPU
 * and answers within a few us); after it the spinner yields between
 * looks, for the peer may share its CPU (docs/rings.md, "Spinning")
 */
#define RING_PURE_SPIN_NS  8000ULL
#define RING_SPIN_NS	   20000ULL
/*
 * A wait's spin adapts per ring (docs/rings.md, "Spinning"): doubled up
 * to RING_SPIN_NS when a wait was met while it spun, halved down to this
 * when the spin ran out and the waiter slept anyway (a DDP step waiting
 * for its peer: its spin only took a core from the daemon or the peer)
 */
#define RING_SPIN_MIN_NS   2000ULL
/*
 * Longest futex sleep. A 1.2 driver wakes cq_futex only when
 * completed_seq moves, so a CS ending out of order (after a later one's
 * record, before an earlier CS ended) is seen by its record within this;
 * a ring that broke meanwhile too. A 1.3 driver wakes cq_event for each.
 */
#define RING_SLICE_NS	   1000000ULL
/* Bound of the wait for SQ room before -EAGAIN (as the ioctl's retries) */
#define RING_ROOM_NS	   1000000000ULL
/* Pause between looks for SQ room */
#define RING_ROOM_SLEEP_NS 50000L
/*
 * After the spin, yield this long before sleeping between looks: long
 * enough for a consumer that was asleep to be woken and take, short
 * enough that a producer whose consumer waits for a CPU (two DDP ranks
 * and the daemon on two cores) does not hold one of them for 2 ms
 */
#define RING_YIELD_NS	   200000ULL
/* Pause between looks for the consumer's take of an entry */
#define RING_TAKE_SLEEP_NS 20000L
/*
 * A producer waiting for its take rings a sleeping consumer's doorbell
 * again only this long after it last did: the consumer it woke may not
 * have had a CPU yet, which is no reason for another wake (one system
 * call per yield in that loop was 95 % of a 2-rank DDP step's futex
 * calls; docs/rings.md, "ddp11c")
 */
#define RING_REKICK_NS	   50000ULL
/* user_data bit: the CS asked for a timestamp */
#define RING_UD_TIMESTAMP  (1ULL << 63)
/*
 * The CB arena (docs/rings.md, "CB arena"): its default size, the most
 * CB bytes of one entry copied into it (larger entries go around it: the
 * driver reads their CBs out of the process), the arena references not
 * yet known taken, and the buckets of the builder CBs it may copy
 */
#define RING_ARENA_DEFAULT (128U << 10)
#define RING_ARENA_SMALL   HPU_RING_CB_ARENA_MAX_ENTRY
#define RING_ARENA_PENDING 8
#define RING_CB_BUCKETS	   64

/**
 * struct ring_cb - a command buffer whose bytes the producer may copy
 * into the CB arena: a builder's, whose buffer the library owns
 * @handle: its CB handle
 * @ptr: its buffer
 * @size: bytes of @ptr (the CB's size)
 * @next: next in its bucket
 */
struct ring_cb {
	uint64_t handle;
	const void *ptr;
	uint32_t size;
	struct ring_cb *next;
};

/**
 * struct ring_arena_ref - arena bytes of an entry not yet known taken
 * @sq_end: the SQ index one past the entry: taken once sq_head reaches it
 * @end: the arena's byte counter after the entry's bytes
 */
struct ring_arena_ref {
	uint32_t sq_end;
	uint64_t end;
};

/**
 * struct ring_recent - a CQ record worth keeping: a failure or a timestamp
 * @seq: the CS's number
 * @ts: its completion time (0 when the CS did not ask for one)
 * @status: HPU_WAIT_CS_STATUS_*
 * @res: the record's res: 0, or the -errno that refused the entry
 */
struct ring_recent {
	uint64_t seq;
	uint64_t ts;
	uint32_t status;
	int32_t res;
};

/**
 * struct hpudrv_ring - a registered ring pair of an open device
 * @lock: the producer lock; also guards the CQ drain and @recent
 * @fork_gen: fork generation at REGISTER; a child never uses the ring
 * @dead: set once (atomic): broken or unregistered, the ioctl path serves
 * @map: the region (MADV_DONTFORK)
 * @size: its bytes
 * @hdr: header of @map
 * @sq: SQ slots
 * @cq: CQ records
 * @max_in_flight: ring CSs in flight at most: below the CQ's size and the
 *	context's cs_in_flight limit, so the consumer can always take an
 *	entry the producer published (it never waits for a CS to end)
 * @taken: entries the consumer took
 * @ended: records drained
 * @hdr_flags: HPU_RING_HDR_F_* the driver keeps (read once at REGISTER)
 * @first_seq: REGISTER's next_seq: the ring knows numbers from here
 * @next_seq: the number the next entry gets
 * @evicted: highest number dropped from @recent (0: none)
 * @recent: records kept for waiters (RING_RECENT), a FIFO
 * @nrecent: entries used in @recent
 * @recent_next: slot of @recent written next
 * @arena: the CB arena in @map (HPU_RING_HDR_F_CB_ARENA), NULL: none
 * @arena_size: its bytes, a power of two
 * @arena_head: bytes of the arena given back (free-running): every byte
 *	before it was in an entry the consumer took
 * @arena_tail: bytes of the arena handed out (free-running)
 * @pending: arena references not known taken, oldest first (FIFO)
 * @npending: entries of @pending
 * @arena_entries: entries whose CBs went through the arena (tests)
 * @arena_around: normal CSs that went around it: too large, no room, a
 *	CB not a builder's (tests)
 * @async: hpudrv_ring_submit_async() may return before the take
 *	(HPU_RING_ASYNC, default on)
 * @async_entries: entries that went without waiting for their take (tests)
 * @async_tail: SQ tail after the last such entry
 * @async_untaken: it may not have been taken yet (atomic: waits look
 *	without @lock)
 * @wait_spin_ns: the waits' spin budget, RING_SPIN_MIN_NS .. RING_SPIN_NS
 *	(atomic: waits run without @lock)
 * @cb_lock: guards @cbs (taken under @lock, never the other way)
 * @cbs: builder CBs by handle, RING_CB_BUCKETS buckets
 */
struct hpudrv_ring {
	pthread_mutex_t lock;
	unsigned int fork_gen;
	bool dead;
	void *map;
	size_t size;
	struct hpu_ring_hdr *hdr;
	uint8_t *sq;
	struct hpu_ring_cqe *cq;
	uint32_t max_in_flight;
	uint64_t taken;
	uint64_t ended;
	uint32_t hdr_flags;
	uint64_t first_seq;
	uint64_t next_seq;
	uint64_t evicted;
	struct ring_recent recent[RING_RECENT];
	unsigned int nrecent;
	unsigned int recent_next;
	uint8_t *arena;
	uint32_t arena_size;
	uint64_t arena_head;
	uint64_t arena_tail;
	struct ring_arena_ref pending[RING_ARENA_PENDING];
	unsigned int npending;
	uint64_t arena_entries;
	uint64_t arena_around;
	bool async;
	uint64_t async_entries;
	uint32_t async_tail;
	bool async_untaken;
	uint64_t wait_spin_ns;
	pthread_mutex_t cb_lock;
	struct ring_cb *cbs[RING_CB_BUCKETS];
};

uint64_t hpudrv_ring_now_ns(void);
/*
 * The consumer thread last ran on the calling thread's CPU (the header's
 * consumer_cpu hint): a spin here only holds it off
 */
bool hpudrv_ring_consumer_here(const struct hpudrv_ring *r);
long hpudrv_ring_futex(uint32_t *word, int op, uint32_t val, uint64_t ns);
struct hpudrv_ring *hpudrv_ring_get(struct hpu_device *dev);
void hpudrv_ring_kill_locked(struct hpu_device *dev, struct hpudrv_ring *r,
			     const char *why);
void hpudrv_ring_drain_locked(struct hpu_device *dev, struct hpudrv_ring *r);
const struct ring_recent *hpudrv_ring_recent_find(const struct hpudrv_ring *r,
						  uint64_t seq);
/*
 * Unless the entry numbered @seq is known taken: wait (spinning, then
 * yielding, as a submission waits for its take) until the consumer took
 * the last entry that went untaken. A wait for a CS that was just
 * submitted first lets the consumer have it; a wait for an older one
 * (taken) goes on at once.
 */
void hpudrv_ring_await_take(struct hpu_device *dev, struct hpudrv_ring *r,
			    uint64_t seq);
/* ring_arena.c */
uint32_t hpudrv_ring_arena_size(void);
void hpudrv_ring_arena_fini(struct hpudrv_ring *r);
int hpudrv_ring_arena_put(struct hpudrv_ring *r, uint32_t sq_end,
			  const struct hpu_cs_chunk *chunks,
			  const struct hpudrv_wrap *wrap, unsigned int n,
			  uint32_t *offset);

#endif /* HPUDRV_RING_INTERNAL_H */
