// SPDX-License-Identifier: MIT
/*
 * mode_step.c - hpu-bench step: one training step of a digits MLP
 * (64-128-128-10, or 64-128-10 with -l 2) at batch 64 with SGD, the shape
 * of the training library's lazy and graph steps: 28 (19) ops over a DMA,
 * an MME and a TPC queue, ordered by a sync-object handoff at every change
 * of queue (MSG_LONG ADD on the next queue's SOB, FENCE on it). Timed as
 * one multi-queue CS per step (the CBs built once, as a graph replay; and
 * rebuilt every step, as lazy), as one CS per op (eager: submit and wait
 * each), as the graph CS with NOPs for ops (the stack's own cost), and
 * the same computation on the host in this process (cblas_sgemm and plain
 * loops) as the reference.
 *
 * This file sets the run up, builds the CBs (the multi-queue program
 * with its SOB handoffs, and one CB per op), submits, checks the first
 * step against the host and times every path in alternating slices; the
 * ops come from step_ops.c, the host reference from step_host.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "step.h"

enum {
	P_EAGER,
	P_LAZY,
	P_GRAPH,
	P_HOST,
	P_SYNC,
	NPATH
};

static const char *const path_name[NPATH] = {
	"eager (one CS per op)",	"lazy (one CS, CBs rebuilt)",
	"graph (one CS, CBs replayed)", "host (cblas + loops, ref)",
	"graph, ops as NOPs",
};

#define SOB_BASE     200 /* user SOBs of the handoffs: 200..202 */
#define CB_BYTES     (64U << 10)
#define OP_CB_BYTES  4096U
#define WAIT_US	     10000000ULL
#define DEFAULT_ITER 2000
#define MAX_ITER     1000000L
#define WARMUP	     100
#define SLICES	     4

/* layer widths: 3 layers, or 2 when the middle one is left out */
static const uint32_t dims3[] = { 64, 128, 128, 10 };
static const uint32_t dims2[] = { 64, 128, 10 };
static const uint32_t *dims = dims3;
static unsigned int nlayer = 3;
/* -o: the only path to time (for profiling), or -1 for all */
static int only = -1;
static const char *const path_opt[] = { "eager", "lazy", "graph", "host",
					"nop" };

static int op_append(struct hpu_cb_builder *b, const struct op *o)
{
	int ret = 0, i;

	switch (o->kind) {
	case OP_DMA:
		for (i = 0; i < 2 && !ret; i++)
			if (o->size[i])
				ret = hpu_cb_lin_dma(b, o->dst[i], o->src[i],
						     o->size[i]);
		return ret;
	case OP_GEMM:
		return hpu_cb_mme_gemm(b, &o->g);
	case OP_TPC:
		return hpu_cb_tpc_kernel(b, o->kid, o->t, o->nt,
					 o->np ? o->p : NULL, o->np);
	}
	return -EINVAL;
}

/*
 * The program: each op on its queue's CB; at a change of queue the queue
 * that ran the previous op adds 1 to the next queue's SOB and the next
 * queue waits for it and takes it back (the training library's rule).
 */
static int build_program(struct step_run *r, struct hpu_cb_builder **cb,
			 bool nop)
{
	unsigned int i, q;
	int ret = 0, token = -1;

	for (q = 0; q < NQ; q++)
		hpu_cb_builder_reset(cb[q]);
	for (i = 0; i < r->nops && !ret; i++) {
		q = (unsigned int)r->ops[i].q;
		if (token >= 0 && token != (int)q) {
			ret = hpu_cb_msg_long(cb[token], SOB_BASE + q,
					      HPU_MSG_OP_ADD, 1);
			if (!ret)
				ret = hpu_cb_fence(cb[q], SOB_BASE + q, 1, 1);
		}
		token = (int)q;
		if (!ret)
			ret = nop ? hpu_cb_nop(cb[q]) :
				    op_append(cb[q], &r->ops[i]);
	}
	return ret;
}

static int wait_seq(struct step_run *r, uint64_t seq)
{
	uint32_t status;
	int ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);

	if (ret)
		return ret;
	return status == HPU_WAIT_CS_STATUS_COMPLETED ? 0 : -EIO;
}

