// SPDX-License-Identifier: MIT
/*
 * nic.c - the NIC engines of a device: memory registration (keys), the
 * connections of an address space, and NIC_WRITE execution.
 *
 * A scale-up write is one memcpy from the sender's memory into the
 * owner's (both address spaces' map_locks held for reading, taken in
 * address order; large writes in parallel slices), then the owner's sync
 * object is signalled: the data is visible before the signal. No global
 * lock is held during the copy: the target device is held through the
 * fabric's reference count and the region through its own.
 *
 * A scale-out write goes to nic_scaleout.c, which parks the job until the
 * remote server answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"

/* Connection ids: a sequence number above the slot index (+1) */
#define NIC_CONN_SLOT_BITS 9
#define NIC_CONN_SLOT_MASK ((1U << NIC_CONN_SLOT_BITS) - 1)

/* Parallel copies: slices of at least this many bytes */
#define NIC_PAR_SLICE_MIN (1ULL << 20)

/* ------------------------------------------------------ address spaces */

int hpusim_nic_as_init(struct hpu_fw_as *as)
{
	struct hpusim_nic_as *na = calloc(1, sizeof(*na));
	int ret;

	if (!na)
		return -ENOMEM;
	ret = pthread_mutex_init(&na->lock, NULL);
	if (ret) {
		free(na);
		return -ret;
	}
	as->nic = na;
	return 0;
}

void *hpusim_nic_cookie(struct hpu_fw_as *as)
{
	return __atomic_load_n(&as->nic->cookie, __ATOMIC_ACQUIRE);
}

