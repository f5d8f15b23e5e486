// SPDX-License-Identifier: MIT
/*
 * hl_sync.c - the Gaudi2 sync manager of the habanalabs personality
 * (docs/habanalabs.md, "Sync manager"), as a translation of register
 * writes to the hpu sync packets. A pure function of the CB and the
 * context's struct hfd_hl_sync: no FUSE, no model.
 *
 *	SOB_OBJ_n write (SET / ADD)    -> hpu MSG_LONG on SOB n's hpu SOB
 *	    with the long bit          -> the long op on SOBs n..n+3
 *	MON_PAY_ADDRL/H, DATA, CONFIG  -> remembered (nothing runs)
 *	MON_ARM_m+1..m+3 of a long m   -> remembered (the target's bits
 *	                                  15..59)
 *	GLBL CQ_BASE_ADDR, SIZE_LOG2,  -> remembered (struct hfd_hl_cq)
 *	LBW_ADDR, LBW_DATA, INC_MODE
 *	MON_ARM_m write                -> hpu ARM_MONITOR m (and m+1 for a
 *	                                  second payload, from monitor
 *	                                  m+1's payload registers), long
 *	                                  with MON_CONFIG's long bit: each
 *	                                  payload
 *	    to a QMAN fence counter    -> HPU_MON_F_SOB_ADD on its SOB
 *	    to a SOB (ADD / SET)       -> HPU_MON_F_SOB_ADD / _SOB_SET
 *	    to memory                  -> a write of the payload
 *	    to a CQ (CQ_EN, LBW_EN)    -> HPU_MON_F_SOB_ADD 1 / _SOB_SET on
 *	                                  the CQ's counting SOB (hl_irq.c
 *	                                  turns it into the counter and the
 *	                                  user interrupt)
 *	QMAN CP_FENCEf_RDATA_c write   -> hpu MSG_LONG ADD on its SOB
 *	QMAN arbitration registers     -> nothing (streams are served
 *	                                  round robin by the model)
 *	FENCE id, target, dec          -> hpu FENCE on the stream's counter
 *	ARB_POINT                      -> nothing
 *
 * Gaudi2 SOBs 0..HL_SYNC_NUM_SOBS-1 are the hpu SOBs of the same number;
 * a higher one (hl-thunk's long monitors write a dummy payload to SOB
 * 8184) gets an hpu SOB of the pool the fence counters use, on first use.
 * A long SOB is four SOBs below HL_SYNC_NUM_SOBS.
 *
 * Every other register, an id beyond the model's, a value with bits the
 * model does not serve (LBW without a CQ, more than two payloads, the long high
 * group, masks of more than one SOB) is a bad packet: the CS ends
 * ABORTED with nothing run.
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
#define CFG_LONG       (1U << 0)
#define CFG_CQ_EN      (1U << 4)
#define CFG_WR_NUM(v)  (((v) >> 5) & 3U)
#define CFG_LBW_EN     (1U << 8)
#define CFG_MSB_SID(v) (((v) >> 16) & 0xFU)
#define CFG_SERVED \
	(CFG_LONG | CFG_CQ_EN | (3U << 5) | CFG_LBW_EN | (0xFU << 16))
/* payloads a monitor may send here (MON_CONFIG payloads - 1 of 0 or 1) */
#define MON_MAX_PAYLOADS 2U
/* the pool keys of the Gaudi2 SOBs above HL_SYNC_NUM_SOBS (fence_sob()) */
#define SOB_KEY_BASE	 0x2000
/* the pool keys of the CQs' counting SOBs (after every SOB key) */
#define CQ_KEY_BASE	 (SOB_KEY_BASE + HL_SM_NUM_SOBS)

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

	if (s) {
		pthread_mutex_init(&s->lock, NULL);
		pthread_mutex_init(&s->irq_lock, NULL);
	}
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
	pthread_mutex_destroy(&s->irq_lock);
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
	pthread_mutex_lock(&s->irq_lock);
	memset(s->cqs, 0, sizeof(s->cqs));
	s->cq_bound = 0;
	pthread_mutex_unlock(&s->irq_lock);
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

