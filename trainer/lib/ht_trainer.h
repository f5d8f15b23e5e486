/* SPDX-License-Identifier: MIT */
/*
 * ht_trainer.h - the Trainer: fit, validate and test loops over a module,
 * strategies (single device, DDP), precision, execution modes, callbacks
 * (progress, CSV metrics, device statistics, checkpoints) and the
 * benchmark (docs/training.md).
 *
 * This header is self-contained on purpose: it includes only ht_cluster.h
 * and ht_data.h, so a program can use it beside ht_devices.h (whose enum
 * ht_accel differs from ht_backend.h's). Its enums have their own names;
 * the values of HT_TRAIN_ACCEL_*, HT_TRAIN_EXEC_* and HT_TRAIN_PREC_*
 * equal the backend's.
 *
 * One trainer is one rank: one process, one device. For DDP every rank
 * makes its own trainer with the same options except the cluster's
 * rank/local_rank and its device index; they meet at the cluster's
 * MASTER_ADDR:MASTER_PORT (rank 0 hosts the rendezvous store).
 *
 * Every function returns 0 or a negative errno; a message for the user is
 * in ht_trainer_error() (or the err buffer of ht_trainer_create()).
 */
#ifndef HT_TRAINER_H
#define HT_TRAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ht_cluster.h"
#include "ht_data.h"

/**
 * enum ht_train_accel - where the ops run
 * @HT_TRAIN_ACCEL_CPU: the host (OpenBLAS and the TPC kernel library)
 * @HT_TRAIN_ACCEL_HPU: a (simulated) HPU
 */
enum ht_train_accel {
	HT_TRAIN_ACCEL_CPU = 0,
	HT_TRAIN_ACCEL_HPU = 1,
};

/**
 * enum ht_train_strategy - how ranks train together
 * @HT_TRAIN_SINGLE: one device (single_hpu); the cluster must be one rank
 * @HT_TRAIN_DDP: data parallel (hpu_parallel); hpu only
 */
enum ht_train_strategy {
	HT_TRAIN_SINGLE = 0,
	HT_TRAIN_DDP = 1,
};

/**
 * enum ht_train_exec - when the hpu backend submits work
 * @HT_TRAIN_EXEC_EAGER: every op is one CS, waited for
 * @HT_TRAIN_EXEC_LAZY: one CS per step (per DDP bucket segment)
 * @HT_TRAIN_EXEC_GRAPH: the training step captured once, then replayed
 */
enum ht_train_exec {
	HT_TRAIN_EXEC_EAGER = 0,
	HT_TRAIN_EXEC_LAZY = 1,
	HT_TRAIN_EXEC_GRAPH = 2,
};

/**
 * enum ht_train_precision - numerics
 * @HT_TRAIN_PREC_32: fp32 everywhere
 * @HT_TRAIN_PREC_BF16_MIXED: fp32 master weights, optimizer state and
 *	gradients; bf16 copies of the weights feed the GEMMs
 */
enum ht_train_precision {
	HT_TRAIN_PREC_32 = 0,
	HT_TRAIN_PREC_BF16_MIXED = 1,
};

/**
 * enum ht_train_model - the model trained
 * @HT_TRAIN_MODEL_MLP: linear layers with an activation between them
 * @HT_TRAIN_MODEL_MIXER: the token model (embeddings, layer norm, GELU;
 *	two optimizers). Each feature becomes a token id:
 *	round(x * (vocab - 1)) clamped to 0..vocab-1 (the digits' pixels
 *	are x = level / 16, so vocab 17 recovers the 17 grey levels)
 * @HT_TRAIN_MODEL_GPT: a small GPT language model (@gpt) on
 *	HT_TRAIN_DATA_TEXT, one target per token
 */
enum ht_train_model {
	HT_TRAIN_MODEL_MLP = 0,
	HT_TRAIN_MODEL_MIXER = 1,
	HT_TRAIN_MODEL_GPT = 2,
};

