// SPDX-License-Identifier: MIT
/*
 * test_client_memory.c - what a hostile client can do with the memory and
 * the files it hands the daemon (docs/fusedev.md, "Client memory"):
 * output pointers into the daemon's own files (self-recursion) and into
 * userfaultfd memory nobody resolves, CB CREATE and MAP USERPTR there,
 * leased, read-only, sealed and swapped MAP_SHM files, one pidfd per
 * client process, a burst of 512 honest threads beside a stuck client,
 * and a stop (SIGTERM) with stuck workers.
 *
 * Every wait on the daemon is bounded: a daemon that wedges fails the
 * test instead of hanging it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_usage.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpudrv.h"

/* the daemons here abandon a stuck access after this */
#define UACCESS_MS     "300"
/* bounds of the waits (generous: a loaded machine, ASan) */
#define ANSWER_MS      20000
#define SETTLE_MS      30000
#define RECURSE_N      300
#define RECURSE_MS     3000
#define RECURSE_ROUNDS 50
#define THREADS_N      12
#define CBS_N	       1000
#define SWAP_TRIES     1000
#define WAIT_US	       20000000ULL

static const char *const daemon_args[] = { "--uaccess-timeout-ms", UACCESS_MS,
					   NULL };

/* INFO HW_IP_INFO answered at @out */
static int info_at(int fd, void *out)
{
	struct hpu_info_args a = {
		.return_pointer = (uintptr_t)out,
		.return_size = sizeof(struct hpu_info_hw_ip_info),
		.op = HPU_INFO_HW_IP_INFO,
	};

	return hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a);
}

static int cb_create_at(int fd, void *p, uint32_t size, uint64_t *handle)
{
	union hpu_cb_args a = { .in = { .op = HPU_CB_OP_CREATE,
					.host_ptr = (uintptr_t)p,
					.cb_size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_CB, &a);

	if (!ret && handle)
		*handle = a.out.cb_handle;
	return ret;
}

static int map_userptr_at(int fd, void *p, uint64_t size)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP,
					 .flags = HPU_MEM_USERPTR,
					 .host_virt_addr = (uintptr_t)p,
					 .size = size } };

	return hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);
}

static int map_shm(int fd, int file, uint64_t size, uint64_t *va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_MAP_SHM,
					 .handle = (uint64_t)file,
					 .size = size } };
	int ret = hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);

	if (!ret && va)
		*va = m.out.device_virt_addr;
	return ret;
}

static int unmap(int fd, uint64_t va)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_UNMAP,
					 .device_virt_addr = va } };

	return hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m);
}

/* driver/uaccess_stuck: "NOW EVER" */
static void stuck_counts(unsigned long *now, unsigned long *ever)
{
	char path[PATH_MAX + 32], buf[64] = { 0 };
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/driver/uaccess_stuck",
		 hpu_test_shared.mount);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	assert_int_equal(sscanf(buf, "%lu %lu", now, ever), 2);
}

/* Wait (bounded) until no worker is stuck any more */
static void wait_unstuck(void)
{
	unsigned long now = 1, ever;
	long t0 = hpu_test_now_ms();

	while (hpu_test_now_ms() - t0 < SETTLE_MS) {
		stuck_counts(&now, &ever);
		if (!now)
			return;
		hpu_test_sleep_ms(20);
	}
	fail_msg("%lu workers still stuck after %d ms", now, SETTLE_MS);
}

/* Whether userfaultfd traps the daemon's accesses here (NULL) or why not */
static const char *uffd_unavailable(void)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return errno == EPERM ?
			       "userfaultfd for kernel accesses needs root or vm.unprivileged_userfaultfd=1 (UFFD_USER_MODE_ONLY would not trap the daemon)" :
			       "no userfaultfd in this kernel";
	close(fd);
	return NULL;
}

/* @len bytes of fresh memory registered with a userfaultfd nobody reads */
static void *uffd_region(size_t len, int *ufd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	void *p;
	int fd;

	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	reg.range.start = (uintptr_t)p;
	reg.range.len = len;
	if (ioctl(fd, UFFDIO_REGISTER, &reg))
		return NULL;
	*ufd = fd;
	return p;
}

