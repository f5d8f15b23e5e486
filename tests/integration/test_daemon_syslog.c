// SPDX-License-Identifier: MIT
/*
 * test_daemon_syslog.c - hpu-fused without --foreground logs to syslog,
 * tested for real: a forked child enters a private mount namespace and
 * bind-mounts a datagram socket of the test onto /dev/log (a single file:
 * /dev, and /dev/fuse in it, stay as they are), then starts the daemon
 * there and gives it work. The test reads every datagram: the start-up
 * message (facility daemon, priority info, the daemon's pid), warnings
 * (a CS timeout, a refused hot-plug command), a flood of rejected ioctls
 * bounded by the rate limit with its "N similar messages suppressed"
 * summary, and the stop message last.
 *
 * Needs root (unshare(CLONE_NEWNS), mount(2)); skips with the reason
 * otherwise. When /dev/log does not exist, an empty file is made there as
 * the mount point for the time of the test and removed after it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define DEV_LOG		"/dev/log"
/* the flood stops at this count or after FLOOD_MAX_MS (sanitizer builds) */
#define BAD_CALLS	20000
#define FLOOD_MAX_MS	4000
/* log.c: RL_BURST messages per RL_WINDOW_S seconds and call site */
#define RL_BURST	10
#define RL_WINDOW_S	5
#define BAD_IOCTL	_IOWR('d', 0x7e, uint64_t)
#define REJECT_TEXT	"rejected: Inappropriate ioctl for device"
#define SUPPRESSED_TEXT " similar messages suppressed"
/* the whole run in the namespace, start to stop */
#define CHILD_MAX_MS	30000
#define MAX_MSGS	1000
#define EXIT_SKIP	77

/* What the child in the namespace reports through a pipe */
struct child_report {
	long bad_calls;
	long flood_ms;
	int daemon_pid;
	char reason[256];
};

/* Every datagram the socket got, in order */
struct msgs {
	char *text[MAX_MSGS];
	int n;
	long dropped;
};

static char work_dir[PATH_MAX];
static char sock_path[PATH_MAX + 16];
static char mnt[PATH_MAX + 16];
static char starter_log[PATH_MAX + 16];

static int set_reason(struct child_report *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	(void)n;
	return -1;
}

