/* SPDX-License-Identifier: MIT */
/*
 * stream_internal.h - what stream.c (streams, batches, events) and
 * stream_order.c (the order between a stream's CSs: fences, WAITs) share;
 * never installed.
 */
#ifndef HPUDRV_STREAM_INTERNAL_H
#define HPUDRV_STREAM_INTERNAL_H

#include "hpudrv_internal.h"

/* Command buffer of a stream: 64 KiB holds 2048 copies */
#define STREAM_CB_SIZE	   (64 * 1024)
/* Submitted batches kept before the finished ones are reaped */
#define STREAM_REAP_AT	   32
/* One WAIT_CS slice of a blocking wait, and how many slices at most */
#define WAIT_SLICE_US	   1000000ULL
#define WAIT_MAX_SLICES	   3600
/* CSs of hpu_stream_submit() an event recorded after them checks */
#define STREAM_MAX_SUBS	   HPU_WAIT_MULTI_CS_MAX
/* Events waited for and not yet ordered before any work (one WAIT chunk) */
#define STREAM_MAX_PENDING (HPU_WAIT_MULTI_CS_MAX - 1)
/* Bytes of a fence CB: a FENCE per dependency */
#define STREAM_FENCE_CB	   4096

/**
 * struct dep - what a stream's next work must follow
 * @seq: a CS that must have ended
 * @sob: the SOB whose count says so, when @target is not 0
 * @target: the count (a FENCE on @sob), 0: no count, a WAIT on @seq
 */
struct dep {
	uint64_t seq;
	uint32_t sob;
	uint32_t target;
};

/**
 * struct host_map - a host range mapped for a copy of a stream
 * @va: device VA returned by hpu_mem_map_host()
 * @next: list link
 */
struct host_map {
	uint64_t va;
	struct host_map *next;
};

/**
 * struct batch - a submitted CS of a stream, until its end was seen
 * @seq: sequence number
 * @maps: host mappings its copies use, unmapped when it ended
 * @next: list link, oldest first
 */
struct batch {
	uint64_t seq;
	struct host_map *maps;
	struct batch *next;
};

/**
 * struct hpu_stream - in-order work on one queue
 * @dev: device
 * @queue: DMA queue index
 * @cb: batch being built
 * @cur_maps: host mappings the batch being built uses
 * @head: oldest submitted batch not yet seen ending
 * @tail: newest one
 * @nbatches: batches in @head..@tail
 * @last_seq: newest CS of the stream, 0 before the first
 * @last_multi: @last_seq is a CS of hpu_stream_submit() (other queues),
 *	not one on @queue
 * @err: first failure seen since the last synchronize, 0 if none
 * @subs: CSs of hpu_stream_submit() since the last event record
 * @nsubs: entries in @subs
 * @sub_err: failure of a CS dropped from @subs before an event took it
 * @pending: CSs the stream's next work must start after (events it
 *	waits for) that nothing enforces yet: the next work waits for them
 *	with the fences or the WAIT it needs anyway (stream_enforce())
 * @npending: entries in @pending
 * @fence: order by fences in the CSs (hpu_stream_set_fences(),
 *	HPU_STREAM_FENCE)
 * @has_sob: @sob is the stream's (taken at its first CS)
 * @sob: the SOB its CSs signal on every queue they end on
 * @sig: @sob's value once every signal submitted so far ran
 * @last_sob: the SOB @last_seq signalled on
 * @last_target: @last_sob's count that says @last_seq ended; 0 when it
 *	did not signal (a WAIT on it then)
 * @sig_cb: MSG_LONG ADD 1 on @sob (the signal chunks' CB)
 * @fen_cb: FENCEs of the CS being submitted, for every queue
 * @fen_pend: FENCEs of only @pending (the stream's own queue behind a
 *	batch on it)
 *
 * After hpu_stream_submit() (@last_multi) the stream's own queue does not
 * wait for that CS at once either: its next work on the queue does.
 */
struct hpu_stream {
	struct hpu_device *dev;
	uint32_t queue;
	struct hpu_cb_builder *cb;
	struct host_map *cur_maps;
	struct batch *head, *tail;
	unsigned int nbatches;
	uint64_t last_seq;
	bool last_multi;
	int err;
	uint64_t subs[STREAM_MAX_SUBS];
	unsigned int nsubs;
	int sub_err;
	struct dep pending[STREAM_MAX_PENDING];
	unsigned int npending;
	bool fence;
	bool has_sob;
	uint32_t sob;
	uint32_t sig;
	uint32_t last_sob;
	uint32_t last_target;
	struct hpu_cb_builder *sig_cb;
	struct hpu_cb_builder *fen_cb;
	struct hpu_cb_builder *fen_pend;
};

/**
 * struct hpu_stream_event - a point in a stream's work
 * @dev: device
 * @seq: CS whose end the event stands for; 0 when never recorded
 * @sob: with @target: the recording stream's SOB
 * @target: its count that says @seq ended; 0 when none
 * @status_err: 0 until the end was seen, then its -errno or 0 in @done
 * @done: the end was seen
 * @ts_ns: device completion time, 0 when the driver gave none
 * @subs: CSs of hpu_stream_submit() the recorded point comes after, not
 *	yet taken by an earlier event: their failure is the event's
 * @nsubs: entries in @subs
 * @sub_err: a failure of such a CS already known at record time
 */
struct hpu_stream_event {
	struct hpu_device *dev;
	uint64_t seq;
	uint32_t sob;
	uint32_t target;
	int status_err;
	bool done;
	uint64_t ts_ns;
	uint64_t subs[STREAM_MAX_SUBS];
	unsigned int nsubs;
	int sub_err;
};

/* stream_order.c */
/*
 * Submit @chunks as the stream's next CS, ordered after what each of its
 * queues must follow (fences, or a WAIT for what has no count); tracked
 * with @maps. Return: 0 (its number in *@seqp) or -errno.
 */
int hpudrv_stream_cs(struct hpu_stream *s, const struct hpu_cs_chunk *chunks,
		     unsigned int n, uint32_t flags, uint32_t timeout_ms,
		     struct host_map *maps, uint64_t *seqp);
/* One WAIT on the stream's queue for what its next job must follow */
int hpudrv_stream_enforce(struct hpu_stream *s);
/* A CS of the stream failed: its SOB is never used again (a new one) */
void hpudrv_stream_sob_retire(struct hpu_stream *s);

#endif /* HPUDRV_STREAM_INTERNAL_H */
