// SPDX-License-Identifier: MIT
/*
 * test_fw_profiles.c - libhpusim: chip profiles, device life cycle,
 * HW_IP_INFO, busy accounting, utilization and the telemetry model.
 *
 * Time-dependent tests drive the device with a controllable clock
 * (hpusim_device_create), so every expected value is exact.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hpusim.h"

#define MS  1000000ULL
#define SEC 1000000000ULL
#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

/* Fake clock: tests move it by hand; starts well after 0 */
static uint64_t fake_clock(void *arg)
{
	return *(uint64_t *)arg;
}

struct fake_dev {
	uint64_t now;
	struct hpu_fw_device *dev;
};

static void fake_dev_create(struct fake_dev *f, const char *profile)
{
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, profile),
		.index = 2,
		.module_id = 5,
		.serial = "TEST-0002",
	};

	assert_non_null(cfg.profile);
	f->now = 10 * SEC;
	assert_int_equal(
		hpusim_device_create(&cfg, fake_clock, &f->now, &f->dev), 0);
}

static uint32_t util(struct fake_dev *f, uint32_t period_ms)
{
	uint32_t pct = ~0U;

	assert_int_equal(hpusim_model.ops->utilization(f->dev, period_ms, &pct),
			 0);
	return pct;
}

static struct hpu_fw_telemetry sample(struct fake_dev *f)
{
	struct hpu_fw_telemetry t;

	hpusim_model.ops->telemetry(f->dev, &t);
	return t;
}

/* ------------------------------------------------------------ model */

static void test_model_identity(void **state)
{
	const struct hpu_fw_profile *const *p;
	int n = 0;

	assert_string_equal(hpusim_model.name, "hpusim");
	assert_int_equal(hpusim_model.if_major, HPU_FW_IF_MAJOR);
	assert_int_equal(hpusim_model.if_minor, HPU_FW_IF_MINOR);
	assert_string_equal(hpusim_model.version, "hpusim " HPU_VERSION);
	assert_true(strlen(hpusim_model.version) < 32);
	assert_non_null(hpusim_model.ops);
	for (p = hpusim_model.profiles; *p; p++)
		n++;
	assert_int_equal(n, 3);
}

static void test_find_profile(void **state)
{
	static const char *const names[] = { "gaudi", "gaudi2", "gaudi3" };
	const struct hpu_fw_profile *p;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = hpu_fw_find_profile(&hpusim_model, names[i]);
		assert_non_null(p);
		assert_string_equal(p->name, names[i]);
	}
	assert_null(hpu_fw_find_profile(&hpusim_model, "gaudi4"));
	assert_null(hpu_fw_find_profile(&hpusim_model, "GAUDI2"));
	assert_null(hpu_fw_find_profile(&hpusim_model, ""));
	assert_null(hpu_fw_find_profile(&hpusim_model, NULL));
	assert_null(hpu_fw_find_profile(NULL, "gaudi2"));
}

/* --------------------------------------------------------- profiles */

static void test_profile_gaudi(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi");

	assert_non_null(p);
	assert_string_equal(p->card_name, "HL-205");
	assert_int_equal(p->device_type, HPU_DEVICE_GAUDI);
	assert_int_equal(p->server_type, HPU_SERVER_HLS1);
	assert_int_equal(p->pci_device_id, 0x1000);
	assert_int_equal(p->dram_size, 32 * GiB);
	assert_int_equal(p->sram_size, 24 * MiB);
	assert_int_equal(p->num_tpc, 8);
	assert_int_equal(p->num_mme, 1);
	assert_int_equal(p->num_nic_ports, 10);
	assert_int_equal(p->max_power_mw, 350000);
	assert_int_equal(p->pcie_speed_mts, 16000);
	assert_int_equal(p->pcie_width, 16);
}

