// SPDX-License-Identifier: MIT
/*
 * ring_consumer.c - the consumer side of a context's user-mode rings
 * (docs/rings.md): the thread that takes SQ entries and feeds them into
 * hfd_cs_submit(), the doorbell and completion futexes, the records and
 * the completed-sequence word a CS's ending posts, the ring breaking
 * (a corrupted ring, an abandoned copy), and ioctl CSs ordered after
 * the ring's entries. Registration and teardown are ring.c's; the lock
 * and client-memory rules are in ring.c's file comment.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring_internal.h"

static long futex(uint32_t *word, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* Wake the consumer: change the doorbell word, then wake its sleeper */
void hfd_ring_kick(struct hfd_ring *r)
{
	__atomic_add_fetch(&r->hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
	futex(&r->hdr->sq_doorbell, FUTEX_WAKE, 1, NULL);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* st->lock held: the ring breaks (once) */
/*
 * Move cq_event and wake its sleepers: after a record, a completed_seq
 * move or a break (CS state's lock held, so the increments are ordered)
 */
static void cq_event_locked(struct hfd_ring *r)
{
	struct hpu_ring_hdr *h = r->hdr;

	__atomic_add_fetch(&h->cq_event, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&h->cq_waiters, __ATOMIC_SEQ_CST))
		futex(&h->cq_event, FUTEX_WAKE, INT_MAX, NULL);
}

static void break_locked(struct hfd_ring *r)
{
	HPU_ASSERT_HELD(&r->ctx->cs->lock);
	if (r->broken)
		return;
	__atomic_store_n(&r->broken, true, __ATOMIC_RELEASE);
	__atomic_store_n(&r->hdr->error, (uint32_t)EIO, __ATOMIC_RELEASE);
	cq_event_locked(r);
}

/**
 * hfd_ring_raise_error() - queue HPU_EVENT_RING_ERR once for a broken ring
 * @ctx: context (no driver lock held)
 */
void hfd_ring_raise_error(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;
	bool raise = false;
	uint32_t head = 0;

	pthread_mutex_lock(&st->lock);
	r = st->ring;
	if (r && r->broken && !r->error_raised) {
		r->error_raised = true;
		raise = true;
		head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&st->lock);
	if (!raise)
		return;
	hfd_log_ratelimited(HFD_LOG_DEBUG, "hpu%u: pid %d: ring broken at %u",
			    ctx->dev->index, (int)ctx->pid, head);
	hfd_ctx_queue_event(ctx, HPU_EVENT_RING_ERR, ~0U, 0, head, EIO);
}

/**
 * hfd_ring_reset_ctx() - a hard reset killed the context: its ring takes
 * nothing more (error = EIO; the reset's HPU_EVENT_DEVICE_RESET is the
 * news, so no RING_ERR), and its consumer is woken to see that; CSs in
 * flight still end and post their records
 * @ctx: context killed with hfd_ctx_kill()
 */
void hfd_ring_reset_ctx(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;

	if (!st)
		return;
	pthread_mutex_lock(&st->lock);
	r = st->ring;
	if (r) {
		r->error_raised = true;
		break_locked(r);
		hfd_ring_kick(r);
	}
	pthread_mutex_unlock(&st->lock);
}

/*
 * The uaccess watchdog abandoned a CB copy of a take of @arg (a ring):
 * the ring breaks, the entry being taken gets neither number nor record,
 * and nobody waits for the stuck thread any more. Runs on the watchdog's
 * thread while the stuck thread holds its reference and consume_lock,
 * never st->lock.
 */
static void ring_abandoned(void *arg)
{
	struct hfd_ring *r = arg;
	struct hfd_cs_state *st = r->ctx->cs;

	hfd_log_ratelimited(
		HFD_LOG_WARN,
		"hpu%u: pid %d: a CB copy of a ring entry is stuck in client memory: ring broken",
		r->ctx->dev->index, (int)r->ctx->pid);
	__atomic_store_n(&r->stuck, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&st->lock);
	break_locked(r);
	pthread_mutex_unlock(&st->lock);
	hfd_ring_raise_error(r->ctx);
	/* the consumer's sleep, a waiter for the lock: they see it now */
	hfd_ring_kick(r);
}

/*
 * Take consume_lock, waiting at most @wait_ns; give up earlier when the
 * ring is broken (@give_up_broken) or a take is stuck (always). The
 * holder keeps it for one entry (microseconds) unless its copy is slow:
 * the waiter polls (RING_LOCK_POLL_NS) and watches the ring's state
 * meanwhile. Return: 0 held; -EIO broken or stuck; -EAGAIN timed out.
 */
int hfd_ring_lock_consume(struct hfd_ring *r, uint64_t wait_ns,
			  bool give_up_broken)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = RING_LOCK_POLL_NS };
	uint64_t end = now_ns() + wait_ns;

	for (;;) {
		if (!pthread_mutex_trylock(&r->consume_lock))
			return 0;
		if (__atomic_load_n(&r->stuck, __ATOMIC_ACQUIRE) ||
		    (give_up_broken &&
		     __atomic_load_n(&r->broken, __ATOMIC_ACQUIRE)))
			return -EIO;
		if (now_ns() >= end)
			return -EAGAIN;
		nanosleep(&ts, NULL);
	}
}

