// SPDX-License-Identifier: MIT
/*
 * test_tpc_gradnorm.c - the kernels of gradient clipping by global norm
 * (sumsq, clip_grad_norm) run through the model on a TPC queue: the sum
 * of squares of K = 1..7 tensors of odd and strided shapes, set and
 * accumulated (exact: the reference sums in double in the same order and
 * rounds once); the clip coefficient applied or not (exact bits: the
 * same fp32 expression), NaN and Inf norms and gradients; zero-size
 * gradients; and every refusal of the operand rules, in hputpc_check()
 * and in the driver's packet validator.
 */
#include "test_tpc_util.h"
#include "hpu_fused.h"

/* Sum of squares in double, in index order, from @acc */
static double ref_sumsq(const float *x, uint64_t n, double acc)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		acc += (double)x[i] * x[i];
	return acc;
}

static void test_sumsq(void **state)
{
	struct tfix *t = *state;
	static const uint32_t len[7] = { 1, 7, 33, 100, 257, 3, 1000 };
	struct hpu_tpc_tensor d[8];
	uint32_t k, i, acc = HPU_TPC_SUMSQ_ACCUMULATE, set = 0;
	float *x[7], *out, want;
	double sum;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&out);
	for (i = 0; i < 7; i++) {
		d[i + 1] = tnew(t, HPU_DTYPE_FP32, 1, &len[i], (void **)&x[i]);
		frand_fill(x[i], len[i], 40 + i, -3, 3);
	}
	for (k = 1; k <= 7; k++) {
		*out = 123.0f;
		krun(t, HPU_TPC_KERNEL_SUMSQ, d, k + 1, &set, 1);
		for (i = 0, sum = 0; i < k; i++)
			sum = ref_sumsq(x[i], len[i], sum);
		want = (float)sum;
		assert_memory_equal(out, &want, sizeof(want));
		/* accumulated onto the previous value */
		krun(t, HPU_TPC_KERNEL_SUMSQ, d, k + 1, &acc, 1);
		for (i = 0, sum = want; i < k; i++)
			sum = ref_sumsq(x[i], len[i], sum);
		want = (float)sum;
		assert_memory_equal(out, &want, sizeof(want));
	}
}

/* A [5][3] view of every other column of a [5][6] matrix, and rank 3 */
static void test_sumsq_strided(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 6, 5 }, sz3[3] = { 3, 2, 2 }, set = 0, r, c;
	struct hpu_tpc_tensor d[3];
	float *m, *x3, *out, want;
	double sum = 0;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&out);
	d[1] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&m);
	d[1].sizes[0] = 3;
	d[1].strides[0] = 2;
	d[2] = tnew(t, HPU_DTYPE_FP32, 3, sz3, (void **)&x3);
	frand_fill(m, 30, 50, -2, 2);
	frand_fill(x3, 12, 51, -2, 2);
	krun(t, HPU_TPC_KERNEL_SUMSQ, d, 3, &set, 1);
	for (r = 0; r < 5; r++)
		for (c = 0; c < 3; c++)
			sum += (double)m[r * 6 + 2 * c] * m[r * 6 + 2 * c];
	sum = ref_sumsq(x3, 12, sum);
	want = (float)sum;
	assert_memory_equal(out, &want, sizeof(want));
}

static void test_sumsq_nan_inf(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 9, set = 0;
	struct hpu_tpc_tensor d[2];
	float *x, *out;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&out);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&x);
	frand_fill(x, n, 60, -1, 1);
	x[4] = -INFINITY;
	krun(t, HPU_TPC_KERNEL_SUMSQ, d, 2, &set, 1);
	assert_true(isinf(*out) && *out > 0);
	x[7] = NAN;
	krun(t, HPU_TPC_KERNEL_SUMSQ, d, 2, &set, 1);
	assert_true(isnan(*out));
	/* a finite sum whose square overflows fp32 is +Inf, not NaN */
	x[4] = 3e38f;
	x[7] = 3e38f;
	krun(t, HPU_TPC_KERNEL_SUMSQ, d, 2, &set, 1);
	assert_true(isinf(*out) && *out > 0);
}

