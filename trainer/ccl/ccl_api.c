// SPDX-License-Identifier: MIT
/*
 * ccl_api.c - libhpuccl entry points (skeleton: filled in by later commits)
 */
#include <errno.h>
#include <string.h>

#include "hpuccl.h"

HPUCCL_EXPORT const char *hpuccl_version(void)
{
	return "1.0.0";
}

HPUCCL_EXPORT const char *hpuccl_strerror(int err)
{
	if (err > 0)
		return "not an error code";
	return err == 0 ? "success" : strerror(-err);
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

HPUCCL_EXPORT int hpuccl_get_unique_id(struct hpuccl_unique_id *id)
{
	(void)id;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_unique_id_from_env(struct hpuccl_unique_id *id,
					    int rank)
{
	(void)id;
	(void)rank;
	return -ENOSYS;
}

HPUCCL_EXPORT int
hpuccl_comm_init_rank_config(struct hpuccl_comm **comm, int nranks,
			     const struct hpuccl_unique_id *id, int rank,
			     const struct hpuccl_config *cfg)
{
	(void)comm;
	(void)nranks;
	(void)id;
	(void)rank;
	(void)cfg;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_comm_init_rank(struct hpuccl_comm **comm, int nranks,
					const struct hpuccl_unique_id *id,
					int rank)
{
	return hpuccl_comm_init_rank_config(comm, nranks, id, rank, NULL);
}

HPUCCL_EXPORT int hpuccl_comm_destroy(struct hpuccl_comm *comm)
{
	(void)comm;
	return 0;
}

HPUCCL_EXPORT int hpuccl_comm_abort(struct hpuccl_comm *comm)
{
	(void)comm;
	return 0;
}

HPUCCL_EXPORT int hpuccl_comm_get_async_error(struct hpuccl_comm *comm)
{
	return comm ? -ENOSYS : -EINVAL;
}

HPUCCL_EXPORT int hpuccl_comm_count(const struct hpuccl_comm *comm)
{
	(void)comm;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_comm_rank(const struct hpuccl_comm *comm)
{
	(void)comm;
	return -ENOSYS;
}

HPUCCL_EXPORT struct hpu_device *
hpuccl_comm_device(const struct hpuccl_comm *comm)
{
	(void)comm;
	return NULL;
}

HPUCCL_EXPORT int hpuccl_allreduce(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   enum hpuccl_redop op,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)op;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_broadcast(uint64_t sendbuf, uint64_t recvbuf,
				   size_t count, enum hpuccl_dtype dtype,
				   int root, struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)root;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_reduce(uint64_t sendbuf, uint64_t recvbuf,
				size_t count, enum hpuccl_dtype dtype,
				enum hpuccl_redop op, int root,
				struct hpuccl_comm *comm,
				struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)count, (void)dtype, (void)op;
	(void)root, (void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_allgather(uint64_t sendbuf, uint64_t recvbuf,
				   size_t sendcount, enum hpuccl_dtype dtype,
				   struct hpuccl_comm *comm,
				   struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)sendcount, (void)dtype;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int
hpuccl_reduce_scatter(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)recvcount, (void)dtype, (void)op;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_alltoall(uint64_t sendbuf, uint64_t recvbuf,
				  size_t count, enum hpuccl_dtype dtype,
				  struct hpuccl_comm *comm,
				  struct hpu_stream *stream)
{
	(void)sendbuf, (void)recvbuf, (void)count, (void)dtype;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_send(uint64_t sendbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	(void)sendbuf, (void)count, (void)dtype, (void)peer;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_recv(uint64_t recvbuf, size_t count,
			      enum hpuccl_dtype dtype, int peer,
			      struct hpuccl_comm *comm,
			      struct hpu_stream *stream)
{
	(void)recvbuf, (void)count, (void)dtype, (void)peer;
	(void)comm, (void)stream;
	return -ENOSYS;
}

HPUCCL_EXPORT int hpuccl_group_start(void)
{
	return 0;
}

HPUCCL_EXPORT int hpuccl_group_end(void)
{
	return -EINVAL;
}
