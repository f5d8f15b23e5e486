// SPDX-License-Identifier: MIT
/*
 * test_fw_chain.c - run to completion of dependent work (docs/firmware-
 * sim.md, "Run to completion of dependent work"): a pool worker whose job
 * passes the FENCE of another submission of the same address space runs
 * that job itself, in queue order, with no worker woken (the scheduler's
 * counters, firmware interface 1.7, say which thread ran what); the rule
 * that bounds such a chain; two address spaces chaining on the same
 * engines; an abort and a reset in the middle of a chain; a FENCE that is
 * not satisfied stays queued; a submission released by the end of
 * another (a WAIT) follows on the same thread; the part of a submission
 * on idle engines runs in the submitting thread while another part
 * queues. Nothing asserts a duration.
 */
#include "../lib/hpu_test_fw.h"
#include "queue.h"

/* A chain of @n submissions, alternating between two queues */
#define CHAIN_MAX_LEN 24
#define CHAIN_MAGIC   0x5eed5eed5eed5eedULL

/**
 * struct chain - submissions 0..n-1, each one job: submission i waits on
 * SOB @sob + i (FENCE 1, dec 1), copies slot i - 1 to slot i (submission
 * 0 writes CHAIN_MAGIC into slot 0) and passes submission i + 1's FENCE
 * @slots: this process's words, mapped at @va
 * @cookie0: cookie of submission 0 (the others count up from it)
 */
struct chain {
	struct hpu_fw_as *as;
	uint32_t q[2];
	uint32_t sob;
	unsigned int n;
	uint64_t *slots;
	uint64_t va;
	uintptr_t cookie0;
};

static void chain_init(struct chain *c, struct hpu_test_fw *f,
		       struct hpu_fw_as *as, uint32_t sob, unsigned int n,
		       uintptr_t cookie0)
{
	struct hpu_fw_as *keep = f->as;

	assert_true(n <= CHAIN_MAX_LEN);
	c->as = as;
	c->q[0] = f->dma1;
	c->q[1] = f->dma0;
	c->sob = sob;
	c->n = n;
	c->cookie0 = cookie0;
	c->slots = hpu_test_xmalloc(CHAIN_MAX_LEN * sizeof(uint64_t));
	memset(c->slots, 0, CHAIN_MAX_LEN * sizeof(uint64_t));
	f->as = as; /* the helper maps into the fixture's address space */
	c->va = hpu_test_fw_map_host(f, c->slots,
				     CHAIN_MAX_LEN * sizeof(uint64_t));
	f->as = keep;
}

static void chain_fini(struct chain *c, struct hpu_test_fw *f)
{
	struct hpu_fw_as *keep = f->as;

	f->as = c->as;
	hpu_test_fw_unmap_host(f, c->va);
	f->as = keep;
	free(c->slots);
}

/*
 * Submit the chain: every submission parks at its FENCE (the first one in
 * the submitting thread, the fast path; the others behind the first two
 * on their queues), so nothing runs until SOB @sob is raised.
 */
static void chain_submit(struct chain *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		_Alignas(8) struct hpu_test_cb cb = { .len = 0 };
		struct hpu_fw_job job;
		uint64_t slot = c->va + 8 * i;

		hpu_test_cb_fence(&cb, c->sob + i, 1, 1);
		if (!i)
			hpu_test_cb_memset(&cb, slot, 8, CHAIN_MAGIC, 8);
		else
			hpu_test_cb_dma(&cb, slot, slot - 8, 8);
		if (i + 1 < c->n)
			hpu_test_cb_msg(&cb, c->sob + i + 1, HPU_MSG_OP_ADD, 1);
		job = (struct hpu_fw_job){ .queue = c->q[i % 2],
					   .cb = cb.buf,
					   .cb_size = cb.len };
		assert_int_equal(
			hpusim_model.ops->cs_submit(c->as, &job, 1,
						    (void *)(c->cookie0 + i)),
			0);
	}
}

/* Start the chain from this thread (not a runner: a worker is woken) */
static void chain_start(struct chain *c)
{
	assert_int_equal(hpusim_model.ops->sob_write(c->as, c->sob,
						     HPU_MSG_OP_ADD, 1),
			 0);
}

