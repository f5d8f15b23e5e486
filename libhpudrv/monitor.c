// SPDX-License-Identifier: MIT
/*
 * monitor.c - hpu_monitor: devices coming and going, from a udev monitor
 * (kernel accel devices) and from the driver/events file of hpu-fused
 * (simulated devices), behind one pollable descriptor (docs/hotplug.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libudev.h>

#include "hpudrv_internal.h"

/**
 * struct hpu_monitor - a watch on visible devices
 * @epfd: epoll descriptor over @umon's and @simfd's (hpu_monitor_fd())
 * @udev: libudev context, or NULL without kernel source
 * @umon: udev monitor of subsystem "accel", or NULL
 * @simfd: DIR/driver/events of hpu-fused, or -1 when not watched
 * @known: visible devices as last seen (the fields of removal events)
 * @nknown: entries of @known
 * @q: changes not yet taken by hpu_monitor_next()
 * @qhead: first untaken entry of @q
 * @qlen: entries of @q
 *
 * A monitor is used by one thread at a time.
 */
struct hpu_monitor {
	int epfd;
	struct udev *udev;
	struct udev_monitor *umon;
	int simfd;
	struct hpu_device_info *known;
	int nknown;
	struct hpu_monitor_event *q;
	int qhead;
	int qlen;
};

static int queue_event(struct hpu_monitor *mon, int action,
		       const struct hpu_device_info *info)
{
	struct hpu_monitor_event *nq, *ev;

	if (mon->qhead == mon->qlen)
		mon->qhead = mon->qlen = 0;
	nq = realloc(mon->q, (size_t)(mon->qlen + 1) * sizeof(*nq));
	if (!nq)
		return -ENOMEM;
	mon->q = nq;
	ev = &mon->q[mon->qlen++];
	memset(ev, 0, sizeof(*ev));
	ev->action = action;
	ev->index = info->index;
	ev->kind = info->kind;
	ev->info = *info;
	return 0;
}

static int known_find(const struct hpu_monitor *mon, int kind,
		      const char *node_name)
{
	int i;

	for (i = 0; i < mon->nknown; i++)
		if (mon->known[i].kind == kind &&
		    !strcmp(mon->known[i].node_name, node_name))
			return i;
	return -1;
}

static void known_del(struct hpu_monitor *mon, int i)
{
	memmove(&mon->known[i], &mon->known[i + 1],
		(size_t)(mon->nknown - i - 1) * sizeof(*mon->known));
	mon->nknown--;
}

static int known_put(struct hpu_monitor *mon, const struct hpu_device_info *in)
{
	struct hpu_device_info *nk;
	int i = known_find(mon, in->kind, in->node_name);

	if (i < 0) {
		nk = realloc(mon->known,
			     (size_t)(mon->nknown + 1) * sizeof(*nk));
		if (!nk)
			return -ENOMEM;
		mon->known = nk;
		i = mon->nknown++;
	}
	mon->known[i] = *in;
	return 0;
}

/* After a kernel device came or went: the indices of the known ones */
static void reindex_known(struct hpu_monitor *mon, const struct hpudrv_scan *s)
{
	struct hpu_device_info *k;
	int i, j;

	for (i = 0; i < mon->nknown; i++) {
		k = &mon->known[i];
		if (k->kind == HPU_DEVICE_KIND_SIMULATED) {
			k->index = s->nk + atoi(k->node_name + 3);
			continue;
		}
		for (j = 0; j < s->nk; j++)
			if (!strcmp(s->kdevs[j].node_name, k->node_name))
				k->index = j;
	}
}

static int report_removed(struct hpu_monitor *mon, int i, int action)
{
	int ret = queue_event(mon, action, &mon->known[i]);

	known_del(mon, i);
	return ret;
}

