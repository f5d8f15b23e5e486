/* SPDX-License-Identifier: MIT */
/*
 * hpudrv.h - libhpudrv, the userspace driver library of the hpu stack
 *
 * Enumeration of simulated (and, later, kernel) HPU devices, open by
 * index / bus id / module id, typed INFO queries and device attributes.
 * Every function that can fail returns 0 (or a count) on success and a
 * negative errno on failure. Handles are opaque. See docs/libhpudrv.md.
 *
 * Install layout: <prefix>/include/hpu/hpudrv.h next to hpu_accel.h;
 * include it as <hpu/hpudrv.h> (pkg-config --cflags libhpudrv).
 */
#ifndef HPU_HPUDRV_H
#define HPU_HPUDRV_H

#include <stddef.h>
#include <stdint.h>

#include "hpu_accel.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HPUDRV_BUILD)
#define HPUDRV_EXPORT __attribute__((visibility("default")))
#else
#define HPUDRV_EXPORT
#endif

/** HPU_PATH_LEN - room for a path in struct hpu_device_info */
#define HPU_PATH_LEN   4096
/** HPU_NAME_LEN - room for a short name in struct hpu_device_info */
#define HPU_NAME_LEN   32
/** HPU_BUS_ID_LEN - room for "DDDD:BB:DD.F" plus NUL */
#define HPU_BUS_ID_LEN 16
/** HPU_COMM_LEN - room for a process command name */
#define HPU_COMM_LEN   64

/**
 * enum hpu_device_kind - where a device comes from
 * @HPU_DEVICE_KIND_SIMULATED: a node of hpu-fused's device directory
 * @HPU_DEVICE_KIND_KERNEL: a kernel accel device found through udev
 */
enum hpu_device_kind {
	HPU_DEVICE_KIND_SIMULATED = 0,
	HPU_DEVICE_KIND_KERNEL = 1,
};

/**
 * struct hpu_device_info - one enumerated device
 * @index: N of the node hpuN; never renumbered by HPU_VISIBLE_DEVICES
 * @kind: enum hpu_device_kind
 * @module_id: OAM module id, -1 when unknown
 * @device_id: PCI device id, 0 when unknown
 * @node_name: "hpuN"
 * @node_path: path of the compute node
 * @control_path: path of the control node
 * @attr_dir: directory holding the device's attributes
 * @bus_id: PCI bus id "DDDD:BB:DD.F", empty when unknown
 * @device_type: chip generation, e.g. "GAUDI2", empty when unknown
 * @card_name: marketing name, e.g. "HL-225", empty when unknown
 * @serial: serial number, empty when unknown
 */
struct hpu_device_info {
	int index;
	int kind;
	int module_id;
	unsigned int device_id;
	char node_name[HPU_NAME_LEN];
	char node_path[HPU_PATH_LEN];
	char control_path[HPU_PATH_LEN];
	char attr_dir[HPU_PATH_LEN];
	char bus_id[HPU_BUS_ID_LEN];
	char device_type[HPU_NAME_LEN];
	char card_name[HPU_NAME_LEN];
	char serial[HPU_NAME_LEN];
};

/**
 * struct hpu_process - one compute context holding a device
 * @pid: process id of the opener
 * @dram_bytes: device memory the context has allocated, bytes
 * @comm: command name of the process
 */
struct hpu_process {
	int pid;
	uint64_t dram_bytes;
	char comm[HPU_COMM_LEN];
};

/** struct hpu_device - an open device node (opaque) */
struct hpu_device;

/* ---------------------------------------------------------------- library */

/**
 * hpu_library_version() - version of this library
 *
 * Return: a static "MAJOR.MINOR.PATCH" string.
 */
HPUDRV_EXPORT const char *hpu_library_version(void);

/**
 * hpu_strerror() - describe a negative errno returned by libhpudrv
 * @err: negative (or positive) errno value
 *
 * Gives the driver's meaning where it differs from strerror(3), e.g.
 * -ENOTTY "command not supported by the driver".
 *
 * Return: a static string, never NULL.
 */
HPUDRV_EXPORT const char *hpu_strerror(int err);

/**
 * hpu_device_status_str() - name of an HPU_DEVICE_STATUS_* value
 * @status: status from hpu_info_device_status()
 *
 * The names are those of the class/hpuN/status attribute.
 *
 * Return: a static string, "unknown" for values the ABI does not define.
 */
HPUDRV_EXPORT const char *hpu_device_status_str(unsigned int status);

/* ------------------------------------------------------------ enumeration */

/**
 * hpu_device_list() - enumerate the visible devices
 * @list: receives a malloc'ed array sorted by index (NULL when empty);
 *	release it with hpu_device_list_free()
 * @count: receives the number of entries
 *
 * Scans the device directory (HPU_DEV_DIR or its default, see
 * docs/device-directory.md) and keeps the devices HPU_VISIBLE_DEVICES
 * allows. A missing directory means no devices.
 *
 * Return: 0; -EINVAL for NULL arguments or a malformed
 * HPU_VISIBLE_DEVICES; -ENOMEM; another -errno when the directory exists
 * but cannot be read.
 */
