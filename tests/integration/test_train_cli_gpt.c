// SPDX-License-Identifier: MIT
/*
 * test_train_cli_gpt.c - the GPT through the hpu-train command line
 * (hpu-train --model gpt, then hpu-generate on its checkpoint) on one
 * daemon with two simulated Gaudi2 devices: a 2-rank data-parallel run
 * in graph mode with dropout whose workers are killed with SIGKILL
 * mid-run and resumed from the last checkpoint ends with the weight
 * bytes, final loss and metrics rows of the uninterrupted run; the
 * checkpoint it writes generates the same text on hpu and cpu, and a
 * resume from a checkpoint of another model is refused.
 *
 * The library-level kill -9 test of the GPT is test_train_gpt.c's
 * test_kill_resume; this one goes through the launcher, its workers and
 * the files the command line names, as a user of hpu-train does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
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

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_scratch.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_train_cli.h"
#include "../lib/hpu_test_util.h"

#define KILL_BOUND_MS 10000
#define GEN_MS	      30000
/* the step whose checkpoint (every 5 steps) triggers the kill */
#define KILL_MARK     "ckpt-step-15.htck"

/*
 * The tiny GPT of test_train_gpt.c (2 layers, 2 heads, width 32, context
 * 16) with dropout, in graph mode, 2 ranks x 4: milliseconds a step
 */
static const char *const gpt_args[] = {
	"--model",
	"gpt",
	"--devices",
	"2",
	"--gpt-layers",
	"2",
	"--heads",
	"2",
	"--width",
	"32",
	"--context",
	"16",
	"--batch-size",
	"4",
	"--dropout",
	"0.1",
	"--exec-mode",
	"graph",
	"--max-steps",
	"120",
	"--seed",
	"7",
	"--progress-bar",
	"plain",
	"--log-every-n-steps",
	"5",
	"--all-ranks-print",
	"--print-weights-hash",
};

#define NGPT (sizeof(gpt_args) / sizeof(gpt_args[0]))

static char dir[64];

static int group_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	snprintf(dir, sizeof(dir), "/tmp/test_train_cli_gpt.%d", (int)getpid());
	if (mkdir(dir, 0700))
		return -1;
	return hpu_test_group_start(2, "gaudi2");
}

static int group_teardown(void **state)
{
	int ret = hpu_test_group_stop(state);

	if (hpu_test_remove_tree(dir))
		ret = -1;
	return ret;
}

/* gpt_args then @extra (NULL-terminated), into @out (NULL-terminated) */
static void with_args(const char **out, size_t max, const char *const *extra)
{
	size_t n = 0;

	while (n < NGPT && n + 1 < max) {
		out[n] = gpt_args[n];
		n++;
	}
	while (*extra && n + 1 < max)
		out[n++] = *extra++;
	assert_null(*extra);
	out[n] = NULL;
}

/*
 * A 2-rank GPT run (graph mode, dropout 0.1: its masks derive from the
 * seed and the step) killed with SIGKILL once its step-15 checkpoint
 * exists, resumed from last.htck, ends with the uninterrupted run's
 * weight bytes on both ranks, its final loss, and its metrics rows (none
 * twice); the resumed run's final checkpoint (step 120) then generates
 * the same tokens on hpu (graph) and cpu.
 */
