// SPDX-License-Identifier: MIT
/*
 * test_ccl_faults.c - libhpuccl when things break: a rank SIGKILLed in
 * the middle of a loop of large allreduces (and of 2-rank small ones,
 * the one-round schedule), and a NIC link taken down
 * under a running allreduce. Either way the other ranks' collectives must
 * fail with an error within the communicator's timeout (never hang), and
 * after a dead rank the daemon keeps serving: the survivors form a new
 * communicator and reduce correctly. An init that fails says on stderr
 * which rank, at which step, waiting for whom, and why.
 *
 * Ranks are forked processes that tell the test what they saw through a
 * pipe; rank 0 hosts the store (MASTER_ADDR/MASTER_PORT on loopback), so
 * the test process itself never runs library threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../lib/hpu_test_ccl.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_nic.h"
#include "../lib/hpu_test_util.h"
#include "hpuccl.h"
#include "hpudrv.h"

#define NDEV	       4
/* the communicator timeout of these tests, and the bound asserted */
#define TIMEOUT_MS     3000
#define FAIL_BOUND_MS  (3 * TIMEOUT_MS)
#define READY_MS       20000 /* every rank did one allreduce */
#define EXIT_MS	       20000
#define BIG_COUNT      (4u << 20) /* 16 MiB of fp32 per allreduce */
#define MAX_LOOPS      100000
#define SURVIVOR_COUNT 4099

static const char *skip_reason;
/* elements of the looped allreduces (set before the ranks are forked) */
static uint32_t loop_count = BIG_COUNT;

/* messages of a rank to the test */
enum {
	MSG_READY = 'R', /* one allreduce done: the loop runs */
	MSG_ERROR = 'E', /* a collective failed (err set) */
	MSG_NONE = 'N',	 /* the loop ended without an error */
	MSG_AGAIN = 'G', /* test to survivors: form a new communicator */
};

struct msg {
	char tag;
	int err;
};

/**
 * struct job - one rank process
 * @rank: rank in the first communicator
 * @nranks: its ranks
 * @device: hpuN
 * @port: store port of the first communicator
 * @port2: store port of the survivors' communicator (0: none)
 * @new_rank: rank among the survivors
 * @to_test: write end of the rank's pipe to the test
 * @from_test: read end of the test's pipe to the rank
 */
struct job {
	int rank;
	int nranks;
	int device;
	int port;
	int port2;
	int new_rank;
	int to_test;
	int from_test;
};

static void send_msg(int fd, char tag, int err)
{
	struct msg m = { .tag = tag, .err = err };

	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(99);
}

/* one message within @timeout_ms: 0, -ETIMEDOUT, or -EPIPE at EOF */
static int recv_msg(int fd, int timeout_ms, struct msg *m)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, timeout_ms) <= 0)
		return -ETIMEDOUT;
	n = read(fd, m, sizeof(*m));
	return n == sizeof(*m) ? 0 : -EPIPE;
}

static int join(struct hpu_test_rank *tr, int port, int nranks, int rank)
{
	struct hpuccl_unique_id id;
	char p[16];
	int ret;

	snprintf(p, sizeof(p), "%d", port);
	setenv("MASTER_ADDR", "127.0.0.1", 1);
	setenv("MASTER_PORT", p, 1);
	ret = hpuccl_unique_id_from_env(&id, rank);
	if (ret) {
		fprintf(stderr, "rank %d: unique id: %s\n", rank,
			hpuccl_strerror(ret));
		return ret;
	}
	return hpu_test_rank_join(tr, nranks, rank, &id, TIMEOUT_MS);
}

/* allreduces until one fails; MSG_ERROR with its error, else MSG_NONE */
static void loop_until_error(struct hpu_test_rank *tr, const struct job *j,
			     uint64_t buf)
{
	int i, ret = 0;

	for (i = 0; i < MAX_LOOPS && !ret; i++) {
		ret = hpuccl_allreduce(buf, buf, loop_count, HPUCCL_FLOAT32,
				       HPUCCL_SUM, tr->comm, tr->stream);
		if (!ret)
			ret = hpu_stream_synchronize(tr->stream);
		if (!ret && !i)
			send_msg(j->to_test, MSG_READY, 0);
	}
	if (ret)
		fprintf(stderr, "rank %d: allreduce %d failed: %s (comm: %s)\n",
			j->rank, i, hpuccl_strerror(ret),
			hpuccl_strerror(hpuccl_comm_get_async_error(tr->comm)));
	send_msg(j->to_test, ret ? MSG_ERROR : MSG_NONE, ret);
}

