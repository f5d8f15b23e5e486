// SPDX-License-Identifier: MIT
/*
 * test_cs_sched.c - engines shared between contexts and the limits of CS
 * submissions, through the real hpu-fused (docs/command-submission.md,
 * "CS" and "Sharing the engines"): one context's FENCE with the largest
 * timeout does not hold another context's NOP on the same queue; WAIT
 * submissions of 64 chunks on ended CSs complete at once, 65 and 512 are
 * -EINVAL, in-flight WAIT chunks of a context are bounded (-EAGAIN); a
 * timeout above HPU_CS_TIMEOUT_MAX_MS is -EINVAL and submits nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/hpu_test_cs.h"
#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"

/* Internal SOBs of a context: WAIT chunks that may wait at once */
#define WAIT_CHUNKS_IN_FLIGHT 512

static const struct hpu_pkt_nop nop = {
	.hdr = { .opcode = HPU_PACKET_NOP, .size = sizeof(nop) },
};

/* A WAIT CS of @n chunks on @queue, each waiting for @seqs[0..@per-1] */
static int wait_submit(int fd, unsigned int n, uint32_t queue,
		       const uint64_t *seqs, uint32_t per, uint64_t *seq,
		       uint32_t *out_flags)
{
	struct hpu_cs_chunk *c = calloc(n, sizeof(*c));
	unsigned int i;
	int ret;

	assert_non_null(c);
	for (i = 0; i < n; i++) {
		c[i].queue_index = queue;
		c[i].cb_handle = (uintptr_t)seqs;
		c[i].cb_size = per;
	}
	ret = hpu_test_cs_submit(fd, c, n, HPU_CS_FLAGS_WAIT, 0, seq,
				 out_flags);
	free(c);
	return ret;
}

/*
 * Context A's FENCE on queue 0, with the largest timeout, waits for a SOB
 * nobody raises: context B's NOP on queue 0 completes all the same, and
 * so does B's WAIT on it; A completes once A raises its SOB.
 */
static void test_fence_hog_vs_nop(void **state)
{
	struct hpu_pkt_fence f = hpu_test_pkt_fence(20);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(20);
	uint64_t s_hog, s_nop, s_wait, s_inc;
	uint32_t status, fl = 0;
	int a = hpu_test_open_dev(0), b = hpu_test_open_dev(0);

	assert_int_equal(hpu_test_cs_run_cb(a, &f, sizeof(f), 0,
					    HPU_CS_TIMEOUT_MAX_MS, &s_hog),
			 0);
	assert_int_equal(hpu_test_cs_run_cb(b, &nop, sizeof(nop), 0, 0, &s_nop),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(b, s_nop),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(wait_submit(b, 1, 0, &s_nop, 1, &s_wait, &fl), 0);
	assert_int_equal(hpu_test_cs_wait_status(b, s_wait),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_cs_wait(a, s_hog, 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_int_equal(hpu_test_cs_run_cb(a, &inc, sizeof(inc), 1, 0, &s_inc),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(a, s_hog),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(a);
	close(b);
}

/*
 * WAIT on ended CSs: 64 chunks complete at once (COMPLETED when the ioctl
 * returns); 65 and 512 chunks are -EINVAL and use no sequence number.
 */
static void test_wait_chunk_limits(void **state)
{
	uint64_t done[2], s_wait, s_next, s_prev;
	uint32_t fl = 0;
	int fd = hpu_test_open_dev(1);

	assert_int_equal(
		hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0, &done[0]), 0);
	assert_int_equal(
		hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 1, 0, &done[1]), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, done[0]),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	assert_int_equal(hpu_test_cs_wait_status(fd, done[1]),
			 HPU_WAIT_CS_STATUS_COMPLETED);

	assert_int_equal(wait_submit(fd, HPU_WAIT_MAX_CHUNKS, 2, done, 2,
				     &s_wait, &fl),
			 0);
	assert_true(fl & HPU_CS_OUT_FLAG_COMPLETED);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_wait),
			 HPU_WAIT_CS_STATUS_COMPLETED);

	s_prev = s_wait;
	assert_int_equal(wait_submit(fd, HPU_WAIT_MAX_CHUNKS + 1, 2, done, 2,
				     NULL, NULL),
			 -EINVAL);
	assert_int_equal(wait_submit(fd, HPU_MAX_JOBS_PER_CS, 2, done, 2, NULL,
				     NULL),
			 -EINVAL);
	/* nothing was submitted: the next number follows the last one */
	assert_int_equal(
		hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0, &s_next), 0);
	assert_int_equal(s_next, s_prev + 1);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_next),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

