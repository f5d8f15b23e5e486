/* SPDX-License-Identifier: MIT */
/*
 * ht_ops.h - tensor ops with their backward rules (docs/training.md)
 *
 * Every op allocates its output from the step arena, issues its work on
 * the backend (MME GEMM or TPC kernels) and, when an input requires a
 * gradient and gradients are enabled, records itself on the tape.
 * Shapes are row-major, dimension 0 outermost. Each returns 0 or a
 * negative errno (be->err says what was wrong).
 */
#ifndef HT_OPS_H
#define HT_OPS_H

#include "ht_backend.h"
#include "ht_tensor.h"

/* Layer norm epsilon used by ht_layer_norm() callers that have no other */
#define HT_LN_EPS 1e-5f

/**
 * ht_linear() - y = x W^T + b
 * @x: [..][in] (fp32, or bf16)
 * @w: [out][in]
 * @b: [out] or NULL
 * @y: receives [..][out] fp32
 *
 * Under bf16-mixed precision x and W are cast to bf16 copies first (the
 * casts are ops of their own) and the GEMM writes fp32. Backward: dx =
 * dy W, dW = dy^T x (MME, op(A) transposed), db = bias_grad(dy).
 *
 * Return: 0 or -errno.
 */
int ht_linear(struct ht_tensor *x, struct ht_tensor *w, struct ht_tensor *b,
	      struct ht_tensor **y);

/** ht_relu() - y = max(x, 0); backward relu_bwd */
int ht_relu(struct ht_tensor *x, struct ht_tensor **y);

/** ht_gelu() - tanh-approximated GELU; backward gelu_bwd */
int ht_gelu(struct ht_tensor *x, struct ht_tensor **y);

/**
 * ht_bias_gelu() - y = gelu(x + b): a linear's bias and the activation
 *	after it, in one kernel
 * @x: [..][C] fp32 (a projection without its bias)
 * @b: [C] fp32
 * @y: receives x's shape: the bits of ht_linear()'s bias add then ht_gelu()
 *
 * TPC bias_gelu. Inference only: -EOPNOTSUPP when an input needs a
 * gradient.
 *
 * Return: 0 or -errno (be->err says why).
 */
int ht_bias_gelu(struct ht_tensor *x, struct ht_tensor *b,
		 struct ht_tensor **y);

/** ht_tanh() - y = tanh(x); backward tanh_bwd (from y) */
int ht_tanh(struct ht_tensor *x, struct ht_tensor **y);

/**
 * ht_add() - y = a + b, @b broadcast along @a's leading dimensions
 * @a: tensor
 * @b: a's shape, or a's trailing dimensions (e.g. a position
 *	embedding [T][D] added to [B][T][D])
 * @y: receives a's shape
 *
 * Backward: da = dy; db = dy summed over the broadcast dimensions.
 *
 * Return: 0 or -errno.
 */
int ht_add(struct ht_tensor *a, struct ht_tensor *b, struct ht_tensor **y);

/**
 * ht_layer_norm() - normalize over the innermost dimension
 * @x: [..][D] fp32
 * @gamma: [D]
 * @beta: [D]
 * @eps: > 0
 * @y: receives x's shape
 *
 * Return: 0 or -errno.
 */
int ht_layer_norm(struct ht_tensor *x, struct ht_tensor *gamma,
		  struct ht_tensor *beta, float eps, struct ht_tensor **y);

/**
 * ht_bias_residual_layer_norm() - a decode step's residual joint: the
 *	stream plus a projection and its bias, and the next layer norm
 * @y: [..][D] fp32, a projection without its bias (ht_linear(.., NULL))
 * @b: [D], the projection's bias
 * @h: the residual stream, @y's shape
 * @gamma: [D]
 * @beta: [D]
 * @eps: > 0
 * @h_out: receives h + (y + b), the bits of ht_linear()'s bias add then
 *	ht_add()
 * @out: receives ht_layer_norm(*@h_out, gamma, beta, eps), its bits
 *
 * One TPC bias_residual_ln in place of three kernels. Inference only:
 * -EOPNOTSUPP when an input needs a gradient.
 *
 * Return: 0 or -errno (be->err says why).
 */
