// SPDX-License-Identifier: MIT
/*
 * test_tpc_accumulate.c - the ACCUMULATE kernel (the collectives'
 * reduction step) run through the model on a TPC queue: every op, dtype
 * and K in {1, 2, 5, 7} against a sequential reference (exact bits: the
 * kernel promises the same operations in index order), the divisor (fp32
 * division, int32 truncation), NaN and Inf, int32 wrap-around, in-place
 * use (also across the parallel slices and for a staged device operand),
 * strided and 2-D operands; and every refusal of its operand rule, in
 * hputpc_check() and in the driver's packet validator.
 */
#include "test_tpc_util.h"
#include "hpu_fused.h"

/* Above two blocks of the kernel, with a tail */
#define N 5000

static const uint32_t dtypes[3] = { HPU_DTYPE_FP32, HPU_DTYPE_BF16,
				    HPU_DTYPE_INT32 };

/* bfloat16 nearest even, written independently of the model's */
static uint16_t ref_bf16(float f)
{
	uint32_t u = fbits(f), lo = u & 0xffff0000U, rest = u & 0xffffU;

	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40);
	if (rest > 0x8000U || (rest == 0x8000U && (lo & 0x10000U)))
		lo += 0x10000U;
	return (uint16_t)(lo >> 16);
}

static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static float ref_fop(uint32_t op, float a, float b)
{
	if (op == HPU_TPC_ACC_SUM)
		return a + b;
	if (isnan(a) || isnan(b))
		return NAN;
	if (op == HPU_TPC_ACC_MIN)
		return a < b ? a : b;
	return a > b ? a : b;
}

static int32_t ref_iop(uint32_t op, int32_t a, int32_t b)
{
	if (op == HPU_TPC_ACC_SUM)
		return (int32_t)((uint32_t)a + (uint32_t)b);
	if (op == HPU_TPC_ACC_MIN)
		return a < b ? a : b;
	return a > b ? a : b;
}

/* Element @i of a fp32 or bf16 array as fp32 */
static float getf(uint32_t dt, const void *p, uint64_t i)
{
	if (dt == HPU_DTYPE_BF16)
		return bf2f(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

/*
 * Element @e of the reference result of @k inputs at @in[] (element
 * indices @ix[k]), as the bits the output must hold
 */
static uint32_t ref_elem(uint32_t dt, uint32_t op, uint32_t div,
			 void *const *in, const uint64_t *ix, unsigned int k)
{
	unsigned int j;

	if (dt == HPU_DTYPE_INT32) {
		int32_t a = ((const int32_t *)in[0])[ix[0]];

		for (j = 1; j < k; j++)
			a = ref_iop(op, a, ((const int32_t *)in[j])[ix[j]]);
		if (div >= 2)
			a = (int32_t)((int64_t)a / (int64_t)div);
		return (uint32_t)a;
	} else {
		float a = getf(dt, in[0], ix[0]);

		for (j = 1; j < k; j++)
			a = ref_fop(op, a, getf(dt, in[j], ix[j]));
		if (div >= 2)
			a /= (float)div;
		return dt == HPU_DTYPE_BF16 ? ref_bf16(a) : fbits(a);
	}
}

/* Bits of element @i of an output at @p */
static uint32_t bits_at(uint32_t dt, const void *p, uint64_t i)
{
	if (dt == HPU_DTYPE_BF16)
		return ((const uint16_t *)p)[i];
	return ((const uint32_t *)p)[i];
}

/* Random data: floats in [-8, 8) (exact in bf16), ints over the range */
static void fill(uint32_t dt, void *p, uint64_t n, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		float f = frand(&seed, -8, 8);

		if (dt == HPU_DTYPE_BF16)
			((uint16_t *)p)[i] = ref_bf16(f);
		else if (dt == HPU_DTYPE_FP32)
			((float *)p)[i] = f;
		else
			((uint32_t *)p)[i] = rng_next(&seed) * 0x1f3u;
	}
}

static void bits_equal(uint32_t dt, const void *got, uint64_t i, uint32_t want)
{
	if (bits_at(dt, got, i) != want)
		fail_msg("element %llu: got %#x want %#x",
			 (unsigned long long)i, bits_at(dt, got, i), want);
}

/* Contiguous 1-D: out = op(in0..in(k-1)) / div, checked bit for bit */
static void run_case(struct tfix *t, uint32_t dt, uint32_t op, unsigned int k,
		     uint32_t div)
{
	uint32_t n = N, p[2] = { op, div };
	struct hpu_tpc_tensor d[8];
	void *data[8];
	uint64_t i, ix[7] = { 0 };
	unsigned int j;

	treset(t);
	for (j = 0; j <= k; j++) {
		d[j] = tnew(t, dt, 1, &n, &data[j]);
		fill(dt, data[j], n, 100 + j * 7 + op);
	}
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, k + 1, p, 2);
	for (i = 0; i < n; i++) {
		for (j = 0; j < k; j++)
			ix[j] = i;
		bits_equal(dt, data[0], i,
			   ref_elem(dt, op, div, &data[1], ix, k));
	}
}

