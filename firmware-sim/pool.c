// SPDX-License-Identifier: MIT
/*
 * pool.c - the worker pool of the process: one pool serves every device
 * (sized to the machine); a worker takes the first RUNNABLE engine queue
 * off the run list and serves it (queue.c).
 *
 * Idle workers also help with the slices of one large transfer
 * (hpusim_par_run()): the thread that splits it runs every slice no
 * worker took, so it never waits for a worker that is not already at work
 * on one of its slices, and a helper never waits for anything but a
 * map_lock, which nobody holds while waiting for the pool. An affine
 * operation (struct hpusim_par.affine, the DMA engine's copies) hands
 * each thread the slice of its CPU first: a buffer copied again and again
 * is then read and written by the same CPU each time and stays in its
 * cache, where slices claimed in order would move from one CPU's cache
 * to the other's whenever the runner and its helper trade CPUs.
 *
 * A worker woken for an affine operation that finds itself on the
 * runner's CPU declines it (hpusim_par_helper_useful()): the scheduler
 * puts it there when the other CPUs are busy (on 2 cores: the client
 * spinning on its completion), where it could only run while the runner
 * waits, copying another CPU's part from a cold cache. After a streak of
 * such declines, affine operations stop waking workers but for a probe
 * now and then (hpusim_par_wake_helpers()); a helper that takes a slice
 * on another CPU ends the streak.
 */
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"

struct hpusim_sched hpusim_sched = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
	.par_done = PTHREAD_COND_INITIALIZER,
	.run = { &hpusim_sched.run, &hpusim_sched.run },
	.help = { &hpusim_sched.help, &hpusim_sched.help },
	.pool_lock = PTHREAD_MUTEX_INITIALIZER,
};

void hpusim_sched_lock(void)
{
	pthread_mutex_lock(&hpusim_sched.lock);
}

void hpusim_sched_unlock(void)
{
	pthread_mutex_unlock(&hpusim_sched.lock);
}

/* ------------------------------------------------------ parallel slices */

unsigned int hpusim_par_width(void)
{
	unsigned int idle =
		__atomic_load_n(&hpusim_sched.idle_workers, __ATOMIC_RELAXED);
	unsigned int n =
		__atomic_load_n(&hpusim_sched.nthreads, __ATOMIC_RELAXED);

	return idle + 1 < n ? idle + 1 : (n ? n : 1);
}

enum hpusim_spare hpusim_par_spare(void)
{
	if (__atomic_load_n(&hpusim_sched.lingering, __ATOMIC_RELAXED))
		return HPUSIM_SPARE_AWAKE;
	if (__atomic_load_n(&hpusim_sched.idle_workers, __ATOMIC_RELAXED))
		return HPUSIM_SPARE_IDLE;
	return HPUSIM_SPARE_NONE;
}

static bool par_is_affine(const struct hpusim_par *par)
{
	return par->affine && par->nslices <= HPUSIM_PAR_AFFINE_MAX;
}

static uint64_t par_all(const struct hpusim_par *par)
{
	return par->nslices == 64 ? ~0ULL : (1ULL << par->nslices) - 1;
}

/* CPUs of the machine (at least 1): the home ranges of affine claims */
static unsigned int par_ncpu(void)
{
	static unsigned int ncpu;
	unsigned int n = __atomic_load_n(&ncpu, __ATOMIC_RELAXED);
	long v;

	if (!n) {
		v = sysconf(_SC_NPROCESSORS_ONLN);
		n = v < 1 ? 1 : (v > 1024 ? 1024 : (unsigned int)v);
		__atomic_store_n(&ncpu, n, __ATOMIC_RELAXED);
	}
	return n;
}

/*
 * Claim a slice of @par into *@slice; false when every slice is claimed.
 * Affine: hpusim_par_affine_pick() with the caller's CPU @cpu (a slice
 * whose CPU is slow to come is taken, never waited for). The CPU is a
 * hint: the thread may move right after, nothing breaks.
 */
