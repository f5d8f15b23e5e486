// SPDX-License-Identifier: MIT
/*
 * store_server.c - the rendezvous store's server: a TCP key/value table
 * served by one thread of the process that made the id, or polled by its
 * caller (ccl_store.h, wire format in docs/collectives.md "Bootstrap")
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ccl_store.h"
#include "store_wire.h"

/* Longest GET wait a request may ask for (the client API takes an int) */
#define GET_MAX_MS     INT32_MAX
#define NBUCKETS       256
#define MAX_CLIENTS    1024
/*
 * Connections the kernel queues for the server thread until it accepts
 * them: every rank of the biggest job may connect at once while the
 * thread is busy (or not scheduled on a loaded machine); the kernel caps
 * it at net.core.somaxconn.
 */
#define LISTEN_BACKLOG MAX_CLIENTS
struct srv_entry {
	char *key;
	void *val;
	uint32_t vlen;
	struct srv_entry *next;
};

/**
 * struct srv_client - one connection
 * @fd: socket
 * @ns: namespace announced by HELLO (empty before)
 * @rank: rank announced by HELLO, -1 before
 * @bye: the client said BYE
 * @in: bytes received and not yet parsed
 * @in_len: bytes at @in
 * @wkey: key of the GET this client waits on, NULL if none
 * @deadline: when that GET times out (ccl_store_now_ms())
 * @dead: an answer could not be sent: dropped at the end of the poll step
 */
struct srv_client {
	int fd;
	char ns[NS_MAX];
	int rank;
	bool bye;
	bool dead;
	uint8_t *in;
	size_t in_len;
	char *wkey;
	uint64_t deadline;
};

/**
 * struct ccl_store_server - a store and its thread
 * @lfd: listening socket
 * @wake: pipe waking the thread for stop
 * @port: bound port
 * @thread: serving thread
 * @lock: protects @stopping and @linger_until
 * @stopping: stop once no client is left (or at @linger_until)
 * @linger_until: deadline of the stop
 * @buckets: the table (thread only)
 * @bytes: keys plus values held (thread only)
 * @clients: connections (thread only)
 * @nclients: entries of @clients
 * @pfd: what a poll waits for (thread only)
 * @threaded: @thread runs (else the caller polls: ccl_store_server_local())
 */
struct ccl_store_server {
	int lfd;
	int wake[2];
	uint16_t port;
	pthread_t thread;
	bool threaded;
	pthread_mutex_t lock;
	bool stopping;
	uint64_t linger_until;
	struct srv_entry *buckets[NBUCKETS];
	size_t bytes;
	struct srv_client *clients[MAX_CLIENTS];
	int nclients;
	struct pollfd pfd[MAX_CLIENTS + 2];
};

static unsigned int hash_key(const char *k)
{
	unsigned int h = 2166136261U;

	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 16777619U;
	return h % NBUCKETS;
}

static struct srv_entry *lookup(struct ccl_store_server *srv, const char *key)
{
	struct srv_entry *e;

