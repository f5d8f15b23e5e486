// SPDX-License-Identifier: MIT
/*
 * hpu_test_daemon.c - start and stop the real hpu-fused for tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hpu_test_blas.h"
#include "hpu_test_daemon.h"
#include "hpu_test_proc.h"
#include "hpu_test_util.h"
#include "hpudrv.h"

#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS	 10000
#define RUN_TIMEOUT_MS	 30000

void hpu_test_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

const char *hpu_test_have_fuse(void)
{
	if (access("/dev/fuse", R_OK | W_OK))
		return "/dev/fuse is not usable";
	if (geteuid() != 0 && access("/usr/bin/fusermount3", X_OK))
		return "not root and no fusermount3";
	return NULL;
}

const char *hpu_test_bin(const char *name)
{
	static char path[PATH_MAX];
	const char *o = getenv("O");

	snprintf(path, sizeof(path), "%s/bin/%s", o && *o ? o : "build", name);
	return path;
}

bool hpu_test_is_mounted(const char *dir)
{
	char line[4096], mnt[PATH_MAX];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    !strcmp(mnt, dir))
			found = true;
	}
	fclose(f);
	return found;
}

static void print_log(const struct hpu_test_daemon *d)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(d->log, "r");

	if (!f)
		return;
	fprintf(stderr, "--- hpu-fused log (%s) ---\n", d->log);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fprintf(stderr, "--- end of log ---\n");
	fclose(f);
}

int hpu_test_daemon_log_count(const struct hpu_test_daemon *d,
			      const char *needle, char *last, size_t len)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(d->log, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle)) {
			n++;
			if (last)
				snprintf(last, len, "%s", line);
		}
	fclose(f);
	return n;
}

/*
 * Whether the daemon reported a broken invariant: an HPU_WARN_ON() line
 * in its log (fusedev/log.c logs them as errors). A test whose daemon
 * warned fails at its stop, though every assertion of its own passed.
 */
static bool log_has_warning(const struct hpu_test_daemon *d)
{
	return hpu_test_daemon_log_count(d, "WARN_ON(", NULL, 0) > 0;
}

static int wait_ready(struct hpu_test_daemon *d)
{
	char node[PATH_MAX + 16];
	int waited, status, fd;

	snprintf(node, sizeof(node), "%s/hpu%d", d->mount, d->ndev - 1);
	for (waited = 0; waited < START_TIMEOUT_MS; waited += 10) {
		if (hpu_test_is_mounted(d->mount)) {
			fd = open(node, O_RDWR);
			if (fd >= 0) {
				close(fd);
				return 0;
			}
		}
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return -ECHILD;
		}
		hpu_test_sleep_ms(10);
	}
	return -ETIMEDOUT;
}

int hpu_test_daemon_spawn(struct hpu_test_daemon *d, const char *dir, int ndev,
			  const char *const *args)
{
	const char *argv[32];
	int argc = 0, fd, n;

	memset(d, 0, sizeof(*d));
	d->ndev = ndev;
	n = snprintf(d->mount, sizeof(d->mount), "%s", dir);
	if (n < 0 || (size_t)n >= sizeof(d->mount) - 4)
		return -ENAMETOOLONG;
	n = snprintf(d->log, sizeof(d->log), "%s.log", d->mount);
	if (n < 0 || (size_t)n >= sizeof(d->log))
		return -ENAMETOOLONG;

	argv[argc++] = hpu_test_bin("hpu-fused");
	while (args && *args && argc < 31)
		argv[argc++] = *args++;
	argv[argc] = NULL;

	hpu_test_blas_pin();
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return wait_ready(d);
}

int hpu_test_daemon_start(struct hpu_test_daemon *d, int ndev, const char *type,
			  const char *const *extra)
{
	char dir[] = "/tmp/hpu-test-XXXXXX", ndev_s[16];
	const char *argv[32];
	int argc = 0, ret;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(ndev_s, sizeof(ndev_s), "%d", ndev);
	argv[argc++] = "--foreground";
	argv[argc++] = "--devices";
	argv[argc++] = ndev_s;
	argv[argc++] = "--type";
	argv[argc++] = type;
	argv[argc++] = "--mount";
	argv[argc++] = dir;
	while (extra && *extra && argc < 31)
		argv[argc++] = *extra++;
	argv[argc] = NULL;

	ret = hpu_test_daemon_spawn(d, dir, ndev, argv);
	if (ret) {
		print_log(d);
		/* stop reaps the daemon, unmounts and removes the directory */
		hpu_test_daemon_stop(d);
		return ret;
	}
	setenv("HPU_DEV_DIR", d->mount, 1);
	return 0;
}

