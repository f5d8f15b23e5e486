// SPDX-License-Identifier: MIT
/*
 * hpu_test_trainer.c - the end of a fit in the trainer tests (see
 * hpu_test_trainer.h)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hpu_test_trainer.h"
#include "ht_trainer.h"

int hpu_test_trainer_keep(struct ht_trainer *t,
			  const struct ht_trainer_result *res,
			  const struct hpu_test_kept *k)
{
	uint64_t nw = ht_trainer_numel(t);

	if (res->nlosses > k->max_losses || nw > k->max_w)
		return -E2BIG;
	*k->nlosses = res->nlosses;
	memcpy(k->losses, res->losses, res->nlosses * sizeof(float));
	*k->nw = nw;
	return ht_trainer_read_params(t, k->w);
}

int hpu_test_trainer_end(struct ht_trainer *t, int ret, char *err, size_t len)
{
	if (ret && !err[0])
		snprintf(err, len, "%s", ht_trainer_error(t));
	ht_trainer_destroy(t);
	return ret;
}

int hpu_test_rank_exit(int rank, int ret, const char *err)
{
	if (ret)
		fprintf(stderr, "rank %d: %s\n", rank, err);
	return ret ? 1 : 0;
}
