/* SPDX-License-Identifier: MIT */
/*
 * hlml.h - libhlml, hpu's provider of the HLML management API
 *
 * The names, argument types, enum values, struct layouts, constants and
 * return codes follow the public HLML interface (Habana's MIT-licensed
 * hlml.h), so that a program written for that interface compiles
 * against this header and runs against libhlml.so.1 unchanged. What each
 * function answers on hpu's devices, and where the value comes from, is
 * in docs/hlml.md.
 *
 * Common rules (every function, unless its comment says otherwise):
 *  - HLML_ERROR_UNINITIALIZED before hlml_init() and after the last
 *    hlml_shutdown(); a device handle taken before that last shutdown
 *    stays invalid (UNINITIALIZED) even after a new hlml_init().
 *  - HLML_ERROR_INVALID_ARGUMENT for a NULL pointer, a handle that is not
 *    one this library gave out, and an enum value out of range.
 *  - HLML_ERROR_INSUFFICIENT_SIZE when a string buffer is too short for
 *    the value and its NUL (nothing useful is written then).
 *  - HLML_ERROR_NOT_SUPPORTED for what a simulated device does not have;
 *    docs/hlml.md lists those functions.
 *  - HLML_ERROR_AIP_IS_LOST when the device went away (hot-removed, its
 *    daemon stopped).
 *
 * Install layout: <prefix>/include/hlml.h, <prefix>/lib/libhlml.so.1
 * (pkg-config --cflags --libs hlml).
 */
#ifndef __HLML_H__
#define __HLML_H__

#include <net/ethernet.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ constants */

/** PCI_DOMAIN_LEN - characters of the domain part of a PCI address */
#define PCI_DOMAIN_LEN	  5
/** PCI_ADDR_LEN - room for "DDDD:BB:DD.F" and its NUL in hlml_pci_info */
#define PCI_ADDR_LEN	  ((PCI_DOMAIN_LEN) + 10)
/** PCI_LINK_INFO_LEN - room for a link speed or width string */
#define PCI_LINK_INFO_LEN 10
/** HL_FIELD_MAX_SIZE - room for a short string field (PCB versions) */
#define HL_FIELD_MAX_SIZE 32

/** PORTS_ARR_SIZE - 64-bit words of the port masks of hlml_get_mac_addr_info() */
#define PORTS_ARR_SIZE 2

/** HLML_DEVICE_MAC_MAX_ADDRESSES - most MAC addresses a device reports */
#define HLML_DEVICE_MAC_MAX_ADDRESSES 48

/** HLML_DEVICE_ROW_RPL_MAX - most replaced rows a device reports */
#define HLML_DEVICE_ROW_RPL_MAX 32

/*
 * Event bits of hlml_device_register_events() and hlml_event_data.
 * HLML_EVENT_ECC_ERR is the older name of HLML_EVENT_ECC_DERR (the same
 * bit: uncorrectable ECC errors).
 */
#define HLML_EVENT_ECC_ERR	(1 << 0)
#define HLML_EVENT_CRITICAL_ERR (1 << 1)
#define HLML_EVENT_CLOCK_RATE	(1 << 2)
#define HLML_EVENT_DRAM_ERR	(1 << 3)
#define HLML_EVENT_ECC_DERR	(1 << 0)
#define HLML_EVENT_ECC_SERR	(1 << 4)

/* Bits of hlml_device_get_current_clocks_throttle_reasons() */
#define HLML_CLOCKS_THROTTLE_REASON_POWER   (1 << 0)
#define HLML_CLOCKS_THROTTLE_REASON_THERMAL (1 << 1)

/* Scopes of the affinity queries */
#define HLML_AFFINITY_SCOPE_NODE   0
#define HLML_AFFINITY_SCOPE_SOCKET 1

/** typedef hlml_affinity_scope_t - HLML_AFFINITY_SCOPE_* */
typedef unsigned int hlml_affinity_scope_t;

/* ---------------------------------------------------------------- types */

/**
 * enum hlml_return - what every function returns
 * @HLML_SUCCESS: done
 * @HLML_ERROR_UNINITIALIZED: no hlml_init() in force, or a stale handle
 * @HLML_ERROR_INVALID_ARGUMENT: NULL, unknown handle, enum out of range
 * @HLML_ERROR_NOT_SUPPORTED: the device has no such value
 * @HLML_ERROR_ALREADY_INITIALIZED: not returned by this library
 * @HLML_ERROR_NOT_FOUND: no device with that index, bus id or UUID
 * @HLML_ERROR_INSUFFICIENT_SIZE: a buffer is too small
 * @HLML_ERROR_DRIVER_NOT_LOADED: no device directory and no kernel device
 * @HLML_ERROR_TIMEOUT: hlml_event_set_wait() saw no event in time
 * @HLML_ERROR_AIP_IS_LOST: the device is gone
 * @HLML_ERROR_MEMORY: out of memory
 * @HLML_ERROR_NO_DATA: nothing to report
 * @HLML_ERROR_UNKNOWN: any other failure of the driver
 */
