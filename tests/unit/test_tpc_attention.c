// SPDX-License-Identifier: MIT
/*
 * test_tpc_attention.c - the causal softmax kernels (softmax_causal and
 * its backward) run through the model on a TPC queue against references
 * in double: square and decode-step shapes (queries at an offset over a
 * longer key range), odd sizes, rank 4, strided and in-place operands,
 * masked scores never read (NaN there changes nothing), NaN and Inf in
 * the visible part, the device's row slices bit-identical to the host
 * entry on one thread; every refusal of the operand rule in
 * hputpc_check() and in the driver's packet validator. kv_cache_write:
 * rows stored at a position (fp32, bf16, strided source), the other
 * slots untouched, and its refusals.
 *
 * Tolerance: 1e-5 absolute + 1e-5 relative (as softmax); masked outputs
 * exactly +0.
 */
#include "test_tpc_util.h"
#include "hpu_fused.h"
#include "hputpc.h"

/* [rows][tk] scores, rows = tq * batch, row r is query r % tq */
struct shape {
	uint32_t tk;
	uint32_t tq;
	uint32_t batch;
	uint32_t offset;
};

static uint64_t nvis(const struct shape *s, uint64_t r)
{
	uint64_t v = s->offset + r % s->tq + 1;

	return v < s->tk ? v : s->tk;
}

/* Forward reference of row @r (y[tk]) */
static void ref_fwd(const struct shape *s, uint64_t r, const float *x,
		    float scale, double *y)
{
	uint64_t n = nvis(s, r), i;
	double m = -INFINITY, z = 0;

	for (i = 0; i < n; i++)
		if (isnan((double)scale * x[i]) || (double)scale * x[i] > m)
			m = isnan(m) ? m : (double)scale * x[i];
	for (i = 0; i < n; i++)
		z += exp((double)scale * x[i] - m);
	for (i = 0; i < s->tk; i++)
		y[i] = i < n ? exp((double)scale * x[i] - m) / z : 0.0;
}

static void ref_bwd(const struct shape *s, uint64_t r, const float *y,
		    const float *dy, float scale, double *dx)
{
	uint64_t n = nvis(s, r), i;
	double dot = 0;

	for (i = 0; i < n; i++)
		dot += (double)y[i] * dy[i];
	for (i = 0; i < s->tk; i++)
		dx[i] = i < n ? scale * y[i] * (dy[i] - dot) : 0.0;
}

static struct hpu_tpc_tensor sdesc(struct tfix *t, const struct shape *s,
				   void **data)
{
	uint32_t sz[3] = { s->tk, s->tq, s->batch };

	return tnew(t, HPU_DTYPE_FP32, 3, sz, data);
}

/* Masked outputs are +0 exactly, visible ones close to the reference */
static void check_rows(const struct shape *s, const float *got,
		       const double *want_all)
{
	uint64_t r, i;

	for (r = 0; r < (uint64_t)s->tq * s->batch; r++)
		for (i = 0; i < s->tk; i++) {
			float g = got[r * s->tk + i];

			if (i >= nvis(s, r)) {
				if (fbits(g) != 0)
					fail_msg("row %llu key %llu masked: %g",
						 (unsigned long long)r,
						 (unsigned long long)i,
						 (double)g);
				continue;
			}
			assert_close(g, want_all[r * s->tk + i], 1e-5, 1e-5);
		}
}

/* One shape forward and backward against the references */
static void run_shape(struct tfix *t, const struct shape *s, float scale,
		      uint32_t seed)
{
	uint64_t rows = (uint64_t)s->tq * s->batch, n = rows * s->tk, r;
	uint32_t p[2] = { fbits(scale), s->offset };
	struct hpu_tpc_tensor d[3];
	float *x, *y, *dy, *dx;
	double *want = malloc(n * sizeof(*want));

	assert_non_null(want);
	treset(t);
	d[0] = sdesc(t, s, (void **)&x);
	d[1] = sdesc(t, s, (void **)&y);
	frand_fill(x, n, seed, -4, 4);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	for (r = 0; r < rows; r++)
		ref_fwd(s, r, x + r * s->tk, scale, want + r * s->tk);
	check_rows(s, y, want);

	d[0] = d[1]; /* y */
	d[1] = sdesc(t, s, (void **)&dy);
	d[2] = sdesc(t, s, (void **)&dx);
	frand_fill(dy, n, seed + 1, -1, 1);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, d, 3, p, 2);
	for (r = 0; r < rows; r++)
		ref_bwd(s, r, y + r * s->tk, dy + r * s->tk, scale,
			want + r * s->tk);
	check_rows(s, dx, want);
	free(want);
}

