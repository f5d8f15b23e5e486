// SPDX-License-Identifier: MIT
/*
 * ioctl_args.c - which input members each op of each command uses, in
 * one table per command (docs/abi.md, "Members an op uses").
 *
 * The dispatcher checks the argument against its command's table before
 * the handler runs: every input member the op does not use, pad and
 * reserved included, must be 0 (-EINVAL). A handler then only checks the
 * values of the members its op uses. Output-only members that share the
 * struct with inputs (INFO full_size) count as used: their input value
 * is ignored, so a client may reuse an answered struct.
 *
 * The table also says which ops have effects: before those run, the
 * dispatcher makes sure the argument can be written back, so that a
 * call answered -EFAULT changed nothing.
 */
#include <errno.h>
#include <stddef.h>

#include "hpu_fused.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define M(type, member)                                         \
	{                                                       \
		.name = #member, .off = offsetof(type, member), \
		.size = sizeof(((type *)0)->member),            \
	}

#define BIT(n) (1U << (n))

/* ---------------------------------------------------------------- INFO */

enum {
	INFO_RETURN_POINTER,
	INFO_RETURN_SIZE,
	INFO_OP,
	INFO_FLAGS,
	INFO_PERIOD_MS,
	INFO_FULL_SIZE,
	INFO_PAD
};

static const struct hfd_arg_member info_members[] = {
	[INFO_RETURN_POINTER] = M(struct hpu_info_args, return_pointer),
	[INFO_RETURN_SIZE] = M(struct hpu_info_args, return_size),
	[INFO_OP] = M(struct hpu_info_args, op),
	[INFO_FLAGS] = M(struct hpu_info_args, flags),
	[INFO_PERIOD_MS] = M(struct hpu_info_args, period_ms),
	[INFO_FULL_SIZE] = M(struct hpu_info_args, full_size),
	[INFO_PAD] = M(struct hpu_info_args, pad),
};

enum {
	INFO_V_PLAIN,
	INFO_V_PERIOD,
	INFO_V_EVENTS
};

static const struct hfd_arg_variant info_variants[] = {
	[INFO_V_PLAIN] = { .name = "INFO" },
	[INFO_V_PERIOD] = { .name = "INFO DEVICE_UTILIZATION",
			    .used = BIT(INFO_PERIOD_MS) },
	/* reading the events clears them */
	[INFO_V_EVENTS] = { .name = "INFO GET_EVENTS", .effects = true },
};

static int info_variant(const void *arg)
{
	const struct hpu_info_args *a = arg;

	if (a->op == HPU_INFO_DEVICE_UTILIZATION)
		return INFO_V_PERIOD;
	if (a->op == HPU_INFO_GET_EVENTS)
		return INFO_V_EVENTS;
	/* unknown ops are the handler's -EINVAL */
	return INFO_V_PLAIN;
}

const struct hfd_arg_rules hfd_info_arg_rules = {
	.members = info_members,
	.nmembers = ARRAY_SIZE(info_members),
	.always = BIT(INFO_RETURN_POINTER) | BIT(INFO_RETURN_SIZE) |
		  BIT(INFO_OP) | BIT(INFO_FULL_SIZE),
	.variant = info_variant,
	.variants = info_variants,
	.nvariants = ARRAY_SIZE(info_variants),
};

/* ------------------------------------------------------------------ CB */

enum {
	CB_HOST_PTR,
	CB_HANDLE,
	CB_SIZE,
	CB_OP,
	CB_FLAGS,
	CB_PAD
};

static const struct hfd_arg_member cb_members[] = {
	[CB_HOST_PTR] = M(struct hpu_cb_in, host_ptr),
	[CB_HANDLE] = M(struct hpu_cb_in, cb_handle),
	[CB_SIZE] = M(struct hpu_cb_in, cb_size),
	[CB_OP] = M(struct hpu_cb_in, op),
	[CB_FLAGS] = M(struct hpu_cb_in, flags),
	[CB_PAD] = M(struct hpu_cb_in, pad),
};

static const struct hfd_arg_variant cb_variants[] = {
	[HPU_CB_OP_CREATE] = { .name = "CB CREATE",
			       .used = BIT(CB_HOST_PTR) | BIT(CB_SIZE),
			       .effects = true },
	[HPU_CB_OP_DESTROY] = { .name = "CB DESTROY",
				.used = BIT(CB_HANDLE),
				.effects = true },
	[HPU_CB_OP_INFO] = { .name = "CB INFO", .used = BIT(CB_HANDLE) },
};

