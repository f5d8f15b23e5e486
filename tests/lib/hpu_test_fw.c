// SPDX-License-Identifier: MIT
/*
 * hpu_test_fw.c - the libhpusim fixture (hpu_test_fw.h): recording
 * callbacks, bounded completion waits, CB emitters, mapping helpers
 */
#include "hpu_test_fw.h"

#define ops (hpusim_model.ops)

void hpu_test_fw_on_done(void *arg, void *cookie, enum hpu_fw_cs_result result,
			 const struct hpu_fw_fault *fault, uint64_t done_ns)
{
	struct hpu_test_fw_record *r = arg;

	(void)done_ns;
	pthread_mutex_lock(&r->lock);
	if (r->ndone < HPU_TEST_FW_MAX_DONE) {
		r->cookie[r->ndone] = cookie;
		r->result[r->ndone] = result;
		if (fault)
			r->fault[r->ndone] = *fault;
	}
	r->ndone++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

void hpu_test_fw_on_reset(void *arg, uint32_t engine)
{
	struct hpu_test_fw_record *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->nreset < 64)
		r->reset[r->nreset] = engine;
	r->nreset++;
	pthread_mutex_unlock(&r->lock);
}

int hpu_test_fw_setup(void **state)
{
	struct hpu_test_fw *f = calloc(1, sizeof(*f));
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
		.cb = { .cs_done = hpu_test_fw_on_done,
			.engine_reset = hpu_test_fw_on_reset },
	};

	if (!f)
		return -1;
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

int hpu_test_fw_teardown(void **state)
{
	struct hpu_test_fw *f = *state;

	if (f->as)
		ops->as_destroy(f->as);
	if (f->dev)
		ops->destroy(f->dev);
	free(f);
	return 0;
}

void hpu_test_fw_wait_done(struct hpu_test_fw *f, unsigned int n)
{
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += HPU_TEST_FW_WAIT_S;
	pthread_mutex_lock(&f->rec.lock);
	while (f->rec.ndone < n && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&f->rec.cond, &f->rec.lock, &ts);
	pthread_mutex_unlock(&f->rec.lock);
	assert_true(f->rec.ndone >= n);
}

unsigned int hpu_test_fw_ndone(struct hpu_test_fw *f)
{
	unsigned int n;

	pthread_mutex_lock(&f->rec.lock);
	n = f->rec.ndone;
	pthread_mutex_unlock(&f->rec.lock);
	return n;
}

enum hpu_fw_cs_result hpu_test_fw_result_of(struct hpu_test_fw *f, void *cookie,
					    struct hpu_fw_fault *fault)
{
	unsigned int i;

