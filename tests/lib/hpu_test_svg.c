// SPDX-License-Identifier: MIT
/*
 * hpu_test_svg.c - well-formedness and the polylines of the plot tests'
 * SVG files (hpu_test_svg.h).
 */
#include <ctype.h>
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

#include "hpu_test_daemon.h"
#include "hpu_test_svg.h"

#define XML_MAX_DEPTH 64
#define AFFINE_TOL    0.03 /* px: two roundings to 0.01 and the fit */

static char xml_why[160];

static const char *xml_fail(const char *text, const char *p, const char *what)
{
	snprintf(xml_why, sizeof(xml_why), "offset %ld: %s", (long)(p - text),
		 what);
	return xml_why;
}

static bool name_char(unsigned char c, bool first)
{
	return isalpha(c) || c == '_' || c == ':' ||
	       (!first && (isdigit(c) || c == '-' || c == '.'));
}

/* an entity at @p ('&'): its length, 0 when unknown */
static size_t entity_len(const char *p)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;",
					     "&apos;" };
	const char *q;
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strncmp(p, named[i], strlen(named[i])))
			return strlen(named[i]);
	if (p[1] != '#')
		return 0;
	q = p + 2;
	if (*q == 'x')
		for (q++; isxdigit((unsigned char)*q); q++)
			;
	else
		for (; isdigit((unsigned char)*q); q++)
			;
	return *q == ';' && q > p + 3 ? (size_t)(q - p + 1) : 0;
}

/* character data up to the next '<': entities and characters checked */
static const char *xml_text(const char *text, const char *p, const char **err)
{
	while (*p && *p != '<') {
		unsigned char c = (unsigned char)*p;

		if (c == '&') {
			size_t n = entity_len(p);

			if (!n) {
				*err = xml_fail(text, p, "unknown entity");
				return p;
			}
			p += n;
			continue;
		}
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			*err = xml_fail(text, p, "control character");
			return p;
		}
		p++;
	}
	return p;
}

static const char *utf8_error(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		unsigned int n = 0, k;

		if (*p < 0x80) {
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
		if (!n)
			return xml_fail(text, (const char *)p, "invalid UTF-8");
		p += n + 1;
	}
	return NULL;
}

/* one tag at @p ('<'); pushes and pops @stack */
static const char *xml_tag(const char *text, const char *p, char **stack,
			   int *depth, bool *root_done, const char **err)
{
	bool close = p[1] == '/';
	const char *name, *q = p + 1 + close;
	size_t len;

	name = q;
	if (!name_char((unsigned char)*q, true)) {
		*err = xml_fail(text, p, "bad tag name");
		return p;
	}
	while (name_char((unsigned char)*q, false))
		q++;
	len = (size_t)(q - name);
	if (close) {
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '>' || !*depth || strlen(stack[*depth - 1]) != len ||
		    strncmp(stack[*depth - 1], name, len)) {
			*err = xml_fail(text, p, "unmatched end tag");
			return p;
		}
		free(stack[--*depth]);
		if (!*depth)
			*root_done = true;
		return q + 1;
	}
	if (*root_done && !*depth) {
		*err = xml_fail(text, p, "a second root element");
		return p;
	}
	for (;;) {
		char quote;

		while (isspace((unsigned char)*q))
			q++;
		if (*q == '>' || (q[0] == '/' && q[1] == '>'))
			break;
		if (!name_char((unsigned char)*q, true) || q[-1] == '"' ||
		    q[-1] == '\'') {
			*err = xml_fail(text, q, "bad attribute");
			return q;
		}
		while (name_char((unsigned char)*q, false))
			q++;
		if (*q++ != '=' || (*q != '"' && *q != '\'')) {
			*err = xml_fail(text, q,
					"attribute without a quoted value");
			return q;
		}
		quote = *q++;
		while (*q && *q != quote) {
			if (*q == '<') {
				*err = xml_fail(text, q, "'<' in an attribute");
				return q;
			}
			if (*q == '&') {
				size_t n = entity_len(q);

				if (!n) {
					*err = xml_fail(text, q,
							"unknown entity");
					return q;
				}
				q += n;
				continue;
			}
			q++;
		}
		if (!*q) {
			*err = xml_fail(text, q, "unterminated attribute");
			return q;
		}
		q++;
	}
	if (*q == '/') {
		if (!*depth)
			*root_done = true;
		return q + 2;
	}
	if (*depth == XML_MAX_DEPTH) {
		*err = xml_fail(text, p, "nested too deep");
		return p;
	}
	stack[(*depth)++] = strndup(name, len);
	return q + 1;
}

