/* SPDX-License-Identifier: MIT */
/*
 * hpudrv_nic.h - libhpudrv: NIC ports, memory registration, connections,
 * NIC_WRITE packets, fault injection
 *
 * Part of libhpudrv's public header: programs include <hpu/hpudrv.h>,
 * which includes this file; do not include it on its own. See
 * docs/libhpudrv.md.
 */
#ifndef HPU_HPUDRV_NIC_H
#define HPU_HPUDRV_NIC_H

#include "hpudrv_cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- NIC and fault injection (1.3) */

/**
 * hpu_info_nic() - the device's NIC ports and its server (HPU_INFO_NIC)
 * @dev: compute or control handle
 * @out: receives the answer
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_info_nic(struct hpu_device *dev,
			       struct hpu_info_nic *out);

/**
 * hpu_nic_reg_mr() - register device memory (superseded, see below)
 * @dev: compute handle
 * @va: device VA of the region (HBM, SRAM or pinned host memory)
 * @size: bytes, > 0
 * @key: receives the region's handle (never 0) for hpu_nic_dereg_mr()
 *
 * Since HPUDRV_1.5 (ABI 1.1) keys are 64 bits and do not fit @key: what
 * it receives is the handle, which names no region in a peer's
 * NIC_WRITE. Use hpu_nic_register(), which gives both.
 *
 * Return: 0; -EINVAL; -EFAULT (range not mapped to device-reachable
 * memory); -ENOSPC (HPU_NIC_MAX_MRS regions); -errno.
 */
HPUDRV_EXPORT int hpu_nic_reg_mr(struct hpu_device *dev, uint64_t va,
				 uint64_t size, uint32_t *key);

/**
 * hpu_nic_dereg_mr() - revoke a region: later writes to it fail
 * @dev: compute handle
 * @key: the region's handle (hpu_nic_register(), hpu_nic_reg_mr())
 *
 * Return: 0, -ENOENT or -errno.
 */
HPUDRV_EXPORT int hpu_nic_dereg_mr(struct hpu_device *dev, uint32_t key);

/**
 * hpu_nic_register() - register device memory for remote writes (1.5)
 * @dev: compute handle
 * @va: device VA of the region (HBM, SRAM or pinned host memory)
 * @size: bytes, > 0
 * @handle: receives the region's handle (never 0) for hpu_nic_dereg_mr()
 * @rkey: receives the region's key (64 bits, unpredictable, never 0) for
 *	peers' NIC_WRITE packets (hpu_cb_nic_write_key()); peers write
 *	only over connections this handle's context accepted
 *	(hpu_nic_accept())
 *
 * Return: 0; -EINVAL; -EFAULT (range not mapped to device-reachable
 * memory); -ENOSPC (HPU_NIC_MAX_MRS regions); -errno.
 */
HPUDRV_EXPORT int hpu_nic_register(struct hpu_device *dev, uint64_t va,
				   uint64_t size, uint32_t *handle,
				   uint64_t *rkey);

/**
 * struct hpu_nic_peer - where a connection goes
 * @port: local NIC port (a scale-up port wired to @device, or a scale-out
 *	port for another server)
 * @ipv4: remote server's scale-out address, network byte order; 0 for a
 *	device of this server
 * @tcp_port: remote server's scale-out TCP port, host byte order; 0 for a
 *	device of this server
 * @device: device index in that server
 */
struct hpu_nic_peer {
	uint32_t port;
	uint32_t ipv4;
	uint16_t tcp_port;
	uint32_t device;
};

/**
 * hpu_nic_connect() - connect a NIC port of @dev to a peer device
 * @dev: compute handle
 * @peer: the peer
 * @conn: receives the connection id (never 0) for NIC_WRITE packets
 *
 * Return: 0; -EINVAL; -ENODEV; -ENETDOWN; -EHOSTUNREACH, -ECONNREFUSED,
 * -ETIMEDOUT; -ENOSPC; -errno (docs/nic.md).
 */
HPUDRV_EXPORT int hpu_nic_connect(struct hpu_device *dev,
				  const struct hpu_nic_peer *peer,
				  uint32_t *conn);

/**
 * hpu_nic_connect_token() - connect a NIC port of @dev to a peer device
 * and learn the connection's token (1.5)
 * @dev: compute handle
 * @peer: the peer
 * @conn: receives the connection id (never 0) for NIC_WRITE packets
 * @token: receives the connection's token (never 0): the owner of the
 *	memory the connection is to write passes it to hpu_nic_accept()
 *	before the first write (hand it over out of band)
 *
 * Return: as hpu_nic_connect().
 */
