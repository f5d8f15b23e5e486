// SPDX-License-Identifier: MIT
/*
 * hpu_test_util.c - clock, free port, tied children and bounded waits for
 * them, monitor waits, CSV columns, stuck processes and raw ioctls for
 * the tests.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hpu_test_util.h"
#include "hpu_tsan.h"
#include "hpudrv.h"

long hpu_test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int hpu_test_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

#if HPU_TSAN
/* Every signal from 1 to 31 but SIGKILL and SIGSTOP (bits from 0) */
#define ALL_STD_SIGNALS 0x7ffbfeffULL

/*
 * Whether thread @tid of this process is ThreadSanitizer's background
 * thread: the runtime starts it with the first pthread_create() and
 * never ends it; it holds none of the program's locks, the runtime
 * quiesces it around fork() and the child does not have it. It is the
 * one thread that blocks every signal (the runtime starts it so; no
 * thread of the project blocks signals).
 */
static bool is_tsan_thread(const char *tid)
{
	char path[300], line[128];
	unsigned long long blk = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigBlk: %llx", &blk) == 1;
	fclose(f);
	return found && (blk & ALL_STD_SIGNALS) == ALL_STD_SIGNALS;
}

/* Under ThreadSanitizer: the threads but the runtime's own, or -errno */
static int program_threads(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && !is_tsan_thread(e->d_name))
			n++;
	closedir(d);
	return n;
}
#else
/* Threads of this process (/proc/self/status), or -errno */
static int program_threads(void)
{
	char line[128];
	int n = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}
#endif

/*
 * OpenBLAS stops its thread pool itself before every fork (and starts it
 * again when next used): stopped first, its threads are not counted.
 */
extern int blas_thread_shutdown_(void) __attribute__((weak));

pid_t hpu_test_fork_child(void)
{
	pid_t parent = getpid(), pid;
	int threads;

	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
	threads = program_threads();

	/*
	 * The child of a process with other threads inherits their locks
	 * held (the ASan allocator's, among others) and can wait for them
	 * forever: under ASan, 8-rank suites hung that way in malloc.
	 */
	if (threads > 1) {
		fprintf(stderr,
			"hpu_test_fork_child: this process has %d threads; a "
			"forked child may inherit a lock held forever (fork "
			"before starting threads)\n",
			threads);
		return -EDEADLK;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	return 0;
}

int hpu_test_wait_child(pid_t pid, int timeout_ms, int *status)
{
	long start = hpu_test_now_ms();
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (hpu_test_now_ms() - start >= timeout_ms)
			return -ETIMEDOUT;
		poll(NULL, 0, 5);
	}
}

#define KILL_REAP_MS 5000

int hpu_test_kill_child(pid_t pid, int *status)
{
	int ret;

	kill(pid, SIGKILL);
	ret = hpu_test_wait_child(pid, KILL_REAP_MS, status);
	if (ret == -ETIMEDOUT) {
		fprintf(stderr,
			"pid %d did not die within %d ms of SIGKILL "
			"(blocked in the driver?)\n",
			(int)pid, KILL_REAP_MS);
		hpu_test_print_proc(pid);
	}
	return ret;
}

int hpu_test_monitor_wait(struct hpu_monitor *mon, struct hpu_monitor_event *ev,
			  int tries)
{
	struct pollfd pfd = { .fd = hpu_monitor_fd(mon), .events = POLLIN };
	int i, ret;

	for (i = 0; i < tries; i++) {
		ret = hpu_monitor_next(mon, ev);
		if (ret != -EAGAIN)
			return ret;
		poll(&pfd, 1, 100);
	}
	return -EAGAIN;
}

char *hpu_test_csv_columns(const char *path, int ncols)
{
	char line[512], *out = NULL;
	size_t outlen = 0;
	bool ok = true;
	FILE *f, *mem;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	mem = open_memstream(&out, &outlen);
	if (!mem) {
		fclose(f);
		return NULL;
	}
	while (ok && fgets(line, sizeof(line), f)) {
		char *c = line;
		int i;

		for (i = 0; i < ncols && c; i++)
			c = strchr(c + 1, ',');
		ok = c != NULL;
		if (ok)
			fprintf(mem, "%.*s\n", (int)(c - line), line);
	}
	fclose(f);
	fclose(mem);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/* First line of @dir/@file, newline cut; "?" when unreadable */
static void proc_line(const char *dir, const char *file, char *buf, size_t len)
{
	char path[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* "S", "D"...: the field after the command name of a stat line */
static char stat_state(const char *stat)
{
	const char *p = strrchr(stat, ')');

	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

static void print_task(const char *dir, const char *who)
{
	char stat[512], wchan[128], sc[128], comm[64], *cut;

	proc_line(dir, "stat", stat, sizeof(stat));
	proc_line(dir, "comm", comm, sizeof(comm));
	proc_line(dir, "wchan", wchan, sizeof(wchan));
	proc_line(dir, "syscall", sc, sizeof(sc));
	/* the system call's number and first argument are enough */
	cut = strchr(sc, ' ');
	if (cut)
		cut = strchr(cut + 1, ' ');
	if (cut)
		*cut = '\0';
	fprintf(stderr, "  %s %s (%s): state %c wchan %s syscall %s\n", who,
		strrchr(dir, '/') + 1, comm, stat_state(stat),
		wchan[0] ? wchan : "-", sc);
}

void hpu_test_print_proc(pid_t pid)
{
	char dir[64], tdir[96];
	struct dirent *e;
	int shown = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	print_task(dir, "process");
	snprintf(tdir, sizeof(tdir), "%s/task", dir);
	d = opendir(tdir);
	if (!d)
		return;
	while ((e = readdir(d)) && shown < 16) {
		char t[96 + 260];

		if (e->d_name[0] == '.' || atoi(e->d_name) == (int)pid)
			continue;
		snprintf(t, sizeof(t), "%s/%s", tdir, e->d_name);
		print_task(t, "thread");
		shown++;
	}
	closedir(d);
}

int hpu_test_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

void hpu_test_fill_random(void *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}
