// SPDX-License-Identifier: MIT
/*
 * hl_qman.c - what a Gaudi2 QMAN's CPs decide while they walk a CB
 * (docs/habanalabs.md, "Predicates, scalars and CB lists"), done at
 * submission, before the translation (hl_packets.c); the lower CP (a
 * CB fetched by CP_DMA) the same, but for CB_LIST:
 *
 *	pred      the 5-bit predicate field of the packets that have one:
 *	          P0 is always true; a packet whose predicate is false is
 *	          dropped, a true one is kept with its field cleared
 *	LOAD_AND_EXE  load P1..P31 (one 32-bit word or one bit each) or the
 *	          scalar registers R0..R3 from memory, and/or execute the
 *	          packet the scalars hold (all or lower two RFs, or the
 *	          upper two): it is put in the LOAD_AND_EXE's place
 *	CB_LIST   read the 32-bit index, then the table entry it selects (a
 *	          16- or 32-byte packet); an upper-CP CP_DMA there has its
 *	          CB fetched and walked in place, any other packet is put
 *	          in place as it is
 *
 * The CP's state (predicates, scalars) is the caller's (struct
 * hfd_hl_cp: hl_cs.c keeps one per QMAN stream and one per QMAN for its
 * lower CP, per context, from CS to CS). Memory is read through the
 * CS's context only (the caller's fetch), every read counted in the
 * CS's fetch budget; the MSG_LONGs to memory that the walk already
 * passed are seen by its later reads (the last HL_QMAN_LOG of them), as
 * the QMAN sees its own writes; other writes are seen only when they
 * were done before the submission. Bounded: HFD_HL_CB_LIST_MAX CB_LISTs
 * per chunk, HFD_HL_CB_DEPTH nested CBs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hl_personality.h"
#include "hl_sync.h"

_Static_assert(sizeof(struct hl_pkt_load_and_exe) == 16, "LOAD_AND_EXE");
_Static_assert(sizeof(struct hl_pkt_cb_list) == 24, "CB_LIST");

/* MSG_LONG writes to memory a walk remembers for its own reads */
#define HL_QMAN_LOG 64

#define CTL_BARRIERS (HL_PKT_CTL_EB | HL_PKT_CTL_MB)

#define LOAD_EXE_CFG                                                 \
	(HL_LOAD_EXE_CFG_DST_SCALARS | HL_LOAD_EXE_CFG_PMAP_CONSEC | \
	 HL_LOAD_EXE_CFG_LOAD | HL_LOAD_EXE_CFG_EXE |                \
	 HL_LOAD_EXE_CFG_ETYPE_UPPER)
#define LOAD_EXE_CTL                                                \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_SWTC | \
	 HL_PKT_CTL_MB | HL_PKT_CTL_PRED_MASK)
#define CB_LIST_CTL                                               \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_MB | \
	 HL_PKT_CTL_PRED_MASK | HL_CB_LIST_CTL_SIZE_DESC)
#define UPPER_CP_DMA_CTL                                          \
	(HL_PKT_CTL_OPCODE_MASK | HL_PKT_CTL_EB | HL_PKT_CTL_MB | \
	 HL_PKT_CTL_PRED_MASK | HL_CP_DMA_CTL_UPPER_CP)

/* Bytes of the predicate buffer: one 32-bit word or one bit each */
#define PRED_BYTES_WORDS 128
#define PRED_BYTES_BITS	 4
/* A LOAD_AND_EXE source is aligned to 128 bytes */
#define LOAD_ALIGN	 128

/* Opcodes whose control word bits 0..4 are a predicate (the others'
 * are fields of their own) */
static const bool has_pred[] = {
	[HL_PACKET_WREG_32] = true,	  [HL_PACKET_WREG_BULK] = true,
	[HL_PACKET_MSG_LONG] = true,	  [HL_PACKET_CP_DMA] = true,
	[HL_PACKET_REPEAT] = true,	  [HL_PACKET_MSG_PROT] = true,
	[HL_PACKET_FENCE] = true,	  [HL_PACKET_ARB_POINT] = true,
	[HL_PACKET_CB_LIST] = true,	  [HL_PACKET_LOAD_AND_EXE] = true,
	[HL_PACKET_WREG_64_SHORT] = true, [HL_PACKET_WREG_64_LONG] = true,
};

