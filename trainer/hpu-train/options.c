// SPDX-License-Identifier: MIT
/*
 * options.c - hpu-train's command line: Lightning's option names, every
 * value checked before anything starts, one clear message and exit
 * status 2 for anything wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_train.h"

enum {
	OPT_ACCEL = 256,
	OPT_DEVICES,
	OPT_STRATEGY,
	OPT_NUM_NODES,
	OPT_PRECISION,
	OPT_MAX_EPOCHS,
	OPT_MAX_STEPS,
	OPT_BATCH,
	OPT_LR,
	OPT_LR_ADAMW,
	OPT_OPTIM,
	OPT_MOMENTUM,
	OPT_WD,
	OPT_MODEL,
	OPT_LAYERS,
	OPT_ACT,
	OPT_DATA,
	OPT_SYN_SAMPLES,
	OPT_SYN_FEATURES,
	OPT_SYN_CLASSES,
	OPT_VAL_FRAC,
	OPT_TEST_FRAC,
	OPT_SEED,
	OPT_EXEC,
	OPT_ACCUM,
	OPT_LIMIT_TRAIN,
	OPT_LIMIT_VAL,
	OPT_VAL_EVERY,
	OPT_BUCKET,
	OPT_CKPT_PATH,
	OPT_CKPT_DIR,
	OPT_CKPT_EVERY,
	OPT_LOG_DIR,
	OPT_LOG_EVERY,
	OPT_METRICS_PLOT,
	OPT_PROGRESS,
	OPT_DEVICE_STATS,
	OPT_ALL_RANKS,
	OPT_WEIGHTS_HASH,
	OPT_PROFILER,
	OPT_BENCH,
	OPT_BENCH_STEPS,
	OPT_WARMUP,
	OPT_BENCH_MODES,
	OPT_DEV_PREFETCH,
	OPT_BENCH_PREFETCH,
	OPT_BENCH_ROUNDS,
	OPT_TIMING_MODEL,
	OPT_PRINT_ENV,
	OPT_GRACE,
	OPT_CCL_TIMEOUT,
	OPT_CS_TIMEOUT,
	OPT_GPT_LAYERS,
	OPT_HEADS,
	OPT_WIDTH,
	OPT_CONTEXT,
	OPT_TIED,
	OPT_DROPOUT,
	OPT_CLIP,
	OPT_STRIDE,
	OPT_LR_SCHEDULE,
	OPT_LR_WARMUP,
	OPT_LR_MIN,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "accelerator", required_argument, NULL, OPT_ACCEL },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "num-nodes", required_argument, NULL, OPT_NUM_NODES },
	{ "precision", required_argument, NULL, OPT_PRECISION },
	{ "max-epochs", required_argument, NULL, OPT_MAX_EPOCHS },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "batch-size", required_argument, NULL, OPT_BATCH },
	{ "lr", required_argument, NULL, OPT_LR },
	{ "lr-adamw", required_argument, NULL, OPT_LR_ADAMW },
	{ "optimizer", required_argument, NULL, OPT_OPTIM },
	{ "momentum", required_argument, NULL, OPT_MOMENTUM },
	{ "weight-decay", required_argument, NULL, OPT_WD },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "layers", required_argument, NULL, OPT_LAYERS },
	{ "activation", required_argument, NULL, OPT_ACT },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "synthetic-samples", required_argument, NULL, OPT_SYN_SAMPLES },
	{ "synthetic-features", required_argument, NULL, OPT_SYN_FEATURES },
	{ "synthetic-classes", required_argument, NULL, OPT_SYN_CLASSES },
	{ "val-frac", required_argument, NULL, OPT_VAL_FRAC },
	{ "test-frac", required_argument, NULL, OPT_TEST_FRAC },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "exec-mode", required_argument, NULL, OPT_EXEC },
	{ "accumulate-grad-batches", required_argument, NULL, OPT_ACCUM },
	{ "limit-train-batches", required_argument, NULL, OPT_LIMIT_TRAIN },
	{ "limit-val-batches", required_argument, NULL, OPT_LIMIT_VAL },
	{ "check-val-every-n-epoch", required_argument, NULL, OPT_VAL_EVERY },
	{ "bucket-mb", required_argument, NULL, OPT_BUCKET },
	{ "ckpt-path", required_argument, NULL, OPT_CKPT_PATH },
	{ "ckpt-dir", required_argument, NULL, OPT_CKPT_DIR },
	{ "ckpt-every-n-steps", required_argument, NULL, OPT_CKPT_EVERY },
	{ "log-dir", required_argument, NULL, OPT_LOG_DIR },
	{ "log-every-n-steps", required_argument, NULL, OPT_LOG_EVERY },
	{ "metrics-plot", required_argument, NULL, OPT_METRICS_PLOT },
	{ "progress-bar", required_argument, NULL, OPT_PROGRESS },
	{ "device-stats", no_argument, NULL, OPT_DEVICE_STATS },
	{ "all-ranks-print", no_argument, NULL, OPT_ALL_RANKS },
	{ "print-weights-hash", no_argument, NULL, OPT_WEIGHTS_HASH },
	{ "profiler", required_argument, NULL, OPT_PROFILER },
	{ "benchmark", no_argument, NULL, OPT_BENCH },
	{ "benchmark-steps", required_argument, NULL, OPT_BENCH_STEPS },
	{ "warmup-steps", required_argument, NULL, OPT_WARMUP },
	{ "benchmark-modes", required_argument, NULL, OPT_BENCH_MODES },
	{ "benchmark-prefetch", no_argument, NULL, OPT_BENCH_PREFETCH },
	{ "benchmark-rounds", required_argument, NULL, OPT_BENCH_ROUNDS },
	{ "timing-model", required_argument, NULL, OPT_TIMING_MODEL },
	{ "device-prefetch", required_argument, NULL, OPT_DEV_PREFETCH },
	{ "print-env", no_argument, NULL, OPT_PRINT_ENV },
	{ "dry-run", no_argument, NULL, OPT_PRINT_ENV },
	{ "grace-period", required_argument, NULL, OPT_GRACE },
	{ "ccl-timeout", required_argument, NULL, OPT_CCL_TIMEOUT },
	{ "cs-timeout", required_argument, NULL, OPT_CS_TIMEOUT },
	{ "gpt-layers", required_argument, NULL, OPT_GPT_LAYERS },
	{ "heads", required_argument, NULL, OPT_HEADS },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "tied", required_argument, NULL, OPT_TIED },
	{ "dropout", required_argument, NULL, OPT_DROPOUT },
	{ "gradient-clip-val", required_argument, NULL, OPT_CLIP },
	{ "window-stride", required_argument, NULL, OPT_STRIDE },
	{ "lr-schedule", required_argument, NULL, OPT_LR_SCHEDULE },
	{ "lr-warmup-steps", required_argument, NULL, OPT_LR_WARMUP },
	{ "lr-min", required_argument, NULL, OPT_LR_MIN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " HTC_PROG " [options]\n"
		"Train a model on simulated HPUs with Lightning's options "
		"(docs/hpu-train.md).\n\n"
		"Devices and ranks:\n"
		"  --accelerator auto|hpu|cpu   where to train (auto: hpu when "
		"HPUs are found)\n"
		"  --devices N|-1|auto|LIST     devices per node (LIST: "
		"indices, e.g. 0,2)\n"
		"  --strategy auto|single_hpu|hpu_parallel\n"
		"  --num-nodes N                nodes (one hpu-train per "
		"node, NODE_RANK, MASTER_ADDR)\n"
		"Model and optimizer:\n"
		"  --model mlp|mixer|gpt        (default mlp; gpt: --data "
		"text, the default then)\n"
		"  --layers W,W,...             hidden layer widths of the "
		"MLP ('none': no hidden layer)\n"
		"  --activation relu|gelu|tanh  the MLP's activation\n"
		"  --optimizer sgd|adamw        the MLP's optimizer\n"
		"  --lr X, --momentum X, --weight-decay X, --lr-adamw X "
		"(mixer)\n"
		"  GPT: --gpt-layers N, --heads N, --width N, --context N, "
		"--tied on|off,\n"
		"       --dropout P, --gradient-clip-val X (0: off), "
		"--window-stride N\n"
		"  --lr-schedule constant|cosine, --lr-warmup-steps N, "
		"--lr-min X (cosine's floor)\n"
		"Data:\n"
		"  --data digits|synthetic|text|PATH.csv[.gz] (text: the "
		"English corpus)\n"
		"  --synthetic-samples N, --synthetic-features F, "
		"--synthetic-classes C\n"
		"  --val-frac X, --test-frac X  held-out fractions of the "
		"data\n"
		"Training:\n"
		"  --max-epochs N, --max-steps N, --batch-size B (per rank)\n"
		"  --accumulate-grad-batches K, --limit-train-batches N, "
		"--limit-val-batches N\n"
		"  --check-val-every-n-epoch N, --bucket-mb MB (DDP "
		"gradient buckets)\n"
		"  --precision 32|bf16-mixed    --exec-mode eager|lazy|graph\n"
		"  --device-prefetch on|off     copy the next batch to the "
		"device during a step (on)\n"
		"  --seed N                     every random stream derives "
		"from it\n"
		"Outputs:\n"
		"  --ckpt-dir DIR, --ckpt-every-n-steps N, --ckpt-path FILE "
		"(resume)\n"
		"  --log-dir DIR (metrics.csv), --log-every-n-steps N\n"
		"  --metrics-plot on|off        draw metrics.csv as "
		"metrics.svg beside it (on)\n"
		"  --progress-bar auto|on|plain|off, --device-stats, "
		"--all-ranks-print\n"
		"  --profiler hpu|none          hpu: trace.json (Chrome "
		"trace) in --log-dir or .\n"
		"  --print-weights-hash         a hash of the final weights' "
		"bytes in the summary\n"
		"Benchmark:\n"
		"  --benchmark                  steady-state step time beside "
		"--accelerator cpu;\n"
		"                               with --devices N>1: the "
		"N-rank DDP step beside one device\n"
		"  --benchmark-steps N, --warmup-steps N, --benchmark-modes "
		"eager,lazy,graph\n"
		"  --benchmark-prefetch         each hpu mode with device "
		"prefetch off and on\n"
		"  --benchmark-rounds N         the paths N times in turn "
		"(1..9); each row its median\n"
		"  --timing-model gaudi|gaudi2|gaudi3|none  the timed steps "
		"on modeled device time (gaudi2)\n"
		"Launcher:\n"
		"  --print-env (--dry-run)      print the ranks resolved from "
		"the environment\n"
		"  --grace-period S             after a rank fails, the "
		"others get S seconds\n"
		"  --ccl-timeout S              collective timeout of the "
		"ranks\n"
		"  --cs-timeout S               device timeout of every "
		"command submission (120)\n"
		"  --help, --version\n\n"
		"Exit status: 0 done, 1 training or a rank failed, 2 usage "
		"error.\n");
}

static const char *opt_name(int c)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

static int bad(int c, const char *arg, const char *want)
{
	fprintf(stderr, HTC_PROG ": --%s '%s': %s\n", opt_name(c), arg, want);
	return HTC_EXIT_USAGE;
}

/* a decimal integer in [min, max] */
static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int ret = parse_u64(s, min, max, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

/* a finite number in [min, max] (max excluded when @open_max) */
static int parse_f(const char *s, double min, double max, bool open_max,
		   double *out)
{
	char *end;
	double v;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max ||
	    (open_max && v == max))
		return -EINVAL;
	*out = v;
	return 0;
}

