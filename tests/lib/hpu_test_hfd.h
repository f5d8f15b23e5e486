/* SPDX-License-Identifier: MIT */
/*
 * hpu_test_hfd.h - the driver core (libhpufusedev) of simulated Gaudi2s
 * without FUSE, with contexts opened by the test process: the fixture of
 * the unit tests that call the ioctl dispatchers directly, and the one
 * way they call them.
 */
#ifndef HPU_TEST_HFD_H
#define HPU_TEST_HFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hpu_fused_dev.h"

/**
 * hpu_test_hfd_init() - hfd_driver_init() @ndevs "gaudi2"s of libhpusim
 * (devices under "/unit") in a cleared @drv
 * @drv: the driver; hpu_test_hfd_close() it
 * @ndevs: devices
 *
 * Return: 0, or -1 (a cmocka setup's failure).
 */
int hpu_test_hfd_init(struct hfd_driver *drv, unsigned int ndevs);

/**
 * hpu_test_hfd_ctx() - open a context of device @dev as this process
 * @drv: from hpu_test_hfd_init()
 * @dev: device index
 * @control: a control context, else a compute one
 * @exclusive: open it exclusive, as the habanalabs personality does
 *	(one compute open per device); false: by the device's own rule
 *	(hfd_ctx_open())
 * @ctx: receives the context
 *
 * Return: 0, or -1 (a cmocka setup's failure).
 */
int hpu_test_hfd_ctx(struct hfd_driver *drv, unsigned int dev, bool control,
		     bool exclusive, struct hfd_ctx **ctx);

/**
 * hpu_test_hfd_open() - hpu_test_hfd_init() one device, then open its
 * contexts as this process (hpu_test_hfd_ctx())
 * @drv: initialized; hpu_test_hfd_close() it
 * @exclusive: see hpu_test_hfd_ctx()
 * @compute: receives a compute context
 * @control: receives a control context; NULL for none
 *
 * Return: 0, or -1 when a step failed (a cmocka setup's failure).
 */
int hpu_test_hfd_open(struct hfd_driver *drv, bool exclusive,
		      struct hfd_ctx **compute, struct hfd_ctx **control);

/**
 * hpu_test_hfd_close() - release two contexts (NULL ones skipped), then
 * hfd_driver_fini() @drv
 * @drv: from hpu_test_hfd_init() or hpu_test_hfd_open()
 * @a: a context of it (the compute one), or NULL
 * @b: another (the control one), or NULL
 */
void hpu_test_hfd_close(struct hfd_driver *drv, struct hfd_ctx *a,
			struct hfd_ctx *b);

/**
 * struct hpu_test_hfd_fixture - the fixture of a dispatcher test: one
 * simulated Gaudi2 and contexts of the test process
 * @drv: the driver
 * @compute: a compute context
 * @control: a control context, or NULL
 */
struct hpu_test_hfd_fixture {
	struct hfd_driver drv;
	struct hfd_ctx *compute;
	struct hfd_ctx *control;
};

/**
 * hpu_test_hfd_setup() - a cmocka setup: hpu_test_hfd_open() into @f,
 * then *@state = @f
 * @f: the test's fixture (static; or the first member of the test's own)
 * @state: cmocka's state
 * @exclusive: see hpu_test_hfd_ctx()
 * @control: open a control context too
 *
 * Return: 0, or -1 (the setup failed).
 */
int hpu_test_hfd_setup(struct hpu_test_hfd_fixture *f, void **state,
		       bool exclusive, bool control);

/**
 * hpu_test_hfd_teardown() - the cmocka teardown of hpu_test_hfd_setup():
 * hpu_test_hfd_close() the fixture in *@state
 * @state: cmocka's state
 *
 * Return: 0.
 */
int hpu_test_hfd_teardown(void **state);

/**
 * hpu_test_hfd_ioctl() - one request of the hpu ABI through
 * hfd_ioctl_dispatch(), from this process as user @uid
 * @ctx: the context
 * @uid: the caller's user id
 * @cmd: request code
 * @arg: @size argument bytes; receives the answer when the call succeeds
 * @size: bytes at @arg
 *
 * Fails the test when a successful answer is not @size bytes.
 *
 * Return: the dispatcher's 0 or -errno.
 */
int hpu_test_hfd_ioctl(struct hfd_ctx *ctx, uid_t uid, unsigned int cmd,
		       void *arg, size_t size);

/**
 * hpu_test_hfd_hl_ioctl() - one request of the habanalabs personality
 * through hfd_hl_ioctl_dispatch(), from this process
 * @ctx: the context
 * @cmd: request code (either set)
 * @arg: @size argument bytes; receives what the dispatcher copies back:
 *	the answer of a success, and the one some errors come with
 *	(WAIT_CS's status), as the kernel's ioctl entry does
 * @size: bytes at @arg
 * @uarg: the address the caller's ioctl(2) named (the call's @arg: the
 *	dispatcher writes the argument back there before a request with
 *	effects); 0 for none
 *
 * Fails the test when a successful answer is not _IOC_SIZE(@cmd) bytes
 * or any answer is larger than @size.
 *
 * Return: the dispatcher's 0 or -errno.
 */
int hpu_test_hfd_hl_ioctl(struct hfd_ctx *ctx, unsigned int cmd, void *arg,
			  size_t size, uint64_t uarg);

/**
 * hpu_test_hfd_hl_ioctl_ro() - hpu_test_hfd_hl_ioctl() of a caller whose
 * argument is in a read-only page (a fresh one, unmapped again): one the
 * kernel could not write the answer back to
 * @ctx: the context
 * @cmd: request code
 * @arg: @size argument bytes (as the page would hold them)
 * @size: bytes at @arg
 *
 * Return: the dispatcher's 0 or -errno (-EFAULT before a request with
 * effects does anything).
 */
int hpu_test_hfd_hl_ioctl_ro(struct hfd_ctx *ctx, unsigned int cmd, void *arg,
			     size_t size);

#endif /* HPU_TEST_HFD_H */
