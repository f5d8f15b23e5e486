// SPDX-License-Identifier: MIT
/*
 * tpc_elementwise.c - TPC kernels that map elements one to one: fill,
 * copy, cast, the arithmetic and activation kernels (with numpy-style
 * broadcasting of the inputs), transpose and dropout.
 *
 * fp32 and bf16 operands are computed in fp32; a bf16 result is rounded
 * to nearest even. Rows (dimension 0) are processed in chunks, a chunk of
 * a strided or bf16 operand going through a small fp32 buffer.
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_elementwise.
 */
#include <errno.h>
#include <float.h>
#include <math.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

#define CHUNK 512

/* The value of element @i along a row (stride @s) as fp32 */
static float load1(const struct hputpc_operand *t, const uint8_t *row,
		   uint64_t i, uint64_t s)
{
	if (t->dtype == HPU_DTYPE_BF16)
		return hpu_bf16_to_f32(
			((const uint16_t *)(const void *)row)[i * s]);
	if (t->dtype == HPU_DTYPE_INT32)
		return (float)((const int32_t *)(const void *)row)[i * s];
	return ((const float *)(const void *)row)[i * s];
}

static void store1(const struct hputpc_operand *t, uint8_t *row, uint64_t i,
		   uint64_t s, float v)
{
	if (t->dtype == HPU_DTYPE_BF16)
		((uint16_t *)(void *)row)[i * s] = hpu_f32_to_bf16(v);
	else
		((float *)(void *)row)[i * s] = v;
}

static size_t esize(const struct hputpc_operand *t)
{
	return hputpc_dtype_size(t->dtype);
}

static int check_fill(const struct hpu_pkt_tpc_kernel *k)
{
	return 0;
}

static int hputpc_fill(struct hputpc_ctx *c)
{
	const struct hputpc_operand *o = &c->t[0];
	uint64_t r, i, rows = o->n ? o->n / o->sizes[0] : 0;
	uint32_t v = c->params[0];
	uint16_t h = hpu_f32_to_bf16(hputpc_pf(c, 0));

	for (r = 0; r < rows; r++) {
		uint64_t off = hputpc_row_off(o, r);

		for (i = 0; i < o->sizes[0]; i++) {
			uint64_t e = off + i * o->strides[0];

			if (o->dtype == HPU_DTYPE_BF16)
				((uint16_t *)(void *)o->p)[e] = h;
			else
				((uint32_t *)(void *)o->p)[e] = v;
		}
	}
	return 0;
}

static int check_copy(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == T(1)->dtype && hputpc_same_shape(T(0), T(1)) ?
		       0 :
		       -EINVAL;
}

static int hputpc_copy(struct hputpc_ctx *c)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	uint64_t r, i, rows = o->n ? o->n / o->sizes[0] : 0;
	size_t es = esize(o);

	for (r = 0; r < rows; r++) {
		const uint8_t *s = in->p + hputpc_row_off(in, r) * es;
		uint8_t *d = o->p + hputpc_row_off(o, r) * es;

		if (in->strides[0] == 1 && o->strides[0] == 1) {
			memmove(d, s, o->sizes[0] * es);
			continue;
		}
		for (i = 0; i < o->sizes[0]; i++)
			memmove(d + i * o->strides[0] * es,
				s + i * in->strides[0] * es, es);
	}
	return 0;
}

/* fp32 -> int32: round to nearest even, saturate, NaN -> 0 */
static int32_t f2i(float f)
{
	if (isnan(f))
		return 0;
	if (f >= 2147483648.0f)
		return INT32_MAX;
	if (f < -2147483648.0f)
		return INT32_MIN;
	return (int32_t)nearbyintf(f);
}

/* Elements of a row that one unit of a sliced cast converts */
#define CAST_UNIT 16384

/* Convert elements [@i0, @i1) of row @r */
static void cast_range(const struct hputpc_ctx *c, uint64_t r, uint64_t i0,
		       uint64_t i1)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	const uint8_t *s = in->p + hputpc_row_off(in, r) * esize(in);
	uint8_t *d = o->p + hputpc_row_off(o, r) * esize(o);
	uint64_t i;

	if (in->dtype == HPU_DTYPE_FP32 && o->dtype == HPU_DTYPE_BF16 &&
	    in->strides[0] == 1 && o->strides[0] == 1) {
		const float *f = (const float *)(const void *)s;
		uint16_t *h = (uint16_t *)(void *)d;

		for (i = i0; i < i1; i++)
			h[i] = hpu_f32_to_bf16(f[i]);
		return;
	}
	for (i = i0; i < i1; i++) {
		uint64_t si = i * in->strides[0], di = i * o->strides[0];
		float f;

		if (in->dtype == HPU_DTYPE_INT32) {
			/* int32 -> fp32 rounds to nearest even */
			((float *)(void *)d)[di] =
				(float)((const int32_t *)(const void *)s)[si];
			continue;
		}
		f = load1(in, s, i, in->strides[0]);
		if (o->dtype == HPU_DTYPE_INT32)
			((int32_t *)(void *)d)[di] = f2i(f);
		else
			store1(o, d, i, o->strides[0], f);
	}
}

