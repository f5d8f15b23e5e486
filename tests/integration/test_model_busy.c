// SPDX-License-Identifier: MIT
/*
 * test_model_busy.c - the modeled busy time of a device (hpu-fused
 * --timing-model, firmware interface 1.6; docs/hpu-smi.md): an idle
 * device counts nothing and shows its idle power; a known GEMM adds
 * exactly its trace event's model_ns to the MME count (and a DMA to the
 * DMA count), utilization stays within 0..100 and the power within the
 * profile's idle..max; the attribute cannot be written; a daemon without
 * the option answers ENODATA; the model's operations reject bad
 * arguments; hpu-smi shows the modeled figures and their source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_engine.h"
#include "hpu_gemm_pkt.h"
#include "hpudrv.h"
#include "hpusim.h"

#define SPAN (256 * 1024)

/* Gaudi2's profile (firmware-sim/profiles.c) */
#define G2_IDLE_MW 87000U
#define G2_MAX_MW  600000U

static struct hpu_test_engine fx;

/**
 * struct busy - the model_busy attribute
 * @util: utilization
 * @power_mw: power
 * @ns: dma, mme, tpc, nic
 * @jobs: jobs
 */
struct busy {
	unsigned long long util;
	unsigned long long power_mw;
	unsigned long long ns[4];
	unsigned long long jobs;
};

static void parse_busy(const char *buf, struct busy *b)
{
	static const char *const keys[] = { "dma_ns", "mme_ns", "tpc_ns",
					    "nic_ns" };
	unsigned long long v;
	char key[32];
	const char *p;
	int n, i, seen = 0;

	memset(b, 0, sizeof(*b));
	for (p = buf; sscanf(p, "%31s %llu%n", key, &v, &n) == 2; p += n) {
		seen++;
		if (!strcmp(key, "utilization"))
			b->util = v;
		else if (!strcmp(key, "power_mw"))
			b->power_mw = v;
		else if (!strcmp(key, "jobs"))
			b->jobs = v;
		for (i = 0; i < 4; i++)
			if (!strcmp(key, keys[i]))
				b->ns[i] = v;
	}
	/* utilization power_mw window_ms window_busy_ns 4 counts jobs */
	assert_int_equal(seen, 9);
}

static void read_busy(struct busy *b)
{
	char buf[512];

	assert_int_equal(
		hpu_device_read_attr(0, "model_busy", buf, sizeof(buf)), 0);
	parse_busy(buf, b);
	assert_true(b->util <= 100);
	assert_true(b->power_mw >= G2_IDLE_MW && b->power_mw <= G2_MAX_MW);
}

static int group_setup(void **state)
{
	static const char *const extra[] = { "--timing-model", NULL };

	(void)state;
	return hpu_test_group_start_args(1, "gaudi2", extra);
}

static int setup(void **state)
{
	return hpu_test_engine_setup(&fx, state, 4096, SPAN);
}

static int teardown(void **state)
{
	(void)state;
	hpu_test_engine_close_traced(&fx);
	return 0;
}

/* Runs first: nothing ran on the device yet */
static void test_idle(void **state)
{
	struct busy b;
	int i;

	(void)state;
	read_busy(&b);
	for (i = 0; i < 4; i++)
		assert_int_equal(b.ns[i], 0);
	assert_int_equal(b.jobs, 0);
	assert_int_equal(b.util, 0);
	assert_int_equal(b.power_mw, G2_IDLE_MW);
}

