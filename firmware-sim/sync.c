// SPDX-License-Identifier: MIT
/*
 * sync.c - the sync manager of an address space: sync objects, monitors,
 * and the queues parked on a FENCE.
 *
 * A FENCE that cannot pass registers its queue as a waiter and the queue
 * parks without holding a thread. A long SOB (MSG_LONG's long ops,
 * HPU_MON_F_LONG) is four SOBs of 15 bits, the first the lowest: a long
 * op changes, wakes and checks all four. Every SOB change (MSG_LONG, sob_write)
 * first fires the monitors it satisfies, then passes the satisfied
 * waiters in the order they parked, subtracting each one's dec, and makes
 * their queues runnable.
 *
 * Lock order: scheduler lock, then the address space's sync_lock.
 */
#include <errno.h>
#include <string.h>

#include "hpusim.h"
#include "queue.h"

static bool long_op(uint32_t op)
{
	return op == HPU_MSG_OP_LONG_SET || op == HPU_MSG_OP_LONG_ADD;
}

/* The 60-bit value of the long SOB @id..@id+3; sync lock held */
static uint64_t long_value(const struct hpu_fw_as *as, uint32_t id)
{
	uint64_t v = 0;
	int i;

	for (i = 3; i >= 0; i--)
		v = v << HPU_SOB_LONG_BITS |
		    (as->sobs[id + i] & HPU_SOB_MAX_VALUE);
	return v;
}

static void sob_apply(struct hpu_fw_as *as, uint32_t id, uint32_t op,
		      uint32_t value)
{
	uint32_t v = as->sobs[id];
	uint64_t l;
	int i;

	if (long_op(op)) {
		l = op == HPU_MSG_OP_LONG_SET ? value :
						long_value(as, id) + value;
		if (l > HPU_SOB_LONG_MAX)
			l = HPU_SOB_LONG_MAX;
		for (i = 0; i < 4; i++)
			as->sobs[id + i] =
				(uint32_t)(l >> (HPU_SOB_LONG_BITS * i)) &
				HPU_SOB_MAX_VALUE;
		return;
	}
	if (op == HPU_MSG_OP_SET)
		v = value;
	else
		v = v + value;
	as->sobs[id] = v > HPU_SOB_MAX_VALUE ? HPU_SOB_MAX_VALUE : v;
}

/* Pass every satisfied waiter of SOB @id; sched and sync locks held */
static void wake_waiters(struct hpu_fw_as *as, uint32_t id)
{
	struct hpusim_list *pos, *next;

	HPU_ASSERT_HELD(&hpusim_sched.lock);
	HPU_ASSERT_HELD(&as->sync_lock);

	for (pos = as->waiters.next; pos != &as->waiters; pos = next) {
		struct hpusim_queue *q = hpusim_container_of(
			pos, struct hpusim_queue, wait_node);

		next = pos->next;
		if (q->wait_sob != id || as->sobs[id] < q->wait_target)
			continue;
		as->sobs[id] -= q->wait_dec;
		hpusim_list_del(&q->wait_node);
		q->waiting = false;
		hpusim_queue_wake(q);
	}
}

/* Whether monitor @m's condition holds now; sync lock held */
static bool mon_due(const struct hpu_fw_as *as, const struct hpusim_monitor *m)
{
	uint64_t v = m->is_long ? long_value(as, m->sob_id) :
				  as->sobs[m->sob_id];

	return m->equal ? v == m->target : v >= m->target;
}

/* Whether monitor @m watches SOB @id (a long one: any of its four) */
static bool mon_watches(const struct hpusim_monitor *m, uint32_t id)
{
	return m->is_long ? id - m->sob_id < 4 : id == m->sob_id;
}

/* Disarm the monitors SOB @id satisfies; add them at @fire + *@n */
static void due_monitors(struct hpu_fw_as *as, uint32_t id,
			 struct hpusim_monitor *fire, unsigned int *n)
{
	unsigned int i;

	for (i = 0; i < HPU_NUM_MONITORS; i++) {
		struct hpusim_monitor *m = &as->mons[i];

		if (!m->armed || !mon_watches(m, id) || !mon_due(as, m))
			continue;
		m->armed = false; /* so it fires once: *n < HPU_NUM_MONITORS */
		fire[(*n)++] = *m;
	}
}

static int fire_monitors(struct hpu_fw_as *as,
			 const struct hpusim_monitor *fire, unsigned int n,
			 uint64_t *fault_va)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		/*
		 * A payload to a SOB may fire further monitors: each fires
		 * once (it is disarmed first), so a chain is at most
		 * HPU_NUM_MONITORS deep
		 */
		if (fire[i].to_sob) {
			if (hpusim_sob_update(as, (uint32_t)fire[i].addr,
					      fire[i].sob_set ? HPU_MSG_OP_SET :
								HPU_MSG_OP_ADD,
					      fire[i].payload,
					      ret ? NULL : fault_va))
				ret = -EFAULT;
			continue;
		}
		if (!hpusim_mmu_write32(as, fire[i].addr, fire[i].payload))
			continue;
		if (!ret && fault_va)
			*fault_va = fire[i].addr;
		ret = -EFAULT;
	}
	return ret;
}

