// SPDX-License-Identifier: MIT
/*
 * backend_hpu.c - the hpu backend: ops become packets of a program of
 * per-queue command buffers (one DMA, one MME, one TPC queue) in one total
 * order (docs/training.md, Execution modes).
 *
 * Ordering: a queue runs its packets in order, so only a change of queue
 * needs a dependency: the queue that ran the previous op adds 1 to the
 * sync object of the next queue (MSG_LONG ADD) and the next queue waits
 * for it and takes it back (FENCE target 1, dec 1). Every op thus runs
 * after every earlier op, and the sync objects are back at 0 whenever
 * the device is idle. The queue holding the "token" (the one that ran the
 * last op) carries over a submission that does not wait (a full CB), so
 * the next submission's first op still waits for it.
 *
 * Modes: eager submits and waits after every op; lazy submits at a
 * synchronization (step end, a host read, staging memory full, a full
 * CB); graph captures the first training step of each graph id like
 * lazy, keeping its CBs in the graph's own segments (the driver copies a
 * CB at every submission, so they can be submitted again), and replays
 * them for the later training steps of that id (the trainer uses one id
 * per device input buffer of the prefetch): ops are then
 * only hashed and compared with the captured sequence (an op that differs
 * ends the step with -EINVAL and a message), and the captured segments
 * are submitted as the replay reaches their ends. Parameters marked
 * dynamic (learning rate, AdamW's step) are left out of the comparison
 * and patched into the captured packet before its resubmission.
 *
 * Host data moves through pinned staging memory (hpu_host_alloc), handed
 * out in call order and reset at every synchronization: an upload copies
 * into it at once and a LIN_DMA of the program moves it to HBM; a fetch
 * is a LIN_DMA into it whose bytes are copied out after the wait.
 * Batches prefetched to the device ahead of their step take another path
 * (backend_hpu_prefetch.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend_hpu.h"
#include "ht_error.h"

#define STAGE_DEFAULT (16U << 20)
#define STAGE_ALIGN   256
/* a handoff: MSG_LONG in one CB, FENCE in another */
#define HANDOFF_BYTES (sizeof(struct hpu_pkt_msg_long))
#define SYNC_HASH     0x5f3759df5f3759dfULL
#define FLUSH_HASH    0x2545f4914f6cdd1dULL

static const char *const qname[NQ] = { "DMA", "MME", "TPC" };
static const size_t cb_bytes[NQ] = { 256U << 10, 256U << 10, 1U << 20 };

/*
 * The graph's op hash: FNV-1a's xor-multiply over 64-bit words (a byte
 * tail as one more word), each word first mixed by a multiply and a
 * shift so that every bit of it reaches the state. A replayed step
 * hashes every op's descriptor (a TPC kernel's is up to 700 bytes, a
 * decode step has ~100 ops): byte by byte that was ~1/6 of the client's
 * time per replayed token, word by word it is ~8x less. Hashes are only
 * compared within one process (capture vs replay), never stored.
 */
