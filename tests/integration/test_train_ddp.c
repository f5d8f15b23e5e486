// SPDX-License-Identifier: MIT
/*
 * test_train_ddp.c - DDP (hpu_parallel) against the real hpu-fused: ranks
 * are forked processes, one device each, meeting at a MASTER_ADDR/PORT
 * rendezvous. N ranks with per-rank batch b follow the loss curve of one
 * device with batch N*b (2 and 4 ranks, through the epoch end where some
 * ranks get fewer or no samples), every rank ends with the same weight
 * bytes, graph mode with several gradient buckets per step, gradient
 * accumulation, eager mode, validation/test metrics summed over ranks,
 * and the data parallel benchmark (a barrier, then the same step time,
 * the ranks' mean, on every rank).
 *
 * Tolerance: one device and N ranks add the same fp32 terms in another
 * order (per-rank sums, then the allreduce), so losses agree within
 * 1e-5 absolute + 1e-4 relative and weights within 1e-4 + 1e-3 relative.
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
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_trainer.h"
#include "../lib/hpu_test_util.h"
#include "ht_trainer.h"
#include "trainer_internal.h"

#define NDEV	  4
#define MAX_STEPS 256
#define MAX_W	  (64 * 1024)
#define RANK_MS	  25000

/**
 * struct run - one rank's (or the single device's) run and its results
 * @world: ranks
 * @rank: this rank
 * @batch: per-rank batch
 * @accum: accumulate_grad_batches
 * @mode: exec mode
 * @bucket: bucket bytes (0: default)
 * @steps: max_steps
 * @port: MASTER_PORT
 * @nlosses: losses written
 * @nw: weights written
 * @test_acc: ht_trainer_test() accuracy
 * @test_n: its samples
 * @losses: per step
 * @w: final weights
 * @ckpt_dir: checkpoints every @ckpt_every steps there ("": none)
 * @ckpt_every: checkpoint cadence
 * @resume: checkpoint to resume from ("": none)
 * @bench: ht_trainer_barrier() and ht_trainer_benchmark() (1 warm-up,
 *	@steps timed) instead of fit and test
 * @bench_step_s: the benchmark's step time
 * @bench_sps: its samples per second
 * @subs: the backend's submissions when the fit ended
 * @ctx_cs: the device's CSs of the rank's context then (the program's,
 *	the collectives', the streams' WAITs)
 * @err: the failure's message
 */
struct run {
	int world;
	int rank;
	uint32_t batch;
	uint32_t accum;
	int mode;
	uint64_t bucket;
	uint64_t steps;
	int port;
	uint64_t nlosses;
	uint64_t nw;
	float test_acc;
	uint64_t test_n;
	float losses[MAX_STEPS];
	float w[MAX_W];
	char ckpt_dir[64];
	uint64_t ckpt_every;
	char resume[128];
	bool bench;
	double bench_step_s;
	double bench_sps;
	uint64_t subs;
	uint64_t ctx_cs;
	char err[512];
};

static int next_port;

/*
 * A port of 127.0.0.1 free right now for the next run's rendezvous (a
 * port derived from the pid could be any client's ephemeral port)
 */
static int fresh_port(void)
{
	int port = hpu_test_free_port();

	assert_true(port > 0);
	return port;
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(NDEV, "gaudi2");
}

