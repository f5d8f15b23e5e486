// SPDX-License-Identifier: MIT
/*
 * test_train_cli.c - hpu-train end to end: every bad option or value
 * exits 2 with its message; every cluster environment (Slurm, torchrun,
 * Open MPI, plain) resolves to the right ranks (--print-env) and every
 * inconsistent one is refused with its message; on simulated Gaudi2
 * devices: the digits MLP reaches >= 95% test accuracy on one device,
 * two ranks launched by one hpu-train match one device with the same
 * global batch, a worker killed with SIGKILL ends the launcher non-zero
 * within a bound; and two servers in network namespaces (2 devices each,
 * --num-nodes 2, NODE_RANK 0/1) match one device.
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

#define RUN_TIMEOUT_MS 40000
#define KILL_BOUND_MS  10000
#define SERVERS	       2
#define DEV_PER_SERVER 2
#define NETNS_PORT     "29543" /* the namespaces are new: always free */
#define LOSS_ABS_TOL   2e-4
#define LOSS_REL_TOL   2e-3

extern char **environ;

/* variables of a cluster environment: never inherited by a run */
static const char *const cluster_vars[] = {
	"RANK",	      "LOCAL_RANK", "WORLD_SIZE",  "LOCAL_WORLD_SIZE",
	"GROUP_RANK", "NODE_RANK",  "MASTER_ADDR", "MASTER_PORT",
	"SLURM_",     "OMPI_",	    "HPU_TRAIN_",  "HPU_VISIBLE_DEVICES",
	NULL,
};

/**
 * struct run - one hpu-train run
 * @out: its stdout
 * @err: its stderr
 * @status: exit status, 128 + signal, -1 when it had to be killed
 * @ms: wall time
 */
struct run {
	char *out;
	char *err;
	int status;
	long ms;
};

static bool is_cluster_var(const char *entry)
{
	const char *const *v;

	for (v = cluster_vars; *v; v++) {
		size_t l = strlen(*v);

		if (!strncmp(entry, *v, l) &&
		    ((*v)[l - 1] == '_' || entry[l] == '='))
			return true;
	}
	return false;
}

/* whether @entry sets a variable that one of @add sets too */
static bool overridden(const char *entry, const char *const *add)
{
	size_t l = strcspn(entry, "=");

	for (; add && *add; add++)
		if (!strncmp(entry, *add, l + 1))
			return true;
	return false;
}

/* the test's environment without cluster variables, plus @add */
static char **make_env(const char *const *add)
{
	size_t n = 0, k = 0, i;
	char **env;

	while (environ[n])
		n++;
	for (i = 0; add && add[i]; i++)
		;
	env = calloc(n + i + 1, sizeof(*env));
	assert_non_null(env);
	for (i = 0; i < n; i++)
		if (!is_cluster_var(environ[i]) && !overridden(environ[i], add))
			env[k++] = environ[i];
	for (i = 0; add && add[i]; i++)
		env[k++] = (char *)add[i];
	return env;
}

