// SPDX-License-Identifier: MIT
/*
 * test_fw_nic.c - the NIC engines of libhpusim through hpusim_model.ops:
 * scale-up wiring, memory registration, connections, NIC_WRITE with its
 * signal between two devices of one fabric, access errors, link faults,
 * scale-out between two fabrics of this process over 127.0.0.1, and
 * address spaces destroyed while peers write into them.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../lib/hpu_test_fw.h"
#include "../lib/hpu_test_wire.h"

#define MAX_EVENTS 256

/* A device with its own context, completions and NIC events */
struct ndev {
	struct hpu_test_fw f; /* first: the callbacks' arg is the record too */
	pthread_mutex_t lock;
	unsigned int nev;
	struct hpu_fw_nic_event ev[MAX_EVENTS];
	void *ev_cookie[MAX_EVENTS];
};

static void on_nic(void *arg, void *cookie, const struct hpu_fw_nic_event *ev)
{
	struct ndev *d = arg;

	pthread_mutex_lock(&d->lock);
	if (d->nev < MAX_EVENTS) {
		d->ev[d->nev] = *ev;
		d->ev_cookie[d->nev] = cookie;
	}
	d->nev++;
	pthread_mutex_unlock(&d->lock);
}

static const struct hpu_fw_profile *gaudi2(void)
{
	return hpu_fw_find_profile(&hpusim_model, "gaudi2");
}

static int ndev_create(struct ndev *d, struct hpu_fw_fabric *fab,
		       uint32_t index, const struct hpu_fw_profile *p)
{
	struct hpu_fw_config cfg = {
		.profile = p,
		.index = index,
		.fabric = fab,
		.cb = { .cs_done = hpu_test_fw_on_done,
			.engine_reset = hpu_test_fw_on_reset,
			.nic_event = on_nic,
			.arg = d },
	};
	int ret;

	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->f.rec.lock, NULL);
	pthread_cond_init(&d->f.rec.cond, NULL);
	pthread_mutex_init(&d->lock, NULL);
	ret = hpusim_model.ops->create(&cfg, &d->f.dev);
	if (ret)
		return ret;
	assert_int_equal(hpusim_model.ops->as_create(d->f.dev, &d->f.as), 0);
	hpusim_model.ops->as_set_cookie(d->f.as, d);
	d->f.dma0 = 0;
	d->f.dma1 = 1;
	return 0;
}

static void ndev_destroy(struct ndev *d)
{
	if (d->f.as)
		hpusim_model.ops->as_destroy(d->f.as);
	if (d->f.dev)
		hpusim_model.ops->destroy(d->f.dev);
	d->f.as = NULL;
	d->f.dev = NULL;
}

static uint32_t nic_queue(const struct ndev *d, uint32_t port)
{
	const struct hpu_fw_profile *p = d->f.dev->profile;

	return p->num_dma + p->num_mme + p->num_tpc + port;
}

/* Events of @type seen by @d with @cookie since event @from */
static unsigned int count_ev(struct ndev *d, unsigned int from, uint32_t type,
			     void *cookie, uint32_t port)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&d->lock);
	for (i = from; i < d->nev && i < MAX_EVENTS; i++)
		if (d->ev[i].type == type && d->ev_cookie[i] == cookie &&
		    (port == ~0U - 1 || d->ev[i].port == port))
			n++;
	pthread_mutex_unlock(&d->lock);
	return n;
}

#define ANY_PORT (~0U - 1)

static unsigned int nev(struct ndev *d)
{
	unsigned int n;

	pthread_mutex_lock(&d->lock);
	n = d->nev;
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* Shared host memory mapped into @d's context (reached like HBM) */
static uint8_t *shm_map(struct ndev *d, uint64_t size, uint64_t *va)
{
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	assert_int_equal(hpusim_model.ops->map_shared(d->f.as, p, size, 0,
						      false, va),
			 0);
	return p;
}

static void shm_unmap(struct ndev *d, uint8_t *p, uint64_t size, uint64_t va)
{
	assert_int_equal(hpusim_model.ops->unmap(d->f.as, va, NULL), 0);
	munmap(p, size);
}

static void cb_nic(struct hpu_test_cb *cb, uint64_t src, uint64_t off,
		   uint64_t size, uint32_t conn, uint64_t key, uint32_t sob,
		   uint32_t val)
{
	struct hpu_pkt_nic_write *p =
		hpu_test_cb_put(cb, HPU_PACKET_NIC_WRITE, sizeof(*p),
				val ? HPU_NIC_F_SIGNAL : 0);

	p->src_addr = src;
	p->remote_offset = off;
	p->size = size;
	p->conn = conn;
	p->rkey = key;
	p->sob_id = sob;
	p->sob_value = val;
}

/* First scale-up port of @d wired to device @peer */
static uint32_t port_to(struct ndev *d, uint32_t peer)
{
	struct hpu_info_nic info;
	uint32_t p;

	hpusim_model.ops->nic_info(d->f.dev, &info);
	for (p = 0; p < info.num_ports; p++)
		if (info.port_peer[p] == peer)
			return p;
	fail_msg("no port to device %u", peer);
	return 0;
}

/* ------------------------------------------------------ registrations */

/*
 * The model gives a handle (to revoke) and a key (what peers name); the
 * tests keep the key and find the handle here.
 */
static struct {
	struct hpu_fw_as *as;
	uint64_t key;
	uint32_t handle;
} regs[2048];
static unsigned int nregs;
/* token of the last connection nconnect() made */
static uint64_t last_token;

static int reg_mr(struct hpu_fw_as *as, uint64_t va, uint64_t size,
		  uint32_t flags, uint64_t *key)
{
	uint32_t h = 0;
	int ret = hpusim_model.ops->nic_reg_mr(as, va, size, flags, &h, key);

	if (!ret) {
		assert_true(h != 0 && *key != 0);
		assert_true(nregs < sizeof(regs) / sizeof(regs[0]));
		regs[nregs].as = as;
		regs[nregs].key = *key;
		regs[nregs].handle = h;
		nregs++;
	}
	return ret;
}

/* Revoke by key; an unknown (@as, @key) goes to the model as a handle */
static int dereg_mr(struct hpu_fw_as *as, uint64_t key)
{
	unsigned int i;

	for (i = 0; i < nregs; i++)
		if (regs[i].as == as && regs[i].key == key)
			return hpusim_model.ops->nic_dereg_mr(as,
							      regs[i].handle);
	return hpusim_model.ops->nic_dereg_mr(as, (uint32_t)key);
}

static int nconnect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
		    uint16_t tcp_port, uint32_t dev, uint32_t *conn)
{
	uint64_t token = 0;
	int ret = hpusim_model.ops->nic_connect(as, port, ipv4, tcp_port, dev,
						conn, &token);

	if (!ret) {
		assert_true(token != 0);
		last_token = token;
	}
	return ret;
}

