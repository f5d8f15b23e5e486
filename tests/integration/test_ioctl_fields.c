// SPDX-License-Identifier: MIT
/*
 * test_ioctl_fields.c - against the real hpu-fused:
 *  - every op of every command, with each input member the op does not
 *    use set non-zero (low byte and high byte), on an otherwise valid
 *    call: -EINVAL, and nothing changed (no handle given out, no CS, no
 *    object gone, the context's use unchanged);
 *  - the argument struct in read-only memory: every op with an effect
 *    answers -EFAULT and did nothing (no leaked handle, no CS queued,
 *    GET_EVENTS bits still pending).
 * The member lists below are written from docs/abi.md ("Members an op
 * uses"), not taken from the daemon.
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
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/hpu_test_daemon.h"
#include "../lib/hpu_test_util.h"
#include "hpu_accel.h"
#include "hpu_packets.h"
#include "hpu_ring.h"

#define WAIT_US	 20000000ULL
#define SHM_LEN	 8192
/* the rings here: 16 slots, 16 records */
#define RING_LEN HPU_RING_SIZE(16, 16)

static int info(int fd, uint32_t op, void *out, uint32_t size)
{
	struct hpu_info_args a = { .return_pointer = (uintptr_t)out,
				   .return_size = size,
				   .op = op };

	return hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a);
}

static uint64_t caps(int fd)
{
	struct hpu_info_driver_version v;

	assert_int_equal(info(fd, HPU_INFO_DRIVER_VERSION, &v, sizeof(v)), 0);
	return v.capabilities;
}

/* ------------------------------------------------ what a context holds */

/**
 * struct snap - what the calling context holds, to compare around a call
 * @next_handle: the handle the next ALLOC gets (probed: ALLOC + FREE,
 *	so two snapshots differ by exactly one when nothing was created)
 * @submitted: CSs accepted from the context
 * @dram: HBM the context holds
 * @lim: HPU_INFO_CTX_LIMITS (when the driver has it)
 */
struct snap {
	uint64_t next_handle;
	uint64_t submitted;
	uint64_t dram;
	struct hpu_info_ctx_limits lim;
};

static void take_snap(int fd, struct snap *s)
{
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = 4096 } };
	struct hpu_info_cs_counters cs;
	struct hpu_info_dram_usage du;

	memset(s, 0, sizeof(*s));
	assert_int_equal(info(fd, HPU_INFO_CS_COUNTERS, &cs, sizeof(cs)), 0);
	assert_int_equal(info(fd, HPU_INFO_DRAM_USAGE, &du, sizeof(du)), 0);
	s->submitted = cs.ctx_submitted;
	s->dram = du.ctx_dram_mem;
	if (caps(fd) & HPU_CAP_CTX_LIMITS)
		assert_int_equal(info(fd, HPU_INFO_CTX_LIMITS, &s->lim,
				      sizeof(s->lim)),
				 0);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
	s->next_handle = m.out.handle;
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = s->next_handle;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
}

/* Nothing was created, freed, mapped or submitted between @a and now */
static void assert_unchanged(int fd, const struct snap *a, const char *what)
{
	struct snap b;
	unsigned int i;

	take_snap(fd, &b);
	if (b.next_handle != a->next_handle + 1)
		fail_msg("%s: handles moved from %llu to %llu", what,
			 (unsigned long long)a->next_handle,
			 (unsigned long long)b.next_handle);
	if (b.submitted != a->submitted)
		fail_msg("%s: a CS was accepted", what);
	if (b.dram != a->dram)
		fail_msg("%s: HBM use changed", what);
	/*
	 * Events and CSs in flight move by themselves (a CS is counted until
	 * the daemon finished ending it); new CSs show in @submitted.
	 */
	for (i = 0; i < HPU_CTX_LIMIT_SLOTS; i++)
		if (i != HPU_CTX_LIMIT_EVENTS &&
		    i != HPU_CTX_LIMIT_CS_IN_FLIGHT &&
		    b.lim.limits[i].used != a->lim.limits[i].used)
			fail_msg("%s: use of limit %u changed", what, i);
}

/* ------------------------------------------------------ members of args */

struct member {
	const char *name;
	size_t off;
	size_t size;
};

#define MB(type, m)                                           \
	{                                                     \
#m, offsetof(type, m), sizeof(((type *)0)->m) \
	}