/**
 * struct cast_job - a cast cut into units of CAST_UNIT elements of a row
 * @c: the invocation
 * @per_row: units per row
 * @nunits: units in all
 * @nslices: slices the units are cut into
 */
struct cast_job {
	const struct hputpc_ctx *c;
	uint64_t per_row;
	uint64_t nunits;
	unsigned int nslices;
};

static void cast_slice(void *arg, unsigned int k)
{
	const struct cast_job *j = arg;
	uint64_t u = j->nunits * k / j->nslices;
	uint64_t end = j->nunits * (k + 1) / j->nslices;
	uint64_t len = j->c->t[1].sizes[0];

	for (; u < end; u++) {
		uint64_t i0 = (u % j->per_row) * CAST_UNIT;

		cast_range(j->c, u / j->per_row, i0,
			   len - i0 < CAST_UNIT ? len : i0 + CAST_UNIT);
	}
}

static int check_cast(const struct hpu_pkt_tpc_kernel *k)
{
	uint32_t a = T(0)->dtype, b = T(1)->dtype;

	if (!hputpc_same_shape(T(0), T(1)))
		return -EINVAL;
	if ((a == HPU_DTYPE_FP32 && b != HPU_DTYPE_FP32) ||
	    (b == HPU_DTYPE_FP32 && a != HPU_DTYPE_FP32) || a == b)
		return 0;
	return -EINVAL;
}

static int hputpc_cast(struct hputpc_ctx *c)
{
	const struct hputpc_operand *o = &c->t[1];
	struct cast_job j = { .c = c };

	if (!o->n)
		return 0;
	j.per_row = (o->sizes[0] + CAST_UNIT - 1) / CAST_UNIT;
	j.nunits = o->n / o->sizes[0] * j.per_row;
	hputpc_par_run(c, cast_slice, &j, &j.nslices, o->n);
	return 0;
}

#define GELU_K	   0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_C	   0.044715f
/* 1.5 * 2^23: adding it rounds a float below 2^22 to an integer */
#define GELU_ROUND 12582912.0f

static inline uint32_t f2bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float bits2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * e^v for |v| <= 176 (e^176 overflows a float, e^-176 is 0), NaN stays NaN, without libm so that the
 * block loops vectorize: v = k ln2 + r with k = round(v / ln2) and
 * |r| <= ln2 / 2 (ln2 in two parts, k ln2_hi exact), e^r by its
 * degree-7 Taylor polynomial (truncation below 5.3e-9 relative), 2^k as
 * 2^(k/2) 2^(k - k/2) so that the result over- and underflows as the
 * true one does. Integer arithmetic on the bits only: no conversion of a
 * NaN to an integer. Relative error a few ulp (docs/tpc-kernels.md).
 */
static inline float gelu_exp(float v)
{
	float t = v * 1.44269504f + GELU_ROUND;
	float kf = t - GELU_ROUND;
	float r = v - kf * 0.693145751953125f - kf * 1.42860682e-6f;
	uint32_t k = f2bits(t) - f2bits(GELU_ROUND);
	uint32_t k1 = (uint32_t)((int32_t)k >> 1), k2 = k - k1;
	float p;

	p = 1.0f / 5040;
	p = p * r + 1.0f / 720;
	p = p * r + 1.0f / 120;
	p = p * r + 1.0f / 24;
	p = p * r + 1.0f / 6;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	return p * bits2f((k1 + 127) << 23) * bits2f((k2 + 127) << 23);
}

/*
 * v with its magnitude at most that of the float whose bits are @lim
 * (positive, finite), NaN unchanged. On the bits, not with a float
 * select: GCC threads a float clamp to a constant into the code after it
 * (which it can fold there) and the loop no longer vectorizes.
 */
