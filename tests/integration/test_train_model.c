// SPDX-License-Identifier: MIT
/*
 * test_train_model.c - hpu-train --benchmark's modeled columns
 * (--timing-model, docs/timing-model.md) on a daemon of two simulated
 * Gaudi2 devices: the columns are there for every hpu row (MLP and GPT),
 * positive, the same in two runs of the same jobs (the layout ignores
 * host times), the MME's modeled busy time about doubles with the batch
 * at GEMM-bound sizes, `none` removes them, bad values exit 2. The
 * modeled figures are not wall-clock times: they are asserted exactly or
 * by ratio, never against a clock.
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

static int daemon_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	return hpu_test_group_start(2, "gaudi2");
}

/*
 * The modeled step and MME columns of row @path (the 6th and 7th
 * fields): the strings into @step and @mme (may be NULL); false when
 * the row is not there or has no such fields
 */
static bool model_cols(const char *out, const char *path, char *step, char *mme)
{
	char key[40], f[7][40];
	const char *p;
	int n;

	snprintf(key, sizeof(key), "\n%s ", path);
	p = strstr(out, key);
	if (!p)
		return false;
	n = sscanf(p + 1, "%39s %39s %39s %39s %39s %39s %39s", f[0], f[1],
		   f[2], f[3], f[4], f[5], f[6]);
	if (n != 7)
		return false;
	if (step)
		strcpy(step, f[5]);
	if (mme)
		strcpy(mme, f[6]);
	return true;
}

static void run_ok(const char *const *args, struct hpu_test_train_run *r)
{
	hpu_test_train_run(args, NULL, 4 * HPU_TEST_TRAIN_RUN_MS, r);
	if (r->status != 0)
		hpu_test_train_dump("benchmark", r);
	assert_int_equal(r->status, 0);
}

/* A positive modeled step and MME time on @path; returns them */
static void positive(const char *out, const char *path, double *step,
		     double *mme)
{
	char s[40], m[40];

	if (!model_cols(out, path, s, m))
		print_message("no modeled columns on %s in:\n%s", path, out);
	assert_true(model_cols(out, path, s, m));
	*step = strtod(s, NULL);
	*mme = strtod(m, NULL);
	print_message("%s: modeled gaudi2 step %s us, MME %s us\n", path, s, m);
	assert_true(*step > 0);
	assert_true(*mme > 0 && *mme <= *step);
}

/* The columns on every hpu row, "-" on the cpu row; the same twice */
static void test_columns_stable(void **state)
{
	const char *args[] = { "--devices",
			       "1",
			       "--benchmark",
			       "--benchmark-modes",
			       "eager,lazy,graph",
			       "--benchmark-steps",
			       "4",
			       "--warmup-steps",
			       "1",
			       NULL };
	static const char *const paths[] = { "hpu/eager", "hpu/lazy",
					     "hpu/graph" };
	struct hpu_test_train_run a, b;
	char sa[40], sb[40], ma[40], mb[40], cs[40], cm[40];
	double step, mme;
	size_t i;

	(void)state;
	run_ok(args, &a);
	run_ok(args, &b);
	assert_non_null(strstr(a.out, " gaudi2_us  gaudi2_mme_us\n"));
	assert_non_null(strstr(a.out, "(gaudi2_us: modeled gaudi2 step"));
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		positive(a.out, paths[i], &step, &mme);
		/* the same jobs: the same modeled nanoseconds */
		assert_true(model_cols(a.out, paths[i], sa, ma));
		assert_true(model_cols(b.out, paths[i], sb, mb));
		assert_string_equal(sa, sb);
		assert_string_equal(ma, mb);
	}
	/* lazy and graph run the same program */
	assert_true(model_cols(a.out, "hpu/lazy", sa, ma));
	assert_true(model_cols(a.out, "hpu/graph", sb, mb));
	assert_string_equal(ma, mb);
	assert_true(model_cols(a.out, "cpu", cs, cm));
	assert_string_equal(cs, "-");
	assert_string_equal(cm, "-");
	hpu_test_train_run_free(&a);
	hpu_test_train_run_free(&b);
}

