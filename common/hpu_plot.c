// SPDX-License-Identifier: MIT
/*
 * hpu_plot.c - the SVG line-chart writer of hpu_plot.h: hand-written SVG
 * 1.1 with fixed geometry and "%.2f" coordinates, so the same figure is
 * the same bytes and a test can read the points back.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpu_plot.h"

/* Geometry of a panel, relative to its top */
#define BOX_X	      78.0
#define BOX_W	      532.0
#define BOX_TOP	      32.0
#define BOX_H	      210.0
#define LEGEND_X      (BOX_X + BOX_W + 22.0)
#define LEGEND_ROW    18.0
#define HEADER_H      40.0
#define NOTE_H	      18.0
#define LIN_TICKS     5 /* about this many intervals on a linear axis */
#define LOG_TICKS_MAX 12

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};

/* the range an axis shows and where its ticks go */
struct axis_map {
	double lo, hi; /* linear: values; log2: exponents */
	double step;   /* between ticks (log2: in exponents) */
	int decimals;  /* of the tick labels (linear) */
	bool log2;
	double px0, px1; /* pixels of lo and hi */
};

/* Text content or attribute value: XML-escaped, valid UTF-8 only */
static void put_esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		unsigned int n = 0, k;

		if (*p < 0x80) {
			if (*p == '&')
				fputs("&amp;", f);
			else if (*p == '<')
				fputs("&lt;", f);
			else if (*p == '>')
				fputs("&gt;", f);
			else if (*p == '"')
				fputs("&quot;", f);
			else if (*p == '\'')
				fputs("&apos;", f);
			else if (*p < 0x20) /* not allowed in XML 1.0 */
				fputc('?', f);
			else
				fputc(*p, f);
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		for (k = 1; n && k <= n; k++)
			if ((p[k] & 0xc0) != 0x80)
				n = 0;
		/* overlong 3- and 4-byte forms, surrogates, > U+10FFFF */
		if ((n == 2 && *p == 0xe0 && p[1] < 0xa0) ||
		    (n == 2 && *p == 0xed && p[1] >= 0xa0) ||
		    (n == 3 && *p == 0xf0 && p[1] < 0x90) ||
		    (n == 3 && *p == 0xf4 && p[1] >= 0x90))
			n = 0;
		if (!n) {
			fputc('?', f);
			p++;
			continue;
		}
		fwrite(p, 1, n + 1, f);
		p += n + 1;
	}
}

static int check_series(const struct hpu_plot_panel *pn,
			const struct hpu_plot_series *s)
{
	size_t i;

	if (s->n && (!s->x || !s->y))
		return -EINVAL;
	for (i = 0; i < s->n; i++) {
		/* a range of any two values stays finite */
		if (!(fabs(s->x[i]) <= HPU_PLOT_MAX_ABS) ||
		    !(fabs(s->y[i]) <= HPU_PLOT_MAX_ABS))
			return -EINVAL;
		if (pn->x.log2 && s->x[i] <= 0)
			return -EINVAL;
		if (i && s->x[i] < s->x[i - 1])
			return -EINVAL;
	}
	return 0;
}

