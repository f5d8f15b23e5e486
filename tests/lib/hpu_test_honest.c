// SPDX-License-Identifier: MIT
/*
 * hpu_test_honest.c - the honest client of the stress tests
 * (hpu_test_honest.h): INFO, DMA round trips through pinned and ordinary
 * host memory, and GEMMs on the MME, each checked and timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_gemm_pkt.h"
#include "hpu_test_honest.h"
#include "hpu_test_rng.h"
#include "hpu_test_util.h"

#define KiB	 1024UL
/* Honest client memory: DMA source and destination, GEMM operands */
#define DMA_MAX	 (64 * KiB - 64)
#define SRC_OFF	 0
#define DST_OFF	 (64 * KiB)
#define GEMM_OFF (128 * KiB)
#define SPAN	 (256 * KiB)
#define GM	 32
#define GN	 24
#define GK	 40
#define A_OFF	 0
#define B_OFF	 (GM * GK * 4)
#define C_OFF	 (B_OFF + GK * GN * 4)
#define G_SIZE	 (C_OFF + GM * GN * 4)

const char *const hpu_test_honest_op_names[HPU_TEST_HONEST_NOPS] = { "INFO",
								     "DMA",
								     "GEMM" };

struct honest {
	int slot;
	long bound_ms;
	struct hpu_test_honest_report *r;
	const int *stop;
	struct hpu_test_rng rng;
	struct hpu_device *dev;
	struct hpu_info_hw_ip_info ip;
	struct hpu_cb_builder *cb;
	uint8_t *host, *plain;
	uint64_t host_va, hbm_h, hbm_va;
	unsigned int iter;
};

static int fail_op(struct honest *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail_op(struct honest *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->r->failed)
		return -1;
	n = snprintf(c->r->err, sizeof(c->r->err), "honest %d: ", c->slot);
	va_start(ap, fmt);
	vsnprintf(c->r->err + n, sizeof(c->r->err) - n, fmt, ap);
	va_end(ap);
	__atomic_store_n(&c->r->failed, 1, __ATOMIC_RELEASE);
	return -1;
}

static bool stop_asked(const struct honest *c)
{
	return __atomic_load_n(c->stop, __ATOMIC_RELAXED) != 0;
}

/* Submit the builder's packets on @queue and wait (at most the bound) */
static int run_cb(struct honest *c, uint32_t queue, const char *what)
{
	uint32_t status = 0;
	uint64_t seq;
	int ret;

	ret = hpu_cb_builder_submit(c->cb, queue, 0, 0, &seq, NULL);
	hpu_cb_builder_reset(c->cb);
	if (ret)
		return fail_op(c, "%s: submit on queue %u: %s", what, queue,
			       strerror(-ret));
	ret = hpu_cs_wait(c->dev, seq, (uint64_t)c->bound_ms * 1000, &status);
	if (ret)
		return fail_op(c, "%s: wait for CS %llu: %s", what,
			       (unsigned long long)seq, strerror(-ret));
	if (status == HPU_WAIT_CS_STATUS_BUSY)
		return fail_op(c, "%s: CS on queue %u not done after %ld ms",
			       what, queue, c->bound_ms);
	if (status != HPU_WAIT_CS_STATUS_COMPLETED)
		return fail_op(c, "%s: CS on queue %u ended with status %u",
			       what, queue, status);
	return 0;
}

static void fill(struct honest *c, uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)hpu_test_rng_next(&c->rng);
}

static int op_info(struct honest *c)
{
	struct hpu_info_device_status ds;
	struct hpu_info_dram_usage du;
	struct hpu_info_hw_ip_info ip;
	int ret;

	ret = hpu_info_hw_ip(c->dev, &ip);
	if (ret)
		return fail_op(c, "INFO HW_IP: %s", strerror(-ret));
	if (memcmp(&ip, &c->ip, sizeof(ip)))
		return fail_op(c, "INFO HW_IP: answer changed");
	ret = hpu_info_device_status(c->dev, &ds);
	if (ret || ds.status != HPU_DEVICE_STATUS_OPERATIONAL)
		return fail_op(c, "INFO DEVICE_STATUS: %s, status %u",
			       strerror(-ret), ds.status);
	ret = hpu_info_dram_usage(c->dev, &du);
	if (ret || du.ctx_dram_mem < SPAN)
		return fail_op(c, "INFO DRAM_USAGE: %s, ctx_dram_mem %llu",
			       strerror(-ret),
			       (unsigned long long)du.ctx_dram_mem);
	return 0;
}

