// SPDX-License-Identifier: MIT
/*
 * plot_metrics.c - metrics.csv read back into curves and drawn as an SVG
 * (ht_metrics_plot.h) with the SVG writer of common/hpu_plot.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ht_metrics_plot.h"
#include "hpu_plot.h"

#define MAX_COLS 64

static const char *const curve_col[HT_NUM_CURVES] = {
	[HT_CURVE_LOSS] = "loss",
	[HT_CURVE_VAL_LOSS] = "val_loss",
	[HT_CURVE_VAL_ACC] = "val_acc",
};

static const char *const curve_name[HT_NUM_CURVES] = {
	[HT_CURVE_LOSS] = "train loss",
	[HT_CURVE_VAL_LOSS] = "validation loss",
	[HT_CURVE_VAL_ACC] = "validation accuracy",
};

/* where the columns read are in a row */
struct csv_cols {
	int ncols;
	int step;
	int curve[HT_NUM_CURVES];
};

struct csv_reader {
	const char *path;
	unsigned long line;
	char *err;
	size_t errlen;
};

static int read_err(const struct csv_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return -EINVAL;
	n = snprintf(r->err, r->errlen, "%s:%lu: ", r->path, r->line);
	if (n < 0 || (size_t)n >= r->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* split @s at commas, in place: the field count, or -1 past @max */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = 0;
	}
}

static int parse_header(const struct csv_reader *r, char *line,
			struct csv_cols *cols)
{
	char *f[MAX_COLS];
	int n, i, k;

	n = split(line, f, MAX_COLS);
	if (n < 0)
		return read_err(r, "more than %d columns", MAX_COLS);
	cols->ncols = n;
	cols->step = -1;
	for (k = 0; k < HT_NUM_CURVES; k++)
		cols->curve[k] = -1;
	for (i = 0; i < n; i++) {
		if (!strcmp(f[i], "step"))
			cols->step = i;
		for (k = 0; k < HT_NUM_CURVES; k++)
			if (!strcmp(f[i], curve_col[k]))
				cols->curve[k] = i;
	}
	if (cols->step < 0)
		return read_err(
			r,
			"not a metrics log: the header has no 'step' column");
	for (k = 0; k < HT_NUM_CURVES; k++)
		if (cols->curve[k] < 0)
			return read_err(
				r,
				"not a metrics log: the header has no '%s' column",
				curve_col[k]);
	return 0;
}

