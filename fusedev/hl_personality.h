/* SPDX-License-Identifier: MIT */
/*
 * hl_personality.h - the habanalabs personality of hpu-fused
 * (docs/habanalabs.md): the real driver's ABI (uapi/hl_uapi.h) served on
 * hlN / hl_controlDN / accelN / accel_controlDN nodes of Gaudi2 devices,
 * beside the hpu ABI of hpuN / hpu_controlN.
 *
 *	hl_ioctl.c  request codes of both sets, the control-node rule, the
 *	            argument sizes, the families
 *	hl_info.c   INFO: every op, answered from the device model
 *	hl_debug.c  DEBUG: the device's debug mode
 *	hl_memory.c MEMORY: device and host memory, by the hpu handler
 *	hl_cb.c     CB: kernel CBs, mmap()ed through the node's page cache
 *	hl_cs.c     CS and WAIT_CS: Gaudi2 chunks and queues, by the hpu
 *	            submission and wait paths
 *	hl_packets.c the Gaudi2 packets: validated, translated to hpu ones
 *	hl_sync.c   the sync manager: SOBs, monitors, QMAN fence counters
 *	hl_cp_dma.c CP_DMA: lower CBs fetched and put in place of the packet
 *	hl_qman.c   the QMAN CPs' predicates, LOAD_AND_EXE and CB_LIST,
 *	            done before the translation
 *	hl_cs_stream.c sync-stream CSs (SIGNAL, WAIT), the queues' PQ room
 */
#ifndef HL_PERSONALITY_H
#define HL_PERSONALITY_H

#include "hl_uapi.h"
#include "hpu_fused.h"
#include "hpu_fused_submit.h"

/* Families of the request codes: 'H' nr - 1, DRM nr - DRM_COMMAND_BASE */
enum hfd_hl_family {
	HFD_HL_INFO = 0,
	HFD_HL_CB,
	HFD_HL_CS,
	HFD_HL_WAIT_CS,
	HFD_HL_MEMORY,
	HFD_HL_DEBUG,
	HFD_HL_NR_FAMILIES,
};

/* Largest argument struct of the ABI (WAIT_CS) */
#define HFD_HL_MAX_ARG_SIZE 56

int hfd_hl_family(unsigned int cmd);
bool hfd_hl_device_ok(const struct hfd_device *dev);
int hfd_hl_ioctl_dispatch(const struct hfd_ioctl_call *call, unsigned int cmd,
			  const void *in, size_t in_size, void *out,
			  size_t *out_size);
