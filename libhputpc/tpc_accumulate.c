// SPDX-License-Identifier: MIT
/*
 * tpc_accumulate.c - the collectives' reduction step:
 * out = op(in0, ..., in(K-1)) / divisor for K = 1..7, op sum, min or max,
 * fp32, bf16 (accumulated in binary32, rounded once) or int32 (wrapping).
 *
 * Work is cut into blocks of BLK elements along a row. Per block the
 * accumulator (the output itself when it is contiguous fp32, else a small
 * buffer) takes in0 op in1, then op in2, ... while it is hot in the L1
 * cache, so every element sees the same operations in the same order
 * whatever the split. When every operand is dense (the common 1-D,
 * stride-1 case) the blocks are cut into slices that idle pool workers
 * help with; otherwise rows are walked on the queue's thread.
 *
 * The output may be in0 itself (the rules reject any other overlap, so
 * the inputs past in0 are never written while they are read).
 *
 * Each kernel's operand rule (check_*(), called by hputpc_check() once
 * the generic rules of tpc_check.c passed) sits above its body; the
 * family's descriptors (struct hputpc_kernel) are at the end, in
 * hputpc_family_accumulate.
 */
#include <errno.h>

#include "tpc_lib.h"

/* In an operand rule: operand @i and parameter @i of the packet k */
#define T(i) (&k->tensors[i])
#define P(i) (k->params[i])

/* Elements per block: two fp32 blocks of scratch fit in L1 */
#define BLK 2048

/*
 * Forced inline: each helper is expanded once with n == BLK, a constant
 * GCC's -O2 cost model vectorizes, and once with the variable tail length
 */
#define ACC_INLINE static inline __attribute__((always_inline))

/* min/max that give NaN when either side is NaN */
#define F_MIN(a, b) ((a) < (b) || (a) != (a) ? (a) : (b))
#define F_MAX(a, b) ((a) > (b) || (a) != (a) ? (a) : (b))
#define I_MIN(a, b) ((a) < (b) ? (a) : (b))
#define I_MAX(a, b) ((a) > (b) ? (a) : (b))
/* int32 sum modulo 2^32 */
#define I_ADD(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))

/**
 * struct acc_job - an accumulate invocation
 * @c: the invocation (t[0] out, t[1..nin] inputs)
 * @nin: inputs, K
 * @op: HPU_TPC_ACC_*
 * @dtype: of every operand
 * @div: the divisor applies (params[1] >= 2)
 * @fdiv: the divisor as binary32
 * @idiv: the divisor as an integer
 * @n: elements of each operand (dense path)
 * @nblk: blocks of BLK elements (dense path)
 * @nslices: slices the blocks are cut into
 */
struct acc_job {
	const struct hputpc_ctx *c;
	unsigned int nin;
	uint32_t op;
	uint32_t dtype;
	bool div;
	float fdiv;
	int64_t idiv;
	uint64_t n;
	uint64_t nblk;
	unsigned int nslices;
};

/* d = a op b; @d is neither @a nor @b */
ACC_INLINE void f_op3(uint32_t op, float *restrict d, const float *restrict a,
		      const float *restrict b, unsigned int n)
{
	unsigned int i;

	if (op == HPU_TPC_ACC_SUM)
		for (i = 0; i < n; i++)
			d[i] = a[i] + b[i];
	else if (op == HPU_TPC_ACC_MIN)
		for (i = 0; i < n; i++)
			d[i] = F_MIN(a[i], b[i]);
	else
		for (i = 0; i < n; i++)
			d[i] = F_MAX(a[i], b[i]);
}

/* d = d op b */
ACC_INLINE void f_op2(uint32_t op, float *restrict d, const float *restrict b,
		      unsigned int n)
{
	unsigned int i;

	if (op == HPU_TPC_ACC_SUM)
		for (i = 0; i < n; i++)
			d[i] += b[i];
	else if (op == HPU_TPC_ACC_MIN)
		for (i = 0; i < n; i++)
			d[i] = F_MIN(d[i], b[i]);
	else
		for (i = 0; i < n; i++)
			d[i] = F_MAX(d[i], b[i]);
}

ACC_INLINE void i_op3(uint32_t op, int32_t *restrict d,
		      const int32_t *restrict a, const int32_t *restrict b,
		      unsigned int n)
{
	unsigned int i;

	if (op == HPU_TPC_ACC_SUM)
		for (i = 0; i < n; i++)
			d[i] = I_ADD(a[i], b[i]);
	else if (op == HPU_TPC_ACC_MIN)
		for (i = 0; i < n; i++)
			d[i] = I_MIN(a[i], b[i]);
	else
		for (i = 0; i < n; i++)
			d[i] = I_MAX(a[i], b[i]);
}

