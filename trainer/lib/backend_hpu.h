/* SPDX-License-Identifier: MIT */
/*
 * backend_hpu.h - what the hpu backend's files share: its state, the
 * program's segments and captured graphs, the prefetch areas
 * (backend_hpu.c: the program and graphs; backend_hpu_prefetch.c: batches
 * copied to the device ahead of the step that uses them).
 */
#ifndef HT_BACKEND_HPU_H
#define HT_BACKEND_HPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpudrv.h"
#include "ht_backend.h"

enum {
	Q_DMA,
	Q_MME,
	Q_TPC,
	NQ
};

/* a wait outlasts the CS's own timeout by this much: the daemon ends it first */
#define WAIT_MARGIN_US (10ULL * 1000000ULL)

/**
 * struct seg - one submission's command buffers
 * @cb: per queue (created on first use)
 * @end_op: graph capture: ops issued when it was submitted
 */
struct seg {
	struct hpu_cb_builder *cb[NQ];
	uint32_t end_op;
};

/**
 * struct segset - segments, filled in order
 * @v: the segments
 * @n: entries
 */
struct segset {
	struct seg *v;
	unsigned int n;
};

/**
 * struct gop - one op of a captured step
 * @hash: of its operands
 * @seg: segment holding its packet (dynamic parameters only)
 * @off: byte offset of its packet in that segment's TPC CB
 * @dyn: its dynamic parameters
 */
struct gop {
	uint64_t hash;
	uint32_t seg;
	uint32_t off;
	uint32_t dyn;
};

/* What a direct replay (ht_graph_replay()) redoes, in capture order */
enum gev_kind {
	GEV_IN,	    /* an upload's bytes: host -> staging */
	GEV_OUT,    /* a fetch: staging -> host at the next wait */
	GEV_SUBMIT, /* a captured segment submitted */
	GEV_WAIT    /* a wait for every submission, then the fetches */
};

/**
 * struct gev - one host-side event of a captured step
 * @kind: enum gev_kind
 * @seg: GEV_SUBMIT: the segment
 * @off: GEV_IN, GEV_OUT: byte offset in staging
 * @n: GEV_IN, GEV_OUT: bytes
 * @host: GEV_IN: the upload's source; GEV_OUT: the fetch's destination
 */
struct gev {
	enum gev_kind kind;
	uint32_t seg;
	size_t off;
	size_t n;
	void *host;
};

enum gstate {
	G_OFF,
	G_CAPTURE,
	G_READY,
	G_REPLAY
};

/**
 * struct graph - one captured training step
 * @ss: its segments (the first @gsegs are the captured ones)
 * @gsegs: captured segments
 * @gops: its ops
 * @ngops: entries
 * @gops_cap: room
 * @evs: host-side events of the capture (direct replay)
 * @nevs: entries
 * @evs_cap: room
 * @ndyn: dynamic parameters of its ops
 * @no_direct: the capture holds what a direct replay cannot redo (a
 *	prefetch wait)
 * @state: enum gstate
 */
struct graph {
	struct segset ss;
	unsigned int gsegs;
	struct gop *gops;
	unsigned int ngops;
	unsigned int gops_cap;
	struct gev *evs;
	unsigned int nevs;
	unsigned int evs_cap;
	unsigned int ndyn;
	bool no_direct;
	enum gstate state;
};

/* A fetch done at the next wait */
struct fetch {
	void *dst;
	const void *src;
	size_t n;
};

/**
 * struct pf_area - pinned host memory of one prefetch in flight
 * @host: the memory
 * @va: its device VA
 * @cap: its size
 * @seq: the upload CS reading it, 0 when none may still run
 * @prog_ns: device time at which the first program submission after
 *	the upload began (host time converted, never early), 0 before
 */
struct pf_area {
	uint8_t *host;
	uint64_t va;
	size_t cap;
	uint64_t seq;
	uint64_t prog_ns;
};

