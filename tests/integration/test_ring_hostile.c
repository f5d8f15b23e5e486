// SPDX-License-Identifier: MIT
/*
 * test_ring_hostile.c - a ring client the daemon must not wait for
 * (docs/rings.md, "Client memory"): an entry whose CB lies in memory a
 * userfaultfd traps and nobody resolves. The consumer's CB copy is
 * abandoned by the uaccess watchdog: the ring breaks (error word, event),
 * the context's ioctl path, UNREGISTER and close answer at once, another
 * context's ring keeps working, and the daemon stops cleanly, also while
 * the copy is still stuck.
 *
 * Every wait is bounded: a daemon that wedges fails the test instead of
 * hanging it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_ring.h"
#include "../lib/hpu_test_trap.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"

/* the daemons here abandon a stuck access after this */
#define UACCESS_MS "300"
/* bound of the waits for a child's report (generous: ASan, load) */
#define REPORT_MS  30000
#define PAGE	   4096UL

static const char *const daemon_args[] = { "--uaccess-timeout-ms", UACCESS_MS,
					   NULL };

/* the mount of the daemon under test */
static const char *mount;

static int open_dev(void)
{
	return hpu_test_open_node(mount, "hpu", 0);
}

/* What the hostile child found; each bit a failure */
enum {
	BAD_SETUP = 1 << 0,
	BAD_NOT_BROKEN = 1 << 1,
	BAD_TAKEN = 1 << 2,
	BAD_EVENT = 1 << 3,
	BAD_IOCTL_CS = 1 << 4,
	BAD_UNREGISTER = 1 << 5,
	BAD_REGISTER = 1 << 6,
};

/* Whether the context saw HPU_EVENT_RING_ERR (GET_EVENTS) */
static bool ring_err_seen(int fd)
{
	struct hpu_info_events ev = { 0 };
	struct hpu_info_args a = { .return_pointer = (uintptr_t)&ev,
				   .return_size = sizeof(ev),
				   .op = HPU_INFO_GET_EVENTS };

	return !hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a) &&
	       (ev.events_mask & (1ULL << HPU_EVENT_RING_ERR));
}

/*
 * The hostile child: its ring's only entry runs the trapped CB. Reports
 * the failures it saw (0: none) once the ring broke and the context was
 * served again, then keeps the fault unresolved until killed.
 * @unregister: also UNREGISTER and register again (else leave the ring
 * broken and registered)
 */
static void hostile_child(int report, bool unregister)
{
	struct hpu_test_ring r;
	struct hpu_cs_chunk c;
	uint64_t cb, end, seq;
	uint32_t status;
	int fd, bad = 0;

	fd = open_dev();
	if (fd < 0 || hpu_test_trapped_cb(fd, &cb) < 0 ||
	    hpu_test_ring_register(fd, &r, 16, 16))
		_exit(BAD_SETUP);
	c = hpu_test_ring_chunk(cb, 0, sizeof(struct hpu_pkt_nop));
	hpu_test_ring_append(&r, 7, 0, &c, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	end = hpu_test_ring_now_ns() + 20000000000ULL;
	while (!__atomic_load_n(&r.hdr->error, __ATOMIC_ACQUIRE) &&
	       hpu_test_ring_now_ns() < end)
		hpu_test_sleep_ms(5);
	if (r.hdr->error != EIO)
		bad |= BAD_NOT_BROKEN;
	/* the entry got neither a number nor a record */
	if (r.hdr->sq_head != 0 || r.hdr->cq_tail != 0)
		bad |= BAD_TAKEN;
	if (!ring_err_seen(fd))
		bad |= BAD_EVENT;
	/* the context's ioctl path does not wait for the stuck ring */
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				sizeof(struct hpu_pkt_nop));
	if (hpu_test_cs_submit(fd, &c, 1, 0, 0, &seq, NULL) ||
	    hpu_test_cs_wait(fd, seq, 20000000, &status) ||
	    status != HPU_WAIT_CS_STATUS_COMPLETED)
		bad |= BAD_IOCTL_CS;
	if (unregister) {
		if (hpu_test_ring_unregister(fd))
			bad |= BAD_UNREGISTER;
		hpu_test_ring_unmap(&r);
		if (hpu_test_ring_register(fd, &r, 16, 16))
			bad |= BAD_REGISTER;
	}
	if (write(report, &bad, sizeof(bad)) != sizeof(bad))
		_exit(BAD_SETUP);
	/* close while the copy is stuck: answered at once too */
	close(fd);
	pause();
	_exit(0);
}

