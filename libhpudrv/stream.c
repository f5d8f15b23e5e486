// SPDX-License-Identifier: MIT
/*
 * stream.c - streams (in-order asynchronous work on one DMA queue, batched
 * in a command buffer), multi-queue CSs ordered in a stream, and events
 * recorded in them. The order between a stream's CSs, and between
 * streams through events (fences inside the CSs, or WAIT submissions),
 * is stream_order.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream_internal.h"

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
	ret = hpudrv_stream_cs(s, &ch, 1, flags, 0, s->cur_maps, &seq);
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

int hpu_stream_synchronize(struct hpu_stream *s)
{
	int ret;

	if (!s)
		return -EINVAL;
	ret = flush(s, 0);
	/* the stream's end comes after the events it waits for */
	if (!ret && s->npending)
		ret = hpudrv_stream_enforce(s);
	if (!ret)
		ret = reap(s, true);
	if (!ret)
		ret = s->err;
	if (ret)
		hpudrv_stream_sob_retire(s);
	s->err = 0;
	return ret;
}

void hpu_stream_destroy(struct hpu_stream *s)
{
	if (!s)
		return;
	/* every CS ended well: the SOB's value is the count */
	if (!hpu_stream_synchronize(s) && s->has_sob)
		hpudrv_sob_give(s->dev, s->sob, s->sig);
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
	ret = hpudrv_stream_cs(s, chunks, n, HPU_CS_FLAGS_TIMESTAMP, timeout_ms,
			       NULL, &cs_seq);
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
		ret = hpudrv_stream_enforce(s);
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
