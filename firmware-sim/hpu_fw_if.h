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
 *
 * 1.1 adds device memory, address spaces (one per driver context), host
 * memory mappings and command submission with completion callbacks.
 *
 * 1.2 adds the NICs: a fabric (one server: the devices of one driver
 * instance and its scale-out endpoint), memory registration for remote
 * writes, connections between NIC ports, link state, and NIC events.
 *
 * 1.3 gives the NICs protection domains (one per address space): keys are
 * 64-bit and unpredictable, a registration has a handle besides its key,
 * a connection has a token, and nic_accept lets the connection of that
 * token write into the address space's regions. The driver uses the NICs
 * of a 1.3 model only: the 1.2 NIC operations had narrower arguments.
 *
 * 1.4 adds a thermal fault (thermal_fault): the die runs over its
 * slowdown temperature, so the clock is throttled.
 *
 * 1.5 adds engine traces (docs/tracing.md): per address space, a bounded
 * ring of struct hpu_trace_event per engine queue, filled at each job's
 * end (trace_*), and cs_submit_seq, which gives the model the driver's
 * sequence number of a submission for its events.
 *
 * 1.6 adds the modeled busy time of a device (docs/hpu-smi.md,
 * docs/timing-model.md): when the driver turned it on (model_busy_enable),
 * the end of every job adds the job's duration by the timing model to its
 * engine class's count; model_busy reads the counts, and the modeled
 * utilization and power of a recent window.
 *
 * 1.7 adds the scheduler's counters (sched_stats): how often a queue that
 * a job woke was run by the waking thread or handed to another thread,
 * and how often a worker thread was woken (docs/firmware-sim.md, "Run to
 * completion of dependent work"), and the stream of a job
 * (struct hpu_fw_job.stream: a Gaudi2 QMAN's 4 streams, each in order,
 * none held by a sibling parked on a FENCE); as_read_dev, which reads
 * device memory mapped in an address space (a command buffer a client
 * keeps in HBM or SRAM), and struct hpu_fw_config.dram_size (a device
 * with less HBM than its profile's). 1.7 serves HPU_FW_STREAMS 8 streams
 * per queue: an engine of the model may serve two Gaudi2 QMANs (the
 * gaudi2 profile's MMEs are the master/slave pairs of DCORE0+1 and
 * DCORE2+3), each with its 4 streams.
 *
 * 1.8 runs long SOBs (uapi/hpu_packets.h: MSG_LONG's HPU_MSG_OP_LONG_SET
 * and _LONG_ADD, ARM_MONITOR's HPU_MON_F_LONG: four SOBs as one 60-bit
 * counter) and monitor payloads that set a SOB (HPU_MON_F_SOB_SET); no
 * new operation: the driver offers HPU_CAP_LONG_SOB with a 1.8 model.
 *
 * Threading: every operation may be called from any driver thread at once.
 * Callbacks (struct hpu_fw_callbacks) are called from the model's engine
 * threads, or from the calling thread inside cs_submit/cs_abort/as_destroy;
 * they must not call back into the model with a lock held that the model's
 * callers could need.
 */
#ifndef HPU_FW_IF_H
#define HPU_FW_IF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_trace.h"

#define HPU_FW_IF_MAJOR 1
#define HPU_FW_IF_MINOR 8

/* The most as_read_dev reads at once (a command buffer's bound) */
#define HPU_FW_AS_READ_MAX (4ULL << 20)

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
struct hpu_fw_as;
struct hpu_fw_mem;
struct hpu_fw_fabric;

/* Sync objects of an address space: user ids below HPU_NUM_SOBS
 * (uapi/hpu_packets.h), driver-internal ids from there up (1.1) */
#define HPU_FW_NUM_SOBS 1024

/* Device VA ranges of every address space (1.1) */
#define HPU_FW_VA_DEVICE_BASE 0x0000100000000000ULL /* HBM and SRAM mappings */
#define HPU_FW_VA_DEVICE_END  0x0000200000000000ULL
#define HPU_FW_VA_HOST_BASE   0x0000200000000000ULL /* host memory mappings */
#define HPU_FW_VA_HOST_END    0x0000300000000000ULL

/**
 * enum hpu_fw_cs_result - how a submission ended (cs_done)
 * @HPU_FW_CS_OK: every job ran to its end (or its STOP)
 * @HPU_FW_CS_PAGE_FAULT: a job touched an address outside the address
 *	space's mappings; @fault describes it; the CS's other jobs were
 *	stopped
 * @HPU_FW_CS_ENGINE_ERR: an engine reported an error (fault injection,
 *	later engine packets)
 * @HPU_FW_CS_ABORTED: cs_abort, as_destroy or a reset stopped it
 */
enum hpu_fw_cs_result {
	HPU_FW_CS_OK = 0,
	HPU_FW_CS_PAGE_FAULT,
	HPU_FW_CS_ENGINE_ERR,
	HPU_FW_CS_ABORTED,
};

/**
 * struct hpu_fw_fault - what went wrong in a failed submission
 * @addr: device VA that faulted (PAGE_FAULT)
 * @engine: engine id (docs/firmware-sim.md numbering) that hit the fault
 * @is_write: the access was a write
 */
struct hpu_fw_fault {
	uint64_t addr;
	uint32_t engine;
	bool is_write;
};

/**
 * struct hpu_fw_nic_event - what a NIC reports (1.2)
 * @type: HPU_EVENT_LINK_DOWN or HPU_EVENT_NIC_ACCESS_ERR
 * @port: NIC port concerned (the local port; for an access error seen by
 *	the region's owner, the port the write arrived on, or ~0 when it
 *	came from the scale-out network)
 * @key: NIC_ACCESS_ERR: the key the write named; else 0
 * @offset: NIC_ACCESS_ERR: the offset it named; else 0
 * @size: NIC_ACCESS_ERR: the bytes it carried; else 0
 */
struct hpu_fw_nic_event {
	uint32_t type;
	uint32_t port;
	uint64_t key;
	uint64_t offset;
	uint64_t size;
};

/**
 * struct hpu_fw_callbacks - how a model reports back to the driver (1.1)
 * @cs_done: a submission ended; called exactly once per successful
 *	cs_submit, possibly before cs_submit returns; @fault is NULL unless
 *	@result is PAGE_FAULT or ENGINE_ERR; @done_ns is device time
 *	(the clock of device_time_ns) when it ended
 * @engine_reset: the model reset @engine (after an abort or a fault)
 * @arg: first argument of every callback
 * @nic_event: (1.2) a NIC event for the context whose address space has
 *	@as_cookie (as_set_cookie), or for every context of the device when
 *	@as_cookie is NULL; @ev->type is HPU_EVENT_LINK_DOWN or
 *	HPU_EVENT_NIC_ACCESS_ERR
 */
struct hpu_fw_callbacks {
	void (*cs_done)(void *arg, void *cs_cookie,
			enum hpu_fw_cs_result result,
			const struct hpu_fw_fault *fault, uint64_t done_ns);
	void (*engine_reset)(void *arg, uint32_t engine);
	void *arg;
	void (*nic_event)(void *arg, void *as_cookie,
			  const struct hpu_fw_nic_event *ev);
};

/**
 * struct hpu_fw_job - one job of a submission: a validated CB on a queue
 * @queue: hardware queue index (0..num_queues-1; one queue per engine)
 * @cb: packets, already validated by the driver; the model copies what it
 *	needs before cs_submit returns
 * @cb_size: bytes at @cb
 * @stream: stream of the queue, 0..HPU_FW_STREAMS-1 (0 for the hpu ABI).
 *	Each stream of a queue is a queue of its own for the address space
 *	(jobs of one stream run in order; a stream parked on a FENCE does
 *	not hold its siblings), served by the engine's round robin like
 *	the queues of other address spaces
 */
struct hpu_fw_job {
	uint32_t queue;
	const void *cb;
	uint32_t cb_size;
	uint32_t stream;
};

/* Streams per hardware queue (1.7): two Gaudi2 QMANs' 4 upper CPs each */
#define HPU_FW_STREAMS 8

/**
 * struct hpu_fw_host_range - host memory of a client process (1.1)
 * @pid: thread group id of the owning process
 * @pidfd: pidfd of that process; the driver keeps it open at least until
 *	the mapping is unmapped (unmap hands it back) or its address space
 *	destroyed, and may give the same pidfd to every mapping of the
 *	process; the model never closes or duplicates it. Every access
 *	polls it right before and right after its process_vm_readv/writev:
 *	an exited owner is never written, what a read brought from it is
 *	discarded, and the access faults (docs/firmware-sim.md, "Host
 *	memory accesses")
 * @addr: user address in the process
 * @size: bytes
 */
struct hpu_fw_host_range {
	int32_t pid;
	int pidfd;
	uint64_t addr;
	uint64_t size;
};

/**
 * struct hpu_fw_config - what the driver asks a model to create
 * @profile: chip profile, one of the model's @profiles
 * @index: device index in its server (0..)
 * @module_id: OAM module id in the server
 * @pci_domain: PCI domain of the simulated device
 * @pci_bus: PCI bus of the simulated device
 * @serial: serial number string (NUL-terminated, copied by create)
 * @cb: callbacks (1.1); may be all NULL for a device used only for INFO
 * @fabric: (1.2) the server the device joins (its scale-up ports link it
 *	to every other device of the fabric), or NULL for a device with no
 *	peers; @index must be unique in the fabric
 * @dram_size: (1.7) HBM bytes of the device, 0 for the profile's; else
 *	at most the profile's and a multiple of its dram_page_size (a
 *	smaller card: less host memory for clients that use all of it)
 */
struct hpu_fw_config {
	const struct hpu_fw_profile *profile;
	uint32_t index;
	uint32_t module_id;
	uint32_t pci_domain;
	uint8_t pci_bus;
	const char *serial;
	struct hpu_fw_callbacks cb;
	struct hpu_fw_fabric *fabric;
	uint64_t dram_size;
};

/**
 * struct hpu_fw_model_busy - a device's modeled busy time (1.6)
 * @ns: modeled busy ns since enabled, per engine class: DMA, MME, TPC, NIC
 * @jobs: jobs counted
 * @window_ns: the window @utilization and @power_mw cover
 * @window_busy_ns: modeled busy ns of the jobs that ended in it
 * @utilization: @window_busy_ns over @window_ns, percent, at most 100
 * @power_mw: idle + @utilization x (max - idle) of the chip's profile
 */
struct hpu_fw_model_busy {
	uint64_t ns[4];
	uint64_t jobs;
	uint64_t window_ns;
	uint64_t window_busy_ns;
	uint32_t utilization;
	uint32_t power_mw;
};

/**
 * struct hpu_fw_fabric_config - what the driver asks a fabric to be (1.2)
 * @scaleout_addr: "HOST:PORT" (IPv4 address or host name; port 0 picks a
 *	free one) on which the server accepts scale-out connections from
 *	other servers, or NULL for a server without scale-out
 * @num_devices: devices that will join (scale-up wiring is laid out for
 *	this many), 1..64
 */
struct hpu_fw_fabric_config {
	const char *scaleout_addr;
	uint32_t num_devices;
};

/**
 * struct hpu_fw_sched_stats - counters of the model's scheduler (1.7),
 * for the whole process (every device of it), since it started
 * @handoff_thread: turns of a queue woken by a job (its FENCE passed)
 *	that the waking thread ran itself
 * @handoff_pool: queues woken while their engine was idle that went to
 *	the run list with a worker signalled (a thread hop)
 * @chain_cuts: of those, the ones a worker's bounded chain gave up (its
 *	turns or its time were used up while other engines waited)
 * @submit_pool: jobs of a new submission that found their engine idle
 *	but could not run in the submitting thread (not the fast path):
 *	a worker was signalled
 * @wakeups: times a pool worker was woken from its sleep
 */
struct hpu_fw_sched_stats {
	uint64_t handoff_thread;
	uint64_t handoff_pool;
	uint64_t chain_cuts;
	uint64_t submit_pool;
	uint64_t wakeups;
};

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
 * @reset: reset the device's engines (@hard: the whole device); 0 or -errno.
 *	Since 1.1 every submission in flight ends with HPU_FW_CS_ABORTED.
 *
 * Since 1.1:
 * @mem_alloc: reserve @size bytes (rounded up to @page_size, a bit of the
 *	profile's page_size_mask, or 0 for the default) of HBM, or of SRAM
 *	with @sram; zero-filled, backed by host memory only once touched;
 *	-ENOMEM when the device has too little free; -EINVAL for a bad page
 *	size or a zero size
 * @mem_free: return an allocation; -EBUSY while it is mapped (memory that
 *	a host access given up may still copy into is reused only once
 *	that access ends)
 * @mem_size: bytes an allocation really holds (rounded)
 * @mem_usage: bytes of HBM allocated, and the device's HBM size
 * @mem_export: make an allocation reachable as a file the owner can mmap;
 *	@path gets its absolute path (at most @len bytes); the file is
 *	removed when the allocation is freed (hpusim: the file's basename is the
 *	decimal export id, its directory is the device's export directory,
 *	the same for every export of the device; the file is created mode
 *	0600 by the model's user, so a driver serving other users gives it
 *	to the exporter, e.g. with chown; exporting again returns the same
 *	path)
 * @as_create: a new, empty address space with every SOB at 0 (a context)
 * @as_destroy: abort every submission of @as (each gets its cs_done),
 *	wait until none of its jobs runs, drop every mapping; pidfds of host
 *	mappings still in place stay the driver's to close
 * @map_mem: map a whole allocation into @as; @va_hint 0 lets the model
 *	choose; with @fixed the hint must be used or -EINVAL; device VAs come
 *	from [HPU_FW_VA_DEVICE_BASE, HPU_FW_VA_DEVICE_END); -EEXIST when a
 *	@fixed hint overlaps another mapping, -ENOMEM when no VA range fits
 * @map_host: map host memory of a client into @as at a VA from
 *	[HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END) (hint and @fixed as above);
 *	the VA keeps the range's offset within its page; -EFAULT when the
 *	range is not mapped readable or its owner does not answer within
 *	the host access bound. Engines reach it with every access bounded
 *	in time: one that does not end within the bound is a page fault
 * @unmap: remove the mapping that starts at @va; -ENOENT when none does;
 *	for a host mapping returns its pidfd through @pidfd (-1 otherwise)
 *	so the driver can close it
 * @cs_submit: queue the jobs of one submission; @cookie comes back in
 *	cs_done; jobs on one queue run in submission order, queues run
 *	concurrently; 0 or -errno (-EINVAL bad queue, -ENOMEM)
 * @cs_abort: stop a submission of @as (the cookie given to cs_submit):
 *	queued jobs are dropped, running ones stopped and their engines
 *	reset; cs_done(ABORTED) follows unless it already came; returns the
 *	number of engines reset (>= 0) or -ENOENT when the cookie is unknown
 * @sob_read: current value of a sync object of @as (tests, debug)
 * @sob_write: HPU_MSG_OP_SET or HPU_MSG_OP_ADD on a sync object of @as, as
 *	a MSG_LONG packet would (fences and monitors waiting on it react);
 *	ids HPU_NUM_SOBS..HPU_FW_NUM_SOBS-1 are the driver's own (user
 *	packets cannot name them; the driver builds WAIT/SIGNAL submissions
 *	from them)
 * @export_dir: the directory mem_export files appear in (made at create),
 *	so the driver can publish it before the first export; 0, or
 *	-ENAMETOOLONG when it does not fit in @len bytes
 * @map_shared: map @size bytes of host memory that the driver has mapped
 *	shared into its own process at @ptr (a client's memfd or shm file)
 *	into @as at a VA from [HPU_FW_VA_HOST_BASE, HPU_FW_VA_HOST_END)
 *	(hint and @fixed as for map_mem; @ptr and @size page-aligned); the
 *	model reaches it like device memory, without process_vm_readv; the
 *	driver keeps @ptr mapped until unmap (which gives @pidfd -1) or
 *	as_destroy returned. Added at the end of 1.1, before any release
 *
 * Since 1.2 (docs/nic.md):
 * @fabric_create: a server: the scale-up links of @cfg->num_devices
 *	devices and, with @cfg->scaleout_addr, a listening scale-out
 *	endpoint; 0, -EINVAL (bad address or count), -EADDRINUSE, -errno
 * @fabric_destroy: close the scale-out endpoint and its connections;
 *	called after every device of the fabric was destroyed
 * @fabric_addr: the scale-out endpoint really bound (IPv4 network order,
 *	port host order; both 0 without scale-out); never fails
 * @nic_info: fill the HPU_INFO_NIC answer
 * @as_set_cookie: the value nic_event gives for events of @as
 * @nic_reg_mr: (1.3 arguments) register [@va, @va + @size) of @as (every
 *	byte mapped to HBM, SRAM or shared host memory) for remote writes;
 *	@handle gets an id (never 0) unique in @as, @key an unpredictable
 *	64-bit key, never 0 and never handed out again by the device;
 *	-EINVAL (bad range, flags), -EFAULT (not mapped or pageable host
 *	memory), -ENOSPC (HPU_NIC_MAX_MRS reached, keys exhausted)
 * @nic_dereg_mr: (1.3 arguments) revoke the region of @handle of @as; a
 *	write in flight to it finishes first, later ones fail; -ENOENT when
 *	@as has no such handle
 * @nic_connect: (1.3 arguments) a connection of @as from @port to device
 *	@remote_device of the server at @ipv4:@tcp_port (both 0: this
 *	server); @conn gets an id (never 0) unique in @as, @token the
 *	connection's unpredictable token (never 0) that the owner of the
 *	memory it is to write must accept; -EINVAL (port out of range, scale-up
 *	port not wired to that device, scale-out port to this server or
 *	scale-up port to another), -ENODEV (no such remote device),
 *	-ENETDOWN (port down), -EHOSTUNREACH / -ECONNREFUSED / -ETIMEDOUT
 *	(remote server unreachable), -ENOSPC (HPU_NIC_MAX_CONNS reached)
 * @nic_disconnect: drop a connection or an acceptance of @as (writes over
 *	an accepted connection fail from then on); -ENOENT when unknown
 * @nic_set_link: take @port of the device down (@up false) or up again;
 *	a scale-up link goes down at both ends; writes through a down port
 *	end their CS with an engine error; every context of both devices
 *	gets HPU_EVENT_LINK_DOWN when a link goes down; -EINVAL bad port
 *
 * Since 1.3:
 * @nic_accept: let the connection of @token (made by a peer, on this or
 *	another server, to the device of @as) write into the regions of
 *	@as; @id gets an id for nic_disconnect, unique in @as; -EINVAL
 *	(@token 0), -EEXIST (@as accepted it already), -EBUSY (another
 *	address space of the device did), -ENOSPC (HPU_NIC_MAX_ACCEPTS)
 *
 * Since 1.4:
 * @thermal_fault: (@on) the die's cooling fails: until called again with
 *	@on false, the ASIC temperature telemetry reports is at least
 *	halfway between the profile's slowdown and shutdown temperatures, and
 *	the clock is throttled as that temperature makes it (a step both
 *	ways, not through the thermal lag); 0 or -EINVAL (no device)
 *
 * Since 1.5 (docs/tracing.md). The trace operations of one address
 * space may be called from any thread, also while its jobs run:
 * @cs_submit_seq: cs_submit, with @seq the driver's sequence number of
 *	the submission, which its trace events carry as cs_seq
 * @trace_start: reserve one ring of @capacity events (a power of two
 *	within HPU_TRACE_MIN_CAPACITY..HPU_TRACE_MAX_CAPACITY) per queue
 *	of the device for @as, and record its jobs from now on; rings of
 *	that capacity already reserved are kept; 0, -EINVAL, -EBUSY (rings
 *	of another capacity are reserved), -ENOMEM
 * @trace_stop: stop recording; the events stay
 * @trace_peek: copy up to @max of the oldest events (by start_ns across
 *	the rings) to @ev without taking them; @pos (num_queues entries)
 *	receives where each ring's copy ended; returns the count
 * @trace_consume: drop the events of a trace_peek (@pos as it gave)
 * @trace_status: the counts (struct hpu_trace_out; @events 0)
 * @trace_free: stop recording and free the rings and their events
 *	(as_destroy does too)
 * @model_busy_enable: since 1.6: count (or stop counting) every job's
 *	modeled duration at its end; turning it on again goes on with the
 *	counts; -EOPNOTSUPP for a chip without timing model figures
 * @model_busy: since 1.6: the counts and the modeled utilization and
 *	power of the last @period_ms (100..1000); -ENODATA while counting
 *	is off, -EINVAL for a bad period
 *
 * Since 1.7:
 * @sched_stats: the scheduler's counters (process-wide)
 * @as_read_dev: copy @len bytes (1..HPU_FW_AS_READ_MAX) at @va of @as
 *	into @buf, every byte device memory (HBM or SRAM) mapped in @as
 *	(the driver reads a command buffer the client keeps there); 0,
 *	-EINVAL (bad arguments), -EFAULT (a byte unmapped or host memory)
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

	/* 1.1 */
	int (*mem_alloc)(struct hpu_fw_device *fw, uint64_t size,
			 uint64_t page_size, bool contiguous, bool sram,
			 struct hpu_fw_mem **out);
	int (*mem_free)(struct hpu_fw_mem *mem);
	uint64_t (*mem_size)(const struct hpu_fw_mem *mem);
	void (*mem_usage)(struct hpu_fw_device *fw, uint64_t *used,
			  uint64_t *total);
	int (*mem_export)(struct hpu_fw_mem *mem, char *path, size_t len);
	int (*as_create)(struct hpu_fw_device *fw, struct hpu_fw_as **out);
	void (*as_destroy)(struct hpu_fw_as *as);
	int (*map_mem)(struct hpu_fw_as *as, struct hpu_fw_mem *mem,
		       uint64_t va_hint, bool fixed, uint64_t *va);
	int (*map_host)(struct hpu_fw_as *as,
			const struct hpu_fw_host_range *range, uint64_t va_hint,
			bool fixed, uint64_t *va);
	int (*unmap)(struct hpu_fw_as *as, uint64_t va, int *pidfd);
	int (*cs_submit)(struct hpu_fw_as *as, const struct hpu_fw_job *jobs,
			 unsigned int njobs, void *cookie);
	int (*cs_abort)(struct hpu_fw_as *as, void *cookie);
	int (*sob_read)(struct hpu_fw_as *as, uint32_t sob_id, uint32_t *value);
	int (*sob_write)(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
			 uint32_t value);
	int (*export_dir)(struct hpu_fw_device *fw, char *buf, size_t len);
	int (*map_shared)(struct hpu_fw_as *as, void *ptr, uint64_t size,
			  uint64_t va_hint, bool fixed, uint64_t *va);

	/* 1.2 */
	int (*fabric_create)(const struct hpu_fw_fabric_config *cfg,
			     struct hpu_fw_fabric **out);
	void (*fabric_destroy)(struct hpu_fw_fabric *fab);
	void (*fabric_addr)(struct hpu_fw_fabric *fab, uint32_t *ipv4,
			    uint16_t *port);
	void (*nic_info)(struct hpu_fw_device *fw, struct hpu_info_nic *out);
	void (*as_set_cookie)(struct hpu_fw_as *as, void *cookie);
	int (*nic_reg_mr)(struct hpu_fw_as *as, uint64_t va, uint64_t size,
			  uint32_t flags, uint32_t *handle, uint64_t *key);
	int (*nic_dereg_mr)(struct hpu_fw_as *as, uint32_t handle);
	int (*nic_connect)(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
			   uint16_t tcp_port, uint32_t remote_device,
			   uint32_t *conn, uint64_t *token);
	int (*nic_disconnect)(struct hpu_fw_as *as, uint32_t id);
	int (*nic_set_link)(struct hpu_fw_device *fw, uint32_t port, bool up);

	/* 1.3 */
	int (*nic_accept)(struct hpu_fw_as *as, uint64_t token, uint32_t *id);

	/* 1.4 */
	int (*thermal_fault)(struct hpu_fw_device *fw, bool on);

	/* 1.5 */
	int (*cs_submit_seq)(struct hpu_fw_as *as,
			     const struct hpu_fw_job *jobs, unsigned int njobs,
			     void *cookie, uint64_t seq);
	int (*trace_start)(struct hpu_fw_as *as, uint32_t capacity);
	void (*trace_stop)(struct hpu_fw_as *as);
	int (*trace_peek)(struct hpu_fw_as *as, struct hpu_trace_event *ev,
			  uint32_t max, uint64_t *pos);
	void (*trace_consume)(struct hpu_fw_as *as, const uint64_t *pos);
	void (*trace_status)(struct hpu_fw_as *as, struct hpu_trace_out *st);
	void (*trace_free)(struct hpu_fw_as *as);

	/* 1.6 */
	int (*model_busy_enable)(struct hpu_fw_device *fw, bool on);
	int (*model_busy)(struct hpu_fw_device *fw, uint32_t period_ms,
			  struct hpu_fw_model_busy *out);

	/* 1.7 */
	void (*sched_stats)(struct hpu_fw_sched_stats *out);
	int (*as_read_dev)(struct hpu_fw_as *as, uint64_t va, void *buf,
			   uint64_t len);
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
