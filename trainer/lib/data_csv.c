// SPDX-License-Identifier: MIT
/*
 * data_csv.c - CSV data sets, plain or gzip (zlib reads both)
 *
 * One pass over the file: the first non-comment line fixes the column
 * count (and is a header when asked or detected), every other line is a
 * data row. Errors name the file, the line and the column (both 1-based).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ht_data.h"
#include "ht_error.h"

/* The fields of the line at hand and where the row goes */
struct csv_state {
	const char *path;
	char delim;
	uint64_t line;
	uint32_t ncols;
	uint32_t label_col;
	uint64_t header_line; /* line of the column count's origin */
	uint32_t rows;
	uint32_t cap;
	uint32_t max_rows;
	int32_t max_label;
	float *x;
	int32_t *y;
	char *err;
	size_t errlen;
};

void ht_csv_opts_init(struct ht_csv_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->label_col = -1;
	opts->header = HT_CSV_HEADER_AUTO;
	opts->delim = ',';
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/* Split @line in place at @delim; returns the number of fields */
static uint32_t split_fields(char *line, char delim, char **fields,
			     uint32_t max)
{
	uint32_t n = 0;
	char *p = line;

	for (;;) {
		char *sep = strchr(p, delim);

		if (n < max)
			fields[n] = p;
		n++;
		if (!sep)
			break;
		*sep = '\0';
		p = sep + 1;
	}
	return n;
}

enum num_status {
	NUM_OK = 0,
	NUM_EMPTY,
	NUM_GARBAGE,
	NUM_NONFINITE,
};

static enum num_status parse_num(char *field, double *out)
{
	char *s = trim(field), *end;
	double d;

	if (!*s)
		return NUM_EMPTY;
	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end)
		return NUM_GARBAGE;
	if (!isfinite(d) || !isfinite((float)d))
		return NUM_NONFINITE;
	*out = d;
	return NUM_OK;
}

static int field_error(struct csv_state *st, uint32_t col, const char *field,
		       enum num_status status)
{
	const char *s = trim((char *)field);

	switch (status) {
	case NUM_EMPTY:
		ht_seterr(st->err, st->errlen, "%s:%llu:%u: empty field",
			  st->path, (unsigned long long)st->line, col + 1);
		break;
	case NUM_GARBAGE:
		ht_seterr(st->err, st->errlen,
			  "%s:%llu:%u: not a number: '%.40s'", st->path,
			  (unsigned long long)st->line, col + 1, s);
		break;
	default:
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu:%u: NaN or infinite value '%.40s' (every value must be finite and fit a float)",
			st->path, (unsigned long long)st->line, col + 1, s);
		break;
	}
	return -EINVAL;
}

/* Bytes of the first row block (later blocks double) */
#define CSV_FIRST_BYTES (1ULL << 20)

static int grow(struct csv_state *st)
{
	uint32_t feats = st->ncols - 1;
	uint32_t cap;
	float *x;
	int32_t *y;

	/* the first block holds 1024 rows, or fewer of very wide ones */
	if (st->cap) {
		cap = st->cap * 2;
	} else {
		uint64_t fit = CSV_FIRST_BYTES /
			       ((uint64_t)feats * sizeof(float) + sizeof(*y));

		cap = fit > 1024 ? 1024 : fit ? (uint32_t)fit : 1;
	}

	if (cap > st->max_rows)
		cap = st->max_rows;
	if ((uint64_t)cap * feats > HT_DATA_MAX_ELEMS)
		cap = (uint32_t)(HT_DATA_MAX_ELEMS / feats);
	if (cap <= st->cap) {
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu: too many rows (limit %u rows and %llu values)",
			st->path, (unsigned long long)st->line, st->max_rows,
			(unsigned long long)HT_DATA_MAX_ELEMS);
		return -E2BIG;
	}
	x = realloc(st->x, (size_t)cap * feats * sizeof(float));
	if (!x)
		return -ENOMEM;
	st->x = x;
	y = realloc(st->y, (size_t)cap * sizeof(int32_t));
	if (!y)
		return -ENOMEM;
	st->y = y;
	st->cap = cap;
	return 0;
}

