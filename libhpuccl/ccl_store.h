/* SPDX-License-Identifier: MIT */
/*
 * ccl_store.h - the rendezvous store of libhpuccl (internal)
 *
 * A key/value store served over TCP by one thread of one process. Keys
 * live in namespaces (a communicator's nonce), so several communicators
 * share one store. A client that said HELLO as rank r of a namespace and
 * disconnects without BYE is a rank that left: waiting GETs of the
 * namespace fail with -ECONNRESET and the other clients of the namespace
 * get a notification.
 */
#ifndef HPU_CCL_STORE_H
#define HPU_CCL_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Longest key and value the store accepts */
#define CCL_STORE_MAX_KEY   256
#define CCL_STORE_MAX_VAL   (64 * 1024)
/* Bytes of keys plus values one store holds at most */
#define CCL_STORE_MAX_BYTES (64 * 1024 * 1024)

struct ccl_store_server;
struct ccl_store;

/**
 * ccl_store_server_start() - serve a store on a thread of this process
 * @ipv4: address to listen on (network byte order)
 * @port: TCP port (host byte order), 0 for any free one
 * @out: receives the server
 *
 * Return: 0; -EADDRINUSE; -errno.
 */
int ccl_store_server_start(uint32_t ipv4, uint16_t port,
			   struct ccl_store_server **out);

/** ccl_store_server_port() - the TCP port the server really bound */
uint16_t ccl_store_server_port(const struct ccl_store_server *srv);

/**
 * ccl_store_server_stop() - stop serving once no client is connected (or
 * after @linger_ms), then free the server
 * @srv: server or NULL
 * @linger_ms: longest wait for the clients to go
 */
void ccl_store_server_stop(struct ccl_store_server *srv, int linger_ms);

/*
 * A server driven by its caller instead of a thread (the fuzz target and
 * tests): no listening socket; connections are handed in with
 * ccl_store_server_adopt() and served by ccl_store_server_poll(), the
 * step the serving thread of ccl_store_server_start() repeats. Freed by
 * ccl_store_server_stop(), which closes the adopted connections.
 */
int ccl_store_server_local(struct ccl_store_server **out);

/**
 * ccl_store_server_adopt() - serve a connected stream socket
 * @srv: server
 * @fd: the connection; the server owns it from now on (made non-blocking)
 *
 * Return: 0; -EMFILE (too many clients); -ENOMEM. On an error @fd is
 * still the caller's.
 */
int ccl_store_server_adopt(struct ccl_store_server *srv, int fd);

/**
 * ccl_store_server_poll() - wait up to @timeout_ms for input, then read
 * and answer what came (requests, new connections, closed connections,
 * GETs that can be answered or timed out)
 * @srv: server
 * @timeout_ms: longest wait, 0 for none
 *
 * Return: 0 or -errno of poll().
 */
int ccl_store_server_poll(struct ccl_store_server *srv, int timeout_ms);

/**
 * ccl_store_connect() - connect to a store, retrying until @timeout_ms
 * @ipv4: server address (network byte order)
 * @port: server port
 * @ns: namespace of every key this client uses (NUL-terminated, short)
 * @timeout_ms: how long to keep retrying a refused connection
 * @out: receives the client
 *
 * Each attempt is bounded by what is left of @timeout_ms (a store whose
 * backlog is full does not hold the caller past it); refused or reset
 * attempts are retried after a pause that doubles from 10 to 500 ms,
 * with jitter so that many ranks spread out.
 *
 * Return: 0; -ECONNREFUSED (nobody listened before the timeout);
 * -ETIMEDOUT (the store did not take the connection in time); -EINVAL;
 * -errno.
 */
int ccl_store_connect(uint32_t ipv4, uint16_t port, const char *ns,
		      int timeout_ms, struct ccl_store **out);

/**
 * ccl_store_close() - close a client
 * @st: client or NULL
 * @clean: say BYE first (a rank leaving on purpose); else the server
 *	treats the close as the rank leaving abnormally
 */
void ccl_store_close(struct ccl_store *st, int clean);

/**
 * ccl_store_hello() - announce this client as rank @rank of its namespace
 * @st: client
 * @rank: rank
 *
 * Return: 0; -EEXIST when a live client already announced that rank.
 */
int ccl_store_hello(struct ccl_store *st, int rank);

/** ccl_store_set() - set @key to @len bytes at @val */
int ccl_store_set(struct ccl_store *st, const char *key, const void *val,
		  size_t len);

/**
 * ccl_store_get() - wait until @key exists and read it
 * @st: client
 * @key: key
 * @buf: receives the value
 * @cap: bytes at @buf
 * @len: receives the value's length
 * @timeout_ms: longest wait
 *
 * Return: 0; -ETIMEDOUT; -ECONNRESET (a rank of the namespace left or the
 * store went away); -EMSGSIZE (@cap too small); -errno.
 */
int ccl_store_get(struct ccl_store *st, const char *key, void *buf, size_t cap,
		  size_t *len, int timeout_ms);

/**
 * ccl_store_del() - remove @key (nothing happens when it does not exist)
 * @st: client
 * @key: key
 *
 * Return: 0 or -errno.
 */
int ccl_store_del(struct ccl_store *st, const char *key);

/**
 * ccl_store_add() - add @delta to the 64-bit counter @key (0 when new)
 * @st: client
 * @key: key
 * @delta: addend
 * @result: receives the new value (may be NULL)
 *
 * Return: 0 or -errno.
 */
int ccl_store_add(struct ccl_store *st, const char *key, int64_t delta,
		  int64_t *result);

/**
 * ccl_store_check() - whether a rank of the namespace left (non-blocking)
 * @st: client
 *
 * Return: 0; -ECONNRESET when a rank left or the store went away.
 */
int ccl_store_check(struct ccl_store *st);

/**
 * ccl_store_left_rank() - which rank the store announced as gone
 * @st: client
 *
 * Return: the rank of the last NOTIFY, -1 when none came.
 */
int ccl_store_left_rank(const struct ccl_store *st);

/**
 * ccl_store_barrier() - wait until @nranks clients reached barrier @name
 * @st: client
 * @name: barrier name (unique per use)
 * @nranks: participants
 * @timeout_ms: longest wait
 * @arrived: receives how many clients had reached it (after a timeout:
 *	when it gave up), -1 when unknown; may be NULL
 *
 * Return: 0; -ETIMEDOUT; -ECONNRESET; -errno.
 */
int ccl_store_barrier(struct ccl_store *st, const char *name, int nranks,
		      int timeout_ms, int *arrived);

/**
 * ccl_parse_ipv4_port() - parse "HOST:PORT" (HOST a dotted quad or a
 * name resolving to IPv4)
 * @s: text
 * @ipv4: receives the address (network byte order)
 * @port: receives the port
 *
 * Return: 0 or -EINVAL.
 */
int ccl_parse_ipv4_port(const char *s, uint32_t *ipv4, uint16_t *port);

/** ccl_parse_host() - resolve a host name or dotted quad to IPv4 */
int ccl_parse_host(const char *host, uint32_t *ipv4);

#endif /* HPU_CCL_STORE_H */
