// SPDX-License-Identifier: MIT
/*
 * test_nic.c - the NICs through libhpudrv against the real hpu-fused
 * (docs/nic.md): INFO NIC wiring of an 8-device gaudi2 server, every NIC
 * ioctl rejection, a write with signal from one device into another
 * (FENCE on the peer, then a copy of what landed), a revoked key, an
 * injected link fault, a write across two daemons over scale-out, and
 * hpu_stream_submit ordering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_nic.h"
#include "../lib/hpu_test_util.h"
#include "hpudrv.h"

#define NDEV   8
#define SPAN   (64 * 1024)
/* sync object the receiver's FENCE waits on */
#define RX_SOB 5

static int group_setup(void **state)
{
	struct hpu_info_driver_version v;
	struct hpu_device *d;

	(void)state;
	if (hpu_test_group_start(NDEV, "gaudi2"))
		return -1;
	if (hpu_test_require_cs())
		return -1;
	if (hpu_test_have_fuse())
		return 0;
	if (hpu_open_control(0, &d))
		return -1;
	if (hpu_info_driver_version(d, &v)) {
		hpu_close(d);
		return -1;
	}
	hpu_close(d);
	/*
	 * this tree's gaudi2 model implements NIC and DEBUG: a daemon that
	 * does not say so is a regression, not a reason to skip every test
	 */
	if ((v.capabilities & (HPU_CAP_NIC | HPU_CAP_DEBUG)) !=
	    (HPU_CAP_NIC | HPU_CAP_DEBUG)) {
		fprintf(stderr,
			"test_nic: the daemon does not report "
			"HPU_CAP_NIC | HPU_CAP_DEBUG (caps %#llx)\n",
			(unsigned long long)v.capabilities);
		return -1;
	}
	return 0;
}

static int setup(void **state)
{
	int ret = hpu_test_need_daemon(state);

	if (ret)
		return ret;
	/* a test that started another daemon moved HPU_DEV_DIR */
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
	return 0;
}

/* ------------------------------------------------------------ helpers */

