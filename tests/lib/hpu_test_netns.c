// SPDX-License-Identifier: MIT
/*
 * hpu_test_netns.c - two network namespaces and a veth pair for tests,
 * made and removed with iproute2's `ip`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpu_test_daemon.h"
#include "hpu_test_netns.h"
#include "hpu_test_proc.h"
#include "hpu_test_util.h"

#define IP_TIMEOUT_MS 10000
#define NETNS_DIR     "/run/netns"
#define NAME_PREFIX   "hpu-test-"

static const char *ip_path(void)
{
	static const char *const paths[] = { "/usr/sbin/ip", "/sbin/ip",
					     "/usr/bin/ip", "/bin/ip" };
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/*
 * Run `ip` with the space-separated words of the formatted arguments;
 * bounded. @quiet: do not print its output on failure. Return: 0, or
 * -EIO when it failed, -errno when it could not run.
 */
static int ip(bool quiet, const char *fmt, ...)
{
	const struct hpu_test_proc_opts o = {
		.stderr_mode = HPU_TEST_STDERR_MERGE,
	};
	char cmd[512], *argv[32], *save, *w;
	const char *path = ip_path();
	struct hpu_test_proc p;
	int argc = 0, ret;
	va_list ap;

	if (!path)
		return -ENOENT;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	argv[argc++] = (char *)path;
	for (w = strtok_r(cmd, " ", &save); w && argc < 31;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;

	ret = hpu_test_proc_run(&p, argv, &o, IP_TIMEOUT_MS);
	if (ret)
		return ret;
	ret = p.status ? -EIO : 0;
	if (ret && !quiet) {
		fprintf(stderr, "hpu_test_netns: '%s", path);
		for (argc = 1; argv[argc]; argc++)
			fprintf(stderr, " %s", argv[argc]);
		fprintf(stderr, "' failed: %s\n", p.out);
	}
	hpu_test_proc_free(&p);
	return ret;
}

const char *hpu_test_netns_unavailable(void)
{
	static char reason[128];
	char probe[64];

	if (geteuid() != 0)
		return "not root: network namespaces need CAP_SYS_ADMIN";
	if (!ip_path())
		return "no ip(8) (iproute2) found";
	snprintf(probe, sizeof(probe), NAME_PREFIX "%d-probe", (int)getpid());
	if (ip(true, "netns add %s", probe)) {
		snprintf(reason, sizeof(reason),
			 "'ip netns add' does not work here");
		return reason;
	}
	ip(true, "netns del %s", probe);
	return NULL;
}

/* delete namespaces of earlier runs whose test process is gone */
static void reap_stale(void)
{
	struct dirent *de;
	DIR *d = opendir(NETNS_DIR);
	int pid;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, NAME_PREFIX "%d-", &pid) != 1 ||
		    pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		ip(true, "netns del %s", de->d_name);
	}
	closedir(d);
}

static void describe(struct hpu_test_netns *n)
{
	int pid = (int)getpid(), i;
	/* a /30 of 10.231.0.0/16 from the pid: .4k+1 and .4k+2 */
	unsigned char third = (unsigned char)((pid >> 6) & 0xff);
	unsigned char fourth = (unsigned char)((pid & 0x3f) * 4);

	memset(n, 0, sizeof(*n));
	for (i = 0; i < 2; i++) {
		snprintf(n->name[i], sizeof(n->name[i]), NAME_PREFIX "%d-%d",
			 pid, i);
		snprintf(n->ifname[i], sizeof(n->ifname[i]), "hpuv%d%c", pid,
			 'a' + i);
		snprintf(n->addr[i], sizeof(n->addr[i]), "10.231.%u.%u", third,
			 (unsigned char)(fourth + 1 + i));
	}
}

int hpu_test_netns_setup(struct hpu_test_netns *n)
{
	int i, ret;

	describe(n);
	reap_stale();
	for (i = 0; i < 2; i++) {
		ret = ip(false, "netns add %s", n->name[i]);
		if (ret)
			goto err_cleanup;
		n->made[i] = true;
	}
	ret = ip(false, "link add %s type veth peer name %s", n->ifname[0],
		 n->ifname[1]);
	if (ret)
		goto err_cleanup;
	n->veth_made = true;
	for (i = 0; i < 2; i++) {
		ret = ip(false, "link set %s netns %s", n->ifname[i],
			 n->name[i]);
		if (!ret)
			ret = ip(false, "-n %s addr add %s/30 dev %s",
				 n->name[i], n->addr[i], n->ifname[i]);
		if (!ret)
			ret = ip(false, "-n %s link set %s up", n->name[i],
				 n->ifname[i]);
		if (!ret)
			ret = ip(false, "-n %s link set lo up", n->name[i]);
		if (ret)
			goto err_cleanup;
	}
	return 0;

err_cleanup:
	hpu_test_netns_cleanup(n);
	return ret;
}

