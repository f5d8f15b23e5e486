// SPDX-License-Identifier: MIT
/*
 * test_ioctl_dispatch.c - the driver core without FUSE: the dispatch
 * table's rules, the shared argument checker, INFO into this process's
 * own memory, the argument checks of MEMORY/CB/CS/WAIT_CS/DEBUG and the
 * per-context event queue.
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

/* One simulated device with a compute and a control context opened by
 * this process */
static struct hpu_test_hfd_fixture fx;

static int setup(void **state)
{
	return hpu_test_hfd_setup(&fx, state, false, true);
}

/* One ioctl as user @uid */
static int run_uid(struct hfd_ctx *ctx, unsigned int cmd, void *arg,
		   size_t size, uid_t uid)
{
	return hpu_test_hfd_ioctl(ctx, uid, cmd, arg, size);
}

static int run(struct hfd_ctx *ctx, unsigned int cmd, void *arg, size_t size)
{
	return hpu_test_hfd_ioctl(ctx, 0, cmd, arg, size);
}

static void test_lookup_valid(void **state)
{
	static const struct {
		unsigned int cmd;
		const char *name;
	} cmds[] = {
		{ HPU_IOCTL_INFO, "INFO" },
		{ HPU_IOCTL_CB, "CB" },
		{ HPU_IOCTL_CS, "CS" },
		{ HPU_IOCTL_WAIT_CS, "WAIT_CS" },
		{ HPU_IOCTL_MEMORY, "MEMORY" },
		{ HPU_IOCTL_DEBUG, "DEBUG" },
		{ HPU_IOCTL_NIC, "NIC" },
		{ HPU_IOCTL_RING, "RING" },
		{ HPU_IOCTL_TRACE, "TRACE" },
	};
	const struct hfd_ioctl_desc *d;
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		d = hfd_ioctl_lookup(cmds[i].cmd, &err);
		assert_non_null(d);
		assert_int_equal(err, 0);
		assert_string_equal(d->name, cmds[i].name);
		assert_true(_IOC_SIZE(d->cmd) <= HFD_IOCTL_MAX_SIZE);
		assert_int_equal(!!(d->flags & HFD_IOCTL_CONTROL_OK),
				 cmds[i].cmd == HPU_IOCTL_INFO);
	}
}

static void test_lookup_wrong_type(void **state)
{
	int err;

	assert_null(hfd_ioctl_lookup(
		_IOWR('x', DRM_COMMAND_BASE, struct hpu_info_args), &err));
	assert_int_equal(err, -ENOTTY);
}

static void test_lookup_nr_out_of_range(void **state)
{
	int err;

	assert_null(
		hfd_ioctl_lookup(DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_END,
					  struct hpu_info_args),
				 &err));
	assert_int_equal(err, -ENOTTY);
	assert_null(hfd_ioctl_lookup(
		DRM_IOWR(DRM_COMMAND_BASE - 1, struct hpu_info_args), &err));
	assert_int_equal(err, -ENOTTY);
	assert_null(
		hfd_ioctl_lookup(DRM_IOWR(0xff, struct hpu_info_args), &err));
	assert_int_equal(err, -ENOTTY);
}

static void test_lookup_wrong_direction(void **state)
{
	int err;

	assert_null(
		hfd_ioctl_lookup(DRM_IOW(DRM_COMMAND_BASE + HPU_COMMAND_INFO,
					 struct hpu_info_args),
				 &err));
	assert_int_equal(err, -ENOTTY);
	assert_null(hfd_ioctl_lookup(DRM_IOR(DRM_COMMAND_BASE + HPU_COMMAND_CS,
					     union hpu_cs_args),
				     &err));
	assert_int_equal(err, -ENOTTY);
}

static void test_lookup_wrong_size(void **state)
{
	int err;

	assert_null(hfd_ioctl_lookup(
		DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_INFO, uint64_t), &err));
	assert_int_equal(err, -EINVAL);
	assert_null(
		hfd_ioctl_lookup(DRM_IOWR(DRM_COMMAND_BASE + HPU_COMMAND_MEMORY,
					  struct hpu_info_args),
				 &err));
	assert_int_equal(err, -EINVAL);
}

static void test_check_flags(void **state)
{
	assert_int_equal(hfd_check_flags(0, 0), 0);
	assert_int_equal(hfd_check_flags(0x3, 0x3), 0);
	assert_int_equal(hfd_check_flags(0x4, 0x3), -EINVAL);
	assert_int_equal(hfd_check_flags(1ULL << 63, ~0ULL >> 1), -EINVAL);
}

static void test_check_zero(void **state)
{
	uint8_t buf[13] = { 0 };

	assert_int_equal(hfd_check_zero(buf, sizeof(buf)), 0);
	assert_int_equal(hfd_check_zero(buf, 0), 0);
	buf[12] = 1;
	assert_int_equal(hfd_check_zero(buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hfd_check_zero(buf, 12), 0);
}

static void test_dispatch_short_input(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_info_args a = { 0 };

	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a) - 8),
			 -EINVAL);
}

