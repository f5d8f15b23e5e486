/* SPDX-License-Identifier: MIT */
/*
 * ht_data.h - data sets of the training library
 *
 * A data set is N samples of F float features (row-major) with one int32
 * class label each. Sources: the digits data set shipped in the source tree
 * (trainer/data/digits.csv.gz), the user's own CSV files (plain or gzip)
 * and a seeded synthetic generator. Helpers split a data set
 * deterministically and standardise its features. Sharding and batching
 * are in ht_loader.h. See docs/training-data.md.
 *
 * Every function returns 0 or a negative errno; those that read user input
 * also write a one-line message into (err, errlen) (see ht_error.h).
 */
#ifndef HT_DATA_H
#define HT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** HT_DATA_MAX_SAMPLES - most samples of one data set (2^26) */
#define HT_DATA_MAX_SAMPLES  (1U << 26)
/** HT_DATA_MAX_FEATURES - most features per sample */
#define HT_DATA_MAX_FEATURES 65536U
/** HT_DATA_MAX_CLASSES - labels are 0 .. HT_DATA_MAX_CLASSES - 1 */
#define HT_DATA_MAX_CLASSES  65536U
/** HT_DATA_MAX_ELEMS - most features of one data set (N x F, 1 GiB) */
#define HT_DATA_MAX_ELEMS    (1ULL << 28)
/** HT_CSV_MAX_LINE - longest CSV line in bytes, without its newline */
#define HT_CSV_MAX_LINE	     (1U << 20)

/** HT_DIGITS_FILE - file name of the digits data set */
#define HT_DIGITS_FILE	   "digits.csv.gz"
/** HT_DIGITS_SAMPLES - rows of the digits data set */
#define HT_DIGITS_SAMPLES  1797U
/** HT_DIGITS_FEATURES - 8 x 8 pixels */
#define HT_DIGITS_FEATURES 64U
/** HT_DIGITS_CLASSES - the digits 0..9 */
#define HT_DIGITS_CLASSES  10U

/** HT_DATA_DIR_ENV - environment variable naming a data directory */
#define HT_DATA_DIR_ENV "HPU_TRAIN_DATA_DIR"

/*
 * HT_DATA_INSTALL_DIR - where 'make install' puts the data sets; the build
 * defines it from PREFIX, this is the default for PREFIX=/usr/local.
 */
#ifndef HT_DATA_INSTALL_DIR
#define HT_DATA_INSTALL_DIR "/usr/local/share/hpu/data"
#endif

/**
 * struct ht_dataset - samples, features and labels
 * @n: number of samples
 * @f: features per sample
 * @classes: number of classes; every label is in [0, classes)
 * @x: n x f features, row-major (sample i at x[i * f])
 * @y: n labels
 */
struct ht_dataset {
	uint32_t n;
	uint32_t f;
	uint32_t classes;
	float *x;
	int32_t *y;
};

/**
 * ht_dataset_alloc() - allocate an uninitialised data set
 * @ds: the data set, overwritten
 * @n: samples (> 0)
 * @f: features (> 0)
 * @classes: classes (> 0)
 *
 * Return: 0, -EINVAL for a size of 0 or above the HT_DATA_MAX_* limits,
 * -ENOMEM.
 */
int ht_dataset_alloc(struct ht_dataset *ds, uint32_t n, uint32_t f,
		     uint32_t classes);

/**
 * ht_dataset_free() - free a data set's arrays and zero it
 * @ds: the data set; NULL or already freed is fine
 */
void ht_dataset_free(struct ht_dataset *ds);

/**
 * ht_dataset_subset() - copy chosen samples into a new data set
 * @src: the source
 * @idx: indices into @src, in the order wanted
 * @count: number of indices (> 0)
 * @dst: the new data set (same f and classes as @src)
 *
 * Return: 0, -EINVAL for an index out of range or count 0, -ENOMEM.
 */
int ht_dataset_subset(const struct ht_dataset *src, const uint32_t *idx,
		      uint32_t count, struct ht_dataset *dst);

