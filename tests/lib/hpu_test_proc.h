/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_proc.h - run a program and capture its output, bounded: the
 * one way the tests start a tool, an example or a helper command and
 * read what it printed (hpu_test_run() is the short form).
 *
 * A run is started, read while it runs as often as the test wants (to
 * wait for a line before acting), then finished: read to the end, killed
 * when it outlives its bound, reaped. stdout is always captured; stderr
 * is inherited, merged into the stdout capture or captured apart.
 */
#ifndef HPU_TEST_PROC_H
#define HPU_TEST_PROC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* what happens to the program's stderr */
enum hpu_test_stderr {
	HPU_TEST_STDERR_INHERIT, /* the test's own stderr */
	HPU_TEST_STDERR_MERGE,	 /* into @out, interleaved with stdout */
	HPU_TEST_STDERR_CAPTURE, /* into @err */
};

/**
 * struct hpu_test_proc_opts - how to start the program
 * @envp: its whole environment (NULL: the test's)
 * @stderr_mode: see enum hpu_test_stderr
 * @child_setup: run in the child before exec (NULL: nothing); a nonzero
 *	answer ends the child with that exit status
 * @arg: @child_setup's argument
 */
struct hpu_test_proc_opts {
	char *const *envp;
	enum hpu_test_stderr stderr_mode;
	int (*child_setup)(void *arg);
	void *arg;
};

/**
 * struct hpu_test_proc - one started program and what it printed so far
 * @pid: the child
 * @fd: read ends of the stdout and stderr pipes, -1 once at EOF or unused
 * @out: stdout (and stderr when merged), NUL-terminated, never NULL
 * @err: stderr when captured apart, NUL-terminated, never NULL
 * @out_len: bytes in @out
 * @err_len: bytes in @err
 * @status: after hpu_test_proc_finish(): the exit status, 128 + signal
 * @killed: it outlived its bound and was killed
 * @start_ms: hpu_test_now_ms() at the start
 * @ms: how long it ran, after hpu_test_proc_finish()
 *
 * A program that cannot be executed exits 127 after saying why on the
 * captured stderr.
 */
struct hpu_test_proc {
	pid_t pid;
	int fd[2];
	char *out;
	char *err;
	size_t out_len;
	size_t err_len;
	int status;
	bool killed;
	long start_ms;
	long ms;
};

/**
 * hpu_test_proc_start() - start @argv with its output piped back
 * @p: receives the run (zeroed first)
 * @argv: NULL-terminated, argv[0] a path
 * @o: options (NULL: defaults, stderr inherited)
 *
 * Return: 0 or -errno (nothing to finish then).
 */
int hpu_test_proc_start(struct hpu_test_proc *p, char *const argv[],
			const struct hpu_test_proc_opts *o);

/**
 * hpu_test_proc_read() - append what the program printed, waiting for
 * output at most @ms
 * @p: a started run
 * @ms: bound of the wait
 *
 * Return: false once every pipe is at EOF, true while output may come.
 */
bool hpu_test_proc_read(struct hpu_test_proc *p, int ms);

/**
 * hpu_test_proc_finish() - read to the end and reap, killing the program
 * when it still runs @timeout_ms from now
 * @p: a started run
 * @timeout_ms: bound
 *
 * What outlived the kill (a grandchild holding a pipe) gets 1 s more.
 *
 * Return: @p->status.
 */
int hpu_test_proc_finish(struct hpu_test_proc *p, int timeout_ms);

/**
 * hpu_test_proc_run() - start and finish in one go
 * @p: receives the run; hpu_test_proc_free() it
 * @argv: NULL-terminated, argv[0] a path
 * @o: options (NULL: defaults)
 * @timeout_ms: bound
 *
 * Return: 0 (the exit status is in @p->status) or -errno.
 */
int hpu_test_proc_run(struct hpu_test_proc *p, char *const argv[],
		      const struct hpu_test_proc_opts *o, int timeout_ms);

/**
 * hpu_test_proc_vrun() - hpu_test_proc_run() of @path with the arguments
 * of a variadic caller
 * @p: receives the run; hpu_test_proc_free() it
 * @path: the program
 * @o: options (NULL: defaults)
 * @timeout_ms: bound
 * @ap: up to 8 arguments (char *, more are not passed), NULL-terminated
 *
 * Return: as hpu_test_proc_run().
 */
int hpu_test_proc_vrun(struct hpu_test_proc *p, const char *path,
		       const struct hpu_test_proc_opts *o, int timeout_ms,
		       va_list ap);

/**
 * hpu_test_proc_free() - free the captured output
 * @p: a finished run
 */
void hpu_test_proc_free(struct hpu_test_proc *p);

#endif /* HPU_TEST_PROC_H */
