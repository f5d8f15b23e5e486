// SPDX-License-Identifier: MIT
/*
 * test_train_fit.c - the Trainer on one device of the real hpu-fused (and
 * on cpu where noted): the default digits recipe reaches >= 95% on the
 * held-out split; reruns with one seed are bit-identical and another seed
 * differs; eager, lazy and graph give bit-identical fits; bf16-mixed
 * trains close to fp32; K = 2 micro-batches of b equal one batch of 2b;
 * two optimizers in one module (the mixer) train through fit; a run
 * killed with SIGKILL mid-epoch and resumed from its last checkpoint ends
 * with the same weight bytes as an uninterrupted one; corrupt, truncated
 * and mismatching checkpoints are refused with a clear message, a good
 * one is read at any address (ht_ckpt_parse, the fuzz target's entry); the CSV
 * log, plain progress lines and device statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "ht_trainer.h"
#include "trainer_internal.h"

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

/* A short digits fit: 64-32-10, @epochs epochs of batch 32 */
static void small_opts(struct ht_trainer_opts *o, int accel, int mode)
{
	ht_trainer_opts_init(o);
	o->accel = accel;
	o->exec_mode = mode;
	o->mlp.hidden[0] = 32;
	o->max_epochs = 2;
	o->progress = HT_TRAIN_PROGRESS_OFF;
}

/* Fit, then copy the losses and the weights out */
static struct ht_trainer *fit(const struct ht_trainer_opts *o,
			      struct ht_trainer_result *r, float **w,
			      uint64_t *nw)
{
	struct ht_trainer *t = NULL;
	char err[512] = "";

	if (ht_trainer_create(o, &t, err, sizeof(err)))
		fail_msg("create: %s", err);
	if (ht_trainer_fit(t, r))
		fail_msg("fit: %s", ht_trainer_error(t));
	if (w) {
		*nw = ht_trainer_numel(t);
		*w = malloc(*nw * sizeof(float));
		assert_non_null(*w);
		assert_int_equal(ht_trainer_read_params(t, *w), 0);
	}
	return t;
}

static float *copy_losses(const struct ht_trainer_result *r)
{
	float *l = malloc(r->nlosses * sizeof(float) + 1);

	assert_non_null(l);
	memcpy(l, r->losses, r->nlosses * sizeof(float));
	return l;
}

/* ------------------------------------------------ accuracy, the recipe */

static void test_digits_accuracy(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;

	(void)state;
	ht_trainer_opts_init(&o); /* the recipe of make run */
	o.accel = HT_TRAIN_ACCEL_HPU;
	o.progress = HT_TRAIN_PROGRESS_OFF;
	t = fit(&o, &r, NULL, NULL);
	assert_true(r.nlosses > 100);
	assert_true(r.losses[r.nlosses - 1] < r.losses[0]);
	assert_true(r.val_acc >= 0.9f);
	assert_int_equal(ht_trainer_test(t, &r), 0);
	printf("# digits test accuracy %.2f%% on %llu held-out samples\n",
	       100.0 * r.test_acc, (unsigned long long)r.test_samples);
	assert_true(r.test_samples > 300);
	assert_true(r.test_acc >= 0.95f);
	ht_trainer_destroy(t);
}

/* ------------------------------------------------------------ seeds */

static void test_seed_reruns(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	float *w1, *w2, *w3;
	uint64_t n1, n2, n3;

	(void)state;
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_LAZY);
	o.seed = 7;
	ht_trainer_destroy(fit(&o, &r, &w1, &n1));
	ht_trainer_destroy(fit(&o, &r, &w2, &n2));
	o.seed = 8;
	ht_trainer_destroy(fit(&o, &r, &w3, &n3));
	assert_int_equal(n1, n2);
	assert_memory_equal(w1, w2, n1 * sizeof(float));
	assert_int_equal(n1, n3);
	assert_memory_not_equal(w1, w3, n1 * sizeof(float));
	free(w1);
	free(w2);
	free(w3);
}

/* --------------------------------------------------- execution modes */

