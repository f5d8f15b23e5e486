// SPDX-License-Identifier: MIT
/*
 * test_tpc_elementwise.c - the elementwise TPC kernels (fill, copy, cast,
 * arithmetic with broadcasting, activations and their backward kernels,
 * bias add and bias_gelu, transpose, dropout) against C references, run
 * through the model (libhpusim) on a TPC queue.
 *
 * Tolerances: exact for fill/copy/cast/transpose/relu and the fp32
 * arithmetic (the same single fp32 operation); transcendental fp32
 * kernels 1e-6 absolute + 1e-6 relative against a double reference;
 * bf16 results are compared with the fp32 result rounded to bf16.
 */
#include <float.h>

#include "test_tpc_util.h"

#define NSPECIAL 11

/* bf16 reference rounding: nearest, ties to even, written independently */
static uint16_t ref_bf16(float f)
{
	uint32_t u, lo, rem;

	memcpy(&u, &f, sizeof(u));
	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40);
	lo = u >> 16;
	rem = u & 0xffff;
	if (rem > 0x8000 || (rem == 0x8000 && (lo & 1)))
		lo++;
	return (uint16_t)lo;
}

static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void test_fill_copy(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 5, 3 }, big[2] = { 9, 3 };
	struct hpu_tpc_tensor d[2];
	float *a, *b;
	uint16_t *h;
	uint32_t p = fbits(1.5f), i, j;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&a);
	krun(t, HPU_TPC_KERNEL_FILL, d, 1, &p, 1);
	for (i = 0; i < 15; i++)
		assert_true(a[i] == 1.5f);
	d[0] = tnew(t, HPU_DTYPE_BF16, 2, sz, (void **)&h);
	krun(t, HPU_TPC_KERNEL_FILL, d, 1, &p, 1);
	assert_int_equal(h[14], 0x3fc0);
	/* strided copy: a 5x3 window of a 9x3 buffer, into a contiguous one */
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, big, (void **)&a);
	d[0].sizes[0] = 5;
	frand_fill(a, 27, 7, -1, 1);
	d[1] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&b);
	krun(t, HPU_TPC_KERNEL_COPY, d, 2, NULL, 0);
	for (j = 0; j < 3; j++)
		for (i = 0; i < 5; i++)
			assert_true(b[j * 5 + i] == a[j * 9 + i]);
}

static void test_cast(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 1000, i;
	struct hpu_tpc_tensor d[2];
	float *f, *g;
	uint16_t *h;
	int32_t *k;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&f);
	for (i = 0; i < n; i++) {
		uint32_t s = i * 2654435761u;

		memcpy(&f[i], &s, 4); /* every bit pattern class */
	}
	f[0] = NAN;
	f[1] = INFINITY;
	f[2] = -0.0f;
	f[3] = 1.00390625f; /* a tie: 1 + 2^-8, rounds to even (1.0) */
	d[1] = tnew(t, HPU_DTYPE_BF16, 1, &n, (void **)&h);
	krun(t, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
	for (i = 0; i < n; i++) {
		if (isnan(f[i]))
			assert_true(isnan(bf2f(h[i])));
		else
			assert_int_equal(h[i], ref_bf16(f[i]));
	}
	assert_int_equal(h[3], 0x3f80);
	/* bf16 -> fp32 is exact */
	d[0] = d[1];
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
	krun(t, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
	for (i = 4; i < n; i++)
		assert_true(memcmp(&g[i], &(float){ bf2f(h[i]) }, 4) == 0);
	/* fp32 -> int32: nearest even, saturating, NaN -> 0; and back */
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&f);
	frand_fill(f, n, 3, -1e4f, 1e4f);
	f[0] = 2.5f;
	f[1] = -3.5f;
	f[2] = 1e20f;
	f[3] = NAN;
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&k);
	krun(t, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
	assert_int_equal(k[0], 2);
	assert_int_equal(k[1], -4);
	assert_int_equal(k[2], INT32_MAX);
	assert_int_equal(k[3], 0);
	for (i = 4; i < n; i++)
		assert_int_equal(k[i], (int32_t)nearbyint(f[i]));
	d[0] = d[1];
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
	krun(t, HPU_TPC_KERNEL_CAST, d, 2, NULL, 0);
	for (i = 0; i < n; i++)
		assert_true(g[i] == (float)k[i]);
}

