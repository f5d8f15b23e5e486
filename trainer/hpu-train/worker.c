// SPDX-License-Identifier: MIT
/*
 * worker.c - one rank of hpu-train: the trainer's options from the
 * command line and the resolved devices and cluster, fit, test on the
 * held-out split, and a summary (rank 0, or every rank with
 * --all-ranks-print).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpu_train.h"
#include "hpudrv.h"

const char *htc_exec_name(int mode)
{
	switch (mode) {
	case HT_TRAIN_EXEC_EAGER:
		return "eager";
	case HT_TRAIN_EXEC_GRAPH:
		return "graph";
	default:
		return "lazy";
	}
}

static const char *act_name(int act)
{
	switch (act) {
	case HT_TRAIN_ACT_GELU:
		return "gelu";
	case HT_TRAIN_ACT_TANH:
		return "tanh";
	default:
		return "relu";
	}
}

/* input width and classes of the data when the options say them */
static void data_shape(const struct htc_opts *o, uint32_t *in,
		       uint32_t *classes)
{
	*in = 0;
	*classes = 0;
	if (o->t.data == HT_TRAIN_DATA_DIGITS) {
		*in = HT_DIGITS_FEATURES;
		*classes = HT_DIGITS_CLASSES;
	} else if (o->t.data == HT_TRAIN_DATA_SYNTH) {
		*in = o->t.synth.f;
		*classes = o->t.synth.classes;
	}
}

const char *htc_model_desc(const struct htc_opts *o, uint32_t in,
			   uint32_t classes, char *buf, size_t len)
{
	const struct ht_train_mlp *m = &o->t.mlp;
	size_t off;
	unsigned int i;

	if (o->t.model == HT_TRAIN_MODEL_GPT) {
		snprintf(buf, len,
			 "gpt (%u layers, %u heads, width %u, context %u%s)",
			 o->t.gpt.layers, o->t.gpt.heads, o->t.gpt.dim,
			 o->t.gpt.context, o->t.gpt.tied ? ", tied" : "");
		return buf;
	}
	if (o->t.model == HT_TRAIN_MODEL_MIXER) {
		snprintf(buf, len, "mixer (dim %u, hidden %u, %u blocks)",
			 o->t.mixer.dim, o->t.mixer.hidden, o->t.mixer.blocks);
		return buf;
	}
	off = (size_t)snprintf(buf, len, "mlp ");
	if (in)
		off += (size_t)snprintf(buf + off, len > off ? len - off : 0,
					"%u", in);
	else
		off += (size_t)snprintf(buf + off, len > off ? len - off : 0,
					"in");
	for (i = 0; i < m->nhidden; i++)
		off += (size_t)snprintf(buf + off, len > off ? len - off : 0,
					"-%u", m->hidden[i]);
	if (classes)
		snprintf(buf + off, len > off ? len - off : 0, "-%u %s",
			 classes, act_name(m->act));
	else
		snprintf(buf + off, len > off ? len - off : 0, "-out %s",
			 act_name(m->act));
	return buf;
}

/* the trainer's place and device from what main resolved */
static void place(struct htc_opts *o, const struct ht_devices *dev,
		  const struct ht_cluster *cl)
{
	struct ht_trainer_opts *t = &o->t;
	const char *tty = getenv(HTC_ENV_TTY);

	t->accel = dev->accel == HT_ACCEL_HPU ? HT_TRAIN_ACCEL_HPU :
						HT_TRAIN_ACCEL_CPU;
	t->device_index = dev->accel == HT_ACCEL_HPU ?
				  dev->index[cl->local_rank % dev->count] :
				  0;
	t->strategy = dev->strategy == HT_STRATEGY_PARALLEL ? HT_TRAIN_DDP :
							      HT_TRAIN_SINGLE;
	t->cluster = *cl;
	/* a launched worker writes into a pipe: the launcher's terminal */
	if (t->progress == HT_TRAIN_PROGRESS_AUTO && tty && !strcmp(tty, "1"))
		t->progress = HT_TRAIN_PROGRESS_BAR;
}

/* errors of every rank, labelled when the run has several */
static void rank_error(const struct ht_cluster *cl, const char *what,
		       const char *msg)
{
	/* the launcher labels its workers' lines itself */
	if (cl->world_size > 1 && !getenv(HTC_ENV_LAUNCHED))
		fprintf(stderr, HTC_PROG ": rank %u: %s: %s\n", cl->rank, what,
			msg);
	else
		fprintf(stderr, HTC_PROG ": %s: %s\n", what, msg);
}

