/* SPDX-License-Identifier: MIT */
/*
 * nic_so.h - what the scale-out files of libhpusim share: the network
 * between servers, a TCP endpoint per fabric, one TCP connection per
 * (sending server, receiving server) pair, framed messages (docs/nic.md
 * "Scale-out wire format").
 *
 * nic_so_wire.c: the message header on the wire, sending and receiving
 *	whole messages with bounded stalls
 * nic_so_send.c: the sending side: connections to remote servers (struct
 *	hpusim_so_peer), writes, connect and probe, purge
 * nic_so_recv.c: the receiving side: message checks, writes applied to
 *	regions, a thread per accepted connection, the acceptor
 * nic_so_endpoint.c: the endpoint of a fabric: create, destroy, address
 */
#ifndef HPUSIM_NIC_SO_H
#define HPUSIM_NIC_SO_H

#include "nic.h"

#define SO_MAGIC   0x4e555048U /* "HPUN" as little-endian bytes */
#define SO_VERSION 2	       /* 2: 64-bit keys and connection tokens */

/* Message types */
#define SO_HELLO     1 /* connecting server: its id */
#define SO_HELLO_ACK 2 /* accepting server: its id */
#define SO_WRITE     3 /* a NIC write, payload follows */
#define SO_PROBE     4 /* is device @device there? */
#define SO_ACK	     5 /* answer to WRITE or PROBE: @status */

/* Answer status */
#define SO_ST_OK     0
#define SO_ST_NODEV  1 /* no such device, or its scale-out ports are down */
#define SO_ST_ACCESS 2 /* unknown key, not accepted, range outside */
#define SO_ST_MAX    2

#define SO_MAX_PAYLOAD	 (1ULL << 30) /* bytes of one write */
#define SO_BOUNCE	 (1U << 20)   /* payload staging, per connection */
#define SO_CONNECT_MS	 5000	      /* connect, hello and probe */
#define SO_IO_TIMEOUT_MS 10000	      /* a message that stalls this long */

/**
 * struct so_msg - the header of every message, little-endian
 * @magic: SO_MAGIC
 * @version: SO_VERSION
 * @type: SO_*
 * @seq: WRITE/PROBE: sender's sequence number (non-zero); ACK: the one
 *	answered; HELLO*: 0
 * @server_id: HELLO/HELLO_ACK: the sender's server id; else 0
 * @device: WRITE/PROBE: device index at the receiver; else 0
 * @flags: WRITE: HPU_NIC_F_SIGNAL or 0
 * @rkey: WRITE: key of the region (never 0)
 * @token: WRITE: token of the connection the write goes over (never 0)
 * @offset: WRITE: byte offset in the region
 * @size: WRITE: payload bytes that follow (at most SO_MAX_PAYLOAD)
 * @sob_id: WRITE with SIGNAL: sync object of the region's owner
 * @sob_value: WRITE with SIGNAL: added to it
 * @status: ACK: SO_ST_*; else 0
 * @pad: 0
 */
struct so_msg {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint64_t seq;
	uint64_t server_id;
	uint32_t device;
	uint32_t flags;
	uint64_t rkey;
	uint64_t token;
	uint64_t offset;
	uint64_t size;
	uint32_t sob_id;
	uint32_t sob_value;
	uint32_t status;
	uint32_t pad;
};

_Static_assert(sizeof(struct so_msg) == 80, "wire header is 80 bytes");

/**
 * struct so_pend - a WRITE or PROBE waiting for its answer
 * @node: in the peer's @pend
 * @seq: its sequence number
 * @q: WRITE: the parked queue; PROBE: NULL (a thread waits on pend_cond)
 * @done: PROBE: answered
 * @status: PROBE: the answer (SO_ST_*, or -1 when the connection died)
 */
struct so_pend {
	struct hpusim_list node;
	uint64_t seq;
	struct hpusim_queue *q;
	bool done;
	int status;
};

/**
 * struct hpusim_so_peer - a connection to a remote server (sending side)
 * @node: in the endpoint's @peers (endpoint lock)
 * @so: endpoint
 * @ipv4: remote address, network order
 * @port: remote TCP port, host order
 * @fd: the socket
 * @reader: thread that reads the answers
 * @refs: connections of address spaces and writes using it (atomic)
 * @seq: last sequence number (atomic)
 * @send_lock: serializes messages on @fd; protects @bounce
 * @bounce: payload staging
 * @pend_lock: protects @pend, @dead; nests outside the scheduler lock
 * @pend_cond: broadcast when a PROBE is answered
 * @pend: messages waiting for their answer
 * @dead: the connection is lost: no new message is sent
 */
struct hpusim_so_peer {
	struct hpusim_list node;
	struct hpusim_so *so;
	uint32_t ipv4;
	uint16_t port;
	int fd;
	pthread_t reader;
	unsigned int refs;
	uint64_t seq;
	pthread_mutex_t send_lock;
	uint8_t *bounce;
	pthread_mutex_t pend_lock;
	pthread_cond_t pend_cond;
	struct hpusim_list pend;
	bool dead;
};

/**
 * struct so_in - an accepted connection (receiving side)
 * @node: in the endpoint's @ins (endpoint lock)
 * @fab: the server whose devices it writes to
 * @fd: the socket
 * @thread: its receiver thread
 * @done: the thread ended (atomic)
 * @bounce: payload staging
 * @name: "ADDR:PORT" of the remote end, for the log
 */
struct so_in {
	struct hpusim_list node;
	struct hpu_fw_fabric *fab;
	int fd;
	pthread_t thread;
	bool done;
	uint8_t *bounce;
	char name[32];
};

/**
 * struct hpusim_so - the scale-out endpoint of a fabric
 * @fab: fabric
 * @lfd: listening socket
 * @efd: eventfd that stops the acceptor
 * @ipv4: bound address, network order
 * @port: bound port, host order
 * @acceptor: accepting thread
 * @lock: protects @peers and @ins
 * @connect_lock: serializes new connections (one per remote server)
 * @peers: connections to other servers (struct hpusim_so_peer)
 * @ins: accepted connections (struct so_in)
 */
struct hpusim_so {
	struct hpu_fw_fabric *fab;
	int lfd;
	int efd;
	uint32_t ipv4;
	uint16_t port;
	pthread_t acceptor;
	pthread_mutex_t lock;
	pthread_mutex_t connect_lock;
	struct hpusim_list peers;
	struct hpusim_list ins;
};

/* nic_so_wire.c */
int hpusim_so_recv_all(int fd, void *buf, size_t len, int first_ms);
int hpusim_so_send_all(int fd, const void *buf, size_t len, bool more);
int hpusim_so_send_msg(int fd, const struct so_msg *m, bool more);
int hpusim_so_recv_msg(int fd, struct so_msg *m, int first_ms);
void hpusim_so_set_io_timeouts(int fd);
void hpusim_so_log(const char *who, const char *what);

/* nic_so_send.c: join the reader of a connection and free it */
void hpusim_so_peer_free(struct hpusim_so_peer *peer);

/*
 * nic_so_recv.c: join the receiver thread of an accepted connection and
 * free it; the endpoint's acceptor thread
 */
void hpusim_so_in_free(struct so_in *in);
void *hpusim_so_acceptor_main(void *arg);

#endif /* HPUSIM_NIC_SO_H */
