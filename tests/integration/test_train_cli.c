// SPDX-License-Identifier: MIT
/*
 * test_train_cli.c - hpu-train's command line, no device needed: every
 * bad option or value exits 2 with its message; every cluster environment
 * (Slurm, torchrun, Open MPI, plain) resolves to the right ranks
 * (--print-env) and every inconsistent one is refused with its message.
 * On devices: test_train_cli_hpu.c, test_train_cli_servers.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_netns.h"
#include "../lib/hpu_test_proc.h"
#include "../lib/hpu_test_util.h"
#include "../lib/hpu_test_train_cli.h"

/* ------------------------------------------------------------ usage */

static void test_usage_errors(void **state)
{
	static const struct hpu_test_train_bad cases[] = {
		{ { "--foo" }, {}, "unknown option '--foo'" },
		{ { "--devices" }, {}, "--devices needs a value" },
		{ { "stray" }, {}, "unexpected argument 'stray'" },
		{ { "--accelerator", "gpu" }, {}, "expected auto, hpu or cpu" },
		{ { "--devices", "0" }, {}, "--devices 0" },
		{ { "--devices", "two" }, {}, "--devices" },
		{ { "--devices", "-2" }, {}, "--devices" },
		{ { "--devices", "0,0" }, {}, "--devices" },
		{ { "--strategy", "fsdp" }, {}, "--strategy" },
		{ { "--num-nodes", "0" }, {}, "--num-nodes" },
		{ { "--precision", "16" }, {}, "--precision" },
		{ { "--exec-mode", "fast" }, {}, "--exec-mode" },
		{ { "--model", "cnn" }, {}, "--model" },
		{ { "--optimizer", "rmsprop" }, {}, "--optimizer" },
		{ { "--activation", "sigmoid" }, {}, "--activation" },
		{ { "--layers", "12,x" }, {}, "--layers" },
		{ { "--progress-bar", "maybe" }, {}, "--progress-bar" },
		{ { "--max-epochs", "-1" }, {}, "--max-epochs '-1'" },
		{ { "--max-steps", "1e3" }, {}, "--max-steps '1e3'" },
		{ { "--batch-size", "0" }, {}, "--batch-size '0'" },
		{ { "--lr", "abc" }, {}, "--lr 'abc'" },
		{ { "--lr", "0" }, {}, "--lr '0'" },
		{ { "--momentum", "1" }, {}, "--momentum '1'" },
		{ { "--lr-schedule", "linear" },
		  {},
		  "--lr-schedule 'linear': expected constant or cosine" },
		{ { "--lr-warmup-steps", "-1" }, {}, "--lr-warmup-steps '-1'" },
		{ { "--lr-min", "-0.1" }, {}, "--lr-min '-0.1'" },
		{ { "--lr-min", "0.001" },
		  {},
		  "--lr-min is the floor of --lr-schedule cosine" },
		{ { "--lr-schedule", "cosine", "--lr", "0.01", "--lr-min",
		    "0.1" },
		  {},
		  "--lr-min 0.1 is above the learning rate 0.01" },
		{ { "--seed", "x" }, {}, "--seed 'x'" },
		{ { "--cs-timeout", "0" }, {}, "--cs-timeout '0'" },
		{ { "--cs-timeout", "3601" }, {}, "--cs-timeout '3601'" },
		{ { "--cs-timeout", "1s" }, {}, "--cs-timeout '1s'" },
		{ { "--accumulate-grad-batches", "0" },
		  {},
		  "--accumulate-grad-batches '0'" },
		{ { "--val-frac", "2" }, {}, "--val-frac '2'" },
		{ { "--val-frac", "0.5", "--test-frac", "0.5" },
		  {},
		  "leave no training data" },
		{ { "--data", "/nonexistent/x.csv" },
		  {},
		  "No such file or directory" },
		{ { "--ckpt-path", "/nonexistent/last.htck" },
		  {},
		  "--ckpt-path '/nonexistent/last.htck'" },
		{ { "--ckpt-every-n-steps", "5" }, {}, "needs --ckpt-dir" },
		{ { "--data", "text" },
		  {},
		  "--data text is token windows for a language model" },
		{ { "--model", "gpt", "--data", "digits" },
		  {},
		  "--model gpt is a language model" },
		{ { "--model", "gpt", "--width", "30", "--heads", "4" },
		  {},
		  "--width 30 is not a multiple of --heads 4" },
		{ { "--model", "gpt", "--dropout", "1" },
		  {},
		  "--dropout '1': expected a probability in [0, 1)" },
		{ { "--model", "gpt", "--gpt-layers", "9" },
		  {},
		  "--gpt-layers '9'" },
		{ { "--model", "gpt", "--context", "0" }, {}, "--context '0'" },
		{ { "--model", "gpt", "--context", "32", "--window-stride",
		    "33" },
		  {},
		  "--window-stride 33 is above --context 32" },
		{ { "--model", "gpt", "--tied", "maybe" },
		  {},
		  "--tied 'maybe'" },
		{ { "--model", "gpt", "--gradient-clip-val", "-1" },
		  {},
		  "--gradient-clip-val '-1'" },
		{ { "--model", "gpt", "--optimizer", "sgd" },
		  {},
		  "--model gpt trains with AdamW" },
		{ { "--heads", "2" }, {}, "are for --model gpt" },
		{ { "--synthetic-samples", "100" },
		  {},
		  "need --data synthetic" },
		{ { "--model", "mixer", "--optimizer", "sgd" },
		  {},
		  "--model mixer has its own layers" },
		{ { "--lr-adamw", "0.01" },
		  {},
		  "--lr-adamw is for --model mixer" },
		{ { "--max-epochs", "0" },
		  {},
		  "--max-epochs 0 needs --max-steps" },
		{ { "--benchmark-modes", "eager" }, {}, "needs --benchmark" },
		{ { "--benchmark-rounds", "3" },
		  {},
		  "--benchmark-rounds needs --benchmark" },
		{ { "--benchmark", "--benchmark-rounds", "0" },
		  {},
		  "--benchmark-rounds '0': expected an integer 1..9" },
		{ { "--benchmark", "--benchmark-rounds", "10" },
		  {},
		  "--benchmark-rounds '10'" },
		{ { "--benchmark", "--benchmark-rounds", "2x" },
		  {},
		  "--benchmark-rounds '2x'" },
		{ { "--benchmark", "--benchmark-modes", "eager,slow" },
		  {},
		  "--benchmark-modes 'eager,slow'" },
		{ { "--grace-period", "-1" }, {}, "--grace-period '-1'" },
		{ { "--accelerator", "cpu", "--devices", "2" },
		  {},
		  "--accelerator cpu trains in one process" },
		{ { "--accelerator", "cpu", "--devices", "0,1" },
		  {},
		  "--devices" },
		{ { "--accelerator", "cpu", "--strategy", "single_hpu",
		    "--num-nodes", "2" },
		  { "NODE_RANK=0", "MASTER_ADDR=127.0.0.1" },
		  "single" },
		{ { "--accelerator", "hpu" },
		  { "HPU_DEV_DIR=/nonexistent-hpu-dir" },
		  "--accelerator hpu" },
		{ { "--accelerator", "auto" },
		  { "HPU_DEV_DIR=/nonexistent-hpu-dir",
		    "HPU_VISIBLE_DEVICES=x" },
		  "HPU" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hpu_test_train_bad *c = &cases[i];
		struct hpu_test_train_run r;

		hpu_test_train_refused(c->args, c->env, c->msg, i, &r);
		/* one line, with the program's name */
		assert_non_null(strstr(r.err, "hpu-train: "));
		assert_ptr_equal(strchr(r.err, '\n'),
				 r.err + strlen(r.err) - 1);
		hpu_test_train_run_free(&r);
	}
}

static void test_help_version(void **state)
{
	const char *help[] = { "--help", NULL };
	const char *ver[] = { "--version", NULL };
	const char *const opts[] = {
		"--accelerator", "--devices",	 "--strategy",	"--num-nodes",
		"--precision",	 "--max-epochs", "--max-steps", "--batch-size",
		"--exec-mode",	 "--ckpt-path",	 "--log-dir",	"--benchmark",
		"--print-env",	 NULL,
	};
	struct hpu_test_train_run r;
	int i;

	(void)state;
	hpu_test_train_run(help, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	for (i = 0; opts[i]; i++)
		assert_non_null(strstr(r.out, opts[i]));
	hpu_test_train_run_free(&r);
	hpu_test_train_run(ver, NULL, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "hpu-train " HPU_VERSION));
	hpu_test_train_run_free(&r);
}

/* ------------------------------------------------------ environments */

struct env_case {
	const char *name;
	const char *args[8];
	const char *env[10];
	/* expected key=value lines of --print-env */
	const char *want[12];
};

static void test_environments(void **state)
{
	static const struct env_case cases[] = {
		{ "slurm",
		  { "--devices", "2", "--num-nodes", "2" },
		  { "SLURM_PROCID=3", "SLURM_NTASKS=4", "SLURM_LOCALID=1",
		    "SLURM_NODEID=1", "SLURM_NODELIST=gpu[07-08]",
		    "SLURM_JOB_ID=1234" },
		  { "environment=slurm", "world_size=4", "rank=3",
		    "local_rank=1", "node_rank=1", "num_nodes=2",
		    "master_addr=gpu07", "master_port=16234", "launcher=no",
		    "device=cpu1" } },
		{ "slurm with MASTER_*",
		  { "--devices", "1", "--num-nodes", "2" },
		  { "SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURM_LOCALID=0",
		    "SLURM_NODEID=1", "MASTER_ADDR=10.9.8.7",
		    "MASTER_PORT=31000" },
		  { "environment=slurm", "world_size=2", "rank=1",
		    "node_rank=1", "master_addr=10.9.8.7",
		    "master_port=31000" } },
		{ "torchrun",
		  { "--devices", "2", "--num-nodes", "2" },
		  { "WORLD_SIZE=4", "RANK=2", "LOCAL_RANK=0", "GROUP_RANK=1",
		    "LOCAL_WORLD_SIZE=2", "MASTER_ADDR=10.1.2.3",
		    "MASTER_PORT=29600" },
		  { "environment=torchrun", "world_size=4", "rank=2",
		    "local_rank=0", "node_rank=1", "master_addr=10.1.2.3",
		    "master_port=29600", "launcher=no", "device=cpu0" } },
		{ "torchrun without a node rank",
		  { "--devices", "2", "--num-nodes", "2" },
		  { "WORLD_SIZE=4", "RANK=3", "LOCAL_RANK=1", "MASTER_ADDR=h0",
		    "MASTER_PORT=29600" },
		  { "environment=torchrun", "rank=3", "local_rank=1",
		    "node_rank=1" } },
		{ "open mpi",
		  { "--devices", "2", "--num-nodes", "2" },
		  { "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK=3",
		    "OMPI_COMM_WORLD_LOCAL_RANK=1",
		    "OMPI_COMM_WORLD_LOCAL_SIZE=2", "MASTER_ADDR=head" },
		  { "environment=ompi", "world_size=4", "rank=3",
		    "local_rank=1", "node_rank=1", "master_addr=head",
		    "master_port=29500", "launcher=no" } },
		{ "open mpi, one node",
		  { "--devices", "1" },
		  { "OMPI_COMM_WORLD_SIZE=1", "OMPI_COMM_WORLD_RANK=0",
		    "OMPI_COMM_WORLD_LOCAL_RANK=0" },
		  { "environment=ompi", "world_size=1", "rank=0",
		    "master_addr=127.0.0.1" } },
		{ "plain, node 1 of 2",
		  { "--devices", "2", "--num-nodes", "2" },
		  { "MASTER_ADDR=10.0.0.1", "MASTER_PORT=29555", "NODE_RANK=1",
		    "WORLD_SIZE=4" },
		  { "environment=plain", "world_size=4", "rank=2",
		    "node_rank=1", "local_world_size=2", "master_addr=10.0.0.1",
		    "master_port=29555", "launcher=yes" } },
		{ "plain, one node, several devices",
		  { "--devices", "3" },
		  {},
		  { "environment=plain", "world_size=3", "rank=0",
		    "master_addr=127.0.0.1", "master_port=free", "launcher=yes",
		    "strategy=hpu_parallel" } },
		{ "plain, one device",
		  { "--devices", "1" },
		  {},
		  { "environment=plain", "world_size=1", "rank=0",
		    "launcher=no", "strategy=single_hpu" } },
		{ "plain, one device per node",
		  { "--devices", "1", "--num-nodes", "3" },
		  { "MASTER_ADDR=10.0.0.1", "NODE_RANK=2" },
		  { "environment=plain", "world_size=3", "rank=2",
		    "node_rank=2", "master_port=29500", "launcher=no" } },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct env_case *c = &cases[i];
		const char *args[12] = { "--accelerator", "cpu",
					 "--print-env" };
		struct hpu_test_train_run r;
		size_t n = 3;

		for (j = 0; c->args[j]; j++)
			args[n++] = c->args[j];
		hpu_test_train_run_ok(c->name, args, c->env,
				      HPU_TEST_TRAIN_RUN_MS, &r);
		for (j = 0; c->want[j]; j++) {
			char key[64];
			const char *eq = strchr(c->want[j], '=');

			snprintf(key, sizeof(key), "%.*s",
				 (int)(eq - c->want[j]), c->want[j]);
			if (strcmp(hpu_test_train_kv(r.out, key), eq + 1))
				print_message("%s: %s is '%s', want '%s'\n",
					      c->name, key,
					      hpu_test_train_kv(r.out, key),
					      eq + 1);
			assert_string_equal(hpu_test_train_kv(r.out, key),
					    eq + 1);
		}
		hpu_test_train_run_free(&r);
	}
}

/* the plain launcher's workers: global ranks of node 1 */
static void test_plain_launcher_workers(void **state)
{
	const char *args[] = {
		"--accelerator", "cpu", "--print-env", "--devices", "2",
		"--num-nodes",	 "2",	NULL
	};
	const char *env[] = { "MASTER_ADDR=10.0.0.1", "NODE_RANK=1", NULL };
	struct hpu_test_train_run r;

	(void)state;
	hpu_test_train_run(args, env, HPU_TEST_TRAIN_RUN_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "worker=RANK=2 LOCAL_RANK=0 "
				      "WORLD_SIZE=4 NODE_RANK=1"));
	assert_non_null(strstr(r.out, "worker=RANK=3 LOCAL_RANK=1 "
				      "WORLD_SIZE=4 NODE_RANK=1"));
	hpu_test_train_run_free(&r);
}

