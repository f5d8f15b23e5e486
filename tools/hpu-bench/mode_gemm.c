// SPDX-License-Identifier: MIT
/*
 * mode_gemm.c - hpu-bench gemm: GFLOP/s of square GEMMs through the MME
 * (one MME_GEMM CS per product, submitted and waited, operands in HBM)
 * beside cblas_sgemm called directly in this process on host buffers of
 * the same size, with OpenBLAS's default thread count on both sides,
 * each row repeated until its figures settle (see WINDOW_NS).
 * fp32 and bf16 (A, B and C bf16) through the device; the direct column
 * is fp32 (Debian's OpenBLAS has no bf16 GEMM).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "hpu_bf16.h"
#include "hpu_gemm_pkt.h"
#include "hpudrv.h"
#include "hpusim_timing.h"

#define MIN_N	    256
#define DEFAULT_MAX 4096
#define MAX_MAX	    8192
#define WAIT_US	    600000000ULL

/*
 * A row measures device fp32 and direct in rounds of one window each,
 * adjacent, so that load from other processes falls on both alike; a
 * window runs products for at least WINDOW_NS (at least one). The row
 * ends when the last two rounds' fp32, direct and fp32 / direct each
 * agree within ROW_TOL and it ran ROW_MIN_NS, or at ROW_MAX_NS
 * unsettled (stable.c); it shows the medians of the rounds.
 */
#define WINDOW_NS  250000000ULL
#define ROW_MIN_NS 5000000000ULL
#define ROW_MAX_NS 15000000000ULL
#define ROW_TOL	   0.10

/* DESIGN.md: MME GEMM fp32 1024^3 through a CS >= 0.9 x OpenBLAS direct */
#define TARGET_RATIO 0.9
#define TARGET_N     1024

struct gemm_run {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	uint32_t mme0;
	uint64_t h, va;	      /* HBM: A, B, C fp32, then A, B bf16 */
	float *a, *b, *c;     /* host: the direct reference */
	void *pin;	      /* pinned staging for uploads */
	uint64_t pin_va, max; /* largest n */
};

static int usage(FILE *f, int status)
{
	fprintf(f, "usage: hpu-bench gemm [-m MAX_N] [-d INDEX]\n"
		   "  -m MAX_N  largest n of the n x n x n products (256..8192,"
		   " default 4096)\n"
		   "  -d INDEX  device (default: the first)\n");
	return status;
}

/*
 * The GEMMs of the trainer's models (issue 6): the digits MLP 64-128-10 at
 * batch 64 and the MLP 1024-4096-4096-1024 at batch 256, forward
 * (batch x out x in) and weight gradient (in x out x batch) shapes.
 */
static const struct {
	uint32_t m, n, k;
	const char *what;
} train_shapes[] = {
	{ 64, 128, 64, "digits fc1 fwd" },  { 64, 10, 128, "digits fc2 fwd" },
	{ 64, 128, 64, "digits fc1 dW" },   { 256, 4096, 1024, "mlp fc1 fwd" },
	{ 256, 4096, 4096, "mlp fc2 fwd" }, { 256, 1024, 4096, "mlp fc3 fwd" },
	{ 1024, 4096, 256, "mlp fc1 dW" },  { 4096, 4096, 256, "mlp fc2 dW" },
};

