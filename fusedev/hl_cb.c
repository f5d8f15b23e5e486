// SPDX-License-Identifier: MIT
/*
 * hl_cb.c - kernel command buffers of the habanalabs personality
 * (docs/habanalabs.md, "CB"): CB CREATE/DESTROY/INFO with the real
 * struct, limits and errors, and the CB memory the client maps with
 * mmap(fd, handle) through the FUSE page cache of its node.
 *
 * A CB's bytes live in two places: the daemon's copy (@mem, what FUSE
 * READ hands the page cache and FUSE WRITE writes back) and the kernel's
 * page cache of the node, which the client's mapping shares. The page
 * cache is the newer of the two (dirty pages not yet written back), so
 * hfd_hl_cb_read() asks the kernel for the cached pages with
 * FUSE_NOTIFY_RETRIEVE and takes a page the kernel does not hold from
 * the daemon's copy (a page leaves the cache only clean, i.e. written
 * back).
 *
 * Handles are mmap offsets as the real driver's: (page | HL_MMAP_TYPE_CB)
 * << PAGE_SHIFT. FUSE mmaps of one node share one page cache, so a CB
 * owns the file pages [page, page + its pages) plus a guard page:
 * @page advances per device by that much and is never reused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "hl_personality.h"

#define HL_CB_PAGE		 4096ULL
/* The guard page after each CB: readahead past its end reads zeros */
#define HL_CB_GUARD_PAGES	 1
/* Largest piece one FUSE_NOTIFY_RETRIEVE is asked for (the kernel cuts
 * to its max_write and max_pages) */
#define HL_CB_RETRIEVE_MAX	 (128 * 1024)
/*
 * The device VAs of CBs made with HL_CB_FLAGS_MAP: a pool of 4 GiB per
 * context as the real driver's (CB_VA_POOL_SIZE), here just above the
 * model's host range, so it meets no mapping of MEMORY
 */
#define HL_CB_VA_BASE		 HPU_FW_VA_HOST_END
#define HL_CB_VA_POOL_SIZE	 (4ULL << 30)
/* How long hfd_hl_cb_read() waits for the kernel's answer */
#define HL_CB_RETRIEVE_TIMEOUT_S 10

/**
 * struct hl_cb - one kernel CB
 * @handle: the handle (mmap offset)
 * @size: bytes asked for
 * @va: device VA (HL_CB_FLAGS_MAP), or 0
 * @mem: the daemon's copy, @size rounded up to pages (an anonymous
 *	mapping: zero, backed only where written)
 * @usage: CSs using it (INFO's usage count)
 * @destroyed: DESTROY came: no longer found by handle, kept while the
 *	client may still map it or a CS uses it
 * @touched: the kernel read or wrote its pages (they may be cached)
 * @refs: hfd_hl_cb_read() calls in progress on it
 * @next: next CB of the context
 */
struct hl_cb {
	uint64_t handle;
	uint32_t size;
	uint64_t va;
	uint8_t *mem;
	uint32_t usage;
	bool destroyed;
	bool touched;
	uint32_t refs;
	struct hl_cb *next;
};

/**
 * struct hfd_hl_cbs - the kernel CBs of one habanalabs compute context
 * @lock: protects everything here and the CBs
 * @list: the CBs, live and destroyed ones still kept
 * @ino: the inode of the node the context was opened through (0: none,
 *	no FUSE: the daemon's copy is the CB)
 * @se: the FUSE session, or NULL
 * @va_used: bytes of the CB VA pool given out (never given back)
 */
struct hfd_hl_cbs {
	pthread_mutex_t lock;
	struct hl_cb *list;
	uint64_t ino;
	struct fuse_session *se;
	uint64_t va_used;
};

/* The next free CB page of each device slot; never goes back */
static uint64_t next_page[HFD_MAX_DEVICES];

static uint64_t cb_pages(uint32_t size)
{
	return (size + HL_CB_PAGE - 1) / HL_CB_PAGE;
}

