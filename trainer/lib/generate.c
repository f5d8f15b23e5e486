// SPDX-License-Identifier: MIT
/*
 * generate.c - text generation with a GPT (ht_generate.h): the weights of
 * a checkpoint on a backend, key/value caches of the context's length,
 * one decode step per token (the prompt's tokens included: the decode
 * step is the only program, so graph mode captures it once and replays
 * it for every token), sampling on the host.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ht_error.h"
#include "ht_generate.h"
#include "ht_rng.h"
#include "ht_trainer.h"

/**
 * struct ht_generator - a GPT ready to decode
 * @o: options
 * @cfg: the model's configuration
 * @be: backend
 * @m: the module
 * @kc: keys cache per layer [B][H][T][D]
 * @vc: values cache per layer
 * @zeros: host zeros of one cache (to clear them)
 * @ids: host token ids of a step [B]
 * @pos: host positions of a step [B]
 * @logits: host logits of a step [B][V]
 * @order: scratch of the sampler: the logits of a sequence, ranked [V]
 * @order_tmp: scratch of the ranking [V]
 * @prob: scratch of the sampler: the unnormalized probabilities [V]
 * @lat: step latencies of the current call
 * @dyn: graph mode: the captured step's dynamic parameters (all of
 *	them the position) for ht_graph_replay()
 * @ndyn: their count
 * @direct: graph mode: the step is captured and replayed directly
 * @asked: graph mode: whether it can be was asked (after the capture)
 * @err: message of the last failure
 */
struct ht_generator {
	struct ht_gen_opts o;
	struct ht_gpt_config cfg;
	struct ht_backend *be;
	struct ht_module *m;
	struct ht_tensor *kc[HT_GPT_MAX_LAYERS];
	struct ht_tensor *vc[HT_GPT_MAX_LAYERS];
	float *zeros;
	int32_t *ids;
	int32_t *pos;
	float *logits;
	struct ht_ranked *order;
	struct ht_ranked *order_tmp;
	double *prob;
	double *lat;
	uint32_t *dyn;
	unsigned int ndyn;
	bool direct;
	bool asked;
	char err[256];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int gen_err(struct ht_generator *g, int ret, const char *what)
{
	ht_seterr(g->err, sizeof(g->err), "%s: %s", what,
		  g->be && g->be->err[0] ? g->be->err : strerror(-ret));
	return ret;
}

static int clear_caches(struct ht_generator *g)
{
	unsigned int l;
	int ret = 0;

	for (l = 0; !ret && l < g->cfg.layers; l++) {
		ret = ht_tensor_upload(g->kc[l], g->zeros);
		if (!ret)
			ret = ht_tensor_upload(g->vc[l], g->zeros);
	}
	return ret ? ret : ht_backend_sync(g->be);
}

static int setup(struct ht_generator *g, const struct ht_gpt_weights *w,
		 struct hpu_device *dev, char *err, size_t errlen)
{
	const struct ht_gpt_config *c = &g->cfg;
	uint32_t cs[4] = { g->o.batch, c->heads, c->context,
			   c->dim / c->heads };
	struct ht_backend_opts bo = { .accel = g->o.accel,
				      .mode = g->o.mode,
				      .precision = g->o.precision,
				      .dev = dev };
	const float *src = w->params;
	unsigned int i;
	uint64_t cache = (uint64_t)cs[0] * cs[1] * cs[2] * cs[3];
	int ret;

