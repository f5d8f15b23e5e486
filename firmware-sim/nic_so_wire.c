// SPDX-License-Identifier: MIT
/*
 * nic_so_wire.c - framing of the scale-out transport: the message header
 * in little-endian byte order, and sending and receiving whole messages
 * and payloads, a stall bounded by SO_IO_TIMEOUT_MS (nic_so.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>

#include "nic_so.h"

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
int hpusim_so_recv_all(int fd, void *buf, size_t len, int first_ms)
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
int hpusim_so_send_all(int fd, const void *buf, size_t len, bool more)
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

int hpusim_so_send_msg(int fd, const struct so_msg *m, bool more)
{
	struct so_msg w = *m;

	msg_to_wire(&w);
	return hpusim_so_send_all(fd, &w, sizeof(w), more);
}

int hpusim_so_recv_msg(int fd, struct so_msg *m, int first_ms)
{
	int ret = hpusim_so_recv_all(fd, m, sizeof(*m), first_ms);

	if (!ret)
		msg_from_wire(m);
	return ret;
}

void hpusim_so_set_io_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = SO_IO_TIMEOUT_MS / 1000 };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void hpusim_so_log(const char *who, const char *what)
{
	fprintf(stderr, "hpusim: scale-out %s: %s\n", who, what);
}