/* Starts hpu-fused in daemon mode; it returns once the mount is served. */
static int start_daemon(struct child_report *r)
{
	const char *fused = hpu_test_bin("hpu-fused");
	char pid_path[PATH_MAX + 32], buf[32];
	int status, fd;
	pid_t pid;
	FILE *f;

	pid = fork();
	if (pid < 0)
		return set_reason(r, "fork: %s", strerror(errno));
	if (!pid) {
		fd = open(starter_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		execl(fused, fused, "--devices", "1", "--type", "gaudi2",
		      "--mount", mnt, "--log-level", "debug", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return set_reason(r, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return set_reason(r, "hpu-fused (daemon mode) exited with 0x%x",
				  status);
	/* it returned: the directory is served already */
	snprintf(pid_path, sizeof(pid_path), "%s/driver/pid", mnt);
	f = fopen(pid_path, "re");
	if (!f)
		return set_reason(r, "%s: %s", pid_path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	r->daemon_pid = atoi(buf);
	if (r->daemon_pid <= 0 || r->daemon_pid == pid)
		return set_reason(r, "driver/pid says '%s'", buf);
	return 0;
}

/* A CS that waits on a sync object nobody signals: a timeout (warn) */
static int cs_timeout(struct child_report *r)
{
	struct hpu_cb_builder *cb;
	struct hpu_device *dev;
	uint32_t status = 0;
	uint64_t seq;
	int ret;

	ret = hpu_open(0, &dev);
	if (ret)
		return set_reason(r, "hpu_open: %s", hpu_strerror(ret));
	ret = hpu_cb_builder_create(dev, 4096, &cb);
	if (!ret)
		ret = hpu_cb_fence(cb, 99, 1, 1);
	if (!ret)
		ret = hpu_cb_builder_submit(cb, 1, 0, 200, &seq, NULL);
	/* the daemon's timer thread ends it after 200 ms */
	if (!ret)
		ret = hpu_cs_wait(dev, seq, 10 * 1000 * 1000, &status);
	if (cb)
		hpu_cb_builder_destroy(cb);
	hpu_close(dev);
	if (ret)
		return set_reason(r, "CS: %s", hpu_strerror(ret));
	if (status != HPU_WAIT_CS_STATUS_TIMEDOUT)
		return set_reason(
			r, "a fenced CS with a 200 ms timeout: status %u",
			status);
	return 0;
}

static int refused_hotplug(struct child_report *r)
{
	char path[PATH_MAX + 32];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/driver/hotplug", mnt);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return set_reason(r, "%s: %s", path, strerror(errno));
	if (write(fd, "frobnicate", 10) < 0)
		err = errno;
	close(fd);
	if (err != EINVAL)
		return set_reason(r, "a bad hot-plug command: errno %d", err);
	return 0;
}

static int flood(struct child_report *r)
{
	char path[PATH_MAX + 32];
	uint64_t arg = 0;
	long start, n;
	int fd;

	snprintf(path, sizeof(path), "%s/hpu0", mnt);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return set_reason(r, "%s: %s", path, strerror(errno));
	start = hpu_test_now_ms();
	/* n counts the calls made, also when the time bound ends the loop */
	for (n = 0; n < BAD_CALLS;) {
		if (ioctl(fd, BAD_IOCTL, &arg) != -1 || errno != ENOTTY) {
			close(fd);
			return set_reason(r, "a bad ioctl was not ENOTTY");
		}
		n++;
		if (!(n & 255) && hpu_test_now_ms() - start > FLOOD_MAX_MS)
			break;
	}
	r->flood_ms = hpu_test_now_ms() - start;
	/* one more once the window is over: it brings the summary */
	hpu_test_sleep_ms(RL_WINDOW_S * 1000 + 1200);
	ioctl(fd, BAD_IOCTL, &arg);
	close(fd);
	r->bad_calls = n + 1;
	return 0;
}

static int stop_daemon(struct child_report *r)
{
	pid_t pid = r->daemon_pid;
	int status;

	kill(pid, SIGTERM);
	/* we are its subreaper: it is our child now */
	if (hpu_test_wait_child(pid, 10000, &status)) {
		hpu_test_kill_child(pid, &status);
		return set_reason(r, "the daemon did not stop within 10 s");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return set_reason(r, "the daemon exited with 0x%x", status);
	return 0;
}

/* The namespace part of the test; returns the child's exit status. */
static int child_main(struct child_report *r)
{
	bool made_target = false;
	struct stat st;
	int fd, ret;

	if (unshare(CLONE_NEWNS)) {
		set_reason(r, "unshare(CLONE_NEWNS): %s", strerror(errno));
		return EXIT_SKIP;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		set_reason(r, "making / private: %s", strerror(errno));
		return EXIT_SKIP;
	}
	if (lstat(DEV_LOG, &st)) {
		fd = open(DEV_LOG, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0644);
		if (fd < 0) {
			set_reason(r, "cannot make %s: %s", DEV_LOG,
				   strerror(errno));
			return EXIT_SKIP;
		}
		close(fd);
		made_target = true;
	}
	if (mount(sock_path, DEV_LOG, NULL, MS_BIND, NULL)) {
		set_reason(r, "bind mount onto %s: %s", DEV_LOG,
			   strerror(errno));
		ret = EXIT_SKIP;
		goto out_unlink;
	}
	/* the daemon leaves its starter: it must become our child */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setenv("HPU_DEV_DIR", mnt, 1);
	ret = 1;
	if (start_daemon(r))
		goto out_umount;
	if (cs_timeout(r) || refused_hotplug(r) || flood(r)) {
		kill(r->daemon_pid, SIGTERM);
		goto out_umount;
	}
	if (!stop_daemon(r))
		ret = 0;
out_umount:
	umount2(DEV_LOG, MNT_DETACH);
out_unlink:
	if (made_target)
		unlink(DEV_LOG);
	return ret;
}

static void collect(int sock, struct msgs *m)
{
	char buf[2048];
	ssize_t n;

	while ((n = recv(sock, buf, sizeof(buf) - 1, MSG_DONTWAIT)) >= 0) {
		buf[n] = '\0';
		if (m->n < MAX_MSGS)
			m->text[m->n++] = strdup(buf);
		else
			m->dropped++;
	}
}

/*
 * One syslog datagram: "<PRI>Mmm dd hh:mm:ss hpu-fused[PID]: TEXT"
 * (glibc's format). Returns TEXT, or NULL when it is not in that form.
 */
static const char *parse(const char *d, int *pri, int *pid)
{
	const char *ident, *text;

	if (sscanf(d, "<%d>", pri) != 1)
		return NULL;
	ident = strstr(d, " hpu-fused[");
	if (!ident || sscanf(ident, " hpu-fused[%d]", pid) != 1)
		return NULL;
	text = strstr(ident, "]: ");
	return text ? text + 3 : NULL;
}

static void print_msgs(const struct msgs *m)
{
	int i;

	fprintf(stderr, "--- %d datagrams ---\n", m->n);
	for (i = 0; i < m->n && i < 60; i++)
		fprintf(stderr, "%s\n", m->text[i]);
}

static void print_starter_log(void)
{
	char buf[1024];
	size_t n;
	FILE *f = fopen(starter_log, "r");

	if (!f)
		return;
	fprintf(stderr, "--- hpu-fused's terminal output ---\n");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

/* Runs the child, gathering datagrams until it is gone */
static int run_child(int sock, struct msgs *m, struct child_report *r)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	int pipefd[2], status = 0;
	long start = hpu_test_now_ms();
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(pipefd[0]);
		status = child_main(r);
		if (write(pipefd[1], r, sizeof(*r)) != sizeof(*r))
			status = 1;
		_exit(status);
	}
	close(pipefd[1]);
	for (;;) {
		poll(&pfd, 1, 100);
		collect(sock, m);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (hpu_test_now_ms() - start > CHILD_MAX_MS) {
			snprintf(r->reason, sizeof(r->reason),
				 "the namespace child took over %d ms",
				 CHILD_MAX_MS);
			if (hpu_test_kill_child(pid, &status)) {
				/* it still holds the pipe: no report to read */
				close(pipefd[0]);
				return 1;
			}
			break;
		}
	}
	collect(sock, m);
	if (read(pipefd[0], r, sizeof(*r)) != sizeof(*r) && !r->reason[0])
		snprintf(r->reason, sizeof(r->reason),
			 "the namespace child died (status 0x%x)", status);
	close(pipefd[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int make_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sock, size = 4 << 20;

	if (strlen(sock_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, sock_path);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		close(sock);
		return -errno;
	}
	chmod(sock_path, 0666);
	return sock;
}

/**
 * struct tally - what the datagrams say
 * @start: index of the start-up message, -1 when missing
 * @stop: index of "stopped", -1 when missing
 * @rejected: messages of the flooded call site
 * @summaries: "N similar messages suppressed" lines of it
 * @suppressed: sum of their N
 * @cs_warn: the CS timeout warning
 * @hotplug_warn: the refused hot-plug command warning
 * @bad: datagrams not in syslog form or from another pid
 */
struct tally {
	int start;
	int stop;
	long rejected;
	long summaries;
	long suppressed;
	int cs_warn;
	int hotplug_warn;
	int bad;
};

static void count(const struct msgs *m, int daemon_pid, struct tally *t)
{
	const char *text;
	int i, pri, pid;

	memset(t, 0, sizeof(*t));
	t->start = t->stop = -1;
	for (i = 0; i < m->n; i++) {
		text = parse(m->text[i], &pri, &pid);
		if (!text || pid != daemon_pid) {
			t->bad++;
			continue;
		}
		if (strstr(text, " gaudi2 device(s), up to ")) {
			assert_int_equal(pri, LOG_DAEMON | LOG_INFO);
			t->start = i;
		} else if (!strcmp(text, "stopped")) {
			assert_int_equal(pri, LOG_DAEMON | LOG_INFO);
			t->stop = i;
		} else if (strstr(text, REJECT_TEXT)) {
			assert_int_equal(pri, LOG_DAEMON | LOG_DEBUG);
			t->rejected++;
		} else if (strstr(text, SUPPRESSED_TEXT)) {
			assert_int_equal(pri, LOG_DAEMON | LOG_DEBUG);
			t->summaries++;
			t->suppressed += atol(text);
		} else if (strstr(text, "timed out")) {
			assert_int_equal(pri, LOG_DAEMON | LOG_WARNING);
			t->cs_warn++;
		} else if (strstr(text, "driver/hotplug: error: unknown")) {
			assert_int_equal(pri, LOG_DAEMON | LOG_WARNING);
			t->hotplug_warn++;
		}
	}
}

/* Removes the work directory and frees the datagrams */
static void cleanup(struct msgs *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		free(m->text[i]);
	m->n = 0;
	unlink(starter_log);
	unlink(sock_path);
	rmdir(mnt);
	rmdir(work_dir);
}

static void test_daemon_logs_to_syslog(void **state)
{
	struct child_report r;
	struct tally t;
	struct msgs m;
	long windows;
	int sock, status;
	bool had_dev_log;
	struct stat st;
	const char *reason;

	(void)state;
	reason = hpu_test_have_fuse();
	if (!reason && geteuid())
		reason = "not root: a private mount namespace needs root";
	if (reason) {
		print_message("skipped: %s\n", reason);
		skip();
	}
	memset(&m, 0, sizeof(m));
	memset(&r, 0, sizeof(r));
	snprintf(work_dir, sizeof(work_dir), "/tmp/hpu-test-syslog-XXXXXX");
	assert_non_null(mkdtemp(work_dir));
	snprintf(sock_path, sizeof(sock_path), "%s/log", work_dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", work_dir);
	snprintf(starter_log, sizeof(starter_log), "%s/starter.log", work_dir);
	assert_int_equal(mkdir(mnt, 0755), 0);
	sock = make_socket();
	assert_true(sock >= 0);
	had_dev_log = !lstat(DEV_LOG, &st);

	status = run_child(sock, &m, &r);
	close(sock);
	/* the placeholder mount point never outlives the test */
	if (!had_dev_log && !lstat(DEV_LOG, &st) && S_ISREG(st.st_mode) &&
	    !st.st_size)
		unlink(DEV_LOG);
	if (status == EXIT_SKIP) {
		print_message("skipped: %s\n", r.reason);
		cleanup(&m);
		skip();
	}
	if (status) {
		print_msgs(&m);
		print_starter_log();
		cleanup(&m);
		fail_msg("%s", r.reason);
		return;
	}

	count(&m, r.daemon_pid, &t);
	printf("%d datagrams: %ld rejected of %ld bad ioctls (in %ld ms), "
	       "%ld summaries of %ld suppressed\n",
	       m.n, t.rejected, r.bad_calls, r.flood_ms, t.summaries,
	       t.suppressed);
	if (t.start != 0 || t.stop != m.n - 1 || t.bad)
		print_msgs(&m);
	/* the start-up message first, "stopped" last, all from the daemon */
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.start, 0);
	assert_int_equal(t.stop, m.n - 1);
	assert_int_equal(t.cs_warn, 1);
	assert_int_equal(t.hotplug_warn, 1);
	/* the flood is bounded, and every message printed or counted */
	windows = (r.flood_ms + RL_WINDOW_S * 1000 + 1200) /
			  (RL_WINDOW_S * 1000) +
		  2;
	assert_true(r.bad_calls > 1000);
	assert_true(t.rejected >= 1);
	assert_true(t.rejected <= RL_BURST * windows);
	assert_true(t.summaries >= 1);
	assert_true(t.summaries <= windows);
	assert_int_equal(t.rejected + t.suppressed, r.bad_calls);
	assert_true(m.n < 200);
	assert_int_equal(m.dropped, 0);
	/* nothing went to the terminal after the start-up */
	assert_int_equal(stat(starter_log, &st), 0);
	assert_int_equal(st.st_size, 0);

	cleanup(&m);
	assert_int_equal(access(work_dir, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_logs_to_syslog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
