// SPDX-License-Identifier: MIT
/*
 * test_train_cli_hpu.c - hpu-train end to end on one daemon with two
 * simulated Gaudi2 devices: device errors, --devices auto, the digits MLP
 * reaches >= 95% test accuracy on one device, the benchmark table, two
 * ranks launched by one hpu-train match one device with the same global
 * batch, resume matches an uninterrupted run, results are printed once,
 * and a worker killed with SIGKILL ends the launcher non-zero within a
 * bound (and DDP resumes after it).
 */
#include <errno.h>
#include <fcntl.h>
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

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_netns.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "../lib/hpu_test_train_cli.h"

#define KILL_BOUND_MS 10000

static int daemon_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	return hpu_test_group_start(2, "gaudi2");
}

static void test_device_errors(void **state)
{
	static const struct hpu_test_train_bad cases[] = {
		{ { "--devices", "3" }, {}, "--devices 3" },
		{ { "--devices", "0,5" }, {}, "5" },
		{ { "--accelerator", "hpu", "--devices", "2", "--strategy",
		    "single_hpu" },
		  {},
		  "single" },
		{ { "--devices", "2", "--benchmark", "--benchmark-prefetch" },
		  {},
		  "--benchmark-prefetch compares the paths of one device" },
	};
	(void)state;
	hpu_test_train_refused_all(cases, sizeof(cases) / sizeof(cases[0]));
}

/* --devices auto on this daemon: both HPUs, data parallel, a launcher */
static void test_devices_auto(void **state)
{
	const char *args[] = { "--print-env", NULL };
	const char *env[] = { "HPU_VISIBLE_DEVICES=1", NULL };
	const char *args1[] = { "--print-env", "--devices", "1", NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(hpu_test_train_kv(r.out, "accelerator"), "hpu");
	assert_string_equal(hpu_test_train_kv(r.out, "devices"), "hpu0,hpu1");
	assert_string_equal(hpu_test_train_kv(r.out, "strategy"),
			    "hpu_parallel");
	assert_string_equal(hpu_test_train_kv(r.out, "launcher"), "yes");
	hpu_test_train_run_free(&r);
	/* indices are positions among the visible devices */
	hpu_test_train_run(args1, env, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(hpu_test_train_kv(r.out, "devices"), "hpu1");
	assert_string_equal(hpu_test_train_kv(r.out, "device"), "hpu1");
	hpu_test_train_run_free(&r);
}

static void test_digits_one_device(void **state)
{
	const char *args[] = { "--accelerator",	 "hpu", "--devices", "1",
			       "--progress-bar", "off", NULL };
	struct hpu_test_train_run r;
	double acc;

	(void)state;
	hpu_test_train_run(args, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("digits", &r);
	assert_int_equal(r.status, 0);
	acc = hpu_test_train_number(r.out, "test accuracy ");
	print_message("digits on one hpu: test accuracy %.2f%%\n", acc);
	assert_false(isnan(acc));
	assert_true(acc >= 95.0);
	hpu_test_train_run_free(&r);
}

/* The numeric columns of the benchmark table's row @path, or 0 */
static int bench_row(const char *out, const char *path, double *step_ms,
		     double *x_cpu)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "\n%s ", path);
	p = strstr(out, key);
	if (!p || sscanf(p + strlen(key), "%lf %*f %lf", step_ms, x_cpu) != 2)
		return 0;
	return 1;
}

/*
 * Whether @ratio (printed with 3 decimals) is @a / @b (each printed with
 * 3 decimals, so each off by up to 0.0005 from what was divided)
 */
static bool ratio_agrees(double ratio, double a, double b)
{
	double slack = ratio * (0.0005 / a + 0.0005 / b) * 1.01 + 0.0005;

	return fabs(ratio - a / b) <= slack;
}

/*
 * --benchmark: one row per hpu mode and the cpu row, with step times and
 * ratios that agree with each other; --benchmark-rounds adds the rounds
 * to the banner and the spread column.
 */
static void test_benchmark_table(void **state)
{
	const char *args[] = { "--devices",   "1",
			       "--benchmark", "--benchmark-modes",
			       "eager,lazy",  "--benchmark-steps",
			       "5",	      "--warmup-steps",
			       "1",	      "--benchmark-rounds",
			       "3",	      NULL };
	double eager, lazy, cpu, x_eager, x_lazy, x_cpu;
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("benchmark", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "5 timed steps, 3 rounds of every "
				      "path in turn\n"));
	/* the modeled columns (--timing-model gaudi2, the default) come
	 * before the spread (test_train_model checks them) */
	assert_non_null(strstr(
		r.out, "vs_eager    gaudi2_us  gaudi2_mme_us   spread\n"));
	assert_true(bench_row(r.out, "hpu/eager", &eager, &x_eager));
	assert_true(bench_row(r.out, "hpu/lazy", &lazy, &x_lazy));
	assert_true(bench_row(r.out, "cpu", &cpu, &x_cpu));
	print_message("benchmark: eager %.3f, lazy %.3f, cpu %.3f ms\n", eager,
		      lazy, cpu);
	assert_true(eager > 0 && lazy > 0 && cpu > 0);
	assert_true(fabs(x_cpu - 1.0) < 1e-9);
	/* x_cpu is the row's step time over the cpu row's */
	assert_true(ratio_agrees(x_eager, eager, cpu));
	assert_true(ratio_agrees(x_lazy, lazy, cpu));
	hpu_test_train_run_free(&r);

	/* one round: no spread column */
	args[9] = NULL;
	hpu_test_train_run(args, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "5 timed steps\n"));
	assert_null(strstr(r.out, "spread"));
	assert_true(bench_row(r.out, "hpu/lazy", &lazy, &x_lazy));
	hpu_test_train_run_free(&r);
}

