// SPDX-License-Identifier: MIT
/*
 * test_ccl_tool.c - hpu-ccl-tests end to end on a temporary daemon of 3
 * Gaudi2 devices: forked ranks (-g 2, -g 3) with every result checked,
 * every collective, type and reduction, bad flags (exit 2 with a
 * message), one rank per process through WORLD_SIZE/RANK and mpirun, and
 * a rank killed under the tool (it ends non-zero, bounded), and the
 * timing model's columns (--model) against the model itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "hpusim_timing.h"

#define NDEV	    3
#define RUN_MS	    30000
#define KILL_TO_MS  2000 /* --timeout of the killed-rank run */
#define KILL_END_MS (3 * KILL_TO_MS + 5000 + 3000)

static const char *skip_reason;

/* variables of launchers the test process may have inherited */
static const char *const launcher_vars[] = {
	"WORLD_SIZE",
	"RANK",
	"LOCAL_RANK",
	"MASTER_ADDR",
	"MASTER_PORT",
	"HCCL_COMM_ID",
	"OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK",
	"OMPI_COMM_WORLD_LOCAL_RANK",
	NULL,
};

/* the child's environment: launcher variables dropped, @arg's added */
static int tool_env(void *arg)
{
	const char *const *env = arg;
	char *eq, kv[256];
	int i;

	for (i = 0; launcher_vars[i]; i++)
		unsetenv(launcher_vars[i]);
	for (i = 0; env && env[i]; i++) {
		snprintf(kv, sizeof(kv), "%s", env[i]);
		eq = strchr(kv, '=');
		if (!eq)
			return 126;
		*eq = '\0';
		setenv(kv, eq + 1, 1);
	}
	return 0;
}

/*
 * Start @argv (argv[0] NULL: hpu-ccl-tests) with "NAME=VALUE" strings of
 * @env added to the environment, stdout and stderr captured together;
 * what @t held from an earlier run is freed (the tests' runs are static).
 */
static void tool_start(struct hpu_test_proc *t, const char *const *argv,
		       const char *const *env)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_MERGE,
		.child_setup = tool_env,
		.arg = (void *)env,
	};
	const char *av[64];
	int i, n = 0;

	hpu_test_proc_free(t);
	av[n++] = argv[0] ? argv[0] : hpu_test_bin("hpu-ccl-tests");
	for (i = 1; argv[i] && n < 63; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	assert_int_equal(hpu_test_proc_start(t, (char *const *)av, &o), 0);
}

/* read what is there (waiting at most @ms); false at EOF */
static bool tool_read(struct hpu_test_proc *t, int ms)
{
	return hpu_test_proc_read(t, ms);
}

/* read to EOF and reap, killing the tool after @ms */
static void tool_finish(struct hpu_test_proc *t, int ms)
{
	hpu_test_proc_finish(t, ms);
	if (t->killed)
		print_message("still running after %d ms: killed\n", ms);
	if (t->status) /* print_message() would truncate it */
		printf("exit %d; output:\n%s\n", t->status, t->out);
}

static void run(struct hpu_test_proc *t, const char *const *argv,
		const char *const *env)
{
	tool_start(t, argv, env);
	tool_finish(t, RUN_MS);
}

/* rows of the tables in @out: each row's two #wrong columns must be 0 */
static int count_good_rows(const char *out)
{
	const char *line, *nl;
	char type[16], redop[16], w0[16], w1[16];
	unsigned long long bytes, count;
	double t0, a0, b0, t1, a1, b1;
	int root, rows = 0;

	for (line = out; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (*line == '#' || *line == '\n')
			continue;
		if (sscanf(line, "%llu %llu %15s %15s %d %lf %lf %lf %15s",
			   &bytes, &count, type, redop, &root, &t0, &a0, &b0,
			   w0) != 9)
			continue;
		assert_string_equal(w0, "0");
		assert_true(t0 > 0); /* algbw may print as 0.000 */
		if (sscanf(line,
			   "%*u %*u %*s %*s %*d %*f %*f %*f %*s %lf %lf %lf %15s",
			   &t1, &a1, &b1, w1) == 4)
			assert_string_equal(w1, "0");
		rows++;
	}
	return rows;
}

static void test_g2_allreduce(void **state)
{
	const char *argv[] = { NULL, "-g", "2", "-b", "4K", "-e", "256K", "-f",
			       "4",  "-n", "3", "-w", "1",  "-c", "1",	  NULL };
	static struct hpu_test_proc t;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	/* 4K, 16K, 64K, 256K */
	assert_int_equal(count_good_rows(t.out), 4);
	assert_non_null(strstr(t.out, "# allreduce: 2 ranks, float"));
	assert_non_null(strstr(t.out, "# Wrong elements : 0 OK"));
	assert_non_null(strstr(t.out, "# Avg bus bandwidth : "));
}

