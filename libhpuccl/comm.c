// SPDX-License-Identifier: MIT
/*
 * comm.c - communicator setup (device, inbox, sync objects, topology,
 * NIC connections), teardown and asynchronous errors; the ids and the
 * store servers they name are unique_id.c's
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_internal.h"
#include "hpu_abi.h"
#include "ccl_store.h"

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

/* ------------------------------------------------- process-wide state */

/**
 * struct sob_map - SOBs the communicators of this process took on one
 * device handle
 * @dev: device handle
 * @used: bit per SOB
 * @next: list link
 */
struct sob_map {
	struct hpu_device *dev;
	uint64_t used[HPU_NUM_SOBS / 64];
	struct sob_map *next;
};

/* Protects sob_maps, tpc_rr */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sob_map *sob_maps;
static unsigned int tpc_rr;

static int sob_alloc(struct hpu_device *dev, uint32_t count, uint32_t *base)
{
	struct sob_map *m;
	int b, i, ret = -ENOSPC;

	pthread_mutex_lock(&g_lock);
	for (m = sob_maps; m && m->dev != dev; m = m->next)
		;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m) {
			ret = -ENOMEM;
			goto out;
		}
		m->dev = dev;
		m->next = sob_maps;
		sob_maps = m;
	}
	/* from the top, away from the SOBs an application numbers from 0 */
	for (b = HPU_NUM_SOBS - (int)count; b >= 0; b--) {
		for (i = 0; i < (int)count; i++)
			if (m->used[(b + i) / 64] & (1ULL << ((b + i) % 64)))
				break;
		if (i == (int)count)
			break;
	}
	if (b >= 0) {
		for (i = 0; i < (int)count; i++)
			m->used[(b + i) / 64] |= 1ULL << ((b + i) % 64);
		*base = (uint32_t)b;
		ret = 0;
	}
out:
	pthread_mutex_unlock(&g_lock);
	return ret;
}

