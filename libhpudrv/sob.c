// SPDX-License-Identifier: MIT
/*
 * sob.c - the sync objects of a device handle that the libraries share
 * out: blocks for hpu_sob_alloc() (libhpuccl's communicators) and single
 * SOBs of known value for the streams' fences (stream.c). Both come from
 * the top, away from the SOBs an application numbers from 0.
 *
 * A SOB the library knows the value of ("clean") can carry a stream's
 * counter: its value only grows while the library hands it out, so a
 * fence someone still holds on an older value stays satisfied. A block
 * of hpu_sob_alloc() is "dirty" from then on (its value is unknown): only
 * hpu_sob_alloc() hands it out again, to callers that set it themselves.
 * A stream's SOB is never dirty; one that is spent (near
 * HPU_SOB_MAX_VALUE) or whose value became unknown (a CS of the stream
 * failed) is never given back: it stays taken while the handle is open.
 */
#include <errno.h>

#include "hpudrv_internal.h"

static bool bit(const uint64_t *m, uint32_t i)
{
	return m[i / 64] & (1ULL << (i % 64));
}

static void set_bit(uint64_t *m, uint32_t i, bool v)
{
	if (v)
		m[i / 64] |= 1ULL << (i % 64);
	else
		m[i / 64] &= ~(1ULL << (i % 64));
}

/* The bitmaps and values start at 0 with the handle (calloc) */
void hpudrv_sob_init(struct hpu_device *dev)
{
	pthread_mutex_init(&dev->sob_lock, NULL);
}

void hpudrv_sob_fini(struct hpu_device *dev)
{
	pthread_mutex_destroy(&dev->sob_lock);
}

int hpu_sob_alloc(struct hpu_device *dev, uint32_t count, uint32_t *base)
{
	uint32_t i;
	int b, ret = -ENOSPC;

	if (!dev || !base || !count || count > HPU_NUM_SOBS || dev->control)
		return -EINVAL;
	pthread_mutex_lock(&dev->sob_lock);
	for (b = HPU_NUM_SOBS - (int)count; b >= 0; b--) {
		for (i = 0; i < count; i++)
			if (bit(dev->sob_used, (uint32_t)b + i))
				break;
		if (i == count)
			break;
	}
	if (b >= 0) {
		for (i = 0; i < count; i++) {
			set_bit(dev->sob_used, (uint32_t)b + i, true);
			set_bit(dev->sob_dirty, (uint32_t)b + i, true);
		}
		*base = (uint32_t)b;
		ret = 0;
	}
	pthread_mutex_unlock(&dev->sob_lock);
	return ret;
}

/* A block of hpu_sob_alloc(): taken and dirty (a stream's never is) */
static bool sob_allocated(const struct hpu_device *dev, uint32_t i)
{
	return bit(dev->sob_used, i) && bit(dev->sob_dirty, i);
}

void hpu_sob_free(struct hpu_device *dev, uint32_t base, uint32_t count)
{
	uint32_t i;

	if (!dev || base >= HPU_NUM_SOBS || count > HPU_NUM_SOBS - base)
		return;
	pthread_mutex_lock(&dev->sob_lock);
	/*
	 * all or nothing: a stream's SOB (in use, spent or retired) must
	 * never come back with a value the library no longer knows
	 */
	for (i = base; i < base + count; i++)
		if (!sob_allocated(dev, i))
			goto out;
	for (i = base; i < base + count; i++)
		set_bit(dev->sob_used, i, false);
out:
	pthread_mutex_unlock(&dev->sob_lock);
}

int hpudrv_sob_take(struct hpu_device *dev, uint32_t *sob, uint32_t *value)
{
	int i, ret = -ENOSPC;

	pthread_mutex_lock(&dev->sob_lock);
	for (i = HPU_NUM_SOBS - 1; i >= 0; i--) {
		if (bit(dev->sob_used, (uint32_t)i) ||
		    bit(dev->sob_dirty, (uint32_t)i) ||
		    dev->sob_value[i] > HPUDRV_SOB_TAKE_MAX)
			continue;
		set_bit(dev->sob_used, (uint32_t)i, true);
		*sob = (uint32_t)i;
		*value = dev->sob_value[i];
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&dev->sob_lock);
	return ret;
}

void hpudrv_sob_give(struct hpu_device *dev, uint32_t sob, uint32_t value)
{
	/*
	 * Spent: it stays taken until the handle closes (as one whose
	 * value is unknown, never given). A fence someone holds on one of
	 * its counts must never see it set back (by hpu_sob_alloc()'s next
	 * owner) or counted anew.
	 */
	if (sob >= HPU_NUM_SOBS || value > HPUDRV_SOB_TAKE_MAX)
		return;
	pthread_mutex_lock(&dev->sob_lock);
	set_bit(dev->sob_used, sob, false);
	dev->sob_value[sob] = (uint16_t)value;
	pthread_mutex_unlock(&dev->sob_lock);
}