/*
 * The rows of @out as fields; check that each has @nf fields and return
 * how many rows there are (at most @max; fields point into @buf)
 */
static size_t split_rows(const char *out, char *buf, size_t len, char *(*f)[16],
			 size_t max, int nf)
{
	char *line, *save, *tok, *save2;
	size_t rows = 0;
	int n;

	snprintf(buf, len, "%s", out);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (*line == '#' || rows == max)
			continue;
		n = 0;
		for (tok = strtok_r(line, " ", &save2); tok && n < 16;
		     tok = strtok_r(NULL, " ", &save2))
			f[rows][n++] = tok;
		if (n < 8)
			continue;
		if (n != nf)
			print_message("row of %d fields, not %d\n", n, nf);
		assert_int_equal(n, nf);
		rows++;
	}
	return rows;
}

/* the modeled columns hold the timing model's figures for each row */
static void check_model_rows(const char *out, const char *chip, int nranks,
			     enum hpusim_tm_coll_op cop)
{
	const struct hpusim_tm_profile *p = hpusim_tm_profile_find(chip);
	static char buf[16384];
	char *f[8][16];
	struct hpusim_tm_coll c = { .op = cop, .ranks = (uint32_t)nranks };
	size_t rows, i;
	uint64_t ns;

	assert_non_null(p);
	rows = split_rows(out, buf, sizeof(buf), f, 8, 15);
	assert_int_equal(rows, 3); /* 1M, 2M, 4M */
	for (i = 0; i < rows; i++) {
		c.bytes = strtoull(f[i][0], NULL, 10);
		assert_int_equal(hpusim_tm_coll_ns(p, &c, &ns), 0);
		/* printed to 0.1 us and 0.001 GB/s */
		assert_true(fabs(strtod(f[i][13], NULL) - ns / 1e3) <= 0.051);
		assert_true(fabs(strtod(f[i][14], NULL) -
				 hpusim_tm_busbw_gbps(&c, ns)) <= 0.0006);
	}
}

/* --model: gaudi2 by default, another chip, none; N/A where no figure */
static void test_model_columns(void **state)
{
	const char *argv[] = { NULL, "-g", "2",		"-b", "1M", "-e", "4M",
			       "-f", "2",  "-n",	"2",  "-w", "1",  "-c",
			       "1",  "-o", "allreduce", NULL, NULL, NULL };
	static struct hpu_test_proc t;
	static char buf[16384];
	char *f[8][16];

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	assert_non_null(strstr(t.out, "# modeled: one call on 2 gaudi2 cards"));
	check_model_rows(t.out, "gaudi2", 2, HPUSIM_TM_ALLREDUCE);

	argv[16] = "reduce_scatter";
	argv[17] = "--model";
	argv[18] = "gaudi3";
	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	assert_non_null(strstr(t.out, "# modeled: one call on 2 gaudi3 cards"));
	check_model_rows(t.out, "gaudi3", 2, HPUSIM_TM_REDUCE_SCATTER);

	/* no figure for a broadcast: N/A in both columns */
	argv[16] = "broadcast";
	argv[18] = "gaudi2";
	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	assert_int_equal(split_rows(t.out, buf, sizeof(buf), f, 8, 15), 3);
	assert_string_equal(f[0][13], "N/A");
	assert_string_equal(f[0][14], "N/A");

	/* --model none: nccl-tests' 13 columns, no modeled line */
	argv[16] = "allreduce";
	argv[18] = "none";
	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	assert_null(strstr(t.out, "# modeled"));
	assert_int_equal(split_rows(t.out, buf, sizeof(buf), f, 8, 13), 3);
}

/* every collective on 3 ranks, @dtype and @redop, all checked */
static void all_ops(const char *dtype, const char *redop)
{
	const char *argv[] = { NULL, "-g",  "3",       "-o",  "all",
			       "-d", dtype, "--redop", redop, "-b",
			       "1K", "-e",  "64K",     "-f",  "8",
			       "-n", "2",   "-w",      "1",   NULL };
	static struct hpu_test_proc t;

	run(&t, argv, NULL);
	assert_int_equal(t.status, 0);
	/* 7 collectives x 1K, 8K, 64K */
	assert_int_equal(count_good_rows(t.out), 21);
	assert_null(strstr(t.out, "FAILED"));
	assert_non_null(strstr(t.out, "# sendrecv: 3 ranks"));
}

static void test_g3_all_bf16_avg(void **state)
{
	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	all_ops("bf16", "avg");
}

static void test_g3_all_int32_max(void **state)
{
	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	all_ops("int32", "max");
}

