// SPDX-License-Identifier: MIT
/*
 * test_mme_engine.c - the MME engine (firmware-sim/mme.c) through the
 * model API: MME_GEMM command buffers on an MME queue against a triple-
 * loop reference in double precision on random inputs; faults and engine
 * errors; single-row products that two MMEs split, bit for bit against
 * the in-process BLAS; and libhpudrv's emitter (hpu_cb_mme_gemm).
 *
 * Tolerances: fp32 C: |got - ref| <= 1e-5 * (k + 1) * (|alpha| *
 * sum |a||b| + |beta c|) (fp32 accumulation in any order). bf16 C: within
 * 1 bf16 ulp of the reference rounded to bf16, or within the fp32 bound.
 * NaN in the reference must be NaN, an infinity the same infinity.
 */
#include <math.h>

#include "../lib/hpu_test_fw.h"
#include "hpu_bf16.h"
#include "hpu_blas.h"
#include "hpu_mme_check.h"
#include "hpudrv.h"
#include "../../libhpudrv/hpudrv_internal.h"

/* A page-aligned host buffer mapped like pinned memory (map_shared) */
struct sbuf {
	uint8_t *p;
	uint64_t size;
	uint64_t va;
};

static void sbuf_map(struct hpu_test_fw *f, struct sbuf *b, uint64_t bytes)
{
	b->size = (bytes + 4095) & ~4095ULL;
	b->p = aligned_alloc(4096, b->size);
	assert_non_null(b->p);
	memset(b->p, 0, b->size);
	b->va = 0;
	assert_int_equal(hpusim_model.ops->map_shared(f->as, b->p, b->size, 0,
						      false, &b->va),
			 0);
}

static void sbuf_unmap(struct hpu_test_fw *f, struct sbuf *b)
{
	assert_int_equal(hpusim_model.ops->unmap(f->as, b->va, NULL), 0);
	free(b->p);
}

/**
 * struct gcase - one GEMM configuration
 * @m, @n, @k: shape
 * @flags: HPU_MME_F_*
 * @pad_a, @pad_b, @pad_c: leading dimension minus the stored row length
 * @batch: products
 * @bcast: bit 0: A broadcast (stride 0), bit 1: B broadcast
 * @dab, @dc: dtypes
 * @alpha, @beta: scalars
 */
struct gcase {
	uint32_t m, n, k;
	uint16_t flags;
	uint32_t pad_a, pad_b, pad_c;
	uint32_t batch;
	unsigned int bcast;
	uint16_t dab, dc;
	float alpha, beta;
};

static uint32_t rnd_state;

