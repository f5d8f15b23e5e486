// SPDX-License-Identifier: MIT
/*
 * hpu_test_util.c - clock, free port, tied children, monitor waits and
 * CSV columns for the tests.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hpu_test_util.h"
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

pid_t hpu_test_fork_child(void)
{
	pid_t parent = getpid(), pid;

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
