// SPDX-License-Identifier: MIT
/*
 * test_fw_nic.c - the NIC engines of libhpusim through hpusim_model.ops:
 * scale-up wiring, memory registration, connections, NIC_WRITE with its
 * signal between two devices of one fabric, access errors, link faults,
 * and address spaces destroyed while peers write into them (protection
 * domains: test_fw_nic_pd.c; scale-out: test_fw_nic_scaleout.c).
 */
#include <arpa/inet.h>

#include "../lib/hpu_test_fw_nic.h"

/* ------------------------------------------------------ wiring */

static void check_wiring(uint32_t ndevs)
{
	struct hpu_fw_fabric_config fc = { .num_devices = ndevs };
	struct hpu_info_nic info[8];
	struct hpu_fw_fabric *fab;
	struct hpu_test_ndev *d = calloc(ndevs, sizeof(*d));
	uint32_t i, p, k = 21 / (ndevs - 1);

	assert_non_null(d);
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), 0);
	for (i = 0; i < ndevs; i++)
		assert_int_equal(hpu_test_ndev_create(&d[i], fab, i,
						      hpu_test_gaudi2()),
				 0);
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
		hpu_test_ndev_destroy(&d[i]);
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
	struct hpu_test_ndev a, b;

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
	assert_int_equal(hpu_test_ndev_create(&a, fab, 1, hpu_test_gaudi2()),
			 0);
	/* index taken, index outside the wiring */
	assert_int_equal(hpu_test_ndev_create(&b, fab, 1, hpu_test_gaudi2()),
			 -EINVAL);
	assert_int_equal(hpu_test_ndev_create(&b, fab, 3, hpu_test_gaudi2()),
			 -EINVAL);
	hpu_test_ndev_destroy(&a);
	/* the index is free again once its device is gone */
	assert_int_equal(hpu_test_ndev_create(&a, fab, 1, hpu_test_gaudi2()),
			 0);
	hpu_test_ndev_destroy(&a);
	hpusim_model.ops->fabric_destroy(fab);

	/* Gaudi: 7 scale-up ports wire at most 8 devices */
	fc.num_devices = 9;
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab), 0);
	assert_int_equal(hpu_test_ndev_create(&a, fab, 0,
					      hpu_fw_find_profile(&hpusim_model,
								  "gaudi")),
			 -EINVAL);
	hpusim_model.ops->fabric_destroy(fab);
}

/* ------------------------------------------------------ registration */

static void test_reg_errors(void **state)
{
	struct hpu_test_ndev a, b;
	struct hpu_fw_mem *m;
	uint64_t k1, k2, k3, keys[HPU_NIC_MAX_MRS];
	uint64_t va, sva, hva;
	uint8_t *sp, *host = aligned_alloc(4096, 8192);
	unsigned int i;

	(void)state;
	assert_non_null(host);
	memset(host, 1, 8192);
	assert_int_equal(hpu_test_ndev_create(&a, NULL, 0, hpu_test_gaudi2()),
			 0);
	assert_int_equal(hpu_test_ndev_create(&b, NULL, 1, hpu_test_gaudi2()),
			 0);
	va = hpu_test_fw_map_dev(&a.f, 2 * MiB, &m);
	sp = hpu_test_ndev_shm_map(&a, 64 * KiB, &sva);
	hva = hpu_test_fw_map_host(&a.f, host, 8192);

	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096, 0, &k1),
			 -EINVAL);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096, 3, &k1),
			 -EINVAL);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 0,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EINVAL);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, ~0ULL - 10, 100,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EINVAL);
	/* unmapped, past the mapping's end, pageable host memory */
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, 0x1000, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EFAULT);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 2 * MiB + 1,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EFAULT);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, hva, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 -EFAULT);

	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 2 * MiB,
						HPU_NIC_MR_REMOTE_WRITE, &k1),
			 0);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, sva, 64 * KiB,
						HPU_NIC_MR_REMOTE_WRITE, &k2),
			 0);
	assert_true(k1 && k2 && k1 != k2);
	/* another context cannot revoke it */
	assert_int_equal(hpu_test_fw_nic_dereg_mr(b.f.as, k1), -ENOENT);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(a.f.as, 0), -ENOENT);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(a.f.as, k1), 0);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(a.f.as, k1), -ENOENT);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &k3),
			 0);
	assert_true(k3 != k1 && k3 != k2); /* never reused */
	assert_int_equal(hpu_test_fw_nic_dereg_mr(a.f.as, k3), 0);

	/* the per-context limit */
	for (i = 1; i < HPU_NIC_MAX_MRS; i++)
		assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096,
							HPU_NIC_MR_REMOTE_WRITE,
							&keys[i]),
				 0);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &k3),
			 -ENOSPC);
	/* another context has its own budget */
	assert_int_equal(hpu_test_fw_nic_reg_mr(b.f.as, 0x1000, 1,
						HPU_NIC_MR_REMOTE_WRITE, &k3),
			 -EFAULT);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(a.f.as, keys[7]), 0);
	assert_int_equal(hpu_test_fw_nic_reg_mr(a.f.as, va, 4096,
						HPU_NIC_MR_REMOTE_WRITE, &k3),
			 0);

	hpu_test_fw_unmap_host(&a.f, hva);
	hpu_test_ndev_shm_unmap(&a, sp, 64 * KiB, sva);
	hpu_test_ndev_destroy(&a); /* revokes what is left */
	hpu_test_ndev_destroy(&b);
	free(host);
}

