// SPDX-License-Identifier: MIT
/*
 * comm.c - a communicator's life: init (device, SOBs, inbox, then the
 * peers: comm_peers.c), the init and destroy barriers, the report of a
 * failed step, teardown, abort. The environment is comm_env.c's, the
 * errors comm_errors.c's, the ids and the store servers they name
 * unique_id.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_store.h"
#include "comm.h"
#include "hpu_abi.h"

/* SOBs of the block start at 0: a CS sets them (a reused block may hold
 * leftovers of an aborted communicator). */
static int reset_sobs(struct hpuccl_comm *c)
{
	uint32_t st = 0, i;
	uint64_t seq;
	int ret = 0;

	for (i = 0; i < c->sob_count && !ret; i++)
		ret = hpu_cb_msg_long(c->tpc_cb, c->sob_base + i,
				      HPU_MSG_OP_SET, 0);
	if (!ret)
		ret = hpu_cb_builder_submit(c->tpc_cb, c->tpc_q, 0,
					    c->timeout_ms, &seq, NULL);
	hpu_cb_builder_reset(c->tpc_cb);
	if (!ret)
		ret = hpu_cs_wait(c->dev, seq, (uint64_t)c->timeout_ms * 1000,
				  &st);
	if (!ret && st != HPU_WAIT_CS_STATUS_COMPLETED)
		ret = -EIO;
	return ret;
}

/**
 * struct init_step - where a communicator's init is, for the message of
 * a failure
 * @what: the step ("connect to the store", "exchange" ...)
 * @peer: the rank the step waited for, -1 when none
 */
struct init_step {
	const char *what;
	int peer;
};

/*
 * Say on stderr why rank @c->rank could not init or destroy @c (the
 * caller only gets an errno): the step, the rank it waited for, the rank
 * the store saw leave, how many ranks reached the barrier.
 */
static void report_failure(const struct hpuccl_comm *c, const char *phase,
			   const struct init_step *at, int arrived, int err)
{
	char peer[48] = "", bar[48] = "", why[96] = "";
	int gone = c->store ? ccl_store_left_rank(c->store) : -1;

	if (at->peer >= 0)
		snprintf(peer, sizeof(peer), " (waiting for rank %d)",
			 at->peer);
	if (arrived >= 0)
		snprintf(bar, sizeof(bar), " (%d of %d ranks arrived)", arrived,
			 c->nranks);
	if (err == -ETIMEDOUT)
		snprintf(why, sizeof(why), " after the timeout of %u ms",
			 c->timeout_ms);
	else if (err == -ECONNRESET && gone >= 0)
		snprintf(why, sizeof(why),
			 ": rank %d went away without destroying its "
			 "communicator",
			 gone);
	fprintf(stderr,
		"hpuccl: rank %d/%d, communicator %s: %s failed at %s%s%s: "
		"%s%s\n",
		c->rank, c->nranks, c->ns, phase, at->what, peer, bar,
		hpuccl_strerror(err), why);
}

/* "connecting to the rendezvous store at IP:PORT" of @w into @buf */
static const char *store_step(char *buf, size_t len, const struct ccl_id *w)
{
	struct in_addr a = { .s_addr = w->ipv4 };
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	snprintf(buf, len, "connecting to the rendezvous store at %s:%u", ip,
		 (unsigned int)w->port);
	return buf;
}

static int setup_inbox(struct hpuccl_comm *c)
{
	uint64_t size = (uint64_t)c->nranks * CCL_WINDOW * c->slot_bytes;
	int ret;

	ret = hpu_mem_alloc(c->dev, size, 0, 0, &c->inbox_handle);
	if (ret)
		return ret;
	ret = hpu_mem_map(c->dev, c->inbox_handle, 0, 0, &c->inbox_va);
	if (ret)
		goto err_free;
	ret = hpu_nic_register(c->dev, c->inbox_va, size, &c->inbox_mr,
			       &c->inbox_key);
	if (ret)
		goto err_unmap;
	return 0;
err_unmap:
	hpu_mem_unmap(c->dev, c->inbox_va);
	c->inbox_va = 0;
err_free:
	hpu_mem_free(c->dev, c->inbox_handle);
	c->inbox_handle = 0;
	return ret;
}

