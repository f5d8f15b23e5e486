/* SPDX-License-Identifier: MIT */
/*
 * nic.h - what the NIC files of libhpusim share (nic_mr.c: registrations
 * and acceptances; nic_conn.c: connections; nic.c: NIC_WRITE;
 * nic_fabric.c: the server, its wiring and link state; nic_so_*.c: the
 * TCP transport between servers).
 *
 * Lifetime: a device found through its fabric is held with
 * hpusim_fabric_dev_get() (the fabric's @users count), so it cannot leave
 * the fabric (hence cannot be freed) under a peer's write. A registered
 * region found by key is held with hpusim_nic_target(), and so is an
 * acceptance found by token; dereg, disconnect and as_destroy wait until
 * no write holds them, so their address space outlives the write.
 *
 * Protection domains: every address space is one. A registration has a
 * handle (local) and a key (what peers name), a connection a token; a
 * write reaches a region only when the region's address space accepted
 * the token of the connection the write came over (docs/nic.md).
 *
 * Lock order: an address space's nic lock, a device's mr_lock and the
 * fabric lock are leaves (nothing else is taken under them); map_locks of
 * two address spaces are taken in address order; a scale-out peer's
 * pend_lock nests outside the scheduler lock.
 */
#ifndef HPUSIM_NIC_H
#define HPUSIM_NIC_H

#include "hpusim.h"

/* Scale-out ports: the last ones of every device */
#define HPUSIM_NIC_SCALEOUT_PORTS 3

/* Devices of one fabric (struct hpu_fw_fabric_config.num_devices) */
#define HPUSIM_FABRIC_MAX_DEVICES 64

/**
 * struct hpusim_keygen - unpredictable values that never repeat
 * (nic_keys.c): a keyed permutation of a counter
 * @k0: first half of the secret
 * @k1: second half
 * @next: last counter value used
 */
struct hpusim_keygen {
	uint64_t k0;
	uint64_t k1;
	uint64_t next;
};

/**
 * struct hpusim_mr - a registered region
 * @key: its key (never 0)
 * @handle: its handle in its address space
 * @as: owning address space
 * @va: first device VA
 * @size: bytes
 * @refs: writes using it now (device mr_lock)
 */
struct hpusim_mr {
	uint64_t key;
	uint32_t handle;
	struct hpu_fw_as *as;
	uint64_t va;
	uint64_t size;
	unsigned int refs;
};

/**
 * struct hpusim_acc - a connection token an address space accepted
 * @token: the token
 * @id: its id in the address space
 * @as: the address space whose regions the connection may write
 * @refs: writes using it now (device mr_lock)
 */
struct hpusim_acc {
	uint64_t token;
	uint32_t id;
	struct hpu_fw_as *as;
	unsigned int refs;
};

/**
 * struct hpusim_nic - the NICs of a device
 * @dev: device
 * @fab: fabric it joined, or NULL for a device without peers
 * @server_id: server id of a device without fabric
 * @nports: NIC ports
 * @nscaleup: scale-up ports (the first ones)
 * @k: scale-up ports to each peer (0: no wiring)
 * @down: bit per port taken down (atomic)
 * @tx_bytes: payload bytes sent (atomic)
 * @rx_bytes: payload bytes received (atomic)
 * @users: fabric lookups that hold the device (fabric lock)
 * @mr_lock: protects @mrs, @nmrs, @cap, @accs, @naccs, @acap, @keys,
 *	@tokens and every region's and acceptance's refs
 * @mr_cond: broadcast when a region's or an acceptance's refs drop
 * @mrs: regions sorted by key
 * @nmrs: entries in @mrs
 * @cap: room in @mrs
 * @accs: acceptances sorted by token
 * @naccs: entries in @accs
 * @acap: room in @accs
 * @keys: where region keys come from
 * @tokens: where connection tokens come from
 */
