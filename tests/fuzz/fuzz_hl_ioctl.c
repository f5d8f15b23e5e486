// SPDX-License-Identifier: MIT
/*
 * fuzz_hl_ioctl.c - libFuzzer target of the habanalabs personality's
 * ioctl decoder and handlers (fusedev/hl_ioctl.c and the families it
 * calls), without FUSE, on an in-process Gaudi2 device model.
 *
 * Each input is the life of a compute and a control context of the
 * device: records are dispatched in turn (at most HL_FUZZ_MAX_RECORDS),
 * then both contexts are released and the device must be back where it
 * was: no device memory in use, no kernel CB kept, every deferred
 * WAIT_CS answered once, the one compute open free again. A record is a selector byte, then its bytes:
 *
 *   bit 7 of the selector: the request goes to the control context;
 *   (selector & 0x0f) % 9:
 *     0..5  a family (INFO, CB, CS, WAIT_CS, MEMORY, DEBUG): bit 4 picks
 *           the DRM code set (else the 'H' one); bit 5: a size byte
 *           follows, the code's _IOC_SIZE (a shorter or longer struct);
 *           bit 6: the request may be answered later (a WAIT_CS that
 *           cannot be answered at once is, as through FUSE); then the
 *           argument bytes
 *     6     four bytes of a raw request code (any type, nr, size, dir),
 *           then its _IOC_SIZE argument bytes
 *     7     user memory: offset (2 bytes), length (2), the bytes
 *     8     kernel CB bytes, as the client's mapping writes them: CB
 *           (1 byte, among those created), offset (2), length (2), bytes
 *
 * The client's memory is a shared anonymous region of HL_FUZZ_USER_SIZE
 * bytes that a forked, sleeping copy of this process also maps: the
 * driver reaches it by that copy's pid (process_vm_readv/writev), and
 * whatever it writes there or anywhere else in that copy cannot corrupt
 * the fuzzer. So that inputs stay meaningful across runs, the harness
 * relocates, before a request of a family: a user pointer below
 * HL_FUZZ_USER_SIZE (INFO's return_pointer, CS's chunk arrays, a
 * MULTI_CS WAIT_CS's sequence array, a USERPTR MAP's host address) to
 * that offset of the region; a kernel CB handle or a device VA below
 * HL_FUZZ_REFS (CB DESTROY/INFO, UNMAP, the chunks' cb_handle in user
 * memory) to the answer of that index (CB CREATE, MAP). Other values
 * are left as they are. With HL_FUZZ_TRACE set in the environment, each
 * request and its answer are logged. AddressSanitizer and UndefinedBehaviorSanitizer
 * watch the personality, the hpu paths under it and the device model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_seed.h"
#include "fuzz_user.h"
#include "hl_personality.h"
#include "hl_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define HL_FUZZ_USER_SIZE   (64 * 1024)
/* The argument slot the dispatcher probes (call.arg), at the region's end */
#define HL_FUZZ_ARG_SLOT    (HL_FUZZ_USER_SIZE - 256)
#define HL_FUZZ_REFS	    16
#define HL_FUZZ_MAX_RECORDS 32
#define HL_FUZZ_KINDS	    9

enum {
	K_RAW = 6,
	K_USER = 7,
	K_CBW = 8
};

static struct hfd_driver drv;
static pid_t user_pid;
static uint8_t *user; /* shared with user_pid, at the same address */
static uint64_t base_used;
/* HL_FUZZ_TRACE set: every request and its answer on stderr */
static bool trace;

/**
 * struct fuzz_refs - the answers of this input, by index
 * @cb: CB CREATE's handles
 * @va: MAP's device addresses
 * @ncb: handles seen (the next goes at @ncb % HL_FUZZ_REFS)
 * @nva: addresses seen
 */
struct fuzz_refs {
	uint64_t cb[HL_FUZZ_REFS];
	uint64_t va[HL_FUZZ_REFS];
	unsigned int ncb;
	unsigned int nva;
};

/*
 * The deferred answers of WAIT_CS (selector bit 6): a wait that cannot
 * be answered at once is answered later by a CS completion, the timer
 * thread or the context's release, as through FUSE. Counted so that the
 * end of an input can check every one was answered exactly once.
 */
static unsigned int deferred, answered;

static bool defer_interrupted(void *token)
{
	(void)token;
	return false;
}

