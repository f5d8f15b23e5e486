// SPDX-License-Identifier: MIT
/*
 * optim_clip.c - gradient clipping by global norm on the device
 * (ht_optim.h): the TPC sumsq kernel over every gradient, then the
 * clip_grad_norm kernel that scales them in place.
 */
#include <errno.h>
#include <math.h>

#include "ht_error.h"
#include "ht_optim.h"

/* Gradients per kernel: sumsq takes 7 inputs, clip_grad_norm 6 */
#define SUMSQ_MAX (HPU_TPC_MAX_TENSORS - 1)
#define CLIP_MAX  (HPU_TPC_MAX_TENSORS - 2)

/* A gradient this step wrote (the optimizers' rule) */
static bool has_grad(const struct ht_tensor *p)
{
	return p->grad && p->grad_set;
}

/* Issue @id on d[0..@k-1] with parameter @p; @k back to @first */
static int flush(struct ht_backend *be, uint32_t id,
		 const struct hpu_tpc_tensor *d, unsigned int *k,
		 unsigned int first, uint32_t p)
{
	int ret = ht_backend_kernel(be, id, d, *k, &p, 1);

	*k = first;
	return ret;
}

int ht_clip_grad_norm(struct ht_tensor *const *params, unsigned int n,
		      float max_norm, struct ht_tensor **norm)
{
	struct hpu_tpc_tensor d[HPU_TPC_MAX_TENSORS];
	struct ht_tensor *sq, *nrm;
	struct ht_backend *be;
	unsigned int i, k, ngrads = 0;
	uint32_t acc = 0;
	int ret;

	if (!n || !params || !norm)
		return -EINVAL;
	be = params[0]->be;
	if (!isfinite(max_norm) || !(max_norm > 0)) {
		ht_seterr(be->err, sizeof(be->err),
			  "clip grad norm: max_norm must be finite and > 0");
		return -EINVAL;
	}
	ret = ht_tensor_new(be, HT_F32, 0, NULL, false, &sq);
	if (!ret)
		ret = ht_tensor_new(be, HT_F32, 0, NULL, false, &nrm);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		ngrads += has_grad(params[i]);
	if (!ngrads) {
		ret = ht_tensor_fill(nrm, 0.0f);
		if (!ret)
			*norm = nrm;
		return ret;
	}
	/* sum of squares, SUMSQ_MAX gradients at a time: set, then added */
	ht_tensor_desc(sq, &d[0]);
	for (i = 0, k = 1; i < n && !ret; i++) {
		if (!has_grad(params[i]))
			continue;
		ht_tensor_desc(params[i]->grad, &d[k++]);
		if (k == SUMSQ_MAX + 1) {
			ret = flush(be, HPU_TPC_KERNEL_SUMSQ, d, &k, 1, acc);
			acc = HPU_TPC_SUMSQ_ACCUMULATE;
		}
	}
	if (!ret && k > 1)
		ret = flush(be, HPU_TPC_KERNEL_SUMSQ, d, &k, 1, acc);
	/* the norm, and the gradients scaled in place, CLIP_MAX at a time */
	ht_tensor_desc(nrm, &d[1]);
	for (i = 0, k = 2; i < n && !ret; i++) {
		if (!has_grad(params[i]))
			continue;
		ht_tensor_desc(params[i]->grad, &d[k++]);
		if (k == CLIP_MAX + 2)
			ret = flush(be, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, &k, 2,
				    ht_f2u(max_norm));
	}
	if (!ret && k > 2)
		ret = flush(be, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, &k, 2,
			    ht_f2u(max_norm));
	if (!ret)
		*norm = nrm;
	return ret;
}
