/* SPDX-License-Identifier: MIT */
/*
 * trainer_internal.h - what the trainer's files share (ht_trainer.h is
 * the API): the trainer, its DDP state, checkpoints and callbacks.
 */
#ifndef HT_TRAINER_INTERNAL_H
#define HT_TRAINER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ht_backend.h"
#include "ht_loader.h"
#include "ht_module.h"
#include "ht_trainer.h"

struct ht_ddp;

/**
 * struct ht_callbacks - state of the built-in callbacks
 * @bar: draw a progress bar (else plain lines)
 * @quiet: no progress output
 * @bar_len: characters of the last bar drawn (0: none on screen)
 * @csv: the metrics log, or NULL
 * @mem_peak: largest device memory in use seen
 */
struct ht_callbacks {
	bool bar;
	bool quiet;
	int bar_len;
	FILE *csv;
	uint64_t mem_peak;
};

/**
 * struct ht_trainer - one rank's training run
 * @o: the options (copied)
 * @err: message of the last failure
 * @ds_full: the data set loaded (not for HT_TRAIN_DATA_GIVEN)
 * @ds_train: training part
 * @ds_val: validation part (n 0: none)
 * @ds_test: test part (n 0: none)
 * @txt_train: text data: the training text (HT_TRAIN_DATA_TEXT)
 * @txt_val: text data: the validation text (len 0: none)
 * @n_train: training samples (data set rows or text windows)
 * @n_val: validation samples (0: no validation)
 * @features: elements of a sample
 * @classes: classes of the data
 * @world: ranks
 * @rank: this rank
 * @dev: the device (hpu)
 * @be: backend
 * @m: the module
 * @loader: training loader
 * @ddp: DDP state (NULL for one rank)
 * @ids: token ids of a batch (mixer)
 * @ids_cap: entries of @ids
 * @epoch: epochs completed
 * @batch: loader steps done in the current epoch
 * @step: optimizer steps done
 * @resumed_step: step of the checkpoint resumed from (0: none)
 * @resumed_crc: CRC-32 of the checkpoint's payload resumed from
 * @losses: losses of the current fit call
 * @nlosses: entries
 * @losses_cap: room
 * @val_loss: last validation loss (NaN: none)
 * @val_acc: last validation accuracy (NaN: none)
 * @cb: callbacks
 * @out: progress output (rank 0, or every rank when asked)
 * @pf_on: full batches are prefetched to the device
 * @pf_x: device input buffers of the prefetch (features or token ids)
 * @pf_y: their labels
 * @pf_slot: buffer of the next prefetch
 * @pf_q: batches prefetched whose step did not run yet, oldest first
 * @pf_qslot: their buffers
 * @pf_n: entries
 * @ahead: the first batch of the next optimizer step, taken from the
 *	loader early to prefetch it (the trainer's position, epoch/batch,
 *	is still before it)
 * @lr: the learning-rate schedule (@o.lr_sched with the run's total
 *	optimizer steps)
 * @lr_on: a schedule other than a constant without warm-up
 */
struct ht_trainer {
	struct ht_trainer_opts o;
	char err[512];
	struct ht_dataset ds_full;
	struct ht_dataset ds_train;
	struct ht_dataset ds_val;
	struct ht_dataset ds_test;
	struct ht_text txt_train;
	struct ht_text txt_val;
	uint64_t n_train;
	uint64_t n_val;
	uint32_t features;
	uint32_t classes;
	uint32_t world;
	uint32_t rank;
	struct hpu_device *dev;
	struct ht_backend *be;
	struct ht_module *m;
	struct ht_loader *loader;
	struct ht_ddp *ddp;
	int32_t *ids;
	size_t ids_cap;
	uint64_t epoch;
	uint64_t batch;
	uint64_t step;
	uint64_t resumed_step;
	uint32_t resumed_crc;
	float *losses;
	uint64_t nlosses;
	uint64_t losses_cap;
	float val_loss;
	float val_acc;
	struct ht_callbacks cb;
	FILE *out;
	bool pf_on;
	struct ht_tensor *pf_x[HT_PREFETCH_DEPTH];
	struct ht_tensor *pf_y[HT_PREFETCH_DEPTH];
	unsigned int pf_slot;
	const struct ht_batch *pf_q[HT_PREFETCH_DEPTH];
	unsigned int pf_qslot[HT_PREFETCH_DEPTH];
	unsigned int pf_n;
	struct ht_batch *ahead;
	struct ht_lr_schedule lr;
	bool lr_on;
};

/*
 * trainer_step.c: one optimizer step over @k micro-batches; @next: the
 * batch of the step after it (prefetched while this one runs), or NULL
 */
int ht_trainer_opt_step(struct ht_trainer *t, struct ht_batch *const *b,
			unsigned int k, const struct ht_batch *next,
			float *loss);
/*
 * trainer_step.c: the schedule from the options once the loader exists
 * (-EINVAL with t->err for an lr_min above an optimizer's lr), and the
 * learning rates of the next optimizer step
 */
int ht_trainer_lr_setup(struct ht_trainer *t);
void ht_trainer_lr_apply(struct ht_trainer *t);
/* trainer_fit.c: loader steps of an epoch, limit_train_batches applied */
uint64_t ht_trainer_epoch_steps(const struct ht_trainer *t);
/* trainer_prefetch.c */
struct hpu_device;
struct hpu_trace_event;

