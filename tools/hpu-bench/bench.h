/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the files of hpu-bench share.
 */
#ifndef HPU_BENCH_H
#define HPU_BENCH_H

#include <stdbool.h>
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

/**
 * bench_model_dma_gbps() - GB/s of one LIN_DMA of @size bytes on one DMA
 * engine of a Gaudi2 by the timing model (model_dma.c)
 * @dir: enum hpusim_tm_dir (HPUSIM_TM_H2D, _D2H, _D2D)
 * @size: bytes
 *
 * Return: the modeled rate, 0 for a bad @dir or without a figure.
 */
double bench_model_dma_gbps(int dir, uint64_t size);

/* mode_gemm.c */
int bench_gemm(int argc, char **argv);

/* stable.c: when the figures of a row measured in windows have settled */
#define BENCH_SERIES_MAX 64

/**
 * struct bench_series - the figures of one column's windows, in order
 * @v: one figure per window (GFLOP/s), the first @n used
 * @n: windows so far (at most BENCH_SERIES_MAX; more are dropped)
 */
struct bench_series {
	double v[BENCH_SERIES_MAX];
	unsigned int n;
};

/**
 * struct bench_rule - when a row stops
 * @tol: relative agreement of a column's last two windows (0.1: 10%)
 * @min_ns: a row runs at least this long
 * @max_ns: after this long it stops settled or not (once every column
 *	has two windows)
 */
struct bench_rule {
	double tol;
	uint64_t min_ns;
	uint64_t max_ns;
};

/* bench_row_verdict(): what to do after a round of windows */
enum bench_verdict {
	BENCH_MORE,	/* measure another round */
	BENCH_STABLE,	/* every column's last two windows agree */
	BENCH_UNSTABLE, /* out of time (or room) before they did */
};

void bench_series_add(struct bench_series *s, double v);
/* the last two windows are positive and within @tol of the larger */
bool bench_series_settled(const struct bench_series *s, double tol);
/* median of the windows (0 without any) */
double bench_series_median(const struct bench_series *s);
/* (largest - smallest) / median of the windows (0 without any) */
double bench_series_spread(const struct bench_series *s);
/*
 * After a round: @ncols columns (@cols), the row running for
 * @elapsed_ns under @rule.
 */
enum bench_verdict bench_row_verdict(const struct bench_series *cols,
				     unsigned int ncols, uint64_t elapsed_ns,
				     const struct bench_rule *rule);

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
