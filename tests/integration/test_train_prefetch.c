// SPDX-License-Identifier: MIT
/*
 * test_train_prefetch.c - prefetch to the device (docs/training.md,
 * "Prefetch to the device") against the real hpu-fused: fits with
 * device_prefetch on end with the same loss and weight bytes as with it
 * off in eager, lazy and graph mode (digits MLP, with gradient
 * accumulation, the mixer's token ids), on one device and on 2 DDP
 * ranks; with large inputs (4 MiB a batch) the copy of batch k+1 is
 * submitted during step k, before its program (how many still ran when
 * that program was submitted, from device timestamps, is printed), and
 * the results
 * are still those of the run without prefetch, so every step saw exactly
 * its own batch. At the backend: a step that reads a buffer right after
 * its prefetch was submitted (16 MiB, still being copied) reads exactly
 * the prefetched bytes, round after round into the same buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_trainer.h"
#include "../lib/hpu_test_util.h"
#include "ht_backend.h"
#include "ht_trainer.h"

#define NDEV	2
#define MAX_L	256
#define MAX_W	(64 * 1024)
#define RANK_MS 25000

/**
 * struct out - what a fit gave
 * @nlosses: losses
 * @nw: weights
 * @prefetches: batches prefetched to the device
 * @in_step: of those, copies submitted during the step before theirs
 * @overlapped: of those, copies running beside the step before them
 * @losses: per step
 * @w: final weights
 * @err: a failure's message
 */
struct out {
	uint64_t nlosses;
	uint64_t nw;
	uint64_t prefetches;
	uint64_t in_step;
	uint64_t overlapped;
	float losses[MAX_L];
	float w[MAX_W];
	char err[512];
};

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(NDEV, "gaudi2");
}

static void digits_opts(struct ht_trainer_opts *o, int mode)
{
	ht_trainer_opts_init(o);
	o->accel = HT_TRAIN_ACCEL_HPU;
	o->exec_mode = mode;
	o->mlp.hidden[0] = 32;
	o->max_epochs = 1;
	o->progress = HT_TRAIN_PROGRESS_OFF;
	/* 8 KiB batches are skipped by default: prefetch them to test it */
	o->device_prefetch_skip = 0;
}

/* 4 MiB of features a batch: 4096 x 256, a small layer after them */
static void large_opts(struct ht_trainer_opts *o, int mode)
{
	ht_trainer_opts_init(o);
	o->accel = HT_TRAIN_ACCEL_HPU;
	o->exec_mode = mode;
	o->data = HT_TRAIN_DATA_SYNTH;
	o->synth.n = 2560;
	o->synth.f = 4096;
	o->synth.classes = 10;
	o->val_frac = 0;
	o->test_frac = 0;
	o->batch_size = 256;
	o->mlp.hidden[0] = 8;
	o->max_epochs = 0;
	o->max_steps = 9;
	o->progress = HT_TRAIN_PROGRESS_OFF;
}

static int do_fit(const struct ht_trainer_opts *o, struct out *r)
{
	const struct hpu_test_kept k = {
		.losses = r->losses,
		.max_losses = MAX_L,
		.nlosses = &r->nlosses,
		.w = r->w,
		.max_w = MAX_W,
		.nw = &r->nw,
	};
	struct ht_trainer_result res;
	struct ht_trainer *t;
	int ret;

	ret = ht_trainer_create(o, &t, r->err, sizeof(r->err));
	if (ret)
		return ret;
	ret = ht_trainer_fit(t, &res);
	if (!ret)
		ret = hpu_test_trainer_keep(t, &res, &k);
	if (!ret) {
		r->prefetches = res.prefetches;
		r->in_step = res.prefetch_in_step;
		r->overlapped = res.prefetch_overlapped;
	}
	return hpu_test_trainer_end(t, ret, r->err, sizeof(r->err));
}

static struct out *fit(const struct ht_trainer_opts *o)
{
	struct out *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	if (do_fit(o, r))
		fail_msg("fit: %s", r->err);
	return r;
}

static void assert_same(const struct out *a, const struct out *b)
{
	assert_true(a->nlosses > 0);
	assert_int_equal(a->nlosses, b->nlosses);
	assert_int_equal(a->nw, b->nw);
	assert_memory_equal(a->losses, b->losses, a->nlosses * sizeof(float));
	assert_memory_equal(a->w, b->w, a->nw * sizeof(float));
}

/* @o with prefetch off and on: the same bits; on really prefetched */
static void off_on(struct ht_trainer_opts *o, const char *what)
{
	struct out *off, *on;

	o->device_prefetch = false;
	off = fit(o);
	o->device_prefetch = true;
	on = fit(o);
	printf("# %s: %llu steps, %llu batches prefetched\n", what,
	       (unsigned long long)on->nlosses,
	       (unsigned long long)on->prefetches);
	assert_int_equal(off->prefetches, 0);
	/* every full batch (an epoch's short last one is not) */
	assert_true(on->prefetches + 1 >= on->nlosses);
	assert_same(off, on);
	free(off);
	free(on);
}

/* ------------------------------------------------------- one device */

