// SPDX-License-Identifier: MIT
/*
 * nic_conn.c - the connections of an address space: CONNECT (a scale-up
 * port wired to a device of this server, or a scale-out port and a remote
 * server's address) hands out a connection id and the token its peer
 * accepts; DISCONNECT drops a connection or an acceptance.
 */
#include <errno.h>
#include <string.h>

#include "nic.h"

int hpusim_nic_connect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
		       uint16_t tcp_port, uint32_t remote_device,
		       uint32_t *conn, uint64_t *token)
{
	struct hpusim_so_peer *peer = NULL;
	struct hpu_fw_device *rdev;
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	uint32_t i, slot = HPU_NIC_MAX_CONNS, id;
	bool remote = ipv4 || tcp_port;
	uint64_t tok;
	int ret;

	if (!as || !as->nic || !conn || !token)
		return -EINVAL;
	n = as->dev->nic;
	na = as->nic;
	if (port >= n->nports)
		return -EINVAL;
	if (!remote) {
		/* a scale-up port wired to that device of this server */
		if (port >= n->nscaleup ||
		    hpusim_nic_peer(n, port, NULL) != remote_device)
			return -EINVAL;
		rdev = hpusim_fabric_dev_get(n->fab, remote_device);
		if (!rdev)
			return -ENODEV;
		hpusim_fabric_dev_put(rdev);
		if (!hpusim_nic_port_up(n, port))
			return -ENETDOWN;
	} else {
		if (port < n->nscaleup)
			return -EINVAL;
		if (!hpusim_nic_port_up(n, port))
			return -ENETDOWN;
		if (!n->fab)
			return -EHOSTUNREACH;
	}

	pthread_mutex_lock(&na->lock);
	for (i = 0; i < HPU_NIC_MAX_CONNS && slot == HPU_NIC_MAX_CONNS; i++)
		if (!na->conns[i].id)
			slot = i;
	pthread_mutex_unlock(&na->lock);
	if (slot == HPU_NIC_MAX_CONNS)
		return -ENOSPC;

	if (remote) {
		ret = hpusim_so_connect(n->fab, ipv4, tcp_port, remote_device,
					&peer);
		if (ret)
			return ret;
	}

	pthread_mutex_lock(&n->mr_lock);
	ret = hpusim_keygen_next(&n->tokens, &tok);
	pthread_mutex_unlock(&n->mr_lock);
	pthread_mutex_lock(&na->lock);
	/* the slot may have been taken while we connected */
	if (!ret && na->conns[slot].id) {
		for (slot = 0; slot < HPU_NIC_MAX_CONNS; slot++)
			if (!na->conns[slot].id)
				break;
		if (slot == HPU_NIC_MAX_CONNS)
			ret = -ENOSPC;
	}
	if (ret) {
		pthread_mutex_unlock(&na->lock);
		if (peer)
			hpusim_so_peer_put(peer);
		return ret;
	}
	id = new_id(na, slot + 1);
	na->conns[slot] = (struct hpusim_nic_conn){
		.id = id,
		.port = port,
		.remote_device = remote_device,
		.token = tok,
		.peer = peer,
	};
	pthread_mutex_unlock(&na->lock);
	*conn = id;
	*token = tok;
	return 0;
}

int hpusim_nic_disconnect(struct hpu_fw_as *as, uint32_t id)
{
	struct hpusim_so_peer *peer;
	int slot;

	if (!as || !as->nic)
		return -EINVAL;
	if ((id & NIC_ID_SLOT_MASK) > NIC_ACC_BASE)
		return hpusim_nic_unaccept(as, id);
	pthread_mutex_lock(&as->nic->lock);
	slot = conn_slot(as->nic, id);
	if (slot < 0) {
		pthread_mutex_unlock(&as->nic->lock);
		return -ENOENT;
	}
	peer = as->nic->conns[slot].peer;
	memset(&as->nic->conns[slot], 0, sizeof(as->nic->conns[slot]));
	pthread_mutex_unlock(&as->nic->lock);
	if (peer)
		hpusim_so_peer_put(peer);
	return 0;
}