/* @as accepts the last connection made */
static void accept_last(struct hpu_fw_as *as)
{
	uint32_t id;

	assert_int_equal(hpusim_model.ops->nic_accept(as, last_token, &id), 0);
	assert_true(id != 0);
}

/* ------------------------------------------------------ wiring */

static void check_wiring(uint32_t ndevs)
{
	struct hpu_fw_fabric_config fc = { .num_devices = ndevs };
	struct hpu_info_nic info[8];
	struct hpu_fw_fabric *fab;
	struct ndev *d = calloc(ndevs, sizeof(*d));
	uint32_t i, p, k = 21 / (ndevs - 1);

	assert_non_null(d);
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), 0);
	for (i = 0; i < ndevs; i++)
		assert_int_equal(ndev_create(&d[i], fab, i, gaudi2()), 0);
	for (i = 0; i < ndevs; i++) {
		hpusim_model.ops->nic_info(d[i].f.dev, &info[i]);
		assert_int_equal(info[i].num_ports, 24);
		assert_int_equal(info[i].device_index, i);
		assert_int_equal(info[i].num_server_devices, ndevs);
		assert_true(info[i].server_id != 0);
		assert_true(info[i].server_id == info[0].server_id);
		assert_int_equal(info[i].scaleout_ports_mask, 0x7ULL << 21);
		assert_int_equal(info[i].scaleout_ipv4, 0);
		assert_int_equal(info[i].scaleout_port, 0);
		for (p = 21; p < 64; p++)
			assert_int_equal(info[i].port_peer[p],
					 HPU_NIC_PEER_NONE);
	}
	for (i = 0; i < ndevs; i++) {
		for (p = 0; p < 21; p++) {
			uint32_t j = p / k, peer = j < i ? j : j + 1;
			uint32_t slot = i < peer ? i : i - 1;
			uint32_t far = slot * k + p % k;

			if (p >= k * (ndevs - 1)) {
				assert_int_equal(info[i].port_peer[p],
						 HPU_NIC_PEER_NONE);
				assert_false(info[i].ports_up_mask >> p & 1);
				continue;
			}
			assert_int_equal(info[i].port_peer[p], peer);
			/* the far end links back */
			assert_int_equal(info[peer].port_peer[far], i);
			assert_true(info[i].ports_up_mask >> p & 1);
		}
	}
	for (i = 0; i < ndevs; i++)
		ndev_destroy(&d[i]);
	hpusim_model.ops->fabric_destroy(fab);
	free(d);
}

static void test_wiring_gaudi2_8(void **state)
{
	(void)state;
	check_wiring(8); /* 3 ports per peer */
}

static void test_wiring_gaudi2_2(void **state)
{
	(void)state;
	check_wiring(2); /* all 21 scale-up ports to the one peer */
}

static void test_fabric_rules(void **state)
{
	struct hpu_fw_fabric_config fc = { .num_devices = 3 };
	struct hpu_fw_fabric *fab;
	struct ndev a, b;

	(void)state;
	fc.num_devices = 0;
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), -EINVAL);
	fc.num_devices = 65;
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), -EINVAL);
	fc.num_devices = 3;
	fc.scaleout_addr = "no-port";
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), -EINVAL);
	fc.scaleout_addr = NULL;
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), 0);
	assert_int_equal(ndev_create(&a, fab, 1, gaudi2()), 0);
	/* index taken, index outside the wiring */
	assert_int_equal(ndev_create(&b, fab, 1, gaudi2()), -EINVAL);
	assert_int_equal(ndev_create(&b, fab, 3, gaudi2()), -EINVAL);
	ndev_destroy(&a);
	/* the index is free again once its device is gone */
	assert_int_equal(ndev_create(&a, fab, 1, gaudi2()), 0);
	ndev_destroy(&a);
	hpusim_model.ops->fabric_destroy(fab);

	/* Gaudi: 7 scale-up ports wire at most 8 devices */
	fc.num_devices = 9;
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), 0);
	assert_int_equal(
		ndev_create(&a, fab, 0,
			    hpu_fw_find_profile(&hpusim_model, "gaudi")),
		-EINVAL);
	hpusim_model.ops->fabric_destroy(fab);
}

/* ------------------------------------------------------ registration */

