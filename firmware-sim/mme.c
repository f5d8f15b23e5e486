// SPDX-License-Identifier: MIT
/*
 * mme.c - the MME (matrix engine): MME_GEMM packets, computed with
 * OpenBLAS's cblas_sgemm (row-major, fp32 accumulation).
 *
 * Debian 12's OpenBLAS (0.3.21) has no bf16 GEMM (cblas_sbgemm is not
 * exported), so bf16 operands are widened to fp32 (exact) and a bf16 C is
 * computed in fp32 and rounded to nearest even once at the end.
 *
 * Cores: every GEMM of the process (all MMEs of all devices of a daemon)
 * runs under one lock with OpenBLAS's default thread count (every core),
 * except small products, which run on one thread (common/hpu_blas.h: the
 * rule the trainer's cpu backend applies too, so both give the same bits).
 * The MMEs therefore time-share the machine: never more BLAS threads than
 * cores, and one large GEMM runs as fast as OpenBLAS called directly
 * (docs/mme.md has the measurements behind this choice).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "hpu_bf16.h"
#include "hpu_blas.h"
#include "hpu_mme_check.h"
#include "hpusim.h"

/**
 * struct mme_buf - one operand of the product being computed
 * @op: its storage
 * @raw: staging copy of the product's matrix when it is not one
 *	contiguous piece (NULL otherwise)
 * @f32: the matrix widened to packed fp32 (bf16 operands), or NULL
 * @cached: product index @f32/@raw hold (stride 0 operands are reused)
 */
struct mme_buf {
	struct hpu_mme_operand op;
	uint8_t *raw;
	float *f32;
	int64_t cached;
};

/*
 * Check that [va, va + len) is mapped to memory the engine reaches
 * directly. Return 0 with *@ptr set when it is one contiguous piece
 * (NULL when it is several), -EFAULT with @fault filled, or -EIO for
 * pageable host memory.
 */
static int range_resolve(struct hpu_fw_as *as, uint64_t va, uint64_t len,
			 bool write, struct hpu_fw_fault *fault, uint8_t **ptr)
{
	struct hpusim_seg seg;
	uint64_t done = 0;

	*ptr = NULL;
	while (done < len) {
		if (hpusim_mmu_seg(as, va + done, len - done, false, &seg)) {
			fault->addr = va + done;
			fault->is_write = write;
			return -EFAULT;
		}
		if (!seg.ptr)
			return -EIO;
		if (!done && seg.len == len)
			*ptr = seg.ptr;
		done += seg.len;
	}
	return 0;
}

/* Copy between a checked VA range and a contiguous buffer */
static void range_copy(struct hpu_fw_as *as, uint64_t va, uint64_t len,
		       uint8_t *buf, bool to_dev)
{
	struct hpusim_seg seg;
	uint64_t done = 0;

	while (done < len &&
	       !hpusim_mmu_seg(as, va + done, len - done, false, &seg)) {
		if (to_dev)
			memcpy(seg.ptr, buf + done, seg.len);
		else
			memcpy(buf + done, seg.ptr, seg.len);
		done += seg.len;
	}
}

static uint64_t matrix_va(const struct hpu_mme_operand *op, uint32_t i)
{
	return op->addr + (uint64_t)i * op->stride * op->esize;
}