typedef enum hlml_return {
	HLML_SUCCESS = 0,
	HLML_ERROR_UNINITIALIZED = 1,
	HLML_ERROR_INVALID_ARGUMENT = 2,
	HLML_ERROR_NOT_SUPPORTED = 3,
	HLML_ERROR_ALREADY_INITIALIZED = 5,
	HLML_ERROR_NOT_FOUND = 6,
	HLML_ERROR_INSUFFICIENT_SIZE = 7,
	HLML_ERROR_DRIVER_NOT_LOADED = 9,
	HLML_ERROR_TIMEOUT = 10,
	HLML_ERROR_AIP_IS_LOST = 15,
	HLML_ERROR_MEMORY = 20,
	HLML_ERROR_NO_DATA = 21,
	HLML_ERROR_UNKNOWN = 49,
} hlml_return_t;

/**
 * struct hlml_pci_cap - PCIe link as strings
 * @link_speed: generation-style speed, e.g. "0x4" for 16 GT/s
 * @link_width: lanes, e.g. "16"
 */
typedef struct hlml_pci_cap {
	char link_speed[PCI_LINK_INFO_LEN];
	char link_width[PCI_LINK_INFO_LEN];
} hlml_pci_cap_t;

/**
 * struct hlml_pci_info - where the device sits on PCI
 * @bus: bus number
 * @bus_id: "DDDD:BB:DD.F", NUL-terminated
 * @device: device (slot) number
 * @domain: PCI domain
 * @pci_device_id: device id in the upper 16 bits, vendor id in the lower
 * @caps: the link
 */
typedef struct hlml_pci_info {
	unsigned int bus;
	char bus_id[PCI_ADDR_LEN];
	unsigned int device;
	unsigned int domain;
	unsigned int pci_device_id;
	hlml_pci_cap_t caps;
} hlml_pci_info_t;

/**
 * enum hlml_clock_type - clock domains
 * @HLML_CLOCK_SOC: the SoC clock
 * @HLML_CLOCK_IC: the interconnect clock
 * @HLML_CLOCK_MME: the matrix engines' clock
 * @HLML_CLOCK_TPC: the tensor cores' clock
 * @HLML_CLOCK_COUNT: number of domains (not a domain)
 */
typedef enum hlml_clock_type {
	HLML_CLOCK_SOC = 0,
	HLML_CLOCK_IC = 1,
	HLML_CLOCK_MME = 2,
	HLML_CLOCK_TPC = 3,
	HLML_CLOCK_COUNT
} hlml_clock_type_t;

/**
 * struct hlml_utilization - device utilization
 * @aip: percent of time the device was busy
 */
typedef struct hlml_utilization {
	unsigned int aip;
} hlml_utilization_t;

/**
 * struct hlml_memory - device memory in bytes
 * @free: not allocated
 * @total: installed
 * @used: allocated
 */
typedef struct hlml_memory {
	unsigned long long free;
	unsigned long long total;
	unsigned long long used;
} hlml_memory_t;

/**
 * enum hlml_temperature_sensors - temperature sensors
 * @HLML_TEMPERATURE_ON_AIP: the chip
 * @HLML_TEMPERATURE_ON_BOARD: the board
 * @HLML_TEMPERATURE_OTHER: any other sensor
 */
typedef enum hlml_temperature_sensors {
	HLML_TEMPERATURE_ON_AIP = 0,
	HLML_TEMPERATURE_ON_BOARD = 1,
	HLML_TEMPERATURE_OTHER = 2,
} hlml_temperature_sensors_t;

/**
 * enum hlml_temperature_thresholds - temperature limits
 * @HLML_TEMPERATURE_THRESHOLD_SHUTDOWN: the device shuts down
 * @HLML_TEMPERATURE_THRESHOLD_SLOWDOWN: the clock is throttled
 * @HLML_TEMPERATURE_THRESHOLD_MEM_MAX: highest memory temperature
 * @HLML_TEMPERATURE_THRESHOLD_GPU_MAX: highest chip temperature
 * @HLML_TEMPERATURE_THRESHOLD_COUNT: number of limits (not a limit)
 */