/**
 * hfd_ring_cs_ended_locked() - a CS of a context with rings ended: post
 * its record (ring CSs) and move completed_seq
 * @ctx: context (its CS state's lock held)
 * @cs: the CS
 * @status: its HPU_WAIT_CS_STATUS_*
 * @low_water: every CS of the context numbered up to this has ended
 *
 * Return: the ring broke here (the client's CQ head was out of range):
 * the caller raises the event once its lock is dropped.
 */
bool hfd_ring_cs_ended_locked(struct hfd_ctx *ctx, const struct hfd_cs *cs,
			      uint32_t status, uint64_t low_water)
{
	struct hfd_ring *r = ctx->cs->ring;
	struct hpu_ring_hdr *h = r->hdr;
	struct hpu_ring_cqe rec;
	bool posted = false;
	bool broke = false;
	uint32_t head;
	int ret;

	HPU_ASSERT_HELD(&ctx->cs->lock);
	if (cs->ring && cs->ring_gen == r->gen) {
		if (r->cq_pending)
			r->cq_pending--;
		memset(&rec, 0, sizeof(rec));
		rec.user_data = cs->user_data;
		rec.seq = cs->seq;
		rec.timestamp_ns = cs->done_ns;
		rec.res = cs->ring_res;
		rec.status = (uint16_t)status;
		rec.flags = HPU_RING_CQE_F_TIMESTAMP;
		head = __atomic_load_n(&h->cq_head, __ATOMIC_ACQUIRE);
		ret = hfd_ring_cq_post(&r->cq, &r->cq_tail, head, &rec);
		if (ret) {
			/* reserved, so only a lying client gets here */
			break_locked(r);
			broke = true;
		}
		__atomic_store_n(&h->cq_tail, r->cq_tail, __ATOMIC_RELEASE);
		posted = true;
	}
	if (low_water > r->completed) {
		r->completed = low_water;
		__atomic_store_n(&h->completed_seq, low_water,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&h->cq_futex, (uint32_t)low_water,
				 __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&h->cq_waiters, __ATOMIC_SEQ_CST))
			futex(&h->cq_futex, FUTEX_WAKE, INT_MAX, NULL);
		posted = true;
	}
	if (posted)
		cq_event_locked(r);
	if (r->bp) {
		r->bp = false;
		hfd_ring_kick(r);
	}
	return broke;
}

/**
 * hfd_ring_kick_locked() - a CS of the context ended and made room under
 * the cs_in_flight limit: the consumer retries the entry it left waiting
 * @st: CS state of a context with a ring (its lock held)
 */
void hfd_ring_kick_locked(struct hfd_cs_state *st)
{
	struct hfd_ring *r = st->ring;

	HPU_ASSERT_HELD(&st->lock);
	r->bp = false;
	hfd_ring_kick(r);
}

/* An entry refused for its contents counts as a CS_COUNTERS parsing drop */
static void count_parsing_drop(struct hfd_ctx *ctx)
{
	__atomic_add_fetch(&ctx->dev->cs_stats.parsing, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&ctx->cs_stats.parsing, 1, __ATOMIC_RELAXED);
}

/*
 * Take a sequence number (into @seq) for a refused entry: it ends ABORTED
 * with @res
 */