/* Every submission ended OK, in order (each slot got its copy), SOBs 0 */
static void chain_check(struct chain *c, struct hpu_test_fw *f)
{
	unsigned int i;
	uint32_t v;

	for (i = 0; i < c->n; i++) {
		assert_int_equal(hpu_test_fw_result_of(
					 f, (void *)(c->cookie0 + i), NULL),
				 HPU_FW_CS_OK);
		assert_true(c->slots[i] == CHAIN_MAGIC);
		assert_int_equal(
			hpusim_model.ops->sob_read(c->as, c->sob + i, &v), 0);
		assert_int_equal(v, 0);
	}
}

/*
 * A chain of @n dependent handoffs after @signalled wake-ups by this
 * thread: none signalled a worker, and the waking thread ran them, but
 * for those another worker that happened to be awake took off the run
 * list first (a stolen or spurious condition variable wake-up: no
 * signal, no hop, rare; at most half is allowed here).
 */
static void assert_chained(const struct hpu_fw_sched_stats *d, uint64_t n,
			   uint64_t signalled)
{
	assert_int_equal(d->handoff_pool, signalled);
	assert_true(d->handoff_thread <= n);
	assert_true(2 * d->handoff_thread + 1 >= n);
	assert_int_equal(d->chain_cuts, 0);
}

static void stats_delta(const struct hpu_fw_sched_stats *a,
			struct hpu_fw_sched_stats *d)
{
	struct hpu_fw_sched_stats b;

	hpusim_model.ops->sched_stats(&b);
	d->handoff_thread = b.handoff_thread - a->handoff_thread;
	d->handoff_pool = b.handoff_pool - a->handoff_pool;
	d->chain_cuts = b.chain_cuts - a->chain_cuts;
	d->submit_pool = b.submit_pool - a->submit_pool;
	d->wakeups = b.wakeups - a->wakeups;
}

/*
 * Submit the chain alone in the fixture (nothing runs before its start),
 * start it, wait for all of it and check it; *@d: the counters' change
 */
static void chain_run(struct chain *c, struct hpu_test_fw *f,
		      struct hpu_fw_sched_stats *d)
{
	struct hpu_fw_sched_stats a;

	chain_submit(c);
	assert_int_equal(hpu_test_fw_ndone(f), 0);
	hpusim_model.ops->sched_stats(&a);
	chain_start(c);
	hpu_test_fw_wait_done(f, c->n);
	stats_delta(&a, d);
	chain_check(c, f);
}

/*
 * A chain of 16 submissions over two DMA queues, started from this
 * thread: one worker is signalled (this thread's SOB write), and every
 * other handoff stays on that worker; the jobs run in order.
 */
static void test_chain_on_one_thread(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_sched_stats d;
	struct chain c;

	assert_true(hpusim_sched_set_chain_max(HPUSIM_CHAIN_MAX_DEFAULT) >= 0);
	chain_init(&c, f, f->as, 100, 16, 1000);
	chain_run(&c, f, &d);
	assert_chained(&d, c.n - 1, 1);
	chain_fini(&c, f);
}

/*
 * HPUSIM_CHAIN_MAX 0: a queue woken by another submission goes to the
 * pool, a signalled worker (the rule before issue 11's hops), with the
 * same results; none runs on its waker's thread (a wake-up that finds
 * its queue still running on the worker that parks it is no handoff).
 */
static void test_chain_off(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_sched_stats d;
	struct chain c;
	int old;

	old = hpusim_sched_set_chain_max(0);
	assert_true(old >= 0);
	chain_init(&c, f, f->as, 130, 16, 2000);
	chain_run(&c, f, &d);
	assert_true(d.handoff_pool >= 1 && d.handoff_pool <= c.n);
	assert_int_equal(d.handoff_thread, 0);
	assert_int_equal(hpusim_sched_set_chain_max((unsigned int)old), 0);
	assert_int_equal(hpusim_sched_set_chain_max(HPUSIM_CHAIN_MAX_LIMIT + 1),
			 -EINVAL);
	chain_fini(&c, f);
}

/*
 * The bound: a worker's chain goes on while it has turns and time left,
 * or while no engine it did not wake waits for a thread; it ends only
 * when both are used up and another engine waits.
 */
