// SPDX-License-Identifier: MIT
/*
 * stream.c - streams (in-order asynchronous work on one DMA queue, batched
 * in a command buffer), multi-queue CSs ordered in a stream, and events
 * recorded in them.
 *
 * Order between a stream's CSs, and between streams through events, is
 * kept by fences inside the CSs where it can be (docs/libhpudrv.md,
 * "Stream fences"): every CS of a stream ends, on each queue it uses,
 * with a MSG_LONG ADD 1 on the stream's SOB, so "CS ended" is "the SOB
 * reached the count of signals up to it"; a CS that must follow one
 * starts, on each of its queues, with a FENCE on that count (dec 0).
 * What has no count (a CS that could not carry its signals, no SOB left,
 * HPU_STREAM_FENCE=0) is waited for by a WAIT submission, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* Wait until @seq ended (bounded), giving its final status. */
static int wait_ended(struct hpu_device *dev, uint64_t seq, uint32_t *status,
		      uint64_t *ts)
{
	int i, ret;

	for (i = 0; i < WAIT_MAX_SLICES; i++) {
		ret = hpu_cs_wait_timestamp(dev, seq, WAIT_SLICE_US, status,
					    ts);
		if (ret || *status != HPU_WAIT_CS_STATUS_BUSY)
			return ret;
	}
	return -ETIMEDOUT;
}

static void unmap_list(struct hpu_device *dev, struct host_map *m)
{
	struct host_map *next;

	for (; m; m = next) {
		next = m->next;
		hpu_mem_unmap(dev, m->va);
		free(m);
	}
}

/*
 * Wait for the oldest (up to HPU_WAIT_MULTI_CS_MAX) batches in one
 * WAIT_CS: the number of them that ended successfully (all or, after a
 * failure or an error, none: reap() then finds the failure in order).
 */
static unsigned int wait_batches(struct hpu_stream *s)
{
	uint64_t seqs[HPU_WAIT_MULTI_CS_MAX];
	unsigned int n = 0, i;
	struct batch *b;
	uint32_t status = HPU_WAIT_CS_STATUS_BUSY;

	for (b = s->head; b && n < HPU_WAIT_MULTI_CS_MAX; b = b->next)
		seqs[n++] = b->seq;
	if (n < 2)
		return 0;
	for (i = 0; i < WAIT_MAX_SLICES; i++)
		if (hpu_cs_wait_multi(s->dev, seqs, n, 0, WAIT_SLICE_US,
				      &status, NULL) ||
		    status != HPU_WAIT_CS_STATUS_BUSY)
			break;
	return status == HPU_WAIT_CS_STATUS_COMPLETED ? n : 0;
}

/*
 * Retire ended batches, oldest first: all of them when @block, else up to
 * the first one still running.
 */
static int reap(struct hpu_stream *s, bool block)
{
	bool multi = block;
	unsigned int ok = 0;
	struct batch *b;
	uint32_t status;
	int ret = 0;

	while ((b = s->head)) {
		if (multi && !ok) {
			ok = wait_batches(s);
			multi = ok > 0; /* after a failure: one by one */
		}
		if (ok) {
			ok--;
			status = HPU_WAIT_CS_STATUS_COMPLETED;
		} else if (block)
			ret = wait_ended(s->dev, b->seq, &status, NULL);
		else
			ret = hpu_cs_wait(s->dev, b->seq, 0, &status);
		if (ret)
			return ret;
		if (status == HPU_WAIT_CS_STATUS_BUSY)
			break;
		if (!s->err)
			s->err = hpudrv_wait_status_err(status);
		unmap_list(s->dev, b->maps);
		s->head = b->next;
		if (!s->head)
			s->tail = NULL;
		s->nbatches--;
		free(b);
	}
	return 0;
}

static int track(struct hpu_stream *s, uint64_t seq, struct host_map *maps,
		 uint32_t sob, uint32_t target)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->seq = seq;
	b->maps = maps;
	if (s->tail)
		s->tail->next = b;
	else
		s->head = b;
	s->tail = b;
	s->nbatches++;
	s->last_seq = seq;
	s->last_sob = sob;
	s->last_target = target;
	s->last_multi = false;
	return 0;
}

/*
 * @seq is known to have ended (any status): a look at the user-mode ring
 * when the device has one (no system call); without it, or for a number
 * the ring did not hand out, not known. A WAIT for an ended CS would end
 * at once whatever its status, so such numbers are left out of WAITs: a
 * program that waited for its last CS itself (eager execution) submits
 * its next CS without one.
 */