static int do_run(struct run *r)
{
	const struct hpu_test_kept k = {
		.losses = r->losses,
		.max_losses = MAX_STEPS,
		.nlosses = &r->nlosses,
		.w = r->w,
		.max_w = MAX_W,
		.nw = &r->nw,
	};
	struct ht_trainer_opts o;
	struct ht_trainer_result res;
	struct ht_trainer *t;
	int ret;

	ht_trainer_opts_init(&o);
	o.accel = HT_TRAIN_ACCEL_HPU;
	o.device_index = (uint32_t)r->rank;
	o.strategy = r->world > 1 ? HT_TRAIN_DDP : HT_TRAIN_SINGLE;
	o.cluster.world_size = (uint32_t)r->world;
	o.cluster.rank = (uint32_t)r->rank;
	o.cluster.local_rank = (uint32_t)r->rank;
	o.cluster.local_world_size = (uint32_t)r->world;
	o.cluster.master_port = (uint16_t)r->port;
	o.ccl_timeout_ms = 10000;
	o.mlp.hidden[0] = 32;
	o.batch_size = r->batch;
	o.accumulate_grad_batches = r->accum;
	o.exec_mode = r->mode;
	o.bucket_bytes = r->bucket;
	o.max_epochs = 0;
	o.max_steps = r->steps;
	o.progress = HT_TRAIN_PROGRESS_OFF;
	if (r->ckpt_dir[0]) {
		o.ckpt_dir = r->ckpt_dir;
		o.ckpt_every_n_steps = r->ckpt_every;
	}
	if (r->resume[0])
		o.resume_path = r->resume;
	if (r->bench) {
		o.bench_warmup = 1;
		o.bench_steps = (uint32_t)r->steps;
	}
	ret = ht_trainer_create(&o, &t, r->err, sizeof(r->err));
	if (ret)
		return ret;
	if (r->bench) {
		memset(&res, 0, sizeof(res));
		ret = ht_trainer_barrier(t);
		if (!ret)
			ret = ht_trainer_benchmark(t, &res);
		r->bench_step_s = res.step_time_s;
		r->bench_sps = res.samples_per_s;
		goto out;
	}
	ret = ht_trainer_fit(t, &res);
	r->subs = t->be->stats.submissions;
	if (!ret) {
		struct hpu_info_cs_counters c;

		ret = hpu_info_cs_counters(ht_backend_device(t->be), &c);
		r->ctx_cs = c.ctx_submitted;
	}
	if (!ret)
		ret = hpu_test_trainer_keep(t, &res, &k);
	if (!ret)
		ret = ht_trainer_test(t, &res);
	if (!ret) {
		r->test_acc = res.test_acc;
		r->test_n = res.test_samples;
	}
out:
	return hpu_test_trainer_end(t, ret, r->err, sizeof(r->err));
}

static int rank_main(void *arg)
{
	struct run *r = arg;

	return hpu_test_rank_exit(r->rank, do_run(r), r->err);
}

/*
 * @world ranks in shared memory, forked, reaped within RANK_MS; @bench:
 * the benchmark instead of fit and test
 */
static struct run *run_ranks(int world, uint32_t batch, uint32_t accum,
			     int mode, uint64_t bucket, uint64_t steps,
			     bool bench)
{
	struct run *r;
	int status[NDEV], i;

	r = mmap(NULL, world * sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r != MAP_FAILED);
	next_port = fresh_port();
	for (i = 0; i < world; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].world = world;
		r[i].rank = i;
		r[i].batch = batch;
		r[i].accum = accum;
		r[i].mode = mode;
		r[i].bucket = bucket;
		r[i].steps = steps;
		r[i].port = next_port;
		r[i].bench = bench;
	}
	assert_int_equal(hpu_test_run_ranks(rank_main, r, sizeof(*r), world,
					    RANK_MS, status),
			 0);
	for (i = 0; i < world; i++)
		if (status[i])
			fail_msg("rank %d exited with %d: %s", i, status[i],
				 r[i].err);
	return r;
}

static struct run *run_ddp(int world, uint32_t batch, uint32_t accum, int mode,
			   uint64_t bucket, uint64_t steps)
{
	return run_ranks(world, batch, accum, mode, bucket, steps, false);
}

static struct run *run_single(uint32_t batch, int mode, uint64_t steps)
{
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->world = 1;
	r->batch = batch;
	r->accum = 1;
	r->mode = mode;
	r->steps = steps;
	if (do_run(r))
		fail_msg("single device: %s", r->err);
	return r;
}

static void compare(const struct run *one, const struct run *r, int world)
{
	uint64_t i;
	int k;

	assert_int_equal(r[0].nlosses, one->nlosses);
	assert_int_equal(r[0].nw, one->nw);
	for (k = 0; k < world; k++) {
		/* every rank's loss is the global one, its weights the same */
		assert_memory_equal(r[k].losses, r[0].losses,
				    r[0].nlosses * sizeof(float));
		assert_memory_equal(r[k].w, r[0].w, r[0].nw * sizeof(float));
		assert_int_equal(r[k].test_n, one->test_n);
		assert_true(r[k].test_acc == r[0].test_acc);
	}
	for (i = 0; i < one->nlosses; i++)
		if (!(fabsf(r->losses[i] - one->losses[i]) <=
		      1e-5f + 1e-4f * fabsf(one->losses[i])))
			fail_msg(
				"step %llu: %d ranks loss %.8g, one device %.8g",
				(unsigned long long)i + 1, world, r->losses[i],
				one->losses[i]);
	for (i = 0; i < one->nw; i++)
		if (!(fabsf(r->w[i] - one->w[i]) <=
		      1e-4f + 1e-3f * fabsf(one->w[i])))
			fail_msg("weight %llu: %d ranks %.8g, one device %.8g",
				 (unsigned long long)i, world, r->w[i],
				 one->w[i]);
	assert_true(fabsf(r->test_acc - one->test_acc) <= 0.01f);
}