static void test_chain_bound_rule(void **state)
{
	(void)state;
	assert_false(hpusim_chain_done(0, 64, 0, true));
	assert_false(hpusim_chain_done(63, 64, HPUSIM_CHAIN_NS - 1, true));
	assert_true(hpusim_chain_done(64, 64, 0, true));
	assert_true(hpusim_chain_done(1, 64, HPUSIM_CHAIN_NS, true));
	assert_false(hpusim_chain_done(64, 64, 0, false));
	assert_false(hpusim_chain_done(1, 64, HPUSIM_CHAIN_NS, false));
	assert_true(hpusim_chain_done(0, 0, 0, true));
}

/*
 * A chain longer than HPUSIM_CHAIN_MAX with nothing else waiting is not
 * cut (a new chain begins on the same thread): still one signal.
 */
static void test_chain_bound_alone(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_sched_stats d;
	struct chain c;
	int old = hpusim_sched_set_chain_max(3);

	assert_true(old >= 0);
	chain_init(&c, f, f->as, 160, 20, 3000);
	chain_run(&c, f, &d);
	assert_chained(&d, c.n - 1, 1);
	assert_int_equal(hpusim_sched_set_chain_max((unsigned int)old), 3);
	chain_fini(&c, f);
}

/*
 * Two address spaces chain on the same two engines at once, with a short
 * bound (chains are cut whenever the other's engine waits): both end OK,
 * each in its own order, and every handoff is counted once, on a thread
 * or in the pool.
 */
static void test_chain_two_contexts(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_sched_stats a, d;
	struct hpu_fw_as *as2;
	struct chain c1, c2;
	unsigned int round;
	int old = hpusim_sched_set_chain_max(2);

	assert_true(old >= 0);
	assert_int_equal(hpusim_model.ops->as_create(f->dev, &as2), 0);
	for (round = 0; round < 10; round++) {
		unsigned int base = hpu_test_fw_ndone(f);

		chain_init(&c1, f, f->as, 200, CHAIN_MAX_LEN,
			   10000 + 100 * round);
		chain_init(&c2, f, as2, 200, CHAIN_MAX_LEN,
			   20000 + 100 * round);
		chain_submit(&c1);
		chain_submit(&c2);
		hpusim_model.ops->sched_stats(&a);
		chain_start(&c1);
		chain_start(&c2);
		hpu_test_fw_wait_done(f, base + 2 * CHAIN_MAX_LEN);
		stats_delta(&a, &d);
		chain_check(&c1, f);
		chain_check(&c2, f);
		/* a queue woken on a busy engine is that engine's: no count */
		assert_true(d.handoff_thread + d.handoff_pool >= 1);
		assert_true(d.handoff_thread + d.handoff_pool <=
			    2 * CHAIN_MAX_LEN);
		assert_true(d.chain_cuts <= d.handoff_pool);
		chain_fini(&c1, f);
		chain_fini(&c2, f);
	}
	hpusim_model.ops->as_destroy(as2);
	assert_int_equal(hpusim_sched_set_chain_max((unsigned int)old), 2);
}

/*
 * Aborting a parked submission in the middle of a chain: the ones before
 * it run, it ends ABORTED, and the ones after it stay queued at their
 * unsatisfied FENCEs (the engines stay busy, nothing else runs) until a
 * reset aborts them.
 */
static void test_chain_abort_and_reset(void **state)
{
	struct hpu_test_fw *f = *state;
	unsigned int i, cut = 7;
	struct chain c;
	uint32_t v;

	chain_init(&c, f, f->as, 300, 16, 4000);
	chain_submit(&c);
	/* queued behind a parked one, untouched: no engine to reset */
	assert_int_equal(hpusim_model.ops->cs_abort(f->as,
						    (void *)(c.cookie0 + cut)),
			 0);
	assert_int_equal(hpu_test_fw_ndone(f), 1);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)(c.cookie0 + cut),
					       NULL),
			 HPU_FW_CS_ABORTED);
	chain_start(&c);
	hpu_test_fw_wait_done(f, 1 + cut);
	for (i = 0; i < cut; i++) {
		assert_int_equal(
			hpu_test_fw_result_of(f, (void *)(c.cookie0 + i), NULL),
			HPU_FW_CS_OK);
		assert_true(c.slots[i] == CHAIN_MAGIC);
	}
	/* the aborted one's FENCE was passed (its SOB raised), nothing more */
	assert_int_equal(hpusim_model.ops->sob_read(f->as, c.sob + cut, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(hpu_test_fw_ndone(f), 1 + cut);
	for (i = cut; i < c.n; i++)
		assert_true(c.slots[i] == 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL), 0);

	assert_true(hpusim_model.ops->reset(f->dev, false) >= 0);
	hpu_test_fw_wait_done(f, c.n);
	for (i = cut + 1; i < c.n; i++)
		assert_int_equal(
			hpu_test_fw_result_of(f, (void *)(c.cookie0 + i), NULL),
			HPU_FW_CS_ABORTED);
	for (i = cut; i < c.n; i++)
		assert_true(c.slots[i] == 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f->dev, NULL), 1);
	chain_fini(&c, f);
}

