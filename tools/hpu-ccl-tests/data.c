// SPDX-License-Identifier: MIT
/*
 * data.c - the input each rank contributes and the output each rank must
 * receive, computed on the host so that every element can be checked
 * exactly.
 *
 * Element j of rank r is a hash of (seed, r, j), in a range chosen per
 * type: int32 takes any value (sums wrap, as the library's do); float and
 * bfloat16 take small integers, so that every partial sum of every order
 * the library may use is an integer below 256 and exact even in bfloat16.
 * For avg the last rank's float element is shifted so that the sum is a
 * multiple of the rank count: the average is then an exact integer too.
 * int32 avg takes values whose sum cannot wrap and truncates.
 */
#include <string.h>

#include "ccltests.h"

#define FLOAT_SUM_LIMIT 240	    /* partial sums stay below bfloat16's 256 */
#define POISON_FP32	0x7fc0deadU /* a NaN: no result is one */
#define POISON_BF16	0x7fc1U
#define POISON_INT32	0x5a5a5a5aU

/* everything the value of an element depends on */
struct gen {
	uint64_t seed;
	int nranks;
	bool is_float;
	bool full_range; /* int32 without avg */
	bool avg_shift;	 /* float avg: last rank makes the sum divisible */
	uint32_t span;	 /* values are [-half, half], span = 2 * half + 1 */
	int64_t half;
	enum hpuccl_redop redop;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static void gen_init(struct gen *g, const struct cclt_call *c, uint64_t seed)
{
	const struct cclt_op *op = cclt_op_get(c->op);
	int64_t half;

