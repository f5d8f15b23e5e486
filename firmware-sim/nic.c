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
 * A write reaches a region only when the region's address space accepted
 * the token of the connection (hpusim_nic_target()): every address space
 * is a protection domain.
 *
 * A scale-out write goes to nic_scaleout.c, which parks the job until the
 * remote server answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"

/*
 * Ids of an address space (region handles, connection and acceptance
 * ids): a sequence number above a slot value. Slot values: a region's
 * slot + 1; a connection's slot + 1; an acceptance's HPU_NIC_MAX_CONNS +
 * slot + 1, so DISCONNECT tells the two apart.
 */
#define NIC_ID_SLOT_BITS 10
#define NIC_ID_SLOT_MASK ((1U << NIC_ID_SLOT_BITS) - 1)
#define NIC_ACC_BASE	 HPU_NIC_MAX_CONNS

_Static_assert(HPU_NIC_MAX_CONNS + HPU_NIC_MAX_ACCEPTS < 1U << NIC_ID_SLOT_BITS,
	       "slot values fit their bits");
_Static_assert(HPU_NIC_MAX_MRS < 1U << NIC_ID_SLOT_BITS,
	       "slot values fit their bits");

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

/* A new id of @na for slot value @slotval; nic lock held */
static uint32_t new_id(struct hpusim_nic_as *na, uint32_t slotval)
{
	HPU_ASSERT_HELD(&na->lock);

	na->next_id++;
	if (na->next_id >= 1U << (32 - NIC_ID_SLOT_BITS))
		na->next_id = 1;
	return na->next_id << NIC_ID_SLOT_BITS | slotval;
}

/* ------------------------------------------------------ device tables */

/* Index of the first region whose key is >= @key; mr_lock held */
static uint32_t mr_lower(const struct hpusim_nic *n, uint64_t key)
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