static void test_control_only_info(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_info_driver_version v;
	struct hpu_info_args a = {
		.return_pointer = (uintptr_t)&v,
		.return_size = sizeof(v),
		.op = HPU_INFO_DRIVER_VERSION,
	};
	union hpu_cs_args cs = { .in = { .num_chunks_execute = 1,
					 .chunks_execute = 1 } };
	struct hpu_debug_args dbg = { .op = HPU_DEBUG_OP_CLEAR_FAULTS };

	assert_int_equal(run(f->control, HPU_IOCTL_INFO, &a, sizeof(a)), 0);
	assert_int_equal(
		v.capabilities,
		HPU_CAP_INFO | HPU_CAP_MEMORY | HPU_CAP_CB | HPU_CAP_CS |
			HPU_CAP_EVENTS | HPU_CAP_RING | HPU_CAP_CTX_LIMITS |
			HPU_CAP_RESET | HPU_CAP_CTRL_EVENTS | HPU_CAP_TRACE |
			HPU_CAP_DMA_SWAP | HPU_CAP_LONG_SOB |
			(hfd_model_has_nic(&hpusim_model) ?
				 HPU_CAP_NIC | HPU_CAP_NIC_PD | HPU_CAP_DEBUG :
				 0));
	assert_int_equal(run(f->control, HPU_IOCTL_CS, &cs, sizeof(cs)),
			 -EPERM);
	assert_int_equal(run(f->control, HPU_IOCTL_DEBUG, &dbg, sizeof(dbg)),
			 -EPERM);
	/* DEBUG RESET is the one op a control node may use besides INFO */
	memset(&dbg, 0, sizeof(dbg));
	dbg.op = HPU_DEBUG_OP_RESET;
	assert_int_equal(run(f->control, HPU_IOCTL_DEBUG, &dbg, sizeof(dbg)),
			 -EINVAL);
	dbg.param = HPU_RESET_HARD;
	assert_int_equal(run_uid(f->control, HPU_IOCTL_DEBUG, &dbg, sizeof(dbg),
				 12345),
			 -EPERM);
}

static void test_info_snprintf(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	uint8_t buf[sizeof(struct hpu_info_hw_ip_info) + 8];
	struct hpu_info_hw_ip_info *ip = (void *)buf;
	struct hpu_info_args a = {
		.return_pointer = (uintptr_t)buf,
		.return_size = 8,
		.op = HPU_INFO_HW_IP_INFO,
	};

	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)), 0);
	assert_int_equal(a.full_size, sizeof(*ip));
	assert_int_equal(ip->dram_base_address, f->drv.profile->dram_base);
	assert_int_equal(buf[8], 0xa5);

	a.return_size = sizeof(buf);
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)), 0);
	assert_int_equal(ip->dram_size, f->drv.profile->dram_size);
	assert_int_equal(buf[sizeof(*ip)], 0xa5);
}

static void test_info_rejects(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_info_device_utilization u;
	struct hpu_info_args a;
	const struct hpu_info_args good = {
		.return_pointer = (uintptr_t)&u,
		.return_size = sizeof(u),
		.op = HPU_INFO_DEVICE_UTILIZATION,
		.period_ms = HPU_INFO_PERIOD_MS_MIN,
	};

	a = good;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)), 0);
	a = good;
	a.flags = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.pad = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.op = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.op = 1000;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.period_ms = HPU_INFO_PERIOD_MS_MAX;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)), 0);
	a = good;
	a.period_ms = HPU_INFO_PERIOD_MS_MIN - 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.period_ms = HPU_INFO_PERIOD_MS_MAX + 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.op = HPU_INFO_HW_IDLE;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.return_pointer = 0;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.return_size = 0;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EINVAL);
	a = good;
	a.return_pointer = 8;
	assert_int_equal(run(f->compute, HPU_IOCTL_INFO, &a, sizeof(a)),
			 -EFAULT);
}

static void test_cb_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	static uint64_t buf[8];
	union hpu_cb_args cb;
	const struct hpu_cb_in good = { .host_ptr = (uintptr_t)buf,
					.cb_size = sizeof(buf) };
	uint64_t handle;

	memset(&cb, 0, sizeof(cb));
	cb.in = good;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)), 0);
	handle = cb.out.cb_handle;
	assert_true(handle != 0);
	memset(&cb, 0, sizeof(cb));
	cb.in.op = HPU_CB_OP_DESTROY;
	cb.in.cb_handle = handle;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)), 0);
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EINVAL);
	cb.in = good;
	cb.in.host_ptr = 8; /* not mapped in this process */
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EFAULT);
	cb.in = good;
	cb.in.flags = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EINVAL);
	cb.in = good;
	cb.in.pad = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EINVAL);
	cb.in = good;
	cb.in.op = 3;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EINVAL);
	cb.in = good;
	cb.in.cb_size = 12;
	assert_int_equal(run(f->compute, HPU_IOCTL_CB, &cb, sizeof(cb)),
			 -EINVAL);
}