static const struct member info_m[] = {
	MB(struct hpu_info_args, return_pointer),
	MB(struct hpu_info_args, return_size),
	MB(struct hpu_info_args, op),
	MB(struct hpu_info_args, flags),
	MB(struct hpu_info_args, period_ms),
	MB(struct hpu_info_args, full_size),
	MB(struct hpu_info_args, pad),
	{ NULL, 0, 0 },
};

static const struct member cb_m[] = {
	MB(struct hpu_cb_in, host_ptr),
	MB(struct hpu_cb_in, cb_handle),
	MB(struct hpu_cb_in, cb_size),
	MB(struct hpu_cb_in, op),
	MB(struct hpu_cb_in, flags),
	MB(struct hpu_cb_in, pad),
	{ NULL, 0, 0 },
};

static const struct member cs_m[] = {
	MB(struct hpu_cs_in, chunks_execute),
	MB(struct hpu_cs_in, num_chunks_execute),
	MB(struct hpu_cs_in, timeout_ms),
	MB(struct hpu_cs_in, cs_flags),
	MB(struct hpu_cs_in, pad),
	MB(struct hpu_cs_in, reserved),
	{ NULL, 0, 0 },
};

static const struct member wait_m[] = {
	MB(struct hpu_wait_cs_in, seq),
	MB(struct hpu_wait_cs_in, timeout_us),
	MB(struct hpu_wait_cs_in, flags),
	MB(struct hpu_wait_cs_in, seq_arr_len),
	MB(struct hpu_wait_cs_in, reserved),
	{ NULL, 0, 0 },
};

static const struct member mem_m[] = {
	MB(struct hpu_mem_in, size),
	MB(struct hpu_mem_in, page_size),
	MB(struct hpu_mem_in, handle),
	MB(struct hpu_mem_in, host_virt_addr),
	MB(struct hpu_mem_in, device_virt_addr),
	MB(struct hpu_mem_in, op),
	MB(struct hpu_mem_in, flags),
	MB(struct hpu_mem_in, reserved),
	{ NULL, 0, 0 },
};

static const struct member nic_m[] = {
	MB(struct hpu_nic_in, addr),
	MB(struct hpu_nic_in, size),
	MB(struct hpu_nic_in, op),
	MB(struct hpu_nic_in, flags),
	MB(struct hpu_nic_in, handle),
	MB(struct hpu_nic_in, port),
	MB(struct hpu_nic_in, remote_ipv4),
	MB(struct hpu_nic_in, remote_device),
	MB(struct hpu_nic_in, remote_port),
	MB(struct hpu_nic_in, pad0),
	MB(struct hpu_nic_in, pad1),
	MB(struct hpu_nic_in, token),
	{ NULL, 0, 0 },
};

static const struct member debug_m[] = {
	MB(struct hpu_debug_args, input_ptr),
	MB(struct hpu_debug_args, output_ptr),
	MB(struct hpu_debug_args, input_size),
	MB(struct hpu_debug_args, output_size),
	MB(struct hpu_debug_args, op),
	MB(struct hpu_debug_args, flags),
	MB(struct hpu_debug_args, fault),
	MB(struct hpu_debug_args, engine),
	MB(struct hpu_debug_args, param),
	MB(struct hpu_debug_args, reserved),
	{ NULL, 0, 0 },
};

static const struct member ring_m[] = {
	MB(struct hpu_ring_in, offset),
	MB(struct hpu_ring_in, size),
	MB(struct hpu_ring_in, fd),
	MB(struct hpu_ring_in, op),
	MB(struct hpu_ring_in, sq_slots),
	MB(struct hpu_ring_in, cq_entries),
	MB(struct hpu_ring_in, flags),
	MB(struct hpu_ring_in, pad),
	{ NULL, 0, 0 },
};

/* ------------------------------------------- valid calls of every op */

/**
 * struct objs - what the valid calls refer to, made by make_objs()
 * @fd: the compute file
 * @alloc: an allocation handle
 * @alloc_va: device VA of a mapping of it
 * @cb: a CB handle
 * @cb_buf: its memory (a NOP)
 * @chunk: a valid chunk running @cb
 * @seq: a completed CS
 * @seqs: MULTI_CS array ({ @seq })
 * @host: host memory to map
 * @host_va: device VA of a USERPTR mapping of @host
 * @shm_fd: sealed memfd for MAP_SHM
 * @ring_fd: sealed memfd for RING REGISTER; a ring of another one is
 *	registered (so REGISTER is -EBUSY, UNREGISTER would succeed)
 * @nic: the model has NICs (HPU_CAP_NIC)
 * @mr_key: a NIC registration of @alloc_va
 * @conn: a NIC connection to device @peer
 * @conn_port: the local port of @conn
 * @peer: the device @conn goes to
 */
