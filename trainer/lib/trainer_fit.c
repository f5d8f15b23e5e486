// SPDX-License-Identifier: MIT
/*
 * trainer_fit.c - the fit loop: epochs over the training loader in
 * optimizer steps of accumulate_grad_batches micro-batches, validation
 * every check_val_every_n_epoch epochs, checkpoints, callbacks; and the
 * benchmark (ht_trainer.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpudrv.h"
#include "ht_error.h"
#include "trainer_internal.h"

static int push_loss(struct ht_trainer *t, float loss)
{
	if (t->nlosses == t->losses_cap) {
		uint64_t cap = t->losses_cap ? 2 * t->losses_cap : 256;
		float *p = realloc(t->losses, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->losses = p;
		t->losses_cap = cap;
	}
	t->losses[t->nlosses++] = loss;
	return 0;
}

/* Loader steps of an epoch (limit_train_batches applied) */
uint64_t ht_trainer_epoch_steps(const struct ht_trainer *t)
{
	uint64_t s = ht_loader_steps_per_epoch(t->loader);

	if (t->o.limit_train_batches && t->o.limit_train_batches < s)
		s = t->o.limit_train_batches;
	return s;
}

/*
 * Take the next @k batches of the epoch (the first may have been taken
 * ahead), and with @more the first of the step after them into t->ahead
 */
static int take(struct ht_trainer *t, struct ht_batch **b, unsigned int k,
		bool more)
{
	unsigned int j = 0;
	int ret = 0;

	if (t->ahead) {
		if (t->ahead->epoch == t->epoch && t->ahead->step == t->batch)
			b[j++] = t->ahead;
		else
			ht_loader_release(t->loader, t->ahead);
		t->ahead = NULL;
	}
	while (j < k) {
		ret = ht_loader_next(t->loader, &b[j]);
		if (ret)
			break;
		j++;
	}
	if (!ret && more)
		ret = ht_loader_next(t->loader, &t->ahead);
	if (!ret)
		return 0;
	t->ahead = NULL;
	while (j--)
		ht_loader_release(t->loader, b[j]);
	return ht_trainer_seterr(t, ret == -ENODATA ? -EIO : ret,
				 "the data loader ended early: %s",
				 strerror(-ret));
}

/*
 * One optimizer step at the trainer's position; fills @info. @more: the
 * step after it follows in this epoch (its first batch is prefetched to
 * the device while this one runs).
 */
static int one_step(struct ht_trainer *t, uint64_t S, bool more,
		    struct ht_step_info *info)
{
	struct ht_batch *b[HT_LOADER_MAX_PREFETCH];
	unsigned int k = t->o.accumulate_grad_batches, j;
	uint64_t samples = 0;
	double t0;
	float loss;
	int ret;

	if (k > S - t->batch)
		k = (unsigned int)(S - t->batch);
	hpu_profile_span_begin("data loading", "data");
	ret = take(t, b, k, more && t->pf_on && t->batch + k < S);
	hpu_profile_span_end();
	if (ret)
		return ret;
	for (j = 0; j < k; j++)
		samples += b[j]->global_n;
	t0 = ht_trainer_now();
	hpu_profile_span_begin("train step", "train");
	ret = ht_trainer_opt_step(t, b, k, t->ahead, &loss);
	hpu_profile_span_end();
	for (j = 0; j < k; j++)
		ht_loader_release(t->loader, b[j]);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	info->step_time_s = ht_trainer_now() - t0;
	t->batch += k;
	t->step++;
	info->epoch = t->epoch;
	info->batch = t->batch - 1;
	info->batches = S;
	info->step = t->step;
	info->loss = loss;
	info->lr = t->m->noptims ? ht_optim_lr(t->m->optims[0]) : 0.0f;
	info->samples = samples;
	info->samples_per_s = info->step_time_s > 0 ?
				      (double)samples / info->step_time_s :
				      0.0;
	info->utilization = -1;
	return 0;
}

