// SPDX-License-Identifier: MIT
/*
 * test_cs_faults.c - failure paths through libhpudrv against the real
 * hpu-fused: device full, contexts isolated from each other, page fault,
 * CS timeout and reset, WAIT submissions not timed out behind healthy
 * work, rejected packets, SIGKILL of a client with work in flight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_drv_cs.h"
#include "hpudrv.h"

#define MiB  (1024ULL * 1024)
#define GiB  (1024 * MiB)
/* Device 0: general; 1: filled up; 2: the killed client */
#define NDEV 3

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(NDEV, "gaudi");
}

static void test_alloc_until_full(void **state)
{
	struct hpu_info_dram_usage du;
	uint64_t handles[64];
	struct hpu_device *dev;
	int n = 0, ret = 0, i;

	(void)state;
	assert_int_equal(hpu_open(1, &dev), 0);
	while (n < 64) {
		ret = hpu_mem_alloc(dev, 1 * GiB, 0, 0, &handles[n]);
		if (ret)
			break;
		n++;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(n, 32); /* Gaudi: 32 GiB */
	assert_int_equal(hpu_info_dram_usage(dev, &du), 0);
	assert_int_equal(du.ctx_dram_mem, 32 * GiB);
	assert_int_equal(du.dram_free_mem, 0);
	/* a smaller one still fails: the device is full */
	assert_int_equal(hpu_mem_alloc(dev, 2 * MiB, 0, 0, &handles[n]),
			 -ENOMEM);
	for (i = 0; i < n; i++)
		assert_int_equal(hpu_mem_free(dev, handles[i]), 0);
	assert_int_equal(hpu_mem_free(dev, handles[0]), -EINVAL);
	assert_int_equal(hpu_info_dram_usage(dev, &du), 0);
	assert_int_equal(du.ctx_dram_mem, 0);
	assert_int_equal(du.dram_used_mem, 0);
	hpu_close(dev);
}

static void test_contexts_isolated(void **state)
{
	struct hpu_device *a, *b;
	struct hpu_cb_builder *cb;
	struct hpu_event ev[4];
	uint64_t ha, va, vb, hb, host_va;
	uint8_t *host;
	int n;

	(void)state;
	assert_int_equal(hpu_open(0, &a), 0);
	assert_int_equal(hpu_open(0, &b), 0);
	assert_int_equal(hpu_mem_alloc(a, 2 * MiB, 0, 0, &ha), 0);
	assert_int_equal(hpu_mem_map(a, ha, 0, 0, &va), 0);
	/* A's handle is unknown in B */
	assert_int_equal(hpu_mem_map(b, ha, 0, 0, &vb), -EINVAL);
	assert_int_equal(hpu_mem_free(b, ha), -EINVAL);
	assert_int_equal(hpu_mem_unmap(b, va), -EINVAL);

	/* A's VA faults in B: B's CS reading it is aborted */
	host = calloc(1, 4096);
	assert_non_null(host);
	assert_int_equal(hpu_mem_map_host(b, host, 4096, 0, 0, &host_va), 0);
	assert_int_equal(hpu_cb_builder_create(b, 4096, &cb), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, va, 4096), 0);
	hpu_test_drv_expect_status(b, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_ABORTED);
	n = hpu_event_read(b, ev, 4);
	assert_true(n >= 1);
	assert_int_equal(ev[0].type, HPU_EVENT_PAGE_FAULT);
	assert_int_equal(ev[0].addr, va);
	/* and A got no event */
	assert_int_equal(hpu_event_read(a, ev, 4), 0);

	/* B may allocate: its own handle, not A's allocation */
	assert_int_equal(hpu_mem_alloc(b, 2 * MiB, 0, 0, &hb), 0);
	assert_int_equal(hpu_mem_free(b, hb), 0);
	assert_int_equal(hpu_mem_unmap(a, va), 0);
	assert_int_equal(hpu_mem_free(a, ha), 0);
	hpu_cb_builder_destroy(cb);
	assert_int_equal(hpu_mem_unmap(b, host_va), 0);
	free(host);
	hpu_close(a);
	hpu_close(b);
}

