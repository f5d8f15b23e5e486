// SPDX-License-Identifier: MIT
/*
 * hpu_test_nic.c - sides, connections, writes and event waits of the NIC
 * integration tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "hpu_test_nic.h"

#define WAIT_US	 20000000ULL
#define EVENT_MS 5000

void hpu_test_nic_side_open(struct hpu_test_nic_side *s, int index, size_t span,
			    bool hbm)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(hpu_open(index, &s->dev), 0);
	assert_int_equal(hpu_info_hw_ip(s->dev, &s->ip), 0);
	assert_int_equal(hpu_info_nic(s->dev, &s->nic), 0);
	assert_int_equal(hpu_cb_builder_create(s->dev, 4096, &s->cb), 0);
	assert_int_equal(hpu_host_alloc(s->dev, span, (void **)&s->host,
					&s->host_va),
			 0);
	if (!hbm)
		return;
	assert_int_equal(hpu_mem_alloc(s->dev, span, 0, 0, &s->hbm_h), 0);
	assert_int_equal(hpu_mem_map(s->dev, s->hbm_h, 0, 0, &s->hbm_va), 0);
}

void hpu_test_nic_side_close(struct hpu_test_nic_side *s)
{
	if (!s->dev)
		return;
	hpu_cb_builder_destroy(s->cb);
	if (s->hbm_va) {
		assert_int_equal(hpu_mem_unmap(s->dev, s->hbm_va), 0);
		assert_int_equal(hpu_mem_free(s->dev, s->hbm_h), 0);
	}
	assert_int_equal(hpu_host_free(s->dev, s->host), 0);
	hpu_close(s->dev);
	s->dev = NULL;
}

uint64_t hpu_test_nic_submit(struct hpu_test_nic_side *s, uint32_t queue)
{
	uint64_t seq;

	assert_int_equal(hpu_cb_builder_submit(s->cb, queue, 0, 0, &seq, NULL),
			 0);
	hpu_cb_builder_reset(s->cb);
	return seq;
}

uint32_t hpu_test_nic_wait(struct hpu_test_nic_side *s, uint64_t seq)
{
	uint32_t status = ~0U;

	assert_int_equal(hpu_cs_wait(s->dev, seq, WAIT_US, &status), 0);
	return status;
}

uint32_t hpu_test_nic_run(struct hpu_test_nic_side *s, uint32_t port)
{
	uint32_t queue = s->ip.num_dma + s->ip.num_mme + s->ip.num_tpc + port;

	return hpu_test_nic_wait(s, hpu_test_nic_submit(s, queue));
}

uint32_t hpu_test_nic_connect(struct hpu_test_nic_side *s, uint32_t device,
			      uint32_t *conn, uint64_t *token)
{
	struct hpu_nic_peer peer;
	int port = hpu_nic_scaleup_port(&s->nic, device);

	assert_true(port >= 0);
	memset(&peer, 0, sizeof(peer));
	peer.port = (uint32_t)port;
	peer.device = device;
	assert_int_equal(hpu_nic_connect_token(s->dev, &peer, conn, token), 0);
	assert_true(*conn != 0 && *token != 0);
	return (uint32_t)port;
}

uint32_t hpu_test_nic_write_key(struct hpu_test_nic_side *s, uint32_t port,
				uint32_t conn, uint64_t key, size_t n,
				uint32_t sob)
{
	assert_int_equal(hpu_cb_nic_write_key(s->cb, conn, s->host_va, key, 0,
					      n, sob, 1),
			 0);
	return hpu_test_nic_run(s, port);
}

void hpu_test_nic_drain_events(struct hpu_device *dev)
{
	struct hpu_event ev[16];
	int i;

	for (i = 0; i < 100 && hpu_event_read(dev, ev, 16) > 0; i++)
		;
}

int hpu_test_nic_wait_event(struct hpu_device *dev, uint32_t type,
			    const uint64_t *data, struct hpu_event *out)
{
	struct hpu_event ev[16];
	int i, n, k;

	for (i = 0; i < EVENT_MS / 10; i++) {
		n = hpu_event_read(dev, ev, 16);
		for (k = 0; k < n; k++) {
			if (ev[k].type != type || (data && ev[k].data != *data))
				continue;
			if (out)
				*out = ev[k];
			return 0;
		}
		if (n <= 0)
			hpu_device_poll(dev, POLLIN, 10);
	}
	return -ETIMEDOUT;
}
