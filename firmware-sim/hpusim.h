/* SPDX-License-Identifier: MIT */
/*
 * hpusim.h - private interface of the firmware simulator (libhpusim).
 *
 * The driver only sees firmware-sim through hpu_fw_if.h. This header is
 * shared by the simulator's own files and by its unit tests. It holds the
 * device, its address spaces, its telemetry and the NIC entry points, and
 * includes the rest of the interface, one header per concern:
 *
 *   hpusim_list.h     the intrusive list
 *   hpusim_mem.h      pools, allocations, mappings, translation, host memory
 *   hpusim_sync.h     sync objects, monitors, FENCE waits
 *   hpusim_sched.h    jobs, queues, the worker pool, submissions
 *   hpusim_engines.h  DMA, MME and TPC packets
 *
 * Files include hpusim.h, not these.
 *
 * Engine numbering (busy accounting, HW_IDLE busy mask, queue index):
 * DMA engines first, then MME, then TPC, then NIC ports, each class
 * numbered from 0 (docs/firmware-sim.md).
 */
#ifndef HPUSIM_H
#define HPUSIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_fw_if.h"
#include "hpu_warn.h"
#include "hpusim_engines.h"
#include "hpusim_list.h"
#include "hpusim_mem.h"
#include "hpusim_sched.h"
#include "hpusim_sync.h"

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
 * @overheated: the cooling failed (thermal_fault): the ASIC reports at
 *	least hpusim_overheat_mc()
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
	bool overheated;
};

/**
 * struct hpu_fw_as - an address space (one per driver context)
 * @dev: device
 * @node: in @dev->as_list
 * @map_lock: protects @maps/@nmaps/@cap; writer-preferring. Readers hold it
 *	across one translation and copy, so an unmap waits at most one chunk
 * @maps: mappings sorted by VA
 * @nmaps: entries in @maps
 * @cap: room in @maps
 * @sync_lock: protects @sobs, @mons, @waiters, @monitor_faults
 * @sobs: sync objects
 * @mons: monitors
 * @waiters: queues parked on a FENCE of this address space
 *	(struct hpusim_queue.wait_node)
 * @monitor_faults: monitor payload writes that faulted outside a submission
 * @cs_list: submissions in flight (sched lock)
 * @completing: submissions of it whose cs_done runs now (sched lock)
 * @queues: its queue on every engine, made at its first job there (a
 *	table of @dev->profile->num_queues entries, or NULL; sched lock)
 * @nic: its registrations and connections (nic_mr.c, nic_conn.c)
 * @hostmem: its share of the host access pool (hostmem.c)
 * @trace_on: its jobs are recorded (trace.c; relaxed loads on the job path)
 * @trace: its trace rings, or NULL (changed under the sched lock)
 */
struct hpu_fw_as {
	struct hpu_fw_device *dev;
	struct hpusim_list node;
	pthread_rwlock_t map_lock;
	struct hpusim_mapping *maps;
	uint32_t nmaps;
	uint32_t cap;
	pthread_mutex_t sync_lock;
	uint32_t sobs[HPU_FW_NUM_SOBS];
	struct hpusim_monitor mons[HPU_NUM_MONITORS];
	struct hpusim_list waiters;
	uint64_t monitor_faults;
	struct hpusim_list cs_list;
	unsigned int completing;
	struct hpusim_queue **queues;
	struct hpusim_nic_as *nic;
	struct hpusim_hostmem_as *hostmem;
	bool trace_on;
	struct hpusim_trace *trace;
};

struct hpusim_nic_as;
struct hpusim_nic;
struct hpusim_trace;

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
 * @cb: the driver's callbacks (1.1)
 * @hbm: HBM pool
 * @sram: SRAM pool
 * @mem_lock: protects both pools, @mems, every allocation's map_count,
 *	pins and export state, @export_seq and @mem_pins
 * @mems: every live allocation (struct hpu_fw_mem.node)
 * @export_seq: last export id handed out
 * @mem_pins: pins on its allocations (struct hpu_fw_mem.pins) in all
 * @export_dir: directory of exported allocations (under /dev/shm)
 * @as_lock: protects @as_list; held while a reset aborts submissions
 * @as_list: every address space (struct hpu_fw_as.node)
 * @eqs: one engine queue per engine, @profile->num_queues of them
 * @nic: NIC ports, registrations and the fabric it belongs to (nic*.c)
 */
struct hpusim_tm_profile;

/* modeled busy time: 10 ms buckets covering the longest window */
#define HPUSIM_MB_BUCKET_NS 10000000ULL
#define HPUSIM_MB_BUCKETS   128

