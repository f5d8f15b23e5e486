// SPDX-License-Identifier: MIT
/*
 * ioctl.c - the one ioctl wrapper and the typed INFO queries.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "hpudrv_internal.h"

/* Restarts allowed for one ioctl before its EINTR/EAGAIN is returned */
#define HPUDRV_IOCTL_RETRIES   1000
/* Back-off between EAGAIN restarts */
#define HPUDRV_EAGAIN_SLEEP_NS 50000L

int hpudrv_ioctl(int fd, unsigned long request, void *arg)
{
	struct timespec ts = { 0, HPUDRV_EAGAIN_SLEEP_NS };
	int i;

	for (i = 0; i < HPUDRV_IOCTL_RETRIES; i++) {
		if (ioctl(fd, request, arg) == 0)
			return 0;
		if (errno == EAGAIN)
			nanosleep(&ts, NULL);
		else if (errno != EINTR)
			return -errno;
	}
	return -errno;
}

/* INFO @op into @out; @full_size (may be NULL) gets the answer's size */
static int info_full(int fd, unsigned int op, unsigned int period_ms, void *out,
		     size_t size, size_t *full_size)
{
	struct hpu_info_args args;
	int ret;

	memset(out, 0, size);
	memset(&args, 0, sizeof(args));
	args.return_pointer = (__u64)(uintptr_t)out;
	args.return_size = (__u32)size;
	args.op = op;
	args.period_ms = period_ms;
	ret = hpudrv_ioctl(fd, HPU_IOCTL_INFO, &args);
	if (!ret && full_size)
		*full_size = args.full_size;
	return ret;
}

int hpudrv_info(int fd, unsigned int op, unsigned int period_ms, void *out,
		size_t size)
{
	return info_full(fd, op, period_ms, out, size, NULL);
}

int hpu_info(struct hpu_device *dev, unsigned int op, unsigned int period_ms,
	     void *out, size_t size, size_t *full_size)
{
	if (!dev || !out || !size || size > UINT32_MAX)
		return -EINVAL;
	return info_full(dev->fd, op, period_ms, out, size, full_size);
}

static int info(struct hpu_device *dev, unsigned int op, void *out, size_t size)
{
	if (!dev || !out)
		return -EINVAL;
	return hpudrv_info(dev->fd, op, 0, out, size);
}

int hpu_info_hw_ip(struct hpu_device *dev, struct hpu_info_hw_ip_info *out)
{
	return info(dev, HPU_INFO_HW_IP_INFO, out, sizeof(*out));
}

int hpu_info_dram_usage(struct hpu_device *dev, struct hpu_info_dram_usage *out)
{
	return info(dev, HPU_INFO_DRAM_USAGE, out, sizeof(*out));
}

int hpu_info_hw_idle(struct hpu_device *dev, struct hpu_info_hw_idle *out)
{
	return info(dev, HPU_INFO_HW_IDLE, out, sizeof(*out));
}

int hpu_info_device_status(struct hpu_device *dev,
			   struct hpu_info_device_status *out)
{
	return info(dev, HPU_INFO_DEVICE_STATUS, out, sizeof(*out));
}

int hpu_info_utilization(struct hpu_device *dev, unsigned int period_ms,
			 struct hpu_info_device_utilization *out)
{
	if (!dev || !out || period_ms < HPU_INFO_PERIOD_MS_MIN ||
	    period_ms > HPU_INFO_PERIOD_MS_MAX)
		return -EINVAL;
	return hpudrv_info(dev->fd, HPU_INFO_DEVICE_UTILIZATION, period_ms, out,
			   sizeof(*out));
}

int hpu_info_clk_rate(struct hpu_device *dev, struct hpu_info_clk_rate *out)
{
	return info(dev, HPU_INFO_CLK_RATE, out, sizeof(*out));
}

int hpu_info_reset_count(struct hpu_device *dev,
			 struct hpu_info_reset_count *out)
{
	return info(dev, HPU_INFO_RESET_COUNT, out, sizeof(*out));
}

int hpu_info_time_sync(struct hpu_device *dev, struct hpu_info_time_sync *out)
{
	return info(dev, HPU_INFO_TIME_SYNC, out, sizeof(*out));
}

int hpu_info_cs_counters(struct hpu_device *dev,
			 struct hpu_info_cs_counters *out)
{
	return info(dev, HPU_INFO_CS_COUNTERS, out, sizeof(*out));
}

int hpu_info_power(struct hpu_device *dev, struct hpu_info_power *out)
{
	return info(dev, HPU_INFO_POWER, out, sizeof(*out));
}

int hpu_info_thermal(struct hpu_device *dev, struct hpu_info_thermal *out)
{
	return info(dev, HPU_INFO_THERMAL, out, sizeof(*out));
}

int hpu_info_open_stats(struct hpu_device *dev, struct hpu_info_open_stats *out)
{
	return info(dev, HPU_INFO_OPEN_STATS, out, sizeof(*out));
}

int hpu_info_get_events(struct hpu_device *dev, struct hpu_info_events *out)
{
	return info(dev, HPU_INFO_GET_EVENTS, out, sizeof(*out));
}

int hpu_info_pci(struct hpu_device *dev, struct hpu_info_pci *out)
{
	return info(dev, HPU_INFO_PCI_INFO, out, sizeof(*out));
}

int hpu_info_driver_version(struct hpu_device *dev,
			    struct hpu_info_driver_version *out)
{
	return info(dev, HPU_INFO_DRIVER_VERSION, out, sizeof(*out));
}

int hpu_info_ctx_limits(struct hpu_device *dev, struct hpu_info_ctx_limits *out)
{
	return info(dev, HPU_INFO_CTX_LIMITS, out, sizeof(*out));
}

/* hpu-fused --limit names, by HPU_CTX_LIMIT_* */
static const char *const ctx_limit_names[HPU_CTX_LIMIT_NUM] = {
	[HPU_CTX_LIMIT_CBS] = "cbs",
	[HPU_CTX_LIMIT_ALLOCS] = "allocs",
	[HPU_CTX_LIMIT_DEVICE_MAPS] = "device_maps",
	[HPU_CTX_LIMIT_HOST_MAPS] = "host_maps",
	[HPU_CTX_LIMIT_SHM_MAPS] = "shm_maps",
	[HPU_CTX_LIMIT_PINNED_BYTES] = "pinned_bytes",
	[HPU_CTX_LIMIT_CS_IN_FLIGHT] = "cs_in_flight",
	[HPU_CTX_LIMIT_EVENTS] = "events",
	[HPU_CTX_LIMIT_NIC_MRS] = "nic_mrs",
	[HPU_CTX_LIMIT_NIC_CONNS] = "nic_conns",
	[HPU_CTX_LIMIT_WAITERS] = "waiters",
	[HPU_CTX_LIMIT_TRACE_BYTES] = "trace_bytes",
};

const char *hpu_ctx_limit_name(unsigned int id)
{
	return id < HPU_CTX_LIMIT_NUM ? ctx_limit_names[id] : NULL;
}
