/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_mem.h - libhpudrv: device memory, host memory mapped to the
 * device, exported allocations, the caching device allocator
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_MEM_H
#define HPU_HPUDRV_MEM_H

#include "hpudrv_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- memory */

/**
 * hpu_mem_alloc() - allocate device memory (HPU_MEM_OP_ALLOC)
 * @dev: compute handle
 * @size: bytes, > 0; rounded up to the page size by the driver
 * @page_size: a bit of HW_IP_INFO.page_size_mask, or 0 for the default
 * @flags: HPU_MEM_CONTIGUOUS, HPU_MEM_SRAM
 * @handle: receives the allocation handle (valid in this context only)
 *
 * Return: 0; -EINVAL for bad arguments; -ENOMEM when the device is full.
 */
HPUDRV_EXPORT int hpu_mem_alloc(struct hpu_device *dev, uint64_t size,
				uint64_t page_size, uint32_t flags,
				uint64_t *handle);

/**
 * hpu_mem_free() - free an allocation
 * @dev: compute handle
 * @handle: handle from hpu_mem_alloc()
 *
 * Return: 0; -EINVAL for an unknown handle; -EBUSY while it is mapped.
 */
HPUDRV_EXPORT int hpu_mem_free(struct hpu_device *dev, uint64_t handle);

/**
 * hpu_mem_map() - map an allocation into the context's device VA space
 * @dev: compute handle
 * @handle: allocation handle
 * @hint: wanted device VA or 0 (mandatory with HPU_MEM_FIXED)
 * @flags: 0 or HPU_MEM_FIXED
 * @va: receives the device VA
 *
 * Return: 0; -EINVAL; -ENOMEM (VA space); -EEXIST (FIXED overlap).
 */
HPUDRV_EXPORT int hpu_mem_map(struct hpu_device *dev, uint64_t handle,
			      uint64_t hint, uint32_t flags, uint64_t *va);

/**
 * hpu_mem_map_host() - map host memory of this process to the device
 * @dev: compute handle
 * @ptr: start of the host range (any alignment)
 * @size: bytes, > 0
 * @hint: wanted device VA or 0 (mandatory with HPU_MEM_FIXED)
 * @flags: 0 or HPU_MEM_FIXED (HPU_MEM_USERPTR is implied)
 * @va: receives the device VA of @ptr (the offset in the page is kept)
 *
 * The pages must stay mapped in the process while the device may use
 * them; DMA to them is a copy into this process's memory.
 *
 * Return: 0; -EINVAL; -EFAULT when the range is not mapped here.
 */
HPUDRV_EXPORT int hpu_mem_map_host(struct hpu_device *dev, const void *ptr,
				   size_t size, uint64_t hint, uint32_t flags,
				   uint64_t *va);

/**
 * hpu_mem_unmap() - remove a device or host mapping
 * @dev: compute handle
 * @va: device VA returned by hpu_mem_map() or hpu_mem_map_host()
 *
 * Return: 0; -EINVAL when no mapping starts at @va.
 */
HPUDRV_EXPORT int hpu_mem_unmap(struct hpu_device *dev, uint64_t va);

/**
 * hpu_mem_export() - export an allocation as a shared-memory file
 * @dev: compute handle
 * @handle: allocation handle
 * @export_id: receives the id naming the file (hpu_mem_export_path())
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_mem_export(struct hpu_device *dev, uint64_t handle,
				 uint64_t *export_id);

/**
 * hpu_mem_export_path() - path of an exported allocation's file
 * @dev: handle of the device that exported it
 * @export_id: id from hpu_mem_export()
 * @buf: receives "EXPORT_DIR/ID" (EXPORT_DIR: attribute export_dir)
 * @len: bytes at @buf
 *
 * Return: 0; -ENOENT when the driver has no export_dir; -ERANGE.
 */
HPUDRV_EXPORT int hpu_mem_export_path(struct hpu_device *dev,
				      uint64_t export_id, char *buf,
				      size_t len);

/**
 * hpu_mem_export_mmap() - map an exported allocation into this process
 * @dev: handle of the device that exported it
 * @export_id: id from hpu_mem_export()
 * @ptr: receives the shared, read-write mapping (release with munmap(2))
 * @size: receives its size in bytes (the allocation's size)
 *
 * Return: 0 or -errno of open(2)/mmap(2).
 */
HPUDRV_EXPORT int hpu_mem_export_mmap(struct hpu_device *dev,
				      uint64_t export_id, void **ptr,
				      size_t *size);

/**
 * hpu_host_alloc() - allocate pinned host memory mapped to the device
 * @dev: compute handle
 * @size: bytes, > 0 (rounded up to 4096)
 * @ptr: receives the memory in this process (read-write, zero-filled)
 * @va: receives its device VA (HPU_MEM_OP_MAP_SHM)
 *
 * The memory is a sealed memfd that this process and the driver both map
 * shared, so DMA to and from it moves at memcpy speed, without copying
 * through this process (cudaHostAlloc). Release it with hpu_host_free();
 * hpu_close() releases what is left.
 *
 * Return: 0; -EINVAL; -ENOMEM; -errno of memfd_create(2)/mmap(2).
 */