static int refuse(struct hfd_ring *r, uint64_t user_data, int res,
		  uint64_t *seq)
{
	struct hfd_cs_desc d = { .ring = true,
				 .ring_gen = r->gen,
				 .user_data = user_data,
				 .refuse = res };
	bool done;
	int ret;

	ret = hfd_cs_submit(r->ctx, 0, &d, seq, &done);
	return *seq ? 0 : ret;
}

static void unreserve(struct hfd_ring *r)
{
	struct hfd_cs_state *st = r->ctx->cs;

	pthread_mutex_lock(&st->lock);
	if (r->cq_pending)
		r->cq_pending--;
	pthread_mutex_unlock(&st->lock);
}

/* The entry numbered @seq was taken: @used slots are free again */
static void advance(struct hfd_ring *r, uint32_t used, uint64_t seq)
{
	__atomic_store_n(&r->hdr->sq_seq, seq, __ATOMIC_RELAXED);
	__atomic_store_n(&r->head, r->head + used, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hdr->sq_head, r->head, __ATOMIC_RELEASE);
}

/* take_one() without the hook */
static int take_one_hooked(struct hfd_ring *r)
{
	struct hfd_ctx *ctx = r->ctx;
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_cs_desc d = { .ring = true, .ring_gen = r->gen };
	struct hfd_ring_entry e;
	uint32_t tail, used;
	bool completed;
	uint64_t seq;
	int room, ret;

	HPU_ASSERT_HELD(&r->consume_lock);
	if (__atomic_load_n(&r->broken, __ATOMIC_ACQUIRE))
		return -EIO;
	if (!hfd_device_present(ctx->dev)) {
		/* hot-removed: no more work, as for the ioctls (-ENODEV) */
		pthread_mutex_lock(&st->lock);
		if (!r->broken) {
			__atomic_store_n(&r->broken, true, __ATOMIC_RELEASE);
			__atomic_store_n(&r->hdr->error, (uint32_t)ENODEV,
					 __ATOMIC_RELEASE);
			cq_event_locked(r);
		}
		pthread_mutex_unlock(&st->lock);
		return -EIO;
	}
	if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		return 0;
	tail = __atomic_load_n(&r->hdr->sq_tail, __ATOMIC_ACQUIRE);
	if (tail == r->head)
		return 0;

	/* a record for the entry's ending is reserved before it is taken */
	pthread_mutex_lock(&st->lock);
	room = hfd_ring_cq_room(r->cq.nentries, r->cq_tail,
				__atomic_load_n(&r->hdr->cq_head,
						__ATOMIC_ACQUIRE));
	if (room < 0) {
		break_locked(r);
		pthread_mutex_unlock(&st->lock);
		hfd_ring_raise_error(ctx);
		return -EIO;
	}
	if ((uint32_t)room <= r->cq_pending) {
		r->bp = true;
		pthread_mutex_unlock(&st->lock);
		return -EAGAIN;
	}
	r->cq_pending++;
	pthread_mutex_unlock(&st->lock);

	ret = hfd_ring_consume(&r->sq, r->head, tail,
			       ctx->dev->profile->num_queues, &r->scratch, &e,
			       &used);
	if (ret == -EIO) {
		/* the entry at head gets an -EIO record, then nothing more */
		if (refuse(r, e.has_sqe ? e.sqe.user_data : 0, -EIO, &seq))
			unreserve(r);
		pthread_mutex_lock(&st->lock);
		break_locked(r);
		pthread_mutex_unlock(&st->lock);
		hfd_ring_raise_error(ctx);
		return -EIO;
	}
	if (ret == -EINVAL) {
		count_parsing_drop(ctx);
		ret = refuse(r, e.sqe.user_data, -EINVAL, &seq);
		/* arena bytes the client's producer would never name */
		if (!ret && e.arena_err)
			hfd_ctx_queue_event(ctx, HPU_EVENT_RING_ERR, ~0U, seq,
					    r->head, EINVAL);
		goto refused;
	}
	if (ret) {
		unreserve(r);
		return 0;
	}
	d.chunks = e.chunks;
	d.n = e.sqe.num_chunks;
	d.cs_flags = e.sqe.cs_flags;
	d.timeout_ms = e.sqe.timeout_ms;
	d.wait_seqs = e.wait_seqs;
	d.cb_bytes = e.cb_bytes;
	d.user_data = e.sqe.user_data;
	ret = hfd_cs_submit(ctx, 0, &d, &seq, &completed);
	if (__atomic_load_n(&r->stuck, __ATOMIC_ACQUIRE) && !seq) {
		/* abandoned: the ring broke there (ring_abandoned()) */
		unreserve(r);
		return -EIO;
	}
	if (!ret || seq) {
		advance(r, used, seq);
		return 1;
	}
	if (ret == -ENOSPC) {
		/*
		 * No internal SOB for a WAIT chunk: only an ending frees one,
		 * and the producer waits for the take. Refused at once with
		 * the ioctl's answer (-EAGAIN), its number used.
		 */
		ret = refuse(r, e.sqe.user_data, -EAGAIN, &seq);
		goto refused;
	}
	if (ret == -EAGAIN || ret == -ENODEV) {
		unreserve(r);
		if (ret == -EAGAIN) {
			pthread_mutex_lock(&st->lock);
			r->bp = true;
			pthread_mutex_unlock(&st->lock);
		}
		return ret == -EAGAIN ? -EAGAIN : -EIO;
	}
	/* CB copies and packet checks count as the ioctl's do (cs.c) */
	ret = refuse(r, e.sqe.user_data, ret, &seq);
refused:
	if (ret) {
		/* no number for it now (cs_in_flight): the entry stays */
		unreserve(r);
		if (ret == -EAGAIN) {
			pthread_mutex_lock(&st->lock);
			r->bp = true;
			pthread_mutex_unlock(&st->lock);
		}
		return ret == -EAGAIN ? -EAGAIN : -EIO;
	}
	advance(r, used, seq);
	return 1;
}

