// SPDX-License-Identifier: MIT
/*
 * trainer_core.c - making and releasing a trainer: options checked, data
 * loaded and split, device and backend opened, the model built, the DDP
 * communicator joined, a checkpoint resumed (ht_trainer.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpudrv.h"
#include "ht_error.h"
#include "trainer_internal.h"

/* the trainer's enums carry the backend's and the module's values */
_Static_assert((int)HT_TRAIN_ACCEL_CPU == (int)HT_ACCEL_CPU &&
		       (int)HT_TRAIN_ACCEL_HPU == (int)HT_ACCEL_HPU,
	       "trainer and backend accelerators differ");
_Static_assert((int)HT_TRAIN_EXEC_EAGER == (int)HT_EXEC_EAGER &&
		       (int)HT_TRAIN_EXEC_LAZY == (int)HT_EXEC_LAZY &&
		       (int)HT_TRAIN_EXEC_GRAPH == (int)HT_EXEC_GRAPH,
	       "trainer and backend modes differ");
_Static_assert((int)HT_TRAIN_PREC_32 == (int)HT_PREC_32 &&
		       (int)HT_TRAIN_PREC_BF16_MIXED == (int)HT_PREC_BF16_MIXED,
	       "trainer and backend precisions differ");
_Static_assert((int)HT_TRAIN_ACT_RELU == (int)HT_ACT_RELU &&
		       (int)HT_TRAIN_ACT_GELU == (int)HT_ACT_GELU &&
		       (int)HT_TRAIN_ACT_TANH == (int)HT_ACT_TANH,
	       "trainer and module activations differ");
_Static_assert((int)HT_TRAIN_OPTIM_SGD == (int)HT_OPTIM_SGD &&
		       (int)HT_TRAIN_OPTIM_ADAMW == (int)HT_OPTIM_ADAMW,
	       "trainer and module optimizers differ");

_Static_assert(HT_TRAIN_GPT_MAX_LAYERS == HT_GPT_MAX_LAYERS &&
		       HT_TRAIN_GPT_MAX_DIM == HT_GPT_MAX_DIM &&
		       HT_TRAIN_GPT_MAX_CONTEXT == HT_GPT_MAX_CONTEXT,
	       "trainer and module GPT limits differ");

double ht_trainer_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ht_trainer_seterr(struct ht_trainer *t, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return ret;
}

static void gpt_config(const struct ht_trainer_opts *o, struct ht_gpt_config *c)
{
	memset(c, 0, sizeof(*c));
	c->vocab = HT_TOK_VOCAB;
	c->context = o->gpt.context;
	c->dim = o->gpt.dim;
	c->heads = o->gpt.heads;
	c->layers = o->gpt.layers;
	c->tied = o->gpt.tied;
	c->dropout = o->gpt.dropout;
	c->lr = o->gpt.lr;
	c->weight_decay = o->gpt.weight_decay;
	c->beta1 = o->optim.beta1;
	c->beta2 = o->optim.beta2;
	c->eps = o->optim.eps;
	c->clip_norm = o->gpt.clip_norm;
}

