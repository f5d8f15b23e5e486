// SPDX-License-Identifier: MIT
/*
 * test_ring_kill.c - SIGKILL of ring clients with work in flight, through
 * the real hpu-fused (docs/rings.md, "Teardown"): 100 clients, each with
 * device memory, a CB and a ring whose SQ it keeps full, killed at
 * random moments. Afterwards no ring is mapped in the daemon, the device
 * memory in use is 0, and the daemon's descriptors and RSS are where
 * they were (RSS not under AddressSanitizer, whose quarantine keeps freed
 * memory: LeakSanitizer checks the daemon at its stop there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_ring.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"

#define KILLS	     100
#define WARMUP	     10
#define DRAM_BYTES   (2ULL << 20)
/* RSS growth allowed over 100 clients: allocator caches, not leaks */
#define RSS_SLACK_KB (16 * 1024)

/* Mappings of the daemon whose name contains "test_ring" (our memfds) */
static int daemon_ring_maps(void)
{
	long n = hpu_test_maps_matching(hpu_test_shared.pid, "memfd:test_ring");

	assert_true(n >= 0);
	return (int)n;
}

static int daemon_fds(void)
{
	long n = hpu_test_fds_of(hpu_test_shared.pid);

	assert_true(n >= 0);
	return (int)n;
}

static long daemon_rss_kb(void)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status",
		 (int)hpu_test_shared.pid);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	assert_true(kb > 0);
	return kb;
}

/* HBM in use on device 0, all contexts */
static uint64_t dram_used(void)
{
	struct hpu_info_dram_usage u = { 0 };
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&u,
				   .return_size = sizeof(u),
				   .op = HPU_INFO_DRAM_USAGE };
	int fd = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);

	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	close(fd);
	return u.dram_used_mem;
}

/* Wait (bounded) until nothing of the killed clients is left */
static void wait_clean(int fds)
{
	uint64_t end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;

	/* RELEASE is asynchronous: the teardown follows the exit a bit later */
	while (daemon_ring_maps() || dram_used() ||
	       (fds >= 0 && daemon_fds() > fds)) {
		if (hpu_test_ring_now_ns() > end)
			fail_msg(
				"after the kills: %d rings mapped, %llu bytes of HBM used, %d fds (%d before)",
				daemon_ring_maps(),
				(unsigned long long)dram_used(), daemon_fds(),
				fds);
		hpu_test_sleep_ms(5);
	}
}

/* The client: memory, a CB, a ring kept full; tells @ready, never ends */
static void client(int ready, unsigned int k)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = DRAM_BYTES } };
	struct hpu_test_ring r;
	struct hpu_cs_chunk c;
	int fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0);
	unsigned int i;

	if (fd < 0 || hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m) ||
	    hpu_test_ring_register(fd, &r, 64, 64))
		_exit(1);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), k % 2,
				sizeof(struct hpu_pkt_nop));
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (i = 0;; i++) {
		/* keep the SQ full, read the CQ only now and then */
		if (r.hdr->sq_tail - r.hdr->sq_head < 60) {
			hpu_test_ring_append(&r, i, 0, &c, 1);
			hpu_test_ring_publish(&r, r.hdr->sq_tail);
		}
		if (r.hdr->cq_tail - r.hdr->cq_head >= 32)
			r.hdr->cq_head = r.hdr->cq_tail;
	}
}

static void kill_clients(unsigned int n, unsigned int first)
{
	unsigned int k;
	int status, p[2];
	pid_t pid;
	char c;

	for (k = first; k < first + n; k++) {
		assert_int_equal(pipe(p), 0);
		pid = hpu_test_fork_child();
		assert_true(pid >= 0);
		if (!pid) {
			close(p[0]);
			client(p[1], k);
		}
		close(p[1]);
		assert_int_equal(read(p[0], &c, 1), 1);
		close(p[0]);
		hpu_test_sleep_ms((int)(k % 5));
		kill(pid, SIGKILL);
		assert_int_equal(hpu_test_wait_child(pid, 20000, &status), 0);
		assert_true(WIFSIGNALED(status));
	}
}

static void test_kill_100(void **state)
{
	long rss0, rss;
	int fds0, fds;

	(void)state;
	/* warm up: the daemon's pools and threads settle first */
	kill_clients(WARMUP, 0);
	wait_clean(-1);
	fds0 = daemon_fds();
	rss0 = daemon_rss_kb();
	kill_clients(KILLS, WARMUP);
	wait_clean(fds0);
	fds = daemon_fds();
	rss = daemon_rss_kb();
	print_message("daemon: fds %d -> %d, RSS %ld -> %ld kB\n", fds0, fds,
		      rss0, rss);
	assert_true(fds <= fds0);
#if HPU_TEST_UNDER_ASAN
	/* freed memory stays in ASan's quarantine (up to 256 MiB): RSS grows
	 * by design; LeakSanitizer checks the daemon at its stop instead */
	print_message("RSS not compared under AddressSanitizer\n");
#else
	assert_true(rss <= rss0 + RSS_SLACK_KB);
#endif
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kill_100, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
