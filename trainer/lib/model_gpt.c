// SPDX-License-Identifier: MIT
/*
 * model_gpt.c - a small GPT (ht_module.h): token and learned position
 * embeddings, pre-LayerNorm blocks x + attn(LN(x)), x + W2 gelu(W1 LN(x)),
 * a final LayerNorm and an output projection (tied to the token
 * embedding or a matrix of its own). Per-token targets: the loss is the
 * cross-entropy over every position of the batch. AdamW with two decay
 * groups (matrices decay; biases, norms and embeddings do not) and
 * gradient clipping by global norm (ht_module.clip_norm). Dropout (a
 * training step's, seeded by ht_module.step_seed) where GPT-2 has it:
 * the embeddings' sum, the attention probabilities, the attention
 * output projection and the MLP output.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ht_generate.h"
#include "ht_module.h"
#include "ht_ops.h"

/**
 * struct gpt_block - one pre-LN transformer block
 * @ln1_g: norm before attention, gain [C]
 * @ln1_b: its bias [C]
 * @attn: the attention weights ([3C][C], [3C], [C][C], [C])
 * @ln2_g: norm before the MLP, gain [C]
 * @ln2_b: its bias [C]
 * @w1: [F][C] (F = 4C)
 * @b1: [F]
 * @w2: [C][F]
 * @b2: [C]
 */
struct gpt_block {
	struct ht_tensor *ln1_g, *ln1_b;
	struct ht_attn_params attn;
	struct ht_tensor *ln2_g, *ln2_b, *w1, *b1, *w2, *b2;
};

/**
 * struct gpt - the model's state
 * @cfg: configuration
 * @tok: token embedding [V][C]
 * @pos: position embedding [T][C]
 * @blk: blocks
 * @lnf_g: final norm gain
 * @lnf_b: final norm bias
 * @head: output projection [V][C] (untied), or NULL (tied: @tok)
 */
struct gpt {
	struct ht_gpt_config cfg;
	struct ht_tensor *tok, *pos;
	struct gpt_block blk[HT_GPT_MAX_LAYERS];
	struct ht_tensor *lnf_g, *lnf_b, *head;
};

static int block_build(struct ht_module *m, uint32_t c, uint32_t heads,
		       struct gpt_block *b)
{
	int ret;

	b->attn.heads = heads;
	ret = ht_module_norm_params(m, c, &b->ln1_g, &b->ln1_b);
	if (!ret)
		ret = ht_module_linear_params(m, 3 * c, c, &b->attn.w_qkv,
					      &b->attn.b_qkv);
	if (!ret)
		ret = ht_module_linear_params(m, c, c, &b->attn.w_out,
					      &b->attn.b_out);
	if (!ret)
		ret = ht_module_norm_params(m, c, &b->ln2_g, &b->ln2_b);
	if (!ret)
		ret = ht_module_linear_params(m, 4 * c, c, &b->w1, &b->b1);
	if (!ret)
		ret = ht_module_linear_params(m, c, 4 * c, &b->w2, &b->b2);
	return ret;
}

static int gpt_build(struct ht_module *m)
{
	struct gpt *p = m->priv;
	const struct ht_gpt_config *c = &p->cfg;
	uint32_t ts[2] = { c->vocab, c->dim }, ps[2] = { c->context, c->dim };
	uint32_t hs[2] = { c->vocab, c->dim };
	unsigned int i;
	int ret;

	ret = ht_module_param(m, 2, ts, HT_INIT_NORMAL_002, 0, &p->tok);
	if (!ret)
		ret = ht_module_param(m, 2, ps, HT_INIT_NORMAL_002, 0, &p->pos);
	for (i = 0; !ret && i < c->layers; i++)
		ret = block_build(m, c->dim, c->heads, &p->blk[i]);
	if (!ret)
		ret = ht_module_norm_params(m, c->dim, &p->lnf_g, &p->lnf_b);
	if (!ret && !c->tied)
		ret = ht_module_param(m, 2, hs, HT_INIT_UNIFORM_FAN_IN, c->dim,
				      &p->head);
	return ret;
}

/* dropout sites of a step: 0 the embeddings, then 3 per block */
static uint64_t site_seed(const struct ht_module *m, unsigned int site)
{
	return ht_dropout_seed(m->step_seed, 0x64726f70ULL, site);
}

static int block_forward(const struct ht_module *m, const struct gpt_block *b,
			 unsigned int layer, float pd, struct ht_tensor *x,
			 struct ht_tensor **y)
{
	struct ht_attn_params ap = b->attn;
	struct ht_tensor *h;
	int ret;