	for (e = srv->buckets[hash_key(key)]; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	return NULL;
}

static int put(struct ccl_store_server *srv, const char *key, const void *val,
	       uint32_t vlen)
{
	struct srv_entry *e = lookup(srv, key);
	void *v;

	if (srv->bytes + vlen + strlen(key) > CCL_STORE_MAX_BYTES)
		return -ENOSPC;
	v = malloc(vlen ? vlen : 1);
	if (!v)
		return -ENOMEM;
	memcpy(v, val, vlen);
	if (e) {
		srv->bytes -= e->vlen;
		free(e->val);
	} else {
		unsigned int b = hash_key(key);

		e = calloc(1, sizeof(*e));
		if (!e || !(e->key = strdup(key))) {
			free(e);
			free(v);
			return -ENOMEM;
		}
		e->next = srv->buckets[b];
		srv->buckets[b] = e;
		srv->bytes += strlen(key);
	}
	e->val = v;
	e->vlen = vlen;
	srv->bytes += vlen;
	return 0;
}

/* Remove @key if it exists */
static void del(struct ccl_store_server *srv, const char *key)
{
	struct srv_entry **pe, *e;

	for (pe = &srv->buckets[hash_key(key)]; *pe; pe = &(*pe)->next) {
		e = *pe;
		if (strcmp(e->key, key))
			continue;
		*pe = e->next;
		srv->bytes -= strlen(e->key) + e->vlen;
		free(e->key);
		free(e->val);
		free(e);
		return;
	}
}

/*
 * Answer @c. An answer that could not be sent whole leaves the stream out
 * of step: the client is marked dead and dropped after this poll step.
 */
static int respond(struct srv_client *c, uint16_t op, int status,
		   const void *val, uint32_t vlen, int64_t arg)
{
	struct store_hdr h = {
		.magic = STORE_MAGIC,
		.op = op,
		.status = status,
		.vlen = vlen,
		.arg = arg,
	};
	int ret;

	if (c->dead)
		return -EPIPE;
	ret = ccl_store_send_all(c->fd, &h, sizeof(h));
	if (!ret && vlen)
		ret = ccl_store_send_all(c->fd, val, vlen);
	if (ret)
		c->dead = true;
	return ret;
}

/* Namespace of a key: the text before its first '/' */
static void key_ns(const char *key, char *ns)
{
	size_t n = strcspn(key, "/");

	if (n >= NS_MAX)
		n = NS_MAX - 1;
	memcpy(ns, key, n);
	ns[n] = '\0';
}

/* The rank of @ns that left without BYE (the last one), -1 when none */
static int ns_left(struct ccl_store_server *srv, const char *ns)
{
	struct srv_entry *e;
	char k[NS_MAX + 8];
	int rank;

	snprintf(k, sizeof(k), "%s/\001left", ns);
	e = lookup(srv, k);
	if (!e || e->vlen != sizeof(rank))
		return -1;
	memcpy(&rank, e->val, sizeof(rank));
	return rank;
}

/* Answer the waiting GETs that can be answered now. */
static void serve_waiters(struct ccl_store_server *srv, uint64_t now)
{
	int i;

	for (i = 0; i < srv->nclients; i++) {
		struct srv_client *c = srv->clients[i];
		struct srv_entry *e;
		char ns[NS_MAX];
		int left;

		if (!c->wkey)
			continue;
		e = lookup(srv, c->wkey);
		key_ns(c->wkey, ns);
		left = e ? -1 : ns_left(srv, ns);
		if (e)
			respond(c, OP_RESP, 0, e->val, e->vlen, 0);
		else if (left >= 0)
			/* the answer's arg says which rank left */
			respond(c, OP_RESP, -ECONNRESET, NULL, 0, left);
		else if (now >= c->deadline)
			respond(c, OP_RESP, -ETIMEDOUT, NULL, 0, 0);
		else
			continue;
		free(c->wkey);
		c->wkey = NULL;
	}
}

/* A rank of @ns left without BYE: remember it and tell the others. */
static void rank_left(struct ccl_store_server *srv, const char *ns, int rank)
{
	char k[NS_MAX + 8];
	int i;

	snprintf(k, sizeof(k), "%s/\001left", ns);
	put(srv, k, &rank, sizeof(rank));
	for (i = 0; i < srv->nclients; i++) {
		struct srv_client *c = srv->clients[i];

		if (!strcmp(c->ns, ns) && !c->wkey)
			respond(c, OP_NOTIFY, -ECONNRESET, NULL, 0, rank);
	}
}

static int handle_hello(struct ccl_store_server *srv, struct srv_client *c,
			const char *ns, int64_t rank)
{
	int i;

	if (rank < 0 || rank > INT32_MAX || strlen(ns) >= NS_MAX || c->ns[0])
		return -EINVAL;
	for (i = 0; i < srv->nclients; i++) {
		struct srv_client *o = srv->clients[i];

		if (o != c && o->rank == rank && !strcmp(o->ns, ns))
			return -EEXIST;
	}
	strcpy(c->ns, ns);
	c->rank = (int)rank;
	return 0;
}

static int handle_add(struct ccl_store_server *srv, const char *key,
		      int64_t delta, int64_t *res)
{
	struct srv_entry *e = lookup(srv, key);
	int64_t v = 0;

	if (e) {
		if (e->vlen != sizeof(v))
			return -EINVAL;
		memcpy(&v, e->val, sizeof(v));
	}
	v = (int64_t)((uint64_t)v + (uint64_t)delta);
	*res = v;
	return put(srv, key, &v, sizeof(v));
}

/*
 * Run one complete request of @c. Return: 0, or -EPROTO to drop the
 * connection.
 */
static int handle_request(struct ccl_store_server *srv, struct srv_client *c,
			  const struct store_hdr *h, const char *key,
			  const void *val)
{
	int64_t res = 0;
	int ret = 0;

	switch (h->op) {
	case OP_HELLO:
		ret = handle_hello(srv, c, key, h->arg);
		break;
	case OP_BYE:
		c->bye = true;
		break;
	case OP_SET:
		ret = put(srv, key, val, h->vlen);
		if (!ret)
			serve_waiters(srv, ccl_store_now_ms());
		break;
	case OP_GET:
		if (h->arg < 0 || h->arg > GET_MAX_MS || c->wkey)
			return -EPROTO;
		c->wkey = strdup(key);
		if (!c->wkey)
			return respond(c, OP_RESP, -ENOMEM, NULL, 0, 0);
		c->deadline = ccl_store_now_ms() + (uint64_t)h->arg;
		serve_waiters(srv, ccl_store_now_ms());
		return 0;
	case OP_ADD:
		ret = handle_add(srv, key, h->arg, &res);
		if (!ret)
			serve_waiters(srv, ccl_store_now_ms());
		break;
	case OP_DEL:
		del(srv, key);
		break;
	default:
		return -EPROTO;
	}
	respond(c, OP_RESP, ret, NULL, 0, res);
	return 0;
}

/* Parse the complete requests in @c's buffer. Return -EPROTO on bad input. */
static int parse_input(struct ccl_store_server *srv, struct srv_client *c)
{
	size_t off = 0;
	int ret = 0;

	while (c->in_len - off >= sizeof(struct store_hdr)) {
		struct store_hdr h;
		char key[CCL_STORE_MAX_KEY + 1];
		size_t need;

		memcpy(&h, c->in + off, sizeof(h));
		if (h.magic != STORE_MAGIC || h.pad || h.pad2 || h.status ||
		    h.klen == 0 || h.klen > CCL_STORE_MAX_KEY ||
		    h.vlen > CCL_STORE_MAX_VAL || (h.op != OP_SET && h.vlen) ||
		    c->wkey)
			return -EPROTO;
		need = sizeof(h) + h.klen + h.vlen;
		if (c->in_len - off < need)
			break;
		memcpy(key, c->in + off + sizeof(h), h.klen);
		key[h.klen] = '\0';
		if (strlen(key) != h.klen)
			return -EPROTO;
		ret = handle_request(srv, c, &h, key,
				     c->in + off + sizeof(h) + h.klen);
		if (ret)
			return ret;
		off += need;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return 0;
}

static void drop_client(struct ccl_store_server *srv, int i)
{
	struct srv_client *c = srv->clients[i];

	srv->clients[i] = srv->clients[--srv->nclients];
	close(c->fd);
	if (c->ns[0] && !c->bye)
		rank_left(srv, c->ns, c->rank);
	free(c->wkey);
	free(c->in);
	free(c);
}

#define IN_CAP \
	(sizeof(struct store_hdr) + CCL_STORE_MAX_KEY + CCL_STORE_MAX_VAL)

static void read_client(struct ccl_store_server *srv, int i)
{
	struct srv_client *c = srv->clients[i];
	ssize_t n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, 0);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		drop_client(srv, i);
		return;
	}
	c->in_len += (size_t)n;
	if (parse_input(srv, c)) {
		fprintf(stderr, "hpuccl store: malformed request, "
				"closing the connection\n");
		drop_client(srv, i);
	}
}

