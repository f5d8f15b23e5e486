/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the files of hpu-bench share.
 */
#ifndef HPU_BENCH_H
#define HPU_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hpu_device;

/**
 * struct bench_mode - one benchmark of hpu-bench
 * @name: first argument selecting it
 * @help: one line for the usage text
 * @run: runs it with its own arguments (argv[0] is @name); returns an
 *	exit status
 */
struct bench_mode {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);
};

/**
 * struct bench_stats - latency summary of one measured path
 * @p50_us: median in microseconds
 * @p99_us: 99th percentile in microseconds
 * @mean_us: mean in microseconds
 * @n: samples
 */
struct bench_stats {
	double p50_us;
	double p99_us;
	double mean_us;
	size_t n;
};

/* main.c */
uint64_t bench_now_ns(void);
void bench_summarize(uint64_t *ns, size_t n, struct bench_stats *st);

/* mode_ioctl.c */
int bench_ioctl(int argc, char **argv);

/* barefuse.c: a one-file FUSE filesystem answering ioctls at once */
struct barefuse;
int barefuse_start(struct barefuse **bfp);
const char *barefuse_node(const struct barefuse *bf);
void barefuse_stop(struct barefuse *bf);
/*
 * Time @n round trips of @request (an ioctl number of hpu_accel.h, so the
 * kernel copies the same bytes as for the device) on @fd, a descriptor of
 * barefuse_node(); @ns may be NULL (warm-up).
 */
int barefuse_time(int fd, unsigned long request, uint64_t *ns, size_t n);

/**
 * struct bench_latency - a driver path to time beside the bare FUSE ioctl
 * @what: its name in error messages
 * @time_fn: times @n round trips into @ns (NULL: warm-up, not recorded)
 * @arg: first argument of @time_fn
 * @request: ioctl number the reference issues, so the kernel copies the
 *	same bytes
 * @warmup: round trips of each path before measuring
 */
struct bench_latency {
	const char *what;
	int (*time_fn)(void *arg, uint64_t *ns, size_t n);
	void *arg;
	unsigned long request;
	size_t warmup;
};

/* latency.c: run @l beside the reference, @iter samples of each */
int bench_latency_run(const struct bench_latency *l, size_t iter,
		      struct bench_stats *hs, struct bench_stats *bs);
/* prints both rows and the ratios; returns the p50 ratio */
double bench_latency_print(const char *path, const struct bench_stats *hs,
			   const struct bench_stats *bs, const char *ratio);
/* a decimal in [min, max]: 0 or -EINVAL */
int bench_parse_long(const char *arg, long min, long max, long *out);
/*
 * The options of every mode: -@opt VALUE in [min, max] into @value, -d
 * INDEX into @index, -h. Return: 0 run, 1 help asked, 2 usage error
 * (the bad value is reported).
 */
int bench_parse_args(int argc, char **argv, char opt, long min, long max,
		     long *value, long *index);

/* mode_cs.c, mode_dma.c */
int bench_cs(int argc, char **argv);
int bench_dma(int argc, char **argv);

/* mode_gemm.c */
int bench_gemm(int argc, char **argv);

/* mode_tpc.c */
int bench_tpc(int argc, char **argv);

/* mode_step.c */
int bench_step(int argc, char **argv);

/* main.c: the device of -d INDEX, or the first visible one when < 0 */
int bench_open_device(long index, struct hpu_device **devp, long *indexp);

/* bench_start(): go on running the mode */
#define BENCH_RUN (-1)

/*
 * main.c: the start of a mode: bench_parse_args() (@opt, @min, @max,
 * @value, the index), @usage(stdout, 0) on -h or @usage(stderr, 2) on a
 * usage error, then bench_open_device() into @devp and @indexp (which
 * holds -1 or the -d default on entry). Return: BENCH_RUN, or the exit
 * status the mode returns at once.
 */
int bench_start(int argc, char **argv, char opt, long min, long max,
		long *value, int (*usage)(FILE *f, int status),
		struct hpu_device **devp, long *indexp);

#endif /* HPU_BENCH_H */
