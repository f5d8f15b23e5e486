/* SPDX-License-Identifier: MIT */
/*
 * hpuccl.h - libhpuccl: collective communication between HPU ranks
 *
 * One rank per process and device. Ranks form a communicator from a
 * unique id that one of them makes (hpuccl_get_unique_id()) and hands to
 * the others, or that every rank derives from the launcher's environment
 * (hpuccl_unique_id_from_env()). The rendezvous goes through a small TCP
 * store at the address the id names; after it, every byte of a collective
 * is moved by the devices' NICs (scale-up ports between devices of one
 * server, scale-out ports between servers) and reduced by their TPCs, as
 * command buffers the devices run (docs/collectives.md).
 *
 * Buffers are device VAs of the rank's own context. Collectives are
 * asynchronous on a libhpudrv stream: a call returns once the work is
 * submitted; it starts after the stream's earlier work and the stream's
 * later work waits for it. Calls return 0 or a negative errno; a peer
 * that died or a link that went down makes the collective fail within the
 * communicator's timeout (the stream reports -EIO or -ETIMEDOUT, and
 * hpuccl_comm_get_async_error() says why), never hang.
 *
 * Every rank must call the collectives of a communicator in the same
 * order. A communicator is used by one thread at a time.
 */
#ifndef HPU_HPUCCL_H
#define HPU_HPUCCL_H

#include <stddef.h>
#include <stdint.h>

#include "hpudrv.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HPUCCL_BUILD)
#define HPUCCL_EXPORT __attribute__((visibility("default")))
#else
#define HPUCCL_EXPORT
#endif

/* Bytes of a unique id */
#define HPUCCL_UNIQUE_ID_BYTES 128

/**
 * struct hpuccl_unique_id - names a communicator's rendezvous (opaque
 * bytes, copied between processes as they are)
 * @internal: the store's address and the communicator's nonce
 */
struct hpuccl_unique_id {
	char internal[HPUCCL_UNIQUE_ID_BYTES];
};

/** struct hpuccl_comm - a communicator (opaque) */
struct hpuccl_comm;

/**
 * enum hpuccl_dtype - element types
 * @HPUCCL_FLOAT32: IEEE binary32
 * @HPUCCL_BFLOAT16: bfloat16 (reductions accumulate in binary32 per step)
 * @HPUCCL_INT32: two's complement 32-bit (sums wrap)
 */
enum hpuccl_dtype {
	HPUCCL_FLOAT32 = 0,
	HPUCCL_BFLOAT16 = 1,
	HPUCCL_INT32 = 2,
	HPUCCL_NUM_DTYPES
};

/**
 * enum hpuccl_redop - reductions
 * @HPUCCL_SUM: sum
 * @HPUCCL_MIN: minimum
 * @HPUCCL_MAX: maximum
 * @HPUCCL_AVG: sum divided by the rank count (int32: truncated)
 */
enum hpuccl_redop {
	HPUCCL_SUM = 0,
	HPUCCL_MIN = 1,
	HPUCCL_MAX = 2,
	HPUCCL_AVG = 3,
	HPUCCL_NUM_REDOPS
};

/* Default communicator timeout; HPUCCL_TIMEOUT_MS in the environment
 * overrides it */
#define HPUCCL_DEFAULT_TIMEOUT_MS 60000

/**
 * struct hpuccl_config - options of hpuccl_comm_init_rank_config()
 * @sz: sizeof(struct hpuccl_config), set by the caller
 * @dev: compute handle of the rank's device; NULL: the library opens the
 *	device of index HPUCCL_DEVICE, else LOCAL_RANK (modulo the visible
 *	devices), else 0, and closes it at destroy
 * @timeout_ms: rendezvous and collective timeout; 0: HPUCCL_TIMEOUT_MS
 *	from the environment, else HPUCCL_DEFAULT_TIMEOUT_MS
 * @flags: 0
 *
 * Initialise it whole, e.g. ``struct hpuccl_config c = { .sz = sizeof(c),
 * .dev = dev };``. A smaller @sz (a program built against an older
 * header) leaves the fields it does not cover at their defaults; a larger
 * one (a newer header) is refused unless every byte this library does not
 * know is zero. Since HPUCCL_1.1; before, the struct had no @sz (programs
 * built then still get that ABI).
 */
struct hpuccl_config {
	size_t sz;
	struct hpu_device *dev;
	uint32_t timeout_ms;
	uint32_t flags;
};

/**
 * hpuccl_version() - version of this library
 *
 * It follows the symbol versions: HPUCCL_1.1 as the newest node of the
 * version script is "1.1.0" (also the file name libhpuccl.so.1.1.0 and the
 * pkg-config version).
 *
 * Return: a static "MAJOR.MINOR.PATCH" string.
 */
