// SPDX-License-Identifier: MIT
/*
 * ddp_bucket.c - gradient buckets of DDP (docs/training.md).
 *
 * Every parameter's gradient is a view into a flat bucket: parameters are
 * taken in reverse creation order (the order backward finishes them) and
 * a bucket is closed once it holds bucket_bytes. In the last micro-step
 * of an optimizer step a parameter's gradient hook counts it ready; when
 * the first bucket not yet launched is complete, the program so far is
 * submitted (ht_backend_flush()), an event recorded on the compute stream,
 * the communication stream waits for it and hpuccl_allreduce(SUM) runs
 * on the bucket while the host goes on issuing backward ops. Buckets are
 * launched strictly in index order, so every rank issues the collectives
 * in the same order even when a rank has no samples in a step. Before the
 * optimizers, the compute stream waits on the communication stream.
 * Eager mode (host_order) submits its program outside the compute stream
 * and waits for every op, so a launch needs no event, and the optimizers
 * start after a host wait for the communication stream.
 *
 * The loss: bucket 0 ends with one more fp32, this rank's share of the
 * step's loss (sum over its samples / samples of the whole step), summed
 * with the gradients: after the allreduce it is the global batch's loss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "hpudrv.h"
#include "ht_error.h"
#include "ht_graph.h"

/* fp32 elements each gradient is aligned to within its bucket */
#define GRAD_ALIGN 64

static int bucket_fill(struct ht_backend *be, const struct ht_ddp_bucket *b,
		       float v)
{
	struct ht_tensor tmp = {
		.be = be,
		.dtype = HT_F32,
		.ndim = 1,
		.sizes = { (uint32_t)b->count },
		.numel = b->count,
		.addr = b->addr,
	};

	return ht_tensor_fill(&tmp, v);
}

static int launch(struct ht_trainer *t, struct ht_ddp_bucket *b)
{
	struct ht_ddp *d = t->ddp;
	const char *what = "submitting the program";
	int ret;

	ret = ht_backend_flush(t->be);
	/* eager: every op of the program was waited for (host_order) */
	if (!ret && !d->host_order) {
		what = "recording the gradients' event";
		ret = hpu_event_record(d->ev_compute, d->compute);
		if (!ret)
			ret = hpu_stream_wait_event(d->comm_stream,
						    d->ev_compute);
	}
	if (!ret) {
		what = "allreduce of a gradient bucket";
		ret = hpuccl_allreduce(b->addr, b->addr, b->count,
				       HPUCCL_FLOAT32, HPUCCL_SUM, d->comm,
				       d->comm_stream);
	}
	if (ret) {
		int a = hpuccl_comm_get_async_error(d->comm);
		char who[96];

		return ht_trainer_seterr(t, a ? a : ret, "%s: %s: %s",
					 ht_ddp_rank_name(t, who, sizeof(who)),
					 what,
					 t->be->err[0] ?
						 t->be->err :
						 hpuccl_strerror(a ? a : ret));
	}
	b->launched = true;
	if (hpu_profile_enabled())
		b->launch_ns = hpu_profile_now_ns();
	return 0;
}

/* Launch the complete buckets at the head of the order */
static int launch_ready(struct ht_trainer *t)
{
	struct ht_ddp *d = t->ddp;
	int ret;

	while (d->next < d->nbuckets &&
	       d->buckets[d->next].ready == d->buckets[d->next].nparams) {
		ret = launch(t, &d->buckets[d->next]);
		if (ret)
			return ret;
		d->next++;
	}
	return 0;
}

static int grad_hook(struct ht_backend *be, struct ht_tensor *param, void *arg)
{
	struct ht_trainer *t = arg;
	struct ht_ddp *d = t->ddp;
	unsigned int i;

	(void)be;
	if (!d->armed)
		return 0;
	for (i = 0; i < t->m->nparams; i++)
		if (t->m->params[i] == param)
			break;
	if (i == t->m->nparams)
		return 0;
	d->buckets[d->param_bucket[i]].ready++;
	return launch_ready(t);
}