static void defer_on_interrupt(void *token, uint64_t id)
{
	(void)token;
	(void)id;
}

static void defer_reply(void *token, int err, const void *out, size_t size)
{
	(void)token;
	/* an answer is the real struct, never longer */
	if ((!err && !out) || size > sizeof(union hl_wait_cs_args))
		abort();
	__atomic_add_fetch(&answered, 1, __ATOMIC_ACQ_REL);
}

/* Copied back with the error: only the real driver's two cases */
static void defer_reply_data(void *token, int err, const void *out, size_t size)
{
	if ((err != -EIO && err != -ETIMEDOUT) || !out)
		abort();
	defer_reply(token, err, out, size);
}

static const struct hfd_ioctl_defer fuzz_defer = {
	.interrupted = defer_interrupted,
	.on_interrupt = defer_on_interrupt,
	.reply = defer_reply,
	.reply_data = defer_reply_data,
};

static const unsigned int h_codes[HFD_HL_NR_FAMILIES] = {
	HL_IOCTL_INFO,	  HL_IOCTL_CB,	   HL_IOCTL_CS,
	HL_IOCTL_WAIT_CS, HL_IOCTL_MEMORY, HL_IOCTL_DEBUG,
};

static const unsigned int drm_codes[HFD_HL_NR_FAMILIES] = {
	DRM_IOCTL_HL_INFO,    DRM_IOCTL_HL_CB,	   DRM_IOCTL_HL_CS,
	DRM_IOCTL_HL_WAIT_CS, DRM_IOCTL_HL_MEMORY, DRM_IOCTL_HL_DEBUG,
};

static uint64_t user_addr(uint64_t off)
{
	return (uint64_t)(uintptr_t)user + off;
}

static void reloc_ptr(__u64 *p)
{
	if (*p < HL_FUZZ_USER_SIZE)
		*p = user_addr(*p);
}

static void reloc_ref(__u64 *p, const uint64_t *refs, unsigned int n)
{
	if (*p < HL_FUZZ_REFS && *p < n)
		*p = refs[*p];
}

/* The chunk array at user address @uaddr: its small cb_handles relocated */
static void reloc_chunks(uint64_t uaddr, uint32_t n, const struct fuzz_refs *r)
{
	uint64_t off = uaddr - user_addr(0);
	struct hl_cs_chunk c;
	uint32_t i;

	if (uaddr < user_addr(0))
		return;
	for (i = 0; i < n && i < HL_MAX_JOBS_PER_CS; i++, off += sizeof(c)) {
		if (off > HL_FUZZ_USER_SIZE - sizeof(c))
			return;
		memcpy(&c, user + off, sizeof(c));
		if (c.cs_chunk_flags & HL_CS_CHUNK_FLAGS_USER_ALLOC_CB)
			reloc_ref(&c.cb_handle, r->va, r->nva);
		else
			reloc_ref(&c.cb_handle, r->cb, r->ncb);
		memcpy(user + off, &c, sizeof(c));
	}
}

static void relocate(int fam, void *arg, const struct fuzz_refs *r)
{
	union hl_cb_args *cb = arg;
	union hl_cs_args *cs = arg;
	union hl_wait_cs_args *w = arg;
	union hl_mem_args *m = arg;

	switch (fam) {
	case HFD_HL_INFO:
		reloc_ptr(&((struct hl_info_args *)arg)->return_pointer);
		break;
	case HFD_HL_CB:
		reloc_ref(&cb->in.cb_handle, r->cb, r->ncb);
		break;
	case HFD_HL_CS:
		reloc_ptr(&cs->in.chunks_restore);
		reloc_ptr(&cs->in.chunks_execute);
		reloc_chunks(cs->in.chunks_restore, cs->in.num_chunks_restore,
			     r);
		reloc_chunks(cs->in.chunks_execute, cs->in.num_chunks_execute,
			     r);
		break;
	case HFD_HL_WAIT_CS:
		/* an interrupt wait: seq is a CB handle (KERNEL_CQ) or an
		 * address (the real header's unions) */
		if ((w->in.flags & HL_WAIT_CS_FLAGS_INTERRUPT) &&
		    (w->in.flags & HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ))
			reloc_ref(&w->in.seq, r->cb, r->ncb);
		else if (w->in.flags & (HL_WAIT_CS_FLAGS_MULTI_CS |
					HL_WAIT_CS_FLAGS_INTERRUPT))
			reloc_ptr(&w->in.seq);
		break;
	case HFD_HL_MEMORY:
		if (m->in.op == HL_MEM_OP_MAP && (m->in.flags & HL_MEM_USERPTR))
			reloc_ptr(&m->in.map_host.host_virt_addr);
		else if (m->in.op == HL_MEM_OP_UNMAP)
			reloc_ref(&m->in.unmap.device_virt_addr, r->va, r->nva);
		break;
	default:
		break;
	}
}