static void test_profile_gaudi2(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi2");

	assert_non_null(p);
	assert_string_equal(p->card_name, "HL-225");
	assert_int_equal(p->device_type, HPU_DEVICE_GAUDI2);
	assert_int_equal(p->server_type, HPU_SERVER_HLS2);
	assert_int_equal(p->pci_device_id, 0x1020);
	assert_int_equal(p->dram_size, 96 * GiB);
	assert_int_equal(p->sram_size, 48 * MiB);
	assert_int_equal(p->num_tpc, 24);
	assert_int_equal(p->num_mme, 2);
	assert_int_equal(p->num_nic_ports, 24);
	assert_int_equal(p->max_power_mw, 600000);
	assert_int_equal(p->pcie_speed_mts, 16000);
	assert_int_equal(p->pcie_width, 16);
}

static void test_profile_gaudi3(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi3");

	assert_non_null(p);
	assert_string_equal(p->card_name, "HL-325L");
	assert_int_equal(p->device_type, HPU_DEVICE_GAUDI3);
	assert_int_equal(p->server_type, HPU_SERVER_HLS3);
	assert_int_equal(p->pci_device_id, 0x1060);
	assert_int_equal(p->dram_size, 128 * GiB);
	assert_int_equal(p->sram_size, 96 * MiB);
	assert_int_equal(p->num_tpc, 64);
	assert_int_equal(p->num_mme, 8);
	assert_int_equal(p->num_nic_ports, 24);
	assert_int_equal(p->max_power_mw, 900000);
	assert_int_equal(p->pcie_speed_mts, 32000);
	assert_int_equal(p->pcie_width, 16);
}

/* Figures every profile must get right whatever its chip */
static void test_profiles_sane(void **state)
{
	const struct hpu_fw_profile *const *pp;

	for (pp = hpusim_model.profiles; *pp; pp++) {
		const struct hpu_fw_profile *p = *pp;
		uint32_t engines = hpusim_profile_engines(p);

		assert_true(hpusim_profile_is_known(p));
		assert_true(engines <= HPUSIM_MAX_ENGINES);
		assert_true(p->num_dma >= 1 && p->num_dma <= 32);
		assert_int_equal(p->num_queues, engines);
		/* default page size is one of the supported ones */
		assert_true(p->dram_page_size &&
			    !(p->dram_page_size & (p->dram_page_size - 1)));
		assert_true(p->page_size_mask & p->dram_page_size);
		assert_true(p->page_size_mask & 4096);
		/* HBM and SRAM do not overlap and HBM is page aligned */
		assert_true(p->sram_base + p->sram_size <= p->dram_base ||
			    p->dram_base + p->dram_size <= p->sram_base);
		assert_int_equal(p->dram_base % p->dram_page_size, 0);
		assert_true(p->idle_power_mw < p->max_power_mw);
		assert_true(p->clk_idle_mhz <= p->clk_max_mhz);
		assert_true(p->temp_ambient_mc < p->temp_slowdown_mc);
		assert_true(p->temp_slowdown_mc < p->temp_shutdown_mc);
		/* full load must settle below the slowdown threshold */
		assert_true(p->temp_ambient_mc + (int64_t)p->max_power_mw /
							 1000 *
							 p->temp_per_watt_mc <
			    p->temp_slowdown_mc);
	}
}

/* ------------------------------------------------------------ device */