/* --benchmark-modes: a comma-separated list of execution modes */
static int parse_modes(const char *s, uint32_t *bits)
{
	char buf[64], *tok, *save;
	int mode;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*bits = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ht_train_parse_exec_mode(tok, &mode, NULL, 0))
			return -EINVAL;
		*bits |= 1U << mode;
	}
	return *bits ? 0 : -EINVAL;
}

/* --data: digits, synthetic, text or a CSV file that can be read */
static int parse_data(const char *s, struct htc_opts *o)
{
	o->data_name = s;
	if (!strcmp(s, "digits")) {
		o->t.data = HT_TRAIN_DATA_DIGITS;
		o->t.data_path = NULL;
		return 0;
	}
	if (!strcmp(s, "synthetic")) {
		o->t.data = HT_TRAIN_DATA_SYNTH;
		return 0;
	}
	if (!strcmp(s, "text")) {
		o->t.data = HT_TRAIN_DATA_TEXT;
		o->t.data_path = NULL;
		return 0;
	}
	if (access(s, R_OK)) {
		fprintf(stderr,
			HTC_PROG ": --data '%s': %s (expected digits, "
				 "synthetic, text or a CSV file)\n",
			s, strerror(errno));
		return HTC_EXIT_USAGE;
	}
	o->t.data = HT_TRAIN_DATA_CSV;
	o->t.data_path = s;
	return 0;
}

