// SPDX-License-Identifier: MIT
/*
 * test_hl_cs_stream.c - the habanalabs personality's sync-stream CSs and
 * queue room without FUSE (docs/habanalabs.md, "Sync stream" and "Queue
 * room"): a SIGNAL CS ends after its stream's earlier work, a WAIT CS
 * holds its stream until that SIGNAL has ended, a WAIT on an ended
 * SIGNAL submits nothing, every malformed request is refused with the
 * real errno and nothing submitted, and a queue whose 4096 PQ entries
 * are held refuses a CS with EAGAIN and a queue-full drop until its CSs
 * end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "hl_personality.h"
#include "hl_sync.h"

#define BUF_SIZE 8192

/* PDMA_0's QMAN FENCE0 counter of stream @cp (Gaudi2 asic_reg facts) */
#define PDMA0_FENCE0_RDATA(cp) (HL_CFG_BASE + 0x4C8A290ULL + 4 * (cp))

/* queue ids: PDMA_0 streams 0..3, PDMA_1 stream 0 */
#define Q_PDMA0(s) (s)
#define Q_PDMA1_0  4

/* A Gaudi2 queue's PQ entries (the real HL_QUEUE_LENGTH) */
#define PQ_LENGTH 4096

/* One request; the answer (also one copied back with an error) in @arg */
static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, 0);
}

static int setup(void **state)
{
	static struct hpu_test_hfd_hl f;

	*state = &f;
	return hpu_test_hfd_hl_open(&f, BUF_SIZE, 0);
}

/* An execute CS of @n chunks, each @size bytes at f->cb + @at on @qid */
static int submit_n(struct hpu_test_hfd_hl *f, uint32_t qid, size_t at,
		    size_t size, uint32_t n, uint64_t *seq)
{
	struct hl_cs_chunk *c = calloc(n, sizeof(*c));
	union hl_cs_args a = { 0 };
	uint32_t i;
	int ret;

	assert_non_null(c);
	for (i = 0; i < n; i++) {
		c[i].cb_handle = f->cb_va + at;
		c[i].queue_index = qid;
		c[i].cb_size = (uint32_t)size;
		c[i].cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	}
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = n;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	free(c);
	if (!ret)
		*seq = a.out.seq;
	return ret;
}

static uint64_t submit(struct hpu_test_hfd_hl *f, uint32_t qid, size_t at,
		       size_t size)
{
	uint64_t seq = 0;

	assert_int_equal(submit_n(f, qid, at, size, 1, &seq), 0);
	return seq;
}

/* A SIGNAL CS on @qid; the answer in @out */
static int signal_cs(struct hpu_test_hfd_hl *f, uint32_t qid,
		     struct hl_cs_out *out)
{
	struct hl_cs_chunk c = { .queue_index = qid };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	*out = a.out;
	return ret;
}

/* A WAIT CS on @qid for the @n numbers at @seqs (chunk fields of the real
 * header: signal_seq_arr, num_signal_seq_arr); the number in @seq */
static int wait_signal(struct hpu_test_hfd_hl *f, uint32_t qid,
		       const __u64 *seqs, uint32_t n, uint32_t extra_flags,
		       uint64_t *seq)
{
	struct hl_cs_chunk c = { .cb_handle = (uintptr_t)seqs,
				 .queue_index = qid,
				 .cb_size = n };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_WAIT | extra_flags;
	ret = run(f->ctx, HL_IOCTL_CS, &a, sizeof(a));
	if (!ret) {
		assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
		*seq = a.out.seq;
	}
	return ret;
}

/* WAIT_CS polled until not BUSY; the status in @status */
static int wait_cs(struct hpu_test_hfd_hl *f, uint64_t seq, uint32_t *status)
{
	struct hl_wait_cs_out o;
	int ret = hpu_test_hfd_hl_wait_cs(f->ctx, seq, &o);

	*status = o.status;
	return ret;
}

static uint64_t queue_full_drops(struct hpu_test_hfd_hl *f)
{
	struct hl_info_cs_counters c;
	struct hl_info_args a = { 0 };

	memset(&c, 0xff, sizeof(c));
	a.op = HL_INFO_CS_COUNTERS;
	a.return_pointer = (uintptr_t)&c;
	a.return_size = sizeof(c);
	assert_int_equal(run(f->ctx, HL_IOCTL_INFO, &a, sizeof(a)), 0);
	assert_int_equal(c.ctx_queue_full_drop_cnt,
			 c.total_queue_full_drop_cnt);
	return c.ctx_queue_full_drop_cnt;
}