static void test_hw_ip_info(void **state)
{
	const struct hpu_fw_profile *const *pp;

	for (pp = hpusim_model.profiles; *pp; pp++) {
		const struct hpu_fw_profile *p = *pp;
		struct hpu_fw_config cfg = {
			.profile = p,
			.index = 1,
			.module_id = 7,
		};
		struct hpu_info_hw_ip_info info;
		struct hpu_fw_device *dev = NULL;

		assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
		assert_non_null(dev);
		memset(&info, 0xa5, sizeof(info));
		hpusim_model.ops->hw_ip_info(dev, &info);

		assert_int_equal(__builtin_popcountll(info.tpc_enabled_mask),
				 p->num_tpc);
		assert_int_equal(__builtin_popcountll(info.nic_ports_mask),
				 p->num_nic_ports);
		assert_int_equal(__builtin_popcount(info.mme_enabled_mask),
				 p->num_mme);
		assert_int_equal(__builtin_popcount(info.dma_enabled_mask),
				 p->num_dma);
		assert_int_equal(info.num_tpc, p->num_tpc);
		assert_int_equal(info.num_mme, p->num_mme);
		assert_int_equal(info.num_dma, p->num_dma);
		assert_int_equal(info.num_nic_ports, p->num_nic_ports);
		assert_int_equal(info.num_queues, p->num_queues);
		assert_int_equal(info.dram_base_address, p->dram_base);
		assert_int_equal(info.dram_size, p->dram_size);
		assert_int_equal(info.sram_base_address, p->sram_base);
		assert_int_equal(info.sram_size, p->sram_size);
		assert_int_equal(info.dram_page_size, p->dram_page_size);
		assert_int_equal(info.page_size_mask, p->page_size_mask);
		assert_int_equal(info.device_id, p->pci_device_id);
		assert_int_equal(info.device_type, p->device_type);
		assert_int_equal(info.revision_id, p->revision_id);
		assert_int_equal(info.server_type, p->server_type);
		assert_int_equal(info.module_id, 7);
		assert_int_equal(info.max_cs_chunks, HPU_MAX_JOBS_PER_CS);
		assert_int_equal(info.max_power_mw, p->max_power_mw);
		assert_int_equal(info.clk_max_mhz, p->clk_max_mhz);
		assert_int_equal(info.pad, 0);
		assert_int_equal(info.reserved, 0);
		assert_non_null(
			memchr(info.card_name, 0, sizeof(info.card_name)));
		assert_string_equal((char *)info.card_name, p->card_name);
		assert_non_null(
			memchr(info.fw_version, 0, sizeof(info.fw_version)));
		assert_string_equal((char *)info.fw_version,
				    hpusim_model.version);
		/* the bytes after the NUL are zero, not left over */
		assert_int_equal(info.card_name[sizeof(info.card_name) - 1], 0);

		hpusim_model.ops->destroy(dev);
	}
}

static void test_create_bad_config(void **state)
{
	const struct hpu_fw_profile *g2 =
		hpu_fw_find_profile(&hpusim_model, "gaudi2");
	struct hpu_fw_profile foreign = *g2;
	struct hpu_fw_device *dev = (struct hpu_fw_device *)&foreign;
	struct hpu_fw_config cfg = { .profile = g2 };
	char long_serial[64];

	assert_int_equal(hpusim_model.ops->create(NULL, &dev), -EINVAL);
	assert_int_equal(hpusim_model.ops->create(&cfg, NULL), -EINVAL);

	cfg.profile = NULL;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), -EINVAL);

	/* a copy of a profile is not one of the model's */
	cfg.profile = &foreign;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), -EINVAL);

	cfg.profile = g2;
	cfg.module_id = 8;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), -EINVAL);

	cfg.module_id = 0;
	memset(long_serial, 'x', sizeof(long_serial) - 1);
	long_serial[sizeof(long_serial) - 1] = '\0';
	cfg.serial = long_serial;
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), -EINVAL);

	/* failed creates leave the caller's pointer alone */
	assert_ptr_equal(dev, (struct hpu_fw_device *)&foreign);

	cfg.serial = "OK-1";
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
	assert_string_equal(dev->serial, "OK-1");
	hpusim_model.ops->destroy(dev);
	hpusim_model.ops->destroy(NULL);
}

static void test_engine_ids(void **state)
{
	struct fake_dev f;
	const struct hpu_fw_profile *p;

	fake_dev_create(&f, "gaudi3");
	p = f.dev->profile;
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_DMA, 0), 0);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_MME, 0),
			 p->num_dma);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_TPC, 63),
			 p->num_dma + p->num_mme + 63);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_NIC, 23),
			 hpusim_profile_engines(p) - 1);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_TPC, 64),
			 -EINVAL);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_MME, 8),
			 -EINVAL);
	assert_int_equal(hpusim_engine_id(f.dev, HPUSIM_ENGINE_CLASSES, 0),
			 -EINVAL);
	hpusim_model.ops->destroy(f.dev);
}

