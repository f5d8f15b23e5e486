// SPDX-License-Identifier: MIT
/*
 * test_timing_model.c - the timing model (firmware-sim/timing_model.c,
 * docs/timing-model.md): profile lookup, the published figures of the
 * table, hand-computed times, monotonic costs, bad arguments rejected
 * without touching the output, and the cited figures of timing_checks.c
 * within their tolerance. Pure arithmetic: nothing is timed.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hpusim.h"
#include "hpusim_timing.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL
#define MiB	 (1ULL << 20)
#define GiB	 (1ULL << 30)

static const struct hpusim_tm_profile *prof(const char *name)
{
	const struct hpusim_tm_profile *p = hpusim_tm_profile_find(name);

	assert_non_null(p);
	return p;
}

static uint64_t gemm_ns(const struct hpusim_tm_profile *p,
			struct hpusim_tm_gemm g)
{
	uint64_t ns = 0;

	assert_int_equal(hpusim_tm_gemm_ns(p, &g, &ns), 0);
	assert_true(ns > 0);
	return ns;
}

static uint64_t dma_ns(const struct hpusim_tm_profile *p,
		       struct hpusim_tm_dma d)
{
	uint64_t ns = 0;

	assert_int_equal(hpusim_tm_dma_ns(p, &d, &ns), 0);
	assert_true(ns > 0);
	return ns;
}

static uint64_t tpc_ns(const struct hpusim_tm_profile *p,
		       struct hpusim_tm_tpc t)
{
	uint64_t ns = 0;

	assert_int_equal(hpusim_tm_tpc_ns(p, &t, &ns), 0);
	assert_true(ns > 0);
	return ns;
}

static uint64_t nic_ns(const struct hpusim_tm_profile *p,
		       struct hpusim_tm_nic n)
{
	uint64_t ns = 0;

	assert_int_equal(hpusim_tm_nic_ns(p, &n, &ns), 0);
	assert_true(ns > 0);
	return ns;
}

static uint64_t coll_ns(const struct hpusim_tm_profile *p,
			struct hpusim_tm_coll c)
{
	uint64_t ns = SENTINEL;

	assert_int_equal(hpusim_tm_coll_ns(p, &c, &ns), 0);
	assert_true(ns != SENTINEL);
	return ns;
}

/* ------------------------------------------------------------ profiles */

static void test_profile_lookup(void **state)
{
	static const char *const names[] = { "gaudi", "gaudi2", "gaudi3" };
	static const char *const cards[] = { "HL-205", "HL-225", "HL-325L" };
	unsigned int i;

	(void)state;
	assert_int_equal(hpusim_tm_profile_count(), 3);
	for (i = 0; i < 3; i++) {
		const struct hpusim_tm_profile *p = hpusim_tm_profile_at(i);

		assert_non_null(p);
		assert_string_equal(p->name, names[i]);
		assert_string_equal(p->card, cards[i]);
		assert_ptr_equal(hpusim_tm_profile_find(names[i]), p);
		/* trace capture finds the model of a device by its name */
		assert_non_null(hpu_fw_find_profile(&hpusim_model, names[i]));
	}
	assert_null(hpusim_tm_profile_at(3));
	assert_null(hpusim_tm_profile_at(~0U));
	assert_null(hpusim_tm_profile_find(NULL));
	assert_null(hpusim_tm_profile_find(""));
	assert_null(hpusim_tm_profile_find("gaudi4"));
	assert_null(hpusim_tm_profile_find("Gaudi2"));

	assert_string_equal(hpusim_tm_dtype_name(HPUSIM_TM_BF16), "bf16");
	assert_string_equal(hpusim_tm_dtype_name(HPUSIM_TM_FP8), "fp8");
	assert_string_equal(hpusim_tm_dtype_name(HPUSIM_TM_DTYPE_NR), "?");
	assert_string_equal(hpusim_tm_dtype_name((enum hpusim_tm_dtype) - 1),
			    "?");
}

