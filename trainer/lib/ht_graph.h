/* SPDX-License-Identifier: MIT */
/*
 * ht_graph.h - reverse-mode autodiff: the tape of a step's ops and the
 * helpers the ops' backward rules share (docs/training.md, Autograd)
 *
 * An op whose inputs require a gradient records a node: its inputs, its
 * output, the tensors its backward rule needs and a few scalars.
 * ht_backward() walks the nodes in reverse; each rule issues ops on the
 * same backend as the forward pass (so backward runs on the device, in
 * the same program). A gradient is overwritten by its first contribution
 * and accumulated into by the later ones (GEMM beta = 1, TPC add), so no
 * gradient is ever zero-filled. Gradients are fp32 whatever the tensor's
 * dtype.
 */
#ifndef HT_GRAPH_H
#define HT_GRAPH_H

#include "ht_backend.h"
#include "ht_tensor.h"

#define HT_NODE_MAX_IN	  3
#define HT_NODE_MAX_SAVED 4

struct ht_node;

/* A backward rule: contribute to the gradients of the node's inputs */
typedef int (*ht_backward_fn)(struct ht_backend *be, struct ht_node *n);

/**
 * struct ht_node - one recorded op
 * @backward: its rule
 * @name: op name, for messages
 * @in: inputs (NULL for those that need no gradient)
 * @nin: entries of @in
 * @out: output
 * @saved: tensors the rule needs
 * @f: real scalars the rule needs
 * @u: integer scalars the rule needs
 */
struct ht_node {
	ht_backward_fn backward;
	const char *name;
	struct ht_tensor *in[HT_NODE_MAX_IN];
	unsigned int nin;
	struct ht_tensor *out;
	struct ht_tensor *saved[HT_NODE_MAX_SAVED];
	float f[2];
	uint32_t u[2];
};

/**
 * ht_needs_grad() - whether an op on these inputs must be recorded
 * @be: backend (its grad_enabled)
 * @in: inputs (NULL entries are skipped)
 * @n: entries
 */
bool ht_needs_grad(const struct ht_backend *be, struct ht_tensor *const *in,
		   unsigned int n);

/**
 * ht_tape_record() - record an op whose inputs need a gradient
 * @be: backend
 * @name: op name
 * @fn: its backward rule
 * @out: its output (gets requires_grad)
 * @in: inputs; those without requires_grad are stored as NULL
 * @nin: entries, <= HT_NODE_MAX_IN
 * @np: receives the node, to fill in saved tensors and scalars
 *
 * Return: 0 or -ENOMEM.
 */
int ht_tape_record(struct ht_backend *be, const char *name, ht_backward_fn fn,
		   struct ht_tensor *out, struct ht_tensor *const *in,
		   unsigned int nin, struct ht_node **np);

/**
 * ht_tape_unary() - record a one-input op when its input needs a gradient
 * @be: backend
 * @name: op name
 * @fn: its backward rule
 * @x: the input
 * @out: its output (gets requires_grad when recorded)
 * @np: receives the node to fill in, NULL when nothing was recorded; may
 *	be NULL
 *
 * Return: 0 or ht_tape_record()'s failure.
 */
int ht_tape_unary(struct ht_backend *be, const char *name, ht_backward_fn fn,
		  struct ht_tensor *x, struct ht_tensor *out,
		  struct ht_node **np);

/** ht_tape_reset() - forget the recorded nodes (step boundary) */
void ht_tape_reset(struct ht_backend *be);

/** ht_tape_free() - release the tape */
void ht_tape_free(struct ht_backend *be);

/**
 * ht_backward() - gradients of a scalar loss with respect to every tensor
 * that requires one
 * @loss: the loss (one element, fp32)
 *
 * Seeds dloss = 1, runs the rules in reverse order and calls each
 * parameter's hook once its gradient is final. Parameter gradients
 * accumulate over calls until ht_zero_grad().
 *
 * Return: 0, -EINVAL (@loss not a recorded scalar) or -errno.
 */
int ht_backward(struct ht_tensor *loss);

/**
 * ht_zero_grad() - the next backward pass overwrites these gradients
 * @params: parameters
 * @n: entries
 */
void ht_zero_grad(struct ht_tensor *const *params, unsigned int n);

/**
 * ht_set_grad_hook() - call @fn when @param's gradient is final
 * @param: a parameter
 * @fn: hook or NULL to remove it
 * @arg: its argument
 */
void ht_set_grad_hook(struct ht_tensor *param, ht_grad_hook_fn fn, void *arg);

/**
 * ht_grad_dst() - where a rule writes (overwrites) a contribution to
 * @x's gradient: @x->grad itself for the first contribution, else a
 * temporary that ht_grad_done() adds in
 * @be: backend
 * @x: input
 * @dst: receives the tensor to write (fp32, @x's shape)
 *
 * Return: 0 or -ENOMEM.
 */
int ht_grad_dst(struct ht_backend *be, struct ht_tensor *x,
		struct ht_tensor **dst);

/**
 * ht_grad_done() - finish a contribution written to ht_grad_dst()'s tensor
 * @be: backend
 * @x: input
 * @dst: that tensor
 *
 * Return: 0 or -errno.
 */
int ht_grad_done(struct ht_backend *be, struct ht_tensor *x,
		 struct ht_tensor *dst);

/**
 * ht_grad_beta() - @x's gradient for a GEMM that accumulates itself:
 * beta 0 for the first contribution, 1 after
 * @be: backend
 * @x: input
 * @g: receives @x->grad (allocated when needed)
 * @beta: receives 0 or 1
 *
 * The contribution counts as written when the call returns.
 *
 * Return: 0 or -ENOMEM.
 */
int ht_grad_beta(struct ht_backend *be, struct ht_tensor *x,
		 struct ht_tensor **g, float *beta);

/**
 * ht_grad_axpy() - add alpha * @src (broadcast to @x's shape) to @x's
 * gradient (a TPC scale for the first contribution, an axpy after)
 * @be: backend
 * @x: input
 * @alpha: factor
 * @src: descriptor of the source, broadcastable to @x
 *
 * Return: 0 or -errno.
 */
int ht_grad_axpy(struct ht_backend *be, struct ht_tensor *x, float alpha,
		 const struct hpu_tpc_tensor *src);

#endif /* HT_GRAPH_H */
