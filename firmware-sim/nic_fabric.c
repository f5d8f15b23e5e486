// SPDX-License-Identifier: MIT
/*
 * nic_fabric.c - a server (fabric): its id, the devices that joined it,
 * the scale-up wiring between them (docs/nic.md "Servers and wiring"),
 * port link state, HPU_INFO_NIC and NIC events.
 *
 * Wiring: with S scale-up ports (all but the last 3) and D devices, each
 * device has k = S / (D - 1) ports to each peer; port p < k(D-1) of
 * device d links to peer slot j = p / k (device j < d ? j : j + 1), and
 * lands on port d' * k + p % k of the peer, d' being d's slot there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nic.h"

uint64_t hpusim_random_id(void)
{
	uint64_t id = 0;

	while (!id) {
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = ((uint64_t)rand() << 32) ^ (uint64_t)rand();
	}
	return id;
}

int hpusim_fabric_create(const struct hpu_fw_fabric_config *cfg,
			 struct hpu_fw_fabric **out)
{
	struct hpu_fw_fabric *fab;
	int ret;

	if (!cfg || !out || !cfg->num_devices ||
	    cfg->num_devices > HPUSIM_FABRIC_MAX_DEVICES)
		return -EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -ENOMEM;
	fab->server_id = hpusim_random_id();
	fab->num_devices = cfg->num_devices;
	ret = -pthread_mutex_init(&fab->lock, NULL);
	if (ret)
		goto err_free_fab;
	ret = -pthread_cond_init(&fab->cond, NULL);
	if (ret)
		goto err_destroy_lock;
	if (cfg->scaleout_addr) {
		ret = hpusim_so_create(fab, cfg->scaleout_addr);
		if (ret)
			goto err_destroy_cond;
	}
	*out = fab;
	return 0;

err_destroy_cond:
	pthread_cond_destroy(&fab->cond);
err_destroy_lock:
	pthread_mutex_destroy(&fab->lock);
err_free_fab:
	free(fab);
	return ret;
}

void hpusim_fabric_destroy(struct hpu_fw_fabric *fab)
{
	if (!fab)
		return;
	hpusim_so_destroy(fab);
	pthread_cond_destroy(&fab->cond);
	pthread_mutex_destroy(&fab->lock);
	free(fab);
}

void hpusim_fabric_addr(struct hpu_fw_fabric *fab, uint32_t *ipv4,
			uint16_t *port)
{
	if (ipv4)
		*ipv4 = 0;
	if (port)
		*port = 0;
	if (fab)
		hpusim_so_addr(fab, ipv4, port);
}

/**
 * hpusim_fabric_dev_get() - hold the device of index @index in @fab
 * @fab: fabric, or NULL
 * @index: device index
 *
 * Return: the device (release with hpusim_fabric_dev_put()), or NULL when
 * no such device is in the fabric.
 */
struct hpu_fw_device *hpusim_fabric_dev_get(struct hpu_fw_fabric *fab,
					    uint32_t index)
{
	struct hpu_fw_device *dev = NULL;

	if (!fab || index >= HPUSIM_FABRIC_MAX_DEVICES)
		return NULL;
	pthread_mutex_lock(&fab->lock);
	dev = fab->devs[index];
	if (dev)
		dev->nic->users++;
	pthread_mutex_unlock(&fab->lock);
	return dev;
}

void hpusim_fabric_dev_put(struct hpu_fw_device *dev)
{
	struct hpu_fw_fabric *fab = dev->nic->fab;

	pthread_mutex_lock(&fab->lock);
	if (!--dev->nic->users)
		pthread_cond_broadcast(&fab->cond);
	pthread_mutex_unlock(&fab->lock);
}

/**
 * hpusim_nic_peer() - the device a scale-up port links to
 * @n: NICs of the device
 * @port: port
 * @far_port: out (may be NULL): the port of the peer at the far end
 *
 * Return: the peer's device index, or HPU_NIC_PEER_NONE (scale-out or
 * unwired port).
 */
