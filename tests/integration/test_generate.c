// SPDX-License-Identifier: MIT
/*
 * test_generate.c - text generation with a GPT (ht_generate.h,
 * hpu-generate) on the real hpu-fused: the key/value-cache decode step
 * gives the logits of the full causal forward pass at every position;
 * the same seed gives the same tokens on cpu and on hpu in eager, lazy
 * and graph mode (sampled with temperature and top-k, and greedy, in a
 * batch); hpu-generate prints the text and one timing line per path, and
 * refuses with exit status 2, a message and nothing on stdout a
 * checkpoint of another model, a corrupt, truncated, empty or missing
 * one or one that is no checkpoint, a malformed or too long prompt, an
 * out-of-range --max-new-tokens, bad sampling options (--temperature,
 * --top-k, --seed, --batch-size), paths, precision or device, and a
 * malformed command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_scratch.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"
#include "ht_generate.h"
#include "ht_ops.h"
#include "ht_text.h"
#include "ht_trainer.h"

#define CONTEXT 24
#define RUN_MS	30000

static char dir[64], gpt_ck[160], mlp_ck[160], bad_ck[160], short_ck[160],
	long_ck[160], text_ck[160], empty_ck[160];

/* train on cpu for a few steps, the checkpoint in @ckdir/last.htck */
static int train(int model, const char *ckdir)
{
	struct ht_trainer_result res;
	struct ht_trainer_opts o;
	struct ht_trainer *t;
	char err[512];
	int ret;

	ht_trainer_opts_init(&o);
	o.model = model;
	o.max_epochs = 0;
	o.max_steps = 20;
	o.progress = HT_TRAIN_PROGRESS_OFF;
	o.ckpt_dir = ckdir;
	if (model == HT_TRAIN_MODEL_GPT) {
		o.data = HT_TRAIN_DATA_TEXT;
		o.test_frac = 0;
		o.gpt.layers = 2;
		o.gpt.heads = 2;
		o.gpt.dim = 32;
		o.gpt.context = CONTEXT;
		o.gpt.tied = false;
		o.batch_size = 8;
	}
	if (mkdir(ckdir, 0700))
		return -errno;
	ret = ht_trainer_create(&o, &t, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "train: %s\n", err);
		return ret;
	}
	ret = ht_trainer_fit(t, &res);
	if (ret)
		fprintf(stderr, "train: %s\n", ht_trainer_error(t));
	ht_trainer_destroy(t);
	return ret;
}

enum derive {
	FLIP_BIT, /* one bit of a weight flipped */
	TRUNCATE, /* the last 100 bytes cut */
	TRAILING, /* 4 bytes appended */
	TEXT,	  /* text, no checkpoint at all */
	EMPTY,	  /* nothing */
};

/* @to: a damaged copy of the checkpoint @from */
static int derive(const char *from, const char *to, enum derive how)
{
	static const char text[] = "Fortune favours the bold.\n";
	static char buf[1 << 20];
	FILE *f = fopen(from, "rb"), *g;
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 4, f);
	fclose(f);
	if (n < 200 || n == sizeof(buf) - 4)
		return -1;
	switch (how) {
	case FLIP_BIT:
		buf[n - 100] ^= 0x10;
		break;
	case TRUNCATE:
		n -= 100;
		break;
	case TRAILING:
		memset(buf + n, 0, 4);
		n += 4;
		break;
	case TEXT:
		memcpy(buf, text, sizeof(text) - 1);
		n = sizeof(text) - 1;
		break;
	case EMPTY:
		n = 0;
		break;
	}
	g = fopen(to, "wb");
	if (!g)
		return -1;
	if (fwrite(buf, 1, n, g) != n) {
		fclose(g);
		return -1;
	}
	return fclose(g);
}

