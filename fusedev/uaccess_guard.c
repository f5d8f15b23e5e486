// SPDX-License-Identifier: MIT
/*
 * uaccess_guard.c - a bound on every access of the daemon to client
 * memory (docs/fusedev.md, "Client memory").
 *
 * process_vm_readv/writev fault the client's pages in. A page can be a
 * file page of this very mount (the fault is a FUSE READ that needs a
 * worker) or memory registered with userfaultfd that nobody resolves; a
 * thread stuck in such a fault cannot be interrupted. So each FUSE worker
 * registers its access in a slot of its own, and a watchdog thread
 * abandons an access older than the timeout: it answers the request with
 * EFAULT itself, the client goes on, and the worker, if it ever wakes,
 * sees that its request is answered: its access reports -EFAULT (the
 * handler undoes what it did, so nothing of the request takes effect) and
 * fs_files.c sends no second answer. A stuck worker is one thread less for
 * everyone else, so stuck (abandoned) accesses are capped per client
 * thread and process: beyond a cap a client's new accesses are refused
 * with -EFAULT at once. Accesses in flight (stuck or not) are capped per
 * user and in total, so that a burst of calls that all start before any
 * is abandoned is bounded too; an access over one of these caps waits
 * for a free place (an access ending) instead, at most the timeout, and
 * is refused at once or as soon as all the places it waits for are held
 * by stuck accesses (they may never come free). Waiting accesses
 * are capped per user and in total, and the FUSE loop's thread limit
 * leaves room for all the stuck and waiting ones (HFD_MAX_THREADS_ALL).
 *
 * Threads of the daemon that touch client memory on a client's behalf
 * outside any request (a ring's consumer, ring.c) are guarded the same
 * way (hfd_uaccess_begin_task()): there is no request to answer, and a
 * hook (hfd_uaccess_set_hook()) tells their owner that the access was
 * abandoned. The watchdog runs the hooks while the stuck thread cannot
 * leave its access: hfd_uaccess_exit() of an abandoned access waits
 * until the watchdog is done with the slot, so what the hook's argument
 * points to stays valid as long as the thread keeps it during the
 * access.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "hpu_fused.h"

/* Slots: one per FUSE worker that made a guarded request */
#define GUARD_SLOTS 2048

_Static_assert(HFD_MAX_THREADS_ALL < GUARD_SLOTS,
	       "every worker the FUSE loop may start finds a slot");

/* Accesses in flight above which the caps are checked on each entry */
#define GUARD_SCAN_AT 32

/* slot word: sequence << 2 | state */
enum guard_state {
	GUARD_IDLE = 0,
	GUARD_ACTIVE = 1,
	GUARD_ABANDONED = 2,
};

#define WORD(seq, st) (((seq) << 2) | (uint64_t)(st))
#define WORD_STATE(w) ((unsigned int)((w)&3))
#define WORD_SEQ(w)   ((w) >> 2)

/**
 * struct guard_slot - the access a worker thread is making
 * @word: sequence and state of the current access (atomic; the worker
 *	moves IDLE -> ACTIVE -> IDLE, the watchdog ACTIVE -> ABANDONED, the
 *	woken worker ABANDONED -> IDLE)
 * @start_ns: CLOCK_MONOTONIC when the access began (atomic)
 * @token: the request being served (atomic; given to the abandon
 *	callback; NULL: a task, no request to answer)
 * @hook: called by the watchdog when it abandons an access (the thread's
 *	own; read by the watchdog after it abandoned the access)
 * @hook_arg: argument of @hook
 * @handled: sequence of the last abandoned access whose handling by the
 *	watchdog is over (atomic)
 * @tid: client thread of the request (atomic)
 * @tgid: its process, looked up when needed (atomic; 0: not yet)
 * @uid: client user of the request (atomic)
 * @waiting: the thread waits for a place under the caps (atomic)
 * @req_start_ns: CLOCK_MONOTONIC when the request (or task) began: its
 *	accesses wait for places until this plus the timeout, together
 *	(the thread's own)
 * @in_request: the thread serves a guarded request (the thread's own)
 * @dead: the request was answered by the watchdog (the thread's own)
 * @claimed: the slot belongs to a thread (slots_lock)
 */