static void test_bits_modes(void **state)
{
	static const int modes[] = { HT_TRAIN_EXEC_EAGER, HT_TRAIN_EXEC_LAZY,
				     HT_TRAIN_EXEC_GRAPH };
	static const char *const names[] = { "eager", "lazy", "graph" };
	struct ht_trainer_opts o;
	struct out *off, *on;
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		digits_opts(&o, modes[i]);
		off_on(&o, names[i]);
	}
	/* by default a batch this small is not prefetched: nothing changes */
	digits_opts(&o, HT_TRAIN_EXEC_LAZY);
	o.device_prefetch_skip = HT_PREFETCH_SKIP_BYTES;
	o.device_prefetch = false;
	off = fit(&o);
	o.device_prefetch = true;
	on = fit(&o);
	assert_int_equal(on->prefetches, 0);
	assert_same(off, on);
	free(off);
	free(on);
}

static void test_bits_accumulate_mixer(void **state)
{
	struct ht_trainer_opts o;

	(void)state;
	/* K = 3: the captured last micro-step alternates the buffers */
	digits_opts(&o, HT_TRAIN_EXEC_GRAPH);
	o.accumulate_grad_batches = 3;
	off_on(&o, "graph, 3 micro-batches");
	/* token ids (int32) built on the host, then prefetched */
	digits_opts(&o, HT_TRAIN_EXEC_GRAPH);
	o.model = HT_TRAIN_MODEL_MIXER;
	o.max_epochs = 0;
	o.max_steps = 12;
	off_on(&o, "mixer, graph");
}

/* A fit stopped mid-epoch and continued equals one fit */
static int stop_at_5(const struct ht_step_info *info, void *arg)
{
	int *stopped = arg;

	if (info->step != 5 || *stopped)
		return 0;
	*stopped = 1;
	return 1;
}

static void test_stop_and_continue(void **state)
{
	struct ht_trainer_opts o;
	struct ht_trainer_result res;
	struct ht_trainer *t;
	struct out *one, *two;
	char err[512] = "";
	int stopped = 0;

	(void)state;
	digits_opts(&o, HT_TRAIN_EXEC_LAZY);
	o.max_epochs = 0;
	o.max_steps = 12;
	one = fit(&o);
	two = calloc(1, sizeof(*two));
	assert_non_null(two);
	/* the stop leaves batch 6 prefetched: it is sent again */
	o.on_step = stop_at_5;
	o.on_step_arg = &stopped;
	assert_int_equal(ht_trainer_create(&o, &t, err, sizeof(err)), 0);
	assert_int_equal(ht_trainer_fit(t, &res), 0);
	assert_int_equal(res.steps, 5);
	memcpy(two->losses, res.losses, 5 * sizeof(float));
	assert_int_equal(ht_trainer_fit(t, &res), 0);
	assert_int_equal(res.steps, 12);
	memcpy(two->losses + 5, res.losses, 7 * sizeof(float));
	two->nlosses = 12;
	two->nw = ht_trainer_numel(t);
	assert_int_equal(ht_trainer_read_params(t, two->w), 0);
	ht_trainer_destroy(t);
	assert_same(one, two);
	free(one);
	free(two);
}

/* ------------------------------------------------- the overlap itself */

static void test_overlap_large_inputs(void **state)
{
	static const int modes[] = { HT_TRAIN_EXEC_LAZY, HT_TRAIN_EXEC_GRAPH };
	struct ht_trainer_opts o;
	struct out *off, *on;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		large_opts(&o, modes[i]);
		o.device_prefetch = false;
		off = fit(&o);
		o.device_prefetch = true;
		on = fit(&o);
		printf("# 4096 x 256 inputs, %s: %llu batch copies, %llu "
		       "submitted during the step before theirs, %llu still "
		       "running when its program was submitted\n",
		       i ? "graph" : "lazy", (unsigned long long)on->prefetches,
		       (unsigned long long)on->in_step,
		       (unsigned long long)on->overlapped);
		assert_int_equal(on->prefetches, 9);
		/*
		 * every copy but the first (no step before it) is submitted
		 * inside the step before its own, ahead of that step's
		 * program; whether it still runs when that program is
		 * submitted is a timing (the host's two cores are shared
		 * with the simulator's workers): reported, not asserted
		 */
		assert_int_equal(on->in_step, 8);
		assert_true(on->overlapped <= 8);
		/* and each step still used exactly its own batch */
		assert_same(off, on);
		free(off);
		free(on);
	}
}

/* ------------------------------------------- the wait, at the backend */

#define RAW_N  (4U << 20) /* 16 MiB of fp32: copied by the workers */
/*
 * the step reads the last 256 KiB (written last): with its fetch 512 KiB
 * of DMA, small enough that the simulator runs the step at once on the
 * submitting thread, while the copy is still running
 */
#define TAIL_N (64U << 10)

