// SPDX-License-Identifier: MIT
/*
 * timing_checks.c - the published figures the timing model is checked
 * against, and how the model computes each (docs/timing-model.md,
 * "Checks"). tools/hpu-model-check prints them (make model-check) and
 * tests/unit/test_timing_model.c asserts them: one table for both.
 */
#include <errno.h>
#include <math.h>

#include "hpusim_timing.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static const char tm_src_mamf[] =
	"stas00/ml-engineering compute/accelerator/README.md, "
	"Maximum Achievable Matmul FLOPS table (v1)";
static const char tm_src_ocp[] =
	"intel/intel-technology-enabling-for-openshift "
	"tests/gaudi/l2/README.md (hccl_demo)";
static const char tm_src_hcoll[] =
	"docs.habana.ai Management_and_Monitoring/Network_Configuration/"
	"Collectives_Performance.html (hccl_demo)";
static const char tm_src_hc24[] = "Intel, Gaudi 3, Hot Chips 2024";

static const struct hpusim_tm_check tm_checks[] = {
	{
		.figure = "MME bf16 GEMM 20224x19968x11520",
		.profile = "gaudi2",
		.kind = HPUSIM_TM_CHECK_GEMM_TFLOPS,
		.gemm = { .m = 20224,
			  .n = 19968,
			  .k = 11520,
			  .batch = 1,
			  .dtype = HPUSIM_TM_BF16,
			  .dtype_c = HPUSIM_TM_BF16 },
		.published = 429.3,
		.unit = "TFLOP/s",
		.tolerance = 0.05,
		.enforced = true,
		.source = tm_src_mamf,
		.note = "measured by Intel with mamf-finder, Gaudi software "
			"1.15 (99.4% of 432)",
	},
	{
		.figure = "MME bf16 GEMM 22272x12288x7936",
		.profile = "gaudi3",
		.kind = HPUSIM_TM_CHECK_GEMM_TFLOPS,
		.gemm = { .m = 22272,
			  .n = 12288,
			  .k = 7936,
			  .batch = 1,
			  .dtype = HPUSIM_TM_BF16,
			  .dtype_c = HPUSIM_TM_BF16 },
		.published = 1288.8,
		.unit = "TFLOP/s",
		.tolerance = 0.05,
		.enforced = false,
		.source = tm_src_mamf,
		.note = "not enforced: measured at a 1600 MHz MME clock with "
			"software 1.19 (76.8% of that clock's 1677); the model "
			"uses the white paper's 1835",
	},
	{
		.figure = "all_reduce busbw, 8 cards, 32 MiB fp32",
		.profile = "gaudi2",
		.kind = HPUSIM_TM_CHECK_BUSBW,
		.bytes = 32 * MiB,
		.ranks = 8,
		.published = 258.209,
		.unit = "GB/s",
		.tolerance = 0.05,
		.enforced = true,
		.source = tm_src_ocp,
		.note = "hccl_demo \"NW Bandwidth\" (algbw x 2(n-1)/n); the "
			"21 scale-up ports carry 262.5 GB/s of line rate",
	},
	{
		.figure = "all_reduce busbw, 8 cards, 256 MiB fp32",
		.profile = "gaudi3",
		.kind = HPUSIM_TM_CHECK_BUSBW,
		.bytes = 256 * MiB,
		.ranks = 8,
		.published = 512.957,
		.unit = "GB/s",
		.tolerance = 0.05,
		.enforced = true,
		.source = tm_src_hcoll,
		.note = "the page names no chip; only Gaudi3's 21 x 200 GbE "
			"(525 GB/s) can carry it, Gaudi2's carry 262.5",
	},
	{
		.figure = "HBM traffic of a 1 GiB device copy",
		.profile = "gaudi2",
		.kind = HPUSIM_TM_CHECK_HBM_GBPS,
		.bytes = GiB,
		.published = 2460.0,
		.unit = "GB/s",
		.tolerance = 0.15,
		.enforced = true,
		.source = tm_src_hc24,
		.note = "a peak, not a measurement (none found): checks that "
			"copies are bound by HBM at the assumed 90%",
	},
	{
		.figure = "HBM traffic of a 1 GiB device copy",
		.profile = "gaudi3",
		.kind = HPUSIM_TM_CHECK_HBM_GBPS,
		.bytes = GiB,
		.published = 3670.0,
		.unit = "GB/s",
		.tolerance = 0.15,
		.enforced = true,
		.source = tm_src_hc24,
		.note = "a peak, not a measurement (none found): checks that "
			"copies are bound by HBM at the assumed 90%",
	},
	{
		.figure = "TPC bf16 vector FMA, all TPCs",
		.profile = "gaudi3",
		.kind = HPUSIM_TM_CHECK_TPC_TFLOPS,
		.bytes = GiB, /* elements */
		.published = 28.7,
		.unit = "TFLOP/s",
		.tolerance = 0.15,
		.enforced = true,
		.source = tm_src_hc24,
		.note = "a peak: 64 TPC x 2048-bit x 1750 MHz (the clock of "
			"the MME figure) at the assumed 90% issue rate",
	},
};

