// SPDX-License-Identifier: MIT
/*
 * hpu_test_fd.c - gradients against central finite differences (see
 * hpu_test_fd.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_test_fd.h"
#include "ht_backend.h"
#include "ht_graph.h"

static float *host(struct ht_tensor *t)
{
	return (float *)(uintptr_t)t->addr; /* cpu backend: host memory */
}

/* The loss with gradients off, in a step of its own */
static float fd_eval(const struct hpu_test_fd *fd, hpu_test_fd_op op,
		     struct ht_tensor **in)
{
	struct ht_backend *be = in[0]->be;
	struct ht_tensor *loss;
	float v;

	assert_int_equal(ht_step_begin(be, false), 0);
	be->grad_enabled = false;
	assert_int_equal(fd->loss(op, in, &loss), 0);
	assert_int_equal(ht_tensor_item(loss, &v), 0);
	be->grad_enabled = true;
	assert_int_equal(ht_step_end(be), 0);
	return v;
}

void hpu_test_fd_check(const struct hpu_test_fd *fd, hpu_test_fd_op op,
		       struct ht_tensor **in, unsigned int nin)
{
	float *grads[HPU_TEST_FD_MAX_IN] = { 0 };
	unsigned int i, checked = 0;
	struct ht_backend *be;
	struct ht_tensor *loss;
	uint64_t j, step;

	assert_true(nin >= 1 && nin <= HPU_TEST_FD_MAX_IN);
	be = in[0]->be;
	assert_int_equal(ht_step_begin(be, false), 0);
	ht_zero_grad(in, nin);
	assert_int_equal(fd->loss(op, in, &loss), 0);
	assert_int_equal(ht_backward(loss), 0);
	for (i = 0; i < nin; i++) {
		if (!in[i]->requires_grad)
			continue;
		assert_non_null(in[i]->grad);
		assert_true(in[i]->grad_set);
		grads[i] = malloc(in[i]->numel * sizeof(float));
		assert_non_null(grads[i]);
		memcpy(grads[i], host(in[i]->grad),
		       in[i]->numel * sizeof(float));
	}
	assert_int_equal(ht_step_end(be), 0);

	for (i = 0; i < nin; i++) {
		if (!grads[i])
			continue;
		step = fd->spread && in[i]->numel > fd->max ?
			       in[i]->numel / fd->max :
			       1;
		for (j = 0; j < in[i]->numel && (fd->spread || j < fd->max);
		     j += step) {
			float *x = host(in[i]) + j, keep = *x, lp, lm;
			double num;

			*x = keep + fd->h;
			lp = fd_eval(fd, op, in);
			*x = keep - fd->h;
			lm = fd_eval(fd, op, in);
			*x = keep;
			num = (lp - lm) / (2 * fd->h);
			if (!(fabs(grads[i][j] - num) <=
			      fd->abs_tol + fd->rel_tol * fabs(num)))
				fail_msg(
					"input %u grad[%llu]: analytic %.9g, differences %.9g",
					i, (unsigned long long)j, grads[i][j],
					num);
			checked++;
		}
		free(grads[i]);
	}
	/* an input list without requires_grad would check nothing */
	assert_true(checked > 0);
}
