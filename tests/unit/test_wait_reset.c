// SPDX-License-Identifier: MIT
/*
 * test_wait_reset.c - WAIT_CS and a hard reset that lands while the wait
 * is in progress (docs/fusedev.md, "Device reset"): the driver core
 * without FUSE, so the interleaving that a loaded machine gives only now
 * and then is made here every time. A wait begun on a live context whose
 * CS the reset aborts before the wait looks at it answers -EIO, like a
 * wait that was already blocked; a CS that completed before the reset
 * still answers COMPLETED.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "hpu_cs.h"
#include "hpu_fused.h"

/* One simulated device with a compute context opened by this process */
static struct hpu_test_hfd_fixture fx;

static int setup(void **state)
{
	return hpu_test_hfd_setup(&fx, state, false, false);
}

/* Submit one CB of @len bytes of @pkts on queue 0; its sequence number */
static uint64_t submit(struct hfd_ctx *ctx, const void *pkts, uint32_t len)
{
	static uint64_t buf[4][8];
	static unsigned int next;
	uint64_t *b = buf[next++ % 4];
	union hpu_cb_args cb = { .in = { .op = HPU_CB_OP_CREATE,
					 .cb_size = sizeof(buf[0]) } };
	struct hpu_cs_chunk ch = { .cb_size = len };
	union hpu_cs_args cs;

	assert_true(len <= sizeof(buf[0]));
	memcpy(b, pkts, len);
	cb.in.host_ptr = (uintptr_t)b;
	assert_int_equal(hpu_test_hfd_ioctl(ctx, getuid(), HPU_IOCTL_CB, &cb,
					    sizeof(cb)),
			 0);
	ch.cb_handle = cb.out.cb_handle;
	memset(&cs, 0, sizeof(cs));
	cs.in.chunks_execute = (uintptr_t)&ch;
	cs.in.num_chunks_execute = 1;
	assert_int_equal(hpu_test_hfd_ioctl(ctx, getuid(), HPU_IOCTL_CS, &cs,
					    sizeof(cs)),
			 0);
	assert_true(cs.out.seq != 0);
	return cs.out.seq;
}

/* A WAIT_CS handler call on @ctx with no way to defer: it answers now */
static int wait_now(struct hfd_ctx *ctx, uint64_t seq, uint32_t *status)
{
	struct hfd_ioctl_call call = { .ctx = ctx,
				       .pid = getpid(),
				       .uid = getuid() };
	union hpu_wait_cs_args w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.in.seq = seq;
	w.in.timeout_us = 1000000;
	ret = hfd_ioctl_wait_cs(&call, &w);
	if (!ret)
		*status = w.out.status;
	return ret;
}

/*
 * The wait's call began while the context lived (the dispatcher let it
 * through); the reset then killed the context and aborted the CS stuck
 * on its FENCE; the wait's first look finds the CS ABORTED: -EIO.
 */
static void test_reset_between_call_and_look(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_pkt_fence fence = { .hdr = { .opcode = HPU_PACKET_FENCE,
						.size = sizeof(fence) },
				       .sob_id = 5,
				       .target = 1,
				       .dec = 1 };
	struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
					    .size = sizeof(nop) } };
	uint32_t status = ~0U;
	uint64_t done, stuck;
	int ret;

	done = submit(f->compute, &nop, sizeof(nop));
	assert_int_equal(wait_now(f->compute, done, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	stuck = submit(f->compute, &fence, sizeof(fence));
	assert_int_equal(wait_now(f->compute, stuck, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_true(hfd_ctx_call_try_begin(f->compute));
	assert_int_equal(hfd_device_reset(&f->drv.devs[0], HPU_RESET_HARD,
					  f->compute, false, "test"),
			 0);
	assert_true(hfd_ctx_is_dead(f->compute));
	status = ~0U;
	ret = wait_now(f->compute, stuck, &status);
	assert_int_equal(ret, -EIO);
	/* what ended well before the reset still says so */
	assert_int_equal(wait_now(f->compute, done, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_COMPLETED);
	hfd_ctx_call_end(f->compute);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_between_call_and_look,
						setup, hpu_test_hfd_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