/**
 * struct qm_walk - one chunk's walk
 * @fetch: reads the context's memory
 * @arg: for @fetch
 * @budget: bytes the CS may still fetch
 * @cp: the CP's predicates and scalars
 * @lower: the QMAN's lower CP (a CB fetched by CP_DMA): no CB_LIST
 * @log: the last MSG_LONG writes to memory, by @nlog % HL_QMAN_LOG
 * @nlog: writes seen
 * @cb_lists: CB_LISTs run
 * @o: the output (malloc'd)
 * @n: bytes at @o
 * @room: bytes allocated at @o
 */
struct qm_walk {
	hfd_hl_fetch_fn fetch;
	void *arg;
	uint32_t *budget;
	struct hfd_hl_cp *cp;
	bool lower;
	struct {
		uint64_t addr;
		uint32_t value;
	} log[HL_QMAN_LOG];
	unsigned int nlog;
	unsigned int cb_lists;
	uint8_t *o;
	size_t n;
	size_t room;
};

static uint32_t ctl_of(const uint8_t *p)
{
	uint32_t ctl;

	memcpy(&ctl, p + 4, sizeof(ctl));
	return ctl;
}

static uint32_t opcode_of(uint32_t ctl)
{
	return (ctl & HL_PKT_CTL_OPCODE_MASK) >> HL_PKT_CTL_OPCODE_SHIFT;
}

static bool pred_field(uint32_t opcode)
{
	return opcode < sizeof(has_pred) / sizeof(has_pred[0]) &&
	       has_pred[opcode];
}

/* Bytes of a packet the walk steps over (0: it stops there) */
static size_t qm_size(uint32_t opcode)
{
	if (opcode == HL_PACKET_LOAD_AND_EXE)
		return sizeof(struct hl_pkt_load_and_exe);
	if (opcode == HL_PACKET_CB_LIST)
		return sizeof(struct hl_pkt_cb_list);
	return hfd_hl_packet_size(opcode);
}

/* Append @len bytes to the output */
static int emit(struct qm_walk *w, const void *p, size_t len)
{
	uint8_t *nb;
	size_t want;

	if (len > w->room - w->n) {
		want = w->room ? w->room : 256;
		while (want - w->n < len)
			want *= 2;
		nb = realloc(w->o, want);
		if (!nb)
			return -ENOMEM;
		w->o = nb;
		w->room = want;
	}
	memcpy(w->o + w->n, p, len);
	w->n += len;
	return 0;
}

/* A NOP with the barriers of @ctl, so that they still order the work
 * around a packet that leaves nothing of its own */
static int emit_barriers(struct qm_walk *w, uint32_t ctl)
{
	struct hl_pkt_nop nop = { 0 };

	if (!(ctl & CTL_BARRIERS))
		return 0;
	nop.ctl = (HL_PACKET_NOP << HL_PKT_CTL_OPCODE_SHIFT) |
		  (ctl & CTL_BARRIERS);
	return emit(w, &nop, sizeof(nop));
}

/*
 * Read @len bytes at @va of the context, as the walk sees them: memory
 * as it was at submission, with the walk's own earlier MSG_LONG writes
 * on top (oldest first, so the newest wins).
 */
static int qm_read(struct qm_walk *w, uint64_t va, uint32_t len, void *buf)
{
	unsigned int i, first;
	uint64_t lo, hi;
	int ret;

	if (va + len < va || len > *w->budget)
		return -EINVAL;
	ret = w->fetch(w->arg, va, len, buf);
	if (ret)
		return ret;
	*w->budget -= len;
	first = w->nlog > HL_QMAN_LOG ? w->nlog - HL_QMAN_LOG : 0;
	for (i = first; i < w->nlog; i++) {
		uint64_t a = w->log[i % HL_QMAN_LOG].addr;
		uint32_t v = w->log[i % HL_QMAN_LOG].value;

		lo = a > va ? a : va;
		hi = a + 4 < va + len ? a + 4 : va + len;
		if (lo < hi)
			memcpy((uint8_t *)buf + (lo - va),
			       (uint8_t *)&v + (lo - a), hi - lo);
	}
	return 0;
}

