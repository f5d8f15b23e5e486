// SPDX-License-Identifier: MIT
/*
 * device.c - opening and closing device nodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "hpudrv_internal.h"
#include "profile_internal.h"

#define YAMA_PTRACE_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

/*
 * The daemon copies INFO answers and user buffers with process_vm_readv/
 * writev, which Yama's ptrace_scope 1 only allows to a declared tracer:
 * declare the daemon of @info's directory (driver/pid). Best effort; a
 * root daemon does not need it.
 */
static void allow_daemon(const struct hpu_device_info *info)
{
	char path[HPU_PATH_LEN + 32], val[32];
	char *data, *end;
	size_t n;
	long pid;
	int fd;

	fd = open(YAMA_PTRACE_SCOPE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = (size_t)read(fd, val, sizeof(val) - 1) > 0 ? 1 : 0;
	close(fd);
	if (!n || val[0] != '1')
		return;
	/* node_path is DIR/hpuN: the daemon's pid is in DIR/driver/pid */
	snprintf(path, sizeof(path), "%s", info->node_path);
	end = strrchr(path, '/');
	if (!end)
		return;
	snprintf(end, sizeof(path) - (size_t)(end - path), "/driver/pid");
	if (hpudrv_read_file(path, &data, NULL))
		return;
	pid = strtol(data, &end, 10);
	if (end != data && pid > 0)
		prctl(PR_SET_PTRACER, (unsigned long)pid, 0, 0, 0);
	free(data);
}

/*
 * A compute open refused with EBUSY: the daemon runs in exclusive mode
 * and another context holds the device. Name the holder(s) from the
 * clients attribute for hpu_last_error().
 */
static void explain_busy(const struct hpu_device_info *info)
{
	char path[HPU_PATH_LEN + 64], holders[160] = "";
	struct hpu_process *procs = NULL;
	size_t off = 0;
	char *text;
	size_t len;
	int n = 0, i;

	snprintf(path, sizeof(path), "%s/clients", info->attr_dir);
	if (!hpudrv_read_file(path, &text, &len)) {
		if (hpudrv_parse_clients(text, len, &procs, &n))
			n = 0;
		free(text);
	}
	for (i = 0; i < n && off < sizeof(holders); i++) {
		int w = snprintf(holders + off, sizeof(holders) - off,
				 "%s%d (%s)", i ? ", " : "", procs[i].pid,
				 procs[i].comm);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	hpu_process_list_free(procs);
	if (n)
		hpudrv_set_error(
			"%s (index %d, module %d) is already acquired by pid %s; the device is exclusive (one compute open at a time)",
			info->node_name, info->index, info->module_id, holders);
	else
		hpudrv_set_error(
			"%s (index %d, module %d) is already acquired by another process (it may be closing); the device is exclusive (one compute open at a time)",
			info->node_name, info->index, info->module_id);
}

int hpudrv_open_node(const struct hpu_device_info *info, bool control,
		     struct hpu_device **devp)
{
	const char *path = control ? info->control_path : info->node_path;
	struct hpu_device *dev;
	int ret;

	/*
	 * A kernel device speaks the habanalabs ABI, not this library's:
	 * it is listed, never driven.
	 */
	if (info->kind == HPU_DEVICE_KIND_KERNEL)
		return -EOPNOTSUPP;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->control = control;
	dev->info = *info;
	pthread_mutex_init(&dev->host_lock, NULL);
	hpudrv_sob_init(dev);
	allow_daemon(info);
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0 && control && errno == EACCES)
		dev->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = errno == ENOENT ? -ENODEV : -errno;
		if (ret == -EBUSY && !control)
			explain_busy(info);
		goto err_free_dev;
	}
	hpudrv_ring_open(dev);
	hpudrv_profile_device_open(dev);
	*devp = dev;
	return 0;

err_free_dev:
	hpudrv_sob_fini(dev);
	pthread_mutex_destroy(&dev->host_lock);
	free(dev);
	return ret;
}

static int open_found(const struct hpu_device_info *want, int mode,
		      bool control, struct hpu_device **devp)
{
	struct hpu_device_info info;
	int ret;

	ret = hpudrv_find(want, mode, &info);
	if (ret)
		return ret;
	return hpudrv_open_node(&info, control, devp);
}

static int open_index(int index, bool control, struct hpu_device **devp)
{
	struct hpu_device_info want = { .index = index };

	if (index < 0 || !devp)
		return -EINVAL;
	return open_found(&want, HPUDRV_FIND_INDEX, control, devp);
}

static int open_bus_id(const char *bus_id, bool control,
		       struct hpu_device **devp)
{
	struct hpu_device_info want = { .index = -1 };

	if (!bus_id || !bus_id[0] || strlen(bus_id) >= sizeof(want.bus_id) ||
	    !devp)
		return -EINVAL;
	strcpy(want.bus_id, bus_id);
	return open_found(&want, HPUDRV_FIND_BUS_ID, control, devp);
}

static int open_module_id(int module_id, bool control, struct hpu_device **devp)
{
	struct hpu_device_info want = { .index = -1, .module_id = module_id };

	if (module_id < 0 || !devp)
		return -EINVAL;
	return open_found(&want, HPUDRV_FIND_MODULE_ID, control, devp);
}

int hpu_open(int index, struct hpu_device **devp)
{
	return open_index(index, false, devp);
}

int hpu_open_by_bus_id(const char *bus_id, struct hpu_device **devp)
{
	return open_bus_id(bus_id, false, devp);
}

int hpu_open_by_module_id(int module_id, struct hpu_device **devp)
{
	return open_module_id(module_id, false, devp);
}

int hpu_open_control(int index, struct hpu_device **devp)
{
	return open_index(index, true, devp);
}

int hpu_open_control_by_bus_id(const char *bus_id, struct hpu_device **devp)
{
	return open_bus_id(bus_id, true, devp);
}

int hpu_open_control_by_module_id(int module_id, struct hpu_device **devp)
{
	return open_module_id(module_id, true, devp);
}

void hpu_close(struct hpu_device *dev)
{
	if (!dev)
		return;
	hpudrv_profile_device_close(dev);
	hpudrv_ring_close(dev);
	hpudrv_host_free_all(dev);
	close(dev->fd);
	hpudrv_sob_fini(dev);
	pthread_mutex_destroy(&dev->host_lock);
	free(dev);
}

int hpu_device_fd(const struct hpu_device *dev)
{
	return dev ? dev->fd : -EINVAL;
}

int hpu_device_index(const struct hpu_device *dev)
{
	return dev ? dev->info.index : -EINVAL;
}

int hpu_device_is_control(const struct hpu_device *dev)
{
	return dev ? dev->control : -EINVAL;
}

int hpu_device_describe(const struct hpu_device *dev,
			struct hpu_device_info *info)
{
	if (!dev || !info)
		return -EINVAL;
	*info = dev->info;
	return 0;
}

int hpu_device_reset(struct hpu_device *dev, unsigned int kind)
{
	struct hpu_debug_args args;

	if (!dev || (kind != HPU_RESET_HARD && kind != HPU_RESET_COMPUTE))
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.op = HPU_DEBUG_OP_RESET;
	args.param = kind;
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_DEBUG, &args);
}
