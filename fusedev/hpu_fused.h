/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused.h - internal interfaces of the hpu-fused driver core
 * (libhpufusedev): devices, contexts, event queues, ioctl dispatch,
 * user memory access, attributes and the FUSE front end.
 *
 * docs/fusedev.md describes the design decisions.
 */
#ifndef HPU_FUSED_H
#define HPU_FUSED_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

#include "hpu_accel.h"
#include "hpu_fw_if.h"
#include "hpu_warn.h"

/* Limits of the daemon */
#define HFD_MAX_DEVICES 64
#define HFD_DEF_DEVICES 8

/*
 * Worker threads of the FUSE loop. No request blocks a worker: a WAIT_CS
 * that has to wait keeps its fuse_req_t and is answered later from the
 * completion or from the timer thread (wait.c), so any number of waiters
 * costs no thread.
 */
#define HFD_MAX_THREADS 80

/*
 * Client memory accesses (uaccess_guard.c, docs/fusedev.md "Client
 * memory"): one that takes longer than --uaccess-timeout-ms is abandoned
 * (its request answered EFAULT, its worker left stuck). Stuck workers are
 * capped per client thread, process and user, and in total; the user and
 * total caps count accesses in flight too. The FUSE loop may start
 * HFD_MAX_THREADS_ALL workers, so that stuck ones never take the
 * pool from other clients.
 */
#define HFD_UACCESS_DEF_TIMEOUT_MS   2000
#define HFD_UACCESS_MIN_TIMEOUT_MS   50
#define HFD_UACCESS_MAX_TIMEOUT_MS   60000
#define HFD_UACCESS_MAX_STUCK_THREAD 1
#define HFD_UACCESS_MAX_STUCK_PROC   8
#define HFD_UACCESS_MAX_STUCK_UID    128
#define HFD_UACCESS_MAX_STUCK	     512
#define HFD_MAX_THREADS_ALL	     (HFD_MAX_THREADS + HFD_UACCESS_MAX_STUCK)

/* SIGINT/SIGTERM: the daemon is gone within this, stuck workers or not */
#define HFD_STOP_BOUND_MS 4000

/*
 * Default modes of the device nodes (hpu-fused --mode, --control-mode).
 * A compute node gives everything to whoever opens it, so it is never
 * open to others; a control node answers INFO only (like the attribute
 * tree, which is world-readable), so monitoring works for every user.
 */
#define HFD_DEF_NODE_MODE    0660
#define HFD_DEF_CONTROL_MODE 0664

/* Default per-CS timeout (hpu-fused --cs-timeout-ms): habanalabs' default
 * lockup timeout (its timeout_locked module parameter) is 30 s too */
#define HFD_DEF_CS_TIMEOUT_MS 30000

/* Default of the cs_in_flight limit: CSs of one context in flight at
 * once (-EAGAIN beyond; limits.c, hpu-fused --limit) */
#define HFD_CTX_MAX_CS_IN_FLIGHT 1024

/* Default of the events limit: events kept per context before the oldest
 * are dropped; also the most one read() returns */
#define HFD_CTX_MAX_EVENTS 64

/* ------------------------------------------------------------------ */
/* Logging (log.c)                                                     */
/* ------------------------------------------------------------------ */

enum hfd_log_level {
	HFD_LOG_ERR = 0,
	HFD_LOG_WARN = 1,
	HFD_LOG_INFO = 2,
	HFD_LOG_DEBUG = 3,
};

/**
 * struct hfd_ratelimit - state of one rate-limited log call site
 * @window_start: start of the current window, CLOCK_MONOTONIC seconds
 * @printed: messages printed in the window
 * @suppressed: messages dropped in the window
 */
struct hfd_ratelimit {
	int64_t window_start;
	unsigned int printed;
	unsigned int suppressed;
};

