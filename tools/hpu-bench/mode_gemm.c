// SPDX-License-Identifier: MIT
/*
 * mode_gemm.c - hpu-bench gemm: GFLOP/s of square GEMMs through the MME
 * (one MME_GEMM CS per product, submitted and waited, operands in HBM)
 * beside cblas_sgemm called directly in this process on host buffers of
 * the same size, with OpenBLAS's default thread count on both sides.
 * fp32 and bf16 (A, B and C bf16) through the device; the direct column
 * is fp32 (Debian's OpenBLAS has no bf16 GEMM).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "hpu_bf16.h"
#include "hpudrv.h"

#define MIN_N	    256
#define DEFAULT_MAX 4096
#define MAX_MAX	    8192
#define FLOP_PER_PT 2e10 /* flops per size and column (about 0.2-1 s) */
#define MAX_REPS    100
#define MIN_REPS    2
#define WAIT_US	    600000000ULL

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

static uint64_t reps_for(uint64_t m, uint64_t n, uint64_t k)
{
	double r = FLOP_PER_PT / (2.0 * (double)m * n * k);

	return r > MAX_REPS ? MAX_REPS : r < MIN_REPS ? MIN_REPS : (uint64_t)r;
}

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

/* GFLOP/s of @reps GEMMs m x n x k through the device (after a warm-up) */
static int device_gflops(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k,
			 uint16_t dtype, uint64_t reps, double *out)
{
	uint64_t mat = r->max * r->max * 4, seq, t0, i;
	struct hpu_pkt_mme_gemm g;
	uint32_t status;
	int ret;

	memset(&g, 0, sizeof(g));
	g.a_addr = r->va + (dtype == HPU_DTYPE_BF16 ? 3 * mat : 0);
	g.b_addr = dtype == HPU_DTYPE_BF16 ? g.a_addr + mat / 2 : r->va + mat;
	g.c_addr = r->va + 2 * mat;
	g.m = m;
	g.n = n;
	g.k = k;
	g.lda = k;
	g.ldb = n;
	g.ldc = n;
	g.batch = 1;
	g.dtype_ab = dtype;
	g.dtype_c = dtype;
	g.alpha = 0x3f800000; /* 1.0 */
	hpu_cb_builder_reset(r->cb);
	ret = hpu_cb_mme_gemm(r->cb, &g);
	if (ret)
		return ret;
	t0 = 0;
	for (i = 0; i <= reps; i++) {
		if (i == 1)
			t0 = bench_now_ns();
		ret = hpu_cb_builder_submit(r->cb, r->mme0, 0, 0, &seq, NULL);
		if (!ret)
			ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
		if (ret)
			return ret;
		if (status != HPU_WAIT_CS_STATUS_COMPLETED)
			return -EIO;
	}
	*out = 2.0 * m * n * (double)k * reps / (double)(bench_now_ns() - t0);
	return 0;
}

static double direct_gflops(struct gemm_run *r, uint32_t m, uint32_t n,
			    uint32_t k, uint64_t reps)
{
	uint64_t t0 = 0, i;

	for (i = 0; i <= reps; i++) {
		if (i == 1)
			t0 = bench_now_ns();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m,
			    (int)n, (int)k, 1.0f, r->a, (int)k, r->b, (int)n,
			    0.0f, r->c, (int)n);
	}
	return 2.0 * m * n * (double)k * reps / (double)(bench_now_ns() - t0);
}

/* One line of the table: device fp32 and bf16 beside direct OpenBLAS */
static int row(struct gemm_run *r, uint32_t m, uint32_t n, uint32_t k,
	       const char *label, double *ratio)
{
	uint64_t reps = reps_for(m, n, k);
	double dev32, dev16, direct;
	int ret;

	ret = device_gflops(r, m, n, k, HPU_DTYPE_FP32, reps, &dev32);
	if (!ret)
		ret = device_gflops(r, m, n, k, HPU_DTYPE_BF16, reps, &dev16);
	if (ret) {
		fprintf(stderr, "hpu-bench: GEMM %s failed: %s\n", label,
			hpu_strerror(ret));
		return ret;
	}
	direct = direct_gflops(r, m, n, k, reps);
	printf("%30s %6" PRIu64 " %10.1f %10.1f %10.1f %7.2fx\n", label, reps,
	       dev32, dev16, direct, dev32 / direct);
	*ratio = dev32 / direct;
	return 0;
}

int bench_gemm(int argc, char **argv)
{
	struct gemm_run r = { .max = DEFAULT_MAX };
	double at_target = -1.0;
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
	printf("  direct: cblas_sgemm in this process, %d OpenBLAS threads\n",
	       openblas_get_num_threads());
	printf("%30s %6s %10s %10s %10s %8s\n", "m x n x k", "reps", "mme fp32",
	       "mme bf16", "direct", "ratio");
	for (n = MIN_N; n <= r.max; n *= 2) {
		char label[32];
		double ratio;

		snprintf(label, sizeof(label), "%" PRIu64 "^3", n);
		if (row(&r, (uint32_t)n, (uint32_t)n, (uint32_t)n, label,
			&ratio))
			goto out;
		if (n == TARGET_N)
			at_target = ratio;
	}
	printf("training shapes (trainer models, issue 6):\n");
	for (i = 0; i < sizeof(train_shapes) / sizeof(train_shapes[0]); i++) {
		char label[40];
		double ratio;

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
			train_shapes[i].k, label, &ratio))
			goto out;
	}
	if (at_target >= 0)
		printf("target: fp32 %d^3 >= %.1fx direct OpenBLAS: %.2fx %s\n",
		       TARGET_N, TARGET_RATIO, at_target,
		       at_target >= TARGET_RATIO ? "MET" : "NOT MET");
	status = 0;
out:
	cleanup(&r);
	return status;
}