/*
 * A submission whose job on one queue must queue (behind this address
 * space's parked FENCE) still runs its job on an idle engine in the
 * submitting thread: no worker is signalled, and that job's MEMSET is
 * done when cs_submit returns.
 */
static void test_partial_fast_path(void **state)
{
	struct hpu_test_fw *f = *state;
	_Alignas(8) struct hpu_test_cb park = { .len = 0 }, c0 = { .len = 0 },
				       c1 = { .len = 0 };
	struct hpu_fw_sched_stats a, d;
	struct hpu_fw_job jobs[2];
	uint64_t *word = hpu_test_xmalloc(8), va;

	*word = 0;
	va = hpu_test_fw_map_host(f, word, 8);
	hpu_test_cb_fence(&park, 400, 1, 1);
	hpu_test_fw_submit1(f, f->dma0, &park, (void *)1);
	hpu_test_cb_msg(&c0, 401, HPU_MSG_OP_ADD, 1);
	hpu_test_cb_memset(&c1, va, 8, 0x77, 8);
	jobs[0] = (struct hpu_fw_job){ .queue = f->dma0,
				       .cb = c0.buf,
				       .cb_size = c0.len };
	jobs[1] = (struct hpu_fw_job){ .queue = f->dma1,
				       .cb = c1.buf,
				       .cb_size = c1.len };
	hpusim_model.ops->sched_stats(&a);
	assert_int_equal(hpusim_model.ops->cs_submit(f->as, jobs, 2, (void *)2),
			 0);
	stats_delta(&a, &d);
	assert_true(__atomic_load_n(word, __ATOMIC_RELAXED) == 0x77);
	assert_int_equal(d.submit_pool, 0);
	assert_int_equal(hpu_test_fw_ndone(f), 0);

	/* the queued job runs once the parked one passes its FENCE */
	assert_int_equal(
		hpusim_model.ops->sob_write(f->as, 400, HPU_MSG_OP_ADD, 1), 0);
	hpu_test_fw_wait_done(f, 2);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)1, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_result_of(f, (void *)2, NULL),
			 HPU_FW_CS_OK);
	hpu_test_fw_unmap_host(f, va);
	free(word);
}

/* A device whose cs_done raises a SOB, as the driver's WAIT does */
struct rel {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct hpu_fw_as *as;
	unsigned int ndone;
	bool ok;
};