static uint64_t cb_bytes(const struct hl_cb *cb)
{
	return cb_pages(cb->size) * HL_CB_PAGE;
}

/* The context's CB state, made at the first use */
static struct hfd_hl_cbs *cbs_of(struct hfd_ctx *ctx)
{
	struct hfd_hl_cbs *s, *none = NULL;

	s = __atomic_load_n(&ctx->hl_cbs, __ATOMIC_ACQUIRE);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	if (!__atomic_compare_exchange_n(&ctx->hl_cbs, &none, s, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return none;
	}
	return s;
}

/**
 * hfd_hl_cb_attach() - the FUSE inode a habanalabs compute context's
 * CBs are mapped through
 * @ctx: compute context of an hlN/accelN node
 * @se: the FUSE session
 * @ino: the node's inode
 *
 * Return: 0 or -ENOMEM.
 */
int hfd_hl_cb_attach(struct hfd_ctx *ctx, struct fuse_session *se, uint64_t ino)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	s->se = se;
	s->ino = ino;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* A live (not destroyed) CB by handle; under the lock */
static struct hl_cb *find_live(struct hfd_hl_cbs *s, uint64_t handle)
{
	struct hl_cb *cb;

	for (cb = s->list; cb; cb = cb->next)
		if (cb->handle == handle && !cb->destroyed)
			return cb;
	return NULL;
}

/* The CB whose file pages hold offset @pos (live or kept); under the lock */
static struct hl_cb *find_at(struct hfd_hl_cbs *s, uint64_t pos)
{
	struct hl_cb *cb;

	for (cb = s->list; cb; cb = cb->next)
		if (pos >= cb->handle && pos - cb->handle < cb_bytes(cb))
			return cb;
	return NULL;
}

/* CB memory: whole pages, zero, mapped only when touched */
static uint8_t *mem_alloc(uint64_t pages)
{
	void *p = mmap(NULL, pages * HL_CB_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void free_cb(struct hfd_ctx *ctx, struct hl_cb *cb)
{
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_CBS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, cb_bytes(cb));
	munmap(cb->mem, cb_bytes(cb));
	free(cb);
}

/**
 * hfd_hl_cb_mapped() - whether the opener of a context maps a file range
 * of its node now (its /proc/PID/maps)
 * @ctx: context
 * @ino: inode of the node
 * @off: first byte of the range (a CB's handle)
 * @len: bytes of the range
 *
 * The daemon sees no mmap() or munmap() of a FUSE file: this is how it
 * tells whether destroyed CB memory may still be in use. Mappings that a
 * child inherited after a fork() are not seen.
 *
 * Return: true when a mapping of @ino overlaps the range, or when the
 * maps cannot be read (keep the memory).
 */
bool hfd_hl_cb_mapped(const struct hfd_ctx *ctx, uint64_t ino, uint64_t off,
		      uint64_t len)
{
	unsigned long long start, end, pgoff, inode;
	char path[64], line[512];
	bool mapped = false;
	unsigned int mj, mn;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ctx->pid);
	f = fopen(path, "re");
	if (!f)
		return errno != ENOENT && errno != ESRCH;
	while (!mapped && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end,
			   &pgoff, &mj, &mn, &inode) != 6)
			continue;
		if (inode == ino && pgoff < off + len &&
		    off < pgoff + (end - start))
			mapped = true;
	}
	fclose(f);
	return mapped;
}

#define SWEEP_MAX 16

/* A destroyed CB nothing uses any more; under the lock */
static bool cb_unused(const struct hl_cb *cb)
{
	return cb->destroyed && !cb->usage && !cb->refs;
}

/* The destroyed, unused CB whose handle is @handle; under the lock */
static struct hl_cb **find_unused(struct hfd_hl_cbs *s, uint64_t handle)
{
	struct hl_cb **link;

