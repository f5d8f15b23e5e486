// SPDX-License-Identifier: MIT
/*
 * test_ccl_collectives.c - every collective of libhpuccl on the real
 * hpu-fused (8 gaudi2 devices of one server): ranks are forked processes,
 * each on its own device; each rank process runs a whole list of cases
 * (collective x dtype x op x in/out of place x sizes) and checks its
 * results on the host against a reference computed there. Inputs are
 * small integers, so fp32 and bf16 sums are exact whatever the order.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define NDEV 8

/*
 * Pace: group_setup() measures a reference job (REF_ALLREDUCES allreduces
 * of REF_COUNT floats on a 1-rank communicator, init and destroy included)
 * and compares it with what it takes on a quiet development machine
 * (REF_NOMINAL_MS, plain build). Every timeout of the test - the
 * communicators' rendezvous and CS timeout (COMM_TIMEOUT_MS) and each
 * suite's limit - is multiplied by that slowdown (never below 1, at most
 * MAX_SLOWDOWN), so a slow machine (a sanitizer build, busy loops beside
 * it, other jobs) gets proportionally more time, and the limits still
 * end the binary before the runner's bound (HPU_TEST_BOUND_S).
 */
#define REF_ALLREDUCES	 20
#define REF_COUNT	 65536
#define REF_NOMINAL_MS	 60
#define COMM_TIMEOUT_MS	 20000
#define MAX_SLOWDOWN	 30
#define MAX_COMM_TIMEOUT 600000
/* the runner's bound when it does not say (tests/run-tests: 2 x 300 s) */
#define DEFAULT_BOUND_S	 600
/* kept back from the runner's bound for the last suite's report */
#define BOUND_MARGIN_S	 30

static double slowdown = 1.0;
static uint32_t comm_timeout_ms = COMM_TIMEOUT_MS;
static long binary_start_ms;

/**
 * struct rank_pos - where a rank process is, kept in memory shared with
 * the test process, which prints it for a rank that does not finish
 * @config: index of the communicator configuration
 * @coll: collective (enum below), -1 outside the cases
 * @dtype: its data type
 * @op: its reduction
 * @inplace: in place or not
 * @count: its element count
 * @step: what the rank was doing: "open", "init", "input" (poison and
 *	input copies), "call", "sync" (the collective and the read-back),
 *	"regcache", "destroy", "done"
 */
struct rank_pos {
	int config;
	int coll;
	int dtype;
	int op;
	int inplace;
	uint64_t count;
	const char *step;
};

static struct rank_pos *positions; /* NDEV entries, MAP_SHARED */

static void at(int rank, const char *step)
{
	positions[rank].step = step;
}

/* ------------------------------------------------------------ values */

static int val(int rank, uint64_t i)
{
	return (int)((i * 7 + (uint64_t)rank * 3) % 11) - 5;
}

static uint16_t f2bf(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16); /* exact for our small integers */
}

static float bf2f(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static void fill(void *buf, enum hpuccl_dtype t, uint64_t n, int rank,
		 uint64_t base)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		int v = val(rank, base + i);

		if (t == HPUCCL_FLOAT32)
			((float *)buf)[i] = (float)v;
		else if (t == HPUCCL_BFLOAT16)
			((uint16_t *)buf)[i] = f2bf((float)v);
		else
			((int32_t *)buf)[i] = v;
	}
}

static double get(const void *buf, enum hpuccl_dtype t, uint64_t i)
{
	if (t == HPUCCL_FLOAT32)
		return ((const float *)buf)[i];
	if (t == HPUCCL_BFLOAT16)
		return bf2f(((const uint16_t *)buf)[i]);
	return ((const int32_t *)buf)[i];
}

/* Reference of op over ranks 0..n-1 of element i (global index gi) */
static double ref_red(enum hpuccl_redop op, enum hpuccl_dtype t, int n,
		      uint64_t gi)
{
	double acc = val(0, gi);
	int r;

	for (r = 1; r < n; r++) {
		double v = val(r, gi);

		if (op == HPUCCL_MIN)
			acc = v < acc ? v : acc;
		else if (op == HPUCCL_MAX)
			acc = v > acc ? v : acc;
		else
			acc += v;
	}
	if (op == HPUCCL_AVG) {
		if (t == HPUCCL_INT32)
			acc = (double)((int32_t)acc / n);
		else
			acc /= n;
	}
	return acc;
}

