/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_dev.h - the driver, its devices and their contexts
 * (device.c, context.c) and the per-context limits (limits.c).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_DEV_H
#define HPU_FUSED_DEV_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

#include "hpu_accel.h"
#include "hpu_fw_if.h"

/* ------------------------------------------------------------------ */
/* Devices and contexts (device.c, context.c)                          */
/* ------------------------------------------------------------------ */

struct hfd_device;
struct hfd_mem_state;
struct hfd_cs_state;
struct hfd_hl_cbs;
struct hfd_hl_stream;

/**
 * struct hfd_cs_stats - CS_COUNTERS drop and timeout counts (atomics)
 * @out_of_mem: rejected for lack of memory
 * @parsing: rejected by packet validation
 * @queue_full: rejected because a queue was full
 * @in_reset: rejected during a reset
 * @max_in_flight: rejected for too many CSs in flight
 * @timedout: timed out and aborted
 */
struct hfd_cs_stats {
	uint64_t out_of_mem;
	uint64_t parsing;
	uint64_t queue_full;
	uint64_t in_reset;
	uint64_t max_in_flight;
	uint64_t timedout;
};

/**
 * struct hfd_ctx - per-file private data of an open device node
 * @dev: device the file belongs to
 * @control: true for a control context (INFO only, never a holder)
 * @pid: TGID of the process that opened the file
 * @uid: user of the opener (owner of its exports)
 * @gid: group of the opener
 * @comm: command name of that process
 * @open_ns: CLOCK_MONOTONIC at open
 * @refcount: references; the file holds one, the device list none
 * @calls: ioctls being served on the file, plus HFD_CTX_RELEASED once
 *	release() came (atomic): a release that finds calls in progress (a
 *	worker stuck in client memory whose request the watchdog answered)
 *	leaves the teardown to the last of them; a hard reset sets
 *	HFD_CTX_DEAD, and the last call to end after it tears down what
 *	the context holds (context.c)
 * @torn_down: what the context held on the device is gone (atomic; a
 *	hard reset waits for it)
 * @dram_bytes: HBM allocated by the context (atomic; memory.c)
 * @cs_submitted: CSs accepted from the context (atomic)
 * @cs_completed: CSs of the context that completed (atomic)
 * @cs_stats: drop and timeout counters of the context
 * @as_lock: teardown vs. use of the address space: every call into the
 *	model on @as holds it for reading, release() for writing while it
 *	destroys @as
 * @trace_lock: serializes the context's TRACE calls (trace.c), also
 *	across a READ's copy to the client, which holds no other lock
 * @as: the context's address space in the model (NULL: control context,
 *	model without 1.1, or torn down)
 * @mem: handles, allocations, mappings and CBs (memory.c, cb.c)
 * @cs: submissions, history and waiters (cs.c, wait.c)
 * @hl_cbs: habanalabs kernel CBs (hl_cb.c), made at the first use
 * @hl_sram_va: habanalabs: where the context maps SRAM (hl_cs.c)
 * @hl_sync: habanalabs sync-manager registers (hl_sync.c), first CS
 * @hl_stream: habanalabs queue room and SIGNAL CSs (hl_cs_stream.c),
 *	first CS
 * @hl_restoring: habanalabs: a CS call waits for its restore chunks
 *	(hl_cs.c; atomic)
 * @hl_cps: habanalabs upper CPs' predicates and scalars (hl_qman.c),
 *	first CS that uses them
 * @lim_used: per HPU_CTX_LIMIT_*, what the context holds (atomics;
 *	limits.c; CS_IN_FLIGHT and EVENTS are counted elsewhere)
 * @lock: protects @events, @ev_head, @ev_count, @ev_dropped, @ev_lost,
 *	@events_mask, @cs_ended and @ph
 * @events: ring of @ev_cap queued events for read()
 * @ev_cap: size of the ring (the events limit at open)
 * @ev_head: index of the oldest queued event
 * @ev_count: queued events
 * @ev_dropped: events dropped because the ring was full
 * @ev_lost: of those, dropped since the last EVENTS_LOST record a read()
 *	of a control context returned
 * @events_mask: bit per event type since the last GET_EVENTS
 * @cs_ended: a CS of this file ended since its last WAIT_CS (POLLPRI)
 * @ph: poll handle to notify when an event is queued or a CS ends
 * @next: next context of @dev (protected by the device's ctx_lock)
 * @prev: previous context of @dev (protected by the device's ctx_lock)
 */