static bool known_ended(struct hpu_device *dev, uint64_t seq)
{
	uint32_t status;

	return !hpudrv_ring_wait(dev, seq, 0, &status, NULL) &&
	       status != HPU_WAIT_CS_STATUS_BUSY;
}

/* Keep the dependencies of @w[0..n) not known to have ended; how many */
static unsigned int drop_ended(struct hpu_device *dev, struct dep *w,
			       unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (!known_ended(dev, w[i].seq))
			w[k++] = w[i];
	return k;
}

/*
 * What the stream's work on queue @q must follow: its last CS (unless
 * @q is its own queue behind a batch on it: the queue's order does it)
 * and the events it waits for, those not known to have ended.
 * Return: how many went into @w.
 */
static unsigned int queue_deps(const struct hpu_stream *s, uint32_t q,
			       struct dep *w)
{
	unsigned int n = 0;

	if (s->head && (q != s->queue || s->last_multi)) {
		w[n].seq = s->last_seq;
		w[n].sob = s->last_sob;
		w[n].target = s->last_target;
		n++;
	}
	memcpy(w + n, s->pending, s->npending * sizeof(*w));
	return drop_ended(s->dev, w, n + s->npending);
}

/*
 * Have the stream's own queue wait, in one WAIT submission, for what its
 * next job must follow (queue_deps()); the WAIT is tracked like a batch
 * (with no count: what follows it waits for it by a WAIT too), so a
 * synchronize covers it.
 */
static int stream_enforce(struct hpu_stream *s)
{
	struct dep d[STREAM_MAX_PENDING + 1];
	uint64_t w[STREAM_MAX_PENDING + 1], seq;
	unsigned int n = queue_deps(s, s->queue, d), i;
	struct hpu_cs_chunk wc;
	int ret;

	if (!n) {
		s->npending = 0; /* all ended */
		return 0;
	}
	for (i = 0; i < n; i++)
		w[i] = d[i].seq;
	memset(&wc, 0, sizeof(wc));
	wc.cb_handle = (uint64_t)(uintptr_t)w;
	wc.queue_index = s->queue;
	wc.cb_size = n;
	ret = hpudrv_cs_submit_async(s->dev, &wc, 1, HPU_CS_FLAGS_WAIT, 0,
				     &seq);
	if (ret)
		return ret;
	s->npending = 0;
	return track(s, seq, NULL, 0, 0);
}

/*
 * The stream's SOB, with room for @nq more signals: taken at its first
 * CS, a new one when the count would pass the top (the spent one keeps
 * its value: fences on its counts still pass). false: none left, or
 * fences are off; the CS then signals nothing.
 */
static bool sob_ready(struct hpu_stream *s, unsigned int nq)
{
	uint32_t sob, v;

	if (!s->fence)
		return false;
	if (s->has_sob && s->sig + nq <= HPU_SOB_MAX_VALUE)
		return true;
	if (s->has_sob) {
		hpudrv_sob_give(s->dev, s->sob, 0, false);
		s->has_sob = false;
	}
	if (nq > HPU_SOB_MAX_VALUE - HPUDRV_SOB_TAKE_MAX ||
	    hpudrv_sob_take(s->dev, &sob, &v))
		return false;
	hpu_cb_builder_reset(s->sig_cb);
	if (hpu_cb_msg_long(s->sig_cb, sob, HPU_MSG_OP_ADD, 1)) {
		hpudrv_sob_give(s->dev, sob, v, true);
		return false;
	}
	s->sob = sob;
	s->sig = v;
	s->has_sob = true;
	return true;
}

/*
 * The FENCEs of the dependencies with a count (one per SOB, its highest
 * count) into @b, now empty; the others' numbers into @w.
 * Return: how many numbers went into @w, or -ENOSPC.
 */
static int fences_build(struct hpu_cb_builder *b, const struct dep *d,
			unsigned int n, uint64_t *w)
{
	unsigned int i, j, nw = 0;
	int ret;

	hpu_cb_builder_reset(b);
	for (i = 0; i < n; i++) {
		uint32_t t = d[i].target;

		if (!t) {
			w[nw++] = d[i].seq;
			continue;
		}
		for (j = 0; j < n; j++)
			if (j != i && d[j].target && d[j].sob == d[i].sob &&
			    (d[j].target > t || (d[j].target == t && j < i)))
				break;
		if (j < n)
			continue; /* a higher (or earlier equal) one covers it */
		ret = hpu_cb_fence(b, d[i].sob, t, 0);
		if (ret)
			return ret;
	}
	return (int)nw;
}

