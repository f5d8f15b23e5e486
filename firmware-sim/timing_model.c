// SPDX-License-Identifier: MIT
/*
 * timing_model.c - the published figures of Gaudi, Gaudi2 and Gaudi3 and
 * the cost of one job on each (docs/timing-model.md).
 *
 * Every constant below names its source, or says ASSUMPTION where no
 * usable figure is published; docs/timing-model.md lists the same table
 * with the full references:
 *
 *   [HC24]   R. Kaplan (Intel), "Intel Gaudi 3 AI Accelerator: Architected
 *            for Gen AI Training and Inference", Hot Chips 2024: the
 *            "Gaudi product generations" and "Gaudi 3 spec" tables
 *   [G3WP]   Intel Gaudi 3 AI Accelerator White Paper (2024), per-dtype
 *            MME TFLOPs as tabulated in stas00/ml-engineering,
 *            compute/accelerator/README.md ("TFLOPS comparison table")
 *   [MLENG]  stas00/ml-engineering, compute/accelerator/README.md: MME
 *            geometry 256x256 MACs, "How To Calculate Theoretical TFLOPS"
 *   [TPCUG]  Habana docs, TPC User Guide: 2048-bit SIMD vector unit
 *   [HDTF]   Habana docs, TensorFlow scaling guide, "Distributed Training
 *            Overview": Gaudi 10 x 100 GbE, 7 scale-up + 3 scale-out
 *   [HDNET]  Habana docs, Network Configuration: Gaudi2 24 x 100 GbE,
 *            21 scale-up (3 per peer) + 3 scale-out
 *   [FWSIM]  docs/firmware-sim.md, "Profiles" (white papers, driver)
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hpusim_timing.h"

/*
 * RoCE v2 packet overhead on Ethernet, bytes beside the RDMA payload:
 * preamble+SFD 8, inter-frame gap 12, MAC header 14, FCS 4, IPv4 20,
 * UDP 8, InfiniBand BTH 12, ICRC 4 (IEEE 802.3, RFC 791/768, IBTA
 * RoCEv2 annex). With the 4096-byte RDMA MTU (ASSUMPTION: the largest
 * RoCE MTU, what bulk transfers use) the payload is 98.0% of the line.
 */
#define ROCE_OVERHEAD 82
#define ROCE_MTU      4096

static const struct hpusim_tm_profile tm_gaudi = {
	.name = "gaudi",
	.card = "HL-205",			/* [FWSIM] */
	.mme_count = 1,				/* [FWSIM] one GEMM engine */
	.mme_tflops = {
		[HPUSIM_TM_BF16] = 60.0,	/* [HC24] peak BF16 */
		[HPUSIM_TM_FP32] = 7.5,		/* ASSUMPTION: 1/8 of BF16,
						 * Gaudi3's published ratio */
		/* no TF32 or FP8 on Gaudi ([HC24]: Gaudi2 added them) */
	},
	.mme_tile = 128,			/* ASSUMPTION (not published) */
	.mme_eff = 0.97,			/* ASSUMPTION, as Gaudi2 */
	.mme_fill_k = 64,			/* ASSUMPTION */
	.tpc_count = 8,				/* [FWSIM] */
	.tpc_vector_bits = 2048,		/* [TPCUG] */
	.tpc_eff = 0.9,				/* ASSUMPTION */
	.clock_mhz = 1500,			/* ASSUMPTION ([FWSIM] clock) */
	.launch_ns = 500,			/* ASSUMPTION */
	.hbm_gib = 32,				/* [HC24] */
	.hbm_gbps = 900.0,			/* [HC24] peak HBM BW */
	.hbm_eff = 0.9,				/* ASSUMPTION */
	.dma_count = 8,				/* [FWSIM] */
	.dma_engine_gbps = 50.0,		/* ASSUMPTION */
	.dma_dev_latency_ns = 1000,		/* ASSUMPTION */
	.dma_host_latency_ns = 2000,		/* ASSUMPTION */
	.pcie_gbps = 32.0,			/* [HC24] 64 GB/s bidir */
	.pcie_eff = 0.8,			/* ASSUMPTION */
	.nic_ports = 10,			/* [HDTF] 10 x 100 GbE */
	.nic_scaleup_ports = 7,			/* [HDTF] 7 scale-up */
	.nic_gbit = 100,			/* [HDTF] */
	.nic_mtu = ROCE_MTU,
	.nic_overhead_bytes = ROCE_OVERHEAD,
	.nic_latency_ns = 2000,			/* ASSUMPTION */
	.nic_switch_ns = 1000,			/* ASSUMPTION */
	.server_cards = 8,			/* [HDTF] HLS-1 */
};