static void test_causal_shapes(void **state)
{
	static const struct shape shapes[] = {
		{ 13, 13, 3, 0 },		    /* training: square, odd */
		{ 1, 1, 1, 0 },			    /* one key */
		{ 17, 1, 2, 0 },		    /* decode: first token */
		{ 17, 1, 2, 5 },  { 17, 1, 2, 16 }, /* last slot of the cache */
		{ 9, 3, 2, 4 },	 /* a few queries at an offset */
		{ 9, 3, 2, 6 },	 /* ending at the last key */
		{ 33, 7, 5, 0 }, /* more keys than queries, offset 0 */
	};
	unsigned int i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		run_shape(*state, &shapes[i], i % 2 ? 0.125f : 1.0f, 10 + i);
}

/* [3][2][5][5]: rank 4, every row's query from dimension 1 */
static void test_causal_rank4(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[4] = { 5, 5, 2, 3 }, p[2] = { fbits(0.5f), 0 };
	struct shape s = { 5, 5, 6, 0 };
	struct hpu_tpc_tensor d[2];
	double want[150];
	float *x, *y;
	uint64_t r;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 4, sz, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 4, sz, (void **)&y);
	frand_fill(x, 150, 5, -3, 3);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	for (r = 0; r < 30; r++)
		ref_fwd(&s, r, x + r * 5, 0.5f, want + r * 5);
	check_rows(&s, y, want);
}

/*
 * Masked scores are never read: NaN and Inf there change no bit. NaN in
 * the visible part makes its row NaN (visible part; masked still 0), a
 * +Inf score makes it NaN as in softmax, -Inf scores get weight 0.
 */
static void test_causal_nan_inf(void **state)
{
	struct tfix *t = *state;
	struct shape s = { 8, 4, 1, 2 };
	uint32_t p[2] = { fbits(1.0f), 2 }, i;
	struct hpu_tpc_tensor d[2];
	float *x, *y, ref[32];
	double want[8];

	treset(t);
	d[0] = sdesc(t, &s, (void **)&x);
	d[1] = sdesc(t, &s, (void **)&y);
	frand_fill(x, 32, 3, -2, 2);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	memcpy(ref, y, sizeof(ref));
	/* row 0 sees keys 0..2: poison 3..7; row 2 sees 0..4: poison 5..7 */
	for (i = 3; i < 8; i++)
		x[i] = i % 2 ? NAN : INFINITY;
	for (i = 5; i < 8; i++)
		x[16 + i] = -NAN;
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	assert_memory_equal(y, ref, sizeof(ref));

	x[8 + 1] = NAN;	      /* row 1 (keys 0..3) */
	x[16 + 4] = INFINITY; /* row 2 (keys 0..4) */
	x[24 + 0] = -INFINITY;
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	assert_memory_equal(y, ref, 8 * sizeof(float)); /* row 0 intact */
	for (i = 0; i < 8; i++) {
		assert_true(i < 4 ? isnan(y[8 + i]) : fbits(y[8 + i]) == 0);
		assert_true(i < 5 ? isnan(y[16 + i]) : fbits(y[16 + i]) == 0);
	}
	assert_true(fbits(y[24]) == 0); /* e^-inf */
	ref_fwd(&s, 3, x + 24, 1.0f, want);
	for (i = 1; i < 8; i++)
		assert_close(y[24 + i], want[i], 1e-5, 1e-5);
}

/*
 * Strided scores (a transposed view: keys along the outer stride) give
 * the bits of the packed ones; in place (y over x, dx over dy) too
 */