static float rnd(void)
{
	rnd_state = rnd_state * 1103515245U + 12345U;
	return (float)((rnd_state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static float get(const uint8_t *p, uint16_t dt, uint64_t i)
{
	if (dt == HPU_DTYPE_BF16)
		return hpu_bf16_to_f32(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static void put(uint8_t *p, uint16_t dt, uint64_t i, float v)
{
	if (dt == HPU_DTYPE_BF16)
		((uint16_t *)p)[i] = hpu_f32_to_bf16(v);
	else
		((float *)p)[i] = v;
}

static float f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Operand storage of @g (as the engine sees it) */
static uint64_t op_elems(const struct hpu_pkt_mme_gemm *g, unsigned int w,
			 struct hpu_mme_operand *op)
{
	hpu_mme_operand(g, w, op);
	return (uint64_t)(g->batch - 1) * op->stride +
	       ((uint64_t)op->rows - 1) * op->ld + op->cols;
}

/* Element (r, c) of op(X) of product @i */
static double opx(const struct hpu_mme_operand *op, const uint8_t *p,
		  uint16_t dt, bool trans, uint32_t i, uint32_t r, uint32_t c)
{
	uint64_t base = (uint64_t)i * op->stride;

	return trans ? get(p, dt, base + (uint64_t)c * op->ld + r) :
		       get(p, dt, base + (uint64_t)r * op->ld + c);
}

static bool close_enough(double ref, double bound, float got, uint16_t dc)
{
	if (isnan(ref))
		return isnan(got);
	if (isinf(ref))
		return got == ref;
	if (fabs(got - ref) <= bound)
		return true;
	if (dc == HPU_DTYPE_BF16) {
		int32_t a = (int32_t)hpu_f32_to_bf16((float)ref);
		int32_t b = (int32_t)hpu_f32_to_bf16(got);

		if ((a ^ b) & 0x8000) /* different signs: only near 0 */
			return fabs(got - ref) <= bound;
		return abs(a - b) <= 1;
	}
	return false;
}

/*
 * Compare C with the reference computed from A, B and C0 (the initial C);
 * elements between rows (ld padding) must be untouched.
 */
static void check_c(const struct hpu_pkt_mme_gemm *g, const uint8_t *a,
		    const uint8_t *b, const uint8_t *c0, const uint8_t *c)
{
	struct hpu_mme_operand oa, ob, oc;
	double alpha = f32_of(g->alpha), beta = f32_of(g->beta);
	bool ta = g->hdr.flags & HPU_MME_F_TRANS_A;
	bool tb = g->hdr.flags & HPU_MME_F_TRANS_B;
	uint64_t ce = op_elems(g, HPU_MME_OP_C, &oc), e;
	uint32_t i, r, col, kk;

	op_elems(g, HPU_MME_OP_A, &oa);
	op_elems(g, HPU_MME_OP_B, &ob);
	for (e = 0; e < ce; e++) {
		uint64_t in = e % g->stride_c;

		if (g->batch > 1 && in >= (uint64_t)g->m * g->ldc)
			continue;
		if (in % g->ldc >= g->n)
			assert_int_equal(get(c0, g->dtype_c,
					     e) == get(c, g->dtype_c, e) ||
						 isnan(get(c, g->dtype_c, e)),
					 1);
	}
	for (i = 0; i < g->batch; i++)
		for (r = 0; r < g->m; r++)
			for (col = 0; col < g->n; col++) {
				double s = 0, sa = 0, ref, bound, old = 0;
				uint64_t at = (uint64_t)i * g->stride_c +
					      (uint64_t)r * g->ldc + col;
				float got = get(c, g->dtype_c, at);

				for (kk = 0; kk < g->k; kk++) {
					double x = opx(&oa, a, g->dtype_ab, ta,
						       i, r, kk);
					double y = opx(&ob, b, g->dtype_ab, tb,
						       i, kk, col);

					s += x * y;
					sa += fabs(x * y);
				}
				if (beta != 0)
					old = get(c0, g->dtype_c, at);
				ref = alpha * s + (beta != 0 ? beta * old : 0);
				bound = 1e-5 * (g->k + 1) *
						(fabs(alpha) * sa +
						 fabs(beta * old)) +
					1e-30;
				if (!close_enough(ref, bound, got, g->dtype_c))
					fail_msg("C[%u][%u][%u] = %.9g, "
						 "reference %.9g (bound %.3g)",
						 i, r, col, got, ref, bound);
			}
}

static void fill_operand(uint8_t *p, uint16_t dt, uint64_t elems)
{
	uint64_t e;

	for (e = 0; e < elems; e++)
		put(p, dt, e, rnd());
}

/* Build the packet of @gc for the given base addresses */
static struct hpu_pkt_mme_gemm make_gemm(const struct gcase *gc)
{
	struct hpu_pkt_mme_gemm g;
	bool ta = gc->flags & HPU_MME_F_TRANS_A;
	bool tb = gc->flags & HPU_MME_F_TRANS_B;

	memset(&g, 0, sizeof(g));
	g.hdr.opcode = HPU_PACKET_MME_GEMM;
	g.hdr.size = sizeof(g);
	g.hdr.flags = gc->flags;
	g.m = gc->m;
	g.n = gc->n;
	g.k = gc->k;
	g.lda = (ta ? gc->m : gc->k) + gc->pad_a;
	g.ldb = (tb ? gc->k : gc->n) + gc->pad_b;
	g.ldc = gc->n + gc->pad_c;
	g.batch = gc->batch;
	g.stride_a = (gc->bcast & 1) ?
			     0 :
			     (uint64_t)(ta ? gc->k : gc->m) * g.lda + 3;
	g.stride_b = (gc->bcast & 2) ?
			     0 :
			     (uint64_t)(tb ? gc->n : gc->k) * g.ldb + 1;
	g.stride_c = (uint64_t)gc->m * g.ldc + 2;
	g.dtype_ab = gc->dab;
	g.dtype_c = gc->dc;
	g.alpha = bits_of(gc->alpha);
	g.beta = bits_of(gc->beta);
	return g;
}

/* Run @gc on shared buffers; @poison: special values to plant */
static void run_case(struct hpu_test_fw *f, const struct gcase *gc, int poison)
{
	struct hpu_pkt_mme_gemm g = make_gemm(gc);
	struct hpu_mme_operand oa, ob, oc;
	uint64_t ea = op_elems(&g, HPU_MME_OP_A, &oa);
	uint64_t eb = op_elems(&g, HPU_MME_OP_B, &ob);
	uint64_t ec = op_elems(&g, HPU_MME_OP_C, &oc);
	struct sbuf a, b, c;
	struct hpu_test_cb cb = { .len = 0 };
	uint8_t *c0;

	sbuf_map(f, &a, ea * oa.esize);
	sbuf_map(f, &b, eb * ob.esize);
	sbuf_map(f, &c, ec * oc.esize);
	fill_operand(a.p, g.dtype_ab, ea);
	fill_operand(b.p, g.dtype_ab, eb);
	fill_operand(c.p, g.dtype_c, ec);
	if (poison == 1) /* beta 0: C must not be read */
		for (uint64_t e = 0; e < ec; e++)
			put(c.p, g.dtype_c, e, NAN);
	if (poison == 2) { /* NaN in op(A)[0][0], Inf in op(A)[1][0] */
		put(a.p, g.dtype_ab, 0, NAN);
		put(a.p, g.dtype_ab,
		    g.hdr.flags & HPU_MME_F_TRANS_A ? 1 : g.lda, INFINITY);
	}
	c0 = hpu_test_xmalloc(ec * oc.esize);
	memcpy(c0, c.p, ec * oc.esize);
	g.a_addr = a.va;
	g.b_addr = b.va;
	g.c_addr = c.va;
	assert_int_equal(hpu_mme_gemm_check(&g), 0);
	memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, sizeof(g),
					  g.hdr.flags) +
		       sizeof(g.hdr),
	       (uint8_t *)&g + sizeof(g.hdr), sizeof(g) - sizeof(g.hdr));
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, NULL), HPU_FW_CS_OK);
	check_c(&g, a.p, b.p, c0, c.p);
	if (poison == 1)
		for (uint32_t r = 0; r < g.m; r++)
			assert_false(isnan(
				get(c.p, g.dtype_c, (uint64_t)r * g.ldc)));
	if (poison == 2) {
		assert_true(isnan(get(c.p, g.dtype_c, 0)));
		if (g.m > 1)
			assert_false(isfinite(get(c.p, g.dtype_c, g.ldc)));
	}
	free(c0);
	sbuf_unmap(f, &a);
	sbuf_unmap(f, &b);
	sbuf_unmap(f, &c);
}

#define F32 HPU_DTYPE_FP32
#define B16 HPU_DTYPE_BF16
#define TA  HPU_MME_F_TRANS_A
#define TB  HPU_MME_F_TRANS_B

static void test_fp32(void **state)
{
	static const struct gcase cases[] = {
		{ 1, 1, 1, 0, 0, 0, 0, 1, 0, F32, F32, 1.0f, 0.0f },
		{ 17, 33, 5, 0, 0, 0, 0, 1, 0, F32, F32, 1.0f, 0.0f },
		{ 129, 1, 257, 0, 0, 0, 0, 1, 0, F32, F32, 1.0f, 0.0f },
		{ 64, 48, 80, 0, 0, 0, 0, 1, 0, F32, F32, 0.5f, 2.0f },
		{ 31, 29, 37, TA, 0, 0, 0, 1, 0, F32, F32, 1.0f, 1.0f },
		{ 31, 29, 37, TB, 0, 0, 0, 1, 0, F32, F32, -1.5f, 0.25f },
		{ 31, 29, 37, TA | TB, 0, 0, 0, 1, 0, F32, F32, 1.0f, -1.0f },
		{ 20, 18, 22, 0, 5, 7, 3, 1, 0, F32, F32, 1.0f, 1.0f },
		{ 20, 18, 22, TA | TB, 3, 1, 9, 1, 0, F32, F32, 2.0f, 0.5f },
	};
	unsigned int i;

	rnd_state = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(*state, &cases[i], 0);
}

static void test_bf16(void **state)
{
	static const struct gcase cases[] = {
		{ 1, 1, 1, 0, 0, 0, 0, 1, 0, B16, F32, 1.0f, 0.0f },
		{ 17, 33, 5, 0, 0, 0, 0, 1, 0, B16, B16, 1.0f, 0.0f },
		{ 129, 1, 257, TA, 0, 0, 0, 1, 0, B16, F32, 1.0f, 1.0f },
		{ 33, 17, 65, TB, 2, 3, 4, 1, 0, B16, B16, 0.5f, 2.0f },
		{ 40, 24, 56, 0, 0, 0, 0, 1, 0, F32, B16, 1.0f, 1.0f },
	};
	unsigned int i;

	rnd_state = 2;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(*state, &cases[i], 0);
}

static void test_batched(void **state)
{
	static const struct gcase cases[] = {
		{ 9, 7, 11, 0, 1, 2, 3, 4, 0, F32, F32, 1.0f, 0.5f },
		{ 9, 7, 11, TA, 0, 0, 0, 3, 1, F32, F32, 1.0f, 0.0f },
		{ 9, 7, 11, TB, 0, 0, 0, 3, 2, B16, B16, 1.0f, 1.0f },
		{ 5, 6, 7, TA | TB, 2, 0, 1, 5, 3, B16, F32, -1.0f, 1.0f },
	};
	unsigned int i;

	rnd_state = 3;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(*state, &cases[i], 0);
}

static void test_special_values(void **state)
{
	static const struct gcase zero_beta[] = {
		{ 13, 11, 7, 0, 0, 0, 2, 1, 0, F32, F32, 1.0f, 0.0f },
		{ 13, 11, 7, 0, 0, 0, 2, 2, 0, B16, B16, 1.0f, 0.0f },
	};
	static const struct gcase nan_a[] = {
		{ 6, 5, 4, 0, 0, 0, 0, 1, 0, F32, F32, 1.0f, 1.0f },
		{ 6, 5, 4, TA, 0, 0, 0, 1, 0, B16, B16, 1.0f, 0.0f },
	};
	unsigned int i;

	rnd_state = 4;
	for (i = 0; i < 2; i++)
		run_case(*state, &zero_beta[i], 1);
	for (i = 0; i < 2; i++)
		run_case(*state, &nan_a[i], 2);
}

#define MAX_PIECES 65536

/* Operands in device memory split over two physical extents are staged */
static void test_hbm_scattered(void **state)
{
	struct hpu_test_fw *f = *state;
	const struct gcase gc = { 64, 64, 64,  0,   0,	  0,   0,
				  1,  0,  F32, F32, 1.0f, 1.0f };
	struct hpu_pkt_mme_gemm g = make_gemm(&gc);
	struct hpu_fw_mem **pieces = calloc(MAX_PIECES, sizeof(*pieces));
	uint64_t page = 64 * KiB;
	uint64_t bytes = 64 * 64 * 4, hva, dva, off;
	struct hpu_fw_mem *big;
	uint8_t *host = hpu_test_xmalloc(3 * bytes),
		*c0 = hpu_test_xmalloc(bytes);
	struct hpu_test_cb cb = { .len = 0 };
	unsigned int i, n = 0;

	assert_non_null(pieces);
	rnd_state = 5;
	/* fill SRAM, free every other piece: a two-piece allocation is
	 * then split over two extents that are not adjacent */
	while (n < MAX_PIECES &&
	       !hpusim_model.ops->mem_alloc(f->dev, page, 0, false, true,
					    &pieces[n]))
		n++;
	assert_true(n > 4 && n < MAX_PIECES);
	for (i = 0; i < n; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(pieces[i]), 0);
	assert_int_equal(hpusim_model.ops->mem_alloc(f->dev, 2 * page, 0, false,
						     true, &big),
			 0);
	assert_true(big->nr_ext >= 2);
	assert_int_equal(hpusim_model.ops->map_mem(f->as, big, 0, false, &dva),
			 0);
	hva = hpu_test_fw_map_host(f, host, 3 * bytes);
	/* C, then B, across the boundary of the two extents */
	for (i = 0; i < 2; i++) {
		off = page - bytes / 2 - (2 - i) * bytes;
		fill_operand(host, F32, 3 * bytes / 4);
		memcpy(c0, host + 2 * bytes, bytes);
		cb.len = 0;
		hpu_test_cb_dma(&cb, dva + off, hva, 3 * bytes);
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
				 HPU_FW_CS_OK);
		g.a_addr = dva + off;
		g.b_addr = dva + off + bytes;
		g.c_addr = dva + off + 2 * bytes;
		cb.len = 0;
		memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM,
						  sizeof(g), 0) +
			       sizeof(g.hdr),
		       (uint8_t *)&g + sizeof(g.hdr),
		       sizeof(g) - sizeof(g.hdr));
		assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, NULL),
				 HPU_FW_CS_OK);
		cb.len = 0;
		hpu_test_cb_dma(&cb, hva + 2 * bytes, g.c_addr, bytes);
		assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, NULL),
				 HPU_FW_CS_OK);
		check_c(&g, host, host + bytes, c0, host + 2 * bytes);
	}
	hpu_test_fw_unmap_host(f, hva);
	hpu_test_fw_unmap_dev(f, dva, big);
	for (i = 1; i < n; i += 2)
		assert_int_equal(hpusim_model.ops->mem_free(pieces[i]), 0);
	free(pieces);
	free(host);
	free(c0);
}

