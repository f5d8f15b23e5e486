// SPDX-License-Identifier: MIT
/*
 * hl_cs.c - CS and WAIT_CS of the habanalabs personality
 * (docs/habanalabs.md, "CS" and "WAIT_CS"): the real chunk format and
 * Gaudi2 queue ids, user CBs read from the context's host mappings, their
 * Gaudi2 packets validated and translated (hl_packets.c), then submitted,
 * numbered, timed and waited for by the hpu submission and wait paths, and
 * answered with the real driver's values and errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl_personality.h"
#include "hl_sync.h"
#include "hpu_cs.h"
#include "hpu_fused_ring.h"
#include "hpu_mem.h"

/* CS types: at most one of these (the real driver's rule) */
#define HL_CS_TYPE_FLAGS                                                       \
	(HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT | HL_CS_FLAGS_COLLECTIVE_WAIT | \
	 HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |                                    \
	 HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY |                                  \
	 HL_CS_FLAGS_ENGINE_CORE_COMMAND | HL_CS_FLAGS_ENGINES_COMMAND |       \
	 HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES)

/* What a default (execute) CS may carry */
#define HL_CS_SERVED_FLAGS                                   \
	(HL_CS_FLAGS_FORCE_RESTORE | HL_CS_FLAGS_TIMESTAMP | \
	 HL_CS_FLAGS_CUSTOM_TIMEOUT | HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT)

