/* SPDX-License-Identifier: MIT */
/*
 * hpu_plot.h - a small SVG line-chart writer: the training curves of
 * hpu-train (metrics.svg) and the bandwidth-vs-size plots of
 * hpu-ccl-tests and hpu-plot (docs/plots.md says why this and not
 * gnuplot).
 *
 * A figure is one or more panels stacked vertically, each a plot box with
 * ticked and labelled axes, a legend beside it and one <polyline> per
 * series (class "series", its name in data-series), one point per value
 * in the order given. The output depends only on the figure: the same
 * data gives the same bytes.
 */
#ifndef HPU_PLOT_H
#define HPU_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Figure geometry (user units = pixels at 100%) */
#define HPU_PLOT_WIDTH	     860
#define HPU_PLOT_PANEL_H     300
#define HPU_PLOT_MAX_SERIES  32
#define HPU_PLOT_MAX_PANELS  4
/* series of at most this many points get a dot per point */
#define HPU_PLOT_MARKERS_MAX 60
/* largest magnitude drawn: the range of any two values stays finite */
#define HPU_PLOT_MAX_ABS     1e300

/**
 * struct hpu_plot_series - one line
 * @name: legend text (escaped on output)
 * @x: x values, finite (at most HPU_PLOT_MAX_ABS in magnitude), not
 *	decreasing; > 0 on a log2 axis
 * @y: y values, finite (at most HPU_PLOT_MAX_ABS in magnitude)
 * @n: points (0: only the legend entry and an empty polyline)
 * @color: index into the palette (taken modulo its size)
 * @dashed: drawn dashed (e.g. the in-place form beside the out-of-place)
 */
struct hpu_plot_series {
	const char *name;
	const double *x;
	const double *y;
	size_t n;
	unsigned int color;
	bool dashed;
};

/**
 * struct hpu_plot_axis - one axis of a panel
 * @label: axis title
 * @log2: logarithmic, base 2, ticks at powers of two labelled 1, 2, 4 ...
 *	1K, 2K ... (K, M, G, T: 1024-based); x axes only
 * @min: the range shown covers at least [@min, @max] when @min < @max
 *	(e.g. 0..1 for an accuracy), and always every point
 * @max: see @min
 * @zero: a linear range starts at 0 (or ends there) when the data do not
 *	cross it
 */
struct hpu_plot_axis {
	const char *label;
	bool log2;
	double min;
	double max;
	bool zero;
};

/**
 * struct hpu_plot_panel - one plot box
 * @title: above the box
 * @x: horizontal axis
 * @y: vertical axis (linear)
 * @series: the lines, at most HPU_PLOT_MAX_SERIES
 * @nseries: lines
 */
struct hpu_plot_panel {
	const char *title;
	struct hpu_plot_axis x;
	struct hpu_plot_axis y;
	const struct hpu_plot_series *series;
	size_t nseries;
};

/**
 * struct hpu_plot_fig - the whole picture
 * @title: top line (also the SVG's <title>)
 * @note: a smaller line under it (NULL: none), e.g. what was skipped
 * @panels: at most HPU_PLOT_MAX_PANELS
 * @npanels: panels, >= 1
 */
struct hpu_plot_fig {
	const char *title;
	const char *note;
	const struct hpu_plot_panel *panels;
	size_t npanels;
};

/**
 * hpu_plot_svg_write() - write @fig as an SVG document
 * @f: output stream
 * @fig: the figure
 *
 * Return: 0; -EINVAL for a figure it cannot draw (no panel, too many
 * panels or series, a non-finite value or one beyond HPU_PLOT_MAX_ABS,
 * x decreasing within a series,
 * x <= 0 on a log2 axis, y on a log2 axis), before anything is written;
 * -EIO when the stream failed.
 */
int hpu_plot_svg_write(FILE *f, const struct hpu_plot_fig *fig);

/**
 * hpu_plot_svg_file() - write @fig to @path through a temporary file in
 * the same directory renamed over it, so a reader never sees half a
 * picture; "-" writes to stdout
 * @path: output file
 * @fig: the figure
 *
 * Return: 0, -EINVAL as hpu_plot_svg_write() (nothing created), or
 * -errno of creating, writing or renaming the file (nothing left behind).
 */
int hpu_plot_svg_file(const char *path, const struct hpu_plot_fig *fig);

#endif /* HPU_PLOT_H */
