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
#define CCL_WINDOW		4
#define CCL_DEFAULT_SLOT_BYTES	(256 * 1024)
/* CS budget: bytes of packets per queue before a new CS is started */
#define CCL_CB_BYTES		(256 * 1024)
#define CCL_CB_MARGIN		(16 * 1024)
/* Recent CSs kept to classify a failure */
#define CCL_RECENT		16
/* CSs of a communicator in flight at most (engine.c: submit()) */
#define CCL_MAX_INFLIGHT	3
/* Registrations of user buffers a communicator caches */
#define CCL_REG_MAX		16
/* Default size from which collectives write straight into the peers'
 * registered buffers (HPUCCL_ZCOPY_BYTES overrides it) */
#define CCL_DEFAULT_ZCOPY_BYTES (4ULL << 20)
/* Elements of one zero-copy write of a direct allgather, in bytes */
#define CCL_DIRECT_CHUNK_BYTES	(4ULL << 20)
/* Up to this size a multi-server allreduce runs the direct schedule */
#define CCL_SMALL_BYTES		(256ULL << 10)
/* Up to this size a 2-rank allreduce runs the one-round schedule */
#define CCL_ONESHOT_BYTES	(256ULL << 10)
/* Ranks the one-round allreduce serves at most (its n x n operands) */
#define CCL_ONESHOT_MAX_RANKS	8

/*
 * HPUCCL_ALGO's value @s as a number all ranks agree on: 0 for NULL, ""
 * or "auto", else the position of the name among the distinct names of
 * the families' tables (algo.c). Return: that number, or -EINVAL for a
 * name no family has.
 */
int ccl_algo_parse(const char *s);

/* The name ccl_algo_parse() numbered @algo, "?" for none */
const char *ccl_algo_name(int algo);

/**
 * struct ccl_reg - a cached registration of a user buffer
 * @va: first byte of the registered range
 * @len: bytes of the range
 * @handle: its NIC registration handle (to revoke it)
 * @key: its NIC key (what peers write to)
 * @tick: last use (least recently used goes first)
 */
struct ccl_reg {
	uint64_t va;
	uint64_t len;
	uint32_t handle;
	uint64_t key;
	uint64_t tick;
};

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
 * @accept: id of this rank's acceptance of its connection to us
 * @send_cnt: messages sent to it since init
 * @recv_cnt: messages received from it since init
 * @cr_fenced: its credits consumed by local fences since init
 */
struct ccl_peer {
	uint64_t server_id;
	uint32_t device;
	uint32_t so_ipv4;
	uint32_t so_port;
	uint64_t key;
	uint32_t sob_base;
	int queue;
	uint32_t conn;
	uint32_t accept;
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
 * @inbox_mr: its NIC registration handle
 * @inbox_key: its NIC key
 * @slot_bytes: bytes of one inbox slot
 * @recent: last CSs submitted
 * @nrecent: CSs submitted since init
 * @err: sticky asynchronous error
 * @ncoll: collectives issued (names barriers)
 * @regs: registration cache of user buffers (zero copy)
 * @nregs: entries of @regs
 * @reg_tick: use counter of @regs
 * @zc_bytes: buffers of this many bytes and more go zero copy
 * @nzc: zero-copy exchanges so far (names their store keys)
 * @zc_key: per rank, the key of its buffer in the current exchange
 * @zc_off: per rank, the buffer's offset in that region
 * @algo: HPUCCL_ALGO, the forced algorithm as ccl_algo_parse() numbers
 *	its name; 0 (auto) if none. Each family maps the name through its
 *	own table (algo.c: ccl_algo_pick()).
 * @debug: HPUCCL_DEBUG: print each collective's algorithm on stderr
 * @nservers: servers the ranks are on
 * @server_of: per rank, its server's index (0..@nservers-1, in order of
 *	first appearance by rank)
 * @local_of: per rank, its index among the ranks of its server
 * @nlocal: ranks per server when every server has as many, else 0
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
	uint32_t inbox_mr;
	uint64_t inbox_key;
	uint64_t slot_bytes;
	uint64_t recent[CCL_RECENT];
	uint64_t nrecent;
	int err;
	uint64_t ncoll;
	struct ccl_reg regs[CCL_REG_MAX];
	int nregs;
	uint64_t reg_tick;
	uint64_t zc_bytes;
	uint64_t nzc;
	uint64_t *zc_key;
	uint64_t *zc_off;
	int algo;
	bool debug;
	int nservers;
	int *server_of;
	int *local_of;
	int nlocal;
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
 * @va: local device VA (@msg -1), else a byte offset into the message
 */
struct ccl_src {
	int msg;
	uint64_t va;
};

/**
 * struct ccl_op - processing of a round (TPC queue, in order)
 * @kind: enum ccl_op_kind
 * @out: destination VA, or with @out_msg a byte offset into that message
 * @out_msg: -1, or the index of the round's receive whose inbox slot is
 *	the destination (a reduction into a received message: @in[0] is
 *	then that message at the same place, as ACC's in-place rule wants)
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
	int out_msg;
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
 * @len: bytes, <= slot bytes for an inbox message (0: a signal only)
 * @slot_va: receive: filled in by the engine, the inbox slot's VA
 * @rkey: send: 0 for the peer's inbox, else a direct write of any length
 *	into the peer's region @rkey at @roff (no slot, no credit)
 * @roff: send: offset in region @rkey
 * @direct: receive: the peer writes straight into a local buffer (the
 *	message only counts on the arrival SOB; no slot, no credit)
 */
