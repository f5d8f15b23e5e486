// SPDX-License-Identifier: MIT
/*
 * nic_so_endpoint.c - the scale-out endpoint of a fabric (nic_so.h): its
 * listening socket and acceptor thread, made and stopped with the fabric,
 * and the address it is bound to.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic_so.h"

/* Parse "HOST:PORT" (IPv4 address or name) */
static int parse_addr(const char *addr, struct sockaddr_in *sa)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	const char *colon = strrchr(addr, ':');
	char host[256];
	size_t hl;
	int ret;

	if (!colon || !colon[1])
		return -EINVAL;
	hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	ret = getaddrinfo(hl ? host : NULL, colon + 1, &hints, &res);
	if (ret)
		return -EINVAL;
	memcpy(sa, res->ai_addr, sizeof(*sa));
	freeaddrinfo(res);
	return 0;
}

int hpusim_so_create(struct hpu_fw_fabric *fab, const char *addr)
{
	struct hpusim_so *so;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int one = 1, ret;

	ret = parse_addr(addr, &sa);
	if (ret)
		return ret;
	so = calloc(1, sizeof(*so));
	if (!so)
		return -ENOMEM;
	so->fab = fab;
	hpusim_list_init(&so->peers);
	hpusim_list_init(&so->ins);
	so->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (so->lfd < 0) {
		ret = -errno;
		goto err_free_so;
	}
	setsockopt(so->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(so->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(so->lfd, 64) ||
	    getsockname(so->lfd, (struct sockaddr *)&sa, &len)) {
		ret = -errno;
		goto err_close_lfd;
	}
	so->ipv4 = sa.sin_addr.s_addr;
	so->port = ntohs(sa.sin_port);
	so->efd = eventfd(0, EFD_CLOEXEC);
	if (so->efd < 0) {
		ret = -errno;
		goto err_close_lfd;
	}
	pthread_mutex_init(&so->lock, NULL);
	pthread_mutex_init(&so->connect_lock, NULL);
	ret = -pthread_create(&so->acceptor, NULL, hpusim_so_acceptor_main, so);
	if (ret)
		goto err_close_efd;
	fab->so = so;
	return 0;

err_close_efd:
	pthread_mutex_destroy(&so->connect_lock);
	pthread_mutex_destroy(&so->lock);
	close(so->efd);
err_close_lfd:
	close(so->lfd);
err_free_so:
	free(so);
	return ret;
}

void hpusim_so_destroy(struct hpu_fw_fabric *fab)
{
	struct hpusim_so *so = fab->so;
	struct hpusim_list *pos;
	uint64_t one = 1;

	if (!so)
		return;
	if (write(so->efd, &one, sizeof(one)) != sizeof(one))
		hpusim_so_log("endpoint", "cannot stop the acceptor");
	pthread_join(so->acceptor, NULL);

	pthread_mutex_lock(&so->lock);
	for (pos = so->ins.next; pos != &so->ins; pos = pos->next)
		shutdown(hpusim_container_of(pos, struct so_in, node)->fd,
			 SHUT_RDWR);
	for (pos = so->peers.next; pos != &so->peers; pos = pos->next)
		shutdown(hpusim_container_of(pos, struct hpusim_so_peer, node)
				 ->fd,
			 SHUT_RDWR);
	while (!hpusim_list_empty(&so->ins)) {
		struct so_in *in =
			hpusim_container_of(so->ins.next, struct so_in, node);

		hpusim_list_del(&in->node);
		hpusim_so_in_free(in);
	}
	while (!hpusim_list_empty(&so->peers)) {
		struct hpusim_so_peer *peer = hpusim_container_of(
			so->peers.next, struct hpusim_so_peer, node);

		hpusim_list_del(&peer->node);
		hpusim_so_peer_free(peer);
	}
	pthread_mutex_unlock(&so->lock);
	pthread_mutex_destroy(&so->connect_lock);
	pthread_mutex_destroy(&so->lock);
	close(so->efd);
	close(so->lfd);
	free(so);
	fab->so = NULL;
}

void hpusim_so_addr(struct hpu_fw_fabric *fab, uint32_t *ipv4, uint16_t *port)
{
	if (ipv4)
		*ipv4 = fab->so ? fab->so->ipv4 : 0;
	if (port)
		*port = fab->so ? fab->so->port : 0;
}
