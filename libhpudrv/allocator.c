// SPDX-License-Identifier: MIT
/*
 * allocator.c - caching device-memory allocator: size classes, freed
 * blocks kept for reuse, device ALLOC+MAP only on a cache miss.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_abi.h"
#include "hpudrv_internal.h"

#define MIN_CLASS_SHIFT 9  /* 512 B */
#define MAX_CLASS_SHIFT 21 /* 2 MiB */
#define NUM_CLASSES	(MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1)
#define LARGE_UNIT	(1ULL << MAX_CLASS_SHIFT)
#define HASH_BUCKETS	1024
#define SMALL_PAGE	4096ULL

/**
 * struct block - one device allocation mapped at @va
 * @va: device VA
 * @handle: allocation handle
 * @size: size class bytes (a multiple of LARGE_UNIT beyond 2 MiB)
 * @in_use: handed out by hpu_alloc()
 * @next_free: free list link (classes, or the large list)
 * @next_hash: VA hash chain link
 */
struct block {
	uint64_t va;
	uint64_t handle;
	uint64_t size;
	bool in_use;
	struct block *next_free;
	struct block *next_hash;
};

/**
 * struct hpu_allocator - caching allocator
 * @ops: device backend
 * @ctx: argument of @ops
 * @small_page: page size asked for blocks below 2 MiB (0: default)
 * @max_cached: cache limit in bytes, 0 for none
 * @lock: protects everything below (held across device calls)
 * @free: free blocks per class
 * @large_free: free blocks above 2 MiB, any size
 * @hash: every block, by VA
 * @st: statistics
 */
struct hpu_allocator {
	const struct hpudrv_alloc_ops *ops;
	void *ctx;
	uint64_t small_page;
	uint64_t max_cached;
	pthread_mutex_t lock;
	struct block *free[NUM_CLASSES];
	struct block *large_free;
	struct block *hash[HASH_BUCKETS];
	struct hpu_allocator_stats st;
};

static unsigned int hash_va(uint64_t va)
{
	return (unsigned int)((va >> MIN_CLASS_SHIFT) * 0x9E3779B1U) %
	       HASH_BUCKETS;
}

/* Class index for @size, or NUM_CLASSES for large; rounds *size up. */
static int size_class(uint64_t *size)
{
	int shift = MIN_CLASS_SHIFT;

	if (*size > LARGE_UNIT) {
		*size = (*size + LARGE_UNIT - 1) & ~(LARGE_UNIT - 1);
		return NUM_CLASSES;
	}
	while ((1ULL << shift) < *size)
		shift++;
	*size = 1ULL << shift;
	return shift - MIN_CLASS_SHIFT;
}

static struct block **free_list(struct hpu_allocator *a, int cls)
{
	return cls == NUM_CLASSES ? &a->large_free : &a->free[cls];
}

static void hash_remove(struct hpu_allocator *a, struct block *b)
{
	struct block **pp = &a->hash[hash_va(b->va)];

	while (*pp && *pp != b)
		pp = &(*pp)->next_hash;
	if (*pp)
		*pp = b->next_hash;
}

static struct block *hash_find(struct hpu_allocator *a, uint64_t va)
{
	struct block *b = a->hash[hash_va(va)];

	while (b && b->va != va)
		b = b->next_hash;
	return b;
}

/* Unmap and free a block that is in no free list; drops it from the hash. */
static void device_release(struct hpu_allocator *a, struct block *b)
{
	a->ops->unmap(a->ctx, b->va);
	a->ops->free(a->ctx, b->handle);
	hash_remove(a, b);
	a->st.bytes_reserved -= b->size;
	a->st.num_device_frees++;
	free(b);
}

static void empty_cache_locked(struct hpu_allocator *a)
{
	struct block *b;
	int i;

	for (i = 0; i <= NUM_CLASSES; i++) {
		struct block **list = free_list(a, i);

		while ((b = *list)) {
			*list = b->next_free;
			a->st.bytes_cached -= b->size;
			device_release(a, b);
		}
	}
}

static int device_get(struct hpu_allocator *a, uint64_t size, struct block **bp)
{
	uint64_t page = size < LARGE_UNIT ? a->small_page : 0;
	struct block *b;
	int ret;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ret = a->ops->alloc(a->ctx, size, page, &b->handle);
	if (ret)
		goto err_free_block;
	ret = a->ops->map(a->ctx, b->handle, &b->va);
	if (ret)
		goto err_free_handle;
	b->size = size;
	*bp = b;
	return 0;

err_free_handle:
	a->ops->free(a->ctx, b->handle);
err_free_block:
	free(b);
	return ret;
}

/* A free block of exactly @size from the cache, or NULL. */
static struct block *cache_take(struct hpu_allocator *a, int cls, uint64_t size)
{
	struct block **pp = free_list(a, cls), *b;

	while (*pp && (*pp)->size != size)
		pp = &(*pp)->next_free;
	b = *pp;
	if (b) {
		*pp = b->next_free;
		a->st.bytes_cached -= b->size;
	}
	return b;
}

