// SPDX-License-Identifier: MIT
/*
 * packets.c - the packet validator: every rule at the top of
 * uapi/hpu_packets.h, applied to a private copy of a command buffer
 * before any engine sees it. A pure function: no FUSE, no device model.
 */
#include <errno.h>
#include <string.h>

#include "hpu_fused.h"
#include "hpu_packets.h"

/**
 * struct pkt_rule - what one opcode allows
 * @size: exact packet size in bytes (0: opcode unknown)
 * @flags: flag bits of its own, beside HPU_PKT_F_COMMON_MASK
 * @kind: the only queue kind it runs on (HFD_QUEUE_NONE: every queue)
 */
struct pkt_rule {
	uint16_t size;
	uint16_t flags;
	enum hfd_queue_kind kind;
};

static const struct pkt_rule pkt_rules[] = {
	[HPU_PACKET_NOP] = { .size = sizeof(struct hpu_pkt_nop) },
	[HPU_PACKET_STOP] = { .size = sizeof(struct hpu_pkt_stop) },
	[HPU_PACKET_LIN_DMA] = { .size = sizeof(struct hpu_pkt_lin_dma),
				 .flags = HPU_LIN_DMA_F_SWAP_MASK,
				 .kind = HFD_QUEUE_DMA },
	[HPU_PACKET_MEMSET] = { .size = sizeof(struct hpu_pkt_memset),
				.flags = HPU_MEMSET_F_ELEM_MASK,
				.kind = HFD_QUEUE_DMA },
	[HPU_PACKET_MSG_LONG] = { .size = sizeof(struct hpu_pkt_msg_long) },
	[HPU_PACKET_FENCE] = { .size = sizeof(struct hpu_pkt_fence) },
	[HPU_PACKET_ARM_MONITOR] = { .size = sizeof(struct hpu_pkt_arm_monitor),
				     .flags = HPU_MON_F_MASK },
	[HPU_PACKET_MME_GEMM] = { .size = sizeof(struct hpu_pkt_mme_gemm),
				  .flags = HPU_MME_F_MASK,
				  .kind = HFD_QUEUE_MME },
	[HPU_PACKET_TPC_KERNEL] = { .size = sizeof(struct hpu_pkt_tpc_kernel),
				    .kind = HFD_QUEUE_TPC },
	[HPU_PACKET_NIC_WRITE] = { .size = sizeof(struct hpu_pkt_nic_write),
				   .flags = HPU_NIC_F_MASK,
				   .kind = HFD_QUEUE_NIC },
};

#define NUM_RULES (sizeof(pkt_rules) / sizeof(pkt_rules[0]))

static bool sob_target_ok(uint32_t target)
{
	return target >= 1 && target <= HPU_SOB_MAX_VALUE;
}

static int check_lin_dma(const uint8_t *p)
{
	struct hpu_pkt_lin_dma pkt;

	memcpy(&pkt, p, sizeof(pkt));
	if (pkt.src_addr + pkt.size < pkt.src_addr ||
	    pkt.dst_addr + pkt.size < pkt.dst_addr)
		return -EINVAL;
	/* a swapping copy reads each element before it writes it */
	if ((pkt.hdr.flags & HPU_LIN_DMA_F_SWAP_MASK) && pkt.size &&
	    pkt.src_addr < pkt.dst_addr + pkt.size &&
	    pkt.dst_addr < pkt.src_addr + pkt.size)
		return -EINVAL;
	return 0;
}

static int check_memset(const uint8_t *p)
{
	struct hpu_pkt_memset pkt;
	uint64_t width;

	memcpy(&pkt, p, sizeof(pkt));
	width = 1ULL << ((pkt.hdr.flags & HPU_MEMSET_F_ELEM_MASK) >> 8);
	if (pkt.dst_addr % width || pkt.size % width ||
	    pkt.dst_addr + pkt.size < pkt.dst_addr)
		return -EINVAL;
	return 0;
}

static int check_msg_long(const uint8_t *p)
{
	struct hpu_pkt_msg_long pkt;

	memcpy(&pkt, p, sizeof(pkt));
	if (pkt.sob_id >= HPU_NUM_SOBS || pkt.reserved ||
	    pkt.op > HPU_MSG_OP_LONG_ADD || pkt.value > HPU_SOB_MAX_VALUE)
		return -EINVAL;
	/* a long SOB is four user SOBs */
	if ((pkt.op == HPU_MSG_OP_LONG_SET || pkt.op == HPU_MSG_OP_LONG_ADD) &&
	    pkt.sob_id > HPU_NUM_SOBS - 4)
		return -EINVAL;
	return 0;
}

static int check_fence(const uint8_t *p)
{
	struct hpu_pkt_fence pkt;

	memcpy(&pkt, p, sizeof(pkt));
	if (pkt.sob_id >= HPU_NUM_SOBS || pkt.reserved ||
	    !sob_target_ok(pkt.target) || pkt.dec > pkt.target)
		return -EINVAL;
	return 0;
}