static void test_ops(void **state)
{
	static const unsigned int ks[4] = { 1, 2, 5, 7 };
	uint32_t op, di, ki;

	for (di = 0; di < 3; di++)
		for (op = HPU_TPC_ACC_SUM; op <= HPU_TPC_ACC_MAX; op++)
			for (ki = 0; ki < 4; ki++)
				run_case(*state, dtypes[di], op, ks[ki], 0);
}

/* 0 and 1 mean no division; 3, 8 and 2^32 - 1 divide */
static void test_divisor(void **state)
{
	struct tfix *t = *state;
	uint32_t di, n = 6, p[2] = { HPU_TPC_ACC_SUM, 2 };
	struct hpu_tpc_tensor d[3];
	int32_t *o, *a, *b;

	for (di = 0; di < 3; di++) {
		run_case(t, dtypes[di], HPU_TPC_ACC_SUM, 7, 1);
		run_case(t, dtypes[di], HPU_TPC_ACC_SUM, 7, 3);
		run_case(t, dtypes[di], HPU_TPC_ACC_SUM, 2, 8);
		run_case(t, dtypes[di], HPU_TPC_ACC_MAX, 2, 3);
		run_case(t, dtypes[di], HPU_TPC_ACC_SUM, 2, 0xffffffffU);
	}
	/* int32 truncates toward zero; sums wrap before the division */
	treset(t);
	d[0] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&o);
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&a);
	d[2] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&b);
	a[0] = -4, b[0] = -3;	     /* -7 / 2 = -3 */
	a[1] = 4, b[1] = 3;	     /* 7 / 2 = 3 */
	a[2] = INT32_MAX, b[2] = 1;  /* wraps to INT32_MIN */
	a[3] = INT32_MIN, b[3] = -1; /* wraps to INT32_MAX */
	a[4] = INT32_MIN, b[4] = 0;  /* INT32_MIN / 2 */
	a[5] = -1, b[5] = 0;	     /* -1 / 2 = 0 */
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
	assert_int_equal(o[0], -3);
	assert_int_equal(o[1], 3);
	assert_int_equal(o[2], INT32_MIN / 2);
	assert_int_equal(o[3], INT32_MAX / 2);
	assert_int_equal(o[4], INT32_MIN / 2);
	assert_int_equal(o[5], 0);
	p[1] = 0; /* no division: the wrapped sums themselves */
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
	assert_int_equal(o[2], INT32_MIN);
	assert_int_equal(o[3], INT32_MAX);
	p[1] = 0x80000000U; /* a divisor above INT32_MAX */
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
	assert_int_equal(o[2], -1);
	assert_int_equal(o[3], 0);
	assert_int_equal(o[0], 0);
}

