// SPDX-License-Identifier: MIT
/*
 * test_fw_queues.c - libhpusim command submission through hpusim_model.ops:
 * DMA round trips between this process's memory and HBM, device to device,
 * overlapping copies, MEMSET, fences across queues, monitors, page faults,
 * dead host processes, engine errors, aborts, resets, address space and
 * device teardown with work in flight, concurrent submitters.
 *
 * This process is the "client": its own buffers are mapped with its pid
 * and a pidfd. Waits for completions are bounded (a failed wait fails the
 * test rather than hanging it); nothing asserts a duration.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpusim.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)

#define WAIT_LIMIT_S 30 /* a completion that takes longer is a failure */
#define MAX_DONE     4096

/* What the callbacks saw */
struct record {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ndone;
	void *cookie[MAX_DONE];
	enum hpu_fw_cs_result result[MAX_DONE];
	struct hpu_fw_fault fault[MAX_DONE];
	unsigned int nreset;
	uint32_t reset[64];
};

struct fix {
	struct record rec;
	struct hpu_fw_device *dev;
	struct hpu_fw_as *as;
	uint32_t dma0, dma1, mme0;
	int last_pidfd;
};

static const struct hpu_fw_ops *ops;

static void on_done(void *arg, void *cookie, enum hpu_fw_cs_result result,
		    const struct hpu_fw_fault *fault, uint64_t done_ns)
{
	struct record *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->ndone < MAX_DONE) {
		r->cookie[r->ndone] = cookie;
		r->result[r->ndone] = result;
		if (fault)
			r->fault[r->ndone] = *fault;
	}
	r->ndone++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void on_reset(void *arg, uint32_t engine)
{
	struct record *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->nreset < 64)
		r->reset[r->nreset] = engine;
	r->nreset++;
	pthread_mutex_unlock(&r->lock);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
		.cb = { .cs_done = on_done, .engine_reset = on_reset },
	};

	if (!f)
		return -1;
	ops = hpusim_model.ops;
	pthread_mutex_init(&f->rec.lock, NULL);
	pthread_cond_init(&f->rec.cond, NULL);
	cfg.cb.arg = &f->rec;
	if (ops->create(&cfg, &f->dev) || ops->as_create(f->dev, &f->as))
		return -1;
	f->dma0 = 0;
	f->dma1 = 1;
	f->mme0 = cfg.profile->num_dma;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	if (f->as)
		ops->as_destroy(f->as);
	if (f->dev)
		ops->destroy(f->dev);
	free(f);
	return 0;
}

/* Wait until @n completions were reported in total */
static void wait_done(struct fix *f, unsigned int n)
{
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_LIMIT_S;
	pthread_mutex_lock(&f->rec.lock);
	while (f->rec.ndone < n && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&f->rec.cond, &f->rec.lock, &ts);
	pthread_mutex_unlock(&f->rec.lock);
	assert_true(f->rec.ndone >= n);
}

static unsigned int ndone(struct fix *f)
{
	unsigned int n;

	pthread_mutex_lock(&f->rec.lock);
	n = f->rec.ndone;
	pthread_mutex_unlock(&f->rec.lock);
	return n;
}

/* Find the result reported for @cookie */
static enum hpu_fw_cs_result result_of(struct fix *f, void *cookie,
				       struct hpu_fw_fault *fault)
{
	unsigned int i;

	pthread_mutex_lock(&f->rec.lock);
	for (i = 0; i < f->rec.ndone && i < MAX_DONE; i++) {
		if (f->rec.cookie[i] != cookie)
			continue;
		if (fault)
			*fault = f->rec.fault[i];
		pthread_mutex_unlock(&f->rec.lock);
		return f->rec.result[i];
	}
	pthread_mutex_unlock(&f->rec.lock);
	fail_msg("no completion for cookie %p", cookie);
	return HPU_FW_CS_ABORTED;
}

