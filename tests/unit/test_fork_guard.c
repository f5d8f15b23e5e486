// SPDX-License-Identifier: MIT
/*
 * test_fork_guard.c - hpu_test_fork_child() forks only a single-threaded
 * process: a child of a process with other threads inherits their locks
 * held (ASan's allocator lock hung 8-rank suites that way).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_util.h"

/* Keeps a second thread alive until the pipe closes */
static void *idle_thread(void *arg)
{
	char c;

	while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void test_single_thread_forks(void **state)
{
	int status = -1;
	pid_t pid;

	(void)state;
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(7);
	assert_int_equal(hpu_test_wait_child(pid, 30000, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
}

static void test_threaded_refused(void **state)
{
	int p[2], status = -1;
	pthread_t t;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pthread_create(&t, NULL, idle_thread, &p[0]), 0);
	pid = hpu_test_fork_child();
	if (pid == 0)
		_exit(0); /* the guard failed: the parent reports it */
	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
	if (pid > 0)
		hpu_test_wait_child(pid, 30000, &status);
	assert_int_equal(pid, -EDEADLK);

	/* one thread again: forking works again */
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(hpu_test_wait_child(pid, 30000, &status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_thread_forks),
		cmocka_unit_test(test_threaded_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