static int group_setup(void **state)
{
	char d[96];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_generate.%d", (int)getpid());
	if (mkdir(dir, 0700))
		return -1;
	snprintf(d, sizeof(d), "%s/gpt", dir);
	snprintf(gpt_ck, sizeof(gpt_ck), "%s/last.htck", d);
	if (train(HT_TRAIN_MODEL_GPT, d))
		return -1;
	snprintf(d, sizeof(d), "%s/mlp", dir);
	snprintf(mlp_ck, sizeof(mlp_ck), "%s/last.htck", d);
	if (train(HT_TRAIN_MODEL_MLP, d))
		return -1;
	snprintf(bad_ck, sizeof(bad_ck), "%s/corrupt.htck", dir);
	snprintf(short_ck, sizeof(short_ck), "%s/truncated.htck", dir);
	snprintf(long_ck, sizeof(long_ck), "%s/trailing.htck", dir);
	snprintf(text_ck, sizeof(text_ck), "%s/text.htck", dir);
	snprintf(empty_ck, sizeof(empty_ck), "%s/empty.htck", dir);
	if (derive(gpt_ck, bad_ck, FLIP_BIT) ||
	    derive(gpt_ck, short_ck, TRUNCATE) ||
	    derive(gpt_ck, long_ck, TRAILING) ||
	    derive(gpt_ck, text_ck, TEXT) || derive(gpt_ck, empty_ck, EMPTY))
		return -1;
	return hpu_test_group_start(1, "gaudi2");
}

static int group_teardown(void **state)
{
	int ret = hpu_test_group_stop(state);

	if (hpu_test_remove_tree(dir))
		ret = -1;
	return ret;
}

/*
 * The decode step over the caches, position after position, against the
 * forward pass of the whole window (cpu): the same logits within the
 * GEMM tolerance (other shapes, other summation orders)
 */
static void test_decode_matches_forward(void **state)
{
	struct ht_gpt_weights w;
	struct ht_backend_opts bo = { .accel = HT_ACCEL_CPU,
				      .mode = HT_EXEC_LAZY };
	struct ht_tensor *kc[2], *vc[2], *x, *ids, *pids, *lg;
	uint32_t cs[4] = { 1, 2, CONTEXT, 16 }, xs[2] = { 1, CONTEXT },
		 one[2] = { 1, 1 };
	static float full[CONTEXT * 256], step[256];
	static float zeros[2 * CONTEXT * 16];
	int32_t win[CONTEXT], pos;
	struct ht_backend *be;
	struct ht_module *m;
	const float *src;
	char err[256];
	unsigned int i, l;
	double worst = 0;

	(void)state;
	assert_int_equal(ht_gpt_load_checkpoint(gpt_ck, &w, err, sizeof(err)),
			 0);
	assert_int_equal(w.cfg.context, CONTEXT);
	assert_false(w.cfg.tied);
	assert_int_equal(ht_backend_create(&bo, &be, err, sizeof(err)), 0);
	assert_int_equal(ht_gpt_create(be, &w.cfg, 0, &m), 0);
	src = w.params;
	for (i = 0; i < m->nparams; i++) {
		assert_int_equal(ht_tensor_upload(m->params[i], src), 0);
		src += m->params[i]->numel;
	}
	for (l = 0; l < 2; l++) {
		assert_int_equal(ht_tensor_new(be, HT_F32, 4, cs, true, &kc[l]),
				 0);
		assert_int_equal(ht_tensor_new(be, HT_F32, 4, cs, true, &vc[l]),
				 0);
		assert_int_equal(ht_tensor_upload(kc[l], zeros), 0);
		assert_int_equal(ht_tensor_upload(vc[l], zeros), 0);
	}
	assert_int_equal(ht_backend_sync(be), 0);
	ht_tok_encode("Fortune favours the bold, they say. It is", CONTEXT,
		      win);

	assert_int_equal(ht_step_begin(be, false), 0);
	be->grad_enabled = false;
	assert_int_equal(ht_tensor_new(be, HT_I32, 2, xs, false, &x), 0);
	assert_int_equal(ht_tensor_upload(x, win), 0);
	assert_int_equal(m->ops->forward(m, x, &lg), 0);
	assert_int_equal(ht_tensor_fetch(lg, full), 0);
	be->grad_enabled = true;
	assert_int_equal(ht_step_end(be), 0);

	for (pos = 0; pos < CONTEXT; pos++) {
		assert_int_equal(ht_step_begin(be, false), 0);
		be->grad_enabled = false;
		assert_int_equal(ht_tensor_new(be, HT_I32, 2, one, false, &ids),
				 0);
		assert_int_equal(
			ht_tensor_new(be, HT_I32, 2, one, false, &pids), 0);
		assert_int_equal(ht_tensor_upload(ids, &win[pos]), 0);
		assert_int_equal(ht_tensor_upload(pids, &pos), 0);
		assert_int_equal(ht_gpt_decode_step(m, ids, pids, (uint32_t)pos,
						    kc, vc, &lg),
				 0);
		assert_int_equal(ht_tensor_fetch(lg, step), 0);
		be->grad_enabled = true;
		assert_int_equal(ht_step_end(be), 0);
		for (i = 0; i < 256; i++) {
			double d = fabs(step[i] - full[pos * 256 + i]);

			if (d > worst)
				worst = d;
			if (d > 1e-4 + 1e-4 * fabs(full[pos * 256 + i]))
				fail_msg(
					"position %d logit %u: decode %.8g, forward %.8g",
					pos, i, step[i], full[pos * 256 + i]);
		}
	}
	print_message("# decode vs forward: largest logit difference %.3g\n",
		      worst);
	for (l = 0; l < 2; l++) {
		ht_tensor_free(kc[l]);
		ht_tensor_free(vc[l]);
	}
	ht_module_destroy(m);
	ht_backend_destroy(be);
	ht_gpt_weights_free(&w);
}

