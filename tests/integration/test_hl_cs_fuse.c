// SPDX-License-Identifier: MIT
/*
 * test_hl_cs_fuse.c - CS and WAIT_CS of the habanalabs personality through
 * FUSE (docs/habanalabs.md, "CS", "WAIT_CS"): a DMA round trip host ->
 * DRAM -> host with a blocking WAIT_CS (answered later by the daemon),
 * MSG_LONG into the SRAM window, and a CS with a bad packet whose WAIT_CS
 * fails with EIO while the kernel still copies the ABORTED status back,
 * as the real driver's ioctl entry does; the sync manager (docs/
 * habanalabs.md, "Sync manager"): while one stream waits on a FENCE that
 * never passes, two sibling streams of the same QMAN signal and wait
 * through a monitor, the control node answers, and the waiting CS ends
 * TIMEDOUT at its own timeout; sync stream (docs/habanalabs.md, "Sync
 * stream"): a WAIT CS, its number read from the caller's memory, holds
 * PDMA_1 until a SIGNAL CS behind a parked PDMA_0 stream ends, a
 * blocking WAIT_CS on the work behind it answered once a sibling stream
 * passes the FENCE; user interrupts (docs/habanalabs.md, "User
 * interrupts"): a monitor's payload to a CQ whose counter is in a mapped
 * kernel CB answers a blocking interrupt WAIT_CS, the client's mapping
 * of the CB shows the counter, a wait for more ends BUSY at its timeout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_hl_pkt.h"
#include "../lib/hpu_test_util.h"
#include "hl_uapi.h"

#define BUF_SIZE 65536

static const char *const hl_args[] = { "--personality", "habanalabs", NULL };

static int open_hl(void)
{
	char path[PATH_MAX + 32];
	int fd, i;

	snprintf(path, sizeof(path), "%s/accel0", hpu_test_shared.mount);
	/* a close's RELEASE may still hold the device for a moment */
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != EBUSY)
			break;
		usleep(1000);
	}
	return fd;
}

static uint64_t map_host(int fd, void *p, uint64_t size)
{
	union hl_mem_args a = { 0 };

	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR;
	a.in.map_host.host_virt_addr = (uintptr_t)p;
	a.in.map_host.mem_size = size;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_MEMORY, &a), 0);
	return a.out.device_virt_addr;
}

static uint64_t alloc_dram(int fd, uint64_t size)
{
	union hl_mem_args a = { 0 };
	uint64_t handle;

	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_MEMORY, &a), 0);
	handle = a.out.handle;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_MEMORY, &a), 0);
	return a.out.device_virt_addr;
}

/* Submit @size bytes of the CB at @cb_va on @qid; with @timeout_s (not
 * 0), a CUSTOM_TIMEOUT CS of that many seconds */
static uint64_t submit_timeout(int fd, uint64_t cb_va, uint32_t size,
			       uint32_t qid, uint32_t timeout_s)
{
	struct hl_cs_chunk c = { .cb_handle = cb_va,
				 .queue_index = qid,
				 .cb_size = size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	union hl_cs_args a = { 0 };

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	if (timeout_s) {
		a.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;
		a.in.timeout = timeout_s;
	}
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_CS, &a), 0);
	assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
	assert_true(a.out.seq > 0);
	return a.out.seq;
}

static uint64_t submit(int fd, uint64_t cb_va, uint32_t size, uint32_t qid)
{
	return submit_timeout(fd, cb_va, size, qid, 0);
}

/* A blocking WAIT_CS (60 s): the daemon answers when the CS ends */
static int wait_cs(int fd, uint64_t seq, struct hl_wait_cs_out *out)
{
	union hl_wait_cs_args a = { 0 };
	int ret;

	a.in.seq = seq;
	a.in.timeout_us = 60000000;
	ret = hpu_test_ioctl(fd, HL_IOCTL_WAIT_CS, &a);
	*out = a.out;
	return ret;
}

