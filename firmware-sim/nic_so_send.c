// SPDX-License-Identifier: MIT
/*
 * nic_so_send.c - the sending side of the scale-out transport (nic_so.h).
 *
 * Sending side (struct hpusim_so_peer): nic_connect opens or reuses the
 * connection to a remote endpoint (hello handshake, then a PROBE of the
 * remote device). A NIC_WRITE sends its header and payload under the
 * peer's send_lock, registers the job as pending and parks it; the peer's
 * reader thread takes the answers (ACK) and wakes the parked job with its
 * status. When the connection is lost every pending write ends with
 * -ENETDOWN (LINK_DOWN).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic_so.h"

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

		ret = hpusim_so_recv_msg(peer->fd, &m, -1);
		if (ret)
			break;
		if (!ack_ok(&m)) {
			hpusim_so_log(who, "malformed answer, closing");
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
			hpusim_so_log(who, "answer to no message, closing");
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
	ret = hpusim_so_send_msg(peer->fd, &m, p->size != 0);
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
		ret = hpusim_so_send_all(peer->fd, peer->bounce, n,
					 done + n < p->size);
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
	hpusim_so_set_io_timeouts(fd);
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

	ret = hpusim_so_send_msg(fd, &m, false);
	if (ret)
		return -ECONNREFUSED;
	ret = hpusim_so_recv_msg(fd, &m, SO_CONNECT_MS);
	if (ret == -ETIMEDOUT)
		return ret;
	if (ret || m.magic != SO_MAGIC || m.version != SO_VERSION ||
	    m.type != SO_HELLO_ACK || !m.server_id)
		return -ECONNREFUSED;
	if (m.server_id == so->fab->server_id)
		return -EINVAL; /* a scale-out port to this server */
	return 0;
}

void hpusim_so_peer_free(struct hpusim_so_peer *peer)
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
		hpusim_so_peer_free(peer);
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
	if (hpusim_so_send_msg(peer->fd, &m, false))
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