static void test_cs_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	union hpu_cs_args cs;
	const struct hpu_cs_in good = { .chunks_execute = 4096,
					.num_chunks_execute = 1 };

	memset(&cs, 0, sizeof(cs));
	cs.in = good;
	cs.in.chunks_execute = 8; /* not mapped */
	assert_int_equal(run(f->compute, HPU_IOCTL_CS, &cs, sizeof(cs)),
			 -EFAULT);
	cs.in = good;
	cs.in.cs_flags = HPU_CS_FLAGS_MASK + 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_CS, &cs, sizeof(cs)),
			 -EINVAL);
	cs.in = good;
	cs.in.reserved = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_CS, &cs, sizeof(cs)),
			 -EINVAL);
	cs.in = good;
	cs.in.num_chunks_execute = HPU_MAX_JOBS_PER_CS + 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_CS, &cs, sizeof(cs)),
			 -EINVAL);
}

static void test_wait_cs_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	union hpu_wait_cs_args w;
	const struct hpu_wait_cs_in good = { .seq = 1 };

	memset(&w, 0, sizeof(w));
	w.in = good; /* never issued */
	assert_int_equal(run(f->compute, HPU_IOCTL_WAIT_CS, &w, sizeof(w)),
			 -EINVAL);
	w.in = good;
	w.in.seq = 0;
	assert_int_equal(run(f->compute, HPU_IOCTL_WAIT_CS, &w, sizeof(w)),
			 -EINVAL);
	w.in = good;
	w.in.seq = ~0ULL;
	assert_int_equal(run(f->compute, HPU_IOCTL_WAIT_CS, &w, sizeof(w)),
			 -EINVAL);
	w.in = good;
	w.in.flags = 1U << 5;
	assert_int_equal(run(f->compute, HPU_IOCTL_WAIT_CS, &w, sizeof(w)),
			 -EINVAL);
	w.in = good;
	w.in.flags = HPU_WAIT_CS_FLAGS_MULTI_CS;
	w.in.seq_arr_len = HPU_WAIT_MULTI_CS_MAX + 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_WAIT_CS, &w, sizeof(w)),
			 -EINVAL);
}

static void test_memory_debug_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	union hpu_mem_args m;
	struct hpu_debug_args d;
	uint64_t h;

	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_ALLOC;
	m.in.size = 4096;
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)), 0);
	assert_true(m.out.size >= 4096);
	h = m.out.handle;
	/* the answer overlaps the input: what FREE does not use must be 0 */
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = h;
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)),
			 -EINVAL);
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = h;
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)), 0);
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)),
			 -EINVAL);
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_ALLOC;
	m.in.size = 4096;
	m.in.flags = HPU_MEM_USERPTR; /* not an ALLOC flag */
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)),
			 -EINVAL);
	m.in.flags = 0;
	m.in.op = HPU_MEM_OP_MAP_SHM + 1; /* past the last op */
	assert_int_equal(run(f->compute, HPU_IOCTL_MEMORY, &m, sizeof(m)),
			 -EINVAL);

	memset(&d, 0, sizeof(d));
	d.op = HPU_DEBUG_OP_INJECT_FAULT;
	d.fault = HPU_FAULT_MAX;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	d.fault = HPU_FAULT_ECC_ERR;
	d.reserved = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	d.reserved = 0;
	d.param = 2; /* 0 corrected, 1 uncorrectable */
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	d.param = 0;
	d.engine = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	d.engine = 0;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)), 0);
	/* a page fault on engine 0 arms the device (ABI 1.4) */
	d.fault = HPU_FAULT_PAGE_FAULT;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)), 0);
	assert_int_equal(f->drv.devs[0].pf_armed, 1);
	f->drv.devs[0].pf_armed = 0;
	/* ENGINE_HANG and DEVICE_ERR take neither engine nor param */
	d.fault = HPU_FAULT_ENGINE_HANG;
	d.engine = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	d.engine = 0;
	d.fault = HPU_FAULT_DEVICE_ERR;
	d.param = 1;
	assert_int_equal(run(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d)),
			 -EINVAL);
	/* a corrected error is not fatal */
	assert_int_equal(f->drv.devs[0].status, HPU_DEVICE_STATUS_OPERATIONAL);
}

static int nic(struct hpu_test_hfd_fixture *f, struct hpu_nic_in *in)
{
	union hpu_nic_args a;

	memset(&a, 0, sizeof(a));
	a.in = *in;
	return run(f->compute, HPU_IOCTL_NIC, &a, sizeof(a));
}