static const struct hpusim_tm_profile tm_gaudi2 = {
	.name = "gaudi2",
	.card = "HL-225",			/* [FWSIM] */
	.mme_count = 2,				/* [FWSIM] */
	.mme_tflops = {
		[HPUSIM_TM_BF16] = 432.0,	/* [HC24] peak BF16 */
		[HPUSIM_TM_FP8] = 865.0,	/* [G3WP] Gaudi2 FP8 */
		[HPUSIM_TM_TF32] = 108.0,	/* ASSUMPTION: 1/4 of BF16 */
		[HPUSIM_TM_FP32] = 54.0,	/* ASSUMPTION: 1/8 of BF16 */
	},
	.mme_tile = 256,			/* [MLENG] 256x256 MACs */
	.mme_eff = 0.97,			/* ASSUMPTION */
	.mme_fill_k = 64,			/* ASSUMPTION */
	.tpc_count = 24,			/* [FWSIM] */
	.tpc_vector_bits = 2048,		/* [TPCUG] */
	.tpc_eff = 0.9,				/* ASSUMPTION */
	.clock_mhz = 1650,			/* [MLENG] 432 TFLOPs =
						 * 2 MME x 256^2 x 2 x f */
	.launch_ns = 500,			/* ASSUMPTION */
	.hbm_gib = 96,				/* [HC24] */
	.hbm_gbps = 2460.0,			/* [HC24] peak HBM BW */
	.hbm_eff = 0.9,				/* ASSUMPTION */
	.dma_count = 10,			/* [FWSIM] 2 PDMA + 8 EDMA */
	.dma_engine_gbps = 125.0,		/* ASSUMPTION */
	.dma_dev_latency_ns = 1000,		/* ASSUMPTION */
	.dma_host_latency_ns = 2000,		/* ASSUMPTION */
	.pcie_gbps = 32.0,			/* [HC24] 64 GB/s bidir */
	.pcie_eff = 0.8,			/* ASSUMPTION */
	.nic_ports = 24,			/* [HDNET] 24 x 100 GbE */
	.nic_scaleup_ports = 21,		/* [HDNET] 21 scale-up */
	.nic_gbit = 100,			/* [HDNET] */
	.nic_mtu = ROCE_MTU,
	.nic_overhead_bytes = ROCE_OVERHEAD,
	.nic_latency_ns = 2000,			/* ASSUMPTION */
	.nic_switch_ns = 1000,			/* ASSUMPTION */
	.server_cards = 8,			/* [HDNET] HLS-Gaudi2 */
};