static void test_reg_errors(void **state)
{
	struct ndev a, b;
	struct hpu_fw_mem *m;
	uint64_t k1, k2, k3, keys[HPU_NIC_MAX_MRS];
	uint64_t va, sva, hva;
	uint8_t *sp, *host = aligned_alloc(4096, 8192);
	unsigned int i;

	(void)state;
	assert_non_null(host);
	memset(host, 1, 8192);
	assert_int_equal(ndev_create(&a, NULL, 0, gaudi2()), 0);
	assert_int_equal(ndev_create(&b, NULL, 1, gaudi2()), 0);
	va = hpu_test_fw_map_dev(&a.f, 2 * MiB, &m);
	sp = shm_map(&a, 64 * KiB, &sva);
	hva = hpu_test_fw_map_host(&a.f, host, 8192);

	assert_int_equal(reg_mr(a.f.as, va, 4096, 0, &k1), -EINVAL);
	assert_int_equal(reg_mr(a.f.as, va, 4096, 3, &k1), -EINVAL);
	assert_int_equal(reg_mr(a.f.as, va, 0, HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EINVAL);
	assert_int_equal(reg_mr(a.f.as, ~0ULL - 10, 100,
				HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EINVAL);
	/* unmapped, past the mapping's end, pageable host memory */
	assert_int_equal(reg_mr(a.f.as, 0x1000, 4096, HPU_NIC_MR_REMOTE_WRITE,
				&k1),
			 -EFAULT);
	assert_int_equal(reg_mr(a.f.as, va, 2 * MiB + 1,
				HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EFAULT);
	assert_int_equal(reg_mr(a.f.as, hva, 4096, HPU_NIC_MR_REMOTE_WRITE,
				&k1),
			 -EFAULT);

	assert_int_equal(
		reg_mr(a.f.as, va, 2 * MiB, HPU_NIC_MR_REMOTE_WRITE, &k1), 0);
	assert_int_equal(
		reg_mr(a.f.as, sva, 64 * KiB, HPU_NIC_MR_REMOTE_WRITE, &k2), 0);
	assert_true(k1 && k2 && k1 != k2);
	/* another context cannot revoke it */
	assert_int_equal(dereg_mr(b.f.as, k1), -ENOENT);
	assert_int_equal(dereg_mr(a.f.as, 0), -ENOENT);
	assert_int_equal(dereg_mr(a.f.as, k1), 0);
	assert_int_equal(dereg_mr(a.f.as, k1), -ENOENT);
	assert_int_equal(reg_mr(a.f.as, va, 4096, HPU_NIC_MR_REMOTE_WRITE, &k3),
			 0);
	assert_true(k3 != k1 && k3 != k2); /* never reused */
	assert_int_equal(dereg_mr(a.f.as, k3), 0);

	/* the per-context limit */
	for (i = 1; i < HPU_NIC_MAX_MRS; i++)
		assert_int_equal(reg_mr(a.f.as, va, 4096,
					HPU_NIC_MR_REMOTE_WRITE, &keys[i]),
				 0);
	assert_int_equal(reg_mr(a.f.as, va, 4096, HPU_NIC_MR_REMOTE_WRITE, &k3),
			 -ENOSPC);
	/* another context has its own budget */
	assert_int_equal(reg_mr(b.f.as, 0x1000, 1, HPU_NIC_MR_REMOTE_WRITE,
				&k3),
			 -EFAULT);
	assert_int_equal(dereg_mr(a.f.as, keys[7]), 0);
	assert_int_equal(reg_mr(a.f.as, va, 4096, HPU_NIC_MR_REMOTE_WRITE, &k3),
			 0);

	hpu_test_fw_unmap_host(&a.f, hva);
	shm_unmap(&a, sp, 64 * KiB, sva);
	ndev_destroy(&a); /* revokes what is left */
	ndev_destroy(&b);
	free(host);
}

/* ------------------------------------------------------ two devices */

struct pair {
	struct hpu_fw_fabric *fab;
	struct ndev d[2];
	uint32_t port;	   /* port of device 0 to device 1 */
	uint32_t far_port; /* its far end */
	uint32_t conn;	   /* device 0's connection to device 1 */
	uint8_t *src, *dst;
	uint64_t src_va, dst_va;
	uint64_t key;	 /* device 1's region over dst */
	uint64_t token;	 /* of conn */
	uint32_t accept; /* device 1's acceptance of it */
};

#define PAIR_BYTES (8 * MiB)

static int pair_setup(void **state)
{
	struct hpu_fw_fabric_config fc = { .num_devices = 2 };
	struct pair *pr = calloc(1, sizeof(*pr));
	uint32_t i;

	if (!pr)
		return -1;
	if (hpusim_model.ops->fabric_create(&fc, &pr->fab))
		return -1;
	for (i = 0; i < 2; i++)
		if (ndev_create(&pr->d[i], pr->fab, i, gaudi2()))
			return -1;
	pr->port = 5;
	pr->far_port = 5; /* k = 21: port p of 0 lands on port p of 1 */
	pr->src = shm_map(&pr->d[0], PAIR_BYTES, &pr->src_va);
	pr->dst = shm_map(&pr->d[1], PAIR_BYTES, &pr->dst_va);
	hpu_test_fill_random(pr->src, PAIR_BYTES, 7);
	if (reg_mr(pr->d[1].f.as, pr->dst_va, PAIR_BYTES,
		   HPU_NIC_MR_REMOTE_WRITE, &pr->key) ||
	    nconnect(pr->d[0].f.as, pr->port, 0, 0, 1, &pr->conn))
		return -1;
	pr->token = last_token;
	if (hpusim_model.ops->nic_accept(pr->d[1].f.as, pr->token, &pr->accept))
		return -1;
	*state = pr;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *pr = *state;

	ndev_destroy(&pr->d[0]);
	ndev_destroy(&pr->d[1]);
	munmap(pr->src, PAIR_BYTES);
	munmap(pr->dst, PAIR_BYTES);
	hpusim_model.ops->fabric_destroy(pr->fab);
	free(pr);
	return 0;
}

/* One NIC_WRITE from device 0; return its CS result */
static enum hpu_fw_cs_result pair_write(struct pair *pr, uint64_t off,
					uint64_t src_off, uint64_t size,
					uint64_t key, uint32_t sob,
					uint32_t val)
{
	struct hpu_test_cb cb = { .len = 0 };

	cb_nic(&cb, pr->src_va + src_off, off, size, pr->conn, key, sob, val);
	return hpu_test_fw_run1(&pr->d[0].f, nic_queue(&pr->d[0], pr->port),
				&cb, NULL);
}

static void test_connect_errors(void **state)
{
	struct pair *pr = *state;
	struct hpu_fw_as *as = pr->d[0].f.as;
	struct hpu_fw_fabric_config fc = { .num_devices = 3 };
	struct hpu_fw_fabric *fab3;
	struct ndev x;
	uint32_t c, ids[HPU_NIC_MAX_CONNS];
	unsigned int i;

	assert_int_equal(nconnect(as, 24, 0, 0, 1, &c), -EINVAL);
	/* device 0 itself is not wired to itself */
	assert_int_equal(nconnect(as, 0, 0, 0, 0, &c), -EINVAL);
	assert_int_equal(nconnect(as, 0, 0, 0, 7, &c), -EINVAL);
	/* scale-out port to this server, scale-up port to another */
	assert_int_equal(nconnect(as, 22, 0, 0, 1, &c), -EINVAL);
	assert_int_equal(nconnect(as, 3, htonl(0x7f000001), 4000, 1, &c),
			 -EINVAL);
	/* no scale-out endpoint in this server */
	assert_int_equal(nconnect(as, 22, htonl(0x7f000001), 4000, 1, &c),
			 -EHOSTUNREACH);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, 12345), -ENOENT);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, 0), -ENOENT);

	/* port down */
	assert_int_equal(
		hpusim_model.ops->nic_set_link(pr->d[0].f.dev, 4, false), 0);
	assert_int_equal(nconnect(as, 4, 0, 0, 1, &c), -ENETDOWN);
	assert_int_equal(
		hpusim_model.ops->nic_set_link(pr->d[0].f.dev, 4, true), 0);
	assert_int_equal(nconnect(as, 4, 0, 0, 1, &c), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, c), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, c), -ENOENT);

	/* the limit: the fixture holds one already */
	for (i = 1; i < HPU_NIC_MAX_CONNS; i++) {
		assert_int_equal(nconnect(as, i % 21, 0, 0, 1, &ids[i]), 0);
		assert_true(ids[i] != 0 && ids[i] != pr->conn);
	}
	assert_int_equal(nconnect(as, 0, 0, 0, 1, &c), -ENOSPC);
	for (i = 1; i < HPU_NIC_MAX_CONNS; i++)
		assert_int_equal(hpusim_model.ops->nic_disconnect(as, ids[i]),
				 0);

	/* a device of the server that does not exist (yet) */
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab3), 0);
	assert_int_equal(ndev_create(&x, fab3, 0, gaudi2()), 0);
	assert_int_equal(nconnect(x.f.as, port_to(&x, 2), 0, 0, 2, &c),
			 -ENODEV);
	ndev_destroy(&x);
	hpusim_model.ops->fabric_destroy(fab3);
}

