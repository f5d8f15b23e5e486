// SPDX-License-Identifier: MIT
/*
 * hpu_warn.c - reports of HPU_WARN_ON() and the thread id the lock-held
 * checks compare with (hpu_warn.h).
 */
#include <stdio.h>
#include <unistd.h>

#include "hpu_warn.h"

static void (*warn_sink)(const char *msg);
static unsigned long warn_hits;
static __thread pid_t self_tid;

/* A forked child is a new thread: its id is looked up again */
static void forget_tid(void)
{
	self_tid = 0;
}

__attribute__((constructor)) static void warn_init(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
}

pid_t hpu_self_tid(void)
{
	if (!self_tid)
		self_tid = gettid();
	return self_tid;
}

void hpu_warn_set_sink(void (*sink)(const char *msg))
{
	__atomic_store_n(&warn_sink, sink, __ATOMIC_RELEASE);
}

unsigned long hpu_warn_count(void)
{
	return __atomic_load_n(&warn_hits, __ATOMIC_RELAXED);
}

void hpu_warn_report(int *once, const char *file, int line, const char *func,
		     const char *cond)
{
	void (*sink)(const char *msg);
	char msg[256];

	__atomic_add_fetch(&warn_hits, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
		return;
	snprintf(msg, sizeof(msg), "WARN_ON(%s) at %s:%d %s()", cond, file,
		 line, func);
	sink = __atomic_load_n(&warn_sink, __ATOMIC_ACQUIRE);
	if (sink)
		sink(msg);
	else
		fprintf(stderr, "%s\n", msg);
}
