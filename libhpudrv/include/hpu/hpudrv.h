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
#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"

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
 * @HPU_DEVICE_KIND_SIMULATED: a node hpuN of hpu-fused's device directory
 * @HPU_DEVICE_KIND_KERNEL: a kernel accel device (subsystem "accel", node
 *	/dev/accel/accelN) of a PCI device bound to the habanalabs driver,
 *	found through libudev (HPUDRV_1.4). Enumerated, but not opened by
 *	this library: hpu_open() of one returns -EOPNOTSUPP.
 */
enum hpu_device_kind {
	HPU_DEVICE_KIND_SIMULATED = 0,
	HPU_DEVICE_KIND_KERNEL = 1,
};

/**
 * struct hpu_device_info - one enumerated device
 * @index: index in the one list of both kinds: kernel devices first,
 *	0..K-1 in accel minor order, then simulated hpuN as K + N;
 *	never renumbered by HPU_VISIBLE_DEVICES (docs/libhpudrv.md)
 * @kind: enum hpu_device_kind
 * @module_id: OAM module id, -1 when unknown
 * @device_id: PCI device id, 0 when unknown
 * @node_name: "hpuN" or "accelN"
 * @node_path: path of the compute node
 * @control_path: path of the control node
 * @attr_dir: directory holding the device's attributes (for a kernel
 *	device the PCI device's sysfs directory)
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
 * It follows the symbol versions: HPUDRV_1.6 as the newest node of the
 * version script is "1.6.0" (also the file name libhpudrv.so.1.6.0 and the
 * pkg-config version), so "MAJOR.MINOR" says which symbols exist.
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
 * @period_ms: averaging window, HPU_INFO_PERIOD_MS_MIN..HPU_INFO_PERIOD_MS_MAX
 *	(100..1000) ms
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

/* ---------------------------------------------------------------- memory */

/**
 * hpu_mem_alloc() - allocate device memory (HPU_MEM_OP_ALLOC)
 * @dev: compute handle
 * @size: bytes, > 0; rounded up to the page size by the driver
 * @page_size: a bit of HW_IP_INFO.page_size_mask, or 0 for the default
 * @flags: HPU_MEM_CONTIGUOUS, HPU_MEM_SRAM
 * @handle: receives the allocation handle (valid in this context only)
 *
 * Return: 0; -EINVAL for bad arguments; -ENOMEM when the device is full.
 */
HPUDRV_EXPORT int hpu_mem_alloc(struct hpu_device *dev, uint64_t size,
				uint64_t page_size, uint32_t flags,
				uint64_t *handle);

/**
 * hpu_mem_free() - free an allocation
 * @dev: compute handle
 * @handle: handle from hpu_mem_alloc()
 *
 * Return: 0; -EINVAL for an unknown handle; -EBUSY while it is mapped.
 */
HPUDRV_EXPORT int hpu_mem_free(struct hpu_device *dev, uint64_t handle);

/**
 * hpu_mem_map() - map an allocation into the context's device VA space
 * @dev: compute handle
 * @handle: allocation handle
 * @hint: wanted device VA or 0 (mandatory with HPU_MEM_FIXED)
 * @flags: 0 or HPU_MEM_FIXED
 * @va: receives the device VA
 *
 * Return: 0; -EINVAL; -ENOMEM (VA space); -EEXIST (FIXED overlap).
 */
HPUDRV_EXPORT int hpu_mem_map(struct hpu_device *dev, uint64_t handle,
			      uint64_t hint, uint32_t flags, uint64_t *va);

/**
 * hpu_mem_map_host() - map host memory of this process to the device
 * @dev: compute handle
 * @ptr: start of the host range (any alignment)
 * @size: bytes, > 0
 * @hint: wanted device VA or 0 (mandatory with HPU_MEM_FIXED)
 * @flags: 0 or HPU_MEM_FIXED (HPU_MEM_USERPTR is implied)
 * @va: receives the device VA of @ptr (the offset in the page is kept)
 *
 * The pages must stay mapped in the process while the device may use
 * them; DMA to them is a copy into this process's memory.
 *
 * Return: 0; -EINVAL; -EFAULT when the range is not mapped here.
 */
HPUDRV_EXPORT int hpu_mem_map_host(struct hpu_device *dev, const void *ptr,
				   size_t size, uint64_t hint, uint32_t flags,
				   uint64_t *va);

/**
 * hpu_mem_unmap() - remove a device or host mapping
 * @dev: compute handle
 * @va: device VA returned by hpu_mem_map() or hpu_mem_map_host()
 *
 * Return: 0; -EINVAL when no mapping starts at @va.
 */
HPUDRV_EXPORT int hpu_mem_unmap(struct hpu_device *dev, uint64_t va);

/**
 * hpu_mem_export() - export an allocation as a shared-memory file
 * @dev: compute handle
 * @handle: allocation handle
 * @export_id: receives the id naming the file (hpu_mem_export_path())
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_mem_export(struct hpu_device *dev, uint64_t handle,
				 uint64_t *export_id);

/**
 * hpu_mem_export_path() - path of an exported allocation's file
 * @dev: handle of the device that exported it
 * @export_id: id from hpu_mem_export()
 * @buf: receives "EXPORT_DIR/ID" (EXPORT_DIR: attribute export_dir)
 * @len: bytes at @buf
 *
 * Return: 0; -ENOENT when the driver has no export_dir; -ERANGE.
 */
HPUDRV_EXPORT int hpu_mem_export_path(struct hpu_device *dev,
				      uint64_t export_id, char *buf,
				      size_t len);

/**
 * hpu_mem_export_mmap() - map an exported allocation into this process
 * @dev: handle of the device that exported it
 * @export_id: id from hpu_mem_export()
 * @ptr: receives the shared, read-write mapping (release with munmap(2))
 * @size: receives its size in bytes (the allocation's size)
 *
 * Return: 0 or -errno of open(2)/mmap(2).
 */