static void generate(const struct ht_gpt_weights *w, int accel, int mode,
		     struct hpu_device *dev, float temp, uint32_t top_k,
		     int32_t *out)
{
	struct ht_gen_opts o = { .accel = accel,
				 .mode = mode,
				 .batch = 3,
				 .temperature = temp,
				 .top_k = top_k,
				 .seed = 7 };
	struct ht_gen_stats st;
	struct ht_generator *g;
	int32_t prompt[4];
	char err[256];

	ht_tok_encode("The ", 4, prompt);
	if (ht_generator_create(w, &o, dev, &g, err, sizeof(err)))
		fail_msg("generator: %s", err);
	if (ht_generate(g, prompt, 4, CONTEXT - 4, out, &st))
		fail_msg("generate: %s", ht_generator_error(g));
	assert_int_equal(st.new_tokens, CONTEXT - 4);
	assert_true(st.ttft_s > 0 && st.p50_s > 0 && st.p99_s >= st.p50_s);
	/* the call's limits */
	assert_int_equal(ht_generate(g, prompt, 4, CONTEXT - 3, out, NULL),
			 -EINVAL);
	assert_int_equal(ht_generate(g, prompt, 0, 1, out, NULL), -EINVAL);
	ht_generator_destroy(g);
}

/* same seed, same tokens: cpu and hpu eager/lazy/graph, sampled and greedy */
static void test_same_tokens_every_path(void **state)
{
	enum {
		N = 3 * (CONTEXT - 4)
	};
	static int32_t ref[N], got[N];
	struct ht_gpt_weights w;
	struct hpu_device *dev;
	char err[256];
	int mode, k;

	(void)state;
	assert_int_equal(ht_gpt_load_checkpoint(gpt_ck, &w, err, sizeof(err)),
			 0);
	assert_int_equal(hpu_open(0, &dev), 0);
	for (k = 0; k < 2; k++) {
		float temp = k ? 0.0f : 0.9f;
		uint32_t top_k = k ? 0 : 20;

		generate(&w, HT_ACCEL_CPU, HT_EXEC_LAZY, NULL, temp, top_k,
			 ref);
		for (mode = HT_EXEC_EAGER; mode <= HT_EXEC_GRAPH; mode++) {
			generate(&w, HT_ACCEL_HPU, mode, dev, temp, top_k, got);
			if (memcmp(got, ref, sizeof(ref)))
				fail_msg("%s, mode %d: other tokens than cpu",
					 k ? "greedy" : "sampled", mode);
		}
		/* the three sequences of a sampled batch differ */
		if (!k)
			assert_true(memcmp(ref, ref + CONTEXT - 4,
					   (CONTEXT - 4) * sizeof(int32_t)));
		else
			assert_memory_equal(ref, ref + CONTEXT - 4,
					    (CONTEXT - 4) * sizeof(int32_t));
	}
	hpu_close(dev);
	ht_gpt_weights_free(&w);
}