	ret = ht_backend_create(&bo, &g->be, err, errlen);
	if (ret)
		return ret;
	ret = ht_gpt_create(g->be, c, 0, &g->m);
	if (!ret && ht_module_numel(g->m) != w->numel)
		ret = -EINVAL;
	for (i = 0; !ret && i < g->m->nparams; i++) {
		ret = ht_tensor_upload(g->m->params[i], src);
		src += g->m->params[i]->numel;
	}
	for (i = 0; !ret && i < c->layers; i++) {
		ret = ht_tensor_new(g->be, HT_F32, 4, cs, true, &g->kc[i]);
		if (!ret)
			ret = ht_tensor_new(g->be, HT_F32, 4, cs, true,
					    &g->vc[i]);
	}
	g->zeros = calloc(cache, sizeof(float));
	g->ids = calloc(g->o.batch, sizeof(*g->ids));
	g->pos = calloc(g->o.batch, sizeof(*g->pos));
	g->logits = calloc((size_t)g->o.batch * c->vocab, sizeof(float));
	g->order = calloc(c->vocab, sizeof(*g->order));
	g->order_tmp = calloc(c->vocab, sizeof(*g->order_tmp));
	g->prob = calloc(c->vocab, sizeof(*g->prob));
	g->lat = calloc(c->context, sizeof(*g->lat));
	if (!ret && (!g->zeros || !g->ids || !g->pos || !g->logits ||
		     !g->order || !g->order_tmp || !g->prob || !g->lat))
		ret = -ENOMEM;
	if (!ret)
		ret = clear_caches(g);
	if (ret)
		ht_seterr(err, errlen, "cannot set up the GPT: %s",
			  g->be->err[0] ? g->be->err : strerror(-ret));
	return ret;
}

int ht_generator_create(const struct ht_gpt_weights *w,
			const struct ht_gen_opts *o, struct hpu_device *dev,
			struct ht_generator **gp, char *err, size_t errlen)
{
	struct ht_generator *g;
	int ret;

	if (!w || !o || !gp || !w->params || !o->batch || o->batch > 1024 ||
	    !(o->temperature >= 0.0f) || !isfinite(o->temperature) ||
	    (o->mode != HT_EXEC_EAGER && o->mode != HT_EXEC_LAZY &&
	     o->mode != HT_EXEC_GRAPH)) {
		ht_seterr(err, errlen, "invalid generation options");
		return -EINVAL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->o = *o;
	g->cfg = w->cfg;
	if (g->o.top_k > g->cfg.vocab)
		g->o.top_k = g->cfg.vocab;
	ret = setup(g, w, dev, err, errlen);
	if (ret) {
		ht_generator_destroy(g);
		return ret;
	}
	*gp = g;
	return 0;
}

void ht_generator_destroy(struct ht_generator *g)
{
	unsigned int i;

	if (!g)
		return;
	if (g->be)
		ht_backend_sync(g->be);
	for (i = 0; i < HT_GPT_MAX_LAYERS; i++) {
		ht_tensor_free(g->kc[i]);
		ht_tensor_free(g->vc[i]);
	}
	ht_module_destroy(g->m);
	ht_backend_destroy(g->be);
	free(g->zeros);
	free(g->ids);
	free(g->pos);
	free(g->logits);
	free(g->order);
	free(g->order_tmp);
	free(g->prob);
	free(g->lat);
	free(g->dyn);
	free(g);
}

const char *ht_generator_error(const struct ht_generator *g)
{
	return g ? g->err : "";
}

/*
 * After the step that captured the graph: later steps replay it directly
 * (its uploads read g->ids and g->pos, its fetch writes g->logits; every
 * dynamic parameter of the decode step is the position)
 */
static int go_direct(struct ht_generator *g)
{
	unsigned int n;

	g->asked = true;
	if (ht_graph_replayable(g->be, 0, &n))
		return 0; /* step by step, as a training step replays */
	g->dyn = calloc(n ? n : 1, sizeof(*g->dyn));
	if (!g->dyn)
		return -ENOMEM;
	g->ndyn = n;
	g->direct = true;
	return 0;
}

/* One decode step at @pos of the ids in g->ids: logits into g->logits */
static int step(struct ht_generator *g, uint32_t pos)
{
	struct ht_backend *be = g->be;
	uint32_t s[2] = { g->o.batch, 1 };
	struct ht_tensor *ids, *pids, *logits;
	uint32_t b;
	unsigned int i;
	int ret, r;

	for (b = 0; b < g->o.batch; b++)
		g->pos[b] = (int32_t)pos;
	if (g->direct) {
		if (pos >= g->cfg.context)
			return -EINVAL;
		for (i = 0; i < g->ndyn; i++)
			g->dyn[i] = pos;
		return ht_graph_replay(be, 0, g->dyn, g->ndyn);
	}
	ret = ht_step_begin(be, true);
	if (ret)
		return ret;
	be->grad_enabled = false;
	ret = ht_tensor_new(be, HT_I32, 2, s, false, &ids);
	if (!ret)
		ret = ht_tensor_new(be, HT_I32, 2, s, false, &pids);
	if (!ret)
		ret = ht_tensor_upload(ids, g->ids);
	if (!ret)
		ret = ht_tensor_upload(pids, g->pos);
	if (!ret)
		ret = ht_gpt_decode_step(g->m, ids, pids, pos, g->kc, g->vc,
					 &logits);
	if (!ret)
		ret = ht_tensor_fetch(logits, g->logits);
	be->grad_enabled = true;
	r = ht_step_end(be);
	if (!ret && !r && g->o.mode == HT_EXEC_GRAPH &&
	    g->o.accel == HT_ACCEL_HPU && !g->asked)
		r = go_direct(g);
	return ret ? ret : r;
}

/* The next token of sequence @b from its logits */
static int32_t sample(struct ht_generator *g, const float *lg,
		      struct ht_rng *rng)
{
	uint32_t V = g->cfg.vocab, k = g->o.top_k ? g->o.top_k : V, i;
	double sum = 0.0, u, acc = 0.0, mx, p;

