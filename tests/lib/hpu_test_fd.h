/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_fd.h - an op's backward against central finite differences on
 * the training library's cpu backend (test_train_ops.c,
 * test_train_attn.c): every input's analytic gradient of a scalar loss
 * against (loss(x + h) - loss(x - h)) / 2h, element by element.
 */
#ifndef HPU_TEST_FD_H
#define HPU_TEST_FD_H

#include <stdbool.h>
#include <stdint.h>

struct ht_tensor;

/* The op under test: its output, from the inputs */
typedef int (*hpu_test_fd_op)(struct ht_tensor **in, struct ht_tensor **out);

/* The scalar loss the differences are taken of: @op run on @in, then reduced */
typedef int (*hpu_test_fd_loss)(hpu_test_fd_op op, struct ht_tensor **in,
				struct ht_tensor **loss);

/**
 * struct hpu_test_fd - how a test checks gradients
 * @loss: the loss
 * @h: the step of the differences
 * @abs_tol: absolute tolerance of analytic against differences
 * @rel_tol: relative tolerance, of the differences' value
 * @max: elements checked per input
 * @spread: the @max elements are spread evenly over a larger input
 *	(else its first @max)
 */
struct hpu_test_fd {
	hpu_test_fd_loss loss;
	float h;
	double abs_tol;
	double rel_tol;
	uint64_t max;
	bool spread;
};

/**
 * hpu_test_fd_check() - fail the test unless @op's backward matches the
 * differences for every input with requires_grad
 * @fd: the check
 * @op: the op
 * @in: its inputs: persistent fp32 tensors of the cpu backend (their
 *	host memory is perturbed in place and restored)
 * @nin: inputs, at most HPU_TEST_FD_MAX_IN
 *
 * Each input with requires_grad must get a gradient, and at least one
 * element must be checked.
 */
void hpu_test_fd_check(const struct hpu_test_fd *fd, hpu_test_fd_op op,
		       struct ht_tensor **in, unsigned int nin);

#define HPU_TEST_FD_MAX_IN 8

#endif /* HPU_TEST_FD_H */