struct hfd_ctx {
	struct hfd_device *dev;
	bool control;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	char comm[17];
	uint64_t open_ns;
	unsigned int refcount;
	uint32_t calls;
	bool torn_down;
	uint64_t dram_bytes;
	uint64_t cs_submitted;
	uint64_t cs_completed;
	struct hfd_cs_stats cs_stats;

	pthread_rwlock_t as_lock;
	pthread_mutex_t trace_lock;
	struct hpu_fw_as *as;
	struct hfd_mem_state *mem;
	struct hfd_cs_state *cs;
	struct hfd_hl_cbs *hl_cbs;
	uint64_t lim_used[HPU_CTX_LIMIT_NUM];
	uint64_t hl_sram_va;
	struct hfd_hl_sync *hl_sync;
	struct hfd_hl_stream *hl_stream;
	bool hl_restoring;
	struct hfd_hl_cps *hl_cps;

	pthread_mutex_t lock;
	struct hpu_event *events;
	unsigned int ev_cap;
	unsigned int ev_head;
	unsigned int ev_count;
	uint64_t ev_dropped;
	uint64_t ev_lost;
	uint64_t events_mask;
	bool cs_ended;
	struct fuse_pollhandle *ph;

	struct hfd_ctx *next;
	struct hfd_ctx *prev;
};

/**
 * struct hfd_device - one simulated device as the driver sees it
 * @index: device index in the daemon (hpuN)
 * @server_devices: devices of the daemon (the server @index belongs to)
 * @module_id: OAM module id (the driver's module map at @index % 8)
 * @model: device model
 * @profile: chip profile
 * @fw: the model's device
 * @ip: HW_IP_INFO answer, fixed at creation
 * @pci_domain: PCI domain
 * @pci_bus: PCI bus (distinct per device)
 * @bus_id: "DDDD:BB:00.0"
 * @serial: serial number (identity.c)
 * @uuid: UUID (identity.c)
 * @mac_prefix: first five bytes of the NIC ports' MAC addresses; the
 *	sixth is the port (identity.c)
 * @ctx_lock: protects @ctx_list, @status, @open_counter,
 *	@last_open_period_ms, @num_compute, @num_control, @in_release,
 *	@acquiring, the reset counters and every context's @next/@prev
 * @ctx_list: open contexts (compute and control)
 * @hl_debug: the habanalabs context that set the device into debug mode
 *	(DEBUG SET_MODE), or NULL; under @ctx_lock, cleared when it goes
 * @status: HPU_DEVICE_STATUS_*
 * @open_counter: compute opens since creation
 * @last_open_period_ms: lifetime of the last closed compute context
 * @num_compute: compute contexts open
 * @num_control: control contexts open
 * @in_release: compute contexts being torn down
 * @exclusive: one compute context at a time (--exclusive)
 * @acquiring: an exclusive compute open is setting its context up
 * @hard_reset_cnt: hard resets
 * @soft_reset_cnt: soft resets
 * @cs_submitted: CSs accepted (atomic)
 * @cs_completed: CSs completed (atomic)
 * @cs_stats: drop and timeout counters of the device
 * @cs_timeout_ms: default per-CS timeout
 * @reset_on_lockup: a CS timeout escalates to a hard reset (reset.c)
 * @reset_on_fatal: a fatal error hard-resets the device (dev_events.c)
 * @fatal_page_faults: an MMU page fault is a fatal error (dev_events.c)
 * @clk_seen: core clock at the last sample, 0 none (dev_events.c; the
 *	timer thread's)
 * @hang_armed: DEBUG INJECT_FAULT HPU_FAULT_ENGINE_HANG: the next normal
 *	CS of the device never ends (atomic; cs.c)
 * @pf_armed: DEBUG INJECT_FAULT HPU_FAULT_PAGE_FAULT: 0, or the engine
 *	id + 1 on whose queue the next normal CS of the device touches an
 *	unmapped address (atomic; cs.c)
 * @reset_lock: device reset vs. submission: CS, MEMORY and CB calls into
 *	the model hold it for reading, a device reset for writing
 * @owner: uid of the device's nodes (the daemon's user): besides root,
 *	the one user who may inject faults (DEBUG)
 * @fault_lock: protects @links_injected, @ecc_corrected, @ecc_uncorrected,
 *	@overheated
 * @links_injected: bit per NIC port this device's DEBUG INJECT_FAULT
 *	(HPU_FAULT_LINK_DOWN) took down, brought back up by CLEAR_FAULTS
 * @ecc_corrected: corrected HBM ECC errors (HPU_FAULT_ECC_ERR, param 0)
 * @ecc_uncorrected: uncorrectable HBM ECC errors (param 1)
 * @overheated: DEBUG INJECT_FAULT HPU_FAULT_THERMAL made the model's die
 *	run over its slowdown temperature; CLEAR_FAULTS and a hard reset
 *	end it
 * @state: enum hfd_slot_state (atomic; changed with the driver's
 *	hotplug_lock held for writing, except REMOVED -> FREE by the last
 *	release)
 * @generation: bumped at every hot-add of the slot (FUSE inode generation)
 * @dying: the device's teardown has been claimed (protected by @ctx_lock)
 */
