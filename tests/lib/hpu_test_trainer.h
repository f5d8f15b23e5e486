/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_trainer.h - the end of a fit in the tests that run
 * ht_trainer in (forked) ranks and compare the runs (test_train_ddp.c,
 * test_train_prefetch.c, test_train_gpt.c): keep its losses and
 * parameters, say why it failed, a rank's exit code.
 */
#ifndef HPU_TEST_TRAINER_H
#define HPU_TEST_TRAINER_H

#include <stddef.h>
#include <stdint.h>

struct ht_trainer;
struct ht_trainer_result;

/**
 * struct hpu_test_kept - where hpu_test_trainer_keep() puts a fit's results
 * @losses: room for @max_losses per-step losses
 * @max_losses: its size
 * @nlosses: receives how many were kept
 * @w: room for @max_w parameters
 * @max_w: its size
 * @nw: receives how many were kept
 */
struct hpu_test_kept {
	float *losses;
	uint64_t max_losses;
	uint64_t *nlosses;
	float *w;
	uint64_t max_w;
	uint64_t *nw;
};

/**
 * hpu_test_trainer_keep() - copy a successful fit's losses and @t's
 * parameters
 * @t: the trainer
 * @res: its ht_trainer_fit() result
 * @k: where they go
 *
 * Return: 0; -E2BIG when they do not fit (nothing kept);
 * ht_trainer_read_params()'s failure.
 */
int hpu_test_trainer_keep(struct ht_trainer *t,
			  const struct ht_trainer_result *res,
			  const struct hpu_test_kept *k);

/**
 * hpu_test_trainer_end() - the end of a run: destroy @t; when @ret is a
 * failure and @err says nothing yet, @t's message goes there
 * @t: the trainer
 * @ret: the run's result
 * @err: the run's message buffer
 * @len: its size
 *
 * Return: @ret.
 */
int hpu_test_trainer_end(struct ht_trainer *t, int ret, char *err, size_t len);

/**
 * hpu_test_rank_exit() - a forked rank's exit code: 0 when @ret is 0, else
 * 1 with "rank N: @err" on stderr
 * @rank: the rank
 * @ret: its run's result
 * @err: its run's message
 */
int hpu_test_rank_exit(int rank, int ret, const char *err);

#endif /* HPU_TEST_TRAINER_H */
