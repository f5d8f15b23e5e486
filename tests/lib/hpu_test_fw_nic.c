// SPDX-License-Identifier: MIT
/*
 * hpu_test_fw_nic.c - NIC fixture of the libhpusim NIC tests (hpu_test_fw_nic.h).
 */
#include "hpu_test_fw_nic.h"

static void on_nic(void *arg, void *cookie, const struct hpu_fw_nic_event *ev)
{
	struct hpu_test_ndev *d = arg;

	pthread_mutex_lock(&d->lock);
	if (d->nev < HPU_TEST_NDEV_EVENTS) {
		d->ev[d->nev] = *ev;
		d->ev_cookie[d->nev] = cookie;
	}
	d->nev++;
	pthread_mutex_unlock(&d->lock);
}

const struct hpu_fw_profile *hpu_test_gaudi2(void)
{
	return hpu_fw_find_profile(&hpusim_model, "gaudi2");
}

int hpu_test_ndev_create(struct hpu_test_ndev *d, struct hpu_fw_fabric *fab,
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

void hpu_test_ndev_destroy(struct hpu_test_ndev *d)
{
	if (d->f.as)
		hpusim_model.ops->as_destroy(d->f.as);
	if (d->f.dev)
		hpusim_model.ops->destroy(d->f.dev);
	d->f.as = NULL;
	d->f.dev = NULL;
}

uint32_t hpu_test_ndev_queue(const struct hpu_test_ndev *d, uint32_t port)
{
	const struct hpu_fw_profile *p = d->f.dev->profile;

	return p->num_dma + p->num_mme + p->num_tpc + port;
}

/* Events of @type seen by @d with @cookie since event @from */
unsigned int hpu_test_ndev_count_ev(struct hpu_test_ndev *d, unsigned int from,
				    uint32_t type, void *cookie, uint32_t port)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&d->lock);
	for (i = from; i < d->nev && i < HPU_TEST_NDEV_EVENTS; i++)
		if (d->ev[i].type == type && d->ev_cookie[i] == cookie &&
		    (port == ~0U - 1 || d->ev[i].port == port))
			n++;
	pthread_mutex_unlock(&d->lock);
	return n;
}

unsigned int hpu_test_ndev_nev(struct hpu_test_ndev *d)
{
	unsigned int n;

	pthread_mutex_lock(&d->lock);
	n = d->nev;
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* Shared host memory mapped into @d's context (reached like HBM) */
uint8_t *hpu_test_ndev_shm_map(struct hpu_test_ndev *d, uint64_t size,
			       uint64_t *va)
{
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	assert_int_equal(hpusim_model.ops->map_shared(d->f.as, p, size, 0,
						      false, va),
			 0);
	return p;
}

void hpu_test_ndev_shm_unmap(struct hpu_test_ndev *d, uint8_t *p, uint64_t size,
			     uint64_t va)
{
	assert_int_equal(hpusim_model.ops->unmap(d->f.as, va, NULL), 0);
	munmap(p, size);
}

void hpu_test_cb_nic(struct hpu_test_cb *cb, uint64_t src, uint64_t off,
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
uint32_t hpu_test_ndev_port_to(struct hpu_test_ndev *d, uint32_t peer)
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

static struct {
	struct hpu_fw_as *as;
	uint64_t key;
	uint32_t handle;
} regs[2048];
static unsigned int nregs;
/* token of the last connection hpu_test_fw_nic_connect() made */
static uint64_t last_token;

int hpu_test_fw_nic_reg_mr(struct hpu_fw_as *as, uint64_t va, uint64_t size,
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
int hpu_test_fw_nic_dereg_mr(struct hpu_fw_as *as, uint64_t key)
{
	unsigned int i;

	for (i = 0; i < nregs; i++)
		if (regs[i].as == as && regs[i].key == key)
			return hpusim_model.ops->nic_dereg_mr(as,
							      regs[i].handle);
	return hpusim_model.ops->nic_dereg_mr(as, (uint32_t)key);
}

int hpu_test_fw_nic_connect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
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

uint64_t hpu_test_fw_nic_last_token(void)
{
	return last_token;
}

/* @as accepts the last connection made */
void hpu_test_fw_nic_accept_last(struct hpu_fw_as *as)
{
	uint32_t id;

	assert_int_equal(hpusim_model.ops->nic_accept(
				 as, hpu_test_fw_nic_last_token(), &id),
			 0);
	assert_true(id != 0);
}

/* ------------------------------------------------------ two devices */

int hpu_test_fw_nic_pair_setup(void **state)
{
	struct hpu_fw_fabric_config fc = { .num_devices = 2 };
	struct hpu_test_fw_nic_pair *pr = calloc(1, sizeof(*pr));
	uint32_t i;

	if (!pr)
		return -1;
	if (hpusim_model.ops->fabric_create(&fc, &pr->fab))
		return -1;
	for (i = 0; i < 2; i++)
		if (hpu_test_ndev_create(&pr->d[i], pr->fab, i,
					 hpu_test_gaudi2()))
			return -1;
	pr->port = 5;
	pr->far_port = 5; /* k = 21: port p of 0 lands on port p of 1 */
	pr->src = hpu_test_ndev_shm_map(&pr->d[0], HPU_TEST_FW_NIC_PAIR_BYTES,
					&pr->src_va);
	pr->dst = hpu_test_ndev_shm_map(&pr->d[1], HPU_TEST_FW_NIC_PAIR_BYTES,
					&pr->dst_va);
	hpu_test_fill_random(pr->src, HPU_TEST_FW_NIC_PAIR_BYTES, 7);
	if (hpu_test_fw_nic_reg_mr(pr->d[1].f.as, pr->dst_va,
				   HPU_TEST_FW_NIC_PAIR_BYTES,
				   HPU_NIC_MR_REMOTE_WRITE, &pr->key) ||
	    hpu_test_fw_nic_connect(pr->d[0].f.as, pr->port, 0, 0, 1,
				    &pr->conn))
		return -1;
	pr->token = hpu_test_fw_nic_last_token();
	if (hpusim_model.ops->nic_accept(pr->d[1].f.as, pr->token, &pr->accept))
		return -1;
	*state = pr;
	return 0;
}

int hpu_test_fw_nic_pair_teardown(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;

	hpu_test_ndev_destroy(&pr->d[0]);
	hpu_test_ndev_destroy(&pr->d[1]);
	munmap(pr->src, HPU_TEST_FW_NIC_PAIR_BYTES);
	munmap(pr->dst, HPU_TEST_FW_NIC_PAIR_BYTES);
	hpusim_model.ops->fabric_destroy(pr->fab);
	free(pr);
	return 0;
}

/* One NIC_WRITE from device 0; return its CS result */
enum hpu_fw_cs_result
hpu_test_fw_nic_pair_write(struct hpu_test_fw_nic_pair *pr, uint64_t off,
			   uint64_t src_off, uint64_t size, uint64_t key,
			   uint32_t sob, uint32_t val)
{
	struct hpu_test_cb cb = { .len = 0 };

	hpu_test_cb_nic(&cb, pr->src_va + src_off, off, size, pr->conn, key,
			sob, val);
	return hpu_test_fw_run1(&pr->d[0].f,
				hpu_test_ndev_queue(&pr->d[0], pr->port), &cb,
				NULL);
}
