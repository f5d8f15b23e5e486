// SPDX-License-Identifier: MIT
/*
 * test_hpudrv_alloc.c - the caching allocator over a fake device backend:
 * size classes, reuse, statistics, cache limit, empty_cache, -ENOMEM
 * handling (empty the cache, retry once), the options' size rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hpu_abi.h"
#include "hpudrv.h"
#include "../../libhpudrv/hpudrv_internal.h"

#define MiB	     (1024ULL * 1024)
#define FAKE_HANDLES 64

/**
 * struct fake_dev - a device with a byte budget
 * @capacity: bytes it can allocate
 * @used: bytes allocated
 * @size: allocation size per handle (0: free slot); handle = index + 1
 * @mapped: whether the handle is mapped
 * @page: page size of the last alloc
 * @allocs, @frees, @maps, @unmaps: calls seen
 */
struct fake_dev {
	uint64_t capacity;
	uint64_t used;
	uint64_t size[FAKE_HANDLES];
	int mapped[FAKE_HANDLES];
	uint64_t page;
	int allocs, frees, maps, unmaps;
};

#define FAKE_VA(h) (0x100000000000ULL + (h)*0x10000000ULL)

static int fake_alloc(void *ctx, uint64_t size, uint64_t page_size,
		      uint64_t *handle)
{
	struct fake_dev *d = ctx;
	int i;

	d->allocs++;
	d->page = page_size;
	if (d->used + size > d->capacity)
		return -ENOMEM;
	for (i = 0; i < FAKE_HANDLES; i++) {
		if (!d->size[i]) {
			d->size[i] = size;
			d->used += size;
			*handle = (uint64_t)i + 1;
			return 0;
		}
	}
	return -ENOMEM;
}

static int fake_map(void *ctx, uint64_t handle, uint64_t *va)
{
	struct fake_dev *d = ctx;

	assert_true(handle >= 1 && handle <= FAKE_HANDLES);
	assert_int_not_equal(d->size[handle - 1], 0);
	assert_false(d->mapped[handle - 1]);
	d->maps++;
	d->mapped[handle - 1] = 1;
	*va = FAKE_VA(handle);
	return 0;
}

static int fake_unmap(void *ctx, uint64_t va)
{
	struct fake_dev *d = ctx;
	uint64_t h = (va - FAKE_VA(0)) / 0x10000000ULL;

	assert_true(h >= 1 && h <= FAKE_HANDLES);
	assert_true(d->mapped[h - 1]);
	d->unmaps++;
	d->mapped[h - 1] = 0;
	return 0;
}

static int fake_free(void *ctx, uint64_t handle)
{
	struct fake_dev *d = ctx;

	assert_true(handle >= 1 && handle <= FAKE_HANDLES);
	assert_false(d->mapped[handle - 1]);
	assert_int_not_equal(d->size[handle - 1], 0);
	d->frees++;
	d->used -= d->size[handle - 1];
	d->size[handle - 1] = 0;
	return 0;
}

static const struct hpudrv_alloc_ops fake_ops = {
	.alloc = fake_alloc,
	.map = fake_map,
	.unmap = fake_unmap,
	.free = fake_free,
};

static struct hpu_allocator *make(struct fake_dev *d, uint64_t capacity,
				  uint64_t max_cached)
{
	struct hpu_allocator_opts opts = { .sz = sizeof(opts),
					   .max_cached_bytes = max_cached };
	struct hpu_allocator *a = NULL;

	memset(d, 0, sizeof(*d));
	d->capacity = capacity;
	assert_int_equal(
		hpudrv_allocator_create_ops(&fake_ops, d, 4096, &opts, &a), 0);
	return a;
}

static void test_args(void **state)
{
	struct hpu_allocator_opts bad = { .sz = sizeof(bad), .flags = 1 };
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t va;

	(void)state;
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0, &bad,
						     &a),
			 -EINVAL);
	assert_int_equal(hpu_allocator_create(NULL, NULL, &a), -EINVAL);
	a = make(&d, 64 * MiB, 0);
	assert_int_equal(hpu_alloc(a, 0, &va), -EINVAL);
	assert_int_equal(hpu_alloc(NULL, 8, &va), -EINVAL);
	assert_int_equal(hpu_free(a, 0x1234), -EINVAL);
	hpu_allocator_destroy(a);
}

