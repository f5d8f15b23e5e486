// SPDX-License-Identifier: MIT
/*
 * test_fw_faults.c - libhpusim failures through hpusim_model.ops: page
 * faults leave the destination untouched, a dead host process is never
 * read, cs_abort of parked and running work, reset, address space and
 * device teardown with work in flight, concurrent submitters.
 */
#include "../lib/hpu_test_fw.h"

static void test_page_fault(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t n = 64 * KiB, dva, hva, bad = HPU_FW_VA_DEVICE_BASE - 8192;
	uint8_t *buf = hpu_test_xmalloc(n);
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb = { .len = 0 };

	memset(buf, 0x5a, n);
	dva = hpu_test_fw_map_dev(f, 2 * MiB, &m);
	hva = hpu_test_fw_map_host(f, buf, n);

	/* unmapped source: nothing is written */
	hpu_test_cb_dma(&cb, hva, bad, 100);
	assert_int_equal(hpu_test_fw_run1(f, f->dma1, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, bad);
	assert_int_equal(fault.engine, f->dma1);
	assert_false(fault.is_write);
	assert_int_equal(buf[0], 0x5a);

	/* a destination running past its mapping: the mapped part untouched */
	cb.len = 0;
	hpu_test_cb_dma(&cb, hva + n - 16, dva, 32);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva + n);
	assert_true(fault.is_write);
	assert_int_equal(buf[n - 16], 0x5a);

	/* the first fault stops the other jobs of the CS */
	{
		struct hpu_test_cb stuck = { .len = 0 }, faulty = { .len = 0 };
		struct hpu_fw_job jobs[2] = {
			{ .queue = f->dma1, .cb = stuck.buf },
			{ .queue = f->dma0, .cb = faulty.buf },
		};
		unsigned int before = hpu_test_fw_ndone(f);

		hpu_test_cb_fence(&stuck, 20, 1, 0);
		hpu_test_cb_dma(&faulty, bad, dva, 8);
		jobs[0].cb_size = stuck.len;
		jobs[1].cb_size = faulty.len;
		assert_int_equal(hpusim_model.ops->cs_submit(f->as, jobs, 2,
							     (void *)77),
				 0);
		hpu_test_fw_wait_done(f, before + 1);
		assert_int_equal(hpu_test_fw_result_of(f, (void *)77, &fault),
				 HPU_FW_CS_PAGE_FAULT);
		assert_true(fault.is_write);
		assert_int_equal(fault.addr, bad);
	}
	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, m);
	free(buf);
}

/* Host memory of a process that exited is never read */
static void test_dead_process(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_host_range r = { .size = 4096 };
	int to_child[2], from_child[2], pidfd = -1;
	uint64_t hva, dva, addr = 0;
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb = { .len = 0 };
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
	assert_int_equal(hpusim_model.ops->map_host(f->as, &r, 0, false, &hva),
			 0);
	dva = hpu_test_fw_map_dev(f, 4096, &m);

	hpu_test_cb_dma(&cb, dva, hva, 16);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	{
		uint64_t hout = hpu_test_fw_map_host(f, out, sizeof(out));
		struct hpu_test_cb back = { .len = 0 };

		hpu_test_cb_dma(&back, hout, dva, 16);
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &back, NULL),
				 HPU_FW_CS_OK);
		assert_int_equal(out[15], 0x42);
		hpu_test_fw_unmap_host(f, hout);
	}

	assert_int_equal(write(to_child[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva);
	assert_false(fault.is_write);

	assert_int_equal(hpusim_model.ops->unmap(f->as, hva, &pidfd), 0);
	assert_int_equal(pidfd, r.pidfd);
	close(pidfd);
	hpu_test_fw_unmap_dev(f, dva, m);
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
}

static void test_abort_parked(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb cb = { .len = 0 }, later = { .len = 0 };

	hpu_test_cb_fence(&cb, 30, 1, 0);
	hpu_test_fw_submit1(f, f->dma1, &cb, (void *)1);
	hpu_test_cb_msg(&later, 31, HPU_MSG_OP_SET, 1);
	hpu_test_fw_submit1(f, f->dma1, &later,
			    (void *)2); /* queued behind the fence */
	assert_int_equal(hpu_test_fw_ndone(f), 0);
	assert_int_equal(hpusim_model.ops->cs_abort(f->as, (void *)3), -ENOENT);
	assert_int_equal(hpusim_model.ops->cs_abort(f->as, (void *)1), 1);
	assert_int_equal(f->rec.nreset, 1);
	assert_int_equal(f->rec.reset[0], f->dma1);
	assert_true(hpu_test_fw_ndone(f) >= 1);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)1, NULL),
			 HPU_FW_CS_ABORTED);
	/* the queue goes on with the next job */
	hpu_test_fw_wait_done(f, 2);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)2, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->cs_abort(f->as, (void *)1), -ENOENT);
	/* the fence is gone: signalling it later changes nothing */
	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 30, HPU_MSG_OP_SET, 1), 0);
	assert_int_equal(hpu_test_fw_ndone(f), 2);
}

