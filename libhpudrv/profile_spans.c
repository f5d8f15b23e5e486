// SPDX-License-Identifier: MIT
/*
 * profile_spans.c - host spans: a per-thread stack of open spans and one
 * bounded buffer of closed ones for the process (docs/tracing.md,
 * "Host spans").
 *
 * A closed span takes the next slot of the buffer with one atomic
 * fetch-add and is marked ready after it is written, so threads never
 * wait on each other; once the slots are used up, spans are dropped and
 * counted. When the process does not profile, a span call is one relaxed
 * atomic load and a return.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpudrv_internal.h"
#include "profile_internal.h"

/* Threads whose names are kept (spans of later ones are still recorded) */
#define SPAN_THREADS_MAX 1024

enum span_state {
	SPANS_UNKNOWN, /* HPU_PROFILE not looked at yet */
	SPANS_OFF,
	SPANS_ON,
};

struct open_span {
	uint64_t begin_ns;
	char name[HPU_PROFILE_NAME_LEN + 1];
	char cat[HPU_PROFILE_CAT_LEN + 1];
};

static _Atomic int spans_state = SPANS_UNKNOWN;
static struct hpudrv_span *spans;
static _Atomic unsigned char *spans_ready;
static size_t spans_cap;
static _Atomic size_t spans_next;
static _Atomic uint64_t spans_dropped;

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
/* frees a thread's stack of open spans when it exits */
static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;
static struct hpudrv_trace_thread threads[SPAN_THREADS_MAX];
static size_t nthreads;

/* initial-exec: a few bytes of static TLS, no __tls_get_addr() call */
#define SPAN_TLS __thread __attribute__((tls_model("initial-exec")))

static SPAN_TLS struct open_span *tls_stack;
static SPAN_TLS unsigned int tls_depth;
static SPAN_TLS uint32_t tls_tid; /* gettid(), 0 until the first span */

uint64_t hpu_profile_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int hpudrv_spans_init(size_t capacity)
{
	struct hpudrv_span *s;
	_Atomic unsigned char *r;

	if (!capacity)
		return -EINVAL;
	s = calloc(capacity, sizeof(*s));
	r = calloc(capacity, sizeof(*r));
	if (!s || !r) {
		free(s);
		free((void *)r);
		return -ENOMEM;
	}
	free(spans);
	free((void *)spans_ready);
	spans = s;
	spans_ready = r;
	spans_cap = capacity;
	atomic_store(&spans_next, 0);
	atomic_store(&spans_dropped, 0);
	return 0;
}

void hpudrv_spans_enable(bool on)
{
	atomic_store(&spans_state, on && spans ? SPANS_ON : SPANS_OFF);
}

void hpudrv_spans_after_fork(void)
{
	/* the one thread of the child has a thread id of its own */
	tls_tid = 0;
	pthread_mutex_init(&threads_lock, NULL);
	nthreads = 0;
}

void hpudrv_spans_reset(void)
{
	atomic_store(&spans_state, SPANS_OFF);
	free(spans);
	free((void *)spans_ready);
	spans = NULL;
	spans_ready = NULL;
	spans_cap = 0;
	atomic_store(&spans_next, 0);
	atomic_store(&spans_dropped, 0);
	pthread_mutex_lock(&threads_lock);
	nthreads = 0;
	pthread_mutex_unlock(&threads_lock);
}

/* true when spans are recorded; looks at HPU_PROFILE the first time */
static inline bool spans_on(void)
{
	int s = atomic_load_explicit(&spans_state, memory_order_relaxed);

	if (__builtin_expect(s == SPANS_OFF, 1))
		return false;
	if (s == SPANS_UNKNOWN && !hpudrv_profile_want())
		return false;
	return atomic_load_explicit(&spans_state, memory_order_acquire) ==
	       SPANS_ON;
}

static void stack_free(void *p)
{
	free(p);
}