typedef enum hlml_temperature_thresholds {
	HLML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
	HLML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
	HLML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
	HLML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
	HLML_TEMPERATURE_THRESHOLD_COUNT
} hlml_temperature_thresholds_t;

/** enum hlml_enable_state - off (0) or on (1) */
typedef enum hlml_enable_state {
	HLML_FEATURE_DISABLED = 0,
	HLML_FEATURE_ENABLED = 1
} hlml_enable_state_t;

/** enum hlml_p_states - performance states */
typedef enum hlml_p_states {
	HLML_PSTATE_0 = 0,
	HLML_PSTATE_UNKNOWN = 32
} hlml_p_states_t;

/**
 * enum hlml_memory_error_type - ECC error kinds
 * @HLML_MEMORY_ERROR_TYPE_CORRECTED: corrected (single bit)
 * @HLML_MEMORY_ERROR_TYPE_UNCORRECTED: uncorrectable (double bit)
 * @HLML_MEMORY_ERROR_TYPE_COUNT: number of kinds (not a kind)
 */
typedef enum hlml_memory_error_type {
	HLML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	HLML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
	HLML_MEMORY_ERROR_TYPE_COUNT
} hlml_memory_error_type_t;

/**
 * enum hlml_memory_location_type - where a memory error was
 * @HLML_MEMORY_LOCATION_SRAM: on-chip SRAM
 * @HLML_MEMORY_LOCATION_DRAM: HBM
 * @HLML_MEMORY_LOCATION_COUNT: number of places (not a place)
 */
typedef enum hlml_memory_location_type {
	HLML_MEMORY_LOCATION_SRAM = 0,
	HLML_MEMORY_LOCATION_DRAM = 1,
	HLML_MEMORY_LOCATION_COUNT
} hlml_memory_location_type_t;

/**
 * enum hlml_ecc_counter_type - which ECC counter
 * @HLML_VOLATILE_ECC: since the device was created (or last reset)
 * @HLML_AGGREGATE_ECC: over the device's life
 * @HLML_ECC_COUNTER_TYPE_COUNT: number of counters (not a counter)
 */
typedef enum hlml_ecc_counter_type {
	HLML_VOLATILE_ECC = 0,
	HLML_AGGREGATE_ECC = 1,
	HLML_ECC_COUNTER_TYPE_COUNT
} hlml_ecc_counter_type_t;

/**
 * enum hlml_err_inject - faults hlml_device_err_inject() can raise
 * @HLML_ERR_INJECT_ENDLESS_COMMAND: a command that never ends
 * @HLML_ERR_INJECT_NON_FATAL_EVENT: an error the device survives
 * @HLML_ERR_INJECT_FATAL_EVENT: an error that needs a reset
 * @HLML_ERR_INJECT_LOSS_OF_HEARTBEAT: the firmware stops answering
 * @HLML_ERR_INJECT_THERMAL_EVENT: overheating
 * @HLML_ERR_INJECT_COUNT: number of faults (not a fault)
 */
typedef enum hlml_err_inject {
	HLML_ERR_INJECT_ENDLESS_COMMAND = 0,
	HLML_ERR_INJECT_NON_FATAL_EVENT = 1,
	HLML_ERR_INJECT_FATAL_EVENT = 2,
	HLML_ERR_INJECT_LOSS_OF_HEARTBEAT = 3,
	HLML_ERR_INJECT_THERMAL_EVENT = 4,
	HLML_ERR_INJECT_COUNT
} hlml_err_inject_t;

/**
 * struct hlml_pcb_info - printed circuit board versions
 * @pcb_ver: PCB version, NUL-terminated
 * @pcb_assembly_ver: PCB assembly version, NUL-terminated
 */
typedef struct hlml_pcb_info {
	char pcb_ver[HL_FIELD_MAX_SIZE];
	char pcb_assembly_ver[HL_FIELD_MAX_SIZE];
} hlml_pcb_info_t;

/** typedef hlml_device_t - a device handle (opaque) */
typedef void *hlml_device_t;

/**
 * struct hlml_event_data - one event from hlml_event_set_wait()
 * @device: the device it happened on
 * @event_type: one HLML_EVENT_* bit
 */
typedef struct hlml_event_data {
	hlml_device_t device;
	unsigned long long event_type;
} hlml_event_data_t;

/** typedef hlml_event_set_t - an event set (opaque) */
typedef void *hlml_event_set_t;

/**
 * struct hlml_mac_info - one MAC address
 * @addr: the address
 * @id: the NIC port it belongs to
 */
typedef struct hlml_mac_info {
	unsigned char addr[ETHER_ADDR_LEN];
	int id;
} hlml_mac_info_t;

