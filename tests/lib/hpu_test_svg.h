/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_svg.h - reading back the SVG pictures of common/hpu_plot.c in
 * the plot tests: the document must be well-formed XML (the helper's own
 * checker, and xmllint --noout when libxml2-utils is installed, as
 * tools/install-deps makes sure), then its plot boxes and polylines are
 * parsed so a test can compare them with the data drawn.
 */
#ifndef HPU_TEST_SVG_H
#define HPU_TEST_SVG_H

#include <stdbool.h>
#include <stddef.h>

#define HPU_TEST_SVG_MAX_LINES 64
#define HPU_TEST_SVG_MAX_BOXES 8

/**
 * struct hpu_test_svg_line - one <polyline class="series">
 * @name: its data-series attribute, as written (escaped)
 * @box: index of the plot box of its panel
 * @x: point x coordinates
 * @y: point y coordinates
 * @n: points
 */
struct hpu_test_svg_line {
	char name[160];
	int box;
	double *x;
	double *y;
	size_t n;
};

/**
 * struct hpu_test_svg - a parsed picture
 * @text: the whole file
 * @box: x, y, width, height of every <rect class="plotbox">, in order
 * @nbox: plot boxes
 * @line: the polylines, in order
 * @nlines: polylines
 */
struct hpu_test_svg {
	char *text;
	double box[HPU_TEST_SVG_MAX_BOXES][4];
	int nbox;
	struct hpu_test_svg_line line[HPU_TEST_SVG_MAX_LINES];
	size_t nlines;
};

/*
 * Whether @text is well-formed XML (one root element, nested and matched
 * tags, quoted attributes, known entities, valid UTF-8, no control
 * characters): NULL, or what is wrong (static buffer).
 */
const char *hpu_test_xml_error(const char *text);

/*
 * Load @path into @s: fails the test unless it is well-formed (own
 * check; xmllint --noout too when installed) and every polyline parses.
 */
void hpu_test_svg_load(const char *path, struct hpu_test_svg *s);
void hpu_test_svg_free(struct hpu_test_svg *s);

/* The polyline named @name (escaped form), NULL when there is none */
const struct hpu_test_svg_line *hpu_test_svg_find(const struct hpu_test_svg *s,
						  const char *name);

/*
 * Fails the test unless every point of every polyline is inside its
 * panel's plot box and x never decreases along a polyline.
 */
void hpu_test_svg_check_points(const struct hpu_test_svg *s);

/*
 * Fails the test unless the points of @l are an affine image of the data
 * (@dx[i], @dy[i]) (@n of them: as many as points): x = a + b dx with
 * b > 0, y = c - d dy with d > 0 (up is bigger), within the 0.01 px of
 * the file's rounding. Constant data only needs constant pixels.
 */
void hpu_test_svg_check_affine(const struct hpu_test_svg_line *l,
			       const double *dx, const double *dy, size_t n);
/*
 * The same for @dy known only to +-@dy_tol (a table's rounding): each
 * point may be 3 x @dy_tol further off, at the scale of the fit
 */
void hpu_test_svg_check_affine_tol(const struct hpu_test_svg_line *l,
				   const double *dx, const double *dy, size_t n,
				   double dy_tol);

/* Whether xmllint is on PATH */
bool hpu_test_have_xmllint(void);

#endif /* HPU_TEST_SVG_H */
