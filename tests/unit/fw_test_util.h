/* SPDX-License-Identifier: MIT */
/*
 * fw_test_util.h - fixture of the libhpusim command submission tests
 * (test_fw_queues.c, test_fw_faults.c): a device with recording
 * callbacks, one address space, command-buffer emitters and mapping
 * helpers. This process is the "client": its own buffers are mapped
 * with its pid and a pidfd. Waits for completions are bounded (a failed
 * wait fails the test rather than hanging it); nothing asserts a duration.
 */
#ifndef FW_TEST_UTIL_H
#define FW_TEST_UTIL_H

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

static const struct hpu_fw_ops *ops __attribute__((unused));

static inline void on_done(void *arg, void *cookie,
			   enum hpu_fw_cs_result result,
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

static inline void on_reset(void *arg, uint32_t engine)
{
	struct record *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->nreset < 64)
		r->reset[r->nreset] = engine;
	r->nreset++;
	pthread_mutex_unlock(&r->lock);
}

static inline int setup(void **state)
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

static inline int teardown(void **state)
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
static inline void wait_done(struct fix *f, unsigned int n)
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

static inline unsigned int ndone(struct fix *f)
{
	unsigned int n;

	pthread_mutex_lock(&f->rec.lock);
	n = f->rec.ndone;
	pthread_mutex_unlock(&f->rec.lock);
	return n;
}

/* Find the result reported for @cookie */
static inline enum hpu_fw_cs_result result_of(struct fix *f, void *cookie,
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
	/* packets hold 64-bit members: aligned wherever a struct cb lies */
	uint8_t buf[4096] __attribute__((aligned(8)));
	uint32_t len;
};

static inline void *cb_put(struct cb *cb, uint16_t opcode, uint16_t size,
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

static inline void cb_dma(struct cb *cb, uint64_t dst, uint64_t src,
			  uint64_t size)
{
	struct hpu_pkt_lin_dma *p =
		cb_put(cb, HPU_PACKET_LIN_DMA, sizeof(*p), 0);

	p->dst_addr = dst;
	p->src_addr = src;
	p->size = size;
}

static inline void cb_memset(struct cb *cb, uint64_t dst, uint64_t size,
			     uint64_t value, uint32_t width)
{
	uint16_t fl = width == 1 ? HPU_MEMSET_F_ELEM_1 :
		      width == 2 ? HPU_MEMSET_F_ELEM_2 :
		      width == 4 ? HPU_MEMSET_F_ELEM_4 :
				   HPU_MEMSET_F_ELEM_8;
	struct hpu_pkt_memset *p =
		cb_put(cb, HPU_PACKET_MEMSET, sizeof(*p), fl);

	p->dst_addr = dst;
	p->size = size;
	p->value = value;
}

static inline void cb_msg(struct cb *cb, uint32_t sob, uint32_t op,
			  uint32_t value)
{
	struct hpu_pkt_msg_long *p =
		cb_put(cb, HPU_PACKET_MSG_LONG, sizeof(*p), 0);

	p->sob_id = sob;
	p->op = op;
	p->value = value;
}

static inline void cb_fence(struct cb *cb, uint32_t sob, uint32_t target,
			    uint32_t dec)
{
	struct hpu_pkt_fence *p = cb_put(cb, HPU_PACKET_FENCE, sizeof(*p), 0);

	p->sob_id = sob;
	p->target = target;
	p->dec = dec;
}

static inline void cb_monitor(struct cb *cb, uint32_t mon, uint32_t sob,
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

static inline void submit1(struct fix *f, uint32_t queue, const struct cb *cb,
			   void *cookie)
{
	struct hpu_fw_job job = { .queue = queue,
				  .cb = cb->buf,
				  .cb_size = cb->len };

	assert_int_equal(ops->cs_submit(f->as, &job, 1, cookie), 0);
}

/* Submit one job and wait for its completion; return its result */
static inline enum hpu_fw_cs_result run1(struct fix *f, uint32_t queue,
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

static inline int pidfd_self(void)
{
	return (int)syscall(SYS_pidfd_open, getpid(), 0);
}

static inline uint64_t map_host(struct fix *f, void *p, uint64_t size)
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

static inline void unmap_host(struct fix *f, uint64_t va)
{
	int pidfd = -1;

	assert_int_equal(ops->unmap(f->as, va, &pidfd), 0);
	assert_true(pidfd >= 0);
	close(pidfd);
}

static inline uint64_t map_dev(struct fix *f, uint64_t size,
			       struct hpu_fw_mem **m)
{
	uint64_t va = 0;

	assert_int_equal(ops->mem_alloc(f->dev, size, 0, false, false, m), 0);
	assert_int_equal(ops->map_mem(f->as, *m, 0, false, &va), 0);
	return va;
}

static inline void unmap_dev(struct fix *f, uint64_t va, struct hpu_fw_mem *m)
{
	assert_int_equal(ops->unmap(f->as, va, NULL), 0);
	assert_int_equal(ops->mem_free(m), 0);
}

static inline void fill_random(uint8_t *p, uint64_t n, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static inline uint8_t *xmalloc(uint64_t n)
{
	uint8_t *p = malloc(n);

	if (!p)
		abort(); /* tells the compiler too: never NULL below */
	return p;
}

#endif /* FW_TEST_UTIL_H */