/* Remember a MSG_LONG to memory for the walk's later reads */
static void log_msg_long(struct qm_walk *w, const uint8_t *p)
{
	struct hl_pkt_msg_long m;

	memcpy(&m, p, sizeof(m));
	if ((m.addr & 3) || m.addr > UINT64_MAX - 4 ||
	    hfd_hl_sync_is_reg(m.addr))
		return; /* the translation refuses it, or a register */
	w->log[w->nlog % HL_QMAN_LOG].addr = m.addr;
	w->log[w->nlog % HL_QMAN_LOG].value = m.value;
	w->nlog++;
}

static int step(struct qm_walk *w, const uint8_t *p, size_t size,
		unsigned int depth);
static int qman_walk(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
		     bool lower, hfd_hl_fetch_fn fetch, void *arg,
		     uint32_t *budget, uint8_t **out, size_t *out_size);
static int walk(struct qm_walk *w, const uint8_t *cb, size_t size,
		unsigned int depth);

/* LOAD_AND_EXE (its predicate true) */
static int load_and_exe(struct qm_walk *w, const uint8_t *p, unsigned int depth)
{
	struct hl_pkt_load_and_exe l;
	uint8_t buf[PRED_BYTES_WORDS], pkt[16];
	uint32_t len, word, i, op, start;
	size_t size;
	int ret;

	memcpy(&l, p, sizeof(l));
	if ((l.cfg & ~LOAD_EXE_CFG) || (l.ctl & ~LOAD_EXE_CTL))
		return -EINVAL;
	ret = emit_barriers(w, l.ctl);
	if (!ret && (l.cfg & HL_LOAD_EXE_CFG_LOAD)) {
		if (l.src_addr % LOAD_ALIGN)
			return -EINVAL;
		if (l.cfg & HL_LOAD_EXE_CFG_DST_SCALARS) {
			if (l.cfg & HL_LOAD_EXE_CFG_PMAP_CONSEC)
				return -EINVAL;
			ret = qm_read(w, l.src_addr, sizeof(w->cp->rf),
				      w->cp->rf);
		} else {
			len = l.cfg & HL_LOAD_EXE_CFG_PMAP_CONSEC ?
				      PRED_BYTES_BITS :
				      PRED_BYTES_WORDS;
			ret = qm_read(w, l.src_addr, len, buf);
			if (ret)
				return ret;
			w->cp->pred = 1; /* P0 is not loaded */
			for (i = 1; i < 32; i++) {
				if (len == PRED_BYTES_BITS)
					word = (buf[i / 8] >> (i % 8)) & 1;
				else
					memcpy(&word, buf + 4 * i, 4);
				if (word & 1)
					w->cp->pred |= 1U << i;
			}
		}
	}
	if (ret || !(l.cfg & HL_LOAD_EXE_CFG_EXE))
		return ret;
	/* the packet the scalars hold, run in this packet's place */
	start = l.cfg & HL_LOAD_EXE_CFG_ETYPE_UPPER ? 8 : 0;
	memcpy(pkt, w->cp->rf + start, sizeof(w->cp->rf) - start);
	op = opcode_of(ctl_of(pkt));
	size = qm_size(op);
	if (!size || size > sizeof(w->cp->rf) - start ||
	    op == HL_PACKET_CP_DMA || op == HL_PACKET_CB_LIST ||
	    op == HL_PACKET_LOAD_AND_EXE)
		return -EINVAL;
	return step(w, pkt, size, depth);
}

/* A CB_LIST table entry's upper-CP CP_DMA: its CB walked in place */
static int upper_cb(struct qm_walk *w, const uint8_t *p, unsigned int depth)
{
	struct hl_pkt_cp_dma c;
	uint8_t *cb;
	int ret;

	memcpy(&c, p, sizeof(c));
	if ((c.ctl & ~UPPER_CP_DMA_CTL) || c.tsize > HL_MAX_CB_SIZE ||
	    c.tsize > *w->budget)
		return -EINVAL;
	ret = emit_barriers(w, c.ctl);
	if (ret || !c.tsize)
		return ret;
	cb = malloc(c.tsize);
	if (!cb)
		return -ENOMEM;
	ret = qm_read(w, c.src_addr, c.tsize, cb);
	if (!ret)
		ret = walk(w, cb, c.tsize, depth + 1);
	free(cb);
	return ret;
}