static int cb_variant(const void *arg)
{
	const struct hpu_cb_in *in = arg;

	return in->op < ARRAY_SIZE(cb_variants) ? (int)in->op : -EINVAL;
}

const struct hfd_arg_rules hfd_cb_arg_rules = {
	.members = cb_members,
	.nmembers = ARRAY_SIZE(cb_members),
	.always = BIT(CB_OP),
	.variant = cb_variant,
	.variants = cb_variants,
	.nvariants = ARRAY_SIZE(cb_variants),
};

/* ------------------------------------------------------------------ CS */

enum {
	CS_CHUNKS,
	CS_NUM_CHUNKS,
	CS_TIMEOUT,
	CS_FLAGS,
	CS_PAD,
	CS_RESERVED
};

static const struct hfd_arg_member cs_members[] = {
	[CS_CHUNKS] = M(struct hpu_cs_in, chunks_execute),
	[CS_NUM_CHUNKS] = M(struct hpu_cs_in, num_chunks_execute),
	[CS_TIMEOUT] = M(struct hpu_cs_in, timeout_ms),
	[CS_FLAGS] = M(struct hpu_cs_in, cs_flags),
	[CS_PAD] = M(struct hpu_cs_in, pad),
	[CS_RESERVED] = M(struct hpu_cs_in, reserved),
};

static const struct hfd_arg_variant cs_variants[] = {
	{ .name = "CS",
	  .used = BIT(CS_CHUNKS) | BIT(CS_NUM_CHUNKS) | BIT(CS_TIMEOUT) |
		  BIT(CS_FLAGS),
	  .effects = true },
};

const struct hfd_arg_rules hfd_cs_arg_rules = {
	.members = cs_members,
	.nmembers = ARRAY_SIZE(cs_members),
	.variants = cs_variants,
	.nvariants = ARRAY_SIZE(cs_variants),
};

/* ------------------------------------------------------------- WAIT_CS */

enum {
	WAIT_SEQ,
	WAIT_TIMEOUT,
	WAIT_FLAGS,
	WAIT_ARR_LEN,
	WAIT_RESERVED
};

static const struct hfd_arg_member wait_members[] = {
	[WAIT_SEQ] = M(struct hpu_wait_cs_in, seq),
	[WAIT_TIMEOUT] = M(struct hpu_wait_cs_in, timeout_us),
	[WAIT_FLAGS] = M(struct hpu_wait_cs_in, flags),
	[WAIT_ARR_LEN] = M(struct hpu_wait_cs_in, seq_arr_len),
	[WAIT_RESERVED] = M(struct hpu_wait_cs_in, reserved),
};

/* a wait clears the file's POLLPRI: an effect */
static const struct hfd_arg_variant wait_variants[] = {
	{ .name = "WAIT_CS", .effects = true },
	{ .name = "WAIT_CS MULTI_CS",
	  .used = BIT(WAIT_ARR_LEN),
	  .effects = true },
};

static int wait_variant(const void *arg)
{
	const struct hpu_wait_cs_in *in = arg;

	return (in->flags & HPU_WAIT_CS_FLAGS_MULTI_CS) ? 1 : 0;
}

const struct hfd_arg_rules hfd_wait_cs_arg_rules = {
	.members = wait_members,
	.nmembers = ARRAY_SIZE(wait_members),
	.always = BIT(WAIT_SEQ) | BIT(WAIT_TIMEOUT) | BIT(WAIT_FLAGS),
	.variant = wait_variant,
	.variants = wait_variants,
	.nvariants = ARRAY_SIZE(wait_variants),
};

/* -------------------------------------------------------------- MEMORY */

enum {
	MEM_SIZE,
	MEM_PAGE_SIZE,
	MEM_HANDLE,
	MEM_HOST_VA,
	MEM_DEVICE_VA,
	MEM_OP,
	MEM_FLAGS,
	MEM_RESERVED
};

static const struct hfd_arg_member mem_members[] = {
	[MEM_SIZE] = M(struct hpu_mem_in, size),
	[MEM_PAGE_SIZE] = M(struct hpu_mem_in, page_size),
	[MEM_HANDLE] = M(struct hpu_mem_in, handle),
	[MEM_HOST_VA] = M(struct hpu_mem_in, host_virt_addr),
	[MEM_DEVICE_VA] = M(struct hpu_mem_in, device_virt_addr),
	[MEM_OP] = M(struct hpu_mem_in, op),
	[MEM_FLAGS] = M(struct hpu_mem_in, flags),
	[MEM_RESERVED] = M(struct hpu_mem_in, reserved),
};