/* Release every resource; @clean: the ranks left together (else abort). */
static void teardown(struct hpuccl_comm *c, bool clean)
{
	int p, q;

	for (p = 0; c->peers && p < c->nranks; p++) {
		if (c->peers[p].conn)
			hpu_nic_disconnect(c->dev, c->peers[p].conn);
		if (c->peers[p].accept)
			hpu_nic_disconnect(c->dev, c->peers[p].accept);
	}
	if (c->inbox_mr)
		hpu_nic_dereg_mr(c->dev, c->inbox_mr);
	ccl_zc_release(c);
	/* aborted work ends by its timeout at the latest */
	if (!clean)
		ccl_wait_all(c);
	if (c->inbox_va)
		hpu_mem_unmap(c->dev, c->inbox_va);
	if (c->inbox_handle)
		hpu_mem_free(c->dev, c->inbox_handle);
	for (q = 0; c->queues && q < c->nqueues; q++)
		hpu_cb_builder_destroy(c->queues[q].cb);
	hpu_cb_builder_destroy(c->tpc_cb);
	if (c->sob_count)
		hpu_sob_free(c->dev, c->sob_base, c->sob_count);
	ccl_store_close(c->store, clean);
	if (c->server)
		ccl_server_unref(c->server, clean ? (int)c->timeout_ms : 1000);
	if (c->own_dev)
		hpu_close(c->dev);
	free(c->queues);
	free(c->peers);
	free(c->zc_key);
	free(c->zc_off);
	free(c->server_of);
	free(c->local_of);
	free(c);
}

static int init_device_side(struct hpuccl_comm *c, struct init_step *at)
{
	struct hpu_info_hw_ip_info hw;
	struct hpu_info_nic nic;
	unsigned int rr;
	int ret;

	at->what = "the device's INFO";
	ret = hpu_info_hw_ip(c->dev, &hw);
	if (!ret)
		ret = hpu_info_nic(c->dev, &nic);
	if (ret)
		return ret;
	if (!hw.num_tpc)
		return -ENODEV;
	rr = ccl_tpc_next();
	c->tpc_q = hw.num_dma + hw.num_mme + rr % hw.num_tpc;
	at->what = "the device's SOBs and inbox";
	ret = hpu_cb_builder_create(c->dev, CCL_CB_BYTES, &c->tpc_cb);
	if (ret)
		return ret;
	c->sob_count = 2 * (uint32_t)c->nranks + (uint32_t)c->nranks;
	/* libhpudrv shares the handle's SOBs out (with its streams' fences) */
	ret = hpu_sob_alloc(c->dev, c->sob_count, &c->sob_base);
	if (ret) {
		c->sob_count = 0;
		return ret;
	}
	ret = reset_sobs(c);
	if (!ret && c->nranks > 1)
		ret = setup_inbox(c);
	if (ret)
		return ret;
	at->what = "the exchange of the ranks' addresses";
	ret = ccl_peers_exchange(c, &nic, &at->peer);
	if (ret)
		return ret;
	at->what = "the topology";
	ret = ccl_peers_topology(c);
	at->what = "the NIC connections to the peers";
	if (!ret && c->nranks > 1) {
		uint64_t *tokens = calloc((size_t)c->nranks, sizeof(*tokens));

		ret = tokens ? ccl_peers_connect(c, &nic, &hw, tokens) :
			       -ENOMEM;
		if (!ret) {
			at->what = "the acceptance of the peers' connections";
			ret = ccl_peers_accept(c, tokens);
		}
		free(tokens);
	}
	return ret;
}

/* hpuccl_comm_init_rank_config() since HPUCCL_1.1: a config with a size */
HPU_SYMVER_DEFAULT(hpuccl_comm_init_rank_config_v1_1,
		   hpuccl_comm_init_rank_config, "HPUCCL_1.1");

