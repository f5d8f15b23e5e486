// SPDX-License-Identifier: MIT
/*
 * nic_scaleout.c - the scale-out network between servers: a TCP endpoint
 * per fabric, one TCP connection per (sending server, receiving server)
 * pair, framed messages (docs/nic.md "Scale-out wire format").
 *
 * Sending side (struct hpusim_so_peer): nic_connect opens or reuses the
 * connection to a remote endpoint (hello handshake, then a PROBE of the
 * remote device). A NIC_WRITE sends its header and payload under the
 * peer's send_lock, registers the job as pending and parks it; the peer's
 * reader thread takes the answers (ACK) and wakes the parked job with its
 * status. When the connection is lost every pending write ends with
 * -ENETDOWN (LINK_DOWN).
 *
 * Receiving side (struct so_in): the endpoint's acceptor thread starts a
 * thread per accepted connection, which checks the hello and then every
 * header field of every message before acting on it; a bad message is
 * logged and closes that connection, never applied. A write's payload is
 * received into a bounded bounce buffer, then copied into the region while
 * the region is held (hpusim_nic_target: its owner accepted the
 * connection's token), then the signal is applied, then
 * the answer is sent: writes of one connection apply in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* ------------------------------------------------------ framing */

static void msg_to_wire(struct so_msg *m)
{
	m->magic = htole32(m->magic);
	m->version = htole16(m->version);
	m->type = htole16(m->type);
	m->seq = htole64(m->seq);
	m->server_id = htole64(m->server_id);
	m->device = htole32(m->device);
	m->flags = htole32(m->flags);
	m->rkey = htole64(m->rkey);
	m->token = htole64(m->token);
	m->offset = htole64(m->offset);
	m->size = htole64(m->size);
	m->sob_id = htole32(m->sob_id);
	m->sob_value = htole32(m->sob_value);
	m->status = htole32(m->status);
	m->pad = htole32(m->pad);
}

static void msg_from_wire(struct so_msg *m)
{
	m->magic = le32toh(m->magic);
	m->version = le16toh(m->version);
	m->type = le16toh(m->type);
	m->seq = le64toh(m->seq);
	m->server_id = le64toh(m->server_id);
	m->device = le32toh(m->device);
	m->flags = le32toh(m->flags);
	m->rkey = le64toh(m->rkey);
	m->token = le64toh(m->token);
	m->offset = le64toh(m->offset);
	m->size = le64toh(m->size);
	m->sob_id = le32toh(m->sob_id);
	m->sob_value = le32toh(m->sob_value);
	m->status = le32toh(m->status);
	m->pad = le32toh(m->pad);
}

