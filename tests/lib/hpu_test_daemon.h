/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_daemon.h - run the real hpu-fused on a temporary mount for
 * integration tests.
 */
#ifndef HPU_TEST_DAEMON_H
#define HPU_TEST_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
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
 * hpu_test_daemon_spawn() - start hpu-fused with exactly @args on @dir and
 * wait until hpu<ndev-1> opens
 * @d: daemon to fill in
 * @dir: existing mount directory
 * @ndev: devices the daemon is expected to serve
 * @args: NULL-terminated arguments after the program name
 *
 * Return: 0 or -errno (-ECHILD when the daemon exited, -ETIMEDOUT).
 */
int hpu_test_daemon_spawn(struct hpu_test_daemon *d, const char *dir, int ndev,
			  const char *const *args);

/**
 * hpu_test_daemon_stop() - SIGTERM the daemon, reap it, check the mount
 * is gone, remove the directory
 * @d: daemon
 *
 * Return: 0 when the daemon exited with status 0, left no mount and
 * logged no HPU_WARN_ON() report; -errno otherwise (-EPROTO for a
 * warning), after printing the daemon's log.
 */
int hpu_test_daemon_stop(struct hpu_test_daemon *d);

/**
 * hpu_test_daemon_log_count() - how many lines of the daemon's log hold
 * @needle
 * @d: daemon (its log is kept until hpu_test_daemon_stop())
 * @needle: what a line must contain
 * @last: receives the last such line, newline kept; NULL: not kept
 * @len: size of @last
 *
 * Return: the count, or -errno when the log cannot be read.
 */
int hpu_test_daemon_log_count(const struct hpu_test_daemon *d,
			      const char *needle, char *last, size_t len);

/**
 * hpu_test_is_mounted() - whether @dir is a mount point in this namespace
 * @dir: absolute path
 */
bool hpu_test_is_mounted(const char *dir);

/**
 * hpu_test_run() - run a command, capture its stdout (stderr inherited);
 * the short form of hpu_test_proc_run() (hpu_test_proc.h)
 * @argv: NULL-terminated argument vector, argv[0] a path
 * @out: receives a malloc'ed NUL-terminated copy of stdout (may be NULL)
 * @status: receives the exit status (or 128 + signal)
 *
 * Bounded: the command is killed after 30 s.
 *
 * Return: 0 or -errno when the command could not be run.
 */
int hpu_test_run(char *const argv[], char **out, int *status);

/**
 * hpu_test_run_refused() - run a command line that must be refused as a
 * usage error: hpu_test_run() it, and fail the test (the command line and
 * its exit status printed) unless it ran and exited with status 2, the
 * usage error of every program of the project
 * @argv: NULL-terminated argument vector, argv[0] a path
 * @out: receives its stdout as hpu_test_run() gives it, for the caller's
 *	checks (free() it); NULL: not kept
 */
void hpu_test_run_refused(char *const argv[], char **out);

/**
 * hpu_test_hold_open() - fork a child that opens @path and sleeps
 * @path: device node to hold
 *
 * Return: the child's pid once it holds the file open, or -errno (the
 * child is reaped when it could not open @path).
 */
pid_t hpu_test_hold_open(const char *path);

/**
 * hpu_test_open_node() - open node @name<@index> of a daemon's mount
 * @mount: the daemon's mount point (struct hpu_test_daemon.mount)
 * @name: "hpu" (compute) or "hpu_control"
 * @index: device index
 *
 * Opened O_RDWR | O_CLOEXEC; nothing is asserted (children may call it).
 *
 * Return: the fd, or -errno.
 */
int hpu_test_open_node(const char *mount, const char *name, int index);

/**
 * hpu_test_open_dev() - open compute node hpu<@index> of hpu_test_shared
 * in a cmocka test, which fails when it cannot be opened
 * @index: device index
 *
 * Return: the fd (a new context).
 */
int hpu_test_open_dev(int index);

/** hpu_test_sleep_ms() - sleep @ms milliseconds */
void hpu_test_sleep_ms(int ms);

/** hpu_test_shared - the daemon a test group shares */
extern struct hpu_test_daemon hpu_test_shared;

/**
 * hpu_test_group_start() - start hpu_test_shared for a cmocka group
 * @ndev: --devices
 * @type: --type
 *
 * When FUSE is unusable nothing is started and hpu_test_need_daemon()
 * skips every test with the reason.
 *
 * Return: 0, or -1 (cmocka's group failure) when the daemon did not start.
 */
int hpu_test_group_start(int ndev, const char *type);

/**
 * hpu_test_group_start_args() - hpu_test_group_start() with extra daemon
 * arguments
 * @ndev: --devices
 * @type: --type
 * @extra: NULL-terminated extra arguments, or NULL
 *
 * Return: as hpu_test_group_start().
 */
int hpu_test_group_start_args(int ndev, const char *type,
			      const char *const *extra);

/**
 * hpu_test_group_start_cs() - hpu_test_group_start(), then
 * hpu_test_require_cs(): the group setup of the tests that submit CSs
 * @ndev: --devices
 * @type: --type
 *
 * Return: 0, or -1 (cmocka's group failure) when the daemon did not start
 * or lacks MEMORY/CB/CS.
 */
int hpu_test_group_start_cs(int ndev, const char *type);

struct hpu_device_info;

/**
 * hpu_test_group_start_infos() - hpu_test_group_start(), then every
 * device's hpu_device_get_info() (nothing is read without FUSE: the tests
 * skip)
 * @ndev: --devices
 * @type: --type
 * @infos: receives @ndev devices' info
 *
 * Return: 0, or -1 (cmocka's group failure) when the daemon did not start
 * or a device's info could not be read.
 */
int hpu_test_group_start_infos(int ndev, const char *type,
			       struct hpu_device_info *infos);

/** hpu_test_group_stop() - cmocka group teardown stopping hpu_test_shared */
int hpu_test_group_stop(void **state);

/** hpu_test_need_daemon() - cmocka setup: skip, with the reason, without FUSE */
int hpu_test_need_daemon(void **state);

/**
 * hpu_test_require_cs() - cmocka group setup helper: the daemon of this
 * tree implements MEMORY, CB and CS, so one that does not say so fails
 * the group (never a silent skip)
 *
 * Return: 0, or -1 with the reason on stderr. Without a daemon (no FUSE)
 * 0: hpu_test_need_daemon() skips with the reason.
 */
int hpu_test_require_cs(void);

#endif /* HPU_TEST_DAEMON_H */
