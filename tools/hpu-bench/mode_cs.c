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
static int time_cs(void *arg, uint64_t *ns, size_t n)
{
	struct cs_run *r = arg;
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

static int usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: hpu-bench cs [-n ITER] [-d INDEX]\n"
		"  -n ITER   timed round trips per path (default %d)\n"
		"  -d INDEX  device hpuN to use (default: first visible)\n",
		DEFAULT_ITER);
	return status;
}

int bench_cs(int argc, char **argv)
{
	struct bench_stats cs, bs;
	struct cs_run r = { 0 };
	struct bench_latency l = {
		.what = "NOP CS",
		.time_fn = time_cs,
		.arg = &r,
		.request = HPU_IOCTL_CS,
		.warmup = WARMUP,
	};
	long iter = DEFAULT_ITER, index = -1;
	double ratio;
	int c, ret, status = 1;

	c = bench_start(argc, argv, 'n', 1, MAX_ITER, &iter, usage, &r.dev,
			&index);
	if (c != BENCH_RUN)
		return c;
	ret = hpu_cb_builder_create(r.dev, 8, &r.cb);
	if (!ret)
		ret = hpu_cb_nop(r.cb);
	if (ret) {
		fprintf(stderr, "hpu-bench: cannot build the NOP CB: %s\n",
			hpu_strerror(ret));
		goto out_close;
	}
	if (bench_latency_run(&l, (size_t)iter, &cs, &bs))
		goto out_close;
	printf("hpu-bench cs: %ld round trips per path, one-NOP CS on queue 0 "
	       "of hpu%ld (%zu needed a WAIT_CS)\n",
	       iter, index, r.waits);
	ratio = bench_latency_print("NOP CS submit->complete", &cs, &bs,
				    "ratio cs / bare");
	printf("  target (DESIGN.md): p50 ratio <= %.1f: %s\n", TARGET_RATIO,
	       ratio <= TARGET_RATIO ? "met" : "NOT met");
	status = 0;

out_close:
	hpu_cb_builder_destroy(r.cb);
	hpu_close(r.dev);
	return status;
}