struct hfd_device {
	unsigned int index;
	unsigned int server_devices;
	unsigned int module_id;
	const struct hpu_fw_model *model;
	const struct hpu_fw_profile *profile;
	struct hpu_fw_device *fw;
	struct hpu_info_hw_ip_info ip;
	uint32_t pci_domain;
	uint8_t pci_bus;
	char bus_id[16];
	char serial[32];
	char uuid[32];
	uint8_t mac_prefix[5];

	pthread_mutex_t ctx_lock;
	struct hfd_ctx *ctx_list;
	const struct hfd_ctx *hl_debug;
	uint32_t status;
	uint64_t open_counter;
	uint64_t last_open_period_ms;
	uint32_t num_compute;
	uint32_t num_control;
	uint32_t in_release;
	bool exclusive;
	bool acquiring;
	uint32_t hard_reset_cnt;
	uint32_t soft_reset_cnt;

	uint64_t cs_submitted;
	uint64_t cs_completed;
	struct hfd_cs_stats cs_stats;
	uint32_t cs_timeout_ms;
	bool reset_on_lockup;
	bool reset_on_fatal;
	bool fatal_page_faults;
	uint32_t clk_seen;
	bool hang_armed;
	uint32_t pf_armed;

	pthread_rwlock_t reset_lock;

	uid_t owner;
	pthread_mutex_t fault_lock;
	uint64_t links_injected;
	uint64_t ecc_corrected;
	uint64_t ecc_uncorrected;
	bool overheated;

	uint32_t state;
	uint32_t generation;
	bool dying;
};

/**
 * enum hfd_slot_state - life of a device slot (docs/hotplug.md)
 * @HFD_SLOT_FREE: no device; a hot-add may take the slot
 * @HFD_SLOT_PRESENT: a device in the directory
 * @HFD_SLOT_REMOVED: hot-removed: gone from the directory, its open files
 *	get -ENODEV; the model's device lives until the last one is released
 */
enum hfd_slot_state {
	HFD_SLOT_FREE = 0,
	HFD_SLOT_PRESENT = 1,
	HFD_SLOT_REMOVED = 2,
};

/* Events of driver/events kept for readers that fall behind */
#define HFD_HOTPLUG_LOG_LEN 256

/**
 * struct hfd_hotplug_rec - one device change in the driver/events log
 * @seq: sequence number (1, 2, ...)
 * @action: "add", "remove" or "change"
 * @index: device index
 */
struct hfd_hotplug_rec {
	uint64_t seq;
	const char *action;
	unsigned int index;
};

struct hfd_event_reader;

/* Longest "IP:PORT" of a scale-out endpoint, with its NUL */
#define HFD_SCALEOUT_ADDR_LEN 24

