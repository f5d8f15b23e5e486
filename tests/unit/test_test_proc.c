// SPDX-License-Identifier: MIT
/*
 * test_test_proc.c - the shared "run a program and capture its output"
 * helper of tests/lib (hpu_test_proc.h), on /bin/sh: stdout and stderr
 * apart or merged, the exit status and a signal's, a program that cannot
 * be executed (127, said on stderr), the environment and the child setup
 * hook, output read while the program runs, and the bound (a program
 * that outlives it is killed, also when a grandchild holds the pipe).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"

#define SH "/bin/sh"

static int sh(struct hpu_test_proc *p, const char *script,
	      const struct hpu_test_proc_opts *o, int timeout_ms)
{
	char *argv[] = { SH, "-c", (char *)script, NULL };

	return hpu_test_proc_run(p, argv, o, timeout_ms);
}

static void test_stdout_and_stderr_apart(void **state)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_CAPTURE,
	};
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(sh(&p, "echo out; echo err >&2; exit 3", &o, 10000),
			 0);
	assert_int_equal(p.status, 3);
	assert_false(p.killed);
	assert_string_equal(p.out, "out\n");
	assert_string_equal(p.err, "err\n");
	assert_int_equal(p.out_len, 4);
	hpu_test_proc_free(&p);
}

static void test_merged(void **state)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_MERGE,
	};
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(sh(&p, "echo a; echo b >&2; echo c", &o, 10000), 0);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "a\nb\nc\n");
	assert_string_equal(p.err, "");
	hpu_test_proc_free(&p);
}

static void test_signal_status(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(sh(&p, "kill -TERM $$", NULL, 10000), 0);
	assert_int_equal(p.status, 128 + SIGTERM);
	assert_false(p.killed);
	hpu_test_proc_free(&p);
}

static void test_cannot_exec(void **state)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_CAPTURE,
	};
	char *argv[] = { "/nonexistent/hpu-no-such-program", NULL };
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(hpu_test_proc_run(&p, argv, &o, 10000), 0);
	assert_int_equal(p.status, 127);
	assert_non_null(strstr(p.err, "exec /nonexistent/hpu-no-such-program"));
	hpu_test_proc_free(&p);
}

static int setup_hook(void *arg)
{
	return setenv("HPU_TEST_PROC_HOOK", arg, 1) ? 99 : 0;
}

static int refusing_hook(void *arg)
{
	(void)arg;
	return 42;
}

static void test_env_and_hook(void **state)
{
	char *envp[] = { "HPU_TEST_PROC_ENV=given", NULL };
	struct hpu_test_proc_opts o = { .envp = envp };
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(
		sh(&p, "echo \"[$HPU_TEST_PROC_ENV][$HOME]\"", &o, 10000), 0);
	assert_string_equal(p.out, "[given][]\n");
	hpu_test_proc_free(&p);

	o.envp = NULL;
	o.child_setup = setup_hook;
	o.arg = "hooked";
	assert_int_equal(sh(&p, "echo $HPU_TEST_PROC_HOOK", &o, 10000), 0);
	assert_string_equal(p.out, "hooked\n");
	hpu_test_proc_free(&p);

	o.child_setup = refusing_hook;
	assert_int_equal(sh(&p, "echo ran", &o, 10000), 0);
	assert_int_equal(p.status, 42);
	assert_string_equal(p.out, "");
	hpu_test_proc_free(&p);
}

/* a line read while the program still runs, then the kill by the bound */
static void test_read_while_running_then_bound(void **state)
{
	char *argv[] = { SH, "-c", "echo ready; exec sleep 600", NULL };
	struct hpu_test_proc p;
	long end;

	(void)state;
	assert_int_equal(hpu_test_proc_start(&p, argv, NULL), 0);
	end = hpu_test_now_ms() + 30000;
	while (hpu_test_now_ms() < end && !strstr(p.out, "ready") &&
	       hpu_test_proc_read(&p, 50))
		;
	assert_string_equal(p.out, "ready\n");
	assert_int_equal(hpu_test_proc_finish(&p, 200), 128 + SIGKILL);
	assert_true(p.killed);
	hpu_test_proc_free(&p);
}

/* a grandchild holding the pipe: the run still ends, bounded */
static void test_grandchild_holds_pipe(void **state)
{
	struct hpu_test_proc p;

	(void)state;
	assert_int_equal(sh(&p, "sleep 3 & echo started", NULL, 300), 0);
	assert_string_equal(p.out, "started\n");
	assert_true(p.killed); /* the pipe stayed open: bounded by the kill */
	assert_true(p.ms < 60000);
	hpu_test_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdout_and_stderr_apart),
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_signal_status),
		cmocka_unit_test(test_cannot_exec),
		cmocka_unit_test(test_env_and_hook),
		cmocka_unit_test(test_read_while_running_then_bound),
		cmocka_unit_test(test_grandchild_holds_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
