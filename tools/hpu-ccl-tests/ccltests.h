/* SPDX-License-Identifier: MIT */
/*
 * ccltests.h - what the files of hpu-ccl-tests share.
 *
 * hpu-ccl-tests measures and checks the collectives of libhpuccl the way
 * nccl-tests does for NCCL (docs/hpu-ccl-tests.md). options.c parses the
 * command line, launch.c starts the ranks (forked here, or one per
 * process under a launcher), ops.c is the table of collectives, data.c
 * makes the input and the expected output, bench.c runs one rank and
 * report.c prints rank 0's table.
 */
#ifndef HPU_CCLTESTS_H
#define HPU_CCLTESTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "hpuccl.h"
#include "hpusim_timing.h"

#define CCLT_PROG "hpu-ccl-tests"

/* Exit statuses */
#define CCLT_EXIT_OK	0
#define CCLT_EXIT_FAIL	1 /* wrong results, a collective or setup error */
#define CCLT_EXIT_USAGE 2 /* bad flag or value */

/**
 * enum cclt_op_id - the collectives, in the order of -o all
 */
enum cclt_op_id {
	CCLT_ALLREDUCE,
	CCLT_BROADCAST,
	CCLT_REDUCE,
	CCLT_ALLGATHER,
	CCLT_REDUCE_SCATTER,
	CCLT_ALLTOALL,
	CCLT_SENDRECV,
	CCLT_NUM_OPS
};

/**
 * struct cclt_opts - the parsed command line
 * @ops: bit (1 << enum cclt_op_id) per collective to run
 * @dtype: element type
 * @redop: reduction of the reducing collectives
 * @root: root of broadcast and reduce
 * @minbytes: first size
 * @maxbytes: last size
 * @factor: each size is the previous one times @factor
 * @iters: timed iterations per size
 * @warmup: untimed iterations at the largest size before the first row
 * @check: whether to check the results
 * @nranks: -g, ranks forked on this host; 0 when not given
 * @timeout_ms: communicator timeout; 0: the library's (HPUCCL_TIMEOUT_MS)
 * @plot_path: --plot: rank 0 draws busbw vs size there (NULL: no plot)
 * @model: --model: the chip the "modeled" columns are for (timing model,
 *	docs/timing-model.md); NULL for --model none
 */
struct cclt_opts {
	unsigned int ops;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop redop;
	int root;
	uint64_t minbytes;
	uint64_t maxbytes;
	uint64_t factor;
	long iters;
	long warmup;
	bool check;
	int nranks;
	uint32_t timeout_ms;
	const char *plot_path;
	const struct hpusim_tm_profile *model;
};

/* options.c */

/*
 * Parse argv into @o. Return: 0 run, 1 help printed, CCLT_EXIT_USAGE
 * after printing what is wrong.
 */
int cclt_parse_args(int argc, char **argv, struct cclt_opts *o);
void cclt_usage(FILE *f);
/* "1M" style size (K, M, G: powers of 1024): 0 or -EINVAL */
int cclt_parse_size(const char *arg, uint64_t *out);
const char *cclt_dtype_name(enum hpuccl_dtype dtype);
const char *cclt_redop_name(enum hpuccl_redop redop);

/**
 * struct cclt_rank - where one rank runs
 * @rank: rank in the communicator
 * @nranks: ranks in the communicator
 * @device: index of the device (hpuN) the rank uses
 * @id: the communicator's id
 */
struct cclt_rank {
	int rank;
	int nranks;
	int device;
	struct hpuccl_unique_id id;
};

/* launch.c: start the ranks and return the exit status */
int cclt_launch(const struct cclt_opts *o);

/* bench.c: run every collective of @o as rank @r; an exit status */
int cclt_rank_main(const struct cclt_opts *o, const struct cclt_rank *r);
/* whether @o can run on @nranks ranks: 0 or CCLT_EXIT_USAGE (printed) */
int cclt_validate(const struct cclt_opts *o, int nranks);

