// SPDX-License-Identifier: MIT
/*
 * test_hl_info.c - the habanalabs personality's ioctl entry and INFO
 * without FUSE (docs/habanalabs.md): both request-code sets, the
 * control-node rule, the caller's argument size, every INFO op's answer
 * size and values, the real driver's errors, DEBUG's debug mode, and one
 * compute open per device.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/hpu_test_hfd.h"
#include "hl_personality.h"

/* Room for the largest answer and a tail that must stay untouched */
#define ANS_ROOM (HL_GAUDI2_NUM_EVENTS * 4 + 64)
#define FILL	 0xa5

/**
 * struct fixture - one Gaudi2 with a habanalabs compute context (opened
 * exclusive) and a control context of this process, and room for answers
 * @h: the driver and the contexts (first: the teardown takes the fixture
 *	as one)
 * @ans: answers land here
 */
struct fixture {
	struct hpu_test_hfd_fixture h;
	uint8_t ans[ANS_ROOM];
};

static int setup(void **state)
{
	static struct fixture f;

	memset(f.ans, 0, sizeof(f.ans));
	return hpu_test_hfd_setup(&f.h, state, true, true);
}

/* One request of @size argument bytes; the answer replaces @arg */
static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_hl_ioctl(ctx, cmd, arg, size, 0);
}

/* INFO @op into f->ans (filled with FILL first), @size bytes of room */
static int info(struct fixture *f, struct hfd_ctx *ctx, unsigned int cmd,
		uint32_t op, uint32_t extra, uint32_t size)
{
	struct hl_info_args a = { .return_pointer = (uintptr_t)f->ans,
				  .return_size = size,
				  .op = op,
				  .dcore_id = extra };

	memset(f->ans, FILL, sizeof(f->ans));
	return run(ctx, cmd, &a, sizeof(a));
}

/* Bytes of f->ans written: up to the last byte that is not FILL */
static size_t written(const struct fixture *f)
{
	size_t n = sizeof(f->ans);

	while (n && f->ans[n - 1] == FILL)
		n--;
	return n;
}

static void test_codes(void **state)
{
	static const struct {
		unsigned int cmd;
		int family;
	} codes[] = {
		{ HL_IOCTL_INFO, HFD_HL_INFO },
		{ HL_IOCTL_CB, HFD_HL_CB },
		{ HL_IOCTL_CS, HFD_HL_CS },
		{ HL_IOCTL_WAIT_CS, HFD_HL_WAIT_CS },
		{ HL_IOCTL_MEMORY, HFD_HL_MEMORY },
		{ HL_IOCTL_DEBUG, HFD_HL_DEBUG },
		{ DRM_IOCTL_HL_INFO, HFD_HL_INFO },
		{ DRM_IOCTL_HL_CB, HFD_HL_CB },
		{ DRM_IOCTL_HL_CS, HFD_HL_CS },
		{ DRM_IOCTL_HL_WAIT_CS, HFD_HL_WAIT_CS },
		{ DRM_IOCTL_HL_MEMORY, HFD_HL_MEMORY },
		{ DRM_IOCTL_HL_DEBUG, HFD_HL_DEBUG },
		{ _IOWR('H', 0x00, struct hl_info_args), -ENOTTY },
		{ _IOWR('H', 0x07, struct hl_info_args), -ENOTTY },
		{ _IOWR('d', 0x3f, struct hl_info_args), -ENOTTY },
		{ _IOWR('d', 0x46, struct hl_info_args), -ENOTTY },
		{ _IOWR('d', 0x01, struct hl_info_args), -ENOTTY },
		{ _IOWR('x', 0x41, struct hl_info_args), -ENOTTY },
	};
	unsigned int i;

	/* the sizes the two sets encode are the real header's */
	assert_int_equal(_IOC_SIZE(HL_IOCTL_INFO), 24);
	assert_int_equal(_IOC_SIZE(HL_IOCTL_CB), 24);
	assert_int_equal(_IOC_SIZE(HL_IOCTL_CS), 48);
	assert_int_equal(_IOC_SIZE(HL_IOCTL_WAIT_CS), 56);
	assert_int_equal(_IOC_SIZE(HL_IOCTL_MEMORY), 40);
	assert_int_equal(_IOC_SIZE(HL_IOCTL_DEBUG), 40);
	assert_int_equal(HL_IOCTL_INFO, 0xc0184801);
	assert_int_equal(DRM_IOCTL_HL_INFO, 0xc0186440);
	assert_int_equal(DRM_IOCTL_HL_DEBUG, 0xc0286445);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_int_equal(hfd_hl_family(codes[i].cmd), codes[i].family);
}

