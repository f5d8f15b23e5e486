// SPDX-License-Identifier: MIT
/*
 * test_reset.c - device reset through the real hpu-fused (docs/fusedev.md,
 * "Device reset"; docs/abi.md, "DEBUG ops"): a hard reset requested on
 * the control node with a CS in flight and a wait blocked on it (-EIO),
 * seen by two compute contexts and a control context, the contexts dead
 * afterwards (-EIO but INFO), HBM back to 0, hard_reset_cnt in INFO and
 * sysfs, the device reopened and running a CS; a hard reset with a live
 * user-mode ring (ABORTED record, error EIO, the daemon's mapping gone);
 * reset during submissions from several threads; a compute reset (work
 * aborted, contexts kept); an unprivileged reset refused; a CS timeout
 * escalating with --reset-on-lockup; a context whose call is stuck in
 * client memory (freed when the call comes back); the daemon's
 * descriptors flat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
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
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpudrv.h"

/* bound of every polling loop here */
#define WAIT_MS	 20000
#define CHILD_MS 20000
#define NOBODY	 65534

static int info(int fd, uint32_t op, void *out, uint32_t size)
{
	struct hpu_info_args a = { .return_pointer = (uintptr_t)out,
				   .return_size = size,
				   .op = op };

	return hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a);
}

static uint64_t events_mask(int fd)
{
	struct hpu_info_events ev = { 0 };

	assert_int_equal(info(fd, HPU_INFO_GET_EVENTS, &ev, sizeof(ev)), 0);
	return ev.events_mask;
}

/* The data of the first DEVICE_RESET event queued on @fd, or -1 */
static long reset_event(int fd)
{
	struct hpu_event ev[8];
	ssize_t n;
	int i;

	while ((n = read(fd, ev, sizeof(ev))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
			if (ev[i].type == HPU_EVENT_DEVICE_RESET)
				return (long)ev[i].data;
	return -1;
}

static int debug_reset(int fd, uint64_t kind)
{
	struct hpu_debug_args a = { .op = HPU_DEBUG_OP_RESET, .param = kind };

	return hpu_test_ioctl(fd, HPU_IOCTL_DEBUG, &a);
}

static struct hpu_info_reset_count reset_count(int fd)
{
	struct hpu_info_reset_count rc;

	assert_int_equal(info(fd, HPU_INFO_RESET_COUNT, &rc, sizeof(rc)), 0);
	return rc;
}

static long attr_long(const char *mount, const char *name)
{
	char path[PATH_MAX + 64], buf[64] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/class/hpu0/%s", mount, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	return strtol(buf, NULL, 10);
}

static uint64_t dram_used(int fd)
{
	struct hpu_info_dram_usage u;

	assert_int_equal(info(fd, HPU_INFO_DRAM_USAGE, &u, sizeof(u)), 0);
	return u.dram_used_mem;
}

static uint64_t alloc(int fd, uint64_t size)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = size } };

	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
	return m.out.handle;
}

/* A CS that runs until something ends it: a FENCE nobody raises */
static uint64_t stuck_cs(int fd)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(5);
	uint64_t seq = 0;

	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 0, 0, &seq), 0);
	return seq;
}

static void run_nop(int fd)
{
	struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
					    .size = sizeof(nop) } };
	uint64_t seq;

	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0, &seq),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_COMPLETED);
}

/* Poll (bounded) until HBM in use is @want; return the last value */
static uint64_t wait_dram(int cfd, uint64_t want)
{
	long end = hpu_test_now_ms() + WAIT_MS;
	uint64_t v;

	while ((v = dram_used(cfd)) != want && hpu_test_now_ms() < end)
		hpu_test_sleep_ms(5);
	return v;
}

/*
 * Poll (bounded) until the daemon holds at most @want descriptors (the
 * count taken before may include a transient one: a /proc read, a
 * release of the test before still under way)
 */
static long wait_fds(long want)
{
	long end = hpu_test_now_ms() + WAIT_MS, v;

	while ((v = hpu_test_fds_of(hpu_test_shared.pid)) > want &&
	       hpu_test_now_ms() < end)
		hpu_test_sleep_ms(5);
	if (v > want) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "ls -l /proc/%d/fd >&2",
			 (int)hpu_test_shared.pid);
		if (system(cmd))
			print_message("cannot list the daemon's fds\n");
	}
	return v;
}

