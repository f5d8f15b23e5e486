// SPDX-License-Identifier: MIT
/*
 * test_cs_ioctl.c - MEMORY, CB, CS and WAIT_CS through raw ioctls against
 * the real hpu-fused: every rejection path with its errno, a DMA round
 * trip, SIGNAL/WAIT ordering, many blocked waiters, CS timeout, page
 * fault and POLLPRI (docs/command-submission.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_fw_if.h"
#include "hpu_packets.h"

#define WAIT_US	 20000000ULL
#define NWAITERS 200
#define DEV_VA	 0x100000000000ULL

static unsigned long attr_ul(int dev, const char *name)
{
	char path[PATH_MAX + 64], buf[64] = { 0 };
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/class/hpu%d/%s", hpu_test_shared.mount,
		 dev, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	return strtoul(buf, NULL, 10);
}

static int mem(int fd, union hpu_mem_args *m)
{
	return hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, m);
}

static uint64_t alloc_map(int fd, uint64_t size, uint64_t *handle)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = size } };

	assert_int_equal(mem(fd, &m), 0);
	*handle = m.out.handle;
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_MAP;
	m.in.handle = *handle;
	assert_int_equal(mem(fd, &m), 0);
	return m.out.device_virt_addr;
}

static uint64_t map_host(int fd, void *p, uint64_t size)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP,
					 .flags = HPU_MEM_USERPTR,
					 .host_virt_addr = (uintptr_t)p,
					 .size = size } };

	assert_int_equal(mem(fd, &m), 0);
	return m.out.device_virt_addr;
}

static int cb_create(int fd, void *p, uint32_t size, uint64_t *handle)
{
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.host_ptr = (uintptr_t)p,
					.cb_size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_CB, &a);

	if (!ret)
		*handle = a.out.cb_handle;
	return ret;
}

static struct hpu_pkt_nop pkt_nop(void)
{
	struct hpu_pkt_nop p = { .hdr = { .opcode = HPU_PACKET_NOP,
					  .size = sizeof(p) } };
	return p;
}

static struct hpu_pkt_lin_dma pkt_dma(uint64_t src, uint64_t dst, uint64_t n)
{
	struct hpu_pkt_lin_dma p = { .hdr = { .opcode = HPU_PACKET_LIN_DMA,
					      .size = sizeof(p) },
				     .src_addr = src,
				     .dst_addr = dst,
				     .size = n };
	return p;
}

static struct hpu_pkt_memset pkt_memset(uint64_t dst, uint64_t n, uint8_t v)
{
	struct hpu_pkt_memset p = { .hdr = { .opcode = HPU_PACKET_MEMSET,
					     .size = sizeof(p) },
				    .dst_addr = dst,
				    .size = n,
				    .value = v };
	return p;
}

static void test_memory_rejects(void **state)
{
	static uint8_t host[8192];
	union hpu_mem_args m;
	uint64_t h, h2, va;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0);

	memset(&m, 0, sizeof(m));
	m.in.op = 9;
	assert_int_equal(mem(fd, &m), -EINVAL);
	m.in.op = HPU_MEM_OP_ALLOC;
	m.in.size = 4096;
	m.in.reserved = 1;
	assert_int_equal(mem(fd, &m), -EINVAL);
	m.in.reserved = 0;
	m.in.flags = HPU_MEM_USERPTR;
	assert_int_equal(mem(fd, &m), -EINVAL);
	m.in.flags = 0;
	m.in.size = 0;
	assert_int_equal(mem(fd, &m), -EINVAL);
	m.in.size = 4096;
	m.in.page_size = 3;
	assert_int_equal(mem(fd, &m), -EINVAL);

	va = alloc_map(fd, 4096, &h);
	assert_true(va >= HPU_FW_VA_DEVICE_BASE && va < HPU_FW_VA_DEVICE_END);
	/* FREE while mapped */
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = h;
	assert_int_equal(mem(fd, &m), -EBUSY);
	/* the handle means nothing in another context */
	assert_int_equal(mem(fd2, &m), -EINVAL);
	m.in.handle = h + 1000;
	assert_int_equal(mem(fd, &m), -EINVAL);
	/* UNMAP of an address no mapping starts at */
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_UNMAP;
	m.in.device_virt_addr = va + 8;
	assert_int_equal(mem(fd, &m), -EINVAL);
	m.in.device_virt_addr = va;
	assert_int_equal(mem(fd2, &m), -EINVAL);
	assert_int_equal(mem(fd, &m), 0);
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = h;
	assert_int_equal(mem(fd, &m), 0);
	assert_int_equal(mem(fd, &m), -EINVAL); /* never reused */

	/* host memory: an unmapped range is EFAULT */
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_MAP;
	m.in.flags = HPU_MEM_USERPTR;
	m.in.host_virt_addr = 4096;
	m.in.size = 4096;
	assert_int_equal(mem(fd, &m), -EFAULT);
	m.in.host_virt_addr = (uintptr_t)host + 100;
	m.in.size = 100;
	assert_int_equal(mem(fd, &m), 0);
	assert_int_equal(m.out.device_virt_addr % 4096,
			 ((uintptr_t)host + 100) % 4096);
	/* a fresh handle is not an old one */
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_ALLOC;
	m.in.size = 4096;
	assert_int_equal(mem(fd, &m), 0);
	h2 = m.out.handle;
	assert_true(h2 > h);
	close(fd);
	close(fd2);
}