static void test_causal_strided_inplace(void **state)
{
	struct tfix *t = *state;
	struct shape s = { 6, 6, 2, 0 };
	uint32_t p[2] = { fbits(0.3f), 0 }, i, q, b;
	struct hpu_tpc_tensor d[3], dv[3];
	float *x, *xt, *y, *y2, *dy, *dx;

	treset(t);
	d[0] = sdesc(t, &s, (void **)&x);
	d[1] = sdesc(t, &s, (void **)&y);
	frand_fill(x, 72, 21, -3, 3);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	/* the same scores stored [b][key][query] */
	dv[0] = sdesc(t, &s, (void **)&xt);
	dv[0].strides[0] = 6;
	dv[0].strides[1] = 1;
	for (b = 0; b < 2; b++)
		for (q = 0; q < 6; q++)
			for (i = 0; i < 6; i++)
				xt[b * 36 + i * 6 + q] = x[b * 36 + q * 6 + i];
	dv[1] = sdesc(t, &s, (void **)&y2);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, dv, 2, p, 2);
	assert_memory_equal(y, y2, 72 * sizeof(float));
	/* in place */
	dv[0] = d[0];
	dv[1] = d[0];
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, dv, 2, p, 2);
	assert_memory_equal(x, y, 72 * sizeof(float));

	d[0] = d[1];
	d[1] = sdesc(t, &s, (void **)&dy);
	d[2] = sdesc(t, &s, (void **)&dx);
	frand_fill(dy, 72, 22, -1, 1);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, d, 3, p, 2);
	d[2] = d[1]; /* dx over dy */
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, d, 3, p, 2);
	assert_memory_equal(dy, dx, 72 * sizeof(float));
}

/*
 * Above the slicing threshold the device spreads rows over its workers:
 * the bits equal one thread's (the host entry) and a second run's
 */
static void test_causal_slices_bits(void **state)
{
	struct tfix *t = *state;
	struct shape s = { 128, 128, 20, 0 }; /* 327680 elements */
	uint64_t n = 128ULL * 128 * 20, bytes = n * sizeof(float);
	uint32_t p[2] = { fbits(0.125f), 0 };
	struct hpu_tpc_tensor d[3], h[3];
	float *x, *y, *dy, *dx, *hy, *hdx;
	unsigned int i;

	treset(t);
	d[0] = sdesc(t, &s, (void **)&x);
	d[1] = sdesc(t, &s, (void **)&y);
	frand_fill(x, n, 31, -8, 8);
	hy = malloc(bytes);
	hdx = malloc(bytes);
	assert_non_null(hy);
	assert_non_null(hdx);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL, d, 2, p, 2);
	for (i = 0; i < 2; i++) {
		h[i] = d[i];
		h[i].addr = i ? (uintptr_t)hy : (uintptr_t)x;
	}
	assert_int_equal(
		hputpc_exec_host(HPU_TPC_KERNEL_SOFTMAX_CAUSAL, h, 2, p, 2), 0);
	assert_memory_equal(y, hy, bytes);

	d[0] = d[1];
	d[1] = sdesc(t, &s, (void **)&dy);
	d[2] = sdesc(t, &s, (void **)&dx);
	frand_fill(dy, n, 32, -1, 1);
	krun(t, HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, d, 3, p, 2);
	for (i = 0; i < 3; i++)
		h[i] = d[i];
	h[0].addr = (uintptr_t)y;
	h[1].addr = (uintptr_t)dy;
	h[2].addr = (uintptr_t)hdx;
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD, h,
					  3, p, 2),
			 0);
	assert_memory_equal(dx, hdx, bytes);
	free(hy);
	free(hdx);
}

static int validate(const struct hpu_pkt_tpc_kernel *k)
{
	return hfd_packets_validate(k, sizeof(*k), HFD_QUEUE_TPC, NULL);
}