static void test_round_trip_and_waits(void **state)
{
	struct hl_info_hw_ip_info ip = { 0 };
	struct hl_info_args info = { .return_pointer = (uintptr_t)&ip,
				     .return_size = sizeof(ip),
				     .op = HL_INFO_HW_IP_INFO };
	uint8_t *cb, *src, *dst;
	uint64_t cb_va, src_va, dst_va, dram, seq;
	struct hl_wait_cs_out o;
	union hl_wait_cs_args w;
	uint32_t got;
	size_t off;
	int fd, i;

	(void)state;
	fd = open_hl();
	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_INFO, &info), 0);
	cb = aligned_alloc(4096, 4096);
	src = aligned_alloc(4096, BUF_SIZE);
	dst = aligned_alloc(4096, BUF_SIZE);
	assert_non_null(cb);
	assert_non_null(src);
	assert_non_null(dst);
	cb_va = map_host(fd, cb, 4096);
	src_va = map_host(fd, src, BUF_SIZE);
	dst_va = map_host(fd, dst, BUF_SIZE);
	dram = alloc_dram(fd, BUF_SIZE);
	hpu_test_fill_random(src, BUF_SIZE, 16);
	memset(dst, 0, BUF_SIZE);

	/* down on PDMA_0, up on PDMA_1, each waited for by a blocked call */
	off = hpu_test_hl_put_dma(cb, 0, src_va, dram, BUF_SIZE, HL_PKT_CTL_EB);
	seq = submit(fd, cb_va, (uint32_t)off, HL_GAUDI2_QUEUE_ID_PDMA_0_0);
	assert_int_equal(wait_cs(fd, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	off = hpu_test_hl_put_dma(cb, 0, dram, dst_va, BUF_SIZE, HL_PKT_CTL_EB);
	off = hpu_test_hl_put_msg_long(cb, off, ip.sram_base_address + 64,
				       0xbaba0ded, 0);
	off = hpu_test_hl_put_dma(cb, off, ip.sram_base_address + 64, dst_va, 4,
				  HL_PKT_CTL_EB);
	seq = submit(fd, cb_va, (uint32_t)off, HL_GAUDI2_QUEUE_ID_PDMA_1_0);
	assert_int_equal(wait_cs(fd, seq, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	memcpy(&got, dst, 4);
	assert_int_equal(got, 0xbaba0ded);
	assert_memory_equal(src + 4, dst + 4, BUF_SIZE - 4);

	/* a WAIT (not served): EIO, and the status came back all the same */
	memset(cb, 0, 8);
	cb[7] = HL_PACKET_WAIT; /* the control word's top byte: opcode */
	seq = submit(fd, cb_va, 8, HL_GAUDI2_QUEUE_ID_PDMA_0_0);
	memset(&o, 0xff, sizeof(o));
	assert_int_equal(wait_cs(fd, seq, &o), -EIO);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_ABORTED);
	/* an error without a status leaves the argument as it was */
	memset(&w, 0, sizeof(w));
	w.in.seq = seq + 1000;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_WAIT_CS, &w), -EINVAL);
	assert_int_equal(w.in.seq, seq + 1000);
	/* a poll of an ended CS */
	for (i = 0; i < 3; i++) {
		memset(&w, 0, sizeof(w));
		w.in.seq = seq - 1;
		assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_WAIT_CS, &w), 0);
		assert_int_equal(w.out.status, HL_WAIT_CS_STATUS_COMPLETED);
	}
	close(fd);
	free(cb);
	free(src);
	free(dst);
}

/* Gaudi2 facts: PDMA_0's FENCE0 counter of stream @cp; DCORE0's sync
 * manager monitor registers, from MON_PAY_ADDRL_0 (MSG_SHORT base 0) */
#define PDMA0_FENCE0_RDATA(cp) (0x1000007FF8000000ULL + 0x4C8A290 + 4 * (cp))
#define MON_ADDRH	       0x2000
#define MON_DATA	       0x4000
#define MON_ARM		       0x6000
#define MON_CFG		       0x8000

static size_t put_fence(uint8_t *cb, size_t off, uint32_t id, uint32_t target)
{
	uint32_t cfg = target | target << 16 | id << 30;
	uint32_t ctl = HL_PACKET_FENCE << HL_PKT_CTL_OPCODE_SHIFT;

	memcpy(cb + off, &cfg, 4);
	memcpy(cb + off + 4, &ctl, 4);
	return off + 8;
}