static int push(struct ht_metrics_curves *c, int k, double x, double y)
{
	if (c->n[k] == c->cap[k]) {
		size_t cap = c->cap[k] ? 2 * c->cap[k] : 64;
		double *nx, *ny;

		nx = realloc(c->x[k], cap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		c->x[k] = nx;
		ny = realloc(c->y[k], cap * sizeof(*ny));
		if (!ny)
			return -ENOMEM;
		c->y[k] = ny;
		c->cap[k] = cap;
	}
	c->x[k][c->n[k]] = x;
	c->y[k][c->n[k]] = y;
	c->n[k]++;
	return 0;
}

/*
 * One row into @v (NAN: no value) and *step; -EINVAL with the reason at
 * @r's buffer
 */
static int parse_row(const struct csv_reader *r, char *line,
		     const struct csv_cols *cols,
		     const struct ht_metrics_curves *c, uint64_t *step,
		     double *v, unsigned int *nonfinite)
{
	unsigned long long s;
	char *f[MAX_COLS], *end;
	int n, k;

	n = split(line, f, MAX_COLS);
	if (n != cols->ncols)
		return read_err(r, "%d fields, the header has %d",
				n < 0 ? MAX_COLS + 1 : n, cols->ncols);
	errno = 0;
	s = strtoull(f[cols->step], &end, 10);
	if (*f[cols->step] < '0' || *f[cols->step] > '9' || *end || errno)
		return read_err(r, "step '%s' is not an integer",
				f[cols->step]);
	if (c->rows && s < c->last_step)
		return read_err(r, "step %llu goes back from %llu", s,
				(unsigned long long)c->last_step);
	*step = s;
	*nonfinite = 0;
	for (k = 0; k < HT_NUM_CURVES; k++) {
		const char *cell = f[cols->curve[k]];

		v[k] = NAN;
		if (!*cell)
			continue;
		errno = 0;
		v[k] = strtod(cell, &end);
		if (end == cell || *end || errno == ERANGE)
			return read_err(r, "%s '%s' is not a number",
					curve_col[k], cell);
		/* what the writer cannot draw counts as inf */
		if (!(fabs(v[k]) <= HPU_PLOT_MAX_ABS)) {
			v[k] = NAN;
			(*nonfinite)++;
		}
	}
	return 0;
}

static int read_stream(FILE *in, struct csv_reader *r,
		       struct ht_metrics_curves *c)
{
	struct csv_cols cols;
	double v[HT_NUM_CURVES];
	char *line = NULL;
	unsigned int nonfinite = 0;
	bool header = false;
	size_t cap = 0;
	ssize_t len;
	uint64_t step = 0;
	int ret = 0, k;

	while (!ret && (len = getline(&line, &cap, in)) >= 0) {
		bool nl = len && line[len - 1] == '\n';

		r->line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if ((size_t)len != strlen(line)) {
			ret = read_err(r, "a NUL byte: not a CSV text file");
			break;
		}
		if (!header) {
			ret = parse_header(r, line, &cols);
			header = true;
			continue;
		}
		if (!len)
			continue;
		ret = parse_row(r, line, &cols, c, &step, v, &nonfinite);
		if (ret && !nl) { /* the last line, cut short */
			c->cut = true;
			ret = 0;
			if (r->err && r->errlen)
				r->err[0] = 0;
			break;
		}
		if (ret)
			break;
		if (!c->rows)
			c->first_step = step;
		c->last_step = step;
		c->rows++;
		c->nonfinite += nonfinite;
		for (k = 0; !ret && k < HT_NUM_CURVES; k++)
			if (!isnan(v[k]))
				ret = push(c, k, (double)step, v[k]);
	}
	if (!ret && ferror(in))
		ret = -EIO;
	if (!ret && !header)
		ret = read_err(r, "empty: not a metrics log (no header)");
	free(line);
	return ret;
}

int ht_metrics_read(const char *path, struct ht_metrics_curves *c, char *err,
		    size_t errlen)
{
	struct csv_reader r = { .path = path, .err = err, .errlen = errlen };
	bool use_stdin = !strcmp(path, "-");
	FILE *in;
	int ret;

	memset(c, 0, sizeof(*c));
	if (err && errlen)
		err[0] = 0;
	if (use_stdin) {
		r.path = "<stdin>";
		in = stdin;
	} else {
		in = fopen(path, "r");
	}
	if (!in) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = read_stream(in, &r, c);
	if (ret == -EIO && err && errlen)
		snprintf(err, errlen, "%s: read error", r.path);
	if (!use_stdin)
		fclose(in);
	return ret;
}

void ht_metrics_free(struct ht_metrics_curves *c)
{
	int k;

	for (k = 0; k < HT_NUM_CURVES; k++) {
		free(c->x[k]);
		free(c->y[k]);
	}
	memset(c, 0, sizeof(*c));
}

int ht_metrics_svg(const struct ht_metrics_curves *c, const char *title,
		   const char *path)
{
	struct hpu_plot_series s[HT_NUM_CURVES];
	struct hpu_plot_panel pn[2] = {
		{
			.title = "loss",
			.x = { .label = "step" },
			.y = { .label = "loss", .zero = true },
			.series = s,
			.nseries = 2,
		},
		{
			.title = "accuracy",
			.x = { .label = "step" },
			.y = { .label = "validation accuracy",
			       .min = 0.0,
			       .max = 1.0 },
			.series = &s[HT_CURVE_VAL_ACC],
			.nseries = 1,
		},
	};
	struct hpu_plot_fig fig = {
		.title = title,
		.panels = pn,
		.npanels = 2,
	};
	char note[256];
	int k, n;

	for (k = 0; k < HT_NUM_CURVES; k++)
		s[k] = (struct hpu_plot_series){
			.name = curve_name[k],
			.x = c->x[k],
			.y = c->y[k],
			.n = c->n[k],
			.color = (unsigned int)k,
		};
	/* both panels span the same steps, so they line up */
	if (c->rows) {
		pn[0].x.min = pn[1].x.min = (double)c->first_step;
		pn[0].x.max = pn[1].x.max = (double)c->last_step;
	}
	n = snprintf(note, sizeof(note), "%llu rows, steps %llu..%llu",
		     (unsigned long long)c->rows,
		     (unsigned long long)c->first_step,
		     (unsigned long long)c->last_step);
	if (c->nonfinite)
		n += snprintf(note + n, sizeof(note) - (size_t)n,
			      "; %llu nan/inf values left out",
			      (unsigned long long)c->nonfinite);
	if (c->cut)
		snprintf(note + n, sizeof(note) - (size_t)n,
			 "; last line cut short, left out");
	fig.note = note;
	return hpu_plot_svg_file(path, &fig);
}
