// SPDX-License-Identifier: MIT
/*
 * hpu_test_hfd.c - simulated Gaudi2s in the driver core without FUSE
 * (hpu_test_hfd.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hl_personality.h"
#include "hpu_fw_if.h"
#include "hpu_test_hfd.h"

int hpu_test_hfd_init(struct hfd_driver *drv, unsigned int ndevs)
{
	memset(drv, 0, sizeof(*drv));
	return hfd_driver_init(drv, &hpusim_model, "gaudi2", ndevs, "/unit") ?
		       -1 :
		       0;
}

int hpu_test_hfd_ctx(struct hfd_driver *drv, unsigned int dev, bool control,
		     bool exclusive, struct hfd_ctx **ctx)
{
	int ret;

	if (exclusive)
		ret = hfd_ctx_open_exclusive(&drv->devs[dev], control, true,
					     getpid(), getuid(), getgid(), ctx);
	else
		ret = hfd_ctx_open(&drv->devs[dev], control, getpid(), getuid(),
				   getgid(), ctx);
	return ret ? -1 : 0;
}

int hpu_test_hfd_open(struct hfd_driver *drv, bool exclusive,
		      struct hfd_ctx **compute, struct hfd_ctx **control)
{
	*compute = NULL;
	if (control)
		*control = NULL;
	if (hpu_test_hfd_init(drv, 1))
		return -1;
	if (hpu_test_hfd_ctx(drv, 0, false, exclusive, compute))
		return -1;
	if (control && hpu_test_hfd_ctx(drv, 0, true, exclusive, control))
		return -1;
	return 0;
}

void hpu_test_hfd_close(struct hfd_driver *drv, struct hfd_ctx *a,
			struct hfd_ctx *b)
{
	if (a)
		hfd_ctx_release(a);
	if (b)
		hfd_ctx_release(b);
	hfd_driver_fini(drv);
}

int hpu_test_hfd_setup(struct hpu_test_hfd_fixture *f, void **state,
		       bool exclusive, bool control)
{
	f->control = NULL;
	if (hpu_test_hfd_open(&f->drv, exclusive, &f->compute,
			      control ? &f->control : NULL))
		return -1;
	*state = f;
	return 0;
}

int hpu_test_hfd_teardown(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;

	hpu_test_hfd_close(&f->drv, f->compute, f->control);
	return 0;
}

int hpu_test_hfd_ioctl(struct hfd_ctx *ctx, uid_t uid, unsigned int cmd,
		       void *arg, size_t size)
{
	struct hfd_ioctl_call call = { .ctx = ctx,
				       .pid = getpid(),
				       .uid = uid };
	uint8_t out[HFD_IOCTL_MAX_SIZE];
	size_t out_size = sizeof(out);
	int ret;

	ret = hfd_ioctl_dispatch(&call, cmd, arg, size, out, &out_size);
	if (!ret) {
		assert_int_equal(out_size, size);
		memcpy(arg, out, size);
	}
	return ret;
}

int hpu_test_hfd_hl_ioctl(struct hfd_ctx *ctx, unsigned int cmd, void *arg,
			  size_t size, uint64_t uarg)
{
	struct hfd_ioctl_call call = { .ctx = ctx,
				       .pid = getpid(),
				       .arg = uarg };
	uint8_t out[HFD_IOCTL_MAX_SIZE];
	size_t out_size = sizeof(out);
	int ret;

	ret = hfd_hl_ioctl_dispatch(&call, cmd, arg, size, out, &out_size);
	if (!ret)
		assert_int_equal(out_size, _IOC_SIZE(cmd));
	assert_true(out_size <= size);
	memcpy(arg, out, out_size);
	return ret;
}

int hpu_test_hfd_hl_ioctl_ro(struct hfd_ctx *ctx, unsigned int cmd, void *arg,
			     size_t size)
{
	void *ro;
	int ret;

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	ret = hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, (uintptr_t)ro);
	munmap(ro, 4096);
	return ret;
}

uint64_t hpu_test_hfd_hl_map_host(struct hfd_ctx *ctx, void *p, uint64_t size)
{
	union hl_mem_args a = { 0 };

	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR;
	a.in.map_host.host_virt_addr = (uintptr_t)p;
	a.in.map_host.mem_size = size;
	assert_int_equal(hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_MEMORY, &a,
					       sizeof(a), 0),
			 0);
	return a.out.device_virt_addr;
}

uint64_t hpu_test_hfd_hl_map_dram(struct hfd_ctx *ctx, uint64_t size)
{
	union hl_mem_args a = { 0 };
	uint64_t handle;

	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	assert_int_equal(hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_MEMORY, &a,
					       sizeof(a), 0),
			 0);
	handle = a.out.handle;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	assert_int_equal(hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_MEMORY, &a,
					       sizeof(a), 0),
			 0);
	return a.out.device_virt_addr;
}

int hpu_test_hfd_hl_ctx(struct hpu_test_hfd_hl *f)
{
	if (hpu_test_hfd_ctx(&f->drv, 0, false, true, &f->ctx))
		return -1;
	f->cb_va = hpu_test_hfd_hl_map_host(f->ctx, f->cb, f->buf_size);
	f->src_va = hpu_test_hfd_hl_map_host(f->ctx, f->src, f->buf_size);
	f->dst_va = hpu_test_hfd_hl_map_host(f->ctx, f->dst, f->buf_size);
	if (f->dram_size)
		f->dram = hpu_test_hfd_hl_map_dram(f->ctx, f->dram_size);
	return 0;
}

int hpu_test_hfd_hl_open(struct hpu_test_hfd_hl *f, size_t buf_size,
			 uint64_t dram_size)
{
	memset(f, 0, sizeof(*f));
	f->buf_size = buf_size;
	f->dram_size = dram_size;
	if (hpu_test_hfd_init(&f->drv, 1))
		return -1;
	f->cb = aligned_alloc(4096, buf_size);
	f->src = aligned_alloc(4096, buf_size);
	f->dst = aligned_alloc(4096, buf_size);
	if (!f->cb || !f->src || !f->dst)
		return -1;
	return hpu_test_hfd_hl_ctx(f);
}

void hpu_test_hfd_hl_close(struct hpu_test_hfd_hl *f)
{
	hpu_test_hfd_close(&f->drv, f->ctx, NULL);
	free(f->cb);
	free(f->src);
	free(f->dst);
}

int hpu_test_hfd_hl_teardown(void **state)
{
	hpu_test_hfd_hl_close(*state);
	return 0;
}

int hpu_test_hfd_hl_wait_cs(struct hfd_ctx *ctx, uint64_t seq,
			    struct hl_wait_cs_out *o)
{
	union hl_wait_cs_args a;
	int ret;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.in.seq = seq;
		a.in.timeout_us = 1000;
		ret = hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_WAIT_CS, &a,
					    sizeof(a), 0);
		if (ret || a.out.status != HL_WAIT_CS_STATUS_BUSY)
			break;
		usleep(1000);
	}
	*o = a.out;
	return ret;
}

uint32_t hpu_test_hfd_hl_poll_cs(struct hfd_ctx *ctx, uint64_t seq)
{
	union hl_wait_cs_args a = { 0 };

	a.in.seq = seq;
	assert_int_equal(hpu_test_hfd_hl_ioctl(ctx, HL_IOCTL_WAIT_CS, &a,
					       sizeof(a), 0),
			 0);
	return a.out.status;
}

uint64_t hpu_test_hfd_hl_submit_cb(struct hpu_test_hfd_hl *f, uint32_t qid,
				   size_t at, size_t size, uint32_t timeout_s)
{
	struct hl_cs_chunk c = { .cb_handle = f->cb_va + at,
				 .queue_index = qid,
				 .cb_size = (uint32_t)size,
				 .cs_chunk_flags =
					 HL_CS_CHUNK_FLAGS_USER_ALLOC_CB };
	union hl_cs_args a = { 0 };

	a.in.chunks_execute = (uintptr_t)&c;
	a.in.num_chunks_execute = 1;
	if (timeout_s) {
		a.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;
		a.in.timeout = timeout_s;
	}
	assert_int_equal(hpu_test_hfd_hl_ioctl(f->ctx, HL_IOCTL_CS, &a,
					       sizeof(a), 0),
			 0);
	return a.out.seq;
}
