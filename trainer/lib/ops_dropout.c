// SPDX-License-Identifier: MIT
/*
 * ops_dropout.c - inverted dropout on the TPC dropout kernel (ht_ops.h):
 * the kernel writes y and the fp32 mask (0 or 1/(1-p)) from a
 * counter-based generator keyed by a 64-bit seed; backward multiplies
 * the gradient by the kept mask. The seed is a dynamic parameter, so a
 * step captured as a graph draws a new mask at every replay.
 */
#include <errno.h>

#include "ht_error.h"
#include "ht_graph.h"
#include "ht_ops.h"

static int dropout_bwd(struct ht_backend *be, struct ht_node *n)
{
	struct ht_tensor *x = n->in[0], *dst;
	struct hpu_tpc_tensor d[3];
	int ret = ht_grad_dst(be, x, &dst);

	if (ret)
		return ret;
	ht_tensor_desc(n->out->grad, &d[0]);
	ht_tensor_desc(n->saved[0], &d[1]);
	ht_tensor_desc(dst, &d[2]);
	ret = ht_backend_kernel(be, HPU_TPC_KERNEL_MUL, d, 3, NULL, 0);
	return ret ? ret : ht_grad_done(be, x, dst);
}

uint64_t ht_dropout_seed(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t z = seed ^ (a * 0x9e3779b97f4a7c15ULL) ^
		     (b * 0xc2b2ae3d27d4eb4fULL);

	/* splitmix64's finalizer */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int ht_dropout(struct ht_tensor *x, float p, uint64_t seed,
	       struct ht_tensor **y)
{
	struct ht_backend *be = x->be;
	struct ht_tensor *out, *mask;
	struct hpu_tpc_tensor d[3];
	struct ht_node *node;
	uint32_t prm[3];
	int ret;

	if (x->dtype == HT_I32 || !(p >= 0.0f && p < 1.0f)) {
		ht_seterr(be->err, sizeof(be->err),
			  "dropout: p must be in [0, 1) and x floating point");
		return -EINVAL;
	}
	if (p == 0.0f || !be->grad_enabled) {
		*y = x; /* identity: p = 0, validation, generation */
		return 0;
	}
	ret = ht_tensor_like(x, x->dtype, &out);
	if (!ret)
		ret = ht_tensor_like(x, HT_F32, &mask);
	if (ret)
		return ret;
	ht_tensor_desc(x, &d[0]);
	ht_tensor_desc(out, &d[1]);
	ht_tensor_desc(mask, &d[2]);
	prm[0] = ht_f2u(p);
	prm[1] = (uint32_t)seed;
	prm[2] = (uint32_t)(seed >> 32);
	ret = ht_backend_kernel_dyn(be, HPU_TPC_KERNEL_DROPOUT, d, 3, prm, 3,
				    (1U << 1) | (1U << 2));
	if (ret)
		return ret;
	ret = ht_tape_unary(be, "dropout", dropout_bwd, x, out, &node);
	if (ret)
		return ret;
	if (node)
		node->saved[0] = mask;
	*y = out;
	return 0;
}
