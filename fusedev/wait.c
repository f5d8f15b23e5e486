// SPDX-License-Identifier: MIT
/*
 * wait.c - HPU_IOCTL_WAIT_CS. A wait that cannot be answered at once
 * keeps its request and costs no thread: it is answered from the CS
 * completion that satisfies it, from the timer thread at its deadline,
 * or with EINTR when the caller is interrupted (a signal; a SIGKILLed
 * caller is only let go once answered).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpu_cs.h"

/**
 * struct hfd_waiter - a WAIT_CS request not answered yet
 * @id: unique number (the interrupt callback finds the waiter by it)
 * @ctx: context (a reference is held)
 * @n: sequence numbers awaited
 * @seqs: them
 * @any: MULTI_CS with ANY
 * @multi: MULTI_CS
 * @timer: its deadline
 * @defer: how to answer
 * @linked: on the lists (whoever unlinks it answers and frees it)
 * @next: next waiter of the daemon
 * @prev: previous waiter of the daemon
 * @cnext: next waiter of the context
 * @cprev: previous waiter of the context
 */
struct hfd_waiter {
	uint64_t id;
	struct hfd_ctx *ctx;
	unsigned int n;
	uint64_t seqs[HPU_WAIT_MULTI_CS_MAX];
	bool any;
	bool multi;
	struct hfd_timer timer;
	struct hfd_ioctl_defer defer;
	bool linked;
	struct hfd_waiter *next;
	struct hfd_waiter *prev;
	struct hfd_waiter *cnext;
	struct hfd_waiter *cprev;
};

/*
 * wait_lock protects the daemon's waiter list, every context's waiter
 * list (hfd_cs_state.waiters) and every waiter's links and @linked. It
 * is taken before a context's hfd_cs_state.lock, never after.
 */
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hfd_waiter *all_waiters;
static uint64_t next_waiter_id = 1;

/*
 * Evaluate a wait against the context's CSs (st->lock held).
 * Return: true when the wait is over; @out is its answer (BUSY if not).
 */
static bool eval_locked(struct hfd_cs_state *st, const uint64_t *seqs,
			unsigned int n, bool multi, bool any,
			struct hpu_wait_cs_out *out)
{
	uint32_t status, first_bad = HPU_WAIT_CS_STATUS_COMPLETED;
	unsigned int i, ended = 0;
	uint64_t ts;
	bool tsv;

	HPU_ASSERT_HELD(&st->lock);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (hfd_cs_lookup_locked(st, seqs[i], &status, &ts, &tsv))
			status = HPU_WAIT_CS_STATUS_ABORTED;
		if (status == HPU_WAIT_CS_STATUS_BUSY)
			continue;
		ended++;
		if (multi)
			out->cs_completion_map |= 1U << i;
		if (status != HPU_WAIT_CS_STATUS_COMPLETED &&
		    first_bad == HPU_WAIT_CS_STATUS_COMPLETED)
			first_bad = status;
		if (tsv && !(out->flags & HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD)) {
			out->timestamp_nsec = ts;
			out->flags |= HPU_WAIT_CS_OUT_FLAG_TIMESTAMP_VLD;
		}
	}
	if (ended == n || (any && ended)) {
		out->status = first_bad;
		return true;
	}
	out->status = HPU_WAIT_CS_STATUS_BUSY;
	return false;
}

static void unlink_locked(struct hfd_waiter *w)
{
	struct hfd_cs_state *st = w->ctx->cs;

	HPU_ASSERT_HELD(&wait_lock);

	if (w->prev)
		w->prev->next = w->next;
	else
		all_waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	if (w->cprev)
		w->cprev->cnext = w->cnext;
	else
		st->waiters = w->cnext;
	if (w->cnext)
		w->cnext->cprev = w->cprev;
	w->next = w->prev = w->cnext = w->cprev = NULL;
	w->linked = false;
}

/*
 * The error of a wait's answer @out: -EIO when a hard reset aborted what
 * it waits for (as habanalabs), whether the reset came while the wait
 * was blocked or between the call's start and its first look.
 */
static int reset_err(struct hfd_ctx *ctx, const struct hpu_wait_cs_out *out)
{
	return out->status != HPU_WAIT_CS_STATUS_COMPLETED &&
			       hfd_ctx_is_dead(ctx) ?
		       -EIO :
		       0;
}

