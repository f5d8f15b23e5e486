// SPDX-License-Identifier: MIT
/*
 * mode_tpc.c - hpu-bench tpc: bandwidth of the elementwise TPC kernels
 * (add, relu, cast fp32->bf16) and of the collectives' accumulate (sum of
 * 2 or 7 fp32 inputs into the first, in place) on HBM operands, one
 * TPC_KERNEL CS per run, 1 MiB to 64 MiB of fp32 output, beside
 * single-thread memcpy of the same size measured in the same run. GB/s
 * count the bytes a kernel reads and writes (add: 3x the size, relu: 2x,
 * cast: 1.5x, acc2: 3x, acc7: 8x; memcpy: 2x). A second table gives what
 * the same kernels would reach on a whole Gaudi2 by the timing model.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hpu_tpc_kernels.h"
#include "hpudrv.h"
#include "hpusim_timing.h"

#define MIN_SIZE     (1ULL << 20)
#define DEFAULT_MAX  (64ULL << 20)
#define MAX_MAX	     (256ULL << 20)
#define BYTES_PER_PT (256ULL << 20)
#define WAIT_US	     60000000ULL

enum {
	K_ADD,
	K_RELU,
	K_CAST,
	K_ACC2,
	K_ACC7,
	NKERN
};

/* Device buffers: accumulate reads up to 7 */
#define NBUF 7

static const double traffic[NKERN] = { 3.0, 2.0, 1.5, 3.0, 8.0 };
static const char *const kname[NKERN] = { "add", "relu", "cast", "acc2",
					  "acc7" };

/* vector instructions per output element (an add or a max is one) */
static const uint32_t ops_per_elem[NKERN] = { 1, 1, 1, 1, 6 };

/*
 * GB/s of kernel @k with @size bytes of fp32 output on all the TPCs of a
 * Gaudi2 by the timing model (docs/timing-model.md); 0 without a figure
 */
static double model_gbps(int k, uint64_t size)
{
	const struct hpusim_tm_tpc t = {
		.elements = size / sizeof(float),
		.ops_per_element = ops_per_elem[k],
		.bytes = (uint64_t)(traffic[k] * (double)size),
		.dtype = HPUSIM_TM_FP32,
	};
	uint64_t ns;

	if (hpusim_tm_tpc_ns(hpusim_tm_profile_find("gaudi2"), &t, &ns) || !ns)
		return 0.0;
	return (double)t.bytes / (double)ns; /* bytes per ns = GB/s */
}

struct tpc_run {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	uint32_t tpc0;
	uint64_t va[NBUF];
	void *src, *dst;
};

static struct hpu_tpc_tensor vec(uint64_t va, uint32_t dtype, uint64_t n)
{
	struct hpu_tpc_tensor d;

	memset(&d, 0, sizeof(d));
	d.addr = va;
	d.dtype = dtype;
	d.ndims = 1;
	d.sizes[0] = (uint32_t)n;
	d.strides[0] = 1;
	return d;
}

static int kernel_once(struct tpc_run *r, int k, uint64_t n)
{
	struct hpu_tpc_tensor d[NBUF + 1];
	uint32_t status, id, p[2] = { HPU_TPC_ACC_SUM, 0 };
	uint64_t seq;
	int done, ret, nt = 2, i, np = 0;

	for (i = 0; i < 3; i++)
		d[i] = vec(r->va[i], HPU_DTYPE_FP32, n);
	switch (k) {
	case K_ADD:
		id = HPU_TPC_KERNEL_ADD;
		nt = 3;
		break;
	case K_RELU:
		id = HPU_TPC_KERNEL_RELU;
		break;
	case K_CAST:
		id = HPU_TPC_KERNEL_CAST;
		d[1].dtype = HPU_DTYPE_BF16;
		break;
	default: /* out is in0: out += in1 (+ in2 ... in6) */
		id = HPU_TPC_KERNEL_ACCUMULATE;
		nt = k == K_ACC2 ? 3 : NBUF + 1;
		np = 2;
		for (i = 1; i < nt; i++)
			d[i] = vec(r->va[i - 1], HPU_DTYPE_FP32, n);
		d[0] = d[1];
		break;
	}
	hpu_cb_builder_reset(r->cb);
	ret = hpu_cb_tpc_kernel(r->cb, id, d, nt, np ? p : NULL, np);
	if (!ret)
		ret = hpu_cb_builder_submit(r->cb, r->tpc0, 0, 0, &seq, &done);
	if (ret || done)
		return ret;
	ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
	if (ret)
		return ret;
	return status == HPU_WAIT_CS_STATUS_COMPLETED ? 0 : -EIO;
}

static double gbps(double bytes, uint64_t ns)
{
	return ns ? bytes / (double)ns : 0.0;
}