/* The figures the issue names, and the table's own consistency */
static void test_profile_figures(void **state)
{
	static const struct {
		const char *name;
		uint32_t ports, scaleup, gbit, mme, tpc, hbm_gib;
		double bf16;
	} want[] = {
		{ "gaudi", 10, 7, 100, 1, 8, 32, 60.0 },
		{ "gaudi2", 24, 21, 100, 2, 24, 96, 432.0 },
		{ "gaudi3", 24, 21, 200, 8, 64, 128, 1835.0 },
	};
	unsigned int i, d;

	(void)state;
	for (i = 0; i < 3; i++) {
		const struct hpusim_tm_profile *p = prof(want[i].name);

		assert_int_equal(p->nic_ports, want[i].ports);
		assert_int_equal(p->nic_scaleup_ports, want[i].scaleup);
		assert_int_equal(p->nic_ports - p->nic_scaleup_ports, 3);
		assert_int_equal(p->nic_gbit, want[i].gbit);
		assert_int_equal(p->mme_count, want[i].mme);
		assert_int_equal(p->tpc_count, want[i].tpc);
		assert_int_equal(p->hbm_gib, want[i].hbm_gib);
		assert_true(p->mme_tflops[HPUSIM_TM_BF16] == want[i].bf16);
		/* the same engine counts as the device model's profile */
		assert_int_equal(
			hpu_fw_find_profile(&hpusim_model, p->name)->num_mme,
			p->mme_count);
		assert_int_equal(
			hpu_fw_find_profile(&hpusim_model, p->name)->num_tpc,
			p->tpc_count);
		assert_int_equal(
			hpu_fw_find_profile(&hpusim_model, p->name)->num_dma,
			p->dma_count);
		assert_int_equal(hpu_fw_find_profile(&hpusim_model, p->name)
					 ->num_nic_ports,
				 p->nic_ports);

		/* every peer gets the same number of scale-up links */
		assert_int_equal(p->nic_scaleup_ports % (p->server_cards - 1),
				 0);
		assert_true(p->mme_tflops[HPUSIM_TM_FP32] > 0);
		for (d = 0; d < HPUSIM_TM_DTYPE_NR; d++)
			assert_true(p->mme_tflops[d] >= 0);
		assert_true(p->mme_eff > 0 && p->mme_eff <= 1);
		assert_true(p->tpc_eff > 0 && p->tpc_eff <= 1);
		assert_true(p->hbm_eff > 0 && p->hbm_eff <= 1);
		assert_true(p->pcie_eff > 0 && p->pcie_eff <= 1);
		assert_true(p->mme_tile > 0 && p->clock_mhz > 0);
		assert_true(p->dma_engine_gbps > 0 && p->hbm_gbps > 0);
		/* RoCE payload fraction: 4096 / (4096 + 82) of the line */
		assert_true(fabs(hpusim_tm_nic_link_gbps(p) -
				 p->nic_gbit / 8.0 * 4096.0 / 4178.0) < 1e-9);
	}
	/* no TF32 or FP8 on the first Gaudi, both on the others */
	assert_true(prof("gaudi")->mme_tflops[HPUSIM_TM_TF32] == 0);
	assert_true(prof("gaudi")->mme_tflops[HPUSIM_TM_FP8] == 0);
	assert_true(prof("gaudi2")->mme_tflops[HPUSIM_TM_FP8] == 865.0);
	assert_true(prof("gaudi3")->mme_tflops[HPUSIM_TM_TF32] > 0);
}

/* ------------------------------------------------------------ exact values */