static void test_inconsistent_environments(void **state)
{
	static const struct hpu_test_train_bad cases[] = {
		{ { "--devices", "2" },
		  { "WORLD_SIZE=3" },
		  "WORLD_SIZE=3 but --devices 2 x --num-nodes 1 = 2" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "WORLD_SIZE=2", "NODE_RANK=0", "MASTER_ADDR=h" },
		  "counts processes, not nodes" },
		{ { "--devices", "2" },
		  { "RANK=1", "LOCAL_RANK=1" },
		  "RANK is set but WORLD_SIZE is not" },
		{ { "--devices", "2" },
		  { "WORLD_SIZE=2", "RANK=2", "LOCAL_RANK=0", "MASTER_ADDR=h",
		    "MASTER_PORT=1" },
		  "RANK=2 is not below WORLD_SIZE=2" },
		{ { "--devices", "2" },
		  { "WORLD_SIZE=2", "RANK=1", "LOCAL_RANK=3", "MASTER_ADDR=h",
		    "MASTER_PORT=1" },
		  "LOCAL_RANK=3 is not below --devices 2" },
		{ { "--devices", "2" },
		  { "WORLD_SIZE=2", "RANK=1", "LOCAL_RANK=1" },
		  "is not set (WORLD_SIZE=2 needs a rendezvous)" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "WORLD_SIZE=4", "RANK=3", "LOCAL_RANK=1", "GROUP_RANK=0",
		    "MASTER_ADDR=h", "MASTER_PORT=1" },
		  "RANK=3 but" },
		{ { "--devices", "1" },
		  { "WORLD_SIZE=1", "RANK=0", "LOCAL_RANK=0", "MASTER_PORT=0" },
		  "MASTER_PORT=0 is out of range" },
		{ { "--devices", "2" },
		  { "SLURM_PROCID=0" },
		  "SLURM_PROCID is set but SLURM_NTASKS is not" },
		{ { "--devices", "2" },
		  { "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_LOCALID=0",
		    "SLURM_NODEID=0" },
		  "SLURM_NTASKS=4 but --devices 2 x --num-nodes 1" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "SLURM_PROCID=2", "SLURM_NTASKS=4", "SLURM_LOCALID=0",
		    "SLURM_NODEID=1", "SLURM_NODELIST=n[1-", "SLURM_JOB_ID=1" },
		  "SLURM_NODELIST: malformed node list 'n[1-'" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK=3",
		    "OMPI_COMM_WORLD_LOCAL_RANK=0", "MASTER_ADDR=h" },
		  "not placed 2 per node" },
		{ { "--devices", "2" },
		  { "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=x",
		    "OMPI_COMM_WORLD_LOCAL_RANK=0" },
		  "OMPI_COMM_WORLD_RANK='x' is not a number" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "MASTER_ADDR=h" },
		  "NODE_RANK is not set" },
		{ { "--devices", "2", "--num-nodes", "2" },
		  { "MASTER_ADDR=h", "NODE_RANK=2" },
		  "NODE_RANK=2 is not below --num-nodes 2" },
		{ { "--devices", "2" },
		  { "WORLD_SIZE=-2" },
		  "WORLD_SIZE='-2' is negative" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hpu_test_train_bad *c = &cases[i];
		const char *args[12] = { "--accelerator", "cpu",
					 "--print-env" };
		size_t n = 3;
		struct hpu_test_train_run r;

		for (j = 0; c->args[j]; j++)
			args[n++] = c->args[j];
		hpu_test_train_refused(args, c->env, c->msg, i, &r);
		hpu_test_train_run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest cli[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_environments),
		cmocka_unit_test(test_plain_launcher_workers),
		cmocka_unit_test(test_inconsistent_environments),
	};

	unsetenv("HPU_VISIBLE_DEVICES");
	return cmocka_run_group_tests_name("train_cli", cli, NULL, NULL);
}
