// SPDX-License-Identifier: MIT
/*
 * test_plot_cli.c - the plots end to end (docs/plots.md): hpu-train
 * writes metrics.svg beside metrics.csv whose polylines are the CSV's
 * values, hpu-plot metrics redraws the same bytes from the CSV,
 * --metrics-plot off draws nothing; hpu-plot refuses malformed input
 * with the line and exit status 2; hpu-ccl-tests --plot draws the busbw
 * column of its own table on a temporary daemon of 2 devices.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_scratch.h"
#include "../lib/hpu_test_svg.h"
#include "../lib/hpu_test_train_cli.h"

#define RUN_MS	  180000 /* a bound for a loaded machine under ASan */
#define MAX_ROWS  256
#define CCL_SIZES 4 /* 1K, 2K, 4K, 8K */

static char dir[] = "/tmp/hpu-test-plot-cli.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return hpu_test_remove_tree(dir);
}

static const char *tmp(const char *name)
{
	return hpu_test_scratch_path(dir, name);
}

/* run a built tool (@argv[0] its name) without cluster variables */
static void tool_run(const char *const *argv, struct hpu_test_proc *p)
{
	char **env = hpu_test_train_env(NULL), *full[24];
	struct hpu_test_proc_opts o = {
		.envp = env, .stderr_mode = HPU_TEST_STDERR_CAPTURE
	};
	int i;

	full[0] = (char *)hpu_test_bin(argv[0]);
	for (i = 1; argv[i]; i++) {
		assert_true(i < 23);
		full[i] = (char *)argv[i];
	}
	full[i] = NULL;
	assert_int_equal(hpu_test_proc_run(p, full, &o, RUN_MS), 0);
	free(env);
}

/*
 * The steps and values of columns 4 (loss), 6 (val_loss) and 7 (val_acc)
 * of a metrics.csv, per column only the rows that have a value
 */
struct csv_cols {
	double x[3][MAX_ROWS], y[3][MAX_ROWS];
	size_t n[3];
};

static void read_csv(const char *path, struct csv_cols *c)
{
	static const int col[3] = { 3, 5, 6 };
	char line[1024], *f[16], *s;
	FILE *in = fopen(path, "r");
	int nf, k;

	assert_non_null(in);
	memset(c, 0, sizeof(*c));
	assert_non_null(fgets(line, sizeof(line), in)); /* the header */
	while (fgets(line, sizeof(line), in)) {
		for (nf = 0, s = line; nf < 16; nf++) {
			f[nf] = s;
			s = strchr(s, ',');
			if (!s) {
				nf++;
				break;
			}
			*s++ = 0;
		}
		assert_int_equal(nf, 12);
		for (k = 0; k < 3; k++) {
			if (!*f[col[k]])
				continue;
			assert_true(c->n[k] < MAX_ROWS);
			c->x[k][c->n[k]] = strtod(f[0], NULL);
			c->y[k][c->n[k]] = strtod(f[col[k]], NULL);
			assert_true(isfinite(c->y[k][c->n[k]]));
			c->n[k]++;
		}
	}
	fclose(in);
}