static void test_cb_rejects(void **state)
{
	static uint64_t buf[16];
	union hpu_cb_args a;
	uint64_t h = 0;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0);

	assert_int_equal(cb_create(fd, buf, 4, &h), -EINVAL);
	assert_int_equal(cb_create(fd, buf, 12, &h), -EINVAL);
	assert_int_equal(cb_create(fd, buf, HPU_MAX_CB_SIZE + 8, &h), -EINVAL);
	assert_int_equal(cb_create(fd, (void *)8, 64, &h), -EFAULT);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_CB_OP_CREATE;
	a.in.host_ptr = (uintptr_t)buf;
	a.in.cb_size = sizeof(buf);
	a.in.flags = 1;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), -EINVAL);
	a.in.flags = 0;
	a.in.pad = 1;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), -EINVAL);

	assert_int_equal(cb_create(fd, buf, sizeof(buf), &h), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_CB_OP_INFO;
	a.in.cb_handle = h;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	assert_int_equal(a.out.cb_size, sizeof(buf));
	assert_int_equal(a.out.usage_cnt, 0);
	a.in.op = HPU_CB_OP_INFO;
	a.in.cb_handle = h;
	a.in.cb_size = 0;
	assert_int_equal(hpu_test_ioctl(fd2, HPU_IOCTL_CB, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_CB_OP_DESTROY;
	a.in.cb_handle = h;
	assert_int_equal(hpu_test_ioctl(fd2, HPU_IOCTL_CB, &a), -EINVAL);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), 0);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &a), -EINVAL);
	close(fd);
	close(fd2);
}

static void test_cs_rejects(void **state)
{
	static uint8_t target[256];
	static uint64_t cbuf[16];
	struct hpu_pkt_memset ms;
	struct hpu_pkt_fence bad;
	struct hpu_cs_chunk c;
	struct hpu_info_cs_counters ctr0, ctr1;
	struct hpu_info_args info = { .return_pointer = (uintptr_t)&ctr0,
				      .return_size = sizeof(ctr0),
				      .op = HPU_INFO_CS_COUNTERS };
	union hpu_cs_args a;
	uint32_t status;
	uint64_t h = 0, va, seq = 0;
	int fd = hpu_test_open_dev(0), fd2 = hpu_test_open_dev(0);

	memset(target, 0x5a, sizeof(target));
	va = map_host(fd, target, sizeof(target));
	ms = pkt_memset(va, sizeof(target), 0);
	bad = hpu_test_pkt_fence(
		HPU_NUM_SOBS); /* the driver's SOBs: forbidden */
	memcpy(cbuf, &ms, sizeof(ms));
	memcpy((uint8_t *)cbuf + sizeof(ms), &bad, sizeof(bad));
	assert_int_equal(cb_create(fd, cbuf, sizeof(cbuf), &h), 0);

	memset(&c, 0, sizeof(c));
	c.cb_handle = h;
	c.cb_size = sizeof(ms) + sizeof(bad);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &info), 0);
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	info.return_pointer = (uintptr_t)&ctr1;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &info), 0);
	assert_int_equal(ctr1.ctx_parsing_drop_cnt,
			 ctr0.ctx_parsing_drop_cnt + 1);
	assert_int_equal(ctr1.ctx_submitted, ctr0.ctx_submitted);

	c.cb_size = sizeof(ms);
	c.queue_index = 100000;
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	c.queue_index = 0;
	c.cb_handle = h + 1000;
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	c.cb_handle = h;
	assert_int_equal(hpu_test_cs_submit(fd2, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL); /* other ctx */
	c.cb_size = sizeof(cbuf) + 8;
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	c.cb_size = 12;
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	c.cb_size = sizeof(ms);
	c.pad = 1;
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	c.pad = 0;
	assert_int_equal(hpu_test_cs_submit(fd, (void *)8, 1, 0, 0, &seq, NULL),
			 -EFAULT);
	assert_int_equal(hpu_test_cs_submit(fd, &c, 0, 0, 0, &seq, NULL),
			 -EINVAL);
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1,
					    HPU_CS_FLAGS_SIGNAL |
						    HPU_CS_FLAGS_WAIT,
					    0, &seq, NULL),
			 -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.reserved = 1;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CS, &a), -EINVAL);
	/* nothing of the rejected CSs ran */
	assert_int_equal(target[0], 0x5a);
	assert_int_equal(target[sizeof(target) - 1], 0x5a);

	/* the good prefix runs; the sequence numbers count from 1 */
	assert_int_equal(hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL), 0);
	assert_int_equal(seq, 1);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(target[0], 0);
	assert_int_equal(hpu_test_cs_wait(fd, 2, 0, &status), -EINVAL);
	assert_int_equal(hpu_test_cs_wait(fd2, 1, 0, &status), -EINVAL);
	close(fd);
	close(fd2);
}

