// SPDX-License-Identifier: MIT
/*
 * cb.c - HPU_IOCTL_CB: command buffers that live in the creating
 * process's memory, mapped into the context, and the copy of their bytes
 * a submission validates and runs (docs/command-submission.md, "CB").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpu_mem.h"

static struct hfd_cb *find_cb(struct hfd_mem_state *m, uint64_t handle,
			      struct hfd_handle_node ***link)
{
	struct hfd_handle_node *n = hfd_handle_find(&m->cbs, handle, link);

	return n ? hfd_handle_entry(n, struct hfd_cb) : NULL;
}

static int cb_create(struct hfd_ctx *ctx, pid_t tid, const struct hpu_cb_in *in,
		     struct hpu_cb_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *c;
	struct hfd_cb *cb;
	uint64_t va = 0;
	int ret;

	if (!in->host_ptr || in->cb_handle || in->cb_size < 8 ||
	    in->cb_size > HPU_MAX_CB_SIZE || in->cb_size % 8)
		return -EINVAL;
	ret = hfd_ctx_charge2(ctx, HPU_CTX_LIMIT_CBS, 1,
			      HPU_CTX_LIMIT_PINNED_BYTES, in->cb_size);
	if (ret)
		return ret;
	cb = calloc(1, sizeof(*cb));
	ret = cb ? hfd_ctx_map_user(ctx, tid, in->host_ptr, in->cb_size, 0,
				    false, &c, &va) :
		   -ENOMEM;
	if (ret) {
		free(cb);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_CBS, 1);
		hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, in->cb_size);
		return ret;
	}
	cb->host_ptr = in->host_ptr;
	cb->size = in->cb_size;
	cb->owner = c;
	cb->va = va;
	hfd_handle_add(m, &m->cbs, &cb->node);
	out->cb_handle = cb->node.handle;
	out->device_va = va;
	out->cb_size = cb->size;
	return 0;
}

static int cb_destroy(struct hfd_ctx *ctx, const struct hpu_cb_in *in)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_handle_node **link;
	struct hfd_cb *cb;
	int pidfd = -1, ret = 0;

	if (in->host_ptr || in->cb_size)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	cb = find_cb(m, in->cb_handle, &link);
	if (!cb)
		ret = -EINVAL;
	else if (__atomic_load_n(&cb->usage, __ATOMIC_ACQUIRE))
		ret = -EBUSY;
	else
		ret = CTX_OPS(ctx)->unmap(ctx->as, cb->va, &pidfd);
	if (!ret)
		*link = cb->node.next;
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return ret == -ENOENT ? -EINVAL : ret;
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_CBS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, cb->size);
	hfd_client_put(ctx, cb->owner);
	free(cb);
	return 0;
}

static int cb_info(struct hfd_ctx *ctx, const struct hpu_cb_in *in,
		   struct hpu_cb_out *out)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_cb *cb;

	if (in->host_ptr || in->cb_size)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	cb = find_cb(m, in->cb_handle, NULL);
	if (cb) {
		out->cb_handle = cb->node.handle;
		out->device_va = cb->va;
		out->cb_size = cb->size;
		out->usage_cnt = __atomic_load_n(&cb->usage, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&m->lock);
	return cb ? 0 : -EINVAL;
}

/**
 * hfd_ioctl_cb() - HPU_IOCTL_CB handler
 * @call: context and requesting thread
 * @data: union hpu_cb_args, updated in place
 *
 * Return: 0 or -errno (docs/command-submission.md, "CB").
 */
