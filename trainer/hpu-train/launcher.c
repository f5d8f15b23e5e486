// SPDX-License-Identifier: MIT
/*
 * launcher.c - the per-node launcher of the plain environment (as
 * torchrun): one worker process per local device, each this same command
 * with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, NODE_RANK,
 * GROUP_RANK, MASTER_ADDR and MASTER_PORT set, so it detects itself as
 * a torchrun-style rank.
 *
 * Output: every worker's stdout and stderr come through pipes. Rank 0's
 * stdout passes as it is (the progress and the summary; only rank 0
 * prints them unless --all-ranks-print, when the trainer labels each
 * line itself); the other ranks' stdout and every rank's stderr are
 * labelled "[rank N] " line by line.
 *
 * Shutdown is bounded: when a worker fails (non-zero status or a signal)
 * the others get the grace period (--grace-period) to notice and end on
 * their own, then SIGTERM, then SIGKILL two seconds later. SIGINT,
 * SIGTERM and SIGHUP are forwarded to the workers (each runs in its own
 * process group, so a terminal's ^C reaches them only through here); a
 * second one, or the grace period running out, kills them. Workers die
 * with the launcher (PR_SET_PDEATHSIG).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hpu_train.h"

#define KILL_AFTER_TERM_MS 2000U
#define DRAIN_MS	   1000U
#define LINE_MAX_BYTES	   4096U

extern char **environ;

/* the output of one pipe of a worker */
struct stream {
	int fd;
	bool raw; /* pass through unchanged */
	int dest; /* STDOUT_FILENO or STDERR_FILENO */
	size_t len;
	char buf[LINE_MAX_BYTES];
};

struct worker {
	pid_t pid;
	uint32_t local_rank;
	uint32_t rank;
	bool running;
	int status; /* wait status once !running */
	struct stream out;
	struct stream err;
};

