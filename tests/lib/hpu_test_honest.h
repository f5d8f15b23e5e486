/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_honest.h - the honest client of the stress tests
 * (test_stress_hostile.c): in a child process, it opens device 0 and
 * runs INFO queries, DMA round trips (pinned memory, and ordinary memory
 * mapped for the operation) and GEMMs on the MME in turn, checks every
 * result and times every operation against a bound; it reports into
 * memory shared with the test and exits.
 */
#ifndef HPU_TEST_HONEST_H
#define HPU_TEST_HONEST_H

#include <stdint.h>

#include "hpudrv.h"

/* The honest client's operations, in the order it runs them */
enum {
	HPU_TEST_HONEST_INFO,
	HPU_TEST_HONEST_DMA,
	HPU_TEST_HONEST_GEMM,
	HPU_TEST_HONEST_NOPS
};

/* "INFO", "DMA", "GEMM" */
extern const char *const hpu_test_honest_op_names[HPU_TEST_HONEST_NOPS];

/**
 * struct hpu_test_honest_report - what an honest client did (shared memory)
 * @ops: operations completed and checked, per kind
 * @max_ms: slowest of each kind
 * @failed: set with @err at the first failure
 * @err: what went wrong
 */
struct hpu_test_honest_report {
	uint64_t ops[HPU_TEST_HONEST_NOPS];
	long max_ms[HPU_TEST_HONEST_NOPS];
	int failed;
	char err[240];
};

/**
 * hpu_test_honest_main() - run an honest client in this (child) process
 * @r: its report, in memory shared with the test
 * @stop: set (shared memory) when the client is to end
 * @slot: its number, in messages and to spread its queues
 * @bound_ms: bound of the set-up and of every operation
 * @max_ops: operations to run; ~0U: until *@stop is set
 * @seed: of its random sizes, offsets and operands
 *
 * Exits: 0 when every operation was right and within the bound, else 1
 * with @r->failed and @r->err set.
 */
void hpu_test_honest_main(struct hpu_test_honest_report *r, const int *stop,
			  int slot, long bound_ms, unsigned int max_ops,
			  uint64_t seed) __attribute__((noreturn));

#endif /* HPU_TEST_HONEST_H */
