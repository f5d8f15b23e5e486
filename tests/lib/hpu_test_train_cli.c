// SPDX-License-Identifier: MIT
/*
 * hpu_test_train_cli.c - running hpu-train in the hpu-train tests
 * (hpu_test_train_cli.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_blas.h"
#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_netns.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "hpu_test_train_cli.h"

#define LOSS_ABS_TOL 2e-4
#define LOSS_REL_TOL 2e-3

extern char **environ;

/* variables of a cluster environment: never inherited by a run */
static const char *const cluster_vars[] = {
	"RANK",
	"LOCAL_RANK",
	"WORLD_SIZE",
	"LOCAL_WORLD_SIZE",
	"GROUP_RANK",
	"NODE_RANK",
	"MASTER_ADDR",
	"MASTER_PORT",
	"SLURM_",
	"OMPI_",
	"HPU_TRAIN_",
	"HPU_VISIBLE_DEVICES",
	"HABANA_VISIBLE_",
	NULL,
};

static bool is_cluster_var(const char *entry)
{
	const char *const *v;

	for (v = cluster_vars; *v; v++) {
		size_t l = strlen(*v);

		if (!strncmp(entry, *v, l) &&
		    ((*v)[l - 1] == '_' || entry[l] == '='))
			return true;
	}
	return false;
}

/* whether @entry sets a variable that one of @add sets too */
static bool overridden(const char *entry, const char *const *add)
{
	size_t l = strcspn(entry, "=");

	for (; add && *add; add++)
		if (!strncmp(entry, *add, l + 1))
			return true;
	return false;
}

/* the test's environment without cluster variables, plus @add */
char **hpu_test_train_env(const char *const *add)
{
	size_t n = 0, k = 0, i;
	char **env;

	hpu_test_blas_pin();
	while (environ[n])
		n++;
	for (i = 0; add && add[i]; i++)
		;
	env = calloc(n + i + 1, sizeof(*env));
	assert_non_null(env);
	for (i = 0; i < n; i++)
		if (!is_cluster_var(environ[i]) && !overridden(environ[i], add))
			env[k++] = environ[i];
	for (i = 0; add && add[i]; i++)
		env[k++] = (char *)add[i];
	return env;
}

/* hpu-train's argv: the program then @args */
char **hpu_test_train_argv(const char *const *args)
{
	size_t n = 0, i;
	char **argv;

	while (args[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	assert_non_null(argv);
	argv[0] = (char *)hpu_test_bin("hpu-train");
	for (i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	return argv;
}

/* run hpu-train @args with @env added; both outputs captured, bounded */
void hpu_test_train_run(const char *const *args, const char *const *env,
			int timeout_ms, struct hpu_test_train_run *r)
{
	char **argv = hpu_test_train_argv(args),
	     **envp = hpu_test_train_env(env);
	const struct hpu_test_proc_opts o = {
		.envp = envp,
		.stderr_mode = HPU_TEST_STDERR_CAPTURE,
	};
	struct hpu_test_proc p;

	memset(r, 0, sizeof(*r));
	assert_int_equal(hpu_test_proc_run(&p, argv, &o, timeout_ms), 0);
	r->out = p.out;
	r->err = p.err;
	r->ms = p.ms;
	r->status = p.killed ? -1 : p.status;
	free(argv);
	free(envp);
}

void hpu_test_train_run_free(struct hpu_test_train_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

void hpu_test_train_dump(const char *what, const struct hpu_test_train_run *r)
{
	print_message("%s: status %d after %ld ms\n--- stdout\n%s--- stderr\n"
		      "%s---\n",
		      what, r->status, r->ms, r->out, r->err);
}

void hpu_test_train_run_ok(const char *what, const char *const *args,
			   const char *const *env, int timeout_ms,
			   struct hpu_test_train_run *r)
{
	hpu_test_train_run(args, env, timeout_ms, r);
	if (r->status)
		hpu_test_train_dump(what, r);
	assert_int_equal(r->status, 0);
}

/* the value of "key=value" in --print-env output (static buffer) */
const char *hpu_test_train_kv(const char *out, const char *key)
{
	static char val[256];
	size_t kl = strlen(key);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "\n");

			if (n >= sizeof(val))
				n = sizeof(val) - 1;
			memcpy(val, p + kl + 1, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return "(missing)";
}

/* a number after @label in @out, NAN when absent */
double hpu_test_train_number(const char *out, const char *label)
{
	const char *p = strstr(out, label);

	return p ? strtod(p + strlen(label), NULL) : NAN;
}

/*
 * Case @i: hpu-train @args with @env must exit 2 with @msg on stderr and
 * nothing on stdout (the run is dumped when not); @r keeps the run
 */
void hpu_test_train_refused(const char *const *args, const char *const *env,
			    const char *msg, size_t i,
			    struct hpu_test_train_run *r)
{
	hpu_test_train_run(args, env, HPU_TEST_TRAIN_RUN_MS, r);
	if (r->status != 2 || !strstr(r->err, msg) || r->out[0]) {
		print_message("case %zu (%s ...): want status 2 and '%s'\n", i,
			      args[0], msg);
		hpu_test_train_dump("hpu-train", r);
	}
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, msg));
	assert_string_equal(r->out, "");
}

void hpu_test_train_refused_all(const struct hpu_test_train_bad *cases,
				size_t n)
{
	struct hpu_test_train_run r;
	size_t i;

	for (i = 0; i < n; i++) {
		hpu_test_train_refused(cases[i].args, cases[i].env,
				       cases[i].msg, i, &r);
		hpu_test_train_run_free(&r);
	}
}

/* final loss and test accuracy of a short run */
void hpu_test_train_short(const char *devices, const char *batch,
			  const char *const *env, double *loss, double *acc,
			  struct hpu_test_train_run *r)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       devices,
			       "--batch-size",
			       batch,
			       "--max-steps",
			       "40",
			       "--seed",
			       "7",
			       "--progress-bar",
			       "plain",
			       NULL };

	hpu_test_train_run_ok(devices, args, env, HPU_TEST_TRAIN_RUN_MS, r);
	*loss = hpu_test_train_number(r->out, "final loss ");
	*acc = hpu_test_train_number(r->out, "test accuracy ");
	assert_false(isnan(*loss));
	assert_false(isnan(*acc));
}

