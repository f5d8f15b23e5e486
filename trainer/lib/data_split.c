// SPDX-License-Identifier: MIT
/*
 * data_split.c - deterministic train/validation/test splits
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ht_data.h"
#include "ht_error.h"
#include "ht_rng.h"

/* Which part each sample goes to */
enum {
	PART_TRAIN = 0,
	PART_VAL = 1,
	PART_TEST = 2
};

/* Mark the first round(n*test) of @idx test, the next round(n*val) val */
static void assign(const uint32_t *idx, uint32_t n,
		   const struct ht_split_opts *o, uint8_t *part)
{
	uint32_t n_test = (uint32_t)llround(n * o->test_frac);
	uint32_t n_val = (uint32_t)llround(n * o->val_frac);
	uint32_t i;

	if (n_test > n)
		n_test = n;
	if (n_val > n - n_test)
		n_val = n - n_test;
	for (i = 0; i < n; i++)
		part[idx[i]] = i < n_test	  ? PART_TEST :
			       i < n_test + n_val ? PART_VAL :
						    PART_TRAIN;
}

static void assign_stratified(const struct ht_dataset *src,
			      const struct ht_split_opts *o, uint32_t *idx,
			      uint8_t *part)
{
	struct ht_rng rng;
	uint32_t c, i;

	for (c = 0; c < src->classes; c++) {
		uint32_t n = 0;

		for (i = 0; i < src->n; i++)
			if (src->y[i] == (int32_t)c)
				idx[n++] = i;
		ht_rng_seed(&rng, o->seed, (uint64_t)c + 1);
		ht_rng_shuffle(&rng, idx, n);
		assign(idx, n, o, part);
	}
}

static int make_part(const struct ht_dataset *src, const uint8_t *part,
		     uint8_t which, uint32_t *idx, struct ht_dataset *dst,
		     const char *name, char *err, size_t errlen)
{
	uint32_t i, n = 0;
	int ret;

	for (i = 0; i < src->n; i++)
		if (part[i] == which)
			idx[n++] = i;
	if (!n) {
		ht_seterr(err, errlen,
			  "split: the %s part of %u samples would be empty",
			  name, src->n);
		return -EINVAL;
	}
	ret = ht_dataset_subset(src, idx, n, dst);
	if (ret == -ENOMEM)
		ht_seterr(err, errlen, "split: out of memory");
	return ret;
}

static int split_check(const struct ht_dataset *src,
		       const struct ht_split_opts *o, struct ht_dataset *val,
		       struct ht_dataset *test, char *err, size_t errlen)
{
	if (!src->n) {
		ht_seterr(err, errlen, "split: empty data set");
		return -EINVAL;
	}
	if (!(o->val_frac >= 0.0 && o->val_frac < 1.0) ||
	    !(o->test_frac >= 0.0 && o->test_frac < 1.0) ||
	    !(o->val_frac + o->test_frac < 1.0)) {
		ht_seterr(
			err, errlen,
			"split: validation fraction %g and test fraction %g must each be in [0, 1) and sum to less than 1",
			o->val_frac, o->test_frac);
		return -EINVAL;
	}
	if ((o->val_frac > 0.0 && !val) || (o->test_frac > 0.0 && !test)) {
		ht_seterr(err, errlen, "split: no place for a part asked for");
		return -EINVAL;
	}
	return 0;
}

int ht_data_split(const struct ht_dataset *src,
		  const struct ht_split_opts *opts, struct ht_dataset *train,
		  struct ht_dataset *val, struct ht_dataset *test, char *err,
		  size_t errlen)
{
	struct ht_rng rng;
	uint32_t *idx;
	uint8_t *part;
	uint32_t i;
	int ret;

	memset(train, 0, sizeof(*train));
	if (val)
		memset(val, 0, sizeof(*val));
	if (test)
		memset(test, 0, sizeof(*test));
	ret = split_check(src, opts, val, test, err, errlen);
	if (ret)
		return ret;
	idx = malloc((size_t)src->n * sizeof(*idx));
	part = malloc(src->n);
	if (!idx || !part) {
		ret = -ENOMEM;
		goto out_free;
	}

	if (opts->stratify) {
		assign_stratified(src, opts, idx, part);
	} else {
		for (i = 0; i < src->n; i++)
			idx[i] = i;
		ht_rng_seed(&rng, opts->seed, 0);
		ht_rng_shuffle(&rng, idx, src->n);
		assign(idx, src->n, opts, part);
	}

	ret = make_part(src, part, PART_TRAIN, idx, train, "training", err,
			errlen);
	if (ret)
		goto out_free;
	if (opts->val_frac > 0.0) {
		ret = make_part(src, part, PART_VAL, idx, val, "validation",
				err, errlen);
		if (ret)
			goto err_free_train;
	}
	if (opts->test_frac > 0.0) {
		ret = make_part(src, part, PART_TEST, idx, test, "test", err,
				errlen);
		if (ret)
			goto err_free_val;
	}
	goto out_free;

err_free_val:
	if (val)
		ht_dataset_free(val);
err_free_train:
	ht_dataset_free(train);
out_free:
	free(part);
	free(idx);
	return ret;
}
