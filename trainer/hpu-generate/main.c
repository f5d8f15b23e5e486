// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-generate: continue a prompt with a GPT trained by
 * hpu-train (docs/hpu-generate.md). Loads a checkpoint, runs the decode
 * step with a fixed-length key/value cache on each path asked for (hpu
 * eager, lazy, graph; cpu), prints the text of the first path and one
 * line of timings per path, and checks that every path produced the same
 * tokens. Exit status: 0 done, 1 a path failed or differed, 2 usage (the
 * command line, the prompt, the checkpoint).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_blas_core.h"
#include "hpudrv.h"
#include "ht_generate.h"
#include "ht_text.h"

#define PROG	   "hpu-generate"
#define EXIT_OK	   0
#define EXIT_FAIL  1
#define EXIT_USAGE 2
#define MAX_PATHS  4

/**
 * struct path - one way of running the decode step
 * @accel: HT_ACCEL_*
 * @mode: HT_EXEC_*
 * @name: "hpu/graph", "cpu"
 */
struct path {
	int accel;
	int mode;
	const char *name;
};

/**
 * struct opts - the command line
 * @ckpt: checkpoint path
 * @prompt: the prompt's bytes (escapes decoded)
 * @plen: their count
 * @max_new: tokens to generate (0: up to the context)
 * @g: generation options (accel and mode set per path)
 * @paths: the paths to run
 * @npaths: entries
 * @device: position of the HPU among the visible ones
 * @quiet: timings only, no text
 */
struct opts {
	const char *ckpt;
	char prompt[4096];
	uint32_t plen;
	uint32_t max_new;
	struct ht_gen_opts g;
	struct path paths[MAX_PATHS];
	unsigned int npaths;
	uint32_t device;
	bool quiet;
};

enum {
	OPT_CKPT = 256,
	OPT_PROMPT,
	OPT_MAX_NEW,
	OPT_TEMP,
	OPT_TOPK,
	OPT_SEED,
	OPT_BATCH,
	OPT_ACCEL,
	OPT_MODES,
	OPT_PREC,
	OPT_DEVICE,
	OPT_QUIET,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "ckpt-path", required_argument, NULL, OPT_CKPT },
	{ "prompt", required_argument, NULL, OPT_PROMPT },
	{ "max-new-tokens", required_argument, NULL, OPT_MAX_NEW },
	{ "temperature", required_argument, NULL, OPT_TEMP },
	{ "top-k", required_argument, NULL, OPT_TOPK },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "batch-size", required_argument, NULL, OPT_BATCH },
	{ "accelerator", required_argument, NULL, OPT_ACCEL },
	{ "exec-mode", required_argument, NULL, OPT_MODES },
	{ "precision", required_argument, NULL, OPT_PREC },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --ckpt-path FILE --prompt TEXT [options]\n"
		"Continue a prompt with a GPT trained by hpu-train --model gpt "
		"(docs/hpu-generate.md).\n\n"
		"  --ckpt-path FILE        a checkpoint of hpu-train --model gpt\n"
		"  --prompt TEXT           the prompt (escapes \\n \\t \\\\ \\xHH)\n"
		"  --max-new-tokens N      tokens to generate, 1..context - "
		"prompt (default: all of them)\n"
		"  --temperature X         0 (greedy) .. 100 (default 0.8)\n"
		"  --top-k K               sample among the K most likely "
		"(0: all; default 0)\n"
		"  --seed N                sampling seed (default 42)\n"
		"  --batch-size B          sequences generated together "
		"(default 1)\n"
		"  --accelerator LIST      hpu, cpu or both, e.g. hpu,cpu "
		"(default hpu)\n"
		"  --exec-mode LIST        hpu modes, e.g. eager,lazy,graph "
		"(default graph)\n"
		"  --precision 32|bf16-mixed\n"
		"  --device N              the HPU (position among the "
		"visible ones; default 0)\n"
		"  --quiet                 timings only\n\n"
		"Exit status: 0 done, 1 a path failed or the paths differ, "
		"2 usage error.\n");
}

