// SPDX-License-Identifier: MIT
/*
 * main.c - hpu-train: parse the options, find the HPUs, resolve the
 * devices and this process's place in the run (ht_devices, ht_cluster),
 * then launch one worker per local device (plain environment, several
 * devices) or train as one rank.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_blas_core.h"
#include "hpu_train.h"
#include "hpudrv.h"

/*
 * HPUs visible to this process: --devices indices are positions among
 * them (HPU_VISIBLE_DEVICES=2,3 makes hpu2 index 0), so @map receives
 * the hpuN of each position.
 */
static int find_hpus(uint32_t *count, uint32_t map[HT_MAX_DEVICES])
{
	struct hpu_device_info *list = NULL;
	int n = 0, i, ret;

	ret = hpu_device_list(&list, &n);
	if (ret) {
		fprintf(stderr, HTC_PROG ": cannot list the HPUs: %s\n",
			hpu_last_error() ?: hpu_strerror(ret));
		return HTC_EXIT_USAGE;
	}
	if (n > (int)HT_MAX_DEVICES)
		n = HT_MAX_DEVICES;
	for (i = 0; i < n; i++)
		map[i] = (uint32_t)list[i].index;
	hpu_device_list_free(list);
	*count = (uint32_t)n;
	return HTC_EXIT_OK;
}

int main(int argc, char **argv)
{
	uint32_t available = 0, map[HT_MAX_DEVICES], i;
	struct ht_devices dev;
	struct ht_cluster cl;
	struct hpu_blas_core blas;
	struct htc_opts o;
	char err[512] = "";
	bool port_chosen;
	int ret;

	/* may run hpu-train again with OPENBLAS_CORETYPE set; the workers inherit it */
	hpu_blas_core_start(argv, HTC_PROG, &blas);
	ret = htc_parse(argc, argv, &o);
	if (ret == HTC_EXIT_DONE)
		return HTC_EXIT_OK;
	if (ret)
		return ret;
	if (o.req.accel != HT_ACCEL_CPU) {
		ret = find_hpus(&available, map);
		if (ret)
			return ret;
	}
	if (ht_devices_resolve(&o.req, available, &dev, err, sizeof(err))) {
		fprintf(stderr, HTC_PROG ": %s\n", err);
		return HTC_EXIT_USAGE;
	}
	if (dev.accel == HT_ACCEL_HPU)
		for (i = 0; i < dev.count; i++)
			dev.index[i] = map[dev.index[i]];
	if (ht_cluster_detect(ht_getenv_process, NULL, dev.count, dev.num_nodes,
			      &cl, err, sizeof(err))) {
		fprintf(stderr, HTC_PROG ": %s\n", err);
		return HTC_EXIT_USAGE;
	}
	/* one node, nothing said: the launcher picks a free port */
	port_chosen = cl.launcher_needed && cl.num_nodes == 1 &&
		      !getenv("MASTER_PORT");
	if (o.print_env) {
		htc_print_env(&o, &dev, &cl, port_chosen, &blas);
		return HTC_EXIT_OK;
	}
	ret = htc_check(&o, &dev, &cl);
	if (ret)
		return ret;
	if (cl.launcher_needed) {
		if (port_chosen) {
			ret = htc_free_port(&cl.master_port);
			if (ret) {
				fprintf(stderr,
					HTC_PROG ": no free port for the "
						 "rendezvous: %s\n",
					strerror(-ret));
				return HTC_EXIT_FAIL;
			}
		}
		return htc_launch(&o, &cl, argv);
	}
	if (o.benchmark)
		return htc_benchmark(&o, &dev, &cl);
	return htc_worker(&o, &dev, &cl);
}
