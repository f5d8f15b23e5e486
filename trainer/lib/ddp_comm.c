// SPDX-License-Identifier: MIT
/*
 * ddp_comm.c - the DDP communicator of a rank: rendezvous at the
 * cluster's MASTER_ADDR:MASTER_PORT (rank 0 hosts the store), the
 * compute and communication streams, the broadcast of the parameters
 * from rank 0, and small host-value reductions (validation metrics).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "hpudrv.h"
#include "ht_error.h"

/*
 * hpuccl_unique_id_from_env() reads MASTER_ADDR/MASTER_PORT (HCCL_COMM_ID
 * first, as libhpuccl documents); the cluster info is the truth, so it is
 * put into this process's environment first.
 */
static int comm_id(struct ht_trainer *t, struct hpuccl_unique_id *id)
{
	const struct ht_cluster *c = &t->o.cluster;
	char port[16];

	snprintf(port, sizeof(port), "%u", (unsigned int)c->master_port);
	if (setenv("MASTER_ADDR",
		   c->master_addr[0] ? c->master_addr : "127.0.0.1", 1) ||
	    setenv("MASTER_PORT", port, 1))
		return -errno;
	return hpuccl_unique_id_from_env(id, (int)t->rank);
}

int ht_ddp_create(struct ht_trainer *t)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg),
				     .dev = t->dev,
				     .timeout_ms = t->o.ccl_timeout_ms };
	struct hpu_info_hw_ip_info hw;
	struct hpuccl_unique_id id;
	struct ht_ddp *d;
	uint32_t four = 4;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	t->ddp = d;
	d->be = t->be;
	ret = comm_id(t, &id);
	if (ret)
		return ht_trainer_seterr(
			t, ret,
			"DDP rank %u: no rendezvous at %s:%u (MASTER_ADDR/MASTER_PORT): %s",
			t->rank, t->o.cluster.master_addr,
			(unsigned int)t->o.cluster.master_port,
			hpuccl_strerror(ret));
	ret = hpuccl_comm_init_rank_config(&d->comm, (int)t->world, &id,
					   (int)t->rank, &cfg);
	if (ret)
		return ht_trainer_seterr(
			t, ret,
			"DDP rank %u of %u: joining the communicator at %s:%u failed: %s",
			t->rank, t->world, t->o.cluster.master_addr,
			(unsigned int)t->o.cluster.master_port,
			hpuccl_strerror(ret));
	/*
	 * compute on the program's DMA queue (0): a program submitted
	 * through it needs no WAIT there, the queue orders it; the
	 * collectives on another queue, to overlap with backward
	 */
	ret = hpu_info_hw_ip(t->dev, &hw);
	if (!ret)
		ret = hpu_stream_create(t->dev, 0, &d->compute);
	if (!ret)
		ret = hpu_stream_create(
			t->dev, hw.num_dma > 1 ? 1 : HPU_STREAM_QUEUE_AUTO,
			&d->comm_stream);
	/*
	 * the allreduce starts after the program by a fence inside its CS,
	 * not a WAIT submission (docs/libhpudrv.md, "Stream fences";
	 * HPU_STREAM_FENCE=0 in the environment turns them off). The comm
	 * stream keeps WAITs: after a collective that failed (a link down)
	 * the optimizer still runs, and the step reports the collective
	 * rather than an optimizer that waited in a fence until its timeout
	 */
	if (!ret)
		ret = hpu_stream_set_fences(d->compute, 1);
	if (!ret)
		ret = hpu_event_create(t->dev, &d->ev_compute);
	if (!ret)
		ret = hpu_event_create(t->dev, &d->ev_comm);
	/*
	 * eager mode waits for every op, so its program needs no stream:
	 * its CSs go the one-device way (no fences, no stream bookkeeping
	 * per op) and the step orders the collectives by host waits
	 * (ddp_bucket.c; docs/training.md, "DDP in eager mode")
	 */
	d->host_order = t->be->mode == HT_EXEC_EAGER;
	if (!ret && !d->host_order)
		ret = ht_backend_set_stream(t->be, d->compute);
	if (!ret)
		ret = ht_tensor_new(t->be, HT_F32, 1, &four, true, &d->scratch);
	if (ret)
		return ht_trainer_seterr(t, ret, "DDP setup failed: %s",
					 hpu_strerror(ret));
	return 0;
}

