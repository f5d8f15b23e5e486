/* SPDX-License-Identifier: MIT */
/*
 * coll.h - what the schedules of the collective families share (coll.c):
 * a call's arguments and their checks, chunking arithmetic, the
 * processing ops of a round, zero copy, the algorithm note, and the
 * tables of algorithms (struct ccl_family). One file per family
 * implements its schedules and holds their table: allreduce.c
 * (allreduce, reduce_scatter), allgather.c, broadcast.c (broadcast,
 * reduce), alltoall.c; group.c the point-to-point calls
 * (docs/collectives.md "Algorithms"). algo.c lists the tables.
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

/**
 * struct ccl_algo - one algorithm of a collective: a row of its family's
 * table
 * @name: as HPUCCL_ALGO spells it and HPUCCL_DEBUG prints it; families
 *	may share a name ("direct"), it then forces each family's own
 * @plan: lays a call out in the family's plan (@x: struct ar_plan for
 *	allreduce, struct ccl_ag_plan for allgather and broadcast, ...,
 *	with the arguments filled in); may run another algorithm of the
 *	table when the topology does not allow this one, by setting the
 *	plan's algorithm. Return: the rounds of the schedule.
 * @gen: the generator of its rounds (ccl_run())
 */
struct ccl_algo {
	const char *name;
	uint64_t (*plan)(struct hpuccl_comm *c, void *x);
	ccl_gen_fn gen;
};

/**
 * struct ccl_family - the algorithms one collective runs, in the file of
 * its family (listed in algo.c)
 * @coll: the collective as HPUCCL_DEBUG names it ("allreduce")
 * @algos: its algorithms; an algorithm of the family is its index here
 * @nalgos: entries of @algos
 * @other: what a forced name that is not in @algos runs: an index into
 *	@algos, or -1 for the automatic choice
 * @choose: the automatic choice for a call of @bytes (what lands in each
 *	rank's receive buffer): an index into @algos
 */
struct ccl_family {
	const char *coll;
	const struct ccl_algo *algos;
	int nalgos;
	int other;
	int (*choose)(const struct hpuccl_comm *c, uint64_t bytes);
};

/* The families' tables (in their files; algo.c lists them) */
extern const struct ccl_family ccl_allreduce_family;
extern const struct ccl_family ccl_reduce_scatter_family;
extern const struct ccl_family ccl_allgather_family;
extern const struct ccl_family ccl_broadcast_family;
extern const struct ccl_family ccl_reduce_family;
extern const struct ccl_family ccl_alltoall_family;

/**
 * ccl_algo_pick() - the algorithm of @f a call of @bytes runs
 * @c: communicator
 * @f: family
 * @bytes: what lands in each rank's receive buffer
 *
 * With 3 ranks or more, the forced one (HPUCCL_ALGO) when @f has that
 * name, else @f's @other when it has one; with 2 ranks, the forced one
 * when it is "direct" or "oneshot" and @f has it; otherwise (no forced
 * name, 1 rank, another name with 2 ranks, or no @other) @f's automatic
 * choice.
 *
 * Return: an index into @f's algorithms.
 */
int ccl_algo_pick(const struct hpuccl_comm *c, const struct ccl_family *f,
		  uint64_t bytes);

/* The families' tables, *@n of them (algo.c's list) */
const struct ccl_family *const *ccl_algo_families(int *n);

/*
 * Check @n tables: a name and at least one algorithm each, families'
 * names unique; each algorithm a name (not "auto", unique in its
 * family), a plan and a generator; @other -1 or an index; a choice.
 * Return: 0, or -EINVAL naming the first fault on stderr.
 */
int ccl_algo_check(const struct ccl_family *const *fams, int n);

/* Remember (and with HPUCCL_DEBUG print) algorithm @algo of @f a call
 * runs */
void ccl_coll_note_algo(struct hpuccl_comm *c, const struct ccl_family *f,
			int algo, uint64_t count, bool zc);

/**
 * struct ccl_ag_plan - an allgather or broadcast schedule (allgather.c)
 * @a: arguments
 * @algo: index into the family's table (ccl_allgather_family or
 *	ccl_broadcast_family)
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
 * Algorithm of @f, zero copy and the plan of the allgather or broadcast
 * in @x (x->a filled in); @bytes: what lands in each rank's receive
 * buffer; *@rounds: rounds of the schedule. Return: 0 or -errno of the
 * zero-copy exchange.
 */
int ccl_ag_plan_make(struct hpuccl_comm *c, const struct ccl_family *f,
		     struct ccl_ag_plan *x, uint64_t bytes, uint64_t *rounds);
/* Chunks of @x: one slot, or with zero copy and @big (a direct schedule)
 * CCL_DIRECT_CHUNK_BYTES */
void ccl_ag_plan_chunks(struct ccl_ag_plan *x, bool big);
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
