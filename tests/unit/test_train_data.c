// SPDX-License-Identifier: MIT
/*
 * test_train_data.c - the training library's data: the random numbers,
 * the digits data set, CSV loading and its error messages, synthetic
 * data, splits and standardisation (the DataLoader: test_train_loader.c).
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
#include "ht_rng.h"

#include "../lib/hpu_test_train.h"

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

static void test_digits(void **state)
{
	static const uint32_t hist_want[10] = { 178, 182, 177, 183, 181,
						182, 181, 179, 174, 180 };
	static const int row0[16] = { 0, 0, 5,	13, 9,	1,  0, 0,
				      0, 0, 13, 15, 10, 15, 5, 0 };
	uint32_t hist[10] = { 0 };
	struct ht_dataset ds;
	uint32_t i;

	if (hpu_test_load_digits(&ds)) {
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

	hpu_test_make_indexed(&src, 1000, 3, 5);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