static int bad(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, PROG ": --%s '%s': %s\n", opt, arg, want);
	return EXIT_USAGE;
}

static int parse_u(const char *s, unsigned long long max,
		   unsigned long long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || *out > max ? -EINVAL : 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the prompt's bytes: backslash escapes decoded, malformed ones refused */
static int parse_prompt(const char *s, struct opts *o)
{
	uint32_t n = 0;
	int hi, lo;

	for (; *s; s++) {
		char c = *s;

		if (n == sizeof(o->prompt))
			return bad("prompt", "...", "longer than 4096 bytes");
		if (c == '\\') {
			switch (*++s) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case '\\':
				c = '\\';
				break;
			case 'x':
				hi = s[1] ? hexval(s[1]) : -1;
				lo = hi >= 0 && s[2] ? hexval(s[2]) : -1;
				if (lo < 0 || (hi == 0 && lo == 0))
					return bad("prompt", s - 1,
						   "a malformed escape (\\xHH, "
						   "HH from 01 to ff)");
				c = (char)(hi * 16 + lo);
				s += 2;
				break;
			default:
				return bad("prompt", s - 1,
					   "a malformed escape (\\n, \\t, "
					   "\\\\ or \\xHH)");
			}
		}
		o->prompt[n++] = c;
	}
	if (!n)
		return bad("prompt", "", "the prompt is empty");
	o->plen = n;
	return 0;
}

static int parse_paths(const char *accel, const char *modes, struct opts *o)
{
	static const char *const mname[] = { "eager", "lazy", "graph" };
	char a[64], m[64], *tok, *sa, *sm;
	int mode;

	if (strlen(accel) >= sizeof(a) || strlen(modes) >= sizeof(m))
		return bad("accelerator", accel, "too long");
	strcpy(a, accel);
	for (tok = strtok_r(a, ",", &sa); tok; tok = strtok_r(NULL, ",", &sa)) {
		if (!strcmp(tok, "cpu")) {
			if (o->npaths == MAX_PATHS)
				return bad("accelerator", accel,
					   "at most 4 paths");
			o->paths[o->npaths++] = (struct path){ HT_ACCEL_CPU,
							       HT_EXEC_LAZY,
							       "cpu" };
			continue;
		}
		if (strcmp(tok, "hpu"))
			return bad("accelerator", accel,
				   "expected a list of hpu and cpu");
		strcpy(m, modes);
		for (tok = strtok_r(m, ",", &sm); tok;
		     tok = strtok_r(NULL, ",", &sm)) {
			for (mode = 0; mode < 3; mode++)
				if (!strcmp(tok, mname[mode]))
					break;
			if (mode == 3)
				return bad("exec-mode", modes,
					   "expected a list of eager, lazy "
					   "and graph");
			if (o->npaths == MAX_PATHS)
				return bad("exec-mode", modes,
					   "at most 4 paths");
			o->paths[o->npaths++] =
				(struct path){ HT_ACCEL_HPU, mode,
					       mode == 0 ? "hpu/eager" :
					       mode == 1 ? "hpu/lazy" :
							   "hpu/graph" };
		}
	}
	if (!o->npaths)
		return bad("accelerator", accel, "no path to run");
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	const char *accel = "hpu", *modes = "graph";
	bool have_prompt = false;
	unsigned long long u;
	char *end;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->g.batch = 1;
	o->g.temperature = 0.8f;
	o->g.seed = 42;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CKPT:
			o->ckpt = optarg;
			break;
		case OPT_PROMPT:
			ret = parse_prompt(optarg, o);
			if (ret)
				return ret;
			have_prompt = true;
			break;
		case OPT_MAX_NEW:
			if (parse_u(optarg, 1 << 20, &u) || !u)
				return bad("max-new-tokens", optarg,
					   "expected an integer >= 1");
			o->max_new = (uint32_t)u;
			break;
		case OPT_TEMP:
			errno = 0;
			o->g.temperature = strtof(optarg, &end);
			if (errno || *end || !*optarg ||
			    !(o->g.temperature >= 0.0f &&
			      o->g.temperature <= 100.0f))
				return bad("temperature", optarg,
					   "expected a number in [0, 100]");
			break;
		case OPT_TOPK:
			if (parse_u(optarg, 1 << 20, &u))
				return bad("top-k", optarg,
					   "expected an integer >= 0");
			o->g.top_k = (uint32_t)u;
			break;
		case OPT_SEED:
			if (parse_u(optarg, UINT64_MAX, &u))
				return bad("seed", optarg,
					   "expected an integer >= 0");
			o->g.seed = u;
			break;
		case OPT_BATCH:
			if (parse_u(optarg, 1024, &u) || !u)
				return bad("batch-size", optarg,
					   "expected an integer 1..1024");
			o->g.batch = (uint32_t)u;
			break;
		case OPT_ACCEL:
			accel = optarg;
			break;
		case OPT_MODES:
			modes = optarg;
			break;
		case OPT_PREC:
			if (!strcmp(optarg, "32"))
				o->g.precision = HT_PREC_32;
			else if (!strcmp(optarg, "bf16-mixed"))
				o->g.precision = HT_PREC_BF16_MIXED;
			else
				return bad("precision", optarg,
					   "expected 32 or bf16-mixed");
			break;
		case OPT_DEVICE:
			if (parse_u(optarg, 1023, &u))
				return bad("device", optarg,
					   "expected an integer 0..1023");
			o->device = (uint32_t)u;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_HELP:
			usage(stdout);
			return -1;
		case ':':
			fprintf(stderr, PROG ": %s needs a value\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr,
				PROG ": unknown option '%s' (see " PROG
				     " --help)\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (!o->ckpt || !have_prompt) {
		fprintf(stderr, PROG ": --ckpt-path and --prompt are needed "
				     "(see " PROG " --help)\n");
		return EXIT_USAGE;
	}
	return parse_paths(accel, modes, o);
}

