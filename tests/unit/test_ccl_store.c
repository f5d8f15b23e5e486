// SPDX-License-Identifier: MIT
/*
 * test_ccl_store.c - the rendezvous store of libhpuccl: set/get/add,
 * blocking gets and their timeout, namespaces, rank announcements, a
 * rank leaving, malformed input from the network, address parsing, and
 * unique ids.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../libhpuccl/ccl_store.h"
#include "hpuccl.h"

static struct ccl_store_server *srv;
static uint16_t port;
static uint32_t lo;

static int setup(void **state)
{
	(void)state;
	lo = htonl(INADDR_LOOPBACK);
	if (ccl_store_server_start(lo, 0, &srv))
		return -1;
	port = ccl_store_server_port(srv);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ccl_store_server_stop(srv, 0);
	return 0;
}

static struct ccl_store *client(const char *ns)
{
	struct ccl_store *st = NULL;

	assert_int_equal(ccl_store_connect(lo, port, ns, 2000, &st), 0);
	return st;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void test_set_get_add(void **state)
{
	struct ccl_store *a = client("ns1"), *b = client("ns1");
	char buf[64];
	size_t len = 0;
	int64_t v = 0;

	(void)state;
	assert_int_equal(ccl_store_set(a, "k", "hello", 5), 0);
	assert_int_equal(ccl_store_get(b, "k", buf, sizeof(buf), &len, 1000),
			 0);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, "hello", 5);
	/* a value larger than the caller's buffer */
	assert_int_equal(ccl_store_get(b, "k", buf, 2, &len, 1000), -EMSGSIZE);
	/* and the connection still works after it */
	assert_int_equal(ccl_store_add(a, "cnt", 5, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(ccl_store_add(b, "cnt", -2, &v), 0);
	assert_int_equal(v, 3);
	/* add on a key that is not a counter */
	assert_int_equal(ccl_store_add(b, "k", 1, &v), -EINVAL);
	/* a deleted key is gone (a GET waits for it again), deleting it
	 * twice is no error, and it can be set anew */
	assert_int_equal(ccl_store_del(a, "k"), 0);
	assert_int_equal(ccl_store_get(b, "k", buf, sizeof(buf), &len, 100),
			 -ETIMEDOUT);
	assert_int_equal(ccl_store_del(b, "k"), 0);
	assert_int_equal(ccl_store_set(b, "k", "x", 1), 0);
	assert_int_equal(ccl_store_get(a, "k", buf, sizeof(buf), &len, 1000),
			 0);
	assert_int_equal(len, 1);
	ccl_store_close(a, 1);
	ccl_store_close(b, 1);
}

static void test_get_timeout(void **state)
{
	struct ccl_store *a = client("ns2");
	struct timespec t0;
	size_t len;
	char buf[8];

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ccl_store_get(a, "never", buf, sizeof(buf), &len, 200),
			 -ETIMEDOUT);
	assert_in_range(ms_since(&t0), 150, 3000);
	ccl_store_close(a, 1);
}

static void test_namespaces(void **state)
{
	struct ccl_store *a = client("nsA"), *b = client("nsB");
	char buf[8];
	size_t len;

	(void)state;
	assert_int_equal(ccl_store_set(a, "x", "A", 1), 0);
	assert_int_equal(ccl_store_set(b, "x", "B", 1), 0);
	assert_int_equal(ccl_store_get(a, "x", buf, sizeof(buf), &len, 500), 0);
	assert_int_equal(buf[0], 'A');
	assert_int_equal(ccl_store_get(b, "x", buf, sizeof(buf), &len, 500), 0);
	assert_int_equal(buf[0], 'B');
	ccl_store_close(a, 1);
	ccl_store_close(b, 1);
}

