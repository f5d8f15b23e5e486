// SPDX-License-Identifier: MIT
/*
 * model_mixer.c - the token model (ht_module.h): token and position
 * embeddings, residual blocks x + W2 gelu(W1 LN(x)), a final layer norm,
 * the mean over tokens and a linear classifier. Embeddings and norms are
 * trained with AdamW, the linear layers with SGD and momentum: two
 * optimizers in one module.
 */
#include <errno.h>
#include <stdlib.h>

#include "ht_module.h"
#include "ht_ops.h"

#define MIXER_MAX_BLOCKS 4

/**
 * struct mixer_block - one residual block
 * @ln_g: layer norm gain [D]
 * @ln_b: layer norm bias [D]
 * @w1: [H][D]
 * @b1: [H]
 * @w2: [D][H]
 * @b2: [D]
 */
struct mixer_block {
	struct ht_tensor *ln_g, *ln_b, *w1, *b1, *w2, *b2;
};

/**
 * struct mixer - the model's state
 * @cfg: configuration
 * @tok: token embedding [V][D]
 * @pos: position embedding [T][D]
 * @blk: blocks
 * @lnf_g: final norm gain
 * @lnf_b: final norm bias
 * @wc: classifier [C][D]
 * @bc: classifier bias [C]
 */
struct mixer {
	struct ht_mixer_config cfg;
	struct ht_tensor *tok, *pos;
	struct mixer_block blk[MIXER_MAX_BLOCKS];
	struct ht_tensor *lnf_g, *lnf_b, *wc, *bc;
};

static int mixer_build(struct ht_module *m)
{
	struct mixer *p = m->priv;
	const struct ht_mixer_config *c = &p->cfg;
	uint32_t ts[2] = { c->vocab, c->dim }, ps[2] = { c->tokens, c->dim };
	unsigned int i;
	int ret;

	ret = ht_module_param(m, 2, ts, HT_INIT_NORMAL_002, 0, &p->tok);
	if (!ret)
		ret = ht_module_param(m, 2, ps, HT_INIT_NORMAL_002, 0, &p->pos);
	for (i = 0; !ret && i < c->blocks; i++) {
		struct mixer_block *b = &p->blk[i];

		ret = ht_module_norm_params(m, c->dim, &b->ln_g, &b->ln_b);
		if (!ret)
			ret = ht_module_linear_params(m, c->hidden, c->dim,
						      &b->w1, &b->b1);
		if (!ret)
			ret = ht_module_linear_params(m, c->dim, c->hidden,
						      &b->w2, &b->b2);
	}
	if (!ret)
		ret = ht_module_norm_params(m, c->dim, &p->lnf_g, &p->lnf_b);
	if (!ret)
		ret = ht_module_linear_params(m, c->classes, c->dim, &p->wc,
					      &p->bc);
	return ret;
}

static int block_forward(const struct mixer_block *b, struct ht_tensor *x,
			 struct ht_tensor **y)
{
	struct ht_tensor *h;
	int ret;

	ret = ht_layer_norm(x, b->ln_g, b->ln_b, HT_LN_EPS, &h);
	if (!ret)
		ret = ht_linear(h, b->w1, b->b1, &h);
	if (!ret)
		ret = ht_gelu(h, &h);
	if (!ret)
		ret = ht_linear(h, b->w2, b->b2, &h);
	return ret ? ret : ht_add(x, h, y);
}

static int mixer_forward(struct ht_module *m, struct ht_tensor *x,
			 struct ht_tensor **logits)
{
	struct mixer *p = m->priv;
	struct ht_tensor *h;
	unsigned int i;
	int ret;

	ret = ht_embedding(p->tok, x, &h);
	if (!ret)
		ret = ht_add(h, p->pos, &h);
	for (i = 0; !ret && i < p->cfg.blocks; i++)
		ret = block_forward(&p->blk[i], h, &h);
	if (!ret)
		ret = ht_layer_norm(h, p->lnf_g, p->lnf_b, HT_LN_EPS, &h);
	if (!ret)
		ret = ht_mean_axis(h, 1, &h);
	return ret ? ret : ht_linear(h, p->wc, p->bc, logits);
}

static int mixer_configure_optimizers(struct ht_module *m)
{
	struct mixer *p = m->priv;
	struct ht_optim_hparams adam = { .lr = p->cfg.lr_adamw,
					 .beta1 = 0.9f,
					 .beta2 = 0.999f,
					 .eps = 1e-8f };
	struct ht_optim_hparams sgd = { .lr = p->cfg.lr_sgd, .momentum = 0.9f };
	struct ht_tensor *a[HT_MODULE_MAX_PARAMS], *s[HT_MODULE_MAX_PARAMS];
	unsigned int na = 0, ns = 0, i;
	struct ht_optim *oa, *os;
	int ret;

	/* rank-2 parameters past the embeddings are linear weights, and
	 * every bias follows its weight: norms are the rank-1 ones whose
	 * predecessor is not a weight */
	for (i = 0; i < m->nparams; i++) {
		struct ht_tensor *t = m->params[i];
		bool linear = (t->ndim == 2 && i >= 2) ||
			      (t->ndim == 1 && m->params[i - 1]->ndim == 2 &&
			       i - 1 >= 2);

		if (linear)
			s[ns++] = t;
		else
			a[na++] = t;
	}
	ret = ht_optim_new(m->be, HT_OPTIM_ADAMW, &oa);
	if (ret)
		return ret;
	ret = ht_module_add_optim(m, oa);
	if (ret) {
		ht_optim_free(oa);
		return ret;
	}
	ret = ht_optim_add_group(oa, a, na, &adam);
	if (!ret)
		ret = ht_optim_new(m->be, HT_OPTIM_SGD, &os);
	if (ret)
		return ret;
	ret = ht_module_add_optim(m, os);
	if (ret) {
		ht_optim_free(os);
		return ret;
	}
	return ht_optim_add_group(os, s, ns, &sgd);
}

static const struct ht_module_ops mixer_ops = {
	.name = "mixer",
	.build = mixer_build,
	.forward = mixer_forward,
	.configure_optimizers = mixer_configure_optimizers,
};

int ht_mixer_create(struct ht_backend *be, const struct ht_mixer_config *cfg,
		    uint64_t seed, struct ht_module **mp)
{
	struct mixer *p;

	if (!cfg || !cfg->tokens || !cfg->vocab || !cfg->dim || !cfg->hidden ||
	    cfg->blocks > MIXER_MAX_BLOCKS || !cfg->classes)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	return ht_module_create(be, &mixer_ops, p, cfg->tokens, HT_I32,
				cfg->classes, seed, mp);
}
