// SPDX-License-Identifier: MIT
/*
 * comm_errors.c - a communicator's errors: the sticky error, the checks
 * of the store (a rank left), of its recent CSs and of the device's
 * events (a link down, a refused write naming one of its keys),
 * hpuccl_comm_get_async_error(), and waiting for its CSs to end
 * (docs/collectives.md "Errors")
 */
#include <errno.h>
#include <stdbool.h>

#include "ccl_store.h"
#include "comm.h"

int ccl_set_error(struct hpuccl_comm *c, int err)
{
	if (err && !c->err)
		c->err = err;
	return c->err ? c->err : err;
}

/*
 * Whether @key is one of @c's: its inbox, a peer's inbox, a registered
 * buffer, a peer's buffer of the current zero-copy exchange. Keys are
 * never reused, so a refused write of an earlier communicator on this
 * device (a dead rank's writes can land after the survivors formed a new
 * one) names none of them. Key 0 (not given) counts as @c's.
 */
static bool comm_key(const struct hpuccl_comm *c, uint64_t key)
{
	int i;

	if (!key || key == c->inbox_key)
		return true;
	for (i = 0; c->peers && i < c->nranks; i++)
		if (c->peers[i].key == key ||
		    (c->zc_key && c->zc_key[i] == key))
			return true;
	for (i = 0; i < c->nregs; i++)
		if (c->regs[i].key == key)
			return true;
	return false;
}

/* Device events: a link down, or a bad remote access of @c's memory */
static int device_events(struct hpuccl_comm *c)
{
	struct hpu_event ev[16];
	int n, i, ret = 0;

	while ((n = hpu_event_read(c->dev, ev, 16)) > 0) {
		for (i = 0; i < n; i++) {
			if (ev[i].type == HPU_EVENT_LINK_DOWN)
				ret = -ENETDOWN;
			else if (ev[i].type == HPU_EVENT_NIC_ACCESS_ERR &&
				 !ret && comm_key(c, ev[i].data))
				ret = -EIO;
		}
		if (n < 16)
			break;
	}
	return ret;
}

int ccl_check_error(struct hpuccl_comm *c)
{
	if (c->err)
		return c->err;
	if (c->store && ccl_store_check(c->store))
		return ccl_set_error(c, -ECONNRESET);
	return 0;
}

int ccl_full_check(struct hpuccl_comm *c)
{
	uint64_t i, first;
	int cs_err = 0, ev;

	if (c->err)
		return c->err;
	first = c->nrecent > CCL_RECENT ? c->nrecent - CCL_RECENT : 0;
	for (i = first; i < c->nrecent && !cs_err; i++) {
		uint32_t st = HPU_WAIT_CS_STATUS_COMPLETED;

		if (hpu_cs_wait(c->dev, c->recent[i % CCL_RECENT], 0, &st))
			continue;
		if (st == HPU_WAIT_CS_STATUS_TIMEDOUT)
			cs_err = -ETIMEDOUT;
		else if (st == HPU_WAIT_CS_STATUS_ABORTED)
			cs_err = -EIO;
	}
	ev = device_events(c);
	if (c->store && ccl_store_check(c->store))
		return ccl_set_error(c, -ECONNRESET);
	if (ev == -ENETDOWN)
		return ccl_set_error(c, ev);
	if (cs_err)
		return ccl_set_error(c, cs_err);
	return ccl_set_error(c, ev);
}

HPUCCL_EXPORT int hpuccl_comm_get_async_error(struct hpuccl_comm *comm)
{
	if (!comm)
		return -EINVAL;
	return ccl_full_check(comm);
}

int ccl_wait_all(struct hpuccl_comm *c)
{
	uint32_t st = HPU_WAIT_CS_STATUS_COMPLETED;
	int ret;

	if (!c->nrecent)
		return 0;
	ret = hpu_cs_wait(c->dev, c->recent[(c->nrecent - 1) % CCL_RECENT],
			  (uint64_t)c->timeout_ms * 1000 + 1000000, &st);
	if (ret)
		return ret;
	if (st == HPU_WAIT_CS_STATUS_BUSY)
		return -ETIMEDOUT;
	return 0;
}
