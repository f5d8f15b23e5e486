// SPDX-License-Identifier: MIT
/*
 * nic.c - NIC registration and connections (HPU_IOCTL_NIC), INFO NIC,
 * and fault injection (HPU_IOCTL_DEBUG) (docs/nic.md).
 */
#include <errno.h>
#include <string.h>

#include "hpudrv_internal.h"

int hpu_info_nic(struct hpu_device *dev, struct hpu_info_nic *out)
{
	if (!dev || !out)
		return -EINVAL;
	return hpudrv_info(dev->fd, HPU_INFO_NIC, 0, out, sizeof(*out));
}

static int nic_ioctl(struct hpu_device *dev, union hpu_nic_args *args)
{
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_NIC, args);
}

int hpu_nic_register(struct hpu_device *dev, uint64_t va, uint64_t size,
		     uint32_t *handle, uint64_t *rkey)
{
	union hpu_nic_args args;
	int ret;

	if (!dev || !handle || !rkey || !size || va + size < va)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_NIC_OP_REG_MR;
	args.in.flags = HPU_NIC_MR_REMOTE_WRITE;
	args.in.addr = va;
	args.in.size = size;
	ret = nic_ioctl(dev, &args);
	if (!ret) {
		*handle = args.out.handle;
		*rkey = args.out.rkey;
	}
	return ret;
}

int hpu_nic_reg_mr(struct hpu_device *dev, uint64_t va, uint64_t size,
		   uint32_t *key)
{
	uint64_t rkey;

	return hpu_nic_register(dev, va, size, key, &rkey);
}

int hpu_nic_dereg_mr(struct hpu_device *dev, uint32_t key)
{
	union hpu_nic_args args;

	if (!dev)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_NIC_OP_DEREG_MR;
	args.in.handle = key;
	return nic_ioctl(dev, &args);
}

int hpu_nic_connect_token(struct hpu_device *dev,
			  const struct hpu_nic_peer *peer, uint32_t *conn,
			  uint64_t *token)
{
	union hpu_nic_args args;
	int ret;

	if (!dev || !peer || !conn || !token)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_NIC_OP_CONNECT;
	args.in.port = peer->port;
	args.in.remote_ipv4 = peer->ipv4;
	args.in.remote_port = peer->tcp_port;
	args.in.remote_device = peer->device;
	ret = nic_ioctl(dev, &args);
	if (!ret) {
		*conn = args.out.handle;
		*token = args.out.token;
	}
	return ret;
}

int hpu_nic_connect(struct hpu_device *dev, const struct hpu_nic_peer *peer,
		    uint32_t *conn)
{
	uint64_t token;

	return hpu_nic_connect_token(dev, peer, conn, &token);
}

int hpu_nic_accept(struct hpu_device *dev, uint64_t token, uint32_t *id)
{
	union hpu_nic_args args;
	int ret;

	if (!dev || !id || !token)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_NIC_OP_ACCEPT;
	args.in.token = token;
	ret = nic_ioctl(dev, &args);
	if (!ret)
		*id = args.out.handle;
	return ret;
}

int hpu_nic_disconnect(struct hpu_device *dev, uint32_t conn)
{
	union hpu_nic_args args;

	if (!dev)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.in.op = HPU_NIC_OP_DISCONNECT;
	args.in.handle = conn;
	return nic_ioctl(dev, &args);
}

int hpu_nic_scaleup_port(const struct hpu_info_nic *info, uint32_t device)
{
	uint32_t p, n;

	if (!info)
		return -EINVAL;
	n = info->num_ports < sizeof(info->port_peer) ?
		    info->num_ports :
		    (uint32_t)sizeof(info->port_peer);
	for (p = 0; p < n; p++) {
		if (p < 64 && (info->scaleout_ports_mask & (1ULL << p)))
			continue;
		if (info->port_peer[p] != HPU_NIC_PEER_NONE &&
		    info->port_peer[p] == device)
			return (int)p;
	}
	return -ENOENT;
}

static int debug_ioctl(struct hpu_device *dev, uint32_t op, uint32_t fault,
		       uint32_t engine, uint64_t param)
{
	struct hpu_debug_args args;

	if (!dev)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.fault = fault;
	args.engine = engine;
	args.param = param;
	return hpudrv_ioctl(dev->fd, HPU_IOCTL_DEBUG, &args);
}

int hpu_debug_inject_fault(struct hpu_device *dev, uint32_t fault,
			   uint32_t engine, uint64_t param)
{
	return debug_ioctl(dev, HPU_DEBUG_OP_INJECT_FAULT, fault, engine,
			   param);
}

int hpu_debug_clear_faults(struct hpu_device *dev)
{
	return debug_ioctl(dev, HPU_DEBUG_OP_CLEAR_FAULTS, 0, 0, 0);
}