struct launch {
	const struct htc_opts *o;
	const struct ht_cluster *cl;
	struct worker *w;
	uint32_t n;
	uint32_t running;
	int sigfd;
	int failed;	  /* index of the first failed worker + 1 */
	int stop_signal;  /* first signal forwarded */
	uint64_t term_at; /* SIGTERM the rest at this time (0: not due) */
	uint64_t kill_at; /* SIGKILL the rest at this time (0: not due) */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int htc_free_port(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		ret = -errno;
	else
		*port = ntohs(sa.sin_port);
	close(fd);
	return ret;
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* one labelled line, written with one write() so lines never mix */
static void emit_line(const struct worker *w, const struct stream *s,
		      const char *line, size_t n)
{
	char out[LINE_MAX_BYTES + 32];
	int pre;

	pre = snprintf(out, sizeof(out), "[rank %u] ", w->rank);
	memcpy(out + pre, line, n);
	if (!n || line[n - 1] != '\n')
		out[pre + n++] = '\n';
	write_all(s->dest, out, (size_t)pre + n);
}

/* read what the pipe has; false at EOF */
static bool stream_read(const struct worker *w, struct stream *s)
{
	char chunk[LINE_MAX_BYTES];
	ssize_t n;
	size_t i, start;

	n = read(s->fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		if (s->len)
			emit_line(w, s, s->buf, s->len);
		s->len = 0;
		close(s->fd);
		s->fd = -1;
		return false;
	}
	if (s->raw) {
		write_all(s->dest, chunk, (size_t)n);
		return true;
	}
	for (i = 0, start = 0; i < (size_t)n; i++) {
		if (chunk[i] != '\n' &&
		    s->len + (i - start) + 1 < sizeof(s->buf))
			continue;
		memcpy(s->buf + s->len, chunk + start, i - start + 1);
		emit_line(w, s, s->buf, s->len + (i - start) + 1);
		s->len = 0;
		start = i + 1;
	}
	memcpy(s->buf + s->len, chunk + start, (size_t)n - start);
	s->len += (size_t)n - start;
	return true;
}

/* "NAME=value" for the worker's environment */
static char *env_entry(const char *name, const char *fmt, uint64_t v,
		       const char *s)
{
	char *e = NULL;
	int ret;

	if (s)
		ret = asprintf(&e, "%s=%s", name, s);
	else
		ret = asprintf(&e, fmt, name, (unsigned long long)v);
	return ret < 0 ? NULL : e;
}

static const char *const set_names[] = {
	"RANK",	     "LOCAL_RANK",     "WORLD_SIZE",  "LOCAL_WORLD_SIZE",
	"NODE_RANK", "GROUP_RANK",     "MASTER_ADDR", "MASTER_PORT",
	HTC_ENV_TTY, HTC_ENV_LAUNCHED,
};

#define NSET (sizeof(set_names) / sizeof(set_names[0]))

static bool is_set_name(const char *entry)
{
	size_t i, l;

	for (i = 0; i < NSET; i++) {
		l = strlen(set_names[i]);
		if (!strncmp(entry, set_names[i], l) && entry[l] == '=')
			return true;
	}
	return false;
}

static void free_env(char **env)
{
	size_t i;

	if (!env)
		return;
	for (i = 0; env[i]; i++)
		if (is_set_name(env[i]))
			free(env[i]);
	free(env);
}

/* this process's environment with the rank variables of @w replaced */
static char **worker_env(const struct launch *l, const struct worker *w)
{
	const struct ht_cluster *cl = l->cl;
	size_t n = 0, k = 0, i, first;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + NSET + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (!is_set_name(environ[i]))
			env[k++] = environ[i];
	first = k;
	env[k++] = env_entry("RANK", "%s=%llu", w->rank, NULL);
	env[k++] = env_entry("LOCAL_RANK", "%s=%llu", w->local_rank, NULL);
	env[k++] = env_entry("WORLD_SIZE", "%s=%llu", cl->world_size, NULL);
	env[k++] = env_entry("LOCAL_WORLD_SIZE", "%s=%llu",
			     cl->local_world_size, NULL);
	env[k++] = env_entry("NODE_RANK", "%s=%llu", cl->node_rank, NULL);
	env[k++] = env_entry("GROUP_RANK", "%s=%llu", cl->node_rank, NULL);
	env[k++] = env_entry("MASTER_ADDR", NULL, 0, cl->master_addr);
	env[k++] = env_entry("MASTER_PORT", "%s=%llu", cl->master_port, NULL);
	env[k++] = env_entry(HTC_ENV_LAUNCHED, NULL, 0, "1");
	if (isatty(STDOUT_FILENO))
		env[k++] = env_entry(HTC_ENV_TTY, NULL, 0, "1");
	for (i = first; i < k; i++)
		if (!env[i])
			break;
	if (i < k) {
		/* keep the allocated ones contiguous for free_env() */
		size_t j;

		for (j = i + 1; j < k; j++)
			free(env[j]);
		env[i] = NULL;
		free_env(env);
		return NULL;
	}
	return env;
}

/* in the child: never returns */
static void exec_worker(const char *exe, char **argv, char **env, int out,
			int err, pid_t launcher, const sigset_t *old)
{
	int devnull = open("/dev/null", O_RDONLY);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(127);
	setpgid(0, 0);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
	execve(exe, argv, env);
	dprintf(STDERR_FILENO, HTC_PROG ": cannot run %s: %s\n", exe,
		strerror(errno));
	_exit(127);
}

static int start_worker(struct launch *l, struct worker *w, const char *exe,
			char **argv, const sigset_t *old)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, ret;
	pid_t self = getpid();
	char **env;

	env = worker_env(l, w);
	if (!env)
		return -ENOMEM;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		ret = -errno;
		goto err_close;
	}
	w->pid = fork();
	if (w->pid < 0) {
		ret = -errno;
		goto err_close;
	}
	if (w->pid == 0)
		exec_worker(exe, argv, env, po[1], pe[1], self, old);
	close(po[1]);
	close(pe[1]);
	free_env(env);
	w->running = true;
	w->out.fd = po[0];
	w->out.dest = STDOUT_FILENO;
	w->out.raw = w->local_rank == 0 && w->rank == 0;
	if (l->o->t.all_ranks_print)
		w->out.raw = true;
	w->err.fd = pe[0];
	w->err.dest = STDERR_FILENO;
	l->running++;
	return 0;

err_close:
	if (po[0] >= 0) {
		close(po[0]);
		close(po[1]);
	}
	if (pe[0] >= 0) {
		close(pe[0]);
		close(pe[1]);
	}
	free_env(env);
	return ret;
}

