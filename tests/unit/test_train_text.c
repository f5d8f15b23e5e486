// SPDX-License-Identifier: MIT
/*
 * test_train_text.c - the text data of the training library: the shipped
 * English corpus (its checksum, its unigram entropy, corrupt, changed and
 * missing files), any text file, the byte-level tokenizer, records and the
 * seeded record split, and the DataLoader over token windows: window
 * content, sharding over 1/2/4/8 ranks, shuffling per seed and epoch,
 * prefetch depths, resume from a saved state, and resume after kill -9.
 *
 * The corpus is found the way hpu-train finds it (ht_data_find()): it is
 * part of the source tree, so a missing corpus fails the test.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ht_data.h"
#include "ht_loader.h"
#include "ht_rng.h"
#include "ht_text.h"

#define ERRLEN 1024

/* ---------------------------------------------------------------- helpers */

/* A text of @len seeded random printable bytes and newlines */
static void make_text(struct ht_text *t, uint32_t len, uint64_t seed)
{
	struct ht_rng rng;
	uint32_t i;

	t->data = malloc(len);
	assert_non_null(t->data);
	t->len = len;
	ht_rng_seed(&rng, seed, 0);
	for (i = 0; i < len; i++) {
		uint64_t r = ht_rng_below(&rng, 96);

		t->data[i] = r == 95 ? '\n' : (uint8_t)(' ' + r);
	}
	t->records = ht_text_records(t->data, t->len, NULL);
}

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

static void load_corpus(struct ht_text *t)
{
	char err[ERRLEN];
	int ret = ht_text_load_corpus(NULL, t, err, sizeof(err));

	if (ret)
		fail_msg("ht_text_load_corpus: %d: %s", ret, err);
}

/* ---------------------------------------------------------------- corpus */

