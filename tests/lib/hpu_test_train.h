/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_train.h - data sets of the training library's tests
 * (test_train_data.c, test_train_loader.c, test_train_text*.c): one
 * whose samples can be followed, the digits data set or a printed reason
 * to skip, a seeded text and the English corpus; the check of a world's
 * loaders over two epochs.
 */
#ifndef HPU_TEST_TRAIN_H
#define HPU_TEST_TRAIN_H

#include <stdint.h>

#include "ht_data.h"
#include "ht_loader.h"
#include "ht_text.h"

/**
 * hpu_test_make_indexed() - a data set whose feature 0 is the sample's
 * index (to follow samples); asserts the allocation
 * @ds: receives the data set (ht_dataset_free() it)
 * @n: samples
 * @f: features
 * @classes: labels are (i * 7) % @classes
 */
void hpu_test_make_indexed(struct ht_dataset *ds, uint32_t n, uint32_t f,
			   uint32_t classes);

/**
 * hpu_test_load_digits() - the digits data set, found as hpu-train finds it
 * @ds: receives it
 *
 * Return: 0; -ENOENT when it is missing (the reason printed: skip the
 * test); another failure fails the test.
 */
int hpu_test_load_digits(struct ht_dataset *ds);

/**
 * hpu_test_make_text() - a text of seeded random printable bytes and
 * newlines (one in 96); asserts the allocation
 * @t: receives the text (ht_text_free() it)
 * @len: bytes
 * @seed: the seed
 */
void hpu_test_make_text(struct ht_text *t, uint32_t len, uint64_t seed);

/**
 * hpu_test_load_corpus() - the English corpus, found as hpu-train finds
 * it; it is part of the source tree, so any failure fails the test
 * @t: receives it
 */
void hpu_test_load_corpus(struct ht_text *t);

/**
 * hpu_test_check_sharding() - all ranks of one world, step by step over
 * two epochs: each epoch has the same step count on every rank, the
 * batches carry their epoch and step, at most @bs samples (exactly @bs
 * with @drop_last) and the same global count on every rank, the sum of
 * the ranks' counts; no sample twice in an epoch and, without
 * @drop_last, every sample once; after the last step -ENODATA
 * @l: the world's loaders, in rank order (not destroyed)
 * @world: ranks, at most 8
 * @n: samples of the data set
 * @bs: the batch size
 * @drop_last: the loaders' drop_last
 * @content: fails the test unless a batch holds the data set's samples at
 *	its indices; called for every batch
 * @arg: @content's first argument
 */
void hpu_test_check_sharding(struct ht_loader **l, uint32_t world, uint32_t n,
			     uint32_t bs, bool drop_last,
			     void (*content)(const void *arg,
					     const struct ht_batch *b),
			     const void *arg);

#endif /* HPU_TEST_TRAIN_H */