int ht_bias_residual_layer_norm(struct ht_tensor *y, struct ht_tensor *b,
				struct ht_tensor *h, struct ht_tensor *gamma,
				struct ht_tensor *beta, float eps,
				struct ht_tensor **h_out,
				struct ht_tensor **out);

/**
 * ht_embedding() - rows of a table
 * @table: [V][D] fp32
 * @ids: int32, any shape; each id in 0..V-1 (else the kernel fails)
 * @y: receives [ids' shape][D]
 *
 * Backward: scatter-add into the table's gradient.
 *
 * Return: 0 or -errno.
 */
int ht_embedding(struct ht_tensor *table, struct ht_tensor *ids,
		 struct ht_tensor **y);

/**
 * ht_mean_axis() - mean over one dimension (e.g. the tokens)
 * @x: fp32, rank >= 2
 * @axis: 0..x->ndim-1
 * @y: receives x's shape without @axis
 *
 * Return: 0 or -errno.
 */
int ht_mean_axis(struct ht_tensor *x, unsigned int axis, struct ht_tensor **y);

/**
 * ht_cross_entropy() - mean softmax cross-entropy (fused)
 * @logits: [N][C] fp32
 * @labels: [N] int32
 * @loss: receives a scalar fp32
 *
 * Return: 0 or -errno.
 */
int ht_cross_entropy(struct ht_tensor *logits, struct ht_tensor *labels,
		     struct ht_tensor **loss);

/**
 * ht_accuracy() - count of rows whose argmax is the label (no gradient)
 * @logits: [N][C] fp32
 * @labels: [N] int32
 * @count: receives a scalar int32
 *
 * Return: 0 or -errno.
 */
int ht_accuracy(struct ht_tensor *logits, struct ht_tensor *labels,
		struct ht_tensor **count);

/**
 * ht_cast() - convert to another dtype (fp32 <-> bf16, int32 -> fp32)
 * @x: tensor
 * @dtype: target
 * @y: receives the copy
 *
 * Backward: the gradient passes through unchanged (gradients are fp32).
 *
 * Return: 0 or -errno.
 */
int ht_cast(struct ht_tensor *x, uint32_t dtype, struct ht_tensor **y);

/**
 * ht_as_dtype() - @x itself when it already has @dtype, else ht_cast()
 * @x: tensor
 * @dtype: wanted dtype
 * @y: receives @x (no new reference) or the cast copy
 *
 * For ops that feed the MME, which takes one dtype for A and B. The
 * caller frees *@y only when it differs from @x.
 *
 * Return: 0 or -errno.
 */
int ht_as_dtype(struct ht_tensor *x, uint32_t dtype, struct ht_tensor **y);

/**
 * ht_reshape() - the same elements with another shape (no copy)
 * @x: tensor
 * @ndim: rank
 * @sizes: sizes; their product must be x->numel
 * @y: receives the view; its gradient is copied back to x's
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ht_reshape(struct ht_tensor *x, unsigned int ndim, const uint32_t *sizes,
	       struct ht_tensor **y);

/**
 * ht_kernel_t() - issue a TPC kernel on tensors (no autograd)
 * @id: HPU_TPC_KERNEL_*
 * @t: operands
 * @nt: count (1..HPU_TPC_MAX_TENSORS)
 * @params: parameters or NULL
 * @np: count
 *
 * Return: 0 or -errno.
 */
int ht_kernel_t(uint32_t id, struct ht_tensor *const *t, unsigned int nt,
		const uint32_t *params, unsigned int np);