/* an option whose value goes through one of the library's parsers */
static int lib_value(int ret, const char *err)
{
	if (!ret)
		return 0;
	fprintf(stderr, HTC_PROG ": %s\n", err);
	return HTC_EXIT_USAGE;
}

/* report an option's value the library's parsers refused, with its name */
static int lib_named(int ret, int c, const char *err)
{
	if (!ret)
		return 0;
	fprintf(stderr, HTC_PROG ": --%s: %s\n", opt_name(c), err);
	return HTC_EXIT_USAGE;
}

struct seen {
	bool optim, lr, layers, act, momentum, wd, lr_adamw, syn, model;
	bool data, gpt, lr_min;
};

static int parse_one(int c, const char *arg, struct htc_opts *o,
		     struct seen *seen)
{
	struct ht_trainer_opts *t = &o->t;
	char err[256] = "";
	uint64_t u;
	double d;

	switch (c) {
	case OPT_ACCEL:
		return lib_value(ht_parse_accelerator(arg, &o->req, err,
						      sizeof(err)),
				 err);
	case OPT_DEVICES:
		return lib_value(
			ht_parse_devices(arg, &o->req, err, sizeof(err)), err);
	case OPT_STRATEGY:
		return lib_value(
			ht_parse_strategy(arg, &o->req, err, sizeof(err)), err);
	case OPT_NUM_NODES:
		return lib_value(ht_parse_num_nodes(arg, &o->req, err,
						    sizeof(err)),
				 err);
	case OPT_PRECISION:
		return lib_named(ht_train_parse_precision(arg, &t->precision,
							  err, sizeof(err)),
				 c, err);
	case OPT_EXEC:
		o->exec_mode_set = true;
		return lib_named(ht_train_parse_exec_mode(arg, &t->exec_mode,
							  err, sizeof(err)),
				 c, err);
	case OPT_MODEL:
		seen->model = true;
		return lib_named(ht_train_parse_model(arg, &t->model, err,
						      sizeof(err)),
				 c, err);
	case OPT_OPTIM:
		seen->optim = true;
		return lib_named(ht_train_parse_optim(arg, &t->optim.kind, err,
						      sizeof(err)),
				 c, err);
	case OPT_ACT:
		seen->act = true;
		return lib_named(ht_train_parse_act(arg, &t->mlp.act, err,
						    sizeof(err)),
				 c, err);
	case OPT_PROGRESS:
		return lib_named(ht_train_parse_progress(arg, &t->progress, err,
							 sizeof(err)),
				 c, err);
	case OPT_LAYERS:
		seen->layers = true;
		return lib_named(ht_train_parse_layers(arg, &t->mlp, err,
						       sizeof(err)),
				 c, err);
	case OPT_DATA:
		seen->data = true;
		return parse_data(arg, o);
	case OPT_GPT_LAYERS:
		seen->gpt = true;
		if (parse_u32(arg, 1, HT_TRAIN_GPT_MAX_LAYERS, &t->gpt.layers))
			return bad(c, arg, "expected an integer 1..8");
		return 0;
	case OPT_HEADS:
		seen->gpt = true;
		if (parse_u32(arg, 1, 64, &t->gpt.heads))
			return bad(c, arg, "expected an integer 1..64");
		return 0;
	case OPT_WIDTH:
		seen->gpt = true;
		if (parse_u32(arg, 1, HT_TRAIN_GPT_MAX_DIM, &t->gpt.dim))
			return bad(c, arg, "expected an integer 1..1024");
		return 0;
	case OPT_CONTEXT:
		seen->gpt = true;
		if (parse_u32(arg, 1, HT_TRAIN_GPT_MAX_CONTEXT,
			      &t->gpt.context))
			return bad(c, arg, "expected an integer 1..1024");
		return 0;
	case OPT_TIED:
		seen->gpt = true;
		if (!strcmp(arg, "on"))
			t->gpt.tied = true;
		else if (!strcmp(arg, "off"))
			t->gpt.tied = false;
		else
			return bad(c, arg, "expected on or off");
		return 0;
	case OPT_DROPOUT:
		seen->gpt = true;
		if (parse_f(arg, 0, 1, true, &d))
			return bad(c, arg, "expected a probability in [0, 1)");
		t->gpt.dropout = (float)d;
		return 0;
	case OPT_CLIP:
		seen->gpt = true;
		if (parse_f(arg, 0, 1e6, false, &d))
			return bad(c, arg,
				   "expected a number in [0, 1e6] (0: off)");
		t->gpt.clip_norm = (float)d;
		return 0;
	case OPT_STRIDE:
		seen->gpt = true;
		if (parse_u32(arg, 1, HT_TRAIN_GPT_MAX_CONTEXT, &t->gpt.stride))
			return bad(c, arg,
				   "expected an integer 1..the context");
		return 0;
	case OPT_MAX_EPOCHS:
		if (parse_u64(arg, 0, UINT32_MAX, &t->max_epochs))
			return bad(c, arg, "expected an integer >= 0");
		return 0;
	case OPT_MAX_STEPS:
		if (parse_u64(arg, 0, UINT64_MAX / 2, &t->max_steps))
			return bad(c, arg, "expected an integer >= 0");
		return 0;
	case OPT_BATCH:
		if (parse_u32(arg, 1, 1U << 20, &t->batch_size))
			return bad(c, arg, "expected an integer 1..1048576");
		return 0;
	case OPT_ACCUM:
		if (parse_u32(arg, 1, 1024, &t->accumulate_grad_batches))
			return bad(c, arg, "expected an integer 1..1024");
		return 0;
	case OPT_LIMIT_TRAIN:
		if (parse_u64(arg, 1, UINT32_MAX, &t->limit_train_batches))
			return bad(c, arg, "expected an integer >= 1");
		return 0;
	case OPT_LIMIT_VAL:
		if (parse_u64(arg, 1, UINT32_MAX, &t->limit_val_batches))
			return bad(c, arg, "expected an integer >= 1");
		return 0;
	case OPT_VAL_EVERY:
		if (parse_u32(arg, 0, UINT32_MAX, &t->check_val_every_n_epoch))
			return bad(c, arg,
				   "expected an integer >= 0 (0: never)");
		return 0;
	case OPT_BUCKET:
		if (parse_u64(arg, 1, 4096, &u))
			return bad(c, arg, "expected an integer 1..4096 (MiB)");
		t->bucket_bytes = u << 20;
		return 0;
	case OPT_LR:
		seen->lr = true;
		if (parse_f(arg, 0, 10, false, &d) || d <= 0)
			return bad(c, arg, "expected a number in (0, 10]");
		t->optim.lr = (float)d;
		t->mixer.lr_sgd = (float)d;
		t->gpt.lr = (float)d;
		return 0;
	case OPT_LR_SCHEDULE:
		if (!strcmp(arg, "constant"))
			t->lr_sched.kind = HT_TRAIN_LR_CONSTANT;
		else if (!strcmp(arg, "cosine"))
			t->lr_sched.kind = HT_TRAIN_LR_COSINE;
		else
			return bad(c, arg, "expected constant or cosine");
		return 0;
	case OPT_LR_WARMUP:
		if (parse_u64(arg, 0, UINT32_MAX, &t->lr_sched.warmup_steps))
			return bad(c, arg, "expected an integer 0..4294967295");
		return 0;
	case OPT_LR_MIN:
		seen->lr_min = true;
		if (parse_f(arg, 0, 10, false, &d))
			return bad(c, arg, "expected a number in [0, 10]");
		t->lr_sched.lr_min = (float)d;
		return 0;
	case OPT_LR_ADAMW:
		seen->lr_adamw = true;
		if (parse_f(arg, 0, 10, false, &d) || d <= 0)
			return bad(c, arg, "expected a number in (0, 10]");
		t->mixer.lr_adamw = (float)d;
		return 0;
	case OPT_MOMENTUM:
		seen->momentum = true;
		if (parse_f(arg, 0, 1, true, &d))
			return bad(c, arg, "expected a number in [0, 1)");
		t->optim.momentum = (float)d;
		return 0;
	case OPT_WD:
		seen->wd = true;
		if (parse_f(arg, 0, 1, false, &d))
			return bad(c, arg, "expected a number in [0, 1]");
		t->optim.weight_decay = (float)d;
		t->gpt.weight_decay = (float)d;
		return 0;
	case OPT_SYN_SAMPLES:
		seen->syn = true;
		if (parse_u32(arg, 2, 1U << 24, &t->synth.n))
			return bad(c, arg, "expected an integer 2..16777216");
		return 0;
	case OPT_SYN_FEATURES:
		seen->syn = true;
		if (parse_u32(arg, 1, 65536, &t->synth.f))
			return bad(c, arg, "expected an integer 1..65536");
		return 0;
	case OPT_SYN_CLASSES:
		seen->syn = true;
		if (parse_u32(arg, 2, 65536, &t->synth.classes))
			return bad(c, arg, "expected an integer 2..65536");
		return 0;
	case OPT_VAL_FRAC:
		if (parse_f(arg, 0, 0.9, false, &t->val_frac))
			return bad(c, arg, "expected a fraction in [0, 0.9]");
		return 0;
	case OPT_TEST_FRAC:
		if (parse_f(arg, 0, 0.9, false, &t->test_frac))
			return bad(c, arg, "expected a fraction in [0, 0.9]");
		return 0;
	case OPT_SEED:
		if (parse_u64(arg, 0, UINT64_MAX, &t->seed))
			return bad(c, arg, "expected an integer >= 0");
		return 0;
	case OPT_CKPT_PATH:
		if (access(arg, R_OK)) {
			fprintf(stderr, HTC_PROG ": --ckpt-path '%s': %s\n",
				arg, strerror(errno));
			return HTC_EXIT_USAGE;
		}
		t->resume_path = arg;
		return 0;
	case OPT_CKPT_DIR:
		if (!*arg)
			return bad(c, arg, "expected a directory");
		t->ckpt_dir = arg;
		return 0;
	case OPT_CKPT_EVERY:
		if (parse_u64(arg, 0, UINT32_MAX, &t->ckpt_every_n_steps))
			return bad(c, arg,
				   "expected an integer >= 0 (0: at the end)");
		return 0;
	case OPT_LOG_DIR:
		if (!*arg)
			return bad(c, arg, "expected a directory");
		t->log_dir = arg;
		return 0;
	case OPT_LOG_EVERY:
		if (parse_u64(arg, 1, UINT32_MAX, &t->log_every_n_steps))
			return bad(c, arg, "expected an integer >= 1");
		return 0;
	case OPT_METRICS_PLOT:
		if (!strcmp(arg, "on"))
			t->log_plot = true;
		else if (!strcmp(arg, "off"))
			t->log_plot = false;
		else
			return bad(c, arg, "expected on or off");
		return 0;
	case OPT_DEVICE_STATS:
		t->device_stats = true;
		return 0;
	case OPT_ALL_RANKS:
		t->all_ranks_print = true;
		return 0;
	case OPT_WEIGHTS_HASH:
		o->weights_hash = true;
		return 0;
	case OPT_PROFILER:
		if (!strcmp(arg, "hpu"))
			o->profiler = true;
		else if (!strcmp(arg, "none"))
			o->profiler = false;
		else
			return bad(c, arg, "expected hpu or none");
		return 0;
	case OPT_BENCH:
		o->benchmark = true;
		return 0;
	case OPT_BENCH_STEPS:
		if (parse_u32(arg, 1, 1000000, &t->bench_steps))
			return bad(c, arg, "expected an integer 1..1000000");
		return 0;
	case OPT_WARMUP:
		if (parse_u32(arg, 0, 1000000, &t->bench_warmup))
			return bad(c, arg, "expected an integer 0..1000000");
		return 0;
	case OPT_BENCH_MODES:
		if (parse_modes(arg, &o->bench_modes))
			return bad(c, arg,
				   "expected a list of eager, lazy and graph");
		return 0;
	case OPT_BENCH_PREFETCH:
		o->bench_prefetch = true;
		return 0;
	case OPT_BENCH_ROUNDS:
		if (parse_u32(arg, 1, HTC_BENCH_MAX_ROUNDS, &o->bench_rounds))
			return bad(c, arg, "expected an integer 1..9");
		return 0;
	case OPT_TIMING_MODEL:
		if (!strcmp(arg, "none"))
			o->timing_model = NULL;
		else if (!strcmp(arg, "gaudi") || !strcmp(arg, "gaudi2") ||
			 !strcmp(arg, "gaudi3"))
			o->timing_model = arg;
		else
			return bad(c, arg,
				   "expected gaudi, gaudi2, gaudi3 or none");
		o->timing_model_set = true;
		return 0;
	case OPT_DEV_PREFETCH:
		if (!strcmp(arg, "on"))
			t->device_prefetch = true;
		else if (!strcmp(arg, "off"))
			t->device_prefetch = false;
		else
			return bad(c, arg, "expected on or off");
		return 0;
	case OPT_PRINT_ENV:
		o->print_env = true;
		return 0;
	case OPT_GRACE:
		if (parse_f(arg, 0, 3600, false, &d))
			return bad(c, arg, "expected seconds in [0, 3600]");
		o->grace_ms = (uint32_t)(d * 1000);
		return 0;
	case OPT_CCL_TIMEOUT:
		if (parse_f(arg, 0.1, 3600, false, &d))
			return bad(c, arg, "expected seconds in [0.1, 3600]");
		t->ccl_timeout_ms = (uint32_t)(d * 1000);
		return 0;
	case OPT_CS_TIMEOUT:
		if (parse_f(arg, 0.1, 3600, false, &d))
			return bad(c, arg, "expected seconds in [0.1, 3600]");
		t->cs_timeout_ms = (uint32_t)(d * 1000);
		return 0;
	}
	return HTC_EXIT_USAGE;
}

