// SPDX-License-Identifier: MIT
/*
 * env.c - --print-env: what hpu-train resolved from the options and the
 * environment, one key=value per line (stable, for scripts and tests),
 * and a line per worker when this process is the node's launcher.
 */
#include <stdio.h>

#include "hpu_train.h"

static const char *accel_name(int accel)
{
	return accel == HT_ACCEL_HPU ? "hpu" : "cpu";
}

static const char *strategy_name(int s)
{
	return s == HT_STRATEGY_PARALLEL ? "hpu_parallel" : "single_hpu";
}

static void print_devices(const struct ht_devices *dev)
{
	uint32_t i;

	printf("devices=");
	for (i = 0; i < dev->count; i++)
		printf(dev->accel == HT_ACCEL_HPU ? "%shpu%u" : "%scpu%u",
		       i ? "," : "",
		       dev->accel == HT_ACCEL_HPU ? dev->index[i] : i);
	printf("\n");
}

void htc_print_env(const struct htc_opts *o, const struct ht_devices *dev,
		   const struct ht_cluster *cl, bool port_chosen,
		   const struct hpu_blas_core *blas)
{
	char line[256];
	uint32_t i;

	(void)o;
	printf("environment=%s\n", ht_cluster_env_name(cl->env));
	printf("accelerator=%s\n", accel_name(dev->accel));
	print_devices(dev);
	printf("strategy=%s\n", strategy_name(dev->strategy));
	printf("world_size=%u\n", cl->world_size);
	printf("num_nodes=%u\n", cl->num_nodes);
	printf("node_rank=%u\n", cl->node_rank);
	printf("local_world_size=%u\n", cl->local_world_size);
	printf("rank=%u\n", cl->rank);
	printf("local_rank=%u\n", cl->local_rank);
	printf("master_addr=%s\n", cl->master_addr);
	if (port_chosen)
		printf("master_port=free\n");
	else
		printf("master_port=%u\n", cl->master_port);
	printf("launcher=%s\n", cl->launcher_needed ? "yes" : "no");
	if (cl->launcher_needed)
		for (i = 0; i < cl->local_world_size; i++)
			printf("worker=RANK=%u LOCAL_RANK=%u WORLD_SIZE=%u "
			       "NODE_RANK=%u device=%s%u\n",
			       cl->rank + i, i, cl->world_size, cl->node_rank,
			       accel_name(dev->accel),
			       dev->accel == HT_ACCEL_HPU ? dev->index[i] : i);
	else
		printf("device=%s%u\n", accel_name(dev->accel),
		       dev->accel == HT_ACCEL_HPU ?
			       dev->index[cl->local_rank % dev->count] :
			       cl->local_rank);
	hpu_blas_core_describe(blas, line, sizeof(line));
	printf("blas_core=%s\n", blas->running);
	printf("blas=%s\n", line);
}
