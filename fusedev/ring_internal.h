/* SPDX-License-Identifier: MIT */
/*
 * ring_internal.h - what ring.c (registration, teardown, the RING ioctl)
 * and ring_consumer.c (the consumer thread, records, ordering with the
 * ioctl path) share: the ring's state and their bounds (docs/rings.md).
 * Private to those two files.
 */
#ifndef HFD_RING_INTERNAL_H
#define HFD_RING_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hpu_cs.h"

/* Rings of the whole daemon: one consumer thread each (stuck ones too) */
#define HFD_MAX_RINGS	   256
/*
 * The consumer polls for new entries before it sleeps: the first
 * RING_PURE_SPIN_NS only looking, then yielding between looks (the
 * producer may share its CPU), for at most RING_SPIN_NS. How long it
 * polls adapts (hfd_ring.spin_ns): doubled when an entry came while it
 * polled, halved when none came, never below RING_SPIN_MIN_NS. A
 * producer that submits in bursts keeps it polling; one that submits
 * once and then waits for the end (a training step) costs a short look
 * and a doorbell, not 50 us of one of the machine's cores per entry.
 * While the producer's last publication came from the consumer's own
 * CPU (the header's producer_cpu), the poll yields from its first look:
 * only a yield lets the producer run there (docs/rings.md, "Spinning").
 */
#define RING_PURE_SPIN_NS  8000ULL
#define RING_SPIN_NS	   50000ULL
#define RING_SPIN_MIN_NS   2000ULL
/* Longest sleep of the consumer: a stop, freed CQ room are seen by then */
#define RING_SLEEP_NS	   100000000LL
/* Longest wait of an ioctl CS for the ring's consumer (then -EAGAIN) */
#define RING_DRAIN_WAIT_NS 1000000000ULL
/* A wait for the consume lock tries it again this often */
#define RING_LOCK_POLL_NS  20000L

/**
 * struct hfd_ring - a context's registered rings
 * @ctx: the context (the ring holds a reference on it)
 * @map: the driver's mapping of the region
 * @size: bytes of @map
 * @hdr: the shared header (first page of @map)
 * @sq: the SQ (driver's size)
 * @cq: the CQ (driver's size)
 * @gen: generation of the registration: records go to the ring their
 *	entries came from, never to a later one
 * @refs: the registration's reference, the consumer thread's and one
 *	per drainer (atomic)
 * @stop: the consumer is to end (atomic)
 * @stuck: a copy of a take was abandoned by the uaccess watchdog: its
 *	thread may never come back (atomic)
 * @consume_lock: serializes taking entries: protects @head, @scratch
 * @head: SQ consumer index
 * @scratch: where an entry is copied
 * @cq_tail: CQ producer index (CS state lock)
 * @cq_pending: records reserved for entries taken and not ended (CS
 *	state lock)
 * @completed: last completed_seq written (CS state lock)
 * @broken: the ring broke: nothing more is consumed (CS state lock;
 *	read atomically)
 * @error_raised: HPU_EVENT_RING_ERR was queued (CS state lock)
 * @bp: the consumer waits for CQ room or CSs to end (CS state lock)
 * @spin_ns: how long the consumer polls before it sleeps (consumer
 *	thread only), RING_SPIN_MIN_NS..RING_SPIN_NS
 * @cpu: 1 + the CPU last stored in the header's consumer_cpu, 0 none
 *	(consumer thread only)
 * @thread: the consumer thread
 */
struct hfd_ring {
	struct hfd_ctx *ctx;
	void *map;
	size_t size;
	struct hpu_ring_hdr *hdr;
	struct hfd_ring_sq sq;
	struct hfd_ring_cq cq;
	uint32_t gen;
	unsigned int refs;
	bool stop;
	bool stuck;
	pthread_mutex_t consume_lock;
	uint32_t head;
	struct hfd_ring_scratch scratch;
	uint32_t cq_tail;
	uint32_t cq_pending;
	uint64_t completed;
	bool broken;
	bool error_raised;
	bool bp;
	uint64_t spin_ns;
	uint32_t cpu;
	pthread_t thread;
};

/**
 * hfd_ring_consumer() - the consumer thread of a ring
 * @arg: the ring; the thread owns one of its references
 *
 * Return: NULL, after dropping its reference.
 */
void *hfd_ring_consumer(void *arg);

/**
 * hfd_ring_kick() - wake the consumer: change the doorbell word, then
 * wake its sleeper
 * @r: ring
 */
void hfd_ring_kick(struct hfd_ring *r);

/**
 * hfd_ring_lock_consume() - take @r's consume_lock within @wait_ns
 * @r: ring
 * @wait_ns: longest wait
 * @give_up_broken: stop waiting when the ring broke
 *
 * Return: 0 held; -EIO broken (with @give_up_broken) or stuck; -EAGAIN
 * timed out.
 */
int hfd_ring_lock_consume(struct hfd_ring *r, uint64_t wait_ns,
			  bool give_up_broken);

/**
 * hfd_ring_put() - drop a reference; the last one unmaps the region and
 * lets the context go
 * @r: ring
 */
void hfd_ring_put(struct hfd_ring *r);

#endif /* HFD_RING_INTERNAL_H */
