// SPDX-License-Identifier: MIT
/*
 * test_ring.c - user-mode rings through the real hpu-fused (docs/rings.md):
 * REGISTER and its rejections, NOP CSs written straight into the SQ and
 * their completion records and completed_seq, the doorbell, ring and
 * ioctl submissions mixed in order, refused entries, a WAIT entry, a
 * corrupted ring (EIO, the event, the ioctl path and other contexts
 * unaffected), UNREGISTER and close with work in flight. SIGKILLs with
 * ring work in flight are test_ring_kill's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_ring.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_ring.h"

/* A chunk running a one-NOP CB */
static struct hpu_cs_chunk nop_chunk(uint64_t cb, uint32_t queue)
{
	return hpu_test_ring_chunk(cb, queue, sizeof(struct hpu_pkt_nop));
}

static uint64_t capabilities(int fd)
{
	struct hpu_info_driver_version v;
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&v,
				   .return_size = sizeof(v),
				   .op = HPU_INFO_DRIVER_VERSION };

	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	return v.capabilities;
}

/* ------------------------------------------------------------ tests */

static void test_register_rejects(void **state)
{
	int fd = hpu_test_open_dev(0), m;
	union hpu_ring_args a;
	struct hpu_test_ring r;
	char path[] = "/tmp/test_ring_XXXXXX";
	size_t size = HPU_RING_SIZE(16, 16);

	assert_true(capabilities(fd) & HPU_CAP_RING);
	/* not a descriptor of the caller */
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_REGISTER;
	a.in.fd = 1000;
	a.in.size = size;
	a.in.sq_slots = 16;
	a.in.cq_entries = 16;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EBADF);
	/* not sealed against shrinking */
	m = hpu_test_ring_memfd(size, false);
	a.in.fd = (uint32_t)m;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	close(m);
	/* too short for the size */
	m = hpu_test_ring_memfd(size - 4096, true);
	a.in.fd = (uint32_t)m;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	close(m);
	/* a regular file on disk, not shared memory */
	m = mkstemp(path);
	assert_true(m >= 0);
	unlink(path);
	assert_int_equal(ftruncate(m, (off_t)size), 0);
	a.in.fd = (uint32_t)m;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	close(m);
	/* sizes: not a power of two, wrong size, misaligned offset */
	m = hpu_test_ring_memfd(2 * size, true);
	a.in.fd = (uint32_t)m;
	a.in.sq_slots = 24;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	a.in.sq_slots = 16;
	a.in.size = size + 4096;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	a.in.size = size;
	a.in.offset = 512;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	a.in.offset = 4096; /* a region further into the file is fine */
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), 0);
	close(m);
	/* one ring pair per context */
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), -EBUSY);
	assert_int_equal(hpu_test_ring_unregister(fd), 0);
	assert_int_equal(hpu_test_ring_unregister(fd), -EINVAL);
	/* unused members */
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_UNREGISTER;
	a.in.sq_slots = 16;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	a.in.sq_slots = 0;
	a.in.op = 2;
	assert_int_equal(hpu_test_ring_ioctl(fd, &a), -EINVAL);
	close(fd);
}