/* Index of the first acceptance whose token is >= @token; mr_lock held */
static uint32_t acc_lower(const struct hpusim_nic *n, uint64_t token)
{
	uint32_t lo = 0, hi = n->naccs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (n->accs[mid]->token < token)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct hpusim_mr *mr_find(const struct hpusim_nic *n, uint64_t key)
{
	uint32_t i = mr_lower(n, key);

	return i < n->nmrs && n->mrs[i]->key == key ? n->mrs[i] : NULL;
}

static struct hpusim_acc *acc_find(const struct hpusim_nic *n, uint64_t token)
{
	uint32_t i = acc_lower(n, token);

	return i < n->naccs && n->accs[i]->token == token ? n->accs[i] : NULL;
}

/* Room for one more pointer in *@tab of @cap; mr_lock held */
static int table_grow(void ***tab, uint32_t used, uint32_t *cap)
{
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void **nt;

	if (used < *cap)
		return 0;
	nt = realloc(*tab, ncap * sizeof(**tab));
	if (!nt)
		return -ENOMEM;
	*tab = nt;
	*cap = ncap;
	return 0;
}

/**
 * hpusim_nic_target() - the region a write names, if its connection may
 * write into it
 * @dev: the receiving device
 * @token: token of the connection the write came over
 * @key: key the write names
 * @mr: out: the region of @key, held, or NULL when there is none
 * @acc: out: on -EACCES, the acceptance of @token, held, or NULL when
 *	nobody accepted it; on success NULL
 *
 * Return: 0 when the region exists and its address space accepted
 * @token (release *@mr with hpusim_mr_put()); -EACCES otherwise (hand
 * both to hpusim_nic_denied()).
 */
int hpusim_nic_target(struct hpu_fw_device *dev, uint64_t token, uint64_t key,
		      struct hpusim_mr **mr, struct hpusim_acc **acc)
{
	struct hpusim_nic *n = dev->nic;
	struct hpusim_mr *m;
	struct hpusim_acc *a;
	int ret = -EACCES;

	pthread_mutex_lock(&n->mr_lock);
	m = key ? mr_find(n, key) : NULL;
	a = token ? acc_find(n, token) : NULL;
	if (m && a && m->as == a->as) {
		a = NULL;
		ret = 0;
	}
	if (m)
		m->refs++;
	if (a)
		a->refs++;
	pthread_mutex_unlock(&n->mr_lock);
	*mr = m;
	*acc = a;
	return ret;
}

void hpusim_mr_put(struct hpu_fw_device *dev, struct hpusim_mr *mr)
{
	struct hpusim_nic *n = dev->nic;

	pthread_mutex_lock(&n->mr_lock);
	if (!--mr->refs)
		pthread_cond_broadcast(&n->mr_cond);
	pthread_mutex_unlock(&n->mr_lock);
}

static void acc_put(struct hpu_fw_device *dev, struct hpusim_acc *acc)
{
	struct hpusim_nic *n = dev->nic;

	pthread_mutex_lock(&n->mr_lock);
	if (!--acc->refs)
		pthread_cond_broadcast(&n->mr_cond);
	pthread_mutex_unlock(&n->mr_lock);
}

/**
 * hpusim_nic_denied() - the receiving side of a refused write hears of it
 * @dev: the receiving device
 * @port: the port it arrived on (HPUSIM_NIC_PORT_NET from scale-out)
 * @mr: region the key named (held), or NULL
 * @acc: acceptance of the connection's token (held), or NULL
 * @key: the key it named
 * @offset: the offset it named
 * @size: the bytes it carried
 *
 * The region's owner and the address space that accepted the connection
 * get NIC_ACCESS_ERR; when neither exists, every context of the device.
 * Both references are dropped.
 */
void hpusim_nic_denied(struct hpu_fw_device *dev, uint32_t port,
		       struct hpusim_mr *mr, struct hpusim_acc *acc,
		       uint64_t key, uint64_t offset, uint64_t size)
{
	if (mr)
		hpusim_nic_event(dev, hpusim_nic_cookie(mr->as),
				 HPU_EVENT_NIC_ACCESS_ERR, port, key, offset,
				 size);
	if (acc && (!mr || acc->as != mr->as))
		hpusim_nic_event(dev, hpusim_nic_cookie(acc->as),
				 HPU_EVENT_NIC_ACCESS_ERR, port, key, offset,
				 size);
	if (!mr && !acc)
		hpusim_nic_event(dev, NULL, HPU_EVENT_NIC_ACCESS_ERR, port, key,
				 offset, size);
	if (mr)
		hpusim_mr_put(dev, mr);
	if (acc)
		acc_put(dev, acc);
}

/**
 * hpusim_nic_seed_keys() - make the device's keys and tokens predictable
 * @dev: device with no region and no connection yet
 * @seed: secret
 *
 * For tests and fuzz targets only: the driver never calls it.
 */
void hpusim_nic_seed_keys(struct hpu_fw_device *dev, uint64_t seed)
{
	struct hpusim_nic *n = dev->nic;

	pthread_mutex_lock(&n->mr_lock);
	hpusim_keygen_seed(&n->keys, seed);
	hpusim_keygen_seed(&n->tokens, seed ^ 0x746f6b656e73ULL);
	pthread_mutex_unlock(&n->mr_lock);
}

/* ------------------------------------------------------ registrations */

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
		      uint32_t flags, uint32_t *handle, uint64_t *key)
{
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	struct hpusim_mr *mr;
	uint32_t slot, i;
	uint64_t fva;
	int ret;

	if (!as || !as->nic || !handle || !key || !size || va + size < va ||
	    !(flags & HPU_NIC_MR_REMOTE_WRITE) ||
	    (flags & ~HPU_NIC_MR_FLAGS_MASK))
		return -EINVAL;
	n = as->dev->nic;
	na = as->nic;
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

	pthread_mutex_lock(&na->lock);
	for (slot = 0; slot < HPU_NIC_MAX_MRS && na->mrs[slot]; slot++)
		;
	if (slot == HPU_NIC_MAX_MRS) {
		ret = -ENOSPC;
		goto err_unlock_as;
	}
	pthread_mutex_lock(&n->mr_lock);
	ret = table_grow((void ***)&n->mrs, n->nmrs, &n->cap);
	if (!ret)
		ret = hpusim_keygen_next(&n->keys, &mr->key);
	if (ret)
		goto err_unlock_mr;
	i = mr_lower(n, mr->key); /* a new key: not in the table */
	memmove(&n->mrs[i + 1], &n->mrs[i], (n->nmrs - i) * sizeof(*n->mrs));
	n->mrs[i] = mr;
	n->nmrs++;
	pthread_mutex_unlock(&n->mr_lock);
	mr->handle = new_id(na, slot + 1);
	na->mrs[slot] = mr;
	pthread_mutex_unlock(&na->lock);
	*handle = mr->handle;
	*key = mr->key;
	return 0;

err_unlock_mr:
	pthread_mutex_unlock(&n->mr_lock);
err_unlock_as:
	pthread_mutex_unlock(&na->lock);
	free(mr);
	return ret;
}