/* Wait until @fd is readable; @ms < 0: no limit. Return 0 or -errno */
static int wait_in(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/*
 * Receive exactly @len bytes. @first_ms: limit for the first byte (< 0:
 * none); later bytes must come within SO_IO_TIMEOUT_MS each.
 * Return: 0, -ECONNRESET (closed) or -errno.
 */
static int recv_all(int fd, void *buf, size_t len, int first_ms)
{
	uint8_t *p = buf;
	size_t done = 0;
	ssize_t n;
	int ret;

	while (done < len) {
		ret = wait_in(fd, done ? SO_IO_TIMEOUT_MS : first_ms);
		if (ret)
			return ret;
		n = recv(fd, p + done, len - done, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Send all of @buf (SO_SNDTIMEO bounds a stall); 0 or -errno */
static int send_all(int fd, const void *buf, size_t len, bool more)
{
	const uint8_t *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, p + done, len - done,
			 MSG_NOSIGNAL | (more ? MSG_MORE : 0));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

static int send_msg(int fd, const struct so_msg *m, bool more)
{
	struct so_msg w = *m;

	msg_to_wire(&w);
	return send_all(fd, &w, sizeof(w), more);
}

static int recv_msg(int fd, struct so_msg *m, int first_ms)
{
	int ret = recv_all(fd, m, sizeof(*m), first_ms);

	if (!ret)
		msg_from_wire(m);
	return ret;
}

static void set_io_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = SO_IO_TIMEOUT_MS / 1000 };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void so_log(const char *who, const char *what)
{
	fprintf(stderr, "hpusim: scale-out %s: %s\n", who, what);
}

/* ------------------------------------------------------ sending side */

void hpusim_so_peer_get(struct hpusim_so_peer *peer)
{
	__atomic_add_fetch(&peer->refs, 1, __ATOMIC_RELAXED);
}

/* A dead peer is freed by the next connect or by the endpoint's end */
void hpusim_so_peer_put(struct hpusim_so_peer *peer)
{
	__atomic_sub_fetch(&peer->refs, 1, __ATOMIC_RELEASE);
}

bool hpusim_so_peer_alive(struct hpusim_so_peer *peer)
{
	bool dead;

	pthread_mutex_lock(&peer->pend_lock);
	dead = peer->dead;
	pthread_mutex_unlock(&peer->pend_lock);
	return !dead;
}

/* Hand answer @st to pending message @pd (unlinked); pend_lock held */
static void pend_answer(struct hpusim_so_peer *peer, struct so_pend *pd, int st)
{
	if (!pd->q) {
		pd->status = st;
		pd->done = true;
		pthread_cond_broadcast(&peer->pend_cond);
		return; /* its waiter frees it */
	}
	hpusim_sched_lock();
	/* a job that was aborted meanwhile waits for nothing any more */
	if (pd->q->nic_wait == pd->seq) {
		pd->q->nic_status = st == SO_ST_OK     ? 0 :
				    st == SO_ST_ACCESS ? -EACCES :
							 -ENETDOWN;
		hpusim_queue_wake(pd->q);
	}
	hpusim_sched_unlock();
	free(pd);
}

/* The connection is lost: every pending message fails */
static void peer_fail(struct hpusim_so_peer *peer)
{
	pthread_mutex_lock(&peer->pend_lock);
	peer->dead = true;
	while (!hpusim_list_empty(&peer->pend)) {
		struct so_pend *pd = hpusim_container_of(peer->pend.next,
							 struct so_pend, node);

		hpusim_list_del(&pd->node);
		pend_answer(peer, pd, -1);
	}
	pthread_mutex_unlock(&peer->pend_lock);
	shutdown(peer->fd, SHUT_RDWR);
}

static bool ack_ok(const struct so_msg *m)
{
	return m->magic == SO_MAGIC && m->version == SO_VERSION &&
	       m->type == SO_ACK && m->seq && !m->server_id && !m->device &&
	       !m->rkey && !m->token && !m->offset && !m->size && !m->sob_id &&
	       !m->sob_value && !m->flags && !m->pad && m->status <= SO_ST_MAX;
}

static void *peer_reader(void *arg)
{
	struct hpusim_so_peer *peer = arg;
	struct hpusim_list *pos;
	char who[32];
	struct so_msg m;
	int ret;

	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &peer->ipv4, ip, sizeof(ip));
	snprintf(who, sizeof(who), "%s:%u", ip, peer->port);
	for (;;) {
		struct so_pend *pd = NULL;

		ret = recv_msg(peer->fd, &m, -1);
		if (ret)
			break;
		if (!ack_ok(&m)) {
			so_log(who, "malformed answer, closing");
			break;
		}
		pthread_mutex_lock(&peer->pend_lock);
		for (pos = peer->pend.next; pos != &peer->pend;
		     pos = pos->next) {
			struct so_pend *p =
				hpusim_container_of(pos, struct so_pend, node);

			if (p->seq == m.seq) {
				pd = p;
				break;
			}
		}
		if (pd) {
			hpusim_list_del(&pd->node);
			pend_answer(peer, pd, (int)m.status);
		}
		pthread_mutex_unlock(&peer->pend_lock);
		if (!pd) {
			so_log(who, "answer to no message, closing");
			break;
		}
	}
	peer_fail(peer);
	return NULL;
}

/* Register a message waiting for its answer; -ENOTCONN when dead */
static int pend_add(struct hpusim_so_peer *peer, struct so_pend *pd)
{
	int ret = 0;

	pthread_mutex_lock(&peer->pend_lock);
	if (peer->dead)
		ret = -ENOTCONN;
	else
		hpusim_list_add_tail(&pd->node, &peer->pend);
	pthread_mutex_unlock(&peer->pend_lock);
	return ret;
}

int hpusim_so_write(struct hpusim_so_peer *peer, struct hpu_fw_as *as,
		    struct hpusim_queue *q, const struct hpusim_nic_conn *c,
		    const struct hpu_pkt_nic_write *p, uint64_t *fault_va)
{
	struct so_msg m = {
		.magic = SO_MAGIC,
		.version = SO_VERSION,
		.type = SO_WRITE,
		.device = c->remote_device,
		.rkey = p->rkey,
		.token = c->token,
		.offset = p->remote_offset,
		.size = p->size,
		.sob_id = p->sob_id,
		.sob_value = p->sob_value,
		.flags = p->hdr.flags & HPU_NIC_F_SIGNAL,
	};
	struct so_pend *pd;
	uint64_t done = 0;
	int ret;

	if (p->size > SO_MAX_PAYLOAD)
		return -EIO;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -EIO;
	m.seq = __atomic_add_fetch(&peer->seq, 1, __ATOMIC_RELAXED);
	pd->seq = m.seq;
	pd->q = q;
	hpusim_sched_lock();
	q->nic_wait = m.seq;
	q->nic_status = HPUSIM_NIC_ST_PENDING;
	hpusim_sched_unlock();
	ret = pend_add(peer, pd);
	if (ret) {
		free(pd);
		goto err_unwait;
	}

	/* from here the answer (or the connection's loss) wakes the job */
	pthread_mutex_lock(&peer->send_lock);
	ret = send_msg(peer->fd, &m, p->size != 0);
	while (!ret && done < p->size) {
		uint64_t n = p->size - done;

		if (n > SO_BOUNCE)
			n = SO_BOUNCE;
		ret = hpusim_nic_copy_out(as, p->src_addr + done, peer->bounce,
					  n, fault_va);
		if (ret) {
			/* the source went away mid-write: the message is cut */
			pthread_mutex_unlock(&peer->send_lock);
			shutdown(peer->fd, SHUT_RDWR);
			goto err_unwait;
		}
		ret = send_all(peer->fd, peer->bounce, n, done + n < p->size);
		done += n;
	}
	pthread_mutex_unlock(&peer->send_lock);
	if (ret)
		shutdown(peer->fd, SHUT_RDWR); /* the reader fails the job */
	else
		__atomic_add_fetch(&as->dev->nic->tx_bytes, p->size,
				   __ATOMIC_RELAXED);
	return -EINPROGRESS;

err_unwait:
	hpusim_sched_lock();
	q->nic_wait = 0;
	hpusim_sched_unlock();
	return ret;
}

/* Map a failed connect() to the errors nic_connect documents */
static int connect_errno(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ETIMEDOUT:
		return -err;
	default:
		return -EHOSTUNREACH;
	}
}

/* Open a TCP connection to @ipv4:@port within SO_CONNECT_MS */
static int tcp_connect(uint32_t ipv4, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = ipv4 };
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0, n;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		err = errno;
		goto err_close;
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
	do
		n = poll(&pfd, 1, SO_CONNECT_MS);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		err = n ? errno : ETIMEDOUT;
		goto err_close;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		goto err_close;
	if (fcntl(fd, F_SETFL, 0)) {
		err = errno;
		goto err_close;
	}
	set_io_timeouts(fd);
	return fd;

err_close:
	close(fd);
	return connect_errno(err);
}