/* The daemon's descriptors: the least of a few samples (none transient) */
static long daemon_fds(void)
{
	long v, min = LONG_MAX;
	int i;

	for (i = 0; i < 20; i++) {
		v = hpu_test_fds_of(hpu_test_shared.pid);
		assert_true(v > 0);
		if (v < min)
			min = v;
		hpu_test_sleep_ms(5);
	}
	return min;
}

struct waiter {
	int fd;
	uint64_t seq;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	uint32_t status;

	w->ret = hpu_test_cs_wait(w->fd, w->seq, 20000000, &status);
	return NULL;
}

/*
 * A hard reset from the control node: the CS in flight is aborted and
 * its waiter gets -EIO, both compute contexts and the control context
 * are told, the compute contexts are dead (-EIO but INFO), their HBM is
 * freed, the counters moved; a new open runs a CS.
 */
static void test_hard_reset(void **state)
{
	const char *mnt = hpu_test_shared.mount;
	struct hpu_info_reset_count before, after;
	int a, b, c, n, status;
	struct waiter w;
	pthread_t t;
	long fds0;

	(void)state;
	fds0 = daemon_fds();
	c = hpu_test_open_node(mnt, "hpu_control", 0);
	assert_true(c >= 0);
	a = hpu_test_open_dev(0);
	b = hpu_test_open_dev(0);
	before = reset_count(c);
	assert_int_equal(attr_long(mnt, "hard_reset_cnt"),
			 before.hard_reset_cnt);
	alloc(a, 1 << 20);
	alloc(b, 2 << 20);
	assert_true(dram_used(c) >= (3 << 20));
	w.fd = a;
	w.seq = stuck_cs(a);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	events_mask(a);

	assert_int_equal(debug_reset(c, HPU_RESET_HARD), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, -EIO);

	/* every context was told; GET_EVENTS says so too */
	assert_int_equal(reset_event(a), HPU_RESET_HARD);
	assert_int_equal(reset_event(b), HPU_RESET_HARD);
	assert_int_equal(reset_event(c), HPU_RESET_HARD);
	assert_true(events_mask(a) & (1ULL << HPU_EVENT_DEVICE_RESET));
	assert_true(events_mask(b) & (1ULL << HPU_EVENT_DEVICE_RESET));

	/* dead: INFO answers, nothing else */
	after = reset_count(a);
	assert_int_equal(after.hard_reset_cnt, before.hard_reset_cnt + 1);
	assert_int_equal(after.soft_reset_cnt, before.soft_reset_cnt);
	assert_int_equal(attr_long(mnt, "hard_reset_cnt"),
			 after.hard_reset_cnt);
	n = hpu_test_cs_wait(a, w.seq, 0, (uint32_t *)&status);
	assert_int_equal(n, -EIO);
	{
		union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
						 .size = 4096 } };
		union hpu_cb_args cb = { .in = { .op = HPU_CB_OP_CREATE,
						 .cb_size = 8,
						 .host_ptr = (uintptr_t)&m } };

		assert_int_equal(hpu_test_ioctl(b, HPU_IOCTL_MEMORY, &m), -EIO);
		assert_int_equal(hpu_test_ioctl(b, HPU_IOCTL_CB, &cb), -EIO);
	}
	assert_int_equal(wait_dram(c, 0), 0);

	/* re-acquire */
	close(a);
	close(b);
	a = hpu_test_open_dev(0);
	run_nop(a);
	alloc(a, 1 << 20);
	close(a);
	assert_int_equal(wait_dram(c, 0), 0);
	close(c);
	assert_true(wait_fds(fds0) <= fds0);
}

/* The control node allows DEBUG RESET only, and CS is still -EPERM there */
static uint64_t unused_control_check(int c)
{
	struct hpu_debug_args a = { .op = HPU_DEBUG_OP_CLEAR_FAULTS };

	assert_int_equal(hpu_test_ioctl(c, HPU_IOCTL_DEBUG, &a), -EPERM);
	a.op = HPU_DEBUG_OP_RESET;
	a.param = 0;
	assert_int_equal(hpu_test_ioctl(c, HPU_IOCTL_DEBUG, &a), -EINVAL);
	a.param = HPU_RESET_HARD;
	a.engine = 1;
	assert_int_equal(hpu_test_ioctl(c, HPU_IOCTL_DEBUG, &a), -EINVAL);
	return 0;
}

