// SPDX-License-Identifier: MIT
/*
 * debug.c - HPU_IOCTL_DEBUG: fault injection and device reset.
 * Implemented: NIC link faults (HPU_FAULT_LINK_DOWN) and clearing them
 * (docs/nic.md, "Link faults"), HBM ECC errors (HPU_FAULT_ECC_ERR,
 * ecc.c), an engine hang (HPU_FAULT_ENGINE_HANG: the next CS never
 * ends, cs.c), a page fault (HPU_FAULT_PAGE_FAULT: the next CS touches
 * an unmapped address on an engine, cs.c), a lost heartbeat
 * (HPU_FAULT_DEVICE_ERR, dev_events.c), a failed cooler (HPU_FAULT_THERMAL:
 * the model's die runs over its slowdown temperature), RESET (reset.c; also on control
 * nodes, as an admin's tool watches a device there); ENGINE_STATUS is
 * validated, then answered -EOPNOTSUPP.
 *
 * Injecting and clearing faults and resetting change the device for
 * every user of it, so only root and the device's owner may (the uid of
 * the request, not the opener's: a descriptor passed to another user
 * does not pass the right along).
 */
#include <errno.h>

#include "hpu_fused.h"

/* Members neither op of the implemented part uses */
static bool buffers_zero(const struct hpu_debug_args *a)
{
	return !a->input_ptr && !a->output_ptr && !a->input_size &&
	       !a->output_size;
}

/* Whether the request may arm or disarm faults of @dev */
static bool may_inject(const struct hfd_ioctl_call *call,
		       const struct hfd_device *dev)
{
	return call->uid == 0 || call->uid == dev->owner;
}

static int inject_link_down(struct hfd_device *dev, uint32_t port)
{
	int ret;

	/* injections of one device are serialized with its CLEAR_FAULTS */
	pthread_mutex_lock(&dev->fault_lock);
	pthread_rwlock_rdlock(&dev->reset_lock);
	ret = dev->model->ops->nic_set_link(dev->fw, port, false);
	pthread_rwlock_unlock(&dev->reset_lock);
	if (!ret)
		dev->links_injected |= 1ULL << port;
	pthread_mutex_unlock(&dev->fault_lock);
	return ret;
}

/* HPU_FAULT_ECC_ERR: param 0 corrected, 1 uncorrectable; engine 0 */
static int inject_ecc(const struct hfd_ioctl_call *call, struct hfd_device *dev,
		      const struct hpu_debug_args *a)
{
	if (a->param > 1 || a->engine || !buffers_zero(a))
		return -EINVAL;
	if (!may_inject(call, dev))
		return -EPERM;
	return hfd_device_inject_ecc(dev, call->ctx, a->param == 1);
}

/*
 * HPU_FAULT_ENGINE_HANG (the next normal CS of the device never ends:
 * HLML's ENDLESS_COMMAND) and HPU_FAULT_DEVICE_ERR (the heartbeat is
 * lost: HLML's LOSS_OF_HEARTBEAT); engine and param 0
 */
static int inject_device(const struct hfd_ioctl_call *call,
			 struct hfd_device *dev, const struct hpu_debug_args *a)
{
	if (a->param || a->engine || !buffers_zero(a))
		return -EINVAL;
	if (!hfd_device_has_cs(dev))
		return -EOPNOTSUPP;
	if (!may_inject(call, dev))
		return -EPERM;
	if (a->fault == HPU_FAULT_DEVICE_ERR)
		return hfd_device_lose_heartbeat(dev, call->ctx);
	__atomic_store_n(&dev->hang_armed, true, __ATOMIC_RELEASE);
	hfd_info("hpu%u: injected engine hang: the next CS never ends",
		 dev->index);
	return 0;
}

/*
 * HPU_FAULT_PAGE_FAULT: the next normal CS of the device gets a job on
 * the queue of @engine (a DMA, MME or TPC engine: a NIC port reaches
 * memory only through a connection) that touches HPU_FAULT_PAGE_FAULT_ADDR
 * (cs.c); param 0
 */
static int inject_page_fault(const struct hfd_ioctl_call *call,
			     struct hfd_device *dev,
			     const struct hpu_debug_args *a)
{
	const struct hpu_fw_profile *p = dev->profile;

	if (a->param || !buffers_zero(a) ||
	    a->engine >= p->num_dma + p->num_mme + p->num_tpc)
		return -EINVAL;
	if (!hfd_device_has_cs(dev))
		return -EOPNOTSUPP;
	if (!may_inject(call, dev))
		return -EPERM;
	__atomic_store_n(&dev->pf_armed, a->engine + 1, __ATOMIC_RELEASE);
	hfd_info("hpu%u: injected page fault: the next CS faults on engine %u",
		 dev->index, a->engine);
	return 0;
}

/* Whether the model can overheat (firmware interface 1.4) */
static bool has_thermal(const struct hfd_device *dev)
{
	return hfd_device_has_nic(dev) &&
	       hfd_fw_if_minor_in_use(dev->model) >= 4 &&
	       dev->model->ops->thermal_fault;
}

/*
 * HPU_FAULT_THERMAL: the die runs over its slowdown temperature until
 * CLEAR_FAULTS or a hard reset, so the clock is throttled; engine and
 * param 0
 */
