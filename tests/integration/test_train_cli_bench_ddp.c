// SPDX-License-Identifier: MIT
/*
 * test_train_cli_bench_ddp.c - hpu-train --benchmark --devices 2 on one
 * daemon with two simulated Gaudi2 devices: the data parallel benchmark's
 * table (a row per mode asked for, the DDP and one-device step times and
 * their ratio, positive and consistent, the spread columns with rounds,
 * the target line of each row, printed by rank 0 only), a reference
 * round that outlasts the collective timeout, and the combinations it
 * refuses with a clear error. Not timed: the figures
 * themselves are only checked for shape.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "../lib/hpu_test_train_cli.h"

/* two ranks and their rendezvous on a loaded machine (or under ASan) */
#define BENCH_RUN_MS (3 * HPU_TEST_TRAIN_RUN_MS)

static int daemon_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	return hpu_test_group_start(2, "gaudi2");
}

/**
 * struct ddp_row - the numbers of a row of the table
 * @ddp_ms: data parallel step
 * @one_ms: one-device step
 * @ratio: ddp/one
 * @ddp_sps: samples/s of the data parallel step
 * @one_sps: samples/s of the one-device step
 * @spread: the two spread columns (with rounds)
 */
struct ddp_row {
	double ddp_ms;
	double one_ms;
	double ratio;
	double ddp_sps;
	double one_sps;
	double spread[2];
};

/* Row @path of the table: 5 numbers, 7 with @spread; 0 when absent */
static int ddp_row(const char *out, const char *path, bool spread,
		   struct ddp_row *r)
{
	char key[32];
	const char *p;
	int n;

	snprintf(key, sizeof(key), "\n%s ", path);
	p = strstr(out, key);
	if (!p)
		return 0;
	n = sscanf(p + strlen(key), "%lf %lf %lfx %lf %lf %lf%% %lf%%",
		   &r->ddp_ms, &r->one_ms, &r->ratio, &r->ddp_sps, &r->one_sps,
		   &r->spread[0], &r->spread[1]);
	return n == (spread ? 7 : 5);
}

/* Whether @ratio (2 decimals) is @a / @b (3 decimals each) */
static bool ratio_agrees(double ratio, double a, double b)
{
	double slack = ratio * (0.0005 / a + 0.0005 / b) * 1.01 + 0.005;

	return fabs(ratio - a / b) <= slack;
}

/* The target line of row @path says "met" or "NOT met" for @ratio */
static void assert_target(const char *out, const char *path, double ratio)
{
	char line[160];
	const char *p;

	snprintf(
		line, sizeof(line),
		"target (%s): 2-rank DDP step <= 2 x one-device step: %.2f x, ",
		path, ratio);
	p = strstr(out, line);
	assert_non_null(p);
	p += strlen(line);
	if (ratio <= 2.0)
		assert_int_equal(strncmp(p, "met\n", 4), 0);
	else
		assert_int_equal(strncmp(p, "NOT met\n", 8), 0);
}

static void check_row(const char *out, const char *path, bool spread)
{
	struct ddp_row r;

	memset(&r, 0, sizeof(r));
	if (!ddp_row(out, path, spread, &r))
		print_message("no complete row %s in:\n%s", path, out);
	assert_true(ddp_row(out, path, spread, &r));
	print_message("%s: ddp %.3f ms, one device %.3f ms, %.2f x\n", path,
		      r.ddp_ms, r.one_ms, r.ratio);
	assert_true(r.ddp_ms > 0 && r.one_ms > 0 && r.ratio > 0);
	assert_true(r.ddp_sps > 0 && r.one_sps > 0);
	if (spread)
		assert_true(r.spread[0] >= 0 && r.spread[1] >= 0);
	assert_true(ratio_agrees(r.ratio, r.ddp_ms, r.one_ms));
	assert_target(out, path, r.ratio);
}

/*
 * Two modes, three rounds: the banner, the header with the spread
 * columns, a complete row and a target line per mode and nothing else,
 * all on rank 0's stdout
 */