/**
 * enum ht_train_optim - the MLP's optimizer
 * @HT_TRAIN_OPTIM_SGD: SGD (momentum, weight decay, Nesterov)
 * @HT_TRAIN_OPTIM_ADAMW: AdamW
 */
enum ht_train_optim {
	HT_TRAIN_OPTIM_SGD = 0,
	HT_TRAIN_OPTIM_ADAMW = 1,
};

/**
 * enum ht_train_act - the MLP's activation (values of ht_module.h's)
 * @HT_TRAIN_ACT_RELU: relu
 * @HT_TRAIN_ACT_GELU: gelu (tanh form)
 * @HT_TRAIN_ACT_TANH: tanh
 */
enum ht_train_act {
	HT_TRAIN_ACT_RELU = 0,
	HT_TRAIN_ACT_GELU = 1,
	HT_TRAIN_ACT_TANH = 2,
};

/**
 * enum ht_train_data - where the samples come from
 * @HT_TRAIN_DATA_DIGITS: the digits data set (ht_data_load_digits(),
 *	@data_path or the search of ht_data_find())
 * @HT_TRAIN_DATA_CSV: the user's CSV file at @data_path
 * @HT_TRAIN_DATA_SYNTH: ht_data_synthetic() with @synth (its seed 0
 *	means the trainer's seed)
 * @HT_TRAIN_DATA_GIVEN: the caller's data set @dataset (not copied, must
 *	outlive the trainer)
 * @HT_TRAIN_DATA_TEXT: the English text corpus (ht_text_load_corpus(),
 *	@data_path or the search of ht_data_find()) as token windows
 *	(ht_loader_create_text()): for a language model only; the MLP and
 *	the mixer refuse it
 */
enum ht_train_data {
	HT_TRAIN_DATA_DIGITS = 0,
	HT_TRAIN_DATA_CSV = 1,
	HT_TRAIN_DATA_SYNTH = 2,
	HT_TRAIN_DATA_GIVEN = 3,
	HT_TRAIN_DATA_TEXT = 4,
};

/**
 * enum ht_train_progress - the progress output
 * @HT_TRAIN_PROGRESS_AUTO: a bar when @out is a TTY, plain lines
 *	otherwise
 * @HT_TRAIN_PROGRESS_BAR: always the bar (carriage returns)
 * @HT_TRAIN_PROGRESS_PLAIN: one line per epoch (and per
 *	log_every_n_steps steps when that is set)
 * @HT_TRAIN_PROGRESS_OFF: nothing but errors
 */
enum ht_train_progress {
	HT_TRAIN_PROGRESS_AUTO = 0,
	HT_TRAIN_PROGRESS_BAR = 1,
	HT_TRAIN_PROGRESS_PLAIN = 2,
	HT_TRAIN_PROGRESS_OFF = 3,
};

/*
 * HT_TRAIN_TEXT_NEEDS_LM - why the models of a data set (the MLP, the
 * mixer) cannot train on HT_TRAIN_DATA_TEXT
 */
#define HT_TRAIN_TEXT_NEEDS_LM                                                \
	"--data text is token windows for a language model: --model mlp and " \
	"--model mixer classify the samples of a data set"

/* HT_TRAIN_LM_NEEDS_TEXT - why the GPT trains on HT_TRAIN_DATA_TEXT only */
#define HT_TRAIN_LM_NEEDS_TEXT \
	"--model gpt is a language model: it trains on --data text"

/** HT_TRAIN_MAX_HIDDEN - most hidden layers of the MLP */
#define HT_TRAIN_MAX_HIDDEN 7

/** HT_TRAIN_BUCKET_DEFAULT - DDP gradient bucket size (25 MiB) */
#define HT_TRAIN_BUCKET_DEFAULT (25ULL << 20)

/**
 * struct ht_train_mlp - the MLP (input width and classes come from the
 * data)
 * @nhidden: hidden layers, 0..HT_TRAIN_MAX_HIDDEN
 * @hidden: their widths
 * @act: enum ht_train_act
 */