/* Small cases worked out by hand from the table (docs/timing-model.md) */
static void test_exact_values(void **state)
{
	const struct hpusim_tm_profile *g2 = prof("gaudi2");
	const struct hpusim_tm_dma d0 = { .bytes = 0, .dir = HPUSIM_TM_D2D };
	const struct hpusim_tm_dma h0 = { .bytes = 0, .dir = HPUSIM_TM_H2D };
	const struct hpusim_tm_tpc t0 = { .dtype = HPUSIM_TM_BF16 };
	const struct hpusim_tm_nic n0 = { 0 };
	const struct hpusim_tm_nic s0 = { .scale_out = true };
	const struct hpusim_tm_coll one = { .bytes = GiB, .ranks = 1 };
	const struct hpusim_tm_gemm g = {
		.m = 256,
		.n = 256,
		.k = 256,
		.batch = 1,
		.dtype = HPUSIM_TM_BF16,
		.dtype_c = HPUSIM_TM_BF16,
		.engines = 1,
	};
	const struct hpusim_tm_dma h2d = {
		.bytes = 256 * MiB,
		.dir = HPUSIM_TM_H2D,
		.engines = 1,
	};

	(void)state;
	/* empty jobs cost their fixed latency exactly */
	assert_int_equal(dma_ns(g2, d0), 1000);
	assert_int_equal(dma_ns(g2, h0), 2000);
	assert_int_equal(tpc_ns(g2, t0), 500);
	assert_int_equal(nic_ns(g2, n0), 2000);
	assert_int_equal(nic_ns(g2, s0), 3000);
	assert_int_equal(coll_ns(g2, one), 0);

	/*
	 * One 256^3 bf16 tile on one MME: 2 * 256^2 * (256 + 64) FLOPs at
	 * 432000 / 2 * 0.97 FLOPs per ns = 200.19 ns, longer than its
	 * 393216 bytes at 2460 * 0.9 B/ns (177.6 ns); + 500 launch = 700.19,
	 * rounded up.
	 */
	assert_int_equal(gemm_ns(g2, g), 701);

	/* 256 MiB over PCIe: 125 GB/s engine, 32 * 0.8 GB/s link */
	assert_int_equal(dma_ns(g2, h2d),
			 2000 + (uint64_t)ceil(268435456.0 / 25.6));
}

/* ------------------------------------------------------------ monotonic */

static void test_gemm_monotonic(void **state)
{
	static const uint32_t dims[] = { 1,   7,    128,  255,	 256,
					 257, 1000, 4096, 12345, 65536 };
	unsigned int i, pi;

	(void)state;
	for (pi = 0; pi < hpusim_tm_profile_count(); pi++) {
		const struct hpusim_tm_profile *p = hpusim_tm_profile_at(pi);
		uint64_t pm = 0, pn = 0, pk = 0, pb = 0;

		for (i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
			struct hpusim_tm_gemm g = {
				.m = 512,
				.n = 512,
				.k = 512,
				.batch = 2,
				.dtype = HPUSIM_TM_BF16,
				.dtype_c = HPUSIM_TM_FP32,
			};
			uint64_t t;

			g.m = dims[i];
			t = gemm_ns(p, g);
			assert_true(t >= pm);
			pm = t;
			g.m = 512;
			g.n = dims[i];
			t = gemm_ns(p, g);
			assert_true(t >= pn);
			pn = t;
			g.n = 512;
			g.k = dims[i];
			t = gemm_ns(p, g);
			assert_true(t >= pk);
			pk = t;
			g.k = 512;
			g.batch = dims[i];
			t = gemm_ns(p, g);
			assert_true(t >= pb);
			pb = t;
		}
	}
}

