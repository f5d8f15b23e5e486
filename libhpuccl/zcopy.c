// SPDX-License-Identifier: MIT
/*
 * zcopy.c - zero copy: the registration cache of user buffers and the
 * per-call exchange of (key, offset) through the store, so that large
 * collectives write straight into the peers' output buffers instead of
 * their inboxes (docs/collectives.md "Zero copy")
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ccl_internal.h"
#include "ccl_store.h"

/* What a rank posts per exchange */
struct zc_wire {
	uint64_t seq;
	uint64_t key;
	uint64_t off;
};

/*
 * The key covering [@va, @va + @len): a cached registration whose range
 * contains it, else a new one. A region is a VA range translated at each
 * write (docs/nic.md), so a cached entry stays right when the user frees
 * a buffer and maps another at the same VA: writes land in whatever is
 * mapped there at the time of the write. Return: the key, or 0 when the
 * range cannot be registered.
 */
static uint64_t reg_get(struct hpuccl_comm *c, uint64_t va, uint64_t len,
			uint64_t *off)
{
	struct ccl_reg *e;
	uint32_t handle = 0;
	uint64_t key = 0;
	int i, lru = 0;

	for (i = 0; i < c->nregs; i++) {
		e = &c->regs[i];
		if (e->va <= va && va + len <= e->va + e->len) {
			e->tick = ++c->reg_tick;
			*off = va - e->va;
			return e->key;
		}
		if (e->tick < c->regs[lru].tick)
			lru = i;
	}
	if (c->nregs == CCL_REG_MAX) {
		/* peers write into a region only during a CS of ours that
		 * used it: once our CSs ended, nobody writes into it */
		ccl_wait_all(c);
		hpu_nic_dereg_mr(c->dev, c->regs[lru].handle);
		c->regs[lru] = c->regs[--c->nregs];
	}
	if (hpu_nic_register(c->dev, va, len, &handle, &key))
		return 0;
	c->regs[c->nregs++] = (struct ccl_reg){ .va = va,
						.len = len,
						.handle = handle,
						.key = key,
						.tick = ++c->reg_tick };
	*off = 0;
	return key;
}

void ccl_zc_release(struct hpuccl_comm *c)
{
	int i;

	for (i = 0; i < c->nregs; i++)
		hpu_nic_dereg_mr(c->dev, c->regs[i].handle);
	c->nregs = 0;
}

/*
 * Every rank posts zc/<seq>/<rank> and reads everybody's. Rank r posts
 * exchange seq+1 only after it read every entry of exchange seq, so once
 * this rank read every entry of exchange seq, all ranks are done with
 * exchange seq-1: its own entry of seq-1 can go.
 */
int ccl_zc_exchange(struct hpuccl_comm *c, uint64_t va, uint64_t len)
{
	struct zc_wire me = { .seq = c->nzc }, w;
	bool all = true;
	char key[64];
	size_t got;
	int p, ret;

	me.key = reg_get(c, va, len, &me.off);
	snprintf(key, sizeof(key), "zc/%llu/%d", (unsigned long long)c->nzc,
		 c->rank);
	ret = ccl_store_set(c->store, key, &me, sizeof(me));
	if (ret)
		return ccl_set_error(c, ret);
	for (p = 0; p < c->nranks; p++) {
		if (p == c->rank) {
			w = me;
		} else {
			snprintf(key, sizeof(key), "zc/%llu/%d",
				 (unsigned long long)c->nzc, p);
			ret = ccl_store_get(c->store, key, &w, sizeof(w), &got,
					    (int)c->timeout_ms);
			if (!ret && (got != sizeof(w) || w.seq != c->nzc))
				ret = -EPROTO;
			if (ret)
				return ccl_set_error(c, ret);
		}
		c->zc_key[p] = w.key;
		c->zc_off[p] = w.off;
		if (!w.key)
			all = false;
	}
	if (c->nzc) {
		snprintf(key, sizeof(key), "zc/%llu/%d",
			 (unsigned long long)c->nzc - 1, c->rank);
		ret = ccl_store_del(c->store, key);
		if (ret)
			return ccl_set_error(c, ret);
	}
	c->nzc++;
	return all ? 1 : 0;
}
