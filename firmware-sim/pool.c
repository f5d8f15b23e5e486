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
 * map_lock, which nobody holds while waiting for the pool.
 */
#include <errno.h>
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

/* Run one unclaimed slice of the first parallel job; sched lock held */
static void par_help(void)
{
	struct hpusim_par *par = hpusim_container_of(hpusim_sched.help.next,
						     struct hpusim_par, node);
	unsigned int i = __atomic_fetch_add(&par->next, 1, __ATOMIC_RELAXED);

	HPU_ASSERT_HELD(&hpusim_sched.lock);

	/* listed means alive: its runner unlists it before it returns */
	if (i + 1 >= par->nslices)
		hpusim_list_del(&par->node);
	if (i >= par->nslices)
		return;
	pthread_mutex_unlock(&hpusim_sched.lock);
	par->fn(par->arg, i);
	pthread_mutex_lock(&hpusim_sched.lock);
	par->helped++;
	pthread_cond_broadcast(&hpusim_sched.par_done);
}

void hpusim_par_run(struct hpusim_par *par)
{
	unsigned int i, own = 0, wake;

	par->next = 0;
	par->helped = 0;
	hpusim_list_init(&par->node);
	if (par->nslices > 1) {
		pthread_mutex_lock(&hpusim_sched.lock);
		hpusim_list_add_tail(&par->node, &hpusim_sched.help);
		wake = par->nslices - 1;
		if (wake > hpusim_sched.idle_workers)
			wake = hpusim_sched.idle_workers;
		while (wake--)
			pthread_cond_signal(&hpusim_sched.work);
		pthread_mutex_unlock(&hpusim_sched.lock);
	}
	/* whatever no worker claimed runs here: the join never waits idle */
	while ((i = __atomic_fetch_add(&par->next, 1, __ATOMIC_RELAXED)) <
	       par->nslices) {
		par->fn(par->arg, i);
		own++;
	}
	if (par->nslices < 2)
		return;
	pthread_mutex_lock(&hpusim_sched.lock);
	hpusim_list_del(&par->node);
	while (own + par->helped < par->nslices)
		pthread_cond_wait(&hpusim_sched.par_done, &hpusim_sched.lock);
	pthread_mutex_unlock(&hpusim_sched.lock);
}

/* ------------------------------------------------------ workers */

static void *worker_main(void *arg)
{
	struct hpusim_runner rn = { 0 };

	pthread_mutex_lock(&hpusim_sched.lock);
	for (;;) {
		struct hpusim_engine_queue *eq;

		while (!hpusim_sched.stop &&
		       hpusim_list_empty(&hpusim_sched.run) &&
		       hpusim_list_empty(&hpusim_sched.help)) {
			/* atomic: hpusim_par_width() reads it unlocked */
			__atomic_add_fetch(&hpusim_sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
			pthread_cond_wait(&hpusim_sched.work,
					  &hpusim_sched.lock);
			__atomic_sub_fetch(&hpusim_sched.idle_workers, 1,
					   __ATOMIC_RELAXED);
		}
		if (!hpusim_list_empty(&hpusim_sched.help)) {
			par_help();
			continue;
		}
		if (hpusim_list_empty(&hpusim_sched.run))
			break;
		eq = hpusim_container_of(hpusim_sched.run.next,
					 struct hpusim_engine_queue, run_node);
		hpusim_list_del(&eq->run_node);
		do
			hpusim_engine_run(eq, NULL, &rn);
		while ((eq = hpusim_runner_take(&rn)));
	}
	pthread_mutex_unlock(&hpusim_sched.lock);
	return NULL;
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
