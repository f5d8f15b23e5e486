/* SPDX-License-Identifier: MIT */
/*
 * ddp.h - the DDP state shared by ddp_comm.c and ddp_bucket.c
 */
#ifndef HT_DDP_H
#define HT_DDP_H

#include "hpuccl.h"
#include "trainer_internal.h"

/**
 * struct ht_ddp_bucket - a flat run of gradients all-reduced together
 * @addr: device VA of its first gradient
 * @count: fp32 elements all-reduced (the gradients, their alignment
 *	padding and, in bucket 0, the loss slot)
 * @nparams: parameters whose gradient lives in it
 * @ready: of them, those whose gradient is final in this step
 * @launched: its allreduce was submitted in this step
 * @launch_ns: when (hpu_profile_now_ns(), profiling only)
 */
struct ht_ddp_bucket {
	uint64_t addr;
	uint64_t count;
	unsigned int nparams;
	unsigned int ready;
	bool launched;
	uint64_t launch_ns;
};

/**
 * struct ht_ddp - one rank's data-parallel state
 * @be: the backend (its stream is unset at destroy)
 * @comm: the communicator
 * @compute: stream the backend's program is submitted through
 * @comm_stream: stream of the collectives
 * @ev_compute: recorded on @compute after a bucket's gradients
 * @ev_comm: recorded on @comm_stream after the last allreduce
 * @buckets: buckets, filled in reverse parameter order
 * @nbuckets: entries
 * @next: first bucket not launched in this step (launches go in order)
 * @param_bucket: bucket of each parameter of the module
 * @armed: the current micro-step is the last of an optimizer step
 * @host_order: eager mode: the program is not submitted through @compute
 *	(every op was waited for, so the allreduce needs no dependency on
 *	it) and the optimizer starts after a host wait for the allreduces
 * @loss_slot: fp32 after bucket 0's gradients: this rank's loss share
 * @scratch: 4 fp32 of device memory for ht_ddp_allreduce_host()
 */
struct ht_ddp {
	struct ht_backend *be;
	struct hpuccl_comm *comm;
	struct hpu_stream *compute;
	struct hpu_stream *comm_stream;
	struct hpu_stream_event *ev_compute;
	struct hpu_stream_event *ev_comm;
	struct ht_ddp_bucket *buckets;
	unsigned int nbuckets;
	unsigned int next;
	unsigned int param_bucket[HT_MODULE_MAX_PARAMS];
	bool armed;
	bool host_order;
	struct ht_tensor *loss_slot;
	struct ht_tensor *scratch;
};

/**
 * ht_ddp_rank_name() - how a DDP error names the rank and its device:
 * "DDP rank 1 on hpu1 (0000:1a:00.0)" ("DDP rank 1" when the device
 * cannot say)
 * @t: the trainer
 * @buf: receives the name
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *ht_ddp_rank_name(struct ht_trainer *t, char *buf, size_t len);

#endif /* HT_DDP_H */