static int setup(struct gemm_run *r)
{
	struct hpu_info_hw_ip_info ip;
	uint64_t mat = r->max * r->max * 4, i, j, seq;
	uint32_t status, s = 1;
	int ret;

	ret = hpu_info_hw_ip(r->dev, &ip);
	if (ret)
		return ret;
	if (!ip.num_mme)
		return -ENODEV;
	r->mme0 = ip.num_dma;
	ret = hpu_cb_builder_create(r->dev, 4096, &r->cb);
	if (ret)
		return ret;
	ret = hpu_mem_alloc(r->dev, 4 * mat, 0, 0, &r->h);
	if (ret)
		return ret;
	ret = hpu_mem_map(r->dev, r->h, 0, 0, &r->va);
	if (ret)
		return ret;
	r->a = malloc(mat);
	r->b = malloc(mat);
	r->c = malloc(mat);
	if (!r->a || !r->b || !r->c)
		return -ENOMEM;
	for (i = 0; i < r->max * r->max; i++) {
		s = s * 1103515245U + 12345U;
		r->a[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
		r->b[i] = r->a[i] * 0.5f;
		r->c[i] = 0.0f;
	}
	/* A and B in HBM, fp32 and bf16 (the same values, rounded) */
	ret = hpu_host_alloc(r->dev, mat, &r->pin, &r->pin_va);
	if (ret)
		return ret;
	for (i = 0; i < 3; i++) {
		if (i < 2)
			memcpy(r->pin, i ? r->b : r->a, mat);
		for (j = 0; i == 2 && j < r->max * r->max; j++) {
			((uint16_t *)r->pin)[j] = hpu_f32_to_bf16(r->a[j]);
			((uint16_t *)r->pin)[r->max * r->max + j] =
				hpu_f32_to_bf16(r->b[j]);
		}
		hpu_cb_builder_reset(r->cb);
		ret = hpu_cb_lin_dma(r->cb, r->va + (i ? i + 1 : 0) * mat,
				     r->pin_va, mat);
		if (!ret)
			ret = hpu_cb_builder_submit(r->cb, 0, 0, 0, &seq, NULL);
		if (!ret)
			ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
		if (ret)
			return ret;
		if (status != HPU_WAIT_CS_STATUS_COMPLETED)
			return -EIO;
	}
	return 0;
}

static void cleanup(struct gemm_run *r)
{
	if (r->pin)
		hpu_host_free(r->dev, r->pin);
	if (r->va)
		hpu_mem_unmap(r->dev, r->va);
	if (r->h)
		hpu_mem_free(r->dev, r->h);
	hpu_cb_builder_destroy(r->cb);
	free(r->a);
	free(r->b);
	free(r->c);
	hpu_close(r->dev);
}

/* The CB of one m x n x k product of @dtype, operands in HBM */
static int gemm_cb(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k,
		   uint16_t dtype)
{
	uint64_t mat = r->max * r->max * 4;
	uint64_t a = r->va + (dtype == HPU_DTYPE_BF16 ? 3 * mat : 0);
	uint64_t b = dtype == HPU_DTYPE_BF16 ? a + mat / 2 : r->va + mat;
	struct hpu_pkt_mme_gemm g;

	g = hpu_gemm_pkt(a, b, r->va + 2 * mat, m, n, k, dtype, dtype);
	hpu_cb_builder_reset(r->cb);
	return hpu_cb_mme_gemm(r->cb, &g);
}

/* One product through the device: submitted and waited for */
static int device_once(struct gemm_run *r)
{
	uint32_t status;
	uint64_t seq;
	int ret;

	ret = hpu_cb_builder_submit(r->cb, r->mme0, 0, 0, &seq, NULL);
	if (!ret)
		ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
	if (!ret && status != HPU_WAIT_CS_STATUS_COMPLETED)
		ret = -EIO;
	return ret;
}

/*
 * One window through the device: products for at least WINDOW_NS (one
 * untimed first when @warm_up), GFLOP/s into @out
 */
static int device_window(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k,
			 uint16_t dtype, bool warm_up, double *out)
{
	uint64_t t0, t, i = 0;
	int ret;

	ret = gemm_cb(r, m, n, k, dtype);
	if (!ret && warm_up)
		ret = device_once(r);
	if (ret)
		return ret;
	t0 = bench_now_ns();
	do {
		ret = device_once(r);
		if (ret)
			return ret;
		i++;
		t = bench_now_ns();
	} while (t - t0 < WINDOW_NS);
	*out = 2.0 * m * n * (double)k * i / (double)(t - t0);
	return 0;
}

static void direct_once(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, 1.0f, r->a, (int)k, r->b, (int)n, 0.0f, r->c,
		    (int)n);
}