/* the GPT's options together (the library checks them again) */
static int check_gpt(const struct htc_opts *o, const struct seen *seen)
{
	const struct ht_trainer_opts *t = &o->t;

	if (seen->data && t->data != HT_TRAIN_DATA_TEXT) {
		fprintf(stderr, HTC_PROG ": " HT_TRAIN_LM_NEEDS_TEXT "\n");
		return HTC_EXIT_USAGE;
	}
	if (seen->optim || seen->momentum || seen->layers || seen->act) {
		fprintf(stderr,
			HTC_PROG ": --model gpt trains with AdamW (--lr, "
				 "--weight-decay): --optimizer, --momentum, "
				 "--layers and --activation are for --model "
				 "mlp (its blocks: --gpt-layers)\n");
		return HTC_EXIT_USAGE;
	}
	if (t->gpt.dim % t->gpt.heads) {
		fprintf(stderr,
			HTC_PROG ": --width %u is not a multiple of --heads "
				 "%u\n",
			t->gpt.dim, t->gpt.heads);
		return HTC_EXIT_USAGE;
	}
	if (t->gpt.stride > t->gpt.context) {
		fprintf(stderr,
			HTC_PROG ": --window-stride %u is above --context "
				 "%u\n",
			t->gpt.stride, t->gpt.context);
		return HTC_EXIT_USAGE;
	}
	return 0;
}

