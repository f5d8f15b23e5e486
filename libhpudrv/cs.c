// SPDX-License-Identifier: MIT
/*
 * cs.c - command buffers, command submission, WAIT_CS, events and poll.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "hpudrv_internal.h"

static int cb_ioctl(struct hpu_device *dev, union hpu_cb_args *args)
{
	if (!dev)
		return -EINVAL;
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_CB, args);
}

int hpu_cb_create(struct hpu_device *dev, void *host_ptr, uint32_t size,
		  uint64_t *handle, uint64_t *va)
{
	union hpu_cb_args args;
	int ret;

	if (!host_ptr || !handle || size < 8 || size > HPU_MAX_CB_SIZE ||
	    size % 8)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_CB_OP_CREATE;
	args.in.host_ptr = (uint64_t)(uintptr_t)host_ptr;
	args.in.cb_size = size;
	ret = cb_ioctl(dev, &args);
	if (ret)
		return ret;
	*handle = args.out.cb_handle;
	if (va)
		*va = args.out.device_va;
	return 0;
}

int hpu_cb_destroy(struct hpu_device *dev, uint64_t handle)
{
	union hpu_cb_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HPU_CB_OP_DESTROY;
	args.in.cb_handle = handle;
	return cb_ioctl(dev, &args);
}

int hpu_cb_info(struct hpu_device *dev, uint64_t handle, struct hpu_cb_out *out)
{
	union hpu_cb_args args;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_CB_OP_INFO;
	args.in.cb_handle = handle;
	ret = cb_ioctl(dev, &args);
	if (!ret)
		*out = args.out;
	return ret;
}

int hpu_cs_submit(struct hpu_device *dev, const struct hpu_cs_chunk *chunks,
		  unsigned int n, uint32_t flags, uint32_t timeout_ms,
		  uint64_t *seq, int *completed)
{
	union hpu_cs_args args;
	int ret;

	if (!dev || !chunks || !seq || !n || n > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	ret = hpudrv_ring_submit(dev, chunks, n, flags, timeout_ms, seq);
	if (ret != -ENOTCONN) {
		if (!ret && completed)
			*completed = 0;
		return ret;
	}
	memset(&args, 0, sizeof(args));
	args.in.chunks_execute = (uint64_t)(uintptr_t)chunks;
	args.in.num_chunks_execute = n;
	args.in.timeout_ms = timeout_ms;
	args.in.cs_flags = flags;
	ret = hpudrv_ioctl(dev->fd, HPU_IOCTL_CS, &args);
	if (ret)
		return ret;
	*seq = args.out.seq;
	if (completed)
		*completed = !!(args.out.flags & HPU_CS_OUT_FLAG_COMPLETED);
	return 0;
}

int hpudrv_cs_submit_async(struct hpu_device *dev,
			   const struct hpu_cs_chunk *chunks, unsigned int n,
			   uint32_t flags, uint32_t timeout_ms, uint64_t *seq)
{
	int ret;

	if (!dev || !chunks || !seq || !n || n > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	ret = hpudrv_ring_submit_async(dev, chunks, n, flags, timeout_ms, seq);
	if (ret != -ENOTCONN)
		return ret;
	return hpu_cs_submit(dev, chunks, n, flags, timeout_ms, seq, NULL);
}

int hpu_cs_submit_signal(struct hpu_device *dev, const uint32_t *queues,
			 unsigned int n, uint64_t *seq, int *completed)
{
	struct hpu_cs_chunk chunks[HPU_MAX_JOBS_PER_CS];
	unsigned int i;

	if (!queues || !n || n > HPU_MAX_JOBS_PER_CS)
		return -EINVAL;
	memset(chunks, 0, n * sizeof(chunks[0]));
	for (i = 0; i < n; i++)
		chunks[i].queue_index = queues[i];
	return hpu_cs_submit(dev, chunks, n, HPU_CS_FLAGS_SIGNAL, 0, seq,
			     completed);
}

int hpu_cs_submit_wait(struct hpu_device *dev, uint32_t queue,
		       const uint64_t *seqs, unsigned int n, uint64_t *seq,
		       int *completed)
{
	struct hpu_cs_chunk chunk;

	if (!seqs || !n || n > HPU_WAIT_MULTI_CS_MAX)
		return -EINVAL;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = (uint64_t)(uintptr_t)seqs;
	chunk.queue_index = queue;
	chunk.cb_size = n;
	return hpu_cs_submit(dev, &chunk, 1, HPU_CS_FLAGS_WAIT, 0, seq,
			     completed);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * WAIT_CS with EINTR restarted for the time left: a signal must neither
 * end the wait early nor stretch it.
 */
