// SPDX-License-Identifier: MIT
/*
 * hl_memory.c - MEMORY of the habanalabs personality (docs/habanalabs.md,
 * "MEMORY"): device memory alloc/free/map and host memory map/unmap with
 * the real flags, done by the hpu MEMORY handler on the context's address
 * space, and answered with the real driver's values and errors.
 */
#include <errno.h>
#include <string.h>

#include "hl_personality.h"

/* Host mappings are of 4 KiB pages (no huge pages are asked for) */
#define HL_HOST_PAGE_SIZE 4096ULL
/*
 * A MAP hint as the real driver takes it: one that is not aligned to
 * @align or outside the VA range [@lo, @hi) is ignored, unless the hint is
 * forced (FORCE_HINT), which makes it -EINVAL; a forced hint is mapped
 * there or nowhere (HPU_MEM_FIXED).
 */
static int take_hint(struct hpu_mem_in *h, uint32_t flags, uint64_t align,
		     uint64_t lo, uint64_t hi)
{
	uint64_t hint = h->device_virt_addr;
	bool force = flags & HL_MEM_FORCE_HINT;

	if (!hint)
		return 0;
	if ((hint & (align - 1)) || hint < lo || hint >= hi) {
		if (force)
			return -EINVAL;
		h->device_virt_addr = 0;
		return 0;
	}
	if (force)
		h->flags |= HPU_MEM_FIXED;
	return 0;
}

/* The hpu request of an hl one; -EINVAL for what the hpu ABI has no op for */
static int to_hpu(const struct hl_mem_in *in, uint64_t dram_page,
		  struct hpu_mem_in *h)
{
	memset(h, 0, sizeof(*h));
	switch (in->op) {
	case HL_MEM_OP_ALLOC:
		h->op = HPU_MEM_OP_ALLOC;
		h->size = in->alloc.mem_size;
		h->page_size = in->alloc.page_size;
		if (in->flags & HL_MEM_CONTIGUOUS)
			h->flags |= HPU_MEM_CONTIGUOUS;
		return 0;
	case HL_MEM_OP_FREE:
		h->op = HPU_MEM_OP_FREE;
		h->handle = in->free.handle;
		return 0;
	case HL_MEM_OP_MAP:
		h->op = HPU_MEM_OP_MAP;
		if (in->flags & HL_MEM_USERPTR) {
			h->flags = HPU_MEM_USERPTR;
			h->host_virt_addr = in->map_host.host_virt_addr;
			h->size = in->map_host.mem_size;
			h->device_virt_addr = in->map_host.hint_addr;
			return take_hint(h, in->flags, HL_HOST_PAGE_SIZE,
					 HPU_FW_VA_HOST_BASE,
					 HPU_FW_VA_HOST_END);
		}
		h->handle = in->map_device.handle;
		h->device_virt_addr = in->map_device.hint_addr;
		return take_hint(h, in->flags, dram_page, HPU_FW_VA_DEVICE_BASE,
				 HPU_FW_VA_DEVICE_END);
	case HL_MEM_OP_UNMAP:
		h->op = HPU_MEM_OP_UNMAP;
		h->device_virt_addr = in->unmap.device_virt_addr;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The real driver's errno for what the hpu handler answered */
static int to_hl_err(uint32_t op, int ret)
{
	/* FREE of a mapped allocation: the real driver says -EINVAL */
	if (op == HL_MEM_OP_FREE && ret == -EBUSY)
		return -EINVAL;
	/* a forced hint that overlaps: no VA could be had there */
	if (op == HL_MEM_OP_MAP && ret == -EEXIST)
		return -ENOMEM;
	return ret;
}

/**
 * hfd_hl_memory() - MEMORY of the habanalabs personality
 * @call: context and requesting thread
 * @data: union hl_mem_args, updated in place
 *
 * ALLOC (`mem_size` > 0, `page_size` 0 or a supported page size,
 * CONTIGUOUS/SHARED) answers `handle`; FREE takes it; MAP maps it (or,
 * with USERPTR, `mem_size` bytes of the caller at `host_virt_addr`) at
 * `hint_addr` when free there (FORCE_HINT: only there) and answers
 * `device_virt_addr`; UNMAP takes that address.
 *
 * Return: 0; -EBUSY when the device does not work; -EINVAL for an
 * unknown op, a bad size or page size, an unknown handle or address, a
 * FREE of a mapped allocation, and for MAP_BLOCK (no register blocks
 * are mapped); -ENOMEM when the device memory or the VA space (at a
 * forced hint) is exhausted; -EFAULT for host memory the caller does
 * not have; -EOPNOTSUPP for EXPORT_DMABUF_FD and TS_ALLOC.
 */
int hfd_hl_memory(const struct hfd_ioctl_call *call, void *data)
{
	union hl_mem_args *args = data;
	struct hl_mem_in in = args->in;
	union hpu_mem_args h;
	struct hfd_ioctl_call hcall = *call;
	bool ok;
	int ret;

	pthread_mutex_lock(&call->ctx->dev->ctx_lock);
	ok = call->ctx->dev->status == HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&call->ctx->dev->ctx_lock);
	if (!ok)
		return -EBUSY;
	if (in.op == HL_MEM_OP_EXPORT_DMABUF_FD || in.op == HL_MEM_OP_TS_ALLOC)
		return -EOPNOTSUPP;
	ret = to_hpu(&in, call->ctx->dev->ip.dram_page_size, &h.in);
	if (ret)
		return ret;
	hcall.arg = 0; /* the dispatcher probed the caller's argument */
	ret = to_hl_err(in.op, hfd_ioctl_memory(&hcall, &h));
	if (ret)
		return ret;
	switch (in.op) {
	case HL_MEM_OP_ALLOC:
		memset(args, 0, sizeof(*args));
		args->out.handle = h.out.handle;
		break;
	case HL_MEM_OP_MAP:
		memset(args, 0, sizeof(*args));
		args->out.device_virt_addr = h.out.device_virt_addr;
		break;
	default:
		break;
	}
	return 0;
}