static uint32_t dma_queue(struct honest *c)
{
	return (uint32_t)(c->slot + c->iter) % c->ip.num_dma;
}

/*
 * Host to device to host. Every other time through ordinary memory mapped
 * for the operation (MAP|USERPTR, then UNMAP), else pinned memory.
 */
static int op_dma(struct honest *c)
{
	bool plain = (c->iter / HPU_TEST_HONEST_NOPS) % 2;
	size_t size = 1 + hpu_test_rng_below(&c->rng, DMA_MAX);
	size_t off = hpu_test_rng_below(&c->rng, 64);
	uint8_t *mem = plain ? c->plain : c->host;
	uint32_t q = dma_queue(c);
	uint64_t va = c->host_va;
	int ret;

	if (plain) {
		ret = hpu_mem_map_host(c->dev, mem, 128 * KiB, 0, 0, &va);
		if (ret)
			return fail_op(c, "host map of ordinary memory: %s",
				       strerror(-ret));
	}
	fill(c, mem + SRC_OFF + off, size);
	memset(mem + DST_OFF, 0, 64 * KiB);
	if (hpu_cb_lin_dma(c->cb, c->hbm_va + off, va + SRC_OFF + off, size) ||
	    run_cb(c, q, "DMA host to device"))
		return fail_op(c, "DMA host to device");
	if (hpu_cb_lin_dma(c->cb, va + DST_OFF + off, c->hbm_va + off, size) ||
	    run_cb(c, (q + 1) % c->ip.num_dma, "DMA device to host"))
		return fail_op(c, "DMA device to host");
	if (memcmp(mem + DST_OFF + off, mem + SRC_OFF + off, size))
		return fail_op(c, "DMA round trip of %zu bytes%s: data differs",
			       size, plain ? " (ordinary memory)" : "");
	if (plain) {
		ret = hpu_mem_unmap(c->dev, va);
		if (ret)
			return fail_op(c, "unmap of ordinary memory: %s",
				       strerror(-ret));
	}
	return 0;
}

static int op_gemm(struct honest *c)
{
	float *a = (float *)(c->host + GEMM_OFF + A_OFF);
	float *b = (float *)(c->host + GEMM_OFF + B_OFF);
	float *out = (float *)(c->host + GEMM_OFF + C_OFF);
	struct hpu_cb_builder *keep = c->cb;
	struct hpu_pkt_mme_gemm g;
	uint32_t q = dma_queue(c);
	int i, j, k, ret;

	for (i = 0; i < GM * GK; i++)
		a[i] = (float)(int)hpu_test_rng_below(&c->rng, 2001) / 1000 - 1;
	for (i = 0; i < GK * GN; i++)
		b[i] = (float)(int)hpu_test_rng_below(&c->rng, 2001) / 1000 - 1;
	memset(out, 0xff, GM * GN * 4);
	g = hpu_gemm_pkt(c->hbm_va + A_OFF, c->hbm_va + B_OFF,
			 c->hbm_va + C_OFF, GM, GN, GK, HPU_DTYPE_FP32,
			 HPU_DTYPE_FP32);
	if (hpu_cb_lin_dma(c->cb, c->hbm_va, c->host_va + GEMM_OFF, C_OFF) ||
	    run_cb(c, q, "GEMM operands to device"))
		return fail_op(c, "GEMM operands to device");
	/* the GEMM in a CB of its own, made for it */
	ret = hpu_cb_builder_create(c->dev, 4096, &c->cb);
	if (ret) {
		c->cb = keep;
		return fail_op(c, "GEMM: CB create: %s", strerror(-ret));
	}
	if (hpu_cb_mme_gemm(c->cb, &g) ||
	    run_cb(c, c->ip.num_dma + (uint32_t)c->slot % c->ip.num_mme,
		   "GEMM"))
		return fail_op(c, "GEMM");
	hpu_cb_builder_destroy(c->cb);
	c->cb = keep;
	if (hpu_cb_lin_dma(c->cb, c->host_va + GEMM_OFF + C_OFF,
			   c->hbm_va + C_OFF, GM * GN * 4) ||
	    run_cb(c, q, "GEMM result to host"))
		return fail_op(c, "GEMM result to host");
	for (i = 0; i < GM; i++)
		for (j = 0; j < GN; j++) {
			double s = 0, sa = 0, got = out[i * GN + j];

			for (k = 0; k < GK; k++) {
				s += (double)a[i * GK + k] * b[k * GN + j];
				sa += fabs((double)a[i * GK + k] *
					   b[k * GN + j]);
			}
			if (!(fabs(got - s) <= 1e-5 * (GK + 1) * sa + 1e-30))
				return fail_op(c,
					       "GEMM C[%d][%d] = %g, want %g",
					       i, j, got, s);
		}
	return 0;
}

