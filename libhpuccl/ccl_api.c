// SPDX-License-Identifier: MIT
/*
 * ccl_api.c - the exported collectives: each defers itself inside a group
 * (group.c) or runs its family's schedule (allreduce.c, allgather.c,
 * broadcast.c, alltoall.c); the version, error strings and dtype sizes
 */
#include <errno.h>
#include <string.h>

#include "coll.h"

/* The Makefile derives it from libhpuccl.map's newest node */
#ifndef HPUCCL_LIB_VERSION
#error "HPUCCL_LIB_VERSION is set by the Makefile (libhpuccl.map)"
#endif

HPUCCL_EXPORT const char *hpuccl_version(void)
{
	return HPUCCL_LIB_VERSION;
}

HPUCCL_EXPORT const char *hpuccl_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -ETIMEDOUT:
		return "timed out (a peer did not take part in time)";
	case -ECONNRESET:
		return "a rank of the communicator left";
	case -ENETDOWN:
		return "a NIC link went down";
	case -EIO:
		return "a collective failed on the device";
	case -ECONNREFUSED:
		return "no rendezvous store at the id's address";
	case -EEXIST:
		return "rank taken twice";
	default:
		return err < 0 ? strerror(-err) : "not an error code";
	}
}

HPUCCL_EXPORT size_t hpuccl_dtype_size(enum hpuccl_dtype dtype)
{
	switch (dtype) {
	case HPUCCL_FLOAT32:
	case HPUCCL_INT32:
		return 4;
	case HPUCCL_BFLOAT16:
		return 2;
	default:
		return 0;
	}
}

#define DEFER(kind, s, rv, n, t, o, root)                                  \
	do {                                                               \
		if (ccl_group_active())                                    \
			return ccl_group_defer(kind, s, rv, n, t, o, root, \
					       comm, stream);              \
	} while (0)

HPUCCL_EXPORT int hpuccl_allreduce(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   enum hpuccl_redop op,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0);
	return ccl_allreduce_run(sendbuf, recvbuf, count, dtype, op, comm,
				 stream);
}

HPUCCL_EXPORT int
hpuccl_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	DEFER(K_RS, sendbuf, recvbuf, recvcount, dtype, op, 0);
	return ccl_reduce_scatter_run(sendbuf, recvbuf, recvcount, dtype, op,
				      comm, stream);
}

HPUCCL_EXPORT int hpuccl_allgather(uint64_t sendbuf, uint64_t recvbuf,
				   size_t sendcount, enum hpuccl_dtype dtype,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_ALLGATHER, sendbuf, recvbuf, sendcount, dtype, 0, 0);
	return ccl_allgather_run(sendbuf, recvbuf, sendcount, dtype, comm,
				 stream);
}

HPUCCL_EXPORT int hpuccl_alltoall(uint64_t sendbuf, uint64_t recvbuf,
				  size_t count, enum hpuccl_dtype dtype,
				  struct hpuccl_comm *comm,
				  struct hpu_stream *stream)
{
	DEFER(K_A2A, sendbuf, recvbuf, count, dtype, 0, 0);
	return ccl_alltoall_run(sendbuf, recvbuf, count, dtype, comm, stream);
}

HPUCCL_EXPORT int hpuccl_broadcast(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   int root, struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	DEFER(K_BROADCAST, sendbuf, recvbuf, count, dtype, 0, root);
	return ccl_rooted_run(K_BROADCAST, sendbuf, recvbuf, count, dtype, 0,
			      root, comm, stream);
}

HPUCCL_EXPORT int hpuccl_reduce(uint64_t sendbuf, uint64_t recvbuf,
				size_t count, enum hpuccl_dtype dtype,
				enum hpuccl_redop op, int root,
				struct hpuccl_comm *comm,
				struct hpu_stream *stream)
{
	DEFER(K_REDUCE, sendbuf, recvbuf, count, dtype, op, root);
	return ccl_rooted_run(K_REDUCE, sendbuf, recvbuf, count, dtype, op,
			      root, comm, stream);
}

int ccl_run_deferred(int kind, uint64_t send, uint64_t recv, size_t count,
		     enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		     struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	switch (kind) {
	case K_ALLREDUCE:
		return ccl_allreduce_run(send, recv, count, dtype, op, comm,
					 stream);
	case K_BROADCAST:
	case K_REDUCE:
		return ccl_rooted_run(kind, send, recv, count, dtype, op, root,
				      comm, stream);
	case K_ALLGATHER:
		return ccl_allgather_run(send, recv, count, dtype, comm,
					 stream);
	case K_RS:
		return ccl_reduce_scatter_run(send, recv, count, dtype, op,
					      comm, stream);
	case K_A2A:
		return ccl_alltoall_run(send, recv, count, dtype, comm, stream);
	default:
		return -EINVAL;
	}
}
