// SPDX-License-Identifier: MIT
/*
 * data_digits.c - finding data files and loading the digits data set
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ht_data.h"
#include "ht_error.h"

/* Ancestors of the executable's directory that are tried */
#define EXE_ANCESTORS 4

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Append "dir/name" to the list of places tried, as far as it fits */
static void note_tried(char *tried, size_t len, const char *path)
{
	size_t used = strlen(tried);

	if (used + 3 < len)
		snprintf(tried + used, len - used, "%s%s", used ? ", " : "",
			 path);
}

static int try_path(const char *dir, const char *name, char *out, size_t outlen,
		    char *tried, size_t triedlen)
{
	int n = snprintf(out, outlen, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	if (is_file(out))
		return 0;
	note_tried(tried, triedlen, out);
	return -ENOENT;
}

static int try_explicit(const char *name, const char *path, char *out,
			size_t outlen, char *err, size_t errlen)
{
	int n;

	if (is_dir(path))
		n = snprintf(out, outlen, "%s/%s", path, name);
	else
		n = snprintf(out, outlen, "%s", path);
	if (n < 0 || (size_t)n >= outlen) {
		ht_seterr(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	if (is_file(out))
		return 0;
	ht_seterr(err, errlen, "%s: no such file", out);
	return -ENOENT;
}

/* Step 3 of ht_data_find(): trainer/data beside the executable's tree */
static int try_exe_tree(const char *name, char *out, size_t outlen, char *tried,
			size_t triedlen)
{
	char dir[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	int i;

	if (len <= 0)
		return -ENOENT;
	dir[len] = '\0';
	for (i = 0; i <= EXE_ANCESTORS; i++) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir)
			break;
		*slash = '\0';
		snprintf(cand, sizeof(cand), "%s/trainer/data", dir);
		if (!try_path(cand, name, out, outlen, tried, triedlen))
			return 0;
	}
	return -ENOENT;
}

int ht_data_find(const char *name, const char *explicit_path, char *out,
		 size_t outlen, char *err, size_t errlen)
{
	const char *env = getenv(HT_DATA_DIR_ENV);
	char tried[1024] = "";

	if (explicit_path && *explicit_path)
		return try_explicit(name, explicit_path, out, outlen, err,
				    errlen);
	if (env && *env &&
	    !try_path(env, name, out, outlen, tried, sizeof(tried)))
		return 0;
	if (!try_exe_tree(name, out, outlen, tried, sizeof(tried)))
		return 0;
	if (!try_path("trainer/data", name, out, outlen, tried, sizeof(tried)))
		return 0;
	if (!try_path(HT_DATA_INSTALL_DIR, name, out, outlen, tried,
		      sizeof(tried)))
		return 0;
	ht_seterr(err, errlen,
		  "%s not found (set %s or give its path); tried: %s", name,
		  HT_DATA_DIR_ENV, tried);
	return -ENOENT;
}

static int check_digits(const char *path, const struct ht_dataset *ds,
			char *err, size_t errlen)
{
	uint64_t i;

	if (ds->f != HT_DIGITS_FEATURES) {
		ht_seterr(err, errlen,
			  "%s: %u features, the digits data set has %u", path,
			  ds->f, HT_DIGITS_FEATURES);
		return -EINVAL;
	}
	if (ds->classes > HT_DIGITS_CLASSES) {
		ht_seterr(err, errlen,
			  "%s: label %u found, the digits are 0..%u", path,
			  ds->classes - 1, HT_DIGITS_CLASSES - 1);
		return -EINVAL;
	}
	for (i = 0; i < (uint64_t)ds->n * ds->f; i++) {
		float v = ds->x[i];

		if (v < 0.0f || v > 16.0f || v != (float)(int)v) {
			ht_seterr(
				err, errlen,
				"%s: row %llu, column %llu: pixel %g is not an integer 0..16",
				path, (unsigned long long)(i / ds->f + 1),
				(unsigned long long)(i % ds->f + 1), (double)v);
			return -EINVAL;
		}
	}
	return 0;
}

int ht_data_load_digits(const char *path, struct ht_dataset *ds, char *err,
			size_t errlen)
{
	struct ht_csv_opts opts;
	char file[PATH_MAX];
	uint64_t i;
	int ret;

	memset(ds, 0, sizeof(*ds));
	ret = ht_data_find(HT_DIGITS_FILE, path, file, sizeof(file), err,
			   errlen);
	if (ret)
		return ret;
	ht_csv_opts_init(&opts);
	opts.header = HT_CSV_HEADER_NO;
	ret = ht_csv_load(file, &opts, ds, err, errlen);
	if (ret)
		return ret;
	ret = check_digits(file, ds, err, errlen);
	if (ret) {
		ht_dataset_free(ds);
		return ret;
	}
	ds->classes = HT_DIGITS_CLASSES;
	for (i = 0; i < (uint64_t)ds->n * ds->f; i++)
		ds->x[i] /= 16.0f;
	return 0;
}