void hpu_test_train_assert_close(double a, double b, const char *what)
{
	print_message("%s: %.6f vs %.6f\n", what, a, b);
	assert_true(fabs(a - b) <= LOSS_ABS_TOL + LOSS_REL_TOL * fabs(b));
}

const char *hpu_test_train_weights_of(const char *out, const char *label)
{
	static char hash[2][20];
	static int which;
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%sweights fnv1a64 ", label);
	p = strstr(out, key);
	if (!p)
		return "none";
	which ^= 1;
	snprintf(hash[which], sizeof(hash[which]), "%.16s", p + strlen(key));
	return hash[which];
}

int hpu_test_children(pid_t pid, pid_t *out, int max)
{
	char path[64], buf[256], *p, *end;
	int n = 0, fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = (pid_t)v;
	}
	return n;
}

int hpu_test_train_run_and_kill(const char *const *args, const char *mark,
				long kill_bound_ms, int *status)
{
	char **argv = hpu_test_train_argv(args),
	     **envp = hpu_test_train_env(NULL);
	pid_t launcher, kids[4];
	struct stat st;
	int i, n, null;
	long start;

	launcher = fork();
	assert_true(launcher >= 0);
	if (launcher == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	*status = 0;
	start = hpu_test_now_ms();
	while (stat(mark, &st) &&
	       hpu_test_now_ms() - start < HPU_TEST_TRAIN_RUN_MS &&
	       waitpid(launcher, status, WNOHANG) == 0)
		usleep(500);
	n = hpu_test_children(launcher, kids, 4);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	if (hpu_test_wait_child(launcher, kill_bound_ms, status))
		hpu_test_kill_child(launcher, status);
	free(argv);
	free(envp);
	return n;
}

void hpu_test_train_killed_midrun(const char *const *args, const char *mark,
				  long kill_bound_ms, int workers)
{
	int n, status = 0;

	n = hpu_test_train_run_and_kill(args, mark, kill_bound_ms, &status);
	print_message("killed %d workers; launcher status %d\n", n,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_int_equal(n, workers);
	/* it did not end by itself: the kill came mid-run */
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
}

/* @dir/metrics.csv from step to val_acc (the columns a rerun repeats) */
static char *metrics_rows(const char *dir)
{
	char path[PATH_MAX], *out;

	snprintf(path, sizeof(path), "%s/metrics.csv", dir);
	out = hpu_test_csv_columns(path, 7);
	if (!out)
		fail_msg("%s: cannot read it", path);
	return out;
}

void hpu_test_train_check_resume(const struct hpu_test_train_run *r0,
				 const char *const *resumed, unsigned int every,
				 double min_step, double max_step,
				 const char *loss_label, const char *log0,
				 const char *log1)
{
	struct hpu_test_train_run r2;
	const char *h0, *h1, *h2;
	char *rows0, *rows1;
	double rs;

	hpu_test_train_run_ok("resumed", resumed, NULL, HPU_TEST_TRAIN_RUN_MS,
			      &r2);
	h0 = hpu_test_train_weights_of(r0->out, "[rank 0] ");
	h1 = hpu_test_train_weights_of(r2.out, "[rank 0] ");
	assert_string_not_equal(h0, "none");
	assert_string_equal(h1, h0);
	h2 = hpu_test_train_weights_of(r2.out, "[rank 1] ");
	assert_string_equal(h2, h0);
	rs = hpu_test_train_number(
		r2.out, "[rank 0] resumed from the checkpoint of step ");
	print_message("resumed at step %.0f: weights %s, %s\n", rs, h1, h2);
	assert_true(rs >= min_step && rs < max_step && fmod(rs, every) == 0);
	assert_true(hpu_test_train_number(r2.out, loss_label) ==
		    hpu_test_train_number(r0->out, loss_label));
	rows0 = metrics_rows(log0);
	rows1 = metrics_rows(log1);
	assert_string_equal(rows1, rows0);
	free(rows0);
	free(rows1);
	hpu_test_train_run_free(&r2);
}
