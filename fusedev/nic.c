// SPDX-License-Identifier: MIT
/*
 * nic.c - HPU_IOCTL_NIC (memory registration for remote writes,
 * connections between NIC ports), the INFO NIC answer and the NIC events
 * the model reports (docs/nic.md).
 *
 * Keys, region handles, connection ids and tokens and acceptances are the
 * model's: it scopes them per address space (each context is a protection
 * domain), so the driver keeps no table of its own and a closed context
 * (as_destroy) revokes its keys and acceptances and drops its
 * connections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_fused.h"

#define CHECK_ZERO(member) hfd_check_zero(&(member), sizeof(member))

/* Members every op but CONNECT must leave 0 */
static bool connect_fields_zero(const struct hpu_nic_in *in)
{
	return !in->port && !in->remote_ipv4 && !in->remote_device &&
	       !in->remote_port;
}

/*
 * Everything checkable without the model, per op: flags, pad, reserved,
 * the members the op does not use, ranges.
 */
static int nic_check(const struct hfd_device *dev, const struct hpu_nic_in *in)
{
	if (CHECK_ZERO(in->pad0) || CHECK_ZERO(in->pad1))
		return -EINVAL;
	/* only ACCEPT names a token */
	if (in->op != HPU_NIC_OP_ACCEPT && in->token)
		return -EINVAL;
	switch (in->op) {
	case HPU_NIC_OP_REG_MR:
		if (hfd_check_flags(in->flags, HPU_NIC_MR_FLAGS_MASK) ||
		    !(in->flags & HPU_NIC_MR_REMOTE_WRITE))
			return -EINVAL;
		if (!in->size || in->addr + in->size < in->addr)
			return -EINVAL;
		if (in->handle || !connect_fields_zero(in))
			return -EINVAL;
		return 0;
	case HPU_NIC_OP_DEREG_MR:
	case HPU_NIC_OP_DISCONNECT:
		if (in->flags || in->addr || in->size ||
		    !connect_fields_zero(in))
			return -EINVAL;
		/* keys and connection ids are never 0 */
		return in->handle ? 0 : -ENOENT;
	case HPU_NIC_OP_CONNECT:
		if (in->flags || in->addr || in->size || in->handle)
			return -EINVAL;
		if (in->port >= dev->profile->num_nic_ports)
			return -EINVAL;
		/* a remote server needs both its address and its port */
		if (!in->remote_ipv4 != !in->remote_port)
			return -EINVAL;
		/* no such device in this server, whatever the port */
		if (!in->remote_ipv4 &&
		    in->remote_device >= dev->server_devices)
			return -ENODEV;
		return 0;
	case HPU_NIC_OP_ACCEPT:
		if (in->flags || in->addr || in->size || in->handle ||
		    !connect_fields_zero(in) || !in->token)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The per-context limit an op's object counts against */
static unsigned int nic_op_limit(uint32_t op)
{
	return op == HPU_NIC_OP_REG_MR || op == HPU_NIC_OP_DEREG_MR ?
		       HPU_CTX_LIMIT_NIC_MRS :
		       HPU_CTX_LIMIT_NIC_CONNS;
}

static int nic_call(struct hfd_ctx *ctx, const struct hpu_nic_in *in,
		    struct hpu_nic_out *out)
{
	const struct hpu_fw_ops *o = ctx->dev->model->ops;
	uint32_t handle = 0;
	unsigned int lim = nic_op_limit(in->op);
	/* what makes an object: a region, a connection or an acceptance */
	bool charged = in->op == HPU_NIC_OP_REG_MR ||
		       in->op == HPU_NIC_OP_CONNECT ||
		       in->op == HPU_NIC_OP_ACCEPT;
	uint64_t v = 0;
	int ret;

	if (charged) {
		ret = hfd_ctx_charge(ctx, lim, 1);
		if (ret)
			return ret;
	}
	switch (in->op) {
	case HPU_NIC_OP_REG_MR:
		ret = o->nic_reg_mr(ctx->as, in->addr, in->size, in->flags,
				    &handle, &v);
		if (!ret) {
			out->handle = handle;
			out->size = in->size;
			out->rkey = v;
		}
		break;
	case HPU_NIC_OP_DEREG_MR:
		ret = o->nic_dereg_mr(ctx->as, in->handle);
		break;
	case HPU_NIC_OP_CONNECT:
		ret = o->nic_connect(ctx->as, in->port, in->remote_ipv4,
				     in->remote_port, in->remote_device,
				     &handle, &v);
		if (!ret) {
			out->handle = handle;
			out->token = v;
		}
		break;
	case HPU_NIC_OP_ACCEPT:
		ret = o->nic_accept(ctx->as, in->token, &handle);
		if (!ret)
			out->handle = handle;
		break;
	default:
		ret = o->nic_disconnect(ctx->as, in->handle);
		break;
	}
	/* a failed REG_MR/CONNECT/ACCEPT, a successful DEREG_MR/DISCONNECT */
	if (charged == (ret != 0))
		hfd_ctx_uncharge(ctx, lim, 1);
	return ret;
}

/**
 * hfd_ioctl_nic() - HPU_IOCTL_NIC handler
 * @call: context and requesting thread
 * @data: union hpu_nic_args, updated in place
 *
 * Return: 0; -EINVAL (unknown op or flag, non-zero pad or a member the
 * op does not use, size 0 or an overflowing range, a port out of range,
 * half a remote address, ACCEPT of token 0); -ENODEV (a device index past
 * this server's); -ENOENT (handle, connection or acceptance 0 or
 * unknown); -EEXIST/-EBUSY (ACCEPT of a token this or another context
 * accepted); -EOPNOTSUPP when the model has no NICs; the model's -errno
 * (docs/nic.md).
 */
int hfd_ioctl_nic(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_nic_args *args = data;
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hpu_nic_in in = args->in;
	struct hpu_nic_out out;
	int ret;

	ret = nic_check(dev, &in);
	if (ret)
		return ret;
	if (!hfd_device_has_nic(dev))
		return -EOPNOTSUPP;

	memset(&out, 0, sizeof(out));
	pthread_rwlock_rdlock(&dev->reset_lock);
	pthread_rwlock_rdlock(&ctx->as_lock);
	ret = ctx->as ? nic_call(ctx, &in, &out) : -ENODEV;
	pthread_rwlock_unlock(&ctx->as_lock);
	pthread_rwlock_unlock(&dev->reset_lock);
	if (ret)
		return ret;
	args->out = out;
	return 0;
}

/**
 * hfd_nic_info() - the INFO NIC answer of a device
 * @dev: device
 * @out: answer (zeroed by the caller)
 *
 * Return: 0, or -EOPNOTSUPP when the model has no NICs.
 */
int hfd_nic_info(struct hfd_device *dev, struct hpu_info_nic *out)
{
	unsigned int i;

	if (!hfd_model_has_nic(dev->model) || !dev->fw)
		return -EOPNOTSUPP;
	dev->model->ops->nic_info(dev->fw, out);
	/* what the ABI promises, whatever the model left there */
	out->pad0 = 0;
	out->pad1 = 0;
	if (out->num_ports > sizeof(out->port_peer))
		out->num_ports = sizeof(out->port_peer);
	for (i = out->num_ports; i < sizeof(out->port_peer); i++)
		out->port_peer[i] = HPU_NIC_PEER_NONE;
	return 0;
}

static void queue_nic_event(struct hfd_ctx *ctx,
			    const struct hpu_fw_nic_event *ev)
{
	if (ev->type == HPU_EVENT_NIC_ACCESS_ERR)
		hfd_ctx_queue_event(ctx, ev->type, ev->port, 0, ev->offset,
				    ev->key);
	else
		hfd_ctx_queue_event(ctx, ev->type, ev->port, 0, ev->port, 0);
}

/* An event for every context of @dev (hfd_device_contexts()) */
static void nic_event_all(struct hfd_device *dev,
			  const struct hpu_fw_nic_event *ev)
{
	struct hfd_ctx **list;
	size_t n, i;

	if (hfd_device_contexts(dev, &list, &n)) {
		hfd_warn(
			"hpu%u: out of memory: NIC event %u not given to the contexts",
			dev->index, ev->type);
		return;
	}
	for (i = 0; i < n; i++)
		queue_nic_event(list[i], ev);
	hfd_contexts_put(list, n);
}

/**
 * hfd_nic_event_cb() - the model's nic_event callback
 * @arg: the device
 * @as_cookie: the context whose address space the event concerns
 *	(as_set_cookie), or NULL for every context of the device
 * @ev: HPU_EVENT_LINK_DOWN (addr and engine = port) or
 *	HPU_EVENT_NIC_ACCESS_ERR (addr = offset, data = key, engine = port)
 */
void hfd_nic_event_cb(void *arg, void *as_cookie,
		      const struct hpu_fw_nic_event *ev)
{
	struct hfd_device *dev = arg;

	if (!ev || (ev->type != HPU_EVENT_LINK_DOWN &&
		    ev->type != HPU_EVENT_NIC_ACCESS_ERR))
		return;
	hfd_dbg("hpu%u: NIC event %u port %u key %#llx offset %llu", dev->index,
		ev->type, ev->port, (unsigned long long)ev->key,
		(unsigned long long)ev->offset);
	if (as_cookie)
		queue_nic_event(as_cookie, ev);
	else
		nic_event_all(dev, ev);
}