static uint64_t hash_word(uint64_t h, uint64_t w)
{
	w *= 0x9e3779b97f4a7c15ULL;
	w ^= w >> 29;
	return (h ^ w) * 0x100000001b3ULL;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t w;

	for (; n >= sizeof(w); n -= sizeof(w), b += sizeof(w)) {
		memcpy(&w, b, sizeof(w));
		h = hash_word(h, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = hash_word(h, w ^ ((uint64_t)n << 56));
	}
	return h;
}

int ht_hb_grow(void **arr, unsigned int *cap, unsigned int need, size_t esz)
{
	unsigned int n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	p = realloc(*arr, (size_t)n * esz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/* Segment @i exists with empty CBs of every queue */
static int seg_get(struct ht_backend *be, unsigned int i)
{
	struct ht_hpu_be *hb = HB(be);
	struct seg *s;
	unsigned int q;
	int ret;
	struct segset *ss = hb->ss;

	if (i >= ss->n) {
		s = realloc(ss->v, (i + 1) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		ss->v = s;
		memset(&s[ss->n], 0, (i + 1 - ss->n) * sizeof(*s));
		ss->n = i + 1;
	}
	s = &ss->v[i];
	for (q = 0; q < NQ; q++) {
		if (s->cb[q])
			continue;
		ret = hpu_cb_builder_create(hb->dev, cb_bytes[q], &s->cb[q]);
		if (ret) {
			ht_seterr(be->err, sizeof(be->err),
				  "%s: cannot create a %s command buffer: %s",
				  HB(be)->name, qname[q], hpu_strerror(ret));
			return ret;
		}
	}
	return 0;
}

/* Submit the CBs of @s (those with packets) as one CS */
int ht_hb_seg_submit(struct ht_backend *be, struct seg *s)
{
	struct ht_hpu_be *hb = HB(be);
	struct hpu_cs_chunk chunks[NQ];
	unsigned int q, n = 0;
	uint64_t seq;
	int done = 0, ret;

	memset(chunks, 0, sizeof(chunks));
	for (q = 0; q < NQ; q++) {
		size_t used = hpu_cb_builder_used(s->cb[q]);

		if (!used)
			continue;
		chunks[n].cb_handle = hpu_cb_builder_handle(s->cb[q]);
		chunks[n].queue_index = hb->queue[q];
		chunks[n].cb_size = (uint32_t)used;
		n++;
	}
	if (!n)
		return 0;
	ret = ht_hb_grow((void **)&hb->inflight, &hb->inflight_cap,
			 hb->ninflight + 1, sizeof(*hb->inflight));
	if (ret)
		return ret;
	ht_hb_prefetch_submitted(hb);
	if (hb->stream)
		ret = hpu_stream_submit(hb->stream, chunks, n,
					hb->cs_timeout_ms, &seq);
	else
		ret = hpu_cs_submit(hb->dev, chunks, n, 0, hb->cs_timeout_ms,
				    &seq, &done);
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: command submission failed: %s", HB(be)->name,
			  hpu_strerror(ret));
		return ret;
	}
	be->stats.submissions++;
	if (!done)
		hb->inflight[hb->ninflight++] = seq;
	return 0;
}

static void seg_reset(struct ht_hpu_be *hb, unsigned int i)
{
	unsigned int q;

	for (q = 0; q < NQ; q++)
		if (hb->ss->v[i].cb[q])
			hpu_cb_builder_reset(hb->ss->v[i].cb[q]);
}

static bool seg_empty(struct ht_hpu_be *hb, unsigned int i)
{
	unsigned int q;

	for (q = 0; q < NQ; q++)
		if (hpu_cb_builder_used(hb->ss->v[i].cb[q]))
			return false;
	return true;
}

/*
 * Submit the segment being filled without waiting; the token carries
 * over. A captured segment is kept and the capture goes on in the next.
 */
static int cur_submit(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	int ret;

	if (seg_empty(hb, hb->cur))
		return 0;
	ret = ht_hb_seg_submit(be, &hb->ss->v[hb->cur]);
	if (ret)
		return ret;
	if (ht_hb_capturing(hb)) {
		hb->ss->v[hb->cur].end_op = hb->gr[hb->gi].ngops;
		ret = ht_hb_graph_event(be, GEV_SUBMIT, hb->cur, 0, 0, NULL);
		if (ret)
			return ret;
		hb->cur++;
		return seg_get(be, hb->cur);
	}
	seg_reset(hb, hb->cur);
	return 0;
}

/*
 * Wait for CS @seq (its completion time into @ts when not NULL): 0, or
 * -ETIMEDOUT when it is still busy, -EIO when it did not complete
 */
int ht_hb_cs_wait(struct ht_backend *be, uint64_t seq, uint64_t *ts)
{
	struct ht_hpu_be *hb = HB(be);
	uint32_t status = 0;
	int ret;

	ret = ts ? hpu_cs_wait_timestamp(hb->dev, seq, hb->wait_us, &status,
					 ts) :
		   hpu_cs_wait(hb->dev, seq, hb->wait_us, &status);
	be->stats.waits++;
	if (!ret && status != HPU_WAIT_CS_STATUS_COMPLETED)
		ret = status == HPU_WAIT_CS_STATUS_BUSY	    ? -ETIMEDOUT :
		      status == HPU_WAIT_CS_STATUS_TIMEDOUT ? -ETIME :
							      -EIO;
	return ret;
}

/* Wait for every submitted CS, then do the fetches */
int ht_hb_wait_all(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	unsigned int i;
	int ret = 0;

	for (i = 0; i < hb->ninflight; i++) {
		int r = ht_hb_cs_wait(be, hb->inflight[i], NULL);

		if (r && !ret) {
			ret = r;
			ht_seterr(
				be->err, sizeof(be->err),
				"%s: a submission of the program %s",
				HB(be)->name,
				r == -EIO ?
					"was aborted (see hpu-fused's log)" :
				r == -ETIME ?
					"timed out on the device and was aborted (its CS timeout; see hpu-fused's log)" :
				r == -ETIMEDOUT ? "did not complete in time" :
						  "could not be waited for");
		}
	}
	hb->ninflight = 0;
	hb->token = -1;
	for (i = 0; !ret && i < hb->nfetch; i++)
		memcpy(hb->fetches[i].dst, hb->fetches[i].src,
		       hb->fetches[i].n);
	hb->nfetch = 0;
	hb->stage_used = 0;
	return ret;
}

/* Submit the captured segments that end at the replay's position */
static int replay_advance(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G = &hb->gr[hb->gi];
	int ret;

	while (hb->replay_seg < G->gsegs &&
	       G->ss.v[hb->replay_seg].end_op == hb->op_idx) {
		ret = ht_hb_seg_submit(be, &G->ss.v[hb->replay_seg++]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Graph bookkeeping of one op: record it (capture) or compare it with the
 * captured one (replay). Return 1 when the op must not be emitted.
 */
int ht_hb_graph_op(struct ht_backend *be, uint64_t hash, const char *what,
		   uint32_t dyn, const uint32_t *params)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G = &hb->gr[hb->gi];
	struct gop *g;
	int ret;

	if (!hb->graph_step)
		return 0;
	if (G->state == G_CAPTURE) {
		ret = ht_hb_grow((void **)&G->gops, &G->gops_cap, G->ngops + 1,
				 sizeof(*G->gops));
		if (ret)
			return ret;
		g = &G->gops[G->ngops++];
		g->hash = hash;
		g->dyn = dyn;
		g->seg = hb->cur;
		g->off = 0;
		G->ndyn += (unsigned int)__builtin_popcount(dyn);
		return 0;
	}
	if (hb->failed)
		return -ECANCELED;
	if (hb->op_idx >= G->ngops || G->gops[hb->op_idx].hash != hash) {
		hb->failed = true;
		ht_seterr(
			be->err, sizeof(be->err),
			"graph mode: op %u of the step (%s) differs from the captured step (%u ops); steps must issue the same ops on the same tensors",
			hb->op_idx + 1, what, G->ngops);
		return -EINVAL;
	}
	g = &G->gops[hb->op_idx++];
	if (dyn)
		ht_hb_patch_dyn(G, g, params, false);
	ret = replay_advance(be);
	return ret ? ret : 1;
}

static int hb_sync(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	int ret, r;

	ret = ht_hb_graph_op(be, SYNC_HASH, "a synchronization", 0, NULL);
	if (ret < 0)
		return ret;
	if (!ret)
		ret = cur_submit(be);
	else
		ret = 0;
	r = ht_hb_wait_all(be);
	if (!ret && !r && ht_hb_capturing(hb))
		ret = ht_hb_graph_event(be, GEV_WAIT, 0, 0, 0, NULL);
	if (!ht_hb_capturing(hb))
		seg_reset(hb, hb->cur); /* what a failure left unsent */
	return ret ? ret : r;
}

/* Submit without waiting; a replay has submitted the segment ending here */
static int hb_flush(struct ht_backend *be)
{
	int ret = ht_hb_graph_op(be, FLUSH_HASH, "a flush", 0, NULL);

	if (ret)
		return ret < 0 ? ret : 0;
	return cur_submit(be);
}

static int hb_set_stream(struct ht_backend *be, struct hpu_stream *s)
{
	struct ht_hpu_be *hb = HB(be);

	if (s && hpu_stream_device(s) != hb->dev)
		return -EINVAL;
	hb->stream = s;
	return 0;
}

static int hb_mem_stats(struct ht_backend *be, uint64_t *in_use, uint64_t *peak)
{
	struct hpu_allocator_stats st;
	int ret = hpu_allocator_stats(HB(be)->alloc, &st);

	if (ret)
		return ret;
	*in_use = st.bytes_in_use;
	*peak = st.peak_bytes_in_use;
	return 0;
}

static struct hpu_device *hb_device(struct ht_backend *be)
{
	return HB(be)->dev;
}

/*
 * Make room for @bytes on queue @q (and for the handoff), then append the
 * handoff from the token's queue: the op emitted next runs after every
 * op before it.
 */
int ht_hb_prepare(struct ht_backend *be, unsigned int q, size_t bytes)
{
	struct ht_hpu_be *hb = HB(be);
	struct seg *s = &hb->ss->v[hb->cur];
	int ret, t = hb->token;
	bool fits;

	fits = hpu_cb_builder_used(s->cb[q]) + bytes + HANDOFF_BYTES <=
		       hpu_cb_builder_size(s->cb[q]) &&
	       (t < 0 || hpu_cb_builder_used(s->cb[t]) + HANDOFF_BYTES <=
				 hpu_cb_builder_size(s->cb[t]));
	if (!fits) {
		ret = cur_submit(be);
		if (ret)
			return ret;
		s = &hb->ss->v[hb->cur];
	}
	if (t >= 0 && t != (int)q) {
		ret = hpu_cb_msg_long(s->cb[t], hb->sob[q], HPU_MSG_OP_ADD, 1);
		if (!ret)
			ret = hpu_cb_fence(s->cb[q], hb->sob[q], 1, 1);
		if (ret)
			return ret;
	}
	hb->token = (int)q;
	return 0;
}

/* After an op was appended: eager mode runs it now */
int ht_hb_emitted(struct ht_backend *be)
{
	return be->mode == HT_EXEC_EAGER ? hb_sync(be) : 0;
}

static int emit_dma(struct ht_backend *be, uint64_t dst, uint64_t src,
		    uint64_t n)
{
	struct ht_hpu_be *hb = HB(be);
	uint64_t h[3] = { dst, src, n };
	int ret;

	/* the hash only matters in a graph step (capture or replay) */
	ret = ht_hb_graph_op(
		be,
		hb->graph_step ? fnv(0xcbf29ce484222325ULL, h, sizeof(h)) : 0,
		"DMA", 0, NULL);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = ht_hb_prepare(be, Q_DMA, sizeof(struct hpu_pkt_lin_dma));
	if (!ret)
		ret = hpu_cb_lin_dma(hb->ss->v[hb->cur].cb[Q_DMA], dst, src, n);
	return ret ? ret : ht_hb_emitted(be);
}

/* Room in staging for @n bytes (at most its size), waiting when full */
static int stage_take(struct ht_backend *be, size_t n, size_t *off, size_t *got)
{
	struct ht_hpu_be *hb = HB(be);
	int ret;

	if (hb->stage_used >= hb->stage_cap ||
	    (hb->stage_cap - hb->stage_used < n && hb->stage_used)) {
		ret = hb_sync(be);
		if (ret)
			return ret;
	}
	*off = hb->stage_used;
	*got = n < hb->stage_cap - hb->stage_used ?
		       n :
		       hb->stage_cap - hb->stage_used;
	hb->stage_used += (*got + STAGE_ALIGN - 1) & ~(size_t)(STAGE_ALIGN - 1);
	return 0;
}

static int hb_upload(struct ht_backend *be, uint64_t dst, const void *src,
		     size_t n)
{
	struct ht_hpu_be *hb = HB(be);
	size_t off, got;
	int ret;

	while (n) {
		ret = stage_take(be, n, &off, &got);
		if (ret)
			return ret;
		memcpy(hb->stage + off, src, got);
		ret = ht_hb_graph_event(be, GEV_IN, 0, off, got, src);
		if (!ret)
			ret = emit_dma(be, dst, hb->stage_va + off, got);
		if (ret)
			return ret;
		dst += got;
		src = (const uint8_t *)src + got;
		n -= got;
	}
	return 0;
}

static int hb_fetch(struct ht_backend *be, void *dst, uint64_t src, size_t n)
{
	struct ht_hpu_be *hb = HB(be);
	size_t off, got;
	struct fetch *f;
	int ret;

	while (n) {
		ret = stage_take(be, n, &off, &got);
		if (ret)
			return ret;
		ret = ht_hb_grow((void **)&hb->fetches, &hb->fetch_cap,
				 hb->nfetch + 1, sizeof(*hb->fetches));
		if (ret)
			return ret;
		f = &hb->fetches[hb->nfetch++];
		f->dst = dst;
		f->src = hb->stage + off;
		f->n = got;
		ret = ht_hb_graph_event(be, GEV_OUT, 0, off, got, dst);
		if (!ret)
			ret = emit_dma(be, hb->stage_va + off, src, got);
		if (ret)
			return ret;
		src += got;
		dst = (uint8_t *)dst + got;
		n -= got;
	}
	return 0;
}

static int hb_copy(struct ht_backend *be, uint64_t dst, uint64_t src, size_t n)
{
	return emit_dma(be, dst, src, n);
}

static int hb_gemm(struct ht_backend *be, const struct hpu_pkt_mme_gemm *g)
{
	struct ht_hpu_be *hb = HB(be);
	int ret;

	ret = ht_hb_graph_op(
		be,
		hb->graph_step ? fnv(0xcbf29ce484222325ULL, g, sizeof(*g)) : 0,
		"GEMM", 0, NULL);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = ht_hb_prepare(be, Q_MME, sizeof(*g));
	if (!ret)
		ret = hpu_cb_mme_gemm(hb->ss->v[hb->cur].cb[Q_MME], g);
	return ret ? ret : ht_hb_emitted(be);
}

static int hb_kernel(struct ht_backend *be, uint32_t id,
		     const struct hpu_tpc_tensor *t, unsigned int nt,
		     const uint32_t *params, unsigned int np, uint32_t dyn)
{
	struct ht_hpu_be *hb = HB(be);
	uint32_t p[HPU_TPC_MAX_PARAMS] = { 0 };
	struct hpu_cb_builder *cb;
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int i;
	size_t off;
	int ret;

	if (nt > HPU_TPC_MAX_TENSORS || np > HPU_TPC_MAX_PARAMS)
		return -EINVAL;
	if (hb->graph_step) {
		for (i = 0; i < np; i++)
			p[i] = dyn & (1U << i) ? 0 : params[i];
		h = fnv(h, &id, sizeof(id));
		h = fnv(h, t, nt * sizeof(*t));
		h = fnv(h, p, sizeof(p));
	}
	ret = ht_hb_graph_op(be, h, "TPC kernel", dyn, params);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = ht_hb_prepare(be, Q_TPC, sizeof(struct hpu_pkt_tpc_kernel));
	if (ret)
		return ret;
	cb = hb->ss->v[hb->cur].cb[Q_TPC];
	off = hpu_cb_builder_used(cb);
	ret = hpu_cb_tpc_kernel(cb, id, t, nt, params, np);
	if (ret)
		return ret;
	if (hb->graph_step && ht_hb_capturing(hb)) {
		struct graph *G = &hb->gr[hb->gi];

		G->gops[G->ngops - 1].seg = hb->cur;
		G->gops[G->ngops - 1].off = (uint32_t)off;
	}
	return ht_hb_emitted(be);
}

static int hb_step_begin(struct ht_backend *be, bool graph, unsigned int gid)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G;
	unsigned int i;
	int ret;

	ret = hb_sync(be); /* the step starts on an idle device */
	if (ret)
		return ret;
	hb->failed = false;
	if (!graph)
		return 0;
	if (gid >= HT_MAX_GRAPHS)
		return -EINVAL;
	G = &hb->gr[gid];
	hb->gi = gid;
	if (G->state == G_READY) {
		G->state = G_REPLAY;
		hb->op_idx = 0;
		hb->replay_seg = 0;
		be->stats.replays++;
	} else {
		/* capture into the graph's segments 0.. (the device is idle) */
		hb->ss = &G->ss;
		for (i = 0; i < G->ss.n; i++)
			seg_reset(hb, i);
		hb->cur = 0;
		G->gsegs = 0;
		G->state = G_CAPTURE;
		G->ngops = 0;
		G->nevs = 0;
		G->ndyn = 0;
		G->no_direct = false;
		ret = seg_get(be, 0);
		if (ret) {
			hb->ss = &hb->live;
			G->state = G_OFF;
			return ret;
		}
	}
	hb->graph_step = true;
	return 0;
}

static int hb_step_end(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	struct graph *G = &hb->gr[hb->gi];
	int ret;

	ret = hb_sync(be);
	if (!hb->graph_step)
		return ret;
	hb->graph_step = false;
	if (G->state == G_CAPTURE) {
		G->gsegs = hb->cur;
		hb->ss = &hb->live;
		hb->cur = 0;
		/* a failed capture is dropped: the next step captures */
		G->state = ret ? G_OFF : G_READY;
		return ret;
	}
	G->state = G_READY;
	if (hb->failed)
		return -EINVAL; /* be->err says where it differed */
	if (!ret && hb->op_idx != G->ngops) {
		ht_seterr(
			be->err, sizeof(be->err),
			"graph mode: the step issued %u ops, the captured step %u; steps must issue the same ops",
			hb->op_idx, G->ngops);
		ret = -EINVAL;
	}
	return ret;
}

static int hb_mem_alloc(struct ht_backend *be, uint64_t size, uint64_t *addr)
{
	return hpu_alloc(HB(be)->alloc, size, addr);
}

static void hb_mem_free(struct ht_backend *be, uint64_t addr)
{
	hpu_free(HB(be)->alloc, addr);
}

static void segset_release(struct segset *ss)
{
	unsigned int i, q;

	for (i = 0; i < ss->n; i++)
		for (q = 0; q < NQ; q++)
			hpu_cb_builder_destroy(ss->v[i].cb[q]);
	free(ss->v);
}

static void hb_be_release(struct ht_hpu_be *hb)
{
	unsigned int g;

	ht_hb_prefetch_release(hb);
	segset_release(&hb->live);
	for (g = 0; g < HT_MAX_GRAPHS; g++) {
		segset_release(&hb->gr[g].ss);
		free(hb->gr[g].gops);
		free(hb->gr[g].evs);
	}
	if (hb->stage)
		hpu_host_free(hb->dev, hb->stage);
	hpu_allocator_destroy(hb->alloc);
	if (hb->own_dev)
		hpu_close(hb->dev);
	free(hb->fetches);
	free(hb->inflight);
	free(hb);
}

/* How the errors name the device: node and bus id, "hpu1 (0000:1a:00.0)" */
static void set_name(struct ht_hpu_be *hb)
{
	struct hpu_device_info info;

	if (hpu_device_describe(hb->dev, &info))
		snprintf(hb->name, sizeof(hb->name), "hpu%d",
			 hpu_device_index(hb->dev));
	else
		snprintf(hb->name, sizeof(hb->name), "%s (%s)", info.node_name,
			 info.bus_id);
}

static int hb_init(struct ht_backend *be, const struct ht_backend_opts *o)
{
	struct ht_hpu_be *hb = calloc(1, sizeof(*hb));
	unsigned int q;
	void *p;
	int ret;

	if (!hb)
		return -ENOMEM;
	be->priv = hb;
	hb->token = -1;
	hb->ss = &hb->live;
	hb->cs_timeout_ms = o->cs_timeout_ms ?: HT_CS_TIMEOUT_MS;
	hb->wait_us = hb->cs_timeout_ms * 1000ULL + WAIT_MARGIN_US;
	hb->dev = o->dev;
	if (!hb->dev) {
		ret = hpu_open(o->device_index, &hb->dev);
		if (ret) {
			ht_seterr(be->err, sizeof(be->err),
				  "hpu%d: cannot open the device: %s",
				  o->device_index,
				  hpu_last_error() ?: hpu_strerror(ret));
			goto err_free;
		}
		hb->own_dev = true;
	}
	set_name(hb);
	ret = hpu_info_hw_ip(hb->dev, &hb->ip);
	if (!ret && (!hb->ip.num_dma || !hb->ip.num_mme || !hb->ip.num_tpc))
		ret = -ENODEV;
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: the device has no DMA, MME or TPC queue",
			  HB(be)->name);
		goto err_free;
	}
	hb->queue[Q_DMA] = 0;
	hb->queue[Q_MME] = hb->ip.num_dma;
	hb->queue[Q_TPC] = hb->ip.num_dma + hb->ip.num_mme;
	for (q = 0; q < NQ; q++)
		hb->sob[q] = (o->sob_base ? o->sob_base : HT_HPU_SOB_BASE) + q;
	/* the prefetch uploads' object follows the queues' */
	if (hb->sob[NQ - 1] + 1 >= HPU_NUM_SOBS) {
		ret = -EINVAL;
		ht_seterr(be->err, sizeof(be->err),
			  "%s: sync objects %u.. out of range", hb->name,
			  hb->sob[0]);
		goto err_free;
	}
	ret = hpu_allocator_create(hb->dev, NULL, &hb->alloc);
	if (ret)
		goto err_free;
	hb->stage_cap = o->staging_bytes ? o->staging_bytes : STAGE_DEFAULT;
	ret = hpu_host_alloc(hb->dev, hb->stage_cap, &p, &hb->stage_va);
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: cannot allocate %zu bytes of pinned memory: %s",
			  HB(be)->name, hb->stage_cap, hpu_strerror(ret));
		goto err_free;
	}
	hb->stage = p;
	ret = seg_get(be, 0);
	if (!ret)
		ret = ht_hb_prefetch_init(be);
	if (ret)
		goto err_free;
	return 0;

err_free:
	hb_be_release(hb);
	be->priv = NULL;
	return ret;
}

static void hb_fini(struct ht_backend *be)
{
	if (!be->priv)
		return;
	ht_hb_prefetch_cancel(be); /* no upload may read freed memory */
	hb_be_release(HB(be));
	be->priv = NULL;
}

const struct ht_backend_ops ht_backend_hpu_ops = {
	.name = "hpu",
	.init = hb_init,
	.fini = hb_fini,
	.mem_alloc = hb_mem_alloc,
	.mem_free = hb_mem_free,
	.upload = hb_upload,
	.fetch = hb_fetch,
	.copy = hb_copy,
	.gemm = hb_gemm,
	.kernel = hb_kernel,
	.sync = hb_sync,
	.step_begin = hb_step_begin,
	.step_end = hb_step_end,
	.flush = hb_flush,
	.set_stream = hb_set_stream,
	.mem_stats = hb_mem_stats,
	.device = hb_device,
	.prefetch = ht_hb_prefetch,
	.prefetch_wait = ht_hb_prefetch_wait,
	.prefetch_cancel = ht_hb_prefetch_cancel,
	.graph_info = ht_hb_graph_info,
	.replay = ht_hb_replay,
};