struct guard_slot {
	uint64_t word;
	uint64_t start_ns;
	void *token;
	void (*hook)(void *arg);
	void *hook_arg;
	uint64_t handled;
	int32_t tid;
	int32_t tgid;
	uint32_t uid;
	bool waiting;
	uint64_t req_start_ns;
	bool in_request;
	bool dead;
	bool claimed;
};

/*
 * slots_lock protects the claimed flags and nslots; state changes of a
 * slot are atomics (above).
 */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct guard_slot slots[GUARD_SLOTS];
static unsigned int nslots; /* slots ever claimed: scan bound (atomic) */
static pthread_key_t slot_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct guard_slot *my_slot;

/* counters (atomics) */
static uint32_t busy;	   /* accesses active or abandoned */
static uint32_t stuck_now; /* abandoned, the thread still inside */
static uint64_t stuck_ever;
static uint64_t refused_ever;
static uint32_t waiting_now; /* accesses waiting for a place */
static uint64_t waited_ever;

/*
 * wait_lock and wait_cond: an access waiting for a place sleeps on
 * wait_cond; an access that ends, and the watchdog when it abandons one,
 * wake the waiters (only when waiting_now says there are some)
 */
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond;
static pthread_once_t wait_once = PTHREAD_ONCE_INIT;

/* wait_cond measures its deadlines on CLOCK_MONOTONIC */
static void wait_cond_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wait_cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* guard_lock protects the watchdog's life (running, stopping) */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t guard_cond = PTHREAD_COND_INITIALIZER;
static bool running;
static bool stopping;
static pthread_t watchdog;
static uint64_t timeout_ns = HFD_UACCESS_DEF_TIMEOUT_MS * 1000000ULL;
static void (*abandon_fn)(void *token);

