/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_fw_nic.h - fixture of the libhpusim NIC tests
 * (tests/unit/test_fw_nic*.c), on top of hpu_test_fw.h: a device with its
 * own context that records its NIC events, memory registration and
 * connections through hpusim_model.ops (remembering handles and the last
 * connection's token), NIC_WRITE packets, and "the pair": two devices of
 * one fabric, device 0 connected to a region of device 1 that accepted
 * the connection. Every helper fails the cmocka test when a step it
 * needs fails.
 */
#ifndef HPU_TEST_FW_NIC_H
#define HPU_TEST_FW_NIC_H

#include "hpu_test_fw.h"

/* NIC events a device records (later ones are counted, not kept) */
#define HPU_TEST_NDEV_EVENTS 256
/* hpu_test_ndev_count_ev(): events of any port */
#define HPU_TEST_ANY_PORT    (~0U - 1)

/**
 * struct hpu_test_ndev - a device with its own context, completions and
 * NIC events
 * @f: the device and its context (first: the callbacks' arg is the
 *	record too)
 * @lock: guards the events
 * @nev: events seen
 * @ev: the first HPU_TEST_NDEV_EVENTS of them
 * @ev_cookie: the cookie each came with
 */
struct hpu_test_ndev {
	struct hpu_test_fw f;
	pthread_mutex_t lock;
	unsigned int nev;
	struct hpu_fw_nic_event ev[HPU_TEST_NDEV_EVENTS];
	void *ev_cookie[HPU_TEST_NDEV_EVENTS];
};

/* The Gaudi2 profile of the model */
const struct hpu_fw_profile *hpu_test_gaudi2(void);
/* Create device @index of @fab (NULL: none) with profile @p; 0 or -errno */
int hpu_test_ndev_create(struct hpu_test_ndev *d, struct hpu_fw_fabric *fab,
			 uint32_t index, const struct hpu_fw_profile *p);
/* Destroy what is left of @d (its context, its device) */
void hpu_test_ndev_destroy(struct hpu_test_ndev *d);
/* The queue of NIC port @port of @d */
uint32_t hpu_test_ndev_queue(const struct hpu_test_ndev *d, uint32_t port);
/* Events of @type seen by @d with @cookie on @port since event @from */
unsigned int hpu_test_ndev_count_ev(struct hpu_test_ndev *d, unsigned int from,
				    uint32_t type, void *cookie, uint32_t port);
/* Events seen by @d so far */
unsigned int hpu_test_ndev_nev(struct hpu_test_ndev *d);
/* Shared host memory mapped into @d's context (reached like HBM) */
uint8_t *hpu_test_ndev_shm_map(struct hpu_test_ndev *d, uint64_t size,
			       uint64_t *va);
void hpu_test_ndev_shm_unmap(struct hpu_test_ndev *d, uint8_t *p, uint64_t size,
			     uint64_t va);
/* First scale-up port of @d wired to device @peer */
uint32_t hpu_test_ndev_port_to(struct hpu_test_ndev *d, uint32_t peer);
/* Append NIC_WRITE (signalling @sob += @val when @val is not 0) to @cb */
void hpu_test_cb_nic(struct hpu_test_cb *cb, uint64_t src, uint64_t off,
		     uint64_t size, uint32_t conn, uint64_t key, uint32_t sob,
		     uint32_t val);

/*
 * Registration: the model gives a handle (to revoke) and a key (what
 * peers name); the tests keep the key, these helpers find the handle.
 */
int hpu_test_fw_nic_reg_mr(struct hpu_fw_as *as, uint64_t va, uint64_t size,
			   uint32_t flags, uint64_t *key);
/* Revoke by key; an unknown (@as, @key) goes to the model as a handle */
int hpu_test_fw_nic_dereg_mr(struct hpu_fw_as *as, uint64_t key);
/* Connect; the token is kept for hpu_test_fw_nic_last_token() */
int hpu_test_fw_nic_connect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
			    uint16_t tcp_port, uint32_t dev, uint32_t *conn);
/* Token of the last connection hpu_test_fw_nic_connect() made */
uint64_t hpu_test_fw_nic_last_token(void);
/* @as accepts the last connection made */
void hpu_test_fw_nic_accept_last(struct hpu_fw_as *as);

/**
 * struct hpu_test_fw_nic_pair - two devices of one fabric, connected
 * @fab: the fabric
 * @d: the devices
 * @port: port of device 0 to device 1
 * @far_port: its far end
 * @conn: device 0's connection to device 1
 * @src: device 0's shared memory (random bytes)
 * @dst: device 1's shared memory
 * @src_va: device VA of @src
 * @dst_va: device VA of @dst
 * @key: device 1's region over @dst
 * @token: of @conn
 * @accept: device 1's acceptance of it
 */
struct hpu_test_fw_nic_pair {
	struct hpu_fw_fabric *fab;
	struct hpu_test_ndev d[2];
	uint32_t port;
	uint32_t far_port;
	uint32_t conn;
	uint8_t *src, *dst;
	uint64_t src_va, dst_va;
	uint64_t key;
	uint64_t token;
	uint32_t accept;
};

/* bytes of the pair's @src and @dst */
#define HPU_TEST_FW_NIC_PAIR_BYTES (8 * MiB)

/* cmocka setup and teardown of a struct hpu_test_fw_nic_pair */
int hpu_test_fw_nic_pair_setup(void **state);
int hpu_test_fw_nic_pair_teardown(void **state);
/* One NIC_WRITE from device 0; return its CS result */
enum hpu_fw_cs_result
hpu_test_fw_nic_pair_write(struct hpu_test_fw_nic_pair *pr, uint64_t off,
			   uint64_t src_off, uint64_t size, uint64_t key,
			   uint32_t sob, uint32_t val);

#endif /* HPU_TEST_FW_NIC_H */
