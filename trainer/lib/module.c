// SPDX-License-Identifier: MIT
/*
 * module.c - modules: parameters, optimizers, and the training and
 * validation steps as programs on the backend (ht_module.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ht_error.h"
#include "ht_graph.h"
#include "ht_module.h"
#include "ht_ops.h"

int ht_module_create(struct ht_backend *be, const struct ht_module_ops *ops,
		     void *priv, uint32_t in_features, uint32_t in_dtype,
		     uint32_t classes, uint64_t seed, struct ht_module **mp)
{
	struct ht_module *m = calloc(1, sizeof(*m));
	int ret;

	if (!m) {
		free(priv);
		return -ENOMEM;
	}
	m->ops = ops;
	m->be = be;
	m->priv = priv;
	m->in_features = in_features;
	m->in_dtype = in_dtype;
	m->classes = classes;
	m->labels_per_sample = 1;
	ht_rng_seed(&m->rng, seed, 0x1417);
	m->seed = seed;
	ret = ops->build(m);
	if (!ret)
		ret = ops->configure_optimizers(m);
	if (!ret)
		ret = ht_backend_sync(be); /* initial values and state */
	if (ret) {
		ht_module_destroy(m);
		return ret;
	}
	*mp = m;
	return 0;
}

void ht_module_destroy(struct ht_module *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->noptims; i++)
		ht_optim_free(m->optims[i]);
	for (i = 0; i < m->nparams; i++)
		ht_tensor_free(m->params[i]);
	if (m->ops->destroy)
		m->ops->destroy(m);
	else
		free(m->priv);
	free(m);
}

int ht_module_param(struct ht_module *m, unsigned int ndim,
		    const uint32_t *sizes, int init, uint32_t fan_in,
		    struct ht_tensor **out)
{
	struct ht_tensor *t;
	float *v, bound;
	uint64_t i;
	int ret;

	if (m->nparams == HT_MODULE_MAX_PARAMS)
		return -ENOSPC;
	ret = ht_tensor_new(m->be, HT_F32, ndim, sizes, true, &t);
	if (ret)
		return ret;
	v = malloc(t->numel * sizeof(*v));
	if (!v) {
		ht_tensor_free(t);
		return -ENOMEM;
	}
	bound = fan_in ? 1.0f / sqrtf((float)fan_in) : 0.0f;
	for (i = 0; i < t->numel; i++) {
		switch (init) {
		case HT_INIT_ONE:
			v[i] = 1.0f;
			break;
		case HT_INIT_UNIFORM_FAN_IN:
			v[i] = (2.0f * ht_rng_float(&m->rng) - 1.0f) * bound;
			break;
		case HT_INIT_NORMAL_002:
			v[i] = 0.02f * ht_rng_normal(&m->rng);
			break;
		default:
			v[i] = 0.0f;
			break;
		}
	}
	ret = ht_tensor_upload(t, v);
	free(v);
	if (ret) {
		ht_tensor_free(t);
		return ret;
	}
	t->requires_grad = true;
	t->is_param = true;
	m->params[m->nparams++] = t;
	*out = t;
	return 0;
}

int ht_module_add_optim(struct ht_module *m, struct ht_optim *o)
{
	if (m->noptims == HT_MODULE_MAX_OPTIMS)
		return -ENOSPC;
	m->optims[m->noptims++] = o;
	return 0;
}

/* The batch as step tensors: x [n][in_features], y [n * labels] */
static int batch_upload(struct ht_module *m, const void *x, const int32_t *y,
			uint32_t n, struct ht_tensor **xt,
			struct ht_tensor **yt)
{
	uint32_t xs[2] = { n, m->in_features };
	uint32_t ny = n * m->labels_per_sample;
	int ret;

	ret = ht_tensor_new(m->be, m->in_dtype, 2, xs, false, xt);
	if (!ret)
		ret = ht_tensor_new(m->be, HT_I32, 1, &ny, false, yt);
	if (!ret)
		ret = ht_tensor_upload(*xt, x);
	if (!ret)
		ret = ht_tensor_upload(*yt, y);
	return ret;
}

/* logits [N * labels_per_sample][classes] of the module's forward */
static int flat_logits(struct ht_module *m, struct ht_tensor *x,
		       struct ht_tensor **logits)
{
	uint32_t s[2];
	int ret = m->ops->forward(m, x, logits);

	if (ret || m->labels_per_sample == 1)
		return ret;
	s[0] = (uint32_t)((*logits)->numel / m->classes);
	s[1] = m->classes;
	return ht_reshape(*logits, 2, s, logits);
}