/* Reference of one binary kernel */
static float ref_bin(uint32_t id, float a, float b, float alpha)
{
	switch (id) {
	case HPU_TPC_KERNEL_ADD:
		return a + b;
	case HPU_TPC_KERNEL_SUB:
		return a - b;
	case HPU_TPC_KERNEL_MUL:
		return a * b;
	case HPU_TPC_KERNEL_DIV:
		return a / b;
	default:
		return alpha * a + b;
	}
}

/*
 * out [7][5][3] (sizes 3,5,7) = a op b for several broadcast shapes of b:
 * full, rank 1 [3], [1][5][1], a scalar, and an explicit stride-0 dim
 */
static void test_binary_broadcast(void **state)
{
	static const uint32_t ids[] = { HPU_TPC_KERNEL_ADD, HPU_TPC_KERNEL_SUB,
					HPU_TPC_KERNEL_MUL, HPU_TPC_KERNEL_DIV,
					HPU_TPC_KERNEL_AXPY };
	uint32_t full[3] = { 3, 5, 7 }, b1[1] = { 3 }, b2[3] = { 1, 5, 1 };
	struct tfix *t = *state;
	unsigned int v, k, i, j, l;

	for (v = 0; v < 5; v++) {
		struct hpu_tpc_tensor d[3];
		float *a, *b, *o;
		uint32_t p = fbits(-0.75f);

		treset(t);
		d[0] = tnew(t, HPU_DTYPE_FP32, 3, full, (void **)&a);
		frand_fill(a, 105, 11 + v, -4, 4);
		if (v == 0)
			d[1] = tnew(t, HPU_DTYPE_FP32, 3, full, (void **)&b);
		else if (v == 1)
			d[1] = tnew(t, HPU_DTYPE_FP32, 1, b1, (void **)&b);
		else if (v == 2)
			d[1] = tnew(t, HPU_DTYPE_FP32, 3, b2, (void **)&b);
		else
			d[1] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&b);
		if (v == 4) { /* [7][5][3] with strides 0, 0, 0 */
			d[1].ndims = 3;
			memcpy(d[1].sizes, full, sizeof(full));
		}
		frand_fill(b, 105, 99 + v, 0.5f, 3);
		d[2] = tnew(t, HPU_DTYPE_FP32, 3, full, (void **)&o);
		for (k = 0; k < 5; k++) {
			krun(t, ids[k], d, 3, &p,
			     ids[k] == HPU_TPC_KERNEL_AXPY);
			for (l = 0; l < 7; l++)
				for (j = 0; j < 5; j++)
					for (i = 0; i < 3; i++) {
						uint32_t e =
							(l * 5 + j) * 3 + i;
						uint32_t be = v == 0 ? e :
							      v == 1 ? i :
							      v == 2 ? j :
								       0;

						assert_true(o[e] ==
							    ref_bin(ids[k],
								    a[e], b[be],
								    -0.75f));
					}
		}
	}
}

