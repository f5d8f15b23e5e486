// SPDX-License-Identifier: MIT
/*
 * optim.c - SGD and AdamW over parameter groups (ht_optim.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_graph.h"
#include "ht_optim.h"

/**
 * struct optim_slot - one parameter and its state
 * @param: the parameter
 * @s0: momentum buffer (SGD) or first moment (AdamW)
 * @s1: second moment (AdamW)
 * @group: index of its group
 */
struct optim_slot {
	struct ht_tensor *param;
	struct ht_tensor *s0;
	struct ht_tensor *s1;
	unsigned int group;
};

/**
 * struct ht_optim - an optimizer
 * @be: backend
 * @kind: enum ht_optim_kind
 * @groups: hyperparameters per group
 * @base_lr: each group's own learning rate (a schedule scales it)
 * @ngroups: groups
 * @slots: parameters of every group in order
 * @nslots: entries
 * @steps: updates done
 */
struct ht_optim {
	struct ht_backend *be;
	int kind;
	struct ht_optim_hparams *groups;
	float *base_lr;
	unsigned int ngroups;
	struct optim_slot *slots;
	unsigned int nslots;
	uint32_t steps;
};

int ht_optim_new(struct ht_backend *be, int kind, struct ht_optim **op)
{
	struct ht_optim *o;

	if (kind != HT_OPTIM_SGD && kind != HT_OPTIM_ADAMW)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->be = be;
	o->kind = kind;
	*op = o;
	return 0;
}

static int state_new(struct ht_tensor *p, struct ht_tensor **s)
{
	int ret = ht_tensor_new(p->be, HT_F32, p->ndim, p->sizes, true, s);

	return ret ? ret : ht_tensor_fill(*s, 0.0f);
}

int ht_optim_add_group(struct ht_optim *o, struct ht_tensor *const *params,
		       unsigned int n, const struct ht_optim_hparams *h)
{
	struct ht_optim_hparams *g;
	struct optim_slot *s;
	unsigned int i;
	float *b;
	int ret;

	for (i = 0; i < n; i++)
		if (params[i]->dtype != HT_F32 || !params[i]->persistent)
			return -EINVAL;
	g = realloc(o->groups, (o->ngroups + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	o->groups = g;
	b = realloc(o->base_lr, (o->ngroups + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	o->base_lr = b;
	s = realloc(o->slots, (o->nslots + n) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	o->slots = s;
	o->groups[o->ngroups] = *h;
	o->base_lr[o->ngroups] = h->lr;
	for (i = 0; i < n; i++) {
		s = &o->slots[o->nslots];
		memset(s, 0, sizeof(*s));
		s->param = params[i];
		s->group = o->ngroups;
		ret = state_new(params[i], &s->s0);
		if (!ret && o->kind == HT_OPTIM_ADAMW)
			ret = state_new(params[i], &s->s1);
		if (ret) {
			ht_tensor_free(s->s0);
			return ret;
		}
		o->nslots++;
	}
	o->ngroups++;
	return 0;
}

void ht_optim_set_lr(struct ht_optim *o, float lr)
{
	unsigned int i;

	for (i = 0; i < o->ngroups; i++)
		o->groups[i].lr = o->base_lr[i] = lr;
}

void ht_optim_schedule(struct ht_optim *o, const struct ht_lr_schedule *s,
		       uint64_t step)
{
	unsigned int i;

	for (i = 0; i < o->ngroups; i++)
		o->groups[i].lr = ht_lr_at(s, o->base_lr[i], step);
}

static int slot_step(struct ht_optim *o, const struct optim_slot *s)
{
	const struct ht_optim_hparams *h = &o->groups[s->group];
	struct hpu_tpc_tensor d[4];
	uint32_t p[6];

	ht_tensor_desc(s->param, &d[0]);
	ht_tensor_desc(s->param->grad, &d[1]);
	ht_tensor_desc(s->s0, &d[2]);
	if (o->kind == HT_OPTIM_SGD) {
		p[0] = ht_f2u(h->lr);
		p[1] = ht_f2u(h->momentum);
		p[2] = ht_f2u(h->weight_decay);
		p[3] = h->nesterov ? 1 : 0;
		return ht_backend_kernel_dyn(o->be, HPU_TPC_KERNEL_SGD_STEP, d,
					     3, p, 4, 1U << 0);
	}
	ht_tensor_desc(s->s1, &d[3]);
	p[0] = ht_f2u(h->lr);
	p[1] = ht_f2u(h->beta1);
	p[2] = ht_f2u(h->beta2);
	p[3] = ht_f2u(h->eps);
	p[4] = ht_f2u(h->weight_decay);
	p[5] = o->steps + 1;
	return ht_backend_kernel_dyn(o->be, HPU_TPC_KERNEL_ADAMW_STEP, d, 4, p,
				     6, (1U << 0) | (1U << 5));
}

int ht_optim_step(struct ht_optim *o)
{
	unsigned int i;
	int ret;

	for (i = 0; i < o->nslots; i++) {
		if (!o->slots[i].param->grad || !o->slots[i].param->grad_set)
			continue; /* unused in this step */
		ret = slot_step(o, &o->slots[i]);
		if (ret)
			return ret;
	}
	o->steps++;
	return 0;
}

void ht_optim_zero_grad(struct ht_optim *o)
{
	unsigned int i;

	for (i = 0; i < o->nslots; i++)
		o->slots[i].param->grad_set = false;
}

uint32_t ht_optim_steps(const struct ht_optim *o)
{
	return o->steps;
}

void ht_optim_set_steps(struct ht_optim *o, uint32_t steps)
{
	o->steps = steps;
}

float ht_optim_lr(const struct ht_optim *o)
{
	return o->ngroups ? o->groups[0].lr : 0.0f;
}

unsigned int ht_optim_nstate(const struct ht_optim *o)
{
	return o->nslots * (o->kind == HT_OPTIM_ADAMW ? 2 : 1);
}

struct ht_tensor *ht_optim_state(const struct ht_optim *o, unsigned int i)
{
	unsigned int per = o->kind == HT_OPTIM_ADAMW ? 2 : 1;

	if (i >= o->nslots * per)
		return NULL;
	return i % per ? o->slots[i / per].s1 : o->slots[i / per].s0;
}

void ht_optim_free(struct ht_optim *o)
{
	unsigned int i;

	if (!o)
		return;
	for (i = 0; i < o->nslots; i++) {
		ht_tensor_free(o->slots[i].s0);
		ht_tensor_free(o->slots[i].s1);
	}
	free(o->slots);
	free(o->groups);
	free(o->base_lr);
	free(o);
}