struct objs {
	int fd;
	uint64_t alloc;
	uint64_t alloc_va;
	uint64_t cb;
	uint64_t cb_buf[8];
	struct hpu_cs_chunk chunk;
	uint64_t seq;
	uint64_t seqs[1];
	uint8_t host[4096];
	uint64_t host_va;
	int shm_fd;
	int ring_fd;
	bool nic;
	uint32_t mr_key;
	uint32_t conn;
	uint32_t conn_port;
	uint32_t peer;
};

static struct objs O;

/* A memfd of @len bytes sealed against shrinking */
static int sealed_memfd(size_t len)
{
	int m = memfd_create("fields", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(m >= 0);
	assert_int_equal(ftruncate(m, (off_t)len), 0);
	assert_int_equal(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return m;
}

static void make_objs(int fd, unsigned int peer)
{
	union hpu_ring_args r = { 0 };
	struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
					    .size = sizeof(nop) } };
	union hpu_mem_args m = { .in = { .op = HPU_MEM_OP_ALLOC,
					 .size = 1 << 20 } };
	union hpu_cb_args c = { .in = { .op = HPU_CB_OP_CREATE } };
	union hpu_cs_args s = { .in = { .num_chunks_execute = 1 } };
	union hpu_wait_cs_args w = { .in = { .timeout_us = WAIT_US } };
	union hpu_nic_args n;
	struct hpu_info_nic ni;
	unsigned int p;

	memset(&O, 0, sizeof(O));
	O.fd = fd;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
	O.alloc = m.out.handle;
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_MAP;
	m.in.handle = O.alloc;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
	O.alloc_va = m.out.device_virt_addr;
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_MAP;
	m.in.flags = HPU_MEM_USERPTR;
	m.in.host_virt_addr = (uintptr_t)O.host;
	m.in.size = sizeof(O.host);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_MEMORY, &m), 0);
	O.host_va = m.out.device_virt_addr;

	memcpy(O.cb_buf, &nop, sizeof(nop));
	c.in.host_ptr = (uintptr_t)O.cb_buf;
	c.in.cb_size = sizeof(O.cb_buf);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &c), 0);
	O.cb = c.out.cb_handle;
	O.chunk.cb_handle = O.cb;
	O.chunk.cb_size = sizeof(nop);
	s.in.chunks_execute = (uintptr_t)&O.chunk;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CS, &s), 0);
	O.seq = s.out.seq;
	O.seqs[0] = O.seq;
	w.in.seq = O.seq;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_WAIT_CS, &w), 0);
	assert_int_equal(w.out.status, HPU_WAIT_CS_STATUS_COMPLETED);

	O.shm_fd = memfd_create("fields", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(O.shm_fd >= 0);
	assert_int_equal(ftruncate(O.shm_fd, SHM_LEN), 0);
	assert_int_equal(fcntl(O.shm_fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);

	O.ring_fd = sealed_memfd(RING_LEN);
	r.in.op = HPU_RING_OP_REGISTER;
	r.in.fd = (uint32_t)sealed_memfd(RING_LEN);
	r.in.size = RING_LEN;
	r.in.sq_slots = 16;
	r.in.cq_entries = 16;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_RING, &r), 0);
	close((int)r.in.fd);

	O.nic = caps(fd) & HPU_CAP_NIC;
	if (!O.nic)
		return;
	memset(&n, 0, sizeof(n));
	n.in.op = HPU_NIC_OP_REG_MR;
	n.in.flags = HPU_NIC_MR_REMOTE_WRITE;
	n.in.addr = O.alloc_va;
	n.in.size = 4096;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_NIC, &n), 0);
	O.mr_key = n.out.handle;
	assert_int_equal(info(fd, HPU_INFO_NIC, &ni, sizeof(ni)), 0);
	for (p = 0; p < ni.num_ports && ni.port_peer[p] != peer; p++)
		;
	assert_true(p < ni.num_ports);
	O.conn_port = p;
	memset(&n, 0, sizeof(n));
	n.in.op = HPU_NIC_OP_CONNECT;
	n.in.port = p;
	n.in.remote_device = peer;
	O.peer = peer;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_NIC, &n), 0);
	O.conn = n.out.handle;
}

