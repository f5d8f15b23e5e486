// SPDX-License-Identifier: MIT
/*
 * test_dram_size.c - a device with less HBM than its chip (hpu-fused's
 * --dram-size, firmware interface 1.7's hpu_fw_config.dram_size): the
 * model refuses a size above the chip's or not of whole DRAM pages,
 * answers the size in HW_IP_INFO and allocates no more than it; the
 * driver passes hfd_set_dram_size() to the devices it creates.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hpu_fused.h"
#include "hpusim.h"

#define MIB (1ULL << 20)

static int create(uint64_t dram_size, struct hpu_fw_device **fw)
{
	struct hpu_fw_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2");
	cfg.dram_size = dram_size;
	return hpusim_model.ops->create(&cfg, fw);
}

static void test_model_dram_size(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi2");
	struct hpu_info_hw_ip_info ip;
	struct hpu_fw_device *fw;
	struct hpu_fw_mem *mem;

	(void)state;
	assert_int_equal(create(p->dram_size + p->dram_page_size, &fw),
			 -EINVAL);
	assert_int_equal(create(64 * MIB + 4096, &fw), -EINVAL);
	assert_int_equal(create(64 * MIB, &fw), 0);
	hpusim_model.ops->hw_ip_info(fw, &ip);
	assert_int_equal(ip.dram_size, 64 * MIB);
	assert_int_equal(hpusim_model.ops->mem_alloc(fw, 66 * MIB, 0, false,
						     false, &mem),
			 -ENOMEM);
	assert_int_equal(hpusim_model.ops->mem_alloc(fw, 64 * MIB, 0, false,
						     false, &mem),
			 0);
	assert_int_equal(hpusim_model.ops->mem_free(mem), 0);
	hpusim_model.ops->destroy(fw);
	/* 0: the chip's */
	assert_int_equal(create(0, &fw), 0);
	hpusim_model.ops->hw_ip_info(fw, &ip);
	assert_int_equal(ip.dram_size, p->dram_size);
	hpusim_model.ops->destroy(fw);
}

static void test_driver_dram_size(void **state)
{
	struct hfd_driver drv;

	(void)state;
	hfd_set_dram_size(128 * MIB);
	assert_int_equal(
		hfd_driver_init(&drv, &hpusim_model, "gaudi2", 1, "/unit"), 0);
	assert_int_equal(drv.devs[0].ip.dram_size, 128 * MIB);
	hfd_driver_fini(&drv);
	hfd_set_dram_size(0);
	assert_int_equal(
		hfd_driver_init(&drv, &hpusim_model, "gaudi2", 1, "/unit"), 0);
	assert_int_equal(
		drv.devs[0].ip.dram_size,
		hpu_fw_find_profile(&hpusim_model, "gaudi2")->dram_size);
	hfd_driver_fini(&drv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_dram_size),
		cmocka_unit_test(test_driver_dram_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