/* Guards the first setup of a context's SRAM mapping */
static pthread_mutex_t sram_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * hfd_hl_queue() - the hpu queue of a Gaudi2 queue id
 * @p: the device's profile
 * @qid: enum gaudi2_queue_id
 *
 * The 4 streams of a QMAN share its engine's queue (each a stream of it,
 * hfd_hl_stream_of()): PDMA_0/1 -> DMA 0/1, DCORE d's EDMA_e -> DMA 2 +
 * 2d + e, DCORE d's MME -> MME d/2 (a profile with fewer than 4 MMEs
 * has Gaudi2's master/slave pairs: DCORE0+1, DCORE2+3; with 4, MME d),
 * DCORE d's TPC_t -> TPC 6d + t (DCORE0's TPC_6 -> TPC 24), NIC_n -> NIC
 * port n: the inverse of HW_IDLE's engine map (hl_info.c).
 *
 * Return: the hpu queue, or -EINVAL: not a queue id, a QMAN whose engine
 * the profile lacks (binned), a rotator (none modelled) or the CPU queue
 * (the driver's own), as the real driver refuses them.
 */
int hfd_hl_queue(const struct hpu_fw_profile *p, uint32_t qid)
{
	uint32_t q, d, e, mme0 = p->num_dma, tpc0 = mme0 + p->num_mme;
	uint32_t nic0 = tpc0 + p->num_tpc;
	uint32_t engine;

	if (qid >= HL_GAUDI2_QUEUE_ID_ROT_0_0)
		return -EINVAL;
	if (qid >= HL_GAUDI2_QUEUE_ID_NIC_0_0) {
		engine = (qid - HL_GAUDI2_QUEUE_ID_NIC_0_0) /
			 HL_GAUDI2_STREAMS_PER_QMAN;
		return engine < p->num_nic_ports ? (int)(nic0 + engine) :
						   -EINVAL;
	}
	if (qid < HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0) {
		engine = qid / HL_GAUDI2_STREAMS_PER_QMAN;
		return engine < p->num_dma ? (int)engine : -EINVAL;
	}
	if (qid < HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0) {
		d = 0;
		q = (qid - HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0) /
		    HL_GAUDI2_STREAMS_PER_QMAN;
	} else {
		d = 1 + (qid - HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0) /
				HL_GAUDI2_DCORE_QUEUE_STRIDE;
		q = (qid - HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0) %
		    HL_GAUDI2_DCORE_QUEUE_STRIDE / HL_GAUDI2_STREAMS_PER_QMAN;
	}
	/* q: 0, 1 EDMA; 2 MME; 3.. TPC (DCORE0: 3..9, TPC_6 last) */
	if (q < 2) {
		e = 2 + 2 * d + q;
		return e < p->num_dma ? (int)e : -EINVAL;
	}
	if (q == 2) {
		if (p->num_mme < 4)
			d /= 2; /* master/slave pairs */
		return d < p->num_mme ? (int)(mme0 + d) : -EINVAL;
	}
	e = 6 * d + (q - 3);
	if (q - 3 == 6)
		e = 24; /* DCORE0 TPC_6 */
	return e < p->num_tpc ? (int)(tpc0 + e) : -EINVAL;
}

/**
 * hfd_hl_stream_of() - the model stream of a Gaudi2 queue id
 * @p: the device's profile
 * @qid: a queue id hfd_hl_queue() maps
 *
 * Return: the QMAN's stream (@qid % 4), plus 4 for the slave QMAN of an
 * MME pair (DCORE1's, DCORE3's MME when the profile pairs them): its
 * streams are the engine's 4..7.
 */
uint32_t hfd_hl_stream_of(const struct hpu_fw_profile *p, uint32_t qid)
{
	uint32_t s = qid % HL_GAUDI2_STREAMS_PER_QMAN, d, q;

	if (p->num_mme >= 4 || qid < HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0 ||
	    qid >= HL_GAUDI2_QUEUE_ID_NIC_0_0)
		return s;
	if (qid < HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0)
		return s; /* DCORE0: a master */
	d = 1 + (qid - HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0) /
			HL_GAUDI2_DCORE_QUEUE_STRIDE;
	q = (qid - HL_GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0) %
	    HL_GAUDI2_DCORE_QUEUE_STRIDE / HL_GAUDI2_STREAMS_PER_QMAN;
	return q == 2 && d % 2 ? s + HL_GAUDI2_STREAMS_PER_QMAN : s;
}

/* Hard and compute resets of @dev so far */
static uint32_t device_resets(struct hfd_device *dev)
{
	uint32_t n;

	pthread_mutex_lock(&dev->ctx_lock);
	n = dev->hard_reset_cnt + dev->soft_reset_cnt;
	pthread_mutex_unlock(&dev->ctx_lock);
	return n;
}

/* The context's sync-manager state, made on its first CS; NULL: ENOMEM */
static struct hfd_hl_sync *ctx_sync(struct hfd_ctx *ctx)
{
	struct hfd_hl_sync *s;

	pthread_mutex_lock(&sram_lock);
	if (!ctx->hl_sync) {
		ctx->hl_sync = hfd_hl_sync_new();
		if (ctx->hl_sync)
			ctx->hl_sync->resets = device_resets(ctx->dev);
	}
	s = ctx->hl_sync;
	pthread_mutex_unlock(&sram_lock);
	return s;
}

/*
 * The context's SRAM mapping: all of the device's SRAM, allocated and
 * mapped on the first CS (the window HW_IP_INFO gives is moved there by
 * the packet translation). 0 when SRAM cannot be had (an hpu context of
 * the device holds some): SRAM addresses then fault.
 */
static uint64_t ctx_sram_va(const struct hfd_ioctl_call *call)
{
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_ioctl_call hcall = *call;
	union hpu_mem_args h;
	uint64_t handle, va;

	pthread_mutex_lock(&sram_lock);
	va = ctx->hl_sram_va;
	if (va || !ctx->dev->ip.sram_size)
		goto out;
	hcall.arg = 0;
	memset(&h, 0, sizeof(h));
	h.in.op = HPU_MEM_OP_ALLOC;
	h.in.flags = HPU_MEM_SRAM;
	h.in.size = ctx->dev->ip.sram_size;
	if (hfd_ioctl_memory(&hcall, &h))
		goto out;
	handle = h.out.handle;
	memset(&h, 0, sizeof(h));
	h.in.op = HPU_MEM_OP_MAP;
	h.in.handle = handle;
	if (hfd_ioctl_memory(&hcall, &h)) {
		memset(&h, 0, sizeof(h));
		h.in.op = HPU_MEM_OP_FREE;
		h.in.handle = handle;
		hfd_ioctl_memory(&hcall, &h);
		goto out;
	}
	va = ctx->hl_sram_va = h.out.device_virt_addr;
out:
	pthread_mutex_unlock(&sram_lock);
	return va;
}

/*
 * Read @size bytes at device VA @va of the context's host mappings (a
 * user CB). Return: 0; -ENXIO when no host mapping holds the range (a CB
 * in device memory: read_dev_cb()); -EFAULT when the memory cannot be
 * read.
 */
static int read_cb(struct hfd_ctx *ctx, uint64_t va, uint32_t size, void *buf)
{
	struct hfd_mem_state *m = ctx->mem;
	struct hfd_client *c = NULL;
	struct hfd_map *mp;
	uint64_t host = 0;
	int ret;

	pthread_mutex_lock(&m->lock);
	for (mp = m->maps; mp; mp = mp->next) {
		if (!mp->client || va < mp->va ||
		    va - mp->va >= mp->host_size ||
		    size > mp->host_size - (va - mp->va))
			continue;
		c = mp->client;
		c->refs++;
		host = mp->host_addr + (va - mp->va);
		break;
	}
	pthread_mutex_unlock(&m->lock);
	if (!c)
		return -ENXIO;
	ret = hfd_client_alive(c) ?
		      hfd_copy_from_user(c->tgid, buf, host, size) :
		      -EFAULT;
	if (!ret && !hfd_client_alive(c))
		ret = -EFAULT;
	hfd_client_put(ctx, c);
	return ret;
}

/*
 * Read a user CB the context keeps in device memory (hl-thunk copies CBs
 * into SRAM or DRAM and runs them from there): @va is a device VA of the
 * context (the SRAM window moved to the context's SRAM mapping, as the
 * packets' addresses are), every byte of it HBM or SRAM mapped in the
 * context's own address space; the size is the chunk's, at most
 * HL_MAX_CB_SIZE. Return: 0; -EFAULT when a byte is not device memory of
 * the context; -ENXIO when the model cannot read device memory.
 */
static int read_dev_cb(struct hfd_ctx *ctx, const struct hfd_hl_xlate *x,
		       uint64_t va, uint32_t size, void *buf)
{
	const struct hpu_fw_ops *o = CTX_OPS(ctx);

	if (hfd_fw_if_minor_in_use(ctx->dev->model) < 7 || !o->as_read_dev)
		return -ENXIO;
	return o->as_read_dev(ctx->as, hfd_hl_sram_xlate(x, va, size), buf,
			      size);
}

/* What fetching a lower CB (CP_DMA) needs: the CS's context and window */
struct hl_fetch {
	struct hfd_ctx *ctx;
	const struct hfd_hl_xlate *x;
};

/* Read a lower CB: host mappings first, then device memory */
static int fetch_lower_cb(void *arg, uint64_t va, uint32_t len, void *buf)
{
	struct hl_fetch *f = arg;
	int ret;

	ret = read_cb(f->ctx, va, len, buf);
	if (ret == -ENXIO)
		ret = read_dev_cb(f->ctx, f->x, va, len, buf);
	return ret;
}

/**
 * struct hl_cs_build - a CS being translated
 * @chunks: the hpu chunks
 * @n: chunks
 * @bytes: their translated packets, chunk after chunk
 * @len: bytes used at @bytes
 * @room: bytes at @bytes
 * @cp_dma_left: bytes of lower CBs (CP_DMA) the CS may still fetch
 * @bad: a chunk could not be fetched or has a bad packet: the CS takes a
 *	number and ends ABORTED (as a device that stops on it)
 * @streams: each chunk's stream on its QMAN (its queue id % 4)
 * @sync: the context's sync-manager state (locked while translating)
 * @cps: the CPs' predicates and scalars as this CS leaves them
 *	(a copy of the context's, made by the first walk that needs them;
 *	the context's once the CS is submitted and not refused)
 */
struct hl_cs_build {
	struct hpu_cs_chunk *chunks;
	uint8_t *streams;
	struct hfd_hl_sync *sync;
	struct hfd_hl_cps *cps;
	uint32_t n;
	uint8_t *bytes;
	size_t len;
	size_t room;
	uint32_t cp_dma_left;
	bool bad;
};

/* Copy in @n chunks at @uaddr and check them. Return: 0 or -errno */
static int load_chunks(const struct hfd_ioctl_call *call, uint64_t uaddr,
		       uint32_t n, struct hl_cs_chunk *out)
{
	const struct hpu_fw_profile *p = call->ctx->dev->profile;
	uint32_t i;
	int ret;

	if (!n)
		return 0;
	if (!uaddr)
		return -EFAULT;
	ret = hfd_copy_from_user(call->pid, out, uaddr, n * sizeof(*out));
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (hfd_hl_queue(p, out[i].queue_index) < 0)
			return -EINVAL;
		if (!out[i].cb_size || out[i].cb_size > HL_MAX_CB_SIZE)
			return -EINVAL;
	}
	return 0;
}

