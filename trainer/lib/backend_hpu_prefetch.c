// SPDX-License-Identifier: MIT
/*
 * backend_hpu_prefetch.c - batches copied to the device ahead of the step
 * that uses them, while the program of the step before runs
 * (docs/training.md, "Prefetch to the device").
 *
 * The program's own DMA queue (0) cannot carry the copy: it runs the
 * program's DMA ops in order and would run the copy after the step. So a
 * prefetch is one CS of its own on the device's last DMA queue (the
 * program uses queue 0, DDP's communication stream queue 1): LIN_DMAs
 * from pinned memory of the prefetch, then MSG_LONG ADD 1 on the
 * prefetch sync object (HT_HPU_SOB_BASE + 3 = 11 by default: the three
 * before it order the program's queues, libhpuccl takes its objects from
 * the top of the range). The step that uses the data FENCEs on that
 * object (target 1, dec 1) on the program's DMA queue before its first
 * op; the uploads end in submission order (one queue), so the n-th fence
 * takes the n-th upload's signal. The object is thus the number of
 * uploads that ended and that no program waited for yet; cancelling one
 * is a CS on the upload queue that takes its signal back after it.
 *
 * Pinned memory: HT_PREFETCH_DEPTH areas used in turn. An area is reused
 * only once the step that waited for its upload ended (the trainer
 * prefetches the next batch at the start of the step before it, after
 * the previous step was waited for), and the CS is reaped then: its
 * completion time (HPU_CS_FLAGS_TIMESTAMP) against the time at which the
 * next program submission began tells whether the copy overlapped the
 * program. The device clock counts from the device's start: the host's
 * CLOCK_MONOTONIC is converted with an offset measured once by a
 * timestamped NOP, rounded so that a converted time is never early (an
 * overlap is never claimed that did not happen).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "backend_hpu.h"
#include "ht_error.h"

#define PF_ALIGN	 256
#define PF_HASH		 0x9e3779b97f4a7c15ULL
/* timestamped NOPs that measure the device clock's offset */
#define PF_CLOCK_SAMPLES 8

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int ht_hb_prefetch_init(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	int ret;

	hb->pf_sob = hb->sob[NQ - 1] + 1;
	/* queues 0 (program, DDP compute) and 1 (DDP comm) are taken */
	if (hb->ip.num_dma < 3)
		return 0; /* no prefetch: ht_backend_prefetch() uploads */
	hb->pf_queue = hb->ip.num_dma - 1;
	ret = hpu_cb_builder_create(hb->dev, 4096, &hb->pf_cb);
	if (ret)
		ht_seterr(be->err, sizeof(be->err),
			  "%s: cannot create the prefetch command buffer: %s",
			  HB(be)->name, hpu_strerror(ret));
	return ret;
}

void ht_hb_prefetch_release(struct ht_hpu_be *hb)
{
	unsigned int i;

	for (i = 0; i < HT_PREFETCH_DEPTH; i++)
		if (hb->pf[i].host)
			hpu_host_free(hb->dev, hb->pf[i].host);
	memset(hb->pf, 0, sizeof(hb->pf));
	hpu_cb_builder_destroy(hb->pf_cb);
	hb->pf_cb = NULL;
}

/* Wait for the upload of area @a (it ended: a program waited for it) */
static int reap(struct ht_backend *be, struct pf_area *a)
{
	uint64_t ts = 0;
	int ret;

	if (!a->seq)
		return 0;
	ret = ht_hb_cs_wait(be, a->seq, &ts);
	a->seq = 0;
	if (ret) {
		ht_seterr(
			be->err, sizeof(be->err),
			"%s: a prefetch to the device %s", HB(be)->name,
			ret == -EIO ?
				"was aborted (see hpu-fused's log)" :
			ret == -ETIME ?
				"timed out on the device and was aborted (its CS timeout)" :
				"did not complete");
		return ret;
	}
	if (a->prog_ns && ts > a->prog_ns) {
		be->stats.prefetch_overlapped++;
		be->stats.prefetch_overlap_ns += ts - a->prog_ns;
	}
	return 0;
}

/* A program submission begins: uploads in flight overlap it */
void ht_hb_prefetch_submitted(struct ht_hpu_be *hb)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < HT_PREFETCH_DEPTH; i++) {
		if (!hb->pf[i].seq || hb->pf[i].prog_ns)
			continue;
		if (!t)
			t = (uint64_t)((int64_t)now_ns() + hb->pf_clock_off);
		hb->pf[i].prog_ns = t;
	}
}

/*
 * Device clock - host clock: a NOP with a timestamp ends after the host
 * time t0 at device time ts, so ts - t0 bounds it from above (a time
 * converted with it is never early); the least of a few samples
 */
static int clock_offset(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	uint64_t t0, seq, ts = 0;
	uint32_t status = 0;
	int64_t off = INT64_MAX;
	int done = 0, ret = 0, i;

	for (i = 0; !ret && i < PF_CLOCK_SAMPLES; i++) {
		hpu_cb_builder_reset(hb->pf_cb);
		ret = hpu_cb_nop(hb->pf_cb);
		t0 = now_ns();
		if (!ret)
			ret = hpu_cb_builder_submit(hb->pf_cb, hb->pf_queue,
						    HPU_CS_FLAGS_TIMESTAMP,
						    hb->cs_timeout_ms, &seq,
						    &done);
		if (!ret)
			ret = hpu_cs_wait_timestamp(hb->dev, seq, hb->wait_us,
						    &status, &ts);
		if (!ret && (status != HPU_WAIT_CS_STATUS_COMPLETED || !ts))
			ret = -EIO;
		if (!ret && (int64_t)ts - (int64_t)t0 < off)
			off = (int64_t)ts - (int64_t)t0;
		be->stats.submissions++;
		be->stats.waits++;
	}
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: the prefetch queue does not answer: %s",
			  HB(be)->name, hpu_strerror(ret));
		return ret;
	}
	hb->pf_clock_off = off;
	hb->pf_clock_set = true;
	return 0;
}