/* min/max with a NaN on either side give NaN; sums propagate NaN, Inf */
static void test_nan_inf(void **state)
{
	struct tfix *t = *state;
	uint32_t n = N, op, di, p[2] = { 0, 0 };
	struct hpu_tpc_tensor d[4];
	void *v[4];
	uint64_t i;
	unsigned int j;

	for (di = 0; di < 2; di++) {
		uint32_t dt = dtypes[di];

		treset(t);
		for (j = 0; j < 4; j++) {
			d[j] = tnew(t, dt, 1, &n, &v[j]);
			fill(dt, v[j], n, 7 + j);
		}
		/* NaN in in0, in1 or in2 at different places */
		for (i = 0; i < n; i += 97) {
			float f = (i / 97) % 4 == 3 ? INFINITY : NAN;
			void *dst = v[1 + (i / 97) % 3];

			if (dt == HPU_DTYPE_BF16)
				((uint16_t *)dst)[i] = ref_bf16(f);
			else
				((float *)dst)[i] = f;
		}
		/* +Inf + -Inf = NaN */
		if (dt == HPU_DTYPE_BF16) {
			((uint16_t *)v[1])[1] = ref_bf16(INFINITY);
			((uint16_t *)v[3])[1] = ref_bf16(-INFINITY);
		} else {
			((float *)v[1])[1] = INFINITY;
			((float *)v[3])[1] = -INFINITY;
		}
		for (op = HPU_TPC_ACC_SUM; op <= HPU_TPC_ACC_MAX; op++) {
			p[0] = op;
			krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 4, p, 2);
			for (i = 0; i < n; i++) {
				uint64_t ix[3] = { i, i, i };
				uint32_t want =
					ref_elem(dt, op, 0, &v[1], ix, 3);
				float w = dt == HPU_DTYPE_BF16 ?
						  bf2f((uint16_t)want) :
						  getf(dt, &want, 0);

				/* planted NaNs reach every op's result */
				if (i % 97 == 0 && (i / 97) % 4 != 3)
					assert_true(isnan(w));
				if (isnan(w))
					assert_true(isnan(getf(dt, v[0], i)));
				else
					bits_equal(dt, v[0], i, want);
			}
			/* +Inf + -Inf */
			if (op == HPU_TPC_ACC_SUM)
				assert_true(isnan(getf(dt, v[0], 1)));
			else
				assert_true(isinf(getf(dt, v[0], 1)));
		}
	}
}

/* out is in0: large enough for the parallel slices, and bit-identical */
static void test_in_place(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 600 * 1024 + 13, di, p[2] = { HPU_TPC_ACC_SUM, 4 };
	struct hpu_tpc_tensor d[4];
	void *v[3], *ref, *first;
	uint64_t i, ix[3];
	size_t es;
	unsigned int j;

	for (di = 0; di < 3; di++) {
		uint32_t dt = dtypes[di];

		es = hputpc_dtype_size(dt);
		treset(t);
		for (j = 0; j < 3; j++) {
			d[j + 1] = tnew(t, dt, 1, &n, &v[j]);
			fill(dt, v[j], n, 31 + j);
		}
		d[0] = d[1];
		ref = malloc(n * es);
		first = malloc(n * es);
		assert_non_null(ref);
		assert_non_null(first);
		memcpy(first, v[0], n * es);
		for (i = 0; i < n; i++) {
			ix[0] = ix[1] = ix[2] = i;
			if (es == 2)
				((uint16_t *)ref)[i] = (uint16_t)ref_elem(
					dt, p[0], p[1], v, ix, 3);
			else
				((uint32_t *)ref)[i] =
					ref_elem(dt, p[0], p[1], v, ix, 3);
		}
		krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 4, p, 2);
		assert_memory_equal(v[0], ref, n * es);
		/* again from the same data: the same bits */
		memcpy(v[0], first, n * es);
		krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 4, p, 2);
		assert_memory_equal(v[0], ref, n * es);
		/* K = 1 in place: out = in0 / 4 */
		memcpy(v[0], first, n * es);
		krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 2, p, 2);
		for (i = 0; i < n; i += 101) {
			ix[0] = i;
			bits_equal(dt, v[0], i,
				   ref_elem(dt, p[0], p[1], &first, ix, 1));
		}
		free(ref);
		free(first);
	}
}

#define MAX_PIECES 65536

/*
 * In place on a device operand split over two extents (staged): out and
 * in0 are the same memory, so one staged copy must be written back
 */