const char *hpu_test_xml_error(const char *text)
{
	char *stack[XML_MAX_DEPTH];
	const char *p = text, *err = NULL, *end;
	bool root_done = false;
	int depth = 0;

	err = utf8_error(text);
	if (err)
		return err;
	if (!strncmp(p, "<?xml", 5)) {
		end = strstr(p, "?>");
		if (!end)
			return xml_fail(text, p, "unterminated declaration");
		p = end + 2;
	}
	while (!err && *p) {
		if (*p != '<') {
			const char *q = p;

			if (!depth) {
				while (isspace((unsigned char)*q))
					q++;
				if (*q && *q != '<') {
					err = xml_fail(text, q,
						       "text outside the root");
					break;
				}
				p = q;
				continue;
			}
			p = xml_text(text, p, &err);
			continue;
		}
		if (!strncmp(p, "<!--", 4)) {
			end = strstr(p + 4, "-->");
			if (!end)
				err = xml_fail(text, p, "unterminated comment");
			else
				p = end + 3;
			continue;
		}
		p = xml_tag(text, p, stack, &depth, &root_done, &err);
	}
	if (!err && depth)
		err = xml_fail(text, p, "unclosed element");
	if (!err && !root_done)
		err = xml_fail(text, p, "no root element");
	while (depth)
		free(stack[--depth]);
	return err;
}

bool hpu_test_have_xmllint(void)
{
	const char *path = getenv("PATH");
	char dir[4096], prog[4200];
	const char *p, *colon;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = colon + 1) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		snprintf(dir, sizeof(dir), "%.*s", (int)(colon - p), p);
		snprintf(prog, sizeof(prog), "%s/xmllint", dir);
		if (!access(prog, X_OK))
			return true;
		if (!*colon)
			break;
	}
	return false;
}

/* attribute @name of the tag from @tag to @end, into @buf */
static bool attr(const char *tag, const char *end, const char *name, char *buf,
		 size_t len)
{
	size_t n = strlen(name);
	const char *p, *q;

	for (p = tag; (p = strstr(p, name)) && p < end; p++) {
		if (!isspace((unsigned char)p[-1]) || p[n] != '=' ||
		    p[n + 1] != '"')
			continue;
		q = strchr(p + n + 2, '"');
		if (!q || q > end)
			return false;
		snprintf(buf, len, "%.*s", (int)(q - (p + n + 2)), p + n + 2);
		return true;
	}
	return false;
}

static void parse_points(const char *s, struct hpu_test_svg_line *l)
{
	size_t cap = 16;
	char *end;

	l->x = malloc(cap * sizeof(double));
	l->y = malloc(cap * sizeof(double));
	assert_non_null(l->x);
	assert_non_null(l->y);
	while (*s) {
		if (l->n == cap) {
			cap *= 2;
			l->x = realloc(l->x, cap * sizeof(double));
			l->y = realloc(l->y, cap * sizeof(double));
			assert_non_null(l->x);
			assert_non_null(l->y);
		}
		l->x[l->n] = strtod(s, &end);
		assert_true(end > s && *end == ',');
		s = end + 1;
		l->y[l->n] = strtod(s, &end);
		assert_true(end > s && (*end == ' ' || !*end));
		l->n++;
		s = *end ? end + 1 : end;
	}
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *mem;
	int c;

	if (!f)
		return NULL;
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(f);
	fclose(mem);
	return buf;
}

void hpu_test_svg_load(const char *path, struct hpu_test_svg *s)
{
	static bool told;
	const char *p, *end, *why;
	char buf[1 << 16];

	memset(s, 0, sizeof(*s));
	s->text = slurp(path);
	if (!s->text)
		fail_msg("%s: %s", path, strerror(errno));
	why = hpu_test_xml_error(s->text);
	if (why)
		fail_msg("%s is not well-formed XML: %s", path, why);
	if (hpu_test_have_xmllint()) {
		char *argv[] = { "xmllint", "--noout", (char *)path, NULL };
		char prog[] = "/usr/bin/env";
		char *full[] = { prog, argv[0], argv[1], argv[2], NULL };
		int status = -1;

		assert_int_equal(hpu_test_run(full, NULL, &status), 0);
		if (status)
			fail_msg("xmllint --noout %s: status %d", path, status);
	} else if (!told) {
		told = true;
		print_message("xmllint not installed (libxml2-utils): "
			      "well-formedness by the test's own check only\n");
	}
	for (p = s->text; (p = strchr(p, '<')); p++) {
		end = strchr(p, '>');
		assert_non_null(end);
		if (!strncmp(p, "<rect class=\"plotbox\"", 21)) {
			double *b;

			assert_true(s->nbox < HPU_TEST_SVG_MAX_BOXES);
			b = s->box[s->nbox++];
			assert_true(attr(p, end, "x", buf, sizeof(buf)));
			b[0] = strtod(buf, NULL);
			assert_true(attr(p, end, "y", buf, sizeof(buf)));
			b[1] = strtod(buf, NULL);
			assert_true(attr(p, end, "width", buf, sizeof(buf)));
			b[2] = strtod(buf, NULL);
			assert_true(attr(p, end, "height", buf, sizeof(buf)));
			b[3] = strtod(buf, NULL);
		} else if (!strncmp(p, "<polyline class=\"series\"", 24)) {
			struct hpu_test_svg_line *l;

			assert_true(s->nlines < HPU_TEST_SVG_MAX_LINES);
			assert_true(s->nbox > 0); /* its box comes first */
			l = &s->line[s->nlines++];
			l->box = s->nbox - 1;
			assert_true(attr(p, end, "data-series", l->name,
					 sizeof(l->name)));
			assert_true(attr(p, end, "points", buf, sizeof(buf)));
			parse_points(buf, l);
		}
	}
}