/* The same window with cblas_sgemm in this process: GFLOP/s */
static double direct_window(struct gemm_run *r, uint32_t m, uint32_t n,
			    uint32_t k, bool warm_up)
{
	uint64_t t0, t, i = 0;

	if (warm_up)
		direct_once(r, m, n, k);
	t0 = bench_now_ns();
	do {
		direct_once(r, m, n, k);
		i++;
		t = bench_now_ns();
	} while (t - t0 < WINDOW_NS);
	return 2.0 * m * n * (double)k * i / (double)(t - t0);
}

/* The series of a row, all three deciding when it ends */
enum {
	COL_FP32,
	COL_DIRECT,
	COL_RATIO, /* fp32 / direct of the same round */
	NCOLS
};

/*
 * GFLOP/s of the same product on a whole Gaudi2 by the timing model
 * (docs/timing-model.md), A and B of @dtype, C fp32, beta 0
 */
static double model_gflops(uint32_t m, uint32_t n, uint32_t k,
			   enum hpusim_tm_dtype dtype)
{
	const struct hpusim_tm_gemm g = {
		.m = m,
		.n = n,
		.k = k,
		.batch = 1,
		.dtype = dtype,
		.dtype_c = HPUSIM_TM_FP32,
	};
	uint64_t ns;

	if (hpusim_tm_gemm_ns(hpusim_tm_profile_find("gaudi2"), &g, &ns) || !ns)
		return 0.0;
	return 2.0 * m * n * k / (double)ns; /* FLOPs per ns = GFLOP/s */
}

/* bf16 windows of a row, after its rounds: shown, no target's figure */
#define BF16_WINDOWS 2

/*
 * One line of the table: device fp32 beside direct OpenBLAS, each the
 * median of its windows, and the median of the rounds' fp32 / direct
 * ratios (a round's two windows are adjacent in time, so load from
 * other processes falls on both alike), measured in rounds until fp32,
 * direct and their ratio have settled (stable.c); then device bf16, the
 * median of BF16_WINDOWS windows. @ratio and @spread get the ratio and
 * its spread.
 */
static int row(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k,
	       const char *label, double *ratio, double *spread)
{
	static const struct bench_rule rule = {
		.tol = ROW_TOL,
		.min_ns = ROW_MIN_NS,
		.max_ns = ROW_MAX_NS,
	};
	struct bench_series cols[NCOLS], bf16;
	enum bench_verdict verdict;
	double fp32, direct, v;
	uint64_t start;
	int ret = 0, i;

	memset(cols, 0, sizeof(cols));
	memset(&bf16, 0, sizeof(bf16));
	start = bench_now_ns();
	do {
		bool first = !cols[COL_FP32].n;

		ret = device_window(r, m, n, k, HPU_DTYPE_FP32, first, &fp32);
		if (ret)
			goto fail;
		direct = direct_window(r, m, n, k, first);
		bench_series_add(&cols[COL_FP32], fp32);
		bench_series_add(&cols[COL_DIRECT], direct);
		bench_series_add(&cols[COL_RATIO], fp32 / direct);
		verdict = bench_row_verdict(cols, NCOLS, bench_now_ns() - start,
					    &rule);
	} while (verdict == BENCH_MORE);
	for (i = 0; i < BF16_WINDOWS; i++) {
		ret = device_window(r, m, n, k, HPU_DTYPE_BF16, !i, &v);
		if (ret)
			goto fail;
		bench_series_add(&bf16, v);
	}
	*ratio = bench_series_median(&cols[COL_RATIO]);
	*spread = bench_series_spread(&cols[COL_RATIO]);
	printf("%30s %4u %9.1f %9.1f %9.1f %6.2fx  %5.0f %5.0f %5.0f  %9.0f "
	       "%9.0f%s\n",
	       label, cols[COL_FP32].n, bench_series_median(&cols[COL_FP32]),
	       bench_series_median(&bf16),
	       bench_series_median(&cols[COL_DIRECT]), *ratio,
	       100.0 * bench_series_spread(&cols[COL_FP32]),
	       100.0 * bench_series_spread(&cols[COL_DIRECT]), 100.0 * *spread,
	       model_gflops(m, n, k, HPUSIM_TM_FP32),
	       model_gflops(m, n, k, HPUSIM_TM_BF16),
	       verdict == BENCH_STABLE ? "" : "  unsettled");
	return 0;

fail:
	fprintf(stderr, "hpu-bench: GEMM %s failed: %s\n", label,
		hpu_strerror(ret));
	return ret;
}

