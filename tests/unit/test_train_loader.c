// SPDX-License-Identifier: MIT
/*
 * test_train_loader.c - the training library's DataLoader: sharding over
 * ranks, partial last batches, shuffling, prefetch, resume, shutdown,
 * its allocator hooks and creation errors, and the digits data set through
 * a split and a 4-rank loader (the data sets themselves: test_train_data.c).
 *
 * The digits test looks for trainer/data/digits.csv.gz the way hpu-train
 * does (ht_data_find()); it skips with the reason when it is missing.
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
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ht_data.h"
#include "ht_loader.h"

#include "../lib/hpu_test_train.h"

#define ERRLEN 512

/* ---------------------------------------------------------------- loader */

static struct ht_loader *make_loader(const struct ht_dataset *ds,
				     uint32_t world, uint32_t rank, uint32_t bs,
				     uint32_t prefetch, bool shuffle,
				     bool drop_last)
{
	struct ht_loader_opts o = {
		.batch_size = bs,
		.world_size = world,
		.rank = rank,
		.seed = 1234,
		.shuffle = shuffle,
		.drop_last = drop_last,
		.prefetch = prefetch,
	};
	struct ht_loader *l;
	char err[ERRLEN];

	assert_int_equal(ht_loader_create(ds, &o, &l, err, sizeof(err)), 0);
	return l;
}

/* Check a batch's rows and labels against the data set */
static void check_batch_content(const struct ht_dataset *ds,
				const struct ht_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		assert_true(b->idx[i] < ds->n);
		assert_memory_equal(b->x + (size_t)i * ds->f,
				    ds->x + (size_t)b->idx[i] * ds->f,
				    ds->f * sizeof(float));
		assert_int_equal(b->y[i], ds->y[b->idx[i]]);
	}
}

static void batch_content(const void *ds, const struct ht_batch *b)
{
	check_batch_content(ds, b);
}

/* All ranks of one world over two epochs (hpu_test_check_sharding()) */
static void check_sharding(const struct ht_dataset *ds, uint32_t world,
			   uint32_t bs, bool drop_last)
{
	struct ht_loader *l[8];
	uint32_t r;

	assert_true(world <= 8);
	for (r = 0; r < world; r++)
		l[r] = make_loader(ds, world, r, bs, r % 2, true, drop_last);
	hpu_test_check_sharding(l, world, ds->n, bs, drop_last, batch_content,
				ds);
	for (r = 0; r < world; r++)
		ht_loader_destroy(l[r]);
}

static void test_loader_sharding(void **state)
{
	static const uint32_t worlds[] = { 1, 2, 3, 4, 8 };
	static const uint32_t batches[] = { 1, 5, 7, 16, 50 };
	struct ht_dataset ds;
	size_t w, b;

	hpu_test_make_indexed(&ds, 103, 3, 4);
	for (w = 0; w < 5; w++)
		for (b = 0; b < 5; b++) {
			check_sharding(&ds, worlds[w], batches[b], false);
			if ((uint64_t)worlds[w] * batches[b] <= ds.n)
				check_sharding(&ds, worlds[w], batches[b],
					       true);
		}
	ht_dataset_free(&ds);
}

/* The last global batch is partial: some ranks get fewer or no samples */
static void test_loader_partial_last(void **state)
{
	struct ht_loader *l[4];
	struct ht_dataset ds;
	struct ht_batch *b;
	uint32_t want[4] = { 4, 1, 0, 0 }, r, s;

	hpu_test_make_indexed(&ds, 21, 2,
			      3); /* g = 16: steps of 16 and 5 samples */
	for (r = 0; r < 4; r++) {
		l[r] = make_loader(&ds, 4, r, 4, 0, false, false);
		assert_int_equal(ht_loader_steps_per_epoch(l[r]), 2);
	}
	for (r = 0; r < 4; r++) {
		assert_int_equal(ht_loader_next(l[r], &b), 0);
		assert_int_equal(b->n, 4);
		assert_int_equal(b->global_n, 16);
		/* No shuffle: rank r's first batch is samples 4r..4r+3 */
		for (s = 0; s < 4; s++)
			assert_int_equal(b->idx[s], 4 * r + s);
		ht_loader_release(l[r], b);
		assert_int_equal(ht_loader_next(l[r], &b), 0);
		assert_int_equal(b->n, want[r]);
		assert_int_equal(b->global_n, 5);
		ht_loader_release(l[r], b);
		assert_int_equal(ht_loader_next(l[r], &b), -ENODATA);
		ht_loader_destroy(l[r]);
	}
	ht_dataset_free(&ds);
}