static double ref_act(uint32_t id, double x, double y)
{
	const double k = sqrt(2.0 / M_PI), c = 0.044715;
	double u, th;

	switch (id) {
	case HPU_TPC_KERNEL_RELU:
		return isnan(x) ? x : x > 0 ? x : 0;
	case HPU_TPC_KERNEL_RELU_BWD:
		return isnan(x) ? x : x > 0 ? y : 0;
	case HPU_TPC_KERNEL_GELU:
		if (isinf(x))
			return x > 0 ? x : 0;
		return 0.5 * x * (1 + tanh(k * (x + c * x * x * x)));
	case HPU_TPC_KERNEL_GELU_BWD:
		if (isinf(x))
			return x > 0 ? y : 0;
		u = k * (x + c * x * x * x);
		th = tanh(u);
		return y * (0.5 * (1 + th) +
			    0.5 * x * (1 - th * th) * k * (1 + 3 * c * x * x));
	case HPU_TPC_KERNEL_TANH:
		return tanh(x);
	case HPU_TPC_KERNEL_TANH_BWD:
		return y * (1 - x * x);
	case HPU_TPC_KERNEL_SIGMOID:
		return 1 / (1 + exp(-x));
	case HPU_TPC_KERNEL_SIGMOID_BWD:
		return y * x * (1 - x);
	case HPU_TPC_KERNEL_EXP:
		return exp(x);
	default:
		return log(x);
	}
}

/* Every activation on odd-sized fp32 input with NaN/Inf; bf16 too */
static void test_activations(void **state)
{
	static const uint32_t ids[] = {
		HPU_TPC_KERNEL_RELU,	HPU_TPC_KERNEL_RELU_BWD,
		HPU_TPC_KERNEL_GELU,	HPU_TPC_KERNEL_GELU_BWD,
		HPU_TPC_KERNEL_TANH,	HPU_TPC_KERNEL_TANH_BWD,
		HPU_TPC_KERNEL_SIGMOID, HPU_TPC_KERNEL_SIGMOID_BWD,
		HPU_TPC_KERNEL_EXP,	HPU_TPC_KERNEL_LOG,
	};
	struct tfix *t = *state;
	uint32_t n = 1031, k, i;
	struct hpu_tpc_tensor d[3], hb[3];
	float *x, *y, *o;
	uint16_t *hx, *hy, *ho;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&y);
	hb[0] = tnew(t, HPU_DTYPE_BF16, 1, &n, (void **)&hx);
	hb[1] = tnew(t, HPU_DTYPE_BF16, 1, &n, (void **)&hy);
	hb[2] = tnew(t, HPU_DTYPE_BF16, 1, &n, (void **)&ho);
	frand_fill(x, n, 5, -6, 6);
	frand_fill(y, n, 6, -2, 2);
	x[0] = NAN;
	x[1] = INFINITY;
	x[2] = -INFINITY;
	x[3] = 0.0f;
	for (i = 0; i < n; i++) {
		hx[i] = ref_bf16(x[i]);
		hy[i] = ref_bf16(y[i]);
	}
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&o);
	for (k = 0; k < 10; k++) {
		bool bwd = k % 2 && k < 8;
		uint32_t id = ids[k];
		struct hpu_tpc_tensor u[2] = { d[0], d[2] };

		if (bwd)
			krun(t, id, d, 3, NULL, 0);
		else
			krun(t, id, u, 2, NULL, 0);
		for (i = 0; i < n; i++) {
			double want = ref_act(id, x[i], y[i]);

			if ((id == HPU_TPC_KERNEL_TANH_BWD ||
			     id == HPU_TPC_KERNEL_SIGMOID_BWD) &&
			    isinf(x[i]))
				continue; /* inf * 0 forms: NaN both ways */
			assert_close(o[i], want, 1e-6, 1e-6);
		}
		/* bf16 in and out: the fp32 result of the bf16 inputs, rounded */
		u[0] = hb[0];
		u[1] = hb[2];
		if (bwd) {
			struct hpu_tpc_tensor w[3] = { hb[0], hb[1], hb[2] };

			krun(t, id, w, 3, NULL, 0);
		} else {
			krun(t, id, u, 2, NULL, 0);
		}
		for (i = 4; i < n; i++) {
			double want = ref_act(id, bf2f(hx[i]), bf2f(hy[i]));

			/* within one bf16 ulp of the rounded reference */
			assert_close(bf2f(ho[i]), want, 1e-6, 1.0 / 128);
		}
	}
}

