// SPDX-License-Identifier: MIT
/*
 * test_tpc_registry.c - the TPC kernel library's descriptors
 * (struct hputpc_kernel, one table per family file libhputpc/tpc_*.c) are
 * sound: every kernel id 1..HPU_TPC_KERNEL_COUNT-1 has exactly one, with
 * a unique name, counts within HPU_TPC_MAX_*, a rule and a body; no
 * descriptor has an id out of range. The checker itself
 * (hputpc_registry_index()) is shown to catch each fault on crafted bad
 * tables. An id without a descriptor is -EINVAL from the rules and
 * -ENOSYS from the dispatcher, never a call through NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hputpc.h"
#include "hputpc_check.h"
#include "tpc_lib.h"

/* The library's own families: no fault, every id described once */
static void test_families_sound(void **state)
{
	const struct hputpc_kernel *by_id[HPU_TPC_KERNEL_COUNT];
	unsigned int fi, n = 0;
	char err[256] = "";
	uint32_t id;

	if (hputpc_registry_index(hputpc_families, hputpc_nfamilies, by_id, err,
				  sizeof(err)))
		fail_msg("libhputpc's kernel tables: %s", err);
	assert_null(by_id[0]);
	for (id = 1; id < HPU_TPC_KERNEL_COUNT; id++) {
		if (!by_id[id])
			fail_msg(
				"kernel id %u has no descriptor in libhputpc/tpc_*.c",
				id);
		assert_int_equal(by_id[id]->id, id);
		/* what the library answers is this table */
		assert_ptr_equal(hputpc_kernel_find(id), by_id[id]);
		assert_string_equal(hputpc_kernel_name(id), by_id[id]->name);
		assert_true(hputpc_has_kernel(id));
	}
	/* ids are 1..COUNT-1, each exactly once: as many descriptors */
	for (fi = 0; fi < hputpc_nfamilies; fi++)
		n += hputpc_families[fi]->count;
	assert_int_equal(n, HPU_TPC_KERNEL_COUNT - 1);
	for (id = HPU_TPC_KERNEL_COUNT; id < HPU_TPC_KERNEL_COUNT + 4; id++) {
		assert_null(hputpc_kernel_name(id));
		assert_false(hputpc_has_kernel(id));
	}
	assert_null(hputpc_kernel_name(0));
	assert_false(hputpc_has_kernel(0));
	assert_false(hputpc_has_kernel(UINT32_MAX));
}

static int rule_ok(const struct hpu_pkt_tpc_kernel *k)
{
	return 0;
}

static int body_ok(struct hputpc_ctx *c)
{
	return 0;
}

/* A sound descriptor of @id named @name */
static struct hputpc_kernel good(uint32_t id, const char *name)
{
	struct hputpc_kernel r = {
		.id = id,
		.name = name,
		.ntensors = 2,
		.nparams = 1,
		.check = rule_ok,
		.exec = body_ok,
	};

	return r;
}

/* Index two families: @a (2 kernels) and @b (1); the fault message */
static int index2(const struct hputpc_kernel *a, const struct hputpc_kernel *b,
		  const struct hputpc_kernel **by_id, char *err, size_t len)
{
	const struct hputpc_family fa = { "fa", a, 2 }, fb = { "fb", b, 1 };
	const struct hputpc_family *const fams[] = { &fa, &fb };

	err[0] = '\0';
	return hputpc_registry_index(fams, 2, by_id, err, len);
}