/*
 * Submit @chunks with each queue's fences (the stream's fence CBs, as
 * stream_cs() built them) in front of the queue's first chunk and, with
 * @signal, the signal behind its last one, in the chunks' own bytes
 * through the CB arena: no job of their own. -ENOSPC or -ENOTCONN:
 * not this way, nothing submitted.
 */
static int submit_wrapped(struct hpu_stream *s,
			  const struct hpu_cs_chunk *chunks, unsigned int n,
			  const uint32_t *qs, unsigned int nq, bool signal,
			  uint32_t flags, uint32_t timeout_ms, uint64_t *seq)
{
	struct hpudrv_wrap wrap[HPU_MAX_JOBS_PER_CS];
	bool behind_q = s->head && !s->last_multi;
	unsigned int i, j;

	memset(wrap, 0, n * sizeof(wrap[0]));
	for (j = 0; j < nq; j++) {
		struct hpu_cb_builder *fb =
			behind_q && qs[j] == s->queue ? s->fen_pend : s->fen_cb;
		unsigned int first = n, last = 0;

		for (i = 0; i < n; i++) {
			if (chunks[i].queue_index != qs[j])
				continue;
			if (first == n)
				first = i;
			last = i;
		}
		wrap[first].pre = hpu_cb_builder_data(fb);
		wrap[first].npre = (uint32_t)hpu_cb_builder_used(fb);
		if (signal) {
			wrap[last].post = hpu_cb_builder_data(s->sig_cb);
			wrap[last].npost =
				(uint32_t)hpu_cb_builder_used(s->sig_cb);
		}
	}
	return hpudrv_ring_submit_wrapped(s->dev, chunks, wrap, n, flags,
					  timeout_ms, seq);
}

/*
 * Submit @chunks as the stream's next CS: on each of its queues, a FENCE
 * chunk in front for what that queue must follow (queue_deps()) and a
 * signal chunk behind; what has no count is waited for by one WAIT
 * submission before it (a chunk per queue). Tracked with @maps.
 */
