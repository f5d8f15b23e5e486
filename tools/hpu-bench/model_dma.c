// SPDX-License-Identifier: MIT
/*
 * model_dma.c - hpu-bench dma's modeled columns: the same copy (one
 * LIN_DMA job on one DMA engine, as the benchmark submits it) on a
 * Gaudi2 by the timing model (docs/timing-model.md: the engine's rate,
 * PCIe or HBM, whichever bounds it, plus the path's fixed latency).
 * Pure: no device, no clock (tests/unit/test_bench_model.c).
 */
#include "bench.h"
#include "hpusim_timing.h"

double bench_model_dma_gbps(int dir, uint64_t size)
{
	const struct hpusim_tm_dma d = {
		.bytes = size,
		.dir = (enum hpusim_tm_dir)dir,
		.engines = 1,
	};
	uint64_t ns;

	if (dir < 0 || dir >= HPUSIM_TM_DIR_NR ||
	    hpusim_tm_dma_ns(hpusim_tm_profile_find("gaudi2"), &d, &ns) || !ns)
		return 0.0;
	return (double)size / (double)ns; /* bytes per ns = GB/s */
}
