// SPDX-License-Identifier: MIT
/*
 * data_synth.c - seeded synthetic classification data (Gaussian blobs)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_data.h"
#include "ht_error.h"
#include "ht_rng.h"

/* Streams of the synthetic seed: centres, labels, noise */
enum {
	SYNTH_CENTRES = 1,
	SYNTH_LABELS = 2,
	SYNTH_NOISE = 3
};

static int synth_check(const struct ht_synth_opts *o, char *err, size_t errlen)
{
	if (!o->n || o->n > HT_DATA_MAX_SAMPLES) {
		ht_seterr(err, errlen, "synthetic data: %u samples (1..%u)",
			  o->n, HT_DATA_MAX_SAMPLES);
		return -EINVAL;
	}
	if (!o->f || o->f > HT_DATA_MAX_FEATURES ||
	    (uint64_t)o->n * o->f > HT_DATA_MAX_ELEMS) {
		ht_seterr(
			err, errlen,
			"synthetic data: %u features (1..%u, at most %llu values)",
			o->f, HT_DATA_MAX_FEATURES,
			(unsigned long long)HT_DATA_MAX_ELEMS);
		return -EINVAL;
	}
	if (o->classes < 2 || o->classes > HT_DATA_MAX_CLASSES) {
		ht_seterr(err, errlen, "synthetic data: %u classes (2..%u)",
			  o->classes, HT_DATA_MAX_CLASSES);
		return -EINVAL;
	}
	if (!(o->spread >= 0.0f) || o->spread > 1e6f) {
		ht_seterr(err, errlen, "synthetic data: spread %g (>= 0)",
			  (double)o->spread);
		return -EINVAL;
	}
	return 0;
}

int ht_data_synthetic(const struct ht_synth_opts *opts, struct ht_dataset *ds,
		      char *err, size_t errlen)
{
	float spread = opts->spread > 0.0f ? opts->spread : 0.5f;
	struct ht_rng rng;
	float *centres;
	uint64_t k;
	uint32_t i;
	int ret;

	memset(ds, 0, sizeof(*ds));
	ret = synth_check(opts, err, errlen);
	if (ret)
		return ret;
	centres = malloc((size_t)opts->classes * opts->f * sizeof(float));
	if (!centres)
		return -ENOMEM;
	ret = ht_dataset_alloc(ds, opts->n, opts->f, opts->classes);
	if (ret) {
		free(centres);
		return ret;
	}

	ht_rng_seed(&rng, opts->seed, SYNTH_CENTRES);
	for (k = 0; k < (uint64_t)opts->classes * opts->f; k++)
		centres[k] = 2.0f * ht_rng_float(&rng) - 1.0f;

	/* Balanced labels, then a Fisher-Yates shuffle of them */
	ht_rng_seed(&rng, opts->seed, SYNTH_LABELS);
	for (i = 0; i < opts->n; i++)
		ds->y[i] = (int32_t)(i % opts->classes);
	for (i = opts->n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)ht_rng_below(&rng, (uint64_t)i + 1);
		int32_t t = ds->y[i];

		ds->y[i] = ds->y[j];
		ds->y[j] = t;
	}

	ht_rng_seed(&rng, opts->seed, SYNTH_NOISE);
	for (i = 0; i < opts->n; i++) {
		const float *c = centres + (size_t)ds->y[i] * opts->f;
		float *row = ds->x + (size_t)i * opts->f;
		uint32_t j;

		for (j = 0; j < opts->f; j++)
			row[j] = c[j] + spread * ht_rng_normal(&rng);
	}
	free(centres);
	return 0;
}
