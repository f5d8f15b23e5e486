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

/*
 * Alternating slices, so both paths see the same load on the machine;
 * slices are long because each switch costs a few slow round trips.
 */
#define ROUNDS 4

static int time_hpu(struct hpu_device *dev, uint64_t *ns, size_t n)
{
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

/*
 * Warms both paths up, then alternates ROUNDS slices of each so that a
 * busy machine slows both alike.
 */
static int measure(struct hpu_device *dev, const char *node, uint64_t *hns,
		   uint64_t *bns, size_t n, const char **failed)
{
	size_t done = 0, chunk = (n + ROUNDS - 1) / ROUNDS, k;
	int fd, ret;

	*failed = "bare FUSE open";
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*failed = "INFO ioctl";
	ret = time_hpu(dev, NULL, WARMUP);
	if (ret)
		goto out_close;
	*failed = "bare FUSE ioctl";
	ret = barefuse_time(fd, HPU_IOCTL_INFO, NULL, WARMUP);
	while (!ret && done < n) {
		k = n - done < chunk ? n - done : chunk;
		*failed = "INFO ioctl";
		ret = time_hpu(dev, hns + done, k);
		if (ret)
			break;
		*failed = "bare FUSE ioctl";
		ret = barefuse_time(fd, HPU_IOCTL_INFO, bns + done, k);
		done += k;
	}
out_close:
	close(fd);
	return ret;
}

static void row(const char *name, const struct bench_stats *st)
{
	printf("  %-26s %10.2f %10.2f %10.2f\n", name, st->p50_us, st->p99_us,
	       st->mean_us);
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
	struct hpu_device_info *list;
	struct hpu_device *dev;
	struct barefuse *bf;
	uint64_t *hns = NULL, *bns = NULL;
	const char *failed;
	long iter = DEFAULT_ITER, index = -1;
	char *end;
	int c, n, ret, status = 1;

	optind = 1;
	while ((c = getopt(argc, argv, "n:d:h")) != -1) {
		switch (c) {
		case 'n':
			iter = strtol(optarg, &end, 10);
			if (*end || iter < 1 || iter > MAX_ITER) {
				fprintf(stderr, "hpu-bench: bad -n '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			index = strtol(optarg, &end, 10);
			if (*end || index < 0 || index > 1 << 20) {
				fprintf(stderr, "hpu-bench: bad -d '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind < argc)
		return usage(stderr, 2);

	if (index < 0) {
		ret = hpu_device_list(&list, &n);
		if (ret || !n) {
			fprintf(stderr,
				"hpu-bench: no HPU device found (%s); "
				"start hpu-fused or set HPU_DEV_DIR\n",
				ret ? hpu_strerror(ret) : "none listed");
			return 1;
		}
		index = list[0].index;
		hpu_device_list_free(list);
	}
	ret = hpu_open((int)index, &dev);
	if (ret) {
		fprintf(stderr, "hpu-bench: cannot open hpu%ld: %s\n", index,
			hpu_strerror(ret));
		return 1;
	}
	hns = calloc((size_t)iter, sizeof(*hns));
	bns = calloc((size_t)iter, sizeof(*bns));
	if (!hns || !bns) {
		fprintf(stderr, "hpu-bench: out of memory\n");
		goto out_free;
	}
	ret = barefuse_start(&bf);
	if (ret) {
		fprintf(stderr,
			"hpu-bench: cannot mount the reference FUSE "
			"filesystem: %s\n",
			hpu_strerror(ret));
		goto out_free;
	}
	ret = measure(dev, barefuse_node(bf), hns, bns, (size_t)iter, &failed);
	barefuse_stop(bf);
	if (ret) {
		fprintf(stderr, "hpu-bench: %s failed: %s\n", failed,
			hpu_strerror(ret));
		goto out_free;
	}
	bench_summarize(hns, (size_t)iter, &hs);
	bench_summarize(bns, (size_t)iter, &bs);

	printf("hpu-bench ioctl: %ld round trips per path, INFO DEVICE_STATUS "
	       "on hpu%ld\n",
	       iter, index);
	printf("  %-26s %10s %10s %10s\n", "path", "p50 us", "p99 us",
	       "mean us");
	row("hpu INFO ioctl", &hs);
	row("bare FUSE ioctl (ref)", &bs);
	printf("  %-26s %10.2f %10.2f %10.2f\n", "ratio hpu / bare",
	       bs.p50_us > 0 ? hs.p50_us / bs.p50_us : 0.0,
	       bs.p99_us > 0 ? hs.p99_us / bs.p99_us : 0.0,
	       bs.mean_us > 0 ? hs.mean_us / bs.mean_us : 0.0);
	status = 0;

out_free:
	free(hns);
	free(bns);
	hpu_close(dev);
	return status;
}
