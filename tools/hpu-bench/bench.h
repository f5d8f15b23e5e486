/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the files of hpu-bench share.
 */
#ifndef HPU_BENCH_H
#define HPU_BENCH_H

#include <stddef.h>
#include <stdint.h>

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

/* mode_cs.c, mode_dma.c */
int bench_cs(int argc, char **argv);
int bench_dma(int argc, char **argv);

/* mode_gemm.c */
int bench_gemm(int argc, char **argv);

/* mode_tpc.c */
int bench_tpc(int argc, char **argv);

/* main.c: the device of -d INDEX, or the first visible one when < 0 */
int bench_open_device(long index, struct hpu_device **devp, long *indexp);

#endif /* HPU_BENCH_H */