/* Every NIC field the driver checks before the model sees the call */
static void test_nic_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	const struct hpu_fw_profile *p = f->drv.devs[0].profile;
	int unsupported = hfd_model_has_nic(&hpusim_model) ? 0 : -EOPNOTSUPP;
	struct hpu_nic_in reg = { .op = HPU_NIC_OP_REG_MR,
				  .flags = HPU_NIC_MR_REMOTE_WRITE,
				  .addr = 0x100000000000ULL,
				  .size = 4096 };
	struct hpu_nic_in con = { .op = HPU_NIC_OP_CONNECT,
				  .port = 0,
				  .remote_device = 0 };
	struct hpu_nic_in in;
	union hpu_nic_args a;

	/* control nodes: no NIC family */
	memset(&a, 0, sizeof(a));
	a.in = reg;
	assert_int_equal(run(f->control, HPU_IOCTL_NIC, &a, sizeof(a)), -EPERM);

	in = reg;
	in.op = HPU_NIC_OP_ACCEPT + 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.flags = 0; /* REMOTE_WRITE is required */
	assert_int_equal(nic(f, &in), -EINVAL);
	in.flags = HPU_NIC_MR_REMOTE_WRITE | 2;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.size = 0;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.addr = ~0ULL - 100;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.pad0 = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.pad1 = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.token = 1; /* ACCEPT's member */
	assert_int_equal(nic(f, &in), -EINVAL);
	/* members REG_MR does not use */
	in = reg;
	in.handle = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.port = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.remote_ipv4 = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.remote_device = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = reg;
	in.remote_port = 1;
	assert_int_equal(nic(f, &in), -EINVAL);

	/* DEREG_MR and DISCONNECT: a handle and nothing else */
	memset(&in, 0, sizeof(in));
	in.op = HPU_NIC_OP_DEREG_MR;
	assert_int_equal(nic(f, &in), -ENOENT); /* keys are never 0 */
	in.op = HPU_NIC_OP_DISCONNECT;
	assert_int_equal(nic(f, &in), -ENOENT);
	in.handle = 5;
	in.size = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.size = 0;
	in.flags = HPU_NIC_MR_REMOTE_WRITE;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.flags = 0;
	in.op = HPU_NIC_OP_DEREG_MR;
	in.port = 2;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.port = 0;
	in.addr = 4096;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.addr = 0;
	assert_int_equal(nic(f, &in), unsupported ? unsupported : -ENOENT);

	/* ACCEPT: a token and nothing else */
	memset(&in, 0, sizeof(in));
	in.op = HPU_NIC_OP_ACCEPT;
	assert_int_equal(nic(f, &in), -EINVAL); /* tokens are never 0 */
	in.token = 5;
	in.handle = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.handle = 0;
	in.port = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.port = 0;
	in.flags = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.flags = 0;
	in.size = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in.size = 0;
	/* CONNECT does not take a token */
	in = con;
	in.token = 5;
	assert_int_equal(nic(f, &in), -EINVAL);

	/* CONNECT */
	in = con;
	in.port = p->num_nic_ports;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.flags = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.handle = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.addr = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.size = 1;
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.remote_ipv4 = 0x0100007f; /* an address without a port */
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.remote_port = 4000; /* a port without an address */
	assert_int_equal(nic(f, &in), -EINVAL);
	in = con;
	in.remote_device = 1; /* a server of one device */
	assert_int_equal(nic(f, &in), -ENODEV);
	if (unsupported) {
		in = reg;
		assert_int_equal(nic(f, &in), -EOPNOTSUPP);
		in = con;
		assert_int_equal(nic(f, &in), -EOPNOTSUPP);
	}
}

static int dbg(struct hpu_test_hfd_fixture *f, struct hpu_debug_args *d)
{
	return run(f->compute, HPU_IOCTL_DEBUG, d, sizeof(*d));
}

/* Where a refused injection aims, resolved against the device's profile */
enum bad_engine {
	AT_LITERAL,    /* args.engine as written */
	AT_PAST_PORTS, /* one past the last NIC port */
	AT_FIRST_NIC,  /* engine index of NIC port 0 (not a compute engine) */
};

/*
 * INJECT_FAULT arguments each fault kind refuses with -EINVAL (nothing
 * armed): a target it cannot take, a parameter or buffers it has none of.
 */
static const struct refused_inject {
	const char *why;
	enum bad_engine at;
	struct hpu_debug_args args;
} refused_injects[] = {
	{ "link down: no such port",
	  AT_PAST_PORTS,
	  { .fault = HPU_FAULT_LINK_DOWN } },
	{ "link down: param",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_LINK_DOWN, .param = 1 } },
	{ "link down: input",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_LINK_DOWN, .input_size = 8 } },
	{ "link down: output",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_LINK_DOWN, .output_ptr = 4096 } },
	{ "link down: flags",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_LINK_DOWN, .flags = 1 } },
	{ "page fault: a NIC port",
	  AT_FIRST_NIC,
	  { .fault = HPU_FAULT_PAGE_FAULT } },
	{ "page fault: param",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_PAGE_FAULT, .param = 1 } },
	{ "page fault: input",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_PAGE_FAULT, .input_size = 8 } },
	{ "thermal: an engine",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_THERMAL, .engine = 1 } },
	{ "thermal: param",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_THERMAL, .param = 1 } },
	{ "thermal: output",
	  AT_LITERAL,
	  { .fault = HPU_FAULT_THERMAL, .output_size = 8 } },
	{ "unknown fault", AT_LITERAL, { .fault = HPU_FAULT_MAX } },
};