int hpu_test_daemon_stop(struct hpu_test_daemon *d)
{
	int status = 0, ret = 0;

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		ret = hpu_test_wait_child(d->pid, STOP_TIMEOUT_MS, &status);
		if (ret)
			hpu_test_kill_child(d->pid, &status);
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			ret = -EPROTO;
		d->pid = 0;
	}
	if (hpu_test_is_mounted(d->mount)) {
		/* never leave a mount behind, whatever the daemon did */
		char *const argv[] = { "/usr/bin/fusermount3", "-u", "-z",
				       d->mount, NULL };
		hpu_test_run(argv, NULL, &status);
		if (!ret)
			ret = -EBUSY;
	}
	if (!ret && log_has_warning(d)) {
		fprintf(stderr, "hpu-fused reported a WARN_ON\n");
		ret = -EPROTO;
	}
	if (ret)
		print_log(d);
	if (d->mount[0] && rmdir(d->mount) && !ret)
		ret = -errno;
	unlink(d->log);
	return ret;
}

int hpu_test_run(char *const argv[], char **out, int *status)
{
	struct hpu_test_proc p;
	int ret = hpu_test_proc_run(&p, argv, NULL, RUN_TIMEOUT_MS);

	if (ret)
		return ret;
	*status = p.status;
	if (out) {
		*out = p.out;
		p.out = NULL;
	}
	hpu_test_proc_free(&p);
	return 0;
}

void hpu_test_run_refused(char *const argv[], char **out)
{
	char line[512];
	size_t len = 0;
	int status = -1;
	unsigned int i;

	assert_int_equal(hpu_test_run(argv, out, &status), 0);
	if (status != 2) {
		line[0] = '\0';
		for (i = 0; argv[i] && len < sizeof(line); i++)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"%s%s", i ? " " : "", argv[i]);
		print_message("'%s': exit %d, want 2 (a usage error)\n", line,
			      status);
	}
	assert_int_equal(status, 2);
}

pid_t hpu_test_hold_open(const char *path)
{
	int pipefd[2], status;
	char c = 'n';
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (pid == 0) {
		int fd = open(path, O_RDWR);

		c = fd >= 0 ? 'y' : 'n';
		if (write(pipefd[1], &c, 1) != 1 || fd < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		c = 'n';
	close(pipefd[0]);
	if (c != 'y') {
		waitpid(pid, &status, 0);
		return -EIO;
	}
	return pid;
}

int hpu_test_open_node(const char *mount, const char *name, int index)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%d", mount, name, index);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

struct hpu_test_daemon hpu_test_shared;
static const char *shared_skip_reason;
static bool shared_up;

int hpu_test_group_start_args(int ndev, const char *type,
			      const char *const *extra)
{
	int ret;

	unsetenv("HPU_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_MODULES");
	shared_skip_reason = hpu_test_have_fuse();
	if (shared_skip_reason)
		return 0;
	ret = hpu_test_daemon_start(&hpu_test_shared, ndev, type, extra);
	if (ret) {
		fprintf(stderr, "cannot start hpu-fused: %s\n", strerror(-ret));
		return -1;
	}
	shared_up = true;
	return 0;
}

int hpu_test_group_start(int ndev, const char *type)
{
	return hpu_test_group_start_args(ndev, type, NULL);
}

int hpu_test_group_start_cs(int ndev, const char *type)
{
	if (hpu_test_group_start(ndev, type))
		return -1;
	return hpu_test_require_cs();
}

int hpu_test_group_start_infos(int ndev, const char *type,
			       struct hpu_device_info *infos)
{
	int i;

	if (hpu_test_group_start(ndev, type))
		return -1;
	if (hpu_test_have_fuse())
		return 0;
	for (i = 0; i < ndev; i++)
		if (hpu_device_get_info(i, &infos[i]))
			return -1;
	return 0;
}

int hpu_test_group_stop(void **state)
{
	(void)state;
	if (!shared_up)
		return 0;
	shared_up = false;
	return hpu_test_daemon_stop(&hpu_test_shared) ? -1 : 0;
}

int hpu_test_need_daemon(void **state)
{
	(void)state;
	if (shared_skip_reason) {
		print_message("skipped: %s\n", shared_skip_reason);
		skip();
	}
	return 0;
}

int hpu_test_require_cs(void)
{
	const uint64_t caps = HPU_CAP_MEMORY | HPU_CAP_CB | HPU_CAP_CS;
	struct hpu_info_driver_version dv;
	struct hpu_device *ctl;
	int ret = 0;

	if (hpu_open_control(0, &ctl))
		return 0;
	if (hpu_info_driver_version(ctl, &dv) ||
	    (dv.capabilities & caps) != caps) {
		fprintf(stderr, "the driver lacks MEMORY/CB/CS\n");
		ret = -1;
	}
	hpu_close(ctl);
	return ret;
}

int hpu_test_open_dev(int index)
{
	int fd = hpu_test_open_node(hpu_test_shared.mount, "hpu", index);

	assert_true(fd >= 0);
	return fd;
}