/* Keep the answers later records refer to */
static void record(int fam, const void *arg, const void *out,
		   struct fuzz_refs *r)
{
	const union hl_cb_args *cb_in = arg, *cb_out = out;
	const union hl_mem_args *m_in = arg, *m_out = out;

	if (fam == HFD_HL_CB && cb_in->in.op == HL_CB_OP_CREATE)
		r->cb[r->ncb++ % HL_FUZZ_REFS] = cb_out->out.cb_handle;
	if (fam == HFD_HL_MEMORY && m_in->in.op == HL_MEM_OP_MAP)
		r->va[r->nva++ % HL_FUZZ_REFS] = m_out->out.device_virt_addr;
}

/* Take @n bytes (fewer at the end) into @dst, zero-filled; Return: taken */
static size_t take(const uint8_t **p, size_t *left, void *dst, size_t n)
{
	size_t k = n < *left ? n : *left;

	memset(dst, 0, n);
	memcpy(dst, *p, k);
	*p += k;
	*left -= k;
	return k;
}

/* One request of code @cmd (@fam: its family, or -1: a raw code) */
static void request(struct hfd_ctx *ctx, unsigned int cmd, int fam, bool defer,
		    const uint8_t **p, size_t *left, struct fuzz_refs *r)
{
	/* as large as any _IOC_SIZE: the kernel copies that many bytes */
	static uint8_t arg[1 << 14], out[1 << 14];
	struct hfd_ioctl_call call = {
		.ctx = ctx,
		.pid = user_pid,
		.uid = getuid(),
		.arg = user_addr(HL_FUZZ_ARG_SLOT),
		.defer = defer ? &fuzz_defer : NULL,
	};
	size_t n = _IOC_SIZE(cmd), out_size = sizeof(out);
	int ret;

	take(p, left, arg, n);
	if (fam >= 0)
		relocate(fam, arg, r);
	ret = hfd_hl_ioctl_dispatch(&call, cmd, arg, n, out, &out_size);
	if (trace)
		fprintf(stderr,
			"fuzz_hl_ioctl: %s 0x%08x family %d: %d (%zu left)\n",
			ctx->control ? "control" : "compute", cmd, fam, ret,
			*left);
	if (ret == HFD_IOCTL_DEFERRED) {
		/* only a wait defers, and only when it may */
		if (!defer || fam != HFD_HL_WAIT_CS)
			abort();
		deferred++;
		return;
	}
	/* the answer is never longer than what the caller's code says */
	if (out_size > n)
		abort();
	if (!ret && fam >= 0 && out_size >= sizeof(uint64_t))
		record(fam, arg, out, r);
}

static void cb_write(struct hfd_ctx *ctx, const uint8_t **p, size_t *left,
		     const struct fuzz_refs *r)
{
	unsigned int seen = r->ncb < HL_FUZZ_REFS ? r->ncb : HL_FUZZ_REFS;
	static uint8_t buf[1 << 16];
	uint8_t hdr[5];
	uint64_t off;
	size_t len;

	take(p, left, hdr, sizeof(hdr));
	len = take(p, left, buf, (size_t)(hdr[3] | hdr[4] << 8));
	if (!seen)
		return;
	off = r->cb[hdr[0] % seen] + (uint64_t)(hdr[1] | hdr[2] << 8);
	/* -EIO for a range not within one CB: nothing written */
	hfd_hl_cb_fs_write(ctx, off, len, buf);
}

static void user_write(const uint8_t **p, size_t *left)
{
	uint8_t hdr[4];
	size_t off, len;

	take(p, left, hdr, sizeof(hdr));
	off = (size_t)(hdr[0] | hdr[1] << 8) % HL_FUZZ_USER_SIZE;
	len = (size_t)(hdr[2] | hdr[3] << 8);
	if (len > HL_FUZZ_USER_SIZE - off)
		len = HL_FUZZ_USER_SIZE - off;
	take(p, left, user + off, len);
}