struct ht_train_mlp {
	unsigned int nhidden;
	uint32_t hidden[HT_TRAIN_MAX_HIDDEN];
	int act;
};

/**
 * struct ht_train_mixer - the token model (tokens = features, classes
 * from the data)
 * @vocab: token ids (17 for the digits)
 * @dim: embedding width
 * @hidden: width inside a block
 * @blocks: residual blocks
 * @lr_adamw: AdamW's learning rate (embeddings and norms)
 * @lr_sgd: SGD-with-momentum's learning rate (linear layers)
 */
struct ht_train_mixer {
	uint32_t vocab;
	uint32_t dim;
	uint32_t hidden;
	uint32_t blocks;
	float lr_adamw;
	float lr_sgd;
};

/* limits of the GPT's options (ht_module.h's HT_GPT_MAX_*) */
#define HT_TRAIN_GPT_MAX_LAYERS	 8
#define HT_TRAIN_GPT_MAX_DIM	 1024
#define HT_TRAIN_GPT_MAX_CONTEXT 1024

/**
 * struct ht_train_gpt - the GPT (vocabulary: the byte tokenizer's 256)
 * @layers: transformer blocks
 * @heads: attention heads
 * @dim: width, a multiple of @heads
 * @context: tokens per sample T (the window length)
 * @tied: output projection tied to the token embedding
 * @dropout: probability in [0, 1) (training steps only)
 * @lr: AdamW learning rate
 * @weight_decay: AdamW decay of the matrices (not of biases, norms,
 *	embeddings)
 * @clip_norm: gradient clipping by global norm (0: none)
 * @stride: bytes between training windows (0: @context, no overlap)
 */
struct ht_train_gpt {
	uint32_t layers;
	uint32_t heads;
	uint32_t dim;
	uint32_t context;
	bool tied;
	float dropout;
	float lr;
	float weight_decay;
	float clip_norm;
	uint32_t stride;
};

/* enum ht_train_lr - the learning rate after the warm-up */
enum ht_train_lr {
	HT_TRAIN_LR_CONSTANT = 0,
	HT_TRAIN_LR_COSINE = 1,
};

/**
 * struct ht_train_lr_sched - the learning-rate schedule of every
 * optimizer's groups (ht_lr_at())
 * @kind: enum ht_train_lr: constant (default) or cosine (to @lr_min at the
 *	run's last optimizer step: max_steps, or max_epochs x the epoch's
 *	optimizer steps, whichever is first)
 * @warmup_steps: linear warm-up over the first N optimizer steps (0: none)
 * @lr_min: the cosine's floor, >= 0 and at most every optimizer's lr
 */
struct ht_train_lr_sched {
	int kind;
	uint64_t warmup_steps;
	float lr_min;
};

/**
 * struct ht_train_optim_opts - the MLP's optimizer
 * @kind: enum ht_train_optim
 * @lr: learning rate
 * @momentum: SGD momentum
 * @weight_decay: SGD L2 / AdamW decoupled decay
 * @nesterov: SGD Nesterov
 * @beta1: AdamW
 * @beta2: AdamW
 * @eps: AdamW
 */
struct ht_train_optim_opts {
	int kind;
	float lr;
	float momentum;
	float weight_decay;
	bool nesterov;
	float beta1;
	float beta2;
	float eps;
};

/**
 * struct ht_step_info - what a finished optimizer step reports (the
 * on_step callback, the CSV log, the progress output)
 * @epoch: epoch of the step (0-based)
 * @batch: loader step within the epoch of its last micro-batch
 * @batches: loader steps per epoch
 * @step: optimizer steps done, including this one (1-based)
 * @loss: the global batch's mean loss (every rank's samples)
 * @lr: learning rate of the first optimizer
 * @samples: samples of the global batch(es) of this step
 * @step_time_s: wall time of the step
 * @samples_per_s: @samples / @step_time_s
 * @mem_in_use: device memory in use, bytes (hpu; 0 on cpu)
 * @mem_peak: its peak since the trainer started
 * @utilization: device utilization in percent (hpu; -1 unknown)
 */
