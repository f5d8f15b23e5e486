// SPDX-License-Identifier: MIT
/*
 * device_share.c - what the communicators of this process share out on
 * their devices: blocks of SOBs per device handle (libhpudrv's
 * hpu_sob_alloc(): from the top, away from the SOBs an application
 * numbers from 0, and clear of the streams' fences) and the round robin
 * of TPC queues their processing jobs use
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "comm.h"

/* Protects tpc_rr */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int tpc_rr;

/* libhpudrv shares a handle's SOBs out (with its streams' fences) */
int ccl_sob_alloc(struct hpu_device *dev, uint32_t count, uint32_t *base)
{
	return hpu_sob_alloc(dev, count, base);
}

void ccl_sob_free(struct hpu_device *dev, uint32_t base, uint32_t count)
{
	hpu_sob_free(dev, base, count);
}

unsigned int ccl_tpc_next(void)
{
	unsigned int rr;

	pthread_mutex_lock(&g_lock);
	rr = tpc_rr++;
	pthread_mutex_unlock(&g_lock);
	return rr;
}