static void run_record(struct hfd_ctx *compute, struct hfd_ctx *control,
		       const uint8_t **p, size_t *left, struct fuzz_refs *r)
{
	struct hfd_ctx *ctx = **p & 0x80 ? control : compute;
	unsigned int sel = **p, kind = (sel & 0x0f) % HL_FUZZ_KINDS, cmd;
	uint8_t raw[4];

	(*p)++;
	(*left)--;
	switch (kind) {
	case K_RAW:
		take(p, left, raw, sizeof(raw));
		memcpy(&cmd, raw, sizeof(cmd));
		request(ctx, cmd, -1, false, p, left, r);
		break;
	case K_USER:
		user_write(p, left);
		break;
	case K_CBW:
		cb_write(compute, p, left, r);
		break;
	default:
		cmd = sel & 0x10 ? drm_codes[kind] : h_codes[kind];
		if ((sel & 0x20) && *left) {
			cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
				   **p);
			(*p)++;
			(*left)--;
		}
		request(ctx, cmd, (int)kind, sel & 0x40, p, left, r);
		break;
	}
}

/*
 * Seeds
 */

/* A seed being written: records appended to @b */
struct seed {
	uint8_t b[16384];
	size_t len;
};

static void put(struct seed *s, const void *data, size_t n)
{
	if (n > sizeof(s->b) - s->len)
		abort();
	memcpy(s->b + s->len, data, n);
	s->len += n;
}

static void put_req(struct seed *s, unsigned int kind, bool drm,
		    const void *arg, size_t n)
{
	uint8_t sel = (uint8_t)(kind | (drm ? 0x10 : 0));

	put(s, &sel, 1);
	put(s, arg, n);
}

static void put_user(struct seed *s, uint16_t off, const void *data, uint16_t n)
{
	uint8_t hdr[5] = { K_USER, (uint8_t)off, (uint8_t)(off >> 8),
			   (uint8_t)n, (uint8_t)(n >> 8) };

	put(s, hdr, sizeof(hdr));
	put(s, data, n);
}

static void put_cb_write(struct seed *s, uint8_t cb, uint16_t off,
			 const void *data, uint16_t n)
{
	uint8_t hdr[6] = { K_CBW,	 cb,
			   (uint8_t)off, (uint8_t)(off >> 8),
			   (uint8_t)n,	 (uint8_t)(n >> 8) };

	put(s, hdr, sizeof(hdr));
	put(s, data, n);
}

static void put_info(struct seed *s, uint32_t op, bool control)
{
	struct hl_info_args a = { .return_pointer = 0,
				  .return_size = 4096,
				  .op = op };
	uint8_t sel = (uint8_t)(HFD_HL_INFO | (control ? 0x80 : 0));

	put(s, &sel, 1);
	put(s, &a, sizeof(a));
}

static void put_mem(struct seed *s, const struct hl_mem_in *in)
{
	union hl_mem_args a = { .in = *in };

	put_req(s, HFD_HL_MEMORY, false, &a, sizeof(a));
}

static void put_cb(struct seed *s, uint32_t op, uint64_t handle, uint32_t size,
		   bool drm)
{
	union hl_cb_args a = {
		.in = { .cb_handle = handle, .op = op, .cb_size = size }
	};

	put_req(s, HFD_HL_CB, drm, &a, sizeof(a));
}

/* A CS of one chunk at user offset 0, a kernel CB (ref 0) of @size bytes */
static void put_cs(struct seed *s, uint32_t qid, uint32_t size, bool drm)
{
	struct hl_cs_chunk c = { .cb_handle = 0,
				 .queue_index = qid,
				 .cb_size = size };
	union hl_cs_args a = { .in = { .chunks_execute = 0,
				       .num_chunks_execute = 1 } };

	put_user(s, 0, &c, sizeof(c));
	put_req(s, HFD_HL_CS, drm, &a, sizeof(a));
}

/* A WAIT_CS for @seq (@multi: for CSs 1 and 2); @defer: up to 100 ms,
 * answered later when not at once */
static void put_wait(struct seed *s, uint64_t seq, bool multi, bool defer)
{
	union hl_wait_cs_args a = {
		.in = { .seq = seq, .timeout_us = defer ? 100000 : 0 }
	};
	uint8_t sel = HFD_HL_WAIT_CS | 0x10 | (defer ? 0x40 : 0);

	if (multi) {
		uint64_t seqs[2] = { 1, 2 };

		put_user(s, 1024, seqs, sizeof(seqs));
		a.in.seq = 1024;
		a.in.seq_arr_len = 2;
		a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	}
	put(s, &sel, 1);
	put(s, &a, sizeof(a));
}

