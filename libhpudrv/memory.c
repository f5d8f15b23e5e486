// SPDX-License-Identifier: MIT
/*
 * memory.c - device memory, host mappings and exports (HPU_IOCTL_MEMORY).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpudrv_internal.h"

static int mem_ioctl(struct hpu_device *dev, union hpu_mem_args *args)
{
	if (!dev)
		return -EINVAL;
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_MEMORY, args);
}

int hpu_mem_alloc(struct hpu_device *dev, uint64_t size, uint64_t page_size,
		  uint32_t flags, uint64_t *handle)
{
	union hpu_mem_args args;
	int ret;

	if (!handle || !size)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_ALLOC;
	args.in.size = size;
	args.in.page_size = page_size;
	args.in.flags = flags;
	ret = mem_ioctl(dev, &args);
	if (!ret)
		*handle = args.out.handle;
	return ret;
}

int hpu_mem_free(struct hpu_device *dev, uint64_t handle)
{
	union hpu_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_FREE;
	args.in.handle = handle;
	return mem_ioctl(dev, &args);
}

int hpu_mem_map(struct hpu_device *dev, uint64_t handle, uint64_t hint,
		uint32_t flags, uint64_t *va)
{
	union hpu_mem_args args;
	int ret;

	if (!va)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_MAP;
	args.in.handle = handle;
	args.in.device_virt_addr = hint;
	args.in.flags = flags;
	ret = mem_ioctl(dev, &args);
	if (!ret)
		*va = args.out.device_virt_addr;
	return ret;
}

int hpu_mem_map_host(struct hpu_device *dev, const void *ptr, size_t size,
		     uint64_t hint, uint32_t flags, uint64_t *va)
{
	union hpu_mem_args args;
	int ret;

	if (!va || !ptr || !size)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_MAP;
	args.in.host_virt_addr = (uint64_t)(uintptr_t)ptr;
	args.in.size = size;
	args.in.device_virt_addr = hint;
	args.in.flags = flags | HPU_MEM_USERPTR;
	ret = mem_ioctl(dev, &args);
	if (!ret)
		*va = args.out.device_virt_addr;
	return ret;
}

int hpu_mem_unmap(struct hpu_device *dev, uint64_t va)
{
	union hpu_mem_args args;

	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_UNMAP;
	args.in.device_virt_addr = va;
	return mem_ioctl(dev, &args);
}

int hpu_mem_export(struct hpu_device *dev, uint64_t handle, uint64_t *export_id)
{
	union hpu_mem_args args;
	int ret;

	if (!export_id)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_EXPORT;
	args.in.handle = handle;
	ret = mem_ioctl(dev, &args);
	if (!ret)
		*export_id = args.out.export_id;
	return ret;
}

int hpu_mem_export_path(struct hpu_device *dev, uint64_t export_id, char *buf,
			size_t len)
{
	char path[HPU_PATH_LEN + 16];
	char *dir;
	size_t n;
	int ret;

	if (!dev || !buf || !len)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/export_dir", dev->info.attr_dir);
	ret = hpudrv_read_file(path, &dir, &n);
	if (ret)
		return ret;
	while (n && (dir[n - 1] == '\n' || dir[n - 1] == ' '))
		dir[--n] = '\0';
	if (!n) {
		ret = -ENOENT;
	} else if ((size_t)snprintf(buf, len, "%s/%llu", dir,
				    (unsigned long long)export_id) >= len) {
		ret = -ERANGE;
	}
	free(dir);
	return ret;
}

int hpu_mem_export_mmap(struct hpu_device *dev, uint64_t export_id, void **ptr,
			size_t *size)
{
	char path[HPU_PATH_LEN];
	struct stat st;
	void *p;
	int fd, ret;

	if (!ptr || !size)
		return -EINVAL;
	ret = hpu_mem_export_path(dev, export_id, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (st.st_size <= 0) {
		ret = -EIO;
		goto out_close;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto out_close;
	}
	*ptr = p;
	*size = (size_t)st.st_size;
out_close:
	close(fd);
	return ret;
}
