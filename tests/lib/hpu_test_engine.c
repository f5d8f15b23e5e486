// SPDX-License-Identifier: MIT
/*
 * hpu_test_engine.c - the fixture of the engine integration tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hpu_test_daemon.h"
#include "hpu_test_engine.h"

#define WAIT_US 20000000ULL

int hpu_test_engine_group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

int hpu_test_engine_setup(struct hpu_test_engine *e, void **state,
			  size_t cb_size, size_t span)
{
	int ret = hpu_test_need_daemon(state);

	memset(e, 0, sizeof(*e));
	if (ret)
		return ret;
	hpu_test_engine_open(e, cb_size, span);
	return 0;
}

void hpu_test_engine_open(struct hpu_test_engine *e, size_t cb_size,
			  size_t span)
{
	memset(e, 0, sizeof(*e));
	assert_int_equal(hpu_open(0, &e->dev), 0);
	assert_int_equal(hpu_info_hw_ip(e->dev, &e->ip), 0);
	assert_int_equal(hpu_cb_builder_create(e->dev, cb_size, &e->cb), 0);
	assert_int_equal(hpu_host_alloc(e->dev, span, (void **)&e->host,
					&e->host_va),
			 0);
	assert_int_equal(hpu_mem_alloc(e->dev, span, 0, 0, &e->hbm_h), 0);
	assert_int_equal(hpu_mem_map(e->dev, e->hbm_h, 0, 0, &e->hbm_va), 0);
}

void hpu_test_engine_close(struct hpu_test_engine *e)
{
	if (!e->dev)
		return;
	hpu_cb_builder_destroy(e->cb);
	assert_int_equal(hpu_mem_unmap(e->dev, e->hbm_va), 0);
	assert_int_equal(hpu_mem_free(e->dev, e->hbm_h), 0);
	assert_int_equal(hpu_host_free(e->dev, e->host), 0);
	hpu_close(e->dev);
	e->dev = NULL;
}

void hpu_test_engine_close_traced(struct hpu_test_engine *e)
{
	if (e->dev)
		hpu_trace_free(e->dev);
	hpu_test_engine_close(e);
}

uint32_t hpu_test_engine_run(struct hpu_test_engine *e, uint32_t queue)
{
	uint32_t status = 0;
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_submit(e->cb, queue, 0, 0, &seq, NULL),
			 0);
	hpu_cb_builder_reset(e->cb);
	assert_int_equal(hpu_cs_wait(e->dev, seq, WAIT_US, &status), 0);
	return status;
}