int ht_module_loss(struct ht_module *m, struct ht_tensor *x,
		   struct ht_tensor *y, struct ht_tensor **loss)
{
	struct ht_tensor *logits;
	int ret;

	if (m->ops->training_step)
		return m->ops->training_step(m, x, y, loss);
	ret = flat_logits(m, x, &logits);
	return ret ? ret : ht_cross_entropy(logits, y, loss);
}

int ht_module_clip(struct ht_module *m)
{
	struct ht_tensor *norm;

	if (!(m->clip_norm > 0.0f))
		return 0;
	return ht_clip_grad_norm(m->params, m->nparams, m->clip_norm, &norm);
}

static int default_val(struct ht_module *m, struct ht_tensor *x,
		       struct ht_tensor *y, struct ht_tensor **loss,
		       struct ht_tensor **correct)
{
	struct ht_tensor *logits;
	int ret = flat_logits(m, x, &logits);

	if (!ret)
		ret = ht_cross_entropy(logits, y, loss);
	return ret ? ret : ht_accuracy(logits, y, correct);
}

static int train_body(struct ht_module *m, const void *x, const int32_t *y,
		      uint32_t n, float *loss)
{
	struct ht_tensor *xt, *yt, *lt;
	unsigned int i;
	int ret;

	ret = batch_upload(m, x, y, n, &xt, &yt);
	if (ret)
		return ret;
	for (i = 0; i < m->noptims; i++)
		ht_optim_zero_grad(m->optims[i]);
	ret = ht_module_loss(m, xt, yt, &lt);
	if (!ret)
		ret = ht_backward(lt);
	if (!ret)
		ret = ht_module_clip(m);
	for (i = 0; !ret && i < m->noptims; i++)
		ret = ht_optim_step(m->optims[i]);
	if (!ret)
		ret = ht_tensor_fetch(lt, loss);
	return ret;
}

int ht_module_train_step(struct ht_module *m, const void *x, const int32_t *y,
			 uint32_t n, float *loss)
{
	int ret, r;

	m->step_seed = ht_dropout_seed(
		m->seed, m->noptims ? ht_optim_steps(m->optims[0]) : 0, 0);
	ret = ht_step_begin(m->be, true);
	if (ret)
		return ret;
	ret = train_body(m, x, y, n, loss);
	r = ht_step_end(m->be);
	return ret ? ret : r;
}

int ht_module_eval_step(struct ht_module *m, const void *x, const int32_t *y,
			uint32_t n, float *loss, uint32_t *correct)
{
	struct ht_tensor *xt, *yt, *lt, *ct;
	int32_t count = 0;
	int ret, r;

	ret = ht_step_begin(m->be, false);
	if (ret)
		return ret;
	m->be->grad_enabled = false;
	ret = batch_upload(m, x, y, n, &xt, &yt);
	if (!ret)
		ret = m->ops->validation_step ?
			      m->ops->validation_step(m, xt, yt, &lt, &ct) :
			      default_val(m, xt, yt, &lt, &ct);
	if (!ret)
		ret = ht_tensor_fetch(lt, loss);
	if (!ret)
		ret = ht_tensor_fetch(ct, &count);
	m->be->grad_enabled = true;
	r = ht_step_end(m->be);
	*correct = (uint32_t)count;
	return ret ? ret : r;
}

uint64_t ht_module_numel(const struct ht_module *m)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < m->nparams; i++)
		n += m->params[i]->numel;
	return n;
}

int ht_module_read_params(struct ht_module *m, float *dst)
{
	unsigned int i;
	int ret;

	for (i = 0; i < m->nparams; i++) {
		ret = ht_tensor_fetch(m->params[i], dst);
		if (ret)
			return ret;
		dst += m->params[i]->numel;
	}
	return ht_backend_sync(m->be);
}

int ht_module_linear_params(struct ht_module *m, uint32_t out, uint32_t in,
			    struct ht_tensor **w, struct ht_tensor **b)
{
	uint32_t ws[2] = { out, in };
	int ret = ht_module_param(m, 2, ws, HT_INIT_UNIFORM_FAN_IN, in, w);

	return ret ? ret :
		     ht_module_param(m, 1, &out, HT_INIT_UNIFORM_FAN_IN, in, b);
}

int ht_module_norm_params(struct ht_module *m, uint32_t d, struct ht_tensor **g,
			  struct ht_tensor **b)
{
	int ret = ht_module_param(m, 1, &d, HT_INIT_ONE, 0, g);

	return ret ? ret : ht_module_param(m, 1, &d, HT_INIT_ZERO, 0, b);
}
