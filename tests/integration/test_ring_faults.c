// SPDX-License-Identifier: MIT
/*
 * test_ring_faults.c - ring CSs that do not simply complete, through the
 * real hpu-fused (docs/rings.md): a timeout (a TIMEDOUT record, the
 * event, the ring goes on), an engine fault (an ABORTED record), an
 * entry refused while the cs_in_flight limit is reached (retried as soon
 * as a CS ends, not after the consumer's sleep), completed_seq with CSs
 * ending out of order, a hot-removed
 * device (the ring takes nothing more, the daemon serves on), and the CB
 * arena (ABI 1.4): its registration and header words, its bytes being
 * what runs, and references out of it refused with -EINVAL and a
 * RING_ERR event while the ring goes on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_ring.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_ring.h"
#include "hpudrv.h"

/* A CB of @len bytes of packets in memory that lives as long as the test */
static uint64_t make_cb(int fd, const void *pkts, uint32_t len)
{
	static uint64_t bufs[8][32];
	static unsigned int next;
	uint64_t *buf = bufs[next++ % 8];
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.cb_size = len } };

	assert_true(len <= sizeof(bufs[0]));
	memcpy(buf, pkts, len);
	a.in.host_ptr = (uintptr_t)buf;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	return a.out.cb_handle;
}

/* The context's event mask since the last GET_EVENTS */
static uint64_t events(int fd)
{
	struct hpu_info_events ev = { 0 };
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&ev,
				   .return_size = sizeof(ev),
				   .op = HPU_INFO_GET_EVENTS };

	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	return ev.events_mask;
}

/* A FENCE on @sob that nobody raises times out: TIMEDOUT, then more work */
static void test_timeout_record(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(5);
	int fd = hpu_test_open_dev(0);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t s1, s2;
	int i;

	(void)state;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	events(fd);
	c = hpu_test_ring_chunk(make_cb(fd, &f, sizeof(f)), 0, sizeof(f));
	s1 = hpu_test_ring_append_timeout(&r, 41, 200, &c, 1);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	s2 = hpu_test_ring_append(&r, 42, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s2);
	/* records come in the order the CSs end */
	for (i = 0; i < 2; i++) {
		rec = hpu_test_ring_pop(&r);
		assert_int_equal(rec.res, 0);
		if (rec.user_data == 41) {
			assert_int_equal(rec.seq, s1);
			assert_int_equal(rec.status,
					 HPU_WAIT_CS_STATUS_TIMEDOUT);
		} else {
			assert_int_equal(rec.user_data, 42);
			assert_int_equal(rec.seq, s2);
			assert_int_equal(rec.status,
					 HPU_WAIT_CS_STATUS_COMPLETED);
		}
	}
	assert_true(hpu_test_ring_cq_empty(&r));
	assert_true(events(fd) & (1ULL << HPU_EVENT_CS_TIMEOUT));
	assert_int_equal(hpu_test_cs_wait_status(fd, s1),
			 HPU_WAIT_CS_STATUS_TIMEDOUT);
	assert_int_equal(r.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* A DMA from an address the context never mapped: ABORTED, PAGE_FAULT */
static void test_abort_record(void **state)
{
	struct hpu_pkt_lin_dma dma = {
		.hdr = { .opcode = HPU_PACKET_LIN_DMA, .size = sizeof(dma) },
		.src_addr = 0x7f0000000000ULL,
		.dst_addr = 0x7f0000100000ULL,
		.size = 4096,
	};
	int fd = hpu_test_open_dev(0);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t s;

	(void)state;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	events(fd);
	c = hpu_test_ring_chunk(make_cb(fd, &dma, sizeof(dma)), 0, sizeof(dma));
	s = hpu_test_ring_append(&r, 7, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s);
	assert_int_equal(rec.res, 0);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	assert_true(events(fd) & (1ULL << HPU_EVENT_PAGE_FAULT));
	assert_int_equal(r.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * With cs_in_flight 1, an entry refused for its contents (an unknown CB
 * handle) behind a running CS waits for a number. When that CS ends the
 * driver rings the consumer's doorbell (so it retries at once): before,
 * nothing woke it and it retried after its sleep.
 */
static void test_in_flight_retry(void **state)
{
	static const char *const args[] = { "--limit", "cs_in_flight=1", NULL };
	struct hpu_pkt_fence f = hpu_test_pkt_fence(6);
	struct hpu_test_daemon d;
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t s1, s2, end;
	uint32_t d0;
	int fd, ret;

	(void)state;
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", args), 0);
	fd = hpu_test_open_node(d.mount, "hpu", 0);
	/* the shared daemon is the one of the next tests */
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	c = hpu_test_ring_chunk(make_cb(fd, &f, sizeof(f)), 0, sizeof(f));
	s1 = hpu_test_ring_append_timeout(&r, 1, 3000, &c, 1);
	c = hpu_test_ring_chunk(0xdead0000ULL, 1, sizeof(struct hpu_pkt_nop));
	s2 = hpu_test_ring_append(&r, 2, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	/* the fence is taken, the refused entry waits, the consumer sleeps */
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (!(r.hdr->sq_head == 2 && r.hdr->sq_need_wakeup))
		assert_true(hpu_test_ring_now_ns() < end);
	d0 = __atomic_load_n(&r.hdr->sq_doorbell, __ATOMIC_ACQUIRE);
	assert_int_equal(r.hdr->cq_tail, 0);
	/* the fence times out; then the refused entry gets its number */
	hpu_test_ring_wait_seq(&r, s2);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s1);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_TIMEDOUT);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s2);
	assert_int_equal(rec.res, -EINVAL);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	/* the driver rang: the ending woke the consumer */
	assert_int_not_equal(
		__atomic_load_n(&r.hdr->sq_doorbell, __ATOMIC_ACQUIRE), d0);
	close(fd);
	hpu_test_ring_unmap(&r);
	ret = hpu_test_daemon_stop(&d);
	assert_int_equal(ret, 0);
}

/*
 * completed_seq is the low-water mark: a CS that ends before an older one
 * does not move it; the older one's ending moves it past both
 */
static void test_low_water(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(7);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(7);
	int fd = hpu_test_open_dev(0);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t s1, s2, s3;

	(void)state;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	c = hpu_test_ring_chunk(make_cb(fd, &f, sizeof(f)), 0, sizeof(f));
	s1 = hpu_test_ring_append(&r, 1, 0, &c, 1);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 1,
				sizeof(struct hpu_pkt_nop));
	s2 = hpu_test_ring_append(&r, 2, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s2);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(r.hdr->completed_seq, s1 - 1);
	/* an ioctl CS on another queue releases the fence */
	assert_int_equal(hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 1, 0, &s3),
			 0);
	assert_int_equal(s3, s2 + 1);
	hpu_test_ring_wait_seq(&r, s3);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s1);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_true(hpu_test_ring_cq_empty(&r));
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* A thread asleep on cq_event, as a 1.3 waiter sleeps (docs/rings.md) */
struct cq_sleeper {
	struct hpu_ring_hdr *hdr;
	uint32_t ev;
	long ret;
	int err;
};