static int checkpoint_due(struct ht_trainer *t, bool at_end)
{
	char path[4096];
	int ret;

	if (!t->o.ckpt_dir || t->rank != 0)
		return 0;
	if (!at_end &&
	    (!t->o.ckpt_every_n_steps || t->step % t->o.ckpt_every_n_steps))
		return 0;
	if (!at_end) {
		snprintf(path, sizeof(path), "%s/ckpt-step-%llu.htck",
			 t->o.ckpt_dir, (unsigned long long)t->step);
		ret = ht_ckpt_save(t, path);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/last.htck", t->o.ckpt_dir);
	return ht_ckpt_save(t, path);
}

/* The epoch is over: validate, move the loader to the next one */
static int epoch_end(struct ht_trainer *t, struct ht_step_info *last)
{
	uint32_t every = t->o.check_val_every_n_epoch;
	int ret;

	if (every && t->n_val && (t->epoch + 1) % every == 0) {
		ret = ht_trainer_validate(t, NULL);
		if (ret)
			return ret;
	}
	ht_callback_epoch_end(t, last);
	ret = ht_callback_csv_plot(t, true);
	if (ret)
		return ret;
	t->epoch++;
	t->batch = 0;
	ret = ht_loader_seek(t->loader, t->epoch, 0);
	return ret ? ht_trainer_seterr(t, ret, "loader seek failed") : 0;
}

static bool steps_left(const struct ht_trainer *t)
{
	return !t->o.max_steps || t->step < t->o.max_steps;
}

static bool epochs_left(const struct ht_trainer *t)
{
	return !t->o.max_epochs || t->epoch < t->o.max_epochs;
}

/*
 * The last step before a fit starts at an epoch's end (a checkpoint of an
 * older version, taken before the epoch end): its position; its loss is
 * not known
 */
static void info_at_end(struct ht_trainer *t, struct ht_step_info *info)
{
	uint64_t S = ht_trainer_epoch_steps(t);

	if (!S || t->batch < S)
		return;
	info->epoch = t->epoch;
	info->batch = S - 1;
	info->batches = S;
	info->step = t->step;
	info->loss = NAN;
	info->lr = t->m->noptims ? ht_optim_lr(t->m->optims[0]) : 0.0f;
}

static void pf_result(struct ht_trainer *t, struct ht_trainer_result *res)
{
	res->prefetches = t->be->stats.prefetches;
	res->prefetch_in_step = t->be->stats.prefetch_in_step;
	res->prefetch_overlapped = t->be->stats.prefetch_overlapped;
	res->prefetch_overlap_s =
		(double)t->be->stats.prefetch_overlap_ns * 1e-9;
}

int ht_trainer_fit(struct ht_trainer *t, struct ht_trainer_result *res)
{
	struct ht_step_info info = { .utilization = -1 };
	uint64_t first_step = t->step, timed = 0;
	double t_fit = ht_trainer_now(), t_steps = 0.0, samples = 0.0;
	bool stop = false, ckpt_after_epoch = false;
	int ret = 0, r;

	t->err[0] = 0;
	t->nlosses = 0;
	info_at_end(t, &info);
	while (!ret && !stop && epochs_left(t)) {
		uint64_t S = ht_trainer_epoch_steps(t);

		if (t->batch == 0)
			ht_callback_epoch_start(t, S);
		while (!ret && !stop && t->batch < S && steps_left(t)) {
			bool more = !t->o.max_steps ||
				    t->step + 1 < t->o.max_steps;

			ret = one_step(t, S, more, &info);
			if (ret)
				break;
			ret = push_loss(t, info.loss);
			if (t->step > first_step + 1) {
				t_steps += info.step_time_s;
				samples += (double)info.samples;
				timed++;
			}
			ht_callback_device_stats(t, &info);
			/*
			 * a step that ends the epoch is checkpointed after
			 * the epoch end (validation, its log row): a resumed
			 * run starts in the next epoch and does none of it
			 * again
			 */
			if (!ret && t->batch < S)
				ret = checkpoint_due(t, false);
			else
				ckpt_after_epoch = !ret;
			if (!ret)
				ht_callback_step(t, &info);
			if (!ret && t->o.on_step) {
				int r = t->o.on_step(&info, t->o.on_step_arg);

				if (r < 0)
					ret = ht_trainer_seterr(
						t, r,
						"stopped by the step callback: %s",
						strerror(-r));
				else if (r > 0)
					stop = true;
			}
		}
		if (ret)
			break;
		if (t->batch >= S)
			ret = epoch_end(t, &info);
		if (!ret && ckpt_after_epoch)
			ret = checkpoint_due(t, false);
		ckpt_after_epoch = false;
		if (!steps_left(t))
			stop = true;
	}
	if (!ret)
		ret = checkpoint_due(t, true);
	/* the picture of the rows so far, also after a failure */
	r = ht_callback_csv_plot(t, !ret);
	if (!ret)
		ret = r;
	/* a batch prefetched for a step that did not run is sent again */
	r = ht_trainer_pf_cancel(t);
	if (!ret)
		ret = r;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->losses = t->losses;
		res->nlosses = t->nlosses;
		res->steps = t->step;
		res->epochs = t->epoch;
		res->resumed_step = t->resumed_step;
		res->val_loss = t->val_loss;
		res->val_acc = t->val_acc;
		res->test_loss = NAN;
		res->test_acc = NAN;
		res->fit_time_s = ht_trainer_now() - t_fit;
		res->step_time_s = timed ? t_steps / (double)timed :
					   info.step_time_s;
		res->samples_per_s = t_steps > 0 ? samples / t_steps : 0.0;
		pf_result(t, res);
	}
	return ret;
}