static uint64_t now_coarse(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void slot_release(void *arg)
{
	struct guard_slot *s = arg;

	pthread_mutex_lock(&slots_lock);
	s->claimed = false;
	pthread_mutex_unlock(&slots_lock);
}

static void make_key(void)
{
	if (pthread_key_create(&slot_key, slot_release))
		hfd_err("uaccess guard: no thread key: accesses go unguarded");
}

/* The calling thread's slot, claimed on its first request */
static struct guard_slot *slot_get(void)
{
	struct guard_slot *s = NULL;
	unsigned int i;

	if (my_slot)
		return my_slot;
	pthread_once(&key_once, make_key);
	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < GUARD_SLOTS; i++) {
		if (!slots[i].claimed) {
			s = &slots[i];
			s->claimed = true;
			if (i >= nslots)
				__atomic_store_n(&nslots, i + 1,
						 __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&slots_lock);
	if (s) {
		s->in_request = false;
		s->dead = false;
		pthread_setspecific(slot_key, s);
	}
	my_slot = s;
	return s;
}

/**
 * hfd_uaccess_begin_request() - the calling worker starts serving a
 * request whose client memory accesses are guarded
 * @token: the request, handed to the abandon callback if the watchdog
 *	answers it
 * @tid: client thread that made the request
 * @uid: its user
 */
void hfd_uaccess_begin_request(void *token, pid_t tid, uid_t uid)
{
	struct guard_slot *s = slot_get();

	if (!s)
		return;
	__atomic_store_n(&s->token, token, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tid, (int32_t)tid, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tgid, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->uid, (uint32_t)uid, __ATOMIC_RELAXED);
	s->req_start_ns = now_coarse();
	s->dead = false;
	s->in_request = true;
}

/**
 * hfd_uaccess_begin_task() - the calling thread of the daemon starts
 * work on behalf of a client whose client memory accesses are guarded,
 * outside any request (end: hfd_uaccess_end_request())
 * @tid: a thread id counted against the per-thread cap (the calling
 *	thread's own: each task thread has its own cap)
 * @tgid: the client process the work is for (its cap)
 * @uid: its user (its cap)
 *
 * An abandoned access of a task answers nothing; the thread's hook
 * (hfd_uaccess_set_hook()) is its owner's news.
 */
void hfd_uaccess_begin_task(pid_t tid, pid_t tgid, uid_t uid)
{
	struct guard_slot *s = slot_get();

	if (!s)
		return;
	__atomic_store_n(&s->token, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tid, (int32_t)tid, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tgid, (int32_t)tgid, __ATOMIC_RELAXED);
	__atomic_store_n(&s->uid, (uint32_t)uid, __ATOMIC_RELAXED);
	s->req_start_ns = now_coarse();
	s->dead = false;
	s->in_request = true;
}

/**
 * hfd_uaccess_set_hook() - have the watchdog call @hook(@arg) when it
 * abandons an access of the calling thread, until the next call
 * @hook: the hook, or NULL for none
 * @arg: its argument: must stay valid until the hook is changed (an
 *	abandoned access does not return before the hook ran)
 *
 * The hook runs on the watchdog thread, after the request's own answer:
 * it must not wait for anything the stuck thread may hold.
 */
void hfd_uaccess_set_hook(void (*hook)(void *arg), void *arg)
{
	struct guard_slot *s = slot_get();

	if (!s)
		return;
	__atomic_store_n(&s->hook_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&s->hook, hook, __ATOMIC_RELEASE);
}

/**
 * hfd_uaccess_end_request() - the calling worker is done with its request
 *
 * Return: true when the watchdog already answered the request (the caller
 * must not answer it, nor use the request any more).
 */
bool hfd_uaccess_end_request(void)
{
	struct guard_slot *s = my_slot;
	bool dead;

	if (!s || !s->in_request)
		return false;
	dead = s->dead;
	s->in_request = false;
	s->dead = false;
	return dead;
}

/**
 * hfd_uaccess_request_dead() - whether the watchdog answered the request
 * the calling thread serves (it must not act on it any more)
 */
bool hfd_uaccess_request_dead(void)
{
	return my_slot && my_slot->in_request && my_slot->dead;
}

static int32_t slot_tgid(struct guard_slot *s)
{
	int32_t tgid = __atomic_load_n(&s->tgid, __ATOMIC_RELAXED);

	if (!tgid) {
		tgid = hfd_tid_to_tgid(
			__atomic_load_n(&s->tid, __ATOMIC_RELAXED));
		__atomic_store_n(&s->tgid, tgid, __ATOMIC_RELAXED);
	}
	return tgid;
}

/**
 * struct guard_count - what the slots of other threads hold for a client
 * @tid_stuck: abandoned accesses of its thread
 * @tgid_stuck: abandoned accesses of its process
 * @uid_busy: accesses of its user in flight or abandoned
 * @uid_stuck: abandoned accesses of its user
 * @uid_waiting: accesses of its user waiting for a place
 */
struct guard_count {
	unsigned int tid_stuck;
	unsigned int tgid_stuck;
	unsigned int uid_busy;
	unsigned int uid_stuck;
	unsigned int uid_waiting;
};

static void count_slots(struct guard_slot *me, struct guard_count *c)
{
	unsigned int i, n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
	int32_t tid = me->tid, tgid = 0;
	uint32_t uid = me->uid;
	unsigned int st;
	uint64_t w;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		struct guard_slot *s = &slots[i];
		bool mine;

		if (s == me)
			continue;
		mine = __atomic_load_n(&s->uid, __ATOMIC_RELAXED) == uid;
		w = __atomic_load_n(&s->word, __ATOMIC_SEQ_CST);
		st = WORD_STATE(w);
		if (st == GUARD_IDLE) {
			if (mine &&
			    __atomic_load_n(&s->waiting, __ATOMIC_RELAXED))
				c->uid_waiting++;
			continue;
		}
		if (mine)
			c->uid_busy++;
		if (st != GUARD_ABANDONED)
			continue;
		if (mine)
			c->uid_stuck++;
		if (__atomic_load_n(&s->tid, __ATOMIC_RELAXED) == tid)
			c->tid_stuck++;
		if (!tgid)
			tgid = slot_tgid(me);
		if (__atomic_load_n(&s->tgid, __ATOMIC_RELAXED) == tgid)
			c->tgid_stuck++;
	}
}

enum guard_verdict {
	GUARD_GO,
	GUARD_WAIT,
	GUARD_REFUSE,
};

/*
 * Whether the client of @me may start one more access now (its
 * thread's and process's stuck accesses under their caps, its user's
 * and the daemon's accesses in flight under theirs), must wait for a
 * place (over the user or total cap, some of those places not held by
 * stuck accesses, room among the waiters) or is refused. @busy: accesses in flight with this
 * one.
 */
static enum guard_verdict caps_verdict(struct guard_slot *me, uint32_t busy)
{
	struct guard_count c;

	count_slots(me, &c);
	if (c.tid_stuck >= HFD_UACCESS_MAX_STUCK_THREAD ||
	    c.tgid_stuck >= HFD_UACCESS_MAX_STUCK_PROC)
		return GUARD_REFUSE;
	if (c.uid_busy < HFD_UACCESS_MAX_STUCK_UID &&
	    busy <= HFD_UACCESS_MAX_STUCK)
		return GUARD_GO;
	/* every place it could wait for held by a stuck access: never free */
	if (c.uid_stuck >= HFD_UACCESS_MAX_STUCK_UID ||
	    __atomic_load_n(&stuck_now, __ATOMIC_SEQ_CST) >=
		    HFD_UACCESS_MAX_STUCK ||
	    c.uid_waiting >= HFD_UACCESS_MAX_WAIT_UID)
		return GUARD_REFUSE;
	return GUARD_WAIT;
}

static void wake_waiters(void)
{
	if (!__atomic_load_n(&waiting_now, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&wait_lock);
	pthread_cond_broadcast(&wait_cond);
	pthread_mutex_unlock(&wait_lock);
}

static void ns_to_timespec(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ULL);
	ts->tv_nsec = (long)(ns % 1000000000ULL);
}

/*
 * The access of @me is over a cap: wait for a place while caps_verdict()
 * says so, until the timeout after its request began (all the waits of a
 * request together take at most the timeout). Return: true when it may
 * go (counted in busy), false when it is refused (not counted).
 */
static bool wait_for_place(struct guard_slot *me)
{
	uint64_t end = me->req_start_ns + timeout_ns;
	enum guard_verdict v = GUARD_WAIT;
	bool counted = false, timed_out = false;
	struct timespec until;
	uint32_t n;

	if (now_coarse() >= end)
		return false;
	/* before waiting_now counts this one: wake_waiters() may use it then */
	pthread_once(&wait_once, wait_cond_init);
	if (__atomic_add_fetch(&waiting_now, 1, __ATOMIC_SEQ_CST) >
	    HFD_UACCESS_MAX_WAIT) {
		__atomic_sub_fetch(&waiting_now, 1, __ATOMIC_SEQ_CST);
		return false;
	}
	__atomic_add_fetch(&waited_ever, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&me->waiting, true, __ATOMIC_SEQ_CST);
	ns_to_timespec(&until, end);
	pthread_mutex_lock(&wait_lock);
	for (;;) {
		n = __atomic_add_fetch(&busy, 1, __ATOMIC_SEQ_CST);
		v = caps_verdict(me, n);
		if (v == GUARD_GO) {
			counted = true;
			break;
		}
		__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
		if (v == GUARD_REFUSE || timed_out)
			break;
		timed_out = pthread_cond_timedwait(&wait_cond, &wait_lock,
						   &until) == ETIMEDOUT;
	}
	pthread_mutex_unlock(&wait_lock);
	__atomic_store_n(&me->waiting, false, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&waiting_now, 1, __ATOMIC_SEQ_CST);
	if (!counted)
		wake_waiters(); /* a place among the waiters came free */
	return counted;
}

/**
 * hfd_uaccess_enter() - the calling thread is about to touch client memory
 *
 * An access over its user's or the daemon's cap of accesses in flight
 * waits for one of them to end, at most the timeout (--uaccess-timeout-ms),
 * unless those places are all held by stuck accesses or too many wait
 * already.
 *
 * Return: 1 when the access is guarded (call hfd_uaccess_exit() after
 * it), 0 when the thread serves no guarded request (a direct call, e.g.
 * from a unit test), or -EFAULT when the access must not be made: the
 * request was already answered, or the client is over a cap.
 */
int hfd_uaccess_enter(void)
{
	struct guard_slot *s = my_slot;
	enum guard_verdict v = GUARD_GO;
	uint32_t n;
	uint64_t w;

	if (!s || !s->in_request)
		return 0;
	if (s->dead)
		return -EFAULT;
	n = __atomic_add_fetch(&busy, 1, __ATOMIC_SEQ_CST);
	if (n > GUARD_SCAN_AT || __atomic_load_n(&stuck_now, __ATOMIC_SEQ_CST))
		v = caps_verdict(s, n);
	if (v != GUARD_GO) {
		__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
		if (v == GUARD_REFUSE || !wait_for_place(s)) {
			wake_waiters();
			__atomic_add_fetch(&refused_ever, 1, __ATOMIC_RELAXED);
			hfd_log_ratelimited(
				HFD_LOG_WARN,
				"pid %d (uid %u): client memory access refused: too many stuck or waiting accesses",
				(int)s->tid, (unsigned int)s->uid);
			return -EFAULT;
		}
	}
	w = __atomic_load_n(&s->word, __ATOMIC_RELAXED);
	__atomic_store_n(&s->start_ns, now_coarse(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->word, WORD(WORD_SEQ(w) + 1, GUARD_ACTIVE),
			 __ATOMIC_RELEASE);
	return 1;
}

/**
 * hfd_uaccess_exit() - the access of hfd_uaccess_enter() (which returned
 * 1) is over
 *
 * Return: 0, or -EFAULT when the watchdog abandoned it meanwhile: the
 * request is answered, whatever the access did counts as a fault.
 */
int hfd_uaccess_exit(void)
{
	struct guard_slot *s = my_slot;
	uint64_t w = __atomic_load_n(&s->word, __ATOMIC_RELAXED);
	uint64_t idle = WORD(WORD_SEQ(w), GUARD_IDLE);

	if (WORD_STATE(w) == GUARD_ACTIVE &&
	    __atomic_compare_exchange_n(&s->word, &w, idle, false,
					__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
		__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
		wake_waiters();
		return 0;
	}
	/* abandoned: the thread is back; the watchdog may still be at it */
	while (__atomic_load_n(&s->handled, __ATOMIC_ACQUIRE) != WORD_SEQ(w))
		sched_yield();
	s->dead = true;
	__atomic_store_n(&s->word, idle, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&stuck_now, 1, __ATOMIC_ACQ_REL);
	__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
	wake_waiters();
	hfd_log_ratelimited(
		HFD_LOG_INFO,
		"pid %d: an abandoned client memory access returned",
		(int)s->tid);
	return -EFAULT;
}

static void watchdog_scan(void)
{
	unsigned int i, n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
	uint64_t now = now_coarse(), w, start;
	void (*hook)(void *arg);
	void *token;

	for (i = 0; i < n; i++) {
		struct guard_slot *s = &slots[i];

		w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
		if (WORD_STATE(w) != GUARD_ACTIVE)
			continue;
		start = __atomic_load_n(&s->start_ns, __ATOMIC_RELAXED);
		token = __atomic_load_n(&s->token, __ATOMIC_RELAXED);
		if (now < start || now - start < timeout_ns)
			continue;
		/* fails when the access ended (or a new one began) */
		if (!__atomic_compare_exchange_n(
			    &s->word, &w, WORD(WORD_SEQ(w), GUARD_ABANDONED),
			    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		__atomic_add_fetch(&stuck_now, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&stuck_ever, 1, __ATOMIC_RELAXED);
		slot_tgid(s);
		hfd_log_ratelimited(
			HFD_LOG_WARN,
			"pid %d (uid %u): client memory access stuck for %llu ms: request answered EFAULT, worker abandoned",
			(int)__atomic_load_n(&s->tid, __ATOMIC_RELAXED),
			(unsigned int)__atomic_load_n(&s->uid,
						      __ATOMIC_RELAXED),
			(unsigned long long)((now - start) / 1000000ULL));
		if (abandon_fn && token)
			abandon_fn(token);
		hook = __atomic_load_n(&s->hook, __ATOMIC_ACQUIRE);
		if (hook)
			hook(__atomic_load_n(&s->hook_arg, __ATOMIC_RELAXED));
		/* the thread may leave its access now */
		__atomic_store_n(&s->handled, WORD_SEQ(w), __ATOMIC_RELEASE);
		/* waiters of its user give up: that place may never free */
		wake_waiters();
	}
}

static void *watchdog_main(void *arg)
{
	/* abandoned within 1.25 x the timeout */
	uint64_t period = timeout_ns / 4;
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&guard_lock);
	while (!stopping) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)(period / 1000000000ULL);
		ts.tv_nsec += (long)(period % 1000000000ULL);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&guard_cond, &guard_lock, &ts);
		if (stopping)
			break;
		pthread_mutex_unlock(&guard_lock);
		watchdog_scan();
		pthread_mutex_lock(&guard_lock);
	}
	pthread_mutex_unlock(&guard_lock);
	return NULL;
}

/**
 * hfd_uaccess_guard_start() - start the watchdog
 * @timeout_ms: age at which an access is abandoned
 *	(HFD_UACCESS_MIN_TIMEOUT_MS..HFD_UACCESS_MAX_TIMEOUT_MS)
 * @abandon: answers a request with EFAULT (called on the watchdog thread
 *	with the token of hfd_uaccess_begin_request())
 *
 * Return: 0 or -errno.
 */
int hfd_uaccess_guard_start(uint32_t timeout_ms, void (*abandon)(void *token))
{
	pthread_condattr_t ca;
	int ret;

	if (timeout_ms < HFD_UACCESS_MIN_TIMEOUT_MS ||
	    timeout_ms > HFD_UACCESS_MAX_TIMEOUT_MS || !abandon)
		return -EINVAL;
	pthread_mutex_lock(&guard_lock);
	if (running) {
		pthread_mutex_unlock(&guard_lock);
		return -EBUSY;
	}
	timeout_ns = (uint64_t)timeout_ms * 1000000ULL;
	abandon_fn = abandon;
	stopping = false;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&guard_cond);
	pthread_cond_init(&guard_cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&watchdog, NULL, watchdog_main, NULL);
	running = !ret;
	pthread_mutex_unlock(&guard_lock);
	return ret;
}

