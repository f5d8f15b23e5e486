/* SPDX-License-Identifier: MIT */
/*
 * ht_tensor.h - device tensors of the training library (docs/training.md)
 *
 * A tensor is a dtype (fp32, bf16, int32), a row-major shape of rank <= 4
 * (dimension 0 outermost) and the backend address of its element 0: a
 * device VA on the hpu backend, a pointer of this process on the cpu
 * backend. Its storage comes from one of the backend's arenas: the
 * persistent arena (parameters, gradients, optimizer state), never
 * reset, or the step arena (activations, temporaries), reset at every
 * step boundary and handing out the same addresses in every step that
 * makes the same calls.
 */
#ifndef HT_TENSOR_H
#define HT_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_packets.h"

#define HT_MAX_DIMS 4

/* Element types: the device's (uapi/hpu_packets.h) */
enum ht_dtype {
	HT_F32 = HPU_DTYPE_FP32,
	HT_BF16 = HPU_DTYPE_BF16,
	HT_I32 = HPU_DTYPE_INT32,
};

struct ht_backend;
struct ht_tensor;

/**
 * typedef ht_grad_hook_fn - called once a parameter's gradient is final
 * in ht_backward() (no later op of the backward pass writes it)
 * @be: the backend
 * @param: the parameter; @param->grad holds the gradient
 * @arg: the hook's argument
 *
 * Return: 0, or a negative errno that ends the backward pass.
 */
typedef int (*ht_grad_hook_fn)(struct ht_backend *be, struct ht_tensor *param,
			       void *arg);

/**
 * struct ht_tensor - a tensor
 * @be: backend owning its storage
 * @dtype: enum ht_dtype
 * @ndim: rank, 0..HT_MAX_DIMS (0: a scalar)
 * @sizes: sizes, dimension 0 outermost; 1 past @ndim
 * @numel: elements
 * @addr: backend address of element 0
 * @persistent: storage from the persistent arena (the struct is owned by
 *	whoever created it); else from the step arena (the struct is freed
 *	at the next step boundary)
 * @requires_grad: ops record themselves on the tape when an input has it
 * @is_param: a leaf whose gradient the optimizers use
 * @grad: gradient, fp32, same shape (NULL until a backward pass wrote one)
 * @grad_set: @grad holds a value to accumulate into; cleared by
 *	ht_zero_grad() so that the next write overwrites (no memset needed)
 * @grad_one: @grad is the seed of ht_backward() (all ones)
 * @pending: backward contributions still to come (ht_backward())
 * @hook: ht_grad_hook_fn of a parameter, or NULL
 * @hook_arg: its argument
 * @name: for messages, may be NULL
 * @next: the backend's list of step tensors
 */
struct ht_tensor {
	struct ht_backend *be;
	uint32_t dtype;
	unsigned int ndim;
	uint32_t sizes[HT_MAX_DIMS];
	uint64_t numel;
	uint64_t addr;
	bool persistent;
	bool requires_grad;
	bool is_param;
	struct ht_tensor *grad;
	bool grad_set;
	bool grad_one;
	unsigned int pending;
	ht_grad_hook_fn hook;
	void *hook_arg;
	const char *name;
	struct ht_tensor *next;
};

/** ht_dtype_size() - bytes of an element of @dtype (0 when unknown) */
size_t ht_dtype_size(uint32_t dtype);

/** ht_tensor_bytes() - bytes of @t's storage */
static inline uint64_t ht_tensor_bytes(const struct ht_tensor *t)
{
	return t->numel * ht_dtype_size(t->dtype);
}

/**
 * ht_tensor_new() - a tensor with fresh, uninitialised storage
 * @be: backend
 * @dtype: enum ht_dtype
 * @ndim: 0..HT_MAX_DIMS
 * @sizes: @ndim sizes, each >= 1
 * @persistent: from the persistent arena (free with ht_tensor_free());
 *	else from the step arena (freed at the next step boundary)
 * @out: receives the tensor
 *
 * Return: 0; -EINVAL; -ENOMEM.
 */
int ht_tensor_new(struct ht_backend *be, uint32_t dtype, unsigned int ndim,
		  const uint32_t *sizes, bool persistent,
		  struct ht_tensor **out);

/**
 * ht_tensor_like() - a step tensor with @t's shape
 * @t: model tensor
 * @dtype: element type of the new tensor
 * @out: receives it
 *
 * Return: 0 or -errno as ht_tensor_new().
 */
int ht_tensor_like(const struct ht_tensor *t, uint32_t dtype,
		   struct ht_tensor **out);

/**
 * ht_tensor_view() - a step tensor sharing @t's storage with another shape
 * @t: tensor
 * @ndim: rank of the view
 * @sizes: its sizes; their product must be @t->numel
 * @out: receives the view (no gradient flows through it)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ht_tensor_view(const struct ht_tensor *t, unsigned int ndim,
		   const uint32_t *sizes, struct ht_tensor **out);

/**
 * ht_tensor_slice() - a step tensor viewing consecutive elements of @t
 * @t: tensor
 * @off: first element viewed
 * @ndim: rank of the view
 * @sizes: its sizes; @off plus their product must be at most @t->numel
 * @out: receives the view (no gradient flows through it)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ht_tensor_slice(const struct ht_tensor *t, uint64_t off, unsigned int ndim,
		    const uint32_t *sizes, struct ht_tensor **out);

/**
 * ht_tensor_free() - free a persistent tensor's struct (its storage stays
 * in the persistent arena until the backend is destroyed)
 * @t: tensor or NULL
 */
void ht_tensor_free(struct ht_tensor *t);

/**
 * ht_tensor_upload() - copy host data into @t (part of the program)
 * @t: tensor
 * @src: ht_tensor_bytes(@t) bytes; may be reused once the call returned
 *
 * Return: 0 or -errno.
 */
int ht_tensor_upload(struct ht_tensor *t, const void *src);

/**
 * ht_tensor_fetch() - copy @t to host memory at the next synchronization
 * @t: tensor
 * @dst: ht_tensor_bytes(@t) bytes, valid until ht_backend_sync() or the
 *	step end returned
 *
 * Adds no submission of its own: lazy and graph steps fetch their loss
 * with the step's one CS.
 *
 * Return: 0 or -errno.
 */
int ht_tensor_fetch(struct ht_tensor *t, void *dst);

/**
 * ht_tensor_download() - copy @t to host memory now (synchronizes)
 * @t: tensor
 * @dst: ht_tensor_bytes(@t) bytes
 *
 * Return: 0 or -errno.
 */
int ht_tensor_download(struct ht_tensor *t, void *dst);

/**
 * ht_tensor_item() - the value of a one-element tensor as a float
 * @t: tensor of one element (fp32, bf16 or int32)
 * @v: receives it
 *
 * Synchronizes (in lazy mode: submits what is pending and waits).
 *
 * Return: 0, -EINVAL or -errno.
 */
int ht_tensor_item(struct ht_tensor *t, float *v);

/**
 * ht_tensor_fill() - set every element to @v (a TPC fill)
 * @t: tensor
 * @v: value (rounded for bf16, converted for int32)
 *
 * Return: 0 or -errno.
 */
int ht_tensor_fill(struct ht_tensor *t, float v);

/**
 * ht_tensor_desc() - the TPC descriptor of @t (innermost dimension first,
 * contiguous)
 * @t: tensor
 * @d: receives the descriptor
 */
void ht_tensor_desc(const struct ht_tensor *t, struct hpu_tpc_tensor *d);

#endif /* HT_TENSOR_H */
