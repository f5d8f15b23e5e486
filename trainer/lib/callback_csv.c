// SPDX-License-Identifier: MIT
/*
 * callback_csv.c - the CSV metrics log: <log_dir>/metrics.csv, one row
 * per log_every_n_steps optimizer steps and one per validation, written
 * by rank 0 and flushed at every row (a killed run keeps its rows; a
 * resumed run appends).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trainer_internal.h"

#define CSV_HEADER                                                 \
	"step,epoch,batch,loss,lr,val_loss,val_acc,samples_per_s," \
	"step_time_s,mem_in_use,mem_peak,utilization\n"

int cb_csv_open(struct ht_trainer *t)
{
	char path[4096];
	struct stat st;
	bool append;

	if (!t->o.log_dir || t->rank != 0)
		return 0;
	if (mkdir(t->o.log_dir, 0755) && errno != EEXIST)
		return trainer_seterr(t, -errno, "cannot create log dir %s: %s",
				      t->o.log_dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/metrics.csv", t->o.log_dir);
	append = t->o.resume_path && !stat(path, &st) && st.st_size > 0;
	t->cb.csv = fopen(path, append ? "a" : "w");
	if (!t->cb.csv)
		return trainer_seterr(t, -errno, "cannot open %s: %s", path,
				      strerror(errno));
	if (!append)
		fputs(CSV_HEADER, t->cb.csv);
	fflush(t->cb.csv);
	return 0;
}

static void put_float(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.6g", v);
}

void cb_csv_row(struct ht_trainer *t, const struct ht_step_info *i,
		bool with_val)
{
	FILE *f = t->cb.csv;

	if (!f)
		return;
	fprintf(f, "%llu,%llu,%llu", (unsigned long long)i->step,
		(unsigned long long)i->epoch, (unsigned long long)i->batch);
	put_float(f, i->loss);
	put_float(f, i->lr);
	put_float(f, with_val ? t->val_loss : NAN);
	put_float(f, with_val ? t->val_acc : NAN);
	put_float(f, i->samples_per_s);
	put_float(f, i->step_time_s);
	fprintf(f, ",%llu,%llu,", (unsigned long long)i->mem_in_use,
		(unsigned long long)i->mem_peak);
	if (i->utilization >= 0)
		fprintf(f, "%d", i->utilization);
	fputc('\n', f);
	fflush(f);
}

void cb_csv_close(struct ht_trainer *t)
{
	if (t->cb.csv)
		fclose(t->cb.csv);
	t->cb.csv = NULL;
}