int hfd_log_parse_level(const char *name);
void hfd_log_setup(int level, bool use_syslog);
bool hfd_log_enabled(int level);
void hfd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hfd_log_rl(struct hfd_ratelimit *rl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define hfd_err(...)  hfd_log(HFD_LOG_ERR, __VA_ARGS__)
#define hfd_warn(...) hfd_log(HFD_LOG_WARN, __VA_ARGS__)
#define hfd_info(...) hfd_log(HFD_LOG_INFO, __VA_ARGS__)
#define hfd_dbg(...)  hfd_log(HFD_LOG_DEBUG, __VA_ARGS__)

/*
 * Messages caused by client input go through here: at most a burst per
 * call site and window, then a count of what was suppressed.
 */
#define hfd_log_ratelimited(level, ...)                         \
	do {                                                    \
		static struct hfd_ratelimit _rl;                \
		if (hfd_log_enabled(level))                     \
			hfd_log_rl(&_rl, (level), __VA_ARGS__); \
	} while (0)

/* ------------------------------------------------------------------ */
/* Devices and contexts (device.c, context.c)                          */
/* ------------------------------------------------------------------ */

struct hfd_device;
struct hfd_mem_state;
struct hfd_cs_state;

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
 *	leaves the teardown to the last of them
 * @dram_bytes: HBM allocated by the context (atomic; memory.c)
 * @cs_submitted: CSs accepted from the context (atomic)
 * @cs_completed: CSs of the context that completed (atomic)
 * @cs_stats: drop and timeout counters of the context
 * @as_lock: teardown vs. use of the address space: every call into the
 *	model on @as holds it for reading, release() for writing while it
 *	destroys @as
 * @as: the context's address space in the model (NULL: control context,
 *	model without 1.1, or torn down)
 * @mem: handles, allocations, mappings and CBs (memory.c, cb.c)
 * @cs: submissions, history and waiters (cs.c, wait.c)
 * @lim_used: per HPU_CTX_LIMIT_*, what the context holds (atomics;
 *	limits.c; CS_IN_FLIGHT and EVENTS are counted elsewhere)
 * @lock: protects @events, @ev_head, @ev_count, @ev_dropped,
 *	@events_mask, @cs_ended and @ph
 * @events: ring of @ev_cap queued events for read()
 * @ev_cap: size of the ring (the events limit at open)
 * @ev_head: index of the oldest queued event
 * @ev_count: queued events
 * @ev_dropped: events dropped because the ring was full
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
	uint64_t dram_bytes;
	uint64_t cs_submitted;
	uint64_t cs_completed;
	struct hfd_cs_stats cs_stats;

	pthread_rwlock_t as_lock;
	struct hpu_fw_as *as;
	struct hfd_mem_state *mem;
	struct hfd_cs_state *cs;
	uint64_t lim_used[HPU_CTX_LIMIT_NUM];

	pthread_mutex_t lock;
	struct hpu_event *events;
	unsigned int ev_cap;
	unsigned int ev_head;
	unsigned int ev_count;
	uint64_t ev_dropped;
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
 * @module_id: OAM module id (@index modulo 8, the modules of a server)
 * @model: device model
 * @profile: chip profile
 * @fw: the model's device
 * @ip: HW_IP_INFO answer, fixed at creation
 * @pci_domain: PCI domain
 * @pci_bus: PCI bus (distinct per device)
 * @bus_id: "DDDD:BB:00.0"
 * @serial: serial number
 * @ctx_lock: protects @ctx_list, @status, @open_counter,
 *	@last_open_period_ms, @num_compute, @num_control, @in_release,
 *	the reset counters and every context's @next/@prev
 * @ctx_list: open contexts (compute and control)
 * @status: HPU_DEVICE_STATUS_*
 * @open_counter: compute opens since creation
 * @last_open_period_ms: lifetime of the last closed compute context
 * @num_compute: compute contexts open
 * @num_control: control contexts open
 * @in_release: compute contexts being torn down
 * @hard_reset_cnt: hard resets
 * @soft_reset_cnt: soft resets
 * @cs_submitted: CSs accepted (atomic)
 * @cs_completed: CSs completed (atomic)
 * @cs_stats: drop and timeout counters of the device
 * @cs_timeout_ms: default per-CS timeout
 * @reset_lock: device reset vs. submission: CS, MEMORY and CB calls into
 *	the model hold it for reading, a device reset for writing
 * @owner: uid of the device's nodes (the daemon's user): besides root,
 *	the one user who may inject faults (DEBUG)
 * @fault_lock: protects @links_injected
 * @links_injected: bit per NIC port this device's DEBUG INJECT_FAULT
 *	(HPU_FAULT_LINK_DOWN) took down, brought back up by CLEAR_FAULTS
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

	pthread_mutex_t ctx_lock;
	struct hfd_ctx *ctx_list;
	uint32_t status;
	uint64_t open_counter;
	uint64_t last_open_period_ms;
	uint32_t num_compute;
	uint32_t num_control;
	uint32_t in_release;
	uint32_t hard_reset_cnt;
	uint32_t soft_reset_cnt;

	uint64_t cs_submitted;
	uint64_t cs_completed;
	struct hfd_cs_stats cs_stats;
	uint32_t cs_timeout_ms;

	pthread_rwlock_t reset_lock;

	uid_t owner;
	pthread_mutex_t fault_lock;
	uint64_t links_injected;

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