	ap.dropout = pd;
	ap.seed = site_seed(m, 1 + 3 * layer);
	ret = ht_layer_norm(x, b->ln1_g, b->ln1_b, HT_LN_EPS, &h);
	if (!ret)
		ret = ht_causal_self_attention(h, &ap, &h);
	if (!ret)
		ret = ht_dropout(h, pd, site_seed(m, 2 + 3 * layer), &h);
	if (!ret)
		ret = ht_add(x, h, &x);
	if (!ret)
		ret = ht_layer_norm(x, b->ln2_g, b->ln2_b, HT_LN_EPS, &h);
	if (!ret)
		ret = ht_linear(h, b->w1, b->b1, &h);
	if (!ret)
		ret = ht_gelu(h, &h);
	if (!ret)
		ret = ht_linear(h, b->w2, b->b2, &h);
	if (!ret)
		ret = ht_dropout(h, pd, site_seed(m, 3 + 3 * layer), &h);
	return ret ? ret : ht_add(x, h, y);
}

/* logits [B][T][V] of ids [B][T] */
static int gpt_forward(struct ht_module *m, struct ht_tensor *x,
		       struct ht_tensor **logits)
{
	struct gpt *p = m->priv;
	struct ht_tensor *h;
	unsigned int i;
	int ret;

	ret = ht_embedding(p->tok, x, &h);
	if (!ret)
		ret = ht_add(h, p->pos, &h);
	if (!ret)
		ret = ht_dropout(h, p->cfg.dropout, site_seed(m, 0), &h);
	for (i = 0; !ret && i < p->cfg.layers; i++)
		ret = block_forward(m, &p->blk[i], i, p->cfg.dropout, h, &h);
	if (!ret)
		ret = ht_layer_norm(h, p->lnf_g, p->lnf_b, HT_LN_EPS, &h);
	return ret ? ret :
		     ht_linear(h, p->head ? p->head : p->tok, NULL, logits);
}

/* attention of one token over the caches, as ht_causal_self_attention */
static int decode_attn(const struct ht_attn_params *p, struct ht_tensor *x,
		       uint32_t pos, struct ht_tensor *kc, struct ht_tensor *vc,
		       struct ht_tensor **y)
{
	uint32_t c = x->sizes[2], d = c / p->heads;
	struct ht_tensor *qkv, *q, *s;
	int ret;

	/* keys and values go from the projection's columns to the caches */
	ret = ht_linear(x, p->w_qkv, p->b_qkv, &qkv);
	if (!ret)
		ret = ht_split_heads(qkv, 0, p->heads, d, &q);
	if (!ret)
		ret = ht_kv_cache_write_heads(kc, qkv, c, pos);
	if (!ret)
		ret = ht_kv_cache_write_heads(vc, qkv, 2 * c, pos);
	if (!ret)
		ret = ht_bmm(q, kc, HT_BMM_TRANS_B, &s);
	if (!ret)
		ret = ht_causal_softmax(s, 1.0f / sqrtf((float)d), pos, &s);
	if (!ret)
		ret = ht_bmm(s, vc, 0, &s);
	if (!ret)
		ret = ht_merge_heads(s, &s);
	/* the bias goes with the residual add (ht_gpt_decode_step()) */
	return ret ? ret : ht_linear(s, p->w_out, NULL, y);
}

int ht_gpt_decode_step(struct ht_module *m, struct ht_tensor *ids,
		       struct ht_tensor *pos_ids, uint32_t pos,
		       struct ht_tensor *const *kc, struct ht_tensor *const *vc,
		       struct ht_tensor **logits)
{
	struct gpt *p = m->priv;
	struct ht_tensor *h, *e, *a, *y;
	unsigned int i;
	int ret;

