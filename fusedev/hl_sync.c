// SPDX-License-Identifier: MIT
/*
 * hl_sync.c - the Gaudi2 sync manager of the habanalabs personality
 * (docs/habanalabs.md, "Sync manager"), as a translation of register
 * writes to the hpu sync packets. A pure function of the CB and the
 * context's struct hfd_hl_sync: no FUSE, no model.
 *
 *	SOB_OBJ_n write (SET / ADD)    -> hpu MSG_LONG on SOB n
 *	MON_PAY_ADDRL/H, DATA, CONFIG  -> remembered (nothing runs)
 *	MON_ARM_m write                -> hpu ARM_MONITOR m: the payload
 *	    to a QMAN fence counter    -> HPU_MON_F_SOB_ADD on its SOB
 *	    to a SOB (ADD)             -> HPU_MON_F_SOB_ADD on that SOB
 *	    to memory                  -> a write of the payload
 *	QMAN CP_FENCEf_RDATA_c write   -> hpu MSG_LONG ADD on its SOB
 *	QMAN arbitration registers     -> nothing (streams are served
 *	                                  round robin by the model)
 *	FENCE id, target, dec          -> hpu FENCE on the stream's counter
 *	ARB_POINT                      -> nothing
 *
 * Every other register, an id beyond the model's, a value with bits the
 * model does not serve (long SOBs, CQs, several payloads, masks of more
 * than one SOB) is a bad packet: the CS ends ABORTED with nothing run.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_packets.h"

/* SOB value written by MSG_SHORT / MSG_LONG (so_upd) */
#define SOB_VALUE_MASK 0x7FFFU
#define SOB_LONG       (1U << 24)
#define SOB_TE	       (1U << 30)
#define SOB_MODE_ADD   (1U << 31)

/* MON_ARM: group 0..7, mask 8..15, mode 16 (1: equal), value 17..31 */
#define ARM_GROUP(v) ((v)&0xFFU)
#define ARM_MASK(v)  (((v) >> 8) & 0xFFU)
#define ARM_EQUAL    (1U << 16)
#define ARM_VALUE(v) ((v) >> 17)

/* MON_CONFIG: long SOB 0, CQ 4, payloads - 1 5..6, LBW 8, msb of the
 * group 16..19, long high group 31 */
#define CFG_MSB_SID(v) (((v) >> 16) & 0xFU)
#define CFG_SERVED     (0xFU << 16)

/* MSG_SHORT control word: offset 0..15, weakly ordered 16, no snoop
 * 17, dw 18, op 20..21, base 22..23 */
#define SHORT_OFFSET(c) ((c)&0xFFFFU)
#define SHORT_BASE(c)	(((c) >> 22) & 3U)
#define SHORT_SERVED                                                  \
	(0xFFFFU | (3U << 16) | (3U << 22) | HL_PKT_CTL_OPCODE_MASK | \
	 HL_PKT_CTL_EB | HL_PKT_CTL_SWTC | HL_PKT_CTL_MB)

/* FENCE cfg: dec 0..3, target 16..23, id 30..31 */
#define FENCE_DEC(v)	((v)&0xFU)
#define FENCE_TARGET(v) (((v) >> 16) & 0xFFU)
#define FENCE_ID(v)	((v) >> 30)
#define FENCE_SERVED	(0xFU | (0xFFU << 16) | (3U << 30))

/* The control word bits of FENCE and ARB_POINT beside the opcode:
 * predicate 0..4 (must be 0) and the barriers */
#define CTL_COMMON                                                  \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_SWTC | \
	 HL_PKT_CTL_MB)

/**
 * hfd_hl_sync_new() - a context's sync state, as at its creation
 *
 * Return: the state, or NULL (out of memory).
 */
struct hfd_hl_sync *hfd_hl_sync_new(void)
{
	struct hfd_hl_sync *s = calloc(1, sizeof(*s));

	if (s)
		pthread_mutex_init(&s->lock, NULL);
	return s;
}