	for (link = &s->list; *link; link = &(*link)->next)
		if ((*link)->handle == handle && cb_unused(*link))
			return link;
	return NULL;
}

/*
 * Free the destroyed CBs nothing uses any more: at once those whose
 * pages never reached the page cache, the others once the opener maps
 * none of their pages (/proc/PID/maps, read without the lock: a thread
 * of the client may hold its mmap lock while its fault waits for a READ
 * that needs the lock). The pages of the freed ones leave the page
 * cache (after the unlock: the kernel may need a worker to write a
 * dirty page back first). Call without the lock.
 */
static void sweep(struct hfd_ctx *ctx, struct hfd_hl_cbs *s)
{
	uint64_t cand[SWEEP_MAX], len[SWEEP_MAX];
	struct hl_cb **link, *cb;
	bool mapped[SWEEP_MAX];
	unsigned int n = 0, i;
	uint64_t ino;

	pthread_mutex_lock(&s->lock);
	ino = s->ino;
	link = &s->list;
	while ((cb = *link)) {
		if (!cb_unused(cb)) {
			link = &cb->next;
			continue;
		}
		if (cb->touched && ino) {
			if (n < SWEEP_MAX) {
				cand[n] = cb->handle;
				len[n++] = cb_bytes(cb);
			}
			link = &cb->next;
			continue;
		}
		*link = cb->next;
		free_cb(ctx, cb);
	}
	pthread_mutex_unlock(&s->lock);
	if (!n)
		return;

	for (i = 0; i < n; i++)
		mapped[i] = hfd_hl_cb_mapped(ctx, ino, cand[i], len[i]);
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < n; i++) {
		link = mapped[i] ? NULL : find_unused(s, cand[i]);
		if (!link) {
			mapped[i] = true; /* kept: its pages too */
			continue;
		}
		cb = *link;
		*link = cb->next;
		free_cb(ctx, cb);
	}
	pthread_mutex_unlock(&s->lock);
	for (i = 0; s->se && i < n; i++)
		if (!mapped[i])
			fuse_lowlevel_notify_inval_inode(
				s->se, ino, (off_t)cand[i], (off_t)len[i]);
}

static int cb_create(struct hfd_ctx *ctx, struct hfd_hl_cbs *s,
		     const struct hl_cb_in *in, uint64_t *handle)
{
	unsigned int idx = ctx->dev->index;
	uint64_t pages, page;
	struct hl_cb *cb;
	int ret;

	if (in->cb_size > HL_MAX_CB_SIZE)
		return -EINVAL;
	/* the real driver's DMA allocation of 0 bytes fails */
	if (!in->cb_size)
		return -ENOMEM;
	pages = cb_pages(in->cb_size);
	/* the real driver's allocation failures are -ENOMEM: so are the
	 * per-context limits */
	if (hfd_ctx_charge2(ctx, HPU_CTX_LIMIT_CBS, 1,
			    HPU_CTX_LIMIT_PINNED_BYTES, pages * HL_CB_PAGE))
		return -ENOMEM;
	cb = calloc(1, sizeof(*cb));
	if (cb)
		cb->mem = mem_alloc(pages);
	if (!cb || !cb->mem) {
		ret = -ENOMEM;
		goto err_free;
	}
	page = __atomic_fetch_add(&next_page[idx], pages + HL_CB_GUARD_PAGES,
				  __ATOMIC_RELAXED);
	if (page + pages + HL_CB_GUARD_PAGES > HL_MMAP_OFFSET_PAGES) {
		ret = -ENOMEM; /* every handle of the device was given out */
		goto err_free;
	}
	cb->size = in->cb_size;
	cb->handle = (HL_MMAP_TYPE_CB_PAGE | (page + 1)) << HL_PAGE_SHIFT;
	pthread_mutex_lock(&s->lock);
	/* a device VA from the context's pool, as the real driver's */
	if (in->flags & HL_CB_FLAGS_MAP) {
		if (pages * HL_CB_PAGE > HL_CB_VA_POOL_SIZE - s->va_used) {
			pthread_mutex_unlock(&s->lock);
			ret = -ENOMEM;
			goto err_free;
		}
		cb->va = HL_CB_VA_BASE + s->va_used;
		s->va_used += pages * HL_CB_PAGE;
	}
	cb->next = s->list;
	s->list = cb;
	pthread_mutex_unlock(&s->lock);
	*handle = cb->handle;
	return 0;

err_free:
	if (cb && cb->mem)
		munmap(cb->mem, pages * HL_CB_PAGE);
	free(cb);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_CBS, 1);
	hfd_ctx_uncharge(ctx, HPU_CTX_LIMIT_PINNED_BYTES, pages * HL_CB_PAGE);
	return ret;
}