/* A valid forward (bwd: a third tensor) of [2][3][9], offset 6 */
static void good(struct hpu_pkt_tpc_kernel *k, bool bwd)
{
	uint32_t sz[3] = { 9, 3, 2 }, p[2] = { fbits(0.25f), 6 };
	struct hpu_tpc_tensor d[3];

	d[0] = tens(0x1000, HPU_DTYPE_FP32, 3, sz);
	d[1] = tens(0x2000, HPU_DTYPE_FP32, 3, sz);
	d[2] = tens(0x3000, HPU_DTYPE_FP32, 3, sz);
	tpc_pkt(k,
		bwd ? HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD :
		      HPU_TPC_KERNEL_SOFTMAX_CAUSAL,
		d, bwd ? 3 : 2, p, 2);
}

static void test_causal_rules(void **state)
{
	struct hpu_pkt_tpc_kernel k;
	bool bwd;

	(void)state;
	for (bwd = false;; bwd = true) {
		good(&k, bwd);
		assert_int_equal(hputpc_check(&k), 0);
		assert_int_equal(validate(&k), 0);
#define BAD(stmt)                                            \
	do {                                                 \
		good(&k, bwd);                               \
		stmt;                                        \
		assert_int_equal(hputpc_check(&k), -EINVAL); \
		assert_int_equal(validate(&k), -EINVAL);     \
	} while (0)
		BAD(k.params[1] = 7);	       /* offset + Tq > Tk */
		BAD(k.params[1] = 0xffffffff); /* no wrap */
		BAD(k.params[0] = 0);	       /* scale 0 */
		BAD(k.params[0] = fbits(-1.0f));
		BAD(k.params[0] = fbits(NAN));
		BAD(k.params[0] = fbits(INFINITY));
		BAD(k.params[2] = 1); /* unused parameter */
		BAD(k.tensors[1].dtype = HPU_DTYPE_BF16);
		BAD(k.tensors[0].dtype = HPU_DTYPE_INT32);
		BAD(k.tensors[1].sizes[2] = 3);	 /* shapes differ */
		BAD(k.tensors[1].sizes[0] = 10); /* keys differ */
		BAD(k.num_tensors += 1);
		BAD(k.num_tensors -= 1);
		/* rank 1: no query dimension */
		BAD(k.tensors[0].ndims = 1; k.tensors[0].sizes[1] = 0;
		    k.tensors[0].sizes[2] = 0; k.tensors[0].strides[1] = 0;
		    k.tensors[0].strides[2] = 0; k.tensors[1] = k.tensors[0];
		    k.tensors[1].addr = 0x2000; k.params[1] = 0; if (bwd) {
			    k.tensors[2] = k.tensors[0];
			    k.tensors[2].addr = 0x3000;
		    });
#undef BAD
		if (bwd)
			break;
	}
	/* a zero-size batch passes and does nothing */
	good(&k, false);
	k.tensors[0].sizes[2] = 0;
	k.tensors[1].sizes[2] = 0;
	assert_int_equal(validate(&k), 0);
	assert_string_equal(hputpc_kernel_name(HPU_TPC_KERNEL_SOFTMAX_CAUSAL),
			    "softmax_causal");
	assert_string_equal(
		hputpc_kernel_name(HPU_TPC_KERNEL_SOFTMAX_CAUSAL_BWD),
		"softmax_causal_bwd");
}

/*
 * [2][3][5] rows stored at slots 4..6 of a [2][8][5] cache, fp32 and
 * bf16, then a strided source; every other slot keeps its sentinel
 */