static void test_corpus_load(void **state)
{
	uint32_t count[256] = { 0 }, distinct = 0, i;
	struct ht_text t;
	double bits;

	load_corpus(&t);
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
	load_corpus(&t);
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

	load_corpus(&src);
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

/* ---------------------------------------------------------------- loader */

static struct ht_loader *make_loader(const struct ht_text *t, uint32_t ctx,
				     uint32_t stride, uint32_t world,
				     uint32_t rank, uint32_t bs,
				     uint32_t prefetch, uint64_t seed,
				     bool drop_last)
{
	struct ht_text_windows w = { .text = t,
				     .context = ctx,
				     .stride = stride };
	struct ht_loader_opts o = {
		.batch_size = bs,
		.world_size = world,
		.rank = rank,
		.seed = seed,
		.shuffle = true,
		.drop_last = drop_last,
		.prefetch = prefetch,
	};
	struct ht_loader *l;
	char err[ERRLEN];
	int ret = ht_loader_create_text(&w, &o, &l, err, sizeof(err));

	if (ret)
		fail_msg("ht_loader_create_text: %d: %s", ret, err);
	return l;
}

/* Every window of @b is the text at its index x stride */
static void check_windows(const struct ht_text *t, uint32_t ctx,
			  uint32_t stride, const struct ht_batch *b)
{
	uint32_t i, j;

	assert_null(b->x);
	assert_null(b->y);
	for (i = 0; i < b->n; i++) {
		const uint8_t *w = t->data + (size_t)b->idx[i] * stride;

		assert_true((size_t)b->idx[i] * stride + ctx < t->len);
		for (j = 0; j < ctx; j++) {
			assert_int_equal(b->ids[i * ctx + j], w[j]);
			assert_int_equal(b->targets[i * ctx + j], w[j + 1]);
		}
	}
}

static void test_windows(void **state)
{
	struct ht_text t;
	struct ht_text_windows w = { .text = &t, .context = 16 };
	struct ht_loader *l;
	struct ht_batch *b;
	uint32_t stride, n;

	make_text(&t, 1000, 3);
	/* (1000 - 1 - 16) / 16 + 1 = 62 windows; the last ends at 992 */
	assert_int_equal(ht_text_window_count(&w), 62);
	w.stride = 5;
	assert_int_equal(ht_text_window_count(&w), (1000 - 1 - 16) / 5 + 1);
	w.stride = 17;
	assert_int_equal(ht_text_window_count(&w), 0);
	w.stride = 0;
	t.len = 17;
	assert_int_equal(ht_text_window_count(&w), 1);
	t.len = 16;
	assert_int_equal(ht_text_window_count(&w), 0);
	t.len = 1000;

	for (stride = 1; stride <= 16; stride += 5) {
		w.stride = stride;
		n = ht_text_window_count(&w);
		l = make_loader(&t, 16, stride, 1, 0, 7, 1, 5, false);
		assert_int_equal(ht_loader_steps_per_epoch(l), (n + 6) / 7);
		while (ht_loader_next(l, &b) == 0) {
			check_windows(&t, 16, stride, b);
			ht_loader_release(l, b);
		}
		ht_loader_destroy(l);
	}
	ht_text_free(&t);
}

/* All ranks of a world over two epochs: disjoint, complete, equal steps */
static void check_sharding(const struct ht_text *t, uint32_t ctx,
			   uint32_t world, uint32_t bs, bool drop_last)
{
	struct ht_text_windows w = { .text = t, .context = ctx };
	uint32_t n = ht_text_window_count(&w), r, epoch;
	uint64_t g = (uint64_t)world * bs, steps;
	uint8_t *seen = malloc(n);
	struct ht_loader *l[8];

	assert_non_null(seen);
	for (r = 0; r < world; r++)
		l[r] = make_loader(t, ctx, 0, world, r, bs, r % 3, 99,
				   drop_last);
	steps = drop_last ? n / g : (n + g - 1) / g;
	for (r = 0; r < world; r++)
		assert_int_equal(ht_loader_steps_per_epoch(l[r]), steps);
	for (epoch = 0; epoch < 2; epoch++) {
		uint64_t total = 0, step, count[8] = { 0 };

		memset(seen, 0, n);
		for (step = 0; step < steps; step++) {
			uint32_t sum = 0, global = 0;

			for (r = 0; r < world; r++) {
				struct ht_batch *b;
				uint32_t i;

				assert_int_equal(ht_loader_next(l[r], &b), 0);
				assert_int_equal(b->epoch, epoch);
				assert_int_equal(b->step, step);
				if (r)
					assert_int_equal(b->global_n, global);
				global = b->global_n;
				sum += b->n;
				count[r]++;
				for (i = 0; i < b->n; i++) {
					assert_true(b->idx[i] < n);
					assert_int_equal(seen[b->idx[i]], 0);
					seen[b->idx[i]] = 1;
				}
				if (drop_last)
					assert_int_equal(b->n, bs);
				if (step == 0 || step == steps - 1)
					check_windows(t, ctx, ctx, b);
				ht_loader_release(l[r], b);
			}
			assert_int_equal(sum, global);
			total += global;
		}
		for (r = 0; r < world; r++) {
			struct ht_batch *b;

			assert_int_equal(count[r], steps);
			assert_int_equal(ht_loader_next(l[r], &b), -ENODATA);
		}
		assert_int_equal(total, drop_last ? steps * g : n);
		if (!drop_last) {
			uint32_t i;

			for (i = 0; i < n; i++)
				assert_int_equal(seen[i], 1);
		}
	}
	for (r = 0; r < world; r++)
		ht_loader_destroy(l[r]);
	free(seen);
}

static void test_sharding(void **state)
{
	static const uint32_t worlds[] = { 1, 2, 4, 8 };
	struct ht_text t, tr, va;
	struct ht_text_split_opts so = { .val_frac = 0.1, .seed = 7 };
	char err[ERRLEN];
	unsigned int i;

	/* 1000 bytes, T 8: 124 windows; batches that do not divide it */
	make_text(&t, 1000, 11);
	for (i = 0; i < 4; i++) {
		check_sharding(&t, 8, worlds[i], 5, false);
		check_sharding(&t, 8, worlds[i], 5, true);
	}
	ht_text_free(&t);

	/* the corpus's training part, the GPT's defaults: T 128, b 32 */
	load_corpus(&t);
	assert_int_equal(ht_text_split(&t, &so, &tr, &va, err, sizeof(err)), 0);
	for (i = 0; i < 4; i++)
		check_sharding(&tr, 128, worlds[i], 32, true);
	check_sharding(&va, 128, 8, 32, false);
	ht_text_free(&tr);
	ht_text_free(&va);
	ht_text_free(&t);
}

/* Every batch a loader returns over @epochs, as one checksum per batch */
static uint64_t batch_sum(const struct ht_batch *b, uint32_t ctx)
{
	uLong c = crc32(0L, Z_NULL, 0);

	c = crc32(c, (const void *)b->idx, b->n * sizeof(uint32_t));
	c = crc32(c, (const void *)b->ids, b->n * ctx * sizeof(int32_t));
	c = crc32(c, (const void *)b->targets, b->n * ctx * sizeof(int32_t));
	return ((uint64_t)c << 32) ^ (b->epoch << 24) ^ (b->step << 8) ^ b->n;
}

static uint32_t trace(struct ht_loader *l, uint32_t ctx, uint32_t epochs,
		      uint64_t *sums, uint32_t max)
{
	struct ht_batch *b;
	uint32_t e, count = 0;

	for (e = 0; e < epochs; e++) {
		while (ht_loader_next(l, &b) == 0) {
			assert_true(count < max);
			sums[count++] = batch_sum(b, ctx);
			ht_loader_release(l, b);
		}
	}
	return count;
}

static void test_shuffle(void **state)
{
	uint64_t ref[64], got[64], other[64];
	struct ht_loader *l;
	struct ht_text t;
	uint32_t n, i, p, same;

	make_text(&t, 3000, 5); /* T 16: 187 windows, b 10: 19 steps */
	l = make_loader(&t, 16, 0, 1, 0, 10, 0, 42, false);
	n = trace(l, 16, 2, ref, 64);
	ht_loader_destroy(l);
	assert_int_equal(n, 38);

	/* the same seed, any prefetch depth: the same batches */
	for (p = 0; p <= 8; p += 2) {
		l = make_loader(&t, 16, 0, 1, 0, 10, p, 42, false);
		assert_int_equal(trace(l, 16, 2, got, 64), n);
		assert_memory_equal(got, ref, n * sizeof(uint64_t));
		ht_loader_destroy(l);
	}
	/* epoch 1's order is not epoch 0's */
	for (i = 0, same = 0; i < 19; i++)
		same += ref[i] >> 32 == ref[19 + i] >> 32;
	assert_true(same < 3);
	/* another seed: another order */
	l = make_loader(&t, 16, 0, 1, 0, 10, 1, 43, false);
	assert_int_equal(trace(l, 16, 2, other, 64), n);
	for (i = 0, same = 0; i < n; i++)
		same += other[i] == ref[i];
	assert_true(same < 3);
	ht_loader_destroy(l);
	ht_text_free(&t);
}

/* Save mid-epoch, restore into a fresh loader: the same batches follow */
static void test_resume(void **state)
{
	struct ht_loader_state st;
	uint64_t ref[128], got[128];
	struct ht_loader *l;
	struct ht_batch *b;
	struct ht_text t;
	char err[ERRLEN];
	uint32_t n, i;

	make_text(&t, 4000, 9); /* T 32: 124 windows; 2 ranks x 6: 11 steps */
	l = make_loader(&t, 32, 0, 2, 1, 6, 2, 77, false);
	n = trace(l, 32, 3, ref, 128);
	ht_loader_destroy(l);
	assert_int_equal(n, 33);

	/* one epoch and 4 steps, with prefetch running ahead */
	l = make_loader(&t, 32, 0, 2, 1, 6, 4, 77, false);
	assert_int_equal(trace(l, 32, 1, got, 128), 11);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ht_loader_next(l, &b), 0);
		assert_int_equal(batch_sum(b, 32), ref[11 + i]);
		ht_loader_release(l, b);
	}
	ht_loader_get_state(l, &st);
	ht_loader_destroy(l);
	assert_int_equal(st.epoch, 1);
	assert_int_equal(st.step, 4);
	assert_int_equal(st.n_samples, 124);

	l = make_loader(&t, 32, 0, 2, 1, 6, 0, 77, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	assert_int_equal(trace(l, 32, 2, got, 128), 33 - 15);
	assert_memory_equal(got, ref + 15, (33 - 15) * sizeof(uint64_t));
	ht_loader_destroy(l);

	/* another context is another window count: refused */
	l = make_loader(&t, 33, 0, 2, 1, 6, 0, 77, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "loader state mismatch: saved seed 77, "
				    "124 samples"));
	ht_loader_destroy(l);
	ht_text_free(&t);
}