static void test_two_ranks_match_one(void **state)
{
	struct hpu_test_train_run r1, r2;
	double l1, a1, l2, a2;

	(void)state;
	hpu_test_train_short("1", "64", NULL, &l1, &a1, &r1);
	hpu_test_train_short("2", "32", NULL, &l2, &a2, &r2);
	/* the launcher said who it started; only rank 0 summarised */
	assert_non_null(strstr(r2.out, "starting 2 workers"));
	assert_null(strstr(r2.out, "[rank 1] final loss"));
	hpu_test_train_assert_close(l2, l1,
				    "final loss, 2 ranks x 32 vs 1 x 64");
	assert_true(fabs(a2 - a1) <= 0.6); /* at most 2 of 360 differ */
	hpu_test_train_run_free(&r1);
	hpu_test_train_run_free(&r2);
}

/*
 * a run checkpointed at step 20 and resumed to 40 prints the final loss
 * of an uninterrupted 40-step run; the nested --ckpt-dir and --log-dir
 * are created
 */
static void test_resume_matches(void **state)
{
	char dir[64], ckdir[96], logdir[96], ck[128], csv[128];
	const char *a20[] = { "--devices",	"1",   "--max-steps", "20",
			      "--ckpt-dir",	ckdir, "--log-dir",   logdir,
			      "--progress-bar", "off", NULL };
	const char *a40[] = { "--devices",   "1", "--max-steps",    "40",
			      "--ckpt-path", ck,  "--progress-bar", "off",
			      NULL };
	const char *full[] = { "--devices",	 "1",	"--max-steps", "40",
			       "--progress-bar", "off", NULL };
	struct hpu_test_train_run r1, r2, r3;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_train_cli.%d", (int)getpid());
	snprintf(ckdir, sizeof(ckdir), "%s/a/ck", dir);
	snprintf(logdir, sizeof(logdir), "%s/b/log", dir);
	snprintf(ck, sizeof(ck), "%s/last.htck", ckdir);
	snprintf(csv, sizeof(csv), "%s/metrics.csv", logdir);
	hpu_test_train_run(a20, NULL, HPU_TEST_TRAIN_RUN_MS, &r1);
	if (r1.status)
		hpu_test_train_dump("20 steps", &r1);
	assert_int_equal(r1.status, 0);
	assert_int_equal(stat(csv, &st), 0);
	assert_true(st.st_size > 0);
	hpu_test_train_run(a40, NULL, HPU_TEST_TRAIN_RUN_MS, &r2);
	if (r2.status)
		hpu_test_train_dump("resumed", &r2);
	assert_int_equal(r2.status, 0);
	hpu_test_train_run(full, NULL, HPU_TEST_TRAIN_RUN_MS, &r3);
	assert_int_equal(r3.status, 0);
	assert_false(isnan(hpu_test_train_number(r3.out, "final loss ")));
	assert_true(hpu_test_train_number(r2.out, "final loss ") ==
		    hpu_test_train_number(r3.out, "final loss "));
	assert_true(hpu_test_train_number(r2.out, "test accuracy ") ==
		    hpu_test_train_number(r3.out, "test accuracy "));
	unlink(ck);
	hpu_test_train_run_free(&r1);
	hpu_test_train_run_free(&r2);
	hpu_test_train_run_free(&r3);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* lines of @out that contain @what; the first's start in *@first */
static int count_lines(const char *out, const char *what, const char **first)
{
	const char *p = out, *hit;
	int n = 0;

	*first = NULL;
	while ((hit = strstr(p, what))) {
		const char *bol = hit;

		while (bol > out && bol[-1] != '\n')
			bol--;
		if (!n)
			*first = bol;
		n++;
		p = strchr(hit, '\n');
		if (!p)
			break;
	}
	return n;
}

/*
 * The test result is printed once per printing rank, by hpu-train's
 * summary only (the library prints none), labelled with its rank under
 * --all-ranks-print
 */
static void test_results_printed_once(void **state)
{
	const char *one[] = { "--devices",	"1",	 "--max-steps", "10",
			      "--progress-bar", "plain", NULL };
	const char *two[] = { "--devices",	   "2",
			      "--max-steps",	   "10",
			      "--progress-bar",	   "plain",
			      "--all-ranks-print", NULL };
	const char *first;
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(one, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("one device", &r);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "test:"));
	assert_int_equal(count_lines(r.out, "test accuracy ", &first), 1);
	assert_true(!strncmp(first, "test accuracy ", 14));
	hpu_test_train_run_free(&r);

	hpu_test_train_run(two, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("two ranks", &r);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "test:"));
	assert_int_equal(count_lines(r.out, "[rank 0] test accuracy ", &first),
			 1);
	assert_int_equal(count_lines(r.out, "[rank 1] test accuracy ", &first),
			 1);
	assert_int_equal(count_lines(r.out, "test accuracy ", &first), 2);
	hpu_test_train_run_free(&r);
}