static void test_exec_modes(void **state)
{
	static const int modes[] = { HT_TRAIN_EXEC_EAGER, HT_TRAIN_EXEC_LAZY,
				     HT_TRAIN_EXEC_GRAPH };
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;
	float *w[3], *l[3];
	uint64_t n[3], nl[3];
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		small_opts(&o, HT_TRAIN_ACCEL_HPU, modes[i]);
		o.max_epochs = 1;
		t = fit(&o, &r, &w[i], &n[i]);
		l[i] = copy_losses(&r); /* r.losses dies with the trainer */
		nl[i] = r.nlosses;
		ht_trainer_destroy(t);
	}
	for (i = 1; i < 3; i++) {
		assert_int_equal(nl[i], nl[0]);
		assert_memory_equal(l[i], l[0], nl[0] * sizeof(float));
		assert_memory_equal(w[i], w[0], n[0] * sizeof(float));
	}
	for (i = 0; i < 3; i++) {
		free(w[i]);
		free(l[i]);
	}
}

/* --------------------------------------------------------- precision */

static void test_bf16_mixed(void **state)
{
	static const int accel[] = { HT_TRAIN_ACCEL_CPU, HT_TRAIN_ACCEL_HPU };
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;
	float l32[2], lbf[2], a32[2], abf[2];
	unsigned int i, p;

	(void)state;
	for (i = 0; i < 2; i++) {
		for (p = 0; p < 2; p++) {
			small_opts(&o, accel[i], HT_TRAIN_EXEC_LAZY);
			o.max_epochs = 3;
			o.precision = p ? HT_TRAIN_PREC_BF16_MIXED :
					  HT_TRAIN_PREC_32;
			t = fit(&o, &r, NULL, NULL);
			assert_int_equal(ht_trainer_test(t, &r), 0);
			(p ? lbf : l32)[i] = r.test_loss;
			(p ? abf : a32)[i] = r.test_acc;
			ht_trainer_destroy(t);
		}
		printf("# %s: test loss fp32 %.4f bf16-mixed %.4f, accuracy %.2f%% / %.2f%%\n",
		       i ? "hpu" : "cpu", l32[i], lbf[i], 100.0 * a32[i],
		       100.0 * abf[i]);
		assert_true(abf[i] >= 0.9f);
		assert_true(fabsf(abf[i] - a32[i]) <= 0.03f);
		assert_true(fabsf(lbf[i] - l32[i]) <= 0.05f);
		assert_true(lbf[i] != l32[i]); /* bf16 really was used */
	}
	/* the two backends round the same way */
	assert_true(fabsf(lbf[0] - lbf[1]) <= 1e-3f);
}

/* ------------------------------------------------------ accumulation */

static void test_grad_accumulation(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;
	float *w1, *w2, *l1;
	uint64_t n1, n2, i;

	(void)state;
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_GRAPH);
	o.batch_size = 32;
	t = fit(&o, &r, &w1, &n1);
	l1 = copy_losses(&r);
	ht_trainer_destroy(t);
	o.batch_size = 16;
	o.accumulate_grad_batches = 2;
	t = fit(&o, &r, &w2, &n2);
	assert_true(r.nlosses > 50);
	for (i = 0; i < r.nlosses; i++)
		if (fabsf(r.losses[i] - l1[i]) > 1e-4f + 1e-4f * l1[i])
			fail_msg("step %llu: K=2 loss %.7g, batch 2b %.7g",
				 (unsigned long long)i, r.losses[i], l1[i]);
	for (i = 0; i < n1; i++)
		if (fabsf(w1[i] - w2[i]) > 1e-4f + 1e-3f * fabsf(w1[i]))
			fail_msg("weight %llu: %.7g vs %.7g",
				 (unsigned long long)i, w2[i], w1[i]);
	ht_trainer_destroy(t);
	free(w1);
	free(w2);
	free(l1);
}

/* ------------------------------------------ two optimizers (mixer) */

static void test_two_optimizers(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;
	char err[512] = "";
	float first, last, *w0, *w1;
	uint64_t n, i, emb, changed_emb = 0, changed_cls = 0;

	(void)state;
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_GRAPH);
	o.model = HT_TRAIN_MODEL_MIXER;
	o.mixer.dim = 16;
	o.mixer.hidden = 32;
	o.mixer.blocks = 1;
	o.mixer.lr_adamw = 3e-2f;
	o.mixer.lr_sgd = 0.2f;
	o.max_epochs = 0;
	o.max_steps = 40;
	if (ht_trainer_create(&o, &t, err, sizeof(err)))
		fail_msg("create: %s", err);
	n = ht_trainer_numel(t);
	w0 = malloc(n * sizeof(float));
	w1 = malloc(n * sizeof(float));
	assert_int_equal(ht_trainer_read_params(t, w0), 0);
	if (ht_trainer_fit(t, &r))
		fail_msg("fit: %s", ht_trainer_error(t));
	assert_int_equal(ht_trainer_read_params(t, w1), 0);
	assert_int_equal(r.nlosses, 40);
	first = (r.losses[0] + r.losses[1] + r.losses[2]) / 3;
	last = (r.losses[37] + r.losses[38] + r.losses[39]) / 3;
	printf("# mixer: loss %.4f -> %.4f over 40 steps\n", first, last);
	assert_true(last < 0.95f * first);
	/* the token embedding (AdamW) and the classifier bias (SGD) moved */
	emb = 17 * 16;
	for (i = 0; i < emb; i++)
		changed_emb += w0[i] != w1[i];
	for (i = n - 10; i < n; i++)
		changed_cls += w0[i] != w1[i];
	assert_true(changed_emb > emb / 2);
	assert_int_equal(changed_cls, 10);
	free(w0);
	free(w1);
	ht_trainer_destroy(t);
}

