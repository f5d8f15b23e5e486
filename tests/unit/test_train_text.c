// SPDX-License-Identifier: MIT
/*
 * test_train_text.c - the text data of the training library: the shipped
 * English corpus (its checksum, its unigram entropy, corrupt, changed and
 * missing files), any text file, the byte-level tokenizer, records and the
 * seeded record split (the DataLoader over token windows:
 * test_train_text_loader.c).
 *
 * The corpus is found the way hpu-train finds it (ht_data_find()): it is
 * part of the source tree, so a missing corpus fails the test.
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
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ht_data.h"
#include "ht_text.h"

#include "../lib/hpu_test_train.h"

#define ERRLEN 1024

/* ---------------------------------------------------------------- helpers */

/* A copy of @s as a text */
static void text_of(struct ht_text *t, const char *s)
{
	t->len = (uint32_t)strlen(s);
	t->data = malloc(t->len ? t->len : 1);
	assert_non_null(t->data);
	memcpy(t->data, s, t->len);
	t->records = ht_text_records(t->data, t->len, NULL);
}

static char tmp_path[64];

/* Write @len bytes to a fresh temporary file, gzip-compressed if @gz */
static const char *write_tmp(const void *data, size_t len, int gz)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ht-text-XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		assert_non_null(g);
		if (len)
			assert_int_equal(gzwrite(g, data, (unsigned int)len),
					 (int)len);
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		assert_int_equal(write(fd, data, len), (ssize_t)len);
		close(fd);
	}
	return tmp_path;
}

/* The whole of a file */
static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc(st.st_size);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*len = st.st_size;
	return buf;
}

static void corpus_path(char *path, size_t len)
{
	char err[ERRLEN];

	if (ht_data_find(HT_TEXT_CORPUS_FILE, NULL, path, len, err,
			 sizeof(err)))
		fail_msg("the corpus is part of the source tree: %s", err);
}

/* ---------------------------------------------------------------- corpus */

static void test_corpus_load(void **state)
{
	uint32_t count[256] = { 0 }, distinct = 0, i;
	struct ht_text t;
	double bits;

	hpu_test_load_corpus(&t);
	assert_int_equal(t.len, HT_TEXT_CORPUS_BYTES);
	assert_int_equal(ht_text_crc32(t.data, t.len), HT_TEXT_CORPUS_CRC32);
	assert_int_equal(t.records, HT_TEXT_CORPUS_RECORDS);
	for (i = 0; i < t.len; i++)
		count[t.data[i]]++;
	for (i = 0; i < 256; i++) {
		if (!count[i])
			continue;
		distinct++;
		/* 7-bit ASCII: printable, tab and newline */
		assert_true(i == '\t' || i == '\n' || (i >= ' ' && i <= '~'));
	}
	assert_int_equal(distinct, 97);
	/* fortune format: the text ends with its last "%" line */
	assert_memory_equal(t.data + t.len - 3, "\n%\n", 3);

	assert_int_equal(ht_text_unigram_entropy(t.data, t.len, &bits), 0);
	print_message("corpus: %u bytes, %u records, %u distinct bytes, "
		      "unigram entropy %.4f bits/byte = %.4f nats/byte\n",
		      t.len, t.records, distinct, bits, bits * M_LN2);
	assert_true(bits > 4.78 && bits < 4.79);
	ht_text_free(&t);
	ht_text_free(&t); /* twice is fine */
}

static void test_entropy(void **state)
{
	uint8_t all[512];
	double bits;
	int i;

	for (i = 0; i < 512; i++)
		all[i] = (uint8_t)i;
	assert_int_equal(ht_text_unigram_entropy(all, 512, &bits), 0);
	assert_true(fabs(bits - 8.0) < 1e-12);
	assert_int_equal(
		ht_text_unigram_entropy((const uint8_t *)"aaaa", 4, &bits), 0);
	assert_true(bits == 0.0);
	assert_int_equal(
		ht_text_unigram_entropy((const uint8_t *)"aabb", 4, &bits), 0);
	assert_true(fabs(bits - 1.0) < 1e-12);
	/* p = 1/2, 1/4, 1/4: 1.5 bits */
	assert_int_equal(
		ht_text_unigram_entropy((const uint8_t *)"aabc", 4, &bits), 0);
	assert_true(fabs(bits - 1.5) < 1e-12);
	assert_int_equal(ht_text_unigram_entropy(all, 0, &bits), -EINVAL);
}