struct ccl_msg {
	int peer;
	uint64_t src;
	uint64_t len;
	uint64_t slot_va;
	uint64_t rkey;
	bool direct;
	uint64_t roff;
};

/**
 * struct ccl_round - one round of a schedule
 * @ready_dep: this round's sends read what the previous round's
 *	processing wrote
 * @sent_dep: this round's processing writes what its own sends read (an
 *	in-place one-round allreduce): it waits until the NIC queues issued
 *	them (each queue with sends signals the rank's own arrival SOB,
 *	which no peer uses, after its writes)
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
	bool sent_dep;
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
void ccl_add_send_direct(struct ccl_round *r, int peer, uint64_t src,
			 uint64_t len, uint64_t rkey, uint64_t roff);
void ccl_add_recv_direct(struct ccl_round *r, int peer);
struct ccl_op *ccl_add_op(struct ccl_round *r, int kind, uint64_t out,
			  uint64_t count, enum hpuccl_dtype dtype);
void ccl_op_in(struct ccl_round *r, struct ccl_op *op, int msg, uint64_t va);

/* Set the communicator's sticky error (first one wins); returns it */
int ccl_set_error(struct hpuccl_comm *c, int err);

/*
 * The sticky error, refreshed from the store (a rank left) only: cheap
 * enough for every call. hpuccl_comm_get_async_error() also looks at the
 * recent CSs and the device's events.
 */
int ccl_check_error(struct hpuccl_comm *c);

/*
 * Wait until every CS the communicator submitted ended, bounded by its
 * timeout plus a second. Return: 0; -ETIMEDOUT when the last one is still
 * busy; -errno of the wait.
 */
int ccl_wait_all(struct hpuccl_comm *c);

/**
 * ccl_zc_exchange() - register @va (cached) and learn every rank's
 * registration of its buffer for this call, through the store; blocks
 * until every rank posted its own
 * @c: communicator
 * @va: this rank's buffer the peers write into
 * @len: its bytes
 *
 * Return: 1 when every rank has a key (c->zc_key/zc_off are filled), 0
 * when one of them could not register (the inbox path then), -errno.
 */
int ccl_zc_exchange(struct hpuccl_comm *c, uint64_t va, uint64_t len);

/* Release every cached registration (teardown) */
void ccl_zc_release(struct hpuccl_comm *c);

/**
 * struct ccl_id - what a unique id holds (within its
 * HPUCCL_UNIQUE_ID_BYTES), unique_id.c
 * @magic: "HPUCCL1"
 * @ipv4: the store's address (network order)
 * @port: its TCP port
 * @pad: 0
 * @nonce: names the communicator in the store
 */
struct ccl_id {
	char magic[8];
	uint32_t ipv4;
	uint16_t port;
	uint16_t pad;
	uint64_t nonce;
};

/* Decode @id into @w. Return: 0, or -EINVAL for bytes no id has */
int ccl_id_parse(const struct hpuccl_unique_id *id, struct ccl_id *w);

/*
 * A communicator of this process starts using the store server the
 * process hosts at @ipv4:@port: NULL when it hosts none there (another
 * process does). ccl_server_unref() stops using it; the last
 * communicator's unref stops the server, waiting up to @linger_ms for
 * its clients to go.
 */
struct ccl_store_server *ccl_server_ref(uint32_t ipv4, uint16_t port);
void ccl_server_unref(struct ccl_store_server *srv, int linger_ms);

/*
 * hpuccl_comm_init_rank_config() of HPUCCL_1.1 (the default version)
 * under its own name, which compat.c's older version calls
 */
HPUCCL_EXPORT int
hpuccl_comm_init_rank_config_v1_1(struct hpuccl_comm **comm, int nranks,
				  const struct hpuccl_unique_id *id, int rank,
				  const struct hpuccl_config *cfg);

/**
 * struct hpuccl_config_v1_0 - the config of HPUCCL_1.0, without a size
 * @dev: as in struct hpuccl_config
 * @timeout_ms: as in struct hpuccl_config
 * @flags: as in struct hpuccl_config
 */
struct hpuccl_config_v1_0 {
	struct hpu_device *dev;
	uint32_t timeout_ms;
	uint32_t flags;
};

/* hpuccl_comm_init_rank_config() of programs linked before HPUCCL_1.1 */
HPUCCL_EXPORT int
hpuccl_comm_init_rank_config_v1_0(struct hpuccl_comm **comm, int nranks,
				  const struct hpuccl_unique_id *id, int rank,
				  const struct hpuccl_config_v1_0 *old);

/* What a deferred call of a group is (group.c) */
enum ccl_call_kind {
	K_ALLREDUCE,
	K_BROADCAST,
	K_REDUCE,
	K_ALLGATHER,
	K_RS,
	K_A2A,
	K_SEND,
	K_RECV,
};

/* Deferred group calls (group.c) */
bool ccl_group_active(void);
int ccl_group_defer(int kind, uint64_t send, uint64_t recv, size_t count,
		    enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		    struct hpuccl_comm *comm, struct hpu_stream *stream);

/* Run a deferred collective (ccl_api.c) */
int ccl_run_deferred(int kind, uint64_t send, uint64_t recv, size_t count,
		     enum hpuccl_dtype dtype, enum hpuccl_redop op, int root,
		     struct hpuccl_comm *comm, struct hpu_stream *stream);

#endif /* HPU_CCL_INTERNAL_H */