static int close_enough(double got, double want, enum hpuccl_dtype t)
{
	if (t == HPUCCL_INT32)
		return got == want;
	if (t == HPUCCL_FLOAT32)
		return fabs(got - want) <= 1e-6 * fabs(want) + 1e-6;
	return fabs(got - want) <= 1e-2 * fabs(want) + 1e-2;
}

/* ------------------------------------------------------------- ranks */

struct rank_ctx {
	int rank;
	int nranks;
	struct hpu_device *dev;
	struct hpu_stream *s;
	struct hpuccl_comm *comm;
	uint64_t a, b;	    /* device buffers */
	uint64_t cap;	    /* bytes of each */
	void *h, *h2;	    /* pinned host buffers of cap + 4096 bytes */
	uint64_t hva, h2va; /* their device VAs */
	int fails;
};

/*
 * A failed case: say what failed. The rank stops at its first failure
 * (run_config() checks x->fails) and aborts its communicator, so the
 * others see a peer leave instead of collectives that never come.
 */
static void rfail(struct rank_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->fails++ > 5)
		return;
	fprintf(stderr, "rank %d/%d: ", x->rank, x->nranks);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The host buffers are pinned (mapped to the device once): a case's
 * copies need no mapping of their own, only a place on the stream.
 */

/* Queue the copy of @n bytes of x->h to @va */
static int put(struct rank_ctx *x, uint64_t va, size_t n)
{
	return n ? hpu_stream_memcpy_d2d(x->s, va, x->hva, n) : 0;
}

/* Queue the copy of @n bytes at @va to x->h2 */
static int fetch(struct rank_ctx *x, uint64_t va, size_t n)
{
	return n ? hpu_stream_memcpy_d2d(x->s, x->h2va, va, n) : 0;
}

static const char *const coll_names[] = { "allreduce", "reduce_scatter",
					  "allgather", "broadcast",
					  "reduce",    "alltoall",
					  "sendrecv" };

enum {
	C_AR,
	C_RS,
	C_AG,
	C_BC,
	C_RD,
	C_A2A,
	C_P2P,
	C_NUM
};

/* Run one case on this rank and check it. */
static void run_case(struct rank_ctx *x, int coll, enum hpuccl_dtype t,
		     enum hpuccl_redop op, int inplace, uint64_t count)
{
	int n = x->nranks, me = x->rank, root = n > 1 ? n - 2 : 0, ret, p;
	size_t es = hpuccl_dtype_size(t);
	uint64_t in_n, out_n, i, send, recv;
	const char *name = coll_names[coll];