/* Everything make_objs() made still exists: remove it, each must work */
static void free_objs(void)
{
	union hpu_ring_args r;
	union hpu_mem_args m;
	union hpu_cb_args c = { .in = { .op = HPU_CB_OP_DESTROY,
					.cb_handle = O.cb } };
	union hpu_nic_args n;

	if (O.nic) {
		memset(&n, 0, sizeof(n));
		n.in.op = HPU_NIC_OP_DISCONNECT;
		n.in.handle = O.conn;
		assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_NIC, &n), 0);
		memset(&n, 0, sizeof(n));
		n.in.op = HPU_NIC_OP_DEREG_MR;
		n.in.handle = O.mr_key;
		assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_NIC, &n), 0);
	}
	assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_CB, &c), 0);
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_UNMAP;
	m.in.device_virt_addr = O.host_va;
	assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_MEMORY, &m), 0);
	memset(&m, 0, sizeof(m)); /* the answer overwrote the input */
	m.in.op = HPU_MEM_OP_UNMAP;
	m.in.device_virt_addr = O.alloc_va;
	assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_MEMORY, &m), 0);
	memset(&m, 0, sizeof(m));
	m.in.op = HPU_MEM_OP_FREE;
	m.in.handle = O.alloc;
	assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_MEMORY, &m), 0);
	memset(&r, 0, sizeof(r));
	r.in.op = HPU_RING_OP_UNREGISTER;
	assert_int_equal(hpu_test_ioctl(O.fd, HPU_IOCTL_RING, &r), 0);
	close(O.ring_fd);
	close(O.shm_fd);
}

/**
 * struct op_case - one op and the members it must leave 0
 * @name: command and op
 * @cmd: ioctl
 * @members: every member of the command's input struct
 * @build: writes a valid argument of the op
 * @unused: names of the members the op does not use
 */
struct op_case {
	const char *name;
	unsigned long cmd;
	const struct member *members;
	void (*build)(void *arg);
	const char *unused[12];
};

/* NIC and DEBUG need a NIC model */
static bool needs_nic(unsigned long cmd)
{
	return cmd == HPU_IOCTL_NIC || cmd == HPU_IOCTL_DEBUG;
}

static uint8_t info_buf[256];

static void b_info(void *p)
{
	struct hpu_info_args *a = p;

	a->return_pointer = (uintptr_t)info_buf;
	a->return_size = sizeof(info_buf);
	a->op = HPU_INFO_HW_IP_INFO;
}

static void b_info_util(void *p)
{
	struct hpu_info_args *a = p;

	b_info(p);
	a->op = HPU_INFO_DEVICE_UTILIZATION;
	a->period_ms = 100;
}

static void b_info_events(void *p)
{
	struct hpu_info_args *a = p;

	b_info(p);
	a->op = HPU_INFO_GET_EVENTS;
}

static void b_cb_create(void *p)
{
	struct hpu_cb_in *in = p;

	in->op = HPU_CB_OP_CREATE;
	in->host_ptr = (uintptr_t)O.cb_buf;
	in->cb_size = sizeof(O.cb_buf);
}

static void b_cb_destroy(void *p)
{
	struct hpu_cb_in *in = p;

	in->op = HPU_CB_OP_DESTROY;
	in->cb_handle = O.cb;
}

static void b_cb_info(void *p)
{
	struct hpu_cb_in *in = p;

	in->op = HPU_CB_OP_INFO;
	in->cb_handle = O.cb;
}

static void b_cs(void *p)
{
	struct hpu_cs_in *in = p;

	in->chunks_execute = (uintptr_t)&O.chunk;
	in->num_chunks_execute = 1;
}

static void b_wait(void *p)
{
	struct hpu_wait_cs_in *in = p;

	in->seq = O.seq;
	in->timeout_us = WAIT_US;
}

static void b_wait_multi(void *p)
{
	struct hpu_wait_cs_in *in = p;

	in->seq = (uintptr_t)O.seqs;
	in->timeout_us = WAIT_US;
	in->flags = HPU_WAIT_CS_FLAGS_MULTI_CS;
	in->seq_arr_len = 1;
}

static void b_alloc(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_ALLOC;
	in->size = 4096;
}

static void b_free(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_FREE;
	in->handle = O.alloc;
}

static void b_map(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_MAP;
	in->handle = O.alloc;
}

static void b_map_userptr(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_MAP;
	in->flags = HPU_MEM_USERPTR;
	in->host_virt_addr = (uintptr_t)O.host;
	in->size = sizeof(O.host);
}