static void test_debug_link_validation(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	const struct hpu_fw_profile *p = f->drv.devs[0].profile;
	int unsupported = hfd_model_has_nic(&hpusim_model) ? 0 : -EOPNOTSUPP;
	struct hpu_debug_args d;
	size_t i;

	for (i = 0; i < sizeof(refused_injects) / sizeof(refused_injects[0]);
	     i++) {
		const struct refused_inject *r = &refused_injects[i];

		d = r->args;
		d.op = HPU_DEBUG_OP_INJECT_FAULT;
		if (r->at == AT_PAST_PORTS)
			d.engine = p->num_nic_ports;
		else if (r->at == AT_FIRST_NIC)
			d.engine = p->num_dma + p->num_mme + p->num_tpc;
		if (dbg(f, &d) != -EINVAL)
			fail_msg("%s: not refused", r->why);
		if (f->drv.devs[0].pf_armed || f->drv.devs[0].overheated ||
		    f->drv.devs[0].links_injected)
			fail_msg("%s: refused, yet armed", r->why);
	}

	/* a page fault on a compute engine arms it (index + 1) */
	memset(&d, 0, sizeof(d));
	d.op = HPU_DEBUG_OP_INJECT_FAULT;
	d.fault = HPU_FAULT_PAGE_FAULT;
	d.engine = p->num_dma;
	assert_int_equal(dbg(f, &d), 0);
	assert_int_equal(f->drv.devs[0].pf_armed, p->num_dma + 1);

	/* a thermal event on the device */
	memset(&d, 0, sizeof(d));
	d.op = HPU_DEBUG_OP_INJECT_FAULT;
	d.fault = HPU_FAULT_THERMAL;
	assert_int_equal(dbg(f, &d), unsupported);
	assert_int_equal(f->drv.devs[0].overheated, !unsupported);

	memset(&d, 0, sizeof(d));
	d.op = HPU_DEBUG_OP_CLEAR_FAULTS;
	d.engine = 1;
	assert_int_equal(dbg(f, &d), -EINVAL);
	d.engine = 0;
	d.fault = HPU_FAULT_LINK_DOWN;
	assert_int_equal(dbg(f, &d), -EINVAL);
	d.fault = 0;
	assert_int_equal(dbg(f, &d), unsupported);
	d.op = HPU_DEBUG_OP_ENGINE_STATUS;
	assert_int_equal(dbg(f, &d), -EOPNOTSUPP);
	d.op = HPU_DEBUG_OP_ENGINE_STATUS + 1;
	assert_int_equal(dbg(f, &d), -EINVAL);

	if (!unsupported) {
		memset(&d, 0, sizeof(d));
		d.op = HPU_DEBUG_OP_INJECT_FAULT;
		d.fault = HPU_FAULT_LINK_DOWN;
		d.engine = p->num_nic_ports - 1;
		assert_int_equal(dbg(f, &d), 0);
		assert_int_equal(f->drv.devs[0].links_injected,
				 1ULL << (p->num_nic_ports - 1));
		memset(&d, 0, sizeof(d));
		d.op = HPU_DEBUG_OP_CLEAR_FAULTS;
		assert_int_equal(dbg(f, &d), 0);
		assert_int_equal(f->drv.devs[0].links_injected, 0);
		assert_int_equal(f->drv.devs[0].pf_armed, 0);
		assert_false(f->drv.devs[0].overheated);
	}
	f->drv.devs[0].pf_armed = 0;
}

/*
 * INJECT_FAULT and CLEAR_FAULTS: root or the device's owner, judged by the
 * uid of the request (not the opener's); anyone else -EPERM, nothing done
 */