static inline float clamp_abs(float v, uint32_t lim)
{
	uint32_t b = f2bits(v), a = b & 0x7fffffffU;

	a = a > lim && a <= 0x7f800000U ? lim : a;
	return bits2f(a | (b & 0x80000000U));
}

/* f2bits(176.0f), f2bits(1e4f) */
#define GELU_EXP_LIM_BITS 0x43300000U
#define GELU_X_LIM_BITS	  0x461c4000U

/*
 * e^-2u of GELU's tanh argument u = K (x + C x^3): with it
 * 0.5 (1 + tanh(u)) = 1 / (1 + e^-2u), so neither GELU nor its
 * derivative subtracts nearly equal numbers (tanhf's 1 + t did for
 * x << 0). The argument clamped to +-176 (NaN passes).
 */
static inline float gelu_e(float x)
{
	float v = -2.0f * (GELU_K * (x + GELU_C * x * x * x));

	return gelu_exp(clamp_abs(v, GELU_EXP_LIM_BITS));
}

/*
 * x Phi~(x) = x s, s = 1 / (1 + e^-2u); x = -inf (s = 0) multiplies as
 * -FLT_MAX: -0. Only value/constant selects, which vectorize.
 */
static inline float gelu(float x)
{
	float xc = x < -FLT_MAX ? -FLT_MAX : x;

	return xc * (1.0f / (1.0f + gelu_e(x)));
}

/*
 * d/dx = s + 2 K x s (1 - s) (1 + 3 C x^2) with s = 1 / (1 + e^-2u) and
 * 1 - s = 1 / (1 + e^2u). For |x| >= 20, |2u| > 176 and
 * s (1 - s) is exactly 0: x is clamped to +-1e4 in the second term so
 * that it is 0 there, never 0 * inf (x infinite, x^2 overflowing).
 */
static inline float gelu_grad(float x)
{
	float e = gelu_e(x);
	float s = 1.0f / (1.0f + e), q = 1.0f / (1.0f + 1.0f / e);
	float xc = clamp_abs(x, GELU_X_LIM_BITS);

	return s +
	       2.0f * GELU_K * xc * (s * q) * (1.0f + 3.0f * GELU_C * xc * xc);
}

/*
 * Elements of a block: the arithmetic kernels run on blocks held in local
 * arrays with a fixed trip count, which GCC vectorizes at -O2 (no alias
 * check, no scalar epilogue) and turns the selects of relu and relu_bwd
 * into masks instead of branches that mispredict on signs. Each element
 * is computed by the same expression as before, so the bits are the same.
 */
#define VB 16

/* @m (<= VB) elements of @s into @t, the rest of @t zero */
static inline void blk_in(float *t, const float *s, unsigned int m)
{
	if (m == VB) {
		memcpy(t, s, VB * sizeof(float));
		return;
	}
	memset(t, 0, VB * sizeof(float));
	memcpy(t, s, m * sizeof(float));
}

static inline void blk_out(float *d, const float *t, unsigned int m)
{
	if (m == VB)
		memcpy(d, t, VB * sizeof(float));
	else
		memcpy(d, t, m * sizeof(float));
}