int hpusim_sob_update(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		      uint32_t value, uint64_t *fault_va)
{
	struct hpusim_monitor fire[HPU_NUM_MONITORS];
	uint32_t i, ids = long_op(op) ? 4 : 1;
	unsigned int n = 0;

	if (sob_id >= HPU_FW_NUM_SOBS || ids > HPU_FW_NUM_SOBS - sob_id)
		return -EINVAL;
	hpusim_sched_lock();
	pthread_mutex_lock(&as->sync_lock);
	sob_apply(as, sob_id, op, value);
	for (i = 0; i < ids; i++)
		due_monitors(as, sob_id + i, fire, &n);
	for (i = 0; i < ids; i++)
		wake_waiters(as, sob_id + i);
	pthread_mutex_unlock(&as->sync_lock);
	hpusim_sched_unlock();
	return fire_monitors(as, fire, n, fault_va);
}

int hpusim_monitor_arm(struct hpu_fw_as *as,
		       const struct hpu_pkt_arm_monitor *pkt,
		       uint64_t *fault_va)
{
	struct hpusim_monitor *m, fire;
	bool now = false;

	bool is_long = pkt->hdr.flags & HPU_MON_F_LONG;
	bool to_sob = pkt->hdr.flags & (HPU_MON_F_SOB_ADD | HPU_MON_F_SOB_SET);

	if (pkt->mon_id >= HPU_NUM_MONITORS || pkt->sob_id >= HPU_FW_NUM_SOBS ||
	    (is_long && pkt->sob_id > HPU_FW_NUM_SOBS - 4) ||
	    (to_sob && pkt->payload_addr >= HPU_FW_NUM_SOBS))
		return -EINVAL;
	pthread_mutex_lock(&as->sync_lock);
	m = &as->mons[pkt->mon_id];
	m->sob_id = pkt->sob_id;
	m->target = is_long ? pkt->target | pkt->target_hi << 32 : pkt->target;
	m->payload = pkt->payload;
	m->addr = pkt->payload_addr;
	m->equal = pkt->hdr.flags & HPU_MON_F_EQUAL;
	m->to_sob = to_sob;
	m->sob_set = pkt->hdr.flags & HPU_MON_F_SOB_SET;
	m->is_long = is_long;
	m->armed = !mon_due(as, m);
	if (!m->armed) {
		fire = *m;
		now = true;
	}
	pthread_mutex_unlock(&as->sync_lock);
	return now ? fire_monitors(as, &fire, 1, fault_va) : 0;
}

bool hpusim_fence_try(struct hpu_fw_as *as, struct hpusim_queue *q,
		      const struct hpu_pkt_fence *pkt)
{
	bool pass;

	pthread_mutex_lock(&as->sync_lock);
	pass = as->sobs[pkt->sob_id] >= pkt->target;
	if (pass) {
		as->sobs[pkt->sob_id] -= pkt->dec;
	} else {
		q->wait_sob = pkt->sob_id;
		q->wait_target = pkt->target;
		q->wait_dec = pkt->dec;
		q->waiting = true;
		hpusim_list_add_tail(&q->wait_node, &as->waiters);
	}
	pthread_mutex_unlock(&as->sync_lock);
	return pass;
}

void hpusim_fence_cancel(struct hpu_fw_as *as, struct hpusim_queue *q)
{
	HPU_ASSERT_HELD(&hpusim_sched.lock);

	pthread_mutex_lock(&as->sync_lock);
	if (q->waiting) {
		hpusim_list_del(&q->wait_node);
		q->waiting = false;
	}
	pthread_mutex_unlock(&as->sync_lock);
}

int hpusim_sob_read(struct hpu_fw_as *as, uint32_t sob_id, uint32_t *value)
{
	if (!as || !value || sob_id >= HPU_FW_NUM_SOBS)
		return -EINVAL;
	pthread_mutex_lock(&as->sync_lock);
	*value = as->sobs[sob_id];
	pthread_mutex_unlock(&as->sync_lock);
	return 0;
}

int hpusim_sob_write(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		     uint32_t value)
{
	if (!as || sob_id >= HPU_FW_NUM_SOBS || value > HPU_SOB_MAX_VALUE ||
	    (op != HPU_MSG_OP_SET && op != HPU_MSG_OP_ADD))
		return -EINVAL;
	if (hpusim_sob_update(as, sob_id, op, value, NULL)) {
		/* no submission to charge: count it for debugging */
		pthread_mutex_lock(&as->sync_lock);
		as->monitor_faults++;
		pthread_mutex_unlock(&as->sync_lock);
	}
	return 0;
}

/**
 * hpusim_sync_clear() - every user SOB of @as to 0, every monitor
 * disarmed (a device reset: its submissions were aborted, so no fence
 * waits); the driver's SOBs are the driver's to reuse
 * @as: address space
 */
void hpusim_sync_clear(struct hpu_fw_as *as)
{
	pthread_mutex_lock(&as->sync_lock);
	memset(as->sobs, 0, HPU_NUM_SOBS * sizeof(as->sobs[0]));
	memset(as->mons, 0, sizeof(as->mons));
	pthread_mutex_unlock(&as->sync_lock);
}
