// SPDX-License-Identifier: MIT
/*
 * trace.c - engine traces of a context (HPU_IOCTL_TRACE, ABI 1.5;
 * uapi/hpu_trace.h, docs/tracing.md): thin wrappers that fill struct
 * hpu_trace_in and hand back struct hpu_trace_out.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hpudrv_internal.h"

/* One TRACE call; @st (may be NULL) gets the answer */
static int trace_call(struct hpu_device *dev, uint32_t op, uint32_t capacity,
		      struct hpu_trace_event *ev, uint32_t max,
		      struct hpu_trace_out *st)
{
	union hpu_trace_args args;
	int ret;

	if (!dev)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = op;
	args.in.capacity = capacity;
	args.in.events_ptr = (__u64)(uintptr_t)ev;
	args.in.max_events = max;
	ret = hpudrv_ioctl(dev->fd, HPU_IOCTL_TRACE, &args);
	if (ret)
		return ret;
	if (st)
		*st = args.out;
	return 0;
}

int hpu_trace_start(struct hpu_device *dev, uint32_t capacity)
{
	return trace_call(dev, HPU_TRACE_OP_START, capacity, NULL, 0, NULL);
}

int hpu_trace_stop(struct hpu_device *dev)
{
	return trace_call(dev, HPU_TRACE_OP_STOP, 0, NULL, 0, NULL);
}

int hpu_trace_read(struct hpu_device *dev, struct hpu_trace_event *ev,
		   size_t max, struct hpu_trace_out *st)
{
	struct hpu_trace_out out;
	int ret;

	if (!ev || !max)
		return -EINVAL;
	if (max > HPU_TRACE_MAX_CAPACITY)
		max = HPU_TRACE_MAX_CAPACITY;
	ret = trace_call(dev, HPU_TRACE_OP_READ, 0, ev, (uint32_t)max, &out);
	if (ret)
		return ret;
	if (st)
		*st = out;
	return (int)out.events;
}

int hpu_trace_status(struct hpu_device *dev, struct hpu_trace_out *st)
{
	if (!st)
		return -EINVAL;
	return trace_call(dev, HPU_TRACE_OP_STATUS, 0, NULL, 0, st);
}

int hpu_trace_free(struct hpu_device *dev)
{
	return trace_call(dev, HPU_TRACE_OP_FREE, 0, NULL, 0, NULL);
}