static void test_both_sets_answer(void **state)
{
	struct fixture *f = *state;
	struct hl_info_hw_ip_info ip1, ip2;

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_HW_IP_INFO, 0, sizeof(ip1)),
			 0);
	memcpy(&ip1, f->ans, sizeof(ip1));
	assert_int_equal(info(f, f->h.compute, DRM_IOCTL_HL_INFO,
			      HL_INFO_HW_IP_INFO, 0, sizeof(ip2)),
			 0);
	memcpy(&ip2, f->ans, sizeof(ip2));
	assert_memory_equal(&ip1, &ip2, sizeof(ip1));
	assert_int_equal(ip1.device_id, 0x1020);
	/* and a control node answers both */
	assert_int_equal(info(f, f->h.control, DRM_IOCTL_HL_INFO,
			      HL_INFO_DEVICE_STATUS, 0, 8),
			 0);
	assert_int_equal(info(f, f->h.control, HL_IOCTL_INFO,
			      HL_INFO_DEVICE_STATUS, 0, 8),
			 0);
}

static void test_rejected_codes(void **state)
{
	struct fixture *f = *state;
	uint8_t arg[64] = { 0 };

	assert_int_equal(run(f->h.compute,
			     _IOWR('H', 0x07, struct hl_info_args), arg, 24),
			 -ENOTTY);
	assert_int_equal(run(f->h.compute,
			     _IOWR('d', 0x01, struct hl_info_args), arg, 24),
			 -ENOTTY);
	/* a control node has INFO only: the real driver's -ENOTTY */
	assert_int_equal(run(f->h.control, HL_IOCTL_MEMORY, arg, 40), -ENOTTY);
	assert_int_equal(run(f->h.control, DRM_IOCTL_HL_CS, arg, 48), -ENOTTY);
	assert_int_equal(run(f->h.control, HL_IOCTL_CB, arg, 24), -ENOTTY);
	assert_int_equal(run(f->h.control, HL_IOCTL_DEBUG, arg, 40), -ENOTTY);
	/* families not served yet answer as a command without a handler */
	/* CS without execute chunks, WAIT_CS on 0: served, refused */
	assert_int_equal(run(f->h.compute, HL_IOCTL_CS, arg, 48), -EINVAL);
	assert_int_equal(run(f->h.compute, HL_IOCTL_WAIT_CS, arg, 56), -EINVAL);
}

static int debug(struct hfd_ctx *ctx, unsigned int cmd, uint32_t op,
		 uint32_t enable)
{
	struct hl_debug_args a = { .op = op, .enable = enable };

	return run(ctx, cmd, &a, sizeof(a));
}