static int cb_destroy(struct hfd_ctx *ctx, struct hfd_hl_cbs *s,
		      uint64_t handle)
{
	struct hl_cb *cb;

	pthread_mutex_lock(&s->lock);
	cb = find_live(s, handle);
	if (!cb) {
		pthread_mutex_unlock(&s->lock);
		return -EINVAL;
	}
	cb->destroyed = true;
	pthread_mutex_unlock(&s->lock);
	sweep(ctx, s);
	return 0;
}

static int cb_info(struct hfd_hl_cbs *s, const struct hl_cb_in *in,
		   struct hl_cb_out *out)
{
	struct hl_cb *cb;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	cb = find_live(s, in->cb_handle);
	if (!cb) {
		ret = -EINVAL;
	} else if (in->flags & HL_CB_FLAGS_GET_DEVICE_VA) {
		if (cb->va) { /* else not mapped to the device's MMU */
			memset(out, 0, sizeof(*out));
			out->device_va = cb->va;
		} else {
			ret = -EINVAL;
		}
	} else {
		memset(out, 0, sizeof(*out));
		out->usage_cnt = cb->usage;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/**
 * hfd_hl_cb() - CB of the habanalabs personality
 * @call: context and requesting thread
 * @data: union hl_cb_args, updated in place
 *
 * CREATE makes a kernel CB of @cb_size bytes (at most HL_MAX_CB_SIZE)
 * and answers its handle, the offset to mmap() it at; DESTROY drops the
 * handle (memory the client still maps, or a CS uses, stays until
 * then); INFO answers the CB's usage count.
 *
 * With HL_CB_FLAGS_MAP, CREATE also gives the CB a device VA from the
 * context's CB pool, which INFO with HL_CB_FLAGS_GET_DEVICE_VA answers
 * (hfd_hl_cb_by_va() finds the CB of such an address).
 *
 * Return: 0; -EBUSY when the device does not work; -EINVAL for an
 * unknown op, a size above HL_MAX_CB_SIZE, an unknown handle (also one
 * destroyed or of another context) and INFO with
 * HL_CB_FLAGS_GET_DEVICE_VA of a CB made without HL_CB_FLAGS_MAP;
 * -ENOMEM for a size of 0, when the context's CB count or bytes limit
 * or its CB VA pool is exhausted, or the daemon is out of memory.
 */
int hfd_hl_cb(const struct hfd_ioctl_call *call, void *data)
{
	union hl_cb_args *args = data;
	struct hl_cb_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	struct hfd_hl_cbs *s;
	uint64_t handle = 0;
	bool ok;
	int ret;

	pthread_mutex_lock(&ctx->dev->ctx_lock);
	ok = ctx->dev->status == HPU_DEVICE_STATUS_OPERATIONAL;
	pthread_mutex_unlock(&ctx->dev->ctx_lock);
	if (!ok)
		return -EBUSY;
	s = cbs_of(ctx);
	if (!s)
		return -ENOMEM;
	switch (in.op) {
	case HL_CB_OP_CREATE:
		ret = cb_create(ctx, s, &in, &handle);
		memset(args, 0, sizeof(*args));
		args->out.cb_handle = handle;
		return ret;
	case HL_CB_OP_DESTROY:
		return cb_destroy(ctx, s, in.cb_handle);
	case HL_CB_OP_INFO:
		return cb_info(s, &in, &args->out);
	default:
		return -EINVAL;
	}
}

/**
 * hfd_hl_cb_usage() - a CS starts or stops using a CB (INFO's usage
 * count; a destroyed CB stays while used)
 * @ctx: compute context
 * @handle: the CB
 * @use: true: one more use (the CB must be live); false: one less
 *
 * Return: 0, or -EINVAL for an unknown handle.
 */
int hfd_hl_cb_usage(struct hfd_ctx *ctx, uint64_t handle, bool use)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	bool swept = false;
	struct hl_cb *cb;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	cb = use ? find_live(s, handle) : find_at(s, handle);
	if (!cb || (!use && (cb->handle != handle || !cb->usage)))
		ret = -EINVAL;
	else if (use)
		cb->usage++;
	else if (!--cb->usage)
		swept = cb->destroyed;
	pthread_mutex_unlock(&s->lock);
	if (swept)
		sweep(ctx, s);
	return ret;
}

/**
 * hfd_hl_cb_by_va() - the live CB that a device VA of the CB pool falls
 * in (a CB made with HL_CB_FLAGS_MAP, given to CS by its address)
 * @ctx: compute context
 * @va: device address
 * @handle: receives the CB's handle
 * @off: receives @va's offset in the CB
 * @size: receives the CB's size
 *
 * Return: 0, or -ENOENT when @va is in no such CB of @ctx.
 */
int hfd_hl_cb_by_va(struct hfd_ctx *ctx, uint64_t va, uint64_t *handle,
		    uint64_t *off, uint32_t *size)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	struct hl_cb *cb;
	int ret = -ENOENT;

	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&s->lock);
	for (cb = s->list; cb; cb = cb->next) {
		if (cb->destroyed || !cb->va || va < cb->va ||
		    va - cb->va >= cb->size)
			continue;
		*handle = cb->handle;
		*off = va - cb->va;
		*size = cb->size;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/**
 * hfd_hl_cb_store() - the device writes @len bytes at device VA @va of
 * a mapped kernel CB of @ctx (a CQ counter, hl_irq.c): into the daemon's
 * copy and, when the CB's pages may be cached, into the node's page
 * cache with FUSE_NOTIFY_STORE (which does not wait for an answer)
 * @ctx: compute context
 * @va: device address
 * @buf: the bytes
 * @len: their count
 *
 * Return: 0, or -ENOENT when [@va, + @len) is in no mapped CB of @ctx.
 */
int hfd_hl_cb_store(struct hfd_ctx *ctx, uint64_t va, const void *buf,
		    uint32_t len)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
	uint64_t pos = 0;
	struct hl_cb *cb;
	bool fuse = false, gone;

	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&s->lock);
	for (cb = s->list; cb; cb = cb->next)
		if (!cb->destroyed && cb->va && va >= cb->va &&
		    va - cb->va < cb->size && len <= cb->size - (va - cb->va))
			break;
	if (!cb) {
		pthread_mutex_unlock(&s->lock);
		return -ENOENT;
	}
	memcpy(cb->mem + (va - cb->va), buf, len);
	if (s->se && s->ino && cb->touched) {
		fuse = true;
		pos = cb->handle + (va - cb->va);
		cb->refs++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!fuse)
		return 0;

	/* never with s->lock: the kernel may wait for a READ of the node */
	bv.buf[0].mem = (void *)buf;
	if (fuse_lowlevel_notify_store(s->se, s->ino, pos, &bv, 0))
		hfd_dbg("hl cb: notify_store at %#" PRIx64 " failed", pos);
	pthread_mutex_lock(&s->lock);
	cb->refs--;
	gone = cb->destroyed;
	pthread_mutex_unlock(&s->lock);
	if (gone)
		sweep(ctx, s);
	return 0;
}

