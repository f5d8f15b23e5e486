/* SPDX-License-Identifier: MIT */
/*
 * hpu_train.h - the hpu-train command: options, the per-node launcher,
 * the worker (one rank) and the benchmark. See docs/hpu-train.md.
 */
#ifndef HPU_TRAIN_H
#define HPU_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_blas_core.h"
#include "ht_cluster.h"
#include "ht_devices.h"
#include "ht_trainer.h"

#define HTC_PROG "hpu-train"

/* Exit statuses */
#define HTC_EXIT_OK    0
#define HTC_EXIT_FAIL  1    /* training failed, a rank failed */
#define HTC_EXIT_USAGE 2    /* the command line or its inputs are wrong */
#define HTC_EXIT_DONE  (-1) /* --help, --version: exit 0 at once */

/* Environment the launcher passes to its workers beside torchrun's */
#define HTC_ENV_TTY	 "HPU_TRAIN_STDOUT_TTY" /* the launcher's is a TTY */
#define HTC_ENV_LAUNCHED "HPU_TRAIN_LAUNCHED"	/* started by hpu-train */

/* A worker that fails makes the launcher stop the others after this */
#define HTC_GRACE_MS_DEFAULT 5000U

/**
 * struct htc_opts - the parsed command line
 * @t: the trainer's options (ht_trainer_opts_init() + the flags)
 * @req: --accelerator, --devices, --strategy, --num-nodes
 * @print_env: --print-env: print the resolved ranks and exit
 * @benchmark: --benchmark
 * @bench_modes: bit (1 << exec mode) per mode to benchmark; 0: --exec-mode
 * @bench_prefetch: --benchmark-prefetch: each hpu mode twice, device
 *	prefetch off then on
 * @bench_rounds: --benchmark-rounds: the paths run this many times in
 *	turn and each row gives its median round (0: not given, 1)
 * @exec_mode_set: --exec-mode was given
 * @grace_ms: --grace-period in milliseconds
 * @data_name: what --data said, for the banner
 * @weights_hash: --print-weights-hash: the summary ends with a hash of
 *	the final weights' bytes
 * @profiler: --profiler hpu: trace.json in the log directory
 *	(docs/tracing.md)
 * @timing_model: --timing-model: the chip of the benchmark's modeled
 *	column ("gaudi2", the default), or NULL (none)
 * @timing_model_set: --timing-model was given
 */
/* most --benchmark-rounds */
#define HTC_BENCH_MAX_ROUNDS 9

struct htc_opts {
	struct ht_trainer_opts t;
	struct ht_devices_req req;
	bool print_env;
	bool benchmark;
	uint32_t bench_modes;
	bool bench_prefetch;
	uint32_t bench_rounds;
	bool exec_mode_set;
	uint32_t grace_ms;
	const char *data_name;
	bool weights_hash;
	bool profiler;
	const char *timing_model;
	bool timing_model_set;
};

/**
 * htc_parse() - parse the command line
 * @argc: argument count
 * @argv: arguments
 * @o: the options, overwritten
 *
 * Errors are printed to stderr.
 *
 * Return: HTC_EXIT_OK, HTC_EXIT_USAGE or HTC_EXIT_DONE (help or version
 * printed).
 */
int htc_parse(int argc, char **argv, struct htc_opts *o);

/**
 * htc_check() - checks that need the resolved devices and cluster
 * @o: options
 * @dev: the devices resolved
 * @cl: this process's place in the run
 *
 * Return: HTC_EXIT_OK or HTC_EXIT_USAGE (message printed).
 */
int htc_check(const struct htc_opts *o, const struct ht_devices *dev,
	      const struct ht_cluster *cl);

/**
 * htc_print_env() - --print-env: the environment found and the ranks
 * this process is (or launches)
 * @o: options
 * @dev: devices
 * @cl: cluster
 * @port_chosen: the launcher would pick a free port (MASTER_PORT unset)
 * @blas: this process's OpenBLAS core (hpu_blas_core_apply())
 */
void htc_print_env(const struct htc_opts *o, const struct ht_devices *dev,
		   const struct ht_cluster *cl, bool port_chosen,
		   const struct hpu_blas_core *blas);

/**
 * htc_launch() - one worker process per local device, torchrun style;
 * waits for them with bounded shutdown and forwards SIGINT/SIGTERM
 * @o: options
 * @cl: the cluster (launcher_needed)
 * @argv: this process's arguments (the workers run the same command)
 *
 * Return: the exit status for the launcher.
 */
int htc_launch(const struct htc_opts *o, const struct ht_cluster *cl,
	       char **argv);

/**
 * htc_free_port() - a TCP port nobody listens on right now
 * @port: receives it
 *
 * Return: 0 or -errno.
 */
int htc_free_port(uint16_t *port);

/**
 * htc_worker() - train as one rank: fit, test, summary
 * @o: options
 * @dev: devices
 * @cl: cluster
 *
 * Return: the exit status.
 */