/**
 * struct hlml_nic_stats_info - argument of hlml_nic_get_statistics()
 * @port: NIC port
 * @str_buf: receives the counter names
 * @val_buf: receives the counter values
 * @num_of_counters_out: receives the number of counters
 */
typedef struct hlml_nic_stats_info {
	uint32_t port;
	char *str_buf;
	uint64_t *val_buf;
	uint32_t *num_of_counters_out;
} hlml_nic_stats_info_t;

/**
 * enum hlml_pcie_util_counter - PCIe throughput directions
 * @HLML_PCIE_UTIL_TX_BYTES: sent by the device
 * @HLML_PCIE_UTIL_RX_BYTES: received by the device
 * @HLML_PCIE_UTIL_COUNT: number of directions (not a direction)
 */
typedef enum hlml_pcie_util_counter {
	HLML_PCIE_UTIL_TX_BYTES = 0,
	HLML_PCIE_UTIL_RX_BYTES = 1,
	HLML_PCIE_UTIL_COUNT,
} hlml_pcie_util_counter_t;

/**
 * enum hlml_perf_policy_type - what can hold the clock back
 * @HLML_PERF_POLICY_POWER: the power cap
 * @HLML_PERF_POLICY_THERMAL: the temperature
 * @HLML_PERF_POLICY_COUNT: number of policies (not a policy)
 */
typedef enum hlml_perf_policy_type {
	HLML_PERF_POLICY_POWER = 0,
	HLML_PERF_POLICY_THERMAL = 1,
	HLML_PERF_POLICY_COUNT
} hlml_perf_policy_type_t;

/**
 * struct hlml_violation_time - time spent held back by a policy
 * @reference_time: when the count was taken
 * @violation_time: how long the policy held the clock back
 */
typedef struct hlml_violation_time {
	unsigned long long reference_time;
	unsigned long long violation_time;
} hlml_violation_time_t;

/**
 * enum hlml_row_replacement_cause - why an HBM row was replaced
 * @HLML_ROW_REPLACEMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS: repeated
 *	corrected errors
 * @HLML_ROW_REPLACEMENT_CAUSE_DOUBLE_BIT_ECC_ERROR: an uncorrectable error
 * @HLML_ROW_REPLACEMENT_CAUSE_COUNT: number of causes (not a cause)
 */
typedef enum hlml_row_replacement_cause {
	HLML_ROW_REPLACEMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
	HLML_ROW_REPLACEMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
	HLML_ROW_REPLACEMENT_CAUSE_COUNT
} hlml_row_replacement_cause_t;

/**
 * struct hlml_row_address - one replaced HBM row
 * @hbm_idx: HBM stack
 * @pc: pseudo channel
 * @sid: stack id
 * @bank_idx: bank
 * @row_addr: row
 */
typedef struct hlml_row_address {
	uint8_t hbm_idx;
	uint8_t pc;
	uint8_t sid;
	uint8_t bank_idx;
	uint16_t row_addr;
} hlml_row_address_t;

/* -------------------------------------------------------- init, handles */

/**
 * hlml_init() - start using the library: hlml_init_with_flags(0)
 *
 * Return: as hlml_init_with_flags().
 */
hlml_return_t hlml_init(void);

/**
 * hlml_init_with_flags() - start using the library
 * @flags: accepted and ignored
 *
 * Reference counted and thread-safe: the first call enumerates the
 * visible devices (libhpudrv's list) and opens their control nodes; each
 * call must be matched by one hlml_shutdown().
 *
 * Return: HLML_SUCCESS; HLML_ERROR_DRIVER_NOT_LOADED when no device is
 * visible; HLML_ERROR_MEMORY; HLML_ERROR_UNKNOWN when enumeration fails.
 */
hlml_return_t hlml_init_with_flags(unsigned int flags);

/**
 * hlml_shutdown() - stop using the library
 *
 * The last call (matching the first init) closes the devices; every
 * handle and event set given out so far becomes invalid.
 *
 * Return: HLML_SUCCESS; HLML_ERROR_UNINITIALIZED without an init in force.
 */
hlml_return_t hlml_shutdown(void);

/**
 * hlml_device_get_count() - number of devices
 * @device_count: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_count(unsigned int *device_count);

/**
 * hlml_device_get_handle_by_pci_bus_id() - handle of the device at a bus id
 * @pci_addr: "DDDD:BB:DD.F" or "BB:DD.F", any case
 * @device: receives the handle
 *
 * Return: HLML_SUCCESS; HLML_ERROR_NOT_FOUND; a common error.
 */
