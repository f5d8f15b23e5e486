// SPDX-License-Identifier: MIT
/*
 * optim_sched.c - learning-rate schedules (ht_optim.h): a linear warm-up,
 * then constant or a cosine decay to a floor, as a pure function of the
 * update count so that a resumed run continues the curve exactly.
 */
#include <math.h>

#include "ht_optim.h"

float ht_lr_at(const struct ht_lr_schedule *s, float base, uint64_t step)
{
	double b = base, m, p;
	uint64_t w = s->warmup_steps, span;

	if (step < w)
		return (float)(b * (double)(step + 1) / (double)w);
	if (s->kind != HT_LR_COSINE)
		return base;
	m = s->lr_min < base ? s->lr_min : b;
	span = s->total_steps > w ? s->total_steps - w : 0;
	p = span ? (double)(step - w) / (double)span : 1.0;
	if (p > 1.0)
		p = 1.0;
	return (float)(m + (b - m) * 0.5 * (1.0 + cos(M_PI * p)));
}