static const struct hpusim_tm_profile tm_gaudi3 = {
	.name = "gaudi3",
	.card = "HL-325L",			/* [FWSIM] */
	.mme_count = 8,				/* [HC24] */
	.mme_tflops = {
		[HPUSIM_TM_BF16] = 1835.0,	/* [HC24] BF16 matrix */
		[HPUSIM_TM_FP8] = 1835.0,	/* [HC24] FP8 matrix */
		[HPUSIM_TM_TF32] = 459.0,	/* [G3WP] */
		[HPUSIM_TM_FP32] = 229.0,	/* [G3WP] */
	},
	.mme_tile = 256,			/* [MLENG] 256x256 MACs */
	.mme_eff = 0.97,			/* ASSUMPTION, as Gaudi2 */
	.mme_fill_k = 64,			/* ASSUMPTION */
	.tpc_count = 64,			/* [HC24] */
	.tpc_vector_bits = 2048,		/* [TPCUG] */
	.tpc_eff = 0.9,				/* ASSUMPTION */
	.clock_mhz = 1750,			/* [MLENG] 1835 TFLOPs =
						 * 8 MME x 256^2 x 2 x f */
	.launch_ns = 500,			/* ASSUMPTION */
	.hbm_gib = 128,				/* [HC24] */
	.hbm_gbps = 3670.0,			/* [HC24] peak HBM BW */
	.hbm_eff = 0.9,				/* ASSUMPTION */
	.dma_count = 18,			/* [FWSIM] (assumed there) */
	.dma_engine_gbps = 100.0,		/* ASSUMPTION */
	.dma_dev_latency_ns = 1000,		/* ASSUMPTION */
	.dma_host_latency_ns = 2000,		/* ASSUMPTION */
	.pcie_gbps = 64.0,			/* [HC24] 128 GB/s bidir */
	.pcie_eff = 0.8,			/* ASSUMPTION */
	.nic_ports = 24,			/* [HC24] 24 x 200 GbE */
	.nic_scaleup_ports = 21,		/* ASSUMPTION: as Gaudi2's
						 * HLS (3 per peer) */
	.nic_gbit = 200,			/* [HC24] */
	.nic_mtu = ROCE_MTU,
	.nic_overhead_bytes = ROCE_OVERHEAD,
	.nic_latency_ns = 2000,			/* ASSUMPTION */
	.nic_switch_ns = 1000,			/* ASSUMPTION */
	.server_cards = 8,			/* [HC24] 8-card server */
};

static const struct hpusim_tm_profile *const tm_profiles[] = {
	&tm_gaudi,
	&tm_gaudi2,
	&tm_gaudi3,
};

#define TM_NPROFILES (sizeof(tm_profiles) / sizeof(tm_profiles[0]))

/* Largest time returned: 2^63 ns (292 years); beyond it, -ERANGE */
#define TM_NS_MAX 9223372036854775808.0

static const char *const tm_dtype_names[HPUSIM_TM_DTYPE_NR] = {
	[HPUSIM_TM_FP32] = "fp32",
	[HPUSIM_TM_TF32] = "tf32",
	[HPUSIM_TM_BF16] = "bf16",
	[HPUSIM_TM_FP8] = "fp8",
};

/* Bytes of one element in memory (TF32 is stored as binary32) */
static const unsigned int tm_dtype_size[HPUSIM_TM_DTYPE_NR] = {
	[HPUSIM_TM_FP32] = 4,
	[HPUSIM_TM_TF32] = 4,
	[HPUSIM_TM_BF16] = 2,
	[HPUSIM_TM_FP8] = 1,
};

/**
 * hpusim_tm_profile_count() - number of profiles of the timing model
 *
 * Return: 3 (gaudi, gaudi2, gaudi3).
 */
unsigned int hpusim_tm_profile_count(void)
{
	return TM_NPROFILES;
}

/**
 * hpusim_tm_profile_at() - a profile by index
 * @idx: 0..hpusim_tm_profile_count() - 1
 *
 * Return: the profile, or NULL when @idx is out of range.
 */
const struct hpusim_tm_profile *hpusim_tm_profile_at(unsigned int idx)
{
	return idx < TM_NPROFILES ? tm_profiles[idx] : NULL;
}

/**
 * hpusim_tm_profile_find() - a profile by name
 * @name: "gaudi", "gaudi2" or "gaudi3" (the device model's profile names)
 *
 * Return: the profile, or NULL when @name is NULL or unknown.
 */
const struct hpusim_tm_profile *hpusim_tm_profile_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < TM_NPROFILES; i++)
		if (!strcmp(tm_profiles[i]->name, name))
			return tm_profiles[i];
	return NULL;
}

/**
 * hpusim_tm_dtype_name() - printable name of an element type
 * @dtype: &enum hpusim_tm_dtype
 *
 * Return: "fp32", "tf32", "bf16", "fp8", or "?" for a value out of range.
 */