/* An interrupt WAIT_CS (id @id) for @target: on the 64-bit word @idx of
 * CB ref @cb (@kernel_cq), else at user offset @addr; @defer: up to
 * 100 ms, answered later when not at once */
static void put_irq_wait(struct seed *s, bool kernel_cq, uint64_t what,
			 uint64_t idx, uint32_t id, uint64_t target, bool defer)
{
	union hl_wait_cs_args a = {
		.in = { .seq = what,
			.timeout_us = target,
			.flags = HL_WAIT_CS_FLAGS_INTERRUPT | id << 20 |
				 (kernel_cq ?
					  HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ :
					  0),
			.cq_counters_offset = idx }
	};
	uint64_t timeout_us = defer ? 100000 : 0;
	uint8_t sel = HFD_HL_WAIT_CS | (defer ? 0x40 : 0);

	memcpy(&a.in.seq_arr_len, &timeout_us, sizeof(timeout_us));
	put(s, &sel, 1);
	put(s, &a, sizeof(a));
}

/* A MSG_LONG (with a message barrier) of @value to register @reg */
static size_t put_reg(struct hl_pkt_msg_long *p, size_t n, uint32_t reg,
		      uint32_t value)
{
	p[n] = (struct hl_pkt_msg_long){
		.value = value,
		.ctl = (uint32_t)HL_PACKET_MSG_LONG << HL_PKT_CTL_OPCODE_SHIFT |
		       HL_PKT_CTL_MB,
		.addr = HL_CFG_BASE + reg,
	};
	return n + 1;
}