static void test_hello_and_leave(void **state)
{
	struct ccl_store *a = client("nsL"), *b = client("nsL"),
			 *c = client("nsL");
	char buf[8];
	size_t len;

	(void)state;
	assert_int_equal(ccl_store_hello(a, 0), 0);
	assert_int_equal(ccl_store_hello(b, 1), 0);
	/* rank 1 taken twice */
	assert_int_equal(ccl_store_hello(c, 1), -EEXIST);
	assert_int_equal(ccl_store_hello(c, 2), 0);
	assert_int_equal(ccl_store_check(a), 0);
	/* rank 1 leaves without BYE: a waiting get fails early */
	ccl_store_close(b, 0);
	assert_int_equal(ccl_store_get(a, "never", buf, sizeof(buf), &len,
				       5000),
			 -ECONNRESET);
	assert_int_equal(ccl_store_check(c), -ECONNRESET);
	ccl_store_close(a, 1);
	ccl_store_close(c, 1);
}

static void test_clean_leave(void **state)
{
	struct ccl_store *a = client("nsC"), *b = client("nsC");
	char buf[8];
	size_t len;

	(void)state;
	assert_int_equal(ccl_store_hello(a, 0), 0);
	assert_int_equal(ccl_store_hello(b, 1), 0);
	ccl_store_close(b, 1);
	assert_int_equal(ccl_store_get(a, "never", buf, sizeof(buf), &len, 100),
			 -ETIMEDOUT);
	assert_int_equal(ccl_store_check(a), 0);
	ccl_store_close(a, 1);
}

static int raw_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = lo;
	sa.sin_port = htons(port);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* The server drops a connection sending garbage; others go on. */
static void test_bad_messages(void **state)
{
	static const uint32_t bad_hdrs[][8] = {
		{ 0xdeadbeef, 4, 0, 1, 0, 0, 0, 0 },	   /* magic */
		{ 0x54534348, 99, 0, 1, 0, 0, 0, 0 },	   /* op */
		{ 0x54534348, 3, 0, 0, 0, 0, 0, 0 },	   /* empty key */
		{ 0x54534348, 3, 0, 100000, 0, 0, 0, 0 },  /* key too long */
		{ 0x54534348, 3, 0, 1, 1 << 30, 0, 0, 0 }, /* value too big */
		{ 0x54534348, 4, 0, 1, 8, 0, 0, 0 },	   /* GET with value */
	};
	struct ccl_store *ok = client("nsG");
	char buf[8];
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(bad_hdrs) / sizeof(bad_hdrs[0]); i++) {
		int fd = raw_connect();
		char junk[64] = { 0 };
		ssize_t n;

		assert_int_equal(send(fd, bad_hdrs[i], sizeof(bad_hdrs[i]), 0),
				 (ssize_t)sizeof(bad_hdrs[i]));
		if (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) < 0)
			(void)0;
		/* the server closes it: recv ends (bounded by SO_RCVTIMEO) */
		{
			struct timeval tv = { .tv_sec = 3 };

			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
		}
		n = recv(fd, junk, sizeof(junk), 0);
		assert_true(n <= 0);
		assert_true(n == 0 || errno == ECONNRESET);
		close(fd);
	}
	/* a GET asking to wait longer than any client can: dropped, not
	 * answered with an immediate (wrapped) timeout */
	{
		static const uint32_t get_forever[8] = {
			0x54534348, 4, 0, 1, 0, 0, 0xffffffff, 0x7fffffff
		};
		int fd = raw_connect();
		struct timeval tv = { .tv_sec = 3 };
		char resp[64];
		ssize_t n;

		assert_int_equal(send(fd, get_forever, sizeof(get_forever), 0),
				 (ssize_t)sizeof(get_forever));
		assert_int_equal(send(fd, "k", 1, 0), 1);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, resp, sizeof(resp), 0);
		/* closed by the server, not left waiting (recv timing out) */
		assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
		close(fd);
	}
	/* a truncated request, then the peer goes away */
	{
		int fd = raw_connect();

		assert_int_equal(send(fd, bad_hdrs[0], 10, 0), 10);
		close(fd);
	}
	assert_int_equal(ccl_store_set(ok, "still", "y", 1), 0);
	assert_int_equal(
		ccl_store_get(ok, "still", buf, sizeof(buf), &len, 500), 0);
	ccl_store_close(ok, 1);
}

