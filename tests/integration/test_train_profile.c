// SPDX-License-Identifier: MIT
/*
 * test_train_profile.c - tracing end to end on one daemon with eight
 * simulated Gaudi2 devices (docs/tracing.md): hpu-train --devices 8
 * --profiler hpu writes one trace.json that the trace-event checker
 * accepts, with eight device processes (and their modeled layouts),
 * eight host processes and each rank's allreduce buckets overlapping its
 * backward; the weights are the same with the profiler on and off;
 * --profiler takes hpu or none only; HPU_PROFILE with %p profiles a
 * process of its own; hpu-prof summarizes the trace, merges files, and
 * refuses malformed files and flags with exit status 2.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_scratch.h"
#include "../lib/hpu_test_trace.h"
#include "../lib/hpu_test_train_cli.h"

#define NDEV	    8
#define PROF_RUN_MS 30000

static char scratch[64];

static int group_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HPU_PROFILE");
	strcpy(scratch, "/tmp/test_train_profile.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	return hpu_test_group_start(NDEV, "gaudi2");
}

static int group_teardown(void **state)
{
	hpu_test_remove_tree(scratch);
	return hpu_test_group_stop(state);
}

/* a short DDP run of an MLP large enough for several gradient buckets */
static void train(const char *profiler, const char *dir,
		  struct hpu_test_train_run *r)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       "8",
			       "--data",
			       "digits",
			       "--layers",
			       "512,512",
			       "--bucket-mb",
			       "1",
			       "--max-steps",
			       "3",
			       "--seed",
			       "7",
			       "--profiler",
			       profiler,
			       "--log-dir",
			       dir,
			       "--progress-bar",
			       "off",
			       "--print-weights-hash",
			       NULL };

	hpu_test_train_run_ok(profiler, args, NULL, HPU_TEST_TRAIN_RUN_MS, r);
}

static bool exists(const char *dir, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void run_prof(struct hpu_test_proc *p, const char *a1, const char *a2,
		     const char *a3, const char *a4)
{
	char *argv[6] = { (char *)hpu_test_bin("hpu-prof"),
			  (char *)a1,
			  (char *)a2,
			  (char *)a3,
			  (char *)a4,
			  NULL };
	struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_CAPTURE,
	};

	assert_int_equal(hpu_test_proc_run(p, argv, &o, PROF_RUN_MS), 0);
}

/* device jobs of the trace, by engine class; 0 without device tracing */
static size_t engine_slices(const struct hpu_test_trace *t, const char *pfx,
			    size_t *devices)
{
	bool seen[NDEV] = { false };
	size_t i, n = 0;

	*devices = 0;
	for (i = 0; i < t->nslices; i++) {
		const struct prof_slice *s = &t->slices[i];
		const char *engine = hpu_test_trace_engine(t, s);

		if (!engine || s->pid >= NDEV ||
		    strncmp(engine, pfx, strlen(pfx)))
			continue;
		n++;
		if (!seen[s->pid]) {
			seen[s->pid] = true;
			(*devices)++;
		}
	}
	return n;
}