static void test_connect_errors(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_fw_as *as = pr->d[0].f.as;
	struct hpu_fw_fabric_config fc = { .num_devices = 3 };
	struct hpu_fw_fabric *fab3;
	struct hpu_test_ndev x;
	uint32_t c, ids[HPU_NIC_MAX_CONNS];
	unsigned int i;

	assert_int_equal(hpu_test_fw_nic_connect(as, 24, 0, 0, 1, &c), -EINVAL);
	/* device 0 itself is not wired to itself */
	assert_int_equal(hpu_test_fw_nic_connect(as, 0, 0, 0, 0, &c), -EINVAL);
	assert_int_equal(hpu_test_fw_nic_connect(as, 0, 0, 0, 7, &c), -EINVAL);
	/* scale-out port to this server, scale-up port to another */
	assert_int_equal(hpu_test_fw_nic_connect(as, 22, 0, 0, 1, &c), -EINVAL);
	assert_int_equal(hpu_test_fw_nic_connect(as, 3, htonl(0x7f000001), 4000,
						 1, &c),
			 -EINVAL);
	/* no scale-out endpoint in this server */
	assert_int_equal(hpu_test_fw_nic_connect(as, 22, htonl(0x7f000001),
						 4000, 1, &c),
			 -EHOSTUNREACH);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, 12345), -ENOENT);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, 0), -ENOENT);

	/* port down */
	assert_int_equal(
		hpusim_model.ops->nic_set_link(pr->d[0].f.dev, 4, false), 0);
	assert_int_equal(hpu_test_fw_nic_connect(as, 4, 0, 0, 1, &c),
			 -ENETDOWN);
	assert_int_equal(
		hpusim_model.ops->nic_set_link(pr->d[0].f.dev, 4, true), 0);
	assert_int_equal(hpu_test_fw_nic_connect(as, 4, 0, 0, 1, &c), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, c), 0);
	assert_int_equal(hpusim_model.ops->nic_disconnect(as, c), -ENOENT);

	/* the limit: the fixture holds one already */
	for (i = 1; i < HPU_NIC_MAX_CONNS; i++) {
		assert_int_equal(hpu_test_fw_nic_connect(as, i % 21, 0, 0, 1,
							 &ids[i]),
				 0);
		assert_true(ids[i] != 0 && ids[i] != pr->conn);
	}
	assert_int_equal(hpu_test_fw_nic_connect(as, 0, 0, 0, 1, &c), -ENOSPC);
	for (i = 1; i < HPU_NIC_MAX_CONNS; i++)
		assert_int_equal(hpusim_model.ops->nic_disconnect(as, ids[i]),
				 0);

	/* a device of the server that does not exist (yet) */
	assert_int_equal(hpusim_model.ops->fabric_create(&fc, &fab3), 0);
	assert_int_equal(hpu_test_ndev_create(&x, fab3, 0, hpu_test_gaudi2()),
			 0);
	assert_int_equal(hpu_test_fw_nic_connect(x.f.as,
						 hpu_test_ndev_port_to(&x, 2),
						 0, 0, 2, &c),
			 -ENODEV);
	hpu_test_ndev_destroy(&x);
	hpusim_model.ops->fabric_destroy(fab3);
}