/* Wait for a child's exit (bounded); kill it on timeout and fail */
static int child_exit_code(pid_t pid, int timeout_ms, const char *what)
{
	int status = 0;

	if (hpu_test_wait_child(pid, timeout_ms, &status)) {
		print_error("%s: no answer within %d ms\n", what, timeout_ms);
		hpu_test_print_proc(pid);
		hpu_test_kill_child(pid, &status);
		fail_msg("%s: the daemon did not answer", what);
	}
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A client that is not part of the attack: INFO into ordinary memory. As
 * root it runs as another user (nobody, through a read-only open of the
 * control node): the attackers' user may be over its cap, which refuses
 * its own accesses, never another user's.
 * Not as root it is the attackers' user: EFAULT (its cap) is an answer
 * too.
 * Return: whether it was answered (within ANSWER_MS) as expected.
 */
static bool honest_info_ok(const char *what)
{
	pid_t pid = hpu_test_fork_child();
	int status = 0;

	assert_true(pid >= 0);
	if (!pid) {
		struct hpu_info_hw_ip_info hw;
		char path[PATH_MAX + 32];
		int fd, ret;

		if (!geteuid() && (setgid(65534) || setuid(65534)))
			_exit(2);
		snprintf(path, sizeof(path), "%s/hpu_control0",
			 hpu_test_shared.mount);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		ret = info_at(fd, &hw);
		_exit(!ret || (ret == -EFAULT && geteuid()) ? 0 : 1);
	}
	if (hpu_test_wait_child(pid, ANSWER_MS, &status)) {
		print_error("%s: no answer within %d ms\n", what, ANSWER_MS);
		hpu_test_print_proc(pid);
		hpu_test_kill_child(pid, &status);
		return false;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

static void honest_info_answers(const char *what)
{
	if (!honest_info_ok(what))
		fail_msg("%s: no answer", what);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_args(1, "gaudi2", daemon_args);
}

/*
 * Child of the self-recursion attack: after the barrier, until @end_ms or
 * RECURSE_ROUNDS rounds, open an attribute file of the mount (an open
 * drops its cached page), map it MAP_PRIVATE and have INFO written into
 * the mapping: the write faults the page in through a FUSE READ that
 * needs a worker of the daemon. Exit 0 when every answer was 0 or EFAULT.
 */
static void recursion_child(int barrier, long end_ms)
{
	char c, path[PATH_MAX + 64];
	int fd, afd, ret, i;
	void *p;

	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	snprintf(path, sizeof(path), "%s/class/hpu0/serial_number",
		 hpu_test_shared.mount);
	if (fd < 0)
		_exit(2);
	if (read(barrier, &c, 1) < 0)
		_exit(3);
	for (i = 0; i < RECURSE_ROUNDS && hpu_test_now_ms() < end_ms; i++) {
		afd = open(path, O_RDONLY | O_CLOEXEC);
		if (afd < 0)
			_exit(4);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, afd,
			 0);
		if (p == MAP_FAILED)
			_exit(5);
		ret = info_at(fd, p);
		if (ret && ret != -EFAULT)
			_exit(6);
		munmap(p, 4096);
		close(afd);
	}
	_exit(0);
}

/*
 * INFO answers written into MAP_PRIVATE mappings of the mount's own
 * attribute files, by hundreds of processes at once. Another client must
 * still be answered, and every attacker too.
 */
static void test_self_recursion(void **state)
{
	pid_t pids[RECURSE_N];
	int barrier[2], i, bad = 0;
	long t0, end_ms;
	bool answered;

	(void)state;
	assert_int_equal(pipe2(barrier, O_CLOEXEC), 0);
	end_ms = hpu_test_now_ms() + RECURSE_MS;
	for (i = 0; i < RECURSE_N; i++) {
		pids[i] = hpu_test_fork_child();
		assert_true(pids[i] >= 0);
		if (!pids[i]) {
			close(barrier[1]);
			recursion_child(barrier[0], end_ms);
		}
	}
	close(barrier[0]);
	/* all at once */
	close(barrier[1]);
	hpu_test_sleep_ms(300);
	t0 = hpu_test_now_ms();
	answered = honest_info_ok("INFO of another client during the attack");
	print_message("another client: %s after %ld ms\n",
		      answered ? "answered" : "no answer",
		      hpu_test_now_ms() - t0);
	for (i = 0; i < RECURSE_N; i++) {
		long left = ANSWER_MS - (hpu_test_now_ms() - t0);
		int status = 0;

		if (hpu_test_wait_child(pids[i], left > 0 ? (int)left : 1,
					&status)) {
			/* stuck in a wedged daemon: it dies with the daemon */
			kill(pids[i], SIGKILL);
			bad++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			bad++;
		}
	}
	assert_true(answered);
	assert_int_equal(bad, 0);
	honest_info_answers("INFO after the attack");
	wait_unstuck();
}

/**
 * struct call - one ioctl made by a thread of its own
 * @fd: node
 * @ptr: user pointer handed to the daemon
 * @op: 0 INFO, 1 CB CREATE, 2 MAP USERPTR
 * @ret: result
 */
struct call {
	int fd;
	void *ptr;
	int op;
	int ret;
};

static void *call_thread(void *arg)
{
	struct call *c = arg;

	if (c->op == 0)
		c->ret = info_at(c->fd, c->ptr);
	else if (c->op == 1)
		c->ret = cb_create_at(c->fd, c->ptr, 4096, NULL);
	else
		c->ret = map_userptr_at(c->fd, c->ptr, 4096);
	return NULL;
}

/* @c made on a new thread of the calling process, which waits for it */
static int call_on_thread(struct call *c)
{
	pthread_t t;

	if (pthread_create(&t, NULL, call_thread, c))
		return -EAGAIN;
	pthread_join(t, NULL);
	return c->ret;
}

/*
 * Child: its main thread's INFO into userfaultfd memory nobody resolves
 * is answered EFAULT after the timeout, its second one at once (one stuck
 * access per thread); then THREADS_N - 1 threads one after the other: 7
 * more get stuck (8 per process), the rest are refused. Reports a bit per
 * call that was not EFAULT, then keeps the memory until killed.
 */
static void uffd_info_child(int report, void *arg)
{
	struct call c = { 0 };
	int fd, ufd, i, bad = 0;
	void *p;

	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	p = uffd_region(16 * 4096, &ufd);
	if (fd < 0 || !p)
		_exit(100);
	if (info_at(fd, p) != -EFAULT)
		bad |= 1;
	if (info_at(fd, p) != -EFAULT)
		bad |= 2;
	for (i = 0; i < THREADS_N - 1; i++) {
		c.fd = fd;
		c.ptr = p;
		c.op = 0;
		if (call_on_thread(&c) != -EFAULT)
			bad |= 4 << i;
	}
	if (write(report, &bad, sizeof(bad)) != sizeof(bad))
		_exit(101);
	pause();
	_exit(0);
}

/* The child's report, waiting at most ANSWER_MS; -ETIMEDOUT without */
static int child_report_wait(int rfd, pid_t pid, const char *what, int *v)
{
	struct timeval tv = { .tv_sec = ANSWER_MS / 1000 };
	fd_set set;

	FD_ZERO(&set);
	FD_SET(rfd, &set);
	if (select(rfd + 1, &set, NULL, NULL, &tv) == 1 &&
	    read(rfd, v, sizeof(*v)) == sizeof(*v))
		return 0;
	print_error("%s: no report within %d ms\n", what, ANSWER_MS);
	hpu_test_print_proc(pid);
	return -ETIMEDOUT;
}

/* Read the child's report (bounded), or kill the child and fail */
static int child_report(int rfd, pid_t pid, const char *what)
{
	int status, v = -1;

	if (child_report_wait(rfd, pid, what, &v)) {
		hpu_test_kill_child(pid, &status);
		fail_msg("%s: the daemon did not answer", what);
	}
	return v;
}

/*
 * Fork a child that runs @child(its report pipe's write end, @arg), which
 * writes one int there and never returns; the read end in *@rfd
 */
static pid_t fork_reporter(void (*child)(int report, void *arg), void *arg,
			   int *rfd)
{
	int rep[2];
	pid_t pid;

	assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
	pid = hpu_test_fork_child();
	assert_true(pid >= 0);
	if (!pid) {
		close(rep[0]);
		child(rep[1], arg);
	}
	close(rep[1]);
	*rfd = rep[0];
	return pid;
}

/*
 * fork_reporter() and child_report(): the child's report (the test
 * fails without one); the child, in *@pid, is left running
 */
static int run_reporter(void (*child)(int report, void *arg), void *arg,
			const char *what, pid_t *pid)
{
	int rfd, v;

	*pid = fork_reporter(child, arg, &rfd);
	v = child_report(rfd, *pid, what);
	close(rfd);
	return v;
}

/*
 * Once no worker is stuck: run_reporter(@child), whose report must be 0.
 * The workers stuck now in *@now, the accesses abandoned meanwhile in
 * *@abandoned; the child, in *@pid, keeps its memory until killed.
 */
static void run_stuck_child(void (*child)(int report, void *arg),
			    const char *what, pid_t *pid, unsigned long *now,
			    unsigned long *abandoned)
{
	unsigned long now0, ever0, ever;

	wait_unstuck();
	stuck_counts(&now0, &ever0);
	assert_int_equal(run_reporter(child, NULL, what, pid), 0);
	stuck_counts(now, &ever);
	*abandoned = ever - ever0;
}

static void test_uffd_info(void **state)
{
	unsigned long now, abandoned;
	int status;
	pid_t pid;

	(void)state;
	HPU_TEST_SKIP_IF(uffd_unavailable());
	run_stuck_child(uffd_info_child, "INFO into userfaultfd", &pid, &now,
			&abandoned);
	print_message("stuck now %lu, abandoned %lu\n", now, abandoned);
	/* one per thread, eight per process: the other calls were refused */
	assert_int_equal(abandoned, 8);
	assert_int_equal(now, 8);
	honest_info_answers("INFO of another client beside 8 stuck workers");
	/* the memory goes with the process: the workers come back */
	assert_int_equal(hpu_test_kill_child(pid, &status), 0);
	wait_unstuck();
	honest_info_answers("INFO after the stuck workers returned");
}

#define BURST_THREADS 512
#define BURST_CALLS   4

/**
 * struct burst - one thread of an honest burst
 * @fd: node
 * @barrier: all threads start their calls together
 * @bad: calls that failed
 */
struct burst {
	int fd;
	pthread_barrier_t *barrier;
	int bad;
};

static void *burst_thread(void *arg)
{
	struct burst *b = arg;
	struct hpu_info_hw_ip_info hw;
	int i;

	pthread_barrier_wait(b->barrier);
	for (i = 0; i < BURST_CALLS; i++)
		if (info_at(b->fd, &hw))
			b->bad++;
	return NULL;
}

/*
 * 512 threads of one honest client make INFO calls at once while another
 * process of the same user has 8 accesses stuck in userfaultfd memory
 * and its further ones are refused: every honest call is answered,
 * nothing more gets stuck. Whether more than the user's 128 accesses are
 * in flight at once here depends on the scheduling (on this test's
 * machine they were not: the daemon before the waits passed it too);
 * test_uaccess_guard holds 128 inside and shows the others wait.
 */
static void test_honest_burst_beside_stuck(void **state)
{
	static struct burst b[BURST_THREADS];
	static pthread_t t[BURST_THREADS];
	unsigned long now, abandoned, now2, ever0, ever;
	pthread_barrier_t barrier;
	pthread_attr_t attr;
	int i, fd, bad = 0, status;
	pid_t pid;

	(void)state;
	HPU_TEST_SKIP_IF(uffd_unavailable());
	run_stuck_child(uffd_info_child, "INFO into userfaultfd", &pid, &now,
			&abandoned);
	assert_int_equal(abandoned, 8);
	assert_int_equal(now, 8);
	stuck_counts(&now, &ever0);
	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu_control", 0);
	assert_true(fd >= 0);
	assert_int_equal(pthread_barrier_init(&barrier, NULL, BURST_THREADS),
			 0);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
	for (i = 0; i < BURST_THREADS; i++) {
		b[i] = (struct burst){ .fd = fd, .barrier = &barrier };
		assert_int_equal(
			pthread_create(&t[i], &attr, burst_thread, &b[i]), 0);
	}
	for (i = 0; i < BURST_THREADS; i++) {
		pthread_join(t[i], NULL);
		bad += b[i].bad;
	}
	pthread_attr_destroy(&attr);
	pthread_barrier_destroy(&barrier);
	close(fd);
	print_message("%d of %d honest calls failed\n", bad,
		      BURST_THREADS * BURST_CALLS);
	assert_int_equal(bad, 0);
	/* the stuck client is still capped: nothing more of it stuck */
	stuck_counts(&now2, &ever);
	assert_int_equal(now2, 8);
	assert_int_equal(ever, ever0);
	assert_int_equal(hpu_test_kill_child(pid, &status), 0);
	wait_unstuck();
}

/*
 * CB CREATE and MAP USERPTR of userfaultfd memory: EFAULT after the
 * timeout, and no lock is left held: the same context still creates a CB
 * and maps ordinary memory, and so does another context.
 */
static void uffd_create_child(int report, void *arg)
{
	struct call c = { 0 };
	int fd, ufd, bad = 0;
	static uint64_t cb[512], buf[512];
	void *p;

	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0);
	p = uffd_region(4 * 4096, &ufd);
	if (fd < 0 || !p)
		_exit(100);
	c.fd = fd;
	c.ptr = p;
	c.op = 1;
	if (call_on_thread(&c) != -EFAULT)
		bad |= 1;
	c.ptr = (char *)p + 4096;
	c.op = 2;
	if (call_on_thread(&c) != -EFAULT)
		bad |= 2;
	c.ptr = cb;
	c.op = 1;
	if (call_on_thread(&c))
		bad |= 4;
	c.ptr = buf;
	c.op = 2;
	if (call_on_thread(&c))
		bad |= 8;
	if (write(report, &bad, sizeof(bad)) != sizeof(bad))
		_exit(101);
	pause();
	_exit(0);
}

static void test_uffd_cb_create_map(void **state)
{
	static uint64_t cb[512], buf[512];
	unsigned long now, abandoned;
	int status, fd;
	pid_t pid;

	(void)state;
	HPU_TEST_SKIP_IF(uffd_unavailable());
	run_stuck_child(uffd_create_child, "CB CREATE/MAP of userfaultfd", &pid,
			&now, &abandoned);
	assert_int_equal(abandoned, 2);
	/* another context of the same device */
	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0);
	assert_true(fd >= 0);
	assert_int_equal(cb_create_at(fd, cb, sizeof(cb), NULL), 0);
	assert_int_equal(map_userptr_at(fd, buf, sizeof(buf)), 0);
	close(fd);
	assert_int_equal(hpu_test_kill_child(pid, &status), 0);
	wait_unstuck();
}

