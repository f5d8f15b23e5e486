/* SPDX-License-Identifier: MIT */
/*
 * ht_backend.h - where the training library's ops run (docs/training.md)
 *
 * A backend is a static const ops table (cpu: the host with OpenBLAS and
 * the TPC kernel library's host entry; hpu: packets on the MME, TPC and
 * DMA queues of a device through libhpudrv) plus one instance: its
 * arenas, the autograd tape and the execution mode. The op vocabulary is
 * the device's: a GEMM is an MME_GEMM descriptor, everything else a TPC
 * kernel id with operands and parameters.
 */
#ifndef HT_BACKEND_H
#define HT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_packets.h"
#include "hpu_tpc_kernels.h"
#include "ht_tensor.h"

struct hpu_device;
struct hpu_stream;
struct ht_tape;

/* Where ops run */
enum ht_accel {
	HT_ACCEL_CPU = 0,
	HT_ACCEL_HPU = 1,
};

/* When the hpu backend submits (the cpu backend always runs at once) */
enum ht_exec_mode {
	HT_EXEC_EAGER = 0, /* one CS per op, waited for */
	HT_EXEC_LAZY = 1,  /* one CS per step (or when the host reads) */
	HT_EXEC_GRAPH = 2, /* step 1 captured, later steps resubmit it */
};

/* Numerics of GEMMs */
enum ht_precision {
	HT_PREC_32 = 0,		/* fp32 everywhere */
	HT_PREC_BF16_MIXED = 1, /* bf16 GEMM inputs, fp32 C and the rest */
};

/**
 * struct ht_backend_opts - ht_backend_create() options
 * @accel: enum ht_accel
 * @mode: enum ht_exec_mode
 * @precision: enum ht_precision
 * @device_index: hpu: N of hpuN to open when @dev is NULL
 * @dev: hpu: an open compute handle to use (not closed by the backend),
 *	or NULL
 * @sob_base: hpu: first of the 3 sync objects the program's cross-queue
 *	dependencies use; 0 selects HT_HPU_SOB_BASE
 * @staging_bytes: hpu: pinned host memory for uploads and fetches; 0
 *	selects 16 MiB
 * @arena_chunk_bytes: granule of the arenas; 0 selects 64 MiB
 * @cs_timeout_ms: hpu: the device timeout of every CS (the daemon aborts
 *	a CS that runs longer); 0 selects HT_CS_TIMEOUT_MS
 */
struct ht_backend_opts {
	int accel;
	int mode;
	int precision;
	int device_index;
	struct hpu_device *dev;
	uint32_t sob_base;
	size_t staging_bytes;
	uint64_t arena_chunk_bytes;
	uint32_t cs_timeout_ms;
};

/** HT_CS_TIMEOUT_MS - default device timeout of the backend's CSs */
#define HT_CS_TIMEOUT_MS 120000u

/* Sync objects 8..10 order the program's queues, 11 counts the prefetch
 * uploads that ended (libhpuccl takes its own from the top of the range) */
#define HT_HPU_SOB_BASE 8

/** HT_MAX_GRAPHS - captured training steps a backend keeps (graph ids) */
#define HT_MAX_GRAPHS 2

/** HT_PREFETCH_DEPTH - prefetch uploads that may be waiting for a step */
#define HT_PREFETCH_DEPTH 2

/**
 * struct ht_xfer - one host -> device copy of a prefetch
 * @dst: backend address
 * @src: host memory (copied at the call: may be reused at once)
 * @n: bytes
 */
struct ht_xfer {
	uint64_t dst;
	const void *src;
	size_t n;
};

/**
 * struct ht_arena - bump allocator over chunks of backend memory
 * @chunk_addr: backend address of each chunk
 * @chunk_size: bytes of each chunk
 * @nchunks: chunks held
 * @cap: room in the arrays
 * @cur: chunk being filled
 * @used: bytes used in chunk @cur
 * @granule: size of a new chunk (larger for a larger request)
 * @bytes: total bytes of the chunks
 */