/* Faults and engine errors: C untouched */
static void test_faults(void **state)
{
	struct hpu_test_fw *f = *state;
	const struct gcase gc = { 8, 8, 8,   0,	  0,	0,   0,
				  2, 0, F32, F32, 1.0f, 0.0f };
	struct hpu_pkt_mme_gemm g = make_gemm(&gc);
	struct sbuf a, b, c;
	struct hpu_fw_fault fault;
	struct hpu_test_cb cb = { .len = 0 };
	uint8_t *pageable = aligned_alloc(4096, 8192);
	uint64_t hva;

	assert_non_null(pageable);
	sbuf_map(f, &a, 4096);
	sbuf_map(f, &b, 4096);
	sbuf_map(f, &c, 4096);
	memset(c.p, 0x5a, c.size);
	g.a_addr = a.va;
	g.b_addr = b.va;
	g.c_addr = c.va;

	/* A unmapped */
	g.a_addr = HPU_FW_VA_DEVICE_BASE - 4096;
	memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, sizeof(g),
					  0) +
		       sizeof(g.hdr),
	       (uint8_t *)&g + sizeof(g.hdr), sizeof(g) - sizeof(g.hdr));
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, g.a_addr);
	assert_false(fault.is_write);
	assert_int_equal(fault.engine, f->mme0);

	/* the second product of C runs past its mapping: nothing written */
	g.a_addr = a.va;
	g.c_addr = c.va + c.size - 8 * 8 * 4 - 4;
	cb.len = 0;
	memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, sizeof(g),
					  0) +
		       sizeof(g.hdr),
	       (uint8_t *)&g + sizeof(g.hdr), sizeof(g) - sizeof(g.hdr));
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, g.c_addr + g.stride_c * 4);
	assert_true(fault.is_write);

	/* B in pageable host memory: engine error */
	hva = hpu_test_fw_map_host(f, pageable, 8192);
	g.c_addr = c.va;
	g.b_addr = hva;
	cb.len = 0;
	memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, sizeof(g),
					  0) +
		       sizeof(g.hdr),
	       (uint8_t *)&g + sizeof(g.hdr), sizeof(g) - sizeof(g.hdr));
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);

	/* a GEMM on a DMA or TPC queue, or a malformed one */
	g.b_addr = b.va;
	cb.len = 0;
	memcpy((uint8_t *)hpu_test_cb_put(&cb, HPU_PACKET_MME_GEMM, sizeof(g),
					  0) +
		       sizeof(g.hdr),
	       (uint8_t *)&g + sizeof(g.hdr), sizeof(g) - sizeof(g.hdr));
	assert_int_equal(hpu_test_fw_run1(f, f->dma0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_fw_run1(f, f->mme0 + f->dev->profile->num_mme,
					  &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	((struct hpu_pkt_mme_gemm *)cb.buf)->ldc = 1;
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	for (uint64_t i = 0; i < c.size; i++)
		assert_int_equal(c.p[i], 0x5a);

	/* and the good one runs */
	((struct hpu_pkt_mme_gemm *)cb.buf)->ldc = 8;
	assert_int_equal(hpu_test_fw_run1(f, f->mme0, &cb, &fault),
			 HPU_FW_CS_OK);
	assert_int_not_equal(c.p[0], 0x5a);

	hpu_test_fw_unmap_host(f, hva);
	free(pageable);
	sbuf_unmap(f, &a);
	sbuf_unmap(f, &b);
	sbuf_unmap(f, &c);
}

/* libhpudrv's emitter: the caller's packet, header filled; the rules */
/*
 * Single-row products with B transposed, the ones the gaudi2 device's two
 * MMEs split (docs/mme.md "Two MMEs"): run 6 times each through the
 * engine, twice in each split mode (auto: as a pool worker is spare;
 * always: split even if the MME's thread runs both blocks; never), C has
 * the bits of one hpu_blas_sgemm() call in this process. Odd widths and depths, a
 * padded B, A as a row and as a column.
 */
static void test_split_row(void **state)
{
	static const uint32_t shapes[][2] = {
		{ 301, 97 }, { 130, 131 }, { 1023, 33 }, { 384, 128 }
	};
	struct hpu_test_fw *f = *state;
	unsigned int sh, rep;

	assert_true(f->dev->profile->num_mme >= 2);
	assert_int_equal(hpusim_mme_set_split(3), -EINVAL);
	for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		uint32_t n = shapes[sh][0], k = shapes[sh][1];
		bool ta = sh & 1;
		uint32_t lda = ta ? 3 : k, ldb = k + 5;
		uint64_t ea = ta ? (uint64_t)(k - 1) * lda + 1 : k;
		struct hpu_pkt_mme_gemm g;
		struct sbuf a, b, c;
		float *c0, *want;
		uint64_t e;

		assert_true(hpu_blas_split_col(true, 1, n, k) > 0);
		sbuf_map(f, &a, ea * 4);
		sbuf_map(f, &b, (uint64_t)n * ldb * 4);
		sbuf_map(f, &c, (uint64_t)n * 4);
		fill_operand(a.p, F32, ea);
		fill_operand(b.p, F32, (uint64_t)n * ldb);
		fill_operand(c.p, F32, n);
		c0 = hpu_test_xmalloc((uint64_t)n * 4);
		want = hpu_test_xmalloc((uint64_t)n * 4);
		memcpy(c0, c.p, (uint64_t)n * 4);
		memcpy(want, c.p, (uint64_t)n * 4);
		hpu_blas_begin(1, n, k);
		hpu_blas_sgemm(ta, true, 1, n, k, 0.75f, (float *)a.p, lda,
			       (float *)b.p, ldb, 1.0f, want, n);
		hpu_blas_end();

		memset(&g, 0, sizeof(g));
		g.hdr.opcode = HPU_PACKET_MME_GEMM;
		g.hdr.size = sizeof(g);
		g.hdr.flags = TB | (ta ? TA : 0);
		g.a_addr = a.va;
		g.b_addr = b.va;
		g.c_addr = c.va;
		g.m = 1;
		g.n = n;
		g.k = k;
		g.lda = lda;
		g.ldb = ldb;
		g.ldc = n;
		g.batch = 1;
		g.dtype_ab = F32;
		g.dtype_c = F32;
		g.alpha = bits_of(0.75f);
		g.beta = bits_of(1.0f);
		assert_int_equal(hpu_mme_gemm_check(&g), 0);
		/* split modes: auto, always (split even if no worker), never */
		for (rep = 0; rep < 6; rep++) {
			struct hpu_test_cb cb = { .len = 0 };

			assert_true(hpusim_mme_set_split(
					    rep % 3 == 0 ?
						    HPUSIM_MME_SPLIT_AUTO :
					    rep % 3 == 1 ?
						    HPUSIM_MME_SPLIT_ALWAYS :
						    HPUSIM_MME_SPLIT_NEVER) >=
				    0);
			memcpy(c.p, c0, (uint64_t)n * 4);
			memcpy((uint8_t *)hpu_test_cb_put(
				       &cb, HPU_PACKET_MME_GEMM, sizeof(g),
				       g.hdr.flags) +
				       sizeof(g.hdr),
			       (uint8_t *)&g + sizeof(g.hdr),
			       sizeof(g) - sizeof(g.hdr));
			assert_int_equal(hpu_test_fw_run1(f, f->mme0 + rep % 2,
							  &cb, NULL),
					 HPU_FW_CS_OK);
			for (e = 0; e < n; e++)
				if (memcmp(&((float *)c.p)[e], &want[e], 4))
					fail_msg(
						"1x%ux%u ta %d run %u: C[%lu] differs from the in-process product",
						n, k, ta, rep,
						(unsigned long)e);
		}
		assert_int_equal(hpusim_mme_set_split(HPUSIM_MME_SPLIT_AUTO),
				 HPUSIM_MME_SPLIT_NEVER);
		free(c0);
		free(want);
		sbuf_unmap(f, &a);
		sbuf_unmap(f, &b);
		sbuf_unmap(f, &c);
	}
}

static void test_emitter(void **state)
{
	const struct gcase gc = { 4, 5, 6,   TA,  0,	0,   0,
				  1, 0, F32, B16, 1.0f, 0.0f };
	struct hpu_pkt_mme_gemm g = make_gemm(&gc), out;
	struct hpu_cb_builder *b = NULL;

	g.hdr.opcode = 0;
	g.hdr.size = 0;
	g.a_addr = 0x10000;
	g.b_addr = 0x20000;
	g.c_addr = 0x30000;
	assert_int_equal(hpudrv_cb_builder_new(NULL, 4096, &b), 0);
	assert_int_equal(hpu_cb_mme_gemm(b, &g), 0);
	assert_int_equal(hpu_cb_builder_used(b), sizeof(out));
	memcpy(&out, hpu_cb_builder_data(b), sizeof(out));
	assert_int_equal(out.hdr.opcode, HPU_PACKET_MME_GEMM);
	assert_int_equal(out.hdr.size, sizeof(out));
	assert_int_equal(out.hdr.flags, TA);
	assert_memory_equal((uint8_t *)&out + sizeof(out.hdr),
			    (uint8_t *)&g + sizeof(g.hdr),
			    sizeof(out) - sizeof(out.hdr));
	/* malformed: nothing appended */
	g.lda = 3;
	assert_int_equal(hpu_cb_mme_gemm(b, &g), -EINVAL);
	g.lda = 4;
	g.dtype_ab = HPU_DTYPE_INT32;
	assert_int_equal(hpu_cb_mme_gemm(b, &g), -EINVAL);
	g.dtype_ab = F32;
	g.hdr.flags = 1U << 12;
	assert_int_equal(hpu_cb_mme_gemm(b, &g), -EINVAL);
	g.hdr.flags = 0;
	g.c_addr = ~0ULL - 8;
	assert_int_equal(hpu_cb_mme_gemm(b, &g), -EINVAL);
	assert_int_equal(hpu_cb_mme_gemm(NULL, &g), -EINVAL);
	assert_int_equal(hpu_cb_builder_used(b), sizeof(out));
	hpu_cb_builder_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fp32, hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_bf16, hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_batched, hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_special_values,
						hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_hbm_scattered,
						hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_faults, hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test_setup_teardown(test_split_row,
						hpu_test_fw_setup,
						hpu_test_fw_teardown),
		cmocka_unit_test(test_emitter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
