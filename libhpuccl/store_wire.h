/* SPDX-License-Identifier: MIT */
/*
 * store_wire.h - the rendezvous store's wire format and the helpers its
 * server (store_server.c) and client (store_client.c) share
 * (store_net.c); docs/collectives.md "Bootstrap"
 */
#ifndef HPU_CCL_STORE_WIRE_H
#define HPU_CCL_STORE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_MAGIC 0x54534348U /* "HCST" */

enum store_op {
	OP_HELLO = 1,
	OP_BYE = 2,
	OP_SET = 3,
	OP_GET = 4,
	OP_ADD = 5,
	OP_DEL = 6,
	OP_RESP = 0x80,
	OP_NOTIFY = 0x81,
};

/* Every message starts with this header, little-endian fields */
struct store_hdr {
	uint32_t magic;
	uint16_t op;
	uint16_t pad;
	int32_t status; /* responses: 0 or -errno; requests: 0 */
	uint32_t klen;	/* requests: key bytes (no NUL) */
	uint32_t vlen;	/* value bytes */
	uint32_t pad2;
	int64_t arg; /* HELLO: rank; GET: timeout ms; ADD: delta */
};

/* Longest namespace, NUL included */
#define NS_MAX 64

/* Longest the sender waits for a peer to take a message */
#define SEND_TIMEOUT_MS 2000

/* CLOCK_MONOTONIC in milliseconds */
uint64_t ccl_store_now_ms(void);

/**
 * ccl_store_send_all() - send all of a buffer
 * @fd: socket (blocking or not)
 * @buf: bytes
 * @len: their count
 *
 * When the socket is full, waits for room, at most SEND_TIMEOUT_MS in all
 * (a peer that does not read is given up on, never waited for without a
 * bound).
 *
 * Return: 0; -ETIMEDOUT; -EPIPE; -errno of send().
 */
int ccl_store_send_all(int fd, const void *buf, size_t len);

#endif /* HPU_CCL_STORE_WIRE_H */