static int grad_view(struct ht_trainer *t, struct ht_tensor *p, uint64_t addr,
		     struct ht_tensor **out)
{
	struct ht_tensor *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->be = t->be;
	g->dtype = HT_F32;
	g->ndim = p->ndim;
	memcpy(g->sizes, p->sizes, sizeof(g->sizes));
	g->numel = p->numel;
	g->addr = addr;
	g->persistent = true;
	g->name = "grad";
	*out = g;
	return 0;
}

static uint64_t align_up(uint64_t v)
{
	return (v + GRAD_ALIGN - 1) / GRAD_ALIGN * GRAD_ALIGN;
}

int ht_ddp_buckets_init(struct ht_trainer *t)
{
	struct ht_ddp *d = t->ddp;
	struct ht_module *m = t->m;
	uint64_t limit = t->o.bucket_bytes / sizeof(float);
	uint64_t off[HT_MODULE_MAX_PARAMS], used = 0;
	unsigned int i, nb = 0;
	int ret;

	d->buckets = calloc(m->nparams + 1, sizeof(*d->buckets));
	if (!d->buckets)
		return -ENOMEM;
	/* layout: reverse parameter order, a new bucket past the limit */
	for (i = m->nparams; i-- > 0;) {
		struct ht_tensor *p = m->params[i];

		if (used && used + p->numel > limit) {
			d->buckets[nb].count = used;
			nb++;
			used = 0;
		}
		off[i] = used;
		d->param_bucket[i] = nb;
		d->buckets[nb].nparams++;
		used = align_up(used + p->numel);
	}
	d->buckets[nb].count = used;
	d->nbuckets = nb + 1;
	/* the loss slot after bucket 0's gradients */
	d->buckets[0].count += 1;
	for (i = 0; i < d->nbuckets; i++) {
		if (d->buckets[i].count > UINT32_MAX)
			return ht_trainer_seterr(
				t, -E2BIG, "a gradient bucket is too large");
		ret = ht_arena_alloc(t->be, &t->be->persist,
				     d->buckets[i].count * sizeof(float),
				     &d->buckets[i].addr);
		if (!ret)
			ret = bucket_fill(t->be, &d->buckets[i], 0.0f);
		if (ret)
			return ht_trainer_seterr(
				t, ret, "cannot allocate the gradient buckets");
	}
	for (i = 0; i < m->nparams; i++) {
		struct ht_tensor *p = m->params[i];
		struct ht_ddp_bucket *b = &d->buckets[d->param_bucket[i]];

		ht_tensor_free(p->grad);
		p->grad = NULL;
		ret = grad_view(t, p, b->addr + off[i] * sizeof(float),
				&p->grad);
		if (ret)
			return ret;
		ht_set_grad_hook(p, grad_hook, t);
	}
	ret = grad_view(t, m->params[0],
			d->buckets[0].addr +
				(d->buckets[0].count - 1) * sizeof(float),
			&d->loss_slot);
	if (ret)
		return ret;
	d->loss_slot->ndim = 0;
	d->loss_slot->numel = 1;
	d->loss_slot->name = "loss slot";
	ret = ht_backend_sync(t->be);
	return ret ? ht_trainer_seterr(t, ret, "%s", t->be->err) : 0;
}

static void arm(struct ht_ddp *d)
{
	unsigned int i;

	for (i = 0; i < d->nbuckets; i++) {
		d->buckets[i].ready = 0;
		d->buckets[i].launched = false;
	}
	d->next = 0;
	d->armed = true;
}

