// SPDX-License-Identifier: MIT
/*
 * test_fw_dma.c - libhpusim DMA in slices: the pool's parallel runner
 * (every slice exactly once, from several threads at once and nested),
 * copies through scattered device memory (several extents per
 * process_vm_readv/writev call), faults met by several slices of one
 * large copy (the lowest is reported, as a serial copy would), the
 * HBM backing on 2 MiB transparent huge pages staying sparse, slices
 * claimed by CPU (affine: every slice once, the caller's CPU's home range
 * first, then the others' from the top; a helper on the runner's CPU
 * declines, and after a streak of declines helpers rest but for probes),
 * and shared (pinned) memory copies at odd sizes and offsets, run in
 * cs_submit up to the fast path's 8 MiB. spare_only operations (the
 * MME's split products): every slice once, lingering ends.
 */
#include <sched.h>

#include "../lib/hpu_test_fw.h"
#include "queue.h"

/* ------------------------------------------------------ parallel runner */

#define PAR_SLICES  300
#define PAR_INNER   8
#define PAR_THREADS 3

struct par_count {
	unsigned int hits[PAR_SLICES];
	unsigned int inner[PAR_SLICES];
	bool nest;
};

static void inner_slice(void *arg, unsigned int i)
{
	unsigned int *n = arg;

	(void)i;
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

static void count_slice(void *arg, unsigned int i)
{
	struct par_count *c = arg;

	__atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
	if (c->nest) {
		/* a slice may run a parallel operation of its own */
		struct hpusim_par in = { .fn = inner_slice,
					 .arg = &c->inner[i],
					 .nslices = PAR_INNER };

		hpusim_par_run(&in);
	}
}

static void *par_thread(void *arg)
{
	struct hpusim_par par = { .fn = count_slice,
				  .arg = arg,
				  .nslices = PAR_SLICES };

	hpusim_par_run(&par);
	return NULL;
}

/* Every slice runs exactly once, with concurrent and nested runners */
static void test_par_every_slice_once(void **state)
{
	struct par_count *c = calloc(PAR_THREADS, sizeof(*c));
	pthread_t t[PAR_THREADS];
	unsigned int i, k;

	(void)state;
	assert_non_null(c);
	assert_true(hpusim_par_width() >= 1);
	for (k = 0; k < PAR_THREADS; k++) {
		c[k].nest = k > 0;
		assert_int_equal(pthread_create(&t[k], NULL, par_thread, &c[k]),
				 0);
	}
	for (k = 0; k < PAR_THREADS; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	for (k = 0; k < PAR_THREADS; k++) {
		for (i = 0; i < PAR_SLICES; i++) {
			assert_int_equal(c[k].hits[i], 1);
			assert_int_equal(c[k].inner[i],
					 c[k].nest ? PAR_INNER : 0);
		}
	}
	/* one slice: runs in the caller, nothing else to join */
	memset(c, 0, sizeof(*c));
	{
		struct hpusim_par one = { .fn = count_slice,
					  .arg = c,
					  .nslices = 1 };

		hpusim_par_run(&one);
	}
	assert_int_equal(c->hits[0], 1);
	assert_int_equal(c->hits[1], 0);
	free(c);
}

/* ------------------------------------------------------ spare-only */

#define SPARE_OPS 400

static void *spare_thread(void *arg)
{
	struct par_count *c = arg;
	unsigned int k;

	/* the MME's split: two affine slices, spare_only, again and again */
	for (k = 0; k < SPARE_OPS; k++) {
		struct hpusim_par par = { .fn = count_slice,
					  .arg = c,
					  .nslices = 2,
					  .affine = true,
					  .spare_only = true };

		hpusim_par_run(&par);
	}
	return NULL;
}

/*
 * spare_only operations (docs/mme.md "Two MMEs"): from two runners at
 * once, every slice of every operation runs exactly once, whether a
 * lingering, a woken or no worker took it; and a lingering worker stops
 * lingering after its bound (HPUSIM_PAR_LINGER_NS, waited for here with a
 * generous limit: the assertion is that it ends, not how soon).
 */
static void test_par_spare_only(void **state)
{
	struct par_count *c = calloc(2, sizeof(*c));
	pthread_t t[2];
	unsigned int k, i;

	(void)state;
	assert_non_null(c);
	for (k = 0; k < 2; k++)
		assert_int_equal(
			pthread_create(&t[k], NULL, spare_thread, &c[k]), 0);
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 2; i++)
			assert_int_equal(c[k].hits[i], SPARE_OPS);
	for (i = 0; i < 10000 && hpusim_par_spare() == HPUSIM_SPARE_AWAKE; i++)
		usleep(1000);
	assert_int_not_equal(hpusim_par_spare(), HPUSIM_SPARE_AWAKE);
	free(c);
}

/* ------------------------------------------------------ affine claims */

struct par_log {
	unsigned int hits[HPUSIM_PAR_AFFINE_MAX];
	unsigned int order[HPUSIM_PAR_AFFINE_MAX];
	unsigned int n;
};

static void log_slice(void *arg, unsigned int i)
{
	struct par_log *l = arg;
	unsigned int at = __atomic_fetch_add(&l->n, 1, __ATOMIC_RELAXED);

	__atomic_add_fetch(&l->hits[i], 1, __ATOMIC_RELAXED);
	if (at < HPUSIM_PAR_AFFINE_MAX)
		l->order[at] = i;
}

static void *affine_thread(void *arg)
{
	struct par_log *l = arg;
	unsigned int k;

	/* 1, 2, 3 .. 64 slices (64: every bit of the claim word) */
	for (k = 1; k <= HPUSIM_PAR_AFFINE_MAX; k++) {
		struct hpusim_par par = { .fn = log_slice,
					  .arg = &l[k - 1],
					  .nslices = k,
					  .affine = true };

		hpusim_par_run(&par);
	}
	return NULL;
}

/*
 * Affine slices (the DMA engine's): every slice exactly once for every
 * count up to the claim word's 64, from several runners at once with the
 * pool helping; more slices than that fall back to the in-order claim.
 */
static void test_par_affine_every_slice_once(void **state)
{
	struct par_log *l =
		calloc(PAR_THREADS * HPUSIM_PAR_AFFINE_MAX, sizeof(*l));
	struct par_count *c = calloc(1, sizeof(*c));
	struct hpusim_par big = { .fn = count_slice,
				  .arg = c,
				  .nslices = PAR_SLICES,
				  .affine = true };
	pthread_t t[PAR_THREADS];
	unsigned int i, k, s;

	(void)state;
	assert_non_null(l);
	assert_non_null(c);
	for (k = 0; k < PAR_THREADS; k++)
		assert_int_equal(pthread_create(&t[k], NULL, affine_thread,
						&l[k * HPUSIM_PAR_AFFINE_MAX]),
				 0);
	for (k = 0; k < PAR_THREADS; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	for (k = 0; k < PAR_THREADS; k++) {
		for (s = 1; s <= HPUSIM_PAR_AFFINE_MAX; s++) {
			struct par_log *x =
				&l[k * HPUSIM_PAR_AFFINE_MAX + s - 1];

			assert_int_equal(x->n, s);
			for (i = 0; i < HPUSIM_PAR_AFFINE_MAX; i++)
				assert_int_equal(x->hits[i], i < s ? 1 : 0);
		}
	}
	hpusim_par_run(&big);
	for (i = 0; i < PAR_SLICES; i++)
		assert_int_equal(c->hits[i], 1);
	free(c);
	free(l);
}

/*
 * The calling thread on the CPU it runs on: @old receives its affinity
 * (sched_setaffinity() it back), @one the set of that CPU alone.
 * Return: the CPU.
 */
static int pin_to_own_cpu(cpu_set_t *old, cpu_set_t *one)
{
	int cpu;

	assert_int_equal(sched_getaffinity(0, sizeof(*old), old), 0);
	cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(one);
	CPU_SET(cpu, one);
	assert_int_equal(sched_setaffinity(0, sizeof(*one), one), 0);
	return cpu;
}

/*
 * Alone (no device, so no pool), a runner on CPU c takes its CPU's home
 * range of the slices in order, then the others from the highest down:
 * a buffer copied again and again keeps each part on the CPU it was
 * copied on last.
 */
static void test_par_affine_order(void **state)
{
	static const unsigned int counts[] = { 1, 2, 3, 7, 64 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int k, i, at, n, kk, r, lo, hi;
	struct par_log l;
	cpu_set_t old, one;
	int cpu;

	(void)state;
	assert_true(ncpu >= 1);
	assert_int_equal(hpusim_par_width(), 1); /* the pool is stopped */
	cpu = pin_to_own_cpu(&old, &one);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct hpusim_par par = { .fn = log_slice,
					  .arg = &l,
					  .nslices = counts[k],
					  .affine = true };

		n = counts[k];
		kk = (unsigned int)ncpu < n ? (unsigned int)ncpu : n;
		r = (unsigned int)cpu % kk;
		lo = r * n / kk;
		hi = (r + 1) * n / kk;
		memset(&l, 0, sizeof(l));
		hpusim_par_run(&par);
		assert_int_equal(l.n, n);
		at = 0;
		for (i = lo; i < hi; i++)
			assert_int_equal(l.order[at++], i);
		for (i = n; i-- > 0;)
			if (i < lo || i >= hi)
				assert_int_equal(l.order[at++], i);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

/*
 * hpusim_par_affine_pick(): the home ranges of 2 CPUs over 8 slices, a
 * late helper, a runner left alone, more CPUs than slices, unknown CPU
 */
static void test_par_affine_pick(void **state)
{
	uint64_t claimed;
	unsigned int i;

	(void)state;
	/* 2 CPUs, 8 slices: CPU 0 owns 0..3, CPU 1 owns 4..7 */
	assert_int_equal(hpusim_par_affine_pick(0, 8, 2, 0), 0);
	assert_int_equal(hpusim_par_affine_pick(0, 8, 2, 1), 4);
	assert_int_equal(hpusim_par_affine_pick(0, 8, 2, 3), 4);
	assert_int_equal(hpusim_par_affine_pick(0, 8, 2, -1), 0);
	assert_int_equal(hpusim_par_affine_pick(0x01, 8, 2, 0), 1);
	/* the runner on CPU 1 did its range: it takes CPU 0's from the top */
	assert_int_equal(hpusim_par_affine_pick(0xf0, 8, 2, 1), 3);
	assert_int_equal(hpusim_par_affine_pick(0xf8, 8, 2, 1), 2);
	/* ... and the late helper on CPU 0 still starts at its bottom */
	assert_int_equal(hpusim_par_affine_pick(0xf8, 8, 2, 0), 0);
	assert_int_equal(hpusim_par_affine_pick(0xfb, 8, 2, 0), 2);
	/* CPU 0 done first: it takes CPU 1's range from its top */
	assert_int_equal(hpusim_par_affine_pick(0x1f, 8, 2, 0), 7);
	/* a runner alone on CPU 1 claims 4, 5, 6, 7, 3, 2, 1, 0 */
	for (claimed = 0, i = 0; i < 8; i++) {
		static const unsigned int want[8] = { 4, 5, 6, 7, 3, 2, 1, 0 };
		unsigned int got = hpusim_par_affine_pick(claimed, 8, 2, 1);

		assert_int_equal(got, want[i]);
		claimed |= 1ULL << got;
	}
	/* 64 slices, every bit of the claim word */
	assert_int_equal(hpusim_par_affine_pick(0, 64, 2, 1), 32);
	assert_int_equal(hpusim_par_affine_pick(~0ULL >> 1, 64, 2, 0), 63);
	assert_int_equal(hpusim_par_affine_pick(~(1ULL << 5), 64, 2, 1), 5);
	/* more CPUs than slices: one slice per CPU, CPU c on c % n */
	assert_int_equal(hpusim_par_affine_pick(0, 3, 8, 4), 1);
	assert_int_equal(hpusim_par_affine_pick(0, 1, 8, 7), 0);
	/* odd split: 3 CPUs over 7 slices, ranges 0..1, 2..3, 4..6 */
	assert_int_equal(hpusim_par_affine_pick(0, 7, 3, 1), 2);
	assert_int_equal(hpusim_par_affine_pick(0, 7, 3, 2), 4);
	assert_int_equal(hpusim_par_affine_pick(0x70, 7, 3, 2), 3);
}

/* ------------------------------------------------------ helpers' CPU */

/* The rule of hpusim_par_helper_useful() and hpusim_par_wake_helpers() */
static void test_par_helper_rule(void **state)
{
	unsigned int seq, woken;

	(void)state;
	assert_true(hpusim_par_helper_useful(-1, 0));
	assert_true(hpusim_par_helper_useful(0, -1));
	assert_true(hpusim_par_helper_useful(-1, -1));
	assert_true(hpusim_par_helper_useful(0, 1));
	assert_true(hpusim_par_helper_useful(3, 2));
	assert_false(hpusim_par_helper_useful(0, 0));
	assert_false(hpusim_par_helper_useful(5, 5));

	/* under the streak every operation wakes helpers */
	for (seq = 0; seq < 4 * HPUSIM_PAR_PROBE_EVERY; seq++) {
		assert_true(hpusim_par_wake_helpers(0, seq));
		assert_true(
			hpusim_par_wake_helpers(HPUSIM_PAR_MISS_MAX - 1, seq));
	}
	/* from it on, one in HPUSIM_PAR_PROBE_EVERY (a probe) */
	for (woken = 0, seq = 1; seq <= 4 * HPUSIM_PAR_PROBE_EVERY; seq++)
		woken += hpusim_par_wake_helpers(HPUSIM_PAR_MISS_MAX, seq);
	assert_int_equal(woken, 4);
	assert_true(hpusim_par_wake_helpers(HPUSIM_PAR_MISS_MAX + 100, 0));
	assert_false(hpusim_par_wake_helpers(HPUSIM_PAR_MISS_MAX + 100, 1));
}

#define SLEEPY_SLICES 2
#define SLEEPY_US     3000 /* long enough for a woken helper to run */
#define SLEEPY_TRIES  40

struct sleepy {
	pthread_t by[SLEEPY_SLICES];
	int cpu[SLEEPY_SLICES];
	unsigned int hits[SLEEPY_SLICES];
};

/* A slice that records its thread and blocks, so a helper could run */
static void sleepy_slice(void *arg, unsigned int i)
{
	struct sleepy *s = arg;

	s->by[i] = pthread_self();
	s->cpu[i] = sched_getcpu();
	__atomic_add_fetch(&s->hits[i], 1, __ATOMIC_RELAXED);
	usleep(SLEEPY_US);
}

/*
 * One affine operation of sleepy slices into @s, the decline streak
 * cleared first (it would stop the wake-ups these tests need): every
 * slice ran once.
 */
static void sleepy_run(struct sleepy *s)
{
	struct hpusim_par par = { .fn = sleepy_slice,
				  .arg = s,
				  .nslices = SLEEPY_SLICES,
				  .affine = true };
	unsigned int i;

	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_sched.par_misses = 0;
	pthread_mutex_unlock(&hpusim_sched.lock);
	hpusim_par_run(&par);
	for (i = 0; i < SLEEPY_SLICES; i++)
		assert_int_equal(s->hits[i], 1);
}

/* Every pool worker on @cpus; Return: 0 or an errno */
static int pin_workers(const cpu_set_t *cpus)
{
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&hpusim_sched.pool_lock);
	for (i = 0; i < hpusim_sched.nthreads && !ret; i++)
		ret = pthread_setaffinity_np(hpusim_sched.threads[i],
					     sizeof(*cpus), cpus);
	pthread_mutex_unlock(&hpusim_sched.pool_lock);
	return ret;
}

static unsigned int sched_misses(void)
{
	unsigned int n;

	pthread_mutex_lock(&hpusim_sched.lock);
	n = hpusim_sched.par_misses;
	pthread_mutex_unlock(&hpusim_sched.lock);
	return n;
}

/*
 * The runner and every pool worker on one CPU: a worker woken for an
 * affine operation can only run while the runner blocks, and declines
 * (it would copy another CPU's part while the runner waits). Every slice
 * runs in the runner; the declines are counted (bounded tries: a loaded
 * machine may not run the helper within a slice's sleep). Then with the
 * workers on another CPU, a helper takes a slice.
 */
static void test_par_helper_declines_on_runner_cpu(void **state)
{
	cpu_set_t old, one, other;
	unsigned int k, i, misses = 0, helped = 0;
	int cpu, c;

	(void)state;
	assert_true(hpusim_par_width() >= 1);
	cpu = pin_to_own_cpu(&old, &one);
	assert_int_equal(pin_workers(&one), 0);
	for (k = 0; k < SLEEPY_TRIES && !misses; k++) {
		struct sleepy s;

		sleepy_run(&s);
		for (i = 0; i < SLEEPY_SLICES; i++)
			assert_true(pthread_equal(s.by[i], pthread_self()));
		misses = sched_misses();
	}
	printf("declined after %u operation(s)\n", k);
	assert_true(misses >= 1);

	CPU_ZERO(&other);
	for (c = 0; c < CPU_SETSIZE && !CPU_COUNT(&other); c++)
		if (c != cpu && CPU_ISSET(c, &old))
			CPU_SET(c, &other);
	if (!CPU_COUNT(&other)) {
		printf("skip: one CPU allowed, no other CPU to help from\n");
		goto out;
	}
	assert_int_equal(pin_workers(&other), 0);
	for (k = 0; k < SLEEPY_TRIES && !helped; k++) {
		struct sleepy s;

		sleepy_run(&s);
		for (i = 0; i < SLEEPY_SLICES; i++) {
			if (!pthread_equal(s.by[i], pthread_self())) {
				assert_int_not_equal(s.cpu[i], cpu);
				helped++;
			}
		}
	}
	printf("helped from another CPU after %u operation(s)\n", k);
	assert_true(helped >= 1);
	assert_int_equal(sched_misses(), 0);
out:
	assert_int_equal(pin_workers(&old), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

/*
 * After HPUSIM_PAR_MISS_MAX declines in a row an affine operation wakes
 * no helper but every HPUSIM_PAR_PROBE_EVERY-th: with the workers on the
 * runner's CPU, the streak stays at or above the limit, and every slice
 * still runs once.
 */
static void test_par_helpers_rest_after_streak(void **state)
{
	struct par_log l;
	cpu_set_t old, one;
	unsigned int k, i, runs;

	(void)state;
	pin_to_own_cpu(&old, &one);
	assert_int_equal(pin_workers(&one), 0);
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_sched.par_misses = HPUSIM_PAR_MISS_MAX;
	runs = hpusim_sched.par_runs;
	pthread_mutex_unlock(&hpusim_sched.lock);
	for (k = 0; k < 2 * HPUSIM_PAR_PROBE_EVERY; k++) {
		struct hpusim_par par = {
			.fn = log_slice, .arg = &l, .nslices = 4, .affine = true
		};

		memset(&l, 0, sizeof(l));
		hpusim_par_run(&par);
		assert_int_equal(l.n, 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(l.hits[i], 1);
	}
	pthread_mutex_lock(&hpusim_sched.lock);
	assert_int_equal(hpusim_sched.par_runs - runs,
			 2 * HPUSIM_PAR_PROBE_EVERY);
	/* a probe's helper declines or finds nothing: never a reset here */
	assert_true(hpusim_sched.par_misses >= HPUSIM_PAR_MISS_MAX);
	hpusim_sched.par_misses = 0;
	pthread_mutex_unlock(&hpusim_sched.lock);
	assert_int_equal(pin_workers(&old), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

/* ------------------------------------------------------ scattered memory */

/* host -> scattered SRAM -> scattered SRAM -> host, more extents than iovecs */
static void test_dma_scattered(void **state)
{
	struct hpu_test_fw *f = *state;
	uint32_t n = f->dev->profile->sram_size / (4 * KiB), i;
	struct hpu_fw_mem **m = calloc(n, sizeof(*m));
	uint64_t len = 8 * MiB, sva, tva, hs, hd;
	uint8_t *src = hpu_test_xmalloc(len + 64),
		*dst = hpu_test_xmalloc(len + 64);
	struct hpu_fw_mem *s, *t;
	struct hpu_test_cb cb = { .len = 0 };

	assert_non_null(m);
	for (i = 0; i < n; i++)
		assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, 4 * KiB, 0,
							     false, true,
							     &m[i]),
				 0);
	for (i = 0; i < n; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(m[i]), 0);
	/* only 4 KiB holes are free: one extent per page */
	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, len, 0, false,
						     true, &s),
			 0);
	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, len, 0, false,
						     true, &t),
			 0);
	assert_true(s->nr_ext > HPUSIM_DMA_IOV);
	assert_true(t->nr_ext > HPUSIM_DMA_IOV);
	assert_int_equal(hpusim_model.ops->map_mem(f->as, s, 0, false, &sva),
			 0);
	assert_int_equal(hpusim_model.ops->map_mem(f->as, t, 0, false, &tva),
			 0);

	hpu_test_fill_random(src, len + 64, 7);
	memset(dst, 0, len + 64);
	hs = hpu_test_fw_map_host(f, src, len + 64);
	hd = hpu_test_fw_map_host(f, dst, len + 64);
	/* odd offsets: pieces never line up with the pages */
	hpu_test_cb_dma(&cb, sva + 5, hs + 3, len - 5);
	hpu_test_cb_dma(&cb, tva + 1, sva + 5, len - 9);
	hpu_test_cb_dma(&cb, hd + 7, tva + 1, len - 9);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(dst + 7, src + 3, len - 9);
	assert_int_equal(dst[6], 0);
	assert_int_equal(dst[7 + len - 9], 0);

	hpu_test_fw_unmap_host(f, hs);
	hpu_test_fw_unmap_host(f, hd);
	hpu_test_fw_unmap_dev(f, sva, s);
	hpu_test_fw_unmap_dev(f, tva, t);
	for (i = 1; i < n; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(m[i]), 0);
	free(m);
	free(src);
	free(dst);
}

/* ------------------------------------------------------ overlap */

/*
 * Overlapping copies stay memmove in both directions at sizes that are
 * otherwise cut into slices (a later slice must not overwrite bytes an
 * earlier one has yet to read).
 */
static void test_dma_overlap_large(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t n = 24 * MiB, gap[] = { 40, 3 * MiB + 1 }, a, ha;
	uint8_t *buf = hpu_test_xmalloc(n + 4 * MiB),
		*ref = hpu_test_xmalloc(n + 4 * MiB);
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb;
	unsigned int i;

	hpu_test_fill_random(buf, n + 4 * MiB, 9);
	a = hpu_test_fw_map_dev(f, n + 4 * MiB, &m);
	ha = hpu_test_fw_map_host(f, buf, n + 4 * MiB);
	memcpy(ref, buf, n + 4 * MiB);
	for (i = 0; i < 2; i++) {
		memmove(ref, ref + gap[i], n);	       /* down */
		memmove(ref + gap[i] + 7, ref + 7, n); /* up */
	}
	cb.len = 0;
	hpu_test_cb_dma(&cb, a, ha, n + 4 * MiB);
	for (i = 0; i < 2; i++) {
		hpu_test_cb_dma(&cb, a, a + gap[i], n);
		hpu_test_cb_dma(&cb, a + gap[i] + 7, a + 7, n);
	}
	hpu_test_cb_dma(&cb, ha, a, n + 4 * MiB);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_memory_equal(buf, ref, n + 4 * MiB);
	hpu_test_fw_unmap_host(f, ha);
	hpu_test_fw_unmap_dev(f, a, m);
	free(buf);
	free(ref);
}

/* ------------------------------------------------------ faults in slices */

/*
 * Host pages that the process unmapped after mapping them fault in the
 * middle of a large copy: with holes at 5 MiB and 11 MiB (in different
 * slices of the first 16 MiB step when two threads copy it; the later
 * slice meets its hole first) and at 30 MiB, the fault is the first hole.
 */
static void test_dma_fault_lowest_slice(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t len = 32 * MiB, hva, dva;
	static const uint64_t holes[] = { 11 * MiB, 30 * MiB, 5 * MiB };
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb = { .len = 0 };
	uint8_t *buf;
	unsigned int i;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 0x33, len);
	hva = hpu_test_fw_map_host(f, buf, len);
	dva = hpu_test_fw_map_dev(f, len, &m);
	for (i = 0; i < sizeof(holes) / sizeof(holes[0]); i++)
		assert_int_equal(munmap(buf + holes[i], 4096), 0);

	hpu_test_cb_dma(&cb, dva, hva, len);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva + 5 * MiB);
	assert_false(fault.is_write);
	assert_int_equal(fault.engine, f->dma0);

	cb.len = 0;
	hpu_test_cb_dma(&cb, hva, dva, len);
	assert_int_equal(hpu_test_fw_run1(f, f->dma1, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, hva + 5 * MiB);
	assert_true(fault.is_write);
	assert_int_equal(fault.engine, f->dma1);

	/* the queue goes on: a copy that avoids the holes works */
	cb.len = 0;
	hpu_test_cb_dma(&cb, dva, hva, 4 * MiB);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);

	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, m);
	munmap(buf, len);
}