int hpu_alloc(struct hpu_allocator *a, uint64_t size, uint64_t *va)
{
	struct block *b;
	int cls, ret = 0;

	if (!a || !va || !size || size > (1ULL << 62))
		return -EINVAL;
	cls = size_class(&size);
	pthread_mutex_lock(&a->lock);
	b = cache_take(a, cls, size);
	if (b) {
		a->st.cache_hits++;
	} else {
		a->st.cache_misses++;
		ret = device_get(a, size, &b);
		if (ret == -ENOMEM) {
			a->st.num_ooms++;
			empty_cache_locked(a);
			ret = device_get(a, size, &b);
		}
		if (ret)
			goto out_unlock;
		b->next_hash = a->hash[hash_va(b->va)];
		a->hash[hash_va(b->va)] = b;
		a->st.bytes_reserved += b->size;
		a->st.num_device_allocs++;
	}
	b->in_use = true;
	a->st.num_allocs++;
	a->st.bytes_in_use += b->size;
	if (a->st.bytes_in_use > a->st.peak_bytes_in_use)
		a->st.peak_bytes_in_use = a->st.bytes_in_use;
	*va = b->va;
out_unlock:
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int hpu_free(struct hpu_allocator *a, uint64_t va)
{
	struct block *b, **list;
	uint64_t size;
	int ret = 0;

	if (!a)
		return -EINVAL;
	pthread_mutex_lock(&a->lock);
	b = hash_find(a, va);
	if (!b || !b->in_use) {
		ret = -EINVAL;
		goto out_unlock;
	}
	b->in_use = false;
	a->st.num_frees++;
	a->st.bytes_in_use -= b->size;
	if (a->max_cached && a->st.bytes_cached + b->size > a->max_cached) {
		device_release(a, b);
		goto out_unlock;
	}
	size = b->size;
	list = free_list(a, size_class(&size));
	b->next_free = *list;
	*list = b;
	a->st.bytes_cached += b->size;
out_unlock:
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int hpu_allocator_stats(struct hpu_allocator *a,
			struct hpu_allocator_stats *stats)
{
	if (!a || !stats)
		return -EINVAL;
	pthread_mutex_lock(&a->lock);
	*stats = a->st;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

int hpu_allocator_empty_cache(struct hpu_allocator *a)
{
	if (!a)
		return -EINVAL;
	pthread_mutex_lock(&a->lock);
	empty_cache_locked(a);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

void hpu_allocator_destroy(struct hpu_allocator *a)
{
	int i;

	if (!a)
		return;
	empty_cache_locked(a);
	for (i = 0; i < HASH_BUCKETS; i++)
		while (a->hash[i])
			device_release(a, a->hash[i]);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

int hpudrv_allocator_create_ops(const struct hpudrv_alloc_ops *ops, void *ctx,
				uint64_t small_page_size,
				const struct hpu_allocator_opts *opts,
				struct hpu_allocator **ap)
{
	struct hpu_allocator *a;
	int ret;

	if (!ops || !ap)
		return -EINVAL;
	ret = hpu_opts_check(opts,
			     hpu_offsetofend(struct hpu_allocator_opts, flags));
	if (ret)
		return ret;
	if (HPU_OPTS_GET(opts, flags, 0))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ops = ops;
	a->ctx = ctx;
	a->small_page = small_page_size;
	a->max_cached = HPU_OPTS_GET(opts, max_cached_bytes, 0);
	pthread_mutex_init(&a->lock, NULL);
	*ap = a;
	return 0;
}

/* ------------------------------------------------ the real device backend */

static int dev_alloc(void *ctx, uint64_t size, uint64_t page_size,
		     uint64_t *handle)
{
	return hpu_mem_alloc(ctx, size, page_size, 0, handle);
}

static int dev_map(void *ctx, uint64_t handle, uint64_t *va)
{
	return hpu_mem_map(ctx, handle, 0, 0, va);
}

static int dev_unmap(void *ctx, uint64_t va)
{
	return hpu_mem_unmap(ctx, va);
}

static int dev_free(void *ctx, uint64_t handle)
{
	return hpu_mem_free(ctx, handle);
}

static const struct hpudrv_alloc_ops device_alloc_ops = {
	.alloc = dev_alloc,
	.map = dev_map,
	.unmap = dev_unmap,
	.free = dev_free,
};

/* hpu_allocator_create() since HPUDRV_1.6: options with a size */
HPU_SYMVER_DEFAULT(hpu_allocator_create_v1_6, hpu_allocator_create,
		   "HPUDRV_1.6");

int hpu_allocator_create_v1_6(struct hpu_device *dev,
			      const struct hpu_allocator_opts *opts,
			      struct hpu_allocator **ap)
{
	struct hpu_info_hw_ip_info hw;
	uint64_t small = 0;

	if (!dev)
		return -EINVAL;
	if (!hpu_info_hw_ip(dev, &hw) && (hw.page_size_mask & SMALL_PAGE))
		small = SMALL_PAGE;
	return hpudrv_allocator_create_ops(&device_alloc_ops, dev, small, opts,
					   ap);
}
