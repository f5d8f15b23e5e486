/* SPDX-License-Identifier: MIT */
/*
 * hl_sync.h - the Gaudi2 sync manager of the habanalabs personality
 * (docs/habanalabs.md, "Sync manager"): sync objects, monitors and the
 * QMAN fence counters at their real register addresses, reached by
 * MSG_SHORT, MSG_LONG and FENCE, translated to the hpu sync objects and
 * monitors of the context's address space (uapi/hpu_packets.h).
 *
 * The register facts are Gaudi2's (the public asic_reg headers'
 * addresses, as offsets from CFG_BASE).
 */
#ifndef HL_SYNC_H
#define HL_SYNC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hpu_packets.h"

struct hfd_hl_xlate;

/* The configuration space of a Gaudi2 (CFG_BASE, 128 MiB) */
#define HL_CFG_BASE 0x1000007FF8000000ULL
#define HL_CFG_SIZE 0x8000000ULL

/* DCORE0's sync manager objects (offsets from CFG_BASE) */
#define HL_SM_SOB_OBJ_0	      0x4100000U /* 8192 SOBs */
#define HL_SM_MON_PAY_ADDRL_0 0x4108000U /* 2048 monitors each */
#define HL_SM_MON_PAY_ADDRH_0 0x410A000U
#define HL_SM_MON_PAY_DATA_0  0x410C000U
#define HL_SM_MON_ARM_0	      0x410E000U
#define HL_SM_MON_CONFIG_0    0x4110000U
#define HL_SM_MON_STATUS_0    0x4112000U
#define HL_SM_NUM_SOBS	      8192U
#define HL_SM_NUM_MONS	      2048U

/* DCORE0's completion queues: one register of each array per CQ */
#define HL_SM_CQ_BASE_ADDR_L_0 0x411E050U
#define HL_SM_CQ_BASE_ADDR_H_0 0x411E150U
#define HL_SM_CQ_SIZE_LOG2_0   0x411E250U
#define HL_SM_LBW_ADDR_L_0     0x411E550U
#define HL_SM_LBW_ADDR_H_0     0x411E650U
#define HL_SM_LBW_DATA_0       0x411E750U
#define HL_SM_CQ_INC_MODE_0    0x411E850U
#define HL_SYNC_NUM_CQS	       64U
/* The MSI-X doorbell a CQ's LBW write must go to (its data: the id) */
#define HL_PCIE_MSIX_DB	       0x1000007FFCC17000ULL
/* User interrupts: ids [FIRST, FIRST + NUM) (HW_IP_INFO) */
#define HL_USER_IRQ_FIRST      0U
#define HL_USER_IRQ_NUM	       256U

/* MSG_SHORT bases, as the driver programs the QMANs' CP_MSG_BASE */
#define HL_MSG_SHORT_BASE_MON 0 /* MON_PAY_ADDRL_0 */
#define HL_MSG_SHORT_BASE_SOB 1 /* SOB_OBJ_0 */

/* A QMAN's registers, from its block's base */
#define HL_QM_CP_FENCE0_RDATA_0 0x290U /* FENCE f, CP c: + 4 * (5f + c) */
#define HL_QM_NUM_CPS		5      /* 4 streams, then the lower CP */
#define HL_QM_NUM_FENCES	4
#define HL_QM_ARB_CFG_0		0x4A4U
#define HL_QM_ARB_WRR_WEIGHT_0	0x4ACU /* 4 registers */
#define HL_QM_ARB_MST_QUIET_PER 0x718U
/* QMANs whose fences are modelled: PDMA, EDMA, MME, TPC (queue id / 4) */
#define HL_SYNC_NUM_QMANS	39U

/*
 * How the model's sync objects are shared out: Gaudi2 SOBs
 * 0..HL_SYNC_NUM_SOBS-1 are hpu SOBs of the same number; the fence
 * counters a context uses, and the Gaudi2 SOBs above HL_SYNC_NUM_SOBS
 * it writes or watches, get the hpu SOBs above, one each, on first use.
 * Monitors 0..HPU_NUM_MONITORS-1 are hpu monitors of the same number.
 * Anything beyond is a bad packet.
 */