/* ------------------------------------------------------ shared host memory */

/*
 * map_shared: memory reached like device memory in both directions (big
 * enough to be cut into slices), written by the host after mapping, with
 * MEMSET, and a fault one byte past its end; unmap gives no pidfd.
 */
static void test_dma_shared(void **state)
{
	struct hpu_test_fw *f = *state;
	uint64_t len = 8 * MiB, sva, dva, bad;
	uint8_t *shm, *ref = hpu_test_xmalloc(len);
	struct hpu_fw_fault fault;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb = { .len = 0 };
	int pidfd = 7;

	shm = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shm != MAP_FAILED);
	assert_int_equal(hpusim_model.ops->map_shared(
				 f->as, shm + 1, len - 4096, 0, false, &bad),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->map_shared(f->as, shm, len - 1, 0,
						      false, &bad),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->map_shared(f->as, shm, len, 0, false,
						      &sva),
			 0);
	assert_true(sva >= HPU_FW_VA_HOST_BASE && sva < HPU_FW_VA_HOST_END);
	dva = hpu_test_fw_map_dev(f, len, &m);

	/* written after mapping: the device sees these bytes */
	hpu_test_fill_random(shm, len, 11);
	memcpy(ref, shm, len);
	hpu_test_cb_dma(&cb, dva, sva, len);
	hpu_test_cb_memset(&cb, sva, len, 0, 1);
	hpu_test_cb_dma(&cb, sva + 3, dva, len - 3);
	hpu_test_cb_memset(&cb, sva, 2, 0xa5, 1);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	assert_int_equal(shm[0], 0xa5);
	assert_int_equal(shm[1], 0xa5);
	assert_int_equal(shm[2], 0);
	assert_memory_equal(shm + 3, ref, len - 3);

	cb.len = 0;
	hpu_test_cb_dma(&cb, dva, sva + len - 4, 8);
	assert_int_equal(hpu_test_fw_run1(f, f->dma1, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, sva + len);
	assert_false(fault.is_write);

	assert_int_equal(hpusim_model.ops->unmap(f->as, sva, &pidfd), 0);
	assert_int_equal(pidfd, -1);
	cb.len = 0;
	hpu_test_cb_dma(&cb, dva, sva, 8);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, sva);
	hpu_test_fw_unmap_dev(f, dva, m);
	munmap(shm, len);
	free(ref);
}