/* OAM modules in one server (the ABI's module id is 0..7) */
#define HFD_MODULES_PER_SERVER 8

/**
 * struct hfd_driver - the daemon-wide state
 * @model: device model
 * @profile: chip profile of every device
 * @ndev: devices present (hot-add and hot-remove change it)
 * @devs: HFD_MAX_DEVICES slots, device i in slot i
 * @server_id: number of this simulated server (serial numbers)
 * @server_hash: hash of the machine and the mount directory (UUIDs, MACs)
 * @uid: owner of the device nodes
 * @gid: group of the device nodes
 * @node_mode: permission bits of the compute nodes hpuN
 * @control_mode: permission bits of the control nodes hpu_controlN
 * @start_ns: CLOCK_MONOTONIC at start
 * @fabric: the model's server that links the devices (firmware interface
 *	1.2), or NULL when the model has no NICs
 * @fabric_err: hfd_driver_init_server() failed because the fabric (the
 *	scale-out address) was refused
 * @scaleout_addr: "IP:PORT" really bound for scale-out, or "" without
 * @blas_core: the OpenBLAS core the MME computes with (set by main(),
 *	docs/building.md "OpenBLAS's core"), or "" when not known
 * @fabric_devices: devices the fabric is wired for (the initial ones)
 * @cs_timeout_ms: default per-CS timeout of new devices
 * @module_map: OAM module id of device i is @module_map[i % 8]
 *	(--module-map; default hfd_default_module_map())
 * @exclusive: --exclusive: one compute context per device at a time, a
 *	second compute open gets EBUSY
 * @reset_on_lockup: --reset-on-lockup, for new devices
 * @reset_on_fatal: --reset-on-fatal, for new devices
 * @fatal_page_faults: --fatal-page-faults, for new devices
 * @habanalabs: --personality habanalabs: Gaudi2 devices also have the
 *	habanalabs nodes (docs/habanalabs.md)
 * @timing_model: --timing-model: every device counts its modeled busy
 *	time (model_busy attribute, docs/hpu-smi.md)
 * @se: FUSE session, for entry invalidations after a hot-plug (may be NULL)
 * @hotplug_lock: the set of present devices: held for writing by hot-add
 *	and hot-remove, for reading by whatever turns an index into a device
 *	and uses it (open of a node or an attribute)
 * @ev_lock: protects @ev_log, @ev_seq and @ev_readers
 * @ev_log: ring of the last HFD_HOTPLUG_LOG_LEN device changes
 * @ev_seq: sequence number of the newest change (0: none yet)
 * @ev_readers: open driver/events files
 */
struct hfd_driver {
	const struct hpu_fw_model *model;
	const struct hpu_fw_profile *profile;
	unsigned int ndev;
	struct hfd_device *devs;
	unsigned int server_id;
	uint64_t server_hash;
	uid_t uid;
	gid_t gid;
	unsigned int node_mode;
	unsigned int control_mode;
	uint64_t start_ns;
	struct hpu_fw_fabric *fabric;
	bool fabric_err;
	char scaleout_addr[HFD_SCALEOUT_ADDR_LEN];
	char blas_core[32];
	unsigned int fabric_devices;
	uint32_t cs_timeout_ms;
	uint8_t module_map[HFD_MODULES_PER_SERVER];
	bool exclusive;
	bool reset_on_lockup;
	bool reset_on_fatal;
	bool fatal_page_faults;
	bool habanalabs;
	bool timing_model;
	struct fuse_session *se;
	pthread_rwlock_t hotplug_lock;
	pthread_mutex_t ev_lock;
	struct hfd_hotplug_rec ev_log[HFD_HOTPLUG_LOG_LEN];
	uint64_t ev_seq;
	struct hfd_event_reader *ev_readers;
};

int hfd_driver_check_model(const struct hpu_fw_model *model);
int hfd_driver_init(struct hfd_driver *drv, const struct hpu_fw_model *model,
		    const char *type, unsigned int ndev, const char *where);