static int check_opts(const struct ht_trainer_opts *o, char *err, size_t errlen)
{
	uint32_t world = o->cluster.world_size ? o->cluster.world_size : 1;

	if (o->accel != HT_TRAIN_ACCEL_CPU && o->accel != HT_TRAIN_ACCEL_HPU)
		goto bad_enum;
	if (o->strategy != HT_TRAIN_SINGLE && o->strategy != HT_TRAIN_DDP)
		goto bad_enum;
	if (o->exec_mode < HT_TRAIN_EXEC_EAGER ||
	    o->exec_mode > HT_TRAIN_EXEC_GRAPH ||
	    (o->precision != HT_TRAIN_PREC_32 &&
	     o->precision != HT_TRAIN_PREC_BF16_MIXED) ||
	    (o->model != HT_TRAIN_MODEL_MLP &&
	     o->model != HT_TRAIN_MODEL_MIXER &&
	     o->model != HT_TRAIN_MODEL_GPT) ||
	    o->data < HT_TRAIN_DATA_DIGITS || o->data > HT_TRAIN_DATA_TEXT)
		goto bad_enum;
	if (o->data == HT_TRAIN_DATA_TEXT && o->model != HT_TRAIN_MODEL_GPT) {
		ht_seterr(err, errlen, HT_TRAIN_TEXT_NEEDS_LM);
		return -EINVAL;
	}
	if (o->model == HT_TRAIN_MODEL_GPT) {
		struct ht_gpt_config c;
		const char *why;

		if (o->data != HT_TRAIN_DATA_TEXT) {
			ht_seterr(err, errlen, HT_TRAIN_LM_NEEDS_TEXT);
			return -EINVAL;
		}
		gpt_config(o, &c);
		if (ht_gpt_check(&c, &why)) {
			ht_seterr(err, errlen, "--model gpt: %s", why);
			return -EINVAL;
		}
		if (o->gpt.stride > o->gpt.context) {
			ht_seterr(
				err, errlen,
				"--model gpt: the window stride %u is above the context %u",
				o->gpt.stride, o->gpt.context);
			return -EINVAL;
		}
	}
	if (o->cluster.rank >= world) {
		ht_seterr(err, errlen, "rank %u is not below the world size %u",
			  o->cluster.rank, world);
		return -EINVAL;
	}
	if (o->strategy == HT_TRAIN_SINGLE && world != 1) {
		ht_seterr(
			err, errlen,
			"strategy single_hpu with a world of %u ranks (use hpu_parallel)",
			world);
		return -EINVAL;
	}
	if (o->strategy == HT_TRAIN_DDP && o->accel != HT_TRAIN_ACCEL_HPU) {
		ht_seterr(
			err, errlen,
			"strategy hpu_parallel needs --accelerator hpu (the collectives run on the devices)");
		return -EINVAL;
	}
	if (!o->batch_size || !o->accumulate_grad_batches ||
	    o->accumulate_grad_batches > HT_LOADER_MAX_PREFETCH) {
		ht_seterr(
			err, errlen,
			"batch size must be >= 1 and accumulate_grad_batches 1..%u",
			HT_LOADER_MAX_PREFETCH);
		return -EINVAL;
	}
	if ((o->lr_sched.kind != HT_TRAIN_LR_CONSTANT &&
	     o->lr_sched.kind != HT_TRAIN_LR_COSINE) ||
	    !(o->lr_sched.lr_min >= 0.0f && isfinite(o->lr_sched.lr_min))) {
		ht_seterr(
			err, errlen,
			"the lr schedule must be constant or cosine, lr_min finite and >= 0");
		return -EINVAL;
	}
	if (!o->max_epochs && !o->max_steps) {
		ht_seterr(
			err, errlen,
			"neither max_epochs nor max_steps is set: the fit would not end");
		return -EINVAL;
	}
	if (o->mlp.nhidden > HT_TRAIN_MAX_HIDDEN) {
		ht_seterr(err, errlen, "at most %u hidden layers",
			  HT_TRAIN_MAX_HIDDEN);
		return -EINVAL;
	}
	if (o->data == HT_TRAIN_DATA_GIVEN && !o->dataset) {
		ht_seterr(err, errlen, "data set 'given' without a data set");
		return -EINVAL;
	}
	if (o->data == HT_TRAIN_DATA_CSV && !o->data_path) {
		ht_seterr(err, errlen, "CSV data without a file name");
		return -EINVAL;
	}
	return 0;
bad_enum:
	ht_seterr(err, errlen, "invalid trainer options (an unknown value)");
	return -EINVAL;
}

/* The corpus split by records into training and validation text */
static int text_setup(struct ht_trainer *t, char *err, size_t errlen)
{
	const struct ht_trainer_opts *o = &t->o;
	struct ht_text_split_opts so = {
		.val_frac = o->val_frac,
		.seed = o->seed ^ 0x5eedULL,
	};
	struct ht_text_windows w;
	struct ht_text all;
	int ret;

	ret = ht_text_load_corpus(o->data_path, &all, err, errlen);
	if (ret)
		return ret;
	ret = ht_text_split(&all, &so, &t->txt_train,
			    o->val_frac > 0 ? &t->txt_val : NULL, err, errlen);
	ht_text_free(&all);
	if (ret)
		return ret;
	t->features = o->gpt.context;
	t->classes = HT_TOK_VOCAB;
	ht_trainer_windows(t, &t->txt_train, o->gpt.stride, &w);
	t->n_train = ht_text_window_count(&w);
	if (t->txt_val.len) {
		ht_trainer_windows(t, &t->txt_val, 0, &w);
		t->n_val = ht_text_window_count(&w);
	}
	if (!t->n_train) {
		ht_seterr(err, errlen,
			  "the training text is not longer than the context %u",
			  o->gpt.context);
		return -EINVAL;
	}
	return 0;
}

