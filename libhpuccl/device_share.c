// SPDX-License-Identifier: MIT
/*
 * device_share.c - what the communicators of this process share out on
 * their devices: blocks of SOBs per device handle (from the top, away
 * from the SOBs an application numbers from 0) and the round robin of
 * TPC queues their processing jobs use
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "comm.h"

/**
 * struct sob_map - SOBs the communicators of this process took on one
 * device handle
 * @dev: device handle
 * @used: bit per SOB
 * @next: list link
 */
struct sob_map {
	struct hpu_device *dev;
	uint64_t used[HPU_NUM_SOBS / 64];
	struct sob_map *next;
};

/* Protects sob_maps, tpc_rr */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sob_map *sob_maps;
static unsigned int tpc_rr;

int ccl_sob_alloc(struct hpu_device *dev, uint32_t count, uint32_t *base)
{
	struct sob_map *m;
	int b, i, ret = -ENOSPC;

	pthread_mutex_lock(&g_lock);
	for (m = sob_maps; m && m->dev != dev; m = m->next)
		;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m) {
			ret = -ENOMEM;
			goto out;
		}
		m->dev = dev;
		m->next = sob_maps;
		sob_maps = m;
	}
	/* from the top, away from the SOBs an application numbers from 0 */
	for (b = HPU_NUM_SOBS - (int)count; b >= 0; b--) {
		for (i = 0; i < (int)count; i++)
			if (m->used[(b + i) / 64] & (1ULL << ((b + i) % 64)))
				break;
		if (i == (int)count)
			break;
	}
	if (b >= 0) {
		for (i = 0; i < (int)count; i++)
			m->used[(b + i) / 64] |= 1ULL << ((b + i) % 64);
		*base = (uint32_t)b;
		ret = 0;
	}
out:
	pthread_mutex_unlock(&g_lock);
	return ret;
}

void ccl_sob_free(struct hpu_device *dev, uint32_t base, uint32_t count)
{
	struct sob_map **pm, *m;
	uint32_t i;
	bool empty = true;

	pthread_mutex_lock(&g_lock);
	for (pm = &sob_maps; *pm && (*pm)->dev != dev; pm = &(*pm)->next)
		;
	m = *pm;
	if (m) {
		for (i = base; i < base + count; i++)
			m->used[i / 64] &= ~(1ULL << (i % 64));
		for (i = 0; i < HPU_NUM_SOBS / 64; i++)
			if (m->used[i])
				empty = false;
		if (empty) {
			*pm = m->next;
			free(m);
		}
	}
	pthread_mutex_unlock(&g_lock);
}

unsigned int ccl_tpc_next(void)
{
	unsigned int rr;

	pthread_mutex_lock(&g_lock);
	rr = tpc_rr++;
	pthread_mutex_unlock(&g_lock);
	return rr;
}
