/* SPDX-License-Identifier: MIT */
/*
 * ht_metrics_plot.h - the curves of a metrics.csv (the CSV logger's,
 * docs/hpu-train.md "Outputs") drawn as an SVG: train and validation
 * loss in one panel, validation accuracy in another, against the step.
 * hpu-train draws <log_dir>/metrics.svg with it; hpu-plot metrics
 * redraws any metrics.csv.
 */
#ifndef HT_METRICS_PLOT_H
#define HT_METRICS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the curves, in the order of the legend */
enum ht_metrics_curve {
	HT_CURVE_LOSS,	   /* column loss */
	HT_CURVE_VAL_LOSS, /* column val_loss */
	HT_CURVE_VAL_ACC,  /* column val_acc */
	HT_NUM_CURVES,
};

/**
 * struct ht_metrics_curves - what ht_metrics_read() found
 * @x: per curve, the step of each point (not decreasing)
 * @y: per curve, the value of each point
 * @n: per curve, points: the rows with a finite value in its column
 * @cap: per curve, room at @x and @y
 * @rows: data rows read
 * @first_step: step of the first row
 * @last_step: step of the last row
 * @nonfinite: values that were nan or inf (or beyond HPU_PLOT_MAX_ABS,
 *	1e300), left out (a diverged run)
 * @cut: the last line had no newline and did not parse (a run killed
 *	while writing it): left out
 */
struct ht_metrics_curves {
	double *x[HT_NUM_CURVES];
	double *y[HT_NUM_CURVES];
	size_t n[HT_NUM_CURVES];
	size_t cap[HT_NUM_CURVES];
	uint64_t rows;
	uint64_t first_step;
	uint64_t last_step;
	uint64_t nonfinite;
	bool cut;
};

/**
 * ht_metrics_read() - read the curves of a metrics CSV
 * @path: the file ("-": standard input)
 * @c: receives the curves (free with ht_metrics_free(), also on failure)
 * @err: receives "FILE:LINE: what" on failure (may be NULL)
 * @errlen: bytes at @err
 *
 * The first line names the columns; step, loss, val_loss and val_acc must
 * be among them (others are not read). Every other line is a row with as
 * many fields as the header: step a decimal integer not below the row
 * before's, each value column empty (no point: e.g. val_loss on rows
 * without a validation), a number, or nan/inf (left out, counted in
 * @c->nonfinite). Blank lines are skipped; so is a last line without a
 * newline that does not parse (@c->cut).
 *
 * Return: 0; -EINVAL for anything else (no header, a missing column, a
 * wrong field count, a step that is not an integer or goes back, a value
 * that is not a number, a NUL byte), with the line at @err; -errno when
 * the file cannot be read; -ENOMEM.
 */
int ht_metrics_read(const char *path, struct ht_metrics_curves *c, char *err,
		    size_t errlen);

/**
 * ht_metrics_svg() - draw @c as an SVG at @path (written to a temporary
 * file renamed over it; "-": standard output)
 * @c: the curves
 * @title: the picture's title
 * @path: the output
 *
 * Return: 0 or -errno.
 */
int ht_metrics_svg(const struct ht_metrics_curves *c, const char *title,
		   const char *path);

/* Free the points of @c (zeroed: it can be read into again) */
void ht_metrics_free(struct ht_metrics_curves *c);

#endif /* HT_METRICS_PLOT_H */
