// SPDX-License-Identifier: MIT
/*
 * test_hlml_threads.c - 50 threads calling hlml_init/queries/shutdown at
 * once against the real hpu-fused: no crash, every answer the same as a
 * single thread's. The reference count goes to zero and back all the
 * time, so setup and teardown race with queries of other threads.
 *
 * Bounded: HLML_THREADS_SECONDS (default 2) seconds and at most
 * MAX_ROUNDS rounds per thread. Run longer by hand (issue 17 asks for 10
 * s): HLML_THREADS_SECONDS=10.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/hpu_test_daemon.h"
#include "hlml.h"

#define NDEV	   2
#define NTHREADS   50
#define MAX_ROUNDS 100000

/* What one thread saw first, alone: every round must agree */
static char want_uuid[NDEV][64];
static char want_bus[NDEV][PCI_ADDR_LEN];
static unsigned long long want_total[NDEV];

static atomic_uint bad;
static atomic_uint rounds;
static double deadline_s;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int group_setup(void **state)
{
	(void)state;
	return hpu_test_group_start(NDEV, "gaudi2");
}

/* One round; returns how many answers were wrong */
static unsigned int one_round(unsigned int seed)
{
	unsigned int count = 0, i = seed % NDEV, wrong = 0;
	hlml_pci_info_t pci;
	hlml_memory_t mem;
	hlml_device_t h;
	char uuid[64];

	if (hlml_init() != HLML_SUCCESS)
		return 1;
	if (hlml_device_get_count(&count) != HLML_SUCCESS || count != NDEV)
		wrong++;
	if (hlml_device_get_handle_by_index(i, &h) != HLML_SUCCESS) {
		wrong++;
		goto out;
	}
	if (hlml_device_get_uuid(h, uuid, sizeof(uuid)) != HLML_SUCCESS ||
	    strcmp(uuid, want_uuid[i]))
		wrong++;
	if (hlml_device_get_memory_info(h, &mem) != HLML_SUCCESS ||
	    mem.total != want_total[i])
		wrong++;
	if (hlml_device_get_pci_info(h, &pci) != HLML_SUCCESS ||
	    strcmp(pci.bus_id, want_bus[i]))
		wrong++;
	if (seed % 7 == 0 &&
	    hlml_device_get_handle_by_UUID(want_uuid[i], &h) != HLML_SUCCESS)
		wrong++;
out:
	if (hlml_shutdown() != HLML_SUCCESS)
		wrong++;
	return wrong;
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg, n;

	for (n = 0; n < MAX_ROUNDS && (!n || now_s() < deadline_s); n++) {
		atomic_fetch_add(&bad, one_round(seed + n));
		atomic_fetch_add(&rounds, 1);
	}
	return NULL;
}

static void test_threads(void **state)
{
	const char *env = getenv("HLML_THREADS_SECONDS");
	double seconds = env ? atof(env) : 2.0;
	pthread_t th[NTHREADS];
	hlml_device_t h;
	hlml_memory_t mem;
	hlml_pci_info_t pci;
	unsigned int i, count;

	(void)state;
	if (seconds <= 0 || seconds > 600)
		seconds = 2.0;
	assert_int_equal(hlml_init(), HLML_SUCCESS);
	assert_int_equal(hlml_device_get_count(&count), HLML_SUCCESS);
	assert_int_equal(count, NDEV);
	for (i = 0; i < NDEV; i++) {
		assert_int_equal(hlml_device_get_handle_by_index(i, &h),
				 HLML_SUCCESS);
		assert_int_equal(hlml_device_get_uuid(h, want_uuid[i],
						      sizeof(want_uuid[i])),
				 HLML_SUCCESS);
		assert_int_equal(hlml_device_get_memory_info(h, &mem),
				 HLML_SUCCESS);
		want_total[i] = mem.total;
		assert_int_equal(hlml_device_get_pci_info(h, &pci),
				 HLML_SUCCESS);
		memcpy(want_bus[i], pci.bus_id, sizeof(want_bus[i]));
	}
	assert_int_equal(hlml_shutdown(), HLML_SUCCESS);

	deadline_s = now_s() + seconds;
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker,
						(void *)(uintptr_t)i),
				 0);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	printf("# %u threads, %u rounds in %.1f s, %u wrong answers\n",
	       NTHREADS, atomic_load(&rounds), seconds, atomic_load(&bad));
	assert_int_equal(atomic_load(&bad), 0);
	assert_true(atomic_load(&rounds) >= NTHREADS);
	/* every init was matched: the library is closed again */
	assert_int_equal(hlml_device_get_count(&count),
			 HLML_ERROR_UNINITIALIZED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_threads, hpu_test_need_daemon),
	};

	return cmocka_run_group_tests(tests, group_setup, hpu_test_group_stop);
}