static void test_trace_8_ranks(void **state)
{
	char on[128], off[128], path[160], hash[20];
	struct hpu_test_train_run r_on, r_off;
	struct hpu_test_trace t;
	struct hpu_test_proc p;
	size_t pids, devs, jobs;

	(void)state;
	snprintf(on, sizeof(on), "%s/on", scratch);
	snprintf(off, sizeof(off), "%s/off", scratch);
	train("hpu", on, &r_on);
	train("none", off, &r_off);
	/* tracing changes nothing the model computes */
	snprintf(hash, sizeof(hash), "%s",
		 hpu_test_train_weights_of(r_on.out, ""));
	assert_string_not_equal(hash, "none");
	assert_string_equal(hash, hpu_test_train_weights_of(r_off.out, ""));
	assert_false(exists(off, "trace.json"));
	/* one merged file, the ranks' own removed */
	assert_true(exists(on, "trace.json"));
	assert_false(exists(on, "trace.rank0.json"));
	assert_false(exists(on, "trace.rank7.json"));

	snprintf(path, sizeof(path), "%s/trace.json", on);
	if (hpu_test_trace_check(path, &t))
		fail_msg("%s: %s", path, t.err);
	print_message("trace: %zu events, %zu slices, %zu flows\n", t.events,
		      t.nslices, t.flows);
	assert_int_equal(t.device_procs, NDEV);
	assert_int_equal(t.model_procs, NDEV);
	assert_int_equal(t.host_procs, NDEV);
	/* every rank's allreduce buckets overlap its backward */
	assert_true(hpu_test_trace_overlaps(&t, "allreduce bucket", "backward",
					    &pids));
	assert_int_equal(pids, NDEV);
	jobs = engine_slices(&t, "", &devs);
	if (!jobs) {
		print_message("no engine jobs in the trace: the daemon does "
			      "not record engine traces yet (HPU_CAP_TRACE); "
			      "device checks skipped\n");
	} else {
		/* all eight devices ran jobs, the NIC ports among them */
		assert_int_equal(devs, NDEV);
		assert_true(engine_slices(&t, "NIC port", &devs) > 0);
		assert_int_equal(devs, NDEV);
		assert_true(t.flows > 0);
	}
	hpu_test_trace_free(&t);

	run_prof(&p, path, NULL, NULL, NULL);
	if (p.status)
		print_message("%s%s", p.out, p.err);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "host spans by time"));
	assert_non_null(strstr(p.out, "allreduce bucket"));
	if (jobs) {
		assert_non_null(strstr(p.out, "NIC and compute"));
		assert_non_null(strstr(p.out, "idle gaps"));
	}
	hpu_test_proc_free(&p);
	hpu_test_train_run_free(&r_on);
	hpu_test_train_run_free(&r_off);
}

