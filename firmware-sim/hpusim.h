/* SPDX-License-Identifier: MIT */
/*
 * hpusim.h - private interface of the firmware simulator (libhpusim).
 *
 * The driver only sees firmware-sim through hpu_fw_if.h. This header is
 * shared by the simulator's own files (profiles, device, telemetry and,
 * later, the engines) and by its unit tests.
 *
 * Engine numbering (busy accounting, HW_IDLE busy mask, queue index):
 * DMA engines first, then MME, then TPC, then NIC ports, each class
 * numbered from 0 (docs/firmware-sim.md).
 */
#ifndef HPUSIM_H
#define HPUSIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hpu_fw_if.h"

/* Largest engine count of any profile: the HW_IDLE busy mask is 256 bits */
#define HPUSIM_MAX_ENGINES 256

/* Bytes of a serial number, with its NUL */
#define HPUSIM_SERIAL_MAX 32

/* Busy periods kept for utilization; exact up to this many per second */
#define HPUSIM_BUSY_RING 4096

/* Utilization windows accepted, ms (struct hpu_info_args.period_ms) */
#define HPUSIM_UTIL_PERIOD_MIN_MS 100
#define HPUSIM_UTIL_PERIOD_MAX_MS 1000

/* Smoothing time constants of the power and thermal model, ns */
#define HPUSIM_POWER_TAU_NS 500000000ULL
#define HPUSIM_TEMP_TAU_NS  20000000000ULL

/* HBM settles at this share of the ASIC's rise over ambient, percent */
#define HPUSIM_HBM_TEMP_SHARE_PCT 85

/**
 * enum hpusim_engine_class - engine classes in engine-id order
 * @HPUSIM_ENGINE_DMA: DMA engines
 * @HPUSIM_ENGINE_MME: matrix engines
 * @HPUSIM_ENGINE_TPC: tensor processor cores
 * @HPUSIM_ENGINE_NIC: NIC ports
 */
enum hpusim_engine_class {
	HPUSIM_ENGINE_DMA,
	HPUSIM_ENGINE_MME,
	HPUSIM_ENGINE_TPC,
	HPUSIM_ENGINE_NIC,
	HPUSIM_ENGINE_CLASSES
};

/**
 * typedef hpusim_clock_fn - time source of a device
 * @arg: the argument given with the clock
 *
 * Return: a monotonic time in ns (CLOCK_MONOTONIC by default).
 */
typedef uint64_t (*hpusim_clock_fn)(void *arg);

/**
 * struct hpusim_busy_interval - a finished period in which an engine ran
 * @start_ns: device clock when the first engine became busy
 * @end_ns: device clock when the last engine became idle
 */
struct hpusim_busy_interval {
	uint64_t start_ns;
	uint64_t end_ns;
};

/**
 * struct hpusim_telemetry - busy accounting and sensor model of a device
 * @lock: protects every member below
 * @busy: bit per engine that is busy now
 * @nr_busy: engines busy now
 * @busy_since_ns: clock when @nr_busy last went from 0 to 1 (valid while
 *	@nr_busy is non-zero)
 * @ring: finished busy periods, oldest at @ring_head
 * @ring_head: index of the oldest period
 * @ring_len: periods in @ring
 * @last_ns: clock up to which the power and thermal state is advanced
 * @power_mw: smoothed board power at @last_ns
 * @energy_mj: energy integrated up to @last_ns
 * @temp_mc: ASIC temperature at @last_ns
 * @ecc_corrected: corrected ECC errors since creation
 * @ecc_uncorrected: uncorrected ECC errors since creation
 */
struct hpusim_telemetry {
	pthread_mutex_t lock;
	uint64_t busy[HPUSIM_MAX_ENGINES / 64];
	uint32_t nr_busy;
	uint64_t busy_since_ns;
	struct hpusim_busy_interval *ring;
	uint32_t ring_head;
	uint32_t ring_len;
	uint64_t last_ns;
	double power_mw;
	double energy_mj;
	double temp_mc;
	uint64_t ecc_corrected;
	uint64_t ecc_uncorrected;
};

/**
 * struct hpu_fw_device - one simulated device
 * @profile: chip profile (one of hpusim_model.profiles)
 * @index: device index in its server
 * @module_id: OAM module id
 * @pci_domain: PCI domain
 * @pci_bus: PCI bus
 * @serial: serial number
 * @clock: time source
 * @clock_arg: argument of @clock
 * @t0_ns: @clock at creation; device time counts from here
 * @engine_base: first engine id of each class
 * @num_engines: engines of every class together
 * @tm: busy accounting and sensors
 */