/* Abort stops a long DMA between chunks */
static void test_abort_running_dma(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t n = 256 * MiB, a, b;
	struct hpu_fw_mem *ma, *mb;
	struct hpu_test_cb cb = { .len = 0 };
	int i, ret;

	a = hpu_test_fw_map_dev(f, n, &ma);
	b = hpu_test_fw_map_dev(f, n, &mb);
	for (i = 0; i < 8; i++)
		hpu_test_cb_dma(&cb, b, a, n);
	hpu_test_fw_submit1(f, f->dma0, &cb, (void *)5);
	ret = hpusim_model.ops->cs_abort(f->as, (void *)5);
	/* it may have finished first; then the cookie is gone */
	if (ret == -ENOENT) {
		assert_int_equal(hpu_test_fw_result_of(f, (void *)5, NULL),
				 HPU_FW_CS_OK);
	} else {
		assert_true(ret == 0 || ret == 1);
		assert_int_equal(hpu_test_fw_result_of(f, (void *)5, NULL),
				 HPU_FW_CS_ABORTED);
	}
	assert_int_equal(hpu_test_fw_ndone(f), 1);
	hpu_test_fw_unmap_dev(f, a, ma);
	hpu_test_fw_unmap_dev(f, b, mb);
}

static void test_reset_aborts(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_test_cb cb = { .len = 0 };
	uint32_t q;

	hpu_test_cb_fence(&cb, 40, 1, 0);
	for (q = 0; q < 4; q++)
		hpu_test_fw_submit1(f, q, &cb, (void *)(uintptr_t)(q + 1));
	assert_int_equal(hpu_test_fw_ndone(f), 0);
	assert_int_equal(hpusim_model.ops->reset(f->dev, false), 0);
	assert_int_equal(hpu_test_fw_ndone(f), 4);
	for (q = 0; q < 4; q++)
		assert_int_equal(hpu_test_fw_result_of(
					 f, (void *)(uintptr_t)(q + 1), NULL),
				 HPU_FW_CS_ABORTED);
	assert_int_equal(f->rec.nreset, 4);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL), 1);
	/* the device goes on working */
	cb.len = 0;
	hpu_test_cb_msg(&cb, 41, HPU_MSG_OP_SET, 3);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
}

