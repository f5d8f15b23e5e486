/* SPDX-License-Identifier: MIT */
/*
 * ht_module.h - the LightningModule idea in C (docs/training.md): a
 * module builds its parameters, says what a training and a validation
 * step compute, and configures its optimizers; ht_module_train_step()
 * runs one step (upload, forward, backward, every optimizer) as one
 * program on the backend.
 */
#ifndef HT_MODULE_H
#define HT_MODULE_H

#include "ht_backend.h"
#include "ht_optim.h"
#include "ht_rng.h"
#include "ht_tensor.h"

#define HT_MODULE_MAX_PARAMS 128
#define HT_MODULE_MAX_OPTIMS 4

struct ht_module;

/**
 * struct ht_module_ops - what a module does
 * @name: model name
 * @build: create the parameters (ht_module_param()) and set their
 *	initial values from @m->rng
 * @forward: logits [N][classes] of a batch
 * @training_step: the loss of a batch (NULL: cross-entropy of @forward)
 * @validation_step: loss and correct count (NULL: cross-entropy and
 *	accuracy of @forward)
 * @configure_optimizers: add optimizers with ht_module_add_optim()
 * @destroy: free @m->priv (NULL when nothing to free)
 */
struct ht_module_ops {
	const char *name;
	int (*build)(struct ht_module *m);
	int (*forward)(struct ht_module *m, struct ht_tensor *x,
		       struct ht_tensor **logits);
	int (*training_step)(struct ht_module *m, struct ht_tensor *x,
			     struct ht_tensor *y, struct ht_tensor **loss);
	int (*validation_step)(struct ht_module *m, struct ht_tensor *x,
			       struct ht_tensor *y, struct ht_tensor **loss,
			       struct ht_tensor **correct);
	int (*configure_optimizers)(struct ht_module *m);
	void (*destroy)(struct ht_module *m);
};

/**
 * struct ht_module - a model on a backend
 * @ops: its table
 * @be: backend
 * @priv: the model's own state
 * @rng: initialisation stream of the seed
 * @in_features: elements of one input sample
 * @in_dtype: HT_F32 (features) or HT_I32 (token ids)
 * @classes: logits per sample
 * @labels_per_sample: labels of one sample (1 for a classifier; the
 *	context length T of a language model, whose @forward returns
 *	[N][T][classes] logits and whose loss is the mean cross-entropy over
 *	the N*T positions); ht_module_create() sets 1
 * @clip_norm: > 0: the training step clips the gradients to this global
 *	L2 norm (ht_clip_grad_norm()) after the backward pass (and the DDP
 *	allreduce) and before the optimizers; 0: no clipping
 * @seed: the seed the module was created with
 * @step_seed: seed of the random ops (dropout) of the current training
 *	micro-step: the trainer sets it before each from the run's seed,
 *	the optimizer step, the micro-batch and the rank, so that a resumed
 *	run draws the same masks; ht_module_train_step() sets it from
 *	@seed and the first optimizer's step count
 * @params: parameters in creation order
 * @nparams: entries
 * @optims: optimizers
 * @noptims: entries
 */
struct ht_module {
	const struct ht_module_ops *ops;
	struct ht_backend *be;
	void *priv;
	struct ht_rng rng;
	uint32_t in_features;
	uint32_t in_dtype;
	uint32_t classes;
	uint32_t labels_per_sample;
	float clip_norm;
	uint64_t seed;
	uint64_t step_seed;
	struct ht_tensor *params[HT_MODULE_MAX_PARAMS];
	unsigned int nparams;
	struct ht_optim *optims[HT_MODULE_MAX_OPTIMS];
	unsigned int noptims;
};

/* How ht_module_param() initialises a parameter */
enum ht_init {
	HT_INIT_ZERO = 0,
	HT_INIT_ONE = 1,
	HT_INIT_UNIFORM_FAN_IN = 2, /* U(-1/sqrt(fan_in), +): PyTorch's */
	HT_INIT_NORMAL_002 = 3,	    /* N(0, 0.02^2), embeddings */
};

/**
 * ht_module_create() - build a module and configure its optimizers
 * @be: backend
 * @ops: the model
 * @priv: its state (owned by the module from now on, also on failure)
 * @in_features: elements of a sample
 * @in_dtype: HT_F32 or HT_I32
 * @classes: logits per sample
 * @seed: initialisation seed
 * @mp: receives the module
 *
 * Return: 0 or -errno (be->err says why).
 */