int hfd_hl_info(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_debug(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_memory(const struct hfd_ioctl_call *call, void *data);
uint32_t hfd_hl_info_size(uint32_t op);
int hfd_hl_cs(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_wait_cs(const struct hfd_ioctl_call *call, void *data);

struct hfd_hl_stream;
struct hl_pq_rec;
struct hfd_hl_stream *hfd_hl_stream_get(struct hfd_ctx *ctx);
void hfd_hl_stream_free(struct hfd_hl_stream *s);
void hfd_hl_stream_lock(struct hfd_hl_stream *s);
void hfd_hl_stream_unlock(struct hfd_hl_stream *s);
int hfd_hl_pq_reserve_locked(struct hfd_ctx *ctx, struct hfd_hl_stream *s,
			     const uint32_t *qids, uint32_t n,
			     struct hl_pq_rec **rec);
void hfd_hl_pq_commit_locked(struct hfd_hl_stream *s, struct hl_pq_rec *r,
			     uint64_t seq);
int hfd_hl_cs_stream(const struct hfd_ioctl_call *call, union hl_cs_args *args);
int hfd_hl_cs_submit(const struct hfd_ioctl_call *call, union hl_cs_args *args,
		     struct hfd_cs_desc *d);

/* hpu packet bytes per Gaudi2 packet byte, at most (MSG_SHORT to a
 * MON_ARM of a monitor with two payloads: 8 -> two ARM_MONITORs of 40) */
#define HFD_HL_XLATE_RATIO 10

struct hfd_hl_sync;

/**
 * struct hfd_hl_xlate - what translating one chunk's packets needs
 * @kind: the kind of the hpu queue the chunk runs on
 * @sram_base: the SRAM window as HW_IP_INFO gives it
 * @sram_size: its bytes
 * @sram_va: where the context maps SRAM (0: not mapped)
 * @qid: the chunk's Gaudi2 queue id (its QMAN and stream: FENCE)
 * @sync: the context's sync-manager state (hl_sync.h), locked by the
 *	caller; NULL: every sync-manager packet is bad
 * @lower_cp: the packets run on the QMAN's lower CP (a CB fetched by
 *	CP_DMA): a FENCE waits on the lower CP's counters (CP 4), which a
 *	monitor reaches at QM_CP_FENCEf_RDATA_4
 */
struct hfd_hl_xlate {
	enum hfd_queue_kind kind;
	uint64_t sram_base;
	uint64_t sram_size;
	uint64_t sram_va;
	uint32_t qid;
	struct hfd_hl_sync *sync;
	bool lower_cp;
};

uint64_t hfd_hl_sram_xlate(const struct hfd_hl_xlate *x, uint64_t addr,
			   uint64_t len);
uint16_t hfd_hl_hpu_flags(uint32_t ctl);

int hfd_hl_packets_translate(const void *cb, size_t size,
			     const struct hfd_hl_xlate *x, uint8_t *out,
			     size_t *out_len, size_t *bad_off);
int hfd_hl_queue(const struct hpu_fw_profile *p, uint32_t qid);
size_t hfd_hl_packet_size(uint32_t opcode);

/* Bytes of lower CBs (CP_DMA) one CS may fetch, all chunks together */
#define HFD_HL_CP_DMA_MAX (8U << 20)

/**
 * hfd_hl_fetch_fn - read @len bytes at device VA @va of the CS's context
 * (host mappings, DRAM, the SRAM window) into @buf; 0 or -errno
 */
typedef int (*hfd_hl_fetch_fn)(void *arg, uint64_t va, uint32_t len, void *buf);

/**
 * struct hfd_hl_lower_cb - where a lower CB landed in an expanded CB
 * @off: its first byte
 * @len: its bytes
 */
struct hfd_hl_lower_cb {
	size_t off;
	size_t len;
};

/**
 * struct hfd_hl_lower_cbs - the lower CBs of an expanded CB, in order
 * @r: @n of them (malloc'd; the caller frees)
 * @n: lower CBs
 * @room: entries at @r
 */
struct hfd_hl_lower_cbs {
	struct hfd_hl_lower_cb *r;
	size_t n;
	size_t room;
};

int hfd_hl_put_bytes(uint8_t **o, size_t *n, size_t *room, const void *p,
		     size_t len);
int hfd_hl_cp_dma_expand(const uint8_t *cb, size_t size, hfd_hl_fetch_fn fetch,
			 void *arg, uint32_t *budget, uint8_t **out,
			 size_t *out_size, struct hfd_hl_lower_cbs *lower);
int hfd_hl_cp_dma_translate(const uint8_t *cb, size_t size,
			    const struct hfd_hl_lower_cbs *lower,
			    const struct hfd_hl_xlate *x, uint8_t *out,
			    size_t *out_len, size_t *bad_off);
/* CB_LISTs one chunk may run, and CBs nested through their tables */
#define HFD_HL_CB_LIST_MAX 1024
#define HFD_HL_CB_DEPTH	   64

/**
 * struct hfd_hl_cp - what a QMAN stream's upper CP keeps between CBs
 * @pred: predicates P0..P31 (P0 always set)
 * @rf: the scalar registers R0..R3, as bytes
 */
struct hfd_hl_cp {
	uint32_t pred;
	uint8_t rf[16];
};

/* QMANs by queue id / 4 (4 streams each; CPU_PQ alone in the last) */
#define HFD_HL_NR_QMANS                                               \
	((HL_GAUDI2_QUEUE_ID_SIZE + HL_GAUDI2_STREAMS_PER_QMAN - 1) / \
	 HL_GAUDI2_STREAMS_PER_QMAN)

/**
 * struct hfd_hl_cps - a context's upper CPs, by Gaudi2 queue id
 * @resets: the device's resets when they were set up (a reset clears
 *	them)
 * @cp: one per queue id (QMAN stream)
 * @lower: the lower CP of each QMAN (queue id / 4)
 */
struct hfd_hl_cps {
	uint32_t resets;
	struct hfd_hl_cp cp[HL_GAUDI2_QUEUE_ID_SIZE];
	struct hfd_hl_cp lower[HFD_HL_NR_QMANS];
};

void hfd_hl_cps_init(struct hfd_hl_cps *c, uint32_t resets);
bool hfd_hl_qman_needed(const uint8_t *cb, size_t size);
int hfd_hl_qman_walk(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
		     hfd_hl_fetch_fn fetch, void *arg, uint32_t *budget,
		     uint8_t **out, size_t *out_size);
int hfd_hl_qman_walk_lower(const uint8_t *cb, size_t size, struct hfd_hl_cp *cp,
			   hfd_hl_fetch_fn fetch, void *arg, uint32_t *budget,
			   uint8_t **out, size_t *out_size);
bool hfd_hl_qman_lower_needed(const uint8_t *cb, size_t size,
			      const struct hfd_hl_lower_cbs *lower);
int hfd_hl_qman_walk_lower_cbs(const uint8_t *cb, size_t size,
			       struct hfd_hl_lower_cbs *lower,
			       struct hfd_hl_cp *cp, hfd_hl_fetch_fn fetch,
			       void *arg, uint32_t *budget, uint8_t **out,
			       size_t *out_size);
uint32_t hfd_hl_stream_of(const struct hpu_fw_profile *p, uint32_t qid);

/*
 * Kernel CB handles are mmap offsets as the real driver makes them (its
 * habanalabs.h, not the uapi): (page | HL_MMAP_TYPE_CB) << PAGE_SHIFT,
 * the type in bits 59..63 of the offset, the page below 2^33.
 */
#define HL_PAGE_SHIFT	     12
#define HL_MMAP_TYPE_SHIFT   (59 - HL_PAGE_SHIFT)
#define HL_MMAP_TYPE_CB_PAGE (0x2ULL << HL_MMAP_TYPE_SHIFT)
#define HL_MMAP_OFFSET_PAGES ((0x1FFFFFFFFFFFULL >> HL_PAGE_SHIFT) + 1)
/* The size an hlN/accelN node reports: the end of the CB offsets */
#define HL_CB_FILE_SIZE \
	((HL_MMAP_TYPE_CB_PAGE + HL_MMAP_OFFSET_PAGES) << HL_PAGE_SHIFT)

int hfd_hl_cb(const struct hfd_ioctl_call *call, void *data);
int hfd_hl_cb_attach(struct hfd_ctx *ctx, struct fuse_session *se,
		     uint64_t ino);
void hfd_hl_cb_fs_read(struct hfd_ctx *ctx, uint64_t off, size_t size,
		       void *buf);
int hfd_hl_cb_fs_write(struct hfd_ctx *ctx, uint64_t off, size_t size,
		       const void *buf);
void hfd_hl_cb_retrieve_reply(fuse_req_t req, void *cookie,
			      struct fuse_bufvec *bufv);
bool hfd_hl_cb_mapped(const struct hfd_ctx *ctx, uint64_t ino, uint64_t off,
		      uint64_t len);
int hfd_hl_cb_usage(struct hfd_ctx *ctx, uint64_t handle, bool use);
int hfd_hl_cb_by_va(struct hfd_ctx *ctx, uint64_t va, uint64_t *handle,
		    uint64_t *off, uint32_t *size);
unsigned int hfd_hl_cb_count(struct hfd_ctx *ctx, unsigned int *live);
void hfd_hl_cb_ctx_fini(struct hfd_ctx *ctx);

/**
 * hfd_hl_cb_read() - read a kernel CB's bytes as the client last wrote
 * them (for CS: the jobs of a CB given by handle)
 * @ctx: the CB's context (the CS's)
 * @handle: the CB's handle (CB CREATE's answer)
 * @off: first byte, from the CB's start
 * @len: bytes
 * @buf: receives @len bytes
 *
 * The bytes the client's mapping holds now: the node's pages the kernel
 * caches (dirty ones too) through FUSE_NOTIFY_RETRIEVE, the others from
 * the daemon's copy (hl_cb.c). It sleeps until the kernel answers (a
 * FUSE worker serves the reply): call it from an ioctl's worker, holding
 * no lock the FUSE loop needs.
 *
 * Return: 0; -EINVAL for a handle that is not a live CB of @ctx (never
 * made, destroyed, another context's) or a range beyond the CB's size;
 * -ENOMEM; -EIO when the kernel did not answer (bounded wait).
 */
int hfd_hl_cb_read(struct hfd_ctx *ctx, uint64_t handle, uint64_t off,
		   uint32_t len, void *buf);
int hfd_hl_cb_peek(struct hfd_ctx *ctx, uint64_t handle, uint64_t off,
		   uint32_t len, void *buf);
int hfd_hl_cb_store(struct hfd_ctx *ctx, uint64_t va, const void *buf,
		    uint32_t len);

/* User interrupts (hl_irq.c): WAIT_CS with HL_WAIT_CS_FLAGS_INTERRUPT */
struct hfd_hl_sync;
/* Ids of interrupt waiters (FUSE interrupts) have this bit; WAIT_CS's not */
#define HFD_HL_IRQ_WAITER_ID (1ULL << 63)
int hfd_hl_irq_wait(const struct hfd_ioctl_call *call,
		    union hl_wait_cs_args *args, struct hfd_hl_sync *s);
void hfd_hl_irq_cs_ended(struct hfd_ctx *ctx);
void hfd_hl_irq_interrupt(uint64_t id);
void hfd_hl_irq_ctx_fini(struct hfd_ctx *ctx);

#endif /* HL_PERSONALITY_H */
