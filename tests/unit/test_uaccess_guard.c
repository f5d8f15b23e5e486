// SPDX-License-Identifier: MIT
/*
 * test_uaccess_guard.c - the bound on client memory accesses without
 * FUSE: an access older than the timeout is abandoned (its request
 * answered through the callback, once), the thread that comes back gets
 * -EFAULT and sends no answer, a client thread with a stuck access is
 * refused at once, and accesses outside a request are not guarded.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpu_fused.h"

#define TIMEOUT_MS 50
#define BOUND_MS   10000

static int abandoned_calls;
static void *abandoned_token;

static void on_abandon(void *token)
{
	__atomic_store_n(&abandoned_token, token, __ATOMIC_RELEASE);
	__atomic_add_fetch(&abandoned_calls, 1, __ATOMIC_ACQ_REL);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int setup(void **state)
{
	(void)state;
	abandoned_calls = 0;
	abandoned_token = NULL;
	return hfd_uaccess_guard_start(TIMEOUT_MS, on_abandon) ? -1 : 0;
}

/* A timeout no quick access reaches on a loaded machine */
static int setup_long(void **state)
{
	(void)state;
	abandoned_calls = 0;
	abandoned_token = NULL;
	return hfd_uaccess_guard_start(60000, on_abandon) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	hfd_uaccess_guard_stop();
	return 0;
}

/* Wait (bounded) until the watchdog answered @n requests */
static void wait_abandoned(int n)
{
	long t0 = now_ms();

	while (__atomic_load_n(&abandoned_calls, __ATOMIC_ACQUIRE) < n &&
	       now_ms() - t0 < BOUND_MS)
		usleep(1000);
	assert_int_equal(__atomic_load_n(&abandoned_calls, __ATOMIC_ACQUIRE),
			 n);
}

static void test_options_checked(void **state)
{
	(void)state;
	/* running already, and out of range */
	assert_int_equal(hfd_uaccess_guard_start(TIMEOUT_MS, on_abandon),
			 -EBUSY);
	hfd_uaccess_guard_stop();
	assert_int_equal(hfd_uaccess_guard_start(49, on_abandon), -EINVAL);
	assert_int_equal(hfd_uaccess_guard_start(60001, on_abandon), -EINVAL);
	assert_int_equal(hfd_uaccess_guard_start(TIMEOUT_MS, NULL), -EINVAL);
	assert_int_equal(hfd_uaccess_guard_start(TIMEOUT_MS, on_abandon), 0);
}

/* Outside a request nothing is guarded; inside, a quick access is fine */
static void test_quick_access(void **state)
{
	uint64_t src = 0x1122334455667788ULL, dst = 0, now, ever, refused;
	int token;

	(void)state;
	assert_int_equal(hfd_uaccess_enter(), 0);
	assert_false(hfd_uaccess_end_request());
	hfd_uaccess_begin_request(&token, gettid(), getuid());
	assert_int_equal(hfd_copy_from_user(getpid(), &dst, (uintptr_t)&src,
					    sizeof(src)),
			 0);
	assert_true(dst == src);
	assert_int_equal(hfd_copy_from_user(getpid(), &dst, 8, sizeof(src)),
			 -EFAULT);
	assert_false(hfd_uaccess_request_dead());
	assert_false(hfd_uaccess_end_request());
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(now == 0 && ever == 0);
	assert_int_equal(abandoned_calls, 0);
}

/*
 * An access that outlives the timeout: answered once by the watchdog; the
 * thread that comes back gets -EFAULT, its request is dead (no more
 * accesses, no answer of its own); while it was stuck, another request of
 * the same client thread was refused at once.
 */
static void test_abandoned_access(void **state)
{
	uint64_t now, ever, refused, v = 1, dst;
	pid_t client = gettid();
	int token, other;

	(void)state;
	hfd_uaccess_begin_request(&token, client, getuid());
	assert_int_equal(hfd_uaccess_enter(), 1);
	/* "stuck" in the client's memory */
	wait_abandoned(1);
	assert_ptr_equal(abandoned_token, &token);
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(now == 1 && ever == 1);

	/* the thread comes back: a fault, whatever the access did */
	assert_int_equal(hfd_uaccess_exit(), -EFAULT);
	assert_true(hfd_uaccess_request_dead());
	assert_int_equal(hfd_uaccess_enter(), -EFAULT);
	assert_int_equal(hfd_copy_from_user(getpid(), &dst, (uintptr_t)&v,
					    sizeof(v)),
			 -EFAULT);
	assert_true(hfd_uaccess_end_request());
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(now == 0 && ever == 1);
	/* answered once only */
	usleep(4 * TIMEOUT_MS * 1000);
	assert_int_equal(abandoned_calls, 1);

	/* a new request of the thread works again */
	hfd_uaccess_guard_stop();
	assert_int_equal(hfd_uaccess_guard_start(60000, on_abandon), 0);
	hfd_uaccess_begin_request(&other, client, getuid());
	assert_int_equal(hfd_copy_from_user(getpid(), &dst, (uintptr_t)&v,
					    sizeof(v)),
			 0);
	assert_false(hfd_uaccess_end_request());
}

/**
 * struct second - a second worker serving the same client thread
 * @client: the client thread
 * @ret: hfd_uaccess_enter() there
 */
struct second {
	pid_t client;
	int ret;
};

static void *second_worker(void *arg)
{
	struct second *s = arg;
	int token;

	hfd_uaccess_begin_request(&token, s->client, getuid());
	s->ret = hfd_uaccess_enter();
	if (s->ret == 1)
		hfd_uaccess_exit();
	hfd_uaccess_end_request();
	return NULL;
}

/* While a client thread has a stuck access, its next one is refused */
static void test_thread_cap(void **state)
{
	struct second s = { .client = gettid() };
	uint64_t now, ever, refused0, refused;
	pthread_t t;
	int token;

	(void)state;
	hfd_uaccess_guard_stats(&now, &ever, &refused0);
	hfd_uaccess_begin_request(&token, s.client, getuid());
	assert_int_equal(hfd_uaccess_enter(), 1);
	wait_abandoned(1);
	assert_int_equal(pthread_create(&t, NULL, second_worker, &s), 0);
	pthread_join(t, NULL);
	assert_int_equal(s.ret, -EFAULT);
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(refused == refused0 + 1);
	assert_int_equal(hfd_uaccess_exit(), -EFAULT);
	assert_true(hfd_uaccess_end_request());
	/* nothing stuck any more: the client thread is served again */
	hfd_uaccess_guard_stop();
	assert_int_equal(hfd_uaccess_guard_start(60000, on_abandon), 0);
	s.ret = 0;
	assert_int_equal(pthread_create(&t, NULL, second_worker, &s), 0);
	pthread_join(t, NULL);
	assert_int_equal(s.ret, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_options_checked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_quick_access, setup_long,
						teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_access, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_thread_cap, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
