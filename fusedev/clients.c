// SPDX-License-Identifier: MIT
/*
 * clients.c - the processes whose memory a context maps (MAP|USERPTR, CB
 * CREATE, MAP_SHM): one pidfd per process and context, shared by every
 * mapping of that process and counted, so that a context holds at most
 * HFD_CTX_MAX_CLIENTS descriptors for host memory however many objects it
 * makes, and every host access names the process by its pidfd (a reused
 * pid is never the target).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "hpu_mem.h"

/* Under m->lock: the live client of process @tgid */
static struct hfd_client *find_locked(struct hfd_mem_state *m, pid_t tgid)
{
	struct hfd_client *c;

	HPU_ASSERT_HELD(&m->lock);

	for (c = m->clients; c; c = c->next)
		if (c->tgid == tgid && hfd_pidfd_alive(c->pidfd))
			return c;
	return NULL;
}

/**
 * hfd_client_get() - the client record of the process of thread @tid in
 * @ctx, with a reference
 * @ctx: compute context
 * @tid: requesting thread (alive: it waits for its request)
 * @out: receives the client (release: hfd_client_put())
 *
 * A process that already has a live record shares it; a record whose
 * process died is never matched again (its pid may be someone else's).
 *
 * Return: 0; -EMFILE when the context already has HFD_CTX_MAX_CLIENTS
 * processes; -EMFILE/-ENFILE when the daemon is out of descriptors;
 * -EFAULT when the process cannot be named (gone, or in another pid
 * namespace); -ENOMEM.
 */
int hfd_client_get(struct hfd_ctx *ctx, pid_t tid, struct hfd_client **out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *c, *n;
	pid_t tgid = hfd_tid_to_tgid(tid);
	int pidfd;

	pthread_mutex_lock(&m->lock);
	c = find_locked(m, tgid);
	if (c)
		c->refs++;
	pthread_mutex_unlock(&m->lock);
	if (c) {
		*out = c;
		return 0;
	}

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	pidfd = hfd_pidfd_open(tgid);
	if (pidfd < 0) {
		free(n);
		/* the daemon out of memory or descriptors is no -EFAULT */
		return pidfd == -ENOMEM || pidfd == -EMFILE ||
				       pidfd == -ENFILE ?
			       pidfd :
			       -EFAULT;
	}
	n->tgid = tgid;
	n->pidfd = pidfd;
	n->refs = 1;

	pthread_mutex_lock(&m->lock);
	/* another thread of the process may have been faster */
	c = find_locked(m, tgid);
	if (c) {
		c->refs++;
	} else if (m->nclients >= HFD_CTX_MAX_CLIENTS) {
		pthread_mutex_unlock(&m->lock);
		close(pidfd);
		free(n);
		return -EMFILE;
	} else {
		n->next = m->clients;
		m->clients = n;
		m->nclients++;
		c = n;
		n = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	if (n) {
		close(n->pidfd);
		free(n);
	}
	*out = c;
	return 0;
}

/**
 * hfd_client_put() - drop a reference of hfd_client_get(); the last one
 * closes the pidfd
 * @ctx: context
 * @c: client, or NULL
 */
void hfd_client_put(struct hfd_ctx *ctx, struct hfd_client *c)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client **pp;

	if (!c)
		return;
	pthread_mutex_lock(&m->lock);
	if (--c->refs) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	for (pp = &m->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			m->nclients--;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	close(c->pidfd);
	free(c);
}

/**
 * hfd_client_alive() - whether the process of @c still runs
 * @c: client
 */
bool hfd_client_alive(const struct hfd_client *c)
{
	return hfd_pidfd_alive(c->pidfd);
}