struct hpu_fw_device {
	const struct hpu_fw_profile *profile;
	uint32_t index;
	uint32_t module_id;
	uint32_t pci_domain;
	uint8_t pci_bus;
	char serial[HPUSIM_SERIAL_MAX];
	hpusim_clock_fn clock;
	void *clock_arg;
	uint64_t t0_ns;
	uint32_t engine_base[HPUSIM_ENGINE_CLASSES];
	uint32_t num_engines;
	struct hpusim_telemetry tm;
};

/* profiles.c */
bool hpusim_profile_is_known(const struct hpu_fw_profile *profile);
uint32_t hpusim_profile_engines(const struct hpu_fw_profile *profile);

/* device.c */

/* hpusim_ops - the operations of hpusim_model */
extern const struct hpu_fw_ops hpusim_ops;

/**
 * hpusim_device_create() - create a device with a chosen time source
 * @cfg: configuration, validated as by hpusim_model.ops->create
 * @clock: time source, or NULL for CLOCK_MONOTONIC
 * @clock_arg: argument of @clock
 * @out: the new device
 *
 * Tests use this to drive the telemetry with a controllable clock.
 *
 * Return: 0 or -errno.
 */
int hpusim_device_create(const struct hpu_fw_config *cfg, hpusim_clock_fn clock,
			 void *clock_arg, struct hpu_fw_device **out);

/**
 * hpusim_now_ns() - the device's clock now
 * @dev: device
 *
 * Return: the clock in ns (absolute, not relative to creation).
 */
uint64_t hpusim_now_ns(const struct hpu_fw_device *dev);

/**
 * hpusim_engine_id() - engine id of the @idx-th engine of a class
 * @dev: device
 * @cls: engine class
 * @idx: engine index within its class
 *
 * Return: the engine id, or -EINVAL when the device has no such engine.
 */
int hpusim_engine_id(const struct hpu_fw_device *dev,
		     enum hpusim_engine_class cls, uint32_t idx);

/* telemetry.c */
int hpusim_telemetry_init(struct hpu_fw_device *dev);
void hpusim_telemetry_fini(struct hpu_fw_device *dev);

/**
 * hpusim_engine_busy_begin() - an engine starts running work
 * @dev: device
 * @engine: engine id
 *
 * An engine runs one job at a time: beginning while busy changes nothing.
 *
 * Return: 0, or -EINVAL for an engine id the device does not have.
 */
int hpusim_engine_busy_begin(struct hpu_fw_device *dev, uint32_t engine);

/**
 * hpusim_engine_busy_end() - an engine finished its work
 * @dev: device
 * @engine: engine id
 *
 * Ending an idle engine (e.g. after a reset) changes nothing.
 *
 * Return: 0, or -EINVAL for an engine id the device does not have.
 */
int hpusim_engine_busy_end(struct hpu_fw_device *dev, uint32_t engine);

/**
 * hpusim_telemetry_ecc_error() - count an HBM ECC error
 * @dev: device
 * @uncorrected: true for a double-bit (uncorrectable) error
 */
void hpusim_telemetry_ecc_error(struct hpu_fw_device *dev, bool uncorrected);

int hpusim_telemetry_utilization(struct hpu_fw_device *dev, uint32_t period_ms,
				 uint32_t *percent);
int hpusim_telemetry_hw_idle(struct hpu_fw_device *dev, uint64_t busy_mask[4]);
void hpusim_telemetry_sample(struct hpu_fw_device *dev,
			     struct hpu_fw_telemetry *out);
void hpusim_telemetry_reset(struct hpu_fw_device *dev);

/**
 * hpusim_clock_mhz() - core clock the model runs at
 * @p: chip profile
 * @temp_mc: ASIC temperature
 * @busy: whether any engine is busy
 *
 * Idle engines run at the idle clock, busy ones at the maximum; above the
 * slowdown temperature the clock is throttled linearly down to the idle
 * clock at the shutdown temperature.
 *
 * Return: clock in MHz.
 */
uint32_t hpusim_clock_mhz(const struct hpu_fw_profile *p, int32_t temp_mc,
			  bool busy);

#endif /* HPUSIM_H */
