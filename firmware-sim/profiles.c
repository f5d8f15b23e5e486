// SPDX-License-Identifier: MIT
/*
 * profiles.c - the chips hpusim can be: Gaudi, Gaudi2 and Gaudi3.
 *
 * Every figure and where it comes from is listed in docs/firmware-sim.md.
 */
#include <string.h>

#include "hpusim.h"

#ifndef HPU_VERSION
#define HPU_VERSION "0.0.0"
#endif

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* Device VA layout shared by every profile (docs/firmware-sim.md) */
#define HPUSIM_SRAM_BASE 0x0000080000000000ULL
#define HPUSIM_DRAM_BASE 0x0000100000000000ULL

/* Allocation page sizes: 4 KiB, 2 MiB and 1 GiB */
#define HPUSIM_PAGE_SIZE_MASK (4 * KiB | 2 * MiB | 1 * GiB)

/* One queue per engine: queue i feeds engine i */
#define QUEUES(dma, mme, tpc, nic) ((dma) + (mme) + (tpc) + (nic))

static const struct hpu_fw_profile hpusim_gaudi = {
	.name = "gaudi",
	.card_name = "HL-205",
	.device_type = HPU_DEVICE_GAUDI,
	.server_type = HPU_SERVER_HLS1,
	.pci_device_id = 0x1000,
	.revision_id = 1,
	.dram_base = HPUSIM_DRAM_BASE,
	.dram_size = 32 * GiB,
	.sram_base = HPUSIM_SRAM_BASE,
	.sram_size = 24 * MiB,
	.dram_page_size = 2 * MiB,
	.page_size_mask = HPUSIM_PAGE_SIZE_MASK,
	.num_tpc = 8,
	.num_mme = 1,
	.num_dma = 8,
	.num_nic_ports = 10,
	.num_queues = QUEUES(8, 1, 8, 10),
	.max_power_mw = 350000,
	.idle_power_mw = 60000,
	.clk_max_mhz = 1500,
	.clk_idle_mhz = 800,
	.temp_ambient_mc = 25000,
	.temp_per_watt_mc = 157,
	.temp_slowdown_mc = 95000,
	.temp_shutdown_mc = 110000,
	.pcie_speed_mts = 16000,
	.pcie_width = 16,
};

static const struct hpu_fw_profile hpusim_gaudi2 = {
	.name = "gaudi2",
	.card_name = "HL-225",
	.device_type = HPU_DEVICE_GAUDI2,
	.server_type = HPU_SERVER_HLS2,
	.pci_device_id = 0x1020,
	.revision_id = 1,
	.dram_base = HPUSIM_DRAM_BASE,
	.dram_size = 96 * GiB,
	.sram_base = HPUSIM_SRAM_BASE,
	.sram_size = 48 * MiB,
	.dram_page_size = 2 * MiB,
	.page_size_mask = HPUSIM_PAGE_SIZE_MASK,
	.num_tpc = 24,
	.num_mme = 2,
	.num_dma = 10,
	.num_nic_ports = 24,
	.num_queues = QUEUES(10, 2, 24, 24),
	.max_power_mw = 600000,
	.idle_power_mw = 87000,
	.clk_max_mhz = 1800,
	.clk_idle_mhz = 1000,
	.temp_ambient_mc = 25000,
	.temp_per_watt_mc = 95,
	.temp_slowdown_mc = 95000,
	.temp_shutdown_mc = 110000,
	.pcie_speed_mts = 16000,
	.pcie_width = 16,
};

static const struct hpu_fw_profile hpusim_gaudi3 = {
	.name = "gaudi3",
	.card_name = "HL-325L",
	.device_type = HPU_DEVICE_GAUDI3,
	.server_type = HPU_SERVER_HLS3,
	.pci_device_id = 0x1060,
	.revision_id = 1,
	.dram_base = HPUSIM_DRAM_BASE,
	.dram_size = 128 * GiB,
	.sram_base = HPUSIM_SRAM_BASE,
	.sram_size = 96 * MiB,
	.dram_page_size = 2 * MiB,
	.page_size_mask = HPUSIM_PAGE_SIZE_MASK,
	.num_tpc = 64,
	.num_mme = 8,
	.num_dma = 18,
	.num_nic_ports = 24,
	.num_queues = QUEUES(18, 8, 64, 24),
	.max_power_mw = 900000,
	.idle_power_mw = 130000,
	.clk_max_mhz = 1600,
	.clk_idle_mhz = 1000,
	.temp_ambient_mc = 25000,
	.temp_per_watt_mc = 65,
	.temp_slowdown_mc = 95000,
	.temp_shutdown_mc = 110000,
	.pcie_speed_mts = 32000,
	.pcie_width = 16,
};

static const struct hpu_fw_profile *const hpusim_profiles[] = {
	&hpusim_gaudi,
	&hpusim_gaudi2,
	&hpusim_gaudi3,
	NULL,
};

const struct hpu_fw_model hpusim_model = {
	.name = "hpusim",
	.if_major = HPU_FW_IF_MAJOR,
	.if_minor = HPU_FW_IF_MINOR,
	.version = "hpusim " HPU_VERSION,
	.profiles = hpusim_profiles,
	.ops = &hpusim_ops,
};

/**
 * hpu_fw_find_profile() - look a profile up by name in a model
 * @model: device model
 * @name: profile name, e.g. "gaudi2"
 *
 * Return: the profile, or NULL when the model has none of that name.
 */
const struct hpu_fw_profile *
hpu_fw_find_profile(const struct hpu_fw_model *model, const char *name)
{
	const struct hpu_fw_profile *const *p;

	if (!model || !model->profiles || !name)
		return NULL;
	for (p = model->profiles; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

/**
 * hpusim_profile_is_known() - whether @profile is one of hpusim's own
 * @profile: profile to check
 *
 * Return: true when @profile points into hpusim_model.profiles.
 */
bool hpusim_profile_is_known(const struct hpu_fw_profile *profile)
{
	const struct hpu_fw_profile *const *p;

	for (p = hpusim_profiles; *p; p++)
		if (*p == profile)
			return true;
	return false;
}

/**
 * hpusim_profile_engines() - engines of every class of a profile
 * @profile: profile
 *
 * Return: DMA + MME + TPC engines + NIC ports.
 */
uint32_t hpusim_profile_engines(const struct hpu_fw_profile *profile)
{
	return profile->num_dma + profile->num_mme + profile->num_tpc +
	       profile->num_nic_ports;
}