	switch (coll) {
	case C_RS:
		in_n = count * (uint64_t)n;
		out_n = count;
		break;
	case C_AG:
		in_n = count;
		out_n = count * (uint64_t)n;
		break;
	case C_A2A:
		in_n = out_n = count * (uint64_t)n;
		inplace = 0;
		break;
	default:
		in_n = out_n = count;
		if (coll == C_P2P)
			inplace = 0;
	}
	positions[me] = (struct rank_pos){ .config = positions[me].config,
					   .coll = coll,
					   .dtype = t,
					   .op = op,
					   .inplace = inplace,
					   .count = count,
					   .step = "input" };
	if ((in_n > out_n ? in_n : out_n) * es > x->cap) {
		rfail(x, "%s: case too large", name);
		return;
	}
	/* the input, and a poisoned output */
	if (hpu_stream_memset(x->s, x->b, 0x7b, 1, out_n * es + 1) < 0) {
		rfail(x, "poison");
		return;
	}
	if (coll == C_AG) {
		fill(x->h, t, in_n, me, 0);
	} else if (coll == C_A2A) {
		for (p = 0; p < n; p++)
			fill((char *)x->h + (uint64_t)p * count * es, t, count,
			     me, (uint64_t)p * 1000 + 0);
	} else {
		fill(x->h, t, in_n, me, 0);
	}
	send = x->a;
	recv = inplace ? x->a : x->b;
	if (inplace && coll == C_RS) {
		recv = x->a + (uint64_t)me * count * es;
	} else if (inplace && coll == C_AG) {
		/* the rank's input sits at its block of the output */
		memset(x->h2, 0x7b, out_n * es);
		memcpy((char *)x->h2 + (uint64_t)me * count * es, x->h,
		       count * es);
		memcpy(x->h, x->h2, out_n * es);
		send = x->a + (uint64_t)me * count * es;
		recv = x->a;
		in_n = out_n;
	}
	/*
	 * synchronized before the collective, so that it does not make each
	 * of its queues wait for these copies (the stream's WAIT CSs)
	 */
	if (put(x, x->a, in_n * es) < 0 || hpu_stream_synchronize(x->s) < 0) {
		rfail(x, "input");
		return;
	}
	at(me, "call");
	switch (coll) {
	case C_AR:
		ret = hpuccl_allreduce(send, recv, count, t, op, x->comm, x->s);
		break;
	case C_RS:
		ret = hpuccl_reduce_scatter(send, recv, count, t, op, x->comm,
					    x->s);
		break;
	case C_AG:
		ret = hpuccl_allgather(send, recv, count, t, x->comm, x->s);
		break;
	case C_BC:
		ret = hpuccl_broadcast(send, recv, count, t, root, x->comm,
				       x->s);
		break;
	case C_RD:
		ret = hpuccl_reduce(send, recv, count, t, op, root, x->comm,
				    x->s);
		break;
	case C_A2A:
		ret = hpuccl_alltoall(send, recv, count, t, x->comm, x->s);
		break;
	default:
		/* a ring exchange in a group: send right, receive left */
		hpuccl_group_start();
		ret = 0;
		if (n > 1) {
			ret = hpuccl_recv(recv, count, t, (me + n - 1) % n,
					  x->comm, x->s);
			if (!ret)
				ret = hpuccl_send(send, count, t, (me + 1) % n,
						  x->comm, x->s);
		}
		p = hpuccl_group_end();
		if (!ret)
			ret = p;
	}
	if (ret) {
		rfail(x, "%s count %llu: %d", name, (unsigned long long)count,
		      ret);
		return;
	}
	if (fetch(x, recv, out_n * es) < 0) {
		rfail(x, "readback");
		return;
	}
	at(me, "sync");
	ret = hpu_stream_synchronize(x->s);
	if (ret) {
		rfail(x, "%s sync: %d", name, ret);
		return;
	}
	for (i = 0; i < out_n; i++) {
		double want, got = get(x->h2, t, i);

		switch (coll) {
		case C_AR:
			want = ref_red(op, t, n, i);
			break;
		case C_RS:
			want = ref_red(op, t, n, (uint64_t)me * count + i);
			break;
		case C_AG:
			want = val((int)(i / count), i % count);
			break;
		case C_BC:
			want = val(root, i);
			break;
		case C_RD:
			if (me != root)
				continue;
			want = ref_red(op, t, n, i);
			break;
		case C_A2A:
			/* block p came from rank p's block me */
			want = val((int)(i / count),
				   (uint64_t)me * 1000 + i % count);
			break;
		default:
			want = n > 1 ? val((me + n - 1) % n, i) : 0;
			if (n == 1)
				continue;
		}
		if (!close_enough(got, want, t)) {
			rfail(x,
			      "%s dtype %d op %d inplace %d count %llu: "
			      "[%llu] = %g, want %g",
			      name, t, op, inplace, (unsigned long long)count,
			      (unsigned long long)i, got, want);
			return;
		}
	}
}

/**
 * struct config - one communicator of a rank process and what runs on it
 * @algo: HPUCCL_ALGO at its init (NULL: unset)
 * @zcopy: HPUCCL_ZCOPY_BYTES at its init (NULL: the default)
 * @colls: bit per collective run on it
 * @full: every dtype x op (else each dtype with one op)
 * @regcache: also the registration cache sequence
 */
struct config {
	const char *algo;
	const char *zcopy;
	unsigned int colls;
	int full;
	int regcache;
};

#define ALL_COLLS    ((1U << C_NUM) - 1)
#define ALGO_COLLS   ((1U << C_AR) | (1U << C_RS) | (1U << C_AG) | (1U << C_BC))
/* bytes from which the zero-copy configurations go zero copy */
#define ZC_BYTES     65536
#define ZC_BYTES_STR "65536"

/* Each forced on 3 ranks and more: every name of the libhpuccl families'
 * tables (a new algorithm adds its name here) */
static const char *const algos[] = { "direct", "ring", "hier" };
#define NALGOS	    (sizeof(algos) / sizeof(algos[0]))
/* the library's choices (inbox, zero copy), then each algorithm twice */
#define MAX_CONFIGS (2 + 2 * NALGOS)

