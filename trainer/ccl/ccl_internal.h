/* SPDX-License-Identifier: MIT */
/*
 * ccl_internal.h - libhpuccl internals: the communicator and the round
 * engine every collective is expressed in (docs/collectives.md)
 */
#ifndef HPU_CCL_INTERNAL_H
#define HPU_CCL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpuccl.h"

struct ccl_store;
struct ccl_store_server;

/* Inbox slots per directed pair (>= 2 x messages per pair per round) */
#define CCL_WINDOW	       4
#define CCL_DEFAULT_SLOT_BYTES (256 * 1024)
/* CS budget: bytes of packets per queue before a new CS is started */
#define CCL_CB_BYTES	       (256 * 1024)
#define CCL_CB_MARGIN	       (16 * 1024)
/* Recent CSs kept to classify a failure */
#define CCL_RECENT	       16

/**
 * struct ccl_peer - what a rank knows of another rank
 * @server_id: the peer's server (HPU_INFO_NIC)
 * @device: its device index in that server
 * @so_ipv4: its server's scale-out address (network order), 0 if none
 * @so_port: its server's scale-out TCP port
 * @key: rkey of its inbox
 * @sob_base: first SOB of its communicator block
 * @queue: index into comm->queues of the local queue that reaches it
 * @conn: local connection id to it
 * @send_cnt: messages sent to it since init
 * @recv_cnt: messages received from it since init
 * @cr_fenced: its credits consumed by local fences since init
 */
struct ccl_peer {
	uint64_t server_id;
	uint32_t device;
	uint32_t so_ipv4;
	uint32_t so_port;
	uint32_t key;
	uint32_t sob_base;
	int queue;
	uint32_t conn;
	uint64_t send_cnt;
	uint64_t recv_cnt;
	uint64_t cr_fenced;
};

/**
 * struct ccl_queue - one NIC queue the communicator uses
 * @port: NIC port
 * @qidx: hardware queue index
 * @cb: builder of the current CS's job
 */
struct ccl_queue {
	uint32_t port;
	uint32_t qidx;
	struct hpu_cb_builder *cb;
};

/**
 * struct hpuccl_comm - a communicator
 * @nranks: ranks
 * @rank: this rank
 * @timeout_ms: rendezvous and CS timeout
 * @dev: device
 * @own_dev: @dev was opened by the library
 * @store: store client
 * @server: store server this process hosts for the communicator, or NULL
 * @ns: namespace of the communicator in the store
 * @peers: @nranks entries (own entry unused)
 * @queues: NIC queues
 * @nqueues: entries of @queues
 * @tpc_q: TPC queue index of the processing job
 * @tpc_cb: builder of the processing job
 * @sob_base: first SOB of this communicator's block
 * @sob_count: SOBs of the block
 * @inbox_handle: allocation of the inbox
 * @inbox_va: device VA of the inbox
 * @inbox_key: its NIC key
 * @slot_bytes: bytes of one inbox slot
 * @recent: last CSs submitted
 * @nrecent: CSs submitted since init
 * @err: sticky asynchronous error
 * @ncoll: collectives issued (names barriers)
 */
struct hpuccl_comm {
	int nranks;
	int rank;
	uint32_t timeout_ms;
	struct hpu_device *dev;
	bool own_dev;
	struct ccl_store *store;
	struct ccl_store_server *server;
	char ns[40];
	struct ccl_peer *peers;
	struct ccl_queue *queues;
	int nqueues;
	uint32_t tpc_q;
	struct hpu_cb_builder *tpc_cb;
	uint32_t sob_base;
	uint32_t sob_count;
	uint64_t inbox_handle;
	uint64_t inbox_va;
	uint32_t inbox_key;
	uint64_t slot_bytes;
	uint64_t recent[CCL_RECENT];
	uint64_t nrecent;
	int err;
	uint64_t ncoll;
};

/* SOBs of a communicator block: arrivals, credits (per rank), cons */
static inline uint32_t ccl_sob_arrival(uint32_t base, int from)
{
	return base + (uint32_t)from;
}

