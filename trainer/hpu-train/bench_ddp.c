// SPDX-License-Identifier: MIT
/*
 * bench_ddp.c - --benchmark with several ranks on one node: the data
 * parallel step (hpu_parallel, gradients allreduced through libhpuccl as
 * in training) beside the one-device step of the same model, per-rank
 * batch and mode, measured in the same run.
 *
 * Every rank makes one data parallel trainer per mode asked for, in the
 * same order, and keeps them to the end: one communicator per mode, all
 * alive together, so rank 0's rendezvous store serves them all and is
 * never torn down and set up again between rounds. Then, round after
 * round and mode after mode:
 *
 *   rank 0 alone: a one-device trainer of the mode (a world of one, on
 *	rank 0's device), its warm-up and timed steps, destroyed again;
 *	the other ranks wait meanwhile in a barrier of the mode's trainer,
 *	asleep in their device's completion wait, so the reference is one
 *	device with the machine's other ranks idle (not N devices sharing
 *	the cores);
 *   every rank: the barrier, then the same warm-up and timed steps of
 *	the mode's data parallel trainer (ht_trainer_benchmark() meets at
 *	a barrier again after the warm-up, so the timed windows coincide).
 *
 * The reference and the data parallel round of a mode follow each other
 * within seconds, so a slow spell of the machine tends to hit both, and
 * each row reports the median round of each as the one-device benchmark
 * does. Rank 0 prints the table, and the target of issue 11 for each
 * mode: the N-rank step at most twice the one-device step.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hpu_train.h"

/* the target: a data parallel step at most this many one-device steps */
#define DDP_TARGET_RATIO 2.0

/**
 * struct ddp_path - one execution mode of the benchmark
 * @mode: enum ht_train_exec
 * @tr: its data parallel trainer (every rank)
 * @ddp: the data parallel rounds
 * @one: the one-device rounds (rank 0)
 */
struct ddp_path {
	int mode;
	struct ht_trainer *tr;
	struct htc_bench_row ddp;
	struct htc_bench_row one;
};

/* The one-device trainer's options: a world of one on rank 0's device */
static void one_device_opts(const struct htc_opts *o, int mode,
			    struct ht_trainer_opts *t)
{
	htc_bench_opts(o, HT_TRAIN_ACCEL_HPU, mode, -1, t);
	t->strategy = HT_TRAIN_SINGLE;
	t->cluster.world_size = 1;
	t->cluster.rank = 0;
	t->cluster.local_rank = 0;
	t->cluster.node_rank = 0;
	t->cluster.local_world_size = 1;
	t->cluster.num_nodes = 1;
	t->cluster.launcher_needed = false;
}

static void row_add(struct htc_bench_row *row,
		    const struct ht_trainer_result *r)
{
	row->round_s[row->nrounds] = r->step_time_s;
	row->round_sps[row->nrounds] = r->samples_per_s;
	row->nrounds++;
}

/* Rank 0: a round of the one-device reference, unless one failed */
static void one_device_round(struct htc_opts *o, struct ddp_path *p)
{
	struct ht_trainer_opts t;
	struct ht_trainer_result r;
	struct ht_trainer *tr = NULL;
	char err[512] = "";
	int ret;

	if (p->one.ret)
		return;
	one_device_opts(o, p->mode, &t);
	ret = ht_trainer_create(&t, &tr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, HTC_PROG ": benchmark %s on one device: %s\n",
			p->one.path, err);
		p->one.ret = ret;
		return;
	}
	memset(&r, 0, sizeof(r));
	ret = ht_trainer_benchmark(tr, &r);
	if (ret)
		fprintf(stderr, HTC_PROG ": benchmark %s on one device: %s\n",
			p->one.path, ht_trainer_error(tr));
	else
		row_add(&p->one, &r);
	ht_trainer_destroy(tr);
	p->one.ret = ret;
}

