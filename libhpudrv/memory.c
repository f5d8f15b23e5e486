// SPDX-License-Identifier: MIT
/*
 * memory.c - device memory, host mappings, pinned host memory and exports
 * (HPU_IOCTL_MEMORY).
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

#define HOST_PAGE 4096UL

/**
 * struct hpudrv_host - pinned host memory of a device handle
 * @ptr: mapping in this process
 * @size: bytes at @ptr
 * @va: device VA
 * @next: next of the handle
 */
struct hpudrv_host {
	void *ptr;
	size_t size;
	uint64_t va;
	struct hpudrv_host *next;
};

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

/* A sealed memfd of @size bytes: the driver refuses files that can shrink */
static int host_memfd(size_t size)
{
	int fd, ret;

	fd = memfd_create("hpu-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int hpu_host_alloc(struct hpu_device *dev, size_t size, void **ptr,
		   uint64_t *va)
{
	union hpu_mem_args args;
	struct hpudrv_host *h;
	int fd, ret;

	if (!dev || !ptr || !va || !size || size > SIZE_MAX - HOST_PAGE)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->size = (size + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
	fd = host_memfd(h->size);
	if (fd < 0) {
		ret = fd;
		goto err_free;
	}
	h->ptr = mmap(NULL, h->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h->ptr == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_MEM_OP_MAP_SHM;
	args.in.handle = (uint64_t)fd;
	args.in.size = h->size;
	ret = mem_ioctl(dev, &args);
	if (ret)
		goto err_munmap;
	/* the driver holds its own mapping: the descriptor is done */
	close(fd);
	h->va = args.out.device_virt_addr;
	pthread_mutex_lock(&dev->host_lock);
	h->next = dev->hosts;
	dev->hosts = h;
	pthread_mutex_unlock(&dev->host_lock);
	*ptr = h->ptr;
	*va = h->va;
	return 0;

err_munmap:
	munmap(h->ptr, h->size);
err_close:
	close(fd);
err_free:
	free(h);
	return ret;
}

int hpu_host_free(struct hpu_device *dev, void *ptr)
{
	struct hpudrv_host *h, **pp;
	int ret;

	if (!dev || !ptr)
		return -EINVAL;
	pthread_mutex_lock(&dev->host_lock);
	for (pp = &dev->hosts; (h = *pp); pp = &h->next)
		if (h->ptr == ptr)
			break;
	if (h)
		*pp = h->next;
	pthread_mutex_unlock(&dev->host_lock);
	if (!h)
		return -EINVAL;
	ret = hpu_mem_unmap(dev, h->va);
	munmap(h->ptr, h->size);
	free(h);
	return ret;
}

/**
 * hpudrv_host_free_all() - release the pinned host memory of a handle
 * being closed (the driver drops its mappings with the context)
 * @dev: device handle
 */
void hpudrv_host_free_all(struct hpu_device *dev)
{
	struct hpudrv_host *h;

	while ((h = dev->hosts)) {
		dev->hosts = h->next;
		munmap(h->ptr, h->size);
		free(h);
	}
}