/* the survivors' communicator: an int32 sum checked exactly; 0 or 1 */
static int survive(struct hpu_test_rank *tr, const struct job *j, uint64_t buf,
		   int nsurv)
{
	static int32_t host[SURVIVOR_COUNT];
	struct msg m;
	size_t i;
	int ret;

	if (recv_msg(j->from_test, EXIT_MS, &m) || m.tag != MSG_AGAIN)
		return 1;
	ret = join(tr, j->port2, nsurv, j->new_rank);
	for (i = 0; !ret && i < SURVIVOR_COUNT; i++)
		host[i] = (int32_t)(i * 7 + j->new_rank);
	if (!ret)
		ret = hpu_test_rank_put(tr, buf, host, sizeof(host));
	if (!ret)
		ret = hpuccl_allreduce(buf, buf, SURVIVOR_COUNT, HPUCCL_INT32,
				       HPUCCL_SUM, tr->comm, tr->stream);
	if (!ret)
		ret = hpu_test_rank_get(tr, host, buf, sizeof(host));
	if (ret) {
		fprintf(stderr, "survivor %d: %s\n", j->new_rank,
			hpuccl_strerror(ret));
		return 1;
	}
	for (i = 0; i < SURVIVOR_COUNT; i++)
		if (host[i] !=
		    (int32_t)(i * 7 * nsurv + nsurv * (nsurv - 1) / 2)) {
			fprintf(stderr, "survivor %d: [%zu] = %d\n",
				j->new_rank, i, host[i]);
			return 1;
		}
	return 0;
}

static int rank_main(void *arg)
{
	const struct job *j = arg;
	struct hpu_test_rank tr;
	uint64_t buf;
	int ret;

	if (hpu_test_rank_open(&tr, j->device))
		return 2;
	if (join(&tr, j->port, j->nranks, j->rank) ||
	    hpu_test_rank_buf(&tr, (uint64_t)BIG_COUNT * 4, &buf) ||
	    hpu_stream_memset(tr.stream, buf, 0, 4, (size_t)BIG_COUNT * 4)) {
		hpu_test_rank_close(&tr, 1);
		return 2;
	}
	loop_until_error(&tr, j, buf);
	hpuccl_comm_abort(tr.comm);
	tr.comm = NULL;
	ret = j->port2 ? survive(&tr, j, buf, j->nranks - 1) : 0;
	hpu_test_rank_close(&tr, ret);
	return ret;
}

/**
 * struct ranks - the rank processes of one test
 * @n: ranks
 * @pid: their pids
 * @from: read ends of their pipes to the test
 * @to: write ends of the test's pipes to them
 * @jobs: what each runs
 */
struct ranks {
	int n;
	pid_t pid[NDEV];
	int from[NDEV];
	int to[NDEV];
	struct job jobs[NDEV];
};

static void start_ranks(struct ranks *rs, int n, int port, int port2,
			int (*fn)(void *arg))
{
	int up[2], down[2], i, k;

	memset(rs, 0, sizeof(*rs));
	rs->n = n;
	for (i = 0; i < n; i++) {
		assert_int_equal(pipe2(up, O_CLOEXEC), 0);
		assert_int_equal(pipe2(down, O_CLOEXEC), 0);
		rs->jobs[i] = (struct job){
			.rank = i,
			.nranks = n,
			.device = i,
			.port = port,
			.port2 = port2,
			.new_rank = i, /* the last rank is the one killed */
			.to_test = up[1],
			.from_test = down[0],
		};
		rs->pid[i] = hpu_test_fork_rank(fn, &rs->jobs[i]);
		assert_true(rs->pid[i] > 0);
		close(up[1]);
		close(down[0]);
		rs->from[i] = up[0];
		rs->to[i] = down[1];
	}
	/* the loop runs on every rank before anything is broken */
	for (i = 0; i < n; i++) {
		struct msg m = { 0 };

		k = recv_msg(rs->from[i], READY_MS, &m);
		if (k || m.tag != MSG_READY)
			print_message("rank %d not ready (%d, '%c')\n", i, k,
				      m.tag ? m.tag : '-');
		assert_int_equal(k, 0);
		assert_int_equal(m.tag, MSG_READY);
	}
}

