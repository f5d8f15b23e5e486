// SPDX-License-Identifier: MIT
/*
 * hpu_test_hfd.c - simulated Gaudi2s in the driver core without FUSE
 * (hpu_test_hfd.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