/* The waiter is unlinked and owned by the caller: answer, free */
static void answer(struct hfd_waiter *w, int err,
		   const struct hpu_wait_cs_out *out, bool from_timer)
{
	union hpu_wait_cs_args args;

	if (!from_timer)
		hfd_timer_cancel_sync(&w->timer);
	memset(&args, 0, sizeof(args));
	if (out)
		args.out = *out;
	if (!err && out)
		err = reset_err(w->ctx, out);
	/* given back before the caller learns the wait is over */
	hfd_ctx_uncharge(w->ctx, HPU_CTX_LIMIT_WAITERS, 1);
	w->defer.reply(w->defer.token, err, &args, sizeof(args));
	hfd_ctx_put(w->ctx);
	free(w);
}

static void waiter_timeout_fn(struct hfd_timer *t)
{
	struct hfd_waiter *w = container_of(t, struct hfd_waiter, timer);
	struct hfd_cs_state *st = w->ctx->cs;
	struct hpu_wait_cs_out out;

	pthread_mutex_lock(&wait_lock);
	if (!w->linked) {
		/* claimed by a completion: it frees w after we return */
		pthread_mutex_unlock(&wait_lock);
		return;
	}
	unlink_locked(w);
	pthread_mutex_lock(&st->lock);
	eval_locked(st, w->seqs, w->n, w->multi, w->any, &out);
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_unlock(&wait_lock);
	answer(w, 0, &out, true);
}

/**
 * hfd_wait_cs_ended() - a CS of @ctx ended: answer the waits now over
 * @ctx: context
 */
void hfd_wait_cs_ended(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hfd_waiter *w, *nw, *done = NULL;
	struct hpu_wait_cs_out out;

	pthread_mutex_lock(&wait_lock);
	if (!st->waiters) {
		pthread_mutex_unlock(&wait_lock);
		return;
	}
	pthread_mutex_lock(&st->lock);
	for (w = st->waiters; w; w = nw) {
		nw = w->cnext;
		if (!eval_locked(st, w->seqs, w->n, w->multi, w->any, &out))
			continue;
		unlink_locked(w);
		w->next = done;
		done = w;
	}
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_unlock(&wait_lock);

	while ((w = done)) {
		done = w->next;
		/* the status cannot change once over: evaluate again */
		pthread_mutex_lock(&st->lock);
		eval_locked(st, w->seqs, w->n, w->multi, w->any, &out);
		pthread_mutex_unlock(&st->lock);
		answer(w, 0, &out, false);
	}
}

/**
 * hfd_wait_interrupt() - the caller of waiter @id was interrupted: answer
 * EINTR (libhpudrv restarts the wait)
 * @id: waiter id given to hfd_ioctl_defer.on_interrupt
 */
void hfd_wait_interrupt(uint64_t id)
{
	struct hfd_waiter *w;

	pthread_mutex_lock(&wait_lock);
	for (w = all_waiters; w; w = w->next)
		if (w->id == id)
			break;
	if (w)
		unlink_locked(w);
	pthread_mutex_unlock(&wait_lock);
	if (w)
		answer(w, -EINTR, NULL, false);
}

/**
 * hfd_wait_ctx_fini() - answer every wait of a context being torn down
 * (ABORTED for what did not end)
 * @ctx: context
 */
void hfd_wait_ctx_fini(struct hfd_ctx *ctx)
{
	struct hfd_cs_state *st = ctx->cs;
	struct hpu_wait_cs_out out;
	struct hfd_waiter *w;

	for (;;) {
		pthread_mutex_lock(&wait_lock);
		w = st->waiters;
		if (w)
			unlink_locked(w);
		pthread_mutex_unlock(&wait_lock);
		if (!w)
			break;
		pthread_mutex_lock(&st->lock);
		if (!eval_locked(st, w->seqs, w->n, w->multi, w->any, &out))
			out.status = HPU_WAIT_CS_STATUS_ABORTED;
		pthread_mutex_unlock(&st->lock);
		answer(w, 0, &out, false);
	}
}

static int load_seqs(const struct hfd_ioctl_call *call,
		     const struct hpu_wait_cs_in *in, struct hfd_waiter *w)
{
	unsigned int i;
	int ret;

	w->multi = in->flags & HPU_WAIT_CS_FLAGS_MULTI_CS;
	w->any = in->flags & HPU_WAIT_CS_FLAGS_ANY;
	if (!w->multi) {
		w->n = 1;
		w->seqs[0] = in->seq;
		return 0;
	}
	w->n = in->seq_arr_len;
	ret = hfd_copy_from_user(call->pid, w->seqs, in->seq,
				 w->n * sizeof(w->seqs[0]));
	if (ret)
		return ret;
	for (i = 0; i < w->n; i++)
		if (!w->seqs[i] || w->seqs[i] == ~0ULL)
			return -EINVAL;
	return 0;
}