#define KILL_FILE_MAX 64

/*
 * The child: batches forever (bounded), each one's checksum written to
 * @fd, then the loader state saved as a checkpoint would be (a new file
 * renamed over the old one).
 */
static void child_run(const struct ht_text *t, int fd, const char *ckpt)
{
	struct ht_text_windows w = { .text = t, .context = 32 };
	struct ht_loader_opts o = { .batch_size = 6,
				    .world_size = 2,
				    .rank = 0,
				    .seed = 123,
				    .shuffle = true,
				    .prefetch = 3 };
	char tmp[KILL_FILE_MAX + 8], err[ERRLEN];
	struct ht_loader_state st;
	struct ht_loader *l;
	struct ht_batch *b;
	uint32_t count = 0;
	int ret;

	if (ht_loader_create_text(&w, &o, &l, err, sizeof(err)))
		_exit(3);
	snprintf(tmp, sizeof(tmp), "%s.tmp", ckpt);
	while (count < 100000) {
		FILE *f;
		uint64_t s;

		ret = ht_loader_next(l, &b);
		if (ret == -ENODATA)
			continue;
		if (ret)
			_exit(4);
		s = batch_sum(b, 32);
		ht_loader_release(l, b);
		if (write(fd, &s, sizeof(s)) != sizeof(s))
			_exit(0); /* the parent stopped reading */
		ht_loader_get_state(l, &st);
		f = fopen(tmp, "wb");
		if (!f || fwrite(&st, sizeof(st), 1, f) != 1 || fflush(f) ||
		    fsync(fileno(f)) || fclose(f) || rename(tmp, ckpt))
			_exit(5);
		count++;
	}
	_exit(0);
}