/* Hello both ways; 0, -EINVAL (this very server) or -errno */
static int hello(struct hpusim_so *so, int fd)
{
	struct so_msg m = { .magic = SO_MAGIC,
			    .version = SO_VERSION,
			    .type = SO_HELLO,
			    .server_id = so->fab->server_id };
	int ret;

	ret = send_msg(fd, &m, false);
	if (ret)
		return -ECONNREFUSED;
	ret = recv_msg(fd, &m, SO_CONNECT_MS);
	if (ret == -ETIMEDOUT)
		return ret;
	if (ret || m.magic != SO_MAGIC || m.version != SO_VERSION ||
	    m.type != SO_HELLO_ACK || !m.server_id)
		return -ECONNREFUSED;
	if (m.server_id == so->fab->server_id)
		return -EINVAL; /* a scale-out port to this server */
	return 0;
}

static void peer_free(struct hpusim_so_peer *peer)
{
	pthread_join(peer->reader, NULL);
	close(peer->fd);
	pthread_cond_destroy(&peer->pend_cond);
	pthread_mutex_destroy(&peer->pend_lock);
	pthread_mutex_destroy(&peer->send_lock);
	free(peer->bounce);
	free(peer);
}

static struct hpusim_so_peer *peer_new(struct hpusim_so *so, int fd,
				       uint32_t ipv4, uint16_t port)
{
	struct hpusim_so_peer *peer = calloc(1, sizeof(*peer));

	if (!peer)
		return NULL;
	peer->bounce = malloc(SO_BOUNCE);
	if (!peer->bounce)
		goto err_free_peer;
	peer->so = so;
	peer->fd = fd;
	peer->ipv4 = ipv4;
	peer->port = port;
	peer->refs = 1;
	hpusim_list_init(&peer->pend);
	if (pthread_mutex_init(&peer->send_lock, NULL))
		goto err_free_bounce;
	if (pthread_mutex_init(&peer->pend_lock, NULL))
		goto err_destroy_send;
	if (pthread_cond_init(&peer->pend_cond, NULL))
		goto err_destroy_pend;
	if (pthread_create(&peer->reader, NULL, peer_reader, peer))
		goto err_destroy_cond;
	return peer;

err_destroy_cond:
	pthread_cond_destroy(&peer->pend_cond);
err_destroy_pend:
	pthread_mutex_destroy(&peer->pend_lock);
err_destroy_send:
	pthread_mutex_destroy(&peer->send_lock);
err_free_bounce:
	free(peer->bounce);
err_free_peer:
	free(peer);
	return NULL;
}