HPUDRV_EXPORT int hpu_mem_export_mmap(struct hpu_device *dev,
				      uint64_t export_id, void **ptr,
				      size_t *size);

/**
 * hpu_host_alloc() - allocate pinned host memory mapped to the device
 * @dev: compute handle
 * @size: bytes, > 0 (rounded up to 4096)
 * @ptr: receives the memory in this process (read-write, zero-filled)
 * @va: receives its device VA (HPU_MEM_OP_MAP_SHM)
 *
 * The memory is a sealed memfd that this process and the driver both map
 * shared, so DMA to and from it moves at memcpy speed, without copying
 * through this process (cudaHostAlloc). Release it with hpu_host_free();
 * hpu_close() releases what is left.
 *
 * Return: 0; -EINVAL; -ENOMEM; -errno of memfd_create(2)/mmap(2).
 */
HPUDRV_EXPORT int hpu_host_alloc(struct hpu_device *dev, size_t size,
				 void **ptr, uint64_t *va);

/**
 * hpu_host_free() - unmap pinned host memory from the device and free it
 * @dev: the handle that allocated it
 * @ptr: pointer from hpu_host_alloc()
 *
 * Return: 0; -EINVAL when @ptr is not pinned memory of @dev.
 */
HPUDRV_EXPORT int hpu_host_free(struct hpu_device *dev, void *ptr);

/* ------------------------------------------------------ command buffers */

/**
 * hpu_cb_create() - register a user command buffer with the device
 * @dev: compute handle
 * @host_ptr: the buffer; it stays in this process
 * @size: bytes, 8..HPU_MAX_CB_SIZE, a multiple of 8
 * @handle: receives the CB handle
 * @va: receives the device VA of the CB (may be NULL)
 *
 * The driver copies the CB at each submission, so it may be rewritten
 * between submissions.
 *
 * Return: 0; -EINVAL; -EFAULT.
 */
HPUDRV_EXPORT int hpu_cb_create(struct hpu_device *dev, void *host_ptr,
				uint32_t size, uint64_t *handle, uint64_t *va);

/**
 * hpu_cb_destroy() - unregister a command buffer
 * @dev: compute handle
 * @handle: CB handle
 *
 * Return: 0; -EINVAL unknown handle; -EBUSY while a CS in flight uses it.
 */
HPUDRV_EXPORT int hpu_cb_destroy(struct hpu_device *dev, uint64_t handle);

/**
 * hpu_cb_info() - size, device VA and users of a command buffer
 * @dev: compute handle
 * @handle: CB handle
 * @out: receives cb_size, device_va and usage_cnt
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_info(struct hpu_device *dev, uint64_t handle,
			      struct hpu_cb_out *out);

/* ---------------------------------------------------- command submission */

/**
 * hpu_cs_submit() - submit a CS (HPU_IOCTL_CS)
 * @dev: compute handle
 * @chunks: @n chunks (struct hpu_cs_chunk of hpu_accel.h)
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @flags: HPU_CS_FLAGS_*
 * @timeout_ms: the CS's timeout; 0 for the driver's default
 * @seq: receives the sequence number
 * @completed: receives 1 when the CS already ended before the call
 *	returned (no WAIT needed), else 0; may be NULL
 *
 * Return: 0; -EINVAL (any invalid packet: nothing ran); -EAGAIN when
 * 1024 CSs are in flight.
 */
HPUDRV_EXPORT int hpu_cs_submit(struct hpu_device *dev,
				const struct hpu_cs_chunk *chunks,
				unsigned int n, uint32_t flags,
				uint32_t timeout_ms, uint64_t *seq,
				int *completed);

/**
 * hpu_cs_submit_signal() - SIGNAL submission: completes when every named
 * queue finished all work submitted to it before
 * @dev: compute handle
 * @queues: @n queue indices
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @seq: receives the sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0 or -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cs_submit_signal(struct hpu_device *dev,
				       const uint32_t *queues, unsigned int n,
				       uint64_t *seq, int *completed);

/**
 * hpu_cs_submit_wait() - WAIT submission: work submitted to @queue after
 * it starts only once every CS in @seqs ended
 * @dev: compute handle
 * @queue: queue index
 * @seqs: @n sequence numbers of this context
 * @n: 1..HPU_WAIT_MULTI_CS_MAX
 * @seq: receives the WAIT CS's own sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0 or -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cs_submit_wait(struct hpu_device *dev, uint32_t queue,
				     const uint64_t *seqs, unsigned int n,
				     uint64_t *seq, int *completed);

/**
 * hpu_cs_wait() - wait for one CS (HPU_IOCTL_WAIT_CS)
 * @dev: compute handle
 * @seq: sequence number
 * @timeout_us: how long to wait; 0 polls
 * @status: receives HPU_WAIT_CS_STATUS_*
 *
 * A wait interrupted by a signal is restarted with the time left.
 *
 * Return: 0 (whatever the status); -EINVAL for a never issued @seq.
 */
HPUDRV_EXPORT int hpu_cs_wait(struct hpu_device *dev, uint64_t seq,
			      uint64_t timeout_us, uint32_t *status);

/**
 * hpu_cs_wait_timestamp() - hpu_cs_wait() that also returns the
 * completion time of a CS submitted with HPU_CS_FLAGS_TIMESTAMP
 * @dev: compute handle
 * @seq: sequence number
 * @timeout_us: how long to wait; 0 polls
 * @status: receives HPU_WAIT_CS_STATUS_*
 * @timestamp_ns: receives the device time of completion, or 0 when the
 *	driver reported none
 *
 * Return: 0 or -errno as hpu_cs_wait().
 */
