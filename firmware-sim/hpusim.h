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
#include <stddef.h>
#include <stdint.h>

#include "hpu_fw_if.h"
#include "hpu_warn.h"

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
 * struct hpusim_list - intrusive doubly linked list node or head
 * @next: next node (the head itself when last)
 * @prev: previous node
 */
struct hpusim_list {
	struct hpusim_list *next;
	struct hpusim_list *prev;
};

static inline void hpusim_list_init(struct hpusim_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool hpusim_list_empty(const struct hpusim_list *h)
{
	return h->next == h;
}

static inline void hpusim_list_add_tail(struct hpusim_list *n,
					struct hpusim_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void hpusim_list_del(struct hpusim_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	hpusim_list_init(n);
}

#define hpusim_container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

/**
 * struct hpusim_extent - a physically contiguous piece of a pool
 * @off: byte offset in the pool
 * @len: bytes
 */
struct hpusim_extent {
	uint64_t off;
	uint64_t len;
};

/**
 * struct hpusim_pool - one physical memory of a device (HBM or SRAM)
 * @base: host mapping of the whole pool (MAP_NORESERVE: sparse)
 * @size: bytes
 * @used: bytes allocated
 * @free: free extents, sorted by offset, coalesced
 * @nfree: entries in @free
 * @cap: room in @free
 * @pieces: allocated extents
 * @huge_pages: @base is MADV_HUGEPAGE (transparent 2 MiB pages)
 */
struct hpusim_pool {
	uint8_t *base;
	uint64_t size;
	uint64_t used;
	struct hpusim_extent *free;
	uint32_t nfree;
	uint32_t cap;
	uint64_t pieces;
	bool huge_pages;
};

/**
 * struct hpu_fw_mem - one allocation of device memory
 * @dev: device
 * @pool: pool it came from
 * @node: in @dev->mems
 * @size: bytes (a multiple of @page_size)
 * @page_size: allocation page size
 * @sram: allocated from SRAM
 * @contiguous: one extent
 * @nr_ext: extents in @ext, in allocation order
 * @ext: physical pieces; their lengths add up to @size
 * @map_count: mappings of it in any address space (dev->mem_lock)
 * @export_id: 0, or its export id once exported (dev->mem_lock)
 * @pins: host accesses given up while still copying into or out of it
 *	(hostmem.c; dev->mem_lock): its memory is not reused until they end
 * @freed: mem_free came while pinned: the last unpin releases it
 */
struct hpu_fw_mem {
	struct hpu_fw_device *dev;
	struct hpusim_pool *pool;
	struct hpusim_list node;
	uint64_t size;
	uint64_t page_size;
	bool sram;
	bool contiguous;
	uint32_t nr_ext;
	struct hpusim_extent *ext;
	uint32_t map_count;
	uint64_t export_id;
	uint32_t pins;
	bool freed;
};

/**
 * struct hpusim_mapping - one mapping of an address space
 * @va: first device VA of the mapped bytes
 * @size: bytes mapped
 * @span_start: first VA reserved for it (page-aligned)
 * @span_end: end of the reserved VAs, guard gap included
 * @mem: device allocation, or NULL for a host mapping
 * @pid: host mapping: owning process
 * @pidfd: host mapping: pidfd of @pid (the driver's until unmap)
 * @host_addr: host mapping: user address of @va
 * @shm: shared host memory (map_shared): pointer of @va in this process,
 *	reached like device memory; NULL otherwise
 */
struct hpusim_mapping {
	uint64_t va;
	uint64_t size;
	uint64_t span_start;
	uint64_t span_end;
	struct hpu_fw_mem *mem;
	int32_t pid;
	int pidfd;
	uint64_t host_addr;
	uint8_t *shm;
};

/**
 * struct hpusim_monitor - an armed monitor
 * @armed: waiting for its SOB
 * @sob_id: SOB watched
 * @target: fires when the SOB is >= this
 * @payload: written at @addr
 * @addr: device VA written
 */
struct hpusim_monitor {
	bool armed;
	uint32_t sob_id;
	uint32_t target;
	uint32_t payload;
	uint64_t addr;
};

/**
 * struct hpusim_seg - a piece of a translated device VA range
 * @map: mapping it lies in
 * @ptr: device or shared host memory: pointer of the piece
 * @host_addr: host mapping: user address of the piece in @map->pid
 * @len: bytes of the piece
 */
struct hpusim_seg {
	const struct hpusim_mapping *map;
	uint8_t *ptr;
	uint64_t host_addr;
	uint64_t len;
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
 * @nic: its registrations and connections (nic.c)
 * @hostmem: its share of the host access pool (hostmem.c)
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
};

struct hpusim_cs;
struct hpusim_queue;
struct hpusim_nic_as;
struct hpusim_nic;

/**
 * enum hpusim_job_state - where a job is
 * @HPUSIM_JOB_QUEUED: on its queue, not started or between turns
 * @HPUSIM_JOB_RUNNING: a thread executes it now
 * @HPUSIM_JOB_PARKED: its queue waits on a FENCE (or a scale-out answer)
 * @HPUSIM_JOB_DONE: ended or dropped
 */
enum hpusim_job_state {
	HPUSIM_JOB_QUEUED,
	HPUSIM_JOB_RUNNING,
	HPUSIM_JOB_PARKED,
	HPUSIM_JOB_DONE,
};

/**
 * struct hpusim_job - one job of a submission
 * @cs: its submission
 * @q: its queue (its address space's queue on the engine it names)
 * @node: in @q->jobs while not done
 * @cb: private copy of the packets
 * @cb_size: bytes at @cb
 * @pc: offset of the packet to execute next
 * @progress: bytes of the packet at @pc already done (DMA, MEMSET)
 * @state: enum hpusim_job_state (sched lock)
 */
struct hpusim_job {
	struct hpusim_cs *cs;
	struct hpusim_queue *q;
	struct hpusim_list node;
	uint8_t *cb;
	uint32_t cb_size;
	uint32_t pc;
	uint64_t progress;
	enum hpusim_job_state state;
};

/**
 * enum hpusim_queue_state - what an address space's queue on an engine does
 * @HPUSIM_Q_IDLE: no jobs
 * @HPUSIM_Q_READY: on its engine queue's ready list, waiting for its turn
 * @HPUSIM_Q_RUNNING: its engine runs its head job now
 * @HPUSIM_Q_PARKED: its head job waits on a FENCE (or a scale-out answer)
 *	and holds neither the engine nor a thread
 */
enum hpusim_queue_state {
	HPUSIM_Q_IDLE,
	HPUSIM_Q_READY,
	HPUSIM_Q_RUNNING,
	HPUSIM_Q_PARKED,
};

/**
 * enum hpusim_eq_state - what an engine queue does
 * @HPUSIM_EQ_IDLE: no queue of it is ready and no thread runs it
 * @HPUSIM_EQ_RUNNABLE: on the run list, waiting for a thread
 * @HPUSIM_EQ_RUNNING: a thread serves its ready queues, one turn each
 */
enum hpusim_eq_state {
	HPUSIM_EQ_IDLE,
	HPUSIM_EQ_RUNNABLE,
	HPUSIM_EQ_RUNNING,
};

/**
 * struct hpusim_engine_queue - the hardware queue of one engine
 * @dev: device
 * @engine: engine id (= queue index)
 * @state: enum hpusim_eq_state (sched lock)
 * @ready: address spaces' queues with a job to run, in turn order
 *	(struct hpusim_queue.ready_node; sched lock)
 * @active: queues of it that are not IDLE (sched lock): the engine is
 *	busy while there is one
 * @run_node: on the run list while RUNNABLE (sched lock)
 *
 * Every address space has a queue of its own on the engine (struct
 * hpusim_queue); the engine serves the ready ones round robin, a turn
 * being a slice of work (queue.c), so no address space holds the engine
 * for another.
 */
struct hpusim_engine_queue {
	struct hpu_fw_device *dev;
	uint32_t engine;
	enum hpusim_eq_state state;
	struct hpusim_list ready;
	unsigned int active;
	struct hpusim_list run_node;
};

/**
 * struct hpusim_queue - an address space's queue on one engine
 * @dev: device
 * @as: its address space
 * @eq: the engine queue that serves it
 * @engine: engine id (= queue index)
 * @is_dma: feeds a DMA engine
 * @jobs: jobs in submission order (sched lock)
 * @state: enum hpusim_queue_state (sched lock)
 * @woken: a SOB satisfied its FENCE before it parked (sched lock)
 * @nic_sent: a scale-out write of it may still be pending in the NIC: the
 *	NIC forgets it before the queue is freed (sched lock)
 * @ready_node: in @eq->ready while READY (sched lock)
 * @wait_node: in the address space's waiters while waiting (sync lock)
 * @waiting: @wait_node is linked (sync lock)
 * @wait_sob: SOB waited for
 * @wait_target: value waited for
 * @wait_dec: subtracted when the wait ends
 * @nic_wait: sequence number of the scale-out write whose answer the
 *	head job waits for, 0 when none (sched lock)
 * @nic_status: that answer once it came (sched lock; nic_scaleout.c)
 *
 * Jobs of one address space on one engine run in submission order; a
 * parked queue holds only its own address space's later jobs there.
 */
struct hpusim_queue {
	struct hpu_fw_device *dev;
	struct hpu_fw_as *as;
	struct hpusim_engine_queue *eq;
	uint32_t engine;
	bool is_dma;
	struct hpusim_list jobs;
	enum hpusim_queue_state state;
	bool woken;
	bool nic_sent;
	struct hpusim_list ready_node;
	struct hpusim_list wait_node;
	bool waiting;
	uint32_t wait_sob;
	uint32_t wait_target;
	uint32_t wait_dec;
	uint64_t nic_wait;
	int nic_status;
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
 * @nic: NIC ports, registrations and the fabric it belongs to (nic.c)
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

/* memory.c: pools, allocations, exports */
int hpusim_mem_init(struct hpu_fw_device *dev);
void hpusim_mem_fini(struct hpu_fw_device *dev);
int hpusim_mem_alloc(struct hpu_fw_device *dev, uint64_t size,
		     uint64_t page_size, bool contiguous, bool sram,
		     struct hpu_fw_mem **out);
int hpusim_mem_free(struct hpu_fw_mem *mem);
uint64_t hpusim_mem_size(const struct hpu_fw_mem *mem);
void hpusim_mem_usage(struct hpu_fw_device *dev, uint64_t *used,
		      uint64_t *total);
int hpusim_mem_export(struct hpu_fw_mem *mem, char *path, size_t len);
int hpusim_export_dir(struct hpu_fw_device *fw, char *buf, size_t len);

/**
 * hpusim_mem_pin() - keep an allocation's memory from reuse
 * @mem: allocation, alive (mapped, or pinned already)
 *
 * For a host access given up while it may still copy into or out of the
 * memory (hostmem.c). mem_free of a pinned allocation succeeds but leaves
 * its memory allocated until the last hpusim_mem_unpin().
 */
void hpusim_mem_pin(struct hpu_fw_mem *mem);

/**
 * hpusim_mem_unpin() - drop a pin; release the allocation if it was freed
 * @mem: pinned allocation
 */
void hpusim_mem_unpin(struct hpu_fw_mem *mem);

/*
 * Engine packets (mme.c, tpc.c): run one packet of a job on engine @engine
 * of @as's device. Return 0; -EFAULT with @fault filled (address outside
 * the mappings); any other -errno is an engine error (wrong queue, operand
 * in pageable host memory, ...).
 */
int hpusim_mme_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault);
int hpusim_tpc_exec(struct hpu_fw_as *as, uint32_t engine, const void *pkt,
		    struct hpu_fw_fault *fault);

/**
 * hpusim_mem_ptr() - host pointer and contiguous length at an offset
 * @mem: allocation
 * @off: byte offset in the allocation (< size)
 * @fwd: out: bytes from @off to the end of its extent
 * @back: out: bytes from the start of its extent up to @off (excluded)
 *
 * Return: host pointer of byte @off.
 */
uint8_t *hpusim_mem_ptr(const struct hpu_fw_mem *mem, uint64_t off,
			uint64_t *fwd, uint64_t *back);

/* mmu.c: address spaces, mappings, translation, host access */
int hpusim_as_create(struct hpu_fw_device *dev, struct hpu_fw_as **out);
void hpusim_as_destroy(struct hpu_fw_as *as);
int hpusim_map_mem(struct hpu_fw_as *as, struct hpu_fw_mem *mem,
		   uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_map_host(struct hpu_fw_as *as, const struct hpu_fw_host_range *r,
		    uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_map_shared(struct hpu_fw_as *as, void *ptr, uint64_t size,
		      uint64_t va_hint, bool fixed, uint64_t *va);
int hpusim_unmap(struct hpu_fw_as *as, uint64_t va, int *pidfd);

/**
 * hpusim_mmu_seg() - translate the start (or end) of a VA range
 * @as: address space, map_lock held for reading
 * @va: first VA of the range
 * @len: bytes of the range (> 0)
 * @back: translate the piece that ends at @va + @len instead
 * @seg: out: the piece (at most @len bytes, contiguous in one mapping and
 *	one physical extent)
 *
 * Return: 0, or -EFAULT when the first (or last) byte is unmapped.
 */
int hpusim_mmu_seg(struct hpu_fw_as *as, uint64_t va, uint64_t len, bool back,
		   struct hpusim_seg *seg);

/**
 * hpusim_mmu_check() - whether a whole VA range is mapped
 * @as: address space, map_lock held for reading
 * @va: first VA
 * @len: bytes
 * @fault_va: out: the first unmapped VA
 *
 * Return: 0, or -EFAULT.
 */
int hpusim_mmu_check(struct hpu_fw_as *as, uint64_t va, uint64_t len,
		     uint64_t *fault_va);

/**
 * hpusim_mmu_write32() - store a 32-bit value at a device VA
 * @as: address space (map_lock not held)
 * @va: device VA
 * @value: value, little-endian
 *
 * Return: 0, or -EFAULT when any of the 4 bytes is unmapped.
 */
int hpusim_mmu_write32(struct hpu_fw_as *as, uint64_t va, uint32_t value);

/* hostmem.c: bounded access to pageable host memory (host mappings) */

#define HPUSIM_HOST_TIMEOUT_MS	   2000U   /* default bound of one access */
#define HPUSIM_HOST_TIMEOUT_MAX_MS 600000U /* largest bound accepted */
#define HPUSIM_HOST_THREADS	   32	   /* live access threads, at most */
#define HPUSIM_HOST_AS_CALLS	   4 /* calls of one address space at once */
#define HPUSIM_HOST_STUCK_AS	   2 /* abandoned accesses of an address space */
#define HPUSIM_HOST_STUCK_MAX	   32 /* abandoned accesses in all */

struct hpusim_hostmem_as;
struct iovec;

/**
 * hpusim_host_copyv() - move bytes between local memory and a host mapping
 * @as: address space of @map (its map_lock held for reading)
 * @map: host mapping
 * @host_addr: user address in @map->pid (the host side is contiguous)
 * @iov: local pieces, in order
 * @niov: entries in @iov (at most HPUSIM_DMA_IOV)
 * @to_host: write the process's memory (else read it)
 * @local: the allocation @iov lies in (copied zero-copy, and pinned if the
 *	access is given up), or NULL for any other memory (copied through
 *	the access's own buffer, so it may go away when this returns)
 * @stop: NULL, or a flag that makes the wait give up when set
 *
 * The access runs in an access thread and is waited for at most the
 * address space's bound (docs/firmware-sim.md, "Host memory"); the
 * owner's pidfd is checked right before and after it: an owner that
 * exited fails the access, and what a read brought is discarded.
 *
 * Return: bytes moved before the first failure (== the total on success;
 * 0 when the access timed out, was stopped or refused).
 */
uint64_t hpusim_host_copyv(struct hpu_fw_as *as,
			   const struct hpusim_mapping *map, uint64_t host_addr,
			   const struct iovec *iov, unsigned int niov,
			   bool to_host, struct hpu_fw_mem *local,
			   const bool *stop);

/**
 * hpusim_host_copy() - hpusim_host_copyv() of one contiguous local piece
 * @as: address space of @map (map_lock held for reading)
 * @map: host mapping
 * @host_addr: user address in @map->pid
 * @ptr: local memory
 * @len: bytes
 * @to_host: write the process's memory (else read it)
 * @local: the allocation @ptr lies in, or NULL
 * @stop: NULL, or a flag that makes the wait give up when set
 *
 * Return: bytes moved before the first failure.
 */
uint64_t hpusim_host_copy(struct hpu_fw_as *as,
			  const struct hpusim_mapping *map, uint64_t host_addr,
			  uint8_t *ptr, uint64_t len, bool to_host,
			  struct hpu_fw_mem *local, const bool *stop);

/**
 * hpusim_host_probe() - map_host's check of a client range, bounded
 * @as: address space the range is being mapped into
 * @r: the range (pid, pidfd, addr, size)
 *
 * Return: 0 when the whole range is mapped readable and its first byte
 * reads; -EFAULT otherwise (owner gone, a hole, the bound passed);
 * -ENOMEM.
 */
int hpusim_host_probe(struct hpu_fw_as *as, const struct hpu_fw_host_range *r);

/* An address space's share of the pool: made with it, dropped with it */
int hpusim_hostmem_as_init(struct hpu_fw_as *as);

/**
 * hpusim_hostmem_as_dying() - as_destroy began: its waits give up at once
 * @as: address space
 */
void hpusim_hostmem_as_dying(struct hpu_fw_as *as);
void hpusim_hostmem_as_fini(struct hpu_fw_as *as);

/**
 * hpusim_hostmem_dev_fini() - device destroy: settle pins on its memory
 * @dev: device without address spaces
 *
 * Waits (at most HPUSIM_HOST_TIMEOUT_MS) for abandoned accesses into its
 * allocations to end, then detaches those still in their calls.
 *
 * Return: true when some were detached: their calls may still touch the
 * pools, whose addresses must then stay reserved.
 */
bool hpusim_hostmem_dev_fini(struct hpu_fw_device *dev);

/**
 * struct hpusim_hostmem_stats - the access pool now (tests, debug)
 * @live: access threads not stuck
 * @idle: of those, waiting for work
 * @stuck: abandoned accesses still in their calls
 * @timeouts: accesses given up (bound, stop, destroy) since start
 * @refused: accesses refused at once (too many stuck) since start
 */
struct hpusim_hostmem_stats {
	unsigned int live;
	unsigned int idle;
	unsigned int stuck;
	uint64_t timeouts;
	uint64_t refused;
};

void hpusim_hostmem_stats(struct hpusim_hostmem_stats *st);

/* Abandoned accesses of @as still in their calls */
unsigned int hpusim_hostmem_as_stuck(struct hpu_fw_as *as);

/* dma.c: LIN_DMA and MEMSET */
#define HPUSIM_DMA_CHUNK     (4ULL << 20)  /* bytes between abort checks */
#define HPUSIM_DMA_BOUNCE    (64U << 10)   /* host to host bounce buffer */
#define HPUSIM_DMA_PAR_MIN   (2ULL << 20)  /* copies cut into slices */
#define HPUSIM_DMA_PAR_ALIGN (64ULL << 10) /* slice boundaries */
#define HPUSIM_DMA_PAR_MAX   64		   /* slices of one step */
#define HPUSIM_DMA_IOV	     64		   /* device extents per syscall */

/**
 * hpusim_dma_copy() - copy part of a LIN_DMA packet
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @src: source VA of the whole packet
 * @size: bytes of the whole packet
 * @done: bytes already copied
 * @max: copy at most this many bytes now
 * @stop: NULL, or a flag that stops the copy at its next chunk when set
 * @fault: out on failure: the faulting VA and direction
 *
 * Overlapping ranges with @dst above @src are copied from the end, so the
 * packet behaves as memmove. From HPUSIM_DMA_PAR_MIN bytes on, other
 * ranges are cut into slices (HPUSIM_DMA_PAR_ALIGN-aligned) that idle pool
 * workers copy beside the calling thread, each in chunks of at most
 * HPUSIM_DMA_CHUNK bytes; @stop stops them all. When slices fault, the
 * fault of the lowest one is reported (the one a serial copy meets first).
 *
 * Return: bytes copied now (> 0), -EFAULT, or -ECANCELED when @stop was
 * seen (what was copied then is undefined).
 */
int64_t hpusim_dma_copy(struct hpu_fw_as *as, uint64_t dst, uint64_t src,
			uint64_t size, uint64_t done, uint64_t max,
			const bool *stop, struct hpu_fw_fault *fault);

/**
 * hpusim_dma_memset() - fill part of a MEMSET packet
 * @as: address space (map_lock not held)
 * @dst: destination VA of the whole packet
 * @size: bytes of the whole packet
 * @value: pattern
 * @width: element width 1, 2, 4 or 8
 * @done: bytes already filled
 * @max: fill at most this many bytes now
 * @fault: out on failure
 *
 * Return: bytes filled now (> 0), or -EFAULT.
 */
int64_t hpusim_dma_memset(struct hpu_fw_as *as, uint64_t dst, uint64_t size,
			  uint64_t value, uint32_t width, uint64_t done,
			  uint64_t max, struct hpu_fw_fault *fault);

/* sync.c: sync objects, monitors, fence waits */
int hpusim_sob_read(struct hpu_fw_as *as, uint32_t sob_id, uint32_t *value);
int hpusim_sob_write(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		     uint32_t value);

/**
 * hpusim_sob_update() - SET or ADD a SOB; wake fences; fire monitors
 * @as: address space
 * @sob_id: SOB
 * @op: HPU_MSG_OP_SET or HPU_MSG_OP_ADD
 * @value: operand
 * @fault_va: out: payload VA of a monitor whose write faulted
 *
 * Takes the scheduler lock (do not hold it).
 *
 * Return: 0, or -EFAULT when a monitor it fired faulted.
 */
int hpusim_sob_update(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		      uint32_t value, uint64_t *fault_va);

/**
 * hpusim_monitor_arm() - arm (or re-arm) a monitor
 * @as: address space
 * @pkt: the ARM_MONITOR packet
 * @fault_va: out: payload VA when it fired at once and the write faulted
 *
 * Return: 0, or -EFAULT.
 */
int hpusim_monitor_arm(struct hpu_fw_as *as,
		       const struct hpu_pkt_arm_monitor *pkt,
		       uint64_t *fault_va);

/**
 * hpusim_fence_try() - pass a FENCE or register the queue as its waiter
 * @as: address space
 * @q: queue executing the fence
 * @pkt: the FENCE packet
 *
 * Return: true when the fence passed (dec applied); false when @q is now
 * a waiter: it must park (or go on if it was woken meanwhile).
 */
bool hpusim_fence_try(struct hpu_fw_as *as, struct hpusim_queue *q,
		      const struct hpu_pkt_fence *pkt);

/**
 * hpusim_fence_cancel() - remove a queue from the waiters (sched lock held)
 * @as: address space
 * @q: queue
 */
void hpusim_fence_cancel(struct hpu_fw_as *as, struct hpusim_queue *q);

/*
 * queue.c, pool.c, exec.c, submit.c: engine queues and the address
 * spaces' queues on them, the worker pool, the packet interpreter,
 * submissions (their shared internals: queue.h)
 */
int hpusim_queues_init(struct hpu_fw_device *dev);
void hpusim_queues_fini(struct hpu_fw_device *dev);
void hpusim_sched_lock(void);
void hpusim_sched_unlock(void);

/**
 * hpusim_queue_wake() - a parked queue may go on (sched lock held)
 * @q: queue whose FENCE passed or whose scale-out answer came
 */
void hpusim_queue_wake(struct hpusim_queue *q);

/**
 * struct hpusim_par - one operation cut into slices for the worker pool
 * @fn: runs slice @slice of it; must not wait for the pool
 * @arg: argument of @fn
 * @nslices: slices (>= 1)
 * @next: next slice to claim (atomic; set by hpusim_par_run())
 * @helped: slices that pool workers finished (sched lock)
 * @node: on the pool's help list while slices may be unclaimed (sched lock)
 */
struct hpusim_par {
	void (*fn)(void *arg, unsigned int slice);
	void *arg;
	unsigned int nslices;
	unsigned int next;
	unsigned int helped;
	struct hpusim_list node;
};

/**
 * hpusim_par_width() - threads that could work on one operation now
 *
 * A hint (the calling thread plus the idle workers, at most the pool's
 * size): hpusim_par_run() is correct with any number of slices.
 *
 * Return: >= 1.
 */
unsigned int hpusim_par_width(void);

/**
 * hpusim_par_run() - run every slice of @par, idle workers helping
 * @par: the operation (@fn, @arg, @nslices set)
 *
 * The calling thread runs every slice no worker has claimed, then waits
 * only for the slices workers are running, so it cannot deadlock on a busy
 * pool. Call with no model lock held.
 */
void hpusim_par_run(struct hpusim_par *par);

int hpusim_cs_submit(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie);
int hpusim_cs_abort(struct hpu_fw_as *as, void *cookie);

/**
 * hpusim_as_abort_all() - abort every submission of an address space
 * @as: address space
 *
 * Returns when none of its jobs runs any more; its queues are freed (the
 * next submission makes them again).
 *
 * Return: the number of engines reset.
 */
int hpusim_as_abort_all(struct hpu_fw_as *as);

/* nic.c, nic_fabric.c, nic_scaleout.c: the NIC engines (docs/nic.md) */

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