ACC_INLINE void i_op2(uint32_t op, int32_t *restrict d,
		      const int32_t *restrict b, unsigned int n)
{
	unsigned int i;

	if (op == HPU_TPC_ACC_SUM)
		for (i = 0; i < n; i++)
			d[i] = I_ADD(d[i], b[i]);
	else if (op == HPU_TPC_ACC_MIN)
		for (i = 0; i < n; i++)
			d[i] = I_MIN(d[i], b[i]);
	else
		for (i = 0; i < n; i++)
			d[i] = I_MAX(d[i], b[i]);
}

/*
 * d = op(x0, a1, ..., a(K-1)) in one pass, x0 being @d itself when
 * @inplace, else @a0: contiguous fp32 operands stream once through the
 * cache instead of once per input (K constant when inlined)
 */
ACC_INLINE void f_fuse(uint32_t op, unsigned int K, bool inplace,
		       float *restrict d, const float *restrict a0,
		       const float *const *a, unsigned int n)
{
	const float *restrict a1 = a[1], *restrict a2 = a[2];
	const float *restrict a3 = a[3], *restrict a4 = a[4];
	const float *restrict a5 = a[5], *restrict a6 = a[6];
	unsigned int i;

#define FUSE(F)                                             \
	for (i = 0; i < n; i++) {                           \
		float v = F(inplace ? d[i] : a0[i], a1[i]); \
		if (K > 2)                                  \
			v = F(v, a2[i]);                    \
		if (K > 3)                                  \
			v = F(v, a3[i]);                    \
		if (K > 4)                                  \
			v = F(v, a4[i]);                    \
		if (K > 5)                                  \
			v = F(v, a5[i]);                    \
		if (K > 6)                                  \
			v = F(v, a6[i]);                    \
		d[i] = v;                                   \
	}
#define F_ADD(x, y) ((x) + (y))
	if (op == HPU_TPC_ACC_SUM)
		FUSE(F_ADD)
	else if (op == HPU_TPC_ACC_MIN)
		FUSE(F_MIN)
	else
		FUSE(F_MAX)
#undef F_ADD
#undef FUSE
}

/* f_fuse() with K and @inplace made constants */
ACC_INLINE void f_fuse_k(uint32_t op, unsigned int K, float *d,
			 const float *const *a, unsigned int n)
{
	bool in = d == a[0];

#define K_CASE(k)                                            \
	case k:                                              \
		if (in)                                      \
			f_fuse(op, k, true, d, NULL, a, n);  \
		else                                         \
			f_fuse(op, k, false, d, a[0], a, n); \
		break
	switch (K) {
		K_CASE(2);
		K_CASE(3);
		K_CASE(4);
		K_CASE(5);
		K_CASE(6);
	default:
		K_CASE(7);
	}
#undef K_CASE
}

/*
 * @n values of a fp32 or bf16 operand at @p (stride @s) as fp32: the
 * operand itself when it is contiguous fp32, else converted into @buf
 */
ACC_INLINE const float *f_view(uint32_t dtype, const uint8_t *p, uint64_t s,
			       unsigned int n, float *buf)
{
	const uint16_t *h = (const uint16_t *)(const void *)p;
	const float *f = (const float *)(const void *)p;
	unsigned int i;

	if (dtype == HPU_DTYPE_FP32) {
		if (s == 1)
			return f;
		for (i = 0; i < n; i++)
			buf[i] = f[i * s];
	} else if (s == 1) {
		for (i = 0; i < n; i++)
			buf[i] = hpu_bf16_to_f32(h[i]);
	} else {
		for (i = 0; i < n; i++)
			buf[i] = hpu_bf16_to_f32(h[i * s]);
	}
	return buf;
}

ACC_INLINE const int32_t *i_view(const uint8_t *p, uint64_t s, unsigned int n,
				 int32_t *buf)
{
	const int32_t *v = (const int32_t *)(const void *)p;
	unsigned int i;

	if (s == 1)
		return v;
	for (i = 0; i < n; i++)
		buf[i] = v[i * s];
	return buf;
}

