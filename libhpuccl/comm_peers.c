// SPDX-License-Identifier: MIT
/*
 * comm_peers.c - how the ranks of a communicator find and reach each
 * other at init: the exchange of their entries through the store, the
 * servers they are on, the NIC queues and connections to the peers and
 * the acceptance of theirs (docs/collectives.md "Bootstrap")
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccl_store.h"
#include "comm.h"

/* What every rank publishes in the store at init */
struct rank_info {
	uint64_t server_id;
	uint32_t device;
	uint32_t so_ipv4;
	uint32_t so_port;
	uint32_t sob_base;
	uint64_t key;
	uint32_t nranks;
	uint64_t slot_bytes;
	uint32_t window;
	uint32_t algo;
	uint64_t zc_bytes;
};

/* Publish this rank's entry, read everybody's. */
int ccl_peers_exchange(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
		       int *waiting)
{
	struct rank_info me = {
		.server_id = nic->server_id,
		.device = nic->device_index,
		.so_ipv4 = nic->scaleout_ipv4,
		.so_port = nic->scaleout_port,
		.key = c->inbox_key,
		.sob_base = c->sob_base,
		.nranks = (uint32_t)c->nranks,
		.slot_bytes = c->slot_bytes,
		.window = CCL_WINDOW,
		.algo = (uint32_t)c->algo,
		.zc_bytes = c->zc_bytes,
	};
	char key[32];
	int p, ret;

	snprintf(key, sizeof(key), "rank/%d", c->rank);
	ret = ccl_store_set(c->store, key, &me, sizeof(me));
	if (ret)
		return ret;
	for (p = 0; p < c->nranks; p++) {
		struct rank_info ri;
		size_t len = 0;

		*waiting = p;
		snprintf(key, sizeof(key), "rank/%d", p);
		ret = ccl_store_get(c->store, key, &ri, sizeof(ri), &len,
				    (int)c->timeout_ms);
		if (ret)
			return ret;
		if (len != sizeof(ri) || ri.nranks != (uint32_t)c->nranks ||
		    ri.slot_bytes != c->slot_bytes || ri.window != CCL_WINDOW ||
		    ri.algo != (uint32_t)c->algo ||
		    ri.zc_bytes != c->zc_bytes || (!ri.key && c->nranks > 1) ||
		    ri.sob_base >= HPU_NUM_SOBS)
			return -EINVAL;
		c->peers[p] = (struct ccl_peer){ .server_id = ri.server_id,
						 .device = ri.device,
						 .so_ipv4 = ri.so_ipv4,
						 .so_port = ri.so_port,
						 .key = ri.key,
						 .sob_base = ri.sob_base };
	}
	*waiting = -1;
	return 0;
}

/* Servers of the ranks, in order of first appearance, and each rank's
 * index inside its server */
int ccl_peers_topology(struct hpuccl_comm *c)
{
	int n = c->nranks, p, q, count;

	c->server_of = calloc((size_t)n, sizeof(*c->server_of));
	c->local_of = calloc((size_t)n, sizeof(*c->local_of));
	if (!c->server_of || !c->local_of)
		return -ENOMEM;
	c->nservers = 0;
	for (p = 0; p < n; p++) {
		for (q = 0; q < p; q++)
			if (c->peers[q].server_id == c->peers[p].server_id)
				break;
		if (q < p) {
			c->server_of[p] = c->server_of[q];
		} else {
			c->server_of[p] = c->nservers++;
		}
		for (count = 0, q = 0; q < p; q++)
			if (c->server_of[q] == c->server_of[p])
				count++;
		c->local_of[p] = count;
	}
	/* the hierarchical schedules need as many ranks on every server */
	c->nlocal = n % c->nservers ? 0 : n / c->nservers;
	for (p = 0; p < n && c->nlocal; p++) {
		for (count = 0, q = 0; q < n; q++)
			if (c->server_of[q] == c->server_of[p])
				count++;
		if (count != c->nlocal)
			c->nlocal = 0;
	}
	return 0;
}

int ccl_peers_connect(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
		      const struct hpu_info_hw_ip_info *hw, uint64_t *tokens)
{
	uint32_t so_ports[64];
	int nso = 0, p, q;
	uint32_t i;

	for (i = 0; i < nic->num_ports && i < 64; i++)
		if (nic->scaleout_ports_mask & (1ULL << i))
			so_ports[nso++] = i;
	c->queues = calloc((size_t)c->nranks, sizeof(*c->queues));
	if (!c->queues)
		return -ENOMEM;
	for (p = 0; p < c->nranks; p++) {
		struct ccl_peer *pe = &c->peers[p];
		struct hpu_nic_peer np = { 0 };
		uint32_t port;
		int ret;

		if (p == c->rank)
			continue;
		if (pe->server_id == nic->server_id) {
			if (pe->device == nic->device_index)
				return -EINVAL; /* two ranks on one device */
			ret = hpu_nic_scaleup_port(nic, pe->device);
			if (ret < 0)
				return -EINVAL;
			port = (uint32_t)ret;
			np.device = pe->device;
		} else {
			if (!nso || !pe->so_ipv4)
				return -EHOSTUNREACH;
			port = so_ports[p % nso];
			np.ipv4 = pe->so_ipv4;
			np.tcp_port = (uint16_t)pe->so_port;
			np.device = pe->device;
		}
		np.port = port;
		for (q = 0; q < c->nqueues; q++)
			if (c->queues[q].port == port)
				break;
		if (q == c->nqueues) {
			c->queues[q].port = port;
			c->queues[q].qidx =
				hw->num_dma + hw->num_mme + hw->num_tpc + port;
			ret = hpu_cb_builder_create(c->dev, CCL_CB_BYTES,
						    &c->queues[q].cb);
			if (ret)
				return ret;
			c->nqueues++;
		}
		pe->queue = q;
		ret = hpu_nic_connect_token(c->dev, &np, &pe->conn, &tokens[p]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Every rank's inbox takes writes only over connections it accepted
 * (docs/nic.md "Protection domains"): publish the token of each of our
 * connections, read the token of each peer's connection to us, accept
 * it. The init barrier after this keeps every write behind every accept.
 */
int ccl_peers_accept(struct hpuccl_comm *c, const uint64_t *tokens)
{
	size_t bytes = (size_t)c->nranks * sizeof(*tokens), len = 0;
	uint64_t *theirs;
	char key[32];
	int p, ret;

	theirs = malloc(bytes);
	if (!theirs)
		return -ENOMEM;
	snprintf(key, sizeof(key), "tok/%d", c->rank);
	ret = ccl_store_set(c->store, key, tokens, bytes);
	for (p = 0; !ret && p < c->nranks; p++) {
		if (p == c->rank)
			continue;
		snprintf(key, sizeof(key), "tok/%d", p);
		ret = ccl_store_get(c->store, key, theirs, bytes, &len,
				    (int)c->timeout_ms);
		if (!ret && (len != bytes || !theirs[c->rank]))
			ret = -EINVAL;
		if (!ret)
			ret = hpu_nic_accept(c->dev, theirs[c->rank],
					     &c->peers[p].accept);
	}
	free(theirs);
	return ret;
}
