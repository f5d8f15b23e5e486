// SPDX-License-Identifier: MIT
/*
 * gemm.c - a matrix product on the MME: C = A * B (fp32, row-major,
 * M x K times K x N) in pinned host memory the device reaches directly,
 * built as one MME_GEMM packet in a command buffer, submitted to the
 * first MME queue and waited for; then checked against a host loop.
 *
 *   gemm [INDEX]                (default: hpu0)
 *
 * Queue numbers follow the engines: the DMA queues first, then the MME
 * queues (docs/command-submission.md, "Queues"). Exit status 0 when every
 * element of C is within rounding of the host's product.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpu/hpudrv.h>

#define M	64
#define N	48
#define K	32
#define WAIT_US 30000000ULL /* a generous bound; a GEMM this size is fast */

struct operands {
	float a[M * K];
	float b[K * N];
	float c[M * N];
};

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* submit C = A * B on @queue and wait; 0, 1 when the CS failed, -errno */
static int mme_gemm(struct hpu_device *dev, uint32_t queue, uint64_t va)
{
	struct hpu_pkt_mme_gemm g = {
		.a_addr = va + offsetof(struct operands, a),
		.b_addr = va + offsetof(struct operands, b),
		.c_addr = va + offsetof(struct operands, c),
		.m = M,
		.n = N,
		.k = K,
		.lda = K,
		.ldb = N,
		.ldc = N,
		.batch = 1,
		.dtype_ab = HPU_DTYPE_FP32,
		.dtype_c = HPU_DTYPE_FP32,
		.alpha = f32_bits(1.0f),
		.beta = 0, /* C is not read */
	};
	struct hpu_cb_builder *cb;
	uint32_t status = 0;
	uint64_t seq;
	int ret;

	ret = hpu_cb_builder_create(dev, 4096, &cb);
	if (ret)
		return ret;
	ret = hpu_cb_mme_gemm(cb, &g);
	if (!ret)
		ret = hpu_cb_builder_submit(cb, queue, 0, 0, &seq, NULL);
	if (!ret)
		ret = hpu_cs_wait(dev, seq, WAIT_US, &status);
	hpu_cb_builder_destroy(cb);
	if (!ret && status != HPU_WAIT_CS_STATUS_COMPLETED) {
		fprintf(stderr, "gemm: CS status %u\n", status);
		return 1;
	}
	return ret;
}

/* the largest error of @o->c relative to the host's product's scale */
static double check(const struct operands *o)
{
	double worst = 0;
	int r, c, k;

	for (r = 0; r < M; r++)
		for (c = 0; c < N; c++) {
			double s = 0, scale = 0, err;

			for (k = 0; k < K; k++) {
				double x = o->a[r * K + k] * o->b[k * N + c];

				s += x;
				scale += fabs(x);
			}
			err = fabs(o->c[r * N + c] - s) / (scale + 1e-30);
			if (err > worst)
				worst = err;
		}
	return worst;
}

int main(int argc, char **argv)
{
	int index = argc > 1 ? atoi(argv[1]) : 0;
	struct hpu_info_hw_ip_info ip;
	struct hpu_device *dev;
	struct operands *o;
	double worst;
	uint64_t va;
	int i, ret;

	ret = hpu_open(index, &dev);
	if (ret) {
		fprintf(stderr, "hpu%d: %s\n", index, hpu_strerror(ret));
		return 1;
	}
	ret = hpu_info_hw_ip(dev, &ip);
	if (!ret && !ip.num_mme)
		ret = -ENODEV;
	/* pinned host memory: the device reads and writes it in place */
	if (!ret)
		ret = hpu_host_alloc(dev, sizeof(*o), (void **)&o, &va);
	if (ret) {
		fprintf(stderr, "hpu%d: %s\n", index, hpu_strerror(ret));
		hpu_close(dev);
		return 1;
	}
	for (i = 0; i < M * K; i++)
		o->a[i] = (float)((i * 37) % 19 - 9) / 8.0f;
	for (i = 0; i < K * N; i++)
		o->b[i] = (float)((i * 11) % 23 - 11) / 16.0f;
	memset(o->c, 0xff, sizeof(o->c)); /* NaN: every element must be set */

	ret = mme_gemm(dev, ip.num_dma, va); /* the first MME queue */
	if (ret < 0)
		fprintf(stderr, "gemm: %s\n", hpu_strerror(ret));
	if (!ret) {
		worst = check(o);
		printf("gemm: %dx%d times %dx%d on the MME (queue %u), "
		       "largest relative error %.1e\n",
		       M, K, K, N, ip.num_dma, worst);
		if (!(worst <= 1e-5)) {
			fprintf(stderr, "gemm: C differs from the host's\n");
			ret = 1;
		}
	}
	hpu_host_free(dev, o);
	hpu_close(dev);
	return ret ? 1 : 0;
}