void hpusim_as_set_cookie(struct hpu_fw_as *as, void *cookie)
{
	if (as && as->nic)
		__atomic_store_n(&as->nic->cookie, cookie, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------ registrations */

/* Index of the first region whose key is >= @key; mr_lock held */
static uint32_t mr_lower(const struct hpusim_nic *n, uint32_t key)
{
	uint32_t lo = 0, hi = n->nmrs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (n->mrs[mid]->key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * hpusim_mr_get() - hold the region of a key
 * @dev: device that owns the key
 * @key: key
 *
 * Return: the region (release with hpusim_mr_put()), or NULL when the
 * key is unknown or revoked.
 */
struct hpusim_mr *hpusim_mr_get(struct hpu_fw_device *dev, uint32_t key)
{
	struct hpusim_nic *n = dev->nic;
	struct hpusim_mr *mr = NULL;
	uint32_t i;

	pthread_mutex_lock(&n->mr_lock);
	i = mr_lower(n, key);
	if (i < n->nmrs && n->mrs[i]->key == key) {
		mr = n->mrs[i];
		mr->refs++;
	}
	pthread_mutex_unlock(&n->mr_lock);
	return mr;
}

void hpusim_mr_put(struct hpu_fw_device *dev, struct hpusim_mr *mr)
{
	struct hpusim_nic *n = dev->nic;

	pthread_mutex_lock(&n->mr_lock);
	if (!--mr->refs)
		pthread_cond_broadcast(&n->mr_cond);
	pthread_mutex_unlock(&n->mr_lock);
}

/*
 * Whether [@va, @va + @len) is memory the NIC reaches by pointer; map_lock
 * held. Return: 0, -EFAULT (unmapped, @fault_va set) or -EIO (pageable
 * host memory).
 */
static int nic_reachable(struct hpu_fw_as *as, uint64_t va, uint64_t len,
			 uint64_t *fault_va)
{
	struct hpusim_seg seg;
	uint64_t done = 0;

	if (hpusim_mmu_check(as, va, len, fault_va))
		return -EFAULT;
	while (done < len) {
		if (hpusim_mmu_seg(as, va + done, len - done, false, &seg)) {
			*fault_va = va + done;
			return -EFAULT;
		}
		if (!seg.ptr)
			return -EIO;
		done += seg.len;
	}
	return 0;
}

int hpusim_nic_reg_mr(struct hpu_fw_as *as, uint64_t va, uint64_t size,
		      uint32_t flags, uint32_t *key)
{
	struct hpusim_nic *n;
	struct hpusim_mr *mr, **mrs;
	uint64_t fva;
	int ret;

	if (!as || !as->nic || !key || !size || va + size < va ||
	    !(flags & HPU_NIC_MR_REMOTE_WRITE) ||
	    (flags & ~HPU_NIC_MR_FLAGS_MASK))
		return -EINVAL;
	n = as->dev->nic;
	pthread_rwlock_rdlock(&as->map_lock);
	ret = nic_reachable(as, va, size, &fva);
	pthread_rwlock_unlock(&as->map_lock);
	if (ret)
		return -EFAULT;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->as = as;
	mr->va = va;
	mr->size = size;

	pthread_mutex_lock(&as->nic->lock);
	if (as->nic->nmrs >= HPU_NIC_MAX_MRS) {
		ret = -ENOSPC;
		goto err_unlock_as;
	}
	pthread_mutex_lock(&n->mr_lock);
	if (n->next_key == UINT32_MAX) {
		ret = -ENOSPC; /* keys are never reused */
		goto err_unlock_mr;
	}
	if (n->nmrs == n->cap) {
		uint32_t cap = n->cap ? n->cap * 2 : 16;

		mrs = realloc(n->mrs, cap * sizeof(*mrs));
		if (!mrs) {
			ret = -ENOMEM;
			goto err_unlock_mr;
		}
		n->mrs = mrs;
		n->cap = cap;
	}
	mr->key = ++n->next_key;
	n->mrs[n->nmrs++] = mr; /* keys grow: the table stays sorted */
	pthread_mutex_unlock(&n->mr_lock);
	as->nic->nmrs++;
	pthread_mutex_unlock(&as->nic->lock);
	*key = mr->key;
	return 0;

err_unlock_mr:
	pthread_mutex_unlock(&n->mr_lock);
err_unlock_as:
	pthread_mutex_unlock(&as->nic->lock);
	free(mr);
	return ret;
}

/* Unlist region @i and wait until no write holds it; mr_lock held */
static void mr_revoke(struct hpusim_nic *n, uint32_t i)
{
	struct hpusim_mr *mr = n->mrs[i];

	memmove(&n->mrs[i], &n->mrs[i + 1],
		(n->nmrs - i - 1) * sizeof(*n->mrs));
	n->nmrs--;
	while (mr->refs)
		pthread_cond_wait(&n->mr_cond, &n->mr_lock);
	free(mr);
}

int hpusim_nic_dereg_mr(struct hpu_fw_as *as, uint32_t key)
{
	struct hpusim_nic *n;
	uint32_t i;
	int ret = -ENOENT;

	if (!as || !as->nic)
		return -EINVAL;
	n = as->dev->nic;
	pthread_mutex_lock(&as->nic->lock);
	pthread_mutex_lock(&n->mr_lock);
	i = mr_lower(n, key);
	if (key && i < n->nmrs && n->mrs[i]->key == key &&
	    n->mrs[i]->as == as) {
		mr_revoke(n, i);
		as->nic->nmrs--;
		ret = 0;
	}
	pthread_mutex_unlock(&n->mr_lock);
	pthread_mutex_unlock(&as->nic->lock);
	return ret;
}

/**
 * hpusim_nic_as_fini() - revoke every region and drop every connection
 * @as: address space whose submissions were all aborted
 *
 * Returns once no peer's write into its regions is in flight.
 */
void hpusim_nic_as_fini(struct hpu_fw_as *as)
{
	struct hpusim_nic_as *na = as->nic;
	struct hpusim_nic *n = as->dev->nic;
	uint32_t i;

	if (!na)
		return;
	if (n) {
		pthread_mutex_lock(&n->mr_lock);
		for (i = 0; i < n->nmrs;) {
			if (n->mrs[i]->as == as)
				mr_revoke(n, i);
			else
				i++;
		}
		pthread_mutex_unlock(&n->mr_lock);
	}
	for (i = 0; i < HPU_NIC_MAX_CONNS; i++)
		if (na->conns[i].id && na->conns[i].peer)
			hpusim_so_peer_put(na->conns[i].peer);
	pthread_mutex_destroy(&na->lock);
	free(na);
	as->nic = NULL;
}

/* ------------------------------------------------------ connections */

int hpusim_nic_connect(struct hpu_fw_as *as, uint32_t port, uint32_t ipv4,
		       uint16_t tcp_port, uint32_t remote_device,
		       uint32_t *conn)
{
	struct hpusim_so_peer *peer = NULL;
	struct hpu_fw_device *rdev;
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	uint32_t i, slot = HPU_NIC_MAX_CONNS, id;
	bool remote = ipv4 || tcp_port;
	int ret;

	if (!as || !as->nic || !conn)
		return -EINVAL;
	n = as->dev->nic;
	na = as->nic;
	if (port >= n->nports)
		return -EINVAL;
	if (!remote) {
		/* a scale-up port wired to that device of this server */
		if (port >= n->nscaleup ||
		    hpusim_nic_peer(n, port, NULL) != remote_device)
			return -EINVAL;
		rdev = hpusim_fabric_dev_get(n->fab, remote_device);
		if (!rdev)
			return -ENODEV;
		hpusim_fabric_dev_put(rdev);
		if (!hpusim_nic_port_up(n, port))
			return -ENETDOWN;
	} else {
		if (port < n->nscaleup)
			return -EINVAL;
		if (!hpusim_nic_port_up(n, port))
			return -ENETDOWN;
		if (!n->fab)
			return -EHOSTUNREACH;
	}

	pthread_mutex_lock(&na->lock);
	for (i = 0; i < HPU_NIC_MAX_CONNS && slot == HPU_NIC_MAX_CONNS; i++)
		if (!na->conns[i].id)
			slot = i;
	pthread_mutex_unlock(&na->lock);
	if (slot == HPU_NIC_MAX_CONNS)
		return -ENOSPC;

	if (remote) {
		ret = hpusim_so_connect(n->fab, ipv4, tcp_port, remote_device,
					&peer);
		if (ret)
			return ret;
	}

	pthread_mutex_lock(&na->lock);
	/* the slot may have been taken while we connected */
	if (na->conns[slot].id) {
		for (slot = 0; slot < HPU_NIC_MAX_CONNS; slot++)
			if (!na->conns[slot].id)
				break;
	}
	if (slot == HPU_NIC_MAX_CONNS) {
		pthread_mutex_unlock(&na->lock);
		if (peer)
			hpusim_so_peer_put(peer);
		return -ENOSPC;
	}
	na->next_conn++;
	if (na->next_conn >= 1U << (32 - NIC_CONN_SLOT_BITS))
		na->next_conn = 1;
	id = na->next_conn << NIC_CONN_SLOT_BITS | (slot + 1);
	na->conns[slot] = (struct hpusim_nic_conn){
		.id = id,
		.port = port,
		.remote_device = remote_device,
		.peer = peer,
	};
	pthread_mutex_unlock(&na->lock);
	*conn = id;
	return 0;
}

/* Slot of connection @id, or -1; nic lock held */
static int conn_slot(const struct hpusim_nic_as *na, uint32_t id)
{
	uint32_t slot = (id & NIC_CONN_SLOT_MASK) - 1;

	if (!id || slot >= HPU_NIC_MAX_CONNS || na->conns[slot].id != id)
		return -1;
	return (int)slot;
}

int hpusim_nic_disconnect(struct hpu_fw_as *as, uint32_t conn)
{
	struct hpusim_so_peer *peer;
	int slot;

	if (!as || !as->nic)
		return -EINVAL;
	pthread_mutex_lock(&as->nic->lock);
	slot = conn_slot(as->nic, conn);
	if (slot < 0) {
		pthread_mutex_unlock(&as->nic->lock);
		return -ENOENT;
	}
	peer = as->nic->conns[slot].peer;
	memset(&as->nic->conns[slot], 0, sizeof(as->nic->conns[slot]));
	pthread_mutex_unlock(&as->nic->lock);
	if (peer)
		hpusim_so_peer_put(peer);
	return 0;
}

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
	ret = nic_reachable(as, va, len, fault_va);
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

	if (p->hdr.size != sizeof(*p) ||
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
		ret = nic_reachable(as, p->src_addr, p->size, &fva);
		if (ret) {
			unlock_pair(as, owner);
			fault->addr = fva;
			fault->is_write = false;
			return ret;
		}
		/* the owner may have unmapped part of its region since */
		if (nic_reachable(owner, mr->va + p->remote_offset, p->size,
				  &fva)) {
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
	mr = hpusim_mr_get(rdev, p->rkey);
	if (!mr) {
		/* no owner to tell: every context of the device hears */
		hpusim_nic_event(rdev, NULL, HPU_EVENT_NIC_ACCESS_ERR, far,
				 p->rkey, p->remote_offset, p->size);
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
		ret = nic_reachable(as, p.src_addr, p.size, &fva);
		pthread_rwlock_unlock(&as->map_lock);
		if (ret == -EFAULT) {
			fault->addr = fva;
			fault->is_write = false;
		}
	}
	if (!ret) {
		ret = hpusim_so_write(c.peer, as, q, c.remote_device, &p, &fva);
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