static void test_bias_add_scale(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 13, 9 }, c = 13, i, r;
	struct hpu_tpc_tensor d[3];
	float *x, *b, *o, p = 2.5f;
	uint32_t pb = fbits(p);

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &c, (void **)&b);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o);
	frand_fill(x, 117, 1, -1, 1);
	frand_fill(b, 13, 2, -1, 1);
	krun(t, HPU_TPC_KERNEL_BIAS_ADD, d, 3, NULL, 0);
	for (r = 0; r < 9; r++)
		for (i = 0; i < 13; i++)
			assert_true(o[r * 13 + i] == x[r * 13 + i] + b[i]);
	d[1] = d[2];
	krun(t, HPU_TPC_KERNEL_SCALE, d, 2, &pb, 1);
	for (i = 0; i < 117; i++)
		assert_true(o[i] == p * x[i]);
	/* in place: out is the input */
	d[1] = d[0];
	krun(t, HPU_TPC_KERNEL_SCALE, d, 2, &pb, 1);
	for (i = 0; i < 117; i++)
		assert_true(o[i] == x[i]);
}

/*
 * bias_gelu: the bits of bias_add then gelu (rows of no multiple of a
 * block, -0 and a huge input, in place); the operand rule of bias_add
 */
static void test_bias_gelu(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 37, 7 }, c = 37, i;
	struct hpu_tpc_tensor d[3], s[3], bad[3];
	float *x, *b, *o, *t1, *o2;
	struct hpu_pkt_tpc_kernel k;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &c, (void **)&b);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o);
	frand_fill(x, 259, 5, -6, 6);
	frand_fill(b, 37, 6, -2, 2);
	x[3] = -0.0f;
	b[3] = -0.0f;
	x[40] = 1e30f;
	krun(t, HPU_TPC_KERNEL_BIAS_GELU, d, 3, NULL, 0);
	s[0] = d[0];
	s[1] = d[1];
	s[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&t1);
	krun(t, HPU_TPC_KERNEL_BIAS_ADD, s, 3, NULL, 0);
	s[0] = s[2];
	s[1] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o2);
	krun(t, HPU_TPC_KERNEL_GELU, s, 2, NULL, 0);
	assert_memory_equal(o, o2, 259 * sizeof(float));
	for (i = 0; i < 259; i++)
		assert_close(o[i], ref_act(HPU_TPC_KERNEL_GELU, t1[i], 0), 1e-6,
			     1e-6);
	/* in place */
	d[2] = d[0];
	krun(t, HPU_TPC_KERNEL_BIAS_GELU, d, 3, NULL, 0);
	assert_memory_equal(x, o2, 259 * sizeof(float));
	/* a bias of another size, an output of another shape */
	memcpy(bad, d, sizeof(bad));
	bad[1].sizes[0] = 36;
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_GELU, bad, 3, NULL, 0);
	assert_int_equal(hputpc_check(&k), -EINVAL);
	memcpy(bad, d, sizeof(bad));
	bad[2].sizes[1] = 6;
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_GELU, bad, 3, NULL, 0);
	assert_int_equal(hputpc_check(&k), -EINVAL);
}

static void test_transpose(void **state)
{
	struct tfix *t = *state;
	uint32_t s[2] = { 37, 45 }, st[2] = { 45, 37 }, r, c;
	struct hpu_tpc_tensor d[2];
	float *a, *b;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, s, (void **)&a);
	d[1] = tnew(t, HPU_DTYPE_FP32, 2, st, (void **)&b);
	frand_fill(a, 37 * 45, 9, -1, 1);
	krun(t, HPU_TPC_KERNEL_TRANSPOSE, d, 2, NULL, 0);
	for (r = 0; r < 45; r++)
		for (c = 0; c < 37; c++)
			assert_true(b[c * 45 + r] == a[r * 37 + c]);
}

