// SPDX-License-Identifier: MIT
/*
 * trainer_step.c - one optimizer step: K micro-batches whose losses are
 * scaled to "sum over the samples / samples of the whole step", their
 * gradients accumulated, then (DDP) summed over ranks and every
 * optimizer run (docs/training.md, Strategies and DDP).
 *
 * In graph mode only the last micro-step of a full step (K micro-batches
 * of the full per-rank batch) is captured and replayed: the others
 * differ from it (no collectives, no optimizer), and a short last global
 * batch of an epoch has other shapes or another loss scale, so those run
 * lazily beside the graph.
 *
 * Prefetch to the device (trainer_prefetch.c): each micro-step starts,
 * then copies the batch after it to the device beside its own program,
 * and waits for its own batch's copy as its program's first op.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpudrv.h"
#include "ht_error.h"
#include "ht_graph.h"
#include "ht_ops.h"
#include "trainer_internal.h"

int ht_trainer_input(struct ht_trainer *t, const struct ht_batch *b,
		     const void **x)
{
	uint32_t vocab = t->o.mixer.vocab;
	size_t n = (size_t)b->n * t->features, i;

	if (t->o.model == HT_TRAIN_MODEL_GPT) {
		*x = b->ids;
		return 0;
	}
	if (t->o.model != HT_TRAIN_MODEL_MIXER) {
		*x = b->x;
		return 0;
	}
	if (n > t->ids_cap) {
		int32_t *p = realloc(t->ids, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->ids = p;
		t->ids_cap = n;
	}
	/* x = level / (vocab - 1): the nearest level is the token */
	for (i = 0; i < n; i++) {
		float v = rintf(b->x[i] * (float)(vocab - 1));

		t->ids[i] = v < 0.0f		   ? 0 :
			    v > (float)(vocab - 1) ? (int32_t)vocab - 1 :
						     (int32_t)v;
	}
	*x = t->ids;
	return 0;
}

static int scale_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct hpu_tpc_tensor d;

	ht_tensor_desc(n->out->grad, &d);
	return ht_grad_axpy(be, n->in[0], n->f[0], &d);
}

/* y = s * x for a scalar loss, with its backward */
static int loss_scale(struct ht_tensor *x, float s, struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct hpu_tpc_tensor d[2];
	struct ht_tensor *out;
	struct ht_node *node;
	uint32_t p = ht_f2u(s);
	int ret;

	ret = ht_tensor_new(be, HT_F32, 0, NULL, false, &out);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	ht_tensor_desc(out, &d[1]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_SCALE, d, 2, &p, 1);
	if (!ret && ht_needs_grad(be, &x, 1)) {
		ret = ht_tape_record(be, "loss_scale", scale_bwd, out, &x, 1,
				     &node);
		if (!ret)
			node->f[0] = s;
	}
	if (!ret)
		*y = out;
	return ret;
}

static int upload_batch(struct ht_trainer *t, const struct ht_batch *b,
			struct ht_tensor **xt, struct ht_tensor **yt)
{
	struct ht_module *m = t->m;
	uint32_t xs[2] = { b->n, m->in_features };
	uint32_t ny = b->n * m->labels_per_sample;
	const void *x;
	int ret;

	ret = ht_trainer_input(t, b, &x);
	if (!ret)
		ret = ht_tensor_new(m->be, m->in_dtype, 2, xs, false, xt);
	if (!ret)
		ret = ht_tensor_new(m->be, HT_I32, 1, &ny, false, yt);
	if (!ret)
		ret = ht_tensor_upload(*xt, x);
	if (!ret)
		ret = ht_tensor_upload(*yt, ht_trainer_labels(b));
	return ret;
}

/*
 * forward, scaled loss and backward of one micro-batch with samples,
 * its input in prefetch buffer @slot or (-1) uploaded here
 */
static int micro_body(struct ht_trainer *t, const struct ht_batch *b, int slot,
		      float scale, bool first, bool last, float prev,
		      float *loss)
{
	struct ht_module *m = t->m;
	struct ht_tensor *xt, *yt, *lt;
	unsigned int i;
	int ret;

	if (slot >= 0)
		ret = ht_trainer_pf_inputs(t, b, (unsigned int)slot, &xt, &yt);
	else
		ret = upload_batch(t, b, &xt, &yt);
	if (ret)
		return ret;
	if (first)
		for (i = 0; i < m->noptims; i++)
			ht_optim_zero_grad(m->optims[i]);
	hpu_profile_span_begin("forward", "train");
	ret = ht_module_loss(m, xt, yt, &lt);
	if (!ret && scale != 1.0f)
		ret = loss_scale(lt, scale, &lt);
	hpu_profile_span_end();
	if (!ret && last && t->ddp)
		ret = ht_ddp_step_prepare(t, lt, prev);
	hpu_profile_span_begin("backward", "train");
	if (!ret)
		ret = ht_backward(lt);
	hpu_profile_span_end();
	/*
	 * The last micro-step of a DDP step reports the all-reduced loss
	 * (ht_ddp_fetch_loss()); its own share went into the loss slot.
	 * Fetching it too cost a submission of its own per step: the
	 * program after the bucket's launch was this copy alone.
	 */
	if (!ret && !(last && t->ddp))
		ret = ht_tensor_fetch(lt, loss);
	return ret;
}