static inline uint32_t ccl_sob_credit(uint32_t base, int nranks, int from)
{
	return base + (uint32_t)nranks + (uint32_t)from;
}

static inline uint32_t ccl_sob_cons(uint32_t base, int nranks, int q)
{
	return base + 2 * (uint32_t)nranks + (uint32_t)q;
}

enum ccl_op_kind {
	CCL_OP_ACC,
	CCL_OP_COPY,
};

/**
 * struct ccl_src - an operand of a processing op
 * @msg: index into the round's receives, or -1 for @va
 * @va: local device VA
 */
struct ccl_src {
	int msg;
	uint64_t va;
};

/**
 * struct ccl_op - processing of a round (TPC queue, in order)
 * @kind: enum ccl_op_kind
 * @out: destination VA
 * @in: operands (ACC: in reduction order; COPY: one)
 * @nin: entries of @in
 * @count: elements
 * @dtype: element type
 * @redop: reduction (ACC)
 * @divisor: ACC: divide the result by it (AVG), 0 for none
 */
struct ccl_op {
	int kind;
	uint64_t out;
	struct ccl_src *in;
	int nin;
	uint64_t count;
	enum hpuccl_dtype dtype;
	enum hpuccl_redop redop;
	uint32_t divisor;
};

/**
 * struct ccl_msg - a message of a round
 * @peer: rank it goes to (send) or comes from (receive)
 * @src: send: local VA of the bytes
 * @len: bytes, <= slot bytes (0: a signal only)
 * @slot_va: receive: filled in by the engine, the inbox slot's VA
 */
struct ccl_msg {
	int peer;
	uint64_t src;
	uint64_t len;
	uint64_t slot_va;
};

/**
 * struct ccl_round - one round of a schedule
 * @ready_dep: this round's sends read what the previous round's
 *	processing wrote
 * @send: messages sent (at most 2 per peer)
 * @nsend: entries of @send
 * @recv: messages received, in the peers' sending order
 * @nrecv: entries of @recv
 * @ops: processing
 * @nops: entries of @ops
 * @srcs: storage for the ops' operands
 * @nsrcs: entries used of @srcs
 */
struct ccl_round {
	bool ready_dep;
	struct ccl_msg *send;
	int nsend;
	struct ccl_msg *recv;
	int nrecv;
	struct ccl_op *ops;
	int nops;
	struct ccl_src *srcs;
	int nsrcs;
};

/* Generator: fill round @j of a schedule; return 0 or -errno */
typedef int (*ccl_gen_fn)(struct hpuccl_comm *c, void *arg, uint64_t j,
			  struct ccl_round *r);

/**
 * ccl_run() - submit a schedule of @nrounds rounds on @stream
 * @c: communicator
 * @stream: stream
 * @nrounds: rounds
 * @gen: generator
 * @arg: its argument
 *
 * Return: 0 or -errno (the communicator's error once set).
 */
int ccl_run(struct hpuccl_comm *c, struct hpu_stream *stream, uint64_t nrounds,
	    ccl_gen_fn gen, void *arg);

/* Round-building helpers for the generators */
int ccl_add_send(struct ccl_round *r, int peer, uint64_t src, uint64_t len);
int ccl_add_recv(struct ccl_round *r, int peer, uint64_t len);
struct ccl_op *ccl_add_op(struct ccl_round *r, int kind, uint64_t out,
			  uint64_t count, enum hpuccl_dtype dtype);
void ccl_op_in(struct ccl_round *r, struct ccl_op *op, int msg, uint64_t va);

/* Set the communicator's sticky error (first one wins); returns it */
int ccl_set_error(struct hpuccl_comm *c, int err);

/* Refresh the sticky error from the CSs, the store and device events */
int ccl_check_error(struct hpuccl_comm *c);

/* Deferred group calls (group.c) */
bool ccl_group_active(void);

#endif /* HPU_CCL_INTERNAL_H */
