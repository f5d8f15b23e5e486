// SPDX-License-Identifier: MIT
/*
 * hpu_test_ring.c - the client's side of a user-mode ring pair
 * (hpu_test_ring.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpu_packets.h"
#include "hpu_test_ring.h"
#include "hpu_test_daemon.h"
#include "hpu_test_util.h"

uint64_t hpu_test_ring_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int hpu_test_ring_ioctl(int fd, union hpu_ring_args *a)
{
	return hpu_test_ioctl(fd, HPU_IOCTL_RING, a);
}

/* A memfd of @size bytes (@seal: sealed with F_SEAL_SHRINK) */
int hpu_test_ring_memfd(size_t size, bool seal)
{
	int m = memfd_create("test_ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(m >= 0);
	assert_int_equal(ftruncate(m, (off_t)size), 0);
	if (seal)
		assert_int_equal(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return m;
}

/* REGISTER a ring pair, with a CB arena of @arena bytes when not 0 */
int hpu_test_ring_register_arena(int fd, struct hpu_test_ring *r, uint32_t nsq,
				 uint32_t ncq, uint32_t arena)
{
	union hpu_ring_args a;
	int m, ret;

	memset(r, 0, sizeof(*r));
	r->size = HPU_RING_SIZE_CB_ARENA(nsq, ncq, arena);
	m = hpu_test_ring_memfd(r->size, true);
	r->map = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	assert_true(r->map != MAP_FAILED);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_RING_OP_REGISTER;
	a.in.fd = (uint32_t)m;
	a.in.size = r->size;
	a.in.sq_slots = nsq;
	a.in.cq_entries = ncq;
	a.in.flags = arena ? HPU_RING_FLAGS_CB_ARENA : 0;
	ret = hpu_test_ring_ioctl(fd, &a);
	close(m);
	if (ret) {
		munmap(r->map, r->size);
		r->map = NULL;
		return ret;
	}
	assert_int_equal(a.out.size, r->size);
	assert_int_equal(a.out.sq_offset, HPU_RING_SQ_OFFSET);
	assert_int_equal(a.out.cq_offset, HPU_RING_CQ_OFFSET(nsq));
	r->hdr = r->map;
	r->sq = (uint8_t *)r->map + a.out.sq_offset;
	r->cq = (struct hpu_ring_cqe *)((uint8_t *)r->map + a.out.cq_offset);
	r->nsq = nsq;
	r->ncq = ncq;
	r->next_seq = a.out.next_seq;
	if (arena) {
		r->arena =
			(uint8_t *)r->map + HPU_RING_CB_ARENA_OFFSET(nsq, ncq);
		r->arena_size = arena;
	}
	return 0;
}

int hpu_test_ring_register(int fd, struct hpu_test_ring *r, uint32_t nsq,
			   uint32_t ncq)
{
	return hpu_test_ring_register_arena(fd, r, nsq, ncq, 0);
}

int hpu_test_ring_unregister(int fd)
{
	union hpu_ring_args a = { .in = { .op = HPU_RING_OP_UNREGISTER } };

	return hpu_test_ring_ioctl(fd, &a);
}

void hpu_test_ring_unmap(struct hpu_test_ring *r)
{
	if (r->map)
		munmap(r->map, r->size);
	r->map = NULL;
}

/* Write one slot at @idx */
void hpu_test_ring_put_slot(struct hpu_test_ring *r, uint32_t idx,
			    const void *slot)
{
	memcpy(r->sq + (size_t)(idx & (r->nsq - 1)) * HPU_RING_SLOT_SIZE, slot,
	       HPU_RING_SLOT_SIZE);
}

/*
 * Publish up to @tail and ring the doorbell if the driver sleeps. The
 * store and the load are both seq_cst (no fence of their own: ThreadSanitizer
 * does not model fences), which orders them as docs/rings.md's fence does.
 */
void hpu_test_ring_publish(struct hpu_test_ring *r, uint32_t tail)
{
	__atomic_store_n(&r->hdr->sq_tail, tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->hdr->sq_need_wakeup, __ATOMIC_SEQ_CST)) {
		__atomic_add_fetch(&r->hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &r->hdr->sq_doorbell, FUTEX_WAKE, 1, NULL,
			NULL, 0);
	}
}

static uint64_t append(struct hpu_test_ring *r, uint64_t ud, uint32_t cs_flags,
		       uint32_t timeout_ms, const struct hpu_cs_chunk *c,
		       uint32_t n)
{
	struct hpu_ring_sqe h = { .user_data = ud,
				  .num_slots = 1 + n,
				  .num_chunks = n,
				  .cs_flags = cs_flags,
				  .timeout_ms = timeout_ms };
	uint32_t t = r->hdr->sq_tail, i;

	hpu_test_ring_put_slot(r, t++, &h);
	for (i = 0; i < n; i++)
		hpu_test_ring_put_slot(r, t++, &c[i]);
	__atomic_store_n(&r->hdr->sq_tail, t, __ATOMIC_RELEASE);
	return r->next_seq++;
}

/*
 * Append a CS of @n chunks whose header has @cs_flags, @sqe_flags and @cb_offset
 * (HPU_RING_SQE_F_CB_ARENA: the CB bytes are in the arena there; the
 * caller wrote them), without publishing it
 */
uint64_t hpu_test_ring_append_arena(struct hpu_test_ring *r, uint64_t ud,
				    uint32_t cs_flags, uint32_t sqe_flags,
				    uint32_t cb_offset,
				    const struct hpu_cs_chunk *c, uint32_t n)
{
	struct hpu_ring_sqe h = { .user_data = ud,
				  .num_slots = 1 + n,
				  .num_chunks = n,
				  .cs_flags = cs_flags,
				  .flags = sqe_flags,
				  .cb_offset = cb_offset };
	uint32_t t = r->hdr->sq_tail, i;

	hpu_test_ring_put_slot(r, t++, &h);
	for (i = 0; i < n; i++)
		hpu_test_ring_put_slot(r, t++, &c[i]);
	__atomic_store_n(&r->hdr->sq_tail, t, __ATOMIC_RELEASE);
	return r->next_seq++;
}

/* Append a CS of @n chunks (no WAIT numbers) without publishing it */
uint64_t hpu_test_ring_append(struct hpu_test_ring *r, uint64_t ud,
			      uint32_t cs_flags, const struct hpu_cs_chunk *c,
			      uint32_t n)
{
	return append(r, ud, cs_flags, 0, c, n);
}

/* The same, a plain CS with a timeout of its own */
uint64_t hpu_test_ring_append_timeout(struct hpu_test_ring *r, uint64_t ud,
				      uint32_t timeout_ms,
				      const struct hpu_cs_chunk *c, uint32_t n)
{
	return append(r, ud, 0, timeout_ms, c, n);
}

/* Wait until the SQ has room for @slots more slots */
void hpu_test_ring_wait_room(struct hpu_test_ring *r, uint32_t slots)
{
	uint64_t end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;

	while (r->hdr->sq_tail -
		       __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE) >
	       r->nsq - slots) {
		assert_true(hpu_test_ring_now_ns() < end);
		hpu_test_sleep_ms(1);
	}
}