static void test_in_place_staged(void **state)
{
	struct tfix *t = *state;
	struct hpu_test_fw *f = t->f;
	struct hpu_fw_mem **pieces = calloc(MAX_PIECES, sizeof(*pieces));
	const uint64_t page = 64 * KiB, len = 2 * page, n = len / 4;
	uint32_t sz = (uint32_t)n, p[2] = { HPU_TPC_ACC_MAX, 0 };
	struct hpu_tpc_tensor d[3];
	struct hpu_fw_mem *big;
	uint64_t i, dva, sva, bva;
	unsigned int np = 0;
	struct hpu_test_cb cb = { .len = 0 };
	float *src, *b, *dst;

	assert_non_null(pieces);
	/* fill SRAM, free every other piece: 2 pages are then 2 extents */
	while (np < MAX_PIECES &&
	       !hpusim_model.ops->mem_alloc(f->dev, page, 0, false, true,
					    &pieces[np]))
		np++;
	assert_true(np > 4 && np < MAX_PIECES);
	for (i = 0; i < np; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(pieces[i]), 0);
	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, len, 0, false,
						     true, &big),
			 0);
	assert_true(big->nr_ext >= 2);
	assert_int_equal(hpusim_model.ops->map_mem(f->as, big, 0, false, &dva),
			 0);
	treset(t);
	src = talloc(t, len, &sva);
	frand_fill(src, n, 5, -1, 1);
	b = talloc(t, len, &bva);
	frand_fill(b, n, 6, -1, 1);
	hpu_test_cb_dma(&cb, dva, sva, len);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	d[0] = tens(dva, HPU_DTYPE_FP32, 1, &sz);
	d[1] = d[0];
	d[2] = tens(bva, HPU_DTYPE_FP32, 1, &sz);
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
	dst = talloc(t, len, &sva);
	cb.len = 0;
	hpu_test_cb_dma(&cb, sva, dva, len);
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL), HPU_FW_CS_OK);
	for (i = 0; i < n; i++)
		assert_true(dst[i] == (src[i] > b[i] ? src[i] : b[i]));
	hpu_test_fw_unmap_dev(f, dva, big);
	for (i = 1; i < np; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(pieces[i]), 0);
	free(pieces);
}

/*
 * [R][C] operands: out strided with a padded row, in0 every other
 * element, in1 a column-major view (transposed strides), in2 dense, in3
 * the same memory as in1; padding never written
 */
static void test_strided(void **state)
{
	struct tfix *t = *state;
	const uint32_t C = 2100, R = 3, pad = 5;
	uint32_t di, op, sz[2] = { C, R }, p[2] = { 0, 3 };
	uint32_t big = (C + pad) * R * 2, e;
	struct hpu_tpc_tensor d[5];
	void *v[5], *in[4], *before;
	uint64_t r, c, ix[4];
	size_t es;

	for (di = 0; di < 3; di++) {
		uint32_t dt = dtypes[di];

		es = hputpc_dtype_size(dt);
		for (op = HPU_TPC_ACC_SUM; op <= HPU_TPC_ACC_MAX; op++) {
			treset(t);
			for (e = 0; e < 4; e++) {
				d[e] = tnew(t, dt, 1, &big, &v[e]);
				fill(dt, v[e], big, 50 + e);
				d[e].ndims = 2;
				d[e].sizes[0] = C;
				d[e].sizes[1] = R;
			}
			d[0].strides[0] = 1; /* out: rows of C + pad */
			d[0].strides[1] = C + pad;
			d[1].strides[0] = 2; /* in0: every other element */
			d[1].strides[1] = 2 * C;
			d[2].strides[0] = R; /* in1: column-major */
			d[2].strides[1] = 1;
			d[3] = tens(d[3].addr, dt, 2, sz); /* in2: dense */
			d[4] = d[2];
			v[4] = v[2];
			p[0] = op;
			before = malloc(big * es);
			assert_non_null(before);
			memcpy(before, v[0], big * es);
			krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 5, p, 2);
			in[0] = v[1], in[1] = v[2], in[2] = v[3], in[3] = v[4];
			for (r = 0; r < R; r++) {
				for (c = 0; c < C; c++) {
					ix[0] = 2 * c + r * 2 * C;
					ix[1] = ix[3] = c * R + r;
					ix[2] = c + r * C;
					bits_equal(dt, v[0], c + r * (C + pad),
						   ref_elem(dt, op, 3, in, ix,
							    4));
				}
			}
			/* the padding and the tail keep their bytes */
			for (r = 0; r < big; r++)
				if (r % (C + pad) >= C || r >= R * (C + pad))
					assert_memory_equal(
						(uint8_t *)v[0] + r * es,
						(uint8_t *)before + r * es, es);
			free(before);
		}
	}
}