/* --------------------------------------------- checkpoint, kill, resume */

static char ckpt_dir[] = "/tmp/ht-ckpt-XXXXXX";

static int kill_at(const struct ht_step_info *i, void *arg)
{
	if (i->step == *(uint64_t *)arg)
		raise(SIGKILL);
	return 0;
}

/* The child: fit with checkpoints, SIGKILLed at step @kill */
static int killed_child(void *arg)
{
	struct ht_trainer_opts *o = arg;
	struct ht_trainer *t;
	char err[512];

	if (ht_trainer_create(o, &t, err, sizeof(err))) {
		fprintf(stderr, "child: %s\n", err);
		return 2;
	}
	ht_trainer_fit(t, NULL);
	fprintf(stderr, "child: not killed\n");
	return 3;
}

/*
 * The rows of <dir>/metrics.csv cut to their first 7 columns (step, epoch,
 * batch, loss, lr, val_loss, val_acc: what a rerun repeats bit for bit;
 * the rest are times and memory), one string, header included; the log
 * and its picture metrics.svg (log_plot is on by default) are removed
 */
static char *csv_rows(const char *dir)
{
	char path[300], *out;

	snprintf(path, sizeof(path), "%s/metrics.csv", dir);
	out = hpu_test_csv_columns(path, 7);
	assert_non_null(out);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metrics.svg", dir);
	assert_int_equal(unlink(path), 0);
	return out;
}

static void resume_case(int model, int mode, uint64_t kill, uint64_t every,
			uint64_t log_every)
{
	char logs[2][32] = { "/tmp/ht-csv1-XXXXXX", "/tmp/ht-csv2-XXXXXX" };
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	char last[256], *rows1, *rows2;
	float *w1, *w2;
	uint64_t n1, n2;
	int status = 0;
	pid_t pid;

	small_opts(&o, HT_TRAIN_ACCEL_HPU, mode);
	o.model = model;
	if (model == HT_TRAIN_MODEL_MIXER) {
		o.mixer.dim = 16;
		o.mixer.hidden = 32;
		o.mixer.blocks = 1;
		o.max_epochs = 0;
		o.max_steps = 24;
	}
	assert_non_null(mkdtemp(logs[0]));
	assert_non_null(mkdtemp(logs[1]));
	o.log_every_n_steps = log_every;
	/* uninterrupted */
	o.log_dir = logs[0];
	ht_trainer_destroy(fit(&o, &r, &w1, &n1));

	o.log_dir = logs[1];
	o.ckpt_dir = ckpt_dir;
	o.ckpt_every_n_steps = every;
	o.on_step = kill_at;
	o.on_step_arg = &kill;
	pid = hpu_test_fork_rank(killed_child, &o);
	assert_true(pid > 0);
	assert_int_equal(hpu_test_wait_ranks(&pid, 1, 20000, &status, NULL), 0);
	assert_int_equal(status, 128 + SIGKILL);

	snprintf(last, sizeof(last), "%s/last.htck", ckpt_dir);
	o.on_step = NULL;
	o.resume_path = last;
	o.ckpt_dir = NULL;
	ht_trainer_destroy(fit(&o, &r, &w2, &n2));
	assert_int_equal(r.resumed_step, kill / every * every);
	assert_int_equal(n1, n2);
	assert_memory_equal(w1, w2, n1 * sizeof(float));
	/* the log: the killed run's rows after the checkpoint not twice */
	rows1 = csv_rows(logs[0]);
	rows2 = csv_rows(logs[1]);
	assert_string_equal(rows2, rows1);
	assert_int_equal(rmdir(logs[0]), 0);
	assert_int_equal(rmdir(logs[1]), 0);
	free(rows1);
	free(rows2);
	free(w1);
	free(w2);
}