void hpu_test_svg_free(struct hpu_test_svg *s)
{
	size_t i;

	for (i = 0; i < s->nlines; i++) {
		free(s->line[i].x);
		free(s->line[i].y);
	}
	free(s->text);
	memset(s, 0, sizeof(*s));
}

const struct hpu_test_svg_line *hpu_test_svg_find(const struct hpu_test_svg *s,
						  const char *name)
{
	size_t i;

	for (i = 0; i < s->nlines; i++)
		if (!strcmp(s->line[i].name, name))
			return &s->line[i];
	return NULL;
}

void hpu_test_svg_check_points(const struct hpu_test_svg *s)
{
	size_t i, k;

	for (i = 0; i < s->nlines; i++) {
		const struct hpu_test_svg_line *l = &s->line[i];
		const double *b = s->box[l->box];

		for (k = 0; k < l->n; k++) {
			if (l->x[k] < b[0] || l->x[k] > b[0] + b[2] ||
			    l->y[k] < b[1] || l->y[k] > b[1] + b[3])
				fail_msg("%s: point %zu (%.2f,%.2f) outside "
					 "the box %.2f,%.2f %.2fx%.2f",
					 l->name, k, l->x[k], l->y[k], b[0],
					 b[1], b[2], b[3]);
			if (k && l->x[k] < l->x[k - 1])
				fail_msg("%s: x goes back at point %zu",
					 l->name, k);
		}
	}
}

/* pixels @px of data @d: affine, increasing (@sign 1) or decreasing (-1) */
static void check_axis(const char *what, const double *px, const double *d,
		       size_t n, int sign, double tol)
{
	size_t i, lo = 0, hi = 0;
	double b;

	for (i = 1; i < n; i++) {
		if (d[i] < d[lo])
			lo = i;
		if (d[i] > d[hi])
			hi = i;
	}
	if (d[hi] == d[lo]) {
		for (i = 0; i < n; i++)
			if (fabs(px[i] - px[0]) > AFFINE_TOL)
				fail_msg("%s: constant data, pixels differ",
					 what);
		return;
	}
	b = (px[hi] - px[lo]) / (d[hi] - d[lo]);
	if (b * sign <= 0)
		fail_msg("%s: the axis runs the wrong way", what);
	for (i = 0; i < n; i++) {
		double want = px[lo] + b * (d[i] - d[lo]);

		if (fabs(px[i] - want) > AFFINE_TOL + fabs(b) * 3 * tol)
			fail_msg(
				"%s: point %zu at %.2f, the data put it at %.3f",
				what, i, px[i], want);
	}
}

void hpu_test_svg_check_affine(const struct hpu_test_svg_line *l,
			       const double *dx, const double *dy, size_t n)
{
	hpu_test_svg_check_affine_tol(l, dx, dy, n, 0.0);
}

void hpu_test_svg_check_affine_tol(const struct hpu_test_svg_line *l,
				   const double *dx, const double *dy, size_t n,
				   double dy_tol)
{
	char what[200];

	assert_non_null(l);
	if (l->n != n)
		fail_msg("%s: %zu points, %zu values", l->name, l->n, n);
	if (!n)
		return;
	snprintf(what, sizeof(what), "%s x", l->name);
	check_axis(what, l->x, dx, n, 1, 0.0);
	snprintf(what, sizeof(what), "%s y", l->name);
	check_axis(what, l->y, dy, n, -1, dy_tol);
}