/*
 * Take at most one entry (consume_lock held). Return: 1 one was taken;
 * 0 the ring is empty (or stopping); -EAGAIN back-pressure (no CQ room,
 * the cs_in_flight limit, no internal SOB): the entry stays; -EIO the
 * ring is broken (or the context torn down). A CB copy the uaccess
 * watchdog abandons breaks the ring, whatever thread takes.
 */
static int take_one(struct hfd_ring *r)
{
	int ret;

	hfd_uaccess_set_hook(ring_abandoned, r);
	ret = take_one_hooked(r);
	hfd_uaccess_set_hook(NULL, NULL);
	return ret;
}

/*
 * Store 1 + this thread's CPU in the header's consumer_cpu when it
 * changed; return it (0: unknown)
 */
static uint32_t note_cpu(struct hfd_ring *r)
{
	int cpu = sched_getcpu();
	uint32_t c = cpu < 0 ? 0 : (uint32_t)cpu + 1;

	if (c != r->cpu) {
		r->cpu = c;
		__atomic_store_n(&r->hdr->consumer_cpu, c, __ATOMIC_RELAXED);
	}
	return c;
}

/*
 * The producer last published from this CPU: while this thread spins
 * there, it cannot run (a hint: the client writes it)
 */
static bool producer_here(const struct hfd_ring *r, uint32_t cpu)
{
	return cpu &&
	       __atomic_load_n(&r->hdr->producer_cpu, __ATOMIC_RELAXED) == cpu;
}

