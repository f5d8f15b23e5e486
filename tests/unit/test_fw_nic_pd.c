// SPDX-License-Identifier: MIT
/*
 * test_fw_nic_pd.c - protection domains of the NIC engines (issue 14):
 * a context of the writer's device that the region's owner never
 * accepted cannot write into it, whatever key it knows or guesses;
 * acceptance, its errors, and keys never reused.
 */
#include "../lib/hpu_test_fw_nic.h"

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

static void intruder_start(struct hpu_test_fw_nic_pair *pr, struct intruder *x)
{
	struct hpu_test_fw *f0 = &pr->d[0].f;
	struct hpu_fw_as *own = f0->as;

	assert_int_equal(hpusim_model.ops->as_create(pr->d[0].f.dev, &x->e), 0);
	assert_int_equal(hpusim_model.ops->as_create(pr->d[1].f.dev, &x->c), 0);
	hpusim_model.ops->as_set_cookie(x->e, COOKIE_E);
	hpusim_model.ops->as_set_cookie(x->c, COOKIE_C);
	f0->as = x->e;
	x->src = hpu_test_ndev_shm_map(&pr->d[0], 4096, &x->src_va);
	f0->as = own;
	memset(x->src, 0x66, 4096);
}

static void intruder_stop(struct hpu_test_fw_nic_pair *pr, struct intruder *x)
{
	hpusim_model.ops->as_destroy(x->e);
	hpusim_model.ops->as_destroy(x->c);
	munmap(x->src, 4096);
}

/* E writes @n bytes with @key over its connection @conn on the pair's port */
static enum hpu_fw_cs_result intruder_write(struct hpu_test_fw_nic_pair *pr,
					    struct intruder *x, uint32_t conn,
					    uint64_t key, uint64_t n)
{
	struct hpu_test_fw *f0 = &pr->d[0].f;
	struct hpu_fw_as *own = f0->as;
	struct hpu_test_cb cb = { .len = 0 };
	enum hpu_fw_cs_result r;

	hpu_test_cb_nic(&cb, x->src_va, 0, n, conn, key, 3, 1);
	f0->as = x->e;
	r = hpu_test_fw_run1(f0, hpu_test_ndev_queue(&pr->d[0], pr->port), &cb,
			     NULL);
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
	struct hpu_test_fw_nic_pair *pr = *state;
	struct hpu_test_ndev *tx = &pr->d[0], *rx = &pr->d[1];
	struct intruder x;
	unsigned int e0, e1, i;
	uint8_t before[4096];
	uint32_t conn, id, v;

	intruder_start(pr, &x);
	memcpy(before, pr->dst, sizeof(before));
	assert_int_equal(hpu_test_fw_nic_connect(x.e, pr->port, 0, 0, 1, &conn),
			 0);

	/* the owner's real key over a connection nobody accepted */
	e0 = hpu_test_ndev_nev(tx);
	e1 = hpu_test_ndev_nev(rx);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0,
						HPU_EVENT_NIC_ACCESS_ERR,
						COOKIE_E, pr->port),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						pr->far_port),
			 1);

	/* accepted by another context of the owner's device: still refused */
	assert_int_equal(hpusim_model.ops->nic_accept(
				 x.c, hpu_test_fw_nic_last_token(), &id),
			 0);
	e0 = hpu_test_ndev_nev(tx);
	e1 = hpu_test_ndev_nev(rx);
	assert_int_equal(intruder_write(pr, &x, conn, pr->key, 4096),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(hpu_test_ndev_count_ev(tx, e0,
						HPU_EVENT_NIC_ACCESS_ERR,
						COOKIE_E, HPU_TEST_ANY_PORT),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR, rx,
						HPU_TEST_ANY_PORT),
			 1);
	assert_int_equal(hpu_test_ndev_count_ev(rx, e1,
						HPU_EVENT_NIC_ACCESS_ERR,
						COOKIE_C, HPU_TEST_ANY_PORT),
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
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, pr->key, 0,
						    0),
			 HPU_FW_CS_OK);
	assert_memory_equal(pr->dst, pr->src, 64);
	intruder_stop(pr, &x);
}

/* The writer's connection is accepted by the owner: the write lands */
static void test_pd_accepted_write(void **state)
{
	struct hpu_test_fw_nic_pair *pr = *state;
	struct intruder x;
	uint32_t conn, id;

	intruder_start(pr, &x);
	assert_int_equal(hpu_test_fw_nic_connect(x.e, pr->port, 0, 0, 1, &conn),
			 0);
	assert_int_equal(
		hpusim_model.ops->nic_accept(pr->d[1].f.as,
					     hpu_test_fw_nic_last_token(), &id),
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
	struct hpu_test_fw_nic_pair *pr = *state;
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
	struct hpu_test_fw_nic_pair *pr = *state;
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
	assert_int_equal(hpu_test_fw_nic_pair_write(pr, 0, 0, 64, keys[7], 0,
						    0),
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

int main(void)
{
#define P(fn)                                                           \
	cmocka_unit_test_setup_teardown(fn, hpu_test_fw_nic_pair_setup, \
					hpu_test_fw_nic_pair_teardown)
	const struct CMUnitTest tests[] = {
		P(test_pd_unaccepted_write),
		P(test_pd_accepted_write),
		P(test_pd_accept_errors),
		P(test_pd_keys_never_reused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
