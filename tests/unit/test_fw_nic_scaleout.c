// SPDX-License-Identifier: MIT
/*
 * test_fw_nic_scaleout.c - scale-out NIC writes between two fabrics of this
 * process over 127.0.0.1: a write with its signal, connect errors, the
 * remote server gone, and malformed wire messages sent as raw bytes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../lib/hpu_test_fw_nic.h"
#include "../lib/hpu_test_wire.h"

struct two_servers {
	struct hpu_fw_fabric *fab[2];
	struct hpu_test_ndev d[2]; /* device 0 of each server */
	uint32_t ipv4[2];
	uint16_t port[2];
};

static int servers_setup(void **state)
{
	struct hpu_fw_fabric_config fc = { .scaleout_addr = "127.0.0.1:0",
					   .num_devices = 2 };
	struct two_servers *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return -1;
	for (i = 0; i < 2; i++) {
		if (hpusim_model.ops->fabric_create(&fc, &s->fab[i]))
			return -1;
		hpusim_model.ops->fabric_addr(s->fab[i], &s->ipv4[i],
					      &s->port[i]);
		if (hpu_test_ndev_create(&s->d[i], s->fab[i], 0,
					 hpu_test_gaudi2()))
			return -1;
	}
	*state = s;
	return 0;
}

static int servers_teardown(void **state)
{
	struct two_servers *s = *state;
	unsigned int i;

	for (i = 0; i < 2; i++)
		hpu_test_ndev_destroy(&s->d[i]);
	for (i = 0; i < 2; i++)
		hpusim_model.ops->fabric_destroy(s->fab[i]);
	free(s);
	return 0;
}

static void test_scaleout_write(void **state)
{
	struct two_servers *s = *state;
	struct hpu_test_ndev *tx = &s->d[0], *rx = &s->d[1];
	const uint64_t n = 3 * MiB + 17;
	uint64_t sva, dva;
	uint8_t *src = hpu_test_ndev_shm_map(tx, 4 * MiB, &sva);
	uint8_t *dst = hpu_test_ndev_shm_map(rx, 4 * MiB, &dva);
	uint64_t key, key2;
	uint32_t conn, conn2, v;
	struct hpu_info_nic i0, i1;
	struct hpu_test_cb cb = { .len = 0 };
	unsigned int n1 = hpu_test_fw_ndone(&rx->f), e0, e1;

	assert_int_equal(s->ipv4[0], htonl(0x7f000001));
	assert_true(s->port[0] != 0 && s->port[1] != 0 &&
		    s->port[0] != s->port[1]);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.scaleout_port, s->port[0]);
	assert_true(i0.server_id != i1.server_id);

	hpu_test_fill_random(src, 4 * MiB, 3);
	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, dva, 4 * MiB,
						HPU_NIC_MR_REMOTE_WRITE, &key),
			 0);
	assert_int_equal(hpu_test_fw_nic_connect(tx->f.as, 22, s->ipv4[1],
						 s->port[1], 0, &conn),
			 0);
	hpu_test_fw_nic_accept_last(rx->f.as);
	/* a second connection reuses the TCP connection */
	assert_int_equal(hpu_test_fw_nic_connect(tx->f.as, 23, s->ipv4[1],
						 s->port[1], 0, &conn2),
			 0);
	hpu_test_fw_nic_accept_last(rx->f.as);

	hpu_test_cb_fence(&cb, 4, 1, 1);
	hpu_test_fw_submit1(&rx->f, rx->f.dma0, &cb, (void *)0x99);
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva + 5, 9, n, conn, key, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 22),
					  &cb, NULL),
			 HPU_FW_CS_OK);
	hpu_test_fw_wait_done(&rx->f, n1 + 1);
	assert_int_equal(hpu_test_fw_result_of(&rx->f, (void *)0x99, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst + 9, src + 5, n);
	assert_int_equal(dst[8], 0);
	assert_int_equal(dst[9 + n], 0);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.tx_bytes, n);
	assert_int_equal(i1.rx_bytes, n);

	/* several writes in one CB apply in order, last one signals */
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva, 0, 4096, conn2, key, 0, 0);
	hpu_test_cb_nic(&cb, sva + 4096, 0, 4096, conn2, key, 0, 0);
	hpu_test_cb_nic(&cb, sva, 100, 0, conn2, key, 4, 2);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 23),
					  &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst, src + 4096, 4096);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 4, &v), 0);
	assert_int_equal(v, 2);

	/* access errors travel back; the owner hears with port ~0 */
	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, dva, 64,
						HPU_NIC_MR_REMOTE_WRITE, &key2),
			 0);
	e0 = hpu_test_ndev_nev(tx);
	e1 = hpu_test_ndev_nev(rx);
	memset(dst, 0x5a, 128);
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva, 32, 64, conn, key2, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 22),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(
				 tx, e0, HPU_EVENT_NIC_ACCESS_ERR, tx, 22),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPUSIM_NIC_PORT_NET),
			 1);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(rx->f.as, key2), 0);
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva, 0, 64, conn, key2, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 22),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	/* a revoked key: the context that accepted the connection hears */
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPUSIM_NIC_PORT_NET),
			 2);
	assert_int_equal(dst[0], 0x5a);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 4, &v), 0);
	assert_int_equal(v, 2);

	/* the connection still works after errors */
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva, 0, 128, conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 22),
					  &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst, src, 128);

	/* the scale-out port of the sender down */
	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 22, false),
			 0);
	e0 = hpu_test_ndev_nev(tx);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 22),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(
		hpu_test_ndev_count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx, 22), 1);
	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 22, true),
			 0);

	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn2), 0);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(rx->f.as, key), 0);
	hpu_test_ndev_shm_unmap(tx, src, 4 * MiB, sva);
	hpu_test_ndev_shm_unmap(rx, dst, 4 * MiB, dva);
}

