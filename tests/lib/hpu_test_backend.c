// SPDX-License-Identifier: MIT
/*
 * hpu_test_backend.c - backends and seeded values of the training tests
 * (see hpu_test_backend.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hpu_test_backend.h"
#include "ht_backend.h"
#include "ht_rng.h"

struct ht_backend *hpu_test_backend_open(int accel, int mode)
{
	struct ht_backend_opts o = { .accel = accel, .mode = mode };
	struct ht_backend *be = NULL;
	char err[256] = "";

	if (ht_backend_create(&o, &be, err, sizeof(err)))
		fail_msg("backend: %s", err);
	return be;
}

void hpu_test_backend_close(struct ht_backend *be)
{
	if (be && be->in_step)
		ht_step_end(be);
	ht_backend_destroy(be);
}

void hpu_test_frand(float *v, unsigned int n, uint64_t seed, float lo, float hi)
{
	struct ht_rng r;
	unsigned int i;

	ht_rng_seed(&r, seed, 0);
	for (i = 0; i < n; i++)
		v[i] = lo + (hi - lo) * ht_rng_float(&r);
}