/* as_destroy and device destroy with fences parked and DMA running */
static void test_teardown_in_flight(void **state)
{
	struct hpu_test_fw *f = *state;
	uint8_t *host = hpu_test_xmalloc(8 * MiB);
	struct hpu_fw_mem *m;
	struct hpu_test_cb park = { .len = 0 }, dma = { .len = 0 };
	uint64_t dva, hva;
	int i;

	dva = hpu_test_fw_map_dev(f, 8 * MiB, &m);
	hva = hpu_test_fw_map_host(f, host, 8 * MiB);
	hpu_test_cb_fence(&park, 50, 1, 0);
	for (i = 0; i < 40; i++)
		hpu_test_cb_dma(&dma, dva, hva, 8 * MiB);
	hpu_test_fw_submit1(f, f->dma1, &park, (void *)1);
	hpu_test_fw_submit1(f, f->dma0, &dma, (void *)2);
	hpu_test_fw_submit1(f, f->dma0, &park, (void *)3);
	hpusim_model.ops->as_destroy(f->as);
	f->as = NULL;
	/* the pidfd of a mapping left at as_destroy is still the caller's */
	assert_true(fcntl(f->last_pidfd, F_GETFD) >= 0);
	close(f->last_pidfd);
	assert_int_equal(hpu_test_fw_ndone(f), 3);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)1, NULL),
			 HPU_FW_CS_ABORTED);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)3, NULL),
			 HPU_FW_CS_ABORTED);
	assert_int_equal(hpusim_model.ops->mem_free(m), 0);

	/* a device destroyed with an address space still busy */
	assert_int_equal(hpusim_model.ops->as_create(f->dev, &f->as), 0);
	hpu_test_fw_submit1(f, f->dma1, &park, (void *)4);
	hpusim_model.ops->destroy(f->dev);
	f->dev = NULL;
	f->as = NULL;
	assert_int_equal(hpu_test_fw_ndone(f), 4);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)4, NULL),
			 HPU_FW_CS_ABORTED);
	free(host);
}

struct submitter {
	struct hpu_test_fw *f;
	uint32_t sob;
	uint64_t dva;
	uint64_t hva;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct hpu_test_cb cb = { .len = 0 };
	int i;

	hpu_test_cb_dma(&cb, s->dva, s->hva, 4096);
	hpu_test_cb_msg(&cb, s->sob, HPU_MSG_OP_ADD, 1);
	for (i = 0; i < 200; i++) {
		/* one queue per thread: its copies to one place stay ordered */
		struct hpu_fw_job job = { .queue = s->sob % 4,
					  .cb = cb.buf,
					  .cb_size = cb.len };

		if (hpusim_model.ops->cs_submit(s->f->as, &job, 1, s))
			return (void *)1;
	}
	return NULL;
}

static void test_concurrent_submitters(void **state)
{
	struct hpu_test_fw *f = *state;
	struct submitter s[4];
	pthread_t t[4];
	uint8_t *host = hpu_test_xmalloc(4096),
		*back = hpu_test_xmalloc(4 * 4096);
	struct hpu_test_cb cb = { .len = 0 };
	struct hpu_fw_mem *m;
	uint64_t dva, hva, hback;
	void *ret;
	uint32_t v;
	int i;

	memset(host, 1, 4096);
	dva = hpu_test_fw_map_dev(f, 4 * 4096, &m);
	hva = hpu_test_fw_map_host(f, host, 4096);
	for (i = 0; i < 4; i++) {
		/* each thread its own destination: queues run concurrently */
		s[i] = (struct submitter){ f, 100 + i, dva + i * 4096, hva };
		assert_int_equal(
			pthread_create(&t[i], NULL, submit_thread, &s[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	hpu_test_fw_wait_done(f, 800);
	for (i = 0; i < 800; i++)
		assert_int_equal(f->rec.result[i], HPU_FW_CS_OK);
	for (i = 0; i < 4; i++) {
		assert_int_equal(hpusim_model.ops->sob_read(f->as, 100 + i, &v),
				 0);
		assert_int_equal(v, 200);
	}
	hback = hpu_test_fw_map_host(f, back, 4 * 4096);
	hpu_test_cb_dma(&cb, hback, dva, 4 * 4096);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	for (i = 0; i < 4 * 4096; i++)
		assert_int_equal(back[i], 1);
	hpu_test_fw_unmap_host(f, hback);
	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, m);
	free(host);
	free(back);
}

int main(void)
{
#define T(fn)                                                  \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_setup, \
					hpu_test_fw_teardown)
	const struct CMUnitTest tests[] = {
		T(test_page_fault),
		T(test_dead_process),
		T(test_abort_parked),
		T(test_abort_running_dma),
		T(test_reset_aborts),
		T(test_teardown_in_flight),
		T(test_concurrent_submitters),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