static void b_unmap(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_UNMAP;
	in->device_virt_addr = O.host_va;
}

static void b_export(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_EXPORT;
	in->handle = O.alloc;
}

static void b_map_shm(void *p)
{
	struct hpu_mem_in *in = p;

	in->op = HPU_MEM_OP_MAP_SHM;
	in->handle = (uint64_t)O.shm_fd;
	in->size = SHM_LEN;
}

static void b_ring_register(void *p)
{
	struct hpu_ring_in *in = p;

	in->op = HPU_RING_OP_REGISTER;
	in->fd = (uint32_t)O.ring_fd;
	in->size = RING_LEN;
	in->sq_slots = 16;
	in->cq_entries = 16;
}

static void b_ring_unregister(void *p)
{
	struct hpu_ring_in *in = p;

	in->op = HPU_RING_OP_UNREGISTER;
}

static void b_reg_mr(void *p)
{
	struct hpu_nic_in *in = p;

	in->op = HPU_NIC_OP_REG_MR;
	in->flags = HPU_NIC_MR_REMOTE_WRITE;
	in->addr = O.alloc_va;
	in->size = 4096;
}

static void b_dereg_mr(void *p)
{
	struct hpu_nic_in *in = p;

	in->op = HPU_NIC_OP_DEREG_MR;
	in->handle = O.mr_key;
}

static void b_connect(void *p)
{
	struct hpu_nic_in *in = p;

	in->op = HPU_NIC_OP_CONNECT;
	in->port = O.conn_port;
	in->remote_device = O.peer;
}

static void b_disconnect(void *p)
{
	struct hpu_nic_in *in = p;

	in->op = HPU_NIC_OP_DISCONNECT;
	in->handle = O.conn;
}

static void b_inject(void *p)
{
	struct hpu_debug_args *a = p;

	a->op = HPU_DEBUG_OP_INJECT_FAULT;
	a->fault = HPU_FAULT_LINK_DOWN;
	a->engine = O.conn_port;
}

static void b_clear(void *p)
{
	struct hpu_debug_args *a = p;

	a->op = HPU_DEBUG_OP_CLEAR_FAULTS;
}

static void b_status(void *p)
{
	struct hpu_debug_args *a = p;

	a->op = HPU_DEBUG_OP_ENGINE_STATUS;
	a->output_ptr = (uintptr_t)info_buf;
	a->output_size = sizeof(info_buf);
}

static void b_reset(void *p)
{
	struct hpu_debug_args *a = p;

	a->op = HPU_DEBUG_OP_RESET;
	a->param = HPU_RESET_COMPUTE;
}