/* Make room in @b for the translation of a CB of @n bytes */
static int make_room(struct hl_cs_build *b, size_t n)
{
	size_t need = HFD_HL_XLATE_RATIO * n + 8;
	uint8_t *nb;

	if (need > b->room - b->len) {
		nb = realloc(b->bytes, b->len + need);
		if (!nb)
			return -ENOMEM;
		b->bytes = nb;
		b->room = b->len + need;
	}
	return 0;
}

/*
 * Put the lower CB of each CP_DMA of *@cb (*@size bytes) in its place,
 * noting where in @lower, and make room in @b for the translation of
 * the result. Return: 0; -ENOMEM; any other -errno is a CB that cannot
 * run (bad CP_DMA, lower CB not memory of the context, over the CS's
 * budget).
 */
static int expand_lower_cbs(struct hfd_ctx *ctx, const struct hfd_hl_xlate *x,
			    uint8_t **cb, size_t *size,
			    struct hfd_hl_lower_cbs *lower,
			    struct hl_cs_build *b)
{
	struct hl_fetch f = { .ctx = ctx, .x = x };
	uint8_t *out;
	size_t n;
	int ret;

	ret = hfd_hl_cp_dma_expand(*cb, *size, fetch_lower_cb, &f,
				   &b->cp_dma_left, &out, &n, lower);
	if (ret || !out)
		return ret;
	free(*cb);
	*cb = out;
	*size = n;
	return make_room(b, n);
}

/*
 * The CPs' state this CS starts from, copied once (the caller holds the
 * stream lock: ctx->hl_cps is stable). Return: 0 or -ENOMEM
 */
