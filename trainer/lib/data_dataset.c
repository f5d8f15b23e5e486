// SPDX-License-Identifier: MIT
/*
 * data_dataset.c - data set allocation, subsets and standardisation
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ht_data.h"

int ht_dataset_alloc(struct ht_dataset *ds, uint32_t n, uint32_t f,
		     uint32_t classes)
{
	memset(ds, 0, sizeof(*ds));
	if (!n || !f || !classes || n > HT_DATA_MAX_SAMPLES ||
	    f > HT_DATA_MAX_FEATURES || classes > HT_DATA_MAX_CLASSES ||
	    (uint64_t)n * f > HT_DATA_MAX_ELEMS)
		return -EINVAL;
	ds->x = malloc((size_t)n * f * sizeof(float));
	if (!ds->x)
		return -ENOMEM;
	ds->y = malloc((size_t)n * sizeof(int32_t));
	if (!ds->y) {
		free(ds->x);
		ds->x = NULL;
		return -ENOMEM;
	}
	ds->n = n;
	ds->f = f;
	ds->classes = classes;
	return 0;
}

void ht_dataset_free(struct ht_dataset *ds)
{
	if (!ds)
		return;
	free(ds->x);
	free(ds->y);
	memset(ds, 0, sizeof(*ds));
}

int ht_dataset_subset(const struct ht_dataset *src, const uint32_t *idx,
		      uint32_t count, struct ht_dataset *dst)
{
	uint32_t i;
	int ret;

	for (i = 0; i < count; i++)
		if (idx[i] >= src->n)
			return -EINVAL;
	ret = ht_dataset_alloc(dst, count, src->f, src->classes);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		memcpy(dst->x + (size_t)i * src->f,
		       src->x + (size_t)idx[i] * src->f,
		       src->f * sizeof(float));
		dst->y[i] = src->y[idx[i]];
	}
	return 0;
}

int ht_data_standardize_fit(const struct ht_dataset *ds, float *mean,
			    float *std)
{
	uint32_t i, j;

	if (!ds->n || !ds->f)
		return -EINVAL;
	for (j = 0; j < ds->f; j++) {
		double sum = 0.0, sq = 0.0, m, var;

		for (i = 0; i < ds->n; i++)
			sum += ds->x[(size_t)i * ds->f + j];
		m = sum / ds->n;
		for (i = 0; i < ds->n; i++) {
			double d = ds->x[(size_t)i * ds->f + j] - m;

			sq += d * d;
		}
		var = sq / ds->n;
		mean[j] = (float)m;
		std[j] = var > 1e-12 ? (float)sqrt(var) : 1.0f;
	}
	return 0;
}

void ht_data_standardize_apply(struct ht_dataset *ds, const float *mean,
			       const float *std)
{
	uint32_t i, j;

	for (i = 0; i < ds->n; i++) {
		float *row = ds->x + (size_t)i * ds->f;

		for (j = 0; j < ds->f; j++)
			row[j] = (row[j] - mean[j]) / std[j];
	}
}