static void test_dma_round_trip(void **state)
{
	static uint8_t src[4096], dst[4096];
	struct {
		struct hpu_pkt_lin_dma h2d, d2h;
	} pk;
	uint64_t h = 0, dva, sva, tva, seq = 0;
	unsigned int i;
	int fd = hpu_test_open_dev(0);

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0, sizeof(dst));
	dva = alloc_map(fd, sizeof(src), &h);
	sva = map_host(fd, src, sizeof(src));
	tva = map_host(fd, dst, sizeof(dst));
	pk.h2d = pkt_dma(sva, dva, sizeof(src));
	pk.d2h = pkt_dma(dva, tva, sizeof(src));
	assert_int_equal(hpu_test_cs_run_cb(fd, &pk, sizeof(pk), 0, 0, &seq),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(src, dst, sizeof(src));
	close(fd);
}

static void test_signal_wait_order(void **state)
{
	static uint8_t buf[64];
	struct hpu_pkt_fence f = hpu_test_pkt_fence(9);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(9);
	struct hpu_pkt_memset ms;
	struct hpu_cs_chunk sig = { .queue_index = 1 };
	struct hpu_cs_chunk wt = { .queue_index = 0, .cb_size = 1 };
	uint64_t s1 = 0, s_sig = 0, s_wait = 0, s_ms = 0, s_inc = 0;
	uint32_t status;
	int fd = hpu_test_open_dev(0);

	memset(buf, 0x11, sizeof(buf));
	ms = pkt_memset(map_host(fd, buf, sizeof(buf)), sizeof(buf), 0x77);
	/* queue 1 blocks on SOB 9; SIGNAL on queue 1 ends after it */
	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 1, 0, &s1), 0);
	assert_int_equal(hpu_test_cs_submit(fd, &sig, 1, HPU_CS_FLAGS_SIGNAL, 0,
					    &s_sig, NULL),
			 0);
	/* queue 0 waits for the SIGNAL, then runs the MEMSET */
	wt.cb_handle = (uintptr_t)&s_sig;
	assert_int_equal(hpu_test_cs_submit(fd, &wt, 1, HPU_CS_FLAGS_WAIT, 0,
					    &s_wait, NULL),
			 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &ms, sizeof(ms), 0, 0, &s_ms),
			 0);
	assert_int_equal(hpu_test_cs_wait(fd, s_ms, 200000, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	assert_int_equal(buf[0], 0x11);
	/* release queue 1 from a third queue */
	assert_int_equal(
		hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 2, 0, &s_inc), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_ms),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(buf[0], 0x77);
	assert_int_equal(hpu_test_cs_wait_status(fd, s1),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_sig),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_wait),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

/*
 * A WAIT with a chunk on two queues for a CS that blocks: the work behind
 * it on both queues waits, and runs once the awaited CS ends, here by its
 * timeout (the ending is handled on the timer thread, which releases the
 * WAIT's SOBs at once).
 */