int ht_module_create(struct ht_backend *be, const struct ht_module_ops *ops,
		     void *priv, uint32_t in_features, uint32_t in_dtype,
		     uint32_t classes, uint64_t seed, struct ht_module **mp);

/** ht_module_destroy() - free a module, its parameters and optimizers */
void ht_module_destroy(struct ht_module *m);

/**
 * ht_module_param() - a parameter of the module
 * @m: module
 * @ndim: rank
 * @sizes: sizes
 * @init: enum ht_init
 * @fan_in: for HT_INIT_UNIFORM_FAN_IN
 * @out: receives it (persistent, requires_grad, is_param)
 *
 * Return: 0 or -errno.
 */
int ht_module_param(struct ht_module *m, unsigned int ndim,
		    const uint32_t *sizes, int init, uint32_t fan_in,
		    struct ht_tensor **out);

/**
 * ht_module_linear_params() - the weight [@out][@in] and bias [@out] of a
 * linear layer, both U(-1/sqrt(@in), +1/sqrt(@in)) as PyTorch's
 * @m: module
 * @out: output features
 * @in: input features
 * @w: receives the weight
 * @b: receives the bias
 *
 * Return: 0 or -errno.
 */
int ht_module_linear_params(struct ht_module *m, uint32_t out, uint32_t in,
			    struct ht_tensor **w, struct ht_tensor **b);

/**
 * ht_module_norm_params() - the gain (ones) and bias (zeros) [@d] of a
 * layer norm
 * @m: module
 * @d: features
 * @g: receives the gain
 * @b: receives the bias
 *
 * Return: 0 or -errno.
 */
int ht_module_norm_params(struct ht_module *m, uint32_t d, struct ht_tensor **g,
			  struct ht_tensor **b);

/**
 * ht_module_add_optim() - an optimizer of the module (from
 * configure_optimizers)
 * @m: module
 * @o: optimizer (owned by the module)
 *
 * Return: 0 or -ENOSPC.
 */
int ht_module_add_optim(struct ht_module *m, struct ht_optim *o);

/**
 * ht_module_train_step() - one training step
 * @m: module
 * @x: @n samples of @m->in_features elements (@m->in_dtype)
 * @y: @n x @m->labels_per_sample labels
 * @n: batch size
 * @loss: receives the step's loss (before the update)
 *
 * Return: 0 or -errno (be->err says why).
 */
int ht_module_train_step(struct ht_module *m, const void *x, const int32_t *y,
			 uint32_t n, float *loss);

/**
 * ht_module_eval_step() - one validation step (no gradients)
 * @m: module
 * @x: samples
 * @y: @n x @m->labels_per_sample labels
 * @n: batch size
 * @loss: receives the mean loss (over every label)
 * @correct: receives the number of correct predictions (of the
 *	@n x labels_per_sample)
 *
 * Return: 0 or -errno.
 */
int ht_module_eval_step(struct ht_module *m, const void *x, const int32_t *y,
			uint32_t n, float *loss, uint32_t *correct);

/**
 * ht_module_read_params() - every parameter's values, in order,
 * concatenated as fp32
 * @m: module
 * @dst: room for the sum of the parameters' elements
 *
 * Return: 0 or -errno.
 */
int ht_module_read_params(struct ht_module *m, float *dst);

/** ht_module_numel() - elements of all parameters */
uint64_t ht_module_numel(const struct ht_module *m);

/* Activations of the MLP */
enum ht_act {
	HT_ACT_RELU = 0,
	HT_ACT_GELU = 1,
	HT_ACT_TANH = 2,
};

#define HT_MLP_MAX_LAYERS 8

/**
 * struct ht_mlp_config - an MLP
 * @nsizes: entries of @sizes (2..HT_MLP_MAX_LAYERS + 1): input, hidden
 *	layers, classes
 * @sizes: layer widths
 * @act: enum ht_act between layers
 * @optim: enum ht_optim_kind for every parameter
 * @hp: its hyperparameters
 */
struct ht_mlp_config {
	unsigned int nsizes;
	uint32_t sizes[HT_MLP_MAX_LAYERS + 1];
	int act;
	int optim;
	struct ht_optim_hparams hp;
};

/**
 * ht_mlp_create() - an MLP: linear layers with @cfg->act between them
 * @be: backend
 * @cfg: configuration
 * @seed: initialisation seed
 * @mp: receives the module
 *
 * Return: 0 or -errno.
 */
int ht_mlp_create(struct ht_backend *be, const struct ht_mlp_config *cfg,
		  uint64_t seed, struct ht_module **mp);

