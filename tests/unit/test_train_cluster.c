// SPDX-License-Identifier: MIT
/*
 * test_train_cluster.c - cluster environments (Slurm, torchrun, Open MPI,
 * plain), their precedence and every inconsistency's message, Slurm node
 * list expansion, and hpu-train's device options.
 *
 * Environments are envp-style arrays read through ht_getenv_envp(), so the
 * tests never touch the process environment.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ht_cluster.h"
#include "ht_devices.h"

#define ERRLEN 512

static char err[ERRLEN];

static int detect(const char **env, uint32_t devices, uint32_t nodes,
		  struct ht_cluster *c)
{
	err[0] = '\0';
	return ht_cluster_detect(ht_getenv_envp, (void *)env, devices, nodes, c,
				 err, sizeof(err));
}

/* @env must be rejected with exactly @msg */
static void expect_reject(const char **env, uint32_t devices, uint32_t nodes,
			  const char *msg)
{
	struct ht_cluster c;

	assert_int_equal(detect(env, devices, nodes, &c), -EINVAL);
	assert_string_equal(err, msg);
}

/* ---------------------------------------------------------------- plain */

static void test_plain_single(void **state)
{
	const char *env[] = { "PATH=/bin", NULL };
	struct ht_cluster c;

	assert_int_equal(detect(env, 1, 1, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_PLAIN);
	assert_string_equal(ht_cluster_env_name(c.env), "plain");
	assert_int_equal(c.world_size, 1);
	assert_int_equal(c.rank, 0);
	assert_false(c.launcher_needed);
	assert_string_equal(c.master_addr, "127.0.0.1");
	assert_int_equal(c.master_port, HT_MASTER_PORT_DEFAULT);

	/* Eight devices on one node: this process launches them */
	assert_int_equal(detect(env, 8, 1, &c), 0);
	assert_int_equal(c.world_size, 8);
	assert_int_equal(c.local_world_size, 8);
	assert_true(c.launcher_needed);
}

static void test_plain_multinode(void **state)
{
	const char *env[] = { "MASTER_ADDR=10.0.0.1", "MASTER_PORT=1234",
			      "WORLD_SIZE=8", "NODE_RANK=1", NULL };
	struct ht_cluster c;

	assert_int_equal(detect(env, 4, 2, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_PLAIN);
	assert_int_equal(c.world_size, 8);
	assert_int_equal(c.node_rank, 1);
	assert_int_equal(c.rank, 4); /* local rank 0 of node 1 */
	assert_int_equal(c.local_rank, 0);
	assert_int_equal(c.num_nodes, 2);
	assert_true(c.launcher_needed);
	assert_string_equal(c.master_addr, "10.0.0.1");
	assert_int_equal(c.master_port, 1234);
}

static void test_plain_errors(void **state)
{
	const char *ws_nodes[] = { "MASTER_ADDR=h", "WORLD_SIZE=2",
				   "NODE_RANK=0", NULL };
	const char *no_addr[] = { "NODE_RANK=1", NULL };
	const char *no_node[] = { "MASTER_ADDR=h", NULL };
	const char *node_big[] = { "MASTER_ADDR=h", "NODE_RANK=2", NULL };
	const char *port0[] = { "MASTER_PORT=0", NULL };
	const char *port_big[] = { "MASTER_PORT=65536", NULL };
	const char *port_txt[] = { "MASTER_PORT=http", NULL };
	const char *neg[] = { "MASTER_ADDR=h", "NODE_RANK=-1", NULL };
	const char *empty[] = { "WORLD_SIZE=", NULL };

	expect_reject(
		ws_nodes, 4, 2,
		"WORLD_SIZE=2 but --devices 4 x --num-nodes 2 = 8 processes (the world size counts processes, not nodes)");
	expect_reject(
		no_addr, 4, 2,
		"MASTER_ADDR is not set (--num-nodes > 1 needs node 0's address)");
	expect_reject(
		no_node, 4, 2,
		"NODE_RANK is not set (--num-nodes 2 needs this node's index 0..1)");
	expect_reject(node_big, 4, 2, "NODE_RANK=2 is not below --num-nodes 2");
	expect_reject(port0, 1, 1, "MASTER_PORT=0 is out of range (1..65535)");
	expect_reject(port_big, 1, 1,
		      "MASTER_PORT=65536 is out of range (1..65535)");
	expect_reject(port_txt, 1, 1, "MASTER_PORT='http' is not a number");
	expect_reject(neg, 4, 2, "NODE_RANK='-1' is negative");
	expect_reject(empty, 1, 1, "WORLD_SIZE is set but empty");
	expect_reject(
		empty, 0, 1,
		"--devices 0 x --num-nodes 1: each must be >= 1, the product at most 65536");
}

/* ---------------------------------------------------------------- torchrun */

static void test_torchrun(void **state)
{
	const char *env[] = { "WORLD_SIZE=8",	    "RANK=6",
			      "LOCAL_RANK=2",	    "GROUP_RANK=1",
			      "LOCAL_WORLD_SIZE=4", "MASTER_ADDR=node01",
			      "MASTER_PORT=29400",  NULL };
	const char *no_group[] = { "WORLD_SIZE=4",  "RANK=3",
				   "LOCAL_RANK=1",  "MASTER_ADDR=a",
				   "MASTER_PORT=1", NULL };
	const char *single[] = { "WORLD_SIZE=1", "RANK=0", "LOCAL_RANK=0",
				 NULL };
	struct ht_cluster c;

	assert_int_equal(detect(env, 4, 2, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_TORCHRUN);
	assert_int_equal(c.world_size, 8);
	assert_int_equal(c.rank, 6);
	assert_int_equal(c.local_rank, 2);
	assert_int_equal(c.node_rank, 1);
	assert_false(c.launcher_needed);
	assert_string_equal(c.master_addr, "node01");
	assert_int_equal(c.master_port, 29400);

	/* Node index from the rank; NODE_RANK absent too */
	assert_int_equal(detect(no_group, 2, 2, &c), 0);
	assert_int_equal(c.node_rank, 1);
	assert_int_equal(c.local_rank, 1);

	/* World of one: no rendezvous needed */
	assert_int_equal(detect(single, 1, 1, &c), 0);
	assert_string_equal(c.master_addr, "127.0.0.1");
}

static void test_torchrun_errors(void **state)
{
	const char *no_world[] = { "RANK=0", "LOCAL_RANK=0", NULL };
	const char *no_rank[] = { "WORLD_SIZE=2", "LOCAL_RANK=0", NULL };
	const char *no_local[] = { "WORLD_SIZE=2", "RANK=1", NULL };
	const char *rank_big[] = { "WORLD_SIZE=4",  "RANK=4",
				   "LOCAL_RANK=0",  "MASTER_ADDR=a",
				   "MASTER_PORT=1", NULL };
	const char *local_big[] = { "WORLD_SIZE=4", "RANK=3", "LOCAL_RANK=3",
				    "NODE_RANK=0", NULL };
	const char *mismatch[] = { "WORLD_SIZE=4", "RANK=3", "LOCAL_RANK=1",
				   "NODE_RANK=0", NULL };
	const char *disagree[] = { "WORLD_SIZE=4", "RANK=3",
				   "LOCAL_RANK=1", "NODE_RANK=0",
				   "GROUP_RANK=1", NULL };
	const char *no_addr[] = { "WORLD_SIZE=2", "RANK=1", "LOCAL_RANK=1",
				  "MASTER_PORT=5", NULL };
	const char *no_port[] = { "WORLD_SIZE=2", "RANK=1", "LOCAL_RANK=1",
				  "MASTER_ADDR=a", NULL };
	const char *lws[] = { "WORLD_SIZE=2", "RANK=1", "LOCAL_RANK=1",
			      "LOCAL_WORLD_SIZE=1", NULL };
	const char *garbage[] = { "WORLD_SIZE=2x", "RANK=1", "LOCAL_RANK=1",
				  NULL };
	const char *neg[] = { "WORLD_SIZE=2", "RANK=-1", "LOCAL_RANK=1", NULL };
	const char *huge[] = { "WORLD_SIZE=99999999999", "RANK=0",
			       "LOCAL_RANK=0", NULL };
	const char *world[] = { "WORLD_SIZE=3", "RANK=0", "LOCAL_RANK=0",
				NULL };

	expect_reject(no_world, 1, 1,
		      "RANK is set but WORLD_SIZE is not (torchrun sets both)");
	expect_reject(no_rank, 2, 1,
		      "LOCAL_RANK is set but RANK is not (torchrun sets both)");
	expect_reject(no_local, 2, 1,
		      "RANK is set but LOCAL_RANK is not (torchrun sets both)");
	expect_reject(rank_big, 2, 2, "RANK=4 is not below WORLD_SIZE=4");
	expect_reject(local_big, 2, 2, "LOCAL_RANK=3 is not below --devices 2");
	expect_reject(
		mismatch, 2, 2,
		"RANK=3 but NODE_RANK 0 x --devices 2 + LOCAL_RANK 1 = 1");
	expect_reject(disagree, 2, 2, "GROUP_RANK=1 and NODE_RANK=0 disagree");
	expect_reject(
		no_addr, 2, 1,
		"MASTER_ADDR is not set (WORLD_SIZE > 1 needs a rendezvous)");
	expect_reject(
		no_port, 2, 1,
		"MASTER_PORT is not set (WORLD_SIZE=2 needs a rendezvous)");
	expect_reject(lws, 2, 1, "LOCAL_WORLD_SIZE=1 but --devices 2");
	expect_reject(garbage, 2, 1, "WORLD_SIZE='2x' is not a number");
	expect_reject(neg, 2, 1, "RANK='-1' is negative");
	expect_reject(huge, 1, 1,
		      "WORLD_SIZE='99999999999' is too large (at most 65536)");
	expect_reject(
		world, 2, 1,
		"WORLD_SIZE=3 but --devices 2 x --num-nodes 1 = 2 processes");
}

/* ---------------------------------------------------------------- slurm */

static void test_slurm(void **state)
{
	const char *env[] = { "SLURM_NTASKS=8",
			      "SLURM_PROCID=5",
			      "SLURM_LOCALID=1",
			      "SLURM_NODEID=1",
			      "SLURM_NNODES=2",
			      "SLURM_JOB_ID=123456",
			      "SLURM_NODELIST=gaudi[07-08]",
			      NULL };
	const char *own_master[] = { "SLURM_NTASKS=2",	   "SLURM_PROCID=0",
				     "SLURM_LOCALID=0",	   "SLURM_NODEID=0",
				     "SLURM_NODELIST=a,b", "MASTER_ADDR=m",
				     "MASTER_PORT=777",	   NULL };
	const char *job_list[] = { "SLURM_NTASKS=2",	       "SLURM_PROCID=1",
				   "SLURM_LOCALID=1",	       "SLURM_NODEID=0",
				   "SLURM_JOB_NODELIST=x1,x2", NULL };
	struct ht_cluster c;

	assert_int_equal(detect(env, 4, 2, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_SLURM);
	assert_string_equal(ht_cluster_env_name(c.env), "slurm");
	assert_int_equal(c.world_size, 8);
	assert_int_equal(c.rank, 5);
	assert_int_equal(c.local_rank, 1);
	assert_int_equal(c.node_rank, 1);
	assert_string_equal(c.master_addr, "gaudi07");
	assert_int_equal(c.master_port, 15000 + 123456 % 10000);

	assert_int_equal(detect(own_master, 2, 1, &c), 0);
	assert_string_equal(c.master_addr, "m");
	assert_int_equal(c.master_port, 777);

	assert_int_equal(detect(job_list, 2, 1, &c), 0);
	assert_string_equal(c.master_addr, "x1");
	assert_int_equal(c.master_port, HT_MASTER_PORT_DEFAULT);
}

static void test_slurm_errors(void **state)
{
	const char *no_ntasks[] = { "SLURM_PROCID=0", "SLURM_LOCALID=0",
				    "SLURM_NODEID=0", NULL };
	const char *no_local[] = { "SLURM_PROCID=0", "SLURM_NTASKS=1",
				   "SLURM_NODEID=0", NULL };
	const char *nnodes[] = { "SLURM_PROCID=0",  "SLURM_NTASKS=4",
				 "SLURM_LOCALID=0", "SLURM_NODEID=0",
				 "SLURM_NNODES=2",  NULL };
	const char *no_list[] = { "SLURM_PROCID=0", "SLURM_NTASKS=2",
				  "SLURM_LOCALID=0", "SLURM_NODEID=0", NULL };
	const char *bad_list[] = { "SLURM_PROCID=0",	  "SLURM_NTASKS=2",
				   "SLURM_LOCALID=0",	  "SLURM_NODEID=0",
				   "SLURM_NODELIST=n[1-", NULL };
	const char *bad_job_list[] = {
		"SLURM_PROCID=0", "SLURM_NTASKS=2",	     "SLURM_LOCALID=0",
		"SLURM_NODEID=0", "SLURM_JOB_NODELIST=a,,b", NULL
	};
	const char *cyclic[] = { "SLURM_PROCID=1",     "SLURM_NTASKS=4",
				 "SLURM_LOCALID=0",    "SLURM_NODEID=1",
				 "SLURM_NODELIST=a,b", NULL };
	const char *node_big[] = { "SLURM_PROCID=1",	 "SLURM_NTASKS=4",
				   "SLURM_LOCALID=1",	 "SLURM_NODEID=2",
				   "SLURM_NODELIST=a,b", NULL };

	expect_reject(
		no_ntasks, 1, 1,
		"SLURM_PROCID is set but SLURM_NTASKS is not (srun sets both)");
	expect_reject(
		no_local, 1, 1,
		"SLURM_PROCID is set but SLURM_LOCALID is not (srun sets both)");
	expect_reject(nnodes, 4, 1, "SLURM_NNODES=2 but --num-nodes 1");
	expect_reject(
		no_list, 2, 1,
		"MASTER_ADDR is not set (and SLURM_NODELIST is not set either)");
	/* the message names the variable the list came from */
	expect_reject(
		bad_list, 2, 1,
		"SLURM_NODELIST: malformed node list 'n[1-': '[' without ']'");
	expect_reject(
		bad_job_list, 2, 1,
		"SLURM_JOB_NODELIST: malformed node list 'a,,b': empty host name");
	/* Round-robin task placement: rank 1 on node 1 as local 0 */
	expect_reject(
		cyclic, 2, 2,
		"SLURM_PROCID=1 but SLURM_NODEID 1 x --devices 2 + SLURM_LOCALID 0 = 2");
	expect_reject(node_big, 2, 2,
		      "SLURM_NODEID=2 is not below --num-nodes 2");
}

/* ---------------------------------------------------------------- ompi */

static void test_ompi(void **state)
{
	const char *env[] = { "OMPI_COMM_WORLD_SIZE=4",
			      "OMPI_COMM_WORLD_RANK=3",
			      "OMPI_COMM_WORLD_LOCAL_RANK=1",
			      "OMPI_COMM_WORLD_LOCAL_SIZE=2",
			      "OMPI_COMM_WORLD_NODE_RANK=1",
			      "MASTER_ADDR=head",
			      NULL };
	const char *one_node[] = { "OMPI_COMM_WORLD_SIZE=2",
				   "OMPI_COMM_WORLD_RANK=1",
				   "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL };
	struct ht_cluster c;

	assert_int_equal(detect(env, 2, 2, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_OMPI);
	assert_string_equal(ht_cluster_env_name(c.env), "ompi");
	assert_int_equal(c.rank, 3);
	assert_int_equal(c.node_rank, 1);
	assert_int_equal(c.local_rank, 1);
	assert_string_equal(c.master_addr, "head");
	assert_int_equal(c.master_port, HT_MASTER_PORT_DEFAULT);

	assert_int_equal(detect(one_node, 2, 1, &c), 0);
	assert_string_equal(c.master_addr, "127.0.0.1");
}

static void test_ompi_errors(void **state)
{
	const char *partial[] = { "OMPI_COMM_WORLD_SIZE=2", NULL };
	const char *no_addr[] = { "OMPI_COMM_WORLD_SIZE=4",
				  "OMPI_COMM_WORLD_RANK=0",
				  "OMPI_COMM_WORLD_LOCAL_RANK=0", NULL };
	const char *placement[] = { "OMPI_COMM_WORLD_SIZE=4",
				    "OMPI_COMM_WORLD_RANK=1",
				    "OMPI_COMM_WORLD_LOCAL_RANK=0",
				    "MASTER_ADDR=h", NULL };
	const char *lsize[] = { "OMPI_COMM_WORLD_SIZE=4",
				"OMPI_COMM_WORLD_RANK=1",
				"OMPI_COMM_WORLD_LOCAL_RANK=1",
				"OMPI_COMM_WORLD_LOCAL_SIZE=4", NULL };
	const char *node_rank[] = { "OMPI_COMM_WORLD_SIZE=2",
				    "OMPI_COMM_WORLD_RANK=1",
				    "OMPI_COMM_WORLD_LOCAL_RANK=1",
				    "OMPI_COMM_WORLD_NODE_RANK=x", NULL };

	expect_reject(
		partial, 2, 1,
		"OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not (mpirun sets both)");
	expect_reject(
		no_addr, 2, 2,
		"MASTER_ADDR is not set (--num-nodes > 1 under mpirun needs rank 0's host)");
	expect_reject(
		placement, 2, 2,
		"OMPI_COMM_WORLD_RANK=1 with OMPI_COMM_WORLD_LOCAL_RANK=0: ranks are not placed 2 per node in order (node = rank / 2, local rank = rank % 2)");
	expect_reject(lsize, 2, 2,
		      "OMPI_COMM_WORLD_LOCAL_SIZE=4 but --devices 2");
	expect_reject(node_rank, 2, 1,
		      "OMPI_COMM_WORLD_NODE_RANK='x' is not a number");
}

/* ---------------------------------------------------------------- order */

static void test_precedence(void **state)
{
	const char *all[] = { "SLURM_NTASKS=1",
			      "SLURM_PROCID=0",
			      "SLURM_LOCALID=0",
			      "SLURM_NODEID=0",
			      "WORLD_SIZE=1",
			      "RANK=0",
			      "LOCAL_RANK=0",
			      "OMPI_COMM_WORLD_SIZE=1",
			      "OMPI_COMM_WORLD_RANK=0",
			      "OMPI_COMM_WORLD_LOCAL_RANK=0",
			      NULL };
	const char *no_slurm[] = { "SLURM_NTASKS=8", /* salloc shell */
				   "WORLD_SIZE=1",
				   "RANK=0",
				   "LOCAL_RANK=0",
				   "OMPI_COMM_WORLD_SIZE=1",
				   "OMPI_COMM_WORLD_RANK=0",
				   "OMPI_COMM_WORLD_LOCAL_RANK=0",
				   NULL };
	const char *ompi_plain[] = { "WORLD_SIZE=1", "OMPI_COMM_WORLD_SIZE=1",
				     "OMPI_COMM_WORLD_RANK=0",
				     "OMPI_COMM_WORLD_LOCAL_RANK=0", NULL };
	struct ht_cluster c;

	assert_int_equal(detect(all, 1, 1, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_SLURM);
	assert_int_equal(detect(no_slurm, 1, 1, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_TORCHRUN);
	/* WORLD_SIZE alone is the plain case, which comes last */
	assert_int_equal(detect(ompi_plain, 1, 1, &c), 0);
	assert_int_equal(c.env, HT_CLUSTER_OMPI);

	/* The process environment accessor */
	assert_null(ht_getenv_process("HT_SURELY_UNSET_VARIABLE", NULL));
	assert_null(ht_getenv_envp("RANK", NULL));
	assert_null(ht_getenv_envp("RAN", (void *)all));
	assert_string_equal(ht_getenv_envp("RANK", (void *)all), "0");
}

/* ---------------------------------------------------------------- nodelist */

static void expect_hosts(const char *list, const char *const *want, size_t n)
{
	struct ht_hostlist hl;
	size_t i;

	assert_int_equal(ht_slurm_nodelist_expand(list, &hl, err, sizeof(err)),
			 0);
	assert_int_equal(hl.count, n);
	for (i = 0; i < n; i++)
		assert_string_equal(hl.hosts[i], want[i]);
	ht_hostlist_free(&hl);
	assert_null(hl.hosts);
}

/* @list is refused with @errnum and, unless @msg is NULL, exactly @msg */
static void expect_bad_list(const char *list, int errnum, const char *msg)
{
	struct ht_hostlist hl;

	assert_int_equal(ht_slurm_nodelist_expand(list, &hl, err, sizeof(err)),
			 errnum);
	if (msg)
		assert_string_equal(err, msg);
	assert_null(hl.hosts);
}

static void test_nodelist(void **state)
{
	static const char *const a[] = { "node01", "node02", "node03", "node04",
					 "node07" };
	static const char *const b[] = { "a", "b" };
	static const char *const c[] = { "gpu5" };
	static const char *const d[] = { "r1-n1", "r1-n2", "r2-n1", "r2-n2" };
	static const char *const e[] = {
		"n8", "n9", "n10", "x", "m001", "m002"
	};
	static const char *const f[] = { "pre07.suffix", "pre08.suffix" };

	expect_hosts("node[01-04,07]", a, 5);
	expect_hosts("a,b", b, 2);
	expect_hosts("gpu5", c, 1);
	expect_hosts("r[1-2]-n[1-2]", d, 4);
	expect_hosts("n[8-10],x,m[001-002]", e, 6);
	expect_hosts("pre[07-08].suffix", f, 2);

	expect_bad_list("", -EINVAL, "malformed node list '': empty");
	expect_bad_list("n[1-", -EINVAL,
			"malformed node list 'n[1-': '[' without ']'");
	expect_bad_list(
		"n[4-2]", -EINVAL,
		"malformed node list 'n[4-2]': a range ends below its start");
	expect_bad_list("a,,b", -EINVAL,
			"malformed node list 'a,,b': empty host name");
	expect_bad_list(
		"n[a-b]", -EINVAL,
		"malformed node list 'n[a-b]': a bracket range must be numbers");
	expect_bad_list("n[1,]", -EINVAL,
			"malformed node list 'n[1,]': empty range in brackets");
	expect_bad_list("n[[1]]", -EINVAL,
			"malformed node list 'n[[1]]': nested '['");
	expect_bad_list("n]", -EINVAL,
			"malformed node list 'n]': ']' without '['");
	expect_bad_list(
		"n[0-99999]", -E2BIG,
		"node list 'n[0-99999]' expands to more than 65536 hosts");
	expect_bad_list("a[0-999]b[0-999]", -E2BIG, NULL);
}

/* ---------------------------------------------------------------- devices */

/* Parse the four options and resolve against @available */
static int resolve(const char *accel, const char *devices, const char *strategy,
		   const char *nodes, uint32_t available,
		   struct ht_devices *out)
{
	struct ht_devices_req req;
	int ret = 0;

	ht_devices_req_init(&req);
	err[0] = '\0';
	if (accel)
		ret = ht_parse_accelerator(accel, &req, err, sizeof(err));
	if (!ret && devices)
		ret = ht_parse_devices(devices, &req, err, sizeof(err));
	if (!ret && strategy)
		ret = ht_parse_strategy(strategy, &req, err, sizeof(err));
	if (!ret && nodes)
		ret = ht_parse_num_nodes(nodes, &req, err, sizeof(err));
	if (!ret)
		ret = ht_devices_resolve(&req, available, out, err,
					 sizeof(err));
	return ret;
}

static void test_devices_ok(void **state)
{
	struct ht_devices d;

	/* Defaults: every HPU found, data parallel */
	assert_int_equal(resolve(NULL, NULL, NULL, NULL, 8, &d), 0);
	assert_int_equal(d.accel, HT_ACCEL_HPU);
	assert_int_equal(d.count, 8);
	assert_int_equal(d.index[7], 7);
	assert_int_equal(d.strategy, HT_STRATEGY_PARALLEL);
	assert_int_equal(d.num_nodes, 1);
	/* auto without HPUs: cpu, one device, single */
	assert_int_equal(resolve("auto", "auto", "auto", "1", 0, &d), 0);
	assert_int_equal(d.accel, HT_ACCEL_CPU);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.strategy, HT_STRATEGY_SINGLE);
	/* -1 is all; one device is single */
	assert_int_equal(resolve("hpu", "-1", NULL, NULL, 1, &d), 0);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.strategy, HT_STRATEGY_SINGLE);
	/* A count takes the first N */
	assert_int_equal(resolve("hpu", "2", "hpu_parallel", NULL, 8, &d), 0);
	assert_int_equal(d.count, 2);
	assert_int_equal(d.index[1], 1);
	/* A list, with blanks and in the user's order */
	assert_int_equal(resolve("hpu", "5, 0,2", "ddp", "3", 8, &d), 0);
	assert_int_equal(d.count, 3);
	assert_int_equal(d.index[0], 5);
	assert_int_equal(d.index[1], 0);
	assert_int_equal(d.index[2], 2);
	assert_int_equal(d.num_nodes, 3);
	/* "3," is index 3 alone */
	assert_int_equal(resolve("hpu", "3,", "single_hpu", NULL, 8, &d), 0);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.index[0], 3);
	assert_int_equal(d.strategy, HT_STRATEGY_SINGLE);
	/* One device per node on two nodes is parallel */
	assert_int_equal(resolve(NULL, "1", NULL, "2", 8, &d), 0);
	assert_int_equal(d.strategy, HT_STRATEGY_PARALLEL);
	/* cpu with a count: that many host processes */
	assert_int_equal(resolve("cpu", "4", NULL, NULL, 8, &d), 0);
	assert_int_equal(d.accel, HT_ACCEL_CPU);
	assert_int_equal(d.count, 4);
	assert_int_equal(d.strategy, HT_STRATEGY_PARALLEL);
}

static void expect_devices_error(const char *accel, const char *devices,
				 const char *strategy, const char *nodes,
				 uint32_t available, const char *msg)
{
	struct ht_devices d;

	assert_int_equal(resolve(accel, devices, strategy, nodes, available,
				 &d),
			 -EINVAL);
	assert_string_equal(err, msg);
}

static void test_devices_errors(void **state)
{
	expect_devices_error("gpu", NULL, NULL, NULL, 8,
			     "--accelerator 'gpu': expected auto, hpu or cpu");
	expect_devices_error(
		"hpu", NULL, NULL, NULL, 0,
		"--accelerator hpu: no HPU devices found (is hpu-fused running? see HPU_DEV_DIR)");
	expect_devices_error(
		NULL, "0", NULL, NULL, 8,
		"--devices 0: at least one device is needed (--accelerator cpu trains on the host)");
	expect_devices_error(NULL, "9", NULL, NULL, 8,
			     "--devices 9: only 8 HPUs found (indices 0..7)");
	expect_devices_error(
		NULL, "0,8", NULL, NULL, 8,
		"--devices: HPU 8 not found (8 found, indices 0..7)");
	expect_devices_error(NULL, "1,2,1", NULL, NULL, 8,
			     "--devices '1,2,1': index 1 appears twice");
	expect_devices_error(
		NULL, "0,,2", NULL, NULL, 8,
		"--devices '0,,2': '' is not a device index (expected N, -1, auto or a list of indices like 0,2)");
	expect_devices_error(
		NULL, "0,x", NULL, NULL, 8,
		"--devices '0,x': 'x' is not a device index (expected N, -1, auto or a list of indices like 0,2)");
	expect_devices_error(
		NULL, "0,100", NULL, NULL, 8,
		"--devices '0,100': index 100 is too large (at most 63)");
	expect_devices_error(
		NULL, "all", NULL, NULL, 8,
		"--devices 'all': expected N, -1, auto or a list of indices like 0,2");
	expect_devices_error(
		NULL, "", NULL, NULL, 8,
		"--devices '': expected N, -1, auto or a list of indices like 0,2");
	expect_devices_error(
		NULL, "-2", NULL, NULL, 8,
		"--devices -2: the only negative value is -1 (all devices)");
	expect_devices_error(NULL, "65", NULL, NULL, 8,
			     "--devices 65: at most 64 devices per node");
	expect_devices_error(
		"cpu", "0,1", NULL, NULL, 8,
		"--devices: a list of device indices needs --accelerator hpu (cpu takes a count)");
	expect_devices_error(
		NULL, "2", "single_hpu", NULL, 8,
		"--strategy single_hpu runs on one device, not 2 devices on 1 node: use hpu_parallel");
	expect_devices_error(
		NULL, "1", "single_hpu", "2", 8,
		"--strategy single_hpu runs on one device, not 1 device on 2 nodes: use hpu_parallel");
	expect_devices_error(
		NULL, NULL, "fsdp", NULL, 8,
		"--strategy 'fsdp': expected auto, single_hpu or hpu_parallel (ddp)");
	expect_devices_error(NULL, NULL, NULL, "0", 8,
			     "--num-nodes '0': expected a number 1..1024");
	expect_devices_error(NULL, NULL, NULL, "two", 8,
			     "--num-nodes 'two': expected a number 1..1024");
}

/* The device decision feeds the cluster detection */
static void test_devices_then_cluster(void **state)
{
	const char *env[] = { "MASTER_ADDR=10.1.1.1", "MASTER_PORT=29600",
			      "WORLD_SIZE=4", "NODE_RANK=1", NULL };
	struct ht_cluster c;
	struct ht_devices d;

	assert_int_equal(resolve(NULL, "0,2", NULL, "2", 8, &d), 0);
	assert_int_equal(detect(env, d.count, d.num_nodes, &c), 0);
	assert_int_equal(c.rank, 2);
	assert_true(c.launcher_needed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_single),
		cmocka_unit_test(test_plain_multinode),
		cmocka_unit_test(test_plain_errors),
		cmocka_unit_test(test_torchrun),
		cmocka_unit_test(test_torchrun_errors),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_slurm_errors),
		cmocka_unit_test(test_ompi),
		cmocka_unit_test(test_ompi_errors),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_nodelist),
		cmocka_unit_test(test_devices_ok),
		cmocka_unit_test(test_devices_errors),
		cmocka_unit_test(test_devices_then_cluster),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