/* A sealed (F_SEAL_SHRINK) memfd of @size bytes, or -1 */
static int sealed_memfd(size_t size, unsigned int more_seals)
{
	int fd = (int)syscall(SYS_memfd_create, "hpu-test",
			      MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | more_seals))
		return -1;
	return fd;
}

/* The same file opened again with @flags */
static int reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags | O_CLOEXEC);
}

static volatile sig_atomic_t lease_breaks;

static void on_lease_break(int sig)
{
	(void)sig;
	lease_breaks++;
}

/*
 * MAP_SHM of a file the caller holds a write lease on (a tmpfs file: a
 * memfd takes no lease): the daemon opens nothing (it takes the caller's
 * own descriptor), so it neither waits for the lease (an open would wait
 * lease-break-time, 45 s by default) nor breaks it. The file, not being
 * sealed, is then refused with EINVAL.
 */
/*
 * Child: creates the file @arg (a path), takes a write lease on it and
 * MAP_SHMs it; reports MAP_SHM's answer (1: the lease is gone, 2: it was
 * broken, -1000 - errno: no lease to take), then exits
 */
static void lease_child(int report, void *arg)
{
	struct sigaction sa = { .sa_handler = on_lease_break };
	int fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0), file, v;

	sigaction(SIGIO, &sa, NULL);
	file = open(arg, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || file < 0 || ftruncate(file, 4096))
		_exit(100);
	if (fcntl(file, F_SETLEASE, F_WRLCK)) {
		v = -1000 - errno;
	} else {
		v = map_shm(fd, file, 4096, NULL);
		if (v == -EINVAL && fcntl(file, F_GETLEASE) != F_WRLCK)
			v = 1;
		if (v == -EINVAL && lease_breaks)
			v = 2;
	}
	if (write(report, &v, sizeof(v)) != sizeof(v))
		_exit(101);
	_exit(0);
}