/*
 * Pinned-memory copies of the sizes issue 11 measures, at odd sizes and
 * unaligned addresses, both ways, inline and in the pool, cut into slices
 * from HPUSIM_DMA_PAR_MIN on: every byte lands once, nothing outside
 * moves.
 */
static void test_dma_shared_sizes(void **state)
{
	struct hpu_test_fw *f = *state;
	static const uint64_t sizes[] = { 1 * MiB, 2 * MiB + 1, 4 * MiB - 3,
					  4 * MiB, 5 * MiB + 7, 24 * MiB - 5 };
	uint64_t len = 32 * MiB, sva, dva, n, i;
	uint8_t *shm, *ref = hpu_test_xmalloc(len), *back;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb;
	unsigned int k;

	shm = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shm != MAP_FAILED);
	assert_int_equal(hpusim_model.ops->map_shared(f->as, shm, len, 0, false,
						      &sva),
			 0);
	dva = hpu_test_fw_map_dev(f, len, &m);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		n = sizes[k];
		hpu_test_fill_random(shm, len, 20 + k);
		memcpy(ref, shm, len);
		/* H2D from shm + 5 to dev + 3, then D2H to shm + 4 MiB + 1 */
		cb.len = 0;
		hpu_test_cb_memset(&cb, dva, len, 0, 1);
		hpu_test_cb_dma(&cb, dva + 3, sva + 5, n);
		hpu_test_cb_dma(&cb, sva + 4 * MiB + 1, dva + 3, n);
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
				 HPU_FW_CS_OK);
		back = shm + 4 * MiB + 1;
		assert_memory_equal(back, ref + 5, n);
		assert_int_equal(shm[4 * MiB], ref[4 * MiB]);
		assert_int_equal(back[n], ref[4 * MiB + 1 + n]);

		/* again on the other queue, alone */
		memcpy(shm, ref, len);
		cb.len = 0;
		hpu_test_cb_dma(&cb, dva + 3, sva + 5, n);
		assert_int_equal(hpu_test_fw_run1(f, f->dma1, &cb, NULL),
				 HPU_FW_CS_OK);

		/* the device side: read it back whole, outside untouched */
		cb.len = 0;
		memset(shm, 0xee, len);
		hpu_test_cb_dma(&cb, sva, dva, n + 4);
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
				 HPU_FW_CS_OK);
		for (i = 0; i < 3; i++)
			assert_int_equal(shm[i], 0);
		assert_memory_equal(shm + 3, ref + 5, n);
		assert_int_equal(shm[n + 3], 0);
	}
	assert_int_equal(hpusim_model.ops->unmap(f->as, sva, NULL), 0);
	hpu_test_fw_unmap_dev(f, dva, m);
	munmap(shm, len);
	free(ref);
}

