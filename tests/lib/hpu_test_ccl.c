// SPDX-License-Identifier: MIT
/*
 * hpu_test_ccl.c - ranks, devices and buffers for the libhpuccl tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpu_test_ccl.h"
#include "hpu_test_daemon.h"
#include "hpu_test_util.h"
#include "hpudrv.h"

const char *hpu_test_ccl_unavailable(void)
{
	const uint64_t caps = HPU_CAP_NIC | HPU_CAP_DEBUG;
	struct hpu_info_driver_version v;
	struct hpuccl_unique_id id;
	struct hpuccl_comm *comm;
	struct hpu_device *ctl;
	int ret;

	if (hpu_open_control(0, &ctl))
		return "no device to ask for HPU_CAP_NIC";
	ret = hpu_info_driver_version(ctl, &v);
	hpu_close(ctl);
	if (ret || (v.capabilities & caps) != caps)
		return "the device model has no NICs (HPU_CAP_NIC/DEBUG not "
		       "reported)";
	/* nranks 0 is refused before anything is done, unless not built */
	memset(&id, 0, sizeof(id));
	if (hpuccl_comm_init_rank(&comm, 0, &id, 0) == -ENOSYS)
		return "libhpuccl answers ENOSYS (collectives not implemented "
		       "in this tree)";
	return NULL;
}

int hpu_test_ccl_group_start(int ndev, const char *type,
			     const char **skip_reason)
{
	unsetenv("HCCL_COMM_ID");
	unsetenv("HPUCCL_TIMEOUT_MS");
	unsetenv("HPUCCL_ZCOPY_BYTES");
	if (hpu_test_group_start(ndev, type))
		return -1;
	*skip_reason = hpu_test_have_fuse();
	if (!*skip_reason)
		*skip_reason = hpu_test_ccl_unavailable();
	return 0;
}

/* How long the server child may take to exit once told to */
#define IDS_STOP_MS 10000

/* The server child: make the ids, send them, live until the pipe closes */
static int ids_child(int ids_fd, int stop_fd, struct hpuccl_unique_id *ids,
		     int n)
{
	char c;
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = hpuccl_get_unique_id(&ids[i]);
		if (ret) {
			fprintf(stderr, "hpuccl_get_unique_id: %s\n",
				strerror(-ret));
			return 2;
		}
	}
	if (write(ids_fd, ids, n * sizeof(*ids)) != (ssize_t)(n * sizeof(*ids)))
		return 3;
	close(ids_fd);
	while (read(stop_fd, &c, 1) != 0 && errno == EINTR)
		;
	return 0;
}

int hpu_test_ccl_ids_start(struct hpu_test_ccl_ids *s,
			   struct hpuccl_unique_id *ids, int n)
{
	size_t want = n * sizeof(*ids), got = 0;
	int ids_pipe[2], stop_pipe[2], ret;
	ssize_t r;