static int cs_cps(struct hfd_ctx *ctx, struct hl_cs_build *b)
{
	uint32_t resets;

	if (b->cps)
		return 0;
	b->cps = malloc(sizeof(*b->cps));
	if (!b->cps)
		return -ENOMEM;
	resets = device_resets(ctx->dev);
	if (ctx->hl_cps && ctx->hl_cps->resets == resets)
		*b->cps = *ctx->hl_cps;
	else
		hfd_hl_cps_init(b->cps, resets);
	return 0;
}

/*
 * Do what the QMAN's upper CP decides while it runs *@cb (predicates,
 * LOAD_AND_EXE, CB_LIST: hl_qman.c), putting the packets that run in
 * its place. Return: 0; -ENOMEM; any other -errno is a CB that cannot
 * run.
 */
static int walk_upper_cp(struct hfd_ctx *ctx, const struct hfd_hl_xlate *x,
			 uint8_t **cb, size_t *size, struct hl_cs_build *b)
{
	struct hl_fetch f = { .ctx = ctx, .x = x };
	uint8_t *out;
	size_t n;
	int ret;

	if (!hfd_hl_qman_needed(*cb, *size))
		return 0;
	ret = cs_cps(ctx, b);
	if (ret)
		return ret;
	ret = hfd_hl_qman_walk(*cb, *size, &b->cps->cp[x->qid], fetch_lower_cb,
			       &f, &b->cp_dma_left, &out, &n);
	if (ret && ret != -ENOMEM)
		hfd_log_ratelimited(HFD_LOG_INFO,
				    "hl CS: queue %u: predicate, LOAD_AND_EXE "
				    "or CB_LIST refused (%s): ABORTED",
				    x->qid, strerror(-ret));
	if (ret || !out)
		return ret;
	free(*cb);
	*cb = out;
	*size = n;
	return make_room(b, n);
}

/*
 * Do what the QMAN's lower CP decides while it runs the lower CBs of
 * *@cb (their predicates and LOAD_AND_EXE: hl_qman.c), rebuilding *@cb
 * and @lower around what runs. Return: 0; -ENOMEM; any other -errno is
 * a CB that cannot run.
 */
static int walk_lower_cp(struct hfd_ctx *ctx, const struct hfd_hl_xlate *x,
			 uint8_t **cb, size_t *size,
			 struct hfd_hl_lower_cbs *lower, struct hl_cs_build *b)
{
	struct hl_fetch f = { .ctx = ctx, .x = x };
	uint8_t *out;
	size_t n;
	int ret;

	if (!hfd_hl_qman_lower_needed(*cb, *size, lower))
		return 0;
	ret = cs_cps(ctx, b);
	if (ret)
		return ret;
	ret = hfd_hl_qman_walk_lower_cbs(
		*cb, *size, lower,
		&b->cps->lower[x->qid / HL_GAUDI2_STREAMS_PER_QMAN],
		fetch_lower_cb, &f, &b->cp_dma_left, &out, &n);
	if (ret && ret != -ENOMEM)
		hfd_log_ratelimited(HFD_LOG_INFO,
				    "hl CS: queue %u: lower CB's predicate or "
				    "LOAD_AND_EXE refused (%s): ABORTED",
				    x->qid, strerror(-ret));
	if (ret)
		return ret;
	free(*cb);
	*cb = out;
	*size = n;
	return make_room(b, n);
}

/* Fetch and translate one chunk into @b (its bytes end the CS on error) */
static int add_chunk(const struct hfd_ioctl_call *call,
		     const struct hl_cs_chunk *c, uint64_t sram_va,
		     struct hl_cs_build *b)
{
	struct hfd_device *dev = call->ctx->dev;
	struct hfd_hl_xlate x = {
		.sram_base = dev->ip.sram_base_address,
		.sram_size = dev->ip.sram_size,
		.sram_va = sram_va,
		.qid = c->queue_index,
		.sync = b->sync,
	};
	struct hpu_cs_chunk *h = &b->chunks[b->n];
	struct hfd_hl_lower_cbs lower = { 0 };
	size_t len = 0, size = c->cb_size;
	uint8_t *cb;
	int queue, ret;

