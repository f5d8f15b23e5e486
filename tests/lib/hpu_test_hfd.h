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

#include "hl_uapi.h"
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

/**
 * struct hpu_test_hfd_hl - the fixture of a habanalabs dispatcher test:
 * one simulated Gaudi2 with an exclusive compute context of this process,
 * a CB, a source and a destination buffer of this process mapped into it,
 * and optionally device memory (DRAM) mapped
 * @drv: the driver
 * @ctx: the compute context, or NULL when released
 * @cb: host CB (@buf_size bytes, page-aligned)
 * @src: host source buffer (@buf_size bytes, page-aligned)
 * @dst: host destination buffer (@buf_size bytes, page-aligned)
 * @cb_va: @cb's device address
 * @src_va: @src's device address
 * @dst_va: @dst's device address
 * @dram: device address of @dram_size bytes of DRAM; 0 when none
 * @buf_size: bytes of each host buffer
 * @dram_size: bytes of DRAM allocated and mapped in each context; 0: none
 */
struct hpu_test_hfd_hl {
	struct hfd_driver drv;
	struct hfd_ctx *ctx;
	uint8_t *cb;
	uint8_t *src;
	uint8_t *dst;
	uint64_t cb_va;
	uint64_t src_va;
	uint64_t dst_va;
	uint64_t dram;
	size_t buf_size;
	uint64_t dram_size;
};

/**
 * hpu_test_hfd_hl_open() - set up @f: one Gaudi2, its buffers, then
 * hpu_test_hfd_hl_ctx()
 * @f: cleared here; hpu_test_hfd_hl_close() it
 * @buf_size: bytes of each host buffer (a multiple of the page)
 * @dram_size: bytes of DRAM to allocate and map; 0 for none
 *
 * Return: 0, or -1 (a cmocka setup's failure).
 */
int hpu_test_hfd_hl_open(struct hpu_test_hfd_hl *f, size_t buf_size,
			 uint64_t dram_size);

/**
 * hpu_test_hfd_hl_ctx() - open @f's exclusive compute context (after a
 * release, set @f->ctx NULL) and map @f's buffers (and DRAM) into it
 * @f: from hpu_test_hfd_hl_open()
 *
 * Return: 0, or -1 when the open failed.
 */
int hpu_test_hfd_hl_ctx(struct hpu_test_hfd_hl *f);

/**
 * hpu_test_hfd_hl_close() - release @f's context (when any), the driver
 * and the buffers
 * @f: from hpu_test_hfd_hl_open()
 */
void hpu_test_hfd_hl_close(struct hpu_test_hfd_hl *f);

/**
 * hpu_test_hfd_hl_teardown() - the cmocka teardown of a test whose state
 * is a struct hpu_test_hfd_hl: hpu_test_hfd_hl_close() it
 * @state: cmocka's state
 *
 * Return: 0.
 */
int hpu_test_hfd_hl_teardown(void **state);

/**
 * hpu_test_hfd_hl_map_host() - MEMORY MAP of @size bytes of this process
 * at @p (USERPTR, no hint); fails the test when refused
 * @ctx: the context
 * @p: host address
 * @size: bytes
 *
 * Return: the device address.
 */
uint64_t hpu_test_hfd_hl_map_host(struct hfd_ctx *ctx, void *p, uint64_t size);

/**
 * hpu_test_hfd_hl_map_dram() - MEMORY ALLOC of @size bytes of DRAM, then
 * MAP of them (no hint); fails the test when either is refused
 * @ctx: the context
 * @size: bytes
 *
 * Return: the device address.
 */
uint64_t hpu_test_hfd_hl_map_dram(struct hfd_ctx *ctx, uint64_t size);

/**
 * hpu_test_hfd_hl_wait_cs() - WAIT_CS of @seq, polled (1 ms waits, no
 * deferral) until its status is not BUSY: bounded by the CS's own timeout,
 * not by a clock of the test
 * @ctx: the context
 * @seq: the CS's number
 * @o: receives the last answer (also the one an -EIO comes with)
 *
 * Return: the dispatcher's 0 or -errno.
 */
int hpu_test_hfd_hl_wait_cs(struct hfd_ctx *ctx, uint64_t seq,
			    struct hl_wait_cs_out *o);

/**
 * hpu_test_hfd_hl_poll_cs() - one WAIT_CS of @seq that does not wait
 * (timeout 0); fails the test when WAIT_CS fails
 * @ctx: the context
 * @seq: the CS's number
 *
 * Return: the answer's status (HL_WAIT_CS_STATUS_BUSY: still running).
 */
uint32_t hpu_test_hfd_hl_poll_cs(struct hfd_ctx *ctx, uint64_t seq);

/**
 * hpu_test_hfd_hl_submit_cb() - submit one user CB of the fixture's
 * buffer as a CS; fails the test when the CS ioctl fails
 * @f: the fixture
 * @qid: the queue id
 * @at: offset of the CB in the fixture's buffer (f->cb_va + @at)
 * @size: its bytes
 * @timeout_s: the CS's timeout in seconds (HL_CS_FLAGS_CUSTOM_TIMEOUT),
 *	0 for the default
 *
 * Return: the CS's number.
 */
uint64_t hpu_test_hfd_hl_submit_cb(struct hpu_test_hfd_hl *f, uint32_t qid,
				   size_t at, size_t size, uint32_t timeout_s);

#endif /* HPU_TEST_HFD_H */