hlml_return_t hlml_device_get_handle_by_pci_bus_id(const char *pci_addr,
						   hlml_device_t *device);

/**
 * hlml_device_get_handle_by_index() - handle of the @index-th device
 * @index: 0 .. count - 1, in libhpudrv's enumeration order
 * @device: receives the handle
 *
 * Return: HLML_SUCCESS; HLML_ERROR_NOT_FOUND past the count; a common error.
 */
hlml_return_t hlml_device_get_handle_by_index(unsigned int index,
					      hlml_device_t *device);

/**
 * hlml_device_get_handle_by_UUID() - handle of the device with a UUID
 * @uuid: as hlml_device_get_uuid() gives it, any case
 * @device: receives the handle
 *
 * Return: HLML_SUCCESS; HLML_ERROR_NOT_FOUND; a common error.
 */
hlml_return_t hlml_device_get_handle_by_UUID(const char *uuid,
					     hlml_device_t *device);

/* --------------------------------------------------- identity and PCI */

/**
 * hlml_device_get_name() - marketing name, e.g. "HL-225"
 * @device: handle
 * @name: receives the name
 * @length: bytes at @name
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_name(hlml_device_t device, char *name,
				   unsigned int length);

/**
 * hlml_device_get_pci_info() - PCI location and link
 * @device: handle
 * @pci: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_pci_info(hlml_device_t device,
				       hlml_pci_info_t *pci);

/**
 * hlml_device_get_uuid() - the device's UUID (stable, at most 31 characters)
 * @device: handle
 * @uuid: receives it
 * @length: bytes at @uuid
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_uuid(hlml_device_t device, char *uuid,
				   unsigned int length);

/**
 * hlml_device_get_minor_number() - minor number of the device's node
 * @device: handle
 * @minor_number: receives it (N of hpuN, or of accelN)
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_minor_number(hlml_device_t device,
					   unsigned int *minor_number);

/**
 * hlml_device_get_hl_revision() - ASIC revision
 * @device: handle
 * @hl_revision: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_hl_revision(hlml_device_t device,
					  int *hl_revision);

/**
 * hlml_device_get_pcb_info() - PCB versions
 * @device: handle
 * @pcb: receives them
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_pcb_info(hlml_device_t device,
				       hlml_pcb_info_t *pcb);

/**
 * hlml_device_get_serial() - the board's serial number (stable)
 * @device: handle
 * @serial: receives it
 * @length: bytes at @serial
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_serial(hlml_device_t device, char *serial,
				     unsigned int length);

/**
 * hlml_device_get_module_id() - OAM module id in the server
 * @device: handle
 * @module_id: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_module_id(hlml_device_t device,
					unsigned int *module_id);

/**
 * hlml_device_get_board_id() - board id in the server
 * @device: handle
 * @board_id: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_board_id(hlml_device_t device,
				       unsigned int *board_id);

/* ------------------------------------------------------------ telemetry */

/**
 * hlml_device_get_clock_info() - current frequency of a clock, MHz
 * @device: handle
 * @type: HLML_CLOCK_*
 * @clock: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_clock_info(hlml_device_t device,
					 hlml_clock_type_t type,
					 unsigned int *clock);

/**
 * hlml_device_get_max_clock_info() - highest frequency of a clock, MHz
 * @device: handle
 * @type: HLML_CLOCK_*
 * @clock: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_max_clock_info(hlml_device_t device,
					     hlml_clock_type_t type,
					     unsigned int *clock);

/**
 * hlml_device_get_utilization_rates() - busy percentage over the last second
 * @device: handle
 * @utilization: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_utilization_rates(hlml_device_t device,
				  hlml_utilization_t *utilization);

/**
 * hlml_device_get_memory_info() - device memory, bytes
 * @device: handle
 * @memory: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_memory_info(hlml_device_t device,
					  hlml_memory_t *memory);

/**
 * hlml_device_get_temperature() - a sensor's temperature, degrees Celsius
 * @device: handle
 * @sensor_type: HLML_TEMPERATURE_ON_*
 * @temp: receives it
 *
 * Return: HLML_SUCCESS; HLML_ERROR_NOT_SUPPORTED for
 * HLML_TEMPERATURE_OTHER; a common error.
 */
hlml_return_t
hlml_device_get_temperature(hlml_device_t device,
			    hlml_temperature_sensors_t sensor_type,
			    unsigned int *temp);

