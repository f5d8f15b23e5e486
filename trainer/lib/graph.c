// SPDX-License-Identifier: MIT
/*
 * graph.c - the autograd tape, ht_backward() and the gradient helpers of
 * the backward rules (ht_graph.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_error.h"
#include "ht_graph.h"

/**
 * struct ht_tape - the recorded ops of a step
 * @nodes: in forward order
 * @n: recorded
 * @cap: room
 */
struct ht_tape {
	struct ht_node *nodes;
	unsigned int n;
	unsigned int cap;
};

bool ht_needs_grad(const struct ht_backend *be, struct ht_tensor *const *in,
		   unsigned int n)
{
	unsigned int i;

	if (!be->grad_enabled)
		return false;
	for (i = 0; i < n; i++)
		if (in[i] && in[i]->requires_grad)
			return true;
	return false;
}

int ht_tape_record(struct ht_backend *be, const char *name, ht_backward_fn fn,
		   struct ht_tensor *out, struct ht_tensor *const *in,
		   unsigned int nin, struct ht_node **np)
{
	struct ht_tape *tp = be->tape;
	struct ht_node *n;
	unsigned int i;

	if (nin > HT_NODE_MAX_IN)
		return -EINVAL;
	if (!tp) {
		tp = calloc(1, sizeof(*tp));
		if (!tp)
			return -ENOMEM;
		be->tape = tp;
	}
	if (tp->n == tp->cap) {
		unsigned int cap = tp->cap ? 2 * tp->cap : 64;
		struct ht_node *nn = realloc(tp->nodes, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		tp->nodes = nn;
		tp->cap = cap;
	}
	n = &tp->nodes[tp->n++];
	memset(n, 0, sizeof(*n));
	n->backward = fn;
	n->name = name;
	n->nin = nin;
	for (i = 0; i < nin; i++)
		n->in[i] = in[i] && in[i]->requires_grad ? in[i] : NULL;
	n->out = out;
	out->requires_grad = true;
	*np = n;
	return 0;
}

int ht_tape_unary(struct ht_backend *be, const char *name, ht_backward_fn fn,
		  struct ht_tensor *x, struct ht_tensor *out,
		  struct ht_node **np)
{
	struct ht_node *node = NULL;
	int ret = 0;

	if (ht_needs_grad(be, &x, 1))
		ret = ht_tape_record(be, name, fn, out, &x, 1, &node);
	if (np)
		*np = node;
	return ret;
}

void ht_tape_reset(struct ht_backend *be)
{
	if (be->tape)
		be->tape->n = 0;
}

void ht_tape_free(struct ht_backend *be)
{
	if (be->tape)
		free(be->tape->nodes);
	free(be->tape);
	be->tape = NULL;
}

void ht_zero_grad(struct ht_tensor *const *params, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		params[i]->grad_set = false;
}

void ht_set_grad_hook(struct ht_tensor *param, ht_grad_hook_fn fn, void *arg)
{
	param->hook = fn;
	param->hook_arg = arg;
}

/* @x->grad exists (fp32, @x's shape; persistent for a persistent @x) */
static int grad_alloc(struct ht_backend *be, struct ht_tensor *x)
{
	if (x->grad)
		return 0;
	return ht_tensor_new(be, HT_F32, x->ndim, x->sizes, x->persistent,
			     &x->grad);
}

int ht_grad_dst(struct ht_backend *be, struct ht_tensor *x,
		struct ht_tensor **dst)
{
	int ret = grad_alloc(be, x);

	if (ret)
		return ret;
	if (!x->grad_set) {
		*dst = x->grad;
		return 0;
	}
	return ht_tensor_like(x, HT_F32, dst);
}

int ht_grad_done(struct ht_backend *be, struct ht_tensor *x,
		 struct ht_tensor *dst)
{
	struct hpu_tpc_tensor d[3];

	if (dst == x->grad) {
		x->grad_set = true;
		return 0;
	}
	ht_tensor_desc(dst, &d[0]);
	ht_tensor_desc(x->grad, &d[1]);
	d[2] = d[1];
	return ht_backend_kernel(be, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
}

int ht_grad_beta(struct ht_backend *be, struct ht_tensor *x,
		 struct ht_tensor **g, float *beta)
{
	int ret = grad_alloc(be, x);

	if (ret)
		return ret;
	*g = x->grad;
	*beta = x->grad_set ? 1.0f : 0.0f;
	x->grad_set = true;
	return 0;
}

int ht_grad_axpy(struct ht_backend *be, struct ht_tensor *x, float alpha,
		 const struct hpu_tpc_tensor *src)
{
	struct hpu_tpc_tensor d[3];
	uint32_t p = ht_f2u(alpha);
	int ret = grad_alloc(be, x);

	if (ret)
		return ret;
	d[0] = *src;
	ht_tensor_desc(x->grad, &d[1]);
	if (!x->grad_set) {
		x->grad_set = true;
		return ht_backend_kernel(be, HPU_TPC_KERNEL_SCALE, d, 2, &p, 1);
	}
	d[2] = d[1];
	return ht_backend_kernel(be, HPU_TPC_KERNEL_AXPY, d, 3, &p, 1);
}

/* A contribution to @x is done: fire its hook when it was the last */
static int contributed(struct ht_backend *be, struct ht_tensor *x)
{
	if (!x->pending || --x->pending)
		return 0;
	if (x->hook && x->grad_set)
		return x->hook(be, x, x->hook_arg);
	return 0;
}

int ht_backward(struct ht_tensor *loss)
{
	struct ht_backend *be = loss->be;
	struct ht_tape *tp = be->tape;
	struct ht_node *n;
	unsigned int i, k;
	int ret;

	if (!tp || !loss->requires_grad || loss->numel != 1) {
		ht_seterr(be->err, sizeof(be->err),
			  "backward: the loss is not a recorded scalar");
		return -EINVAL;
	}
	for (i = 0; i < tp->n; i++)
		for (k = 0; k < tp->nodes[i].nin; k++)
			if (tp->nodes[i].in[k])
				tp->nodes[i].in[k]->pending = 0;
	for (i = 0; i < tp->n; i++)
		for (k = 0; k < tp->nodes[i].nin; k++)
			if (tp->nodes[i].in[k])
				tp->nodes[i].in[k]->pending++;

	ret = grad_alloc(be, loss);
	if (!ret)
		ret = ht_tensor_fill(loss->grad, 1.0f);
	if (ret)
		return ret;
	loss->grad_set = true;
	loss->grad_one = true;
	for (i = tp->n; i-- > 0;) {
		n = &tp->nodes[i];
		if (!n->out->grad_set) {
			/* nothing flowed here: its inputs get nothing from it */
			for (k = 0; k < n->nin; k++)
				if (n->in[k] &&
				    (ret = contributed(be, n->in[k])))
					return ret;
			continue;
		}
		ret = n->backward(be, n);
		if (ret) {
			if (!be->err[0])
				ht_seterr(be->err, sizeof(be->err),
					  "backward of %s failed", n->name);
			return ret;
		}
		for (k = 0; k < n->nin; k++)
			if (n->in[k] && (ret = contributed(be, n->in[k])))
				return ret;
	}
	return 0;
}