static int stream_cs(struct hpu_stream *s, const struct hpu_cs_chunk *chunks,
		     unsigned int n, uint32_t flags, uint32_t timeout_ms,
		     struct host_map *maps, uint64_t *seqp)
{
	struct hpu_cs_chunk all[HPU_MAX_JOBS_PER_CS], wc[HPU_WAIT_MAX_CHUNKS];
	uint32_t qs[HPU_MAX_JOBS_PER_CS];
	struct dep d[STREAM_MAX_PENDING + 1];
	uint64_t w[2][STREAM_MAX_PENDING + 1], seq;
	unsigned int nq = 0, na = 0, nd, npd, i, j, nwc = 0;
	int nw[2] = { 0, 0 }, ret;
	bool fence, signal, behind_q;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nq; j++)
			if (qs[j] == chunks[i].queue_index)
				break;
		if (j == nq)
			qs[nq++] = chunks[i].queue_index;
	}
	/* d[0..nd): every queue's; d[nd - npd..nd): the behind queue's */
	nd = 0;
	if (s->head && !known_ended(s->dev, s->last_seq)) {
		d[0].seq = s->last_seq;
		d[0].sob = s->last_sob;
		d[0].target = s->last_target;
		nd = 1;
	}
	memcpy(d + nd, s->pending, s->npending * sizeof(*d));
	npd = drop_ended(s->dev, d + nd, s->npending);
	nd += npd;
	behind_q = s->head && !s->last_multi;
	/*
	 * a dependency with a count is fenced on whatever this stream's
	 * own mode (the producer's stream chose fences); this stream
	 * signals only with fences on
	 */
	fence = n + 2 * nq <= HPU_MAX_JOBS_PER_CS;
	signal = fence && s->fence && sob_ready(s, nq);
	if (fence) {
		ret = fences_build(s->fen_cb, d, nd, w[0]);
		if (ret >= 0) {
			nw[0] = ret;
			ret = fences_build(s->fen_pend, d + nd - npd, npd,
					   w[1]);
		}
		if (ret < 0)
			return ret;
		nw[1] = ret;
	} else {
		for (i = 0; i < nd; i++)
			w[0][i] = d[i].seq;
		for (i = 0; i < npd; i++)
			w[1][i] = d[nd - npd + i].seq;
		nw[0] = (int)nd;
		nw[1] = (int)npd;
		hpu_cb_builder_reset(s->fen_cb);
		hpu_cb_builder_reset(s->fen_pend);
	}
	memset(all, 0, sizeof(all[0]) * (fence ? n + 2 * nq : n));
	memset(wc, 0, sizeof(wc));
	for (j = 0; j < nq; j++) {
		bool behind = behind_q && qs[j] == s->queue;
		struct hpu_cb_builder *fb = behind ? s->fen_pend : s->fen_cb;
		int k = behind ? 1 : 0;

		if (fence && hpu_cb_builder_used(fb)) {
			all[na].cb_handle = hpu_cb_builder_handle(fb);
			all[na].queue_index = qs[j];
			all[na].cb_size = (uint32_t)hpu_cb_builder_used(fb);
			na++;
		}
		if (nw[k]) {
			if (nwc == HPU_WAIT_MAX_CHUNKS)
				return -EINVAL;
			wc[nwc].cb_handle = (uint64_t)(uintptr_t)w[k];
			wc[nwc].queue_index = qs[j];
			wc[nwc].cb_size = (uint32_t)nw[k];
			nwc++;
		}
	}
	if (nwc) {
		ret = hpudrv_cs_submit_async(s->dev, wc, nwc, HPU_CS_FLAGS_WAIT,
					     0, &seq);
		if (ret)
			return ret;
	}
	ret = -ENOSPC;
	if (fence && (signal || hpu_cb_builder_used(s->fen_cb) ||
		      hpu_cb_builder_used(s->fen_pend)))
		ret = submit_wrapped(s, chunks, n, qs, nq, signal, flags,
				     timeout_ms, &seq);
	if (ret == -ENOSPC || ret == -ENOTCONN) {
		/* fences and signals as jobs of their own */
		memcpy(all + na, chunks, n * sizeof(*chunks));
		na += n;
		for (j = 0; signal && j < nq; j++) {
			all[na].cb_handle = hpu_cb_builder_handle(s->sig_cb);
			all[na].queue_index = qs[j];
			all[na].cb_size =
				(uint32_t)hpu_cb_builder_used(s->sig_cb);
			na++;
		}
		ret = hpudrv_cs_submit_async(s->dev, all, na, flags, timeout_ms,
					     &seq);
	}
	if (ret)
		return ret;
	s->npending = 0;
	if (signal)
		s->sig += nq;
	ret = track(s, seq, maps, s->sob, signal ? s->sig : 0);
	if (ret)
		return ret;
	*seqp = seq;
	return 0;
}

static int flush(struct hpu_stream *s, uint32_t flags)
{
	struct hpu_cs_chunk ch;
	uint64_t seq;
	int ret;

	if (!hpu_cb_builder_used(s->cb))
		return 0;
	memset(&ch, 0, sizeof(ch));
	ch.cb_handle = hpu_cb_builder_handle(s->cb);
	ch.queue_index = s->queue;
	ch.cb_size = (uint32_t)hpu_cb_builder_used(s->cb);
	ret = stream_cs(s, &ch, 1, flags, 0, s->cur_maps, &seq);
	if (ret)
		return ret;
	hpu_cb_builder_reset(s->cb);
	s->cur_maps = NULL;
	if (s->nbatches >= STREAM_REAP_AT)
		return reap(s, false);
	return 0;
}

int hpu_stream_flush(struct hpu_stream *s)
{
	if (!s)
		return -EINVAL;
	return flush(s, 0);
}

/* HPU_STREAM_FENCE: 1 fences on every stream, 0 on none, -1 unset */
static int fence_env(void)
{
	const char *env = getenv("HPU_STREAM_FENCE");

	if (!env || !*env)
		return -1;
	return strcmp(env, "0") ? 1 : 0;
}

int hpu_stream_set_fences(struct hpu_stream *s, int on)
{
	int env = fence_env();

	if (!s)
		return -EINVAL;
	s->fence = env < 0 ? on != 0 : env > 0;
	return 0;
}

