// SPDX-License-Identifier: MIT
/*
 * store_client.c - a rank's connection to the rendezvous store: connect
 * with bounded retries, set/get/add/del, barriers, and the notice that a
 * rank left (ccl_store.h, wire format in docs/collectives.md "Bootstrap")
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ccl_store.h"
#include "store_wire.h"

/* Connect retries: the first pause, doubled up to the last */
#define CONNECT_BACKOFF_MIN_MS 10
#define CONNECT_BACKOFF_MAX_MS 500

/**
 * struct ccl_store - a client connection
 * @fd: socket
 * @ns: namespace prefixed to every key
 * @left: -ECONNRESET once a rank left or the store went away
 * @left_rank: the rank the store said left, -1 when none did (or the
 *	store itself went away)
 */
struct ccl_store {
	int fd;
	char ns[NS_MAX];
	int left;
	int left_rank;
};

/* Errors after which a connect is worth another try */
static bool connect_retryable(int err)
{
	switch (err) {
	case ECONNREFUSED: /* the store is not listening yet */
	case ECONNRESET:
	case ECONNABORTED:
	case ETIMEDOUT: /* SYN not answered in time: a full backlog */
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EAGAIN:
	case EINTR:
		return true;
	default:
		return false;
	}
}

/*
 * One connection attempt bounded by @deadline: a non-blocking connect,
 * then a wait for its outcome. Return: the connected socket or -errno.
 */
static int connect_once(const struct sockaddr_in *sa, uint64_t deadline)
{
	int fd, err = 0, ret;
	socklen_t len = sizeof(err);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		if (errno != EINPROGRESS) {
			ret = -errno;
			goto err_close;
		}
		for (;;) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			uint64_t now = ccl_store_now_ms();

			if (now >= deadline) {
				ret = -ETIMEDOUT;
				goto err_close;
			}
			ret = poll(&pfd, 1, (int)(deadline - now));
			if (ret > 0)
				break;
			if (ret < 0 && errno != EINTR) {
				ret = -errno;
				goto err_close;
			}
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)) {
			ret = -errno;
			goto err_close;
		}
		if (err) {
			ret = -err;
			goto err_close;
		}
	}
	/* the client waits with poll(); its calls block */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		ret = -errno;
		goto err_close;
	}
	return fd;
err_close:
	close(fd);
	return ret;
}

