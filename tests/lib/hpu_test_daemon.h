/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_daemon.h - run the real hpu-fused on a temporary mount for
 * integration tests.
 */
#ifndef HPU_TEST_DAEMON_H
#define HPU_TEST_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/**
 * struct hpu_test_daemon - one running hpu-fused
 * @pid: daemon process (foreground mode, child of the test)
 * @ndev: devices it serves
 * @mount: its temporary mount point (also exported as HPU_DEV_DIR)
 * @log: file the daemon's stderr goes to
 */
struct hpu_test_daemon {
	pid_t pid;
	int ndev;
	char mount[PATH_MAX];
	char log[PATH_MAX];
};

/**
 * hpu_test_have_fuse() - whether FUSE mounts can work here
 *
 * Return: NULL when they can, else a reason to print with skip().
 */
const char *hpu_test_have_fuse(void);

/**
 * hpu_test_bin() - path of a built program, e.g. "hpu-fused"
 * @name: program name
 *
 * Programs live in $O/bin ($O defaults to "build"). Returns a static
 * buffer.
 */
const char *hpu_test_bin(const char *name);

/**
 * hpu_test_daemon_start() - start hpu-fused and wait until its nodes exist
 * @d: daemon to fill in
 * @ndev: --devices
 * @type: --type ("gaudi", "gaudi2", "gaudi3")
 * @extra: NULL-terminated extra arguments, or NULL
 *
 * Mounts in a fresh directory under /tmp, sets HPU_DEV_DIR to it, and
 * waits (at most 10 s) until hpu<ndev-1> can be opened.
 *
 * Return: 0 or -errno (the daemon's log is printed on failure).
 */
int hpu_test_daemon_start(struct hpu_test_daemon *d, int ndev, const char *type,
			  const char *const *extra);

/**
 * hpu_test_daemon_stop() - SIGTERM the daemon, reap it, check the mount
 * is gone, remove the directory
 * @d: daemon
 *
 * Return: 0 when the daemon exited with status 0 and left no mount,
 * -errno otherwise.
 */
int hpu_test_daemon_stop(struct hpu_test_daemon *d);

/**
 * hpu_test_is_mounted() - whether @dir is a mount point in this namespace
 * @dir: absolute path
 */
bool hpu_test_is_mounted(const char *dir);

/**
 * hpu_test_run() - run a command, capture its stdout
 * @argv: NULL-terminated argument vector, argv[0] a path
 * @out: receives a malloc'ed NUL-terminated copy of stdout (may be NULL)
 * @status: receives the exit status (or 128 + signal)
 *
 * Bounded: the command is killed after 30 s.
 *
 * Return: 0 or -errno when the command could not be run.
 */
int hpu_test_run(char *const argv[], char **out, int *status);

#endif /* HPU_TEST_DAEMON_H */