static void test_device_time(void **state)
{
	struct fake_dev f;
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi"),
	};
	struct hpu_fw_device *dev;
	uint64_t t1, t2;

	fake_dev_create(&f, "gaudi2");
	assert_int_equal(hpusim_model.ops->device_time_ns(f.dev), 0);
	f.now += 1234567;
	assert_int_equal(hpusim_model.ops->device_time_ns(f.dev), 1234567);
	hpusim_model.ops->destroy(f.dev);

	/* the real clock never goes backwards */
	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
	t1 = hpusim_model.ops->device_time_ns(dev);
	t2 = hpusim_model.ops->device_time_ns(dev);
	assert_true(t2 >= t1);
	hpusim_model.ops->destroy(dev);
}

/* ------------------------------------------------ busy / utilization */

static void test_utilization_period(void **state)
{
	struct fake_dev f;
	uint32_t pct = 77;

	fake_dev_create(&f, "gaudi2");
	assert_int_equal(hpusim_model.ops->utilization(f.dev, 0, &pct),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->utilization(f.dev, 99, &pct),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->utilization(f.dev, 1001, &pct),
			 -EINVAL);
	assert_int_equal(hpusim_model.ops->utilization(f.dev, 100, NULL),
			 -EINVAL);
	assert_int_equal(pct, 77);
	assert_int_equal(util(&f, 100), 0);
	assert_int_equal(util(&f, 1000), 0);
	hpusim_model.ops->destroy(f.dev);
}

static void test_utilization_intervals(void **state)
{
	struct fake_dev f;
	uint64_t t0;

	fake_dev_create(&f, "gaudi2");
	t0 = f.now;

	/* engine 0 busy [0, 300) ms, engine 5 busy [200, 500) ms */
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 0), 0);
	f.now = t0 + 200 * MS;
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 5), 0);
	f.now = t0 + 300 * MS;
	assert_int_equal(hpusim_engine_busy_end(f.dev, 0), 0);
	f.now = t0 + 500 * MS;
	assert_int_equal(hpusim_engine_busy_end(f.dev, 5), 0);

	/* engine 1 busy [700, 800) ms */
	f.now = t0 + 700 * MS;
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 1), 0);
	f.now = t0 + 800 * MS;
	assert_int_equal(hpusim_engine_busy_end(f.dev, 1), 0);

	f.now = t0 + 1000 * MS;
	/* union of [0,500) and [700,800) over the last second: 60 % */
	assert_int_equal(util(&f, 1000), 60);
	/* last 400 ms = [600,1000): 100 ms busy */
	assert_int_equal(util(&f, 400), 25);
	/* last 100 ms = [900,1000): idle */
	assert_int_equal(util(&f, 100), 0);

	/* the window slides: 500 ms later only [700,800) is in [500,1500) */
	f.now = t0 + 1500 * MS;
	assert_int_equal(util(&f, 1000), 10);
	f.now = t0 + 2000 * MS;
	assert_int_equal(util(&f, 1000), 0);
	hpusim_model.ops->destroy(f.dev);
}

static void test_utilization_open_and_young(void **state)
{
	struct fake_dev f;
	uint64_t t0;

	fake_dev_create(&f, "gaudi");
	t0 = f.now;

	/* the device is 100 ms old and was busy all of it */
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 3), 0);
	/* beginning twice is one busy period */
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 3), 0);
	f.now = t0 + 100 * MS;
	assert_int_equal(util(&f, 100), 100);
	/* time before creation counts as idle */
	assert_int_equal(util(&f, 1000), 10);

	/* still running: a busy period counts up to now */
	f.now = t0 + 1000 * MS;
	assert_int_equal(util(&f, 1000), 100);
	assert_int_equal(hpusim_engine_busy_end(f.dev, 3), 0);
	/* ending an idle engine changes nothing */
	assert_int_equal(hpusim_engine_busy_end(f.dev, 3), 0);
	f.now = t0 + 1250 * MS;
	assert_int_equal(util(&f, 1000), 75);
	hpusim_model.ops->destroy(f.dev);
}