/* Wait (spin, then futex) until completed_seq reaches @seq */
void hpu_test_ring_wait_seq(struct hpu_test_ring *r, uint64_t seq)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 50000000 };
	uint64_t end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS, c;

	for (;;) {
		c = __atomic_load_n(&r->hdr->completed_seq, __ATOMIC_ACQUIRE);
		if (c >= seq)
			return;
		assert_true(hpu_test_ring_now_ns() < end);
		__atomic_add_fetch(&r->hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
		c = __atomic_load_n(&r->hdr->completed_seq, __ATOMIC_SEQ_CST);
		if (c < seq)
			syscall(SYS_futex, &r->hdr->cq_futex, FUTEX_WAIT,
				(uint32_t)c, &ts, NULL, 0);
		__atomic_sub_fetch(&r->hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
	}
}

/* Take the next completion record (there must be one) */
struct hpu_ring_cqe hpu_test_ring_pop(struct hpu_test_ring *r)
{
	uint32_t head = r->hdr->cq_head;
	struct hpu_ring_cqe rec;
	uint64_t end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;

	while (__atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE) == head) {
		assert_true(hpu_test_ring_now_ns() < end);
		hpu_test_sleep_ms(1);
	}
	rec = r->cq[head & (r->ncq - 1)];
	__atomic_store_n(&r->hdr->cq_head, head + 1, __ATOMIC_RELEASE);
	return rec;
}

bool hpu_test_ring_cq_empty(struct hpu_test_ring *r)
{
	return __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE) ==
	       r->hdr->cq_head;
}

/* A CB holding one NOP, in memory that lives as long as the test */
uint64_t hpu_test_ring_nop_cb(int fd)
{
	static uint64_t buf[8][4];
	static unsigned int next;
	struct hpu_pkt_nop *p = (struct hpu_pkt_nop *)buf[next++ % 8];
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.cb_size = sizeof(*p) } };

	memset(p, 0, sizeof(*p));
	p->hdr.opcode = HPU_PACKET_NOP;
	p->hdr.size = sizeof(*p);
	a.in.host_ptr = (uintptr_t)p;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	return a.out.cb_handle;
}

/* A chunk running @size bytes of CB @cb on @queue */
struct hpu_cs_chunk hpu_test_ring_chunk(uint64_t cb, uint32_t queue,
					uint32_t size)
{
	struct hpu_cs_chunk c = { .cb_handle = cb,
				  .queue_index = queue,
				  .cb_size = size };
	return c;
}
