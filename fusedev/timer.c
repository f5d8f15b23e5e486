// SPDX-License-Identifier: MIT
/*
 * timer.c - the driver's one timer thread: WAIT_CS deadlines, CS
 * timeouts, and work that must not run inside a device model callback
 * (deadline 0). A timer embedded in an object is cancelled with
 * hfd_timer_cancel_sync() before the object is freed, like del_timer_sync.
 */
#include <errno.h>
#include <time.h>

#include "hpu_fused.h"

/*
 * timer_lock protects the queue (every timer's armed/next/prev),
 * running, stopping and the thread's existence.
 */
static pthread_mutex_t timer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_cond;      /* queue changed or stopping */
static pthread_cond_t timer_done_cond; /* a callback returned */
static struct hfd_timer *timer_head;
static struct hfd_timer *running;
static bool stopping;
static bool started;
/*
 * The thread sleeps on timer_cond (@sleeping) until @sleep_until
 * (UINT64_MAX: no timer queued). Before it sleeps it has looked at the
 * whole queue under timer_lock, so only a timer due earlier than that
 * needs to wake it: arming the usual CS timeout (seconds after the ones
 * already queued) costs no wakeup, no context switch per CS.
 */
static bool sleeping;
static uint64_t sleep_until;
static unsigned int users;
static pthread_t timer_thread;

static void unlink_timer(struct hfd_timer *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		timer_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->next = t->prev = NULL;
	t->armed = false;
}

static void *timer_main(void *arg)
{
	struct hfd_timer *t, *due;
	struct timespec ts;
	uint64_t now, first;

	pthread_mutex_lock(&timer_lock);
	while (!stopping) {
		now = hfd_now_ns();
		due = NULL;
		first = UINT64_MAX;
		for (t = timer_head; t; t = t->next) {
			if (t->deadline_ns <= now) {
				due = t;
				break;
			}
			if (t->deadline_ns < first)
				first = t->deadline_ns;
		}
		if (due) {
			unlink_timer(due);
			running = due;
			pthread_mutex_unlock(&timer_lock);
			due->fn(due); /* may free @due: never touched again */
			pthread_mutex_lock(&timer_lock);
			running = NULL;
			pthread_cond_broadcast(&timer_done_cond);
			continue;
		}
		sleeping = true;
		sleep_until = first;
		if (first == UINT64_MAX) {
			pthread_cond_wait(&timer_cond, &timer_lock);
		} else {
			ts.tv_sec = (time_t)(first / 1000000000ULL);
			ts.tv_nsec = (long)(first % 1000000000ULL);
			pthread_cond_timedwait(&timer_cond, &timer_lock, &ts);
		}
		sleeping = false;
	}
	pthread_mutex_unlock(&timer_lock);
	return NULL;
}

/**
 * hfd_timer_start() - start the timer thread (counted: one stop per start)
 *
 * Return: 0 or -errno.
 */
int hfd_timer_start(void)
{
	pthread_condattr_t attr;
	int ret = 0;

	pthread_mutex_lock(&timer_lock);
	if (users++)
		goto out;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&timer_cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&timer_done_cond, NULL);
	stopping = false;
	ret = -pthread_create(&timer_thread, NULL, timer_main, NULL);
	if (ret) {
		users--;
		goto out;
	}
	started = true;
out:
	pthread_mutex_unlock(&timer_lock);
	return ret;
}

/**
 * hfd_timer_stop() - stop the thread after the last user; queued timers
 * are dropped (their owners were torn down before)
 */
void hfd_timer_stop(void)
{
	pthread_mutex_lock(&timer_lock);
	if (!users || --users) {
		pthread_mutex_unlock(&timer_lock);
		return;
	}
	stopping = true;
	pthread_cond_broadcast(&timer_cond);
	pthread_mutex_unlock(&timer_lock);
	pthread_join(timer_thread, NULL);
	pthread_mutex_lock(&timer_lock);
	while (timer_head)
		unlink_timer(timer_head);
	started = false;
	pthread_mutex_unlock(&timer_lock);
}

/**
 * hfd_timer_arm() - (re)queue a timer
 * @t: timer with @fn set
 * @deadline_ns: CLOCK_MONOTONIC deadline; 0 runs it as soon as possible
 */
void hfd_timer_arm(struct hfd_timer *t, uint64_t deadline_ns)
{
	pthread_mutex_lock(&timer_lock);
	if (t->armed)
		unlink_timer(t);
	t->deadline_ns = deadline_ns;
	t->next = timer_head;
	t->prev = NULL;
	if (timer_head)
		timer_head->prev = t;
	timer_head = t;
	t->armed = true;
	/* awake, it looks at the queue before it sleeps again */
	if (sleeping && deadline_ns < sleep_until)
		pthread_cond_signal(&timer_cond);
	pthread_mutex_unlock(&timer_lock);
}

/**
 * hfd_timer_cancel_sync() - dequeue a timer and wait until its callback,
 * if running, has returned
 * @t: timer
 *
 * From the timer thread itself (a callback cancelling its own timer) it
 * does not wait.
 */
void hfd_timer_cancel_sync(struct hfd_timer *t)
{
	pthread_mutex_lock(&timer_lock);
	if (t->armed)
		unlink_timer(t);
	if (started && !pthread_equal(pthread_self(), timer_thread))
		while (running == t)
			pthread_cond_wait(&timer_done_cond, &timer_lock);
	pthread_mutex_unlock(&timer_lock);
}