HPUDRV_EXPORT int hpu_cs_wait_timestamp(struct hpu_device *dev, uint64_t seq,
					uint64_t timeout_us, uint32_t *status,
					uint64_t *timestamp_ns);

/**
 * hpu_cs_wait_multi() - wait for all (or any) of several CSs
 * @dev: compute handle
 * @seqs: @n sequence numbers
 * @n: 1..HPU_WAIT_MULTI_CS_MAX
 * @any: non-zero: return when the first one ended
 * @timeout_us: how long to wait; 0 polls
 * @status: receives COMPLETED when all that ended succeeded, else the
 *	status of the first failed one, or BUSY when not met in time
 * @map: receives bit i set for each entry that ended (may be NULL)
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cs_wait_multi(struct hpu_device *dev,
				    const uint64_t *seqs, unsigned int n,
				    int any, uint64_t timeout_us,
				    uint32_t *status, uint32_t *map);

/**
 * hpu_event_read() - read queued driver events without blocking
 * @dev: compute handle
 * @events: room for @max records
 * @max: >= 1
 *
 * Return: number of records read (0 when none is queued) or -errno.
 */
HPUDRV_EXPORT int hpu_event_read(struct hpu_device *dev,
				 struct hpu_event *events, unsigned int max);

/**
 * hpu_device_poll() - poll(2) the device node
 * @dev: compute handle
 * @events: POLLIN (events queued), POLLPRI (a CS ended since the last
 *	WAIT_CS)
 * @timeout_ms: as poll(2); -1 waits forever
 *
 * Return: the revents (0 on timeout) or -errno (-ENODEV: the device was
 * hot-removed, the driver answered POLLERR).
 */
HPUDRV_EXPORT int hpu_device_poll(struct hpu_device *dev, short events,
				  int timeout_ms);

/* ------------------------------------------------ command-buffer builder */

/** struct hpu_cb_builder - a command buffer being filled (opaque) */
struct hpu_cb_builder;

/**
 * hpu_cb_builder_create() - a page-aligned buffer registered once as a CB
 * @dev: compute handle
 * @size: capacity in bytes, 8..HPU_MAX_CB_SIZE, a multiple of 8
 * @bp: receives the builder
 *
 * Return: 0; -EINVAL; -ENOMEM; -errno of hpu_cb_create().
 */
HPUDRV_EXPORT int hpu_cb_builder_create(struct hpu_device *dev, size_t size,
					struct hpu_cb_builder **bp);

/**
 * hpu_cb_builder_destroy() - unregister the CB and free the buffer
 * @b: builder or NULL
 */
HPUDRV_EXPORT void hpu_cb_builder_destroy(struct hpu_cb_builder *b);

/**
 * hpu_cb_builder_reset() - empty the builder to fill it again
 * @b: builder
 *
 * The driver copied what earlier submissions run, so resetting right
 * after hpu_cb_builder_submit() is safe.
 */
HPUDRV_EXPORT void hpu_cb_builder_reset(struct hpu_cb_builder *b);

/** hpu_cb_builder_size() - capacity of @b in bytes */
HPUDRV_EXPORT size_t hpu_cb_builder_size(const struct hpu_cb_builder *b);

/** hpu_cb_builder_used() - bytes of packets in @b */
HPUDRV_EXPORT size_t hpu_cb_builder_used(const struct hpu_cb_builder *b);

/** hpu_cb_builder_data() - the packets of @b (hpu_cb_builder_used() bytes) */
HPUDRV_EXPORT const void *hpu_cb_builder_data(const struct hpu_cb_builder *b);

/** hpu_cb_builder_handle() - CB handle of @b (0 when not registered) */
HPUDRV_EXPORT uint64_t hpu_cb_builder_handle(const struct hpu_cb_builder *b);

/**
 * hpu_cb_builder_submit() - submit the packets of @b as one CS
 * @b: builder with at least one packet
 * @queue: queue index that runs it
 * @flags: HPU_CS_FLAGS_TIMESTAMP or 0
 * @timeout_ms: CS timeout, 0 for the default
 * @seq: receives the sequence number
 * @completed: as hpu_cs_submit(), may be NULL
 *
 * Return: 0; -ENODATA when @b is empty; -errno as hpu_cs_submit().
 */
HPUDRV_EXPORT int hpu_cb_builder_submit(struct hpu_cb_builder *b,
					uint32_t queue, uint32_t flags,
					uint32_t timeout_ms, uint64_t *seq,
					int *completed);

/*
 * Emitters: append one packet. Each returns 0, -ENOSPC when the packet
 * does not fit (nothing is written), or -EINVAL for arguments the
 * driver's validator would reject (uapi/hpu_packets.h).
 */

/** hpu_cb_nop() - append NOP */
HPUDRV_EXPORT int hpu_cb_nop(struct hpu_cb_builder *b);

/** hpu_cb_stop() - append STOP (ends execution of the CB) */
HPUDRV_EXPORT int hpu_cb_stop(struct hpu_cb_builder *b);

/**
 * hpu_cb_lin_dma() - append LIN_DMA
 * @b: builder
 * @dst: device VA of the destination
 * @src: device VA of the source
 * @size: bytes (0 is a no-op)
 *
 * Return: 0 or -ENOSPC.
 */
HPUDRV_EXPORT int hpu_cb_lin_dma(struct hpu_cb_builder *b, uint64_t dst,
				 uint64_t src, uint64_t size);