static void test_page_fault(void **state)
{
	const uint64_t unmapped = 0x1000000000000ULL + 0xfff000000ULL;
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	struct hpu_event ev[4];
	uint64_t h, va, host_va;
	uint8_t *host;
	int n, i, found = 0;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	host = malloc(8192);
	assert_non_null(host);
	memset(host, 0x3c, 8192);
	assert_int_equal(hpu_mem_map_host(dev, host, 8192, 0, 0, &host_va), 0);
	assert_int_equal(hpu_mem_alloc(dev, 2 * MiB, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	/* read from an unmapped VA into the host buffer */
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, unmapped, 4096), 0);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_ABORTED);
	for (i = 0; i < 8192; i++)
		if (host[i] != 0x3c)
			fail_msg("host byte %d written by a faulting CS", i);
	n = hpu_event_read(dev, ev, 4);
	for (i = 0; i < n; i++)
		if (ev[i].type == HPU_EVENT_PAGE_FAULT &&
		    ev[i].addr == unmapped)
			found = 1;
	assert_true(found);
	/* the device still works for this context */
	assert_int_equal(hpu_cb_memset(cb, va, 4096, 0x11, 1), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, va, 4096), 0);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 0, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(host[0], 0x11);
	assert_int_equal(host[4096], 0x3c);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
	free(host);
}

