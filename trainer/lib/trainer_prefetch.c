// SPDX-License-Identifier: MIT
/*
 * trainer_prefetch.c - the trainer's side of the prefetch to the device
 * (docs/training.md, "Prefetch to the device").
 *
 * Two device input buffers (features or token ids, and labels) of a full
 * per-rank batch, used in turn. Step k's micro-step starts (the device is
 * idle then, the step before was waited for), then the batch after it is
 * prefetched into the buffer that step k does not read, and step k's
 * program waits for its own batch's prefetch before its first op. Only
 * full batches take this path (a short last batch of an epoch, or none,
 * is uploaded by its step's program as before); a batch that was not
 * prefetched ahead is prefetched just before its step, so every full
 * batch reads its input from one of the two buffers and graph mode keeps
 * one captured step per buffer (graph id = buffer index). Batches of at
 * most device_prefetch_skip bytes are not prefetched at all: a copy that
 * short runs inline in its submission and never overlaps the step.
 */
#include <errno.h>
#include <string.h>

#include "trainer_internal.h"

int ht_trainer_pf_setup(struct ht_trainer *t)
{
	struct ht_module *m = t->m;
	uint32_t xs[2] = { t->o.batch_size, m->in_features };
	uint32_t ny = t->o.batch_size * m->labels_per_sample;
	unsigned int i;
	uint64_t bytes;
	int ret = 0;

	if (t->o.accel != HT_TRAIN_ACCEL_HPU || !t->o.device_prefetch)
		return 0;
	/* inputs and int32 labels of a full batch */
	bytes = (uint64_t)t->o.batch_size *
		(m->in_features * ht_dtype_size(m->in_dtype) +
		 m->labels_per_sample * sizeof(int32_t));
	if (bytes <= t->o.device_prefetch_skip)
		return 0;
	for (i = 0; !ret && i < HT_PREFETCH_DEPTH; i++) {
		ret = ht_tensor_new(t->be, m->in_dtype, 2, xs, true,
				    &t->pf_x[i]);
		if (!ret)
			ret = ht_tensor_new(t->be, HT_I32, 1, &ny, true,
					    &t->pf_y[i]);
	}
	if (ret)
		return ht_trainer_seterr(
			t, ret, "cannot allocate the prefetch buffers: %s",
			t->be->err[0] ? t->be->err : strerror(-ret));
	t->pf_on = true;
	return 0;
}

void ht_trainer_pf_release(struct ht_trainer *t)
{
	unsigned int i;

	if (t->be)
		ht_backend_prefetch_cancel(t->be);
	for (i = 0; i < HT_PREFETCH_DEPTH; i++) {
		ht_tensor_free(t->pf_x[i]);
		ht_tensor_free(t->pf_y[i]);
		t->pf_x[i] = NULL;
		t->pf_y[i] = NULL;
	}
	t->pf_n = 0;
	t->pf_on = false;
}

static bool pf_full(const struct ht_trainer *t, const struct ht_batch *b)
{
	return b->n == t->o.batch_size;
}

/* Start copying @b to the next buffer (a full batch, room in the queue) */
int ht_trainer_pf_issue(struct ht_trainer *t, const struct ht_batch *b)
{
	unsigned int s = t->pf_slot;
	struct ht_xfer x[2];
	const void *in;
	int ret;

	if (!t->pf_on || !pf_full(t, b) || t->pf_n == HT_PREFETCH_DEPTH)
		return 0;
	ret = ht_trainer_input(t, b, &in);
	if (ret)
		return ret;
	x[0].dst = t->pf_x[s]->addr;
	x[0].src = in;
	x[0].n = ht_tensor_bytes(t->pf_x[s]);
	x[1].dst = t->pf_y[s]->addr;
	x[1].src = ht_trainer_labels(b);
	x[1].n = ht_tensor_bytes(t->pf_y[s]);
	ret = ht_backend_prefetch(t->be, x, 2);
	if (ret)
		return ret;
	t->pf_q[t->pf_n] = b;
	t->pf_qslot[t->pf_n++] = s;
	t->pf_slot = (s + 1) % HT_PREFETCH_DEPTH;
	return 0;
}

/*
 * Before @b's step: @slot receives the buffer holding it (prefetched now
 * when it was not ahead), or -1 when its step uploads it itself
 */
int ht_trainer_pf_take(struct ht_trainer *t, const struct ht_batch *b,
		       int *slot)
{
	unsigned int i;
	int ret;

	*slot = -1;
	if (!t->pf_on || !pf_full(t, b))
		return 0;
	if (!t->pf_n || t->pf_q[0] != b) {
		/* the waits take the prefetches in order: start afresh */
		ret = ht_trainer_pf_cancel(t);
		if (!ret)
			ret = ht_trainer_pf_issue(t, b);
		if (ret)
			return ret;
	}
	*slot = (int)t->pf_qslot[0];
	for (i = 1; i < t->pf_n; i++) {
		t->pf_q[i - 1] = t->pf_q[i];
		t->pf_qslot[i - 1] = t->pf_qslot[i];
	}
	t->pf_n--;
	return 0;
}

/* The step's inputs in buffer @slot, after its prefetch ended */
int ht_trainer_pf_inputs(struct ht_trainer *t, const struct ht_batch *b,
			 unsigned int slot, struct ht_tensor **xt,
			 struct ht_tensor **yt)
{
	uint32_t xs[2] = { b->n, t->m->in_features };
	uint32_t ny = b->n * t->m->labels_per_sample;
	int ret;

	ret = ht_backend_prefetch_wait(t->be);
	if (!ret)
		ret = ht_tensor_view(t->pf_x[slot], 2, xs, xt);
	if (!ret)
		ret = ht_tensor_view(t->pf_y[slot], 1, &ny, yt);
	return ret;
}

/* Forget the prefetches no step used (the batches stay held) */
int ht_trainer_pf_cancel(struct ht_trainer *t)
{
	int ret;

	if (!t->pf_on)
		return 0;
	t->pf_n = 0;
	ret = ht_backend_prefetch_cancel(t->be);
	if (ret)
		return ht_trainer_seterr(t, ret, "prefetch: %s", t->be->err);
	return 0;
}