int ccl_store_server_adopt(struct ccl_store_server *srv, int fd)
{
	struct timeval tv = { .tv_sec = 2 };
	struct srv_client *c;
	int one = 1;

	if (srv->nclients >= MAX_CLIENTS)
		return -EMFILE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->in = malloc(IN_CAP);
	if (!c->in) {
		free(c);
		return -ENOMEM;
	}
	c->fd = fd;
	c->rank = -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	srv->clients[srv->nclients++] = c;
	return 0;
}

/*
 * Take every connection the kernel queued (the socket is non-blocking);
 * one beyond MAX_CLIENTS is closed at once (its client sees the store go).
 */
static void accept_clients(struct ccl_store_server *srv)
{
	for (;;) {
		int fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			return;
		if (ccl_store_server_adopt(srv, fd))
			close(fd);
	}
}

static int next_timeout(struct ccl_store_server *srv, uint64_t now)
{
	uint64_t best = now + 1000;
	int i;

	for (i = 0; i < srv->nclients; i++)
		if (srv->clients[i]->wkey && srv->clients[i]->deadline < best)
			best = srv->clients[i]->deadline;
	return best > now ? (int)(best - now) : 0;
}

int ccl_store_server_poll(struct ccl_store_server *srv, int timeout_ms)
{
	struct pollfd *pfd = srv->pfd;
	int i, n;

	pfd[0] = (struct pollfd){ .fd = srv->lfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = srv->wake[0], .events = POLLIN };
	for (i = 0; i < srv->nclients; i++)
		pfd[i + 2] = (struct pollfd){ .fd = srv->clients[i]->fd,
					      .events = POLLIN };
	n = srv->nclients;
	if (poll(pfd, (nfds_t)n + 2, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	if (pfd[1].revents) {
		char b[16];

		if (read(srv->wake[0], b, sizeof(b)) < 0)
			(void)0;
	}
	/* Newest first, so dropping entry i keeps lower ones valid */
	for (i = n - 1; i >= 0; i--)
		if (pfd[i + 2].revents)
			read_client(srv, i);
	if (pfd[0].revents)
		accept_clients(srv);
	serve_waiters(srv, ccl_store_now_ms());
	for (i = srv->nclients - 1; i >= 0; i--)
		if (srv->clients[i]->dead)
			drop_client(srv, i);
	return 0;
}

static void *server_thread(void *arg)
{
	struct ccl_store_server *srv = arg;

	for (;;) {
		uint64_t now = ccl_store_now_ms();
		bool stop;

		pthread_mutex_lock(&srv->lock);
		stop = srv->stopping &&
		       (!srv->nclients || now >= srv->linger_until);
		pthread_mutex_unlock(&srv->lock);
		if (stop)
			break;
		if (ccl_store_server_poll(srv, next_timeout(srv, now)))
			break;
	}
	return NULL;
}

/* A server without a socket or a thread yet */
static int server_alloc(struct ccl_store_server **out)
{
	struct ccl_store_server *srv;
	int ret;

	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->lfd = -1;
	if (pipe2(srv->wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = -errno;
		free(srv);
		return ret;
	}
	pthread_mutex_init(&srv->lock, NULL);
	*out = srv;
	return 0;
}

static void server_free(struct ccl_store_server *srv)
{
	pthread_mutex_destroy(&srv->lock);
	close(srv->wake[0]);
	close(srv->wake[1]);
	if (srv->lfd >= 0)
		close(srv->lfd);
	free(srv);
}

int ccl_store_server_local(struct ccl_store_server **out)
{
	return server_alloc(out);
}

int ccl_store_server_start(uint32_t ipv4, uint16_t port,
			   struct ccl_store_server **out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct ccl_store_server *srv;
	int one = 1, ret;

	ret = server_alloc(&srv);
	if (ret)
		return ret;
	srv->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv->lfd < 0) {
		ret = -errno;
		goto err_free;
	}
	setsockopt(srv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = ipv4;
	sa.sin_port = htons(port);
	if (bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(srv->lfd, LISTEN_BACKLOG) ||
	    fcntl(srv->lfd, F_SETFL, O_NONBLOCK) ||
	    getsockname(srv->lfd, (struct sockaddr *)&sa, &sl)) {
		ret = -errno;
		goto err_free;
	}
	srv->port = ntohs(sa.sin_port);
	ret = -pthread_create(&srv->thread, NULL, server_thread, srv);
	if (ret)
		goto err_free;
	srv->threaded = true;
	*out = srv;
	return 0;
err_free:
	server_free(srv);
	return ret;
}

uint16_t ccl_store_server_port(const struct ccl_store_server *srv)
{
	return srv->port;
}

void ccl_store_server_stop(struct ccl_store_server *srv, int linger_ms)
{
	unsigned int b;

	if (!srv)
		return;
	pthread_mutex_lock(&srv->lock);
	srv->stopping = true;
	srv->linger_until =
		ccl_store_now_ms() + (uint64_t)(linger_ms > 0 ? linger_ms : 0);
	pthread_mutex_unlock(&srv->lock);
	if (write(srv->wake[1], "x", 1) < 0)
		(void)0;
	if (srv->threaded)
		pthread_join(srv->thread, NULL);
	while (srv->nclients)
		drop_client(srv, srv->nclients - 1);
	for (b = 0; b < NBUCKETS; b++) {
		struct srv_entry *e, *next;

		for (e = srv->buckets[b]; e; e = next) {
			next = e->next;
			free(e->key);
			free(e->val);
			free(e);
		}
	}
	server_free(srv);
}