/**
 * struct hfd_driver - the daemon-wide state
 * @model: device model
 * @profile: chip profile of every device
 * @ndev: devices present (hot-add and hot-remove change it)
 * @devs: HFD_MAX_DEVICES slots, device i in slot i
 * @server_id: number of this simulated server (serial numbers)
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
 * @fabric_devices: devices the fabric is wired for (the initial ones)
 * @cs_timeout_ms: default per-CS timeout of new devices
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
	uid_t uid;
	gid_t gid;
	unsigned int node_mode;
	unsigned int control_mode;
	uint64_t start_ns;
	struct hpu_fw_fabric *fabric;
	bool fabric_err;
	char scaleout_addr[HFD_SCALEOUT_ADDR_LEN];
	unsigned int fabric_devices;
	uint32_t cs_timeout_ms;
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
int hfd_driver_init_server(struct hfd_driver *drv,
			   const struct hpu_fw_model *model, const char *type,
			   unsigned int ndev, const char *where,
			   const char *scaleout_addr);
unsigned int hfd_profile_max_server_devices(const struct hpu_fw_profile *p);
bool hfd_model_has_nic(const struct hpu_fw_model *model);
bool hfd_device_has_nic(const struct hfd_device *dev);
void hfd_driver_set_cs_timeout(struct hfd_driver *drv, uint32_t ms);
bool hfd_device_has_cs(const struct hfd_device *dev);
void hfd_driver_fini(struct hfd_driver *drv);
bool hfd_device_present(const struct hfd_device *dev);
int hfd_driver_hot_add(struct hfd_driver *drv, const char *type,
		       unsigned int *index);
int hfd_driver_hot_remove(struct hfd_driver *drv, unsigned int index);
void hfd_device_unplugged(struct hfd_device *dev);
void hfd_device_pci_bus_id(unsigned int index, uint8_t *bus, char *buf,
			   size_t len);
uint64_t hfd_now_ns(void);
uint32_t hfd_fw_if_minor_in_use(const struct hpu_fw_model *model);

int hfd_ctx_open(struct hfd_device *dev, bool control, pid_t tid, uid_t uid,
		 gid_t gid, struct hfd_ctx **out);
void hfd_ctx_release(struct hfd_ctx *ctx);
void hfd_ctx_call_begin(struct hfd_ctx *ctx);
void hfd_ctx_call_end(struct hfd_ctx *ctx);
void hfd_device_release_all(struct hfd_device *dev);
void hfd_ctx_get(struct hfd_ctx *ctx);
void hfd_ctx_put(struct hfd_ctx *ctx);
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
void hfd_ctx_take_events(struct hfd_ctx *ctx, uint64_t *mask,
			 uint64_t *pending);
int hfd_device_clients_text(struct hfd_device *dev, char **text, size_t *len);
void hfd_device_open_stats(struct hfd_device *dev,
			   struct hpu_info_open_stats *out);

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

/* ------------------------------------------------------------------ */
/* User memory (uaccess.c)                                             */
/* ------------------------------------------------------------------ */

int hfd_copy_from_user(pid_t pid, void *dst, uint64_t uaddr, size_t len);
int hfd_copy_to_user(pid_t pid, uint64_t uaddr, const void *src, size_t len);
int hfd_pidfd_open(pid_t tgid);
bool hfd_pidfd_alive(int pidfd);
int hfd_user_range_mapped(pid_t tgid, uint64_t uaddr, uint64_t len);
int hfd_user_probe(pid_t tid, uint64_t uaddr, uint64_t len);
void hfd_uaccess_set_mount_dev(dev_t dev);