static void test_kv_write(void **state)
{
	struct tfix *t = *state;
	uint32_t ss[3] = { 5, 3, 2 }, cs[3] = { 5, 8, 2 }, pos = 4, dt, b, r, e;
	struct hpu_tpc_tensor d[2];
	uint8_t *src, *cache;

	for (dt = 0; dt < 2; dt++) {
		uint32_t dtype = dt ? HPU_DTYPE_BF16 : HPU_DTYPE_FP32;
		size_t es = dt ? 2 : 4;

		treset(t);
		d[0] = tnew(t, dtype, 3, ss, (void **)&src);
		d[1] = tnew(t, dtype, 3, cs, (void **)&cache);
		for (e = 0; e < 30 * es; e++)
			src[e] = (uint8_t)(e * 7 + 1);
		memset(cache, 0xa5, 80 * es);
		krun(t, HPU_TPC_KERNEL_KV_CACHE_WRITE, d, 2, &pos, 1);
		for (b = 0; b < 2; b++)
			for (r = 0; r < 8; r++) {
				uint8_t *row = cache + (b * 8 + r) * 5 * es;

				if (r >= 4 && r < 7) {
					assert_memory_equal(
						row,
						src + (b * 3 + r - 4) * 5 * es,
						5 * es);
					continue;
				}
				for (e = 0; e < 5 * es; e++)
					assert_int_equal(row[e], 0xa5);
			}
	}
	/* a source read with strides: key d of row q at q + 3 d */
	{
		uint32_t s2[3] = { 5, 3, 1 }, c2[3] = { 5, 8, 1 }, q;
		float *fs, *fc;

		treset(t);
		d[0] = tnew(t, HPU_DTYPE_FP32, 3, s2, (void **)&fs);
		d[0].strides[0] = 3;
		d[0].strides[1] = 1;
		d[1] = tnew(t, HPU_DTYPE_FP32, 3, c2, (void **)&fc);
		frand_fill(fs, 15, 90, -1, 1);
		memset(fc, 0, 40 * sizeof(float));
		pos = 5;
		krun(t, HPU_TPC_KERNEL_KV_CACHE_WRITE, d, 2, &pos, 1);
		for (q = 0; q < 3; q++)
			for (e = 0; e < 5; e++)
				assert_true(fc[(5 + q) * 5 + e] ==
					    fs[q + 3 * e]);
	}
}

/* A valid write of [2][1][4] at slot 6 of [2][7][4] */
static void good_kv(struct hpu_pkt_tpc_kernel *k)
{
	uint32_t ss[3] = { 4, 1, 2 }, cs[3] = { 4, 7, 2 }, pos = 6;
	struct hpu_tpc_tensor d[2];

	d[0] = tens(0x1000, HPU_DTYPE_FP32, 3, ss);
	d[1] = tens(0x2000, HPU_DTYPE_FP32, 3, cs);
	tpc_pkt(k, HPU_TPC_KERNEL_KV_CACHE_WRITE, d, 2, &pos, 1);
}

static void test_kv_write_rules(void **state)
{
	struct hpu_pkt_tpc_kernel k;

	(void)state;
	good_kv(&k);
	assert_int_equal(validate(&k), 0);
#define BAD(stmt)                                            \
	do {                                                 \
		good_kv(&k);                                 \
		stmt;                                        \
		assert_int_equal(hputpc_check(&k), -EINVAL); \
		assert_int_equal(validate(&k), -EINVAL);     \
	} while (0)
	BAD(k.params[0] = 7); /* past the last slot */
	BAD(k.params[0] = 0xffffffff);
	BAD(k.params[1] = 1);
	BAD(k.tensors[1].dtype = HPU_DTYPE_BF16);
	BAD(k.tensors[0].dtype = HPU_DTYPE_INT32;
	    k.tensors[1].dtype = HPU_DTYPE_INT32);
	BAD(k.tensors[1].sizes[0] = 5);	     /* D differs */
	BAD(k.tensors[1].sizes[2] = 3);	     /* batch differs */
	BAD(k.tensors[1].addr = 0x1000 - 8); /* overlaps the source */
	BAD(k.num_tensors = 1);
#undef BAD
	assert_string_equal(hputpc_kernel_name(HPU_TPC_KERNEL_KV_CACHE_WRITE),
			    "kv_cache_write");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causal_shapes),
		cmocka_unit_test(test_causal_rank4),
		cmocka_unit_test(test_causal_nan_inf),
		cmocka_unit_test(test_causal_strided_inplace),
		cmocka_unit_test(test_causal_slices_bits),
		cmocka_unit_test(test_causal_rules),
		cmocka_unit_test(test_kv_write),
		cmocka_unit_test(test_kv_write_rules),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