struct ht_step_info {
	uint64_t epoch;
	uint64_t batch;
	uint64_t batches;
	uint64_t step;
	float loss;
	float lr;
	uint64_t samples;
	double step_time_s;
	double samples_per_s;
	uint64_t mem_in_use;
	uint64_t mem_peak;
	int utilization;
};

/**
 * typedef ht_on_step_fn - a user callback after every optimizer step
 * (after the checkpoint of that step, if any, was written)
 * @info: the step
 * @arg: opts.on_step_arg
 *
 * Return: 0 to go on; a positive value stops the fit cleanly (as
 * max_steps would); a negative errno ends it with that error.
 */
typedef int (*ht_on_step_fn)(const struct ht_step_info *info, void *arg);

/**
 * HT_PREFETCH_SKIP_BYTES - default ht_trainer_opts.device_prefetch_skip:
 * the simulator's inline limit (a CS of up to 1 MiB of DMA runs on the
 * submitting thread, so a prefetch that small cannot overlap the step)
 */
#define HT_PREFETCH_SKIP_BYTES (1ULL << 20)

/**
 * struct ht_trainer_opts - everything a run needs (ht_trainer_opts_init()
 * sets the defaults: the digits MLP recipe, one cpu device)
 *
 * @accel: enum ht_train_accel
 * @device_index: hpu: the N of /dev/hpuN this rank uses
 * @strategy: enum ht_train_strategy
 * @cluster: world size, rank, local rank, MASTER_ADDR/MASTER_PORT (from
 *	ht_cluster_detect(), or filled by hand); world_size 0 counts as 1
 * @ccl_timeout_ms: collective timeout, 0 for libhpuccl's default
 * @cs_timeout_ms: device timeout of every CS, 0 for HT_CS_TIMEOUT_MS
 *
 * @model: enum ht_train_model
 * @mlp: the MLP
 * @mixer: the token model
 * @gpt: the GPT
 * @optim: the MLP's optimizer (the mixer configures its own two; the GPT
 *	uses @gpt's learning rate and decay with @optim's betas and eps)
 * @lr_sched: learning-rate schedule of every optimizer (default constant,
 *	no warm-up: each group's own lr at every step)
 *
 * @data: enum ht_train_data
 * @data_path: file or directory (digits), file (CSV), or NULL
 * @csv: CSV options (NULL-equivalent when zeroed: ht_csv_opts_init())
 * @synth: synthetic data options
 * @dataset: the data set of HT_TRAIN_DATA_GIVEN
 * @val_frac: validation fraction of the data (split with the seed)
 * @test_frac: held-out test fraction
 * @standardize: standardise features with the training part's statistics
 *	(off for the mixer, whose features are token levels)
 * @prefetch: batches the loader prepares ahead (>= accumulate - 1 is
 *	raised to that)
 * @device_prefetch: hpu: copy each full batch to the device while the
 *	step before it runs (docs/training.md, "Prefetch to the device");
 *	off: the step's own program uploads its batch. Results are the same
 *	bits either way.
 * @device_prefetch_skip: with @device_prefetch, batches of at most this
 *	many bytes (inputs and labels) are not prefetched: their copy is too
 *	short to overlap the step and would only add a CS (the simulator
 *	runs a CS of up to 1 MiB of DMA on the submitting thread). 0:
 *	prefetch every full batch. Default HT_PREFETCH_SKIP_BYTES.
 *
 * @max_epochs: epochs (0: until @max_steps)
 * @max_steps: optimizer steps (0: no limit); the first limit reached ends
 *	the fit
 * @batch_size: per-rank batch b; the global batch is world_size x b
 * @accumulate_grad_batches: micro-batches per optimizer step, >= 1
 * @limit_train_batches: loader steps per epoch used (0: all)
 * @limit_val_batches: validation batches (0: all)
 * @check_val_every_n_epoch: validate after every n-th epoch (0: never)
 * @precision: enum ht_train_precision
 * @exec_mode: enum ht_train_exec
 * @seed: every random stream (split, init, shuffle) derives from it
 * @bucket_bytes: DDP gradient bucket size (0: HT_TRAIN_BUCKET_DEFAULT)
 *
 * @log_dir: directory of the CSV metrics log metrics.csv (NULL: none)
 * @log_every_n_steps: CSV rows (and plain progress lines) every n steps
 *	(0: 1 for the CSV, epochs only for the progress)
 * @log_plot: with @log_dir, rank 0 also draws metrics.csv as
 *	<log_dir>/metrics.svg (ht_metrics_plot.h) after every epoch and at
 *	the end of every fit (default on)
 * @ckpt_dir: directory of checkpoints (NULL: none); written by rank 0
 *	as ckpt-step-<N>.htck and last.htck
 * @ckpt_every_n_steps: a checkpoint every n optimizer steps (0: only at
 *	the end of the fit)
 * @resume_path: a checkpoint to resume from (NULL: start afresh)
 * @progress: enum ht_train_progress
 * @device_stats: read device memory and utilization every step (hpu)
 * @out: where progress goes (NULL: stdout); rank 0 only writes unless
 *	@all_ranks_print; results are returned, never printed
 * @all_ranks_print: every rank prints (prefixed "[rank N]")
 * @on_step: user callback, or NULL
 * @on_step_arg: its argument
 *
 * @bench_warmup: ht_trainer_benchmark(): steps excluded from the timing
 * @bench_steps: ht_trainer_benchmark(): steps timed
 * @bench_model: ht_trainer_benchmark(): trace the timed steps on the
 *	device (one rank, hpu) and lay them out on modeled device time
 *	(docs/timing-model.md): @model_step_s of the result
 */
