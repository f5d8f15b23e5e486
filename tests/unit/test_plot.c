// SPDX-License-Identifier: MIT
/*
 * test_plot.c - the SVG writer (common/hpu_plot.c), the metrics.csv
 * reader (trainer/lib/plot_metrics.c) and the busbw table reader
 * (tools/hpu-ccl-tests/plot.c), docs/plots.md: well-formed output (own
 * check and xmllint), one polyline per series with one point per value,
 * every point inside its plot box, x never going back, the points an
 * affine image of the data, the same bytes for the same data; bad
 * figures and malformed inputs refused with the line and the reason.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpu_plot.h"
#include "../lib/hpu_test_scratch.h"
#include "../lib/hpu_test_svg.h"
#include "ht_metrics_plot.h"
#include "../../tools/hpu-ccl-tests/cclt_plot.h"

static char dir[] = "/tmp/hpu-test-plot.XXXXXX";

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

static void put_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static bool same_bytes(const char *a, const char *b)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* a figure of every kind of series: none, one and many points, log2 x */
static double lx[50], ly[50], bx[12], by[12];
static const double one_x[] = { 3.0 }, one_y[] = { -2.5 };

static void make_fig(struct hpu_plot_series *s, struct hpu_plot_panel *pn,
		     struct hpu_plot_fig *fig)
{
	int i;

	for (i = 0; i < 50; i++) {
		lx[i] = i * 7; /* repeated x: the epoch-end rows' */
		if (i == 10)
			lx[i] = lx[i - 1];
		ly[i] = 2.3 * exp(-i / 12.0) + 0.01 * (i % 3);
	}
	for (i = 0; i < 12; i++) {
		bx[i] = ldexp(1.0, 10 + 2 * i); /* 1K .. 4G */
		by[i] = 40.0 * i / (i + 3.0);
	}
	s[0] = (struct hpu_plot_series){ .name = "empty" };
	s[1] = (struct hpu_plot_series){
		.name = "one", .x = one_x, .y = one_y, .n = 1, .color = 1
	};
	s[2] = (struct hpu_plot_series){ .name = "many",
					 .x = lx,
					 .y = ly,
					 .n = 50,
					 .color = 2,
					 .dashed = true };
	s[3] = (struct hpu_plot_series){
		.name = "bytes", .x = bx, .y = by, .n = 12
	};
	pn[0] = (struct hpu_plot_panel){
		.title = "linear",
		.x = { .label = "step" },
		.y = { .label = "loss", .zero = true },
		.series = s,
		.nseries = 3,
	};
	pn[1] = (struct hpu_plot_panel){
		.title = "log2",
		.x = { .label = "size", .log2 = true },
		.y = { .label = "GB/s", .zero = true },
		.series = &s[3],
		.nseries = 1,
	};
	*fig = (struct hpu_plot_fig){
		.title = "t", .note = "n", .panels = pn, .npanels = 2
	};
}

static void test_svg_series(void **state)
{
	struct hpu_plot_series s[4];
	struct hpu_plot_panel pn[2];
	struct hpu_plot_fig fig;
	struct hpu_test_svg svg;
	const struct hpu_test_svg_line *l;

	(void)state;
	make_fig(s, pn, &fig);
	assert_int_equal(hpu_plot_svg_file(tmp("a.svg"), &fig), 0);
	hpu_test_svg_load(tmp("a.svg"), &svg);
	assert_int_equal(svg.nbox, 2);
	assert_int_equal(svg.nlines, 4); /* one per series, empty ones too */
	hpu_test_svg_check_points(&svg);
	l = hpu_test_svg_find(&svg, "empty");
	assert_non_null(l);
	assert_int_equal(l->n, 0);
	l = hpu_test_svg_find(&svg, "one");
	hpu_test_svg_check_affine(l, one_x, one_y, 1);
	l = hpu_test_svg_find(&svg, "many");
	assert_int_equal(l->box, 0);
	hpu_test_svg_check_affine(l, lx, ly, 50);
	/* log2 axis: affine in log2(x) */
	l = hpu_test_svg_find(&svg, "bytes");
	assert_int_equal(l->box, 1);
	{
		double lg[12];
		int i;

		for (i = 0; i < 12; i++)
			lg[i] = log2(bx[i]);
		hpu_test_svg_check_affine(l, lg, by, 12);
	}
	/* its ticks name the powers of two */
	assert_non_null(strstr(svg.text, ">1K</text>"));
	assert_non_null(strstr(svg.text, ">4G</text>"));
	hpu_test_svg_free(&svg);

	/* the same figure, the same bytes */
	assert_int_equal(hpu_plot_svg_file(tmp("b.svg"), &fig), 0);
	assert_true(same_bytes(tmp("a.svg"), tmp("b.svg")));
}

