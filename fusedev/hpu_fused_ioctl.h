/* SPDX-License-Identifier: MIT */
/*
 * hpu_fused_ioctl.h - ioctl dispatch: the calls, their
 * deferred answers, the argument rules and the handlers (ioctl.c,
 * ioctl_args.c, info.c and the handlers' files).
 *
 * Part of hpu_fused.h (the driver core's internal interface), which
 * includes every part; a file may include just the parts it uses.
 */
#ifndef HPU_FUSED_IOCTL_H
#define HPU_FUSED_IOCTL_H

#include "hpu_fused_dev.h"

/* ------------------------------------------------------------------ */
/* ioctl dispatch (ioctl.c, info.c)                                    */
/* ------------------------------------------------------------------ */

/**
 * struct hfd_ioctl_defer - how a handler answers a request later
 * @interrupted: whether the caller already gave up (signal)
 * @on_interrupt: have hfd_wait_interrupt(@id) called when it does
 * @reply: answer the request (@err 0: @out of @size bytes; else -errno)
 * @reply_data: answer -errno @err and copy @out of @size bytes back all
 *	the same (the habanalabs ABI copies its argument back on errors)
 * @token: the request (fuse_req_t), first argument of the three
 */
struct hfd_ioctl_defer {
	bool (*interrupted)(void *token);
	void (*on_interrupt)(void *token, uint64_t id);
	void (*reply)(void *token, int err, const void *out, size_t size);
	void (*reply_data)(void *token, int err, const void *out, size_t size);
	void *token;
};

/* A handler's return value: the request will be answered through its defer */
#define HFD_IOCTL_DEFERRED 1

/* hfd_ioctl_desc.flags */
#define HFD_IOCTL_CONTROL_OK (1U << 0) /* allowed on control nodes */

/**
 * struct hfd_ioctl_call - one ioctl request as the handlers see it
 * @ctx: context of the file
 * @pid: thread that made the request (user memory belongs to it)
 * @uid: user of that request (fuse_req_ctx()->uid), not the opener's:
 *	what privileged ops check
 * @defer: how to answer later, or NULL (a wait that would block then
 *	answers BUSY at once)
 * @arg: user address of the argument struct (the kernel copies the
 *	answer there), or 0 when unknown (in-process callers)
 */
struct hfd_ioctl_call {
	struct hfd_ctx *ctx;
	pid_t pid;
	uid_t uid;
	const struct hfd_ioctl_defer *defer;
	uint64_t arg;
};

/**
 * struct hfd_arg_member - one member of an ioctl's input struct
 * @name: member name (logs)
 * @off: byte offset
 * @size: bytes
 */
struct hfd_arg_member {
	const char *name;
	uint16_t off;
	uint16_t size;
};

/**
 * struct hfd_arg_variant - what one op of a command uses
 * @name: command and op (logs)
 * @used: bit i set: member i may be non-zero (besides the command's
 *	@always members); every other member must be 0
 * @effects: the op changes state: the argument must be writable first
 */
struct hfd_arg_variant {
	const char *name;
	uint32_t used;
	bool effects;
};

/**
 * struct hfd_arg_rules - per-op member use of one command (ioctl_args.c)
 * @members: every member of the input struct, pad and reserved included
 * @nmembers: entries of @members (at most 32)
 * @always: members every op uses (the op selector)
 * @variant: index into @variants for an argument, -EINVAL for an unknown
 *	op; NULL: always 0
 * @variants: per op (or op and flag) what is used
 * @nvariants: entries of @variants
 */
struct hfd_arg_rules {
	const struct hfd_arg_member *members;
	unsigned int nmembers;
	uint32_t always;
	int (*variant)(const void *arg);
	const struct hfd_arg_variant *variants;
	unsigned int nvariants;
};

extern const struct hfd_arg_rules hfd_info_arg_rules;
extern const struct hfd_arg_rules hfd_cb_arg_rules;
extern const struct hfd_arg_rules hfd_cs_arg_rules;
extern const struct hfd_arg_rules hfd_wait_cs_arg_rules;
extern const struct hfd_arg_rules hfd_mem_arg_rules;
extern const struct hfd_arg_rules hfd_nic_arg_rules;
extern const struct hfd_arg_rules hfd_debug_arg_rules;
extern const struct hfd_arg_rules hfd_ring_arg_rules;
extern const struct hfd_arg_rules hfd_trace_arg_rules;

int hfd_args_check(const struct hfd_arg_rules *rules, const void *arg,
		   bool *effects);

typedef int (*hfd_ioctl_func_t)(const struct hfd_ioctl_call *call, void *data);

/**
 * struct hfd_ioctl_desc - one entry of the dispatch table
 * @cmd: full command number; its size and direction are the driver's
 * @func: handler; @data is the argument struct, updated in place
 * @flags: HFD_IOCTL_*
 * @name: for logs
 * @args: which input members each op uses, and which ops have effects
 * @control_ops: without HFD_IOCTL_CONTROL_OK, the ops (bit per op number
 *	of @args) a control node may still use (DEBUG RESET)
 */
struct hfd_ioctl_desc {
	unsigned int cmd;
	hfd_ioctl_func_t func;
	unsigned int flags;
	const char *name;
	const struct hfd_arg_rules *args;
	uint64_t control_ops;
};

/* Largest argument struct of any command */
#define HFD_IOCTL_MAX_SIZE 128

const struct hfd_ioctl_desc *hfd_ioctl_lookup(unsigned int cmd, int *err);
int hfd_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
		       const void *in, size_t in_size, void *out,
		       size_t *out_size);
int hfd_check_flags(uint64_t flags, uint64_t mask);
int hfd_check_zero(const void *ptr, size_t len);

int hfd_ioctl_info(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_memory(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_cb(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_wait_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_nic(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_debug(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_ring(const struct hfd_ioctl_call *call, void *data);
int hfd_ioctl_trace(const struct hfd_ioctl_call *call, void *data);

/* trace.c: engine traces (ABI 1.5) */
struct hpu_trace_in;
int hfd_trace_check(const struct hpu_trace_in *in);
bool hfd_device_has_trace(const struct hfd_device *dev);
int hfd_fw_cs_submit(struct hfd_ctx *ctx, const struct hpu_fw_job *jobs,
		     unsigned int njobs, void *cookie, uint64_t seq);
void hfd_nic_event_cb(void *arg, void *as_cookie,
		      const struct hpu_fw_nic_event *ev);
int hfd_nic_info(struct hfd_device *dev, struct hpu_info_nic *out);
uint64_t hfd_driver_capabilities(const struct hfd_device *dev);

#endif /* HPU_FUSED_IOCTL_H */