static bool par_claim(struct hpusim_par *par, int cpu, unsigned int *slice)
{
	uint64_t all, cur;
	unsigned int i;

	if (!par_is_affine(par)) {
		*slice = __atomic_fetch_add(&par->next, 1, __ATOMIC_RELAXED);
		return *slice < par->nslices;
	}
	all = par_all(par);
	cur = __atomic_load_n(&par->claimed, __ATOMIC_RELAXED);
	while (cur != all) {
		i = hpusim_par_affine_pick(cur, par->nslices, par_ncpu(), cpu);
		if (__atomic_compare_exchange_n(
			    &par->claimed, &cur, cur | 1ULL << i, true,
			    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			*slice = i;
			return true;
		}
	}
	return false;
}

/* Whether every slice of @par is claimed */
static bool par_all_claimed(struct hpusim_par *par)
{
	if (!par_is_affine(par))
		return __atomic_load_n(&par->next, __ATOMIC_RELAXED) >=
		       par->nslices;
	return __atomic_load_n(&par->claimed, __ATOMIC_RELAXED) == par_all(par);
}

/*
 * Run one unclaimed slice of the first parallel job; sched lock held.
 * Return: false when this worker declined it (affine, on the runner's
 * CPU: hpusim_par_helper_useful()); it must not try again until woken.
 */
static bool par_help(void)
{
	struct hpusim_par *par = hpusim_container_of(hpusim_sched.help.next,
						     struct hpusim_par, node);
	bool affine = par_is_affine(par), got;
	int cpu = affine ? sched_getcpu() : -1;
	unsigned int i;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (affine &&
	    !hpusim_par_helper_useful(
		    __atomic_load_n(&par->runner_cpu, __ATOMIC_RELAXED), cpu)) {
		hpusim_sched.par_misses++;
		return false;
	}
	got = par_claim(par, cpu, &i);
	/* listed means alive: its runner unlists it before it returns */
	if (!got || par_all_claimed(par))
		hpusim_list_del(&par->node);
	if (!got)
		return true;
	pthread_mutex_unlock(&hpusim_sched.lock);
	par->fn(par->arg, i);
	pthread_mutex_lock(&hpusim_sched.lock);
	if (affine)
		hpusim_sched.par_misses = 0; /* another CPU helped */
	/* the last touch of @par: its runner may return once it sees this */
	__atomic_add_fetch(&par->helped, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&hpusim_sched.par_done);
	return true;
}

/* The runner's next claim, its CPU published first for the helpers */
static bool par_claim_own(struct hpusim_par *par, unsigned int *slice)
{
	int cpu = -1;

	if (par_is_affine(par)) {
		cpu = sched_getcpu();
		__atomic_store_n(&par->runner_cpu, cpu, __ATOMIC_RELAXED);
	}
	return par_claim(par, cpu, slice);
}

static inline void hpusim_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Whether workers have finished every slice the runner did not run (@own):
 * an acquire read, so what their slices wrote is seen after it
 */
static bool par_joined(struct hpusim_par *par, unsigned int own)
{
	return own + __atomic_load_n(&par->helped, __ATOMIC_ACQUIRE) >=
	       par->nslices;
}

/*
 * Wait for the slices workers are still running: spin for at most
 * HPUSIM_PAR_JOIN_SPIN_NS (a slice ends within microseconds; a futex
 * sleep and wake-up cost about as much on a small machine), then sleep
 * on par_done. @par is off the help list: nobody claims more of it.
 */
static void par_join(struct hpusim_par *par, unsigned int own)
{
	struct timespec t0, t;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!par_joined(par, own)) {
		for (i = 0; i < 64 && !par_joined(par, own); i++)
			hpusim_cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ULL +
			    (uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec >=
		    HPUSIM_PAR_JOIN_SPIN_NS)
			break;
	}
	pthread_mutex_lock(&hpusim_sched.lock);
	while (!par_joined(par, own))
		pthread_cond_wait(&hpusim_sched.par_done, &hpusim_sched.lock);
	pthread_mutex_unlock(&hpusim_sched.lock);
}