static void test_connect_refused(void **state)
{
	struct ccl_store_server *s2;
	struct ccl_store *st;
	uint16_t p2;
	struct timespec t0;

	(void)state;
	/* a port nobody listens on any more */
	assert_int_equal(ccl_store_server_start(lo, 0, &s2), 0);
	p2 = ccl_store_server_port(s2);
	ccl_store_server_stop(s2, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ccl_store_connect(lo, p2, "x", 300, &st),
			 -ECONNREFUSED);
	assert_in_range(ms_since(&t0), 250, 5000);
	assert_int_equal(ccl_store_connect(lo, p2, "a/b", 300, &st), -EINVAL);
}

/*
 * A store whose backlog is full (it does not accept: the thread is not
 * scheduled, or too many ranks came at once) does not hold a connecting
 * rank past its timeout: every attempt is bounded by what is left of it.
 */
static void test_connect_backlog_full(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int lfd, fill[8], i, ret;
	struct ccl_store *st;
	struct timespec t0;
	long ms;

	(void)state;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	sa.sin_addr.s_addr = lo;
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 0), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	/* fill the accept queue; nobody ever accepts */
	for (i = 0; i < 8; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		assert_true(fill[i] >= 0);
		if (connect(fill[i], (struct sockaddr *)&sa, sizeof(sa)))
			assert_int_equal(errno, EINPROGRESS);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ccl_store_connect(lo, ntohs(sa.sin_port), "full", 500, &st);
	ms = ms_since(&t0);
	for (i = 0; i < 8; i++)
		close(fill[i]);
	close(lfd);
	if (!ret)
		ccl_store_close(st, 0);
	assert_int_equal(ret, -ETIMEDOUT);
	/* the kernel alone retries a SYN for minutes */
	assert_in_range(ms, 400, 10000);
}

/*
 * A client that sends requests and never reads the answers is dropped
 * once its socket stays full (bounded), and the store goes on serving
 * the others; no answer is cut in half on a connection kept open.
 */