	pthread_mutex_lock(&f->rec.lock);
	for (i = 0; i < f->rec.ndone && i < HPU_TEST_FW_MAX_DONE; i++) {
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

void *hpu_test_cb_put(struct hpu_test_cb *cb, uint16_t opcode, uint16_t size,
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

void hpu_test_cb_dma(struct hpu_test_cb *cb, uint64_t dst, uint64_t src,
		     uint64_t size)
{
	struct hpu_pkt_lin_dma *p =
		hpu_test_cb_put(cb, HPU_PACKET_LIN_DMA, sizeof(*p), 0);

	p->dst_addr = dst;
	p->src_addr = src;
	p->size = size;
}

void hpu_test_cb_memset(struct hpu_test_cb *cb, uint64_t dst, uint64_t size,
			uint64_t value, uint32_t width)
{
	uint16_t fl = width == 1 ? HPU_MEMSET_F_ELEM_1 :
		      width == 2 ? HPU_MEMSET_F_ELEM_2 :
		      width == 4 ? HPU_MEMSET_F_ELEM_4 :
				   HPU_MEMSET_F_ELEM_8;
	struct hpu_pkt_memset *p =
		hpu_test_cb_put(cb, HPU_PACKET_MEMSET, sizeof(*p), fl);

	p->dst_addr = dst;
	p->size = size;
	p->value = value;
}

void hpu_test_cb_msg(struct hpu_test_cb *cb, uint32_t sob, uint32_t op,
		     uint32_t value)
{
	struct hpu_pkt_msg_long *p =
		hpu_test_cb_put(cb, HPU_PACKET_MSG_LONG, sizeof(*p), 0);

	p->sob_id = sob;
	p->op = op;
	p->value = value;
}

void hpu_test_cb_fence(struct hpu_test_cb *cb, uint32_t sob, uint32_t target,
		       uint32_t dec)
{
	struct hpu_pkt_fence *p =
		hpu_test_cb_put(cb, HPU_PACKET_FENCE, sizeof(*p), 0);

	p->sob_id = sob;
	p->target = target;
	p->dec = dec;
}

void hpu_test_cb_monitor(struct hpu_test_cb *cb, uint32_t mon, uint32_t sob,
			 uint32_t target, uint32_t payload, uint64_t addr)
{
	struct hpu_pkt_arm_monitor *p =
		hpu_test_cb_put(cb, HPU_PACKET_ARM_MONITOR, sizeof(*p), 0);

	p->mon_id = mon;
	p->sob_id = sob;
	p->target = target;
	p->payload = payload;
	p->payload_addr = addr;
}

void hpu_test_fw_submit1(struct hpu_test_fw *f, uint32_t queue,
			 const struct hpu_test_cb *cb, void *cookie)
{
	struct hpu_fw_job job = { .queue = queue,
				  .cb = cb->buf,
				  .cb_size = cb->len };

	assert_int_equal(ops->cs_submit(f->as, &job, 1, cookie), 0);
}

enum hpu_fw_cs_result hpu_test_fw_run1(struct hpu_test_fw *f, uint32_t queue,
				       const struct hpu_test_cb *cb,
				       struct hpu_fw_fault *fault)
{
	unsigned int n = hpu_test_fw_ndone(f);
	void *cookie = (void *)(uintptr_t)(0x1000 + n);

	hpu_test_fw_submit1(f, queue, cb, cookie);
	hpu_test_fw_wait_done(f, n + 1);
	return hpu_test_fw_result_of(f, cookie, fault);
}

/* ------------------------------------------------------ memory helpers */

int hpu_test_pidfd_self(void)
{
	return (int)syscall(SYS_pidfd_open, getpid(), 0);
}

uint64_t hpu_test_fw_map_host(struct hpu_test_fw *f, void *p, uint64_t size)
{
	struct hpu_fw_host_range r = {
		.pid = getpid(),
		.pidfd = hpu_test_pidfd_self(),
		.addr = (uintptr_t)p,
		.size = size,
	};
	uint64_t va = 0;

	assert_true(r.pidfd >= 0);
	assert_int_equal(ops->map_host(f->as, &r, 0, false, &va), 0);
	f->last_pidfd = r.pidfd;
	return va;
}

void hpu_test_fw_unmap_host(struct hpu_test_fw *f, uint64_t va)
{
	int pidfd = -1;

	assert_int_equal(ops->unmap(f->as, va, &pidfd), 0);
	assert_true(pidfd >= 0);
	close(pidfd);
}

uint64_t hpu_test_fw_map_dev(struct hpu_test_fw *f, uint64_t size,
			     struct hpu_fw_mem **m)
{
	uint64_t va = 0;

	assert_int_equal(ops->mem_alloc(f->dev, size, 0, false, false, m), 0);
	assert_int_equal(ops->map_mem(f->as, *m, 0, false, &va), 0);
	return va;
}

void hpu_test_fw_unmap_dev(struct hpu_test_fw *f, uint64_t va,
			   struct hpu_fw_mem *m)
{
	assert_int_equal(ops->unmap(f->as, va, NULL), 0);
	assert_int_equal(ops->mem_free(m), 0);
}