/* The device's debug mode, with the real driver's errors */
static void test_debug_mode(void **state)
{
	struct fixture *f = *state;
	struct hfd_device *dev = &f->h.drv.devs[0];

	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG, HL_DEBUG_OP_ETR,
			       0),
			 -EFAULT);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 0),
			 -EFAULT);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG, 8, 0), -EINVAL);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 1),
			 0);
	assert_ptr_equal(dev->hl_debug, f->h.compute);
	assert_int_equal(debug(f->h.compute, DRM_IOCTL_HL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 1),
			 -EFAULT);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_TIMESTAMP, 0),
			 -EOPNOTSUPP);
	assert_int_equal(debug(f->h.compute, DRM_IOCTL_HL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 0),
			 0);
	assert_null(dev->hl_debug);
	/* closing the context ends its debug mode */
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 1),
			 0);
	hfd_ctx_release(f->h.compute);
	f->h.compute = NULL;
	assert_null(dev->hl_debug);
	assert_int_equal(hfd_ctx_open_exclusive(dev, false, true, getpid(),
						getuid(), getgid(),
						&f->h.compute),
			 0);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 1),
			 0);
	/* a device that does not work */
	pthread_mutex_lock(&dev->ctx_lock);
	dev->status = HPU_DEVICE_STATUS_NEEDS_RESET;
	pthread_mutex_unlock(&dev->ctx_lock);
	assert_int_equal(debug(f->h.compute, HL_IOCTL_DEBUG,
			       HL_DEBUG_OP_SET_MODE, 0),
			 -EBUSY);
	pthread_mutex_lock(&dev->ctx_lock);
	dev->status = HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&dev->ctx_lock);
}

static void test_caller_size(void **state)
{
	struct fixture *f = *state;
	uint8_t arg[64];
	struct hl_info_args *a = (void *)arg;

	/* an older, shorter struct: zero-extended (pad is then 0) */
	memset(arg, 0, sizeof(arg));
	a->return_pointer = (uintptr_t)f->ans;
	a->return_size = 8;
	a->op = HL_INFO_CLK_RATE;
	memset(arg + 16, 0xff, sizeof(arg) - 16);
	memset(f->ans, FILL, sizeof(f->ans));
	assert_int_equal(run(f->h.compute, _IOWR('H', 1, uint8_t[16]), arg, 16),
			 0);
	assert_int_equal(written(f), 8);
	/* a newer, longer struct: the tail is not read, answered as 0 */
	memset(arg, 0, sizeof(arg));
	a->return_pointer = (uintptr_t)f->ans;
	a->return_size = 8;
	a->op = HL_INFO_CLK_RATE;
	memset(arg + 24, 0xff, 8);
	assert_int_equal(run(f->h.compute, _IOWR('H', 1, uint8_t[32]), arg, 32),
			 0);
	assert_int_equal(arg[24] | arg[31], 0);
}

/**
 * struct op_size - an INFO op and the size of its full answer
 * @op: HL_INFO_*
 * @size: bytes
 * @extra: dcore_id / pll_index
 */
struct op_size {
	uint32_t op;
	uint32_t size;
	uint32_t extra;
};

static const struct op_size answered[] = {
	{ HL_INFO_HW_IP_INFO, 304, 0 },
	{ HL_INFO_HW_EVENTS, HL_GAUDI2_NUM_EVENTS * 4, 0 },
	{ HL_INFO_DRAM_USAGE, 16, 0 },
	{ HL_INFO_HW_IDLE, 40, 0 },
	{ HL_INFO_DEVICE_STATUS, 8, 0 },
	{ HL_INFO_DEVICE_UTILIZATION, 8, 0 },
	{ HL_INFO_HW_EVENTS_AGGREGATE, HL_GAUDI2_NUM_EVENTS * 4, 0 },
	{ HL_INFO_CLK_RATE, 8, 0 },
	{ HL_INFO_RESET_COUNT, 8, 0 },
	{ HL_INFO_TIME_SYNC, 16, 0 },
	{ HL_INFO_CS_COUNTERS, 96, 0 },
	{ HL_INFO_PCI_COUNTERS, 24, 0 },
	{ HL_INFO_CLK_THROTTLE_REASON, 40, 0 },
	{ HL_INFO_SYNC_MANAGER, 16, 3 },
	{ HL_INFO_TOTAL_ENERGY, 8, 0 },
	{ HL_INFO_PLL_FREQUENCY, 8, 11 },
	{ HL_INFO_POWER, 8, 0 },
	{ HL_INFO_OPEN_STATS, 24, 0 },
	{ HL_INFO_DRAM_REPLACED_ROWS, 264, 0 },
	{ HL_INFO_DRAM_PENDING_ROWS, 4, 0 },
	{ HL_INFO_LAST_ERR_OPEN_DEV_TIME, 8, 0 },
	{ HL_INFO_CS_TIMEOUT_EVENT, 16, 0 },
	{ HL_INFO_RAZWI_EVENT, 280, 0 },
	{ HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, 8, 0 },
	{ HL_INFO_GET_EVENTS, 8, 0 },
	{ HL_INFO_UNDEFINED_OPCODE_EVENT, 288, 0 },
	{ HL_INFO_PAGE_FAULT_EVENT, 24, 0 },
};