/**
 * hfd_hl_cb_peek() - read the daemon's copy of a live CB (never the page
 * cache: no FUSE round trip, so it may be called from any thread)
 * @ctx: compute context
 * @handle: the CB's handle
 * @off: offset in it
 * @len: bytes
 * @buf: receives them
 *
 * Return: 0, or -EINVAL (no such CB, a range past its size).
 */
int hfd_hl_cb_peek(struct hfd_ctx *ctx, uint64_t handle, uint64_t off,
		   uint32_t len, void *buf)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	struct hl_cb *cb;
	int ret = -EINVAL;

	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	cb = find_live(s, handle);
	if (cb && off <= cb->size && len <= cb->size - off) {
		memcpy(buf, cb->mem + off, len);
		ret = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The page cache's side: FUSE READ and WRITE of an hlN/accelN node   */
/* ---------------------------------------------------------------- */

/**
 * hfd_hl_cb_fs_read() - a FUSE READ of a habanalabs compute node: the
 * kernel fills its page cache (a fault of the client's mapping,
 * readahead, or a read())
 * @ctx: the file's context
 * @off: file offset
 * @size: bytes
 * @buf: receives @size bytes: the CBs' bytes where the range meets a
 *	CB of the context, zeros elsewhere (never a short answer: FUSE
 *	takes one for the end of the file)
 */
void hfd_hl_cb_fs_read(struct hfd_ctx *ctx, uint64_t off, size_t size,
		       void *buf)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	uint8_t *out = buf;
	struct hl_cb *cb;
	uint64_t pos, end = off + size, a, b;

	memset(buf, 0, size);
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (cb = s->list; cb; cb = cb->next) {
		a = cb->handle > off ? cb->handle : off;
		b = cb->handle + cb_bytes(cb) < end ?
			    cb->handle + cb_bytes(cb) :
			    end;
		if (a >= b)
			continue;
		cb->touched = true;
		pos = a - cb->handle;
		memcpy(out + (a - off), cb->mem + pos, b - a);
	}
	pthread_mutex_unlock(&s->lock);
}