static void test_wait_released_by_timeout(void **state)
{
	static uint8_t buf[2][64];
	struct hpu_pkt_fence f = hpu_test_pkt_fence(14);
	struct hpu_pkt_memset ms[2];
	struct hpu_cs_chunk wt[2] = {
		{ .queue_index = 0, .cb_size = 1 },
		{ .queue_index = 2, .cb_size = 1 },
	};
	uint64_t s1 = 0, s_wait = 0, s_ms[2] = { 0 };
	uint32_t status;
	unsigned int i;
	int fd = hpu_test_open_dev(1);

	(void)state;
	memset(buf, 0x11, sizeof(buf));
	for (i = 0; i < 2; i++)
		ms[i] = pkt_memset(map_host(fd, buf[i], sizeof(buf[i])),
				   sizeof(buf[i]), 0x55);
	/* queue 1 blocks on SOB 14 until its 300 ms timeout */
	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 1, 300, &s1), 0);
	wt[0].cb_handle = (uintptr_t)&s1;
	wt[1].cb_handle = (uintptr_t)&s1;
	assert_int_equal(hpu_test_cs_submit(fd, wt, 2, HPU_CS_FLAGS_WAIT, 0,
					    &s_wait, NULL),
			 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &ms[0], sizeof(ms[0]), 0, 0,
					    &s_ms[0]),
			 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &ms[1], sizeof(ms[1]), 2, 0,
					    &s_ms[1]),
			 0);
	/* nothing behind the WAIT ran while the awaited CS runs */
	assert_int_equal(hpu_test_cs_wait(fd, s1, 0, &status), 0);
	if (status == HPU_WAIT_CS_STATUS_BUSY) {
		assert_int_equal(hpu_test_cs_wait(fd, s_ms[0], 0, &status), 0);
		assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
		assert_int_equal(hpu_test_cs_wait(fd, s_ms[1], 0, &status), 0);
		assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);
	}
	assert_int_equal(hpu_test_cs_wait_status(fd, s1),
			 HPU_WAIT_CS_STATUS_TIMEDOUT);
	/* the WAIT ends when what it waits for ends, also by a timeout */
	assert_int_equal(hpu_test_cs_wait_status(fd, s_wait),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < 2; i++) {
		assert_int_equal(hpu_test_cs_wait_status(fd, s_ms[i]),
				 HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(buf[i][63], 0x55);
	}
	close(fd);
}

/*
 * Many WAITs in a row, each released by an ending in another thread of
 * the daemon while the next WAIT takes an internal SOB: every release
 * reaches its own WAIT (a lost or misdirected one hangs the chain, which
 * the bounded waits report), the SOBs are reused hundreds of times.
 */
static void test_wait_chain_reuse(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(15);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(15);
	struct hpu_cs_chunk wt = { .queue_index = 0, .cb_size = 1 };
	struct hpu_pkt_nop nop = pkt_nop();
	uint64_t s_f, s_w, s_i, s_n;
	unsigned int i;
	int fd = hpu_test_open_dev(1);

	(void)state;
	for (i = 0; i < 600; i++) {
		assert_int_equal(
			hpu_test_cs_run_cb(fd, &f, sizeof(f), 1, 0, &s_f), 0);
		wt.cb_handle = (uintptr_t)&s_f;
		assert_int_equal(hpu_test_cs_submit(fd, &wt, 1,
						    HPU_CS_FLAGS_WAIT, 0, &s_w,
						    NULL),
				 0);
		assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0,
						    &s_n),
				 0);
		assert_int_equal(hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 2, 0,
						    &s_i),
				 0);
		if (i % 64 == 63 || i == 599) {
			assert_int_equal(hpu_test_cs_wait_status(fd, s_n),
					 HPU_WAIT_CS_STATUS_COMPLETED);
			assert_int_equal(hpu_test_cs_wait_status(fd, s_w),
					 HPU_WAIT_CS_STATUS_COMPLETED);
		}
	}
	close(fd);
}

/*
 * close() while WAITs wait for a CS that never ends: the teardown aborts
 * them all (no release reaches a destroyed address space) and the daemon
 * serves the next context on the same device.
 */
static void test_wait_close_in_flight(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(16);
	struct hpu_cs_chunk wt[2] = {
		{ .queue_index = 0, .cb_size = 1 },
		{ .queue_index = 2, .cb_size = 1 },
	};
	struct hpu_pkt_nop nop = pkt_nop();
	uint64_t s1, sw, sn;
	unsigned int i;
	int fd = hpu_test_open_dev(1);

	(void)state;
	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 1, 0, &s1), 0);
	wt[0].cb_handle = (uintptr_t)&s1;
	wt[1].cb_handle = (uintptr_t)&s1;
	for (i = 0; i < 8; i++)
		assert_int_equal(hpu_test_cs_submit(fd, wt, 2,
						    HPU_CS_FLAGS_WAIT, 0, &sw,
						    NULL),
				 0);
	close(fd);
	fd = hpu_test_open_dev(1);
	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0, &sn),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, sn),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

struct waiter_arg {
	int fd;
	uint64_t seq;
	int ret;
	uint32_t status;
};