static void test_dropout(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 100000, i, kept = 0;
	uint32_t p[3] = { fbits(0.25f), 1234, 0 };
	struct hpu_tpc_tensor d[3];
	float *x, *y, *m, *m2;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&y);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&m);
	frand_fill(x, n, 4, -1, 1);
	krun(t, HPU_TPC_KERNEL_DROPOUT, d, 3, p, 3);
	for (i = 0; i < n; i++) {
		assert_true(m[i] == 0.0f || m[i] == 1.0f / 0.75f);
		assert_true(y[i] == x[i] * m[i]);
		kept += m[i] != 0.0f;
	}
	/* 75000 expected; 6 sigma is ~820 */
	assert_true(kept > 74000 && kept < 76000);
	/* same seed: the same mask; another seed: another mask */
	m2 = (float *)(void *)hpu_test_xmalloc(n * 4ULL);
	memcpy(m2, m, n * 4ULL);
	krun(t, HPU_TPC_KERNEL_DROPOUT, d, 3, p, 3);
	assert_memory_equal(m, m2, n * 4ULL);
	p[2] = 1;
	krun(t, HPU_TPC_KERNEL_DROPOUT, d, 3, p, 3);
	assert_memory_not_equal(m, m2, n * 4ULL);
	free(m2);
}

/* Zero-size tensors are a no-op; nothing is written */
static void test_zero_size(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 0, 4 };
	struct hpu_tpc_tensor d[3];
	float *a;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&a);
	d[1] = d[0];
	d[2] = d[0];
	d[2].addr = 0; /* never translated */
	a[0] = 42.0f;
	krun(t, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
	krun(t, HPU_TPC_KERNEL_RELU, d, 2, NULL, 0);
	assert_true(a[0] == 42.0f);
}

/* Double references of GELU and its derivative without cancellation */
static double ref_gelu_s(double x, double *q)
{
	const double k = sqrt(2.0 / M_PI), c = 0.044715;
	double u = k * (x + c * x * x * x);

	*q = 1 / (1 + exp(2 * u));
	return 1 / (1 + exp(-2 * u));
}

static double ref_gelu(double x)
{
	double q, s = ref_gelu_s(x, &q);

	return isinf(x) ? (x > 0 ? x : 0) : x * s;
}

static double ref_gelu_grad(double x)
{
	const double k = sqrt(2.0 / M_PI), c = 0.044715;
	double q, s = ref_gelu_s(x, &q);

	if (isinf(x) || s * q == 0)
		return isinf(x) ? (x > 0 ? 1 : 0) : s;
	return s + 2 * k * x * s * q * (1 + 3 * c * x * x);
}

/*
 * GELU and GELU_BWD (dy = 1) without libm's tanhf (docs/tpc-kernels.md):
 * every 2^-12 step in [-40, 40] and large |x| up to FLT_MAX against a
 * double reference: max abs error <= 1e-6 for both, max rel error of
 * GELU <= 2e-5 for |x| <= 8 (the float rounding of u = K (x + C x^3)
 * dominates); 0, -0, NaN, +-Inf, huge |x| exactly as documented
 */
