// SPDX-License-Identifier: MIT
/*
 * test_ccl_oneshot.c - the one-round allreduce (libhpuccl/allreduce.c,
 * "oneshot"; docs/collectives.md "Algorithms"): every rank sends its
 * whole buffer to every peer and reduces all of it, each share with the
 * operands in the order the direct schedule's owner of that share uses.
 * So its result must have the same bits as the direct schedule's, on
 * every rank, also where the order of the operands shows: sums of three
 * random floats (rounding), min and max of +0 and -0, NaNs with
 * different payloads, bf16, int32, AVG; in place and out of place; odd
 * counts (empty shares) and buffers of several inbox slots whose chunks
 * cut across the shares.
 *
 * 2 and 3 ranks as forked processes on one 3-device daemon. Each rank
 * joins three communicators: HPUCCL_ALGO=direct, =oneshot and the
 * automatic choice (with 2 ranks: oneshot up to 256 KiB, the figure of
 * issue 11's DDP step), checks from the HPUCCL_DEBUG line that each ran
 * the schedule it names, compares their results byte for byte and puts
 * a hash of them where the test compares the ranks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define NDEV	   3
#define TIMEOUT_MS 30000
#define RUN_MS	   240000
/* 4 KiB slots: 1024 fp32 (2048 bf16) per chunk, so 2500 is 3 chunks */
#define SLOT_BYTES "4096"
#define MAX_COUNT  2500
#define NCOMMS	   3

static const char *skip_reason;
/*
 * A rank's messages: its stderr as it was; fd 2 itself goes to /dev/null
 * once the communicators exist (they print a HPUCCL_DEBUG line per call)
 */
static FILE *errf;

static const char *const algo_env[NCOMMS] = { "direct", "oneshot", "" };

static const size_t counts[] = { 1, 2, 3, 7, 1000, MAX_COUNT };
static const enum hpuccl_dtype dtypes[] = { HPUCCL_FLOAT32, HPUCCL_BFLOAT16,
					    HPUCCL_INT32 };
static const enum hpuccl_redop ops[] = { HPUCCL_SUM, HPUCCL_MIN, HPUCCL_MAX,
					 HPUCCL_AVG };

/**
 * struct job - one rank process
 * @rank: its rank
 * @nranks: ranks
 * @port: store port (rank 0 hosts it; the k-th id of every rank names
 *	the k-th communicator)
 * @out: where it puts its results' hash (shared with the test)
 */
struct job {
	int rank;
	int nranks;
	int port;
	uint64_t *out;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

/* Rank @rank's input: random values and the special ones, by position */
static void fill(void *buf, size_t count, enum hpuccl_dtype t, int rank,
		 uint64_t seed)
{
	uint64_t s = seed * 977 + (uint64_t)rank * 131 + 7;
	size_t i;

	for (i = 0; i < count; i++) {
		uint32_t r = rnd(&s), k = (uint32_t)((i + (size_t)rank) % 11);
		float f = (float)(int32_t)(r - 0x80000000u) /
			  (float)(1u << (r % 29));

		if (t == HPUCCL_INT32) {
			((int32_t *)buf)[i] = (int32_t)r;
			continue;
		}
		if (k == 0)
			f = rank % 2 ? -0.0f : 0.0f;
		else if (k == 1)
			f = 0.0f;
		else if (k == 2)
			f = -0.0f;
		if (t == HPUCCL_FLOAT32) {
			uint32_t u;

			memcpy(&u, &f, 4);
			if (k == 3) /* NaNs of different payloads */
				u = 0x7fc00001u + (uint32_t)rank * 16 +
				    (uint32_t)(i % 7);
			memcpy((uint32_t *)buf + i, &u, 4);
		} else {
			uint32_t u;

			memcpy(&u, &f, 4);
			((uint16_t *)buf)[i] =
				k == 3 ? (uint16_t)(0x7fc1 + rank) :
					 (uint16_t)(u >> 16);
		}
	}
}

/* The HPUCCL_DEBUG line of one allreduce names @algo */
static int debug_algo_is(struct hpu_test_rank *tr, struct hpuccl_comm *c,
			 uint64_t buf, const char *algo)
{
	char line[256] = "", want[64];
	int save = dup(2), ret;
	FILE *f = tmpfile();

	if (save < 0 || !f) {
		if (f)
			fclose(f);
		if (save >= 0)
			close(save);
		return -ENOMEM;
	}
	fflush(stderr);
	dup2(fileno(f), 2);
	ret = hpuccl_allreduce(buf, buf, 5, HPUCCL_FLOAT32, HPUCCL_SUM, c,
			       tr->stream);
	if (!ret)
		ret = hpu_stream_synchronize(tr->stream);
	fflush(stderr);
	dup2(save, 2);
	close(save);
	rewind(f);
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	snprintf(want, sizeof(want), " algo %s\n", algo);
	if (!ret && !strstr(line, want)) {
		fprintf(errf, "expected algo %s, the library said: %s", algo,
			line);
		return -EINVAL;
	}
	return ret;
}

static int join_all(struct hpu_test_rank *tr, const struct job *j,
		    struct hpuccl_comm **comms)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg),
				     .dev = tr->dev,
				     .timeout_ms = TIMEOUT_MS };
	struct hpuccl_unique_id id;
	char p[16];
	int i, ret;

	snprintf(p, sizeof(p), "%d", j->port);
	setenv("MASTER_ADDR", "127.0.0.1", 1);
	setenv("MASTER_PORT", p, 1);
	setenv("HPUCCL_SLOT_BYTES", SLOT_BYTES, 1);
	setenv("HPUCCL_DEBUG", "1", 1);
	for (i = 0; i < NCOMMS; i++) {
		setenv("HPUCCL_ALGO", algo_env[i], 1);
		ret = hpuccl_unique_id_from_env(&id, j->rank);
		if (!ret)
			ret = hpuccl_comm_init_rank_config(&comms[i], j->nranks,
							   &id, j->rank, &cfg);
		if (ret) {
			fprintf(errf, "rank %d: communicator %d: %s\n", j->rank,
				i, hpuccl_strerror(ret));
			return ret;
		}
	}
	return 0;
}