/* The bound on client memory accesses (uaccess_guard.c) */
int hfd_uaccess_guard_start(uint32_t timeout_ms, void (*abandon)(void *token));
void hfd_uaccess_guard_stop(void);
void hfd_uaccess_begin_request(void *token, pid_t tid, uid_t uid);
bool hfd_uaccess_end_request(void);
bool hfd_uaccess_request_dead(void);
int hfd_uaccess_enter(void);
int hfd_uaccess_exit(void);
void hfd_uaccess_guard_stats(uint64_t *now, uint64_t *ever, uint64_t *refused);

/* ------------------------------------------------------------------ */
/* Packet validation (packets.c)                                       */
/* ------------------------------------------------------------------ */

/**
 * enum hfd_queue_kind - the engine a hardware queue feeds
 * @HFD_QUEUE_NONE: no such queue
 * @HFD_QUEUE_DMA: a DMA engine (LIN_DMA, MEMSET allowed)
 * @HFD_QUEUE_MME: an MME
 * @HFD_QUEUE_TPC: a TPC
 * @HFD_QUEUE_NIC: a NIC port
 */
enum hfd_queue_kind {
	HFD_QUEUE_NONE = 0,
	HFD_QUEUE_DMA,
	HFD_QUEUE_MME,
	HFD_QUEUE_TPC,
	HFD_QUEUE_NIC,
};

enum hfd_queue_kind hfd_queue_kind(const struct hpu_fw_profile *profile,
				   uint32_t queue);
int hfd_packets_validate(const void *cb, size_t size, enum hfd_queue_kind kind,
			 size_t *bad_off);
/* Engine packet checks (packets_mme.c, packets_tpc.c); @p: the packet */
int hfd_check_mme_gemm(const uint8_t *p);
int hfd_check_tpc_kernel(const uint8_t *p);
int hfd_check_nic_write(const uint8_t *p);

/* ------------------------------------------------------------------ */
/* Timer thread (timer.c)                                              */
/* ------------------------------------------------------------------ */

struct hfd_timer;
typedef void (*hfd_timer_fn)(struct hfd_timer *t);

/**
 * struct hfd_timer - a deadline served by the driver's timer thread
 * @deadline_ns: CLOCK_MONOTONIC when @fn runs (0: as soon as possible)
 * @fn: runs on the timer thread, with no driver lock held
 * @armed: queued (protected by the timer lock)
 * @next: next queued timer (protected by the timer lock)
 * @prev: previous queued timer (protected by the timer lock)
 */
struct hfd_timer {
	uint64_t deadline_ns;
	hfd_timer_fn fn;
	bool armed;
	struct hfd_timer *next;
	struct hfd_timer *prev;
};

int hfd_timer_start(void);
void hfd_timer_stop(void);
void hfd_timer_arm(struct hfd_timer *t, uint64_t deadline_ns);
void hfd_timer_cancel_sync(struct hfd_timer *t);

/* ------------------------------------------------------------------ */
/* Memory, CBs, submissions, waits (memory.c, cb.c, cs.c, wait.c)      */
/* ------------------------------------------------------------------ */

/**
 * struct hfd_ioctl_defer - how a handler answers a request later
 * @interrupted: whether the caller already gave up (signal)
 * @on_interrupt: have hfd_wait_interrupt(@id) called when it does
 * @reply: answer the request (@err 0: @out of @size bytes; else -errno)
 * @token: the request (fuse_req_t), first argument of the three
 */
struct hfd_ioctl_defer {
	bool (*interrupted)(void *token);
	void (*on_interrupt)(void *token, uint64_t id);
	void (*reply)(void *token, int err, const void *out, size_t size);
	void *token;
};

/* A handler's return value: the request will be answered through its defer */
#define HFD_IOCTL_DEFERRED 1

int hfd_ctx_mem_init(struct hfd_ctx *ctx);
void hfd_ctx_mem_fini(struct hfd_ctx *ctx);
int hfd_ctx_cs_init(struct hfd_ctx *ctx);
void hfd_ctx_cs_fini(struct hfd_ctx *ctx);
void hfd_ctx_cs_free(struct hfd_ctx *ctx);

/**
 * struct hfd_cb_ref - what a submission needs of a CB
 * @bytes: private copy of the first @size bytes of the CB
 * @size: bytes copied
 * @usage: the CB's in-flight usage counter (atomic), already raised
 */
struct hfd_cb_ref {
	void *bytes;
	uint32_t size;
	uint32_t *usage;
};

