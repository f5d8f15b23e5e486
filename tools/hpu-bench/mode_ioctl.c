// SPDX-License-Identifier: MIT
/*
 * mode_ioctl.c - hpu-bench ioctl: the round trip of an INFO ioctl on a
 * compute node, beside a bare FUSE ioctl round trip on a filesystem
 * hpu-bench mounts itself for the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bench.h"
#include "hpudrv.h"

#define DEFAULT_ITER 10000
#define MAX_ITER     10000000L
#define WARMUP	     2000

static int time_hpu(void *arg, uint64_t *ns, size_t n)
{
	struct hpu_device *dev = arg;
	struct hpu_info_device_status st;
	uint64_t t0;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		t0 = bench_now_ns();
		ret = hpu_info_device_status(dev, &st);
		if (ns)
			ns[i] = bench_now_ns() - t0;
		if (ret)
			return ret;
	}
	return 0;
}

static int usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: hpu-bench ioctl [-n ITER] [-d INDEX]\n"
		"  -n ITER   timed round trips per path (default %d)\n"
		"  -d INDEX  device hpuN to use (default: first visible)\n",
		DEFAULT_ITER);
	return status;
}

int bench_ioctl(int argc, char **argv)
{
	struct bench_stats hs, bs;
	struct bench_latency l = {
		.what = "INFO ioctl",
		.time_fn = time_hpu,
		.request = HPU_IOCTL_INFO,
		.warmup = WARMUP,
	};
	struct hpu_device *dev;
	long iter = DEFAULT_ITER, index = -1;
	int c, status = 1;

	c = bench_parse_args(argc, argv, 'n', 1, MAX_ITER, &iter, &index);
	if (c)
		return c == 1 ? usage(stdout, 0) : usage(stderr, 2);
	if (bench_open_device(index, &dev, &index))
		return 1;
	l.arg = dev;
	if (!bench_latency_run(&l, (size_t)iter, &hs, &bs)) {
		printf("hpu-bench ioctl: %ld round trips per path, INFO "
		       "DEVICE_STATUS on hpu%ld\n",
		       iter, index);
		bench_latency_print("hpu INFO ioctl", &hs, &bs,
				    "ratio hpu / bare");
		status = 0;
	}
	hpu_close(dev);
	return status;
}