static int parse_label(struct csv_state *st, char *field, int32_t *label)
{
	enum num_status status;
	double d;

	status = parse_num(field, &d);
	if (status != NUM_OK)
		return field_error(st, st->label_col, field, status);
	if (d != floor(d)) {
		ht_seterr(st->err, st->errlen,
			  "%s:%llu:%u: label '%s' is not an integer", st->path,
			  (unsigned long long)st->line, st->label_col + 1,
			  trim(field));
		return -EINVAL;
	}
	if (d < 0) {
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu:%u: label '%s' is negative (labels are 0, 1, ...)",
			st->path, (unsigned long long)st->line,
			st->label_col + 1, trim(field));
		return -EINVAL;
	}
	if (d >= HT_DATA_MAX_CLASSES) {
		ht_seterr(st->err, st->errlen,
			  "%s:%llu:%u: label '%s' is too large (at most %u)",
			  st->path, (unsigned long long)st->line,
			  st->label_col + 1, trim(field),
			  HT_DATA_MAX_CLASSES - 1);
		return -EINVAL;
	}
	*label = (int32_t)d;
	return 0;
}

static int add_row(struct csv_state *st, char **fields, uint32_t nfields)
{
	uint32_t c, j = 0;
	float *row;
	int ret;

	if (nfields != st->ncols) {
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu:%u: %u columns, expected %u (as on line %llu)",
			st->path, (unsigned long long)st->line,
			(nfields > st->ncols ? st->ncols : nfields) + 1,
			nfields, st->ncols,
			(unsigned long long)st->header_line);
		return -EINVAL;
	}
	if (st->rows == st->cap) {
		ret = grow(st);
		if (ret)
			return ret;
	}
	row = st->x + (size_t)st->rows * (st->ncols - 1);
	for (c = 0; c < st->ncols; c++) {
		enum num_status status;
		double d;

		if (c == st->label_col)
			continue;
		status = parse_num(fields[c], &d);
		if (status != NUM_OK)
			return field_error(st, c, fields[c], status);
		row[j++] = (float)d;
	}
	ret = parse_label(st, fields[st->label_col], &st->y[st->rows]);
	if (ret)
		return ret;
	if (st->y[st->rows] > st->max_label)
		st->max_label = st->y[st->rows];
	st->rows++;
	return 0;
}

/* True when a field of the first line is text, i.e. a column name */
static bool looks_like_header(char **fields, uint32_t n)
{
	uint32_t c;

	for (c = 0; c < n; c++) {
		double d;

		if (parse_num(fields[c], &d) == NUM_GARBAGE)
			return true;
	}
	return false;
}

/* The first non-comment line: column count, label column, header */
static int first_line(struct csv_state *st, const struct ht_csv_opts *o,
		      char **fields, uint32_t n, bool *is_header)
{
	int lc;

	if (n < 2) {
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu: %u column: need at least one feature and a label (separator '%c')",
			st->path, (unsigned long long)st->line, n, st->delim);
		return -EINVAL;
	}
	if (n > HT_DATA_MAX_FEATURES + 1) {
		ht_seterr(st->err, st->errlen,
			  "%s:%llu: %u columns, at most %u are supported",
			  st->path, (unsigned long long)st->line, n,
			  HT_DATA_MAX_FEATURES + 1);
		return -E2BIG;
	}
	lc = o->label_col < 0 ? (int)n + o->label_col : o->label_col;
	if (lc < 0 || lc >= (int)n) {
		ht_seterr(
			st->err, st->errlen,
			"%s:%llu: label column %d is outside the %u columns of the file",
			st->path, (unsigned long long)st->line, o->label_col,
			n);
		return -EINVAL;
	}
	st->ncols = n;
	st->label_col = (uint32_t)lc;
	st->header_line = st->line;
	if (o->header == HT_CSV_HEADER_YES)
		*is_header = true;
	else if (o->header == HT_CSV_HEADER_NO)
		*is_header = false;
	else
		*is_header = looks_like_header(fields, n);
	return 0;
}

/*
 * Read one line into @buf (HT_CSV_MAX_LINE + 2 bytes) without its line
 * ending. Returns 1 for a line, 0 at the end, a negative errno.
 */
