/* SPDX-License-Identifier: MIT */
/*
 * cclt_plot.h - bus bandwidth versus size as an SVG (hpu_plot.h): the
 * rows hpu-ccl-tests measures (--plot FILE.svg), or tables in its
 * columns read back from text, its own or hpu-mpi-allreduce-ref's
 * (hpu-plot ccl). Needs nothing of libhpuccl: hpu-plot links it alone.
 */
#ifndef HPU_CCLT_PLOT_H
#define HPU_CCLT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hpu_plot.h"

/**
 * struct cclt_plot_line - one series: a collective's one form from one
 * table
 * @name: legend text
 * @key: "label\ncollective" (the forms of one collective share a colour)
 * @color: palette index
 * @dashed: the in-place form
 * @x: sizes in bytes (not decreasing)
 * @y: bus bandwidths in GB/s
 * @n: points
 * @cap: room at @x and @y
 */
struct cclt_plot_line {
	char name[128];
	char key[128];
	unsigned int color;
	bool dashed;
	double *x;
	double *y;
	size_t n;
	size_t cap;
};

/**
 * struct cclt_plot - the lines of one picture
 * @title: the picture's title
 * @line: the series, in the order they first got a point
 * @nlines: series
 * @ncolors: colours handed out
 * @skipped: values that were not finite numbers, left out
 */
struct cclt_plot {
	char title[256];
	struct cclt_plot_line line[HPU_PLOT_MAX_SERIES];
	size_t nlines;
	unsigned int ncolors;
	unsigned long skipped;
};

/* An empty plot titled @title */
void cclt_plot_init(struct cclt_plot *p, const char *title);
void cclt_plot_free(struct cclt_plot *p);

/*
 * Add the point (@bytes, @busbw) of @op's form @in_place, from the table
 * called @label (NULL: the only one). Return 0; -EINVAL when @bytes is
 * below the series' last size or the value is not finite; -E2BIG past
 * HPU_PLOT_MAX_SERIES series; -ENOMEM.
 */
int cclt_plot_add(struct cclt_plot *p, const char *label, const char *op,
		  bool in_place, double bytes, double busbw);

/*
 * Read a table printed by hpu-ccl-tests or hpu-mpi-allreduce-ref from @f
 * (@fname names it in messages): every "# NAME: N ranks, ..." line
 * starts a collective, every row after it gives the out-of-place busbw
 * (8th column) and, in hpu-ccl-tests' 13 columns, the in-place one
 * (12th); N/A is no point, nan or inf values are counted in
 * p->skipped and left out; other '#' lines and blank lines are skipped.
 * Return 0, or -EINVAL with "FILE:LINE: what" at @err for anything else
 * (a row before a header, a wrong column count, a size that is not an
 * integer or goes back, a bandwidth that is not a number), -ENOMEM,
 * -E2BIG (too many series) or -EIO.
 */
int cclt_plot_read_table(struct cclt_plot *p, FILE *f, const char *fname,
			 const char *label, char *err, size_t errlen);

/* Write the plot to @path (hpu_plot_svg_file()): 0 or -errno */
int cclt_plot_write(const struct cclt_plot *p, const char *path);

#endif /* HPU_CCLT_PLOT_H */