/* Look for a new entry (or a stop) */
static bool sq_moved(struct hfd_ring *r)
{
	return __atomic_load_n(&r->hdr->sq_tail, __ATOMIC_ACQUIRE) !=
		       __atomic_load_n(&r->head, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
}

/*
 * Poll briefly for a new entry, for r->spin_ns (adapted: RING_SPIN_NS's
 * comment): true when one came
 */
static bool spin(struct hfd_ring *r)
{
	uint64_t budget = r->spin_ns, start = now_ns();
	uint64_t pure_end =
		start +
		(budget < RING_PURE_SPIN_NS ? budget : RING_PURE_SPIN_NS);
	uint64_t end = start + budget;
	uint64_t t;
	unsigned int i;
	uint32_t cpu;

	for (;;) {
		cpu = note_cpu(r);
		for (i = 0; i < 64; i++) {
			if (sq_moved(r)) {
				r->spin_ns = budget * 2 < RING_SPIN_NS ?
						     budget * 2 :
						     RING_SPIN_NS;
				return true;
			}
			cpu_relax();
		}
		t = now_ns();
		/*
		 * a yield once the budget is spent only costs a system call
		 * (and with other threads runnable, a switch) before the sleep
		 */
		if (t >= end)
			break;
		/*
		 * past the first looks the producer may share the CPU; from
		 * the first when it published from this one last
		 */
		if (t >= pure_end || producer_here(r, cpu))
			sched_yield();
	}
	r->spin_ns = budget / 2 > RING_SPIN_MIN_NS ? budget / 2 :
						     RING_SPIN_MIN_NS;
	return false;
}

/*
 * One take on the consumer thread, as a call on the context: a release()
 * meanwhile is left to its end (which may then tear the context down
 * here). Return: as take_one(); -ESHUTDOWN release() came.
 */
static int consumer_take(struct hfd_ring *r, pid_t self)
{
	struct hfd_ctx *ctx = r->ctx;
	int ret;

	if (!hfd_ctx_call_try_begin(ctx))
		return -ESHUTDOWN;
	hfd_uaccess_begin_task(self, ctx->pid, ctx->uid);
	ret = hfd_ring_lock_consume(r, RING_SLEEP_NS, true);
	if (!ret) {
		ret = take_one(r);
		pthread_mutex_unlock(&r->consume_lock);
	}
	hfd_uaccess_end_request();
	hfd_ctx_call_end(ctx);
	return ret;
}

void *hfd_ring_consumer(void *arg)
{
	struct hfd_ring *r = arg;
	struct hpu_ring_hdr *h = r->hdr;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = RING_SLEEP_NS };
	pid_t self = (pid_t)syscall(SYS_gettid);
	uint32_t d;
	int ret;

	r->spin_ns = RING_SPIN_NS;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		d = __atomic_load_n(&h->sq_doorbell, __ATOMIC_SEQ_CST);
		note_cpu(r);
		ret = consumer_take(r, self);
		if (ret == -ESHUTDOWN)
			break;
		if (ret == 1 || (!ret && spin(r)))
			continue;
		/* sleep; the producer rings when it sees the flag */
		__atomic_store_n(&h->sq_need_wakeup, HPU_RING_NEED_WAKEUP,
				 __ATOMIC_SEQ_CST);
		if (ret || __atomic_load_n(&h->sq_tail, __ATOMIC_SEQ_CST) ==
				   __atomic_load_n(&r->head, __ATOMIC_RELAXED))
			futex(&h->sq_doorbell, FUTEX_WAIT, d, &ts);
		__atomic_store_n(&h->sq_need_wakeup, 0, __ATOMIC_RELAXED);
	}
	hfd_ring_put(r);
	return NULL;
}

/**
 * hfd_ring_submit_ordered() - submit an ioctl CS after every ring entry
 * published before it
 * @ctx: context
 * @requester: the ioctl's thread
 * @d: the CS (as hfd_cs_submit())
 * @seq: receives its sequence number
 * @completed: receives whether it ended before this returned
 *
 * Return: as hfd_cs_submit(); -EAGAIN also when the ring's entries
 * cannot all be taken now (back-pressure: the CS would overtake them),
 * or the consumer did not let go of the ring within RING_DRAIN_WAIT_S.
 */
int hfd_ring_submit_ordered(struct hfd_ctx *ctx, pid_t requester,
			    const struct hfd_cs_desc *d, uint64_t *seq,
			    bool *completed)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_ring *r;
	int ret;

	pthread_mutex_lock(&st->lock);
	r = st->ring;
	if (r)
		__atomic_add_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&st->lock);
	if (!r)
		return hfd_cs_submit(ctx, requester, d, seq, completed);

	/*
	 * The consumer holds the lock while it copies an entry's CBs (at
	 * most the uaccess timeout, then the ring breaks): a worker waits
	 * for it a bounded time only. A broken ring takes nothing more, so
	 * nothing is to be drained: the CS goes on by itself.
	 */
	ret = hfd_ring_lock_consume(r, RING_DRAIN_WAIT_NS, true);
	if (ret) {
		hfd_ring_put(r);
		if (ret == -EIO)
			return hfd_cs_submit(ctx, requester, d, seq, completed);
		*seq = 0;
		*completed = false;
		return -EAGAIN;
	}
	while ((ret = take_one(r)) == 1)
		;
	if (ret == -EAGAIN) {
		*seq = 0;
		*completed = false;
	} else {
		ret = hfd_cs_submit(ctx, requester, d, seq, completed);
	}
	pthread_mutex_unlock(&r->consume_lock);
	hfd_ring_put(r);
	return ret;
}