/**
 * hfd_uaccess_guard_stop() - stop the watchdog (before the FUSE session
 * goes away: it answers requests)
 */
/**
 * hfd_uaccess_timeout_ms() - --uaccess-timeout-ms: a call still in
 * progress after this long is stuck in client memory
 */
uint64_t hfd_uaccess_timeout_ms(void)
{
	return timeout_ns / 1000000ULL;
}

void hfd_uaccess_guard_stop(void)
{
	pthread_mutex_lock(&guard_lock);
	if (!running) {
		pthread_mutex_unlock(&guard_lock);
		return;
	}
	stopping = true;
	pthread_cond_signal(&guard_cond);
	pthread_mutex_unlock(&guard_lock);
	pthread_join(watchdog, NULL);
	pthread_mutex_lock(&guard_lock);
	running = false;
	abandon_fn = NULL;
	pthread_mutex_unlock(&guard_lock);
}

/**
 * hfd_uaccess_guard_stats() - the watchdog's counters
 * @now: accesses abandoned whose thread is still stuck
 * @ever: accesses abandoned since the start
 * @refused: accesses refused at once because of a cap
 */
void hfd_uaccess_guard_stats(uint64_t *now, uint64_t *ever, uint64_t *refused)
{
	*now = __atomic_load_n(&stuck_now, __ATOMIC_ACQUIRE);
	*ever = __atomic_load_n(&stuck_ever, __ATOMIC_RELAXED);
	*refused = __atomic_load_n(&refused_ever, __ATOMIC_RELAXED);
}

/**
 * hfd_uaccess_guard_waits() - the accesses that waited for a place
 * @now: accesses waiting now
 * @ever: accesses that waited since the start (whether they went on or
 *	were refused)
 */
void hfd_uaccess_guard_waits(uint64_t *now, uint64_t *ever)
{
	*now = __atomic_load_n(&waiting_now, __ATOMIC_SEQ_CST);
	*ever = __atomic_load_n(&waited_ever, __ATOMIC_RELAXED);
}