/* Every answer is its op's full size and nothing beyond (the answers end
 * in bytes other than FILL: 0 mostly), then cut to return_size */
static void test_every_op_size(void **state)
{
	struct fixture *f = *state;
	unsigned int i;
	size_t n;

	for (i = 0; i < sizeof(answered) / sizeof(answered[0]); i++) {
		assert_int_equal(hfd_hl_info_size(answered[i].op),
				 answered[i].size);
		assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
				      answered[i].op, answered[i].extra,
				      ANS_ROOM),
				 0);
		n = written(f);
		if (n != answered[i].size)
			fail_msg("op %u wrote %zu bytes, its answer has %u",
				 answered[i].op, n, answered[i].size);
		assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
				      answered[i].op, answered[i].extra, 3),
				 0);
		/* (bytes 0..2 are the answer's: any value, FILL included) */
		assert_true(written(f) <= 3);
	}
}

static void test_values(void **state)
{
	struct fixture *f = *state;
	const struct hfd_device *dev = &f->h.drv.devs[0];
	struct hl_info_hw_ip_info ip;
	struct hl_info_dram_usage du;
	struct hl_info_clk_rate clk;
	struct hl_open_stats_info os;
	struct hl_info_time_sync ts;
	struct hl_pll_frequency_info pll;
	struct hl_info_hw_idle idle;
	uint32_t status[2];
	uint32_t ev[4];

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_HW_IP_INFO, 0, sizeof(ip)),
			 0);
	memcpy(&ip, f->ans, sizeof(ip));
	assert_int_equal(ip.device_id, HL_PCI_IDS_GAUDI2);
	assert_int_equal(ip.num_of_events, 1322);
	assert_int_equal(ip.dram_size, dev->ip.dram_size);
	assert_int_equal(ip.sram_size, dev->ip.sram_size);
	assert_int_equal(ip.dram_base_address, HPU_FW_VA_DEVICE_BASE);
	assert_int_equal(ip.sram_base_address, dev->ip.sram_base_address);
	assert_int_equal(ip.dram_page_size, dev->ip.dram_page_size);
	assert_int_equal(ip.module_id, dev->module_id);
	assert_int_equal(ip.dram_enabled, 1);
	assert_int_equal(ip.tpc_enabled_mask_ext, dev->ip.tpc_enabled_mask);
	assert_string_equal((char *)ip.card_name, "HL-225");
	assert_int_not_equal(ip.cpucp_version[0], 0);
	assert_int_equal(ip.reserved3 | ip.reserved4 | ip.reserved5, 0);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_DEVICE_STATUS, 0, 8),
			 0);
	memcpy(status, f->ans, 8);
	assert_int_equal(status[0], HL_DEVICE_STATUS_OPERATIONAL);
	assert_int_equal(status[1], 0);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_DRAM_USAGE, 0, 16),
			 0);
	memcpy(&du, f->ans, sizeof(du));
	assert_int_equal(du.dram_free_mem, dev->ip.dram_size);
	assert_int_equal(du.ctx_dram_mem, 0);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_CLK_RATE,
			      0, 8),
			 0);
	memcpy(&clk, f->ans, sizeof(clk));
	assert_int_equal(clk.max_clk_rate_mhz, 1800);
	assert_in_range(clk.cur_clk_rate_mhz, 1, 1800);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_OPEN_STATS, 0, 24),
			 0);
	memcpy(&os, f->ans, sizeof(os));
	assert_int_equal(os.open_counter, 1);
	assert_int_equal(os.is_compute_ctx_active, 1);
	assert_int_equal(os.compute_ctx_in_release, 0);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_TIME_SYNC,
			      0, 16),
			 0);
	memcpy(&ts, f->ans, sizeof(ts));
	assert_true(ts.host_time > 0);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_PLL_FREQUENCY, 8 /* TPC */, 8),
			 0);
	memcpy(&pll, f->ans, sizeof(pll));
	assert_int_equal(pll.output[0], clk.cur_clk_rate_mhz);

	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_HW_IDLE,
			      0, 40),
			 0);
	memcpy(&idle, f->ans, sizeof(idle));
	assert_int_equal(idle.is_idle, 1);
	assert_int_equal(idle.busy_engines_mask_ext[0], 0);

	/* HW_EVENTS: the counters the caller has room for */
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_HW_EVENTS,
			      0, sizeof(ev)),
			 0);
	memcpy(ev, f->ans, sizeof(ev));
	assert_int_equal(ev[0] | ev[1] | ev[2] | ev[3], 0);
	assert_int_equal(f->ans[sizeof(ev)], FILL);

	/* a control node has no context: no DRAM of its own */
	assert_int_equal(info(f, f->h.control, HL_IOCTL_INFO,
			      HL_INFO_DRAM_USAGE, 0, 16),
			 0);
	memcpy(&du, f->ans, sizeof(du));
	assert_int_equal(du.ctx_dram_mem, 0);
}

