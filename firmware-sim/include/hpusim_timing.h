/* SPDX-License-Identifier: MIT */
/*
 * hpusim_timing.h - the timing model: how long a job would take on a real
 * Gaudi, Gaudi2 or Gaudi3, from published figures (docs/timing-model.md).
 *
 * The simulator runs at host speed; this model answers "how long on the
 * chip" for one job at a time (a GEMM, a TPC kernel, a DMA, a NIC write)
 * and for whole collectives. It is pure: no state, no clock, no
 * allocation, no locks; the same arguments always give the same
 * nanoseconds, so callers may use it from any thread.
 *
 * Times are computed in double precision in nanoseconds (1 GB/s is one
 * byte per ns, 1 TFLOP/s is 1000 FLOPs per ns) and rounded up to the next
 * whole nanosecond: a job that moves or computes anything takes at least
 * 1 ns. No transcendental function is used, so the result is the same on
 * every IEEE 754 machine.
 *
 * This header is self-contained (libc only): tools outside firmware-sim/
 * include it through firmware-sim/include/ without seeing the simulator's
 * private headers.
 */
#ifndef HPUSIM_TIMING_H
#define HPUSIM_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * enum hpusim_tm_dtype - element types the model knows
 * @HPUSIM_TM_FP32: IEEE binary32
 * @HPUSIM_TM_TF32: binary32 storage, MME products at TensorFloat-32
 *	precision (a matrix mode only; a TPC kernel cannot use it)
 * @HPUSIM_TM_BF16: bfloat16
 * @HPUSIM_TM_FP8: 8-bit floating point (E4M3/E5M2)
 * @HPUSIM_TM_DTYPE_NR: number of types
 */
enum hpusim_tm_dtype {
	HPUSIM_TM_FP32,
	HPUSIM_TM_TF32,
	HPUSIM_TM_BF16,
	HPUSIM_TM_FP8,
	HPUSIM_TM_DTYPE_NR,
};

/**
 * struct hpusim_tm_profile - published figures of one chip
 *
 * Each member's value and source is in firmware-sim/timing_model.c and
 * docs/timing-model.md. Rates use decimal units (GB = 1e9 bytes).
 *
 * @name: profile name, the same as the device model's ("gaudi2")
 * @card: card the figures are for ("HL-225")
 * @mme_count: matrix engines
 * @mme_tflops: peak dense matrix TFLOP/s of the whole chip per
 *	&enum hpusim_tm_dtype; 0 where the chip has no such mode
 * @mme_tile: edge of the output tile one MME computes at a time
 * @mme_eff: sustained fraction of the peak for a large aligned GEMM
 * @mme_fill_k: pipeline fill and drain of one tile, in k steps
 * @tpc_count: TPC cores
 * @tpc_vector_bits: width of a TPC's SIMD vector unit
 * @tpc_eff: sustained fraction of the TPC issue rate
 * @clock_mhz: TPC (and MME) clock
 * @launch_ns: fixed cost of starting an MME or TPC job
 * @hbm_gib: HBM capacity
 * @hbm_gbps: peak HBM bandwidth
 * @hbm_eff: sustained fraction of @hbm_gbps for streaming access
 * @dma_count: DMA engines
 * @dma_engine_gbps: what one DMA engine moves per second
 * @dma_dev_latency_ns: fixed cost of a DMA job within the device
 * @dma_host_latency_ns: fixed cost of a DMA job that crosses PCIe
 * @pcie_gbps: PCIe bandwidth per direction
 * @pcie_eff: payload fraction of @pcie_gbps a DMA reaches
 * @nic_ports: NIC ports
 * @nic_scaleup_ports: ports wired to the other cards of the server
 *	(all-to-all); the others (@nic_ports - @nic_scaleup_ports) are the
 *	scale-out ports to the switch
 * @nic_gbit: line rate of one port, Gbit/s
 * @nic_mtu: RDMA payload bytes per packet
 * @nic_overhead_bytes: bytes on the wire per packet beside the payload
 * @nic_latency_ns: one message, NIC engine to peer memory, direct link
 * @nic_switch_ns: added by the switch of a scale-out path
 * @server_cards: cards linked all-to-all in one server
 */
struct hpusim_tm_profile {
	const char *name;
	const char *card;
	uint32_t mme_count;
	double mme_tflops[HPUSIM_TM_DTYPE_NR];
	uint32_t mme_tile;
	double mme_eff;
	uint32_t mme_fill_k;
	uint32_t tpc_count;
	uint32_t tpc_vector_bits;
	double tpc_eff;
	uint32_t clock_mhz;
	uint32_t launch_ns;
	uint32_t hbm_gib;
	double hbm_gbps;
	double hbm_eff;
	uint32_t dma_count;
	double dma_engine_gbps;
	uint32_t dma_dev_latency_ns;
	uint32_t dma_host_latency_ns;
	double pcie_gbps;
	double pcie_eff;
	uint32_t nic_ports;
	uint32_t nic_scaleup_ports;
	uint32_t nic_gbit;
	uint32_t nic_mtu;
	uint32_t nic_overhead_bytes;
	uint32_t nic_latency_ns;
	uint32_t nic_switch_ns;
	uint32_t server_cards;
};

