/* SPDX-License-Identifier: MIT */
/*
 * hpu_fw_if.h - the firmware interface between the driver (fusedev) and a
 * device model (firmware-sim).
 *
 * The driver sees a device model only through a struct hpu_fw_model: a name,
 * the interface version it implements, its chip profiles and a table of
 * operations. A second model plugs in behind the same driver by providing
 * another hpu_fw_model, the way the habanalabs driver has one asic_funcs
 * table per chip.
 *
 * Versioning: MAJOR changes break the driver and are refused at start-up;
 * MINOR adds operations at the end of struct hpu_fw_ops (the driver checks
 * the model's minor before calling an operation newer than 1.0).
 */
#ifndef HPU_FW_IF_H
#define HPU_FW_IF_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_accel.h"

#define HPU_FW_IF_MAJOR 1
#define HPU_FW_IF_MINOR 0

/**
 * struct hpu_fw_profile - static description of one chip generation
 * @name: profile name used on command lines ("gaudi", "gaudi2", "gaudi3")
 * @card_name: marketing name reported by HW_IP_INFO ("HL-205", ...)
 * @device_type: enum hpu_device_type
 * @server_type: enum hpu_server_type of a full server of this chip
 * @pci_device_id: PCI device id
 * @revision_id: ASIC revision
 * @dram_base: first device VA of HBM
 * @dram_size: HBM bytes
 * @sram_base: first device VA of SRAM
 * @sram_size: SRAM bytes
 * @dram_page_size: default allocation page size
 * @page_size_mask: supported allocation page sizes, bit n = 2^n bytes
 * @num_tpc: TPC engines
 * @num_mme: MME engines
 * @num_dma: DMA engines
 * @num_nic_ports: NIC ports
 * @num_queues: user-visible hardware queues
 * @max_power_mw: board power cap
 * @idle_power_mw: board power with every engine idle
 * @clk_max_mhz: maximum core clock
 * @clk_idle_mhz: core clock when idle
 * @temp_ambient_mc: inlet temperature the thermal model settles to at 0 W
 * @temp_per_watt_mc: steady-state temperature rise per watt
 * @temp_slowdown_mc: throttling threshold
 * @temp_shutdown_mc: shutdown threshold
 * @pcie_speed_mts: PCIe link speed per lane
 * @pcie_width: PCIe lanes
 */
struct hpu_fw_profile {
	const char *name;
	const char *card_name;
	uint32_t device_type;
	uint32_t server_type;
	uint16_t pci_device_id;
	uint32_t revision_id;
	uint64_t dram_base;
	uint64_t dram_size;
	uint64_t sram_base;
	uint32_t sram_size;
	uint64_t dram_page_size;
	uint64_t page_size_mask;
	uint32_t num_tpc;
	uint32_t num_mme;
	uint32_t num_dma;
	uint32_t num_nic_ports;
	uint32_t num_queues;
	uint32_t max_power_mw;
	uint32_t idle_power_mw;
	uint32_t clk_max_mhz;
	uint32_t clk_idle_mhz;
	int32_t temp_ambient_mc;
	int32_t temp_per_watt_mc;
	int32_t temp_slowdown_mc;
	int32_t temp_shutdown_mc;
	uint32_t pcie_speed_mts;
	uint32_t pcie_width;
};

/**
 * struct hpu_fw_config - what the driver asks a model to create
 * @profile: chip profile, one of the model's @profiles
 * @index: device index in its server (0..)
 * @module_id: OAM module id in the server
 * @pci_domain: PCI domain of the simulated device
 * @pci_bus: PCI bus of the simulated device
 * @serial: serial number string (NUL-terminated, copied by create)
 */
struct hpu_fw_config {
	const struct hpu_fw_profile *profile;
	uint32_t index;
	uint32_t module_id;
	uint32_t pci_domain;
	uint8_t pci_bus;
	const char *serial;
};

/**
 * struct hpu_fw_telemetry - one sample of the device's sensors
 * @power_mw: board power now
 * @energy_mj: energy since creation
 * @temp_asic_mc: ASIC temperature, milli-degrees Celsius
 * @temp_hbm_mc: HBM temperature, milli-degrees Celsius
 * @clk_cur_mhz: current core clock
 * @ecc_corrected: corrected HBM ECC errors since creation
 * @ecc_uncorrected: uncorrected HBM ECC errors since creation
 */
struct hpu_fw_telemetry {
	uint64_t power_mw;
	uint64_t energy_mj;
	int32_t temp_asic_mc;
	int32_t temp_hbm_mc;
	uint32_t clk_cur_mhz;
	uint64_t ecc_corrected;
	uint64_t ecc_uncorrected;
};

struct hpu_fw_device;

/**
 * struct hpu_fw_ops - operations the driver calls on a device model
 * @create: build a device from @cfg; 0 or -errno
 * @destroy: tear a device down; every resource it holds is released
 * @hw_ip_info: fill the HW_IP_INFO answer (all fields but none of the
 *	driver's own); cannot fail
 * @utilization: percentage of @period_ms (100..1000) in which any engine
 *	was busy; 0 or -errno
 * @hw_idle: 1 when idle, 0 when busy; @busy_mask gets a bit per busy
 *	engine (may be NULL)
 * @telemetry: sample power, temperature, clock, ECC counters
 * @device_time_ns: device timestamp counter in ns
 * @reset: reset the device's engines (@hard: the whole device); 0 or -errno
 */
struct hpu_fw_ops {
	int (*create)(const struct hpu_fw_config *cfg,
		      struct hpu_fw_device **out);
	void (*destroy)(struct hpu_fw_device *fw);
	void (*hw_ip_info)(struct hpu_fw_device *fw,
			   struct hpu_info_hw_ip_info *out);
	int (*utilization)(struct hpu_fw_device *fw, uint32_t period_ms,
			   uint32_t *percent);
	int (*hw_idle)(struct hpu_fw_device *fw, uint64_t busy_mask[4]);
	void (*telemetry)(struct hpu_fw_device *fw,
			  struct hpu_fw_telemetry *out);
	uint64_t (*device_time_ns)(struct hpu_fw_device *fw);
	int (*reset)(struct hpu_fw_device *fw, bool hard);
};

/**
 * struct hpu_fw_model - a device model as the driver sees it
 * @name: model name ("hpusim")
 * @if_major: HPU_FW_IF_MAJOR the model was built against
 * @if_minor: HPU_FW_IF_MINOR the model was built against
 * @version: model (firmware) version string
 * @profiles: NULL-terminated array of the chips the model can be
 * @ops: operations
 */
struct hpu_fw_model {
	const char *name;
	uint32_t if_major;
	uint32_t if_minor;
	const char *version;
	const struct hpu_fw_profile *const *profiles;
	const struct hpu_fw_ops *ops;
};

/** hpusim_model - the firmware simulator of this project (libhpusim) */
extern const struct hpu_fw_model hpusim_model;

/**
 * hpu_fw_find_profile() - look a profile up by name in a model
 * @model: device model
 * @name: profile name, e.g. "gaudi2"
 *
 * Return: the profile, or NULL when the model has none of that name.
 */
const struct hpu_fw_profile *
hpu_fw_find_profile(const struct hpu_fw_model *model, const char *name);

#endif /* HPU_FW_IF_H */