/* Every rank: the mode's data parallel trainer */
static int ddp_create(struct htc_opts *o, struct ddp_path *p)
{
	struct ht_trainer_opts t;
	char err[512] = "";
	int ret;

	htc_bench_opts(o, HT_TRAIN_ACCEL_HPU, p->mode, -1, &t);
	t.strategy = HT_TRAIN_DDP;
	ret = ht_trainer_create(&t, &p->tr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, HTC_PROG ": benchmark %s data parallel: %s\n",
			p->ddp.path, err);
		p->tr = NULL;
		p->ddp.ret = ret;
	}
	return ret;
}

/* Every rank: wait for rank 0's reference, then a data parallel round */
static int ddp_round(struct ddp_path *p)
{
	struct ht_trainer_result r;
	int ret;

	ret = ht_trainer_barrier(p->tr);
	if (ret) {
		fprintf(stderr,
			HTC_PROG ": benchmark %s: waiting for rank 0's "
				 "one-device round: %s (it must end within "
				 "--ccl-timeout)\n",
			p->ddp.path, ht_trainer_error(p->tr));
		p->ddp.ret = ret;
		return ret;
	}
	memset(&r, 0, sizeof(r));
	ret = ht_trainer_benchmark(p->tr, &r);
	if (ret) {
		fprintf(stderr, HTC_PROG ": benchmark %s data parallel: %s\n",
			p->ddp.path, ht_trainer_error(p->tr));
		p->ddp.ret = ret;
		return ret;
	}
	row_add(&p->ddp, &r);
	return 0;
}

static void banner(const struct htc_opts *o, const struct ht_cluster *cl,
		   uint32_t rounds)
{
	uint32_t in = 0, classes = 0;
	char model[160];

	if (o->t.data == HT_TRAIN_DATA_DIGITS) {
		in = HT_DIGITS_FEATURES;
		classes = HT_DIGITS_CLASSES;
	} else if (o->t.data == HT_TRAIN_DATA_SYNTH) {
		in = o->t.synth.f;
		classes = o->t.synth.classes;
	}
	printf(HTC_PROG " benchmark: %s on %s, batch %u per rank, %s, %u "
			"warm-up + %u timed steps, %u-rank DDP (hpu_parallel) "
			"beside one device",
	       htc_model_desc(o, in, classes, model, sizeof(model)),
	       o->data_name, o->t.batch_size,
	       o->t.precision == HT_TRAIN_PREC_BF16_MIXED ? "bf16-mixed" :
							    "fp32",
	       o->t.bench_warmup, o->t.bench_steps, cl->world_size);
	if (rounds > 1)
		printf(", %u rounds of every path in turn", rounds);
	printf("\n");
	fflush(stdout);
}