#define TM_NCHECKS (sizeof(tm_checks) / sizeof(tm_checks[0]))

/**
 * hpusim_tm_check_count() - number of published figures checked
 *
 * Return: the number of entries hpusim_tm_check_at() gives.
 */
unsigned int hpusim_tm_check_count(void)
{
	return TM_NCHECKS;
}

/**
 * hpusim_tm_check_at() - a published figure by index
 * @idx: 0..hpusim_tm_check_count() - 1
 *
 * Return: the figure, or NULL when @idx is out of range.
 */
const struct hpusim_tm_check *hpusim_tm_check_at(unsigned int idx)
{
	return idx < TM_NCHECKS ? &tm_checks[idx] : NULL;
}

static int tm_check_gemm(const struct hpusim_tm_profile *p,
			 const struct hpusim_tm_gemm *g, double *model)
{
	uint64_t ns;
	int ret = hpusim_tm_gemm_ns(p, g, &ns);

	if (ret)
		return ret;
	*model = 2.0 * g->m * g->n * (double)g->k * g->batch / ns / 1000.0;
	return 0;
}

static int tm_check_tpc(const struct hpusim_tm_profile *p, uint64_t elems,
			double *model)
{
	const struct hpusim_tm_tpc k = {
		.elements = elems,
		.ops_per_element = 1,
		.dtype = HPUSIM_TM_BF16,
	};
	uint64_t ns;
	int ret = hpusim_tm_tpc_ns(p, &k, &ns);

	if (ret)
		return ret;
	*model = 2.0 * (double)elems / ns / 1000.0; /* an FMA is 2 FLOPs */
	return 0;
}

static int tm_check_copy(const struct hpusim_tm_profile *p, uint64_t bytes,
			 double *model)
{
	const struct hpusim_tm_dma d = { .bytes = bytes, .dir = HPUSIM_TM_D2D };
	uint64_t ns;
	int ret = hpusim_tm_dma_ns(p, &d, &ns);

	if (ret)
		return ret;
	*model = 2.0 * (double)bytes / ns; /* read and written */
	return 0;
}

static int tm_check_busbw(const struct hpusim_tm_profile *p, uint64_t bytes,
			  uint32_t ranks, double *model)
{
	const struct hpusim_tm_coll c = {
		.op = HPUSIM_TM_ALLREDUCE,
		.bytes = bytes,
		.ranks = ranks,
	};
	uint64_t ns;
	int ret = hpusim_tm_coll_ns(p, &c, &ns);

	if (ret)
		return ret;
	*model = hpusim_tm_busbw_gbps(&c, ns);
	return 0;
}

/**
 * hpusim_tm_check_eval() - the model's value of a published figure
 * @c: the figure
 * @model: out: the model's value, in @c->unit
 *
 * Return: 0; -EINVAL for a NULL argument, an unknown kind or profile, or
 * whatever the cost function returns. @model is unchanged on error.
 */
int hpusim_tm_check_eval(const struct hpusim_tm_check *c, double *model)
{
	const struct hpusim_tm_profile *p;

	if (!c || !model)
		return -EINVAL;
	p = hpusim_tm_profile_find(c->profile);
	if (!p)
		return -EINVAL;
	switch (c->kind) {
	case HPUSIM_TM_CHECK_GEMM_TFLOPS:
		return tm_check_gemm(p, &c->gemm, model);
	case HPUSIM_TM_CHECK_TPC_TFLOPS:
		return tm_check_tpc(p, c->bytes, model);
	case HPUSIM_TM_CHECK_HBM_GBPS:
		return tm_check_copy(p, c->bytes, model);
	case HPUSIM_TM_CHECK_BUSBW:
		return tm_check_busbw(p, c->bytes, c->ranks, model);
	default:
		return -EINVAL;
	}
}

/**
 * hpusim_tm_check_within() - whether the model's value is within the
 * figure's tolerance
 * @c: the figure
 * @model: the model's value (hpusim_tm_check_eval())
 *
 * Return: true when |@model - published| <= tolerance x published
 * (whether or not @c is enforced); false for a NULL @c or a value that
 * is not a number.
 */
bool hpusim_tm_check_within(const struct hpusim_tm_check *c, double model)
{
	if (!c || isnan(model))
		return false;
	return fabs(model - c->published) <= c->tolerance * c->published;
}
