/* SPDX-License-Identifier: MIT */
/*
 * ht_text.h - text data of the training library: the English corpus
 * shipped in the source tree (trainer/data/fortunes.txt.gz), any text
 * file, the byte-level tokenizer, the record split into training and
 * validation text, and the unigram entropy. The DataLoader cuts a text
 * into fixed-length windows (ht_loader_create_text() in ht_loader.h).
 * See docs/training-data.md, "Text".
 *
 * Every function returns 0 or a negative errno; those that read user input
 * also write a one-line message into (err, errlen) (see ht_error.h).
 */
#ifndef HT_TEXT_H
#define HT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/** HT_TEXT_CORPUS_FILE - file name of the shipped corpus */
#define HT_TEXT_CORPUS_FILE    "fortunes.txt.gz"
/** HT_TEXT_CORPUS_BYTES - length of the shipped corpus's text */
#define HT_TEXT_CORPUS_BYTES   2556659U
/** HT_TEXT_CORPUS_CRC32 - CRC-32 (zlib's) of the shipped corpus's text */
#define HT_TEXT_CORPUS_CRC32   0x5c71066dU
/** HT_TEXT_CORPUS_RECORDS - fortunes in the shipped corpus */
#define HT_TEXT_CORPUS_RECORDS 15117U
/** HT_TEXT_MAX_BYTES - longest text accepted (256 MiB) */
#define HT_TEXT_MAX_BYTES      (1U << 28)

/** HT_TOK_VOCAB - token ids of the byte-level tokenizer: one per byte */
#define HT_TOK_VOCAB 256U

/**
 * struct ht_text - a text as bytes
 * @data: @len bytes (not NUL-terminated)
 * @len: its length, 1 .. HT_TEXT_MAX_BYTES
 * @records: records it holds (ht_text_records())
 */
struct ht_text {
	uint8_t *data;
	uint32_t len;
	uint32_t records;
};

/**
 * ht_text_free() - free a text's bytes and zero it
 * @txt: the text; NULL or already freed is fine
 */
void ht_text_free(struct ht_text *txt);

/**
 * ht_text_load() - read a text file, plain or gzip
 * @path: the file (gzip is recognised by its magic, not its name)
 * @txt: the text, allocated here (free with ht_text_free())
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Any bytes but NUL: a NUL byte means a binary file, not text.
 *
 * Return: 0; -ENOENT/-EACCES/... when the file cannot be opened; -EIO for
 * a corrupt or truncated gzip stream or a read error; -EINVAL for an
 * empty file or a NUL byte; -E2BIG beyond HT_TEXT_MAX_BYTES; -ENOMEM.
 */
int ht_text_load(const char *path, struct ht_text *txt, char *err,
		 size_t errlen);

/**
 * ht_text_load_corpus() - load the shipped English corpus
 * @path: the file or its directory, or NULL to search (ht_data_find())
 * @txt: the text, allocated here (free with ht_text_free())
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Loads HT_TEXT_CORPUS_FILE and checks its length and CRC-32 against
 * HT_TEXT_CORPUS_BYTES and HT_TEXT_CORPUS_CRC32, so that a training run
 * and its figures are known to be on the same text.
 *
 * Return: 0, -ENOENT with every place tried, -EINVAL for another text
 * (length or checksum), the errors of ht_text_load().
 */
int ht_text_load_corpus(const char *path, struct ht_text *txt, char *err,
			size_t errlen);

/**
 * ht_text_crc32() - zlib's CRC-32 of bytes
 * @data: the bytes
 * @len: their count
 *
 * Return: the CRC-32 (0 for no bytes).
 */
uint32_t ht_text_crc32(const uint8_t *data, size_t len);

/**
 * ht_text_unigram_entropy() - entropy of the byte frequencies
 * @data: the bytes
 * @len: their count (> 0)
 * @bits: bits per byte, written: -sum p(b) log2 p(b) over the bytes b
 *        present, p(b) = count(b) / @len
 *
 * The cross-entropy of the best model that ignores context: a language
 * model's validation loss (in nats, = bits x ln 2) must end well below it.
 *
 * Return: 0, -EINVAL for no bytes.
 */
int ht_text_unigram_entropy(const uint8_t *data, size_t len, double *bits);

/**
 * ht_text_records() - the records of a text
 * @data: the bytes
 * @len: their count
 * @ends: NULL, or room for the record count: the offset just past each
 *        record, ascending, the last one @len
 *
 * Fortune format when a line holds "%" alone: a record ends just after
 * each such line (its newline included); otherwise paragraphs: a record
 * ends after each run of two or more newlines. Bytes after the last
 * separator form a last record. So records partition the text: their
 * concatenation is the text.
 *
 * Return: the number of records (0 for no bytes).
 */
uint32_t ht_text_records(const uint8_t *data, uint32_t len, uint32_t *ends);

/**
 * struct ht_text_split_opts - a deterministic split of a text by records
 * @val_frac: fraction of records for validation, [0, 1)
 * @seed: the seed of the split (independent of the loader's)
 */
struct ht_text_split_opts {
	double val_frac;
	uint64_t seed;
};

/**
 * ht_text_split() - split a text into training and validation text
 * @src: the text
 * @opts: fraction and seed
 * @train: the training text, allocated here (never empty)
 * @val: the validation text, allocated here; NULL when val_frac is 0
 * @err: error message buffer
 * @errlen: size of @err
 *
 * The records of @src (ht_text_records()) are permuted with ht_rng stream
 * 0 of the seed (Fisher-Yates from the last down); the first
 * round(R x val_frac) records of the permutation are validation, the rest
 * training. Each part is its records' bytes in source order, so the two
 * partition the text's bytes, no window of one overlaps the other, and
 * the result depends only on @src and @opts.
 *
 * Return: 0; -EINVAL for a fraction outside [0, 1) or a part left empty
 * (too few records); -ENOMEM.
 */
int ht_text_split(const struct ht_text *src,
		  const struct ht_text_split_opts *opts, struct ht_text *train,
		  struct ht_text *val, char *err, size_t errlen);

/**
 * ht_tok_encode() - token ids of bytes (byte-level: id = byte value)
 * @text: the bytes (any, so every prompt is valid)
 * @len: their count
 * @ids: room for @len ids, written
 */
void ht_tok_encode(const void *text, size_t len, int32_t *ids);

/**
 * ht_tok_decode() - bytes of token ids
 * @ids: the ids
 * @n: their count
 * @out: room for @n bytes, written (not NUL-terminated)
 *
 * Return: 0, -EINVAL when an id is outside 0 .. HT_TOK_VOCAB - 1 (@out
 * is then unchanged).
 */
int ht_tok_decode(const int32_t *ids, size_t n, uint8_t *out);

#endif /* HT_TEXT_H */