	memset(g, 0, sizeof(*g));
	g->seed = mix(seed + 0x9e3779b97f4a7c15ULL * (c->op + 1));
	g->nranks = c->nranks;
	g->redop = op->reduces ? c->redop : HPUCCL_SUM;
	g->is_float = c->dtype != HPUCCL_INT32;
	if (!g->is_float) {
		g->full_range = g->redop != HPUCCL_AVG;
		half = (1LL << 30) / c->nranks;
	} else {
		half = FLOAT_SUM_LIMIT / c->nranks - 1;
		if (half < 0)
			half = 0;
		g->avg_shift = op->reduces && c->redop == HPUCCL_AVG &&
			       c->nranks > 1;
	}
	g->half = half;
	g->span = (uint32_t)(2 * half + 1);
}

/* element j of rank r before the avg shift */
static int64_t raw_value(const struct gen *g, int r, uint64_t j)
{
	uint64_t h = mix(g->seed ^ ((uint64_t)r << 48) ^ j);

	if (g->full_range)
		return (int32_t)(uint32_t)h;
	return (int64_t)(((h >> 32) * g->span) >> 32) - g->half;
}

static int64_t pos_mod(int64_t a, int64_t n)
{
	int64_t m = a % n;

	return m < 0 ? m + n : m;
}

/* sum over ranks of the raw values: what the avg shift removes */
static int64_t avg_shift(const struct gen *g, uint64_t j)
{
	int64_t sum = 0;
	int r;

	for (r = 0; r < g->nranks; r++)
		sum += raw_value(g, r, j);
	return pos_mod(sum, g->nranks);
}

static int64_t value(const struct gen *g, int r, uint64_t j)
{
	int64_t v = raw_value(g, r, j);

	if (g->avg_shift && r == g->nranks - 1)
		v -= avg_shift(g, j);
	return v;
}

/* the reduction over ranks of element j */
static int64_t reduced(const struct gen *g, uint64_t j)
{
	int64_t acc = 0, v;
	int r;

	for (r = 0; r < g->nranks; r++) {
		v = raw_value(g, r, j);
		if (!r) {
			acc = v;
			continue;
		}
		switch (g->redop) {
		case HPUCCL_MIN:
			acc = v < acc ? v : acc;
			break;
		case HPUCCL_MAX:
			acc = v > acc ? v : acc;
			break;
		default:
			acc += v;
			break;
		}
	}
	if (g->redop == HPUCCL_MIN || g->redop == HPUCCL_MAX)
		return acc; /* the avg shift is for avg only */
	if (g->avg_shift)
		acc -= pos_mod(acc, g->nranks);
	if (g->redop == HPUCCL_AVG)
		return acc / g->nranks; /* C division truncates, as int32 avg */
	return g->is_float ? acc : (int32_t)(uint32_t)(uint64_t)acc;
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void store(enum hpuccl_dtype dtype, void *buf, size_t k, int64_t v)
{
	switch (dtype) {
	case HPUCCL_FLOAT32:
		((uint32_t *)buf)[k] = float_bits((float)v);
		break;
	case HPUCCL_BFLOAT16: /* small integers: the upper half is exact */
		((uint16_t *)buf)[k] = float_bits((float)v) >> 16;
		break;
	default:
		((uint32_t *)buf)[k] = (uint32_t)v;
		break;
	}
}

static bool matches(enum hpuccl_dtype dtype, const void *buf, size_t k,
		    int64_t want)
{
	switch (dtype) {
	case HPUCCL_FLOAT32:
		return bits_float(((const uint32_t *)buf)[k]) == (float)want;
	case HPUCCL_BFLOAT16:
		return bits_float((uint32_t)((const uint16_t *)buf)[k] << 16) ==
		       (float)want;
	default:
		return ((const uint32_t *)buf)[k] == (uint32_t)want;
	}
}

void cclt_fill_send(const struct cclt_call *c, uint64_t seed, void *buf)
{
	size_t k, n = cclt_send_elems(c);
	struct gen g;

	gen_init(&g, c, seed);
	for (k = 0; k < n; k++)
		store(c->dtype, buf, k, value(&g, c->rank, k));
}

void cclt_fill_poison(enum hpuccl_dtype dtype, void *buf, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (dtype == HPUCCL_BFLOAT16)
			((uint16_t *)buf)[k] = POISON_BF16;
		else
			((uint32_t *)buf)[k] = dtype == HPUCCL_FLOAT32 ?
						       POISON_FP32 :
						       POISON_INT32;
	}
}

/*
 * Expected value of element k of this rank's receive buffer; false when
 * the collective leaves it undefined (reduce on a rank other than root).
 */
static bool expected(const struct cclt_call *c, const struct gen *g, size_t k,
		     int64_t *want)
{
	size_t cnt = c->count;
	int prev;

	switch (c->op) {
	case CCLT_ALLREDUCE:
		*want = reduced(g, k);
		return true;
	case CCLT_REDUCE:
		if (c->rank != c->root)
			return false;
		*want = reduced(g, k);
		return true;
	case CCLT_BROADCAST:
		*want = value(g, c->root, k);
		return true;
	case CCLT_ALLGATHER:
		*want = value(g, (int)(k / cnt), k % cnt);
		return true;
	case CCLT_REDUCE_SCATTER:
		*want = reduced(g, (uint64_t)c->rank * cnt + k);
		return true;
	case CCLT_ALLTOALL:
		*want = value(g, (int)(k / cnt),
			      (uint64_t)c->rank * cnt + k % cnt);
		return true;
	case CCLT_SENDRECV:
		prev = (c->rank + c->nranks - 1) % c->nranks;
		*want = value(g, prev, k);
		return true;
	default:
		return false;
	}
}

size_t cclt_count_wrong(const struct cclt_call *c, uint64_t seed,
			const void *buf)
{
	size_t k, n = cclt_recv_elems(c), wrong = 0;
	int64_t want;
	struct gen g;

	gen_init(&g, c, seed);
	for (k = 0; k < n; k++)
		if (expected(c, &g, k, &want) &&
		    !matches(c->dtype, buf, k, want))
			wrong++;
	return wrong;
}