static int submit_program(struct step_run *r, struct hpu_cb_builder **cb)
{
	struct hpu_cs_chunk chunks[NQ];
	unsigned int q, n = 0;
	uint64_t seq;
	int done = 0, ret;

	memset(chunks, 0, sizeof(chunks));
	for (q = 0; q < NQ; q++) {
		size_t used = hpu_cb_builder_used(cb[q]);

		if (!used)
			continue;
		chunks[n].cb_handle = hpu_cb_builder_handle(cb[q]);
		chunks[n].queue_index = r->queue[q];
		chunks[n].cb_size = (uint32_t)used;
		n++;
	}
	ret = hpu_cs_submit(r->dev, chunks, n, 0, 0, &seq, &done);
	if (ret || done)
		return ret;
	return wait_seq(r, seq);
}

static int submit_op(struct step_run *r, const struct op *o)
{
	uint64_t seq;
	int done = 0, ret;

	ret = hpu_cb_builder_submit(o->cb, r->queue[o->q], 0, 0, &seq, &done);
	if (ret || done)
		return ret;
	return wait_seq(r, seq);
}

/* ------------------------------------------------------ setup, timing */

static void init_arena(struct step_run *r)
{
	uint32_t s = 12345, i, j;
	float *f;

	memset(r->host, 0, r->l.size);
	for (i = 0; i < nlayer; i++) {
		float scale = 1.0f / sqrtf((float)dims[i]);

		f = bench_step_hf(r, r->va + r->l.w[i]);
		for (j = 0; j < dims[i] * dims[i + 1]; j++) {
			s = s * 1103515245U + 12345U;
			f[j] = ((float)((s >> 8) & 0xffff) / 32768.0f - 1.0f) *
			       scale;
		}
	}
	f = (float *)r->input;
	for (j = 0; j < BATCH * dims[0]; j++) {
		s = s * 1103515245U + 12345U;
		f[j] = (float)((s >> 12) & 0xf); /* digits: pixels 0..15 */
	}
	for (j = 0; j < BATCH; j++)
		((int32_t *)(r->input + BATCH * dims[0] * 4))[j] =
			(int32_t)(j % dims[nlayer]);
}

static int setup(struct step_run *r)
{
	struct hpu_info_hw_ip_info ip;
	size_t pin_bytes;
	unsigned int i, q;
	uint64_t seq;
	int ret;

	r->dims = dims;
	r->nlayer = nlayer;
	bench_step_lay_out(r);
	r->in_bytes = BATCH * dims[0] * 4 + BATCH * 4;
	ret = hpu_info_hw_ip(r->dev, &ip);
	if (ret)
		return ret;
	if (!ip.num_dma || !ip.num_mme || !ip.num_tpc)
		return -ENODEV;
	r->queue[Q_DMA] = 0;
	r->queue[Q_MME] = ip.num_dma;
	r->queue[Q_TPC] = ip.num_dma + ip.num_mme;
	ret = hpu_mem_alloc(r->dev, r->l.size, 0, 0, &r->h);
	if (!ret)
		ret = hpu_mem_map(r->dev, r->h, 0, 0, &r->va);
	if (ret)
		return ret;
	pin_bytes = r->l.size > r->in_bytes + 4 ? r->l.size : r->in_bytes + 4;
	ret = hpu_host_alloc(r->dev, pin_bytes, &r->pin, &r->pin_va);
	if (ret)
		return ret;
	r->host = aligned_alloc(64, r->l.size);
	r->input = malloc(r->in_bytes + 4);
	if (!r->host || !r->input)
		return -ENOMEM;
	init_arena(r);
	for (q = 0; q < NQ && !ret; q++) {
		ret = hpu_cb_builder_create(r->dev, CB_BYTES, &r->cb[q]);
		if (!ret)
			ret = hpu_cb_builder_create(r->dev, CB_BYTES,
						    &r->nop_cb[q]);
	}
	if (ret)
		return ret;

	/* the initial arena: one upload through the pinned buffer */
	memcpy(r->pin, r->host, r->l.size);
	hpu_cb_builder_reset(r->cb[Q_DMA]);
	ret = hpu_cb_lin_dma(r->cb[Q_DMA], r->va, r->pin_va, r->l.size);
	if (!ret)
		ret = hpu_cb_builder_submit(r->cb[Q_DMA], r->queue[Q_DMA], 0, 0,
					    &seq, NULL);
	if (!ret)
		ret = wait_seq(r, seq);
	if (ret)
		return ret;
	memcpy(r->pin, r->input, r->in_bytes);

	bench_step_build_ops(r);
	for (i = 0; i < r->nops && !ret; i++) {
		ret = hpu_cb_builder_create(r->dev, OP_CB_BYTES, &r->ops[i].cb);
		if (!ret)
			ret = op_append(r->ops[i].cb, &r->ops[i]);
	}
	if (!ret)
		ret = build_program(r, r->nop_cb, true);
	if (!ret)
		ret = build_program(r, r->cb, false);
	return ret;
}

