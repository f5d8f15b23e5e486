// SPDX-License-Identifier: MIT
/*
 * data_loader.c - the DataLoader (see ht_loader.h for the sharding rule)
 *
 * A ring of prefetch + 1 buffer slots. The producer (the prefetch thread,
 * or the caller's thread when prefetch is 0) fills a free slot with the
 * batch at its position and queues it; the consumer takes queued slots in
 * order. Positions only move under the lock, and a seek bumps a
 * generation number so that a batch being filled across it is dropped.
 *
 * A sample is a data set row (x, y) or a text window (ids, targets); only
 * gather() and the buffer sizes tell them apart.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ht_error.h"
#include "ht_loader.h"
#include "ht_rng.h"

enum slot_state {
	SLOT_FREE = 0,
	SLOT_FILLING,
	SLOT_READY,
	SLOT_HELD,
};

struct slot {
	struct ht_batch b;
	enum slot_state state;
};

struct ht_loader {
	const struct ht_dataset *ds;
	struct ht_text_windows tw; /* a text loader when tw.text is set */
	uint32_t n;		   /* samples: rows or windows */
	struct ht_loader_opts o;
	uint64_t steps;
	size_t x_bytes;
	size_t y_bytes;
	uint32_t nslots;
	struct slot *slots;
	bool threaded;
	pthread_t thread;

	/*
	 * lock protects: slot states, the ready FIFO, stop, gen, the
	 * producer and consumer positions. cond signals any change of them.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t *fifo;
	uint32_t fifo_head;
	uint32_t fifo_count;
	bool stop;
	uint64_t gen;
	uint64_t p_epoch;
	uint64_t p_step;
	uint64_t c_epoch;
	uint64_t c_step;

	/* The producer's alone: the permutation of perm_epoch */
	uint32_t *perm;
	uint64_t perm_epoch;
	bool perm_valid;
};

static void *default_alloc(size_t size, void *arg)
{
	return malloc(size);
}

static void default_free(void *ptr, size_t size, void *arg)
{
	free(ptr);
}

/* The permutation of @epoch: Fisher-Yates from the last element down */
static void make_perm(struct ht_loader *l, uint64_t epoch)
{
	struct ht_rng rng;
	uint32_t i, n = l->n;

	for (i = 0; i < n; i++)
		l->perm[i] = i;
	ht_rng_seed(&rng, l->o.seed, epoch);
	ht_rng_shuffle(&rng, l->perm, n);
	l->perm_epoch = epoch;
	l->perm_valid = true;
}

/* Copy sample @s into row @i of @b */
static void gather(const struct ht_loader *l, struct ht_batch *b, uint32_t i,
		   uint32_t s)
{
	const struct ht_dataset *ds = l->ds;
	size_t t = l->tw.context;

	if (l->tw.text) {
		const uint8_t *w = l->tw.text->data + (size_t)s * l->tw.stride;

		ht_tok_encode(w, t, b->ids + i * t);
		ht_tok_encode(w + 1, t, b->targets + i * t);
		return;
	}
	b->y[i] = ds->y[s];
	memcpy(b->x + (size_t)i * ds->f, ds->x + (size_t)s * ds->f,
	       ds->f * sizeof(float));
}

/* Fill @b with this rank's part of global batch @step of @epoch */
static void fill(struct ht_loader *l, struct ht_batch *b, uint64_t epoch,
		 uint64_t step)
{
	uint64_t bs = l->o.batch_size, n = l->n;
	uint64_t g = bs * l->o.world_size;
	uint64_t start = step * g;
	uint64_t lo = start + l->o.rank * bs, hi = lo + bs;
	uint32_t i;

	if (l->o.shuffle && (!l->perm_valid || l->perm_epoch != epoch))
		make_perm(l, epoch);
	if (lo > n)
		lo = n;
	if (hi > n)
		hi = n;
	b->epoch = epoch;
	b->step = step;
	b->n = (uint32_t)(hi - lo);
	b->global_n = (uint32_t)(n - start < g ? n - start : g);
	for (i = 0; i < b->n; i++) {
		uint32_t s = l->o.shuffle ? l->perm[lo + i] :
					    (uint32_t)(lo + i);

		b->idx[i] = s;
		gather(l, b, i, s);
	}
}

static struct slot *find_free(struct ht_loader *l)
{
	uint32_t i;

	for (i = 0; i < l->nslots; i++)
		if (l->slots[i].state == SLOT_FREE)
			return &l->slots[i];
	return NULL;
}