static void sob_free(struct hpu_device *dev, uint32_t base, uint32_t count)
{
	struct sob_map **pm, *m;
	uint32_t i;
	bool empty = true;

	pthread_mutex_lock(&g_lock);
	for (pm = &sob_maps; *pm && (*pm)->dev != dev; pm = &(*pm)->next)
		;
	m = *pm;
	if (m) {
		for (i = base; i < base + count; i++)
			m->used[i / 64] &= ~(1ULL << (i % 64));
		for (i = 0; i < HPU_NUM_SOBS / 64; i++)
			if (m->used[i])
				empty = false;
		if (empty) {
			*pm = m->next;
			free(m);
		}
	}
	pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------ errors */

int ccl_set_error(struct hpuccl_comm *c, int err)
{
	if (err && !c->err)
		c->err = err;
	return c->err ? c->err : err;
}

/*
 * Whether @key is one of @c's: its inbox, a peer's inbox, a registered
 * buffer, a peer's buffer of the current zero-copy exchange. Keys are
 * never reused, so a refused write of an earlier communicator on this
 * device (a dead rank's writes can land after the survivors formed a new
 * one) names none of them. Key 0 (not given) counts as @c's.
 */
static bool comm_key(const struct hpuccl_comm *c, uint64_t key)
{
	int i;

	if (!key || key == c->inbox_key)
		return true;
	for (i = 0; c->peers && i < c->nranks; i++)
		if (c->peers[i].key == key ||
		    (c->zc_key && c->zc_key[i] == key))
			return true;
	for (i = 0; i < c->nregs; i++)
		if (c->regs[i].key == key)
			return true;
	return false;
}

/* Device events: a link down, or a bad remote access of @c's memory */
static int device_events(struct hpuccl_comm *c)
{
	struct hpu_event ev[16];
	int n, i, ret = 0;

	while ((n = hpu_event_read(c->dev, ev, 16)) > 0) {
		for (i = 0; i < n; i++) {
			if (ev[i].type == HPU_EVENT_LINK_DOWN)
				ret = -ENETDOWN;
			else if (ev[i].type == HPU_EVENT_NIC_ACCESS_ERR &&
				 !ret && comm_key(c, ev[i].data))
				ret = -EIO;
		}
		if (n < 16)
			break;
	}
	return ret;
}

int ccl_check_error(struct hpuccl_comm *c)
{
	if (c->err)
		return c->err;
	if (c->store && ccl_store_check(c->store))
		return ccl_set_error(c, -ECONNRESET);
	return 0;
}

/* Full check: also the status of the recent CSs and device events. */
static int full_check(struct hpuccl_comm *c)
{
	uint64_t i, first;
	int cs_err = 0, ev;

	if (c->err)
		return c->err;
	first = c->nrecent > CCL_RECENT ? c->nrecent - CCL_RECENT : 0;
	for (i = first; i < c->nrecent && !cs_err; i++) {
		uint32_t st = HPU_WAIT_CS_STATUS_COMPLETED;

		if (hpu_cs_wait(c->dev, c->recent[i % CCL_RECENT], 0, &st))
			continue;
		if (st == HPU_WAIT_CS_STATUS_TIMEDOUT)
			cs_err = -ETIMEDOUT;
		else if (st == HPU_WAIT_CS_STATUS_ABORTED)
			cs_err = -EIO;
	}
	ev = device_events(c);
	if (c->store && ccl_store_check(c->store))
		return ccl_set_error(c, -ECONNRESET);
	if (ev == -ENETDOWN)
		return ccl_set_error(c, ev);
	if (cs_err)
		return ccl_set_error(c, cs_err);
	return ccl_set_error(c, ev);
}

HPUCCL_EXPORT int hpuccl_comm_get_async_error(struct hpuccl_comm *comm)
{
	if (!comm)
		return -EINVAL;
	return full_check(comm);
}

/* ------------------------------------------------------------- setup */

/* The config's timeout, else HPUCCL_TIMEOUT_MS, else the default */
static uint32_t env_timeout(uint32_t cfg_ms)
{
	const char *e = getenv("HPUCCL_TIMEOUT_MS");
	unsigned long v;
	char *end;

	if (cfg_ms)
		return cfg_ms;
	if (e && *e) {
		v = strtoul(e, &end, 10);
		if (!*end && v > 0 && v <= 3600000)
			return (uint32_t)v;
	}
	return HPUCCL_DEFAULT_TIMEOUT_MS;
}

static int open_device(struct hpu_device **dev)
{
	const char *e = getenv("HPUCCL_DEVICE");
	struct hpu_device_info *list;
	int count, idx, ret;
	long v = 0;
	char *end;

	if (e && *e) {
		v = strtol(e, &end, 10);
		if (*end || v < 0 || v > 1 << 20)
			return -EINVAL;
		return hpu_open((int)v, dev);
	}
	e = getenv("LOCAL_RANK");
	if (e && *e) {
		v = strtol(e, &end, 10);
		if (*end || v < 0)
			return -EINVAL;
	}
	ret = hpu_device_list(&list, &count);
	if (ret)
		return ret;
	if (count <= 0) {
		hpu_device_list_free(list);
		return -ENODEV;
	}
	idx = list[v % count].index;
	hpu_device_list_free(list);
	return hpu_open(idx, dev);
}

static uint64_t env_slot_bytes(void)
{
	const char *e = getenv("HPUCCL_SLOT_BYTES");
	unsigned long long v;
	char *end;

	if (e && *e) {
		v = strtoull(e, &end, 0);
		if (!*end && v >= 4096 && v <= (64ULL << 20) && !(v % 4096))
			return v;
	}
	return CCL_DEFAULT_SLOT_BYTES;
}

static uint64_t env_zcopy_bytes(void)
{
	const char *e = getenv("HPUCCL_ZCOPY_BYTES");
	unsigned long long v;
	char *end;

	if (e && *e) {
		v = strtoull(e, &end, 0);
		if (!*end)
			return v ? v : UINT64_MAX; /* 0: never */
	}
	return CCL_DEFAULT_ZCOPY_BYTES;
}

/* Servers of the ranks, in order of first appearance, and each rank's
 * index inside its server */
static int setup_topology(struct hpuccl_comm *c)
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

static int setup_queues(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
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
static int accept_peers(struct hpuccl_comm *c, const uint64_t *tokens)
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

/* Publish this rank's entry, read everybody's. */
static int exchange(struct hpuccl_comm *c, const struct hpu_info_nic *nic,
		    struct init_step *at)
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

		at->peer = p;
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
	at->peer = -1;
	return 0;
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

int ccl_wait_all(struct hpuccl_comm *c)
{
	uint32_t st = HPU_WAIT_CS_STATUS_COMPLETED;
	int ret;

	if (!c->nrecent)
		return 0;
	ret = hpu_cs_wait(c->dev, c->recent[(c->nrecent - 1) % CCL_RECENT],
			  (uint64_t)c->timeout_ms * 1000 + 1000000, &st);
	if (ret)
		return ret;
	if (st == HPU_WAIT_CS_STATUS_BUSY)
		return -ETIMEDOUT;
	return 0;
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
		sob_free(c->dev, c->sob_base, c->sob_count);
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
	pthread_mutex_lock(&g_lock);
	rr = tpc_rr++;
	pthread_mutex_unlock(&g_lock);
	c->tpc_q = hw.num_dma + hw.num_mme + rr % hw.num_tpc;
	at->what = "the device's SOBs and inbox";
	ret = hpu_cb_builder_create(c->dev, CCL_CB_BYTES, &c->tpc_cb);
	if (ret)
		return ret;
	c->sob_count = 2 * (uint32_t)c->nranks + (uint32_t)c->nranks;
	ret = sob_alloc(c->dev, c->sob_count, &c->sob_base);
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
	ret = exchange(c, &nic, at);
	if (ret)
		return ret;
	at->what = "the topology";
	ret = setup_topology(c);
	at->what = "the NIC connections to the peers";
	if (!ret && c->nranks > 1) {
		uint64_t *tokens = calloc((size_t)c->nranks, sizeof(*tokens));

		ret = tokens ? setup_queues(c, &nic, &hw, tokens) : -ENOMEM;
		if (!ret) {
			at->what = "the acceptance of the peers' connections";
			ret = accept_peers(c, tokens);
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
	char store_at[80];
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
	c->timeout_ms = env_timeout(HPU_OPTS_GET(cfg, timeout_ms, 0));
	c->slot_bytes = env_slot_bytes();
	c->zc_bytes = env_zcopy_bytes();
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
		ret = open_device(&c->dev);
		if (ret)
			goto err_teardown;
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
	ret = full_check(comm);
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