/* hpu-train's argv: the program then @args */
static char **make_argv(const char *const *args)
{
	size_t n = 0, i;
	char **argv;

	while (args[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	assert_non_null(argv);
	argv[0] = (char *)hpu_test_bin("hpu-train");
	for (i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	return argv;
}

/* run hpu-train @args with @env added; both outputs captured, bounded */
static void run(const char *const *args, const char *const *env, int timeout_ms,
		struct run *r)
{
	char **argv = make_argv(args), **envp = make_env(env);
	const struct hpu_test_proc_opts o = {
		.envp = envp,
		.stderr_mode = HPU_TEST_STDERR_CAPTURE,
	};
	struct hpu_test_proc p;

	memset(r, 0, sizeof(*r));
	assert_int_equal(hpu_test_proc_run(&p, argv, &o, timeout_ms), 0);
	r->out = p.out;
	r->err = p.err;
	r->ms = p.ms;
	r->status = p.killed ? -1 : p.status;
	free(argv);
	free(envp);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static void dump(const char *what, const struct run *r)
{
	print_message("%s: status %d after %ld ms\n--- stdout\n%s--- stderr\n"
		      "%s---\n",
		      what, r->status, r->ms, r->out, r->err);
}

/* the value of "key=value" in --print-env output (static buffer) */
static const char *kv(const char *out, const char *key)
{
	static char val[256];
	size_t kl = strlen(key);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "\n");

			if (n >= sizeof(val))
				n = sizeof(val) - 1;
			memcpy(val, p + kl + 1, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return "(missing)";
}

/* a number after @label in @out, NAN when absent */
static double number_after(const char *out, const char *label)
{
	const char *p = strstr(out, label);

	return p ? strtod(p + strlen(label), NULL) : NAN;
}

#define SKIP_IF(reason) HPU_TEST_SKIP_IF(reason)

/* ------------------------------------------------------------ usage */

/*
 * Case @i: hpu-train @args with @env must exit 2 with @msg on stderr and
 * nothing on stdout (the run is dumped when not); @r keeps the run
 */
static void run_refused(const char *const *args, const char *const *env,
			const char *msg, size_t i, struct run *r)
{
	run(args, env, RUN_TIMEOUT_MS, r);
	if (r->status != 2 || !strstr(r->err, msg) || r->out[0]) {
		print_message("case %zu (%s ...): want status 2 and '%s'\n", i,
			      args[0], msg);
		dump("hpu-train", r);
	}
	assert_int_equal(r->status, 2);
	assert_non_null(strstr(r->err, msg));
	assert_string_equal(r->out, "");
}

struct bad_case {
	const char *args[8];
	const char *env[8];
	const char *msg;
};

static void test_usage_errors(void **state)
{
	static const struct bad_case cases[] = {
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
		{ { "--seed", "x" }, {}, "--seed 'x'" },
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
		const struct bad_case *c = &cases[i];
		struct run r;

		run_refused(c->args, c->env, c->msg, i, &r);
		/* one line, with the program's name */
		assert_non_null(strstr(r.err, "hpu-train: "));
		assert_ptr_equal(strchr(r.err, '\n'),
				 r.err + strlen(r.err) - 1);
		run_free(&r);
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
	struct run r;
	int i;

	(void)state;
	run(help, NULL, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	for (i = 0; opts[i]; i++)
		assert_non_null(strstr(r.out, opts[i]));
	run_free(&r);
	run(ver, NULL, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "hpu-train " HPU_VERSION));
	run_free(&r);
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
		struct run r;
		size_t n = 3;

		for (j = 0; c->args[j]; j++)
			args[n++] = c->args[j];
		run(args, c->env, RUN_TIMEOUT_MS, &r);
		if (r.status)
			dump(c->name, &r);
		assert_int_equal(r.status, 0);
		for (j = 0; c->want[j]; j++) {
			char key[64];
			const char *eq = strchr(c->want[j], '=');

			snprintf(key, sizeof(key), "%.*s",
				 (int)(eq - c->want[j]), c->want[j]);
			if (strcmp(kv(r.out, key), eq + 1))
				print_message("%s: %s is '%s', want '%s'\n",
					      c->name, key, kv(r.out, key),
					      eq + 1);
			assert_string_equal(kv(r.out, key), eq + 1);
		}
		run_free(&r);
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
	struct run r;

	(void)state;
	run(args, env, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "worker=RANK=2 LOCAL_RANK=0 "
				      "WORLD_SIZE=4 NODE_RANK=1"));
	assert_non_null(strstr(r.out, "worker=RANK=3 LOCAL_RANK=1 "
				      "WORLD_SIZE=4 NODE_RANK=1"));
	run_free(&r);
}

static void test_inconsistent_environments(void **state)
{
	static const struct bad_case cases[] = {
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
		const struct bad_case *c = &cases[i];
		const char *args[12] = { "--accelerator", "cpu",
					 "--print-env" };
		size_t n = 3;
		struct run r;

		for (j = 0; c->args[j]; j++)
			args[n++] = c->args[j];
		run_refused(args, c->env, c->msg, i, &r);
		run_free(&r);
	}
}

/* ------------------------------------------------ one daemon, 2 HPUs */

static int daemon_setup(void **state)
{
	(void)state;
	unsetenv("HPU_VISIBLE_DEVICES");
	return hpu_test_group_start(2, "gaudi2");
}

static void test_device_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ { "--devices", "3" }, {}, "--devices 3" },
		{ { "--devices", "0,5" }, {}, "5" },
		{ { "--accelerator", "hpu", "--devices", "2", "--strategy",
		    "single_hpu" },
		  {},
		  "single" },
		{ { "--devices", "2", "--benchmark" },
		  {},
		  "--benchmark measures one device" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;

		run(cases[i].args, NULL, RUN_TIMEOUT_MS, &r);
		if (r.status != 2 || !strstr(r.err, cases[i].msg))
			dump(cases[i].args[1], &r);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, cases[i].msg));
		run_free(&r);
	}
}