static void test_wait_orders_the_read(void **state)
{
	struct ht_backend_opts bo = { .accel = HT_ACCEL_HPU,
				      .mode = HT_EXEC_LAZY };
	uint32_t n = RAW_N, tn = TAIL_N, round, i, bad;
	struct ht_backend *be = NULL;
	struct ht_tensor *buf, *out;
	struct ht_xfer x;
	char err[256] = "";
	float *src, *dst;

	(void)state;
	assert_int_equal(ht_backend_create(&bo, &be, err, sizeof(err)), 0);
	assert_int_equal(ht_tensor_new(be, HT_F32, 1, &n, true, &buf), 0);
	src = malloc((size_t)n * sizeof(float));
	dst = malloc((size_t)n * sizeof(float));
	assert_non_null(src);
	assert_non_null(dst);
	for (round = 1; round <= 4; round++) {
		for (i = 0; i < n; i++)
			src[i] = (float)(round * 1000003U + i);
		memset(dst, 0, (size_t)tn * sizeof(float));
		x.dst = buf->addr;
		x.src = src;
		x.n = (size_t)n * sizeof(float);
		assert_int_equal(ht_step_begin(be, false), 0);
		assert_int_equal(ht_backend_prefetch(be, &x, 1), 0);
		/* no host wait: only the program's FENCE orders the read */
		assert_int_equal(ht_backend_prefetch_wait(be), 0);
		assert_int_equal(ht_tensor_new(be, HT_F32, 1, &tn, false, &out),
				 0);
		assert_int_equal(
			be->ops->copy(be, out->addr,
				      buf->addr + (uint64_t)(n - tn) *
							  sizeof(float),
				      (size_t)tn * sizeof(float)),
			0);
		assert_int_equal(ht_tensor_fetch(out, dst), 0);
		assert_int_equal(ht_step_end(be), 0);
		for (i = 0, bad = 0; i < tn; i++)
			bad += dst[i] != src[n - tn + i];
		if (bad)
			fail_msg("round %u: %u of %u elements were not the "
				 "prefetched ones",
				 round, bad, tn);
	}
	assert_int_equal(be->stats.prefetches, 4);
	/* a wait without a prefetch would never end: refused */
	assert_int_equal(ht_step_begin(be, false), 0);
	assert_int_equal(ht_backend_prefetch_wait(be), -EINVAL);
	assert_int_equal(ht_step_end(be), 0);
	ht_tensor_free(buf);
	ht_backend_destroy(be);
	free(src);
	free(dst);
}

/* ------------------------------------------------------- DDP, 2 ranks */

/**
 * struct rank - one DDP rank's run
 * @rank: this rank
 * @port: MASTER_PORT
 * @mode: exec mode
 * @pf: device_prefetch
 * @out: its results
 */
struct rank {
	int rank;
	int port;
	int mode;
	bool pf;
	struct out out;
};

static int rank_main(void *arg)
{
	struct rank *r = arg;
	struct ht_trainer_opts o;
	int ret;

	digits_opts(&o, r->mode);
	o.device_index = (uint32_t)r->rank;
	o.strategy = HT_TRAIN_DDP;
	o.cluster.world_size = NDEV;
	o.cluster.rank = (uint32_t)r->rank;
	o.cluster.local_rank = (uint32_t)r->rank;
	o.cluster.local_world_size = NDEV;
	o.cluster.master_port = (uint16_t)r->port;
	o.ccl_timeout_ms = 10000;
	o.batch_size = 16;
	o.device_prefetch = r->pf;
	ret = do_fit(&o, &r->out);
	return hpu_test_rank_exit(r->rank, ret, r->out.err);
}

static struct rank *run_ddp(int mode, bool pf)
{
	struct rank *r;
	int status[NDEV], i, port;

	r = mmap(NULL, NDEV * sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r != MAP_FAILED);
	/* a port nothing listens on now (others' tests run beside) */
	port = hpu_test_free_port();
	assert_true(port > 0);
	for (i = 0; i < NDEV; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].rank = i;
		r[i].port = port;
		r[i].mode = mode;
		r[i].pf = pf;
	}
	assert_int_equal(hpu_test_run_ranks(rank_main, r, sizeof(*r), NDEV,
					    RANK_MS, status),
			 0);
	for (i = 0; i < NDEV; i++)
		if (status[i])
			fail_msg("rank %d exited with %d: %s", i, status[i],
				 r[i].out.err);
	return r;
}

static void test_bits_ddp(void **state)
{
	static const int modes[] = { HT_TRAIN_EXEC_EAGER, HT_TRAIN_EXEC_LAZY,
				     HT_TRAIN_EXEC_GRAPH };
	struct rank *off, *on;
	unsigned int i;
	int k;

	(void)state;
	for (i = 0; i < 3; i++) {
		off = run_ddp(modes[i], false);
		on = run_ddp(modes[i], true);
		for (k = 0; k < NDEV; k++) {
			assert_int_equal(off[k].out.prefetches, 0);
			assert_true(on[k].out.prefetches >=
				    on[k].out.nlosses - 1);
			assert_same(&off[k].out, &on[k].out);
			assert_same(&on[0].out, &on[k].out);
		}
		munmap(off, NDEV * sizeof(*off));
		munmap(on, NDEV * sizeof(*on));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bits_modes, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bits_accumulate_mixer,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_stop_and_continue,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_overlap_large_inputs,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_orders_the_read,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_bits_ddp, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
