// SPDX-License-Identifier: MIT
/*
 * nic.c - NIC_WRITE execution and the copies it makes.
 *
 * A scale-up write is one memcpy from the sender's memory into the
 * owner's (both address spaces' map_locks held for reading, taken in
 * address order; large writes in parallel slices), then the owner's sync
 * object is signalled: the data is visible before the signal. No global
 * lock is held during the copy: the target device is held through the
 * fabric's reference count and the region through its own.
 *
 * A write reaches a region only when the region's address space accepted
 * the token of the connection (hpusim_nic_target(), nic_mr.c).
 *
 * A scale-out write goes to nic_so_send.c, which parks the job until the
 * remote server answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"

/* Parallel copies: slices of at least this many bytes */
#define NIC_PAR_SLICE_MIN (1ULL << 20)

/* ------------------------------------------------------ copies */

/* Both ranges reachable, both map_locks held; one piece at a time */
static void copy_as(struct hpu_fw_as *d, uint64_t dva, struct hpu_fw_as *s,
		    uint64_t sva, uint64_t len)
{
	struct hpusim_seg ss, ds;

	while (len) {
		uint64_t n;

		if (hpusim_mmu_seg(s, sva, len, false, &ss) ||
		    hpusim_mmu_seg(d, dva, len, false, &ds))
			return; /* checked before: cannot happen */
		n = ss.len < ds.len ? ss.len : ds.len;
		memcpy(ds.ptr, ss.ptr, n);
		sva += n;
		dva += n;
		len -= n;
	}
}

struct nic_par {
	struct hpu_fw_as *d;
	uint64_t dva;
	struct hpu_fw_as *s;
	uint64_t sva;
	uint64_t len;
	uint64_t slice;
};

static void nic_par_slice(void *arg, unsigned int i)
{
	const struct nic_par *p = arg;
	uint64_t off = (uint64_t)i * p->slice;
	uint64_t n = p->len - off < p->slice ? p->len - off : p->slice;

	copy_as(p->d, p->dva + off, p->s, p->sva + off, n);
}

/* Copy, in slices that idle workers help with when it is large */
static void copy_as_par(struct hpu_fw_as *d, uint64_t dva, struct hpu_fw_as *s,
			uint64_t sva, uint64_t len)
{
	struct nic_par p = { d, dva, s, sva, len, len };
	struct hpusim_par par = { .fn = nic_par_slice,
				  .arg = &p,
				  .nslices = 1 };
	unsigned int w;

	if (len < HPUSIM_DMA_PAR_MIN) {
		copy_as(d, dva, s, sva, len);
		return;
	}
	w = hpusim_par_width();
	if (w > len / NIC_PAR_SLICE_MIN)
		w = (unsigned int)(len / NIC_PAR_SLICE_MIN);
	if (w > HPUSIM_DMA_PAR_MAX)
		w = HPUSIM_DMA_PAR_MAX;
	if (w > 1) {
		p.slice = (len / w + HPUSIM_DMA_PAR_ALIGN - 1) &
			  ~(HPUSIM_DMA_PAR_ALIGN - 1);
		par.nslices = (unsigned int)((len + p.slice - 1) / p.slice);
	}
	/* map_locks stay held for reading: the slices take no model lock */
	hpusim_par_run(&par);
}

/*
 * Copy between [@va, @va + @len) of @as (map_lock not held) and a buffer:
 * from @src into @as when @src is set, else from @as into @dst.
 * Return: 0, -EFAULT (unmapped, @fault_va set) or -EIO (pageable host
 * memory).
 */
static int nic_copy(struct hpu_fw_as *as, uint64_t va, const uint8_t *src,
		    uint8_t *dst, uint64_t len, uint64_t *fault_va)
{
	struct hpusim_seg seg;
	uint64_t done = 0;
	int ret;

	pthread_rwlock_rdlock(&as->map_lock);
	ret = hpusim_nic_reachable(as, va, len, fault_va);
	while (!ret && done < len) {
		ret = hpusim_mmu_seg(as, va + done, len - done, false, &seg);
		if (ret)
			break;
		if (src)
			memcpy(seg.ptr, src + done, seg.len);
		else
			memcpy(dst + done, seg.ptr, seg.len);
		done += seg.len;
	}
	pthread_rwlock_unlock(&as->map_lock);
	return ret;
}

/**
 * hpusim_nic_copy_in() - write bytes into a region of an address space
 * @as: address space (map_lock not held)
 * @va: first VA
 * @src: bytes
 * @len: byte count
 *
 * Return: 0, or -EFAULT when the range is not reachable memory any more.
 */
int hpusim_nic_copy_in(struct hpu_fw_as *as, uint64_t va, const uint8_t *src,
		       uint64_t len)
{
	uint64_t fva;

	return nic_copy(as, va, src, NULL, len, &fva) ? -EFAULT : 0;
}