/**
 * struct hpusim_tm_gemm - one (batched) matrix product, as an MME_GEMM
 * packet describes it: C[i] = A[i] (m x k) * B[i] (k x n), i < batch
 * @m: rows of A and C, >= 1
 * @n: columns of B and C, >= 1
 * @k: columns of A, rows of B, >= 1
 * @batch: products, >= 1
 * @dtype: type of A and B (and the MME mode)
 * @dtype_c: type of C: HPUSIM_TM_FP32 or HPUSIM_TM_BF16
 * @read_c: C is read too (beta != 0)
 * @engines: MMEs the job runs on, 1..mme_count; 0 means all of them
 */
struct hpusim_tm_gemm {
	uint32_t m;
	uint32_t n;
	uint32_t k;
	uint32_t batch;
	enum hpusim_tm_dtype dtype;
	enum hpusim_tm_dtype dtype_c;
	bool read_c;
	uint32_t engines;
};

/**
 * struct hpusim_tm_tpc - one TPC kernel, as a roofline
 * @elements: elements the kernel computes (0: it only starts and ends)
 * @ops_per_element: vector instructions per element (a fused
 *	multiply-add is one); 0 for a kernel bound by memory alone
 * @bytes: bytes it reads and writes in HBM
 * @dtype: HPUSIM_TM_FP32, HPUSIM_TM_BF16 or HPUSIM_TM_FP8: the lane width
 * @engines: TPCs the job runs on, 1..tpc_count; 0 means all of them
 */
struct hpusim_tm_tpc {
	uint64_t elements;
	uint32_t ops_per_element;
	uint64_t bytes;
	enum hpusim_tm_dtype dtype;
	uint32_t engines;
};

/**
 * enum hpusim_tm_dir - where a DMA job reads and writes
 * @HPUSIM_TM_H2D: host memory to HBM (PCIe)
 * @HPUSIM_TM_D2H: HBM to host memory (PCIe)
 * @HPUSIM_TM_D2D: HBM to HBM (read and write in HBM)
 * @HPUSIM_TM_H2H: host to host (PCIe both ways at once)
 * @HPUSIM_TM_FILL_D: MEMSET of HBM (write only)
 * @HPUSIM_TM_FILL_H: MEMSET of host memory (PCIe, write only)
 * @HPUSIM_TM_DIR_NR: number of directions
 */
enum hpusim_tm_dir {
	HPUSIM_TM_H2D,
	HPUSIM_TM_D2H,
	HPUSIM_TM_D2D,
	HPUSIM_TM_H2H,
	HPUSIM_TM_FILL_D,
	HPUSIM_TM_FILL_H,
	HPUSIM_TM_DIR_NR,
};

/**
 * struct hpusim_tm_dma - one LIN_DMA or MEMSET job
 * @bytes: bytes written (0: only the fixed latency)
 * @dir: &enum hpusim_tm_dir
 * @engines: DMA engines the job is spread on, 1..dma_count; 0 means all
 */
struct hpusim_tm_dma {
	uint64_t bytes;
	enum hpusim_tm_dir dir;
	uint32_t engines;
};

/**
 * struct hpusim_tm_nic - one NIC write to a peer
 * @bytes: payload bytes (0: only the latency, e.g. a signal)
 * @ports: ports the write is striped over; 0 means every port of its
 *	kind (scale-up or scale-out)
 * @scale_out: through the scale-out ports and a switch (another server)
 *	rather than a direct scale-up link
 */
struct hpusim_tm_nic {
	uint64_t bytes;
	uint32_t ports;
	bool scale_out;
};

/**
 * enum hpusim_tm_coll_op - collectives the model estimates
 * @HPUSIM_TM_ALLREDUCE: reduce-scatter then all-gather
 * @HPUSIM_TM_REDUCE_SCATTER: each rank ends with 1/ranks of the sum
 * @HPUSIM_TM_ALLGATHER: each rank ends with every rank's part
 * @HPUSIM_TM_COLL_NR: number of collectives
 */
enum hpusim_tm_coll_op {
	HPUSIM_TM_ALLREDUCE,
	HPUSIM_TM_REDUCE_SCATTER,
	HPUSIM_TM_ALLGATHER,
	HPUSIM_TM_COLL_NR,
};

/**
 * struct hpusim_tm_coll - one collective over whole cards
 * @op: &enum hpusim_tm_coll_op
 * @bytes: the buffer of one rank (nccl-tests' "size": the whole tensor of
 *	an all-reduce, the output of an all-gather, the input of a
 *	reduce-scatter)
 * @ranks: cards, one rank each: 1..server_cards in one server, or a
 *	multiple of server_cards (whole servers)
 */
struct hpusim_tm_coll {
	enum hpusim_tm_coll_op op;
	uint64_t bytes;
	uint32_t ranks;
};