int hpu_stream_create(struct hpu_device *dev, int queue, struct hpu_stream **sp)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_stream *s;
	int ret;

	if (!dev || !sp || queue < HPU_STREAM_QUEUE_AUTO)
		return -EINVAL;
	ret = hpu_info_hw_ip(dev, &hw);
	if (ret)
		return ret;
	if (!hw.num_dma)
		return -ENODEV;
	if (queue == HPU_STREAM_QUEUE_AUTO)
		queue = (int)(__atomic_fetch_add(&dev->next_queue, 1,
						 __ATOMIC_RELAXED) %
			      hw.num_dma);
	else if ((uint32_t)queue >= hw.num_dma)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dev = dev;
	s->queue = (uint32_t)queue;
	ret = hpu_cb_builder_create(dev, STREAM_CB_SIZE, &s->cb);
	if (ret)
		goto err_free;
	ret = hpu_cb_builder_create(dev, STREAM_FENCE_CB, &s->fen_cb);
	if (ret)
		goto err_cb;
	ret = hpu_cb_builder_create(dev, STREAM_FENCE_CB, &s->fen_pend);
	if (ret)
		goto err_fen;
	ret = hpu_cb_builder_create(dev, sizeof(struct hpu_pkt_msg_long),
				    &s->sig_cb);
	if (ret)
		goto err_pend;
	s->fence = fence_env() > 0;
	*sp = s;
	return 0;

err_pend:
	hpu_cb_builder_destroy(s->fen_pend);
err_fen:
	hpu_cb_builder_destroy(s->fen_cb);
err_cb:
	hpu_cb_builder_destroy(s->cb);
err_free:
	free(s);
	return ret;
}

/*
 * After a CS of the stream failed, its SOB's count is not what the
 * stream counted (the failed CS's signals did not all run): a new SOB
 * for the next CS, the old one never used again while the handle is
 * open. CSs fenced on the old counts end by their own timeouts (or a
 * reset): nothing sets them free.
 */
static void sob_retire(struct hpu_stream *s)
{
	if (!s->has_sob)
		return;
	hpudrv_sob_give(s->dev, s->sob, 0, false);
	s->has_sob = false;
	s->last_target = 0;
}

int hpu_stream_synchronize(struct hpu_stream *s)
{
	int ret;

	if (!s)
		return -EINVAL;
	ret = flush(s, 0);
	/* the stream's end comes after the events it waits for */
	if (!ret && s->npending)
		ret = stream_enforce(s);
	if (!ret)
		ret = reap(s, true);
	if (!ret)
		ret = s->err;
	if (ret)
		sob_retire(s);
	s->err = 0;
	return ret;
}

void hpu_stream_destroy(struct hpu_stream *s)
{
	if (!s)
		return;
	/* every CS ended well: the SOB's value is the count */
	if (!hpu_stream_synchronize(s) && s->has_sob)
		hpudrv_sob_give(s->dev, s->sob, s->sig, true);
	else
		sob_retire(s);
	unmap_list(s->dev, s->cur_maps);
	hpu_cb_builder_destroy(s->sig_cb);
	hpu_cb_builder_destroy(s->fen_pend);
	hpu_cb_builder_destroy(s->fen_cb);
	hpu_cb_builder_destroy(s->cb);
	free(s);
}

int hpu_stream_queue(const struct hpu_stream *s)
{
	return s ? (int)s->queue : -EINVAL;
}

struct hpu_device *hpu_stream_device(const struct hpu_stream *s)
{
	return s ? s->dev : NULL;
}

/*
 * Make room in @s->subs: drop the CSs that ended (keeping the first
 * failure in @s->sub_err); when all still run, wait for the oldest.
 */
static int subs_compact(struct hpu_stream *s)
{
	unsigned int i, j = 0;
	uint32_t status;
	int ret;

	for (i = 0; i < s->nsubs; i++) {
		ret = hpu_cs_wait(s->dev, s->subs[i], 0, &status);
		if (ret)
			return ret;
		if (status == HPU_WAIT_CS_STATUS_BUSY) {
			s->subs[j++] = s->subs[i];
			continue;
		}
		if (!s->sub_err)
			s->sub_err = hpudrv_wait_status_err(status);
	}
	s->nsubs = j;
	if (j < STREAM_MAX_SUBS)
		return 0;
	ret = wait_ended(s->dev, s->subs[0], &status, NULL);
	if (ret)
		return ret;
	if (!s->sub_err)
		s->sub_err = hpudrv_wait_status_err(status);
	memmove(s->subs, s->subs + 1, (j - 1) * sizeof(s->subs[0]));
	s->nsubs = j - 1;
	return 0;
}