static void test_scaleout_connect_errors(void **state)
{
	struct two_servers *s = *state;
	struct hpu_fw_as *as = s->d[0].f.as;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t len = sizeof(sa);
	uint32_t c;
	int fd;

	/* a port nobody listens on any more */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	assert_int_equal(hpu_test_fw_nic_connect(as, 21, htonl(0x7f000001),
						 ntohs(sa.sin_port), 0, &c),
			 -ECONNREFUSED);
	/* the remote server has no device 1 */
	assert_int_equal(hpu_test_fw_nic_connect(as, 21, s->ipv4[1], s->port[1],
						 1, &c),
			 -ENODEV);
	/* a scale-out port to this very server */
	assert_int_equal(hpu_test_fw_nic_connect(as, 21, s->ipv4[0], s->port[0],
						 0, &c),
			 -EINVAL);
	/* scale-up port to another server */
	assert_int_equal(hpu_test_fw_nic_connect(as, 0, s->ipv4[1], s->port[1],
						 0, &c),
			 -EINVAL);
}

/* The remote device goes away: its writes fail with LINK_DOWN */
static void test_scaleout_remote_gone(void **state)
{
	struct two_servers *s = *state;
	struct hpu_test_ndev *tx = &s->d[0], *rx = &s->d[1];
	uint64_t sva, dva;
	uint8_t *src = hpu_test_ndev_shm_map(tx, 2 * MiB, &sva);
	uint8_t *dst = hpu_test_ndev_shm_map(rx, 2 * MiB, &dva);
	struct hpu_test_cb cb = { .len = 0 };
	uint64_t key;
	uint32_t conn;
	unsigned int i, e0, ncs = 16, n0 = hpu_test_fw_ndone(&tx->f);

	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, dva, 2 * MiB,
						HPU_NIC_MR_REMOTE_WRITE, &key),
			 0);
	assert_int_equal(hpu_test_fw_nic_connect(tx->f.as, 21, s->ipv4[1],
						 s->port[1], 0, &conn),
			 0);
	hpu_test_fw_nic_accept_last(rx->f.as);
	for (i = 0; i < 4; i++)
		hpu_test_cb_nic(&cb, sva, 0, 2 * MiB, conn, key, 1, 1);
	for (i = 0; i < ncs; i++)
		hpu_test_fw_submit1(&tx->f, hpu_test_ndev_queue(tx, 21), &cb,
				    (void *)(uintptr_t)(0x7000 + i));
	/* the owner's context goes while writes arrive */
	hpusim_model.ops->as_destroy(rx->f.as);
	rx->f.as = NULL;
	hpu_test_fw_wait_done(&tx->f, n0 + ncs);
	for (i = 0; i < ncs; i++) {
		enum hpu_fw_cs_result r = hpu_test_fw_result_of(
			&tx->f, (void *)(uintptr_t)(0x7000 + i), NULL);

		assert_true(r == HPU_FW_CS_OK || r == HPU_FW_CS_ENGINE_ERR);
	}
	hpusim_model.ops->destroy(rx->f.dev);
	rx->f.dev = NULL;
	munmap(dst, 2 * MiB);
	e0 = hpu_test_ndev_nev(tx);
	cb.len = 0;
	hpu_test_cb_nic(&cb, sva, 0, 64, conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, hpu_test_ndev_queue(tx, 21),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(
		hpu_test_ndev_count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx, 21), 1);
	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn), 0);
	hpu_test_ndev_shm_unmap(tx, src, 2 * MiB, sva);
}