int bench_gemm(int argc, char **argv)
{
	struct gemm_run r = { .max = DEFAULT_MAX };
	double at_target = -1.0, target_spread = 0.0;
	unsigned int i;
	long index = -1, v = 0;
	uint64_t n;
	int c, ret, status = 1;

	c = bench_start(argc, argv, 'm', MIN_N, (long)MAX_MAX, &v, usage,
			&r.dev, &index);
	if (c != BENCH_RUN)
		return c;
	if (v > 0)
		r.max = (uint64_t)v;
	ret = setup(&r);
	if (ret) {
		fprintf(stderr, "hpu-bench: setup failed: %s\n",
			hpu_strerror(ret));
		goto out;
	}
	printf("hpu-bench gemm: one MME_GEMM CS per product on queue %u of "
	       "hpu%ld (operands in HBM), GFLOP/s\n",
	       r.mme0, index);
	printf("  direct: cblas_sgemm in this process, %d OpenBLAS threads, "
	       "core %s\n",
	       openblas_get_num_threads(), openblas_get_corename());
	printf("  a row: rounds of one %llu ms window each of fp32 and direct "
	       "until the last two rounds' fp32, direct and fp32 / direct "
	       "agree within %.0f%% (at least %.1f s, at most %.0f s, else "
	       "\"unsettled\"), then %d bf16 windows; figures: medians; "
	       "sp%%: spread over the rounds, (max - min) / median\n",
	       WINDOW_NS / 1000000ULL, 100.0 * ROW_TOL, ROW_MIN_NS / 1e9,
	       ROW_MAX_NS / 1e9, BF16_WINDOWS);
	printf("  g2 fp32, g2 bf16: the same product on a whole Gaudi2 (HL-225)"
	       " by the timing model (docs/timing-model.md), not measured\n");
	printf("%30s %4s %9s %9s %9s %7s  %5s %5s %5s  %9s %9s\n", "m x n x k",
	       "rnds", "mme fp32", "mme bf16", "direct", "ratio", "sp%fp",
	       "sp%di", "sp%ra", "g2 fp32", "g2 bf16");
	for (n = MIN_N; n <= r.max; n *= 2) {
		char label[32];
		double ratio, spread;

		snprintf(label, sizeof(label), "%" PRIu64 "^3", n);
		if (row(&r, (uint32_t)n, (uint32_t)n, (uint32_t)n, label,
			&ratio, &spread))
			goto out;
		if (n == TARGET_N) {
			at_target = ratio;
			target_spread = spread;
		}
	}
	printf("training shapes (trainer models, issue 6):\n");
	for (i = 0; i < sizeof(train_shapes) / sizeof(train_shapes[0]); i++) {
		char label[40];
		double ratio, spread;

		if ((uint64_t)train_shapes[i].m * train_shapes[i].k >
			    r.max * r.max ||
		    (uint64_t)train_shapes[i].k * train_shapes[i].n >
			    r.max * r.max ||
		    (uint64_t)train_shapes[i].m * train_shapes[i].n >
			    r.max * r.max)
			continue; /* does not fit the -m buffers */
		snprintf(label, sizeof(label), "%s %ux%ux%u",
			 train_shapes[i].what, train_shapes[i].m,
			 train_shapes[i].n, train_shapes[i].k);
		if (row(&r, train_shapes[i].m, train_shapes[i].n,
			train_shapes[i].k, label, &ratio, &spread))
			goto out;
	}
	if (at_target >= 0)
		printf("target: fp32 %d^3 >= %.1fx direct OpenBLAS: %.2fx "
		       "(spread %.0f%%) %s\n",
		       TARGET_N, TARGET_RATIO, at_target, 100.0 * target_spread,
		       at_target >= TARGET_RATIO ? "MET" : "NOT MET");
	status = 0;
out:
	cleanup(&r);
	return status;
}
