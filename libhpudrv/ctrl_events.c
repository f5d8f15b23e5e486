// SPDX-License-Identifier: MIT
/*
 * ctrl_events.c - the device-wide events a control handle reads
 * (HPU_CAP_CTRL_EVENTS; docs/libhpudrv.md, "Device events").
 */
#include <errno.h>
#include <poll.h>

#include "hpudrv_internal.h"

static const char *const event_names[HPU_EVENT_MAX] = {
	[HPU_EVENT_CS_TIMEOUT] = "cs_timeout",
	[HPU_EVENT_DEVICE_RESET] = "device_reset",
	[HPU_EVENT_PAGE_FAULT] = "page_fault",
	[HPU_EVENT_ENGINE_ERR] = "engine_err",
	[HPU_EVENT_LINK_DOWN] = "link_down",
	[HPU_EVENT_ECC_ERR] = "ecc_err",
	[HPU_EVENT_DEVICE_UNAVAILABLE] = "device_unavailable",
	[HPU_EVENT_NIC_ACCESS_ERR] = "nic_access_err",
	[HPU_EVENT_RING_ERR] = "ring_err",
	[HPU_EVENT_STATUS_CHANGE] = "status_change",
	[HPU_EVENT_CLOCK_CHANGE] = "clock_change",
	[HPU_EVENT_EVENTS_LOST] = "events_lost",
};

const char *hpu_event_type_name(unsigned int type)
{
	if (type >= HPU_EVENT_MAX || !event_names[type])
		return "unknown";
	return event_names[type];
}

/* Whether the driver serves device-wide events (asked once per handle) */
static int has_ctrl_events(struct hpu_device *dev)
{
	struct hpu_info_driver_version v;
	int c = __atomic_load_n(&dev->ctrl_events, __ATOMIC_RELAXED);
	int ret;

	if (c)
		return c > 0;
	ret = hpu_info_driver_version(dev, &v);
	if (ret)
		return ret;
	c = (v.capabilities & HPU_CAP_CTRL_EVENTS) ? 1 : -1;
	__atomic_store_n(&dev->ctrl_events, c, __ATOMIC_RELAXED);
	return c > 0;
}

int hpu_ctrl_event_read(struct hpu_device *dev, struct hpu_event *events,
			unsigned int max, int timeout_ms)
{
	struct pollfd pfd;
	int ret;

	if (!dev || !events || !max || timeout_ms < -1)
		return -EINVAL;
	ret = has_ctrl_events(dev);
	/* a removed device answers no INFO, but read() drains its queue */
	if (ret < 0 && ret != -ENODEV)
		return ret;
	if (!ret)
		return -EOPNOTSUPP;
	if (timeout_ms) {
		pfd.fd = dev->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		do {
			ret = poll(&pfd, 1, timeout_ms);
		} while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return -errno;
		if (!ret)
			return 0;
	}
	/* the same read as a compute context's queue */
	return hpu_event_read(dev, events, max);
}