/* ------------------------------------------------------ CB building */

struct cb {
	uint8_t buf[4096];
	uint32_t len;
};

static void *cb_put(struct cb *cb, uint16_t opcode, uint16_t size,
		    uint16_t flags)
{
	struct hpu_pkt_hdr *h = (void *)(cb->buf + cb->len);

	assert_true(cb->len + size <= sizeof(cb->buf));
	memset(h, 0, size);
	h->opcode = opcode;
	h->size = size;
	h->flags = flags;
	cb->len += size;
	return h;
}

static void cb_dma(struct cb *cb, uint64_t dst, uint64_t src, uint64_t size)
{
	struct hpu_pkt_lin_dma *p =
		cb_put(cb, HPU_PACKET_LIN_DMA, sizeof(*p), 0);

	p->dst_addr = dst;
	p->src_addr = src;
	p->size = size;
}

static void cb_memset(struct cb *cb, uint64_t dst, uint64_t size,
		      uint64_t value, uint32_t width)
{
	uint16_t fl = width == 1 ? HPU_MEMSET_F_ELEM_1 :
		      width == 2 ? HPU_MEMSET_F_ELEM_2 :
		      width == 4 ? HPU_MEMSET_F_ELEM_4 :
				   HPU_MEMSET_F_ELEM_8;
	struct hpu_pkt_memset *p = cb_put(cb, HPU_PACKET_MEMSET, sizeof(*p), fl);

	p->dst_addr = dst;
	p->size = size;
	p->value = value;
}

static void cb_msg(struct cb *cb, uint32_t sob, uint32_t op, uint32_t value)
{
	struct hpu_pkt_msg_long *p =
		cb_put(cb, HPU_PACKET_MSG_LONG, sizeof(*p), 0);

	p->sob_id = sob;
	p->op = op;
	p->value = value;
}

static void cb_fence(struct cb *cb, uint32_t sob, uint32_t target,
		     uint32_t dec)
{
	struct hpu_pkt_fence *p = cb_put(cb, HPU_PACKET_FENCE, sizeof(*p), 0);

	p->sob_id = sob;
	p->target = target;
	p->dec = dec;
}

static void cb_monitor(struct cb *cb, uint32_t mon, uint32_t sob,
		       uint32_t target, uint32_t payload, uint64_t addr)
{
	struct hpu_pkt_arm_monitor *p =
		cb_put(cb, HPU_PACKET_ARM_MONITOR, sizeof(*p), 0);

	p->mon_id = mon;
	p->sob_id = sob;
	p->target = target;
	p->payload = payload;
	p->payload_addr = addr;
}

static void submit1(struct fix *f, uint32_t queue, const struct cb *cb,
		    void *cookie)
{
	struct hpu_fw_job job = { .queue = queue, .cb = cb->buf,
				  .cb_size = cb->len };

	assert_int_equal(ops->cs_submit(f->as, &job, 1, cookie), 0);
}

/* Submit one job and wait for its completion; return its result */
static enum hpu_fw_cs_result run1(struct fix *f, uint32_t queue,
				  const struct cb *cb,
				  struct hpu_fw_fault *fault)
{
	unsigned int n = ndone(f);
	void *cookie = (void *)(uintptr_t)(0x1000 + n);

	submit1(f, queue, cb, cookie);
	wait_done(f, n + 1);
	return result_of(f, cookie, fault);
}

/* ------------------------------------------------------ memory helpers */

static int pidfd_self(void)
{
	return (int)syscall(SYS_pidfd_open, getpid(), 0);
}

static uint64_t map_host(struct fix *f, void *p, uint64_t size)
{
	struct hpu_fw_host_range r = {
		.pid = getpid(),
		.pidfd = pidfd_self(),
		.addr = (uintptr_t)p,
		.size = size,
	};
	uint64_t va = 0;

	assert_true(r.pidfd >= 0);
	assert_int_equal(ops->map_host(f->as, &r, 0, false, &va), 0);
	f->last_pidfd = r.pidfd;
	return va;
}