#define HL_SYNC_NUM_SOBS   256U
#define HL_SYNC_NUM_FENCES 256U /* hpu SOBs 256..511 */
_Static_assert(HL_SYNC_NUM_SOBS + HL_SYNC_NUM_FENCES <= HPU_NUM_SOBS,
	       "the Gaudi2 SOBs and the fence counters are hpu SOBs");

/**
 * struct hfd_hl_mon - what a CB wrote to a monitor's registers so far
 * @addr_lo: MON_PAY_ADDRL
 * @addr_hi: MON_PAY_ADDRH
 * @data: MON_PAY_DATA
 * @config: MON_CONFIG
 * @arm: MON_ARM (a long monitor's three next ones: its target's upper
 *	bits)
 */
struct hfd_hl_mon {
	uint32_t addr_lo;
	uint32_t addr_hi;
	uint32_t data;
	uint32_t config;
	uint32_t arm;
};

/**
 * struct hfd_hl_cq - a completion queue's registers, and what the
 * interrupt path made of them
 * @base: CQ_BASE_ADDR (H << 32 | L): the device VA of its counter
 * @lbw: LBW_ADDR (H << 32 | L)
 * @lbw_data: LBW_DATA (the user interrupt id)
 * @size_log2: CQ_SIZE_LOG2
 * @inc_mode: CQ_INC_MODE (0: the payload is written; 1: +1 per write)
 * @sob: the hpu SOB that counts it (a monitor was armed on it), or 0
 * @seen: that SOB's value the counter in memory last got
 */
struct hfd_hl_cq {
	uint64_t base;
	uint64_t lbw;
	uint32_t lbw_data;
	uint32_t size_log2;
	uint32_t inc_mode;
	uint32_t sob;
	uint32_t seen;
};

/**
 * struct hfd_hl_sync - a context's sync-manager state of the translation
 * @lock: held while a CS is translated (hfd_hl_sync_lock())
 * @mons: monitor registers, as written in submission order
 * @fence_key: per pool SOB, its QMAN, CP and fence, or 0x2000 + its
 *	Gaudi2 SOB id (+1; 0 free)
 * @resets: the device's resets when this state was last checked: a reset
 *	clears the model's SOBs and monitors, and so this state
 * @irq_lock: guards @cqs and @cq_bound (taken inside @lock, and by the
 *	interrupt path at a CS's end without @lock)
 * @cqs: DCORE0's completion queues (user interrupts, hl_irq.c)
 * @cq_bound: bit n: CQ n has a SOB (hfd_hl_cq.sob)
 */
struct hfd_hl_sync {
	pthread_mutex_t lock;
	uint32_t resets;
	struct hfd_hl_mon mons[HPU_NUM_MONITORS];
	uint16_t fence_key[HL_SYNC_NUM_FENCES];
	pthread_mutex_t irq_lock;
	struct hfd_hl_cq cqs[HL_SYNC_NUM_CQS];
	uint64_t cq_bound;
};

struct hfd_hl_sync *hfd_hl_sync_new(void);
void hfd_hl_sync_free(struct hfd_hl_sync *s);
void hfd_hl_sync_reset(struct hfd_hl_sync *s, uint32_t resets);

bool hfd_hl_sync_is_reg(uint64_t addr);
int hfd_hl_sync_reg_write(const struct hfd_hl_xlate *x, uint64_t addr,
			  uint32_t value, uint16_t flags, uint8_t *out,
			  size_t *len);
int hfd_hl_sync_msg_short(const uint8_t *p, const struct hfd_hl_xlate *x,
			  uint8_t *out, size_t *len);
int hfd_hl_sync_fence(const uint8_t *p, const struct hfd_hl_xlate *x,
		      uint8_t *out, size_t *len);
int hfd_hl_sync_arb_point(const uint8_t *p, size_t *len);

#endif /* HL_SYNC_H */