/* Drop every event queued on @dev, and the pending GET_EVENTS bits */
static void drain_events(struct hpu_device *dev)
{
	struct hpu_info_events ie;

	hpu_test_nic_drain_events(dev);
	hpu_info_get_events(dev, &ie);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245U + 12345U;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/*
 * Open A (hpu0) and B (hpu1), @n bytes of pattern @seed in A's host
 * buffer, no events left over from earlier tests
 */
static void pair_open(struct hpu_test_nic_side *a, struct hpu_test_nic_side *b,
		      size_t n, uint32_t seed)
{
	hpu_test_nic_side_open(a, 0, SPAN, true);
	hpu_test_nic_side_open(b, 1, SPAN, true);
	fill(a->host, n, seed);
	drain_events(a->dev);
	drain_events(b->dev);
}

/*
 * Connect A to hpu1 over A's scale-up port to it, B (on hpu1) accepting
 * the connection; returns the port
 */
static int connect_scaleup(struct hpu_test_nic_side *a,
			   struct hpu_test_nic_side *b, uint32_t *conn)
{
	uint64_t token = 0;
	uint32_t id, port = hpu_test_nic_connect(a, 1, conn, &token);

	assert_int_equal(hpu_nic_accept(b->dev, token, &id), 0);
	return (int)port;
}

/* ------------------------------------------------------ stream_submit */

static void test_stream_submit_order(void **state)
{
	const size_t n = 4 << 20;
	struct hpu_cs_chunk chunk;
	struct hpu_stream *st;
	struct hpu_device *dev;
	struct hpu_cb_builder *cb;
	uint64_t h, va, seq = 0;
	uint8_t *out;
	size_t i;

	(void)state;
	out = malloc(n);
	assert_non_null(out);
	memset(out, 0, n);
	assert_int_equal(hpu_open(0, &dev), 0);
	assert_int_equal(hpu_mem_alloc(dev, 2 * n, 0, 0, &h), 0);
	assert_int_equal(hpu_mem_map(dev, h, 0, 0, &va), 0);
	assert_int_equal(hpu_cb_builder_create(dev, 4096, &cb), 0);
	assert_int_equal(hpu_stream_create(dev, 0, &st), 0);
	assert_ptr_equal(hpu_stream_device(st), dev);

	/* a large memset first, so that an unordered copy would see zeros */
	assert_int_equal(hpu_stream_memset(st, va, 0x5a, 1, n), 0);
	/* a CS on another DMA queue reads what the memset wrote */
	assert_int_equal(hpu_cb_lin_dma(cb, va + n, va, n), 0);
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = hpu_cb_builder_handle(cb);
	chunk.cb_size = (uint32_t)hpu_cb_builder_used(cb);
	chunk.queue_index = 1;
	assert_int_equal(hpu_stream_submit(st, &chunk, 1, 0, &seq), 0);
	assert_true(seq != 0);
	/* and the stream's next copy waits for that CS */
	assert_int_equal(hpu_stream_memcpy_d2h(st, out, va + n, n), 0);
	assert_int_equal(hpu_stream_synchronize(st), 0);
	for (i = 0; i < n; i++)
		if (out[i] != 0x5a)
			break;
	assert_int_equal(i, n);

	/* a failing CS is reported by synchronize and by a later event */
	hpu_cb_builder_reset(cb);
	assert_int_equal(hpu_cb_lin_dma(cb, va, 0x100000ULL, 4096), 0);
	chunk.cb_size = (uint32_t)hpu_cb_builder_used(cb);
	assert_int_equal(hpu_stream_submit(st, &chunk, 1, 0, NULL), 0);
	assert_int_equal(hpu_stream_synchronize(st), -EIO);
	assert_int_equal(hpu_stream_synchronize(st), 0);
	{
		struct hpu_stream_event *ev;

		assert_int_equal(hpu_event_create(dev, &ev), 0);
		assert_int_equal(hpu_stream_submit(st, &chunk, 1, 0, NULL), 0);
		assert_int_equal(hpu_event_record(ev, st), 0);
		assert_int_equal(hpu_event_synchronize(ev), -EIO);
		hpu_event_destroy(ev);
		assert_int_equal(hpu_stream_synchronize(st), -EIO);
	}
	assert_int_equal(hpu_stream_submit(st, NULL, 1, 0, NULL), -EINVAL);
	assert_int_equal(hpu_stream_submit(st, &chunk, 0, 0, NULL), -EINVAL);
	drain_events(dev);

	hpu_stream_destroy(st);
	hpu_cb_builder_destroy(cb);
	assert_int_equal(hpu_mem_unmap(dev, va), 0);
	assert_int_equal(hpu_mem_free(dev, h), 0);
	hpu_close(dev);
	free(out);
}

/* ----------------------------------------------------------- INFO NIC */

static void test_info_nic_wiring(void **state)
{
	struct hpu_info_nic nic[NDEV], c;
	struct hpu_device *dev;
	uint32_t k, p, d, want;
	int ret;

	(void)state;
	assert_int_equal(hpu_open_control(0, &dev), 0);
	ret = hpu_info_nic(dev, &c);
	hpu_close(dev);
	assert_int_equal(ret, 0);

	for (d = 0; d < NDEV; d++) {
		assert_int_equal(hpu_open_control((int)d, &dev), 0);
		assert_int_equal(hpu_info_nic(dev, &nic[d]), 0);
		hpu_close(dev);
	}
	/* gaudi2: 24 ports, the last 3 scale-out; 21 / 7 = 3 per peer */
	k = 21 / (NDEV - 1);
	for (d = 0; d < NDEV; d++) {
		assert_true(nic[d].server_id != 0);
		assert_int_equal(nic[d].server_id, nic[0].server_id);
		assert_int_equal(nic[d].num_ports, 24);
		assert_int_equal(nic[d].device_index, d);
		assert_int_equal(nic[d].num_server_devices, NDEV);
		assert_int_equal(nic[d].scaleout_ports_mask, 0x7ULL << 21);
		assert_int_equal(nic[d].ports_up_mask, (1ULL << 24) - 1);
		assert_int_equal(nic[d].scaleout_ipv4, 0);
		assert_int_equal(nic[d].scaleout_port, 0);
		assert_int_equal(nic[d].pad0, 0);
		assert_int_equal(nic[d].pad1, 0);
		for (p = 0; p < 64; p++) {
			if (p < k * (NDEV - 1))
				want = p / k < d ? p / k : p / k + 1;
			else
				want = HPU_NIC_PEER_NONE;
			assert_int_equal(nic[d].port_peer[p], want);
		}
		/* the first port to each peer */
		for (p = 0; p < NDEV; p++) {
			if (p == d) {
				assert_int_equal(hpu_nic_scaleup_port(&nic[d],
								      p),
						 -ENOENT);
				continue;
			}
			assert_int_equal(hpu_nic_scaleup_port(&nic[d], p),
					 (int)((p < d ? p : p - 1) * k));
		}
	}
	/* the control node answers the same */
	assert_int_equal(c.server_id, nic[0].server_id);
	assert_int_equal(c.device_index, 0);
}

/* --------------------------------------------------------- rejections */

static int raw_nic(struct hpu_device *dev, union hpu_nic_args *a)
{
	return hpu_test_ioctl(hpu_device_fd(dev), HPU_IOCTL_NIC, a);
}

static void test_nic_rejections(void **state)
{
	struct hpu_nic_peer peer;
	union hpu_nic_args a;
	struct hpu_test_nic_side s;
	uint32_t key, conn;
	int p1;

	(void)state;
	hpu_test_nic_side_open(&s, 0, SPAN, true);

	/* raw: op, flags, pad, reserved */
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_NIC_OP_ACCEPT + 1;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_NIC_OP_REG_MR;
	a.in.addr = s.hbm_va;
	a.in.size = 4096;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL); /* no REMOTE_WRITE */
	a.in.flags = HPU_NIC_MR_REMOTE_WRITE | 4;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.flags = HPU_NIC_MR_REMOTE_WRITE;
	a.in.pad0 = 1;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.pad0 = 0;
	a.in.pad1 = 1;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.pad1 = 0;
	a.in.token = 1; /* ACCEPT's member */
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.token = 0;
	a.in.port = 1; /* not a member of REG_MR */
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.port = 0;
	assert_int_equal(raw_nic(s.dev, &a), 0);
	assert_true(a.out.handle != 0);
	assert_true(a.out.rkey != 0);
	assert_int_equal(a.out.token, 0);
	assert_int_equal(a.out.size, 4096);
	assert_int_equal(hpu_nic_dereg_mr(s.dev, a.out.handle), 0);
	assert_int_equal(hpu_nic_dereg_mr(s.dev, a.out.handle), -ENOENT);

	/* ranges */
	assert_int_equal(hpu_nic_reg_mr(s.dev, s.hbm_va, 0, &key), -EINVAL);
	assert_int_equal(hpu_nic_reg_mr(s.dev, 0x100000ULL, 4096, &key),
			 -EFAULT);
	/* past the allocation (rounded to the default page) */
	assert_int_equal(hpu_nic_reg_mr(s.dev, s.hbm_va,
					s.ip.dram_page_size + 4096, &key),
			 -EFAULT);
	assert_int_equal(hpu_nic_reg_mr(s.dev, s.host_va, SPAN, &key), 0);
	assert_int_equal(hpu_nic_dereg_mr(s.dev, key), 0);
	assert_int_equal(hpu_nic_dereg_mr(s.dev, 12345), -ENOENT);
	assert_int_equal(hpu_nic_disconnect(s.dev, 12345), -ENOENT);

	/* ports */
	p1 = hpu_nic_scaleup_port(&s.nic, 1);
	assert_true(p1 >= 0);
	memset(&peer, 0, sizeof(peer));
	peer.port = 24; /* no such port */
	peer.device = 1;
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -EINVAL);
	peer.port = (uint32_t)p1;
	peer.device = 2; /* that port is wired to device 1 */
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -EINVAL);
	peer.device = NDEV;
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -ENODEV);
	peer.port = 21; /* scale-out port to this server */
	peer.device = 1;
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -EINVAL);
	/* scale-up port to another server */
	peer.port = (uint32_t)p1;
	peer.ipv4 = htonl(INADDR_LOOPBACK);
	peer.tcp_port = 9;
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -EINVAL);
	/* this server has no scale-out endpoint */
	peer.port = 21;
	assert_int_equal(hpu_nic_connect(s.dev, &peer, &conn), -EHOSTUNREACH);
	memset(&a, 0, sizeof(a));
	a.in.op = HPU_NIC_OP_CONNECT;
	a.in.port = (uint32_t)p1;
	a.in.remote_device = 1;
	a.in.remote_port = 4000; /* a TCP port without an address */
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.remote_port = 0;
	a.in.size = 8;
	assert_int_equal(raw_nic(s.dev, &a), -EINVAL);
	a.in.size = 0;
	assert_int_equal(raw_nic(s.dev, &a), 0);
	conn = a.out.handle;
	assert_true(conn != 0);
	assert_int_equal(hpu_nic_disconnect(s.dev, conn), 0);
	assert_int_equal(hpu_nic_disconnect(s.dev, conn), -ENOENT);

	/* fault injection: a bad port, a parameter, other kinds */
	assert_int_equal(hpu_debug_inject_fault(s.dev, HPU_FAULT_LINK_DOWN, 24,
						0),
			 -EINVAL);
	assert_int_equal(hpu_debug_inject_fault(s.dev, HPU_FAULT_LINK_DOWN, 0,
						1),
			 -EINVAL);
	assert_int_equal(hpu_debug_inject_fault(s.dev, HPU_FAULT_PAGE_FAULT, 0,
						1),
			 -EINVAL);
	/* a page fault armed, then disarmed (test_ctrl_events has more) */
	assert_int_equal(
		hpu_debug_inject_fault(s.dev, HPU_FAULT_PAGE_FAULT, 0, 0), 0);
	assert_int_equal(hpu_debug_clear_faults(s.dev), 0);
	hpu_test_nic_side_close(&s);
}

