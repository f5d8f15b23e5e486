// SPDX-License-Identifier: MIT
/*
 * cb_nic.c - the NIC_WRITE emitter of the command-buffer builder; its
 * checks are the driver's (fusedev/packets.c, docs/nic.md).
 */
#include <errno.h>
#include <string.h>

#include "hpudrv_internal.h"

int hpu_cb_nic_write_key(struct hpu_cb_builder *b, uint32_t conn, uint64_t src,
			 uint64_t rkey, uint64_t remote_offset, uint64_t size,
			 uint32_t sob_id, uint32_t sob_value)
{
	struct hpu_pkt_nic_write pkt;

	if (!b || !conn || !rkey)
		return -EINVAL;
	if (src + size < src || remote_offset + size < remote_offset)
		return -EINVAL;
	if (sob_value) {
		if (sob_id >= HPU_NUM_SOBS || sob_value > HPU_SOB_MAX_VALUE)
			return -EINVAL;
	} else if (sob_id || !size) {
		return -EINVAL;
	}
	memset(&pkt, 0, sizeof(pkt));
	pkt.hdr.opcode = HPU_PACKET_NIC_WRITE;
	pkt.hdr.size = sizeof(pkt);
	pkt.hdr.flags = sob_value ? HPU_NIC_F_SIGNAL : 0;
	pkt.src_addr = src;
	pkt.remote_offset = remote_offset;
	pkt.size = size;
	pkt.conn = conn;
	pkt.rkey = rkey;
	pkt.sob_id = sob_id;
	pkt.sob_value = sob_value;
	return hpudrv_cb_append(b, &pkt, sizeof(pkt));
}

int hpu_cb_nic_write(struct hpu_cb_builder *b, uint32_t conn, uint64_t src,
		     uint32_t rkey, uint64_t remote_offset, uint64_t size,
		     uint32_t sob_id, uint32_t sob_value)
{
	return hpu_cb_nic_write_key(b, conn, src, rkey, remote_offset, size,
				    sob_id, sob_value);
}