struct suite {
	int nranks;
	uint64_t big; /* a multi-chunk count */
	int nconfigs;
	struct config cfg[MAX_CONFIGS];
	struct hpuccl_unique_id id[MAX_CONFIGS];
};

static void run_config(struct rank_ctx *x, const struct suite *su,
		       const struct config *cf)
{
	uint64_t sizes[4] = { 0, 1, (uint64_t)x->nranks * 5 + 3, su->big };
	int coll, ti, oi, ip, si;

	for (coll = 0; coll < C_NUM; coll++) {
		if (!(cf->colls & (1U << coll)))
			continue;
		for (ti = 0; ti < HPUCCL_NUM_DTYPES; ti++) {
			for (oi = 0; oi < HPUCCL_NUM_REDOPS; oi++) {
				bool red = coll == C_AR || coll == C_RS ||
					   coll == C_RD;

				if (!red && oi)
					continue;
				if (!cf->full && red && oi != (ti + 1) % 4)
					continue;
				for (ip = 0; ip < 2; ip++)
					for (si = 0; si < 4 && !x->fails; si++)
						run_case(x, coll, ti, oi, ip,
							 sizes[si]);
			}
		}
	}
}

/* allreduce (fp32 sum) of @count from x->a into @recv, checked */
static void ar_check(struct rank_ctx *x, uint64_t recv, uint64_t count,
		     const char *what)
{
	uint64_t i;
	int ret;

	fill(x->h, HPUCCL_FLOAT32, count, x->rank, 0);
	ret = put(x, x->a, count * 4);
	if (!ret)
		ret = hpu_stream_synchronize(x->s);
	if (!ret)
		ret = hpuccl_allreduce(x->a, recv, count, HPUCCL_FLOAT32,
				       HPUCCL_SUM, x->comm, x->s);
	if (!ret)
		ret = fetch(x, recv, count * 4);
	if (!ret)
		ret = hpu_stream_synchronize(x->s);
	if (ret) {
		rfail(x, "%s: %d", what, ret);
		return;
	}
	for (i = 0; i < count; i++) {
		double want = ref_red(HPUCCL_SUM, HPUCCL_FLOAT32, x->nranks, i);

		if (((float *)x->h2)[i] != want) {
			rfail(x, "%s: [%llu] = %g, want %g", what,
			      (unsigned long long)i, ((float *)x->h2)[i], want);
			return;
		}
	}
}

/* A device buffer of @bytes, at @fixed_va when not 0 */
static int buf_new(struct rank_ctx *x, uint64_t bytes, uint64_t fixed_va,
		   uint64_t *h, uint64_t *va)
{
	int ret = hpu_mem_alloc(x->dev, bytes, 0, 0, h);

	if (ret)
		return ret;
	ret = hpu_mem_map(x->dev, *h, fixed_va, fixed_va ? HPU_MEM_FIXED : 0,
			  va);
	if (ret)
		hpu_mem_free(x->dev, *h);
	return ret;
}

static void buf_del(struct rank_ctx *x, uint64_t h, uint64_t va)
{
	hpu_mem_unmap(x->dev, va);
	hpu_mem_free(x->dev, h);
}

/*
 * The registration cache of zero-copy receive buffers: one buffer used
 * twice; freed and another mapped at the same VA (same size, then twice
 * the size: the cached range no longer covers it); more buffers than the
 * cache holds (evictions), then the first of them again.
 */
static void run_regcache(struct rank_ctx *x)
{
	uint64_t count = 3 * ZC_BYTES / 4 + 5, bytes = count * 4;
	uint64_t h, va, va2, hs[20], vas[20];
	int i, n = 0;

	if (buf_new(x, bytes, 0, &h, &va)) {
		rfail(x, "regcache: alloc");
		return;
	}
	ar_check(x, va, count, "regcache first");
	ar_check(x, va, count, "regcache again");
	buf_del(x, h, va);
	if (buf_new(x, bytes, va, &h, &va2) || va2 != va) {
		rfail(x, "regcache: remap at %llx", (unsigned long long)va);
		return;
	}
	ar_check(x, va, count, "regcache same VA");
	buf_del(x, h, va);
	if (buf_new(x, 2 * bytes, va, &h, &va2) || va2 != va) {
		rfail(x, "regcache: remap larger");
		return;
	}
	ar_check(x, va, 2 * count, "regcache larger at same VA");
	buf_del(x, h, va);
	for (i = 0; i < 20; i++) {
		if (buf_new(x, bytes, 0, &hs[i], &vas[i]))
			break;
		n++;
		ar_check(x, vas[i], count, "regcache many");
	}
	if (n < 20)
		rfail(x, "regcache: %d buffers", n);
	if (n)
		ar_check(x, vas[0], count, "regcache evicted one");
	for (i = 0; i < n; i++)
		buf_del(x, hs[i], vas[i]);
}