/* The device at position @pos among the visible HPUs */
static int open_hpu(uint32_t pos, struct hpu_device **dev)
{
	struct hpu_device_info *list = NULL;
	int n = 0, ret, index;

	ret = hpu_device_list(&list, &n);
	if (ret || (int)pos >= n) {
		fprintf(stderr, PROG ": no HPU %u (%d visible)%s%s\n", pos,
			ret ? 0 : n, ret ? ": " : "",
			ret ? hpu_last_error() ?: hpu_strerror(ret) : "");
		hpu_device_list_free(list);
		return EXIT_USAGE;
	}
	index = list[pos].index;
	hpu_device_list_free(list);
	ret = hpu_open((uint32_t)index, dev);
	if (ret) {
		fprintf(stderr, PROG ": cannot open hpu%d: %s\n", index,
			hpu_last_error() ?: hpu_strerror(ret));
		return EXIT_FAIL;
	}
	return 0;
}

static int run_path(const struct opts *o, const struct path *p,
		    const struct ht_gpt_weights *w, const int32_t *prompt,
		    uint32_t max_new, struct hpu_device *dev, int32_t *out,
		    struct ht_gen_stats *st)
{
	struct ht_gen_opts go = o->g;
	struct ht_generator *g;
	char err[512] = "";
	int ret;

