/* SPDX-License-Identifier: MIT */
/*
 * ht_optim.h - optimizers on the TPC kernels: SGD (momentum, weight
 * decay, Nesterov: sgd_step) and AdamW (adamw_step), with parameter
 * groups; a module may hold several optimizers (docs/training.md).
 *
 * State (momentum buffers, first and second moments) is persistent and
 * zeroed when a group is added, outside any step, so a captured graph
 * holds only the updates. The learning rate and AdamW's step count are
 * dynamic parameters: a replayed graph takes their current values.
 */
#ifndef HT_OPTIM_H
#define HT_OPTIM_H

#include "ht_backend.h"
#include "ht_tensor.h"

enum ht_optim_kind {
	HT_OPTIM_SGD = 0,
	HT_OPTIM_ADAMW = 1,
};

/**
 * struct ht_optim_hparams - hyperparameters of a parameter group
 * @lr: learning rate
 * @momentum: SGD momentum (0: none)
 * @weight_decay: SGD: L2 added to the gradient; AdamW: decoupled
 * @nesterov: SGD Nesterov momentum
 * @beta1: AdamW
 * @beta2: AdamW
 * @eps: AdamW
 */
struct ht_optim_hparams {
	float lr;
	float momentum;
	float weight_decay;
	bool nesterov;
	float beta1;
	float beta2;
	float eps;
};

struct ht_optim;

/**
 * ht_optim_new() - an optimizer without groups
 * @be: backend
 * @kind: enum ht_optim_kind
 * @op: receives it
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ht_optim_new(struct ht_backend *be, int kind, struct ht_optim **op);

/**
 * ht_optim_add_group() - add parameters with their hyperparameters
 * @o: optimizer
 * @params: fp32 parameters (the optimizer keeps the pointers)
 * @n: entries
 * @h: hyperparameters
 *
 * Allocates and zeroes the group's state (call it outside a step).
 *
 * Return: 0, -EINVAL, -ENOMEM or -errno.
 */
int ht_optim_add_group(struct ht_optim *o, struct ht_tensor *const *params,
		       unsigned int n, const struct ht_optim_hparams *h);

/**
 * ht_optim_set_lr() - learning rate of every group
 * @o: optimizer
 * @lr: value
 */
void ht_optim_set_lr(struct ht_optim *o, float lr);

/**
 * ht_optim_step() - update every parameter that has a gradient
 * @o: optimizer
 *
 * Return: 0 or -errno.
 */
int ht_optim_step(struct ht_optim *o);

/**
 * ht_optim_zero_grad() - the next backward pass overwrites the gradients
 * of the optimizer's parameters
 * @o: optimizer
 */
void ht_optim_zero_grad(struct ht_optim *o);

/** ht_optim_steps() - updates done so far */
uint32_t ht_optim_steps(const struct ht_optim *o);

/**
 * ht_optim_set_steps() - set the update count (a resumed run's; AdamW's
 * bias correction uses it)
 * @o: optimizer
 * @steps: updates done
 */
void ht_optim_set_steps(struct ht_optim *o, uint32_t steps);

/** ht_optim_lr() - learning rate of the first group (0 without groups) */
float ht_optim_lr(const struct ht_optim *o);

/**
 * ht_optim_nstate() - state tensors of @o (momentum buffers, moments), in
 * a fixed order, for checkpoints
 * @o: optimizer
 *
 * Return: the count.
 */
unsigned int ht_optim_nstate(const struct ht_optim *o);

/**
 * ht_optim_state() - state tensor @i of @o (fp32, persistent)
 * @o: optimizer
 * @i: 0 .. ht_optim_nstate() - 1
 *
 * Return: the tensor, or NULL past the end.
 */
struct ht_tensor *ht_optim_state(const struct ht_optim *o, unsigned int i);

/**
 * ht_clip_grad_norm() - scale gradients so that their global L2 norm is at
 * most @max_norm (PyTorch's clip_grad_norm_), on the device
 * @params: parameters; those without a gradient in this step are skipped
 * @n: entries, >= 1
 * @max_norm: finite, > 0
 * @norm: receives a step scalar (fp32) holding the norm before clipping,
 *	to fetch or read like a loss
 *
 * One TPC sumsq kernel per 7 gradients (the sum of squares in double,
 * gradient after gradient, rounded to fp32 once per kernel), then one
 * clip_grad_norm kernel per 6 gradients: g *= min(1, max_norm / (norm +
 * 1e-6)). A non-finite norm is not an error: an infinite norm zeroes the
 * finite gradients and a NaN norm makes them NaN, as in PyTorch. Call it
 * after the backward pass (under DDP, once the gradients are all-reduced)
 * and before ht_optim_step().
 *
 * Return: 0, -EINVAL (be->err says why) or -errno.
 */
int ht_clip_grad_norm(struct ht_tensor *const *params, unsigned int n,
		      float max_norm, struct ht_tensor **norm);

/* enum ht_lr_kind - the learning rate after the warm-up */
enum ht_lr_kind {
	HT_LR_CONSTANT = 0, /* the group's own lr */
	HT_LR_COSINE = 1,   /* cosine decay to lr_min at total_steps */
};

/**
 * struct ht_lr_schedule - a learning-rate schedule (Lightning users write
 * it as a LambdaLR or a warm-up plus CosineAnnealingLR)
 * @kind: enum ht_lr_kind
 * @warmup_steps: linear warm-up over the first W updates: update s
 *	(0-based) uses base * (s + 1) / W (0: none)
 * @total_steps: updates of the whole run (the cosine reaches @lr_min
 *	there); >= 1 for HT_LR_COSINE
 * @lr_min: the cosine's floor (a group whose own lr is lower keeps it)
 */
struct ht_lr_schedule {
	int kind;
	uint64_t warmup_steps;
	uint64_t total_steps;
	float lr_min;
};

/**
 * ht_lr_at() - the learning rate of update @step under @s
 * @s: schedule
 * @base: the group's own learning rate
 * @step: updates done before this one (0 for the first)
 *
 * Warm-up: base * (step + 1) / W for step < W. Then HT_LR_CONSTANT: base;
 * HT_LR_COSINE: m + (base - m) * (1 + cos(pi * p)) / 2 with m =
 * min(lr_min, base) and p = (step - W) / (total - W) clamped to [0, 1].
 * Computed in double, rounded once to fp32.
 *
 * Return: the learning rate.
 */
float ht_lr_at(const struct ht_lr_schedule *s, float base, uint64_t step);

/**
 * ht_optim_schedule() - set every group's learning rate for update @step
 * from its own (the one it was added with) under @s
 * @o: optimizer
 * @s: schedule
 * @step: updates done before this one
 *
 * The learning rate is a dynamic parameter of the update kernels: a
 * replayed graph takes the scheduled value.
 */
void ht_optim_schedule(struct ht_optim *o, const struct ht_lr_schedule *s,
		       uint64_t step);

/** ht_optim_free() - release an optimizer (@o may be NULL) */
void ht_optim_free(struct ht_optim *o);

#endif /* HT_OPTIM_H */