static bool timed(int path)
{
	return only < 0 || path == only;
}

static int step(struct step_run *r, int path)
{
	unsigned int i;
	int ret = 0;
	float loss;

	switch (path) {
	case P_EAGER:
		for (i = 0; i < r->nops && !ret; i++)
			ret = submit_op(r, &r->ops[i]);
		return ret;
	case P_LAZY:
		ret = build_program(r, r->cb, false);
		return ret ? ret : submit_program(r, r->cb);
	case P_GRAPH:
		return submit_program(r, r->cb);
	case P_SYNC:
		return submit_program(r, r->nop_cb);
	default:
		for (i = 0; i < r->nops; i++)
			bench_step_host_op(r, &r->ops[i], &loss);
		__asm__ volatile("" : : "r"(&loss) : "memory");
		return 0;
	}
}

/* One step on the device and on the host from the same state agree */
static int check(struct step_run *r)
{
	float dloss, hloss = 0;
	unsigned int i;
	int ret;

	ret = step(r, P_GRAPH);
	if (ret)
		return ret;
	memcpy(&dloss, (uint8_t *)r->pin + r->in_bytes, sizeof(dloss));
	for (i = 0; i < r->nops; i++)
		bench_step_host_op(r, &r->ops[i], &hloss);
	if (!isfinite(dloss) || fabsf(dloss - hloss) > 1e-4f * fabsf(hloss)) {
		fprintf(stderr,
			"hpu-bench: step loss %.7g on the device, %.7g on "
			"the host\n",
			dloss, hloss);
		return -EIO;
	}
	printf("  first step: loss %.6f on the device, %.6f on the host\n",
	       dloss, hloss);
	return 0;
}

static void cleanup(struct step_run *r)
{
	unsigned int i, q;

	for (i = 0; i < r->nops; i++)
		hpu_cb_builder_destroy(r->ops[i].cb);
	for (q = 0; q < NQ; q++) {
		hpu_cb_builder_destroy(r->cb[q]);
		hpu_cb_builder_destroy(r->nop_cb[q]);
	}
	if (r->pin)
		hpu_host_free(r->dev, r->pin);
	if (r->va)
		hpu_mem_unmap(r->dev, r->va);
	if (r->h)
		hpu_mem_free(r->dev, r->h);
	free(r->host);
	free(r->input);
	hpu_close(r->dev);
}

static int usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: hpu-bench step [-n ITER] [-l LAYERS] [-o PATH] "
		"[-d INDEX]\n"
		"  -n ITER    timed steps per path (default %d)\n"
		"  -l LAYERS  3: MLP 64-128-128-10 (default), 2: 64-128-10\n"
		"  -o PATH    time only eager, lazy, graph, host or nop "
		"(profiling)\n"
		"  -d INDEX   device hpuN to use (default: first visible)\n",
		DEFAULT_ITER);
	return status;
}

