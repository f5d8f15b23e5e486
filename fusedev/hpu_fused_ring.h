/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_ring.h - user-mode rings (docs/rings.md): the consumer core
 * (ring_consume.c), pure and fuzzable, and the RING ioctl (ring.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_RING_H
#define HPU_FUSED_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hpu_ring.h"

struct hfd_ctx;

/**
 * struct hfd_ring_sq - the driver's view of a submission ring
 * @slots: the first slot, in the shared mapping: the client can change
 *	any byte at any time, so it is only ever copied from
 * @nslots: slots of the ring, a power of two: the driver's own value
 *	(from REGISTER), never read from the shared memory; the mapping
 *	holds at least @nslots * HPU_RING_SLOT_SIZE bytes at @slots
 * @arena: the CB arena, in the shared mapping (only copied from), or
 *	NULL: the ring has none
 * @arena_size: bytes of @arena (the driver's own value, from REGISTER);
 *	0 without an arena
 */
struct hfd_ring_sq {
	const void *slots;
	uint32_t nslots;
	const void *arena;
	uint32_t arena_size;
};

/**
 * struct hfd_ring_scratch - daemon memory one entry is copied into
 * @q: HPU_RING_MAX_ENTRY_SLOTS slots, 8-byte aligned
 * @cb: the CB bytes an entry references in the CB arena (at most
 *	HPU_RING_CB_ARENA_MAX_ENTRY), 8-byte aligned
 */
struct hfd_ring_scratch {
	uint64_t q[HPU_RING_MAX_ENTRY_SLOTS * HPU_RING_SLOT_SIZE / 8];
	uint64_t cb[HPU_RING_CB_ARENA_MAX_ENTRY / 8];
};

/**
 * struct hfd_ring_entry - one SQ entry, copied into daemon memory
 * @sqe: copy of its header slot (valid whenever the header was read,
 *	also for a refused entry: its user_data goes into the record)
 * @chunks: @sqe.num_chunks chunks, in the scratch buffer (NULL when the
 *	entry was refused)
 * @wait_seqs: HPU_CS_FLAGS_WAIT: @num_wait_seqs sequence numbers, chunk
 *	after chunk (chunk i has chunks[i].cb_size of them), in the
 *	scratch buffer; else NULL
 * @num_wait_seqs: entries of @wait_seqs
 * @cb_bytes: HPU_RING_SQE_F_CB_ARENA: what the chunks run, chunk after
 *	chunk, copied out of the CB arena into the scratch buffer; else
 *	NULL (each CB is copied out of its creator)
 * @cb_len: bytes at @cb_bytes (the sum of the chunks' cb_size)
 * @arena_err: the entry was refused for its CB arena reference (out of
 *	the arena, wrapping, misaligned, too large, on a CS that runs no
 *	CB, on a ring without an arena, an offset without the flag)
 * @has_sqe: @sqe was read (false when the ring broke before it)
 */
struct hfd_ring_entry {
	struct hpu_ring_sqe sqe;
	struct hpu_cs_chunk *chunks;
	const uint64_t *wait_seqs;
	uint32_t num_wait_seqs;
	const uint8_t *cb_bytes;
	uint32_t cb_len;
	bool arena_err;
	bool has_sqe;
};

int hfd_ring_consume(const struct hfd_ring_sq *sq, uint32_t head, uint32_t tail,
		     uint32_t num_queues, struct hfd_ring_scratch *scratch,
		     struct hfd_ring_entry *e, uint32_t *used);

/**
 * struct hfd_ring_cq - the driver's view of a completion ring
 * @recs: the first record, in the shared mapping (only written)
 * @nentries: records, a power of two: the driver's own value
 */
struct hfd_ring_cq {
	struct hpu_ring_cqe *recs;
	uint32_t nentries;
};

int hfd_ring_check_register(const struct hpu_ring_in *in);
uint32_t hfd_ring_arena_size(const struct hpu_ring_in *in);
struct hfd_cs_desc;
int hfd_ring_submit_ordered(struct hfd_ctx *ctx, pid_t requester,
			    const struct hfd_cs_desc *d, uint64_t *seq,
			    bool *completed);
void hfd_ring_stop_ctx(struct hfd_ctx *ctx);
void hfd_ring_unregister_ctx(struct hfd_ctx *ctx);
void hfd_ring_raise_error(struct hfd_ctx *ctx);
void hfd_ring_reset_ctx(struct hfd_ctx *ctx);
struct hfd_cs_state;
void hfd_ring_kick_locked(struct hfd_cs_state *st);
int hfd_ring_cq_room(uint32_t nentries, uint32_t tail, uint32_t head);
int hfd_ring_cq_post(const struct hfd_ring_cq *cq, uint32_t *tail,
		     uint32_t head, const struct hpu_ring_cqe *rec);

#endif /* HPU_FUSED_RING_H */