static void run_tool(const char *const *args, struct hpu_test_proc *p)
{
	struct hpu_test_proc_opts po = { .stderr_mode =
						 HPU_TEST_STDERR_CAPTURE };
	char *argv[24];
	int n = 0;

	argv[n++] = (char *)hpu_test_bin("hpu-generate");
	while (*args && n < 23)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	assert_int_equal(hpu_test_proc_run(p, argv, &po, RUN_MS), 0);
}

/* hpu-generate on every path: the text, one line per path, the same tokens */
static void test_tool(void **state)
{
	const char *args[] = {
		"--ckpt-path",	 gpt_ck,    "--prompt",	   "A\\tb\\x41",
		"--accelerator", "hpu,cpu", "--exec-mode", "eager,lazy,graph",
		"--seed",	 "3",	    NULL
	};
	struct hpu_test_proc p;

	(void)state;
	run_tool(args, &p);
	if (p.status)
		print_message("%s%s", p.out, p.err);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\nA\tbA"));
	assert_non_null(strstr(p.out, "hpu/eager  time to first token"));
	assert_non_null(strstr(p.out, "hpu/graph  time to first token"));
	assert_non_null(strstr(p.out, "cpu        time to first token"));
	assert_non_null(strstr(p.out, "the 4 paths generated the same tokens"));
	hpu_test_proc_free(&p);
}

/* the bytes of @path (malloc'ed) and their count */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

#define CK(path, ...)                                             \
	{                                                         \
		"--ckpt-path", path, "--prompt", "x", __VA_ARGS__ \
	}

/*
 * Every refusal: exit status 2, a message naming the problem on stderr,
 * nothing on stdout (no header, no text, no timing line), the checkpoint
 * untouched: the checkpoint (another model, corrupt, truncated, with
 * trailing bytes, not a checkpoint, empty, a directory, missing), the
 * prompt (empty, each malformed escape, longer than the context or than
 * 4096 bytes), --max-new-tokens (0, past the context, not a number),
 * --temperature, --top-k, --seed, --batch-size, --accelerator,
 * --exec-mode, --precision and --device out of range or not numbers, and
 * the command line itself.
 */
