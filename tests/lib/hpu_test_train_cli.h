/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_train_cli.h - running hpu-train in the hpu-train tests
 * (tests/integration/test_train_cli*.c): a bounded run with both outputs
 * captured, in the test's environment without any cluster variable (so
 * a test under Slurm or torchrun stays a single process) plus what the
 * case adds; reading --print-env and summary values; a refused run; a
 * short training run and the tolerance two such runs must agree within.
 * Every helper fails the cmocka test when a step it needs fails.
 */
#ifndef HPU_TEST_TRAIN_CLI_H
#define HPU_TEST_TRAIN_CLI_H

#include <stddef.h>

/* the bound of one hpu-train run */
#define HPU_TEST_TRAIN_RUN_MS 40000

/**
 * struct hpu_test_train_run - one hpu-train run
 * @out: its stdout
 * @err: its stderr
 * @status: exit status, 128 + signal, -1 when it had to be killed
 * @ms: wall time
 */
struct hpu_test_train_run {
	char *out;
	char *err;
	int status;
	long ms;
};

/**
 * struct hpu_test_train_bad - a refused command line
 * @args: its arguments, NULL-terminated
 * @env: variables added to the environment, NULL-terminated
 * @msg: what stderr must contain
 */
struct hpu_test_train_bad {
	const char *args[8];
	const char *env[8];
	const char *msg;
};

/* The test's environment without cluster variables, plus @add (free()) */
char **hpu_test_train_env(const char *const *add);
/* hpu-train's argv: the program then @args (free()) */
char **hpu_test_train_argv(const char *const *args);
/* Run hpu-train @args with @env added; both outputs captured, bounded */
void hpu_test_train_run(const char *const *args, const char *const *env,
			int timeout_ms, struct hpu_test_train_run *r);
void hpu_test_train_run_free(struct hpu_test_train_run *r);
/* Print @r's status, time and both outputs */
void hpu_test_train_dump(const char *what, const struct hpu_test_train_run *r);
/* The value of "key=value" in --print-env output (static buffer) */
const char *hpu_test_train_kv(const char *out, const char *key);
/* A number after @label in @out, NAN when absent */
double hpu_test_train_number(const char *out, const char *label);
/*
 * Case @i: hpu-train @args with @env must exit 2 with @msg on stderr and
 * nothing on stdout (the run is dumped when not); @r keeps the run
 */
void hpu_test_train_refused(const char *const *args, const char *const *env,
			    const char *msg, size_t i,
			    struct hpu_test_train_run *r);
/* Final loss and test accuracy of a short run (40 steps, seed 7) */
void hpu_test_train_short(const char *devices, const char *batch,
			  const char *const *env, double *loss, double *acc,
			  struct hpu_test_train_run *r);
/* Two final losses agree (2e-4 absolute plus 2e-3 of @b) */
void hpu_test_train_assert_close(double a, double b, const char *what);

#endif /* HPU_TEST_TRAIN_CLI_H */