/* Strided out, contiguous inputs; a 2-D dense output with a size-1 dim */
static void test_strided_out(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 3000, di, sz[3] = { 1000, 1, 3 }, big = 2 * n;
	uint32_t p[2] = { HPU_TPC_ACC_MIN, 0 };
	struct hpu_tpc_tensor d[3];
	void *v[3];
	uint64_t i, ix[2];

	for (di = 0; di < 3; di++) {
		uint32_t dt = dtypes[di];

		treset(t);
		d[0] = tnew(t, dt, 1, &big, &v[0]);
		d[0].sizes[0] = n;
		d[0].strides[0] = 2;
		d[1] = tnew(t, dt, 1, &n, &v[1]);
		d[2] = tnew(t, dt, 1, &n, &v[2]);
		fill(dt, v[0], big, 1);
		fill(dt, v[1], n, 2);
		fill(dt, v[2], n, 3);
		krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
		for (i = 0; i < n; i++) {
			ix[0] = ix[1] = i;
			bits_equal(dt, v[0], 2 * i,
				   ref_elem(dt, p[0], 0, &v[1], ix, 2));
		}
		/* [3][1][1000] dense with a stride of 0 on the size-1 dim */
		d[0] = tens(d[0].addr, dt, 3, sz);
		d[0].strides[1] = 0;
		d[1] = tens(d[1].addr, dt, 3, sz);
		d[2] = tens(d[2].addr, dt, 3, sz);
		krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
		for (i = 0; i < n; i++) {
			ix[0] = ix[1] = i;
			bits_equal(dt, v[0], i,
				   ref_elem(dt, p[0], 0, &v[1], ix, 2));
		}
	}
}

/* An empty accumulate writes nothing */
static void test_empty(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 0, p[2] = { 0, 0 };
	struct hpu_tpc_tensor d[3];
	float *o, *a, *b;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&o);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&a);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&b);
	*o = 42.0f;
	*a = 1.0f;
	*b = 2.0f;
	krun(t, HPU_TPC_KERNEL_ACCUMULATE, d, 3, p, 2);
	assert_true(*o == 42.0f);
}