static void test_busy_bad_engine(void **state)
{
	struct fake_dev f;
	uint32_t n;

	fake_dev_create(&f, "gaudi2");
	n = f.dev->num_engines;
	assert_int_equal(hpusim_engine_busy_begin(f.dev, n), -EINVAL);
	assert_int_equal(hpusim_engine_busy_end(f.dev, n), -EINVAL);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, ~0U), -EINVAL);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, n - 1), 0);
	assert_int_equal(hpusim_engine_busy_end(f.dev, n - 1), 0);
	hpusim_model.ops->destroy(f.dev);
}

/* More busy periods in a second than the ring holds stay bounded */
static void test_utilization_ring_full(void **state)
{
	struct fake_dev f;
	uint32_t i, pct;

	fake_dev_create(&f, "gaudi2");
	/* 100 us busy, 100 us idle, 2 * HPUSIM_BUSY_RING times */
	for (i = 0; i < 2 * HPUSIM_BUSY_RING; i++) {
		assert_int_equal(hpusim_engine_busy_begin(f.dev, 0), 0);
		f.now += 100000;
		assert_int_equal(hpusim_engine_busy_end(f.dev, 0), 0);
		f.now += 100000;
	}
	assert_true(f.dev->tm.ring_len <= HPUSIM_BUSY_RING);
	/* the last 100 ms are fully in the ring: exact */
	assert_int_equal(util(&f, 100), 50);
	/* older periods were merged, never lost */
	pct = util(&f, 1000);
	assert_true(pct >= 50 && pct <= 100);
	hpusim_model.ops->destroy(f.dev);
}

static void test_hw_idle(void **state)
{
	struct fake_dev f;
	uint64_t mask[4];
	int tpc0;

	fake_dev_create(&f, "gaudi3");
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, NULL), 1);
	memset(mask, 0xff, sizeof(mask));
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, mask), 1);
	assert_int_equal(mask[0] | mask[1] | mask[2] | mask[3], 0);

	tpc0 = hpusim_engine_id(f.dev, HPUSIM_ENGINE_TPC, 0);
	assert_true(tpc0 >= 0);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, (uint32_t)tpc0), 0);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 70), 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, mask), 0);
	assert_int_equal(mask[tpc0 / 64], 1ULL << (tpc0 % 64));
	assert_int_equal(mask[1], 1ULL << (70 - 64));
	assert_int_equal(mask[2] | mask[3], 0);

	assert_int_equal(hpusim_engine_busy_end(f.dev, (uint32_t)tpc0), 0);
	assert_int_equal(hpusim_engine_busy_end(f.dev, 70), 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, mask), 1);
	hpusim_model.ops->destroy(f.dev);
}

static void test_reset(void **state)
{
	struct fake_dev f;
	uint64_t mask[4], t0;
	struct hpu_fw_telemetry before, after;

	fake_dev_create(&f, "gaudi2");
	t0 = f.now;
	assert_int_equal(hpusim_model.ops->reset(f.dev, false), 0);
	assert_int_equal(hpusim_model.ops->reset(NULL, false), -EINVAL);

	assert_int_equal(hpusim_engine_busy_begin(f.dev, 0), 0);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 12), 0);
	f.now = t0 + 400 * MS;
	before = sample(&f);
	assert_int_equal(hpusim_model.ops->reset(f.dev, true), 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, mask), 1);
	assert_int_equal(mask[0] | mask[1] | mask[2] | mask[3], 0);

	/* the work cut short stays in the history, nothing runs after */
	f.now = t0 + 1000 * MS;
	assert_int_equal(util(&f, 1000), 40);
	assert_int_equal(util(&f, 500), 0);
	/* an engine that finishes after the reset changes nothing */
	assert_int_equal(hpusim_engine_busy_end(f.dev, 12), 0);
	assert_int_equal(hpusim_model.ops->hw_idle(f.dev, NULL), 1);

	/* energy is physical: a reset does not take it back */
	after = sample(&f);
	assert_true(after.energy_mj > before.energy_mj);
	hpusim_model.ops->destroy(f.dev);
}

