// SPDX-License-Identifier: MIT
/*
 * unique_id.c - communicator ids (the store's address and a nonce) and
 * the store servers this process hosts for them, shared by the
 * communicators of the process that name the same address
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ccl_internal.h"
#include "ccl_store.h"

#define ID_MAGIC "HPUCCL1"

_Static_assert(sizeof(struct ccl_id) <= HPUCCL_UNIQUE_ID_BYTES,
	       "an id's fields fit its bytes");

/**
 * struct server_ref - a store server this process hosts
 * @srv: the server
 * @ipv4: address it listens on
 * @port: its port
 * @refs: communicators of this process using it
 * @used: a communicator used it (it stops when @refs drops to 0)
 * @pid: process whose thread serves it (a forked child inherits the
 *	list but not the thread)
 * @next: list link
 */
struct server_ref {
	struct ccl_store_server *srv;
	pid_t pid;
	uint32_t ipv4;
	uint16_t port;
	int refs;
	bool used;
	struct server_ref *next;
};

/* Protects servers, env_calls */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct server_ref *servers;
static unsigned int env_calls;

/* Start (or reuse) a server on @ipv4:@port; returns its bound port. */
static int server_get(uint32_t ipv4, uint16_t port, uint16_t *bound)
{
	struct server_ref *s;
	int ret = 0;

	pthread_mutex_lock(&g_lock);
	for (s = servers; s; s = s->next)
		if (s->pid == getpid() && s->ipv4 == ipv4 &&
		    (port == 0 || s->port == port))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			ret = -ENOMEM;
			goto out;
		}
		ret = ccl_store_server_start(ipv4, port, &s->srv);
		if (ret) {
			free(s);
			goto out;
		}
		s->ipv4 = ipv4;
		s->pid = getpid();
		s->port = ccl_store_server_port(s->srv);
		s->next = servers;
		servers = s;
	}
	*bound = s->port;
out:
	pthread_mutex_unlock(&g_lock);
	return ret;
}

struct ccl_store_server *ccl_server_ref(uint32_t ipv4, uint16_t port)
{
	struct server_ref *s;

	pthread_mutex_lock(&g_lock);
	for (s = servers; s; s = s->next)
		if (s->pid == getpid() && s->ipv4 == ipv4 && s->port == port)
			break;
	if (s) {
		s->refs++;
		s->used = true;
	}
	pthread_mutex_unlock(&g_lock);
	return s ? s->srv : NULL;
}

void ccl_server_unref(struct ccl_store_server *srv, int linger_ms)
{
	struct server_ref **ps, *s = NULL;

	pthread_mutex_lock(&g_lock);
	for (ps = &servers; *ps; ps = &(*ps)->next)
		if ((*ps)->srv == srv) {
			s = *ps;
			if (--s->refs == 0 && s->used)
				*ps = s->next;
			else
				s = NULL;
			break;
		}
	pthread_mutex_unlock(&g_lock);
	if (s) {
		ccl_store_server_stop(s->srv, linger_ms);
		free(s);
	}
}

/* ------------------------------------------------------- unique ids */

static uint64_t random_nonce(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	struct timespec ts;

	if (fd >= 0) {
		if (read(fd, &v, sizeof(v)) != sizeof(v))
			v = 0;
		close(fd);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	v ^= (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	return v ? v : 1;
}

static void make_id(struct hpuccl_unique_id *id, uint32_t ipv4, uint16_t port,
		    uint64_t nonce)
{
	struct ccl_id w = { .ipv4 = ipv4, .port = port, .nonce = nonce };

	memcpy(w.magic, ID_MAGIC, sizeof(ID_MAGIC));
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &w, sizeof(w));
}

/* Where the store listens: HCCL_COMM_ID, MASTER_ADDR:MASTER_PORT, else
 * 127.0.0.1:0 when @may_default. */
static int env_addr(uint32_t *ipv4, uint16_t *port, bool may_default)
{
	const char *id = getenv("HCCL_COMM_ID");
	const char *ma = getenv("MASTER_ADDR");
	const char *mp = getenv("MASTER_PORT");
	char buf[320];

	if (id && *id)
		return ccl_parse_ipv4_port(id, ipv4, port);
	if (ma && *ma && mp && *mp) {
		snprintf(buf, sizeof(buf), "%s:%s", ma, mp);
		return ccl_parse_ipv4_port(buf, ipv4, port);
	}
	if (!may_default)
		return -EINVAL;
	*ipv4 = htonl(INADDR_LOOPBACK);
	*port = 0;
	return 0;
}

HPUCCL_EXPORT int hpuccl_get_unique_id(struct hpuccl_unique_id *id)
{
	uint32_t ipv4;
	uint16_t port, bound;
	int ret;

	if (!id)
		return -EINVAL;
	ret = env_addr(&ipv4, &port, true);
	if (ret)
		return ret;
	ret = server_get(ipv4, port, &bound);
	if (ret)
		return ret;
	make_id(id, ipv4, bound, random_nonce());
	return 0;
}

HPUCCL_EXPORT int hpuccl_unique_id_from_env(struct hpuccl_unique_id *id,
					    int rank)
{
	uint32_t ipv4;
	uint16_t port, bound;
	unsigned int call;
	int ret;

	if (!id || rank < 0)
		return -EINVAL;
	ret = env_addr(&ipv4, &port, false);
	if (ret)
		return ret;
	if (!port)
		return -EINVAL;
	if (rank == 0) {
		ret = server_get(ipv4, port, &bound);
		if (ret)
			return ret;
	}
	/* the k-th call of every rank names the same communicator */
	pthread_mutex_lock(&g_lock);
	call = env_calls++;
	pthread_mutex_unlock(&g_lock);
	make_id(id, ipv4, port, 0xe4e0000000000000ULL | call);
	return 0;
}

int ccl_id_parse(const struct hpuccl_unique_id *id, struct ccl_id *w)
{
	memcpy(w, id->internal, sizeof(*w));
	if (memcmp(w->magic, ID_MAGIC, sizeof(ID_MAGIC)) || !w->port ||
	    !w->nonce)
		return -EINVAL;
	return 0;
}