/* Faster modes, more engines and not reading C never cost more */
static void test_gemm_modes(void **state)
{
	const struct hpusim_tm_profile *g2 = prof("gaudi2");
	struct hpusim_tm_gemm g = {
		.m = 8192,
		.n = 8192,
		.k = 8192,
		.batch = 1,
		.dtype = HPUSIM_TM_FP32,
		.dtype_c = HPUSIM_TM_FP32,
		.engines = 1,
	};
	uint64_t fp32, tf32, bf16, fp8, one, all, rc;

	(void)state;
	fp32 = gemm_ns(g2, g);
	g.dtype = HPUSIM_TM_TF32;
	tf32 = gemm_ns(g2, g);
	g.dtype = HPUSIM_TM_BF16;
	bf16 = gemm_ns(g2, g);
	g.dtype = HPUSIM_TM_FP8;
	fp8 = gemm_ns(g2, g);
	assert_true(fp32 > tf32 && tf32 > bf16 && bf16 > fp8);

	g.dtype = HPUSIM_TM_BF16;
	one = gemm_ns(g2, g);
	g.engines = 0; /* both MMEs */
	all = gemm_ns(g2, g);
	assert_true(all < one);
	/* compute bound: two MMEs take about half the time of one */
	assert_true(fabs((double)one / all - 2.0) < 0.01);
	g.read_c = true;
	rc = gemm_ns(g2, g);
	assert_true(rc >= all);
}

static void test_dma_tpc_nic_monotonic(void **state)
{
	static const uint64_t sizes[] = { 0,	      1,	 4096,
					  65536,      1 << 20,	 64 << 20,
					  1ULL << 30, 1ULL << 36 };
	unsigned int i, pi, dir;

	(void)state;
	for (pi = 0; pi < hpusim_tm_profile_count(); pi++) {
		const struct hpusim_tm_profile *p = hpusim_tm_profile_at(pi);
		uint64_t pd[HPUSIM_TM_DIR_NR] = { 0 }, pt = 0, ptb = 0;
		uint64_t pnu = 0, pno = 0, pc = 0;

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct hpusim_tm_tpc t = {
				.elements = sizes[i],
				.ops_per_element = 4,
				.bytes = 4096,
				.dtype = HPUSIM_TM_FP32,
			};
			struct hpusim_tm_coll c = {
				.op = HPUSIM_TM_ALLREDUCE,
				.bytes = sizes[i],
				.ranks = 8,
			};
			uint64_t v;

			for (dir = 0; dir < HPUSIM_TM_DIR_NR; dir++) {
				struct hpusim_tm_dma d = {
					.bytes = sizes[i],
					.dir = dir,
					.engines = 1,
				};

				v = dma_ns(p, d);
				assert_true(v >= pd[dir]);
				pd[dir] = v;
			}
			v = tpc_ns(p, t);
			assert_true(v >= pt);
			pt = v;
			t.elements = 4096;
			t.bytes = sizes[i];
			v = tpc_ns(p, t);
			assert_true(v >= ptb);
			ptb = v;
			v = nic_ns(p,
				   (struct hpusim_tm_nic){ .bytes = sizes[i] });
			assert_true(v >= pnu);
			pnu = v;
			v = nic_ns(p,
				   (struct hpusim_tm_nic){ .bytes = sizes[i],
							   .scale_out = true });
			assert_true(v >= pno);
			pno = v;
			v = coll_ns(p, c);
			assert_true(v >= pc);
			pc = v;
		}
		/* a write through the switch never beats a direct link */
		assert_true(pno > pnu);
	}
}