	ht_rank_logits(lg, V, g->order, g->order_tmp);
	if (g->o.temperature == 0.0f)
		return (int32_t)g->order[0].id;
	mx = g->order[0].lg;
	for (i = 0; i < k; i++) {
		g->prob[i] =
			exp(((double)g->order[i].lg - mx) / g->o.temperature);
		sum += g->prob[i];
	}
	u = (double)ht_rng_float(rng) * sum;
	for (i = 0; i < k; i++) {
		p = g->prob[i];
		acc += p;
		if (u < acc)
			return (int32_t)g->order[i].id;
	}
	return (int32_t)g->order[k - 1].id;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : (x > y);
}

int ht_generate(struct ht_generator *g, const int32_t *prompt, uint32_t plen,
		uint32_t max_new, int32_t *out, struct ht_gen_stats *st)
{
	uint32_t T = g->cfg.context, B = g->o.batch, pos, b, i, n = 0, nlat = 0;
	struct ht_rng *rng;
	double t0, t1, ttft = 0.0;
	int ret = 0;

	if (!plen || plen >= T) {
		ht_seterr(g->err, sizeof(g->err),
			  "the prompt has %u tokens: 1..%u fit the context %u",
			  plen, T - 1, T);
		return -EINVAL;
	}
	if (!max_new || max_new > T - plen) {
		ht_seterr(
			g->err, sizeof(g->err),
			"%u new tokens: 1..%u fit the context %u after a prompt of %u",
			max_new, T - plen, T, plen);
		return -EINVAL;
	}
	for (i = 0; i < plen; i++) {
		if (prompt[i] < 0 || (uint32_t)prompt[i] >= g->cfg.vocab) {
			ht_seterr(
				g->err, sizeof(g->err),
				"prompt token %u is %d, outside the vocabulary of %u",
				i, prompt[i], g->cfg.vocab);
			return -EINVAL;
		}
	}
	rng = calloc(B, sizeof(*rng));
	if (!rng)
		return -ENOMEM;
	for (b = 0; b < B; b++)
		ht_rng_seed(&rng[b], g->o.seed, b);
	t0 = now_s();
	/* the prompt, then each new token but the last, one step each */
	for (pos = 0; pos < plen + max_new - 1; pos++) {
		double s0 = now_s();

		for (b = 0; b < B; b++)
			g->ids[b] =
				pos < plen ?
					prompt[pos] :
					out[(size_t)b * max_new + (pos - plen)];
		ret = step(g, pos);
		if (ret) {
			gen_err(g, ret, "decode step");
			break;
		}
		if (pos + 1 < plen)
			continue;
		for (b = 0; b < B; b++)
			out[(size_t)b * max_new + n] =
				sample(g, g->logits + (size_t)b * g->cfg.vocab,
				       &rng[b]);
		t1 = now_s();
		if (!n)
			ttft = t1 - t0;
		else
			g->lat[nlat++] = t1 - s0;
		n++;
	}
	t1 = now_s();
	free(rng);
	if (ret)
		return ret;
	if (st) {
		memset(st, 0, sizeof(*st));
		st->prompt_tokens = plen;
		st->new_tokens = n;
		st->steps = pos;
		st->ttft_s = ttft;
		st->total_s = t1 - t0;
		st->tokens_per_s =
			st->total_s > 0 ? (double)n * B / st->total_s : 0.0;
		if (nlat) {
			qsort(g->lat, nlat, sizeof(*g->lat), cmp_double);
			st->p50_s = g->lat[(nlat - 1) / 2];
			st->p99_s = g->lat[(uint32_t)ceil(0.99 * nlat) - 1];
		}
	}
	return 0;
}