struct hpusim_nic {
	struct hpu_fw_device *dev;
	struct hpu_fw_fabric *fab;
	uint64_t server_id;
	uint32_t nports;
	uint32_t nscaleup;
	uint32_t k;
	uint64_t down;
	uint64_t tx_bytes;
	uint64_t rx_bytes;
	unsigned int users;
	pthread_mutex_t mr_lock;
	pthread_cond_t mr_cond;
	struct hpusim_mr **mrs;
	uint32_t nmrs;
	uint32_t cap;
	struct hpusim_acc **accs;
	uint32_t naccs;
	uint32_t acap;
	struct hpusim_keygen keys;
	struct hpusim_keygen tokens;
};

struct hpusim_so_peer;

/**
 * struct hpusim_nic_conn - a connection of an address space
 * @id: its id (0: the slot is free)
 * @port: local port
 * @remote_device: device index in the remote (or this) server
 * @token: what the receiving address space accepts it by
 * @peer: scale-out: the TCP connection to the remote server (a
 *	reference); NULL for scale-up
 */
struct hpusim_nic_conn {
	uint32_t id;
	uint32_t port;
	uint32_t remote_device;
	uint64_t token;
	struct hpusim_so_peer *peer;
};

/**
 * struct hpusim_nic_as - NIC state of an address space (its protection
 * domain)
 * @lock: protects @conns, @mrs, @accs and @next_id
 * @cookie: the driver's value for its events (atomic)
 * @conns: connections by slot
 * @mrs: its regions by slot (also in the device's table)
 * @accs: its acceptances by slot (also in the device's table)
 * @next_id: sequence number of the last id handed out
 */
struct hpusim_nic_as {
	pthread_mutex_t lock;
	void *cookie;
	struct hpusim_nic_conn conns[HPU_NIC_MAX_CONNS];
	struct hpusim_mr *mrs[HPU_NIC_MAX_MRS];
	struct hpusim_acc *accs[HPU_NIC_MAX_ACCEPTS];
	uint32_t next_id;
};

struct hpusim_so;

/**
 * struct hpu_fw_fabric - one server
 * @lock: protects @devs and every member device's nic->users
 * @cond: broadcast when a device's users drop to 0
 * @server_id: random, never 0
 * @num_devices: devices the wiring is laid out for
 * @devs: member devices by index
 * @so: scale-out endpoint, NULL without
 */
struct hpu_fw_fabric {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t server_id;
	uint32_t num_devices;
	struct hpu_fw_device *devs[HPUSIM_FABRIC_MAX_DEVICES];
	struct hpusim_so *so;
};

/* nic_fabric.c */
struct hpu_fw_device *hpusim_fabric_dev_get(struct hpu_fw_fabric *fab,
					    uint32_t index);
void hpusim_fabric_dev_put(struct hpu_fw_device *dev);
uint32_t hpusim_nic_peer(const struct hpusim_nic *n, uint32_t port,
			 uint32_t *far_port);
bool hpusim_nic_port_up(const struct hpusim_nic *n, uint32_t port);
void hpusim_nic_event(struct hpu_fw_device *dev, void *cookie, uint32_t type,
		      uint32_t port, uint64_t key, uint64_t offset,
		      uint64_t size);
uint64_t hpusim_random_id(void);

/* Answers of a scale-out write (struct hpusim_queue.nic_status) */
#define HPUSIM_NIC_ST_PENDING 1

/* nic_keys.c */
int hpusim_keygen_init(struct hpusim_keygen *kg);
void hpusim_keygen_seed(struct hpusim_keygen *kg, uint64_t seed);
int hpusim_keygen_next(struct hpusim_keygen *kg, uint64_t *out);

/*
 * Ids of an address space (region handles, connection and acceptance
 * ids; nic_mr.c, nic_conn.c, nic.c): a sequence number above a slot
 * value. Slot values: a region's slot + 1; a connection's slot + 1; an
 * acceptance's HPU_NIC_MAX_CONNS + slot + 1, so DISCONNECT tells the two
 * apart.
 */
#define NIC_ID_SLOT_BITS 10
#define NIC_ID_SLOT_MASK ((1U << NIC_ID_SLOT_BITS) - 1)
#define NIC_ACC_BASE	 HPU_NIC_MAX_CONNS