/* Free dead peers nobody uses; endpoint lock held */
static void peers_reap(struct hpusim_so *so)
{
	struct hpusim_list *pos, *next;

	for (pos = so->peers.next; pos != &so->peers; pos = next) {
		struct hpusim_so_peer *peer =
			hpusim_container_of(pos, struct hpusim_so_peer, node);

		next = pos->next;
		if (hpusim_so_peer_alive(peer) ||
		    __atomic_load_n(&peer->refs, __ATOMIC_ACQUIRE))
			continue;
		hpusim_list_del(&peer->node);
		peer_free(peer);
	}
}

/* A live connection to @ipv4:@port, held, or a new one */
static int peer_lookup(struct hpusim_so *so, uint32_t ipv4, uint16_t port,
		       struct hpusim_so_peer **out)
{
	struct hpusim_so_peer *peer = NULL;
	struct hpusim_list *pos;
	int fd, ret;

	pthread_mutex_lock(&so->connect_lock);
	pthread_mutex_lock(&so->lock);
	peers_reap(so);
	for (pos = so->peers.next; pos != &so->peers; pos = pos->next) {
		struct hpusim_so_peer *p =
			hpusim_container_of(pos, struct hpusim_so_peer, node);

		if (p->ipv4 == ipv4 && p->port == port &&
		    hpusim_so_peer_alive(p)) {
			hpusim_so_peer_get(p);
			peer = p;
			break;
		}
	}
	pthread_mutex_unlock(&so->lock);
	if (peer)
		goto out_unlock;

	fd = tcp_connect(ipv4, port);
	if (fd < 0) {
		ret = fd;
		goto err_unlock;
	}
	ret = hello(so, fd);
	if (ret)
		goto err_close;
	peer = peer_new(so, fd, ipv4, port);
	if (!peer) {
		ret = -ENOMEM;
		goto err_close;
	}
	pthread_mutex_lock(&so->lock);
	hpusim_list_add_tail(&peer->node, &so->peers);
	pthread_mutex_unlock(&so->lock);
out_unlock:
	pthread_mutex_unlock(&so->connect_lock);
	*out = peer;
	return 0;

err_close:
	close(fd);
err_unlock:
	pthread_mutex_unlock(&so->connect_lock);
	return ret;
}

