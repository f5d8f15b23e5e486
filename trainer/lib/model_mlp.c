// SPDX-License-Identifier: MIT
/*
 * model_mlp.c - the MLP: linear layers with an activation between them,
 * one optimizer over every parameter (ht_module.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_module.h"
#include "ht_ops.h"

/**
 * struct mlp - the MLP's state
 * @cfg: its configuration
 * @w: weights [out][in] per layer
 * @b: biases [out] per layer
 */
struct mlp {
	struct ht_mlp_config cfg;
	struct ht_tensor *w[HT_MLP_MAX_LAYERS];
	struct ht_tensor *b[HT_MLP_MAX_LAYERS];
};

static int mlp_build(struct ht_module *m)
{
	struct mlp *p = m->priv;
	unsigned int l;
	int ret;

	for (l = 0; l + 1 < p->cfg.nsizes; l++) {
		uint32_t in = p->cfg.sizes[l], out = p->cfg.sizes[l + 1];
		uint32_t ws[2] = { out, in };

		ret = ht_module_param(m, 2, ws, HT_INIT_UNIFORM_FAN_IN, in,
				      &p->w[l]);
		if (!ret)
			ret = ht_module_param(m, 1, &out,
					      HT_INIT_UNIFORM_FAN_IN, in,
					      &p->b[l]);
		if (ret)
			return ret;
	}
	return 0;
}

static int mlp_forward(struct ht_module *m, struct ht_tensor *x,
		       struct ht_tensor **logits)
{
	struct mlp *p = m->priv;
	struct ht_tensor *h = x;
	unsigned int l, last = p->cfg.nsizes - 2;
	int ret = 0;

	for (l = 0; !ret && l <= last; l++) {
		ret = ht_linear(h, p->w[l], p->b[l], &h);
		if (ret || l == last)
			break;
		if (p->cfg.act == HT_ACT_GELU)
			ret = ht_gelu(h, &h);
		else if (p->cfg.act == HT_ACT_TANH)
			ret = ht_tanh(h, &h);
		else
			ret = ht_relu(h, &h);
	}
	if (!ret)
		*logits = h;
	return ret;
}

static int mlp_configure_optimizers(struct ht_module *m)
{
	struct mlp *p = m->priv;
	struct ht_optim *o;
	int ret;

	ret = ht_optim_new(m->be, p->cfg.optim, &o);
	if (ret)
		return ret;
	ret = ht_module_add_optim(m, o);
	if (ret) {
		ht_optim_free(o);
		return ret;
	}
	return ht_optim_add_group(o, m->params, m->nparams, &p->cfg.hp);
}

static const struct ht_module_ops mlp_ops = {
	.name = "mlp",
	.build = mlp_build,
	.forward = mlp_forward,
	.configure_optimizers = mlp_configure_optimizers,
};

int ht_mlp_create(struct ht_backend *be, const struct ht_mlp_config *cfg,
		  uint64_t seed, struct ht_module **mp)
{
	struct mlp *p;
	unsigned int i;

	if (!cfg || cfg->nsizes < 2 || cfg->nsizes > HT_MLP_MAX_LAYERS + 1)
		return -EINVAL;
	for (i = 0; i < cfg->nsizes; i++)
		if (!cfg->sizes[i])
			return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	return ht_module_create(be, &mlp_ops, p, cfg->sizes[0], HT_F32,
				cfg->sizes[cfg->nsizes - 1], seed, mp);
}