static void test_control_rules(void **state)
{
	int c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	struct hpu_info_reset_count before;

	(void)state;
	assert_true(c >= 0);
	before = reset_count(c);
	unused_control_check(c);
	/* nothing was reset by the refused calls */
	assert_int_equal(reset_count(c).hard_reset_cnt, before.hard_reset_cnt);
	close(c);
}

static long daemon_ring_maps(void)
{
	long n = hpu_test_maps_matching(hpu_test_shared.pid, "memfd:test_ring");

	assert_true(n >= 0);
	return n;
}

/* A live ring: its entry in flight gets an ABORTED record, error EIO */
static void test_hard_reset_ring(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(5);
	union hpu_cb_args cba = { .in = { .op = HPU_CB_OP_CREATE,
					  .cb_size = sizeof(f) } };
	static struct hpu_pkt_fence fbuf;
	struct hpu_test_ring r;
	struct hpu_ring_cqe rec;
	struct hpu_cs_chunk ch;
	long end;
	uint64_t s;
	int fd, c;

	(void)state;
	c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(c >= 0);
	fd = hpu_test_open_dev(0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	fbuf = f;
	cba.in.host_ptr = (uintptr_t)&fbuf;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &cba), 0);
	ch = hpu_test_ring_chunk(cba.out.cb_handle, 0, sizeof(f));
	s = hpu_test_ring_append(&r, 77, 0, &ch, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	end = hpu_test_now_ms() + WAIT_MS;
	while (__atomic_load_n(&r.hdr->sq_head, __ATOMIC_ACQUIRE) !=
	       r.hdr->sq_tail)
		assert_true(hpu_test_now_ms() < end);
	assert_true(daemon_ring_maps() > 0);

	assert_int_equal(debug_reset(c, HPU_RESET_HARD), 0);
	hpu_test_ring_wait_seq(&r, s);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.seq, s);
	assert_int_equal(rec.user_data, 77);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(__atomic_load_n(&r.hdr->error, __ATOMIC_ACQUIRE), EIO);
	assert_int_equal(reset_event(fd), HPU_RESET_HARD);
	/* the ring is gone from the daemon with the context's state */
	end = hpu_test_now_ms() + WAIT_MS;
	while (daemon_ring_maps())
		assert_true(hpu_test_now_ms() < end);
	/* nothing more is taken */
	hpu_test_ring_append(&r, 78, 0, &ch, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_sleep_ms(50);
	assert_int_equal(r.hdr->sq_head, r.hdr->sq_tail - 2);
	{
		union hpu_ring_args ra = {
			.in = { .op = HPU_RING_OP_UNREGISTER }
		};

		assert_int_equal(hpu_test_ring_ioctl(fd, &ra), -EIO);
	}
	close(fd);
	hpu_test_ring_unmap(&r);

	/* a new context gets a ring that works */
	fd = hpu_test_open_dev(0);
	assert_int_equal(hpu_test_ring_register(fd, &r, 16, 16), 0);
	ch = hpu_test_ring_chunk(hpu_test_ring_nop_cb(fd), 0,
				 sizeof(struct hpu_pkt_nop));
	s = hpu_test_ring_append(&r, 79, 0, &ch, 1);
	hpu_test_ring_publish(&r, r.hdr->sq_tail);
	hpu_test_ring_wait_seq(&r, s);
	rec = hpu_test_ring_pop(&r);
	assert_int_equal(rec.status, HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
	hpu_test_ring_unmap(&r);
	close(c);
}

#define NSUBMITTERS 4

struct submitter {
	int fd;
	uint64_t cb;
	int ran;
	int err;
};

static const struct hpu_pkt_nop nop_pkt = {
	.hdr = { .opcode = HPU_PACKET_NOP, .size = sizeof(nop_pkt) },
};

/*
 * NOP CSs on a CB made before until the context dies (bounded); no
 * cmocka assertion here: a failure is recorded in @s->err
 */
static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct hpu_cs_chunk ch = { .cb_handle = s->cb,
				   .cb_size = sizeof(nop_pkt) };
	long end = hpu_test_now_ms() + WAIT_MS;
	uint32_t status;
	uint64_t seq;
	int ret;

	while (hpu_test_now_ms() < end) {
		ret = hpu_test_cs_submit(s->fd, &ch, 1, 0, 0, &seq, NULL);
		if (!ret)
			ret = hpu_test_cs_wait(s->fd, seq, 20000000, &status);
		if (ret) {
			s->err = ret;
			break;
		}
		__atomic_add_fetch(&s->ran, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Reset while threads of four contexts submit: each ends with -EIO */
static void test_reset_during_submission(void **state)
{
	struct submitter s[NSUBMITTERS];
	pthread_t t[NSUBMITTERS];
	long end, fds0;
	int i, c, fd;

	(void)state;
	fds0 = daemon_fds();
	c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(c >= 0);
	for (i = 0; i < NSUBMITTERS; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		union hpu_cb_args cb = {
			.in = { .op = HPU_CB_OP_CREATE,
				.cb_size = sizeof(nop_pkt),
				.host_ptr = (uintptr_t)&nop_pkt }
		};

		s[i].fd = hpu_test_open_dev(0);
		alloc(s[i].fd, 1 << 20);
		assert_int_equal(hpu_test_ioctl(s[i].fd, HPU_IOCTL_CB, &cb), 0);
		s[i].cb = cb.out.cb_handle;
		assert_int_equal(
			pthread_create(&t[i], NULL, submit_thread, &s[i]), 0);
	}
	/* every thread got some work through first */
	end = hpu_test_now_ms() + WAIT_MS;
	for (i = 0; i < NSUBMITTERS; i++)
		while (!__atomic_load_n(&s[i].ran, __ATOMIC_RELAXED))
			assert_true(hpu_test_now_ms() < end);
	assert_int_equal(debug_reset(c, HPU_RESET_HARD), 0);
	for (i = 0; i < NSUBMITTERS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(s[i].err, -EIO);
		assert_int_equal(reset_event(s[i].fd), HPU_RESET_HARD);
		close(s[i].fd);
	}
	assert_int_equal(wait_dram(c, 0), 0);
	fd = hpu_test_open_dev(0);
	run_nop(fd);
	close(fd);
	close(c);
	assert_true(wait_fds(fds0) <= fds0);
}

/* From a compute node: its own context is reset with the others */
static void test_reset_from_compute_node(void **state)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = 4096 } };
	int fd, c;

	(void)state;
	c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(c >= 0);
	fd = hpu_test_open_dev(0);
	alloc(fd, 1 << 20);
	assert_int_equal(debug_reset(fd, HPU_RESET_HARD), 0);
	assert_int_equal(reset_event(fd), HPU_RESET_HARD);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), -EIO);
	assert_int_equal(debug_reset(fd, HPU_RESET_HARD), -EIO);
	assert_int_equal(wait_dram(c, 0), 0);
	close(fd);
	close(c);
}

