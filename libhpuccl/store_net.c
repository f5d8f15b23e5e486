// SPDX-License-Identifier: MIT
/*
 * store_net.c - what the store's server and client share: the clock,
 * sending a whole buffer, and the address parsing of the ids' variables
 * (HCCL_COMM_ID, MASTER_ADDR)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ccl_store.h"
#include "store_wire.h"

uint64_t ccl_store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int ccl_store_send_all(int fd, const void *buf, size_t len)
{
	uint64_t deadline = ccl_store_now_ms() + SEND_TIMEOUT_MS;
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			uint64_t now = ccl_store_now_ms();

			if (now >= deadline ||
			    (poll(&pfd, 1, (int)(deadline - now)) < 0 &&
			     errno != EINTR))
				return -ETIMEDOUT;
			continue;
		}
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ccl_parse_host(const char *host, uint32_t *ipv4)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	struct in_addr a;

	if (!host || !*host)
		return -EINVAL;
	if (inet_pton(AF_INET, host, &a) == 1) {
		*ipv4 = a.s_addr;
		return 0;
	}
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -EINVAL;
	*ipv4 = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
	freeaddrinfo(res);
	return 0;
}

int ccl_parse_ipv4_port(const char *s, uint32_t *ipv4, uint16_t *port)
{
	char host[256];
	const char *colon;
	char *end;
	unsigned long p;
	size_t n;

	if (!s)
		return -EINVAL;
	colon = strrchr(s, ':');
	if (!colon || colon == s)
		return -EINVAL;
	n = (size_t)(colon - s);
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || p > 65535)
		return -EINVAL;
	*port = (uint16_t)p;
	return ccl_parse_host(host, ipv4);
}