/* Record every index a loader returns over @epochs epochs */
static uint32_t record(struct ht_loader *l, uint32_t epochs, uint32_t *out,
		       uint32_t max)
{
	uint32_t n = 0, e;
	struct ht_batch *b;

	for (e = 0; e < epochs; e++) {
		int ret;

		while ((ret = ht_loader_next(l, &b)) == 0) {
			assert_true(n + b->n <= max);
			memcpy(out + n, b->idx, b->n * sizeof(uint32_t));
			n += b->n;
			ht_loader_release(l, b);
		}
		assert_int_equal(ret, -ENODATA);
	}
	return n;
}

static void test_loader_shuffle(void **state)
{
	uint32_t a[3 * 100], b[3 * 100], i, n;
	struct ht_loader *l;
	struct ht_dataset ds;

	hpu_test_make_indexed(&ds, 100, 2, 3);
	l = make_loader(&ds, 1, 0, 8, 0, true, false);
	assert_int_equal(record(l, 3, a, 300), 300);
	ht_loader_destroy(l);
	l = make_loader(&ds, 1, 0, 8, 0, true, false);
	assert_int_equal(record(l, 3, b, 300), 300);
	ht_loader_destroy(l);
	/* Reproducible, and a different order every epoch */
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, a + 100, 100 * sizeof(uint32_t));
	assert_memory_not_equal(a + 100, a + 200, 100 * sizeof(uint32_t));

	/* No shuffle: data set order every epoch */
	l = make_loader(&ds, 1, 0, 8, 0, false, false);
	n = record(l, 2, a, 300);
	assert_int_equal(n, 200);
	for (i = 0; i < n; i++)
		assert_int_equal(a[i], i % 100);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

/* N ranks x b sees, step by step, the same sample sets as 1 device x N*b */
static void test_loader_equivalence(void **state)
{
	struct ht_loader *one, *r4[4];
	struct ht_dataset ds;
	struct ht_batch *b;
	uint32_t r, step;

	hpu_test_make_indexed(&ds, 150, 2, 3);
	one = make_loader(&ds, 1, 0, 32, 1, true, false);
	for (r = 0; r < 4; r++)
		r4[r] = make_loader(&ds, 4, r, 8, 0, true, false);
	for (step = 0; step < ht_loader_steps_per_epoch(one); step++) {
		uint32_t whole[32], n;

		assert_int_equal(ht_loader_next(one, &b), 0);
		n = b->n;
		memcpy(whole, b->idx, n * sizeof(uint32_t));
		ht_loader_release(one, b);
		for (r = 0; r < 4; r++) {
			assert_int_equal(ht_loader_next(r4[r], &b), 0);
			assert_int_equal(b->global_n, n);
			assert_true(!b->n || r * 8 + b->n <= n);
			assert_memory_equal(b->idx, whole + r * 8,
					    b->n * sizeof(uint32_t));
			ht_loader_release(r4[r], b);
		}
	}
	ht_loader_destroy(one);
	for (r = 0; r < 4; r++)
		ht_loader_destroy(r4[r]);
	ht_dataset_free(&ds);
}

/* Everything a loader returns, x included, as one checksum per batch */
static void trace(struct ht_loader *l, uint32_t epochs, uint64_t *sums,
		  uint32_t max, uint32_t *count)
{
	struct ht_batch *b;
	uint32_t e;

	*count = 0;
	for (e = 0; e < epochs; e++) {
		while (ht_loader_next(l, &b) == 0) {
			assert_true(*count < max);
			sums[(*count)++] =
				crc32(crc32(b->epoch * 1000 + b->step,
					    (const void *)b->x,
					    b->n * 3 * sizeof(float)),
				      (const void *)b->idx,
				      b->n * sizeof(uint32_t)) +
				((uint64_t)b->global_n << 32);
			ht_loader_release(l, b);
		}
	}
}

static void test_loader_prefetch_identical(void **state)
{
	uint64_t ref[64], got[64];
	uint32_t nref, ngot, p, r;
	struct ht_dataset ds;
	struct ht_loader *l;

	hpu_test_make_indexed(&ds, 97, 3, 5);
	for (r = 0; r < 3; r++) {
		l = make_loader(&ds, 3, r, 6, 0, true, false);
		trace(l, 3, ref, 64, &nref);
		ht_loader_destroy(l);
		assert_int_equal(nref, 3 * 6);
		for (p = 1; p <= 8; p *= 2) {
			l = make_loader(&ds, 3, r, 6, p, true, false);
			trace(l, 3, got, 64, &ngot);
			ht_loader_destroy(l);
			assert_int_equal(ngot, nref);
			assert_memory_equal(got, ref, nref * sizeof(uint64_t));
		}
	}
	ht_dataset_free(&ds);
}