static bool same_bytes(const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* hpu-train's metrics.svg is metrics.csv drawn; hpu-plot redraws it */
static void test_train_metrics_svg(void **state)
{
	const char *args[] = { "--accelerator",
			       "cpu",
			       "--max-epochs",
			       "3",
			       "--limit-train-batches",
			       "10",
			       "--log-dir",
			       tmp("log"),
			       "--log-every-n-steps",
			       "2",
			       "--progress-bar",
			       "off",
			       NULL };
	static const char *const names[3] = { "train loss", "validation loss",
					      "validation accuracy" };
	char csv[300], svg[300], re[300];
	struct hpu_test_train_run r;
	struct hpu_test_proc p;
	struct hpu_test_svg s;
	struct csv_cols c;
	int k;

	(void)state;
	snprintf(csv, sizeof(csv), "%s/log/metrics.csv", dir);
	snprintf(svg, sizeof(svg), "%s/log/metrics.svg", dir);
	snprintf(re, sizeof(re), "%s/redrawn.svg", dir);
	hpu_test_train_run_ok("hpu-train", args, NULL, RUN_MS, &r);
	hpu_test_train_run_free(&r);

	read_csv(csv, &c);
	assert_int_equal(c.n[0], 18); /* 30 steps / 2 + 3 epoch ends */
	assert_int_equal(c.n[2], 3);
	hpu_test_svg_load(svg, &s);
	assert_int_equal(s.nbox, 2);
	assert_int_equal(s.nlines, 3);
	hpu_test_svg_check_points(&s);
	for (k = 0; k < 3; k++)
		hpu_test_svg_check_affine(hpu_test_svg_find(&s, names[k]),
					  c.x[k], c.y[k], c.n[k]);
	hpu_test_svg_free(&s);

	/* the same CSV, the same picture */
	{
		const char *argv[] = { "hpu-plot", "metrics", csv,
				       "-o",	   re,	      NULL };

		tool_run(argv, &p);
		assert_int_equal(p.status, 0);
		hpu_test_proc_free(&p);
	}
	assert_true(same_bytes(svg, re));
}

static void test_train_plot_off(void **state)
{
	const char *args[] = { "--accelerator",
			       "cpu",
			       "--max-epochs",
			       "1",
			       "--limit-train-batches",
			       "4",
			       "--log-dir",
			       tmp("off"),
			       "--metrics-plot",
			       "off",
			       "--progress-bar",
			       "off",
			       NULL };
	const char *bad[] = { "--metrics-plot", "maybe", NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, NULL, RUN_MS, &r);
	assert_int_equal(r.status, 0);
	hpu_test_train_run_free(&r);
	assert_int_equal(access(tmp("off/metrics.csv"), F_OK), 0);
	assert_int_equal(access(tmp("off/metrics.svg"), F_OK), -1);
	hpu_test_train_refused(
		bad, NULL, "--metrics-plot 'maybe': expected on or off", 0, &r);
	hpu_test_train_run_free(&r);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* malformed input: exit 2, the file and line named, no output written */
static void test_plot_tool_refuses(void **state)
{
	static const struct {
		const char *csv; /* NULL: the file is not there */
		const char *msg;
	} bad[] = {
		{ "step,epoch,batch,loss,lr,val_loss,val_acc\n"
		  "1,0,0,0.5,0.1,,\n2,0,1,garbage,0.1,,\n",
		  "bad.csv:3: loss 'garbage' is not a number" },
		{ "step,loss\n1,0.5\n", "bad.csv:1: not a metrics log" },
		{ "step,epoch,batch,loss,lr,val_loss,val_acc\n1,0,0\n",
		  "bad.csv:2: 3 fields, the header has 7" },
		{ NULL, "bad.csv: No such file or directory" },
	};
	struct hpu_test_proc p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[] = { "hpu-plot",     "metrics",
				       tmp("bad.csv"), "-o",
				       tmp("bad.svg"), NULL };

		unlink(tmp("bad.csv"));
		if (bad[i].csv)
			put_file(tmp("bad.csv"), bad[i].csv);
		tool_run(argv, &p);
		if (p.status != 2 || !strstr(p.err, bad[i].msg))
			fail_msg("case %zu: status %d, stderr '%s', want '%s'",
				 i, p.status, p.err, bad[i].msg);
		assert_int_equal(access(tmp("bad.svg"), F_OK), -1);
		hpu_test_proc_free(&p);
	}
	{
		const char *argv[] = { "hpu-plot", "pie", "x", NULL };

		tool_run(argv, &p);
		assert_int_equal(p.status, 2);
		assert_non_null(strstr(p.err, "unknown command 'pie'"));
		hpu_test_proc_free(&p);
	}
	/* a good file into a directory that is not there: status 1 */
	{
		const char *argv[] = { "hpu-plot",	   "metrics",
				       tmp("good.csv"),	   "-o",
				       tmp("no/such.svg"), NULL };

		put_file(tmp("good.csv"),
			 "step,loss,val_loss,val_acc\n1,0.5,,\n");
		tool_run(argv, &p);
		assert_int_equal(p.status, 1);
		assert_non_null(strstr(p.err, "cannot write"));
		hpu_test_proc_free(&p);
	}
}

/* the out-of-place busbw column of @out's allreduce rows */
static size_t table_busbw(const char *out, double *bytes, double *busbw)
{
	const char *line;
	size_t n = 0;

	for (line = out; line && *line; line = strchr(line, '\n')) {
		char f[13][32];

		if (*line == '\n')
			line++;
		if (*line == '#' || !*line)
			continue;
		if (sscanf(line,
			   "%31s %31s %31s %31s %31s %31s %31s %31s %31s "
			   "%31s %31s %31s %31s",
			   f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
			   f[9], f[10], f[11], f[12]) != 13)
			continue;
		assert_true(n < CCL_SIZES);
		bytes[n] = log2(strtod(f[0], NULL));
		busbw[n++] = strtod(f[7], NULL);
	}
	return n;
}

static void test_ccl_plot(void **state)
{
	const char *argv[] = { "hpu-ccl-tests",
			       "-o",
			       "allreduce",
			       "-b",
			       "1K",
			       "-e",
			       "8K",
			       "-f",
			       "2",
			       "-g",
			       "2",
			       "-n",
			       "2",
			       "-w",
			       "1",
			       "--plot",
			       tmp("ccl.svg"),
			       NULL };
	const char *bad[] = { "hpu-ccl-tests", "--plot", tmp("no/such/ccl.svg"),
			      NULL };
	double bytes[CCL_SIZES], busbw[CCL_SIZES];
	struct hpu_test_daemon d;
	struct hpu_test_proc p;
	struct hpu_test_svg s;
	const char *why = hpu_test_have_fuse();

	(void)state;
	/* refused before any device is looked at */
	tool_run(bad, &p);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "--plot"));
	hpu_test_proc_free(&p);
	if (why) {
		print_message("skipped the run: %s\n", why);
		skip();
	}
	assert_int_equal(hpu_test_daemon_start(&d, 2, "gaudi2", NULL), 0);
	tool_run(argv, &p);
	if (p.status)
		print_message("hpu-ccl-tests: status %d\n%s\n%s\n", p.status,
			      p.out, p.err);
	assert_int_equal(p.status, 0);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	assert_int_equal(table_busbw(p.out, bytes, busbw), CCL_SIZES);
	hpu_test_svg_load(tmp("ccl.svg"), &s);
	assert_int_equal(s.nlines, 2); /* out of place, in place */
	hpu_test_svg_check_points(&s);
	/* the table prints busbw to 0.001 GB/s, the plot has it whole */
	hpu_test_svg_check_affine_tol(hpu_test_svg_find(&s, "allreduce"), bytes,
				      busbw, CCL_SIZES, 0.0005);
	assert_int_equal(hpu_test_svg_find(&s, "allreduce, in place")->n,
			 CCL_SIZES);
	hpu_test_svg_free(&s);
	hpu_test_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_metrics_svg),
		cmocka_unit_test(test_train_plot_off),
		cmocka_unit_test(test_plot_tool_refuses),
		cmocka_unit_test(test_ccl_plot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