/* CB_LIST (its predicate true) */
static int cb_list(struct qm_walk *w, const uint8_t *p, unsigned int depth)
{
	struct hl_pkt_cb_list l;
	uint8_t entry[32] = { 0 };
	uint32_t index, esize, ctl, op;
	uint64_t at;
	size_t size;
	int ret;

	memcpy(&l, p, sizeof(l));
	if (l.reserved || (l.ctl & ~CB_LIST_CTL) || (l.index_addr & 3) ||
	    ++w->cb_lists > HFD_HL_CB_LIST_MAX || depth >= HFD_HL_CB_DEPTH)
		return -EINVAL;
	ret = emit_barriers(w, l.ctl);
	if (!ret)
		ret = qm_read(w, l.index_addr, sizeof(index), &index);
	if (ret)
		return ret;
	esize = l.ctl & HL_CB_LIST_CTL_SIZE_DESC ? 32 : 16;
	at = l.table_addr + (uint64_t)index * esize;
	if (at < l.table_addr)
		return -EINVAL;
	ret = qm_read(w, at, esize, entry);
	if (ret)
		return ret;
	ctl = ctl_of(entry);
	op = opcode_of(ctl);
	size = qm_size(op);
	if (!size || size > esize || op == HL_PACKET_CB_LIST ||
	    op == HL_PACKET_LOAD_AND_EXE)
		return -EINVAL;
	if (op == HL_PACKET_CP_DMA && (ctl & HL_CP_DMA_CTL_UPPER_CP)) {
		if (!(w->cp->pred & (1U << (ctl & HL_PKT_CTL_PRED_MASK))))
			return 0;
		return upper_cb(w, entry, depth);
	}
	return step(w, entry, size, depth + 1);
}

/*
 * One packet of @size bytes (its whole size) at @p: dropped when its
 * predicate is false, else done or put out with the predicate cleared.
 */
static int step(struct qm_walk *w, const uint8_t *p, size_t size,
		unsigned int depth)
{
	uint8_t pkt[32];
	uint32_t ctl = ctl_of(p), op = opcode_of(ctl);

	if (pred_field(op)) {
		if (!(w->cp->pred & (1U << (ctl & HL_PKT_CTL_PRED_MASK))))
			return 0; /* not run */
		ctl &= ~HL_PKT_CTL_PRED_MASK;
	}
	if (op == HL_PACKET_LOAD_AND_EXE)
		return load_and_exe(w, p, depth);
	if (op == HL_PACKET_CB_LIST)
		return w->lower ? -EINVAL : cb_list(w, p, depth);
	if (op == HL_PACKET_MSG_LONG)
		log_msg_long(w, p);
	memcpy(pkt, p, size);
	memcpy(pkt + 4, &ctl, sizeof(ctl));
	return emit(w, pkt, size);
}

/*
 * Walk @size bytes of packets. At a packet of no known size, one
 * running past @size, or a STOP, the rest is put out as it is (the
 * translation refuses what it does not serve; after a STOP nothing
 * runs).
 */
static int walk(struct qm_walk *w, const uint8_t *cb, size_t size,
		unsigned int depth)
{
	size_t off = 0, len;
	uint32_t op;
	int ret;

	while (size - off >= 8) {
		op = opcode_of(ctl_of(cb + off));
		len = qm_size(op);
		if (!len || len > size - off || op == HL_PACKET_STOP)
			break;
		ret = step(w, cb + off, len, depth);
		if (ret)
			return ret;
		off += len;
	}
	return off < size ? emit(w, cb + off, size - off) : 0;
}

/**
 * hfd_hl_cps_init() - a context's CPs (upper and lower) as a reset
 * leaves them: only P0 set, the scalars 0
 * @c: the CPs
 * @resets: the device's resets now
 */
void hfd_hl_cps_init(struct hfd_hl_cps *c, uint32_t resets)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->resets = resets;
	for (i = 0; i < HL_GAUDI2_QUEUE_ID_SIZE; i++)
		c->cp[i].pred = 1;
	for (i = 0; i < HFD_HL_NR_QMANS; i++)
		c->lower[i].pred = 1;
}

/**
 * hfd_hl_qman_needed() - whether a CB has a packet a CP's walk
 * decides (a LOAD_AND_EXE, a CB_LIST or a predicate other than P0)
 * @cb: the CB's bytes
 * @size: bytes at @cb
 *
 * Return: false when the CB runs as it is (nothing read, no CP state).
 */