void ht_ddp_destroy(struct ht_ddp *d)
{
	if (!d)
		return;
	if (d->be)
		ht_backend_set_stream(d->be, NULL);
	if (d->comm_stream)
		hpu_stream_synchronize(d->comm_stream);
	hpuccl_comm_destroy(d->comm);
	hpu_event_destroy(d->ev_compute);
	hpu_event_destroy(d->ev_comm);
	hpu_stream_destroy(d->compute);
	hpu_stream_destroy(d->comm_stream);
	ht_tensor_free(d->loss_slot);
	ht_tensor_free(d->scratch);
	free(d->buckets);
	free(d);
}

const char *ht_ddp_rank_name(struct ht_trainer *t, char *buf, size_t len)
{
	struct hpu_device *dev = ht_backend_device(t->be);
	struct hpu_device_info info;

	if (dev && !hpu_device_describe(dev, &info))
		snprintf(buf, len, "DDP rank %u on %s (%s)", t->rank,
			 info.node_name, info.bus_id);
	else
		snprintf(buf, len, "DDP rank %u", t->rank);
	return buf;
}

static int comm_err(struct ht_trainer *t, int ret, const char *what)
{
	int a = hpuccl_comm_get_async_error(t->ddp->comm);
	char who[96];

	return ht_trainer_seterr(t, a ? a : ret, "%s: %s failed: %s",
				 ht_ddp_rank_name(t, who, sizeof(who)), what,
				 hpuccl_strerror(a ? a : ret));
}

int ht_ddp_broadcast_params(struct ht_trainer *t)
{
	struct ht_ddp *d = t->ddp;
	struct ht_module *m = t->m;
	unsigned int i;
	int ret;

	ret = ht_backend_sync(t->be);
	if (ret)
		return ht_trainer_seterr(t, ret, "%s", t->be->err);
	for (i = 0; i < m->nparams; i++) {
		ret = hpuccl_broadcast(m->params[i]->addr, m->params[i]->addr,
				       m->params[i]->numel, HPUCCL_FLOAT32, 0,
				       d->comm, d->comm_stream);
		if (ret)
			return comm_err(t, ret, "broadcast of the parameters");
	}
	ret = hpu_stream_synchronize(d->comm_stream);
	return ret ? comm_err(t, ret, "broadcast of the parameters") : 0;
}

int ht_ddp_allreduce_host(struct ht_trainer *t, float *v, unsigned int n)
{
	struct ht_ddp *d = t->ddp;
	int ret;

	if (n > 4)
		return -EINVAL;
	ret = t->be->ops->upload(t->be, d->scratch->addr, v, n * sizeof(*v));
	if (!ret)
		ret = ht_backend_sync(t->be);
	if (ret)
		return ht_trainer_seterr(t, ret, "%s", t->be->err);
	ret = hpuccl_allreduce(d->scratch->addr, d->scratch->addr, n,
			       HPUCCL_FLOAT32, HPUCCL_SUM, d->comm,
			       d->comm_stream);
	if (!ret)
		ret = hpu_stream_synchronize(d->comm_stream);
	if (ret)
		return comm_err(t, ret, "allreduce of the metrics");
	ret = t->be->ops->fetch(t->be, v, d->scratch->addr, n * sizeof(*v));
	if (!ret)
		ret = ht_backend_sync(t->be);
	return ret ? ht_trainer_seterr(t, ret, "%s", t->be->err) : 0;
}

/*
 * Every rank resumes from its own read of the checkpoint (rank 0 wrote
 * it; all ranks hold the same weights, so one file is every rank's
 * state). Check that they read the same one: the bytes of a digest of
 * (payload CRC, step) summed over the ranks are world x this rank's on
 * every rank exactly when all digests are equal (each sum < 2^24, exact
 * in fp32); a second sum tells every rank whether any saw a difference.
 */
int ht_ddp_check_resume(struct ht_trainer *t)
{
	uint32_t d = t->resumed_crc ^
		     (uint32_t)(t->resumed_step * 0x9e3779b97f4a7c15ULL >> 32);
	float v[4], mine[4], bad = 0.0f;
	unsigned int i;
	int ret;

	for (i = 0; i < 4; i++)
		v[i] = mine[i] = (float)((d >> (8 * i)) & 0xff);
	ret = ht_ddp_allreduce_host(t, v, 4);
	if (ret)
		return ret;
	for (i = 0; i < 4; i++)
		if (v[i] != mine[i] * (float)t->world)
			bad = 1.0f;
	ret = ht_ddp_allreduce_host(t, &bad, 1);
	if (ret)
		return ret;
	if (bad != 0.0f)
		return ht_trainer_seterr(
			t, -EINVAL,
			"DDP rank %u: the ranks resumed from different checkpoints (this rank: step %llu, payload CRC %08x); every rank must read the same file",
			t->rank, (unsigned long long)t->resumed_step,
			t->resumed_crc);
	return 0;
}