/* Fork the hostile child; its report in *@bad (bounded wait) */
static pid_t run_hostile(bool unregister, int *bad)
{
	struct pollfd pfd;
	int p[2], status;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		hostile_child(p[1], unregister);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, REPORT_MS) != 1 ||
	    read(p[0], bad, sizeof(*bad)) != sizeof(*bad)) {
		hpu_test_print_proc(pid);
		hpu_test_kill_child(pid, &status);
		close(p[0]);
		fail_msg("the hostile child did not report within %d ms",
			 REPORT_MS);
	}
	close(p[0]);
	return pid;
}

/* Another context's ring runs @n NOPs to completion */
static void other_ring_works(unsigned int n)
{
	int fd = open_dev();
	struct hpu_test_ring r;
	struct hpu_cs_chunk c;
	uint64_t seq = 0;
	unsigned int i;

	assert_true(fd >= 0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 64, 64), 0);
	c = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 1,
				sizeof(struct hpu_pkt_nop));
	for (i = 0; i < n; i++) {
		hpu_test_ring_wait_room(&r, 2);
		seq = hpu_test_ring_append(&r, i, 0, &c, 1);
		hpu_test_ring_publish(&r, r.hdr->sq_tail);
		if (i % 16 == 15) {
			hpu_test_ring_wait_seq(&r, seq);
			while (!hpu_test_ring_cq_empty(&r))
				assert_int_equal(hpu_test_ring_pop(&r).res, 0);
		}
	}
	hpu_test_ring_wait_seq(&r, seq);
	assert_int_equal(r.hdr->error, 0);
	close(fd);
	hpu_test_ring_unmap(&r);
}

/* driver/uaccess_stuck "NOW EVER" of the daemon on @mount */
static void stuck_counts(const char *mount, unsigned long *now,
			 unsigned long *ever)
{
	char path[PATH_MAX + 32], buf[64] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/driver/uaccess_stuck", mount);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(sscanf(buf, "%lu %lu", now, ever), 2);
}

/* Wait (bounded) until no access of the daemon is stuck any more */
static void wait_unstuck(const char *mount)
{
	uint64_t end = hpu_test_ring_now_ns() + HPU_TEST_RING_WAIT_NS;
	unsigned long now = 1, ever;

	while (hpu_test_ring_now_ns() < end) {
		stuck_counts(mount, &now, &ever);
		if (!now)
			return;
		hpu_test_sleep_ms(10);
	}
	fail_msg("%lu accesses still stuck", now);
}

static void test_trapped_cb(void **state)
{
	unsigned long now, ever0, ever;
	int bad = -1, status;
	pid_t pid;

	(void)state;
	HPU_TEST_SKIP_IF(hpu_test_uffd_unavailable());
	mount = hpu_test_shared.mount;
	wait_unstuck(mount);
	stuck_counts(mount, &now, &ever0);
	pid = run_hostile(true, &bad);
	stuck_counts(mount, &now, &ever);
	print_message(
		"hostile child: failures 0x%x; stuck now %lu, abandoned %lu\n",
		bad, now, ever - ever0);
	other_ring_works(64);
	assert_int_equal(hpu_test_kill_child(pid, &status), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(ever - ever0, 1);
	/* the fault ends with the process: the stuck thread comes back */
	wait_unstuck(mount);
	other_ring_works(16);
}

/* test_stop_while_stuck's own daemon and hostile child */
static struct hpu_test_daemon own;
static pid_t own_child;

/* A daemon stops while a ring's copy is still stuck */
static void test_stop_while_stuck(void **state)
{
	int bad = -1, stopped;

	(void)state;
	HPU_TEST_SKIP_IF(hpu_test_uffd_unavailable());
	assert_int_equal(hpu_test_daemon_start(&own, 1, "gaudi2", daemon_args),
			 0);
	mount = own.mount;
	own_child = run_hostile(false, &bad);
	other_ring_works(16);
	stopped = hpu_test_daemon_stop(&own);
	assert_int_equal(bad, 0);
	assert_int_equal(stopped, 0);
}

/*
 * Whatever test_stop_while_stuck got to: its child killed, its daemon
 * stopped (a failed assertion leaves them), the shared daemon the one of
 * the next tests again
 */
static int stop_while_stuck_done(void **state)
{
	int status;

	(void)state;
	if (own_child > 0)
		hpu_test_kill_child(own_child, &status);
	own_child = 0;
	if (own.pid > 0)
		hpu_test_daemon_stop(&own);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
	mount = hpu_test_shared.mount;
	return 0;
}

static int group_setup(void **state)
{
	int ret = hpu_test_group_start_args(1, "gaudi2", daemon_args);

	(void)state;
	return ret ? ret : hpu_test_require_cs();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_trapped_cb, hpu_test_need_daemon),
		cmocka_unit_test_setup_teardown(test_stop_while_stuck,
						hpu_test_need_daemon,
						stop_while_stuck_done),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