/* One chunk of an elementwise kernel: o[i] = f(a[i], b[i]) */
static void op_chunk(uint32_t id, float *o, const float *a, const float *b,
		     unsigned int n, float alpha)
{
	float ta[VB], tb[VB], to[VB];
	unsigned int i, i0, m;

/* Vectorizable: ta[i], tb[i] -> to[i] over whole blocks */
#define VLOOP(expr)                            \
	for (i0 = 0; i0 < n; i0 += m) {        \
		m = n - i0 < VB ? n - i0 : VB; \
		blk_in(ta, a + i0, m);         \
		blk_in(tb, b + i0, m);         \
		for (i = 0; i < VB; i++)       \
			to[i] = (expr);        \
		blk_out(o + i0, to, m);        \
	}                                      \
	break
/* Calls into libm: element by element */
#define LOOP(expr)              \
	for (i = 0; i < n; i++) \
		o[i] = (expr);  \
	break
	switch (id) {
	case HPU_TPC_KERNEL_ADD:
	case HPU_TPC_KERNEL_BIAS_ADD:
		VLOOP(ta[i] + tb[i]);
	case HPU_TPC_KERNEL_SUB:
		VLOOP(ta[i] - tb[i]);
	case HPU_TPC_KERNEL_MUL:
		VLOOP(ta[i] * tb[i]);
	case HPU_TPC_KERNEL_DIV:
		VLOOP(ta[i] / tb[i]);
	case HPU_TPC_KERNEL_SCALE:
		VLOOP(alpha * ta[i]);
	case HPU_TPC_KERNEL_AXPY:
		VLOOP(alpha * ta[i] + tb[i]);
	case HPU_TPC_KERNEL_RELU:
		VLOOP(ta[i] <= 0 ? 0.0f : ta[i]); /* NaN stays */
	case HPU_TPC_KERNEL_RELU_BWD:
		/* ta[i] != ta[i]: NaN */
		VLOOP(ta[i] > 0 ? tb[i] : ta[i] != ta[i] ? ta[i] : 0.0f);
	case HPU_TPC_KERNEL_GELU:
		VLOOP(gelu(ta[i]));
	case HPU_TPC_KERNEL_BIAS_GELU:
		/* the bits of bias_add then gelu: the sum is an fp32 value */
		VLOOP(gelu(ta[i] + tb[i]));
	case HPU_TPC_KERNEL_GELU_BWD:
		VLOOP(tb[i] * gelu_grad(ta[i]));
	case HPU_TPC_KERNEL_TANH:
		LOOP(tanhf(a[i]));
	case HPU_TPC_KERNEL_TANH_BWD:
		VLOOP(tb[i] * (1.0f - ta[i] * ta[i]));
	case HPU_TPC_KERNEL_SIGMOID:
		LOOP(1.0f / (1.0f + expf(-a[i])));
	case HPU_TPC_KERNEL_SIGMOID_BWD:
		VLOOP(tb[i] * ta[i] * (1.0f - ta[i]));
	case HPU_TPC_KERNEL_EXP:
		LOOP(expf(a[i]));
	case HPU_TPC_KERNEL_LOG:
		LOOP(logf(a[i]));
	default:
		break;
	}
#undef VLOOP
#undef LOOP
}

/* Strides of @in seen from the output's index space (0 = broadcast) */
static void bcast_strides(const struct hputpc_operand *in, uint64_t *s)
{
	uint32_t d;

	for (d = 0; d < HPU_TPC_MAX_DIMS; d++)
		s[d] = d < in->ndims && in->sizes[d] != 1 ? in->strides[d] : 0;
}

/* Element offset of row @r of the output's shape with strides @s */
static uint64_t off_of(const struct hputpc_operand *o, const uint64_t *s,
		       uint64_t r)
{
	uint64_t off = 0;
	uint32_t d;

	for (d = 1; d < HPU_TPC_MAX_DIMS && r; d++) {
		off += (r % o->sizes[d]) * s[d];
		r /= o->sizes[d];
	}
	return off;
}

/* A pointer to @n fp32 values of @t along a row, loaded into @buf if needed */
static const float *chunk_in(const struct hputpc_operand *t, const uint64_t *s,
			     uint64_t off, uint64_t i0, unsigned int n,
			     float *buf)
{
	const uint8_t *row = t->p + (off + i0 * s[0]) * esize(t);
	unsigned int i;

	if (t->dtype == HPU_DTYPE_FP32 && s[0] == 1)
		return (const float *)(const void *)row;
	for (i = 0; i < n; i++)
		buf[i] = load1(t, row, i, s[0]);
	return buf;
}

/**
 * struct map_job - an elementwise kernel cut into units of one chunk of
 * one row; units are independent, so any split gives the same bits
 * @c: the invocation
 * @nin: inputs (1 or 2); the output is c->t[nin]
 * @s: strides of the inputs as broadcast, and of the output
 * @per_row: units per row
 * @nunits: units in all
 * @nslices: slices the units are cut into
 */
struct map_job {
	const struct hputpc_ctx *c;
	unsigned int nin;
	uint64_t s[3][HPU_TPC_MAX_DIMS];
	uint64_t per_row;
	uint64_t nunits;
	unsigned int nslices;
};

static void map_unit(const struct map_job *j, uint64_t u)
{
	const struct hputpc_ctx *c = j->c;
	const struct hputpc_operand *o = &c->t[j->nin];
	uint64_t r = u / j->per_row, i0 = (u % j->per_row) * CHUNK, off[3];
	unsigned int n = o->sizes[0] - i0 < CHUNK ?
				 (unsigned int)(o->sizes[0] - i0) :
				 CHUNK;
	float buf[3][CHUNK];
	const float *a, *b;
	uint8_t *orow;
	unsigned int k, i;
	bool direct;
	float *ob;

	for (k = 0; k <= j->nin; k++)
		off[k] = off_of(o, j->s[k], r);
	a = chunk_in(&c->t[0], j->s[0], off[0], i0, n, buf[0]);
	b = j->nin > 1 ? chunk_in(&c->t[1], j->s[1], off[1], i0, n, buf[1]) : a;
	orow = o->p + (off[j->nin] + i0 * j->s[j->nin][0]) * esize(o);
	direct = o->dtype == HPU_DTYPE_FP32 && j->s[j->nin][0] == 1;
	ob = direct ? (float *)(void *)orow : buf[2];
	op_chunk(c->id, ob, a, b, n, hputpc_pf(c, 0));
	if (!direct)
		for (i = 0; i < n; i++)
			store1(o, orow, i, j->s[j->nin][0], ob[i]);
}