static void test_shm_lease(void **state)
{
	int status, v;
	char path[64];
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "/dev/shm/hpu-test-lease-%d",
		 (int)getpid());
	v = run_reporter(lease_child, path, "MAP_SHM of a leased file", &pid);
	unlink(path);
	assert_int_equal(hpu_test_wait_child(pid, ANSWER_MS, &status), 0);
	if (v <= -1000) {
		print_message("skipped: F_SETLEASE: %s\n", strerror(-1000 - v));
		skip();
	}
	assert_int_equal(v, -EINVAL);
}

/* What MAP_SHM checks on the descriptor it holds */
static void test_shm_modes_and_seals(void **state)
{
	int fd, rw, ro, sealed, fsealed, unsealed;
	uint64_t va = 0;

	(void)state;
	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0);
	assert_true(fd >= 0);
	rw = sealed_memfd(8192, 0);
	assert_true(rw >= 0);
	ro = reopen(rw, O_RDONLY);
	assert_true(ro >= 0);
	sealed = sealed_memfd(8192, F_SEAL_WRITE);
	assert_true(sealed >= 0);
	fsealed = sealed_memfd(8192, F_SEAL_FUTURE_WRITE);
	assert_true(fsealed >= 0);
	unsealed = (int)syscall(SYS_memfd_create, "hpu-test", MFD_CLOEXEC);
	assert_true(unsealed >= 0);
	assert_int_equal(ftruncate(unsealed, 8192), 0);

	assert_int_equal(map_shm(fd, ro, 4096, NULL), -EACCES);
	assert_int_equal(map_shm(fd, sealed, 4096, NULL), -EACCES);
	assert_int_equal(map_shm(fd, fsealed, 4096, NULL), -EACCES);
	assert_int_equal(map_shm(fd, unsealed, 4096, NULL), -EINVAL);
	assert_int_equal(map_shm(fd, 100000, 4096, NULL), -EBADF);
	assert_int_equal(map_shm(fd, rw, 3 * 4096, NULL), -EINVAL);
	assert_int_equal(map_shm(fd, rw, 8192, &va), 0);
	assert_int_equal(unmap(fd, va), 0);
	close(unsealed);
	close(fsealed);
	close(sealed);
	close(ro);
	close(rw);
	close(fd);
}