/**
 * struct hpusim_model_busy - modeled busy time of a device (model_busy.c;
 * every member under hpusim_sched.lock, @on also read relaxed)
 * @on: counting
 * @tm: the timing model's profile of the chip
 * @ns: modeled busy ns per engine class
 * @total: sum of @ns
 * @jobs: jobs counted
 * @stamp: per bucket, 1 + the number of the 10 ms bucket it holds, 0 empty
 * @base: per bucket, @total before its first job ended
 */
struct hpusim_model_busy {
	bool on;
	const struct hpusim_tm_profile *tm;
	uint64_t ns[HPUSIM_ENGINE_CLASSES];
	uint64_t total;
	uint64_t jobs;
	uint64_t stamp[HPUSIM_MB_BUCKETS];
	uint64_t base[HPUSIM_MB_BUCKETS];
};

struct hpu_fw_device {
	const struct hpu_fw_profile *profile;
	uint64_t dram_size;
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
	struct hpu_fw_callbacks cb;
	struct hpusim_pool hbm;
	struct hpusim_pool sram;
	pthread_mutex_t mem_lock;
	struct hpusim_list mems;
	uint64_t export_seq;
	uint32_t mem_pins;
	char export_dir[64];
	pthread_mutex_t as_lock;
	struct hpusim_list as_list;
	struct hpusim_engine_queue *eqs;
	struct hpusim_nic *nic;
	struct hpusim_model_busy mb;
};

/* env.c */
uint64_t hpusim_env_u64(const char *name, uint64_t lo, uint64_t hi,
			uint64_t def);

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

/**
 * hpusim_telemetry_thermal_fault() - the die's cooling fails (@on) or
 * works again: while it is failed, the ASIC temperature is at least
 * hpusim_overheat_mc() (a step, not through the thermal lag)
 * @dev: device
 * @on: failed
 */
void hpusim_telemetry_thermal_fault(struct hpu_fw_device *dev, bool on);

/**
 * hpusim_overheat_mc() - the ASIC temperature of a failed cooler: halfway
 * between the profile's slowdown and shutdown temperatures
 * @p: chip profile
 *
 * Return: milli-degrees Celsius.
 */
int32_t hpusim_overheat_mc(const struct hpu_fw_profile *p);

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

/* nic*.c: the NIC engines (docs/nic.md; their shared internals: nic.h) */

/* hpu_fw_nic_event.port of an access error that came from scale-out */
#define HPUSIM_NIC_PORT_NET 0xffffffffU

int hpusim_nic_dev_init(struct hpu_fw_device *dev, struct hpu_fw_fabric *fab);
void hpusim_nic_dev_leave(struct hpu_fw_device *dev);
void hpusim_nic_dev_fini(struct hpu_fw_device *dev);
int hpusim_nic_as_init(struct hpu_fw_as *as);
void hpusim_nic_as_fini(struct hpu_fw_as *as);

/**
 * hpusim_nic_exec() - run (or resume) a NIC_WRITE packet
 * @as: address space of the submission
 * @q: the NIC queue running it
 * @pkt: the packet
 * @progress: the job's progress on this packet: 0 when it starts; set to
 *	1 when the packet waits for a scale-out answer
 * @fault: filled on -EFAULT
 *
 * Return: 0 (done), -EINPROGRESS (a scale-out write was sent: park the
 * job until its answer wakes the queue, then call again), -EFAULT (the
 * source is not mapped) or another -errno (an engine error).
 */
int hpusim_nic_exec(struct hpu_fw_as *as, struct hpusim_queue *q,
		    const void *pkt, uint64_t *progress,
		    struct hpu_fw_fault *fault);

void hpusim_fabric_addr(struct hpu_fw_fabric *fab, uint32_t *ipv4,
			uint16_t *port);
int hpusim_fabric_create(const struct hpu_fw_fabric_config *cfg,
			 struct hpu_fw_fabric **out);
void hpusim_fabric_destroy(struct hpu_fw_fabric *fab);
void hpusim_nic_info(struct hpu_fw_device *dev, struct hpu_info_nic *out);
void hpusim_as_set_cookie(struct hpu_fw_as *as, void *cookie);
int hpusim_nic_reg_mr(struct hpu_fw_as *as, uint64_t va, uint64_t size,
		      uint32_t flags, uint32_t *handle, uint64_t *key);
int hpusim_nic_dereg_mr(struct hpu_fw_as *as, uint32_t handle);
int hpusim_nic_connect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
		       uint16_t tcp_port, uint32_t remote_device,
		       uint32_t *conn, uint64_t *token);
int hpusim_nic_disconnect(struct hpu_fw_as *as, uint32_t id);
int hpusim_nic_accept(struct hpu_fw_as *as, uint64_t token, uint32_t *id);
int hpusim_nic_set_link(struct hpu_fw_device *dev, uint32_t port, bool up);

#endif /* HPUSIM_H */