static int inject_thermal(const struct hfd_ioctl_call *call,
			  struct hfd_device *dev,
			  const struct hpu_debug_args *a)
{
	int ret;

	if (a->param || a->engine || !buffers_zero(a))
		return -EINVAL;
	if (!has_thermal(dev))
		return -EOPNOTSUPP;
	if (!may_inject(call, dev))
		return -EPERM;
	pthread_mutex_lock(&dev->fault_lock);
	ret = dev->model->ops->thermal_fault(dev->fw, true);
	if (!ret)
		dev->overheated = true;
	pthread_mutex_unlock(&dev->fault_lock);
	if (!ret)
		hfd_warn(
			"hpu%u: injected thermal event: the clock is throttled",
			dev->index);
	return ret;
}

/**
 * hfd_device_clear_faults() - bring back up every NIC port this device's
 * injections took down and cool an overheated die (CLEAR_FAULTS, a hard
 * reset)
 * @dev: device with a NIC model
 *
 * Return: 0 or the model's first -errno.
 */
int hfd_device_clear_faults(struct hfd_device *dev)
{
	uint64_t left;
	uint32_t port;
	int ret, err = 0;

	pthread_mutex_lock(&dev->fault_lock);
	pthread_rwlock_rdlock(&dev->reset_lock);
	left = dev->links_injected;
	while (left) {
		port = (uint32_t)__builtin_ctzll(left);
		left &= left - 1;
		ret = dev->model->ops->nic_set_link(dev->fw, port, true);
		if (ret && !err)
			err = ret;
		if (!ret)
			dev->links_injected &= ~(1ULL << port);
	}
	if (dev->overheated) {
		ret = dev->model->ops->thermal_fault(dev->fw, false);
		if (ret && !err)
			err = ret;
		if (!ret)
			dev->overheated = false;
	}
	pthread_rwlock_unlock(&dev->reset_lock);
	pthread_mutex_unlock(&dev->fault_lock);
	return err;
}

/**
 * hfd_ioctl_debug() - HPU_IOCTL_DEBUG handler (compute nodes only)
 * @call: context and requesting thread
 * @data: struct hpu_debug_args
 *
 * INJECT_FAULT with HPU_FAULT_LINK_DOWN takes NIC port @engine down (both
 * ends of a scale-up link), the other kinds arm or raise their fault
 * (docs/abi.md, "DEBUG ops"); CLEAR_FAULTS brings back up every link this
 * device's injections took down and disarms what no CS took yet; RESET resets the device (@param
 * HPU_RESET_HARD or HPU_RESET_COMPUTE; the only op of a control node).
 *
 * Return: 0; -EINVAL (flags, reserved, unknown op or fault, a member the
 * op does not use, LINK_DOWN with a non-zero param or a port out of
 * range, ECC_ERR with a param over 1 or a non-zero engine, PAGE_FAULT on
 * an engine that is not a DMA, MME or TPC of the device, RESET of an
 * unknown kind); -EPERM (INJECT_FAULT, CLEAR_FAULTS or RESET by a user
 * who is neither root nor the device's owner); -EOPNOTSUPP
 * (ENGINE_STATUS, a model without NICs, RESET and the faults of
 * submissions without them, THERMAL with a model below 1.4); -EBUSY (a reset is under way); the model's -errno.
 */
int hfd_ioctl_debug(const struct hfd_ioctl_call *call, void *data)
{
	const struct hpu_debug_args *args = data;
	struct hfd_device *dev = call->ctx->dev;

	if (hfd_check_flags(args->flags, 0) ||
	    hfd_check_zero(&args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	switch (args->op) {
	case HPU_DEBUG_OP_INJECT_FAULT:
		if (args->fault >= HPU_FAULT_MAX)
			return -EINVAL;
		if (args->fault == HPU_FAULT_ECC_ERR)
			return inject_ecc(call, dev, args);
		if (args->fault == HPU_FAULT_PAGE_FAULT)
			return inject_page_fault(call, dev, args);
		if (args->fault == HPU_FAULT_THERMAL)
			return inject_thermal(call, dev, args);
		if (args->fault == HPU_FAULT_ENGINE_HANG ||
		    args->fault == HPU_FAULT_DEVICE_ERR)
			return inject_device(call, dev, args);
		if (args->param || !buffers_zero(args) ||
		    args->engine >= dev->profile->num_nic_ports ||
		    args->engine >= 64)
			return -EINVAL;
		if (!hfd_device_has_nic(dev))
			return -EOPNOTSUPP;
		if (!may_inject(call, dev))
			return -EPERM;
		return inject_link_down(dev, args->engine);
	case HPU_DEBUG_OP_CLEAR_FAULTS:
		if (args->fault || args->engine || args->param ||
		    !buffers_zero(args))
			return -EINVAL;
		if (!hfd_device_has_nic(dev))
			return -EOPNOTSUPP;
		if (!may_inject(call, dev))
			return -EPERM;
		__atomic_store_n(&dev->hang_armed, false, __ATOMIC_RELEASE);
		__atomic_store_n(&dev->pf_armed, 0, __ATOMIC_RELEASE);
		return hfd_device_clear_faults(dev);
	case HPU_DEBUG_OP_ENGINE_STATUS:
		return -EOPNOTSUPP;
	case HPU_DEBUG_OP_RESET:
		if (args->fault || args->engine || !buffers_zero(args) ||
		    (args->param != HPU_RESET_HARD &&
		     args->param != HPU_RESET_COMPUTE))
			return -EINVAL;
		if (!hfd_device_has_cs(dev))
			return -EOPNOTSUPP;
		if (!may_inject(call, dev))
			return -EPERM;
		return hfd_device_reset(dev, (uint32_t)args->param, call->ctx,
					true, "requested");
	default:
		return -EINVAL;
	}
}