/**
 * ht_data_find() - find a data file
 * @name: file name, e.g. HT_DIGITS_FILE
 * @explicit_path: a path the user gave (a file, or a directory holding
 *                 @name), or NULL
 * @out: the path found
 * @outlen: size of @out
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Looks, in this order and taking the first that exists, at:
 *
 * 1. @explicit_path, when given (then nothing else is tried);
 * 2. $HPU_TRAIN_DATA_DIR/@name, when the variable is set and non-empty;
 * 3. <dir>/trainer/data/@name for the directory of the running executable
 *    and each of its first four ancestors (a build tree inside the
 *    checkout: build/bin/hpu-train, build/tests/unit/test_x);
 * 4. ./trainer/data/@name (run from the top of a checkout);
 * 5. HT_DATA_INSTALL_DIR/@name ($(PREFIX)/share/hpu/data).
 *
 * Return: 0, -ENOENT with every place tried in @err, -ENAMETOOLONG.
 */
int ht_data_find(const char *name, const char *explicit_path, char *out,
		 size_t outlen, char *err, size_t errlen);

/**
 * ht_data_load_digits() - load the digits data set
 * @path: the file or its directory, or NULL to search (ht_data_find())
 * @ds: the data set, allocated here (free with ht_dataset_free())
 * @err: error message buffer
 * @errlen: size of @err
 *
 * 1797 samples of 64 pixels 0..16, scaled to [0, 1] by dividing by 16;
 * labels 0..9, classes = 10.
 *
 * Return: 0, -ENOENT, -EINVAL for a file that is not the digits data set
 * (wrong column count, a pixel outside 0..16, a label above 9), the errors
 * of ht_csv_load().
 */
int ht_data_load_digits(const char *path, struct ht_dataset *ds, char *err,
			size_t errlen);

/**
 * enum ht_csv_header - whether a CSV file starts with a header line
 * @HT_CSV_HEADER_AUTO: the first non-comment line is a header when one of
 *                      its fields is not a number
 * @HT_CSV_HEADER_NO: every line is data
 * @HT_CSV_HEADER_YES: the first non-comment line is a header
 */
enum ht_csv_header {
	HT_CSV_HEADER_AUTO = 0,
	HT_CSV_HEADER_NO = 1,
	HT_CSV_HEADER_YES = 2,
};

/**
 * struct ht_csv_opts - how to read a CSV file
 * @label_col: 0-based column of the label; negative counts from the end
 *             (-1, the default, is the last column)
 * @header: enum ht_csv_header
 * @delim: field separator, 0 for ','
 * @max_rows: most data rows accepted, 0 for HT_DATA_MAX_SAMPLES
 */
struct ht_csv_opts {
	int label_col;
	int header;
	char delim;
	uint32_t max_rows;
};

/**
 * ht_csv_opts_init() - the defaults: last column is the label, header
 * detected, ',' separated
 * @opts: the options, overwritten
 */
void ht_csv_opts_init(struct ht_csv_opts *opts);

/**
 * ht_csv_load() - load a data set from a CSV file, plain or gzip
 * @path: the file (gzip is recognised by its magic, not its name)
 * @opts: options, or NULL for ht_csv_opts_init()'s
 * @ds: the data set, allocated here (free with ht_dataset_free())
 * @err: error message buffer, "path:line:column: what" for bad content
 * @errlen: size of @err
 *
 * Every field is a number (strtod syntax, surrounding blanks allowed);
 * the label column holds an integral value >= 0 (e.g. "3" or "3.0"),
 * the others become features in column order. Blank lines and lines whose
 * first non-blank character is '#' are skipped; "\r\n" endings are fine.
 * Every data line has the column count of the first line. classes is the
 * largest label plus one.
 *
 * Return: 0; -ENOENT/-EACCES/-EIO when the file cannot be read; -EINVAL
 * for a non-numeric or empty field, a wrong column count, NaN or Inf, a
 * label that is not an integer, negative or >= HT_DATA_MAX_CLASSES, a
 * file without data rows, a label column outside the row, a line longer
 * than HT_CSV_MAX_LINE; -E2BIG beyond max_rows or the HT_DATA_MAX_*
 * limits; -ENOMEM.
 */
