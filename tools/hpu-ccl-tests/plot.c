// SPDX-License-Identifier: MIT
/*
 * plot.c - bus bandwidth versus size (cclt_plot.h): one solid line per
 * collective and table for the out-of-place form, a dashed one in the
 * same colour for the in-place form, sizes on a log2 axis.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cclt_plot.h"

#define ROW_MAX_FIELDS 16

void cclt_plot_init(struct cclt_plot *p, const char *title)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->title, sizeof(p->title), "%s", title ? title : "");
}

void cclt_plot_free(struct cclt_plot *p)
{
	size_t i;

	for (i = 0; i < p->nlines; i++) {
		free(p->line[i].x);
		free(p->line[i].y);
	}
	p->nlines = 0;
}

static struct cclt_plot_line *get_line(struct cclt_plot *p, const char *label,
				       const char *op, bool in_place)
{
	struct cclt_plot_line *l;
	unsigned int color = p->ncolors;
	char key[128];
	size_t i;

	snprintf(key, sizeof(key), "%s\n%s", label ? label : "", op);
	for (i = 0; i < p->nlines; i++) {
		l = &p->line[i];
		if (strcmp(l->key, key))
			continue;
		if (l->dashed == in_place)
			return l;
		color = l->color;
	}
	if (p->nlines == HPU_PLOT_MAX_SERIES)
		return NULL;
	if (color == p->ncolors)
		p->ncolors++;
	l = &p->line[p->nlines++];
	memset(l, 0, sizeof(*l));
	snprintf(l->key, sizeof(l->key), "%s", key);
	snprintf(l->name, sizeof(l->name), "%s%s%s%s", label ? label : "",
		 label ? ": " : "", op, in_place ? ", in place" : "");
	l->color = color;
	l->dashed = in_place;
	return l;
}

int cclt_plot_add(struct cclt_plot *p, const char *label, const char *op,
		  bool in_place, double bytes, double busbw)
{
	struct cclt_plot_line *l;

	if (!isfinite(bytes) || bytes <= 0 || !isfinite(busbw))
		return -EINVAL;
	l = get_line(p, label, op, in_place);
	if (!l)
		return -E2BIG;
	if (l->n && bytes < l->x[l->n - 1])
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		double *x = realloc(l->x, cap * sizeof(*x)), *y;

		if (!x)
			return -ENOMEM;
		l->x = x;
		y = realloc(l->y, cap * sizeof(*y));
		if (!y)
			return -ENOMEM;
		l->y = y;
		l->cap = cap;
	}
	l->x[l->n] = bytes;
	l->y[l->n] = busbw;
	l->n++;
	return 0;
}

static int table_err(char *err, size_t errlen, const char *fname,
		     unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s:%lu: ", fname, line);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "# NAME: N ranks, ...": copy NAME to @op */
static bool table_header(const char *s, char *op, size_t oplen)
{
	char name[64];
	int ranks, n = 0;

	if (sscanf(s, "# %63[A-Za-z0-9_]: %d ranks%n", name, &ranks, &n) != 2 ||
	    !n)
		return false;
	snprintf(op, oplen, "%s", name);
	return true;
}

/* a busbw cell: 1 a point in *v, 0 none (N/A, skipped), -EINVAL */
static int busbw_cell(struct cclt_plot *p, const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "N/A"))
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE)
		return -EINVAL;
	if (!(fabs(*v) <= HPU_PLOT_MAX_ABS)) { /* nan, inf, too big to draw */
		p->skipped++;
		return 0;
	}
	return 1;
}

static int table_row(struct cclt_plot *p, char *s, const char *op,
		     const char *label, const char *fname, unsigned long ln,
		     char *err, size_t errlen)
{
	static const int col[2] = { 7, 11 }; /* busbw out of place, in place */
	char *f[ROW_MAX_FIELDS], *save, *end;
	unsigned long long bytes;
	int nf = 0, form, ret;
	double v;

	for (s = strtok_r(s, " \t", &save); s;
	     s = strtok_r(NULL, " \t", &save)) {
		if (nf == ROW_MAX_FIELDS)
			return table_err(err, errlen, fname, ln,
					 "more than %d columns",
					 ROW_MAX_FIELDS);
		f[nf++] = s;
	}
	if (nf != 8 && nf != 13 && nf != 15)
		return table_err(err, errlen, fname, ln,
				 "%d columns: a row has 8 (one form), 13 or "
				 "15 (with the model's time and busbw)",
				 nf);
	if (!*op)
		return table_err(err, errlen, fname, ln,
				 "a row before any '# NAME: N ranks' header");
	errno = 0;
	bytes = strtoull(f[0], &end, 10);
	if (*f[0] < '0' || *f[0] > '9' || *end || errno || !bytes)
		return table_err(err, errlen, fname, ln,
				 "size '%s' is not a positive integer", f[0]);
	for (form = 0; form < 2 && col[form] < nf; form++) {
		ret = busbw_cell(p, f[col[form]], &v);
		if (ret < 0)
			return table_err(err, errlen, fname, ln,
					 "busbw '%s' is not a number",
					 f[col[form]]);
		if (!ret)
			continue;
		ret = cclt_plot_add(p, label, op, form, (double)bytes, v);
		if (ret == -EINVAL)
			return table_err(
				err, errlen, fname, ln,
				"size %llu is below the %s row before it",
				bytes, op);
		if (ret == -E2BIG)
			return table_err(err, errlen, fname, ln,
					 "more than %d lines to draw",
					 HPU_PLOT_MAX_SERIES);
		if (ret)
			return ret;
	}
	return 0;
}

int cclt_plot_read_table(struct cclt_plot *p, FILE *f, const char *fname,
			 const char *label, char *err, size_t errlen)
{
	char op[64] = "", *line = NULL;
	unsigned long ln = 0;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		ln++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if ((size_t)len != strlen(line)) {
			ret = table_err(err, errlen, fname, ln,
					"a NUL byte: not a table");
			break;
		}
		if (line[0] == '#') {
			table_header(line, op, sizeof(op));
			continue;
		}
		if (!line[strspn(line, " \t")])
			continue;
		ret = table_row(p, line, op, label, fname, ln, err, errlen);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	return ret;
}

int cclt_plot_write(const struct cclt_plot *p, const char *path)
{
	struct hpu_plot_series s[HPU_PLOT_MAX_SERIES];
	struct hpu_plot_panel pn = {
		.title = "bus bandwidth vs size",
		.x = { .label = "size (bytes)", .log2 = true },
		.y = { .label = "busbw (GB/s)", .zero = true },
		.series = s,
		.nseries = p->nlines,
	};
	struct hpu_plot_fig fig = {
		.title = p->title,
		.panels = &pn,
		.npanels = 1,
	};
	char note[96];
	size_t i;

	for (i = 0; i < p->nlines; i++) {
		s[i] = (struct hpu_plot_series){
			.name = p->line[i].name,
			.x = p->line[i].x,
			.y = p->line[i].y,
			.n = p->line[i].n,
			.color = p->line[i].color,
			.dashed = p->line[i].dashed,
		};
	}
	if (p->skipped) {
		snprintf(note, sizeof(note),
			 "%lu values that were not finite numbers left out",
			 p->skipped);
		fig.note = note;
	}
	return hpu_plot_svg_file(path, &fig);
}