static const struct op_case cases[] = {
	{ "INFO",
	  HPU_IOCTL_INFO,
	  info_m,
	  b_info,
	  { "flags", "period_ms", "pad" } },
	{ "INFO DEVICE_UTILIZATION",
	  HPU_IOCTL_INFO,
	  info_m,
	  b_info_util,
	  { "flags", "pad" } },
	{ "INFO GET_EVENTS",
	  HPU_IOCTL_INFO,
	  info_m,
	  b_info_events,
	  { "flags", "period_ms", "pad" } },
	{ "CB CREATE",
	  HPU_IOCTL_CB,
	  cb_m,
	  b_cb_create,
	  { "cb_handle", "flags", "pad" } },
	{ "CB DESTROY",
	  HPU_IOCTL_CB,
	  cb_m,
	  b_cb_destroy,
	  { "host_ptr", "cb_size", "flags", "pad" } },
	{ "CB INFO",
	  HPU_IOCTL_CB,
	  cb_m,
	  b_cb_info,
	  { "host_ptr", "cb_size", "flags", "pad" } },
	{ "CS", HPU_IOCTL_CS, cs_m, b_cs, { "pad", "reserved" } },
	{ "WAIT_CS",
	  HPU_IOCTL_WAIT_CS,
	  wait_m,
	  b_wait,
	  { "seq_arr_len", "reserved" } },
	{ "WAIT_CS MULTI_CS",
	  HPU_IOCTL_WAIT_CS,
	  wait_m,
	  b_wait_multi,
	  { "reserved" } },
	{ "MEMORY ALLOC",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_alloc,
	  { "handle", "host_virt_addr", "device_virt_addr", "reserved" } },
	{ "MEMORY FREE",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_free,
	  { "size", "page_size", "host_virt_addr", "device_virt_addr", "flags",
	    "reserved" } },
	{ "MEMORY MAP",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_map,
	  { "size", "page_size", "host_virt_addr", "reserved" } },
	{ "MEMORY MAP USERPTR",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_map_userptr,
	  { "page_size", "handle", "reserved" } },
	{ "MEMORY UNMAP",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_unmap,
	  { "size", "page_size", "handle", "host_virt_addr", "flags",
	    "reserved" } },
	{ "MEMORY EXPORT",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_export,
	  { "size", "page_size", "host_virt_addr", "device_virt_addr", "flags",
	    "reserved" } },
	{ "MEMORY MAP_SHM",
	  HPU_IOCTL_MEMORY,
	  mem_m,
	  b_map_shm,
	  { "host_virt_addr", "reserved" } },
	{ "RING REGISTER", HPU_IOCTL_RING, ring_m, b_ring_register, { "pad" } },
	{ "RING UNREGISTER",
	  HPU_IOCTL_RING,
	  ring_m,
	  b_ring_unregister,
	  { "offset", "size", "fd", "sq_slots", "cq_entries", "flags",
	    "pad" } },
	{ "NIC REG_MR",
	  HPU_IOCTL_NIC,
	  nic_m,
	  b_reg_mr,
	  { "handle", "port", "remote_ipv4", "remote_device", "remote_port",
	    "pad0", "pad1", "token" } },
	{ "NIC DEREG_MR",
	  HPU_IOCTL_NIC,
	  nic_m,
	  b_dereg_mr,
	  { "addr", "size", "flags", "port", "remote_ipv4", "remote_device",
	    "remote_port", "pad0", "pad1", "token" } },
	{ "NIC CONNECT",
	  HPU_IOCTL_NIC,
	  nic_m,
	  b_connect,
	  { "addr", "size", "flags", "handle", "pad0", "pad1", "token" } },
	{ "NIC DISCONNECT",
	  HPU_IOCTL_NIC,
	  nic_m,
	  b_disconnect,
	  { "addr", "size", "flags", "port", "remote_ipv4", "remote_device",
	    "remote_port", "pad0", "pad1", "token" } },
	{ "DEBUG INJECT_FAULT",
	  HPU_IOCTL_DEBUG,
	  debug_m,
	  b_inject,
	  { "input_ptr", "output_ptr", "input_size", "output_size", "flags",
	    "reserved" } },
	{ "DEBUG CLEAR_FAULTS",
	  HPU_IOCTL_DEBUG,
	  debug_m,
	  b_clear,
	  { "input_ptr", "output_ptr", "input_size", "output_size", "flags",
	    "fault", "engine", "param", "reserved" } },
	{ "DEBUG ENGINE_STATUS",
	  HPU_IOCTL_DEBUG,
	  debug_m,
	  b_status,
	  { "input_ptr", "input_size", "flags", "fault", "engine", "param",
	    "reserved" } },
	{ "DEBUG RESET",
	  HPU_IOCTL_DEBUG,
	  debug_m,
	  b_reset,
	  { "input_ptr", "output_ptr", "input_size", "output_size", "flags",
	    "fault", "engine", "reserved" } },
};

static const struct member *find_member(const struct member *ms,
					const char *name)
{
	for (; ms->name; ms++)
		if (!strcmp(ms->name, name))
			return ms;
	fail_msg("no member %s", name);
	return NULL;
}

static void test_unused_members(void **state)
{
	static const uint8_t patterns[] = { 0x01, 0x80 };
	uint64_t arg[16];
	const struct member *mb;
	const struct op_case *c;
	unsigned int ops = 0, checks = 0;
	struct snap before;
	size_t i, j, k;
	char what[128];
	int fd = hpu_test_open_dev(0), ret;

	(void)state;
	make_objs(fd, 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		if (needs_nic(c->cmd) && !O.nic)
			continue;
		ops++;
		for (j = 0; j < sizeof(c->unused) / sizeof(c->unused[0]) &&
			    c->unused[j];
		     j++) {
			mb = find_member(c->members, c->unused[j]);
			for (k = 0; k < sizeof(patterns); k++) {
				/* low byte, then high byte of the member */
				memset(arg, 0, sizeof(arg));
				c->build(arg);
				((uint8_t *)arg)[mb->off +
						 (k ? mb->size - 1 : 0)] =
					patterns[k];
				snprintf(what, sizeof(what), "%s with %s %s",
					 c->name, mb->name,
					 k ? "high byte set" : "1");
				take_snap(fd, &before);
				ret = hpu_test_ioctl(fd, c->cmd, arg);
				if (ret != -EINVAL)
					fail_msg("%s: %d (%s), not -EINVAL",
						 what, ret, strerror(-ret));
				assert_unchanged(fd, &before, what);
				checks++;
			}
		}
	}
	/* every object is still there */
	free_objs();
	printf("# %u ops, %u rejected calls checked\n", ops, checks);
	assert_true(ops >= 16);
	close(fd);
}