static int rank_main(int rank, const struct suite *su)
{
	struct rank_ctx x = { .rank = rank, .nranks = su->nranks };
	uint64_t h, minb = 2 * ZC_BYTES + 64;
	int ret, k;

	x.cap = (su->big * (uint64_t)su->nranks + 64) * 4 + 4096;
	if (x.cap < minb)
		x.cap = minb;
	positions[rank] = (struct rank_pos){ .coll = -1, .step = "open" };
	ret = hpu_open(rank, &x.dev);
	if (!ret)
		ret = hpu_stream_create(x.dev, HPU_STREAM_QUEUE_AUTO, &x.s);
	if (!ret)
		ret = hpu_host_alloc(x.dev, x.cap + 4096, &x.h, &x.hva);
	if (!ret)
		ret = hpu_host_alloc(x.dev, x.cap + 4096, &x.h2, &x.h2va);
	if (!ret)
		ret = hpu_mem_alloc(x.dev, x.cap, 0, 0, &h);
	if (!ret)
		ret = hpu_mem_map(x.dev, h, 0, 0, &x.a);
	if (!ret)
		ret = hpu_mem_alloc(x.dev, x.cap + 4096, 0, 0, &h);
	if (!ret)
		ret = hpu_mem_map(x.dev, h, 0, 0, &x.b);
	if (ret) {
		fprintf(stderr, "rank %d: setup %d\n", rank, ret);
		return 3;
	}
	for (k = 0; k < su->nconfigs; k++) {
		const struct config *cf = &su->cfg[k];

		if (cf->algo)
			setenv("HPUCCL_ALGO", cf->algo, 1);
		else
			unsetenv("HPUCCL_ALGO");
		if (cf->zcopy)
			setenv("HPUCCL_ZCOPY_BYTES", cf->zcopy, 1);
		else
			unsetenv("HPUCCL_ZCOPY_BYTES");
		positions[rank] = (struct rank_pos){ .config = k,
						     .coll = -1,
						     .step = "init" };
		ret = hpuccl_comm_init_rank_config(
			&x.comm, su->nranks, &su->id[k], rank,
			&(struct hpuccl_config){
				.sz = sizeof(struct hpuccl_config),
				.dev = x.dev,
				.timeout_ms = comm_timeout_ms });
		if (ret) {
			fprintf(stderr, "rank %d: init %d\n", rank, ret);
			return 4;
		}
		run_config(&x, su, cf);
		if (cf->regcache && !x.fails) {
			at(rank, "regcache");
			run_regcache(&x);
		}
		if (x.fails) {
			fprintf(stderr,
				"rank %d: config %d (algo %s zcopy %s): "
				"aborting\n",
				rank, k, cf->algo ? cf->algo : "auto",
				cf->zcopy ? cf->zcopy : "default");
			hpuccl_comm_abort(x.comm);
			break;
		}
		at(rank, "destroy");
		ret = hpuccl_comm_destroy(x.comm);
		if (ret) {
			rfail(&x, "destroy %d", ret);
			break;
		}
	}
	at(rank, "done");
	hpu_stream_destroy(x.s);
	hpu_close(x.dev); /* frees the pinned buffers too */
	return x.fails ? 1 : 0;
}

/* Where the ranks that did not end well were */
static void print_positions(int n, const int *status)
{
	static const char *const types[] = { "fp32", "bf16", "int32" };
	int r;

	for (r = 0; r < n; r++) {
		const struct rank_pos *p = &positions[r];

		if (!status[r])
			continue;
		fprintf(stderr, "rank %d/%d: status %d, config %d, %s", r, n,
			status[r], p->config, p->step ? p->step : "-");
		if (p->coll >= 0)
			fprintf(stderr, " %s %s op %d inplace %d count %llu",
				coll_names[p->coll],
				p->dtype >= 0 && p->dtype < 3 ?
					types[p->dtype] :
					"?",
				p->op, p->inplace,
				(unsigned long long)p->count);
		fputc('\n', stderr);
	}
}

