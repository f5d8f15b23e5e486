/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_device.h - libhpudrv: the library, device enumeration, open
 * and close, driver events, hot-plug
 *
 * Every other hpudrv_*.h builds on this one: it defines HPUDRV_EXPORT,
 * struct hpu_device_info and the opaque handle struct hpu_device.
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_DEVICE_H
#define HPU_HPUDRV_DEVICE_H

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
 *	never renumbered by the selection variables (HPU_VISIBLE_DEVICES,
 *	HABANA_VISIBLE_DEVICES, HABANA_VISIBLE_MODULES: docs/libhpudrv.md)
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
 * It follows the symbol versions: HPUDRV_1.9 as the newest node of the
 * version script is "1.9.0" (also the file name libhpudrv.so.1.9.0 and the
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
 * hpu_last_error() - what the calling thread's last failed enumeration or
 * open call has to say beyond hpu_strerror() (HPUDRV_1.8)
 *
 * Every enumeration and open call clears it on entry. A failure sets it
 * when it knows more than its errno: -EINVAL from a malformed selection
 * variable (names the variable, its value and what is wrong), -EBUSY from
 * opening a device another process holds in exclusive mode (names the
 * device and the holder's pid and command). Print it in preference to
 * hpu_strerror(): `hpu_last_error() ?: hpu_strerror(err)`.
 *
 * Return: a thread-local string valid until the thread's next libhpudrv
 * call, or NULL when the last call left nothing to add.
 */
HPUDRV_EXPORT const char *hpu_last_error(void);

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
 * docs/device-directory.md) and keeps the devices every set selection
 * variable selects (HPU_VISIBLE_DEVICES, HABANA_VISIBLE_DEVICES,
 * HABANA_VISIBLE_MODULES). A missing directory means no devices.
 *
 * Return: 0; -EINVAL for NULL arguments or a malformed selection variable
 * (hpu_last_error() says which); -ENOMEM; another -errno when the directory exists
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
 * Return: 0; -EINVAL for bad arguments or a malformed selection
 * variable; -ENODEV when the device is not visible or absent; -EBUSY when
 * the daemon is exclusive (hpu-fused --exclusive) and another context
 * holds the device (hpu_last_error() names the holder); -errno of open(2)
 * otherwise.
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

/* ------------------------------------------------------ reset (HPUDRV_1.8) */

/**
 * hpu_device_reset() - reset the device behind a handle (HPU_IOCTL_DEBUG
 * RESET; docs/libhpudrv.md, "Device reset")
 * @dev: handle, compute or control (a control handle is the usual one:
 *	it survives the reset)
 * @kind: HPU_RESET_HARD or HPU_RESET_COMPUTE
 *
 * Every open handle of the device gets an HPU_EVENT_DEVICE_RESET event
 * (data = @kind) and every CS in flight ends ABORTED; a wait blocked on
 * one returns -EIO after a hard reset. After a hard reset a compute
 * handle is dead: every driver call on it but INFO queries, hpu_event_read()
 * and hpu_device_poll() returns -EIO, and its memory, CBs and streams
 * are gone; hpu_close() it and hpu_open() the device again. A compute
 * reset leaves handles usable. Returns when the device is operational
 * again.
 *
 * Return: 0; -EINVAL bad arguments; -EPERM the caller is neither root
 * nor the daemon's user; -EBUSY a reset is under way; -EOPNOTSUPP the
 * driver has no HPU_CAP_RESET; -EIO @dev is a compute handle a hard
 * reset already killed; -errno.
 */
HPUDRV_EXPORT int hpu_device_reset(struct hpu_device *dev, unsigned int kind);

/* -------------------------------------- device-wide events (HPUDRV_1.9) */

/**
 * hpu_ctrl_event_read() - read the device's events from a control handle
 * (docs/libhpudrv.md, "Device events")
 * @dev: control handle (hpu_open_control*()); a compute handle reads its
 *	own context's events the same way
 * @events: room for @max records
 * @max: >= 1
 * @timeout_ms: how long to wait for the first record: 0 not at all, -1
 *	for ever, else milliseconds
 *
 * A control handle receives every device-wide event (ECC errors,
 * faults and CS timeouts of any context, resets, status and clock
 * changes, hot-removal), as struct hpu_event records, oldest first. The
 * driver keeps a bounded queue per handle: when it was full the oldest
 * records were dropped, and the next read returns an
 * HPU_EVENT_EVENTS_LOST record first (data: how many). Use
 * hpu_device_fd() with poll(2) (POLLIN) to wait for several devices.
 *
 * Return: records read (0: none within @timeout_ms); -EOPNOTSUPP the
 * driver has no HPU_CAP_CTRL_EVENTS; -ENODEV the device was removed and
 * nothing is queued any more; -EINVAL bad arguments; -errno.
 */
HPUDRV_EXPORT int hpu_ctrl_event_read(struct hpu_device *dev,
				      struct hpu_event *events,
				      unsigned int max, int timeout_ms);

/**
 * hpu_event_type_name() - name of an HPU_EVENT_* type
 * @type: HPU_EVENT_*
 *
 * Return: a static string, e.g. "ecc_err", or "unknown".
 */
HPUDRV_EXPORT const char *hpu_event_type_name(unsigned int type);

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
 * Return: 0; -EINVAL for NULL or a malformed selection variable;
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
 * Changes of devices the selection variables hide are skipped. When the
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
 * -EINVAL for a malformed selection variable.
 */
HPUDRV_EXPORT int hpu_hot_remove(int index);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_DEVICE_H */