/* Ask the remote server whether it has device @device */
static int probe(struct hpusim_so_peer *peer, uint32_t device)
{
	struct so_pend pd = { .status = -1 };
	struct so_msg m = { .magic = SO_MAGIC,
			    .version = SO_VERSION,
			    .type = SO_PROBE,
			    .device = device };
	struct timespec ts;
	int ret = 0;

	m.seq = __atomic_add_fetch(&peer->seq, 1, __ATOMIC_RELAXED);
	pd.seq = m.seq;
	if (pend_add(peer, &pd))
		return -ECONNRESET;
	pthread_mutex_lock(&peer->send_lock);
	if (send_msg(peer->fd, &m, false))
		shutdown(peer->fd, SHUT_RDWR);
	pthread_mutex_unlock(&peer->send_lock);

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += SO_CONNECT_MS / 1000;
	pthread_mutex_lock(&peer->pend_lock);
	while (!pd.done && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&peer->pend_cond, &peer->pend_lock,
					     &ts);
	if (!pd.done)
		hpusim_list_del(&pd.node);
	pthread_mutex_unlock(&peer->pend_lock);
	if (!pd.done)
		return -ETIMEDOUT;
	if (pd.status == SO_ST_OK)
		return 0;
	return pd.status == SO_ST_NODEV ? -ENODEV : -ECONNRESET;
}

int hpusim_so_connect(struct hpu_fw_fabric *fab, uint32_t ipv4, uint16_t port,
		      uint32_t remote_device, struct hpusim_so_peer **out)
{
	struct hpusim_so_peer *peer = NULL;
	int ret;

	if (!fab->so)
		return -EHOSTUNREACH;
	if (!ipv4 || !port)
		return -EHOSTUNREACH;
	ret = peer_lookup(fab->so, ipv4, port, &peer);
	if (ret)
		return ret;
	ret = probe(peer, remote_device);
	if (ret) {
		hpusim_so_peer_put(peer);
		return ret;
	}
	*out = peer;
	return 0;
}

/* Forget the pending writes of @q, or of every queue of @dev */
static void so_purge(struct hpu_fw_fabric *fab, const struct hpu_fw_device *dev,
		     const struct hpusim_queue *q)
{
	struct hpusim_list *pos, *p, *next;

	if (!fab->so)
		return;
	pthread_mutex_lock(&fab->so->lock);
	for (pos = fab->so->peers.next; pos != &fab->so->peers;
	     pos = pos->next) {
		struct hpusim_so_peer *peer =
			hpusim_container_of(pos, struct hpusim_so_peer, node);

		pthread_mutex_lock(&peer->pend_lock);
		for (p = peer->pend.next; p != &peer->pend; p = next) {
			struct so_pend *pd =
				hpusim_container_of(p, struct so_pend, node);

			next = p->next;
			if (pd->q && (q ? pd->q == q : pd->q->dev == dev)) {
				hpusim_list_del(&pd->node);
				free(pd);
			}
		}
		pthread_mutex_unlock(&peer->pend_lock);
	}
	pthread_mutex_unlock(&fab->so->lock);
}

/**
 * hpusim_so_purge() - forget the pending writes of a device's queues
 * @fab: fabric
 * @dev: device about to free its queues
 */
void hpusim_so_purge(struct hpu_fw_fabric *fab, struct hpu_fw_device *dev)
{
	so_purge(fab, dev, NULL);
}

/**
 * hpusim_so_forget() - forget the pending writes of one queue
 * @fab: fabric of the queue's device
 * @q: an address space's queue about to be freed (its jobs were aborted;
 *	no lock held)
 */
void hpusim_so_forget(struct hpu_fw_fabric *fab, const struct hpusim_queue *q)
{
	so_purge(fab, NULL, q);
}

/* ------------------------------------------------------ receiving side */

static bool msg_ok(const struct so_msg *m)
{
	bool sig = m->flags & HPU_NIC_F_SIGNAL;

	if (m->magic != SO_MAGIC || m->version != SO_VERSION || !m->seq ||
	    m->server_id || m->status || m->pad ||
	    m->device >= HPUSIM_FABRIC_MAX_DEVICES)
		return false;
	if (m->type == SO_PROBE)
		return !m->rkey && !m->token && !m->offset && !m->size &&
		       !m->sob_id && !m->sob_value && !m->flags;
	if (m->type != SO_WRITE || (m->flags & ~HPU_NIC_F_SIGNAL) || !m->rkey ||
	    !m->token || m->size > SO_MAX_PAYLOAD ||
	    m->offset + m->size < m->offset)
		return false;
	if (!sig)
		return m->size && !m->sob_id && !m->sob_value;
	return m->sob_id < HPU_NUM_SOBS && m->sob_value &&
	       m->sob_value <= HPU_SOB_MAX_VALUE;
}