/* Write + signal; a FENCE on the receiver sees the data */
static void test_scaleup_write_signal(void **state)
{
	struct pair *pr = *state;
	struct ndev *rx = &pr->d[1];
	struct hpu_info_nic i0, i1;
	uint8_t *copy;
	uint64_t copy_va;
	struct hpu_test_cb cb = { .len = 0 };
	uint32_t v;
	unsigned int n1 = hpu_test_fw_ndone(&rx->f);

	copy = shm_map(rx, PAIR_BYTES, &copy_va);
	/* the receiver waits for SOB 9, then copies the region */
	hpu_test_cb_fence(&cb, 9, 2, 2);
	hpu_test_cb_dma(&cb, copy_va, pr->dst_va, PAIR_BYTES);
	hpu_test_fw_submit1(&rx->f, rx->f.dma0, &cb, (void *)0x77);
	usleep(10000);
	assert_int_equal(hpu_test_fw_ndone(&rx->f), n1); /* parked */

	/* two writes: a small one and a large one (parallel slices) */
	assert_int_equal(pair_write(pr, 3, 1, 1000, pr->key, 9, 1),
			 HPU_FW_CS_OK);
	assert_int_equal(pair_write(pr, 4096, 4096, PAIR_BYTES - 4096, pr->key,
				    9, 1),
			 HPU_FW_CS_OK);
	hpu_test_fw_wait_done(&rx->f, n1 + 1);
	assert_int_equal(hpu_test_fw_result_of(&rx->f, (void *)0x77, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(copy + 3, pr->src + 1, 1000);
	assert_memory_equal(copy + 4096, pr->src + 4096, PAIR_BYTES - 4096);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 9, &v), 0);
	assert_int_equal(v, 0);

	/* signal only, and a saturating add */
	assert_int_equal(pair_write(pr, 0, 0, 0, pr->key, 10,
				    HPU_SOB_MAX_VALUE),
			 HPU_FW_CS_OK);
	assert_int_equal(pair_write(pr, 0, 0, 0, pr->key, 10, 5), HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 10, &v), 0);
	assert_int_equal(v, HPU_SOB_MAX_VALUE);

	hpusim_model.ops->nic_info(pr->d[0].f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.tx_bytes, PAIR_BYTES - 4096 + 1000);
	assert_int_equal(i1.rx_bytes, PAIR_BYTES - 4096 + 1000);
	assert_int_equal(i0.rx_bytes, 0);
	shm_unmap(rx, copy, PAIR_BYTES, copy_va);
}

/* HBM on both sides: pieces of different extents */
static void test_scaleup_hbm(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0], *rx = &pr->d[1];
	struct hpu_fw_mem *ms, *md;
	uint64_t s, d, n = 5 * MiB + 123;
	struct hpu_test_cb cb = { .len = 0 };
	uint64_t key;

	s = hpu_test_fw_map_dev(&tx->f, 6 * MiB, &ms);
	d = hpu_test_fw_map_dev(&rx->f, 6 * MiB, &md);
	hpu_test_cb_dma(&cb, s, pr->src_va, 6 * MiB);
	assert_int_equal(hpu_test_fw_run1(&tx->f, tx->f.dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(
		reg_mr(rx->f.as, d, 6 * MiB, HPU_NIC_MR_REMOTE_WRITE, &key), 0);
	cb.len = 0;
	cb_nic(&cb, s + 7, 11, n, pr->conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, pr->port), &cb,
					  NULL),
			 HPU_FW_CS_OK);
	memset(pr->dst, 0, PAIR_BYTES);
	cb.len = 0;
	hpu_test_cb_dma(&cb, pr->dst_va, d, 6 * MiB);
	assert_int_equal(hpu_test_fw_run1(&rx->f, rx->f.dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst + 11, pr->src + 7, n);
	assert_int_equal(pr->dst[10], 0);
	assert_int_equal(pr->dst[11 + n], 0);
	assert_int_equal(dereg_mr(rx->f.as, key), 0);
	hpu_test_fw_unmap_dev(&rx->f, d, md);
	hpu_test_fw_unmap_dev(&tx->f, s, ms);
}

/* Wrong queue, unknown connection, faulting and pageable sources */
static void test_scaleup_engine_errors(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0];
	struct hpu_fw_fault fault;
	struct hpu_test_cb cb = { .len = 0 };
	uint8_t *host = aligned_alloc(4096, 4096);
	uint64_t hva;

	assert_non_null(host);
	memset(pr->dst, 0xee, 4096);
	cb_nic(&cb, pr->src_va, 0, 16, pr->conn, pr->key, 0, 0);
	/* the connection is on another port */
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, pr->port + 1),
					  &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(fault.engine, nic_queue(tx, pr->port + 1));
	/* not a NIC queue */
	assert_int_equal(hpu_test_fw_run1(&tx->f, tx->f.dma0, &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	cb.len = 0;
	cb_nic(&cb, pr->src_va, 0, 16, pr->conn + 1, pr->key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, pr->port), &cb,
					  NULL),
			 HPU_FW_CS_ENGINE_ERR);
	/* unmapped source: a page fault */
	cb.len = 0;
	cb_nic(&cb, pr->src_va + PAIR_BYTES - 8, 0, 16, pr->conn, pr->key, 0,
	       0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, pr->port), &cb,
					  &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, pr->src_va + PAIR_BYTES);
	assert_false(fault.is_write);
	/* pageable host source: engine error */
	hva = hpu_test_fw_map_host(&tx->f, host, 4096);
	cb.len = 0;
	cb_nic(&cb, hva, 0, 16, pr->conn, pr->key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, pr->port), &cb,
					  NULL),
			 HPU_FW_CS_ENGINE_ERR);
	hpu_test_fw_unmap_host(&tx->f, hva);
	free(host);
	assert_int_equal(pr->dst[0], 0xee);
}

static void test_scaleup_access_errors(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int e0 = nev(tx), e1 = nev(rx);
	uint64_t key2;
	uint32_t v;
	uint8_t before[64];

	memcpy(before, pr->dst, sizeof(before));
	/* out of range: the owner's context hears, with the far port */
	assert_int_equal(pair_write(pr, PAIR_BYTES - 8, 0, 16, pr->key, 3, 1),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(
		count_ev(tx, e0, HPU_EVENT_NIC_ACCESS_ERR, tx, pr->port), 1);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  pr->far_port),
			 1);
	assert_int_equal(pair_write(pr, ~0ULL - 2, 0, 16, pr->key, 3, 1),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 3, &v), 0);
	assert_int_equal(v, 0);

	/* a revoked key: the context that accepted the connection hears */
	assert_int_equal(reg_mr(rx->f.as, pr->dst_va, 64,
				HPU_NIC_MR_REMOTE_WRITE, &key2),
			 0);
	assert_int_equal(dereg_mr(rx->f.as, key2), 0);
	e0 = nev(tx);
	e1 = nev(rx);
	assert_int_equal(pair_write(pr, 0, 0, 64, key2, 3, 1),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(
		count_ev(tx, e0, HPU_EVENT_NIC_ACCESS_ERR, tx, ANY_PORT), 1);
	assert_int_equal(
		count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx, ANY_PORT), 1);
	assert_int_equal(
		count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, NULL, ANY_PORT), 0);
	pthread_mutex_lock(&tx->lock);
	assert_int_equal(tx->ev[e0].key, key2);
	assert_int_equal(tx->ev[e0].size, 64);
	pthread_mutex_unlock(&tx->lock);
	assert_memory_equal(pr->dst, before, sizeof(before));
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 3, &v), 0);
	assert_int_equal(v, 0);
	/* the good key still works */
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 3, 1), HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
}