/* --devices auto on this daemon: both HPUs, data parallel, a launcher */
static void test_devices_auto(void **state)
{
	const char *args[] = { "--print-env", NULL };
	const char *env[] = { "HPU_VISIBLE_DEVICES=1", NULL };
	const char *args1[] = { "--print-env", "--devices", "1", NULL };
	struct run r;

	(void)state;
	run(args, NULL, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(kv(r.out, "accelerator"), "hpu");
	assert_string_equal(kv(r.out, "devices"), "hpu0,hpu1");
	assert_string_equal(kv(r.out, "strategy"), "hpu_parallel");
	assert_string_equal(kv(r.out, "launcher"), "yes");
	run_free(&r);
	/* indices are positions among the visible devices */
	run(args1, env, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(kv(r.out, "devices"), "hpu1");
	assert_string_equal(kv(r.out, "device"), "hpu1");
	run_free(&r);
}

static void test_digits_one_device(void **state)
{
	const char *args[] = { "--accelerator",	 "hpu", "--devices", "1",
			       "--progress-bar", "off", NULL };
	struct run r;
	double acc;

	(void)state;
	run(args, NULL, RUN_TIMEOUT_MS, &r);
	if (r.status)
		dump("digits", &r);
	assert_int_equal(r.status, 0);
	acc = number_after(r.out, "test accuracy ");
	print_message("digits on one hpu: test accuracy %.2f%%\n", acc);
	assert_false(isnan(acc));
	assert_true(acc >= 95.0);
	run_free(&r);
}

/* The numeric columns of the benchmark table's row @path, or 0 */
static int bench_row(const char *out, const char *path, double *step_ms,
		     double *x_cpu)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "\n%s ", path);
	p = strstr(out, key);
	if (!p || sscanf(p + strlen(key), "%lf %*f %lf", step_ms, x_cpu) != 2)
		return 0;
	return 1;
}

/*
 * Whether @ratio (printed with 3 decimals) is @a / @b (each printed with
 * 3 decimals, so each off by up to 0.0005 from what was divided)
 */
static bool ratio_agrees(double ratio, double a, double b)
{
	double slack = ratio * (0.0005 / a + 0.0005 / b) * 1.01 + 0.0005;

	return fabs(ratio - a / b) <= slack;
}

/*
 * --benchmark: one row per hpu mode and the cpu row, with step times and
 * ratios that agree with each other; --benchmark-rounds adds the rounds
 * to the banner and the spread column.
 */