/* GEMM-bound sizes: twice the batch, about twice the MME time */
static void test_batch_doubles(void **state)
{
	const char *args[] = { "--devices",   "1",
			       "--benchmark", "--benchmark-modes",
			       "eager",	      "--benchmark-steps",
			       "2",	      "--warmup-steps",
			       "1",	      "--data",
			       "synthetic",   "--synthetic-features",
			       "2048",	      "--synthetic-classes",
			       "16",	      "--layers",
			       "256",	      "--batch-size",
			       "512",	      NULL };
	struct hpu_test_train_run a, b;
	double s1, m1, s2, m2;

	(void)state;
	run_ok(args, &a);
	args[18] = "1024";
	run_ok(args, &b);
	positive(a.out, "hpu/eager", &s1, &m1);
	positive(b.out, "hpu/eager", &s2, &m2);
	print_message("batch 2x: step %.3f x, MME %.3f x\n", s2 / s1, m2 / m1);
	/* tiles and k both follow the batch; launches do not */
	assert_true(m2 / m1 > 1.7 && m2 / m1 <= 2.0);
	assert_true(s2 / s1 > 1.3 && s2 / s1 <= 2.0);
	hpu_test_train_run_free(&a);
	hpu_test_train_run_free(&b);
}

/* The GPT's rows have them too */
static void test_gpt(void **state)
{
	const char *args[] = { "--devices",
			       "1",
			       "--model",
			       "gpt",
			       "--gpt-layers",
			       "1",
			       "--width",
			       "32",
			       "--heads",
			       "2",
			       "--context",
			       "16",
			       "--benchmark",
			       "--benchmark-modes",
			       "eager,lazy",
			       "--benchmark-steps",
			       "2",
			       "--warmup-steps",
			       "1",
			       NULL };
	struct hpu_test_train_run r;
	double step, mme;

	(void)state;
	run_ok(args, &r);
	positive(r.out, "hpu/eager", &step, &mme);
	positive(r.out, "hpu/lazy", &step, &mme);
	hpu_test_train_run_free(&r);
}

/* --timing-model none: the table without them */
static void test_none(void **state)
{
	const char *args[] = { "--devices",   "1",
			       "--benchmark", "--benchmark-steps",
			       "2",	      "--warmup-steps",
			       "1",	      "--timing-model",
			       "none",	      NULL };
	struct hpu_test_train_run r;

	(void)state;
	run_ok(args, &r);
	assert_non_null(strstr(r.out, "\nhpu/lazy "));
	assert_null(strstr(r.out, "_us"));
	assert_null(strstr(r.out, "modeled"));
	hpu_test_train_run_free(&r);
}

static void test_refused(void **state)
{
	static const struct hpu_test_train_bad cases[] = {
		{ { "--benchmark", "--timing-model", "gaudi9" },
		  {},
		  "--timing-model 'gaudi9': expected gaudi, gaudi2, gaudi3 or "
		  "none" },
		{ { "--benchmark", "--timing-model", "" },
		  {},
		  "--timing-model '': expected gaudi, gaudi2, gaudi3 or none" },
		{ { "--timing-model", "gaudi2", "--max-steps", "1" },
		  {},
		  "--timing-model needs --benchmark" },
		/* the device model times jobs on the device's chip */
		{ { "--devices", "1", "--benchmark", "--timing-model",
		    "gaudi3" },
		  {},
		  "--timing-model gaudi3: the device model times jobs on its "
		  "own chip and hpu0 is a gaudi2" },
	};
	(void)state;
	hpu_test_train_refused_all(cases, sizeof(cases) / sizeof(cases[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_refused, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_columns_stable,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_none, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_gpt, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_batch_doubles,
				       hpu_test_need_daemon),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_model", tests, daemon_setup,
					   hpu_test_group_stop);
}