/**
 * ht_dropout() - inverted dropout (TPC dropout kernel)
 * @x: fp32 or bf16, any shape
 * @p: probability of zeroing an element, 0 <= @p < 1
 * @seed: the mask's 64-bit seed (ht_dropout_seed()); one mask per seed
 * @y: receives x's shape: x * mask, mask = 0 with probability @p, else
 *	1 / (1 - @p); @x itself when @p is 0 or gradients are disabled
 *	(validation, generation)
 *
 * The mask is a pure function of @seed and the element's linear index
 * (docs/tpc-kernels.md, kernel 34): the same bits on every backend and
 * in every mode. @seed is a dynamic parameter: a replayed graph takes
 * its current value and draws a new mask. Backward: dx = dy * mask (the
 * fp32 mask of the forward pass is kept in the step arena).
 *
 * Return: 0 or -EINVAL (bad @p or an int32 @x), -ENOMEM.
 */
int ht_dropout(struct ht_tensor *x, float p, uint64_t seed,
	       struct ht_tensor **y);

/**
 * ht_dropout_seed() - the seed of one dropout site in one step
 * @seed: the run's seed
 * @a: e.g. the step's index (with the rank and micro-batch mixed in)
 * @b: e.g. the site's index in the model
 *
 * Return: splitmix64's finalizer of the three mixed.
 */
uint64_t ht_dropout_seed(uint64_t seed, uint64_t a, uint64_t b);

/* ht_bmm() flags: the operand is stored transposed */
#define HT_BMM_TRANS_A 0x1
#define HT_BMM_TRANS_B 0x2

/**
 * ht_bmm() - batched matrix product on the MME: y[i] = op(a[i]) op(b[i])
 * @a: [..][M][K] fp32 or bf16 ([..][K][M] with HT_BMM_TRANS_A)
 * @b: [..][K][N] ([..][N][K] with HT_BMM_TRANS_B), the leading sizes of @a
 * @flags: HT_BMM_TRANS_A, HT_BMM_TRANS_B
 * @y: receives [..][M][N] fp32
 *
 * One MME_GEMM with batch = the product of the leading sizes and the
 * packed matrices' batch strides. Under bf16-mixed precision (or a bf16
 * operand) both operands are cast to bf16 first, as ht_linear() does.
 * Backward: one batched GEMM per input (dA = dY op(B)^T, dB = op(A)^T dY,
 * read in the layouts the operands are stored in).
 *
 * Return: 0 or -errno (-EINVAL: shapes, be->err says so).
 */
int ht_bmm(struct ht_tensor *a, struct ht_tensor *b, uint32_t flags,
	   struct ht_tensor **y);

/**
 * ht_causal_softmax() - scaled softmax of attention scores under the
 * causal mask (TPC softmax_causal; no mask tensor)
 * @x: scores [..][Tq][Tk] fp32; row q is the query at position
 *	@offset + q, which sees keys 0..@offset + q
 * @scale: factor of the scores (finite, > 0; 1/sqrt(head dim))
 * @offset: position of the first query; @offset + Tq <= Tk (0 in
 *	training; the token's position in a decode step over a key/value
 *	cache of Tk slots)
 * @y: receives x's shape; masked entries are 0
 *
 * @offset is a dynamic parameter: a replayed graph takes its current
 * value. Backward: softmax_causal_bwd (dx = scale * y * (dy - sum y*dy)).
 *
 * Return: 0 or -errno.
 */
int ht_causal_softmax(struct ht_tensor *x, float scale, uint32_t offset,
		      struct ht_tensor **y);

/**
 * ht_split_heads() - columns of [B][T][C] as heads [B][H][T][D]
 * @x: [B][T][C] fp32
 * @col0: first column taken (0, C or 2C of a fused q/k/v projection)
 * @heads: H, >= 1
 * @head_dim: D, >= 1; @col0 + H * D <= C
 * @y: receives [B][H][T][D] (a [B*H][T][D] batch for ht_bmm())
 *
 * A TPC copy through permuted strides; a view of x's columns when they
 * are the heads' bytes already (T == 1 and B == 1: a decode step's
 * token). Backward: the inverse copy into the columns of x's gradient
 * (zeros elsewhere on the first contribution, an in-place add on later
 * ones).
 *
 * Return: 0 or -errno.
 */
