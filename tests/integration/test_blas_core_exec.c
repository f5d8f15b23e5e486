// SPDX-License-Identifier: MIT
/*
 * test_blas_core_exec.c - hpu-fused's OpenBLAS core through a real daemon
 * (docs/building.md, "OpenBLAS's core"): from a clean environment the
 * daemon runs what `hpu-fused --blas-coretype` prints, by running itself
 * again exactly once (same pid and name, both variables in its
 * environment, one log line); the user's OPENBLAS_CORETYPE, HPU_BLAS_CORETYPE=keep and the
 * re-exec marker alone keep the core the library started with;
 * driver/blas_core and hpu-train --print-env name the same core.
 *
 * This binary calls no BLAS itself, so the test helpers pin nothing
 * (tests/lib/hpu_test_blas.h); each case sets the three variables as it
 * needs them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_blas_core.h"
#include "hpudrv.h"
#include "../lib/hpu_test_blas.h"
#include "../lib/hpu_test_daemon.h"

/* What --blas-coretype printed with a clean environment ("" for none) */
static char want_core[64];

static void clean_env(void)
{
	unsetenv(HPU_BLAS_CORE_OPENBLAS_ENV);
	unsetenv(HPU_BLAS_CORE_FROM_ENV);
	unsetenv(HPU_BLAS_CORE_ENV);
}

static int group_setup(void **state)
{
	char *argv[] = { (char *)hpu_test_bin("hpu-fused"), "--blas-coretype",
			 NULL };
	char *out = NULL;
	int status = -1;

	/* whatever the helpers would pin, it is decided now, before the cases */
	hpu_test_blas_pin();
	clean_env();
	if (hpu_test_run(argv, &out, &status) || status != 0 || !out) {
		fprintf(stderr,
			"hpu-fused --blas-coretype failed (status %d)\n",
			status);
		free(out);
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	snprintf(want_core, sizeof(want_core), "%s", out);
	free(out);
	print_message("hpu-fused --blas-coretype: '%s'\n", want_core);
	return 0;
}

static void need_fuse(void)
{
	const char *why = hpu_test_have_fuse();

	if (why) {
		print_message("skipped: %s\n", why);
		skip();
	}
}

/* NAME=value of /proc/PID/environ (the environment of its last exec) */
static bool proc_env(pid_t pid, const char *name, char *val, size_t len)
{
	char path[64], buf[65536];
	size_t nlen = strlen(name);
	ssize_t n;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strncmp(p, name, nlen) && p[nlen] == '=') {
			snprintf(val, len, "%s", p + nlen + 1);
			return true;
		}
	return false;
}