/* A compute reset aborts the work, keeps the contexts and their memory */
static void test_compute_reset(void **state)
{
	struct hpu_info_reset_count before, after;
	uint64_t seq, used;
	int fd, c;

	(void)state;
	c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(c >= 0);
	fd = hpu_test_open_dev(0);
	alloc(fd, 1 << 20);
	used = dram_used(c);
	before = reset_count(c);
	seq = stuck_cs(fd);
	assert_int_equal(debug_reset(c, HPU_RESET_COMPUTE), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, seq),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(reset_event(fd), HPU_RESET_COMPUTE);
	after = reset_count(c);
	assert_int_equal(after.hard_reset_cnt, before.hard_reset_cnt);
	assert_true(after.soft_reset_cnt > before.soft_reset_cnt);
	assert_int_equal(dram_used(c), used);
	run_nop(fd);
	close(fd);
	close(c);
}

/* As nobody (the control node is 0664): -EPERM, nothing reset */
static void test_unprivileged_refused(void **state)
{
	char path[PATH_MAX + 64];
	struct hpu_info_reset_count before;
	int c, status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: switching to uid %d needs root\n",
			      NOBODY);
		skip();
	}
	c = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(c >= 0);
	before = reset_count(c);
	snprintf(path, sizeof(path), "%s/hpu_control0", hpu_test_shared.mount);
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd, ret;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(101);
		ret = debug_reset(fd, HPU_RESET_HARD);
		_exit(ret == -EPERM ? 0 : 2);
	}
	assert_int_equal(hpu_test_wait_child(pid, CHILD_MS, &status), 0);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 101) {
		print_message("skipped: uid %d cannot open %s\n", NOBODY, path);
		close(c);
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(reset_count(c).hard_reset_cnt, before.hard_reset_cnt);
	close(c);
}