HPUDRV_EXPORT int hpu_device_list(struct hpu_device_info **list, int *count);

/**
 * hpu_device_list_free() - release an array from hpu_device_list()
 * @list: array or NULL
 */
HPUDRV_EXPORT void hpu_device_list_free(struct hpu_device_info *list);

/**
 * hpu_device_count() - number of visible devices
 *
 * Return: the count (>= 0), or -errno as hpu_device_list().
 */
HPUDRV_EXPORT int hpu_device_count(void);

/**
 * hpu_device_get_info() - look up one visible device by index
 * @index: N of hpuN
 * @info: receives the device's description
 *
 * Return: 0; -EINVAL for a negative index or NULL @info; -ENODEV when no
 * visible device has that index.
 */
HPUDRV_EXPORT int hpu_device_get_info(int index, struct hpu_device_info *info);

/**
 * hpu_device_read_attr() - read one attribute of a visible device
 * @index: N of hpuN
 * @name: attribute file name, e.g. "temperature_mc"
 * @buf: receives the value as a NUL-terminated string without the
 *	trailing newline
 * @len: bytes at @buf
 *
 * Return: 0; -EINVAL for bad arguments (a @name with '/' or dots only);
 * -ENODEV for an invisible or absent device; -ENOENT for an unknown
 * attribute; -ERANGE when the value does not fit in @buf.
 */
HPUDRV_EXPORT int hpu_device_read_attr(int index, const char *name, char *buf,
				       size_t len);

/**
 * hpu_driver_read_attr() - read a daemon-wide attribute (driver/<name>)
 * @name: attribute file name, e.g. "version"
 * @buf: receives the value without the trailing newline
 * @len: bytes at @buf
 *
 * Return: 0 or -errno as hpu_device_read_attr(); -ENODEV when there is no
 * device directory.
 */
HPUDRV_EXPORT int hpu_driver_read_attr(const char *name, char *buf, size_t len);

/**
 * hpu_device_processes() - compute contexts holding a device
 * @index: N of hpuN
 * @list: receives a malloc'ed array (NULL when empty); release it with
 *	hpu_process_list_free()
 * @count: receives the number of entries
 *
 * Parses class/hpuN/clients: one "PID DRAM_BYTES COMM" line per context.
 *
 * Return: 0; -EINVAL for bad arguments; -ENODEV for an invisible device;
 * -EIO when the file is malformed; -ENOMEM.
 */
HPUDRV_EXPORT int hpu_device_processes(int index, struct hpu_process **list,
				       int *count);

/**
 * hpu_process_list_free() - release an array from hpu_device_processes()
 * @list: array or NULL
 */
HPUDRV_EXPORT void hpu_process_list_free(struct hpu_process *list);

/* ------------------------------------------------------------------ open */

/**
 * hpu_open() - open the compute node of a visible device
 * @index: N of hpuN
 * @devp: receives the handle
 *
 * A compute context may use every ioctl family and is listed as a holder
 * of the device.
 *
 * Return: 0; -EINVAL for bad arguments; -ENODEV when the device is not
 * visible or absent; -errno of open(2) otherwise.
 */
HPUDRV_EXPORT int hpu_open(int index, struct hpu_device **devp);

/**
 * hpu_open_by_bus_id() - open the compute node of the device at a bus id
 * @bus_id: "DDDD:BB:DD.F" or "BB:DD.F" (domain 0), case-insensitive
 * @devp: receives the handle
 *
 * Return: 0 or -errno as hpu_open().
 */
HPUDRV_EXPORT int hpu_open_by_bus_id(const char *bus_id,
				     struct hpu_device **devp);

/**
 * hpu_open_by_module_id() - open the compute node of the first visible
 * device with a module id
 * @module_id: OAM module id
 * @devp: receives the handle
 *
 * Return: 0 or -errno as hpu_open().
 */
HPUDRV_EXPORT int hpu_open_by_module_id(int module_id,
					struct hpu_device **devp);

/**
 * hpu_open_control() - open the control node of a visible device
 * @index: N of hpu_controlN
 * @devp: receives the handle
 *
 * A control context may only use INFO and never counts as a holder, so
 * monitoring tools should use it.
 *
 * Return: 0 or -errno as hpu_open().
 */
HPUDRV_EXPORT int hpu_open_control(int index, struct hpu_device **devp);

/**
 * hpu_open_control_by_bus_id() - control node variant of
 * hpu_open_by_bus_id()
 * @bus_id: bus id
 * @devp: receives the handle
 *
 * Return: 0 or -errno as hpu_open().
 */
