// SPDX-License-Identifier: MIT
/*
 * test_tpc_reduce.c - the reducing TPC kernels (bias gradient, sum/mean/
 * max over an axis, softmax, log-softmax, cross-entropy, layer norm and
 * its fusion with a bias and a residual add (bias_residual_ln),
 * embeddings, argmax, accuracy) and the optimizer steps against C
 * references in double, run through the model on a TPC queue.
 *
 * Tolerances (fp32): sums 1e-5 relative to the sum of magnitudes;
 * softmax/log-softmax/xent/layer norm 1e-5 absolute + 1e-5 relative;
 * max, argmax, accuracy, gather, scatter-add exact; optimizer steps
 * 1e-6 absolute + 1e-5 relative. Every kernel run twice gives the same
 * bits.
 */
#include "test_tpc_util.h"

/*
 * bias_grad over more columns than it sums at a time (256): every column
 * is exactly the fp32 sum of its rows in row order
 */
static void test_bias_grad_wide_exact(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[3] = { 300, 4, 3 }, c = 300, i, j;
	struct hpu_tpc_tensor d[2];
	float *x, *o;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 3, sz, (void **)&x);
	frand_fill(x, 300 * 12, 11, -2, 2);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &c, (void **)&o);
	krun(t, HPU_TPC_KERNEL_BIAS_GRAD, d, 2, NULL, 0);
	for (i = 0; i < 300; i++) {
		float s = 0.0f;

		for (j = 0; j < 12; j++)
			s += x[j * 300 + i];
		assert_memory_equal(&o[i], &s, sizeof(s));
	}
}

static void test_bias_grad_reduce(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[3] = { 7, 5, 3 }, c = 7, axis, i, j, k;
	struct hpu_tpc_tensor d[2];
	float *x, *o;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 3, sz, (void **)&x);
	frand_fill(x, 105, 3, -2, 2);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &c, (void **)&o);
	krun(t, HPU_TPC_KERNEL_BIAS_GRAD, d, 2, NULL, 0);
	for (i = 0; i < 7; i++) {
		double s = 0, m = 0;

		for (j = 0; j < 15; j++) {
			s += x[j * 7 + i];
			m += fabs(x[j * 7 + i]);
		}
		assert_close(o[i], s, 0, 1e-5 * m / (fabs(s) + 1e-30));
	}
	x[8] = NAN; /* one NaN: it reaches the max and the sum of its lane */
	for (axis = 0; axis < 3; axis++) {
		uint32_t osz[3] = { 7, 5, 3 };

		osz[axis] = 1;
		d[1] = tnew(t, HPU_DTYPE_FP32, 3, osz, (void **)&o);
		for (uint32_t id = HPU_TPC_KERNEL_REDUCE_SUM;
		     id <= HPU_TPC_KERNEL_REDUCE_MAX; id++) {
			krun(t, id, d, 2, &axis, 1);
			for (k = 0; k < osz[2]; k++)
				for (j = 0; j < osz[1]; j++)
					for (i = 0; i < osz[0]; i++) {
						double s = 0, mx = -INFINITY;
						uint32_t l;

						for (l = 0; l < sz[axis]; l++) {
							uint32_t ix[3] = { i, j,
									   k };
							float v;

							ix[axis] = l;
							v = x[(ix[2] * 5 +
							       ix[1]) *
								      7 +
							      ix[0]];
							s += v;
							mx = isnan(v) || v > mx ?
								     v :
								     mx;
							if (isnan(mx))
								break;
						}
						if (id ==
						    HPU_TPC_KERNEL_REDUCE_MEAN)
							s /= sz[axis];
						assert_close(
							o[(k * osz[1] + j) *
								  osz[0] +
							  i],
							id == HPU_TPC_KERNEL_REDUCE_MAX ?
								mx :
								s,
							1e-5, 1e-5);
					}
		}
	}
}