/* The end of cookie 1 raises SOB 11 (the driver releasing a WAIT) */
static void rel_on_done(void *arg, void *cookie, enum hpu_fw_cs_result result,
			const struct hpu_fw_fault *fault, uint64_t done_ns)
{
	struct rel *r = arg;

	(void)fault;
	(void)done_ns;
	if (cookie == (void *)1 &&
	    hpusim_model.ops->sob_write(r->as, 11, HPU_MSG_OP_ADD, 1))
		r->ok = false;
	pthread_mutex_lock(&r->lock);
	r->ok &= result == HPU_FW_CS_OK;
	r->ndone++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void rel_wait(struct rel *r, unsigned int n)
{
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += HPU_TEST_FW_WAIT_S;
	pthread_mutex_lock(&r->lock);
	while (r->ndone < n && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&r->cond, &r->lock, &ts);
	pthread_mutex_unlock(&r->lock);
	assert_true(r->ndone >= n);
}

/*
 * A submission released by the end of another (the driver's cs_done
 * raising a WAIT's SOB in the ending thread) runs on the worker that ran
 * the one that ended: one worker signalled (the start), one handoff on
 * the thread; with HPUSIM_CHAIN_MAX 0 it goes to the pool.
 */
static void test_chain_released_by_end(void **state)
{
	struct rel r = { .lock = PTHREAD_MUTEX_INITIALIZER,
			 .cond = PTHREAD_COND_INITIALIZER };
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
		.cb = { .cs_done = rel_on_done, .arg = &r },
	};
	struct hpu_fw_sched_stats a, d;
	struct hpu_fw_device *dev;
	unsigned int round;
	int old;

	(void)state;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
	assert_int_equal(hpusim_model.ops->as_create(dev, &r.as), 0);
	old = hpusim_sched_set_chain_max(HPUSIM_CHAIN_MAX_DEFAULT);
	assert_true(old >= 0);
	for (round = 0; round < 2; round++) {
		_Alignas(8) struct hpu_test_cb ca = { .len = 0 },
					       cb = { .len = 0 };
		struct hpu_fw_job ja, jb;

		/* round 1: the old rule */
		if (round)
			hpusim_sched_set_chain_max(0);
		r.ndone = 0;
		r.ok = true;
		hpu_test_cb_fence(&ca, 10, 1, 1);
		hpu_test_cb_put(&ca, HPU_PACKET_NOP, sizeof(struct hpu_pkt_hdr),
				0);
		hpu_test_cb_fence(&cb, 11, 1, 1);
		hpu_test_cb_put(&cb, HPU_PACKET_NOP, sizeof(struct hpu_pkt_hdr),
				0);
		ja = (struct hpu_fw_job){ .queue = 1,
					  .cb = ca.buf,
					  .cb_size = ca.len };
		jb = (struct hpu_fw_job){ .queue = 0,
					  .cb = cb.buf,
					  .cb_size = cb.len };
		assert_int_equal(hpusim_model.ops->cs_submit(r.as, &ja, 1,
							     (void *)1),
				 0);
		assert_int_equal(hpusim_model.ops->cs_submit(r.as, &jb, 1,
							     (void *)2),
				 0);
		assert_int_equal(r.ndone, 0);
		hpusim_model.ops->sched_stats(&a);
		assert_int_equal(hpusim_model.ops->sob_write(r.as, 10,
							     HPU_MSG_OP_ADD, 1),
				 0);
		rel_wait(&r, 2);
		stats_delta(&a, &d);
		assert_true(r.ok);
		if (round) {
			assert_int_equal(d.handoff_pool, 2);
			assert_int_equal(d.handoff_thread, 0);
		} else {
			assert_chained(&d, 1, 1);
		}
	}
	assert_int_equal(hpusim_sched_set_chain_max((unsigned int)old), 0);
	hpusim_model.ops->as_destroy(r.as);
	hpusim_model.ops->destroy(dev);
}

/*
 * HPUSIM_CHAIN_MAX's parser (hpusim_env_u64(), the pool's and the host
 * access bound's): a decimal number in range, anything else the default
 */
static void test_chain_max_env(void **state)
{
	static const struct {
		const char *v;
		uint64_t want;
	} cases[] = {
		{ NULL, 64 },
		{ "", 64 },
		{ "0", 0 },
		{ "7", 7 },
		{ "4096", 4096 },
		{ "4097", 64 },
		{ "-0", 64 },
		{ "-1", 64 },
		{ "12x", 64 },
		{ "x", 64 },
		{ "99999999999999999999999", 64 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].v)
			assert_int_equal(
				setenv("HPUSIM_CHAIN_MAX", cases[i].v, 1), 0);
		else
			assert_int_equal(unsetenv("HPUSIM_CHAIN_MAX"), 0);
		assert_int_equal(hpusim_env_u64("HPUSIM_CHAIN_MAX", 0,
						HPUSIM_CHAIN_MAX_LIMIT,
						HPUSIM_CHAIN_MAX_DEFAULT),
				 cases[i].want);
	}
	/* a least value of 1 refuses 0 */
	assert_int_equal(setenv("HPUSIM_CHAIN_MAX", "0", 1), 0);
	assert_int_equal(hpusim_env_u64("HPUSIM_CHAIN_MAX", 1, 10, 5), 5);
	assert_int_equal(unsetenv("HPUSIM_CHAIN_MAX"), 0);
}

int main(void)
{
#define T(fn)                                                  \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_setup, \
					hpu_test_fw_teardown)
	const struct CMUnitTest tests[] = {
		T(test_chain_on_one_thread),
		T(test_chain_off),
		T(test_chain_bound_rule),
		T(test_chain_bound_alone),
		T(test_chain_two_contexts),
		T(test_chain_abort_and_reset),
		T(test_partial_fast_path),
		T(test_chain_released_by_end),
		cmocka_unit_test(test_chain_max_env),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
