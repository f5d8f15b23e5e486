// SPDX-License-Identifier: MIT
/*
 * cb_builder.c - command-buffer builder: packets appended into a
 * page-aligned user buffer registered once as a CB. Arguments the
 * driver's packet validator would reject are refused here, before
 * submission.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpudrv_internal.h"

/**
 * struct hpu_cb_builder - a command buffer being filled
 * @dev: device the CB is registered with (NULL: unregistered, tests)
 * @buf: page-aligned buffer of @size bytes
 * @size: capacity
 * @used: bytes of packets
 * @handle: CB handle, 0 when unregistered
 */
struct hpu_cb_builder {
	struct hpu_device *dev;
	uint8_t *buf;
	size_t size;
	size_t used;
	uint64_t handle;
};

int hpudrv_cb_builder_new(struct hpu_device *dev, size_t size,
			  struct hpu_cb_builder **bp)
{
	struct hpu_cb_builder *b;
	long page = sysconf(_SC_PAGESIZE);
	size_t alloc;
	int ret;

	if (!bp || size < 8 || size > HPU_MAX_CB_SIZE || size % 8)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	alloc = (size + (size_t)page - 1) & ~((size_t)page - 1);
	if (posix_memalign((void **)&b->buf, (size_t)page, alloc)) {
		ret = -ENOMEM;
		goto err_free_b;
	}
	memset(b->buf, 0, alloc);
	b->size = size;
	b->dev = dev;
	if (dev) {
		ret = hpu_cb_create(dev, b->buf, (uint32_t)size, &b->handle,
				    NULL);
		if (ret)
			goto err_free_buf;
		/* the library owns the buffer: the ring may copy it */
		hpudrv_ring_cb_add(dev, b->handle, b->buf, (uint32_t)size);
	}
	*bp = b;
	return 0;

err_free_buf:
	free(b->buf);
err_free_b:
	free(b);
	return ret;
}

int hpu_cb_builder_create(struct hpu_device *dev, size_t size,
			  struct hpu_cb_builder **bp)
{
	if (!dev)
		return -EINVAL;
	return hpudrv_cb_builder_new(dev, size, bp);
}

void hpu_cb_builder_destroy(struct hpu_cb_builder *b)
{
	if (!b)
		return;
	if (b->dev && b->handle) {
		hpudrv_ring_cb_del(b->dev, b->handle);
		hpu_cb_destroy(b->dev, b->handle);
	}
	free(b->buf);
	free(b);
}

void hpu_cb_builder_reset(struct hpu_cb_builder *b)
{
	if (b)
		b->used = 0;
}

size_t hpu_cb_builder_size(const struct hpu_cb_builder *b)
{
	return b ? b->size : 0;
}

size_t hpu_cb_builder_used(const struct hpu_cb_builder *b)
{
	return b ? b->used : 0;
}

const void *hpu_cb_builder_data(const struct hpu_cb_builder *b)
{
	return b ? b->buf : NULL;
}

uint64_t hpu_cb_builder_handle(const struct hpu_cb_builder *b)
{
	return b ? b->handle : 0;
}

int hpu_cb_builder_submit(struct hpu_cb_builder *b, uint32_t queue,
			  uint32_t flags, uint32_t timeout_ms, uint64_t *seq,
			  int *completed)
{
	struct hpu_cs_chunk chunk;

	if (!b || !b->dev)
		return -EINVAL;
	if (!b->used)
		return -ENODATA;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = b->handle;
	chunk.queue_index = queue;
	chunk.cb_size = (uint32_t)b->used;
	return hpu_cs_submit(b->dev, &chunk, 1, flags, timeout_ms, seq,
			     completed);
}

/* Room for a packet of @size bytes with its header filled in, or NULL. */
static void *emit(struct hpu_cb_builder *b, uint16_t opcode, uint16_t size,
		  uint16_t flags)
{
	struct hpu_pkt_hdr *hdr;

	if (b->size - b->used < size)
		return NULL;
	hdr = (struct hpu_pkt_hdr *)(b->buf + b->used);
	memset(hdr, 0, size);
	hdr->opcode = opcode;
	hdr->size = size;
	hdr->flags = flags;
	b->used += size;
	return hdr;
}