static void test_sync_streams(void **state)
{
	struct hl_info_device_status ds = { 0 };
	struct hl_info_args info = { .return_pointer = (uintptr_t)&ds,
				     .return_size = sizeof(ds),
				     .op = HL_INFO_DEVICE_STATUS };
	char path[PATH_MAX + 32];
	uint64_t cb_va, src_va, dst_va, stuck, waiter, signaller;
	struct hl_wait_cs_out o;
	uint8_t *cb, *src, *dst;
	int fd, cfd;
	size_t off;

	(void)state;
	fd = open_hl();
	assert_true(fd >= 0);
	cb = aligned_alloc(4096, 3 * 4096);
	src = aligned_alloc(4096, 4096);
	dst = aligned_alloc(4096, 4096);
	assert_non_null(cb);
	assert_non_null(src);
	assert_non_null(dst);
	memset(cb, 0, 3 * 4096);
	for (off = 0; off < 4096; off++)
		src[off] = (uint8_t)(off * 13 + 1);
	memset(dst, 0, 4096);
	cb_va = map_host(fd, cb, 3 * 4096);
	src_va = map_host(fd, src, 4096);
	dst_va = map_host(fd, dst, 4096);

	/* stream 1 of PDMA_0: a FENCE nothing satisfies, 1 s timeout */
	off = put_fence(cb, 0, 1, 1);
	stuck = submit_timeout(fd, cb_va, (uint32_t)off,
			       (HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 1), 1);
	/* stream 2: monitor 4 on SOB 3 == 1 -> its FENCE0; FENCE; DMA */
	off = hpu_test_hl_put_short(cb + 4096, 0, 1, 4 * 3, 0);
	off = hpu_test_hl_put_short(cb + 4096, off, 0, MON_CFG + 4 * 4, 0);
	off = hpu_test_hl_put_short(cb + 4096, off, 0, 4 * 4,
				    (uint32_t)PDMA0_FENCE0_RDATA(2));
	off = hpu_test_hl_put_short(cb + 4096, off, 0, MON_ADDRH + 4 * 4,
				    (uint32_t)(PDMA0_FENCE0_RDATA(2) >> 32));
	off = hpu_test_hl_put_short(cb + 4096, off, 0, MON_DATA + 4 * 4, 1);
	off = hpu_test_hl_put_short(cb + 4096, off, 0, MON_ARM + 4 * 4,
				    0 | (~(1U << 3) & 0xFF) << 8 | 1U << 16 |
					    1U << 17);
	off = put_fence(cb + 4096, off, 0, 1);
	off = hpu_test_hl_put_dma(cb + 4096, off, src_va, dst_va, 4096,
				  HL_PKT_CTL_EB);
	waiter = submit_timeout(fd, cb_va + 4096, (uint32_t)off,
				(HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 2), 30);
	/* stream 3, after: SOB 3 += 1 */
	off = hpu_test_hl_put_short(cb + 8192, 0, 1, 4 * 3, 1U << 31 | 1);
	signaller = submit_timeout(fd, cb_va + 8192, (uint32_t)off,
				   (HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 3), 30);
	/* blocking waits, answered by the daemon while stream 1 waits */
	assert_int_equal(wait_cs(fd, signaller, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(fd, waiter, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(dst, src, 4096);
	/* the control node answers meanwhile */
	snprintf(path, sizeof(path), "%s/accel_controlD0",
		 hpu_test_shared.mount);
	cfd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(cfd >= 0);
	assert_int_equal(hpu_test_ioctl(cfd, HL_IOCTL_INFO, &info), 0);
	close(cfd);
	/* the waiting CS ends at its own timeout, the status copied back */
	memset(&o, 0xff, sizeof(o));
	assert_int_equal(wait_cs(fd, stuck, &o), -ETIMEDOUT);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_TIMEDOUT);
	close(fd);
	free(cb);
	free(src);
	free(dst);
}

/* A SIGNAL (@seqs NULL) or WAIT CS on @qid; the answer's number */
static int stream_cs(int fd, uint32_t qid, const __u64 *seqs, uint64_t *seq)
{
	struct hl_cs_chunk c = { .cb_handle = (uintptr_t)seqs,
				 .queue_index = qid,
				 .cb_size = seqs ? 1 : 0 };
	union hl_cs_args a = { 0 };
	int ret;

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = seqs ? HL_CS_FLAGS_WAIT : HL_CS_FLAGS_SIGNAL;
	ret = hpu_test_ioctl(fd, HL_IOCTL_CS, &a);
	if (!ret) {
		assert_int_equal(a.out.status, HL_CS_STATUS_SUCCESS);
		*seq = a.out.seq;
	}
	return ret;
}

static void test_signal_wait(void **state)
{
	uint64_t cb_va, src_va, dst_va, park, w, dma, rel, again;
	union hl_wait_cs_args poll_arg;
	struct hl_wait_cs_out o;
	uint64_t sig_seq;
	uint8_t *cb, *src, *dst;
	__u64 *sig;
	size_t off;
	int fd;

	(void)state;
	fd = open_hl();
	assert_true(fd >= 0);
	cb = aligned_alloc(4096, 4096);
	src = aligned_alloc(4096, 4096);
	dst = aligned_alloc(4096, 4096);
	sig = malloc(sizeof(*sig));
	assert_non_null(cb);
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(sig);
	memset(cb, 0, 4096);
	hpu_test_fill_random(src, 4096, 7);
	memset(dst, 0, 4096);
	cb_va = map_host(fd, cb, 4096);
	src_va = map_host(fd, src, 4096);
	dst_va = map_host(fd, dst, 4096);

	/* PDMA_0 stream 1 parked on a FENCE, a SIGNAL behind it */
	off = put_fence(cb, 0, 0, 1);
	park = submit_timeout(fd, cb_va, (uint32_t)off,
			      HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 1, 30);
	assert_int_equal(stream_cs(fd, HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 1, NULL,
				   &sig_seq),
			 0);
	*sig = sig_seq;
	/* PDMA_1: a WAIT for it, then a DMA */
	assert_int_equal(stream_cs(fd, HL_GAUDI2_QUEUE_ID_PDMA_1_0, sig, &w),
			 0);
	assert_int_equal(w, *sig + 1);
	assert_int_equal(stream_cs(fd, HL_GAUDI2_QUEUE_ID_PDMA_1_0,
				   (const __u64 *)8, &again),
			 -EFAULT);
	off = hpu_test_hl_put_dma(cb, 64, src_va, dst_va, 4096, HL_PKT_CTL_EB);
	dma = submit(fd, cb_va + 64, (uint32_t)(off - 64),
		     HL_GAUDI2_QUEUE_ID_PDMA_1_0);
	memset(&poll_arg, 0, sizeof(poll_arg));
	poll_arg.in.seq = dma;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_WAIT_CS, &poll_arg), 0);
	assert_int_equal(poll_arg.out.status, HL_WAIT_CS_STATUS_BUSY);
	for (off = 0; off < 4096; off++)
		assert_int_equal(dst[off], 0);

	/* stream 2 passes the FENCE: a blocked WAIT_CS on the DMA returns */
	off = hpu_test_hl_put_msg_long(cb, 128, PDMA0_FENCE0_RDATA(1), 1, 0);
	rel = submit(fd, cb_va + 128, (uint32_t)(off - 128),
		     HL_GAUDI2_QUEUE_ID_PDMA_0_0 + 2);
	assert_int_equal(wait_cs(fd, dma, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(dst, src, 4096);
	assert_int_equal(wait_cs(fd, park, &o), 0);
	assert_int_equal(wait_cs(fd, w, &o), 0);
	assert_int_equal(o.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_cs(fd, rel, &o), 0);
	/* the SIGNAL ended: a WAIT for it submits nothing */
	assert_int_equal(
		stream_cs(fd, HL_GAUDI2_QUEUE_ID_PDMA_1_0, sig, &again), 0);
	assert_int_equal(again, ~0ULL);
	close(fd);
	free(cb);
	free(src);
	free(dst);
	free(sig);
}

/* An interrupt WAIT_CS (id 3, KERNEL_CQ) for @target at the counter of
 * CB @h, @timeout_us; the status in @status */
static int irq_wait(int fd, uint64_t h, uint64_t target, uint64_t timeout_us,
		    uint32_t *status)
{
	union hl_wait_cs_args a = { 0 };
	int ret;

	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT |
		     HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ | 3U << 20;
	a.in.seq = h;				   /* cq_counters_handle */
	a.in.timeout_us = target;		   /* target */
	memcpy(&a.in.seq_arr_len, &timeout_us, 8); /* interrupt_timeout_us */
	ret = hpu_test_ioctl(fd, HL_IOCTL_WAIT_CS, &a);
	*status = a.out.status;
	return ret;
}

struct irq_waiter {
	int fd;
	uint64_t h;
	int ret;
	uint32_t status;
};

static void *irq_wait_thread(void *arg)
{
	struct irq_waiter *w = arg;

	w->ret = irq_wait(w->fd, w->h, 100, 60000000, &w->status);
	return NULL;
}

static void test_user_interrupt(void **state)
{
	const uint32_t mb = HL_PKT_CTL_MB, cq = 4 * 5, m = 4 * 2;
	const uint64_t cfg = 0x1000007FF8000000ULL;
	const uint64_t msix = 0x1000007FFCC17000ULL;
	struct hl_wait_cs_out out;
	struct irq_waiter w = { 0 };
	union hl_cb_args c = { 0 };
	volatile uint64_t *ctr;
	uint64_t h, va, cb_va, seq;
	pthread_t t;
	uint32_t status;
	uint8_t *cb;
	size_t off = 0;
	int fd;

	(void)state;
	fd = open_hl();
	assert_true(fd >= 0);
	c.in.op = HL_CB_OP_CREATE;
	c.in.cb_size = 8;
	c.in.flags = HL_CB_FLAGS_MAP;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_CB, &c), 0);
	h = c.out.cb_handle;
	memset(&c, 0, sizeof(c));
	c.in.op = HL_CB_OP_INFO;
	c.in.cb_handle = h;
	c.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	assert_int_equal(hpu_test_ioctl(fd, HL_IOCTL_CB, &c), 0);
	va = c.out.device_va;
	ctr = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)h);
	assert_true(ctr != MAP_FAILED);
	*ctr = 0;

	/* the waiter may come before or after the CS: COMPLETED either way */
	w.fd = fd;
	w.h = h;
	assert_int_equal(pthread_create(&t, NULL, irq_wait_thread, &w), 0);

	cb = aligned_alloc(4096, 4096);
	assert_non_null(cb);
	memset(cb, 0, 4096);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E050 + cq,
				       (uint32_t)va, mb);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E150 + cq,
				       (uint32_t)(va >> 32), mb);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E550 + cq,
				       (uint32_t)msix, mb);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E650 + cq,
				       (uint32_t)(msix >> 32), mb);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E750 + cq, 3, mb);
	off = hpu_test_hl_put_msg_long(cb, off, cfg + 0x411E850 + cq, 0, mb);
	off = hpu_test_hl_put_short(cb, off, 1, 4 * 7, 1); /* SOB 7 = 1 */
	off = hpu_test_hl_put_short(cb, off, 0, 0x8000 + m, 1U << 4 | 1U << 8);
	off = hpu_test_hl_put_short(cb, off, 0, m, 5); /* CQ 5 */
	off = hpu_test_hl_put_short(cb, off, 0, 0x2000 + m, 0);
	off = hpu_test_hl_put_short(cb, off, 0, 0x4000 + m, 101);
	off = hpu_test_hl_put_short(cb, off, 0, 0x6000 + m,
				    0 | (~(1U << 7) & 0xFFU) << 8 | 1U << 16 |
					    1U << 17);
	cb_va = map_host(fd, cb, 4096);
	seq = submit(fd, cb_va, (uint32_t)off, 0);
	assert_int_equal(wait_cs(fd, seq, &out), 0);
	assert_int_equal(out.status, HL_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, 0);
	assert_int_equal(w.status, HL_WAIT_CS_STATUS_COMPLETED);
	/* the device's write reached the client's mapping */
	assert_int_equal(*ctr, 101);
	/* more than the counter: BUSY at the timeout (2 ms), answer 0 */
	assert_int_equal(irq_wait(fd, h, 102, 2000, &status), 0);
	assert_int_equal(status, HL_WAIT_CS_STATUS_BUSY);
	munmap((void *)ctr, 4096);
	close(fd);
	free(cb);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_args(1, "gaudi2", hl_args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_round_trip_and_waits,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_sync_streams, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_signal_wait, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_user_interrupt,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