struct ht_arena {
	uint64_t *chunk_addr;
	uint64_t *chunk_size;
	unsigned int nchunks;
	unsigned int cap;
	unsigned int cur;
	uint64_t used;
	uint64_t granule;
	uint64_t bytes;
};

/**
 * struct ht_backend_ops - a backend's implementation
 * @name: "cpu" or "hpu"
 * @init: set up @be->priv from the options
 * @fini: release everything (after a synchronization)
 * @mem_alloc: backend memory for an arena chunk
 * @mem_free: release a chunk
 * @upload: host -> backend memory (in program order)
 * @fetch: backend memory -> host, done by the next @sync at the latest
 * @copy: backend -> backend memory
 * @gemm: an MME_GEMM descriptor (hdr.flags: HPU_MME_F_TRANS_A/B); the
 *	addresses are backend addresses
 * @kernel: a TPC kernel; @dyn has bit i set for parameters that may
 *	differ between replays of a captured graph (learning rate, step)
 * @sync: run everything issued so far and wait for it
 * @step_begin: a step starts; @graph: the step may be captured/replayed
 *	as graph @gid (< HT_MAX_GRAPHS)
 * @step_end: the step's work is issued (and waited for)
 * @flush: submit what was issued so far without waiting (NULL: the
 *	backend runs ops at once)
 * @set_stream: later submissions are ordered on a libhpudrv stream (NULL:
 *	not supported)
 * @mem_stats: device memory in use and its peak (NULL: the arenas')
 * @device: the device handle (NULL: none)
 * @prefetch: copy host data to the device now, beside the program (NULL
 *	or -EOPNOTSUPP: ht_backend_prefetch() uploads at once)
 * @prefetch_wait: the program's next op runs after the oldest prefetch
 *	not yet waited for
 * @prefetch_cancel: forget the prefetches not waited for (after they
 *	ended)
 * @graph_info: whether a captured graph can be replayed directly, and
 *	its number of dynamic parameters (NULL: no direct replay)
 * @replay: replay a captured graph directly (ht_graph_replay())
 */
struct ht_backend_ops {
	const char *name;
	int (*init)(struct ht_backend *be, const struct ht_backend_opts *o);
	void (*fini)(struct ht_backend *be);
	int (*mem_alloc)(struct ht_backend *be, uint64_t size, uint64_t *addr);
	void (*mem_free)(struct ht_backend *be, uint64_t addr);
	int (*upload)(struct ht_backend *be, uint64_t dst, const void *src,
		      size_t n);
	int (*fetch)(struct ht_backend *be, void *dst, uint64_t src, size_t n);
	int (*copy)(struct ht_backend *be, uint64_t dst, uint64_t src,
		    size_t n);
	int (*gemm)(struct ht_backend *be, const struct hpu_pkt_mme_gemm *g);
	int (*kernel)(struct ht_backend *be, uint32_t id,
		      const struct hpu_tpc_tensor *t, unsigned int nt,
		      const uint32_t *params, unsigned int np, uint32_t dyn);
	int (*sync)(struct ht_backend *be);
	int (*step_begin)(struct ht_backend *be, bool graph, unsigned int gid);
	int (*step_end)(struct ht_backend *be);
	int (*flush)(struct ht_backend *be);
	int (*set_stream)(struct ht_backend *be, struct hpu_stream *s);
	int (*mem_stats)(struct ht_backend *be, uint64_t *in_use,
			 uint64_t *peak);
	struct hpu_device *(*device)(struct ht_backend *be);
	int (*prefetch)(struct ht_backend *be, const struct ht_xfer *x,
			unsigned int n);
	int (*prefetch_wait)(struct ht_backend *be);
	int (*prefetch_cancel)(struct ht_backend *be);
	int (*graph_info)(struct ht_backend *be, unsigned int gid,
			  unsigned int *ndyn);
	int (*replay)(struct ht_backend *be, unsigned int gid,
		      const uint32_t *dyn, unsigned int ndyn);
};