static void test_debug_permission(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	const struct hpu_fw_profile *p = f->drv.devs[0].profile;
	struct hfd_device *dev = &f->drv.devs[0];
	struct hpu_debug_args inj = { .op = HPU_DEBUG_OP_INJECT_FAULT,
				      .fault = HPU_FAULT_LINK_DOWN },
			      clr = { .op = HPU_DEBUG_OP_CLEAR_FAULTS };
	struct hpu_debug_args d;
	uid_t owner = dev->owner;

	if (!hfd_model_has_nic(&hpusim_model))
		skip();
	inj.engine = p->num_nic_ports - 1;
	dev->owner = 1234;
	/* a group member who is neither root nor the owner */
	d = inj;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d),
				 65534),
			 -EPERM);
	assert_int_equal(dev->links_injected, 0);
	d = inj;
	d.fault = HPU_FAULT_PAGE_FAULT;
	d.engine = 0;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d),
				 65534),
			 -EPERM);
	assert_int_equal(dev->pf_armed, 0);
	d = inj;
	d.fault = HPU_FAULT_THERMAL;
	d.engine = 0;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d),
				 65534),
			 -EPERM);
	assert_false(dev->overheated);
	/* the owner */
	d = inj;
	assert_int_equal(
		run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d), 1234), 0);
	assert_int_equal(dev->links_injected, 1ULL << inj.engine);
	d = clr;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d),
				 65534),
			 -EPERM);
	assert_int_equal(dev->links_injected, 1ULL << inj.engine);
	/* root */
	d = clr;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d), 0),
			 0);
	assert_int_equal(dev->links_injected, 0);
	d = inj;
	assert_int_equal(run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d), 0),
			 0);
	d = clr;
	assert_int_equal(
		run_uid(f->compute, HPU_IOCTL_DEBUG, &d, sizeof(d), 1234), 0);
	dev->owner = owner;
}

/* The model's NIC events reach the context they name, or every context */
static void test_nic_events(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_fw_nic_event ev = { .type = HPU_EVENT_NIC_ACCESS_ERR,
				       .port = 4,
				       .key = 77,
				       .offset = 4096,
				       .size = 8 };
	struct hpu_event out[4];
	uint64_t mask, pending;

	/* drain what earlier tests left */
	while (hfd_ctx_read_events(f->compute, out, 4) > 0)
		;
	while (hfd_ctx_read_events(f->control, out, 4) > 0)
		;
	hfd_ctx_take_events(f->compute, &mask, &pending);
	hfd_ctx_take_events(f->control, &mask, &pending);

	hfd_nic_event_cb(&f->drv.devs[0], f->compute, &ev);
	assert_int_equal(hfd_ctx_read_events(f->control, out, 4), 0);
	assert_int_equal(hfd_ctx_read_events(f->compute, out, 4), 1);
	assert_int_equal(out[0].type, HPU_EVENT_NIC_ACCESS_ERR);
	assert_int_equal(out[0].addr, 4096);
	assert_int_equal(out[0].data, 77);
	assert_int_equal(out[0].engine, 4);
	assert_int_equal(out[0].seq, 0);
	hfd_ctx_take_events(f->compute, &mask, &pending);
	assert_int_equal(mask, 1ULL << HPU_EVENT_NIC_ACCESS_ERR);

	ev.type = HPU_EVENT_LINK_DOWN;
	ev.port = 9;
	ev.key = 0;
	ev.offset = 0;
	ev.size = 0;
	hfd_nic_event_cb(&f->drv.devs[0], NULL, &ev);
	assert_int_equal(hfd_ctx_read_events(f->compute, out, 4), 1);
	assert_int_equal(out[0].type, HPU_EVENT_LINK_DOWN);
	assert_int_equal(out[0].addr, 9);
	assert_int_equal(out[0].engine, 9);
	assert_int_equal(hfd_ctx_read_events(f->control, out, 4), 1);
	assert_int_equal(out[0].type, HPU_EVENT_LINK_DOWN);
	hfd_ctx_take_events(f->control, &mask, &pending);
	assert_int_equal(mask, 1ULL << HPU_EVENT_LINK_DOWN);

	/* any other type is not an event of the NICs: dropped */
	ev.type = HPU_EVENT_PAGE_FAULT;
	hfd_nic_event_cb(&f->drv.devs[0], NULL, &ev);
	assert_int_equal(hfd_ctx_read_events(f->compute, out, 4), 0);
}

static void test_event_queue(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_event ev[HFD_CTX_MAX_EVENTS];
	uint64_t mask, pending;
	unsigned int i;

	assert_int_equal(hfd_ctx_queue_event(f->compute, HPU_EVENT_MAX, 0, 0, 0,
					     0),
			 -EINVAL);
	assert_int_equal(hfd_ctx_read_events(f->compute, ev, 4), 0);
	for (i = 0; i < HFD_CTX_MAX_EVENTS + 2; i++)
		assert_int_equal(hfd_ctx_queue_event(f->compute,
						     HPU_EVENT_CS_TIMEOUT, ~0U,
						     i + 1, 0, 0),
				 0);
	assert_int_equal(hfd_ctx_queue_event(f->compute, HPU_EVENT_LINK_DOWN,
					     ~0U, 0, 3, 0),
			 0);
	hfd_ctx_take_events(f->compute, &mask, &pending);
	assert_int_equal(mask, (1ULL << HPU_EVENT_CS_TIMEOUT) |
				       (1ULL << HPU_EVENT_LINK_DOWN));
	assert_int_equal(pending, HFD_CTX_MAX_EVENTS);
	hfd_ctx_take_events(f->compute, &mask, &pending);
	assert_int_equal(mask, 0);

	/* the three oldest were dropped; the rest come out in order */
	assert_int_equal(hfd_ctx_read_events(f->compute, ev, 2), 2);
	assert_int_equal(ev[0].seq, 4);
	assert_int_equal(ev[1].seq, 5);
	assert_int_equal(hfd_ctx_read_events(f->compute, ev,
					     HFD_CTX_MAX_EVENTS),
			 HFD_CTX_MAX_EVENTS - 2);
	assert_int_equal(ev[HFD_CTX_MAX_EVENTS - 3].type, HPU_EVENT_LINK_DOWN);
	assert_int_equal(ev[HFD_CTX_MAX_EVENTS - 3].addr, 3);
	assert_int_equal(hfd_ctx_read_events(f->compute, ev, 4), 0);
}

