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
#include <string.h>

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

/* One step of every rank: the global count of the step */
static uint32_t
sharding_step(struct ht_loader **l, uint32_t world, uint32_t n, uint32_t bs,
	      bool drop_last, uint64_t epoch, uint64_t step, uint8_t *seen,
	      void (*content)(const void *arg, const struct ht_batch *b),
	      const void *arg)
{
	uint32_t r, i, sum = 0, global = 0;

	for (r = 0; r < world; r++) {
		struct ht_batch *b;

		assert_int_equal(ht_loader_next(l[r], &b), 0);
		assert_int_equal(b->epoch, epoch);
		assert_int_equal(b->step, step);
		assert_true(b->n <= bs);
		if (drop_last)
			assert_int_equal(b->n, bs);
		if (r)
			assert_int_equal(b->global_n, global);
		global = b->global_n;
		sum += b->n;
		for (i = 0; i < b->n; i++) {
			assert_true(b->idx[i] < n);
			assert_int_equal(seen[b->idx[i]], 0);
			seen[b->idx[i]] = 1;
		}
		content(arg, b);
		ht_loader_release(l[r], b);
	}
	assert_int_equal(sum, global);
	return global;
}

void hpu_test_check_sharding(struct ht_loader **l, uint32_t world, uint32_t n,
			     uint32_t bs, bool drop_last,
			     void (*content)(const void *arg,
					     const struct ht_batch *b),
			     const void *arg)
{
	uint64_t g = (uint64_t)world * bs, steps, epoch, step, total;
	uint8_t *seen = malloc(n);
	uint32_t r, i;

	assert_non_null(seen);
	assert_true(world >= 1 && world <= 8);
	steps = drop_last ? n / g : (n + g - 1) / g;
	for (r = 0; r < world; r++)
		assert_int_equal(ht_loader_steps_per_epoch(l[r]), steps);
	for (epoch = 0; epoch < 2; epoch++) {
		memset(seen, 0, n);
		total = 0;
		for (step = 0; step < steps; step++) {
			uint32_t global = sharding_step(l, world, n, bs,
							drop_last, epoch, step,
							seen, content, arg);

			assert_true(global <= g);
			total += global;
		}
		for (r = 0; r < world; r++) {
			struct ht_batch *b;

			assert_int_equal(ht_loader_next(l[r], &b), -ENODATA);
			assert_null(b);
		}
		assert_int_equal(total, drop_last ? steps * g : n);
		if (!drop_last)
			for (i = 0; i < n; i++)
				assert_int_equal(seen[i], 1);
	}
	free(seen);
}