	queue = hfd_hl_queue(dev->profile, c->queue_index);
	x.kind = hfd_queue_kind(dev->profile, (uint32_t)queue);
	cb = malloc(c->cb_size);
	if (!cb)
		return -ENOMEM;
	if (c->cs_chunk_flags & HL_CS_CHUNK_FLAGS_USER_ALLOC_CB) {
		ret = read_cb(call->ctx, c->cb_handle, c->cb_size, cb);
		if (ret == -ENXIO)
			ret = read_dev_cb(call->ctx, &x, c->cb_handle,
					  c->cb_size, cb);
	} else {
		/*
		 * A kernel CB, as the client's mapping holds it now; a handle
		 * that is not a live CB of the context, or a size beyond the
		 * CB's, fails the call as the real driver's CB lookup does
		 */
		ret = hfd_hl_cb_read(call->ctx, c->cb_handle, 0, c->cb_size,
				     cb);
		if (ret) {
			free(cb);
			return ret;
		}
	}
	if (!ret)
		ret = walk_upper_cp(call->ctx, &x, &cb, &size, b);
	if (!ret)
		ret = expand_lower_cbs(call->ctx, &x, &cb, &size, &lower, b);
	if (!ret)
		ret = walk_lower_cp(call->ctx, &x, &cb, &size, &lower, b);
	/* a lower CB's FENCE waits on the lower CP's counter */
	if (!ret)
		ret = hfd_hl_cp_dma_translate(cb, size, &lower, &x,
					      b->bytes + b->len, &len, NULL);
	free(lower.r);
	free(cb);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		hfd_log_ratelimited(
			HFD_LOG_INFO,
			"pid %d: CS chunk on queue %u (CB 0x%llx, %u bytes) cannot run (%d): the CS ends ABORTED",
			(int)call->pid, c->queue_index,
			(unsigned long long)c->cb_handle, c->cb_size, ret);
		b->bad = true;
		return 0;
	}
	if (!len) {
		/* a CB of nothing: one NOP keeps the job */
		struct hpu_pkt_nop nop = { .hdr = { .opcode = HPU_PACKET_NOP,
						    .size = sizeof(nop) } };

		memcpy(b->bytes + b->len, &nop, sizeof(nop));
		len = sizeof(nop);
	}
	memset(h, 0, sizeof(*h));
	h->queue_index = (uint32_t)queue;
	h->cb_size = (uint32_t)len;
	b->streams[b->n] =
		(uint8_t)hfd_hl_stream_of(dev->profile, c->queue_index);
	b->len += len;
	b->n++;
	return 0;
}

static int add_chunks(const struct hfd_ioctl_call *call,
		      const struct hl_cs_chunk *c, uint32_t n, uint64_t sram_va,
		      struct hl_cs_build *b)
{
	uint32_t i;
	int ret;