static void test_table_rounds(void **state)
{
	const char *args[] = { "--devices",   "2",
			       "--benchmark", "--benchmark-modes",
			       "eager,lazy",  "--benchmark-steps",
			       "5",	      "--warmup-steps",
			       "1",	      "--benchmark-rounds",
			       "3",	      NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, BENCH_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("ddp benchmark", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "batch 32 per rank, fp32, 1 warm-up + 5 "
				      "timed steps, 2-rank DDP (hpu_parallel) "
				      "beside one device, 3 rounds of every "
				      "path in turn\n"));
	assert_non_null(strstr(r.out, "path              ddp_step_ms  "
				      "one_step_ms    ddp/one  ddp_samples/s  "
				      "one_samples/s ddp_spread one_spread\n"));
	check_row(r.out, "hpu/eager", true);
	check_row(r.out, "hpu/lazy", true);
	assert_null(strstr(r.out, "hpu/graph"));
	assert_null(strstr(r.out, "\ncpu "));
	assert_null(strstr(r.out, "[rank 1]"));
	assert_non_null(strstr(r.out, "rank 0's device alone"));
	hpu_test_train_run_free(&r);
}

/* No --benchmark-modes: the --exec-mode row; one round: no spread */
static void test_table_one_round(void **state)
{
	const char *args[] = { "--devices",   "2",
			       "--benchmark", "--exec-mode",
			       "graph",	      "--benchmark-steps",
			       "4",	      "--warmup-steps",
			       "0",	      NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, BENCH_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("ddp benchmark", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "0 warm-up + 4 timed steps, 2-rank DDP "
				      "(hpu_parallel) beside one device\n"));
	assert_null(strstr(r.out, "spread"));
	check_row(r.out, "hpu/graph", false);
	assert_null(strstr(r.out, "hpu/lazy"));
	assert_null(strstr(r.out, "hpu/eager"));
	hpu_test_train_run_free(&r);
}

/*
 * A reference round longer than the collective timeout (100000 steps of
 * at least 0.1 ms against 3 s, which still leaves the rendezvous time on
 * a loaded machine): rank 1 gives up waiting with a message that says
 * so, and the run fails within bounds (the launcher stops rank 0 after
 * the grace period)
 */
static void test_reference_outlasts_timeout(void **state)
{
	const char *args[] = { "--devices",   "2",
			       "--benchmark", "--exec-mode",
			       "lazy",	      "--benchmark-steps",
			       "100000",      "--ccl-timeout",
			       "3",	      "--grace-period",
			       "1",	      NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, BENCH_RUN_MS, &r);
	if (r.status != 1 || !strstr(r.err, "waiting for rank 0's one-device "
					    "round"))
		hpu_test_train_dump("ddp benchmark, 3 s timeout", &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "[rank 1] hpu-train: benchmark "
				      "hpu/lazy: waiting for rank 0's "
				      "one-device round"));
	assert_non_null(strstr(r.err, "--ccl-timeout"));
	hpu_test_train_run_free(&r);
}

/* What the data parallel benchmark refuses, before any rank starts */
static void test_refused(void **state)
{
	static const struct hpu_test_train_bad cases[] = {
		{ { "--devices", "2", "--num-nodes", "2", "--benchmark" },
		  { "NODE_RANK=0", "MASTER_ADDR=127.0.0.1" },
		  "--benchmark runs on one node: use --num-nodes 1" },
		{ { "--devices", "2", "--num-nodes", "2", "--benchmark" },
		  { "WORLD_SIZE=4", "RANK=2", "LOCAL_RANK=0", "GROUP_RANK=1",
		    "LOCAL_WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
		    "MASTER_PORT=29600" },
		  "--benchmark runs on one node" },
		{ { "--devices", "2", "--benchmark", "--benchmark-prefetch" },
		  {},
		  "--benchmark-prefetch compares the paths of one device" },
		{ { "--accelerator", "cpu", "--devices", "2", "--benchmark" },
		  {},
		  "--accelerator cpu trains in one process" },
		{ { "--devices", "3", "--benchmark" }, {}, "--devices 3" },
	};
	(void)state;
	hpu_test_train_refused_all(cases, sizeof(cases) / sizeof(cases[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_refused, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_table_rounds, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_table_one_round,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reference_outlasts_timeout,
				       hpu_test_need_daemon),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_cli_bench_ddp", tests,
					   daemon_setup, hpu_test_group_stop);
}