static void test_profiler_values(void **state)
{
	const char *args[] = { "--profiler", "simple", NULL };
	const char *args2[] = { "--profiler", "", NULL };
	const char *args3[] = { "--profiler", "hpu", "--benchmark", NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_refused(args, NULL, "--profiler", 0, &r);
	hpu_test_train_run_free(&r);
	hpu_test_train_refused(args2, NULL, "--profiler", 1, &r);
	hpu_test_train_run_free(&r);
	hpu_test_train_refused(args3, NULL, "not --benchmark", 2, &r);
	hpu_test_train_run_free(&r);
}

/* HPU_PROFILE=DIR/p.%p.json: the one process writes p.<its pid>.json */
static void test_env_profile(void **state)
{
	const char *args[] = {
		"--accelerator",  "hpu", "--devices", "1", "--max-steps", "2",
		"--progress-bar", "off", NULL
	};
	char dir[128], env0[192], path[400];
	const char *env[] = { env0, NULL };
	struct hpu_test_train_run r;
	struct hpu_test_trace t;
	struct dirent *de;
	size_t pids;
	int found = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/env", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(env0, sizeof(env0), "HPU_PROFILE=%s/p.%%p.json", dir);
	hpu_test_train_run_ok("HPU_PROFILE", args, env, HPU_TEST_TRAIN_RUN_MS,
			      &r);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "p.", 2) ||
		    !strstr(de->d_name, ".json") || strstr(de->d_name, ".tmp"))
			continue;
		found++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
	}
	closedir(d);
	assert_int_equal(found, 1);
	if (hpu_test_trace_check(path, &t))
		fail_msg("%s: %s", path, t.err);
	assert_int_equal(t.device_procs, 1);
	assert_int_equal(t.host_procs, 1);
	/* the trainer's spans nest: forward within its step */
	assert_true(
		hpu_test_trace_overlaps(&t, "forward", "train step", &pids));
	assert_int_equal(pids, 1);
	hpu_test_trace_free(&t);
	hpu_test_train_run_free(&r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_prof_refuses(void **state)
{
	static const struct {
		const char *text; /* NULL: the file does not exist */
		const char *msg;
	} files[] = {
		{ "{\"traceEvents\":[", "not a trace" },
		{ "{\"other\":1}", "traceEvents" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
		  "\"ts\":1,\"name\":\"a\"}]}",
		  "dur" },
		{ "{\"traceEvents\":[{\"ph\":\"E\",\"pid\":1,\"tid\":1,"
		  "\"ts\":1}]}",
		  "E without a B" },
		{ "{\"traceEvents\":[{\"ph\":\"B\",\"pid\":1,\"tid\":1,"
		  "\"ts\":5,\"name\":\"a\"},{\"ph\":\"E\",\"pid\":1,"
		  "\"tid\":1,\"ts\":3}]}",
		  "E before its B" },
		{ "{\"traceEvents\":[{\"ph\":\"B\",\"pid\":1,\"tid\":1,"
		  "\"ts\":1,\"name\":\"a\"}]}",
		  "never ended" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":1,\"ts\":1,"
		  "\"dur\":1,\"name\":\"a\"}]}",
		  "pid" },
		{ NULL, "not a trace" },
	};
	static const char *const flags[][4] = {
		{ "--top", "0", "F", NULL },	{ "--gap-us", "-3", "F", NULL },
		{ "--bogus", "F", NULL, NULL }, { "F", "F", NULL, NULL },
		{ NULL, NULL, NULL, NULL },	{ "merge", "F", NULL, NULL },
		{ "merge", "-o", "OUT", NULL },
	};
	char path[160], good[160], out[160];
	struct hpu_test_proc p;
	struct hpu_test_trace t;
	size_t i, k;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.json", scratch);
	snprintf(good, sizeof(good), "%s/good.json", scratch);
	snprintf(out, sizeof(out), "%s/merged.json", scratch);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		unlink(path);
		if (files[i].text)
			write_file(path, files[i].text);
		run_prof(&p, path, NULL, NULL, NULL);
		if (p.status != 2 || !strstr(p.err, files[i].msg))
			print_message("file %zu: status %d, stderr: %s\n", i,
				      p.status, p.err);
		assert_int_equal(p.status, 2);
		assert_non_null(strstr(p.err, files[i].msg));
		assert_string_equal(p.out, "");
		hpu_test_proc_free(&p);
	}
	write_file(good,
		   "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\","
		   "\"pid\":5,\"args\":{\"name\":\"x\"}},"
		   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":1,"
		   "\"args\":{\"name\":\"t\"}},"
		   "{\"ph\":\"B\",\"pid\":5,\"tid\":1,\"ts\":1,\"name\":\"b\"},"
		   "{\"ph\":\"E\",\"pid\":5,\"tid\":1,\"ts\":3}]}");
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const char *a[4];

		for (k = 0; k < 4; k++)
			a[k] = !flags[i][k]		   ? NULL :
			       !strcmp(flags[i][k], "F")   ? good :
			       !strcmp(flags[i][k], "OUT") ? out :
							     flags[i][k];
		run_prof(&p, a[0], a[1], a[2], a[3]);
		if (p.status != 2)
			print_message("flags %zu: status %d, stderr: %s\n", i,
				      p.status, p.err);
		assert_int_equal(p.status, 2);
		assert_non_null(strstr(p.err, "hpu-prof"));
		hpu_test_proc_free(&p);
	}
	/* a B/E trace summarizes; two of them merge into a valid one */
	run_prof(&p, good, NULL, NULL, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "no device jobs"));
	hpu_test_proc_free(&p);
	run_prof(&p, "merge", "-o", out, good);
	assert_int_equal(p.status, 0);
	hpu_test_proc_free(&p);
	if (hpu_test_trace_check(out, &t))
		fail_msg("%s: %s", out, t.err);
	assert_int_equal(t.nslices, 1);
	hpu_test_trace_free(&t);
	/* the reader it shares with the checker takes a bare array too */
	write_file(good, "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,"
			 "\"dur\":2,\"name\":\"x\"}]");
	run_prof(&p, good, NULL, NULL, NULL);
	if (p.status)
		print_message("bare array: status %d, stderr: %s\n", p.status,
			      p.err);
	assert_int_equal(p.status, 0);
	hpu_test_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_trace_8_ranks,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_profiler_values,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_env_profile, hpu_test_need_daemon),
		cmocka_unit_test(test_prof_refuses),
	};

	return cmocka_run_group_tests_name("train_profile", tests, group_setup,
					   group_teardown);
}