struct ht_trainer_opts {
	int accel;
	uint32_t device_index;
	int strategy;
	struct ht_cluster cluster;
	uint32_t ccl_timeout_ms;
	uint32_t cs_timeout_ms;

	int model;
	struct ht_train_mlp mlp;
	struct ht_train_mixer mixer;
	struct ht_train_gpt gpt;
	struct ht_train_optim_opts optim;
	struct ht_train_lr_sched lr_sched;

	int data;
	const char *data_path;
	struct ht_csv_opts csv;
	struct ht_synth_opts synth;
	const struct ht_dataset *dataset;
	double val_frac;
	double test_frac;
	bool standardize;
	uint32_t prefetch;
	bool device_prefetch;
	uint64_t device_prefetch_skip;

	uint64_t max_epochs;
	uint64_t max_steps;
	uint32_t batch_size;
	uint32_t accumulate_grad_batches;
	uint64_t limit_train_batches;
	uint64_t limit_val_batches;
	uint32_t check_val_every_n_epoch;
	int precision;
	int exec_mode;
	uint64_t seed;
	uint64_t bucket_bytes;

	const char *log_dir;
	uint64_t log_every_n_steps;
	bool log_plot;
	const char *ckpt_dir;
	uint64_t ckpt_every_n_steps;
	const char *resume_path;
	int progress;
	bool device_stats;
	FILE *out;
	bool all_ranks_print;
	ht_on_step_fn on_step;
	void *on_step_arg;

	uint32_t bench_warmup;
	uint32_t bench_steps;
	bool bench_model;
};

