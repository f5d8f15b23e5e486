/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_backend.h - a training-library backend for the tests that
 * compare the hpu backend with the cpu one (test_train_attn.c,
 * test_train_core.c), and the seeded values they feed both.
 */
#ifndef HPU_TEST_BACKEND_H
#define HPU_TEST_BACKEND_H

#include <stdint.h>

struct ht_backend;

/**
 * hpu_test_backend_open() - a backend; its failure fails the test with
 * the library's message
 * @accel: HT_ACCEL_CPU or HT_ACCEL_HPU
 * @mode: its execution mode (HT_MODE_*)
 *
 * Return: the backend (hpu_test_backend_close() it).
 */
struct ht_backend *hpu_test_backend_open(int accel, int mode);

/**
 * hpu_test_backend_close() - end the step a failed test left open, then
 * destroy @be (NULL is fine)
 * @be: the backend
 */
void hpu_test_backend_close(struct ht_backend *be);

/**
 * hpu_test_frand() - @n floats uniform in [@lo, @hi) from ht_rng @seed
 * (stream 0), the same on every machine
 * @v: receives them
 * @n: how many
 * @seed: the seed
 * @lo: lower bound
 * @hi: upper bound
 */
void hpu_test_frand(float *v, unsigned int n, uint64_t seed, float lo,
		    float hi);

#endif /* HPU_TEST_BACKEND_H */