/* Slice @k of the units (struct hputpc_pool.run) */
static void map_slice(void *arg, unsigned int k)
{
	const struct map_job *j = arg;
	uint64_t u = j->nunits * k / j->nslices;
	uint64_t end = j->nunits * (k + 1) / j->nslices;

	for (; u < end; u++)
		map_unit(j, u);
}

/* numpy-style: @in has at most @out's rank, each size equal or 1 */
static int bcast_ok(const struct hpu_tpc_tensor *in,
		    const struct hpu_tpc_tensor *out)
{
	uint32_t d;

	if (in->ndims > out->ndims)
		return 0;
	for (d = 0; d < in->ndims; d++)
		if (in->sizes[d] != out->sizes[d] && in->sizes[d] != 1)
			return 0;
	return 1;
}

/* Unary elementwise: in broadcast to out, both fp32 or bf16 */
static int check_unary(const struct hpu_pkt_tpc_kernel *k)
{
	return hputpc_is_float(T(0)->dtype) && hputpc_is_float(T(1)->dtype) &&
			       bcast_ok(T(0), T(1)) ?
		       0 :
		       -EINVAL;
}

/* Binary elementwise: two inputs broadcast to the third */
static int check_binary(const struct hpu_pkt_tpc_kernel *k)
{
	return hputpc_is_float(T(0)->dtype) && hputpc_is_float(T(1)->dtype) &&
			       hputpc_is_float(T(2)->dtype) &&
			       bcast_ok(T(0), T(2)) && bcast_ok(T(1), T(2)) ?
		       0 :
		       -EINVAL;
}

static int check_scale(const struct hpu_pkt_tpc_kernel *k)
{
	return hputpc_finite_bits(P(0)) ? check_unary(k) : -EINVAL;
}

static int check_axpy(const struct hpu_pkt_tpc_kernel *k)
{
	return hputpc_finite_bits(P(0)) ? check_binary(k) : -EINVAL;
}

static int check_bias_add(const struct hpu_pkt_tpc_kernel *k)
{
	if (T(0)->ndims < 1 || T(1)->ndims != 1 ||
	    T(1)->sizes[0] != T(0)->sizes[0] || !hputpc_same_shape(T(0), T(2)))
		return -EINVAL;
	return check_binary(k);
}

static int hputpc_map(struct hputpc_ctx *c)
{
	struct map_job j = { .c = c };
	const struct hputpc_operand *o;
	unsigned int k;

	j.nin = c->id == HPU_TPC_KERNEL_SCALE || c->id == HPU_TPC_KERNEL_RELU ||
				c->id == HPU_TPC_KERNEL_GELU ||
				c->id == HPU_TPC_KERNEL_TANH ||
				c->id == HPU_TPC_KERNEL_SIGMOID ||
				c->id == HPU_TPC_KERNEL_EXP ||
				c->id == HPU_TPC_KERNEL_LOG ?
			1 :
			2;
	o = &c->t[j.nin];
	if (!o->n)
		return 0;
	for (k = 0; k < j.nin; k++)
		bcast_strides(&c->t[k], j.s[k]);
	for (k = 0; k < HPU_TPC_MAX_DIMS; k++)
		j.s[j.nin][k] = o->strides[k];
	j.per_row = (o->sizes[0] + CHUNK - 1) / CHUNK;
	j.nunits = o->n / o->sizes[0] * j.per_row;
	hputpc_par_run(c, map_slice, &j, &j.nslices, o->n);
	return 0;
}

static int check_transpose(const struct hpu_pkt_tpc_kernel *k)
{
	return T(0)->dtype == T(1)->dtype && T(0)->ndims == 2 &&
			       T(1)->ndims == 2 &&
			       T(0)->sizes[0] == T(1)->sizes[1] &&
			       T(0)->sizes[1] == T(1)->sizes[0] ?
		       0 :
		       -EINVAL;
}

