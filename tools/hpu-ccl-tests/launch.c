// SPDX-License-Identifier: MIT
/*
 * launch.c - where the ranks come from.
 *
 * Under a launcher (Open MPI's mpirun: OMPI_COMM_WORLD_SIZE/RANK/
 * LOCAL_RANK; torchrun style: WORLD_SIZE/RANK/LOCAL_RANK with MASTER_ADDR/
 * MASTER_PORT) this process is one rank, on the LOCAL_RANK-th visible
 * device, and every rank derives the communicator's id from the
 * environment. Otherwise this process forks one rank per device (-g N,
 * default every visible device), makes the id itself and hands it to each
 * child through a pipe; it then reaps the children, and once one failed
 * it gives the others the communicator's timeout (plus a grace period) to
 * notice and end before it kills them, so a dead rank never leaves the
 * tool hanging.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ccltests.h"

#define ID_WAIT_MS	 30000 /* a child waits this long for its id */
#define REAP_GRACE_MS	 5000  /* after the timeout, before SIGKILL */
#define SIGNAL_GRACE_MS	 5000  /* after forwarding SIGINT/SIGTERM */
#define REAP_POLL_MS	 10
#define MPI_DEFAULT_ADDR "127.0.0.1"
#define MPI_DEFAULT_PORT "29500"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* the timeout the ranks' communicator uses, as the library chooses it */
static uint64_t comm_timeout_ms(const struct cclt_opts *o)
{
	const char *env = getenv("HPUCCL_TIMEOUT_MS");
	char *end;
	unsigned long v;

	if (o->timeout_ms)
		return o->timeout_ms;
	if (env && *env) {
		v = strtoul(env, &end, 10);
		if (!*end && v)
			return v;
	}
	return HPUCCL_DEFAULT_TIMEOUT_MS;
}

/* an environment integer in [min, max]: 1 found, 0 absent, -EINVAL bad */
static int env_int(const char *name, int min, int max, int *out)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, CCLT_PROG ": %s='%s' is not a number %d..%d\n",
			name, s, min, max);
		return -EINVAL;
	}
	*out = (int)v;
	return 1;
}

/**
 * struct launcher_env - the variables of one launcher
 * @name: the launcher, for messages
 * @size: world size variable
 * @rank: rank variable
 * @local_rank: local rank variable
 */
struct launcher_env {
	const char *name;
	const char *size;
	const char *rank;
	const char *local_rank;
};

static const struct launcher_env launchers[] = {
	{
		.name = "mpirun",
		.size = "OMPI_COMM_WORLD_SIZE",
		.rank = "OMPI_COMM_WORLD_RANK",
		.local_rank = "OMPI_COMM_WORLD_LOCAL_RANK",
	},
	{
		.name = "torchrun",
		.size = "WORLD_SIZE",
		.rank = "RANK",
		.local_rank = "LOCAL_RANK",
	},
};

/*
 * Which launcher started us: its entry, NULL when none. -EINVAL through
 * @err for malformed or incomplete variables (printed).
 */
static const struct launcher_env *find_launcher(int *size, int *rank,
						int *local_rank, int *err)
{
	const struct launcher_env *l;
	size_t i;
	int s, r;

	*err = 0;
	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		l = &launchers[i];
		s = env_int(l->size, 1, 1 << 20, size);
		if (s < 0)
			goto err_bad;
		if (!s)
			continue;
		r = env_int(l->rank, 0, *size - 1, rank);
		if (r < 0)
			goto err_bad;
		if (!r) {
			fprintf(stderr, CCLT_PROG ": %s is set but %s is not\n",
				l->size, l->rank);
			goto err_bad;
		}
		r = env_int(l->local_rank, 0, 1 << 20, local_rank);
		if (r < 0)
			goto err_bad;
		if (!r)
			*local_rank = *rank;
		return l;
	}
	return NULL;
err_bad:
	*err = -EINVAL;
	return NULL;
}