/* A file in a directory given to the search, plain text too */
static void test_corpus_find(void **state)
{
	char path[4096], dir[] = "/tmp/ht-text-dir-XXXXXX", file[128];
	char err[ERRLEN];
	struct ht_text t;
	size_t len;
	uint8_t *gz;

	corpus_path(path, sizeof(path));
	gz = read_file(path, &len);
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/%s", dir, HT_TEXT_CORPUS_FILE);
	{
		FILE *f = fopen(file, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(gz, 1, len, f), len);
		fclose(f);
	}
	assert_int_equal(ht_text_load_corpus(dir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.len, HT_TEXT_CORPUS_BYTES);
	ht_text_free(&t);
	unlink(file);
	rmdir(dir);
	free(gz);

	/* any text file, plain: paragraphs as records */
	write_tmp("one\ntwo\n\nthree\n", 15, 0);
	assert_int_equal(ht_text_load(tmp_path, &t, err, sizeof(err)), 0);
	assert_int_equal(t.len, 15);
	assert_int_equal(t.records, 2);
	assert_memory_equal(t.data, "one\ntwo\n\nthree\n", 15);
	ht_text_free(&t);
	unlink(tmp_path);
}

/* Missing, corrupt, truncated, changed, empty and binary files */
static void test_corpus_errors(void **state)
{
	char path[4096], want[ERRLEN], err[ERRLEN];
	struct ht_text t;
	uint8_t *gz;
	size_t len;

	assert_int_equal(ht_text_load_corpus("/nonexistent-ht/fortunes.txt.gz",
					     &t, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err,
			    "/nonexistent-ht/fortunes.txt.gz: no such file");
	assert_null(t.data);
	assert_int_equal(ht_text_load("/nonexistent-ht/x.txt", &t, err,
				      sizeof(err)),
			 -ENOENT);
	assert_string_equal(err,
			    "/nonexistent-ht/x.txt: No such file or directory");

	corpus_path(path, sizeof(path));
	gz = read_file(path, &len);

	/* bytes flipped in the middle of the deflate stream */
	gz[len / 2] ^= 0x55;
	gz[len / 2 + 1] ^= 0xaa;
	gz[len / 2 + 2] ^= 0x0f;
	write_tmp(gz, len, 0);
	assert_int_equal(ht_text_load_corpus(tmp_path, &t, err, sizeof(err)),
			 -EIO);
	snprintf(want, sizeof(want), "%s: read error: incorrect data check",
		 tmp_path);
	assert_string_equal(err, want);
	assert_null(t.data);
	unlink(tmp_path);

	/* cut short */
	gz[len / 2] ^= 0x55;
	gz[len / 2 + 1] ^= 0xaa;
	gz[len / 2 + 2] ^= 0x0f;
	write_tmp(gz, len / 3, 0);
	assert_int_equal(ht_text_load_corpus(tmp_path, &t, err, sizeof(err)),
			 -EIO);
	snprintf(want, sizeof(want), "%s: read error: unexpected end of file",
		 tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);

	/* its gzip trailer (CRC-32) changed: zlib catches it */
	gz[len - 6] ^= 1;
	write_tmp(gz, len, 0);
	assert_int_equal(ht_text_load_corpus(tmp_path, &t, err, sizeof(err)),
			 -EIO);
	assert_non_null(strstr(err, "read error: incorrect data check"));
	unlink(tmp_path);
	free(gz);

	/* another, well-formed text under the corpus's name */
	write_tmp("Not the corpus.\n%\n", 18, 1);
	assert_int_equal(ht_text_load_corpus(tmp_path, &t, err, sizeof(err)),
			 -EINVAL);
	snprintf(
		want, sizeof(want),
		"%s: 18 bytes with CRC-32 0x%08x, the corpus has 2556659 bytes with CRC-32 0x5c71066d (a changed file: rebuild it with tools/make-text-corpus)",
		tmp_path,
		ht_text_crc32((const uint8_t *)"Not the corpus.\n%\n", 18));
	assert_string_equal(err, want);
	assert_null(t.data);
	unlink(tmp_path);

	/* empty, plain and gzip */
	write_tmp("", 0, 0);
	assert_int_equal(ht_text_load(tmp_path, &t, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: empty file (no text)", tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);
	write_tmp("", 0, 1);
	assert_int_equal(ht_text_load(tmp_path, &t, err, sizeof(err)), -EINVAL);
	unlink(tmp_path);

	/* a NUL byte: binary */
	write_tmp("text\0more", 9, 1);
	assert_int_equal(ht_text_load(tmp_path, &t, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: NUL byte at offset 4: a binary file, not text", tmp_path);
	assert_string_equal(err, want);
	assert_null(t.data);
	unlink(tmp_path);

	/* a directory is not a text file */
	assert_int_equal(ht_text_load("/tmp", &t, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "/tmp: read error: "));
}

/* ---------------------------------------------------------------- tokens */

static void test_tokenizer(void **state)
{
	int32_t ids[256], bad[3] = { 65, 256, 66 };
	uint8_t all[256], back[256], out[3] = { 1, 2, 3 };
	struct ht_text t;
	int32_t *cids;
	uint8_t *cback;
	int i;

	for (i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	ht_tok_encode(all, 256, ids);
	for (i = 0; i < 256; i++)
		assert_int_equal(ids[i], i);
	memset(back, 0xee, sizeof(back));
	assert_int_equal(ht_tok_decode(ids, 256, back), 0);
	assert_memory_equal(back, all, 256);

	/* ids outside the vocabulary: refused, nothing written */
	assert_int_equal(ht_tok_decode(bad, 3, out), -EINVAL);
	bad[1] = -1;
	assert_int_equal(ht_tok_decode(bad, 3, out), -EINVAL);
	bad[1] = INT32_MIN;
	assert_int_equal(ht_tok_decode(bad, 3, out), -EINVAL);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[2], 3);
	bad[1] = 255;
	assert_int_equal(ht_tok_decode(bad, 3, out), 0);
	assert_memory_equal(out,
			    "A\xff"
			    "B",
			    3);

	/* the whole corpus */
	hpu_test_load_corpus(&t);
	cids = malloc((size_t)t.len * sizeof(*cids));
	cback = malloc(t.len);
	assert_non_null(cids);
	assert_non_null(cback);
	ht_tok_encode(t.data, t.len, cids);
	for (i = 0; i < (int)t.len; i++)
		assert_true(cids[i] >= 0 && cids[i] < (int32_t)HT_TOK_VOCAB);
	assert_int_equal(ht_tok_decode(cids, t.len, cback), 0);
	assert_memory_equal(cback, t.data, t.len);
	free(cback);
	free(cids);
	ht_text_free(&t);
}

/* ---------------------------------------------------------------- records */

/* Records partition the text; check the ends found */
static void check_records(const char *s, uint32_t n, const uint32_t *want)
{
	uint32_t ends[16], got;

	got = ht_text_records((const uint8_t *)s, (uint32_t)strlen(s), ends);
	assert_int_equal(got, n);
	assert_int_equal(ht_text_records((const uint8_t *)s,
					 (uint32_t)strlen(s), NULL),
			 n);
	assert_memory_equal(ends, want, n * sizeof(uint32_t));
}

static void test_records(void **state)
{
	/* fortune format: "%" lines end records, newline included */
	check_records("a\n%\nbb\n%\n", 2, (const uint32_t[]){ 4, 9 });
	check_records("a\n%\nbb\n%", 2, (const uint32_t[]){ 4, 8 });
	check_records("a\n%\ntail", 2, (const uint32_t[]){ 4, 8 });
	check_records("%\na\n%\n", 2, (const uint32_t[]){ 2, 6 });
	/* "%" inside a line is text; blank lines inside a fortune too */
	check_records("50% off\n\nx\n%\ny\n", 2, (const uint32_t[]){ 13, 15 });
	/* paragraphs: runs of two or more newlines */
	check_records("p1\n\np2\n\n\np3", 3, (const uint32_t[]){ 4, 9, 11 });
	check_records("one paragraph\n", 1, (const uint32_t[]){ 14 });
	check_records("50% off\n", 1, (const uint32_t[]){ 8 });
	assert_int_equal(ht_text_records((const uint8_t *)"", 0, NULL), 0);
}

/* ---------------------------------------------------------------- split */

/*
 * The parts are the source's records, each in exactly one part, in source
 * order: walk the source's records and take each from the part it heads.
 */
static void check_partition(const struct ht_text *src,
			    const struct ht_text *train,
			    const struct ht_text *val)
{
	uint32_t *ends = malloc(src->records * sizeof(*ends));
	uint32_t r, start = 0, pt = 0, pv = 0, nt = 0, nv = 0;

	assert_non_null(ends);
	assert_int_equal(train->len + val->len, src->len);
	assert_int_equal(train->records + val->records, src->records);
	ht_text_records(src->data, src->len, ends);
	for (r = 0; r < src->records; start = ends[r++]) {
		uint32_t len = ends[r] - start;
		const uint8_t *rec = src->data + start;
		bool in_t = pt + len <= train->len &&
			    !memcmp(train->data + pt, rec, len);
		bool in_v = pv + len <= val->len &&
			    !memcmp(val->data + pv, rec, len);

		assert_true(in_t || in_v);
		/* equal records could sit in either part; follow one */
		if (in_t) {
			pt += len;
			nt++;
		} else {
			pv += len;
			nv++;
		}
	}
	assert_int_equal(pt, train->len);
	assert_int_equal(pv, val->len);
	assert_int_equal(nt, train->records);
	assert_int_equal(nv, val->records);
	free(ends);
}

static void test_split(void **state)
{
	struct ht_text_split_opts so = { .val_frac = 0.1, .seed = 7 };
	struct ht_text src, tr1, va1, tr2, va2, tr3, va3;
	char err[ERRLEN];

	hpu_test_load_corpus(&src);
	assert_int_equal(ht_text_split(&src, &so, &tr1, &va1, err, sizeof(err)),
			 0);
	/* round(15117 x 0.1) records for validation */
	assert_int_equal(va1.records, 1512);
	assert_int_equal(tr1.records, HT_TEXT_CORPUS_RECORDS - 1512);
	assert_in_range(va1.len, 200000, 310000);
	check_partition(&src, &tr1, &va1);
	/* the parts are whole fortunes */
	assert_memory_equal(tr1.data + tr1.len - 2, "%\n", 2);
	assert_memory_equal(va1.data + va1.len - 2, "%\n", 2);
	print_message(
		"split seed 7: train %u bytes (%u records), val %u bytes (%u records)\n",
		tr1.len, tr1.records, va1.len, va1.records);

	/* the same seed: the same bytes */
	assert_int_equal(ht_text_split(&src, &so, &tr2, &va2, err, sizeof(err)),
			 0);
	assert_int_equal(tr2.len, tr1.len);
	assert_memory_equal(tr2.data, tr1.data, tr1.len);
	assert_memory_equal(va2.data, va1.data, va1.len);

	/* another seed: another validation part */
	so.seed = 8;
	assert_int_equal(ht_text_split(&src, &so, &tr3, &va3, err, sizeof(err)),
			 0);
	assert_int_equal(va3.records, 1512);
	assert_true(va3.len != va1.len ||
		    memcmp(va3.data, va1.data, va1.len) != 0);
	check_partition(&src, &tr3, &va3);
	ht_text_free(&tr2);
	ht_text_free(&va2);
	ht_text_free(&tr3);
	ht_text_free(&va3);

	/* no validation: training is the whole text */
	so.val_frac = 0;
	assert_int_equal(ht_text_split(&src, &so, &tr2, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(tr2.len, src.len);
	assert_memory_equal(tr2.data, src.data, src.len);
	ht_text_free(&tr2);

	ht_text_free(&tr1);
	ht_text_free(&va1);
	ht_text_free(&src);
}

static void test_split_errors(void **state)
{
	struct ht_text_split_opts so = { .val_frac = 1.0, .seed = 1 };
	struct ht_text src, tr, va;
	char err[ERRLEN];

	text_of(&src, "a\n%\nb\n%\nc\n%\n");
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err,
			    "text split: validation fraction 1 (0 <= f < 1)");
	so.val_frac = -0.1;
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 -EINVAL);
	so.val_frac = NAN;
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 -EINVAL);
	so.val_frac = 0.1; /* round(0.3) = 0 records */
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"text split: validation fraction 0.1 of 3 records leaves the validation part empty (need more records)");
	so.val_frac = 0.9; /* round(2.7) = 3 of 3 */
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"text split: validation fraction 0.9 of 3 records leaves the training part empty (need more records)");
	assert_null(tr.data);
	assert_null(va.data);
	so.val_frac = 0.5;
	assert_int_equal(ht_text_split(&src, &so, &tr, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(ht_text_split(&src, &so, &tr, &va, err, sizeof(err)),
			 0);
	assert_int_equal(tr.records + va.records, 3);
	assert_int_equal(va.records, 2); /* round(1.5) */
	check_partition(&src, &tr, &va);
	ht_text_free(&tr);
	ht_text_free(&va);
	ht_text_free(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_load),
		cmocka_unit_test(test_entropy),
		cmocka_unit_test(test_corpus_find),
		cmocka_unit_test(test_corpus_errors),
		cmocka_unit_test(test_tokenizer),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