/**
 * struct swapper - a thread that keeps pointing one descriptor number at
 * two files
 * @num: the descriptor number
 * @a: first file
 * @b: second file
 * @stop: set to end the thread
 */
struct swapper {
	int num;
	int a;
	int b;
	volatile int stop;
};

static void *swap_thread(void *arg)
{
	struct swapper *s = arg;

	while (!s->stop) {
		dup2(s->a, s->num);
		dup2(s->b, s->num);
	}
	return NULL;
}

/*
 * MAP_SHM while another thread swaps the descriptor between a writable
 * file and a read-only one: whatever the daemon maps, it checked; a DMA
 * into every successful mapping never reaches the read-only file.
 */
static void test_shm_fd_swap(void **state)
{
	struct swapper sw = { 0 };
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	int i, ok = 0, refused = 0, other = 0, ret, fd, rwb;
	uint32_t status;
	uint64_t va, seq;
	uint8_t *b_view;
	pthread_t t;
	long t0;

	(void)state;
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	fd = hpu_device_fd(dev);
	sw.a = sealed_memfd(4096, 0);
	rwb = sealed_memfd(4096, 0);
	assert_true(sw.a >= 0 && rwb >= 0);
	/* the caller may only read B */
	sw.b = reopen(rwb, O_RDONLY);
	assert_true(sw.b >= 0);
	b_view = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rwb, 0);
	assert_true(b_view != MAP_FAILED);
	sw.num = dup(sw.a);
	assert_true(sw.num >= 0);
	assert_int_equal(pthread_create(&t, NULL, swap_thread, &sw), 0);

	t0 = hpu_test_now_ms();
	for (i = 0; i < SWAP_TRIES && hpu_test_now_ms() - t0 < 20000; i++) {
		ret = map_shm(fd, sw.num, 4096, &va);
		if (ret == -EACCES) {
			refused++;
			continue;
		}
		if (ret) {
			other++;
			continue;
		}
		ok++;
		hpu_cb_builder_reset(cb);
		assert_int_equal(hpu_cb_memset(cb, va, 4096, 0x5a, 1), 0);
		assert_int_equal(hpu_cb_builder_submit(cb, 0, 0, 0, &seq, NULL),
				 0);
		assert_int_equal(hpu_cs_wait(dev, seq, WAIT_US, &status), 0);
		assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
		assert_int_equal(unmap(fd, va), 0);
		if (b_view[0] || b_view[4095])
			break;
	}
	sw.stop = 1;
	pthread_join(t, NULL);
	print_message("%d tries: %d mapped, %d refused, %d other\n", i, ok,
		      refused, other);
	/* the read-only file was never written */
	assert_int_equal(b_view[0], 0);
	assert_int_equal(b_view[4095], 0);
	assert_int_equal(other, 0);
	assert_true(ok > 0);
	munmap(b_view, 4096);
	close(sw.num);
	close(sw.b);
	close(rwb);
	close(sw.a);
	hpu_cb_builder_destroy(cb);
	hpu_close(dev);
}

