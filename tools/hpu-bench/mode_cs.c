// SPDX-License-Identifier: MIT
/*
 * mode_cs.c - hpu-bench cs: round trip of a one-NOP command submission
 * until its completion is known, beside a bare FUSE ioctl round trip.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "hpudrv.h"

#define DEFAULT_ITER 10000
#define MAX_ITER     10000000L
#define WARMUP	     1000
#define ROUNDS	     4
#define WAIT_US	     5000000ULL

/* DESIGN.md: NOP CS submit->complete round trip <= 2 x bare FUSE ioctl */
#define TARGET_RATIO 2.0

struct cs_run {
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	size_t waits;
};

/*
 * One NOP CS per sample; a CS reported COMPLETED at submission needs no
 * WAIT_CS, any other is waited for.
 */
static int time_cs(struct cs_run *r, uint64_t *ns, size_t n)
{
	uint64_t seq, t0;
	uint32_t status;
	int done, ret;
	size_t i;

	for (i = 0; i < n; i++) {
		t0 = bench_now_ns();
		ret = hpu_cb_builder_submit(r->cb, 0, 0, 0, &seq, &done);
		if (ret)
			return ret;
		if (!done) {
			ret = hpu_cs_wait(r->dev, seq, WAIT_US, &status);
			if (ret)
				return ret;
			if (status != HPU_WAIT_CS_STATUS_COMPLETED)
				return -EIO;
			if (ns)
				r->waits++;
		}
		if (ns)
			ns[i] = bench_now_ns() - t0;
	}
	return 0;
}

static int measure(struct cs_run *r, const char *node, uint64_t *cns,
		   uint64_t *bns, size_t n, const char **failed)
{
	size_t done = 0, chunk = (n + ROUNDS - 1) / ROUNDS, k;
	int fd, ret;

	*failed = "bare FUSE open";
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*failed = "NOP CS";
	ret = time_cs(r, NULL, WARMUP);
	if (ret)
		goto out_close;
	*failed = "bare FUSE ioctl";
	ret = barefuse_time(fd, HPU_IOCTL_CS, NULL, WARMUP);
	while (!ret && done < n) {
		k = n - done < chunk ? n - done : chunk;
		*failed = "NOP CS";
		ret = time_cs(r, cns + done, k);
		if (ret)
			break;
		*failed = "bare FUSE ioctl";
		ret = barefuse_time(fd, HPU_IOCTL_CS, bns + done, k);
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
		"Usage: hpu-bench cs [-n ITER] [-d INDEX]\n"
		"  -n ITER   timed round trips per path (default %d)\n"
		"  -d INDEX  device hpuN to use (default: first visible)\n",
		DEFAULT_ITER);
	return status;
}

static int parse_long(const char *arg, long max, long *out)
{
	char *end;

	*out = strtol(arg, &end, 10);
	return *end || end == arg || *out < 0 || *out > max ? -EINVAL : 0;
}

int bench_cs(int argc, char **argv)
{
	struct bench_stats cs, bs;
	struct cs_run r = { 0 };
	struct barefuse *bf;
	uint64_t *cns = NULL, *bns = NULL;
	const char *failed;
	long iter = DEFAULT_ITER, index = -1;
	double ratio;
	int c, ret, status = 1;

	optind = 1;
	while ((c = getopt(argc, argv, "n:d:h")) != -1) {
		switch (c) {
		case 'n':
			if (parse_long(optarg, MAX_ITER, &iter) || !iter) {
				fprintf(stderr, "hpu-bench: bad -n '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			if (parse_long(optarg, 1 << 20, &index)) {
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
	if (bench_open_device(index, &r.dev, &index))
		return 1;
	ret = hpu_cb_builder_create(r.dev, 8, &r.cb);
	if (!ret)
		ret = hpu_cb_nop(r.cb);
	if (ret) {
		fprintf(stderr, "hpu-bench: cannot build the NOP CB: %s\n",
			hpu_strerror(ret));
		goto out_close;
	}
	cns = calloc((size_t)iter, sizeof(*cns));
	bns = calloc((size_t)iter, sizeof(*bns));
	if (!cns || !bns) {
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
	ret = measure(&r, barefuse_node(bf), cns, bns, (size_t)iter, &failed);
	barefuse_stop(bf);
	if (ret) {
		fprintf(stderr, "hpu-bench: %s failed: %s\n", failed,
			hpu_strerror(ret));
		goto out_free;
	}
	bench_summarize(cns, (size_t)iter, &cs);
	bench_summarize(bns, (size_t)iter, &bs);
	ratio = bs.p50_us > 0 ? cs.p50_us / bs.p50_us : 0.0;

	printf("hpu-bench cs: %ld round trips per path, one-NOP CS on queue 0 "
	       "of hpu%ld (%zu needed a WAIT_CS)\n",
	       iter, index, r.waits);
	printf("  %-26s %10s %10s %10s\n", "path", "p50 us", "p99 us",
	       "mean us");
	row("NOP CS submit->complete", &cs);
	row("bare FUSE ioctl (ref)", &bs);
	printf("  %-26s %10.2f %10.2f %10.2f\n", "ratio cs / bare", ratio,
	       bs.p99_us > 0 ? cs.p99_us / bs.p99_us : 0.0,
	       bs.mean_us > 0 ? cs.mean_us / bs.mean_us : 0.0);
	printf("  target (DESIGN.md): p50 ratio <= %.1f: %s\n", TARGET_RATIO,
	       ratio <= TARGET_RATIO ? "met" : "NOT met");
	status = 0;

out_free:
	free(cns);
	free(bns);
out_close:
	hpu_cb_builder_destroy(r.cb);
	hpu_close(r.dev);
	return status;
}