/**
 * struct ht_bench_model - the trace of a benchmark's timed steps
 * (trainer_model.c)
 * @dev: the traced device
 * @ev: events drained so far
 * @n: entries of @ev
 * @cap: room in @ev
 * @mark_ns: the first timed step's start: earlier submissions are left out
 * @dropped: events full rings dropped (then nothing is modeled)
 * @chip: the device's chip, lower case
 * @on: tracing
 */
struct ht_bench_model {
	struct hpu_device *dev;
	struct hpu_trace_event *ev;
	size_t n;
	size_t cap;
	uint64_t mark_ns;
	uint64_t dropped;
	char chip[16];
	bool on;
};

/* trainer_model.c: start (a step before the timed ones), mark (the first
 * timed step), drain (after each step), finish (the result) or cancel */
int ht_bench_model_start(struct ht_trainer *t, struct ht_bench_model *m);
void ht_bench_model_mark(struct ht_bench_model *m);
int ht_bench_model_drain(struct ht_bench_model *m);
int ht_bench_model_finish(struct ht_trainer *t, struct ht_bench_model *m,
			  uint32_t steps, struct ht_trainer_result *res);
void ht_bench_model_cancel(struct ht_bench_model *m);

int ht_trainer_pf_setup(struct ht_trainer *t);
void ht_trainer_pf_release(struct ht_trainer *t);
int ht_trainer_pf_issue(struct ht_trainer *t, const struct ht_batch *b);
int ht_trainer_pf_take(struct ht_trainer *t, const struct ht_batch *b,
		       int *slot);
int ht_trainer_pf_inputs(struct ht_trainer *t, const struct ht_batch *b,
			 unsigned int slot, struct ht_tensor **xt,
			 struct ht_tensor **yt);
int ht_trainer_pf_cancel(struct ht_trainer *t);
/* the batch as the module's input (features or token ids) */
int ht_trainer_input(struct ht_trainer *t, const struct ht_batch *b,
		     const void **x);

/* the labels of a batch: a data set's y, a text's per-token targets */
static inline const int32_t *ht_trainer_labels(const struct ht_batch *b)
{
	return b->targets ? b->targets : b->y;
}

/*
 * trainer_eval.c: mean loss, accuracy and samples of a split (@ds, or
 * the text @txt when not NULL)
 */
int ht_trainer_evaluate(struct ht_trainer *t, const struct ht_dataset *ds,
			const struct ht_text *txt, uint64_t limit, float *loss,
			float *acc, uint64_t *n);
/* text windows of @txt as the GPT reads them (stride 0: the context) */
void ht_trainer_windows(const struct ht_trainer *t, const struct ht_text *txt,
			uint32_t stride, struct ht_text_windows *w);

/* ddp_comm.c */
int ht_ddp_create(struct ht_trainer *t);
void ht_ddp_destroy(struct ht_ddp *d);
int ht_ddp_broadcast_params(struct ht_trainer *t);
int ht_ddp_allreduce_host(struct ht_trainer *t, float *v, unsigned int n);
int ht_ddp_check_resume(struct ht_trainer *t);
/* ddp_bucket.c */
int ht_ddp_buckets_init(struct ht_trainer *t);
int ht_ddp_step_prepare(struct ht_trainer *t, struct ht_tensor *loss,
			float prev_sum);
int ht_ddp_empty_micro(struct ht_trainer *t, bool first, bool last,
		       float prev_sum);
int ht_ddp_step_finish(struct ht_trainer *t);
int ht_ddp_fetch_loss(struct ht_trainer *t, float *loss);
int ht_ddp_step_done(struct ht_trainer *t);

/* ckpt_file.c */
int ht_ckpt_save(struct ht_trainer *t, const char *path);
int ht_ckpt_load(struct ht_trainer *t, const char *path);
int ht_ckpt_parse(struct ht_trainer *t, const char *path, const void *data,
		  size_t len);
/* @a then @b to @path: temporary file, fsync, rename, fsync of the dir */
int ht_trainer_write_atomic(const char *path, const void *a, size_t na,
			    const void *b, size_t nb);

/* callback_*.c */
int ht_callback_init(struct ht_trainer *t);
void ht_callback_fini(struct ht_trainer *t);
void ht_callback_epoch_start(struct ht_trainer *t, uint64_t batches);
void ht_callback_step(struct ht_trainer *t, struct ht_step_info *info);
void ht_callback_epoch_end(struct ht_trainer *t,
			   const struct ht_step_info *last);
void ht_callback_device_stats(struct ht_trainer *t, struct ht_step_info *info);
int ht_callback_csv_open(struct ht_trainer *t);
void ht_callback_csv_row(struct ht_trainer *t, const struct ht_step_info *info,
			 bool with_val);
void ht_callback_csv_close(struct ht_trainer *t);
int ht_callback_csv_plot(struct ht_trainer *t, bool report);

/* trainer_util */
double ht_trainer_now(void);
int ht_trainer_seterr(struct ht_trainer *t, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* HT_TRAINER_INTERNAL_H */
