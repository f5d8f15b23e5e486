/* SPDX-License-Identifier: MIT */
/*
 * coll.h - what the schedules of the collective families share (coll.c):
 * a call's arguments and their checks, chunking arithmetic, the
 * processing ops of a round, zero copy and the algorithm note. One file
 * per family implements its schedules: allreduce.c (allreduce,
 * reduce_scatter), allgather.c, broadcast.c (broadcast, reduce),
 * alltoall.c; group.c the point-to-point calls (docs/collectives.md
 * "Algorithms").
 */
#ifndef HPU_CCL_COLL_H
#define HPU_CCL_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "ccl_internal.h"

/* Ranks a schedule can name in its fixed arrays */
#define AR_MAX (HPU_NUM_SOBS / 3 + 1)

/**
 * struct coll - arguments of a collective's generator
 * @send: send buffer VA
 * @recv: receive buffer VA
 * @count: elements (per rank block where the collective has blocks)
 * @dtype: element type
 * @op: reduction
 * @root: root rank
 * @esz: bytes per element
 * @se: elements per chunk (one inbox slot)
 */
struct coll {
	uint64_t send;
	uint64_t recv;
	uint64_t count;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop op;
	int root;
	uint64_t esz;
	uint64_t se;
};

/* Share @r of @count elements split over @n: offset and length */
static inline void coll_share(uint64_t count, int n, int r, uint64_t *off,
			      uint64_t *len)
{
	uint64_t base = count / (uint64_t)n, rem = count % (uint64_t)n;

	*off = base * (uint64_t)r + ((uint64_t)r < rem ? (uint64_t)r : rem);
	*len = base + ((uint64_t)r < rem ? 1 : 0);
}

/* Elements [c*se, ...) of a run of @len elements: the chunk's length */
static inline uint64_t coll_chunk_len(uint64_t len, uint64_t se, uint64_t c)
{
	uint64_t start = c * se;

	if (start >= len)
		return 0;
	return len - start < se ? len - start : se;
}

static inline uint64_t coll_div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* @a modulo @m in 0..m-1, also for a negative @a */
static inline int coll_mod(int a, int m)
{
	return ((a % m) + m) % m;
}

/*
 * Checks every collective makes: communicator, stream of its device,
 * dtype; fills @a's element size and chunk. Return: 0 or -EINVAL.
 */
int ccl_coll_check_common(struct hpuccl_comm *comm, struct hpu_stream *stream,
			  enum hpuccl_dtype dtype, struct coll *a);
/* Return: 0 for a known reduction, else -EINVAL */
int ccl_coll_check_op(enum hpuccl_redop op);
/* A buffer of @count elements of @esz bytes at @va. Return: 0, -EINVAL */
int ccl_coll_check_buf(uint64_t va, uint64_t count, uint64_t esz);
/* The buffers and count of a call that passed its checks */
void ccl_coll_set(struct coll *a, uint64_t send, uint64_t recv, uint64_t count,
		  enum hpuccl_redop op);
/* Element offset of each rank's block of @count elements */
void ccl_coll_blocks_fixed(struct hpuccl_comm *c, uint64_t count,
			   uint64_t *boff);

/* An ACC op reducing into @out; AVG divides by @nranks (when > 1) */
struct ccl_op *ccl_coll_acc_op(struct ccl_round *r, const struct coll *a,
			       int nranks, uint64_t out, uint64_t count);
/* A COPY op of @count elements from message @msg or @va (msg < 0) to
 * @out; nothing for none or for a copy onto itself */
void ccl_coll_copy_op(struct ccl_round *r, const struct coll *a, uint64_t out,
		      int msg, uint64_t va, uint64_t count);

/*
 * Zero copy for a call of @bytes into @recv: the exchange (every rank
 * decides alike: sizes and threshold are the same everywhere). *@zc says
 * whether the peers write into @recv. Return: 0 or -errno.
 */
int ccl_coll_maybe_zc(struct hpuccl_comm *c, uint64_t recv, uint64_t bytes,
		      bool *zc);

/* Remember (and with HPUCCL_DEBUG print) the schedule a call runs */
void ccl_coll_note_algo(struct hpuccl_comm *c, const char *coll, int algo,
			uint64_t count, bool zc);

/**
 * struct ccl_ag_plan - an allgather or broadcast schedule (allgather.c)
 * @a: arguments
 * @algo: CCL_ALGO_DIRECT or CCL_ALGO_RING (broadcast: a pipelined chain)
 * @zc: data goes straight into the peers' recvbuf
 * @base: rounds before the data rounds (1 with zero copy: the round of
 *	the empty "ready" messages to the ranks that write into this one)
 * @K: chunks per block (allgather) or of the buffer (broadcast)
 * @se: elements per chunk
 * @boff: allgather: element offset of each rank's block
 */
struct ccl_ag_plan {
	struct coll a;
	int algo;
	bool zc;
	uint64_t base;
	uint64_t K;
	uint64_t se;
	uint64_t boff[AR_MAX];
};

/*
 * Algorithm, zero copy and chunks of the allgather or broadcast in @x
 * (x->a filled in); @bytes: what lands in each rank's receive buffer.
 * Return: 0 or -errno of the zero-copy exchange.
 */
int ccl_ag_plan_make(struct hpuccl_comm *c, struct ccl_ag_plan *x,
		     uint64_t bytes);
/* Send chunk bytes to @p: into its inbox, or straight to @roff of its
 * recvbuf */
void ccl_ag_send_to(struct hpuccl_comm *c, const struct ccl_ag_plan *x,
		    struct ccl_round *r, int p, uint64_t src, uint64_t len,
		    uint64_t roff);
/* Receive @count elements from @p for @out (copied out of the inbox) */
void ccl_ag_recv_from(const struct ccl_ag_plan *x, struct ccl_round *r, int p,
		      uint64_t out, uint64_t count);

/* The families' entry points, called after the group check (ccl_api.c) */
int ccl_allreduce_run(uint64_t sendbuf, uint64_t recvbuf, size_t count,
		      enum hpuccl_dtype dtype, enum hpuccl_redop op,
		      struct hpuccl_comm *comm, struct hpu_stream *stream);
int ccl_reduce_scatter_run(uint64_t sendbuf, uint64_t recvbuf, size_t recvcount,
			   enum hpuccl_dtype dtype, enum hpuccl_redop op,
			   struct hpuccl_comm *comm, struct hpu_stream *stream);
int ccl_allgather_run(uint64_t sendbuf, uint64_t recvbuf, size_t sendcount,
		      enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		      struct hpu_stream *stream);
int ccl_alltoall_run(uint64_t sendbuf, uint64_t recvbuf, size_t count,
		     enum hpuccl_dtype dtype, struct hpuccl_comm *comm,
		     struct hpu_stream *stream);
/* @kind: K_BROADCAST or K_REDUCE */
int ccl_rooted_run(int kind, uint64_t sendbuf, uint64_t recvbuf, size_t count,
		   enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		   struct hpuccl_comm *comm, struct hpu_stream *stream);

#endif /* HPU_CCL_COLL_H */