static void test_loader_resume(void **state)
{
	struct ht_loader_state st;
	uint64_t ref[64], got[64];
	uint32_t nref, ngot, i;
	struct ht_dataset ds;
	struct ht_loader *l;
	struct ht_batch *b;
	char err[ERRLEN];

	hpu_test_make_indexed(&ds, 90, 3, 4);
	/* Reference: 3 uninterrupted epochs of 2 ranks x 7 -> 7 steps */
	l = make_loader(&ds, 2, 1, 7, 2, true, false);
	trace(l, 3, ref, 64, &nref);
	ht_loader_destroy(l);
	assert_int_equal(nref, 21);

	/* Interrupted after epoch 0 and 3 steps (prefetch ran ahead) */
	l = make_loader(&ds, 2, 1, 7, 4, true, false);
	trace(l, 1, got, 64, &ngot);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ht_loader_next(l, &b), 0);
		ht_loader_release(l, b);
	}
	usleep(2000); /* let the prefetch thread fill its queue */
	ht_loader_get_state(l, &st);
	ht_loader_destroy(l);
	assert_int_equal(st.epoch, 1);
	assert_int_equal(st.step, 3);

	/* Resumed, synchronous this time: the same batches follow */
	l = make_loader(&ds, 2, 1, 7, 0, true, false);
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)), 0);
	trace(l, 2, got, 64, &ngot);
	assert_int_equal(ngot, 21 - 10);
	assert_memory_equal(got, ref + 10, ngot * sizeof(uint64_t));

	/* Seek back and forth on a prefetching loader */
	ht_loader_destroy(l);
	l = make_loader(&ds, 2, 1, 7, 3, true, false);
	assert_int_equal(ht_loader_seek(l, 2, 5), 0);
	trace(l, 1, got, 64, &ngot);
	assert_int_equal(ngot, 2);
	assert_memory_equal(got, ref + 19, 2 * sizeof(uint64_t));
	assert_int_equal(ht_loader_seek(l, 0, 0), 0);
	trace(l, 1, got, 64, &ngot);
	assert_memory_equal(got, ref, 7 * sizeof(uint64_t));
	assert_int_equal(ht_loader_seek(l, 0, 8), -EINVAL);

	/* A state of another configuration is refused */
	st.batch_size = 8;
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(
		err,
		"loader state mismatch: saved seed 1234, 90 samples, world 2, batch 8"));
	st.batch_size = 7;
	st.step = 9;
	assert_int_equal(ht_loader_set_state(l, &st, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader state: step 9 beyond the 7 steps of an epoch");
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

/* Destroy with the prefetch thread busy and a batch still held */
static void test_loader_shutdown(void **state)
{
	struct ht_dataset ds;
	struct ht_loader *l;
	struct ht_batch *b;
	int i;

	hpu_test_make_indexed(&ds, 5000, 16, 3);
	for (i = 0; i < 20; i++) {
		l = make_loader(&ds, 2, 0, 64, 1 + i % 4, true, false);
		assert_int_equal(ht_loader_next(l, &b), 0);
		if (i % 2)
			ht_loader_release(l, b);
		ht_loader_destroy(l);
	}
	/* Destroyed before any batch was asked for */
	l = make_loader(&ds, 1, 0, 64, 4, true, false);
	ht_loader_destroy(l);
	ht_loader_destroy(NULL);
	ht_dataset_free(&ds);
}

static void test_loader_busy(void **state)
{
	struct ht_batch *b[3], *c;
	struct ht_dataset ds;
	struct ht_loader *l;

	hpu_test_make_indexed(&ds, 50, 2, 3);
	l = make_loader(&ds, 1, 0, 4, 0, true, false);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(ht_loader_next(l, &c), -EBUSY);
	ht_loader_release(l, b[0]);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(b[0]->step, 1);
	ht_loader_release(l, b[0]);
	ht_loader_destroy(l);

	/* prefetch 2: three batches may be held at once, not four */
	l = make_loader(&ds, 1, 0, 4, 2, true, false);
	assert_int_equal(ht_loader_next(l, &b[0]), 0);
	assert_int_equal(ht_loader_next(l, &b[1]), 0);
	assert_int_equal(ht_loader_next(l, &b[2]), 0);
	assert_int_equal(ht_loader_next(l, &c), -EBUSY);
	assert_int_equal(b[2]->step, 2);
	ht_loader_release(l, b[1]);
	assert_int_equal(ht_loader_next(l, &c), 0);
	assert_int_equal(c->step, 3);
	ht_loader_destroy(l);
	ht_dataset_free(&ds);
}

struct counting_alloc {
	int allocs;
	int frees;
	size_t bytes;
};

static void *count_alloc(size_t size, void *arg)
{
	struct counting_alloc *c = arg;

	c->allocs++;
	c->bytes += size;
	return malloc(size);
}

static void count_free(void *ptr, size_t size, void *arg)
{
	struct counting_alloc *c = arg;

	c->frees++;
	c->bytes -= size;
	free(ptr);
}

static void test_loader_alloc_and_copy(void **state)
{
	struct counting_alloc ca = { 0 };
	struct ht_loader_opts o = { .batch_size = 10,
				    .world_size = 1,
				    .seed = 5,
				    .shuffle = true,
				    .prefetch = 2,
				    .alloc = count_alloc,
				    .free = count_free,
				    .alloc_arg = &ca };
	struct ht_batch info;
	struct ht_dataset ds;
	struct ht_loader *l;
	char err[ERRLEN];
	float x[10 * 3];
	int32_t y[10];
	uint32_t i;

	hpu_test_make_indexed(&ds, 25, 3, 4);
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)), 0);
	assert_int_equal(ca.allocs, 3 * 2); /* x and y of 3 slots */
	assert_int_equal(ca.bytes, 3 * (10 * 3 * 4 + 10 * 4));
	assert_int_equal(ht_loader_next_copy(l, x, y, &info), 0);
	assert_int_equal(info.n, 10);
	assert_null(info.x);
	for (i = 0; i < info.n; i++) {
		uint32_t id = (uint32_t)x[i * 3] / 10;

		assert_int_equal(y[i], ds.y[id]);
		assert_true(x[i * 3 + 2] == ds.x[id * 3 + 2]);
	}
	ht_loader_destroy(l);
	assert_int_equal(ca.frees, ca.allocs);
	assert_int_equal(ca.bytes, 0);
	ht_dataset_free(&ds);
}

