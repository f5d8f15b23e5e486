// SPDX-License-Identifier: MIT
/*
 * test_timer.c - the driver's timer thread (fusedev/timer.c): arming a
 * timer wakes the sleeping thread only when it is due before the one the
 * thread sleeps for, so an earlier timer armed behind a far one still
 * runs at once, a later one runs in its turn, and a cancelled one never.
 * Every wait is bounded (seconds); no time is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "hpu_fused.h"

/* bound of every wait here: far less than the far timer's minute */
#define WAIT_NS (20ULL * 1000000000ULL)
#define FAR_NS	(60ULL * 1000000000ULL)

static unsigned int fired[4];

static void fire(struct hfd_timer *t);

static struct hfd_timer timers[4] = {
	{ .fn = fire },
	{ .fn = fire },
	{ .fn = fire },
	{ .fn = fire },
};

static void fire(struct hfd_timer *t)
{
	__atomic_add_fetch(&fired[t - timers], 1, __ATOMIC_RELEASE);
}

static bool wait_fired(unsigned int i)
{
	struct timespec ms = { 0, 1000000 };
	uint64_t end = hfd_now_ns() + WAIT_NS;

	while (!__atomic_load_n(&fired[i], __ATOMIC_ACQUIRE)) {
		if (hfd_now_ns() > end)
			return false;
		nanosleep(&ms, NULL);
	}
	return true;
}

static int setup(void **state)
{
	(void)state;
	return hfd_timer_start();
}

static int teardown(void **state)
{
	(void)state;
	hfd_timer_stop();
	return 0;
}

/*
 * The thread sleeps for a timer a minute away; one armed for 1 ms must
 * wake it (it is earlier), one armed for 2 ms after that too; then one
 * armed behind a near one (no wakeup needed) runs in its turn
 */
static void test_earlier_wakes(void **state)
{
	struct timespec settle = { 0, 20000000 };
	unsigned int i;

	(void)state;
	hfd_timer_arm(&timers[0], hfd_now_ns() + FAR_NS);
	nanosleep(&settle, NULL); /* the thread sleeps for it now */
	hfd_timer_arm(&timers[1], hfd_now_ns() + 1000000);
	assert_true(wait_fired(1));
	hfd_timer_arm(&timers[2], hfd_now_ns() + 200000000ULL);
	hfd_timer_arm(&timers[3], hfd_now_ns() + 2000000);
	assert_true(wait_fired(3));
	assert_true(wait_fired(2));
	/* the far one is still queued; cancelled, it never runs */
	assert_int_equal(__atomic_load_n(&fired[0], __ATOMIC_ACQUIRE), 0);
	hfd_timer_cancel_sync(&timers[0]);
	for (i = 1; i < 4; i++)
		assert_int_equal(fired[i], 1);
}

/* Deadline 0 runs at once, also behind a far timer */
static void test_now(void **state)
{
	(void)state;
	fired[0] = 0;
	fired[1] = 0;
	hfd_timer_arm(&timers[0], hfd_now_ns() + FAR_NS);
	hfd_timer_arm(&timers[1], 0);
	assert_true(wait_fired(1));
	hfd_timer_cancel_sync(&timers[0]);
	assert_int_equal(fired[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_earlier_wakes),
		cmocka_unit_test(test_now),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