/* A valid 3-input accumulate of [4][64] fp32 (addresses not checked) */
static void good_acc(struct hpu_pkt_tpc_kernel *k)
{
	uint32_t sz[2] = { 64, 4 }, p[2] = { HPU_TPC_ACC_SUM, 8 };
	struct hpu_tpc_tensor d[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		d[i] = tens(0x100000 * (i + 1), HPU_DTYPE_FP32, 2, sz);
	tpc_pkt(k, HPU_TPC_KERNEL_ACCUMULATE, d, 4, p, 2);
}

static int validate(const struct hpu_pkt_tpc_kernel *k)
{
	return hfd_packets_validate(k, sizeof(*k), HFD_QUEUE_TPC, NULL);
}

static void test_rules(void **state)
{
	static const struct hpu_tpc_tensor zero;
	struct hpu_pkt_tpc_kernel k;
	unsigned int i, dt;

#define OK(stmt)                                       \
	do {                                           \
		good_acc(&k);                          \
		stmt;                                  \
		assert_int_equal(hputpc_check(&k), 0); \
		assert_int_equal(validate(&k), 0);     \
	} while (0)
#define BAD(stmt)                                            \
	do {                                                 \
		good_acc(&k);                                \
		stmt;                                        \
		assert_int_equal(hputpc_check(&k), -EINVAL); \
		assert_int_equal(validate(&k), -EINVAL);     \
	} while (0)
	assert_string_equal(hputpc_kernel_name(HPU_TPC_KERNEL_ACCUMULATE),
			    "accumulate");
	OK((void)0);
	/* K = 1..7 */
	for (i = 2; i <= HPU_TPC_MAX_TENSORS; i++) {
		good_acc(&k);
		k.num_tensors = i;
		for (unsigned int j = 1; j < HPU_TPC_MAX_TENSORS; j++) {
			k.tensors[j] = j < i ? k.tensors[1] : zero;
			if (j < i)
				k.tensors[j].addr = 0x100000 * (j + 1);
		}
		assert_int_equal(hputpc_check(&k), 0);
		assert_int_equal(validate(&k), 0);
		/* one operand fewer, the rest zero: K = 0 when i = 2 */
		k.tensors[i - 1] = zero;
		k.num_tensors = i - 1;
		assert_int_equal(hputpc_check(&k), i > 2 ? 0 : -EINVAL);
	}
	/* each dtype; every op; any divisor */
	for (dt = 0; dt < 3; dt++)
		OK(for (i = 0; i < 4; i++) k.tensors[i].dtype = dtypes[dt]);
	OK(k.params[0] = HPU_TPC_ACC_MIN);
	OK(k.params[0] = HPU_TPC_ACC_MAX);
	OK(k.params[1] = 0);
	OK(k.params[1] = 1);
	OK(k.params[1] = 0xffffffffU);
	/* in place: out is in0 exactly */
	OK(k.tensors[1] = k.tensors[0]);
	/* inputs may overlap each other, and be any strides */
	OK(k.tensors[2] = k.tensors[3]);
	OK(k.tensors[2].strides[0] = 4; k.tensors[2].strides[1] = 256);
	OK(k.tensors[2].strides[1] = 0);
	/* empty operands overlap nothing */
	OK(for (i = 0; i < 4; i++) {
		k.tensors[i].sizes[0] = 0;
		k.tensors[i].addr = 0x100000;
	});
	/* out and in3 adjacent, not overlapping */
	OK(k.tensors[3].addr = k.tensors[0].addr + 64 * 4 * 4);
	OK(k.tensors[3].addr = k.tensors[0].addr - 64 * 4 * 4);

	BAD(k.num_tensors = 0;
	    k.tensors[1] = k.tensors[2] = k.tensors[3] = zero;
	    k.tensors[0] = zero);
	BAD(k.num_tensors = HPU_TPC_MAX_TENSORS + 1);
	BAD(k.num_tensors = 3); /* tensor 3 is past the count, not zero */
	BAD(k.tensors[4].addr = 0x500000);
	BAD(k.tensors[7].sizes[0] = 1);
	BAD(k.params[0] = HPU_TPC_ACC_MAX + 1);
	BAD(k.params[0] = 0xffffffffU);
	BAD(k.params[2] = 1);
	BAD(k.params[15] = 1);
	/* dtypes and shapes agree */
	BAD(k.tensors[2].dtype = HPU_DTYPE_BF16);
	BAD(k.tensors[0].dtype = HPU_DTYPE_INT32);
	BAD(k.tensors[3].sizes[0] = 63);
	BAD(k.tensors[1].sizes[1] = 5);
	BAD(k.tensors[2].ndims = 3; k.tensors[2].sizes[2] = 1;
	    k.tensors[2].strides[2] = 256);
	BAD(k.tensors[0].ndims = 1; k.tensors[0].sizes[1] = 0;
	    k.tensors[0].strides[1] = 0; k.tensors[0].sizes[0] = 256);
	/* a bad tensor of its own */
	BAD(k.tensors[3].reserved = 1);
	BAD(k.tensors[2].dtype = 7);
	/* overlaps: out with in0 not exactly, with any later input */
	BAD(k.tensors[1].addr = k.tensors[0].addr + 4);
	BAD(k.tensors[1].addr = k.tensors[0].addr - 4);
	BAD(k.tensors[1] = k.tensors[0]; k.tensors[1].strides[1] = 128);
	BAD(k.tensors[1] = k.tensors[0]; k.tensors[0].strides[0] = 2;
	    k.tensors[0].strides[1] = 128; k.tensors[1].strides[0] = 2;
	    k.tensors[1].strides[1] = 128; k.tensors[1].addr += 4);
	BAD(k.tensors[2] = k.tensors[0]);
	BAD(k.tensors[3] = k.tensors[0]);
	BAD(k.tensors[3].addr = k.tensors[0].addr + 64 * 4 * 4 - 4);
	BAD(k.tensors[2].addr = k.tensors[0].addr + 1000);
	/* out inside a strided input's extent */
	BAD(k.tensors[2].strides[1] = 4096;
	    k.tensors[0].addr = k.tensors[2].addr + 512);
	/* exact aliasing is for in0 only, even when in0 is also out-like */
	BAD(k.tensors[1] = k.tensors[0]; k.tensors[2] = k.tensors[0]);
#undef OK
#undef BAD
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_divisor),
		cmocka_unit_test(test_nan_inf),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_in_place_staged),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_strided_out),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