static int (*const ops[HPU_TEST_HONEST_NOPS])(struct honest *c) = { op_info,
								    op_dma,
								    op_gemm };

static int honest_open(struct honest *c)
{
	int ret;

	ret = hpu_open(0, &c->dev);
	if (ret)
		return fail_op(c, "open: %s", strerror(-ret));
	ret = hpu_info_hw_ip(c->dev, &c->ip);
	if (!ret && (!c->ip.num_dma || !c->ip.num_mme))
		ret = -ENODEV;
	if (ret)
		return fail_op(c, "HW_IP: %s", strerror(-ret));
	ret = hpu_cb_builder_create(c->dev, 4096, &c->cb);
	if (ret)
		return fail_op(c, "CB builder: %s", strerror(-ret));
	ret = hpu_host_alloc(c->dev, SPAN, (void **)&c->host, &c->host_va);
	if (ret)
		return fail_op(c, "pinned host memory: %s", strerror(-ret));
	c->plain = aligned_alloc(4096, 128 * KiB);
	if (!c->plain)
		return fail_op(c, "out of memory");
	ret = hpu_mem_alloc(c->dev, SPAN, 0, 0, &c->hbm_h);
	if (!ret)
		ret = hpu_mem_map(c->dev, c->hbm_h, 0, 0, &c->hbm_va);
	if (ret)
		return fail_op(c, "device memory: %s", strerror(-ret));
	return 0;
}

void hpu_test_honest_main(struct hpu_test_honest_report *r, const int *stop,
			  int slot, long bound_ms, unsigned int max_ops,
			  uint64_t seed)
{
	struct honest c = { .slot = slot, .bound_ms = bound_ms };
	long t0, dt;
	int op;

	c.r = r;
	c.stop = stop;
	hpu_test_rng_seed(&c.rng, seed);
	t0 = hpu_test_now_ms();
	if (honest_open(&c))
		_exit(1);
	dt = hpu_test_now_ms() - t0;
	if (dt > bound_ms) {
		fail_op(&c, "set-up took %ld ms, bound %ld ms", dt, bound_ms);
		_exit(1);
	}
	for (c.iter = 0;
	     c.iter < max_ops && (max_ops != ~0U || !stop_asked(&c));
	     c.iter++) {
		op = (int)(c.iter % HPU_TEST_HONEST_NOPS);
		t0 = hpu_test_now_ms();
		if (ops[op](&c))
			_exit(1);
		dt = hpu_test_now_ms() - t0;
		if (dt > c.r->max_ms[op])
			c.r->max_ms[op] = dt;
		if (dt > bound_ms) {
			fail_op(&c, "%s took %ld ms, bound %ld ms",
				hpu_test_honest_op_names[op], dt, bound_ms);
			_exit(1);
		}
		c.r->ops[op]++;
	}
	/* the release frees the rest */
	hpu_close(c.dev);
	_exit(0);
}