uint32_t hpusim_nic_peer(const struct hpusim_nic *n, uint32_t port,
			 uint32_t *far_port)
{
	uint32_t d = n->dev->index, j, peer, slot;

	if (!n->k || port >= n->k * (n->fab->num_devices - 1))
		return HPU_NIC_PEER_NONE;
	j = port / n->k;
	peer = j < d ? j : j + 1;
	slot = d < peer ? d : d - 1;
	if (far_port)
		*far_port = slot * n->k + port % n->k;
	return peer;
}

/* Whether @port has a link at all: a wired scale-up or a scale-out port */
static bool nic_port_wired(const struct hpusim_nic *n, uint32_t port)
{
	return port >= n->nscaleup ||
	       hpusim_nic_peer(n, port, NULL) != HPU_NIC_PEER_NONE;
}

static uint64_t nic_wired_mask(const struct hpusim_nic *n)
{
	uint64_t m = 0;
	uint32_t p;

	for (p = 0; p < n->nports; p++)
		if (nic_port_wired(n, p))
			m |= 1ULL << p;
	return m;
}

/* Checked by every NIC write: this port only, not the whole mask */
bool hpusim_nic_port_up(const struct hpusim_nic *n, uint32_t port)
{
	uint64_t down = __atomic_load_n(&n->down, __ATOMIC_ACQUIRE);

	return port < n->nports && !(down >> port & 1) &&
	       nic_port_wired(n, port);
}

void hpusim_nic_event(struct hpu_fw_device *dev, void *cookie, uint32_t type,
		      uint32_t port, uint64_t key, uint64_t offset,
		      uint64_t size)
{
	struct hpu_fw_nic_event ev = {
		.type = type,
		.port = port,
		.key = key,
		.offset = offset,
		.size = size,
	};

	if (dev->cb.nic_event)
		dev->cb.nic_event(dev->cb.arg, cookie, &ev);
}

/* Join @fab as device @dev->index; checks the wiring rules */
static int fabric_join(struct hpu_fw_fabric *fab, struct hpu_fw_device *dev)
{
	struct hpusim_nic *n = dev->nic;
	int ret = 0;

	if (fab->num_devices > n->nscaleup + 1 ||
	    dev->index >= fab->num_devices)
		return -EINVAL;
	pthread_mutex_lock(&fab->lock);
	if (fab->devs[dev->index])
		ret = -EINVAL;
	else
		fab->devs[dev->index] = dev;
	pthread_mutex_unlock(&fab->lock);
	if (ret)
		return ret;
	n->fab = fab;
	n->k = fab->num_devices > 1 ? n->nscaleup / (fab->num_devices - 1) : 0;
	return 0;
}

/**
 * hpusim_nic_dev_init() - the NICs of a new device; join its fabric
 * @dev: device (profile, index and callbacks set)
 * @fab: fabric to join, or NULL
 *
 * Return: 0, -EINVAL (index taken or out of the wiring, too many
 * devices for the scale-up ports), -ENOMEM.
 */
int hpusim_nic_dev_init(struct hpu_fw_device *dev, struct hpu_fw_fabric *fab)
{
	struct hpusim_nic *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	n->dev = dev;
	n->nports = dev->profile->num_nic_ports;
	n->nscaleup = n->nports > HPUSIM_NIC_SCALEOUT_PORTS ?
			      n->nports - HPUSIM_NIC_SCALEOUT_PORTS :
			      0;
	n->server_id = hpusim_random_id();
	ret = hpusim_keygen_init(&n->keys);
	if (!ret)
		ret = hpusim_keygen_init(&n->tokens);
	if (ret)
		goto err_free_nic;
	ret = -pthread_mutex_init(&n->mr_lock, NULL);
	if (ret)
		goto err_free_nic;
	ret = -pthread_cond_init(&n->mr_cond, NULL);
	if (ret)
		goto err_destroy_lock;
	dev->nic = n;
	if (fab) {
		ret = fabric_join(fab, dev);
		if (ret)
			goto err_destroy_cond;
	}
	return 0;

err_destroy_cond:
	dev->nic = NULL;
	pthread_cond_destroy(&n->mr_cond);
err_destroy_lock:
	pthread_mutex_destroy(&n->mr_lock);
err_free_nic:
	free(n);
	return ret;
}

/**
 * hpusim_nic_dev_leave() - leave the fabric: peers no longer find @dev
 * @dev: device
 *
 * Returns once no peer's write holds the device.
 */
