// SPDX-License-Identifier: MIT
/*
 * hpu_test_proc.c - run a program and capture its output, bounded
 *
 * The child gets the write ends of one or two O_CLOEXEC pipes as stdout
 * (and stderr); the parent polls the read ends, appending to growing
 * buffers, until EOF or the bound, then kills what still runs and reaps
 * it with hpu_test_wait_child()'s bound.
 */
#include "hpu_test_blas.h"
#include "hpu_test_proc.h"
#include "hpu_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_GRACE_MS 1000 /* for what holds a pipe after the kill */
#define REAP_MS	      10000

extern char **environ;

static void close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

static void child_exec(char *const argv[], const struct hpu_test_proc_opts *o,
		       int out, int err)
{
	int ret;

	dup2(out, STDOUT_FILENO);
	if (o->stderr_mode == HPU_TEST_STDERR_MERGE)
		dup2(out, STDERR_FILENO);
	else if (o->stderr_mode == HPU_TEST_STDERR_CAPTURE)
		dup2(err, STDERR_FILENO);
	if (o->child_setup) {
		ret = o->child_setup(o->arg);
		if (ret)
			_exit(ret);
	}
	execve(argv[0], argv, o->envp ? o->envp : environ);
	fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int hpu_test_proc_start(struct hpu_test_proc *p, char *const argv[],
			const struct hpu_test_proc_opts *o)
{
	static const struct hpu_test_proc_opts defaults;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, ret;

	if (!o)
		o = &defaults;
	memset(p, 0, sizeof(*p));
	p->fd[0] = p->fd[1] = -1;
	p->status = -1;
	p->out = calloc(1, 1);
	p->err = calloc(1, 1);
	if (!p->out || !p->err)
		goto enomem;
	if (pipe2(po, O_CLOEXEC))
		goto err;
	if (o->stderr_mode == HPU_TEST_STDERR_CAPTURE && pipe2(pe, O_CLOEXEC))
		goto err;
	hpu_test_blas_pin();
	fflush(stdout);
	fflush(stderr);
	p->start_ms = hpu_test_now_ms();
	p->pid = fork();
	if (p->pid < 0)
		goto err;
	if (!p->pid)
		child_exec(argv, o, po[1], pe[1]);
	close(po[1]);
	p->fd[0] = po[0];
	if (pe[1] >= 0)
		close(pe[1]);
	p->fd[1] = pe[0];
	return 0;

err:
	ret = -errno;
	close_pipe(po);
	close_pipe(pe);
	hpu_test_proc_free(p);
	return ret;
enomem:
	hpu_test_proc_free(p);
	return -ENOMEM;
}

static int append(char **buf, size_t *len, const char *src, size_t n)
{
	char *nb = realloc(*buf, *len + n + 1);

	if (!nb)
		return -ENOMEM;
	memcpy(nb + *len, src, n);
	*len += n;
	nb[*len] = '\0';
	*buf = nb;
	return 0;
}

bool hpu_test_proc_read(struct hpu_test_proc *p, int ms)
{
	struct pollfd pfd[2] = { { p->fd[0], POLLIN, 0 },
				 { p->fd[1], POLLIN, 0 } };
	char buf[4096];
	ssize_t n;
	int i;

	if (p->fd[0] < 0 && p->fd[1] < 0)
		return false;
	if (poll(pfd, 2, ms) <= 0)
		return true;
	for (i = 0; i < 2; i++) {
		if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(pfd[i].fd, buf, sizeof(buf));
		if (n > 0 &&
		    !append(i ? &p->err : &p->out,
			    i ? &p->err_len : &p->out_len, buf, (size_t)n))
			continue;
		close(p->fd[i]); /* EOF, or no memory left to keep it */
		p->fd[i] = -1;
	}
	return p->fd[0] >= 0 || p->fd[1] >= 0;
}

int hpu_test_proc_finish(struct hpu_test_proc *p, int timeout_ms)
{
	long end = hpu_test_now_ms() + timeout_ms;
	int st = 0, i;

	while (hpu_test_now_ms() < end && hpu_test_proc_read(p, 50))
		;
	if (p->fd[0] >= 0 || p->fd[1] >= 0) {
		kill(p->pid, SIGKILL);
		p->killed = true;
		end = hpu_test_now_ms() + KILL_GRACE_MS;
		while (hpu_test_now_ms() < end && hpu_test_proc_read(p, 50))
			;
		for (i = 0; i < 2; i++)
			if (p->fd[i] >= 0) {
				close(p->fd[i]);
				p->fd[i] = -1;
			}
	}
	if (hpu_test_wait_child(p->pid, REAP_MS, &st)) {
		p->killed = true;
		if (hpu_test_kill_child(p->pid, &st))
			st = SIGKILL; /* unreaped: report it as killed */
	}
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	p->ms = hpu_test_now_ms() - p->start_ms;
	return p->status;
}

int hpu_test_proc_run(struct hpu_test_proc *p, char *const argv[],
		      const struct hpu_test_proc_opts *o, int timeout_ms)
{
	int ret = hpu_test_proc_start(p, argv, o);

	if (ret)
		return ret;
	hpu_test_proc_finish(p, timeout_ms);
	return 0;
}

int hpu_test_proc_vrun(struct hpu_test_proc *p, const char *path,
		       const struct hpu_test_proc_opts *o, int timeout_ms,
		       va_list ap)
{
	char *argv[10];
	int argc = 0;

	argv[argc++] = (char *)path;
	while (argc < 9 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	argv[argc] = NULL;
	return hpu_test_proc_run(p, argv, o, timeout_ms);
}

void hpu_test_proc_free(struct hpu_test_proc *p)
{
	free(p->out);
	free(p->err);
	p->out = NULL;
	p->err = NULL;
}