/* ------------------------------------------------------ data movement */

static void test_write_signal_fence(void **state)
{
	const size_t n = 32 * 1024;
	struct hpu_test_nic_side a, b;
	uint32_t mr, conn, status;
	uint64_t rx, key;
	int port;

	(void)state;
	pair_open(&a, &b, n, 7);
	memset(b.host, 0, SPAN);

	assert_int_equal(hpu_nic_register(b.dev, b.hbm_va, SPAN, &mr, &key), 0);
	port = connect_scaleup(&a, &b, &conn);

	/* B: wait for the signal, then copy what landed to its host memory */
	assert_int_equal(hpu_cb_fence(b.cb, RX_SOB, 1, 1), 0);
	assert_int_equal(hpu_cb_lin_dma(b.cb, b.host_va, b.hbm_va, n), 0);
	rx = hpu_test_nic_submit(&b, 0);
	/* nothing signals it yet */
	hpu_test_sleep_ms(20);
	status = 0;
	assert_int_equal(hpu_cs_wait(b.dev, rx, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_int_equal(hpu_test_nic_write_key(&a, (uint32_t)port, conn, key,
						n, RX_SOB),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_nic_wait(&b, rx),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(b.host, a.host, n);
	assert_int_equal(b.host[n], 0);

	assert_int_equal(hpu_nic_disconnect(a.dev, conn), 0);
	assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), 0);
	hpu_test_nic_side_close(&a);
	hpu_test_nic_side_close(&b);
}

static void test_revoked_key(void **state)
{
	const size_t n = 4096;
	struct hpu_event ev;
	struct hpu_test_nic_side a, b;
	uint32_t mr, conn;
	uint64_t key;
	int port;

	(void)state;
	pair_open(&a, &b, n, 9);
	memset(b.host, 0xee, SPAN);

	assert_int_equal(hpu_nic_register(b.dev, b.host_va, SPAN, &mr, &key),
			 0);
	assert_int_equal(hpu_nic_dereg_mr(b.dev, mr), 0);
	port = connect_scaleup(&a, &b, &conn);

	assert_int_equal(hpu_test_nic_write_key(&a, (uint32_t)port, conn, key,
						n, RX_SOB),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(hpu_test_nic_wait_event(
				 a.dev, HPU_EVENT_NIC_ACCESS_ERR, NULL, &ev),
			 0);
	assert_int_equal(ev.data, key);
	assert_int_equal(ev.addr, 0);
	assert_int_equal(hpu_test_nic_wait_event(
				 b.dev, HPU_EVENT_NIC_ACCESS_ERR, NULL, &ev),
			 0);
	assert_int_equal(ev.data, key);
	/* not a byte landed */
	assert_int_equal(b.host[0], 0xee);
	assert_int_equal(b.host[n - 1], 0xee);
	{
		size_t i;

		for (i = 0; i < SPAN && b.host[i] == 0xee; i++)
			;
		assert_int_equal(i, SPAN);
	}
	hpu_test_nic_side_close(&a);
	hpu_test_nic_side_close(&b);
}

static void test_link_down(void **state)
{
	const size_t n = 4096;
	struct hpu_info_nic info;
	struct hpu_event ev;
	struct hpu_test_nic_side a, b;
	uint32_t mr, conn;
	uint64_t key;
	int port;

	(void)state;
	pair_open(&a, &b, n, 11);
	assert_int_equal(hpu_nic_register(b.dev, b.host_va, SPAN, &mr, &key),
			 0);
	port = connect_scaleup(&a, &b, &conn);

	assert_int_equal(hpu_debug_inject_fault(a.dev, HPU_FAULT_LINK_DOWN,
						(uint32_t)port, 0),
			 0);
	assert_int_equal(hpu_test_nic_wait_event(a.dev, HPU_EVENT_LINK_DOWN,
						 NULL, &ev),
			 0);
	assert_int_equal(ev.addr, (uint64_t)port);
	assert_int_equal(hpu_test_nic_wait_event(b.dev, HPU_EVENT_LINK_DOWN,
						 NULL, &ev),
			 0);
	/* the far end: A's slot at B (0) times 3, plus port % 3 */
	assert_int_equal(ev.addr, (uint64_t)(port % 3));
	assert_int_equal(hpu_info_nic(a.dev, &info), 0);
	assert_false(info.ports_up_mask & (1ULL << port));

	memset(b.host, 0, n);
	assert_int_equal(hpu_test_nic_write_key(&a, (uint32_t)port, conn, key,
						n, RX_SOB),
			 HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(b.host[0], 0);

	assert_int_equal(hpu_debug_clear_faults(a.dev), 0);
	assert_int_equal(hpu_info_nic(a.dev, &info), 0);
	assert_true(info.ports_up_mask & (1ULL << port));
	assert_int_equal(hpu_test_nic_write_key(&a, (uint32_t)port, conn, key,
						n, RX_SOB),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(b.host, a.host, n);
	hpu_test_nic_side_close(&a);
	hpu_test_nic_side_close(&b);
}

/* -------------------------------------------------------- scale-out */

/* A TCP port of the loopback nobody listens on */
static uint16_t closed_port(void)
{
	int port = hpu_test_free_port();

	assert_true(port > 0);
	return (uint16_t)port;
}

static void test_scaleout(void **state)
{
	static const char *const extra[] = { "--scaleout-addr", "127.0.0.1:0",
					     NULL };
	struct hpu_test_daemon d1, d2;
	struct hpu_nic_peer peer;
	struct hpu_info_nic ni2;
	struct hpu_test_nic_side a, b;
	char addr[64], want[64];
	uint32_t mr, conn, id;
	uint64_t key, token;
	const size_t n = 8192;

	(void)state;
	assert_int_equal(hpu_test_daemon_start(&d1, 2, "gaudi2", extra), 0);
	assert_int_equal(hpu_test_daemon_start(&d2, 3, "gaudi2", extra), 0);

	/* server 2: device 0 exposes pinned memory */
	setenv("HPU_DEV_DIR", d2.mount, 1);
	hpu_test_nic_side_open(&b, 0, SPAN, true);
	assert_int_equal(
		hpu_driver_read_attr("scaleout_addr", addr, sizeof(addr)), 0);
	ni2 = b.nic;
	assert_true(ni2.scaleout_port != 0);
	assert_int_equal(ni2.scaleout_ipv4, htonl(INADDR_LOOPBACK));
	snprintf(want, sizeof(want), "127.0.0.1:%u", ni2.scaleout_port);
	assert_string_equal(addr, want);
	/* 3 devices: 10 scale-up ports per peer, port 20 unwired */
	assert_int_equal(ni2.port_peer[20], HPU_NIC_PEER_NONE);
	memset(&peer, 0, sizeof(peer));
	peer.port = 20;
	peer.device = 1;
	assert_int_equal(hpu_nic_connect(b.dev, &peer, &conn), -EINVAL);
	memset(b.host, 0, SPAN);
	assert_int_equal(hpu_nic_register(b.dev, b.host_va, SPAN, &mr, &key),
			 0);

	/* server 1: device 1 writes through a scale-out port */
	setenv("HPU_DEV_DIR", d1.mount, 1);
	hpu_test_nic_side_open(&a, 1, SPAN, true);
	assert_true(a.nic.server_id != ni2.server_id);
	fill(a.host, n, 13);
	memset(&peer, 0, sizeof(peer));
	peer.port = 22;
	peer.ipv4 = ni2.scaleout_ipv4;
	peer.tcp_port = ni2.scaleout_port;
	peer.device = 3; /* server 2 has 3 devices */
	assert_int_equal(hpu_nic_connect(a.dev, &peer, &conn), -ENODEV);
	peer.tcp_port = closed_port();
	assert_int_equal(hpu_nic_connect(a.dev, &peer, &conn), -ECONNREFUSED);
	peer.tcp_port = ni2.scaleout_port;
	peer.device = 0;
	assert_int_equal(hpu_nic_connect_token(a.dev, &peer, &conn, &token), 0);
	/* not accepted yet: refused */
	assert_int_equal(hpu_cb_nic_write_key(a.cb, conn, a.host_va, key, 4096,
					      n, 0, 0),
			 0);
	assert_int_equal(hpu_test_nic_run(&a, 22), HPU_WAIT_CS_STATUS_ABORTED);
	assert_int_equal(b.host[4096], 0);
	/* B accepts it (the token travels out of band) */
	assert_int_equal(hpu_nic_accept(b.dev, token, &id), 0);
	assert_int_equal(hpu_cb_nic_write_key(a.cb, conn, a.host_va, key, 4096,
					      n, 0, 0),
			 0);
	assert_int_equal(hpu_test_nic_run(&a, 22),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_memory_equal(b.host + 4096, a.host, n);
	assert_int_equal(b.host[4095], 0);
	assert_int_equal(b.host[4096 + n], 0);

	hpu_test_nic_side_close(&a);
	setenv("HPU_DEV_DIR", d2.mount, 1);
	hpu_test_nic_side_close(&b);
	assert_int_equal(hpu_test_daemon_stop(&d1), 0);
	assert_int_equal(hpu_test_daemon_stop(&d2), 0);
	setenv("HPU_DEV_DIR", hpu_test_shared.mount, 1);
}

static void test_bad_command_line(void **state)
{
	static const char *const bad[][6] = {
		{ "--scaleout-addr", "nohostport", NULL },
		{ "--scaleout-addr", ":4000", NULL },
		{ "--scaleout-addr", "127.0.0.1:65536", NULL },
		{ "--scaleout-addr", "127.0.0.1:", NULL },
		{ "--devices", "23", "--type", "gaudi2", NULL },
		{ "--devices", "9", "--type", "gaudi", NULL },
	};
	char *argv[10], dir[] = "/tmp/hpu-test-nic-XXXXXX";
	unsigned int i, j;
	int status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[0] = (char *)hpu_test_bin("hpu-fused");
		argv[1] = "--foreground";
		argv[2] = "--mount";
		argv[3] = dir;
		for (j = 0; bad[i][j]; j++)
			argv[j + 4] = (char *)bad[i][j];
		argv[j + 4] = NULL;
		assert_int_equal(hpu_test_run(argv, NULL, &status), 0);
		assert_int_equal(status, 2);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stream_submit_order, setup),
		cmocka_unit_test_setup(test_info_nic_wiring, setup),
		cmocka_unit_test_setup(test_nic_rejections, setup),
		cmocka_unit_test_setup(test_write_signal_fence, setup),
		cmocka_unit_test_setup(test_revoked_key, setup),
		cmocka_unit_test_setup(test_link_down, setup),
		cmocka_unit_test_setup(test_scaleout, setup),
		cmocka_unit_test_setup(test_bad_command_line, setup),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