/* CS chunks: per cs_flags, what a chunk does not use must be 0 too */
static void test_unused_chunk_members(void **state)
{
	static const struct member chunk_m[] = {
		MB(struct hpu_cs_chunk, cb_handle),
		MB(struct hpu_cs_chunk, queue_index),
		MB(struct hpu_cs_chunk, cb_size),
		MB(struct hpu_cs_chunk, flags),
		MB(struct hpu_cs_chunk, pad),
		MB(struct hpu_cs_chunk, reserved),
		{ NULL, 0, 0 },
	};
	static const struct {
		const char *name;
		uint32_t cs_flags;
		const char *unused[6];
	} kinds[] = {
		{ "normal chunk", 0, { "flags", "pad", "reserved" } },
		{ "SIGNAL chunk",
		  HPU_CS_FLAGS_SIGNAL,
		  { "cb_handle", "cb_size", "flags", "pad", "reserved" } },
		{ "WAIT chunk",
		  HPU_CS_FLAGS_WAIT,
		  { "flags", "pad", "reserved" } },
	};
	struct hpu_cs_chunk ch;
	union hpu_cs_args a;
	const struct member *mb;
	struct snap before;
	size_t i, j;
	char what[96];
	int fd = hpu_test_open_dev(0), ret;

	(void)state;
	make_objs(fd, 1);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (j = 0; j < 6 && kinds[i].unused[j]; j++) {
			memset(&ch, 0, sizeof(ch));
			if (kinds[i].cs_flags & HPU_CS_FLAGS_WAIT) {
				ch.cb_handle = (uintptr_t)O.seqs;
				ch.cb_size = 1;
			} else if (!kinds[i].cs_flags) {
				ch = O.chunk;
			}
			mb = find_member(chunk_m, kinds[i].unused[j]);
			((uint8_t *)&ch)[mb->off + mb->size - 1] = 0x40;
			memset(&a, 0, sizeof(a));
			a.in.chunks_execute = (uintptr_t)&ch;
			a.in.num_chunks_execute = 1;
			a.in.cs_flags = kinds[i].cs_flags;
			snprintf(what, sizeof(what), "%s with %s set",
				 kinds[i].name, mb->name);
			take_snap(fd, &before);
			ret = hpu_test_ioctl(fd, HPU_IOCTL_CS, &a);
			if (ret != -EINVAL)
				fail_msg("%s: %d, not -EINVAL", what, ret);
			assert_unchanged(fd, &before, what);
		}
	}
	free_objs();
	close(fd);
}

/* --------------------------------------------------- read-only argument */

/* A copy of @arg in a page the caller can only read */
static void *ro_copy(const void *arg, size_t size)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memcpy(p, arg, size);
	assert_int_equal(mprotect(p, 4096, PROT_READ), 0);
	return p;
}

static void ro_free(void *p)
{
	munmap(p, 4096);
}

