// SPDX-License-Identifier: MIT
/*
 * latency.c - the round-trip comparisons of hpu-bench (ioctl, cs): a
 * driver path timed beside a bare FUSE ioctl on the reference filesystem
 * of barefuse.c, warmed up, then in alternating slices so that load on the
 * machine slows both alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "hpudrv.h"

/* Slices are long because each switch costs a few slow round trips */
#define ROUNDS 4

static int alternate(const struct bench_latency *l, const char *node,
		     uint64_t *hns, uint64_t *bns, size_t n,
		     const char **failed)
{
	size_t done = 0, chunk = (n + ROUNDS - 1) / ROUNDS, k;
	int fd, ret;

	*failed = "bare FUSE open";
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*failed = l->what;
	ret = l->time_fn(l->arg, NULL, l->warmup);
	if (ret)
		goto out_close;
	*failed = "bare FUSE ioctl";
	ret = barefuse_time(fd, l->request, NULL, l->warmup);
	while (!ret && done < n) {
		k = n - done < chunk ? n - done : chunk;
		*failed = l->what;
		ret = l->time_fn(l->arg, hns + done, k);
		if (ret)
			break;
		*failed = "bare FUSE ioctl";
		ret = barefuse_time(fd, l->request, bns + done, k);
		done += k;
	}
out_close:
	close(fd);
	return ret;
}

int bench_latency_run(const struct bench_latency *l, size_t iter,
		      struct bench_stats *hs, struct bench_stats *bs)
{
	uint64_t *hns, *bns;
	struct barefuse *bf;
	const char *failed;
	int ret = -ENOMEM;

	hns = calloc(iter, sizeof(*hns));
	bns = calloc(iter, sizeof(*bns));
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
	ret = alternate(l, barefuse_node(bf), hns, bns, iter, &failed);
	barefuse_stop(bf);
	if (ret) {
		fprintf(stderr, "hpu-bench: %s failed: %s\n", failed,
			hpu_strerror(ret));
		goto out_free;
	}
	bench_summarize(hns, iter, hs);
	bench_summarize(bns, iter, bs);
out_free:
	free(hns);
	free(bns);
	return ret;
}

static void row(const char *name, const struct bench_stats *st)
{
	printf("  %-26s %10.2f %10.2f %10.2f\n", name, st->p50_us, st->p99_us,
	       st->mean_us);
}

double bench_latency_print(const char *path, const struct bench_stats *hs,
			   const struct bench_stats *bs, const char *ratio)
{
	double p50 = bs->p50_us > 0 ? hs->p50_us / bs->p50_us : 0.0;

	printf("  %-26s %10s %10s %10s\n", "path", "p50 us", "p99 us",
	       "mean us");
	row(path, hs);
	row("bare FUSE ioctl (ref)", bs);
	printf("  %-26s %10.2f %10.2f %10.2f\n", ratio, p50,
	       bs->p99_us > 0 ? hs->p99_us / bs->p99_us : 0.0,
	       bs->mean_us > 0 ? hs->mean_us / bs->mean_us : 0.0);
	return p50;
}

int bench_parse_long(const char *arg, long min, long max, long *out)
{
	char *end;

	*out = strtol(arg, &end, 10);
	return *end || end == arg || *out < min || *out > max ? -EINVAL : 0;
}

int bench_parse_args(int argc, char **argv, char opt, long min, long max,
		     long *value, long *index)
{
	char optstring[] = "?:d:h";
	int c;

	optstring[0] = opt;
	optind = 1;
	while ((c = getopt(argc, argv, optstring)) != -1) {
		if (c == opt && !bench_parse_long(optarg, min, max, value))
			continue;
		if (c == 'd' && !bench_parse_long(optarg, 0, 1 << 20, index))
			continue;
		if (c == 'h')
			return 1;
		if (c == opt || c == 'd')
			fprintf(stderr, "hpu-bench: bad -%c '%s'\n", c, optarg);
		return 2;
	}
	return optind < argc ? 2 : 0;
}