/* -------------------------------------------------------- telemetry */

static void test_telemetry_idle(void **state)
{
	struct fake_dev f;
	const struct hpu_fw_profile *p;
	struct hpu_fw_telemetry t;
	int32_t steady;

	fake_dev_create(&f, "gaudi2");
	p = f.dev->profile;
	steady = p->temp_ambient_mc +
		 (int32_t)(p->idle_power_mw / 1000 * p->temp_per_watt_mc);

	t = sample(&f);
	assert_int_equal(t.power_mw, p->idle_power_mw);
	assert_int_equal(t.energy_mj, 0);
	assert_int_equal(t.clk_cur_mhz, p->clk_idle_mhz);
	assert_int_equal(t.ecc_corrected, 0);
	assert_int_equal(t.ecc_uncorrected, 0);
	assert_true(t.temp_asic_mc >= steady - 100 &&
		    t.temp_asic_mc <= steady + 100);
	assert_true(t.temp_hbm_mc > p->temp_ambient_mc);
	assert_true(t.temp_hbm_mc < t.temp_asic_mc);

	/* one idle second uses exactly the idle power for a second */
	f.now += SEC;
	t = sample(&f);
	assert_int_equal(t.power_mw, p->idle_power_mw);
	assert_true(t.energy_mj + 1 >= p->idle_power_mw &&
		    t.energy_mj <= p->idle_power_mw);
	hpusim_model.ops->destroy(f.dev);
}

static void test_telemetry_load(void **state)
{
	struct fake_dev f;
	const struct hpu_fw_profile *p;
	struct hpu_fw_telemetry t, prev;
	int32_t idle_temp, full_temp;
	int i;

	fake_dev_create(&f, "gaudi3");
	p = f.dev->profile;
	prev = sample(&f);
	idle_temp = prev.temp_asic_mc;
	full_temp = p->temp_ambient_mc +
		    (int32_t)(p->max_power_mw / 1000 * p->temp_per_watt_mc);

	/* two minutes of full load, sampled every second */
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 20), 0);
	for (i = 0; i < 120; i++) {
		f.now += SEC;
		t = sample(&f);
		assert_true(t.energy_mj > prev.energy_mj);
		assert_true(t.power_mw >= prev.power_mw);
		assert_true(t.temp_asic_mc >= prev.temp_asic_mc);
		assert_true(t.power_mw <= p->max_power_mw);
		prev = t;
	}
	assert_true(t.power_mw >= p->max_power_mw - p->max_power_mw / 200);
	assert_true(t.temp_asic_mc > idle_temp + 10000);
	assert_true(t.temp_asic_mc <= full_temp);
	assert_true(t.temp_hbm_mc < t.temp_asic_mc);
	assert_int_equal(t.clk_cur_mhz, p->clk_max_mhz);

	/* back to idle: power falls, temperature follows, energy still grows */
	assert_int_equal(hpusim_engine_busy_end(f.dev, 20), 0);
	for (i = 0; i < 10; i++) {
		f.now += SEC;
		t = sample(&f);
		assert_true(t.energy_mj > prev.energy_mj);
		assert_true(t.power_mw <= prev.power_mw);
		assert_true(t.temp_asic_mc <= prev.temp_asic_mc);
		prev = t;
	}
	assert_true(t.power_mw <= p->idle_power_mw + p->idle_power_mw / 100);
	assert_int_equal(t.clk_cur_mhz, p->clk_idle_mhz);
	hpusim_model.ops->destroy(f.dev);
}

