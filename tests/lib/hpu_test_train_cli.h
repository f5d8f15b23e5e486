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
#include <sys/types.h>

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
/*
 * hpu_test_train_run() that must exit 0: the run is dumped under @what
 * when it does not; @r keeps it (hpu_test_train_run_free())
 */
void hpu_test_train_run_ok(const char *what, const char *const *args,
			   const char *const *env, int timeout_ms,
			   struct hpu_test_train_run *r);
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
/* hpu_test_train_refused() every one of the @n @cases, in order */
void hpu_test_train_refused_all(const struct hpu_test_train_bad *cases,
				size_t n);
/* Final loss and test accuracy of a short run (40 steps, seed 7) */
void hpu_test_train_short(const char *devices, const char *batch,
			  const char *const *env, double *loss, double *acc,
			  struct hpu_test_train_run *r);
/* Two final losses agree (2e-4 absolute plus 2e-3 of @b) */
void hpu_test_train_assert_close(double a, double b, const char *what);

/**
 * hpu_test_train_weights_of() - the 16 hex digits after "weights fnv1a64 "
 * on the line of @label in an hpu-train output (--print-weights-hash)
 * @out: the output
 * @label: what starts the line ("[rank 1] ", or "" for one process)
 *
 * Return: a static string (two alternating buffers, so two answers can be
 * compared), "none" when the line is missing.
 */
const char *hpu_test_train_weights_of(const char *out, const char *label);

/**
 * hpu_test_children() - the children of @pid, from /proc
 * @pid: the parent
 * @out: receives their pids
 * @max: room in @out
 *
 * Return: how many were found (0 when /proc cannot say).
 */
int hpu_test_children(pid_t pid, pid_t *out, int max);

/**
 * hpu_test_train_run_and_kill() - hpu-train @args as a launcher (outputs
 * to /dev/null) whose workers are killed with SIGKILL once @mark exists
 * @args: arguments, NULL-terminated
 * @mark: the file whose appearance triggers the kill
 * @kill_bound_ms: how long the launcher may take to end after the kill
 * (it is killed too after that)
 * @status: receives the launcher's wait status
 *
 * Return: the number of workers killed.
 */
int hpu_test_train_run_and_kill(const char *const *args, const char *mark,
				long kill_bound_ms, int *status);

/**
 * hpu_test_train_killed_midrun() - hpu_test_train_run_and_kill() that
 * must kill @workers workers of a launcher that had not ended by itself
 * (it exits, with a failure status); the counts are printed
 * @args: arguments, NULL-terminated
 * @mark: the file whose appearance triggers the kill
 * @kill_bound_ms: as hpu_test_train_run_and_kill()
 * @workers: how many workers the kill must find
 */
void hpu_test_train_killed_midrun(const char *const *args, const char *mark,
				  long kill_bound_ms, int workers);

/**
 * hpu_test_train_check_resume() - run hpu-train @resumed (a 2-rank run
 * resuming the checkpoint a killed run left) and assert it ended as the
 * uninterrupted run @r0: the same weight hash on both ranks, the same
 * final loss, and metrics.csv rows equal from step to val_acc
 * @r0: the uninterrupted run (--print-weights-hash)
 * @resumed: the resumed run's arguments, NULL-terminated
 * @every: the checkpoint interval (the resume step is a multiple)
 * @min_step: the resume step is at least this (the killing checkpoint's
 * step minus @every: the kill may come before last.htck follows it)
 * @max_step: the resume step is below it
 * @loss_label: what precedes the final loss ("[rank 0] final loss ")
 * @log0: the uninterrupted run's log directory
 * @log1: the killed and resumed run's log directory
 */
void hpu_test_train_check_resume(const struct hpu_test_train_run *r0,
				 const char *const *resumed, unsigned int every,
				 double min_step, double max_step,
				 const char *loss_label, const char *log0,
				 const char *log1);

#endif /* HPU_TEST_TRAIN_CLI_H */