int hfd_cb_get(struct hfd_ctx *ctx, uint64_t handle, uint32_t size,
	       pid_t requester, struct hfd_cb_ref *ref);
void hfd_cb_put(struct hfd_cb_ref *ref);

void hfd_cs_done_cb(void *arg, void *cookie, enum hpu_fw_cs_result result,
		    const struct hpu_fw_fault *fault, uint64_t done_ns);
void hfd_engine_reset_cb(void *arg, uint32_t engine);
int hfd_cs_seq_status(struct hfd_ctx *ctx, uint64_t seq, uint32_t *status,
		      uint64_t *ts, bool *ts_valid);
void hfd_wait_cs_ended(struct hfd_ctx *ctx);
void hfd_wait_ctx_fini(struct hfd_ctx *ctx);
void hfd_wait_interrupt(uint64_t id);

/* ------------------------------------------------------------------ */
/* ioctl dispatch (ioctl.c, info.c)                                    */
/* ------------------------------------------------------------------ */

/* hfd_ioctl_desc.flags */
#define HFD_IOCTL_CONTROL_OK (1U << 0) /* allowed on control nodes */

/**
 * struct hfd_ioctl_call - one ioctl request as the handlers see it
 * @ctx: context of the file
 * @pid: thread that made the request (user memory belongs to it)
 * @uid: user of that request (fuse_req_ctx()->uid), not the opener's:
 *	what privileged ops check
 * @defer: how to answer later, or NULL (a wait that would block then
 *	answers BUSY at once)
 * @arg: user address of the argument struct (the kernel copies the
 *	answer there), or 0 when unknown (in-process callers)
 */
struct hfd_ioctl_call {
	struct hfd_ctx *ctx;
	pid_t pid;
	uid_t uid;
	const struct hfd_ioctl_defer *defer;
	uint64_t arg;
};

/**
 * struct hfd_arg_member - one member of an ioctl's input struct
 * @name: member name (logs)
 * @off: byte offset
 * @size: bytes
 */
struct hfd_arg_member {
	const char *name;
	uint16_t off;
	uint16_t size;
};

/**
 * struct hfd_arg_variant - what one op of a command uses
 * @name: command and op (logs)
 * @used: bit i set: member i may be non-zero (besides the command's
 *	@always members); every other member must be 0
 * @effects: the op changes state: the argument must be writable first
 */
struct hfd_arg_variant {
	const char *name;
	uint32_t used;
	bool effects;
};

/**
 * struct hfd_arg_rules - per-op member use of one command (ioctl_args.c)
 * @members: every member of the input struct, pad and reserved included
 * @nmembers: entries of @members (at most 32)
 * @always: members every op uses (the op selector)
 * @variant: index into @variants for an argument, -EINVAL for an unknown
 *	op; NULL: always 0
 * @variants: per op (or op and flag) what is used
 * @nvariants: entries of @variants
 */
struct hfd_arg_rules {
	const struct hfd_arg_member *members;
	unsigned int nmembers;
	uint32_t always;
	int (*variant)(const void *arg);
	const struct hfd_arg_variant *variants;
	unsigned int nvariants;
};

extern const struct hfd_arg_rules hfd_info_arg_rules;
extern const struct hfd_arg_rules hfd_cb_arg_rules;
extern const struct hfd_arg_rules hfd_cs_arg_rules;
extern const struct hfd_arg_rules hfd_wait_cs_arg_rules;
extern const struct hfd_arg_rules hfd_mem_arg_rules;
extern const struct hfd_arg_rules hfd_nic_arg_rules;
extern const struct hfd_arg_rules hfd_debug_arg_rules;

int hfd_args_check(const struct hfd_arg_rules *rules, const void *arg,
		   bool *effects);

typedef int (*hfd_ioctl_func_t)(const struct hfd_ioctl_call *call, void *data);

/**
 * struct hfd_ioctl_desc - one entry of the dispatch table
 * @cmd: full command number; its size and direction are the driver's
 * @func: handler; @data is the argument struct, updated in place
 * @flags: HFD_IOCTL_*
 * @name: for logs
 * @args: which input members each op uses, and which ops have effects
 */
struct hfd_ioctl_desc {
	unsigned int cmd;
	hfd_ioctl_func_t func;
	unsigned int flags;
	const char *name;
	const struct hfd_arg_rules *args;
};

