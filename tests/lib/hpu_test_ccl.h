/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_ccl.h - what the libhpuccl integration tests share: ranks as
 * forked processes (bounded reaping), a rank's device, stream and
 * communicator, device buffers filled and read back from the host.
 */
#ifndef HPU_TEST_CCL_H
#define HPU_TEST_CCL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hpuccl.h"

/**
 * struct hpu_test_rank - one rank inside its process
 * @dev: its device (compute handle)
 * @stream: a stream of @dev
 * @comm: its communicator, NULL before hpu_test_rank_join()
 */
struct hpu_test_rank {
	struct hpu_device *dev;
	struct hpu_stream *stream;
	struct hpuccl_comm *comm;
};

/**
 * hpu_test_ccl_unavailable() - whether the running daemon (HPU_DEV_DIR)
 * and the library can run collectives
 *
 * Return: NULL when they can, else the reason to print with skip(): the
 * model lacks NICs (HPU_CAP_NIC/HPU_CAP_DEBUG), or libhpuccl answers
 * -ENOSYS (not implemented in this tree).
 */
const char *hpu_test_ccl_unavailable(void);

/**
 * hpu_test_ccl_group_start() - the group setup of the rank tests: clear
 * what a caller's shell could leave to libhpuccl (HCCL_COMM_ID,
 * HPUCCL_TIMEOUT_MS, HPUCCL_ZCOPY_BYTES), start @ndev devices of @type
 * (hpu_test_group_start()), then say whether collectives can run here
 * @ndev: devices
 * @type: their model, e.g. "gaudi2"
 * @skip_reason: receives NULL, or why every test skips (no FUSE, or
 *	hpu_test_ccl_unavailable())
 *
 * Return: 0, or -1 when the daemon did not start (the group fails).
 */
int hpu_test_ccl_group_start(int ndev, const char *type,
			     const char **skip_reason);

/**
 * struct hpu_test_ccl_ids - unique ids whose rendezvous servers run in a
 * child process of their own
 * @pid: the child
 * @stop_fd: the write end of the pipe that keeps the child alive
 *
 * hpuccl_get_unique_id() starts the rendezvous server in the calling
 * process, as a thread; a test that forks ranks afterwards would fork a
 * process with threads (see hpu_test_fork_child()). The child holds the
 * servers instead, and the test process stays single-threaded.
 */
struct hpu_test_ccl_ids {
	pid_t pid;
	int stop_fd;
};

/**
 * hpu_test_ccl_ids_start() - make @n unique ids in a server child
 * @s: filled; stop it with hpu_test_ccl_ids_stop()
 * @ids: the ids
 * @n: how many
 *
 * Return: 0 or -errno (printed).
 */
int hpu_test_ccl_ids_start(struct hpu_test_ccl_ids *s,
			   struct hpuccl_unique_id *ids, int n);

/**
 * hpu_test_ccl_ids_stop() - end the server child of hpu_test_ccl_ids_start()
 * @s: started ids (stopping twice is harmless)
 */
void hpu_test_ccl_ids_stop(struct hpu_test_ccl_ids *s);

/**
 * hpu_test_rank_open() - open device @index and a stream on it
 * @r: rank to fill (zeroed first)
 * @index: hpuN
 *
 * Return: 0 or -errno (printed).
 */
int hpu_test_rank_open(struct hpu_test_rank *r, int index);

/**
 * hpu_test_rank_join() - join a communicator on the rank's device
 * @r: opened rank
 * @nranks: ranks
 * @rank: this rank
 * @id: the communicator's id
 * @timeout_ms: communicator timeout (0: the library's)
 *
 * Return: 0 or -errno (printed).
 */
int hpu_test_rank_join(struct hpu_test_rank *r, int nranks, int rank,
		       const struct hpuccl_unique_id *id, uint32_t timeout_ms);

/**
 * hpu_test_rank_close() - destroy (or with @abort, abort) the
 * communicator, then release the stream and the device
 * @r: rank
 * @abort: abort instead of destroy
 */
void hpu_test_rank_close(struct hpu_test_rank *r, int abort);

/**
 * hpu_test_rank_buf() - device memory mapped in the rank's context (freed
 * when the device is closed)
 * @r: rank
 * @bytes: size
 * @va: receives the device VA
 *
 * Return: 0 or -errno.
 */
int hpu_test_rank_buf(struct hpu_test_rank *r, uint64_t bytes, uint64_t *va);

/**
 * hpu_test_rank_put() - copy host memory to @va and wait
 * @r: rank
 * @va: device VA
 * @src: host memory
 * @bytes: size
 *
 * Return: 0 or -errno.
 */
int hpu_test_rank_put(struct hpu_test_rank *r, uint64_t va, const void *src,
		      size_t bytes);

/**
 * hpu_test_rank_get() - synchronize the stream, copy @va to host memory
 * and wait
 * @r: rank
 * @dst: host memory
 * @va: device VA
 * @bytes: size
 *
 * Return: 0 or -errno (also the stream's earlier failure).
 */
int hpu_test_rank_get(struct hpu_test_rank *r, void *dst, uint64_t va,
		      size_t bytes);

/**
 * hpu_test_fork_rank() - fork a child that runs @fn and exits with its
 * return value; it gets SIGKILL when the test dies
 * @fn: the child's body
 * @arg: its argument
 *
 * Return: the child's pid or -errno.
 */
pid_t hpu_test_fork_rank(int (*fn)(void *arg), void *arg);

/**
 * hpu_test_wait_ranks() - reap @n children, killing those still running
 * after @timeout_ms
 * @pids: children (entries <= 0 are ignored)
 * @n: entries
 * @timeout_ms: bound for all of them together
 * @status: receives per child its exit status, 128 + signal when killed
 *	by one, or -1 when it was still running at the deadline
 * @elapsed_ms: receives per child the ms from the call until it ended
 *	(may be NULL)
 *
 * Return: 0 when all ended in time, -ETIMEDOUT otherwise (all reaped).
 */
int hpu_test_wait_ranks(const pid_t *pids, int n, int timeout_ms, int *status,
			long *elapsed_ms);

/* Ranks hpu_test_run_ranks() forks at the most */
#define HPU_TEST_MAX_RANKS 64

/**
 * hpu_test_run_ranks() - fork @world ranks, rank i running @fn on the
 * i-th element of @ranks, and reap them all (hpu_test_fork_rank(),
 * hpu_test_wait_ranks())
 * @fn: a rank's body
 * @ranks: @world elements of @size bytes, in memory the children share
 *	when the parent reads their results
 * @size: bytes of an element
 * @world: ranks, at most HPU_TEST_MAX_RANKS
 * @timeout_ms: bound for all of them together
 * @status: receives per rank its status as hpu_test_wait_ranks() gives it
 *
 * Return: 0 when all ended in time (whatever their status); -EINVAL for
 * a bad @world; a fork's failure (those forked are reaped); -ETIMEDOUT.
 */
int hpu_test_run_ranks(int (*fn)(void *arg), void *ranks, size_t size,
		       int world, int timeout_ms, int *status);

#endif /* HPU_TEST_CCL_H */