/**
 * struct cclt_call - one collective call with its arguments
 * @op: collective
 * @dtype: element type
 * @redop: reduction
 * @root: root rank
 * @count: the count the library is called with (per-rank chunk for
 *	allgather, reduce_scatter and alltoall)
 * @send: device VA of the send buffer
 * @recv: device VA of the receive buffer
 * @rank: this rank
 * @nranks: ranks
 * @comm: communicator
 * @stream: stream of the communicator's device
 */
struct cclt_call {
	enum cclt_op_id op;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop redop;
	int root;
	size_t count;
	uint64_t send;
	uint64_t recv;
	int rank;
	int nranks;
	struct hpuccl_comm *comm;
	struct hpu_stream *stream;
};

/**
 * struct cclt_op - one collective of the table
 * @name: its -o name
 * @reduces: takes a reduction
 * @rooted: takes a root
 * @in_place: has an in-place form
 * @min_ranks: fewest ranks it runs with
 * @chunked: the library's count is per rank (buffers of nranks chunks)
 * @busbw_factor: bus bandwidth / algorithm bandwidth for @n ranks
 * @run: submit the call on its stream
 */
struct cclt_op {
	const char *name;
	bool reduces;
	bool rooted;
	bool in_place;
	int min_ranks;
	bool chunked;
	double (*busbw_factor)(int n);
	int (*run)(const struct cclt_call *c);
};

/* ops.c */
const struct cclt_op *cclt_op_get(enum cclt_op_id id);
/* -o name to id; -EINVAL when unknown, CCLT_NUM_OPS for "all" */
int cclt_op_lookup(const char *name);
/* elements of the send and receive buffers of @c */
size_t cclt_send_elems(const struct cclt_call *c);
size_t cclt_recv_elems(const struct cclt_call *c);
/*
 * Element offsets of the send and receive pointers of the in-place form
 * in its single buffer (allgather: send at rank * count; reduce_scatter:
 * receive at rank * count; else both 0)
 */
void cclt_in_place_offsets(const struct cclt_call *c, size_t *send_off,
			   size_t *recv_off);

/* data.c */

/*
 * Fill @buf (host memory, cclt_send_elems() elements of @c's dtype) with
 * this rank's input for @c; @seed varies it per run.
 */
void cclt_fill_send(const struct cclt_call *c, uint64_t seed, void *buf);
/* Fill @n elements at @buf with a pattern no result takes */
void cclt_fill_poison(enum hpuccl_dtype dtype, void *buf, size_t n);
/*
 * Count the elements of @buf (host copy of the receive buffer,
 * cclt_recv_elems() elements) that differ from what @c must produce.
 */
size_t cclt_count_wrong(const struct cclt_call *c, uint64_t seed,
			const void *buf);

/**
 * struct cclt_row - one size of a collective, as rank 0 prints it
 * @bytes: size column
 * @count: elements column
 * @time_us: time per call (slowest rank), [0] out of place, [1] in place;
 *	< 0 when the form does not exist
 * @wrong: elements wrong over all ranks per form; < 0 when not checked
 */
struct cclt_row {
	uint64_t bytes;
	uint64_t count;
	double time_us[2];
	long long wrong[2];
};

/* report.c */
/* bus bandwidth (GB/s) of @row's form @in_place; < 0 when it has none */
double cclt_busbw(const struct cclt_op *op, int nranks,
		  const struct cclt_row *row, int in_place);
void cclt_print_header(const struct cclt_opts *o, const struct cclt_op *op,
		       int nranks);
/* print @row; adds its bus bandwidths to *sum and their number to *n */
void cclt_print_row(const struct cclt_opts *o, const struct cclt_op *op,
		    int nranks, const struct cclt_row *row, double *sum,
		    int *n);
void cclt_print_footer(double busbw_sum, int n, long long wrong);
/*
 * The time @o's model gives one call of @op on @nranks cards with
 * @bytes (nccl-tests' size): 0 with *ns set, -EOPNOTSUPP when there is
 * no model or it has no figure for @op or that many ranks.
 */
int cclt_model_ns(const struct cclt_opts *o, enum cclt_op_id op, int nranks,
		  uint64_t bytes, uint64_t *ns);

#endif /* HPU_CCLTESTS_H */