int ht_trainer_barrier(struct ht_trainer *t)
{
	float one = 1.0f;

	t->err[0] = 0;
	if (!t->ddp)
		return 0;
	return ht_ddp_allreduce_host(t, &one, 1);
}

/* the mean over the ranks of @tsum (the same on every rank) */
static int ranks_mean(struct ht_trainer *t, double *tsum)
{
	float v = (float)*tsum;
	int ret;

	if (!t->ddp)
		return 0;
	ret = ht_ddp_allreduce_host(t, &v, 1);
	if (!ret)
		*tsum = (double)v / (double)t->world;
	return ret;
}

int ht_trainer_benchmark(struct ht_trainer *t, struct ht_trainer_result *res)
{
	uint32_t n = t->o.bench_warmup + t->o.bench_steps, i;
	uint32_t trace_from = t->o.bench_warmup ? t->o.bench_warmup - 1 : 0;
	struct ht_bench_model bm = { 0 };
	struct ht_step_info info;
	double tsum = 0.0, samples = 0.0;
	int ret = 0, r;

	t->err[0] = 0;
	for (i = 0; !ret && i < n; i++) {
		uint64_t S = ht_trainer_epoch_steps(t);

		/* the modeled step: traced from a step before the timed ones */
		if (i == trace_from) {
			ret = ht_bench_model_start(t, &bm);
			if (ret) {
				ht_trainer_seterr(t, ret,
						  "device trace failed");
				break;
			}
		}
		/* the ranks' timed windows start together */
		if (i == t->o.bench_warmup) {
			ret = ht_trainer_barrier(t);
			if (ret)
				break;
			ht_bench_model_mark(&bm);
		}
		if (t->batch >= S) {
			t->epoch++;
			t->batch = 0;
			ret = ht_loader_seek(t->loader, t->epoch, 0);
			if (ret)
				break;
		}
		ret = one_step(t, S, i + 1 < n, &info);
		if (!ret && i >= t->o.bench_warmup) {
			tsum += info.step_time_s;
			samples += (double)info.samples;
		}
		if (!ret) {
			ret = ht_bench_model_drain(&bm);
			if (ret)
				ht_trainer_seterr(t, ret,
						  "device trace failed");
		}
	}
	r = ht_trainer_pf_cancel(t);
	if (!ret)
		ret = r;
	if (!ret)
		ret = ranks_mean(t, &tsum);
	if (ret) {
		ht_bench_model_cancel(&bm);
		return ret;
	}
	if (res) {
		res->step_time_s = t->o.bench_steps ? tsum / t->o.bench_steps :
						      0.0;
		res->samples_per_s = tsum > 0 ? samples / tsum : 0.0;
		pf_result(t, res);
	}
	ret = ht_bench_model_finish(t, &bm, t->o.bench_steps, res);
	return ret ? ht_trainer_seterr(t, ret, "modeled step failed") : 0;
}