/* Every operand range of every product is reachable (before any write) */
static int check_ranges(struct hpu_fw_as *as, const struct hpu_pkt_mme_gemm *g,
			const struct mme_buf *bufs, struct hpu_fw_fault *fault)
{
	unsigned int w;
	uint8_t *ptr;
	uint32_t i;
	int ret;

	for (w = HPU_MME_OP_A; w <= HPU_MME_OP_C; w++) {
		const struct hpu_mme_operand *op = &bufs[w].op;
		uint32_t n = op->stride ? g->batch : 1;

		for (i = 0; i < n; i++) {
			ret = range_resolve(as, matrix_va(op, i),
					    hpu_mme_matrix_bytes(op),
					    w == HPU_MME_OP_C, fault, &ptr);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Pointer of product @i's matrix of @b as the BLAS reads it: in place,
 * staged, or widened to packed fp32 (*@ld updated). NULL: out of memory.
 */
static void *operand_get(struct hpu_fw_as *as, struct mme_buf *b, uint32_t i,
			 uint32_t *ld)
{
	const struct hpu_mme_operand *op = &b->op;
	uint64_t len = hpu_mme_matrix_bytes(op);
	int64_t key = op->stride ? (int64_t)i : 0;
	struct hpu_fw_fault unused;
	uint8_t *src;
	uint32_t r, c;

	*ld = op->ld;
	if (b->cached == key)
		goto out;
	range_resolve(as, matrix_va(op, i), len, false, &unused, &src);
	if (!src) {
		if (!b->raw)
			b->raw = malloc(len);
		if (!b->raw)
			return NULL;
		range_copy(as, matrix_va(op, i), len, b->raw, false);
		src = b->raw;
	}
	if (op->esize == 4) {
		if (src != b->raw)
			return src; /* in place: nothing to cache */
		b->cached = key;
		goto out;
	}
	if (!b->f32)
		b->f32 = malloc((uint64_t)op->rows * op->cols * sizeof(float));
	if (!b->f32)
		return NULL;
	for (r = 0; r < op->rows; r++) {
		const uint16_t *row =
			(const uint16_t *)src + (uint64_t)r * op->ld;
		float *dst = b->f32 + (uint64_t)r * op->cols;

		for (c = 0; c < op->cols; c++)
			dst[c] = hpu_bf16_to_f32(row[c]);
	}
	b->cached = key;
out:
	if (op->esize == 4)
		return b->raw;
	*ld = op->cols;
	return b->f32;
}

/**
 * struct mme_split - one product cut into two column blocks, one per MME
 * @trans_a: op(A) = A^T
 * @k: the inner dimension
 * @alpha: scale of the product
 * @a: A as the BLAS reads it, pitch @lda
 * @lda: A's pitch
 * @b: B (stored n x k: the split is for transposed B only), pitch @ldb
 * @ldb: B's pitch
 * @beta: scale of C's old value
 * @c: C's one row
 * @col: the first column of each block; @col[2] is n
 */
struct mme_split {
	bool trans_a;
	uint32_t k;
	float alpha;
	const float *a;
	uint32_t lda;
	const float *b;
	uint32_t ldb;
	float beta;
	float *c;
	uint32_t col[3];
};

/* Block @slice of a split product (a pool slice: takes no lock) */
static void mme_split_run(void *arg, unsigned int slice)
{
	const struct mme_split *sp = arg;
	uint32_t c0 = sp->col[slice], w = sp->col[slice + 1] - c0;

	hpu_blas_sgemm(sp->trans_a, true, 1, w, sp->k, sp->alpha, sp->a,
		       sp->lda, sp->b + (uint64_t)c0 * sp->ldb, sp->ldb,
		       sp->beta, sp->c + c0, w);
}

/*
 * Split products in a row whose second block no worker took, and split
 * candidates so far (the BLAS lock: one product at a time in the process)
 */
static unsigned int split_misses;
static unsigned int split_seq;

/* HPUSIM_MME_SPLIT_*, + 1 (0: not read from the environment yet) */
static unsigned int split_mode;

int hpusim_mme_set_split(unsigned int mode)
{
	unsigned int old;

	if (mode > HPUSIM_MME_SPLIT_ALWAYS)
		return -EINVAL;
	old = __atomic_exchange_n(&split_mode, mode + 1, __ATOMIC_RELAXED);
	return old ? (int)old - 1 : HPUSIM_MME_SPLIT_AUTO;
}

static unsigned int mme_split_mode(void)
{
	unsigned int m = __atomic_load_n(&split_mode, __ATOMIC_RELAXED);

	if (!m) {
		m = (unsigned int)hpusim_env_u64("HPUSIM_MME_SPLIT",
						 HPUSIM_MME_SPLIT_NEVER,
						 HPUSIM_MME_SPLIT_ALWAYS,
						 HPUSIM_MME_SPLIT_AUTO) +
		    1;
		__atomic_store_n(&split_mode, m, __ATOMIC_RELAXED);
	}
	return m - 1;
}

/*
 * The product's BLAS call, BLAS lock held. A device with two MMEs or
 * more computes a single-row product with B transposed as two column
 * blocks, one per MME (hpu_blas_split_col(): the same bits as one
 * call), when a pool worker is idle; the calling thread runs whatever
 * block no worker took, so it never waits for an idle one
 * (docs/mme.md "Two MMEs", its fairness rule included).
 */
static void mme_sgemm(const struct hpu_fw_device *dev,
		      const struct hpu_pkt_mme_gemm *g, float alpha,
		      const float *a, uint32_t lda, const float *b,
		      uint32_t ldb, float beta, float *c, uint32_t ldc)
{
	bool ta = g->hdr.flags & HPU_MME_F_TRANS_A;
	bool tb = g->hdr.flags & HPU_MME_F_TRANS_B;
	uint32_t s = hpu_blas_split_col(tb, g->m, g->n, g->k);
	enum hpusim_spare spare = HPUSIM_SPARE_NONE;
	struct mme_split sp;
	struct hpusim_par par;
	unsigned int mode;

	mode = s && dev->profile->num_mme >= 2 ? mme_split_mode() :
						 HPUSIM_MME_SPLIT_NEVER;
	if (mode == HPUSIM_MME_SPLIT_AUTO)
		spare = hpusim_par_spare();
	else if (mode == HPUSIM_MME_SPLIT_ALWAYS)
		spare = HPUSIM_SPARE_AWAKE; /* split; the pool may help */
	/*
	 * A split whose block no worker took cost the MME's thread a
	 * wake-up for nothing: after a streak of them (a busy machine), a
	 * sleeping worker is woken only for every HPUSIM_PAR_PROBE_EVERY-th
	 * product; a lingering one is always used
	 */
	if (spare == HPUSIM_SPARE_IDLE &&
	    !hpusim_par_wake_helpers(split_misses, split_seq++))
		spare = HPUSIM_SPARE_NONE;
	if (spare == HPUSIM_SPARE_NONE) {
		hpu_blas_sgemm(ta, tb, g->m, g->n, g->k, alpha, a, lda, b, ldb,
			       beta, c, ldc);
		return;
	}
	sp = (struct mme_split){
		.trans_a = ta,
		.k = g->k,
		.alpha = alpha,
		.a = a,
		.lda = lda,
		.b = b,
		.ldb = ldb,
		.beta = beta,
		.c = c,
		.col = { 0, s, g->n },
	};
	par = (struct hpusim_par){
		.fn = mme_split_run,
		.arg = &sp,
		.nslices = 2,
		.affine = true,
		.spare_only = true,
	};
	hpusim_par_run(&par);
	split_misses = par.helped ? 0 : split_misses + 1;
}

/* One product: C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i] */
static int gemm_one(struct hpu_fw_as *as, const struct hpu_pkt_mme_gemm *g,
		    struct mme_buf *bufs, uint32_t i, float alpha, float beta)
{
	struct mme_buf *cb = &bufs[HPU_MME_OP_C];
	const struct hpu_mme_operand *c = &cb->op;
	uint64_t len = hpu_mme_matrix_bytes(c);
	uint64_t cva = matrix_va(c, i);
	struct hpu_fw_fault unused;
	uint32_t lda, ldb, ldc = c->ld, r, col;
	const float *a, *b;
	uint8_t *craw;
	float *cf;

	a = operand_get(as, &bufs[HPU_MME_OP_A], i, &lda);
	b = operand_get(as, &bufs[HPU_MME_OP_B], i, &ldb);
	if (!a || !b)
		return -ENOMEM;
	range_resolve(as, cva, len, true, &unused, &craw);
	if (!craw) {
		if (!cb->raw)
			cb->raw = malloc(len);
		if (!cb->raw)
			return -ENOMEM;
		range_copy(as, cva, len, cb->raw, false);
		craw = cb->raw;
	}
	cf = (float *)craw;
	if (c->esize == 2) {
		if (!cb->f32)
			cb->f32 = malloc((uint64_t)g->m * g->n * sizeof(float));
		if (!cb->f32)
			return -ENOMEM;
		cf = cb->f32;
		ldc = g->n;
		for (r = 0; beta != 0.0f && r < g->m; r++)
			for (col = 0; col < g->n; col++)
				cf[(uint64_t)r * ldc + col] = hpu_bf16_to_f32(
					((uint16_t *)craw)[(uint64_t)r * c->ld +
							   col]);
	}
	mme_sgemm(as->dev, g, alpha, a, lda, b, ldb, beta, cf, ldc);
	if (c->esize == 2)
		for (r = 0; r < g->m; r++)
			for (col = 0; col < g->n; col++)
				((uint16_t *)craw)[(uint64_t)r * c->ld + col] =
					hpu_f32_to_bf16(
						cf[(uint64_t)r * ldc + col]);
	if (craw == cb->raw)
		range_copy(as, cva, len, cb->raw, true);
	return 0;
}

static bool engine_is_mme(const struct hpu_fw_device *dev, uint32_t engine)
{
	uint32_t base = dev->engine_base[HPUSIM_ENGINE_MME];

	return engine >= base && engine - base < dev->profile->num_mme;
}

/**
 * hpusim_mme_exec() - run an MME_GEMM packet
 * @as: address space of the submission
 * @engine: engine id of the queue running it
 * @pkt: the packet (validated by the driver)
 * @fault: filled on -EFAULT
 *
 * Every operand range of every product is checked before C is written:
 * a fault leaves C untouched.
 *
 * Return: 0; -EFAULT (an operand outside the mappings); -EIO (not an MME
 * queue, a malformed packet, or an operand in pageable host memory);
 * -ENOMEM.
 */
int hpusim_mme_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault)
{
	struct mme_buf bufs[3];
	struct hpu_pkt_mme_gemm g;
	const struct hpu_pkt_hdr *h = pkt;
	float alpha, beta;
	unsigned int w;
	uint32_t i;
	int ret;

	if (!engine_is_mme(as->dev, engine) || h->size != sizeof(g))
		return -EIO;
	memcpy(&g, pkt, sizeof(g));
	if (hpu_mme_gemm_check(&g))
		return -EIO;
	memcpy(&alpha, &g.alpha, sizeof(alpha));
	memcpy(&beta, &g.beta, sizeof(beta));
	memset(bufs, 0, sizeof(bufs));
	for (w = HPU_MME_OP_A; w <= HPU_MME_OP_C; w++) {
		hpu_mme_operand(&g, w, &bufs[w].op);
		bufs[w].cached = -1;
	}

	/* the BLAS lock before map_lock: an unmap waiting for map_lock must
	 * not stop the GEMM that holds the BLAS lock */
	hpu_blas_begin(g.m, g.n, g.k);
	pthread_rwlock_rdlock(&as->map_lock);
	ret = check_ranges(as, &g, bufs, fault);
	for (i = 0; !ret && i < g.batch; i++)
		ret = gemm_one(as, &g, bufs, i, alpha, beta);
	pthread_rwlock_unlock(&as->map_lock);
	hpu_blas_end();

	for (w = HPU_MME_OP_A; w <= HPU_MME_OP_C; w++) {
		free(bufs[w].raw);
		free(bufs[w].f32);
	}
	return ret;
}
