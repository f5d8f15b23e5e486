// SPDX-License-Identifier: MIT
/*
 * test_bench_model.c - hpu-bench dma's modeled columns
 * (tools/hpu-bench/model_dma.c): the figure is the timing model's own
 * for one LIN_DMA on one engine of a Gaudi2, bounded by PCIe (host
 * paths) or by the engine (device copies), rising with the size towards
 * that bound; a bad direction gives 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../tools/hpu-bench/bench.h"
#include "hpusim_timing.h"

static void test_same_as_model(void **state)
{
	const struct hpusim_tm_profile *p = hpusim_tm_profile_find("gaudi2");
	static const int dirs[] = { HPUSIM_TM_H2D, HPUSIM_TM_D2H,
				    HPUSIM_TM_D2D };
	uint64_t size, ns;
	size_t i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < 3; i++) {
		for (size = 4096; size <= (1ULL << 30); size *= 4) {
			struct hpusim_tm_dma d = { .bytes = size,
						   .dir = dirs[i],
						   .engines = 1 };

			assert_int_equal(hpusim_tm_dma_ns(p, &d, &ns), 0);
			assert_true(bench_model_dma_gbps(dirs[i], size) ==
				    (double)size / (double)ns);
		}
	}
}

static void test_bounds(void **state)
{
	const struct hpusim_tm_profile *p = hpusim_tm_profile_find("gaudi2");
	double pcie = p->pcie_gbps * p->pcie_eff, prev[3] = { 0, 0, 0 }, g;
	uint64_t size;
	int dir;

	(void)state;
	for (size = 4096; size <= (1ULL << 30); size *= 2) {
		for (dir = HPUSIM_TM_H2D; dir <= HPUSIM_TM_D2D; dir++) {
			g = bench_model_dma_gbps(dir, size);
			assert_true(g > 0);
			/* more bytes amortize the fixed latency */
			assert_true(g >= prev[dir]);
			prev[dir] = g;
			if (dir == HPUSIM_TM_D2D)
				assert_true(g <= p->dma_engine_gbps);
			else
				assert_true(g <= pcie);
		}
	}
	/* 1 GiB: within 1% of the bound (the latency is amortized) */
	assert_true(prev[HPUSIM_TM_H2D] > 0.99 * pcie);
	assert_true(prev[HPUSIM_TM_D2D] > 0.99 * p->dma_engine_gbps);
	/* 4 KiB: latency bound */
	assert_true(bench_model_dma_gbps(HPUSIM_TM_H2D, 4096) < 0.1 * pcie);
}

static void test_bad(void **state)
{
	(void)state;
	assert_true(bench_model_dma_gbps(-1, 4096) == 0.0);
	assert_true(bench_model_dma_gbps(HPUSIM_TM_DIR_NR, 4096) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_model),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests_name("bench_model", tests, NULL, NULL);
}