extern const struct ht_backend_ops ht_backend_cpu_ops;
extern const struct ht_backend_ops ht_backend_hpu_ops;

/**
 * struct ht_backend_stats - what a backend did
 * @ops: GEMMs and kernels issued
 * @submissions: CSs submitted (hpu)
 * @waits: CS waits (hpu)
 * @replays: steps run from a captured graph (hpu)
 * @prefetches: prefetch uploads submitted beside the program (hpu)
 * @prefetch_in_step: of those, uploads submitted inside an open step,
 *	before its program was submitted and waited for (hpu)
 * @prefetch_overlapped: of those, uploads still running when the next
 *	program submission began (device completion time after it)
 * @prefetch_overlap_ns: sum over those of the time they ran beside it
 * @persistent_bytes: persistent arena size
 * @step_bytes: step arena size
 */
struct ht_backend_stats {
	uint64_t ops;
	uint64_t submissions;
	uint64_t waits;
	uint64_t replays;
	uint64_t prefetches;
	uint64_t prefetch_in_step;
	uint64_t prefetch_overlapped;
	uint64_t prefetch_overlap_ns;
	uint64_t persistent_bytes;
	uint64_t step_bytes;
};

/**
 * struct ht_backend - a backend instance
 * @ops: its table
 * @priv: the table's state
 * @accel: enum ht_accel
 * @mode: enum ht_exec_mode
 * @precision: enum ht_precision
 * @persist: persistent arena
 * @step: step arena
 * @step_tensors: tensor structs to free at the step boundary
 * @tape: autograd tape of the current step
 * @grad_enabled: ops record themselves (ht_no_grad() clears it)
 * @in_step: between ht_step_begin() and ht_step_end()
 * @stats: counters
 * @err: message of the last failure
 */
struct ht_backend {
	const struct ht_backend_ops *ops;
	void *priv;
	int accel;
	int mode;
	int precision;
	struct ht_arena persist;
	struct ht_arena step;
	struct ht_tensor *step_tensors;
	struct ht_tape *tape;
	bool grad_enabled;
	bool in_step;
	struct ht_backend_stats stats;
	char err[256];
};

/**
 * ht_backend_create() - open a backend
 * @o: options
 * @bep: receives it
 * @err: receives a message on failure (may be NULL)
 * @errlen: bytes at @err
 *
 * Return: 0; -EINVAL; -ENODEV (no such device); -ENOMEM; -errno.
 */
int ht_backend_create(const struct ht_backend_opts *o, struct ht_backend **bep,
		      char *err, size_t errlen);

/**
 * ht_backend_destroy() - synchronize and release a backend (the tensors
 * it gave out must not be used afterwards)
 * @be: backend or NULL
 */
void ht_backend_destroy(struct ht_backend *be);

/**
 * ht_step_begin() - start a step: a fresh tape; in graph mode a step
 * with @graph set is captured (the first) or replayed (the later ones)
 * @be: backend
 * @graph: a training step (captured in graph mode); false for steps
 *	that run lazily whatever the mode (validation)
 *
 * Return: 0 or -errno.
 */
int ht_step_begin(struct ht_backend *be, bool graph);

/**
 * ht_step_begin_graph() - ht_step_begin() of a training step captured
 * and replayed as graph @gid: steps of different ids may differ (e.g. in
 * the device buffer their input was prefetched to), steps of one id must
 * issue the same ops
 * @be: backend
 * @graph: as ht_step_begin()
 * @gid: 0..HT_MAX_GRAPHS-1
 *
 * Return: 0, -EINVAL (@gid out of range) or -errno.
 */
int ht_step_begin_graph(struct ht_backend *be, bool graph, unsigned int gid);