/* combinations that no single value shows to be wrong */
/* the lowest learning rate of the model's optimizers */
static float model_lr(const struct ht_trainer_opts *t)
{
	if (t->model == HT_TRAIN_MODEL_GPT)
		return t->gpt.lr;
	if (t->model == HT_TRAIN_MODEL_MIXER)
		return t->mixer.lr_sgd < t->mixer.lr_adamw ? t->mixer.lr_sgd :
							     t->mixer.lr_adamw;
	return t->optim.lr;
}

static int check_combinations(const struct htc_opts *o, const struct seen *seen)
{
	const struct ht_trainer_opts *t = &o->t;

	if (t->model == HT_TRAIN_MODEL_MIXER &&
	    (seen->optim || seen->momentum || seen->wd || seen->layers ||
	     seen->act)) {
		fprintf(stderr,
			HTC_PROG ": --model mixer has its own layers "
				 "and two optimizers (AdamW and SGD with "
				 "momentum): --optimizer, --momentum, "
				 "--weight-decay, --layers and --activation "
				 "are for --model mlp\n");
		return HTC_EXIT_USAGE;
	}
	if (seen->lr_adamw && t->model != HT_TRAIN_MODEL_MIXER) {
		fprintf(stderr,
			HTC_PROG ": --lr-adamw is for --model mixer (the MLP "
				 "takes --lr)\n");
		return HTC_EXIT_USAGE;
	}
	if (seen->lr_min && t->lr_sched.kind != HT_TRAIN_LR_COSINE) {
		fprintf(stderr, HTC_PROG ": --lr-min is the floor of "
					 "--lr-schedule cosine\n");
		return HTC_EXIT_USAGE;
	}
	if (t->lr_sched.kind == HT_TRAIN_LR_COSINE &&
	    t->lr_sched.lr_min > model_lr(t)) {
		fprintf(stderr,
			HTC_PROG ": --lr-min %g is above the learning rate "
				 "%g\n",
			(double)t->lr_sched.lr_min, (double)model_lr(t));
		return HTC_EXIT_USAGE;
	}
	if (t->data == HT_TRAIN_DATA_TEXT && t->model != HT_TRAIN_MODEL_GPT) {
		fprintf(stderr, HTC_PROG ": " HT_TRAIN_TEXT_NEEDS_LM "\n");
		return HTC_EXIT_USAGE;
	}
	if (t->model == HT_TRAIN_MODEL_GPT) {
		int ret = check_gpt(o, seen);

		if (ret)
			return ret;
	} else if (seen->gpt) {
		fprintf(stderr,
			HTC_PROG ": --gpt-layers, --heads, --width, "
				 "--context, --tied, --dropout, "
				 "--gradient-clip-val and --window-stride are "
				 "for --model gpt\n");
		return HTC_EXIT_USAGE;
	}
	if (seen->syn && t->data != HT_TRAIN_DATA_SYNTH) {
		fprintf(stderr,
			HTC_PROG ": --synthetic-samples, "
				 "--synthetic-features and --synthetic-classes "
				 "need --data synthetic\n");
		return HTC_EXIT_USAGE;
	}
	if (t->val_frac + t->test_frac >= 0.95) {
		fprintf(stderr,
			HTC_PROG ": --val-frac %g + --test-frac %g leave no "
				 "training data\n",
			t->val_frac, t->test_frac);
		return HTC_EXIT_USAGE;
	}
	if (!t->max_epochs && !t->max_steps && !o->benchmark && !o->print_env) {
		fprintf(stderr,
			HTC_PROG ": --max-epochs 0 needs --max-steps N (else "
				 "training never ends)\n");
		return HTC_EXIT_USAGE;
	}
	if (t->ckpt_every_n_steps && !t->ckpt_dir) {
		fprintf(stderr,
			HTC_PROG ": --ckpt-every-n-steps needs --ckpt-dir\n");
		return HTC_EXIT_USAGE;
	}
	if (o->benchmark && t->resume_path) {
		fprintf(stderr, HTC_PROG ": --benchmark starts afresh: drop "
					 "--ckpt-path\n");
		return HTC_EXIT_USAGE;
	}
	if ((o->bench_modes || o->bench_prefetch || o->bench_rounds) &&
	    !o->benchmark) {
		fprintf(stderr, HTC_PROG ": --benchmark-%s needs --benchmark\n",
			o->bench_modes	  ? "modes" :
			o->bench_prefetch ? "prefetch" :
					    "rounds");
		return HTC_EXIT_USAGE;
	}
	if (o->timing_model_set && !o->benchmark) {
		fprintf(stderr,
			HTC_PROG ": --timing-model needs --benchmark\n");
		return HTC_EXIT_USAGE;
	}
	return HTC_EXIT_OK;
}