static void *producer(void *arg)
{
	struct ht_loader *l = arg;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		uint64_t gen, epoch, step;
		struct slot *s;

		if (l->p_step >= l->steps) {
			l->p_epoch++;
			l->p_step = 0;
			continue;
		}
		s = find_free(l);
		if (!s) {
			pthread_cond_wait(&l->cond, &l->lock);
			continue;
		}
		s->state = SLOT_FILLING;
		gen = l->gen;
		epoch = l->p_epoch;
		step = l->p_step;
		pthread_mutex_unlock(&l->lock);

		fill(l, &s->b, epoch, step);

		pthread_mutex_lock(&l->lock);
		if (gen == l->gen && !l->stop) {
			uint32_t tail =
				(l->fifo_head + l->fifo_count) % l->nslots;

			s->state = SLOT_READY;
			l->fifo[tail] = (uint32_t)(s - l->slots);
			l->fifo_count++;
			l->p_step++;
		} else {
			s->state = SLOT_FREE;
		}
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* The options of every loader over @n samples */
static int check_opts(uint32_t n, const struct ht_loader_opts *o, char *err,
		      size_t errlen)
{
	uint64_t g = (uint64_t)o->batch_size * o->world_size;

	if (!o->batch_size || o->batch_size > HT_DATA_MAX_SAMPLES) {
		ht_seterr(err, errlen, "loader: batch size %u (1..%u)",
			  o->batch_size, HT_DATA_MAX_SAMPLES);
		return -EINVAL;
	}
	if (!o->world_size || o->rank >= o->world_size) {
		ht_seterr(
			err, errlen,
			"loader: rank %u of world size %u (rank < world size, world size >= 1)",
			o->rank, o->world_size);
		return -EINVAL;
	}
	if (o->drop_last && g > n) {
		ht_seterr(
			err, errlen,
			"loader: drop_last with %u samples and a global batch of %llu (%u ranks x %u) leaves no batch",
			n, (unsigned long long)g, o->world_size, o->batch_size);
		return -EINVAL;
	}
	if (o->prefetch > HT_LOADER_MAX_PREFETCH) {
		ht_seterr(err, errlen, "loader: prefetch %u (at most %u)",
			  o->prefetch, HT_LOADER_MAX_PREFETCH);
		return -EINVAL;
	}
	if (!o->alloc != !o->free) {
		ht_seterr(err, errlen,
			  "loader: a buffer allocator needs its free function");
		return -EINVAL;
	}
	return 0;
}

/*
 * The two sample buffers of a slot, of x_bytes and y_bytes: x and y of a
 * data set loader, ids and targets of a text loader
 */
static int alloc_bufs(struct ht_loader *l, struct ht_batch *b)
{
	void *p0 = l->o.alloc(l->x_bytes, l->o.alloc_arg);
	void *p1 = l->o.alloc(l->y_bytes, l->o.alloc_arg);

	if (l->tw.text) {
		b->ids = p0;
		b->targets = p1;
	} else {
		b->x = p0;
		b->y = p1;
	}
	return p0 && p1 ? 0 : -ENOMEM;
}

static void free_bufs(struct ht_loader *l, struct ht_batch *b)
{
	void *p0 = l->tw.text ? (void *)b->ids : (void *)b->x;
	void *p1 = l->tw.text ? (void *)b->targets : (void *)b->y;

	if (p0)
		l->o.free(p0, l->x_bytes, l->o.alloc_arg);
	if (p1)
		l->o.free(p1, l->y_bytes, l->o.alloc_arg);
}

static void free_slots(struct ht_loader *l)
{
	uint32_t i;

	if (!l->slots)
		return;
	for (i = 0; i < l->nslots; i++) {
		struct ht_batch *b = &l->slots[i].b;

		free_bufs(l, b);
		free(b->idx);
	}
	free(l->slots);
}

static int alloc_slots(struct ht_loader *l)
{
	uint32_t i;
	int ret;

	l->slots = calloc(l->nslots, sizeof(*l->slots));
	if (!l->slots)
		return -ENOMEM;
	for (i = 0; i < l->nslots; i++) {
		struct ht_batch *b = &l->slots[i].b;

		ret = alloc_bufs(l, b);
		b->idx = malloc(l->o.batch_size * sizeof(uint32_t));
		if (ret || !b->idx)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A loader over @n samples of @ds or @tw (the other NULL), whose two
 * buffers per slot hold @x_row and @y_row bytes per sample
 */
static int create(const struct ht_dataset *ds, const struct ht_text_windows *tw,
		  uint32_t n, size_t x_row, size_t y_row,
		  const struct ht_loader_opts *opts, struct ht_loader **out,
		  char *err, size_t errlen)
{
	struct ht_loader *l;
	uint64_t g;
	int ret;

	*out = NULL;
	ret = check_opts(n, opts, err, errlen);
	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		goto err_nomem;
	l->ds = ds;
	if (tw)
		l->tw = *tw;
	l->n = n;
	l->o = *opts;
	if (!l->o.alloc) {
		l->o.alloc = default_alloc;
		l->o.free = default_free;
	}
	g = (uint64_t)opts->batch_size * opts->world_size;
	l->steps = opts->drop_last ? n / g : (n + g - 1) / g;
	l->x_bytes = (size_t)opts->batch_size * x_row;
	l->y_bytes = (size_t)opts->batch_size * y_row;
	l->nslots = opts->prefetch + 1;
	l->threaded = opts->prefetch > 0;
	l->fifo = calloc(l->nslots, sizeof(*l->fifo));
	if (opts->shuffle)
		l->perm = malloc((size_t)n * sizeof(uint32_t));
	if (!l->fifo || (opts->shuffle && !l->perm))
		goto err_free_loader;
	if (alloc_slots(l))
		goto err_free_slots;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	if (l->threaded) {
		ret = -pthread_create(&l->thread, NULL, producer, l);
		if (ret) {
			ht_seterr(
				err, errlen,
				"loader: cannot start the prefetch thread: %s",
				strerror(-ret));
			goto err_destroy_lock;
		}
	}
	*out = l;
	return 0;

err_destroy_lock:
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free_slots(l);
	free(l->perm);
	free(l->fifo);
	free(l);
	return ret;
err_free_slots:
	free_slots(l);
err_free_loader:
	free(l->perm);
	free(l->fifo);
	free(l);
err_nomem:
	ht_seterr(err, errlen, "loader: out of memory for %u buffers",
		  opts->prefetch + 1);
	return -ENOMEM;
}

int ht_loader_create(const struct ht_dataset *ds,
		     const struct ht_loader_opts *opts, struct ht_loader **out,
		     char *err, size_t errlen)
{
	*out = NULL;
	if (!ds->n || !ds->f || !ds->x || !ds->y) {
		ht_seterr(err, errlen, "loader: empty data set");
		return -EINVAL;
	}
	return create(ds, NULL, ds->n, ds->f * sizeof(float), sizeof(int32_t),
		      opts, out, err, errlen);
}

uint32_t ht_text_window_count(const struct ht_text_windows *w)
{
	uint32_t stride = w->stride ? w->stride : w->context;

	if (!w->text || !w->context || stride > w->context ||
	    w->text->len <= w->context)
		return 0;
	return (w->text->len - 1 - w->context) / stride + 1;
}

int ht_loader_create_text(const struct ht_text_windows *w,
			  const struct ht_loader_opts *opts,
			  struct ht_loader **out, char *err, size_t errlen)
{
	struct ht_text_windows tw = *w;
	size_t row = (size_t)w->context * sizeof(int32_t);

	*out = NULL;
	if (!tw.stride)
		tw.stride = tw.context;
	if (!tw.text || !tw.text->data || !tw.context ||
	    tw.stride > tw.context) {
		ht_seterr(
			err, errlen,
			"loader: context %u, stride %u (1 <= stride <= context)",
			tw.context, tw.stride);
		return -EINVAL;
	}
	if (tw.text->len <= tw.context) {
		ht_seterr(
			err, errlen,
			"loader: a text of %u bytes holds no window of %u + 1 tokens",
			tw.text->len, tw.context);
		return -EINVAL;
	}
	return create(NULL, &tw, ht_text_window_count(&tw), row, row, opts, out,
		      err, errlen);
}

void ht_loader_destroy(struct ht_loader *l)
{
	if (!l)
		return;
	if (l->threaded) {
		pthread_mutex_lock(&l->lock);
		l->stop = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->thread, NULL);
	}
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free_slots(l);
	free(l->perm);
	free(l->fifo);
	free(l);
}

uint64_t ht_loader_steps_per_epoch(const struct ht_loader *l)
{
	return l->steps;
}

static uint32_t count_held(const struct ht_loader *l)
{
	uint32_t i, n = 0;

	for (i = 0; i < l->nslots; i++)
		n += l->slots[i].state == SLOT_HELD;
	return n;
}

/*
 * Synchronous mode: the caller's thread is the producer. Called with the
 * lock held; returns with it released.
 */
static int next_sync(struct ht_loader *l, struct ht_batch **batch)
{
	struct slot *s = find_free(l);
	uint64_t epoch = l->c_epoch, step = l->c_step;

	if (!s) {
		pthread_mutex_unlock(&l->lock);
		return -EBUSY;
	}
	s->state = SLOT_HELD;
	l->c_step++;
	pthread_mutex_unlock(&l->lock);
	fill(l, &s->b, epoch, step);
	*batch = &s->b;
	return 0;
}

int ht_loader_next(struct ht_loader *l, struct ht_batch **batch)
{
	struct slot *s;

	*batch = NULL;
	pthread_mutex_lock(&l->lock);
	if (l->c_step >= l->steps) {
		l->c_epoch++;
		l->c_step = 0;
		pthread_mutex_unlock(&l->lock);
		return -ENODATA;
	}
	if (!l->threaded)
		return next_sync(l, batch);
	while (!l->fifo_count) {
		if (count_held(l) == l->nslots) {
			pthread_mutex_unlock(&l->lock);
			return -EBUSY;
		}
		pthread_cond_wait(&l->cond, &l->lock);
	}
	s = &l->slots[l->fifo[l->fifo_head]];
	l->fifo_head = (l->fifo_head + 1) % l->nslots;
	l->fifo_count--;
	s->state = SLOT_HELD;
	l->c_step++;
	pthread_mutex_unlock(&l->lock);
	*batch = &s->b;
	return 0;
}

void ht_loader_release(struct ht_loader *l, struct ht_batch *batch)
{
	struct slot *s =
		(struct slot *)((char *)batch - offsetof(struct slot, b));

	pthread_mutex_lock(&l->lock);
	s->state = SLOT_FREE;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

int ht_loader_next_copy(struct ht_loader *l, float *x, int32_t *y,
			struct ht_batch *info)
{
	struct ht_batch *b;
	int ret;

	if (l->tw.text)
		return -EINVAL;
	ret = ht_loader_next(l, &b);
	if (ret)
		return ret;
	memcpy(x, b->x, (size_t)b->n * l->ds->f * sizeof(float));
	memcpy(y, b->y, (size_t)b->n * sizeof(int32_t));
	*info = *b;
	info->x = NULL;
	info->y = NULL;
	info->idx = NULL;
	ht_loader_release(l, b);
	return 0;
}

int ht_loader_next_copy_text(struct ht_loader *l, int32_t *ids,
			     int32_t *targets, struct ht_batch *info)
{
	size_t row = (size_t)l->tw.context * sizeof(int32_t);
	struct ht_batch *b;
	int ret;

	if (!l->tw.text)
		return -EINVAL;
	ret = ht_loader_next(l, &b);
	if (ret)
		return ret;
	memcpy(ids, b->ids, b->n * row);
	memcpy(targets, b->targets, b->n * row);
	*info = *b;
	info->ids = NULL;
	info->targets = NULL;
	info->idx = NULL;
	ht_loader_release(l, b);
	return 0;
}

int ht_loader_seek(struct ht_loader *l, uint64_t epoch, uint64_t step)
{
	uint32_t i;

	if (step > l->steps)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	l->gen++;
	for (i = 0; i < l->nslots; i++)
		if (l->slots[i].state == SLOT_READY)
			l->slots[i].state = SLOT_FREE;
	l->fifo_head = 0;
	l->fifo_count = 0;
	l->p_epoch = l->c_epoch = epoch;
	l->p_step = l->c_step = step;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

void ht_loader_get_state(const struct ht_loader *l, struct ht_loader_state *st)
{
	memset(st, 0, sizeof(*st));
	/* The consumer position moves only in the caller's thread */
	st->epoch = l->c_epoch;
	st->step = l->c_step;
	st->seed = l->o.seed;
	st->n_samples = l->n;
	st->world_size = l->o.world_size;
	st->batch_size = l->o.batch_size;
	st->shuffle = l->o.shuffle;
	st->drop_last = l->o.drop_last;
}

int ht_loader_set_state(struct ht_loader *l, const struct ht_loader_state *st,
			char *err, size_t errlen)
{
	if (st->seed != l->o.seed || st->n_samples != l->n ||
	    st->world_size != l->o.world_size ||
	    st->batch_size != l->o.batch_size || st->shuffle != l->o.shuffle ||
	    st->drop_last != l->o.drop_last) {
		ht_seterr(
			err, errlen,
			"loader state mismatch: saved seed %llu, %u samples, world %u, batch %u, shuffle %d, drop_last %d; now seed %llu, %u samples, world %u, batch %u, shuffle %d, drop_last %d",
			(unsigned long long)st->seed, st->n_samples,
			st->world_size, st->batch_size, st->shuffle,
			st->drop_last, (unsigned long long)l->o.seed, l->n,
			l->o.world_size, l->o.batch_size, l->o.shuffle,
			l->o.drop_last);
		return -EINVAL;
	}
	if (st->step > l->steps) {
		ht_seterr(
			err, errlen,
			"loader state: step %llu beyond the %llu steps of an epoch",
			(unsigned long long)st->step,
			(unsigned long long)l->steps);
		return -EINVAL;
	}
	return ht_loader_seek(l, st->epoch, st->step);
}