HPUDRV_EXPORT int hpu_host_alloc(struct hpu_device *dev, size_t size,
				 void **ptr, uint64_t *va);

/**
 * hpu_host_free() - unmap pinned host memory from the device and free it
 * @dev: the handle that allocated it
 * @ptr: pointer from hpu_host_alloc()
 *
 * Return: 0; -EINVAL when @ptr is not pinned memory of @dev.
 */
HPUDRV_EXPORT int hpu_host_free(struct hpu_device *dev, void *ptr);

/* ---------------------------------------------- caching device allocator */

/** struct hpu_allocator - caching device-memory allocator (opaque) */
struct hpu_allocator;

/**
 * struct hpu_allocator_opts - hpu_allocator_create() options
 * @sz: sizeof(struct hpu_allocator_opts), set by the caller
 * @max_cached_bytes: cached (free) bytes kept at most before freed blocks
 *	go back to the device; 0 for no limit
 * @flags: must be 0
 *
 * Initialise it whole, e.g. ``struct hpu_allocator_opts o = { .sz =
 * sizeof(o), .max_cached_bytes = 1 << 30 };``. A smaller @sz (a program
 * built against an older header) leaves the fields it does not cover at
 * their defaults; a larger one (a newer header) is refused unless every
 * byte this library does not know is zero. Since HPUDRV_1.6; before, the
 * struct had no @sz (programs built then still get that ABI).
 */
struct hpu_allocator_opts {
	size_t sz;
	uint64_t max_cached_bytes;
	uint64_t flags;
};

/**
 * struct hpu_allocator_stats - allocator statistics (bytes are block
 * sizes after rounding to the size class)
 * @bytes_in_use: handed out and not freed
 * @peak_bytes_in_use: largest @bytes_in_use seen
 * @bytes_reserved: held from the device: in use plus cached
 * @bytes_cached: free blocks kept for reuse
 * @num_allocs: successful hpu_alloc() calls
 * @num_frees: successful hpu_free() calls
 * @cache_hits: allocations served from the cache
 * @cache_misses: allocations that needed a device allocation
 * @num_device_allocs: device ALLOC+MAP done
 * @num_device_frees: device UNMAP+FREE done
 * @num_ooms: device -ENOMEM seen (each emptied the cache and retried)
 */
struct hpu_allocator_stats {
	uint64_t bytes_in_use;
	uint64_t peak_bytes_in_use;
	uint64_t bytes_reserved;
	uint64_t bytes_cached;
	uint64_t num_allocs;
	uint64_t num_frees;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t num_device_allocs;
	uint64_t num_device_frees;
	uint64_t num_ooms;
};

/**
 * hpu_allocator_create() - caching allocator of mapped device memory
 * @dev: compute handle (must outlive the allocator)
 * @opts: options or NULL for the defaults
 * @ap: receives the allocator
 *
 * Size classes: powers of two from 512 B to 2 MiB; larger requests are
 * rounded up to a multiple of 2 MiB and reused for the same rounded size.
 * Thread-safe.
 *
 * Return: 0; -EINVAL (@dev or @ap NULL, @opts->sz smaller than the size
 * field, flags not 0); -E2BIG (@opts is larger than this library knows
 * and its unknown tail is not zero, or @opts->sz is above a page);
 * -ENOMEM.
 */
HPUDRV_EXPORT int hpu_allocator_create(struct hpu_device *dev,
				       const struct hpu_allocator_opts *opts,
				       struct hpu_allocator **ap);

/**
 * hpu_allocator_destroy() - return every block (cached and in use) to the
 * device and free the allocator
 * @a: allocator or NULL
 */
HPUDRV_EXPORT void hpu_allocator_destroy(struct hpu_allocator *a);

/**
 * hpu_alloc() - device memory mapped in the context
 * @a: allocator
 * @size: bytes, > 0
 * @va: receives the device VA
 *
 * Return: 0; -EINVAL; -ENOMEM after emptying the cache and retrying once.
 */
HPUDRV_EXPORT int hpu_alloc(struct hpu_allocator *a, uint64_t size,
			    uint64_t *va);

/**
 * hpu_free() - give a block back to the cache
 * @a: allocator
 * @va: VA from hpu_alloc()
 *
 * Return: 0 or -EINVAL for a VA not handed out by @a.
 */
HPUDRV_EXPORT int hpu_free(struct hpu_allocator *a, uint64_t va);

/**
 * hpu_allocator_stats() - snapshot of the statistics
 * @a: allocator
 * @stats: receives them
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_allocator_stats(struct hpu_allocator *a,
				      struct hpu_allocator_stats *stats);

/**
 * hpu_allocator_empty_cache() - return every cached block to the device
 * @a: allocator
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_allocator_empty_cache(struct hpu_allocator *a);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_MEM_H */
