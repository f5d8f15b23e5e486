// SPDX-License-Identifier: MIT
/*
 * trace.c - HPU_IOCTL_TRACE (ABI 1.5; uapi/hpu_trace.h, docs/tracing.md):
 * a context's engine traces, recorded by the model (firmware interface
 * 1.5) in bounded rings of its address space, one per engine queue.
 *
 * START charges the rings' memory (capacity x engines x 80 bytes) to the
 * context's trace_bytes limit before the model reserves them; FREE gives
 * it back; the context's teardown (as_destroy) frees the rings with it.
 * READ copies the oldest events out through a daemon buffer and takes
 * them from the rings only once the copy to the client succeeded: a READ
 * answered -EFAULT leaves every event where it was.
 *
 * The TRACE calls of one context are serialized by its trace_lock, which
 * orders a START's charge against a FREE and keeps a READ's peek, copy
 * and consume together; the copy to the client holds no other lock, so a
 * client that stalls it holds up only its own TRACE calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_fused.h"
#include "hpu_fused_uaccess.h"
#include "hpu_mem.h"
#include "hpu_trace.h"

/**
 * hfd_device_has_trace() - whether the model records engine traces
 * (firmware interface 1.5) besides submissions
 * @dev: device
 */
bool hfd_device_has_trace(const struct hfd_device *dev)
{
	const struct hpu_fw_ops *o = dev->model->ops;

	return hfd_device_has_cs(dev) &&
	       hfd_fw_if_minor_in_use(dev->model) >= 5 && o->cs_submit_seq &&
	       o->trace_start && o->trace_stop && o->trace_peek &&
	       o->trace_consume && o->trace_status && o->trace_free;
}

/**
 * hfd_fw_cs_submit() - hand the jobs of a CS to the model, with its
 * sequence number where the model records traces
 * @ctx: context (as_lock held for reading, @ctx->as set)
 * @jobs: jobs
 * @njobs: entries of @jobs
 * @cookie: the struct hfd_cs
 * @seq: its sequence number
 *
 * Return: what the model's cs_submit returns.
 */
int hfd_fw_cs_submit(struct hfd_ctx *ctx, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie, uint64_t seq)
{
	const struct hpu_fw_ops *o = CTX_OPS(ctx);

	if (hfd_fw_if_minor_in_use(ctx->dev->model) >= 5 && o->cs_submit_seq)
		return o->cs_submit_seq(ctx->as, jobs, njobs, cookie, seq);
	return o->cs_submit(ctx->as, jobs, njobs, cookie);
}

/**
 * hfd_trace_check() - the values of a TRACE input
 * @in: input whose unused members hfd_args_check() found 0
 *
 * Return: 0, or -EINVAL for flags, a START capacity that is neither 0 nor
 * a power of two within HPU_TRACE_MIN_CAPACITY..HPU_TRACE_MAX_CAPACITY,
 * or a READ without a buffer or with max_events outside
 * 1..HPU_TRACE_MAX_CAPACITY.
 */
int hfd_trace_check(const struct hpu_trace_in *in)
{
	uint32_t c = in->capacity;

	if (in->flags || in->reserved)
		return -EINVAL;
	switch (in->op) {
	case HPU_TRACE_OP_START:
		if (c && (c < HPU_TRACE_MIN_CAPACITY ||
			  c > HPU_TRACE_MAX_CAPACITY || (c & (c - 1))))
			return -EINVAL;
		return 0;
	case HPU_TRACE_OP_READ:
		if (!in->events_ptr || !in->max_events ||
		    in->max_events > HPU_TRACE_MAX_CAPACITY)
			return -EINVAL;
		return 0;
	case HPU_TRACE_OP_STOP:
	case HPU_TRACE_OP_STATUS:
	case HPU_TRACE_OP_FREE:
		return 0;
	default:
		return -EINVAL;
	}
}

/* Bytes of the rings of @capacity events per queue of @dev */
static uint64_t rings_bytes(const struct hfd_device *dev, uint32_t capacity)
{
	return (uint64_t)capacity * dev->profile->num_queues *
	       sizeof(struct hpu_trace_event);
}

static int trace_start(struct hfd_ctx *ctx, uint32_t capacity)
{
	const struct hpu_fw_ops *o = CTX_OPS(ctx);
	uint64_t bytes, held;
	int ret;

	if (!capacity)
		capacity = HPU_TRACE_DEFAULT_CAPACITY;
	bytes = rings_bytes(ctx->dev, capacity);
	held = __atomic_load_n(&ctx->lim_used[HPU_CTX_LIMIT_TRACE_BYTES],
			       __ATOMIC_RELAXED);
	if (held) /* rings are reserved: the model keeps or refuses them */
		return o->trace_start(ctx->as, capacity);
	ret = hfd_ctx_charge(ctx, HPU_CTX_LIMIT_TRACE_BYTES, bytes);
	if (ret)
		return ret;
	ret = o->trace_start(ctx->as, capacity);
	if (ret)
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_TRACE_BYTES, bytes);
	return ret;
}