static int micro_step(struct ht_trainer *t, const struct ht_batch *b,
		      const struct ht_batch *next, float scale, bool first,
		      bool last, bool graph, float prev, float *loss)
{
	struct ht_module *m = t->m;
	unsigned int i;
	int ret, r, slot;

	*loss = 0.0f;
	ret = ht_trainer_pf_take(t, b, &slot);
	if (ret)
		return ret;
	/* one captured step per input buffer: their addresses differ */
	ret = ht_step_begin_graph(t->be, graph, slot < 0 ? 0 : slot);
	if (ret)
		return ret;
	/* the device is idle: the buffer @b does not use is free */
	if (next)
		ret = ht_trainer_pf_issue(t, next);
	if (!ret && b->n)
		ret = micro_body(t, b, slot, scale, first, last, prev, loss);
	else if (!ret && t->ddp)
		ret = ht_ddp_empty_micro(t, first, last, prev);
	if (!ret && last && t->ddp)
		ret = ht_ddp_step_finish(t);
	/* clipping sees the all-reduced gradients */
	hpu_profile_span_begin("optimizer", "train");
	if (!ret && last)
		ret = ht_module_clip(m);
	for (i = 0; !ret && last && i < m->noptims; i++)
		ret = ht_optim_step(m->optims[i]);
	hpu_profile_span_end();
	if (!ret && last && t->ddp)
		ret = ht_ddp_fetch_loss(t, loss);
	hpu_profile_span_begin("step end", "sync");
	r = ht_step_end(t->be);
	if (!ret)
		ret = r;
	if (!ret && last && t->ddp)
		ret = ht_ddp_step_done(t);
	hpu_profile_span_end();
	return ret;
}

int ht_trainer_lr_setup(struct ht_trainer *t)
{
	const struct ht_train_lr_sched *o = &t->o.lr_sched;
	uint64_t K = t->o.accumulate_grad_batches, S, per, total = UINT64_MAX;
	unsigned int i;

	S = ht_trainer_epoch_steps(t);
	per = (S + K - 1) / K;
	if (t->o.max_epochs)
		total = t->o.max_epochs * per;
	if (t->o.max_steps && t->o.max_steps < total)
		total = t->o.max_steps;
	t->lr.kind = o->kind == HT_TRAIN_LR_COSINE ? HT_LR_COSINE :
						     HT_LR_CONSTANT;
	t->lr.warmup_steps = o->warmup_steps;
	t->lr.total_steps = total;
	t->lr.lr_min = o->lr_min;
	t->lr_on = o->kind == HT_TRAIN_LR_COSINE || o->warmup_steps;
	for (i = 0; t->lr_on && i < t->m->noptims; i++)
		if (t->lr.kind == HT_LR_COSINE &&
		    o->lr_min > ht_optim_lr(t->m->optims[i]))
			return ht_trainer_seterr(
				t, -EINVAL,
				"lr_min %g is above the learning rate %g",
				(double)o->lr_min,
				(double)ht_optim_lr(t->m->optims[i]));
	ht_trainer_lr_apply(t);
	return 0;
}

void ht_trainer_lr_apply(struct ht_trainer *t)
{
	unsigned int i;

	for (i = 0; t->lr_on && i < t->m->noptims; i++)
		ht_optim_schedule(t->m->optims[i], &t->lr, t->step);
}

int ht_trainer_opt_step(struct ht_trainer *t, struct ht_batch *const *b,
			unsigned int k, const struct ht_batch *next,
			float *loss)
{
	uint32_t K = t->o.accumulate_grad_batches;
	uint64_t total = 0;
	float sum = 0.0f, l;
	bool full = k == K;
	unsigned int j;
	int ret;

	for (j = 0; j < k; j++) {
		total += b[j]->global_n;
		if (b[j]->n != t->o.batch_size ||
		    b[j]->global_n != (uint64_t)t->o.batch_size * t->world)
			full = false;
	}
	if (!total)
		return ht_trainer_seterr(t, -EINVAL, "an empty optimizer step");
	/* the schedule's rate of this step (a dynamic kernel parameter) */
	ht_trainer_lr_apply(t);
	for (j = 0; j < k; j++) {
		bool last = j + 1 == k;
		float scale = (float)((double)b[j]->n / (double)total);

		/* dropout masks: a function of the seed, step, micro, rank */
		t->m->step_seed = ht_dropout_seed(
			t->o.seed, t->step, ((uint64_t)t->rank << 32) | j);
		ret = micro_step(t, b[j], last ? next : b[j + 1], scale, j == 0,
				 last, full && last, sum, &l);
		if (ret) {
			if (t->be->err[0])
				ht_trainer_seterr(
					t, ret, "training step %llu: %s",
					(unsigned long long)t->step + 1,
					t->be->err);
			else if (!t->err[0])
				ht_trainer_seterr(
					t, ret, "training step %llu failed: %s",
					(unsigned long long)t->step + 1,
					strerror(-ret));
			return ret;
		}
		/* DDP: the last micro-step returns the global sum */
		sum = last && t->ddp ? l : sum + l;
	}
	*loss = sum;
	return 0;
}