static void test_benchmark_table(void **state)
{
	const char *args[] = { "--devices",   "1",
			       "--benchmark", "--benchmark-modes",
			       "eager,lazy",  "--benchmark-steps",
			       "5",	      "--warmup-steps",
			       "1",	      "--benchmark-rounds",
			       "3",	      NULL };
	double eager, lazy, cpu, x_eager, x_lazy, x_cpu;
	struct run r;

	(void)state;
	run(args, NULL, RUN_TIMEOUT_MS, &r);
	if (r.status)
		dump("benchmark", &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "5 timed steps, 3 rounds of every "
				      "path in turn\n"));
	assert_non_null(strstr(r.out, "vs_eager   spread\n"));
	assert_true(bench_row(r.out, "hpu/eager", &eager, &x_eager));
	assert_true(bench_row(r.out, "hpu/lazy", &lazy, &x_lazy));
	assert_true(bench_row(r.out, "cpu", &cpu, &x_cpu));
	print_message("benchmark: eager %.3f, lazy %.3f, cpu %.3f ms\n", eager,
		      lazy, cpu);
	assert_true(eager > 0 && lazy > 0 && cpu > 0);
	assert_true(fabs(x_cpu - 1.0) < 1e-9);
	/* x_cpu is the row's step time over the cpu row's */
	assert_true(ratio_agrees(x_eager, eager, cpu));
	assert_true(ratio_agrees(x_lazy, lazy, cpu));
	run_free(&r);

	/* one round: no spread column */
	args[9] = NULL;
	run(args, NULL, RUN_TIMEOUT_MS, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "5 timed steps\n"));
	assert_null(strstr(r.out, "spread"));
	assert_true(bench_row(r.out, "hpu/lazy", &lazy, &x_lazy));
	run_free(&r);
}

/* final loss and test accuracy of a short run */
static void short_run(const char *devices, const char *batch,
		      const char *const *env, double *loss, double *acc,
		      struct run *r)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       devices,
			       "--batch-size",
			       batch,
			       "--max-steps",
			       "40",
			       "--seed",
			       "7",
			       "--progress-bar",
			       "plain",
			       NULL };

	run(args, env, RUN_TIMEOUT_MS, r);
	if (r->status)
		dump(devices, r);
	assert_int_equal(r->status, 0);
	*loss = number_after(r->out, "final loss ");
	*acc = number_after(r->out, "test accuracy ");
	assert_false(isnan(*loss));
	assert_false(isnan(*acc));
}

static void assert_close(double a, double b, const char *what)
{
	print_message("%s: %.6f vs %.6f\n", what, a, b);
	assert_true(fabs(a - b) <= LOSS_ABS_TOL + LOSS_REL_TOL * fabs(b));
}

static void test_two_ranks_match_one(void **state)
{
	struct run r1, r2;
	double l1, a1, l2, a2;

	(void)state;
	short_run("1", "64", NULL, &l1, &a1, &r1);
	short_run("2", "32", NULL, &l2, &a2, &r2);
	/* the launcher said who it started; only rank 0 summarised */
	assert_non_null(strstr(r2.out, "starting 2 workers"));
	assert_null(strstr(r2.out, "[rank 1] final loss"));
	assert_close(l2, l1, "final loss, 2 ranks x 32 vs 1 x 64");
	assert_true(fabs(a2 - a1) <= 0.6); /* at most 2 of 360 differ */
	run_free(&r1);
	run_free(&r2);
}

/*
 * a run checkpointed at step 20 and resumed to 40 prints the final loss
 * of an uninterrupted 40-step run; the nested --ckpt-dir and --log-dir
 * are created
 */