bool hfd_hl_qman_needed(const uint8_t *cb, size_t size)
{
	size_t off = 0, len;
	uint32_t ctl, op;

	while (size - off >= 8) {
		ctl = ctl_of(cb + off);
		op = opcode_of(ctl);
		if (op == HL_PACKET_LOAD_AND_EXE || op == HL_PACKET_CB_LIST ||
		    (pred_field(op) && (ctl & HL_PKT_CTL_PRED_MASK)))
			return true;
		len = qm_size(op);
		if (!len || len > size - off || op == HL_PACKET_STOP)
			return false;
		off += len;
	}
	return false;
}

/**
 * hfd_hl_qman_walk() - the upper CP's predicates, LOAD_AND_EXE and
 * CB_LIST of one chunk's CB, done before its translation
 * @cb: the CB's bytes
 * @size: bytes at @cb
 * @cp: the state of the chunk's upper CP (hfd_hl_cps_init()), updated by
 *	the loads
 * @fetch: reads the context's memory (host mappings, DRAM, the SRAM
 *	window)
 * @arg: for @fetch
 * @budget: bytes the CS may still fetch (shared with CP_DMA's lower
 *	CBs); lowered by what the walk reads
 * @out: NULL when @cb needs no walk (no LOAD_AND_EXE, CB_LIST or
 *	predicate: run @cb as it is), else a buffer the caller frees: the
 *	packets that run, in order, predicates cleared
 * @out_size: bytes at @out
 *
 * Return: 0; -EINVAL for a malformed LOAD_AND_EXE or CB_LIST (reserved
 * bits, a misaligned source or index, an executed or listed packet the
 * model does not run there, a table address that wraps), more than
 * HFD_HL_CB_LIST_MAX CB_LISTs or HFD_HL_CB_DEPTH nested CBs, reads
 * beyond @budget; @fetch's error (-EFAULT: not memory of the context);
 * -ENOMEM. Any error but -ENOMEM is a CB that cannot run.
 */
int hfd_hl_qman_walk(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
		     hfd_hl_fetch_fn fetch, void *arg, uint32_t *budget,
		     uint8_t **out, size_t *out_size)
{
	return qman_walk(cb, size, cp, false, fetch, arg, budget, out,
			 out_size);
}

/**
 * hfd_hl_qman_walk_lower() - hfd_hl_qman_walk() for the QMAN's lower CP:
 * a lower CB (fetched by a CP_DMA), its predicates and LOAD_AND_EXE
 * @cb: the lower CB's bytes
 * @size: bytes at @cb
 * @cp: the state of the QMAN's lower CP, updated by the loads
 * @fetch: reads the context's memory
 * @arg: for @fetch
 * @budget: bytes the CS may still fetch; lowered by what the walk reads
 * @out: as hfd_hl_qman_walk()'s
 * @out_size: bytes at @out
 *
 * Return: as hfd_hl_qman_walk(); a CB_LIST is -EINVAL (the lower CP
 * runs no table).
 */
int hfd_hl_qman_walk_lower(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
			   hfd_hl_fetch_fn fetch, void *arg, uint32_t *budget,
			   uint8_t **out, size_t *out_size)
{
	return qman_walk(cb, size, cp, true, fetch, arg, budget, out, out_size);
}

/**
 * hfd_hl_qman_lower_needed() - whether a lower CB of an expanded CB
 * needs the lower CP's walk
 * @cb: the CB with its lower CBs in place (hfd_hl_cp_dma_expand())
 * @size: bytes at @cb
 * @lower: where the lower CBs are
 *
 * Return: true when one of them has a LOAD_AND_EXE, a CB_LIST or a
 * predicate other than P0 (or @lower is not inside @cb: the walk
 * refuses it).
 */
bool hfd_hl_qman_lower_needed(const uint8_t *cb, size_t size,
			      const struct hfd_hl_lower_cbs *lower)
{
	size_t i;

	for (i = 0; i < lower->n; i++) {
		const struct hfd_hl_lower_cb *r = &lower->r[i];

		if (r->off > size || r->len > size - r->off ||
		    hfd_hl_qman_needed(cb + r->off, r->len))
			return true;
	}
	return false;
}