/* Unlist region @mr and wait until no write holds it; mr_lock held */
static void mr_revoke(struct hpusim_nic *n, struct hpusim_mr *mr)
{
	uint32_t i = mr_lower(n, mr->key);

	HPU_ASSERT_HELD(&n->mr_lock);

	if (i < n->nmrs && n->mrs[i] == mr) {
		memmove(&n->mrs[i], &n->mrs[i + 1],
			(n->nmrs - i - 1) * sizeof(*n->mrs));
		n->nmrs--;
	}
	while (mr->refs)
		pthread_cond_wait(&n->mr_cond, &n->mr_lock);
	free(mr);
}

/* Unlist acceptance @acc and wait until no write holds it; mr_lock held */
static void acc_revoke(struct hpusim_nic *n, struct hpusim_acc *acc)
{
	uint32_t i = acc_lower(n, acc->token);

	HPU_ASSERT_HELD(&n->mr_lock);

	if (i < n->naccs && n->accs[i] == acc) {
		memmove(&n->accs[i], &n->accs[i + 1],
			(n->naccs - i - 1) * sizeof(*n->accs));
		n->naccs--;
	}
	while (acc->refs)
		pthread_cond_wait(&n->mr_cond, &n->mr_lock);
	free(acc);
}

/* Slot of @id in a table of @nslots starting at slot value @base, or -1 */
static int id_slot(uint32_t id, uint32_t base, uint32_t nslots)
{
	uint32_t v = id & NIC_ID_SLOT_MASK;

	if (!id || v <= base || v - base - 1 >= nslots)
		return -1;
	return (int)(v - base - 1);
}

int hpusim_nic_dereg_mr(struct hpu_fw_as *as, uint32_t handle)
{
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	struct hpusim_mr *mr;
	int slot;

	if (!as || !as->nic)
		return -EINVAL;
	n = as->dev->nic;
	na = as->nic;
	pthread_mutex_lock(&na->lock);
	slot = id_slot(handle, 0, HPU_NIC_MAX_MRS);
	mr = slot < 0 ? NULL : na->mrs[slot];
	if (!mr || mr->handle != handle) {
		pthread_mutex_unlock(&na->lock);
		return -ENOENT;
	}
	na->mrs[slot] = NULL;
	pthread_mutex_lock(&n->mr_lock);
	mr_revoke(n, mr);
	pthread_mutex_unlock(&n->mr_lock);
	pthread_mutex_unlock(&na->lock);
	return 0;
}

/**
 * hpusim_nic_as_fini() - revoke every region and acceptance and drop every
 * connection
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
		for (i = 0; i < HPU_NIC_MAX_MRS; i++)
			if (na->mrs[i])
				mr_revoke(n, na->mrs[i]);
		for (i = 0; i < HPU_NIC_MAX_ACCEPTS; i++)
			if (na->accs[i])
				acc_revoke(n, na->accs[i]);
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
		       uint32_t *conn, uint64_t *token)
{
	struct hpusim_so_peer *peer = NULL;
	struct hpu_fw_device *rdev;
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	uint32_t i, slot = HPU_NIC_MAX_CONNS, id;
	bool remote = ipv4 || tcp_port;
	uint64_t tok;
	int ret;

	if (!as || !as->nic || !conn || !token)
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

	pthread_mutex_lock(&n->mr_lock);
	ret = hpusim_keygen_next(&n->tokens, &tok);
	pthread_mutex_unlock(&n->mr_lock);
	pthread_mutex_lock(&na->lock);
	/* the slot may have been taken while we connected */
	if (!ret && na->conns[slot].id) {
		for (slot = 0; slot < HPU_NIC_MAX_CONNS; slot++)
			if (!na->conns[slot].id)
				break;
		if (slot == HPU_NIC_MAX_CONNS)
			ret = -ENOSPC;
	}
	if (ret) {
		pthread_mutex_unlock(&na->lock);
		if (peer)
			hpusim_so_peer_put(peer);
		return ret;
	}
	id = new_id(na, slot + 1);
	na->conns[slot] = (struct hpusim_nic_conn){
		.id = id,
		.port = port,
		.remote_device = remote_device,
		.token = tok,
		.peer = peer,
	};
	pthread_mutex_unlock(&na->lock);
	*conn = id;
	*token = tok;
	return 0;
}