/* The size rule of the options (common/hpu_abi.h) over the fake device */
static void test_opts_size_rule(void **state)
{
	struct {
		struct hpu_allocator_opts cur;
		uint64_t newer;
	} next;
	struct hpu_allocator_opts o = { .sz = sizeof(o), .flags = 1 };
	struct hpu_allocator *a = NULL;
	struct fake_dev d;

	(void)state;
	memset(&d, 0, sizeof(d));
	/* flags inside sz are read, outside they are not */
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0, &o, &a),
			 -EINVAL);
	assert_null(a);
	o.sz = hpu_offsetofend(struct hpu_allocator_opts, max_cached_bytes);
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0, &o, &a),
			 0);
	hpu_allocator_destroy(a);
	a = NULL;
	o.sz = sizeof(size_t) - 1;
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0, &o, &a),
			 -EINVAL);
	memset(&next, 0, sizeof(next));
	next.cur.sz = sizeof(next);
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0,
						     &next.cur, &a),
			 0);
	hpu_allocator_destroy(a);
	a = NULL;
	next.newer = 1ULL << 63;
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0,
						     &next.cur, &a),
			 -E2BIG);
	next.newer = 0;
	next.cur.sz = HPU_OPTS_SZ_MAX + 1;
	assert_int_equal(hpudrv_allocator_create_ops(&fake_ops, &d, 0,
						     &next.cur, &a),
			 -E2BIG);
	assert_null(a);
	assert_int_equal(d.allocs, 0);
}

static void test_size_classes(void **state)
{
	struct hpu_allocator_stats st;
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t va;

	(void)state;
	a = make(&d, 64 * MiB, 0);
	assert_int_equal(hpu_alloc(a, 1, &va), 0);
	assert_int_equal(d.size[0], 512);
	assert_int_equal(d.page, 4096);
	assert_int_equal(hpu_alloc(a, 513, &va), 0);
	assert_int_equal(d.size[1], 1024);
	assert_int_equal(hpu_alloc(a, 2 * MiB, &va), 0);
	assert_int_equal(d.size[2], 2 * MiB);
	assert_int_equal(d.page, 0);
	assert_int_equal(hpu_alloc(a, 2 * MiB + 1, &va), 0);
	assert_int_equal(d.size[3], 4 * MiB);
	assert_int_equal(hpu_alloc(a, 5 * MiB, &va), 0);
	assert_int_equal(d.size[4], 6 * MiB);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.bytes_in_use, 512 + 1024 + 12 * MiB);
	assert_int_equal(st.bytes_reserved, st.bytes_in_use);
	assert_int_equal(st.num_allocs, 5);
	assert_int_equal(st.cache_misses, 5);
	assert_int_equal(st.cache_hits, 0);
	hpu_allocator_destroy(a);
	/* destroy returns blocks in use too */
	assert_int_equal(d.used, 0);
	assert_int_equal(d.unmaps, d.maps);
}