static void table(const struct ddp_path *paths, unsigned int n,
		  const struct ht_cluster *cl, bool spread_col)
{
	unsigned int i;

	printf("%-16s %12s %12s %10s %14s %14s", "path", "ddp_step_ms",
	       "one_step_ms", "ddp/one", "ddp_samples/s", "one_samples/s");
	if (spread_col)
		printf(" %10s %10s", "ddp_spread", "one_spread");
	printf("\n");
	for (i = 0; i < n; i++) {
		const struct htc_bench_row *d = &paths[i].ddp;
		const struct htc_bench_row *s = &paths[i].one;
		bool dok = !d->ret && d->nrounds, sok = !s->ret && s->nrounds;

		/* "failed", or "-" for rounds that never ran */
		printf("%-16s", d->path);
		if (dok)
			printf(" %12.3f", 1000.0 * d->step_s);
		else
			printf(" %12s", d->ret ? "failed" : "-");
		if (sok)
			printf(" %12.3f", 1000.0 * s->step_s);
		else
			printf(" %12s", s->ret ? "failed" : "-");
		if (dok && sok && s->step_s > 0)
			printf(" %9.2fx", d->step_s / s->step_s);
		else
			printf(" %10s", "-");
		if (dok)
			printf(" %14.0f", d->samples_per_s);
		else
			printf(" %14s", "-");
		if (sok)
			printf(" %14.0f", s->samples_per_s);
		else
			printf(" %14s", "-");
		if (spread_col) {
			if (dok)
				printf(" %9.1f%%", 100.0 * d->spread);
			else
				printf(" %10s", "-");
			if (sok)
				printf(" %9.1f%%", 100.0 * s->spread);
			else
				printf(" %10s", "-");
		}
		printf("\n");
	}
	printf("(ddp_step_ms: a %u-rank data parallel step, gradients "
	       "allreduced through libhpuccl, the mean over the ranks; "
	       "one_step_ms: the same model, per-rank batch and mode on "
	       "rank 0's device alone, the other ranks waiting; "
	       "samples/s: of the global batch)\n",
	       cl->world_size);
	if (spread_col)
		printf("(each column: its median round; spread: slowest minus "
		       "fastest round, over the median)\n");
	for (i = 0; i < n; i++) {
		const struct htc_bench_row *d = &paths[i].ddp;
		const struct htc_bench_row *s = &paths[i].one;
		double ratio;

		printf("target (%s): %u-rank DDP step <= %g x one-device "
		       "step: ",
		       d->path, cl->world_size, DDP_TARGET_RATIO);
		if (d->ret || s->ret || !d->nrounds || !s->nrounds ||
		    s->step_s <= 0) {
			printf("not measured\n");
			continue;
		}
		ratio = d->step_s / s->step_s;
		printf("%.2f x, %s\n", ratio,
		       ratio <= DDP_TARGET_RATIO ? "met" : "NOT met");
	}
}

int htc_bench_ddp(struct htc_opts *o, const struct ht_cluster *cl)
{
	struct ddp_path paths[HT_TRAIN_EXEC_GRAPH + 1];
	uint32_t modes = o->bench_modes;
	uint32_t rounds = o->bench_rounds ? o->bench_rounds : 1, k;
	bool lead = cl->rank == 0;
	unsigned int n = 0, i;
	int m, failed = 0;

	memset(paths, 0, sizeof(paths));
	if (!modes)
		modes = 1U << o->t.exec_mode;
	for (m = HT_TRAIN_EXEC_EAGER; m <= HT_TRAIN_EXEC_GRAPH; m++) {
		if (!(modes & (1U << m)))
			continue;
		paths[n].mode = m;
		snprintf(paths[n].ddp.path, sizeof(paths[n].ddp.path), "hpu/%s",
			 htc_exec_name(m));
		memcpy(paths[n].one.path, paths[n].ddp.path,
		       sizeof(paths[n].one.path));
		n++;
	}
	if (lead)
		banner(o, cl, rounds);
	/* the communicators, in the same order on every rank */
	for (i = 0; i < n && !failed; i++)
		failed = ddp_create(o, &paths[i]);
	/*
	 * Round after round, every mode in the same order; a failed data
	 * parallel round ends the benchmark (the other ranks' collectives
	 * would wait for this one), a failed reference only its column.
	 */
	for (k = 0; k < rounds && !failed; k++)
		for (i = 0; i < n && !failed; i++) {
			if (lead)
				one_device_round(o, &paths[i]);
			failed = ddp_round(&paths[i]);
		}
	for (i = 0; i < n; i++)
		ht_trainer_destroy(paths[i].tr);
	if (!lead)
		return failed ? HTC_EXIT_FAIL : HTC_EXIT_OK;
	for (i = 0; i < n; i++) {
		htc_bench_median(&paths[i].ddp);
		htc_bench_median(&paths[i].one);
		failed |= paths[i].ddp.ret | paths[i].one.ret;
	}
	table(paths, n, cl, rounds > 1);
	fflush(stdout);
	return failed ? HTC_EXIT_FAIL : HTC_EXIT_OK;
}