/**
 * hpu_cb_memset() - append MEMSET
 * @b: builder
 * @dst: device VA, aligned to @width
 * @size: bytes, a multiple of @width
 * @value: pattern (low @width bytes, little-endian)
 * @width: element width 1, 2, 4 or 8
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_memset(struct hpu_cb_builder *b, uint64_t dst,
				uint64_t size, uint64_t value,
				unsigned int width);

/**
 * hpu_cb_msg_long() - append MSG_LONG: set or add to a sync object
 * @b: builder
 * @sob: 0..HPU_NUM_SOBS-1
 * @op: HPU_MSG_OP_SET or HPU_MSG_OP_ADD
 * @value: 0..HPU_SOB_MAX_VALUE
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_msg_long(struct hpu_cb_builder *b, uint32_t sob,
				  uint32_t op, uint32_t value);

/**
 * hpu_cb_fence() - append FENCE: the queue waits until sob >= @target,
 * then subtracts @dec
 * @b: builder
 * @sob: 0..HPU_NUM_SOBS-1
 * @target: 1..HPU_SOB_MAX_VALUE
 * @dec: 0..@target
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_fence(struct hpu_cb_builder *b, uint32_t sob,
			       uint32_t target, uint32_t dec);

/**
 * hpu_cb_arm_monitor() - append ARM_MONITOR: when sob >= @target, write
 * @payload (32 bits) at @addr once
 * @b: builder
 * @mon: 0..HPU_NUM_MONITORS-1
 * @sob: 0..HPU_NUM_SOBS-1
 * @target: 1..HPU_SOB_MAX_VALUE
 * @payload: value written
 * @addr: device VA, 4-byte aligned
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_arm_monitor(struct hpu_cb_builder *b, uint32_t mon,
				     uint32_t sob, uint32_t target,
				     uint32_t payload, uint64_t addr);

/* ---------------------------------------------------- engine packets */

/**
 * hpu_cb_mme_gemm() - append an MME_GEMM packet (run it on an MME queue)
 * @b: builder
 * @gemm: the product; @gemm->hdr is filled in by the call (its flags
 *	field carries HPU_MME_F_TRANS_A/B and is kept)
 *
 * The shapes, leading dimensions, strides, dtypes and address ranges are
 * checked on the host with the driver's own rules before anything is
 * appended.
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_mme_gemm(struct hpu_cb_builder *b,
				  const struct hpu_pkt_mme_gemm *gemm);

/**
 * hpu_cb_tpc_kernel() - append a TPC_KERNEL packet (run it on a TPC queue)
 * @b: builder
 * @kernel_id: HPU_TPC_KERNEL_* (uapi/hpu_tpc_kernels.h)
 * @tensors: the kernel's operands in its documented order
 * @num_tensors: 1..HPU_TPC_MAX_TENSORS
 * @params: kernel parameters (binary32 bits for reals), may be NULL
 * @num_params: 0..HPU_TPC_MAX_PARAMS
 *
 * The operands are checked on the host with the driver's own rules for
 * @kernel_id (docs/tpc-kernels.md) before anything is appended.
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_tpc_kernel(struct hpu_cb_builder *b,
				    uint32_t kernel_id,
				    const struct hpu_tpc_tensor *tensors,
				    unsigned int num_tensors,
				    const uint32_t *params,
				    unsigned int num_params);

/* ------------------------------------------------------ streams, events */

/** HPU_STREAM_QUEUE_AUTO - let hpu_stream_create() pick a DMA queue */
#define HPU_STREAM_QUEUE_AUTO (-1)

/** struct hpu_stream - an in-order queue of asynchronous work (opaque) */
struct hpu_stream;

/** struct hpu_stream_event - a marker recorded in a stream (opaque) */
struct hpu_stream_event;

/**
 * hpu_stream_create() - a stream on a DMA queue
 * @dev: compute handle
 * @queue: DMA queue index, or HPU_STREAM_QUEUE_AUTO (round robin over the
 *	device's DMA queues)
 * @sp: receives the stream
 *
 * A stream is used by one thread at a time. Work is batched in the
 * stream's command buffer and submitted at hpu_event_record(),
 * hpu_stream_synchronize(), hpu_stream_flush() or when the buffer fills.
 *
 * Return: 0; -EINVAL (not a DMA queue); -ENOMEM; -errno.
 */
HPUDRV_EXPORT int hpu_stream_create(struct hpu_device *dev, int queue,
				    struct hpu_stream **sp);

/**
 * hpu_stream_destroy() - synchronize, then release a stream
 * @s: stream or NULL
 */
HPUDRV_EXPORT void hpu_stream_destroy(struct hpu_stream *s);

/** hpu_stream_queue() - queue index of @s */
HPUDRV_EXPORT int hpu_stream_queue(const struct hpu_stream *s);

/**
 * hpu_stream_memcpy_h2d() - copy host memory to device memory
 * @s: stream
 * @dst: device VA
 * @src: host memory; it must stay valid and unchanged until the copy
 *	completed (hpu_stream_synchronize() or an event recorded after)
 * @size: bytes
 *
 * The host range is mapped to the device for the copy and unmapped once
 * the stream observed its completion.
 *
 * Return: 0 or -errno (a failure of the copy itself is reported by
 * hpu_stream_synchronize()).
 */
HPUDRV_EXPORT int hpu_stream_memcpy_h2d(struct hpu_stream *s, uint64_t dst,
					const void *src, size_t size);

/**
 * hpu_stream_memcpy_d2h() - copy device memory to host memory
 * @s: stream
 * @dst: host memory, valid until the copy completed
 * @src: device VA
 * @size: bytes
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memcpy_d2h(struct hpu_stream *s, void *dst,
					uint64_t src, size_t size);

/**
 * hpu_stream_memcpy_d2d() - copy between device VAs
 * @s: stream
 * @dst: device VA
 * @src: device VA
 * @size: bytes
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memcpy_d2d(struct hpu_stream *s, uint64_t dst,
					uint64_t src, size_t size);

/**
 * hpu_stream_memset() - fill device memory
 * @s: stream
 * @dst: device VA aligned to @width
 * @value: pattern
 * @width: 1, 2, 4 or 8 bytes
 * @size: bytes, a multiple of @width
 *
 * Return: 0, -EINVAL or -errno.
 */