/* An INFO request the driver refuses, and with what */
struct bad_info {
	bool control; /* on the control context, else the compute one */
	uint32_t op;
	uint32_t extra; /* dcore_id / pll_index */
	uint32_t size;	/* return_size */
	int err;
};

static void test_bad_info(void **state)
{
	static const struct bad_info bad[] = {
		/* unknown ops */
		{ false, 5, 0, 64, -EINVAL },
		{ false, 19, 0, 64, -EINVAL },
		{ false, 20, 0, 64, -EINVAL },
		{ false, 38, 0, 64, -EINVAL },
		{ false, 1000, 0, 64, -EINVAL },
		{ false, 0xffffffff, 0, 64, -EINVAL },
		/* no room */
		{ false, HL_INFO_HW_IP_INFO, 0, 0, -EINVAL },
		/* out of range */
		{ false, HL_INFO_SYNC_MANAGER, HL_MAX_DCORES, 16, -EINVAL },
		{ false, HL_INFO_PLL_FREQUENCY, HL_GAUDI2_PLL_MAX, 8, -EINVAL },
		/* the control node's refusals */
		{ true, HL_INFO_GET_EVENTS, 0, 8, -EOPNOTSUPP },
		{ true, HL_INFO_REGISTER_EVENTFD, 0, 8, -EOPNOTSUPP },
		{ true, HL_INFO_UNREGISTER_EVENTFD, 0, 8, -EOPNOTSUPP },
		/* nothing registered */
		{ false, HL_INFO_UNREGISTER_EVENTFD, 0, 8, -EINVAL },
		/* not served by the model */
		{ false, HL_INFO_SECURED_ATTESTATION, 0, 64, -EOPNOTSUPP },
		{ false, HL_INFO_ENGINE_STATUS, 0, 64, -EOPNOTSUPP },
	};
	struct fixture *f = *state;
	struct hl_info_args a;
	unsigned int i;
	void *page;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = info(f, bad[i].control ? f->h.control : f->h.compute,
			   HL_IOCTL_INFO, bad[i].op, bad[i].extra, bad[i].size);
		if (ret != bad[i].err)
			print_message("case %u: op %u: %d, want %d\n", i,
				      bad[i].op, ret, bad[i].err);
		assert_int_equal(ret, bad[i].err);
	}
	/* pad not 0 */
	memset(&a, 0, sizeof(a));
	a.return_pointer = (uintptr_t)f->ans;
	a.return_size = 8;
	a.op = HL_INFO_CLK_RATE;
	a.pad = 1;
	assert_int_equal(run(f->h.compute, HL_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	/* no pointer */
	memset(&a, 0, sizeof(a));
	a.return_size = 8;
	a.op = HL_INFO_CLK_RATE;
	assert_int_equal(run(f->h.compute, DRM_IOCTL_HL_INFO, &a, sizeof(a)),
			 -EINVAL);
	/* an answer that cannot be written: -EFAULT */
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	memset(&a, 0, sizeof(a));
	a.return_pointer = (uintptr_t)page;
	a.return_size = 304;
	a.op = HL_INFO_HW_IP_INFO;
	assert_int_equal(run(f->h.compute, HL_IOCTL_INFO, &a, sizeof(a)),
			 -EFAULT);
	munmap(page, 4096);
	/* nothing captured: the error-event ops copy nothing */
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_HW_ERR_EVENT, 0, 16),
			 0);
	assert_int_equal(written(f), 0);
}