/**
 * struct ht_trainer_result - what a fit, test or benchmark measured
 * @losses: the loss of every optimizer step of this fit call, in order
 *	(global batch mean, equal on every rank); owned by the trainer,
 *	valid until its next call or destroy
 * @nlosses: entries
 * @steps: optimizer steps done in total (with a resumed run's)
 * @epochs: epochs completed in total
 * @resumed_step: the step the run resumed at (0: fresh)
 * @val_loss: last validation mean loss (NaN: none ran)
 * @val_acc: last validation accuracy, 0..1 (NaN: none ran)
 * @test_loss: ht_trainer_test(): mean loss on the test split
 * @test_acc: ht_trainer_test(): accuracy, 0..1
 * @test_samples: samples tested (every rank's)
 * @fit_time_s: wall time of the fit loop
 * @step_time_s: mean wall time of an optimizer step (benchmark: of the
 *	timed steps; fit: of every step but the first, which compiles)
 * @samples_per_s: global samples per second at @step_time_s
 * @prefetches: batches prefetched to the device so far (hpu, this
 *	trainer's life)
 * @prefetch_in_step: of those, the copies submitted during the step
 *	before theirs (before its program was submitted)
 * @prefetch_overlapped: of those, the copies still running when the
 *	program of the step before them was submitted (device timestamps)
 * @prefetch_overlap_s: the time those copies ran beside it, summed
 * @model_step_s: benchmark with @bench_model: the timed steps' jobs laid
 *	out on modeled device time (hpu_trace_model_layout(),
 *	HPU_TRACE_LAYOUT_DEVICE), over the steps; 0 when not modeled
 * @model_mme_s: of which the MME's busy time (GEMM jobs' model_ns), over
 *	the steps
 * @model_jobs: the jobs laid out
 * @model_chip: the device's chip, whose figures the model used
 *	("gaudi2"), empty when not modeled
 */
struct ht_trainer_result {
	float *losses;
	uint64_t nlosses;
	uint64_t steps;
	uint64_t epochs;
	uint64_t resumed_step;
	float val_loss;
	float val_acc;
	float test_loss;
	float test_acc;
	uint64_t test_samples;
	double fit_time_s;
	double step_time_s;
	double samples_per_s;
	uint64_t prefetches;
	uint64_t prefetch_in_step;
	uint64_t prefetch_overlapped;
	double prefetch_overlap_s;
	double model_step_s;
	double model_mme_s;
	uint64_t model_jobs;
	char model_chip[16];
};

struct ht_trainer;

/**
 * ht_trainer_opts_init() - the defaults: one cpu rank, the digits MLP
 * recipe (docs/training.md has it), fp32, lazy execution, seed 42
 * @o: options, overwritten
 *
 * The default recipe reaches >= 95% test accuracy on the digits'
 * held-out split in a few seconds.
 */
void ht_trainer_opts_init(struct ht_trainer_opts *o);

/**
 * ht_trainer_create() - load and split the data, open the backend, build
 * the model and its optimizers, join the DDP communicator (parameters
 * broadcast from rank 0), resume from @o->resume_path
 * @o: options (copied; the strings and @o->dataset must outlive the
 *	trainer)
 * @tp: receives the trainer
 * @err: receives a one-line message on failure (may be NULL)
 * @errlen: bytes at @err
 *
 * Return: 0; -EINVAL (inconsistent options, a corrupt or mismatching
 * checkpoint); -ENOENT (data, device or checkpoint missing); -ENODEV;
 * -ETIMEDOUT (a DDP rank never came); -errno.
 */
int ht_trainer_create(const struct ht_trainer_opts *o, struct ht_trainer **tp,
		      char *err, size_t errlen);

/**
 * ht_trainer_fit() - train until max_epochs or max_steps (counting the
 * resumed run's), validating every check_val_every_n_epoch epochs,
 * writing checkpoints, logs and progress
 * @t: trainer
 * @res: receives the results (may be NULL)
 *
 * Return: 0 or -errno (ht_trainer_error() says why; a failed DDP peer is
 * -EIO, -ETIMEDOUT or -ECONNRESET).
 */
int ht_trainer_fit(struct ht_trainer *t, struct ht_trainer_result *res);

/**
 * ht_trainer_validate() - evaluate the validation split
 * @t: trainer
 * @res: its val_loss and val_acc are set
 *
 * Return: 0 or -errno.
 */
int ht_trainer_validate(struct ht_trainer *t, struct ht_trainer_result *res);

/**
 * ht_trainer_test() - evaluate the held-out test split (every rank takes
 * its shard; the counts are summed over ranks)
 * @t: trainer
 * @res: its test_loss, test_acc and test_samples are set
 *
 * Prints nothing: the results are the caller's to report (hpu-train's
 * summary does, once per printing rank).
 *
 * Return: 0, -ENODATA (test_frac was 0) or -errno.
 */
