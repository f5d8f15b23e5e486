// SPDX-License-Identifier: MIT
/*
 * callback_csv.c - the CSV metrics log: <log_dir>/metrics.csv, one row
 * per log_every_n_steps optimizer steps and one per validation, written
 * by rank 0 and flushed at every row (a killed run keeps its rows). A
 * resumed run first cuts the log back to what the run had written when
 * its checkpoint was taken (rewritten atomically), then appends: the rows
 * the killed run logged after the checkpoint are logged again by the
 * resumed run, and would otherwise appear twice.
 *
 * With log_plot, the log is drawn as metrics.svg beside it (read back
 * from the file, so a resumed run's picture has the rows of the run
 * before it) after every epoch and at the end of every fit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ht_metrics_plot.h"
#include "trainer_internal.h"

#define CSV_HEADER                                                 \
	"step,epoch,batch,loss,lr,val_loss,val_acc,samples_per_s," \
	"step_time_s,mem_in_use,mem_peak,utilization\n"

/*
 * Rows of step @t->step (the checkpoint's) to keep: the step's own row
 * (written after the checkpoint) when it was logged, and its epoch-end
 * row unless the checkpoint was taken before that epoch end, which the
 * resumed run then does (and logs) again.
 */
static unsigned int rows_at_ckpt(const struct ht_trainer *t)
{
	uint64_t every = t->o.log_every_n_steps;
	unsigned int n = !every || t->step % every == 0;

	return t->batch >= ht_trainer_epoch_steps(t) ? n : UINT32_MAX;
}

/*
 * Cut the log of a resumed run back to the checkpoint: the header, every
 * row of an earlier step, rows_at_ckpt() rows of the checkpoint's step.
 * Return 1 when rows remain (append to it), 0 when the log is to be
 * started afresh, or -errno.
 */
static int csv_cut(struct ht_trainer *t, const char *path)
{
	unsigned int keep_at = rows_at_ckpt(t), at = 0;
	char *line = NULL, *out = NULL;
	size_t cap = 0, outlen = 0;
	FILE *in, *mem;
	ssize_t len;
	bool first = true;
	int ret = 0;

	in = fopen(path, "r");
	if (!in)
		return errno == ENOENT ? 0 : -errno;
	mem = open_memstream(&out, &outlen);
	if (!mem) {
		fclose(in);
		return -ENOMEM;
	}
	while ((len = getline(&line, &cap, in)) > 0) {
		unsigned long long step;
		char *end;

		if (first) {
			first = false;
			if (strcmp(line, CSV_HEADER)) {
				ret = -EINVAL;
				break;
			}
			fputs(line, mem);
			continue;
		}
		step = strtoull(line, &end, 10);
		if (end == line || *end != ',' || line[len - 1] != '\n')
			continue; /* a row the kill cut short */
		if (step > t->step || (step == t->step && at++ >= keep_at))
			continue;
		fputs(line, mem);
	}
	free(line);
	fclose(in);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (!ret && !first) { /* an empty file is started afresh */
		ret = ht_trainer_write_atomic(path, out, outlen, NULL, 0);
		if (!ret)
			ret = 1;
	}
	free(out);
	return ret;
}

int ht_callback_csv_open(struct ht_trainer *t)
{
	char path[4096];
	bool append = false;
	int ret;

	if (!t->o.log_dir || t->rank != 0)
		return 0;
	if (mkdir(t->o.log_dir, 0755) && errno != EEXIST)
		return ht_trainer_seterr(t, -errno,
					 "cannot create log dir %s: %s",
					 t->o.log_dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/metrics.csv", t->o.log_dir);
	if (t->o.resume_path) {
		ret = csv_cut(t, path);
		if (ret == -EINVAL)
			return ht_trainer_seterr(
				t, ret,
				"%s is not a metrics log of this trainer (its first line is not the header); move it away to resume",
				path);
		if (ret < 0)
			return ht_trainer_seterr(
				t, ret,
				"cannot cut %s back to the checkpoint's step %llu: %s",
				path, (unsigned long long)t->step,
				strerror(-ret));
		append = ret == 1;
	}
	t->cb.csv = fopen(path, append ? "a" : "w");
	if (!t->cb.csv)
		return ht_trainer_seterr(t, -errno, "cannot open %s: %s", path,
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

void ht_callback_csv_row(struct ht_trainer *t, const struct ht_step_info *i,
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

int ht_callback_csv_plot(struct ht_trainer *t, bool report)
{
	char csv[4096], svg[4096], title[4200], err[512];
	struct ht_metrics_curves c;
	int ret;

	if (!t->cb.csv || !t->o.log_plot)
		return 0;
	snprintf(csv, sizeof(csv), "%s/metrics.csv", t->o.log_dir);
	snprintf(svg, sizeof(svg), "%s/metrics.svg", t->o.log_dir);
	snprintf(title, sizeof(title), "hpu-train: %s", csv);
	if (fflush(t->cb.csv)) {
		ret = -errno;
		snprintf(err, sizeof(err), "writing metrics.csv: %s",
			 strerror(errno));
	} else {
		/* its messages name the file and the line */
		ret = ht_metrics_read(csv, &c, err, sizeof(err));
		if (!ret) {
			ret = ht_metrics_svg(&c, title, svg);
			if (ret)
				snprintf(err, sizeof(err), "%s",
					 strerror(-ret));
		}
		ht_metrics_free(&c);
	}
	if (ret && report)
		return ht_trainer_seterr(t, ret, "cannot draw %s: %s", svg,
					 err);
	return ret;
}

void ht_callback_csv_close(struct ht_trainer *t)
{
	if (t->cb.csv)
		fclose(t->cb.csv);
	t->cb.csv = NULL;
}