int hpu_stream_submit(struct hpu_stream *s, const struct hpu_cs_chunk *chunks,
		      unsigned int n, uint32_t timeout_ms, uint64_t *seq)
{
	uint64_t cs_seq;
	int ret;

	if (!s || !chunks || !n || n > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	ret = flush(s, 0);
	if (ret)
		return ret;
	if (s->nsubs == STREAM_MAX_SUBS) {
		ret = subs_compact(s);
		if (ret)
			return ret;
	}
	/*
	 * with its time: an event recorded right after it is this CS;
	 * reaped with the stream's batches: synchronize reports its end
	 */
	ret = stream_cs(s, chunks, n, HPU_CS_FLAGS_TIMESTAMP, timeout_ms, NULL,
			&cs_seq);
	if (ret)
		return ret;
	/* the stream's later work starts after it (queue_deps()) */
	s->last_multi = true;
	s->subs[s->nsubs++] = cs_seq;
	if (seq)
		*seq = cs_seq;
	return 0;
}

/* Append a LIN_DMA, submitting the batch first when the CB is full. */
static int add_copy(struct hpu_stream *s, uint64_t dst, uint64_t src,
		    uint64_t size)
{
	int ret = hpu_cb_lin_dma(s->cb, dst, src, size);

	if (ret != -ENOSPC)
		return ret;
	ret = flush(s, 0);
	return ret ? ret : hpu_cb_lin_dma(s->cb, dst, src, size);
}

/*
 * Map a host range for the next copy. The batch is submitted first when
 * the copy would not fit, so the mapping belongs to the batch using it.
 */
static int map_host(struct hpu_stream *s, const void *ptr, size_t size,
		    uint64_t *va)
{
	struct host_map *m;
	int ret;

	if (hpu_cb_builder_size(s->cb) - hpu_cb_builder_used(s->cb) <
	    sizeof(struct hpu_pkt_lin_dma)) {
		ret = flush(s, 0);
		if (ret)
			return ret;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = hpu_mem_map_host(s->dev, ptr, size, 0, 0, &m->va);
	if (ret) {
		free(m);
		return ret;
	}
	*va = m->va;
	m->next = s->cur_maps;
	s->cur_maps = m;
	return 0;
}

int hpu_stream_memcpy_h2d(struct hpu_stream *s, uint64_t dst, const void *src,
			  size_t size)
{
	uint64_t va;
	int ret;

	if (!s || !src)
		return -EINVAL;
	if (!size)
		return 0;
	ret = map_host(s, src, size, &va);
	return ret ? ret : add_copy(s, dst, va, size);
}

int hpu_stream_memcpy_d2h(struct hpu_stream *s, void *dst, uint64_t src,
			  size_t size)
{
	uint64_t va;
	int ret;

	if (!s || !dst)
		return -EINVAL;
	if (!size)
		return 0;
	ret = map_host(s, dst, size, &va);
	return ret ? ret : add_copy(s, va, src, size);
}

int hpu_stream_memcpy_d2d(struct hpu_stream *s, uint64_t dst, uint64_t src,
			  size_t size)
{
	if (!s)
		return -EINVAL;
	return size ? add_copy(s, dst, src, size) : 0;
}

int hpu_stream_memset(struct hpu_stream *s, uint64_t dst, uint64_t value,
		      unsigned int width, size_t size)
{
	int ret;

	if (!s)
		return -EINVAL;
	ret = hpu_cb_memset(s->cb, dst, size, value, width);
	if (ret != -ENOSPC)
		return ret;
	ret = flush(s, 0);
	return ret ? ret : hpu_cb_memset(s->cb, dst, size, value, width);
}

int hpu_stream_wait_event(struct hpu_stream *s, struct hpu_stream_event *ev)
{
	unsigned int i;
	int ret;

	if (!s || !ev || ev->dev != s->dev)
		return -EINVAL;
	if (!ev->seq || ev->done)
		return 0;
	/* the work given so far does not wait for the event */
	ret = flush(s, 0);
	if (ret)
		return ret;
	for (i = 0; i < s->npending; i++)
		if (s->pending[i].seq == ev->seq)
			return 0;
	if (s->npending == STREAM_MAX_PENDING) {
		ret = stream_enforce(s);
		if (ret)
			return ret;
	}
	/* the stream's next work waits for it, with the fences it has anyway */
	s->pending[s->npending].seq = ev->seq;
	s->pending[s->npending].sob = ev->sob;
	s->pending[s->npending].target = ev->target;
	s->npending++;
	return 0;
}

int hpu_event_create(struct hpu_device *dev, struct hpu_stream_event **evp)
{
	struct hpu_stream_event *ev;

	if (!dev || !evp)
		return -EINVAL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->dev = dev;
	*evp = ev;
	return 0;
}

void hpu_event_destroy(struct hpu_stream_event *ev)
{
	free(ev);
}

int hpu_event_record(struct hpu_stream_event *ev, struct hpu_stream *s)
{
	int ret;

	if (!ev || !s || ev->dev != s->dev)
		return -EINVAL;
	if (hpu_cb_builder_used(s->cb) || s->npending || !s->last_multi ||
	    !s->head) {
		/* An empty batch still needs a CS whose end carries the time. */
		if (!hpu_cb_builder_used(s->cb)) {
			ret = hpu_cb_nop(s->cb);
			if (ret)
				return ret;
		}
		ret = flush(s, HPU_CS_FLAGS_TIMESTAMP);
		if (ret)
			return ret;
	}
	/*
	 * else the stream's work so far ends with its last CS of
	 * hpu_stream_submit() (which started after all the rest and carries
	 * its time): the event is that CS, no NOP needed
	 */
	ev->seq = s->last_seq;
	ev->sob = s->last_sob;
	ev->target = s->last_target;
	ev->done = false;
	ev->status_err = 0;
	ev->ts_ns = 0;
	/* the stream's submitted CSs so far are the event's to check */
	memcpy(ev->subs, s->subs, s->nsubs * sizeof(s->subs[0]));
	ev->nsubs = s->nsubs;
	ev->sub_err = s->sub_err;
	s->nsubs = 0;
	s->sub_err = 0;
	return 0;
}

/*
 * The first failure among the submitted CSs the event comes after. Their
 * work ended before the event's own CS started; with fences the driver
 * may not have handled their ends yet: @block waits for that, else
 * -EBUSY until it did.
 */
static int subs_err(struct hpu_stream_event *ev, bool block)
{
	uint32_t status;
	unsigned int i;
	int ret;

	if (ev->sub_err)
		return ev->sub_err;
	for (i = 0; i < ev->nsubs; i++) {
		if (block)
			ret = wait_ended(ev->dev, ev->subs[i], &status, NULL);
		else
			ret = hpu_cs_wait(ev->dev, ev->subs[i], 0, &status);
		if (ret)
			return ret;
		ret = hpudrv_wait_status_err(status);
		if (ret)
			return ret;
	}
	return 0;
}

static int event_check(struct hpu_stream_event *ev, bool block)
{
	uint32_t status;
	int ret;

	if (!ev)
		return -EINVAL;
	if (!ev->seq || ev->done)
		return ev->status_err;
	if (block)
		ret = wait_ended(ev->dev, ev->seq, &status, &ev->ts_ns);
	else
		ret = hpu_cs_wait_timestamp(ev->dev, ev->seq, 0, &status,
					    &ev->ts_ns);
	if (ret)
		return ret;
	if (status == HPU_WAIT_CS_STATUS_BUSY)
		return -EBUSY;
	ret = hpudrv_wait_status_err(status);
	if (!ret)
		ret = subs_err(ev, block);
	if (ret == -EBUSY)
		return ret; /* a CS before it: its end not handled yet */
	ev->done = true;
	ev->status_err = ret;
	return ev->status_err;
}

int hpu_event_query(struct hpu_stream_event *ev)
{
	return event_check(ev, false);
}

int hpu_event_synchronize(struct hpu_stream_event *ev)
{
	return event_check(ev, true);
}

int hpu_event_elapsed_time(struct hpu_stream_event *start,
			   struct hpu_stream_event *end, float *ms)
{
	int ret;

	if (!start || !end || !ms)
		return -EINVAL;
	if (!start->seq || !end->seq)
		return -ENODATA;
	ret = event_check(start, false);
	if (!ret)
		ret = event_check(end, false);
	if (ret)
		return ret;
	if (!start->ts_ns || !end->ts_ns)
		return -ENODATA;
	*ms = (float)((double)((int64_t)(end->ts_ns - start->ts_ns)) / 1e6);
	return 0;
}
