// SPDX-License-Identifier: MIT
/*
 * tensor.c - tensors: shapes, storage from the arenas, host transfers
 * (ht_tensor.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_bf16.h"
#include "ht_backend.h"
#include "ht_tensor.h"

size_t ht_dtype_size(uint32_t dtype)
{
	switch (dtype) {
	case HT_F32:
	case HT_I32:
		return 4;
	case HT_BF16:
		return 2;
	default:
		return 0;
	}
}

static int shape_set(struct ht_tensor *t, unsigned int ndim,
		     const uint32_t *sizes)
{
	unsigned int d;

	if (ndim > HT_MAX_DIMS || (ndim && !sizes))
		return -EINVAL;
	t->ndim = ndim;
	t->numel = 1;
	for (d = 0; d < HT_MAX_DIMS; d++) {
		t->sizes[d] = d < ndim ? sizes[d] : 1;
		if (!t->sizes[d])
			return -EINVAL;
		t->numel *= t->sizes[d];
	}
	return 0;
}

/* A tensor struct; step tensors go on the backend's list */
static struct ht_tensor *tensor_alloc(struct ht_backend *be, bool persistent)
{
	struct ht_tensor *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->be = be;
	t->persistent = persistent;
	if (!persistent) {
		t->next = be->step_tensors;
		be->step_tensors = t;
	}
	return t;
}

int ht_tensor_new(struct ht_backend *be, uint32_t dtype, unsigned int ndim,
		  const uint32_t *sizes, bool persistent,
		  struct ht_tensor **out)
{
	struct ht_tensor tmp = { 0 }, *t;
	int ret;

	if (!be || !out || !ht_dtype_size(dtype))
		return -EINVAL;
	ret = shape_set(&tmp, ndim, sizes);
	if (ret)
		return ret;
	t = tensor_alloc(be, persistent);
	if (!t)
		return -ENOMEM;
	t->dtype = dtype;
	t->ndim = tmp.ndim;
	t->numel = tmp.numel;
	memcpy(t->sizes, tmp.sizes, sizeof(t->sizes));
	ret = ht_arena_alloc(be, persistent ? &be->persist : &be->step,
			     ht_tensor_bytes(t), &t->addr);
	if (ret) {
		if (persistent)
			free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int ht_tensor_like(const struct ht_tensor *t, uint32_t dtype,
		   struct ht_tensor **out)
{
	return ht_tensor_new(t->be, dtype, t->ndim, t->sizes, false, out);
}

/*
 * A step tensor of @sizes viewing @t's elements from @off on: all of them
 * (@whole), or any run that fits in @t
 */
static int view_at(const struct ht_tensor *t, uint64_t off, bool whole,
		   unsigned int ndim, const uint32_t *sizes,
		   struct ht_tensor **out)
{
	struct ht_tensor tmp = { 0 }, *v;
	int ret = shape_set(&tmp, ndim, sizes);

	if (ret)
		return ret;
	if (whole ? tmp.numel != t->numel :
		    off > t->numel || tmp.numel > t->numel - off)
		return -EINVAL;
	v = tensor_alloc(t->be, false);
	if (!v)
		return -ENOMEM;
	v->dtype = t->dtype;
	v->ndim = tmp.ndim;
	v->numel = tmp.numel;
	memcpy(v->sizes, tmp.sizes, sizeof(v->sizes));
	v->addr = t->addr + off * ht_dtype_size(t->dtype);
	*out = v;
	return 0;
}

int ht_tensor_slice(const struct ht_tensor *t, uint64_t off, unsigned int ndim,
		    const uint32_t *sizes, struct ht_tensor **out)
{
	return view_at(t, off, false, ndim, sizes, out);
}

int ht_tensor_view(const struct ht_tensor *t, unsigned int ndim,
		   const uint32_t *sizes, struct ht_tensor **out)
{
	return view_at(t, 0, true, ndim, sizes, out);
}

void ht_tensor_free(struct ht_tensor *t)
{
	if (t && t->persistent) {
		ht_tensor_free(t->grad);
		free(t);
	}
}

int ht_tensor_upload(struct ht_tensor *t, const void *src)
{
	struct ht_backend *be = t->be;

	return be->ops->upload(be, t->addr, src, ht_tensor_bytes(t));
}

int ht_tensor_fetch(struct ht_tensor *t, void *dst)
{
	struct ht_backend *be = t->be;

	return be->ops->fetch(be, dst, t->addr, ht_tensor_bytes(t));
}

int ht_tensor_download(struct ht_tensor *t, void *dst)
{
	int ret = ht_tensor_fetch(t, dst);

	return ret ? ret : ht_backend_sync(t->be);
}

int ht_tensor_item(struct ht_tensor *t, float *v)
{
	union {
		float f;
		int32_t i;
		uint16_t h;
	} u;
	int ret;

	if (t->numel != 1)
		return -EINVAL;
	ret = ht_tensor_download(t, &u);
	if (ret)
		return ret;
	if (t->dtype == HT_F32)
		*v = u.f;
	else if (t->dtype == HT_I32)
		*v = (float)u.i;
	else
		*v = hpu_bf16_to_f32(u.h);
	return 0;
}

int ht_tensor_fill(struct ht_tensor *t, float v)
{
	struct hpu_tpc_tensor d;
	uint32_t p;

	ht_tensor_desc(t, &d);
	if (t->dtype == HT_I32) {
		int32_t i = (int32_t)v;

		memcpy(&p, &i, sizeof(p));
	} else {
		p = ht_f2u(v);
	}
	return ht_backend_kernel(t->be, HPU_TPC_KERNEL_FILL, &d, 1, &p, 1);
}

void ht_tensor_desc(const struct ht_tensor *t, struct hpu_tpc_tensor *d)
{
	uint64_t stride = 1;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->addr = t->addr;
	d->dtype = t->dtype;
	d->ndims = t->ndim;
	for (i = 0; i < t->ndim; i++) {
		d->sizes[i] = t->sizes[t->ndim - 1 - i];
		d->strides[i] = stride;
		stride *= d->sizes[i];
	}
}