/* ------------------------------------------------------ protection domains */

/*
 * Another context ("E", an unrelated process) on device 0 and one ("C")
 * on device 1 beside the owner B of the pair's region; their events carry
 * these cookies.
 */
#define COOKIE_E ((void *)0xe0)
#define COOKIE_C ((void *)0xc0)

struct intruder {
	struct hpu_fw_as *e, *c;
	uint8_t *src;
	uint64_t src_va;
};

static void intruder_start(struct pair *pr, struct intruder *x)
{
	struct hpu_test_fw *f0 = &pr->d[0].f;
	struct hpu_fw_as *own = f0->as;

	assert_int_equal(hpusim_model.ops->as_create(pr->d[0].f.dev, &x->e), 0);
	assert_int_equal(hpusim_model.ops->as_create(pr->d[1].f.dev, &x->c), 0);
	hpusim_model.ops->as_set_cookie(x->e, COOKIE_E);
	hpusim_model.ops->as_set_cookie(x->c, COOKIE_C);
	f0->as = x->e;
	x->src = shm_map(&pr->d[0], 4096, &x->src_va);
	f0->as = own;
	memset(x->src, 0x66, 4096);
}

static void intruder_stop(struct pair *pr, struct intruder *x)
{
	hpusim_model.ops->as_destroy(x->e);
	hpusim_model.ops->as_destroy(x->c);
	munmap(x->src, 4096);
}

/* E writes @n bytes with @key over its connection @conn on the pair's port */
static enum hpu_fw_cs_result intruder_write(struct pair *pr, struct intruder *x,
					    uint32_t conn, uint64_t key,
					    uint64_t n)
{
	struct hpu_test_fw *f0 = &pr->d[0].f;
	struct hpu_fw_as *own = f0->as;
	struct hpu_test_cb cb = { .len = 0 };
	enum hpu_fw_cs_result r;

	cb_nic(&cb, x->src_va, 0, n, conn, key, 3, 1);
	f0->as = x->e;
	r = hpu_test_fw_run1(f0, nic_queue(&pr->d[0], pr->port), &cb, NULL);
	f0->as = own;
	return r;
}

/*
 * The hole of issue 14: an unrelated context on the writer's device knew
 * (or guessed) the owner's key and wrote into its memory. Now its own
 * connection, which the owner never accepted, is refused: -EACCES (an
 * engine error) and NIC_ACCESS_ERR on both sides, not a byte written.
 */
static void test_pd_unaccepted_write(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0], *rx = &pr->d[1];
	struct intruder x;
	unsigned int e0, e1, i;
	uint8_t before[4096];
	uint32_t conn, id, v;

	intruder_start(pr, &x);
	memcpy(before, pr->dst, sizeof(before));
	assert_int_equal(nconnect(x.e, pr->port, 0, 0, 1, &conn), 0);

	/* the owner's real key over a connection nobody accepted */
	e0 = nev(tx);
	e1 = nev(rx);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_NIC_ACCESS_ERR, COOKIE_E,
				  pr->port),
			 1);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  pr->far_port),
			 1);

	/* accepted by another context of the owner's device: still refused */
	assert_int_equal(hpusim_model.ops->nic_accept(x.c, last_token, &id), 0);
	e0 = nev(tx);
	e1 = nev(rx);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_NIC_ACCESS_ERR, COOKIE_E,
				  ANY_PORT),
			 1);
	assert_int_equal(
		count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx, ANY_PORT), 1);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, COOKIE_C,
				  ANY_PORT),
			 1);

	/* guessed keys: small numbers as ABI 1.0 handed out, random ones */
	for (i = 0; i < 64; i++) {
		uint64_t guess = i < 32 ? i + 1 :
					  (uint64_t)rand() << 33 ^
						  (uint64_t)rand() << 11 ^
						  (uint64_t)rand();

		assert_int_equal(intruder_write(pr, &x, conn, guess, 64),
				 HPU_FW_CS_ENGINE_ERR);
	}
	assert_memory_equal(pr->dst, before, sizeof(before));
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 3, &v), 0);
	assert_int_equal(v, 0);

	/* the owner's own accepted connection still writes */
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 0, 0), HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
	intruder_stop(pr, &x);
}

/* The writer's connection is accepted by the owner: the write lands */
static void test_pd_accepted_write(void **state)
{
	struct pair *pr = *state;
	struct intruder x;
	uint32_t conn, id;

	intruder_start(pr, &x);
	assert_int_equal(nconnect(x.e, pr->port, 0, 0, 1, &conn), 0);
	assert_int_equal(hpusim_model.ops->nic_accept(pr->d[1].f.as, last_token,
						      &id),
			 0);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, x.src, 4096);
	/* the owner withdraws: later writes are refused */
	assert_int_equal(hpusim_model.ops->nic_disconnect(pr->d[1].f.as, id),
			 0);
	memset(x.src, 0x77, 4096);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(pr->dst[0], 0x66);
	intruder_stop(pr, &x);
}

static void test_pd_accept_errors(void **state)
{
	struct pair *pr = *state;
	struct hpu_fw_as *b = pr->d[1].f.as;
	struct intruder x;
	uint32_t id, ids[HPU_NIC_MAX_ACCEPTS];
	unsigned int i;

	intruder_start(pr, &x);
	assert_int_equal(hpusim_model.ops->nic_accept(b, 0, &id), -EINVAL);
	/* the fixture's own acceptance */
	assert_int_equal(hpusim_model.ops->nic_accept(b, pr->token, &id),
			 -EEXIST);
	assert_int_equal(hpusim_model.ops->nic_accept(x.c, pr->token, &id),
			 -EBUSY);
	/* an acceptance id is not a connection id and vice versa */
	assert_int_equal(hpusim_model.ops->nic_disconnect(b, pr->conn),
			 -ENOENT);
	assert_int_equal(hpusim_model.ops->nic_disconnect(pr->d[0].f.as,
							  pr->accept),
			 -ENOENT);
	/* the limit: the fixture holds one already */
	for (i = 1; i < HPU_NIC_MAX_ACCEPTS; i++) {
		assert_int_equal(
			hpusim_model.ops->nic_accept(b, 1000 + i, &ids[i]), 0);
		assert_true(ids[i] != 0 && ids[i] != pr->accept);
	}
	assert_int_equal(hpusim_model.ops->nic_accept(b, 999, &id), -ENOSPC);
	/* another context has its own budget */
	assert_int_equal(hpusim_model.ops->nic_accept(x.c, 999, &id), 0);
	for (i = 1; i < HPU_NIC_MAX_ACCEPTS; i++)
		assert_int_equal(hpusim_model.ops->nic_disconnect(b, ids[i]),
				 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(b, ids[1]), -ENOENT);
	intruder_stop(pr, &x);
}