/* Crafted tables: each fault is caught and named */
static void test_checker_catches(void **state)
{
	const struct hputpc_kernel *by_id[HPU_TPC_KERNEL_COUNT];
	struct hputpc_kernel a[2], b[1];
	char err[256];

	/* sound: indexed, no fault */
	a[0] = good(1, "k1");
	a[1] = good(2, "k2");
	b[0] = good(HPU_TPC_KERNEL_COUNT - 1, "klast");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), 0);
	assert_ptr_equal(by_id[1], &a[0]);
	assert_ptr_equal(by_id[HPU_TPC_KERNEL_COUNT - 1], &b[0]);
	assert_null(by_id[3]);

	/* the same id in two families: the first kept, the second named */
	b[0] = good(2, "k2b");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_ptr_equal(by_id[2], &a[1]);
	assert_non_null(strstr(err, "kernel id 2"));

	/* the same id twice in one family */
	b[0] = good(3, "k3");
	a[1] = good(1, "k1b");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "already described"));

	/* an id past the uapi's count, and id 0: not indexed */
	a[1] = good(HPU_TPC_KERNEL_COUNT, "kpast");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of"));
	a[1] = good(0, "kzero");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_null(by_id[0]);

	/* a repeated name, a missing name */
	a[1] = good(2, "k3");
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "named k3"));
	a[1] = good(2, NULL);
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no name"));

	/* counts out of range */
	a[1] = good(2, "k2");
	a[1].ntensors = HPU_TPC_MAX_TENSORS + 1;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	a[1].ntensors = 0;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	a[1].ntensors = 2;
	a[1].min_tensors = 3;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	a[1].min_tensors = 0;
	a[1].nparams = HPU_TPC_MAX_PARAMS + 1;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range"));

	/* no rule, no body */
	a[1] = good(2, "k2");
	a[1].check = NULL;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no rule"));
	a[1] = good(2, "k2");
	a[1].exec = NULL;
	assert_int_equal(index2(a, b, by_id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no body"));

	/* the library's own tables, no error text wanted */
	assert_int_equal(hputpc_registry_index(hputpc_families,
					       hputpc_nfamilies, by_id, NULL,
					       0),
			 0);
}

/* An id without a descriptor is -ENOSYS from the dispatcher: nothing runs */
static void test_no_body(void **state)
{
	static const uint32_t ids[] = { 0, HPU_TPC_KERNEL_COUNT,
					HPU_TPC_KERNEL_COUNT + 1, UINT32_MAX };
	float out = 7.0f;
	struct hputpc_ctx c;
	unsigned int i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memset(&c, 0, sizeof(c));
		c.id = ids[i];
		c.nt = 1;
		c.t[0].p = (uint8_t *)&out;
		c.t[0].dtype = HPU_DTYPE_FP32;
		c.t[0].n = 1;
		assert_int_equal(hputpc_dispatch(&c), -ENOSYS);
	}
	assert_true(out == 7.0f);
}

/* ... and -EINVAL from the rules: an unknown kernel */
static void test_no_rule(void **state)
{
	static const uint32_t ids[] = { 0, HPU_TPC_KERNEL_COUNT, UINT32_MAX };
	struct hpu_pkt_tpc_kernel k;
	unsigned int i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memset(&k, 0, sizeof(k));
		k.kernel_id = ids[i];
		k.num_tensors = 1;
		k.tensors[0].dtype = HPU_DTYPE_FP32;
		assert_int_equal(hputpc_check(&k), -EINVAL);
	}
	/* the same packet with a known id passes */
	k.kernel_id = HPU_TPC_KERNEL_FILL;
	assert_int_equal(hputpc_check(&k), 0);
}

/* The host entry: an id the rules refuse is -EINVAL before any dispatch */
static void test_host_entry(void **state)
{
	struct hpu_tpc_tensor d;
	float out = 0.0f;
	uint32_t val;
	float v = 3.5f;

	memset(&d, 0, sizeof(d));
	d.addr = (uintptr_t)&out;
	d.dtype = HPU_DTYPE_FP32;
	memcpy(&val, &v, sizeof(val));
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_COUNT, &d, 1, &val, 1),
			 -EINVAL);
	assert_true(out == 0.0f);
	assert_int_equal(hputpc_exec_host(HPU_TPC_KERNEL_FILL, &d, 1, &val, 1),
			 0);
	assert_true(out == 3.5f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families_sound),
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test(test_no_body),
		cmocka_unit_test(test_no_rule),
		cmocka_unit_test(test_host_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