static int check_fig(const struct hpu_plot_fig *fig)
{
	size_t p, i;
	int ret;

	if (!fig || !fig->panels || !fig->npanels ||
	    fig->npanels > HPU_PLOT_MAX_PANELS)
		return -EINVAL;
	for (p = 0; p < fig->npanels; p++) {
		const struct hpu_plot_panel *pn = &fig->panels[p];

		if (pn->nseries > HPU_PLOT_MAX_SERIES ||
		    (pn->nseries && !pn->series) || pn->y.log2)
			return -EINVAL;
		if (!isfinite(pn->x.min) || !isfinite(pn->x.max) ||
		    !isfinite(pn->y.min) || !isfinite(pn->y.max))
			return -EINVAL;
		if (pn->x.log2 && pn->x.min < pn->x.max && pn->x.min <= 0)
			return -EINVAL;
		for (i = 0; i < pn->nseries; i++) {
			ret = check_series(pn, &pn->series[i]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* data range of one coordinate (x: 0, y: 1) over a panel's series */
static bool data_range(const struct hpu_plot_panel *pn, int which, double *lo,
		       double *hi)
{
	bool any = false;
	size_t s, i;

	for (s = 0; s < pn->nseries; s++) {
		const struct hpu_plot_series *sr = &pn->series[s];
		const double *v = which ? sr->y : sr->x;

		for (i = 0; i < sr->n; i++) {
			if (!any || v[i] < *lo)
				*lo = v[i];
			if (!any || v[i] > *hi)
				*hi = v[i];
			any = true;
		}
	}
	return any;
}

/* 1, 2 or 5 times a power of ten, at least @raw */
static double nice_step(double raw)
{
	double mag = pow(10.0, floor(log10(raw))), f = raw / mag;

	if (f <= 1.0)
		return mag;
	if (f <= 2.0)
		return 2.0 * mag;
	if (f <= 5.0)
		return 5.0 * mag;
	return 10.0 * mag;
}

static void map_linear(const struct hpu_plot_axis *ax, bool any, double lo,
		       double hi, struct axis_map *m)
{
	double step;

	if (ax->min < ax->max) {
		lo = any && lo < ax->min ? lo : ax->min;
		hi = any && hi > ax->max ? hi : ax->max;
	} else if (!any) {
		lo = 0.0;
		hi = 1.0;
	}
	if (ax->zero && lo > 0)
		lo = 0.0;
	if (ax->zero && hi < 0)
		hi = 0.0;
	if (hi == lo) {
		double pad = lo ? fabs(lo) * 0.1 : 1.0;

		lo -= ax->zero && lo == 0 ? 0 : pad;
		hi += pad;
	}
	step = nice_step((hi - lo) / LIN_TICKS);
	m->lo = floor(lo / step) * step;
	m->hi = ceil(hi / step) * step;
	if (m->hi <= m->lo)
		m->hi = m->lo + step;
	m->step = step;
	m->decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
	m->log2 = false;
}

static void map_log2(const struct hpu_plot_axis *ax, bool any, double lo,
		     double hi, struct axis_map *m)
{
	double span;

	if (ax->min < ax->max) {
		lo = any && lo < ax->min ? lo : ax->min;
		hi = any && hi > ax->max ? hi : ax->max;
	} else if (!any) {
		lo = 1.0;
		hi = 1024.0;
	}
	m->lo = floor(log2(lo));
	m->hi = ceil(log2(hi));
	if (m->hi <= m->lo)
		m->hi = m->lo + 1;
	span = m->hi - m->lo;
	m->step = ceil(span / LOG_TICKS_MAX);
	m->decimals = 0;
	m->log2 = true;
}

/* pixel of value @v, kept inside the box against rounding */
static double to_px(const struct axis_map *m, double v)
{
	double t = m->log2 ? log2(v) : v, px;

	px = m->px0 + (t - m->lo) / (m->hi - m->lo) * (m->px1 - m->px0);
	if (m->px0 < m->px1)
		return px < m->px0 ? m->px0 : px > m->px1 ? m->px1 : px;
	return px > m->px0 ? m->px0 : px < m->px1 ? m->px1 : px;
}

/* tick label of tick value @t (log2: an exponent) */
static void tick_label(const struct axis_map *m, double t, char *buf,
		       size_t len)
{
	static const char suffix[] = " KMGTPE";
	int e, k;

	if (!m->log2) {
		if (fabs(t) < m->step * 1e-6)
			t = 0.0; /* no "-0" */
		snprintf(buf, len, "%.*f", m->decimals, t);
		return;
	}
	e = (int)t;
	if (e < 0) {
		snprintf(buf, len, "%g", ldexp(1.0, e));
		return;
	}
	k = e / 10 < 6 ? e / 10 : 6;
	if (k == 0)
		snprintf(buf, len, "%.0f", ldexp(1.0, e));
	else
		snprintf(buf, len, "%.0f%c", ldexp(1.0, e - 10 * k), suffix[k]);
}

static double panel_height(const struct hpu_plot_panel *pn)
{
	double legend = BOX_TOP + 8.0 + LEGEND_ROW * (double)pn->nseries;

	return legend > HPU_PLOT_PANEL_H ? legend + 10.0 : HPU_PLOT_PANEL_H;
}

static void put_axes(FILE *f, const struct hpu_plot_panel *pn,
		     const struct axis_map *mx, const struct axis_map *my,
		     double top)
{
	double bottom = top + BOX_TOP + BOX_H, t;
	char label[32];
	int i, n;

	fprintf(f, "<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n");
	n = (int)floor((mx->hi - mx->lo) / mx->step + 1e-9);
	for (i = 0; i <= n; i++) {
		double v = mx->lo + i * mx->step, px;

		t = mx->log2 ? ldexp(1.0, (int)v) : v;
		px = to_px(mx, t);
		tick_label(mx, v, label, sizeof(label));
		fprintf(f,
			"<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e4e4e4\"/>\n",
			px, top + BOX_TOP, px, bottom);
		fprintf(f,
			"<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n",
			px, bottom, px, bottom + 5.0);
		fprintf(f,
			"<text class=\"xtick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
			px, bottom + 17.0, label);
	}
	n = (int)floor((my->hi - my->lo) / my->step + 1e-9);
	for (i = 0; i <= n; i++) {
		double v = my->lo + i * my->step, py = to_px(my, v);

		tick_label(my, v, label, sizeof(label));
		fprintf(f,
			"<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e4e4e4\"/>\n",
			BOX_X, py, BOX_X + BOX_W, py);
		fprintf(f,
			"<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n",
			BOX_X - 5.0, py, BOX_X, py);
		fprintf(f,
			"<text class=\"ytick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			BOX_X - 8.0, py + 4.0, label);
	}
	fprintf(f,
		"<rect class=\"plotbox\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#333\"/>\n",
		BOX_X, top + BOX_TOP, BOX_W, BOX_H);
	fprintf(f,
		"<text class=\"xlabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\">",
		BOX_X + BOX_W / 2, bottom + 36.0);
	put_esc(f, pn->x.label);
	fprintf(f,
		"</text>\n<text class=\"ylabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 %.2f %.2f)\">",
		18.0, top + BOX_TOP + BOX_H / 2, 18.0,
		top + BOX_TOP + BOX_H / 2);
	put_esc(f, pn->y.label);
	fprintf(f, "</text>\n</g>\n");
}

static void put_series(FILE *f, const struct hpu_plot_series *s,
		       const struct axis_map *mx, const struct axis_map *my)
{
	const char *color =
		palette[s->color % (sizeof(palette) / sizeof(palette[0]))];
	size_t i;

	fprintf(f, "<polyline class=\"series\" data-series=\"");
	put_esc(f, s->name);
	fprintf(f,
		"\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s points=\"",
		color, s->dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s%.2f,%.2f", i ? " " : "", to_px(mx, s->x[i]),
			to_px(my, s->y[i]));
	fprintf(f, "\"/>\n");
	if (!s->n || s->n > HPU_PLOT_MARKERS_MAX)
		return;
	fprintf(f, "<g class=\"markers\" fill=\"%s\">\n", color);
	for (i = 0; i < s->n; i++)
		fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"/>\n",
			to_px(mx, s->x[i]), to_px(my, s->y[i]));
	fprintf(f, "</g>\n");
}

static void put_legend(FILE *f, const struct hpu_plot_panel *pn, double top)
{
	size_t i;

	fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
	for (i = 0; i < pn->nseries; i++) {
		const struct hpu_plot_series *s = &pn->series[i];
		double y = top + BOX_TOP + 10.0 + LEGEND_ROW * (double)i;

		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
			LEGEND_X, y - 4.0, LEGEND_X + 24.0, y - 4.0,
			palette[s->color %
				(sizeof(palette) / sizeof(palette[0]))],
			s->dashed ? " stroke-dasharray=\"6 4\"" : "");
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", LEGEND_X + 30.0, y);
		put_esc(f, s->name);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</g>\n");
}

static void put_panel(FILE *f, const struct hpu_plot_panel *pn, double top)
{
	struct axis_map mx, my;
	double lo = 0, hi = 0;
	bool any;
	size_t i;

	any = data_range(pn, 0, &lo, &hi);
	if (pn->x.log2)
		map_log2(&pn->x, any, lo, hi, &mx);
	else
		map_linear(&pn->x, any, lo, hi, &mx);
	any = data_range(pn, 1, &lo, &hi);
	map_linear(&pn->y, any, lo, hi, &my);
	mx.px0 = BOX_X;
	mx.px1 = BOX_X + BOX_W;
	my.px0 = top + BOX_TOP + BOX_H; /* y grows downwards */
	my.px1 = top + BOX_TOP;

	fprintf(f, "<g class=\"panel\">\n");
	fprintf(f,
		"<text class=\"panel-title\" x=\"%.2f\" y=\"%.2f\" font-size=\"14\" font-weight=\"bold\">",
		BOX_X, top + 20.0);
	put_esc(f, pn->title);
	fprintf(f, "</text>\n");
	put_axes(f, pn, &mx, &my, top);
	for (i = 0; i < pn->nseries; i++)
		put_series(f, &pn->series[i], &mx, &my);
	put_legend(f, pn, top);
	fprintf(f, "</g>\n");
}

int hpu_plot_svg_write(FILE *f, const struct hpu_plot_fig *fig)
{
	double head = HEADER_H, height;
	size_t p;
	int ret;

	ret = check_fig(fig);
	if (ret)
		return ret;
	if (fig->note)
		head += NOTE_H;
	height = head;
	for (p = 0; p < fig->npanels; p++)
		height += panel_height(&fig->panels[p]);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n",
		HPU_PLOT_WIDTH, height, HPU_PLOT_WIDTH, height);
	fprintf(f, "<title>");
	put_esc(f, fig->title);
	fprintf(f, "</title>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f,
		"<text class=\"title\" x=\"%.2f\" y=\"26\" font-size=\"16\" font-weight=\"bold\">",
		BOX_X);
	put_esc(f, fig->title);
	fprintf(f, "</text>\n");
	if (fig->note) {
		fprintf(f,
			"<text class=\"note\" x=\"%.2f\" y=\"46\" font-size=\"12\" fill=\"#555\">",
			BOX_X);
		put_esc(f, fig->note);
		fprintf(f, "</text>\n");
	}
	height = head;
	for (p = 0; p < fig->npanels; p++) {
		put_panel(f, &fig->panels[p], height);
		height += panel_height(&fig->panels[p]);
	}
	fprintf(f, "</svg>\n");
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

int hpu_plot_svg_file(const char *path, const struct hpu_plot_fig *fig)
{
	size_t len;
	char *tmp;
	FILE *f;
	int fd, ret;

	ret = check_fig(fig);
	if (ret)
		return ret;
	if (!path || !*path)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return hpu_plot_svg_write(stdout, fig);
	len = strlen(path) + sizeof(".XXXXXX");
	tmp = malloc(len);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	if (fchmod(fd, 0644)) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	ret = hpu_plot_svg_write(f, fig);
	if (fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret)
		goto out_free;
out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}