HPUDRV_EXPORT int hpu_stream_memset(struct hpu_stream *s, uint64_t dst,
				    uint64_t value, unsigned int width,
				    size_t size);

/**
 * hpu_stream_flush() - submit the batched work now
 * @s: stream
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_flush(struct hpu_stream *s);

/**
 * hpu_stream_synchronize() - submit and wait for all work of @s
 * @s: stream
 *
 * Return: 0; -EIO when a CS of the stream was aborted; -ETIMEDOUT when
 * one timed out; -errno.
 */
HPUDRV_EXPORT int hpu_stream_synchronize(struct hpu_stream *s);

/**
 * hpu_stream_wait_event() - later work of @s waits for @ev
 * @s: stream
 * @ev: event recorded (on any stream of the same device); an event never
 *	recorded is complete
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_stream_wait_event(struct hpu_stream *s,
					struct hpu_stream_event *ev);

/**
 * hpu_event_create() - an event (not yet recorded)
 * @dev: compute handle
 * @evp: receives it
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
HPUDRV_EXPORT int hpu_event_create(struct hpu_device *dev,
				   struct hpu_stream_event **evp);

/** hpu_event_destroy() - release an event (@ev may be NULL) */
HPUDRV_EXPORT void hpu_event_destroy(struct hpu_stream_event *ev);

/**
 * hpu_event_record() - mark the current end of @s's work in @ev
 * @ev: event
 * @s: stream of the same device
 *
 * Submits the stream's batch with HPU_CS_FLAGS_TIMESTAMP.
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_event_record(struct hpu_stream_event *ev,
				   struct hpu_stream *s);

/**
 * hpu_event_query() - whether the work before @ev ended
 * @ev: event
 *
 * Return: 0 when ended (or never recorded); -EBUSY when not yet; -EIO
 * (aborted) or -ETIMEDOUT (timed out) when it failed.
 */
HPUDRV_EXPORT int hpu_event_query(struct hpu_stream_event *ev);

/**
 * hpu_event_synchronize() - wait until the work before @ev ended
 * @ev: event
 *
 * Return: 0, -EIO, -ETIMEDOUT or -errno.
 */
HPUDRV_EXPORT int hpu_event_synchronize(struct hpu_stream_event *ev);

/**
 * hpu_event_elapsed_time() - device time between two completed events
 * @start: earlier event
 * @end: later event
 * @ms: receives the milliseconds between their completions
 *
 * Return: 0; -EBUSY when one has not completed; -ENODATA when one was
 * never recorded or the driver gave no timestamp; -EIO/-ETIMEDOUT.
 */
HPUDRV_EXPORT int hpu_event_elapsed_time(struct hpu_stream_event *start,
					 struct hpu_stream_event *end,
					 float *ms);

/* ---------------------------------------------- caching device allocator */

/** struct hpu_allocator - caching device-memory allocator (opaque) */
struct hpu_allocator;

/**
 * struct hpu_allocator_opts - hpu_allocator_create() options
 * @sz: sizeof(struct hpu_allocator_opts), set by the caller
 * @max_cached_bytes: cached (free) bytes kept at most before freed blocks
 *	go back to the device; 0 for no limit
 * @flags: must be 0
 *
 * Initialise it whole, e.g. ``struct hpu_allocator_opts o = { .sz =
 * sizeof(o), .max_cached_bytes = 1 << 30 };``. A smaller @sz (a program
 * built against an older header) leaves the fields it does not cover at
 * their defaults; a larger one (a newer header) is refused unless every
 * byte this library does not know is zero. Since HPUDRV_1.6; before, the
 * struct had no @sz (programs built then still get that ABI).
 */
struct hpu_allocator_opts {
	size_t sz;
	uint64_t max_cached_bytes;
	uint64_t flags;
};

/**
 * struct hpu_allocator_stats - allocator statistics (bytes are block
 * sizes after rounding to the size class)
 * @bytes_in_use: handed out and not freed
 * @peak_bytes_in_use: largest @bytes_in_use seen
 * @bytes_reserved: held from the device: in use plus cached
 * @bytes_cached: free blocks kept for reuse
 * @num_allocs: successful hpu_alloc() calls
 * @num_frees: successful hpu_free() calls
 * @cache_hits: allocations served from the cache
 * @cache_misses: allocations that needed a device allocation
 * @num_device_allocs: device ALLOC+MAP done
 * @num_device_frees: device UNMAP+FREE done
 * @num_ooms: device -ENOMEM seen (each emptied the cache and retried)
 */
struct hpu_allocator_stats {
	uint64_t bytes_in_use;
	uint64_t peak_bytes_in_use;
	uint64_t bytes_reserved;
	uint64_t bytes_cached;
	uint64_t num_allocs;
	uint64_t num_frees;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t num_device_allocs;
	uint64_t num_device_frees;
	uint64_t num_ooms;
};

/**
 * hpu_allocator_create() - caching allocator of mapped device memory
 * @dev: compute handle (must outlive the allocator)
 * @opts: options or NULL for the defaults
 * @ap: receives the allocator
 *
 * Size classes: powers of two from 512 B to 2 MiB; larger requests are
 * rounded up to a multiple of 2 MiB and reused for the same rounded size.
 * Thread-safe.
 *
 * Return: 0; -EINVAL (@dev or @ap NULL, @opts->sz smaller than the size
 * field, flags not 0); -E2BIG (@opts is larger than this library knows
 * and its unknown tail is not zero, or @opts->sz is above a page);
 * -ENOMEM.
 */
