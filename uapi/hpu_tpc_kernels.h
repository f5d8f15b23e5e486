/* SPDX-License-Identifier: MIT */
/*
 * hpu_tpc_kernels.h - the TPC kernel library: kernel ids of
 * struct hpu_pkt_tpc_kernel.kernel_id
 *
 * Each kernel's operands (tensor order, shapes, dtypes) and parameters are
 * documented in docs/tpc-kernels.md; the driver validates every kernel's
 * descriptors against those rules before execution. Kernels are
 * deterministic: the same inputs give bit-identical outputs, whatever the
 * thread count.
 */
#ifndef HPU_UAPI_TPC_KERNELS_H
#define HPU_UAPI_TPC_KERNELS_H

#define HPU_TPC_KERNEL_FILL		  1 /* out = value */
#define HPU_TPC_KERNEL_COPY		  2 /* out = in (strided) */
#define HPU_TPC_KERNEL_CAST		  3 /* fp32 <-> bf16 (RNE), int32 */
#define HPU_TPC_KERNEL_ADD		  4 /* out = a + b (broadcast) */
#define HPU_TPC_KERNEL_SUB		  5 /* out = a - b */
#define HPU_TPC_KERNEL_MUL		  6 /* out = a * b */
#define HPU_TPC_KERNEL_DIV		  7 /* out = a / b */
#define HPU_TPC_KERNEL_SCALE		  8 /* out = alpha * a */
#define HPU_TPC_KERNEL_AXPY		  9 /* out = alpha * x + y */
#define HPU_TPC_KERNEL_RELU		  10
#define HPU_TPC_KERNEL_RELU_BWD		  11
#define HPU_TPC_KERNEL_GELU		  12
#define HPU_TPC_KERNEL_GELU_BWD		  13
#define HPU_TPC_KERNEL_TANH		  14
#define HPU_TPC_KERNEL_TANH_BWD		  15
#define HPU_TPC_KERNEL_SIGMOID		  16
#define HPU_TPC_KERNEL_SIGMOID_BWD	  17
#define HPU_TPC_KERNEL_EXP		  18
#define HPU_TPC_KERNEL_LOG		  19
#define HPU_TPC_KERNEL_BIAS_ADD		  20 /* out[r][c] = in[r][c] + b[c] */
#define HPU_TPC_KERNEL_BIAS_GRAD	  21 /* db[c] = sum_r dout[r][c] */
#define HPU_TPC_KERNEL_REDUCE_SUM	  22 /* over one axis */
#define HPU_TPC_KERNEL_REDUCE_MEAN	  23
#define HPU_TPC_KERNEL_REDUCE_MAX	  24
#define HPU_TPC_KERNEL_SOFTMAX		  25 /* over the innermost axis */
#define HPU_TPC_KERNEL_LOG_SOFTMAX	  26
#define HPU_TPC_KERNEL_XENT_FWD		  27 /* cross-entropy, int32 labels */
#define HPU_TPC_KERNEL_XENT_BWD		  28
#define HPU_TPC_KERNEL_LAYERNORM_FWD	  29
#define HPU_TPC_KERNEL_LAYERNORM_BWD	  30
#define HPU_TPC_KERNEL_EMBED_GATHER	  31
#define HPU_TPC_KERNEL_EMBED_SCATTER_ADD  32
#define HPU_TPC_KERNEL_TRANSPOSE	  33 /* 2-D */
#define HPU_TPC_KERNEL_DROPOUT		  34 /* counter-based RNG, seeded */
#define HPU_TPC_KERNEL_ARGMAX		  35 /* over the innermost axis */
#define HPU_TPC_KERNEL_ACCURACY		  36 /* count of argmax == label */
#define HPU_TPC_KERNEL_SGD_STEP		  37 /* momentum, weight decay */
#define HPU_TPC_KERNEL_ADAMW_STEP	  38
#define HPU_TPC_KERNEL_ACCUMULATE	  39 /* out = op(in0..inK-1) / div */
#define HPU_TPC_KERNEL_SOFTMAX_CAUSAL	  40 /* scaled, causal mask implied */
#define HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD 41
#define HPU_TPC_KERNEL_SUMSQ		  42 /* out (+)= sum of squares */
#define HPU_TPC_KERNEL_CLIP_GRAD_NORM	  43 /* g *= min(1, max/norm) */
#define HPU_TPC_KERNEL_KV_CACHE_WRITE	  44 /* rows into a cache at a slot */
#define HPU_TPC_KERNEL_BIAS_RESIDUAL_LN	  45 /* h += y + b; layernorm(h) */
#define HPU_TPC_KERNEL_BIAS_GELU	  46 /* out = gelu(in + b[c]) */
#define HPU_TPC_KERNEL_COUNT		  47 /* ids are 1..COUNT-1 */

/* HPU_TPC_KERNEL_ACCUMULATE params[0]: the reduction */
#define HPU_TPC_ACC_SUM 0
#define HPU_TPC_ACC_MIN 1
#define HPU_TPC_ACC_MAX 2

/* HPU_TPC_KERNEL_SUMSQ params[0]: add to the output instead of setting it */
#define HPU_TPC_SUMSQ_ACCUMULATE 0x1

#endif /* HPU_UAPI_TPC_KERNELS_H */