int hpuccl_comm_init_rank_config_v1_1(struct hpuccl_comm **comm, int nranks,
				      const struct hpuccl_unique_id *id,
				      int rank, const struct hpuccl_config *cfg)
{
	struct hpu_device *cfg_dev;
	struct init_step at = { "opening the device", -1 };
	char store_at[80], open_at[HPU_PATH_LEN];
	struct hpuccl_comm *c;
	int ret, arrived = -1;
	struct ccl_id w;

	if (!comm || !id || nranks < 1 || rank < 0 || rank >= nranks ||
	    nranks > HPU_NUM_SOBS / 3)
		return -EINVAL;
	ret = hpu_opts_check(cfg, hpu_offsetofend(struct hpuccl_config, flags));
	if (ret)
		return ret;
	if (HPU_OPTS_GET(cfg, flags, 0))
		return -EINVAL;
	cfg_dev = HPU_OPTS_GET(cfg, dev, NULL);
	ret = ccl_id_parse(id, &w);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->nranks = nranks;
	c->rank = rank;
	c->timeout_ms = ccl_env_timeout(HPU_OPTS_GET(cfg, timeout_ms, 0));
	c->slot_bytes = ccl_env_slot_bytes();
	c->zc_bytes = ccl_env_zcopy_bytes();
	c->algo = ccl_algo_parse(getenv("HPUCCL_ALGO"));
	c->debug = getenv("HPUCCL_DEBUG") && *getenv("HPUCCL_DEBUG");
	if (c->algo < 0) {
		free(c);
		return -EINVAL;
	}
	snprintf(c->ns, sizeof(c->ns), "%016llx", (unsigned long long)w.nonce);
	c->peers = calloc((size_t)nranks, sizeof(*c->peers));
	c->zc_key = calloc((size_t)nranks, sizeof(*c->zc_key));
	c->zc_off = calloc((size_t)nranks, sizeof(*c->zc_off));
	if (!c->peers || !c->zc_key || !c->zc_off) {
		free(c->peers);
		free(c->zc_key);
		free(c->zc_off);
		free(c);
		return -ENOMEM;
	}
	c->server = ccl_server_ref(w.ipv4, w.port);
	if (cfg_dev) {
		c->dev = cfg_dev;
	} else {
		ret = ccl_env_open_device(&c->dev);
		if (ret) {
			/* why: a bad selection variable, the holder of a busy device */
			if (hpu_last_error()) {
				snprintf(open_at, sizeof(open_at),
					 "opening the device (%s)",
					 hpu_last_error());
				at.what = open_at;
			}
			goto err_teardown;
		}
		c->own_dev = true;
	}
	at.what = store_step(store_at, sizeof(store_at), &w);
	ret = ccl_store_connect(w.ipv4, w.port, c->ns, (int)c->timeout_ms,
				&c->store);
	if (ret)
		goto err_teardown;
	at.what = "announcing the rank to the store";
	ret = ccl_store_hello(c->store, rank);
	if (!ret)
		ret = init_device_side(c, &at);
	if (!ret) {
		at.what = "the init barrier";
		ret = ccl_store_barrier(c->store, "init", nranks,
					(int)c->timeout_ms, &arrived);
	}
	if (ret)
		goto err_teardown;
	*comm = c;
	return 0;
err_teardown:
	report_failure(c, "init", &at, arrived, ret);
	teardown(c, false);
	return ret;
}

HPUCCL_EXPORT int hpuccl_comm_init_rank(struct hpuccl_comm **comm, int nranks,
					const struct hpuccl_unique_id *id,
					int rank)
{
	return hpuccl_comm_init_rank_config_v1_1(comm, nranks, id, rank, NULL);
}

HPUCCL_EXPORT int hpuccl_comm_destroy(struct hpuccl_comm *comm)
{
	int ret;

	if (!comm)
		return 0;
	ret = ccl_wait_all(comm);
	if (ret)
		ccl_set_error(comm, ret);
	ret = ccl_full_check(comm);
	/* nobody writes into our inbox once every rank got here */
	if (!ret && comm->nranks > 1) {
		struct init_step at = { "the destroy barrier", -1 };
		int arrived = -1;

		ret = ccl_store_barrier(comm->store, "destroy", comm->nranks,
					(int)comm->timeout_ms, &arrived);
		if (ret)
			report_failure(comm, "destroy", &at, arrived, ret);
	}
	teardown(comm, ret == 0);
	return ret;
}

HPUCCL_EXPORT int hpuccl_comm_abort(struct hpuccl_comm *comm)
{
	if (comm)
		teardown(comm, false);
	return 0;
}

HPUCCL_EXPORT int hpuccl_comm_count(const struct hpuccl_comm *comm)
{
	return comm ? comm->nranks : -EINVAL;
}

HPUCCL_EXPORT int hpuccl_comm_rank(const struct hpuccl_comm *comm)
{
	return comm ? comm->rank : -EINVAL;
}

HPUCCL_EXPORT struct hpu_device *
hpuccl_comm_device(const struct hpuccl_comm *comm)
{
	return comm ? comm->dev : NULL;
}