HPUDRV_EXPORT int hpu_allocator_create(struct hpu_device *dev,
				       const struct hpu_allocator_opts *opts,
				       struct hpu_allocator **ap);

/**
 * hpu_allocator_destroy() - return every block (cached and in use) to the
 * device and free the allocator
 * @a: allocator or NULL
 */
HPUDRV_EXPORT void hpu_allocator_destroy(struct hpu_allocator *a);

/**
 * hpu_alloc() - device memory mapped in the context
 * @a: allocator
 * @size: bytes, > 0
 * @va: receives the device VA
 *
 * Return: 0; -EINVAL; -ENOMEM after emptying the cache and retrying once.
 */
HPUDRV_EXPORT int hpu_alloc(struct hpu_allocator *a, uint64_t size,
			    uint64_t *va);

/**
 * hpu_free() - give a block back to the cache
 * @a: allocator
 * @va: VA from hpu_alloc()
 *
 * Return: 0 or -EINVAL for a VA not handed out by @a.
 */
HPUDRV_EXPORT int hpu_free(struct hpu_allocator *a, uint64_t va);

/**
 * hpu_allocator_stats() - snapshot of the statistics
 * @a: allocator
 * @stats: receives them
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_allocator_stats(struct hpu_allocator *a,
				      struct hpu_allocator_stats *stats);

/**
 * hpu_allocator_empty_cache() - return every cached block to the device
 * @a: allocator
 *
 * Return: 0 or -EINVAL.
 */
HPUDRV_EXPORT int hpu_allocator_empty_cache(struct hpu_allocator *a);

/* ------------------------------------------- NIC and fault injection (1.3) */

/**
 * hpu_info_nic() - the device's NIC ports and its server (HPU_INFO_NIC)
 * @dev: compute or control handle
 * @out: receives the answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_nic(struct hpu_device *dev,
			       struct hpu_info_nic *out);

/**
 * hpu_nic_reg_mr() - register device memory (superseded, see below)
 * @dev: compute handle
 * @va: device VA of the region (HBM, SRAM or pinned host memory)
 * @size: bytes, > 0
 * @key: receives the region's handle (never 0) for hpu_nic_dereg_mr()
 *
 * Since HPUDRV_1.5 (ABI 1.1) keys are 64 bits and do not fit @key: what
 * it receives is the handle, which names no region in a peer's
 * NIC_WRITE. Use hpu_nic_register(), which gives both.
 *
 * Return: 0; -EINVAL; -EFAULT (range not mapped to device-reachable
 * memory); -ENOSPC (HPU_NIC_MAX_MRS regions); -errno.
 */
HPUDRV_EXPORT int hpu_nic_reg_mr(struct hpu_device *dev, uint64_t va,
				 uint64_t size, uint32_t *key);

/**
 * hpu_nic_dereg_mr() - revoke a region: later writes to it fail
 * @dev: compute handle
 * @key: the region's handle (hpu_nic_register(), hpu_nic_reg_mr())
 *
 * Return: 0, -ENOENT or -errno.
 */
HPUDRV_EXPORT int hpu_nic_dereg_mr(struct hpu_device *dev, uint32_t key);

/**
 * hpu_nic_register() - register device memory for remote writes (1.5)
 * @dev: compute handle
 * @va: device VA of the region (HBM, SRAM or pinned host memory)
 * @size: bytes, > 0
 * @handle: receives the region's handle (never 0) for hpu_nic_dereg_mr()
 * @rkey: receives the region's key (64 bits, unpredictable, never 0) for
 *	peers' NIC_WRITE packets (hpu_cb_nic_write_key()); peers write
 *	only over connections this handle's context accepted
 *	(hpu_nic_accept())
 *
 * Return: 0; -EINVAL; -EFAULT (range not mapped to device-reachable
 * memory); -ENOSPC (HPU_NIC_MAX_MRS regions); -errno.
 */
HPUDRV_EXPORT int hpu_nic_register(struct hpu_device *dev, uint64_t va,
				   uint64_t size, uint32_t *handle,
				   uint64_t *rkey);

/**
 * struct hpu_nic_peer - where a connection goes
 * @port: local NIC port (a scale-up port wired to @device, or a scale-out
 *	port for another server)
 * @ipv4: remote server's scale-out address, network byte order; 0 for a
 *	device of this server
 * @tcp_port: remote server's scale-out TCP port, host byte order; 0 for a
 *	device of this server
 * @device: device index in that server
 */
struct hpu_nic_peer {
	uint32_t port;
	uint32_t ipv4;
	uint16_t tcp_port;
	uint32_t device;
};

/**
 * hpu_nic_connect() - connect a NIC port of @dev to a peer device
 * @dev: compute handle
 * @peer: the peer
 * @conn: receives the connection id (never 0) for NIC_WRITE packets
 *
 * Return: 0; -EINVAL; -ENODEV; -ENETDOWN; -EHOSTUNREACH, -ECONNREFUSED,
 * -ETIMEDOUT; -ENOSPC; -errno (docs/nic.md).
 */
HPUDRV_EXPORT int hpu_nic_connect(struct hpu_device *dev,
				  const struct hpu_nic_peer *peer,
				  uint32_t *conn);

/**
 * hpu_nic_connect_token() - connect a NIC port of @dev to a peer device
 * and learn the connection's token (1.5)
 * @dev: compute handle
 * @peer: the peer
 * @conn: receives the connection id (never 0) for NIC_WRITE packets
 * @token: receives the connection's token (never 0): the owner of the
 *	memory the connection is to write passes it to hpu_nic_accept()
 *	before the first write (hand it over out of band)
 *
 * Return: as hpu_nic_connect().
 */
HPUDRV_EXPORT int hpu_nic_connect_token(struct hpu_device *dev,
					const struct hpu_nic_peer *peer,
					uint32_t *conn, uint64_t *token);