/* Descriptors the daemon holds */
static int daemon_fds(void)
{
	long n = hpu_test_fds_of(hpu_test_shared.pid);

	assert_true(n >= 0);
	return (int)n;
}

/*
 * 1000 CBs of one process hold one pidfd, not 1000; a context takes host
 * memory of 16 processes at most (-EMFILE for the 17th).
 */
static void test_pidfd_per_process(void **state)
{
	static uint64_t bufs[CBS_N][8];
	int fd, before, after, i;
	pid_t pid;

	(void)state;
	fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", 0);
	assert_true(fd >= 0);
	before = daemon_fds();
	for (i = 0; i < CBS_N; i++)
		assert_int_equal(
			cb_create_at(fd, bufs[i], sizeof(bufs[i]), NULL), 0);
	after = daemon_fds();
	print_message("daemon descriptors: %d before, %d with %d CBs\n", before,
		      after, CBS_N);
	assert_true(after - before <= 2);

	/* 15 more processes are fine, the 17th is one too many */
	for (i = 0; i < 16; i++) {
		pid = hpu_test_fork_child();
		assert_true(pid >= 0);
		if (!pid)
			_exit(-cb_create_at(fd, bufs[i], sizeof(bufs[i]),
					    NULL));
		assert_int_equal(child_exit_code(pid, ANSWER_MS, "CB CREATE"),
				 i < 15 ? 0 : EMFILE);
	}
	close(fd);
}