static int emit_bare(struct hpu_cb_builder *b, uint16_t opcode)
{
	if (!b)
		return -EINVAL;
	return emit(b, opcode, sizeof(struct hpu_pkt_nop), 0) ? 0 : -ENOSPC;
}

int hpu_cb_nop(struct hpu_cb_builder *b)
{
	return emit_bare(b, HPU_PACKET_NOP);
}

int hpu_cb_stop(struct hpu_cb_builder *b)
{
	return emit_bare(b, HPU_PACKET_STOP);
}

int hpu_cb_lin_dma(struct hpu_cb_builder *b, uint64_t dst, uint64_t src,
		   uint64_t size)
{
	struct hpu_pkt_lin_dma *p;

	if (!b)
		return -EINVAL;
	p = emit(b, HPU_PACKET_LIN_DMA, sizeof(*p), 0);
	if (!p)
		return -ENOSPC;
	p->src_addr = src;
	p->dst_addr = dst;
	p->size = size;
	return 0;
}

static int memset_width_flag(unsigned int width, uint16_t *flag)
{
	switch (width) {
	case 1:
		*flag = HPU_MEMSET_F_ELEM_1;
		return 0;
	case 2:
		*flag = HPU_MEMSET_F_ELEM_2;
		return 0;
	case 4:
		*flag = HPU_MEMSET_F_ELEM_4;
		return 0;
	case 8:
		*flag = HPU_MEMSET_F_ELEM_8;
		return 0;
	default:
		return -EINVAL;
	}
}

int hpu_cb_memset(struct hpu_cb_builder *b, uint64_t dst, uint64_t size,
		  uint64_t value, unsigned int width)
{
	struct hpu_pkt_memset *p;
	uint16_t flag;

	if (!b || memset_width_flag(width, &flag) || dst % width ||
	    size % width)
		return -EINVAL;
	p = emit(b, HPU_PACKET_MEMSET, sizeof(*p), flag);
	if (!p)
		return -ENOSPC;
	p->dst_addr = dst;
	p->size = size;
	p->value = value;
	return 0;
}

int hpu_cb_msg_long(struct hpu_cb_builder *b, uint32_t sob, uint32_t op,
		    uint32_t value)
{
	struct hpu_pkt_msg_long *p;

	if (!b || sob >= HPU_NUM_SOBS ||
	    (op != HPU_MSG_OP_SET && op != HPU_MSG_OP_ADD) ||
	    value > HPU_SOB_MAX_VALUE)
		return -EINVAL;
	p = emit(b, HPU_PACKET_MSG_LONG, sizeof(*p), 0);
	if (!p)
		return -ENOSPC;
	p->sob_id = sob;
	p->op = op;
	p->value = value;
	return 0;
}

int hpu_cb_fence(struct hpu_cb_builder *b, uint32_t sob, uint32_t target,
		 uint32_t dec)
{
	struct hpu_pkt_fence *p;

	if (!b || sob >= HPU_NUM_SOBS || !target ||
	    target > HPU_SOB_MAX_VALUE || dec > target)
		return -EINVAL;
	p = emit(b, HPU_PACKET_FENCE, sizeof(*p), 0);
	if (!p)
		return -ENOSPC;
	p->sob_id = sob;
	p->target = target;
	p->dec = dec;
	return 0;
}

int hpu_cb_arm_monitor(struct hpu_cb_builder *b, uint32_t mon, uint32_t sob,
		       uint32_t target, uint32_t payload, uint64_t addr)
{
	struct hpu_pkt_arm_monitor *p;

	if (!b || mon >= HPU_NUM_MONITORS || sob >= HPU_NUM_SOBS || !target ||
	    target > HPU_SOB_MAX_VALUE || addr % 4)
		return -EINVAL;
	p = emit(b, HPU_PACKET_ARM_MONITOR, sizeof(*p), 0);
	if (!p)
		return -ENOSPC;
	p->mon_id = mon;
	p->sob_id = sob;
	p->target = target;
	p->payload = payload;
	p->payload_addr = addr;
	return 0;
}

int hpudrv_cb_append(struct hpu_cb_builder *b, const void *pkt, size_t size)
{
	if (b->size - b->used < size)
		return -ENOSPC;
	memcpy(b->buf + b->used, pkt, size);
	b->used += size;
	return 0;
}
