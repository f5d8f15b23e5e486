// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-bench: benchmarks of the hpu stack, each printed beside a
 * reference measured in the same run (docs/hpu-bench.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "hpu_blas_core.h"
#include "hpudrv.h"

static const struct bench_mode modes[] = {
	{
		.name = "ioctl",
		.help = "INFO ioctl round trip vs a bare FUSE ioctl round trip",
		.run = bench_ioctl,
	},
	{
		.name = "cs",
		.help = "NOP CS submit->complete round trip vs a bare FUSE ioctl",
		.run = bench_cs,
	},
	{
		.name = "dma",
		.help = "H2D/D2H/D2D DMA GB/s, 4 KiB..256 MiB, vs memcpy",
		.run = bench_dma,
	},
	{
		.name = "gemm",
		.help = "MME GEMM GFLOP/s, 256..4096 fp32/bf16, vs OpenBLAS",
		.run = bench_gemm,
	},
	{
		.name = "tpc",
		.help = "TPC add/relu/cast GB/s, 1..64 MiB, vs memcpy",
		.run = bench_tpc,
	},
	{
		.name = "step",
		.help = "MLP training step: one multi-queue CS vs eager vs host",
		.run = bench_step,
	},
};

#define NMODES (sizeof(modes) / sizeof(modes[0]))

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_summarize(uint64_t *ns, size_t n, struct bench_stats *st)
{
	long double sum = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	for (i = 0; i < n; i++)
		sum += ns[i];
	st->n = n;
	st->p50_us = ns[n / 2] / 1000.0;
	st->p99_us = ns[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1000.0;
	st->mean_us = (double)(sum / n / 1000.0L);
}

int bench_open_device(long index, struct hpu_device **devp, long *indexp)
{
	struct hpu_device_info *list;
	int n, ret;

	if (index < 0) {
		ret = hpu_device_list(&list, &n);
		if (ret || !n) {
			fprintf(stderr,
				"hpu-bench: no HPU device found (%s); "
				"start hpu-fused or set HPU_DEV_DIR\n",
				ret ? hpu_last_error() ?: hpu_strerror(ret) :
				      "none listed");
			return ret ? ret : -ENODEV;
		}
		index = list[0].index;
		hpu_device_list_free(list);
	}
	ret = hpu_open((int)index, devp);
	if (ret)
		fprintf(stderr, "hpu-bench: cannot open hpu%ld: %s\n", index,
			hpu_last_error() ?: hpu_strerror(ret));
	*indexp = index;
	return ret;
}

int bench_start(int argc, char **argv, char opt, long min, long max,
		long *value, int (*usage)(FILE *f, int status),
		struct hpu_device **devp, long *indexp)
{
	int c = bench_parse_args(argc, argv, opt, min, max, value, indexp);

	if (c)
		return c == 1 ? usage(stdout, 0) : usage(stderr, 2);
	if (bench_open_device(*indexp, devp, indexp))
		return 1;
	return BENCH_RUN;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: hpu-bench MODE [OPTIONS]   (hpu-bench MODE -h for "
		   "its options)\n\nModes:\n");
	for (i = 0; i < NMODES; i++)
		fprintf(f, "  %-10s %s\n", modes[i].name, modes[i].help);
}

int main(int argc, char **argv)
{
	struct hpu_blas_core blas;
	size_t i;

	/* may run hpu-bench again with OPENBLAS_CORETYPE set, as the daemon */
	hpu_blas_core_start(argv, "hpu-bench", &blas);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NMODES; i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].run(argc - 1, argv + 1);
	fprintf(stderr, "hpu-bench: unknown mode '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