/* each of ranks [0, n) reports an error within FAIL_BOUND_MS of @t0 */
static void expect_errors(struct ranks *rs, int n, long t0)
{
	struct msg m;
	long left;
	int i;

	for (i = 0; i < n; i++) {
		left = t0 + FAIL_BOUND_MS - hpu_test_now_ms();
		memset(&m, 0, sizeof(m));
		assert_int_equal(recv_msg(rs->from[i], left > 0 ? left : 0, &m),
				 0);
		print_message("rank %d: error %d (%s) after %ld ms\n", i, m.err,
			      hpuccl_strerror(m.err), hpu_test_now_ms() - t0);
		assert_int_equal(m.tag, MSG_ERROR);
		assert_true(m.err < 0);
	}
}

static void finish_ranks(struct ranks *rs, int *status)
{
	int i;

	assert_int_equal(
		hpu_test_wait_ranks(rs->pid, rs->n, EXIT_MS, status, NULL), 0);
	for (i = 0; i < rs->n; i++) {
		close(rs->from[i]);
		close(rs->to[i]);
	}
}

static void test_killed_rank(void **state)
{
	struct msg again = { .tag = MSG_AGAIN };
	int port = hpu_test_free_port(), port2 = hpu_test_free_port(),
	    status[NDEV], i;
	struct ranks rs;
	long t0;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	assert_true(port > 0 && port2 > 0 && port != port2);
	start_ranks(&rs, NDEV, port, port2, rank_main);

	hpu_test_sleep_ms(20); /* inside an allreduce, most likely */
	t0 = hpu_test_now_ms();
	assert_int_equal(kill(rs.pid[NDEV - 1], SIGKILL), 0);
	expect_errors(&rs, NDEV - 1, t0);

	/* the daemon still serves: the survivors reduce together */
	for (i = 0; i < NDEV - 1; i++)
		assert_int_equal(write(rs.to[i], &again, sizeof(again)),
				 sizeof(again));
	finish_ranks(&rs, status);
	assert_int_equal(status[NDEV - 1], 128 + SIGKILL);
	for (i = 0; i < NDEV - 1; i++)
		assert_int_equal(status[i], 0);
}

/*
 * Two ranks looping over 16 KiB allreduces (the one-round schedule, as a
 * DDP step of the digits MLP runs it): the peer killed in the middle,
 * the survivor's collective ends with an error, not a hang
 */
static void test_killed_rank_oneshot(void **state)
{
	int port = hpu_test_free_port(), status[NDEV];
	struct ranks rs;
	long t0;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	assert_true(port > 0);
	loop_count = 4099;
	start_ranks(&rs, 2, port, 0, rank_main);
	loop_count = BIG_COUNT;
	hpu_test_sleep_ms(20);
	t0 = hpu_test_now_ms();
	assert_int_equal(kill(rs.pid[1], SIGKILL), 0);
	expect_errors(&rs, 1, t0);
	finish_ranks(&rs, status);
	assert_int_equal(status[1], 128 + SIGKILL);
	assert_int_equal(status[0], 0);
}

static void test_link_down(void **state)
{
	struct hpu_info_nic nic;
	struct hpu_device *dev;
	int port = hpu_test_free_port(), status[2], p, down = 0;
	struct ranks rs;
	long t0;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	assert_true(port > 0);
	start_ranks(&rs, 2, port, 0, rank_main);

	/* every link between hpu0 and hpu1 goes down */
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_info_nic(dev, &nic), 0);
	t0 = hpu_test_now_ms();
	for (p = 0; p < (int)nic.num_ports && p < 64; p++) {
		if (nic.port_peer[p] != 1)
			continue;
		assert_int_equal(
			hpu_debug_inject_fault(dev, HPU_FAULT_LINK_DOWN, p, 0),
			0);
		down++;
	}
	assert_true(down > 0);
	expect_errors(&rs, 2, t0);
	finish_ranks(&rs, status);
	assert_int_equal(status[0], 0);
	assert_int_equal(status[1], 0);
	assert_int_equal(hpu_debug_clear_faults(dev), 0);
	assert_int_equal(hpu_info_nic(dev, &nic), 0);
	hpu_close(dev);
}