static void test_resume_matches(void **state)
{
	char dir[64], ckdir[96], logdir[96], ck[128], csv[128];
	const char *a20[] = { "--devices",	"1",   "--max-steps", "20",
			      "--ckpt-dir",	ckdir, "--log-dir",   logdir,
			      "--progress-bar", "off", NULL };
	const char *a40[] = { "--devices",   "1", "--max-steps",    "40",
			      "--ckpt-path", ck,  "--progress-bar", "off",
			      NULL };
	const char *full[] = { "--devices",	 "1",	"--max-steps", "40",
			       "--progress-bar", "off", NULL };
	struct run r1, r2, r3;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_train_cli.%d", (int)getpid());
	snprintf(ckdir, sizeof(ckdir), "%s/a/ck", dir);
	snprintf(logdir, sizeof(logdir), "%s/b/log", dir);
	snprintf(ck, sizeof(ck), "%s/last.htck", ckdir);
	snprintf(csv, sizeof(csv), "%s/metrics.csv", logdir);
	run(a20, NULL, RUN_TIMEOUT_MS, &r1);
	if (r1.status)
		dump("20 steps", &r1);
	assert_int_equal(r1.status, 0);
	assert_int_equal(stat(csv, &st), 0);
	assert_true(st.st_size > 0);
	run(a40, NULL, RUN_TIMEOUT_MS, &r2);
	if (r2.status)
		dump("resumed", &r2);
	assert_int_equal(r2.status, 0);
	run(full, NULL, RUN_TIMEOUT_MS, &r3);
	assert_int_equal(r3.status, 0);
	assert_false(isnan(number_after(r3.out, "final loss ")));
	assert_true(number_after(r2.out, "final loss ") ==
		    number_after(r3.out, "final loss "));
	assert_true(number_after(r2.out, "test accuracy ") ==
		    number_after(r3.out, "test accuracy "));
	unlink(ck);
	run_free(&r1);
	run_free(&r2);
	run_free(&r3);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* lines of @out that contain @what; the first's start in *@first */
static int count_lines(const char *out, const char *what, const char **first)
{
	const char *p = out, *hit;
	int n = 0;

	*first = NULL;
	while ((hit = strstr(p, what))) {
		const char *bol = hit;

		while (bol > out && bol[-1] != '\n')
			bol--;
		if (!n)
			*first = bol;
		n++;
		p = strchr(hit, '\n');
		if (!p)
			break;
	}
	return n;
}

/*
 * The test result is printed once per printing rank, by hpu-train's
 * summary only (the library prints none), labelled with its rank under
 * --all-ranks-print
 */
static void test_results_printed_once(void **state)
{
	const char *one[] = { "--devices",	"1",	 "--max-steps", "10",
			      "--progress-bar", "plain", NULL };
	const char *two[] = { "--devices",	   "2",
			      "--max-steps",	   "10",
			      "--progress-bar",	   "plain",
			      "--all-ranks-print", NULL };
	const char *first;
	struct run r;

	(void)state;
	run(one, NULL, RUN_TIMEOUT_MS, &r);
	if (r.status)
		dump("one device", &r);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "test:"));
	assert_int_equal(count_lines(r.out, "test accuracy ", &first), 1);
	assert_true(!strncmp(first, "test accuracy ", 14));
	run_free(&r);

	run(two, NULL, RUN_TIMEOUT_MS, &r);
	if (r.status)
		dump("two ranks", &r);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "test:"));
	assert_int_equal(count_lines(r.out, "[rank 0] test accuracy ", &first),
			 1);
	assert_int_equal(count_lines(r.out, "[rank 1] test accuracy ", &first),
			 1);
	assert_int_equal(count_lines(r.out, "test accuracy ", &first), 2);
	run_free(&r);
}

/* the value after "weights fnv1a64 " on the line of @label (static) */
static const char *weights_of(const char *out, const char *label)
{
	static char hash[2][20];
	static int which;
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%sweights fnv1a64 ", label);
	p = strstr(out, key);
	if (!p)
		return "none";
	which ^= 1;
	snprintf(hash[which], sizeof(hash[which]), "%.16s", p + strlen(key));
	return hash[which];
}

/* <dir>/metrics.csv, rows cut to step..val_acc (the columns a rerun
 * repeats bit for bit), as one string */
