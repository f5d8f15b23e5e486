// SPDX-License-Identifier: MIT
/*
 * test_tpc_registry.c - the two tables indexed by a TPC kernel id agree:
 * the operand rules (common/hpu_tpc_check.c) and the kernel bodies
 * (libhputpc/tpc_registry.c). An id with a rule but no body would pass
 * the driver's validator and then have nothing to run; the library
 * answers -ENOSYS for it instead of calling through NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "hpu_tpc_check.h"
#include "hputpc.h"

/* Every id, and a few past the end: a rule exactly where there is a body */
static void test_tables_agree(void **state)
{
	unsigned int with_body = 0;
	uint32_t id;

	for (id = 0; id < HPU_TPC_KERNEL_COUNT + 4; id++) {
		bool rule = hpu_tpc_kernel_name(id) != NULL;

		if (rule != hputpc_has_kernel(id))
			fail_msg(
				"kernel id %u: %s in common/hpu_tpc_check.c, %s in libhputpc/tpc_registry.c",
				id, rule ? "a rule" : "no rule",
				rule ? "no body" : "a body");
		with_body += hputpc_has_kernel(id);
	}
	/* ids are 1..COUNT-1, every one of them implemented */
	assert_false(hputpc_has_kernel(0));
	assert_int_equal(with_body, HPU_TPC_KERNEL_COUNT - 1);
	assert_false(hputpc_has_kernel(UINT32_MAX));
}

/* An id without a body is -ENOSYS from the dispatcher: nothing runs */
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
		cmocka_unit_test(test_tables_agree),
		cmocka_unit_test(test_no_body),
		cmocka_unit_test(test_host_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