/* what cannot be drawn is refused before any file exists */
static void test_svg_refused(void **state)
{
	static const double nan_y[] = { 1.0, NAN }, inf_y[] = { 1.0, INFINITY };
	static const double back_x[] = { 2.0, 1.0 }, zero_x[] = { 0.0, 1.0 };
	static const double ok_x[] = { 1.0, 2.0 }, ok_y[] = { 1.0, 2.0 };
	static const double big_y[] = { -1e301, 1e301 };
	struct hpu_plot_series s = { .name = "s", .n = 2 };
	struct hpu_plot_panel pn = { .series = &s, .nseries = 1 };
	struct hpu_plot_fig fig = { .title = "t", .panels = &pn, .npanels = 1 };
	const char *out = tmp("refused.svg");
	struct {
		const double *x, *y;
		bool log2_x, log2_y;
	} bad[] = {
		{ ok_x, nan_y, false, false }, { ok_x, inf_y, false, false },
		{ nan_y, ok_y, false, false }, { back_x, ok_y, false, false },
		{ zero_x, ok_y, true, false }, { ok_x, ok_y, false, true },
		{ ok_x, big_y, false, false },
	};
	struct hpu_plot_fig none = { .title = "t", .panels = &pn };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s.x = bad[i].x;
		s.y = bad[i].y;
		pn.x.log2 = bad[i].log2_x;
		pn.y.log2 = bad[i].log2_y;
		assert_int_equal(hpu_plot_svg_file(out, &fig), -EINVAL);
		assert_int_equal(access(out, F_OK), -1);
	}
	assert_int_equal(hpu_plot_svg_file(out, &none), -EINVAL);
	pn.nseries = HPU_PLOT_MAX_SERIES + 1;
	assert_int_equal(hpu_plot_svg_file(out, &fig), -EINVAL);
	assert_int_equal(access(out, F_OK), -1);

	/* a directory that is not there: the error, nothing left */
	s.x = ok_x;
	s.y = ok_y;
	pn.x.log2 = pn.y.log2 = false;
	pn.nseries = 1;
	assert_int_equal(hpu_plot_svg_file(tmp("no/such.svg"), &fig), -ENOENT);
	assert_int_equal(hpu_plot_svg_file(out, &fig), 0);
	assert_int_equal(access(out, F_OK), 0);
}

/* names are escaped; bytes that are not UTF-8 become '?' */
static void test_svg_escape(void **state)
{
	static const double x[] = { 1.0 }, y[] = { 1.0 };
	struct hpu_plot_series s[2] = {
		{ .name = "<a&b>\"'", .x = x, .y = y, .n = 1 },
		{ .name = "bad \xff\xc3 \x01 \xe2\x82\xac",
		  .x = x,
		  .y = y,
		  .n = 1 },
	};
	struct hpu_plot_panel pn = { .title = "</g>",
				     .x = { .label = "&" },
				     .series = s,
				     .nseries = 2 };
	struct hpu_plot_fig fig = { .title = "]]>",
				    .panels = &pn,
				    .npanels = 1 };
	struct hpu_test_svg svg;

	(void)state;
	assert_int_equal(hpu_plot_svg_file(tmp("esc.svg"), &fig), 0);
	hpu_test_svg_load(tmp("esc.svg"), &svg);
	assert_non_null(hpu_test_svg_find(&svg, "&lt;a&amp;b&gt;&quot;&apos;"));
	assert_non_null(hpu_test_svg_find(&svg, "bad ?? ? \xe2\x82\xac"));
	hpu_test_svg_free(&svg);
}