static void test_resume_after_kill(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(ckpt_dir));
	/* mid-epoch 1 (40 steps per epoch): checkpoint 50, killed at 57 */
	resume_case(HT_TRAIN_MODEL_MLP, HT_TRAIN_EXEC_LAZY, 57, 10, 3);
	/*
	 * checkpoint 40 taken before epoch 0's end (validation, its log
	 * row), which the resumed run does again; killed at 44; step 40
	 * logged (every 4) or not (every 3)
	 */
	resume_case(HT_TRAIN_MODEL_MLP, HT_TRAIN_EXEC_LAZY, 44, 20, 4);
	resume_case(HT_TRAIN_MODEL_MLP, HT_TRAIN_EXEC_LAZY, 44, 20, 3);
	/* two optimizers (AdamW's step count), graph mode */
	resume_case(HT_TRAIN_MODEL_MIXER, HT_TRAIN_EXEC_GRAPH, 15, 4, 3);
}

/* --------------------------------------------------- bad checkpoints */

static int try_resume(const struct ht_trainer_opts *base, const char *path,
		      char *err, size_t errlen)
{
	struct ht_trainer_opts o = *base;
	struct ht_trainer *t = NULL;
	int ret;

	o.resume_path = path;
	ret = ht_trainer_create(&o, &t, err, errlen);
	ht_trainer_destroy(t);
	return ret;
}