/**
 * hfd_hl_cb_fs_write() - a FUSE WRITE of a habanalabs compute node: the
 * kernel writes back dirty pages of the client's mapping (or a write())
 * @ctx: the file's context
 * @off: file offset
 * @size: bytes
 * @buf: the bytes
 *
 * Return: 0 when the range is within one CB of the context (its pages,
 * up to the page end); -EIO otherwise (nothing written).
 */
int hfd_hl_cb_fs_write(struct hfd_ctx *ctx, uint64_t off, size_t size,
		       const void *buf)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	struct hl_cb *cb;
	int ret = -EIO;

	if (!s)
		return -EIO;
	pthread_mutex_lock(&s->lock);
	cb = find_at(s, off);
	if (cb && size <= cb_bytes(cb) - (off - cb->handle)) {
		cb->touched = true;
		memcpy(cb->mem + (off - cb->handle), buf, size);
		ret = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* ---------------------------------------------------------------- */
/* FUSE_NOTIFY_RETRIEVE                                               */
/* ---------------------------------------------------------------- */

/**
 * struct retrieval - one FUSE_NOTIFY_RETRIEVE waiting for its reply
 * @cookie: names it in the reply
 * @buf: receives the bytes
 * @want: room at @buf
 * @got: bytes the kernel sent
 * @done: the reply came
 * @next: next waiting retrieval
 */
struct retrieval {
	uint64_t cookie;
	uint8_t *buf;
	size_t want;
	size_t got;
	bool done;
	struct retrieval *next;
};

static pthread_mutex_t retrieve_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t retrieve_cond = PTHREAD_COND_INITIALIZER;
static struct retrieval *retrievals;
static uint64_t next_cookie = 1;

/**
 * hfd_hl_cb_retrieve_reply() - the kernel's answer to a
 * FUSE_NOTIFY_RETRIEVE (the retrieve_reply operation)
 * @req: the reply's request (answered here)
 * @cookie: the retrieval's cookie
 * @bufv: the cached bytes, from the asked offset up to the first page
 *	the kernel does not hold
 */
void hfd_hl_cb_retrieve_reply(fuse_req_t req, void *cookie,
			      struct fuse_bufvec *bufv)
{
	uint64_t id = (uint64_t)(uintptr_t)cookie;
	struct fuse_bufvec dst = FUSE_BUFVEC_INIT(0);
	struct retrieval *r;
	ssize_t n;

	pthread_mutex_lock(&retrieve_lock);
	for (r = retrievals; r && r->cookie != id; r = r->next)
		;
	if (r) {
		dst.buf[0].mem = r->buf;
		dst.buf[0].size = r->want;
		n = fuse_buf_copy(&dst, bufv, 0);
		r->got = n > 0 ? (size_t)n : 0;
		r->done = true;
		pthread_cond_broadcast(&retrieve_cond);
	}
	pthread_mutex_unlock(&retrieve_lock);
	fuse_reply_none(req);
}

/*
 * The cached bytes of file range [@off, @off + @len) of @ino, up to the
 * first page the kernel does not hold: bytes, or -errno (-ENOENT: the
 * kernel has no such inode, so nothing cached)
 */
static ssize_t retrieve(struct fuse_session *se, uint64_t ino, uint64_t off,
			size_t len, uint8_t *buf)
{
	struct retrieval r = { .buf = buf, .want = len };
	struct retrieval **link;
	struct timespec until;
	ssize_t ret;
	int err = 0;

	pthread_mutex_lock(&retrieve_lock);
	r.cookie = next_cookie++;
	r.next = retrievals;
	retrievals = &r;
	pthread_mutex_unlock(&retrieve_lock);

	ret = fuse_lowlevel_notify_retrieve(se, ino, len, (off_t)off,
					    (void *)(uintptr_t)r.cookie);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HL_CB_RETRIEVE_TIMEOUT_S;
	pthread_mutex_lock(&retrieve_lock);
	while (!ret && !r.done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&retrieve_cond, &retrieve_lock,
					     &until);
	for (link = &retrievals; *link != &r; link = &(*link)->next)
		;
	*link = r.next;
	pthread_mutex_unlock(&retrieve_lock);
	if (ret)
		return ret;
	if (!r.done) {
		hfd_log_ratelimited(HFD_LOG_WARN,
				    "no answer to FUSE_NOTIFY_RETRIEVE in %d s",
				    HL_CB_RETRIEVE_TIMEOUT_S);
		return -EIO;
	}
	return (ssize_t)r.got;
}

/* Copy [@a, @b) of file bytes at @src (file offset @src_off) into the
 * caller's [@off, @off + @len) at @out */
static void copy_part(uint8_t *out, uint64_t off, uint64_t len,
		      const uint8_t *src, uint64_t src_off, uint64_t n)
{
	uint64_t a = src_off > off ? src_off : off;
	uint64_t b = src_off + n < off + len ? src_off + n : off + len;

	if (a < b)
		memcpy(out + (a - off), src + (a - src_off), b - a);
}

/* The CB's bytes from the page cache where the kernel holds them */
static int read_cached(struct hfd_hl_cbs *s, struct hl_cb *cb, uint64_t off,
		       uint32_t len, uint8_t *out)
{
	uint64_t pos = off & ~(HL_CB_PAGE - 1), end = off + len, want;
	uint8_t *tmp;
	ssize_t got;

	tmp = malloc(HL_CB_RETRIEVE_MAX);
	if (!tmp)
		return -ENOMEM;
	while (pos < end) {
		want = (end - pos + HL_CB_PAGE - 1) & ~(HL_CB_PAGE - 1);
		if (want > HL_CB_RETRIEVE_MAX)
			want = HL_CB_RETRIEVE_MAX;
		got = retrieve(s->se, s->ino, cb->handle + pos, want, tmp);
		if (got == -ENOENT)
			got = 0; /* the inode is not cached: no page is */
		if (got < 0) {
			free(tmp);
			return (int)got;
		}
		copy_part(out, off, len, tmp, pos, (uint64_t)got);
		pos += (uint64_t)got & ~(HL_CB_PAGE - 1);
		if ((uint64_t)got < want && pos < end) {
			/* not cached: the daemon's copy is current */
			pthread_mutex_lock(&s->lock);
			copy_part(out, off, len, cb->mem + pos, pos,
				  HL_CB_PAGE);
			pthread_mutex_unlock(&s->lock);
			pos += HL_CB_PAGE;
		}
	}
	free(tmp);
	return 0;
}

/**
 * hfd_hl_cb_read() - read a kernel CB's bytes as the client last wrote
 * them
 * @ctx: the CB's context
 * @handle: the CB
 * @off: first byte
 * @len: bytes
 * @buf: receives them
 *
 * Reads what the client's mapping holds: the pages the kernel caches for
 * the node (dirty ones too) through FUSE_NOTIFY_RETRIEVE, the others
 * from the daemon's copy. Sleeps for the kernel's answer: call it from
 * a worker, never with a lock the FUSE loop needs. Without FUSE (no
 * inode attached) the daemon's copy is read.
 *
 * Return: 0; -EINVAL for a handle that is not a live CB of @ctx or a
 * range beyond its size; -ENOMEM; -EIO when the kernel did not answer.
 */
int hfd_hl_cb_read(struct hfd_ctx *ctx, uint64_t handle, uint64_t off,
		   uint32_t len, void *buf)
{
	struct hfd_hl_cbs *s = cbs_of(ctx);
	struct hl_cb *cb;
	bool fuse, gone;
	int ret;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	cb = find_live(s, handle);
	if (!cb || off > cb->size || len > cb->size - off) {
		pthread_mutex_unlock(&s->lock);
		return -EINVAL;
	}
	fuse = s->se && s->ino && cb->touched;
	if (!fuse)
		memcpy(buf, cb->mem + off, len);
	cb->refs++;
	pthread_mutex_unlock(&s->lock);

	/* no page of it ever reached the page cache: the copy is all */
	ret = fuse ? read_cached(s, cb, off, len, buf) : 0;

	pthread_mutex_lock(&s->lock);
	cb->refs--;
	gone = cb->destroyed; /* destroyed meanwhile: it may go now */
	pthread_mutex_unlock(&s->lock);
	if (gone)
		sweep(ctx, s);
	return ret;
}

/**
 * hfd_hl_cb_ctx_fini() - the context goes: its CBs go, destroyed or
 * not (its file was released, so no mapping of it is left)
 * @ctx: context
 */
void hfd_hl_cb_ctx_fini(struct hfd_ctx *ctx)
{
	struct hfd_hl_cbs *s = ctx->hl_cbs;
	struct hl_cb *cb;

	if (!s)
		return;
	while ((cb = s->list)) {
		s->list = cb->next;
		free_cb(ctx, cb);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
	ctx->hl_cbs = NULL;
}

/**
 * hfd_hl_cb_count() - the context's CBs, live and kept (tests, INFO)
 * @ctx: context
 * @live: receives the live ones, or NULL
 *
 * Return: every CB the context holds memory for.
 */
unsigned int hfd_hl_cb_count(struct hfd_ctx *ctx, unsigned int *live)
{
	struct hfd_hl_cbs *s = ctx->hl_cbs;
	unsigned int n = 0, l = 0;
	struct hl_cb *cb;

	if (!s) {
		if (live)
			*live = 0;
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	for (cb = s->list; cb; cb = cb->next) {
		n++;
		l += !cb->destroyed;
	}
	pthread_mutex_unlock(&s->lock);
	if (live)
		*live = l;
	return n;
}