struct done_by {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int n;
	pthread_t thread;
	enum hpu_fw_cs_result result;
};

static void record_done_by(void *arg, void *cookie,
			   enum hpu_fw_cs_result result,
			   const struct hpu_fw_fault *fault, uint64_t done_ns)
{
	struct done_by *d = arg;

	(void)cookie;
	(void)fault;
	(void)done_ns;
	pthread_mutex_lock(&d->lock);
	d->thread = pthread_self();
	d->result = result;
	d->n++;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* Whether device memory @m at @off holds the @n bytes at @p */
static bool dev_equal(const struct hpu_fw_mem *m, uint64_t off,
		      const uint8_t *p, uint64_t n)
{
	uint64_t fwd, back, c;
	uint8_t *d;

	while (n) {
		d = hpusim_mem_ptr(m, off, &fwd, &back);
		if (!d || !fwd)
			return false;
		c = fwd < n ? fwd : n;
		if (memcmp(d, p, c))
			return false;
		off += c;
		p += c;
		n -= c;
	}
	return true;
}

/*
 * The fast path covers pinned transfers up to 8 MiB (issue 11): on an
 * idle queue the submitting thread runs them (their cs_done comes from
 * that thread), where the hand-off to a worker cost more than the copy;
 * one byte more goes to the pool as before.
 */
static void test_dma_fast_path_8mib(void **state)
{
	static const struct {
		uint64_t size;
		bool inline_run;
	} cases[] = {
		{ 1 * MiB, true }, { 4 * MiB - 1, true },
		{ 4 * MiB, true }, { 4 * MiB + 1, true },
		{ 8 * MiB, true }, { 8 * MiB + 1, false },
	};
	struct done_by d = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER };
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
		.cb = { .cs_done = record_done_by, .arg = &d },
		.module_id = 5,
	};
	uint64_t len = 9 * MiB, sva, dva;
	struct hpu_fw_device *dev;
	struct hpu_fw_as *as;
	struct hpu_fw_mem *m;
	struct hpu_test_cb cb;
	struct timespec ts;
	unsigned int k;
	uint8_t *shm;

	(void)state;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
	assert_int_equal(hpusim_model.ops->as_create(dev, &as), 0);
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shm != MAP_FAILED);
	hpu_test_fill_random(shm, len, 31);
	assert_int_equal(
		hpusim_model.ops->map_shared(as, shm, len, 0, false, &sva), 0);
	assert_int_equal(
		hpusim_model.ops->mem_alloc(dev, len, 0, false, false, &m), 0);
	assert_int_equal(hpusim_model.ops->map_mem(as, m, 0, false, &dva), 0);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct hpu_fw_job job = { .queue = 0, .cb = cb.buf };

		cb.len = 0;
		hpu_test_cb_dma(&cb, dva + 1, sva + 3, cases[k].size);
		job.cb_size = cb.len;
		assert_int_equal(hpusim_model.ops->cs_submit(as, &job, 1, NULL),
				 0);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += HPU_TEST_FW_WAIT_S;
		pthread_mutex_lock(&d.lock);
		while (d.n < k + 1 &&
		       !pthread_cond_timedwait(&d.cond, &d.lock, &ts))
			;
		pthread_mutex_unlock(&d.lock);
		assert_int_equal(d.n, k + 1);
		assert_int_equal(d.result, HPU_FW_CS_OK);
		assert_int_equal(pthread_equal(d.thread, pthread_self()) != 0,
				 cases[k].inline_run);
		assert_true(dev_equal(m, 1, shm + 3, cases[k].size));
	}
	hpusim_model.ops->as_destroy(as);
	assert_int_equal(hpusim_model.ops->mem_free(m), 0);
	hpusim_model.ops->destroy(dev);
	munmap(shm, len);
}