/* Bus bandwidth: grows with the size, and a second server costs */
static void test_collectives(void **state)
{
	const struct hpusim_tm_profile *g2 = prof("gaudi2");
	struct hpusim_tm_coll c = { .op = HPUSIM_TM_ALLREDUCE, .ranks = 8 };
	double prev = 0, bw8, bw16;
	uint64_t b, ar, rs, ag;

	(void)state;
	for (b = 4096; b <= GiB; b <<= 2) {
		double bw;

		c.bytes = b;
		bw = hpusim_tm_busbw_gbps(&c, coll_ns(g2, c));
		assert_true(bw > prev);
		prev = bw;
	}
	/* never above the 21 scale-up ports' payload rate */
	assert_true(prev < 21 * hpusim_tm_nic_link_gbps(g2));

	c.bytes = 256 * MiB;
	ar = coll_ns(g2, c);
	bw8 = hpusim_tm_busbw_gbps(&c, ar);
	c.op = HPUSIM_TM_REDUCE_SCATTER;
	rs = coll_ns(g2, c);
	c.op = HPUSIM_TM_ALLGATHER;
	ag = coll_ns(g2, c);
	assert_int_equal(rs, ag);
	assert_true(ar >= 2 * rs - 1 && ar <= 2 * rs);
	/* the same bus bandwidth for one phase as for both */
	assert_true(fabs(hpusim_tm_busbw_gbps(&c, ag) - bw8) / bw8 < 0.001);

	c.op = HPUSIM_TM_ALLREDUCE;
	c.ranks = 16; /* two servers: 3 scale-out ports each */
	bw16 = hpusim_tm_busbw_gbps(&c, coll_ns(g2, c));
	assert_true(bw16 < bw8);
	assert_true(bw16 > 0);

	/* busbw of nothing, or of one rank, is 0 */
	assert_true(hpusim_tm_busbw_gbps(&c, 0) == 0.0);
	assert_true(hpusim_tm_busbw_gbps(NULL, 1000) == 0.0);
	c.ranks = 1;
	assert_true(hpusim_tm_busbw_gbps(&c, 1000) == 0.0);
}

/* ------------------------------------------------------------ rejected */

