// SPDX-License-Identifier: MIT
/*
 * device_share.c - what the communicators of this process share out on
 * their devices: the round robin of TPC queues their processing jobs
 * use (their SOBs come from libhpudrv's hpu_sob_alloc(): from the top,
 * away from the SOBs an application numbers from 0, and clear of the
 * streams' fences)
 */
#include <pthread.h>

#include "comm.h"

/* Protects tpc_rr */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int tpc_rr;

unsigned int ccl_tpc_next(void)
{
	unsigned int rr;

	pthread_mutex_lock(&g_lock);
	rr = tpc_rr++;
	pthread_mutex_unlock(&g_lock);
	return rr;
}