/* Largest argument struct of any command */
#define HFD_IOCTL_MAX_SIZE 128

const struct hfd_ioctl_desc *hfd_ioctl_lookup(unsigned int cmd, int *err);
int hfd_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
		       const void *in, size_t in_size, void *out,
		       size_t *out_size);
int hfd_check_flags(uint64_t flags, uint64_t mask);
int hfd_check_zero(const void *ptr, size_t len);

int hfd_ioctl_info(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_memory(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_cb(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_wait_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_nic(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_debug(const struct hfd_ioctl_call *call, void *data);
void hfd_nic_event_cb(void *arg, void *as_cookie,
		      const struct hpu_fw_nic_event *ev);
int hfd_nic_info(struct hfd_device *dev, struct hpu_info_nic *out);
uint64_t hfd_driver_capabilities(const struct hfd_device *dev);

/* ------------------------------------------------------------------ */
/* Attributes (attr.c)                                                 */
/* ------------------------------------------------------------------ */

/**
 * struct hfd_attr_dev - one per-device text attribute (class/hpuN/NAME)
 * @name: file name
 * @show: writes the text (one line ending in '\n', or several for
 *	lists) to a malloc'ed buffer; 0 or -errno
 */
struct hfd_attr_dev {
	const char *name;
	int (*show)(struct hfd_device *dev, char **text, size_t *len);
};

/**
 * struct hfd_attr_drv - one daemon-wide text attribute (driver/NAME)
 * @name: file name
 * @show: as for struct hfd_attr_dev
 */
struct hfd_attr_drv {
	const char *name;
	int (*show)(struct hfd_driver *drv, char **text, size_t *len);
};

extern const struct hfd_attr_dev hfd_dev_attrs[];
extern const unsigned int hfd_num_dev_attrs;
extern const struct hfd_attr_drv hfd_drv_attrs[];
extern const unsigned int hfd_num_drv_attrs;

/* ------------------------------------------------------------------ */
/* FUSE front end (fs.c, fs_files.c) and mount handling (mount.c)     */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Hot-plug control and change log (hotplug.c)                         */
/* ------------------------------------------------------------------ */

/* Longest command written to driver/hotplug, and longest answer */
#define HFD_HOTPLUG_CMD_MAX 64
#define HFD_HOTPLUG_MSG_MAX 160

/**
 * struct hfd_hotplug_file - an open driver/hotplug
 * @lock: protects @msg and @msg_len
 * @msg: answer to the last command written, returned by read()
 * @msg_len: bytes of @msg
 * @prev: previous open driver/hotplug (fs_files.c's list, for the
 *	unmount)
 * @next: next open driver/hotplug
 */
struct hfd_hotplug_file {
	pthread_mutex_t lock;
	char msg[HFD_HOTPLUG_MSG_MAX];
	size_t msg_len;
	struct hfd_hotplug_file *prev;
	struct hfd_hotplug_file *next;
};

int hfd_hotplug_command(struct hfd_driver *drv, const char *cmd, size_t len,
			char *msg, size_t msg_len, char *action,
			unsigned int *index);
void hfd_hotplug_log(struct hfd_driver *drv, const char *action,
		     unsigned int index);
int hfd_event_reader_open(struct hfd_driver *drv,
			  struct hfd_event_reader **out);
void hfd_event_reader_close(struct hfd_driver *drv, struct hfd_event_reader *r);
int hfd_event_reader_read(struct hfd_driver *drv, struct hfd_event_reader *r,
			  char *buf, size_t size);
unsigned int hfd_event_reader_poll(struct hfd_driver *drv,
				   struct hfd_event_reader *r,
				   struct fuse_pollhandle *ph);
void hfd_event_readers_fini(struct hfd_driver *drv);

extern const struct fuse_lowlevel_ops hfd_fs_ops;
void hfd_fs_release_all(void);
int hfd_fs_guard_start(uint32_t timeout_ms);

int hfd_mount_prepare(const char *dir);
int hfd_mount_dev(const char *dir, dev_t *dev);
int hfd_devlinks_create(const char *link_dir, const char *dir,
			unsigned int ndev, bool forced);
void hfd_devlinks_hotplug(char action, unsigned int index);
void hfd_devlinks_remove(const char *link_dir, const char *dir,
			 unsigned int ndev);

#endif /* HPU_FUSED_H */