int ht_split_heads(struct ht_tensor *x, uint32_t col0, uint32_t heads,
		   uint32_t head_dim, struct ht_tensor **y);

/**
 * ht_merge_heads() - heads [B][H][T][D] back to [B][T][H*D]
 * @x: [B][H][T][D] fp32
 * @y: receives [B][T][H*D]
 *
 * A TPC copy through permuted strides; a view of x when T == 1 (the
 * bytes are the same). Backward: the inverse copy.
 *
 * Return: 0 or -errno.
 */
int ht_merge_heads(struct ht_tensor *x, struct ht_tensor **y);

/**
 * ht_kv_cache_write() - store a step's keys or values in a cache
 * @cache: [..][slots][D] (fp32 or bf16), persistent, zeroed before use
 *	(P.V reads every slot)
 * @src: [..][T][D], @cache's dtype and other sizes
 * @pos: slot of src's first row; @pos + T <= slots
 *
 * cache[.., pos + t, :] = src[.., t, :] (TPC kv_cache_write). @pos is a
 * dynamic parameter: a decode step captured as a graph writes the next
 * slot at every replay. No gradient (inference).
 *
 * Return: 0 or -EINVAL (be->err says why).
 */
int ht_kv_cache_write(struct ht_tensor *cache, struct ht_tensor *src,
		      uint32_t pos);

/**
 * ht_kv_cache_write_heads() - store the heads of a step's projection's
 *	columns in a cache, without splitting them first
 * @cache: [B][H][slots][D] as for ht_kv_cache_write()
 * @x: [B][T][C] fp32 (the fused q/k/v projection), @cache's dtype
 * @col0: first column of the heads (C/3 for the keys, 2C/3 the values);
 *	@col0 + H * D <= C
 * @pos: slot of the step's first token; @pos + T <= slots
 *
 * The same bytes as ht_split_heads() then ht_kv_cache_write(), in one
 * TPC kv_cache_write reading x through strides (no copy of the heads).
 * No gradient (inference).
 *
 * Return: 0 or -EINVAL (be->err says why).
 */
int ht_kv_cache_write_heads(struct ht_tensor *cache, struct ht_tensor *x,
			    uint32_t col0, uint32_t pos);

/**
 * struct ht_attn_params - the weights of a causal self-attention block
 * @heads: H; C (x's innermost size) must be a multiple of it
 * @w_qkv: [3C][C], the q, k and v projections stacked
 * @b_qkv: [3C] or NULL
 * @w_out: [C][C], the output projection
 * @b_out: [C] or NULL
 * @dropout: dropout of the attention probabilities (0: none)
 * @seed: its mask's seed (ht_dropout())
 */
struct ht_attn_params {
	uint32_t heads;
	struct ht_tensor *w_qkv;
	struct ht_tensor *b_qkv;
	struct ht_tensor *w_out;
	struct ht_tensor *b_out;
	float dropout;
	uint64_t seed;
};

/**
 * ht_causal_self_attention() - multi-head causal self-attention
 * @x: [B][T][C] fp32
 * @p: weights
 * @y: receives [B][T][C]
 *
 * qkv = x W_qkv^T + b; q, k, v = its three column blocks split into heads;
 * y = merge(dropout(softmax_causal(q k^T / sqrt(D))) v) W_out^T + b_out
 * (dropout with @p->dropout and @p->seed, none when 0). Every
 * piece is an op of its own with its backward rule.
 *
 * Return: 0 or -errno.
 */
int ht_causal_self_attention(struct ht_tensor *x,
			     const struct ht_attn_params *p,
			     struct ht_tensor **y);

#endif /* HT_OPS_H */