void hpusim_nic_dev_leave(struct hpu_fw_device *dev)
{
	struct hpusim_nic *n = dev->nic;
	struct hpu_fw_fabric *fab = n ? n->fab : NULL;

	if (!fab)
		return;
	pthread_mutex_lock(&fab->lock);
	if (fab->devs[dev->index] == dev)
		fab->devs[dev->index] = NULL;
	while (n->users)
		pthread_cond_wait(&fab->cond, &fab->lock);
	pthread_mutex_unlock(&fab->lock);
}

/**
 * hpusim_nic_dev_fini() - free the NICs of a device
 * @dev: device that left its fabric and has no address space left
 */
void hpusim_nic_dev_fini(struct hpu_fw_device *dev)
{
	struct hpusim_nic *n = dev->nic;

	if (!n)
		return;
	hpusim_nic_dev_leave(dev);
	if (n->fab)
		hpusim_so_purge(n->fab, dev);
	free(n->mrs);
	free(n->accs);
	pthread_cond_destroy(&n->mr_cond);
	pthread_mutex_destroy(&n->mr_lock);
	free(n);
	dev->nic = NULL;
}

void hpusim_nic_info(struct hpu_fw_device *dev, struct hpu_info_nic *out)
{
	struct hpusim_nic *n = dev->nic;
	uint64_t down = __atomic_load_n(&n->down, __ATOMIC_ACQUIRE);
	uint32_t p, ipv4 = 0;
	uint16_t port = 0;

	memset(out, 0, sizeof(*out));
	memset(out->port_peer, HPU_NIC_PEER_NONE, sizeof(out->port_peer));
	out->server_id = n->fab ? n->fab->server_id : n->server_id;
	out->ports_up_mask = nic_wired_mask(n) & ~down;
	for (p = n->nscaleup; p < n->nports; p++)
		out->scaleout_ports_mask |= 1ULL << p;
	out->tx_bytes = __atomic_load_n(&n->tx_bytes, __ATOMIC_RELAXED);
	out->rx_bytes = __atomic_load_n(&n->rx_bytes, __ATOMIC_RELAXED);
	out->num_ports = n->nports;
	out->device_index = dev->index;
	out->num_server_devices = n->fab ? n->fab->num_devices : 1;
	if (n->fab)
		hpusim_so_addr(n->fab, &ipv4, &port);
	out->scaleout_ipv4 = ipv4;
	out->scaleout_port = port;
	for (p = 0; p < n->nscaleup && p < sizeof(out->port_peer); p++)
		out->port_peer[p] = (uint8_t)hpusim_nic_peer(n, p, NULL);
}

/* Take @port of @n down or up; return true when it went down now */
static bool port_set(struct hpusim_nic *n, uint32_t port, bool up)
{
	uint64_t bit = 1ULL << port, old;

	if (up)
		old = __atomic_fetch_and(&n->down, ~bit, __ATOMIC_ACQ_REL);
	else
		old = __atomic_fetch_or(&n->down, bit, __ATOMIC_ACQ_REL);
	return !up && !(old & bit);
}

int hpusim_nic_set_link(struct hpu_fw_device *dev, uint32_t port, bool up)
{
	struct hpusim_nic *n;
	struct hpu_fw_device *peer = NULL;
	uint32_t idx, far = 0;
	bool went_down, far_down = false;

	if (!dev || !dev->nic || port >= dev->nic->nports)
		return -EINVAL;
	n = dev->nic;
	idx = hpusim_nic_peer(n, port, &far);
	if (idx != HPU_NIC_PEER_NONE)
		peer = hpusim_fabric_dev_get(n->fab, idx);
	went_down = port_set(n, port, up);
	if (peer)
		far_down = port_set(peer->nic, far, up);
	if (went_down)
		hpusim_nic_event(dev, NULL, HPU_EVENT_LINK_DOWN, port, 0, 0, 0);
	if (peer) {
		if (far_down)
			hpusim_nic_event(peer, NULL, HPU_EVENT_LINK_DOWN, far,
					 0, 0, 0);
		hpusim_fabric_dev_put(peer);
	}
	return 0;
}