/* The device still runs work of @dev: a MEMSET then a DMA to the host */
static void check_dma_works(struct hpu_device *dev)
{
	struct hpu_cb_builder *cb;
	uint64_t h, va, host_va;
	uint32_t *host;

	host = calloc(1, 4096);
	assert_non_null(host);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_mem_map_host(dev, host, 4096, 0, 0, &host_va), 0);
	assert_int_equal(hpu_mem_alloc(dev, 2 * MiB, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	assert_int_equal(hpu_cb_memset(cb, va, 4096, 0xcafef00d, 4), 0);
	assert_int_equal(hpu_cb_lin_dma(cb, host_va, va, 4096), 0);
	hpu_test_drv_expect_status(dev, hpu_test_drv_submit(cb, 1, 0),
				   HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(host[0], 0xcafef00d);
	assert_int_equal(host[1023], 0xcafef00d);
	assert_int_equal(hpu_mem_unmap(dev, host_va), 0);
	assert_int_equal(hpu_mem_unmap(dev, va), 0);
	assert_int_equal(hpu_mem_free(dev, h), 0);
	hpu_cb_builder_destroy(cb);
	free(host);
}

static void test_cs_timeout(void **state)
{
	struct hpu_info_reset_count before, after;
	struct hpu_info_cs_counters cnt;
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	struct hpu_event ev[4];
	uint64_t seq;
	int n, i, found = 0;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_reset_count(dev, &before), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_cb_fence(cb, 99, 1, 1), 0);
	seq = hpu_test_drv_submit(cb, 1, 200);
	hpu_test_drv_expect_status(dev, seq, HPU_WAIT_CS_STATUS_TIMEDOUT);
	assert_int_equal(hpu_info_reset_count(dev, &after), 0);
	assert_true(after.soft_reset_cnt > before.soft_reset_cnt);
	assert_int_equal(hpu_info_cs_counters(dev, &cnt), 0);
	assert_true(cnt.ctx_timedout_cnt >= 1);
	n = hpu_event_read(dev, ev, 4);
	for (i = 0; i < n; i++)
		if (ev[i].type == HPU_EVENT_CS_TIMEOUT && ev[i].seq == seq)
			found = 1;
	assert_true(found);

	/* a new DMA on the same queue works */
	check_dma_works(dev);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
}

/* Daemon of test_wait_not_timed_out, stopped by its teardown */
static struct hpu_test_daemon short_daemon;
static char *group_dev_dir;

static int short_daemon_setup(void **state)
{
	static const char *const extra[] = { "--cs-timeout-ms", "300", NULL };
	int ret = hpu_test_need_daemon(state);

	if (ret)
		return ret;
	if (getenv("HPU_DEV_DIR"))
		group_dev_dir = strdup(getenv("HPU_DEV_DIR"));
	return hpu_test_daemon_start(&short_daemon, 1, "gaudi", extra);
}

static int short_daemon_teardown(void **state)
{
	int ret = 0;

	(void)state;
	if (short_daemon.pid > 0)
		ret = hpu_test_daemon_stop(&short_daemon);
	short_daemon.pid = 0;
	if (group_dev_dir) {
		setenv("HPU_DEV_DIR", group_dev_dir, 1);
		free(group_dev_dir);
		group_dev_dir = NULL;
	}
	return ret;
}

/*
 * A WAIT submission has no timer of its own: behind a long, healthy CS it
 * outlives the daemon's default timeout (300 ms here), which still ends a
 * normal CS submitted without a timeout.
 */
static void test_wait_not_timed_out(void **state)
{
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	uint64_t long_seq, wait_seq, plain_seq, rel_seq;
	uint32_t status;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);

	assert_int_equal(hpu_cb_fence(cb, 97, 1, 1), 0);
	long_seq = hpu_test_drv_submit(cb, 1, 20000);
	assert_int_equal(
		hpu_cs_submit_wait(dev, 2, &long_seq, 1, &wait_seq, NULL), 0);
	assert_int_equal(hpu_cb_fence(cb, 96, 1, 1), 0);
	plain_seq = hpu_test_drv_submit(cb, 3, 0);

	/* the plain CS gets the daemon's 300 ms; the WAIT keeps waiting */
	hpu_test_drv_expect_status(dev, plain_seq, HPU_WAIT_CS_STATUS_TIMEDOUT);
	hpu_test_sleep_ms(600);
	assert_int_equal(hpu_cs_wait(dev, wait_seq, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	/* releasing the long CS ends both */
	assert_int_equal(hpu_cb_msg_long(cb, 97, HPU_MSG_OP_ADD, 1), 0);
	rel_seq = hpu_test_drv_submit(cb, 4, 0);
	hpu_test_drv_expect_status(dev, rel_seq, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, long_seq, HPU_WAIT_CS_STATUS_COMPLETED);
	hpu_test_drv_expect_status(dev, wait_seq, HPU_WAIT_CS_STATUS_COMPLETED);

	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
}

static void test_bad_packet_rejected(void **state)
{
	struct hpu_info_cs_counters cnt;
	struct hpu_cs_chunk chunk;
	struct hpu_device *dev;
	uint64_t buf[4] = { 0 }, handle, seq;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	/* an unknown opcode */
	buf[0] = 0x7f | (8ULL << 16);
	assert_int_equal(hpu_cb_create(dev, buf, sizeof(buf), &handle, NULL),
			 0);
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = handle;
	chunk.cb_size = 8;
	assert_int_equal(hpu_cs_submit(dev, &chunk, 1, 0, 0, &seq, NULL),
			 -EINVAL);
	assert_int_equal(hpu_info_cs_counters(dev, &cnt), 0);
	assert_int_equal(cnt.ctx_parsing_drop_cnt, 1);
	assert_int_equal(cnt.ctx_submitted, 0);
	assert_int_equal(hpu_cb_destroy(dev, handle), 0);
	assert_int_equal(hpu_cb_destroy(dev, handle), -EINVAL);
	hpu_close(dev);
}

/* The child: memory, 64 MiB, a fence-blocked CS and more behind it. */
static void killed_child(int fd)
{
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	uint64_t h, va, host_va, seq;
	uint8_t *host;
	int i;

	if (hpu_open(2, &dev) || hpu_cb_builder_create(dev, 4096, &cb))
		_exit(1);
	host = calloc(1, MiB);
	if (!host || hpu_mem_map_host(dev, host, MiB, 0, 0, &host_va) ||
	    hpu_mem_alloc(dev, 64 * MiB, 0, 0, &h) ||
	    hpu_mem_map(dev, h, 0, 0, &va))
		_exit(1);
	if (hpu_cb_fence(cb, 1, 1, 1) ||
	    hpu_cb_builder_submit(cb, 0, 0, 60000, &seq, NULL))
		_exit(1);
	for (i = 0; i < 16; i++) {
		hpu_cb_builder_reset(cb);
		if (hpu_cb_lin_dma(cb, va, host_va, MiB) ||
		    hpu_cb_builder_submit(cb, (uint32_t)(i % 2), 0, 60000, &seq,
					  NULL))
			_exit(1);
	}
	if (write(fd, "r", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* stdout of hpu-smi with @args (NULL-terminated, at most 7) */
static char *smi(const char *const *args)
{
	char *argv[9] = { (char *)hpu_test_bin("hpu-smi") };
	char *out = NULL;
	int status, i;

	for (i = 0; args[i] && i < 7; i++)
		argv[i + 1] = (char *)args[i];
	assert_int_equal(hpu_test_run(argv, &out, &status), 0);
	assert_int_equal(status, 0);
	assert_non_null(out);
	return out;
}

static const char *const smi_used[] = {
	"-i", "2", "-Q", "memory.used", "-f", "csv,noheader,nounits", NULL
};
static const char *const smi_table[] = { "-i", "2", NULL };

static void test_sigkill_client(void **state)
{
	char *used, *table, c;
	int p[2], i, clean = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		killed_child(p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	used = smi(smi_used);
	assert_int_equal(atoi(used), 64);
	free(used);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* RELEASE comes asynchronously after the process is gone: poll */
	for (i = 0; i < 100 && !clean; i++) {
		used = smi(smi_used);
		table = smi(smi_table);
		clean = atoi(used) == 0 &&
			strstr(table, "No running processes found");
		free(used);
		free(table);
		if (!clean)
			hpu_test_sleep_ms(100);
	}
	assert_true(clean);
}

/* Each thread of the busy child: DMA CSs as fast as they go */
static void *busy_submitter(void *arg)
{
	struct hpu_device *dev = arg;
	struct hpu_cb_builder *cb;
	uint64_t h, va, host_va, seq;
	uint8_t *host = calloc(1, MiB);

	if (!host || hpu_cb_builder_create(dev, 4096, &cb) ||
	    hpu_mem_map_host(dev, host, MiB, 0, 0, &host_va) ||
	    hpu_mem_alloc(dev, 8 * MiB, 0, 0, &h) ||
	    hpu_mem_map(dev, h, 0, 0, &va))
		_exit(1);
	for (;;) {
		hpu_cb_builder_reset(cb);
		if (hpu_cb_lin_dma(cb, va, host_va, MiB) ||
		    hpu_cb_builder_submit(cb, 0, 0, 60000, &seq, NULL))
			hpu_test_sleep_ms(1); /* -EAGAIN when 1024 in flight */
	}
	return NULL;
}

/* SIGKILL while two threads submit without pause: all is returned and
 * the daemon keeps serving others */
static void test_sigkill_during_submission(void **state)
{
	struct hpu_info_dram_usage du;
	struct hpu_device *dev, *ctl;
	pthread_t t[2];
	int p[2], i;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		if (hpu_open(1, &dev))
			_exit(1);
		for (i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, busy_submitter, dev))
				_exit(1);
		hpu_test_sleep_ms(200);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	hpu_test_sleep_ms(100);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);

	assert_int_equal(hpu_open_control(1, &ctl), 0);
	for (i = 0; i < 200; i++) {
		assert_int_equal(hpu_info_dram_usage(ctl, &du), 0);
		if (!du.dram_used_mem)
			break;
		hpu_test_sleep_ms(50);
	}
	assert_int_equal(du.dram_used_mem, 0);
	hpu_close(ctl);
	/* another client still gets its work done on the same device */
	assert_int_equal(hpu_open(1, &dev), 0);
	check_dma_works(dev);
	hpu_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_alloc_until_full,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_contexts_isolated,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_page_fault, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_cs_timeout, hpu_test_need_daemon),
		cmocka_unit_test_setup_teardown(test_wait_not_timed_out,
						short_daemon_setup,
						short_daemon_teardown),
		cmocka_unit_test_setup(test_bad_packet_rejected,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_sigkill_client,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_sigkill_during_submission,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
