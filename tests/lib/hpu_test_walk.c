// SPDX-License-Identifier: MIT
/*
 * hpu_test_walk.c - the operator's tools for the failure-path walk:
 * hl-smi runs and their "key : value" output, hpu-train runs
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_test_daemon.h"
#include "hpu_test_util.h"
#include "hpu_test_walk.h"

struct hpu_walk hpu_walk;

int hpu_walk_setup(void)
{
	char bin[PATH_MAX];

	if (!realpath(hpu_test_bin("hpu-smi"), bin))
		return -1;
	strcpy(hpu_walk.dir, "/tmp/hpu_test_walk-XXXXXX");
	if (!mkdtemp(hpu_walk.dir))
		return -1;
	snprintf(hpu_walk.hlsmi, sizeof(hpu_walk.hlsmi), "%s/hl-smi",
		 hpu_walk.dir);
	return symlink(bin, hpu_walk.hlsmi) ? -1 : 0;
}

void hpu_walk_teardown(void)
{
	if (hpu_walk.train.pid > 0) {
		kill(hpu_walk.train.pid, SIGKILL);
		hpu_test_proc_finish(&hpu_walk.train, 1000);
		hpu_test_proc_free(&hpu_walk.train);
	}
	if (hpu_walk.hlsmi[0])
		unlink(hpu_walk.hlsmi);
	if (hpu_walk.dir[0])
		rmdir(hpu_walk.dir);
}

void hpu_walk_hlsmi(struct hpu_test_proc *p, ...)
{
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	char *argv[10];
	va_list ap;
	int argc = 0;

	argv[argc++] = hpu_walk.hlsmi;
	va_start(ap, p);
	while (argc < 9 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	assert_int_equal(hpu_test_proc_run(p, argv, &o, HPU_WALK_TOOL_MS), 0);
}

void hpu_walk_status(int dev, char *buf, size_t len)
{
	struct hpu_test_proc p;
	const char *v;
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", dev);
	hpu_walk_hlsmi(&p, "-i", idx, "--query-aip=index,status",
		       "--format=csv,noheader", NULL);
	if (p.status)
		fail_msg("hl-smi -Q status exited %d: %s", p.status, p.err);
	/* "1, operational\n" */
	v = strstr(p.out, ", ");
	assert_non_null(v);
	v += 2;
	snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
	hpu_test_proc_free(&p);
}

void hpu_walk_q(struct hpu_test_proc *p, int dev, const char *bus_id)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", dev);
	hpu_walk_hlsmi(p, "-q", "-i", idx, NULL);
	if (p->status)
		fail_msg("hl-smi -q exited %d: %s", p->status, p->err);
	assert_non_null(strstr(p->out, bus_id));
}

/* The value after the ':' of the first line with @key */
static const char *q_find(const char *out, const char *key)
{
	const char *l = strstr(out, key);

	if (!l)
		fail_msg("hl-smi -q has no '%s':\n%s", key, out);
	l = strchr(l, ':');
	assert_non_null(l);
	return l + 1 + strspn(l + 1, " ");
}

long hpu_walk_q_value(const char *out, const char *key)
{
	return strtol(q_find(out, key), NULL, 10);
}

void hpu_walk_q_str(const char *out, const char *key, char *buf, size_t len)
{
	const char *v = q_find(out, key);

	snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
}

void hpu_walk_train_start(struct hpu_test_proc *p, const char *visible,
			  const char *const *args)
{
	extern char **environ;
	struct hpu_test_proc_opts o = { .stderr_mode =
						HPU_TEST_STDERR_CAPTURE };
	char *argv[24], **envp, vis[64];
	size_t n = 0, i, k = 0;

	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof(*envp));
	assert_non_null(envp);
	for (i = 0; i < n; i++) /* no cluster variables: one launcher */
		if (strncmp(environ[i], "RANK=", 5) &&
		    strncmp(environ[i], "WORLD_SIZE=", 11) &&
		    strncmp(environ[i], "LOCAL_RANK=", 11) &&
		    strncmp(environ[i], "SLURM_", 6) &&
		    strncmp(environ[i], "OMPI_", 5) &&
		    strncmp(environ[i], "HPU_VISIBLE_DEVICES=", 20) &&
		    strncmp(environ[i], "HPU_TRAIN_", 10))
			envp[k++] = environ[i];
	snprintf(vis, sizeof(vis), "HPU_VISIBLE_DEVICES=%s", visible);
	envp[k++] = vis;
	o.envp = envp;
	argv[0] = (char *)hpu_test_bin("hpu-train");
	for (i = 0; args[i] && i < 22; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	assert_int_equal(hpu_test_proc_start(p, argv, &o), 0);
	free(envp);
}