HPUDRV_EXPORT int hpu_nic_connect_token(struct hpu_device *dev,
					const struct hpu_nic_peer *peer,
					uint32_t *conn, uint64_t *token);

/**
 * hpu_nic_accept() - let a peer's connection write into this context's
 * registered regions (1.5)
 * @dev: compute handle (the context whose regions the peer writes)
 * @token: the connection's token (hpu_nic_connect_token() of the peer)
 * @id: receives the acceptance's id (never 0) for hpu_nic_disconnect()
 *
 * Return: 0; -EINVAL (token 0, or a driver of ABI 1.0, which lacks
 * HPU_CAP_NIC_PD); -EEXIST (accepted already); -EBUSY (another context
 * of the device accepted it); -ENOSPC (HPU_NIC_MAX_ACCEPTS); -errno.
 */
HPUDRV_EXPORT int hpu_nic_accept(struct hpu_device *dev, uint64_t token,
				 uint32_t *id);

/**
 * hpu_nic_disconnect() - drop a connection or an acceptance
 * @dev: compute handle
 * @conn: id from hpu_nic_connect() or hpu_nic_accept()
 *
 * Return: 0, -ENOENT or -errno.
 */
HPUDRV_EXPORT int hpu_nic_disconnect(struct hpu_device *dev, uint32_t conn);

/**
 * hpu_nic_scaleup_port() - first scale-up port of @info wired to a device
 * @info: HPU_INFO_NIC answer of the local device
 * @device: index of the peer device in the same server
 *
 * Return: the port, or -ENOENT when none is wired to it.
 */
HPUDRV_EXPORT int hpu_nic_scaleup_port(const struct hpu_info_nic *info,
				       uint32_t device);

/**
 * hpu_cb_nic_write() - append a NIC_WRITE packet with a 32-bit key
 * (superseded: keys are 64 bits since HPUDRV_1.5, use
 * hpu_cb_nic_write_key())
 * @b: builder of a CB for a NIC queue
 * @conn: connection id made on that queue's port
 * @src: local device VA
 * @rkey: key of the peer's region
 * @remote_offset: offset in the peer's region
 * @size: bytes (0: signal only; @sob_value must then be non-zero)
 * @sob_id: peer sync object to signal
 * @sob_value: added to it; 0 for no signal (then @sob_id must be 0)
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_nic_write(struct hpu_cb_builder *b, uint32_t conn,
				   uint64_t src, uint32_t rkey,
				   uint64_t remote_offset, uint64_t size,
				   uint32_t sob_id, uint32_t sob_value);

/**
 * hpu_cb_nic_write_key() - append a NIC_WRITE packet (1.5)
 * @b: builder of a CB for a NIC queue
 * @conn: connection id made on that queue's port; the peer accepted its
 *	token (hpu_nic_accept())
 * @src: local device VA
 * @rkey: key of the peer's region (hpu_nic_register() of the peer)
 * @remote_offset: offset in the peer's region
 * @size: bytes (0: signal only; @sob_value must then be non-zero)
 * @sob_id: peer sync object to signal
 * @sob_value: added to it; 0 for no signal (then @sob_id must be 0)
 *
 * Return: 0, -ENOSPC (builder full) or -EINVAL.
 */
HPUDRV_EXPORT int hpu_cb_nic_write_key(struct hpu_cb_builder *b, uint32_t conn,
				       uint64_t src, uint64_t rkey,
				       uint64_t remote_offset, uint64_t size,
				       uint32_t sob_id, uint32_t sob_value);

/**
 * hpu_debug_inject_fault() - arm a fault (HPU_IOCTL_DEBUG INJECT_FAULT)
 * @dev: compute handle
 * @fault: HPU_FAULT_* (hpu-fused implements HPU_FAULT_LINK_DOWN and
 *	HPU_FAULT_ECC_ERR)
 * @engine: engine id, or the NIC port for HPU_FAULT_LINK_DOWN
 * @param: fault-specific parameter (0 for LINK_DOWN; ECC_ERR: 0 corrected,
 *	1 uncorrectable)
 *
 * Return: 0; -EINVAL; -EOPNOTSUPP for a fault kind the driver does not
 * implement; -errno.
 */
HPUDRV_EXPORT int hpu_debug_inject_fault(struct hpu_device *dev, uint32_t fault,
					 uint32_t engine, uint64_t param);

/**
 * hpu_debug_clear_faults() - disarm every fault of the device (links
 * taken down by injection come back up)
 * @dev: compute handle
 *
 * Return: 0 or -errno.
 */
HPUDRV_EXPORT int hpu_debug_clear_faults(struct hpu_device *dev);

#ifdef __cplusplus
}
#endif

#endif /* HPU_HPUDRV_NIC_H */