void hpu_test_netns_cleanup(struct hpu_test_netns *n)
{
	int i;

	/* deleting a namespace destroys the veth end inside it (and the pair) */
	for (i = 0; i < 2; i++) {
		if (n->made[i])
			ip(false, "netns del %s", n->name[i]);
		n->made[i] = false;
	}
	if (n->veth_made)
		ip(true, "link del %s",
		   n->ifname[0]); /* if it was never moved */
	n->veth_made = false;
}

int hpu_test_netns_enter(const struct hpu_test_netns *n, int which, int *saved)
{
	char path[sizeof(NETNS_DIR) + 40];
	int fd, ret = 0;

	if (which < 0 || which > 1 || !n->made[which])
		return -EINVAL;
	if (saved) {
		*saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (*saved < 0)
			return -errno;
	}
	snprintf(path, sizeof(path), NETNS_DIR "/%s", n->name[which]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret && saved) {
		close(*saved);
		*saved = -1;
	}
	return ret;
}

int hpu_test_netns_restore(int saved)
{
	int ret = setns(saved, CLONE_NEWNET) ? -errno : 0;

	close(saved);
	return ret;
}

pid_t hpu_test_netns_fork(const struct hpu_test_netns *n, int which)
{
	pid_t pid = hpu_test_fork_child();

	if (pid)
		return pid;
	if (hpu_test_netns_enter(n, which, NULL))
		_exit(127);
	return 0;
}

int hpu_test_netns_run(const struct hpu_test_netns *n, int which,
		       char *const argv[], char **out, int *status)
{
	int saved, ret;

	ret = hpu_test_netns_enter(n, which, &saved);
	if (ret)
		return ret;
	ret = hpu_test_run(argv, out, status);
	hpu_test_netns_restore(saved);
	return ret;
}

const char *hpu_test_servers_unavailable(void)
{
	const char *reason = hpu_test_have_fuse();

	return reason ? reason : hpu_test_netns_unavailable();
}

/* daemon @i with a scale-out endpoint on the veth of namespace @i */
static int server_start(struct hpu_test_servers *s, int i, int ndev,
			const char *type)
{
	char addr[32];
	const char *extra[] = { "--scaleout-addr", addr, NULL };
	int saved, ret;

	snprintf(addr, sizeof(addr), "%s:0", s->ns.addr[i]);
	ret = hpu_test_netns_enter(&s->ns, i, &saved);
	if (ret)
		return ret;
	ret = hpu_test_daemon_start(&s->d[i], ndev, type, extra);
	hpu_test_netns_restore(saved);
	s->up[i] = !ret;
	return ret;
}

int hpu_test_servers_start(struct hpu_test_servers *s, int ndev,
			   const char *type)
{
	int i, ret;

	memset(s, 0, sizeof(*s));
	ret = hpu_test_netns_setup(&s->ns);
	if (ret) {
		fprintf(stderr, "cannot make the namespaces: %s\n",
			strerror(-ret));
		return ret;
	}
	for (i = 0; i < 2; i++) {
		ret = server_start(s, i, ndev, type);
		if (ret) {
			fprintf(stderr, "cannot start hpu-fused in %s: %s\n",
				s->ns.name[i], strerror(-ret));
			hpu_test_servers_stop(s);
			return ret;
		}
	}
	setenv("HPU_DEV_DIR", s->d[0].mount, 1);
	return 0;
}

int hpu_test_servers_stop(struct hpu_test_servers *s)
{
	int i, ret = 0;

	for (i = 0; i < 2; i++)
		if (s->up[i] && hpu_test_daemon_stop(&s->d[i]))
			ret = -1;
	memset(s->up, 0, sizeof(s->up));
	hpu_test_netns_cleanup(&s->ns);
	return ret;
}
