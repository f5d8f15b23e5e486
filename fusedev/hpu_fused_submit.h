/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_submit.h - packet validation (packets*.c), the
 * timer thread (timer.c), and the memory, CBs, submissions and waits
 * of a context (memory.c, cb.c, cs.c, wait.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_SUBMIT_H
#define HPU_FUSED_SUBMIT_H

#include "hpu_fused_dev.h"

/* ------------------------------------------------------------------ */
/* Packet validation (packets.c)                                       */
/* ------------------------------------------------------------------ */

/**
 * enum hfd_queue_kind - the engine a hardware queue feeds
 * @HFD_QUEUE_NONE: no such queue
 * @HFD_QUEUE_DMA: a DMA engine (LIN_DMA, MEMSET allowed)
 * @HFD_QUEUE_MME: an MME
 * @HFD_QUEUE_TPC: a TPC
 * @HFD_QUEUE_NIC: a NIC port
 */
enum hfd_queue_kind {
	HFD_QUEUE_NONE = 0,
	HFD_QUEUE_DMA,
	HFD_QUEUE_MME,
	HFD_QUEUE_TPC,
	HFD_QUEUE_NIC,
};

enum hfd_queue_kind hfd_queue_kind(const struct hpu_fw_profile *profile,
				   uint32_t queue);
int hfd_packets_validate(const void *cb, size_t size, enum hfd_queue_kind kind,
			 size_t *bad_off);
/* Engine packet checks (packets_mme.c, packets_tpc.c); @p: the packet */
int hfd_check_mme_gemm(const uint8_t *p);
int hfd_check_tpc_kernel(const uint8_t *p);
int hfd_check_nic_write(const uint8_t *p);

/* ------------------------------------------------------------------ */
/* Timer thread (timer.c)                                              */
/* ------------------------------------------------------------------ */

struct hfd_timer;
typedef void (*hfd_timer_fn)(struct hfd_timer *t);

/**
 * struct hfd_timer - a deadline served by the driver's timer thread
 * @deadline_ns: CLOCK_MONOTONIC when @fn runs (0: as soon as possible)
 * @fn: runs on the timer thread, with no driver lock held
 * @armed: queued (protected by the timer lock)
 * @next: next queued timer (protected by the timer lock)
 * @prev: previous queued timer (protected by the timer lock)
 */
struct hfd_timer {
	uint64_t deadline_ns;
	hfd_timer_fn fn;
	bool armed;
	struct hfd_timer *next;
	struct hfd_timer *prev;
};

int hfd_timer_start(void);
void hfd_timer_stop(void);
void hfd_timer_arm(struct hfd_timer *t, uint64_t deadline_ns);
void hfd_timer_cancel_sync(struct hfd_timer *t);

/* ------------------------------------------------------------------ */
/* Memory, CBs, submissions, waits (memory.c, cb.c, cs.c, wait.c)      */
/* ------------------------------------------------------------------ */

int hfd_ctx_mem_init(struct hfd_ctx *ctx);
int hfd_shm_take_client_fd(struct hfd_ctx *ctx, pid_t tid, int fd, uint64_t off,
			   uint64_t size, void **ptr);
void hfd_ctx_mem_fini(struct hfd_ctx *ctx);
/* The checks both submission paths share (cs_check.c) */
int hfd_cs_check_args(uint32_t cs_flags, uint32_t num_chunks,
		      uint32_t timeout_ms);
int hfd_cs_check_chunk(uint32_t num_queues, const struct hpu_cs_chunk *c,
		       uint32_t cs_flags);
int hfd_ctx_cs_init(struct hfd_ctx *ctx);
void hfd_ctx_cs_fini(struct hfd_ctx *ctx);
void hfd_ctx_cs_free(struct hfd_ctx *ctx);

/**
 * struct hfd_cb_ref - what a submission needs of a CB
 * @bytes: private copy of the first @size bytes of the CB, or (with
 *	@borrowed) the caller's daemon-memory copy of what the chunk runs
 * @size: bytes copied
 * @usage: the CB's in-flight usage counter (atomic), already raised
 * @borrowed: @bytes is the caller's, not freed by hfd_cb_put()
 */
struct hfd_cb_ref {
	void *bytes;
	uint32_t size;
	uint32_t *usage;
	bool borrowed;
};

int hfd_cb_get(struct hfd_ctx *ctx, uint64_t handle, uint32_t size,
	       pid_t requester, const void *copy, struct hfd_cb_ref *ref);
void hfd_cb_put(struct hfd_cb_ref *ref);

/**
 * struct hfd_cs_desc - a CS described in daemon memory (hfd_cs_submit())
 * @chunks: @n chunks (the caller's; checked by the caller)
 * @n: chunks
 * @cs_flags: HPU_CS_FLAGS_*
 * @timeout_ms: as hpu_cs_in.timeout_ms
 * @wait_seqs: HPU_CS_FLAGS_WAIT: the chunks' sequence numbers, chunk
 *	after chunk (the ring), or NULL: each chunk's cb_handle is a user
 *	pointer to them (the ioctl)
 * @ring: it is an entry of the context's ring: its ending writes a
 *	completion record
 * @ring_gen: @ring: the registration the entry came from
 * @user_data: @ring: the entry's user_data
 * @refuse: 0, or the -errno that refused a ring entry: the submission
 *	only takes a sequence number, which ends ABORTED at once (nothing
 *	else of the description is used)
 * @cb_bytes: a normal CS: what the chunks run, chunk after chunk (each
 *	chunk's cb_size bytes), already in daemon memory (a ring entry's
 *	CB arena bytes, copied at its take); NULL: each chunk's bytes are
 *	copied out of its CB's creator
 * @raw_cb: with @cb_bytes: no CB is behind the bytes (the habanalabs
 *	personality's translated chunks): nothing is looked up or pinned,
 *	the chunks' cb_handle is not used
 * @streams: NULL, or the stream (0..HPU_FW_STREAMS-1) of each chunk's
 *	job on its queue (the habanalabs personality's QMAN streams)
 */
struct hfd_cs_desc {
	struct hpu_cs_chunk *chunks;
	uint32_t n;
	uint32_t cs_flags;
	uint32_t timeout_ms;
	const uint64_t *wait_seqs;
	bool ring;
	uint32_t ring_gen;
	uint64_t user_data;
	int32_t refuse;
	const uint8_t *cb_bytes;
	bool raw_cb;
	const uint8_t *streams;
};

int hfd_cs_submit(struct hfd_ctx *ctx, pid_t requester,
		  const struct hfd_cs_desc *d, uint64_t *seq, bool *completed);
void hfd_cs_done_cb(void *arg, void *cookie, enum hpu_fw_cs_result result,
		    const struct hpu_fw_fault *fault, uint64_t done_ns);
void hfd_engine_reset_cb(void *arg, uint32_t engine);
int hfd_cs_seq_status(struct hfd_ctx *ctx, uint64_t seq, uint32_t *status,
		      uint64_t *ts, bool *ts_valid);
void hfd_wait_cs_ended(struct hfd_ctx *ctx);
void hfd_wait_ctx_fini(struct hfd_ctx *ctx);
void hfd_wait_interrupt(uint64_t id);

#endif /* HPU_FUSED_SUBMIT_H */
