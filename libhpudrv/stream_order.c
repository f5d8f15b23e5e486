// SPDX-License-Identifier: MIT
/*
 * stream_order.c - the order between a stream's CSs, and between streams
 * through events (docs/libhpudrv.md, "Streams and events", "Stream
 * fences"): what a CS must follow, the FENCEs in front of its chunks and
 * the signals behind them, or one WAIT submission before it for what has
 * no count.
 *
 * With fences every CS of a stream ends, on each queue it uses, with a
 * MSG_LONG ADD 1 on the stream's SOB, so "CS ended" is "the SOB reached
 * the count of signals up to it"; a CS that must follow one starts, on
 * each of its queues, with a FENCE on that count (dec 0). What has no
 * count (a stream without fences, a CS that could not carry its signals,
 * no SOB left, HPU_STREAM_FENCE=0) is waited for by a WAIT submission.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream_internal.h"

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
 * A queue of the CS is the stream's own queue behind a batch on it: its
 * order already follows the stream's last CS, only @pending is left
 */
static bool behind_queue(const struct hpu_stream *s, uint32_t q)
{
	return s->head && !s->last_multi && q == s->queue;
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

	if (s->head && !behind_queue(s, q)) {
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
int hpudrv_stream_enforce(struct hpu_stream *s)
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
	s->has_sob = false; /* spent: it stays taken (hpudrv_sob_give()) */
	if (nq > HPU_SOB_MAX_VALUE - HPUDRV_SOB_TAKE_MAX ||
	    hpudrv_sob_take(s->dev, &sob, &v))
		return false;
	hpu_cb_builder_reset(s->sig_cb);
	if (hpu_cb_msg_long(s->sig_cb, sob, HPU_MSG_OP_ADD, 1)) {
		hpudrv_sob_give(s->dev, sob, v);
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

/* The fences of queue @q, as hpudrv_stream_cs() built them */
static struct hpu_cb_builder *queue_fences(const struct hpu_stream *s,
					   uint32_t q)
{
	return behind_queue(s, q) ? s->fen_pend : s->fen_cb;
}

/*
 * Submit @chunks with each queue's fences in front of the queue's first
 * chunk and, with @signal, the signal behind its last one, in the
 * chunks' own bytes through the CB arena: no job of their own. -ENOSPC
 * or -ENOTCONN: not this way, nothing submitted.
 */
static int submit_wrapped(struct hpu_stream *s,
			  const struct hpu_cs_chunk *chunks, unsigned int n,
			  const uint32_t *qs, unsigned int nq, bool signal,
			  uint32_t flags, uint32_t timeout_ms, uint64_t *seq)
{
	struct hpudrv_wrap wrap[HPU_MAX_JOBS_PER_CS];
	unsigned int i, j;

	memset(wrap, 0, n * sizeof(wrap[0]));
	for (j = 0; j < nq; j++) {
		struct hpu_cb_builder *fb = queue_fences(s, qs[j]);
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
 * Submit @chunks with the fences and signals as jobs of their own: on
 * each queue a FENCE chunk in front of its chunks (when it has fences)
 * and, with @signal, a signal chunk behind them.
 */
static int submit_jobs(struct hpu_stream *s, const struct hpu_cs_chunk *chunks,
		       unsigned int n, const uint32_t *qs, unsigned int nq,
		       bool signal, uint32_t flags, uint32_t timeout_ms,
		       uint64_t *seq)
{
	struct hpu_cs_chunk all[HPU_MAX_JOBS_PER_CS];
	unsigned int na = 0, j;

	for (j = 0; j < nq; j++) {
		struct hpu_cb_builder *fb = queue_fences(s, qs[j]);

		if (!hpu_cb_builder_used(fb))
			continue;
		all[na++] = (struct hpu_cs_chunk){
			.cb_handle = hpu_cb_builder_handle(fb),
			.queue_index = qs[j],
			.cb_size = (uint32_t)hpu_cb_builder_used(fb),
		};
	}
	memcpy(all + na, chunks, n * sizeof(*chunks));
	na += n;
	for (j = 0; signal && j < nq; j++)
		all[na++] = (struct hpu_cs_chunk){
			.cb_handle = hpu_cb_builder_handle(s->sig_cb),
			.queue_index = qs[j],
			.cb_size = (uint32_t)hpu_cb_builder_used(s->sig_cb),
		};
	return hpudrv_cs_submit_async(s->dev, all, na, flags, timeout_ms, seq);
}

/*
 * Submit @chunks as the stream's next CS: on each of its queues, FENCEs
 * in front for what that queue must follow (queue_deps()) and a signal
 * behind, in the chunks' arena bytes or as jobs of their own; what has
 * no count is waited for by one WAIT submission before it (a chunk per
 * queue). Tracked with @maps.
 */
int hpudrv_stream_cs(struct hpu_stream *s, const struct hpu_cs_chunk *chunks,
		     unsigned int n, uint32_t flags, uint32_t timeout_ms,
		     struct host_map *maps, uint64_t *seqp)
{
	struct hpu_cs_chunk wc[HPU_WAIT_MAX_CHUNKS];
	uint32_t qs[HPU_MAX_JOBS_PER_CS];
	struct dep d[STREAM_MAX_PENDING + 1];
	uint64_t w[2][STREAM_MAX_PENDING + 1], seq;
	unsigned int nq = 0, nd, npd, i, j, nwc = 0;
	int nw[2] = { 0, 0 }, ret;
	bool fence, signal;

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
	memset(wc, 0, sizeof(wc));
	for (j = 0; j < nq; j++) {
		int k = behind_queue(s, qs[j]) ? 1 : 0;

		if (!nw[k])
			continue;
		if (nwc == HPU_WAIT_MAX_CHUNKS)
			return -EINVAL;
		wc[nwc].cb_handle = (uint64_t)(uintptr_t)w[k];
		wc[nwc].queue_index = qs[j];
		wc[nwc].cb_size = (uint32_t)nw[k];
		nwc++;
	}
	if (nwc) {
		ret = hpudrv_cs_submit_async(s->dev, wc, nwc, HPU_CS_FLAGS_WAIT,
					     0, &seq);
		if (ret)
			return ret;
	}
	ret = -ENOSPC;
	if (signal || hpu_cb_builder_used(s->fen_cb) ||
	    hpu_cb_builder_used(s->fen_pend))
		ret = submit_wrapped(s, chunks, n, qs, nq, signal, flags,
				     timeout_ms, &seq);
	if (ret == -ENOSPC || ret == -ENOTCONN)
		ret = submit_jobs(s, chunks, n, qs, nq, signal, flags,
				  timeout_ms, &seq);
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

/*
 * After a CS of the stream failed, its SOB's count is not what the
 * stream counted (the failed CS's signals did not all run): a new SOB
 * for the next CS, the old one never used again while the handle is
 * open. CSs fenced on the old counts end by their own timeouts (or a
 * reset): nothing sets them free.
 */
void hpudrv_stream_sob_retire(struct hpu_stream *s)
{
	/* not given back: it stays taken until the handle closes */
	s->has_sob = false;
	s->last_target = 0;
}
