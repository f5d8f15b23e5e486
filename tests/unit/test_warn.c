// SPDX-License-Identifier: MIT
/*
 * test_warn.c - HPU_WARN_ON() and the lock-held checks (common/hpu_warn.h):
 * the macro is its condition, reports once per call site and counts every
 * hit; a mutex or write-held rwlock is held exactly when this thread holds
 * it; and the model's lock assertions fire when a function that needs the
 * scheduler lock is called without it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpu_warn.h"
#include "hpusim.h"
#include "queue.h"

static unsigned int reports;
static char last[256];

static void sink(const char *msg)
{
	reports++;
	snprintf(last, sizeof(last), "%s", msg);
}

static int setup(void **state)
{
	reports = 0;
	last[0] = 0;
	hpu_warn_set_sink(sink);
	return 0;
}

static int teardown(void **state)
{
	hpu_warn_set_sink(NULL);
	return 0;
}

/* one call site, hit as often as asked */
static bool site_a(int v)
{
	return HPU_WARN_ON(v > 1);
}

static void test_warn_on_is_the_condition(void **state)
{
	unsigned long hits = hpu_warn_count();

	assert_false(HPU_WARN_ON(0));
	assert_false(site_a(1));
	assert_int_equal(hpu_warn_count(), hits);
	assert_int_equal(reports, 0);

	assert_true(site_a(2));
	assert_true(site_a(3));
	assert_true(site_a(4));
	/* every hit counted, the site reported once, with where and what */
	assert_int_equal(hpu_warn_count(), hits + 3);
	assert_int_equal(reports, 1);
	assert_non_null(strstr(last, "WARN_ON(v > 1)"));
	assert_non_null(strstr(last, "test_warn.c:"));
	assert_non_null(strstr(last, "site_a()"));

	/* another site reports on its own */
	assert_true(HPU_WARN_ON(hits + 1 > hits));
	assert_int_equal(reports, 2);
}

/* @m held by another thread while the test looks */
struct holder {
	pthread_mutex_t *m;
	pthread_barrier_t locked;
	pthread_barrier_t looked;
};

/*
 * Holds the mutex until the test has looked, then unlocks it: a mutex
 * left locked by a thread that ended cannot be destroyed, and
 * ThreadSanitizer would take the next lock at its address (the stack of
 * the next test) for it, still held.
 */
static void *hold_then_wait(void *arg)
{
	struct holder *h = arg;

	pthread_mutex_lock(h->m);
	pthread_barrier_wait(&h->locked);
	pthread_barrier_wait(&h->looked);
	pthread_mutex_unlock(h->m);
	return NULL;
}

static void test_mutex_held(void **state)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .m = &m };
	pthread_t t;

	assert_false(hpu_mutex_held(&m));
	pthread_mutex_lock(&m);
	assert_true(hpu_mutex_held(&m));
	pthread_mutex_unlock(&m);
	assert_false(hpu_mutex_held(&m));

#ifdef __GLIBC__
	/* held by another thread is not held by this one */
	assert_int_equal(pthread_barrier_init(&h.locked, NULL, 2), 0);
	assert_int_equal(pthread_barrier_init(&h.looked, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, hold_then_wait, &h), 0);
	pthread_barrier_wait(&h.locked);
	assert_false(hpu_mutex_held(&m));
	pthread_barrier_wait(&h.looked);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&h.locked);
	pthread_barrier_destroy(&h.looked);
#else
	(void)t;
	(void)h;
#endif
	pthread_mutex_destroy(&m);
}

static void test_rwlock_held(void **state)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

	assert_false(hpu_rwlock_held(&l));
	assert_false(hpu_rwlock_write_held(&l));
	pthread_rwlock_rdlock(&l);
	assert_true(hpu_rwlock_held(&l));
	assert_false(hpu_rwlock_write_held(&l));
	pthread_rwlock_unlock(&l);
	pthread_rwlock_wrlock(&l);
	assert_true(hpu_rwlock_held(&l));
	assert_true(hpu_rwlock_write_held(&l));
	pthread_rwlock_unlock(&l);
	assert_false(hpu_rwlock_held(&l));
	pthread_rwlock_destroy(&l);
}

/* A forked child is another thread: it holds nothing the parent held */
static void test_held_after_fork(void **state)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int status;
	pid_t pid;

	(void)hpu_self_tid(); /* cached in the parent */
	pthread_mutex_lock(&m);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(hpu_mutex_held(&m) || hpu_self_tid() != gettid() ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(hpu_mutex_held(&m));
	pthread_mutex_unlock(&m);
}

/*
 * The model's assertions are wired: hpusim_runner_take() (sched lock held,
 * queue.c) with an empty runner changes nothing, and WARNs exactly when
 * the lock is not held.
 */
static void test_model_asserts_sched_lock(void **state)
{
	struct hpusim_runner rn = { 0 };
	unsigned long hits = hpu_warn_count();

	pthread_mutex_lock(&hpusim_sched.lock);
	assert_null(hpusim_runner_take(&rn));
	pthread_mutex_unlock(&hpusim_sched.lock);
	assert_int_equal(hpu_warn_count(), hits);

	assert_null(hpusim_runner_take(&rn));
#ifndef NDEBUG
	assert_int_equal(hpu_warn_count(), hits + 1);
	assert_non_null(strstr(last, "hpusim_runner_take()"));
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_warn_on_is_the_condition,
						setup, teardown),
		cmocka_unit_test(test_mutex_held),
		cmocka_unit_test(test_rwlock_held),
		cmocka_unit_test(test_held_after_fork),
		cmocka_unit_test_setup_teardown(test_model_asserts_sched_lock,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
