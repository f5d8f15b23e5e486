/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_train.h - data sets of the training library's tests
 * (test_train_data.c, test_train_loader.c): one whose samples can be
 * followed, and the digits data set or a printed reason to skip.
 */
#ifndef HPU_TEST_TRAIN_H
#define HPU_TEST_TRAIN_H

#include <stdint.h>

#include "ht_data.h"

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

#endif /* HPU_TEST_TRAIN_H */