const char *hpusim_tm_dtype_name(enum hpusim_tm_dtype dtype)
{
	return (unsigned int)dtype < HPUSIM_TM_DTYPE_NR ?
		       tm_dtype_names[dtype] :
		       "?";
}

/* Round a modeled time up to whole ns; -ERANGE past TM_NS_MAX */
static int tm_round(double t, uint64_t *ns)
{
	if (!(t >= 0.0) || t >= TM_NS_MAX)
		return -ERANGE;
	*ns = (uint64_t)ceil(t);
	return 0;
}

/* @req engines of a class of @have: 0 means all; more than @have is bad */
static int tm_engines(uint32_t req, uint32_t have, uint32_t *out)
{
	if (req > have)
		return -EINVAL;
	*out = req ? req : have;
	return 0;
}

/* Streaming HBM bandwidth the model grants a job, bytes per ns */
static double tm_hbm_rate(const struct hpusim_tm_profile *p)
{
	return p->hbm_gbps * p->hbm_eff;
}

/**
 * hpusim_tm_nic_link_gbps() - payload rate of one NIC port
 * @p: profile
 *
 * Line rate times the RoCE payload fraction (MTU over MTU plus the
 * per-packet overhead).
 *
 * Return: GB/s of RDMA payload one port carries one way.
 */
double hpusim_tm_nic_link_gbps(const struct hpusim_tm_profile *p)
{
	double line = p->nic_gbit / 8.0;

	return line * p->nic_mtu / (double)(p->nic_mtu + p->nic_overhead_bytes);
}

/*
 * The MME: the output is cut into mme_tile x mme_tile tiles, spread over
 * the job's MMEs in waves (tile and wave quantization); each tile takes
 * k + mme_fill_k steps of one MME at mme_eff of its peak. Against that,
 * the operands stream from HBM once each (perfect on-chip reuse: the
 * lower bound of the traffic). The job takes the longer of the two, plus
 * the launch cost.
 */
static int tm_gemm_time(const struct hpusim_tm_profile *p,
			const struct hpusim_tm_gemm *g, double *t)
{
	double tiles, waves, tile_flops, mme_rate, compute, bytes, traffic;
	double tile = p->mme_tile;
	uint32_t engines;
	int ret;

	if ((unsigned int)g->dtype >= HPUSIM_TM_DTYPE_NR ||
	    (g->dtype_c != HPUSIM_TM_FP32 && g->dtype_c != HPUSIM_TM_BF16))
		return -EINVAL;
	if (!g->m || !g->n || !g->k || !g->batch)
		return -EINVAL;
	ret = tm_engines(g->engines, p->mme_count, &engines);
	if (ret)
		return ret;
	if (p->mme_tflops[g->dtype] <= 0.0)
		return -EOPNOTSUPP;

	tiles = ceil(g->m / tile) * ceil(g->n / tile) * (double)g->batch;
	waves = ceil(tiles / engines);
	tile_flops = 2.0 * tile * tile * ((double)g->k + p->mme_fill_k);
	/* FLOPs per ns of one MME */
	mme_rate = p->mme_tflops[g->dtype] * 1000.0 / p->mme_count * p->mme_eff;
	compute = waves * tile_flops / mme_rate;

	bytes = ((double)g->m * g->k + (double)g->k * g->n) *
			tm_dtype_size[g->dtype] +
		(double)g->m * g->n * tm_dtype_size[g->dtype_c] *
			(g->read_c ? 2 : 1);
	traffic = bytes * g->batch / tm_hbm_rate(p);

	*t = p->launch_ns + fmax(compute, traffic);
	return 0;
}

/**
 * hpusim_tm_gemm_ns() - modeled time of one MME_GEMM job
 * @p: profile
 * @g: the product; @g->engines 1 for a job on one MME queue
 * @ns: out: nanoseconds, rounded up
 *
 * Return: 0; -EINVAL for a NULL argument, a zero dimension, an unknown
 * type, a C type other than fp32/bf16 or more engines than the chip has;
 * -EOPNOTSUPP when the chip has no such matrix mode (TF32 or FP8 on
 * Gaudi); -ERANGE when the time does not fit. @ns is unchanged on error.
 */