	go.accel = p->accel;
	go.mode = p->mode;
	ret = ht_generator_create(w, &go, p->accel == HT_ACCEL_HPU ? dev : NULL,
				  &g, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", p->name, err);
		return EXIT_FAIL;
	}
	ret = ht_generate(g, prompt, o->plen, max_new, out, st);
	if (ret)
		fprintf(stderr, PROG ": %s: %s\n", p->name,
			ht_generator_error(g));
	ht_generator_destroy(g);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static void print_text(const struct opts *o, const int32_t *ids,
		       uint32_t max_new)
{
	uint8_t *bytes = malloc(max_new);
	uint32_t b;

	if (!bytes)
		return;
	for (b = 0; b < o->g.batch; b++) {
		if (ht_tok_decode(ids + (size_t)b * max_new, max_new, bytes))
			continue;
		if (o->g.batch > 1)
			printf("--- sequence %u ---\n", b + 1);
		fwrite(o->prompt, 1, o->plen, stdout);
		fwrite(bytes, 1, max_new, stdout);
		printf("\n");
	}
	free(bytes);
}

int main(int argc, char **argv)
{
	static int32_t prompt[4096];
	int32_t *out[MAX_PATHS] = { NULL };
	struct ht_gen_stats st[MAX_PATHS];
	struct hpu_device *dev = NULL;
	struct hpu_blas_core blas;
	char blas_line[256];
	struct ht_gpt_weights w;
	char err[512] = "";
	bool need_hpu = false, same = true;
	uint32_t max_new, T;
	unsigned int i;
	struct opts o;
	int ret;

	/* may run hpu-generate again with OPENBLAS_CORETYPE set */
	hpu_blas_core_start(argv, PROG, &blas);
	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = ht_gpt_load_checkpoint(o.ckpt, &w, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_USAGE;
	}
	T = w.cfg.context;
	if (o.plen >= T) {
		fprintf(stderr,
			PROG ": --prompt: %u bytes, the model's context of %u "
			     "tokens holds at most %u\n",
			o.plen, T, T - 1);
		ret = EXIT_USAGE;
		goto out;
	}
	max_new = o.max_new ? o.max_new : T - o.plen;
	if (max_new > T - o.plen) {
		fprintf(stderr,
			PROG ": --max-new-tokens %u: 1..%u fit the context of "
			     "%u after a prompt of %u\n",
			max_new, T - o.plen, T, o.plen);
		ret = EXIT_USAGE;
		goto out;
	}
	ht_tok_encode(o.prompt, o.plen, prompt);
	for (i = 0; i < o.npaths; i++)
		need_hpu |= o.paths[i].accel == HT_ACCEL_HPU;
	if (need_hpu) {
		ret = open_hpu(o.device, &dev);
		if (ret)
			goto out;
	}
	printf(PROG ": gpt (%u layers, %u heads, width %u, context %u) of "
		    "step %llu | batch %u, temperature %g, top-k %u, seed "
		    "%llu\n",
	       w.cfg.layers, w.cfg.heads, w.cfg.dim, T,
	       (unsigned long long)w.step, o.g.batch, (double)o.g.temperature,
	       o.g.top_k, (unsigned long long)o.g.seed);
	for (i = 0; i < o.npaths; i++) {
		out[i] = calloc((size_t)o.g.batch * max_new, sizeof(int32_t));
		if (!out[i]) {
			ret = EXIT_FAIL;
			goto out;
		}
		ret = run_path(&o, &o.paths[i], &w, prompt, max_new, dev,
			       out[i], &st[i]);
		if (ret)
			goto out;
		if (i && memcmp(out[i], out[0],
				(size_t)o.g.batch * max_new * sizeof(int32_t)))
			same = false;
	}
	if (!o.quiet)
		print_text(&o, out[0], max_new);
	for (i = 0; i < o.npaths; i++)
		printf("%-10s time to first token %.2f ms (prompt %u tokens), "
		       "per token p50 %.3f ms p99 %.3f ms, %.1f tokens/s\n",
		       o.paths[i].name, st[i].ttft_s * 1e3, st[i].prompt_tokens,
		       st[i].p50_s * 1e3, st[i].p99_s * 1e3,
		       st[i].tokens_per_s);
	if (!o.quiet) {
		hpu_blas_core_describe(&blas, blas_line, sizeof(blas_line));
		printf("cpu path: %s\n", blas_line);
	}
	if (o.npaths > 1)
		printf("the %u paths generated %s\n", o.npaths,
		       same ? "the same tokens" : "DIFFERENT tokens");
	ret = same ? EXIT_OK : EXIT_FAIL;
out:
	for (i = 0; i < MAX_PATHS; i++)
		free(out[i]);
	if (dev)
		hpu_close(dev);
	ht_gpt_weights_free(&w);
	return ret;
}