void hpusim_par_run(struct hpusim_par *par)
{
	unsigned int i, own = 0, wake;

	par->next = 0;
	par->claimed = 0;
	par->helped = 0;
	par->runner_cpu = par_is_affine(par) ? sched_getcpu() : -1;
	hpusim_list_init(&par->node);
	if (par->nslices > 1) {
		pthread_mutex_lock(&hpusim_sched.lock);
		hpusim_list_add_tail(&par->node, &hpusim_sched.help);
		if (par->spare_only)
			__atomic_add_fetch(&hpusim_sched.spare_seq, 1,
					   __ATOMIC_RELEASE);
		wake = par->nslices - 1;
		if (wake > hpusim_sched.idle_workers)
			wake = hpusim_sched.idle_workers;
		/* spare_only: a lingering worker is woken by spare_seq */
		if (par->spare_only && (!hpusim_list_empty(&hpusim_sched.run) ||
					__atomic_load_n(&hpusim_sched.lingering,
							__ATOMIC_RELAXED)))
			wake = 0;
		/* affine: a helper per other CPU at most (more would decline) */
		if (par_is_affine(par) && par_ncpu() > 1 &&
		    wake > par_ncpu() - 1)
			wake = par_ncpu() - 1;
		if (par_is_affine(par) &&
		    !hpusim_par_wake_helpers(hpusim_sched.par_misses,
					     hpusim_sched.par_runs++))
			wake = 0;
		while (wake--)
			pthread_cond_signal(&hpusim_sched.work);
		pthread_mutex_unlock(&hpusim_sched.lock);
	}
	/* whatever no worker claimed runs here: the join never waits idle */
	while (par_claim_own(par, &i)) {
		par->fn(par->arg, i);
		own++;
	}
	if (par->nslices < 2)
		return;
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_list_del(&par->node);
	pthread_mutex_unlock(&hpusim_sched.lock);
	par_join(par, own);
}

/* ------------------------------------------------------ workers */

/*
 * After a slice of a spare_only operation (sched lock held, dropped while
 * spinning): wait at most HPUSIM_PAR_LINGER_NS for the next one to be
 * listed, spinning, so that the next product of a decode step finds this
 * worker awake. Counted in @lingering, not in @idle_workers: nothing
 * signals it, and it goes back to the run list when the time is up.
 */