/*
 * Fork @n ranks running @fn, reap them within @limit_s (killing those
 * still running then); 0 when all passed. Each rank's last position is
 * printed when one failed or ran out of time.
 */
static int run_ranks(int n, int (*fn)(int, const void *), const void *arg,
		     int limit_s)
{
	pid_t pids[NDEV];
	int status[NDEV];
	int r, bad = 0, ret;

	memset(positions, 0, NDEV * sizeof(*positions));
	for (r = 0; r < n; r++) {
		pids[r] = hpu_test_fork_child();
		if (pids[r] == 0)
			_exit(fn(r, arg));
	}
	ret = hpu_test_wait_ranks(pids, n, limit_s * 1000, status, NULL);
	for (r = 0; r < n; r++)
		if (pids[r] < 0 || status[r])
			bad++;
	if (ret)
		fprintf(stderr, "ranks did not finish in %d s\n", limit_s);
	if (ret || bad)
		print_positions(n, status);
	return ret ? -1 : bad;
}

static int suite_rank(int rank, const void *arg)
{
	return rank_main(rank, arg);
}

static void add_config(struct suite *su, const char *algo, const char *zc,
		       unsigned int colls, int full, int regcache)
{
	assert_true((size_t)su->nconfigs < MAX_CONFIGS);
	su->cfg[su->nconfigs++] = (struct config){ .algo = algo,
						   .zcopy = zc,
						   .colls = colls,
						   .full = full,
						   .regcache = regcache };
}

/*
 * @limit_s times the slowdown, within what is left of the runner's bound
 * (minus a margin for the report of a suite that does not end)
 */
static int scaled_limit(int limit_s)
{
	const char *e = getenv("HPU_TEST_BOUND_S");
	long bound_s = e && atol(e) > 0 ? atol(e) : DEFAULT_BOUND_S;
	long left_s = bound_s - BOUND_MARGIN_S -
		      (hpu_test_now_ms() - binary_start_ms) / 1000;
	long want_s = (long)(limit_s * slowdown + 0.5);

	if (want_s > left_s)
		want_s = left_s > limit_s ? left_s : limit_s;
	print_message("suite limit %ld s (%d s x slowdown %.1f, %ld s of "
		      "the runner's bound left), communicator timeout %u ms\n",
		      want_s, limit_s, slowdown, left_s + BOUND_MARGIN_S,
		      comm_timeout_ms);
	return (int)want_s;
}

/*
 * Every collective x dtype x op x in/out of place x sizes with the
 * library's own choices (inbox path: the sizes stay below the default
 * zero-copy size), then the zero-copy path (the multi-chunk size above
 * ZC_BYTES) with the registration cache; on 3 and more ranks each
 * algorithm forced, inbox and zero copy.
 */
static void check_suite(int nranks, uint64_t big, int limit_s)
{
	struct suite su = { .nranks = nranks, .big = big };
	struct hpu_test_ccl_ids ids;
	unsigned int k;
	int ret;

	add_config(&su, NULL, NULL, ALL_COLLS, 1, 0);
	if (nranks > 1)
		add_config(&su, NULL, ZC_BYTES_STR,
			   (1U << C_AR) | (1U << C_AG) | (1U << C_BC), 1, 1);
	for (k = 0; nranks > 2 && k < NALGOS; k++) {
		add_config(&su, algos[k], NULL, ALGO_COLLS, 0, 0);
		add_config(&su, algos[k], ZC_BYTES_STR, ALGO_COLLS, 0, 0);
	}
	/* the ids' servers in a child: this process forks the ranks */
	assert_int_equal(hpu_test_ccl_ids_start(&ids, su.id, su.nconfigs), 0);
	ret = run_ranks(nranks, suite_rank, &su, scaled_limit(limit_s));
	hpu_test_ccl_ids_stop(&ids);
	assert_int_equal(ret, 0);
}

static void test_ranks1(void **state)
{
	(void)state;
	check_suite(1, 70000, 60);
}

static void test_ranks2(void **state)
{
	(void)state;
	check_suite(2, 200003, 60);
}

static void test_ranks3(void **state)
{
	(void)state;
	check_suite(3, 100001, 90);
}

static void test_ranks8(void **state)
{
	(void)state;
	check_suite(8, 150001, 240);
}