/**
 * ht_step_end() - end a step: its program is submitted and waited for,
 * its fetches are done, the step arena and the step's tensors are
 * released
 * @be: backend
 *
 * Return: 0, -EINVAL (graph replay: the step differed from the captured
 * one; be->err says where) or -errno.
 */
int ht_step_end(struct ht_backend *be);

/**
 * ht_graph_replayable() - whether graph @gid can be replayed with
 * ht_graph_replay(), and how many dynamic parameters it takes
 * @be: backend
 * @gid: graph id, 0..HT_MAX_GRAPHS-1
 * @ndyn: receives the dynamic parameters of its ops (capture order)
 *
 * Return: 0; -EOPNOTSUPP (not an hpu backend in graph mode, or the
 * captured step waits for a prefetch); -ENOENT (@gid not captured);
 * -EINVAL (@gid out of range). be->err says why.
 */
int ht_graph_replayable(struct ht_backend *be, unsigned int gid,
			unsigned int *ndyn);

/**
 * ht_graph_replay() - run a captured graph again without issuing its ops
 * (the HPU-graphs recipe: static inputs, one submission per segment)
 * @be: backend, outside a step
 * @gid: a graph captured by an ht_step_begin_graph() .. ht_step_end() step
 * @dyn: the values of its dynamic parameters, in the order its ops
 *	declared them (ht_backend_kernel_dyn(), bit 0 first)
 * @ndyn: entries of @dyn: ht_graph_replayable()'s count
 *
 * The captured command buffers are submitted as they are, with @dyn
 * patched in. The captured step's uploads and fetches are its static
 * inputs and outputs: each upload's bytes are read again from the host
 * memory the capture read them from, each fetch writes the host memory
 * the capture wrote, so those buffers must stay allocated and hold the
 * new inputs. Returns after the step's last wait, its fetches done.
 *
 * Return: 0; -EBUSY (a step is open); -EINVAL (@ndyn is not the
 * graph's count, @gid out of range); ht_graph_replayable()'s refusals
 * (nothing ran); -errno of a submission or a wait.
 */
int ht_graph_replay(struct ht_backend *be, unsigned int gid,
		    const uint32_t *dyn, unsigned int ndyn);

/**
 * ht_backend_sync() - submit what is pending and wait for it
 * @be: backend
 *
 * Return: 0 or -errno.
 */
int ht_backend_sync(struct ht_backend *be);

/**
 * ht_backend_flush() - submit what was issued so far without waiting for
 * it (hpu; a no-op on cpu, which ran it already)
 * @be: backend
 *
 * Lets other work (a collective on another stream) start after the
 * program so far while the host goes on issuing ops. With a stream set
 * (ht_backend_set_stream()), an event recorded on that stream afterwards
 * completes when the submitted work did. In graph mode a flush is part
 * of the captured step: the replay submits the captured segment that
 * ends there.
 *
 * Return: 0 or -errno.
 */
int ht_backend_flush(struct ht_backend *be);

/**
 * ht_backend_set_stream() - submit the program through a libhpudrv
 * stream: each submission starts after the stream's earlier work
 * (e.g. hpu_stream_wait_event() on it) and the stream's later work
 * (hpu_event_record()) after it
 * @be: backend (hpu)
 * @s: a stream of the backend's device, or NULL to stop
 *
 * Return: 0, -EOPNOTSUPP (cpu) or -EINVAL.
 */
int ht_backend_set_stream(struct ht_backend *be, struct hpu_stream *s);

/**
 * ht_backend_mem_stats() - device memory the backend holds
 * @be: backend
 * @in_use: receives the bytes in use (hpu: the allocator's; cpu: the
 *	arenas')
 * @peak: receives the largest @in_use seen
 *
 * Return: 0 or -errno.
 */
int ht_backend_mem_stats(struct ht_backend *be, uint64_t *in_use,
			 uint64_t *peak);

