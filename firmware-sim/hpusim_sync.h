/* SPDX-License-Identifier: MIT */
/*
 * hpusim_sync.h - the sync manager (sync.c) as the rest of the model
 * sees it: sync objects, monitors, FENCE waits (part of the private
 * interface hpusim.h, which includes it). An address space holds its
 * SOBs and monitors (struct hpu_fw_as).
 */
#ifndef HPUSIM_SYNC_H
#define HPUSIM_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "hpu_fw_if.h"

struct hpusim_queue;

/**
 * struct hpusim_monitor - an armed monitor
 * @armed: waiting for its SOB
 * @sob_id: SOB watched (@is_long: the first of the four)
 * @target: fires when the SOB is >= this
 * @payload: written at @addr
 * @addr: device VA written, or with @to_sob the SOB @payload goes to
 * @equal: fires when the SOB equals @target (HPU_MON_F_EQUAL)
 * @to_sob: the payload goes to a SOB (HPU_MON_F_SOB_ADD, _SOB_SET)
 * @sob_set: @to_sob sets the SOB rather than adding (HPU_MON_F_SOB_SET)
 * @is_long: watches the long SOB @sob_id..@sob_id+3 (HPU_MON_F_LONG)
 */
struct hpusim_monitor {
	bool armed;
	bool equal;
	bool to_sob;
	bool sob_set;
	bool is_long;
	uint32_t sob_id;
	uint64_t target;
	uint32_t payload;
	uint64_t addr;
};

/* sync.c: sync objects, monitors, fence waits */
int hpusim_sob_read(struct hpu_fw_as *as, uint32_t sob_id, uint32_t *value);
int hpusim_sob_write(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		     uint32_t value);

/**
 * hpusim_sob_update() - SET or ADD a SOB; wake fences; fire monitors
 * @as: address space
 * @sob_id: SOB
 * @op: HPU_MSG_OP_* (a long op: the long SOB @sob_id..@sob_id+3,
 *	wakes the fences and checks the monitors of all four)
 * @value: operand
 * @fault_va: out: payload VA of a monitor whose write faulted
 *
 * Takes the scheduler lock (do not hold it).
 *
 * Return: 0, -EINVAL for a long op past the last SOB (nothing changed),
 * or -EFAULT when a monitor it fired faulted.
 */
int hpusim_sob_update(struct hpu_fw_as *as, uint32_t sob_id, uint32_t op,
		      uint32_t value, uint64_t *fault_va);

/**
 * hpusim_monitor_arm() - arm (or re-arm) a monitor
 * @as: address space
 * @pkt: the ARM_MONITOR packet
 * @fault_va: out: payload VA when it fired at once and the write faulted
 *
 * Return: 0, or -EFAULT.
 */
int hpusim_monitor_arm(struct hpu_fw_as *as,
		       const struct hpu_pkt_arm_monitor *pkt,
		       uint64_t *fault_va);

/**
 * hpusim_fence_try() - pass a FENCE or register the queue as its waiter
 * @as: address space
 * @q: queue executing the fence
 * @pkt: the FENCE packet
 *
 * Return: true when the fence passed (dec applied); false when @q is now
 * a waiter: it must park (or go on if it was woken meanwhile).
 */
bool hpusim_fence_try(struct hpu_fw_as *as, struct hpusim_queue *q,
		      const struct hpu_pkt_fence *pkt);

void hpusim_sync_clear(struct hpu_fw_as *as);

/**
 * hpusim_fence_cancel() - remove a queue from the waiters (sched lock held)
 * @as: address space
 * @q: queue
 */
void hpusim_fence_cancel(struct hpu_fw_as *as, struct hpusim_queue *q);

#endif /* HPUSIM_SYNC_H */