/**
 * struct ht_mixer_config - the token model: each of @tokens int32 ids
 * (0..@vocab-1) is embedded, a position embedding added, then @blocks
 * residual blocks x + W2 gelu(W1 LN(x)), a final layer norm, the mean
 * over tokens and a linear classifier
 * @tokens: ids per sample (e.g. the 64 pixels of a digit)
 * @vocab: distinct ids (17 grey levels)
 * @dim: embedding width
 * @hidden: width inside a block
 * @blocks: residual blocks
 * @classes: logits
 * @lr_adamw: AdamW's learning rate (embeddings and norms)
 * @lr_sgd: SGD with momentum 0.9 (the linear layers)
 */
struct ht_mixer_config {
	uint32_t tokens;
	uint32_t vocab;
	uint32_t dim;
	uint32_t hidden;
	uint32_t blocks;
	uint32_t classes;
	float lr_adamw;
	float lr_sgd;
};

/**
 * ht_mixer_create() - the token model (two optimizers: AdamW for the
 * embeddings and norms, SGD with momentum for the linear layers)
 * @be: backend
 * @cfg: configuration
 * @seed: initialisation seed
 * @mp: receives the module
 *
 * Return: 0 or -errno.
 */
int ht_mixer_create(struct ht_backend *be, const struct ht_mixer_config *cfg,
		    uint64_t seed, struct ht_module **mp);

/**
 * ht_module_loss() - the training loss of a batch already on the backend:
 * @m->ops->training_step, or the cross-entropy of @m->ops->forward over
 * every label (logits flattened to [N * labels_per_sample][classes])
 * @m: module
 * @x: inputs [N][in_features]
 * @y: labels [N * labels_per_sample]
 * @loss: receives the scalar
 *
 * Return: 0 or -errno.
 */
int ht_module_loss(struct ht_module *m, struct ht_tensor *x,
		   struct ht_tensor *y, struct ht_tensor **loss);

/**
 * ht_module_clip() - clip the gradients to @m->clip_norm (no-op when 0)
 * @m: module
 *
 * Return: 0 or -errno.
 */
int ht_module_clip(struct ht_module *m);

/* HT_STR() - a number macro as a string */
#define HT_STR_(x) #x
#define HT_STR(x)  HT_STR_(x)

#define HT_GPT_MAX_LAYERS  8
#define HT_GPT_MAX_DIM	   1024
#define HT_GPT_MAX_CONTEXT 1024

/**
 * struct ht_gpt_config - a small GPT (model_gpt.c): token and position
 * embeddings, @layers pre-LN blocks (LN, causal self-attention with
 * @heads heads, residual; LN, Linear C->4C, GELU, Linear 4C->C,
 * residual), a final LN and the output projection
 * @vocab: token ids (256 for the byte tokenizer)
 * @context: positions T (the position table's rows)
 * @dim: width C, a multiple of @heads
 * @heads: attention heads
 * @layers: blocks, 1..HT_GPT_MAX_LAYERS
 * @tied: the output projection is the token embedding (else a [V][C]
 *	matrix of its own)
 * @dropout: dropout probability in [0, 1) where GPT-2 applies it (the
 *	embeddings' sum, the attention probabilities, the attention output
 *	projection and the MLP output); training steps only
 * @lr: AdamW learning rate
 * @weight_decay: AdamW decoupled decay of the matrices (biases, norms and
 *	embeddings are a second group without decay)
 * @beta1: AdamW
 * @beta2: AdamW
 * @eps: AdamW
 * @clip_norm: gradient clipping by global norm (0: none)
 */
struct ht_gpt_config {
	uint32_t vocab;
	uint32_t context;
	uint32_t dim;
	uint32_t heads;
	uint32_t layers;
	bool tied;
	float dropout;
	float lr;
	float weight_decay;
	float beta1;
	float beta2;
	float eps;
	float clip_norm;
};

/**
 * ht_gpt_check() - is a configuration valid
 * @c: configuration
 * @why: receives a message (static) when not, or NULL
 *
 * Return: 0 or -EINVAL.
 */
int ht_gpt_check(const struct ht_gpt_config *c, const char **why);

/**
 * ht_gpt_create() - the GPT (one AdamW with two decay groups; labels per
 * sample = @cfg->context; clip_norm from @cfg)
 * @be: backend
 * @cfg: configuration (ht_gpt_check())
 * @seed: initialisation seed
 * @mp: receives the module
 *
 * Return: 0 or -errno.
 */
int ht_gpt_create(struct ht_backend *be, const struct ht_gpt_config *cfg,
		  uint64_t seed, struct ht_module **mp);

#endif /* HT_MODULE_H */