static int run_size(struct tpc_run *r, uint64_t size, double *out)
{
	uint64_t reps = BYTES_PER_PT / size, t0, i;
	int k, ret;

	if (reps < 2)
		reps = 2;
	for (k = 0; k < NKERN; k++) {
		ret = kernel_once(r, k, size / 4); /* warm-up */
		if (ret)
			return ret;
		t0 = bench_now_ns();
		for (i = 0; i < reps; i++) {
			ret = kernel_once(r, k, size / 4);
			if (ret)
				return ret;
		}
		out[k] = gbps(traffic[k] * (double)(size * reps),
			      bench_now_ns() - t0);
	}
	memcpy(r->dst, r->src, size);
	t0 = bench_now_ns();
	for (i = 0; i < reps; i++) {
		memcpy(r->dst, r->src, size);
		__asm__ volatile("" : : "r"(r->dst) : "memory");
	}
	out[NKERN] = gbps(2.0 * (double)(size * reps), bench_now_ns() - t0);
	return 0;
}

static int setup(struct tpc_run *r, uint64_t max)
{
	struct hpu_info_hw_ip_info ip;
	struct hpu_tpc_tensor d;
	uint32_t one = 0x3f800000, status;
	uint64_t h, seq;
	int i, ret, done;

	r->src = malloc(max);
	r->dst = malloc(max);
	if (!r->src || !r->dst)
		return -ENOMEM;
	memset(r->src, 0x3f, max);
	memset(r->dst, 0, max);
	ret = hpu_info_hw_ip(r->dev, &ip);
	if (!ret && !ip.num_tpc)
		ret = -ENODEV;
	if (ret)
		return ret;
	r->tpc0 = ip.num_dma + ip.num_mme;
	ret = hpu_cb_builder_create(r->dev, 4096, &r->cb);
	for (i = 0; i < NBUF && !ret; i++) {
		ret = hpu_mem_alloc(r->dev, max, 0, 0, &h);
		if (!ret)
			ret = hpu_mem_map(r->dev, h, 0, 0, &r->va[i]);
		if (ret)
			break;
		/* resident pages: fill each buffer once */
		d = vec(r->va[i], HPU_DTYPE_FP32, max / 4);
		hpu_cb_builder_reset(r->cb);
		ret = hpu_cb_tpc_kernel(r->cb, HPU_TPC_KERNEL_FILL, &d, 1, &one,
					1);
		if (!ret)
			ret = hpu_cb_builder_submit(r->cb, r->tpc0, 0, 0, &seq,
						    &done);
		if (!ret && !done)
			ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
	}
	return ret;
}

static int usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: hpu-bench tpc [-m MAX_MIB] [-d INDEX]\n"
		"  -m MAX_MIB  largest fp32 output in MiB (default 64)\n"
		"  -d INDEX    device hpuN to use (default: first visible)\n");
	return status;
}

int bench_tpc(int argc, char **argv)
{
	struct tpc_run r = { 0 };
	uint64_t max = DEFAULT_MAX, size;
	double gb[NKERN + 1];
	long index = -1, v = 0;
	int c, k, ret, status = 1;

	c = bench_start(argc, argv, 'm', 1, (long)(MAX_MAX >> 20), &v, usage,
			&r.dev, &index);
	if (c != BENCH_RUN)
		return c;
	if (v > 0)
		max = (uint64_t)v << 20;
	ret = setup(&r, max);
	if (ret) {
		fprintf(stderr, "hpu-bench: setup failed: %s\n",
			hpu_strerror(ret));
		goto out;
	}
	printf("hpu-bench tpc: one TPC_KERNEL CS per run on queue %u of "
	       "hpu%ld, HBM operands, GB/s of bytes read + written\n",
	       r.tpc0, index);
	printf("  %-8s", "size");
	for (k = 0; k < NKERN; k++)
		printf(" %7s", kname[k]);
	printf(" %7s", "memcpy");
	for (k = 0; k < NKERN; k++)
		printf(" %4s/mc", kname[k]);
	printf("\n");
	for (size = MIN_SIZE; size <= max; size *= 4) {
		ret = run_size(&r, size, gb);
		if (ret) {
			fprintf(stderr,
				"hpu-bench: kernels of %llu bytes: %s\n",
				(unsigned long long)size, hpu_strerror(ret));
			goto out;
		}
		printf("  %3llu MiB ", (unsigned long long)(size >> 20));
		for (k = 0; k <= NKERN; k++)
			printf(" %7.2f", gb[k]);
		for (k = 0; k < NKERN; k++)
			printf(" %7.2f", gb[NKERN] > 0 ? gb[k] / gb[NKERN] : 0);
		printf("\n");
	}
	printf("modeled, not measured: the same kernels on all TPCs of a "
	       "Gaudi2 (HL-225) by the timing model (docs/timing-model.md), "
	       "GB/s\n  %-8s",
	       "size");
	for (k = 0; k < NKERN; k++)
		printf(" %7s", kname[k]);
	printf("\n");
	for (size = MIN_SIZE; size <= max; size *= 4) {
		printf("  %3llu MiB ", (unsigned long long)(size >> 20));
		for (k = 0; k < NKERN; k++)
			printf(" %7.0f", model_gbps(k, size));
		printf("\n");
	}
	status = 0;
out:
	hpu_cb_builder_destroy(r.cb);
	hpu_close(r.dev);
	free(r.src);
	free(r.dst);
	return status;
}