int ht_csv_load(const char *path, const struct ht_csv_opts *opts,
		struct ht_dataset *ds, char *err, size_t errlen);

/**
 * struct ht_synth_opts - a synthetic classification data set
 * @n: samples
 * @f: features
 * @classes: classes (>= 2)
 * @seed: the seed; the same options give bit-identical data everywhere
 * @spread: standard deviation of each blob, relative to the unit spacing
 *          of the class centres; 0 means 0.5
 */
struct ht_synth_opts {
	uint32_t n;
	uint32_t f;
	uint32_t classes;
	uint64_t seed;
	float spread;
};

/**
 * ht_data_synthetic() - generate Gaussian blobs, one per class
 * @opts: sizes, seed and spread
 * @ds: the data set, allocated here
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Class c has a centre drawn uniformly from [-1, 1]^f; its samples are
 * the centre plus spread x N(0, 1) noise per feature (ht_rng_normal()).
 * Labels are balanced (sample i draws class i mod classes before a seeded
 * shuffle of the labels).
 *
 * Return: 0, -EINVAL for a size out of range, -ENOMEM.
 */
int ht_data_synthetic(const struct ht_synth_opts *opts, struct ht_dataset *ds,
		      char *err, size_t errlen);

/**
 * struct ht_split_opts - a deterministic train/validation/test split
 * @val_frac: fraction of samples for validation, [0, 1)
 * @test_frac: fraction of samples for test, [0, 1); the sum stays < 1
 * @seed: the seed of the split (independent of the loader's)
 * @stratify: split each class separately so every part keeps the class
 *            proportions; otherwise one permutation of all samples is cut
 */
struct ht_split_opts {
	double val_frac;
	double test_frac;
	uint64_t seed;
	bool stratify;
};

/**
 * ht_data_split() - split a data set into train, validation and test
 * @src: the data set
 * @opts: fractions, seed and mode
 * @train: the training part (never empty)
 * @val: the validation part, or NULL when val_frac is 0
 * @test: the test part, or NULL when test_frac is 0
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Simple: one seeded permutation of 0..n-1 (ht_rng stream 0 of @seed,
 * Fisher-Yates); its first round(n x test_frac) indices are the test
 * part, the next round(n x val_frac) validation, the rest training.
 * Stratified: the same per class (stream c+1 for class c, its indices in
 * ascending order permuted), rounding per class. Every part keeps the
 * source order of its samples, so the result depends only on @src and
 * @opts. A part asked for but left empty is an error.
 *
 * Return: 0, -EINVAL (bad fractions, an empty part), -ENOMEM.
 */
int ht_data_split(const struct ht_dataset *src,
		  const struct ht_split_opts *opts, struct ht_dataset *train,
		  struct ht_dataset *val, struct ht_dataset *test, char *err,
		  size_t errlen);

/**
 * ht_data_standardize_fit() - per-feature mean and standard deviation
 * @ds: the data set (normally the training part)
 * @mean: f floats, written
 * @std: f floats, written; a constant feature gets 1 so it maps to 0
 *
 * Computed in double precision, population standard deviation.
 *
 * Return: 0, -EINVAL for an empty data set.
 */
int ht_data_standardize_fit(const struct ht_dataset *ds, float *mean,
			    float *std);

/**
 * ht_data_standardize_apply() - x = (x - mean) / std for every feature
 * @ds: the data set, changed in place
 * @mean: f means from ht_data_standardize_fit()
 * @std: f standard deviations from ht_data_standardize_fit()
 */
void ht_data_standardize_apply(struct ht_dataset *ds, const float *mean,
			       const float *std);

#endif /* HT_DATA_H */