int hfd_ioctl_cb(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_cb_args *args = data;
	struct hfd_ctx *ctx = call->ctx;
	struct hpu_cb_in in = args->in;
	struct hpu_cb_out out;
	int ret;

	if (hfd_check_flags(in.flags, 0) ||
	    hfd_check_zero(&in.pad, sizeof(in.pad)))
		return -EINVAL;
	if (in.op > HPU_CB_OP_INFO)
		return -EINVAL;
	if (!ctx->mem || !hfd_device_has_cs(ctx->dev))
		return -EOPNOTSUPP;

	/* the user buffer is faulted in before any lock is held */
	if (in.op == HPU_CB_OP_CREATE && in.host_ptr && !in.cb_handle &&
	    in.cb_size >= 8 && in.cb_size <= HPU_MAX_CB_SIZE &&
	    !(in.cb_size % 8)) {
		ret = hfd_user_probe(call->pid, in.host_ptr, in.cb_size);
		if (ret)
			return ret;
	}

	memset(&out, 0, sizeof(out));
	pthread_rwlock_rdlock(&ctx->dev->reset_lock);
	pthread_rwlock_rdlock(&ctx->as_lock);
	if (!ctx->as)
		ret = -ENODEV;
	else if (in.op == HPU_CB_OP_CREATE)
		ret = cb_create(ctx, call->pid, &in, &out);
	else if (in.op == HPU_CB_OP_DESTROY)
		ret = cb_destroy(ctx, &in);
	else
		ret = cb_info(ctx, &in, &out);
	pthread_rwlock_unlock(&ctx->as_lock);
	pthread_rwlock_unlock(&ctx->dev->reset_lock);
	if (!ret)
		args->out = out;
	return ret;
}

/**
 * hfd_cb_get() - copy what a chunk runs out of its CB's owner and pin the
 * CB against DESTROY
 * @ctx: context
 * @handle: CB handle
 * @size: bytes the chunk runs: 8..the CB's size, a multiple of 8
 * @requester: thread making the request (fuse_req_ctx()->pid)
 * @copy: NULL, or @size bytes in daemon memory that the chunk runs
 *	instead of the CB's own (a ring entry's CB arena bytes, copied at
 *	its take): borrowed by @ref, valid until the submission is handed
 *	to the model
 * @ref: receives the copy and the usage counter (release: hfd_cb_put())
 *
 * The bytes are read from the creating process (process_vm_readv) while
 * its pidfd says it is alive, before and after: a reused pid is never
 * read. When the requester is the creator's main thread, the pid is the
 * live requester itself and the pidfd checks are skipped (the common,
 * latency-critical case). The read is bounded by the uaccess guard.
 * With @copy nothing is read from any process: the CB is only looked up
 * (its size checked) and pinned, as for every chunk.
 *
 * Return: 0; -EINVAL unknown handle or bad size; -EFAULT the owner's
 * memory cannot be read; -ENOMEM.
 */
int hfd_cb_get(struct hfd_ctx *ctx, uint64_t handle, uint32_t size,
	       pid_t requester, const void *copy, struct hfd_cb_ref *ref)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *owner;
	struct hfd_cb *cb;
	uint64_t addr;
	int ret;

	memset(ref, 0, sizeof(*ref));
	if (size < 8 || size % 8)
		return -EINVAL;
	if (copy) {
		ref->bytes = (void *)(uintptr_t)copy;
		ref->borrowed = true;
	} else {
		ref->bytes = malloc(size);
		if (!ref->bytes)
			return -ENOMEM;
	}
	pthread_mutex_lock(&m->lock);
	cb = find_cb(m, handle, NULL);
	if (!cb || size > cb->size) {
		pthread_mutex_unlock(&m->lock);
		if (!ref->borrowed)
			free(ref->bytes);
		memset(ref, 0, sizeof(*ref));
		return -EINVAL;
	}
	/* pinned from here: DESTROY is -EBUSY, so cb stays valid */
	__atomic_add_fetch(&cb->usage, 1, __ATOMIC_ACQ_REL);
	ref->usage = &cb->usage;
	ref->size = size;
	addr = cb->host_ptr;
	owner = cb->owner;
	pthread_mutex_unlock(&m->lock);
	if (copy)
		return 0;

	if (owner->tgid == requester) {
		ret = hfd_copy_from_user(requester, ref->bytes, addr, size);
	} else {
		ret = hfd_client_alive(owner) ? 0 : -EFAULT;
		if (!ret)
			ret = hfd_copy_from_user(owner->tgid, ref->bytes, addr,
						 size);
		if (!ret && !hfd_client_alive(owner))
			ret = -EFAULT;
	}
	if (ret)
		hfd_cb_put(ref);
	return ret;
}

/**
 * hfd_cb_put() - drop the copy and the pin of hfd_cb_get()
 * @ref: reference (may be empty)
 */
void hfd_cb_put(struct hfd_cb_ref *ref)
{
	if (ref->usage)
		__atomic_sub_fetch(ref->usage, 1, __ATOMIC_ACQ_REL);
	if (!ref->borrowed)
		free(ref->bytes);
	memset(ref, 0, sizeof(*ref));
}