static void test_gelu_accuracy(void **state)
{
	static const float sp[] = { 0.0f,      -0.0f,  NAN,    INFINITY,
				    -INFINITY, 1e20f,  -1e20f, FLT_MAX,
				    -FLT_MAX,  1e-40f, -1e-40f };
	static const float sp_gelu[] = { 0.0f,	-0.0f,	  NAN,	    INFINITY,
					 -0.0f, 1e20f,	  -0.0f,    FLT_MAX,
					 -0.0f, 0.5e-40f, -0.5e-40f };
	static const float sp_grad[] = { 0.5f, 0.5f, NAN,  1.0f, 0.0f, 1.0f,
					 0.0f, 1.0f, 0.0f, 0.5f, 0.5f };
	struct tfix *t = *state;
	uint32_t nd = 80 * 4096 + 1, nl = 2 * 64, n, i;
	struct hpu_tpc_tensor d[3];
	float *x, *y, *o, *g;
	double ab[2] = { 0 }, rel = 0, e, want;

	n = nd + nl + NSPECIAL;
	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&y);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
	for (i = 0; i < nd; i++)
		x[i] = -40.0f + (float)i / 4096;
	for (i = 0; i < nl; i++) /* +-40 .. +-1e38 */
		x[nd + i] = (i % 2 ? -1 : 1) * 40.0f * powf(1.6f, (float)i / 2);
	memcpy(x + nd + nl, sp, sizeof(sp));
	for (i = 0; i < n; i++)
		y[i] = 1.0f;
	{
		struct hpu_tpc_tensor u[2] = { d[0], d[1] };

		o = (float *)(void *)hpu_test_xmalloc(n * sizeof(float));
		krun(t, HPU_TPC_KERNEL_GELU, u, 2, NULL, 0);
		memcpy(o, y, n * sizeof(float));
		for (i = 0; i < n; i++)
			y[i] = 1.0f;
		krun(t, HPU_TPC_KERNEL_GELU_BWD, d, 3, NULL, 0);
	}
	for (i = 0; i < nd + nl; i++) {
		want = ref_gelu(x[i]);
		e = fabs(o[i] - want);
		ab[0] = e > ab[0] ? e : ab[0];
		if (fabsf(x[i]) <= 8 && fabs(want) >= FLT_MIN &&
		    e / fabs(want) > rel)
			rel = e / fabs(want);
		e = fabs(g[i] - ref_gelu_grad(x[i]));
		ab[1] = e > ab[1] ? e : ab[1];
	}
	printf("# gelu: max abs %.3g, max rel (|x| <= 8) %.3g; gelu_bwd: max abs %.3g\n",
	       ab[0], rel, ab[1]);
	assert_true(ab[0] <= 1e-6);
	assert_true(rel <= 2e-5);
	assert_true(ab[1] <= 1e-6);
	for (i = 0; i < NSPECIAL; i++) {
		float a = o[nd + nl + i], b = g[nd + nl + i];

		if (isnan(sp[i])) {
			assert_true(isnan(a) && isnan(b));
			continue;
		}
		assert_true(a == sp_gelu[i] || fabsf(a - sp_gelu[i]) < 1e-44f);
		assert_int_equal(!!signbit(a), !!signbit(sp_gelu[i]));
		assert_true(b == sp_grad[i]);
	}
	free(o);
}

/*
 * Big enough to be cut into slices for the worker pool: the same bits as
 * the reference and as a second run
 */
static void test_large_parallel(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 613, 1000 }, c = 613, i;
	struct hpu_tpc_tensor d[3];
	float *a, *b, *o, *o2;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&a);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &c, (void **)&b);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o);
	frand_fill(a, 613000, 12, -3, 3);
	frand_fill(b, 613, 13, -3, 3);
	krun(t, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
	for (i = 0; i < 613000; i++)
		assert_true(o[i] == a[i] + b[i % 613]);
	d[1] = d[2];
	krun(t, HPU_TPC_KERNEL_GELU, d, 2, NULL, 0);
	o2 = (float *)(void *)hpu_test_xmalloc(613000 * 4);
	memcpy(o2, o, 613000 * 4);
	krun(t, HPU_TPC_KERNEL_GELU, d, 2, NULL, 0);
	assert_memory_equal(o, o2, 613000 * 4);
	free(o2);
	/* a sliced cast: every element rounded like the reference */
	{
		struct hpu_tpc_tensor e[2] = { d[0] };
		uint16_t *h;

		e[1] = tnew(t, HPU_DTYPE_BF16, 2, sz, (void **)&h);
		krun(t, HPU_TPC_KERNEL_CAST, e, 2, NULL, 0);
		for (i = 0; i < 613000; i++)
			assert_int_equal(h[i], ref_bf16(a[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_copy),
		cmocka_unit_test(test_cast),
		cmocka_unit_test(test_binary_broadcast),
		cmocka_unit_test(test_activations),
		cmocka_unit_test(test_gelu_accuracy),
		cmocka_unit_test(test_bias_add_scale),
		cmocka_unit_test(test_bias_gelu),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_dropout),
		cmocka_unit_test(test_zero_size),
		cmocka_unit_test(test_large_parallel),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