static void test_nop_entries(void **state)
{
	int fd = hpu_test_open_dev(0);
	struct hpu_cs_chunk c;
	struct hpu_ring_cqe rec;
	uint64_t first, last = 0, end;
	struct hpu_test_ring r;
	uint32_t status;
	unsigned int i;

	assert_int_equal(hpu_test_ring_register(fd, &r, 256, 256), 0);
	assert_int_equal(r.next_seq, 1);
	assert_int_equal(r.hdr->completed_seq, 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	first = r.next_seq;
	/* 100 CSs of 2 slots, published one by one (doorbell when asleep) */
	for (i = 0; i < 100; i++) {
		last = hpu_test_ring_append(&r, 1000 + i, 0, &c, 1);
		hpu_test_ring_publish(&r, r.hdr->sq_tail);
	}
	hpu_test_ring_wait_seq(&r, last);
	for (i = 0; i < 100; i++) {
		rec = hpu_test_ring_pop(&r);
		assert_int_equal(rec.user_data, 1000 + i);
		assert_int_equal(rec.seq, first + i);
		assert_int_equal(rec.res, 0);
		assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
		assert_true(rec.flags & HPU_RING_CQE_F_TIMESTAMP);
	}
	assert_true(hpu_test_ring_cq_empty(&r));
	/* the head moves after the submission, which may end before */
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (__atomic_load_n(&r.hdr->sq_head, __ATOMIC_ACQUIRE) !=
	       r.hdr->sq_tail) {
		assert_true(hpu_test_ring_now_ns() < end);
		hpu_test_sleep_ms(1);
	}
	assert_int_equal(r.hdr->error, 0);
	/* WAIT_CS knows ring sequence numbers */
	assert_int_equal(hpu_test_cs_wait(fd, first + 50, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
	hpu_test_ring_unmap(&r);
}

static void test_mixed_order(void **state)
{
	int fd = hpu_test_open_dev(0);
	struct hpu_cs_chunk c;
	struct hpu_ring_cqe rec;
	uint64_t seq, s;
	struct hpu_test_ring r;
	unsigned int i;

	assert_int_equal(hpu_test_ring_register(fd, &r, 64, 64), 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 1);
	/* entries published without a doorbell, then an ioctl CS: the
	 * ioctl takes them first, so it gets the number after theirs */
	for (i = 0; i < 5; i++)
		hpu_test_ring_append(&r, i, 0, &c, 1);
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL), 0);
	assert_int_equal(seq, r.next_seq);
	r.next_seq++;
	s = hpu_test_ring_append(&r, 5, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s);
	for (i = 0; i < 6; i++) {
		rec = hpu_test_ring_pop(&r);
		assert_int_equal(rec.user_data, i);
		assert_int_equal(rec.seq, i < 5 ? i + 1 : 7);
	}
	assert_true(hpu_test_ring_cq_empty(&r));
	close(fd);
	hpu_test_ring_unmap(&r);
}

static void test_refused_and_wait(void **state)
{
	int fd = hpu_test_open_dev(0), other = hpu_test_open_dev(0);
	struct hpu_cs_chunk c, bad;
	struct hpu_ring_cqe rec;
	uint64_t s_bad, s_good, s_wait;
	struct hpu_test_ring r;
	struct {
		struct hpu_ring_sqe h;
		struct hpu_cs_chunk c;
		uint64_t seqs[4];
	} w;
	uint32_t t, status;

	assert_int_equal(hpu_test_ring_register(fd, &r, 64, 64), 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	/* a CB handle of another context is unknown here */
	bad = nop_chunk(hpu_test_ring_nop_cb(other), 0);
	bad.cb_handle += 1000;
	s_bad = hpu_test_ring_append(&r, 1, 0, &bad, 1);
	s_good = hpu_test_ring_append(&r, 2, 0, &c, 1);
	/* a WAIT entry on both: its numbers are in the entry */
	memset(&w, 0, sizeof(w));
	w.h.user_data = 3;
	w.h.num_slots = 3;
	w.h.num_chunks = 1;
	w.h.cs_flags = HPU_CS_FLAGS_WAIT;
	w.c.queue_index = 2;
	w.c.cb_size = 2;
	w.seqs[0] = s_bad;
	w.seqs[1] = s_good;
	t = r.hdr->sq_tail;
	hpu_test_ring_put_slot(&r, t, &w.h);
	hpu_test_ring_put_slot(&r, t + 1, &w.c);
	hpu_test_ring_put_slot(&r, t + 2, w.seqs);
	s_wait = r.next_seq++;
	hpu_test_ring_publish(&r, t + 3);
	hpu_test_ring_wait_seq(&r, s_wait);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.user_data, 1);
	assert_int_equal(rec.seq, s_bad);
	assert_int_equal(rec.res, -EINVAL);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s_good);
	assert_int_equal(rec.res, 0);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.user_data, 3);
	assert_int_equal(rec.seq, s_wait);
	assert_int_equal(rec.res, 0);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(r.hdr->error, 0);
	/* the refused number is ended ABORTED for WAIT_CS too */
	assert_int_equal(hpu_test_cs_wait(fd, s_bad, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_ABORTED);
	close(other);
	close(fd);
	hpu_test_ring_unmap(&r);
}