/* One case on every communicator; 0 when all results are the same bits */
static int run_case(struct hpu_test_rank *tr, const struct job *j,
		    struct hpuccl_comm **comms, uint64_t sbuf, uint64_t rbuf,
		    enum hpuccl_dtype t, enum hpuccl_redop op, size_t count,
		    int inplace, uint64_t seed, uint64_t *hash)
{
	static uint8_t in[MAX_COUNT * 4], got[NCOMMS][MAX_COUNT * 4];
	size_t bytes = count * hpuccl_dtype_size(t);
	uint64_t dst = inplace ? sbuf : rbuf;
	int i, ret;

	fill(in, count, t, j->rank, seed);
	for (i = 0; i < NCOMMS; i++) {
		memset(got[i], 0xab, bytes);
		ret = hpu_test_rank_put(tr, sbuf, in, bytes);
		if (!ret && !inplace)
			ret = hpu_test_rank_put(tr, rbuf, got[i], bytes);
		if (!ret)
			ret = hpuccl_allreduce(sbuf, dst, count, t, op,
					       comms[i], tr->stream);
		if (!ret)
			ret = hpu_test_rank_get(tr, got[i], dst, bytes);
		if (ret) {
			fprintf(errf, "rank %d: allreduce (%s): %s\n", j->rank,
				algo_env[i], hpuccl_strerror(ret));
			return ret;
		}
	}
	for (i = 1; i < NCOMMS; i++)
		if (memcmp(got[0], got[i], bytes)) {
			fprintf(errf,
				"rank %d/%d: dtype %d op %d count %zu %s: "
				"%s differs from direct\n",
				j->rank, j->nranks, (int)t, (int)op, count,
				inplace ? "in place" : "out of place",
				algo_env[i][0] ? algo_env[i] : "auto");
			return -EINVAL;
		}
	*hash = fnv(*hash, got[1], bytes);
	return 0;
}

static int rank_main(void *arg)
{
	const struct job *j = arg;
	struct hpuccl_comm *comms[NCOMMS] = { NULL };
	struct hpu_test_rank tr;
	uint64_t sbuf, rbuf, hash = 0xcbf29ce484222325ULL, seed = 0;
	size_t d, o, c;
	int i, ret, inplace;

	errf = fdopen(dup(2), "w");
	if (!errf)
		return 2;
	setvbuf(errf, NULL, _IONBF, 0);
	if (hpu_test_rank_open(&tr, j->rank))
		return 2;
	ret = join_all(&tr, j, comms);
	if (!ret) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			fflush(stderr);
			dup2(null, 2);
			close(null);
		}
	}
	if (!ret)
		ret = hpu_test_rank_buf(&tr, MAX_COUNT * 4, &sbuf);
	if (!ret)
		ret = hpu_test_rank_buf(&tr, MAX_COUNT * 4, &rbuf);
	/* every communicator runs what it names (auto: 2 ranks, oneshot) */
	for (i = 0; !ret && i < NCOMMS; i++)
		ret = debug_algo_is(&tr, comms[i], sbuf,
				    i == 0		     ? "direct" :
				    i == 1 || j->nranks == 2 ? "oneshot" :
							       "direct");
	unsetenv("HPUCCL_DEBUG");
	for (d = 0; !ret && d < sizeof(dtypes) / sizeof(dtypes[0]); d++)
		for (o = 0; !ret && o < sizeof(ops) / sizeof(ops[0]); o++)
			for (c = 0;
			     !ret && c < sizeof(counts) / sizeof(counts[0]);
			     c++)
				for (inplace = 0; !ret && inplace < 2;
				     inplace++)
					ret = run_case(&tr, j, comms, sbuf,
						       rbuf, dtypes[d], ops[o],
						       counts[c], inplace,
						       ++seed, &hash);
	j->out[j->rank] = ret ? 0 : hash;
	for (i = 0; i < NCOMMS; i++)
		if (comms[i]) {
			if (ret)
				hpuccl_comm_abort(comms[i]);
			else
				hpuccl_comm_destroy(comms[i]);
		}
	hpu_test_rank_close(&tr, ret);
	return ret ? 1 : 0;
}

static void run_world(int n)
{
	struct job jobs[NDEV];
	int status[NDEV], port, i;
	uint64_t *out;

	HPU_TEST_SKIP_IF(skip_reason);
	out = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(out != MAP_FAILED);
	port = hpu_test_free_port();
	assert_true(port > 0);
	for (i = 0; i < n; i++)
		jobs[i] = (struct job){
			.rank = i, .nranks = n, .port = port, .out = out
		};
	assert_int_equal(hpu_test_run_ranks(rank_main, jobs, sizeof(jobs[0]), n,
					    RUN_MS, status),
			 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(status[i], 0);
		assert_true(out[i] != 0);
		/* every rank has the same bits */
		assert_true(out[i] == out[0]);
	}
	munmap(out, 4096);
}

static void test_two_ranks(void **state)
{
	(void)state;
	run_world(2);
}

static void test_three_ranks(void **state)
{
	(void)state;
	run_world(3);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_ccl_group_start(NDEV, "gaudi2", &skip_reason);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_ranks),
		cmocka_unit_test(test_three_ranks),
	};

	return cmocka_run_group_tests_name("ccl_oneshot", tests, group_setup,
					   hpu_test_group_stop);
}
