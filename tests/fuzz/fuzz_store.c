// SPDX-License-Identifier: MIT
/*
 * fuzz_store.c - libFuzzer target of libhpuccl's rendezvous store server
 * (libhpuccl/store_server.c, docs/collectives.md "Bootstrap").
 *
 * Each input is a conversation of three clients with a fresh store: a
 * list of records, each "u8 what, u16 len (little-endian), len bytes".
 * what % 3 picks the client; what & 0x80 closes its connection first and
 * opens a new one (a rank leaving and another coming). The bytes are sent
 * on that client's end of a socket pair whose other end the store adopted,
 * then the store is polled as its thread would be, and the answers are
 * read and dropped. At the end the store is stopped, which drops every
 * client and frees every entry. AddressSanitizer, LeakSanitizer and
 * UndefinedBehaviorSanitizer watch the request parser and the table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../libhpuccl/ccl_store.h"

#include "fuzz_seed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define NCLIENTS  3
#define MAX_SIZE  (256 * 1024)
#define MAX_POLLS 4

/* The request header (docs/collectives.md), little-endian here */
struct hdr {
	uint32_t magic;
	uint16_t op;
	uint16_t pad;
	int32_t status;
	uint32_t klen;
	uint32_t vlen;
	uint32_t pad2;
	int64_t arg;
};

_Static_assert(sizeof(struct hdr) == 32, "store header is 32 bytes");

/* Connect a new client to @srv; its end in *@fd, -1 when that failed */
static void client_open(struct ccl_store_server *srv, int *fd)
{
	int sv[2];

	*fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sv))
		return;
	if (ccl_store_server_adopt(srv, sv[1])) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	*fd = sv[0];
}

/* Read and drop whatever the store answered */
static void drain(int fd)
{
	char buf[4096];

	while (fd >= 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* Send what the store takes now; the rest is lost like on a dead peer */
static void send_some(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccl_store_server *srv;
	int fd[NCLIENTS];
	size_t off = 0;
	int i, j, k;

	if (size > MAX_SIZE || ccl_store_server_local(&srv))
		return 0;
	for (i = 0; i < NCLIENTS; i++)
		client_open(srv, &fd[i]);
	while (size - off >= 3) {
		uint8_t what = data[off];
		size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;

		off += 3;
		if (len > size - off)
			len = size - off;
		i = what % NCLIENTS;
		if (what & 0x80) {
			if (fd[i] >= 0)
				close(fd[i]);
			ccl_store_server_poll(srv, 0);
			client_open(srv, &fd[i]);
		}
		if (fd[i] >= 0)
			send_some(fd[i], data + off, len);
		off += len;
		for (k = 0; k < MAX_POLLS; k++) {
			ccl_store_server_poll(srv, 0);
			for (j = 0; j < NCLIENTS; j++)
				drain(fd[j]);
		}
	}
	ccl_store_server_stop(srv, 0);
	for (i = 0; i < NCLIENTS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return 0;
}

/* Append a record sending one request of client @who to @p */
static size_t rec(uint8_t *p, uint8_t who, uint16_t op, const char *key,
		  const char *val, int64_t arg)
{
	struct hdr h = { .magic = 0x54534348,
			 .op = op,
			 .klen = (uint32_t)strlen(key),
			 .vlen = val ? (uint32_t)strlen(val) : 0,
			 .arg = arg };
	size_t len = sizeof(h) + h.klen + h.vlen;

	p[0] = who;
	p[1] = (uint8_t)len;
	p[2] = (uint8_t)(len >> 8);
	memcpy(p + 3, &h, sizeof(h));
	memcpy(p + 3 + sizeof(h), key, h.klen);
	if (h.vlen)
		memcpy(p + 3 + sizeof(h) + h.klen, val, h.vlen);
	return 3 + len;
}

/* Two ranks meeting: hello, set, get, add, del, a GET that waits, a leave */
static void seeds(const char *dir)
{
	static uint8_t s[4096];
	size_t n = 0;

	n += rec(s + n, 0, 1, "ab12", NULL, 0);
	n += rec(s + n, 1, 1, "ab12", NULL, 1);
	n += rec(s + n, 0, 3, "ab12/rank/0", "server 7 device 0", 0);
	n += rec(s + n, 1, 4, "ab12/rank/0", NULL, 1000);
	n += rec(s + n, 1, 5, "ab12/barrier", NULL, 1);
	n += rec(s + n, 0, 5, "ab12/barrier", NULL, 1);
	n += rec(s + n, 0, 6, "ab12/rank/0", NULL, 0);
	n += rec(s + n, 1, 2, "ab12", NULL, 0);
	fuzz_seed_add(dir, "meet", s, n);
	n = 0;
	n += rec(s + n, 0, 1, "cd34", NULL, 0);
	n += rec(s + n, 1, 1, "cd34", NULL, 1);
	n += rec(s + n, 2, 1, "cd34", NULL, 1);
	n += rec(s + n, 1, 4, "cd34/missing", NULL, 5000);
	n += rec(s + n, 0x80, 3, "cd34/x", "1", 0);
	n += rec(s + n, 2, 3, "cd34/x", "12345678", 0);
	n += rec(s + n, 2, 5, "cd34/x", NULL, -3);
	fuzz_seed_add(dir, "leave", s, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	seeds(fuzz_corpus_dir(*argc, *argv));
	return 0;
}
