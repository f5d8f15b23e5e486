/* SPDX-License-Identifier: MIT */
/*
 * hpu_warn.h - HPU_WARN_ON() and lock-held assertions, for the daemon
 * (fusedev/) and the device model (firmware-sim/).
 *
 * HPU_WARN_ON(cond) is the kernel's WARN_ON(): it evaluates to the truth
 * of @cond, so it can guard the code that copes with the broken case
 *
 *	if (HPU_WARN_ON(!q))
 *		return -EINVAL;
 *
 * and when @cond is true it reports "WARN_ON(cond) at file:line func()"
 * once per call site (the first time; later hits are only counted). The
 * report goes to stderr, or to the sink the program set (the daemon: its
 * log). hpu_warn_count() is the number of hits, so a test can check that
 * none fired.
 *
 * HPU_ASSERT_HELD(&mutex), HPU_ASSERT_RWLOCK_HELD(&rwlock) and
 * HPU_ASSERT_RWLOCK_WRITE_HELD(&rwlock) are lockdep_assert_held(): they
 * WARN when the lock a function's comment says must be held is not. On
 * glibc a mutex and a write-held rwlock name their owner, so those checks
 * are exact (held by this thread); a read-held rwlock is only known to be
 * held by someone. Built out with NDEBUG.
 */
#ifndef HPU_WARN_H
#define HPU_WARN_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

/**
 * hpu_warn_report() - report one HPU_WARN_ON() hit (use the macro)
 * @once: the call site's flag: the report is printed while it is 0
 * @file: source file of the call site
 * @line: its line
 * @func: its function
 * @cond: the condition's text
 */
void hpu_warn_report(int *once, const char *file, int line, const char *func,
		     const char *cond);

/**
 * hpu_warn_set_sink() - where reports go
 * @sink: called with the report's text (no newline), or NULL for stderr
 */
void hpu_warn_set_sink(void (*sink)(const char *msg));

/**
 * hpu_warn_count() - HPU_WARN_ON() hits since the program started
 *
 * Return: hits, reported or not.
 */
unsigned long hpu_warn_count(void);

/**
 * hpu_self_tid() - the calling thread's id (cached; right after fork too)
 *
 * Return: gettid().
 */
pid_t hpu_self_tid(void);

#define HPU_WARN_ON(cond)                                                 \
	__extension__({                                                   \
		static int hpu_warned_;                                   \
		bool hpu_hit_ = !!(cond);                                 \
		if (__builtin_expect(hpu_hit_, 0))                        \
			hpu_warn_report(&hpu_warned_, __FILE__, __LINE__, \
					__func__, #cond);                 \
		hpu_hit_;                                                 \
	})

/**
 * hpu_mutex_held() - whether @m is locked by the calling thread
 * @m: a mutex (any type)
 *
 * Exact on glibc (the mutex records its owner); elsewhere true when
 * anyone holds it.
 */
static inline bool hpu_mutex_held(pthread_mutex_t *m)
{
#ifdef __GLIBC__
	return m->__data.__owner == hpu_self_tid();
#else
	if (pthread_mutex_trylock(m) == EBUSY)
		return true;
	pthread_mutex_unlock(m);
	return false;
#endif
}

/**
 * hpu_rwlock_held() - whether @l is held, for reading or writing
 * @l: a rwlock
 *
 * Readers are not recorded: true when anyone holds it.
 */
static inline bool hpu_rwlock_held(pthread_rwlock_t *l)
{
	if (pthread_rwlock_trywrlock(l))
		return true;
	pthread_rwlock_unlock(l);
	return false;
}

/**
 * hpu_rwlock_write_held() - whether @l is write-locked by the calling thread
 * @l: a rwlock
 *
 * Exact on glibc (the writer is recorded); elsewhere true when anyone
 * holds it.
 */
static inline bool hpu_rwlock_write_held(pthread_rwlock_t *l)
{
#ifdef __GLIBC__
	return (pid_t)l->__data.__cur_writer == hpu_self_tid();
#else
	return hpu_rwlock_held(l);
#endif
}

#ifdef NDEBUG
#define HPU_ASSERT_HELD(m)		((void)(m))
#define HPU_ASSERT_RWLOCK_HELD(l)	((void)(l))
#define HPU_ASSERT_RWLOCK_WRITE_HELD(l) ((void)(l))
#else
#define HPU_ASSERT_HELD(m)	  ((void)HPU_WARN_ON(!hpu_mutex_held(m)))
#define HPU_ASSERT_RWLOCK_HELD(l) ((void)HPU_WARN_ON(!hpu_rwlock_held(l)))
#define HPU_ASSERT_RWLOCK_WRITE_HELD(l) \
	((void)HPU_WARN_ON(!hpu_rwlock_write_held(l)))
#endif

#endif /* HPU_WARN_H */