/**
 * struct ht_hpu_be - state of the hpu backend
 * @dev: device handle
 * @cs_timeout_ms: device timeout of every CS (ht_backend_opts)
 * @wait_us: bound of a wait for one of them: @cs_timeout_ms + WAIT_MARGIN_US
 * @name: how errors name the device: node and bus id, "hpu1 (0000:1a:00.0)"
 * @own_dev: opened here (closed at fini)
 * @alloc: caching allocator of the arenas' chunks
 * @ip: HW_IP_INFO
 * @queue: queue index of each of Q_DMA, Q_MME, Q_TPC
 * @sob: sync object each queue waits on
 * @live: segments of the steps that are not captured
 * @ss: segments being filled: @live, or those of the graph in capture
 * @cur: segment of @ss being filled
 * @token: queue that ran the last op, -1 when the device is idle
 * @stage: pinned staging memory
 * @stage_va: its device VA
 * @stage_cap: its size
 * @stage_used: bytes handed out since the last wait
 * @fetches: fetches waiting for the next wait
 * @nfetch: entries
 * @fetch_cap: room
 * @inflight: sequence numbers submitted and not waited for
 * @ninflight: entries
 * @inflight_cap: room
 * @gr: the captured steps, one per graph id
 * @gi: graph of the open graph step
 * @graph_step: the open step is captured or replayed
 * @op_idx: ops of the replayed step compared so far
 * @replay_seg: next captured segment to submit
 * @failed: the replayed step differed: issue nothing more in it
 * @stream: submissions go through hpu_stream_submit() on it, or NULL
 * @pf_queue: DMA queue of the prefetch uploads (the device's last one)
 * @pf_sob: sync object each upload increments when it ended
 * @pf_cb: the upload's command buffer
 * @pf: pinned memory of the uploads, used in turn
 * @pf_next: area of the next upload
 * @pf_issued: uploads submitted whose signal no program took yet
 * @pf_clock_off: device clock - host CLOCK_MONOTONIC, rounded up
 * @pf_clock_set: @pf_clock_off was measured
 */
struct ht_hpu_be {
	struct hpu_device *dev;
	uint32_t cs_timeout_ms;
	uint64_t wait_us;
	char name[HPU_NAME_LEN + HPU_BUS_ID_LEN + 4];
	bool own_dev;
	struct hpu_allocator *alloc;
	struct hpu_info_hw_ip_info ip;
	uint32_t queue[NQ];
	uint32_t sob[NQ];
	struct segset live;
	struct segset *ss;
	unsigned int cur;
	int token;
	uint8_t *stage;
	uint64_t stage_va;
	size_t stage_cap;
	size_t stage_used;
	struct fetch *fetches;
	unsigned int nfetch;
	unsigned int fetch_cap;
	uint64_t *inflight;
	unsigned int ninflight;
	unsigned int inflight_cap;
	struct graph gr[HT_MAX_GRAPHS];
	unsigned int gi;
	bool graph_step;
	unsigned int op_idx;
	unsigned int replay_seg;
	bool failed;
	struct hpu_stream *stream;
	uint32_t pf_queue;
	uint32_t pf_sob;
	struct hpu_cb_builder *pf_cb;
	struct pf_area pf[HT_PREFETCH_DEPTH];
	unsigned int pf_next;
	unsigned int pf_issued;
	int64_t pf_clock_off;
	bool pf_clock_set;
};

static inline struct ht_hpu_be *HB(struct ht_backend *be)
{
	return be->priv;
}

/* The open step is being captured (its segments are the graph's) */
static inline bool ht_hb_capturing(const struct ht_hpu_be *hb)
{
	return hb->ss != &hb->live;
}

/* backend_hpu.c */
int ht_hb_seg_submit(struct ht_backend *be, struct seg *s);
int ht_hb_wait_all(struct ht_backend *be);
int ht_hb_grow(void **arr, unsigned int *cap, unsigned int need, size_t esz);
int ht_hb_graph_op(struct ht_backend *be, uint64_t hash, const char *what,
		   uint32_t dyn, const uint32_t *params);
int ht_hb_prepare(struct ht_backend *be, unsigned int q, size_t bytes);
int ht_hb_emitted(struct ht_backend *be);
int ht_hb_cs_wait(struct ht_backend *be, uint64_t seq, uint64_t *ts);

/* backend_hpu_replay.c */
int ht_hb_graph_event(struct ht_backend *be, enum gev_kind kind, uint32_t seg,
		      size_t off, size_t n, const void *host);
/*
 * Patch @g's dynamic parameters into its captured packet: from @params
 * indexed as the kernel's parameters, or (@packed) one after another
 */
void ht_hb_patch_dyn(struct graph *G, const struct gop *g,
		     const uint32_t *params, bool packed);
int ht_hb_graph_info(struct ht_backend *be, unsigned int gid,
		     unsigned int *ndyn);
int ht_hb_replay(struct ht_backend *be, unsigned int gid, const uint32_t *dyn,
		 unsigned int ndyn);

/* backend_hpu_prefetch.c */
int ht_hb_prefetch_init(struct ht_backend *be);
void ht_hb_prefetch_release(struct ht_hpu_be *hb);
int ht_hb_prefetch(struct ht_backend *be, const struct ht_xfer *x,
		   unsigned int n);
int ht_hb_prefetch_wait(struct ht_backend *be);
int ht_hb_prefetch_cancel(struct ht_backend *be);
void ht_hb_prefetch_submitted(struct ht_hpu_be *hb);

#endif /* HT_BACKEND_HPU_H */