_Static_assert(HPU_NIC_MAX_CONNS + HPU_NIC_MAX_ACCEPTS < 1U << NIC_ID_SLOT_BITS,
	       "slot values fit their bits");
_Static_assert(HPU_NIC_MAX_MRS < 1U << NIC_ID_SLOT_BITS,
	       "slot values fit their bits");

/* A new id of @na for slot value @slotval; nic lock held */
static inline uint32_t new_id(struct hpusim_nic_as *na, uint32_t slotval)
{
	HPU_ASSERT_HELD(&na->lock);

	na->next_id++;
	if (na->next_id >= 1U << (32 - NIC_ID_SLOT_BITS))
		na->next_id = 1;
	return na->next_id << NIC_ID_SLOT_BITS | slotval;
}

/* Slot of @id in a table of @nslots starting at slot value @base, or -1 */
static inline int id_slot(uint32_t id, uint32_t base, uint32_t nslots)
{
	uint32_t v = id & NIC_ID_SLOT_MASK;

	if (!id || v <= base || v - base - 1 >= nslots)
		return -1;
	return (int)(v - base - 1);
}

/* Slot of connection @id, or -1; nic lock held */
static inline int conn_slot(const struct hpusim_nic_as *na, uint32_t id)
{
	int slot = id_slot(id, 0, HPU_NIC_MAX_CONNS);

	if (slot < 0 || na->conns[slot].id != id)
		return -1;
	return slot;
}

/* nic_mr.c */
int hpusim_nic_target(struct hpu_fw_device *dev, uint64_t token, uint64_t key,
		      struct hpusim_mr **mr, struct hpusim_acc **acc);
void hpusim_nic_denied(struct hpu_fw_device *dev, uint32_t port,
		       struct hpusim_mr *mr, struct hpusim_acc *acc,
		       uint64_t key, uint64_t offset, uint64_t size);
void hpusim_mr_put(struct hpu_fw_device *dev, struct hpusim_mr *mr);
void hpusim_nic_seed_keys(struct hpu_fw_device *dev, uint64_t seed);
void *hpusim_nic_cookie(struct hpu_fw_as *as);
int hpusim_nic_reachable(struct hpu_fw_as *as, uint64_t va, uint64_t len,
			 uint64_t *fault_va);
int hpusim_nic_unaccept(struct hpu_fw_as *as, uint32_t id);

/* nic.c */
int hpusim_nic_copy_in(struct hpu_fw_as *as, uint64_t va, const uint8_t *src,
		       uint64_t len);
int hpusim_nic_copy_out(struct hpu_fw_as *as, uint64_t va, uint8_t *dst,
			uint64_t len, uint64_t *fault_va);
int hpusim_nic_signal(struct hpu_fw_as *as, uint32_t sob_id,
		      uint32_t sob_value);

/* nic_so_*.c (their shared internals: nic_so.h) */
int hpusim_so_create(struct hpu_fw_fabric *fab, const char *addr);
void hpusim_so_destroy(struct hpu_fw_fabric *fab);
void hpusim_so_addr(struct hpu_fw_fabric *fab, uint32_t *ipv4, uint16_t *port);
int hpusim_so_connect(struct hpu_fw_fabric *fab, uint32_t ipv4, uint16_t port,
		      uint32_t remote_device, struct hpusim_so_peer **out);
void hpusim_so_peer_get(struct hpusim_so_peer *peer);
void hpusim_so_peer_put(struct hpusim_so_peer *peer);
bool hpusim_so_peer_alive(struct hpusim_so_peer *peer);
int hpusim_so_write(struct hpusim_so_peer *peer, struct hpu_fw_as *as,
		    struct hpusim_queue *q, const struct hpusim_nic_conn *c,
		    const struct hpu_pkt_nic_write *p, uint64_t *fault_va);
void hpusim_so_purge(struct hpu_fw_fabric *fab, struct hpu_fw_device *dev);
void hpusim_so_forget(struct hpu_fw_fabric *fab, const struct hpusim_queue *q);
int hpusim_so_serve(struct hpu_fw_fabric *fab, int fd, const char *name);

#endif /* HPUSIM_NIC_H */