/* libhpudrv and hpu-smi -r */
static void test_library_and_smi(void **state)
{
	const char *argv[] = { hpu_test_bin("hpu-smi"), "-r", "-i", "0", NULL };
	const char *bad[] = { hpu_test_bin("hpu-smi"), "-r", NULL };
	const char *bogus[] = { hpu_test_bin("hpu-smi"), "--reset=bogus", "-i",
				"0", NULL };
	const char *comp[] = { hpu_test_bin("hpu-smi"), "-rcompute", "-i", "0",
			       NULL };
	struct hpu_info_reset_count rc;
	struct hpu_device *ctl, *dev;
	uint32_t before, soft;
	char *out = NULL;
	int st;

	(void)state;
	assert_int_equal(hpu_open_control(0, &ctl), 0);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_reset_count(ctl, &rc), 0);
	before = rc.hard_reset_cnt;
	assert_int_equal(hpu_device_reset(ctl, 7), -EINVAL);
	assert_int_equal(hpu_device_reset(ctl, HPU_RESET_HARD), 0);
	assert_int_equal(hpu_info_reset_count(dev, &rc), 0);
	assert_int_equal(rc.hard_reset_cnt, before + 1);
	/* the compute handle is dead until reopened */
	assert_int_equal(hpu_device_reset(dev, HPU_RESET_HARD), -EIO);
	hpu_close(dev);

	assert_int_equal(hpu_test_run((char *const *)argv, &out, &st), 0);
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "hard reset done"));
	free(out);
	assert_int_equal(hpu_info_reset_count(ctl, &rc), 0);
	assert_int_equal(rc.hard_reset_cnt, before + 2);
	out = NULL;
	assert_int_equal(hpu_test_run((char *const *)bad, &out, &st), 0);
	assert_int_equal(st, 2);
	free(out);
	out = NULL;
	assert_int_equal(hpu_test_run((char *const *)bogus, &out, &st), 0);
	assert_int_equal(st, 2);
	free(out);
	soft = rc.soft_reset_cnt;
	out = NULL;
	assert_int_equal(hpu_test_run((char *const *)comp, &out, &st), 0);
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "compute reset done"));
	free(out);
	assert_int_equal(hpu_info_reset_count(ctl, &rc), 0);
	assert_int_equal(rc.soft_reset_cnt, soft + 1);
	assert_int_equal(rc.hard_reset_cnt, before + 2);
	hpu_close(ctl);
}

/* --reset-on-lockup: a CS timeout hard-resets the device */
static void test_reset_on_lockup(void **state)
{
	static const char *const extra[] = { "--reset-on-lockup", NULL };
	struct hpu_pkt_fence f = hpu_test_pkt_fence(5);
	struct hpu_test_daemon d;
	uint32_t status = 0;
	uint64_t seq;
	long end;
	int fd, ret;

	(void)state;
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", extra), 0);
	fd = hpu_test_open_node(d.mount, "hpu", 0);
	assert_true(fd >= 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 0, 200, &seq),
			 0);
	ret = hpu_test_cs_wait(fd, seq, 20000000, &status);
	assert_true(ret == -EIO ||
		    (!ret && status == HPU_WAIT_CS_STATUS_TIMEDOUT));
	end = hpu_test_now_ms() + WAIT_MS;
	while (reset_count(fd).hard_reset_cnt != 1)
		assert_true(hpu_test_now_ms() < end);
	assert_int_equal(reset_event(fd), HPU_RESET_HARD);
	{
		struct hpu_cs_chunk ch = { .cb_handle = 1,
					   .cb_size = sizeof(f) };

		assert_int_equal(
			hpu_test_cs_submit(fd, &ch, 1, 0, 0, &seq, NULL), -EIO);
	}
	close(fd);
	fd = hpu_test_open_node(d.mount, "hpu", 0);
	assert_true(fd >= 0);
	{
		struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
						    .size = sizeof(nop) } };

		assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0,
						    &seq),
				 0);
		assert_int_equal(hpu_test_cs_wait_status(fd, seq),
				 HPU_WAIT_CS_STATUS_COMPLETED);
	}
	close(fd);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
}