/**
 * hpusim_nic_copy_out() - read bytes of reachable memory of an address space
 * @as: address space (map_lock not held)
 * @va: first VA
 * @dst: buffer
 * @len: byte count
 * @fault_va: out on -EFAULT
 *
 * Return: 0, -EFAULT (unmapped) or -EIO (pageable host memory).
 */
int hpusim_nic_copy_out(struct hpu_fw_as *as, uint64_t va, uint8_t *dst,
			uint64_t len, uint64_t *fault_va)
{
	return nic_copy(as, va, NULL, dst, len, fault_va);
}

int hpusim_nic_signal(struct hpu_fw_as *as, uint32_t sob_id, uint32_t sob_value)
{
	/* a monitor fault is counted in the owner (no submission of its) */
	return hpusim_sob_write(as, sob_id, HPU_MSG_OP_ADD, sob_value);
}

/* ------------------------------------------------------ NIC_WRITE */

/* Flags and signal fields the packet may carry */
static bool pkt_ok(const struct hpu_pkt_nic_write *p)
{
	bool sig = p->hdr.flags & HPU_NIC_F_SIGNAL;

	if (p->hdr.size != sizeof(*p) || p->pad || !p->rkey ||
	    (p->hdr.flags & ~(HPU_NIC_F_MASK | HPU_PKT_F_COMMON_MASK)))
		return false;
	if (p->src_addr + p->size < p->src_addr)
		return false;
	if (!sig)
		return p->size && !p->sob_id && !p->sob_value;
	return p->sob_id < HPU_NUM_SOBS && p->sob_value &&
	       p->sob_value <= HPU_SOB_MAX_VALUE;
}

/* An access error: the sender's context and the owner hear of it */
static int access_err(struct hpu_fw_as *as, uint32_t port,
		      const struct hpu_pkt_nic_write *p)
{
	hpusim_nic_event(as->dev, hpusim_nic_cookie(as),
			 HPU_EVENT_NIC_ACCESS_ERR, port, p->rkey,
			 p->remote_offset, p->size);
	return -EACCES;
}

static int link_down(struct hpu_fw_as *as, uint32_t port)
{
	hpusim_nic_event(as->dev, hpusim_nic_cookie(as), HPU_EVENT_LINK_DOWN,
			 port, 0, 0, 0);
	return -ENETDOWN;
}

/* Lock the map_locks of two address spaces for reading, in address order */
static void lock_pair(struct hpu_fw_as *a, struct hpu_fw_as *b)
{
	if (a == b) {
		pthread_rwlock_rdlock(&a->map_lock);
		return;
	}
	if ((uintptr_t)a > (uintptr_t)b) {
		struct hpu_fw_as *t = a;

		a = b;
		b = t;
	}
	pthread_rwlock_rdlock(&a->map_lock);
	pthread_rwlock_rdlock(&b->map_lock);
}

static void unlock_pair(struct hpu_fw_as *a, struct hpu_fw_as *b)
{
	pthread_rwlock_unlock(&a->map_lock);
	if (a != b)
		pthread_rwlock_unlock(&b->map_lock);
}

/* Region @mr of @rdev takes the write; return 0 or -errno as exec */
static int scaleup_apply(struct hpu_fw_as *as, uint32_t port,
			 struct hpu_fw_device *rdev, uint32_t far_port,
			 struct hpusim_mr *mr,
			 const struct hpu_pkt_nic_write *p,
			 struct hpu_fw_fault *fault)
{
	struct hpu_fw_as *owner = mr->as;
	uint64_t fva;
	int ret;

	if (p->remote_offset > mr->size ||
	    p->size > mr->size - p->remote_offset) {
		hpusim_nic_event(rdev, hpusim_nic_cookie(owner),
				 HPU_EVENT_NIC_ACCESS_ERR, far_port, p->rkey,
				 p->remote_offset, p->size);
		return access_err(as, port, p);
	}
	if (p->size) {
		lock_pair(as, owner);
		ret = hpusim_nic_reachable(as, p->src_addr, p->size, &fva);
		if (ret) {
			unlock_pair(as, owner);
			fault->addr = fva;
			fault->is_write = false;
			return ret;
		}
		/* the owner may have unmapped part of its region since */
		if (hpusim_nic_reachable(owner, mr->va + p->remote_offset,
					 p->size, &fva)) {
			unlock_pair(as, owner);
			hpusim_nic_event(rdev, hpusim_nic_cookie(owner),
					 HPU_EVENT_NIC_ACCESS_ERR, far_port,
					 p->rkey, p->remote_offset, p->size);
			return access_err(as, port, p);
		}
		copy_as_par(owner, mr->va + p->remote_offset, as, p->src_addr,
			    p->size);
		unlock_pair(as, owner);
		__atomic_add_fetch(&as->dev->nic->tx_bytes, p->size,
				   __ATOMIC_RELAXED);
		__atomic_add_fetch(&rdev->nic->rx_bytes, p->size,
				   __ATOMIC_RELAXED);
	}
	if (p->hdr.flags & HPU_NIC_F_SIGNAL)
		hpusim_nic_signal(owner, p->sob_id, p->sob_value);
	return 0;
}