void hfd_set_dram_size(uint64_t bytes);
int hfd_driver_init_server(struct hfd_driver *drv,
			   const struct hpu_fw_model *model, const char *type,
			   unsigned int ndev, const char *where,
			   const char *scaleout_addr,
			   const uint8_t *module_map);
void hfd_default_module_map(unsigned int ndev,
			    uint8_t map[HFD_MODULES_PER_SERVER]);
unsigned int hfd_profile_max_server_devices(const struct hpu_fw_profile *p);
bool hfd_model_has_nic(const struct hpu_fw_model *model);
bool hfd_device_has_nic(const struct hfd_device *dev);
void hfd_driver_set_cs_timeout(struct hfd_driver *drv, uint32_t ms);
void hfd_driver_set_exclusive(struct hfd_driver *drv, bool exclusive);
bool hfd_device_has_cs(const struct hfd_device *dev);
void hfd_driver_fini(struct hfd_driver *drv);
bool hfd_device_present(const struct hfd_device *dev);
int hfd_driver_hot_add(struct hfd_driver *drv, const char *type,
		       unsigned int *index);
int hfd_driver_hot_remove(struct hfd_driver *drv, unsigned int index);
void hfd_device_unplugged(struct hfd_device *dev);
unsigned int hfd_identity_server(const char *where, uint64_t *hash);
void hfd_identity_device(struct hfd_device *dev, unsigned int server_id,
			 uint64_t server_hash);
int hfd_device_inject_ecc(struct hfd_device *dev, struct hfd_ctx *ctx,
			  bool uncorrectable);
void hfd_device_pci_bus_id(unsigned int index, uint8_t *bus, char *buf,
			   size_t len);
uint64_t hfd_now_ns(void);
uint32_t hfd_fw_if_minor_in_use(const struct hpu_fw_model *model);

int hfd_ctx_open(struct hfd_device *dev, bool control, pid_t tid, uid_t uid,
		 gid_t gid, struct hfd_ctx **out);
int hfd_ctx_open_exclusive(struct hfd_device *dev, bool control, bool exclusive,
			   pid_t tid, uid_t uid, gid_t gid,
			   struct hfd_ctx **out);
void hfd_ctx_release(struct hfd_ctx *ctx);
void hfd_ctx_call_begin(struct hfd_ctx *ctx);
bool hfd_ctx_call_try_begin(struct hfd_ctx *ctx);
void hfd_ctx_call_end(struct hfd_ctx *ctx);
void hfd_device_release_all(struct hfd_device *dev);
void hfd_ctx_get(struct hfd_ctx *ctx);
void hfd_ctx_put(struct hfd_ctx *ctx);
int hfd_device_contexts(struct hfd_device *dev, struct hfd_ctx ***list,
			size_t *n);
void hfd_contexts_put(struct hfd_ctx **list, size_t n);
bool hfd_ctx_is_dead(struct hfd_ctx *ctx);
void hfd_ctx_kill(struct hfd_ctx *ctx);
void hfd_ctx_reap(struct hfd_ctx *ctx);
pid_t hfd_tid_to_tgid(pid_t tid);

int hfd_ctx_queue_event(struct hfd_ctx *ctx, uint32_t type, uint32_t engine,
			uint64_t seq, uint64_t addr, uint64_t data);
int hfd_ctx_read_events(struct hfd_ctx *ctx, struct hpu_event *out,
			unsigned int max);
unsigned int hfd_ctx_poll(struct hfd_ctx *ctx, struct fuse_pollhandle *ph);
void hfd_ctx_note_cs_ended(struct hfd_ctx *ctx);
void hfd_ctx_wake_poller(struct hfd_ctx *ctx);
void hfd_ctx_clear_cs_ended(struct hfd_ctx *ctx);
void hfd_ctx_peek_events(struct hfd_ctx *ctx, uint64_t *mask,
			 uint64_t *pending);
void hfd_ctx_clear_events(struct hfd_ctx *ctx, uint64_t mask);
bool hfd_ctx_has_events(struct hfd_ctx *ctx);
void hfd_ctx_take_events(struct hfd_ctx *ctx, uint64_t *mask,
			 uint64_t *pending);