static int check_arm_monitor(const uint8_t *p)
{
	struct hpu_pkt_arm_monitor pkt;

	uint16_t to_sob;
	uint64_t target;

	memcpy(&pkt, p, sizeof(pkt));
	to_sob = pkt.hdr.flags & (HPU_MON_F_SOB_ADD | HPU_MON_F_SOB_SET);
	if (pkt.mon_id >= HPU_NUM_MONITORS || pkt.sob_id >= HPU_NUM_SOBS ||
	    to_sob == (HPU_MON_F_SOB_ADD | HPU_MON_F_SOB_SET))
		return -EINVAL;
	if (pkt.hdr.flags & HPU_MON_F_LONG) {
		/* four user SOBs, a 60-bit target */
		target = pkt.target | pkt.target_hi << 32;
		if (pkt.sob_id > HPU_NUM_SOBS - 4 ||
		    pkt.target_hi > HPU_SOB_LONG_MAX >> 32 ||
		    (!(pkt.hdr.flags & HPU_MON_F_EQUAL) && !target))
			return -EINVAL;
	} else if (pkt.target_hi || (pkt.hdr.flags & HPU_MON_F_EQUAL ?
					     pkt.target > HPU_SOB_MAX_VALUE :
					     !sob_target_ok(pkt.target))) {
		return -EINVAL;
	}
	/* the payload goes to a user SOB, or to a 4-byte aligned address */
	if (to_sob) {
		if (pkt.payload_addr >= HPU_NUM_SOBS ||
		    pkt.payload > HPU_SOB_MAX_VALUE)
			return -EINVAL;
	} else if (pkt.payload_addr % 4) {
		return -EINVAL;
	}
	return 0;
}

/**
 * hfd_check_nic_write() - check a NIC_WRITE packet's fields
 * @p: the packet (its header was checked already)
 *
 * With HPU_NIC_F_SIGNAL the sync object is a user one and the value
 * 1..HPU_SOB_MAX_VALUE; without it both are 0 and @size is not 0 (a
 * packet that moves nothing and signals nothing is a mistake). Neither
 * range may wrap; connection and key are never 0; @pad is 0.
 *
 * Return: 0 or -EINVAL.
 */
int hfd_check_nic_write(const uint8_t *p)
{
	struct hpu_pkt_nic_write pkt;

	memcpy(&pkt, p, sizeof(pkt));
	if (pkt.hdr.flags & HPU_NIC_F_SIGNAL) {
		if (pkt.sob_id >= HPU_NUM_SOBS || !sob_target_ok(pkt.sob_value))
			return -EINVAL;
	} else if (!pkt.size || pkt.sob_id || pkt.sob_value) {
		return -EINVAL;
	}
	if (pkt.src_addr + pkt.size < pkt.src_addr ||
	    pkt.remote_offset + pkt.size < pkt.remote_offset)
		return -EINVAL;
	if (!pkt.conn || !pkt.rkey || pkt.pad)
		return -EINVAL;
	return 0;
}

static int check_packet(uint16_t opcode, const uint8_t *p)
{
	switch (opcode) {
	case HPU_PACKET_LIN_DMA:
		return check_lin_dma(p);
	case HPU_PACKET_MEMSET:
		return check_memset(p);
	case HPU_PACKET_MSG_LONG:
		return check_msg_long(p);
	case HPU_PACKET_FENCE:
		return check_fence(p);
	case HPU_PACKET_ARM_MONITOR:
		return check_arm_monitor(p);
	case HPU_PACKET_MME_GEMM:
		return hfd_check_mme_gemm(p);
	case HPU_PACKET_TPC_KERNEL:
		return hfd_check_tpc_kernel(p);
	case HPU_PACKET_NIC_WRITE:
		return hfd_check_nic_write(p);
	default:
		return 0;
	}
}

/**
 * hfd_queue_kind() - which engine a hardware queue feeds
 * @profile: chip profile
 * @queue: queue index
 *
 * Queues are numbered like the engines: DMA, then MME, TPC, NIC.
 *
 * Return: enum hfd_queue_kind, or HFD_QUEUE_NONE when out of range.
 */
enum hfd_queue_kind hfd_queue_kind(const struct hpu_fw_profile *profile,
				   uint32_t queue)
{
	if (queue >= profile->num_queues)
		return HFD_QUEUE_NONE;
	if (queue < profile->num_dma)
		return HFD_QUEUE_DMA;
	queue -= profile->num_dma;
	if (queue < profile->num_mme)
		return HFD_QUEUE_MME;
	queue -= profile->num_mme;
	if (queue < profile->num_tpc)
		return HFD_QUEUE_TPC;
	return HFD_QUEUE_NIC;
}

/**
 * hfd_packets_validate() - check every packet of a command buffer
 * @cb: the bytes (a private copy; the caller runs exactly these)
 * @size: bytes at @cb
 * @kind: enum hfd_queue_kind of the queue that will run them
 * @bad_off: receives the offset of the first bad packet (may be NULL)
 *
 * Packets after a STOP are validated too.
 *
 * Return: 0, or -EINVAL at the first packet that breaks a rule (unknown
 * or engine opcode, size other than the opcode's, unknown flag bits,
 * non-zero reserved fields, ids or values out of range, a packet not
 * allowed on @kind, a packet running past @size).
 */
int hfd_packets_validate(const void *cb, size_t size, enum hfd_queue_kind kind,
			 size_t *bad_off)
{
	const uint8_t *base = cb;
	struct hpu_pkt_hdr hdr;
	const struct pkt_rule *rule;
	size_t off = 0;
	int ret = 0;

	if (!size || size % 8 || kind == HFD_QUEUE_NONE)
		ret = -EINVAL;
	while (!ret && off < size) {
		if (size - off < sizeof(hdr)) {
			ret = -EINVAL;
			break;
		}
		memcpy(&hdr, base + off, sizeof(hdr));
		rule = hdr.opcode < NUM_RULES ? &pkt_rules[hdr.opcode] : NULL;
		if (!rule || !rule->size || hdr.size != rule->size ||
		    hdr.size > size - off || hdr.reserved ||
		    (hdr.flags & ~(HPU_PKT_F_COMMON_MASK | rule->flags)) ||
		    (rule->kind != HFD_QUEUE_NONE && kind != rule->kind)) {
			ret = -EINVAL;
			break;
		}
		ret = check_packet(hdr.opcode, base + off);
		if (!ret)
			off += hdr.size;
	}
	if (bad_off)
		*bad_off = off;
	return ret;
}