/**
 * hlml_device_get_temperature_threshold() - a temperature limit, Celsius
 * @device: handle
 * @threshold_type: HLML_TEMPERATURE_THRESHOLD_*
 * @temp: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_temperature_threshold(
	hlml_device_t device, hlml_temperature_thresholds_t threshold_type,
	unsigned int *temp);

/**
 * hlml_device_get_persistence_mode() - persistence mode
 * @device: handle
 * @mode: not written
 *
 * Return: HLML_ERROR_NOT_SUPPORTED (as Habana's), or a common error.
 */
hlml_return_t hlml_device_get_persistence_mode(hlml_device_t device,
					       hlml_enable_state_t *mode);

/**
 * hlml_device_get_performance_state() - performance state
 * @device: handle
 * @p_state: receives HLML_PSTATE_0 for a working device
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_performance_state(hlml_device_t device,
						hlml_p_states_t *p_state);

/**
 * hlml_device_get_power_usage() - board power, mW
 * @device: handle
 * @power: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_power_usage(hlml_device_t device,
					  unsigned int *power);

/**
 * hlml_device_get_power_management_default_limit() - board power cap, mW
 * @device: handle
 * @default_limit: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_power_management_default_limit(hlml_device_t device,
					       unsigned int *default_limit);

/**
 * hlml_device_get_total_energy_consumption() - energy since creation, mJ
 * @device: handle
 * @energy: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_total_energy_consumption(hlml_device_t device,
					 unsigned long long *energy);

/**
 * hlml_device_get_current_clocks_throttle_reasons() - why the clock is low
 * @device: handle
 * @clocks_throttle_reasons: receives HLML_CLOCKS_THROTTLE_REASON_* bits
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_current_clocks_throttle_reasons(
	hlml_device_t device, unsigned long long *clocks_throttle_reasons);

/**
 * hlml_device_get_violation_status() - time the clock was held back
 * @device: handle
 * @perf_policy_type: HLML_PERF_POLICY_*
 * @viol_time: receives it
 *
 * Return: HLML_ERROR_NOT_SUPPORTED (no such accounting), or a common error.
 */
hlml_return_t
hlml_device_get_violation_status(hlml_device_t device,
				 hlml_perf_policy_type_t perf_policy_type,
				 hlml_violation_time_t *viol_time);

/* ------------------------------------------------------------- ECC, rows */

/**
 * hlml_device_get_ecc_mode() - whether ECC is on
 * @device: handle
 * @current: receives the mode in force
 * @pending: receives the mode after the next reset
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_ecc_mode(hlml_device_t device,
				       hlml_enable_state_t *current,
				       hlml_enable_state_t *pending);

/**
 * hlml_device_get_total_ecc_errors() - ECC errors of a kind
 * @device: handle
 * @error_type: HLML_MEMORY_ERROR_TYPE_*
 * @counter_type: HLML_*_ECC
 * @ecc_counts: receives the count
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_total_ecc_errors(
	hlml_device_t device, hlml_memory_error_type_t error_type,
	hlml_ecc_counter_type_t counter_type, unsigned long long *ecc_counts);

/**
 * hlml_device_get_memory_error_counter() - ECC errors of a kind and place
 * @device: handle
 * @error_type: HLML_MEMORY_ERROR_TYPE_*
 * @counter_type: HLML_*_ECC
 * @location: HLML_MEMORY_LOCATION_*
 * @ecc_counts: receives the count
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_memory_error_counter(
	hlml_device_t device, hlml_memory_error_type_t error_type,
	hlml_ecc_counter_type_t counter_type,
	hlml_memory_location_type_t location, unsigned long long *ecc_counts);

/**
 * hlml_device_get_replaced_rows() - HBM rows replaced for a cause
 * @device: handle
 * @cause: HLML_ROW_REPLACEMENT_CAUSE_*
 * @row_count: in: entries at @addresses (ignored when @addresses is
 *	NULL); out: rows replaced
 * @addresses: receives the rows, or NULL to learn the count
 *
 * Return: HLML_SUCCESS; HLML_ERROR_INSUFFICIENT_SIZE when more rows were
 * replaced than @row_count holds; a common error.
 */
hlml_return_t hlml_device_get_replaced_rows(hlml_device_t device,
					    hlml_row_replacement_cause_t cause,
					    unsigned int *row_count,
					    hlml_row_address_t *addresses);

/**
 * hlml_device_get_replaced_rows_pending_status() - rows waiting for a reset
 * @device: handle
 * @is_pending: receives HLML_FEATURE_ENABLED when a replacement waits
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_replaced_rows_pending_status(hlml_device_t device,
					     hlml_enable_state_t *is_pending);

/* ------------------------------------------------------------ events */

