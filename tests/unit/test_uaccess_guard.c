// SPDX-License-Identifier: MIT
/*
 * test_uaccess_guard.c - the bound on client memory accesses without
 * FUSE: an access older than the timeout is abandoned (its request
 * answered through the callback, once), the thread that comes back gets
 * -EFAULT and sends no answer, a client thread with a stuck access is
 * refused at once, and accesses outside a request are not guarded; a
 * burst of honest accesses of one user beyond its cap waits for places
 * instead of being refused, while a user whose accesses are stuck is
 * refused at once.
 */
#include <errno.h>
#include <pthread.h>
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

/* Fake client ids of the burst tests (tasks name their process) */
#define BURST_ID  100000
#define BURST_UID 4242

/**
 * struct gate - holds the workers of a burst inside their access
 * @lock: protects @open and @inside
 * @cond: signalled when @open or @inside changes
 * @open: the workers may leave their access
 * @inside: workers that entered (or were refused)
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	int inside;
};

static struct gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			    false, 0 };

/**
 * struct burst - one worker of a burst: a task of client thread @id
 * (process @id too) of user @uid
 * @id: client thread and process
 * @uid: client user
 * @enter: hfd_uaccess_enter()
 * @exit: hfd_uaccess_exit() (when entered)
 */
struct burst {
	pid_t id;
	uid_t uid;
	int enter;
	int exit;
};

static void *burst_worker(void *arg)
{
	struct burst *b = arg;

	hfd_uaccess_begin_task(b->id, b->id, b->uid);
	b->enter = hfd_uaccess_enter();
	pthread_mutex_lock(&gate.lock);
	gate.inside++;
	pthread_cond_broadcast(&gate.cond);
	while (!gate.open && b->enter == 1)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
	if (b->enter == 1)
		b->exit = hfd_uaccess_exit();
	hfd_uaccess_end_request();
	return NULL;
}

static void gate_reset(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = false;
	gate.inside = 0;
	pthread_mutex_unlock(&gate.lock);
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

/* Wait (bounded) until @n workers are inside */
static void gate_wait_inside(int n)
{
	long t0 = now_ms();

	pthread_mutex_lock(&gate.lock);
	while (gate.inside < n && now_ms() - t0 < BOUND_MS) {
		pthread_mutex_unlock(&gate.lock);
		usleep(1000);
		pthread_mutex_lock(&gate.lock);
	}
	assert_int_equal(gate.inside, n);
	pthread_mutex_unlock(&gate.lock);
}

static void burst_start(pthread_t *t, struct burst *b, int first, int n,
			uid_t uid)
{
	pthread_attr_t attr;
	int i;

	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
	for (i = first; i < first + n; i++) {
		b[i].id = BURST_ID + i;
		b[i].uid = uid;
		assert_int_equal(
			pthread_create(&t[i], &attr, burst_worker, &b[i]), 0);
	}
	pthread_attr_destroy(&attr);
}

/* One access of another client (@uid, id @id): enter and exit at once */
static int other_access(pid_t id, uid_t uid)
{
	int ret;

	hfd_uaccess_begin_task(id, id, uid);
	ret = hfd_uaccess_enter();
	if (ret == 1)
		assert_int_equal(hfd_uaccess_exit(), 0);
	hfd_uaccess_end_request();
	return ret;
}

#define BURST_HOLD HFD_UACCESS_MAX_STUCK_UID
#define BURST_ALL  512

/*
 * 512 accesses of one user at once, the first 128 (its cap) held inside:
 * the other 384 wait for places (none refused), another user is served
 * meanwhile, and once the held ones end every access goes through.
 */
static void test_honest_burst_waits(void **state)
{
	static struct burst b[BURST_ALL];
	static pthread_t t[BURST_ALL];
	uint64_t now, ever0, ever, refused0, refused, wnow, wever0, wever;
	long t0;
	int i;

	(void)state;
	memset(b, 0, sizeof(b));
	gate_reset();
	hfd_uaccess_guard_stats(&now, &ever0, &refused0);
	hfd_uaccess_guard_waits(&wnow, &wever0);
	burst_start(t, b, 0, BURST_HOLD, BURST_UID);
	gate_wait_inside(BURST_HOLD);
	burst_start(t, b, BURST_HOLD, BURST_ALL - BURST_HOLD, BURST_UID);
	/* they wait (bounded by the 60 s timeout, beyond BOUND_MS) */
	t0 = now_ms();
	do {
		usleep(1000);
		hfd_uaccess_guard_waits(&wnow, &wever);
	} while (wnow < BURST_ALL - BURST_HOLD && now_ms() - t0 < BOUND_MS);
	assert_int_equal(wnow, BURST_ALL - BURST_HOLD);
	assert_int_equal(wever - wever0, BURST_ALL - BURST_HOLD);
	/* another user is not held up by them */
	assert_int_equal(other_access(BURST_ID + BURST_ALL, BURST_UID + 1), 1);
	gate_open();
	for (i = 0; i < BURST_ALL; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(b[i].enter, 1);
		assert_int_equal(b[i].exit, 0);
	}
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(refused == refused0 && now == 0 && ever == ever0);
	hfd_uaccess_guard_waits(&wnow, &wever);
	assert_int_equal(wnow, 0);
}

/*
 * A user with 128 accesses stuck (each of its own thread and process, so
 * that no thread or process cap applies): its next access, from a new
 * thread and process, is refused at once instead of waiting; another
 * user is served; the stuck ones report -EFAULT when they come back.
 */
static void test_stuck_user_capped(void **state)
{
	static struct burst b[BURST_HOLD + 1];
	static pthread_t t[BURST_HOLD + 1];
	uint64_t now, ever0, ever, refused0, refused, wnow, wever0, wever;
	long t0;
	int i;

	(void)state;
	memset(b, 0, sizeof(b));
	gate_reset();
	hfd_uaccess_guard_stats(&now, &ever0, &refused0);
	hfd_uaccess_guard_waits(&wnow, &wever0);
	burst_start(t, b, 0, BURST_HOLD, BURST_UID);
	gate_wait_inside(BURST_HOLD);
	t0 = now_ms();
	do {
		usleep(1000);
		hfd_uaccess_guard_stats(&now, &ever, &refused);
	} while (now < BURST_HOLD && now_ms() - t0 < BOUND_MS);
	assert_int_equal(now, BURST_HOLD);
	/* on a worker of its own: the test thread is no client thread */
	burst_start(t, b, BURST_HOLD, 1, BURST_UID);
	pthread_join(t[BURST_HOLD], NULL);
	assert_int_equal(b[BURST_HOLD].enter, -EFAULT);
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(refused == refused0 + 1);
	hfd_uaccess_guard_waits(&wnow, &wever);
	assert_true(wnow == 0 && wever == wever0);
	assert_int_equal(other_access(BURST_ID + BURST_ALL, BURST_UID + 1), 1);
	gate_open();
	for (i = 0; i < BURST_HOLD; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(b[i].enter, 1);
		assert_int_equal(b[i].exit, -EFAULT);
	}
	hfd_uaccess_guard_stats(&now, &ever, &refused);
	assert_true(now == 0 && ever == ever0 + BURST_HOLD);
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
		cmocka_unit_test_setup_teardown(test_honest_burst_waits,
						setup_long, teardown),
		cmocka_unit_test_setup_teardown(test_stuck_user_capped, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
