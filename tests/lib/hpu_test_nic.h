/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_nic.h - what the NIC integration tests share: one device as a
 * side of a transfer (a context, its INFO, a CB builder, pinned host
 * memory, HBM when asked for), a scale-up connection, a NIC write with
 * its CS status, and bounded waits for device events (docs/nic.md).
 * Every helper fails the cmocka test when a step it needs fails.
 */
#ifndef HPU_TEST_NIC_H
#define HPU_TEST_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpudrv.h"

/**
 * struct hpu_test_nic_side - one process's view of one device
 * @dev: compute handle
 * @ip: HW_IP_INFO (engine counts give the NIC queues)
 * @nic: INFO NIC
 * @cb: CB builder of 4096 bytes
 * @host: pinned host memory (hpu_host_alloc)
 * @host_va: its device VA
 * @hbm_h: HBM allocation of the same size, when asked for
 * @hbm_va: its device VA (0 without HBM)
 */
struct hpu_test_nic_side {
	struct hpu_device *dev;
	struct hpu_info_hw_ip_info ip;
	struct hpu_info_nic nic;
	struct hpu_cb_builder *cb;
	uint8_t *host;
	uint64_t host_va;
	uint64_t hbm_h, hbm_va;
};

/**
 * hpu_test_nic_side_open() - open compute device @index (of HPU_DEV_DIR)
 * as @s
 * @s: side to fill in
 * @index: device index
 * @span: bytes of pinned host memory (and of HBM)
 * @hbm: whether to allocate and map @span bytes of HBM too
 */
void hpu_test_nic_side_open(struct hpu_test_nic_side *s, int index, size_t span,
			    bool hbm);

/**
 * hpu_test_nic_side_close() - release everything of @s (asserting that each
 * release succeeds); nothing for a side never opened or already closed
 * @s: side
 */
void hpu_test_nic_side_close(struct hpu_test_nic_side *s);

/**
 * hpu_test_nic_submit() - submit @s's builder on @queue and reset it
 * @s: side
 * @queue: queue index
 *
 * Return: the CS sequence number.
 */
uint64_t hpu_test_nic_submit(struct hpu_test_nic_side *s, uint32_t queue);

/**
 * hpu_test_nic_wait() - wait (at most 20 s) for CS @seq of @s
 * @s: side
 * @seq: sequence number
 *
 * Return: the WAIT_CS status.
 */
uint32_t hpu_test_nic_wait(struct hpu_test_nic_side *s, uint64_t seq);

/**
 * hpu_test_nic_run() - submit @s's builder on the queue of NIC port @port
 * (NIC queues follow the DMA, MME and TPC ones), reset it and wait for the
 * CS (at most 20 s)
 * @s: side
 * @port: port number
 *
 * Return: the WAIT_CS status.
 */
uint32_t hpu_test_nic_run(struct hpu_test_nic_side *s, uint32_t port);

/**
 * hpu_test_nic_connect() - connect @s over its first scale-up port to
 * device @device of the same server
 * @s: side
 * @device: peer device index
 * @conn: receives the connection (not 0)
 * @token: receives the token the peer's owner accepts it with (not 0)
 *
 * Return: the port.
 */
uint32_t hpu_test_nic_connect(struct hpu_test_nic_side *s, uint32_t device,
			      uint32_t *conn, uint64_t *token);

/**
 * hpu_test_nic_write_key() - @s writes @n bytes of its host memory into
 * the region of @key at offset 0 over @conn on @port, signalling @sob of
 * the peer by 1, and waits for the CS
 * @s: side
 * @port: port of @conn
 * @conn: connection
 * @key: remote key
 * @n: bytes
 * @sob: peer's sync object
 *
 * Return: the CS's WAIT_CS status.
 */
uint32_t hpu_test_nic_write_key(struct hpu_test_nic_side *s, uint32_t port,
				uint32_t conn, uint64_t key, size_t n,
				uint32_t sob);

/**
 * hpu_test_nic_drain_events() - read and drop the event records queued on
 * @dev (at most 100 reads)
 * @dev: device
 */
void hpu_test_nic_drain_events(struct hpu_device *dev);

/**
 * hpu_test_nic_wait_event() - wait (at most 5 s) for an event of @type on
 * @dev, dropping the others on the way
 * @dev: device
 * @type: HPU_EVENT_*
 * @data: when not NULL, the event's data must be *@data too
 * @out: receives the event when not NULL
 *
 * Return: 0 when it came, -ETIMEDOUT.
 */
int hpu_test_nic_wait_event(struct hpu_device *dev, uint32_t type,
			    const uint64_t *data, struct hpu_event *out);

#endif /* HPU_TEST_NIC_H */