static void test_open_stats_and_clients(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hpu_info_open_stats st;
	char *text, expect[64];
	size_t len;

	hfd_device_open_stats(&f->drv.devs[0], &st);
	assert_int_equal(st.num_compute_ctx, 1);
	assert_int_equal(st.num_control_ctx, 1);
	assert_int_equal(st.is_compute_ctx_active, 1);
	assert_int_equal(hfd_device_clients_text(&f->drv.devs[0], &text, &len),
			 0);
	snprintf(expect, sizeof(expect), "%d 0 ", (int)getpid());
	assert_int_equal(strncmp(text, expect, strlen(expect)), 0);
	assert_int_equal(text[len - 1], '\n');
	assert_null(memchr(text, '\n', len - 1)); /* control not listed */
	free(text);
}

/*
 * Every command's member table lists each byte of its input struct once,
 * in order (a member added to the uapi without a table entry would never
 * be checked), and its ops have names.
 */
static void test_arg_rules_cover_structs(void **state)
{
	unsigned int cmd, i, end;
	const struct hfd_ioctl_desc *d;
	const struct hfd_arg_rules *r;
	int err;

	(void)state;
	{
		static const struct {
			const struct hfd_arg_rules *rules;
			size_t size;
		} all[] = {
			{ &hfd_info_arg_rules, sizeof(struct hpu_info_args) },
			{ &hfd_cb_arg_rules, sizeof(struct hpu_cb_in) },
			{ &hfd_cs_arg_rules, sizeof(struct hpu_cs_in) },
			{ &hfd_wait_cs_arg_rules,
			  sizeof(struct hpu_wait_cs_in) },
			{ &hfd_mem_arg_rules, sizeof(struct hpu_mem_in) },
			{ &hfd_nic_arg_rules, sizeof(struct hpu_nic_in) },
			{ &hfd_debug_arg_rules, sizeof(struct hpu_debug_args) },
			{ &hfd_ring_arg_rules, sizeof(struct hpu_ring_in) },
			{ &hfd_trace_arg_rules, sizeof(struct hpu_trace_in) },
		};

		for (cmd = 0; cmd < sizeof(all) / sizeof(all[0]); cmd++) {
			r = all[cmd].rules;
			assert_true(r->nmembers <= 32);
			for (i = 0, end = 0; i < r->nmembers; i++) {
				assert_int_equal(r->members[i].off, end);
				end += r->members[i].size;
			}
			assert_int_equal(end, all[cmd].size);
			for (i = 0; i < r->nvariants; i++)
				assert_non_null(r->variants[i].name);
		}
	}
	/* the dispatch table points at them */
	d = hfd_ioctl_lookup(HPU_IOCTL_MEMORY, &err);
	assert_non_null(d);
	assert_ptr_equal(d->args, &hfd_mem_arg_rules);
}

/* --limit NAME=N parsing and the values in force */
static void test_limit_parse(void **state)
{
	(void)state;
	assert_int_equal(hfd_limit(HPU_CTX_LIMIT_CBS),
			 hfd_limit_descs[HPU_CTX_LIMIT_CBS].def);
	assert_int_equal(hfd_limit_parse("cbs=12"), 0);
	assert_int_equal(hfd_limit(HPU_CTX_LIMIT_CBS), 12);
	assert_int_equal(hfd_limit_parse("cbs=0"), -ERANGE);
	assert_int_equal(hfd_limit_parse("cbs="), -EINVAL);
	assert_int_equal(hfd_limit_parse("cbs=+3"), -EINVAL);
	assert_int_equal(hfd_limit_parse("cbs=3k"), -EINVAL);
	assert_int_equal(hfd_limit_parse("cbsx=3"), -ENOENT);
	assert_int_equal(hfd_limit_parse("cb=3"), -ENOENT);
	assert_int_equal(hfd_limit_parse("cbs"), -EINVAL);
	assert_int_equal(hfd_limit_parse("nic_mrs=257"), -ERANGE);
	assert_int_equal(hfd_limit_parse("pinned_bytes=99999999999999999999"),
			 -ERANGE);
	assert_int_equal(hfd_limit(HPU_CTX_LIMIT_CBS), 12);
	hfd_limits_reset();
	assert_int_equal(hfd_limit(HPU_CTX_LIMIT_CBS),
			 hfd_limit_descs[HPU_CTX_LIMIT_CBS].def);
	assert_int_equal(hfd_limit(HPU_CTX_LIMIT_NUM), 0);
}