static void add_seeds(const char *dir)
{
	struct hl_pkt_nop nops[2] = {
		{ .ctl = (uint32_t)HL_PACKET_NOP << HL_PKT_CTL_OPCODE_SHIFT |
			 HL_PKT_CTL_MB },
		{ .ctl = (uint32_t)HL_PACKET_NOP << HL_PKT_CTL_OPCODE_SHIFT },
	};
	static struct hl_pkt_nop long_cb[4096 / sizeof(struct hl_pkt_nop)];
	static struct hl_cs_chunk chunks[64];
	struct hl_mem_in m;
	struct seed s;
	size_t i;

	if (!dir)
		return;
	/* INFO HW_IP_INFO on both nodes, DRAM usage, device status */
	s.len = 0;
	put_info(&s, HL_INFO_HW_IP_INFO, false);
	put_info(&s, HL_INFO_HW_IP_INFO, true);
	put_info(&s, HL_INFO_DRAM_USAGE, false);
	put_info(&s, HL_INFO_DEVICE_STATUS, true);
	fuzz_seed_add(dir, "info", s.b, s.len);

	/* MEMORY: ALLOC 2 MiB, MAP it, UNMAP, FREE; host memory MAP/UNMAP */
	s.len = 0;
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_ALLOC;
	m.alloc.mem_size = 2 << 20;
	put_mem(&s, &m);
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_MAP;
	m.map_device.handle = 1; /* a fresh context's first handle */
	put_mem(&s, &m);
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_UNMAP;
	m.unmap.device_virt_addr = 0; /* ref 0: the first MAP's address */
	put_mem(&s, &m);
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_FREE;
	m.free.handle = 1;
	put_mem(&s, &m);
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_MAP;
	m.flags = HL_MEM_USERPTR;
	m.map_host.host_virt_addr = 0; /* the region's start */
	m.map_host.mem_size = 8192;
	put_mem(&s, &m);
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_UNMAP;
	m.unmap.device_virt_addr = 1; /* ref 1 */
	put_mem(&s, &m);
	fuzz_seed_add(dir, "memory", s.b, s.len);

	/* CB CREATE twice, INFO, DESTROY, the second left to the release */
	s.len = 0;
	put_cb(&s, HL_CB_OP_CREATE, 0, 4096, false);
	put_cb(&s, HL_CB_OP_CREATE, 0, 64, true);
	put_cb(&s, HL_CB_OP_INFO, 0, 0, false);
	put_cb(&s, HL_CB_OP_DESTROY, 0, 0, true);
	fuzz_seed_add(dir, "cb", s.b, s.len);

	/* CS: a kernel CB of two NOPs on PDMA 0 stream 0 and a WAIT_CS that
	 * may be answered later, then a second CS and a MULTI_CS wait for
	 * both (later, then at once), a wait for each at once */
	s.len = 0;
	put_cb(&s, HL_CB_OP_CREATE, 0, sizeof(nops), false);
	put_cb_write(&s, 0, 0, nops, sizeof(nops));
	put_cs(&s, HL_GAUDI2_QUEUE_ID_PDMA_0_0, sizeof(nops), false);
	put_wait(&s, 1, false, true);
	put_cs(&s, HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0, sizeof(nops), true);
	put_wait(&s, 0, true, true);
	put_wait(&s, 0, true, false);
	put_wait(&s, 1, false, false);
	put_wait(&s, 2, false, false);
	put_cb(&s, HL_CB_OP_DESTROY, 0, 0, false);
	fuzz_seed_add(dir, "cs", s.b, s.len);

	/* CS of a user CB: two NOPs in host memory mapped with USERPTR,
	 * the chunk naming its device VA (ref 0) */
	s.len = 0;
	memset(&m, 0, sizeof(m));
	m.op = HL_MEM_OP_MAP;
	m.flags = HL_MEM_USERPTR;
	m.map_host.host_virt_addr = 8192;
	m.map_host.mem_size = 4096;
	put_mem(&s, &m);
	put_user(&s, 8192, nops, sizeof(nops));
	{
		struct hl_cs_chunk c = {
			.cb_handle = 0,
			.queue_index = HL_GAUDI2_QUEUE_ID_PDMA_1_0,
			.cb_size = sizeof(nops),
			.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB,
		};
		union hl_cs_args a = { .in = { .chunks_execute = 256,
					       .num_chunks_execute = 1 } };

		put_user(&s, 256, &c, sizeof(c));
		put_req(&s, HFD_HL_CS, false, &a, sizeof(a));
	}
	put_wait(&s, 1, false, true);
	fuzz_seed_add(dir, "cs-user", s.b, s.len);

	/* FORCE_RESTORE: a restore chunk and an execute chunk of a kernel
	 * CB of two NOPs; the restore CS (1) ends before the execute CS (2)
	 * is fetched; a wait for 2 that may be answered later */
	s.len = 0;
	put_cb(&s, HL_CB_OP_CREATE, 0, sizeof(nops), false);
	put_cb_write(&s, 0, 0, nops, sizeof(nops));
	chunks[0] = (struct hl_cs_chunk){
		.queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
		.cb_size = sizeof(nops),
	};
	chunks[1] = chunks[0];
	chunks[1].queue_index = HL_GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0;
	put_user(&s, 0, chunks, 2 * sizeof(chunks[0]));
	{
		union hl_cs_args a = {
			.in = { .chunks_restore = 0,
				.chunks_execute = sizeof(chunks[0]),
				.num_chunks_restore = 1,
				.num_chunks_execute = 1,
				.cs_flags = HL_CS_FLAGS_FORCE_RESTORE }
		};

		put_req(&s, HFD_HL_CS, false, &a, sizeof(a));
	}
	put_wait(&s, 2, false, true);
	fuzz_seed_add(dir, "cs-restore", s.b, s.len);

	/* The context's first CS, whose restore chunk (a user CB: a LIN_DMA
	 * memset of NOP packets into SRAM + 0x2000) writes the user CB its
	 * execute chunk runs from SRAM: the restore CS (1) ends before the
	 * execute CS (2) is fetched */
	s.len = 0;
	put_mem(&s, &m);
	{
		const uint64_t sram_cb = 0x80000000000ULL + 0x2000;
		struct hl_pkt_lin_dma d = {
			.tsize = sizeof(nops),
			.ctl = HL_PACKET_LIN_DMA << HL_PKT_CTL_OPCODE_SHIFT |
			       HL_LIN_DMA_CTL_MEMSET,
			.src_addr = (uint64_t)(HL_PACKET_NOP
					       << HL_PKT_CTL_OPCODE_SHIFT)
				    << 32,
			.dst_addr = sram_cb,
		};
		struct hl_cs_chunk c[2] = {
			{ .cb_handle = 0,
			  .queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
			  .cb_size = sizeof(d),
			  .cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB },
			{ .cb_handle = sram_cb,
			  .queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
			  .cb_size = sizeof(nops),
			  .cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB },
		};
		union hl_cs_args a = { .in = { .chunks_restore = 256,
					       .chunks_execute =
						       256 + sizeof(c[0]),
					       .num_chunks_restore = 1,
					       .num_chunks_execute = 1 } };

		put_user(&s, 8192, &d, sizeof(d));
		put_user(&s, 256, c, sizeof(c));
		put_req(&s, HFD_HL_CS, false, &a, sizeof(a));
	}
	put_wait(&s, 2, false, true);
	fuzz_seed_add(dir, "cs-restore-sram", s.b, s.len);

	/* A long CS: 64 chunks of a 4 KiB kernel CB of NOPs on PDMA 0, and
	 * a WAIT_CS right after it that may be answered later (the model
	 * ends the CS first so far: no wait was deferred in this session's
	 * runs) */
	s.len = 0;
	put_cb(&s, HL_CB_OP_CREATE, 0, sizeof(long_cb), false);
	for (i = 0; i < sizeof(long_cb) / sizeof(nops[0]); i++)
		long_cb[i] = nops[0];
	put_cb_write(&s, 0, 0, long_cb, sizeof(long_cb));
	for (i = 0; i < 64; i++)
		chunks[i] = (struct hl_cs_chunk){
			.queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
			.cb_size = sizeof(long_cb),
		};
	put_user(&s, 0, chunks, sizeof(chunks));
	{
		union hl_cs_args a = { .in = { .num_chunks_execute = 64 } };

		put_req(&s, HFD_HL_CS, false, &a, sizeof(a));
	}
	put_wait(&s, 1, false, true);
	fuzz_seed_add(dir, "cs-long", s.b, s.len);

	/* User interrupts: a mapped kernel CB (ref 0, a fresh context's
	 * first CB VA: the pool's start) holds CQ 5's counter; a wait on
	 * interrupt 3 for 101 that may be answered later, a CS (kernel CB
	 * ref 1 on PDMA 0) setting up the CQ and firing monitor 2 (SOB 7 ==
	 * 1, CQ_EN | LBW_EN, payload 101), a wait that then answers at
	 * once, an address wait on a value already reached */
	s.len = 0;
	{
		union hl_cb_args a = { .in = { .op = HL_CB_OP_CREATE,
					       .cb_size = 64,
					       .flags = HL_CB_FLAGS_MAP } };
		static struct hl_pkt_msg_long p[16];
		const uint64_t va = HPU_FW_VA_HOST_END;
		const uint64_t msix = 0x1000007FFCC17000ULL;
		const uint32_t cq = 4 * 5, mon = 4 * 2;
		uint64_t seven = 7;
		size_t n = 0;

		put_req(&s, HFD_HL_CB, false, &a, sizeof(a));
		put_cb(&s, HL_CB_OP_CREATE, 0, sizeof(p), false);
		put_irq_wait(&s, true, 0, 0, 3, 101, true);
		n = put_reg(p, n, 0x411E050 + cq, (uint32_t)va);
		n = put_reg(p, n, 0x411E150 + cq, (uint32_t)(va >> 32));
		n = put_reg(p, n, 0x411E550 + cq, (uint32_t)msix);
		n = put_reg(p, n, 0x411E650 + cq, (uint32_t)(msix >> 32));
		n = put_reg(p, n, 0x411E750 + cq, 3);
		n = put_reg(p, n, 0x411E850 + cq, 0);
		n = put_reg(p, n, 0x4100000 + 4 * 7, 1);
		n = put_reg(p, n, 0x4110000 + mon, 1U << 4 | 1U << 8);
		n = put_reg(p, n, 0x4108000 + mon, 5);
		n = put_reg(p, n, 0x410A000 + mon, 0);
		n = put_reg(p, n, 0x410C000 + mon, 101);
		n = put_reg(p, n, 0x410E000 + mon,
			    0 | (~(1U << 7) & 0xFFU) << 8 | 1U << 16 |
				    1U << 17);
		put_cb_write(&s, 1, 0, p, (uint16_t)(n * sizeof(p[0])));
		chunks[0] = (struct hl_cs_chunk){
			.cb_handle = 1,
			.queue_index = HL_GAUDI2_QUEUE_ID_PDMA_0_0,
			.cb_size = (uint32_t)(n * sizeof(p[0])),
		};
		put_user(&s, 0, chunks, sizeof(chunks[0]));
		{
			union hl_cs_args c = { .in = { .num_chunks_execute =
							       1 } };

			put_req(&s, HFD_HL_CS, false, &c, sizeof(c));
		}
		put_wait(&s, 1, false, true);
		put_irq_wait(&s, true, 0, 0, 3, 101, false);
		put_user(&s, 2048, &seven, sizeof(seven));
		put_irq_wait(&s, false, 2048, 0, 0xFFF, 5, true);
	}
	fuzz_seed_add(dir, "irq", s.b, s.len);

	/* DEBUG: debug mode on, a trace op, off; a raw code of neither set */
	s.len = 0;
	{
		struct hl_debug_args d = { .op = HL_DEBUG_OP_SET_MODE,
					   .enable = 1 };
		unsigned int bad = _IOWR('H', 0x07, struct hl_debug_args);
		uint8_t sel = K_RAW;

		put_req(&s, HFD_HL_DEBUG, false, &d, sizeof(d));
		d.op = HL_DEBUG_OP_ETR;
		put_req(&s, HFD_HL_DEBUG, true, &d, sizeof(d));
		d.op = HL_DEBUG_OP_SET_MODE;
		d.enable = 0;
		put_req(&s, HFD_HL_DEBUG, false, &d, sizeof(d));
		put(&s, &sel, 1);
		put(&s, &bad, sizeof(bad));
		put(&s, &d, sizeof(d));
	}
	fuzz_seed_add(dir, "debug", s.b, s.len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uint64_t total;

	user = mmap(NULL, HL_FUZZ_USER_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (user == MAP_FAILED)
		abort();
	user_pid = fuzz_user_fork();
	if (user_pid < 0 ||
	    hfd_driver_init(&drv, &hpusim_model, "gaudi2", 1, "/fuzz"))
		abort();
	drv.devs[0].model->ops->mem_usage(drv.devs[0].fw, &base_used, &total);
	trace = getenv("HL_FUZZ_TRACE");
	add_seeds(fuzz_corpus_dir(*argc, *argv));
	return 0;
}

/* After the input: what the contexts held is back */
static void check_released(struct hfd_ctx *compute)
{
	struct hfd_device *dev = &drv.devs[0];
	uint64_t used = 0, total = 0;

	if (hfd_hl_cb_count(compute, NULL) ||
	    __atomic_load_n(&compute->dram_bytes, __ATOMIC_RELAXED))
		abort();
	dev->model->ops->mem_usage(dev->fw, &used, &total);
	if (used != base_used)
		abort();
}

/*
 * The release answered every deferred wait (a completion or the timer
 * thread may be answering one still: bounded, not timed)
 */
static void wait_answers(void)
{
	unsigned int i, n;

	for (i = 0;; i++) {
		n = __atomic_load_n(&answered, __ATOMIC_ACQUIRE);
		if (n > deferred || (n < deferred && i == 10000))
			abort(); /* answered twice, or never */
		if (n == deferred)
			break;
		usleep(1000);
	}
	deferred = 0;
	__atomic_store_n(&answered, 0, __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hfd_device *dev = &drv.devs[0];
	struct hfd_ctx *compute, *control;
	struct fuzz_refs refs = { 0 };
	const uint8_t *p = data;
	size_t left = size;
	unsigned int n = 0;

	memset(user, 0, HL_FUZZ_USER_SIZE);
	/* the previous input's compute context is gone: the open is free */
	if (hfd_ctx_open_exclusive(dev, false, true, user_pid, getuid(),
				   getgid(), &compute))
		abort();
	if (hfd_ctx_open_exclusive(dev, true, true, user_pid, getuid(),
				   getgid(), &control))
		abort();
	while (left > 0 && n++ < HL_FUZZ_MAX_RECORDS)
		run_record(compute, control, &p, &left, &refs);
	hfd_ctx_get(compute);
	hfd_ctx_release(control);
	hfd_ctx_release(compute);
	wait_answers();
	check_released(compute);
	hfd_ctx_put(compute);
	/* a fatal injection must not leave the next inputs a failed device */
	if (hfd_device_failed(dev))
		hfd_device_reset(dev, HPU_RESET_HARD, NULL, true,
				 "fuzz input done");
	__atomic_store_n(&dev->hang_armed, false, __ATOMIC_RELEASE);
	return 0;
}