/* <dir>/metrics.csv, rows cut to step..val_acc (the columns a rerun
 * repeats bit for bit), as one string */
static void test_killed_worker_ends_launcher(void **state)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       "2",
			       "--max-epochs",
			       "100000",
			       "--grace-period",
			       "1",
			       "--progress-bar",
			       "off",
			       NULL };
	char **argv = hpu_test_train_argv(args),
	     **envp = hpu_test_train_env(NULL);
	pid_t launcher, kids[4];
	long start, waited;
	int st = 0, n = 0, i, ended;

	(void)state;
	launcher = fork();
	assert_true(launcher >= 0);
	if (launcher == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	/* both workers up and training for a while */
	for (i = 0; i < 200 && n < 2; i++) {
		hpu_test_sleep_ms(20);
		n = hpu_test_children(launcher, kids, 4);
	}
	assert_int_equal(n, 2);
	hpu_test_sleep_ms(1500);
	assert_int_equal(waitpid(launcher, &st, WNOHANG), 0);
	assert_int_equal(kill(kids[1], SIGKILL), 0);
	start = hpu_test_now_ms();
	ended = hpu_test_wait_child(launcher, KILL_BOUND_MS, &st);
	waited = hpu_test_now_ms() - start;
	if (ended)
		hpu_test_kill_child(launcher, &st);
	print_message("launcher ended %ld ms after the kill, status %d\n",
		      waited, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	assert_true(waited < KILL_BOUND_MS);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 0);
	/* the other worker is gone too (reaped by the launcher) */
	assert_int_equal(kill(kids[0], 0), -1);
	free(argv);
	free(envp);
}

