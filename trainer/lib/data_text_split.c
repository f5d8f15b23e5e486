// SPDX-License-Identifier: MIT
/*
 * data_text_split.c - the records of a text and its deterministic split
 * into training and validation text (see ht_text.h)
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ht_error.h"
#include "ht_rng.h"
#include "ht_text.h"

/* Is data[i] a '%' that stands alone on its line? */
static bool sep_line_at(const uint8_t *data, uint32_t len, uint32_t i)
{
	return data[i] == '%' && (i == 0 || data[i - 1] == '\n') &&
	       (i + 1 == len || data[i + 1] == '\n');
}

static bool fortune_format(const uint8_t *data, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (sep_line_at(data, len, i))
			return true;
	return false;
}

/* Note the end of a record at @end (when @ends is given) */
static void emit(uint32_t *ends, uint32_t *n, uint32_t end)
{
	if (ends)
		ends[*n] = end;
	(*n)++;
}

uint32_t ht_text_records(const uint8_t *data, uint32_t len, uint32_t *ends)
{
	bool fortune = fortune_format(data, len);
	uint32_t i = 0, n = 0, last = 0;

	while (i < len) {
		if (fortune && sep_line_at(data, len, i)) {
			i += i + 1 < len ? 2 : 1; /* the '%' and its newline */
			emit(ends, &n, i);
			last = i;
		} else if (!fortune && data[i] == '\n' && i + 1 < len &&
			   data[i + 1] == '\n') {
			while (i < len && data[i] == '\n')
				i++;
			emit(ends, &n, i);
			last = i;
		} else {
			i++;
		}
	}
	if (last < len)
		emit(ends, &n, len);
	return n;
}

/* Copy the records marked @which, in source order, into @dst */
static int make_part(const struct ht_text *src, const uint32_t *ends,
		     uint32_t nrec, const uint8_t *is_val, uint8_t which,
		     struct ht_text *dst)
{
	uint32_t r, start, len = 0, records = 0;

	for (r = 0, start = 0; r < nrec; start = ends[r++])
		if (is_val[r] == which)
			len += ends[r] - start;
	dst->data = malloc(len);
	if (!dst->data)
		return -ENOMEM;
	for (r = 0, start = 0; r < nrec; start = ends[r++]) {
		if (is_val[r] != which)
			continue;
		memcpy(dst->data + dst->len, src->data + start,
		       ends[r] - start);
		dst->len += ends[r] - start;
		records++;
	}
	dst->records = records;
	return 0;
}

static int check_split(const struct ht_text *src, uint32_t nrec,
		       const struct ht_text_split_opts *o, struct ht_text *val,
		       uint32_t n_val, char *err, size_t errlen)
{
	if (!src->len || !src->data) {
		ht_seterr(err, errlen, "text split: no text");
		return -EINVAL;
	}
	if (!(o->val_frac >= 0.0 && o->val_frac < 1.0)) {
		ht_seterr(err, errlen,
			  "text split: validation fraction %g (0 <= f < 1)",
			  o->val_frac);
		return -EINVAL;
	}
	if (o->val_frac > 0.0 && !val) {
		ht_seterr(err, errlen,
			  "text split: a validation fraction without a part");
		return -EINVAL;
	}
	if (o->val_frac > 0.0 && (!n_val || n_val >= nrec)) {
		ht_seterr(
			err, errlen,
			"text split: validation fraction %g of %u records leaves the %s part empty (need more records)",
			o->val_frac, nrec, n_val ? "training" : "validation");
		return -EINVAL;
	}
	return 0;
}

int ht_text_split(const struct ht_text *src,
		  const struct ht_text_split_opts *opts, struct ht_text *train,
		  struct ht_text *val, char *err, size_t errlen)
{
	uint32_t *ends = NULL, *perm = NULL, n_val = 0, nrec = 0, r;
	uint8_t *is_val = NULL;
	struct ht_rng rng;
	int ret;

	memset(train, 0, sizeof(*train));
	if (val)
		memset(val, 0, sizeof(*val));
	if (src->data)
		nrec = ht_text_records(src->data, src->len, NULL);
	if (opts->val_frac > 0.0 && opts->val_frac < 1.0)
		n_val = (uint32_t)llround(nrec * opts->val_frac);
	ret = check_split(src, nrec, opts, val, n_val, err, errlen);
	if (ret)
		return ret;
	ends = malloc((size_t)nrec * sizeof(*ends));
	perm = malloc((size_t)nrec * sizeof(*perm));
	is_val = calloc(nrec, 1);
	ret = -ENOMEM;
	if (!ends || !perm || !is_val)
		goto out;
	ht_text_records(src->data, src->len, ends);
	for (r = 0; r < nrec; r++)
		perm[r] = r;
	ht_rng_seed(&rng, opts->seed, 0);
	ht_rng_shuffle(&rng, perm, nrec);
	for (r = 0; r < n_val; r++)
		is_val[perm[r]] = 1;
	ret = make_part(src, ends, nrec, is_val, 0, train);
	if (!ret && n_val)
		ret = make_part(src, ends, nrec, is_val, 1, val);
	if (ret) {
		ht_text_free(train);
		if (val)
			ht_text_free(val);
	}
out:
	if (ret == -ENOMEM)
		ht_seterr(err, errlen, "text split: out of memory");
	free(is_val);
	free(perm);
	free(ends);
	return ret;
}
