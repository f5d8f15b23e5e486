// SPDX-License-Identifier: MIT
/*
 * test_train_data.c - the training library's data: the digits data set,
 * CSV loading and its error messages, synthetic data, splits,
 * standardisation, and the DataLoader's sharding, shuffling, prefetch and
 * resume.
 *
 * The digits tests look for trainer/data/digits.csv.gz the way hpu-train
 * does (ht_data_find()); they skip with the reason when it is missing.
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
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ht_data.h"
#include "ht_loader.h"
#include "ht_rng.h"

#define ERRLEN 512

/* ---------------------------------------------------------------- helpers */

static char tmp_path[64];

/* Write @text to a fresh temporary file (gzip when @gz); returns its path */
static const char *write_tmp(const char *text, int gz)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ht-data-XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		assert_non_null(g);
		assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)),
				 (int)strlen(text));
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		assert_int_equal(write(fd, text, strlen(text)),
				 (ssize_t)strlen(text));
		close(fd);
	}
	return tmp_path;
}

/* Load @text as CSV with @opts; returns the errno, message in @err */
static int load_text(const char *text, const struct ht_csv_opts *opts,
		     struct ht_dataset *ds, char *err)
{
	const char *path = write_tmp(text, 0);
	int ret;

	err[0] = '\0';
	ret = ht_csv_load(path, opts, ds, err, ERRLEN);
	unlink(path);
	return ret;
}

/* Assert that @text fails with -EINVAL and "<path>:<where>: <what>" */
static void expect_csv_error(const char *text, const char *where,
			     const char *what)
{
	struct ht_dataset ds;
	char err[ERRLEN], want[ERRLEN];

	assert_int_equal(load_text(text, NULL, &ds, err), -EINVAL);
	snprintf(want, sizeof(want), "%s:%s: %s", tmp_path, where, what);
	assert_string_equal(err, want);
	assert_null(ds.x);
}

/* A data set whose feature 0 is the sample's index (to follow samples) */
static void make_indexed(struct ht_dataset *ds, uint32_t n, uint32_t f,
			 uint32_t classes)
{
	uint32_t i, j;

	assert_int_equal(ht_dataset_alloc(ds, n, f, classes), 0);
	for (i = 0; i < n; i++) {
		for (j = 0; j < f; j++)
			ds->x[(size_t)i * f + j] = (float)(i * 10 + j);
		ds->y[i] = (int32_t)((i * 7) % classes);
	}
}

/* ---------------------------------------------------------------- rng */

static void test_rng_known_values(void **state)
{
	struct ht_rng a, b;
	uint64_t sm = 0;
	int i;

	/* splitmix64's published first output from state 0 */
	assert_true(ht_splitmix64(&sm) == 0xE220A8397B1DCDAFULL);
	ht_rng_seed(&a, 42, 0);
	ht_rng_seed(&b, 42, 0);
	for (i = 0; i < 100; i++)
		assert_true(ht_rng_next(&a) == ht_rng_next(&b));
	ht_rng_seed(&b, 42, 1);
	assert_true(ht_rng_next(&a) != ht_rng_next(&b));
	for (i = 0; i < 1000; i++) {
		float f = ht_rng_float(&a);

		assert_true(ht_rng_below(&a, 7) < 7);
		assert_true(f >= 0.0f && f < 1.0f);
	}
	assert_int_equal(ht_rng_below(&a, 1), 0);
}

/* ---------------------------------------------------------------- digits */

static int load_digits_or_skip(struct ht_dataset *ds)
{
	char err[ERRLEN];
	int ret = ht_data_load_digits(NULL, ds, err, sizeof(err));

	if (ret == -ENOENT)
		print_message("digits data set missing: %s\n", err);
	else if (ret)
		fail_msg("loading digits: %s", err);
	return ret;
}

static void test_digits(void **state)
{
	static const uint32_t hist_want[10] = { 178, 182, 177, 183, 181,
						182, 181, 179, 174, 180 };
	static const int row0[16] = { 0, 0, 5,	13, 9,	1,  0, 0,
				      0, 0, 13, 15, 10, 15, 5, 0 };
	uint32_t hist[10] = { 0 };
	struct ht_dataset ds;
	uint32_t i;

	if (load_digits_or_skip(&ds)) {
		skip();
		return;
	}
	assert_int_equal(ds.n, HT_DIGITS_SAMPLES);
	assert_int_equal(ds.f, HT_DIGITS_FEATURES);
	assert_int_equal(ds.classes, 10);
	for (i = 0; i < ds.n; i++) {
		assert_in_range(ds.y[i], 0, 9);
		hist[ds.y[i]]++;
	}
	assert_memory_equal(hist, hist_want, sizeof(hist));
	for (i = 0; i < 16; i++)
		assert_true(ds.x[i] == row0[i] / 16.0f);
	assert_int_equal(ds.y[0], 0);
	assert_int_equal(ds.y[1], 1);
	for (i = 0; i < ds.n * ds.f; i++)
		assert_true(ds.x[i] >= 0.0f && ds.x[i] <= 1.0f);
	ht_dataset_free(&ds);
}