/* kill -9 in mid-run; resume from the last state saved: bit-identical */
static void test_kill_resume(void **state)
{
	char ckpt[KILL_FILE_MAX] = "/tmp/ht-text-ckpt-XXXXXX", err[ERRLEN];
	uint64_t ref[200], got[200], s;
	struct ht_loader_state st;
	struct ht_loader *l;
	struct ht_text t;
	uint32_t n, i, pos;
	int fds[2], status, fd;
	pid_t pid;
	FILE *f;

	make_text(&t, 4000, 13); /* 124 windows, 11 steps per epoch */
	l = make_loader(&t, 32, 0, 2, 0, 6, 0, 123, false);
	n = trace(l, 32, 18, ref, 200);
	ht_loader_destroy(l);
	assert_int_equal(n, 198);

	fd = mkstemp(ckpt);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		child_run(&t, fds[1], ckpt);
	}
	close(fds[1]);
	/* 40 batches: epoch 3, step 7 */
	for (i = 0; i < 40; i++) {
		assert_int_equal(read(fds[0], &s, sizeof(s)), sizeof(s));
		assert_int_equal(s, ref[i]);
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(fds[0]);

	f = fopen(ckpt, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&st, sizeof(st), 1, f), 1);
	fclose(f);
	unlink(ckpt);
	pos = (uint32_t)(st.epoch * 11 + st.step);
	print_message("killed at epoch %llu step %llu (%u batches saved)\n",
		      (unsigned long long)st.epoch, (unsigned long long)st.step,
		      pos);
	/* the child reports a batch, then saves: one may be unsaved */
	assert_true(pos >= 39 && pos < n);

	l = make_loader(&t, 32, 0, 2, 0, 6, 2, 123, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	for (i = 0; pos + i < n; i++) {
		struct ht_batch *b;
		int ret = ht_loader_next(l, &b);

		if (ret == -ENODATA)
			ret = ht_loader_next(l, &b);
		assert_int_equal(ret, 0);
		got[i] = batch_sum(b, 32);
		ht_loader_release(l, b);
	}
	assert_memory_equal(got, ref + pos, i * sizeof(uint64_t));
	ht_loader_destroy(l);
	ht_text_free(&t);
}

static void test_loader_errors(void **state)
{
	struct ht_text t;
	struct ht_text_windows w = { .text = &t, .context = 0 };
	struct ht_loader_opts o = { .batch_size = 4, .world_size = 1 };
	struct ht_loader *l;
	struct ht_batch info;
	int32_t ids[4 * 8], tg[4 * 8];
	struct ht_dataset ds;
	float x[4];
	int32_t y[4];
	char err[ERRLEN];
	int i;

	make_text(&t, 100, 1);
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader: context 0, stride 0 (1 <= stride <= context)");
	assert_null(l);
	w.context = 8;
	w.stride = 9;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	w.stride = 0;
	w.context = 100;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"loader: a text of 100 bytes holds no window of 100 + 1 tokens");
	/* 12 windows of 8, drop_last with a global batch of 16 */
	w.context = 8;
	o.world_size = 4;
	o.drop_last = true;
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "drop_last with 12 samples"));
	o.world_size = 1;
	o.drop_last = false;

	/* the copying variants follow the kind of loader */
	assert_int_equal(ht_loader_create_text(&w, &o, &l, err, sizeof(err)),
			 0);
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), -EINVAL);
	assert_int_equal(ht_loader_next_copy_text(l, ids, tg, &info), 0);
	assert_int_equal(info.n, 4);
	assert_null(info.ids);
	assert_null(info.targets);
	/* no shuffle: windows 0..3, 8 bytes apart */
	for (i = 0; i < 4 * 8; i++) {
		assert_int_equal(ids[i], t.data[i]);
		assert_int_equal(tg[i], t.data[i + 1]);
	}
	ht_loader_destroy(l);

	/* and a data set loader has no text batches */
	assert_int_equal(ht_dataset_alloc(&ds, 8, 1, 2), 0);
	memset(ds.x, 0, 8 * sizeof(float));
	memset(ds.y, 0, 8 * sizeof(int32_t));
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)), 0);
	assert_int_equal(ht_loader_next_copy_text(l, ids, tg, &info), -EINVAL);
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), 0);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
	ht_text_free(&t);
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
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_sharding),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_kill_resume),
		cmocka_unit_test(test_loader_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