static void test_client_not_reading(void **state)
{
	static const uint32_t hdr[8] = { 0x54534348, 3, 0, 1, 0, 0, 0, 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096, dropped = 0;
	struct ccl_store *ok = client("nsR");
	uint8_t reqs[256 * 33];
	long long sent = 0;
	struct timespec t0;
	char buf[8];
	size_t len, i;

	(void)state;
	/* SETs of key "k", back to back */
	for (i = 0; i < sizeof(reqs); i += 33) {
		memcpy(reqs + i, hdr, sizeof(hdr));
		reqs[i + 32] = 'k';
	}
	/* small buffers (before the connect, which sizes the window) */
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	sa.sin_addr.s_addr = lo;
	sa.sin_port = htons(port);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* requests until the answers have nowhere to go and the server
	 * gives up on us: bounded by 30 s (the server waits 2 s) */
	while (!dropped && ms_since(&t0) < 30000) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		size_t off = (size_t)(sent % 33);
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = send(fd, reqs + off, sizeof(reqs) - 33,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			dropped = 1;
		else if (n > 0)
			sent += n;
	}
	close(fd);
	print_message("%lld requests sent, %s after %ld ms\n", sent / 33,
		      dropped ? "dropped" : "still connected", ms_since(&t0));
	if (!dropped)
		fail_msg("a client not reading its answers was not dropped "
			 "within 30 s");
	assert_int_equal(ccl_store_set(ok, "served", "y", 1), 0);
	assert_int_equal(
		ccl_store_get(ok, "served", buf, sizeof(buf), &len, 2000), 0);
	ccl_store_close(ok, 1);
}

/* Who left and how many came: what an init failure tells the user */
static void test_left_rank_and_arrived(void **state)
{
	struct ccl_store *a = client("nsW"), *b = client("nsW"),
			 *c = client("nsW");
	int arrived = -7;
	char buf[8];
	size_t len;

	(void)state;
	assert_int_equal(ccl_store_hello(a, 0), 0);
	assert_int_equal(ccl_store_hello(b, 1), 0);
	assert_int_equal(ccl_store_hello(c, 2), 0);
	assert_int_equal(ccl_store_left_rank(a), -1);
	/* 2 of 3 reach the barrier: a times out, and knows how many came */
	assert_int_equal(ccl_store_barrier(b, "b1", 3, 100, NULL), -ETIMEDOUT);
	assert_int_equal(ccl_store_barrier(a, "b1", 3, 200, &arrived),
			 -ETIMEDOUT);
	assert_int_equal(arrived, 2);
	/* the third completes it */
	assert_int_equal(ccl_store_barrier(c, "b1", 3, 200, &arrived), 0);
	assert_int_equal(arrived, 3);
	/* rank 2 goes away: a waiting GET says so, and which rank */
	ccl_store_close(c, 0);
	assert_int_equal(ccl_store_get(a, "never", buf, sizeof(buf), &len,
				       5000),
			 -ECONNRESET);
	assert_int_equal(ccl_store_left_rank(a), 2);
	/* a client not waiting hears it as a notification */
	assert_int_equal(ccl_store_check(b), -ECONNRESET);
	assert_int_equal(ccl_store_left_rank(b), 2);
	ccl_store_close(a, 1);
	ccl_store_close(b, 1);
}

static void test_parse(void **state)
{
	uint32_t ip;
	uint16_t p;

	(void)state;
	assert_int_equal(ccl_parse_ipv4_port("127.0.0.1:29500", &ip, &p), 0);
	assert_int_equal(p, 29500);
	assert_int_equal(ip, htonl(INADDR_LOOPBACK));
	assert_int_equal(ccl_parse_ipv4_port("localhost:1", &ip, &p), 0);
	assert_int_equal(ccl_parse_ipv4_port("127.0.0.1", &ip, &p), -EINVAL);
	assert_int_equal(ccl_parse_ipv4_port(":80", &ip, &p), -EINVAL);
	assert_int_equal(ccl_parse_ipv4_port("1.2.3.4:", &ip, &p), -EINVAL);
	assert_int_equal(ccl_parse_ipv4_port("1.2.3.4:70000", &ip, &p),
			 -EINVAL);
	assert_int_equal(ccl_parse_ipv4_port("1.2.3.4:12x", &ip, &p), -EINVAL);
}

static void test_unique_ids(void **state)
{
	struct hpuccl_unique_id a, b, bad;
	struct hpuccl_comm *c;

	(void)state;
	unsetenv("HCCL_COMM_ID");
	unsetenv("MASTER_ADDR");
	unsetenv("MASTER_PORT");
	assert_int_equal(hpuccl_get_unique_id(&a), 0);
	assert_int_equal(hpuccl_get_unique_id(&b), 0);
	assert_memory_not_equal(&a, &b, sizeof(a));
	assert_int_equal(hpuccl_unique_id_from_env(&a, 0), -EINVAL);
	setenv("HCCL_COMM_ID", "127.0.0.1:notaport", 1);
	assert_int_equal(hpuccl_get_unique_id(&a), -EINVAL);
	unsetenv("HCCL_COMM_ID");
	memset(&bad, 0x5a, sizeof(bad));
	assert_int_equal(hpuccl_comm_init_rank(&c, 2, &bad, 0), -EINVAL);
	assert_int_equal(hpuccl_comm_init_rank(&c, 2, &b, 2), -EINVAL);
	assert_int_equal(hpuccl_comm_init_rank(&c, 0, &b, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get_add),
		cmocka_unit_test(test_get_timeout),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_hello_and_leave),
		cmocka_unit_test(test_clean_leave),
		cmocka_unit_test(test_bad_messages),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_connect_backlog_full),
		cmocka_unit_test(test_client_not_reading),
		cmocka_unit_test(test_left_rank_and_arrived),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_unique_ids),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