/*
 * SIGTERM while workers are stuck in client memory: the daemon is gone,
 * and its mount too, within the stop bound.
 */
/*
 * Child: an INFO of hpu_control0 of the daemon mounted at @arg into
 * userfaultfd memory nobody resolves; reports its answer, then keeps the
 * memory until killed
 */
static void stuck_info_child(int report, void *arg)
{
	struct call c = { 0 };
	int ufd, v;

	c.fd = hpu_test_open_node(arg, "hpu_control", 0);
	c.ptr = uffd_region(4096, &ufd);
	v = c.fd >= 0 && c.ptr ? call_on_thread(&c) : 100;
	if (write(report, &v, sizeof(v)) != sizeof(v))
		_exit(101);
	pause();
	_exit(0);
}

static void test_sigterm_stuck(void **state)
{
	struct hpu_test_daemon d;
	int rfd, status, v = 0, ret, stopped;
	pid_t pid;
	long t0;

	(void)state;
	HPU_TEST_SKIP_IF(uffd_unavailable());
	assert_int_equal(hpu_test_daemon_start(&d, 1, "gaudi2", daemon_args),
			 0);
	pid = fork_reporter(stuck_info_child, d.mount, &rfd);
	ret = child_report_wait(rfd, pid, "INFO into userfaultfd", &v);
	close(rfd);
	t0 = hpu_test_now_ms();
	/* 10 s bound; the daemon's own is HFD_STOP_BOUND_MS */
	stopped = hpu_test_daemon_stop(&d);
	print_message("stopped after %ld ms with a stuck worker\n",
		      hpu_test_now_ms() - t0);
	hpu_test_kill_child(pid, &status);
	/* the shared daemon is the one of the next tests */
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
	assert_int_equal(ret, 0);
	assert_int_equal(v, -EFAULT);
	assert_int_equal(stopped, 0);
}

/* --uaccess-timeout-ms outside 50..60000 is a usage error (exit 2) */
static void test_timeout_option(void **state)
{
	static const char *const bad[] = { "49", "60001", "0", "x", "" };
	char *argv[] = { (char *)hpu_test_bin("hpu-fused"),
			 "--uaccess-timeout-ms", NULL, "--help", NULL };
	unsigned int i;
	int status;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[2] = (char *)bad[i];
		assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
		assert_int_equal(status, 2);
	}
	argv[2] = "50";
	assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
	assert_int_equal(status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_self_recursion,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_uffd_info, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_honest_burst_beside_stuck,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_uffd_cb_create_map,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_shm_lease, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_shm_modes_and_seals,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_shm_fd_swap, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_pidfd_per_process,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_sigterm_stuck,
				       hpu_test_need_daemon),
		cmocka_unit_test(test_timeout_option),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