static void test_softmax_xent(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 11, 6 }, n = 6, i, r;
	struct hpu_tpc_tensor d[3];
	float *x, *o, *lo, *loss, *g, *o2;
	int32_t *lab, *am, *cnt;
	double total = 0;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&x);
	frand_fill(x, 66, 8, -30, 30);
	x[5] = 80.0f; /* large logits: stable */
	d[1] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o);
	krun(t, HPU_TPC_KERNEL_SOFTMAX, d, 2, NULL, 0);
	o2 = (float *)(void *)hpu_test_xmalloc(66 * 4);
	memcpy(o2, o, 66 * 4);
	krun(t, HPU_TPC_KERNEL_SOFTMAX, d, 2, NULL, 0);
	assert_memory_equal(o, o2, 66 * 4); /* deterministic */
	free(o2);
	d[1] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&lo);
	krun(t, HPU_TPC_KERNEL_LOG_SOFTMAX, d, 2, NULL, 0);
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&lab);
	for (r = 0; r < 6; r++)
		lab[r] = (int32_t)((r * 7) % 11);
	d[2] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&loss);
	krun(t, HPU_TPC_KERNEL_XENT_FWD, d, 3, NULL, 0);
	for (r = 0; r < 6; r++) {
		double m = -INFINITY, z = 0;

		for (i = 0; i < 11; i++)
			m = fmax(m, x[r * 11 + i]);
		for (i = 0; i < 11; i++)
			z += exp(x[r * 11 + i] - m);
		for (i = 0; i < 11; i++) {
			double ls = x[r * 11 + i] - m - log(z);

			assert_close(o[r * 11 + i], exp(ls), 1e-5, 1e-5);
			assert_close(lo[r * 11 + i], ls, 1e-5, 1e-5);
		}
		total -= x[r * 11 + lab[r]] - m - log(z);
	}
	assert_close(*loss, total / 6, 1e-5, 1e-5);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&g);
	krun(t, HPU_TPC_KERNEL_XENT_BWD, d, 3, NULL, 0);
	for (r = 0; r < 6; r++)
		for (i = 0; i < 11; i++)
			assert_close(g[r * 11 + i],
				     (o[r * 11 + i] - (i == (uint32_t)lab[r])) /
					     6.0,
				     1e-6, 1e-5);
	/* argmax and accuracy */
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&am);
	krun(t, HPU_TPC_KERNEL_ARGMAX, d, 2, NULL, 0);
	for (r = 0; r < 6; r++) {
		int32_t best = 0;

		for (i = 1; i < 11; i++)
			if (x[r * 11 + i] > x[r * 11 + best])
				best = (int32_t)i;
		assert_int_equal(am[r], best);
	}
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&lab);
	for (r = 0; r < 6; r++)
		lab[r] = r < 2 ? am[r] : (am[r] + 1) % 11;
	d[2] = tnew(t, HPU_DTYPE_INT32, 0, NULL, (void **)&cnt);
	krun(t, HPU_TPC_KERNEL_ACCURACY, d, 3, NULL, 0);
	assert_int_equal(*cnt, 2);
	/* a label out of range makes the loss NaN */
	lab[3] = 11;
	d[2] = tnew(t, HPU_DTYPE_FP32, 0, NULL, (void **)&loss);
	krun(t, HPU_TPC_KERNEL_XENT_FWD, d, 3, NULL, 0);
	assert_true(isnan(*loss));
}