static void unmap_host(struct fix *f, uint64_t va)
{
	int pidfd = -1;

	assert_int_equal(ops->unmap(f->as, va, &pidfd), 0);
	assert_true(pidfd >= 0);
	close(pidfd);
}

static uint64_t map_dev(struct fix *f, uint64_t size, struct hpu_fw_mem **m)
{
	uint64_t va = 0;

	assert_int_equal(ops->mem_alloc(f->dev, size, 0, false, false, m), 0);
	assert_int_equal(ops->map_mem(f->as, *m, 0, false, &va), 0);
	return va;
}

static void unmap_dev(struct fix *f, uint64_t va, struct hpu_fw_mem *m)
{
	assert_int_equal(ops->unmap(f->as, va, NULL), 0);
	assert_int_equal(ops->mem_free(m), 0);
}

static void fill_random(uint8_t *p, uint64_t n, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static uint8_t *xmalloc(uint64_t n)
{
	uint8_t *p = malloc(n);

	if (!p)
		abort(); /* tells the compiler too: never NULL below */
	return p;
}

/* ------------------------------------------------------ tests */

/* host -> device -> host of random data, 1 B .. 64 MiB, two offsets */
static void test_dma_round_trip(void **state)
{
	static const uint64_t sizes[] = { 1,	    7,	       4096,
					  4097,	    65536 + 3, 1 * MiB,
					  5 * MiB + 11, 64 * MiB };
	struct fix *f = *state;
	uint64_t max = 64 * MiB + 64, dva, hsrc, hdst;
	uint8_t *src = xmalloc(max), *dst = xmalloc(max);
	struct hpu_fw_mem *m;
	unsigned int i, k;
	struct cb cb;

	fill_random(src, max, 1);
	dva = map_dev(f, max, &m);
	hsrc = map_host(f, src, max);
	hdst = map_host(f, dst, max);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (k = 0; k < 2; k++) {
			uint64_t so = k ? 3 : 0, doff = k ? 13 : 0;
			uint64_t n = sizes[i];

			memset(dst, 0, n + 32);
			cb.len = 0;
			cb_dma(&cb, dva + doff, hsrc + so, n);
			cb_dma(&cb, hdst + so, dva + doff, n);
			assert_int_equal(run1(f, f->dma0, &cb, NULL),
					 HPU_FW_CS_OK);
			assert_memory_equal(dst + so, src + so, n);
			assert_int_equal(dst[so + n], 0);
		}
	}
	unmap_host(f, hsrc);
	unmap_host(f, hdst);
	unmap_dev(f, dva, m);
	free(src);
	free(dst);
}