static int wait_ioctl(struct hpu_device *dev, uint64_t seq, uint32_t flags,
		      uint32_t len, uint64_t timeout_us,
		      struct hpu_wait_cs_out *out)
{
	uint64_t deadline = now_us() + timeout_us, left = timeout_us, t;
	union hpu_wait_cs_args args;
	int ret;

	for (;;) {
		memset(&args, 0, sizeof(args));
		args.in.seq = seq;
		args.in.timeout_us = left;
		args.in.flags = flags;
		args.in.seq_arr_len = len;
		if (ioctl(dev->fd, HPU_IOCTL_WAIT_CS, &args) == 0)
			break;
		ret = -errno;
		if (ret != -EINTR)
			return ret;
		t = now_us();
		left = t < deadline ? deadline - t : 0;
	}
	*out = args.out;
	return 0;
}

int hpu_cs_wait_timestamp(struct hpu_device *dev, uint64_t seq,
			  uint64_t timeout_us, uint32_t *status,
			  uint64_t *timestamp_ns)
{
	struct hpu_wait_cs_out out;
	int ret;

	if (!dev || !status)
		return -EINVAL;
	ret = hpudrv_ring_wait(dev, seq, timeout_us, status, timestamp_ns);
	if (ret != -ENOTCONN)
		return ret;
	ret = wait_ioctl(dev, seq, 0, 0, timeout_us, &out);
	if (ret)
		return ret;
	*status = out.status;
	if (timestamp_ns)
		*timestamp_ns = out.flags & HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD ?
					out.timestamp_nsec :
					0;
	return 0;
}

int hpu_cs_wait(struct hpu_device *dev, uint64_t seq, uint64_t timeout_us,
		uint32_t *status)
{
	return hpu_cs_wait_timestamp(dev, seq, timeout_us, status, NULL);
}

int hpu_cs_wait_multi(struct hpu_device *dev, const uint64_t *seqs,
		      unsigned int n, int any, uint64_t timeout_us,
		      uint32_t *status, uint32_t *map)
{
	struct hpu_wait_cs_out out;
	uint32_t flags = HPU_WAIT_CS_FLAGS_MULTI_CS;
	uint32_t ended;
	int ret;

	if (!dev || !seqs || !status || !n || n > HPU_WAIT_MULTI_CS_MAX)
		return -EINVAL;
	ret = hpudrv_ring_wait_multi(dev, seqs, n, any, timeout_us, status,
				     &ended);
	if (ret != -ENOTCONN) {
		if (!ret && map)
			*map = ended;
		return ret;
	}
	if (any)
		flags |= HPU_WAIT_CS_FLAGS_ANY;
	ret = wait_ioctl(dev, (uint64_t)(uintptr_t)seqs, flags, n, timeout_us,
			 &out);
	if (ret)
		return ret;
	*status = out.status;
	if (map)
		*map = out.cs_completion_map;
	return 0;
}

/* -errno for a final WAIT_CS status that is not a success */
int hpudrv_wait_status_err(uint32_t status)
{
	switch (status) {
	case HPU_WAIT_CS_STATUS_COMPLETED:
		return 0;
	case HPU_WAIT_CS_STATUS_BUSY:
		return -EBUSY;
	case HPU_WAIT_CS_STATUS_TIMEDOUT:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

int hpu_event_read(struct hpu_device *dev, struct hpu_event *events,
		   unsigned int max)
{
	ssize_t n;

	if (!dev || !events || !max)
		return -EINVAL;
	do {
		n = read(dev->fd, events, (size_t)max * sizeof(*events));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return (int)((size_t)n / sizeof(*events));
}

int hpu_device_poll(struct hpu_device *dev, short events, int timeout_ms)
{
	struct pollfd pfd;
	int n;

	if (!dev)
		return -EINVAL;
	pfd.fd = dev->fd;
	pfd.events = events;
	pfd.revents = 0;
	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return -errno;
	/* the driver answers a hot-removed device's poll with an error */
	if (n && (pfd.revents & POLLERR))
		return -ENODEV;
	return n ? pfd.revents : 0;
}