static void test_layernorm(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 19, 5 }, D = 19, R = 5, i, r;
	uint32_t eps = fbits(1e-5f);
	struct hpu_tpc_tensor d[8];
	float *x, *ga, *be, *y, *mu, *rs, *dy, *dx, *dg, *db;
	double rdg[19] = { 0 }, rdb[19] = { 0 };

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&x);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&ga);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&be);
	d[3] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&y);
	d[4] = tnew(t, HPU_DTYPE_FP32, 1, &R, (void **)&mu);
	d[5] = tnew(t, HPU_DTYPE_FP32, 1, &R, (void **)&rs);
	frand_fill(x, 95, 21, -3, 5);
	frand_fill(ga, 19, 22, 0.5f, 1.5f);
	frand_fill(be, 19, 23, -1, 1);
	krun(t, HPU_TPC_KERNEL_LAYERNORM_FWD, d, 6, &eps, 1);
	{
		struct hpu_tpc_tensor b[8] = { d[0], d[1], d[4], d[5] };

		b[4] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&dy);
		b[5] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&dx);
		b[6] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&dg);
		b[7] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&db);
		frand_fill(dy, 95, 24, -1, 1);
		krun(t, HPU_TPC_KERNEL_LAYERNORM_BWD, b, 8, NULL, 0);
	}
	for (r = 0; r < R; r++) {
		double m = 0, v = 0, rstd, s1 = 0, s2 = 0;
		const float *xr = x + r * D, *gr = dy + r * D;

		for (i = 0; i < D; i++)
			m += xr[i];
		m /= D;
		for (i = 0; i < D; i++)
			v += (xr[i] - m) * (xr[i] - m);
		rstd = 1 / sqrt(v / D + 1e-5);
		assert_close(mu[r], m, 1e-6, 1e-5);
		assert_close(rs[r], rstd, 1e-6, 1e-5);
		for (i = 0; i < D; i++) {
			double xh = (xr[i] - m) * rstd;

			assert_close(y[r * D + i], xh * ga[i] + be[i], 1e-5,
				     1e-5);
			s1 += gr[i] * ga[i];
			s2 += gr[i] * ga[i] * xh;
			rdg[i] += gr[i] * xh;
			rdb[i] += gr[i];
		}
		for (i = 0; i < D; i++) {
			double xh = (xr[i] - m) * rstd;

			assert_close(
				dx[r * D + i],
				rstd * (gr[i] * ga[i] - s1 / D - xh * s2 / D),
				1e-5, 1e-4);
		}
	}
	for (i = 0; i < D; i++) {
		assert_close(dg[i], rdg[i], 1e-5, 1e-5);
		assert_close(db[i], rdb[i], 1e-5, 1e-5);
	}
}

/*
 * bias_residual_ln: the bits of bias_add, add and layernorm_fwd run one
 * after the other (also in place, h_out = h), near a double reference;
 * operand sets the rule refuses
 */
