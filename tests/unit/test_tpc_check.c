// SPDX-License-Identifier: MIT
/*
 * test_tpc_check.c - the TPC operand rules (libhputpc: hputpc_check()) as the
 * driver's packet validator applies them, and the engine's own refusals:
 * malformed descriptors, unmapped operands (page fault, nothing written),
 * pageable host operands and non-TPC queues (engine error).
 */
#include "test_tpc_util.h"
#include "hpu_fused.h"

/* A valid ADD of three [6][5] fp32 tensors (addresses are not checked) */
static void good_add(struct hpu_pkt_tpc_kernel *k)
{
	uint32_t sz[2] = { 5, 6 };
	struct hpu_tpc_tensor d[3];

	d[0] = tens(0x1000, HPU_DTYPE_FP32, 2, sz);
	d[1] = tens(0x2000, HPU_DTYPE_FP32, 2, sz);
	d[2] = tens(0x3000, HPU_DTYPE_FP32, 2, sz);
	tpc_pkt(k, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
}

static int validate(const struct hpu_pkt_tpc_kernel *k)
{
	return hfd_packets_validate(k, sizeof(*k), HFD_QUEUE_TPC, NULL);
}

static void test_rules(void **state)
{
	struct hpu_pkt_tpc_kernel k;

	good_add(&k);
	assert_int_equal(validate(&k), 0);
	/* not on a DMA queue */
	assert_int_equal(hfd_packets_validate(&k, sizeof(k), HFD_QUEUE_DMA,
					      NULL),
			 -EINVAL);
#define BAD(stmt)                                            \
	do {                                                 \
		good_add(&k);                                \
		stmt;                                        \
		assert_int_equal(hputpc_check(&k), -EINVAL); \
		assert_int_equal(validate(&k), -EINVAL);     \
	} while (0)
	BAD(k.kernel_id = 0);
	BAD(k.kernel_id = HPU_TPC_KERNEL_COUNT);
	BAD(k.kernel_id = 0xffffffff);
	BAD(k.num_tensors = 2);
	BAD(k.num_tensors = 4);
	BAD(k.tensors[3].addr = 1); /* unused tensor not zero */
	BAD(k.params[0] = 1);	    /* unused param */
	BAD(k.tensors[0].dtype = 0);
	BAD(k.tensors[0].dtype = 4);
	BAD(k.tensors[2].dtype = HPU_DTYPE_INT32); /* add is float only */
	BAD(k.tensors[0].ndims = 6);
	BAD(k.tensors[0].sizes[2] = 1); /* past ndims */
	BAD(k.tensors[0].strides[4] = 1);
	BAD(k.tensors[0].reserved = 1);
	BAD(k.tensors[0].sizes[0] = 4); /* not broadcastable */
	BAD(k.tensors[0].ndims = 3; k.tensors[0].sizes[2] = 1;
	    k.tensors[0].strides[2] = 1); /* rank above the output's */
	/* element count above 2^40 */
	BAD(k.tensors[0].ndims = 5;
	    for (int i = 0; i < 5; i++) k.tensors[0].sizes[i] = 1u << 9;);
	BAD(k.tensors[2].strides[1] = 1ULL << 41); /* stride too big */
	BAD(k.tensors[2].addr = ~0ULL - 16);	   /* address wraps */
	/* a bad reduction axis, a bad dropout probability */
	{
		uint32_t sz[2] = { 4, 3 }, osz[2] = { 1, 3 }, ax = 2;
		struct hpu_tpc_tensor d[3];

		d[0] = tens(0x1000, HPU_DTYPE_FP32, 2, sz);
		d[1] = tens(0x2000, HPU_DTYPE_FP32, 2, osz);
		tpc_pkt(&k, HPU_TPC_KERNEL_REDUCE_SUM, d, 2, &ax, 1);
		assert_int_equal(hputpc_check(&k), -EINVAL);
		ax = 0;
		tpc_pkt(&k, HPU_TPC_KERNEL_REDUCE_SUM, d, 2, &ax, 1);
		assert_int_equal(hputpc_check(&k), 0);
		d[1] = tens(0x2000, HPU_DTYPE_FP32, 2, sz);
		d[2] = tens(0x3000, HPU_DTYPE_FP32, 2, sz);
		ax = fbits(1.0f);
		tpc_pkt(&k, HPU_TPC_KERNEL_DROPOUT, d, 3, &ax, 1);
		assert_int_equal(hputpc_check(&k), -EINVAL);
		ax = fbits(NAN);
		tpc_pkt(&k, HPU_TPC_KERNEL_DROPOUT, d, 3, &ax, 1);
		assert_int_equal(hputpc_check(&k), -EINVAL);
	}
#undef BAD
	/* zero-size tensors pass */
	good_add(&k);
	k.tensors[0].sizes[0] = 0;
	k.tensors[1].sizes[0] = 0;
	k.tensors[2].sizes[0] = 0;
	assert_int_equal(validate(&k), 0);
	/* every kernel has a name */
	for (uint32_t id = 1; id < HPU_TPC_KERNEL_COUNT; id++)
		assert_non_null(hputpc_kernel_name(id));
	assert_null(hputpc_kernel_name(0));
}

static void test_engine_refusals(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 64, i;
	struct hpu_tpc_tensor d[3];
	struct hpu_fw_fault fault;
	float *a, *o, *host;
	uint64_t hva;
	struct hpu_test_cb cb = { .len = 0 };
	struct hpu_pkt_tpc_kernel *k;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&a);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&o);
	for (i = 0; i < n; i++)
		o[i] = 7.0f;
	/* an input past the end of the arena: page fault, output untouched */
	d[2] = d[1];
	d[1].addr = t->va + ARENA_SIZE - 128;
	assert_int_equal(krun_q(t, t->tpc0, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0,
				&fault),
			 HPU_FW_CS_PAGE_FAULT);
	assert_int_equal(fault.addr, t->va + ARENA_SIZE);
	assert_int_equal(fault.engine, t->tpc0);
	for (i = 0; i < n; i++)
		assert_true(o[i] == 7.0f);
	/* an operand in pageable host memory: engine error */
	host = (float *)(void *)hpu_test_xmalloc(4096);
	hva = hpu_test_fw_map_host(t->f, host, 4096);
	d[1] = d[0];
	d[1].addr = hva;
	assert_int_equal(krun_q(t, t->tpc0, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0,
				&fault),
			 HPU_FW_CS_ENGINE_ERR);
	hpu_test_fw_unmap_host(t->f, hva);
	free(host);
	/* a TPC packet on a DMA or MME queue: engine error */
	d[1] = d[0];
	assert_int_equal(krun_q(t, t->f->dma0, HPU_TPC_KERNEL_ADD, d, 3, NULL,
				0, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	assert_int_equal(krun_q(t, t->f->mme0, HPU_TPC_KERNEL_ADD, d, 3, NULL,
				0, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	/* a malformed packet that skipped the driver: engine error */
	k = hpu_test_cb_put(&cb, HPU_PACKET_TPC_KERNEL, sizeof(*k), 0);
	tpc_pkt(k, HPU_TPC_KERNEL_ADD, d, 3, NULL, 0);
	k->tensors[0].sizes[0] = 1000; /* does not match the output */
	assert_int_equal(hpu_test_fw_run1(t->f, t->tpc0, &cb, &fault),
			 HPU_FW_CS_ENGINE_ERR);
	for (i = 0; i < n; i++)
		assert_true(o[i] == 7.0f);
}

/* An operand in HBM that spans several device extents is staged */
static void test_hbm_operands(void **state)
{
	struct tfix *t = *state;
	struct hpu_fw_mem *m;
	uint64_t len = 3 * MiB, dva, n = len / 4, i;
	uint32_t sz = (uint32_t)n, p = fbits(2.0f);
	struct hpu_tpc_tensor d[2];
	float *src, *dst;
	uint64_t sva;
	struct hpu_test_cb cb = { .len = 0 };

	treset(t);
	src = talloc(t, len, &sva);
	frand_fill(src, n, 77, -1, 1);
	dva = hpu_test_fw_map_dev(t->f, len, &m);
	hpu_test_cb_dma(&cb, dva, sva, len);
	assert_int_equal(hpu_test_fw_run1(t->f, t->f->dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	/* in place in HBM: x *= 2 */
	d[0] = tens(dva, HPU_DTYPE_FP32, 1, &sz);
	d[1] = d[0];
	krun(t, HPU_TPC_KERNEL_SCALE, d, 2, &p, 1);
	dst = talloc(t, len, &sva);
	cb.len = 0;
	hpu_test_cb_dma(&cb, sva, dva, len);
	assert_int_equal(hpu_test_fw_run1(t->f, t->f->dma0, &cb, NULL),
			 HPU_FW_CS_OK);
	for (i = 0; i < n; i++)
		assert_true(dst[i] == 2.0f * src[i]);
	hpu_test_fw_unmap_dev(t->f, dva, m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_engine_refusals),
		cmocka_unit_test(test_hbm_operands),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