/* MAP of host memory (HPU_MEM_USERPTR) is a variant of its own */
#define MEM_V_MAP_USERPTR (HPU_MEM_OP_MAP_SHM + 1)

static const struct hfd_arg_variant mem_variants[] = {
	[HPU_MEM_OP_ALLOC] = { .name = "MEMORY ALLOC",
			       .used = BIT(MEM_SIZE) | BIT(MEM_PAGE_SIZE) |
				       BIT(MEM_FLAGS),
			       .effects = true },
	[HPU_MEM_OP_FREE] = { .name = "MEMORY FREE",
			      .used = BIT(MEM_HANDLE),
			      .effects = true },
	[HPU_MEM_OP_MAP] = { .name = "MEMORY MAP",
			     .used = BIT(MEM_HANDLE) | BIT(MEM_DEVICE_VA) |
				     BIT(MEM_FLAGS),
			     .effects = true },
	[HPU_MEM_OP_UNMAP] = { .name = "MEMORY UNMAP",
			       .used = BIT(MEM_DEVICE_VA),
			       .effects = true },
	[HPU_MEM_OP_EXPORT] = { .name = "MEMORY EXPORT",
				.used = BIT(MEM_HANDLE),
				.effects = true },
	[HPU_MEM_OP_MAP_SHM] = { .name = "MEMORY MAP_SHM",
				 .used = BIT(MEM_SIZE) | BIT(MEM_PAGE_SIZE) |
					 BIT(MEM_HANDLE) | BIT(MEM_DEVICE_VA) |
					 BIT(MEM_FLAGS),
				 .effects = true },
	[MEM_V_MAP_USERPTR] = { .name = "MEMORY MAP USERPTR",
				.used = BIT(MEM_SIZE) | BIT(MEM_HOST_VA) |
					BIT(MEM_DEVICE_VA) | BIT(MEM_FLAGS),
				.effects = true },
};

static int mem_variant(const void *arg)
{
	const struct hpu_mem_in *in = arg;

	if (in->op > HPU_MEM_OP_MAP_SHM)
		return -EINVAL;
	if (in->op == HPU_MEM_OP_MAP && (in->flags & HPU_MEM_USERPTR))
		return MEM_V_MAP_USERPTR;
	return (int)in->op;
}

const struct hfd_arg_rules hfd_mem_arg_rules = {
	.members = mem_members,
	.nmembers = ARRAY_SIZE(mem_members),
	.always = BIT(MEM_OP),
	.variant = mem_variant,
	.variants = mem_variants,
	.nvariants = ARRAY_SIZE(mem_variants),
};

/* ----------------------------------------------------------------- NIC */

enum {
	NIC_ADDR,
	NIC_SIZE,
	NIC_OP,
	NIC_FLAGS,
	NIC_HANDLE,
	NIC_PORT,
	NIC_REMOTE_IPV4,
	NIC_REMOTE_DEVICE,
	NIC_REMOTE_PORT,
	NIC_PAD0,
	NIC_PAD1,
	NIC_TOKEN
};

static const struct hfd_arg_member nic_members[] = {
	[NIC_ADDR] = M(struct hpu_nic_in, addr),
	[NIC_SIZE] = M(struct hpu_nic_in, size),
	[NIC_OP] = M(struct hpu_nic_in, op),
	[NIC_FLAGS] = M(struct hpu_nic_in, flags),
	[NIC_HANDLE] = M(struct hpu_nic_in, handle),
	[NIC_PORT] = M(struct hpu_nic_in, port),
	[NIC_REMOTE_IPV4] = M(struct hpu_nic_in, remote_ipv4),
	[NIC_REMOTE_DEVICE] = M(struct hpu_nic_in, remote_device),
	[NIC_REMOTE_PORT] = M(struct hpu_nic_in, remote_port),
	[NIC_PAD0] = M(struct hpu_nic_in, pad0),
	[NIC_PAD1] = M(struct hpu_nic_in, pad1),
	[NIC_TOKEN] = M(struct hpu_nic_in, token),
};