static void test_g3_all_fp32_min(void **state)
{
	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	all_ops("fp32", "min");
}

/* broadcast and reduce from the last rank */
static void test_g3_last_root(void **state)
{
	const char *argv[] = { NULL, "-g", "3",	 "-o", NULL,  "-r",
			       "2",  "-b", "1K", "-e", "64K", "-f",
			       "8",  "-n", "2",	 "-w", "1",   NULL };
	static const char *const ops[] = { "broadcast", "reduce" };
	static struct hpu_test_proc t;
	int i;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	for (i = 0; i < 2; i++) {
		argv[4] = ops[i];
		run(&t, argv, NULL);
		assert_int_equal(t.status, 0);
		assert_int_equal(count_good_rows(t.out), 3);
	}
}

/* each bad command line: exit 2 and a message naming the problem */
static void test_bad_flags(void **state)
{
	static const struct {
		const char *argv[8];
		const char *says;
	} bad[] = {
		{ { NULL, "-o", "allsum", NULL }, "bad -o/--op 'allsum'" },
		{ { NULL, "-d", "fp64", NULL }, "bad -d/--datatype 'fp64'" },
		{ { NULL, "--redop", "prod", NULL }, "bad --redop 'prod'" },
		{ { NULL, "-b", "1X", NULL }, "bad -b/--minbytes '1X'" },
		{ { NULL, "-e", "17G", NULL }, "bad -e/--maxbytes '17G'" },
		{ { NULL, "-b", "2M", "-e", "1M", NULL }, "minbytes" },
		{ { NULL, "-f", "1", NULL }, "bad -f/--stepfactor '1'" },
		{ { NULL, "-n", "0", NULL }, "bad -n/--iters '0'" },
		{ { NULL, "-w", "x", NULL }, "bad -w/--warmup_iters 'x'" },
		{ { NULL, "-c", "2", NULL }, "bad -c/--check '2'" },
		{ { NULL, "-g", "0", NULL }, "bad -g/--ngpus '0'" },
		{ { NULL, "-r", "-1", NULL }, "bad -r/--root '-1'" },
		{ { NULL, "--timeout", "0", NULL }, "bad --timeout '0'" },
		{ { NULL, "--model", "gaudi9", NULL }, "bad --model 'gaudi9'" },
		{ { NULL, "-q", NULL }, "unknown option -q" },
		{ { NULL, "--frobnicate", NULL },
		  "unknown option '--frobnicate'" },
		{ { NULL, "-b", NULL }, "needs a value" },
		{ { NULL, "stray", NULL }, "unexpected argument 'stray'" },
		{ { NULL, "-g", "4", NULL }, "-g 4: only 3 devices" },
		{ { NULL, "-g", "2", "-r", "2", NULL }, "-r 2: the root" },
		{ { NULL, "-g", "1", "-o", "sendrecv", NULL },
		  "needs at least 2 ranks" },
	};
	static struct hpu_test_proc t;
	size_t i;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&t, bad[i].argv, NULL);
		if (t.status != 2 || !strstr(t.out, bad[i].says))
			print_message("case %zu: exit %d, output '%s'\n", i,
				      t.status, t.out);
		assert_int_equal(t.status, 2);
		assert_non_null(strstr(t.out, bad[i].says));
	}
	/* help is not an error */
	run(&t, (const char *[]){ NULL, "--help", NULL }, NULL);
	assert_int_equal(t.status, 0);
	assert_non_null(strstr(t.out, "--redop"));
}

/* one rank per process, torchrun style */
static void test_world_size_env(void **state)
{
	const char *argv[] = { NULL,  "-d", "int32", "-b", "4K", "-e",
			       "64K", "-f", "4",     "-n", "2",	 NULL };
	char port[32], size[] = "WORLD_SIZE=3", rank[3][24], local[3][24];
	const char *env[3][6];
	static struct hpu_test_proc t[3];
	int i;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	snprintf(port, sizeof(port), "MASTER_PORT=%d", hpu_test_free_port());
	for (i = 0; i < 3; i++) {
		snprintf(rank[i], sizeof(rank[i]), "RANK=%d", i);
		/* devices 2, 1, 0: LOCAL_RANK picks the device */
		snprintf(local[i], sizeof(local[i]), "LOCAL_RANK=%d", 2 - i);
		env[i][0] = size;
		env[i][1] = rank[i];
		env[i][2] = local[i];
		env[i][3] = "MASTER_ADDR=127.0.0.1";
		env[i][4] = port;
		env[i][5] = NULL;
		tool_start(&t[i], argv, env[i]);
	}
	for (i = 0; i < 3; i++)
		tool_finish(&t[i], RUN_MS);
	for (i = 0; i < 3; i++)
		assert_int_equal(t[i].status, 0);
	assert_int_equal(count_good_rows(t[0].out), 3);
	assert_non_null(strstr(t[0].out, "3 ranks, rank 0 on hpu2"));
	assert_int_equal(count_good_rows(t[1].out), 0);
	assert_int_equal(count_good_rows(t[2].out), 0);

	/* without a rendezvous address it is a usage error */
	run(&t[0], argv, (const char *[]){ "WORLD_SIZE=2", "RANK=0", NULL });
	assert_int_equal(t[0].status, 2);
	assert_non_null(strstr(t[0].out, "MASTER_ADDR"));
	run(&t[0], argv, (const char *[]){ "WORLD_SIZE=2", "RANK=2", NULL });
	assert_int_equal(t[0].status, 2);
	assert_non_null(strstr(t[0].out, "RANK='2'"));
}