/* Read and drop @len payload bytes; 0 or -errno */
static int drain(struct so_in *in, uint64_t len)
{
	while (len) {
		size_t n = len < SO_BOUNCE ? (size_t)len : SO_BOUNCE;
		int ret = recv_all(in->fd, in->bounce, n, SO_IO_TIMEOUT_MS);

		if (ret)
			return ret;
		len -= n;
	}
	return 0;
}

/* Whether any scale-out port of @dev is up */
static bool scaleout_up(struct hpu_fw_device *dev)
{
	uint32_t p;

	for (p = dev->nic->nscaleup; p < dev->nic->nports; p++)
		if (hpusim_nic_port_up(dev->nic, p))
			return true;
	return false;
}

/* Receive the payload of @m into region @mr; SO_ST_* or -errno */
static int write_apply(struct so_in *in, struct hpu_fw_device *dev,
		       struct hpusim_mr *mr, const struct so_msg *m)
{
	uint64_t done = 0;
	bool bad = false;
	int ret;

	while (done < m->size) {
		size_t n = m->size - done < SO_BOUNCE ?
				   (size_t)(m->size - done) :
				   SO_BOUNCE;

		ret = recv_all(in->fd, in->bounce, n, SO_IO_TIMEOUT_MS);
		if (ret)
			return ret;
		/* a region unmapped by its owner since: take nothing more */
		if (!bad &&
		    hpusim_nic_copy_in(mr->as, mr->va + m->offset + done,
				       in->bounce, n))
			bad = true;
		done += n;
	}
	if (bad)
		return SO_ST_ACCESS;
	__atomic_add_fetch(&dev->nic->rx_bytes, m->size, __ATOMIC_RELAXED);
	if (m->flags & HPU_NIC_F_SIGNAL)
		hpusim_nic_signal(mr->as, m->sob_id, m->sob_value);
	return SO_ST_OK;
}

/* Carry out a WRITE; return SO_ST_* or -errno (connection broken) */
static int in_write(struct so_in *in, const struct so_msg *m)
{
	struct hpu_fw_device *dev;
	struct hpusim_acc *acc;
	struct hpusim_mr *mr;
	void *cookie;
	int st, ret;

	dev = hpusim_fabric_dev_get(in->fab, m->device);
	if (!dev || !scaleout_up(dev)) {
		st = SO_ST_NODEV;
		goto out_drain;
	}
	/* the key's region, if its owner accepted the connection's token */
	if (hpusim_nic_target(dev, m->token, m->rkey, &mr, &acc)) {
		hpusim_nic_denied(dev, HPUSIM_NIC_PORT_NET, mr, acc, m->rkey,
				  m->offset, m->size);
		st = SO_ST_ACCESS;
		goto out_drain;
	}
	/* the owner is told while its region is held: its context lives */
	cookie = hpusim_nic_cookie(mr->as);
	if (m->offset > mr->size || m->size > mr->size - m->offset) {
		hpusim_nic_event(dev, cookie, HPU_EVENT_NIC_ACCESS_ERR,
				 HPUSIM_NIC_PORT_NET, m->rkey, m->offset,
				 m->size);
		hpusim_mr_put(dev, mr);
		st = SO_ST_ACCESS;
		goto out_drain;
	}
	st = write_apply(in, dev, mr, m);
	if (st == SO_ST_ACCESS)
		hpusim_nic_event(dev, cookie, HPU_EVENT_NIC_ACCESS_ERR,
				 HPUSIM_NIC_PORT_NET, m->rkey, m->offset,
				 m->size);
	hpusim_mr_put(dev, mr);
	hpusim_fabric_dev_put(dev);
	return st;

out_drain:
	if (dev)
		hpusim_fabric_dev_put(dev);
	ret = drain(in, m->size);
	return ret ? ret : st;
}