/* Short bursts integrate to the same energy however they are sampled */
static void test_telemetry_energy_sampling(void **state)
{
	struct fake_dev a, b;
	struct hpu_fw_telemetry ta, tb;
	int i;

	fake_dev_create(&a, "gaudi");
	fake_dev_create(&b, "gaudi");
	for (i = 0; i < 50; i++) {
		assert_int_equal(hpusim_engine_busy_begin(a.dev, 1), 0);
		assert_int_equal(hpusim_engine_busy_begin(b.dev, 1), 0);
		a.now += 37 * MS;
		b.now += 37 * MS;
		sample(&a); /* only a is sampled in between */
		assert_int_equal(hpusim_engine_busy_end(a.dev, 1), 0);
		assert_int_equal(hpusim_engine_busy_end(b.dev, 1), 0);
		a.now += 63 * MS;
		b.now += 63 * MS;
	}
	ta = sample(&a);
	tb = sample(&b);
	assert_true(ta.energy_mj + 1 >= tb.energy_mj &&
		    tb.energy_mj + 1 >= ta.energy_mj);
	assert_true(ta.power_mw + 1 >= tb.power_mw &&
		    tb.power_mw + 1 >= ta.power_mw);
	hpusim_model.ops->destroy(a.dev);
	hpusim_model.ops->destroy(b.dev);
}

static void test_clock_throttle(void **state)
{
	const struct hpu_fw_profile *p =
		hpu_fw_find_profile(&hpusim_model, "gaudi2");
	int32_t mid = (p->temp_slowdown_mc + p->temp_shutdown_mc) / 2;

	assert_int_equal(hpusim_clock_mhz(p, p->temp_ambient_mc, true),
			 p->clk_max_mhz);
	assert_int_equal(hpusim_clock_mhz(p, p->temp_ambient_mc, false),
			 p->clk_idle_mhz);
	assert_int_equal(hpusim_clock_mhz(p, p->temp_slowdown_mc, true),
			 p->clk_max_mhz);
	assert_int_equal(hpusim_clock_mhz(p, mid, true),
			 (p->clk_max_mhz + p->clk_idle_mhz) / 2);
	assert_int_equal(hpusim_clock_mhz(p, p->temp_shutdown_mc, true),
			 p->clk_idle_mhz);
	assert_int_equal(hpusim_clock_mhz(p, p->temp_shutdown_mc + 50000, true),
			 p->clk_idle_mhz);
	assert_int_equal(hpusim_clock_mhz(p, mid, false), p->clk_idle_mhz);
}

/*
 * thermal_fault (1.4): the die is at least halfway between slowdown and
 * shutdown at once, a busy clock is throttled to the middle, the HBM
 * warms with it; off again, the model's own temperature and clock
 */
static void test_thermal_fault(void **state)
{
	struct fake_dev f;
	struct hpu_fw_telemetry t0, t;
	const struct hpu_fw_profile *p;
	int32_t hot;

	fake_dev_create(&f, "gaudi2");
	p = f.dev->profile;
	hot = hpusim_overheat_mc(p);
	assert_true(hot > p->temp_slowdown_mc && hot < p->temp_shutdown_mc);
	t0 = sample(&f);
	assert_true(t0.temp_asic_mc < p->temp_slowdown_mc);
	assert_int_equal(hpusim_model.ops->thermal_fault(NULL, true), -EINVAL);

	assert_int_equal(hpusim_model.ops->thermal_fault(f.dev, true), 0);
	t = sample(&f);
	assert_int_equal(t.temp_asic_mc, hot);
	assert_true(t.temp_hbm_mc > t0.temp_hbm_mc);
	assert_int_equal(t.clk_cur_mhz, p->clk_idle_mhz);
	assert_int_equal(hpusim_engine_busy_begin(f.dev, 0), 0);
	f.now += 10 * MS;
	t = sample(&f);
	assert_int_equal(t.temp_asic_mc, hot);
	assert_int_equal(t.clk_cur_mhz, (p->clk_max_mhz + p->clk_idle_mhz) / 2);

	assert_int_equal(hpusim_model.ops->thermal_fault(f.dev, false), 0);
	t = sample(&f);
	assert_true(t.temp_asic_mc < p->temp_slowdown_mc);
	assert_int_equal(t.clk_cur_mhz, p->clk_max_mhz);
	assert_int_equal(hpusim_engine_busy_end(f.dev, 0), 0);
	hpusim_model.ops->destroy(f.dev);
}