int ccl_store_connect(uint32_t ipv4, uint16_t port, const char *ns,
		      int timeout_ms, struct ccl_store **out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint64_t deadline = ccl_store_now_ms() +
			    (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	unsigned int pause_ms = CONNECT_BACKOFF_MIN_MS;
	struct ccl_store *st;
	int one = 1, ret;

	if (!ns || strlen(ns) >= NS_MAX || strchr(ns, '/') || !port)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	strcpy(st->ns, ns);
	st->left_rank = -1;
	sa.sin_addr.s_addr = ipv4;
	sa.sin_port = htons(port);
	for (;;) {
		uint64_t now;

		/* the last attempt gets at least a moment */
		ret = connect_once(&sa, deadline > ccl_store_now_ms() + 100 ?
						deadline :
						ccl_store_now_ms() + 100);
		if (ret >= 0)
			break;
		now = ccl_store_now_ms();
		if (!connect_retryable(-ret) || now >= deadline)
			goto err_free;
		/* back off, with jitter so that many ranks spread out */
		pause_ms +=
			((unsigned int)getpid() * 7919U + (unsigned int)now) %
			(pause_ms / 2 + 1);
		if (now + pause_ms > deadline)
			pause_ms = (unsigned int)(deadline - now);
		usleep(pause_ms * 1000U);
		pause_ms *= 2;
		if (pause_ms > CONNECT_BACKOFF_MAX_MS)
			pause_ms = CONNECT_BACKOFF_MAX_MS;
	}
	st->fd = ret;
	setsockopt(st->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*out = st;
	return 0;
err_free:
	free(st);
	return ret;
}

static int recv_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = ccl_store_now_ms();
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one response (skipping notifications); its value goes to @buf. */
static int read_resp(struct ccl_store *st, void *buf, size_t cap, size_t *len,
		     int64_t *arg, uint64_t deadline)
{
	for (;;) {
		struct store_hdr h;
		int ret = recv_all(st->fd, &h, sizeof(h), deadline);

		if (ret) {
			if (ret == -ECONNRESET)
				st->left = -ECONNRESET;
			return ret;
		}
		if (h.magic != STORE_MAGIC || h.vlen > CCL_STORE_MAX_VAL ||
		    (h.op != OP_RESP && h.op != OP_NOTIFY) ||
		    (h.op == OP_NOTIFY && h.vlen)) {
			st->left = -ECONNRESET;
			return -EPROTO;
		}
		if (h.op == OP_NOTIFY) {
			st->left = -ECONNRESET;
			if (h.arg >= 0 && h.arg <= INT32_MAX)
				st->left_rank = (int)h.arg;
			continue;
		}
		if (h.vlen > cap) {
			/* drain the value so the stream stays in step */
			uint8_t tmp[256];
			uint32_t left = h.vlen;

			while (left && !ret) {
				uint32_t n = left < sizeof(tmp) ? left :
								  sizeof(tmp);

				ret = recv_all(st->fd, tmp, n, deadline);
				left -= n;
			}
			return ret ? ret : -EMSGSIZE;
		}
		if (h.vlen) {
			ret = recv_all(st->fd, buf, h.vlen, deadline);
			if (ret)
				return ret;
		}
		if (len)
			*len = h.vlen;
		if (arg)
			*arg = h.arg;
		if (h.status == -ECONNRESET) {
			st->left = -ECONNRESET;
			if (h.arg >= 0 && h.arg <= INT32_MAX)
				st->left_rank = (int)h.arg;
		}
		return h.status;
	}
}

static int request(struct ccl_store *st, uint16_t op, const char *key,
		   bool prefix, const void *val, size_t vlen, int64_t arg)
{
	char full[CCL_STORE_MAX_KEY + 1];
	struct store_hdr h = { .magic = STORE_MAGIC, .op = op, .arg = arg };
	size_t klen;
	int n, ret;

	if (prefix)
		n = snprintf(full, sizeof(full), "%s/%s", st->ns, key);
	else
		n = snprintf(full, sizeof(full), "%s", key);
	if (n <= 0 || n > CCL_STORE_MAX_KEY || vlen > CCL_STORE_MAX_VAL)
		return -EINVAL;
	klen = (size_t)n;
	h.klen = (uint32_t)klen;
	h.vlen = (uint32_t)vlen;
	ret = ccl_store_send_all(st->fd, &h, sizeof(h));
	if (!ret)
		ret = ccl_store_send_all(st->fd, full, klen);
	if (!ret && vlen)
		ret = ccl_store_send_all(st->fd, val, vlen);
	if (ret)
		st->left = -ECONNRESET;
	return ret ? -ECONNRESET : 0;
}

/* Bound of a store round trip other than GET */
#define RPC_TIMEOUT_MS 30000

int ccl_store_hello(struct ccl_store *st, int rank)
{
	int ret = request(st, OP_HELLO, st->ns, false, NULL, 0, rank);

	return ret ? ret :
		     read_resp(st, NULL, 0, NULL, NULL,
			       ccl_store_now_ms() + RPC_TIMEOUT_MS);
}

int ccl_store_set(struct ccl_store *st, const char *key, const void *val,
		  size_t len)
{
	int ret = request(st, OP_SET, key, true, val, len, 0);

	return ret ? ret :
		     read_resp(st, NULL, 0, NULL, NULL,
			       ccl_store_now_ms() + RPC_TIMEOUT_MS);
}

int ccl_store_get(struct ccl_store *st, const char *key, void *buf, size_t cap,
		  size_t *len, int timeout_ms)
{
	int ret;

	if (timeout_ms < 0)
		timeout_ms = 0;
	ret = request(st, OP_GET, key, true, NULL, 0, timeout_ms);
	return ret ? ret :
		     read_resp(st, buf, cap, len, NULL,
			       ccl_store_now_ms() + (uint64_t)timeout_ms +
				       5000);
}

int ccl_store_del(struct ccl_store *st, const char *key)
{
	int ret = request(st, OP_DEL, key, true, NULL, 0, 0);

	return ret ? ret :
		     read_resp(st, NULL, 0, NULL, NULL,
			       ccl_store_now_ms() + RPC_TIMEOUT_MS);
}

int ccl_store_add(struct ccl_store *st, const char *key, int64_t delta,
		  int64_t *result)
{
	int64_t v = 0;
	int ret = request(st, OP_ADD, key, true, NULL, 0, delta);

	if (!ret)
		ret = read_resp(st, NULL, 0, NULL, &v,
				ccl_store_now_ms() + RPC_TIMEOUT_MS);
	if (!ret && result)
		*result = v;
	return ret;
}

int ccl_store_left_rank(const struct ccl_store *st)
{
	return st->left_rank;
}

int ccl_store_check(struct ccl_store *st)
{
	struct pollfd pfd = { .fd = st->fd, .events = POLLIN };

	while (!st->left && poll(&pfd, 1, 0) > 0) {
		int ret = read_resp(st, NULL, 0, NULL, NULL,
				    ccl_store_now_ms() + 1000);

		/* a response nobody waits for is a protocol error */
		if (ret != -ECONNRESET && !st->left)
			st->left = -ECONNRESET;
	}
	return st->left;
}

int ccl_store_barrier(struct ccl_store *st, const char *name, int nranks,
		      int timeout_ms, int *arrived)
{
	char key[CCL_STORE_MAX_KEY];
	char done[CCL_STORE_MAX_KEY];
	int64_t v = -1;
	size_t len;
	int ret;

	snprintf(key, sizeof(key), "bar/%s", name);
	snprintf(done, sizeof(done), "bar/%s/done", name);
	ret = ccl_store_add(st, key, 1, &v);
	if (ret)
		return ret;
	if (v == nranks)
		ret = ccl_store_set(st, done, "", 0);
	else
		ret = ccl_store_get(st, done, NULL, 0, &len, timeout_ms);
	/* how many came: read the counter again (adding nothing) */
	if (ret == -ETIMEDOUT && ccl_store_add(st, key, 0, &v))
		v = -1;
	if (arrived)
		*arrived = v >= 0 && v <= INT32_MAX ? (int)v : -1;
	return ret;
}

void ccl_store_close(struct ccl_store *st, int clean)
{
	if (!st)
		return;
	if (clean && !request(st, OP_BYE, st->ns, false, NULL, 0, 0))
		read_resp(st, NULL, 0, NULL, NULL, ccl_store_now_ms() + 1000);
	close(st->fd);
	free(st);
}