/*
 * MAP_SHM mappings are bounded daemon-wide too (-ENOMEM), and a context's
 * teardown gives its share back.
 */
static void test_daemon_shm_maps_bound(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	uint64_t cap = hfd_limit_daemon_shm_maps(0);
	uint64_t base = hfd_limit_daemon_shm_used();

	assert_true(cap >= 1024);
	hfd_limit_daemon_shm_maps(base + 2);
	assert_int_equal(hfd_ctx_charge(f->compute, HPU_CTX_LIMIT_SHM_MAPS, 1),
			 0);
	assert_int_equal(hfd_ctx_charge(f->control, HPU_CTX_LIMIT_SHM_MAPS, 1),
			 0);
	/* the daemon's bound, whichever context asks */
	assert_int_equal(hfd_ctx_charge(f->compute, HPU_CTX_LIMIT_SHM_MAPS, 1),
			 -ENOMEM);
	assert_int_equal(hfd_limit_daemon_shm_used(), base + 2);
	hfd_ctx_uncharge(f->control, HPU_CTX_LIMIT_SHM_MAPS, 1);
	assert_int_equal(hfd_limit_daemon_shm_used(), base + 1);
	/* a context's own limit refused: the daemon's share is given back */
	assert_int_equal(hfd_limit_parse("shm_maps=1"), 0);
	assert_int_equal(hfd_ctx_charge(f->compute, HPU_CTX_LIMIT_SHM_MAPS, 1),
			 -EMFILE);
	assert_int_equal(hfd_limit_daemon_shm_used(), base + 1);
	hfd_limits_reset();
	/* what a torn-down context held goes back */
	hfd_ctx_limits_release(f->compute);
	assert_int_equal(hfd_limit_daemon_shm_used(), base);
	assert_int_equal(f->compute->lim_used[HPU_CTX_LIMIT_SHM_MAPS], 0);
	hfd_limit_daemon_shm_maps(cap);
}

static void swallow(const char *msg)
{
}

/*
 * The daemon's lock assertions hold in every test above (no WARN fired),
 * and they are wired: hfd_cs_lookup_locked() (the CS state's lock held)
 * WARNs when called without it, and only then.
 */
static void test_lock_asserts(void **state)
{
	struct hpu_test_hfd_fixture *f = *state;
	struct hfd_cs_state *st = f->compute->cs;
	unsigned long hits = hpu_warn_count();
	uint32_t status;
	uint64_t ts;
	bool tsv;

	assert_int_equal(hits, 0);
	assert_non_null(st);
	pthread_mutex_lock(&st->lock);
	hfd_cs_lookup_locked(st, 1, &status, &ts, &tsv);
	pthread_mutex_unlock(&st->lock);
	assert_int_equal(hpu_warn_count(), hits);
#ifndef NDEBUG
	hpu_warn_set_sink(swallow);
	hfd_cs_lookup_locked(st, 1, &status, &ts, &tsv);
	hpu_warn_set_sink(NULL);
	assert_int_equal(hpu_warn_count(), hits + 1);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arg_rules_cover_structs),
		cmocka_unit_test(test_limit_parse),
		cmocka_unit_test(test_daemon_shm_maps_bound),
		cmocka_unit_test(test_lookup_valid),
		cmocka_unit_test(test_lookup_wrong_type),
		cmocka_unit_test(test_lookup_nr_out_of_range),
		cmocka_unit_test(test_lookup_wrong_direction),
		cmocka_unit_test(test_lookup_wrong_size),
		cmocka_unit_test(test_check_flags),
		cmocka_unit_test(test_check_zero),
		cmocka_unit_test(test_dispatch_short_input),
		cmocka_unit_test(test_control_only_info),
		cmocka_unit_test(test_info_snprintf),
		cmocka_unit_test(test_info_rejects),
		cmocka_unit_test(test_cb_validation),
		cmocka_unit_test(test_cs_validation),
		cmocka_unit_test(test_wait_cs_validation),
		cmocka_unit_test(test_memory_debug_validation),
		cmocka_unit_test(test_nic_validation),
		cmocka_unit_test(test_debug_link_validation),
		cmocka_unit_test(test_debug_permission),
		cmocka_unit_test(test_nic_events),
		cmocka_unit_test(test_event_queue),
		cmocka_unit_test(test_open_stats_and_clients),
		cmocka_unit_test(test_lock_asserts),
	};

	return cmocka_run_group_tests(tests, setup, hpu_test_hfd_teardown);
}
