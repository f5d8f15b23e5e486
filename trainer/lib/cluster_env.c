// SPDX-License-Identifier: MIT
/*
 * cluster_env.c - detecting the cluster environment (see ht_cluster.h)
 *
 * Each environment reads its variables into one common form (the names
 * they came from included, for the messages); one checker then applies
 * the rules every environment shares.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ht_cluster.h"
#include "ht_error.h"

/* Slurm's port range base: 15000 + job id mod 10000, as Lightning does */
#define SLURM_PORT_BASE 15000
#define SLURM_PORT_SPAN 10000
#define LOCALHOST	"127.0.0.1"

struct env {
	ht_getenv_fn get;
	void *arg;
	const char *launcher; /* who sets the variables, for messages */
	char *err;
	size_t errlen;
};

/* What an environment found, before the shared checks */
struct found {
	const char *world_var;
	const char *rank_var;
	const char *local_var;
	const char *node_var; /* NULL when derived from the rank */
	uint32_t world;
	uint32_t rank;
	uint32_t local;
	uint32_t node;
};

const char *ht_getenv_process(const char *name, void *arg)
{
	return getenv(name);
}

const char *ht_getenv_envp(const char *name, void *arg)
{
	char **envp = arg;
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

const char *ht_cluster_env_name(enum ht_cluster_env env)
{
	switch (env) {
	case HT_CLUSTER_SLURM:
		return "slurm";
	case HT_CLUSTER_TORCHRUN:
		return "torchrun";
	case HT_CLUSTER_OMPI:
		return "ompi";
	default:
		return "plain";
	}
}

static const char *get(struct env *e, const char *name)
{
	return e->get(name, e->arg);
}

static bool has(struct env *e, const char *name)
{
	return get(e, name) != NULL;
}

/* Parse a decimal integer 0..@max; @present says whether it was set */
static int get_uint(struct env *e, const char *name, uint32_t max,
		    uint32_t *out, bool *present)
{
	const char *v = get(e, name);
	unsigned long long n = 0;
	const char *p;

	if (present)
		*present = v != NULL;
	if (!v)
		return 0;
	if (!*v) {
		ht_seterr(e->err, e->errlen, "%s is set but empty", name);
		return -EINVAL;
	}
	if (v[0] == '-' && v[1] >= '0' && v[1] <= '9') {
		ht_seterr(e->err, e->errlen, "%s='%.40s' is negative", name, v);
		return -EINVAL;
	}
	for (p = v; *p; p++) {
		if (*p < '0' || *p > '9') {
			ht_seterr(e->err, e->errlen,
				  "%s='%.40s' is not a number", name, v);
			return -EINVAL;
		}
		n = n * 10 + (unsigned long long)(*p - '0');
		if (n > max)
			break;
	}
	if (n > max) {
		ht_seterr(e->err, e->errlen,
			  "%s='%.40s' is too large (at most %u)", name, v, max);
		return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

/* A variable that must be there once the environment is detected */
static int need_uint(struct env *e, const char *name, const char *because,
		     uint32_t max, uint32_t *out)
{
	bool present;
	int ret = get_uint(e, name, max, out, &present);

	if (ret)
		return ret;
	if (!present) {
		ht_seterr(e->err, e->errlen,
			  "%s is set but %s is not (%s sets both)", because,
			  name, e->launcher);
		return -EINVAL;
	}
	return 0;
}

static int get_port(struct env *e, uint16_t dflt, uint16_t *port)
{
	const char *v = get(e, "MASTER_PORT");
	uint32_t n;
	int ret;

	if (!v) {
		*port = dflt;
		return 0;
	}
	ret = get_uint(e, "MASTER_PORT", 1000000, &n, NULL);
	if (ret)
		return ret;
	if (n < 1 || n > 65535) {
		ht_seterr(e->err, e->errlen,
			  "MASTER_PORT=%u is out of range (1..65535)", n);
		return -EINVAL;
	}
	*port = (uint16_t)n;
	return 0;
}

/* MASTER_ADDR, or @dflt (NULL: required) */
static int get_addr(struct env *e, const char *dflt, const char *why,
		    struct ht_cluster *c)
{
	const char *v = get(e, "MASTER_ADDR");

	if (!v || !*v) {
		if (!dflt) {
			ht_seterr(e->err, e->errlen,
				  "MASTER_ADDR is not set (%s)", why);
			return -EINVAL;
		}
		v = dflt;
	}
	if (strlen(v) >= sizeof(c->master_addr)) {
		ht_seterr(e->err, e->errlen, "MASTER_ADDR is longer than %zu",
			  sizeof(c->master_addr) - 1);
		return -EINVAL;
	}
	strcpy(c->master_addr, v);
	return 0;
}

/* The rules every environment shares */
static int check_found(struct env *e, const struct found *f, uint32_t devices,
		       uint32_t num_nodes)
{
	uint64_t want = (uint64_t)devices * num_nodes;

	if (f->world != want) {
		ht_seterr(
			e->err, e->errlen,
			"%s=%u but --devices %u x --num-nodes %u = %llu processes%s",
			f->world_var, f->world, devices, num_nodes,
			(unsigned long long)want,
			f->world == num_nodes && devices > 1 ?
				" (the world size counts processes, not nodes)" :
				"");
		return -EINVAL;
	}
	/* A derived node index is below num_nodes when the rank is valid */
	if (f->node_var && f->node >= num_nodes) {
		ht_seterr(e->err, e->errlen,
			  "%s=%u is not below --num-nodes %u", f->node_var,
			  f->node, num_nodes);
		return -EINVAL;
	}
	if (f->rank >= f->world) {
		ht_seterr(e->err, e->errlen, "%s=%u is not below %s=%u",
			  f->rank_var, f->rank, f->world_var, f->world);
		return -EINVAL;
	}
	if (f->local >= devices) {
		ht_seterr(e->err, e->errlen, "%s=%u is not below --devices %u",
			  f->local_var, f->local, devices);
		return -EINVAL;
	}
	if ((uint64_t)f->node * devices + f->local != f->rank) {
		if (f->node_var)
			ht_seterr(
				e->err, e->errlen,
				"%s=%u but %s %u x --devices %u + %s %u = %llu",
				f->rank_var, f->rank, f->node_var, f->node,
				devices, f->local_var, f->local,
				(unsigned long long)f->node * devices +
					f->local);
		else
			ht_seterr(
				e->err, e->errlen,
				"%s=%u with %s=%u: ranks are not placed %u per node in order (node = rank / %u, local rank = rank %% %u)",
				f->rank_var, f->rank, f->local_var, f->local,
				devices, devices, devices);
		return -EINVAL;
	}
	return 0;
}

static void fill_out(const struct found *f, enum ht_cluster_env env,
		     uint32_t devices, uint32_t num_nodes, struct ht_cluster *c)
{
	c->env = env;
	c->world_size = f->world;
	c->rank = f->rank;
	c->local_rank = f->local;
	c->node_rank = f->node;
	c->local_world_size = devices;
	c->num_nodes = num_nodes;
}

/* SLURM_NNODES (or SLURM_JOB_NUM_NODES), when set, matches --num-nodes */
static int slurm_nodes(struct env *e, uint32_t num_nodes)
{
	const char *var = has(e, "SLURM_NNODES") ? "SLURM_NNODES" :
						   "SLURM_JOB_NUM_NODES";
	bool present;
	uint32_t n;
	int ret = get_uint(e, var, HT_CLUSTER_MAX_WORLD, &n, &present);

	if (ret || !present)
		return ret;
	if (n != num_nodes) {
		ht_seterr(e->err, e->errlen, "%s=%u but --num-nodes %u", var, n,
			  num_nodes);
		return -EINVAL;
	}
	return 0;
}

static int slurm_master(struct env *e, struct ht_cluster *c)
{
	const char *var = "SLURM_NODELIST", *list = get(e, var);
	struct ht_hostlist hl;
	char why[256];
	uint32_t job;
	bool present;
	int ret;

	if (!list) {
		var = "SLURM_JOB_NODELIST";
		list = get(e, var);
	}
	if (has(e, "MASTER_ADDR") || c->world_size == 1 || !list) {
		ret = get_addr(e, c->world_size == 1 ? LOCALHOST : NULL,
			       "and SLURM_NODELIST is not set either", c);
		if (ret)
			return ret;
	} else {
		ret = ht_slurm_nodelist_expand(list, &hl, why, sizeof(why));
		if (ret) {
			/* name the variable the list came from */
			ht_seterr(e->err, e->errlen, "%s: %s", var, why);
			return ret;
		}
		ret = get_addr(e, hl.hosts[0], "", c);
		ht_hostlist_free(&hl);
		if (ret)
			return ret;
	}
	ret = get_uint(e, "SLURM_JOB_ID", UINT32_MAX - 1, &job, &present);
	if (ret)
		return ret;
	return get_port(
		e,
		present ? (uint16_t)(SLURM_PORT_BASE + job % SLURM_PORT_SPAN) :
			  HT_MASTER_PORT_DEFAULT,
		&c->master_port);
}

static int detect_slurm(struct env *e, uint32_t devices, uint32_t num_nodes,
			struct ht_cluster *c)
{
	struct found f = { .world_var = "SLURM_NTASKS",
			   .rank_var = "SLURM_PROCID",
			   .local_var = "SLURM_LOCALID",
			   .node_var = "SLURM_NODEID" };
	const char *why = "SLURM_PROCID";
	int ret;

	e->launcher = "srun";
	ret = need_uint(e, "SLURM_PROCID", why, HT_CLUSTER_MAX_WORLD, &f.rank);
	ret = ret   ?:
		      need_uint(e, "SLURM_NTASKS", why, HT_CLUSTER_MAX_WORLD,
				&f.world);
	ret = ret   ?:
		      need_uint(e, "SLURM_LOCALID", why, HT_CLUSTER_MAX_WORLD,
				&f.local);
	ret = ret   ?:
		      need_uint(e, "SLURM_NODEID", why, HT_CLUSTER_MAX_WORLD,
				&f.node);
	ret = ret ?: slurm_nodes(e, num_nodes);
	ret = ret ?: check_found(e, &f, devices, num_nodes);
	if (ret)
		return ret;
	fill_out(&f, HT_CLUSTER_SLURM, devices, num_nodes, c);
	return slurm_master(e, c);
}

/* GROUP_RANK or NODE_RANK (equal when both), else rank / devices */
static int torch_node(struct env *e, struct found *f, uint32_t devices)
{
	uint32_t group, node;
	bool has_group, has_node;
	int ret;

	ret = get_uint(e, "GROUP_RANK", HT_CLUSTER_MAX_WORLD, &group,
		       &has_group);
	ret = ret   ?:
		      get_uint(e, "NODE_RANK", HT_CLUSTER_MAX_WORLD, &node,
			       &has_node);
	if (ret)
		return ret;
	if (has_group && has_node && group != node) {
		ht_seterr(e->err, e->errlen,
			  "GROUP_RANK=%u and NODE_RANK=%u disagree", group,
			  node);
		return -EINVAL;
	}
	if (has_group) {
		f->node = group;
		f->node_var = "GROUP_RANK";
	} else if (has_node) {
		f->node = node;
		f->node_var = "NODE_RANK";
	} else {
		f->node = f->rank / devices;
	}
	return 0;
}

/* An optional per-node process count that must equal --devices */
static int check_local_size(struct env *e, const char *var, uint32_t devices)
{
	bool present;
	uint32_t n;
	int ret = get_uint(e, var, HT_CLUSTER_MAX_WORLD, &n, &present);

	if (ret || !present)
		return ret;
	if (n != devices) {
		ht_seterr(e->err, e->errlen, "%s=%u but --devices %u", var, n,
			  devices);
		return -EINVAL;
	}
	return 0;
}

static int detect_torchrun(struct env *e, uint32_t devices, uint32_t num_nodes,
			   struct ht_cluster *c)
{
	struct found f = { .world_var = "WORLD_SIZE",
			   .rank_var = "RANK",
			   .local_var = "LOCAL_RANK" };
	const char *why = has(e, "RANK")       ? "RANK" :
			  has(e, "LOCAL_RANK") ? "LOCAL_RANK" :
						 "GROUP_RANK";
	int ret;

	e->launcher = "torchrun";
	ret = need_uint(e, "WORLD_SIZE", why, HT_CLUSTER_MAX_WORLD, &f.world);
	ret = ret ?: need_uint(e, "RANK", why, HT_CLUSTER_MAX_WORLD, &f.rank);
	ret = ret   ?:
		      need_uint(e, "LOCAL_RANK", why, HT_CLUSTER_MAX_WORLD,
				&f.local);
	ret = ret ?: torch_node(e, &f, devices);
	ret = ret ?: check_local_size(e, "LOCAL_WORLD_SIZE", devices);
	ret = ret ?: check_found(e, &f, devices, num_nodes);
	if (ret)
		return ret;
	fill_out(&f, HT_CLUSTER_TORCHRUN, devices, num_nodes, c);
	if (f.world > 1 && !has(e, "MASTER_PORT")) {
		ht_seterr(
			e->err, e->errlen,
			"MASTER_PORT is not set (WORLD_SIZE=%u needs a rendezvous)",
			f.world);
		return -EINVAL;
	}
	ret = get_addr(e, f.world > 1 ? NULL : LOCALHOST,
		       "WORLD_SIZE > 1 needs a rendezvous", c);
	return ret ?: get_port(e, HT_MASTER_PORT_DEFAULT, &c->master_port);
}

static int detect_ompi(struct env *e, uint32_t devices, uint32_t num_nodes,
		       struct ht_cluster *c)
{
	struct found f = { .world_var = "OMPI_COMM_WORLD_SIZE",
			   .rank_var = "OMPI_COMM_WORLD_RANK",
			   .local_var = "OMPI_COMM_WORLD_LOCAL_RANK" };
	const char *why =
		has(e, "OMPI_COMM_WORLD_RANK") ? "OMPI_COMM_WORLD_RANK" :
		has(e, "OMPI_COMM_WORLD_SIZE") ? "OMPI_COMM_WORLD_SIZE" :
						 "OMPI_COMM_WORLD_LOCAL_RANK";
	uint32_t node_procs;
	int ret;

	e->launcher = "mpirun";
	ret = need_uint(e, "OMPI_COMM_WORLD_SIZE", why, HT_CLUSTER_MAX_WORLD,
			&f.world);
	ret = ret   ?:
		      need_uint(e, "OMPI_COMM_WORLD_RANK", why,
				HT_CLUSTER_MAX_WORLD, &f.rank);
	ret = ret   ?:
		      need_uint(e, "OMPI_COMM_WORLD_LOCAL_RANK", why,
				HT_CLUSTER_MAX_WORLD, &f.local);
	ret = ret ?: check_local_size(e, "OMPI_COMM_WORLD_LOCAL_SIZE", devices);
	/* Only checked: it counts the node's processes of every job */
	ret = ret   ?:
		      get_uint(e, "OMPI_COMM_WORLD_NODE_RANK",
			       HT_CLUSTER_MAX_WORLD, &node_procs, NULL);
	if (ret)
		return ret;
	f.node = f.rank / devices;
	ret = check_found(e, &f, devices, num_nodes);
	if (ret)
		return ret;
	fill_out(&f, HT_CLUSTER_OMPI, devices, num_nodes, c);
	ret = get_addr(e, num_nodes == 1 ? LOCALHOST : NULL,
		       "--num-nodes > 1 under mpirun needs rank 0's host", c);
	return ret ?: get_port(e, HT_MASTER_PORT_DEFAULT, &c->master_port);
}

static int detect_plain(struct env *e, uint32_t devices, uint32_t num_nodes,
			struct ht_cluster *c)
{
	struct found f = { .world_var = "WORLD_SIZE",
			   .rank_var = "rank",
			   .local_var = "local rank",
			   .node_var = "NODE_RANK" };
	bool has_world, has_node;
	int ret;

	f.world = devices * num_nodes;
	ret = get_uint(e, "WORLD_SIZE", HT_CLUSTER_MAX_WORLD, &f.world,
		       &has_world);
	ret = ret   ?:
		      get_uint(e, "NODE_RANK", HT_CLUSTER_MAX_WORLD, &f.node,
			       &has_node);
	if (ret)
		return ret;
	if (!has_world)
		f.world_var = "the world size";
	if (num_nodes > 1 && !has_node) {
		ht_seterr(
			e->err, e->errlen,
			"NODE_RANK is not set (--num-nodes %u needs this node's index 0..%u)",
			num_nodes, num_nodes - 1);
		return -EINVAL;
	}
	f.rank = f.node * devices;
	ret = check_found(e, &f, devices, num_nodes);
	if (ret)
		return ret;
	fill_out(&f, HT_CLUSTER_PLAIN, devices, num_nodes, c);
	c->launcher_needed = devices > 1;
	ret = get_addr(e, num_nodes == 1 ? LOCALHOST : NULL,
		       "--num-nodes > 1 needs node 0's address", c);
	return ret ?: get_port(e, HT_MASTER_PORT_DEFAULT, &c->master_port);
}

int ht_cluster_detect(ht_getenv_fn getenv_fn, void *arg, uint32_t devices,
		      uint32_t num_nodes, struct ht_cluster *out, char *err,
		      size_t errlen)
{
	struct env e = { .get = getenv_fn ? getenv_fn : ht_getenv_process,
			 .arg = arg,
			 .err = err,
			 .errlen = errlen };

	memset(out, 0, sizeof(*out));
	if (!devices || !num_nodes ||
	    (uint64_t)devices * num_nodes > HT_CLUSTER_MAX_WORLD) {
		ht_seterr(
			err, errlen,
			"--devices %u x --num-nodes %u: each must be >= 1, the product at most %u",
			devices, num_nodes, HT_CLUSTER_MAX_WORLD);
		return -EINVAL;
	}
	if (has(&e, "SLURM_PROCID"))
		return detect_slurm(&e, devices, num_nodes, out);
	if (has(&e, "RANK") || has(&e, "LOCAL_RANK") || has(&e, "GROUP_RANK"))
		return detect_torchrun(&e, devices, num_nodes, out);
	if (has(&e, "OMPI_COMM_WORLD_RANK") ||
	    has(&e, "OMPI_COMM_WORLD_SIZE") ||
	    has(&e, "OMPI_COMM_WORLD_LOCAL_RANK"))
		return detect_ompi(&e, devices, num_nodes, out);
	return detect_plain(&e, devices, num_nodes, out);
}