static void par_linger(void)
{
	unsigned int seq =
		__atomic_load_n(&hpusim_sched.spare_seq, __ATOMIC_ACQUIRE);
	struct timespec t0, t;
	unsigned int i;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (par_ncpu() < 2 || hpusim_sched.stop)
		return;
	__atomic_add_fetch(&hpusim_sched.lingering, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&hpusim_sched.lock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (i = 0; i < 64; i++) {
			if (__atomic_load_n(&hpusim_sched.spare_seq,
					    __ATOMIC_ACQUIRE) != seq)
				goto out;
			hpusim_cpu_relax();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ULL +
			    (uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec >=
		    HPUSIM_PAR_LINGER_NS)
			break;
	}
out:
	pthread_mutex_lock(&hpusim_sched.lock);
	__atomic_sub_fetch(&hpusim_sched.lingering, 1, __ATOMIC_RELAXED);
}

/*
 * Whether a worker helps with the first listed operation before it
 * serves the run list (sched lock held): yes, unless that operation is
 * spare_only and an engine queue waits for a thread.
 */
static bool par_help_first(void)
{
	const struct hpusim_par *par;

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	if (hpusim_list_empty(&hpusim_sched.help))
		return false;
	par = hpusim_container_of(hpusim_sched.help.next, struct hpusim_par,
				  node);
	return !par->spare_only || hpusim_list_empty(&hpusim_sched.run);
}

static void *worker_main(void *arg)
{
	struct hpusim_runner rn = { 0 };
	bool declined = false; /* the listed help until the next wake-up */

	pthread_mutex_lock(&hpusim_sched.lock);
	for (;;) {
		struct hpusim_engine_queue *eq;

		while (!hpusim_sched.stop &&
		       hpusim_list_empty(&hpusim_sched.run) &&
		       (declined || hpusim_list_empty(&hpusim_sched.help))) {
			unsigned int seq = __atomic_load_n(
				&hpusim_sched.spare_seq, __ATOMIC_RELAXED);

			/* atomic: hpusim_par_width() reads it unlocked */
			__atomic_add_fetch(&hpusim_sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
			pthread_cond_wait(&hpusim_sched.work,
					  &hpusim_sched.lock);
			__atomic_sub_fetch(&hpusim_sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
			hpusim_sched_count(&hpusim_sched.st.wakeups, 1);
			declined = false;
			/*
			 * woken for a spare_only slice that the runner took
			 * itself meanwhile: stay awake for the next one
			 */
			if (seq != __atomic_load_n(&hpusim_sched.spare_seq,
						   __ATOMIC_RELAXED) &&
			    hpusim_list_empty(&hpusim_sched.run) &&
			    hpusim_list_empty(&hpusim_sched.help))
				par_linger();
		}
		if (!declined && par_help_first()) {
			bool spare = hpusim_container_of(hpusim_sched.help.next,
							 struct hpusim_par,
							 node)
					     ->spare_only;

			declined = !par_help();
			if (!declined && spare)
				par_linger();
			continue;
		}
		if (hpusim_list_empty(&hpusim_sched.run))
			break;
		eq = hpusim_container_of(hpusim_sched.run.next,
					 struct hpusim_engine_queue, run_node);
		hpusim_list_del(&eq->run_node);
		hpusim_runner_start(&rn);
		do
			hpusim_engine_run(eq, NULL, &rn);
		while ((eq = hpusim_runner_take(&rn)));
		declined = false;
	}
	pthread_mutex_unlock(&hpusim_sched.lock);
	return NULL;
}

/**
 * hpusim_sched_stats() - the scheduler's counters (firmware interface 1.7)
 * @out: filled in
 */
void hpusim_sched_stats(struct hpu_fw_sched_stats *out)
{
	const struct hpu_fw_sched_stats *st = &hpusim_sched.st;

	out->handoff_thread =
		__atomic_load_n(&st->handoff_thread, __ATOMIC_RELAXED);
	out->handoff_pool =
		__atomic_load_n(&st->handoff_pool, __ATOMIC_RELAXED);
	out->chain_cuts = __atomic_load_n(&st->chain_cuts, __ATOMIC_RELAXED);
	out->submit_pool = __atomic_load_n(&st->submit_pool, __ATOMIC_RELAXED);
	out->wakeups = __atomic_load_n(&st->wakeups, __ATOMIC_RELAXED);
}

/**
 * hpusim_sched_set_chain_max() - turns a worker's chain may take
 * @n: 0 (chains within one submission only) .. HPUSIM_CHAIN_MAX_LIMIT
 *
 * For tests; the pool reads HPUSIM_CHAIN_MAX when it starts.
 *
 * Return: the previous value, or -EINVAL.
 */
int hpusim_sched_set_chain_max(unsigned int n)
{
	int old;

	if (n > HPUSIM_CHAIN_MAX_LIMIT)
		return -EINVAL;
	pthread_mutex_lock(&hpusim_sched.lock);
	old = (int)hpusim_sched.chain_max;
	hpusim_sched.chain_max = n;
	pthread_mutex_unlock(&hpusim_sched.lock);
	return old;
}

/**
 * hpusim_pool_get() - start the pool with the first device
 *
 * Return: 0 or -errno.
 */
int hpusim_pool_get(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int want, i;
	int ret = 0;

	want = ncpu < 2 ? 2 :
			  (ncpu > HPUSIM_MAX_WORKERS ? HPUSIM_MAX_WORKERS :
						       (unsigned int)ncpu);
	pthread_mutex_lock(&hpusim_sched.pool_lock);
	if (hpusim_sched.users++) {
		pthread_mutex_unlock(&hpusim_sched.pool_lock);
		return 0;
	}
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_sched.chain_max = (unsigned int)hpusim_env_u64(
		"HPUSIM_CHAIN_MAX", 0, HPUSIM_CHAIN_MAX_LIMIT,
		HPUSIM_CHAIN_MAX_DEFAULT);
	pthread_mutex_unlock(&hpusim_sched.lock);
	for (i = 0; i < want; i++) {
		ret = pthread_create(&hpusim_sched.threads[i], NULL,
				     worker_main, NULL);
		if (ret)
			break;
		__atomic_add_fetch(&hpusim_sched.nthreads, 1, __ATOMIC_RELAXED);
	}
	if (!hpusim_sched.nthreads) {
		hpusim_sched.users--;
		pthread_mutex_unlock(&hpusim_sched.pool_lock);
		return -ret;
	}
	pthread_mutex_unlock(&hpusim_sched.pool_lock);
	return 0;
}

/**
 * hpusim_pool_put() - stop the pool with the last device
 */
void hpusim_pool_put(void)
{
	unsigned int i;

	pthread_mutex_lock(&hpusim_sched.pool_lock);
	if (--hpusim_sched.users) {
		pthread_mutex_unlock(&hpusim_sched.pool_lock);
		return;
	}
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_sched.stop = true;
	pthread_cond_broadcast(&hpusim_sched.work);
	pthread_mutex_unlock(&hpusim_sched.lock);
	for (i = 0; i < hpusim_sched.nthreads; i++)
		pthread_join(hpusim_sched.threads[i], NULL);
	__atomic_store_n(&hpusim_sched.nthreads, 0, __ATOMIC_RELAXED);
	hpusim_sched.stop = false;
	pthread_mutex_unlock(&hpusim_sched.pool_lock);
}