/* Divide and store @n accumulated values; @acc is the output if @direct */
ACC_INLINE void f_store(const struct acc_job *j, float *acc, uint8_t *p,
			uint64_t s, unsigned int n, bool direct)
{
	uint16_t *h = (uint16_t *)(void *)p;
	float *o = (float *)(void *)p, fd = j->fdiv;
	unsigned int i;

	if (j->div)
		for (i = 0; i < n; i++)
			acc[i] /= fd;
	if (direct)
		return;
	if (j->dtype == HPU_DTYPE_FP32)
		for (i = 0; i < n; i++)
			o[i * s] = acc[i];
	else if (s == 1)
		for (i = 0; i < n; i++)
			h[i] = hpu_f32_to_bf16(acc[i]);
	else
		for (i = 0; i < n; i++)
			h[i * s] = hpu_f32_to_bf16(acc[i]);
}

/* One block of a fp32/bf16 accumulate: operand k at @p[k], stride @s[k] */
ACC_INLINE void f_seg(const struct acc_job *j, uint8_t *const *p,
		      const uint64_t *s, unsigned int n)
{
	float abuf[BLK], tbuf[BLK];
	bool direct = j->dtype == HPU_DTYPE_FP32 && s[0] == 1;
	float *acc = direct ? (float *)(void *)p[0] : abuf;
	const float *a, *b, *in[HPU_TPC_MAX_TENSORS - 1];
	unsigned int k;

	/* contiguous fp32 everywhere: every input in one pass */
	for (k = 0; direct && k < j->nin && s[k + 1] == 1; k++)
		in[k] = (const float *)(const void *)p[k + 1];
	if (direct && k == j->nin && k >= 2) {
		for (; k < HPU_TPC_MAX_TENSORS - 1; k++)
			in[k] = in[1]; /* unread */
		f_fuse_k(j->op, j->nin, acc, in, n);
		f_store(j, acc, p[0], s[0], n, direct);
		return;
	}

	/* in0 lands in @acc unless it is contiguous fp32 */
	a = f_view(j->dtype, p[1], s[1], n, acc);
	if (j->nin == 1) {
		if (a != acc)
			memcpy(acc, a, n * sizeof(*acc));
	} else {
		b = f_view(j->dtype, p[2], s[2], n, tbuf);
		if (a == acc)
			f_op2(j->op, acc, b, n);
		else
			f_op3(j->op, acc, a, b, n);
		for (k = 3; k <= j->nin; k++)
			f_op2(j->op, acc, f_view(j->dtype, p[k], s[k], n, tbuf),
			      n);
	}
	f_store(j, acc, p[0], s[0], n, direct);
}

/* One block of an int32 accumulate */
ACC_INLINE void i_seg(const struct acc_job *j, uint8_t *const *p,
		      const uint64_t *s, unsigned int n)
{
	int32_t abuf[BLK], tbuf[BLK];
	bool direct = s[0] == 1;
	int32_t *acc = direct ? (int32_t *)(void *)p[0] : abuf;
	int32_t *o = (int32_t *)(void *)p[0];
	const int32_t *a, *b;
	unsigned int k, i;

	a = i_view(p[1], s[1], n, acc);
	if (j->nin == 1) {
		if (a != acc)
			memcpy(acc, a, n * sizeof(*acc));
	} else {
		b = i_view(p[2], s[2], n, tbuf);
		if (a == acc)
			i_op2(j->op, acc, b, n);
		else
			i_op3(j->op, acc, a, b, n);
		for (k = 3; k <= j->nin; k++)
			i_op2(j->op, acc, i_view(p[k], s[k], n, tbuf), n);
	}
	/* C division truncates toward zero; int64 keeps any divisor exact */
	if (j->div)
		for (i = 0; i < n; i++)
			acc[i] = (int32_t)(acc[i] / j->idiv);
	if (!direct)
		for (i = 0; i < n; i++)
			o[i * s[0]] = acc[i];
}

/* One block of up to BLK elements; full blocks take the vectorized code */
static void seg(const struct acc_job *j, uint8_t *const *p, const uint64_t *s,
		unsigned int n)
{
	if (j->dtype == HPU_DTYPE_INT32) {
		if (n == BLK)
			i_seg(j, p, s, BLK);
		else
			i_seg(j, p, s, n);
	} else if (n == BLK) {
		f_seg(j, p, s, BLK);
	} else {
		f_seg(j, p, s, n);
	}
}