/*
 * The stuck client: 1 MiB of HBM, then a CS whose CB copy never ends
 * (the watchdog answers it EFAULT, the daemon's worker stays stuck with
 * a call on the context). Reports 0 (or 1: setup failed), then waits to
 * be killed, which resolves the fault.
 */
static void stuck_child(const char *mount, int report)
{
	struct hpu_cs_chunk ch = { .cb_size = sizeof(struct hpu_pkt_nop) };
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = 1 << 20 } };
	uint64_t seq, cb = 0;
	int fd, bad = 1;

	fd = hpu_test_open_node(mount, "hpu", 0);
	if (fd >= 0 && !hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m) &&
	    hpu_test_trapped_cb(fd, &cb) >= 0) {
		ch.cb_handle = cb;
		if (hpu_test_cs_submit(fd, &ch, 1, 0, 0, &seq, NULL) == -EFAULT)
			bad = 0;
	}
	if (write(report, &bad, sizeof(bad)) != sizeof(bad))
		_exit(2);
	pause();
	_exit(0);
}

/*
 * A context with a call stuck in client memory: the reset still ends
 * (after the uaccess timeout and a margin), the device serves new
 * contexts, and the stuck context's HBM goes once the call comes back
 * (its process killed)
 */
static void test_reset_with_stuck_call(void **state)
{
	static const char *const extra[] = { "--uaccess-timeout-ms", "300",
					     NULL };
	struct hpu_test_daemon d;
	struct pollfd pfd;
	int p[2], c, fd, bad = -1, status;
	const char *why;
	uint64_t seq;
	pid_t pid;

	(void)state;
	why = hpu_test_uffd_unavailable();
	if (why) {
		print_message("skipped: %s\n", why);
		skip();
	}
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", extra), 0);
	c = hpu_test_open_node(d.mount, "hpu_control", 0);
	assert_true(c >= 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		stuck_child(d.mount, p[1]);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, CHILD_MS) != 1 ||
	    read(p[0], &bad, sizeof(bad)) != sizeof(bad) || bad) {
		hpu_test_kill_child(pid, &status);
		fail_msg("the stuck child did not get stuck (%d)", bad);
	}
	close(p[0]);
	assert_true(dram_used(c) >= (1 << 20));

	assert_int_equal(debug_reset(c, HPU_RESET_HARD), 0);
	assert_int_equal(reset_count(c).hard_reset_cnt, 1);
	/* its HBM is held by the call, the device serves others */
	assert_true(dram_used(c) >= (1 << 20));
	fd = hpu_test_open_node(d.mount, "hpu", 0);
	assert_true(fd >= 0);
	{
		struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
						    .size = sizeof(nop) } };

		assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0,
						    &seq),
				 0);
		assert_int_equal(hpu_test_cs_wait_status(fd, seq),
				 HPU_WAIT_CS_STATUS_COMPLETED);
	}
	close(fd);
	/* the fault resolves with its process: the call ends, HBM goes */
	assert_int_equal(hpu_test_kill_child(pid, &status), 0);
	assert_int_equal(wait_dram(c, 0), 0);
	close(c);
	assert_int_equal(hpu_test_daemon_stop(&d), 0);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(1, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hard_reset, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_control_rules,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_hard_reset_ring,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_during_submission,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_from_compute_node,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_compute_reset,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_unprivileged_refused,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_library_and_smi,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_on_lockup,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_reset_with_stuck_call,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