int hpusim_tm_gemm_ns(const struct hpusim_tm_profile *p,
		      const struct hpusim_tm_gemm *g, uint64_t *ns)
{
	double t;
	int ret;

	if (!p || !g || !ns)
		return -EINVAL;
	ret = tm_gemm_time(p, g, &t);
	return ret ? ret : tm_round(t, ns);
}

/*
 * A TPC kernel as a roofline: its vector instructions at one per lane
 * per cycle on each of its TPCs (tpc_eff of that), against its bytes at
 * the sustained HBM rate; the longer of the two plus the launch cost.
 */
static int tm_tpc_time(const struct hpusim_tm_profile *p,
		       const struct hpusim_tm_tpc *k, double *t)
{
	double lanes, compute, traffic;
	uint32_t engines;
	int ret;

	if (k->dtype != HPUSIM_TM_FP32 && k->dtype != HPUSIM_TM_BF16 &&
	    k->dtype != HPUSIM_TM_FP8)
		return -EINVAL;
	ret = tm_engines(k->engines, p->tpc_count, &engines);
	if (ret)
		return ret;
	/* FP8 vectors only where the chip has FP8 at all */
	if (k->dtype == HPUSIM_TM_FP8 && p->mme_tflops[HPUSIM_TM_FP8] <= 0.0)
		return -EOPNOTSUPP;

	lanes = p->tpc_vector_bits / (8.0 * tm_dtype_size[k->dtype]);
	/* element-ops per ns: lanes x cycles per ns x TPCs */
	compute = (double)k->elements * k->ops_per_element /
		  (lanes * (p->clock_mhz / 1000.0) * engines * p->tpc_eff);
	traffic = (double)k->bytes / tm_hbm_rate(p);
	*t = p->launch_ns + fmax(compute, traffic);
	return 0;
}

/**
 * hpusim_tm_tpc_ns() - modeled time of one TPC_KERNEL job
 * @p: profile
 * @k: the kernel's size; @k->engines 1 for a job on one TPC queue
 * @ns: out: nanoseconds, rounded up
 *
 * Return: 0; -EINVAL for a NULL argument, a type other than fp32, bf16
 * or fp8, or more TPCs than the chip has; -EOPNOTSUPP for fp8 on a chip
 * without it; -ERANGE when the time does not fit. @ns is unchanged on
 * error.
 */
int hpusim_tm_tpc_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_tpc *k, uint64_t *ns)
{
	double t;
	int ret;

	if (!p || !k || !ns)
		return -EINVAL;
	ret = tm_tpc_time(p, k, &t);
	return ret ? ret : tm_round(t, ns);
}

/*
 * A DMA job: its engines move bytes at dma_engine_gbps each; on the way
 * it is bound by PCIe (payload rate, per direction: a host to host copy
 * reads and writes at once, full duplex) or by HBM (a copy reads and
 * writes, so twice its bytes; a fill only writes). The longer of engine
 * and path, plus the fixed latency of the path.
 */
static int tm_dma_time(const struct hpusim_tm_profile *p,
		       const struct hpusim_tm_dma *d, double *t)
{
	double bytes = (double)d->bytes, engine, path, latency;
	uint32_t engines;
	int ret;

	if ((unsigned int)d->dir >= HPUSIM_TM_DIR_NR)
		return -EINVAL;
	ret = tm_engines(d->engines, p->dma_count, &engines);
	if (ret)
		return ret;

	engine = bytes / (engines * p->dma_engine_gbps);
	switch (d->dir) {
	case HPUSIM_TM_D2D:
		path = 2.0 * bytes / tm_hbm_rate(p);
		latency = p->dma_dev_latency_ns;
		break;
	case HPUSIM_TM_FILL_D:
		path = bytes / tm_hbm_rate(p);
		latency = p->dma_dev_latency_ns;
		break;
	default: /* H2D, D2H, H2H, FILL_H: across PCIe */
		path = bytes / (p->pcie_gbps * p->pcie_eff);
		latency = p->dma_host_latency_ns;
		break;
	}
	*t = latency + fmax(engine, path);
	return 0;
}