/**
 * enum hpusim_tm_kind - the engine class of a &struct hpusim_tm_job
 * @HPUSIM_TM_JOB_GEMM: MME
 * @HPUSIM_TM_JOB_TPC: TPC
 * @HPUSIM_TM_JOB_DMA: DMA
 * @HPUSIM_TM_JOB_NIC: NIC port
 * @HPUSIM_TM_JOB_NR: number of kinds
 */
enum hpusim_tm_kind {
	HPUSIM_TM_JOB_GEMM,
	HPUSIM_TM_JOB_TPC,
	HPUSIM_TM_JOB_DMA,
	HPUSIM_TM_JOB_NIC,
	HPUSIM_TM_JOB_NR,
};

/**
 * struct hpusim_tm_job - any engine job, as a trace event records it
 * @kind: which member of the union is valid
 * @gemm: with HPUSIM_TM_JOB_GEMM
 * @tpc: with HPUSIM_TM_JOB_TPC
 * @dma: with HPUSIM_TM_JOB_DMA
 * @nic: with HPUSIM_TM_JOB_NIC
 */
struct hpusim_tm_job {
	enum hpusim_tm_kind kind;
	union {
		struct hpusim_tm_gemm gemm;
		struct hpusim_tm_tpc tpc;
		struct hpusim_tm_dma dma;
		struct hpusim_tm_nic nic;
	};
};

unsigned int hpusim_tm_profile_count(void);
const struct hpusim_tm_profile *hpusim_tm_profile_at(unsigned int idx);
const struct hpusim_tm_profile *hpusim_tm_profile_find(const char *name);
const char *hpusim_tm_dtype_name(enum hpusim_tm_dtype dtype);

int hpusim_tm_gemm_ns(const struct hpusim_tm_profile *p,
		      const struct hpusim_tm_gemm *g, uint64_t *ns);
int hpusim_tm_tpc_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_tpc *t, uint64_t *ns);
int hpusim_tm_dma_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_dma *d, uint64_t *ns);
int hpusim_tm_nic_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_nic *n, uint64_t *ns);
int hpusim_tm_job_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_job *job, uint64_t *ns);
int hpusim_tm_coll_ns(const struct hpusim_tm_profile *p,
		      const struct hpusim_tm_coll *c, uint64_t *ns);
double hpusim_tm_busbw_gbps(const struct hpusim_tm_coll *c, uint64_t ns);
double hpusim_tm_nic_link_gbps(const struct hpusim_tm_profile *p);

/**
 * enum hpusim_tm_check_kind - what a published figure measures
 * @HPUSIM_TM_CHECK_GEMM_TFLOPS: achieved TFLOP/s of one GEMM on the whole
 *	chip (2*m*n*k*batch / time)
 * @HPUSIM_TM_CHECK_TPC_TFLOPS: TFLOP/s of a compute-bound TPC kernel of
 *	one fused multiply-add per element on every TPC
 * @HPUSIM_TM_CHECK_HBM_GBPS: HBM traffic (read + write) of a device to
 *	device copy on every DMA engine, GB/s
 * @HPUSIM_TM_CHECK_BUSBW: bus bandwidth of a collective (hccl_demo's "NW
 *	Bandwidth", nccl-tests' busbw), GB/s
 */
enum hpusim_tm_check_kind {
	HPUSIM_TM_CHECK_GEMM_TFLOPS,
	HPUSIM_TM_CHECK_TPC_TFLOPS,
	HPUSIM_TM_CHECK_HBM_GBPS,
	HPUSIM_TM_CHECK_BUSBW,
};

/**
 * struct hpusim_tm_check - one published figure the model must reproduce
 * @figure: what was measured, in words
 * @profile: profile name
 * @kind: &enum hpusim_tm_check_kind
 * @gemm: the product (HPUSIM_TM_CHECK_GEMM_TFLOPS)
 * @bytes: bytes of the copy (HPUSIM_TM_CHECK_HBM_GBPS), elements of the
 *	TPC kernel (HPUSIM_TM_CHECK_TPC_TFLOPS), size of the collective
 *	(HPUSIM_TM_CHECK_BUSBW)
 * @ranks: cards of a collective
 * @published: the published value, in @unit
 * @unit: "TFLOP/s" or "GB/s"
 * @tolerance: largest accepted |model - published| / published
 * @enforced: false for a figure shown for information only (the reason
 *	is in @note); hpu-model-check and the tests ignore its tolerance
 * @source: where the figure is published
 * @note: why the figure is what it is, or why it is not enforced
 */
struct hpusim_tm_check {
	const char *figure;
	const char *profile;
	enum hpusim_tm_check_kind kind;
	struct hpusim_tm_gemm gemm;
	uint64_t bytes;
	uint32_t ranks;
	double published;
	const char *unit;
	double tolerance;
	bool enforced;
	const char *source;
	const char *note;
};

unsigned int hpusim_tm_check_count(void);
const struct hpusim_tm_check *hpusim_tm_check_at(unsigned int idx);
int hpusim_tm_check_eval(const struct hpusim_tm_check *c, double *model);
bool hpusim_tm_check_within(const struct hpusim_tm_check *c, double model);

#endif /* HPUSIM_TIMING_H */