HPUCCL_EXPORT const char *hpuccl_version(void);

/**
 * hpuccl_strerror() - text for a negative errno returned by the library
 * @err: negative errno
 *
 * Return: a static string.
 */
HPUCCL_EXPORT const char *hpuccl_strerror(int err);

/**
 * hpuccl_get_unique_id() - make a new communicator id and host its store
 * @id: receives the id
 *
 * The store listens on HCCL_COMM_ID ("IP:PORT") if set, else
 * MASTER_ADDR:MASTER_PORT if both are set, else on a free port of
 * 127.0.0.1; it is served by a thread of the calling process until every
 * communicator made from it in this process was destroyed. Called by one
 * process (usually rank 0), which hands @id to the others. A launcher that
 * forks its ranks must fork them before this call, or exec in the child:
 * a child forked while the store's thread runs inherits that thread's
 * locks (the allocator's among them) as they were, and may wait forever.
 *
 * Return: 0; -EINVAL (malformed variables); -EADDRINUSE; -errno.
 */
HPUCCL_EXPORT int hpuccl_get_unique_id(struct hpuccl_unique_id *id);

/**
 * hpuccl_unique_id_from_env() - the id every rank of a launched job
 * agrees on without exchanging anything
 * @id: receives the id
 * @rank: this process's rank; rank 0 also hosts the store (as
 *	hpuccl_get_unique_id() does)
 *
 * Uses HCCL_COMM_ID, else MASTER_ADDR and MASTER_PORT (required then).
 *
 * Return: 0; -EINVAL (variables missing or malformed); -EADDRINUSE;
 * -errno.
 */
HPUCCL_EXPORT int hpuccl_unique_id_from_env(struct hpuccl_unique_id *id,
					    int rank);

/**
 * hpuccl_comm_init_rank() - join a communicator of @nranks ranks
 * @comm: receives the communicator
 * @nranks: ranks, >= 1
 * @id: id shared by every rank
 * @rank: 0..@nranks-1, each taken by exactly one process
 *
 * Blocks until every rank joined (or the timeout). Equivalent to
 * hpuccl_comm_init_rank_config() with a NULL config.
 *
 * Return: 0; -EINVAL; -ETIMEDOUT (a rank never came); -EEXIST (rank
 * taken twice); -ECONNREFUSED (no store); -errno.
 */
HPUCCL_EXPORT int hpuccl_comm_init_rank(struct hpuccl_comm **comm, int nranks,
					const struct hpuccl_unique_id *id,
					int rank);

/**
 * hpuccl_comm_init_rank_config() - hpuccl_comm_init_rank() with options
 * @comm: receives the communicator
 * @nranks: ranks, >= 1
 * @id: id shared by every rank
 * @rank: this rank
 * @cfg: options, or NULL for the defaults
 *
 * Return: as hpuccl_comm_init_rank(); also -EINVAL for @cfg->sz smaller
 * than the size field or flags not 0, -E2BIG for a @cfg larger than this
 * library knows whose unknown tail is not zero (or @cfg->sz above a
 * page). A bad @cfg is refused before anything is done.
 */
HPUCCL_EXPORT int
hpuccl_comm_init_rank_config(struct hpuccl_comm **comm, int nranks,
			     const struct hpuccl_unique_id *id, int rank,
			     const struct hpuccl_config *cfg);

/**
 * hpuccl_comm_destroy() - wait for the communicator's work, then free it
 * @comm: communicator or NULL
 *
 * Return: 0, or the communicator's asynchronous error.
 */
HPUCCL_EXPORT int hpuccl_comm_destroy(struct hpuccl_comm *comm);

/**
 * hpuccl_comm_abort() - stop the communicator's work now and free it
 * @comm: communicator or NULL
 *
 * Work in flight is aborted; the peers see the failure within their
 * timeout. Every device resource of the communicator is released.
 *
 * Return: 0.
 */
HPUCCL_EXPORT int hpuccl_comm_abort(struct hpuccl_comm *comm);

/**
 * hpuccl_comm_get_async_error() - whether the communicator failed
 * @comm: communicator
 *
 * Return: 0; -ETIMEDOUT (a collective timed out); -ECONNRESET (a peer
 * left); -ENETDOWN (a link went down); -EIO; -errno.
 */
HPUCCL_EXPORT int hpuccl_comm_get_async_error(struct hpuccl_comm *comm);

/** hpuccl_comm_count() - ranks of @comm */
HPUCCL_EXPORT int hpuccl_comm_count(const struct hpuccl_comm *comm);

/** hpuccl_comm_rank() - this process's rank in @comm */
HPUCCL_EXPORT int hpuccl_comm_rank(const struct hpuccl_comm *comm);