static const char *find_mpirun(void)
{
	static const char *const paths[] = { "/usr/bin/mpirun",
					     "/usr/local/bin/mpirun", NULL };
	int i;

	for (i = 0; paths[i]; i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

static void test_mpirun(void **state)
{
	const char *mpirun = find_mpirun();
	char port[32];
	const char *env[] = { port, NULL };
	const char *argv[] = { mpirun,
			       "--allow-run-as-root",
			       "--oversubscribe",
			       "-np",
			       "2",
			       hpu_test_bin("hpu-ccl-tests"),
			       "-b",
			       "4K",
			       "-e",
			       "64K",
			       "-f",
			       "4",
			       "-n",
			       "2",
			       NULL };
	static struct hpu_test_proc t;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	HPU_TEST_SKIP_IF(mpirun ? NULL : "no mpirun (openmpi-bin) installed");
	snprintf(port, sizeof(port), "MASTER_PORT=%d", hpu_test_free_port());
	run(&t, argv, env);
	assert_int_equal(t.status, 0);
	assert_int_equal(count_good_rows(t.out), 3);
	assert_non_null(strstr(t.out, "2 ranks"));
}

/* the children of @pid (its rank processes) */
static int children(pid_t pid, pid_t *out, int max)
{
	char path[64], buf[256], *p, *end;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		for (p = buf; n < max; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			out[n++] = (pid_t)v;
		}
	fclose(f);
	return n;
}

/* a rank killed under the tool: it ends non-zero, within its bound */
static void test_rank_killed(void **state)
{
	char to[16];
	const char *argv[] = { NULL, "-g",	  "2",	    "-b", "8M", "-e",
			       "8M", "-n",	  "100000", "-w", "0",	"-c",
			       "0",  "--timeout", to,	    NULL };
	static struct hpu_test_proc t;
	pid_t kids[4];
	long t0, end;
	int n;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	snprintf(to, sizeof(to), "%d", KILL_TO_MS);
	tool_start(&t, argv, NULL);
	/* the table's header: the communicator is up, the loop starts */
	end = hpu_test_now_ms() + RUN_MS;
	while (hpu_test_now_ms() < end && !strstr(t.out, "(elements)") &&
	       tool_read(&t, 50))
		;
	assert_non_null(strstr(t.out, "(elements)"));
	hpu_test_sleep_ms(100);
	n = children(t.pid, kids, 4);
	assert_int_equal(n, 2);
	t0 = hpu_test_now_ms();
	assert_int_equal(kill(kids[1], SIGKILL), 0);
	tool_finish(&t, KILL_END_MS);
	print_message("ended %ld ms after the kill\n", hpu_test_now_ms() - t0);
	assert_int_equal(t.status, 1);
	assert_true(hpu_test_now_ms() - t0 < KILL_END_MS);
	assert_non_null(strstr(t.out, "rank 1 (pid"));
}

static int group_setup(void **state)
{
	(void)state;
	if (hpu_test_ccl_group_start(NDEV, "gaudi2", &skip_reason))
		return -1;
	if (!skip_reason && access(hpu_test_bin("hpu-ccl-tests"), X_OK))
		skip_reason = "hpu-ccl-tests is not built";
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g2_allreduce),
		cmocka_unit_test(test_model_columns),
		cmocka_unit_test(test_g3_all_bf16_avg),
		cmocka_unit_test(test_g3_all_int32_max),
		cmocka_unit_test(test_g3_all_fp32_min),
		cmocka_unit_test(test_g3_last_root),
		cmocka_unit_test(test_bad_flags),
		cmocka_unit_test(test_world_size_env),
		cmocka_unit_test(test_mpirun),
		cmocka_unit_test(test_rank_killed),
	};

	return cmocka_run_group_tests_name("ccl_tool", tests, group_setup,
					   hpu_test_group_stop);
}