/* Load the data, split it with the seed, standardise with train's stats */
static int data_setup(struct ht_trainer *t, char *err, size_t errlen)
{
	const struct ht_trainer_opts *o = &t->o;
	const struct ht_dataset *src = o->dataset;
	struct ht_split_opts so = {
		.val_frac = o->val_frac,
		.test_frac = o->test_frac,
		.seed = o->seed ^ 0x5eedULL,
		.stratify = true,
	};
	struct ht_synth_opts syn;
	float *mean, *sd;
	int ret = 0;

	if (o->data == HT_TRAIN_DATA_TEXT)
		return text_setup(t, err, errlen);
	switch (o->data) {
	case HT_TRAIN_DATA_DIGITS:
		ret = ht_data_load_digits(o->data_path, &t->ds_full, err,
					  errlen);
		break;
	case HT_TRAIN_DATA_CSV:
		ret = ht_csv_load(o->data_path, &o->csv, &t->ds_full, err,
				  errlen);
		break;
	case HT_TRAIN_DATA_SYNTH:
		syn = o->synth;
		if (!syn.seed)
			syn.seed = o->seed;
		ret = ht_data_synthetic(&syn, &t->ds_full, err, errlen);
		break;
	default:
		break;
	}
	if (ret)
		return ret;
	if (o->data != HT_TRAIN_DATA_GIVEN)
		src = &t->ds_full;
	ret = ht_data_split(src, &so, &t->ds_train,
			    o->val_frac > 0 ? &t->ds_val : NULL,
			    o->test_frac > 0 ? &t->ds_test : NULL, err, errlen);
	if (ret)
		return ret;
	ht_dataset_free(&t->ds_full);
	t->features = t->ds_train.f;
	t->classes = t->ds_train.classes;
	t->n_train = t->ds_train.n;
	t->n_val = t->ds_val.n;
	if (!o->standardize || o->model == HT_TRAIN_MODEL_MIXER)
		return 0;
	mean = malloc(t->features * sizeof(*mean));
	sd = malloc(t->features * sizeof(*sd));
	if (!mean || !sd) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = ht_data_standardize_fit(&t->ds_train, mean, sd);
	if (ret)
		goto out_free;
	ht_data_standardize_apply(&t->ds_train, mean, sd);
	if (t->ds_val.n)
		ht_data_standardize_apply(&t->ds_val, mean, sd);
	if (t->ds_test.n)
		ht_data_standardize_apply(&t->ds_test, mean, sd);
out_free:
	free(mean);
	free(sd);
	return ret;
}

static int backend_setup(struct ht_trainer *t, char *err, size_t errlen)
{
	const struct ht_trainer_opts *o = &t->o;
	struct ht_backend_opts bo = {
		.accel = o->accel,
		.mode = o->exec_mode,
		.precision = o->precision,
		.device_index = (int)o->device_index,
		.cs_timeout_ms = o->cs_timeout_ms,
	};
	int ret;

	if (o->accel == HT_TRAIN_ACCEL_HPU) {
		ret = hpu_open(o->device_index, &t->dev);
		if (ret) {
			ht_seterr(err, errlen, "cannot open hpu%u: %s",
				  o->device_index,
				  hpu_last_error() ?: hpu_strerror(ret));
			return ret;
		}
		bo.dev = t->dev;
	}
	return ht_backend_create(&bo, &t->be, err, errlen);
}

static int model_setup(struct ht_trainer *t, char *err, size_t errlen)
{
	const struct ht_trainer_opts *o = &t->o;
	uint64_t seed = o->seed;
	unsigned int i;
	int ret;

	if (o->model == HT_TRAIN_MODEL_MLP) {
		struct ht_mlp_config c = {
			.act = o->mlp.act,
			.optim = o->optim.kind,
			.hp = {
				.lr = o->optim.lr,
				.momentum = o->optim.momentum,
				.weight_decay = o->optim.weight_decay,
				.nesterov = o->optim.nesterov,
				.beta1 = o->optim.beta1,
				.beta2 = o->optim.beta2,
				.eps = o->optim.eps,
			},
		};

		c.sizes[c.nsizes++] = t->features;
		for (i = 0; i < o->mlp.nhidden; i++)
			c.sizes[c.nsizes++] = o->mlp.hidden[i];
		c.sizes[c.nsizes++] = t->classes;
		ret = ht_mlp_create(t->be, &c, seed, &t->m);
	} else if (o->model == HT_TRAIN_MODEL_GPT) {
		struct ht_gpt_config c;

		gpt_config(o, &c);
		ret = ht_gpt_create(t->be, &c, seed, &t->m);
	} else {
		struct ht_mixer_config c = {
			.tokens = t->features,
			.vocab = o->mixer.vocab,
			.dim = o->mixer.dim,
			.hidden = o->mixer.hidden,
			.blocks = o->mixer.blocks,
			.classes = t->classes,
			.lr_adamw = o->mixer.lr_adamw,
			.lr_sgd = o->mixer.lr_sgd,
		};

		ret = ht_mixer_create(t->be, &c, seed, &t->m);
	}
	if (ret)
		ht_seterr(err, errlen, "cannot build the %s model: %s",
			  o->model == HT_TRAIN_MODEL_MLP ? "mlp" :
			  o->model == HT_TRAIN_MODEL_GPT ? "gpt" :
							   "mixer",
			  t->be->err[0] ? t->be->err : strerror(-ret));
	return ret;
}