static int read_line(struct csv_state *st, gzFile gz, char *buf)
{
	size_t len;
	int zerr;

	if (!gzgets(gz, buf, HT_CSV_MAX_LINE + 2)) {
		const char *msg = gzerror(gz, &zerr);

		if (zerr == Z_OK || zerr == Z_STREAM_END)
			return 0;
		ht_seterr(st->err, st->errlen, "%s:%llu: read error: %s",
			  st->path, (unsigned long long)st->line + 1,
			  zerr == Z_ERRNO ? strerror(errno) : msg);
		return -EIO;
	}
	st->line++;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if (len > HT_CSV_MAX_LINE) {
		ht_seterr(st->err, st->errlen,
			  "%s:%llu: line longer than %u bytes", st->path,
			  (unsigned long long)st->line, HT_CSV_MAX_LINE);
		return -EINVAL;
	}
	if (len && buf[len - 1] == '\r')
		buf[--len] = '\0';
	return 1;
}

static bool skip_line(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return !*line || *line == '#';
}

static int read_rows(struct csv_state *st, const struct ht_csv_opts *o,
		     gzFile gz, char *buf, char **fields)
{
	bool have_cols = false;
	int ret;

	while ((ret = read_line(st, gz, buf)) > 0) {
		uint32_t n;
		bool header;

		if (skip_line(buf))
			continue;
		n = split_fields(buf, st->delim, fields,
				 HT_DATA_MAX_FEATURES + 2);
		if (!have_cols) {
			ret = first_line(st, o, fields, n, &header);
			if (ret)
				return ret;
			have_cols = true;
			if (header)
				continue;
		}
		ret = add_row(st, fields, n);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	if (!st->rows) {
		ht_seterr(st->err, st->errlen, "%s: no data rows (%s)",
			  st->path,
			  have_cols ? "only a header line" :
				      "empty file or only comments");
		return -EINVAL;
	}
	return 0;
}

static int open_csv(const char *path, gzFile *gz, char *err, size_t errlen)
{
	int saved;

	errno = 0;
	*gz = gzopen(path, "rb");
	if (*gz) {
		gzbuffer(*gz, 256 * 1024);
		return 0;
	}
	saved = errno ? errno : ENOMEM;
	ht_seterr(err, errlen, "%s: %s", path, strerror(saved));
	return -saved;
}

int ht_csv_load(const char *path, const struct ht_csv_opts *opts,
		struct ht_dataset *ds, char *err, size_t errlen)
{
	struct csv_state st = {
		.path = path, .max_label = -1, .err = err, .errlen = errlen
	};
	struct ht_csv_opts defaults;
	char **fields = NULL;
	char *buf = NULL;
	gzFile gz;
	int ret;

	memset(ds, 0, sizeof(*ds));
	if (!opts) {
		ht_csv_opts_init(&defaults);
		opts = &defaults;
	}
	st.delim = opts->delim ? opts->delim : ',';
	st.max_rows = opts->max_rows && opts->max_rows < HT_DATA_MAX_SAMPLES ?
			      opts->max_rows :
			      HT_DATA_MAX_SAMPLES;
	if (st.delim == '\n' || st.delim == '\r' || st.delim == '#') {
		ht_seterr(err, errlen, "invalid CSV separator '%c'", st.delim);
		return -EINVAL;
	}
	buf = malloc(HT_CSV_MAX_LINE + 2);
	fields = calloc(HT_DATA_MAX_FEATURES + 2, sizeof(*fields));
	if (!buf || !fields) {
		ret = -ENOMEM;
		goto err_free_buf;
	}
	ret = open_csv(path, &gz, err, errlen);
	if (ret)
		goto err_free_buf;
	ret = read_rows(&st, opts, gz, buf, fields);
	gzclose(gz);
	if (ret)
		goto err_free_rows;

	ds->n = st.rows;
	ds->f = st.ncols - 1;
	ds->classes = (uint32_t)st.max_label + 1;
	ds->x = st.x;
	ds->y = st.y;
	/* Give back what the doubling over-allocated */
	ds->x = realloc(st.x, (size_t)ds->n * ds->f * sizeof(float)) ?: st.x;
	ds->y = realloc(st.y, (size_t)ds->n * sizeof(int32_t)) ?: st.y;
	free(fields);
	free(buf);
	return 0;

err_free_rows:
	free(st.x);
	free(st.y);
err_free_buf:
	free(fields);
	free(buf);
	if (ret == -ENOMEM)
		ht_seterr(err, errlen, "%s: out of memory", path);
	return ret;
}