void hpu_walk_train_dump(const char *what, const struct hpu_test_proc *p)
{
	fprintf(stderr,
		"--- %s: status %d%s after %ld ms\n--- stdout:\n%s\n"
		"--- stderr:\n%s\n---\n",
		what, p->status, p->killed ? " (killed)" : "", p->ms, p->out,
		p->err);
}

void hpu_walk_train_until_running(const char *visible, int ndev)
{
	char n[16];
	const char *const args[] = {
		"--devices",
		n,
		"--max-epochs",
		"1000000",
		"--max-steps",
		"1000000000",
		"--progress-bar",
		"plain",
		"--log-every-n-steps",
		"100000",
		"--cs-timeout",
		HPU_WALK_CS_TIMEOUT_S,
		NULL,
	};
	struct hpu_test_proc *t = &hpu_walk.train;
	long end = hpu_test_now_ms() + HPU_WALK_TRAIN_MS;

	snprintf(n, sizeof(n), "%d", ndev);
	hpu_walk_train_start(t, visible, args);
	while (!strstr(t->out, "epoch 0:")) {
		if (!hpu_test_proc_read(t, 200) || hpu_test_now_ms() > end) {
			hpu_test_proc_finish(t, 1000);
			t->pid = 0;
			hpu_walk_train_dump("the run did not start training",
					    t);
			fail();
		}
	}
}

void hpu_walk_train_ends_naming(const char *name, const char *why)
{
	struct hpu_test_proc *t = &hpu_walk.train;
	int st = hpu_test_proc_finish(t, HPU_WALK_TRAIN_MS);

	t->pid = 0;
	if (st == 0 || t->killed || !strstr(t->err, name) ||
	    !strstr(t->err, "hpu-train: ") || (why && !strstr(t->err, why)))
		hpu_walk_train_dump("the run did not fail naming the device",
				    t);
	assert_false(t->killed);
	assert_int_equal(st, 1);
	assert_non_null(strstr(t->err, "hpu-train: "));
	assert_non_null(strstr(t->err, name));
	if (why)
		assert_non_null(strstr(t->err, why));
	print_message("the run ended: %s", t->err);
	hpu_test_proc_free(t);
}

void hpu_walk_train_stop(void)
{
	struct hpu_test_proc *t = &hpu_walk.train;
	bool ended = !hpu_test_proc_read(t, 0);

	if (ended)
		hpu_walk_train_dump("the run ended on its own", t);
	assert_false(ended);
	kill(t->pid, SIGKILL);
	hpu_test_proc_finish(t, HPU_WALK_TRAIN_MS);
	t->pid = 0;
	hpu_test_proc_free(t);
}

void hpu_walk_train_finishes(const char *visible, int ndev)
{
	char n[16];
	const char *const args[] = { "--devices", n,   "--max-steps", "40",
				     "--seed",	  "7", NULL };
	struct hpu_test_proc p;

	snprintf(n, sizeof(n), "%d", ndev);
	hpu_walk_train_start(&p, visible, args);
	if (hpu_test_proc_finish(&p, HPU_WALK_TRAIN_MS) ||
	    !strstr(p.out, "final loss"))
		hpu_walk_train_dump("the run after the reset", &p);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "final loss"));
	hpu_test_proc_free(&p);
}

void hpu_walk_reset(int dev)
{
	struct hpu_test_proc p;
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", dev);
	hpu_walk_hlsmi(&p, "-r", "-i", idx, NULL);
	if (p.status || !strstr(p.out, "hard reset done"))
		fail_msg("hl-smi -r -i %d exited %d:\n%s%s", dev, p.status,
			 p.out, p.err);
	hpu_test_proc_free(&p);
}