/* the visible devices' indices (malloc'ed) and their count */
static int list_devices(int **idx, int *count)
{
	struct hpu_device_info *list;
	int n, i, ret;

	ret = hpu_device_list(&list, &n);
	if (ret || !n) {
		fprintf(stderr,
			CCLT_PROG ": no HPU device found (%s); start hpu-fused "
				  "or set HPU_DEV_DIR\n",
			ret ? hpu_last_error() ?: hpu_strerror(ret) :
			      "none listed");
		return ret ? ret : -ENODEV;
	}
	*idx = calloc(n, sizeof(**idx));
	if (!*idx) {
		hpu_device_list_free(list);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		(*idx)[i] = list[i].index;
	*count = n;
	hpu_device_list_free(list);
	return 0;
}

static int launched_rank(const struct cclt_opts *o,
			 const struct launcher_env *l, int size, int rank,
			 int local_rank)
{
	struct cclt_rank r = { .rank = rank, .nranks = size };
	int *idx, ndev, ret;

	if (o->nranks > 1) {
		fprintf(stderr,
			CCLT_PROG ": -g %d with %s: each process is one rank "
				  "(drop -g)\n",
			o->nranks, l->name);
		return CCLT_EXIT_USAGE;
	}
	ret = cclt_validate(o, size);
	if (ret)
		return ret;
	if (!getenv("HCCL_COMM_ID") && !getenv("MASTER_ADDR")) {
		if (l != &launchers[0]) {
			fprintf(stderr,
				CCLT_PROG
				": %s set: MASTER_ADDR and MASTER_PORT "
				"(or HCCL_COMM_ID) must be too\n",
				l->size);
			return CCLT_EXIT_USAGE;
		}
		/* one host under mpirun: rank 0's store on loopback */
		setenv("MASTER_ADDR", MPI_DEFAULT_ADDR, 0);
		setenv("MASTER_PORT", MPI_DEFAULT_PORT, 0);
	}
	ret = list_devices(&idx, &ndev);
	if (ret)
		return CCLT_EXIT_FAIL;
	r.device = idx[local_rank % ndev];
	free(idx);
	ret = hpuccl_unique_id_from_env(&r.id, rank);
	if (ret) {
		fprintf(stderr,
			CCLT_PROG ": rank %d: no communicator id from the "
				  "environment: %s\n",
			rank, hpuccl_strerror(ret));
		return ret == -EINVAL ? CCLT_EXIT_USAGE : CCLT_EXIT_FAIL;
	}
	return cclt_rank_main(o, &r);
}

/* in the child: wait for the id on @fd, then run the rank */
static int child_rank(const struct cclt_opts *o, struct cclt_rank *r, int fd,
		      pid_t parent)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return CCLT_EXIT_FAIL;
	while (got < sizeof(r->id)) {
		if (poll(&pfd, 1, ID_WAIT_MS) <= 0)
			return CCLT_EXIT_FAIL;
		n = read(fd, (char *)&r->id + got, sizeof(r->id) - got);
		if (n <= 0)
			return CCLT_EXIT_FAIL; /* the parent gave up */
		got += n;
	}
	close(fd);
	return cclt_rank_main(o, r);
}

struct child {
	pid_t pid;
	int fd;	    /* write end of the id pipe, -1 once closed */
	int status; /* exit status, -1 while running */
};

/*
 * Fork the @n ranks. Return: 0 in the parent, 1 in a child (@r and @fd
 * describe its rank and its end of the id pipe), -errno.
 */
static int spawn(const int *devs, int n, struct child *ch, struct cclt_rank *r,
		 int *fd)
{
	int i, j, p[2];

	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i++) {
		if (pipe2(p, O_CLOEXEC))
			return -errno;
		ch[i].pid = fork();
		if (ch[i].pid < 0) {
			close(p[0]);
			close(p[1]);
			return -errno;
		}
		if (!ch[i].pid) {
			close(p[1]);
			for (j = 0; j < i; j++)
				close(ch[j].fd);
			memset(r, 0, sizeof(*r));
			r->rank = i;
			r->nranks = n;
			r->device = devs[i];
			*fd = p[0];
			return 1;
		}
		close(p[0]);
		ch[i].fd = p[1];
		ch[i].status = -1;
	}
	return 0;
}

static void hand_out_id(struct child *ch, int n)
{
	struct hpuccl_unique_id id;
	int i, ret;

	ret = hpuccl_get_unique_id(&id);
	if (ret)
		fprintf(stderr,
			CCLT_PROG ": cannot make a communicator id: %s\n",
			hpuccl_strerror(ret));
	for (i = 0; i < n; i++) {
		/* a pipe holds far more than an id: this never blocks */
		if (!ret && write(ch[i].fd, &id, sizeof(id)) != sizeof(id))
			fprintf(stderr,
				CCLT_PROG ": rank %d: id not sent: %s\n", i,
				strerror(errno));
		close(ch[i].fd);
		ch[i].fd = -1;
	}
}

static int child_index(const struct child *ch, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (ch[i].pid == pid)
			return i;
	return -1;
}