static const struct hfd_arg_variant nic_variants[] = {
	[HPU_NIC_OP_REG_MR] = { .name = "NIC REG_MR",
				.used = BIT(NIC_ADDR) | BIT(NIC_SIZE) |
					BIT(NIC_FLAGS),
				.effects = true },
	[HPU_NIC_OP_DEREG_MR] = { .name = "NIC DEREG_MR",
				  .used = BIT(NIC_HANDLE),
				  .effects = true },
	[HPU_NIC_OP_CONNECT] = { .name = "NIC CONNECT",
				 .used = BIT(NIC_PORT) | BIT(NIC_REMOTE_IPV4) |
					 BIT(NIC_REMOTE_DEVICE) |
					 BIT(NIC_REMOTE_PORT),
				 .effects = true },
	[HPU_NIC_OP_DISCONNECT] = { .name = "NIC DISCONNECT",
				    .used = BIT(NIC_HANDLE),
				    .effects = true },
	[HPU_NIC_OP_ACCEPT] = { .name = "NIC ACCEPT",
				.used = BIT(NIC_TOKEN),
				.effects = true },
};

static int nic_variant(const void *arg)
{
	const struct hpu_nic_in *in = arg;

	return in->op < ARRAY_SIZE(nic_variants) ? (int)in->op : -EINVAL;
}

const struct hfd_arg_rules hfd_nic_arg_rules = {
	.members = nic_members,
	.nmembers = ARRAY_SIZE(nic_members),
	.always = BIT(NIC_OP),
	.variant = nic_variant,
	.variants = nic_variants,
	.nvariants = ARRAY_SIZE(nic_variants),
};

/* --------------------------------------------------------------- DEBUG */

enum {
	DBG_INPUT_PTR,
	DBG_OUTPUT_PTR,
	DBG_INPUT_SIZE,
	DBG_OUTPUT_SIZE,
	DBG_OP,
	DBG_FLAGS,
	DBG_FAULT,
	DBG_ENGINE,
	DBG_PARAM,
	DBG_RESERVED
};

static const struct hfd_arg_member debug_members[] = {
	[DBG_INPUT_PTR] = M(struct hpu_debug_args, input_ptr),
	[DBG_OUTPUT_PTR] = M(struct hpu_debug_args, output_ptr),
	[DBG_INPUT_SIZE] = M(struct hpu_debug_args, input_size),
	[DBG_OUTPUT_SIZE] = M(struct hpu_debug_args, output_size),
	[DBG_OP] = M(struct hpu_debug_args, op),
	[DBG_FLAGS] = M(struct hpu_debug_args, flags),
	[DBG_FAULT] = M(struct hpu_debug_args, fault),
	[DBG_ENGINE] = M(struct hpu_debug_args, engine),
	[DBG_PARAM] = M(struct hpu_debug_args, param),
	[DBG_RESERVED] = M(struct hpu_debug_args, reserved),
};

static const struct hfd_arg_variant debug_variants[] = {
	[HPU_DEBUG_OP_INJECT_FAULT] = { .name = "DEBUG INJECT_FAULT",
					.used = BIT(DBG_FAULT) |
						BIT(DBG_ENGINE) |
						BIT(DBG_PARAM),
					.effects = true },
	[HPU_DEBUG_OP_CLEAR_FAULTS] = { .name = "DEBUG CLEAR_FAULTS",
					.effects = true },
	[HPU_DEBUG_OP_ENGINE_STATUS] = { .name = "DEBUG ENGINE_STATUS",
					 .used = BIT(DBG_OUTPUT_PTR) |
						 BIT(DBG_OUTPUT_SIZE) },
	[HPU_DEBUG_OP_RESET] = { .name = "DEBUG RESET",
				 .used = BIT(DBG_PARAM),
				 .effects = true },
};

static int debug_variant(const void *arg)
{
	const struct hpu_debug_args *a = arg;

	return a->op < ARRAY_SIZE(debug_variants) ? (int)a->op : -EINVAL;
}

const struct hfd_arg_rules hfd_debug_arg_rules = {
	.members = debug_members,
	.nmembers = ARRAY_SIZE(debug_members),
	.always = BIT(DBG_OP),
	.variant = debug_variant,
	.variants = debug_variants,
	.nvariants = ARRAY_SIZE(debug_variants),
};

/* ---------------------------------------------------------------- RING */

enum {
	RING_OFFSET,
	RING_SIZE,
	RING_FD,
	RING_OP,
	RING_SQ_SLOTS,
	RING_CQ_ENTRIES,
	RING_FLAGS,
	RING_PAD
};

static const struct hfd_arg_member ring_members[] = {
	[RING_OFFSET] = M(struct hpu_ring_in, offset),
	[RING_SIZE] = M(struct hpu_ring_in, size),
	[RING_FD] = M(struct hpu_ring_in, fd),
	[RING_OP] = M(struct hpu_ring_in, op),
	[RING_SQ_SLOTS] = M(struct hpu_ring_in, sq_slots),
	[RING_CQ_ENTRIES] = M(struct hpu_ring_in, cq_entries),
	[RING_FLAGS] = M(struct hpu_ring_in, flags),
	[RING_PAD] = M(struct hpu_ring_in, pad),
};