/* Write + signal; a FENCE on the receiver sees the data */
static void test_scaleup_write_signal(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *rx = &pr->d[1];
	struct hpu_info_nic i0, i1;
	uint8_t *copy;
	uint64_t copy_va;
	struct hpu_test_cb cb = { .len = 0 };
	uint32_t v;
	unsigned int n1 = hpu_test_fw_ndone(&rx->f);

	copy = hpu_test_ndev_shm_map(rx, HPU_TEST_FW_NIC_PAIR_BYTES, &copy_va);
	/* the receiver waits for SOB 9, then copies the region */
	hpu_test_cb_fence(&cb, 9, 2, 2);
	hpu_test_cb_dma(&cb, copy_va, pr->dst_va, HPU_TEST_FW_NIC_PAIR_BYTES);
	hpu_test_fw_submit1(&rx->f, rx->f.dma0, &cb, (void *)0x77);
	usleep(10000);
	assert_int_equal(hpu_test_fw_ndone(&rx->f), n1); /* parked */

	/* two writes: a small one and a large one (parallel slices) */
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 3, 1, 1000, pr->key, 9,
						    1),
			 HPU_FW_CS_OK);
	assert_int_equal(
		hpu_test_fw_nic_pair_write(pr, 4096, 4096,
					   HPU_TEST_FW_NIC_PAIR_BYTES - 4096,
					   pr->key, 9, 1),
		HPU_FW_CS_OK);
	hpu_test_fw_wait_done(&rx->f, n1 + 1);
	assert_int_equal(hpu_test_fw_result_of(&rx->f, (void *)0x77, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(copy + 3, pr->src + 1, 1000);
	assert_memory_equal(copy + 4096, pr->src + 4096,
			    HPU_TEST_FW_NIC_PAIR_BYTES - 4096);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 9, &v), 0);
	assert_int_equal(v, 0);

	/* signal only, and a saturating add */
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 0, pr->key, 10,
						    HPU_SOB_MAX_VALUE),
			 HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 0, pr->key, 10,
						    5),
			 HPU_FW_CS_OK);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 10, &v), 0);
	assert_int_equal(v, HPU_SOB_MAX_VALUE);

	hpusim_model.ops->nic_info(pr->d[0].f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_int_equal(i0.tx_bytes, HPU_TEST_FW_NIC_PAIR_BYTES - 4096 + 1000);
	assert_int_equal(i1.rx_bytes, HPU_TEST_FW_NIC_PAIR_BYTES - 4096 + 1000);
	assert_int_equal(i0.rx_bytes, 0);
	hpu_test_ndev_shm_unmap(rx, copy, HPU_TEST_FW_NIC_PAIR_BYTES, copy_va);
}