static int hputpc_transpose(struct hputpc_ctx *c)
{
	const struct hputpc_operand *in = &c->t[0], *o = &c->t[1];
	uint64_t r, cc, rb, cb, R = in->sizes[1], C = in->sizes[0];
	size_t es = esize(o);

	if (!o->n)
		return 0;
	for (rb = 0; rb < R; rb += 32)
		for (cb = 0; cb < C; cb += 32)
			for (r = rb; r < R && r < rb + 32; r++)
				for (cc = cb; cc < C && cc < cb + 32; cc++)
					memcpy(o->p + (r * o->strides[0] +
						       cc * o->strides[1]) *
							       es,
					       in->p + (cc * in->strides[0] +
							r * in->strides[1]) *
							       es,
					       es);
	return 0;
}

/* splitmix64's finalizer: a counter-based generator keyed by the seed */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* x, y, mask; p, seed_lo, seed_hi */
static int check_dropout(const struct hpu_pkt_tpc_kernel *k)
{
	float p = hputpc_bits_f(P(0));

	if (!hputpc_finite_bits(P(0)) || !(p >= 0 && p < 1) ||
	    T(2)->dtype != HPU_DTYPE_FP32 || !hputpc_same_shape(T(0), T(1)) ||
	    !hputpc_same_shape(T(0), T(2)))
		return -EINVAL;
	return check_unary(k);
}

static int hputpc_dropout(struct hputpc_ctx *c)
{
	const struct hputpc_operand *x = &c->t[0], *y = &c->t[1], *m = &c->t[2];
	uint64_t seed = c->params[1] | (uint64_t)c->params[2] << 32;
	uint64_t r, i, rows = y->n ? y->n / y->sizes[0] : 0;
	float p = hputpc_pf(c, 0), scale = 1.0f / (1.0f - p);

	for (r = 0; r < rows; r++) {
		const uint8_t *xr = x->p + hputpc_row_off(x, r) * esize(x);
		uint8_t *yr = y->p + hputpc_row_off(y, r) * esize(y);
		float *mr = hputpc_f32(m, hputpc_row_off(m, r));

		for (i = 0; i < y->sizes[0]; i++) {
			uint64_t idx = r * y->sizes[0] + i;
			uint64_t h = mix64(mix64(seed) +
					   idx * 0x9e3779b97f4a7c15ULL);
			float u = (float)(h >> 40) * (1.0f / 16777216.0f);
			float k = u >= p ? scale : 0.0f;

			mr[i * m->strides[0]] = k;
			store1(y, yr, i, y->strides[0],
			       load1(x, xr, i, x->strides[0]) * k);
		}
	}
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	HPUTPC_KERNEL(FILL, "fill", 1, 1, check_fill, hputpc_fill),
	HPUTPC_KERNEL(COPY, "copy", 2, 0, check_copy, hputpc_copy),
	HPUTPC_KERNEL(CAST, "cast", 2, 0, check_cast, hputpc_cast),
	HPUTPC_KERNEL(ADD, "add", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(SUB, "sub", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(MUL, "mul", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(DIV, "div", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(SCALE, "scale", 2, 1, check_scale, hputpc_map),
	HPUTPC_KERNEL(AXPY, "axpy", 3, 1, check_axpy, hputpc_map),
	HPUTPC_KERNEL(RELU, "relu", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(RELU_BWD, "relu_bwd", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(GELU, "gelu", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(GELU_BWD, "gelu_bwd", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(TANH, "tanh", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(TANH_BWD, "tanh_bwd", 3, 0, check_binary, hputpc_map),
	HPUTPC_KERNEL(SIGMOID, "sigmoid", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(SIGMOID_BWD, "sigmoid_bwd", 3, 0, check_binary,
		      hputpc_map),
	HPUTPC_KERNEL(EXP, "exp", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(LOG, "log", 2, 0, check_unary, hputpc_map),
	HPUTPC_KERNEL(BIAS_ADD, "bias_add", 3, 0, check_bias_add, hputpc_map),
	HPUTPC_KERNEL(BIAS_GELU, "bias_gelu", 3, 0, check_bias_add, hputpc_map),
	HPUTPC_KERNEL(TRANSPOSE, "transpose", 2, 0, check_transpose,
		      hputpc_transpose),
	HPUTPC_KERNEL(DROPOUT, "dropout", 3, 3, check_dropout, hputpc_dropout),
};

const struct hputpc_family hputpc_family_elementwise = {
	.name = "elementwise",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