static char *csv_columns(const char *dir)
{
	char path[PATH_MAX], *out;

	snprintf(path, sizeof(path), "%s/metrics.csv", dir);
	out = hpu_test_csv_columns(path, 7);
	assert_non_null(out);
	return out;
}

/* children of @pid (from /proc), at most @max */
static int children(pid_t pid, pid_t *out, int max)
{
	char path[64], buf[256], *p, *end;
	int n = 0, fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = (pid_t)v;
	}
	return n;
}

static void test_killed_worker_ends_launcher(void **state)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       "2",
			       "--max-epochs",
			       "100000",
			       "--grace-period",
			       "1",
			       "--progress-bar",
			       "off",
			       NULL };
	char **argv = make_argv(args), **envp = make_env(NULL);
	pid_t launcher, kids[4];
	long start, waited;
	int st = 0, n = 0, i, ended;

	(void)state;
	launcher = fork();
	assert_true(launcher >= 0);
	if (launcher == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	/* both workers up and training for a while */
	for (i = 0; i < 200 && n < 2; i++) {
		hpu_test_sleep_ms(20);
		n = children(launcher, kids, 4);
	}
	assert_int_equal(n, 2);
	hpu_test_sleep_ms(1500);
	assert_int_equal(waitpid(launcher, &st, WNOHANG), 0);
	assert_int_equal(kill(kids[1], SIGKILL), 0);
	start = hpu_test_now_ms();
	ended = hpu_test_wait_child(launcher, KILL_BOUND_MS, &st);
	waited = hpu_test_now_ms() - start;
	if (ended)
		hpu_test_kill_child(launcher, &st);
	print_message("launcher ended %ld ms after the kill, status %d\n",
		      waited, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	assert_true(waited < KILL_BOUND_MS);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 0);
	/* the other worker is gone too (reaped by the launcher) */
	assert_int_equal(kill(kids[0], 0), -1);
	free(argv);
	free(envp);
}

/*
 * A 2-rank DDP run whose workers are killed with SIGKILL mid-epoch (once
 * its step-21 checkpoint exists, 20 steps per epoch) and resumed from its last
 * checkpoint ends with the weight bytes of an uninterrupted 2-rank run on
 * both ranks, and its metrics log has the uninterrupted run's rows, none
 * twice.
 */