/* ------------------------------------------------ init failures */

/**
 * struct init_job - a rank of test_init_failure_says_where
 * @rank: its rank of 3
 * @port: the store's port (rank 0 hosts it)
 * @timeout_ms: its communicator timeout
 * @log: file its stderr goes to
 * @store_up: rank 0 writes a byte here once its store listens, rank 1
 *	reads it before it joins
 */
struct init_job {
	int rank;
	int port;
	uint32_t timeout_ms;
	char log[64];
	int store_up[2];
};

static int init_rank(void *arg)
{
	const struct init_job *j = arg;
	struct hpu_test_rank tr;
	struct hpuccl_unique_id id;
	char p[16], b = 0;
	int fd, ret;

	fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		return 90;
	close(fd);
	if (hpu_test_rank_open(&tr, j->rank))
		return 91;
	snprintf(p, sizeof(p), "%d", j->port);
	setenv("MASTER_ADDR", "127.0.0.1", 1);
	setenv("MASTER_PORT", p, 1);
	if (j->rank == 1 && read(j->store_up[0], &b, 1) != 1)
		return 92;
	ret = hpuccl_unique_id_from_env(&id, j->rank);
	if (ret)
		return 93;
	if (j->rank == 0 && write(j->store_up[1], &b, 1) != 1)
		return 94;
	ret = hpu_test_rank_join(&tr, 3, j->rank, &id, j->timeout_ms);
	hpu_test_rank_close(&tr, 1);
	return ret < 0 ? -ret : 95;
}

/* The first line of @path that has @needle, NULL when none; malloc'ed */
static char *log_line(const char *path, const char *needle)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			found = strdup(line);
	fclose(f);
	return found;
}

/*
 * A communicator of 3 whose rank 2 never comes: rank 1 (short timeout)
 * gives up at the exchange, and its message (stderr) names itself, the
 * step, the rank it waited for and the timeout; rank 0 (long timeout) fails at once
 * after that with -ECONNRESET, and its message says rank 1 went away.
 */
static void test_init_failure_says_where(void **state)
{
	struct init_job jobs[2];
	char *l0 = NULL, *l1 = NULL;
	int status[2], pipefd[2], i;
	pid_t pids[2];
	long t0;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	assert_int_equal(pipe(pipefd), 0);
	for (i = 0; i < 2; i++) {
		jobs[i] = (struct init_job){
			.rank = i,
			.port = i ? jobs[0].port : hpu_test_free_port(),
			.timeout_ms = i ? 2000 : 60000,
			.store_up = { pipefd[0], pipefd[1] },
		};
		snprintf(jobs[i].log, sizeof(jobs[i].log),
			 "/tmp/hpu-test-ccl-init-%d-%d.log", (int)getpid(), i);
	}
	assert_true(jobs[0].port > 0);
	t0 = hpu_test_now_ms();
	for (i = 0; i < 2; i++) {
		pids[i] = hpu_test_fork_rank(init_rank, &jobs[i]);
		assert_true(pids[i] > 0);
	}
	assert_int_equal(hpu_test_wait_ranks(pids, 2, EXIT_MS, status, NULL),
			 0);
	close(pipefd[0]);
	close(pipefd[1]);
	print_message("ranks ended after %ld ms: %d %d\n",
		      hpu_test_now_ms() - t0, status[0], status[1]);
	l0 = log_line(jobs[0].log, "hpuccl: rank 0/3");
	l1 = log_line(jobs[1].log, "hpuccl: rank 1/3");
	print_message("rank 0 said: %srank 1 said: %s", l0 ? l0 : "-\n",
		      l1 ? l1 : "-\n");
	unlink(jobs[0].log);
	unlink(jobs[1].log);
	assert_int_equal(status[1], ETIMEDOUT);
	assert_non_null(l1);
	assert_non_null(strstr(l1, "init failed at the exchange"));
	/* rank 2, or on a slow machine rank 0 not yet published */
	assert_non_null(strstr(l1, "(waiting for rank "));
	assert_non_null(strstr(l1, "timeout of 2000 ms"));
	/* rank 0 did not wait out its own 60 s: rank 1's leaving ended it */
	assert_int_equal(status[0], ECONNRESET);
	assert_non_null(l0);
	assert_non_null(strstr(l0, "waiting for rank 2"));
	assert_non_null(strstr(l0, "rank 1 went away"));
	free(l0);
	free(l1);
}