int hfd_device_clients_text(struct hfd_device *dev, char **text, size_t *len);
void hfd_device_open_stats(struct hfd_device *dev,
			   struct hpu_info_open_stats *out);

/* ------------------------------------------------------------------ */
/* Device reset (reset.c)                                              */
/* ------------------------------------------------------------------ */

/*
 * A reset waits for contexts busy in calls at most the uaccess timeout
 * (after which a call is stuck in client memory) plus this (a CS that
 * drains a ring waits up to 1 s for its consumer), then goes on
 */
#define HFD_RESET_WAIT_MARGIN_MS 1000

int hfd_device_reset(struct hfd_device *dev, uint32_t kind,
		     struct hfd_ctx *self, bool wait, const char *why);
void hfd_device_reset_on_lockup(struct hfd_ctx *ctx);
void hfd_device_reset_later(struct hfd_ctx *ctx, const char *why);
void hfd_driver_set_reset_on_lockup(struct hfd_driver *drv, bool on);
int hfd_device_set_timing_model(struct hfd_device *dev, bool on);
int hfd_driver_set_timing_model(struct hfd_driver *drv, bool on);
int hfd_device_clear_faults(struct hfd_device *dev);

/* ------------------------------------------------------------------ */
/* Device-wide events, escalation, the clock sampler (dev_events.c)    */
/* ------------------------------------------------------------------ */

/* hfd_device_raise() targets */
#define HFD_EV_CONTROL 0 /* the control contexts */
#define HFD_EV_ALL     1 /* every context */

/* Period of the core clock's sampling while a control context is open */
#define HFD_CLK_SAMPLE_MS 50

void hfd_device_raise(struct hfd_device *dev, unsigned int to, uint32_t type,
		      uint32_t engine, uint64_t seq, uint64_t addr,
		      uint64_t data);
void hfd_device_status_changed(struct hfd_device *dev, uint32_t old,
			       uint32_t now);
bool hfd_device_failed(struct hfd_device *dev);
void hfd_device_fatal(struct hfd_device *dev, uint32_t status,
		      struct hfd_ctx *ctx, const char *why);
int hfd_device_lose_heartbeat(struct hfd_device *dev, struct hfd_ctx *ctx);
void hfd_driver_set_fatal_policy(struct hfd_driver *drv, bool reset,
				 bool page_faults);
void hfd_dev_events_start(struct hfd_driver *drv);
void hfd_dev_events_stop(struct hfd_driver *drv);

/* ------------------------------------------------------------------ */
/* Per-context limits (limits.c)                                       */
/* ------------------------------------------------------------------ */

/**
 * struct hfd_limit_desc - one per-context limit
 * @name: NAME of hpu-fused --limit NAME=N
 * @def: default
 * @min: smallest value --limit accepts
 * @max: largest value --limit accepts
 * @err: -errno of a call that would pass it (0: nothing fails, the
 *	oldest is dropped)
 * @what: what is counted (help text)
 */
struct hfd_limit_desc {
	const char *name;
	uint64_t def;
	uint64_t min;
	uint64_t max;
	int err;
	const char *what;
};

extern const struct hfd_limit_desc hfd_limit_descs[HPU_CTX_LIMIT_NUM];

uint64_t hfd_limit(unsigned int id);
int hfd_limit_find(const char *name, size_t len);
int hfd_limit_parse(const char *arg);
void hfd_limits_reset(void);
int hfd_ctx_charge(struct hfd_ctx *ctx, unsigned int id, uint64_t n);
int hfd_ctx_charge2(struct hfd_ctx *ctx, unsigned int id1, uint64_t n1,
		    unsigned int id2, uint64_t n2);
void hfd_ctx_uncharge(struct hfd_ctx *ctx, unsigned int id, uint64_t n);
void hfd_ctx_limits_release(struct hfd_ctx *ctx);
uint64_t hfd_limit_daemon_shm_maps(uint64_t cap);
uint64_t hfd_limit_daemon_shm_used(void);
void hfd_ctx_limits_info(struct hfd_ctx *ctx, struct hpu_info_ctx_limits *out);

#endif /* HPU_FUSED_DEV_H */