/* Connect to @s's second server and say hello; return the socket */
static int raw_hello(struct two_servers *s)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(s->port[1]),
				  .sin_addr.s_addr = s->ipv4[1] };
	struct hpu_test_wire w = { .magic = HPU_TEST_WIRE_MAGIC,
				   .version = HPU_TEST_WIRE_VERSION,
				   .type = 1,
				   .server_id = 42 };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, &w, sizeof(w), 0), sizeof(w));
	assert_int_equal(recv(fd, &w, sizeof(w), MSG_WAITALL), sizeof(w));
	assert_int_equal(w.type, 2);
	assert_true(w.server_id != 0 && w.server_id != 42);
	return fd;
}

/* Send one WRITE of @payload on a new raw connection; return its status */
static uint32_t raw_write(struct two_servers *s, const struct hpu_test_wire *w,
			  const uint8_t *payload)
{
	int fd = raw_hello(s);
	struct hpu_test_wire ack;

	assert_int_equal(send(fd, w, sizeof(*w), 0), sizeof(*w));
	assert_int_equal(send(fd, payload, w->size, 0), (ssize_t)w->size);
	assert_int_equal(recv(fd, &ack, sizeof(ack), MSG_WAITALL), sizeof(ack));
	assert_int_equal(ack.type, 5);
	assert_int_equal(ack.seq, w->seq);
	close(fd);
	return ack.status;
}

/* Malformed messages close the connection and are never applied */
static void test_scaleout_bad_messages(void **state)
{
	struct two_servers *s = *state;
	struct hpu_test_ndev *rx = &s->d[1];
	const uint64_t token = 0x7a3c11d0e5f40921ULL;
	struct hpu_test_wire good = { .magic = HPU_TEST_WIRE_MAGIC,
				      .version = HPU_TEST_WIRE_VERSION,
				      .type = 3,
				      .seq = 1,
				      .token = token,
				      .size = 64,
				      .sob_id = 2,
				      .sob_value = 1,
				      .flags = HPU_NIC_F_SIGNAL };
	struct hpu_test_wire bad[9];
	uint8_t payload[64], *dst;
	uint64_t dva;
	uint64_t key;
	uint32_t v, acc;
	unsigned int i, e1;
	char c;

	dst = hpu_test_ndev_shm_map(rx, 4096, &dva);
	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, dva, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &key),
			 0);
	assert_int_equal(hpusim_model.ops->nic_accept(rx->f.as, token, &acc),
			 0);
	good.rkey = key;
	memset(payload, 0xab, sizeof(payload));
	for (i = 0; i < 9; i++)
		bad[i] = good;
	bad[0].magic ^= 1;
	bad[1].version = 1; /* the 64-byte header of version 1 */
	bad[2].flags |= 0x2;
	bad[3].sob_id = HPU_NUM_SOBS;
	bad[4].seq = 0;
	bad[5].offset = ~0ULL - 8; /* offset + size overflows */
	bad[6].token = 0;
	bad[7].rkey = 0;
	bad[8].pad = 1;
	for (i = 0; i < 9; i++) {
		int fd = raw_hello(s);

		assert_int_equal(send(fd, &bad[i], sizeof(bad[i]), 0),
				 sizeof(bad[i]));
		send(fd, payload, sizeof(payload), MSG_NOSIGNAL);
		/* closed without an answer */
		assert_true(recv(fd, &c, 1, 0) <= 0);
		close(fd);
	}
	assert_int_equal(dst[0], 0);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 0);

	/*
	 * Well formed, but a token nobody accepted (a guess, or a real
	 * connection the owner never accepted): refused, the owner hears
	 */
	e1 = hpu_test_ndev_nev(rx);
	good.token = token + 1;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPUSIM_NIC_PORT_NET),
			 1);
	/* the right token, a guessed key: the acceptor hears */
	e1 = hpu_test_ndev_nev(rx);
	good.token = token;
	good.rkey = key ^ 1;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPUSIM_NIC_PORT_NET),
			 1);
	assert_int_equal(dst[0], 0);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 0);

	/* the same message, well formed and accepted, is applied */
	good.rkey = key;
	assert_int_equal(raw_write(s, &good, payload), 0);
	assert_memory_equal(dst, payload, sizeof(payload));
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 1);
	/* an acceptance dropped: refused again */
	assert_int_equal(hpusim_model.ops->nic_disconnect(rx->f.as, acc), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(rx->f.as, acc),
			 -ENOENT);
	good.seq = 2;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(rx->f.as, key), 0);
	hpu_test_ndev_shm_unmap(rx, dst, 4096, dva);
}

int main(void)
{
#define S(fn) \
	cmocka_unit_test_setup_teardown(fn, servers_setup, servers_teardown)
	const struct CMUnitTest tests[] = {
		S(test_scaleout_write),
		S(test_scaleout_connect_errors),
		S(test_scaleout_remote_gone),
		S(test_scaleout_bad_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