/* A known GEMM and a DMA: each count grows by its event's model_ns */
static void test_known_jobs(void **state)
{
	struct hpu_pkt_mme_gemm g;
	struct hpu_trace_event ev[4];
	struct hpu_trace_out st;
	struct busy b0, b1, b2;

	(void)state;
	g = hpu_gemm_pkt(fx.hbm_va, fx.hbm_va + 64 * 1024,
			 fx.hbm_va + 128 * 1024, 64, 48, 96, HPU_DTYPE_FP32,
			 HPU_DTYPE_FP32);

	assert_int_equal(hpu_trace_start(fx.dev, 64), 0);
	read_busy(&b0);
	assert_int_equal(hpu_cb_mme_gemm(fx.cb, &g), 0);
	assert_int_equal(hpu_test_engine_run(&fx, fx.ip.num_dma),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	read_busy(&b1);
	assert_int_equal(hpu_trace_read(fx.dev, ev, 4, &st), 1);
	assert_int_equal(ev[0].kind, HPU_TRACE_KIND_GEMM);
	assert_true(ev[0].model_ns > 0);
	print_message("GEMM 64x48x96 fp32: model_ns %llu\n",
		      (unsigned long long)ev[0].model_ns);
	assert_int_equal(b1.ns[1] - b0.ns[1], ev[0].model_ns);
	assert_int_equal(b1.ns[0], b0.ns[0]);
	assert_int_equal(b1.ns[2], b0.ns[2]);
	assert_int_equal(b1.ns[3], b0.ns[3]);
	assert_int_equal(b1.jobs, b0.jobs + 1);

	assert_int_equal(hpu_cb_lin_dma(fx.cb, fx.hbm_va, fx.host_va, 65536),
			 0);
	assert_int_equal(hpu_test_engine_run(&fx, 0),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	read_busy(&b2);
	assert_int_equal(hpu_trace_read(fx.dev, ev, 4, &st), 1);
	assert_int_equal(ev[0].kind, HPU_TRACE_KIND_DMA);
	assert_int_equal(b2.ns[0] - b1.ns[0], ev[0].model_ns);
	assert_int_equal(b2.ns[1], b1.ns[1]);
	assert_int_equal(b2.jobs, b1.jobs + 1);
}

/* Read-only: a write is refused and changes nothing */
static void test_write_refused(void **state)
{
	struct hpu_device_info info;
	struct busy b0, b1;
	char path[4200];
	int fd;

	(void)state;
	assert_int_equal(hpu_device_get_info(0, &info), 0);
	snprintf(path, sizeof(path), "%s/model_busy", info.attr_dir);
	read_busy(&b0);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		assert_true(write(fd, "0\n", 2) < 0);
		close(fd);
	} else {
		assert_true(errno == EACCES || errno == EPERM ||
			    errno == EROFS);
	}
	read_busy(&b1);
	assert_int_equal(b1.jobs, b0.jobs);
	assert_int_equal(b1.ns[1], b0.ns[1]);
}

/* hpu-smi: the modeled figures, and which source they come from */
static void test_smi(void **state)
{
	char *const argv[] = { (char *)hpu_test_bin("hpu-smi"),
			       "--query-hpu=index,utilization.aip,power.draw,"
			       "utilization.source,busy.modeled.mme",
			       "--format=csv,noheader,nounits", NULL };
	char *const qargv[] = { (char *)hpu_test_bin("hpu-smi"), "-q", "-i",
				"0", NULL };
	char *out = NULL;
	int status = -1;
	unsigned int idx;
	double util, watts, mme;
	char src[16];

	(void)state;
	assert_int_equal(hpu_test_run(argv, &out, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(sscanf(out, "%u, %lf, %lf, %15[a-z], %lf", &idx, &util,
				&watts, src, &mme),
			 5);
	assert_string_equal(src, "modeled");
	assert_true(util >= 0 && util <= 100);
	assert_true(watts >= G2_IDLE_MW / 1000.0 &&
		    watts <= G2_MAX_MW / 1000.0);
	free(out);
	out = NULL;
	assert_int_equal(hpu_test_run(qargv, &out, &status), 0);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "Source                      : modeled"));
	assert_non_null(strstr(out, "Modeled MME Busy"));
	free(out);
}

/* A daemon without --timing-model: ENODATA, and hpu-smi says measured */
static void test_off(void **state)
{
	struct hpu_test_daemon d;
	char *saved = getenv("HPU_DEV_DIR") ? strdup(getenv("HPU_DEV_DIR")) :
					      NULL;
	char smi[4096], buf[256], *out = NULL;
	char *const argv[] = { smi,
			       "--query-hpu=utilization.source,"
			       "busy.modeled.mme",
			       "--format=csv,noheader", NULL };
	int status = -1;

	(void)state;
	/* hpu_test_bin()'s buffer is static: the daemon's start reuses it */
	snprintf(smi, sizeof(smi), "%s", hpu_test_bin("hpu-smi"));
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", NULL), 0);
	assert_int_equal(hpu_device_read_attr(0, "model_busy", buf,
					      sizeof(buf)),
			 -ENODATA);
	assert_int_equal(hpu_test_run(argv, &out, &status), 0);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "measured, [N/A]"));
	free(out);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	if (saved) {
		setenv("HPU_DEV_DIR", saved, 1);
		free(saved);
	}
}

/* The model's operations: bad arguments, off, a chip without figures */
static void test_fw_ops(void **state)
{
	const struct hpu_fw_ops *o = hpusim_model.ops;
	struct hpu_fw_config cfg = {
		.profile = hpu_fw_find_profile(&hpusim_model, "gaudi2"),
	};
	struct hpu_fw_device *dev = NULL;
	struct hpu_fw_model_busy mb;

	(void)state;
	assert_non_null(cfg.profile);
	assert_int_equal(o->create(&cfg, &dev), 0);
	memset(&mb, 0x5a, sizeof(mb));
	assert_int_equal(o->model_busy(dev, 1000, &mb), -ENODATA);
	assert_int_equal(mb.jobs, 0x5a5a5a5a5a5a5a5aULL); /* untouched */
	assert_int_equal(o->model_busy_enable(dev, true), 0);
	assert_int_equal(o->model_busy(dev, 99, &mb), -EINVAL);
	assert_int_equal(o->model_busy(dev, 1001, &mb), -EINVAL);
	assert_int_equal(o->model_busy(dev, 1000, NULL), -EINVAL);
	assert_int_equal(o->model_busy(NULL, 1000, &mb), -EINVAL);
	assert_int_equal(o->model_busy_enable(NULL, true), -EINVAL);
	assert_int_equal(o->model_busy(dev, 100, &mb), 0);
	assert_int_equal(mb.jobs, 0);
	assert_int_equal(mb.utilization, 0);
	assert_int_equal(mb.power_mw, G2_IDLE_MW);
	assert_int_equal(mb.window_ns, 100000000ULL);
	assert_int_equal(o->model_busy_enable(dev, false), 0);
	assert_int_equal(o->model_busy(dev, 1000, &mb), -ENODATA);
	o->destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_jobs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_smi, setup, teardown),
		cmocka_unit_test(test_fw_ops),
		cmocka_unit_test_setup(test_off, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