static void test_ecc_counters(void **state)
{
	struct fake_dev f;
	struct hpu_fw_telemetry t;

	fake_dev_create(&f, "gaudi2");
	hpusim_telemetry_ecc_error(f.dev, false);
	hpusim_telemetry_ecc_error(f.dev, false);
	hpusim_telemetry_ecc_error(f.dev, true);
	t = sample(&f);
	assert_int_equal(t.ecc_corrected, 2);
	assert_int_equal(t.ecc_uncorrected, 1);
	hpusim_model.ops->destroy(f.dev);
}

/* ------------------------------------------------------ concurrency */

struct toggler {
	struct hpu_fw_device *dev;
	uint32_t engine;
	int errors;
};

static void *toggle_thread(void *arg)
{
	struct toggler *t = arg;
	struct hpu_fw_telemetry s;
	uint32_t pct;
	int i;

	for (i = 0; i < 20000; i++) {
		if (hpusim_engine_busy_begin(t->dev, t->engine) ||
		    hpusim_engine_busy_end(t->dev, t->engine))
			t->errors++;
		if (i % 1000 == 0) {
			hpusim_model.ops->telemetry(t->dev, &s);
			if (hpusim_model.ops->utilization(t->dev, 1000, &pct) ||
			    pct > 100)
				t->errors++;
		}
	}
	return NULL;
}

static void test_concurrent_busy(void **state)
{
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
	};
	struct toggler t[3];
	pthread_t th[3];
	struct hpu_fw_device *dev;
	uint64_t mask[4];
	int i;

	assert_int_equal(hpusim_model.ops->create(&cfg, &dev), 0);
	for (i = 0; i < 3; i++) {
		t[i] = (struct toggler){ .dev = dev,
					 .engine = (uint32_t)i * 7 };
		assert_int_equal(
			pthread_create(&th[i], NULL, toggle_thread, &t[i]), 0);
	}
	/* a reset racing with the engines must leave a consistent state */
	assert_int_equal(hpusim_model.ops->reset(dev, false), 0);
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(t[i].errors, 0);
	}
	assert_int_equal(hpusim_model.ops->hw_idle(dev, mask), 1);
	assert_int_equal(mask[0] | mask[1] | mask[2] | mask[3], 0);
	assert_int_equal(dev->tm.nr_busy, 0);
	hpusim_model.ops->destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_identity),
		cmocka_unit_test(test_find_profile),
		cmocka_unit_test(test_profile_gaudi),
		cmocka_unit_test(test_profile_gaudi2),
		cmocka_unit_test(test_profile_gaudi3),
		cmocka_unit_test(test_profiles_sane),
		cmocka_unit_test(test_hw_ip_info),
		cmocka_unit_test(test_create_bad_config),
		cmocka_unit_test(test_engine_ids),
		cmocka_unit_test(test_device_time),
		cmocka_unit_test(test_utilization_period),
		cmocka_unit_test(test_utilization_intervals),
		cmocka_unit_test(test_utilization_open_and_young),
		cmocka_unit_test(test_busy_bad_engine),
		cmocka_unit_test(test_utilization_ring_full),
		cmocka_unit_test(test_hw_idle),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_telemetry_idle),
		cmocka_unit_test(test_telemetry_load),
		cmocka_unit_test(test_telemetry_energy_sampling),
		cmocka_unit_test(test_clock_throttle),
		cmocka_unit_test(test_thermal_fault),
		cmocka_unit_test(test_ecc_counters),
		cmocka_unit_test(test_concurrent_busy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