int ht_trainer_test(struct ht_trainer *t, struct ht_trainer_result *res);

/**
 * ht_trainer_benchmark() - bench_warmup + bench_steps training steps,
 * timing the latter (no validation, checkpoints or logs; the model
 * trains)
 * @t: trainer
 * @res: its step_time_s and samples_per_s are set
 *
 * With several ranks (data parallel) every rank must call it with the
 * same step counts: the ranks meet at a barrier after the warm-up, so
 * that their timed steps start together, and @res->step_time_s is the
 * mean over the ranks of their mean step time (equal on every rank);
 * @res->samples_per_s counts the global batch.
 *
 * Return: 0 or -errno.
 */
int ht_trainer_benchmark(struct ht_trainer *t, struct ht_trainer_result *res);

/**
 * ht_trainer_barrier() - wait until every rank of a data parallel run
 * called it (a one-value allreduce through the run's communicator)
 * @t: trainer
 *
 * The wait sleeps in the device's completion wait and is bounded by the
 * collective timeout (ccl_timeout_ms). Returns at once for one rank.
 *
 * Return: 0 or -errno (the error text in ht_trainer_error()).
 */
int ht_trainer_barrier(struct ht_trainer *t);

/**
 * ht_trainer_save_checkpoint() - write a checkpoint now (atomically:
 * temporary file, fsync, rename)
 * @t: trainer
 * @path: the file
 *
 * Return: 0 or -errno.
 */
int ht_trainer_save_checkpoint(struct ht_trainer *t, const char *path);

/**
 * ht_trainer_numel() - elements of the model's parameters
 * @t: trainer
 *
 * Return: the count.
 */
uint64_t ht_trainer_numel(const struct ht_trainer *t);

/**
 * ht_trainer_read_params() - the parameters as fp32, in creation order
 * @t: trainer
 * @dst: room for ht_trainer_numel() floats
 *
 * Return: 0 or -errno.
 */
int ht_trainer_read_params(struct ht_trainer *t, float *dst);

/**
 * ht_trainer_error() - the message of the last failure
 * @t: trainer
 *
 * Return: a string owned by the trainer ("" when none).
 */
const char *ht_trainer_error(const struct ht_trainer *t);

/**
 * ht_trainer_destroy() - finish the logs, leave the communicator, close
 * the backend and free the trainer
 * @t: trainer or NULL
 */
void ht_trainer_destroy(struct ht_trainer *t);

/*
 * Parsers of the CLI values: each returns 0 and sets *out, or -EINVAL
 * with a message in err naming the accepted values.
 */

/** ht_train_parse_precision() - "32", "32-true", "bf16-mixed", "bf16" */
int ht_train_parse_precision(const char *s, int *out, char *err, size_t errlen);

/** ht_train_parse_exec_mode() - "eager", "lazy", "graph" */
int ht_train_parse_exec_mode(const char *s, int *out, char *err, size_t errlen);

/** ht_train_parse_model() - "mlp", "mixer", "gpt" */
int ht_train_parse_model(const char *s, int *out, char *err, size_t errlen);

/** ht_train_parse_optim() - "sgd", "adamw" */
int ht_train_parse_optim(const char *s, int *out, char *err, size_t errlen);

/** ht_train_parse_act() - "relu", "gelu", "tanh" */
int ht_train_parse_act(const char *s, int *out, char *err, size_t errlen);

/** ht_train_parse_progress() - "auto", "bar"/"on", "plain", "off" */
int ht_train_parse_progress(const char *s, int *out, char *err, size_t errlen);

/**
 * ht_train_parse_layers() - hidden layer widths, e.g. "128,64" ("" or
 * "none": no hidden layer)
 * @s: the value
 * @mlp: its nhidden and hidden are set
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int ht_train_parse_layers(const char *s, struct ht_train_mlp *mlp, char *err,
			  size_t errlen);

#endif /* HT_TRAINER_H */
