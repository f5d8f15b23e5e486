// SPDX-License-Identifier: MIT
/*
 * fuzz_csv.c - libFuzzer target of the training library's CSV loader
 * (trainer/lib/data_csv.c: plain or gzip files of the user).
 *
 * Input: two bytes of options, then the file. Byte 0: bits 0-1 the header
 * mode (3 is AUTO), bits 2-4 the label column (from a table of good and
 * bad ones), bits 5-7 the separator (from a table); byte 1: max_rows (0:
 * the default). The file is put into a memfd and loaded by ht_csv_load()
 * through /proc/self/fd, the way a user's path is. A loaded data set must
 * be what the loader promises (sizes, labels below classes, finite
 * values); a refused one must come with a message.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "ht_data.h"

#include "fuzz_seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_FILE (1 << 20)

static const int label_cols[8] = { -1, 0, 1, 2, -2, -3, 7, -100 };
static const char delims[8] = { 0, ',', ';', '\t', ' ', '|', ':', 'x' };

static int memfd = -1;

static void check_loaded(const struct ht_dataset *ds)
{
	uint64_t i;

	if (!ds->n || !ds->f || !ds->classes || !ds->x || !ds->y)
		abort();
	for (i = 0; i < (uint64_t)ds->n * ds->f; i++)
		if (!isfinite(ds->x[i]))
			abort();
	for (i = 0; i < ds->n; i++)
		if (ds->y[i] < 0 || (uint32_t)ds->y[i] >= ds->classes)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_csv_opts o;
	struct ht_dataset ds;
	char path[64], err[256] = "";
	size_t done = 0;
	int ret;

	if (size < 2 || size - 2 > MAX_FILE)
		return 0;
	ht_csv_opts_init(&o);
	o.header = data[0] & 3;
	if (o.header == 3)
		o.header = HT_CSV_HEADER_AUTO;
	o.label_col = label_cols[(data[0] >> 2) & 7];
	o.delim = delims[data[0] >> 5];
	o.max_rows = data[1];
	data += 2;
	size -= 2;
	if (ftruncate(memfd, 0) || lseek(memfd, 0, SEEK_SET))
		abort();
	while (done < size) {
		ssize_t n = write(memfd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	ret = ht_csv_load(path, &o, &ds, err, sizeof(err));
	if (!ret) {
		check_loaded(&ds);
		ht_dataset_free(&ds);
	} else if (!err[0] || ret > 0) {
		abort();
	}
	return 0;
}

/* @text gzip-compressed into @out (room for @cap); its size, 0 on error */
static size_t gzip(const char *text, uint8_t *out, size_t cap)
{
	z_stream z = { 0 };
	size_t n;

	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return 0;
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	n = deflate(&z, Z_FINISH) == Z_STREAM_END ? cap - z.avail_out : 0;
	deflateEnd(&z);
	return n;
}

static void seed(const char *dir, const char *name, uint8_t o0, uint8_t o1,
		 const char *text, bool gz)
{
	static uint8_t s[4096];
	size_t n;

	s[0] = o0;
	s[1] = o1;
	if (gz) {
		n = gzip(text, s + 2, sizeof(s) - 2);
		if (!n)
			return;
	} else {
		n = strlen(text);
		memcpy(s + 2, text, n);
	}
	fuzz_seed_add(dir, name, s, n + 2);
}

static void seeds(const char *dir)
{
	static const char with_header[] = "# a comment\n"
					  "x1,x2,x3,label\n"
					  "0.5,1e-3,-2,0\n"
					  " 1 ,\t2.25,3,2.0\r\n"
					  "\n"
					  "4,5,6,1\n";
	static const char plain[] = "1;2;0\n3;4;1\n5;6;2";

	seed(dir, "header", 0x03, 0, with_header, false);
	seed(dir, "semicolon-first-label", 0x01 | 1 << 2 | 2 << 5, 0, plain,
	     false);
	seed(dir, "gzip", 0x02, 0, with_header, true);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz_csv", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	seeds(fuzz_corpus_dir(*argc, *argv));
	return 0;
}