/** hpuccl_comm_device() - the device handle @comm runs on */
HPUCCL_EXPORT struct hpu_device *
hpuccl_comm_device(const struct hpuccl_comm *comm);

/** hpuccl_dtype_size() - bytes of one element, 0 for a bad dtype */
HPUCCL_EXPORT size_t hpuccl_dtype_size(enum hpuccl_dtype dtype);

/**
 * hpuccl_allreduce() - recvbuf = op over ranks of sendbuf
 * @sendbuf: device VA of @count elements
 * @recvbuf: device VA of @count elements (may equal @sendbuf: in place)
 * @count: elements (0 is a no-op)
 * @dtype: element type
 * @op: reduction
 * @comm: communicator
 * @stream: stream of the communicator's device
 *
 * Return: 0; -EINVAL (bad argument: nothing submitted); -errno of the
 * submission; the communicator's error once it failed.
 */
HPUCCL_EXPORT int hpuccl_allreduce(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   enum hpuccl_redop op,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream);

/**
 * hpuccl_broadcast() - recvbuf of every rank = sendbuf of @root
 * @sendbuf: device VA of @count elements (read on @root only)
 * @recvbuf: device VA of @count elements (may equal @sendbuf)
 * @count: elements
 * @dtype: element type
 * @root: rank whose data is sent
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_broadcast(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   int root, struct hpuccl_comm *comm,
				   struct hpu_stream *stream);

/**
 * hpuccl_reduce() - recvbuf of @root = op over ranks of sendbuf
 * @sendbuf: device VA of @count elements
 * @recvbuf: device VA of @count elements (written on @root only)
 * @count: elements
 * @dtype: element type
 * @op: reduction
 * @root: rank that receives the result
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_reduce(uint64_t sendbuf, uint64_t recvbuf,
				size_t count, enum hpuccl_dtype dtype,
				enum hpuccl_redop op, int root,
				struct hpuccl_comm *comm,
				struct hpu_stream *stream);

/**
 * hpuccl_allgather() - recvbuf[r * sendcount ...] = sendbuf of rank r
 * @sendbuf: device VA of @sendcount elements (may be recvbuf + rank *
 *	sendcount elements: in place)
 * @recvbuf: device VA of nranks * @sendcount elements
 * @sendcount: elements each rank contributes
 * @dtype: element type
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_allgather(uint64_t sendbuf, uint64_t recvbuf,
				   size_t sendcount, enum hpuccl_dtype dtype,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream);

/**
 * hpuccl_reduce_scatter() - recvbuf of rank r = op over ranks of
 * sendbuf[r * recvcount ...]
 * @sendbuf: device VA of nranks * @recvcount elements
 * @recvbuf: device VA of @recvcount elements (may be sendbuf + rank *
 *	recvcount elements: in place)
 * @recvcount: elements each rank receives
 * @dtype: element type
 * @op: reduction
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int
hpuccl_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream);

/**
 * hpuccl_alltoall() - recvbuf[p * count ...] of rank r = sendbuf[r *
 * count ...] of rank p
 * @sendbuf: device VA of nranks * @count elements
 * @recvbuf: device VA of nranks * @count elements (not overlapping
 *	@sendbuf)
 * @count: elements exchanged with each rank
 * @dtype: element type
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_alltoall(uint64_t sendbuf, uint64_t recvbuf,
				  size_t count, enum hpuccl_dtype dtype,
				  struct hpuccl_comm *comm,
				  struct hpu_stream *stream);

/**
 * hpuccl_send() - send @count elements to @peer (matched by its
 * hpuccl_recv() from this rank, in call order)
 * @sendbuf: device VA
 * @count: elements
 * @dtype: element type
 * @peer: destination rank (not this rank)
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_send(uint64_t sendbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream);

/**
 * hpuccl_recv() - receive @count elements from @peer
 * @recvbuf: device VA
 * @count: elements (the same count the peer sends)
 * @dtype: element type
 * @peer: source rank (not this rank)
 * @comm: communicator
 * @stream: stream
 *
 * Return: as hpuccl_allreduce().
 */
HPUCCL_EXPORT int hpuccl_recv(uint64_t recvbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream);

/**
 * hpuccl_group_start() - defer the calls of this thread until
 * hpuccl_group_end() (nesting counts), so that sends and receives between
 * ranks in any order cannot deadlock and run as one submission
 *
 * Return: 0.
 */
HPUCCL_EXPORT int hpuccl_group_start(void);

/**
 * hpuccl_group_end() - submit the calls deferred since the outermost
 * hpuccl_group_start()
 *
 * Return: 0, -EINVAL (no group open), or the first error of the calls.
 */
HPUCCL_EXPORT int hpuccl_group_end(void);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUCCL_H */