static void test_digits_find(void **state)
{
	char path[4096], err[ERRLEN];
	struct ht_dataset ds;

	if (ht_data_find(HT_DIGITS_FILE, NULL, path, sizeof(path), err,
			 sizeof(err))) {
		print_message("digits data set missing: %s\n", err);
		skip();
		return;
	}
	/* An explicit directory and an explicit file both work */
	*strrchr(path, '/') = '\0';
	assert_int_equal(ht_data_load_digits(path, &ds, err, sizeof(err)), 0);
	assert_int_equal(ds.n, HT_DIGITS_SAMPLES);
	ht_dataset_free(&ds);
	/* HPU_TRAIN_DATA_DIR wins over the built-in places */
	{
		char dir[] = "/tmp/ht-data-dir-XXXXXX", file[64];
		FILE *f;

		assert_non_null(mkdtemp(dir));
		snprintf(file, sizeof(file), "%s/%s", dir, HT_DIGITS_FILE);
		f = fopen(file, "w");
		assert_non_null(f);
		fclose(f);
		setenv(HT_DATA_DIR_ENV, dir, 1);
		assert_int_equal(ht_data_find(HT_DIGITS_FILE, NULL, path,
					      sizeof(path), err, sizeof(err)),
				 0);
		assert_string_equal(path, file);
		unlink(file);
		rmdir(dir);
		/* ... and falls through when it does not hold the file */
		assert_int_equal(ht_data_find(HT_DIGITS_FILE, NULL, path,
					      sizeof(path), err, sizeof(err)),
				 0);
		assert_string_not_equal(path, file);
		unsetenv(HT_DATA_DIR_ENV);
	}
	assert_int_equal(ht_data_load_digits("/nonexistent-ht/digits.csv.gz",
					     &ds, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent-ht/digits.csv.gz: no such file");

	/* A CSV that is not the digits data set is refused */
	write_tmp("1,2,3\n", 0);
	assert_int_equal(ht_data_load_digits(tmp_path, &ds, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "2 features, the digits data set has 64"));
	unlink(tmp_path);
}

/* ---------------------------------------------------------------- CSV */

static void test_csv_header_detection(void **state)
{
	struct ht_csv_opts opts;
	struct ht_dataset ds;
	char err[ERRLEN];

	/* Detected: a text field in the first line */
	assert_int_equal(
		load_text("a,b,label\n1,2,0\n3,4.5,2\n", NULL, &ds, err), 0);
	assert_int_equal(ds.n, 2);
	assert_int_equal(ds.f, 2);
	assert_int_equal(ds.classes, 3);
	assert_true(ds.x[3] == 4.5f);
	assert_int_equal(ds.y[1], 2);
	ht_dataset_free(&ds);

	/* Not a header: every field numeric */
	assert_int_equal(load_text("1,2,0\n3,4,1\n", NULL, &ds, err), 0);
	assert_int_equal(ds.n, 2);
	ht_dataset_free(&ds);

	/* Forced header: the numeric first line is skipped */
	ht_csv_opts_init(&opts);
	opts.header = HT_CSV_HEADER_YES;
	assert_int_equal(load_text("1,2,0\n3,4,1\n", &opts, &ds, err), 0);
	assert_int_equal(ds.n, 1);
	assert_true(ds.x[0] == 3.0f);
	ht_dataset_free(&ds);

	/* Forced no header: the text line is an error */
	opts.header = HT_CSV_HEADER_NO;
	assert_int_equal(load_text("x,y,l\n3,4,1\n", &opts, &ds, err), -EINVAL);
	assert_non_null(strstr(err, ":1:1: not a number: 'x'"));
}

static void test_csv_format(void **state)
{
	struct ht_csv_opts opts;
	struct ht_dataset ds;
	char err[ERRLEN];

	/* Comments, blank lines, CRLF, blanks around fields, no final \n */
	assert_int_equal(load_text("# a comment\r\n\n  # indented comment\n"
				   " 1 ,\t2 , 1 \r\n\r\n-3e-1,4,0",
				   NULL, &ds, err),
			 0);
	assert_int_equal(ds.n, 2);
	assert_int_equal(ds.f, 2);
	assert_true(ds.x[0] == 1.0f && ds.x[1] == 2.0f);
	assert_true(ds.x[2] == -0.3f);
	assert_int_equal(ds.y[0], 1);
	ht_dataset_free(&ds);

	/* Label in column 0, "3.0" is an integer, ';' separated */
	ht_csv_opts_init(&opts);
	opts.label_col = 0;
	opts.delim = ';';
	assert_int_equal(load_text("3.0;0.5;0.25\n1;1;2\n", &opts, &ds, err),
			 0);
	assert_int_equal(ds.y[0], 3);
	assert_int_equal(ds.y[1], 1);
	assert_true(ds.x[0] == 0.5f && ds.x[3] == 2.0f);
	assert_int_equal(ds.classes, 4);
	ht_dataset_free(&ds);

	/* Label column outside the rows */
	opts.label_col = 5;
	opts.delim = 0;
	assert_int_equal(load_text("1,2,3\n", &opts, &ds, err), -EINVAL);
	assert_non_null(
		strstr(err, ":1: label column 5 is outside the 3 columns"));
	opts.label_col = -4;
	assert_int_equal(load_text("1,2,3\n", &opts, &ds, err), -EINVAL);
	assert_non_null(strstr(err, "label column -4 is outside"));

	/* max_rows */
	opts.label_col = -1;
	opts.max_rows = 2;
	assert_int_equal(load_text("1,0\n2,0\n3,0\n", &opts, &ds, err), -E2BIG);
	assert_non_null(strstr(err, ":3: too many rows (limit 2 rows"));
}

static void test_csv_errors(void **state)
{
	expect_csv_error("1,2,0\n1,x2,1\n", "2:2", "not a number: 'x2'");
	expect_csv_error("1,2,0\n1,,1\n", "2:2", "empty field");
	expect_csv_error("1,2,0\n1,2\n", "2:3",
			 "2 columns, expected 3 (as on line 1)");
	expect_csv_error("# c\n1,2,0\n1,2,3,4\n", "3:4",
			 "4 columns, expected 3 (as on line 2)");
	expect_csv_error("1,2,0\n1,2,1.5\n", "2:3",
			 "label '1.5' is not an integer");
	expect_csv_error("1,2,0\n1,2,-1\n", "2:3",
			 "label '-1' is negative (labels are 0, 1, ...)");
	expect_csv_error("1,2,0\n1,2,abc\n", "2:3", "not a number: 'abc'");
	expect_csv_error("1,2,0\n1,2,70000\n", "2:3",
			 "label '70000' is too large (at most 65535)");
	expect_csv_error(
		"1,2,0\nnan,2,1\n", "2:1",
		"NaN or infinite value 'nan' (every value must be finite and fit a float)");
	expect_csv_error(
		"1,2,0\n1,-inf,1\n", "2:2",
		"NaN or infinite value '-inf' (every value must be finite and fit a float)");
	expect_csv_error(
		"1,2,0\n1,1e39,1\n", "2:2",
		"NaN or infinite value '1e39' (every value must be finite and fit a float)");
	expect_csv_error(
		"1,2,0\n1,2,nan\n", "2:3",
		"NaN or infinite value 'nan' (every value must be finite and fit a float)");
	expect_csv_error(
		"7\n", "1",
		"1 column: need at least one feature and a label (separator ',')");
}

static void test_csv_empty(void **state)
{
	struct ht_dataset ds;
	char err[ERRLEN], want[ERRLEN];

	assert_int_equal(load_text("", NULL, &ds, err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: no data rows (empty file or only comments)", tmp_path);
	assert_string_equal(err, want);
	assert_int_equal(load_text("# only\n\n", NULL, &ds, err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: no data rows (empty file or only comments)", tmp_path);
	assert_string_equal(err, want);
	assert_int_equal(load_text("a,b\n", NULL, &ds, err), -EINVAL);
	snprintf(want, sizeof(want), "%s: no data rows (only a header line)",
		 tmp_path);
	assert_string_equal(err, want);

	assert_int_equal(ht_csv_load("/nonexistent-ht.csv", NULL, &ds, err,
				     sizeof(err)),
			 -ENOENT);
	assert_string_equal(err,
			    "/nonexistent-ht.csv: No such file or directory");
}

static void test_csv_long_line(void **state)
{
	size_t len = HT_CSV_MAX_LINE + 10, i;
	char *text = malloc(len + 16);
	struct ht_dataset ds;
	char err[ERRLEN];

	assert_non_null(text);
	strcpy(text, "1,0\n");
	for (i = 4; i < len; i++)
		text[i] = '1';
	strcpy(text + len, ",0\n");
	assert_int_equal(load_text(text, NULL, &ds, err), -EINVAL);
	assert_non_null(strstr(err, ":2: line longer than 1048576 bytes"));
	free(text);
}

static void test_csv_gzip(void **state)
{
	const char *text = "f1,f2,y\n# c\n0.5,1,1\n2,3,0\n";
	struct ht_dataset a, b;
	char err[ERRLEN];

	write_tmp(text, 1);
	assert_int_equal(ht_csv_load(tmp_path, NULL, &a, err, sizeof(err)), 0);
	unlink(tmp_path);
	assert_int_equal(load_text(text, NULL, &b, err), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.f, b.f);
	assert_memory_equal(a.x, b.x, a.n * a.f * sizeof(float));
	assert_memory_equal(a.y, b.y, a.n * sizeof(int32_t));
	ht_dataset_free(&a);
	ht_dataset_free(&b);

	/* A corrupt gzip stream is a read error, not garbage data */
	write_tmp(text, 1);
	{
		FILE *f = fopen(tmp_path, "r+b");

		assert_non_null(f);
		fseek(f, 12, SEEK_SET);
		fputs("garbage!", f);
		fclose(f);
	}
	assert_true(ht_csv_load(tmp_path, NULL, &a, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, tmp_path));
	unlink(tmp_path);
}

/* ---------------------------------------------------------------- synthetic */

static void test_synthetic(void **state)
{
	struct ht_synth_opts o = { .n = 1000, .f = 5, .classes = 4, .seed = 7 };
	uint32_t hist[4] = { 0 }, i;
	struct ht_dataset a, b;
	char err[ERRLEN];

	assert_int_equal(ht_data_synthetic(&o, &a, err, sizeof(err)), 0);
	assert_int_equal(ht_data_synthetic(&o, &b, err, sizeof(err)), 0);
	assert_int_equal(a.n, 1000);
	assert_int_equal(a.f, 5);
	assert_int_equal(a.classes, 4);
	assert_memory_equal(a.x, b.x, 1000 * 5 * sizeof(float));
	assert_memory_equal(a.y, b.y, 1000 * sizeof(int32_t));
	for (i = 0; i < a.n; i++)
		hist[a.y[i]]++;
	for (i = 0; i < 4; i++)
		assert_int_equal(hist[i], 250);
	/* Labels are shuffled, not in blocks */
	assert_false(a.y[0] == 0 && a.y[1] == 1 && a.y[2] == 2);
	ht_dataset_free(&b);

	o.seed = 8;
	assert_int_equal(ht_data_synthetic(&o, &b, err, sizeof(err)), 0);
	assert_memory_not_equal(a.x, b.x, 1000 * 5 * sizeof(float));
	ht_dataset_free(&a);
	ht_dataset_free(&b);

	o.classes = 1;
	assert_int_equal(ht_data_synthetic(&o, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "synthetic data: 1 classes (2..65536)");
	o.classes = 3;
	o.n = 0;
	assert_int_equal(ht_data_synthetic(&o, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "synthetic data: 0 samples (1..67108864)");
}

/* ---------------------------------------------------------------- split */

static void check_partition(const struct ht_dataset *src,
			    const struct ht_dataset *parts, int nparts)
{
	uint8_t *seen = calloc(src->n, 1);
	uint32_t total = 0, i;
	int p;

	assert_non_null(seen);
	for (p = 0; p < nparts; p++) {
		int64_t prev = -1;

		for (i = 0; i < parts[p].n; i++) {
			uint32_t id =
				(uint32_t)parts[p].x[(size_t)i * src->f] / 10;

			assert_true(id < src->n);
			assert_int_equal(seen[id], 0);
			seen[id] = 1;
			assert_true((int64_t)id > prev); /* source order */
			prev = id;
			assert_int_equal(parts[p].y[i], src->y[id]);
		}
		total += parts[p].n;
	}
	assert_int_equal(total, src->n);
	free(seen);
}

static void test_split(void **state)
{
	struct ht_split_opts o = {
		.val_frac = 0.1, .test_frac = 0.2, .seed = 3, .stratify = true
	};
	struct ht_dataset src, p[3], q[3];
	uint32_t per_class[5] = { 0 }, c, i;
	char err[ERRLEN];

	make_indexed(&src, 1000, 3, 5);
	assert_int_equal(ht_data_split(&src, &o, &p[0], &p[1], &p[2], err,
				       sizeof(err)),
			 0);
	check_partition(&src, p, 3);
	/* Stratified: 200 per class -> 40 test and 20 validation each */
	for (i = 0; i < p[2].n; i++)
		per_class[p[2].y[i]]++;
	for (c = 0; c < 5; c++)
		assert_int_equal(per_class[c], 40);
	assert_int_equal(p[1].n, 100);
	assert_int_equal(p[0].n, 700);

	/* The same seed gives the same split, another seed another one */
	assert_int_equal(ht_data_split(&src, &o, &q[0], &q[1], &q[2], err,
				       sizeof(err)),
			 0);
	assert_memory_equal(p[2].x, q[2].x, p[2].n * 3 * sizeof(float));
	for (i = 0; i < 3; i++)
		ht_dataset_free(&q[i]);
	o.seed = 4;
	assert_int_equal(ht_data_split(&src, &o, &q[0], &q[1], &q[2], err,
				       sizeof(err)),
			 0);
	assert_memory_not_equal(p[2].x, q[2].x, p[2].n * 3 * sizeof(float));
	for (i = 0; i < 3; i++) {
		ht_dataset_free(&q[i]);
		ht_dataset_free(&p[i]);
	}

	/* Simple split, no validation part */
	o.stratify = false;
	o.val_frac = 0;
	assert_int_equal(ht_data_split(&src, &o, &p[0], NULL, &p[1], err,
				       sizeof(err)),
			 0);
	assert_int_equal(p[1].n, 200);
	check_partition(&src, p, 2);
	ht_dataset_free(&p[0]);
	ht_dataset_free(&p[1]);

	o.test_frac = 0.95;
	o.val_frac = 0.05;
	assert_int_equal(ht_data_split(&src, &o, &p[0], &p[1], &p[2], err,
				       sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "sum to less than 1"));
	o.test_frac = 0.0001;
	o.val_frac = 0;
	assert_int_equal(ht_data_split(&src, &o, &p[0], NULL, &p[2], err,
				       sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "split: the test part of 1000 samples would be empty");
	ht_dataset_free(&src);
}

static void test_standardize(void **state)
{
	struct ht_synth_opts o = { .n = 500, .f = 3, .classes = 2, .seed = 1 };
	float mean[3], sd[3], m2[3], s2[3];
	struct ht_dataset ds;
	char err[ERRLEN];
	uint32_t i;

	assert_int_equal(ht_data_synthetic(&o, &ds, err, sizeof(err)), 0);
	for (i = 0; i < ds.n; i++)
		ds.x[i * 3 + 2] = 5.0f; /* a constant feature */
	assert_int_equal(ht_data_standardize_fit(&ds, mean, sd), 0);
	assert_true(sd[2] == 1.0f);
	ht_data_standardize_apply(&ds, mean, sd);
	assert_int_equal(ht_data_standardize_fit(&ds, m2, s2), 0);
	for (i = 0; i < 2; i++) {
		assert_true(fabsf(m2[i]) < 1e-5f);
		assert_true(fabsf(s2[i] - 1.0f) < 1e-4f);
	}
	assert_true(ds.x[2] == 0.0f);
	ht_dataset_free(&ds);
}

/* ---------------------------------------------------------------- loader */

static struct ht_loader *make_loader(const struct ht_dataset *ds,
				     uint32_t world, uint32_t rank, uint32_t bs,
				     uint32_t prefetch, bool shuffle,
				     bool drop_last)
{
	struct ht_loader_opts o = {
		.batch_size = bs,
		.world_size = world,
		.rank = rank,
		.seed = 1234,
		.shuffle = shuffle,
		.drop_last = drop_last,
		.prefetch = prefetch,
	};
	struct ht_loader *l;
	char err[ERRLEN];

	assert_int_equal(ht_loader_create(ds, &o, &l, err, sizeof(err)), 0);
	return l;
}

/* Check a batch's rows and labels against the data set */
static void check_batch_content(const struct ht_dataset *ds,
				const struct ht_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		assert_true(b->idx[i] < ds->n);
		assert_memory_equal(b->x + (size_t)i * ds->f,
				    ds->x + (size_t)b->idx[i] * ds->f,
				    ds->f * sizeof(float));
		assert_int_equal(b->y[i], ds->y[b->idx[i]]);
	}
}

/*
 * All ranks of one world, step by step over two epochs: every sample once
 * per epoch, the same step count everywhere, consistent global counts.
 */
static void check_sharding(const struct ht_dataset *ds, uint32_t world,
			   uint32_t bs, bool drop_last)
{
	struct ht_loader *l[8];
	uint8_t *seen = malloc(ds->n);
	uint64_t g = (uint64_t)world * bs, steps;
	uint32_t r, epoch;

	assert_non_null(seen);
	for (r = 0; r < world; r++)
		l[r] = make_loader(ds, world, r, bs, r % 2, true, drop_last);
	steps = drop_last ? ds->n / g : (ds->n + g - 1) / g;
	for (r = 0; r < world; r++)
		assert_int_equal(ht_loader_steps_per_epoch(l[r]), steps);

	for (epoch = 0; epoch < 2; epoch++) {
		uint64_t total = 0, step;

		memset(seen, 0, ds->n);
		for (step = 0; step < steps; step++) {
			uint32_t sum = 0, global = 0;

			for (r = 0; r < world; r++) {
				struct ht_batch *b;
				uint32_t i;

				assert_int_equal(ht_loader_next(l[r], &b), 0);
				assert_int_equal(b->epoch, epoch);
				assert_int_equal(b->step, step);
				assert_true(b->n <= bs);
				if (r)
					assert_int_equal(b->global_n, global);
				global = b->global_n;
				sum += b->n;
				for (i = 0; i < b->n; i++) {
					assert_int_equal(seen[b->idx[i]], 0);
					seen[b->idx[i]] = 1;
				}
				if (r == world - 1 || step == steps - 1)
					check_batch_content(ds, b);
				ht_loader_release(l[r], b);
			}
			assert_int_equal(sum, global);
			assert_true(global <= g);
			total += global;
		}
		for (r = 0; r < world; r++) {
			struct ht_batch *b;

			assert_int_equal(ht_loader_next(l[r], &b), -ENODATA);
			assert_null(b);
		}
		assert_int_equal(total, drop_last ? steps * g : ds->n);
		if (!drop_last) {
			uint32_t i;

			for (i = 0; i < ds->n; i++)
				assert_int_equal(seen[i], 1);
		}
	}
	for (r = 0; r < world; r++)
		ht_loader_destroy(l[r]);
	free(seen);
}

static void test_loader_sharding(void **state)
{
	static const uint32_t worlds[] = { 1, 2, 3, 4, 8 };
	static const uint32_t batches[] = { 1, 5, 7, 16, 50 };
	struct ht_dataset ds;
	size_t w, b;

	make_indexed(&ds, 103, 3, 4);
	for (w = 0; w < 5; w++)
		for (b = 0; b < 5; b++) {
			check_sharding(&ds, worlds[w], batches[b], false);
			if ((uint64_t)worlds[w] * batches[b] <= ds.n)
				check_sharding(&ds, worlds[w], batches[b],
					       true);
		}
	ht_dataset_free(&ds);
}

/* The last global batch is partial: some ranks get fewer or no samples */
static void test_loader_partial_last(void **state)
{
	struct ht_loader *l[4];
	struct ht_dataset ds;
	struct ht_batch *b;
	uint32_t want[4] = { 4, 1, 0, 0 }, r, s;

	make_indexed(&ds, 21, 2, 3); /* g = 16: steps of 16 and 5 samples */
	for (r = 0; r < 4; r++) {
		l[r] = make_loader(&ds, 4, r, 4, 0, false, false);
		assert_int_equal(ht_loader_steps_per_epoch(l[r]), 2);
	}
	for (r = 0; r < 4; r++) {
		assert_int_equal(ht_loader_next(l[r], &b), 0);
		assert_int_equal(b->n, 4);
		assert_int_equal(b->global_n, 16);
		/* No shuffle: rank r's first batch is samples 4r..4r+3 */
		for (s = 0; s < 4; s++)
			assert_int_equal(b->idx[s], 4 * r + s);
		ht_loader_release(l[r], b);
		assert_int_equal(ht_loader_next(l[r], &b), 0);
		assert_int_equal(b->n, want[r]);
		assert_int_equal(b->global_n, 5);
		ht_loader_release(l[r], b);
		assert_int_equal(ht_loader_next(l[r], &b), -ENODATA);
		ht_loader_destroy(l[r]);
	}
	ht_dataset_free(&ds);
}

/* Record every index a loader returns over @epochs epochs */
static uint32_t record(struct ht_loader *l, uint32_t epochs, uint32_t *out,
		       uint32_t max)
{
	uint32_t n = 0, e;
	struct ht_batch *b;

	for (e = 0; e < epochs; e++) {
		int ret;

		while ((ret = ht_loader_next(l, &b)) == 0) {
			assert_true(n + b->n <= max);
			memcpy(out + n, b->idx, b->n * sizeof(uint32_t));
			n += b->n;
			ht_loader_release(l, b);
		}
		assert_int_equal(ret, -ENODATA);
	}
	return n;
}

static void test_loader_shuffle(void **state)
{
	uint32_t a[3 * 100], b[3 * 100], i, n;
	struct ht_loader *l;
	struct ht_dataset ds;

	make_indexed(&ds, 100, 2, 3);
	l = make_loader(&ds, 1, 0, 8, 0, true, false);
	assert_int_equal(record(l, 3, a, 300), 300);
	ht_loader_destroy(l);
	l = make_loader(&ds, 1, 0, 8, 0, true, false);
	assert_int_equal(record(l, 3, b, 300), 300);
	ht_loader_destroy(l);
	/* Reproducible, and a different order every epoch */
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, a + 100, 100 * sizeof(uint32_t));
	assert_memory_not_equal(a + 100, a + 200, 100 * sizeof(uint32_t));

	/* No shuffle: data set order every epoch */
	l = make_loader(&ds, 1, 0, 8, 0, false, false);
	n = record(l, 2, a, 300);
	assert_int_equal(n, 200);
	for (i = 0; i < n; i++)
		assert_int_equal(a[i], i % 100);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

/* N ranks x b sees, step by step, the same sample sets as 1 device x N*b */
static void test_loader_equivalence(void **state)
{
	struct ht_loader *one, *r4[4];
	struct ht_dataset ds;
	struct ht_batch *b;
	uint32_t r, step;

	make_indexed(&ds, 150, 2, 3);
	one = make_loader(&ds, 1, 0, 32, 1, true, false);
	for (r = 0; r < 4; r++)
		r4[r] = make_loader(&ds, 4, r, 8, 0, true, false);
	for (step = 0; step < ht_loader_steps_per_epoch(one); step++) {
		uint32_t whole[32], n;

		assert_int_equal(ht_loader_next(one, &b), 0);
		n = b->n;
		memcpy(whole, b->idx, n * sizeof(uint32_t));
		ht_loader_release(one, b);
		for (r = 0; r < 4; r++) {
			assert_int_equal(ht_loader_next(r4[r], &b), 0);
			assert_int_equal(b->global_n, n);
			assert_true(!b->n || r * 8 + b->n <= n);
			assert_memory_equal(b->idx, whole + r * 8,
					    b->n * sizeof(uint32_t));
			ht_loader_release(r4[r], b);
		}
	}
	ht_loader_destroy(one);
	for (r = 0; r < 4; r++)
		ht_loader_destroy(r4[r]);
	ht_dataset_free(&ds);
}

/* Everything a loader returns, x included, as one checksum per batch */
static void trace(struct ht_loader *l, uint32_t epochs, uint64_t *sums,
		  uint32_t max, uint32_t *count)
{
	struct ht_batch *b;
	uint32_t e;

	*count = 0;
	for (e = 0; e < epochs; e++) {
		while (ht_loader_next(l, &b) == 0) {
			assert_true(*count < max);
			sums[(*count)++] =
				crc32(crc32(b->epoch * 1000 + b->step,
					    (const void *)b->x,
					    b->n * 3 * sizeof(float)),
				      (const void *)b->idx,
				      b->n * sizeof(uint32_t)) +
				((uint64_t)b->global_n << 32);
			ht_loader_release(l, b);
		}
	}
}

static void test_loader_prefetch_identical(void **state)
{
	uint64_t ref[64], got[64];
	uint32_t nref, ngot, p, r;
	struct ht_dataset ds;
	struct ht_loader *l;

	make_indexed(&ds, 97, 3, 5);
	for (r = 0; r < 3; r++) {
		l = make_loader(&ds, 3, r, 6, 0, true, false);
		trace(l, 3, ref, 64, &nref);
		ht_loader_destroy(l);
		assert_int_equal(nref, 3 * 6);
		for (p = 1; p <= 8; p *= 2) {
			l = make_loader(&ds, 3, r, 6, p, true, false);
			trace(l, 3, got, 64, &ngot);
			ht_loader_destroy(l);
			assert_int_equal(ngot, nref);
			assert_memory_equal(got, ref, nref * sizeof(uint64_t));
		}
	}
	ht_dataset_free(&ds);
}

static void test_loader_resume(void **state)
{
	struct ht_loader_state st;
	uint64_t ref[64], got[64];
	uint32_t nref, ngot, i;
	struct ht_dataset ds;
	struct ht_loader *l;
	struct ht_batch *b;
	char err[ERRLEN];

	make_indexed(&ds, 90, 3, 4);
	/* Reference: 3 uninterrupted epochs of 2 ranks x 7 -> 7 steps */
	l = make_loader(&ds, 2, 1, 7, 2, true, false);
	trace(l, 3, ref, 64, &nref);
	ht_loader_destroy(l);
	assert_int_equal(nref, 21);

	/* Interrupted after epoch 0 and 3 steps (prefetch ran ahead) */
	l = make_loader(&ds, 2, 1, 7, 4, true, false);
	trace(l, 1, got, 64, &ngot);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ht_loader_next(l, &b), 0);
		ht_loader_release(l, b);
	}
	usleep(2000); /* let the prefetch thread fill its queue */
	ht_loader_get_state(l, &st);
	ht_loader_destroy(l);
	assert_int_equal(st.epoch, 1);
	assert_int_equal(st.step, 3);

	/* Resumed, synchronous this time: the same batches follow */
	l = make_loader(&ds, 2, 1, 7, 0, true, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	trace(l, 2, got, 64, &ngot);
	assert_int_equal(ngot, 21 - 10);
	assert_memory_equal(got, ref + 10, ngot * sizeof(uint64_t));

	/* Seek back and forth on a prefetching loader */
	ht_loader_destroy(l);
	l = make_loader(&ds, 2, 1, 7, 3, true, false);
	assert_int_equal(ht_loader_seek(l, 2, 5), 0);
	trace(l, 1, got, 64, &ngot);
	assert_int_equal(ngot, 2);
	assert_memory_equal(got, ref + 19, 2 * sizeof(uint64_t));
	assert_int_equal(ht_loader_seek(l, 0, 0), 0);
	trace(l, 1, got, 64, &ngot);
	assert_memory_equal(got, ref, 7 * sizeof(uint64_t));
	assert_int_equal(ht_loader_seek(l, 0, 8), -EINVAL);

	/* A state of another configuration is refused */
	st.batch_size = 8;
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(
		err,
		"loader state mismatch: saved seed 1234, 90 samples, world 2, batch 8"));
	st.batch_size = 7;
	st.step = 9;
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader state: step 9 beyond the 7 steps of an epoch");
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

/* Destroy with the prefetch thread busy and a batch still held */
static void test_loader_shutdown(void **state)
{
	struct ht_dataset ds;
	struct ht_loader *l;
	struct ht_batch *b;
	int i;

	make_indexed(&ds, 5000, 16, 3);
	for (i = 0; i < 20; i++) {
		l = make_loader(&ds, 2, 0, 64, 1 + i % 4, true, false);
		assert_int_equal(ht_loader_next(l, &b), 0);
		if (i % 2)
			ht_loader_release(l, b);
		ht_loader_destroy(l);
	}
	/* Destroyed before any batch was asked for */
	l = make_loader(&ds, 1, 0, 64, 4, true, false);
	ht_loader_destroy(l);
	ht_loader_destroy(NULL);
	ht_dataset_free(&ds);
}

static void test_loader_busy(void **state)
{
	struct ht_batch *b[3], *c;
	struct ht_dataset ds;
	struct ht_loader *l;

	make_indexed(&ds, 50, 2, 3);
	l = make_loader(&ds, 1, 0, 4, 0, true, false);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(ht_loader_next(l, &c), -EBUSY);
	ht_loader_release(l, b[0]);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(b[0]->step, 1);
	ht_loader_release(l, b[0]);
	ht_loader_destroy(l);

	/* prefetch 2: three batches may be held at once, not four */
	l = make_loader(&ds, 1, 0, 4, 2, true, false);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(ht_loader_next(l, &b[1]), 0);
	assert_int_equal(ht_loader_next(l, &b[2]), 0);
	assert_int_equal(ht_loader_next(l, &c), -EBUSY);
	assert_int_equal(b[2]->step, 2);
	ht_loader_release(l, b[1]);
	assert_int_equal(ht_loader_next(l, &c), 0);
	assert_int_equal(c->step, 3);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

struct counting_alloc {
	int allocs;
	int frees;
	size_t bytes;
};

static void *count_alloc(size_t size, void *arg)
{
	struct counting_alloc *c = arg;

	c->allocs++;
	c->bytes += size;
	return malloc(size);
}

static void count_free(void *ptr, size_t size, void *arg)
{
	struct counting_alloc *c = arg;

	c->frees++;
	c->bytes -= size;
	free(ptr);
}

static void test_loader_alloc_and_copy(void **state)
{
	struct counting_alloc ca = { 0 };
	struct ht_loader_opts o = { .batch_size = 10,
				    .world_size = 1,
				    .seed = 5,
				    .shuffle = true,
				    .prefetch = 2,
				    .alloc = count_alloc,
				    .free = count_free,
				    .alloc_arg = &ca };
	struct ht_batch info;
	struct ht_dataset ds;
	struct ht_loader *l;
	char err[ERRLEN];
	float x[10 * 3];
	int32_t y[10];
	uint32_t i;

	make_indexed(&ds, 25, 3, 4);
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)), 0);
	assert_int_equal(ca.allocs, 3 * 2); /* x and y of 3 slots */
	assert_int_equal(ca.bytes, 3 * (10 * 3 * 4 + 10 * 4));
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), 0);
	assert_int_equal(info.n, 10);
	assert_null(info.x);
	for (i = 0; i < info.n; i++) {
		uint32_t id = (uint32_t)x[i * 3] / 10;

		assert_int_equal(y[i], ds.y[id]);
		assert_true(x[i * 3 + 2] == ds.x[id * 3 + 2]);
	}
	ht_loader_destroy(l);
	assert_int_equal(ca.frees, ca.allocs);
	assert_int_equal(ca.bytes, 0);
	ht_dataset_free(&ds);
}

static void test_loader_create_errors(void **state)
{
	struct ht_loader_opts o = { .batch_size = 8,
				    .world_size = 4,
				    .rank = 4 };
	struct ht_dataset ds, empty = { 0 };
	struct ht_loader *l;
	char err[ERRLEN];

	make_indexed(&ds, 20, 2, 3);
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_null(l);
	assert_string_equal(
		err,
		"loader: rank 4 of world size 4 (rank < world size, world size >= 1)");
	o.rank = 0;
	o.drop_last = true;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"loader: drop_last with 20 samples and a global batch of 32 (4 ranks x 8) leaves no batch");
	o.drop_last = false;
	o.batch_size = 0;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: batch size 0 (1..67108864)");
	o.batch_size = 8;
	o.prefetch = 65;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: prefetch 65 (at most 64)");
	o.prefetch = 0;
	o.alloc = count_alloc;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader: a buffer allocator needs its free function");
	o.alloc = NULL;
	assert_int_equal(ht_loader_create(&empty, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: empty data set");
	ht_dataset_free(&ds);
}

/* The digits data set through a split and a 4-rank loader */
static void test_digits_pipeline(void **state)
{
	struct ht_split_opts so = { .test_frac = 0.2,
				    .seed = 0,
				    .stratify = true };
	struct ht_dataset ds, train, test;
	char err[ERRLEN];

	if (load_digits_or_skip(&ds)) {
		skip();
		return;
	}
	assert_int_equal(ht_data_split(&ds, &so, &train, NULL, &test, err,
				       sizeof(err)),
			 0);
	assert_int_equal(train.n + test.n, HT_DIGITS_SAMPLES);
	assert_in_range(test.n, 355, 365);
	check_sharding(&train, 4, 32, false);
	ht_dataset_free(&train);
	ht_dataset_free(&test);
	ht_dataset_free(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_values),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_digits_find),
		cmocka_unit_test(test_csv_header_detection),
		cmocka_unit_test(test_csv_format),
		cmocka_unit_test(test_csv_errors),
		cmocka_unit_test(test_csv_empty),
		cmocka_unit_test(test_csv_long_line),
		cmocka_unit_test(test_csv_gzip),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_standardize),
		cmocka_unit_test(test_loader_sharding),
		cmocka_unit_test(test_loader_partial_last),
		cmocka_unit_test(test_loader_shuffle),
		cmocka_unit_test(test_loader_equivalence),
		cmocka_unit_test(test_loader_prefetch_identical),
		cmocka_unit_test(test_loader_resume),
		cmocka_unit_test(test_loader_shutdown),
		cmocka_unit_test(test_loader_busy),
		cmocka_unit_test(test_loader_alloc_and_copy),
		cmocka_unit_test(test_loader_create_errors),
		cmocka_unit_test(test_digits_pipeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