static void *cq_sleep(void *arg)
{
	struct cq_sleeper *w = arg;
	struct timespec ts = { .tv_sec = 60 };

	__atomic_add_fetch(&w->hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
	w->ret = syscall(SYS_futex, &w->hdr->cq_event, FUTEX_WAIT, w->ev, &ts,
			 NULL, 0);
	w->err = errno;
	__atomic_sub_fetch(&w->hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * ABI 1.3's header words: sq_seq names the last entry taken (a refused
 * one too), and cq_event moves, and wakes its sleepers, on a record that
 * does not move completed_seq (an out-of-order ending), where cq_futex
 * stays
 */
static void test_header_words(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(8);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(8);
	int fd = hpu_test_open_dev(0);
	struct cq_sleeper w = { 0 };
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c, bad;
	uint32_t futex_word;
	uint64_t s0, s1, s2, s3;
	pthread_t t;

	(void)state;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	assert_int_equal(r.hdr->flags, HPU_RING_HDR_F_SQ_SEQ |
					       HPU_RING_HDR_F_CQ_EVENT |
					       HPU_RING_HDR_F_CPU);
	assert_int_equal(r.hdr->sq_seq, 0);

	/* an entry refused for its CB handle takes a number all the same */
	bad = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd) + 1000, 0,
				  sizeof(struct hpu_pkt_nop));
	s0 = hpu_test_ring_append(&r, 9, 0, &bad, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s0);
	assert_int_equal(rec.res, -EINVAL);
	assert_int_equal(__atomic_load_n(&r.hdr->sq_seq, __ATOMIC_ACQUIRE), s0);

	/* a fenced CS, then a NOP on another queue that ends first */
	c = hpu_test_ring_chunk(make_cb(fd, &f, sizeof(f)), 0, sizeof(f));
	s1 = hpu_test_ring_append(&r, 1, 0, &c, 1);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 1,
				sizeof(struct hpu_pkt_nop));
	w.hdr = r.hdr;
	w.ev = __atomic_load_n(&r.hdr->cq_event, __ATOMIC_SEQ_CST);
	futex_word = __atomic_load_n(&r.hdr->cq_futex, __ATOMIC_SEQ_CST);
	assert_int_equal(pthread_create(&t, NULL, cq_sleep, &w), 0);
	s2 = hpu_test_ring_append(&r, 2, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s2);
	assert_int_equal(r.hdr->completed_seq, s1 - 1);
	assert_int_equal(r.hdr->cq_futex, futex_word);
	/* woken by the record (or it moved before the sleep began) */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(w.ret == 0 || w.err == EAGAIN);
	assert_int_not_equal(
		__atomic_load_n(&r.hdr->cq_event, __ATOMIC_SEQ_CST), w.ev);
	assert_int_equal(__atomic_load_n(&r.hdr->sq_seq, __ATOMIC_ACQUIRE), s2);

	/* the ioctl CS releasing the fence is no ring entry: sq_seq stays */
	assert_int_equal(hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 1, 0, &s3),
			 0);
	assert_int_equal(s3, s2 + 1);
	hpu_test_ring_wait_seq(&r, s3);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s1);
	assert_int_equal(r.hdr->sq_seq, s2);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * The CPU hints (HPU_RING_HDR_F_CPU): the consumer says where it ran,
 * and whatever the client writes in producer_cpu (nothing, garbage, the
 * consumer's own CPU: its poll then yields from its first look) only
 * changes how it polls, never what it takes
 */
static void test_cpu_hints(void **state)
{
	static const uint32_t hints[] = { 0, 0xffffffffU, 1, 0 };
	int fd = hpu_test_open_dev(0);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint32_t cpu;
	unsigned int i, k;
	uint64_t s;

	(void)state;
	assert_true(ncpu > 0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	assert_true(r.hdr->flags & HPU_RING_HDR_F_CPU);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	for (k = 0; k < 4; k++) {
		/* the last round: where the consumer said it ran */
		__atomic_store_n(&r.hdr->producer_cpu,
				 k == 3 ? __atomic_load_n(&r.hdr->consumer_cpu,
							  __ATOMIC_RELAXED) :
					  hints[k],
				 __ATOMIC_RELAXED);
		for (i = 0; i < 20; i++) {
			s = hpu_test_ring_append(&r, i, 0, &c, 1);
			hpu_test_ring_publish(&r, r.hdr->sq_tail);
			rec = hpu_test_ring_pop(&r);
			assert_int_equal(rec.seq, s);
			assert_int_equal(rec.res, 0);
			assert_int_equal(rec.status,
					 HPU_WAIT_CS_STATUS_COMPLETED);
			cpu = __atomic_load_n(&r.hdr->consumer_cpu,
					      __ATOMIC_RELAXED);
			assert_true(cpu >= 1 && cpu <= (uint32_t)ncpu);
		}
	}
	assert_int_equal(r.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * ABI 1.4's CB arena: REGISTER's checks, and the header words that
 * announce it (a ring without one keeps them 0)
 */
static void test_arena_register(void **state)
{
	int fd = hpu_test_open_dev(0);
	struct hpu_test_ring r;
	union hpu_ring_args a;
	int m;

	(void)state;
	/* sizes that are not a power of two 4 KiB..1 MiB, flag without one */
	assert_int_equal(hpu_test_ring_register_arena(fd, &r, 16, 16, 6144),
			 -EINVAL);
	assert_int_equal(hpu_test_ring_register_arena(
				 fd, &r, 16, 16, 2 * HPU_RING_CB_ARENA_MAX),
			 -EINVAL);
	m = hpu_test_ring_memfd(HPU_RING_SIZE(16, 16), true);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_REGISTER;
	a.in.fd = (uint32_t)m;
	a.in.size = HPU_RING_SIZE(16, 16);
	a.in.sq_slots = 16;
	a.in.cq_entries = 16;
	a.in.flags = HPU_RING_FLAGS_CB_ARENA;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	close(m);

	assert_int_equal(hpu_test_ring_register_arena(fd, &r, 16, 16, 8192), 0);
	assert_int_equal(r.hdr->flags,
			 HPU_RING_HDR_F_SQ_SEQ | HPU_RING_HDR_F_CQ_EVENT |
				 HPU_RING_HDR_F_CPU | HPU_RING_HDR_F_CB_ARENA);
	assert_int_equal(r.hdr->cb_arena_offset,
			 HPU_RING_CB_ARENA_OFFSET(16, 16));
	assert_int_equal(r.hdr->cb_arena_size, 8192);
	assert_int_equal(hpu_test_ring_unregister(fd), 0);
	hpu_test_ring_unmap(&r);

	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	assert_int_equal(r.hdr->flags & HPU_RING_HDR_F_CB_ARENA, 0);
	assert_int_equal(r.hdr->cb_arena_offset, 0);
	assert_int_equal(r.hdr->cb_arena_size, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* The RING_ERR events queued since the last read, their seq in @seqs */
static unsigned int ring_err_events(int fd, uint64_t *seqs, unsigned int max)
{
	struct hpu_event ev[16];
	unsigned int n = 0;
	ssize_t got;
	int i;

	got = read(fd, ev, sizeof(ev));
	if (got < 0 && errno == EAGAIN)
		return 0; /* none queued */
	assert_true(got >= 0);
	for (i = 0; i < (int)(got / (ssize_t)sizeof(ev[0])); i++) {
		if (ev[i].type != HPU_EVENT_RING_ERR)
			continue;
		assert_int_equal(ev[i].data, EINVAL);
		if (n < max)
			seqs[n] = ev[i].seq;
		n++;
	}
	return n;
}

/*
 * What runs is the arena's bytes, validated after the copy: a CB whose
 * own memory holds a FENCE nobody raises completes at once with NOPs in
 * the arena; a CB of a NOP with a bad packet in the arena is refused
 * for its packets (-EINVAL, no RING_ERR: the reference itself is good)
 */
static void test_arena_runs_its_bytes(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(9);
	struct hpu_pkt_nop nops[3];
	int fd = hpu_test_open_dev(0);
	uint64_t bad_pkt = 0xffff, s1, s2;
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t seqs[4];
	unsigned int i;

	(void)state;
	assert_true(sizeof(nops) == sizeof(f));
	assert_int_equal(hpu_test_ring_register_arena(fd, &r, 16, 16, 4096), 0);
	events(fd);
	for (i = 0; i < 3; i++) {
		memset(&nops[i], 0, sizeof(nops[i]));
		nops[i].hdr.opcode = HPU_PACKET_NOP;
		nops[i].hdr.size = sizeof(nops[i]);
	}
	memcpy(r.arena + 1024, nops, sizeof(nops));
	c = hpu_test_ring_chunk(make_cb(fd, &f, sizeof(f)), 0, sizeof(f));
	s1 = hpu_test_ring_append_arena(&r, 1, 0, HPU_RING_SQE_F_CB_ARENA, 1024,
					&c, 1);
	memcpy(r.arena + 2048, &bad_pkt, sizeof(bad_pkt));
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 1,
				sizeof(struct hpu_pkt_nop));
	s2 = hpu_test_ring_append_arena(&r, 2, 0, HPU_RING_SQE_F_CB_ARENA, 2048,
					&c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s2);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s1);
	assert_int_equal(rec.res, 0);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s2);
	assert_int_equal(rec.res, -EINVAL);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(r.hdr->error, 0);
	assert_int_equal(ring_err_events(fd, seqs, 4), 0);
	assert_false(events(fd) & (1ULL << HPU_EVENT_RING_ERR));
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * References the producer never writes: each entry ends -EINVAL with a
 * number and a RING_ERR event (data EINVAL, its number), the ring goes
 * on (error 0) and the next good arena entry completes
 */
static void test_arena_bad_refs(void **state)
{
	static const struct {
		uint32_t flags, off, n, size, cs_flags;
	} bad[] = {
		{ HPU_RING_SQE_F_CB_ARENA, 4096 - 8, 1, 16,
		  0 },					    /* past the end */
		{ HPU_RING_SQE_F_CB_ARENA, 4096, 1, 8, 0 }, /* at the end */
		{ HPU_RING_SQE_F_CB_ARENA, 0xfffffff8U, 1, 16, 0 }, /* wraps */
		{ HPU_RING_SQE_F_CB_ARENA, 4, 1, 8, 0 },    /* misaligned */
		{ HPU_RING_SQE_F_CB_ARENA, 0, 2, 4096, 0 }, /* more than all */
		{ HPU_RING_SQE_F_CB_ARENA, 0, 1, 0, HPU_CS_FLAGS_SIGNAL },
		{ 0, 64, 1, 8, 0 }, /* an offset without the flag */
	};
	struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
					    .size = sizeof(nop) } };
	const unsigned int nbad = sizeof(bad) / sizeof(bad[0]);
	int fd = hpu_test_open_dev(0);
	uint64_t s[8], seqs[8], good, nop_cb = hpu_test_ring_nop_cb(fd);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c[2];
	unsigned int i, j;

	(void)state;
	assert_int_equal(hpu_test_ring_register_arena(fd, &r, 64, 64, 4096), 0);
	events(fd);
	for (i = 0; i < nbad; i++) {
		for (j = 0; j < bad[i].n; j++)
			c[j] = bad[i].cs_flags ?
				       hpu_test_ring_chunk(0, j, 0) :
				       hpu_test_ring_chunk(nop_cb, 0,
							   bad[i].size);
		s[i] = hpu_test_ring_append_arena(&r, 100 + i, bad[i].cs_flags,
						  bad[i].flags, bad[i].off, c,
						  bad[i].n);
	}
	memcpy(r.arena + 4096 - sizeof(nop), &nop, sizeof(nop));
	c[0] = hpu_test_ring_chunk(nop_cb, 0, sizeof(nop));
	good = hpu_test_ring_append_arena(&r, 7, 0, HPU_RING_SQE_F_CB_ARENA,
					  4096 - sizeof(nop), c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, good);
	for (i = 0; i < nbad; i++) {
		rec = hpu_test_ring_pop(&r);
		assert_int_equal(rec.user_data, 100 + i);
		assert_int_equal(rec.seq, s[i]);
		assert_int_equal(rec.res, -EINVAL);
		assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	}
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, good);
	assert_int_equal(rec.res, 0);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(r.hdr->error, 0);
	assert_true(events(fd) & (1ULL << HPU_EVENT_RING_ERR));
	assert_int_equal(ring_err_events(fd, seqs, 8), nbad);
	for (i = 0; i < nbad; i++)
		assert_int_equal(seqs[i], s[i]);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* A ring without an arena refuses an arena entry the same way */
static void test_arena_none(void **state)
{
	int fd = hpu_test_open_dev(0);
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk c;
	uint64_t s, good, seqs[2];

	(void)state;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	events(fd);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	s = hpu_test_ring_append_arena(&r, 1, 0, HPU_RING_SQE_F_CB_ARENA, 0, &c,
				       1);
	good = hpu_test_ring_append(&r, 2, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, good);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s);
	assert_int_equal(rec.res, -EINVAL);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, good);
	assert_int_equal(rec.res, 0);
	assert_int_equal(r.hdr->error, 0);
	assert_int_equal(ring_err_events(fd, seqs, 2), 1);
	assert_int_equal(seqs[0], s);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* Mappings of the daemon whose name contains "test_ring" (our memfds) */
static int daemon_ring_maps(void)
{
	long n = hpu_test_maps_matching(hpu_test_shared.pid, "memfd:test_ring");

	assert_true(n >= 0);
	return (int)n;
}

/* A hot-removed device's ring takes nothing more; the daemon serves on */
static void test_hot_remove(void **state)
{
	struct hpu_test_ring r;
	struct hpu_cs_chunk c;
	uint64_t s, end;
	int index, fd;

	(void)state;
	assert_int_equal(hpu_hot_add(NULL, &index), 0);
	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", index);
	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	s = hpu_test_ring_append(&r, 1, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s);
	assert_int_equal(hpu_hot_remove(index), 0);
	hpu_test_ring_append(&r, 2, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (__atomic_load_n(&r.hdr->error, __ATOMIC_ACQUIRE) != ENODEV)
		assert_true(hpu_test_ring_now_ns() < end);
	assert_int_equal(r.hdr->sq_head, 2);
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &s, NULL),
			 -ENODEV);
	close(fd);
	hpu_test_ring_unmap(&r);
	/* the last close frees the device and the ring's mapping */
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (daemon_ring_maps())
		assert_true(hpu_test_ring_now_ns() < end);
	fd = hpu_test_open_dev(0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	s = hpu_test_ring_append(&r, 3, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s);
	close(fd);
	hpu_test_ring_unmap(&r);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_timeout_record,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_abort_record, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_low_water, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_header_words, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cpu_hints, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_in_flight_retry,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_arena_register,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_arena_runs_its_bytes,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_arena_bad_refs,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_arena_none, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hot_remove, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