HPUDRV_EXPORT int hpu_open_control_by_bus_id(const char *bus_id,
					     struct hpu_device **devp);

/**
 * hpu_open_control_by_module_id() - control node variant of
 * hpu_open_by_module_id()
 * @module_id: OAM module id
 * @devp: receives the handle
 *
 * Return: 0 or -errno as hpu_open().
 */
HPUDRV_EXPORT int hpu_open_control_by_module_id(int module_id,
						struct hpu_device **devp);

/**
 * hpu_close() - close a handle; its context is torn down by the driver
 * @dev: handle or NULL
 */
HPUDRV_EXPORT void hpu_close(struct hpu_device *dev);

/**
 * hpu_device_fd() - file descriptor of a handle (for poll(2)/read(2))
 * @dev: handle
 *
 * Return: the descriptor, or -EINVAL for NULL.
 */
HPUDRV_EXPORT int hpu_device_fd(const struct hpu_device *dev);

/**
 * hpu_device_index() - N of the hpuN node a handle refers to
 * @dev: handle
 *
 * Return: the index, or -EINVAL for NULL.
 */
HPUDRV_EXPORT int hpu_device_index(const struct hpu_device *dev);

/**
 * hpu_device_is_control() - whether a handle is a control context
 * @dev: handle
 *
 * Return: 1 for control, 0 for compute, -EINVAL for NULL.
 */
HPUDRV_EXPORT int hpu_device_is_control(const struct hpu_device *dev);

/**
 * hpu_device_describe() - description of the device behind a handle
 * @dev: handle
 * @info: receives the description taken at open
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_device_describe(const struct hpu_device *dev,
				      struct hpu_device_info *info);

/* ------------------------------------------------------------------ INFO */

/**
 * hpu_info_hw_ip() - HPU_INFO_HW_IP_INFO
 * @dev: handle (compute or control)
 * @out: answer
 *
 * Every hpu_info_*() call returns 0, -EINVAL for NULL arguments, or the
 * driver's -errno. A driver with a shorter answer leaves the rest of
 * @out zeroed.
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_hw_ip(struct hpu_device *dev,
				 struct hpu_info_hw_ip_info *out);

/**
 * hpu_info_dram_usage() - HPU_INFO_DRAM_USAGE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_dram_usage(struct hpu_device *dev,
				      struct hpu_info_dram_usage *out);

/**
 * hpu_info_hw_idle() - HPU_INFO_HW_IDLE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_hw_idle(struct hpu_device *dev,
				   struct hpu_info_hw_idle *out);

/**
 * hpu_info_device_status() - HPU_INFO_DEVICE_STATUS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_device_status(struct hpu_device *dev,
					 struct hpu_info_device_status *out);

/**
 * hpu_info_utilization() - HPU_INFO_DEVICE_UTILIZATION
 * @dev: handle
 * @period_ms: averaging window, 100..1000 ms
 * @out: answer
 *
 * Return: 0, -EINVAL for a period out of range, or -errno.
 */
HPUDRV_EXPORT int hpu_info_utilization(struct hpu_device *dev,
				       unsigned int period_ms,
				       struct hpu_info_device_utilization *out);

/**
 * hpu_info_clk_rate() - HPU_INFO_CLK_RATE
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_clk_rate(struct hpu_device *dev,
				    struct hpu_info_clk_rate *out);

/**
 * hpu_info_reset_count() - HPU_INFO_RESET_COUNT
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_reset_count(struct hpu_device *dev,
				       struct hpu_info_reset_count *out);

/**
 * hpu_info_time_sync() - HPU_INFO_TIME_SYNC
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_time_sync(struct hpu_device *dev,
				     struct hpu_info_time_sync *out);

/**
 * hpu_info_cs_counters() - HPU_INFO_CS_COUNTERS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_cs_counters(struct hpu_device *dev,
				       struct hpu_info_cs_counters *out);

/**
 * hpu_info_power() - HPU_INFO_POWER
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_power(struct hpu_device *dev,
				 struct hpu_info_power *out);

/**
 * hpu_info_thermal() - HPU_INFO_THERMAL
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_thermal(struct hpu_device *dev,
				   struct hpu_info_thermal *out);

/**
 * hpu_info_open_stats() - HPU_INFO_OPEN_STATS
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_open_stats(struct hpu_device *dev,
				      struct hpu_info_open_stats *out);

/**
 * hpu_info_get_events() - HPU_INFO_GET_EVENTS (reading clears the mask)
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_get_events(struct hpu_device *dev,
				      struct hpu_info_events *out);

/**
 * hpu_info_pci() - HPU_INFO_PCI_INFO
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_pci(struct hpu_device *dev,
			       struct hpu_info_pci *out);

/**
 * hpu_info_driver_version() - HPU_INFO_DRIVER_VERSION
 * @dev: handle
 * @out: answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_driver_version(struct hpu_device *dev,
					  struct hpu_info_driver_version *out);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_H */