/* Keys are 64-bit, never 0, never handed out again after a revocation */
static void test_pd_keys_never_reused(void **state)
{
	struct pair *pr = *state;
	struct hpu_fw_as *b = pr->d[1].f.as;
	const unsigned int n = 4096;
	uint64_t *keys = calloc(n, sizeof(*keys)), hi = 0;
	uint32_t h, h2;
	unsigned int i, j;

	assert_non_null(keys);
	for (i = 0; i < n; i++) {
		assert_int_equal(hpusim_model.ops->nic_reg_mr(
					 b, pr->dst_va, 64,
					 HPU_NIC_MR_REMOTE_WRITE, &h, &keys[i]),
				 0);
		assert_true(keys[i] != 0 && keys[i] != pr->key);
		hi |= keys[i] >> 32;
		assert_int_equal(hpusim_model.ops->nic_dereg_mr(b, h), 0);
		/* the handle is gone too, and not the next one's */
		assert_int_equal(hpusim_model.ops->nic_dereg_mr(b, h), -ENOENT);
		if (i) {
			/* not a counter: consecutive keys are far apart */
			assert_true(keys[i] - keys[i - 1] > 0xffff &&
				    keys[i - 1] - keys[i] > 0xffff);
		}
	}
	assert_true(hi != 0);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			assert_true(keys[i] != keys[j]);
	/* a revoked key writes nothing even over the accepted connection */
	assert_int_equal(pair_write(pr, 0, 0, 64, keys[7], 0, 0),
			 HPU_FW_CS_ENGINE_ERR);
	/* two devices' keys are not the same sequence */
	assert_int_equal(hpusim_model.ops->nic_reg_mr(
				 pr->d[0].f.as, pr->src_va, 64,
				 HPU_NIC_MR_REMOTE_WRITE, &h2, &keys[0]),
			 0);
	for (i = 1; i < 64; i++)
		assert_true(keys[0] != keys[i]);
	assert_int_equal(hpusim_model.ops->nic_dereg_mr(pr->d[0].f.as, h2), 0);
	free(keys);
}

static void test_link_down_up(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int e0 = nev(tx), e1 = nev(rx);
	struct hpu_info_nic i0, i1;

	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 24, false),
			 -EINVAL);
	/* taken down at the far end: both ends go down */
	assert_int_equal(hpusim_model.ops->nic_set_link(rx->f.dev, pr->far_port,
							false),
			 0);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_LINK_DOWN, NULL, pr->port),
			 1);
	assert_int_equal(
		count_ev(rx, e1, HPU_EVENT_LINK_DOWN, NULL, pr->far_port), 1);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_false(i0.ports_up_mask >> pr->port & 1);
	assert_false(i1.ports_up_mask >> pr->far_port & 1);
	assert_true(i0.ports_up_mask >> (pr->port + 1) & 1);

	memset(pr->dst, 0, 64);
	e0 = nev(tx);
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 0, 0),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx, pr->port),
			 1);
	assert_int_equal(pr->dst[0], 0);

	assert_int_equal(
		hpusim_model.ops->nic_set_link(tx->f.dev, pr->port, true), 0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_true(i1.ports_up_mask >> pr->far_port & 1);
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 0, 0), HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
}

/* The owner's context goes away while device 0 writes into it */
static void test_as_destroy_while_writing(void **state)
{
	struct pair *pr = *state;
	struct ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int i, j, ok = 0, n0 = hpu_test_fw_ndone(&tx->f);
	const unsigned int ncs = 32;

	for (i = 0; i < ncs; i++) {
		struct hpu_test_cb cb = { .len = 0 };

		for (j = 0; j < 8; j++)
			cb_nic(&cb, pr->src_va + j * MiB, j * MiB, MiB,
			       pr->conn, pr->key, 1, 1);
		hpu_test_fw_submit1(&tx->f, nic_queue(tx, pr->port), &cb,
				    (void *)(uintptr_t)(0x5000 + i));
	}
	/* destroy while the stream is under way */
	hpu_test_fw_wait_done(&tx->f, n0 + 1);
	hpusim_model.ops->as_destroy(rx->f.as);
	rx->f.as = NULL;
	hpu_test_fw_wait_done(&tx->f, n0 + ncs);
	for (i = 0; i < ncs; i++) {
		enum hpu_fw_cs_result r = hpu_test_fw_result_of(
			&tx->f, (void *)(uintptr_t)(0x5000 + i), NULL);

		assert_true(r == HPU_FW_CS_OK || r == HPU_FW_CS_ENGINE_ERR);
		ok += r == HPU_FW_CS_OK;
	}
	/* once revoked, every later write fails */
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 0, 0),
			 HPU_FW_CS_ENGINE_ERR);
	assert_true(ok >= 1);
	/* the device goes too: its peer sees the far end down */
	hpusim_model.ops->destroy(rx->f.dev);
	rx->f.dev = NULL;
	assert_int_equal(pair_write(pr, 0, 0, 64, pr->key, 0, 0),
			 HPU_FW_CS_ENGINE_ERR);
}

/* ------------------------------------------------------ scale-out */

struct two_servers {
	struct hpu_fw_fabric *fab[2];
	struct ndev d[2]; /* device 0 of each server */
	uint32_t ipv4[2];
	uint16_t port[2];
};

static int servers_setup(void **state)
{
	struct hpu_fw_fabric_config fc = { .scaleout_addr = "127.0.0.1:0",
					   .num_devices = 2 };
	struct two_servers *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return -1;
	for (i = 0; i < 2; i++) {
		if (hpusim_model.ops->fabric_create(&fc, &s->fab[i]))
			return -1;
		hpusim_model.ops->fabric_addr(s->fab[i], &s->ipv4[i],
					      &s->port[i]);
		if (ndev_create(&s->d[i], s->fab[i], 0, gaudi2()))
			return -1;
	}
	*state = s;
	return 0;
}