/* HBM on both sides: pieces of different extents */
static void test_scaleup_hbm(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0], *rx = &pr->d[1];
	struct hpu_fw_mem *ms, *md;
	uint64_t s, d, n = 5 * MiB + 123;
	struct hpu_test_cb cb = { .len = 0 };
	uint64_t key;

	s = hpu_test_fw_map_dev(&tx->f, 6 * MiB, &ms);
	d = hpu_test_fw_map_dev(&rx->f, 6 * MiB, &md);
	hpu_test_cb_dma(&cb, s, pr->src_va, 6 * MiB);
	assert_int_equal(hpu_test_fw_run1(&tx->f, tx->f.dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, d, 6 * MiB,
						HPU_NIC_MR_REMOTE_WRITE, &key),
			 0);
	cb.len = 0;
	hpu_test_cb_nic(&cb, s + 7, 11, n, pr->conn, key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f,
					  hpu_test_ndev_queue(tx, pr->port),
					  &cb, NULL),
			 HPU_FW_CS_OK);
	memset(pr->dst, 0, HPU_TEST_FW_NIC_PAIR_BYTES);
	cb.len = 0;
	hpu_test_cb_dma(&cb, pr->dst_va, d, 6 * MiB);
	assert_int_equal(hpu_test_fw_run1(&rx->f, rx->f.dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst + 11, pr->src + 7, n);
	assert_int_equal(pr->dst[10], 0);
	assert_int_equal(pr->dst[11 + n], 0);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(rx->f.as, key), 0);
	hpu_test_fw_unmap_dev(&rx->f, d, md);
	hpu_test_fw_unmap_dev(&tx->f, s, ms);
}

/* Wrong queue, unknown connection, faulting and pageable sources */
static void test_scaleup_engine_errors(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0];
	struct hpu_fw_fault fault;
	struct hpu_test_cb cb = { .len = 0 };
	uint8_t *host = aligned_alloc(4096, 4096);
	uint64_t hva;

	assert_non_null(host);
	memset(pr->dst, 0xee, 4096);
	hpu_test_cb_nic(&cb, pr->src_va, 0, 16, pr->conn, pr->key, 0, 0);
	/* the connection is on another port */
	assert_int_equal(hpu_test_fw_run1(&tx->f,
					  hpu_test_ndev_queue(tx, pr->port + 1),
					  &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(fault.engine, hpu_test_ndev_queue(tx, pr->port + 1));
	/* not a NIC queue */
	assert_int_equal(hpu_test_fw_run1(&tx->f, tx->f.dma0, &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	cb.len = 0;
	hpu_test_cb_nic(&cb, pr->src_va, 0, 16, pr->conn + 1, pr->key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f,
					  hpu_test_ndev_queue(tx, pr->port),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	/* unmapped source: a page fault */
	cb.len = 0;
	hpu_test_cb_nic(&cb, pr->src_va + HPU_TEST_FW_NIC_PAIR_BYTES - 8, 0, 16,
			pr->conn, pr->key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f,
					  hpu_test_ndev_queue(tx, pr->port),
					  &cb, &fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, pr->src_va + HPU_TEST_FW_NIC_PAIR_BYTES);
	assert_false(fault.is_write);
	/* pageable host source: engine error */
	hva = hpu_test_fw_map_host(&tx->f, host, 4096);
	cb.len = 0;
	hpu_test_cb_nic(&cb, hva, 0, 16, pr->conn, pr->key, 0, 0);
	assert_int_equal(hpu_test_fw_run1(&tx->f,
					  hpu_test_ndev_queue(tx, pr->port),
					  &cb, NULL),
			 HPU_FW_CS_ENGINE_ERR);
	hpu_test_fw_unmap_host(&tx->f, hva);
	free(host);
	assert_int_equal(pr->dst[0], 0xee);
}

static void test_scaleup_access_errors(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int e0 = hpu_test_ndev_nev(tx), e1 = hpu_test_ndev_nev(rx);
	uint64_t key2;
	uint32_t v;
	uint8_t before[64];

	memcpy(before, pr->dst, sizeof(before));
	/* out of range: the owner's context hears, with the far port */
	assert_int_equal(
		hpu_test_fw_nic_pair_write(pr, HPU_TEST_FW_NIC_PAIR_BYTES - 8,
					   0, 16, pr->key, 3, 1),
		HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0,
						HPU_EVENT_NIC_ACCESS_ERR, tx,
						pr->port),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						pr->far_port),
			 1);
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, ~0ULL - 2, 0, 16,
						    pr->key, 3, 1),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 3, &v), 0);
	assert_int_equal(v, 0);

	/* a revoked key: the context that accepted the connection hears */
	assert_int_equal(hpu_test_fw_nic_reg_mr(rx->f.as, pr->dst_va, 64,
						HPU_NIC_MR_REMOTE_WRITE, &key2),
			 0);
	assert_int_equal(hpu_test_fw_nic_dereg_mr(rx->f.as, key2), 0);
	e0 = hpu_test_ndev_nev(tx);
	e1 = hpu_test_ndev_nev(rx);
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, key2, 3, 1),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0,
						HPU_EVENT_NIC_ACCESS_ERR, tx,
						HPU_TEST_ANY_PORT),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPU_TEST_ANY_PORT),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, NULL,
						HPU_TEST_ANY_PORT),
			 0);
	pthread_mutex_lock(&tx->lock);
	assert_int_equal(tx->ev[e0].key, key2);
	assert_int_equal(tx->ev[e0].size, 64);
	pthread_mutex_unlock(&tx->lock);
	assert_memory_equal(pr->dst, before, sizeof(before));
	assert_int_equal(hpusim_model.ops->sob_read(rx->f.as, 3, &v), 0);
	assert_int_equal(v, 0);
	/* the good key still works */
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 3,
						    1),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
}