static void kill_running(const struct child *ch, int n, int sig)
{
	int i;

	for (i = 0; i < n; i++)
		if (ch[i].pid > 0 && ch[i].status < 0)
			kill(ch[i].pid, sig);
}

static void record(struct child *ch, int i, int st)
{
	if (WIFEXITED(st)) {
		ch[i].status = WEXITSTATUS(st);
		if (ch[i].status)
			fprintf(stderr,
				CCLT_PROG ": rank %d (pid %d) exited with "
					  "status %d\n",
				i, (int)ch[i].pid, ch[i].status);
	} else {
		ch[i].status = 128 + WTERMSIG(st);
		fprintf(stderr, CCLT_PROG ": rank %d (pid %d) killed by %s\n",
			i, (int)ch[i].pid, strsignal(WTERMSIG(st)));
	}
}

/* reap every child; bounded once one failed or a signal came */
static int reap(struct child *ch, int n, uint64_t grace_ms)
{
	uint64_t deadline = 0;
	int alive = n, result = 0, forwarded = 0, st, i;
	pid_t pid;

	while (alive) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0 && (i = child_index(ch, n, pid)) >= 0) {
			alive--;
			record(ch, i, st);
			if (ch[i].status && !deadline)
				deadline = now_ms() + grace_ms;
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (stop_signal && !forwarded) {
			kill_running(ch, n, SIGTERM);
			forwarded = 1;
			if (!deadline || deadline > now_ms() + SIGNAL_GRACE_MS)
				deadline = now_ms() + SIGNAL_GRACE_MS;
		}
		if (deadline && now_ms() > deadline) {
			fprintf(stderr,
				CCLT_PROG ": %d rank(s) still running %llu ms "
					  "after a failure: killing them\n",
				alive, (unsigned long long)grace_ms);
			kill_running(ch, n, SIGKILL);
			deadline = 0;
			grace_ms = 0;
			result = CCLT_EXIT_FAIL;
		}
		sleep_ms(REAP_POLL_MS);
	}
	for (i = 0; i < n; i++) {
		if (ch[i].status == CCLT_EXIT_USAGE && !result)
			result = CCLT_EXIT_USAGE;
		else if (ch[i].status)
			result = CCLT_EXIT_FAIL;
	}
	return stop_signal && !result ? CCLT_EXIT_FAIL : result;
}

static int forked_ranks(const struct cclt_opts *o)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct child *ch = NULL;
	int *devs, ndev, n, ret, i, fd = -1;
	pid_t parent = getpid();
	struct cclt_rank r;

	if (list_devices(&devs, &ndev))
		return CCLT_EXIT_FAIL;
	n = o->nranks ? o->nranks : ndev;
	if (n > ndev) {
		fprintf(stderr,
			CCLT_PROG ": -g %d: only %d device%s visible (one rank "
				  "per device)\n",
			n, ndev, ndev == 1 ? " is" : "s are");
		ret = CCLT_EXIT_USAGE;
		goto out_free;
	}
	ret = cclt_validate(o, n);
	if (ret)
		goto out_free;
	ch = calloc(n, sizeof(*ch));
	if (!ch) {
		ret = CCLT_EXIT_FAIL;
		goto out_free;
	}
	signal(SIGPIPE, SIG_IGN);
	ret = spawn(devs, n, ch, &r, &fd);
	if (ret == 1) {
		/* a rank: nothing of the parent's is needed any more */
		free(ch);
		free(devs);
		exit(child_rank(o, &r, fd, parent));
	}
	if (ret) {
		fprintf(stderr, CCLT_PROG ": cannot fork the ranks: %s\n",
			strerror(-ret));
		for (i = 0; i < n && ch[i].pid > 0; i++)
			kill(ch[i].pid, SIGKILL);
		for (i = 0; i < n && ch[i].pid > 0; i++) {
			close(ch[i].fd);
			waitpid(ch[i].pid, NULL, 0);
		}
		ret = CCLT_EXIT_FAIL;
		goto out_free;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hand_out_id(ch, n);
	ret = reap(ch, n, comm_timeout_ms(o) + REAP_GRACE_MS);
out_free:
	free(ch);
	free(devs);
	return ret;
}

int cclt_launch(const struct cclt_opts *o)
{
	const struct launcher_env *l;
	int size, rank, local_rank, err;

	l = find_launcher(&size, &rank, &local_rank, &err);
	if (err)
		return CCLT_EXIT_USAGE;
	if (l)
		return launched_rank(o, l, size, rank, local_rank);
	return forked_ranks(o);
}