	for (i = 0; i < n && !b->bad; i++) {
		ret = add_chunk(call, &c[i], sram_va, b);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether this CS runs the restore chunks: the context's first CS, or
 * one with FORCE_RESTORE (the real driver's context switch) */
static bool restore_phase(struct hfd_ctx *ctx, uint32_t flags)
{
	uint64_t next;

	if (flags & HL_CS_FLAGS_FORCE_RESTORE)
		return true;
	pthread_mutex_lock(&ctx->cs->lock);
	next = ctx->cs->next_seq;
	pthread_mutex_unlock(&ctx->cs->lock);
	return next == 1;
}

/* Check the CS request as the real driver does. Return: 0 or -errno */
static int check_cs_in(const struct hfd_ioctl_call *call,
		       const struct hl_cs_in *in)
{
	uint32_t type = in->cs_flags & HL_CS_TYPE_FLAGS;

	/* CS types are mutually exclusive */
	if (type & (type - 1))
		return -EINVAL;
	if (!hfd_hl_device_ok(call->ctx->dev) || !call->ctx->cs ||
	    !hfd_device_has_cs(call->ctx->dev))
		return -EOPNOTSUPP;
	if (type == HL_CS_FLAGS_SIGNAL || type == HL_CS_FLAGS_WAIT)
		return 0; /* hfd_hl_cs_stream() checks the rest */
	/* signal reservation, engine commands, staged and encapsulated
	 * submissions are not served (docs) */
	if (in->cs_flags & ~HL_CS_SERVED_FLAGS)
		return -EINVAL;
	if (!in->num_chunks_execute ||
	    in->num_chunks_execute > HL_MAX_JOBS_PER_CS ||
	    in->num_chunks_restore > HL_MAX_JOBS_PER_CS)
		return -EINVAL;
	return 0;
}

/**
 * hfd_hl_cs_submit() - submit a translated CS with its request's timing
 * and answer the request
 * @call: context and requesting thread
 * @args: the CS request: its HL_CS_FLAGS_TIMESTAMP, its
 *	HL_CS_FLAGS_CUSTOM_TIMEOUT and timeout (s); on success answered
 *	with the sequence number and HL_CS_STATUS_SUCCESS
 * @d: the CS; its cs_flags get HPU_CS_FLAGS_TIMESTAMP and its timeout_ms
 *	the request's (capped at HPU_CS_TIMEOUT_MAX_MS) here
 *
 * Return: 0; -EAGAIN too many CSs in flight; else
 * hfd_ring_submit_ordered()'s -errno (the request is left as it was).
 */
int hfd_hl_cs_submit(const struct hfd_ioctl_call *call, union hl_cs_args *args,
		     struct hfd_cs_desc *d)
{
	const struct hl_cs_in *in = &args->in;
	bool completed;
	uint64_t seq;
	int ret;

	if (in->cs_flags & HL_CS_FLAGS_TIMESTAMP)
		d->cs_flags |= HPU_CS_FLAGS_TIMESTAMP;
	if ((in->cs_flags & HL_CS_FLAGS_CUSTOM_TIMEOUT) && in->timeout)
		d->timeout_ms = in->timeout >= HPU_CS_TIMEOUT_MAX_MS / 1000 ?
					HPU_CS_TIMEOUT_MAX_MS :
					in->timeout * 1000;
	ret = hfd_ring_submit_ordered(call->ctx, call->pid, d, &seq,
				      &completed);
	if (ret == -ENOSPC)
		return -EAGAIN;
	if (ret)
		return ret;
	memset(args, 0, sizeof(*args));
	args->out.seq = seq;
	args->out.status = HL_CS_STATUS_SUCCESS;
	return 0;
}

/**
 * hfd_hl_cs() - CS of the habanalabs personality
 * @call: context and requesting thread
 * @data: union hl_cs_args, updated in place
 *
 * The execute chunks run as one CS. On the context's first CS or with
 * FORCE_RESTORE the restore chunks run first as a CS of their own, which
 * the call waits for (restore_run()). Every chunk names a Gaudi2
 * queue and a CB: a user CB (HL_CS_CHUNK_FLAGS_USER_ALLOC_CB: cb_handle
 * is the device VA of host memory the context mapped) or a kernel CB
 * (cb_handle is CB CREATE's handle; its bytes are read as the client's
 * mapping holds them, hfd_hl_cb_read()). A CB that cannot be
 * read or holds a bad packet does not fail the call: the CS gets its
 * number and ends ABORTED with nothing run (WAIT_CS: -EIO), as a device
 * that stops on the packet; CS_COUNTERS counts it as a validation drop.
 *
 * SIGNAL and WAIT CSs (sync stream) are hfd_hl_cs_stream()'s.
 *
 * Return: 0 with the sequence number; -EINVAL for mutually exclusive
 * or unserved flags, no execute chunks, more than HL_MAX_JOBS_PER_CS of
 * a kind, a bad or
 * binned queue, a kernel CB handle that is not a live CB of the
 * context or a CB size beyond it, a CB size of 0 or above
 * HL_MAX_CB_SIZE; -EIO the kernel did not give a kernel CB's pages; -EFAULT for a chunk array that cannot be read; -EBUSY
 * when the device does not work; -EAGAIN too many CSs in flight, or a
 * queue's PQ has no room for the CS's jobs on it (a queue-full drop); -EIO
 * killed by a hard reset; -ENOEXEC the restore chunks did not complete
 * (aborted, or still running after --uaccess-timeout-ms); -EAGAIN
 * another call of the context waits for its restore chunks; -ENOMEM.
 */
/*
 * Fetch, translate and submit @n chunks at @uaddr as one CS with the
 * timing of @in, answering @args with its number (hfd_hl_cs()'s errors)
 */
static int submit_chunks(const struct hfd_ioctl_call *call,
			 union hl_cs_args *args, const struct hl_cs_in *in,
			 uint64_t uaddr, uint32_t n)
{
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_device *dev = ctx->dev;
	struct hl_cs_chunk *chunks = NULL;
	struct hl_cs_build b = { 0 };
	struct hfd_cs_desc d = { 0 };
	struct hfd_hl_stream *stream = NULL;
	struct hl_pq_rec *pq = NULL;
	uint32_t *qids = NULL;
	uint64_t sram_va;
	size_t in_bytes;
	uint32_t i;
	int ret;

	chunks = calloc(n, sizeof(*chunks));
	b.chunks = calloc(n, sizeof(*b.chunks));
	b.streams = calloc(n, sizeof(*b.streams));
	b.sync = ctx_sync(ctx);
	if (!chunks || !b.chunks || !b.streams || !b.sync) {
		ret = -ENOMEM;
		goto out;
	}
	ret = load_chunks(call, uaddr, n, chunks);
	if (ret)
		goto out;
	in_bytes = 0;
	for (i = 0; i < n; i++)
		in_bytes += chunks[i].cb_size;
	b.room = HFD_HL_XLATE_RATIO * in_bytes + 8 * (size_t)n;
	b.cp_dma_left = HFD_HL_CP_DMA_MAX;
	b.bytes = malloc(b.room);
	qids = calloc(n, sizeof(*qids));
	stream = hfd_hl_stream_get(ctx);
	if (!b.bytes || !qids || !stream) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		qids[i] = chunks[i].queue_index;
	/* room on the queues' PQs, held until the CS is submitted */
	hfd_hl_stream_lock(stream);
	ret = hfd_hl_pq_reserve_locked(ctx, stream, qids, n, &pq);
	if (ret)
		goto out_unlock;
	sram_va = ctx_sram_va(call);
	/* the sync registers are written in submission order */
	pthread_mutex_lock(&b.sync->lock);
	hfd_hl_sync_reset(b.sync, device_resets(dev));
	ret = add_chunks(call, chunks, n, sram_va, &b);
	pthread_mutex_unlock(&b.sync->lock);
	if (ret)
		goto out_unlock;

	d.chunks = b.chunks;
	d.n = b.n;
	d.cb_bytes = b.bytes;
	d.raw_cb = true;
	d.streams = b.streams;
	if (b.bad) {
		hfd_cs_count(&dev->cs_stats.parsing, &ctx->cs_stats.parsing);
		d.refuse = -EINVAL;
	}
	ret = hfd_hl_cs_submit(call, args, &d);
	if (!ret) {
		hfd_hl_pq_commit_locked(stream, pq, args->out.seq);
		pq = NULL;
		/* the CPs' loads count once the CS runs (not when refused) */
		if (!b.bad && b.cps) {
			free(ctx->hl_cps);
			ctx->hl_cps = b.cps;
			b.cps = NULL;
		}
	}
out_unlock:
	hfd_hl_stream_unlock(stream);
out:
	free(pq);
	free(qids);
	free(chunks);
	free(b.chunks);
	free(b.streams);
	free(b.bytes);
	free(b.cps);
	return ret;
}

/*
 * Wait for the restore CS @seq to end, at most the daemon's bound on a
 * worker (--uaccess-timeout-ms). Return: 0 when it completed, -ENOEXEC
 * when it was aborted or is still running at the bound.
 */
static int restore_wait(struct hfd_ctx *ctx, uint64_t seq)
{
	uint64_t t0 = hfd_now_ns(),
		 bound = hfd_uaccess_timeout_ms() * 1000000ULL;
	unsigned int nap_us = 20;
	uint32_t status;
	uint64_t ts;
	bool tsv;
	int ret;

	for (;;) {
		pthread_mutex_lock(&ctx->cs->lock);
		ret = hfd_cs_lookup_locked(ctx->cs, seq, &status, &ts, &tsv);
		pthread_mutex_unlock(&ctx->cs->lock);
		if (ret)
			return -ENOEXEC;
		if (status != HPU_WAIT_CS_STATUS_BUSY)
			return status == HPU_WAIT_CS_STATUS_COMPLETED ?
				       0 :
				       -ENOEXEC;
		if (hfd_now_ns() - t0 >= bound)
			return -ENOEXEC;
		usleep(nap_us);
		if (nap_us < 2000)
			nap_us *= 2;
	}
}

/*
 * The restore phase, as the real driver's context switch: the restore
 * chunks run as a CS of their own, with the default timeout, and the
 * execute chunks are fetched only once it completed (they may run CBs
 * the restore chunks copy into device memory). One call per context
 * waits at a time (-EAGAIN for another), at most the worker bound.
 */
static int restore_run(const struct hfd_ioctl_call *call,
		       const struct hl_cs_in *in)
{
	struct hfd_ctx *ctx = call->ctx;
	union hl_cs_args r = { .in = *in };
	int ret;

	if (__atomic_exchange_n(&ctx->hl_restoring, true, __ATOMIC_ACQ_REL))
		return -EAGAIN;
	r.in.cs_flags &= ~(HL_CS_FLAGS_FORCE_RESTORE | HL_CS_FLAGS_TIMESTAMP |
			   HL_CS_FLAGS_CUSTOM_TIMEOUT);
	ret = submit_chunks(call, &r, &r.in, in->chunks_restore,
			    in->num_chunks_restore);
	if (!ret) {
		ret = restore_wait(ctx, r.out.seq);
		if (ret)
			hfd_log_ratelimited(
				HFD_LOG_INFO,
				"pid %d: restore CS %llu did not complete: CS refused (ENOEXEC)",
				(int)call->pid, (unsigned long long)r.out.seq);
	}
	__atomic_store_n(&ctx->hl_restoring, false, __ATOMIC_RELEASE);
	return ret;
}

int hfd_hl_cs(const struct hfd_ioctl_call *call, void *data)
{
	union hl_cs_args *args = data;
	struct hl_cs_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	int ret;

	ret = check_cs_in(call, &in);
	if (ret)
		return ret;
	if (hfd_device_failed(ctx->dev))
		return -EBUSY;
	if (in.cs_flags & (HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT))
		return hfd_hl_cs_stream(call, args);
	if (in.num_chunks_restore && restore_phase(ctx, in.cs_flags)) {
		ret = restore_run(call, &in);
		if (ret)
			return ret;
	}
	return submit_chunks(call, args, &in, in.chunks_execute,
			     in.num_chunks_execute);
}

/*
 * WAIT_CS
 */

/**
 * struct hl_wait - a WAIT_CS handed to the hpu wait path: its answer is
 * turned into the real one before it goes back
 * @inner: what the hpu path answers through (token: this)
 * @outer: how the request is answered
 */
struct hl_wait {
	struct hfd_ioctl_defer inner;
	struct hfd_ioctl_defer outer;
};

/* The real answer and errno of an hpu answer (@err: the hpu path's) */
static int to_hl_wait(int err, const struct hpu_wait_cs_out *h,
		      struct hl_wait_cs_out *out)
{
	memset(out, 0, sizeof(*out));
	if (err == -EIO) {
		out->status = HL_WAIT_CS_STATUS_ABORTED;
		return err;
	}
	if (err)
		return err;
	out->cs_completion_map = h->cs_completion_map;
	switch (h->status) {
	case HPU_WAIT_CS_STATUS_COMPLETED:
		out->status = HL_WAIT_CS_STATUS_COMPLETED;
		if (h->flags & HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD) {
			out->flags |= HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
			out->timestamp_nsec = (int64_t)h->timestamp_nsec;
		}
		return 0;
	case HPU_WAIT_CS_STATUS_TIMEDOUT:
		out->status = HL_WAIT_CS_STATUS_TIMEDOUT;
		return -ETIMEDOUT;
	case HPU_WAIT_CS_STATUS_ABORTED:
		out->status = HL_WAIT_CS_STATUS_ABORTED;
		return -EIO;
	default:
		out->status = HL_WAIT_CS_STATUS_BUSY;
		return 0;
	}
}

static bool hl_wait_interrupted(void *token)
{
	struct hl_wait *w = token;

	return w->outer.interrupted(w->outer.token);
}

static void hl_wait_on_interrupt(void *token, uint64_t id)
{
	struct hl_wait *w = token;

	w->outer.on_interrupt(w->outer.token, id);
}

static void hl_wait_reply(void *token, int err, const void *out, size_t size)
{
	struct hl_wait *w = token;
	union hpu_wait_cs_args h;
	union hl_wait_cs_args a;

	memset(&h, 0, sizeof(h));
	if (out)
		memcpy(&h, out, size < sizeof(h) ? size : sizeof(h));
	memset(&a, 0, sizeof(a));
	err = to_hl_wait(err, &h.out, &a.out);
	if (err && (err == -EIO || err == -ETIMEDOUT) && w->outer.reply_data)
		w->outer.reply_data(w->outer.token, err, &a, sizeof(a));
	else
		w->outer.reply(w->outer.token, err, &a, sizeof(a));
	free(w);
}

/**
 * hfd_hl_wait_cs() - WAIT_CS of the habanalabs personality
 * @call: context, requesting thread, and how to answer later
 * @data: union hl_wait_cs_args, updated in place
 *
 * Waits up to `timeout_us` for the CS `seq` (with MULTI_CS: for the
 * first of the `seq_arr_len` CSs whose numbers are at user address
 * `seq` to end; `cs_completion_map` tells which ended).
 *
 * Return: 0 with status COMPLETED (TIMESTAMP_VLD and the time when the
 * CS asked for one) or BUSY (not ended within the timeout); -EIO with
 * status ABORTED (the CS was aborted: a bad packet, a page fault, a
 * reset), -ETIMEDOUT with status TIMEDOUT (the CS exceeded its own
 * timeout) — both copy the answer back, as the real driver; -EINVAL a
 * number never issued, a bad array length, an interrupt flag without
 * HL_WAIT_CS_FLAGS_INTERRUPT; -EFAULT the array cannot be read; -EINTR;
 * or HFD_IOCTL_DEFERRED. With HL_WAIT_CS_FLAGS_INTERRUPT: a user
 * interrupt wait, hfd_hl_irq_wait().
 */
int hfd_hl_wait_cs(const struct hfd_ioctl_call *call, void *data)
{
	union hl_wait_cs_args *args = data;
	struct hl_wait_cs_in in = args->in;
	struct hfd_ioctl_call hcall = *call;
	union hpu_wait_cs_args h;
	struct hl_wait *w = NULL;
	int ret;

	if (in.flags & HL_WAIT_CS_FLAGS_INTERRUPT)
		return hfd_hl_irq_wait(call, args, ctx_sync(call->ctx));
	if (in.flags & (HL_WAIT_CS_FLAGS_INTERRUPT_MASK |
			HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
			HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT |
			HL_WAIT_CS_FLAGS_UNREGISTER_INTERRUPT))
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	h.in.seq = in.seq;
	h.in.timeout_us = in.timeout_us;
	if (in.flags & HL_WAIT_CS_FLAGS_MULTI_CS) {
		if (!in.seq_arr_len ||
		    in.seq_arr_len > HL_WAIT_MULTI_CS_LIST_MAX_LEN)
			return -EINVAL;
		h.in.flags = HPU_WAIT_CS_FLAGS_MULTI_CS | HPU_WAIT_CS_FLAGS_ANY;
		h.in.seq_arr_len = in.seq_arr_len;
	}
	if (call->defer) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return -ENOMEM;
		w->outer = *call->defer;
		w->inner.interrupted = hl_wait_interrupted;
		w->inner.on_interrupt = hl_wait_on_interrupt;
		w->inner.reply = hl_wait_reply;
		w->inner.token = w;
		hcall.defer = &w->inner;
	}
	ret = hfd_ioctl_wait_cs(&hcall, &h);
	if (ret == HFD_IOCTL_DEFERRED)
		return ret; /* w is answered and freed by hl_wait_reply() */
	free(w);
	ret = to_hl_wait(ret, &h.out, &args->out);
	return ret;
}
