// SPDX-License-Identifier: MIT
/*
 * callback_progress.c - the built-in callbacks' entry points and the
 * progress output: a bar redrawn in place when the output is a TTY,
 * plain lines (one per epoch, one per log_every_n_steps steps) when it is
 * not, nothing with progress off. Rank 0 prints unless every rank is
 * asked to (each line then starts with "[rank N]").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trainer_internal.h"

#define BAR_WIDTH 24

int ht_callback_init(struct ht_trainer *t)
{
	int p = t->o.progress;

	t->cb.quiet = p == HT_TRAIN_PROGRESS_OFF ||
		      (t->rank != 0 && !t->o.all_ranks_print);
	t->cb.bar = p == HT_TRAIN_PROGRESS_BAR ||
		    (p == HT_TRAIN_PROGRESS_AUTO && isatty(fileno(t->out)));
	return ht_callback_csv_open(t);
}

void ht_callback_fini(struct ht_trainer *t)
{
	ht_callback_csv_close(t);
}

static void prefix(struct ht_trainer *t)
{
	if (t->o.all_ranks_print && t->world > 1)
		fprintf(t->out, "[rank %u] ", t->rank);
}

void ht_callback_epoch_start(struct ht_trainer *t, uint64_t batches)
{
	(void)batches;
	t->cb.bar_len = 0;
}

static void draw_bar(struct ht_trainer *t, const struct ht_step_info *i)
{
	char bar[BAR_WIDTH + 1];
	unsigned int fill, k;
	int len;

	fill = (unsigned int)((i->batch + 1) * BAR_WIDTH /
			      (i->batches ? i->batches : 1));
	for (k = 0; k < BAR_WIDTH; k++)
		bar[k] = k < fill ? '#' : '.';
	bar[BAR_WIDTH] = 0;
	fputc('\r', t->out);
	prefix(t);
	len = fprintf(t->out,
		      "epoch %llu [%s] %llu/%llu loss %.4f %.0f samples/s",
		      (unsigned long long)i->epoch, bar,
		      (unsigned long long)i->batch + 1,
		      (unsigned long long)i->batches, i->loss,
		      i->samples_per_s);
	if (len < t->cb.bar_len)
		fprintf(t->out, "%*s", t->cb.bar_len - len, "");
	t->cb.bar_len = len;
	fflush(t->out);
}

void ht_callback_step(struct ht_trainer *t, struct ht_step_info *info)
{
	uint64_t every = t->o.log_every_n_steps;

	if (!every || info->step % every == 0)
		ht_callback_csv_row(t, info, false);
	if (t->cb.quiet)
		return;
	if (t->cb.bar) {
		draw_bar(t, info);
		return;
	}
	if (every && info->step % every == 0) {
		prefix(t);
		fprintf(t->out,
			"step %llu epoch %llu batch %llu/%llu loss %.4f lr %g %.0f samples/s\n",
			(unsigned long long)info->step,
			(unsigned long long)info->epoch,
			(unsigned long long)info->batch + 1,
			(unsigned long long)info->batches, info->loss, info->lr,
			info->samples_per_s);
	}
}

void ht_callback_epoch_end(struct ht_trainer *t,
			   const struct ht_step_info *last)
{
	ht_callback_csv_row(t, last, true);
	if (t->cb.quiet)
		return;
	if (t->cb.bar && t->cb.bar_len)
		fputc('\n', t->out);
	t->cb.bar_len = 0;
	prefix(t);
	fprintf(t->out, "epoch %llu: step %llu loss %.4f",
		(unsigned long long)t->epoch, (unsigned long long)last->step,
		last->loss);
	if (!isnan(t->val_loss))
		fprintf(t->out, " val_loss %.4f val_acc %.2f%%", t->val_loss,
			100.0 * t->val_acc);
	fprintf(t->out, " %.0f samples/s\n", last->samples_per_s);
	fflush(t->out);
}