static void *waiter_main(void *p)
{
	struct waiter_arg *w = p;

	do {
		w->ret = hpu_test_cs_wait(w->fd, w->seq, WAIT_US, &w->status);
	} while (w->ret == -EINTR);
	return NULL;
}

static void test_many_waiters(void **state)
{
	static struct waiter_arg args[NWAITERS];
	static pthread_t th[NWAITERS];
	struct hpu_pkt_fence f = hpu_test_pkt_fence(11);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(11);
	struct hpu_info_device_status ds;
	struct hpu_info_args info = { .return_pointer = (uintptr_t)&ds,
				      .return_size = sizeof(ds),
				      .op = HPU_INFO_DEVICE_STATUS };
	uint64_t seq, s_inc;
	unsigned int i;
	int fd = hpu_test_open_dev(1);

	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 3, 0, &seq), 0);
	for (i = 0; i < NWAITERS; i++) {
		args[i].fd = fd;
		args[i].seq = seq;
		args[i].ret = 1;
		assert_int_equal(
			pthread_create(&th[i], NULL, waiter_main, &args[i]), 0);
	}
	hpu_test_sleep_ms(500);
	/* more waiters than worker threads: other requests still served */
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &info), 0);
	assert_int_equal(
		hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 4, 0, &s_inc), 0);
	for (i = 0; i < NWAITERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].ret, 0);
		assert_int_equal(args[i].status, HPU_WAIT_CS_STATUS_COMPLETED);
	}
	close(fd);
}

static void test_cs_timeout(void **state)
{
	static uint8_t buf[64];
	struct hpu_pkt_fence f = hpu_test_pkt_fence(13);
	struct hpu_pkt_memset ms;
	struct hpu_event ev;
	unsigned long resets = attr_ul(2, "soft_reset_cnt");
	uint64_t seq, s2;
	int fd = hpu_test_open_dev(2), other = hpu_test_open_dev(2);

	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 0, 100, &seq),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_TIMEDOUT);
	assert_true(attr_ul(2, "soft_reset_cnt") >= resets + 1);
	assert_int_equal(read(fd, &ev, sizeof(ev)), sizeof(ev));
	assert_int_equal(ev.type, HPU_EVENT_CS_TIMEOUT);
	assert_int_equal(ev.seq, seq);
	/* the device goes on: another context uses the same queue */
	memset(buf, 1, sizeof(buf));
	ms = pkt_memset(map_host(other, buf, sizeof(buf)), sizeof(buf), 9);
	assert_int_equal(hpu_test_cs_run_cb(other, &ms, sizeof(ms), 0, 0, &s2),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(other, s2),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(buf[63], 9);
	close(fd);
	close(other);
}

static void test_page_fault(void **state)
{
	static uint8_t dst[4096];
	struct hpu_pkt_lin_dma d;
	struct hpu_event ev;
	uint64_t seq, bad = DEV_VA + (1ULL << 40);
	int fd = hpu_test_open_dev(3);

	memset(dst, 0xab, sizeof(dst));
	d = pkt_dma(bad, map_host(fd, dst, sizeof(dst)), sizeof(dst));
	assert_int_equal(hpu_test_cs_run_cb(fd, &d, sizeof(d), 0, 0, &seq), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(read(fd, &ev, sizeof(ev)), sizeof(ev));
	assert_int_equal(ev.type, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(ev.seq, seq);
	assert_int_equal(ev.addr, bad);
	assert_int_equal(ev.data & 1, 0); /* a read faulted */
	assert_int_equal(dst[0], 0xab);
	assert_int_equal(dst[sizeof(dst) - 1], 0xab);
	close(fd);
}

static void test_poll_pri(void **state)
{
	struct hpu_pkt_nop n = pkt_nop();
	struct pollfd p;
	uint32_t status;
	uint64_t seq;
	int fd = hpu_test_open_dev(0);

	assert_int_equal(hpu_test_cs_run_cb(fd, &n, sizeof(n), 0, 0, &seq), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	/* the WAIT_CS cleared POLLPRI */
	p.fd = fd;
	p.events = POLLPRI;
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &n, sizeof(n), 0, 0, &seq), 0);
	assert_int_equal(poll(&p, 1, 20000), 1);
	assert_true(p.revents & POLLPRI);
	assert_int_equal(hpu_test_cs_wait(fd, seq, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

static int group_setup(void **state)
{
	return hpu_test_group_start(4, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_memory_rejects,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cb_rejects, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cs_rejects, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_dma_round_trip,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_signal_wait_order,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_released_by_timeout,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_chain_reuse,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_close_in_flight,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_many_waiters, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cs_timeout, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_page_fault, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_poll_pri, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
