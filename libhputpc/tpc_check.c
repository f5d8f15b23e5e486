// SPDX-License-Identifier: MIT
/*
 * tpc_check.c - operand rules of the TPC kernel library
 * (docs/tpc-kernels.md), the part every kernel shares: dtypes, each used
 * tensor on its own (rank, sizes, strides, element count, no address
 * wrap), the operand and parameter counts of the kernel's descriptor,
 * unused fields zero; then the kernel's own rule (struct hputpc_kernel
 * .check, beside its body in tpc_<family>.c).
 */
#include <errno.h>
#include <string.h>

#include "tpc_lib.h"

size_t hputpc_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case HPU_DTYPE_FP32:
	case HPU_DTYPE_INT32:
		return 4;
	case HPU_DTYPE_BF16:
		return 2;
	default:
		return 0;
	}
}

uint64_t hputpc_nelems(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1;
	uint32_t d;

	for (d = 0; d < t->ndims; d++)
		n *= t->sizes[d];
	return n;
}

uint64_t hputpc_extent(const struct hpu_tpc_tensor *t)
{
	uint64_t last = 0;
	uint32_t d;

	if (!hputpc_nelems(t))
		return 0;
	for (d = 0; d < t->ndims; d++)
		last += (uint64_t)(t->sizes[d] - 1) * t->strides[d];
	return (last + 1) * hputpc_dtype_size(t->dtype);
}

bool hputpc_extents_meet(const struct hpu_tpc_tensor *a,
			 const struct hpu_tpc_tensor *b)
{
	uint64_t ae = a->addr + hputpc_extent(a),
		 be = b->addr + hputpc_extent(b);

	return ae > a->addr && be > b->addr && a->addr < be && b->addr < ae;
}

/* One tensor on its own: everything that does not depend on the kernel */
static int tensor_ok(const struct hpu_tpc_tensor *t)
{
	uint64_t n = 1, last = 0, prod, bytes;
	uint32_t d;

	if (!hputpc_dtype_size(t->dtype) || t->ndims > HPU_TPC_MAX_DIMS ||
	    t->reserved)
		return -EINVAL;
	for (d = t->ndims; d < HPU_TPC_MAX_DIMS; d++)
		if (t->sizes[d] || t->strides[d])
			return -EINVAL;
	for (d = 0; d < t->ndims; d++) {
		if (t->strides[d] > HPUTPC_MAX_ELEMS)
			return -EINVAL;
		n *= t->sizes[d]; /* <= 2^40 * 2^32: no wrap */
		if (n > HPUTPC_MAX_ELEMS)
			return -EINVAL;
	}
	if (!n)
		return 0;
	for (d = 0; d < t->ndims; d++) {
		if (__builtin_mul_overflow((uint64_t)(t->sizes[d] - 1),
					   t->strides[d], &prod) ||
		    __builtin_add_overflow(last, prod, &last))
			return -EINVAL;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, hputpc_dtype_size(t->dtype), &bytes) ||
	    t->addr + bytes < t->addr)
		return -EINVAL;
	return 0;
}

const char *hputpc_kernel_name(uint32_t id)
{
	const struct hputpc_kernel *r = hputpc_kernel_find(id);

	return r ? r->name : NULL;
}

int hputpc_check(const struct hpu_pkt_tpc_kernel *k)
{
	static const struct hpu_tpc_tensor zero;
	const struct hputpc_kernel *r = hputpc_kernel_find(k->kernel_id);
	unsigned int i;

	if (!r || !r->check || k->num_tensors > r->ntensors ||
	    k->num_tensors < (r->min_tensors ? r->min_tensors : r->ntensors))
		return -EINVAL;
	for (i = 0; i < HPU_TPC_MAX_TENSORS; i++) {
		if (i >= k->num_tensors ?
			    memcmp(&k->tensors[i], &zero, sizeof(zero)) :
			    tensor_ok(&k->tensors[i]))
			return -EINVAL;
	}
	for (i = r->nparams; i < HPU_TPC_MAX_PARAMS; i++)
		if (k->params[i])
			return -EINVAL;
	return r->check(k);
}

int hputpc_pkt_build(struct hpu_pkt_tpc_kernel *k, uint32_t kernel_id,
		     const struct hpu_tpc_tensor *tensors, unsigned int n,
		     const uint32_t *params, unsigned int nparams)
{
	if (!tensors || !n || n > HPU_TPC_MAX_TENSORS ||
	    nparams > HPU_TPC_MAX_PARAMS || (nparams && !params))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->hdr.opcode = HPU_PACKET_TPC_KERNEL;
	k->hdr.size = sizeof(*k);
	k->kernel_id = kernel_id;
	k->num_tensors = n;
	memcpy(k->tensors, tensors, n * sizeof(*tensors));
	if (nparams)
		memcpy(k->params, params, nparams * sizeof(*params));
	return hputpc_check(k);
}