/* One uevent of subsystem accel */
static int handle_uevent(struct hpu_monitor *mon, struct udev_device *d)
{
	const char *action = udev_device_get_action(d);
	const char *name = udev_device_get_sysname(d);
	struct hpu_device_info info;
	struct hpudrv_scan s;
	int i, ret, act;

	if (!action || !name)
		return 0;
	if (!strcmp(action, "add"))
		act = HPU_MONITOR_ADD;
	else if (!strcmp(action, "remove"))
		act = HPU_MONITOR_REMOVE;
	else if (!strcmp(action, "change"))
		act = HPU_MONITOR_CHANGE;
	else
		return 0; /* bind, unbind, move, ... */
	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	i = known_find(mon, HPU_DEVICE_KIND_KERNEL, name);
	if (act == HPU_MONITOR_REMOVE) {
		/* unknown: not habanalabs, or hidden */
		if (i >= 0)
			ret = report_removed(mon, i, act);
		reindex_known(mon, &s);
		goto out_free_scan;
	}
	for (i = 0; i < s.nk; i++)
		if (!strcmp(s.kdevs[i].node_name, name))
			break;
	if (i == s.nk) /* not a habanalabs accelN, or gone again */
		goto out_free_scan;
	reindex_known(mon, &s);
	if (hpudrv_visible_in(&s, i) != 1)
		goto out_free_scan;
	info = s.kdevs[i];
	/* an "add" of a device already reported says nothing new */
	if (act == HPU_MONITOR_ADD &&
	    known_find(mon, HPU_DEVICE_KIND_KERNEL, name) >= 0)
		goto out_free_scan;
	ret = known_put(mon, &info);
	if (!ret)
		ret = queue_event(mon, act, &info);
out_free_scan:
	hpudrv_scan_free(&s);
	return ret;
}

static void sim_close(struct hpu_monitor *mon)
{
	if (mon->simfd < 0)
		return;
	epoll_ctl(mon->epfd, EPOLL_CTL_DEL, mon->simfd, NULL);
	close(mon->simfd);
	mon->simfd = -1;
}

/* The daemon is gone: its devices are removed, nothing more to watch */
static int sim_gone(struct hpu_monitor *mon)
{
	int i = 0, ret = 0;

	sim_close(mon);
	while (i < mon->nknown) {
		if (mon->known[i].kind != HPU_DEVICE_KIND_SIMULATED) {
			i++;
			continue;
		}
		if (report_removed(mon, i, HPU_MONITOR_REMOVE))
			ret = -ENOMEM;
	}
	return ret;
}

/* Changes were lost from the daemon's log: compare with the directory */
static int sim_resync(struct hpu_monitor *mon)
{
	struct hpu_device_info *list;
	int n, i, j, ret;

	ret = hpu_device_list(&list, &n);
	if (ret)
		return ret;
	for (i = 0; i < mon->nknown;) {
		if (mon->known[i].kind != HPU_DEVICE_KIND_SIMULATED) {
			i++;
			continue;
		}
		for (j = 0; j < n; j++)
			if (list[j].kind == HPU_DEVICE_KIND_SIMULATED &&
			    !strcmp(list[j].node_name, mon->known[i].node_name))
				break;
		if (j < n) {
			i++;
			continue;
		}
		ret = report_removed(mon, i, HPU_MONITOR_REMOVE);
		if (ret)
			goto out_free_list;
	}
	for (j = 0; j < n; j++) {
		if (list[j].kind != HPU_DEVICE_KIND_SIMULATED ||
		    known_find(mon, list[j].kind, list[j].node_name) >= 0)
			continue;
		ret = known_put(mon, &list[j]);
		if (!ret)
			ret = queue_event(mon, HPU_MONITOR_ADD, &list[j]);
		if (ret)
			break;
	}
out_free_list:
	hpu_device_list_free(list);
	return ret;
}

/* A simulated device was added: describe it (it may be gone again) */
static int sim_added(struct hpu_monitor *mon, int num)
{
	struct hpu_device_info info;
	struct hpudrv_scan s;
	char name[HPU_NAME_LEN];
	int ret, index;

	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	index = s.nk + num;
	if (hpudrv_visible_in(&s, index) != 1)
		goto out_free_scan;
	ret = hpudrv_scan_info(&s, index, true, &info);
	if (ret == -ENODEV)
		ret = hpudrv_sim_info(s.dir, num, index, false, &info);
	if (ret)
		goto out_free_scan;
	/* already reported (found by a resync): nothing new */
	snprintf(name, sizeof(name), "hpu%d", num);
	if (known_find(mon, HPU_DEVICE_KIND_SIMULATED, name) >= 0)
		goto out_free_scan;
	ret = known_put(mon, &info);
	if (!ret)
		ret = queue_event(mon, HPU_MONITOR_ADD, &info);
out_free_scan:
	hpudrv_scan_free(&s);
	return ret;
}