static int scaleup_write(struct hpu_fw_as *as, uint32_t port,
			 const struct hpusim_nic_conn *c,
			 const struct hpu_pkt_nic_write *p,
			 struct hpu_fw_fault *fault)
{
	struct hpusim_nic *n = as->dev->nic;
	struct hpu_fw_device *rdev;
	struct hpusim_acc *acc;
	struct hpusim_mr *mr;
	uint32_t far = 0;
	int ret;

	if (hpusim_nic_peer(n, port, &far) != c->remote_device)
		return -EIO;
	rdev = hpusim_fabric_dev_get(n->fab, c->remote_device);
	if (!rdev)
		return link_down(as, port);
	if (!hpusim_nic_port_up(n, port) ||
	    !hpusim_nic_port_up(rdev->nic, far)) {
		hpusim_fabric_dev_put(rdev);
		return link_down(as, port);
	}
	/* the key's region, if its owner accepted this connection */
	if (hpusim_nic_target(rdev, c->token, p->rkey, &mr, &acc)) {
		hpusim_nic_denied(rdev, far, mr, acc, p->rkey, p->remote_offset,
				  p->size);
		hpusim_fabric_dev_put(rdev);
		return access_err(as, port, p);
	}
	ret = scaleup_apply(as, port, rdev, far, mr, p, fault);
	hpusim_mr_put(rdev, mr);
	hpusim_fabric_dev_put(rdev);
	return ret;
}

/* The answer to a scale-out write came: finish the packet */
static int scaleout_done(struct hpu_fw_as *as, struct hpusim_queue *q,
			 uint32_t port, const struct hpu_pkt_nic_write *p)
{
	int st;

	hpusim_sched_lock();
	st = q->nic_status;
	q->nic_wait = 0;
	hpusim_sched_unlock();
	if (!st)
		return 0;
	if (st == -EACCES)
		return access_err(as, port, p);
	return link_down(as, port);
}

int hpusim_nic_exec(struct hpu_fw_as *as, struct hpusim_queue *q,
		    const void *pkt, uint64_t *progress,
		    struct hpu_fw_fault *fault)
{
	struct hpu_fw_device *dev = as->dev;
	struct hpusim_nic *n = dev->nic;
	uint32_t base = dev->engine_base[HPUSIM_ENGINE_NIC], port;
	struct hpu_pkt_nic_write p;
	struct hpusim_nic_conn c = { 0 };
	uint64_t fva;
	int slot, ret;

	if (q->engine < base || q->engine - base >= n->nports)
		return -EIO;
	port = q->engine - base;
	memcpy(&p, pkt, sizeof(p));
	if (!pkt_ok(&p))
		return -EIO;
	if (*progress) {
		*progress = 0;
		return scaleout_done(as, q, port, &p);
	}

	pthread_mutex_lock(&as->nic->lock);
	slot = conn_slot(as->nic, p.conn);
	if (slot >= 0) {
		c = as->nic->conns[slot];
		if (c.peer && c.port == port)
			hpusim_so_peer_get(c.peer);
	}
	pthread_mutex_unlock(&as->nic->lock);
	if (slot < 0)
		return -EIO;
	if (c.port != port) {
		/* a connection of another port: not this engine's */
		return -EIO;
	}
	if (!c.peer) {
		if (!hpusim_nic_port_up(n, port))
			return link_down(as, port);
		return scaleup_write(as, port, &c, &p, fault);
	}

	/* scale-out */
	ret = 0;
	if (!hpusim_nic_port_up(n, port) || !hpusim_so_peer_alive(c.peer))
		ret = link_down(as, port);
	if (!ret && p.size) {
		pthread_rwlock_rdlock(&as->map_lock);
		ret = hpusim_nic_reachable(as, p.src_addr, p.size, &fva);
		pthread_rwlock_unlock(&as->map_lock);
		if (ret == -EFAULT) {
			fault->addr = fva;
			fault->is_write = false;
		}
	}
	if (!ret) {
		ret = hpusim_so_write(c.peer, as, q, &c, &p, &fva);
		if (ret == -EINPROGRESS) {
			*progress = HPUSIM_NIC_ST_PENDING;
		} else if (ret == -EFAULT) {
			fault->addr = fva;
			fault->is_write = false;
		} else if (ret == -ENOTCONN)
			ret = link_down(as, port);
	}
	hpusim_so_peer_put(c.peer);
	return ret;
}