/* the test's own XML check does fail on what is not well-formed */
static void test_xml_check(void **state)
{
	static const char *const bad[] = {
		"",
		"<a><b></a></b>",
		"<a x=1/>",
		"<a x=\"1\"y=\"2\"/>",
		"<a>&foo;</a>",
		"<a>x < y</a>",
		"<a/><b/>",
		"text<a/>",
		"<a>\x01</a>",
		"<a>\xff</a>",
		"<a x=\"<\"/>",
		"<a>",
	};
	size_t i;

	(void)state;
	assert_null(hpu_test_xml_error("<?xml version=\"1.0\"?>\n<a x=\"1\">"
				       "<!-- c --><b/>&amp;&#38;&#x26;</a>\n"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!hpu_test_xml_error(bad[i]))
			fail_msg("case %zu accepted: %s", i, bad[i]);
}

#define HDR                                                        \
	"step,epoch,batch,loss,lr,val_loss,val_acc,samples_per_s," \
	"step_time_s,mem_in_use,mem_peak,utilization\n"

static void test_metrics_read(void **state)
{
	static const char csv[] = HDR "1,0,0,2.3,0.1,,,5,1,0,0,\n"
				      "2,0,1,2.0,0.1,,,5,1,0,0,\r\n"
				      "\n"
				      "2,0,1,2.0,0.1,1.9,0.40,5,1,0,0,\n"
				      "3,1,0,nan,0.1,,,5,1,0,0,\n"
				      "4,1,1,inf,0.1,,,5,1,0,0,\n"
				      "4,1,1,1.5,0.1,-inf,0.55,5,1,0,0,\n"
				      "6,2,0,1.25,0.1,,,5,1,0,0,";
	struct ht_metrics_curves c;
	char err[256];

	(void)state;
	put_file(tmp("m.csv"), csv, sizeof(csv) - 1);
	assert_int_equal(ht_metrics_read(tmp("m.csv"), &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.rows, 7);
	assert_int_equal(c.first_step, 1);
	assert_int_equal(c.last_step, 6); /* no newline, but complete */
	assert_int_equal(c.nonfinite, 3);
	assert_false(c.cut);
	assert_int_equal(c.n[HT_CURVE_LOSS], 5);
	assert_int_equal(c.n[HT_CURVE_VAL_LOSS], 1);
	assert_int_equal(c.n[HT_CURVE_VAL_ACC], 2);
	assert_true(c.x[HT_CURVE_VAL_ACC][1] == 4.0);
	assert_true(c.y[HT_CURVE_VAL_ACC][1] == 0.55);
	ht_metrics_free(&c);

	/* a killed run's half row at the end is left out */
	put_file(tmp("cut.csv"), HDR "1,0,0,2.3,0.1,,,5,1,0,0,\n2,0,1,2.",
		 sizeof(HDR "1,0,0,2.3,0.1,,,5,1,0,0,\n2,0,1,2.") - 1);
	assert_int_equal(ht_metrics_read(tmp("cut.csv"), &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.rows, 1);
	assert_true(c.cut);
	ht_metrics_free(&c);
}

static void test_metrics_refused(void **state)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		const char *msg;
	} bad[] = {
		{ "", 0, "bad.csv:0: empty" },
		{ "step,loss,val_loss\n1,2,3\n", 0,
		  "bad.csv:1: not a metrics log: the header has no 'val_acc'" },
		{ "loss,val_loss,val_acc\n", 0, "no 'step' column" },
		{ HDR "1,0,0,2.3\n", 0,
		  "bad.csv:2: 4 fields, the header has 12" },
		{ HDR "1,0,0,abc,0.1,,,5,1,0,0,\n", 0,
		  "bad.csv:2: loss 'abc' is not a number" },
		{ HDR "1,0,0,2.3x,0.1,,,5,1,0,0,\n", 0,
		  "'2.3x' is not a number" },
		{ HDR "1,0,0,1,0.1,,0.5%,5,1,0,0,\n", 0,
		  "val_acc '0.5%' is not a number" },
		{ HDR "x,0,0,1,0.1,,,5,1,0,0,\n", 0,
		  "step 'x' is not an integer" },
		{ HDR "-1,0,0,1,0.1,,,5,1,0,0,\n", 0,
		  "step '-1' is not an integer" },
		{ HDR "5,0,0,1,0.1,,,5,1,0,0,\n4,0,0,1,0.1,,,5,1,0,0,\n", 0,
		  "bad.csv:3: step 4 goes back from 5" },
		{ HDR "1,0,0,1\0,0.1,,,5,1,0,0,\n", sizeof(HDR) + 24,
		  "bad.csv:2: a NUL byte" },
	};
	struct ht_metrics_curves c;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_file(tmp("bad.csv"), bad[i].text,
			 bad[i].len ? bad[i].len : strlen(bad[i].text));
		assert_int_equal(ht_metrics_read(tmp("bad.csv"), &c, err,
						 sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err,
				 bad[i].msg);
		ht_metrics_free(&c);
	}
	assert_int_equal(ht_metrics_read(tmp("none.csv"), &c, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "none.csv"));
}

/* the picture of a CSV: its values, one point per row that has one */
static void test_metrics_svg(void **state)
{
	static const char csv[] = HDR "10,0,9,2.25,0.1,,,5,1,0,0,\n"
				      "20,0,19,1.5,0.1,,,5,1,0,0,\n"
				      "20,0,19,1.5,0.1,1.75,0.5,5,1,0,0,\n"
				      "30,1,9,nan,0.1,,,5,1,0,0,\n"
				      "40,1,19,0.5,0.1,,,5,1,0,0,\n"
				      "40,1,19,0.5,0.1,0.75,0.875,5,1,0,0,\n";
	static const double lx[] = { 10, 20, 20, 40, 40 },
			    ly[] = { 2.25, 1.5, 1.5, 0.5, 0.5 };
	static const double vx[] = { 20, 40 }, vl[] = { 1.75, 0.75 },
			    va[] = { 0.5, 0.875 };
	struct ht_metrics_curves c;
	struct hpu_test_svg svg;
	char err[256];

	(void)state;
	put_file(tmp("m2.csv"), csv, sizeof(csv) - 1);
	assert_int_equal(ht_metrics_read(tmp("m2.csv"), &c, err, sizeof(err)),
			 0);
	assert_int_equal(ht_metrics_svg(&c, "m2", tmp("m2.svg")), 0);
	ht_metrics_free(&c);
	hpu_test_svg_load(tmp("m2.svg"), &svg);
	assert_int_equal(svg.nbox, 2);
	assert_int_equal(svg.nlines, 3);
	hpu_test_svg_check_points(&svg);
	hpu_test_svg_check_affine(hpu_test_svg_find(&svg, "train loss"), lx, ly,
				  5);
	hpu_test_svg_check_affine(hpu_test_svg_find(&svg, "validation loss"),
				  vx, vl, 2);
	hpu_test_svg_check_affine(
		hpu_test_svg_find(&svg, "validation accuracy"), vx, va, 2);
	/* both panels span the same steps: the same x for the same step */
	assert_true(hpu_test_svg_find(&svg, "validation loss")->x[1] ==
		    hpu_test_svg_find(&svg, "validation accuracy")->x[1]);
	assert_non_null(strstr(svg.text, "1 nan/inf values left out"));
	hpu_test_svg_free(&svg);
}

#define CCL_HDR                                                                     \
	"# hpu-ccl-tests: libhpuccl 1.0.0, 2 ranks, rank 0 on hpu0 (pid 1)\n"       \
	"#\n# allreduce: 2 ranks, float, redop sum, root -1, 1024..4096 bytes x2\n" \
	"#\n#   size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
#define CCL_ROW(b, bw, ip) \
	"  " b " 256 float sum -1 10.0 0.1 " bw " 0 10.0 0.1 " ip " 0\n"

static void test_ccl_tables(void **state)
{
	/* the 2048 row has the model's two columns (--model) */
	static const char hpu[] = CCL_HDR CCL_ROW(
		"1024", "0.5",
		"0.25") "# modeled: one call on 2 gaudi2 cards (HL-225)\n"
			"  2048 256 float sum -1 10.0 0.1 1.0 0 10.0 0.1 N/A 0 3.5 0.6\n" CCL_ROW(
				"4096", "nan",
				"2.0") "# Avg bus bandwidth : 1.0\n#\n"
				       "# alltoall: 2 ranks, float\n"
				       "  1024 256 float none -1 10.0 0.1 0.75 0 N/A N/A N/A N/A\n";
	static const char mpi[] =
		"#\n# MPI_Allreduce: 2 ranks, float, sum, 1024..2048 bytes\n"
		"  1024 256 float sum -1 10.0 0.1 0.125\n"
		"  2048 512 float sum -1 10.0 0.1 0.5\n";
	static const double ax[] = { 10, 11 }, ay[] = { 0.5, 1.0 };
	static const double ix[] = { 10, 12 }, iy[] = { 0.25, 2.0 };
	struct cclt_plot p;
	struct hpu_test_svg svg;
	char err[256];
	FILE *f;

	(void)state;
	cclt_plot_init(&p, "ccl");
	f = fmemopen((void *)hpu, sizeof(hpu) - 1, "r");
	assert_int_equal(cclt_plot_read_table(&p, f, "hpu.txt", "hpu", err,
					      sizeof(err)),
			 0);
	fclose(f);
	f = fmemopen((void *)mpi, sizeof(mpi) - 1, "r");
	assert_int_equal(cclt_plot_read_table(&p, f, "mpi.txt", "mpi", err,
					      sizeof(err)),
			 0);
	fclose(f);
	assert_int_equal(p.skipped, 1);
	assert_int_equal(p.nlines, 4);
	assert_int_equal(cclt_plot_write(&p, tmp("ccl.svg")), 0);
	cclt_plot_free(&p);

	hpu_test_svg_load(tmp("ccl.svg"), &svg);
	assert_int_equal(svg.nlines, 4);
	hpu_test_svg_check_points(&svg);
	hpu_test_svg_check_affine(hpu_test_svg_find(&svg, "hpu: allreduce"), ax,
				  ay, 2);
	hpu_test_svg_check_affine(
		hpu_test_svg_find(&svg, "hpu: allreduce, in place"), ix, iy, 2);
	assert_int_equal(hpu_test_svg_find(&svg, "hpu: alltoall")->n, 1);
	assert_int_equal(hpu_test_svg_find(&svg, "mpi: MPI_Allreduce")->n, 2);
	hpu_test_svg_free(&svg);
}

static void test_ccl_tables_refused(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ CCL_ROW("1024", "1", "1"), "t:1: a row before any" },
		{ CCL_HDR "  1024 256 float\n", "t:6: 3 columns" },
		{ CCL_HDR "  1024 256 float sum -1 1 1 1 0 1 1 1 0 3.5\n",
		  "t:6: 14 columns" },
		{ CCL_HDR CCL_ROW("1K", "1", "1"), "t:6: size '1K' is not" },
		{ CCL_HDR CCL_ROW("1024", "fast", "1"),
		  "t:6: busbw 'fast' is not" },
		{ CCL_HDR CCL_ROW("2048", "1", "1") CCL_ROW("1024", "1", "1"),
		  "t:7: size 1024 is below" },
		{ "hpu-ccl-tests: rank 1: cannot open hpu1\n",
		  "t:1: 6 columns" },
	};
	struct cclt_plot p;
	char err[256];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cclt_plot_init(&p, "ccl");
		f = fmemopen((void *)bad[i].text, strlen(bad[i].text), "r");
		assert_non_null(f);
		assert_int_equal(cclt_plot_read_table(&p, f, "t", NULL, err,
						      sizeof(err)),
				 -EINVAL);
		fclose(f);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err,
				 bad[i].msg);
		cclt_plot_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_series),
		cmocka_unit_test(test_svg_refused),
		cmocka_unit_test(test_svg_escape),
		cmocka_unit_test(test_xml_check),
		cmocka_unit_test(test_metrics_read),
		cmocka_unit_test(test_metrics_refused),
		cmocka_unit_test(test_metrics_svg),
		cmocka_unit_test(test_ccl_tables),
		cmocka_unit_test(test_ccl_tables_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