static int servers_teardown(void **state)
{
	struct two_servers *s = *state;
	unsigned int i;

	for (i = 0; i < 2; i++)
		ndev_destroy(&s->d[i]);
	for (i = 0; i < 2; i++)
		hpusim_model.ops->fabric_destroy(s->fab[i]);
	free(s);
	return 0;
}

static void test_scaleout_write(void **state)
{
	struct two_servers *s = *state;
	struct ndev *tx = &s->d[0], *rx = &s->d[1];
	const uint64_t n = 3 * MiB + 17;
	uint64_t sva, dva;
	uint8_t *src = shm_map(tx, 4 * MiB, &sva);
	uint8_t *dst = shm_map(rx, 4 * MiB, &dva);
	uint64_t key, key2;
	uint32_t conn, conn2, v;
	struct hpu_info_nic i0, i1;
	struct hpu_test_cb cb = { .len = 0 };
	unsigned int n1 = hpu_test_fw_ndone(&rx->f), e0, e1;

	assert_int_equal(s->ipv4[0], htonl(0x7f000001));
	assert_true(s->port[0] != 0 && s->port[1] != 0 &&
		    s->port[0] != s->port[1]);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.scaleout_port, s->port[0]);
	assert_true(i0.server_id != i1.server_id);

	hpu_test_fill_random(src, 4 * MiB, 3);
	assert_int_equal(reg_mr(rx->f.as, dva, 4 * MiB, HPU_NIC_MR_REMOTE_WRITE,
				&key),
			 0);
	assert_int_equal(
		nconnect(tx->f.as, 22, s->ipv4[1], s->port[1], 0, &conn), 0);
	accept_last(rx->f.as);
	/* a second connection reuses the TCP connection */
	assert_int_equal(
		nconnect(tx->f.as, 23, s->ipv4[1], s->port[1], 0, &conn2), 0);
	accept_last(rx->f.as);

	hpu_test_cb_fence(&cb, 4, 1, 1);
	hpu_test_fw_submit1(&rx->f, rx->f.dma0, &cb, (void *)0x99);
	cb.len = 0;
	cb_nic(&cb, sva + 5, 9, n, conn, key, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 22), &cb, NULL),
			 HPU_FW_CS_OK);
	hpu_test_fw_wait_done(&rx->f, n1 + 1);
	assert_int_equal(hpu_test_fw_result_of(&rx->f, (void *)0x99, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst + 9, src + 5, n);
	assert_int_equal(dst[8], 0);
	assert_int_equal(dst[9 + n], 0);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.tx_bytes, n);
	assert_int_equal(i1.rx_bytes, n);

	/* several writes in one CB apply in order, last one signals */
	cb.len = 0;
	cb_nic(&cb, sva, 0, 4096, conn2, key, 0, 0);
	cb_nic(&cb, sva + 4096, 0, 4096, conn2, key, 0, 0);
	cb_nic(&cb, sva, 100, 0, conn2, key, 4, 2);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 23), &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst, src + 4096, 4096);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 4, &v), 0);
	assert_int_equal(v, 2);

	/* access errors travel back; the owner hears with port ~0 */
	assert_int_equal(
		reg_mr(rx->f.as, dva, 64, HPU_NIC_MR_REMOTE_WRITE, &key2), 0);
	e0 = nev(tx);
	e1 = nev(rx);
	memset(dst, 0x5a, 128);
	cb.len = 0;
	cb_nic(&cb, sva, 32, 64, conn, key2, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 22), &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_NIC_ACCESS_ERR, tx, 22), 1);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  HPUSIM_NIC_PORT_NET),
			 1);
	assert_int_equal(dereg_mr(rx->f.as, key2), 0);
	cb.len = 0;
	cb_nic(&cb, sva, 0, 64, conn, key2, 4, 1);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 22), &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	/* a revoked key: the context that accepted the connection hears */
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  HPUSIM_NIC_PORT_NET),
			 2);
	assert_int_equal(dst[0], 0x5a);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 4, &v), 0);
	assert_int_equal(v, 2);

	/* the connection still works after errors */
	cb.len = 0;
	cb_nic(&cb, sva, 0, 128, conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 22), &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(dst, src, 128);

	/* the scale-out port of the sender down */
	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 22, false),
			 0);
	e0 = nev(tx);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 22), &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx, 22), 1);
	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 22, true),
			 0);

	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn2), 0);
	assert_int_equal(dereg_mr(rx->f.as, key), 0);
	shm_unmap(tx, src, 4 * MiB, sva);
	shm_unmap(rx, dst, 4 * MiB, dva);
}

static void test_scaleout_connect_errors(void **state)
{
	struct two_servers *s = *state;
	struct hpu_fw_as *as = s->d[0].f.as;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t len = sizeof(sa);
	uint32_t c;
	int fd;

	/* a port nobody listens on any more */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	assert_int_equal(nconnect(as, 21, htonl(0x7f000001), ntohs(sa.sin_port),
				  0, &c),
			 -ECONNREFUSED);
	/* the remote server has no device 1 */
	assert_int_equal(nconnect(as, 21, s->ipv4[1], s->port[1], 1, &c),
			 -ENODEV);
	/* a scale-out port to this very server */
	assert_int_equal(nconnect(as, 21, s->ipv4[0], s->port[0], 0, &c),
			 -EINVAL);
	/* scale-up port to another server */
	assert_int_equal(nconnect(as, 0, s->ipv4[1], s->port[1], 0, &c),
			 -EINVAL);
}

/* The remote device goes away: its writes fail with LINK_DOWN */
static void test_scaleout_remote_gone(void **state)
{
	struct two_servers *s = *state;
	struct ndev *tx = &s->d[0], *rx = &s->d[1];
	uint64_t sva, dva;
	uint8_t *src = shm_map(tx, 2 * MiB, &sva);
	uint8_t *dst = shm_map(rx, 2 * MiB, &dva);
	struct hpu_test_cb cb = { .len = 0 };
	uint64_t key;
	uint32_t conn;
	unsigned int i, e0, ncs = 16, n0 = hpu_test_fw_ndone(&tx->f);

	assert_int_equal(reg_mr(rx->f.as, dva, 2 * MiB, HPU_NIC_MR_REMOTE_WRITE,
				&key),
			 0);
	assert_int_equal(
		nconnect(tx->f.as, 21, s->ipv4[1], s->port[1], 0, &conn), 0);
	accept_last(rx->f.as);
	for (i = 0; i < 4; i++)
		cb_nic(&cb, sva, 0, 2 * MiB, conn, key, 1, 1);
	for (i = 0; i < ncs; i++)
		hpu_test_fw_submit1(&tx->f, nic_queue(tx, 21), &cb,
				    (void *)(uintptr_t)(0x7000 + i));
	/* the owner's context goes while writes arrive */
	hpusim_model.ops->as_destroy(rx->f.as);
	rx->f.as = NULL;
	hpu_test_fw_wait_done(&tx->f, n0 + ncs);
	for (i = 0; i < ncs; i++) {
		enum hpu_fw_cs_result r = hpu_test_fw_result_of(
			&tx->f, (void *)(uintptr_t)(0x7000 + i), NULL);

		assert_true(r == HPU_FW_CS_OK || r == HPU_FW_CS_ENGINE_ERR);
	}
	hpusim_model.ops->destroy(rx->f.dev);
	rx->f.dev = NULL;
	munmap(dst, 2 * MiB);
	e0 = nev(tx);
	cb.len = 0;
	cb_nic(&cb, sva, 0, 64, conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f, nic_queue(tx, 21), &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx, 21), 1);
	assert_int_equal(hpusim_model.ops->nic_disconnect(tx->f.as, conn), 0);
	shm_unmap(tx, src, 2 * MiB, sva);
}