/* Slice @k of the blocks of a dense accumulate (struct hputpc_pool.run) */
static void dense_slice(void *arg, unsigned int k)
{
	static const uint64_t ones[HPU_TPC_MAX_TENSORS] = { 1, 1, 1, 1,
							    1, 1, 1, 1 };
	const struct acc_job *j = arg;
	size_t es = hputpc_dtype_size(j->dtype);
	uint64_t b = j->nblk * k / j->nslices;
	uint64_t end = j->nblk * (k + 1) / j->nslices;
	uint8_t *p[HPU_TPC_MAX_TENSORS];
	unsigned int i;

	for (; b < end; b++) {
		uint64_t e0 = b * BLK;

		for (i = 0; i <= j->nin; i++)
			p[i] = j->c->t[i].p + e0 * es;
		seg(j, p, ones,
		    j->n - e0 < BLK ? (unsigned int)(j->n - e0) : BLK);
	}
}

/* Elements of @t laid out one after another (size-1 dimensions aside) */
static bool dense(const struct hputpc_operand *t)
{
	uint64_t want = 1;
	uint32_t d;

	for (d = 0; d < t->ndims; d++) {
		if (t->sizes[d] != 1 && t->strides[d] != want)
			return false;
		want *= t->sizes[d];
	}
	return true;
}

/* Any layout: rows in order on this thread, blocks along each row */
static void strided(const struct acc_job *j)
{
	const struct hputpc_operand *t = j->c->t;
	size_t es = hputpc_dtype_size(j->dtype);
	uint64_t len = t[0].sizes[0], rows = t[0].n / len, r, i0;
	uint64_t off[HPU_TPC_MAX_TENSORS], s[HPU_TPC_MAX_TENSORS];
	uint8_t *p[HPU_TPC_MAX_TENSORS];
	unsigned int i;

	for (i = 0; i <= j->nin; i++)
		s[i] = t[i].strides[0];
	for (r = 0; r < rows; r++) {
		for (i = 0; i <= j->nin; i++)
			off[i] = hputpc_row_off(&t[i], r);
		for (i0 = 0; i0 < len; i0 += BLK) {
			for (i = 0; i <= j->nin; i++)
				p[i] = t[i].p + (off[i] + i0 * s[i]) * es;
			seg(j, p, s,
			    len - i0 < BLK ? (unsigned int)(len - i0) : BLK);
		}
	}
}

/* out, in0 .. in(K-1): one dtype and shape; out is in0 or apart from all */
static int check_accumulate(const struct hpu_pkt_tpc_kernel *k)
{
	const struct hpu_tpc_tensor *o = T(0);
	unsigned int i;

	if (P(0) > HPU_TPC_ACC_MAX)
		return -EINVAL;
	if (o->dtype != HPU_DTYPE_FP32 && o->dtype != HPU_DTYPE_BF16 &&
	    o->dtype != HPU_DTYPE_INT32)
		return -EINVAL;
	/* p1, the divisor, has a meaning for every value: 0, 1 none */
	for (i = 1; i < k->num_tensors; i++) {
		const struct hpu_tpc_tensor *in = T(i);

		if (in->dtype != o->dtype || !hputpc_same_shape(o, in))
			return -EINVAL;
		if (i == 1 && in->addr == o->addr &&
		    !memcmp(in->strides, o->strides, sizeof(o->strides)))
			continue; /* in place */
		if (hputpc_extents_meet(o, in))
			return -EINVAL;
	}
	return 0;
}

static int hputpc_accumulate(struct hputpc_ctx *c)
{
	struct acc_job j = { .c = c };
	uint32_t dv = c->params[1];
	unsigned int i;
	bool all_dense = true;

	if (!c->t[0].n)
		return 0;
	j.nin = c->nt - 1;
	j.op = c->params[0];
	j.dtype = c->t[0].dtype;
	j.div = dv >= 2;
	j.fdiv = (float)dv;
	j.idiv = dv;
	for (i = 0; i <= j.nin; i++)
		all_dense = all_dense && dense(&c->t[i]);
	if (!all_dense) {
		strided(&j);
		return 0;
	}
	j.n = c->t[0].n;
	j.nblk = (j.n + BLK - 1) / BLK;
	hputpc_par_run(c, dense_slice, &j, &j.nslices, j.n);
	return 0;
}

/* The kernels of this family: rules and bodies above */
static const struct hputpc_kernel kernels[] = {
	/* 2..8 operands: out and K = 1..7 inputs */
	{ .id = HPU_TPC_KERNEL_ACCUMULATE,
	  .name = "accumulate",
	  .ntensors = HPU_TPC_MAX_TENSORS,
	  .min_tensors = 2,
	  .nparams = 2,
	  .check = check_accumulate,
	  .exec = hputpc_accumulate },
};

const struct hputpc_family hputpc_family_accumulate = {
	.name = "accumulate",
	.kernels = kernels,
	.count = HPUTPC_ARRAY_SIZE(kernels),
};