static void test_link_down_up(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int e0 = hpu_test_ndev_nev(tx), e1 = hpu_test_ndev_nev(rx);
	struct hpu_info_nic i0, i1;

	assert_int_equal(hpusim_model.ops->nic_set_link(tx->f.dev, 24, false),
			 -EINVAL);
	/* taken down at the far end: both ends go down */
	assert_int_equal(hpusim_model.ops->nic_set_link(rx->f.dev, pr->far_port,
							false),
			 0);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0, HPU_EVENT_LINK_DOWN,
						NULL, pr->port),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1, HPU_EVENT_LINK_DOWN,
						NULL, pr->far_port),
			 1);
	hpusim_model.ops->nic_info(tx->f.dev, &i0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_false(i0.ports_up_mask >> pr->port & 1);
	assert_false(i1.ports_up_mask >> pr->far_port & 1);
	assert_true(i0.ports_up_mask >> (pr->port + 1) & 1);

	memset(pr->dst, 0, 64);
	e0 = hpu_test_ndev_nev(tx);
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 0,
						    0),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0, HPU_EVENT_LINK_DOWN, tx,
						pr->port),
			 1);
	assert_int_equal(pr->dst[0], 0);

	assert_int_equal(
		hpusim_model.ops->nic_set_link(tx->f.dev, pr->port, true), 0);
	hpusim_model.ops->nic_info(rx->f.dev, &i1);
	assert_true(i1.ports_up_mask >> pr->far_port & 1);
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 0,
						    0),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
}

/* The owner's context goes away while device 0 writes into it */
static void test_as_destroy_while_writing(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0], *rx = &pr->d[1];
	unsigned int i, j, ok = 0, n0 = hpu_test_fw_ndone(&tx->f);
	const unsigned int ncs = 32;

	for (i = 0; i < ncs; i++) {
		struct hpu_test_cb cb = { .len = 0 };

		for (j = 0; j < 8; j++)
			hpu_test_cb_nic(&cb, pr->src_va + j * MiB, j * MiB, MiB,
					pr->conn, pr->key, 1, 1);
		hpu_test_fw_submit1(&tx->f, hpu_test_ndev_queue(tx, pr->port),
				    &cb, (void *)(uintptr_t)(0x5000 + i));
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
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 0,
						    0),
			 HPU_FW_CS_ENGINE_ERR);
	assert_true(ok >= 1);
	/* the device goes too: its peer sees the far end down */
	hpusim_model.ops->destroy(rx->f.dev);
	rx->f.dev = NULL;
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 0,
						    0),
			 HPU_FW_CS_ENGINE_ERR);
}

int main(void)
{
#define P(fn)                                                           \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_nic_pair_setup, \
					hpu_test_fw_nic_pair_teardown)
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
		P(test_link_down_up),
		P(test_as_destroy_while_writing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