/* The receiver loop of @in: the hello, then messages until one is bad */
static void in_serve(struct so_in *in)
{
	struct hpu_fw_fabric *fab = in->fab;
	struct so_msg m;
	int st;

	if (recv_msg(in->fd, &m, SO_CONNECT_MS) || m.magic != SO_MAGIC ||
	    m.version != SO_VERSION || m.type != SO_HELLO || !m.server_id ||
	    m.seq) {
		so_log(in->name, "bad hello, closing");
		return;
	}
	m = (struct so_msg){ .magic = SO_MAGIC,
			     .version = SO_VERSION,
			     .type = SO_HELLO_ACK,
			     .server_id = fab->server_id };
	if (send_msg(in->fd, &m, false))
		return;
	for (;;) {
		uint64_t seq;

		if (recv_msg(in->fd, &m, -1))
			break;
		if (!msg_ok(&m)) {
			so_log(in->name, "malformed message, closing");
			break;
		}
		seq = m.seq;
		if (m.type == SO_PROBE) {
			struct hpu_fw_device *dev =
				hpusim_fabric_dev_get(fab, m.device);

			st = dev ? SO_ST_OK : SO_ST_NODEV;
			if (dev)
				hpusim_fabric_dev_put(dev);
		} else {
			st = in_write(in, &m);
			if (st < 0)
				break;
		}
		m = (struct so_msg){ .magic = SO_MAGIC,
				     .version = SO_VERSION,
				     .type = SO_ACK,
				     .seq = seq,
				     .status = (uint32_t)st };
		if (send_msg(in->fd, &m, false))
			break;
	}
}

/**
 * hpusim_so_serve() - receive the messages of one scale-out connection
 * @fab: the server whose devices the writes go to
 * @fd: the connection (a stream socket; the answers are sent on it)
 * @name: the remote end, for the log
 *
 * What every accepted connection's thread runs, from the hello to the
 * first bad message or the end of the stream; the fuzz target calls it on
 * one end of a socket pair. Return: 0 or -ENOMEM.
 */
int hpusim_so_serve(struct hpu_fw_fabric *fab, int fd, const char *name)
{
	struct so_in in = { .fab = fab, .fd = fd };

	in.bounce = malloc(SO_BOUNCE);
	if (!in.bounce)
		return -ENOMEM;
	snprintf(in.name, sizeof(in.name), "%s", name);
	in_serve(&in);
	free(in.bounce);
	return 0;
}

static void *in_main(void *arg)
{
	struct so_in *in = arg;

	in_serve(in);
	shutdown(in->fd, SHUT_RDWR);
	__atomic_store_n(&in->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void in_free(struct so_in *in)
{
	pthread_join(in->thread, NULL);
	close(in->fd);
	free(in->bounce);
	free(in);
}

/* Join the receivers that ended; endpoint lock held */
static void ins_reap(struct hpusim_so *so)
{
	struct hpusim_list *pos, *next;

	for (pos = so->ins.next; pos != &so->ins; pos = next) {
		struct so_in *in = hpusim_container_of(pos, struct so_in, node);

		next = pos->next;
		if (!__atomic_load_n(&in->done, __ATOMIC_ACQUIRE))
			continue;
		hpusim_list_del(&in->node);
		in_free(in);
	}
}

static void so_accept_one(struct hpusim_so *so)
{
	char ip[INET_ADDRSTRLEN];
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct so_in *in;
	int fd;

	fd = accept4(so->lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	in = calloc(1, sizeof(*in));
	if (!in)
		goto err_close;
	in->bounce = malloc(SO_BOUNCE);
	if (!in->bounce)
		goto err_free_in;
	in->fab = so->fab;
	in->fd = fd;
	if (!inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip)))
		strcpy(ip, "?");
	snprintf(in->name, sizeof(in->name), "%s:%u", ip, ntohs(sa.sin_port));
	set_io_timeouts(fd);
	pthread_mutex_lock(&so->lock);
	ins_reap(so);
	if (pthread_create(&in->thread, NULL, in_main, in)) {
		pthread_mutex_unlock(&so->lock);
		goto err_free_bounce;
	}
	hpusim_list_add_tail(&in->node, &so->ins);
	pthread_mutex_unlock(&so->lock);
	return;

err_free_bounce:
	free(in->bounce);
err_free_in:
	free(in);
err_close:
	close(fd);
}

static void *acceptor_main(void *arg)
{
	struct hpusim_so *so = arg;
	struct pollfd pfd[2] = { { .fd = so->lfd, .events = POLLIN },
				 { .fd = so->efd, .events = POLLIN } };

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & POLLIN)
			so_accept_one(so);
	}
	return NULL;
}