/**
 * hfd_hl_sync_free() - drop a context's sync state
 * @s: the state, or NULL
 */
void hfd_hl_sync_free(struct hfd_hl_sync *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/**
 * hfd_hl_sync_reset() - forget the registers after a device reset
 * @s: the state (locked)
 * @resets: the device's reset count now (hard and compute)
 *
 * A reset clears the model's SOBs and monitors (firmware-sim), as the
 * device's sync manager is reset with it: the monitors' registers and
 * the fence counters' SOBs start over too. Nothing happens when @resets
 * is the count @s saw last.
 */
void hfd_hl_sync_reset(struct hfd_hl_sync *s, uint32_t resets)
{
	if (s->resets == resets)
		return;
	memset(s->mons, 0, sizeof(s->mons));
	memset(s->fence_key, 0, sizeof(s->fence_key));
	s->resets = resets;
}

/**
 * hfd_hl_sync_is_reg() - whether an address is in the configuration space
 * @addr: a packet's address
 *
 * Return: true for [HL_CFG_BASE, + HL_CFG_SIZE): a register, never memory.
 */
bool hfd_hl_sync_is_reg(uint64_t addr)
{
	return addr - HL_CFG_BASE < HL_CFG_SIZE;
}

/* The CFG offset of QMAN @qm's block (its queue ids are 4 qm .. 4 qm + 3) */
static uint32_t qm_base(uint32_t qm)
{
	uint32_t d, q;

	if (qm < 2)
		return 0x4C8A000U + qm * 0x10000U; /* PDMA_0, PDMA_1 */
	if (qm < 12) {
		d = 0;
		q = qm - 2;
	} else {
		d = 1 + (qm - 12) / 9;
		q = (qm - 12) % 9;
	}
	/* q: 0, 1 EDMA; 2 MME; 3.. TPC */
	if (q < 2)
		return 0x41CA000U + d * 0x200000U + q * 0x10000U;
	if (q == 2)
		return 0x40CA000U + d * 0x200000U;
	return 0x400A000U + d * 0x200000U + (q - 3) * 0x10000U;
}

/* The key of QMAN @qm's fence counter @fence of CP @cp (fence_sob()) */
static int fence_key(uint32_t qm, uint32_t fence, uint32_t cp)
{
	return (int)(qm << 5 | fence << 3 | cp);
}

/* The fence counter a CFG offset names: its key, or -1 */
static int fence_reg_key(uint32_t off)
{
	uint32_t qm, r;

	for (qm = 0; qm < HL_SYNC_NUM_QMANS; qm++) {
		r = off - (qm_base(qm) + HL_QM_CP_FENCE0_RDATA_0);
		if (r >= 4 * HL_QM_NUM_CPS * HL_QM_NUM_FENCES || r % 4)
			continue;
		r /= 4;
		return fence_key(qm, r / HL_QM_NUM_CPS, r % HL_QM_NUM_CPS);
	}
	return -1;
}

/* Whether a CFG offset is a QMAN arbitration register (no effect here) */
static bool arb_reg(uint32_t off)
{
	uint32_t qm, r;

	for (qm = 0; qm < HL_SYNC_NUM_QMANS; qm++) {
		r = off - qm_base(qm);
		if (r == HL_QM_ARB_CFG_0 || r == HL_QM_ARB_MST_QUIET_PER ||
		    (r >= HL_QM_ARB_WRR_WEIGHT_0 &&
		     r < HL_QM_ARB_WRR_WEIGHT_0 + 16 && !(r % 4)))
			return true;
	}
	return false;
}

/* The hpu SOB of fence counter @key, given one on first use; -ENOSPC */
static int fence_sob(struct hfd_hl_sync *s, int key)
{
	uint32_t i, k = (uint32_t)key + 1;

	for (i = 0; i < HL_SYNC_NUM_FENCES; i++) {
		if (s->fence_key[i] == k)
			return (int)(HL_SYNC_NUM_SOBS + i);
		if (!s->fence_key[i]) {
			s->fence_key[i] = (uint16_t)k;
			return (int)(HL_SYNC_NUM_SOBS + i);
		}
	}
	return -ENOSPC;
}

static size_t put_msg_long(uint8_t *out, uint16_t flags, uint32_t sob,
			   uint32_t op, uint32_t value)
{
	struct hpu_pkt_msg_long m = {
		.hdr = { .opcode = HPU_PACKET_MSG_LONG,
			 .size = sizeof(m),
			 .flags = flags },
		.sob_id = sob,
		.op = op,
		.value = value,
	};

	memcpy(out, &m, sizeof(m));
	return sizeof(m);
}

/* A SOB write (so_upd format) to SOB @n; -EINVAL for what is not served */
static int sob_write(uint32_t n, uint32_t v, uint16_t flags, uint8_t *out,
		     size_t *len)
{
	if (n >= HL_SYNC_NUM_SOBS || (v & ~(SOB_VALUE_MASK | SOB_MODE_ADD)))
		return -EINVAL; /* beyond the model, long SOB, te, reserved */
	*len = put_msg_long(out, flags, n,
			    v & SOB_MODE_ADD ? HPU_MSG_OP_ADD : HPU_MSG_OP_SET,
			    v & SOB_VALUE_MASK);
	return 0;
}

/* The SOB a MON_ARM value watches (with MON_CONFIG's msb), or -EINVAL */
static int arm_sob(uint32_t arm, uint32_t config)
{
	uint32_t clear = ~ARM_MASK(arm) & 0xFFU, bit = 0;

	/* exactly one SOB of the group: one mask bit clear */
	if (!clear || (clear & (clear - 1)))
		return -EINVAL;
	while (!(clear & (1U << bit)))
		bit++;
	return (int)(((CFG_MSB_SID(config) << 8 | ARM_GROUP(arm)) << 3) + bit);
}

/* MON_ARM_m: the monitor's registers become an hpu ARM_MONITOR */
static int mon_arm(const struct hfd_hl_xlate *x, uint32_t m, uint32_t arm,
		   uint16_t flags, uint8_t *out, size_t *len)
{
	const struct hfd_hl_mon *mon = &x->sync->mons[m];
	struct hpu_pkt_arm_monitor a;
	uint64_t addr = (uint64_t)mon->addr_hi << 32 | mon->addr_lo;
	int sob, key;

	sob = arm_sob(arm, mon->config);
	if (sob < 0 || (uint32_t)sob >= HL_SYNC_NUM_SOBS ||
	    (mon->config & ~CFG_SERVED))
		return -EINVAL; /* long SOBs, CQs, several payloads, LBW */
	memset(&a, 0, sizeof(a));
	a.hdr.opcode = HPU_PACKET_ARM_MONITOR;
	a.hdr.size = sizeof(a);
	a.hdr.flags = flags;
	a.mon_id = m;
	a.sob_id = (uint32_t)sob;
	a.target = ARM_VALUE(arm);
	if (arm & ARM_EQUAL)
		a.hdr.flags |= HPU_MON_F_EQUAL;
	else if (!a.target)
		return -EINVAL; /* >= 0: the model has no always-true monitor */
	a.payload = mon->data;
	if (!hfd_hl_sync_is_reg(addr)) {
		/* memory: the SRAM window moved as the other packets' */
		if (addr % 4)
			return -EINVAL;
		a.payload_addr = hfd_hl_sram_xlate(x, addr, 4);
	} else if ((key = fence_reg_key((uint32_t)(addr - HL_CFG_BASE))) >= 0) {
		sob = fence_sob(x->sync, key);
		if (sob < 0 || mon->data > HPU_SOB_MAX_VALUE)
			return -EINVAL;
		a.hdr.flags |= HPU_MON_F_SOB_ADD;
		a.payload_addr = (uint64_t)sob;
	} else if (addr - HL_CFG_BASE - HL_SM_SOB_OBJ_0 <
			   4ULL * HL_SYNC_NUM_SOBS &&
		   !(addr % 4) && (mon->data & SOB_MODE_ADD) &&
		   !(mon->data & ~(SOB_VALUE_MASK | SOB_MODE_ADD))) {
		/* a SOB incremented by the payload */
		a.hdr.flags |= HPU_MON_F_SOB_ADD;
		a.payload_addr = (addr - HL_CFG_BASE - HL_SM_SOB_OBJ_0) / 4;
		a.payload = mon->data & SOB_VALUE_MASK;
	} else {
		return -EINVAL;
	}
	memcpy(out, &a, sizeof(a));
	*len = sizeof(a);
	return 0;
}

/* A write to one of DCORE0's monitor registers, [ADDRL_0, STATUS_0) */
static int mon_write(const struct hfd_hl_xlate *x, uint32_t off, uint32_t value,
		     uint16_t flags, uint8_t *out, size_t *len)
{
	uint32_t reg = (off - HL_SM_MON_PAY_ADDRL_0) / (4 * HL_SM_NUM_MONS);
	uint32_t m = (off - HL_SM_MON_PAY_ADDRL_0) / 4 % HL_SM_NUM_MONS;
	struct hfd_hl_mon *mon;

	if (m >= HPU_NUM_MONITORS)
		return -EINVAL;
	mon = &x->sync->mons[m];
	*len = 0;
	switch (reg) {
	case 0:
		mon->addr_lo = value;
		return 0;
	case 1:
		mon->addr_hi = value;
		return 0;
	case 2:
		mon->data = value;
		return 0;
	case 3:
		return mon_arm(x, m, value, flags, out, len);
	default: /* 4: MON_CONFIG */
		mon->config = value;
		return 0;
	}
}

/**
 * hfd_hl_sync_reg_write() - a register write of a packet (MSG_LONG to
 * the configuration space, MSG_SHORT)
 * @x: the chunk's translation state (x->sync: the context's)
 * @addr: the register's address (hfd_hl_sync_is_reg())
 * @value: the 32-bit value
 * @flags: the hpu packet flags (barriers) of what it becomes
 * @out: receives the hpu packets (at most HFD_HL_XLATE_MAX_OUT bytes)
 * @len: receives their bytes (0: a register that only configures)
 *
 * Return: 0, or -EINVAL for a register or value the model does not
 * serve (the CS ends ABORTED), including every write without @x->sync.
 */
int hfd_hl_sync_reg_write(const struct hfd_hl_xlate *x, uint64_t addr,
			  uint32_t value, uint16_t flags, uint8_t *out,
			  size_t *len)
{
	uint32_t off = (uint32_t)(addr - HL_CFG_BASE);
	int key, sob;

	*len = 0;
	if (!x->sync || !hfd_hl_sync_is_reg(addr) || addr % 4)
		return -EINVAL;
	if (off - HL_SM_SOB_OBJ_0 < 4 * HL_SM_NUM_SOBS)
		return sob_write((off - HL_SM_SOB_OBJ_0) / 4, value, flags, out,
				 len);
	if (off - HL_SM_MON_PAY_ADDRL_0 <
	    HL_SM_MON_STATUS_0 - HL_SM_MON_PAY_ADDRL_0)
		return mon_write(x, off, value, flags, out, len);
	key = fence_reg_key(off);
	if (key >= 0) {
		sob = fence_sob(x->sync, key);
		if (sob < 0 || value > HPU_SOB_MAX_VALUE)
			return -EINVAL;
		*len = put_msg_long(out, flags, (uint32_t)sob, HPU_MSG_OP_ADD,
				    value);
		return 0;
	}
	return arb_reg(off) ? 0 : -EINVAL;
}

/**
 * hfd_hl_sync_msg_short() - MSG_SHORT: a register write relative to a
 * base (0: the monitors' MON_PAY_ADDRL_0, 1: SOB_OBJ_0)
 * @p: the packet (8 bytes)
 * @x: the chunk's translation state
 * @out: receives the hpu packets
 * @len: receives their bytes
 *
 * Return: 0, or -EINVAL (bases 2 and 3, dw or op set, or the register
 * write is refused).
 */
int hfd_hl_sync_msg_short(const uint8_t *p, const struct hfd_hl_xlate *x,
			  uint8_t *out, size_t *len)
{
	uint32_t value, ctl;
	uint64_t base;

	memcpy(&value, p, 4);
	memcpy(&ctl, p + 4, 4);
	*len = 0;
	if (ctl & ~SHORT_SERVED)
		return -EINVAL;
	switch (SHORT_BASE(ctl)) {
	case HL_MSG_SHORT_BASE_MON:
		base = HL_CFG_BASE + HL_SM_MON_PAY_ADDRL_0;
		break;
	case HL_MSG_SHORT_BASE_SOB:
		base = HL_CFG_BASE + HL_SM_SOB_OBJ_0;
		break;
	default:
		return -EINVAL;
	}
	return hfd_hl_sync_reg_write(x, base + SHORT_OFFSET(ctl), value,
				     hfd_hl_hpu_flags(ctl), out, len);
}

/**
 * hfd_hl_sync_fence() - FENCE on a fence counter of the chunk's stream
 * @p: the packet (8 bytes)
 * @x: the chunk's translation state (x->qid: its queue)
 * @out: receives an hpu FENCE (or nothing: target 0 passes at once)
 * @len: receives its bytes
 *
 * The stream waits until its counter (FENCE id) reaches the target, then
 * takes dec from it; with x->lower_cp, the counter of the QMAN's lower
 * CP (CP 4).
 *
 * Return: 0, or -EINVAL (predicate or reserved bits, a queue without
 * modelled fences, dec above the target, no counter left).
 */
int hfd_hl_sync_fence(const uint8_t *p, const struct hfd_hl_xlate *x,
		      uint8_t *out, size_t *len)
{
	struct hpu_pkt_fence f;
	uint32_t cfg, ctl, qm, cp;
	int sob;

	memcpy(&cfg, p, 4);
	memcpy(&ctl, p + 4, 4);
	*len = 0;
	qm = x->qid / HL_GAUDI2_STREAMS_PER_QMAN;
	if (!x->sync || (cfg & ~FENCE_SERVED) || (ctl & ~CTL_COMMON) ||
	    qm >= HL_SYNC_NUM_QMANS || FENCE_DEC(cfg) > FENCE_TARGET(cfg))
		return -EINVAL;
	if (!FENCE_TARGET(cfg))
		return 0; /* a counter is always >= 0, and dec is 0 */
	cp = x->lower_cp ? HL_QM_NUM_CPS - 1 :
			   x->qid % HL_GAUDI2_STREAMS_PER_QMAN;
	sob = fence_sob(x->sync, fence_key(qm, FENCE_ID(cfg), cp));
	if (sob < 0)
		return -EINVAL;
	memset(&f, 0, sizeof(f));
	f.hdr.opcode = HPU_PACKET_FENCE;
	f.hdr.size = sizeof(f);
	f.hdr.flags = hfd_hl_hpu_flags(ctl);
	f.sob_id = (uint32_t)sob;
	f.target = FENCE_TARGET(cfg);
	f.dec = FENCE_DEC(cfg);
	memcpy(out, &f, sizeof(f));
	*len = sizeof(f);
	return 0;
}

/**
 * hfd_hl_sync_arb_point() - ARB_POINT: accepted, nothing to run (the
 * model serves a QMAN's streams round robin; no priority arbitration)
 * @p: the packet (8 bytes)
 * @len: receives 0
 *
 * Return: 0, or -EINVAL for predicate or reserved bits.
 */
int hfd_hl_sync_arb_point(const uint8_t *p, size_t *len)
{
	uint32_t cfg, ctl;

	memcpy(&cfg, p, 4);
	memcpy(&ctl, p + 4, 4);
	*len = 0;
	/* priority 0..23, release 31; no predicate, no SWTC slot */
	if ((cfg & 0x7F000000U) ||
	    (ctl & ~(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_MB)))
		return -EINVAL;
	return 0;
}