int hpusim_nic_accept(struct hpu_fw_as *as, uint64_t token, uint32_t *id)
{
	struct hpusim_nic_as *na;
	struct hpusim_nic *n;
	struct hpusim_acc *acc, *old;
	uint32_t slot, i;
	int ret = 0;

	if (!as || !as->nic || !id || !token)
		return -EINVAL;
	n = as->dev->nic;
	na = as->nic;
	acc = calloc(1, sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	acc->token = token;
	acc->as = as;

	pthread_mutex_lock(&na->lock);
	for (slot = 0; slot < HPU_NIC_MAX_ACCEPTS && na->accs[slot]; slot++)
		;
	pthread_mutex_lock(&n->mr_lock);
	old = acc_find(n, token);
	if (old)
		ret = old->as == as ? -EEXIST : -EBUSY;
	else if (slot == HPU_NIC_MAX_ACCEPTS)
		ret = -ENOSPC;
	else
		ret = table_grow((void ***)&n->accs, n->naccs, &n->acap);
	if (ret) {
		pthread_mutex_unlock(&n->mr_lock);
		pthread_mutex_unlock(&na->lock);
		free(acc);
		return ret;
	}
	i = acc_lower(n, token);
	memmove(&n->accs[i + 1], &n->accs[i],
		(n->naccs - i) * sizeof(*n->accs));
	n->accs[i] = acc;
	n->naccs++;
	pthread_mutex_unlock(&n->mr_lock);
	acc->id = new_id(na, NIC_ACC_BASE + slot + 1);
	na->accs[slot] = acc;
	pthread_mutex_unlock(&na->lock);
	*id = acc->id;
	return 0;
}

/* Slot of connection @id, or -1; nic lock held */
static int conn_slot(const struct hpusim_nic_as *na, uint32_t id)
{
	int slot = id_slot(id, 0, HPU_NIC_MAX_CONNS);

	if (slot < 0 || na->conns[slot].id != id)
		return -1;
	return slot;
}

/* Drop acceptance @id of @as; -ENOENT when it has none */
static int unaccept(struct hpu_fw_as *as, uint32_t id)
{
	struct hpusim_nic_as *na = as->nic;
	struct hpusim_nic *n = as->dev->nic;
	struct hpusim_acc *acc;
	int slot;

	pthread_mutex_lock(&na->lock);
	slot = id_slot(id, NIC_ACC_BASE, HPU_NIC_MAX_ACCEPTS);
	acc = slot < 0 ? NULL : na->accs[slot];
	if (!acc || acc->id != id) {
		pthread_mutex_unlock(&na->lock);
		return -ENOENT;
	}
	na->accs[slot] = NULL;
	pthread_mutex_lock(&n->mr_lock);
	acc_revoke(n, acc);
	pthread_mutex_unlock(&n->mr_lock);
	pthread_mutex_unlock(&na->lock);
	return 0;
}

int hpusim_nic_disconnect(struct hpu_fw_as *as, uint32_t id)
{
	struct hpusim_so_peer *peer;
	int slot;

	if (!as || !as->nic)
		return -EINVAL;
	if ((id & NIC_ID_SLOT_MASK) > NIC_ACC_BASE)
		return unaccept(as, id);
	pthread_mutex_lock(&as->nic->lock);
	slot = conn_slot(as->nic, id);
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
		ret = nic_reachable(as, p.src_addr, p.size, &fva);
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