int htc_parse(int argc, char **argv, struct htc_opts *o)
{
	struct seen seen = { 0 };
	int c, ret;

	memset(o, 0, sizeof(*o));
	ht_trainer_opts_init(&o->t);
	ht_devices_req_init(&o->req);
	o->grace_ms = HTC_GRACE_MS_DEFAULT;
	o->timing_model = "gaudi2";
	o->data_name = "digits";
	if (!o->t.synth.n)
		o->t.synth.n = 4096;
	if (!o->t.synth.f)
		o->t.synth.f = 64;
	if (!o->t.synth.classes)
		o->t.synth.classes = 10;
	if (!o->t.bench_steps)
		o->t.bench_steps = 50;
	if (!o->t.bench_warmup)
		o->t.bench_warmup = 5;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
			usage(stdout);
			return HTC_EXIT_DONE;
		case OPT_VERSION:
			printf(HTC_PROG " " HPU_VERSION "\n");
			return HTC_EXIT_DONE;
		case ':':
			fprintf(stderr,
				HTC_PROG ": %s needs a value (see " HTC_PROG
					 " --help)\n",
				argv[optind - 1]);
			return HTC_EXIT_USAGE;
		case '?':
			fprintf(stderr,
				HTC_PROG ": unknown option '%s' (see " HTC_PROG
					 " --help)\n",
				argv[optind - 1]);
			return HTC_EXIT_USAGE;
		default:
			ret = parse_one(c, optarg, o, &seen);
			if (ret)
				return ret;
		}
	}
	/* the GPT's data: the text, unless --data says otherwise */
	if (o->t.model == HT_TRAIN_MODEL_GPT && !seen.data) {
		o->t.data = HT_TRAIN_DATA_TEXT;
		o->t.data_path = NULL;
		o->data_name = "text";
	}
	if (optind < argc) {
		fprintf(stderr,
			HTC_PROG ": unexpected argument '%s' (options start "
				 "with --; see " HTC_PROG " --help)\n",
			argv[optind]);
		return HTC_EXIT_USAGE;
	}
	return check_combinations(o, &seen);
}