static void set_status(struct hfd_device *dev, uint32_t status)
{
	pthread_mutex_lock(&dev->ctx_lock);
	dev->status = status;
	pthread_mutex_unlock(&dev->ctx_lock);
}

/* A device that needs a reset answers the state-free ops only */
static void test_not_operational(void **state)
{
	struct fixture *f = *state;
	struct hfd_device *dev = &f->h.drv.devs[0];
	uint32_t status;

	set_status(dev, HPU_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_DEVICE_STATUS, 0, 8),
			 0);
	memcpy(&status, f->ans, 4);
	assert_int_equal(status, HL_DEVICE_STATUS_NEEDS_RESET);
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO,
			      HL_INFO_HW_IP_INFO, 0, 304),
			 0);
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_HW_IDLE,
			      0, 40),
			 -EBUSY);
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_CLK_RATE,
			      0, 8),
			 -EBUSY);
	/* the real driver checks the state before it finds the op unknown */
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, 5, 0, 8), -EBUSY);
	set_status(dev, HPU_DEVICE_STATUS_OPERATIONAL);
	assert_int_equal(info(f, f->h.compute, HL_IOCTL_INFO, HL_INFO_HW_IDLE,
			      0, 40),
			 0);
}

/* One compute open per device: -EBUSY for a second, control opens never */
static void test_one_compute_open(void **state)
{
	struct fixture *f = *state;
	struct hfd_device *dev = &f->h.drv.devs[0];
	struct hfd_ctx *c2 = NULL, *ctl2 = NULL;

	assert_int_equal(hfd_ctx_open_exclusive(dev, false, true, getpid(),
						getuid(), getgid(), &c2),
			 -EBUSY);
	assert_null(c2);
	assert_int_equal(hfd_ctx_open_exclusive(dev, true, true, getpid(),
						getuid(), getgid(), &ctl2),
			 0);
	hfd_ctx_release(ctl2);
	/* once the holder is gone the device can be opened again */
	hfd_ctx_release(f->h.compute);
	f->h.compute = NULL;
	assert_int_equal(hfd_ctx_open_exclusive(dev, false, true, getpid(),
						getuid(), getgid(),
						&f->h.compute),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test_setup_teardown(test_both_sets_answer, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_rejected_codes, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_debug_mode, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_caller_size, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_every_op_size, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_values, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_bad_info, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_not_operational, setup,
						hpu_test_hfd_teardown),
		cmocka_unit_test_setup_teardown(test_one_compute_open, setup,
						hpu_test_hfd_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