static void test_kill_resume_generate(void **state)
{
	char ck[96], log0[96], log1[96], last[128], mark[128];
	const char *full_x[] = { "--log-dir", log0, NULL };
	const char *killed_x[] = {
		"--log-dir", log1, "--ckpt-dir", ck, "--ckpt-every-n-steps",
		"5",	     NULL
	};
	const char *resumed_x[] = { "--log-dir",  log1, "--ckpt-path", last,
				    "--ckpt-dir", ck,	NULL };
	const char *full[NGPT + 3], *killed[NGPT + 7], *resumed[NGPT + 7];
	const char *h0;
	struct hpu_test_train_run r0;
	struct hpu_test_proc_opts po = { .stderr_mode =
						 HPU_TEST_STDERR_CAPTURE };
	struct hpu_test_proc g;
	char *gen[16];
	int n;

	(void)state;
	snprintf(ck, sizeof(ck), "%s/ck", dir);
	snprintf(log0, sizeof(log0), "%s/log0", dir);
	snprintf(log1, sizeof(log1), "%s/log1", dir);
	snprintf(last, sizeof(last), "%s/last.htck", ck);
	snprintf(mark, sizeof(mark), "%s/" KILL_MARK, ck);
	with_args(full, NGPT + 3, full_x);
	with_args(killed, NGPT + 7, killed_x);
	with_args(resumed, NGPT + 7, resumed_x);

	/* uninterrupted */
	hpu_test_train_run(full, NULL, HPU_TEST_TRAIN_RUN_MS, &r0);
	if (r0.status)
		hpu_test_train_dump("uninterrupted", &r0);
	assert_int_equal(r0.status, 0);
	assert_non_null(strstr(r0.out, "gpt (2 layers, 2 heads, width 32, "
				       "context 16, tied) on text"));
	h0 = hpu_test_train_weights_of(r0.out, "[rank 0] ");
	print_message("uninterrupted: weights %s, %.1f s\n", h0,
		      r0.ms / 1000.0);
	assert_string_not_equal(h0, "none");
	assert_string_equal(hpu_test_train_weights_of(r0.out, "[rank 1] "), h0);

	/* killed once its step-15 checkpoint exists */
	hpu_test_train_killed_midrun(killed, mark, KILL_BOUND_MS, 2);
	assert_int_equal(access(last, R_OK), 0);

	/* resumed from the last checkpoint: last.htck follows
	 * ckpt-step-15.htck, 10 when killed in between */
	hpu_test_train_check_resume(&r0, resumed, 5, 10, 120,
				    "[rank 0] final loss ", log0, log1);
	hpu_test_train_run_free(&r0);

	/* the checkpoint the command line wrote generates on hpu and cpu */
	n = 0;
	gen[n++] = (char *)hpu_test_bin("hpu-generate");
	gen[n++] = "--ckpt-path";
	gen[n++] = last;
	gen[n++] = "--prompt";
	gen[n++] = "The ";
	gen[n++] = "--accelerator";
	gen[n++] = "hpu,cpu";
	gen[n++] = "--exec-mode";
	gen[n++] = "graph";
	gen[n++] = "--batch-size";
	gen[n++] = "2";
	gen[n] = NULL;
	assert_int_equal(hpu_test_proc_run(&g, gen, &po, GEN_MS), 0);
	if (g.status)
		print_message("%s%s", g.out, g.err);
	assert_int_equal(g.status, 0);
	assert_non_null(strstr(g.out, "hpu-generate: gpt (2 layers, 2 heads, "
				      "width 32, context 16) of step 120"));
	assert_non_null(strstr(g.out, "--- sequence 2 ---\nThe "));
	assert_non_null(strstr(g.out, "the 2 paths generated the same tokens"));
	hpu_test_proc_free(&g);
}

/*
 * Resuming the GPT from a checkpoint of another model (the digits MLP)
 * or another GPT configuration is refused with a message naming the
 * checkpoint, before any step
 */
static void test_resume_other_model(void **state)
{
	char mlp_dir[96], mlp_ck[128], gpt_ck[128];
	const char *mlp[] = { "--devices",  "1",     "--max-steps", "2",
			      "--ckpt-dir", mlp_dir, NULL };
	const struct {
		const char *args[20];
		const char *msg;
	} cases[] = {
		{ { "--model", "gpt", "--devices", "1", "--gpt-layers", "2",
		    "--heads", "2", "--width", "32", "--context", "16",
		    "--ckpt-path", mlp_ck, NULL },
		  "does not match this run: it is of the mlp model, this run trains the gpt" },
		{ { "--model", "gpt", "--devices", "2", "--gpt-layers", "2",
		    "--heads", "2", "--width", "64", "--context", "16",
		    "--batch-size", "4", "--seed", "7", "--ckpt-path", gpt_ck,
		    NULL },
		  "does not match this run: GPT width 32 in the file, 64 now" },
	};
	struct hpu_test_train_run r;
	size_t i;

	(void)state;
	snprintf(mlp_dir, sizeof(mlp_dir), "%s/mlp", dir);
	snprintf(mlp_ck, sizeof(mlp_ck), "%s/last.htck", mlp_dir);
	snprintf(gpt_ck, sizeof(gpt_ck), "%s/ck/last.htck", dir);
	hpu_test_train_run(mlp, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	if (r.status)
		hpu_test_train_dump("mlp", &r);
	assert_int_equal(r.status, 0);
	hpu_test_train_run_free(&r);
	if (access(gpt_ck, R_OK)) {
		print_message("skipped: no GPT checkpoint (%s)\n", gpt_ck);
		skip();
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hpu_test_train_run(cases[i].args, NULL, HPU_TEST_TRAIN_RUN_MS,
				   &r);
		print_message("case %zu: status %d: %s", i, r.status, r.err);
		if (r.status == 0 || !strstr(r.err, cases[i].msg) ||
		    strstr(r.out, "final loss"))
			hpu_test_train_dump("refused resume", &r);
		/* exit status 2: a wrong input, found by the workers before
		 * they train (hpu-train(1)) */
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, cases[i].msg));
		assert_non_null(strstr(r.err, dir)); /* names the file */
		assert_null(strstr(r.out, "final loss"));
		hpu_test_train_run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kill_resume_generate,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_resume_other_model,
				       hpu_test_need_daemon),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_cli_gpt", tests, group_setup,
					   group_teardown);
}