static void trace_free(struct hfd_ctx *ctx)
{
	uint64_t held;

	CTX_OPS(ctx)->trace_free(ctx->as);
	held = __atomic_load_n(&ctx->lim_used[HPU_CTX_LIMIT_TRACE_BYTES],
			       __ATOMIC_RELAXED);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_TRACE_BYTES, held);
}

/* Run @fn on the context's address space under its as_lock: -ENODEV gone */
static int with_as(struct hfd_ctx *ctx, int (*fn)(struct hfd_ctx *, void *),
		   void *arg)
{
	int ret;

	pthread_rwlock_rdlock(&ctx->as_lock);
	ret = ctx->as ? fn(ctx, arg) : -ENODEV;
	pthread_rwlock_unlock(&ctx->as_lock);
	return ret;
}

/* What a READ hands between its steps */
struct read_step {
	struct hpu_trace_event *ev;
	uint32_t max;
	uint64_t *pos;
};

static int read_peek(struct hfd_ctx *ctx, void *arg)
{
	struct read_step *r = arg;

	return CTX_OPS(ctx)->trace_peek(ctx->as, r->ev, r->max, r->pos);
}

static int read_consume(struct hfd_ctx *ctx, void *arg)
{
	struct read_step *r = arg;

	CTX_OPS(ctx)->trace_consume(ctx->as, r->pos);
	return 0;
}

/*
 * READ: the oldest events copied out to the caller (no lock but the
 * context's trace_lock held meanwhile), taken from the rings only once
 * they landed
 */
static int trace_read(const struct hfd_ioctl_call *call,
		      const struct hpu_trace_in *in, uint64_t *events)
{
	struct hfd_ctx *ctx = call->ctx;
	struct read_step r = { .max = in->max_events };
	int n, ret = 0;

	*events = 0;
	r.ev = malloc((size_t)in->max_events * sizeof(*r.ev));
	r.pos = calloc(ctx->dev->profile->num_queues, sizeof(*r.pos));
	if (!r.ev || !r.pos) {
		ret = -ENOMEM;
		goto out;
	}
	n = with_as(ctx, read_peek, &r);
	if (n <= 0) {
		ret = n;
		goto out;
	}
	ret = hfd_copy_to_user(call->pid, in->events_ptr, r.ev,
			       (size_t)n * sizeof(*r.ev));
	if (!ret)
		ret = with_as(ctx, read_consume, &r);
	if (!ret)
		*events = (uint64_t)n;
out:
	free(r.pos);
	free(r.ev);
	return ret;
}

/* START, STOP, FREE or STATUS on the context's address space */
static int trace_ctl(struct hfd_ctx *ctx, void *arg)
{
	const struct hpu_trace_in *in = arg;

	switch (in->op) {
	case HPU_TRACE_OP_START:
		return trace_start(ctx, in->capacity);
	case HPU_TRACE_OP_STOP:
		CTX_OPS(ctx)->trace_stop(ctx->as);
		return 0;
	case HPU_TRACE_OP_FREE:
		trace_free(ctx);
		return 0;
	default:
		return 0;
	}
}

static int trace_status(struct hfd_ctx *ctx, void *arg)
{
	CTX_OPS(ctx)->trace_status(ctx->as, arg);
	return 0;
}

/* One op of the context (its trace_lock held) */
static int trace_op(const struct hfd_ioctl_call *call,
		    const struct hpu_trace_in *in, struct hpu_trace_out *out)
{
	struct hfd_ctx *ctx = call->ctx;
	uint64_t events = 0;
	int ret;

	if (in->op == HPU_TRACE_OP_READ)
		ret = trace_read(call, in, &events);
	else
		ret = with_as(ctx, trace_ctl, (void *)in);
	if (!ret)
		ret = with_as(ctx, trace_status, out);
	if (ret)
		return ret;
	out->events = events;
	out->reserved = 0;
	return 0;
}

/**
 * hfd_ioctl_trace() - HPU_IOCTL_TRACE handler
 * @call: context and requesting thread
 * @data: union hpu_trace_args, updated in place
 *
 * Return: 0; -EINVAL (bad values); -EOPNOTSUPP (a model without traces);
 * -EBUSY (START with another capacity while rings are reserved); -ENOSPC
 * (the trace_bytes limit); -ENOMEM; -EFAULT (READ: nothing was taken);
 * -ENODEV (torn down).
 */
int hfd_ioctl_trace(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_trace_args *args = data;
	struct hpu_trace_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hpu_trace_out out;
	int ret;

	ret = hfd_trace_check(&in);
	if (ret)
		return ret;
	if (!hfd_device_has_trace(dev))
		return -EOPNOTSUPP;
	memset(&out, 0, sizeof(out));
	pthread_mutex_lock(&ctx->trace_lock);
	ret = trace_op(call, &in, &out);
	pthread_mutex_unlock(&ctx->trace_lock);
	if (ret)
		return ret;
	args->out = out;
	return 0;
}