/*
 * A rank that reduces, says READY, waits for the test's AGAIN and reduces
 * once more; 0 when both worked and its communicator has no error
 */
static int stray_rank(void *arg)
{
	const struct job *j = arg;
	struct hpu_test_rank tr;
	struct msg m;
	uint64_t buf;
	int ret, i;

	if (hpu_test_rank_open(&tr, j->device))
		return 2;
	ret = join(&tr, j->port, j->nranks, j->rank);
	if (!ret)
		ret = hpu_test_rank_buf(&tr, SURVIVOR_COUNT * 4, &buf);
	for (i = 0; !ret && i < 2; i++) {
		if (i == 1) {
			send_msg(j->to_test, MSG_READY, 0);
			if (recv_msg(j->from_test, EXIT_MS, &m) ||
			    m.tag != MSG_AGAIN) {
				ret = -EPIPE;
				break;
			}
		}
		ret = hpuccl_allreduce(buf, buf, SURVIVOR_COUNT, HPUCCL_INT32,
				       HPUCCL_SUM, tr.comm, tr.stream);
		if (!ret)
			ret = hpu_stream_synchronize(tr.stream);
		if (!ret)
			ret = hpuccl_comm_get_async_error(tr.comm);
	}
	if (ret)
		fprintf(stderr, "rank %d: %s\n", j->rank, hpuccl_strerror(ret));
	hpu_test_rank_close(&tr, ret != 0);
	return ret ? 1 : 0;
}

/*
 * A refused write that names no region raises NIC_ACCESS_ERR in every
 * context of the receiving device, communicators' included: it must not
 * fail a communicator whose keys it does not name (a dead rank's late
 * writes used to fail the survivors' new communicator with -EIO).
 */
static void test_stray_access_error(void **state)
{
	struct msg again = { .tag = MSG_AGAIN };
	int port = hpu_test_free_port(), status[NDEV], i;
	struct hpu_test_nic_side s;
	uint32_t conn, nic_port;
	uint64_t token;
	struct ranks rs;

	(void)state;
	HPU_TEST_SKIP_IF(skip_reason);
	assert_true(port > 0);
	start_ranks(&rs, 2, port, 0, stray_rank);

	/* an outsider on hpu2 writes to hpu0 with a key nobody has */
	hpu_test_nic_side_open(&s, 2, 4096, false);
	nic_port = hpu_test_nic_connect(&s, 0, &conn, &token);
	assert_int_not_equal(hpu_test_nic_write_key(&s, nic_port, conn,
						    0x5eed5eed5eed5eedULL, 64,
						    0),
			     HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_nic_wait_event(
				 s.dev, HPU_EVENT_NIC_ACCESS_ERR, NULL, NULL),
			 0);
	hpu_test_nic_side_close(&s);

	for (i = 0; i < 2; i++)
		assert_int_equal(write(rs.to[i], &again, sizeof(again)),
				 sizeof(again));
	finish_ranks(&rs, status);
	for (i = 0; i < 2; i++)
		assert_int_equal(status[i], 0);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_ccl_group_start(NDEV, "gaudi2", &skip_reason);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_rank),
		cmocka_unit_test(test_killed_rank_oneshot),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_init_failure_says_where),
		cmocka_unit_test(test_stray_access_error),
	};

	return cmocka_run_group_tests_name("ccl_faults", tests, group_setup,
					   hpu_test_group_stop);
}