static void test_bias_residual_ln(void **state)
{
	struct tfix *t = *state;
	uint32_t sz[2] = { 19, 5 }, D = 19, R = 5, i, r;
	uint32_t eps = fbits(1e-5f);
	struct hpu_tpc_tensor d[7], s[6], bad[7];
	float *y, *b, *h, *ho, *ga, *be, *o, *tt, *h2, *o2, *mu, *rs;
	struct hpu_pkt_tpc_kernel k;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&y);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&b);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&h);
	d[3] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&ho);
	d[4] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&ga);
	d[5] = tnew(t, HPU_DTYPE_FP32, 1, &D, (void **)&be);
	d[6] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o);
	frand_fill(y, 95, 31, -3, 3);
	frand_fill(b, 19, 32, -1, 1);
	frand_fill(h, 95, 33, -5, 5);
	frand_fill(ga, 19, 34, 0.5f, 1.5f);
	frand_fill(be, 19, 35, -1, 1);
	krun(t, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, d, 7, &eps, 1);

	/* the three kernels it replaces */
	s[0] = d[0];
	s[1] = d[1];
	s[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&tt);
	krun(t, HPU_TPC_KERNEL_BIAS_ADD, s, 3, NULL, 0);
	s[0] = d[2];
	s[1] = s[2];
	s[2] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&h2);
	krun(t, HPU_TPC_KERNEL_ADD, s, 3, NULL, 0);
	s[0] = s[2];
	s[1] = d[4];
	s[2] = d[5];
	s[3] = tnew(t, HPU_DTYPE_FP32, 2, sz, (void **)&o2);
	s[4] = tnew(t, HPU_DTYPE_FP32, 1, &R, (void **)&mu);
	s[5] = tnew(t, HPU_DTYPE_FP32, 1, &R, (void **)&rs);
	krun(t, HPU_TPC_KERNEL_LAYERNORM_FWD, s, 6, &eps, 1);
	assert_memory_equal(ho, h2, 95 * sizeof(float));
	assert_memory_equal(o, o2, 95 * sizeof(float));
	for (r = 0; r < R; r++) {
		double m = 0, v = 0, rstd;

		for (i = 0; i < D; i++) {
			double x = (double)h[r * D + i] + y[r * D + i] + b[i];

			assert_close(ho[r * D + i], x, 1e-6, 1e-6);
			m += x;
		}
		m /= D;
		for (i = 0; i < D; i++)
			v += (ho[r * D + i] - m) * (ho[r * D + i] - m);
		rstd = 1 / sqrt(v / D + 1e-5);
		for (i = 0; i < D; i++)
			assert_close(o[r * D + i],
				     (ho[r * D + i] - m) * rstd * ga[i] + be[i],
				     1e-5, 1e-5);
	}
	/* in place: h_out = h */
	d[3] = d[2];
	memset(o, 0, 95 * sizeof(float));
	krun(t, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, d, 7, &eps, 1);
	assert_memory_equal(h, h2, 95 * sizeof(float));
	assert_memory_equal(o, o2, 95 * sizeof(float));

	/* refused: out over h_out, over y; a short gamma; eps 0; 6 tensors */
	memcpy(bad, d, sizeof(bad));
	bad[6] = d[3];
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, bad, 7, &eps, 1);
	assert_int_equal(hputpc_check(&k), -EINVAL);
	bad[6] = d[0];
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, bad, 7, &eps, 1);
	assert_int_equal(hputpc_check(&k), -EINVAL);
	memcpy(bad, d, sizeof(bad));
	bad[4].sizes[0] = 18;
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, bad, 7, &eps, 1);
	assert_int_equal(hputpc_check(&k), -EINVAL);
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, d, 7, (uint32_t[]){ 0 },
		1);
	assert_int_equal(hputpc_check(&k), -EINVAL);
	tpc_pkt(&k, HPU_TPC_KERNEL_BIAS_RESIDUAL_LN, d, 6, &eps, 1);
	assert_int_equal(hputpc_check(&k), -EINVAL);
}

static void test_embedding(void **state)
{
	struct tfix *t = *state;
	uint32_t tsz[2] = { 6, 10 }, n = 8, osz[2] = { 6, 8 }, i, r;
	struct hpu_tpc_tensor d[3];
	struct hpu_fw_fault fault;
	float *tb, *o, *acc, ref[60];
	int32_t *ids;

	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 2, tsz, (void **)&tb);
	d[1] = tnew(t, HPU_DTYPE_INT32, 1, &n, (void **)&ids);
	d[2] = tnew(t, HPU_DTYPE_FP32, 2, osz, (void **)&o);
	frand_fill(tb, 60, 31, -1, 1);
	for (r = 0; r < 8; r++)
		ids[r] = (int32_t)((r * 3) % 10);
	ids[7] = ids[0]; /* a repeated id accumulates twice */
	krun(t, HPU_TPC_KERNEL_EMBED_GATHER, d, 3, NULL, 0);
	for (r = 0; r < 8; r++)
		for (i = 0; i < 6; i++)
			assert_true(o[r * 6 + i] == tb[ids[r] * 6 + i]);
	/* scatter-add: dout, ids, dtable */
	{
		struct hpu_tpc_tensor s[3] = { d[2], d[1], d[0] };

		acc = tb;
		memcpy(ref, acc, sizeof(ref));
		for (r = 0; r < 8; r++)
			for (i = 0; i < 6; i++)
				ref[ids[r] * 6 + i] += o[r * 6 + i];
		krun(t, HPU_TPC_KERNEL_EMBED_SCATTER_ADD, s, 3, NULL, 0);
		assert_memory_equal(acc, ref, sizeof(ref));
		/* an id out of range: engine error, nothing written */
		ids[4] = 10;
		assert_int_equal(krun_q(t, t->tpc0,
					HPU_TPC_KERNEL_EMBED_SCATTER_ADD, s, 3,
					NULL, 0, &fault),
				 HPU_FW_CS_ENGINE_ERR);
		assert_memory_equal(acc, ref, sizeof(ref));
	}
}