/* The kernel's coefficient, written as the kernel does it */
static float ref_coef(float sumsq, float max_norm)
{
	float c = max_norm / (sqrtf(sumsq) + 1e-6f);

	return c > 1.0f ? 1.0f : c;
}

/*
 * Three gradients (one strided) scaled by max / norm when the norm is
 * larger; untouched bits when it is not; the norm written either way
 */
static void test_clip(void **state)
{
	struct tfix *t = *state;
	uint32_t len[3] = { 17, 5, 32 }, sz[2] = { 4, 8 }, i, j;
	struct hpu_tpc_tensor d[5];
	float *sq, *norm, *g[3], keep[3][64], c;
	const float maxes[2] = { 0.5f, 1e6f };
	uint32_t p;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&sq);
	d[1] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&norm);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &len[0], (void **)&g[0]);
	d[3] = tnew(t, HPU_DTYPE_FP32, 1, &len[1], (void **)&g[1]);
	/* [8][2]: every other column of [8][4] */
	d[4] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&g[2]);
	d[4].sizes[0] = 2;
	d[4].strides[0] = 2;
	for (j = 0; j < 2; j++) {
		for (i = 0; i < 3; i++) {
			frand_fill(g[i], len[i], 70 + i, -1, 1);
			memcpy(keep[i], g[i], len[i] * sizeof(float));
		}
		*sq = 37.5f;
		p = fbits(maxes[j]);
		krun(t, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, 5, &p, 1);
		assert_true(*norm == sqrtf(37.5f));
		c = ref_coef(37.5f, maxes[j]);
		assert_true(j ? c == 1.0f : c < 1.0f);
		for (i = 0; i < 3; i++)
			for (uint32_t e = 0; e < len[i]; e++) {
				float want = keep[i][e];

				/* g[2]: only the even columns are the tensor */
				if (i < 2 || !(e % 2))
					want *= c;
				assert_memory_equal(&g[i][e], &want,
						    sizeof(want));
			}
	}
}

/*
 * A NaN sum makes every gradient NaN (PyTorch's default); an infinite
 * one zeroes the finite gradients (an infinite gradient becomes NaN)
 */
static void test_clip_nan_inf(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 6, p = fbits(1.0f), i;
	struct hpu_tpc_tensor d[3];
	float *sq, *norm, *g;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&sq);
	d[1] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&norm);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
	frand_fill(g, n, 80, -1, 1);
	*sq = NAN;
	krun(t, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, 3, &p, 1);
	assert_true(isnan(*norm));
	for (i = 0; i < n; i++)
		assert_true(isnan(g[i]));
	frand_fill(g, n, 81, -1, 1);
	g[2] = INFINITY;
	*sq = INFINITY;
	krun(t, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, 3, &p, 1);
	assert_true(isinf(*norm));
	for (i = 0; i < n; i++)
		assert_true(i == 2 ? isnan(g[i]) : g[i] == 0.0f);
	/* a zero-size gradient beside a real one */
	d[2].sizes[0] = 0;
	*sq = 4.0f;
	krun(t, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, 3, &p, 1);
	assert_true(*norm == 2.0f);
}

static int validate(const struct hpu_pkt_tpc_kernel *k)
{
	return hfd_packets_validate(k, sizeof(*k), HFD_QUEUE_TPC, NULL);
}

static void good_sumsq(struct hpu_pkt_tpc_kernel *k)
{
	uint32_t n = 16, p = HPU_TPC_SUMSQ_ACCUMULATE;
	struct hpu_tpc_tensor d[3];

	d[0] = tens(0x1000, HPU_DTYPE_FP32, 0, NULL);
	d[1] = tens(0x2000, HPU_DTYPE_FP32, 1, &n);
	d[2] = tens(0x3000, HPU_DTYPE_FP32, 1, &n);
	tpc_pkt(k, HPU_TPC_KERNEL_SUMSQ, d, 3, &p, 1);
}