/* ------------------------------------------------------ huge pages */

static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, rss = 0;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu %lu", &size, &rss), 2);
	fclose(f);
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * HBM is 2 MiB-aligned huge-page memory, SRAM is not; idle devices stay
 * under 1 MiB of RSS each, and a touched byte commits at most 2 MiB.
 */
static void test_hbm_huge_pages_sparse(void **state)
{
	struct hpu_test_fw *f = *state;
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
	};
	struct hpu_fw_device *dev[4];
	struct hpu_fw_mem *m;
	uint64_t before, fwd, back;
	unsigned int i;
	uint8_t *p;

	assert_true(f->dev->hbm.huge_pages);
	assert_false(f->dev->sram.huge_pages);
	assert_int_equal((uintptr_t)f->dev->hbm.base % (2 * MiB), 0);

	before = rss_bytes();
	for (i = 0; i < 4; i++) {
		cfg.module_id = i + 1;
		assert_int_equal(hpusim_model.ops->create(&cfg, &dev[i]), 0);
	}
	assert_true(rss_bytes() < before + 4 * MiB);
	assert_int_equal(hpusim_model.ops->mem_alloc(dev[0], 1ULL << 30, 0,
						     false, false, &m),
			 0);
	p = hpusim_mem_ptr(m, 300 * MiB + 5, &fwd, &back);
	p[0] = 1;
	assert_true(rss_bytes() < before + 4 * MiB + 2 * MiB);
	assert_int_equal(hpusim_model.ops->mem_free(m), 0);
	for (i = 0; i < 4; i++)
		hpusim_model.ops->destroy(dev[i]);
}

#define T(fn)                                                  \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_setup, \
					hpu_test_fw_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_par_every_slice_once),
		T(test_par_affine_every_slice_once),
		T(test_par_spare_only),
		cmocka_unit_test(test_par_affine_order),
		cmocka_unit_test(test_par_affine_pick),
		cmocka_unit_test(test_par_helper_rule),
		T(test_par_helper_declines_on_runner_cpu),
		T(test_par_helpers_rest_after_streak),
		T(test_dma_scattered),
		T(test_dma_overlap_large),
		T(test_dma_fault_lowest_slice),
		T(test_hbm_huge_pages_sparse),
		T(test_dma_shared),
		T(test_dma_shared_sizes),
		T(test_dma_fast_path_8mib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