/* Room for @need bytes in area @a (its upload was reaped) */
static int area_room(struct ht_backend *be, struct pf_area *a, size_t need)
{
	struct ht_hpu_be *hb = HB(be);
	void *p;
	int ret;

	if (need <= a->cap)
		return 0;
	if (a->host)
		hpu_host_free(hb->dev, a->host);
	a->host = NULL;
	a->cap = 0;
	ret = hpu_host_alloc(hb->dev, need, &p, &a->va);
	if (ret) {
		ht_seterr(
			be->err, sizeof(be->err),
			"%s: cannot allocate %zu bytes of pinned memory for the prefetch: %s",
			HB(be)->name, need, hpu_strerror(ret));
		return ret;
	}
	a->host = p;
	a->cap = need;
	return 0;
}

int ht_hb_prefetch(struct ht_backend *be, const struct ht_xfer *x,
		   unsigned int n)
{
	struct ht_hpu_be *hb = HB(be);
	struct pf_area *a = &hb->pf[hb->pf_next];
	size_t need = 0, off = 0;
	unsigned int i;
	uint64_t seq;
	int done = 0, ret;

	if (!hb->pf_cb)
		return -EOPNOTSUPP; /* ht_backend_prefetch() uploads */
	if (hb->pf_issued >= HT_PREFETCH_DEPTH)
		return -EBUSY;
	if (!hb->pf_clock_set) {
		ret = clock_offset(be);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++)
		need += (x[i].n + PF_ALIGN - 1) & ~(size_t)(PF_ALIGN - 1);
	ret = reap(be, a);
	if (!ret)
		ret = area_room(be, a, need);
	if (ret)
		return ret;
	hpu_cb_builder_reset(hb->pf_cb);
	for (i = 0; i < n; i++) {
		memcpy(a->host + off, x[i].src, x[i].n);
		ret = hpu_cb_lin_dma(hb->pf_cb, x[i].dst, a->va + off, x[i].n);
		if (ret)
			return ret;
		off += (x[i].n + PF_ALIGN - 1) & ~(size_t)(PF_ALIGN - 1);
	}
	ret = hpu_cb_msg_long(hb->pf_cb, hb->pf_sob, HPU_MSG_OP_ADD, 1);
	if (!ret)
		ret = hpu_cb_builder_submit(hb->pf_cb, hb->pf_queue,
					    HPU_CS_FLAGS_TIMESTAMP,
					    hb->cs_timeout_ms, &seq, &done);
	if (ret) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: the prefetch to the device failed: %s",
			  HB(be)->name, hpu_strerror(ret));
		return ret;
	}
	be->stats.submissions++;
	be->stats.prefetches++;
	if (be->in_step)
		be->stats.prefetch_in_step++;
	a->seq = done ? 0 : seq;
	a->prog_ns = 0;
	hb->pf_next = (hb->pf_next + 1) % HT_PREFETCH_DEPTH;
	hb->pf_issued++;
	return 0;
}

int ht_hb_prefetch_wait(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	int ret;

	if (!hb->pf_cb)
		return 0;
	if (!hb->pf_issued) {
		ht_seterr(be->err, sizeof(be->err),
			  "%s: a prefetch wait without a prefetch",
			  HB(be)->name);
		return -EINVAL;
	}
	ret = ht_hb_graph_op(be, PF_HASH, "a prefetch wait", 0, NULL);
	if (ret < 0)
		return ret;
	hb->pf_issued--;
	if (ret)
		return 0; /* the captured program holds the fence */
	if (hb->graph_step && ht_hb_capturing(hb))
		hb->gr[hb->gi].no_direct = true; /* ht_graph_replay() refuses */
	ret = ht_hb_prepare(be, Q_DMA, sizeof(struct hpu_pkt_fence));
	if (!ret)
		ret = hpu_cb_fence(hb->ss->v[hb->cur].cb[Q_DMA], hb->pf_sob, 1,
				   1);
	return ret ? ret : ht_hb_emitted(be);
}

int ht_hb_prefetch_cancel(struct ht_backend *be)
{
	struct ht_hpu_be *hb = HB(be);
	unsigned int i;
	uint64_t seq;
	int done = 0, ret = 0, r;

	if (!hb->pf_cb || !be->stats.prefetches)
		return 0;
	/*
	 * On the upload queue, after the uploads: wait for those no program
	 * waited for, then the object back to 0 (also when a failed step
	 * left a signal untaken; no program waits on it now)
	 */
	hpu_cb_builder_reset(hb->pf_cb);
	if (hb->pf_issued)
		ret = hpu_cb_fence(hb->pf_cb, hb->pf_sob, hb->pf_issued, 0);
	if (!ret)
		ret = hpu_cb_msg_long(hb->pf_cb, hb->pf_sob, HPU_MSG_OP_SET, 0);
	if (!ret)
		ret = hpu_cb_builder_submit(hb->pf_cb, hb->pf_queue, 0,
					    hb->cs_timeout_ms, &seq, &done);
	if (!ret && !done)
		ret = ht_hb_cs_wait(be, seq, NULL);
	if (!ret)
		be->stats.submissions++;
	hb->pf_issued = 0;
	for (i = 0; i < HT_PREFETCH_DEPTH; i++) {
		r = reap(be, &hb->pf[i]);
		if (!ret)
			ret = r;
	}
	return ret;
}