/* One line "SEQ ACTION ARG" of driver/events */
static int handle_line(struct hpu_monitor *mon, const char *line)
{
	char action[16], name[HPU_NAME_LEN];
	unsigned long long seq;
	unsigned int arg;
	int i;

	if (sscanf(line, "%llu %15s %u", &seq, action, &arg) != 3)
		return -EIO;
	if (!strcmp(action, "overflow"))
		return sim_resync(mon);
	if (arg >= 1U << 16)
		return -EIO;
	if (!strcmp(action, "add"))
		return sim_added(mon, (int)arg);
	if (!strcmp(action, "remove")) {
		snprintf(name, sizeof(name), "hpu%u", arg);
		i = known_find(mon, HPU_DEVICE_KIND_SIMULATED, name);
		return i < 0 ? 0 : report_removed(mon, i, HPU_MONITOR_REMOVE);
	}
	return 0; /* a change the library does not know yet */
}

static int drain_sim(struct hpu_monitor *mon)
{
	char buf[4097], *line, *nl;
	ssize_t n;
	int ret;

	while (mon->simfd >= 0) {
		n = read(mon->simfd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return sim_gone(mon);
		buf[n] = '\0';
		for (line = buf; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				break;
			*nl = '\0';
			ret = handle_line(mon, line);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int drain_udev(struct hpu_monitor *mon)
{
	struct udev_device *d;
	int ret = 0;

	if (!mon->umon)
		return 0;
	while (!ret && (d = udev_monitor_receive_device(mon->umon))) {
		ret = handle_uevent(mon, d);
		udev_device_unref(d);
	}
	return ret;
}

static int watch_fd(struct hpu_monitor *mon, int fd)
{
	struct epoll_event e = { .events = EPOLLIN };

	e.data.fd = fd;
	return epoll_ctl(mon->epfd, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

static int watch_udev(struct hpu_monitor *mon)
{
	mon->udev = udev_new();
	if (!mon->udev)
		return 0;
	mon->umon = udev_monitor_new_from_netlink(mon->udev, "udev");
	if (!mon->umon)
		return 0; /* no netlink here: no kernel source */
	if (udev_monitor_filter_add_match_subsystem_devtype(mon->umon, "accel",
							    NULL) ||
	    udev_monitor_enable_receiving(mon->umon)) {
		udev_monitor_unref(mon->umon);
		mon->umon = NULL;
		return 0;
	}
	return watch_fd(mon, udev_monitor_get_fd(mon->umon));
}

static int watch_sim(struct hpu_monitor *mon)
{
	int fd = hpudrv_driver_open("events", O_RDONLY | O_NONBLOCK);

	if (fd < 0) /* no daemon: nothing simulated to watch */
		return fd == -ENODEV ? 0 : fd;
	mon->simfd = fd;
	return watch_fd(mon, mon->simfd);
}

int hpu_monitor_create(struct hpu_monitor **monp)
{
	struct hpu_monitor *mon;
	int ret;

	if (!monp)
		return -EINVAL;
	hpudrv_clear_error();
	ret = hpudrv_visible_check();
	if (ret < 0)
		return ret;
	mon = calloc(1, sizeof(*mon));
	if (!mon)
		return -ENOMEM;
	mon->simfd = -1;
	mon->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (mon->epfd < 0) {
		ret = -errno;
		free(mon);
		return ret;
	}
	ret = watch_udev(mon);
	if (!ret)
		ret = watch_sim(mon);
	/* the sources first, then the list: no change falls in between */
	if (!ret)
		ret = hpu_device_list(&mon->known, &mon->nknown);
	if (ret) {
		hpu_monitor_destroy(mon);
		return ret;
	}
	*monp = mon;
	return 0;
}

int hpu_monitor_fd(const struct hpu_monitor *mon)
{
	return mon ? mon->epfd : -EINVAL;
}

int hpu_monitor_next(struct hpu_monitor *mon, struct hpu_monitor_event *ev)
{
	int ret;

	if (!mon || !ev)
		return -EINVAL;
	if (mon->qhead == mon->qlen) {
		ret = drain_udev(mon);
		if (!ret)
			ret = drain_sim(mon);
		if (ret && mon->qhead == mon->qlen)
			return ret;
	}
	if (mon->qhead == mon->qlen)
		return -EAGAIN;
	*ev = mon->q[mon->qhead++];
	return 0;
}

void hpu_monitor_destroy(struct hpu_monitor *mon)
{
	if (!mon)
		return;
	sim_close(mon);
	if (mon->umon)
		udev_monitor_unref(mon->umon);
	if (mon->udev)
		udev_unref(mon->udev);
	close(mon->epfd);
	hpu_device_list_free(mon->known);
	free(mon->q);
	free(mon);
}