static void rewrite(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void test_bad_checkpoints(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	struct ht_trainer *t;
	char dir[] = "/tmp/ht-bad-XXXXXX", good[300], bad[300], err[512];
	unsigned char *buf;
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(good, sizeof(good), "%s/good.htck", dir);
	snprintf(bad, sizeof(bad), "%s/bad.htck", dir);
	small_opts(&o, HT_TRAIN_ACCEL_CPU, HT_TRAIN_EXEC_LAZY);
	o.max_epochs = 1;
	t = fit(&o, &r, NULL, NULL);
	assert_int_equal(ht_trainer_save_checkpoint(t, good), 0);
	ht_trainer_destroy(t);
	assert_int_equal(try_resume(&o, good, err, sizeof(err)), 0);

	assert_int_equal(stat(good, &st), 0);
	buf = malloc(st.st_size);
	f = fopen(good, "rb");
	assert_int_equal(fread(buf, 1, st.st_size, f), st.st_size);
	fclose(f);

	/* the parser reads a checkpoint at any address (ht_ckpt_parse) */
	{
		unsigned char *odd = malloc(st.st_size + 1);

		assert_non_null(odd);
		memcpy(odd + 1, buf, st.st_size);
		assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)),
				 0);
		assert_int_equal(ht_ckpt_parse(t, good, odd + 1, st.st_size),
				 0);
		assert_int_equal(t->resumed_step, r.steps);
		ht_trainer_destroy(t);
		free(odd);
	}

	/* one flipped bit in the weights */
	buf[st.st_size - 5] ^= 0x10;
	rewrite(bad, buf, st.st_size);
	assert_int_equal(try_resume(&o, bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "corrupt"));
	buf[st.st_size - 5] ^= 0x10;

	/* truncated */
	rewrite(bad, buf, st.st_size - 100);
	assert_int_equal(try_resume(&o, bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "truncated"));

	/* not a checkpoint */
	rewrite(bad, "hello, world\n", 13);
	assert_int_equal(try_resume(&o, bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a checkpoint"));

	/* another version */
	buf[8] = 99;
	rewrite(bad, buf, st.st_size);
	assert_int_equal(try_resume(&o, bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "version"));
	buf[8] = 1;

	/* another model, another batch size */
	o.mlp.hidden[0] = 48;
	assert_int_equal(try_resume(&o, good, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "does not match"));
	o.mlp.hidden[0] = 32;
	o.batch_size = 16;
	assert_int_equal(try_resume(&o, good, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "batch size"));
	o.batch_size = 32;

	/* missing */
	assert_int_equal(try_resume(&o, "/nonexistent/x.htck", err,
				    sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.htck"));
	free(buf);
	unlink(good);
	unlink(bad);
	rmdir(dir);
}

/* ------------------------------------------- logs, progress, statistics */

static int stats_cb(const struct ht_step_info *i, void *arg)
{
	uint64_t *seen = arg;

	if (i->mem_in_use > 0 && i->mem_peak >= i->mem_in_use &&
	    i->utilization >= 0 && i->utilization <= 100)
		(*seen)++;
	return i->step == 45 ? 1 : 0; /* a positive value stops cleanly */
}

static void test_logs_and_stats(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result r;
	char dir[] = "/tmp/ht-log-XXXXXX", path[300], line[512];
	char *out = NULL;
	size_t outlen = 0;
	uint64_t seen = 0;
	unsigned int rows = 0, vals = 0;
	FILE *f, *mem;

	(void)state;
	assert_non_null(mkdtemp(dir));
	mem = open_memstream(&out, &outlen);
	assert_non_null(mem);
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_LAZY);
	o.log_dir = dir;
	o.device_stats = true;
	o.progress = HT_TRAIN_PROGRESS_AUTO; /* not a TTY: plain lines */
	o.log_every_n_steps = 20;
	o.out = mem;
	o.on_step = stats_cb;
	o.on_step_arg = &seen;
	ht_trainer_destroy(fit(&o, &r, NULL, NULL));
	fclose(mem);
	assert_int_equal(r.steps, 45);
	assert_int_equal(seen, 45);
	assert_null(strchr(out, '\r'));
	assert_non_null(strstr(out, "step 40 epoch 0"));
	assert_non_null(strstr(out, "val_acc"));
	free(out);

	snprintf(path, sizeof(path), "%s/metrics.csv", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(
		line,
		"step,epoch,batch,loss,lr,val_loss,val_acc,samples_per_s,step_time_s,mem_in_use,mem_peak,utilization\n");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long step, mem_use;
		char *c;
		int i;

		rows++;
		assert_int_equal(sscanf(line, "%llu,", &step), 1);
		for (c = line, i = 0; i < 9; i++)
			c = strchr(c, ',') + 1;
		assert_int_equal(sscanf(c, "%llu", &mem_use), 1);
		assert_true(mem_use > 0);
		if (strstr(line, ",,") == NULL)
			vals++;
	}
	fclose(f);
	/* steps 20 and 40, the epoch end with its validation */
	assert_int_equal(rows, 3);
	assert_int_equal(vals, 1);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metrics.svg", dir);
	unlink(path);
	rmdir(dir);
}

/* ------------------------------------------------------- bad options */

static void test_bad_options(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer *t = NULL;
	char err[512];

	(void)state;
	small_opts(&o, HT_TRAIN_ACCEL_CPU, HT_TRAIN_EXEC_LAZY);
	o.strategy = HT_TRAIN_DDP;
	o.cluster.world_size = 2;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "accelerator hpu"));
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_LAZY);
	o.cluster.world_size = 2;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "single_hpu"));
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_LAZY);
	o.max_epochs = 0;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	small_opts(&o, HT_TRAIN_ACCEL_HPU, HT_TRAIN_EXEC_LAZY);
	o.device_index = 7;
	assert_true(ht_trainer_create(&o, &t, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "hpu7"));
	assert_null(t);
	/* the text corpus is for a language model, not the MLP or mixer */
	small_opts(&o, HT_TRAIN_ACCEL_CPU, HT_TRAIN_EXEC_EAGER);
	o.data = HT_TRAIN_DATA_TEXT;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, HT_TRAIN_TEXT_NEEDS_LM);
	o.model = HT_TRAIN_MODEL_MIXER;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, HT_TRAIN_TEXT_NEEDS_LM);
	o.data = HT_TRAIN_DATA_TEXT + 1;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "invalid trainer options (an unknown value)");
	/* the GPT trains on the text only, with a valid configuration */
	small_opts(&o, HT_TRAIN_ACCEL_CPU, HT_TRAIN_EXEC_EAGER);
	o.model = HT_TRAIN_MODEL_GPT;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, HT_TRAIN_LM_NEEDS_TEXT);
	o.data = HT_TRAIN_DATA_TEXT;
	o.gpt.heads = 3;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "multiple of the heads"));
	o.gpt.heads = 4;
	o.gpt.dropout = 1.0f;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "dropout must be in [0, 1)"));
	o.gpt.dropout = 0.0f;
	o.gpt.stride = o.gpt.context + 1;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "stride"));
	assert_null(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_digits_accuracy,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_seed_reruns, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_exec_modes, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bf16_mixed, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_grad_accumulation,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_two_optimizers,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_resume_after_kill,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bad_checkpoints,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_logs_and_stats,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bad_options, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