/* The hpu SOB of fence counter (or high SOB) @key, given one on first
 * use; -ENOSPC */
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

/* The hpu SOB of Gaudi2 SOB @n (a high one from the pool), or -EINVAL */
static int hpu_sob(struct hfd_hl_sync *s, uint32_t n)
{
	int sob;

	if (n < HL_SYNC_NUM_SOBS)
		return (int)n;
	if (n >= HL_SM_NUM_SOBS)
		return -EINVAL;
	sob = fence_sob(s, (int)(SOB_KEY_BASE + n));
	return sob < 0 ? -EINVAL : sob;
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

/*
 * A SOB write (so_upd format) to SOB @n: SET or ADD of 15 bits; with the
 * long bit, of the long SOB n..n+3 (a SET zeroes the three upper ones).
 * -EINVAL for what is not served
 */
static int sob_write(struct hfd_hl_sync *s, uint32_t n, uint32_t v,
		     uint16_t flags, uint8_t *out, size_t *len)
{
	bool add = v & SOB_MODE_ADD;
	int sob;

	if (v & ~(SOB_VALUE_MASK | SOB_MODE_ADD | SOB_LONG))
		return -EINVAL; /* te, reserved */
	if (v & SOB_LONG) {
		if (n > HL_SYNC_NUM_SOBS - 4)
			return -EINVAL;
		*len = put_msg_long(out, flags, n,
				    add ? HPU_MSG_OP_LONG_ADD :
					  HPU_MSG_OP_LONG_SET,
				    v & SOB_VALUE_MASK);
		return 0;
	}
	sob = hpu_sob(s, n);
	if (sob < 0)
		return sob;
	*len = put_msg_long(out, flags, (uint32_t)sob,
			    add ? HPU_MSG_OP_ADD : HPU_MSG_OP_SET,
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

/*
 * Where monitor @mon's payload goes, into @a: memory (the SRAM window
 * moved), a QMAN fence counter or a SOB (ADD or SET); -EINVAL for any
 * other register, a payload a SOB cannot take, no counter left
 */
static int mon_payload(const struct hfd_hl_xlate *x,
		       const struct hfd_hl_mon *mon,
		       struct hpu_pkt_arm_monitor *a)
{
	uint64_t addr = (uint64_t)mon->addr_hi << 32 | mon->addr_lo;
	uint64_t off = addr - HL_CFG_BASE - HL_SM_SOB_OBJ_0;
	int sob, key;

	a->payload = mon->data;
	if (!hfd_hl_sync_is_reg(addr)) {
		if (addr % 4)
			return -EINVAL;
		a->payload_addr = hfd_hl_sram_xlate(x, addr, 4);
		return 0;
	}
	key = fence_reg_key((uint32_t)(addr - HL_CFG_BASE));
	if (key >= 0) {
		sob = fence_sob(x->sync, key);
		if (sob < 0 || mon->data > HPU_SOB_MAX_VALUE)
			return -EINVAL;
		a->hdr.flags |= HPU_MON_F_SOB_ADD;
		a->payload_addr = (uint64_t)sob;
		return 0;
	}
	/* a SOB, set or incremented by the payload (no long write) */
	if (off >= 4ULL * HL_SM_NUM_SOBS || off % 4 ||
	    (mon->data & ~(SOB_VALUE_MASK | SOB_MODE_ADD)))
		return -EINVAL;
	sob = hpu_sob(x->sync, (uint32_t)(off / 4));
	if (sob < 0)
		return sob;
	a->hdr.flags |= mon->data & SOB_MODE_ADD ? HPU_MON_F_SOB_ADD :
						   HPU_MON_F_SOB_SET;
	a->payload_addr = (uint64_t)sob;
	a->payload = mon->data & SOB_VALUE_MASK;
	return 0;
}

/*
 * A monitor with CQ_EN: its payload goes to the CQ its MON_PAY_ADDRL
 * names, whose counter is an hpu SOB of the pool (+1 per write in inc
 * mode 1, the payload in inc mode 0), and the CQ is bound to it so that
 * the interrupt path (hl_irq.c) writes the counter and raises the CQ's
 * interrupt. The CQ must be set up: its LBW write to the MSI-X doorbell
 * with a user interrupt id, an 8-byte aligned counter. -EINVAL otherwise
 */
static int mon_cq_payload(const struct hfd_hl_xlate *x,
			  const struct hfd_hl_mon *mon,
			  struct hpu_pkt_arm_monitor *a)
{
	struct hfd_hl_sync *s = x->sync;
	struct hfd_hl_cq *cq;
	uint32_t c = mon->addr_lo;
	int sob, ret = -EINVAL;

	if (!(mon->config & CFG_LBW_EN) || mon->addr_hi || c >= HL_SYNC_NUM_CQS)
		return -EINVAL;
	sob = fence_sob(s, (int)(CQ_KEY_BASE + c));
	if (sob < 0)
		return -EINVAL;
	pthread_mutex_lock(&s->irq_lock);
	cq = &s->cqs[c];
	if (cq->lbw != HL_PCIE_MSIX_DB ||
	    cq->lbw_data - HL_USER_IRQ_FIRST >= HL_USER_IRQ_NUM || !cq->base ||
	    cq->base % 8 || (!cq->inc_mode && mon->data > HPU_SOB_MAX_VALUE))
		goto out;
	a->payload_addr = (uint64_t)sob;
	if (cq->inc_mode) {
		a->hdr.flags |= HPU_MON_F_SOB_ADD;
		a->payload = 1;
	} else {
		a->hdr.flags |= HPU_MON_F_SOB_SET;
		a->payload = mon->data;
	}
	cq->sob = (uint32_t)sob;
	__atomic_fetch_or(&s->cq_bound, 1ULL << c, __ATOMIC_RELEASE);
	ret = 0;
out:
	pthread_mutex_unlock(&s->irq_lock);
	return ret;
}

/* A write to one of DCORE0's CQ registers, [CQ_BASE_ADDR_L_0, + 9 arrays) */
static int cq_write(struct hfd_hl_sync *s, uint32_t off, uint32_t value)
{
	uint32_t reg = (off - HL_SM_CQ_BASE_ADDR_L_0) / (4 * HL_SYNC_NUM_CQS);
	struct hfd_hl_cq *cq;
	int ret = 0;

	pthread_mutex_lock(&s->irq_lock);
	cq = &s->cqs[(off - HL_SM_CQ_BASE_ADDR_L_0) / 4 % HL_SYNC_NUM_CQS];
	switch (reg) {
	case 0:
		cq->base = (cq->base & ~0xFFFFFFFFULL) | value;
		break;
	case 1:
		cq->base = (cq->base & 0xFFFFFFFFULL) | (uint64_t)value << 32;
		break;
	case 2:
		cq->size_log2 = value;
		break;
	case 5:
		cq->lbw = (cq->lbw & ~0xFFFFFFFFULL) | value;
		break;
	case 6:
		cq->lbw = (cq->lbw & 0xFFFFFFFFULL) | (uint64_t)value << 32;
		break;
	case 7:
		cq->lbw_data = value;
		break;
	case 8:
		if (value > 1)
			ret = -EINVAL;
		else
			cq->inc_mode = value;
		break;
	default: /* PI, LBW size and the rest: not modelled */
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&s->irq_lock);
	return ret;
}

/* Whether monitor @m is one of the three after a long monitor, whose
 * MON_ARM registers hold the long target's upper bits */
static bool long_slave(const struct hfd_hl_sync *s, uint32_t m)
{
	uint32_t j;

	if (s->mons[m].config & CFG_LONG)
		return false;
	for (j = 1; j <= 3 && j <= m; j++)
		if (s->mons[m - j].config & CFG_LONG)
			return true;
	return false;
}

/*
 * MON_ARM_m: the monitor's registers become one hpu ARM_MONITOR per
 * payload (monitor m + i sends payload i, from monitor m + i's payload
 * registers), each watching the same SOB (a long one: SOBs n..n+3 against
 * the 60 bits of MON_ARM m..m+3's values)
 */
static int mon_arm(const struct hfd_hl_xlate *x, uint32_t m, uint32_t arm,
		   uint16_t flags, uint8_t *out, size_t *len)
{
	const struct hfd_hl_sync *s = x->sync;
	uint32_t config = s->mons[m].config, npay, i;
	struct hpu_pkt_arm_monitor a;
	uint64_t target = ARM_VALUE(arm);
	bool is_long = config & CFG_LONG;
	int sob, ret;

	npay = CFG_WR_NUM(config) + 1;
	sob = arm_sob(arm, config);
	if (sob < 0 || (config & ~CFG_SERVED) || npay > MON_MAX_PAYLOADS ||
	    m + (is_long ? 4 : npay) > HPU_NUM_MONITORS)
		return -EINVAL; /* more payloads, past the model */
	if ((config & CFG_LBW_EN) && !(config & CFG_CQ_EN))
		return -EINVAL; /* an LBW write without a CQ */
	if ((config & CFG_CQ_EN) && (is_long || npay > 1))
		return -EINVAL;
	if (is_long) {
		if ((uint32_t)sob > HL_SYNC_NUM_SOBS - 4)
			return -EINVAL;
		for (i = 1; i < 4; i++)
			target |= (uint64_t)ARM_VALUE(s->mons[m + i].arm)
				  << (HPU_SOB_LONG_BITS * i);
	} else {
		sob = hpu_sob(x->sync, (uint32_t)sob);
		if (sob < 0)
			return sob;
	}
	if (!(arm & ARM_EQUAL) && !target)
		return -EINVAL; /* >= 0: the model has no always-true monitor */
	for (i = 0; i < npay; i++) {
		memset(&a, 0, sizeof(a));
		a.hdr.opcode = HPU_PACKET_ARM_MONITOR;
		a.hdr.size = sizeof(a);
		a.hdr.flags = flags | (arm & ARM_EQUAL ? HPU_MON_F_EQUAL : 0) |
			      (is_long ? HPU_MON_F_LONG : 0);
		a.mon_id = m + i;
		a.sob_id = (uint32_t)sob;
		a.target = (uint32_t)target;
		a.target_hi = target >> 32;
		if (config & CFG_CQ_EN)
			ret = mon_cq_payload(x, &s->mons[m + i], &a);
		else
			ret = mon_payload(x, &s->mons[m + i], &a);
		if (ret)
			return ret;
		memcpy(out + i * sizeof(a), &a, sizeof(a));
	}
	*len = npay * sizeof(a);
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
		mon->arm = value;
		if (long_slave(x->sync, m))
			return 0; /* a long target's upper bits */
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
		return sob_write(x->sync, (off - HL_SM_SOB_OBJ_0) / 4, value,
				 flags, out, len);
	if (off - HL_SM_MON_PAY_ADDRL_0 <
	    HL_SM_MON_STATUS_0 - HL_SM_MON_PAY_ADDRL_0)
		return mon_write(x, off, value, flags, out, len);
	if (off - HL_SM_CQ_BASE_ADDR_L_0 <
	    HL_SM_CQ_INC_MODE_0 + 4 * HL_SYNC_NUM_CQS - HL_SM_CQ_BASE_ADDR_L_0)
		return cq_write(x->sync, off, value);
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