static void release(struct run *one, struct run *r, int world)
{
	free(one);
	munmap(r, world * sizeof(*r));
}

/* 40 steps of global batch 32 per epoch: 60 steps cross the partial one */
static void test_ddp_matches_single(void **state)
{
	struct run *one, *r;
	int world;

	(void)state;
	one = run_single(32, HT_TRAIN_EXEC_LAZY, 60);
	for (world = 2; world <= 4; world *= 2) {
		r = run_ddp(world, 32 / world, 1, HT_TRAIN_EXEC_LAZY, 0, 60);
		compare(one, r, world);
		printf("# %d ranks: final loss %.6f, one device %.6f\n", world,
		       r->losses[59], one->losses[59]);
		munmap(r, world * sizeof(*r));
	}
	free(one);
}

/*
 * @steps of one device (batch 32, mode @one_mode) against @world ranks of
 * @batch x @accum each (the same global batch) in @mode with @bucket
 */
static void ddp_vs_single(int one_mode, int world, uint32_t batch,
			  uint32_t accum, int mode, uint64_t bucket,
			  uint64_t steps)
{
	struct run *one = run_single(32, one_mode, steps);
	struct run *r = run_ddp(world, batch, accum, mode, bucket, steps);

	compare(one, r, world);
	release(one, r, world);
}

static void test_ddp_graph_buckets(void **state)
{
	(void)state;
	/* 4 KiB buckets: the 64x32 weight alone is 8 KiB, so 3 buckets */
	ddp_vs_single(HT_TRAIN_EXEC_LAZY, 4, 8, 1, HT_TRAIN_EXEC_GRAPH, 4096,
		      50);
}

static void test_ddp_accumulation(void **state)
{
	(void)state;
	ddp_vs_single(HT_TRAIN_EXEC_LAZY, 2, 8, 2, HT_TRAIN_EXEC_GRAPH, 0, 45);
}

static void test_ddp_eager(void **state)
{
	(void)state;
	ddp_vs_single(HT_TRAIN_EXEC_EAGER, 2, 16, 1, HT_TRAIN_EXEC_EAGER, 4096,
		      8);
}

/*
 * The program's submissions of a lazy DDP step with one bucket: the
 * program up to the bucket's launch and the optimizer's, 2 per rank and
 * step. The last micro-step used to fetch the rank's local loss too,
 * which made the program after the launch a CS of its own (3); DDP
 * reports the all-reduced loss from the loss slot.
 */
static void test_ddp_step_submissions(void **state)
{
	struct run *a, *b;
	double per;
	int i;

	(void)state;
	a = run_ddp(2, 16, 1, HT_TRAIN_EXEC_LAZY, 0, 10);
	b = run_ddp(2, 16, 1, HT_TRAIN_EXEC_LAZY, 0, 30);
	for (i = 0; i < 2; i++) {
		per = (double)(b[i].subs - a[i].subs) / 20.0;
		printf("# rank %d: %.2f program submissions per step\n", i,
		       per);
		assert_true(b[i].subs > a[i].subs);
		assert_true(per <= 2.0);
	}
	munmap(a, 2 * sizeof(*a));
	munmap(b, 2 * sizeof(*b));
}

/*
 * An eager DDP step's CSs beside the program's own (one per op): the
 * bucket's allreduce alone, one per step, and no stream WAIT or event
 * CS: eager waits for every op, so the program goes outside the compute
 * stream and the optimizer follows the allreduce by a host wait (with
 * the compute stream, a WAIT before the optimizer came whenever the
 * allreduce had not ended at its submission: 18 and 36 others in 20
 * steps, measured)
 */
static void test_ddp_eager_step_cs(void **state)
{
	struct run *a, *b;
	double extra;
	int i;

	(void)state;
	a = run_ddp(2, 16, 1, HT_TRAIN_EXEC_EAGER, 0, 10);
	b = run_ddp(2, 16, 1, HT_TRAIN_EXEC_EAGER, 0, 30);
	for (i = 0; i < 2; i++) {
		assert_true(b[i].subs > a[i].subs);
		extra = ((double)(b[i].ctx_cs - a[i].ctx_cs) -
			 (double)(b[i].subs - a[i].subs)) /
			20.0;
		printf("# rank %d: %.2f program CSs and %.2f others per step\n",
		       i, (double)(b[i].subs - a[i].subs) / 20.0, extra);
		/*
		 * the allreduce of each of the 20 steps; the setup's CSs
		 * (7 beside a 10-step run's 10 allreduces) can have one more
		 * that comes with timing, seen under ASan in either run (19
		 * or 21); a WAIT before most optimizers makes it up to 40
		 */
		assert_in_range((b[i].ctx_cs - a[i].ctx_cs) -
					(b[i].subs - a[i].subs),
				19, 25);
	}
	munmap(a, 2 * sizeof(*a));
	munmap(b, 2 * sizeof(*b));
}