/**
 * hlml_device_register_events() - watch a device for events
 * @device: handle
 * @event_types: HLML_EVENT_* bits (HLML_EVENT_DRAM_ERR is accepted and
 *	never raised)
 * @set: event set
 *
 * Registering a device twice adds the bits.
 *
 * Return: HLML_SUCCESS; HLML_ERROR_INVALID_ARGUMENT for unknown bits; a
 * common error.
 */
hlml_return_t hlml_device_register_events(hlml_device_t device,
					  unsigned long long event_types,
					  hlml_event_set_t set);

/**
 * hlml_event_set_create() - make an empty event set
 * @set: receives it
 *
 * Return: HLML_SUCCESS; HLML_ERROR_MEMORY when every set is in use; a
 * common error.
 */
hlml_return_t hlml_event_set_create(hlml_event_set_t *set);

/**
 * hlml_event_set_free() - release an event set
 * @set: event set
 *
 * Return: HLML_SUCCESS; HLML_ERROR_INVALID_ARGUMENT for a set that is not
 * in use (freed twice, never created).
 */
hlml_return_t hlml_event_set_free(hlml_event_set_t set);

/**
 * hlml_event_set_wait() - take the next event of a set
 * @set: event set
 * @data: receives the device and the one event bit
 * @timeoutms: longest wait, ms
 *
 * Return: HLML_SUCCESS; HLML_ERROR_TIMEOUT; a common error.
 */
hlml_return_t hlml_event_set_wait(hlml_event_set_t set, hlml_event_data_t *data,
				  unsigned int timeoutms);

/**
 * hlml_device_err_inject() - raise a fault on the device (root or owner)
 * @device: handle
 * @err_type: HLML_ERR_INJECT_*
 *
 * Return: HLML_SUCCESS; HLML_ERROR_NOT_SUPPORTED for a fault the device
 * model cannot raise; a common error.
 */
hlml_return_t hlml_device_err_inject(hlml_device_t device,
				     hlml_err_inject_t err_type);

/* ----------------------------------------------------------- NIC, MAC */

/**
 * hlml_device_get_mac_info() - MAC addresses of the NIC ports
 * @device: handle
 * @mac_info: receives up to @mac_info_size entries
 * @mac_info_size: entries at @mac_info
 * @start_mac_id: first port to report
 * @actual_mac_count: receives the entries written
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_mac_info(hlml_device_t device,
				       hlml_mac_info_t *mac_info,
				       unsigned int mac_info_size,
				       unsigned int start_mac_id,
				       unsigned int *actual_mac_count);

/**
 * hlml_get_mac_addr_info() - which NIC ports exist and which are external
 * @device: handle
 * @mask: PORTS_ARR_SIZE words: bit per port
 * @ext_mask: PORTS_ARR_SIZE words: bit per scale-out port
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_mac_addr_info(hlml_device_t device, uint64_t *mask,
				     uint64_t *ext_mask);

/**
 * hlml_nic_get_link() - whether a NIC port's link is up
 * @device: handle
 * @port: port
 * @up: receives it
 *
 * Return: HLML_SUCCESS; HLML_ERROR_INVALID_ARGUMENT for a port the device
 * does not have; a common error.
 */
hlml_return_t hlml_nic_get_link(hlml_device_t device, uint32_t port, bool *up);

/**
 * hlml_nic_get_statistics() - counters of a NIC port
 * @device: handle
 * @stats_info: port in, buffers out
 *
 * Return: HLML_ERROR_NOT_SUPPORTED (no per-port counters), or a common
 * error.
 */
hlml_return_t hlml_nic_get_statistics(hlml_device_t device,
				      hlml_nic_stats_info_t *stats_info);

/* ----------------------------------------------------------- PCIe */

/**
 * hlml_device_get_pcie_throughput() - PCIe throughput, KB/s
 * @device: handle
 * @counter: HLML_PCIE_UTIL_*
 * @value: receives it
 *
 * Return: HLML_ERROR_NOT_SUPPORTED (no PCIe accounting), or a common error.
 */
hlml_return_t hlml_device_get_pcie_throughput(hlml_device_t device,
					      hlml_pcie_util_counter_t counter,
					      unsigned int *value);

/**
 * hlml_device_get_pcie_replay_counter() - PCIe replays
 * @device: handle
 * @value: receives 0 (a simulated link never replays)
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_pcie_replay_counter(hlml_device_t device,
						  unsigned int *value);

/**
 * hlml_device_get_curr_pcie_link_generation() - PCIe generation
 * @device: handle
 * @curr_link_gen: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_curr_pcie_link_generation(hlml_device_t device,
					  unsigned int *curr_link_gen);

/**
 * hlml_device_get_curr_pcie_link_width() - PCIe lanes
 * @device: handle
 * @curr_link_width: receives it
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t
hlml_device_get_curr_pcie_link_width(hlml_device_t device,
				     unsigned int *curr_link_width);

/* ----------------------------------------------------------- affinity */