/**
 * hpu_nic_accept() - let a peer's connection write into this context's
 * registered regions (1.5)
 * @dev: compute handle (the context whose regions the peer writes)
 * @token: the connection's token (hpu_nic_connect_token() of the peer)
 * @id: receives the acceptance's id (never 0) for hpu_nic_disconnect()
 *
 * Return: 0; -EINVAL (token 0, or a driver of ABI 1.0, which lacks
 * HPU_CAP_NIC_PD); -EEXIST (accepted already); -EBUSY (another context
 * of the device accepted it); -ENOSPC (HPU_NIC_MAX_ACCEPTS); -errno.
 */
HPUDRV_EXPORT int hpu_nic_accept(struct hpu_device *dev, uint64_t token,
				 uint32_t *id);

/**
 * hpu_nic_disconnect() - drop a connection or an acceptance
 * @dev: compute handle
 * @conn: id from hpu_nic_connect() or hpu_nic_accept()
 *
 * Return: 0, -ENOENT or -errno.
 */
HPUDRV_EXPORT int hpu_nic_disconnect(struct hpu_device *dev, uint32_t conn);

/**
 * hpu_nic_scaleup_port() - first scale-up port of @info wired to a device
 * @info: HPU_INFO_NIC answer of the local device
 * @device: index of the peer device in the same server
 *
 * Return: the port, or -ENOENT when none is wired to it.
 */
HPUDRV_EXPORT int hpu_nic_scaleup_port(const struct hpu_info_nic *info,
				       uint32_t device);

/**
 * hpu_cb_nic_write() - append a NIC_WRITE packet with a 32-bit key
 * (superseded: keys are 64 bits since HPUDRV_1.5, use
 * hpu_cb_nic_write_key())
 * @b: builder of a CB for a NIC queue
 * @conn: connection id made on that queue's port
 * @src: local device VA
 * @rkey: key of the peer's region
 * @remote_offset: offset in the peer's region
 * @size: bytes (0: signal only; @sob_value must then be non-zero)
 * @sob_id: peer sync object to signal
 * @sob_value: added to it; 0 for no signal (then @sob_id must be 0)
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_nic_write(struct hpu_cb_builder *b, uint32_t conn,
				   uint64_t src, uint32_t rkey,
				   uint64_t remote_offset, uint64_t size,
				   uint32_t sob_id, uint32_t sob_value);

/**
 * hpu_cb_nic_write_key() - append a NIC_WRITE packet (1.5)
 * @b: builder of a CB for a NIC queue
 * @conn: connection id made on that queue's port; the peer accepted its
 *	token (hpu_nic_accept())
 * @src: local device VA
 * @rkey: key of the peer's region (hpu_nic_register() of the peer)
 * @remote_offset: offset in the peer's region
 * @size: bytes (0: signal only; @sob_value must then be non-zero)
 * @sob_id: peer sync object to signal
 * @sob_value: added to it; 0 for no signal (then @sob_id must be 0)
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_nic_write_key(struct hpu_cb_builder *b, uint32_t conn,
				       uint64_t src, uint64_t rkey,
				       uint64_t remote_offset, uint64_t size,
				       uint32_t sob_id, uint32_t sob_value);

/**
 * hpu_debug_inject_fault() - arm a fault (HPU_IOCTL_DEBUG INJECT_FAULT)
 * @dev: compute handle
 * @fault: HPU_FAULT_* (this driver implements HPU_FAULT_LINK_DOWN)
 * @engine: engine id, or the NIC port for HPU_FAULT_LINK_DOWN
 * @param: fault-specific parameter (0 for LINK_DOWN)
 *
 * Return: 0; -EINVAL; -EOPNOTSUPP for a fault kind the driver does not
 * implement; -errno.
 */
HPUDRV_EXPORT int hpu_debug_inject_fault(struct hpu_device *dev, uint32_t fault,
					 uint32_t engine, uint64_t param);

/**
 * hpu_debug_clear_faults() - disarm every fault of the device (links
 * taken down by injection come back up)
 * @dev: compute handle
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_debug_clear_faults(struct hpu_device *dev);

/**
 * hpu_stream_submit() - a multi-queue CS in the order of a stream
 * @s: stream
 * @chunks: jobs (any queues of the stream's device)
 * @n: 1..HPU_MAX_JOBS_PER_CS
 * @timeout_ms: the CS's timeout; 0 for the driver's default
 * @seq: receives the CS's sequence number; may be NULL
 *
 * The CS starts only after all work enqueued on @s before it ended, and
 * later work of @s starts only after the CS ended; the call does not
 * block on either. A failure of the CS is reported by
 * hpu_stream_synchronize() or an event recorded after it.
 *
 * Return: 0, -EINVAL, or -errno of the submission.
 */
HPUDRV_EXPORT int hpu_stream_submit(struct hpu_stream *s,
				    const struct hpu_cs_chunk *chunks,
				    unsigned int n, uint32_t timeout_ms,
				    uint64_t *seq);

/**
 * hpu_stream_device() - device handle of a stream
 * @s: stream
 *
 * Return: the handle given to hpu_stream_create().
 */
HPUDRV_EXPORT struct hpu_device *hpu_stream_device(const struct hpu_stream *s);

/* --------------------------------------------------- hot-plug (HPUDRV_1.4) */

/**
 * enum hpu_monitor_action - what happened to a device
 * @HPU_MONITOR_ADD: a device appeared
 * @HPU_MONITOR_REMOVE: a device went away; its open handles now fail
 *	with -ENODEV
 * @HPU_MONITOR_CHANGE: a device's state changed (kernel "change" uevent)
 */
enum hpu_monitor_action {
	HPU_MONITOR_ADD = 1,
	HPU_MONITOR_REMOVE = 2,
	HPU_MONITOR_CHANGE = 3,
};