static void stack_key_init(void)
{
	pthread_key_create(&stack_key, stack_free);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void register_thread(void)
{
	char name[32] = "";

	tls_tid = (uint32_t)gettid();
	pthread_getname_np(pthread_self(), name, sizeof(name));
	pthread_mutex_lock(&threads_lock);
	if (nthreads < SPAN_THREADS_MAX) {
		threads[nthreads].tid = tls_tid;
		copy_str(threads[nthreads].name, sizeof(threads[0].name), name);
		nthreads++;
	}
	pthread_mutex_unlock(&threads_lock);
}

static void record(uint64_t begin, uint64_t end, uint32_t tid, uint32_t flags,
		   const char *name, const char *cat)
{
	size_t i =
		atomic_fetch_add_explicit(&spans_next, 1, memory_order_relaxed);
	struct hpudrv_span *s;

	if (i >= spans_cap) {
		atomic_fetch_add_explicit(&spans_dropped, 1,
					  memory_order_relaxed);
		return;
	}
	s = &spans[i];
	s->begin_ns = begin;
	s->end_ns = end < begin ? begin : end;
	s->tid = tid;
	s->flags = flags;
	copy_str(s->name, sizeof(s->name), name);
	copy_str(s->cat, sizeof(s->cat), cat);
	atomic_store_explicit(&spans_ready[i], 1, memory_order_release);
}

void hpu_profile_span_begin(const char *name, const char *category)
{
	struct open_span *o;

	if (!spans_on())
		return;
	if (!tls_tid)
		register_thread();
	if (!tls_stack) {
		/* a thread's 2 KiB, freed when it exits */
		pthread_once(&stack_key_once, stack_key_init);
		tls_stack = calloc(HPU_PROFILE_MAX_DEPTH, sizeof(*tls_stack));
		if (!tls_stack)
			return;
		pthread_setspecific(stack_key, tls_stack);
	}
	if (tls_depth++ >= HPU_PROFILE_MAX_DEPTH)
		return;
	o = &tls_stack[tls_depth - 1];
	copy_str(o->name, sizeof(o->name), name ?: "?");
	copy_str(o->cat, sizeof(o->cat), category ?: "host");
	o->begin_ns = hpu_profile_now_ns();
}

void hpu_profile_span_end(void)
{
	struct open_span *o;
	uint64_t end;

	/* profiling never stops once on: an end while off had no begin */
	if (atomic_load_explicit(&spans_state, memory_order_relaxed) !=
		    SPANS_ON ||
	    !tls_depth)
		return;
	tls_depth--;
	if (tls_depth >= HPU_PROFILE_MAX_DEPTH || !tls_stack)
		return;
	end = hpu_profile_now_ns();
	o = &tls_stack[tls_depth];
	record(o->begin_ns, end, tls_tid, 0, o->name, o->cat);
}

void hpu_profile_span_add(const char *name, const char *category,
			  uint64_t begin_ns, uint64_t end_ns)
{
	if (!spans_on())
		return;
	record(begin_ns, end_ns, 0, HPUDRV_SPAN_ASYNC, name ?: "?",
	       category ?: "async");
}

size_t hpudrv_spans_snapshot(struct hpudrv_span **out, uint64_t *dropped)
{
	size_t n = atomic_load(&spans_next), i, k = 0;
	struct hpudrv_span *s;

	*out = NULL;
	*dropped = atomic_load(&spans_dropped);
	if (n > spans_cap)
		n = spans_cap;
	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return 0;
	for (i = 0; i < n; i++)
		if (atomic_load_explicit(&spans_ready[i], memory_order_acquire))
			s[k++] = spans[i];
	*out = s;
	return k;
}

size_t hpudrv_spans_threads(struct hpudrv_trace_thread **out)
{
	size_t n;

	pthread_mutex_lock(&threads_lock);
	n = nthreads;
	*out = n ? malloc(n * sizeof(**out)) : NULL;
	if (*out)
		memcpy(*out, threads, n * sizeof(**out));
	else
		n = 0;
	pthread_mutex_unlock(&threads_lock);
	return n;
}