static void banner(const struct htc_opts *o, const struct ht_devices *dev,
		   const struct ht_cluster *cl)
{
	const struct ht_trainer_opts *t = &o->t;
	uint32_t in, classes;
	char model[160];

	data_shape(o, &in, &classes);
	htc_model_desc(o, in, classes, model, sizeof(model));
	printf(HTC_PROG ": %s on %s | %s x %u", model, o->data_name,
	       dev->accel == HT_ACCEL_HPU ? "hpu" : "cpu", cl->world_size);
	if (cl->num_nodes > 1)
		printf(" (%u nodes x %u)", cl->num_nodes, cl->local_world_size);
	printf(", %s | %s, %s | batch %u per rank (global %u)\n",
	       dev->strategy == HT_STRATEGY_PARALLEL ? "hpu_parallel" :
						       "single_hpu",
	       t->precision == HT_TRAIN_PREC_BF16_MIXED ? "bf16-mixed" : "fp32",
	       htc_exec_name(t->exec_mode), t->batch_size,
	       t->batch_size * cl->world_size * t->accumulate_grad_batches);
	fflush(stdout);
}

/* FNV-1a (64 bit) of the final weights' bytes: equal runs, equal hash */
static int weights_hash(struct ht_trainer *tr, uint64_t *hash, uint64_t *n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const uint8_t *b;
	size_t i, bytes;
	float *w;
	int ret;

	*n = ht_trainer_numel(tr);
	w = malloc((*n ? *n : 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = ht_trainer_read_params(tr, w);
	if (!ret) {
		b = (const uint8_t *)w;
		bytes = *n * sizeof(*w);
		for (i = 0; i < bytes; i++)
			h = (h ^ b[i]) * 0x100000001b3ULL;
		*hash = h;
	}
	free(w);
	return ret;
}

/*
 * The run's results, printed here only (the library prints progress,
 * never results): rank 0, or every rank labelled with --all-ranks-print.
 */
static void summary(const struct htc_opts *o, const struct ht_cluster *cl,
		    const struct ht_trainer_result *r, bool tested,
		    const uint64_t *hash, uint64_t numel)
{
	char label[32] = "";

	if (o->t.all_ranks_print && cl->world_size > 1)
		snprintf(label, sizeof(label), "[rank %u] ", cl->rank);
	if (r->nlosses)
		printf("%sfinal loss %.6f after %llu steps (%llu epochs) "
		       "in %.2f s\n",
		       label, r->losses[r->nlosses - 1],
		       (unsigned long long)r->steps,
		       (unsigned long long)r->epochs, r->fit_time_s);
	else
		printf("%sno training step ran (%llu steps done)\n", label,
		       (unsigned long long)r->steps);
	if (r->resumed_step)
		printf("%sresumed from the checkpoint of step %llu\n", label,
		       (unsigned long long)r->resumed_step);
	if (!isnan(r->val_acc))
		printf("%svalidation accuracy %.2f%%, loss %.6f\n", label,
		       100.0 * r->val_acc, r->val_loss);
	if (tested)
		printf("%stest accuracy %.2f%% (%llu samples), test loss "
		       "%.6f\n",
		       label, 100.0 * r->test_acc,
		       (unsigned long long)r->test_samples, r->test_loss);
	if (r->samples_per_s > 0)
		printf("%sthroughput %.0f samples/s (step %.3f ms, %u "
		       "rank%s)\n",
		       label, r->samples_per_s, 1000.0 * r->step_time_s,
		       cl->world_size, cl->world_size > 1 ? "s" : "");
	if (hash)
		printf("%sweights fnv1a64 %016llx (%llu parameters)\n", label,
		       (unsigned long long)*hash, (unsigned long long)numel);
	fflush(stdout);
}

/* mkdir -p: a directory and its missing parents */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

/* the output directories exist before the trainer writes into them */
static int make_dirs(const struct htc_opts *o)
{
	const char *dirs[2] = { o->t.log_dir, o->t.ckpt_dir };
	const char *names[2] = { "--log-dir", "--ckpt-dir" };
	int i, ret;

	for (i = 0; i < 2; i++) {
		if (!dirs[i])
			continue;
		ret = mkdir_p(dirs[i]);
		if (ret) {
			fprintf(stderr,
				HTC_PROG ": %s '%s': cannot create it: %s\n",
				names[i], dirs[i], strerror(-ret));
			return HTC_EXIT_USAGE;
		}
	}
	return HTC_EXIT_OK;
}

int htc_worker(struct htc_opts *o, const struct ht_devices *dev,
	       const struct ht_cluster *cl)
{
	struct ht_trainer_result r;
	struct ht_trainer *tr = NULL;
	bool talk, tested = false;
	uint64_t hash = 0, numel = 0;
	char err[512] = "";
	int ret;

	place(o, dev, cl);
	ret = make_dirs(o);
	if (!ret)
		ret = htc_profile_start(o, cl);
	if (ret)
		return ret;
	talk = (cl->rank == 0 || o->t.all_ranks_print) &&
	       o->t.progress != HT_TRAIN_PROGRESS_OFF;
	if (talk && cl->rank == 0)
		banner(o, dev, cl);
	ret = ht_trainer_create(&o->t, &tr, err, sizeof(err));
	if (ret) {
		rank_error(cl, "cannot start training", err);
		/* -EINVAL: an input is wrong (a checkpoint that is corrupt or
		 * of another run), not the machine: a usage error */
		return ret == -EINVAL ? HTC_EXIT_USAGE : HTC_EXIT_FAIL;
	}
	memset(&r, 0, sizeof(r));
	ret = ht_trainer_fit(tr, &r);
	if (ret) {
		rank_error(cl, "training failed", ht_trainer_error(tr));
		ht_trainer_destroy(tr);
		return HTC_EXIT_FAIL;
	}
	if (o->t.test_frac > 0) {
		ret = ht_trainer_test(tr, &r);
		if (ret && ret != -ENODATA) {
			rank_error(cl, "test failed", ht_trainer_error(tr));
			ht_trainer_destroy(tr);
			return HTC_EXIT_FAIL;
		}
		tested = !ret;
	}
	if (o->weights_hash) {
		ret = weights_hash(tr, &hash, &numel);
		if (ret) {
			rank_error(cl, "reading the weights failed",
				   ht_trainer_error(tr));
			ht_trainer_destroy(tr);
			return HTC_EXIT_FAIL;
		}
	}
	if (talk || (cl->rank == 0 && o->t.progress == HT_TRAIN_PROGRESS_OFF))
		summary(o, cl, &r, tested, o->weights_hash ? &hash : NULL,
			numel);
	ht_trainer_destroy(tr);
	return HTC_EXIT_OK;
}

void htc_bench_opts(const struct htc_opts *o, int accel, int mode, int pf,
		    struct ht_trainer_opts *t)
{
	*t = o->t;
	t->accel = accel;
	t->exec_mode = mode;
	t->strategy = HT_TRAIN_SINGLE;
	t->progress = HT_TRAIN_PROGRESS_OFF;
	t->log_dir = NULL;
	t->ckpt_dir = NULL;
	t->resume_path = NULL;
	t->device_stats = false;
	t->on_step = NULL;
	/* no validation or test in a benchmark: every sample trains */
	t->val_frac = 0;
	t->test_frac = 0;
	if (pf >= 0)
		t->device_prefetch = pf;
}

/* A round of a path, unless an earlier round of it failed */
static void bench_round(struct htc_opts *o, int accel, int mode, int pf,
			struct htc_bench_row *row)
{
	struct ht_trainer_opts t;
	struct ht_trainer_result r;
	struct ht_trainer *tr = NULL;
	char err[512] = "";
	int ret;

	if (row->ret)
		return;
	htc_bench_opts(o, accel, mode, pf, &t);
	t.bench_model = accel == HT_TRAIN_ACCEL_HPU && o->timing_model;
	row->accel = accel;
	row->mode = mode;
	row->pf = accel == HT_TRAIN_ACCEL_HPU && t.device_prefetch;
	if (accel == HT_TRAIN_ACCEL_HPU)
		snprintf(row->path, sizeof(row->path), "hpu/%s%s",
			 htc_exec_name(mode),
			 pf < 0 ? "" :
			 pf	? "/pf-on" :
				  "/pf-off");
	else
		snprintf(row->path, sizeof(row->path), "cpu");
	ret = ht_trainer_create(&t, &tr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, HTC_PROG ": benchmark %s: %s\n", row->path,
			err);
		row->ret = ret;
		return;
	}
	memset(&r, 0, sizeof(r));
	ret = ht_trainer_benchmark(tr, &r);
	if (ret)
		fprintf(stderr, HTC_PROG ": benchmark %s: %s\n", row->path,
			ht_trainer_error(tr));
	row->round_s[row->nrounds] = r.step_time_s;
	row->round_sps[row->nrounds] = r.samples_per_s;
	row->round_model_s[row->nrounds] = r.model_step_s;
	row->round_mme_s[row->nrounds] = r.model_mme_s;
	if (r.model_chip[0])
		memcpy(row->model_chip, r.model_chip, sizeof(row->model_chip));
	row->nrounds++;
	row->prefetches += r.prefetches;
	row->overlapped += r.prefetch_overlapped;
	ht_trainer_destroy(tr);
	row->ret = ret;
}

void htc_bench_median(struct htc_bench_row *row)
{
	unsigned int i, j, below, med = 0;
	double lo, hi;

	if (row->ret || !row->nrounds)
		return;
	lo = hi = row->round_s[0];
	for (i = 0; i < row->nrounds; i++) {
		/* rounds faster than i, ties broken by index */
		for (j = 0, below = 0; j < row->nrounds; j++)
			below += row->round_s[j] < row->round_s[i] ||
				 (row->round_s[j] == row->round_s[i] && j < i);
		if (below == (row->nrounds - 1) / 2)
			med = i;
		lo = row->round_s[i] < lo ? row->round_s[i] : lo;
		hi = row->round_s[i] > hi ? row->round_s[i] : hi;
	}
	row->step_s = row->round_s[med];
	row->samples_per_s = row->round_sps[med];
	row->model_s = row->round_model_s[med];
	row->mme_s = row->round_mme_s[med];
	row->spread = row->step_s > 0 ? (hi - lo) / row->step_s : 0;
}

/* the row of the same mode with prefetch off (for a prefetch-on row) */
static const struct htc_bench_row *pf_off_row(const struct htc_bench_row *rows,
					      unsigned int n,
					      const struct htc_bench_row *b)
{
	unsigned int i;

	for (i = 0; b->pf && i < n; i++)
		if (rows[i].accel == HT_TRAIN_ACCEL_HPU &&
		    rows[i].mode == b->mode && !rows[i].pf && !rows[i].ret &&
		    rows[i].step_s > 0)
			return &rows[i];
	return NULL;
}

static void bench_table(const struct htc_bench_row *rows, unsigned int n,
			bool pf_cols, bool spread_col, const char *model)
{
	char mhead[24], mme[24];
	const struct htc_bench_row *cpu = &rows[n - 1], *eager = NULL, *off;
	unsigned int i;

	/* the eager row to compare with: prefetch as configured (on) */
	for (i = 0; i < n; i++)
		if (rows[i].accel == HT_TRAIN_ACCEL_HPU &&
		    rows[i].mode == HT_TRAIN_EXEC_EAGER && !rows[i].ret &&
		    (!eager || rows[i].pf))
			eager = &rows[i];
	printf("%-16s %12s %12s %10s %10s", "path", "step_ms", "samples/s",
	       "x_cpu", "vs_eager");
	if (model) {
		snprintf(mhead, sizeof(mhead), "%s_us", model);
		snprintf(mme, sizeof(mme), "%s_mme_us", model);
		printf(" %12s %14s", mhead, mme);
	}
	if (pf_cols)
		printf(" %10s %10s", "vs_pf_off", "overlap");
	if (spread_col)
		printf(" %8s", "spread");
	printf("\n");
	for (i = 0; i < n; i++) {
		const struct htc_bench_row *b = &rows[i];

		if (b->ret) {
			printf("%-16s %12s %12s %10s %10s\n", b->path, "failed",
			       "-", "-", "-");
			continue;
		}
		printf("%-16s %12.3f %12.0f", b->path, 1000.0 * b->step_s,
		       b->samples_per_s);
		if (!cpu->ret && cpu->step_s > 0)
			printf(" %10.3f", b->step_s / cpu->step_s);
		else
			printf(" %10s", "-");
		if (eager && b != cpu && b->step_s > 0)
			printf(" %9.2fx", eager->step_s / b->step_s);
		else
			printf(" %10s", "-");
		if (model && b->model_s > 0)
			printf(" %12.3f %14.3f", 1e6 * b->model_s,
			       1e6 * b->mme_s);
		else if (model)
			printf(" %12s %14s", "-", "-");
		if (pf_cols) {
			off = pf_off_row(rows, n, b);
			if (off && b->step_s > 0)
				printf(" %9.2fx", off->step_s / b->step_s);
			else
				printf(" %10s", "-");
			if (b->prefetches)
				printf(" %6llu/%-3llu",
				       (unsigned long long)b->overlapped,
				       (unsigned long long)b->prefetches);
			else
				printf(" %10s", "-");
		}
		if (spread_col)
			printf(" %7.1f%%", 100.0 * b->spread);
		printf("\n");
	}
	printf("(x_cpu: step time / the cpu path's step time, lower is "
	       "faster; vs_eager: speed-up over hpu/eager)\n");
	if (model)
		printf("(%s_us: modeled %s step: the timed steps' device jobs "
		       "laid out on the timing model's device time, "
		       "submissions in order without host time, per step; "
		       "%s_mme_us: of it the MME busy time; "
		       "docs/timing-model.md)\n",
		       model, model, model);
	if (spread_col)
		printf("(each row: its median round; spread: slowest minus "
		       "fastest round, over the median)\n");
	if (pf_cols)
		printf("(vs_pf_off: speed-up of device prefetch over the same "
		       "mode without it; overlap: batch copies still running "
		       "when the step before them was submitted / batches "
		       "prefetched)\n");
}

/*
 * The device model computes each job's model_ns on the device's own chip:
 * --timing-model must name it
 */
static bool model_matches(const struct htc_opts *o)
{
	struct hpu_device_info info;
	char chip[sizeof(info.device_type)];
	size_t i;

	if (hpu_device_get_info((int)o->t.device_index, &info) ||
	    !info.device_type[0])
		return true; /* the trace will say what it can */
	for (i = 0; i + 1 < sizeof(chip) && info.device_type[i]; i++)
		chip[i] = (char)tolower((unsigned char)info.device_type[i]);
	chip[i] = 0;
	if (!strcmp(chip, o->timing_model))
		return true;
	fprintf(stderr,
		HTC_PROG ": --timing-model %s: the device model times jobs on "
			 "its own chip and hpu%u is a %s (use --timing-model "
			 "%s or none, or a daemon of --type %s)\n",
		o->timing_model, o->t.device_index, chip, chip,
		o->timing_model);
	return false;
}

int htc_benchmark(struct htc_opts *o, const struct ht_devices *dev,
		  const struct ht_cluster *cl)
{
	struct htc_bench_row rows[7];
	uint32_t modes = o->bench_modes, in, classes;
	uint32_t rounds = o->bench_rounds ? o->bench_rounds : 1, k;
	unsigned int n = 0, m, i;
	char model[160];
	int failed = 0;

	place(o, dev, cl);
	if (cl->world_size > 1)
		return htc_bench_ddp(o, cl);
	if (dev->accel == HT_ACCEL_HPU && o->timing_model && !model_matches(o))
		return HTC_EXIT_USAGE;
	memset(rows, 0, sizeof(rows));
	if (!modes)
		modes = 1U << o->t.exec_mode;
	data_shape(o, &in, &classes);
	printf(HTC_PROG " benchmark: %s on %s, batch %u, %s, %u warm-up + "
			"%u timed steps",
	       htc_model_desc(o, in, classes, model, sizeof(model)),
	       o->data_name, o->t.batch_size,
	       o->t.precision == HT_TRAIN_PREC_BF16_MIXED ? "bf16-mixed" :
							    "fp32",
	       o->t.bench_warmup, o->t.bench_steps);
	if (rounds > 1)
		printf(", %u rounds of every path in turn", rounds);
	printf("\n");
	fflush(stdout);
	/*
	 * Round after round, every path in the same order: a slow spell of
	 * the machine hits a round of each path, not one path's every step,
	 * and the median round leaves it out.
	 */
	for (k = 0; k < rounds; k++) {
		n = 0;
		for (m = HT_TRAIN_EXEC_EAGER; m <= HT_TRAIN_EXEC_GRAPH; m++) {
			if (dev->accel != HT_ACCEL_HPU || !(modes & (1U << m)))
				continue;
			if (o->bench_prefetch)
				bench_round(o, HT_TRAIN_ACCEL_HPU, (int)m, 0,
					    &rows[n++]);
			bench_round(o, HT_TRAIN_ACCEL_HPU, (int)m,
				    o->bench_prefetch ? 1 : -1, &rows[n++]);
		}
		bench_round(o, HT_TRAIN_ACCEL_CPU, o->t.exec_mode, -1,
			    &rows[n++]);
	}
	for (i = 0; i < n; i++) {
		htc_bench_median(&rows[i]);
		failed |= rows[i].ret;
	}
	bench_table(rows, n, o->bench_prefetch, rounds > 1,
		    dev->accel == HT_ACCEL_HPU ? o->timing_model : NULL);
	fflush(stdout);
	return failed ? HTC_EXIT_FAIL : HTC_EXIT_OK;
}