static void test_corrupted_ring(void **state)
{
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0);
	struct hpu_test_ring r, r2;
	struct hpu_cs_chunk c, c2;
	struct hpu_ring_cqe rec;
	struct hpu_event ev[8];
	uint64_t end, seq, s2;
	ssize_t n;
	bool seen = false;
	int i;

	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	assert_int_equal(hpu_test_ring_register(fd2, &r2, 16, 16), 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	c2 = nop_chunk(hpu_test_ring_nop_cb(fd2), 0);
	/* a tail more than a ring ahead: the ring breaks */
	hpu_test_ring_publish(&r, r.hdr->sq_tail + 100);
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (!__atomic_load_n(&r.hdr->error, __ATOMIC_ACQUIRE)) {
		assert_true(hpu_test_ring_now_ns() < end);
		hpu_test_sleep_ms(1);
	}
	assert_int_equal(r.hdr->error, EIO);
	/* the entry at head got an -EIO record with a number */
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.res, -EIO);
	assert_int_equal(rec.seq, r.next_seq);
	/* the context heard of it */
	end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	while (!seen) {
		assert_true(hpu_test_ring_now_ns() < end);
		n = read(fd, ev, sizeof(ev));
		for (i = 0; n > 0 && i < (int)(n / sizeof(ev[0])); i++)
			if (ev[i].type == HPU_EVENT_RING_ERR) {
				assert_int_equal(ev[i].data, EIO);
				seen = true;
			}
		if (!seen)
			hpu_test_sleep_ms(5);
	}
	/* the ioctl path of the same context still works */
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	/* another context's ring is untouched */
	s2 = hpu_test_ring_append(&r2, 7, 0, &c2, 1);
	hpu_test_ring_publish(&r2, r2.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r2, s2);
	rec = hpu_test_ring_pop(&r2);
	assert_int_equal(rec.res, 0);
	assert_int_equal(r2.hdr->error, 0);
	/* after UNREGISTER the context may register a new ring */
	assert_int_equal(hpu_test_ring_unregister(fd), 0);
	hpu_test_ring_unmap(&r);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	r.next_seq = seq + 1;
	s2 = hpu_test_ring_append(&r, 8, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s2);
	assert_int_equal(hpu_test_ring_pop(&r).res, 0);
	close(fd2);
	close(fd);
	hpu_test_ring_unmap(&r);
	hpu_test_ring_unmap(&r2);
}