	if (pos >= p->cfg.context)
		return -EINVAL;
	ret = ht_embedding(p->tok, ids, &h);
	if (!ret)
		ret = ht_embedding(p->pos, pos_ids, &e);
	if (!ret)
		ret = ht_add(h, e, &h);
	/*
	 * Each residual add is fused with the layer norm after it and with
	 * the bias of the projection before it (ht_bias_residual_layer_norm(),
	 * the same bits): one kernel where the forward pass has three; the
	 * MLP's first bias goes with its GELU (ht_bias_gelu())
	 */
	if (!ret)
		ret = ht_layer_norm(h, p->blk[0].ln1_g, p->blk[0].ln1_b,
				    HT_LN_EPS, &a);
	for (i = 0; !ret && i < p->cfg.layers; i++) {
		const struct gpt_block *b = &p->blk[i];
		bool last = i + 1 == p->cfg.layers;
		struct ht_tensor *ng = last ? p->lnf_g : p->blk[i + 1].ln1_g;
		struct ht_tensor *nb = last ? p->lnf_b : p->blk[i + 1].ln1_b;

		ret = decode_attn(&b->attn, a, pos, kc[i], vc[i], &y);
		if (!ret)
			ret = ht_bias_residual_layer_norm(y, b->attn.b_out, h,
							  b->ln2_g, b->ln2_b,
							  HT_LN_EPS, &h, &a);
		if (!ret)
			ret = ht_linear(a, b->w1, NULL, &a);
		if (!ret)
			ret = ht_bias_gelu(a, b->b1, &a);
		if (!ret)
			ret = ht_linear(a, b->w2, NULL, &y);
		if (!ret)
			ret = ht_bias_residual_layer_norm(y, b->b2, h, ng, nb,
							  HT_LN_EPS, &h, &a);
	}
	return ret ? ret :
		     ht_linear(a, p->head ? p->head : p->tok, NULL, logits);
}

static bool gpt_decays(const struct gpt *p, const struct ht_tensor *t)
{
	/* matrices decay; biases, norms (rank 1) and embeddings do not */
	return t->ndim == 2 && t != p->tok && t != p->pos;
}

static int gpt_configure_optimizers(struct ht_module *m)
{
	struct gpt *p = m->priv;
	const struct ht_gpt_config *c = &p->cfg;
	struct ht_optim_hparams hd = { .lr = c->lr,
				       .weight_decay = c->weight_decay,
				       .beta1 = c->beta1,
				       .beta2 = c->beta2,
				       .eps = c->eps };
	struct ht_optim_hparams hn = hd;
	struct ht_tensor *d[HT_MODULE_MAX_PARAMS], *n[HT_MODULE_MAX_PARAMS];
	unsigned int nd = 0, nn = 0, i;
	struct ht_optim *o;
	int ret;

	hn.weight_decay = 0.0f;
	for (i = 0; i < m->nparams; i++) {
		if (gpt_decays(p, m->params[i]))
			d[nd++] = m->params[i];
		else
			n[nn++] = m->params[i];
	}
	ret = ht_optim_new(m->be, HT_OPTIM_ADAMW, &o);
	if (ret)
		return ret;
	ret = ht_module_add_optim(m, o);
	if (ret) {
		ht_optim_free(o);
		return ret;
	}
	ret = ht_optim_add_group(o, d, nd, &hd);
	return ret ? ret : ht_optim_add_group(o, n, nn, &hn);
}

static const struct ht_module_ops gpt_ops = {
	.name = "gpt",
	.build = gpt_build,
	.forward = gpt_forward,
	.configure_optimizers = gpt_configure_optimizers,
};

int ht_gpt_check(const struct ht_gpt_config *c, const char **why)
{
	const char *w = NULL;

	if (!c)
		w = "no configuration";
	else if (!c->vocab)
		w = "the vocabulary is empty";
	else if (!c->layers || c->layers > HT_GPT_MAX_LAYERS)
		w = "layers must be 1.." HT_STR(HT_GPT_MAX_LAYERS);
	else if (!c->heads || !c->dim || c->dim % c->heads)
		w = "the width must be a positive multiple of the heads";
	else if (c->dim > HT_GPT_MAX_DIM)
		w = "the width must be at most " HT_STR(HT_GPT_MAX_DIM);
	else if (!c->context || c->context > HT_GPT_MAX_CONTEXT)
		w = "the context must be 1.." HT_STR(HT_GPT_MAX_CONTEXT);
	else if (!(c->dropout >= 0.0f && c->dropout < 1.0f))
		w = "dropout must be in [0, 1)";
	else if (!(c->lr > 0.0f) || !(c->weight_decay >= 0.0f) ||
		 !(c->clip_norm >= 0.0f))
		w = "the learning rate must be > 0, weight decay and clip norm >= 0";
	if (why)
		*why = w;
	return w ? -EINVAL : 0;
}

int ht_gpt_create(struct ht_backend *be, const struct ht_gpt_config *cfg,
		  uint64_t seed, struct ht_module **mp)
{
	struct gpt *p;
	int ret;

	if (ht_gpt_check(cfg, NULL))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	ret = ht_module_create(be, &gpt_ops, p, cfg->context, HT_I32,
			       cfg->vocab, seed, mp);
	if (ret)
		return ret;
	(*mp)->labels_per_sample = cfg->context;
	(*mp)->clip_norm = cfg->clip_norm;
	return 0;
}