static void test_bad_arguments(void **state)
{
	const struct hpusim_tm_profile *g1 = prof("gaudi"),
				       *g2 = prof("gaudi2");
	const struct hpusim_tm_gemm ok = {
		.m = 64,
		.n = 64,
		.k = 64,
		.batch = 1,
		.dtype = HPUSIM_TM_BF16,
		.dtype_c = HPUSIM_TM_BF16,
	};
	struct hpusim_tm_gemm g;
	struct hpusim_tm_tpc t = { .elements = 1, .dtype = HPUSIM_TM_FP32 };
	struct hpusim_tm_dma d = { .bytes = 1, .dir = HPUSIM_TM_D2D };
	struct hpusim_tm_nic n = { .bytes = 1 };
	struct hpusim_tm_coll c = { .bytes = 1, .ranks = 8 };
	struct hpusim_tm_job job = { .kind = HPUSIM_TM_JOB_NR };
	uint64_t ns = SENTINEL;

	(void)state;
	assert_int_equal(hpusim_tm_gemm_ns(NULL, &ok, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_gemm_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_gemm_ns(g2, &ok, NULL), -EINVAL);
	g = ok, g.m = 0;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.n = 0;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.k = 0;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.batch = 0;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.engines = 3; /* Gaudi2 has 2 MMEs */
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.dtype = HPUSIM_TM_DTYPE_NR;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.dtype = (enum hpusim_tm_dtype) - 1;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.dtype_c = HPUSIM_TM_TF32;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.dtype_c = HPUSIM_TM_FP8;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -EINVAL);
	g = ok, g.dtype = HPUSIM_TM_FP8;
	assert_int_equal(hpusim_tm_gemm_ns(g1, &g, &ns), -EOPNOTSUPP);
	g = ok, g.dtype = HPUSIM_TM_TF32;
	assert_int_equal(hpusim_tm_gemm_ns(g1, &g, &ns), -EOPNOTSUPP);

	assert_int_equal(hpusim_tm_tpc_ns(NULL, &t, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_tpc_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_tpc_ns(g2, &t, NULL), -EINVAL);
	t.engines = 25;
	assert_int_equal(hpusim_tm_tpc_ns(g2, &t, &ns), -EINVAL);
	t.engines = 0;
	t.dtype = HPUSIM_TM_TF32; /* a matrix mode, no vector type */
	assert_int_equal(hpusim_tm_tpc_ns(g2, &t, &ns), -EINVAL);
	t.dtype = HPUSIM_TM_DTYPE_NR;
	assert_int_equal(hpusim_tm_tpc_ns(g2, &t, &ns), -EINVAL);
	t.dtype = HPUSIM_TM_FP8;
	assert_int_equal(hpusim_tm_tpc_ns(g1, &t, &ns), -EOPNOTSUPP);

	assert_int_equal(hpusim_tm_dma_ns(NULL, &d, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_dma_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_dma_ns(g2, &d, NULL), -EINVAL);
	d.engines = 11;
	assert_int_equal(hpusim_tm_dma_ns(g2, &d, &ns), -EINVAL);
	d.engines = 0;
	d.dir = HPUSIM_TM_DIR_NR;
	assert_int_equal(hpusim_tm_dma_ns(g2, &d, &ns), -EINVAL);
	d.dir = (enum hpusim_tm_dir) - 1;
	assert_int_equal(hpusim_tm_dma_ns(g2, &d, &ns), -EINVAL);

	assert_int_equal(hpusim_tm_nic_ns(NULL, &n, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_nic_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_nic_ns(g2, &n, NULL), -EINVAL);
	n.ports = 22; /* 21 scale-up ports */
	assert_int_equal(hpusim_tm_nic_ns(g2, &n, &ns), -EINVAL);
	n.ports = 4; /* 3 scale-out ports */
	n.scale_out = true;
	assert_int_equal(hpusim_tm_nic_ns(g2, &n, &ns), -EINVAL);

	assert_int_equal(hpusim_tm_coll_ns(NULL, &c, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_coll_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_coll_ns(g2, &c, NULL), -EINVAL);
	c.ranks = 0;
	assert_int_equal(hpusim_tm_coll_ns(g2, &c, &ns), -EINVAL);
	c.ranks = 12; /* more than a server, not whole servers */
	assert_int_equal(hpusim_tm_coll_ns(g2, &c, &ns), -EINVAL);
	c.ranks = 8;
	c.op = HPUSIM_TM_COLL_NR;
	assert_int_equal(hpusim_tm_coll_ns(g2, &c, &ns), -EINVAL);

	assert_int_equal(hpusim_tm_job_ns(g2, NULL, &ns), -EINVAL);
	assert_int_equal(hpusim_tm_job_ns(g2, &job, &ns), -EINVAL);

	/* too long to count in ns (2^63): the largest product there is */
	g = ok;
	g.m = g.n = g.k = g.batch = UINT32_MAX;
	assert_int_equal(hpusim_tm_gemm_ns(g2, &g, &ns), -ERANGE);
	/* the longest DMA still fits: 2^64 bytes over PCIe, 7e17 ns */
	d = (struct hpusim_tm_dma){ .bytes = UINT64_MAX, .dir = HPUSIM_TM_H2D };
	assert_int_equal(hpusim_tm_dma_ns(g2, &d, &ns), 0);
	assert_true(ns > 700000000000000000ULL);
	ns = SENTINEL;

	/* nothing was written through @ns */
	assert_true(ns == SENTINEL);
}

/* The tagged job gives what the function of its kind gives */
static void test_job_dispatch(void **state)
{
	const struct hpusim_tm_profile *g3 = prof("gaudi3");
	struct hpusim_tm_job job;
	uint64_t a, b;

	(void)state;
	job = (struct hpusim_tm_job){
		.kind = HPUSIM_TM_JOB_GEMM,
		.gemm = { .m = 1024,
			  .n = 1024,
			  .k = 1024,
			  .batch = 4,
			  .dtype = HPUSIM_TM_FP8,
			  .dtype_c = HPUSIM_TM_BF16,
			  .engines = 1 },
	};
	assert_int_equal(hpusim_tm_job_ns(g3, &job, &a), 0);
	assert_int_equal(a, gemm_ns(g3, job.gemm));
	job = (struct hpusim_tm_job){
		.kind = HPUSIM_TM_JOB_TPC,
		.tpc = { .elements = 1 << 20,
			 .ops_per_element = 3,
			 .bytes = 8 << 20,
			 .dtype = HPUSIM_TM_BF16,
			 .engines = 1 },
	};
	assert_int_equal(hpusim_tm_job_ns(g3, &job, &a), 0);
	assert_int_equal(a, tpc_ns(g3, job.tpc));
	job = (struct hpusim_tm_job){
		.kind = HPUSIM_TM_JOB_DMA,
		.dma = { .bytes = 3 << 20, .dir = HPUSIM_TM_D2H, .engines = 1 },
	};
	assert_int_equal(hpusim_tm_job_ns(g3, &job, &a), 0);
	assert_int_equal(a, dma_ns(g3, job.dma));
	job = (struct hpusim_tm_job){
		.kind = HPUSIM_TM_JOB_NIC,
		.nic = { .bytes = 1 << 20, .ports = 1 },
	};
	assert_int_equal(hpusim_tm_job_ns(g3, &job, &b), 0);
	assert_int_equal(b, nic_ns(g3, job.nic));
	/* the same arguments, the same answer */
	assert_int_equal(hpusim_tm_job_ns(g3, &job, &a), 0);
	assert_int_equal(a, b);
}

/* ------------------------------------------------------------ cited */

/* Every enforced published figure within its stated tolerance */
static void test_cited_figures(void **state)
{
	unsigned int i, enforced = 0;

	(void)state;
	assert_true(hpusim_tm_check_count() >= 4);
	for (i = 0; i < hpusim_tm_check_count(); i++) {
		const struct hpusim_tm_check *c = hpusim_tm_check_at(i);
		double model = NAN;

		assert_non_null(c);
		assert_non_null(hpusim_tm_profile_find(c->profile));
		assert_non_null(c->source);
		assert_true(c->published > 0 && c->tolerance > 0);
		assert_int_equal(hpusim_tm_check_eval(c, &model), 0);
		assert_false(isnan(model));
		if (!c->enforced)
			continue;
		enforced++;
		if (!hpusim_tm_check_within(c, model))
			fail_msg("%s on %s: model %.1f, published %.1f %s "
				 "(+-%.0f%%)",
				 c->figure, c->profile, model, c->published,
				 c->unit, c->tolerance * 100);
	}
	assert_true(enforced >= 4);
	assert_null(hpusim_tm_check_at(hpusim_tm_check_count()));
}

static void test_check_helpers(void **state)
{
	struct hpusim_tm_check c = *hpusim_tm_check_at(0);
	double model = 42.0;

	(void)state;
	assert_int_equal(hpusim_tm_check_eval(NULL, &model), -EINVAL);
	assert_int_equal(hpusim_tm_check_eval(&c, NULL), -EINVAL);
	c.profile = "gaudi9";
	assert_int_equal(hpusim_tm_check_eval(&c, &model), -EINVAL);
	c = *hpusim_tm_check_at(0);
	c.kind = (enum hpusim_tm_check_kind)99;
	assert_int_equal(hpusim_tm_check_eval(&c, &model), -EINVAL);
	assert_true(model == 42.0);

	c = *hpusim_tm_check_at(0);
	assert_true(hpusim_tm_check_within(&c, c.published));
	assert_true(hpusim_tm_check_within(&c, c.published * 1.04));
	assert_false(hpusim_tm_check_within(&c, c.published * 1.06));
	assert_false(hpusim_tm_check_within(&c, c.published * 0.94));
	assert_false(hpusim_tm_check_within(&c, NAN));
	assert_false(hpusim_tm_check_within(NULL, c.published));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_lookup),
		cmocka_unit_test(test_profile_figures),
		cmocka_unit_test(test_exact_values),
		cmocka_unit_test(test_gemm_monotonic),
		cmocka_unit_test(test_gemm_modes),
		cmocka_unit_test(test_dma_tpc_nic_monotonic),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_job_dispatch),
		cmocka_unit_test(test_cited_figures),
		cmocka_unit_test(test_check_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
