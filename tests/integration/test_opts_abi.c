// SPDX-License-Identifier: MIT
/*
 * test_opts_abi.c - the size rule of the libraries' options structs
 * (common/hpu_abi.h) on a real device. struct hpu_allocator_opts and
 * struct hpuccl_config accept their current size and an older, smaller
 * one (the fields past it keep their defaults, whatever the bytes there
 * hold), refuse a larger struct whose unknown tail is not zero (-E2BIG)
 * and a size that does not cover the size field (-EINVAL), creating
 * nothing; programs linked against the ABIs before the size field
 * (HPUDRV_1.1, HPUCCL_1.0) still get theirs through the compat entry
 * points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "../../libhpuccl/ccl_internal.h"
#include "../../libhpudrv/hpudrv_internal.h"
#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpu_abi.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define MiB (1024ULL * 1024)

/* A struct of a newer header: one field more */
struct alloc_opts_next {
	struct hpu_allocator_opts cur;
	uint64_t newer;
};

struct ccl_config_next {
	struct hpuccl_config cur;
	uint64_t newer;
};

static struct hpu_test_rank R;

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

static int setup(void **state)
{
	int ret = hpu_test_need_daemon(state);

	if (ret)
		return ret;
	assert_int_equal(hpu_test_rank_open(&R, 0), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hpu_test_rank_close(&R, 1);
	return 0;
}

/*
 * Bytes an allocator keeps cached after one 2 MiB block went back:
 * 0 when its cache limit (1 MiB here) applied, 2 MiB without a limit.
 */
static uint64_t cached_after_free(struct hpu_allocator *a)
{
	struct hpu_allocator_stats st;
	uint64_t va;

	assert_int_equal(hpu_alloc(a, 2 * MiB, &va), 0);
	assert_int_equal(hpu_free(a, va), 0);
	assert_int_equal(hpu_allocator_stats(a, &st), 0);
	hpu_allocator_destroy(a);
	return st.bytes_cached;
}

/* -errno of a refused create, which must leave *ap alone */
static int alloc_refused(const void *opts)
{
	struct hpu_allocator *a = (struct hpu_allocator *)&R;
	int ret = hpu_allocator_create(R.dev, opts, &a);

	assert_ptr_equal(a, (struct hpu_allocator *)&R);
	return ret;
}

static void test_alloc_opts_sizes(void **state)
{
	struct hpu_allocator_opts o = { .sz = sizeof(o),
					.max_cached_bytes = 1 * MiB };
	struct alloc_opts_next next;
	struct hpu_allocator *a;

	(void)state;
	/* the current size: every field read */
	assert_int_equal(hpu_allocator_create(R.dev, &o, &a), 0);
	assert_int_equal(cached_after_free(a), 0);

	/* older sizes: the limit (and flags) past sz are not read */
	o.flags = 1;
	o.sz = hpu_offsetofend(struct hpu_allocator_opts, max_cached_bytes);
	assert_int_equal(hpu_allocator_create(R.dev, &o, &a), 0);
	assert_int_equal(cached_after_free(a), 0);
	o.sz = sizeof(size_t);
	assert_int_equal(hpu_allocator_create(R.dev, &o, &a), 0);
	assert_int_equal(cached_after_free(a), 2 * MiB);

	/* flags inside sz are read */
	o.sz = sizeof(o);
	assert_int_equal(alloc_refused(&o), -EINVAL);
	o.flags = 0;

	/* a size that does not even cover itself */
	o.sz = 0;
	assert_int_equal(alloc_refused(&o), -EINVAL);
	o.sz = sizeof(size_t) - 1;
	assert_int_equal(alloc_refused(&o), -EINVAL);

	/* a newer, larger struct: its zero tail is fine, any other is not */
	memset(&next, 0, sizeof(next));
	next.cur = (struct hpu_allocator_opts){ .sz = sizeof(next),
						.max_cached_bytes = 1 * MiB };
	assert_int_equal(hpu_allocator_create(R.dev, &next.cur, &a), 0);
	assert_int_equal(cached_after_free(a), 0);
	next.newer = 1;
	assert_int_equal(alloc_refused(&next.cur), -E2BIG);
	next.newer = 0;
	next.cur.sz = HPU_OPTS_SZ_MAX + 1;
	assert_int_equal(alloc_refused(&next.cur), -E2BIG);
}

/* HPUDRV_1.1's layout, as a program linked then passes it */
static void test_alloc_opts_compat(void **state)
{
	struct hpu_allocator_opts_v1_1 old = { .max_cached_bytes = 1 * MiB };
	struct hpu_allocator *a;

	(void)state;
	assert_int_equal(hpu_allocator_create_v1_1(R.dev, &old, &a), 0);
	assert_int_equal(cached_after_free(a), 0);
	assert_int_equal(hpu_allocator_create_v1_1(R.dev, NULL, &a), 0);
	assert_int_equal(cached_after_free(a), 2 * MiB);
	old.flags = 1;
	assert_int_equal(hpu_allocator_create_v1_1(R.dev, &old, &a), -EINVAL);
}

/* Join a 1-rank communicator with @cfg: 0 or -errno; *@own: whether the
 * library opened a device of its own (the config's dev was not read) */
static int join(const void *cfg, bool compat, bool *own)
{
	struct hpuccl_unique_id id;
	struct hpuccl_comm *c = NULL;
	int ret;

	assert_int_equal(hpuccl_get_unique_id(&id), 0);
	if (compat)
		ret = hpuccl_comm_init_rank_config_v1_0(&c, 1, &id, 0, cfg);
	else
		ret = hpuccl_comm_init_rank_config(&c, 1, &id, 0, cfg);
	if (ret) {
		assert_null(c);
		return ret;
	}
	*own = hpuccl_comm_device(c) != R.dev;
	assert_int_equal(hpuccl_comm_destroy(c), 0);
	return 0;
}

static void test_ccl_config_sizes(void **state)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg),
				     .dev = R.dev,
				     .timeout_ms = 20000 };
	struct ccl_config_next next;
	bool own = true;

	(void)state;
	HPU_TEST_SKIP_IF(hpu_test_ccl_unavailable());
	assert_int_equal(join(&cfg, false, &own), 0);
	assert_false(own);

	/* older sizes: flags past sz not read; dev past sz not either */
	cfg.flags = 1;
	cfg.sz = hpu_offsetofend(struct hpuccl_config, timeout_ms);
	assert_int_equal(join(&cfg, false, &own), 0);
	assert_false(own);
	cfg.sz = sizeof(size_t);
	assert_int_equal(join(&cfg, false, &own), 0);
	assert_true(own);

	/* refused before anything is done */
	cfg.sz = sizeof(cfg);
	assert_int_equal(join(&cfg, false, &own), -EINVAL);
	cfg.flags = 0;
	cfg.sz = 0;
	assert_int_equal(join(&cfg, false, &own), -EINVAL);

	memset(&next, 0, sizeof(next));
	next.cur = (struct hpuccl_config){ .sz = sizeof(next),
					   .dev = R.dev,
					   .timeout_ms = 20000 };
	assert_int_equal(join(&next.cur, false, &own), 0);
	assert_false(own);
	next.newer = 1;
	assert_int_equal(join(&next.cur, false, &own), -E2BIG);
	next.newer = 0;
	next.cur.sz = HPU_OPTS_SZ_MAX + 1;
	assert_int_equal(join(&next.cur, false, &own), -E2BIG);
}

/* HPUCCL_1.0's layout, as a program linked then passes it */
static void test_ccl_config_compat(void **state)
{
	struct hpuccl_config_v1_0 old = { .dev = R.dev, .timeout_ms = 20000 };
	bool own = true;

	(void)state;
	HPU_TEST_SKIP_IF(hpu_test_ccl_unavailable());
	assert_int_equal(join(&old, true, &own), 0);
	assert_false(own);
	old.flags = 1;
	assert_int_equal(join(&old, true, &own), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_opts_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alloc_opts_compat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ccl_config_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ccl_config_compat, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
