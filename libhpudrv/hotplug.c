// SPDX-License-Identifier: MIT
/*
 * hotplug.c - asking hpu-fused to add or remove a simulated device
 * through its driver/hotplug file (docs/hotplug.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpudrv_internal.h"

/*
 * Writes @cmd to DIR/driver/hotplug and reads the answer into @ans.
 * Return: 0, -ENODEV when no daemon serves the directory, or -errno of
 * the write (the daemon's verdict).
 */
static int hotplug_command(const char *cmd, char *ans, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = hpudrv_driver_open("hotplug", O_RDWR);
	if (fd < 0)
		return fd;
	do {
		n = write(fd, cmd, strlen(cmd));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		goto out_close;
	}
	do {
		n = read(fd, ans, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		goto out_close;
	}
	ans[n] = '\0';
out_close:
	close(fd);
	return ret;
}

/* A chip name: 1..31 letters and digits */
static bool type_ok(const char *t)
{
	size_t n = strlen(t), i;

	if (!n || n > 31)
		return false;
	for (i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') ||
		      (t[i] >= 'A' && t[i] <= 'Z') ||
		      (t[i] >= '0' && t[i] <= '9')))
			return false;
	return true;
}

int hpu_hot_add(const char *type, int *index)
{
	char cmd[64], ans[128];
	struct hpudrv_scan s;
	unsigned int num;
	int ret;

	if (!index || (type && !type_ok(type)))
		return -EINVAL;
	snprintf(cmd, sizeof(cmd), type ? "add %s\n" : "add\n", type);
	ret = hotplug_command(cmd, ans, sizeof(ans));
	if (ret)
		return ret;
	if (sscanf(ans, "add %u", &num) != 1)
		return -EIO;
	/* the index counts the kernel devices first */
	ret = hpudrv_scan(&s);
	if (ret)
		return ret;
	*index = s.nk + (int)num;
	hpudrv_scan_free(&s);
	return 0;
}

int hpu_hot_remove(int index)
{
	struct hpu_device_info info;
	char cmd[64], ans[128];
	int ret;

	ret = hpudrv_lookup(index, false, &info);
	if (ret)
		return ret;
	if (info.kind == HPU_DEVICE_KIND_KERNEL)
		return -EOPNOTSUPP;
	snprintf(cmd, sizeof(cmd), "remove %d\n", atoi(info.node_name + 3));
	return hotplug_command(cmd, ans, sizeof(ans));
}