/* device -> device, host -> host, and overlapping copies as memmove */
static void test_dma_dev_to_dev_and_overlap(void **state)
{
	struct fix *f = *state;
	uint64_t n = 9 * MiB + 5, a, b, ha, hb;
	uint8_t *src = xmalloc(n + 64), *out = xmalloc(n + 64);
	uint8_t *ref = xmalloc(n + 64);
	struct hpu_fw_mem *ma, *mb;
	struct cb cb = { .len = 0 };

	fill_random(src, n + 64, 2);
	a = map_dev(f, n + 64, &ma);
	b = map_dev(f, n + 64, &mb);
	ha = map_host(f, src, n + 64);
	hb = map_host(f, out, n + 64);

	cb_dma(&cb, a, ha, n + 64);
	cb_dma(&cb, b + 1, a, n);  /* device to device */
	cb_dma(&cb, hb, b + 1, n); /* back to the host */
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, src, n);

	/* forward overlap (dst above src) and backward, in HBM */
	memcpy(ref, src, n + 64);
	memmove(ref + 5, ref, n);
	memmove(ref, ref + 40, n);
	cb.len = 0;
	cb_dma(&cb, a + 5, a, n);
	cb_dma(&cb, a, a + 40, n);
	cb_dma(&cb, hb, a, n + 64);
	assert_int_equal(run1(f, f->dma1, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	/* host to host, overlapping in the same buffer */
	memcpy(ref, out, n + 64);
	memmove(ref + 3, ref, n);
	cb.len = 0;
	cb_dma(&cb, hb + 3, hb, n);
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(out, ref, n + 64);

	unmap_host(f, ha);
	unmap_host(f, hb);
	unmap_dev(f, a, ma);
	unmap_dev(f, b, mb);
	free(src);
	free(out);
	free(ref);
}

static void test_memset_widths(void **state)
{
	static const uint32_t widths[] = { 1, 2, 4, 8 };
	const uint64_t value = 0x1122334455667788ULL;
	struct fix *f = *state;
	uint64_t n = 256 * KiB, dva, hva;
	uint8_t *buf = xmalloc(n + 128);
	struct hpu_fw_mem *m;
	unsigned int i;
	uint64_t j;

	dva = map_dev(f, n + 64, &m);
	hva = map_host(f, buf, n + 128);
	for (i = 0; i < 4; i++) {
		uint32_t w = widths[i];
		struct cb cb = { .len = 0 };

		memset(buf, 0xee, n + 128);
		cb_memset(&cb, dva, n + 64, 0, 1);
		cb_memset(&cb, dva + w, n, value, w);	  /* device */
		cb_dma(&cb, hva, dva, n + 2 * w);
		cb_memset(&cb, hva + n + 2 * w, 8 * w, value, w); /* host */
		assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
		for (j = 0; j < w; j++)
			assert_int_equal(buf[j], 0);
		for (j = 0; j < n; j++)
			assert_int_equal(buf[w + j],
					 (uint8_t)(value >> (8 * (j % w))));
		for (j = 0; j < w; j++)
			assert_int_equal(buf[w + n + j], 0);
		for (j = 0; j < 8 * w; j++)
			assert_int_equal(buf[n + 2 * w + j],
					 (uint8_t)(value >> (8 * (j % w))));
		assert_int_equal(buf[n + 10 * w], 0xee);
	}
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
	free(buf);
}

/* A queue parks on a FENCE until another queue's MSG_LONG */
static void test_fence_across_queues(void **state)
{
	struct fix *f = *state;
	struct cb wait = { .len = 0 }, sig = { .len = 0 };
	uint32_t v = 0;

	cb_fence(&wait, 5, 2, 2);
	cb_msg(&wait, 6, HPU_MSG_OP_SET, 7);
	submit1(f, f->dma1, &wait, (void *)1);
	assert_int_equal(ndone(f), 0);
	assert_int_equal(ops->hw_idle(f->dev, NULL), 0); /* a queue waits */

	cb_msg(&sig, 5, HPU_MSG_OP_ADD, 1);
	assert_int_equal(run1(f, f->dma0, &sig, NULL), HPU_FW_CS_OK);
	assert_int_equal(ndone(f), 1); /* one of two is not enough */
	assert_int_equal(run1(f, f->mme0, &sig, NULL), HPU_FW_CS_OK);
	wait_done(f, 3);
	assert_int_equal(result_of(f, (void *)1, NULL), HPU_FW_CS_OK);
	assert_int_equal(ops->sob_read(f->as, 6, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(ops->sob_read(f->as, 5, &v), 0);
	assert_int_equal(v, 0); /* dec applied */

	/* the driver's own SOBs work the same way, and saturate */
	wait.len = 0;
	cb_fence(&wait, 700, 1, 0);
	submit1(f, f->dma1, &wait, (void *)2);
	assert_int_equal(ops->sob_write(f->as, 700, HPU_MSG_OP_ADD,
					HPU_SOB_MAX_VALUE),
			 0);
	assert_int_equal(ops->sob_write(f->as, 700, HPU_MSG_OP_ADD, 5), 0);
	wait_done(f, 4);
	assert_int_equal(ops->sob_read(f->as, 700, &v), 0);
	assert_int_equal(v, HPU_SOB_MAX_VALUE);
	assert_int_equal(ops->sob_write(f->as, HPU_FW_NUM_SOBS, 0, 1), -EINVAL);
	assert_int_equal(ops->sob_write(f->as, 1, 2, 1), -EINVAL);
}

static void test_monitor(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 };
	uint32_t host_word = 0;
	uint64_t dva, hva;
	struct hpu_fw_mem *m;
	uint32_t dev_word = 0;

	dva = map_dev(f, 4096, &m);
	hva = map_host(f, &host_word, sizeof(host_word));
	cb_monitor(&cb, 3, 10, 2, 0xdeadbeef, dva + 8);
	cb_monitor(&cb, 4, 10, 1, 0x12345678, hva);
	cb_msg(&cb, 10, HPU_MSG_OP_ADD, 1);
	assert_int_equal(run1(f, f->mme0, &cb, NULL), HPU_FW_CS_OK);
	assert_int_equal(host_word, 0x12345678);
	pthread_rwlock_rdlock(&f->as->map_lock);
	{
		struct hpusim_seg seg;

		assert_int_equal(hpusim_mmu_seg(f->as, dva + 8, 4, false, &seg),
				 0);
		memcpy(&dev_word, seg.ptr, 4);
	}
	pthread_rwlock_unlock(&f->as->map_lock);
	assert_int_equal(dev_word, 0);
	assert_int_equal(ops->sob_write(f->as, 10, HPU_MSG_OP_ADD, 1), 0);
	pthread_rwlock_rdlock(&f->as->map_lock);
	{
		struct hpusim_seg seg;

		assert_int_equal(hpusim_mmu_seg(f->as, dva + 8, 4, false, &seg),
				 0);
		memcpy(&dev_word, seg.ptr, 4);
	}
	pthread_rwlock_unlock(&f->as->map_lock);
	assert_int_equal(dev_word, 0xdeadbeef);

	/* a monitor whose payload address is unmapped faults its CS */
	cb.len = 0;
	cb_monitor(&cb, 5, 11, 1, 1, HPU_FW_VA_DEVICE_BASE - 4096);
	cb_msg(&cb, 11, HPU_MSG_OP_SET, 1);
	{
		struct hpu_fw_fault fault;

		assert_int_equal(run1(f, f->dma0, &cb, &fault),
				 HPU_FW_CS_PAGE_FAULT);
		assert_int_equal(fault.addr, HPU_FW_VA_DEVICE_BASE - 4096);
		assert_true(fault.is_write);
	}
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
}

static void test_page_fault(void **state)
{
	struct fix *f = *state;
	uint64_t n = 64 * KiB, dva, hva, bad = HPU_FW_VA_DEVICE_BASE - 8192;
	uint8_t *buf = xmalloc(n);
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct cb cb = { .len = 0 };

	memset(buf, 0x5a, n);
	dva = map_dev(f, 2 * MiB, &m);
	hva = map_host(f, buf, n);

	/* unmapped source: nothing is written */
	cb_dma(&cb, hva, bad, 100);
	assert_int_equal(run1(f, f->dma1, &cb, &fault), HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, bad);
	assert_int_equal(fault.engine, f->dma1);
	assert_false(fault.is_write);
	assert_int_equal(buf[0], 0x5a);

	/* a destination running past its mapping: the mapped part untouched */
	cb.len = 0;
	cb_dma(&cb, hva + n - 16, dva, 32);
	assert_int_equal(run1(f, f->dma0, &cb, &fault), HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva + n);
	assert_true(fault.is_write);
	assert_int_equal(buf[n - 16], 0x5a);

	/* the first fault stops the other jobs of the CS */
	{
		struct cb stuck = { .len = 0 }, faulty = { .len = 0 };
		struct hpu_fw_job jobs[2] = {
			{ .queue = f->dma1, .cb = stuck.buf },
			{ .queue = f->dma0, .cb = faulty.buf },
		};
		unsigned int before = ndone(f);

		cb_fence(&stuck, 20, 1, 0);
		cb_dma(&faulty, bad, dva, 8);
		jobs[0].cb_size = stuck.len;
		jobs[1].cb_size = faulty.len;
		assert_int_equal(ops->cs_submit(f->as, jobs, 2, (void *)77), 0);
		wait_done(f, before + 1);
		assert_int_equal(result_of(f, (void *)77, &fault),
				 HPU_FW_CS_PAGE_FAULT);
		assert_true(fault.is_write);
		assert_int_equal(fault.addr, bad);
	}
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
	free(buf);
}

/* Host memory of a process that exited is never read */
static void test_dead_process(void **state)
{
	struct fix *f = *state;
	struct hpu_fw_host_range r = { .size = 4096 };
	int to_child[2], from_child[2], pidfd = -1;
	uint64_t hva, dva, addr = 0;
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct cb cb = { .len = 0 };
	uint8_t out[16] = { 0 };
	pid_t pid;
	char c;

	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		static char page[4096] __attribute__((aligned(4096)));
		uint64_t a = (uintptr_t)page;

		memset(page, 0x42, sizeof(page));
		if (write(from_child[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		if (read(to_child[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(from_child[0], &addr, sizeof(addr)),
			 sizeof(addr));
	r.pid = pid;
	r.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	r.addr = addr;
	assert_true(r.pidfd >= 0);
	assert_int_equal(ops->map_host(f->as, &r, 0, false, &hva), 0);
	dva = map_dev(f, 4096, &m);

	cb_dma(&cb, dva, hva, 16);
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	{
		uint64_t hout = map_host(f, out, sizeof(out));
		struct cb back = { .len = 0 };

		cb_dma(&back, hout, dva, 16);
		assert_int_equal(run1(f, f->dma0, &back, NULL), HPU_FW_CS_OK);
		assert_int_equal(out[15], 0x42);
		unmap_host(f, hout);
	}

	assert_int_equal(write(to_child[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(run1(f, f->dma0, &cb, &fault), HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva);
	assert_false(fault.is_write);

	assert_int_equal(ops->unmap(f->as, hva, &pidfd), 0);
	assert_int_equal(pidfd, r.pidfd);
	close(pidfd);
	unmap_dev(f, dva, m);
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
}

static void test_engine_errors(void **state)
{
	struct fix *f = *state;
	struct hpu_fw_fault fault;
	struct cb cb = { .len = 0 };
	struct hpu_fw_job bad = { .queue = 1000, .cb = cb.buf, .cb_size = 8 };

	/* DMA packets only run on DMA queues */
	cb_memset(&cb, HPU_FW_VA_DEVICE_BASE, 8, 0, 1);
	assert_int_equal(run1(f, f->mme0, &cb, &fault), HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(fault.engine, f->mme0);
	/* engine packets are not implemented yet */
	cb.len = 0;
	cb_put(&cb, HPU_PACKET_MME_GEMM, 8, 0);
	assert_int_equal(run1(f, f->mme0, &cb, &fault), HPU_FW_CS_ENGINE_ERR);
	/* rejected submissions never complete */
	assert_int_equal(ops->cs_submit(f->as, &bad, 1, NULL), -EINVAL);
	assert_int_equal(ops->cs_submit(f->as, &bad, 0, NULL), -EINVAL);
	bad.queue = 0;
	bad.cb_size = 12;
	assert_int_equal(ops->cs_submit(f->as, &bad, 1, NULL), -EINVAL);
}

/* A NOP CS to idle queues completes before cs_submit returns */
static void test_fast_path(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 };

	cb_put(&cb, HPU_PACKET_NOP, 8, 0);
	cb_put(&cb, HPU_PACKET_STOP, 8, 0);
	cb_put(&cb, HPU_PACKET_MME_GEMM, 8, 0); /* after STOP: not run */
	submit1(f, f->mme0, &cb, (void *)9);
	assert_int_equal(ndone(f), 1);
	assert_int_equal(result_of(f, (void *)9, NULL), HPU_FW_CS_OK);
	assert_int_equal(ops->hw_idle(f->dev, NULL), 1);
}

static void test_abort_parked(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 }, later = { .len = 0 };

	cb_fence(&cb, 30, 1, 0);
	submit1(f, f->dma1, &cb, (void *)1);
	cb_msg(&later, 31, HPU_MSG_OP_SET, 1);
	submit1(f, f->dma1, &later, (void *)2); /* queued behind the fence */
	assert_int_equal(ndone(f), 0);
	assert_int_equal(ops->cs_abort(f->as, (void *)3), -ENOENT);
	assert_int_equal(ops->cs_abort(f->as, (void *)1), 1);
	assert_int_equal(f->rec.nreset, 1);
	assert_int_equal(f->rec.reset[0], f->dma1);
	assert_true(ndone(f) >= 1);
	assert_int_equal(result_of(f, (void *)1, NULL), HPU_FW_CS_ABORTED);
	/* the queue goes on with the next job */
	wait_done(f, 2);
	assert_int_equal(result_of(f, (void *)2, NULL), HPU_FW_CS_OK);
	assert_int_equal(ops->cs_abort(f->as, (void *)1), -ENOENT);
	/* the fence is gone: signalling it later changes nothing */
	assert_int_equal(ops->sob_write(f->as, 30, HPU_MSG_OP_SET, 1), 0);
	assert_int_equal(ndone(f), 2);
}

/* Abort stops a long DMA between chunks */
static void test_abort_running_dma(void **state)
{
	struct fix *f = *state;
	uint64_t n = 256 * MiB, a, b;
	struct hpu_fw_mem *ma, *mb;
	struct cb cb = { .len = 0 };
	int i, ret;

	a = map_dev(f, n, &ma);
	b = map_dev(f, n, &mb);
	for (i = 0; i < 8; i++)
		cb_dma(&cb, b, a, n);
	submit1(f, f->dma0, &cb, (void *)5);
	ret = ops->cs_abort(f->as, (void *)5);
	/* it may have finished first; then the cookie is gone */
	if (ret == -ENOENT) {
		assert_int_equal(result_of(f, (void *)5, NULL), HPU_FW_CS_OK);
	} else {
		assert_true(ret == 0 || ret == 1);
		assert_int_equal(result_of(f, (void *)5, NULL),
				 HPU_FW_CS_ABORTED);
	}
	assert_int_equal(ndone(f), 1);
	unmap_dev(f, a, ma);
	unmap_dev(f, b, mb);
}

static void test_reset_aborts(void **state)
{
	struct fix *f = *state;
	struct cb cb = { .len = 0 };
	uint32_t q;

	cb_fence(&cb, 40, 1, 0);
	for (q = 0; q < 4; q++)
		submit1(f, q, &cb, (void *)(uintptr_t)(q + 1));
	assert_int_equal(ndone(f), 0);
	assert_int_equal(ops->reset(f->dev, false), 0);
	assert_int_equal(ndone(f), 4);
	for (q = 0; q < 4; q++)
		assert_int_equal(result_of(f, (void *)(uintptr_t)(q + 1), NULL),
				 HPU_FW_CS_ABORTED);
	assert_int_equal(f->rec.nreset, 4);
	assert_int_equal(ops->hw_idle(f->dev, NULL), 1);
	/* the device goes on working */
	cb.len = 0;
	cb_msg(&cb, 41, HPU_MSG_OP_SET, 3);
	assert_int_equal(run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
}

/* as_destroy and device destroy with fences parked and DMA running */
static void test_teardown_in_flight(void **state)
{
	struct fix *f = *state;
	uint8_t *host = xmalloc(8 * MiB);
	struct hpu_fw_mem *m;
	struct cb park = { .len = 0 }, dma = { .len = 0 };
	uint64_t dva, hva;
	int i;

	dva = map_dev(f, 8 * MiB, &m);
	hva = map_host(f, host, 8 * MiB);
	cb_fence(&park, 50, 1, 0);
	for (i = 0; i < 40; i++)
		cb_dma(&dma, dva, hva, 8 * MiB);
	submit1(f, f->dma1, &park, (void *)1);
	submit1(f, f->dma0, &dma, (void *)2);
	submit1(f, f->dma0, &park, (void *)3);
	ops->as_destroy(f->as);
	f->as = NULL;
	/* the pidfd of a mapping left at as_destroy is still the caller's */
	assert_true(fcntl(f->last_pidfd, F_GETFD) >= 0);
	close(f->last_pidfd);
	assert_int_equal(ndone(f), 3);
	assert_int_equal(result_of(f, (void *)1, NULL), HPU_FW_CS_ABORTED);
	assert_int_equal(result_of(f, (void *)3, NULL), HPU_FW_CS_ABORTED);
	assert_int_equal(ops->mem_free(m), 0);

	/* a device destroyed with an address space still busy */
	assert_int_equal(ops->as_create(f->dev, &f->as), 0);
	submit1(f, f->dma1, &park, (void *)4);
	ops->destroy(f->dev);
	f->dev = NULL;
	f->as = NULL;
	assert_int_equal(ndone(f), 4);
	assert_int_equal(result_of(f, (void *)4, NULL), HPU_FW_CS_ABORTED);
	free(host);
}

struct submitter {
	struct fix *f;
	uint32_t sob;
	uint64_t dva;
	uint64_t hva;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct cb cb = { .len = 0 };
	int i;

	cb_dma(&cb, s->dva, s->hva, 4096);
	cb_msg(&cb, s->sob, HPU_MSG_OP_ADD, 1);
	for (i = 0; i < 200; i++) {
		struct hpu_fw_job job = { .queue = (s->sob + i) % 4,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		if (ops->cs_submit(s->f->as, &job, 1, s))
			return (void *)1;
	}
	return NULL;
}

static void test_concurrent_submitters(void **state)
{
	struct fix *f = *state;
	struct submitter s[4];
	pthread_t t[4];
	uint8_t *host = xmalloc(4096);
	struct hpu_fw_mem *m;
	uint64_t dva, hva;
	void *ret;
	uint32_t v;
	int i;

	memset(host, 1, 4096);
	dva = map_dev(f, 4096, &m);
	hva = map_host(f, host, 4096);
	for (i = 0; i < 4; i++) {
		s[i] = (struct submitter){ f, 100 + i, dva, hva };
		assert_int_equal(pthread_create(&t[i], NULL, submit_thread,
						&s[i]),
				 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	wait_done(f, 800);
	for (i = 0; i < 800; i++)
		assert_int_equal(f->rec.result[i], HPU_FW_CS_OK);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ops->sob_read(f->as, 100 + i, &v), 0);
		assert_int_equal(v, 200);
	}
	unmap_host(f, hva);
	unmap_dev(f, dva, m);
	free(host);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_dma_round_trip),
		T(test_dma_dev_to_dev_and_overlap),
		T(test_memset_widths),
		T(test_fence_across_queues),
		T(test_monitor),
		T(test_page_fault),
		T(test_dead_process),
		T(test_engine_errors),
		T(test_fast_path),
		T(test_abort_parked),
		T(test_abort_running_dma),
		T(test_reset_aborts),
		T(test_teardown_in_flight),
		T(test_concurrent_submitters),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
