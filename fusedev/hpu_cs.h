/* SPDX-License-Identifier: MIT */
/*
 * hpu_cs.h - per-context submission state shared by cs.c and wait.c.
 */
#ifndef HPU_CS_H
#define HPU_CS_H

#include "hpu_fused.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

/* Buckets of the in-flight table (chained by seq) */
#define CS_HASH_SIZE	256
/* Ended CSs whose status and time are remembered exactly */
#define CS_HISTORY	4096
/* Beyond them, the last timestamped CSs still remembered (the
 * habanalabs driver's outcome store: their times outlive the history) */
#define CS_OUTCOMES	256
/* Driver-internal sync objects of a context (WAIT submissions) */
#define CS_NUM_INT_SOBS (HPU_FW_NUM_SOBS - HPU_NUM_SOBS)

struct hfd_waiter;

/**
 * struct hfd_cs - one submission in flight
 * @seq: its sequence number
 * @ctx: its context (a reference is held)
 * @flags: HPU_CS_FLAGS_* of the submission
 * @refs: references: the model's (until cs_done is handled) and the
 *	submitter's (until the ioctl returns) (atomic)
 * @timer: its timeout
 * @done: cs_done came (protected by the state lock, as are the next six)
 * @finalizing: the ending is being handled: the timer may not be armed
 * @abort_in_progress: the timer thread is aborting it: cs_done only
 *	records the result, the aborter ends the CS
 * @done_pending: cs_done came during the abort
 * @timed_out: it was aborted for exceeding its timeout
 * @result: how it ended
 * @fault: fault details (PAGE_FAULT, ENGINE_ERR)
 * @has_fault: @fault is valid
 * @done_ns: completion time (device clock)
 * @nusage: entries in @usage
 * @usage: pinned CBs' usage counters, dropped when it ends
 * @ring: it came from the context's ring: its ending writes a record
 *	(into that ring only: @ring_gen)
 * @ring_gen: @ring: the registration it came from
 * @user_data: @ring: the entry's user_data
 * @ring_res: @ring: 0, or the -errno that refused the entry (it then
 *	ends ABORTED at once, without jobs)
 * @hnext: next CS in its hash bucket
 */
struct hfd_cs {
	uint64_t seq;
	struct hfd_ctx *ctx;
	uint32_t flags;
	unsigned int refs;
	struct hfd_timer timer;
	bool done;
	bool finalizing;
	bool abort_in_progress;
	bool done_pending;
	bool timed_out;
	enum hpu_fw_cs_result result;
	struct hpu_fw_fault fault;
	bool has_fault;
	uint64_t done_ns;
	unsigned int nusage;
	uint32_t **usage;
	bool ring;
	uint32_t ring_gen;
	uint64_t user_data;
	int32_t ring_res;
	struct hfd_cs *hnext;
};

/**
 * struct hfd_wait_dep - a WAIT chunk whose sequence numbers have not all
 * ended yet
 * @owner_seq: the WAIT submission the chunk belongs to
 * @sob: driver-internal SOB its FENCE job waits on
 * @n: sequence numbers still in flight
 * @seqs: them
 * @next: next dependency of the context
 */
struct hfd_wait_dep {
	uint64_t owner_seq;
	uint32_t sob;
	unsigned int n;
	uint64_t seqs[HPU_WAIT_MULTI_CS_MAX];
	struct hfd_wait_dep *next;
};

/**
 * struct hfd_cs_hist - what is remembered of an ended CS
 * @seq: its sequence number (0: slot empty)
 * @ts: completion time
 * @status: HPU_WAIT_CS_STATUS_*
 * @ts_valid: it asked for a timestamp
 */
struct hfd_cs_hist {
	uint64_t seq;
	uint64_t ts;
	uint32_t status;
	uint32_t ts_valid;
};

/**
 * struct hfd_cs_state - submissions of a context
 * @submit_lock: serializes submissions (sequence order is queue order)
 * @lock: protects every member below except @waiters, and every use of
 *	the internal SOBs (allocation, SET, the ADD that releases a WAIT)
 * @idle: signalled when @in_flight drops to 0
 * @next_seq: next sequence number (starts at 1)
 * @in_flight: CSs submitted and not ended
 * @low_water: every CS numbered up to this has ended (moved by
 *	hfd_cs_low_water_locked())
 * @in_flight_full: a submission was refused for the cs_in_flight limit
 *	since the last ending: the next ending wakes the ring's consumer
 * @hash: in-flight CSs by seq
 * @hist: ring of CS_HISTORY ended CSs (allocated on first use)
 * @outcomes: ring of the CS_OUTCOMES last ended CSs that asked for a
 *	timestamp (allocated on first use), for numbers @hist lost
 * @outcome_next: slot of @outcomes the next such CS takes
 * @sob_owner: per internal SOB, the WAIT submission using it (0: free)
 * @deps: WAIT chunks still waiting
 * @ring: the context's registered rings (ring.c), or NULL; endings post
 *	their records under @lock
 * @ring_busy: a REGISTER or UNREGISTER is in progress
 * @ring_gens: registrations so far (generation of the next one)
 * @waiters: blocked WAIT_CS requests (protected by wait.c's wait_lock)
 */
struct hfd_cs_state {
	pthread_mutex_t submit_lock;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	uint64_t next_seq;
	unsigned int in_flight;
	uint64_t low_water;
	bool in_flight_full;
	struct hfd_cs *hash[CS_HASH_SIZE];
	struct hfd_cs_hist *hist;
	struct hfd_cs_hist *outcomes;
	uint32_t outcome_next;
	uint64_t sob_owner[CS_NUM_INT_SOBS];
	struct hfd_wait_dep *deps;
	struct hfd_ring *ring;
	bool ring_busy;
	uint32_t ring_gens;
	struct hfd_waiter *waiters;
};

int hfd_cs_lookup_locked(struct hfd_cs_state *st, uint64_t seq,
			 uint32_t *status, uint64_t *ts, bool *ts_valid);

uint64_t hfd_cs_low_water_locked(struct hfd_cs_state *st);

/* What submission (cs.c) uses of the end of a CS (cs_done.c) */

/**
 * hfd_cs_in_flight_locked() - whether @seq is a CS of @st not yet ended
 * @st: submission state (its lock held)
 * @seq: sequence number
 */
bool hfd_cs_in_flight_locked(struct hfd_cs_state *st, uint64_t seq);

/**
 * hfd_cs_put() - drop a reference on @cs; the last frees it and lets
 * its context go
 * @cs: the CS
 */
void hfd_cs_put(struct hfd_cs *cs);

/**
 * hfd_cs_count() - count one event in the device's and the context's
 * counter (HPU_INFO_CS_COUNTERS)
 * @dev_ctr: the device's counter
 * @ctx_ctr: the context's counter
 */
void hfd_cs_count(uint64_t *dev_ctr, uint64_t *ctx_ctr);

/**
 * hfd_cs_timeout_fn() - a CS's timer fired: it times out (its engines
 * are reset) unless it ended meanwhile
 * @t: the CS's timer
 */
void hfd_cs_timeout_fn(struct hfd_timer *t);

/* ring_consumer.c: a CS of a context with rings ended (st->lock held) */
bool hfd_ring_cs_ended_locked(struct hfd_ctx *ctx, const struct hfd_cs *cs,
			      uint32_t status, uint64_t low_water);

#endif /* HPU_CS_H */
