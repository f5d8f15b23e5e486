// SPDX-License-Identifier: MIT
/*
 * trainer_opts.c - the trainer's default options (the digits recipe) and
 * the parsers of the CLI values (ht_trainer.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ht_error.h"
#include "ht_trainer.h"

void ht_trainer_opts_init(struct ht_trainer_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->accel = HT_TRAIN_ACCEL_CPU;
	o->strategy = HT_TRAIN_SINGLE;
	o->cluster.world_size = 1;
	o->cluster.local_world_size = 1;
	o->cluster.num_nodes = 1;
	strcpy(o->cluster.master_addr, "127.0.0.1");
	o->cluster.master_port = HT_MASTER_PORT_DEFAULT;

	/* the digits recipe: 64-128-10 relu, SGD with Nesterov momentum */
	o->model = HT_TRAIN_MODEL_MLP;
	o->mlp.nhidden = 1;
	o->mlp.hidden[0] = 128;
	o->mlp.act = HT_TRAIN_ACT_RELU;
	o->optim.kind = HT_TRAIN_OPTIM_SGD;
	o->optim.lr = 0.05f;
	o->optim.momentum = 0.9f;
	o->optim.nesterov = true;
	o->optim.beta1 = 0.9f;
	o->optim.beta2 = 0.999f;
	o->optim.eps = 1e-8f;
	o->mixer.vocab = 17;
	o->mixer.dim = 32;
	o->mixer.hidden = 64;
	o->mixer.blocks = 2;
	o->mixer.lr_adamw = 3e-3f;
	o->mixer.lr_sgd = 0.05f;
	/* the GPT: small enough for 2 cores (docs/training.md) */
	o->gpt.layers = 4;
	o->gpt.heads = 4;
	o->gpt.dim = 128;
	o->gpt.context = 128;
	o->gpt.tied = true;
	o->gpt.lr = 3e-3f;
	o->gpt.weight_decay = 0.1f;
	o->gpt.clip_norm = 1.0f;

	o->data = HT_TRAIN_DATA_DIGITS;
	ht_csv_opts_init(&o->csv);
	o->synth.n = 2048;
	o->synth.f = 32;
	o->synth.classes = 4;
	o->val_frac = 0.1;
	o->test_frac = 0.2;
	o->standardize = true;
	o->prefetch = 2;
	o->device_prefetch = true;
	o->device_prefetch_skip = HT_PREFETCH_SKIP_BYTES;

	o->max_epochs = 15;
	o->batch_size = 32;
	o->accumulate_grad_batches = 1;
	o->check_val_every_n_epoch = 1;
	o->precision = HT_TRAIN_PREC_32;
	o->exec_mode = HT_TRAIN_EXEC_LAZY;
	o->seed = 42;
	o->bucket_bytes = HT_TRAIN_BUCKET_DEFAULT;
	o->progress = HT_TRAIN_PROGRESS_AUTO;
	o->log_plot = true;
	o->bench_warmup = 5;
	o->bench_steps = 50;
}

struct name_val {
	const char *name;
	int val;
};

static int lookup(const struct name_val *t, const char *what, const char *s,
		  int *out, char *err, size_t errlen)
{
	char list[160] = "";
	unsigned int i;

	for (i = 0; s && t[i].name; i++) {
		if (!strcmp(s, t[i].name)) {
			*out = t[i].val;
			return 0;
		}
	}
	for (i = 0; t[i].name; i++) {
		if (i)
			strncat(list, "|", sizeof(list) - strlen(list) - 1);
		strncat(list, t[i].name, sizeof(list) - strlen(list) - 1);
	}
	ht_seterr(err, errlen, "invalid %s '%s' (expected %s)", what,
		  s ? s : "", list);
	return -EINVAL;
}

int ht_train_parse_precision(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "32", HT_TRAIN_PREC_32 },
		{ "32-true", HT_TRAIN_PREC_32 },
		{ "bf16-mixed", HT_TRAIN_PREC_BF16_MIXED },
		{ "bf16", HT_TRAIN_PREC_BF16_MIXED },
		{ NULL, 0 },
	};

	return lookup(t, "--precision", s, out, err, errlen);
}

int ht_train_parse_exec_mode(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "eager", HT_TRAIN_EXEC_EAGER },
		{ "lazy", HT_TRAIN_EXEC_LAZY },
		{ "graph", HT_TRAIN_EXEC_GRAPH },
		{ NULL, 0 },
	};

	return lookup(t, "--exec-mode", s, out, err, errlen);
}

int ht_train_parse_model(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "mlp", HT_TRAIN_MODEL_MLP },
		{ "mixer", HT_TRAIN_MODEL_MIXER },
		{ "gpt", HT_TRAIN_MODEL_GPT },
		{ NULL, 0 },
	};

	return lookup(t, "--model", s, out, err, errlen);
}

int ht_train_parse_optim(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "sgd", HT_TRAIN_OPTIM_SGD },
		{ "adamw", HT_TRAIN_OPTIM_ADAMW },
		{ NULL, 0 },
	};

	return lookup(t, "--optimizer", s, out, err, errlen);
}

int ht_train_parse_act(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "relu", HT_TRAIN_ACT_RELU },
		{ "gelu", HT_TRAIN_ACT_GELU },
		{ "tanh", HT_TRAIN_ACT_TANH },
		{ NULL, 0 },
	};

	return lookup(t, "--activation", s, out, err, errlen);
}

int ht_train_parse_progress(const char *s, int *out, char *err, size_t errlen)
{
	static const struct name_val t[] = {
		{ "auto", HT_TRAIN_PROGRESS_AUTO },
		{ "bar", HT_TRAIN_PROGRESS_BAR },
		{ "on", HT_TRAIN_PROGRESS_BAR },
		{ "plain", HT_TRAIN_PROGRESS_PLAIN },
		{ "off", HT_TRAIN_PROGRESS_OFF },
		{ NULL, 0 },
	};

	return lookup(t, "--progress", s, out, err, errlen);
}

int ht_train_parse_layers(const char *s, struct ht_train_mlp *mlp, char *err,
			  size_t errlen)
{
	struct ht_train_mlp m = { .act = mlp->act };
	const char *p = s;
	char *end;

	if (!s) {
		ht_seterr(err, errlen, "missing layer list");
		return -EINVAL;
	}
	if (!*s || !strcmp(s, "none")) {
		*mlp = m;
		return 0;
	}
	for (;;) {
		unsigned long v;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > 65536)
			goto bad;
		if (m.nhidden == HT_TRAIN_MAX_HIDDEN) {
			ht_seterr(
				err, errlen,
				"invalid layer list '%s': at most %u hidden layers",
				s, HT_TRAIN_MAX_HIDDEN);
			return -EINVAL;
		}
		m.hidden[m.nhidden++] = (uint32_t)v;
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	*mlp = m;
	return 0;
bad:
	ht_seterr(
		err, errlen,
		"invalid layer list '%s' (expected widths 1..65536 separated by commas, e.g. 128,64)",
		s);
	return -EINVAL;
}