/* ------------------------------------------------------ endpoint */

/* Parse "HOST:PORT" (IPv4 address or name) */
static int parse_addr(const char *addr, struct sockaddr_in *sa)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	const char *colon = strrchr(addr, ':');
	char host[256];
	size_t hl;
	int ret;

	if (!colon || !colon[1])
		return -EINVAL;
	hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	ret = getaddrinfo(hl ? host : NULL, colon + 1, &hints, &res);
	if (ret)
		return -EINVAL;
	memcpy(sa, res->ai_addr, sizeof(*sa));
	freeaddrinfo(res);
	return 0;
}

int hpusim_so_create(struct hpu_fw_fabric *fab, const char *addr)
{
	struct hpusim_so *so;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int one = 1, ret;

	ret = parse_addr(addr, &sa);
	if (ret)
		return ret;
	so = calloc(1, sizeof(*so));
	if (!so)
		return -ENOMEM;
	so->fab = fab;
	hpusim_list_init(&so->peers);
	hpusim_list_init(&so->ins);
	so->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (so->lfd < 0) {
		ret = -errno;
		goto err_free_so;
	}
	setsockopt(so->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(so->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(so->lfd, 64) ||
	    getsockname(so->lfd, (struct sockaddr *)&sa, &len)) {
		ret = -errno;
		goto err_close_lfd;
	}
	so->ipv4 = sa.sin_addr.s_addr;
	so->port = ntohs(sa.sin_port);
	so->efd = eventfd(0, EFD_CLOEXEC);
	if (so->efd < 0) {
		ret = -errno;
		goto err_close_lfd;
	}
	pthread_mutex_init(&so->lock, NULL);
	pthread_mutex_init(&so->connect_lock, NULL);
	ret = -pthread_create(&so->acceptor, NULL, acceptor_main, so);
	if (ret)
		goto err_close_efd;
	fab->so = so;
	return 0;

err_close_efd:
	pthread_mutex_destroy(&so->connect_lock);
	pthread_mutex_destroy(&so->lock);
	close(so->efd);
err_close_lfd:
	close(so->lfd);
err_free_so:
	free(so);
	return ret;
}

void hpusim_so_destroy(struct hpu_fw_fabric *fab)
{
	struct hpusim_so *so = fab->so;
	struct hpusim_list *pos;
	uint64_t one = 1;

	if (!so)
		return;
	if (write(so->efd, &one, sizeof(one)) != sizeof(one))
		so_log("endpoint", "cannot stop the acceptor");
	pthread_join(so->acceptor, NULL);

	pthread_mutex_lock(&so->lock);
	for (pos = so->ins.next; pos != &so->ins; pos = pos->next)
		shutdown(hpusim_container_of(pos, struct so_in, node)->fd,
			 SHUT_RDWR);
	for (pos = so->peers.next; pos != &so->peers; pos = pos->next)
		shutdown(hpusim_container_of(pos, struct hpusim_so_peer, node)
				 ->fd,
			 SHUT_RDWR);
	while (!hpusim_list_empty(&so->ins)) {
		struct so_in *in =
			hpusim_container_of(so->ins.next, struct so_in, node);

		hpusim_list_del(&in->node);
		in_free(in);
	}
	while (!hpusim_list_empty(&so->peers)) {
		struct hpusim_so_peer *peer = hpusim_container_of(
			so->peers.next, struct hpusim_so_peer, node);

		hpusim_list_del(&peer->node);
		peer_free(peer);
	}
	pthread_mutex_unlock(&so->lock);
	pthread_mutex_destroy(&so->connect_lock);
	pthread_mutex_destroy(&so->lock);
	close(so->efd);
	close(so->lfd);
	free(so);
	fab->so = NULL;
}

void hpusim_so_addr(struct hpu_fw_fabric *fab, uint32_t *ipv4, uint16_t *port)
{
	if (ipv4)
		*ipv4 = fab->so ? fab->so->ipv4 : 0;
	if (port)
		*port = fab->so ? fab->so->port : 0;
}