/**
 * ht_backend_device() - the hpu device handle of @be
 * @be: backend
 *
 * Return: the handle, or NULL on cpu.
 */
struct hpu_device *ht_backend_device(struct ht_backend *be);

/**
 * ht_backend_prefetch() - copy host data to device memory ahead of the
 * step that uses it, overlapped with the program running now
 * @be: backend
 * @x: the copies of one batch
 * @n: their count, >= 1
 *
 * hpu: the data is copied into pinned memory of the prefetch and one CS
 * on a DMA queue of its own moves it, then increments a sync object; the
 * step that uses the data calls ht_backend_prefetch_wait() before its
 * first use. At most HT_PREFETCH_DEPTH prefetches wait for a step; the
 * destinations must not be in use by a program still running (the
 * caller alternates buffers). cpu: the data is copied at once.
 *
 * Return: 0, -EBUSY (HT_PREFETCH_DEPTH prefetches not waited for) or
 * -errno.
 */
int ht_backend_prefetch(struct ht_backend *be, const struct ht_xfer *x,
			unsigned int n);

/**
 * ht_backend_prefetch_wait() - the next ops of the program run after the
 * oldest prefetch not yet waited for ended (an op of the program: part of
 * a captured graph)
 * @be: backend (in a step)
 *
 * Return: 0, -EINVAL (no prefetch to wait for) or -errno.
 */
int ht_backend_prefetch_wait(struct ht_backend *be);

/**
 * ht_backend_prefetch_cancel() - wait for the prefetches no step waited
 * for and forget them (their data may be prefetched again)
 * @be: backend (no step open)
 *
 * Return: 0 or -errno.
 */
int ht_backend_prefetch_cancel(struct ht_backend *be);

/**
 * ht_backend_kernel() - issue a TPC kernel
 * @be: backend
 * @id: HPU_TPC_KERNEL_*
 * @t: operands
 * @nt: their count
 * @params: parameters (may be NULL when @np is 0)
 * @np: their count
 *
 * Return: 0 or -errno (be->err names the kernel).
 */
int ht_backend_kernel(struct ht_backend *be, uint32_t id,
		      const struct hpu_tpc_tensor *t, unsigned int nt,
		      const uint32_t *params, unsigned int np);

/**
 * ht_backend_kernel_dyn() - ht_backend_kernel() with parameters that may
 * change between replays of a captured graph
 * @be: backend
 * @id: HPU_TPC_KERNEL_*
 * @t: operands
 * @nt: their count
 * @params: parameters
 * @np: their count
 * @dyn: bit i: parameter i may change
 *
 * Return: 0 or -errno.
 */
int ht_backend_kernel_dyn(struct ht_backend *be, uint32_t id,
			  const struct hpu_tpc_tensor *t, unsigned int nt,
			  const uint32_t *params, unsigned int np,
			  uint32_t dyn);

/**
 * ht_backend_gemm() - issue an MME_GEMM
 * @be: backend
 * @g: the descriptor (backend addresses; hdr.flags as the MME's)
 *
 * Return: 0 or -errno.
 */
int ht_backend_gemm(struct ht_backend *be, const struct hpu_pkt_mme_gemm *g);

/**
 * ht_arena_alloc() - take @size bytes of an arena
 * @be: backend
 * @a: &be->persist or &be->step
 * @size: bytes, > 0
 * @addr: receives the backend address (256-byte aligned)
 *
 * Return: 0 or -ENOMEM.
 */
int ht_arena_alloc(struct ht_backend *be, struct ht_arena *a, uint64_t size,
		   uint64_t *addr);

/** ht_f2u() - binary32 bits of @f (a kernel parameter) */
static inline uint32_t ht_f2u(float f)
{
	union {
		float f;
		uint32_t u;
	} x = { .f = f };

	return x.u;
}

#endif /* HT_BACKEND_H */