/* -n, -l, -d, -h: 0 run, 1 help, 2 usage error */
static int parse(int argc, char **argv, long *iter, long *index)
{
	long layers = 3;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "n:l:o:d:h")) != -1) {
		if (c == 'h')
			return 1;
		if (c == 'o') {
			for (only = 0; only < NPATH; only++)
				if (!strcmp(optarg, path_opt[only]))
					break;
			if (only < NPATH)
				continue;
		}
		if ((c == 'n' &&
		     !bench_parse_long(optarg, SLICES, MAX_ITER, iter)) ||
		    (c == 'l' && !bench_parse_long(optarg, 2, 3, &layers)) ||
		    (c == 'd' && !bench_parse_long(optarg, 0, 1 << 20, index)))
			continue;
		if (c != '?')
			fprintf(stderr, "hpu-bench: bad -%c '%s'\n", c, optarg);
		return 2;
	}
	nlayer = (unsigned int)layers;
	dims = layers == 2 ? dims2 : dims3;
	return optind < argc ? 2 : 0;
}

int bench_step(int argc, char **argv)
{
	struct step_run r = { 0 };
	struct bench_stats st[NPATH];
	uint64_t *ns[NPATH] = { NULL }, t0;
	long iter = DEFAULT_ITER, index = -1, per;
	int c, p, ret, status = 1;
	long s, i;

	c = parse(argc, argv, &iter, &index);
	if (c)
		return c == 1 ? usage(stdout, 0) : usage(stderr, 2);
	if (bench_open_device(index, &r.dev, &index))
		return 1;
	ret = setup(&r);
	if (ret) {
		fprintf(stderr, "hpu-bench: setup failed: %s\n",
			hpu_strerror(ret));
		goto out;
	}
	printf("hpu-bench step: MLP ");
	for (i = 0; i <= (long)nlayer; i++)
		printf(i ? "-%u" : "%u", dims[i]);
	printf(", batch %u, SGD: %u ops on queues %u/%u/%u of hpu%ld\n", BATCH,
	       r.nops, r.queue[Q_DMA], r.queue[Q_MME], r.queue[Q_TPC], index);
	ret = check(&r);
	if (ret)
		goto out;
	per = iter / SLICES;
	for (p = 0; p < NPATH; p++) {
		ns[p] = calloc((size_t)iter, sizeof(*ns[p]));
		if (!ns[p])
			goto out;
		for (i = 0; i < WARMUP && !ret && timed(p); i++)
			ret = step(&r, p);
	}
	/* alternating slices: load from elsewhere hits every path alike */
	for (s = 0; s < SLICES && !ret; s++) {
		for (p = 0; p < NPATH && !ret; p++) {
			for (i = 0; i < per && !ret && timed(p); i++) {
				t0 = bench_now_ns();
				ret = step(&r, p);
				ns[p][s * per + i] = bench_now_ns() - t0;
			}
		}
	}
	if (ret) {
		fprintf(stderr, "hpu-bench: step failed: %s\n",
			hpu_strerror(ret));
		goto out;
	}
	printf("  %-30s %9s %9s %9s %8s\n", "path", "p50 us", "p99 us",
	       "mean us", "p50/host");
	for (p = 0; p < NPATH; p++)
		bench_summarize(ns[p], (size_t)(per * SLICES), &st[p]);
	for (p = 0; p < NPATH; p++) {
		if (!timed(p))
			continue;
		printf("  %-30s %9.1f %9.1f %9.1f", path_name[p], st[p].p50_us,
		       st[p].p99_us, st[p].mean_us);
		/* -o without host: no reference was measured */
		if (timed(P_HOST) && st[P_HOST].p50_us > 0)
			printf(" %8.2f\n", st[p].p50_us / st[P_HOST].p50_us);
		else
			printf(" %8s\n", "-");
	}
	if (only < 0)
		printf("  eager / graph p50: %.2f, eager / lazy p50: %.2f (issue "
		       "target >= 3)\n",
		       st[P_GRAPH].p50_us > 0 ?
			       st[P_EAGER].p50_us / st[P_GRAPH].p50_us :
			       0,
		       st[P_LAZY].p50_us > 0 ?
			       st[P_EAGER].p50_us / st[P_LAZY].p50_us :
			       0);
	status = 0;
out:
	for (p = 0; p < NPATH; p++)
		free(ns[p]);
	cleanup(&r);
	return status;
}