/**
 * hfd_ioctl_wait_cs() - HPU_IOCTL_WAIT_CS handler
 * @call: context, requesting thread, and how to answer later
 * @data: union hpu_wait_cs_args, updated in place
 *
 * Return: 0 with the answer in @data; HFD_IOCTL_DEFERRED when the answer
 * will go through @call->defer; -EINVAL (bad arguments, a number never
 * issued), -EFAULT (bad array pointer), -EINTR (caller interrupted).
 */
int hfd_ioctl_wait_cs(const struct hfd_ioctl_call *call, void *data)
{
	union hpu_wait_cs_args *args = data;
	struct hpu_wait_cs_in in = args->in;
	struct hfd_ctx *ctx = call->ctx;
	struct hpu_wait_cs_out out;
	struct hfd_cs_state *st;
	struct hfd_waiter *w;
	uint64_t deadline;
	unsigned int i;
	bool over;
	int ret;

	if (hfd_check_flags(in.flags, HPU_WAIT_CS_FLAGS_MASK) ||
	    hfd_check_zero(&in.reserved, sizeof(in.reserved)))
		return -EINVAL;
	if (in.flags & HPU_WAIT_CS_FLAGS_MULTI_CS) {
		if (!in.seq || in.seq_arr_len < 1 ||
		    in.seq_arr_len > HPU_WAIT_MULTI_CS_MAX)
			return -EINVAL;
	} else if (in.seq_arr_len || (in.flags & HPU_WAIT_CS_FLAGS_ANY) ||
		   !in.seq || in.seq == ~0ULL) {
		return -EINVAL;
	}
	st = ctx->cs;
	if (!st || !hfd_device_has_cs(ctx->dev))
		return -EOPNOTSUPP;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = load_seqs(call, &in, w);
	if (ret)
		goto err_free;
	hfd_ctx_clear_cs_ended(ctx);

	pthread_mutex_lock(&wait_lock);
	w->id = next_waiter_id++;
	pthread_mutex_unlock(&wait_lock);
	/* before the waiter can be found: an interrupt now finds nothing */
	if (in.timeout_us && call->defer)
		call->defer->on_interrupt(call->defer->token, w->id);

	pthread_mutex_lock(&wait_lock);
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < w->n; i++) {
		uint32_t status;
		uint64_t ts;
		bool tsv;

		if (hfd_cs_lookup_locked(st, w->seqs[i], &status, &ts, &tsv))
			ret = -EINVAL;
	}
	over = !ret && eval_locked(st, w->seqs, w->n, w->multi, w->any, &out);
	pthread_mutex_unlock(&st->lock);
	if (ret || over || !in.timeout_us || !call->defer) {
		pthread_mutex_unlock(&wait_lock);
		goto out_answer;
	}
	if (call->defer->interrupted(call->defer->token)) {
		pthread_mutex_unlock(&wait_lock);
		ret = -EINTR;
		goto err_free;
	}
	/* a blocked wait holds memory and a timer: bounded per context */
	ret = hfd_ctx_charge(ctx, HPU_CTX_LIMIT_WAITERS, 1);
	if (ret) {
		pthread_mutex_unlock(&wait_lock);
		goto err_free;
	}
	hfd_ctx_get(ctx);
	w->ctx = ctx;
	w->defer = *call->defer;
	w->timer.fn = waiter_timeout_fn;
	w->linked = true;
	w->next = all_waiters;
	if (all_waiters)
		all_waiters->prev = w;
	all_waiters = w;
	w->cnext = st->waiters;
	if (st->waiters)
		st->waiters->cprev = w;
	st->waiters = w;
	deadline = in.timeout_us > (UINT64_MAX - hfd_now_ns()) / 1000 ?
			   UINT64_MAX - 1 :
			   hfd_now_ns() + in.timeout_us * 1000;
	hfd_timer_arm(&w->timer, deadline);
	pthread_mutex_unlock(&wait_lock);
	return HFD_IOCTL_DEFERRED;

out_answer:
	if (!ret)
		ret = reset_err(ctx, &out);
	if (!ret) {
		memset(args, 0, sizeof(*args));
		args->out = out;
	}
err_free:
	free(w);
	return ret;
}