static void test_ddp_resume_after_kill(void **state)
{
	char dir[64], ck[96], log0[96], log1[96], last[128], mark[128];
	const char *common[] = { "--devices",
				 "2",
				 "--max-steps",
				 "300",
				 "--seed",
				 "7",
				 "--progress-bar",
				 "plain",
				 "--log-every-n-steps",
				 "5",
				 "--all-ranks-print",
				 "--print-weights-hash" };
	enum {
		NC = sizeof(common) / sizeof(common[0])
	};
	const char *full[NC + 3], *killed[NC + 7], *resumed[NC + 5];
	char **argv, **envp, *rows0, *rows1, cmd[128];
	const char *h0, *h1, *h2;
	pid_t launcher, kids[4];
	double rs;
	struct run r0, r2;
	struct stat st;
	int i, n = 0, status = 0, null;
	long start;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_train_cli_ddp.%d", (int)getpid());
	snprintf(ck, sizeof(ck), "%s/ck", dir);
	snprintf(log0, sizeof(log0), "%s/log0", dir);
	snprintf(log1, sizeof(log1), "%s/log1", dir);
	snprintf(last, sizeof(last), "%s/last.htck", ck);
	snprintf(mark, sizeof(mark), "%s/ckpt-step-21.htck", ck);
	for (i = 0; i < NC; i++)
		full[i] = killed[i] = resumed[i] = common[i];
	full[NC] = "--log-dir";
	full[NC + 1] = log0;
	full[NC + 2] = NULL;
	killed[NC] = "--log-dir";
	killed[NC + 1] = log1;
	killed[NC + 2] = "--ckpt-dir";
	killed[NC + 3] = ck;
	killed[NC + 4] = "--ckpt-every-n-steps";
	killed[NC + 5] = "7";
	killed[NC + 6] = NULL;
	resumed[NC] = "--log-dir";
	resumed[NC + 1] = log1;
	resumed[NC + 2] = "--ckpt-path";
	resumed[NC + 3] = last;
	resumed[NC + 4] = NULL;

	/* uninterrupted */
	run(full, NULL, RUN_TIMEOUT_MS, &r0);
	if (r0.status)
		dump("uninterrupted", &r0);
	assert_int_equal(r0.status, 0);
	h0 = weights_of(r0.out, "[rank 0] ");
	print_message("uninterrupted: weights %s\n", h0);
	assert_string_equal(weights_of(r0.out, "[rank 1] "), h0);

	/* killed once its step-21 checkpoint exists */
	argv = make_argv(killed);
	envp = make_env(NULL);
	launcher = fork();
	assert_true(launcher >= 0);
	if (launcher == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	start = hpu_test_now_ms();
	while (stat(mark, &st) && hpu_test_now_ms() - start < RUN_TIMEOUT_MS &&
	       waitpid(launcher, &status, WNOHANG) == 0)
		usleep(500);
	n = children(launcher, kids, 4);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	if (hpu_test_wait_child(launcher, KILL_BOUND_MS, &status))
		hpu_test_kill_child(launcher, &status);
	free(argv);
	free(envp);
	print_message("killed %d workers; launcher status %d\n", n,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_int_equal(n, 2);
	/* it did not end by itself: the kill came mid-run */
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);

	/* resumed from the last checkpoint */
	run(resumed, NULL, RUN_TIMEOUT_MS, &r2);
	if (r2.status)
		dump("resumed", &r2);
	assert_int_equal(r2.status, 0);
	h1 = weights_of(r2.out, "[rank 0] ");
	h2 = weights_of(r2.out, "[rank 1] ");
	rs = number_after(r2.out,
			  "[rank 0] resumed from the checkpoint of step ");
	print_message("resumed at step %.0f: weights %s, %s\n", rs, h1, h2);
	/* last.htck follows ckpt-step-21.htck: 14 when killed in between */
	assert_true(rs >= 14 && rs < 300 && fmod(rs, 7) == 0);
	assert_string_equal(h1, h0);
	assert_string_equal(h2, h0);
	assert_true(number_after(r2.out, "final loss ") ==
		    number_after(r0.out, "final loss "));
	rows0 = csv_columns(log0);
	rows1 = csv_columns(log1);
	assert_string_equal(rows1, rows0);
	free(rows0);
	free(rows1);
	run_free(&r0);
	run_free(&r2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* -------------------------------------- two servers in two namespaces */

static struct {
	struct hpu_test_servers srv;
	const char *skip_reason;
} S;

static int servers_setup(void **state)
{
	(void)state;
	S.skip_reason = hpu_test_servers_unavailable();
	if (S.skip_reason)
		return 0;
	if (hpu_test_servers_start(&S.srv, DEV_PER_SERVER, "gaudi2"))
		return -1;
	S.skip_reason = hpu_test_ccl_unavailable();
	return 0;
}

static int servers_teardown(void **state)
{
	(void)state;
	return hpu_test_servers_stop(&S.srv);
}

/* one node's launcher, in namespace @node, output in @log */
static pid_t start_node(int node, const char *log)
{
	const char *args[] = { "--accelerator",
			       "hpu",
			       "--devices",
			       "2",
			       "--num-nodes",
			       "2",
			       "--batch-size",
			       "16",
			       "--max-steps",
			       "40",
			       "--seed",
			       "7",
			       "--progress-bar",
			       "plain",
			       NULL };
	char rank[32], dev[PATH_MAX + 16], master[48];
	const char *env[] = { rank,	      dev,
			      master,	      "MASTER_PORT=" NETNS_PORT,
			      "WORLD_SIZE=4", NULL };
	char **argv, **envp;
	pid_t pid;
	int fd;

	snprintf(rank, sizeof(rank), "NODE_RANK=%d", node);
	snprintf(dev, sizeof(dev), "HPU_DEV_DIR=%s", S.srv.d[node].mount);
	snprintf(master, sizeof(master), "MASTER_ADDR=%s", S.srv.ns.addr[0]);
	argv = make_argv(args);
	envp = make_env(env);
	pid = hpu_test_netns_fork(&S.srv.ns, node);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	free(argv);
	free(envp);
	return pid;
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 1 << 20);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_non_null(buf);
	if (fd >= 0) {
		n = read(fd, buf, (1 << 20) - 1);
		if (n > 0)
			buf[n] = '\0';
		close(fd);
	}
	return buf;
}

static void test_two_servers_match_one_device(void **state)
{
	char logs[SERVERS][64], *out[SERVERS];
	const char *dev0[] = { NULL, NULL };
	char devenv[PATH_MAX + 16];
	double l1, a1, l4, a4;
	pid_t pids[SERVERS];
	int status[SERVERS], i;
	struct run r1;

	(void)state;
	SKIP_IF(S.skip_reason);
	for (i = 0; i < SERVERS; i++) {
		snprintf(logs[i], sizeof(logs[i]), "/tmp/test_train_cli.%d.%d",
			 (int)getpid(), i);
		pids[i] = start_node(i, logs[i]);
		assert_true(pids[i] > 0);
	}
	assert_int_equal(hpu_test_wait_ranks(pids, SERVERS, RUN_TIMEOUT_MS,
					     status, NULL),
			 0);
	for (i = 0; i < SERVERS; i++) {
		out[i] = slurp(logs[i]);
		unlink(logs[i]);
		if (status[i])
			print_message("node %d: status %d\n%s\n", i, status[i],
				      out[i]);
	}
	for (i = 0; i < SERVERS; i++)
		assert_int_equal(status[i], 0);
	/* node 0 hosts rank 0, which prints the summary */
	l4 = number_after(out[0], "final loss ");
	a4 = number_after(out[0], "test accuracy ");
	assert_null(strstr(out[1], "final loss"));
	assert_non_null(strstr(out[1], "global ranks 2..3 of 4"));

	/* one device with the same global batch: 4 ranks x 16 */
	snprintf(devenv, sizeof(devenv), "HPU_DEV_DIR=%s", S.srv.d[0].mount);
	dev0[0] = devenv;
	short_run("1", "64", dev0, &l1, &a1, &r1);
	assert_close(l4, l1, "final loss, 2 servers x 2 ranks vs 1 device");
	assert_true(fabs(a4 - a1) <= 0.6);
	run_free(&r1);
	for (i = 0; i < SERVERS; i++)
		free(out[i]);
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
	const struct CMUnitTest one_server[] = {
		cmocka_unit_test_setup(test_device_errors,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_devices_auto, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_digits_one_device,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_benchmark_table,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_two_ranks_match_one,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_resume_matches,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_killed_worker_ends_launcher,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_results_printed_once,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_ddp_resume_after_kill,
				       hpu_test_need_daemon),
	};
	const struct CMUnitTest two_servers[] = {
		cmocka_unit_test(test_two_servers_match_one_device),
	};
	int fails = 0;

	unsetenv("HPU_VISIBLE_DEVICES");
	fails += cmocka_run_group_tests_name("train_cli", cli, NULL, NULL);
	fails += cmocka_run_group_tests_name("train_cli_hpu", one_server,
					     daemon_setup, hpu_test_group_stop);
	fails += cmocka_run_group_tests_name("train_cli_servers", two_servers,
					     servers_setup, servers_teardown);
	return fails;
}