/*
 * A 2-rank DDP run whose workers are killed with SIGKILL mid-epoch (once
 * its step-21 checkpoint exists, 20 steps per epoch) and resumed from its last
 * checkpoint ends with the weight bytes of an uninterrupted 2-rank run on
 * both ranks, and its metrics log has the uninterrupted run's rows, none
 * twice.
 */
static void test_ddp_resume_after_kill(void **state)
{
	char dir[64], ck[96], log0[96], log1[96], last[128], mark[128];
	const char *common[] = { "--devices",
				 "2",
				 "--max-steps",
				 "300",
				 "--seed",
				 "7",
				 "--progress-bar",
				 "plain",
				 "--log-every-n-steps",
				 "5",
				 "--all-ranks-print",
				 "--print-weights-hash" };
	enum {
		NC = sizeof(common) / sizeof(common[0])
	};
	const char *full[NC + 3], *killed[NC + 7], *resumed[NC + 5];
	char cmd[128];
	const char *h0;
	struct hpu_test_train_run r0;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_train_cli_ddp.%d", (int)getpid());
	snprintf(ck, sizeof(ck), "%s/ck", dir);
	snprintf(log0, sizeof(log0), "%s/log0", dir);
	snprintf(log1, sizeof(log1), "%s/log1", dir);
	snprintf(last, sizeof(last), "%s/last.htck", ck);
	snprintf(mark, sizeof(mark), "%s/ckpt-step-21.htck", ck);
	for (i = 0; i < NC; i++)
		full[i] = killed[i] = resumed[i] = common[i];
	full[NC] = "--log-dir";
	full[NC + 1] = log0;
	full[NC + 2] = NULL;
	killed[NC] = "--log-dir";
	killed[NC + 1] = log1;
	killed[NC + 2] = "--ckpt-dir";
	killed[NC + 3] = ck;
	killed[NC + 4] = "--ckpt-every-n-steps";
	killed[NC + 5] = "7";
	killed[NC + 6] = NULL;
	resumed[NC] = "--log-dir";
	resumed[NC + 1] = log1;
	resumed[NC + 2] = "--ckpt-path";
	resumed[NC + 3] = last;
	resumed[NC + 4] = NULL;

	/* uninterrupted */
	hpu_test_train_run(full, NULL, HPU_TEST_TRAIN_RUN_MS, &r0);
	if (r0.status)
		hpu_test_train_dump("uninterrupted", &r0);
	assert_int_equal(r0.status, 0);
	h0 = hpu_test_train_weights_of(r0.out, "[rank 0] ");
	print_message("uninterrupted: weights %s\n", h0);
	assert_string_equal(hpu_test_train_weights_of(r0.out, "[rank 1] "), h0);

	/* killed once its step-21 checkpoint exists */
	hpu_test_train_killed_midrun(killed, mark, KILL_BOUND_MS, 2);

	/* resumed from the last checkpoint: last.htck follows
	 * ckpt-step-21.htck, 14 when killed in between */
	hpu_test_train_check_resume(&r0, resumed, 7, 14, 300, "final loss ",
				    log0, log1);
	hpu_test_train_run_free(&r0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest one_server[] = {
		cmocka_unit_test_setup(test_device_errors,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_devices_auto, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_digits_one_device,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_benchmark_table,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_two_ranks_match_one,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_resume_matches,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_killed_worker_ends_launcher,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_results_printed_once,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_resume_after_kill,
				       hpu_test_need_daemon),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_cli_hpu", one_server,
					   daemon_setup, hpu_test_group_stop);
}