static void signal_all(struct launch *l, int sig)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->w[i].running)
			kill(l->w[i].pid, sig);
}

static void report_failure(const struct launch *l, const struct worker *w)
{
	if (WIFSIGNALED(w->status))
		fprintf(stderr,
			HTC_PROG ": rank %u (pid %d) was killed by signal %d "
				 "(%s)",
			w->rank, (int)w->pid, WTERMSIG(w->status),
			strsignal(WTERMSIG(w->status)));
	else
		fprintf(stderr,
			HTC_PROG ": rank %u (pid %d) exited with status %d",
			w->rank, (int)w->pid, WEXITSTATUS(w->status));
	if (l->running)
		fprintf(stderr,
			"; the other ranks get %.1f s to end, then SIGTERM\n",
			l->o->grace_ms / 1000.0);
	else
		fprintf(stderr, "\n");
}

static void reap(struct launch *l)
{
	uint32_t i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < l->n; i++)
			if (l->w[i].running && l->w[i].pid == pid)
				break;
		if (i == l->n)
			continue;
		l->w[i].running = false;
		l->w[i].status = st;
		l->running--;
		if (st == 0 || l->failed || l->stop_signal)
			continue;
		l->failed = (int)i + 1;
		report_failure(l, &l->w[i]);
		if (l->running)
			l->term_at = now_ms() + l->o->grace_ms;
	}
}