/* Every op with an effect: -EFAULT and nothing changed */
static void test_readonly_arg(void **state)
{
	static const struct {
		const char *name;
		unsigned long cmd;
		void (*build)(void *arg);
	} ops[] = {
		{ "MEMORY ALLOC", HPU_IOCTL_MEMORY, b_alloc },
		{ "MEMORY FREE", HPU_IOCTL_MEMORY, b_free },
		{ "MEMORY MAP", HPU_IOCTL_MEMORY, b_map },
		{ "MEMORY MAP USERPTR", HPU_IOCTL_MEMORY, b_map_userptr },
		{ "MEMORY UNMAP", HPU_IOCTL_MEMORY, b_unmap },
		{ "MEMORY MAP_SHM", HPU_IOCTL_MEMORY, b_map_shm },
		{ "CB CREATE", HPU_IOCTL_CB, b_cb_create },
		{ "CB DESTROY", HPU_IOCTL_CB, b_cb_destroy },
		{ "CS", HPU_IOCTL_CS, b_cs },
		{ "RING REGISTER", HPU_IOCTL_RING, b_ring_register },
		{ "RING UNREGISTER", HPU_IOCTL_RING, b_ring_unregister },
		{ "NIC REG_MR", HPU_IOCTL_NIC, b_reg_mr },
		{ "NIC DEREG_MR", HPU_IOCTL_NIC, b_dereg_mr },
		{ "NIC CONNECT", HPU_IOCTL_NIC, b_connect },
		{ "NIC DISCONNECT", HPU_IOCTL_NIC, b_disconnect },
	};
	uint64_t arg[16];
	struct snap before;
	size_t i;
	void *ro;
	int fd = hpu_test_open_dev(0), ret;

	(void)state;
	make_objs(fd, 1);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (needs_nic(ops[i].cmd) && !O.nic)
			continue;
		memset(arg, 0, sizeof(arg));
		ops[i].build(arg);
		ro = ro_copy(arg, sizeof(arg));
		take_snap(fd, &before);
		ret = hpu_test_ioctl(fd, ops[i].cmd, ro);
		if (ret != -EFAULT)
			fail_msg(
				"%s with a read-only argument: %d, not -EFAULT",
				ops[i].name, ret);
		assert_unchanged(fd, &before, ops[i].name);
		ro_free(ro);
	}
	/* FREE, UNMAP, DESTROY, DEREG, DISCONNECT did nothing */
	free_objs();
	close(fd);
}

/* A CS whose DMA reads an unmapped VA: PAGE_FAULT event */
static void raise_page_fault(int fd)
{
	static uint64_t cb[8];
	struct hpu_pkt_lin_dma d = {
		.hdr = { .opcode = HPU_PACKET_LIN_DMA, .size = sizeof(d) },
		.src_addr = 0x100000000000ULL + (1ULL << 40),
		.dst_addr = O.host_va,
		.size = 64
	};
	struct hpu_cs_chunk ch = { .cb_size = sizeof(d) };
	union hpu_cb_args c = { .in = { .op = HPU_CB_OP_CREATE,
					.host_ptr = (uintptr_t)cb,
					.cb_size = sizeof(cb) } };
	union hpu_cs_args s = { .in = { .num_chunks_execute = 1,
					.chunks_execute = (uintptr_t)&ch } };
	union hpu_wait_cs_args w = { .in = { .timeout_us = WAIT_US } };

	memcpy(cb, &d, sizeof(d));
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CB, &c), 0);
	ch.cb_handle = c.out.cb_handle;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_CS, &s), 0);
	w.in.seq = s.out.seq;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_WAIT_CS, &w), 0);
	assert_int_equal(w.out.status, HPU_WAIT_CS_STATUS_ABORTED);
}

/* GET_EVENTS clears only what it delivered */
static void test_get_events_readonly(void **state)
{
	struct hpu_info_args a = { .op = HPU_INFO_GET_EVENTS };
	struct hpu_info_events ev;
	void *ro_ans, *ro_arg;
	int fd = hpu_test_open_dev(1);

	(void)state;
	make_objs(fd, 0);
	raise_page_fault(fd);

	/* the answer buffer read-only */
	memset(&ev, 0, sizeof(ev));
	ro_ans = ro_copy(&ev, sizeof(ev));
	a.return_pointer = (uintptr_t)ro_ans;
	a.return_size = sizeof(ev);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), -EFAULT);
	ro_free(ro_ans);

	/* the argument read-only, the answer writable */
	a.return_pointer = (uintptr_t)&ev;
	ro_arg = ro_copy(&a, sizeof(a));
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, ro_arg), -EFAULT);
	ro_free(ro_arg);

	/* a 4-byte answer does not carry the mask: nothing is cleared */
	a.return_size = 4;
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);

	/* the bit is still pending, and is cleared by a delivered read */
	memset(&ev, 0, sizeof(ev));
	a.return_size = sizeof(ev);
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_true(ev.events_mask & (1ULL << HPU_EVENT_PAGE_FAULT));
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(hpu_test_ioctl(fd, HPU_IOCTL_INFO, &a), 0);
	assert_false(ev.events_mask & (1ULL << HPU_EVENT_PAGE_FAULT));
	close(O.ring_fd);
	close(O.shm_fd);
	close(fd);
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start_cs(2, "gaudi2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_unused_members,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_unused_chunk_members,
				       hpu_test_need_daemon),
		cmocka_unit_test_setup(test_readonly_arg, hpu_test_need_daemon),
		cmocka_unit_test_setup(test_get_events_readonly,
				       hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