/**
 * hpusim_tm_dma_ns() - modeled time of one LIN_DMA or MEMSET job
 * @p: profile
 * @d: the transfer; @d->engines 1 for a job on one DMA queue
 * @ns: out: nanoseconds, rounded up
 *
 * Return: 0; -EINVAL for a NULL argument, an unknown direction or more
 * engines than the chip has; -ERANGE when the time does not fit. @ns is
 * unchanged on error.
 */
int hpusim_tm_dma_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_dma *d, uint64_t *ns)
{
	double t;
	int ret;

	if (!p || !d || !ns)
		return -EINVAL;
	ret = tm_dma_time(p, d, &t);
	return ret ? ret : tm_round(t, ns);
}

/* A NIC write: latency (and a switch when scale-out) plus bytes/ports */
static int tm_nic_time(const struct hpusim_tm_profile *p,
		       const struct hpusim_tm_nic *n, double *t)
{
	uint32_t have = n->scale_out ? p->nic_ports - p->nic_scaleup_ports :
				       p->nic_scaleup_ports;
	uint32_t ports;
	int ret;

	ret = tm_engines(n->ports, have, &ports);
	if (ret)
		return ret;
	*t = p->nic_latency_ns + (n->scale_out ? p->nic_switch_ns : 0) +
	     (double)n->bytes / (ports * hpusim_tm_nic_link_gbps(p));
	return 0;
}

/**
 * hpusim_tm_nic_ns() - modeled time of one NIC write
 * @p: profile
 * @n: the write; @n->ports 1 for a job on one NIC port queue
 * @ns: out: nanoseconds, rounded up
 *
 * Return: 0; -EINVAL for a NULL argument or more ports than the chip has
 * of that kind; -ERANGE when the time does not fit. @ns is unchanged on
 * error.
 */
int hpusim_tm_nic_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_nic *n, uint64_t *ns)
{
	double t;
	int ret;

	if (!p || !n || !ns)
		return -EINVAL;
	ret = tm_nic_time(p, n, &t);
	return ret ? ret : tm_round(t, ns);
}

/**
 * hpusim_tm_job_ns() - modeled time of any engine job
 * @p: profile
 * @job: the job, tagged with its engine class
 * @ns: out: nanoseconds, rounded up
 *
 * The entry point of trace capture: an event records a &struct
 * hpusim_tm_job and this gives its modeled duration.
 *
 * Return: as the function of the job's kind; -EINVAL for an unknown kind.
 */
int hpusim_tm_job_ns(const struct hpusim_tm_profile *p,
		     const struct hpusim_tm_job *job, uint64_t *ns)
{
	if (!job)
		return -EINVAL;
	switch (job->kind) {
	case HPUSIM_TM_JOB_GEMM:
		return hpusim_tm_gemm_ns(p, &job->gemm, ns);
	case HPUSIM_TM_JOB_TPC:
		return hpusim_tm_tpc_ns(p, &job->tpc, ns);
	case HPUSIM_TM_JOB_DMA:
		return hpusim_tm_dma_ns(p, &job->dma, ns);
	case HPUSIM_TM_JOB_NIC:
		return hpusim_tm_nic_ns(p, &job->nic, ns);
	default:
		return -EINVAL;
	}
}

/*
 * One phase (reduce-scatter or all-gather) among @ranks cards of one
 * server, all-to-all: each card sends (ranks-1)/ranks of @bytes, its
 * share for each peer over the links to that peer, all peers at once;
 * one message latency per phase.
 */
static double tm_phase_scaleup(const struct hpusim_tm_profile *p, double bytes,
			       uint32_t ranks)
{
	uint32_t per_peer = p->nic_scaleup_ports / (p->server_cards - 1);
	uint32_t ports = (ranks - 1) * per_peer;
	double rate = ports * hpusim_tm_nic_link_gbps(p);

	return p->nic_latency_ns + (ranks - 1) * bytes / ranks / rate;
}

