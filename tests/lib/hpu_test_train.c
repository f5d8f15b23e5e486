// SPDX-License-Identifier: MIT
/*
 * hpu_test_train.c - data sets of the training library's tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "ht_rng.h"

#include "hpu_test_train.h"

void hpu_test_make_indexed(struct ht_dataset *ds, uint32_t n, uint32_t f,
			   uint32_t classes)
{
	uint32_t i, j;

	assert_int_equal(ht_dataset_alloc(ds, n, f, classes), 0);
	for (i = 0; i < n; i++) {
		for (j = 0; j < f; j++)
			ds->x[(size_t)i * f + j] = (float)(i * 10 + j);
		ds->y[i] = (int32_t)((i * 7) % classes);
	}
}

int hpu_test_load_digits(struct ht_dataset *ds)
{
	char err[512];
	int ret = ht_data_load_digits(NULL, ds, err, sizeof(err));

	if (ret == -ENOENT)
		print_message("digits data set missing: %s\n", err);
	else if (ret)
		fail_msg("loading digits: %s", err);
	return ret;
}

void hpu_test_make_text(struct ht_text *t, uint32_t len, uint64_t seed)
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

void hpu_test_load_corpus(struct ht_text *t)
{
	char err[1024];
	int ret = ht_text_load_corpus(NULL, t, err, sizeof(err));

	if (ret)
		fail_msg("loading the text corpus: %d: %s", ret, err);
}