/* A NOP CS: the next sequence number */
static uint64_t nop_seq(struct hpu_test_hfd_hl *f)
{
	uint32_t st;
	uint64_t seq;

	hpu_test_hl_put2(f->cb, 4096, 0, hpu_test_hl_ctl(HL_PACKET_NOP, 0));
	seq = submit(f, Q_PDMA0(3), 4096, 8);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	return seq;
}

/*
 * PDMA_0 stream 0 parked on a FENCE; a SIGNAL behind it; on PDMA_1 a
 * WAIT for that SIGNAL, then a DMA: nothing of PDMA_1 runs until a
 * sibling stream (PDMA_0 stream 1) passes the FENCE.
 */
static void test_signal_wait_order(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t park, w, dma, rel, again;
	struct hl_cs_out sig;
	uint32_t st;
	size_t off;
	int i;

	for (i = 0; i < 256; i++)
		f->src[i] = (uint8_t)(i * 5 + 1);
	memset(f->dst, 0, 256);
	off = hpu_test_hl_put_fence(f->cb, 0, 0, 1, 1);
	park = submit(f, Q_PDMA0(0), 0, off);
	assert_int_equal(signal_cs(f, Q_PDMA0(0), &sig), 0);
	assert_int_equal(sig.status, HL_CS_STATUS_SUCCESS);
	assert_int_equal(sig.seq, park + 1);
	assert_int_equal(sig.sob_base_addr_offset, 0);
	assert_int_equal(sig.sob_count_before_submission, 0);
	assert_int_equal(wait_signal(f, Q_PDMA1_0, &sig.seq, 1, 0, &w), 0);
	assert_int_equal(w, sig.seq + 1);
	off = hpu_test_hl_put_dma(f->cb, 64, f->src_va, f->dst_va, 256, 0);
	dma = submit(f, Q_PDMA1_0, 64, off - 64);

	/* the stream is parked: none of them can have ended */
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, park),
			 HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, sig.seq),
			 HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, w),
			 HL_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, dma),
			 HL_WAIT_CS_STATUS_BUSY);
	for (i = 0; i < 256; i++)
		assert_int_equal(f->dst[i], 0);

	/* the sibling stream passes the FENCE: all of it runs */
	off = hpu_test_hl_put_msg_long(f->cb, 128, PDMA0_FENCE0_RDATA(0), 1, 0);
	rel = submit(f, Q_PDMA0(1), 128, off - 128);
	assert_int_equal(wait_cs(f, dma, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(f->dst, f->src, 256);
	assert_int_equal(wait_cs(f, rel, &st), 0);
	assert_int_equal(wait_cs(f, sig.seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, w, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);

	/* a WAIT on the ended SIGNAL: nothing submitted, ULLONG_MAX */
	assert_int_equal(wait_signal(f, Q_PDMA1_0, &sig.seq, 1, 0, &again), 0);
	assert_int_equal(again, ~0ULL);
	assert_int_equal(nop_seq(f), dma + 2);
}

static void test_stream_rejected(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	static const uint32_t bad_queues[] = {
		44, /* DCORE0 TPC_6: binned in the gaudi2 profile */
		HL_GAUDI2_QUEUE_ID_NIC_0_0, 252, HL_GAUDI2_QUEUE_ID_CPU_PQ, 261
	};
	struct hl_cs_chunk c[2];
	struct hl_cs_out sig;
	union hl_cs_args a;
	uint64_t before, seq;
	__u64 seqs[2];
	uint32_t st;
	unsigned int i;

	before = nop_seq(f);
	for (i = 0; i < sizeof(bad_queues) / sizeof(bad_queues[0]); i++)
		assert_int_equal(signal_cs(f, bad_queues[i], &sig), -EINVAL);
	/* two chunks, none; encapsulated signals; an unreadable array */
	memset(c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)c;
	a.in.num_chunks_execute = 2;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.num_chunks_execute = 0;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_ENCAP_SIGNALS;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EINVAL);
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL;
	a.in.chunks_execute = 8;
	assert_int_equal(run(f->ctx, HL_IOCTL_CS, &a, sizeof(a)), -EFAULT);

	/* WAIT: not one number, unreadable, never issued, not a SIGNAL */
	seqs[0] = before;
	seqs[1] = before;
	assert_int_equal(wait_signal(f, Q_PDMA1_0, seqs, 2, 0, &seq), -EINVAL);
	assert_int_equal(wait_signal(f, Q_PDMA1_0, seqs, 0, 0, &seq), -EINVAL);
	assert_int_equal(wait_signal(f, Q_PDMA1_0, (const __u64 *)8, 1, 0,
				     &seq),
			 -EFAULT);
	assert_int_equal(wait_signal(f, Q_PDMA1_0, seqs, 1,
				     HL_CS_FLAGS_ENCAP_SIGNALS, &seq),
			 -EINVAL);
	assert_int_equal(wait_signal(f, Q_PDMA1_0, seqs, 1, 0, &seq), -EINVAL);
	seqs[0] = before + 100;
	assert_int_equal(wait_signal(f, Q_PDMA1_0, seqs, 1, 0, &seq), -EINVAL);
	assert_int_equal(signal_cs(f, Q_PDMA0(0), &sig), 0);
	assert_int_equal(wait_signal(f, HL_GAUDI2_QUEUE_ID_NIC_0_0, &sig.seq, 1,
				     0, &seq),
			 -EINVAL);
	assert_int_equal(wait_cs(f, sig.seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	/* only the SIGNAL took a number */
	assert_int_equal(sig.seq, before + 1);
	assert_int_equal(nop_seq(f), before + 2);
}

/*
 * PDMA_0 stream 0 parked on a FENCE, then filled to its 4096 PQ
 * entries: one more job on it is EAGAIN and a queue-full drop, another
 * queue still takes CSs; once the FENCE passes, the room is back.
 */
static void test_queue_full(void **state)
{
	struct hpu_test_hfd_hl *f = *state;
	uint64_t park, seq = 0, last = 0, drops, rel, other;
	struct hl_cs_out sig;
	uint32_t st, jobs = 1;
	size_t off;

	drops = queue_full_drops(f);
	off = hpu_test_hl_put_fence(f->cb, 0, 0, 1, 1);
	park = submit(f, Q_PDMA0(0), 0, off);
	hpu_test_hl_put2(f->cb, 64, 0, hpu_test_hl_ctl(HL_PACKET_NOP, 0));
	while (jobs + HL_MAX_JOBS_PER_CS <= PQ_LENGTH) {
		assert_int_equal(submit_n(f, Q_PDMA0(0), 64, 8,
					  HL_MAX_JOBS_PER_CS, &last),
				 0);
		jobs += HL_MAX_JOBS_PER_CS;
	}
	assert_int_equal(submit_n(f, Q_PDMA0(0), 64, 8, PQ_LENGTH - jobs + 1,
				  &seq),
			 -EAGAIN);
	assert_int_equal(queue_full_drops(f), drops + 1);
	assert_int_equal(submit_n(f, Q_PDMA0(0), 64, 8, PQ_LENGTH - jobs, &seq),
			 0);
	/* full: a SIGNAL too; another queue (its own PQ) is not */
	assert_int_equal(signal_cs(f, Q_PDMA0(0), &sig), -EAGAIN);
	assert_int_equal(submit_n(f, Q_PDMA0(0), 64, 8, 1, &seq), -EAGAIN);
	assert_int_equal(queue_full_drops(f), drops + 3);
	other = submit(f, Q_PDMA1_0, 64, 8);
	assert_int_equal(wait_cs(f, other, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_hfd_hl_poll_cs(f->ctx, park),
			 HL_WAIT_CS_STATUS_BUSY);

	off = hpu_test_hl_put_msg_long(f->cb, 128, PDMA0_FENCE0_RDATA(0), 1, 0);
	rel = submit(f, Q_PDMA0(1), 128, off - 128);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(f, rel, &st), 0);
	assert_true(last > park);
	assert_int_equal(
		submit_n(f, Q_PDMA0(0), 64, 8, HL_MAX_JOBS_PER_CS, &seq), 0);
	assert_int_equal(wait_cs(f, seq, &st), 0);
	assert_int_equal(st, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(queue_full_drops(f), drops + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_wait_order),
		cmocka_unit_test(test_stream_rejected),
		cmocka_unit_test(test_queue_full),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_hl_teardown);
}