static void test_loader_create_errors(void **state)
{
	struct ht_loader_opts o = { .batch_size = 8,
				    .world_size = 4,
				    .rank = 4 };
	struct ht_dataset ds, empty = { 0 };
	struct ht_loader *l;
	char err[ERRLEN];

	hpu_test_make_indexed(&ds, 20, 2, 3);
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_null(l);
	assert_string_equal(
		err,
		"loader: rank 4 of world size 4 (rank < world size, world size >= 1)");
	o.rank = 0;
	o.drop_last = true;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"loader: drop_last with 20 samples and a global batch of 32 (4 ranks x 8) leaves no batch");
	o.drop_last = false;
	o.batch_size = 0;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: batch size 0 (1..67108864)");
	o.batch_size = 8;
	o.prefetch = 65;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: prefetch 65 (at most 64)");
	o.prefetch = 0;
	o.alloc = count_alloc;
	assert_int_equal(ht_loader_create(&ds, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "loader: a buffer allocator needs its free function");
	o.alloc = NULL;
	assert_int_equal(ht_loader_create(&empty, &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "loader: empty data set");
	ht_dataset_free(&ds);
}

/* The digits data set through a split and a 4-rank loader */
static void test_digits_pipeline(void **state)
{
	struct ht_split_opts so = { .test_frac = 0.2,
				    .seed = 0,
				    .stratify = true };
	struct ht_dataset ds, train, test;
	char err[ERRLEN];

	if (hpu_test_load_digits(&ds)) {
		skip();
		return;
	}
	assert_int_equal(ht_data_split(&ds, &so, &train, NULL, &test, err,
				       sizeof(err)),
			 0);
	assert_int_equal(train.n + test.n, HT_DIGITS_SAMPLES);
	assert_in_range(test.n, 355, 365);
	check_sharding(&train, 4, 32, false);
	ht_dataset_free(&train);
	ht_dataset_free(&test);
	ht_dataset_free(&ds);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loader_sharding),
		cmocka_unit_test(test_loader_partial_last),
		cmocka_unit_test(test_loader_shuffle),
		cmocka_unit_test(test_loader_equivalence),
		cmocka_unit_test(test_loader_prefetch_identical),
		cmocka_unit_test(test_loader_resume),
		cmocka_unit_test(test_loader_shutdown),
		cmocka_unit_test(test_loader_busy),
		cmocka_unit_test(test_loader_alloc_and_copy),
		cmocka_unit_test(test_loader_create_errors),
		cmocka_unit_test(test_digits_pipeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