/*
 * The data parallel benchmark: both ranks meet (a barrier, and the one
 * after the warm-up) and report the same step time, the mean over the
 * ranks, with samples per second of the global batch (2 x 16)
 */
static void test_ddp_benchmark(void **state)
{
	struct run *r;
	int i;

	(void)state;
	r = run_ranks(2, 16, 1, HT_TRAIN_EXEC_LAZY, 0, 6, true);
	printf("# benchmark: %.3f ms per step, %.0f samples/s\n",
	       1000.0 * r[0].bench_step_s, r[0].bench_sps);
	for (i = 0; i < 2; i++) {
		assert_true(r[i].bench_step_s > 0);
		assert_true(r[i].bench_step_s == r[0].bench_step_s);
		assert_true(r[i].bench_sps == r[0].bench_sps);
		/* samples/s x step time = the global batch */
		assert_true(fabs(r[i].bench_sps * r[i].bench_step_s - 32.0) <
			    1e-6);
	}
	munmap(r, 2 * sizeof(*r));
}

/*
 * Ranks resuming from different checkpoints of one run (each passes the
 * file checks) are refused on every rank before any step
 */
static void test_ddp_resume_mismatch(void **state)
{
	char dir[] = "/tmp/ht-ddp-ck-XXXXXX", cmd[64];
	struct run *r;
	int status[2], i, pass;

	(void)state;
	assert_non_null(mkdtemp(dir));
	r = mmap(NULL, 2 * sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r != MAP_FAILED);
	for (pass = 0; pass < 2; pass++) {
		next_port = fresh_port();
		for (i = 0; i < 2; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].world = 2;
			r[i].rank = i;
			r[i].batch = 16;
			r[i].accum = 1;
			r[i].mode = HT_TRAIN_EXEC_LAZY;
			r[i].steps = 10;
			r[i].port = next_port;
			if (pass == 0) {
				snprintf(r[i].ckpt_dir, sizeof(r[i].ckpt_dir),
					 "%s", dir);
				r[i].ckpt_every = 5;
			} else {
				/* rank 0 at step 5, rank 1 at step 10 */
				snprintf(r[i].resume, sizeof(r[i].resume),
					 "%s/ckpt-step-%d.htck", dir,
					 5 + 5 * i);
			}
		}
		assert_int_equal(hpu_test_run_ranks(rank_main, r, sizeof(*r), 2,
						    RANK_MS, status),
				 0);
		for (i = 0; i < 2; i++) {
			if (pass == 0) {
				if (status[i])
					fail_msg("rank %d: %s", i, r[i].err);
				continue;
			}
			printf("# rank %d: %s\n", i, r[i].err);
			assert_int_equal(status[i], 1);
			assert_non_null(
				strstr(r[i].err,
				       "resumed from different checkpoints"));
		}
	}
	munmap(r, 2 * sizeof(*r));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A rank that never comes: the others fail with a message, not hang */
static void test_ddp_missing_rank(void **state)
{
	struct run *r;
	pid_t pid;
	int status;

	(void)state;
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r != MAP_FAILED);
	memset(r, 0, sizeof(*r));
	next_port = fresh_port();
	r->world = 2;
	r->batch = 16;
	r->accum = 1;
	r->mode = HT_TRAIN_EXEC_LAZY;
	r->steps = 5;
	r->port = next_port;
	setenv("HPUCCL_TIMEOUT_MS", "1500", 1);
	pid = hpu_test_fork_rank(rank_main, r);
	unsetenv("HPUCCL_TIMEOUT_MS");
	assert_true(pid > 0);
	assert_int_equal(hpu_test_wait_ranks(&pid, 1, 15000, &status, NULL), 0);
	assert_int_equal(status, 1);
	printf("# %s\n", r->err);
	assert_non_null(strstr(r->err, "rank 0 of 2"));
	munmap(r, sizeof(*r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ddp_matches_single,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_graph_buckets,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_accumulation,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_eager, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_eager_step_cs,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_step_submissions,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_benchmark,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_resume_mismatch,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_missing_rank,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