	s->pid = -1;
	s->stop_fd = -1;
	if (n <= 0 || pipe2(ids_pipe, O_CLOEXEC))
		return n <= 0 ? -EINVAL : -errno;
	if (pipe2(stop_pipe, O_CLOEXEC)) {
		ret = -errno;
		goto err_ids;
	}
	s->pid = hpu_test_fork_child();
	if (s->pid < 0) {
		ret = s->pid;
		goto err_stop;
	}
	if (s->pid == 0) {
		close(ids_pipe[0]);
		close(stop_pipe[1]);
		_exit(ids_child(ids_pipe[1], stop_pipe[0], ids, n));
	}
	close(ids_pipe[1]);
	close(stop_pipe[0]);
	s->stop_fd = stop_pipe[1];
	/* the child dies with its parent, and EOF ends this read */
	while (got < want) {
		r = read(ids_pipe[0], (char *)ids + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(ids_pipe[0]);
	if (got < want) {
		fprintf(stderr, "hpu_test_ccl_ids_start: the server child "
				"sent no ids\n");
		hpu_test_ccl_ids_stop(s);
		return -EIO;
	}
	return 0;

err_stop:
	close(stop_pipe[0]);
	close(stop_pipe[1]);
err_ids:
	close(ids_pipe[0]);
	close(ids_pipe[1]);
	return ret;
}

void hpu_test_ccl_ids_stop(struct hpu_test_ccl_ids *s)
{
	int status;

	if (s->stop_fd >= 0)
		close(s->stop_fd);
	s->stop_fd = -1;
	if (s->pid > 0 && hpu_test_wait_child(s->pid, IDS_STOP_MS, &status))
		hpu_test_kill_child(s->pid, &status);
	s->pid = -1;
}

int hpu_test_rank_open(struct hpu_test_rank *r, int index)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = hpu_open(index, &r->dev);
	if (ret) {
		fprintf(stderr, "pid %d: hpu_open(%d): %s\n", (int)getpid(),
			index, hpu_strerror(ret));
		return ret;
	}
	ret = hpu_stream_create(r->dev, HPU_STREAM_QUEUE_AUTO, &r->stream);
	if (ret) {
		fprintf(stderr, "pid %d: hpu_stream_create: %s\n",
			(int)getpid(), hpu_strerror(ret));
		hpu_close(r->dev);
		r->dev = NULL;
	}
	return ret;
}

int hpu_test_rank_join(struct hpu_test_rank *r, int nranks, int rank,
		       const struct hpuccl_unique_id *id, uint32_t timeout_ms)
{
	struct hpuccl_config cfg = { .sz = sizeof(cfg),
				     .dev = r->dev,
				     .timeout_ms = timeout_ms };
	int ret;

	ret = hpuccl_comm_init_rank_config(&r->comm, nranks, id, rank, &cfg);
	if (ret) {
		fprintf(stderr, "rank %d/%d: hpuccl_comm_init_rank: %s\n", rank,
			nranks, hpuccl_strerror(ret));
		r->comm = NULL;
	}
	return ret;
}

void hpu_test_rank_close(struct hpu_test_rank *r, int abort)
{
	if (r->comm) {
		if (abort)
			hpuccl_comm_abort(r->comm);
		else
			hpuccl_comm_destroy(r->comm);
	}
	r->comm = NULL;
	hpu_stream_destroy(r->stream);
	r->stream = NULL;
	hpu_close(r->dev);
	r->dev = NULL;
}

int hpu_test_rank_buf(struct hpu_test_rank *r, uint64_t bytes, uint64_t *va)
{
	uint64_t h;
	int ret;

	ret = hpu_mem_alloc(r->dev, bytes, 0, 0, &h);
	if (ret)
		return ret;
	ret = hpu_mem_map(r->dev, h, 0, 0, va);
	if (ret)
		hpu_mem_free(r->dev, h);
	return ret;
}

int hpu_test_rank_put(struct hpu_test_rank *r, uint64_t va, const void *src,
		      size_t bytes)
{
	int ret = hpu_stream_memcpy_h2d(r->stream, va, src, bytes);

	return ret ? ret : hpu_stream_synchronize(r->stream);
}

int hpu_test_rank_get(struct hpu_test_rank *r, void *dst, uint64_t va,
		      size_t bytes)
{
	int ret = hpu_stream_synchronize(r->stream);

	if (!ret)
		ret = hpu_stream_memcpy_d2h(r->stream, dst, va, bytes);
	return ret ? ret : hpu_stream_synchronize(r->stream);
}

pid_t hpu_test_fork_rank(int (*fn)(void *arg), void *arg)
{
	pid_t pid = hpu_test_fork_child();

	if (pid)
		return pid;
	exit(fn(arg));
}

/*
 * Reap the children killed at the deadline, for at most KILL_REAP_MS: one
 * blocked in an answer the daemon never gives cannot die before the
 * daemon does (the group teardown kills it), so it is left unreaped.
 */
#define KILL_REAP_MS 5000

static void reap_killed(const pid_t *pids, int n, int *status)
{
	long start = hpu_test_now_ms();
	int i, st, left;

	do {
		left = 0;
		for (i = 0; i < n; i++) {
			if (pids[i] <= 0 || status[i] >= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i])
				status[i] = 128 + SIGKILL;
			else
				left++;
		}
		if (left)
			hpu_test_sleep_ms(10);
	} while (left && hpu_test_now_ms() - start < KILL_REAP_MS);
	for (i = 0; left && i < n; i++)
		if (pids[i] > 0 && status[i] < 0)
			fprintf(stderr,
				"pid %d did not die within %d ms of SIGKILL "
				"(blocked in the driver?)\n",
				(int)pids[i], KILL_REAP_MS);
}

int hpu_test_wait_ranks(const pid_t *pids, int n, int timeout_ms, int *status,
			long *elapsed_ms)
{
	long start = hpu_test_now_ms();
	int left = 0, i, st, ret = 0;

	for (i = 0; i < n; i++) {
		status[i] = -1;
		if (elapsed_ms)
			elapsed_ms[i] = -1;
		if (pids[i] > 0)
			left++;
	}
	while (left) {
		for (i = 0; i < n; i++) {
			if (pids[i] <= 0 || status[i] >= 0 ||
			    waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			status[i] = WIFEXITED(st) ? WEXITSTATUS(st) :
						    128 + WTERMSIG(st);
			if (elapsed_ms)
				elapsed_ms[i] = hpu_test_now_ms() - start;
			left--;
		}
		if (!left)
			break;
		if (hpu_test_now_ms() - start > timeout_ms) {
			ret = -ETIMEDOUT;
			for (i = 0; i < n; i++) {
				if (pids[i] <= 0 || status[i] >= 0)
					continue;
				fprintf(stderr,
					"pid %d still running after %d ms: "
					"killed\n",
					(int)pids[i], timeout_ms);
				hpu_test_print_proc(pids[i]);
				kill(pids[i], SIGKILL);
			}
			reap_killed(pids, n, status);
			break;
		}
		hpu_test_sleep_ms(5);
	}
	return ret;
}

int hpu_test_run_ranks(int (*fn)(void *arg), void *ranks, size_t size,
		       int world, int timeout_ms, int *status)
{
	pid_t pids[HPU_TEST_MAX_RANKS];
	int i, ret = 0;

	if (world < 1 || world > HPU_TEST_MAX_RANKS)
		return -EINVAL;
	for (i = 0; i < world; i++) {
		pids[i] =
			ret ? -1 :
			      hpu_test_fork_rank(fn, (char *)ranks + i * size);
		if (pids[i] < 0 && !ret)
			ret = (int)pids[i];
	}
	i = hpu_test_wait_ranks(pids, world, timeout_ms, status, NULL);
	return ret ? ret : i;
}