static void on_signal(struct launch *l)
{
	struct signalfd_siginfo si;

	while (read(l->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		if (l->stop_signal) {
			fprintf(stderr,
				HTC_PROG ": %s again: killing the ranks\n",
				strsignal((int)si.ssi_signo));
			signal_all(l, SIGKILL);
			continue;
		}
		l->stop_signal = (int)si.ssi_signo;
		fprintf(stderr,
			HTC_PROG ": %s: passing it to the ranks (SIGKILL "
				 "after %.1f s)\n",
			strsignal(l->stop_signal), l->o->grace_ms / 1000.0);
		signal_all(l, l->stop_signal);
		l->term_at = 0;
		l->kill_at = now_ms() + l->o->grace_ms;
	}
	reap(l);
}

static void deadlines(struct launch *l)
{
	uint64_t now = now_ms();

	if (l->term_at && now >= l->term_at) {
		l->term_at = 0;
		if (l->running) {
			fprintf(stderr,
				HTC_PROG ": stopping the %u remaining "
					 "rank(s) (SIGTERM)\n",
				l->running);
			signal_all(l, SIGTERM);
			l->kill_at = now + KILL_AFTER_TERM_MS;
		}
	}
	if (l->kill_at && now >= l->kill_at) {
		l->kill_at = 0;
		if (l->running) {
			fprintf(stderr,
				HTC_PROG ": killing the %u remaining rank(s) "
					 "(SIGKILL)\n",
				l->running);
			signal_all(l, SIGKILL);
		}
	}
}

static int poll_timeout(const struct launch *l, uint64_t drain_end)
{
	uint64_t now = now_ms(), next = UINT64_MAX;

	if (l->term_at)
		next = l->term_at;
	if (l->kill_at && l->kill_at < next)
		next = l->kill_at;
	if (!l->running && drain_end < next)
		next = drain_end;
	if (next == UINT64_MAX)
		return 1000;
	return next <= now ? 0 : (int)(next - now);
}

/* poll the pipes and signals until every worker ended and said all */
static void loop(struct launch *l)
{
	struct pollfd *pfd;
	struct stream **src;
	uint64_t drain_end = UINT64_MAX;
	uint32_t i, k;
	int ready;

	pfd = calloc(2 * l->n + 1, sizeof(*pfd));
	src = calloc(2 * l->n + 1, sizeof(*src));
	if (!pfd || !src)
		goto out;
	for (;;) {
		k = 0;
		pfd[k].fd = l->sigfd;
		pfd[k++].events = POLLIN;
		for (i = 0; i < l->n; i++) {
			struct stream *s[2] = { &l->w[i].out, &l->w[i].err };
			int j;

			for (j = 0; j < 2; j++)
				if (s[j]->fd >= 0) {
					src[k] = s[j];
					pfd[k].fd = s[j]->fd;
					pfd[k++].events = POLLIN;
				}
		}
		if (!l->running && drain_end == UINT64_MAX)
			drain_end = now_ms() + DRAIN_MS;
		if (!l->running && (k == 1 || now_ms() >= drain_end))
			break;
		ready = poll(pfd, k, poll_timeout(l, drain_end));
		if (ready < 0 && errno != EINTR)
			break;
		if (ready > 0 && (pfd[0].revents & POLLIN))
			on_signal(l);
		reap(l);
		for (i = 1; ready > 0 && i < k; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				struct worker *w = NULL;
				uint32_t j;

				for (j = 0; j < l->n && !w; j++)
					if (src[i] == &l->w[j].out ||
					    src[i] == &l->w[j].err)
						w = &l->w[j];
				stream_read(w, src[i]);
			}
		deadlines(l);
	}
out:
	free(pfd);
	free(src);
}

static int exit_status(const struct launch *l)
{
	const struct worker *w;

	if (l->stop_signal)
		return 128 + l->stop_signal;
	if (!l->failed)
		return HTC_EXIT_OK;
	w = &l->w[l->failed - 1];
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return WEXITSTATUS(w->status) ? WEXITSTATUS(w->status) : HTC_EXIT_FAIL;
}

int htc_launch(const struct htc_opts *o, const struct ht_cluster *cl,
	       char **argv)
{
	struct launch l = { .o = o, .cl = cl, .sigfd = -1 };
	char exe[PATH_MAX];
	sigset_t mask, old;
	ssize_t len;
	uint32_t i;
	int ret, status = HTC_EXIT_FAIL;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0) {
		fprintf(stderr, HTC_PROG ": cannot find my own program: %s\n",
			strerror(errno));
		return HTC_EXIT_FAIL;
	}
	exe[len] = '\0';
	l.n = cl->local_world_size;
	l.w = calloc(l.n, sizeof(*l.w));
	if (!l.w)
		return HTC_EXIT_FAIL;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGPIPE, SIG_IGN);
	l.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l.sigfd < 0) {
		fprintf(stderr, HTC_PROG ": signalfd: %s\n", strerror(errno));
		goto out_mask;
	}
	if (o->t.progress != HT_TRAIN_PROGRESS_OFF)
		printf(HTC_PROG ": node %u of %u: starting %u workers (global "
				"ranks %u..%u of %u), rendezvous %s:%u\n",
		       cl->node_rank, cl->num_nodes, l.n, cl->rank,
		       cl->rank + l.n - 1, cl->world_size, cl->master_addr,
		       cl->master_port);
	fflush(stdout);
	for (i = 0; i < l.n; i++) {
		l.w[i].local_rank = i;
		l.w[i].rank = cl->rank + i;
		l.w[i].out.fd = -1;
		l.w[i].err.fd = -1;
		ret = start_worker(&l, &l.w[i], exe, argv, &old);
		if (ret) {
			fprintf(stderr,
				HTC_PROG ": cannot start local rank %u: %s\n",
				i, strerror(-ret));
			l.failed = -1;
			signal_all(&l, SIGTERM);
			l.kill_at = now_ms() + KILL_AFTER_TERM_MS;
			break;
		}
	}
	loop(&l);
	if (l.failed < 0) {
		l.failed = 0;
		status = l.stop_signal ? 128 + l.stop_signal : HTC_EXIT_FAIL;
	} else {
		status = exit_status(&l);
	}
	if (status == HTC_EXIT_OK && o->profiler)
		status = htc_profile_merge(o, cl);
	/* a worker that never ended (a broken loop): do not leave it */
	signal_all(&l, SIGKILL);
	for (i = 0; i < l.n; i++) {
		if (l.w[i].running)
			waitpid(l.w[i].pid, NULL, 0);
		if (l.w[i].out.fd >= 0)
			close(l.w[i].out.fd);
		if (l.w[i].err.fd >= 0)
			close(l.w[i].err.fd);
	}
	close(l.sigfd);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(l.w);
	return status;
}
