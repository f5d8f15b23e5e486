// SPDX-License-Identifier: MIT
/*
 * nic_mr.c - the protection domain of an address space: memory
 * registration (a region's handle and key), acceptances of connection
 * tokens, and the device's tables of both (sorted by key and by token).
 *
 * A write reaches a region only when the region's address space accepted
 * the token of the connection (hpusim_nic_target()): every address space
 * is a protection domain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"

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
int hpusim_nic_reachable(struct hpu_fw_as *as, uint64_t va, uint64_t len,
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
	ret = hpusim_nic_reachable(as, va, size, &fva);
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

/* ------------------------------------------------------ acceptances */

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

/* Drop acceptance @id of @as; -ENOENT when it has none */
int hpusim_nic_unaccept(struct hpu_fw_as *as, uint32_t id)
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