/*
 * One phase among @nodes servers over the scale-out ports, a ring: each
 * card moves (nodes-1)/nodes of its @bytes, nodes - 1 steps, each step a
 * message through the switch.
 */
static double tm_phase_scaleout(const struct hpusim_tm_profile *p, double bytes,
				uint32_t nodes)
{
	uint32_t ports = p->nic_ports - p->nic_scaleup_ports;
	double rate = ports * hpusim_tm_nic_link_gbps(p);

	return (nodes - 1) *
	       (p->nic_latency_ns + p->nic_switch_ns + bytes / nodes / rate);
}

/*
 * Collectives are bound by the NICs (the reductions run on the TPCs
 * beside them, and are not modeled). In one server: one phase for a
 * reduce-scatter or all-gather, both for an all-reduce. Over whole
 * servers, hierarchically: within each server, across servers on
 * 1/server_cards of the data through the scale-out ports, within each
 * server again.
 */
static int tm_coll_time(const struct hpusim_tm_profile *p,
			const struct hpusim_tm_coll *c, double *t)
{
	uint32_t local = p->server_cards, nodes;
	double bytes = (double)c->bytes, phases, in, out;

	switch (c->op) {
	case HPUSIM_TM_ALLREDUCE:
		phases = 2;
		break;
	case HPUSIM_TM_REDUCE_SCATTER:
	case HPUSIM_TM_ALLGATHER:
		phases = 1;
		break;
	default:
		return -EINVAL;
	}
	if (!c->ranks)
		return -EINVAL;
	if (c->ranks == 1) {
		*t = 0;
		return 0;
	}
	if (c->ranks <= local) {
		*t = phases * tm_phase_scaleup(p, bytes, c->ranks);
		return 0;
	}
	if (c->ranks % local)
		return -EINVAL;
	nodes = c->ranks / local;
	in = tm_phase_scaleup(p, bytes, local);
	out = tm_phase_scaleout(p, bytes / local, nodes);
	*t = phases * (in + out);
	return 0;
}

/**
 * hpusim_tm_coll_ns() - modeled time of a collective
 * @p: profile
 * @c: the collective
 * @ns: out: nanoseconds, rounded up (0 for one rank)
 *
 * Return: 0; -EINVAL for a NULL argument, an unknown operation, no rank,
 * or more ranks than one server that are not whole servers; -ERANGE
 * when the time does not fit. @ns is unchanged on error.
 */
int hpusim_tm_coll_ns(const struct hpusim_tm_profile *p,
		      const struct hpusim_tm_coll *c, uint64_t *ns)
{
	double t;
	int ret;

	if (!p || !c || !ns)
		return -EINVAL;
	ret = tm_coll_time(p, c, &t);
	return ret ? ret : tm_round(t, ns);
}

/**
 * hpusim_tm_busbw_gbps() - bus bandwidth of a collective that took @ns
 * @c: the collective
 * @ns: its time
 *
 * The nccl-tests and hccl_demo convention: size / time times
 * 2(ranks-1)/ranks for an all-reduce, (ranks-1)/ranks for a
 * reduce-scatter or an all-gather.
 *
 * Return: GB/s; 0 for a NULL @c, a zero @ns, one rank or an unknown op.
 */
double hpusim_tm_busbw_gbps(const struct hpusim_tm_coll *c, uint64_t ns)
{
	double factor;

	if (!c || !ns || c->ranks < 2)
		return 0.0;
	factor = (double)(c->ranks - 1) / c->ranks;
	switch (c->op) {
	case HPUSIM_TM_ALLREDUCE:
		factor *= 2.0;
		break;
	case HPUSIM_TM_REDUCE_SCATTER:
	case HPUSIM_TM_ALLGATHER:
		break;
	default:
		return 0.0;
	}
	return factor * (double)c->bytes / (double)ns;
}