/*
 * WAIT chunks that must wait: 64 of them (the last one included) wait for
 * a parked CS and complete when it does; a context may have
 * WAIT_CHUNKS_IN_FLIGHT such chunks at once, one more is -EAGAIN.
 */
static void test_wait_chunks_in_flight(void **state)
{
	enum {
		NWAIT = WAIT_CHUNKS_IN_FLIGHT / HPU_WAIT_MAX_CHUNKS
	};
	struct hpu_pkt_fence f = hpu_test_pkt_fence(21);
	struct hpu_pkt_msg_long inc = hpu_test_pkt_inc(21);
	uint64_t s_hog, s_wait[NWAIT], s_inc, deps[2];
	uint32_t status, fl = 0;
	unsigned int i;
	int fd = hpu_test_open_dev(2);

	assert_int_equal(hpu_test_cs_run_cb(fd, &f, sizeof(f), 0, 0, &s_hog),
			 0);
	assert_int_equal(
		hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 1, 0, &deps[0]), 0);
	deps[1] = s_hog;
	for (i = 0; i < NWAIT; i++) {
		assert_int_equal(wait_submit(fd, HPU_WAIT_MAX_CHUNKS, 2, deps,
					     2, &s_wait[i], &fl),
				 0);
		assert_false(fl & HPU_CS_OUT_FLAG_COMPLETED);
	}
	assert_int_equal(wait_submit(fd, 1, 3, deps, 2, NULL, NULL), -EAGAIN);
	/* a WAIT on ended CSs only needs no internal SOB */
	assert_int_equal(wait_submit(fd, 1, 3, deps, 1, NULL, &fl), 0);
	assert_true(fl & HPU_CS_OUT_FLAG_COMPLETED);
	assert_int_equal(hpu_test_cs_wait(fd, s_wait[0], 0, &status), 0);
	assert_int_equal(status, HPU_WAIT_CS_STATUS_BUSY);

	assert_int_equal(
		hpu_test_cs_run_cb(fd, &inc, sizeof(inc), 1, 0, &s_inc), 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_hog),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	for (i = 0; i < NWAIT; i++)
		assert_int_equal(hpu_test_cs_wait_status(fd, s_wait[i]),
				 HPU_WAIT_CS_STATUS_COMPLETED);
	/* the SOBs are free again */
	assert_int_equal(wait_submit(fd, HPU_WAIT_MAX_CHUNKS, 2, deps, 2,
				     &s_wait[0], &fl),
			 0);
	assert_int_equal(hpu_test_cs_wait_status(fd, s_wait[0]),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

/* A timeout above HPU_CS_TIMEOUT_MAX_MS is -EINVAL and submits nothing */
static void test_timeout_above_max(void **state)
{
	uint64_t s1, s2;
	int fd = hpu_test_open_dev(3);

	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0,
					    HPU_CS_TIMEOUT_MAX_MS, &s1),
			 0);
	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0,
					    HPU_CS_TIMEOUT_MAX_MS + 1, NULL),
			 -EINVAL);
	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0,
					    0xffffffffU, NULL),
			 -EINVAL);
	assert_int_equal(hpu_test_cs_run_cb(fd, &nop, sizeof(nop), 0, 0, &s2),
			 0);
	assert_int_equal(s2, s1 + 1);
	assert_int_equal(hpu_test_cs_wait_status(fd, s2),
			 HPU_WAIT_CS_STATUS_COMPLETED);
	close(fd);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(4, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fence_hog_vs_nop,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_chunk_limits,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_wait_chunks_in_flight,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_timeout_above_max,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
