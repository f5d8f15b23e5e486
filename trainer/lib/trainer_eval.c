// SPDX-License-Identifier: MIT
/*
 * trainer_eval.c - validation and test: every rank evaluates its shard
 * of the split (no gradients, lazily whatever the mode) and the sums of
 * loss, correct predictions and samples are reduced over the ranks.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "ht_error.h"
#include "trainer_internal.h"

/* Per-rank batch of evaluation: at least 128 samples per step */
#define EVAL_MIN_BATCH 128

void ht_trainer_windows(const struct ht_trainer *t, const struct ht_text *txt,
			uint32_t stride, struct ht_text_windows *w)
{
	w->text = txt;
	w->context = t->o.gpt.context;
	w->stride = stride;
}

int ht_trainer_evaluate(struct ht_trainer *t, const struct ht_dataset *ds,
			const struct ht_text *txt, uint64_t limit, float *loss,
			float *acc, uint64_t *n)
{
	struct ht_text_windows w;
	/* a text sample is a window of T tokens: the training batch */
	struct ht_loader_opts lo = {
		.batch_size = txt || t->o.batch_size > EVAL_MIN_BATCH ?
				      t->o.batch_size :
				      EVAL_MIN_BATCH,
		.world_size = t->world,
		.rank = t->rank,
		.seed = t->o.seed,
	};
	double lsum = 0.0, correct = 0.0, count = 0.0;
	struct ht_loader *l;
	struct ht_batch *b;
	uint64_t steps = 0;
	float v[3];
	int ret;

	if (txt) {
		/* windows that do not overlap: every byte predicted once */
		ht_trainer_windows(t, txt, 0, &w);
		ret = ht_loader_create_text(&w, &lo, &l, t->err,
					    sizeof(t->err));
	} else {
		ret = ht_loader_create(ds, &lo, &l, t->err, sizeof(t->err));
	}
	if (ret)
		return ret;
	while (!limit || steps < limit) {
		const void *x;
		uint32_t c;
		float bl;

		ret = ht_loader_next(l, &b);
		if (ret == -ENODATA) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		steps++;
		if (b->n) {
			ret = ht_trainer_input(t, b, &x);
			if (!ret)
				ret = ht_module_eval_step(t->m, x,
							  ht_trainer_labels(b),
							  b->n, &bl, &c);
			if (ret) {
				ht_loader_release(l, b);
				ht_trainer_seterr(t, ret,
						  "evaluation failed: %s",
						  t->be->err);
				break;
			}
			lsum += (double)bl * b->n;
			correct += c;
			count += b->n;
		}
		ht_loader_release(l, b);
	}
	ht_loader_destroy(l);
	if (ret)
		return ret;
	v[0] = (float)lsum;
	v[1] = (float)correct;
	v[2] = (float)count;
	if (t->ddp) {
		ret = ht_ddp_allreduce_host(t, v, 3);
		if (ret)
			return ret;
	}
	*loss = v[2] > 0 ? v[0] / v[2] : NAN;
	/* the accuracy of every label (a language model's every token) */
	*acc = v[2] > 0 ? v[1] / (v[2] * (float)t->m->labels_per_sample) : NAN;
	*n = (uint64_t)v[2];
	return 0;
}

int ht_trainer_validate(struct ht_trainer *t, struct ht_trainer_result *res)
{
	uint64_t n;
	int ret;

	if (!t->n_val)
		return ht_trainer_seterr(t, -ENODATA, "no validation split");
	ret = ht_trainer_evaluate(t, &t->ds_val,
				  t->txt_val.len ? &t->txt_val : NULL,
				  t->o.limit_val_batches, &t->val_loss,
				  &t->val_acc, &n);
	if (!ret && res) {
		res->val_loss = t->val_loss;
		res->val_acc = t->val_acc;
	}
	return ret;
}

int ht_trainer_test(struct ht_trainer *t, struct ht_trainer_result *res)
{
	float loss, acc;
	uint64_t n;
	int ret;

	if (!t->ds_test.n)
		return ht_trainer_seterr(
			t, -ENODATA,
			t->o.data == HT_TRAIN_DATA_TEXT ?
				"no test split (the text has training and validation only)" :
				"no test split (test fraction 0)");
	ret = ht_trainer_evaluate(t, &t->ds_test, NULL, 0, &loss, &acc, &n);
	if (ret)
		return ret;
	if (res) {
		res->test_loss = loss;
		res->test_acc = acc;
		res->test_samples = n;
	}
	return 0;
}