/* The reference job of the pace, in a rank process; 0 when it worked */
static int ref_rank(int rank, const void *arg)
{
	struct hpuccl_unique_id id;
	struct hpuccl_comm *comm;
	struct hpu_stream *s;
	struct hpu_device *dev;
	uint64_t h, va;
	int i, ret;

	(void)arg;
	ret = hpu_open(rank, &dev);
	if (ret)
		return 2;
	ret = hpu_stream_create(dev, HPU_STREAM_QUEUE_AUTO, &s);
	if (!ret)
		ret = hpu_mem_alloc(dev, REF_COUNT * 4, 0, 0, &h);
	if (!ret)
		ret = hpu_mem_map(dev, h, 0, 0, &va);
	if (!ret)
		ret = hpuccl_get_unique_id(&id);
	if (!ret)
		ret = hpuccl_comm_init_rank_config(
			&comm, 1, &id, 0,
			&(struct hpuccl_config){
				.sz = sizeof(struct hpuccl_config),
				.dev = dev,
				.timeout_ms = MAX_COMM_TIMEOUT });
	for (i = 0; !ret && i < REF_ALLREDUCES; i++) {
		ret = hpuccl_allreduce(va, va, REF_COUNT, HPUCCL_FLOAT32,
				       HPUCCL_SUM, comm, s);
		if (!ret)
			ret = hpu_stream_synchronize(s);
		if (ret || i == REF_ALLREDUCES - 1) {
			int err = hpuccl_comm_destroy(comm);

			ret = ret ? ret : err;
		}
	}
	hpu_close(dev);
	return ret ? 3 : 0;
}

/*
 * Measure the reference job (twice, the slower counts: a timeout too long
 * costs nothing while the test passes) and scale the timeouts by it.
 */
static int measure_pace(void)
{
	long worst = 0;
	int i;

	for (i = 0; i < 2; i++) {
		long t0 = hpu_test_now_ms(), ms;
		pid_t pid = hpu_test_fork_child();
		int status;

		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(ref_rank(0, NULL));
		if (hpu_test_wait_ranks(&pid, 1, MAX_COMM_TIMEOUT, &status,
					NULL) ||
		    status) {
			fprintf(stderr, "pace: the reference job failed (%d)\n",
				status);
			return -1;
		}
		ms = hpu_test_now_ms() - t0;
		if (ms > worst)
			worst = ms;
	}
	slowdown = (double)worst / REF_NOMINAL_MS;
	if (slowdown < 1)
		slowdown = 1;
	if (slowdown > MAX_SLOWDOWN)
		slowdown = MAX_SLOWDOWN;
	comm_timeout_ms = (uint32_t)(COMM_TIMEOUT_MS * slowdown);
	if (comm_timeout_ms > MAX_COMM_TIMEOUT)
		comm_timeout_ms = MAX_COMM_TIMEOUT;
	printf("pace: reference job %ld ms (%d ms on a quiet machine): "
	       "timeouts x %.1f, communicator timeout %u ms\n",
	       worst, REF_NOMINAL_MS, slowdown, comm_timeout_ms);
	return 0;
}

/*
 * The limits of the four suites (60 + 60 + 90 + 240 s, times the
 * slowdown) stay below the runner's bound for this binary (600 s,
 * tests/run-tests; HPU_TEST_BOUND_S), so a stuck suite is reported by its
 * test, with the ranks' positions, not by the runner's kill. On the
 * development machine they take 0.1, 0.8, 1.5 and 7.5 s (about 3 times
 * that with three busy loops beside them).
 */
static int group_setup(void **state)
{
	(void)state;
	positions = mmap(NULL, NDEV * sizeof(*positions),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			 0);
	if (positions == MAP_FAILED)
		return -1;
	setenv("HPUCCL_SLOT_BYTES", "65536", 1);
	if (hpu_test_group_start(NDEV, "gaudi2"))
		return -1;
	/* without a daemon every test skips; nothing to measure */
	if (hpu_test_have_fuse() || hpu_test_ccl_unavailable())
		return 0;
	if (measure_pace()) {
		/* a failed group setup gets no teardown */
		hpu_test_group_stop(state);
		return -1;
	}
	return 0;
}

int main(void)
{
	const char *only = getenv("HPU_TEST_CCL_ONLY");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ranks1, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ranks2, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ranks3, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ranks8, hpu_test_need_daemon),
	};

	binary_start_ms = hpu_test_now_ms();
	/* e.g. "test_ranks8": make soak-ccl runs the 8-rank suite alone */
	if (only && *only)
		cmocka_set_test_filter(only);
	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
