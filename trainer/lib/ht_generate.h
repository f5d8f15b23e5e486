/* SPDX-License-Identifier: MIT */
/*
 * ht_generate.h - text generation with a trained GPT (hpu-generate,
 * docs/hpu-generate.md): a checkpoint's weights, a key/value cache of a
 * fixed number of slots (the context) so that every decode step has the
 * same shapes and addresses, and temperature / top-k sampling on the
 * host from a seeded stream. In graph mode the decode step is captured
 * once and replayed for every token with its position patched in.
 */
#ifndef HT_GENERATE_H
#define HT_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "ht_module.h"

/**
 * struct ht_gpt_weights - a GPT read from a checkpoint
 * @cfg: its configuration (vocabulary, context, width, heads, layers,
 *	tying; the optimizer fields are left 0 but for a valid lr)
 * @step: the optimizer step the checkpoint was written at
 * @params: every parameter, fp32, in creation order
 * @numel: elements of @params
 */
struct ht_gpt_weights {
	struct ht_gpt_config cfg;
	uint64_t step;
	float *params;
	uint64_t numel;
};

/**
 * ht_gpt_load_checkpoint() - read a GPT's weights from a checkpoint of
 * hpu-train (docs/training.md, Checkpoints)
 * @path: the file
 * @w: receives the weights (free with ht_gpt_weights_free())
 * @err: receives a one-line message on failure
 * @errlen: bytes at @err
 *
 * The header, size and checksum are checked as a resume checks them;
 * then the model must be a GPT with a valid configuration whose
 * parameter sizes are the ones that configuration builds.
 *
 * Return: 0; -ENOENT (no file); -EINVAL (not a checkpoint, corrupt,
 * truncated, another model, an inconsistent configuration); -ENOMEM.
 */
int ht_gpt_load_checkpoint(const char *path, struct ht_gpt_weights *w,
			   char *err, size_t errlen);

/** ht_gpt_weights_free() - free @w's parameters (@w may be zeroed) */
void ht_gpt_weights_free(struct ht_gpt_weights *w);

/**
 * ht_gpt_decode_step() - one decode step of a GPT over its key/value
 * caches (no gradients; the module of ht_gpt_create())
 * @m: the GPT
 * @ids: [B][1] int32 token ids at position @pos
 * @pos_ids: [B][1] int32, every entry @pos (the position embedding's row)
 * @pos: the position, < the context
 * @kc: per layer, the keys cache [B][H][context][D] (persistent, zeroed
 *	before the first step)
 * @vc: per layer, the values cache, the same shape
 * @logits: receives [B][1][vocab]
 *
 * Writes the token's keys and values at slot @pos (ht_kv_cache_write()),
 * attends over every slot with the causal softmax at offset @pos: shapes
 * and addresses do not depend on @pos, which is a dynamic parameter.
 *
 * Return: 0 or -errno (m->be->err says why).
 */
int ht_gpt_decode_step(struct ht_module *m, struct ht_tensor *ids,
		       struct ht_tensor *pos_ids, uint32_t pos,
		       struct ht_tensor *const *kc, struct ht_tensor *const *vc,
		       struct ht_tensor **logits);

/**
 * struct ht_gen_opts - how to generate
 * @accel: HT_ACCEL_CPU or HT_ACCEL_HPU
 * @device_index: hpu: /dev/hpuN
 * @mode: HT_EXEC_EAGER, HT_EXEC_LAZY or HT_EXEC_GRAPH
 * @precision: HT_PREC_32 or HT_PREC_BF16_MIXED
 * @batch: sequences generated together from the same prompt, >= 1
 * @temperature: logits are divided by it before sampling; 0: greedy
 *	(the most likely token, the lowest id among equals)
 * @top_k: sample among the k most likely tokens (0: all)
 * @seed: sequence b samples from ht_rng stream b of the seed
 */
struct ht_gen_opts {
	int accel;
	uint32_t device_index;
	int mode;
	int precision;
	uint32_t batch;
	float temperature;
	uint32_t top_k;
	uint64_t seed;
};

/**
 * struct ht_gen_stats - timings of one ht_generate() call
 * @prompt_tokens: tokens of the prompt (each one decode step)
 * @new_tokens: tokens generated per sequence
 * @steps: decode steps run
 * @ttft_s: time to first token: from the start to the first new token
 *	of every sequence sampled (the prompt's steps included)
 * @p50_s: median latency of the decode steps after the first token
 * @p99_s: their 99th percentile
 * @tokens_per_s: new tokens of all sequences / the whole call's time
 * @total_s: the whole call
 */
struct ht_gen_stats {
	uint32_t prompt_tokens;
	uint32_t new_tokens;
	uint32_t steps;
	double ttft_s;
	double p50_s;
	double p99_s;
	double tokens_per_s;
	double total_s;
};

struct ht_generator;

/**
 * ht_generator_create() - a GPT on a backend ready to generate
 * @w: the weights (copied to the backend; @w may be freed after)
 * @o: options
 * @dev: hpu: the open device (NULL on cpu); must outlive the generator
 * @gp: receives the generator
 * @err: receives a one-line message on failure
 * @errlen: bytes at @err
 *
 * Return: 0, -EINVAL (options) or -errno.
 */
int ht_generator_create(const struct ht_gpt_weights *w,
			const struct ht_gen_opts *o, struct hpu_device *dev,
			struct ht_generator **gp, char *err, size_t errlen);

/**
 * ht_generate() - continue a prompt
 * @g: generator
 * @prompt: token ids, 1.. context - 1 of them, each < the vocabulary
 * @plen: their count
 * @max_new: tokens to generate per sequence, 1 .. context - @plen
 * @out: receives batch x @max_new ids, sequence after sequence
 * @st: receives the timings (may be NULL)
 *
 * The same weights, prompt, options and seed give the same ids on every
 * backend and in every mode.
 *
 * Return: 0, -EINVAL (a prompt or length out of range, message in
 * ht_generator_error()) or -errno.
 */
int ht_generate(struct ht_generator *g, const int32_t *prompt, uint32_t plen,
		uint32_t max_new, int32_t *out, struct ht_gen_stats *st);

/**
 * struct ht_ranked - one vocabulary entry as the sampler ranks it
 * @lg: its logit
 * @id: its token id
 * @key: its rank key (internal to ht_rank_logits())
 */
struct ht_ranked {
	float lg;
	uint32_t id;
	uint32_t key;
};

/**
 * ht_rank_logits() - the sampler's order of a vocabulary
 * @lg: @n logits
 * @n: vocabulary size (at least 1)
 * @out: receives the @n entries: larger logit first, then smaller id;
 *	NaN logits after every number (by id); -0 and +0 are equal
 * @tmp: @n entries of scratch
 *
 * The order is total: the result is what any correct sort by that order
 * gives (ht_generate() samples from it on every path).
 */
void ht_rank_logits(const float *lg, uint32_t n, struct ht_ranked *out,
		    struct ht_ranked *tmp);

/** ht_generator_error() - message of the last failure */
const char *ht_generator_error(const struct ht_generator *g);

/** ht_generator_destroy() - free a generator (NULL is fine) */
void ht_generator_destroy(struct ht_generator *g);

#endif /* HT_GENERATE_H */