static const struct hfd_arg_variant ring_variants[] = {
	[HPU_RING_OP_REGISTER] = { .name = "RING REGISTER",
				   .used = BIT(RING_OFFSET) | BIT(RING_SIZE) |
					   BIT(RING_FD) | BIT(RING_SQ_SLOTS) |
					   BIT(RING_CQ_ENTRIES) |
					   BIT(RING_FLAGS),
				   .effects = true },
	[HPU_RING_OP_UNREGISTER] = { .name = "RING UNREGISTER",
				     .effects = true },
};

static int ring_variant(const void *arg)
{
	const struct hpu_ring_in *in = arg;

	return in->op < ARRAY_SIZE(ring_variants) ? (int)in->op : -EINVAL;
}

const struct hfd_arg_rules hfd_ring_arg_rules = {
	.members = ring_members,
	.nmembers = ARRAY_SIZE(ring_members),
	.always = BIT(RING_OP),
	.variant = ring_variant,
	.variants = ring_variants,
	.nvariants = ARRAY_SIZE(ring_variants),
};

/* --------------------------------------------------------------- TRACE */

enum {
	TRACE_EVENTS_PTR,
	TRACE_MAX_EVENTS,
	TRACE_CAPACITY,
	TRACE_OP,
	TRACE_FLAGS,
	TRACE_RESERVED
};

static const struct hfd_arg_member trace_members[] = {
	[TRACE_EVENTS_PTR] = M(struct hpu_trace_in, events_ptr),
	[TRACE_MAX_EVENTS] = M(struct hpu_trace_in, max_events),
	[TRACE_CAPACITY] = M(struct hpu_trace_in, capacity),
	[TRACE_OP] = M(struct hpu_trace_in, op),
	[TRACE_FLAGS] = M(struct hpu_trace_in, flags),
	[TRACE_RESERVED] = M(struct hpu_trace_in, reserved),
};

static const struct hfd_arg_variant trace_variants[] = {
	[HPU_TRACE_OP_START] = { .name = "TRACE START",
				 .used = BIT(TRACE_CAPACITY),
				 .effects = true },
	[HPU_TRACE_OP_STOP] = { .name = "TRACE STOP", .effects = true },
	[HPU_TRACE_OP_READ] = { .name = "TRACE READ",
				.used = BIT(TRACE_EVENTS_PTR) |
					BIT(TRACE_MAX_EVENTS),
				.effects = true },
	[HPU_TRACE_OP_STATUS] = { .name = "TRACE STATUS" },
	[HPU_TRACE_OP_FREE] = { .name = "TRACE FREE", .effects = true },
};

static int trace_variant(const void *arg)
{
	const struct hpu_trace_in *in = arg;

	return in->op < ARRAY_SIZE(trace_variants) ? (int)in->op : -EINVAL;
}

const struct hfd_arg_rules hfd_trace_arg_rules = {
	.members = trace_members,
	.nmembers = ARRAY_SIZE(trace_members),
	.always = BIT(TRACE_OP),
	.variant = trace_variant,
	.variants = trace_variants,
	.nvariants = ARRAY_SIZE(trace_variants),
};

/* ------------------------------------------------------------- checker */

static bool member_zero(const struct hfd_arg_member *m, const void *arg)
{
	return !hfd_check_zero((const uint8_t *)arg + m->off, m->size);
}

/**
 * hfd_args_check() - reject input members the op of @arg does not use
 * @rules: the command's table
 * @arg: the argument struct as copied in
 * @effects: receives whether the op has effects (may be NULL)
 *
 * Return: 0; -EINVAL for an op the table does not know or a non-zero
 * member the op does not use (pad and reserved members are never used).
 */
int hfd_args_check(const struct hfd_arg_rules *rules, const void *arg,
		   bool *effects)
{
	const struct hfd_arg_variant *v;
	unsigned int i;
	uint32_t used;
	int idx;

	idx = rules->variant ? rules->variant(arg) : 0;
	if (idx < 0 || (unsigned int)idx >= rules->nvariants)
		return -EINVAL;
	v = &rules->variants[idx];
	used = rules->always | v->used;
	/* the dispatcher logs the rejection (one message per bad call) */
	for (i = 0; i < rules->nmembers; i++)
		if (!(used & BIT(i)) && !member_zero(&rules->members[i], arg))
			return -EINVAL;
	if (effects)
		*effects = v->effects;
	return 0;
}