/**
 * struct hpu_monitor_event - one device change
 * @action: enum hpu_monitor_action
 * @index: the device's index at the time of the change
 * @kind: enum hpu_device_kind
 * @info: the device's fields (for a removal, as last seen)
 */
struct hpu_monitor_event {
	int action;
	int index;
	int kind;
	struct hpu_device_info info;
};

/** struct hpu_monitor - a watch on devices coming and going (opaque) */
struct hpu_monitor;

/**
 * hpu_monitor_create() - watch visible devices being added and removed
 * @monp: receives the monitor
 *
 * Kernel devices are watched through a udev monitor (netlink, subsystem
 * "accel"); simulated ones through the driver/events file of the device
 * directory's daemon, when one runs at creation (docs/hotplug.md).
 * Changes from creation on are reported; take hpu_device_list() after
 * creating the monitor to have no gap.
 *
 * Return: 0; -EINVAL for NULL or a malformed HPU_VISIBLE_DEVICES;
 * -ENOMEM; -errno when a source exists but cannot be watched.
 */
HPUDRV_EXPORT int hpu_monitor_create(struct hpu_monitor **monp);

/**
 * hpu_monitor_fd() - descriptor that polls readable when events may wait
 * @mon: monitor
 *
 * Return: the descriptor (owned by the monitor), or -EINVAL.
 */
HPUDRV_EXPORT int hpu_monitor_fd(const struct hpu_monitor *mon);

/**
 * hpu_monitor_next() - take the next device change, without blocking
 * @mon: monitor
 * @ev: receives the change
 *
 * Changes of devices HPU_VISIBLE_DEVICES hides are skipped. When the
 * daemon of the simulated devices goes away, each of its devices is
 * reported removed and simulated devices are no longer watched.
 *
 * Return: 0 with @ev filled; -EAGAIN when no change is pending; -EINVAL
 * for NULL arguments.
 */
HPUDRV_EXPORT int hpu_monitor_next(struct hpu_monitor *mon,
				   struct hpu_monitor_event *ev);

/**
 * hpu_monitor_destroy() - stop watching and free the monitor
 * @mon: monitor or NULL
 */
HPUDRV_EXPORT void hpu_monitor_destroy(struct hpu_monitor *mon);

/**
 * hpu_hot_add() - ask hpu-fused to add a simulated device
 * @type: chip, "gaudi", "gaudi2" or "gaudi3", or NULL for the daemon's
 *	--type
 * @index: receives the new device's index (K + N, as in the list)
 *
 * Writes "add [TYPE]" to driver/hotplug of the device directory, which
 * only the daemon's user (and root) may do.
 *
 * Return: 0; -EINVAL for an unknown @type; -ENOSPC when the daemon has
 * no free device slot; -EACCES for another user; -ENODEV when no daemon
 * serves the device directory.
 */
HPUDRV_EXPORT int hpu_hot_add(const char *type, int *index);

/**
 * hpu_hot_remove() - ask hpu-fused to remove a simulated device
 * @index: the device's index (K + N, as in the list)
 *
 * Writes "remove N" to driver/hotplug. The device leaves the directory
 * at once; its open handles fail with -ENODEV from then on.
 *
 * Return: 0; -ENODEV when no simulated device has @index or no daemon
 * runs; -EOPNOTSUPP for a kernel device; -EACCES for another user;
 * -EINVAL for a malformed HPU_VISIBLE_DEVICES.
 */
HPUDRV_EXPORT int hpu_hot_remove(int index);

/* ------------------------------------- per-context limits (HPUDRV_1.5) */

/**
 * hpu_info_ctx_limits() - the calling context's limits and what it holds
 *	(HPU_INFO_CTX_LIMITS, a driver with HPU_CAP_CTX_LIMITS)
 * @dev: compute handle (its own use), or control handle (use 0)
 * @out: receives the answer, limits[] indexed by HPU_CTX_LIMIT_*
 *
 * Return: 0; -EINVAL (a driver without the op, or a NULL argument);
 * -errno.
 */
HPUDRV_EXPORT int hpu_info_ctx_limits(struct hpu_device *dev,
				      struct hpu_info_ctx_limits *out);

/**
 * hpu_ctx_limit_name() - name of a per-context limit, as hpu-fused
 *	--limit NAME=N spells it
 * @id: HPU_CTX_LIMIT_*
 *
 * Return: a static string, or NULL for an id this library does not know.
 */
HPUDRV_EXPORT const char *hpu_ctx_limit_name(unsigned int id);

/* ------------------------------------------------ any INFO op (HPUDRV_1.7) */

/**
 * hpu_info() - ask the driver any INFO op, named wrapper or not
 * @dev: compute or control handle
 * @op: HPU_INFO_* (uapi/hpu_accel.h)
 * @period_ms: HPU_INFO_DEVICE_UTILIZATION's window
 *	(HPU_INFO_PERIOD_MS_MIN..HPU_INFO_PERIOD_MS_MAX); 0 for every other op
 * @out: receives the answer (zeroed first)
 * @size: bytes of @out; the driver copies min(@size, the answer's size)
 * @full_size: if not NULL, receives the size of the complete answer
 *
 * The hpu_info_*() wrappers call the same ioctl with their struct; this
 * entry lets a program use an op its library has no wrapper for yet,
 * and learn an answer's size (a short @size still succeeds).
 *
 * Return: 0; -EINVAL (NULL @dev or @out, @size 0 or over 4 GiB, an op the
 * driver does not know, a bad @period_ms); -errno.
 */
HPUDRV_EXPORT int hpu_info(struct hpu_device *dev, unsigned int op,
			   unsigned int period_ms, void *out, size_t size,
			   size_t *full_size);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_H */