/**
 * hlml_device_clear_cpu_affinity() - let the calling thread run anywhere
 * @device: handle
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_clear_cpu_affinity(hlml_device_t device);

/**
 * hlml_device_get_cpu_affinity() - CPUs close to the device
 * @device: handle
 * @cpu_set_size: words at @cpu_set
 * @cpu_set: receives a bit per CPU
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_cpu_affinity(hlml_device_t device,
					   unsigned int cpu_set_size,
					   unsigned long *cpu_set);

/**
 * hlml_device_get_cpu_affinity_within_scope() - CPUs close to the device
 * @device: handle
 * @cpu_set_size: words at @cpu_set
 * @cpu_set: receives a bit per CPU
 * @scope: HLML_AFFINITY_SCOPE_*
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_cpu_affinity_within_scope(
	hlml_device_t device, unsigned int cpu_set_size, unsigned long *cpu_set,
	hlml_affinity_scope_t scope);

/**
 * hlml_device_get_memory_affinity() - NUMA nodes close to the device
 * @device: handle
 * @node_set_size: words at @node_set
 * @node_set: receives a bit per node
 * @scope: HLML_AFFINITY_SCOPE_*
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_get_memory_affinity(hlml_device_t device,
					      unsigned int node_set_size,
					      unsigned long *node_set,
					      hlml_affinity_scope_t scope);

/**
 * hlml_device_set_cpu_affinity() - bind the calling thread to the device's CPUs
 * @device: handle
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_device_set_cpu_affinity(hlml_device_t device);

/* ------------------------------------------------------- versions */

/**
 * hlml_get_hlml_version() - this library's version, "MAJOR.MINOR.PATCH"
 * @version: receives it
 * @length: bytes at @version
 *
 * Works without hlml_init().
 *
 * Return: HLML_SUCCESS; HLML_ERROR_INVALID_ARGUMENT; INSUFFICIENT_SIZE.
 */
hlml_return_t hlml_get_hlml_version(char *version, unsigned int length);

/**
 * hlml_get_driver_version() - the driver's version
 * @driver_version: receives it
 * @length: bytes at @driver_version
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_driver_version(char *driver_version,
				      unsigned int length);

/**
 * hlml_get_model_number() - the device's chip, e.g. "GAUDI2"
 * @device: handle
 * @model_number: receives it
 * @length: bytes at @model_number
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_model_number(hlml_device_t device, char *model_number,
				    unsigned int length);

/**
 * hlml_get_serial_number() - same as hlml_device_get_serial()
 * @device: handle
 * @serial_number: receives it
 * @length: bytes at @serial_number
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_serial_number(hlml_device_t device, char *serial_number,
				     unsigned int length);

/**
 * hlml_get_firmware_fit_version() - firmware (device model) version
 * @device: handle
 * @firmware_fit: receives it
 * @length: bytes at @firmware_fit
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_firmware_fit_version(hlml_device_t device,
					    char *firmware_fit,
					    unsigned int length);

/**
 * hlml_get_firmware_spi_version() - SPI flash version
 * @device: handle
 * @firmware_spi: receives it
 * @length: bytes at @firmware_spi
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_firmware_spi_version(hlml_device_t device,
					    char *firmware_spi,
					    unsigned int length);

/**
 * hlml_get_fw_boot_version() - boot firmware version
 * @device: handle
 * @fw_boot_version: receives it
 * @length: bytes at @fw_boot_version
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_fw_boot_version(hlml_device_t device,
				       char *fw_boot_version,
				       unsigned int length);

/**
 * hlml_get_fw_os_version() - device OS firmware version
 * @device: handle
 * @fw_os_version: receives it
 * @length: bytes at @fw_os_version
 *
 * Return: HLML_SUCCESS or a common error.
 */
hlml_return_t hlml_get_fw_os_version(hlml_device_t device, char *fw_os_version,
				     unsigned int length);

/**
 * hlml_get_cpld_version() - CPLD version
 * @device: handle
 * @cpld_version: receives it
 * @length: bytes at @cpld_version
 *
 * Return: HLML_ERROR_NOT_SUPPORTED (a simulated board has no CPLD), or a
 * common error.
 */
hlml_return_t hlml_get_cpld_version(hlml_device_t device, char *cpld_version,
				    unsigned int length);

#ifdef __cplusplus
}
#endif

#endif /* __HLML_H__ */