static int loader_setup(struct ht_trainer *t, char *err, size_t errlen)
{
	struct ht_loader_opts lo = {
		.batch_size = t->o.batch_size,
		.world_size = t->world,
		.rank = t->rank,
		.seed = t->o.seed,
		.shuffle = true,
		.prefetch = t->o.prefetch,
	};

	/*
	 * an optimizer step holds its K micro-batches at once, and one more
	 * when the next step's first batch is prefetched to the device
	 */
	if (lo.prefetch < t->o.accumulate_grad_batches)
		lo.prefetch = t->o.accumulate_grad_batches;
	if (t->o.data == HT_TRAIN_DATA_TEXT) {
		struct ht_text_windows w;

		ht_trainer_windows(t, &t->txt_train, t->o.gpt.stride, &w);
		return ht_loader_create_text(&w, &lo, &t->loader, err, errlen);
	}
	return ht_loader_create(&t->ds_train, &lo, &t->loader, err, errlen);
}

int ht_trainer_create(const struct ht_trainer_opts *o, struct ht_trainer **tp,
		      char *err, size_t errlen)
{
	struct ht_trainer *t;
	int ret;

	if (!o || !tp) {
		ht_seterr(err, errlen, "no options");
		return -EINVAL;
	}
	ret = check_opts(o, err, errlen);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->o = *o;
	if (!t->o.bucket_bytes)
		t->o.bucket_bytes = HT_TRAIN_BUCKET_DEFAULT;
	t->world = o->cluster.world_size ? o->cluster.world_size : 1;
	t->rank = o->cluster.rank;
	t->val_loss = NAN;
	t->val_acc = NAN;
	t->out = o->out ? o->out : stdout;

	ret = data_setup(t, err, errlen);
	if (!ret)
		ret = backend_setup(t, err, errlen);
	if (!ret)
		ret = model_setup(t, err, errlen);
	if (!ret)
		ret = loader_setup(t, err, errlen);
	if (!ret) {
		ret = ht_trainer_pf_setup(t);
		if (ret)
			ht_seterr(err, errlen, "%s", t->err);
	}
	if (!ret && t->world > 1) {
		ret = ht_ddp_create(t);
		if (!ret)
			ret = ht_ddp_buckets_init(t);
		if (!ret)
			ret = ht_ddp_broadcast_params(t);
		if (ret)
			ht_seterr(err, errlen, "%s", t->err);
	}
	if (!ret) {
		ret = ht_trainer_lr_setup(t);
		if (ret)
			ht_seterr(err, errlen, "%s", t->err);
	}
	if (!ret && o->resume_path) {
		ret = ht_ckpt_load(t, o->resume_path);
		if (!ret && t->ddp)
			ret = ht_ddp_check_resume(t);
		if (!ret)
			ht_trainer_lr_apply(t); /* the resumed step's rate */
		if (ret)
			ht_seterr(err, errlen, "%s", t->err);
	}
	if (!ret) {
		ret = ht_callback_init(t);
		if (ret)
			ht_seterr(err, errlen, "%s", t->err);
	}
	if (ret) {
		ht_trainer_destroy(t);
		return ret;
	}
	*tp = t;
	return 0;
}

void ht_trainer_destroy(struct ht_trainer *t)
{
	if (!t)
		return;
	ht_callback_fini(t);
	ht_trainer_pf_release(t);
	ht_loader_destroy(t->loader);
	if (t->be)
		ht_backend_sync(t->be);
	ht_ddp_destroy(t->ddp);
	ht_module_destroy(t->m);
	ht_backend_destroy(t->be);
	if (t->dev)
		hpu_close(t->dev);
	ht_dataset_free(&t->ds_full);
	ht_dataset_free(&t->ds_train);
	ht_dataset_free(&t->ds_val);
	ht_dataset_free(&t->ds_test);
	ht_text_free(&t->txt_train);
	ht_text_free(&t->txt_val);
	free(t->ids);
	free(t->losses);
	free(t);
}

uint64_t ht_trainer_numel(const struct ht_trainer *t)
{
	return ht_module_numel(t->m);
}

int ht_trainer_read_params(struct ht_trainer *t, float *dst)
{
	int ret = ht_module_read_params(t->m, dst);

	if (ret)
		ht_trainer_seterr(t, ret, "reading the parameters failed: %s",
				  t->be->err);
	return ret;
}

const char *ht_trainer_error(const struct ht_trainer *t)
{
	return t ? t->err : "";
}

int ht_trainer_save_checkpoint(struct ht_trainer *t, const char *path)
{
	return ht_ckpt_save(t, path);
}
