/* SPDX-License-Identifier: MIT */
/*
 * ht_cluster.h - cluster environments: who am I in a distributed run
 *
 * Detected in this order (the first whose variables are present wins):
 *
 * 1. Slurm (srun task): SLURM_PROCID present; SLURM_NTASKS, SLURM_LOCALID,
 *    SLURM_NODEID required; MASTER_ADDR from the environment or the first
 *    host of SLURM_NODELIST; MASTER_PORT from the environment or
 *    15000 + SLURM_JOB_ID mod 10000 (HT_MASTER_PORT_DEFAULT without a
 *    job id).
 * 2. torchrun-style: any of RANK, LOCAL_RANK, GROUP_RANK present;
 *    WORLD_SIZE, RANK, LOCAL_RANK required, GROUP_RANK or NODE_RANK
 *    optional (else rank / devices), LOCAL_WORLD_SIZE checked if set,
 *    MASTER_ADDR and MASTER_PORT required when WORLD_SIZE > 1.
 * 3. Open MPI (mpirun): OMPI_COMM_WORLD_RANK present; ..._SIZE and
 *    ..._LOCAL_RANK required, ..._LOCAL_SIZE checked if set; the node index
 *    is rank / devices (ranks placed by slot). OMPI_COMM_WORLD_NODE_RANK
 *    is only checked to be a number: it counts processes of every job on
 *    the node, not nodes.
 * 4. Plain (one hpu-train per node): WORLD_SIZE, NODE_RANK, MASTER_ADDR,
 *    MASTER_PORT all optional (WORLD_SIZE = devices x num_nodes, node 0,
 *    127.0.0.1 on one node, HT_MASTER_PORT_DEFAULT); this process is the
 *    launcher of local ranks 0..devices-1 when devices > 1.
 *
 * In every case: world size = devices x num_nodes, global rank =
 * node_rank x devices + local_rank; values are decimal integers >= 0;
 * every inconsistency is an error naming the variables involved.
 * See docs/training-data.md.
 */
#ifndef HT_CLUSTER_H
#define HT_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** HT_MASTER_PORT_DEFAULT - rendezvous port when nothing says otherwise */
#define HT_MASTER_PORT_DEFAULT 29500
/** HT_MASTER_ADDR_LEN - room for MASTER_ADDR */
#define HT_MASTER_ADDR_LEN     256
/** HT_CLUSTER_MAX_WORLD - largest world size accepted */
#define HT_CLUSTER_MAX_WORLD   65536U
/** HT_NODELIST_MAX_HOSTS - most hosts a Slurm node list may expand to */
#define HT_NODELIST_MAX_HOSTS  65536U

/**
 * enum ht_cluster_env - where the rank information came from
 * @HT_CLUSTER_PLAIN: none of the launchers below (the user's own
 *                    WORLD_SIZE/NODE_RANK/MASTER_* or nothing at all)
 * @HT_CLUSTER_SLURM: srun
 * @HT_CLUSTER_TORCHRUN: torchrun or hpu-train's own launcher
 * @HT_CLUSTER_OMPI: Open MPI's mpirun
 */
enum ht_cluster_env {
	HT_CLUSTER_PLAIN = 0,
	HT_CLUSTER_SLURM = 1,
	HT_CLUSTER_TORCHRUN = 2,
	HT_CLUSTER_OMPI = 3,
};

/**
 * typedef ht_getenv_fn - read one environment variable
 * @name: the variable
 * @arg: the accessor's argument
 *
 * Return: its value, or NULL when unset.
 */
typedef const char *(*ht_getenv_fn)(const char *name, void *arg);

/**
 * struct ht_cluster - this process's place in the run
 * @env: enum ht_cluster_env
 * @world_size: processes in the run (devices x num_nodes)
 * @rank: global rank (node_rank x devices + local_rank)
 * @local_rank: rank on this node, the device index among the node's
 * @node_rank: index of this node
 * @local_world_size: processes per node (= devices)
 * @num_nodes: nodes
 * @master_addr: rendezvous host of rank 0
 * @master_port: its port
 * @launcher_needed: plain environment with more than one device: this
 *                   process must start local ranks 0..local_world_size-1
 *                   (global ranks rank + i; @rank and @local_rank describe
 *                   local rank 0) and pass them RANK, LOCAL_RANK,
 *                   WORLD_SIZE, NODE_RANK, MASTER_ADDR, MASTER_PORT
 */
struct ht_cluster {
	enum ht_cluster_env env;
	uint32_t world_size;
	uint32_t rank;
	uint32_t local_rank;
	uint32_t node_rank;
	uint32_t local_world_size;
	uint32_t num_nodes;
	char master_addr[HT_MASTER_ADDR_LEN];
	uint16_t master_port;
	bool launcher_needed;
};

/**
 * ht_getenv_process() - ht_getenv_fn over the process environment
 * @name: the variable
 * @arg: unused
 *
 * Return: getenv(@name).
 */
const char *ht_getenv_process(const char *name, void *arg);

/**
 * ht_getenv_envp() - ht_getenv_fn over an envp-style array
 * @name: the variable
 * @arg: a NULL-terminated array of "NAME=value" strings
 *
 * Return: the value of the first entry for @name, or NULL.
 */
const char *ht_getenv_envp(const char *name, void *arg);

/**
 * ht_cluster_env_name() - "slurm", "torchrun", "ompi" or "plain"
 * @env: enum ht_cluster_env
 *
 * Return: a static string.
 */
const char *ht_cluster_env_name(enum ht_cluster_env env);

/**
 * ht_cluster_detect() - work out the world, the ranks and the rendezvous
 * @getenv_fn: the environment (ht_getenv_process() or a test's own)
 * @arg: its argument
 * @devices: processes (devices) per node, from --devices (>= 1)
 * @num_nodes: nodes, from --num-nodes (>= 1)
 * @out: the result
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL with the reason in @err.
 */
int ht_cluster_detect(ht_getenv_fn getenv_fn, void *arg, uint32_t devices,
		      uint32_t num_nodes, struct ht_cluster *out, char *err,
		      size_t errlen);

/**
 * struct ht_hostlist - the hosts of an expanded node list
 * @count: number of hosts
 * @hosts: @count NUL-terminated names
 */
struct ht_hostlist {
	size_t count;
	char **hosts;
};

/**
 * ht_slurm_nodelist_expand() - expand Slurm's compressed host list
 * @list: e.g. "node[01-04,07],gpu5,rack[1-2]-n[1-2]"
 * @out: the hosts in order, freed with ht_hostlist_free()
 * @err: error message buffer
 * @errlen: size of @err
 *
 * Top-level commas separate items; each "[...]" holds comma-separated
 * numbers or lo-hi ranges, zero-padded to the width of lo when lo has
 * leading zeros; several bracket groups in one item multiply.
 *
 * Return: 0, -EINVAL for a malformed list (unbalanced or nested
 * brackets, an empty item or range, hi < lo, a non-number), -E2BIG beyond
 * HT_NODELIST_MAX_HOSTS hosts, -ENOMEM.
 */
int ht_slurm_nodelist_expand(const char *list, struct ht_hostlist *out,
			     char *err, size_t errlen);

/**
 * ht_hostlist_free() - free an expanded host list
 * @hl: the list; zeroed
 */
void ht_hostlist_free(struct ht_hostlist *hl);

#endif /* HT_CLUSTER_H */