static void test_close_in_flight(void **state)
{
	struct hpu_cs_chunk c;
	struct hpu_test_ring r;
	unsigned int k, i;
	int fd;

	for (k = 0; k < 20; k++) {
		fd = hpu_test_open_dev(0);
		assert_int_equal(hpu_test_ring_register(fd, &r, 64, 64), 0);
		c = nop_chunk(hpu_test_ring_nop_cb(fd), k % 2);
		for (i = 0; i < 30; i++)
			hpu_test_ring_append(&r, i, 0, &c, 1);
		hpu_test_ring_publish(&r, r.hdr->sq_tail);
		if (k % 2)
			assert_int_equal(hpu_test_ring_unregister(fd), 0);
		close(fd);
		hpu_test_ring_unmap(&r);
	}
	/* the daemon serves on */
	fd = hpu_test_open_dev(0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	hpu_test_ring_wait_seq(&r, 0);
	hpu_test_ring_append(&r, 1, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, 1);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * A full CQ is back-pressure: the consumer stops taking entries (none is
 * lost, refused or overwritten) until the client reads records and rings
 */
static void test_cq_backpressure(void **state)
{
	int fd = hpu_test_open_dev(0);
	struct hpu_cs_chunk c;
	struct hpu_ring_cqe rec;
	uint64_t first, last = 0, end;
	struct hpu_test_ring r;
	unsigned int i, got = 0;

	assert_int_equal(hpu_test_ring_register(fd, &r, 128, 16), 0);
	c = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	first = r.next_seq;
	for (i = 0; i < 40; i++)
		last = hpu_test_ring_append(&r, i, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	/* 16 records, then the consumer waits with 24 entries in the SQ */
	hpu_test_ring_wait_seq(&r, first + 15);
	end = hpu_test_ring_now_ns() + 200000000ULL;
	while (hpu_test_ring_now_ns() < end)
		hpu_test_sleep_ms(10);
	assert_int_equal(r.hdr->cq_tail - r.hdr->cq_head, 16);
	assert_int_equal(r.hdr->completed_seq, first + 15);
	assert_int_equal(r.hdr->sq_tail - r.hdr->sq_head, 24 * 2);
	assert_int_equal(r.hdr->error, 0);
	/* read them all, ringing when the driver sleeps */
	while (got < 40) {
		rec = hpu_test_ring_pop(&r);
		assert_int_equal(rec.user_data, got);
		assert_int_equal(rec.seq, first + got);
		assert_int_equal(rec.res, 0);
		got++;
		hpu_test_ring_publish(&r, r.hdr->sq_tail);
	}
	hpu_test_ring_wait_seq(&r, last);
	assert_true(hpu_test_ring_cq_empty(&r));
	assert_int_equal(r.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/*
 * A ring CS still running when its ring is unregistered ends after a new
 * ring was registered: its record goes nowhere, never into the new ring
 */
static void test_records_stay_with_their_ring(void **state)
{
	static uint64_t buf[4] __attribute__((aligned(8)));
	struct hpu_pkt_fence f = hpu_test_pkt_fence(5);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(5);
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.cb_size = sizeof(f) } };
	int fd = hpu_test_open_dev(0);
	struct hpu_cs_chunk c;
	uint64_t s_old, seq;
	struct hpu_test_ring r, r2;
	uint32_t status;

	memcpy(buf, &f, sizeof(f));
	a.in.host_ptr = (uintptr_t)buf;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	c.cb_handle = a.out.cb_handle;
	c.queue_index = 0;
	c.cb_size = sizeof(f);
	c.flags = 0;
	c.pad = 0;
	c.reserved = 0;
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	/* waits for SOB 5, which nobody raises yet */
	s_old = hpu_test_ring_append(&r, 99, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	/* taken (the head moved), and still running */
	hpu_test_ring_wait_room(&r, r.nsq);
	assert_int_equal(hpu_test_cs_wait(fd, s_old, 100000, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(hpu_test_ring_unregister(fd), 0);
	assert_int_equal(hpu_test_ring_register(fd, &r2, 16, 16), 0);
	assert_int_equal(r2.next_seq, s_old + 1);
	assert_int_equal(r2.hdr->completed_seq, s_old - 1);
	/* release it on another queue */
	assert_int_equal(hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 1, 0, &seq),
			 0);
	assert_int_equal(seq, s_old + 1);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_old),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	r2.next_seq = seq + 1;
	hpu_test_ring_wait_seq(&r2, seq);
	assert_true(hpu_test_ring_cq_empty(&r2));
	assert_int_equal(r2.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
	hpu_test_ring_unmap(&r2);
}

struct scribbler {
	struct hpu_test_ring *r;
	bool stop;
};

/* A hostile client rewrites its own ring while the driver reads it */
static void *scribble(void *arg)
{
	struct scribbler *s = arg;
	uint32_t x = 12345, *w = (uint32_t *)s->r->map;
	size_t words = s->r->size / 4, i;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 4096; i++) {
			x = x * 1103515245U + 12345U;
			w[(x >> 4) % words] = x & 0x10000 ? x : x & 0x3ff;
		}
		/* the doorbell too, now and then */
		hpu_test_ring_publish(s->r, x & 0x7f);
	}
	return NULL;
}

static void test_hostile_writer(void **state)
{
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0);
	struct scribbler s = { 0 };
	struct hpu_cs_chunk c2;
	struct hpu_test_ring r, r2;
	pthread_t t;
	uint64_t seq = 0;
	unsigned int i;

	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	assert_int_equal(hpu_test_ring_register(fd2, &r2, 64, 64), 0);
	c2 = nop_chunk(hpu_test_ring_nop_cb(fd2), 0);
	s.r = &r;
	assert_int_equal(pthread_create(&t, NULL, scribble, &s), 0);
	/* the other context's ring works throughout */
	for (i = 0; i < 200; i++) {
		hpu_test_ring_wait_room(&r2, 2);
		seq = hpu_test_ring_append(&r2, i, 0, &c2, 1);
		hpu_test_ring_publish(&r2, r2.hdr->sq_tail);
		if (i % 50 == 49) {
			hpu_test_ring_wait_seq(&r2, seq);
			while (!hpu_test_ring_cq_empty(&r2))
				assert_int_equal(hpu_test_ring_pop(&r2).res, 0);
		}
	}
	hpu_test_ring_wait_seq(&r2, seq);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r2.hdr->error, 0);
	/* the scribbled context's own ioctl path works too */
	assert_int_equal(hpu_test_cs_submit(fd, &c2, 1, 0, 0, &seq, NULL),
			 -EINVAL); /* c2's CB is fd2's */
	c2 = nop_chunk(hpu_test_ring_nop_cb(fd), 0);
	assert_int_equal(hpu_test_cs_submit(fd, &c2, 1, 0, 0, &seq, NULL), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd2);
	close(fd);
	hpu_test_ring_unmap(&r);
	hpu_test_ring_unmap(&r2);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_register_rejects,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_nop_entries, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_mixed_order, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_refused_and_wait,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_corrupted_ring,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_close_in_flight,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cq_backpressure,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_records_stay_with_their_ring,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hostile_writer,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