/* Connect to @s's second server and say hello; return the socket */
static int raw_hello(struct two_servers *s)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(s->port[1]),
				  .sin_addr.s_addr = s->ipv4[1] };
	struct hpu_test_wire w = { .magic = HPU_TEST_WIRE_MAGIC,
				   .version = HPU_TEST_WIRE_VERSION,
				   .type = 1,
				   .server_id = 42 };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, &w, sizeof(w), 0), sizeof(w));
	assert_int_equal(recv(fd, &w, sizeof(w), MSG_WAITALL), sizeof(w));
	assert_int_equal(w.type, 2);
	assert_true(w.server_id != 0 && w.server_id != 42);
	return fd;
}

/* Send one WRITE of @payload on a new raw connection; return its status */
static uint32_t raw_write(struct two_servers *s, const struct hpu_test_wire *w,
			  const uint8_t *payload)
{
	int fd = raw_hello(s);
	struct hpu_test_wire ack;

	assert_int_equal(send(fd, w, sizeof(*w), 0), sizeof(*w));
	assert_int_equal(send(fd, payload, w->size, 0), (ssize_t)w->size);
	assert_int_equal(recv(fd, &ack, sizeof(ack), MSG_WAITALL), sizeof(ack));
	assert_int_equal(ack.type, 5);
	assert_int_equal(ack.seq, w->seq);
	close(fd);
	return ack.status;
}

/* Malformed messages close the connection and are never applied */
static void test_scaleout_bad_messages(void **state)
{
	struct two_servers *s = *state;
	struct ndev *rx = &s->d[1];
	const uint64_t token = 0x7a3c11d0e5f40921ULL;
	struct hpu_test_wire good = { .magic = HPU_TEST_WIRE_MAGIC,
				      .version = HPU_TEST_WIRE_VERSION,
				      .type = 3,
				      .seq = 1,
				      .token = token,
				      .size = 64,
				      .sob_id = 2,
				      .sob_value = 1,
				      .flags = HPU_NIC_F_SIGNAL };
	struct hpu_test_wire bad[9];
	uint8_t payload[64], *dst;
	uint64_t dva;
	uint64_t key;
	uint32_t v, acc;
	unsigned int i, e1;
	char c;

	dst = shm_map(rx, 4096, &dva);
	assert_int_equal(
		reg_mr(rx->f.as, dva, 4096, HPU_NIC_MR_REMOTE_WRITE, &key), 0);
	assert_int_equal(hpusim_model.ops->nic_accept(rx->f.as, token, &acc),
			 0);
	good.rkey = key;
	memset(payload, 0xab, sizeof(payload));
	for (i = 0; i < 9; i++)
		bad[i] = good;
	bad[0].magic ^= 1;
	bad[1].version = 1; /* the 64-byte header of version 1 */
	bad[2].flags |= 0x2;
	bad[3].sob_id = HPU_NUM_SOBS;
	bad[4].seq = 0;
	bad[5].offset = ~0ULL - 8; /* offset + size overflows */
	bad[6].token = 0;
	bad[7].rkey = 0;
	bad[8].pad = 1;
	for (i = 0; i < 9; i++) {
		int fd = raw_hello(s);

		assert_int_equal(send(fd, &bad[i], sizeof(bad[i]), 0),
				 sizeof(bad[i]));
		send(fd, payload, sizeof(payload), MSG_NOSIGNAL);
		/* closed without an answer */
		assert_true(recv(fd, &c, 1, 0) <= 0);
		close(fd);
	}
	assert_int_equal(dst[0], 0);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 0);

	/*
	 * Well formed, but a token nobody accepted (a guess, or a real
	 * connection the owner never accepted): refused, the owner hears
	 */
	e1 = nev(rx);
	good.token = token + 1;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  HPUSIM_NIC_PORT_NET),
			 1);
	/* the right token, a guessed key: the acceptor hears */
	e1 = nev(rx);
	good.token = token;
	good.rkey = key ^ 1;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(count_ev(rx, e1, HPU_EVENT_NIC_ACCESS_ERR, rx,
				  HPUSIM_NIC_PORT_NET),
			 1);
	assert_int_equal(dst[0], 0);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 0);

	/* the same message, well formed and accepted, is applied */
	good.rkey = key;
	assert_int_equal(raw_write(s, &good, payload), 0);
	assert_memory_equal(dst, payload, sizeof(payload));
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 2, &v), 0);
	assert_int_equal(v, 1);
	/* an acceptance dropped: refused again */
	assert_int_equal(hpusim_model.ops->nic_disconnect(rx->f.as, acc), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(rx->f.as, acc),
			 -ENOENT);
	good.seq = 2;
	assert_int_equal(raw_write(s, &good, payload), 2);
	assert_int_equal(dereg_mr(rx->f.as, key), 0);
	shm_unmap(rx, dst, 4096, dva);
}

int main(void)
{
#define P(fn) cmocka_unit_test_setup_teardown(fn, pair_setup, pair_teardown)
#define S(fn) \
	cmocka_unit_test_setup_teardown(fn, servers_setup, servers_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wiring_gaudi2_8),
		cmocka_unit_test(test_wiring_gaudi2_2),
		cmocka_unit_test(test_fabric_rules),
		cmocka_unit_test(test_reg_errors),
		P(test_connect_errors),
		P(test_scaleup_write_signal),
		P(test_scaleup_hbm),
		P(test_scaleup_engine_errors),
		P(test_scaleup_access_errors),
		P(test_pd_unaccepted_write),
		P(test_pd_accepted_write),
		P(test_pd_accept_errors),
		P(test_pd_keys_never_reused),
		P(test_link_down_up),
		P(test_as_destroy_while_writing),
		S(test_scaleout_write),
		S(test_scaleout_connect_errors),
		S(test_scaleout_remote_gone),
		S(test_scaleout_bad_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