int htc_check(const struct htc_opts *o, const struct ht_devices *dev,
	      const struct ht_cluster *cl)
{
	if (dev->accel == HT_ACCEL_CPU && cl->world_size > 1) {
		fprintf(stderr,
			HTC_PROG ": --accelerator cpu trains in one process: "
				 "%u processes (--devices %u x --num-nodes %u) "
				 "need --accelerator hpu for data parallel\n",
			cl->world_size, dev->count, dev->num_nodes);
		return HTC_EXIT_USAGE;
	}
	/* the data parallel benchmark: ranks of one node (bench_ddp.c) */
	if (o->benchmark && cl->num_nodes > 1) {
		fprintf(stderr,
			HTC_PROG ": --benchmark runs on one node: use "
				 "--num-nodes 1 (--devices N benchmarks data "
				 "parallel over N devices of this node)\n");
		return HTC_EXIT_USAGE;
	}
	if (o->benchmark && o->profiler) {
		fprintf(stderr, HTC_PROG ": --profiler hpu traces a training "
					 "run, not --benchmark\n");
		return HTC_EXIT_USAGE;
	}
	if (o->benchmark && o->bench_prefetch && cl->world_size > 1) {
		fprintf(stderr,
			HTC_PROG ": --benchmark-prefetch compares the paths "
				 "of one device: use --devices 1 (the world "
				 "here is %u processes)\n",
			cl->world_size);
		return HTC_EXIT_USAGE;
	}
	if (o->benchmark && (o->bench_modes || o->bench_prefetch) &&
	    dev->accel == HT_ACCEL_CPU) {
		fprintf(stderr,
			HTC_PROG ": --benchmark-%s compares hpu paths: it "
				 "needs an HPU\n",
			o->bench_modes ? "modes" : "prefetch");
		return HTC_EXIT_USAGE;
	}
	return HTC_EXIT_OK;
}