static void good_clip(struct hpu_pkt_tpc_kernel *k)
{
	uint32_t n = 16, sz[2] = { 4, 4 }, p = fbits(1.0f);
	struct hpu_tpc_tensor d[4];

	d[0] = tens(0x1000, HPU_DTYPE_FP32, 0, NULL);
	d[1] = tens(0x1004, HPU_DTYPE_FP32, 0, NULL);
	d[2] = tens(0x2000, HPU_DTYPE_FP32, 1, &n);
	d[3] = tens(0x3000, HPU_DTYPE_FP32, 2, sz);
	tpc_pkt(k, HPU_TPC_KERNEL_CLIP_GRAD_NORM, d, 4, &p, 1);
}

#define BAD(make, stmt)                                      \
	do {                                                 \
		make(&k);                                    \
		stmt;                                        \
		assert_int_equal(hputpc_check(&k), -EINVAL); \
		assert_int_equal(validate(&k), -EINVAL);     \
	} while (0)

static void test_rules(void **state)
{
	struct hpu_pkt_tpc_kernel k;

	(void)state;
	good_sumsq(&k);
	assert_int_equal(validate(&k), 0);
	good_clip(&k);
	assert_int_equal(validate(&k), 0);
	/* the sum: a scalar fp32 output apart from the inputs, one flag */
	BAD(good_sumsq, k.tensors[0].ndims = 1; k.tensors[0].sizes[0] = 1;
	    k.tensors[0].strides[0] = 1);
	BAD(good_sumsq, k.tensors[2].dtype = HPU_DTYPE_BF16);
	BAD(good_sumsq, k.tensors[0].dtype = HPU_DTYPE_INT32);
	BAD(good_sumsq, k.tensors[0].addr = 0x2010); /* inside input 0 */
	BAD(good_sumsq, k.params[0] = 2);
	BAD(good_sumsq, k.params[1] = 1);
	BAD(good_sumsq, k.num_tensors = 1);
	BAD(good_sumsq, k.num_tensors = 4);
	/* the clip: max_norm finite > 0, written tensors apart */
	BAD(good_clip, k.params[0] = 0);
	BAD(good_clip, k.params[0] = fbits(-1.0f));
	BAD(good_clip, k.params[0] = fbits(NAN));
	BAD(good_clip, k.params[0] = fbits(INFINITY));
	BAD(good_clip, k.tensors[1].ndims = 1; k.tensors[1].sizes[0] = 1;
	    k.tensors[1].strides[0] = 1);
	BAD(good_clip, k.tensors[0].ndims = 1; k.tensors[0].sizes[0] = 1;
	    k.tensors[0].strides[0] = 1);
	BAD(good_clip, k.tensors[3].dtype = HPU_DTYPE_BF16);
	BAD(good_clip, k.tensors[3].addr = 0x2020);  /* meets gradient 0 */
	BAD(good_clip, k.tensors[2].addr = 0x1004);  /* meets the norm */
	BAD(good_clip, k.tensors[3].strides[1] = 0); /* broadcast: twice */
	BAD(good_clip, k.tensors[3].strides[1] = 2); /* rows overlap */
	BAD(good_clip, k.num_tensors = 2);
	/* the sum of squares may be the norm (read before it is written) */
	good_clip(&k);
	k.tensors[1] = k.tensors[0];
	assert_int_equal(validate(&k), 0);
	/* rows apart in any order: a transposed gradient passes */
	good_clip(&k);
	k.tensors[3].strides[0] = 4;
	k.tensors[3].strides[1] = 1;
	assert_int_equal(validate(&k), 0);
	assert_string_equal(hputpc_kernel_name(HPU_TPC_KERNEL_SUMSQ), "sumsq");
	assert_string_equal(hputpc_kernel_name(HPU_TPC_KERNEL_CLIP_GRAD_NORM),
			    "clip_grad_norm");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sumsq),
		cmocka_unit_test(test_sumsq_strided),
		cmocka_unit_test(test_sumsq_nan_inf),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_clip_nan_inf),
		cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