int ht_ddp_step_prepare(struct ht_trainer *t, struct ht_tensor *loss,
			float prev_sum)
{
	struct ht_ddp *d = t->ddp;
	struct hpu_tpc_tensor td[3];
	struct ht_tensor *p;
	int ret;

	arm(d);
	if (t->o.accumulate_grad_batches == 1)
		return t->be->ops->copy(t->be, d->loss_slot->addr, loss->addr,
					sizeof(float));
	ret = ht_tensor_new(t->be, HT_F32, 0, NULL, false, &p);
	if (!ret)
		ret = ht_tensor_upload(p, &prev_sum);
	if (ret)
		return ret;
	ht_tensor_desc(loss, &td[0]);
	ht_tensor_desc(p, &td[1]);
	ht_tensor_desc(d->loss_slot, &td[2]);
	return ht_backend_kernel(t->be, HPU_TPC_KERNEL_ADD, td, 3, NULL, 0);
}

int ht_ddp_empty_micro(struct ht_trainer *t, bool first, bool last,
		       float prev_sum)
{
	struct ht_ddp *d = t->ddp;
	unsigned int i;
	int ret;

	if (first) {
		for (i = 0; i < d->nbuckets; i++) {
			ret = bucket_fill(t->be, &d->buckets[i], 0.0f);
			if (ret)
				return ret;
		}
		for (i = 0; i < t->m->nparams; i++)
			t->m->params[i]->grad_set = true;
	}
	if (!last)
		return 0;
	arm(d);
	return ht_tensor_upload(d->loss_slot, &prev_sum);
}

/* A collective of the step failed (@ret): name it, the async error first */
static int collective_failed(struct ht_trainer *t, int ret)
{
	int a = hpuccl_comm_get_async_error(t->ddp->comm);
	char who[96];

	return ht_trainer_seterr(t, a ? a : ret,
				 "%s: a collective of step %llu failed: %s",
				 ht_ddp_rank_name(t, who, sizeof(who)),
				 (unsigned long long)t->step + 1,
				 hpuccl_strerror(a ? a : ret));
}

int ht_ddp_step_finish(struct ht_trainer *t)
{
	struct ht_ddp *d = t->ddp;
	int ret = 0;

	for (; !ret && d->next < d->nbuckets; d->next++)
		if (!d->buckets[d->next].launched)
			ret = launch(t, &d->buckets[d->next]);
	d->armed = false;
	if (ret)
		return ret;
	/*
	 * eager: the optimizer's ops, submitted one by one, follow the
	 * allreduces by a host wait, as every eager op follows the one
	 * before it
	 */
	if (d->host_order) {
		ret = hpu_stream_synchronize(d->comm_stream);
		return ret ? collective_failed(t, ret) : 0;
	}
	ret = hpu_event_record(d->ev_comm, d->comm_stream);
	if (!ret)
		ret = ht_backend_flush(t->be);
	if (!ret)
		ret = hpu_stream_wait_event(d->compute, d->ev_comm);
	if (ret)
		return ht_trainer_seterr(
			t, ret,
			"DDP rank %u: ordering the optimizer after the allreduces failed: %s",
			t->rank, hpu_strerror(ret));
	return 0;
}

int ht_ddp_fetch_loss(struct ht_trainer *t, float *loss)
{
	return ht_tensor_fetch(t->ddp->loss_slot, loss);
}

/* each bucket's allreduce from its launch to the step's synchronize */
static void profile_buckets(const struct ht_ddp *d)
{
	uint64_t now;
	unsigned int i;
	char name[48];

	if (!hpu_profile_enabled())
		return;
	now = hpu_profile_now_ns();
	for (i = 0; i < d->nbuckets; i++) {
		if (!d->buckets[i].launched)
			continue;
		snprintf(name, sizeof(name), "allreduce bucket %u", i);
		hpu_profile_span_add(name, "allreduce", d->buckets[i].launch_ns,
				     now);
	}
}

int ht_ddp_step_done(struct ht_trainer *t)
{
	struct ht_ddp *d = t->ddp;
	int ret;

	ret = hpu_stream_synchronize(d->comm_stream);
	if (!ret)
		ret = hpu_stream_synchronize(d->compute);
	if (ret)
		return collective_failed(t, ret);
	profile_buckets(d);
	return 0;
}