/* The first line of /proc/PID/@name, without its newline */
static bool proc_file(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static const char *const info_args[] = { "--log-level", "info", NULL };

/* Start a daemon in the current environment; its MME line in @line */
static void start(struct hpu_test_daemon *d, char *core, size_t len, char *line,
		  size_t llen)
{
	assert_int_equal(hpu_test_daemon_start(d, 1, "gaudi2", info_args), 0);
	/* driver/blas_core of the daemon just started (its HPU_DEV_DIR) */
	assert_int_equal(hpu_driver_read_attr("blas_core", core, len), 0);
	/* the line comes before the session serves: once, from one exec */
	assert_int_equal(hpu_test_daemon_log_count(d, "MME: OpenBLAS core",
						   line, llen),
			 1);
	print_message("%s: %s", core, line);
}

/* The core the library picks by itself, from a daemon told to keep it */
static void keep_core(char *core, size_t len)
{
	struct hpu_test_daemon d;
	char line[1024], val[64];

	clean_env();
	setenv(HPU_BLAS_CORE_ENV, "keep", 1);
	start(&d, core, len, line, sizeof(line));
	assert_false(
		proc_env(d.pid, HPU_BLAS_CORE_OPENBLAS_ENV, val, sizeof(val)));
	assert_non_null(strstr(line, "HPU_BLAS_CORETYPE=keep"));
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	clean_env();
}

static void test_daemon_runs_the_choice(void **state)
{
	struct hpu_test_daemon d;
	char core[64], line[1024], val[64], own[64];

	need_fuse();
	keep_core(own, sizeof(own));
	start(&d, core, sizeof(core), line, sizeof(line));
	if (want_core[0]) {
		/* ran again: the same pid, with both variables */
		assert_string_equal(core, want_core);
		assert_true(proc_env(d.pid, HPU_BLAS_CORE_OPENBLAS_ENV, val,
				     sizeof(val)));
		assert_string_equal(val, want_core);
		assert_true(proc_env(d.pid, HPU_BLAS_CORE_FROM_ENV, val,
				     sizeof(val)));
		assert_string_equal(val, own);
		assert_non_null(strstr(line, "chosen by hpu"));
		assert_string_not_equal(own, want_core);
		/* and kept its name (ps, pgrep, systemd) */
		assert_true(proc_file(d.pid, "comm", val, sizeof(val)));
		assert_string_equal(val, "hpu-fused");
	} else {
		/* OpenBLAS's choice is right here: no re-exec */
		assert_string_equal(core, own);
		assert_false(proc_env(d.pid, HPU_BLAS_CORE_OPENBLAS_ENV, val,
				      sizeof(val)));
		assert_null(strstr(line, "chosen by hpu"));
	}
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
}

/* The user's OPENBLAS_CORETYPE is what runs, and the daemon says so */
static void test_user_coretype_kept(void **state)
{
	struct hpu_test_daemon d;
	char core[64], line[1024], val[64];

	need_fuse();
	clean_env();
	/* SSE3: a core every x86-64 CPU runs */
	setenv(HPU_BLAS_CORE_OPENBLAS_ENV, "Prescott", 1);
	start(&d, core, sizeof(core), line, sizeof(line));
	assert_string_equal(core, "Prescott");
	assert_non_null(strstr(line, "from OPENBLAS_CORETYPE=Prescott"));
	assert_false(proc_env(d.pid, HPU_BLAS_CORE_FROM_ENV, val, sizeof(val)));
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	clean_env();
}

/* The marker without OPENBLAS_CORETYPE never starts a (second) re-exec */
static void test_marker_alone_no_loop(void **state)
{
	struct hpu_test_daemon d;
	char core[64], own[64], line[1024], val[64];

	need_fuse();
	keep_core(own, sizeof(own));
	setenv(HPU_BLAS_CORE_FROM_ENV, own, 1);
	start(&d, core, sizeof(core), line, sizeof(line));
	assert_string_equal(core, own);
	assert_false(
		proc_env(d.pid, HPU_BLAS_CORE_OPENBLAS_ENV, val, sizeof(val)));
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	clean_env();
}

/* hpu-train (the cpu path) computes on the daemon's core */
static void test_train_agrees_with_daemon(void **state)
{
	char train[PATH_MAX];
	char *argv[] = { train, "--print-env", "--accelerator", "cpu", NULL };
	struct hpu_test_daemon d;
	char core[64], line[1024], want[96];
	char *out = NULL;
	int status = -1;

	need_fuse();
	/* hpu_test_bin()'s buffer is the daemon's next */
	snprintf(train, sizeof(train), "%s", hpu_test_bin("hpu-train"));
	clean_env();
	start(&d, core, sizeof(core), line, sizeof(line));
	assert_int_equal(hpu_test_run(argv, &out, &status), 0);
	assert_int_equal(status, 0);
	assert_non_null(out);
	snprintf(want, sizeof(want), "\nblas_core=%s\n", core);
	if (!strstr(out, want))
		fail_msg("hpu-train --print-env lacks 'blas_core=%s':\n%s",
			 core, out);
	free(out);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_runs_the_choice),
		cmocka_unit_test(test_user_coretype_kept),
		cmocka_unit_test(test_marker_alone_no_loop),
		cmocka_unit_test(test_train_agrees_with_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