static void test_tool_refusals(void **state)
{
	static char huge[4200];
	const struct {
		const char *args[8];
		const char *msg;
	} cases[] = {
		/* the checkpoint */
		{ CK(mlp_ck), "is of the mlp model, not a GPT" },
		{ CK(bad_ck), "is corrupt (checksum" },
		{ CK(short_ck), "is truncated or has trailing bytes" },
		{ CK(long_ck), "is truncated or has trailing bytes" },
		{ CK(text_ck), "is not a checkpoint (bad magic)" },
		{ CK(empty_ck), "is not a checkpoint (bad magic)" },
		{ CK(dir), "not a regular file" },
		{ CK("/nonexistent/x.htck"), "No such file" },
		/* the prompt */
		{ { "--ckpt-path", gpt_ck, "--prompt", "" },
		  "the prompt is empty" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\qb" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\x" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\x4" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\xg1" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt", "a\\x00" },
		  "a malformed escape" },
		{ { "--ckpt-path", gpt_ck, "--prompt",
		    "a prompt longer than the context" },
		  "the model's context of 24 tokens holds at most 23" },
		{ { "--ckpt-path", gpt_ck, "--prompt", huge },
		  "longer than 4096 bytes" },
		/* --max-new-tokens */
		{ CK(gpt_ck, "--max-new-tokens", "0"), "--max-new-tokens '0'" },
		{ CK(gpt_ck, "--max-new-tokens", "24"),
		  "--max-new-tokens 24: 1..23 fit" },
		{ CK(gpt_ck, "--max-new-tokens", "99999999999"),
		  "--max-new-tokens '99999999999'" },
		{ CK(gpt_ck, "--max-new-tokens", "-1"),
		  "--max-new-tokens '-1'" },
		{ CK(gpt_ck, "--max-new-tokens", "5x"),
		  "--max-new-tokens '5x'" },
		/* sampling */
		{ CK(gpt_ck, "--temperature", "-1"), "--temperature '-1'" },
		{ CK(gpt_ck, "--temperature", "101"), "--temperature '101'" },
		{ CK(gpt_ck, "--temperature", "nan"), "--temperature 'nan'" },
		{ CK(gpt_ck, "--temperature", "inf"), "--temperature 'inf'" },
		{ CK(gpt_ck, "--temperature", "warm"), "--temperature 'warm'" },
		{ CK(gpt_ck, "--temperature", ""), "--temperature ''" },
		{ CK(gpt_ck, "--top-k", "-1"), "--top-k '-1'" },
		{ CK(gpt_ck, "--top-k", "k"), "--top-k 'k'" },
		{ CK(gpt_ck, "--top-k", "2000000"), "--top-k '2000000'" },
		{ CK(gpt_ck, "--seed", "-3"), "--seed '-3'" },
		{ CK(gpt_ck, "--seed", "0x10"), "--seed '0x10'" },
		{ CK(gpt_ck, "--seed", "18446744073709551616"),
		  "--seed '18446744073709551616'" },
		{ CK(gpt_ck, "--batch-size", "0"), "--batch-size '0'" },
		{ CK(gpt_ck, "--batch-size", "1025"), "--batch-size '1025'" },
		/* the paths */
		{ CK(gpt_ck, "--accelerator", "gpu"), "--accelerator 'gpu'" },
		{ CK(gpt_ck, "--accelerator", ","), "no path to run" },
		{ CK(gpt_ck, "--exec-mode", "fast"), "--exec-mode 'fast'" },
		{ CK(gpt_ck, "--accelerator", "cpu,cpu,cpu,cpu,cpu"),
		  "at most 4 paths" },
		{ CK(gpt_ck, "--precision", "16"), "--precision '16'" },
		{ CK(gpt_ck, "--device", "one"), "--device 'one'" },
		{ CK(gpt_ck, "--device", "5"), "no HPU 5 (1 visible)" },
		/* the command line */
		{ { "--prompt", "x" }, "--ckpt-path and --prompt are needed" },
		{ { "--ckpt-path", gpt_ck },
		  "--ckpt-path and --prompt are needed" },
		{ CK(gpt_ck, "--bogus"), "unknown option '--bogus'" },
		{ CK(gpt_ck, "extra"), "unexpected argument 'extra'" },
		{ CK(gpt_ck, "--seed"), "--seed needs a value" },
	};
	size_t i, len0, len1;
	char *before, *after;

	(void)state;
	memset(huge, 'a', sizeof(huge) - 1);
	before = slurp(gpt_ck, &len0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hpu_test_proc p;

		run_tool(cases[i].args, &p);
		if (p.status != 2 || !strstr(p.err, cases[i].msg) || p.out[0])
			fail_msg(
				"case %zu: status %d, stdout '%s', stderr '%s'",
				i, p.status, p.out, p.err);
		hpu_test_proc_free(&p);
	}
	print_message("# %zu refusals: exit status 2, stdout empty\n", i);
	after = slurp(gpt_ck, &len1);
	assert_int_equal(len1, len0);
	assert_memory_equal(after, before, len0);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_matches_forward),
		cmocka_unit_test(test_same_tokens_every_path),
		cmocka_unit_test(test_tool),
		cmocka_unit_test(test_tool_refusals),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("generate", tests, group_setup,
					   group_teardown);
}
