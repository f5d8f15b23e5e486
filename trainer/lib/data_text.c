// SPDX-License-Identifier: MIT
/*
 * data_text.c - text files, plain or gzip, and the shipped English corpus
 * (see ht_text.h)
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ht_data.h"
#include "ht_error.h"
#include "ht_text.h"

/* Bytes read per gzread() call */
#define TEXT_CHUNK (1U << 20)

void ht_text_free(struct ht_text *txt)
{
	if (!txt)
		return;
	free(txt->data);
	memset(txt, 0, sizeof(*txt));
}

uint32_t ht_text_crc32(const uint8_t *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (len) {
		uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;

		crc = crc32(crc, data, n);
		data += n;
		len -= n;
	}
	return (uint32_t)crc;
}

/* Grow @buf: double it (from TEXT_CHUNK), at most HT_TEXT_MAX_BYTES */
static int grow(uint8_t **buf, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : TEXT_CHUNK;
	uint8_t *p;

	if (c > HT_TEXT_MAX_BYTES)
		c = HT_TEXT_MAX_BYTES;
	p = realloc(*buf, c);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

/*
 * The error of the last gzread(), if any: a read error, a corrupt stream,
 * or (Z_BUF_ERROR, which gzread() reports as an end of file) a gzip stream
 * cut short. Return: 0 or -EIO.
 */
static int read_error(gzFile gz, const char *path, char *err, size_t errlen)
{
	int zerr;
	const char *msg = gzerror(gz, &zerr);
	size_t plen = strlen(path);

	if (zerr == Z_OK)
		return 0;
	if (zerr == Z_ERRNO)
		msg = strerror(errno);
	/* zlib's message starts with the path */
	if (!strncmp(msg, path, plen) && !strncmp(msg + plen, ": ", 2))
		msg += plen + 2;
	ht_seterr(err, errlen, "%s: read error: %s", path, msg);
	return -EIO;
}

/* Read the whole of @gz into @txt->data */
static int read_all(gzFile gz, const char *path, struct ht_text *txt, char *err,
		    size_t errlen)
{
	size_t len = 0, cap = 0;
	uint8_t *buf = NULL, probe;
	int n;

	for (;;) {
		if (len == cap && cap < HT_TEXT_MAX_BYTES && grow(&buf, &cap)) {
			ht_seterr(err, errlen, "%s: out of memory", path);
			free(buf);
			return -ENOMEM;
		}
		if (len == cap) {
			/* at the limit: one byte more is too many */
			n = gzread(gz, &probe, 1);
			if (n < 0)
				goto err_read;
			if (!n)
				break; /* a short stream: read_error() below */
			ht_seterr(err, errlen,
				  "%s: longer than %u bytes (the limit)", path,
				  HT_TEXT_MAX_BYTES);
			free(buf);
			return -E2BIG;
		}
		n = gzread(gz, buf + len, (unsigned int)(cap - len));
		if (n < 0)
			goto err_read;
		if (!n)
			break;
		len += (size_t)n;
	}
	if (read_error(gz, path, err, errlen)) {
		free(buf);
		return -EIO;
	}
	txt->data = buf;
	txt->len = (uint32_t)len;
	return 0;

err_read:
	free(buf);
	if (!read_error(gz, path, err, errlen))
		ht_seterr(err, errlen, "%s: read error", path);
	return -EIO;
}

/* A text is non-empty and holds no NUL byte */
static int check_text(const char *path, const struct ht_text *txt, char *err,
		      size_t errlen)
{
	const uint8_t *nul;

	if (!txt->len) {
		ht_seterr(err, errlen, "%s: empty file (no text)", path);
		return -EINVAL;
	}
	nul = memchr(txt->data, 0, txt->len);
	if (nul) {
		ht_seterr(err, errlen,
			  "%s: NUL byte at offset %zu: a binary file, not text",
			  path, (size_t)(nul - txt->data));
		return -EINVAL;
	}
	return 0;
}

int ht_text_load(const char *path, struct ht_text *txt, char *err,
		 size_t errlen)
{
	gzFile gz;
	int ret;

	memset(txt, 0, sizeof(*txt));
	errno = 0;
	gz = gzopen(path, "rb");
	if (!gz) {
		ret = errno ? -errno : -ENOMEM;
		ht_seterr(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_all(gz, path, txt, err, errlen);
	gzclose_r(gz);
	if (ret)
		return ret;
	ret = check_text(path, txt, err, errlen);
	if (ret) {
		ht_text_free(txt);
		return ret;
	}
	txt->records = ht_text_records(txt->data, txt->len, NULL);
	return 0;
}

int ht_text_load_corpus(const char *path, struct ht_text *txt, char *err,
			size_t errlen)
{
	char file[PATH_MAX];
	uint32_t crc;
	int ret;

	memset(txt, 0, sizeof(*txt));
	ret = ht_data_find(HT_TEXT_CORPUS_FILE, path, file, sizeof(file), err,
			   errlen);
	if (ret)
		return ret;
	ret = ht_text_load(file, txt, err, errlen);
	if (ret)
		return ret;
	crc = ht_text_crc32(txt->data, txt->len);
	if (txt->len != HT_TEXT_CORPUS_BYTES || crc != HT_TEXT_CORPUS_CRC32) {
		ht_seterr(
			err, errlen,
			"%s: %u bytes with CRC-32 0x%08x, the corpus has %u bytes with CRC-32 0x%08x (a changed file: rebuild it with tools/make-text-corpus)",
			file, txt->len, crc, HT_TEXT_CORPUS_BYTES,
			HT_TEXT_CORPUS_CRC32);
		ht_text_free(txt);
		return -EINVAL;
	}
	return 0;
}

int ht_text_unigram_entropy(const uint8_t *data, size_t len, double *bits)
{
	uint64_t count[256] = { 0 };
	double h = 0.0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		count[data[i]]++;
	for (i = 0; i < 256; i++) {
		double p = (double)count[i] / (double)len;

		if (count[i])
			h -= p * log2(p);
	}
	*bits = h;
	return 0;
}