/* Walk one lower CB (@r of @cb) for @cp, appending; @r moves there */
static int walk_lower_one(const uint8_t *cb, struct hfd_hl_lower_cb *r,
			  struct hfd_hl_cp *cp, hfd_hl_fetch_fn fetch,
			  void *arg, uint32_t *budget, uint8_t **o, size_t *n,
			  size_t *room)
{
	size_t at = *n, len;
	uint8_t *out;
	int ret;

	ret = hfd_hl_qman_walk_lower(cb + r->off, r->len, cp, fetch, arg,
				     budget, &out, &len);
	if (ret)
		return ret;
	if (out) {
		ret = hfd_hl_put_bytes(o, n, room, out, len);
		free(out);
	} else {
		len = r->len;
		ret = hfd_hl_put_bytes(o, n, room, cb + r->off, len);
	}
	r->off = at;
	r->len = len;
	return ret;
}

/**
 * hfd_hl_qman_walk_lower_cbs() - the lower CP's walk of every lower CB
 * of an expanded CB, in order, the CB rebuilt around what runs
 * @cb: the CB with its lower CBs in place (hfd_hl_cp_dma_expand())
 * @size: bytes at @cb
 * @lower: where the lower CBs are (in order, not overlapping); on
 *	success, where they are in @out
 * @cp: the state of the QMAN's lower CP, updated by the loads
 * @fetch: reads the context's memory
 * @arg: for @fetch
 * @budget: bytes the CS may still fetch; lowered by what the walks read
 * @out: a buffer the caller frees: @cb with each lower CB replaced by
 *	what of it runs
 * @out_size: bytes at @out
 *
 * Return: 0; -EINVAL for @lower not in order inside @cb, or as
 * hfd_hl_qman_walk_lower() for a lower CB; -ENOMEM. Any error but
 * -ENOMEM is a CB that cannot run.
 */
int hfd_hl_qman_walk_lower_cbs(const uint8_t *cb, size_t size,
			       struct hfd_hl_lower_cbs *lower,
			       struct hfd_hl_cp *cp, hfd_hl_fetch_fn fetch,
			       void *arg, uint32_t *budget, uint8_t **out,
			       size_t *out_size)
{
	size_t i, pos = 0, n = 0, room = 0, end;
	uint8_t *o = NULL;
	int ret = 0;

	*out = NULL;
	*out_size = 0;
	for (i = 0; i < lower->n; i++) {
		const struct hfd_hl_lower_cb *r = &lower->r[i];

		if (r->off < pos || r->off > size || r->len > size - r->off)
			return -EINVAL;
		pos = r->off + r->len;
	}
	for (i = 0, pos = 0; i < lower->n && !ret; i++) {
		end = lower->r[i].off + lower->r[i].len;
		ret = hfd_hl_put_bytes(&o, &n, &room, cb + pos,
				       lower->r[i].off - pos);
		if (!ret)
			ret = walk_lower_one(cb, &lower->r[i], cp, fetch, arg,
					     budget, &o, &n, &room);
		pos = end;
	}
	if (!ret)
		ret = hfd_hl_put_bytes(&o, &n, &room, cb + pos, size - pos);
	if (ret) {
		free(o);
		return ret;
	}
	*out = o;
	*out_size = n;
	return 0;
}

static int qman_walk(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
		     bool lower, hfd_hl_fetch_fn fetch, void *arg,
		     uint32_t *budget, uint8_t **out, size_t *out_size)
{
	struct qm_walk *w;
	int ret;

	*out = NULL;
	*out_size = 0;
	if (!hfd_hl_qman_needed(cb, size))
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fetch = fetch;
	w->arg = arg;
	w->budget = budget;
	w->cp = cp;
	w->lower = lower;
	ret = walk(w, cb, size, 0);
	if (!ret && !w->n) {
		/* nothing runs: one NOP keeps the job */
		struct hl_pkt_nop nop = { .ctl = HL_PACKET_NOP
						 << HL_PKT_CTL_OPCODE_SHIFT };

		ret = emit(w, &nop, sizeof(nop));
	}
	if (ret) {
		free(w->o);
	} else {
		*out = w->o;
		*out_size = w->n;
	}
	free(w);
	return ret;
}