static void test_optimizers(void **state)
{
	struct tfix *t = *state;
	uint32_t n = 333, i, step, nest;
	struct hpu_tpc_tensor d[4];
	float *p, *g, *m, *v;
	double rp[333], rm[333], rv[333];

	for (nest = 0; nest < 2; nest++) {
		uint32_t pr[4] = { fbits(0.1f), fbits(0.9f), fbits(0.01f),
				   nest };

		treset(t);
		d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&p);
		d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
		d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&m);
		frand_fill(p, n, 41, -1, 1);
		memset(m, 0, n * 4);
		for (i = 0; i < n; i++) {
			rp[i] = p[i];
			rm[i] = 0;
		}
		for (step = 0; step < 3; step++) {
			frand_fill(g, n, 50 + step, -1, 1);
			krun(t, HPU_TPC_KERNEL_SGD_STEP, d, 3, pr, 4);
			for (i = 0; i < n; i++) {
				double dd = g[i] + 0.01 * rp[i];

				rm[i] = 0.9 * rm[i] + dd;
				dd = nest ? dd + 0.9 * rm[i] : rm[i];
				rp[i] -= 0.1 * dd;
				assert_close(p[i], rp[i], 1e-6, 1e-5);
				assert_close(m[i], rm[i], 1e-6, 1e-5);
			}
		}
	}
	treset(t);
	d[0] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&p);
	d[1] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&g);
	d[2] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&m);
	d[3] = tnew(t, HPU_DTYPE_FP32, 1, &n, (void **)&v);
	frand_fill(p, n, 61, -1, 1);
	memset(m, 0, n * 4);
	memset(v, 0, n * 4);
	for (i = 0; i < n; i++) {
		rp[i] = p[i];
		rm[i] = rv[i] = 0;
	}
	for (step = 1; step <= 4; step++) {
		uint32_t pr[6] = { fbits(1e-2f), fbits(0.9f),  fbits(0.999f),
				   fbits(1e-8f), fbits(0.01f), step };

		frand_fill(g, n, 70 + step, -1, 1);
		krun(t, HPU_TPC_KERNEL_ADAMW_STEP, d, 4, pr, 6);
		for (i = 0; i < n; i++) {
			double mh, vh;

			rp[i] -= 1e-2 * 0.01 * rp[i];
			rm[i] = 0.9 * rm[i] + 0.1 * g[i];
			rv[i] = 0.999 * rv[i] + 0.001 * g[i] * g[i];
			mh = rm[i] / (1 - pow(0.9, step));
			vh = rv[i] / (1 - pow(0.999, step));
			rp[i] -= 1e-2 * mh / (sqrt(vh) + 1e-8);
			assert_close(p[i], rp[i], 1e-6, 1e-5);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bias_grad_reduce),
		cmocka_unit_test(test_bias_grad_wide_exact),
		cmocka_unit_test(test_softmax_xent),
		cmocka_unit_test(test_layernorm),
		cmocka_unit_test(test_bias_residual_ln),
		cmocka_unit_test(test_embedding),
		cmocka_unit_test(test_optimizers),
	};

	return cmocka_run_group_tests(tests, tsetup, tteardown);
}