int htc_worker(struct htc_opts *o, const struct ht_devices *dev,
	       const struct ht_cluster *cl);

/**
 * htc_benchmark() - --benchmark: the chosen path (one row per execution
 * mode asked for) beside --accelerator cpu on the same model; with
 * several ranks, htc_bench_ddp()
 * @o: options
 * @dev: devices
 * @cl: cluster
 *
 * Return: the exit status.
 */
int htc_benchmark(struct htc_opts *o, const struct ht_devices *dev,
		  const struct ht_cluster *cl);

/**
 * struct htc_bench_row - one row of a benchmark table: a path, its result
 * of each round and the round it reports (the median by step time)
 * @path: e.g. "hpu/lazy", "hpu/lazy/pf-on", "cpu"
 * @accel: enum ht_train_accel
 * @mode: enum ht_train_exec
 * @pf: device prefetch on (hpu)
 * @nrounds: rounds measured
 * @round_s: step time of each round
 * @round_sps: samples per second of each round
 * @step_s: the median round's step time (htc_bench_median())
 * @samples_per_s: the median round's samples per second
 * @spread: (slowest - fastest round) / the median round
 * @round_model_s: modeled step time of each round (0: not modeled)
 * @round_mme_s: modeled MME busy time per step of each round
 * @model_s: the median round's modeled step time
 * @mme_s: the median round's modeled MME busy time per step
 * @model_chip: the chip the device model used ("gaudi2")
 * @prefetches: batches prefetched, over the rounds
 * @overlapped: of those, the copies that overlapped a step
 * @ret: 0, or the error that ended the path's rounds
 */
struct htc_bench_row {
	char path[24];
	int accel;
	int mode;
	bool pf;
	unsigned int nrounds;
	double round_s[HTC_BENCH_MAX_ROUNDS];
	double round_sps[HTC_BENCH_MAX_ROUNDS];
	double step_s;
	double samples_per_s;
	double spread;
	double round_model_s[HTC_BENCH_MAX_ROUNDS];
	double round_mme_s[HTC_BENCH_MAX_ROUNDS];
	double model_s;
	double mme_s;
	char model_chip[16];
	uint64_t prefetches;
	uint64_t overlapped;
	int ret;
};

/**
 * htc_bench_opts() - the trainer options of a benchmark path: the command
 * line's with @accel and @mode, one rank, no progress, logs, checkpoints,
 * validation or test
 * @o: options
 * @accel: enum ht_train_accel
 * @mode: enum ht_train_exec
 * @pf: device prefetch 0 or 1, -1 as configured
 * @t: receives the options
 */
void htc_bench_opts(const struct htc_opts *o, int accel, int mode, int pf,
		    struct ht_trainer_opts *t);

/**
 * htc_bench_median() - a row's median round (the lower one of an even
 * count) and spread, unless it failed
 * @row: the row
 */
void htc_bench_median(struct htc_bench_row *row);

/**
 * htc_bench_ddp() - --benchmark with several ranks on one node: every
 * rank runs the same data parallel rounds of each mode; rank 0 also
 * measures the one-device step alone before each and prints the table
 * (docs/hpu-train.md "Benchmark")
 * @o: options (place()d: strategy, device, cluster)
 * @cl: cluster
 *
 * Return: the exit status.
 */
int htc_bench_ddp(struct htc_opts *o, const struct ht_cluster *cl);

/**
 * htc_exec_name() - "eager", "lazy" or "graph"
 * @mode: enum ht_train_exec
 */
const char *htc_exec_name(int mode);

/**
 * htc_model_desc() - e.g. "mlp 64-128-10 relu" (the input width and the
 * classes are those of the data when known, else "in" and "out")
 * @o: options
 * @in: input width, 0 unknown
 * @classes: classes, 0 unknown
 * @buf: buffer
 * @len: its size
 *
 * Return: @buf.
 */
const char *htc_model_desc(const struct htc_opts *o, uint32_t in,
			   uint32_t classes, char *buf, size_t len);

/**
 * htc_profile_start() - --profiler hpu: profile this rank (before any
 * device is opened) into trace.json of the log directory (one rank) or
 * trace.rankN.json (several; the launcher merges them)
 * @o: options
 * @cl: cluster
 *
 * Return: HTC_EXIT_OK or HTC_EXIT_FAIL (message printed).
 */
int htc_profile_start(const struct htc_opts *o, const struct ht_cluster *cl);

/**
 * htc_profile_merge() - the launcher's step after its workers: the
 * trace.rankN.json of its local ranks into one trace.json (one time
 * axis: every file's times are CLOCK_MONOTONIC), the rank files removed
 * @o: options
 * @cl: cluster (rank: the node's first, local_world_size ranks)
 *
 * Return: HTC_EXIT_OK or HTC_EXIT_FAIL (message printed).
 */
int htc_profile_merge(const struct htc_opts *o, const struct ht_cluster *cl);

#endif /* HPU_TRAIN_H */