static void test_reuse_and_stats(void **state)
{
	struct hpu_allocator_stats st;
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t v1, v2, v3, v4;

	(void)state;
	a = make(&d, 64 * MiB, 0);
	assert_int_equal(hpu_alloc(a, 3000, &v1), 0);
	assert_int_equal(hpu_alloc(a, 3000, &v2), 0);
	assert_int_not_equal(v1, v2);
	assert_int_equal(hpu_free(a, v1), 0);
	assert_int_equal(hpu_free(a, v1), -EINVAL); /* double free */
	/* same class: the cached block comes back, no device call */
	assert_int_equal(hpu_alloc(a, 4096, &v3), 0);
	assert_int_equal(v3, v1);
	assert_int_equal(d.allocs, 2);
	/* another class: a miss */
	assert_int_equal(hpu_alloc(a, 100, &v4), 0);
	assert_int_equal(d.allocs, 3);
	assert_int_equal(hpu_free(a, v2), 0);
	assert_int_equal(hpu_free(a, v3), 0);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.num_allocs, 4);
	assert_int_equal(st.num_frees, 3);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.cache_misses, 3);
	assert_int_equal(st.bytes_in_use, 512);
	assert_int_equal(st.peak_bytes_in_use, 4096 + 4096 + 512);
	assert_int_equal(st.bytes_cached, 8192);
	assert_int_equal(st.bytes_reserved, 8192 + 512);

	assert_int_equal(hpu_allocator_empty_cache(a), 0);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.bytes_cached, 0);
	assert_int_equal(st.bytes_reserved, 512);
	assert_int_equal(d.used, 512);
	assert_int_equal(hpu_free(a, v4), 0);
	hpu_allocator_destroy(a);
	assert_int_equal(d.used, 0);
}

static void test_large_exact_reuse(void **state)
{
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t v1, v2;

	(void)state;
	a = make(&d, 64 * MiB, 0);
	assert_int_equal(hpu_alloc(a, 6 * MiB, &v1), 0);
	assert_int_equal(hpu_free(a, v1), 0);
	/* 8 MiB does not reuse the cached 6 MiB block */
	assert_int_equal(hpu_alloc(a, 7 * MiB + 5, &v2), 0);
	assert_int_not_equal(v1, v2);
	assert_int_equal(hpu_free(a, v2), 0);
	assert_int_equal(hpu_alloc(a, 5 * MiB, &v2), 0);
	assert_int_equal(v2, v1);
	hpu_allocator_destroy(a);
	assert_int_equal(d.used, 0);
}

static void test_oom_empties_cache(void **state)
{
	struct hpu_allocator_stats st;
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t v1, v2, v3;

	(void)state;
	a = make(&d, 8 * MiB, 0);
	assert_int_equal(hpu_alloc(a, 4 * MiB, &v1), 0);
	assert_int_equal(hpu_alloc(a, 2 * MiB, &v2), 0);
	assert_int_equal(hpu_free(a, v1), 0);
	/* 6 MiB fits only once the cached 4 MiB block is returned */
	assert_int_equal(hpu_alloc(a, 6 * MiB, &v3), 0);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.num_ooms, 1);
	assert_int_equal(st.bytes_cached, 0);
	assert_int_equal(st.bytes_reserved, 8 * MiB);
	/* nothing cached left to give: -ENOMEM after one retry */
	assert_int_equal(hpu_alloc(a, 2 * MiB, &v1), -ENOMEM);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.num_ooms, 2);
	assert_int_equal(st.num_allocs, 3);
	assert_int_equal(hpu_free(a, v2), 0);
	assert_int_equal(hpu_free(a, v3), 0);
	hpu_allocator_destroy(a);
	assert_int_equal(d.used, 0);
}

static void test_cache_limit(void **state)
{
	struct hpu_allocator_stats st;
	struct hpu_allocator *a;
	struct fake_dev d;
	uint64_t v1, v2;

	(void)state;
	a = make(&d, 64 * MiB, 3 * MiB);
	assert_int_equal(hpu_alloc(a, 2 * MiB, &v1), 0);
	assert_int_equal(hpu_alloc(a, 2 * MiB, &v2), 0);
	assert_int_equal(hpu_free(a, v1), 0);
	/* a second cached 2 MiB block would pass the 3 MiB limit */
	assert_int_equal(hpu_free(a, v2), 0);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	assert_int_equal(st.bytes_cached, 2 * MiB);
	assert_int_equal(st.num_device_frees, 1);
	assert_int_equal(d.used, 2 * MiB);
	hpu_allocator_destroy(a);
	assert_int_equal(d.used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_opts_size_rule),
		cmocka_unit_test(test_size_classes),
		cmocka_unit_test(test_reuse_and_stats),
		cmocka_unit_test(test_large_exact_reuse),
		cmocka_unit_test(test_oom_empties_cache),
		cmocka_unit_test(test_cache_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
