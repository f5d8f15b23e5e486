// SPDX-License-Identifier: MIT
/*
 * nic_so_recv.c - the receiving side of the scale-out transport
 * (nic_so.h).
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
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic_so.h"

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
		int ret = hpusim_so_recv_all(in->fd, in->bounce, n,
					     SO_IO_TIMEOUT_MS);

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

		ret = hpusim_so_recv_all(in->fd, in->bounce, n,
					 SO_IO_TIMEOUT_MS);
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

	if (hpusim_so_recv_msg(in->fd, &m, SO_CONNECT_MS) ||
	    m.magic != SO_MAGIC || m.version != SO_VERSION ||
	    m.type != SO_HELLO || !m.server_id || m.seq) {
		hpusim_so_log(in->name, "bad hello, closing");
		return;
	}
	m = (struct so_msg){ .magic = SO_MAGIC,
			     .version = SO_VERSION,
			     .type = SO_HELLO_ACK,
			     .server_id = fab->server_id };
	if (hpusim_so_send_msg(in->fd, &m, false))
		return;
	for (;;) {
		uint64_t seq;

		if (hpusim_so_recv_msg(in->fd, &m, -1))
			break;
		if (!msg_ok(&m)) {
			hpusim_so_log(in->name, "malformed message, closing");
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
		if (hpusim_so_send_msg(in->fd, &m, false))
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

void hpusim_so_in_free(struct so_in *in)
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
		hpusim_so_in_free(in);
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
	hpusim_so_set_io_timeouts(fd);
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

void *hpusim_so_acceptor_main(void *arg)
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
